//! Signals: the facts about an action that rules match on, extracted once per action.
//!
//! Everything is lower-case and tokenized here, so rules compare plain words.

use crate::view::ActionView;

/// Splits an identifier or phrase into lower-case words: `unified_list_employees`,
/// `candidate.addTag`, `Get_Workers_Request`, `batchGet`, `kebab-case` all work.
pub fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Lower-case words of prose: split on anything but letters and digits, never inside a
/// word (`TypeScript` stays one word).
pub fn words(s: &str) -> Vec<String> {
    raw_words(s).map(str::to_lowercase).collect()
}

/// The words of prose as written, without allocating.
fn raw_words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The forms a word may take in the lexicon: `lists` -> `list`, `queries` -> `query`,
/// `deleted` -> `delete`, `syncing` -> `sync`.
pub fn stems(word: &str) -> impl Iterator<Item = String> + '_ {
    let mut forms = vec![word.to_owned()];
    if let Some(w) = word.strip_suffix("ies") {
        forms.push(format!("{w}y"));
    }
    if let Some(w) = word.strip_suffix("es") {
        forms.push(w.to_owned());
    }
    if let Some(w) = word.strip_suffix('s') {
        forms.push(w.to_owned());
    }
    if let Some(w) = word.strip_suffix("ed") {
        forms.push(w.to_owned());
        forms.push(format!("{w}e"));
    }
    if let Some(w) = word.strip_suffix("ing") {
        forms.push(w.to_owned());
        forms.push(format!("{w}e"));
    }
    forms.into_iter().filter(|f| f.len() >= 2)
}

/// One literal path: segments without parameters, and what its end says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathShape {
    /// Literal segments, lower-case, leading `_` removed (`/_search` -> `search`).
    pub segments: Vec<String>,
    /// The path ends in a parameter (`/users/{id}`): it addresses one item.
    pub item: bool,
    /// Words of an RPC method (`/candidate.addTag` -> `add`, `tag`).
    pub rpc: Vec<String>,
    /// Words of a custom method (`/files/{id}:batchGet` -> `batch`, `get`).
    pub custom: Vec<String>,
    /// Values of `?action=` / `method=` / `op=` / `cmd=` selectors.
    pub selectors: Vec<String>,
    /// The operation is chosen by an argument: a selector whose value is a parameter
    /// (`?action=${inputs.op}`), or a script or RPC endpoint (`.php`, `.cgi`, `/rpc`).
    pub dispatch: bool,
}

fn is_param(seg: &str) -> bool {
    seg.starts_with(':')
        || seg.starts_with('{')
        || seg.starts_with('$')
        || seg.contains("${")
        || seg.contains("{{")
        || seg.starts_with('<')
}

/// Reads the shape of a templated URL. Hosts and schemes are skipped; parameters in any of
/// the template styles seen in catalogs (`:id`, `{id}`, `${inputs.id}`, `{{x}}`) count as
/// parameters.
pub fn path_shape(url: &str) -> PathShape {
    let mut shape = PathShape::default();
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let path = path.split_once("://").map_or(path, |(_, rest)| {
        rest.split_once('/').map_or("", |(_, p)| p)
    });
    for pair in query.split('&') {
        if let Some((k, v)) = pair.split_once('=')
            && matches!(
                k.to_ascii_lowercase().as_str(),
                "action" | "method" | "op" | "cmd" | "operation"
            )
        {
            if is_param(v) {
                shape.dispatch = true;
            } else {
                shape.selectors.extend(tokens(v));
            }
        }
    }
    let raw: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    for (i, seg) in raw.iter().enumerate() {
        let last = i + 1 == raw.len();
        let (base, custom) = match seg.rsplit_once(':') {
            // `{id}:resolve` or `files:batchGet`; a leading `:id` is a parameter.
            Some((b, c)) if !b.is_empty() && !c.is_empty() && !c.contains('}') => (b, Some(c)),
            _ => (*seg, None),
        };
        if last {
            shape.item = is_param(base) && custom.is_none();
            if let Some(c) = custom {
                shape.custom = tokens(c);
            }
        }
        if is_param(base) {
            continue;
        }
        let base = base.trim_start_matches('_').to_ascii_lowercase();
        if last
            && (matches!(
                base.rsplit_once('.'),
                Some((_, "php" | "cgi" | "asp" | "aspx" | "jsp"))
            ) || matches!(base.as_str(), "rpc" | "jsonrpc" | "xmlrpc"))
        {
            shape.dispatch = true;
        }
        // A file extension (`report.csv`) is not a method, but the words of
        // `candidate.addtag` are: keep the original case for camelCase splitting.
        if last
            && let Some((_, method)) = base.rsplit_once('.')
            && !matches!(
                method,
                "json"
                    | "xml"
                    | "csv"
                    | "yaml"
                    | "txt"
                    | "pdf"
                    | "html"
                    | "php"
                    | "cgi"
                    | "asp"
                    | "aspx"
                    | "jsp"
            )
        {
            let original = seg.rsplit_once('.').map_or("", |(_, m)| m);
            shape.rpc = tokens(original);
        }
        shape.segments.push(base);
    }
    shape
}

/// Everything rules look at, for one action.
#[derive(Debug, Clone, Default)]
pub struct Signals {
    pub methods: Vec<String>,
    pub functions: Vec<String>,
    pub id_tokens: Vec<String>,
    pub label_tokens: Vec<String>,
    /// Words of the description's first sentence.
    pub description_tokens: Vec<String>,
    pub paths: Vec<PathShape>,
    pub soap: Vec<Vec<String>>,
    pub action_type: Option<String>,
    pub inputs: Vec<String>,
    /// Inputs that take a free string (no enum).
    pub free_string_inputs: Vec<String>,
    /// Distinct words of every input description.
    pub input_description_words: Vec<String>,
}

/// The first sentence of a description: up to `. `, a newline after text, or 200 chars.
pub fn first_sentence(text: &str) -> &str {
    let t = text.trim_start();
    let mut end = t.len().min(200);
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    let head = &t[..end];
    let cut = head
        .find(". ")
        .or_else(|| head.find(".\n"))
        .or_else(|| head.find('\n'))
        .unwrap_or(head.len());
    &head[..cut]
}

impl Signals {
    /// All signals of an action, every input-description word kept (for `explain`).
    pub fn of(view: &ActionView) -> Signals {
        Signals::build(view, &|w| Some(w.to_lowercase()), usize::MAX)
    }

    /// The signals of an action, keeping only the input-description words `keep` accepts:
    /// rules look for a handful of them, and input descriptions are long.
    /// `keep` turns a raw word into the word to keep, or drops it.
    pub fn keeping(view: &ActionView, keep: &dyn Fn(&str) -> Option<String>) -> Signals {
        // The description's verb is among its opening words; the rest only costs time.
        Signals::build(view, keep, 12)
    }

    fn build(
        view: &ActionView,
        keep: &dyn Fn(&str) -> Option<String>,
        description_words: usize,
    ) -> Signals {
        let mut s = Signals {
            methods: view.methods().into_iter().map(str::to_owned).collect(),
            id_tokens: tokens(&view.id),
            label_tokens: view.label.as_deref().map(words).unwrap_or_default(),
            description_tokens: view
                .description
                .as_deref()
                .map(|d| {
                    raw_words(first_sentence(d))
                        .take(description_words)
                        .map(str::to_lowercase)
                        .collect()
                })
                .unwrap_or_default(),
            action_type: view.action_type.as_deref().map(str::to_ascii_lowercase),
            ..Signals::default()
        };
        for step in &view.steps {
            if let Some(f) = &step.function
                && !s.functions.contains(f)
            {
                s.functions.push(f.clone());
            }
            if let Some(url) = &step.url {
                s.paths.push(path_shape(url));
            }
            if let Some(op) = &step.soap_operation {
                s.soap.push(tokens(op));
            }
        }
        for input in &view.inputs {
            let name = input.name.to_ascii_lowercase();
            let free = input.enum_values.is_empty()
                && matches!(input.ty.as_deref(), None | Some("string"));
            if free {
                s.free_string_inputs.push(name.clone());
            }
            s.inputs.push(name);
            for raw in input
                .description
                .as_deref()
                .map(raw_words)
                .into_iter()
                .flatten()
            {
                if let Some(w) = keep(raw)
                    && !s.input_description_words.contains(&w)
                {
                    s.input_description_words.push(w);
                }
            }
        }
        s
    }

    /// A one-line account of each signal, for `explain`.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        let list = |v: &[String]| v.join(", ");
        if !self.methods.is_empty() {
            out.push(format!("methods: {}", list(&self.methods)));
        }
        if !self.functions.is_empty() {
            out.push(format!("step functions: {}", list(&self.functions)));
        }
        out.push(format!("id words: {}", list(&self.id_tokens)));
        if !self.label_tokens.is_empty() {
            out.push(format!("label words: {}", list(&self.label_tokens)));
        }
        if !self.description_tokens.is_empty() {
            out.push(format!(
                "description words: {}",
                list(&self.description_tokens)
            ));
        }
        for p in &self.paths {
            let mut parts = vec![format!("path segments: /{}", p.segments.join("/"))];
            if p.item {
                parts.push("ends in a parameter".into());
            }
            if !p.rpc.is_empty() {
                parts.push(format!("rpc method: {}", p.rpc.join(" ")));
            }
            if !p.custom.is_empty() {
                parts.push(format!("custom method: {}", p.custom.join(" ")));
            }
            if p.dispatch {
                parts.push("the operation is chosen by an argument".into());
            }
            if !p.selectors.is_empty() {
                parts.push(format!("selector: {}", p.selectors.join(" ")));
            }
            out.push(parts.join("; "));
        }
        for op in &self.soap {
            out.push(format!("soap operation words: {}", op.join(" ")));
        }
        if let Some(t) = &self.action_type {
            out.push(format!("actionType: {t}"));
        }
        if !self.inputs.is_empty() {
            out.push(format!("inputs: {}", list(&self.inputs)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_every_style() {
        assert_eq!(
            tokens("unified_list_employees"),
            ["unified", "list", "employees"]
        );
        assert_eq!(tokens("candidate.addTag"), ["candidate", "add", "tag"]);
        assert_eq!(tokens("Get_Workers_Request"), ["get", "workers", "request"]);
        assert_eq!(
            tokens("atlas-list-db-users"),
            ["atlas", "list", "db", "users"]
        );
        assert_eq!(tokens("HTTPServer"), ["httpserver"]);
    }

    #[test]
    fn path_shapes() {
        let p = path_shape("/files/{fileId}/accessproposals/{proposalId}:resolve");
        assert_eq!(p.custom, ["resolve"]);
        assert_eq!(p.segments, ["files", "accessproposals"]);
        assert!(!p.item);
        let p = path_shape("/v2/users/${inputs.id}");
        assert!(p.item);
        let p = path_shape("/users/:id");
        assert!(p.item);
        assert_eq!(p.segments, ["users"]);
        let p = path_shape("/candidate.addTag");
        assert_eq!(p.rpc, ["add", "tag"]);
        let p = path_shape("/index/_search");
        assert_eq!(p.segments.last().map(String::as_str), Some("search"));
        let p = path_shape("https://api.example.com/v1/run?action=delete&id=1");
        assert_eq!(p.selectors, ["delete"]);
        assert_eq!(p.segments, ["v1", "run"]);
        let p = path_shape("/reports/export.csv");
        assert!(p.rpc.is_empty());
    }

    #[test]
    fn stems_cover_inflections() {
        let forms: Vec<String> = stems("queries").collect();
        assert!(forms.contains(&"query".to_owned()));
        let forms: Vec<String> = stems("deleted").collect();
        assert!(forms.contains(&"delete".to_owned()));
    }
}

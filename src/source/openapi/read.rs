//! OpenAPI documents (Swagger 2.0, OpenAPI 3.0 and 3.1; YAML or JSON) read as catalogs: each
//! operation (path x method) is an action, mapped into the same [`ActionView`] connector
//! actions are, so every rule, finding and output treats both alike.
//!
//! JSON is read by the YAML parser (JSON is YAML 1.2 flow syntax), so a JSON document gets
//! the same byte spans, duplicate-key refusal and line/column errors as YAML does.

use saphyr_parser::ScalarStyle;

use crate::effects::{Effect, Effects, Hints};
use crate::error::Error;
use crate::model::openapi::{EFFECTS_KEY, HINT_KEYS, HintFormat};
use crate::view::{ActionView, Declared, Input, SourceKind, Step};
use crate::yaml::tree::{Kind, NodeId, Tree};

/// The top-level key of a document's paths.
const PATHS_KEY: &str = "paths";

/// The HTTP methods a path item may hold as operations (OpenAPI 3.0 and 3.1).
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Swagger 2.0's: its Path Item Object has no `trace`, so a `trace` key there is data, not
/// an operation a generator would make a tool of.
const SWAGGER_METHODS: [&str; 7] = ["get", "put", "post", "delete", "options", "head", "patch"];

/// The key of `info` that names the connector a document's tools are filed under, beside
/// the operations' `x-effects` (the same prefix).
pub const KEY_EXTENSION: &str = "x-effects-key";

/// One operation of a document.
#[derive(Debug, Clone)]
pub struct Operation {
    pub view: ActionView,
    /// The path template (`/pets/{petId}`) and the lower-case method, as keys of `paths`.
    pub path: String,
    pub method: String,
    /// The method key and the operation's mapping.
    pub key: NodeId,
    pub map: NodeId,
    /// The keys from the document's root to the operation's mapping: `paths`, the path,
    /// the method; or, for a path item written elsewhere and reached by a `$ref`
    /// (`components/pathItems`), where that item is. What an Overlay action targets and
    /// where the check looks for what was inserted.
    pub location: Vec<String>,
    /// The `x-effects` value, when there is one.
    pub effects: Option<NodeId>,
    pub request_body: bool,
    pub tags: Vec<String>,
}

/// What a document holds besides its operations.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// `openapi` or `swagger`, with its version (`3.1.0`, `2.0`).
    pub spec: String,
    pub title: Option<String>,
    /// `info.x-effects-key`: the key its operations' tools are filed under, written where a
    /// connector writes `info.key`.
    pub key: Option<String>,
    pub operations: Vec<Operation>,
    /// Problems with single operations (a `$ref` that points nowhere, a bad `x-effects`
    /// item, a hint that is not a boolean); the others are still read.
    pub problems: Vec<Error>,
}

impl Document {
    /// The name its operations' tools are filed under: its `info.x-effects-key`, else the
    /// title, snake-cased (the `info.key` a connector would have), else none.
    pub fn key(&self) -> Option<String> {
        if let Some(key) = &self.key {
            return Some(key.clone());
        }
        let t = self.title.as_deref()?;
        let key = snake(t);
        (!key.is_empty()).then_some(key)
    }
}

/// True when a file's text is an OpenAPI or Swagger document: its top-level mapping has an
/// `openapi` or `swagger` key. Decided on the text alone, without parsing it, so the walk
/// can ask of every `*.yaml` and `*.json` file cheaply.
pub fn is_document(text: &str) -> bool {
    let text = text.trim_start_matches('\u{feff}');
    if let Some(at) = flow_opening(text) {
        return flow_top_level_key(text, at, &["openapi", "swagger"]);
    }
    // In YAML a top-level key starts its line at column 0; block scalars and nested
    // mappings are indented, so nothing else can start a line with `openapi:`.
    const STARTS: [&str; 8] = [
        "openapi:",
        "\"openapi\":",
        "'openapi':",
        "openapi :",
        "swagger:",
        "\"swagger\":",
        "'swagger':",
        "swagger :",
    ];
    text.lines()
        .filter(|line| line.starts_with(['o', 's', '"', '\'']))
        .any(|line| STARTS.iter().any(|p| line.starts_with(p)))
}

/// Where a root flow mapping opens (JSON, or YAML written in flow style): the first `{`
/// past blank lines, comments (YAML's `#`, and JSONC's `//` and `/* */`, so that a JSONC
/// document is claimed and refused with its place rather than passed over), `%` directives
/// and a `---`; `None` when something else comes first.
pub fn flow_opening(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let line_end = |i: usize| memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
    let mut i = 0;
    loop {
        match *b.get(i)? {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' | b'%' => i = line_end(i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = line_end(i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2 + memchr::memmem::find(&b[i + 2..], b"*/")? + 2;
            }
            b'-' if b[i..].starts_with(b"---")
                && b.get(i + 3).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                i += 3;
            }
            b'{' => return Some(i),
            _ => return None,
        }
    }
}

/// Whether a key of the flow mapping opening at `from` is one of `wanted`: JSON, or YAML in
/// flow style (plain, single- or double-quoted keys, `#` comments), found by skipping
/// scalars and counting brackets. No value is built, and the scan stops at the first such
/// key (a document's `openapi` is usually its first: on an 11.6 MB document, collecting every
/// key first was 14% of its backfill).
fn flow_top_level_key(text: &str, from: usize, wanted: &[&str]) -> bool {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, from);
    // Where a scalar may start (after an opener, a separator or a blank), and whether the
    // one starting there is a key of the root mapping.
    let (mut token, mut key) = (true, false);
    let is_key = |name: &str, after: usize| {
        let mut j = after;
        while b.get(j).is_some_and(|c| matches!(c, b' ' | b'\t')) {
            j += 1;
        }
        b.get(j) == Some(&b':') && wanted.contains(&name)
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'{' | b'[' => {
                depth += 1;
                (token, key) = (true, depth == 1);
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return false;
                }
                (token, key) = (false, false);
            }
            b',' => (token, key) = (true, depth == 1),
            b':' => (token, key) = (true, false),
            b' ' | b'\t' | b'\r' | b'\n' => token = true,
            b'#' if token => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if token && b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if token && b.get(i + 1) == Some(&b'*') => {
                let Some(n) = memchr::memmem::find(&b[i + 2..], b"*/") else {
                    return false;
                };
                i += 2 + n + 2;
                continue;
            }
            b'"' | b'\'' if token => {
                let start = i + 1;
                let Some(end) = quoted_end(b, start, c) else {
                    return false;
                };
                i = end;
                if key && text.get(start..i).is_some_and(|name| is_key(name, i + 1)) {
                    return true;
                }
                (token, key) = (false, false);
            }
            _ if token => {
                // A plain scalar: to a flow indicator, or a `:` that ends a key.
                let start = i;
                i = plain_end(b, i);
                if key
                    && text
                        .get(start..i)
                        .is_some_and(|name| is_key(name.trim_end(), i))
                {
                    return true;
                }
                (token, key) = (false, key && b.get(i) == Some(&b'\n'));
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Where a quoted scalar whose content starts at `i` closes: the index of its closing
/// `quote`, or `None` when the text ends first.
fn quoted_end(b: &[u8], mut i: usize, quote: u8) -> Option<usize> {
    loop {
        i += b
            .get(i..)
            .and_then(|rest| memchr::memchr2(quote, b'\\', rest))?;
        // A backslash escapes in double quotes only; in single quotes a quote
        // is written twice.
        if b[i] == b'\\' {
            i += if quote == b'"' { 2 } else { 1 };
        } else if quote == b'\'' && b.get(i + 1) == Some(&b'\'') {
            i += 2;
        } else {
            return Some(i);
        }
    }
}

/// Where a plain scalar at `i` of a flow collection ends: at a flow indicator, a line
/// break, or a `:` that ends a key.
fn plain_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len()
        && !matches!(b[i], b',' | b'[' | b']' | b'{' | b'}' | b'\n')
        && !(b[i] == b':'
            && b.get(i + 1).is_none_or(|n| {
                matches!(
                    n,
                    b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
                )
            }))
    {
        i += 1;
    }
    i
}

/// `Swagger Petstore` -> `swagger_petstore`; also the action id of an operation without an
/// `operationId` (`get /pets/{petId}` -> `get_pets_pet_id`). Letters of any script are
/// kept, lower-cased: dropped, `Café` filed its tools under `caf`, and two titles written
/// in another script both came to nothing and were taken for one connector.
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower {
                out.push('_');
            }
            prev_lower = c.is_lowercase() || c.is_numeric() || !c.is_uppercase();
            out.extend(c.to_lowercase());
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    out.trim_end_matches('_').to_owned()
}

fn node_error(tree: &Tree, node: NodeId, message: impl Into<String>) -> Error {
    let at = tree.node(node).start();
    Error::new(message).at(tree.line(node), tree.column(at) + 1)
}

/// Reads a parsed document's operations. Fails only when the document is not one (no
/// top-level mapping with `openapi` or `swagger`); problems with single operations are
/// collected in [`Document::problems`].
pub fn read(tree: &Tree) -> Result<Document, Error> {
    let mut operations = Vec::new();
    let mut doc = read_with(tree, true, &mut |op| operations.push(op))?;
    doc.operations = operations;
    Ok(doc)
}

/// [`read`] for a second plan of the same document (the check of an edited text): the same
/// operations, failing where [`read`] fails, each with what planning reads of it (its id,
/// label, declaration, hints and places) and without what only classification and the
/// reports read (description, inputs, scopes, tags, steps, line, comment, title). Reading
/// those again was a third of the check beyond its parse, for views it then dropped. Each
/// operation goes to `each` as it is read, in document order (the returned document holds
/// none), so a check compares it and lets it go.
pub fn read_to_plan(tree: &Tree, each: &mut dyn FnMut(Operation)) -> Result<Document, Error> {
    read_with(tree, false, each)
}

fn read_with(tree: &Tree, full: bool, each: &mut dyn FnMut(Operation)) -> Result<Document, Error> {
    let (root, spec_key, mut doc) = head(tree)?;
    let reader = Reader {
        tree,
        root,
        refs: Default::default(),
        keys: Default::default(),
        full,
    };
    reader.scope_problems(tree.get(root, "security"), &mut doc.problems);
    let Some(paths) = tree.get(root, "paths") else {
        return Ok(doc);
    };
    let Some(entries) = tree.entries(paths) else {
        doc.problems
            .push(node_error(tree, paths, "`paths` must be a mapping"));
        return Ok(doc);
    };
    let methods: &[&str] = if spec_key == "swagger" {
        &SWAGGER_METHODS
    } else {
        &METHODS
    };
    // Path items written elsewhere (`components/pathItems`) and named by a `$ref`, each read
    // once: it is one mapping, however many paths name it, and one edit declares it.
    let mut elsewhere: std::collections::HashSet<NodeId> = Default::default();
    for (pk, item) in entries {
        let Some(path) = tree.scalar(pk) else {
            continue;
        };
        // A Paths Object's `x-` keys are extensions, not paths: nothing under them is an
        // operation a generator makes a tool of.
        if path.starts_with("x-") || !tree.is_map(item) {
            continue;
        }
        reader.path_operations(path, item, methods, &mut elsewhere, &mut doc, each);
    }
    Ok(doc)
}

/// A document's root mapping, the key that names its spec (`openapi` or `swagger`), and
/// what it says of itself; an error where it is no OpenAPI document.
fn head(tree: &Tree) -> Result<(NodeId, &'static str, Document), Error> {
    let root = *tree
        .roots
        .first()
        .ok_or_else(|| Error::new("empty document"))?;
    if !tree.is_map(root) {
        return Err(node_error(
            tree,
            root,
            "an OpenAPI document is a mapping at the top level",
        ));
    }
    let spec_key = ["openapi", "swagger"]
        .into_iter()
        .find(|k| tree.get(root, k).is_some())
        .ok_or_else(|| node_error(tree, root, "no top-level `openapi` or `swagger` key"))?;
    let info = tree.get(root, "info");
    let mut doc = Document {
        spec: format!(
            "{spec_key} {}",
            tree.get_str(root, spec_key).unwrap_or_default()
        ),
        title: info
            .and_then(|i| tree.get_str(i, "title"))
            .map(str::to_owned),
        ..Document::default()
    };
    if let Some(at) = info.and_then(|i| tree.get(i, KEY_EXTENSION)) {
        match tree.scalar(at).map(str::trim).filter(|k| !k.is_empty()) {
            Some(key) => doc.key = Some(key.to_owned()),
            None => doc.problems.push(node_error(
                tree,
                at,
                format!("`info.{KEY_EXTENSION}` must be a non-empty string: the tools are filed under the title"),
            )),
        }
    }
    Ok((root, spec_key, doc))
}

/// The keys of an operation's mapping that its view is read from, found in one pass.
struct OpFields {
    id: Option<NodeId>,
    summary: Option<NodeId>,
    description: Option<NodeId>,
    params: Option<NodeId>,
    body: Option<NodeId>,
    security: Option<NodeId>,
    tags: Option<NodeId>,
    effects: Option<NodeId>,
    /// The first key of each format's hints, in [`HintFormat::ALL`] order.
    hints: [Option<NodeId>; 4],
}

impl OpFields {
    fn read(tree: &Tree, op: NodeId) -> OpFields {
        let [
            id,
            summary,
            description,
            params,
            body,
            security,
            tags,
            effects,
            speakeasy,
            zuplo,
            zilla,
            mcp,
        ] = tree.fields(
            op,
            [
                "operationId",
                "summary",
                "description",
                "parameters",
                "requestBody",
                "security",
                "tags",
                EFFECTS_KEY,
                HintFormat::Speakeasy.path()[0],
                HintFormat::Zuplo.path()[0],
                HintFormat::Zilla.path()[0],
                HintFormat::Mcp.path()[0],
            ],
        );
        OpFields {
            id,
            summary,
            description,
            params,
            body,
            security,
            tags,
            effects,
            hints: [speakeasy, zuplo, zilla, mcp],
        }
    }
}

struct Reader<'a, 't> {
    tree: &'a Tree<'t>,
    root: NodeId,
    /// What each local `$ref` names, once looked up: a mapping's keys are searched one by
    /// one, and a large document's `components` hold thousands (a 20 MB document spent
    /// most of its read there).
    refs: std::cell::RefCell<std::collections::HashMap<String, Option<NodeId>>>,
    /// The keys of each large mapping a `$ref` passes through, indexed once: Microsoft
    /// Graph's `components/schemas` holds thousands, and searching them one by one for each
    /// new `$ref` was a twentieth of its backfill.
    keys: std::cell::RefCell<
        std::collections::HashMap<NodeId, std::collections::HashMap<&'a str, NodeId>>,
    >,
    /// Everything, or only what planning reads ([`read_to_plan`]).
    full: bool,
}

impl<'a> Reader<'a, '_> {
    /// [`Tree::get`], through an index of a mapping of more than [`INDEXED`] own keys and no
    /// merge key (where a key's first entry is the one `get` finds).
    fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        const INDEXED: usize = 32;
        let tree = self.tree;
        let map = tree.resolve(map);
        if let Some(index) = self.keys.borrow().get(&map) {
            return index.get(key).copied();
        }
        if tree
            .own_entries(map)
            .is_none_or(|mut e| e.nth(INDEXED).is_none())
        {
            return tree.get(map, key);
        }
        let mut index = std::collections::HashMap::new();
        for (k, v) in tree.own_entries(map).into_iter().flatten() {
            match tree.scalar(k) {
                Some("<<") => return tree.get(map, key),
                Some(name) => {
                    index.entry(name).or_insert(v);
                }
                None => {}
            }
        }
        let found = index.get(key).copied();
        self.keys.borrow_mut().insert(map, index);
        found
    }

    /// Follows a local `$ref` (`#/components/parameters/limit`) to what it names; anything
    /// else is returned as it is. Bounded, so a cycle cannot loop.
    fn deref(&self, mut node: NodeId, problems: &mut Vec<Error>) -> NodeId {
        let tree = self.tree;
        for _ in 0..16 {
            let Some(target) = tree
                .is_map(node)
                .then(|| tree.get_str(node, "$ref"))
                .flatten()
            else {
                return node;
            };
            let Some(pointer) = target.strip_prefix("#/") else {
                return node; // another file: not read
            };
            let cached = self.refs.borrow().get(pointer).copied();
            let at = cached.unwrap_or_else(|| {
                let mut at = Some(self.root);
                for part in pointer.split('/') {
                    at = at.and_then(|a| self.step(a, &pointer_part(part)));
                }
                self.refs.borrow_mut().insert(pointer.to_owned(), at);
                at
            });
            match at {
                Some(found) => node = found,
                None => {
                    problems.push(node_error(
                        tree,
                        node,
                        format!("`$ref: {target}` points to nothing in this document"),
                    ));
                    return node;
                }
            }
        }
        node
    }

    /// One step of a JSON pointer: a mapping's key, or a sequence's index (`parameters/0`),
    /// written as RFC 6901 writes one (digits, no leading zero).
    fn step(&self, at: NodeId, part: &str) -> Option<NodeId> {
        let tree = self.tree;
        let at = tree.resolve(at);
        if tree.node(at).kind() != Kind::Seq {
            return self.get(at, part);
        }
        let canonical = !part.is_empty()
            && part.bytes().all(|b| b.is_ascii_digit())
            && (part == "0" || !part.starts_with('0'));
        let index: usize = part.parse().ok().filter(|_| canonical)?;
        tree.items(at)?.nth(index)
    }

    /// The path item a path's `$ref` names, with the keys that lead to it from the root,
    /// when its operations are to be read from there; `None` when they are read elsewhere
    /// (an item of `paths`, under its own path) or cannot be (another file, a pointer
    /// through a list, nothing there: each named in `problems`).
    fn path_item(
        &self,
        item: NodeId,
        path: &str,
        target: &str,
        hops: usize,
        problems: &mut Vec<Error>,
    ) -> Option<(NodeId, Vec<String>)> {
        let tree = self.tree;
        let Some(pointer) = target.strip_prefix("#/") else {
            problems.push(node_error(
                tree,
                item,
                format!(
                    "path `{path}` is a `$ref` to a path item in another file ({target}): its operations are not read (bundle the document, or write them under `paths`)"
                ),
            ));
            return None;
        };
        let keys: Vec<String> = pointer.split('/').map(pointer_part).collect();
        // Another path of `paths` is read under its own key (an `x-` key is not one).
        if keys.len() == 2 && keys[0] == "paths" && !keys[1].starts_with("x-") {
            return None;
        }
        let mut at = self.root;
        for k in &keys {
            let next = tree.is_map(at).then(|| self.get(at, k)).flatten();
            match next {
                Some(n) => at = n,
                None => {
                    let why = if tree.node(tree.resolve(at)).kind() == Kind::Seq {
                        "passes through a list, which an Overlay or an edit of this tool cannot name: its operations are not read (move the item to `components/pathItems`)"
                    } else {
                        "points to nothing in this document"
                    };
                    problems.push(node_error(tree, item, format!("`$ref: {target}` {why}")));
                    return None;
                }
            }
        }
        let at = tree.resolve(at);
        if !tree.is_map(at) {
            return None;
        }
        // An item that is itself a `$ref` is read where that one leads, a bounded number of
        // times, so a cycle cannot loop.
        match tree.get_str(at, "$ref") {
            Some(next) if hops < 16 => self.path_item(item, path, next, hops + 1, problems),
            Some(_) => {
                problems.push(node_error(
                    tree,
                    item,
                    format!("path `{path}`: its `$ref`s lead from path item to path item more than 16 times (a cycle?): its operations are not read"),
                ));
                None
            }
            None => Some((at, keys)),
        }
    }

    /// Hands `each` the operations of path `path` (`item` in `paths`): the item's own, then
    /// those of the path item its `$ref` names, unless another path's `$ref` named it
    /// first (`elsewhere`) or the path has its own of that method.
    fn path_operations(
        &self,
        path: &str,
        item: NodeId,
        methods: &[&str],
        elsewhere: &mut std::collections::HashSet<NodeId>,
        doc: &mut Document,
        each: &mut dyn FnMut(Operation),
    ) {
        let tree = self.tree;
        let mut items = vec![(item, vec!["paths".to_owned(), path.to_owned()])];
        if let Some(target) = tree.get_str(item, "$ref") {
            items.extend(
                self.path_item(item, path, target, 0, &mut doc.problems)
                    .filter(|(at, _)| elsewhere.insert(*at)),
            );
        }
        let shared = items.iter().find_map(|&(i, _)| tree.get(i, "parameters"));
        for (n, (at, keys)) in items.iter().enumerate() {
            for (mk, op) in tree.entries(*at).into_iter().flatten() {
                let Some(method) = tree.scalar(mk).filter(|m| methods.contains(m)) else {
                    continue;
                };
                // The path's own operation wins over the referenced item's.
                if n > 0 && tree.get(item, method).is_some() {
                    continue;
                }
                if !tree.is_map(op) || tree.node(op).kind() == Kind::Alias {
                    doc.problems.push(node_error(
                        tree,
                        op,
                        format!("operation `{method} {path}` is not a mapping written here"),
                    ));
                    continue;
                }
                let mut location = keys.clone();
                location.push(method.to_owned());
                each(self.operation(
                    path,
                    method,
                    mk,
                    op,
                    shared,
                    location,
                    doc.title.as_deref(),
                    &mut doc.problems,
                ));
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn operation(
        &self,
        path: &str,
        method: &str,
        key: NodeId,
        op: NodeId,
        shared: Option<NodeId>,
        location: Vec<String>,
        title: Option<&str>,
        problems: &mut Vec<Error>,
    ) -> Operation {
        let tree = self.tree;
        let string = |n: Option<NodeId>| n.and_then(|n| tree.scalar(n)).map(str::to_owned);
        let f = OpFields::read(tree, op);
        let id = string(f.id)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| snake(&format!("{method} {path}")));
        let label = string(f.summary).filter(|s| !s.is_empty());
        self.scope_problems(f.security, problems);
        let (view, request_body, tags) = if !self.full {
            let view = ActionView {
                id,
                label,
                declared: declared(tree, f.effects),
                annotations: self.hints(f.hints, problems),
                source: SourceKind::OpenApi,
                ..ActionView::default()
            };
            (view, false, Vec::new())
        } else {
            let mut required = Vec::new();
            let (inputs, request_body) =
                self.inputs(f.params, shared, f.body, &mut required, problems);
            let scopes = self.scopes(f.security);
            let tags = f
                .tags
                .and_then(|t| tree.items(t))
                .into_iter()
                .flatten()
                .filter_map(|t| tree.scalar(t).map(str::to_owned))
                .collect();
            let view = ActionView {
                id,
                label,
                description: string(f.description).filter(|s| !s.is_empty()),
                steps: vec![Step {
                    function: Some("request".into()),
                    method: Some(method.to_owned()),
                    url: Some(path.to_owned()),
                    soap_operation: None,
                }],
                inputs,
                required,
                scopes,
                declared: declared(tree, f.effects),
                annotations: self.hints(f.hints, problems),
                line: tree.line(key),
                id_comment: method_comment(tree, key, op),
                connector_title: title.map(str::to_owned),
                source: SourceKind::OpenApi,
                written_at: (location != [PATHS_KEY, path, method])
                    .then(|| location.clone().into_boxed_slice()),
                ..ActionView::default()
            };
            (view, request_body, tags)
        };
        Operation {
            view,
            path: path.to_owned(),
            method: method.to_owned(),
            key,
            map: op,
            location,
            effects: f.effects,
            request_body,
            tags,
        }
    }

    /// An operation's inputs: its parameters and the path's (unless the operation redefines
    /// the same name and location), and its request body's properties; and whether it
    /// takes a body. The names it requires go to `required`.
    fn inputs(
        &self,
        params: Option<NodeId>,
        shared: Option<NodeId>,
        body: Option<NodeId>,
        required: &mut Vec<String>,
        problems: &mut Vec<Error>,
    ) -> (Vec<Input>, bool) {
        let tree = self.tree;
        let mut params_read: Vec<(String, String, NodeId)> = Vec::new();
        for list in [params, shared].into_iter().flatten() {
            for p in tree.items(list).into_iter().flatten() {
                let p = self.deref(p, problems);
                let name = tree.get_str(p, "name").unwrap_or_default().to_owned();
                let loc = tree.get_str(p, "in").unwrap_or_default().to_owned();
                if name.is_empty() || params_read.iter().any(|(n, l, _)| *n == name && *l == loc) {
                    continue;
                }
                params_read.push((name, loc, p));
            }
        }
        let mut inputs: Vec<Input> = Vec::new();
        let mut request_body = false;
        // A path parameter is required whatever it says: the path cannot be built without it.
        let requires = |p: NodeId, loc: &str| loc == "path" || self.is_true(p, "required");
        for (name, loc, p) in &params_read {
            let schema = tree.get(*p, "schema").map(|s| self.deref(s, problems));
            if loc == "body" {
                // Swagger 2.0's body parameter: the body's properties are the inputs.
                request_body = true;
                let before = inputs.len();
                if let Some(s) = schema {
                    self.properties(s, &mut inputs, required, problems);
                }
                if inputs.len() == before {
                    inputs.push(self.input(name, None, None));
                    if requires(*p, loc) {
                        required.push(name.clone());
                    }
                }
                continue;
            }
            if loc == "formData" {
                request_body = true;
            }
            let typed = schema.unwrap_or(*p);
            inputs.push(self.input(name, Some(typed), Some(*p)));
            if requires(*p, loc) {
                required.push(name.clone());
            }
        }
        if let Some(body) = body.map(|b| self.deref(b, problems)) {
            request_body = true;
            let schema = tree
                .get(body, "content")
                .and_then(|c| tree.entries(c))
                .and_then(|mut e| e.next())
                .and_then(|(_, media)| tree.get(media, "schema"))
                .map(|s| self.deref(s, problems));
            let before = inputs.len();
            if let Some(s) = schema {
                self.properties(s, &mut inputs, required, problems);
            }
            if inputs.len() == before {
                inputs.push(Input {
                    name: "body".into(),
                    ty: Some("object".into()),
                    ..Input::default()
                });
                if self.is_true(body, "required") {
                    required.push("body".into());
                }
            }
        }
        (inputs, request_body)
    }

    /// Whether `key` of a mapping is the boolean true.
    fn is_true(&self, map: NodeId, key: &str) -> bool {
        self.tree.get(map, key).and_then(|v| boolean(self.tree, v)) == Some(true)
    }

    /// The OAuth scopes an operation can be called with (its own `security`, else the
    /// document's): one entry per security requirement that names scopes, its schemes'
    /// scopes together, as a requirement's are all needed and the requirements are
    /// alternatives.
    /// A scope that is no string makes the scopes say nothing (named by
    /// [`Reader::scope_problems`]): the strings left are not the whole requirement.
    fn scopes(&self, security: Option<NodeId>) -> Vec<Vec<String>> {
        let tree = self.tree;
        let security = security.or_else(|| tree.get(self.root, "security"));
        let mut ways: Vec<Vec<String>> = Vec::new();
        for req in security.and_then(|s| tree.items(s)).into_iter().flatten() {
            let mut scopes: Vec<String> = Vec::new();
            for (_, list) in tree.entries(req).into_iter().flatten() {
                for s in tree.items(list).into_iter().flatten() {
                    let Some(s) = tree.scalar(s) else {
                        return Vec::new();
                    };
                    if !scopes.iter().any(|x| x == s) {
                        scopes.push(s.to_owned());
                    }
                }
            }
            if !scopes.is_empty() && !ways.contains(&scopes) {
                ways.push(scopes);
            }
        }
        ways
    }

    /// Names each scope of a `security` list that is no string, where it is written (the
    /// document's list once, an operation's with the operation).
    fn scope_problems(&self, security: Option<NodeId>, problems: &mut Vec<Error>) {
        let tree = self.tree;
        for req in security.and_then(|s| tree.items(s)).into_iter().flatten() {
            for (_, list) in tree.entries(req).into_iter().flatten() {
                for s in tree.items(list).into_iter().flatten() {
                    if tree.scalar(s).is_none() {
                        problems.push(node_error(
                            tree,
                            s,
                            "a scope of `security` is not a string: write each scope as a plain string; until then the operation's scopes are not read",
                        ));
                    }
                }
            }
        }
    }

    fn input(&self, name: &str, typed: Option<NodeId>, param: Option<NodeId>) -> Input {
        let tree = self.tree;
        Input {
            name: name.to_owned(),
            ty: typed
                .and_then(|t| tree.get_str(t, "type"))
                .map(str::to_owned),
            enum_values: typed
                .and_then(|t| tree.get(t, "enum"))
                .and_then(|e| tree.items(e))
                .into_iter()
                .flatten()
                .filter_map(|v| tree.scalar(v).map(str::to_owned))
                .collect(),
            description: param
                .and_then(|p| tree.get_str(p, "description"))
                .map(str::to_owned),
        }
    }

    /// The top-level properties of a body schema, as inputs (what a connector would list),
    /// and those its `required` list names.
    fn properties(
        &self,
        schema: NodeId,
        out: &mut Vec<Input>,
        required: &mut Vec<String>,
        problems: &mut Vec<Error>,
    ) {
        let tree = self.tree;
        let Some(props) = tree.get(schema, "properties").and_then(|p| tree.entries(p)) else {
            return;
        };
        let before = out.len();
        for (k, v) in props {
            let Some(name) = tree.scalar(k) else { continue };
            let v = self.deref(v, problems);
            // Without its description: a shared body schema repeats its property texts in
            // every operation that sends it (a 20 MB document's views took 700 MB), and
            // what rules read of a body is its field names and types.
            out.push(self.input(name, Some(v), None));
        }
        let read = &out[before..];
        for r in tree
            .get(schema, "required")
            .and_then(|r| tree.items(r))
            .into_iter()
            .flatten()
        {
            if let Some(name) = tree.scalar(r)
                && read.iter().any(|i| i.name == name)
            {
                required.push(name.to_owned());
            }
        }
    }

    /// The hints already written where a generator reads them, first found wins: they are
    /// declarations, like a connector's `annotations:`.
    /// `first` holds the operation's value of each format's first key, in
    /// [`HintFormat::ALL`] order, read with its other keys in one pass.
    fn hints(&self, first: [Option<NodeId>; 4], problems: &mut Vec<Error>) -> Option<Hints> {
        let tree = self.tree;
        let mut hints = Hints::default();
        let mut any = false;
        for (format, first) in HintFormat::ALL.into_iter().zip(first) {
            let mut at = first;
            for k in &format.path()[1..] {
                at = at.and_then(|a| tree.get(a, k));
            }
            let Some(map) = at.filter(|&m| tree.is_map(m)) else {
                continue;
            };
            // The four keys in one pass over the mapping, as `get` finds each.
            let found = tree.fields(map, HINT_KEYS);
            for (i, (key, v)) in HINT_KEYS.iter().zip(found).enumerate() {
                let Some(v) = v else {
                    continue;
                };
                let Some(value) = boolean(tree, v) else {
                    problems.push(node_error(
                        tree,
                        v,
                        format!(
                            "{key} must be true or false (unquoted); no hint is written beside it until it is"
                        ),
                    ));
                    continue;
                };
                let slot = match i {
                    0 => &mut hints.read_only,
                    1 => &mut hints.destructive,
                    2 => &mut hints.idempotent,
                    _ => &mut hints.open_world,
                };
                if slot.is_none() {
                    *slot = Some(value);
                    any = true;
                }
            }
        }
        any.then_some(hints)
    }
}

/// A hint's value as a generator reads it: plain `true` or `false`; a quoted `"true"` is a
/// string.
pub fn boolean(tree: &Tree, value: NodeId) -> Option<bool> {
    match tree.scalar_text(tree.resolve(value)) {
        Some(("true", ScalarStyle::Plain)) => Some(true),
        Some(("false", ScalarStyle::Plain)) => Some(false),
        _ => None,
    }
}

/// The comment on an operation's method line (`get: # catalog-effects: ignore[...]`, or
/// after a flow operation written on it: `get: {operationId: x} # ...`), without `#`:
/// where a YAML document silences a finding for one operation, as a connector does on its
/// `actionId` line.
fn method_comment(tree: &Tree, key: NodeId, op: NodeId) -> Option<String> {
    let text = tree.text();
    let bytes = text.as_bytes();
    let mut i = tree.node(key).end();
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    if bytes.get(i) != Some(&b':') {
        return None;
    }
    i += 1;
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    // A flow operation on the line: its closing bracket is found by scanning, as the
    // parser's end of a flow collection can lie past a comment after it.
    if bytes.get(i) == Some(&b'{') && tree.node(op).flow() && tree.node(op).start() == i {
        i = flow_end(bytes, i)?;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
            i += 1;
        }
    }
    if bytes.get(i) != Some(&b'#') {
        return None;
    }
    let end = tree.lines.line_end(i);
    Some(text[i + 1..end].trim().to_owned())
}

/// Where the flow collection opening at `at` closes (past its bracket) on its own line;
/// `None` when it does not close there (it goes on to later lines). The scan stops at the
/// line's end rather than looking it up first: every operation of a minified document is
/// on its one line, and finding that line's end for each was quadratic.
fn flow_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => return None,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'"' | b'\n') {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' => {
                i += 1;
                while i < bytes.len() && !matches!(bytes[i], b'\'' | b'\n') {
                    i += 1;
                }
            }
            _ => {}
        }
        if bytes.get(i) == Some(&b'\n') {
            return None;
        }
        i += 1;
    }
    None
}

/// `x-effects` read back as a declaration, with the messages a connector's `effects` gets.
fn declared(tree: &Tree, value: Option<NodeId>) -> Declared {
    let Some(value) = value else {
        return Declared::None;
    };
    let Some(items) = tree.items(value) else {
        return Declared::Invalid(match tree.scalar(value) {
            Some(v) => format!("{EFFECTS_KEY} is a scalar `{v}`, not a list"),
            None => format!("{EFFECTS_KEY} is a mapping, not a list"),
        });
    };
    let mut set = Effects::EMPTY;
    let mut unknown = Vec::new();
    for item in items {
        match tree.scalar(item).and_then(Effect::parse) {
            Some(e) => set.insert(e),
            None => unknown.push(tree.scalar(item).unwrap_or("(not a scalar)").to_owned()),
        }
    }
    if !unknown.is_empty() {
        Declared::Invalid(format!("unknown effect(s): {}", unknown.join(", ")))
    } else if set.is_empty() {
        Declared::Invalid(format!("{EFFECTS_KEY} is an empty list"))
    } else {
        Declared::Valid(set)
    }
}

/// A JSON pointer's reference token as the key it names: `~1` is `/`, `~0` is `~` (RFC
/// 6901), and a pointer in a URI fragment is percent-encoded.
fn pointer_part(part: &str) -> String {
    percent_decode(&part.replace("~1", "/").replace("~0", "~"))
}

fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::tree;

    #[test]
    fn documents_are_found_by_their_top_level_key() {
        assert!(is_document("openapi: 3.1.0\ninfo: {}\n"));
        assert!(is_document("# c\nswagger: '2.0'\n"));
        assert!(is_document(
            "{\"info\": {\"openapi\": 1}, \"openapi\": \"3.0.0\"}"
        ));
        assert!(!is_document("{\"info\": {\"openapi\": \"3.0.0\"}}"));
        assert!(!is_document("info:\n  openapi: 3.0.0\n"));
        assert!(!is_document("description: |\n  openapi: no\n"));
        // YAML in flow style, with comments; JSONC.
        assert!(is_document("{openapi: 3.0.3, paths: {}}"));
        assert!(is_document(
            "# c\n---\n{info: {title: 'it''s'}, # c\n 'swagger': '2.0'}"
        ));
        assert!(is_document(
            "{\"info\": {\"a\": \"}\"},\n  \"openapi\" : \"3.1.0\"}"
        ));
        assert!(is_document("// c\n{\n  /* c */ \"openapi\": \"3.0.0\"}"));
        assert!(is_document("{info: {title: a b}, openapi: 3.0.3}"));
        assert!(!is_document("{info: {openapi: 3.0.3}}"));
        assert!(!is_document("{a: 'openapi: x', b: \"openapi\"}"));
        assert!(!is_document("{openapi_x: 1, xopenapi: 2}"));
        assert!(!is_document("[{openapi: 3}]"));
        assert!(is_document("{a: 'x\\', openapi: 3.0.3}"));
        // Any cut of a text is asked about without a panic (the walk asks of every file).
        for text in [
            "# c\n{a: \"x\\\"\", b: 'it''s', /* c */ c: [1, {d: e}], // f\n openapi: 3}",
            "{\"a\": \"\\\\\", \"openapi\": \"3.0.0\"}",
        ] {
            for cut in 0..=text.len() {
                let _ = is_document(&text[..cut]);
            }
        }
        assert!(is_document("{a: \"x\\\" y\", 'it''s': 1, openapi: 3.0.3}"));
    }

    #[test]
    fn operations_resolve_refs_path_parameters_bodies_and_scopes() {
        let text = r##"openapi: 3.0.3
info: {title: Pet Store, version: "1"}
security: [{oauth: [pets.read]}]
components:
  parameters:
    Limit: {name: limit, in: query, schema: {type: integer}}
  schemas:
    Pet: {type: object, properties: {name: {type: string}, tag: {type: string}}}
paths:
  /pets/{petId}:
    parameters:
    - {name: petId, in: path, required: true}
    get:
      operationId: showPetById
      summary: Info for a pet
      tags: [pets]
      parameters: [{$ref: '#/components/parameters/Limit'}]
      x-effects: [read]
      x-speakeasy-mcp: {readOnlyHint: true}
    post:
      security: [{oauth: [pets.write], key: []}, {key: []}, {oauth: [pets.admin]}]
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
"##;
        let t = tree::parse(text).unwrap();
        let doc = read(&t).unwrap();
        assert_eq!(doc.key().as_deref(), Some("pet_store"));
        let [get, post] = &doc.operations[..] else {
            panic!("{:?}", doc.operations)
        };
        assert_eq!(get.view.id, "showPetById");
        assert_eq!(get.view.label.as_deref(), Some("Info for a pet"));
        let names: Vec<&str> = get.view.inputs.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["limit", "petId"]);
        assert_eq!(get.view.scopes, [["pets.read"]]);
        assert_eq!(get.tags, ["pets"]);
        assert_eq!(
            get.view.declared,
            Declared::Valid(Effects::single(Effect::Read))
        );
        assert_eq!(get.view.annotations.as_ref().unwrap().read_only, Some(true));
        assert_eq!(get.view.line, 13);
        assert_eq!(post.view.id, "post_pets_pet_id");
        assert!(post.request_body);
        let names: Vec<&str> = post.view.inputs.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["petId", "name", "tag"]);
        // Each requirement one way to call it; one that asks no scope says nothing of them.
        assert_eq!(post.view.scopes, [["pets.write"], ["pets.admin"]]);
        assert!(doc.problems.is_empty(), "{:?}", doc.problems);
    }

    #[test]
    fn a_dangling_ref_is_named_and_the_rest_is_read() {
        let text = "swagger: '2.0'\ninfo: {title: x}\npaths:\n  /a:\n    get:\n      parameters:\n      - $ref: '#/parameters/nope'\n    delete: {}\n";
        let t = tree::parse(text).unwrap();
        let doc = read(&t).unwrap();
        assert_eq!(doc.operations.len(), 2);
        assert_eq!(doc.problems.len(), 1);
        assert_eq!(doc.problems[0].line, Some(7));
        assert!(doc.problems[0].message.contains("#/parameters/nope"));
    }
}

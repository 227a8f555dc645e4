//! What a language reader finds in a server's source file, and the reader itself: each
//! registration as a [`Tool`] with its declared [`Annotations`] and the [`Slot`] its missing
//! hints go in. A file of its own so that the readers and the planner take it from a
//! sibling, while the parent only picks the reader by language.

use crate::error::Error;

/// A hint's value as written in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// `True` / `true`, `False` / `false`, or a constant in the same file whose value is
    /// one of those.
    Bool(bool),
    /// An expression the reader cannot read to a boolean (a variable, a call): its text.
    Unread(String),
}

/// A tool's declared annotations, as far as they can be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Annotations {
    /// No annotations given.
    Absent,
    /// A literal the reader read (`ToolAnnotations(readOnlyHint=True)`, a dict or an object
    /// literal, or a constant of the same file holding one): each hint key with its value, the key
    /// spelled as the MCP specification does (`readOnlyHint`, whatever the source wrote:
    /// `read_only_hint`).
    Literal(Vec<(String, Value)>),
    /// An expression that cannot be read as a whole (a helper call such as
    /// `writes(destructive=True)`, a constant imported from another file): its text. The tool
    /// counts as declared and is never patched.
    Unread(String),
}

/// How one hint entry is spelled in the inserted text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// A Python keyword argument: `readOnlyHint=True` (or `read_only_hint=True` with
    /// `snake`).
    Keyword { snake: bool },
    /// A Python dict entry with the file's quote: `"readOnlyHint": True`.
    Dict { quote: char },
    /// A JavaScript object property: `readOnlyHint: true`.
    Property,
}

/// Where a tool's missing hints go, and how they are written there: the inserted text is
/// `before`, the entries joined by `sep`, then `after`, at byte `at`. A reader fills it in
/// the file's own style (its quotes, indentation, trailing commas).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub at: usize,
    pub before: String,
    pub sep: String,
    pub after: String,
    pub entry: Entry,
}

impl Slot {
    /// The text inserted for `keys` (the specification's spelling) and their values.
    pub fn render(&self, keys: &[(&str, bool)]) -> String {
        let entries: Vec<String> = keys
            .iter()
            .map(|&(key, value)| match self.entry {
                Entry::Keyword { snake } => {
                    let key = if snake {
                        snake_case(key)
                    } else {
                        key.to_owned()
                    };
                    format!("{key}={}", py_bool(value))
                }
                Entry::Dict { quote } => format!("{quote}{key}{quote}: {}", py_bool(value)),
                Entry::Property => format!("{key}: {value}"),
            })
            .collect();
        format!("{}{}{}", self.before, entries.join(&self.sep), self.after)
    }
}

fn py_bool(value: bool) -> &'static str {
    if value { "True" } else { "False" }
}

/// `readOnlyHint` as Python's SDK also accepts it: `read_only_hint`.
pub fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The specification's spelling of a hint key written either way (`read_only_hint` or
/// `readOnlyHint`), if it is one of the four hints or `title`.
pub fn hint_key(written: &str) -> Option<&'static str> {
    [
        "title",
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ]
    .into_iter()
    .find(|k| *k == written || snake_case(k) == written)
}

/// One tool registration found in a server's source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    /// The name the server lists it under: a string literal, a constant or enum member
    /// whose value is a string in the same file, or the function's name where
    /// the SDK takes that (`@mcp.tool()` on `def get_user`). `Err` holds the expression
    /// when it cannot be read.
    pub name: Result<String, String>,
    pub title: Option<String>,
    /// The description argument, the docstring, or a string constant; concatenated
    /// literals joined.
    pub description: Option<String>,
    /// Input names: function parameters (the SDK's context parameter left out), a zod
    /// shape's keys, a JSON Schema's `properties`.
    pub inputs: Vec<String>,
    pub annotations: Annotations,
    /// Byte where the registration starts (the decorator's `@`, the call's callee): every
    /// edit of the tool names it.
    pub start: usize,
    /// 1-based line and column of `start`.
    pub line: usize,
    pub column: usize,
    /// Where missing hints go, or why none can be inserted (an annotations argument
    /// spread from elsewhere, `**kwargs`).
    pub slot: Result<Slot, String>,
}

/// What a language reader finds in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub tools: Vec<Tool>,
    /// Registrations the reader saw but could not read as a tool (a name built at run
    /// time, a call through a variable it cannot follow): named, with line and column.
    pub problems: Vec<Error>,
}

/// A language whose server source the tool reads.
pub trait Language: Sync {
    fn name(&self) -> &'static str;

    /// Whether a file of this language (by its name) registers tools on an MCP server SDK,
    /// from its text: an import of one of the SDKs.
    fn is_server(&self, text: &str) -> bool;

    /// Reads every tool registration of one file. `Err` when the file cannot be parsed,
    /// at the line and column where it stops being the language.
    fn read(&self, text: &str, name: &str) -> Result<Found, Error>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_writes_each_language_s_entries() {
        let slot = |entry| Slot {
            at: 0,
            before: "(".into(),
            sep: ", ".into(),
            after: ")".into(),
            entry,
        };
        let keys = [("readOnlyHint", true), ("destructiveHint", false)];
        assert_eq!(
            slot(Entry::Keyword { snake: true }).render(&keys),
            "(read_only_hint=True, destructive_hint=False)"
        );
        assert_eq!(
            slot(Entry::Dict { quote: '\'' }).render(&keys),
            "('readOnlyHint': True, 'destructiveHint': False)"
        );
        assert_eq!(
            slot(Entry::Property).render(&keys),
            "(readOnlyHint: true, destructiveHint: false)"
        );
    }
}

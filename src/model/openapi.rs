//! What an OpenAPI document's edits insert, and where: the `x-effects` key, the maps MCP
//! generators read hints from, and the values written there. The patch writes them in the
//! document's own style; an Overlay and the review guide cite them.

use serde_json::Value;

/// The key an operation declares its effects under: an extension, as OpenAPI requires of
/// any key it does not define.
pub const EFFECTS_KEY: &str = "x-effects";

/// Where an MCP generator reads the hints of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HintFormat {
    /// `x-speakeasy-mcp`, the hints directly in that map.
    Speakeasy,
    /// `x-zuplo-route.mcp.annotations`.
    Zuplo,
    /// `x-zilla-mcp.annotations`.
    Zilla,
    /// `x-mcp.annotations`.
    Mcp,
}

impl HintFormat {
    pub const ALL: [HintFormat; 4] = [
        HintFormat::Speakeasy,
        HintFormat::Zuplo,
        HintFormat::Zilla,
        HintFormat::Mcp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            HintFormat::Speakeasy => "speakeasy",
            HintFormat::Zuplo => "zuplo",
            HintFormat::Zilla => "zilla",
            HintFormat::Mcp => "mcp",
        }
    }

    pub fn parse(name: &str) -> Option<HintFormat> {
        HintFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The keys from the operation down to the map that holds the hints.
    pub fn path(self) -> &'static [&'static str] {
        match self {
            HintFormat::Speakeasy => &["x-speakeasy-mcp"],
            HintFormat::Zuplo => &["x-zuplo-route", "mcp", "annotations"],
            HintFormat::Zilla => &["x-zilla-mcp", "annotations"],
            HintFormat::Mcp => &["x-mcp", "annotations"],
        }
    }
}

/// The hint keys written and read back; `title` is left to the generators, which take it
/// from the operation's summary.
pub const HINT_KEYS: [&str; 4] = [
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// A value this tool writes into a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewValue {
    List(Vec<String>),
    Bool(bool),
    Map(Vec<(String, NewValue)>),
}

impl NewValue {
    pub fn to_json(&self) -> Value {
        match self {
            NewValue::List(items) => Value::Array(items.iter().cloned().map(Value::from).collect()),
            NewValue::Bool(b) => Value::Bool(*b),
            NewValue::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Keys added to one mapping of a document: the mapping's path of keys from the root
/// (`paths`, `/pets`, `get`, ...) and the entries. What the patch inserts there, and what an
/// Overlay action updates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inserted {
    /// Where the operation's mapping starts: the edits of one operation go together.
    pub map: usize,
    pub target: Vec<String>,
    /// How many of `target`'s keys lead to the operation's mapping: three (`paths`, the
    /// path, the method), or more for a path item written elsewhere
    /// (`components/pathItems/Pet/get`).
    pub operation: usize,
    pub entries: Vec<(String, NewValue)>,
    /// The entries replace values the mapping has (a rewritten `x-effects`); else every key
    /// is new there.
    pub replaces: bool,
}

/// A JSON pointer (RFC 6901) to the value at `keys` from the root: `/paths/~1pets/get`.
pub fn json_pointer<S: AsRef<str>>(keys: &[S]) -> String {
    keys.iter()
        .map(|k| format!("/{}", k.as_ref().replace('~', "~0").replace('/', "~1")))
        .collect()
}

impl NewValue {
    /// The value in YAML's flow style, as a reviewer reads it: `[read]`, `{readOnlyHint: true}`.
    pub fn flow(&self) -> String {
        match self {
            NewValue::Bool(b) => b.to_string(),
            NewValue::List(items) => format!("[{}]", items.join(", ")),
            NewValue::Map(entries) => {
                let inner: Vec<String> = entries
                    .iter()
                    .map(|(k, v)| format!("{k}: {}", v.flow()))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
        }
    }
}

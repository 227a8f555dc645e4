//! MCP servers in source as a source: a Python or TypeScript/JavaScript file that registers
//! tools on an MCP server SDK. Each registration is read into a [`Tool`] by its language's
//! reader ([`python`], [`script`]), with a real parser for that language; the tool's
//! missing hints (`readOnlyHint` and `destructiveHint`, both, explicitly) are inserted in
//! the file's own syntax at the [`Slot`] its reader found, and the edited text is read
//! again to check that every tool reads back the same with exactly the inserted hints.

pub mod plan;
pub mod python;
pub mod script;

use std::path::Path;

use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::Plan;
use crate::model::edit::Edit;
use crate::source::kind::Input;

/// The languages whose server source is read, and the file names each reads.
const LANGUAGES: [(&[&str], &dyn Language); 2] = [
    (&[".py"], &python::Python),
    (
        &[".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs", ".jsx"],
        &script::Script,
    ),
];

/// The language of a file, by its name: a declaration file (`.d.ts`) holds no registration.
pub fn language(name: &str) -> Option<&'static dyn Language> {
    if [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|e| name.ends_with(e))
    {
        return None;
    }
    LANGUAGES
        .into_iter()
        .find(|(exts, _)| exts.iter().any(|e| name.ends_with(e)))
        .map(|(_, lang)| lang)
}

/// Why the walk leaves out a server source file, if it does: one built from other source
/// (a bundle, a minified file, a compiler's output folder), whose registrations are read
/// in that source and whose edits the next build would overwrite; or a test's, whose tools
/// are made for the test and never listed by the server.
pub fn left_out(rel: &str) -> Option<&'static str> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let dirs = || rel.split('/').rev().skip(1);
    let minified = [".min.js", ".min.mjs", ".min.cjs", ".bundle.js"]
        .iter()
        .any(|e| name.ends_with(e));
    if minified || dirs().any(|d| ["dist", "build", "node_modules", "__pycache__"].contains(&d)) {
        return Some(
            "built from other source (a bundle or a build folder); its hints belong in that source",
        );
    }
    // A virtual environment's packages import the SDK too, the SDK itself among them.
    if dirs().any(|d| d == "site-packages") {
        return Some("an installed package (site-packages): its hints belong to its own source");
    }
    let stem = name.split('.').next().unwrap_or(name);
    let test_name = [".test.", ".spec."].iter().any(|t| name.contains(t))
        || (name.ends_with(".py") && (stem.starts_with("test_") || stem.ends_with("_test")));
    if test_name || dirs().any(|d| ["__tests__", "tests", "test"].contains(&d)) {
        return Some("a test's server: its tools are made for the test");
    }
    None
}

pub struct Server;

impl super::kind::Source for Server {
    fn name(&self) -> &'static str {
        "server"
    }

    /// A file of a known language that imports an MCP server SDK. Generated and test files
    /// are the walk's to leave out ([`left_out`]), claimed here so it can say which it left.
    fn claims(&self, name: &str, path: &Path) -> bool {
        language(name).is_some_and(|lang| {
            std::fs::read(path).is_ok_and(|b| lang.is_server(&String::from_utf8_lossy(&b)))
        })
    }

    fn owns_name(&self, name: &str) -> bool {
        language(name).is_some()
    }

    fn plan(
        &self,
        file: Input<'_>,
        text: String,
        opts: &Options,
        render: &mut dyn FnMut(&str, &[Edit]),
    ) -> Result<Plan, Error> {
        let lang = language(file.name)
            .ok_or_else(|| Error::new("not a source file of a language the tool reads"))?;
        plan::plan(lang, file.name, text, opts, file.left_alone, render)
    }
}

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
    fn generated_and_test_files_are_left_out_with_why() {
        let generated = |rel| left_out(rel).is_some_and(|w| w.starts_with("built"));
        let test = |rel| left_out(rel).is_some_and(|w| w.starts_with("a test"));
        assert!(generated("dist/index.js"));
        assert!(generated("packages/x/build/server.mjs"));
        assert!(generated("vendor/app.min.js"));
        assert!(left_out("venv/lib/python3.11/site-packages/mcp/server/lowlevel.py").is_some());
        assert!(test("src/__tests__/tools.ts"));
        assert!(test("src/tools.test.ts"));
        assert!(test("src/server.spec.ts"));
        assert!(test("tests/test_server.py"));
        assert!(test("pkg/server_test.py"));
        for written in [
            "src/index.ts",
            "server.py",
            "src/distance.ts",
            "builder/server.py",
        ] {
            assert_eq!(left_out(written), None, "{written}");
        }
    }

    #[test]
    fn languages_by_name_and_hint_keys_either_way() {
        assert_eq!(
            language("a.py").map(|l| l.name()),
            Some(python::Python.name())
        );
        assert_eq!(
            language("a.mts").map(|l| l.name()),
            Some("TypeScript/JavaScript")
        );
        assert!(language("types.d.ts").is_none());
        assert!(language("a.rs").is_none());
        assert_eq!(hint_key("read_only_hint"), Some("readOnlyHint"));
        assert_eq!(hint_key("openWorldHint"), Some("openWorldHint"));
        assert_eq!(hint_key("readonly"), None);
    }

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

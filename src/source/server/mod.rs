//! MCP servers in source as a source: a Python or TypeScript/JavaScript file that registers
//! tools on an MCP server SDK. Each registration is read into a [`Tool`] by its language's
//! reader ([`python`], [`script`]), with a real parser for that language; the tool's
//! missing hints (`readOnlyHint` and `destructiveHint`, both, explicitly) are inserted in
//! the file's own syntax at the [`Slot`] its reader found, and the edited text is read
//! again to check that every tool reads back the same with exactly the inserted hints.

pub mod plan;
pub mod python;
pub mod reader;
pub mod script;

pub use reader::{Annotations, Entry, Found, Language, Slot, Tool, Value, hint_key, snake_case};

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
}

//! OpenAPI documents as a source: each operation gets `x-effects` (and, with `--hints`, the
//! derived hints where each MCP generator reads them), edited in the document's own syntax
//! and style ([`write`]). YAML gets lines indented like the operation's keys; JSON gets
//! JSON, with the document's indentation, spacing and line endings; every other byte stays
//! as it was.
//!
//! Read by [`read`], planned operation by operation ([`plan`]), then on [`crate::fix`]'s
//! path: every edited text is checked ([`check`]) before anything uses it, and an
//! operation whose edits fail is left alone and reported while the document's other
//! operations keep theirs.

pub mod check;
pub mod plan;
pub mod read;
pub mod write;

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::Plan;
use crate::model::edit::Edit;
use crate::model::site::Shape;
use crate::source::kind::Input;
use crate::yaml::Reuse;
use check::{jsonc_comment, strict_json};
use read as doc;

pub struct OpenApi;

/// File names an OpenAPI document may have; which of them are documents is decided by
/// content.
pub fn may_be_document(name: &str) -> bool {
    !super::connector::is_connector_file(name)
        && [".yaml", ".yml", ".json"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

/// Whether a file's bytes show a top-level `openapi` or `swagger` key, in whatever encoding
/// they are: a document with one byte that is not UTF-8 (a Windows-1252 `é`) must be
/// claimed, so that reading it fails with the byte's place, rather than left out of the run
/// while the check passes without its operations.
fn bytes_are_document(bytes: &[u8]) -> bool {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return doc::is_document(text);
    }
    let utf16 = |le: bool| {
        let units = bytes[2..].chunks_exact(2).map(|p| {
            if le {
                u16::from_le_bytes([p[0], p[1]])
            } else {
                u16::from_be_bytes([p[0], p[1]])
            }
        });
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect::<String>()
    };
    let text = match bytes {
        [0xFF, 0xFE, ..] => utf16(true),
        [0xFE, 0xFF, ..] => utf16(false),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    };
    doc::is_document(&text)
}

impl super::kind::Source for OpenApi {
    fn name(&self) -> &'static str {
        "openapi"
    }

    fn claims(&self, name: &str, path: &Path) -> bool {
        may_be_document(name) && std::fs::read(path).is_ok_and(|b| bytes_are_document(&b))
    }

    fn owns_name(&self, name: &str) -> bool {
        may_be_document(name)
    }

    /// A document is its own group: its operations are never split across files.
    fn plan(
        &self,
        file: Input<'_>,
        text: String,
        opts: &Options,
        render: &mut dyn FnMut(&str, &[Edit]),
    ) -> Result<Plan, Error> {
        let json_name = file.name.ends_with(".json");
        plan(text, json_name, opts, file.left_alone, file.tree, render)
    }
}

/// Parses, classifies and plans one OpenAPI document, then checks its edits (see
/// [`check`]) on [`crate::fix`]'s path; `render` sees the original and the edits that
/// passed.
///
/// The document is edited in the syntax it has, whatever its name: JSON where it is JSON
/// (read by the JSON reader, or a flow mapping `serde_json` accepts), else YAML (a flow
/// mapping with a comment, in a `.yaml` file, is YAML). A `json_name` (`.json`) file that
/// opens like JSON must be JSON: a trailing comma or a comment that YAML would accept breaks
/// every JSON consumer, and an edit must not hide it.
pub fn plan(
    text: String,
    json_name: bool,
    opts: &Options,
    left_alone: Option<&str>,
    reuse: Reuse<'_>,
    render: &mut dyn FnMut(&str, &[Edit]),
) -> Result<Plan, Error> {
    let flow = doc::flow_opening(text.trim_start_matches('\u{feff}')).is_some();
    let refused = |e: Error| {
        if let Some(jsonc) = jsonc_comment(&text, false) {
            return jsonc;
        }
        match strict_json(&text) {
            Err(not_json) if flow && json_name => not_json,
            _ => e,
        }
    };
    let (tree, read_as_json) =
        crate::yaml::parse_reusing(&text, reuse, crate::yaml::parse_document).map_err(refused)?;
    let json = read_as_json || (flow && strict_json(&text).is_ok());
    if flow && json_name && !json {
        return Err(refused(Error::new("not valid JSON")));
    }
    if flow
        && !json
        && let Some(jsonc) = jsonc_comment(&text, true)
    {
        return Err(jsonc);
    }
    let document = doc::read(&tree).map_err(refused)?;
    let mut notes = Vec::new();
    let (info_key, info_title) = (document.key(), document.title.clone());
    let (ops, group) = plan::plan_ops(&tree, json, document.operations, opts, &mut notes);
    // Moved out with the plans, not copied: every key path and value of 20,000 operations
    // cloned, then dropped, was 1.5% of a document's backfill.
    let mut maps = HashMap::with_capacity(ops.len());
    let mut inserted = Vec::new();
    let mut actions = Vec::with_capacity(ops.len());
    for o in ops {
        maps.insert(o.planned.site.map_start, o.map);
        inserted.extend(o.inserted);
        actions.push(o.planned);
    }
    let edits = plan::edits_of(&actions);
    let mut plan = Plan {
        shape: Shape::OpenApi,
        group,
        info_key,
        key_written: document.key.is_some(),
        info_title,
        problems: document.problems,
        notes,
        actions,
        edits,
        new_text: None,
        silences: if json {
            Vec::new()
        } else {
            crate::text::file_silences(&text)
        },
        inserted,
        repeats: Vec::new(),
        // A document's `$ref`s are JSON pointers, resolved (and reported) by its reader,
        // not connector partials.
        refs: Vec::new(),
    };
    crate::fix::leave_alone(&mut plan, left_alone);
    if !crate::fix::checks(&plan, opts) {
        return crate::fix::finish(Cow::Borrowed(&text), plan, opts, None, render);
    }
    let mut checker = check::Checker {
        original: check::Original::new(&tree, read_as_json, json)?,
        maps,
        opts,
    };
    crate::fix::finish(Cow::Borrowed(&text), plan, opts, Some(&mut checker), render)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::RuleSet;
    use crate::fix::apply::apply;
    use crate::model::edit::Status;
    use crate::model::openapi::{HintFormat, Inserted};
    use crate::yaml::tree::NodeId;
    use crate::yaml::{parse_document, parse_tree};
    use check::{Beside, alike};
    use serde_json::Value;

    fn run(text: &str, formats: &[HintFormat]) -> (String, Plan) {
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.keep_texts = true;
        opts.hint_formats = formats.to_vec();
        let p = plan(
            text.to_owned(),
            false,
            &opts,
            None,
            Reuse::Parse,
            &mut |_, _| {},
        )
        .unwrap();
        let new = p.new_text.clone().unwrap_or_else(|| text.to_owned());
        (new, p)
    }

    const YAML: &str = "openapi: 3.0.0\ninfo:\n  title: Pets\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      summary: List all pets\n    delete:\n      operationId: deletePet\n      x-speakeasy-mcp:\n        name: remove\n";

    /// The walk beside the original is what the check trusts when it finds nothing wrong,
    /// so it must find every change that is not one of the inserted entries.
    #[test]
    fn the_walk_beside_the_original_finds_any_other_change() {
        let (new, p) = run(YAML, &[HintFormat::Speakeasy]);
        let old = parse_tree(YAML).unwrap();
        let inserted: Vec<&Inserted> = p.inserted.iter().collect();
        assert!(!inserted.is_empty());
        let same = |text: &str| {
            let t = parse_tree(text).unwrap();
            Beside::same(&old, &t, &inserted)
        };
        assert!(same(&new));
        for (from, to) in [
            ("List all pets", "List all dogs"),
            ("name: remove", "name: 'true'"),
            ("summary:", "summery:"),
            ("x-effects: [read]", "x-effects: [write]"),
            ("readOnlyHint: true", "readOnlyHint: 'true'"),
        ] {
            assert!(new.contains(from), "{from}");
            assert!(!same(&new.replacen(from, to, 1)), "{from} -> {to}");
        }
        // A rewritten declaration (`--fix-conflicts`) replaces the original's value.
        let conflicting = YAML.replace(
            "operationId: listPets",
            "operationId: listPets\n      x-effects: [delete]",
        );
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.fix_conflicts = true;
        let p = plan(
            conflicting.clone(),
            false,
            &opts,
            None,
            Reuse::Parse,
            &mut |_, _| {},
        )
        .unwrap();
        assert!(p.inserted.iter().any(|i| i.replaces), "{:?}", p.inserted);
        let edited = apply(&conflicting, &p.edits);
        assert!(edited.contains("x-effects: [read]"), "{edited}");
        let (o, e) = (
            parse_tree(&conflicting).unwrap(),
            parse_tree(&edited).unwrap(),
        );
        let ins: Vec<&Inserted> = p.inserted.iter().collect();
        assert!(Beside::same(&o, &e, &ins));
        // An inserted entry missing, and the original text (nothing inserted).
        assert!(!same(&new.replacen("      x-effects: [read]\n", "", 1)));
        assert!(!same(YAML));
    }

    /// The one-pass walk is trusted like [`Beside`]: true only where the edited tree holds
    /// the original's data plus exactly the inserted entries, where they were planned.
    #[test]
    fn the_one_pass_walk_finds_any_other_change() {
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.hint_formats = vec![HintFormat::Speakeasy, HintFormat::Zuplo];
        for original in [YAML.to_owned(), YAML_AS_JSON.to_owned()] {
            let old = parse_tree(&original).unwrap();
            let document = doc::read(&old).unwrap();
            let json = original.starts_with('{');
            let (ops, _) = plan::plan_ops(&old, json, document.operations, &opts, &mut Vec::new());
            let refs: Vec<(NodeId, &Inserted)> = ops
                .iter()
                .flat_map(|o| o.inserted.iter().map(move |i| (o.map, i)))
                .collect();
            let edits: Vec<_> = ops
                .iter()
                .flat_map(|o| o.planned.edit.iter().chain(&o.planned.more))
                .cloned()
                .collect();
            let mut edits = edits;
            edits.sort_by_key(|e| e.order());
            let new = apply(&original, &edits);
            // By the YAML parser's trees, and by the JSON reader's where it reads both texts
            // (the text compared for the data): the two must agree.
            let (old_doc, old_json) = parse_document(&original).unwrap();
            let walk = |text: &str| {
                let by_data = alike(&old, &parse_tree(text).unwrap(), &refs, false);
                let (t, json) = parse_document(text).unwrap();
                let by_text = alike(&old_doc, &t, &refs, old_json && json);
                assert_eq!(by_data, by_text, "{text}");
                by_data
            };
            assert_eq!(walk(&new), Some(true), "{new}");
            let json = original.starts_with('{');
            let changes: &[(&str, &str)] = if json {
                &[
                    ("List all pets", "List all dogs"),
                    ("\"name\": \"remove\"", "\"name\": \"true\""),
                    ("\"summary\"", "\"summery\""),
                    ("[\"read\"]", "[\"write\"]"),
                    ("\"readOnlyHint\": true", "\"readOnlyHint\": \"true\""),
                    ("\"title\": \"Pets\"", "\"title\": \"Pets\", \"x\": 1"),
                    ("\"title\": \"Pets\"", "\"title\": [\"Pets\"]"),
                ]
            } else {
                &[
                    ("List all pets", "List all dogs"),
                    ("name: remove", "name: 'true'"),
                    ("summary:", "summery:"),
                    ("x-effects: [read]", "x-effects: [write]"),
                    ("readOnlyHint: true", "readOnlyHint: 'true'"),
                    ("  title: Pets\n", "  title: Pets\n  x: 1\n"),
                    ("  title: Pets\n", "  title: [Pets]\n"),
                    ("      operationId: listPets\n", ""),
                    ("      x-effects: [read]\n", ""),
                    (
                        "      x-effects: [read]\n",
                        "      x-effects: [read]\n      x-more: 1\n",
                    ),
                    (
                        "    get:\n      x-effects: [read]\n",
                        "    x-effects: [read]\n    get:\n",
                    ),
                ]
            };
            for &(from, to) in changes {
                assert!(new.contains(from), "{from} in {new}");
                let changed = new.replacen(from, to, 1);
                if parse_tree(&changed).is_ok() {
                    assert_ne!(walk(&changed), Some(true), "{from} -> {to}");
                }
            }
            assert_ne!(walk(&original), Some(true));
            // Written otherwise, the same data: still the same.
            if json {
                let escaped = new.replacen("List all pets", "List all p\\u0065ts", 1);
                assert_eq!(walk(&escaped), Some(true), "{escaped}");
            }
            // A document with an anchor, or a merge key, is left to [`Beside`].
            if !json {
                let anchored = new.replacen("title: Pets", "title: &t Pets", 1);
                assert_eq!(walk(&anchored), None);
            }
        }
    }

    const YAML_AS_JSON: &str = "{\n  \"openapi\": \"3.0.0\",\n  \"info\": {\n    \"title\": \"Pets\"\n  },\n  \"paths\": {\n    \"/pets\": {\n      \"get\": {\n        \"operationId\": \"listPets\",\n        \"summary\": \"List all pets\"\n      },\n      \"delete\": {\n        \"operationId\": \"deletePet\",\n        \"x-speakeasy-mcp\": {\n          \"name\": \"remove\"\n        }\n      }\n    }\n  }\n}\n";

    #[test]
    fn yaml_operations_get_x_effects_and_hints_in_their_own_style() {
        let (new, p) = run(YAML, &[HintFormat::Speakeasy]);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(
            new,
            "openapi: 3.0.0\ninfo:\n  title: Pets\npaths:\n  /pets:\n    get:\n      x-effects: [read]\n      x-speakeasy-mcp:\n        readOnlyHint: true\n        destructiveHint: false\n        openWorldHint: true\n      operationId: listPets\n      summary: List all pets\n    delete:\n      x-effects: [delete]\n      operationId: deletePet\n      x-speakeasy-mcp:\n        readOnlyHint: false\n        destructiveHint: true\n        openWorldHint: true\n        name: remove\n"
        );
        let (again, p2) = run(&new, &[HintFormat::Speakeasy]);
        assert_eq!(again, new);
        assert!(p2.edits.is_empty());
        assert!(p2.actions.iter().all(|a| a.status == Status::Agrees));
    }

    #[test]
    fn json_keeps_its_indentation_spacing_and_line_endings() {
        let text = "{\r\n\t\"swagger\": \"2.0\",\r\n\t\"paths\": {\r\n\t\t\"/pets\": {\r\n\t\t\t\"get\": {\r\n\t\t\t\t\"operationId\": \"listPets\",\r\n\t\t\t\t\"tags\": [\r\n\t\t\t\t\t\"pets\"\r\n\t\t\t\t]\r\n\t\t\t}\r\n\t\t}\r\n\t}\r\n}";
        let (new, _) = run(text, &[HintFormat::Zuplo]);
        assert_eq!(
            new,
            "{\r\n\t\"swagger\": \"2.0\",\r\n\t\"paths\": {\r\n\t\t\"/pets\": {\r\n\t\t\t\"get\": {\r\n\t\t\t\t\"x-effects\": [\r\n\t\t\t\t\t\"read\"\r\n\t\t\t\t],\r\n\t\t\t\t\"x-zuplo-route\": {\r\n\t\t\t\t\t\"mcp\": {\r\n\t\t\t\t\t\t\"annotations\": {\r\n\t\t\t\t\t\t\t\"readOnlyHint\": true,\r\n\t\t\t\t\t\t\t\"destructiveHint\": false,\r\n\t\t\t\t\t\t\t\"openWorldHint\": true\r\n\t\t\t\t\t\t}\r\n\t\t\t\t\t}\r\n\t\t\t\t},\r\n\t\t\t\t\"operationId\": \"listPets\",\r\n\t\t\t\t\"tags\": [\r\n\t\t\t\t\t\"pets\"\r\n\t\t\t\t]\r\n\t\t\t}\r\n\t\t}\r\n\t}\r\n}"
        );
        let v: Value = serde_json::from_str(&new).unwrap();
        assert_eq!(v["paths"]["/pets"]["get"]["x-effects"][0], "read");
    }

    #[test]
    fn minified_json_stays_minified() {
        let text = "{\"openapi\":\"3.1.0\",\"paths\":{\"/pets/{id}\":{\"delete\":{\"operationId\":\"deletePet\"},\"get\":{}}}}\n";
        let (new, _) = run(text, &[HintFormat::Mcp]);
        assert_eq!(
            new,
            "{\"openapi\":\"3.1.0\",\"paths\":{\"/pets/{id}\":{\"delete\":{\"x-effects\":[\"delete\"],\"x-mcp\":{\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":true,\"openWorldHint\":true}},\"operationId\":\"deletePet\"},\"get\":{\"x-effects\":[\"read\"],\"x-mcp\":{\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false,\"openWorldHint\":true}}}}}}\n"
        );
    }

    #[test]
    fn a_yaml_flow_mapping_over_lines_gets_flow_entries_on_lines_of_their_own() {
        let text = "openapi: 3.0.0\npaths:\n  /a:\n    get: {\n      operationId: listA,\n      summary: List A\n    }\n";
        let (new, p) = run(text, &[HintFormat::Zilla]);
        assert!(
            p.problems.is_empty() && p.notes.is_empty(),
            "{:?} {:?}",
            p.problems,
            p.notes
        );
        assert_eq!(
            new,
            "openapi: 3.0.0\npaths:\n  /a:\n    get: {\n      x-effects: [read],\n      x-zilla-mcp: {annotations: {readOnlyHint: true, destructiveHint: false, openWorldHint: true}},\n      operationId: listA,\n      summary: List A\n    }\n"
        );
    }

    #[test]
    fn an_operation_that_cannot_take_a_key_is_named_and_the_rest_edited() {
        let text = "openapi: 3.0.0\npaths:\n  /a:\n    get: &op\n      operationId: listA\n    delete:\n      operationId: deleteA\n";
        let (new, p) = run(text, &[]);
        assert!(
            new.contains("    delete:\n      x-effects: [delete]\n"),
            "{new}"
        );
        assert!(!new.contains("get: &op\n      x-effects"), "{new}");
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(
            p.notes[0].to_string().contains("`listA` not edited"),
            "{}",
            p.notes[0]
        );
    }

    #[test]
    fn a_jsonc_comment_is_found_where_one_can_stand_and_nowhere_else() {
        let at = |text: &str, keys_only: bool| {
            jsonc_comment(text, keys_only).map(|e| (e.line.unwrap_or(0), e.column.unwrap_or(0)))
        };
        assert_eq!(at("{\"a\": 1, // c\n}", false), Some((1, 10)));
        assert_eq!(at("{\"a\": 1, // c\n}", true), Some((1, 10)));
        assert_eq!(at("{\"a\": 1 /* c */}", false), Some((1, 9)));
        assert_eq!(at("{\"a\": 1 /* c */}", true), None);
        for yaml in [
            "{url: //cdn.example.com/x}",
            "{a: 'x, // y', b: \"//\"}",
            "{a: 'it''s, // y'}",
            "{u: http://x}",
            "{a: b} # c, // d",
        ] {
            assert_eq!(at(yaml, true), None, "{yaml}");
        }
    }

    #[test]
    fn a_deeply_nested_document_is_an_error_with_its_place_not_a_crash() {
        let deep = format!(
            "openapi: 3.0.0\nx: {}{}\n",
            "[".repeat(5000),
            "]".repeat(5000)
        );
        let opts = Options::new(crate::classify::RuleSet::builtin().unwrap());
        let e = plan(deep, false, &opts, None, Reuse::Parse, &mut |_, _| {}).unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.column.is_some(), "{e}");
    }
}

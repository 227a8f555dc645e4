//! Valid OpenAPI documents that must be read: a
//! `$ref` into a list or to a path item elsewhere, a Paths Object extension, Swagger 2.0's
//! methods, YAML in flow style, JSON and YAML in a file named for the other, escaped
//! surrogate pairs, a generator map shared through a merge key, a document named through a
//! symlink; and what must be refused, with its place and its fix, writing nothing.

mod common;

use common::{git_apply, git_init, run_in, write_file};
use serde_json::Value;

/// A document's data: JSON as JSON (a YAML loader refuses an escaped surrogate pair), else
/// YAML.
fn data(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| {
        serde_json::to_value(yaml_serde::from_str::<yaml_serde::Value>(text).unwrap()).unwrap()
    })
}

/// Applies an Overlay whose targets are name-selector JSONPaths: each update merged into
/// its target, as the specification says.
fn apply_overlay(doc: &mut Value, overlay: &Value) {
    for action in overlay["actions"].as_array().unwrap() {
        let target = action["target"].as_str().unwrap();
        let mut at = &mut *doc;
        let mut rest = target.strip_prefix('$').unwrap();
        while !rest.is_empty() {
            let (key, tail) = if let Some(r) = rest.strip_prefix("['") {
                let end = r.find("']").unwrap();
                (r[..end].replace("\\'", "'"), &r[end + 2..])
            } else {
                let r = rest.strip_prefix('.').unwrap();
                let end = r.find(['.', '[']).unwrap_or(r.len());
                (r[..end].to_owned(), &r[end..])
            };
            at = at
                .get_mut(&key)
                .unwrap_or_else(|| panic!("{target}: no {key}"));
            rest = tail;
        }
        fn merge(at: &mut Value, update: &Value) {
            for (k, v) in update.as_object().unwrap() {
                match at.get_mut(k) {
                    Some(old) if old.is_object() && v.is_object() => merge(old, v),
                    _ => {
                        at.as_object_mut().unwrap().insert(k.clone(), v.clone());
                    }
                }
            }
        }
        merge(at, &action["update"]);
    }
}

/// What one backfill of a document gives: the run, the document before and after the patch,
/// and the CSV.
struct Backfilled {
    _dir: tempfile::TempDir,
    code: i32,
    stderr: String,
    patched: String,
    csv: String,
    /// The Overlay of the first run.
    overlay: String,
}

/// `name` holding `text` in a repository of its own, backfilled with `--hints speakeasy` and
/// an Overlay; the patch applied by git must give what the Overlay gives, and a rerun must
/// propose nothing.
fn backfill(name: &str, text: &str) -> Backfilled {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_file(root, name, text);
    git_init(root);
    let args = [
        "backfill",
        name,
        "--hints",
        "speakeasy",
        "--overlay",
        "out/o.yaml",
        "--patch",
        "out/p.patch",
        "--report",
        "out/c.csv",
    ];
    let run = run_in(root, &args);
    let csv = std::fs::read_to_string(root.join("out/c.csv")).unwrap_or_default();
    git_apply(root, &root.join("out/p.patch"), false).unwrap();
    let patched = std::fs::read_to_string(root.join(name)).unwrap();
    let overlay = std::fs::read_to_string(root.join("out/o.yaml")).unwrap_or_default();
    if !overlay.is_empty() {
        let mut via_overlay = data(text);
        apply_overlay(&mut via_overlay, &data(&overlay));
        assert_eq!(via_overlay, data(&patched), "{overlay}\n{patched}");
    }
    let again = run_in(root, &args);
    let patch = std::fs::read_to_string(root.join("out/p.patch")).unwrap();
    assert!(patch.is_empty(), "a rerun patches again:\n{patch}");
    assert_eq!(again.code, run.code, "{}", again.stderr);
    Backfilled {
        _dir: dir,
        code: run.code,
        stderr: run.stderr,
        patched,
        csv,
        overlay,
    }
}

/// The action ids of a CSV report.
fn ids(csv: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let at = header.iter().position(|h| *h == "action_id").unwrap();
    lines
        .map(|l| l.split(',').nth(at).unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_ref_whose_pointer_indexes_a_list_resolves() {
    let text = "openapi: 3.0.3
info: {title: Items, version: '1'}
paths:
  /items:
    x-list:
      - {name: limit, in: query, schema: {type: integer}}
    get:
      operationId: listItems
      parameters:
        - {name: cursor, in: query, schema: {type: string}}
        - $ref: '#/paths/~1items/x-list/0'
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - $ref: '#/paths/~1items/get/parameters/0'
        - $ref: '#/paths/~1items/get/parameters/1'
";
    let b = backfill("api.yaml", text);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(!b.stderr.contains("points to nothing"), "{}", b.stderr);
    assert!(
        b.patched
            .contains("    get:\n      x-effects: [read]\n      x-speakeasy-mcp:"),
        "{}",
        b.patched
    );
    // An index that is not one (a leading zero, past the end) still points to nothing.
    let bad = text.replace("parameters/1'", "parameters/01'");
    let b = backfill("api.yaml", &bad);
    assert_eq!(b.code, 2);
    assert!(
        b.stderr.contains(
            "api.yaml:17:11: `$ref: #/paths/~1items/get/parameters/01` points to nothing"
        ),
        "{}",
        b.stderr
    );
}

#[test]
fn a_path_item_written_elsewhere_is_read_where_it_is_written() {
    let text = "openapi: 3.1.0
info: {title: Pets, version: '1'}
paths:
  /pets/{id}:
    $ref: '#/components/pathItems/Pet'
  /animals/{id}:
    $ref: '#/components/pathItems/Pet'
  /things:
    get:
      operationId: listThings
  /stuff:
    $ref: '#/paths/~1things'
  /shared:
    $ref: '#/paths/x-shared'
  /pet-again/{id}:
    $ref: '#/components/pathItems/SamePet'
  x-shared:
    get:
      operationId: getShared
components:
  pathItems:
    SamePet:
      $ref: '#/components/pathItems/Pet'
    Pet:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      get:
        operationId: getPet
      delete:
        operationId: deletePet
";
    let b = backfill("api.yaml", text);
    assert_eq!(b.code, 0, "{}", b.stderr);
    // One mapping, one edit: each operation read once, where it is written (the report is
    // in line order).
    assert_eq!(
        ids(&b.csv),
        ["listThings", "getShared", "getPet", "deletePet"],
        "{}",
        b.csv
    );
    let patched = data(&b.patched);
    let pet = &patched["components"]["pathItems"]["Pet"];
    assert_eq!(pet["get"]["x-effects"], serde_json::json!(["read"]));
    assert_eq!(pet["delete"]["x-effects"], serde_json::json!(["delete"]));
    assert_eq!(
        patched["paths"]["/things"]["get"]["x-effects"],
        serde_json::json!(["read"])
    );
    assert!(patched["paths"]["/stuff"].get("x-effects").is_none());
    // Named where it is written, for a reviewer and in the Overlay.
    let explain = run_in(b._dir.path(), &["explain", "api.yaml", "getPet"]);
    assert!(
        explain
            .stdout
            .contains("operation: GET /pets/{id} (JSON pointer /components/pathItems/Pet/get)"),
        "{}",
        explain.stdout
    );
    assert!(
        b.overlay.contains("target: \"$.components.pathItems.Pet.get\"\n    description: \"GET /pets/{id} (getPet): [read], high confidence\"\n"),
        "{}",
        b.overlay
    );
    // A path item in another file cannot be read: named, and the rest is.
    let external = text.replace(
        "$ref: '#/components/pathItems/Pet'\n  /animals",
        "$ref: 'pets.yaml#/Pet'\n  /animals",
    );
    let b = backfill("api.yaml", &external);
    assert_eq!(b.code, 2);
    assert!(
        b.stderr.contains("api.yaml:5:5: path `/pets/{id}` is a `$ref` to a path item in another file (pets.yaml#/Pet): its operations are not read"),
        "{}",
        b.stderr
    );
    assert_eq!(
        ids(&b.csv),
        ["listThings", "getShared", "getPet", "deletePet"],
        "{}",
        b.csv
    );
}

#[test]
fn a_cycle_of_path_item_refs_is_named_and_the_rest_read() {
    let text = "openapi: 3.1.0
info: {title: C, version: '1'}
paths:
  /loop:
    $ref: '#/components/pathItems/A'
  /a:
    get:
      operationId: listA
components:
  pathItems:
    A: {$ref: '#/components/pathItems/B'}
    B: {$ref: '#/components/pathItems/A'}
";
    let b = backfill("api.yaml", text);
    assert_eq!(b.code, 2);
    assert!(
        b.stderr.contains("api.yaml:5:5: path `/loop`: its `$ref`s lead from path item to path item more than 16 times (a cycle?)"),
        "{}",
        b.stderr
    );
    assert_eq!(ids(&b.csv), ["listA"], "{}", b.csv);
}

#[test]
fn a_paths_extension_and_swagger_trace_are_not_operations() {
    let text = "openapi: 3.0.3
info: {title: Ext, version: '1'}
paths:
  x-internal:
    get:
      operationId: internalThing
  /a:
    get:
      operationId: listA
";
    let b = backfill("api.yaml", text);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert_eq!(ids(&b.csv), ["listA"], "{}", b.csv);
    assert!(
        b.patched
            .contains("  x-internal:\n    get:\n      operationId: internalThing\n"),
        "{}",
        b.patched
    );
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "api.yaml", text);
    let run = run_in(dir.path(), &["annotations", "api.yaml", "-o", "tools.json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let tools = std::fs::read_to_string(dir.path().join("tools.json")).unwrap();
    assert!(
        tools.contains("listA") && !tools.contains("internalThing"),
        "{tools}"
    );

    let swagger = "swagger: '2.0'
info: {title: Old, version: '1'}
paths:
  /a:
    get:
      operationId: listA
    trace:
      operationId: traceA
";
    let b = backfill("api.yaml", swagger);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert_eq!(ids(&b.csv), ["listA"], "{}", b.csv);
    // OpenAPI 3 has it.
    let b = backfill(
        "api.yaml",
        &swagger.replace("swagger: '2.0'", "openapi: 3.0.3"),
    );
    assert_eq!(ids(&b.csv), ["listA", "traceA"], "{}", b.csv);
}

#[test]
fn a_hint_that_is_not_a_boolean_is_reported_and_no_hint_is_written_beside_it() {
    let text = "openapi: 3.0.3
info: {title: Hints, version: '1'}
paths:
  /a:
    get:
      operationId: listA
      x-speakeasy-mcp:
        readOnlyHint: \"true\"
";
    let b = backfill("api.yaml", text);
    assert_eq!(b.code, 2, "{}", b.stderr);
    assert!(
        b.stderr
            .contains("api.yaml:8:23: readOnlyHint must be true or false"),
        "{}",
        b.stderr
    );
    assert_eq!(
        b.patched,
        text.replace("    get:\n", "    get:\n      x-effects: [read]\n"),
    );
}

#[test]
fn valid_json_with_escaped_surrogate_pairs_is_read() {
    // As Python's `json.dumps` writes a document by default: every character outside ASCII
    // escaped, one outside the Basic Multilingual Plane as a surrogate pair.
    let text = "{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"Dogs \\ud83d\\udc36\", \"version\": \"1\"}, \"paths\": {\"/dogs\": {\"get\": {\"operationId\": \"listDogs\", \"summary\": \"List the \\ud83d\\udc36 caf\\u00e9\"}}}}";
    let b = backfill("api.json", text);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(
        b.patched
            .contains("{\"get\": {\"x-effects\": [\"read\"], \"x-speakeasy-mcp\": {"),
        "{}",
        b.patched
    );
    let v: Value = serde_json::from_str(&b.patched).unwrap();
    assert_eq!(v["info"]["title"], "Dogs \u{1f436}");
    // With a tab and an exponent too, which the fast JSON reader leaves to the YAML parser:
    // that refuses the pair, and the text is read as the JSON it is.
    let tabbed = "{\n\t\"openapi\": \"3.0.3\",\n\t\"info\": {\"title\": \"\\ud83d\\udc36\", \"version\": \"1\", \"x-rate\": 1e-05},\n\t\"paths\": {\n\t\t\"/dogs\": {\n\t\t\t\"delete\": {\n\t\t\t\t\"operationId\": \"deleteDogs\"\n\t\t\t}\n\t\t}\n\t}\n}\n";
    let b = backfill("api.json", tabbed);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(
        b.patched
            .contains("\t\t\t\"delete\": {\n\t\t\t\t\"x-effects\": [\"delete\"],\n"),
        "{}",
        b.patched
    );
}

const FLOW: &str = "{openapi: 3.0.3, info: {title: Flow, version: '1'},\n  paths: {/a: {get: {operationId: listA}}}}\n";

#[test]
fn a_yaml_document_in_flow_style_is_found_by_content_read_and_checked() {
    let b = backfill("api.yaml", FLOW);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert_eq!(
        b.patched,
        "{openapi: 3.0.3, info: {title: Flow, version: '1'},\n  paths: {/a: {get: {x-effects: [read], x-speakeasy-mcp: {readOnlyHint: true, destructiveHint: false, openWorldHint: true}, operationId: listA}}}}\n"
    );
    // Found in its folder: `check` names what it lacks, and fails.
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "api/flow.yaml", FLOW);
    let run = run_in(dir.path(), &["check", "api"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("api/flow.yaml:2:16: warning [missing-effects]: `listA`"),
        "{}",
        run.stdout
    );
}

#[test]
fn each_document_is_edited_in_the_syntax_it_has_whatever_its_name() {
    // YAML with a comment, written like JSON, in a `.yaml` file: YAML, its keys quoted as
    // the document quotes them.
    let commented = "{\n  # the pets\n  \"openapi\": \"3.0.3\",\n  \"info\": {\"title\": \"P\", \"version\": \"1\"},\n  \"paths\": {\"/pets\": {\"get\": {\"operationId\": \"listPets\"}}}\n}\n";
    let b = backfill("api.yaml", commented);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(
        b.patched.contains("{\"get\": {\"x-effects\": [\"read\"], \"x-speakeasy-mcp\": {\"readOnlyHint\": true, \"destructiveHint\": false, \"openWorldHint\": true}, \"operationId\": \"listPets\"}}"),
        "{}",
        b.patched
    );
    // JSON in a `.yaml` file: JSON, checked as JSON.
    let json = "{\n  \"openapi\": \"3.0.3\",\n  \"info\": {\n    \"title\": \"P\",\n    \"version\": \"1\"\n  },\n  \"paths\": {\n    \"/pets\": {\n      \"get\": {\n        \"operationId\": \"listPets\"\n      }\n    }\n  }\n}\n";
    let b = backfill("api.yml", json);
    assert_eq!(b.code, 0, "{}", b.stderr);
    let v: Value = serde_json::from_str(&b.patched).unwrap();
    assert_eq!(
        v["paths"]["/pets"]["get"]["x-effects"],
        serde_json::json!(["read"])
    );
    // YAML in a `.json` file: YAML.
    let yaml = "openapi: 3.0.3\ninfo: {title: P, version: '1'}\npaths:\n  /pets:\n    get:\n      operationId: listPets # the list\n";
    let b = backfill("api.json", yaml);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(
        b.patched
            .contains("    get:\n      x-effects: [read]\n      x-speakeasy-mcp:\n"),
        "{}",
        b.patched
    );
}

#[test]
fn a_jsonc_document_named_directly_is_refused_with_the_comments_place() {
    for (name, text, at) in [
        (
            "api.json",
            "// generated\n{\"openapi\": \"3.0.3\", \"paths\": {\"/a\": {\"get\": {}}}}\n",
            "api.json:1:1:",
        ),
        (
            "api.json",
            "{\n  \"openapi\": \"3.0.3\",\n  \"paths\": {\"/a\": {\"get\": {}}} /* the paths */\n}\n",
            "api.json:3:32:",
        ),
        (
            "api.yaml",
            "{\n  \"openapi\": \"3.0.3\", // the version\n  \"paths\": {\"/a\": {\"get\": {}}}\n}\n",
            "api.yaml:2:23:",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_file(dir.path(), name, text);
        let run = run_in(
            dir.path(),
            &["backfill", name, "--patch", "p.patch", "--report", "c.csv"],
        );
        assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
        assert!(
            run.stderr.contains(&format!("error: {at} a `/")),
            "{at}: {}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("(this is JSONC, which OpenAPI validators and generators do not read); remove the comments"),
            "{}",
            run.stderr
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("p.patch")).unwrap(),
            ""
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            text
        );
    }
}

#[test]
fn a_generator_map_shared_through_a_merge_or_an_alias_gets_no_hints_and_the_operation_its_effects()
{
    let text = "openapi: 3.0.3
info: {title: M, version: '1'}
x-defaults:
  op: &op
    x-speakeasy-mcp:
      name: shared
  mcp: &mcp
    name: shared
paths:
  /a:
    get:
      <<: *op
      operationId: listA
  /b:
    delete:
      operationId: deleteB
      x-speakeasy-mcp: *mcp
  /c:
    get:
      operationId: listC
      x-speakeasy-mcp:
        <<: *mcp
        scopes: [c]
";
    let b = backfill("api.yaml", text);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(!b.stderr.contains("failed the check"), "{}", b.stderr);
    assert!(
        b.stderr.contains("warning: api.yaml:11:5: `listA`: `x-speakeasy-mcp` comes through a `<<` merge of a mapping other places may share: speakeasy hints not written; write them into this operation by hand"),
        "{}",
        b.stderr
    );
    assert!(
        b.stderr.contains("warning: api.yaml:17:7: `deleteB`: `x-speakeasy-mcp` is an alias (`*name`) of a mapping other places may share: speakeasy hints not written"),
        "{}",
        b.stderr
    );
    let patched = data(&b.patched);
    for (path, method, effects) in [
        ("/a", "get", "read"),
        ("/b", "delete", "delete"),
        ("/c", "get", "read"),
    ] {
        assert_eq!(
            patched["paths"][path][method]["x-effects"],
            serde_json::json!([effects]),
            "{}",
            b.patched
        );
    }
    // The shared maps are as they were; the operation's own map, merging one, takes them.
    assert_eq!(patched["x-defaults"], data(text)["x-defaults"]);
    assert!(
        b.patched.contains("      x-speakeasy-mcp:\n        readOnlyHint: true\n        destructiveHint: false\n        openWorldHint: true\n        <<: *mcp\n"),
        "{}",
        b.patched
    );
}

#[test]
fn a_document_named_through_a_symlink_is_the_file_the_link_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let text = "openapi: 3.0.3\ninfo: {title: S, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: listA\n";
    write_file(root, "spec/openapi.yaml", text);
    std::os::unix::fs::symlink("spec/openapi.yaml", root.join("api.yaml")).unwrap();
    git_init(root);
    let args = [
        "backfill",
        "api.yaml",
        "--patch",
        "out/p.patch",
        "--report",
        "out/c.csv",
    ];
    let run = run_in(root, &args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let patch = std::fs::read_to_string(root.join("out/p.patch")).unwrap();
    assert!(
        patch.starts_with("diff --git a/spec/openapi.yaml b/spec/openapi.yaml\n"),
        "{patch}"
    );
    git_apply(root, &root.join("out/p.patch"), true).unwrap();
    let mut write = args.to_vec();
    write.push("--write");
    let run = run_in(root, &write);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("another program"), "{}", run.stderr);
    assert!(
        std::fs::symlink_metadata(root.join("api.yaml"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let written = std::fs::read_to_string(root.join("spec/openapi.yaml")).unwrap();
    assert!(
        written.contains("    get:\n      x-effects: [read]\n"),
        "{written}"
    );
}

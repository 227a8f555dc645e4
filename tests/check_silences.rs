//! `check` and what the catalog already says: hand-written hints
//! (`redundant-hint`, `read-only-override`), a reviewer's `# catalog-effects: ignore[code]`
//! comments on an action or a file, the unused ones, the silenced count, and how a
//! baseline and `--since` treat them.

mod common;

use std::path::Path;

use common::{git_init, git_ok, run_in as run, write_file};

const PARTIAL: &str = "acme/acme.users.s1.partial.yaml";

fn step(method: &str, url: &str) -> String {
    format!(
        "  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters: {{url: {url}, method: {method}}}\n"
    )
}

/// A catalog `c` of one connector `acme` whose partial is `partial`.
fn catalog(root: &Path, partial: &str) {
    write_file(
        &root.join("c"),
        "acme/acme.connector.s1.yaml",
        &common::main_file("acme"),
    );
    write_file(&root.join("c"), PARTIAL, partial);
}

/// A delete declared `[read]`: a conflict a reviewer may accept.
fn conflict(comment: &str) -> String {
    format!(
        "- actionId: delete_user{comment}\n  effects: [read]\n{}",
        step("delete", "/users/:id")
    )
}

fn list_users() -> String {
    format!(
        "- actionId: list_users\n  effects: [read]\n{}",
        step("get", "/users")
    )
}

#[test]
fn an_ignore_comment_on_the_action_silences_its_finding_and_is_counted() {
    let dir = tempfile::tempdir().unwrap();
    catalog(dir.path(), &conflict(""));
    let r = run(dir.path(), &["check", "c"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("[conflicting-effects]"), "{}", r.stdout);

    catalog(
        dir.path(),
        &conflict(" # catalog-effects: ignore[conflicting-effects] reviewed: soft delete"),
    );
    let r = run(dir.path(), &["check", "c"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!r.stdout.contains("[conflicting-effects]"), "{}", r.stdout);
    assert!(
        r.stdout
            .ends_with("check: 0 errors, 0 warnings, 1 silenced; 0 failing (--fail-on warning)\n"),
        "{}",
        r.stdout
    );
    let json = run(dir.path(), &["check", "c", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["silenced"], 1);
    assert_eq!(
        v["findings"].as_array().unwrap().len(),
        0,
        "{}",
        json.stdout
    );
    // Another code on the same action is not silenced by it.
    catalog(
        dir.path(),
        &format!(
            "{}{}",
            conflict(" # catalog-effects: ignore[conflicting-effects]"),
            conflict(" # catalog-effects: ignore[conflicting-effects]")
        ),
    );
    let r = run(dir.path(), &["check", "c"]);
    assert!(r.stdout.contains("[duplicate-action-id]"), "{}", r.stdout);
    assert!(r.stdout.contains(", 2 silenced;"), "{}", r.stdout);
}

#[test]
fn an_ignore_comment_atop_the_file_silences_every_action_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let two = format!(
        "# Legacy actions, reviewed in March.\n# catalog-effects: ignore[missing-effects]\n\n- actionId: list_teams\n{}- actionId: get_team\n{}",
        step("get", "/teams"),
        step("get", "/teams/:id")
    );
    catalog(dir.path(), &two);
    let r = run(dir.path(), &["check", "c"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains(", 2 silenced;"), "{}", r.stdout);
    // Below the first YAML line it is an ordinary comment.
    let late = two.replacen("# catalog-effects: ignore[missing-effects]\n\n", "", 1)
        + "# catalog-effects: ignore[missing-effects]\n";
    catalog(dir.path(), &late);
    let r = run(dir.path(), &["check", "c"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(
        r.stdout.matches("[missing-effects]").count(),
        2,
        "{}",
        r.stdout
    );
}

#[test]
fn unused_and_unknown_silences_are_reported_and_lint_codes_left_to_lint() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "# catalog-effects: ignore[invalid-effects]\n- actionId: list_users # catalog-effects: ignore[conflicting-effects, conflicting-efects, vague-verb]\n  effects: [read]\n  description: Lists users.\n{}",
        step("get", "/users")
    );
    catalog(dir.path(), &text);
    let r = run(dir.path(), &["check", "c"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let unused: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("[unused-silence]"))
        .collect();
    assert_eq!(
        unused,
        [
            "c/acme/acme.users.s1.partial.yaml:1: warning [unused-silence]: the silence of `invalid-effects` matches no finding (for the whole file)",
            "c/acme/acme.users.s1.partial.yaml:2:3: warning [unused-silence]: `list_users`: the silence of `conflicting-effects` matches no finding",
            "c/acme/acme.users.s1.partial.yaml:2:3: warning [unused-silence]: `list_users`: unknown code `conflicting-efects` in a silence (did you mean `conflicting-effects`?)",
        ],
        "{}",
        r.stdout
    );
    // `lint` reads the same comment for its own codes, and leaves `check`'s alone.
    let l = run(dir.path(), &["lint", "c"]);
    assert!(
        !l.stdout.contains("`conflicting-effects`"),
        "lint called a check code unknown:\n{}",
        l.stdout
    );
    assert!(l.stdout.contains("`conflicting-efects`"), "{}", l.stdout);
}

/// A silence with no `]`, or one that names no code, silenced nothing and said nothing:
/// the reviewer's intent was dropped without a word.
#[test]
fn malformed_silences_are_reported_as_unused() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "# catalog-effects: ignore[missing-effects\n- actionId: list_users # catalog-effects: ignore[]\n  effects: [read]\n{}{}",
        step("get", "/users"),
        conflict(" # catalog-effects: ignore[conflicting-effects reviewed"),
    );
    catalog(dir.path(), &text);
    let r = run(dir.path(), &["check", "c"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let unused: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("[unused-silence]"))
        .collect();
    let fix = "it silences nothing; write `# catalog-effects: ignore[code, ...]`";
    assert_eq!(
        unused,
        [
            format!(
                "c/acme/acme.users.s1.partial.yaml:1: warning [unused-silence]: `catalog-effects: ignore[missing-effects` has no closing `]`: {fix} (for the whole file)"
            ),
            format!(
                "c/acme/acme.users.s1.partial.yaml:2:3: warning [unused-silence]: `list_users`: `catalog-effects: ignore[]` names no code: {fix}"
            ),
            format!(
                "c/acme/acme.users.s1.partial.yaml:9:3: warning [unused-silence]: `delete_user`: `catalog-effects: ignore[conflicting-effects reviewed` has no closing `]`: {fix}"
            ),
        ],
        "{}",
        r.stdout
    );
    // The conflict it meant to silence is still reported.
    assert!(r.stdout.contains("[conflicting-effects]"), "{}", r.stdout);
}

#[test]
fn redundant_hints_are_notes_and_a_read_only_override_on_a_change_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}  annotations: {{readOnlyHint: true, openWorldHint: true}}\n- actionId: delete_user\n  effects: [delete]\n  annotations: {{readOnlyHint: true, destructiveHint: false}}\n{}",
        list_users(),
        step("delete", "/users/:id")
    );
    catalog(dir.path(), &text);
    let r = run(dir.path(), &["check", "c", "--fail-on", "error"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "c/acme/acme.users.s1.partial.yaml:1:3: note [redundant-hint]: `list_users`: readOnlyHint: true, openWorldHint: true restate what its effects [read] (declared) derive; `backfill --migrate-hints` removes them"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "error [read-only-override]: `delete_user` declares readOnlyHint: true but its effects [delete] (declared) change something: clients would run it unattended"
        ),
        "{}",
        r.stdout
    );
    // destructiveHint: false on a delete is an override, not a finding.
    assert!(
        !r.stdout.contains("`delete_user`: destructiveHint"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("check: 1 error, 0 warnings, 1 note;"),
        "{}",
        r.stdout
    );
    let explained = run(dir.path(), &["explain-code", "read-only-override"]);
    assert!(
        explained.stdout.contains("runs a change unattended")
            || explained.stdout.contains("run a change unattended"),
        "{}",
        explained.stdout
    );
    assert_eq!(run(dir.path(), &["explain-code", "redundant-hint"]).code, 0);

    // Once the migration is applied, no hint is redundant and the override stays.
    git_init(dir.path());
    let b = run(
        dir.path(),
        &[
            "backfill",
            "c",
            "--migrate-hints",
            "--patch",
            "out/p",
            "--report",
            "out/r.csv",
        ],
    );
    assert_eq!(b.code, 0, "{}", b.stderr);
    git_ok(dir.path(), &["apply", "out/p"]);
    let r = run(dir.path(), &["check", "c"]);
    assert!(!r.stdout.contains("[redundant-hint]"), "{}", r.stdout);
    assert!(r.stdout.contains("[read-only-override]"), "{}", r.stdout);
}

/// The baseline records what the report records: a read-only override is read back from
/// the row's hint and effects, so accepting it works as for any finding; a silenced finding
/// the baseline holds is neither new nor gone.
#[test]
fn the_baseline_and_silenced_or_migrated_findings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let stale = "  annotations: {readOnlyHint: true}\n";
    let text = format!(
        "{}{stale}- actionId: delete_user\n  effects: [delete]\n{stale}{}- actionId: create_user\n  effects: [read]\n{}",
        list_users(),
        step("delete", "/users/:id"),
        step("post", "/users")
    );
    catalog(root, &text);
    let w = run(root, &["check", "c", "--write-baseline", "base.csv"]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    let base = ["check", "c", "--baseline", "base.csv", "--fail-on", "new"];
    let r = run(root, &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("1 error, 1 warning, 1 note; 0 new, 2 in the baseline"),
        "{}",
        r.stdout
    );

    // Silencing the conflict: not listed, not new, and not `absent` in SARIF.
    let silenced = text.replacen(
        "- actionId: create_user",
        "- actionId: create_user # catalog-effects: ignore[conflicting-effects]",
        1,
    );
    catalog(root, &silenced);
    let r = run(root, &base);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout.contains("1 silenced; 0 new, 1 in the baseline"),
        "{}",
        r.stdout
    );
    let sarif = run(root, &[&base[..], &["--format", "sarif"]].concat());
    assert!(!sarif.stdout.contains("\"absent\""), "{}", sarif.stdout);

    // The stale override removed: its finding is gone from the run, absent in SARIF.
    catalog(root, &silenced.replacen(stale, "", 2));
    let sarif = run(root, &[&base[..], &["--format", "sarif"]].concat());
    assert_eq!(
        sarif.stdout.matches("\"absent\"").count(),
        1,
        "{}",
        sarif.stdout
    );
    assert!(
        sarif.stdout.contains("read-only-override"),
        "{}",
        sarif.stdout
    );
    // Without the baseline's row for it, the override would have been new.
    catalog(root, &text);
    std::fs::write(
        root.join("old.csv"),
        std::fs::read_to_string(root.join("base.csv"))
            .unwrap()
            .replace(",true,true,,true\n", ",false,true,,true\n"),
    )
    .unwrap();
    let r = run(
        root,
        &["check", "c", "--baseline", "old.csv", "--fail-on", "new"],
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("[read-only-override] [new]"),
        "{}",
        r.stdout
    );
}

/// A pull request that adds a silence to a changed file: `--since` reads it there.
#[test]
fn since_reads_the_silences_of_the_files_it_checks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    catalog(root, &list_users());
    git_init(root);
    let w = run(root, &["check", "c", "--write-baseline", "base.csv"]);
    assert_eq!(w.code, 0, "{}", w.stdout);
    git_ok(root, &["add", "-A"]);
    git_ok(root, &["commit", "-q", "-m", "baseline"]);
    let pr = [
        "check",
        "c",
        "--since",
        "HEAD",
        "--baseline",
        "base.csv",
        "--fail-on",
        "new",
    ];
    common::append(&root.join("c").join(PARTIAL), &conflict(""));
    let r = run(root, &pr);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("[conflicting-effects] [new]"),
        "{}",
        r.stdout
    );
    catalog(
        root,
        &(list_users() + &conflict(" # catalog-effects: ignore[conflicting-effects]")),
    );
    let r = run(root, &pr);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains("1 silenced"), "{}", r.stdout);
}

/// `lint` reads the file's leading silences for its own codes, as `check` does for its.
#[test]
fn lint_reads_the_files_silences_too() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "# catalog-effects: ignore[description-repeats-name, vague-verb, missing-effects]\n- actionId: list_users\n  description: Lists users.\n{}",
        step("get", "/users")
    );
    catalog(dir.path(), &text);
    let l = run(dir.path(), &["lint", "c"]);
    assert!(
        !l.stdout.contains("[description-repeats-name]"),
        "{}",
        l.stdout
    );
    assert!(
        l.stdout.contains(
            "c/acme/acme.users.s1.partial.yaml:1: warning [unused-silence]: the silence of `vague-verb` matches no finding (for the whole file)"
        ),
        "{}",
        l.stdout
    );
    assert!(!l.stdout.contains("`missing-effects`"), "{}", l.stdout);
    let without = run(dir.path(), &["lint", "c", "--ignore", "unused-silence"]);
    assert!(
        !without.stdout.contains("[unused-silence]"),
        "{}",
        without.stdout
    );
    // And `check` silences its own code there, leaving lint's alone.
    let c = run(dir.path(), &["check", "c"]);
    assert_eq!(c.code, 0, "{}", c.stdout);
    assert!(c.stdout.contains(", 1 silenced;"), "{}", c.stdout);
}

#[test]
fn a_silence_after_a_flow_operation_on_its_method_line_holds() {
    let dir = tempfile::tempdir().unwrap();
    let doc = "openapi: 3.0.0\ninfo: {title: Pets, version: \"1\"}\npaths:\n  /pets/{id}:\n    delete: {operationId: remove_pet, x-effects: [read], responses: {\"204\": {description: \"ok # no comment\"}}}  # catalog-effects: ignore[conflicting-effects] reviewed\n    get: {operationId: get_pet, x-effects: [delete], responses: {\"200\": {description: ok}}}\n";
    std::fs::write(dir.path().join("api.yaml"), doc).unwrap();
    let run = common::run_in(dir.path(), &["check", "api.yaml"]);
    assert!(!run.stdout.contains("remove_pet"), "{}", run.stdout);
    assert!(
        run.stdout.contains("`get_pet` declares [delete]"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("1 silenced"), "{}", run.stdout);
}

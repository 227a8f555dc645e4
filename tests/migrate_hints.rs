//! `backfill --migrate-hints`: every form a redundant hint is written in
//! is either removed (the patch passes `git apply --check`, the file reads as expected
//! byte for byte, and a rerun proposes nothing) or refused with why (the action keeps its
//! hints and still gets its effects).

mod common;

use std::path::Path;

use common::{git_init, run_in, write_file};

/// A catalog `acme` whose partial is `partial`, in a git repository.
fn catalog(partial: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "c/acme/acme.connector.s1.yaml",
        &common::main_file("acme"),
    );
    write_file(dir.path(), "c/acme/acme.users.s1.partial.yaml", partial);
    git_init(dir.path());
    dir
}

const PARTIAL: &str = "c/acme/acme.users.s1.partial.yaml";

fn step(method: &str, url: &str) -> String {
    format!(
        "  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters: {{url: {url}, method: {method}}}\n"
    )
}

fn backfill(root: &Path) -> common::Run {
    run_in(
        root,
        &[
            "backfill",
            "c",
            "--migrate-hints",
            "--patch",
            "out/effects.patch",
            "--report",
            "out/coverage.csv",
        ],
    )
}

fn git(root: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .unwrap()
}

/// Runs the migration on `partial`, checks the patch applies and a rerun proposes nothing,
/// and returns the edited partial and the run's stderr.
fn migrate(partial: &str) -> (String, String) {
    let dir = catalog(partial);
    let root = dir.path();
    let r = backfill(root);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let check = git(root, &["apply", "--check", "out/effects.patch"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(git(root, &["apply", "out/effects.patch"]).status.success());
    let edited = std::fs::read_to_string(root.join(PARTIAL)).unwrap();
    let again = backfill(root);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let patch = std::fs::read_to_string(root.join("out/effects.patch")).unwrap();
    assert_eq!(patch, "", "a rerun proposes nothing more");
    assert!(
        again.stdout.contains("hints removed: 0 from 0 actions"),
        "{}",
        again.stdout
    );
    (edited, r.stderr)
}

#[test]
fn block_first_key_with_its_trailing_comment_goes_and_comment_lines_stay() {
    let get = step("get", "/users");
    let text = format!(
        "- actionId: list_users\n  label: List Users\n  annotations:\n    readOnlyHint: true   # by hand\n    # reviewed in March\n    idempotentHint: true\n{get}"
    );
    let (edited, _) = migrate(&text);
    assert_eq!(
        edited,
        format!(
            "- actionId: list_users\n  effects:\n    - read\n  label: List Users\n  annotations:\n    # reviewed in March\n    idempotentHint: true\n{get}"
        )
    );
}

#[test]
fn block_last_key_goes_and_an_override_before_it_stays() {
    let del = step("delete", "/users/:id");
    let text = format!(
        "- actionId: delete_user\n  label: Delete User\n{del}  annotations:\n    destructiveHint: false\n    openWorldHint: true\n"
    );
    let (edited, _) = migrate(&text);
    assert_eq!(
        edited,
        format!(
            "- actionId: delete_user\n  effects:\n    - delete\n  label: Delete User\n{del}  annotations:\n    destructiveHint: false\n"
        )
    );
}

#[test]
fn block_mapping_left_empty_goes_with_its_key() {
    let get = step("get", "/users");
    let text = format!(
        "- actionId: list_users\n  label: List Users\n  annotations:  # old hints\n    title: \"List Users\"\n    # all derived now\n    readOnlyHint: true\n    destructiveHint: false\n    openWorldHint: true\n{get}"
    );
    let (edited, _) = migrate(&text);
    assert_eq!(
        edited,
        format!(
            "- actionId: list_users\n  effects:\n    - read\n  label: List Users\n    # all derived now\n{get}"
        )
    );
}

#[test]
fn flow_keys_go_with_their_separators_first_middle_and_last() {
    let get = step("get", "/users");
    let cases = [
        // A trailing run after the kept key.
        (
            "{idempotentHint: true, readOnlyHint: true, destructiveHint: false}",
            "{idempotentHint: true}",
        ),
        // The first, a kept key after it.
        (
            "{openWorldHint: true, idempotentHint: true}",
            "{idempotentHint: true}",
        ),
        // The middle one, over several lines.
        (
            "{\n    idempotentHint: true,\n    readOnlyHint: true,\n    title: Users\n  }",
            "{\n    idempotentHint: true,\n    title: Users\n  }",
        ),
    ];
    for (before, after) in cases {
        let text =
            format!("- actionId: list_users\n  label: List Users\n  annotations: {before}\n{get}");
        let (edited, _) = migrate(&text);
        assert_eq!(
            edited,
            format!(
                "- actionId: list_users\n  effects:\n    - read\n  label: List Users\n  annotations: {after}\n{get}"
            ),
            "{before}"
        );
    }
}

#[test]
fn flow_mapping_left_empty_goes_with_its_line() {
    let get = step("get", "/users");
    let text = format!(
        "- actionId: list_users\n  label: List Users\n  annotations: {{readOnlyHint: true, openWorldHint: true}}  # from the old server\n{get}"
    );
    let (edited, _) = migrate(&text);
    assert_eq!(
        edited,
        format!("- actionId: list_users\n  effects:\n    - read\n  label: List Users\n{get}")
    );
}

#[test]
fn a_flow_action_loses_the_entry_in_the_middle_or_at_its_end() {
    let steps = "steps: [{stepId: s, stepFunction: {functionName: request, parameters: {url: /teams, method: get}}}]";
    let (edited, _) = migrate(&format!(
        "- {{actionId: list_teams, annotations: {{readOnlyHint: true}}, label: List Teams, {steps}}}\n"
    ));
    assert_eq!(
        edited,
        format!("- {{actionId: list_teams, effects: [read], label: List Teams, {steps}}}\n")
    );
    let (edited, _) = migrate(&format!(
        "- {{actionId: list_teams, label: List Teams, {steps}, annotations: {{openWorldHint: true}}}}\n"
    ));
    assert_eq!(
        edited,
        format!("- {{actionId: list_teams, effects: [read], label: List Teams, {steps}}}\n")
    );
}

#[test]
fn crlf_lines_go_whole_and_the_rest_stays_crlf() {
    let get = step("get", "/users").replace('\n', "\r\n");
    let text = format!(
        "- actionId: list_users\r\n  label: List Users\r\n  annotations:\r\n    readOnlyHint: true\r\n    idempotentHint: true\r\n{get}"
    );
    let (edited, _) = migrate(&text);
    assert_eq!(
        edited,
        format!(
            "- actionId: list_users\r\n  effects:\r\n    - read\r\n  label: List Users\r\n  annotations:\r\n    idempotentHint: true\r\n{get}"
        )
    );
}

#[test]
fn a_file_without_a_final_newline_keeps_that_state() {
    let get = step("get", "/users");
    let text = format!(
        "- actionId: list_users\n  label: List Users\n{get}  annotations:\n    idempotentHint: true\n    readOnlyHint: true"
    );
    let (edited, _) = migrate(&text);
    assert_eq!(
        edited,
        format!(
            "- actionId: list_users\n  effects:\n    - read\n  label: List Users\n{get}  annotations:\n    idempotentHint: true"
        )
    );
}

#[test]
fn declared_effects_make_their_hints_redundant_too() {
    let get = step("get", "/users");
    let text = format!(
        "- actionId: list_users\n  effects: [read]\n  annotations: {{readOnlyHint: true}}\n{get}"
    );
    let (edited, _) = migrate(&text);
    assert_eq!(
        edited,
        format!("- actionId: list_users\n  effects: [read]\n{get}")
    );
}

#[test]
fn an_anchored_mapping_loses_keys_but_never_goes_whole() {
    let get = step("get", "/users");
    let text = format!(
        "- actionId: list_users\n  annotations: &hints\n    readOnlyHint: true\n    idempotentHint: true\n{get}- actionId: get_user\n  annotations: &more {{idempotentHint: true}}\n{}",
        step("get", "/users/:id")
    );
    let (edited, _) = migrate(&text);
    assert_eq!(
        edited,
        format!(
            "- actionId: list_users\n  effects:\n    - read\n  annotations: &hints\n    idempotentHint: true\n{get}- actionId: get_user\n  effects:\n    - read\n  annotations: &more {{idempotentHint: true}}\n{}",
            step("get", "/users/:id")
        )
    );
}

/// The refusals: what cannot be removed in place is named, the hints stay as written, and
/// the action still gets its effects.
#[test]
fn what_cannot_be_removed_in_place_is_refused_with_why() {
    let get = step("get", "/users");
    let cases = [
        (
            // Another action reads the same mapping through an alias.
            format!(
                "- actionId: list_users\n  annotations: &hints {{readOnlyHint: true}}\n{get}- actionId: get_user\n  annotations: *hints\n{}",
                step("get", "/users/:id")
            ),
            "its annotations are anchored (`&name`) and used elsewhere through an alias",
        ),
        (
            // The hints come through a merge another action may share.
            format!(
                "- &base\n  actionId: list_users\n  annotations: {{readOnlyHint: true}}\n{get}- <<: *base\n  actionId: list_teams\n  effects: [read]\n"
            ),
            "the action is anchored (`&name`) and used elsewhere through an alias",
        ),
        (
            format!(
                "- actionId: list_users\n  annotations: {{readOnlyHint: true, # old\n    openWorldHint: true}}\n{get}"
            ),
            "a comment sits among the hints to remove",
        ),
        (
            format!(
                "- actionId: list_users\n  label: List Users\n  annotations:\n    title: >-\n      List Users\n    idempotentHint: true\n{get}"
            ),
            "a hint to remove is written over several lines",
        ),
        (
            format!("- annotations: {{readOnlyHint: true}}\n  actionId: list_users\n{get}"),
            "a hint to remove shares its line with another key",
        ),
        (
            // Anchors are numbered in document order: one gone renumbers the rest.
            format!(
                "- actionId: list_users\n  annotations: &hints\n    readOnlyHint: true\n{get}- actionId: get_user\n  label: &l Get User\n{}",
                step("get", "/users/:id")
            ),
            "its annotations mapping carries an anchor (`&name`), which would go with it",
        ),
    ];
    for (text, why) in cases {
        let dir = catalog(&text);
        let root = dir.path();
        let r = backfill(root);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stderr
                .contains("`list_users`: redundant hints not removed: ")
                && r.stderr.contains(why)
                && r.stderr.contains("c/acme/acme.users.s1.partial.yaml:"),
            "{why}:\n{}",
            r.stderr
        );
        let patch = std::fs::read_to_string(root.join("out/effects.patch")).unwrap();
        assert!(
            patch
                .lines()
                .all(|l| !l.starts_with('-') || l.starts_with("---")),
            "nothing removed:\n{patch}"
        );
        assert!(
            patch.contains("+  effects:"),
            "still gets its effects:\n{patch}"
        );
        assert!(
            git(root, &["apply", "--check", "out/effects.patch"])
                .status
                .success()
        );
    }
}

/// The review guide lists each removed key and each kept override with why, and the
/// summary counts what was removed.
#[test]
fn the_guide_lists_removed_keys_and_kept_overrides() {
    let text = format!(
        "- actionId: delete_user\n  label: Delete User\n  annotations: {{readOnlyHint: true, destructiveHint: true, idempotentHint: true}}\n{}",
        step("delete", "/users/:id")
    );
    let dir = catalog(&text);
    let r = run_in(
        dir.path(),
        &[
            "backfill",
            "c",
            "--migrate-hints",
            "--patch",
            "out/p",
            "--report",
            "out/r.csv",
            "--review",
            "out/review.md",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("hints removed: 1 from 1 action (--migrate-hints)"),
        "{}",
        r.stdout
    );
    let guide = std::fs::read_to_string(dir.path().join("out/review.md")).unwrap();
    assert!(guide.contains("### Hints migrated (1 removed)"), "{guide}");
    assert!(
        guide.contains(
            "- `acme_delete_user` (`c/acme/acme.users.s1.partial.yaml:1`): removed `destructiveHint: true` (what [delete] (proposed, not yet declared) derives); kept `readOnlyHint: true` (makes [delete] (proposed, not yet declared) look read-only, so clients would run it unattended; `check` reports it as an error, read-only-override), `idempotentHint: true` (never derived from effects)"
        ),
        "{guide}"
    );
}

/// Without the flag nothing is removed: the patch only inserts effects.
#[test]
fn without_the_flag_hints_are_left_as_they_are() {
    let text = format!(
        "- actionId: list_users\n  annotations: {{readOnlyHint: true}}\n{}",
        step("get", "/users")
    );
    let dir = catalog(&text);
    let r = run_in(
        dir.path(),
        &["backfill", "c", "--patch", "out/p", "--report", "out/r.csv"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let patch = std::fs::read_to_string(dir.path().join("out/p")).unwrap();
    assert!(
        patch.contains("+  effects:") && !patch.contains("-  annotations"),
        "{patch}"
    );
    assert!(!r.stdout.contains("hints removed"), "{}", r.stdout);
}

/// The demo catalog: its redundant hints go, its overrides stay, the patch applies and a
/// rerun proposes nothing.
#[test]
fn the_demo_catalog_migrates_and_converges() {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("demo"), &dir.path().join("c"));
    git_init(dir.path());
    let root = dir.path();
    let r = backfill(root);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("hints removed: 5 from 3 actions (--migrate-hints)"),
        "{}",
        r.stdout
    );
    let patch = std::fs::read_to_string(root.join("out/effects.patch")).unwrap();
    assert!(patch.contains("-  annotations: {readOnlyHint: true, openWorldHint: true}\n+  annotations: {readOnlyHint: true}\n"), "{patch}");
    assert!(
        patch.contains("-    readOnlyHint: true   # safe to auto-run\n"),
        "{patch}"
    );
    assert!(
        !patch.contains("-  annotations: {destructiveHint: false}"),
        "{patch}"
    );
    assert!(git(root, &["apply", "out/effects.patch"]).status.success());
    let again = backfill(root);
    assert_eq!(
        std::fs::read_to_string(root.join("out/effects.patch")).unwrap(),
        "",
        "{}",
        again.stderr
    );
}

/// An action that inherits its hints through `<<` shares them: never edited through it.
#[test]
fn hints_that_come_through_a_merge_are_refused_for_the_heir() {
    let text = format!(
        "- &base\n  actionId: list_users\n  annotations: {{readOnlyHint: true}}\n{}- <<: *base\n  actionId: list_teams\n  effects: [read]\n",
        step("get", "/users")
    );
    let dir = catalog(&text);
    let r = backfill(dir.path());
    assert!(
        r.stderr.contains(
            "`list_teams`: redundant hints not removed: its annotations come through a `<<` merge, which other actions may share; remove them by hand"
        ),
        "{}",
        r.stderr
    );
}

/// `git apply` of the patch, `--write` and `--branch` make the same files, CRLF included.
#[test]
fn every_route_removes_the_same_hints() {
    let text = format!(
        "- actionId: list_users\r\n  label: List Users\r\n  annotations:\r\n    readOnlyHint: true\r\n    idempotentHint: true\r\n{}- actionId: delete_user\n  annotations: {{openWorldHint: true}}\n{}",
        step("get", "/users").replace('\n', "\r\n"),
        step("delete", "/users/:id")
    );
    let r = common::Routes::run(&[("c/c.s1.yaml", &text)], &["--migrate-hints"]);
    let files = r.agree();
    let (_, bytes) = files.iter().find(|(rel, _)| rel == "c/c.s1.yaml").unwrap();
    let edited = String::from_utf8(bytes.clone()).unwrap();
    assert!(
        !edited.contains("readOnlyHint") && !edited.contains("openWorldHint"),
        "{edited}"
    );
    assert!(
        edited.contains("  annotations:\r\n    idempotentHint: true\r\n"),
        "{edited}"
    );
    assert!(
        edited.contains("- actionId: delete_user\n  effects:\n    - delete\n  steps:"),
        "{edited}"
    );
}

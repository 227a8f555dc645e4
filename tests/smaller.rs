//! Smaller failures, each of which passed silently before.

mod common;

use common::{ACME_MAIN, git_ok, http_action, run_in, write_file};

fn catalog(root: &std::path::Path) {
    write_file(root, "catalog/acme/acme.connector.s1.yaml", ACME_MAIN);
    write_file(
        root,
        "catalog/acme/acme.users.s1.partial.yaml",
        &http_action("list_users", "get", "/users", None),
    );
}

#[test]
fn an_id_given_twice_in_the_heuristics_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    let rule = |why: &str| {
        format!(
            "rules:\n- id: path-archive\n  effect: write\n  weight: medium\n  why: {why}\n  when: {{path_last: [archive]}}\n  examples:\n    match: [{{id: x, method: post, path: /a/archive}}]\n    no_match: [{{id: x, method: post, path: /a}}]\n"
        )
    };
    write_file(tmp.path(), "h/a.yaml", &rule("The first."));
    write_file(tmp.path(), "h/b.yaml", &rule("The second."));
    let r = run_in(tmp.path(), &["check", "catalog", "--heuristics", "h"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.starts_with(
            "error: h/b.yaml:2:7: `path-archive` is given twice in `rules` (first at h/a.yaml:2)"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn a_history_with_an_unreadable_row_is_not_appended_to() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    let r = run_in(tmp.path(), &["check", "catalog", "--history", "h.csv"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // A run killed while it wrote its row.
    common::append(&tmp.path().join("h.csv"), "2026-01-02,abc123,1");
    let before = std::fs::read_to_string(tmp.path().join("h.csv")).unwrap();
    let r = run_in(
        tmp.path(),
        &[
            "check",
            "catalog",
            "--history",
            "h.csv",
            "--html",
            "page.html",
        ],
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("error: h.csv:3:1: unreadable row") && r.stderr.contains("not appended"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("h.csv")).unwrap(),
        before
    );
}

#[test]
fn a_sparse_checkout_is_not_taken_for_uncommitted_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_file(
        root,
        "connectors/a/a.s1.yaml",
        &http_action("list_users", "get", "/users", None),
    );
    write_file(
        root,
        "connectors/b/b.s1.yaml",
        &http_action("list_groups", "get", "/groups", None),
    );
    common::git_init(root);
    git_ok(root, &["sparse-checkout", "set", "connectors/a"]);
    assert!(!root.join("connectors/b").exists());
    let r = run_in(root, &["backfill", "connectors", "--branch", "effects"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let changed = git_ok(root, &["diff", "--name-only", "HEAD", "effects"]);
    assert_eq!(changed, "connectors/a/a.s1.yaml\n");
    let r = run_in(root, &["backfill", "connectors", "--write"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn a_closed_stdout_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path());
    let bin = common::bin();
    let o = std::process::Command::new("sh")
        .args(["-c", &format!("exec '{bin}' check catalog >&-")])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("error: cannot write to standard output: it is closed"),
        "{stderr}"
    );
    // Sent to /dev/null on purpose, it is no error.
    let o = std::process::Command::new("sh")
        .args(["-c", &format!("exec '{bin}' check catalog >/dev/null")])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A repository given by `GIT_DIR` and `GIT_WORK_TREE` is the catalog's repository: its
/// patch paths apply, and `--write` keeps its guard.
#[test]
fn a_repository_given_by_git_dir_is_honoured() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    write_file(
        &work,
        "connectors/a/a.s1.yaml",
        &http_action("list_users", "get", "/users", None),
    );
    write_file(
        &work,
        "connectors/b/b.s1.yaml",
        &http_action("list_groups", "get", "/groups", None),
    );
    common::git_init(&work);
    let store = tmp.path().join("store.git");
    std::fs::rename(work.join(".git"), &store).unwrap();
    common::append(&work.join("connectors/b/b.s1.yaml"), "# a local edit\n");
    let run = |args: &[&str]| {
        let o = std::process::Command::new(common::bin())
            .args(args)
            .current_dir(&work)
            .env("GIT_DIR", &store)
            .env("GIT_WORK_TREE", &work)
            .output()
            .unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr),
        )
    };
    let (code, out) = run(&["backfill", "connectors"]);
    assert_eq!(code, 0, "{out}");
    let patch = std::fs::read_to_string(work.join("reports/effects.patch")).unwrap();
    assert!(
        patch.starts_with("diff --git a/connectors/a/a.s1.yaml b/connectors/a/a.s1.yaml\n"),
        "{patch}"
    );
    let (code, out) = run(&["backfill", "connectors", "--write"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("b.s1.yaml: has uncommitted changes"), "{out}");
    assert!(
        !std::fs::read_to_string(work.join("connectors/b/b.s1.yaml"))
            .unwrap()
            .contains("effects:")
    );
}

/// An alias item lists its action a second time: a server would register the tool twice.
#[test]
fn an_alias_item_is_a_duplicate_action_id() {
    let tmp = tempfile::tempdir().unwrap();
    write_file(tmp.path(), "catalog/acme/acme.connector.s1.yaml", ACME_MAIN);
    let first = http_action("list_users", "get", "/users", Some("read"));
    let text = format!("- &users\n  {}- *users\n", &first[2..]);
    write_file(tmp.path(), "catalog/acme/acme.users.s1.partial.yaml", &text);
    let r = run_in(tmp.path(), &["check", "catalog"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let line = text.lines().count();
    assert!(
        r.stdout.contains(&format!(
            "catalog/acme/acme.users.s1.partial.yaml:{line}:3: warning [duplicate-action-id]: `list_users` is listed again here through an alias"
        )),
        "{}",
        r.stdout
    );
}

/// A connector written as pretty-printed JSON stays JSON: the inserted key and effects are
/// quoted as the rest of it is.
#[test]
fn a_json_connector_stays_json() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "{\n  \"info\": {\"title\": \"X\", \"key\": \"x\"},\n  \"actions\": [\n    {\n      \"actionId\": \"delete_user\",\n      \"label\": \"Delete user\",\n      \"steps\": [{\"stepId\": \"s\", \"stepFunction\": {\"functionName\": \"request\", \"parameters\": {\"url\": \"/users/:id\", \"method\": \"delete\"}}}]\n    }\n  ]\n}\n";
    write_file(tmp.path(), "catalog/x/x.s1.yaml", text);
    common::git_init(tmp.path());
    let r = run_in(tmp.path(), &["backfill", "catalog", "--write"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let now = std::fs::read_to_string(tmp.path().join("catalog/x/x.s1.yaml")).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&now).unwrap_or_else(|e| panic!("{e}\n{now}"));
    assert_eq!(json["actions"][0]["effects"], serde_json::json!(["delete"]));
    let r = run_in(tmp.path(), &["backfill", "catalog"]);
    assert!(
        r.stdout.contains(", 0 changed by the patch"),
        "{}",
        r.stdout
    );
}

/// The spill holds the trees of the catalog's files, parsed text included; a temporary
/// folder is shared, so only its owner may read it, whatever the umask. Its name is gone
/// at once: its mode is read through the run's own descriptor.
#[cfg(target_os = "linux")]
#[test]
fn the_spill_file_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let spills = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .filter_map(|e| {
                let fd = e.ok()?.path();
                let target = std::fs::read_link(&fd).ok()?;
                let name = target.to_string_lossy().into_owned();
                (name.contains("catalog-effects-") && name.contains(".trees")).then_some(fd)
            })
            .collect()
    };
    let before = spills();
    let spill = catalog_effects::run::spill::Spill::new().expect("a spill on Linux");
    let made: Vec<_> = spills()
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(!made.is_empty(), "the spill's descriptor is found");
    for fd in made {
        let mode = std::fs::metadata(&fd).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", fd.display());
    }
    drop(spill);
}

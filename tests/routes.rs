//! One rule for what a route may touch (issue 21, item 6): the patch, `--write` and
//! `--branch` edit the same files, none git ignores, does not track, or marks
//! skip-worktree or assume-unchanged. Before, `--branch` committed an ignored connector
//! whole, skip-worktree and assume-unchanged files carried their hidden local edits onto the
//! branch, and `--write` edited them all.

mod common;

use std::path::Path;

use common::{git_ok, http_action, run_in, write_file};

/// A connector `key` in its own folder: a main file holding one action without effects.
fn connector(key: &str) -> String {
    format!(
        "StackOne: 1.0.0\ninfo:\n  title: {key}\n  key: {key}\n  version: 1.0.0\nbaseUrl: https://api.{key}.example/v1\nactions:\n{}",
        http_action("delete_user", "delete", "/users/:id", None)
    )
}

fn file(key: &str) -> String {
    format!("connectors/{key}/{key}.connector.s1.yaml")
}

/// A repository whose catalog holds a tracked connector `open`, an ignored one `private`,
/// one marked skip-worktree (`skipped`) and one assume-unchanged (`assumed`), the last two
/// with a local edit git hides.
fn repository(root: &Path) {
    for key in ["open", "skipped", "assumed"] {
        write_file(root, &file(key), &connector(key));
    }
    write_file(root, ".gitignore", "connectors/private/\n");
    common::git_init(root);
    write_file(root, &file("private"), &connector("private"));
    git_ok(root, &["update-index", "--skip-worktree", &file("skipped")]);
    git_ok(
        root,
        &["update-index", "--assume-unchanged", &file("assumed")],
    );
    for key in ["skipped", "assumed"] {
        common::append(&root.join(file(key)), "# a local secret: token=abc\n");
    }
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

const LEFT: [(&str, &str); 3] = [
    ("private", "git ignores it"),
    ("skipped", "skip-worktree"),
    ("assumed", "assume-unchanged"),
];

#[test]
fn the_patch_write_and_branch_touch_only_tracked_visible_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    repository(root);
    let before: Vec<String> = LEFT.iter().map(|(k, _)| read(root, &file(k))).collect();

    // The patch.
    let r = run_in(root, &["backfill", "connectors"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let patch = read(root, "reports/effects.patch");
    assert_eq!(patch.matches("diff --git").count(), 1, "{patch}");
    assert!(patch.contains(&file("open")), "{patch}");
    for (key, why) in LEFT {
        assert!(
            r.stderr.lines().any(|l| l.starts_with("warning: ")
                && l.contains(&file(key))
                && l.contains("not edited")
                && l.contains(why)),
            "{key}: {}",
            r.stderr
        );
    }

    // --branch: HEAD plus the tracked file's edit, nothing else.
    let r = run_in(root, &["backfill", "connectors", "--branch", "effects"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let changed = git_ok(root, &["diff", "--name-only", "HEAD", "effects"]);
    assert_eq!(changed, format!("{}\n", file("open")));
    let tree = git_ok(root, &["ls-tree", "-r", "--name-only", "effects"]);
    assert!(!tree.contains("private"), "{tree}");
    for key in ["skipped", "assumed"] {
        let committed = common::blob(root, "effects", &file(key));
        assert!(
            !String::from_utf8_lossy(&committed).contains("secret"),
            "{key}'s hidden edit was committed"
        );
    }

    // --write, even with --allow-dirty.
    let r = run_in(
        root,
        &["backfill", "connectors", "--write", "--allow-dirty"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(read(root, &file("open")).contains("effects:"));
    let after: Vec<String> = LEFT.iter().map(|(k, _)| read(root, &file(k))).collect();
    assert_eq!(after, before);
    // The proposals left alone are listed for a human, not counted as added.
    assert!(
        r.stdout.contains("files: 4 read, 1 changed by the patch"),
        "{}",
        r.stdout
    );
}

#[test]
fn an_untracked_connector_is_not_patched_until_added() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_file(root, &file("open"), &connector("open"));
    common::git_init(root);
    write_file(root, &file("fresh"), &connector("fresh"));
    let r = run_in(root, &["backfill", "connectors"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("git does not track it (git add it first)"),
        "{}",
        r.stderr
    );
    assert!(!read(root, "reports/effects.patch").contains("fresh"));
    git_ok(root, &["add", &file("fresh")]);
    let r = run_in(root, &["backfill", "connectors"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(read(root, "reports/effects.patch").contains(&file("fresh")));
}

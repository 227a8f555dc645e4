//! One rule for what a route may touch: the patch, `--write` and
//! `--branch` edit the same files, none git ignores, does not track, or marks
//! skip-worktree or assume-unchanged. Before, `--branch` committed an ignored connector
//! whole, skip-worktree and assume-unchanged files carried their hidden local edits onto the
//! branch, and `--write` edited them all.

// The size rule is the library's: a test reads as one scenario, top to bottom.
#![allow(clippy::too_many_lines)]

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

// ---- The repository git would find, and the terminal -------------------------------------

/// Runs the binary in `cwd` with `env` added (and git's own configuration left out).
fn run_env(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> common::Run {
    let o = std::process::Command::new(common::bin())
        .args(args)
        .current_dir(cwd)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    common::Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// `<tmp>/work` holding connectors `clean` and `dirty` (a local edit), whose repository
/// is kept apart in `<tmp>/store.git`, as `GIT_DIR` names it.
fn apart(tmp: &Path) -> std::path::PathBuf {
    let work = tmp.join("work");
    for key in ["clean", "dirty"] {
        write_file(&work, &file(key), &connector(key));
    }
    common::git_init(&work);
    std::fs::rename(work.join(".git"), tmp.join("store.git")).unwrap();
    common::append(&work.join(file("dirty")), "# a local edit\n");
    work
}

/// Git takes a relative `GIT_WORK_TREE` from the current folder, and without one the
/// current folder is the work tree: libgit2 did neither, so `--branch` found no work tree,
/// the patch's paths did not apply at its root, and `--write` edited the dirty file.
#[test]
fn a_repository_given_by_git_dir_has_the_work_tree_git_gives_it() {
    let tmp = tempfile::tempdir().unwrap();
    let work = apart(tmp.path());
    for env in [
        vec![("GIT_DIR", "../store.git"), ("GIT_WORK_TREE", ".")],
        vec![("GIT_DIR", "../store.git")],
    ] {
        let r = run_env(&work, &["backfill", "connectors"], &env);
        assert_eq!(r.code, 0, "{env:?}: {}", r.stderr);
        let patch = read(&work, "reports/effects.patch");
        assert!(
            patch.contains(&format!("diff --git a/{0} b/{0}\n", file("clean"))),
            "{env:?}: {patch}"
        );
        let apply = std::process::Command::new("git")
            .args(["apply", "--check", "reports/effects.patch"])
            .current_dir(&work)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(
            apply.status.success(),
            "{env:?}: {}",
            String::from_utf8_lossy(&apply.stderr)
        );

        let r = run_env(&work, &["backfill", "connectors", "--write"], &env);
        assert_eq!(r.code, 2, "{env:?}: {}", r.stderr);
        assert!(
            r.stderr.contains(&format!(
                "{}: has uncommitted changes: not written",
                file("dirty")
            )),
            "{env:?}: {}",
            r.stderr
        );
        assert!(!read(&work, &file("dirty")).contains("effects:"), "{env:?}");
        // The refusal names the dirty file; once it is committed, --branch commits HEAD
        // plus the backfill.
        let r = run_env(
            &work,
            &["backfill", "connectors", "--branch", "effects"],
            &env,
        );
        assert_eq!(r.code, 2, "{env:?}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("--branch: the catalog has uncommitted changes"),
            "{env:?}: {}",
            r.stderr
        );
        // Undone for the next round.
        let git = |args: &[&str]| {
            let o = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .current_dir(&work)
                .envs(env.iter().copied())
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        };
        git(&["checkout", "--", "connectors"]);
        common::append(&work.join(file("dirty")), "# a local edit\n");
    }
    let env = [("GIT_DIR", "../store.git"), ("GIT_WORK_TREE", ".")];
    let git_env = |args: &[&str]| {
        std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(&work)
            .envs(env)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .unwrap()
    };
    assert!(git_env(&["commit", "-qam", "local edit"]).status.success());
    let r = run_env(
        &work,
        &["backfill", "connectors", "--branch", "effects"],
        &env,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let changed = git_env(&["diff", "--name-only", "HEAD", "effects"]);
    assert_eq!(
        String::from_utf8_lossy(&changed.stdout),
        format!("{}\n{}\n", file("clean"), file("dirty"))
    );
}

/// A repository inside the catalog that is not a submodule, ignored by the outer one or
/// not: its files are that repository's, which the outer one cannot see the changes of.
/// `--branch` committed one into the outer branch and `--write` edited a dirty one.
#[test]
fn a_nested_repository_that_is_not_a_submodule_is_left_alone() {
    for ignored in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write_file(root, &file("open"), &connector("open"));
        write_file(root, &file("vendor"), &connector("vendor"));
        common::git_init(&root.join("connectors/vendor"));
        let ignore = if ignored {
            "reports/\nconnectors/vendor/\n"
        } else {
            "reports/\n"
        };
        write_file(root, ".gitignore", ignore);
        git_ok(root, &["init", "-q"]);
        git_ok(root, &["add", ".gitignore", &file("open")]);
        git_ok(root, &["commit", "-q", "-m", "outer"]);
        common::append(&root.join(file("vendor")), "# a local edit\n");
        let before = read(root, &file("vendor"));

        let r = run_in(root, &["backfill", "connectors"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stderr.contains(&format!(
                "warning: {}: not edited: it is inside another git repository, which this one does not track (not a submodule): run catalog-effects in that repository",
                file("vendor")
            )),
            "{}",
            r.stderr
        );
        let patch = read(root, "reports/effects.patch");
        assert_eq!(patch.matches("diff --git").count(), 1, "{patch}");
        assert!(!patch.contains("vendor"), "{patch}");

        let r = run_in(
            root,
            &["backfill", "connectors", "--write", "--allow-dirty"],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(read(root, &file("vendor")), before);
        assert!(read(root, &file("open")).contains("effects:"));
        git_ok(root, &["checkout", "--", "connectors/open"]);

        if ignored {
            let r = run_in(root, &["backfill", "connectors", "--branch", "effects"]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            let tree = git_ok(root, &["ls-tree", "-r", "--name-only", "effects"]);
            assert!(!tree.contains("vendor"), "{tree}");
        }
    }
}

/// Every command exits 2 when it cannot write stdout; `backfill --patch -` on a closed one
/// exited 0 and the patch was lost. It is refused before anything is written.
#[test]
fn a_patch_for_a_closed_stdout_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_file(root, &file("open"), &connector("open"));
    let r = run_in(root, &["backfill", "connectors"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report = read(root, "reports/coverage.csv");
    std::fs::write(root.join("reports/coverage.csv"), "previous\n").unwrap();
    let o = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("exec '{}' backfill connectors --patch - >&-", common::bin()),
        ])
        .current_dir(root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("error: cannot write to standard output: it is closed"),
        "{stderr}"
    );
    assert_eq!(read(root, "reports/coverage.csv"), "previous\n");
    assert!(!report.is_empty());
}

/// On a pull request one new finding is one error: the totals are a notice, not a second,
/// file-less error.
#[test]
fn github_annotations_hold_one_error_for_one_new_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_file(root, &file("old"), &connector("old"));
    let b = root.join("baseline.csv");
    let b = b.to_str().unwrap();
    let r = run_in(root, &["check", "connectors", "--write-baseline", b]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    write_file(root, &file("new"), &connector("new"));
    let r = run_in(
        root,
        &[
            "check",
            "connectors",
            "--baseline",
            b,
            "--fail-on",
            "new",
            "--format",
            "github",
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let errors: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", r.stdout);
    assert!(errors[0].contains(&file("new")), "{}", r.stdout);
    let last = r.stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("::notice title=catalog-effects::check: "),
        "{}",
        r.stdout
    );
}

/// Everything a run could have written: every file under `root` but `.git` (bytes), and the
/// repository's refs, index and HEAD.
fn written_state(root: &Path) -> (Vec<(String, Vec<u8>)>, String, String) {
    let refs = git_ok(root, &["for-each-ref", "--format=%(refname) %(objectname)"]);
    let index = git_ok(root, &["ls-files", "--stage"]) + &git_ok(root, &["rev-parse", "HEAD"]);
    (common::read_tree(root), refs, index)
}

/// `--overlay` over two documents was refused only once the run was done,
/// after `--write` had edited both documents (or `--branch` had committed them), and the
/// summary still said the overlay was written. Each combination of options the run refuses
/// is refused before anything is written: no file, folder, branch or index entry appears or
/// changes, and the old outputs stay as they were.
#[test]
fn refused_combinations_of_options_write_nothing() {
    let doc = |title: &str| {
        format!(
            "openapi: 3.0.3\ninfo:\n  title: {title}\n  version: \"1\"\npaths:\n  /things:\n    get:\n      operationId: listThings\n      summary: List things\n"
        )
    };
    let fresh = || {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        write_file(root, &file("open"), &connector("open"));
        write_file(root, "connectors/api/a.yaml", &doc("A"));
        write_file(root, "connectors/api/b.yaml", &doc("B"));
        // Outputs of an earlier run, which a refused run must leave as they are.
        write_file(root, "out/o.yaml", "an earlier overlay\n");
        write_file(root, "out/p.patch", "an earlier patch\n");
        common::git_init(root);
        tmp
    };
    let overlay = "--overlay describes one document, and this run reads 2 OpenAPI documents (connectors/api/a.yaml, connectors/api/b.yaml): run once per document";
    let cases: [(&[&str], &str); 10] = [
        (&["--overlay", "out/o.yaml"], overlay),
        (&["--overlay", "out/o.yaml", "--write"], overlay),
        (&["--overlay", "out/o.yaml", "--branch", "effects"], overlay),
        (
            &[
                "--overlay",
                "out/o.yaml",
                "--review",
                "out/r.md",
                "--html",
                "out/c.html",
            ],
            overlay,
        ),
        (
            &["--overlay", "out/p.patch", "--patch", "out/p.patch"],
            "are the same file",
        ),
        (
            &["--report", "out/p.patch", "--patch", "out/p.patch"],
            "are the same file",
        ),
        (
            &["--report", "connectors/open/open.connector.s1.yaml"],
            "would write over a connector file",
        ),
        (&["--write", "--branch", "effects"], "cannot be used with"),
        (&["--branch", "no..name"], "no..name"),
        (&["--jobs", "0", "--write"], "--jobs must be at least 1"),
    ];
    for (extra, why) in cases {
        let tmp = fresh();
        let root = tmp.path();
        let before = written_state(root);
        let mut args = vec!["backfill", "connectors"];
        args.extend_from_slice(extra);
        let r = run_in(root, &args);
        assert_eq!(r.code, 2, "{extra:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(why), "{extra:?}: {}", r.stderr);
        assert!(!r.stdout.contains("wrote"), "{extra:?}: {}", r.stdout);
        assert_eq!(written_state(root), before, "{extra:?} wrote something");
    }
    // `check`'s refusals too: its reports and page stay as they were.
    let check: [(&[&str], &str); 2] = [
        (
            &[
                "--since",
                "HEAD",
                "--write-baseline",
                "out/b.csv",
                "--report",
                "out/r.csv",
            ],
            "--write-baseline is refused on a --since run",
        ),
        (
            &[
                "--fail-on",
                "new",
                "--report",
                "out/r.csv",
                "--html",
                "out/c.html",
            ],
            "--fail-on new needs a baseline",
        ),
    ];
    for (extra, why) in check {
        let tmp = fresh();
        let root = tmp.path();
        let before = written_state(root);
        let mut args = vec!["check", "connectors"];
        args.extend_from_slice(extra);
        let r = run_in(root, &args);
        assert_eq!(r.code, 2, "{extra:?}: {}{}", r.stdout, r.stderr);
        assert!(r.stderr.contains(why), "{extra:?}: {}", r.stderr);
        assert_eq!(
            written_state(root),
            before,
            "check {extra:?} wrote something"
        );
    }
    // With one document the same options run, and the overlay is written.
    let tmp = fresh();
    let root = tmp.path();
    std::fs::remove_file(root.join("connectors/api/b.yaml")).unwrap();
    git_ok(root, &["commit", "-qam", "one document"]);
    let r = run_in(
        root,
        &[
            "backfill",
            "connectors",
            "--overlay",
            "out/o.yaml",
            "--write",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(read(root, "out/o.yaml").contains("$.paths['/things'].get"));
    assert!(read(root, "connectors/api/a.yaml").contains("x-effects: [read]"));
}

//! Git-based features on temporary repositories made by the tests:
//! `backfill --branch` (one commit on a new branch whose tree is the work tree with the patch
//! applied; work tree, index, HEAD and current branch untouched) and `check --since REV`
//! (exactly the changed files, plus the main file of each changed partial's folder and the
//! connector files beside a deleted one).
//! `backfill --write` refusing dirty files is covered in `tests/cli_backfill.rs`.

mod common;

use std::path::{Path, PathBuf};

use common::{
    Run, Sandbox, blob, git, git_apply, git_ok, read_tree, run_backfill, run_in as run, snapshot,
    write_file as write,
};

/// Every 40-hex-digit run replaced by `<COMMIT>`.
fn normalise_ids(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let n = b[i..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        if n == 40 {
            out.push_str("<COMMIT>");
            i += n;
        } else if n > 0 {
            out.push_str(&text[i..i + n]);
            i += n;
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The state of a repository the branch commit must not change.
#[derive(Debug, PartialEq, Eq)]
struct RepoState {
    head: String,
    branch: String,
    status: String,
    index: String,
    files: Vec<(String, Vec<u8>)>,
}

fn state(repo: &Path) -> RepoState {
    RepoState {
        head: git_ok(repo, &["rev-parse", "HEAD"]),
        branch: git_ok(repo, &["symbolic-ref", "HEAD"]),
        status: git_ok(repo, &["status", "--porcelain", "--untracked-files=all"]),
        index: git_ok(repo, &["ls-files", "--stage"]),
        files: read_tree(repo),
    }
}

/// Asserts that the tree of `rev` holds exactly the files of `work` (a work tree, `.git`
/// excluded), byte for byte.
fn assert_tree_equals_work_tree(repo: &Path, rev: &str) {
    let listed = git_ok(repo, &["ls-tree", "-r", "--name-only", "-z", rev]);
    let mut in_tree: Vec<&str> = listed.split('\0').filter(|p| !p.is_empty()).collect();
    in_tree.sort();
    let work = read_tree(repo);
    let names: Vec<&str> = work.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        in_tree, names,
        "the files of {rev} differ from the work tree"
    );
    for (path, bytes) in &work {
        assert!(
            &blob(repo, rev, path) == bytes,
            "{rev}:{path} differs from the patched work tree"
        );
    }
}

/// `<tmp>/repo` holding the fixture at `repo/catalog`, committed; reports go to `<tmp>/out`,
/// outside the repository.
fn repo_with(fixture: &str) -> (Sandbox, PathBuf) {
    let sb = Sandbox::nested(fixture, "repo");
    let repo = sb.root().join("repo");
    common::git_init(&repo);
    (sb, repo)
}

#[test]
fn backfill_branch_commits_the_patched_work_tree_and_touches_nothing() {
    let (sb, repo) = repo_with("demo");
    let catalog = repo.join("catalog");
    let before = state(&repo);
    assert_eq!(before.status, "");

    let out = run_backfill(&[&catalog], &sb.out, &repo, &["--branch", "effects"]);
    // The demo's two invalid declarations are warnings; the branch is written.
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Nothing the user looks at moved.
    assert_eq!(state(&repo), before);

    // The summary names the branch and the commit.
    let id = git_ok(&repo, &["rev-parse", "refs/heads/effects"]);
    let id = id.trim();
    let files = out.patch.matches("diff --git ").count();
    assert!(
        out.stdout
            .contains(&format!("branch effects: commit {id} ({files} files)\n")),
        "{}",
        out.stdout
    );
    snapshot(
        "commands/backfill-branch.stdout",
        &format!("exit: {}\n{}", out.code, normalise_ids(&out.stdout)),
    );
    // One commit on top of HEAD.
    assert_eq!(
        git_ok(&repo, &["rev-parse", "effects^"]),
        before.head,
        "the parent is HEAD"
    );
    assert_eq!(
        git_ok(&repo, &["rev-list", "--count", "HEAD..effects"]).trim(),
        "1"
    );

    // The message: counts, tool version, heuristics revision.
    let msg = git_ok(&repo, &["log", "-1", "--format=%B", "effects"]);
    let added = out.added();
    assert!(
        msg.starts_with(&format!("Backfill effects on {added} actions\n")),
        "{msg}"
    );
    assert!(
        msg.contains("Actions given effects, per connector:\n"),
        "{msg}"
    );
    assert!(msg.contains("  crmly: "), "{msg}");
    let per_connector: usize = msg
        .lines()
        .skip_while(|l| !l.starts_with("Actions given effects"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.rsplit(": ").next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(per_connector, added, "{msg}");
    assert!(msg.contains("Conflicts left alone: 2\n"), "{msg}");
    assert!(msg.contains("Unclassified (need a human): "), "{msg}");
    let version = format!("catalog-effects {} (heuristics ", env!("CARGO_PKG_VERSION"));
    let rev = msg
        .split(&version)
        .nth(1)
        .unwrap_or_else(|| panic!("{msg}"));
    let rev: String = rev.chars().take_while(|c| *c != ',').collect();
    assert_eq!(rev.len(), 12, "{msg}");
    assert!(rev.chars().all(|c| c.is_ascii_hexdigit()), "{msg}");

    // The commit's tree is the work tree with the plain run's patch applied.
    let plain = run_backfill(&[&catalog], &sb.out, &repo, &[]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert_eq!(plain.patch, out.patch);
    git_apply(&repo, &sb.out.join("effects.patch"), false).unwrap();
    assert_tree_equals_work_tree(&repo, "effects");
}

#[test]
fn backfill_branch_refuses_an_existing_branch_unless_forced() {
    let (sb, repo) = repo_with("shape-b");
    let catalog = repo.join("catalog");
    git_ok(&repo, &["branch", "effects"]);
    let head = git_ok(&repo, &["rev-parse", "HEAD"]);
    let before = state(&repo);

    let refused = run_backfill(&[&catalog], &sb.out, &repo, &["--branch", "effects"]);
    assert_eq!(refused.code, 2, "{}", refused.stdout);
    assert!(
        refused
            .stderr
            .contains("branch 'effects' already exists; choose another name or force to move it"),
        "{}",
        refused.stderr
    );
    assert_eq!(git_ok(&repo, &["rev-parse", "effects"]), head);
    assert_eq!(state(&repo), before);

    let forced = run_backfill(
        &[&catalog],
        &sb.out,
        &repo,
        &["--branch", "effects", "--force"],
    );
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    assert_eq!(git_ok(&repo, &["rev-parse", "effects^"]), head);
    assert_eq!(state(&repo), before);
    git_apply(&repo, &sb.out.join("effects.patch"), false).unwrap();
    assert_tree_equals_work_tree(&repo, "effects");

    // --force without --branch is a usage error.
    let bad = run_backfill(&[&catalog], &sb.out, &repo, &["--force"]);
    assert_eq!(bad.code, 2);
}

#[test]
fn backfill_branch_refuses_the_checked_out_branch() {
    let (sb, repo) = repo_with("shape-b");
    let current = git_ok(&repo, &["symbolic-ref", "--short", "HEAD"]);
    let before = state(&repo);
    let out = run_backfill(
        &[&repo.join("catalog")],
        &sb.out,
        &repo,
        &["--branch", current.trim(), "--force"],
    );
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stderr.contains("is checked out in"), "{}", out.stderr);
    assert_eq!(state(&repo), before);
}

#[test]
fn backfill_branch_refuses_a_repository_without_commits() {
    let sb = Sandbox::nested("shape-b", "repo");
    let repo = sb.root().join("repo");
    git_ok(&repo, &["init", "-q"]);
    let out = run_backfill(
        &[&repo.join("catalog")],
        &sb.out,
        &repo,
        &["--branch", "effects"],
    );
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr.contains(
            "repository has no commits; commit something first, then create branch 'effects'"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(git_ok(&repo, &["branch", "--list"]), "");
}

#[test]
fn backfill_branch_outside_a_repository_is_an_error() {
    let sb = Sandbox::new("shape-b");
    let out = sb.backfill(&["--branch", "effects"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("--branch needs the catalog to be inside a git work tree"),
        "{}",
        out.stderr
    );
}

/// The branch must be "the work tree with the patch applied" and is based on
/// HEAD: both hold only when the catalog has no uncommitted changes, so a dirty catalog is
/// refused with a clear message and no branch is created.
#[test]
fn backfill_branch_refuses_a_dirty_catalog() {
    let (sb, repo) = repo_with("shape-a");
    let catalog = repo.join("catalog");
    // Dirty: a file the backfill edits, and one it does not.
    for rel in [
        "catalog/acme/acme.users.s1.partial.yaml",
        "catalog/acme/acme.connector.s1.yaml",
    ] {
        let mut text = std::fs::read_to_string(repo.join(rel)).unwrap();
        text.push_str("# a local change\n");
        std::fs::write(repo.join(rel), text).unwrap();
    }
    let out = run_backfill(&[&catalog], &sb.out, &repo, &["--branch", "effects"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("uncommitted changes"), "{}", out.stderr);
    let branch = git(
        &repo,
        &["rev-parse", "--verify", "--quiet", "refs/heads/effects"],
    );
    assert!(!branch.status.success(), "no branch is created");
}

// ---- check --since ---------------------------------------------------------------------------

/// A main file (shape B) with one action.
fn main_file(name: &str) -> String {
    format!(
        "StackOne: 1.0.0\ninfo:\n  title: {name}\n  key: {name}\n  version: 0.1.0\nbaseUrl: https://{name}.example\nactions:\n  - actionId: get_{name}_status\n    label: Get Status\n    description: Returns the status of {name}.\n    steps:\n      - stepId: fetch\n        stepFunction:\n          functionName: request\n          parameters:\n            url: /status\n            method: get\n"
    )
}

/// A partial (shape B) with one action.
fn partial(id: &str) -> String {
    format!(
        "actions:\n  - actionId: {id}\n    label: {id}\n    description: Lists the items.\n    steps:\n      - stepId: fetch\n        stepFunction:\n          functionName: request\n          parameters:\n            url: /items\n            method: get\n"
    )
}

const FOLDERS: [&str; 4] = ["alpha", "beta", "gamma", "delta"];

/// `<tmp>/repo/connectors/<folder>/` with a main file and a partial each, committed.
fn since_repo() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    for f in FOLDERS {
        write(
            &repo,
            &format!("connectors/{f}/{f}.connector.s1.yaml"),
            &main_file(f),
        );
        write(
            &repo,
            &format!("connectors/{f}/{f}.items.s1.partial.yaml"),
            &partial(&format!("list_{f}_items")),
        );
    }
    write(&repo, "README.md", "# catalog\n");
    common::git_init(&repo);
    (dir, repo)
}

/// The distinct `file` column values of a CSV report, sorted.
fn csv_files(csv: &str) -> Vec<String> {
    let mut files: Vec<String> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().to_owned())
        .collect();
    files.sort();
    files.dedup();
    files
}

#[test]
fn check_since_processes_exactly_the_changed_files() {
    let (dir, repo) = since_repo();
    let base = git_ok(&repo, &["rev-parse", "HEAD"]);
    let base = base.trim();
    let c = repo.join("connectors");
    // A changed partial (alpha), a changed main file (beta), a new untracked partial (gamma),
    // a staged change outside the catalog; delta untouched.
    common::append(&c.join("alpha/alpha.items.s1.partial.yaml"), "# edited\n");
    common::append(&c.join("beta/beta.connector.s1.yaml"), "# edited\n");
    write(
        &c,
        "gamma/gamma.extra.s1.partial.yaml",
        &partial("list_gamma_extras"),
    );
    common::append(&repo.join("README.md"), "more\n");
    git_ok(&repo, &["add", "README.md"]);

    let report = dir.path().join("out/c.csv");
    let args = |rev: &str, format: &str| -> Run {
        run(
            &repo,
            &[
                "check",
                "connectors",
                "--report",
                report.to_str().unwrap(),
                "--since",
                rev,
                "--format",
                format,
            ],
        )
    };
    let want = [
        "alpha/alpha.connector.s1.yaml",
        "alpha/alpha.items.s1.partial.yaml",
        "beta/beta.connector.s1.yaml",
        "gamma/gamma.connector.s1.yaml",
        "gamma/gamma.extra.s1.partial.yaml",
    ];
    for rev in [base, "HEAD"] {
        let human = args(rev, "human");
        assert_eq!(human.code, 1, "{}", human.stderr);
        assert_eq!(
            csv_files(&std::fs::read_to_string(&report).unwrap()),
            want,
            "--since {rev}"
        );
        assert!(
            human.stdout.contains(&format!(
                "partial run: 5 of 9 files (changed since {rev})\n"
            )),
            "{}",
            human.stdout
        );
        let json = args(rev, "json");
        let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
        assert_eq!(
            v["partial"],
            format!("partial run: 5 of 9 files (changed since {rev})")
        );
        let mut found: Vec<String> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "missing-effects")
            .map(|f| f["file"].as_str().unwrap().to_owned())
            .collect();
        found.sort();
        found.dedup();
        // Paths in findings are relative to the work tree.
        let in_repo: Vec<String> = want.iter().map(|w| format!("connectors/{w}")).collect();
        assert_eq!(found, in_repo);
    }
    snapshot(
        "commands/check-since.human",
        &normalise_ids(&format!(
            "exit: 1\n{}",
            args(base, "human").stdout.replace(base, "<COMMIT>")
        )),
    );

    // Nothing changed since the work tree's own state is committed: an empty partial run.
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "more"]);
    let none = args("HEAD", "human");
    assert_eq!(none.code, 0, "{}", none.stdout);
    assert!(
        none.stdout
            .contains("partial run: 0 of 9 files (changed since HEAD)\n"),
        "{}",
        none.stdout
    );
    assert_eq!(std::fs::read_to_string(&report).unwrap().lines().count(), 1);
}

#[test]
fn check_since_with_a_baseline_reports_nothing_as_disappeared() {
    let (dir, repo) = since_repo();
    let base = dir.path().join("base.csv");
    let full = run(
        &repo,
        &["check", "connectors", "--report", base.to_str().unwrap()],
    );
    assert_eq!(full.code, 1);
    common::append(
        &repo.join("connectors/alpha/alpha.items.s1.partial.yaml"),
        "# edited\n",
    );
    let r = run(
        &repo,
        &[
            "check",
            "connectors",
            "--report",
            dir.path().join("now.csv").to_str().unwrap(),
            "--baseline",
            base.to_str().unwrap(),
            "--since",
            "HEAD",
            "--fail-on",
            "new",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("; 0 new, 2 in the baseline, 0 actions gone; 0 failing (--fail-on new)\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn check_since_unknown_revision_or_no_repository_exits_2() {
    let (dir, repo) = since_repo();
    let report = dir.path().join("c.csv");
    let r = run(
        &repo,
        &[
            "check",
            "connectors",
            "--report",
            report.to_str().unwrap(),
            "--since",
            "no-such-rev",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("unknown revision 'no-such-rev'"),
        "{}",
        r.stderr
    );

    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "cat/a/a.connector.s1.yaml", &main_file("a"));
    let r = run(
        outside.path(),
        &["check", "cat", "--report", "c.csv", "--since", "HEAD"],
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("--since needs the catalog to be inside a git work tree"),
        "{}",
        r.stderr
    );
}

#[test]
fn check_history_records_the_short_commit_in_a_repository() {
    let (dir, repo) = since_repo();
    let history = dir.path().join("h.csv");
    let r = run(
        &repo,
        &[
            "check",
            "connectors",
            "--report",
            dir.path().join("c.csv").to_str().unwrap(),
            "--history",
            history.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let text = std::fs::read_to_string(&history).unwrap();
    let row: Vec<&str> = text.lines().nth(1).unwrap().split(',').collect();
    let head = git_ok(&repo, &["rev-parse", "HEAD"]);
    assert!(row[1].len() >= 7 && head.starts_with(row[1]), "{text}");
}

#[test]
fn normalise_ids_replaces_only_full_ids() {
    let id = "0123456789abcdef0123456789abcdef01234567";
    assert_eq!(
        normalise_ids(&format!("commit {id} (3 files) deadbeef")),
        "commit <COMMIT> (3 files) deadbeef"
    );
}

/// Two catalogs holding the same relative paths: a change in one must not select the
/// other's files. `--since` collects catalog-relative paths from every catalog into one set
/// (`opts.only`), so `other/alpha/...` is processed because `connectors/alpha/...` changed,
/// and the "N of M files" count (2) disagrees with what was processed (4).
#[test]
fn check_since_with_two_catalogs_selects_only_the_changed_catalogs_files() {
    let (dir, repo) = since_repo();
    common::copy_dir(&repo.join("connectors"), &repo.join("other"));
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "other"]);
    common::append(
        &repo.join("connectors/alpha/alpha.items.s1.partial.yaml"),
        "# edited\n",
    );
    let r = run(
        &repo,
        &[
            "check",
            "connectors",
            "other",
            "--report",
            dir.path().join("c.csv").to_str().unwrap(),
            "--since",
            "HEAD",
            "--format",
            "json",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let mut files: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "missing-effects")
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    files.sort();
    files.dedup();
    assert_eq!(
        files,
        [
            "connectors/alpha/alpha.connector.s1.yaml",
            "connectors/alpha/alpha.items.s1.partial.yaml"
        ]
    );
    assert_eq!(
        v["partial"],
        "partial run: 2 of 16 files (changed since HEAD)"
    );
}

/// A deletion changes what the files beside it mean: a partial whose main file is gone has
/// no connector, and a main file whose `$ref:` names a deleted partial reads no actions from
/// it. Both are errors of a full check, so `--since` must read the folder of every deleted
/// path, though the deleted file itself is not there to read.
#[test]
fn check_since_reads_the_files_a_deletion_affects() {
    let (_dir, repo) = since_repo();
    let c = repo.join("connectors");
    write(
        &c,
        "shop/shop.connector.s1.yaml",
        "info:\n  key: shop\nactions:\n  $ref: shop.users\n",
    );
    write(
        &c,
        "shop/shop.users.s1.partial.yaml",
        &partial("list_shop_users"),
    );
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "shop"]);
    std::fs::remove_file(c.join("alpha/alpha.connector.s1.yaml")).unwrap();
    std::fs::remove_file(c.join("shop/shop.users.s1.partial.yaml")).unwrap();

    let check = |rev: Option<&str>| -> Run {
        let mut args = vec!["check", "connectors"];
        if let Some(rev) = rev {
            args.extend(["--since", rev]);
        }
        run(&repo, &args)
    };
    let full = check(None);
    assert_eq!(full.code, 2, "{}", full.stderr);
    // Deleted in the work tree, then committed as a pull request would.
    for rev in ["HEAD", "HEAD~1"] {
        if rev == "HEAD~1" {
            git_ok(&repo, &["add", "-A"]);
            git_ok(&repo, &["commit", "-q", "-m", "delete"]);
        }
        let since = check(Some(rev));
        assert_eq!(since.code, 2, "--since {rev}\n{}", since.stderr);
        for e in [
            "connectors/alpha/alpha.items.s1.partial.yaml: partial has no main file",
            "connectors/shop/shop.connector.s1.yaml:4:9: `$ref: shop.users` names no file",
        ] {
            assert!(
                since.stderr.contains(e),
                "--since {rev}: {e}\n{}",
                since.stderr
            );
            assert!(full.stderr.contains(e), "{e}\n{}", full.stderr);
        }
        assert!(
            since
                .stdout
                .contains(&format!("partial run: 2 of 8 files (changed since {rev})")),
            "{}",
            since.stdout
        );
    }
}

/// `--branch` checks for uncommitted changes once, before the run, but reads each file when
/// it plans it: an editor's save in between reached the branch as if it were HEAD's. The
/// race is made deterministic here by an edit the up-front check cannot see: same size,
/// same inode, its old mtime put back, and `core.trustctime` off, so git's stat data says
/// the file is clean though its text is not. Each blob must be checked against HEAD when it
/// is made, from the text the run planned on.
#[test]
fn backfill_branch_refuses_a_file_that_differs_from_head_when_its_blob_is_made() {
    let (sb, repo) = repo_with("shape-a");
    let catalog = repo.join("catalog");
    let rel = "catalog/acme/acme.users.s1.partial.yaml";
    let file = repo.join(rel);
    git_ok(&repo, &["config", "core.trustctime", "false"]);
    let old = "200001010000.00";
    let touch = |path: &Path| {
        let done = std::process::Command::new("touch")
            .args(["-t", old])
            .arg(path)
            .status()
            .unwrap();
        assert!(done.success());
    };
    touch(&file);
    git_ok(&repo, &["update-index", "--refresh"]);
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replacen("Lists all users.", "Lists all USERS.", 1);
    assert_ne!(edited, text);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, edited.as_bytes()))
        .unwrap();
    touch(&file);
    assert_eq!(
        git_ok(&repo, &["status", "--porcelain"]),
        "",
        "the edit must be one the up-front check cannot see"
    );

    let out = run_backfill(&[&catalog], &sb.out, &repo, &["--branch", "effects"]);
    assert_eq!(out.code, 2, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "error: {rel}: differs from HEAD: changed since --branch found the catalog clean"
        )),
        "{}",
        out.stderr
    );
    let branch = git(
        &repo,
        &["rev-parse", "--verify", "--quiet", "refs/heads/effects"],
    );
    assert!(!branch.status.success(), "no branch is created");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edited);
}

/// A `.git` file whose `gitdir:` names no repository (a submodule's folder copied without
/// its parent, a moved work tree) is a broken repository to git, not "no repository": taken
/// for none, `--write` had no dirty-file guard and edited a file with local changes.
#[test]
fn a_git_file_pointing_nowhere_is_an_error_naming_it() {
    let sb = common::Sandbox::nested("shape-a", "repo");
    let repo = sb.root().join("repo");
    std::fs::write(repo.join(".git"), "gitdir: ../gone/modules/repo\n").unwrap();
    let rel = "catalog/acme/acme.users.s1.partial.yaml";
    let before = std::fs::read(repo.join(rel)).unwrap();
    for route in [&["--write"][..], &["--branch", "effects"], &[]] {
        let out = run_backfill(&[&repo.join("catalog")], &sb.out, &repo, route);
        assert_eq!(out.code, 2, "{route:?}\n{}", out.stderr);
        assert!(
            out.stderr
                .contains("error: .git: its `gitdir: ../gone/modules/repo` names no git directory"),
            "{route:?}\n{}",
            out.stderr
        );
        assert_eq!(std::fs::read(repo.join(rel)).unwrap(), before);
    }
}

/// The commit message of `--branch` names each connector by its `info.key`, which is the
/// catalog's text: a line break in it must not start a line of its own (a forged trailer
/// such as `Signed-off-by:`), nor any other control character reach the message raw.
#[test]
fn backfill_branch_escapes_a_line_break_in_info_key_in_the_commit_message() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let main = main_file("acme").replace(
        "key: acme",
        "key: \"acme\\nSigned-off-by: Mallory <m@example.com>\"",
    );
    write(&repo, "catalog/acme/acme.connector.s1.yaml", &main);
    common::git_init(&repo);
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = run_backfill(
        &[&repo.join("catalog")],
        &out_dir,
        &repo,
        &["--branch", "effects"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let message = git_ok(&repo, &["log", "-1", "--format=%B", "effects"]);
    assert!(
        message.contains("  acme\\nSigned-off-by: Mallory <m@example.com>: 1\n"),
        "{message}"
    );
    assert!(
        !message.lines().any(|l| l.starts_with("Signed-off-by")),
        "{message}"
    );
}

/// A run killed while it writes (SIGINT, SIGTERM: no destructor runs) leaves its temporary
/// file beside the target, `.catalog-effects.<pid>.<n>.tmp`, untracked. It is the tool's
/// own, never read and never committed, so the next `--branch` must not refuse the catalog
/// as dirty for it; a file git tracks under such a name is still the user's.
#[test]
fn backfill_branch_leaves_out_a_temporary_file_of_an_interrupted_run() {
    let (sb, repo) = repo_with("shape-a");
    let catalog = repo.join("catalog");
    let left = "catalog/acme/.catalog-effects.4242.0.tmp";
    write(&repo, left, "half a report\n");
    let out = run_backfill(&[&catalog], &sb.out, &repo, &["--branch", "effects"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let listed = git_ok(&repo, &["ls-tree", "-r", "--name-only", "effects"]);
    assert!(!listed.contains(".catalog-effects."), "{listed}");
    assert!(
        repo.join(left).exists(),
        "another run's file is not removed"
    );

    // Tracked, and changed: the user's, so the catalog is dirty.
    git_ok(&repo, &["add", "-f", left]);
    git_ok(&repo, &["commit", "-q", "-m", "tracked"]);
    write(&repo, left, "changed\n");
    let out = run_backfill(&[&catalog], &sb.out, &repo, &["--branch", "again"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("uncommitted changes"), "{}", out.stderr);
}

/// Errors about the repository name it as every other message names a path: relative to
/// the current folder when below it, not by the canonical absolute path git2 works with.
#[test]
fn git_errors_name_the_repository_relative_to_the_current_folder() {
    let (sb, repo) = repo_with("shape-a");
    let catalog = repo.join("catalog");
    let from_above = |extra: &[&str]| run_backfill(&[&catalog], &sb.out, sb.root(), extra);
    let out = from_above(&["--branch", "a..b"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("error: repo: invalid branch name 'a..b'"),
        "{}",
        out.stderr
    );
    common::append(
        &repo.join("catalog/acme/acme.connector.s1.yaml"),
        "# local\n",
    );
    let out = from_above(&["--branch", "effects"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("error: repo: --branch: the catalog has uncommitted changes"),
        "{}",
        out.stderr
    );
}

/// Each blob of `--branch` is checked against HEAD when it is made, and the commit's parent
/// is HEAD when it is written: a commit made in between (the user goes on working during a
/// long run) would become the parent of edits planned on the commit before it, and the
/// branch would quietly undo that commit's change to the file. Reproduced through the
/// library, with the commit made between the two calls.
#[test]
fn a_branch_commit_is_refused_when_head_moved_after_its_blobs_were_made() {
    let (_sb, repo) = repo_with("shape-a");
    let rel = "catalog/acme/acme.users.s1.partial.yaml";
    let text = std::fs::read_to_string(repo.join(rel)).unwrap();
    let git_repo = catalog_effects::git::Repo::discover(&repo).unwrap();
    let blob = git_repo
        .stage_edit(rel, text.as_bytes(), format!("{text}# edited\n").as_bytes())
        .unwrap();
    common::append(&repo.join(rel), "# the user's next commit\n");
    git_ok(&repo, &["commit", "-q", "-am", "next"]);
    let err = git_repo
        .commit_on_branch("effects", &[blob], "msg", false)
        .unwrap_err();
    assert!(err.message.contains("HEAD moved"), "{err}");
    let branch = git(
        &repo,
        &["rev-parse", "--verify", "--quiet", "refs/heads/effects"],
    );
    assert!(!branch.status.success(), "no branch is created");
}

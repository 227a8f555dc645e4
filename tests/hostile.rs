//! The defects a hostile trial found, each as a regression test that fails on the code
//! before its fix and passes after. Every route (the patch, `--write`, `--branch`)
//! must give the same file, or leave it alone with a message naming the action.
//! `docs/robustness.md` lists every case with its outcome.

mod common;

use common::{Routes, git, git_apply, git_ok, run_backfill, write_file};

/// A one-step GET: what makes `list_users` a confident read.
const G: &str = "steps: [{stepId: s, stepFunction: {functionName: request, parameters: {url: /u, method: get}}}]";

fn text(files: &[(String, Vec<u8>)], rel: &str) -> String {
    let (_, bytes) = files.iter().find(|(r, _)| r == rel).expect(rel);
    String::from_utf8(bytes.clone()).unwrap()
}

/// Runs `backfill` again on files a route made: they must parse, and plan nothing more.
fn rerun_is_silent(files: &[(String, Vec<u8>)], extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, bytes) in files {
        write_file(
            &dir.path().join("catalog"),
            rel,
            &String::from_utf8_lossy(bytes),
        );
    }
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let out = run_backfill(
        &[&dir.path().join("catalog")],
        &dir.path().join("out"),
        dir.path(),
        extra,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.patch.is_empty(), "a rerun plans more:\n{}", out.patch);
}

// --- 1. edits that broke the YAML they patched ----------------------------------------

#[test]
fn an_explicit_actionid_key_gets_effects_at_the_mappings_indentation() {
    let file = format!("actions:\n  - ? actionId\n    : list_users\n    {G}\n");
    let r = Routes::run(&[("c/c.s1.yaml", &file)], &[]);
    assert_eq!(r.patch.code, 0, "{}", r.patch.stderr);
    let files = r.agree();
    assert_eq!(
        text(files, "c/c.s1.yaml"),
        format!(
            "actions:\n  - ? actionId\n    : list_users\n    effects:\n      - read\n    {G}\n"
        )
    );
    rerun_is_silent(files, &[]);
}

#[test]
fn a_single_pair_mapping_in_a_flow_sequence_is_left_alone_and_named() {
    let file = "actions: [actionId: list_users]\n";
    let r = Routes::run(&[("c/c.s1.yaml", file)], &[]);
    let files = r.agree();
    assert_eq!(text(files, "c/c.s1.yaml"), file, "left as it was");
    for out in [&r.patch, &r.write, &r.branch] {
        assert!(
            out.stderr.contains(
                "warning: repo/catalog/c/c.s1.yaml:1:11: `list_users` not edited: it is a single-pair mapping inside a flow sequence"
            ),
            "{}",
            out.stderr
        );
    }
    assert_eq!(r.patch.status_of("list_users"), "unclassified");
    rerun_is_silent(files, &[]);
}

#[test]
fn fix_conflicts_keeps_anchors_and_refuses_a_list_other_actions_alias() {
    let file = format!(
        "- actionId: list_users\n  effects: &e [write]\n  {G}\n- actionId: get_users\n  effects: *e\n  {G}\n- actionId: list_teams\n  effects: &t\n    - write\n  {G}\n- actionId: list_roles\n  effects:\n  - write\n  {G}\n"
    );
    let r = Routes::run(&[("c/c.s1.yaml", &file)], &["--fix-conflicts"]);
    let files = r.agree();
    assert_eq!(
        text(files, "c/c.s1.yaml"),
        format!(
            "- actionId: list_users\n  effects: &e [write]\n  {G}\n- actionId: get_users\n  effects: *e\n  {G}\n- actionId: list_teams\n  effects: &t\n    - read\n  {G}\n- actionId: list_roles\n  effects:\n  - read\n  {G}\n"
        )
    );
    for out in [&r.patch, &r.write, &r.branch] {
        for warning in [
            "warning: repo/catalog/c/c.s1.yaml:1:3: `list_users` not rewritten: its effects list is anchored (`&name`) and used elsewhere through an alias",
            "warning: repo/catalog/c/c.s1.yaml:4:3: `get_users` not rewritten: its effects are an alias (`*name`)",
        ] {
            assert!(out.stderr.contains(warning), "{warning}\n{}", out.stderr);
        }
    }
    rerun_is_silent(files, &["--fix-conflicts"]);
}

#[test]
fn fix_conflicts_rewrites_an_indentless_or_anchored_block_list_from_its_dash() {
    // Also written up above; here the minimal forms of the defect, one per file.
    let files = [
        (
            "a/a.s1.yaml",
            format!("- actionId: list_users\n  effects: &e\n    - write\n  {G}\n"),
        ),
        (
            "b/b.s1.yaml",
            format!("- actionId: list_users\n  effects:\n  - write\n  {G}\n"),
        ),
    ];
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let r = Routes::run(&files, &["--fix-conflicts"]);
    let made = r.agree();
    assert!(text(made, "a/a.s1.yaml").contains("effects: &e\n    - read\n"));
    assert!(text(made, "b/b.s1.yaml").contains("effects:\n  - read\n"));
    rerun_is_silent(made, &[]);
}

// --- 8. duplicate keys and later documents -------------------------------------------

#[test]
fn duplicate_keys_are_errors_with_a_line_but_shape_c_refs_are_not() {
    let case = common::Case::new()
        .with(
            "actions.s1.yaml",
            format!(
                "actions:\n  - actionId: list_a\n    {G}\nactions:\n  - actionId: list_b\n    {G}\n"
            ),
        )
        .with(
            "effects.s1.yaml",
            format!("- actionId: list_c\n  effects: [read]\n  effects: [write]\n  {G}\n"),
        )
        .with(
            "ids.s1.yaml",
            format!("- actionId: list_d\n  actionId: list_e\n  {G}\n"),
        );
    let main = "info:\n  key: shop\nactions:\n  $ref: shop.users\n  $ref: shop.orders\n";
    write_file(&case.catalog, "shop/shop.connector.s1.yaml", main);
    write_file(
        &case.catalog,
        "shop/shop.users.s1.partial.yaml",
        &format!("- actionId: list_users\n  {G}\n"),
    );
    write_file(
        &case.catalog,
        "shop/shop.orders.s1.partial.yaml",
        &format!("- actionId: list_orders\n  {G}\n"),
    );
    let out = case.backfill(&[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    for e in [
        "error: catalog/bad/actions.s1.yaml:4:1: duplicate key `actions` (first at line 1)",
        "error: catalog/bad/effects.s1.yaml:3:3: duplicate key `effects` (first at line 2)",
        "error: catalog/bad/ids.s1.yaml:2:3: duplicate key `actionId` (first at line 1)",
    ] {
        assert!(out.stderr.contains(e), "{e}\n{}", out.stderr);
    }
    assert!(!out.stderr.contains("shop.connector"), "{}", out.stderr);
    assert!(
        !out.patch.contains("bad/") && !out.patch.contains("shop.connector"),
        "{}",
        out.patch
    );
    assert_eq!(out.status_of("list_users"), "added");
    common::assert_good_processed(&out);
}

#[test]
fn a_second_document_is_an_error_where_it_starts() {
    let case = common::Case::new().with(
        "two.s1.yaml",
        format!("- actionId: list_a\n  {G}\n---\n- actionId: delete_b\n  {G}\n"),
    );
    let out = case.backfill(&[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error: catalog/bad/two.s1.yaml:4:1: a second YAML document"),
        "{}",
        out.stderr
    );
    assert!(!out.csv.contains("list_a"), "the file is refused whole");
    // A document that holds nothing (a trailing `---`) is not one.
    let case = common::Case::new().with("one.s1.yaml", format!("- actionId: list_a\n  {G}\n---\n"));
    assert_eq!(case.backfill(&[]).code, 0);
}

// --- 14. positions the drift check took for a `%` directive --------------------------

#[test]
fn a_folded_actionid_and_an_alias_key_are_read_not_refused() {
    let case = common::Case::new()
        .with(
            "folded.s1.yaml",
            format!("- actionId: list\n    users\n  {G}\n"),
        )
        .with(
            "alias.s1.yaml",
            format!("name: &k actionId\nactions:\n  - *k : list_teams\n    {G}\n"),
        );
    let out = case.backfill(&[]);
    assert!(
        !out.stderr.contains("positions do not match"),
        "{}",
        out.stderr
    );
    assert_eq!(out.status_of("list users"), "added", "{}", out.stderr);
    assert_eq!(out.status_of("list_teams"), "added", "{}", out.stderr);
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&case.catalog, &dir.path().join("catalog"));
    let p = case.out.join("effects.patch");
    common::git_apply(&dir.path().join("catalog"), &p, false).unwrap();
    rerun_is_silent(&common::read_tree(&dir.path().join("catalog")), &[]);
}

// --- 2, 4, 14. --branch and git ------------------------------------------------------

/// A repository at `<tmp>/repo` holding `catalog/c/c.s1.yaml` (CRLF in the work tree),
/// with `setup` run before the first commit, made with `git_config` as `git add` then
/// stores it; reports go to `<tmp>/out`.
fn crlf_repo(
    setup: &[&[&str]],
    attributes: Option<&str>,
    git_config: &[&str],
) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    git_ok(&repo_dir(&repo), &["init", "-q"]);
    for args in setup {
        git_ok(&repo, args);
    }
    if let Some(a) = attributes {
        write_file(&repo, ".gitattributes", a);
    }
    let file = format!(
        "- actionId: list_users\r\n  label: Users\r\n  {G}\r\n- actionId: delete_user\r\n  steps: [{{stepId: s, stepFunction: {{functionName: request, parameters: {{url: /u, method: delete}}}}}}]\r\n"
    );
    write_file(&repo.join("catalog"), "c/c.s1.yaml", &file);
    let mut add = git_config.to_vec();
    add.extend(["add", "-A"]);
    git_ok(&repo, &add);
    git_ok(&repo, &["commit", "-q", "-m", "crlf"]);
    (dir, repo)
}

fn repo_dir(repo: &std::path::Path) -> std::path::PathBuf {
    std::fs::create_dir_all(repo).unwrap();
    repo.to_path_buf()
}

#[test]
fn branch_commits_through_git_filters_with_eol_crlf() {
    let (dir, repo) = crlf_repo(&[], Some("* text eol=crlf\n"), &[]);
    common::branch_equals_git_add(&dir, &repo, &[]);
}

#[test]
fn branch_commits_through_git_filters_with_core_autocrlf() {
    let autocrlf = ["-c", "core.autocrlf=true"];
    let (dir, repo) = crlf_repo(&[&["config", "core.autocrlf", "true"]], None, &autocrlf);
    common::branch_equals_git_add(&dir, &repo, &autocrlf);
}

#[test]
fn branch_refuses_a_path_with_a_filter_program() {
    let (dir, repo) = crlf_repo(
        &[
            &["config", "filter.upper.clean", "tr a-z A-Z"],
            &["config", "filter.upper.smudge", "cat"],
        ],
        None,
        &[],
    );
    write_file(&repo, ".gitattributes", "*.yaml filter=upper\n");
    git_ok(&repo, &["add", ".gitattributes"]);
    git_ok(&repo, &["commit", "-q", "-m", "filter"]);
    branch_is_refused(&dir, &repo, "catalog/c/c.s1.yaml: has the filter `upper`");
}

/// `backfill --branch effects` exits 2 with `message` and writes no branch.
fn branch_is_refused(dir: &tempfile::TempDir, repo: &std::path::Path, message: &str) {
    let out = run_backfill(
        &[&repo.join("catalog")],
        &dir.path().join("out"),
        repo,
        &["--branch", "effects"],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains(message), "{message}\n{}", out.stderr);
    let made = git(
        repo,
        &["rev-parse", "--verify", "--quiet", "refs/heads/effects"],
    );
    assert!(!made.status.success(), "a branch was written");
}

#[test]
fn force_never_moves_a_branch_checked_out_in_another_work_tree() {
    let (dir, repo) = crlf_repo(&[], None, &[]);
    let main_branch = git_ok(&repo, &["symbolic-ref", "--short", "HEAD"]);
    let linked = dir.path().join("linked");
    git_ok(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "other",
            linked.to_str().unwrap(),
        ],
    );
    let head = |b: &str| git_ok(&repo, &["rev-parse", b]);
    let (other_before, main_before) = (head("other"), head(main_branch.trim()));
    // From the main work tree, the branch of the linked one; from the linked one, the
    // main one's (the case the trial met).
    for (from, branch, place) in [
        (&repo, "other", &linked),
        (&linked, main_branch.trim(), &repo),
    ] {
        let out = run_backfill(
            &[&from.join("catalog")],
            &dir.path().join("out"),
            from,
            &["--branch", branch, "--force"],
        );
        assert_eq!(out.code, 2, "{}", out.stderr);
        let place = place.canonicalize().unwrap();
        assert!(
            out.stderr.contains(&format!(
                "branch '{branch}' is checked out in {}",
                place.display()
            )),
            "{}",
            out.stderr
        );
    }
    assert_eq!(
        (head("other"), head(main_branch.trim())),
        (other_before, main_before)
    );
    assert_eq!(
        git_ok(&linked, &["status", "--porcelain"]),
        "",
        "no staged revert"
    );
}

#[test]
fn branch_names_are_checked_as_git_checks_them() {
    let (dir, repo) = crlf_repo(&[], None, &[]);
    let names = [
        "@", "-x", "HEAD", "a@b", "a@{b", "a..b", "x.lock", "a/b", ".a", "a.", "a//b", "a b", "ü",
        "@{-1}", "a:b", "a~b", "ok-name",
    ];
    for name in names {
        let git_says = git(&repo, &["check-ref-format", "--branch", name])
            .status
            .success();
        let flag = format!("--branch={name}");
        let out = run_backfill(
            &[&repo.join("catalog")],
            &dir.path().join("out"),
            &repo,
            &[&flag, "--force"],
        );
        let refused = out
            .stderr
            .contains(&format!("invalid branch name '{name}'"));
        // `@` passes git's check but is no name: every command reads it as HEAD.
        assert_eq!(
            refused,
            !git_says || name == "@",
            "{name:?}: {}",
            out.stderr
        );
        assert_eq!(out.code == 0, !refused, "{name:?}: {}", out.stderr);
    }
    assert!(
        !git(&repo, &["rev-parse", "--verify", "--quiet", "refs/heads/@"])
            .status
            .success()
    );
}

/// `<tmp>/repo` whose `catalog/sub` is a submodule holding a connector file.
fn repo_with_submodule() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let sub = dir.path().join("sub");
    write_file(
        &sub,
        "s/s.s1.yaml",
        &format!("- actionId: list_subs\n  {G}\n"),
    );
    common::git_init(&sub);
    let repo = dir.path().join("repo");
    write_file(
        &repo.join("catalog"),
        "c/c.s1.yaml",
        &format!("- actionId: list_users\n  {G}\n"),
    );
    common::git_init(&repo);
    git_ok(
        &repo,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            sub.to_str().unwrap(),
            "catalog/sub",
        ],
    );
    git_ok(&repo, &["commit", "-q", "-m", "submodule"]);
    (dir, repo)
}

#[test]
fn branch_names_the_file_inside_a_submodule_it_cannot_commit() {
    let (dir, repo) = repo_with_submodule();
    branch_is_refused(
        &dir,
        &repo,
        "'catalog/sub/s/s.s1.yaml' is inside 'catalog/sub', which is a submodule",
    );
}

#[test]
fn the_dirty_guard_looks_inside_submodules() {
    let (dir, repo) = repo_with_submodule();
    let inner = repo.join("catalog/sub/s/s.s1.yaml");
    let mut changed = std::fs::read_to_string(&inner).unwrap();
    changed.push_str("# uncommitted\n");
    std::fs::write(&inner, &changed).unwrap();
    let out = run_backfill(
        &[&repo.join("catalog")],
        &dir.path().join("out"),
        &repo,
        &["--write"],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error: catalog/sub/s/s.s1.yaml: has uncommitted changes: not written"),
        "{}",
        out.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&inner).unwrap(),
        changed,
        "the user's edit is kept"
    );
    assert!(
        std::fs::read_to_string(repo.join("catalog/c/c.s1.yaml"))
            .unwrap()
            .contains("effects:")
    );
}

// --- 3, 6, 14. --write keeps everything the file had ----------------------------------

/// A connector of `n` actions, about 230 bytes each.
fn big_connector(n: usize) -> String {
    let mut t = String::from("info:\n  key: big\nactions:\n");
    for i in 0..n {
        t.push_str(&format!(
            "  - actionId: list_things_{i}\n    label: Things {i}\n    description: Lists the things of page {i}, twenty at a time.\n    steps:\n      - stepId: s\n        stepFunction: {{functionName: request, parameters: {{url: /things, method: get}}}}\n"
        ));
    }
    t
}

/// Runs `backfill --write` on `case` and calls `during` with the temporary file's path as
/// soon as it appears beside `file` (polling the folder). Returns the run and what
/// `during` returned, if the temporary file was seen.
fn while_writing<T>(
    case: &common::Case,
    file: &std::path::Path,
    during: impl FnOnce(&std::path::Path) -> T,
) -> (common::Output, Option<T>) {
    let dir = file.parent().unwrap().to_path_buf();
    let mut child = std::process::Command::new(common::bin())
        .arg("backfill")
        .arg(&case.catalog)
        .args(["--write", "--allow-dirty", "-q", "--patch"])
        .arg(case.out.join("effects.patch"))
        .arg("--report")
        .arg(case.out.join("coverage.csv"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut during = Some(during);
    let mut seen = None;
    while child.try_wait().unwrap().is_none() && seen.is_none() {
        let tmp = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.to_string_lossy().contains(".catalog-effects."));
        if let Some(tmp) = tmp {
            seen = during.take().map(|f| f(&tmp));
        }
    }
    let o = child.wait_with_output().unwrap();
    let out = common::Output {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        patch: String::new(),
        csv: String::new(),
    };
    (out, seen)
}

/// Actions in the files the race and mode trials write: 9,000 (2 MB) by default, so a debug
/// build takes seconds; `RACE_ACTIONS=40000` gives the trial's 9 MB file.
fn race_actions() -> usize {
    std::env::var("RACE_ACTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9_000)
}

/// The race trial: a line appended to the file while `--write` writes its new version is
/// kept, five times out of five (it was lost five times out of five on a 9 MB file).
#[test]
fn a_line_appended_while_the_file_is_written_is_kept() {
    let (mut kept, mut lost, mut missed) = (0, 0, 0);
    // A round where the poll never saw the temporary file (the machine was busy elsewhere
    // while the tool wrote) tries nothing: it is run again, up to 20 rounds in all.
    for round in 0..20 {
        if kept + lost == 5 {
            break;
        }
        let case = common::Case::new().with("big.connector.s1.yaml", big_connector(race_actions()));
        let file = case.catalog.join("bad/big.connector.s1.yaml");
        let (out, appended) = while_writing(&case, &file, |_| {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&file)
                .unwrap();
            f.write_all(b"# appended while it was written\n").unwrap();
        });
        if appended.is_none() {
            missed += 1;
            continue;
        }
        let now = std::fs::read_to_string(&file).unwrap();
        if !now.ends_with("# appended while it was written\n") {
            lost += 1;
            continue;
        }
        kept += 1;
        // On Linux the new file is exchanged with the old one, which keeps the temporary
        // name for a moment before it is removed: an append seen then landed on the new
        // file, after the write, and nothing was lost.
        if out.code == 0 && now.contains("effects:") {
            continue;
        }
        assert_eq!(out.code, 2, "round {round}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("big.connector.s1.yaml: changed on disk since it was planned"),
            "round {round}: {}",
            out.stderr
        );
        assert!(!now.contains("effects:"));
        assert_eq!(
            common::names_in(file.parent().unwrap()),
            ["big.connector.s1.yaml"]
        );
    }
    eprintln!("race trial: {kept} kept, {lost} lost, {missed} missed (no temporary file seen)");
    assert_eq!(
        (kept, lost),
        (5, 0),
        "the appended line must survive every round ({missed} missed)"
    );
}

#[cfg(unix)]
#[test]
fn the_temporary_file_is_never_more_readable_than_the_file() {
    use std::os::unix::fs::PermissionsExt;
    let case = common::Case::new().with("big.connector.s1.yaml", big_connector(race_actions()));
    let file = case.catalog.join("bad/big.connector.s1.yaml");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (out, mode) = while_writing(&case, &file, |tmp| {
        std::fs::metadata(tmp)
            .map(|m| m.permissions().mode() & 0o777)
            .ok()
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        mode,
        Some(Some(0o600)),
        "the temporary file's mode as it was written"
    );
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(std::fs::read_to_string(&file).unwrap().contains("effects:"));
}

#[cfg(unix)]
#[test]
fn owner_and_group_are_kept_when_root_writes() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let case = common::Case::new().with("c.s1.yaml", format!("- actionId: list_users\n  {G}\n"));
    let file = case.catalog.join("bad/c.s1.yaml");
    if std::os::unix::fs::chown(&file, Some(65534), Some(65534)).is_err() {
        eprintln!("skipped: not root, so no other owner to keep");
        return;
    }
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = case.backfill(&["--write", "--allow-dirty"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let m = std::fs::metadata(&file).unwrap();
    assert_eq!((m.uid(), m.gid(), m.mode() & 0o777), (65534, 65534, 0o640));
    assert!(std::fs::read_to_string(&file).unwrap().contains("effects:"));
}

#[cfg(unix)]
#[test]
fn an_owner_that_cannot_be_kept_is_not_given_away() {
    use std::os::unix::fs::PermissionsExt;
    let Some((prefix, Some(uid))) = common::unprivileged() else {
        eprintln!("skipped: needs root to make a file another user may write but not own");
        return;
    };
    // A file of root's that `nobody` may write, in a folder `nobody` may write: replacing
    // it by rename would hand it to `nobody`.
    let case = common::Case::new().with("c.s1.yaml", format!("- actionId: list_users\n  {G}\n"));
    let file = case.catalog.join("bad/c.s1.yaml");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o666)).unwrap();
    common::open_to(&case, Some(uid), &[&case.catalog.join("good")]);
    std::os::unix::fs::chown(case.catalog.join("bad"), Some(uid), Some(uid)).unwrap();
    let before = std::fs::read(&file).unwrap();
    let out = common::run_as(&prefix, &case, &["--write", "--allow-dirty"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("bad/c.s1.yaml: cannot keep its owner and group"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(common::names_in(&case.catalog.join("bad")), ["c.s1.yaml"]);
}

#[cfg(unix)]
#[test]
fn a_file_with_other_hard_links_is_refused() {
    let case = common::Case::new().with("c.s1.yaml", format!("- actionId: list_users\n  {G}\n"));
    let file = case.catalog.join("bad/c.s1.yaml");
    let other = case.root().join("elsewhere.yaml");
    std::fs::hard_link(&file, &other).unwrap();
    let before = std::fs::read(&file).unwrap();
    let out = case.backfill(&["--write", "--allow-dirty"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("bad/c.s1.yaml: has 1 other hard link(s)"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(std::fs::read(&other).unwrap(), before);
    common::assert_good_written(&case.catalog);
}

#[test]
fn a_file_name_of_240_bytes_is_written() {
    let name = format!("{}.s1.yaml", "n".repeat(240 - ".s1.yaml".len()));
    let case = common::Case::new().with(&name, format!("- actionId: list_users\n  {G}\n"));
    let out = case.backfill(&["--write", "--allow-dirty"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        std::fs::read_to_string(case.catalog.join("bad").join(&name))
            .unwrap()
            .contains("effects:")
    );
}

// --- 9, 10, 14. arguments checked before anything runs --------------------------------

#[test]
fn overlapping_catalogs_are_walked_once() {
    let case = common::Case::new().with("c.s1.yaml", format!("- actionId: list_users\n  {G}\n"));
    common::git_init(case.root());
    let out = run_backfill(
        &[
            std::path::Path::new("."),
            std::path::Path::new("bad"),
            std::path::Path::new("./"),
        ],
        &case.out,
        &case.catalog,
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("warning: bad: inside catalog ., walked once"),
        "{}",
        out.stderr
    );
    assert_eq!(out.csv.matches(",list_users,").count(), 1, "{}", out.csv);
    assert_eq!(out.patch.matches("diff --git").count(), 2, "{}", out.patch);
    git_apply(case.root(), &case.out.join("effects.patch"), true).unwrap();
}

#[test]
fn outputs_over_a_catalog_file_or_each_other_are_refused() {
    let case = common::Case::new().with("c.s1.yaml", format!("- actionId: list_users\n  {G}\n"));
    let before = common::read_tree(&case.catalog);
    let run = |args: &[&str]| {
        let mut all = vec!["backfill", case.catalog.to_str().unwrap()];
        all.extend(args);
        common::run_in(case.root(), &all)
    };
    let good = case.catalog.join("good/good.connector.s1.yaml");
    let new_one = case.catalog.join("bad/new.s1.yaml");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--report".into(), "catalog/bad/c.s1.yaml".into()],
            "--report would write over a connector file of the catalog",
        ),
        (
            vec![
                "--write".into(),
                "--allow-dirty".into(),
                "--patch".into(),
                good.display().to_string(),
            ],
            "--patch would write over a connector file",
        ),
        (
            vec!["--report".into(), new_one.display().to_string()],
            "--report would write over a connector file",
        ),
        (
            vec![
                "--patch".into(),
                "out/x".into(),
                "--report".into(),
                "out/./x".into(),
            ],
            "--patch and --report are the same file",
        ),
        (
            vec![
                "--patch".into(),
                "out/p".into(),
                "--report".into(),
                "out/r".into(),
                "--html".into(),
                "out/../out/p".into(),
            ],
            "--patch and --html are the same file",
        ),
    ];
    for (args, message) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(&args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(message), "{args:?}: {}", r.stderr);
        assert_eq!(
            common::read_tree(&case.catalog),
            before,
            "{args:?}: nothing written"
        );
    }
    // Not regular files: one pipe or device may take every output.
    let r = run(&["--patch", "/dev/null", "--report", "/dev/null"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn jobs_beyond_the_cores_are_lowered() {
    let case = common::Case::new();
    let out = case.backfill(&["--jobs", "20000"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    common::assert_good_processed(&out);
}

// --- 11. output errors are errors ---------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_failed_write_to_stdout_exits_2_with_a_message() {
    let case = common::Case::new();
    let catalog = case.catalog.to_str().unwrap();
    let report = case.out.join("c.csv");
    let report = report.to_str().unwrap();
    for args in [
        vec!["check", catalog, "--format", "sarif", "--report", report],
        vec!["check", catalog, "--report", report],
        vec!["annotations", catalog],
        vec!["backfill", catalog, "--patch", "-", "--report", report],
    ] {
        let o = std::process::Command::new(common::bin())
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("No space left on device"),
            "{args:?}: {stderr}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_stops_output_quietly_and_the_code_still_reports_findings() {
    let case = common::Case::new();
    let report = case.out.join("c.csv");
    // `check` with findings (the good action declares no effects) into a reader that has
    // gone: exit 1 as under `set -o pipefail`, and no message.
    let mut child = std::process::Command::new(common::bin())
        .arg("check")
        .arg(&case.catalog)
        .arg("--report")
        .arg(&report)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert!(
        std::fs::read_to_string(&report)
            .unwrap()
            .contains("list_goods")
    );
}

/// Runs `args` in `case`, where one output is `/dev/full`: the run fails (exit 2) naming it,
/// and what it prints on stdout is returned.
fn run_with_a_full_output(case: &common::Case, args: &[&str]) -> String {
    let common::Run {
        code,
        stdout,
        stderr,
    } = common::run_in(case.root(), args);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("error: /dev/full: cannot write: No space left on device"),
        "{stderr}"
    );
    stdout
}

#[test]
fn a_patch_that_cannot_be_written_still_leaves_the_summary() {
    let case = common::Case::new();
    let report = case.out.join("c.csv");
    let catalog = case.catalog.to_str().unwrap();
    let args = [
        "backfill",
        catalog,
        "--write",
        "--allow-dirty",
        "--patch",
        "/dev/full",
        "--report",
        report.to_str().unwrap(),
    ];
    let stdout = run_with_a_full_output(&case, &args);
    assert!(stdout.contains("files written: 1, failed: 0"), "{stdout}");
    common::assert_good_written(&case.catalog);
}

#[test]
fn a_report_that_cannot_be_written_still_leaves_checks_findings() {
    let case = common::Case::new();
    let catalog = case.catalog.to_str().unwrap();
    let stdout = run_with_a_full_output(&case, &["check", catalog, "--report", "/dev/full"]);
    assert!(stdout.contains("[missing-effects]"), "{stdout}");
    assert!(stdout.contains("check: "), "{stdout}");
}

// --- 12. check --since ------------------------------------------------------------------

#[test]
fn check_since_finds_a_main_file_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    // The main file is not named `*.connector.s1.yaml`: only its `info.key` says it is.
    write_file(
        &catalog,
        "hr/hr_v2.s1.yaml",
        &format!("info:\n  key: acme_hr\nactions:\n  - actionId: get_user\n    {G}\n"),
    );
    write_file(
        &catalog,
        "hr/hr.users.s1.partial.yaml",
        &format!("- actionId: list_users\n  {G}\n"),
    );
    common::git_init(dir.path());
    let full = common::run_in(dir.path(), &["check", "catalog", "--report", "base.csv"]);
    assert_eq!(full.code, 1, "{}", full.stderr);
    let partial = dir.path().join("catalog/hr/hr.users.s1.partial.yaml");
    let mut text = std::fs::read_to_string(&partial).unwrap();
    text.push_str("# touched\n");
    std::fs::write(&partial, text).unwrap();
    let since = common::run_in(
        dir.path(),
        &[
            "check",
            "catalog",
            "--since",
            "HEAD",
            "--baseline",
            "base.csv",
            "--report",
            "now.csv",
        ],
    );
    assert!(
        !since.stderr.contains("partial has no main file"),
        "{}",
        since.stderr
    );
    assert!(!since.stdout.contains("[new]"), "{}", since.stdout);
    let csv = std::fs::read_to_string(dir.path().join("now.csv")).unwrap();
    assert!(csv.contains("acme_hr,hr/hr.users.s1.partial.yaml"), "{csv}");
}

// --- 14. a FIFO among the heuristics ------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_fifo_among_the_heuristics_is_an_error_not_a_hang() {
    let case = common::Case::new();
    let h = case.root().join("h");
    std::fs::create_dir_all(&h).unwrap();
    let fifo = h.join("rules.yaml");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut child = std::process::Command::new(common::bin())
        .arg("backfill")
        .arg(&case.catalog)
        .arg("--heuristics")
        .arg(&h)
        .arg("--patch")
        .arg(case.out.join("p"))
        .arg("--report")
        .arg(case.out.join("r"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A hang is the failure: give it ample time, then stop it.
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("rules.yaml: not a regular file"),
        "{stderr}"
    );
}

// --- --fix-conflicts: a settled doubt, and the same rows however a catalog is split ----

/// The actions of one connector: plain reads, writes and deletes, a declared conflict, and
/// `sync_*` over GET declared `[execute]` (a doubt the declaration settles: it agrees).
fn split_actions() -> Vec<String> {
    let mut all = Vec::new();
    for (i, noun) in ["users", "teams", "roles", "groups", "tags", "notes"]
        .iter()
        .enumerate()
    {
        all.push(common::action(
            &format!("list_{noun}"),
            &format!("List {noun}"),
            &format!("Lists the {noun}."),
            "get",
            &format!("/{noun}"),
            "",
        ));
        all.push(common::action(
            &format!("create_{noun}"),
            &format!("Create {noun}"),
            &format!("Creates one of the {noun}."),
            "post",
            &format!("/{noun}"),
            "",
        ));
        all.push(common::action(
            &format!("delete_{noun}"),
            &format!("Delete {noun}"),
            &format!("Deletes one of the {noun}."),
            "delete",
            &format!("/{noun}/{{id}}"),
            // One declared conflict, for --fix-conflicts to rewrite.
            if i == 0 { "  effects: [read]\n" } else { "" },
        ));
        all.push(common::action(
            &format!("sync_{noun}"),
            &format!("Sync {noun}"),
            &format!("Starts a synchronisation of the {noun} (exposed as GET)."),
            "get",
            &format!("/{noun}/sync"),
            "  effects: [execute]\n",
        ));
    }
    all
}

/// The CSV rows of `backfill --fix-conflicts` on the actions split into `files` partials,
/// without the file and line columns; and the run's output.
fn split_rows(actions: &[String], files: usize) -> (Vec<String>, common::Output) {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    let per = actions.len().div_ceil(files);
    let mut main = common::main_file("acme");
    main.push_str("actions:\n");
    for (k, chunk) in actions.chunks(per).enumerate() {
        main.push_str(&format!("  $ref: acme.p{k}\n"));
        write_file(
            &catalog,
            &format!("acme/acme.p{k}.s1.partial.yaml"),
            &chunk.concat(),
        );
    }
    write_file(&catalog, "acme/acme.connector.s1.yaml", &main);
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let out = run_backfill(
        &[&catalog],
        &dir.path().join("out"),
        dir.path(),
        &["--fix-conflicts"],
    );
    let mut rows: Vec<String> = out
        .rows()
        .into_iter()
        .map(|r| [&r[..1], &r[3..]].concat().join(","))
        .collect();
    rows.sort();
    (rows, out)
}

#[test]
fn fix_conflicts_keeps_a_settled_doubt_and_gives_the_same_rows_however_split() {
    let actions = split_actions();
    let (whole, out) = split_rows(&actions, 1);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("error"), "{}", out.stderr);
    assert_eq!(out.status_of("sync_users"), "agrees");
    assert_eq!(out.status_of("list_users"), "added");
    assert_eq!(out.status_of("delete_users"), "conflict");
    assert!(
        out.patch.contains("-  effects: [read]") && out.patch.contains("+  effects: [delete]"),
        "the conflict is rewritten:\n{}",
        out.patch
    );
    for files in [2, 5, actions.len()] {
        let (split, out) = split_rows(&actions, files);
        assert_eq!(out.code, 0, "{files} files: {}", out.stderr);
        assert_eq!(split, whole, "{files} files give other rows");
    }
}

// --- a generic tool that runs any query or mutation -----------------------------------

#[test]
fn a_tool_that_runs_any_query_or_mutation_is_no_search() {
    let dir = tempfile::tempdir().unwrap();
    // Named and shaped as a search (`query` in the name, one `query` input): only the
    // description says it also changes data.
    let tools = r#"{"tools":[{"name":"graphql_query","description":"Send any GraphQL query or mutation to the API.","inputSchema":{"type":"object","properties":{"query":{"type":"string"},"variables":{"type":"object"}},"required":["query"]},"annotations":{"readOnlyHint":true}},
{"name":"search_issues","description":"Searches issues by text.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}},"annotations":{"readOnlyHint":true}}]}"#;
    std::fs::write(dir.path().join("tools.json"), tools).unwrap();
    let run = common::run_in(
        dir.path(),
        &[
            "audit",
            "tools.json",
            "--format",
            "json",
            "--min-confidence",
            "low",
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stderr);
    let row = |name: &str| {
        json["tools"]
            .as_array()
            .and_then(|t| t.iter().find(|r| r["tool_name"] == name).cloned())
            .unwrap_or_else(|| panic!("no row for {name} in {}", run.stdout))
    };
    let gql = row("graphql_query");
    assert_ne!(gql["verdict"], "agrees", "{gql}");
    assert_eq!(gql["inferred_read_only"], false, "{gql}");
    assert_eq!(
        gql["inferred_effects"],
        serde_json::json!(["execute"]),
        "{gql}"
    );
    assert_eq!(row("search_issues")["verdict"], "agrees");

    let action = common::action(
        "graphql_query",
        "GraphQL query",
        "Runs any GraphQL query or mutation against the API.",
        "post",
        "/graphql",
        "  inputs:\n    - name: query\n      type: string\n      in: body\n      required: true\n",
    );
    let catalog = common::acme_catalog(dir.path(), "catalog", &[action]);
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let out = run_backfill(&[&catalog], &dir.path().join("out"), dir.path(), &[]);
    let rows = out.rows();
    let r = rows.iter().find(|r| r[3] == "graphql_query").unwrap();
    assert_eq!(r[9], "execute", "{}", out.csv);
    assert_eq!(r[13], "false", "not read-only: {}", out.csv);
}

// --- a scope list with an item that is no string -------------------------------------

#[test]
fn a_scope_item_that_is_no_string_is_named_and_the_scopes_say_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = common::acme_catalog(
        dir.path(),
        "catalog",
        &[
            common::action(
                "employee_records",
                "Employee records",
                "Employee records.",
                "post",
                "/employees/records",
                "  requiredScopes: [employees:read, {employees: write}]\n",
            ),
            common::action(
                "employee_docs",
                "Employee docs",
                "Employee docs.",
                "post",
                "/employees/docs",
                "  requiredScopes: [employees:read]\n",
            ),
        ],
    );
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let out = run_backfill(&[&catalog], &dir.path().join("out"), dir.path(), &[]);
    assert!(
        out.stderr.contains(
            "catalog/acme/acme.users.s1.partial.yaml:3:36: requiredScopes item is not a string"
        ),
        "{}",
        out.stderr
    );
    let rules = |id: &str| {
        out.rows()
            .into_iter()
            .find(|r| r[3] == id)
            .map(|r| r[12].clone())
            .unwrap()
    };
    assert_eq!(rules("employee_docs"), "scopes-read-only", "{}", out.csv);
    assert!(!rules("employee_records").contains("scopes"), "{}", out.csv);
    assert_ne!(out.status_of("employee_records"), "added", "{}", out.csv);
}

// --- lint: a claim beside a change its path names, a summary, suggestions, ids -----------

#[test]
fn lint_reads_a_path_verb_a_summary_an_id_and_suggests_plain_sentences() {
    let dir = tempfile::tempdir().unwrap();
    let claim = "Read-only tool that recalculates and returns the invoice status.";
    common::acme_catalog(
        dir.path(),
        "catalog",
        &[
            // `get` in the name and the read-only claim hold the proposal low: the path's
            // verb still contradicts the claim.
            common::action(
                "get_invoice_status",
                "Get invoice status",
                claim,
                "post",
                "/invoices/${inputs.id}/recalculate",
                "",
            ),
            common::action(
                "list_invoices",
                "List invoices",
                "Lists invoices.",
                "get",
                "/invoices",
                "",
            ),
        ],
    );
    let doc = r#"openapi: 3.0.0
info: {title: Notebooks, version: 1.0.0}
paths:
  /api/contents/{path}/checkpoints/{checkpoint_id}:
    post:
      summary: Restore a file to a checkpointed state
      parameters:
        - {name: path, in: path, required: true, schema: {type: string}}
        - {name: checkpoint_id, in: path, required: true, schema: {type: string}}
      responses: {"204": {description: ok}}
    delete:
      parameters:
        - {name: path, in: path, required: true, schema: {type: string}}
        - {name: checkpoint_id, in: path, required: true, schema: {type: string}}
      responses: {"204": {description: ok}}
  /sites/{site_id}/deploys:
    post:
      operationId: createSiteDeploy
      description: Creates a deploy of the site in Notebooks, which cannot be undone.
      parameters:
        - {name: site_id, in: path, required: true, description: "The site id; the production site by default", schema: {type: string}}
      responses: {"200": {description: ok}}
"#;
    write_file(&dir.path().join("catalog"), "docs/openapi.yaml", doc);
    let tools = r#"{"tools":[{"name":"sandbox_terminate","description":"Shuts down a sandbox for good; it cannot be undone.","annotations":{"destructiveHint":true}}]}"#;
    std::fs::write(dir.path().join("tools.json"), tools).unwrap();
    let run = common::run_in(dir.path(), &["lint", "catalog"]);
    let out = &run.stdout;
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.iter().any(|l| l.starts_with(
            "catalog/acme/acme.users.s1.partial.yaml:1:3: error [read-only-claim-contradicted]"
        ) && l.contains("recalculate")),
        "{out}"
    );
    // The summary carries the text; the DELETE without one is the only empty description.
    let empty: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains("[empty-description]"))
        .collect();
    assert_eq!(empty.len(), 1, "{out}");
    assert!(
        empty[0].starts_with("catalog/docs/openapi.yaml:11:5:")
            && empty[0].contains("e.g. \"Deletes the checkpoints in Notebooks.\""),
        "{out}"
    );
    assert!(!out.contains("freeform-environment"), "{out}");
    let run = common::run_in(dir.path(), &["lint", "--tools", "tools.json"]);
    assert!(
        run.stdout.contains(
            "Ask the user to confirm the sandbox and the account it is in before calling."
        ),
        "{}",
        run.stdout
    );
}

// --- annotations: a `<<` merge, a quoted boolean ----------------------------------------

#[test]
fn annotations_read_a_merge_and_refuse_a_quoted_boolean() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    let mut main = common::main_file("acme");
    main.push_str("x-hints: &ro\n  readOnlyHint: true\n  openWorldHint: true\nactions:\n");
    let merged = common::action(
        "list_users",
        "List users",
        "Lists the users of the Acme directory.",
        "get",
        "/users",
        "  annotations:\n    <<: *ro\n    title: List users\n",
    );
    let quoted = common::action(
        "list_teams",
        "List teams",
        "Lists the teams of the Acme directory.",
        "get",
        "/teams",
        "  annotations:\n    readOnlyHint: \"true\"\n",
    );
    for item in [merged, quoted] {
        for line in item.lines() {
            main.push_str(&format!("  {line}\n"));
        }
    }
    write_file(&catalog, "acme/acme.connector.s1.yaml", &main);
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let out = run_backfill(
        &[&catalog],
        &dir.path().join("out"),
        dir.path(),
        &["--migrate-hints"],
    );
    assert!(!out.stderr.contains("unknown key"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("`list_users`: redundant hints not removed: its annotations merge (`<<`)"),
        "{}",
        out.stderr
    );
    let quoted_line = main.lines().position(|l| l.contains("\"true\"")).unwrap() + 1;
    assert!(
        out.stderr.contains(&format!(
            "catalog/acme/acme.connector.s1.yaml:{quoted_line}:21: annotations.readOnlyHint must be true or false"
        )),
        "{}",
        out.stderr
    );
    assert!(!out.patch.contains("-      readOnlyHint"), "{}", out.patch);
}

#[test]
fn migrate_hints_removing_a_last_block_adds_no_final_newline() {
    let file = format!(
        "{}actions:\n  - actionId: list_users\n    {G}\n    annotations:\n      readOnlyHint: true",
        common::main_file("acme")
    );
    let r = Routes::run(&[("c/c.s1.yaml", &file)], &["--migrate-hints"]);
    assert_eq!(r.patch.code, 0, "{}", r.patch.stderr);
    let after = text(r.agree(), "c/c.s1.yaml");
    assert!(
        after.ends_with(&format!("    effects:\n      - read\n    {G}")),
        "{after:?}"
    );
}

#[test]
fn a_ref_that_leaves_the_connectors_folder_is_refused_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    let mut main = common::main_file("acme");
    main.push_str("actions:\n  $ref: ../../../../../../../../etc/passwd\n  $ref: /etc/hostname\n  $ref: acme.users\n");
    write_file(&catalog, "acme/acme.connector.s1.yaml", &main);
    write_file(
        &catalog,
        "acme/acme.users.s1.partial.yaml",
        &common::action(
            "list_users",
            "List users",
            "Lists users.",
            "get",
            "/users",
            "",
        ),
    );
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let out = run_backfill(&[&catalog], &dir.path().join("out"), dir.path(), &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    let at = main.lines().count() - 2;
    for (line, name) in [
        (at, "../../../../../../../../etc/passwd"),
        (at + 1, "/etc/hostname"),
    ] {
        assert!(
            out.stderr.contains(&format!(
                "catalog/acme/acme.connector.s1.yaml:{line}:9: `$ref: {name}` leaves the connector's folder"
            )),
            "{}",
            out.stderr
        );
    }
    assert_eq!(out.status_of("list_users"), "added");
}

#[test]
fn the_list_for_a_human_names_an_action_with_no_proposal() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = common::acme_catalog(
        dir.path(),
        "catalog",
        &[
            // No HTTP call, no verb: nothing to propose.
            "- actionId: legacy_bridge\n  label: Legacy Bridge\n  description: Bridge for legacy integrations.\n  steps:\n    - stepId: bridge\n      stepFunction:\n        functionName: map_fields\n\n".to_owned(),
            common::action("list_users", "List users", "Lists users.", "get", "/users", ""),
        ],
    );
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let out = run_backfill(&[&catalog], &dir.path().join("out"), dir.path(), &[]);
    assert_eq!(
        out.status_of("legacy_bridge"),
        "unclassified",
        "{}",
        out.csv
    );
    assert!(
        out.stdout
            .contains("listed for a human instead of patched (1):\n")
            && out.stdout.contains("acme_legacy_bridge  no proposal: "),
        "{}",
        out.stdout
    );
}

#[test]
fn fix_conflicts_leaves_an_effects_item_another_action_aliases_and_says_why() {
    let post = G.replace("method: get", "method: post");
    let file = format!(
        "- actionId: list_users\n  effects:\n    - &w write\n  {G}\n- actionId: create_team\n  effects: [*w]\n  {post}\n"
    );
    let r = Routes::run(&[("c/c.s1.yaml", &file)], &["--fix-conflicts"]);
    assert_eq!(r.patch.code, 0, "{}", r.patch.stderr);
    assert_eq!(text(r.agree(), "c/c.s1.yaml"), file, "left as it was");
    assert!(
        r.patch.stderr.contains(
            "warning: repo/catalog/c/c.s1.yaml:1:3: `list_users` not rewritten: an item of its effects list is anchored (`&name`) and used elsewhere through an alias"
        ),
        "{}",
        r.patch.stderr
    );
    assert_eq!(r.patch.status_of("list_users"), "conflict");
}

#[test]
fn an_operation_named_twice_in_a_query_or_fragment_is_the_last() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = common::acme_catalog(
        dir.path(),
        "catalog",
        &[
            common::action(
                "widgets",
                "Widgets",
                "Widgets.",
                "post",
                "/api?Action=ListWidgets&Action=DeleteWidget",
                "",
            ),
            common::action(
                "gadgets",
                "Gadgets",
                "Gadgets.",
                "post",
                "/#Action=DeleteGadget&Action=ListGadgets",
                "",
            ),
        ],
    );
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let out = run_backfill(
        &[&catalog],
        &dir.path().join("out"),
        dir.path(),
        &["--min-confidence", "low"],
    );
    let inferred = |id: &str| {
        out.rows()
            .into_iter()
            .find(|r| r[3] == id)
            .map(|r| r[9].clone())
            .unwrap()
    };
    assert_eq!(inferred("widgets"), "delete", "{}", out.csv);
    assert_eq!(inferred("gadgets"), "read", "{}", out.csv);
}

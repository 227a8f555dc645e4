//! catalog-effects in CI: one regression test per problem a team met running it there, each
//! failing on the code before its fix and passing after. Catalogs are built here from actions whose
//! effects nobody could doubt (a GET that lists, a DELETE that deletes), so the verdicts do
//! not hang on borderline inference.

mod common;

use std::path::{Path, PathBuf};

use common::{
    ACME_MAIN, git_init, git_ok, http_action as action, run_in as run, write_file as write,
};

const PARTIAL: &str = "acme/acme.users.s1.partial.yaml";

/// `root/<name>`: the acme connector with a listing that declares its effects and a create
/// that does not (one `missing-effects` finding), plus `extra` actions.
fn catalog(root: &Path, name: &str, extra: &[String]) -> PathBuf {
    let dir = root.join(name);
    write(&dir, "acme/acme.connector.s1.yaml", ACME_MAIN);
    let mut text = action("list_users", "get", "/users", Some("read"));
    text.push_str(&action("create_user", "post", "/users", None));
    text.push_str(&extra.concat());
    write(&dir, PARTIAL, &text);
    dir
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lines_with<'a>(text: &'a str, part: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(part)).collect()
}

// ---- 1. `check` overwrote its own baseline --------------------------------------------------

#[test]
fn a_check_never_rewrites_the_baseline_it_compares_with() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = catalog(tmp.path(), "cat", &[]);
    let base = tmp.path().join("reports/coverage.csv");
    // A report of today: README's baseline (before, `--report` defaulted to this very path).
    let first = run(
        tmp.path(),
        &["check", "cat", "--report", "reports/coverage.csv"],
    );
    assert_eq!(first.code, 1, "{}", first.stderr);
    let kept = read(&base);
    common::append(
        &cat.join(PARTIAL),
        &action("delete_group", "delete", "/groups/:id", None),
    );
    for night in 1..=2 {
        let r = run(
            tmp.path(),
            &[
                "check",
                "cat",
                "--baseline",
                "reports/coverage.csv",
                "--fail-on",
                "new",
            ],
        );
        assert_eq!(r.code, 1, "night {night}: {}{}", r.stdout, r.stderr);
        let new = lines_with(&r.stdout, "[new]");
        assert_eq!(new.len(), 1, "night {night}: {}", r.stdout);
        assert!(new[0].contains("`delete_group`"), "{}", new[0]);
        assert_eq!(read(&base), kept, "night {night} rewrote the baseline");
    }
}

#[test]
fn writing_a_baseline_is_explicit_and_refused_on_a_partial_run() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path(), "cat", &[]);
    git_init(tmp.path());
    let base = tmp.path().join("b.csv");
    let partial = run(
        tmp.path(),
        &[
            "check",
            "cat",
            "--since",
            "HEAD",
            "--write-baseline",
            "b.csv",
        ],
    );
    assert_eq!(partial.code, 2, "{}", partial.stdout);
    assert!(
        partial
            .stderr
            .contains("--write-baseline is refused on a --since run"),
        "{}",
        partial.stderr
    );
    assert!(!base.exists());
    // The full run writes it and exits 0: its findings are accepted.
    let write = run(tmp.path(), &["check", "cat", "--write-baseline", "b.csv"]);
    assert_eq!(write.code, 0, "{}{}", write.stdout, write.stderr);
    assert!(
        write
            .stdout
            .contains("; baseline written to b.csv: its findings are accepted\n"),
        "{}",
        write.stdout
    );
    let again = run(
        tmp.path(),
        &["check", "cat", "--baseline", "b.csv", "--fail-on", "new"],
    );
    assert_eq!(again.code, 0, "{}{}", again.stdout, again.stderr);
    // A run that could not read a file leaves the old baseline as it was.
    let kept = read(&base);
    write_broken(&tmp.path().join("cat"));
    let broken = run(tmp.path(), &["check", "cat", "--write-baseline", "b.csv"]);
    assert_eq!(broken.code, 2, "{}", broken.stdout);
    assert!(
        broken.stderr.contains("baseline not written"),
        "{}",
        broken.stderr
    );
    assert_eq!(read(&base), kept);
}

/// A connector file that is not YAML, beside the acme connector.
fn write_broken(cat: &Path) {
    write(cat, "broken/broken.connector.s1.yaml", "actions: [\n");
}

#[test]
fn a_finding_keeps_its_identity_when_lines_move() {
    let tmp = tempfile::tempdir().unwrap();
    // A duplicate id (the report lists both rows) and a missing declaration.
    let dup = action("list_users", "get", "/people", Some("read"));
    let cat = catalog(tmp.path(), "cat", &[dup]);
    // Any report is a baseline (`--write-baseline` writes the same file).
    let baseline = run(tmp.path(), &["check", "cat", "--report", "b.csv"]);
    assert!(tmp.path().join("b.csv").is_file(), "{}", baseline.stderr);
    let sarif = |tmp: &Path| {
        let r = run(
            tmp,
            &["check", "cat", "--baseline", "b.csv", "--format", "sarif"],
        );
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let mut prints: Vec<String> = v["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["partialFingerprints"].to_string())
            .collect();
        prints.sort();
        prints
    };
    let before = sarif(tmp.path());
    assert_eq!(before.len(), 2, "{before:?}");
    // Lines move: comments on top, and the actions in another order.
    let path = cat.join(PARTIAL);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut actions: Vec<String> = text
        .split("- actionId: ")
        .filter(|a| !a.is_empty())
        .map(|a| format!("- actionId: {a}"))
        .collect();
    actions.rotate_left(1);
    std::fs::write(&path, format!("# moved\n# around\n{}", actions.concat())).unwrap();
    let r = run(
        tmp.path(),
        &["check", "cat", "--baseline", "b.csv", "--fail-on", "new"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("; 0 new, 2 in the baseline, 0 actions gone;"),
        "{}",
        r.stdout
    );
    assert_eq!(sarif(tmp.path()), before);
}

// ---- 2. a check that finds nothing to check passed ------------------------------------------

#[test]
fn a_catalog_with_nothing_to_check_fails_closed() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    write(tmp.path(), "renamed/README.md", "connectors moved\n");
    write(tmp.path(), "file.txt", "not a folder\n");
    for (path, why) in [
        (
            "empty",
            "no connector files (*.s1.yaml, *.s1.partial.yaml) or OpenAPI documents",
        ),
        ("renamed", "no connector files"),
        ("file.txt", "catalog is not a directory"),
        ("gone", "catalog not found"),
    ] {
        for args in [
            &["check", path, "--report", "out/c.csv"][..],
            &[
                "backfill",
                path,
                "--report",
                "out/c.csv",
                "--patch",
                "out/p",
            ],
            &["lint", path],
            &["annotations", path, "-o", "out/a.json"],
        ] {
            let command = args[0];
            let r = run(tmp.path(), args);
            assert_eq!(r.code, 2, "{command} {path}: {}{}", r.stdout, r.stderr);
            assert!(
                r.stderr.contains(&format!("error: {path}: {why}")),
                "{command} {path}: {}",
                r.stderr
            );
            assert_eq!(r.stdout, "", "{command} {path}");
            assert!(!tmp.path().join("out").exists(), "{command} {path} wrote");
        }
    }
}

// ---- 3. a failed run destroyed the last good output -----------------------------------------

#[test]
fn a_failed_run_leaves_every_previous_output_byte_for_byte() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path(), "cat", &[]);
    let outputs = [
        "--patch",
        "out/effects.patch",
        "--report",
        "out/coverage.csv",
        "--history",
        "out/history.csv",
        "--html",
        "out/coverage.html",
    ];
    let good = run(tmp.path(), &[&["backfill", "cat"], &outputs[..]].concat());
    assert_eq!(good.code, 0, "{}", good.stderr);
    let files = [
        "out/effects.patch",
        "out/coverage.csv",
        "out/history.csv",
        "out/coverage.html",
    ];
    let before: Vec<Vec<u8>> = files.iter().map(|f| read(&tmp.path().join(f))).collect();
    assert!(before[0].len() > 100 && before[1].len() > 200);
    // A typo in the catalog's name (`backfill demoo`), and a check over an empty folder.
    std::fs::create_dir(tmp.path().join("empty")).unwrap();
    let typo = run(tmp.path(), &[&["backfill", "caat"], &outputs[..]].concat());
    assert_eq!(typo.code, 2, "{}", typo.stdout);
    let empty = run(tmp.path(), &[&["check", "empty"], &outputs[2..]].concat());
    assert_eq!(empty.code, 2, "{}", empty.stdout);
    let after: Vec<Vec<u8>> = files.iter().map(|f| read(&tmp.path().join(f))).collect();
    assert!(before == after, "an output changed");
    let left: Vec<String> = std::fs::read_dir(tmp.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left.len(), files.len(), "{left:?}");
}

// ---- 4. GitHub annotations and SARIF on pull requests ---------------------------------------

/// A git repository `repo` holding `connectors/` (the acme catalog) and its baseline, with
/// a new action without effects added since.
fn pull_request() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let cat = catalog(&repo, "connectors", &[]);
    git_init(&repo);
    let b = run(
        &repo,
        &["check", "connectors", "--report", "reports/baseline.csv"],
    );
    assert_eq!(b.code, 1, "{}", b.stderr);
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-q", "-m", "baseline"]);
    common::append(
        &cat.join(PARTIAL),
        &action("delete_group", "delete", "/groups/:id", None),
    );
    (tmp, repo)
}

const PR: [&str; 8] = [
    "check",
    "connectors",
    "--since",
    "HEAD",
    "--baseline",
    "reports/baseline.csv",
    "--fail-on",
    "new",
];

#[test]
fn github_annotations_on_a_pull_request_are_the_new_findings_and_a_totals_line() {
    let (_tmp, repo) = pull_request();
    let r = run(&repo, &[&PR[..], &["--format", "github"]].concat());
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(
        lines[0].starts_with(&format!(
            "::error file=connectors/{PARTIAL},line=22,col=3,title=missing-effects (new)::`delete_group`"
        )),
        "{}",
        r.stdout
    );
    assert_eq!(
        lines[1],
        "::notice title=catalog-effects::check: 0 errors, 2 warnings; 1 new, 1 in the baseline, 0 actions gone; 1 failing (--fail-on new)"
    );
    // Nothing points outside the user's files (the built-in rules are not theirs).
    assert!(!r.stdout.contains("heuristics/"), "{}", r.stdout);
    let full = run(&repo, &["check", "connectors", "--format", "github"]);
    assert!(!full.stdout.contains("heuristics/"), "{}", full.stdout);
}

#[test]
fn sarif_has_stable_fingerprints_and_baseline_states() {
    let (_tmp, repo) = pull_request();
    let r = run(&repo, &[&PR[..], &["--format", "sarif"]].concat());
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let state = |id: &str| {
        let r = results
            .iter()
            .find(|r| r["message"]["text"].as_str().unwrap().contains(id))
            .unwrap_or_else(|| panic!("no {id}"));
        (
            r["baselineState"].as_str().unwrap().to_owned(),
            r["partialFingerprints"]["catalogEffectsIdentity/v1"]
                .as_str()
                .unwrap()
                .to_owned(),
        )
    };
    let (new, print) = state("`delete_group`");
    assert_eq!(new, "new");
    assert_eq!(state("`create_user`").0, "unchanged");
    // Once the action moves down, it is the same result.
    let path = repo.join("connectors").join(PARTIAL);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("# a comment\n\n{text}")).unwrap();
    let moved = run(&repo, &[&PR[..], &["--format", "sarif"]].concat());
    let v: serde_json::Value = serde_json::from_str(&moved.stdout).unwrap();
    let again = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .unwrap()
                .contains("`delete_group`")
        })
        .unwrap()["partialFingerprints"]["catalogEffectsIdentity/v1"]
        .clone();
    assert_eq!(again, print.as_str());
}

// ---- 5. severity, quiet, streams and exit codes ---------------------------------------------

#[test]
fn quiet_prints_the_totals_line_and_errors_only() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path(), "cat", &[]);
    write_broken(&tmp.path().join("cat"));
    for (args, totals) in [
        (
            &["check", "cat", "-q"][..],
            "check: 0 errors, 1 warning; 1 failing (--fail-on warning); 1 parse error\n",
        ),
        (
            &["lint", "cat", "-q"][..],
            "lint: 2 errors, 0 warnings; 2 failing (--fail-on error); 1 parse error\n",
        ),
        (
            &["backfill", "cat", "-q", "--patch", "p", "--report", "r"][..],
            "files: 2 read, 1 unreadable, 1 changed by the patch; warnings: 0, errors: 1\n",
        ),
    ] {
        let r = run(tmp.path(), args);
        assert_eq!(r.code, 2, "{args:?}");
        assert_eq!(r.stdout, totals, "{args:?}");
        let errors: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(errors.len(), 1, "{args:?}: {}", r.stderr);
        assert!(
            errors[0].starts_with("error: cat/broken/broken.connector.s1.yaml:2:1: invalid YAML"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

#[test]
fn errors_go_to_stderr_and_findings_to_stdout_in_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path(), "cat", &[]);
    write_broken(&tmp.path().join("cat"));
    let error = "error: cat/broken/broken.connector.s1.yaml:2:1: invalid YAML";
    for args in [
        &["check", "cat"][..],
        &["lint", "cat"],
        &["annotations", "cat"],
        &["backfill", "cat", "--patch", "p", "--report", "r"],
        &["explain", "cat", "list_users"],
    ] {
        let r = run(tmp.path(), args);
        assert!(r.stderr.contains(error), "{args:?}: {}", r.stderr);
        assert!(!r.stdout.contains("invalid YAML"), "{args:?}: {}", r.stdout);
    }
    let check = run(tmp.path(), &["check", "cat"]);
    assert!(
        check.stdout.contains("[missing-effects]"),
        "{}",
        check.stdout
    );
}

#[test]
fn the_summary_counts_a_file_that_could_not_be_written_as_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let cat = catalog(tmp.path(), "cat", &[]);
    write(
        &cat,
        "zeta/zeta.s1.yaml",
        &action("list_z", "get", "/z", None),
    );
    git_init(tmp.path());
    // An uncommitted change: `--write` must leave that file alone.
    common::append(&cat.join(PARTIAL), "# a local edit\n");
    let r = run(
        tmp.path(),
        &[
            "backfill", "cat", "--write", "--patch", "p", "--report", "r",
        ],
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("has uncommitted changes"), "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "files: 3 read, 2 changed by the patch; warnings: 0, errors: 1; files written: 1, failed: 1\n"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn lint_of_a_missing_path_prints_no_totals_of_a_lint_that_did_not_run() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(tmp.path(), &["lint", "/nope"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert_eq!(
        r.stderr,
        "error: /nope: catalog not found: No such file or directory (os error 2)\n"
    );
}

#[test]
fn invalid_declarations_warn_in_backfill_and_fail_check_at_one_severity() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = "- actionId: send_mail\n  effects: [sned]\n  steps:\n    - stepFunction: {functionName: request, parameters: {method: post, url: /mail}}\n";
    let cat = catalog(tmp.path(), "cat", &[]);
    write(&cat, "acme/acme.mail.s1.partial.yaml", bad);
    let b = run(
        tmp.path(),
        &["backfill", "cat", "--patch", "p", "--report", "r"],
    );
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert_eq!(
        b.stderr,
        "warning: cat/acme/acme.mail.s1.partial.yaml:1:3: `send_mail`: unknown effect(s): sned [invalid-effects]\n"
    );
    assert!(
        b.stdout
            .ends_with("files: 3 read, 1 changed by the patch; warnings: 1, errors: 0\n"),
        "{}",
        b.stdout
    );
    let c = run(tmp.path(), &["check", "cat"]);
    assert_eq!(c.code, 1, "{}", c.stderr);
    assert!(
        c.stdout.contains(
            "cat/acme/acme.mail.s1.partial.yaml:1:3: warning [invalid-effects]: `send_mail`: unknown effect(s): sned\n"
        ),
        "{}",
        c.stdout
    );
    let s = run(tmp.path(), &["check", "cat", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&s.stdout).unwrap();
    for r in v["runs"][0]["results"].as_array().unwrap() {
        assert_eq!(r["level"], "warning", "{r}");
    }
}

#[test]
fn fail_on_chooses_what_fails() {
    let tmp = tempfile::tempdir().unwrap();
    catalog(tmp.path(), "cat", &[]);
    let code = |fail_on: &str| run(tmp.path(), &["check", "cat", "--fail-on", fail_on]);
    // One warning (`create_user` declares no effects).
    assert_eq!(code("warning").code, 1);
    assert_eq!(run(tmp.path(), &["check", "cat"]).code, 1);
    assert_eq!(code("error").code, 0);
    let never = code("never");
    assert_eq!(never.code, 0);
    assert!(
        never
            .stdout
            .ends_with("check: 0 errors, 1 warning; 0 failing (--fail-on never)\n"),
        "{}",
        never.stdout
    );
    let new = code("new");
    assert_eq!(new.code, 2);
    assert!(
        new.stderr.contains("--fail-on new needs a baseline"),
        "{}",
        new.stderr
    );
}

// ---- 6. one path base -----------------------------------------------------------------------

#[test]
fn two_catalogs_print_distinct_paths_relative_to_the_current_directory() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["a", "b"] {
        catalog(tmp.path(), name, &[]);
        write_broken(&tmp.path().join(name));
    }
    let r = run(
        tmp.path(),
        &["backfill", "a", "b", "--patch", "p", "--report", "r"],
    );
    assert_eq!(r.code, 2);
    let errors = lines_with(&r.stderr, "invalid YAML");
    assert_eq!(errors.len(), 2, "{}", r.stderr);
    assert!(errors[0].starts_with("error: a/broken/broken.connector.s1.yaml:2:1"));
    assert!(errors[1].starts_with("error: b/broken/broken.connector.s1.yaml:2:1"));
    // A catalog given as an absolute path below the current directory is shown from it.
    let abs = tmp.path().join("a");
    let r = run(tmp.path(), &["check", abs.to_str().unwrap()]);
    assert!(
        r.stderr
            .contains("error: a/broken/broken.connector.s1.yaml:2:1"),
        "{}",
        r.stderr
    );
}

#[test]
fn human_paths_start_at_the_current_directory_ci_paths_at_the_repository_root() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    let cat = catalog(&repo, "connectors", &[]);
    git_init(&repo);
    let human = run(&cat, &["check", "."]);
    assert!(
        human
            .stdout
            .starts_with(&format!("{PARTIAL}:12:3: warning [missing-effects]")),
        "{}",
        human.stdout
    );
    let github = run(&cat, &["check", ".", "--format", "github"]);
    assert!(
        github
            .stdout
            .starts_with(&format!("::error file=connectors/{PARTIAL},line=12,col=3,")),
        "{}",
        github.stdout
    );
    let sarif = run(&cat, &["check", ".", "--format", "sarif"]);
    assert!(
        sarif
            .stdout
            .contains(&format!("\"uri\": \"connectors/{PARTIAL}\"")),
        "{}",
        sarif.stdout
    );
    let annotations = run(&cat, &["annotations", "."]);
    assert!(
        annotations
            .stdout
            .contains(&format!("\"catalog-effects/file\": \"{PARTIAL}\"")),
        "{}",
        annotations.stdout
    );
    // From the root, the same findings carry the catalog's folder.
    let from_root = run(&repo, &["check", "connectors"]);
    assert!(
        from_root
            .stdout
            .starts_with(&format!("connectors/{PARTIAL}:12:3: ")),
        "{}",
        from_root.stdout
    );
}

// ---- 7. a configuration file ----------------------------------------------------------------

#[test]
fn the_configuration_is_found_upward_and_flags_override_it() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    let cat = catalog(repo, "connectors", &[]);
    write(
        repo,
        "catalog-effects.toml",
        "# the team's options\ncatalogs = [\"connectors\"]\nbaseline = \"reports/b.csv\"\nreport = \"reports/coverage.csv\"\nfail-on = \"new\"\n",
    );
    let adopt = run(repo, &["check", "--write-baseline", "reports/b.csv"]);
    assert_eq!(adopt.code, 0, "{}{}", adopt.stdout, adopt.stderr);
    assert!(repo.join("reports/coverage.csv").is_file());
    common::append(
        &cat.join(PARTIAL),
        &action("delete_group", "delete", "/groups/:id", None),
    );
    // From a folder below: the catalogs, the baseline and fail-on come from the file, and
    // its paths are taken from its own folder.
    let sub = repo.join("connectors/acme");
    let r = run(&sub, &["check"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let new = lines_with(&r.stdout, "[new]");
    assert_eq!(new.len(), 1, "{}", r.stdout);
    assert!(
        new[0].starts_with("acme.users.s1.partial.yaml:22:3:"),
        "{}",
        new[0]
    );
    assert_eq!(run(&sub, &["check", "--fail-on", "never"]).code, 0);
    // `--config FILE` names another file.
    write(repo, "other.toml", "fail-on = \"never\"\n");
    let other = run(repo, &["check", "connectors", "--config", "other.toml"]);
    assert_eq!(other.code, 0, "{}", other.stderr);
    // An unknown key is an error naming it, its line and column; nothing runs.
    write(
        repo,
        "catalog-effects.toml",
        "catalogs = [\"connectors\"]\n\nbasline = \"b.csv\"\n",
    );
    for args in [
        &["check"][..],
        &["backfill"],
        &["lint"],
        &["annotations"],
        &["audit", "tools.json"],
        &["explain", ".", "list_users"],
    ] {
        let command = args[0];
        let bad = run(&sub, args);
        assert_eq!(bad.code, 2, "{command}");
        assert!(
            bad.stderr.starts_with(
                "error: ../../catalog-effects.toml:3:1: unknown key `basline`; the keys are `catalogs`,"
            ),
            "{command}: {}",
            bad.stderr
        );
    }
    // `--help` says which keys exist.
    let help = run(repo, &["--help"]);
    for key in [
        "catalogs",
        "heuristics",
        "min-confidence",
        "destructive-policy",
        "report",
        "baseline",
        "fail-on",
    ] {
        assert!(
            help.stdout.contains(&format!("  {key} = ")),
            "{key}\n{}",
            help.stdout
        );
    }
}

// ---- 8. long lists on the terminal ----------------------------------------------------------

#[test]
fn the_list_of_proposals_below_min_confidence_is_cut_with_where_the_rest_is() {
    let tmp = tempfile::tempdir().unwrap();
    // Thin evidence of three kinds, 30 each: at `--min-confidence high` most are listed.
    let extra: Vec<String> = (0..30)
        .flat_map(|i| {
            [
                action(
                    &format!("widget_config_{i}"),
                    "post",
                    &format!("/widgets/{i}/config"),
                    None,
                ),
                action(
                    &format!("application_list_{i}"),
                    "get",
                    &format!("/v{i}/application.list"),
                    None,
                ),
                action(
                    &format!("search_things_{i}"),
                    "post",
                    &format!("/things{i}/search"),
                    None,
                ),
            ]
        })
        .collect();
    catalog(tmp.path(), "cat", &extra);
    let r = run(
        tmp.path(),
        &[
            "backfill",
            "cat",
            "--min-confidence",
            "high",
            "--patch",
            "out/p",
            "--report",
            "out/coverage.csv",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let csv = std::fs::read_to_string(tmp.path().join("out/coverage.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let status = col("status");
    // Every unclassified action is listed, with a proposal or without one.
    let listed = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|r| r[status] == "unclassified")
        .count();
    assert!(
        listed > 20,
        "only {listed} proposals below high: make the fixture thinner"
    );
    let shown = r
        .stdout
        .lines()
        .filter(|l| l.contains("  proposed ") || l.contains("  no proposal: "))
        .count();
    assert_eq!(shown, 20, "{}", r.stdout);
    assert!(
        r.stdout.contains(&format!(
            "  ... and {} more: the rows of out/coverage.csv with status `unclassified`\n",
            listed - 20
        )),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("instead of patched ({listed}):"))
    );
}

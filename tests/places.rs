//! Where a run reads and writes: default outputs go beside the
//! configuration (else at the work tree's root), never into the catalog a user stands in;
//! `exclude` and `--exclude` leave paths out of the walk; and this repository carries the
//! configuration it recommends, so a run at its root reads its catalog, not its fixtures.

mod common;

use std::path::Path;

use common::{ACME_MAIN, git_init, http_action, run_in, write_file};

/// A repository with `catalog-effects.toml` at its root and one connector, `acme`.
fn repository(root: &Path, config: &str) {
    write_file(root, "catalog-effects.toml", config);
    write_file(root, "connectors/acme/acme.connector.s1.yaml", ACME_MAIN);
    write_file(
        root,
        "connectors/acme/acme.users.s1.partial.yaml",
        &http_action("list_users", "get", "/users", None),
    );
    write_file(root, "reports/.gitignore", "*\n!.gitignore\n");
    git_init(root);
}

#[test]
fn backfill_inside_a_connector_folder_writes_its_reports_beside_the_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    repository(root, "catalogs = [\"connectors\"]\n");
    let inside = root.join("connectors/acme");
    let r = run_in(&inside, &["backfill"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!inside.join("reports").exists(), "reports/ in the catalog");
    assert!(root.join("reports/effects.patch").is_file());
    assert!(root.join("reports/coverage.csv").is_file());
    assert!(
        r.stdout.contains(
            "wrote: ../../reports/effects.patch (patch), ../../reports/coverage.csv (CSV report)"
        ),
        "{}",
        r.stdout
    );
    // The patch applies at the root, as any patch of the repository does.
    common::git_apply(root, &root.join("reports/effects.patch"), true).unwrap();
    // Without a configuration, the work tree's root holds them.
    std::fs::remove_file(root.join("catalog-effects.toml")).unwrap();
    std::fs::remove_dir_all(root.join("reports")).unwrap();
    let r = run_in(&inside, &["backfill", "."]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!inside.join("reports").exists(), "reports/ in the catalog");
    assert!(root.join("reports/effects.patch").is_file());
    // A path typed on the command line is the user's, relative to where they are.
    let r = run_in(&inside, &["backfill", ".", "--patch", "here.patch"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(inside.join("here.patch").is_file());
}

/// A catalog holding drafts that do not parse, and a sample folder.
fn with_drafts(root: &Path) {
    write_file(root, "connectors/acme/acme.connector.s1.yaml", ACME_MAIN);
    write_file(
        root,
        "connectors/acme/acme.users.s1.partial.yaml",
        &http_action("list_users", "get", "/users", None),
    );
    for draft in [
        "connectors/drafts/a.s1.yaml",
        "connectors/acme/wip/b.draft.s1.yaml",
    ] {
        write_file(root, draft, "actions:\n  - actionId: [unclosed\n");
    }
}

#[test]
fn exclude_leaves_paths_and_globs_out_of_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    with_drafts(root);
    let r = run_in(root, &["check", "connectors"]);
    assert_eq!(r.code, 2, "the drafts are read without an exclusion");
    // The configuration's, relative to its folder, wherever the tool runs from.
    write_file(
        root,
        "catalog-effects.toml",
        "catalogs = [\"connectors\"]\nexclude = [\"connectors/drafts\", \"**/*.draft.s1.yaml\"]\n",
    );
    for cwd in [root.to_path_buf(), root.join("connectors/acme")] {
        let r = run_in(&cwd, &["check", "--fail-on", "never"]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        assert!(!r.stderr.contains("draft"), "{}", r.stderr);
    }
    let r = run_in(root, &["backfill"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("files: 2 read"), "{}", r.stdout);
    // The flag adds to it, relative to the current folder, and takes globs.
    std::fs::remove_file(root.join("catalog-effects.toml")).unwrap();
    let r = run_in(
        root,
        &[
            "lint",
            "connectors",
            "--exclude",
            "connectors/drafts/",
            "--exclude",
            "connectors/*/w?p",
        ],
    );
    assert!(!r.stderr.contains("draft"), "{}", r.stderr);
    assert_ne!(r.code, 2, "{}", r.stderr);
    // A catalog named inside an excluded folder is read: it was asked for.
    let r = run_in(
        root,
        &[
            "check",
            "connectors/drafts",
            "--exclude",
            "connectors/drafts",
        ],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("connectors/drafts/a.s1.yaml"),
        "{}",
        r.stderr
    );
    // Everything left out is said so, not reported as an empty folder without a reason.
    let r = run_in(root, &["check", "connectors", "--exclude", "connectors/*"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("in this folder (2 paths left out by `exclude` or --exclude)"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_exclude_that_names_nothing_is_refused_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    with_drafts(tmp.path());
    write_file(
        tmp.path(),
        "catalog-effects.toml",
        "exclude = [\"a\", \"\"]\n",
    );
    let r = run_in(tmp.path(), &["check", "connectors"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("catalog-effects.toml:1:1: `exclude` is an empty path"),
        "{}",
        r.stderr
    );
}

/// At this repository's root, `backfill` reads the sample catalog its configuration names,
/// not the fixtures (73 warnings, 3 errors and exit 2 before).
#[test]
fn this_repository_carries_the_configuration_it_recommends() {
    let root = common::manifest_dir();
    let config = std::fs::read_to_string(root.join("catalog-effects.toml")).unwrap();
    assert!(
        config.contains("catalogs = [\"catalogs/demo\"]"),
        "{config}"
    );
    let out = tempfile::tempdir().unwrap();
    let patch = out.path().join("effects.patch");
    let report = out.path().join("coverage.csv");
    let r = run_in(
        &root,
        &[
            "backfill",
            "--patch",
            patch.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("files: 16 read, 13 changed by the patch; warnings: 2, errors: 0"),
        "{}",
        r.stdout
    );
    let patch = std::fs::read_to_string(&patch).unwrap();
    for line in patch.lines().filter(|l| l.starts_with("diff --git ")) {
        assert!(line.starts_with("diff --git a/catalogs/demo/"), "{line}");
    }
    // Named on the whole repository, its exclusions keep the fixtures out.
    let r = run_in(
        &root,
        &[
            "check",
            ".",
            "--fail-on",
            "never",
            "--quiet",
            "--no-catalog-evidence",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
}

//! One rule for every output path: never a connector file, never
//! the baseline unless the command exists to write it, never through a symlink the
//! repository commits or the user did not type, never outside the repository when a
//! configuration names it. Each case below exited 0 and replaced the file before.

mod common;

use std::path::PathBuf;

use common::{ACME_MAIN, http_action, run_in, write_file};

/// A repository `repo/` holding a catalog `connectors/acme` of two actions (one without
/// effects), committed, with a file `outside/precious` beside the repository.
struct Repo {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

const PRECIOUS: &str = "# a file that is not the tool's\n";

impl Repo {
    fn new() -> Repo {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        write_file(&root, "connectors/acme/acme.connector.s1.yaml", ACME_MAIN);
        write_file(
            &root,
            "connectors/acme/acme.users.s1.partial.yaml",
            &[
                http_action("list_users", "get", "/users", Some("read")),
                http_action("delete_user", "delete", "/users/:id", None),
            ]
            .concat(),
        );
        common::git_init(&root);
        let outside = tmp.path().join("outside/precious");
        write_file(tmp.path(), "outside/precious", PRECIOUS);
        Repo {
            _tmp: tmp,
            root,
            outside,
        }
    }

    fn run(&self, args: &[&str]) -> common::Run {
        run_in(&self.root, args)
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    fn commit(&self) {
        common::git_ok(&self.root, &["add", "-A"]);
        common::git_ok(&self.root, &["commit", "-q", "-m", "more"]);
    }
}

/// The run was refused (exit 2) with a message naming `flag`, `path` and `why`.
fn refused(r: &common::Run, flag: &str, path: &str, why: &str) {
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error: {}", r.stderr));
    assert!(line.contains(flag), "no {flag}: {line}");
    assert!(line.contains(path), "no {path}: {line}");
    assert!(line.contains(why), "no {why:?}: {line}");
}

const PARTIAL: &str = "connectors/acme/acme.users.s1.partial.yaml";

#[test]
fn annotations_and_audit_never_replace_a_connector_file_or_their_input() {
    let repo = Repo::new();
    let before = repo.read(PARTIAL);
    let r = repo.run(&["annotations", "connectors", "-o", PARTIAL]);
    refused(&r, "--output", PARTIAL, "connector file");
    // Outside any catalog given, a connector file's name is enough.
    write_file(&repo.root, "elsewhere/x.s1.yaml", "- actionId: a\n");
    let r = repo.run(&["annotations", "connectors", "-o", "elsewhere/x.s1.yaml"]);
    refused(&r, "--output", "elsewhere/x.s1.yaml", "connector file");
    assert_eq!(repo.read("elsewhere/x.s1.yaml"), "- actionId: a\n");

    let tools = r#"{"tools": [{"name": "delete_user", "description": "Deletes a user.", "annotations": {"readOnlyHint": true}}]}"#;
    write_file(&repo.root, "tools.json", tools);
    let r = repo.run(&["audit", "tools.json", "--report", PARTIAL]);
    refused(&r, "--report", PARTIAL, "connector file");
    let r = repo.run(&["audit", "tools.json", "--report", "tools.json"]);
    refused(&r, "--report", "tools.json", "the tool list it audits");
    assert_eq!(repo.read("tools.json"), tools);
    assert_eq!(repo.read(PARTIAL), before);
    // A file of its own is written.
    let r = repo.run(&["audit", "tools.json", "--report", "audit.csv"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(repo.read("audit.csv").contains("delete_user"));
}

#[test]
fn no_output_but_write_baseline_replaces_the_baseline() {
    let repo = Repo::new();
    write_file(
        &repo.root,
        "catalog-effects.toml",
        "catalogs = [\"connectors\"]\nbaseline = \"reports/base.csv\"\nfail-on = \"new\"\n",
    );
    let r = repo.run(&["check", "--write-baseline", "reports/base.csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let baseline = repo.read("reports/base.csv");
    for args in [
        &["check", "--html", "reports/base.csv"][..],
        &["check", "--history", "reports/base.csv"],
        &["check", "--report", "reports/base.csv"],
        &["backfill", "--report", "reports/base.csv"],
        &["backfill", "--patch", "reports/base.csv"],
        &["backfill", "--review", "reports/base.csv"],
        &["annotations", "-o", "reports/base.csv"],
    ] {
        let r = repo.run(args);
        refused(
            &r,
            args[1],
            "reports/base.csv",
            "would overwrite the baseline",
        );
        assert_eq!(repo.read("reports/base.csv"), baseline, "{args:?}");
    }
    // A --baseline given for the run is as safe as the configured one.
    let r = repo.run(&[
        "check",
        "--baseline",
        "reports/other.csv",
        "--html",
        "reports/other.csv",
    ]);
    refused(&r, "--html", "reports/other.csv", "(--baseline)");
    // Writing it is what --write-baseline is for.
    let r = repo.run(&["check", "--write-baseline", "reports/base.csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn a_symlink_the_repository_commits_is_never_written_through() {
    let repo = Repo::new();
    let target = repo.outside.to_str().unwrap().to_owned();
    std::fs::create_dir_all(repo.root.join("reports")).unwrap();
    std::os::unix::fs::symlink(&target, repo.root.join("reports/coverage.csv")).unwrap();
    std::os::unix::fs::symlink(repo.outside.parent().unwrap(), repo.root.join("linked")).unwrap();
    repo.commit();
    // The default report, and the same file named on the command line.
    let r = repo.run(&["backfill", "connectors"]);
    refused(
        &r,
        "--report",
        "reports/coverage.csv",
        "a symlink the repository commits",
    );
    let r = repo.run(&["check", "connectors", "--report", "reports/coverage.csv"]);
    refused(
        &r,
        "--report",
        "reports/coverage.csv",
        "a symlink the repository commits",
    );
    // Behind a link of the user's own (not committed), the committed one is still refused.
    std::os::unix::fs::symlink(&repo.root, repo.outside.with_file_name("here")).unwrap();
    let typed = repo
        .outside
        .with_file_name("here")
        .join("reports/coverage.csv");
    let r = repo.run(&["check", "connectors", "--report", typed.to_str().unwrap()]);
    refused(
        &r,
        "--report",
        "reports/coverage.csv",
        "a symlink the repository commits",
    );
    // A committed link to a folder on the way.
    let r = repo.run(&["backfill", "connectors", "--patch", "linked/precious"]);
    refused(
        &r,
        "--patch",
        "linked/precious",
        "a symlink the repository commits",
    );
    assert_eq!(std::fs::read_to_string(&repo.outside).unwrap(), PRECIOUS);
}

#[test]
fn a_link_the_user_did_not_type_is_not_followed_one_they_typed_is() {
    let repo = Repo::new();
    std::fs::create_dir_all(repo.root.join("out")).unwrap();
    std::os::unix::fs::symlink(&repo.outside, repo.root.join("out/mine.csv")).unwrap();
    write_file(
        &repo.root,
        "catalog-effects.toml",
        "catalogs = [\"connectors\"]\nreport = \"out/mine.csv\"\n",
    );
    let r = repo.run(&["backfill"]);
    refused(
        &r,
        "--report",
        "out/mine.csv",
        "the path comes from catalog-effects.toml",
    );
    assert_eq!(std::fs::read_to_string(&repo.outside).unwrap(), PRECIOUS);
    // Typed, and not committed: the user's own link, followed.
    let r = repo.run(&["backfill", "--report", "out/mine.csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        std::fs::read_to_string(&repo.outside)
            .unwrap()
            .starts_with("connector,")
    );
}

#[test]
fn a_configured_path_stays_inside_the_repository() {
    let repo = Repo::new();
    let escape = "../outside/precious";
    write_file(
        &repo.root,
        "catalog-effects.toml",
        &format!("catalogs = [\"connectors\"]\nreport = \"{escape}\"\n"),
    );
    for command in ["backfill", "check"] {
        let r = repo.run(&[command]);
        refused(&r, "--report", escape, "outside the repository");
        assert_eq!(std::fs::read_to_string(&repo.outside).unwrap(), PRECIOUS);
    }
    // The same path typed on the command line is the user's choice.
    let r = repo.run(&["check", "--report", escape]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        std::fs::read_to_string(&repo.outside)
            .unwrap()
            .starts_with("connector,")
    );
    // From a subfolder the rule is the same: the configuration's folder's repository.
    std::fs::create_dir_all(repo.root.join("sub")).unwrap();
    std::fs::write(&repo.outside, PRECIOUS).unwrap();
    let r = run_in(&repo.root.join("sub"), &["backfill"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&repo.outside).unwrap(), PRECIOUS);
}

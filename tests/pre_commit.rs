//! `.pre-commit-hooks.yaml` with the real `pre-commit` (issue 14): `pre-commit try-repo` runs
//! this repository's hook in a temporary catalog repository. A staged action without effects
//! fails the commit; once it declares them, the hook passes.
//!
//! Skipped, with the reason printed, where `pre-commit` is not on PATH (`.ci/run` installs
//! it with pip first).

mod common;

use std::path::Path;
use std::process::Command;

const CONFIG: &str =
    "catalogs = [\"connectors\"]\nbaseline = \"reports/effects-baseline.csv\"\nfail-on = \"new\"\n";
const MAIN: &str = "StackOne: 1.0.0\ninfo:\n  title: Acme\n  key: acme\n  version: 1.0.0\nbaseUrl: https://api.acme.example/v1\n";

fn action(id: &str, method: &str, url: &str, effects: &str) -> String {
    format!(
        "- actionId: {id}\n{effects}  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters:\n          url: {url}\n          method: {method}\n\n"
    )
}

/// Runs `program args` in `dir` with the binary first on PATH, pre-commit's cache in `home`,
/// and git configured only by the environment.
fn run(dir: &Path, home: &Path, program: &str, args: &[&str]) -> common::Run {
    let bin_dir = Path::new(common::bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .envs([
            ("GIT_AUTHOR_NAME", "t"),
            ("GIT_AUTHOR_EMAIL", "t@t"),
            ("GIT_COMMITTER_NAME", "t"),
            ("GIT_COMMITTER_EMAIL", "t@t"),
        ])
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    common::Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

#[test]
fn the_hook_fails_a_commit_that_adds_an_action_without_effects() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("pre-commit-home");
    if Command::new("pre-commit")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: `pre-commit` is not on PATH (pip install pre-commit)");
        return;
    }
    let repo = tmp.path().join("catalog");
    let partial = "connectors/acme/acme.users.s1.partial.yaml";
    common::write_file(&repo, "connectors/acme/acme.connector.s1.yaml", MAIN);
    common::write_file(&repo, "catalog-effects.toml", CONFIG);
    let listed = action("list_users", "get", "/users", "  effects: [read]\n");
    common::write_file(&repo, partial, &listed);
    let ok = |r: common::Run| assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    ok(run(&repo, &home, "git", &["init", "-q"]));
    let bin = common::bin();
    ok(run(
        &repo,
        &home,
        bin,
        &["check", "--write-baseline", "reports/effects-baseline.csv"],
    ));
    ok(run(&repo, &home, "git", &["add", "-A"]));
    ok(run(&repo, &home, "git", &["commit", "-q", "-m", "catalog"]));

    let hooks = common::manifest_dir();
    let hooks = hooks.to_str().unwrap();
    let try_repo = ["try-repo", hooks, "catalog-effects"];
    // A staged action without effects: the hook fails and names it.
    let added = action("delete_group", "delete", "/groups/:id", "");
    common::write_file(&repo, partial, &(listed.clone() + &added));
    ok(run(&repo, &home, "git", &["add", partial]));
    let failed = run(&repo, &home, "pre-commit", &try_repo);
    assert_eq!(failed.code, 1, "{}{}", failed.stdout, failed.stderr);
    let line = listed.lines().count() + 1;
    assert!(
        failed.stdout.contains(&format!(
            "{partial}:{line}:3: warning [missing-effects] [new]: `delete_group` declares no effects"
        )),
        "{}",
        failed.stdout
    );
    assert!(
        failed.stdout.contains("1 new, 0 in the baseline"),
        "{}",
        failed.stdout
    );
    // The same action with its effects: the hook passes.
    let declared = action(
        "delete_group",
        "delete",
        "/groups/:id",
        "  effects: [delete]\n",
    );
    common::write_file(&repo, partial, &(listed + &declared));
    ok(run(&repo, &home, "git", &["add", partial]));
    let passed = run(&repo, &home, "pre-commit", &try_repo);
    assert_eq!(passed.code, 0, "{}{}", passed.stdout, passed.stderr);
    assert!(
        passed.stdout.contains("catalog-effects check"),
        "{}",
        passed.stdout
    );
}

//! `.pre-commit-hooks.yaml` with the real `pre-commit`: `pre-commit try-repo` runs
//! this repository's hook in a temporary catalog repository. A staged action without effects
//! fails the commit; once it declares them, the hook passes.
//!
//! The hook builds the tool itself (`language: rust`): pre-commit runs with a PATH
//! that holds no `catalog-effects`, only cargo. The build goes to a target folder kept
//! between runs (`target/pre-commit-hook`), unoptimised, so a rerun rebuilds this crate only;
//! what is built and run is what a user's pre-commit builds.
//!
//! Skipped, with the reason printed, where `pre-commit` is not on PATH (`.ci/run` installs
//! it with pip first).

mod common;

use std::path::Path;
use std::process::Command;

use common::http_action as action;

const CONFIG: &str =
    "catalogs = [\"connectors\"]\nbaseline = \"reports/effects-baseline.csv\"\nfail-on = \"new\"\n";
/// Runs `program args` in `dir` with pre-commit's cache in `home`.
fn run(dir: &Path, home: &Path, program: &str, args: &[&str]) -> common::Run {
    let home = home.to_str().unwrap();
    common::run_on_path(dir, program, args, &[("PRE_COMMIT_HOME", home)])
}

/// PATH without any `catalog-effects`: the folders that hold one are left out, and the Rust
/// tools found there are linked from `shims` instead.
fn path_without_the_tool(shims: &Path) -> String {
    std::fs::create_dir_all(shims).unwrap();
    let mut kept = vec![shims.to_path_buf()];
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        if !dir.join("catalog-effects").exists() {
            kept.push(dir);
            continue;
        }
        for tool in ["cargo", "rustc", "rustup"] {
            let (from, to) = (dir.join(tool), shims.join(tool));
            if from.exists() && !to.exists() {
                std::os::unix::fs::symlink(from, to).unwrap();
            }
        }
    }
    std::env::join_paths(kept).unwrap().into_string().unwrap()
}

/// Runs pre-commit as a user without the tool installed would.
fn pre_commit(dir: &Path, home: &Path, args: &[&str]) -> common::Run {
    let path = path_without_the_tool(&home.join("shims"));
    // Beside the build of the tests (`.ci/run` builds a clone into the checkout's target).
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| common::manifest_dir().join("target"), Into::into)
        .join("pre-commit-hook");
    let o = Command::new("pre-commit")
        .args(args)
        .current_dir(dir)
        .env("PATH", &path)
        .env("PRE_COMMIT_HOME", home)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        // The crates are those the tests were built with, already here: the hook's build
        // needs no network (pre-commit's `cargo install` resolves without the lock file).
        .env("CARGO_NET_OFFLINE", "true")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
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
        common::skip_without(
            "pre-commit",
            "`pre-commit` is not on PATH (pip install pre-commit)",
        );
        return;
    }
    let repo = tmp.path().join("catalog");
    let partial = "connectors/acme/acme.users.s1.partial.yaml";
    common::write_file(
        &repo,
        "connectors/acme/acme.connector.s1.yaml",
        common::ACME_MAIN,
    );
    common::write_file(&repo, "catalog-effects.toml", CONFIG);
    let listed = action("list_users", "get", "/users", Some("read"));
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
    let added = action("delete_group", "delete", "/groups/:id", None);
    common::write_file(&repo, partial, &(listed.clone() + &added));
    ok(run(&repo, &home, "git", &["add", partial]));
    let path = path_without_the_tool(&home.join("shims"));
    assert!(
        std::env::split_paths(&path).all(|d| !d.join("catalog-effects").exists()),
        "{path}"
    );
    let failed = pre_commit(&repo, &home, &try_repo);
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
    let declared = action("delete_group", "delete", "/groups/:id", Some("delete"));
    common::write_file(&repo, partial, &(listed + &declared));
    ok(run(&repo, &home, "git", &["add", partial]));
    let passed = pre_commit(&repo, &home, &try_repo);
    assert_eq!(passed.code, 0, "{}{}", passed.stdout, passed.stderr);
    assert!(
        passed.stdout.contains("catalog-effects check"),
        "{}",
        passed.stdout
    );
}

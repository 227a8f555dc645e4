//! The files a team copies to run catalog-effects in CI: the GitHub Actions
//! workflow validates against the published schema for workflows, and says what README
//! says it does.
//!
//! `tests/data/github-workflow-schema.json` is SchemaStore's `github-workflow.json` (draft-07),
//! vendored from the PyPI package check-jsonschema 0.39.0 (provenance and licence in
//! `tests/data/README.md`). It is read from disk and compiled by `boon`; nothing is fetched.

// The size rule is the library's: a test reads as one scenario, top to bottom.
#![allow(clippy::too_many_lines)]

mod common;

use std::path::Path;

use common::http_action as action;

use serde_json::Value;

const SCHEMA: &str = include_str!("data/github-workflow-schema.json");
const WORKFLOW: &str = include_str!("../ci/catalog-effects.yml");

fn validator() -> common::SchemaValidator {
    common::SchemaValidator::new(SCHEMA, "github-workflow.json", false)
}

/// The workflow as JSON, the way the schema sees it.
fn workflow() -> Value {
    yaml_serde::from_str(WORKFLOW).expect("the workflow is YAML")
}

#[test]
fn the_workflow_validates_against_the_published_schema() {
    let v = validator();
    if let Err(e) = v.validate(&workflow()) {
        panic!("{e}");
    }
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    // Proves the schema is applied, not merely parsed.
    let v = validator();
    let mut doc = workflow();
    doc["jobs"]["check"]["step"] = doc["jobs"]["check"]["steps"].clone();
    assert!(v.validate(&doc).is_err(), "an unknown job key was accepted");
    let mut doc = workflow();
    doc["on"]["schedule"][0]["cron"] = Value::from(17);
    assert!(v.validate(&doc).is_err(), "a numeric cron was accepted");
    let mut doc = workflow();
    doc["jobs"]["check"]
        .as_object_mut()
        .unwrap()
        .remove("runs-on");
    assert!(
        v.validate(&doc).is_err(),
        "a job without runs-on was accepted"
    );
}

#[test]
fn the_workflow_runs_nightly_and_on_pull_requests_and_uploads_sarif() {
    let doc = workflow();
    assert!(doc["on"].get("pull_request").is_some(), "{doc}");
    assert!(doc["on"]["schedule"][0]["cron"].is_string(), "{doc}");
    assert_eq!(doc["permissions"]["security-events"], "write");
    let steps = doc["jobs"]["check"]["steps"].as_array().unwrap();
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    let uses: Vec<&str> = steps.iter().filter_map(|s| s["uses"].as_str()).collect();
    // Installed from a checkout, as README says.
    assert!(
        runs.iter()
            .any(|r| r.starts_with("cargo install --locked --path ")),
        "{runs:?}"
    );
    assert!(
        runs.iter()
            .any(|r| r.contains("check --since") && r.contains("--format github")),
        "{runs:?}"
    );
    assert!(
        runs.iter().any(|r| r.contains("--format sarif")),
        "{runs:?}"
    );
    assert!(
        uses.iter()
            .any(|u| u.starts_with("github/codeql-action/upload-sarif@")),
        "{uses:?}"
    );
    // --since needs the base commit in the clone.
    assert_eq!(steps[0]["with"]["fetch-depth"], 0);
}

// ---- README's recipes, run word for word over two nights ------------------------------------

const README: &str = include_str!("../README.md");

/// The code block of README that follows `<!-- recipe: NAME -->`.
fn recipe(name: &str) -> &'static str {
    let marker = format!("<!-- recipe: {name} -->\n```");
    let at = README
        .find(&marker)
        .unwrap_or_else(|| panic!("README has no recipe {name:?}"))
        + marker.len();
    let body = &README[at..];
    let body = &body[body.find('\n').unwrap() + 1..];
    &body[..body.find("```").unwrap()]
}

/// Runs `line` with `sh` in `dir`, as a user's shell would.
fn sh(dir: &Path, line: &str, env: &[(&str, &str)]) -> common::Run {
    common::run_on_path(dir, "sh", &["-c", line], env)
}

/// Runs every command line of a recipe; each but the last must succeed. The last one's run.
fn run_recipe(name: &str, dir: &Path) -> common::Run {
    let lines: Vec<&str> = recipe(name)
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .collect();
    let (last, before) = lines.split_last().expect("an empty recipe");
    for line in before {
        let r = sh(dir, line, &[]);
        assert_eq!(r.code, 0, "{line}\n{}{}", r.stdout, r.stderr);
    }
    sh(dir, last, &[])
}

fn git(dir: &Path, line: &str) {
    let r = sh(dir, &format!("git {line}"), &[]);
    assert_eq!(r.code, 0, "git {line}: {}", r.stderr);
}

const PARTIAL: &str = "connectors/acme/acme.users.s1.partial.yaml";

/// The lines of a human `check` output that are findings.
fn finding_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.contains(": warning [") || l.contains(": error ["))
        .collect()
}

#[test]
fn readme_recipes_over_two_nights_report_exactly_the_new_finding() {
    let tmp = tempfile::tempdir().unwrap();
    let origin = tmp.path().join("origin.git");
    git(tmp.path(), "init -q --bare -b main origin.git");
    git(tmp.path(), &format!("clone -q {} work", origin.display()));
    let work = tmp.path().join("work");
    git(&work, "checkout -q -b main");
    common::write_file(
        &work,
        "connectors/acme/acme.connector.s1.yaml",
        common::ACME_MAIN,
    );
    // An action without effects the team accepts for now (in the baseline), and three
    // that declare theirs.
    let before = [
        action("list_users", "get", "/users", Some("read")),
        action("create_user", "post", "/users", None),
        action("get_user", "get", "/users/:id", Some("read")),
        action("delete_user", "delete", "/users/:id", Some("delete")),
    ];
    common::write_file(&work, PARTIAL, &before.concat());
    git(&work, "add -A");
    git(&work, "commit -q -m catalog");

    // Adopting: README's configuration and the commands that accept today's findings.
    common::write_file(
        &work,
        "catalog-effects.toml",
        recipe("catalog-effects.toml"),
    );
    let adopt = run_recipe("adopt", &work);
    assert_eq!(adopt.code, 0, "{}{}", adopt.stdout, adopt.stderr);
    git(&work, "push -q origin main");

    // Night one: nothing new.
    let night = run_recipe("nightly", &work);
    assert_eq!(night.code, 0, "{}{}", night.stdout, night.stderr);
    assert_eq!(finding_lines(&night.stdout), Vec::<&str>::new());
    assert!(
        night.stdout.ends_with(
            "check: 0 errors, 1 warning; 0 new, 1 in the baseline, 0 actions gone; 0 failing (--fail-on new)\n"
        ),
        "{}",
        night.stdout
    );
    assert_eq!(night.stderr, "");

    // A pull request adds an action without effects and removes the one in the baseline.
    git(&work, "checkout -q -b more");
    let after = [
        before[0].clone(),
        before[2].clone(),
        before[3].clone(),
        action("delete_group", "delete", "/groups/:id", None),
    ];
    common::write_file(&work, PARTIAL, &after.concat());
    git(&work, "commit -q -a -m more");
    git(&work, "fetch -q origin");
    let line = after.concat()[..after.concat().find("- actionId: delete_group").unwrap()]
        .lines()
        .count()
        + 1;
    let annotation = format!(
        "::error file={PARTIAL},line={line},col=3,title=missing-effects (new)::`delete_group` declares no effects; proposed [delete]"
    );
    let pr = run_recipe("pull-request", &work);
    assert_eq!(pr.code, 1, "{}{}", pr.stdout, pr.stderr);
    let lines: Vec<&str> = pr.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", pr.stdout);
    assert!(lines[0].starts_with(&annotation), "{}", pr.stdout);
    assert!(
        lines[1].starts_with("::notice title=catalog-effects::check: 0 errors, 1 warning; 1 new, 0 in the baseline, 1 action gone; 1 failing (--fail-on new)"),
        "{}",
        pr.stdout
    );

    // The workflow's own steps say the same, and its SARIF tells new from absent.
    let steps = workflow()["jobs"]["check"]["steps"].clone();
    let step = |name: &str| {
        steps
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"].as_str().is_some_and(|n| n.starts_with(name)))
            .and_then(|s| s["run"].as_str())
            .unwrap_or_else(|| panic!("no step {name:?}"))
            .to_owned()
    };
    let in_workflow = sh(&work, &step("Check the changed files"), &[("BASE", "main")]);
    assert_eq!(
        (in_workflow.code, in_workflow.stdout.as_str()),
        (1, pr.stdout.as_str())
    );
    let sarif = sh(&work, &step("SARIF"), &[]);
    assert_eq!(sarif.code, 0, "{}", sarif.stderr);
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("catalog-effects.sarif")).unwrap())
            .unwrap();
    let states: Vec<(String, String)> = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["message"]["text"]
                    .as_str()
                    .unwrap()
                    .split('`')
                    .nth(1)
                    .unwrap()
                    .to_owned(),
                r["baselineState"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("delete_group".to_owned(), "new".to_owned()),
            ("create_user".to_owned(), "absent".to_owned())
        ]
    );

    // Merged; night two reports exactly the new finding and the action that went.
    git(&work, "checkout -q main");
    git(&work, "merge -q --ff-only more");
    let night = run_recipe("nightly", &work);
    assert_eq!(night.code, 1, "{}{}", night.stdout, night.stderr);
    let found = finding_lines(&night.stdout);
    assert_eq!(found.len(), 1, "{}", night.stdout);
    assert!(
        found[0].starts_with(&format!(
            "{PARTIAL}:{line}:3: warning [missing-effects] [new]: `delete_group` declares no effects; proposed [delete]"
        )),
        "{}",
        night.stdout
    );
    assert!(
        night
            .stdout
            .contains("gone since the baseline (1):\n  acme_create_user\n"),
        "{}",
        night.stdout
    );
    assert!(
        night.stdout.ends_with(
            "check: 0 errors, 1 warning; 1 new, 0 in the baseline, 1 action gone; 1 failing (--fail-on new)\n"
        ),
        "{}",
        night.stdout
    );
    // Both nights were recorded, and the page was written.
    let history = std::fs::read_to_string(work.join("reports/history.csv")).unwrap();
    assert_eq!(history.lines().count(), 3, "{history}");
    assert!(work.join("reports/coverage.html").is_file());
}

#[test]
fn readme_backfill_recipe_patches_the_sample_reviewed_and_a_rerun_is_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path();
    git(work, "init -q -b main");
    common::copy_dir(
        &common::manifest_dir().join("catalogs/demo"),
        &work.join("connectors"),
    );
    git(work, "add -A");
    git(work, "commit -q -m catalog");
    let before = common::read_tree(&work.join("connectors"));

    let rerun = run_recipe("review", work);
    assert_eq!(rerun.code, 0, "{}{}", rerun.stdout, rerun.stderr);
    // The patch was applied: files changed, only by inserted `effects` and, with
    // `--migrate-hints`, removed hint lines (a flow mapping keeps its override).
    let after = common::read_tree(&work.join("connectors"));
    let mut changed = 0;
    let mut removed = Vec::new();
    for ((name, old), (_, new)) in before.iter().zip(&after) {
        if old != new {
            changed += 1;
            let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
            for change in similar::TextDiff::from_lines(&old, &new).iter_all_changes() {
                let line = change.value().trim();
                match change.tag() {
                    similar::ChangeTag::Delete => removed.push(line.to_owned()),
                    similar::ChangeTag::Insert => assert!(
                        line == "effects:"
                            || line.starts_with("- ")
                            || line.contains("effects: [")
                            || line == "annotations: {readOnlyHint: true}",
                        "{name}: inserted {line:?}"
                    ),
                    similar::ChangeTag::Equal => {}
                }
            }
        }
    }
    let flow_actions_rewritten = removed
        .iter()
        .filter(|l| l.starts_with("- {actionId"))
        .count();
    removed.retain(|l| !l.starts_with("- {actionId"));
    assert_eq!(
        flow_actions_rewritten, 1,
        "the flow-mapping action gets `, effects: [..]`"
    );
    assert_eq!(
        removed,
        [
            "annotations:",
            "title: Get Drive",
            "readOnlyHint: true   # safe to auto-run",
            "openWorldHint: true",
            "annotations: {readOnlyHint: true, openWorldHint: true}",
            "annotations:",
            "readOnlyHint: true",
        ],
        "only the demo's redundant hints are removed"
    );
    assert!(changed > 0, "the recipe's git apply changed nothing");
    // What README says the rerun shows: nothing left to patch.
    assert!(
        rerun.stdout.contains(", 0 changed by the patch;"),
        "{}",
        rerun.stdout
    );
    let review = std::fs::read_to_string(work.join("reports/review.md")).unwrap();
    assert!(review.contains("### Worth a look first"), "{review}");
    assert!(review.contains("catalog-effects explain "), "{review}");
}

// ---- What a new user meets first --------------------------------------------------------------

/// The commands of a recipe, without their comments.
fn recipe_commands(name: &str) -> Vec<&'static str> {
    recipe(name)
        .lines()
        .map(|l| l.split(" #").next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn readme_opens_with_the_two_commands_and_the_first_runs_as_shown() {
    assert_eq!(
        recipe_commands("start"),
        [
            "cargo run --release -- backfill catalogs/demo",
            "cargo test"
        ]
    );
    // The first code block a reader meets is that one.
    let first_block = README.find("```").unwrap();
    assert!(
        README[..first_block].ends_with("<!-- recipe: start -->\n"),
        "README's first code block is not the start recipe"
    );
    // The sample output README shows for the first command is what it prints, in a folder
    // that holds the demo catalog and nothing else (as a fresh clone's reports/ is empty).
    let sample_at = README
        .find("$ cargo run --release -- backfill catalogs/demo\n")
        .expect("README shows the first command's output");
    let sample = &README[sample_at..];
    let sample = &sample[sample.find('\n').unwrap() + 1..sample.find("```").unwrap()];
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(
        &common::manifest_dir().join("catalogs/demo"),
        &tmp.path().join("catalogs/demo"),
    );
    let run = common::run_in(tmp.path(), &["backfill", "catalogs/demo"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let printed = format!("{}{}", run.stderr, run.stdout);
    for line in sample.lines().filter(|l| l.trim() != "...") {
        assert!(
            printed.lines().any(|p| p == line),
            "README shows {line:?}, the run printed:\n{printed}"
        );
    }
    assert!(tmp.path().join("reports/effects.patch").is_file());
}

#[test]
fn ci_runs_the_readme_test_command_on_a_fresh_clone_with_nothing_beside_it() {
    let script = std::fs::read_to_string(common::manifest_dir().join(".ci/run")).unwrap();
    let commands: Vec<&str> = script
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    // The tests run last, in a clone made in an empty temporary folder.
    let test_command = recipe_commands("start")[1];
    assert_eq!(commands.last(), Some(&test_command), "{script}");
    let clone = commands
        .iter()
        .position(|c| c.starts_with("git clone "))
        .expect(".ci/run makes no clone");
    let cd = commands.iter().rposition(|c| c.starts_with("cd ")).unwrap();
    assert!(clone < cd, "the tests do not run in the clone:\n{script}");
    assert!(script.contains("mktemp -d"), "{script}");
    // Nothing the tests read lies beside the repository.
    for dir in ["tests", "tests/common", "examples", "src"] {
        for entry in std::fs::read_dir(common::manifest_dir().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    !text.contains(concat!("../", "shared")),
                    "{} reads beside the repository",
                    path.display()
                );
            }
        }
    }
}

/// The workflow builds the tool once per version (cached by its commit),
/// and its nightly job is README's workflow 2, word for word.
#[test]
fn the_workflow_caches_the_tool_and_runs_workflow_2_nightly() {
    let doc = workflow();
    let steps = doc["jobs"]["check"]["steps"].as_array().unwrap().clone();
    let install = steps
        .iter()
        .position(|s| {
            s["run"]
                .as_str()
                .is_some_and(|r| r.starts_with("cargo install "))
        })
        .unwrap();
    let cache = steps
        .iter()
        .position(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/cache@"))
                && s["with"]["path"]
                    .as_str()
                    .is_some_and(|p| p.ends_with("/bin/catalog-effects"))
        })
        .expect("no cache of the built tool");
    assert!(cache < install);
    let id = steps[cache]["id"].as_str().unwrap();
    let key = steps[cache]["with"]["key"].as_str().unwrap();
    assert!(key.contains("commit"), "the key names no commit: {key}");
    assert_eq!(
        steps[install]["if"].as_str(),
        Some(format!("steps.{id}.outputs.cache-hit != 'true'").as_str())
    );
    // The nightly check is README's recipe, and its page and history are kept.
    let nightly = recipe_commands("nightly");
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    for command in &nightly {
        assert!(runs.contains(command), "{command} is not a step: {runs:?}");
    }
    let uploaded: Vec<String> = steps
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .map(|s| s["with"]["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(
        uploaded.iter().any(|p| p.contains("reports/coverage.html")),
        "{uploaded:?}"
    );
    let history = steps
        .iter()
        .find(|s| s["with"]["path"].as_str() == Some("reports/history.csv"))
        .expect("the history is not kept between nights");
    assert!(history["with"]["restore-keys"].is_string(), "{history}");
}

/// README holds the commands and the workflows; the reference is its own
/// page, linked from README.
#[test]
fn the_reference_lives_in_its_own_page() {
    let reference =
        std::fs::read_to_string(common::manifest_dir().join("docs/reference.md")).unwrap();
    for section in [
        "## What backfill edits",
        "## The CSV report",
        "## Exit codes",
        "## Configuration",
        "## Heuristics are data",
    ] {
        assert!(reference.contains(&format!("{section}\n")), "{section}");
        assert!(
            !README.contains(&format!("#{section}\n")),
            "{section} in README"
        );
    }
    assert!(README.contains("[docs/reference.md](docs/reference.md)"));
    // Room for the four workflows (the fourth, OpenAPI documents), the evaluation's figures
    // and the three commands of an audit of a running server; the reference stays in
    // docs/reference.md, and the internals (modules, dependencies) in docs/architecture.md.
    assert!(
        README.lines().count() < 330,
        "README is {} lines",
        README.lines().count()
    );
    assert!(README.contains("[docs/architecture.md](docs/architecture.md)"));
    let architecture =
        std::fs::read_to_string(common::manifest_dir().join("docs/architecture.md")).unwrap();
    for section in ["## Modules", "## Dependencies, and why each is there"] {
        assert!(architecture.contains(&format!("{section}\n")), "{section}");
    }
}

/// The install line builds what the tests built: the versions of Cargo.lock.
#[test]
fn readme_installs_with_the_lock_file() {
    let install: Vec<&str> = README
        .lines()
        .filter(|l| l.starts_with("cargo install "))
        .collect();
    assert!(!install.is_empty());
    for line in install {
        assert!(line.starts_with("cargo install --locked "), "{line}");
    }
}

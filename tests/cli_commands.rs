//! Every command end to end: `check`, `annotations`, `explain`,
//! `explain-code`, `audit` and `lint`, with snapshots of stdout and the exit code under
//! `tests/snapshots/commands/` (`UPDATE_SNAPSHOTS=1` rewrites them). Catalogs are copies in
//! temporary directories outside any git repository, so paths are relative to the catalog;
//! anything machine-dependent (temporary paths, dates) is normalised before comparing.

// The size rule is the library's: a test reads as one scenario, top to bottom.
#![allow(clippy::too_many_lines)]

mod common;

use std::path::{Path, PathBuf};

use common::{Run, Sandbox, action, main_file, run_in as run, snapshot, write_file as write};

impl Run {
    /// `exit: N` then stdout: the usual snapshot body.
    fn shown(&self) -> String {
        format!("exit: {}\n{}", self.code, self.stdout)
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Replaces every `YYYY-MM-DD` with `<DATE>`.
fn normalise_dates(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let is_date = i + 10 <= b.len()
            && b[i..i + 10].iter().enumerate().all(|(k, c)| match k {
                4 | 7 => *c == b'-',
                _ => c.is_ascii_digit(),
            });
        if is_date {
            out.push_str("<DATE>");
            i += 10;
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The sandbox root replaced by `<TMP>` (also in its canonical form).
fn normalise_tmp(text: &str, root: &Path) -> String {
    let mut s = text.to_owned();
    if let Ok(canon) = root.canonicalize() {
        s = s.replace(canon.to_str().unwrap(), "<TMP>");
    }
    s.replace(root.to_str().unwrap(), "<TMP>")
}

/// A catalog `acme` (key `acme_hr`) whose every action declares effects that agree with
/// inference: `check` must exit 0.
fn clean_catalog(root: &Path) -> PathBuf {
    let catalog = root.join("clean");
    write(
        &catalog,
        "acme/acme.connector.s1.yaml",
        &main_file("acme_hr"),
    );
    let actions = [
        action(
            "list_users",
            "List Users",
            "Lists all users.",
            "get",
            "/users",
            "  effects: [read]\n",
        ),
        action(
            "create_user",
            "Create User",
            "Creates a user.",
            "post",
            "/users",
            "  effects: [write]\n",
        ),
        action(
            "delete_user",
            "Delete User",
            "Deletes a user for good.",
            "delete",
            "/users/:id",
            "  effects:\n    - delete\n",
        ),
    ];
    write(
        &catalog,
        "acme/acme.users.s1.partial.yaml",
        &actions.concat(),
    );
    catalog
}

// ---- check ---------------------------------------------------------------------------------

fn check_demo(format: &str) -> (Sandbox, Run) {
    let sb = Sandbox::new("demo");
    let r = run(
        sb.root(),
        &[
            "check",
            "catalog",
            "--report",
            "out/coverage.csv",
            "--format",
            format,
        ],
    );
    (sb, r)
}

#[test]
fn check_demo_human() {
    let (sb, r) = check_demo("human");
    assert_eq!(r.code, 1, "{}", r.stderr);
    snapshot("commands/check-demo.human", &r.shown());
    // The CSV report is written, with the same columns as `backfill`.
    snapshot(
        "commands/check-demo.csv",
        &read(&sb.out.join("coverage.csv")),
    );
    // Every kind of action needing a human is reported.
    for code in [
        "missing-effects",
        "unclassified-action",
        "conflicting-effects",
        "invalid-effects",
    ] {
        assert!(r.stdout.contains(&format!("[{code}]")), "{code}");
    }
    // The built-in rules that matched nothing say nothing about the catalog: not reported.
    assert!(!r.stdout.contains("unused-heuristic"));
}

#[test]
fn check_demo_json() {
    let (_sb, r) = check_demo("json");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["partial"].is_null());
    assert_eq!(v["disappeared"], serde_json::json!([]));
    snapshot("commands/check-demo.json", &r.shown());
}

#[test]
fn check_demo_github() {
    let (_sb, r) = check_demo("github");
    assert_eq!(r.code, 1, "{}", r.stderr);
    for l in r.stdout.lines() {
        assert!(
            l.starts_with("::warning ") || l.starts_with("::error ") || l.starts_with("::notice "),
            "{l}"
        );
    }
    snapshot("commands/check-demo.github", &r.shown());
}

#[test]
fn check_demo_sarif() {
    let (_sb, r) = check_demo("sarif");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    snapshot("commands/check-demo.sarif", &r.shown());
}

#[test]
fn check_clean_catalog_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    clean_catalog(dir.path());
    let r = run(dir.path(), &["check", "clean", "--report", "out/c.csv"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.stderr, "");
    snapshot("commands/check-clean.human", &r.shown());
    // Quiet prints the totals line only.
    let q = run(
        dir.path(),
        &["check", "clean", "--report", "out/c.csv", "-q"],
    );
    assert_eq!(
        (q.code, q.stdout.as_str()),
        (
            0,
            "check: 0 errors, 0 warnings; 0 failing (--fail-on warning)\n"
        )
    );
}

#[test]
fn check_destructive_policy_sets_the_csv_hint_of_an_update_only() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = policy_catalog(dir.path());
    let hint = |policy: &str, id: &str| {
        let r = run(
            dir.path(),
            &[
                "check",
                catalog.to_str().unwrap(),
                "--report",
                "out/c.csv",
                "--destructive-policy",
                policy,
            ],
        );
        assert_eq!(r.code, 1, "{}", r.stderr);
        let csv = read(&dir.path().join("out/c.csv"));
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let col = header
            .iter()
            .position(|h| *h == "destructive_hint")
            .unwrap();
        let row = csv
            .lines()
            .find(|l| l.split(',').nth(3) == Some(id))
            .unwrap()
            .split(',')
            .map(str::to_owned)
            .collect::<Vec<_>>();
        row[col].clone()
    };
    assert_eq!(hint("delete", "update_user"), "false");
    assert_eq!(hint("overwrite", "update_user"), "true");
    assert_eq!(hint("delete", "create_user"), "false");
    assert_eq!(hint("overwrite", "create_user"), "false");
}

/// The `acme` connector of shape-a plus an update (PATCH) action.
fn policy_catalog(root: &Path) -> PathBuf {
    let catalog = root.join("policy");
    common::copy_dir(&common::fixture_dir("shape-a"), &catalog);
    let path = catalog.join("acme/acme.users.s1.partial.yaml");
    let mut text = read(&path);
    text.push_str("\n\n");
    text.push_str(&action(
        "update_user",
        "Update User",
        "Updates the email of a user.",
        "patch",
        "/users/:id",
        "",
    ));
    std::fs::write(&path, text).unwrap();
    catalog
}

#[test]
fn check_baseline_new_and_disappeared() {
    let sb = Sandbox::new("shape-a");
    let root = sb.root();
    let partial = sb.catalog.join("acme/acme.users.s1.partial.yaml");
    let first = run(root, &["check", "catalog", "--report", "out/base.csv"]);
    assert_eq!(first.code, 1, "{}", first.stderr);
    let original = read(&partial);

    // Remove delete_user (the last action) and add an action without effects.
    let at = original.find("- actionId: delete_user").unwrap();
    let mut changed = original[..at].to_owned();
    changed.push_str(&action(
        "disable_user",
        "Disable User",
        "Disables a user account.",
        "post",
        "/users/:id/disable",
        "",
    ));
    std::fs::write(&partial, &changed).unwrap();
    let args = [
        "check",
        "catalog",
        "--report",
        "out/now.csv",
        "--baseline",
        "out/base.csv",
    ];
    let second = run(root, &args);
    assert_eq!(second.code, 1, "{}", second.stderr);
    snapshot("commands/check-baseline.human", &second.shown());
    // With a baseline, only what is new is listed.
    let listed: Vec<&str> = second
        .stdout
        .lines()
        .filter(|l| l.contains(": warning ["))
        .collect();
    assert_eq!(listed.len(), 1, "{}", second.stdout);
    assert!(
        listed[0].contains("[new]") && listed[0].contains("`disable_user`"),
        "{}",
        listed[0]
    );
    assert!(second.stdout.contains(
        "check: 0 errors, 4 warnings; 1 new, 3 in the baseline, 1 action gone; 4 failing (--fail-on warning)\n"
    ), "{}", second.stdout);
    assert!(
        second
            .stdout
            .contains("gone since the baseline (1):\n  acme_hr_delete_user\n")
    );

    let json = run(root, &[&args[..], &["--format", "json"]].concat());
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["disappeared"], serde_json::json!(["acme_hr_delete_user"]));
    let new: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["new"] == true)
        .map(|f| f["tool"].as_str().unwrap())
        .collect();
    assert_eq!(new, ["acme_hr_disable_user"]);

    let fail_new = run(root, &[&args[..], &["--fail-on", "new"]].concat());
    assert_eq!(fail_new.code, 1, "{}", fail_new.stdout);

    // Only the removal: nothing new, so `--fail-on new` passes while `any` still fails.
    std::fs::write(&partial, &original[..at]).unwrap();
    let only_removed = run(root, &[&args[..], &["--fail-on", "new"]].concat());
    assert_eq!(only_removed.code, 0, "{}", only_removed.stdout);
    assert!(
        only_removed
            .stdout
            .contains("; 0 new, 3 in the baseline, 1 action gone; 0 failing (--fail-on new)\n"),
        "{}",
        only_removed.stdout
    );
    assert!(!only_removed.stdout.contains("[new]"));
    assert_eq!(run(root, &args).code, 1);
}

/// `--report` once defaulted to the file the recipes passed as `--baseline`, so a
/// run overwrote its own baseline and the next one found nothing new. A baseline is only read.
#[test]
fn check_refuses_a_report_over_its_baseline_and_leaves_it_whole() {
    let sb = Sandbox::new("shape-a");
    let base = sb.out.join("c.csv");
    assert_eq!(
        run(sb.root(), &["check", "catalog", "--report", "out/c.csv"]).code,
        1
    );
    let before = std::fs::read(&base).unwrap();
    // An action without effects, so a run that rewrote the baseline would change it.
    let partial = sb.catalog.join("acme/acme.users.s1.partial.yaml");
    let mut text = read(&partial);
    text.push_str(&action(
        "ban_user",
        "Ban User",
        "Bans a user.",
        "post",
        "/users/:id/ban",
        "",
    ));
    std::fs::write(&partial, text).unwrap();
    for report in ["out/c.csv", "out/./c.csv"] {
        let r = run(
            sb.root(),
            &[
                "check",
                "catalog",
                "--report",
                report,
                "--baseline",
                "out/c.csv",
                "--fail-on",
                "new",
            ],
        );
        assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
        assert!(
            r.stderr
                .contains("--report would overwrite the baseline (--baseline)"),
            "{}",
            r.stderr
        );
        assert_eq!(std::fs::read(&base).unwrap(), before);
    }
    // Without --report, nothing is written, and the new action is new every time.
    for _ in 0..2 {
        let r = run(
            sb.root(),
            &[
                "check",
                "catalog",
                "--baseline",
                "out/c.csv",
                "--fail-on",
                "new",
            ],
        );
        assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("`ban_user`"), "{}", r.stdout);
        assert_eq!(std::fs::read(&base).unwrap(), before);
    }
}

#[test]
fn check_history_appends_one_row_per_run() {
    let sb = Sandbox::new("shape-a");
    let args = [
        "check",
        "catalog",
        "--report",
        "out/c.csv",
        "--history",
        "out/history.csv",
    ];
    assert_eq!(run(sb.root(), &args).code, 1);
    assert_eq!(run(sb.root(), &args).code, 1);
    let history = read(&sb.out.join("history.csv"));
    let lines: Vec<&str> = history.lines().collect();
    assert_eq!(lines.len(), 3, "{history}");
    assert_eq!(
        lines[0],
        "date,commit,actions,with_effects,added,agrees,conflict,unclassified,invalid,coverage_percent"
    );
    assert_eq!(history.matches("date,commit").count(), 1);
    // Outside git the commit is empty; the date is today's, in UTC.
    snapshot("commands/check-history.csv", &normalise_dates(&history));
    assert_eq!(lines[1], lines[2]);
}

#[test]
fn check_html_is_self_contained_and_names_every_connector() {
    let sb = Sandbox::new("demo");
    let r = run(
        sb.root(),
        &[
            "check",
            "catalog",
            "--report",
            "out/c.csv",
            "--html",
            "out/page/coverage.html",
        ],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let html = read(&sb.out.join("page/coverage.html"));
    assert!(html.starts_with("<!DOCTYPE html>") || html.starts_with("<!doctype html>"));
    assert!(!html.contains("http://") && !html.contains("https://"));
    for c in [
        "crmly",
        "drivebox",
        "help-desk",
        "paywave",
        "peoplehub",
        "staffcore",
        "talentpipe_ats",
    ] {
        assert!(html.contains(c), "{c} missing from the page");
    }
}

#[test]
fn check_duplicate_action_id() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = clean_catalog(dir.path());
    let path = catalog.join("acme/acme.users.s1.partial.yaml");
    let mut text = read(&path);
    text.push_str(&action(
        "create_user",
        "Create User Again",
        "Creates a user.",
        "post",
        "/users",
        "  effects: [write]\n",
    ));
    std::fs::write(&path, text).unwrap();
    let r = run(dir.path(), &["check", "clean", "--report", "out/c.csv"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    snapshot("commands/check-duplicate.human", &r.shown());
    assert!(r.stdout.contains(
        "clean/acme/acme.users.s1.partial.yaml:38:3: warning [duplicate-action-id]: `create_user` is also defined at clean/acme/acme.users.s1.partial.yaml:13"
    ), "{}", r.stdout);
}

#[test]
fn check_parse_error_exits_2() {
    let sb = Sandbox::new("malformed");
    let r = run(sb.root(), &["check", "catalog", "--report", "out/c.csv"]);
    assert_eq!(r.code, 2);
    snapshot("commands/check-malformed.human", &r.shown());
    // Errors go to stderr, as in every command, with their line and column.
    assert!(
        r.stderr
            .contains("error: catalog/bad/bad.connector.s1.yaml:8:5: invalid YAML"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("error: catalog/latin/latin.connector.s1.yaml:3:13: not UTF-8"),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("parse-error"), "{}", r.stdout);
    assert!(r.stdout.contains("; 2 parse errors\n"), "{}", r.stdout);
    // The readable file is still checked and reported.
    assert!(r.stdout.contains("[missing-effects]: `list_goods`"));
    let json = run(
        sb.root(),
        &[
            "check",
            "catalog",
            "--report",
            "out/c.csv",
            "--format",
            "json",
        ],
    );
    assert_eq!(json.code, 2);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let parse = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "parse-error" && f["level"] == "error")
        .count();
    assert_eq!(parse, 2);
}

// ---- annotations ---------------------------------------------------------------------------

#[test]
fn annotations_demo() {
    let sb = Sandbox::new("demo");
    let r = run(sb.root(), &["annotations", "catalog"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    snapshot("commands/annotations-demo.json", &r.shown());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let tools = v["tools"].as_array().unwrap();
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let meta =
        |name: &str, key: &str| tool(name)["_meta"][format!("catalog-effects/{key}")].clone();
    // `annotations: {idempotentHint: true}` is merged last; idempotentHint is true only there.
    let update = tool("crmly_update_contact");
    assert_eq!(update["annotations"]["idempotentHint"], true);
    assert_eq!(update["title"], "Update Contact");
    assert_eq!(update["annotations"]["title"], "Update Contact");
    // Paths are relative to the current directory, as everywhere the tool prints one.
    assert_eq!(
        meta("crmly_update_contact", "file"),
        "catalog/crmly/crmly_v1-0-0.s1.yaml"
    );
    assert_eq!(meta("crmly_update_contact", "line"), 154);
    let idempotent: Vec<&str> = tools
        .iter()
        .filter(|t| t["annotations"]["idempotentHint"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(idempotent, ["crmly_update_contact"]);
    // `annotations: {destructiveHint: false}` overrides a delete.
    let draft = tool("help-desk_delete_draft_reply");
    assert_eq!(
        meta("help-desk_delete_draft_reply", "effects"),
        serde_json::json!(["delete"])
    );
    assert_eq!(draft["annotations"]["destructiveHint"], false);
    // Declared and inferred are told apart.
    assert_eq!(meta("peoplehub_list_employees", "source"), "declared");
    assert_eq!(meta("crmly_list_contacts", "source"), "inferred");
    // An action without effects gets the specification's defaults, spelled out.
    assert_eq!(meta("peoplehub_legacy_bridge", "source"), "none");
    assert_eq!(
        tool("peoplehub_legacy_bridge")["annotations"],
        serde_json::json!({"title": "Legacy Bridge", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": true})
    );
    // help-desk_delete_ticket declares [read] on a DELETE: exported not read-only (the safe
    // reading, tests/export_tools.rs), with a warning, under `_meta` and on stderr.
    assert_eq!(
        tool("help-desk_delete_ticket")["annotations"]["readOnlyHint"],
        false
    );
    assert!(
        meta("help-desk_delete_ticket", "warning")
            .as_str()
            .unwrap()
            .starts_with("declares [read], but the evidence says [delete]"),
    );
    assert!(
        r.stderr.contains("warning: catalog/help-desk/helpdesk.tickets.s1.partial.yaml:168:3: `help-desk_delete_ticket` declares [read]"),
        "{}",
        r.stderr
    );
    // Names are `<connector>_<actionId>`, unique, sorted, and refresh actions are not tools.
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, names);
    assert!(!names.iter().any(|n| n.contains("refresh_token")));
}

/// Every tool has the same keys in the same order, all four hints as booleans, and a title
/// inside `annotations` equal to the tool's own.
#[test]
fn annotations_spell_out_every_hint_in_a_stable_order() {
    let dir = tempfile::tempdir().unwrap();
    let actions = [
        action(
            "list_users",
            "List Users",
            "Lists the users.",
            "get",
            "/users",
            "",
        ),
        action(
            "delete_user",
            "Delete User",
            "Deletes a user.",
            "delete",
            "/users/{id}",
            "",
        ),
        action(
            "create_user",
            "Create User",
            "Creates a user.",
            "post",
            "/users",
            "  effects: [read]\n",
        ),
        action(
            "widget_config",
            "''",
            "Widget configuration.",
            "",
            "/v1/x",
            "",
        ),
    ];
    let catalog = common::acme_catalog(dir.path(), "small", &actions);
    let r = run(dir.path(), &["annotations", "small"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    snapshot("commands/annotations-small.json", &r.shown());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let tools = v["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "acme_create_user",
            "acme_delete_user",
            "acme_list_users",
            "acme_widget_config"
        ]
    );
    for t in tools {
        let keys: Vec<&String> = t.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "_meta",
                "annotations",
                "description",
                "inputSchema",
                "name",
                "title"
            ],
            "{t}"
        );
        let a = t["annotations"].as_object().unwrap();
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(a[hint].is_boolean(), "{hint} of {}", t["name"]);
        }
        assert_eq!(a["title"], t["title"]);
    }
    // Key order as written (serde_json's map above sorts them): name, title, description,
    // inputSchema, annotations.
    let first = r.stdout.find("\"name\"").unwrap();
    assert!(first < r.stdout.find("\"title\"").unwrap());
    assert!(r.stdout.find("\"description\"").unwrap() < r.stdout.find("\"inputSchema\"").unwrap());
    assert!(r.stdout.find("\"inputSchema\"").unwrap() < r.stdout.find("\"annotations\"").unwrap());
    assert!(r.stdout.find("\"annotations\"").unwrap() < r.stdout.find("\"_meta\"").unwrap());
    // No label: a title from the actionId.
    assert_eq!(tools[3]["title"], "Widget config");
    // A declared read on a create is a warning; --strict makes it fail.
    assert!(
        r.stderr
            .contains("`acme_create_user` declares [read], but the evidence says [write]"),
        "{}",
        r.stderr
    );
    let strict = run(dir.path(), &["annotations", "small", "--strict"]);
    assert_eq!(strict.code, 1, "{}", strict.stderr);
    assert_eq!(strict.stdout, r.stdout);
    // The same tools split over other files keep the same order.
    std::fs::remove_file(catalog.join("acme/acme.users.s1.partial.yaml")).unwrap();
    write(
        &catalog,
        "acme/acme.b.s1.partial.yaml",
        &actions[..2].concat(),
    );
    write(
        &catalog,
        "acme/acme.a.s1.partial.yaml",
        &actions[2..].concat(),
    );
    let moved = run(dir.path(), &["annotations", "small"]);
    let v2: serde_json::Value = serde_json::from_str(&moved.stdout).unwrap();
    let names2: Vec<&str> = v2["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names2, names);
}

#[test]
fn annotations_output_file() {
    let sb = Sandbox::new("shape-a");
    let plain = run(sb.root(), &["annotations", "catalog"]);
    let r = run(
        sb.root(),
        &["annotations", "catalog", "-o", "out/deep/tools.json"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert_eq!(read(&sb.out.join("deep/tools.json")), plain.stdout);
    snapshot("commands/annotations-shape-a.json", &plain.shown());
}

#[test]
fn annotations_destructive_policy_overwrite_marks_updates_not_creates() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = policy_catalog(dir.path());
    let hints = |policy: &str| {
        let r = run(
            dir.path(),
            &[
                "annotations",
                catalog.to_str().unwrap(),
                "--destructive-policy",
                policy,
            ],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let d = |name: &str| {
            v["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .unwrap()["annotations"]["destructiveHint"]
                .clone()
        };
        (
            d("acme_hr_update_user"),
            d("acme_hr_create_user"),
            d("acme_hr_delete_user"),
        )
    };
    use serde_json::Value::Bool;
    assert_eq!(hints("delete"), (Bool(false), Bool(false), Bool(true)));
    assert_eq!(hints("overwrite"), (Bool(true), Bool(false), Bool(true)));
}

// ---- explain, explain-code -----------------------------------------------------------------

#[test]
fn explain_by_action_id_and_by_tool_name() {
    let sb = Sandbox::new("demo");
    let by_id = run(sb.root(), &["explain", "catalog", "update_contact"]);
    assert_eq!(by_id.code, 0, "{}", by_id.stderr);
    snapshot("commands/explain-update_contact.txt", &by_id.shown());
    let by_name = run(sb.root(), &["explain", "catalog", "crmly_update_contact"]);
    assert_eq!(by_name.code, 0);
    assert_eq!(by_name.stdout, by_id.stdout);
    for part in [
        "crmly_update_contact (catalog/crmly/crmly_v1-0-0.s1.yaml:154)\n",
        "\nevidence:\n",
        "  verb of the name: `update` (verb-overwrite: write); not read-only in ",
        "  rule http-put-patch -> write [strong]: ",
        "\nconfidence high from the labelled operations",
        "  * rule `http-put-patch` with a method that agrees: not read-only in ",
        "\ndecision: ",
        "inferred: [write], confidence high",
        "declared: none\n",
        "idempotentHint true",
        "\npatch for this action:\n",
        "+    effects:\n",
    ] {
        assert!(by_id.stdout.contains(part), "{part:?}");
    }
    // A read word's records are by position; its line sums them.
    let read = run(sb.root(), &["explain", "catalog", "crmly_list_leads"]);
    assert!(
        read.stdout.contains(
            "  verb of the name: `list` (verb-read: read), also a common noun; read-only in "
        ),
        "{}",
        read.stdout
    );
}

#[test]
fn explain_conflict_and_unclassified() {
    let sb = Sandbox::new("demo");
    let conflict = run(
        sb.root(),
        &["explain", "catalog", "help-desk_delete_ticket"],
    );
    assert_eq!(conflict.code, 0, "{}", conflict.stderr);
    snapshot("commands/explain-delete_ticket.txt", &conflict.shown());
    assert!(conflict.stdout.contains("declared: [read]\n"));
    assert!(conflict.stdout.contains("status: conflict"));
    let unclassified = run(sb.root(), &["explain", "catalog", "legacy_bridge"]);
    assert_eq!(unclassified.code, 0);
    assert!(unclassified.stdout.contains("status: unclassified"));
    assert!(unclassified.stdout.contains("  (no change)\n"));
}

/// A hold is a departure too: `explain` names the one that held an action, with its record
/// and its reason.
#[test]
fn explain_names_the_hold_that_held_an_action() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("acme")).unwrap();
    std::fs::write(
        dir.path().join("acme/acme.connector.s1.yaml"),
        "StackOne: 1.0.0\ninfo:\n  title: Acme\n  key: acme\n  version: 1.0.0\n\
         baseUrl: https://api.acme.example\nactions:\n  - actionId: user_activity_search\n\
         \x20   label: User activity search\n    inputs: []\n    steps:\n\
         \x20     - stepId: s1\n        stepFunction:\n          functionName: map_fields\n",
    )
    .unwrap();
    let r = run(dir.path(), &["explain", ".", "user_activity_search"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for part in [
        "plain reading: a change (otherwise)\n",
        "departure: hold-unsure-read, it stands: held for a person\n  settled by: hold-unsure-read (",
        "  its record against the plain reading, leave-one-provider-out: fired ",
        "held for a person: no method says which",
        "inferred: [search], confidence low\n",
        "status: unclassified",
    ] {
        assert!(r.stdout.contains(part), "{part:?}\n{}", r.stdout);
    }
}

/// A connector of one call shows nothing of how its API uses POST: a read-named POST is
/// held as the read, where beside the GETs of an API that sends its reads as GET it is the
/// POST's change the plain reading says.
#[test]
fn a_lone_post_is_held_not_proposed_as_a_change() {
    let roles = |id: &str, method: &str| {
        action(
            id,
            "Employee roles",
            "The employee's roles.",
            method,
            "/users/{id}/employeeExperience/assignedRoles",
            "",
        )
    };
    let explain = |actions: &[String]| {
        let dir = tempfile::tempdir().unwrap();
        let catalog = common::acme_catalog(dir.path(), "catalog", actions);
        let r = run(
            &catalog,
            &["explain", ".", "employee_experience_list_assigned_roles"],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let lone = explain(&[roles("employee_experience_list_assigned_roles", "post")]);
    for part in [
        "plain reading: a change (otherwise)\n",
        "departure: hold-lone-post, it stands: held for a person\n  settled by: hold-silent-post (",
        "held for a person: the API makes no other call",
        "inferred: [read], confidence low\n",
        "status: unclassified",
    ] {
        assert!(lone.contains(part), "{part:?}\n{lone}");
    }
    let beside = explain(&[
        roles("employee_experience_list_assigned_roles", "post"),
        roles("get_profile", "get"),
        roles("list_teams", "get"),
        roles("get_manager", "get"),
    ]);
    assert!(
        beside.contains("inferred: [write], confidence medium\n"),
        "{beside}"
    );
}

/// A multi-step action that fetches a token before the call that does the work: the token's
/// POST is how it authenticates, not what it does, so the GET after it is the method; where
/// the last call itself signs in, nothing is left out. A POST of its own before the last GET
/// stays its method, but says nothing against a read (no labelled record is of such an
/// action); a POST after a GET still does.
#[test]
fn a_call_that_only_signs_in_is_not_the_actions_method() {
    let two_steps = |id: &str, first: &str, then: &str| {
        format!(
            "- actionId: {id}\n  label: {id}\n  steps:\n    - stepId: auth\n      stepFunction:\n        functionName: request\n        parameters:\n          url: {first}\n          method: post\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters:\n          url: {then}\n          method: {}\n\n",
            if then.ends_with("token") {
                "post"
            } else {
                "get"
            }
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let catalog = common::acme_catalog(
        dir.path(),
        "catalog",
        &[
            two_steps(
                "list_users",
                "https://login.acme.example/oauth/token",
                "/users",
            ),
            two_steps(
                "get_user_profile",
                "/sessions",
                "/users/${inputs.id}/profile",
            ),
            two_steps("get_user_record", "/users/${inputs.id}/records", "/users"),
            two_steps("get_or_create_note", "/notes", "/notes/${steps.note.id}"),
            two_steps("get_access_token", "/login", "/oauth/token"),
            "- actionId: get_user_after_revoke\n  steps:\n    - stepId: revoke\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /users/${inputs.id}/tokens\n          method: delete\n    - stepId: read\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /users/${inputs.id}\n          method: get\n\n".to_owned(),
            two_steps("reset_auth", "/users/${inputs.id}/auth", "/users/${inputs.id}"),
            two_steps("rotate_api_token", "/users/${inputs.id}/tokens", "/users/${inputs.id}"),
            two_steps("invalidate_sessions", "/users/${inputs.id}/sessions", "/users/${inputs.id}"),
            "- actionId: get_upload_link\n  steps:\n    - stepId: file\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /files/${inputs.id}\n          method: get\n    - stepId: session\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /uploads\n          method: post\n\n".to_owned(),
        ],
    );
    let explain = |id: &str| {
        let r = run(&catalog, &["explain", ".", id]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    for (id, call) in [
        ("list_users", "POST https://login.acme.example/oauth/token"),
        ("get_user_profile", "POST /sessions"),
    ] {
        let out = explain(id);
        for part in [
            "  HTTP: GET\n",
            &format!("  left out: {call} (a POST that only signs in before a later call"),
            "inferred: [read], confidence high\n",
        ] {
            assert!(out.contains(part), "{id}: {part:?}\n{out}");
        }
    }
    // A POST that is no sign-in stays the action's method; before the last GET it prepares
    // that GET, and the read verb is judged as where no method speaks.
    let out = explain("get_user_record");
    for part in [
        "  HTTP: POST\n",
        "  its last call is a GET after a POST of its own",
        "inferred: [read], confidence medium\n",
    ] {
        assert!(
            out.contains(part) && !out.contains("left out"),
            "{part:?}\n{out}"
        );
    }
    // The POST before the GET still agrees with a change: a create that reads back what it
    // made is no read, whatever verb comes first.
    let out = explain("get_or_create_note");
    assert!(
        out.contains("inferred: [write], confidence medium\n"),
        "{out}"
    );
    // A POST after the GET is what the action does: a read verb over it is held.
    let out = explain("get_upload_link");
    assert!(
        out.contains("  HTTP: POST\n") && !out.contains("its last call is a GET"),
        "{out}"
    );
    assert!(out.contains("confidence low\n"), "{out}");
    // The last call signs in: the action is about signing in, and its POSTs are its own.
    let out = explain("get_access_token");
    assert!(
        out.contains("  HTTP: POST\n") && !out.contains("left out"),
        "{out}"
    );
    // Only a POST signs in. A DELETE of the user's tokens before the GET revokes them, and
    // a PUT of how users sign in is the work.
    let out = explain("get_user_after_revoke");
    assert!(
        out.contains("  HTTP: DELETE\n") && !out.contains("left out"),
        "{out}"
    );
    assert!(!out.contains("inferred: [read]"), "{out}");
    // An action whose name speaks of signing in is about it: its POST to `/auth` is the work.
    for id in ["reset_auth", "rotate_api_token", "invalidate_sessions"] {
        let out = explain(id);
        assert!(
            out.contains("  HTTP: POST\n") && !out.contains("left out"),
            "{id}: {out}"
        );
        assert!(!out.contains("inferred: [read]"), "{id}: {out}");
    }
}

#[test]
fn explain_unknown_action_exits_2() {
    let sb = Sandbox::new("shape-a");
    let r = run(sb.root(), &["explain", "catalog", "no_such_action"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.contains("no action `no_such_action` in catalog"),
        "{}",
        r.stderr
    );
}

const CHECK_CODES: [&str; 7] = [
    "missing-effects",
    "unclassified-action",
    "conflicting-effects",
    "invalid-effects",
    "duplicate-action-id",
    "parse-error",
    "unused-heuristic",
];

#[test]
fn explain_code_for_every_check_code_and_a_lint_code() {
    let cwd = tempfile::tempdir().unwrap();
    let mut all = String::new();
    for code in CHECK_CODES.iter().chain(&["vague-verb", "unused-silence"]) {
        let r = run(cwd.path(), &["explain-code", code]);
        assert_eq!(r.code, 0, "{code}: {}", r.stderr);
        assert!(r.stdout.starts_with(*code), "{}", r.stdout);
        assert!(r.stdout.len() > code.len() + 20, "{code}: too short");
        all.push_str(&format!("$ explain-code {code}\n{}\n", r.shown()));
    }
    snapshot("commands/explain-code.txt", &all);
}

#[test]
fn explain_code_unknown_exits_2_and_lists_codes() {
    let cwd = tempfile::tempdir().unwrap();
    let r = run(cwd.path(), &["explain-code", "no-such-code"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr
            .starts_with("error: unknown code `no-such-code`; known codes: ")
    );
    for code in CHECK_CODES.iter().chain(&["vague-verb"]) {
        assert!(r.stderr.contains(code), "{code}");
    }
}

// ---- audit ---------------------------------------------------------------------------------

/// One tool per verdict: agrees, missing, unsafe, overcautious, understated, unconfirmed,
/// destructive-unset, malformed (and an update that agrees only under the delete policy, and
/// a rename declared destructive, which is caution; `differs` needs the overwrite policy).
const TOOLS: &str = r#"{"tools": [
 {"name": "list_users", "title": "List users", "description": "Lists the users of the Acme directory.", "annotations": {"readOnlyHint": true}},
 {"name": "create_user", "title": "Create user", "description": "Creates a user in the Acme directory."},
 {"name": "delete_user", "title": "Delete user", "description": "Deletes a user from the Acme directory.", "annotations": {"readOnlyHint": true}},
 {"name": "user_get", "title": "Get user", "description": "Returns one user of the Acme directory.", "annotations": {"readOnlyHint": false, "destructiveHint": true}},
 {"name": "update_user", "title": "Update user", "description": "Updates the email of a user in the Acme directory.", "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}},
 {"name": "remove_group", "title": "Remove group", "description": "Deletes a group from the Acme directory.", "annotations": {"readOnlyHint": false, "destructiveHint": false}},
 {"name": "rename_group", "title": "Rename group", "description": "Renames a group of the Acme directory.", "annotations": {"readOnlyHint": false, "destructiveHint": true}},
 {"name": "create_group", "title": "Create group", "description": "Creates a group in the Acme directory.", "annotations": {"readOnlyHint": false}},
 {"name": "list_groups", "title": "List groups", "description": "Lists the groups of the Acme directory.", "annotations": {"readOnlyHnt": true, "destructiveHint": "false"}},
 {"name": "diff_groups", "title": "Diff groups", "description": "Shows the differences between two groups of the Acme directory.", "annotations": {"readOnlyHint": true}}
]}
"#;

const AUDIT_COLUMNS: &str = "tool_name,title,declared_read_only,declared_destructive,declared_idempotent,declared_open_world,inferred_effects,confidence,rules,inferred_read_only,inferred_destructive,verdict";

fn verdicts(csv: &str) -> Vec<(String, String)> {
    csv.lines()
        .skip(1)
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[0].to_owned(), cells[11].to_owned())
        })
        .collect()
}

#[test]
fn audit_every_verdict_report_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tools.json", TOOLS);
    let r = run(
        dir.path(),
        &["audit", "tools.json", "--report", "out/audit.csv"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    snapshot("commands/audit.human", &r.shown());
    let csv = read(&dir.path().join("out/audit.csv"));
    assert_eq!(csv.lines().next(), Some(AUDIT_COLUMNS));
    snapshot("commands/audit.csv", &csv);
    let v: Vec<(String, String)> = verdicts(&csv);
    let want = [
        ("list_users", "agrees"),
        ("create_user", "missing"),
        ("delete_user", "unsafe"),
        ("user_get", "overcautious"),
        ("update_user", "agrees"),
        ("remove_group", "understated"),
        ("rename_group", "agrees"),
        ("create_group", "destructive-unset"),
        ("list_groups", "malformed"),
        ("diff_groups", "unconfirmed"),
    ];
    assert_eq!(v, want.map(|(a, b)| (a.to_owned(), b.to_owned())).to_vec());
    assert!(
        r.stdout.contains("\ndiff_groups: unconfirmed: declared read-only; the rules lean to write, but not on evidence good enough to overrule a person"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("\nlist_groups: malformed: `annotations.readOnlyHnt` is not a hint (did you mean `readOnlyHint`?): clients drop it; `annotations.destructiveHint` is the string \"false\", not true or false"),
        "{}",
        r.stdout
    );

    let json = run(dir.path(), &["audit", "tools.json", "--format", "json"]);
    assert_eq!(json.code, 1);
    let parsed: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(parsed["tools"].as_array().unwrap().len(), 10);
    assert!(
        parsed["tools"][6]["reason"]
            .as_str()
            .unwrap()
            .starts_with("destructiveHint true on a change the policy calls non-destructive (write): caution the specification allows"),
        "{}",
        parsed["tools"][6]
    );
    snapshot("commands/audit.json", &json.shown());

    // Without the failing tools: exit 0, even with missing, unconfirmed, overcautious and
    // destructive-unset.
    let safe: serde_json::Value = serde_json::from_str(TOOLS).unwrap();
    let kept: Vec<serde_json::Value> = safe["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            !["delete_user", "remove_group", "list_groups"].contains(&t["name"].as_str().unwrap())
        })
        .cloned()
        .collect();
    write(
        dir.path(),
        "safe.json",
        &serde_json::to_string(&kept).unwrap(),
    );
    let ok = run(dir.path(), &["audit", "safe.json"]);
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    assert!(!ok.stdout.contains("unsafe  "));
    // Quiet: the totals line only.
    assert_eq!(
        run(dir.path(), &["audit", "safe.json", "-q"]).stdout,
        "7 tools: 3 agrees, 1 missing, 0 unsafe, 0 understated, 0 malformed, 1 unconfirmed, 1 overcautious, 0 differs, 1 destructive-unset\n"
    );
    let q = run(dir.path(), &["audit", "tools.json", "-q"]);
    assert_eq!((q.code, q.stdout.lines().count()), (1, 1), "{}", q.stdout);
}

/// `audit --format json` of a tool list: the exit code and the verdicts.
fn audit_verdicts(tools: &str) -> (i32, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tools.json", tools);
    let r = run(dir.path(), &["audit", "tools.json", "--format", "json"]);
    let v: serde_json::Value =
        serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("{}", r.stderr));
    let verdicts = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["verdict"].as_str().unwrap().to_owned())
        .collect();
    (r.code, verdicts)
}

/// A delete tool declaring `destructiveHint: false` passed with exit 0 as
/// "differs", though clients use that hint to decide whether to ask first.
#[test]
fn audit_a_delete_declaring_destructive_false_fails_like_unsafe() {
    let got = audit_verdicts(
        r#"[{"name": "delete_user", "description": "Deletes a user from the Acme directory.", "annotations": {"readOnlyHint": false, "destructiveHint": false}}]"#,
    );
    assert_eq!(got, (1, vec!["understated".to_owned()]));
}

/// `drop`, `truncate` and `erase` are delete verbs whose own records come
/// from too few providers, so the proposal is a delete at low confidence; below the default
/// `--min-confidence medium` it counted as unclassified, and a `readOnlyHint: true` on it was
/// `agrees`, exit 0: a client would run the delete without asking.
#[test]
fn audit_never_agrees_with_a_read_only_claim_on_a_delete() {
    let tools = r#"[{"name": "drop_database", "annotations": {"readOnlyHint": true}},
        {"name": "truncate_table", "annotations": {"readOnlyHint": true}},
        {"name": "erase_all", "annotations": {"readOnlyHint": true}}]"#;
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tools.json", tools);
    for min in ["low", "medium", "high"] {
        let r = run(
            dir.path(),
            &["audit", "tools.json", "--min-confidence", min],
        );
        assert_eq!(
            r.code, 1,
            "--min-confidence {min}: {}{}",
            r.stdout, r.stderr
        );
        for (tool, verb) in [
            ("drop_database", "drop"),
            ("truncate_table", "truncate"),
            ("erase_all", "erase"),
        ] {
            // A delete verb seen too little for its own record is judged by its sense's pool,
            // which clears the bar a person's claim needs: the verdict names it.
            let line = r
                .stdout
                .lines()
                .find(|l| l.starts_with(&format!("{tool}: ")))
                .unwrap_or_else(|| panic!("{min} {tool}: {}", r.stdout));
            assert!(
                line.starts_with(&format!("{tool}: unsafe: declared read-only, but the rules infer delete: clients run it without asking; any `verb-delete` verb read from the name")),
                "{min}: {line}"
            );
            assert!(line.contains("labelled operations of"), "{line}");
            assert!(
                line.contains(&format!("the verb `{verb}` (verb-delete) of the name")),
                "{min}: {line}"
            );
        }
    }
    assert_eq!(audit_verdicts(tools), (1, vec!["unsafe".to_owned(); 3]),);
    // The same weak delete with no read-only claim is still no finding of its own.
    assert_eq!(
        audit_verdicts(r#"[{"name": "drop_database", "annotations": {"readOnlyHint": false}}]"#),
        (0, vec!["agrees".to_owned()]),
    );
}

/// A hint that is not a boolean used to reject the whole list; now it is that tool's
/// verdict and the others are audited.
#[test]
fn audit_a_non_boolean_hint_is_malformed_and_the_rest_is_audited() {
    let got = audit_verdicts(
        r#"[{"name": "get_user", "description": "Returns a user.", "annotations": {"readOnlyHint": "yes"}},
            {"name": "list_users", "description": "Lists the users.", "annotations": {"readOnlyHint": true}}]"#,
    );
    assert_eq!(got, (1, vec!["malformed".to_owned(), "agrees".to_owned()]));
}

#[test]
fn audit_destructive_policy_overwrite_changes_an_update_not_a_create() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tools.json", TOOLS);
    let run_policy = |policy: &str| {
        let r = run(
            dir.path(),
            &[
                "audit",
                "tools.json",
                "--report",
                "out/a.csv",
                "--destructive-policy",
                policy,
            ],
        );
        assert_eq!(r.code, 1);
        let csv = read(&dir.path().join("out/a.csv"));
        csv.lines()
            .skip(1)
            .map(|l| {
                let c: Vec<&str> = l.split(',').collect();
                (c[0].to_owned(), c[10].to_owned(), c[11].to_owned())
            })
            .collect::<Vec<_>>()
    };
    let find = |rows: &[(String, String, String)], name: &str| {
        rows.iter().find(|r| r.0 == name).unwrap().clone()
    };
    let (del, over) = (run_policy("delete"), run_policy("overwrite"));
    assert_eq!(
        find(&del, "update_user"),
        ("update_user".into(), "false".into(), "agrees".into())
    );
    assert_eq!(
        find(&over, "update_user"),
        ("update_user".into(), "true".into(), "differs".into())
    );
    for rows in [&del, &over] {
        assert_eq!(
            find(rows, "create_user"),
            ("create_user".into(), "false".into(), "missing".into())
        );
    }
}

#[test]
fn audit_min_confidence_high_counts_a_medium_guess_as_unclassified() {
    let dir = tempfile::tempdir().unwrap();
    // Only a description verb: a medium-confidence write, declared read-only.
    write(
        dir.path(),
        "tools.json",
        r#"[{"name": "widget", "description": "Creates a widget.", "annotations": {"readOnlyHint": true}}]"#,
    );
    let medium = run(dir.path(), &["audit", "tools.json", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&medium.stdout).unwrap();
    let conf = v["tools"][0]["confidence"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert_eq!(conf, "medium", "the case needs a medium-confidence create");
    // 48 of 48 right is not enough to overrule a person (at least 94.7% with 95%
    // confidence): a note, not a failure.
    assert_eq!(v["tools"][0]["verdict"], "unconfirmed");
    assert_eq!(medium.code, 0, "{}", medium.stdout);
    let high = run(
        dir.path(),
        &[
            "audit",
            "tools.json",
            "--format",
            "json",
            "--min-confidence",
            "high",
        ],
    );
    assert_eq!(high.code, 0, "{}", high.stdout);
    let v: serde_json::Value = serde_json::from_str(&high.stdout).unwrap();
    assert_eq!(v["tools"][0]["verdict"], "agrees");
    assert_eq!(v["tools"][0]["inferred_effects"], serde_json::json!([]));
}

// ---- backfill --min-confidence ----------------------------------------------------------------

#[test]
fn backfill_min_confidence_high_patches_fewer_and_lists_the_rest() {
    let sb = Sandbox::new("demo");
    let default = sb.backfill(&[]);
    let high = sb.backfill(&["--min-confidence", "high"]);
    // The demo's two invalid declarations are warnings: both runs complete.
    assert_eq!((default.code, high.code), (0, 0), "{}", high.stderr);
    let (a, b) = (default.added(), high.added());
    assert!(b < a, "high {b} vs default {a}");
    assert!(
        high.patch.matches("+    effects:").count() + high.patch.matches("+  effects:").count()
            < default.patch.matches("+    effects:").count()
                + default.patch.matches("+  effects:").count()
    );
    snapshot(
        "commands/backfill-demo-min-confidence-high.stdout",
        &high.stdout,
    );
    let header = "below --min-confidence high or without a proposal, listed for a human instead of patched (";
    let listed = high
        .stdout
        .split(header)
        .nth(1)
        .unwrap_or_else(|| panic!("{}", high.stdout));
    // A medium proposal of the default run is listed, not patched.
    assert!(
        listed.contains("crmly_search_contacts  proposed search (medium): verb-search"),
        "{listed}"
    );
    assert_eq!(high.status_of("search_contacts"), "unclassified");
    assert_eq!(default.status_of("search_contacts"), "added");
    // Every row the high run lists is one more unclassified than the default run.
    let count: usize = listed
        .split(')')
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|_| panic!("{listed}"));
    let unclassified = |o: &common::Output| {
        o.statuses()
            .iter()
            .filter(|(_, s)| s == "unclassified")
            .count()
    };
    assert_eq!(a - b, unclassified(&high) - unclassified(&default));
    assert!(count >= a - b);
}

// ---- lint ----------------------------------------------------------------------------------

#[test]
fn lint_demo() {
    let sb = Sandbox::new("demo");
    let r = run(sb.root(), &["lint", "catalog"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    snapshot("commands/lint-demo.human", &r.shown());
    assert!(r.stdout.contains("error [empty-description]"));
    // Without the two error codes (the demo's stale `readOnlyHint: true` on a delete is
    // the other), nothing fails.
    assert!(r.stdout.contains("error [read-only-claim-contradicted]"));
    let r = run(
        sb.root(),
        &[
            "lint",
            "catalog",
            "--ignore",
            "empty-description,read-only-claim-contradicted",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        r.stdout
            .ends_with(" warnings; 0 failing (--fail-on error)\n"),
        "{}",
        r.stdout
    );
}

/// A small catalog for lint: a vague verb silenced, one left, an unused silence, an empty
/// description (error).
fn lint_catalog(root: &Path) -> PathBuf {
    let catalog = root.join("lintme");
    write(&catalog, "acme/acme.connector.s1.yaml", &main_file("acme"));
    let text = [
        action(
            "sync_users",
            "Sync Users",
            "Syncs users with the Acme directory.",
            "post",
            "/users/sync",
            "",
        )
        .replace(
            "actionId: sync_users\n",
            "actionId: sync_users # catalog-effects: ignore[vague-verb]\n",
        ),
        action(
            "sync_groups",
            "Sync Groups",
            "Syncs groups with the Acme directory.",
            "post",
            "/groups/sync",
            "",
        ),
        action(
            "list_users",
            "List Users",
            "Lists the users of the Acme directory.",
            "get",
            "/users",
            "",
        )
        .replace(
            "actionId: list_users\n",
            "actionId: list_users  # catalog-effects: ignore[vague-verb]\n",
        ),
        action(
            "remove_user",
            "Remove User",
            "''",
            "delete",
            "/users/:id",
            "",
        ),
    ]
    .concat();
    write(&catalog, "acme/acme.users.s1.partial.yaml", &text);
    catalog
}

fn codes(stdout: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["tool"].as_str().unwrap().to_owned(),
                f["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn lint_silences_and_unused_silence() {
    let dir = tempfile::tempdir().unwrap();
    lint_catalog(dir.path());
    let r = run(dir.path(), &["lint", "lintme", "--format", "json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let found = codes(&r.stdout);
    let has = |tool: &str, code: &str| found.contains(&(tool.to_owned(), code.to_owned()));
    assert!(!has("acme_sync_users", "vague-verb"), "{found:?}");
    assert!(has("acme_sync_groups", "vague-verb"), "{found:?}");
    assert!(has("acme_list_users", "unused-silence"), "{found:?}");
    assert!(!has("acme_sync_users", "unused-silence"), "{found:?}");
    assert!(has("acme_remove_user", "empty-description"), "{found:?}");
    let human = run(dir.path(), &["lint", "lintme"]);
    assert_eq!(human.code, 1);
    snapshot("commands/lint-small.human", &human.shown());
    assert!(human.stdout.contains(
        "lintme/acme/acme.users.s1.partial.yaml:23:3: warning [unused-silence]: the silence of `vague-verb` matches no finding; remove `vague-verb` from `# catalog-effects: ignore[...]`"
    ));
}

#[test]
fn lint_select_ignore_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    lint_catalog(dir.path());
    let only = |args: &[&str]| {
        let r = run(
            dir.path(),
            &[&["lint", "lintme", "--format", "json"], args].concat(),
        );
        let mut c: Vec<String> = codes(&r.stdout).into_iter().map(|(_, c)| c).collect();
        c.sort();
        c.dedup();
        (r.code, c)
    };
    assert_eq!(
        only(&["--select", "vague-verb"]),
        (0, vec!["vague-verb".to_owned()])
    );
    assert_eq!(
        only(&["--select", "empty-description,vague-verb"]),
        (
            1,
            vec!["empty-description".to_owned(), "vague-verb".to_owned()]
        )
    );
    let (code, c) = only(&["--ignore", "empty-description"]);
    assert_eq!(code, 0);
    assert!(!c.contains(&"empty-description".to_owned()) && c.contains(&"vague-verb".to_owned()));
    // Ignoring unused-silence hides the unused silence.
    let (_, c) = only(&["--ignore", "unused-silence"]);
    assert!(!c.contains(&"unused-silence".to_owned()));
    // An unknown code is an error.
    let bad = run(dir.path(), &["lint", "lintme", "--select", "no-such-code"]);
    assert_eq!(bad.code, 2, "{}", bad.stdout);
    assert!(bad.stderr.contains("no-such-code"), "{}", bad.stderr);
}

#[test]
fn lint_formats() {
    let dir = tempfile::tempdir().unwrap();
    lint_catalog(dir.path());
    for format in ["human", "json", "github", "sarif"] {
        let r = run(dir.path(), &["lint", "lintme", "--format", format]);
        assert_eq!(r.code, 1, "{format}: {}", r.stderr);
        snapshot(&format!("commands/lint-small.{format}"), &r.shown());
        if format == "sarif" {
            let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
            assert_eq!(v["version"], "2.1.0");
        }
        if format == "github" {
            assert!(
                r.stdout
                    .contains("::error file=lintme/acme/acme.users.s1.partial.yaml,line=")
            );
        }
    }
}

#[test]
fn lint_tools_json() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "tools.json",
        r#"{"tools": [
 {"name": "manage_users", "description": "Manages users in the Acme directory.", "annotations": {"readOnlyHint": false}},
 {"name": "list_users", "description": "Lists the users of the Acme directory.", "annotations": {"readOnlyHint": true}},
 {"name": "wipe", "description": ""}
]}"#,
    );
    let r = run(dir.path(), &["lint", "--tools", "tools.json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    snapshot("commands/lint-tools.human", &r.shown());
    assert!(r.stdout.contains("manage_users: warning [vague-verb]"));
    assert!(r.stdout.contains("wipe: error [empty-description]"));
    assert!(!r.stdout.contains("list_users:"));
    let ok = run(
        dir.path(),
        &[
            "lint",
            "--tools",
            "tools.json",
            "--ignore",
            "empty-description",
        ],
    );
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    // A catalog and --tools together are refused.
    let both = run(dir.path(), &["lint", "x", "--tools", "tools.json"]);
    assert_eq!(both.code, 2);
}

/// Each finding's hint is written for its own action by its own rule (no canned
/// example from another action), messages read as a person would write them, and a read-only
/// claim is caught when the description's own words or its method and path contradict it.
#[test]
fn lint_messages_fit_the_action_and_catch_contradicted_read_only_claims() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "tools.json",
        r#"{"tools": [
 {"name": "list_contacts", "description": "Lists contacts.", "annotations": {"readOnlyHint": true}},
 {"name": "delete_ticket", "description": "Deletes a ticket.", "annotations": {"readOnlyHint": false, "destructiveHint": true}},
 {"name": "manage_users", "description": "Manages users in the Acme directory.", "annotations": {"readOnlyHint": false, "destructiveHint": true}},
 {"name": "delete_repository", "description": "Permanently deletes a GitHub repository.", "annotations": {"readOnlyHint": true}}
]}"#,
    );
    let tools = run(dir.path(), &["lint", "--tools", "tools.json"]);
    assert_eq!(tools.code, 1, "{}", tools.stderr);
    common::acme_catalog(
        dir.path(),
        "billing",
        &[action(
            "status_summary",
            "Status Summary",
            "Read-only tool that recalculates and returns the invoice status.",
            "post",
            "/invoices/{id}/recalculate",
            "  effects: [read]\n",
        )],
    );
    let cat = run(dir.path(), &["lint", "billing"]);
    assert_eq!(cat.code, 1, "{}", cat.stderr);
    snapshot(
        "commands/lint-messages.human",
        &format!(
            "$ lint --tools tools.json\n{}\n$ lint billing\n{}",
            tools.shown(),
            cat.shown()
        ),
    );
    let all = format!("{}{}", tools.stdout, cat.stdout);
    // The canned example of one rule no longer lands on every action.
    assert!(
        !all.contains("Deletes the ticket and its comments"),
        "{all}"
    );
    assert!(!all.contains("hides which change happens"), "{all}");
    let line = |tool: &str, code: &str| {
        all.lines()
            .find(|l| l.starts_with(tool) && l.contains(&format!("[{code}]")))
            .unwrap_or_else(|| panic!("no {code} on {tool}:\n{all}"))
            .to_owned()
    };
    assert!(line("list_contacts", "description-repeats-name").contains("which contacts"));
    assert!(line("delete_ticket", "description-repeats-name").contains("which ticket"));
    assert!(
        line("manage_users", "vague-verb")
            .contains("e.g. \"Deletes users in the Acme directory.\"")
    );
    assert!(line("delete_repository", "read-only-claim-contradicted").contains(
        "claims readOnlyHint: true, but its own words (\"Permanently deletes a GitHub repository.\") say delete"
    ));
    assert!(
        line(
            "billing/acme/acme.users.s1.partial.yaml:1:3",
            "read-only-claim-contradicted"
        )
        .contains(
            "claims \"Read-only\", but its request (POST /invoices/{id}/recalculate) says execute"
        )
    );
}

#[test]
fn normalisers() {
    assert_eq!(normalise_dates("a 2024-01-31,b"), "a <DATE>,b");
    assert_eq!(normalise_dates("2024-1-31 é"), "2024-1-31 é");
    let root = Path::new("/tmp/x");
    assert_eq!(normalise_tmp("/tmp/x/y", root), "<TMP>/y");
}

/// Each subcommand's one-line help says what it does, once.
#[test]
fn help_describes_each_command_once() {
    let cwd = tempfile::tempdir().unwrap();
    let r = run(cwd.path(), &["--help"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout
            .matches("Report what still needs a human; writes nothing into the catalog")
            .count(),
        1,
        "{}",
        r.stdout
    );
    assert_eq!(
        r.stdout
            .matches("Check descriptions against the description contract")
            .count(),
        1,
        "{}",
        r.stdout
    );
    let audit = run(cwd.path(), &["audit", "--help"]);
    assert!(
        audit.stdout.starts_with("Audit the annotations"),
        "{}",
        audit.stdout
    );
}

const COMMANDS: [&str; 7] = [
    "backfill",
    "check",
    "annotations",
    "explain",
    "explain-code",
    "lint",
    "audit",
];

/// Every option of every command has a description written for that command, and
/// every command shows an example.
#[test]
fn help_describes_every_option_and_shows_an_example() {
    let cwd = tempfile::tempdir().unwrap();
    for cmd in COMMANDS {
        let help = run(cwd.path(), &[cmd, "--help"]).stdout;
        assert!(help.contains("\nExample"), "{cmd}: no example\n{help}");
        assert!(!help.contains("\\\""), "{cmd}: a literal backslash\n{help}");
        let lines: Vec<&str> = help.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            if !(t.starts_with("--") || (t.starts_with('-') && t.chars().nth(2) == Some(','))) {
                continue;
            }
            let flag = t
                .split([' ', ','])
                .find(|w| w.starts_with("--"))
                .unwrap_or(t);
            // A description on the same line (short help) or on the next one.
            let inline = t
                .split_once("  ")
                .is_some_and(|(_, d)| !d.trim().is_empty());
            let next = lines.get(i + 1).map_or("", |l| l.trim());
            assert!(
                inline || (!next.is_empty() && !next.starts_with('[')),
                "{cmd} {flag}: no description\n{help}"
            );
        }
        // The backfill wording of --min-confidence stays on the commands that patch.
        if !["backfill", "explain-code"].contains(&cmd) {
            let at = help
                .find("--min-confidence")
                .unwrap_or_else(|| panic!("{cmd}"));
            let text = &help[at..at + 300];
            assert!(
                !text.contains("listed for a human instead of patched"),
                "{cmd}: {text}"
            );
        }
    }
}

/// A mistyped action id or finding code gets the closest known one.
#[test]
fn mistyped_ids_and_codes_get_a_suggestion() {
    let sb = Sandbox::new("shape-a");
    let r = run(sb.root(), &["explain", "catalog", "acme_hr_delete_usr"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            "no action `acme_hr_delete_usr` in catalog (did you mean `acme_hr_delete_user`?)"
        ),
        "{}",
        r.stderr
    );
    let r = run(sb.root(), &["explain", "catalog", "delet_user"]);
    assert!(
        r.stderr.contains("(did you mean `delete_user`?)"),
        "{}",
        r.stderr
    );
    let r = run(sb.root(), &["explain-code", "missing-effect"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with(
            "error: unknown code `missing-effect` (did you mean `missing-effects`?); known codes: "
        ),
        "{}",
        r.stderr
    );
    let r = run(sb.root(), &["lint", "catalog", "--ignore", "vauge-verb"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("unknown lint code `vauge-verb` (did you mean `vague-verb`?)"),
        "{}",
        r.stderr
    );
    // Nothing close: no guess.
    let r = run(sb.root(), &["explain", "catalog", "zzzz"]);
    assert!(!r.stderr.contains("did you mean"), "{}", r.stderr);
}

/// `--help` offers only what a command uses: a tool list has no catalog to exclude from or
/// to take evidence from, and one action explained has no progress to quiet or threads to
/// count. The top-level example names an action the sample has.
#[test]
fn help_offers_only_what_the_command_uses() {
    let dir = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| run(dir.path(), args).stdout;
    let audit = help(&["audit", "--help"]);
    for flag in ["--exclude", "--catalog-evidence", "--jobs"] {
        assert!(!audit.contains(flag), "audit offers {flag}:\n{audit}");
    }
    let explain = help(&["explain", "--help"]);
    for flag in ["--jobs", "--quiet"] {
        assert!(!explain.contains(flag), "explain offers {flag}:\n{explain}");
    }
    assert!(explain.contains("--exclude"), "{explain}");
    let top = help(&["--help"]);
    let example = top
        .lines()
        .find(|l| l.contains("catalog-effects explain"))
        .unwrap();
    let action = example.split_whitespace().nth(3).unwrap();
    let demo = common::manifest_dir().join("catalogs/demo");
    let r = run(&demo, &["explain", ".", action]);
    assert_eq!(r.code, 0, "{example}: {}", r.stderr);
}

//! The `backfill` command end to end: snapshots per fixture scenario, patches that `git apply`
//! and `patch -p1` accept, silent reruns, `--write`, `--fix-conflicts`, errors, paths, jobs.

// A test may say on the terminal what it skipped and why.
#![allow(clippy::print_stderr)]

mod common;

use common::{
    Output, SCENARIOS, Sandbox, check_only_inserted, git_apply, git_ok, patch_dry_run, read_tree,
    run_backfill, snapshot,
};

const CSV_HEADER: &str = "connector,file,line,action_id,tool_name,title,methods,paths,declared_effects,inferred_effects,status,confidence,rules,read_only_hint,destructive_hint,idempotent_hint,open_world_hint";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Patch,
    Csv,
    Stdout,
    Code,
}

const ALL: &[Part] = &[Part::Patch, Part::Csv, Part::Stdout, Part::Code];

/// Runs the scenario on a copy outside any git repository (paths relative to the catalog)
/// and compares the chosen outputs with `tests/snapshots/<scenario>.*`.
fn snapshot_scenario(name: &str, parts: &[Part]) -> Output {
    let sb = Sandbox::new(name);
    let out = sb.backfill(&[]);
    for part in parts {
        match part {
            Part::Patch => snapshot(&format!("{name}.patch"), &out.patch),
            Part::Csv => snapshot(&format!("{name}.csv"), &out.csv),
            Part::Stdout => snapshot(&format!("{name}.stdout"), &out.stdout),
            Part::Code => snapshot(&format!("{name}.code"), &format!("{}\n", out.code)),
        }
    }
    assert!(out.csv.starts_with(CSV_HEADER), "{}", out.csv);
    out
}

/// The patch of a run inside a fresh git repository applies with `git apply --check` and
/// `patch -p1 --dry-run`; once applied, every file is its original plus inserted lines, and a
/// second run proposes nothing.
fn round_trip(name: &str) {
    let sb = Sandbox::new(name);
    sb.git_init();
    let before = read_tree(&sb.catalog);
    let first = sb.backfill(&[]);
    assert!(
        first.code == 0 || (first.code == 2 && first.stderr.contains("error: ")),
        "exit {}: {}",
        first.code,
        first.stderr
    );
    assert!(!first.patch.is_empty(), "{name}: nothing proposed");
    let patch = sb.out.join("effects.patch");
    git_apply(sb.root(), &patch, true).unwrap_or_else(|e| panic!("{name}: git apply --check: {e}"));
    match patch_dry_run(sb.root(), &patch) {
        Some(r) => r.unwrap_or_else(|e| panic!("{name}: patch -p1 --dry-run: {e}")),
        None => eprintln!("`patch` is not installed: skipped"),
    }
    git_apply(sb.root(), &patch, false).unwrap_or_else(|e| panic!("{name}: git apply: {e}"));

    let after = read_tree(&sb.catalog);
    assert_eq!(before.len(), after.len());
    let mut changed = 0;
    for ((path, old), (path2, new)) in before.iter().zip(&after) {
        assert_eq!(path, path2);
        if old == new {
            assert!(
                !first.patch.contains(&format!(" b/catalog/{path}\n")),
                "{path} is in the patch but unchanged"
            );
            continue;
        }
        changed += 1;
        let (old, new) = (
            String::from_utf8(old.clone()).unwrap(),
            String::from_utf8(new.clone()).unwrap(),
        );
        check_only_inserted(&old, &new).unwrap_or_else(|e| panic!("{name}/{path}: {e}"));
    }
    assert_eq!(changed, first.patch.matches("diff --git ").count());

    let second = sb.backfill(&[]);
    assert_eq!(
        second.patch, "",
        "{name}: a rerun after applying proposes more"
    );
    assert_eq!(second.added(), 0, "{name}: {}", second.csv);
    assert_eq!(second.code, first.code, "{}", second.stderr);
    // Every action added by the first run now agrees; the other statuses are unchanged.
    let (a, b) = (first.statuses(), second.statuses());
    assert_eq!(a.len(), b.len());
    for ((id, s1), (id2, s2)) in a.iter().zip(&b) {
        assert_eq!(id, id2);
        let want = if s1 == "added" { "agrees" } else { s1.as_str() };
        assert_eq!(s2, want, "{name}: {id}");
    }
}

macro_rules! scenario {
    ($m:ident, $name:literal) => {
        mod $m {
            #[test]
            fn snapshot() {
                super::snapshot_scenario($name, super::ALL);
            }
            #[test]
            fn round_trip() {
                super::round_trip($name);
            }
        }
    };
}

scenario!(shape_a, "shape-a");
scenario!(shape_b, "shape-b");
scenario!(shape_c_d, "shape-c-d");
scenario!(comments, "comments-and-commented-out-action");
scenario!(trailing_comment, "trailing-comment-on-actionid");
scenario!(block_scalars, "block-scalars-looking-like-yaml");
scenario!(flow_collections, "flow-collections");
scenario!(quoted_keys, "quoted-keys-and-templating");
scenario!(crlf, "crlf");
scenario!(bom, "bom");
scenario!(non_ascii, "non-ascii-before-action");
scenario!(tab_after_dash, "tab-after-dash");
scenario!(no_final_newline, "no-final-newline");
scenario!(flow_mapping_action, "flow-mapping-action");
scenario!(existing_effects, "existing-effects");
scenario!(nested_refresh, "nested-refresh-action");
scenario!(malformed, "malformed");

scenario!(aliases, "aliases");
scenario!(mixed_sequence_indent, "mixed-sequence-indent");

/// A partial without a main file: its actions go under the folder name and the
/// missing main file is reported as an error, exit 2 ("a partial whose main file
/// is missing" is bad input). The patch and CSV are still written.
mod partial_without_main {
    use super::Part;

    #[test]
    fn snapshot_patch_csv() {
        let out = super::snapshot_scenario("partial-without-main", &[Part::Patch, Part::Csv]);
        assert_eq!(out.status_of("list_things"), "added");
        assert!(out.csv.contains(
            "\norphan,orphan/orphan.things.s1.partial.yaml,1,list_things,orphan_list_things,"
        ));
    }

    #[test]
    fn snapshot_stdout_code() {
        super::snapshot_scenario("partial-without-main", &[Part::Stdout, Part::Code]);
    }

    #[test]
    fn round_trip() {
        super::round_trip("partial-without-main");
    }
}

#[test]
fn demo_round_trip() {
    round_trip("demo");
}

#[test]
fn every_scenario_has_a_test() {
    // A new fixture folder must be added to SCENARIOS (and so to the round trips above).
    let mut found: Vec<String> = std::fs::read_dir(common::manifest_dir().join("tests/fixtures"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.push("demo".into());
    found.sort();
    let mut listed: Vec<String> = SCENARIOS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed);
}

#[test]
fn csv_has_the_columns_and_rows_sorted_by_file_then_line() {
    let sb = Sandbox::new("demo");
    let out = sb.backfill(&[]);
    // The demo declares two invalid `effects` on purpose: warnings (the run completes, exit
    // 0), and the patch and the report are written.
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("warning: catalog/crmly/crmly_v1-0-0.s1.yaml:449:5: `list_leads`: unknown effect(s): reed [invalid-effects]"), "{}", out.stderr);
    assert_eq!(out.csv.lines().next(), Some(CSV_HEADER));
    let mut reader = out.csv.lines().skip(1).peekable();
    assert!(reader.peek().is_some());
    // Parse with quotes: titles and paths may hold commas.
    let keys: Vec<(String, usize)> = parse_csv(&out.csv)
        .into_iter()
        .skip(1)
        .map(|r| (r[1].clone(), r[2].parse().unwrap()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    let statuses = [
        "added",
        "agrees",
        "conflict",
        "unclassified",
        "invalid",
        "skipped",
    ];
    for r in parse_csv(&out.csv).into_iter().skip(1) {
        assert_eq!(r.len(), 17, "{r:?}");
        assert!(statuses.contains(&r[10].as_str()), "{r:?}");
        assert_eq!(r[4], format!("{}_{}", r[0], r[3]));
    }
}

/// A minimal RFC 4180 reader (quotes, doubled quotes, commas and newlines inside quotes).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let (mut row, mut cell, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => row.push(std::mem::take(&mut cell)),
            ('\n', false) => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (c, _) => cell.push(c),
        }
    }
    if !cell.is_empty() || !row.is_empty() {
        row.push(cell);
        rows.push(row);
    }
    rows
}

#[test]
fn jobs_do_not_change_any_output() {
    let sandboxes: Vec<Sandbox> = ["demo", "crlf", "aliases", "malformed", "existing-effects"]
        .iter()
        .map(|n| Sandbox::new(n))
        .collect();
    let catalogs: Vec<&std::path::Path> = sandboxes.iter().map(|s| s.catalog.as_path()).collect();
    let run = |jobs: &str| {
        let out = tempfile::tempdir().unwrap();
        run_backfill(
            &catalogs,
            out.path(),
            out.path(),
            &["--jobs", jobs, "--fix-conflicts"],
        )
    };
    let one = run("1");
    assert_eq!(one.code, 2, "the malformed catalog makes it 2");
    assert!(one.patch.contains("diff --git "));
    for jobs in ["2", "4"] {
        let other = run(jobs);
        assert_eq!(one.patch, other.patch, "--jobs {jobs}");
        assert_eq!(one.csv, other.csv, "--jobs {jobs}");
        assert_eq!(one.stdout, other.stdout, "--jobs {jobs}");
        assert_eq!(one.stderr, other.stderr, "--jobs {jobs}");
        assert_eq!(one.code, other.code, "--jobs {jobs}");
    }
}

#[test]
fn patch_paths_are_relative_to_the_git_root_inside_a_repo() {
    let sb = Sandbox::nested("shape-a", "deep/er");
    sb.git_init();
    let out = sb.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let p = "deep/er/catalog/acme/acme.users.s1.partial.yaml";
    assert!(
        out.patch.starts_with(&format!(
            "diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ "
        )),
        "{}",
        out.patch
    );
    // The CSV keeps paths relative to the catalog.
    assert!(
        out.csv
            .contains(",acme/acme.users.s1.partial.yaml,1,list_users,")
    );
    let patch = sb.out.join("effects.patch");
    git_apply(sb.root(), &patch, true).unwrap();
    if let Some(r) = patch_dry_run(sb.root(), &patch) {
        r.unwrap();
    }
    // Run from inside the catalog with a relative path: same patch.
    let again = run_backfill(&[std::path::Path::new(".")], &sb.out, &sb.catalog, &[]);
    assert_eq!(again.patch, out.patch);
}

#[test]
fn patch_paths_are_relative_to_the_catalog_without_a_repo() {
    let sb = Sandbox::nested("shape-a", "deep/er");
    let out = sb.backfill(&[]);
    let p = "acme/acme.users.s1.partial.yaml";
    assert!(
        out.patch.starts_with(&format!(
            "diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ "
        )),
        "{}",
        out.patch
    );
    // It applies from the catalog directory.
    let patch = sb.out.join("effects.patch");
    git_ok(&sb.catalog, &["init", "-q"]);
    git_apply(&sb.catalog, &patch, true).unwrap();
    if let Some(r) = patch_dry_run(&sb.catalog, &patch) {
        r.unwrap();
    }
}

#[test]
fn write_round_trip_matches_the_patch_and_reruns_empty() {
    // The patch, applied by git in one copy...
    let by_patch = Sandbox::new("crlf");
    by_patch.git_init();
    let planned = by_patch.backfill(&[]);
    git_apply(by_patch.root(), &by_patch.out.join("effects.patch"), false).unwrap();
    // ... gives the same bytes as --write in another.
    let sb = Sandbox::new("crlf");
    sb.git_init();
    let written = sb.backfill(&["--write"]);
    assert_eq!(written.code, 0, "{}", written.stderr);
    assert_eq!(written.patch, planned.patch);
    assert!(
        written.stdout.contains("files written: 3, failed: 0"),
        "{}",
        written.stdout
    );
    assert_eq!(read_tree(&sb.catalog), read_tree(&by_patch.catalog));
    let again = sb.backfill(&["--write"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.patch, "");
    assert_eq!(again.added(), 0);
    assert!(again.stdout.contains("files written: 0, failed: 0"));
    assert_eq!(read_tree(&sb.catalog), read_tree(&by_patch.catalog));
}

#[test]
fn write_refuses_a_dirty_file_unless_allowed() {
    let sb = Sandbox::new("shape-b");
    sb.git_init();
    let dirty = "tiny/tiny.connector.s1.yaml";
    let mut text = sb.file(dirty);
    text.extend_from_slice(b"# a local change\n");
    std::fs::write(sb.catalog.join(dirty), &text).unwrap();
    let clean_before = sb.file("bundle/bundle_v1-0-0.s1.yaml");

    let out = sb.backfill(&["--write"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(dirty) && out.stderr.contains("uncommitted changes"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("files written: 2, failed: 1"),
        "{}",
        out.stdout
    );
    assert_eq!(sb.file(dirty), text, "the dirty file was written");
    let clean_after = String::from_utf8(sb.file("bundle/bundle_v1-0-0.s1.yaml")).unwrap();
    assert_eq!(
        check_only_inserted(&String::from_utf8(clean_before).unwrap(), &clean_after),
        Ok(6)
    );

    let allowed = sb.backfill(&["--write", "--allow-dirty"]);
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
    let now = String::from_utf8(sb.file(dirty)).unwrap();
    assert_eq!(
        check_only_inserted(&String::from_utf8(text).unwrap(), &now),
        Ok(2)
    );
    assert!(now.ends_with("# a local change\n"));
    assert_eq!(sb.backfill(&[]).patch, "");
}

#[test]
fn fix_conflicts_rewrites_in_the_style_written() {
    let sb = Sandbox::new("existing-effects");
    sb.git_init();
    let out = sb.backfill(&["--fix-conflicts"]);
    // The fixture's invalid declarations are warnings and are never rewritten.
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stderr.matches("[invalid-effects]").count(),
        2,
        "{}",
        out.stderr
    );
    snapshot("existing-effects.fix-conflicts.patch", &out.patch);
    // Flow stays flow, block stays block, each at its own place.
    assert!(
        out.patch
            .contains("-    effects: [read]\n+    effects: [delete]\n")
    );
    assert!(
        out.patch
            .contains("     effects:\n-      - read\n-      - search\n+      - write\n")
    );
    // The invalid ones are never fixed silently.
    assert!(!out.patch.contains("reed"));
    assert!(!out.patch.contains("effects: write"));
    git_apply(sb.root(), &sb.out.join("effects.patch"), false).unwrap();
    let text = String::from_utf8(sb.file("desk/desk.connector.s1.yaml")).unwrap();
    assert!(text.contains("  - actionId: delete_ticket\n    effects: [delete]\n"));
    assert!(text.contains("    effects:\n      - write\n    steps:"));
    for args in [&[][..], &["--fix-conflicts"][..]] {
        let again = sb.backfill(args);
        assert_eq!(again.patch, "", "{args:?}");
        assert_eq!(again.status_of("delete_ticket"), "agrees");
        assert_eq!(again.status_of("create_ticket"), "agrees");
        assert_eq!(again.status_of("list_views"), "invalid");
        assert_eq!(again.status_of("send_reply"), "invalid");
    }
}

#[test]
fn conflicts_are_left_alone_without_fix_conflicts() {
    let sb = Sandbox::new("existing-effects");
    let out = sb.backfill(&[]);
    assert_eq!(out.status_of("delete_ticket"), "conflict");
    assert_eq!(out.status_of("create_ticket"), "conflict");
    assert!(!out.patch.contains("desk.connector.s1.yaml"));
    // The annotations override is merged last.
    let row = out
        .rows()
        .into_iter()
        .find(|r| r[3] == "delete_draft_reply")
        .unwrap();
    assert_eq!(
        &row[8..],
        [
            "",
            "delete",
            "added",
            "high",
            "http-delete|verb-delete",
            "false",
            "false",
            "",
            "true"
        ]
    );
}

#[test]
fn fix_conflicts_leaves_a_merged_declaration_alone() {
    let sb = Sandbox::new("aliases");
    let out = sb.backfill(&["--fix-conflicts"]);
    assert_eq!(out.status_of("delete_lead"), "conflict");
    assert!(
        !out.patch.contains("crm.merged.s1.partial.yaml"),
        "{}",
        out.patch
    );
}

#[test]
fn merge_only_item_is_reported_with_its_position() {
    // Reported as a warning (editing.md: "reported, not edited"); not an error, since the
    // file was read and parsed.
    let sb = Sandbox::new("aliases");
    let out = sb.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("warning: catalog/crm/crm.merged.s1.partial.yaml:12:3: action gets its actionId only through a `<<` merge"),
        "{}",
        out.stderr
    );
    // The alias item `- *base` is the anchored action: reported once, edited once.
    assert_eq!(out.csv.matches(",list_leads,").count(), 1);
    assert_eq!(
        out.patch
            .matches("actionId: list_leads\n+    effects:")
            .count(),
        1
    );
}

#[test]
fn malformed_file_exits_2_names_its_position_and_others_are_patched() {
    let sb = Sandbox::new("malformed");
    let out = sb.backfill(&[]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("error: catalog/bad/bad.connector.s1.yaml:8:5: invalid YAML"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("error: catalog/latin/latin.connector.s1.yaml:3:13: not UTF-8"),
        "{}",
        out.stderr
    );
    assert!(
        out.patch
            .starts_with("diff --git a/good/good.connector.s1.yaml ")
    );
    assert!(!out.patch.contains("bad.connector") && !out.patch.contains("latin"));
    assert_eq!(out.status_of("list_goods"), "added");
    assert!(!out.csv.contains("list_bads"));
    assert!(out.stdout.contains("errors: 2"), "{}", out.stdout);
}

#[test]
fn refresh_action_is_skipped_and_never_patched() {
    let sb = Sandbox::new("nested-refresh-action");
    let out = sb.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.status_of("refresh_token_hub"), "skipped");
    assert_eq!(out.status_of("list_hubs"), "added");
    assert_eq!(out.patch.matches("+    effects:").count(), 1);
    assert!(
        out.patch
            .contains(" actionId: list_hubs\n+    effects:\n+      - read\n")
    );
    // Skipped rows carry no hints.
    let row = out
        .rows()
        .into_iter()
        .find(|r| r[3] == "refresh_token_hub")
        .unwrap();
    assert_eq!(&row[13..], ["", "", "", ""]);
}

#[test]
fn shapes_c_d_files_without_actions_and_commented_out_actions_stay_untouched() {
    for (name, untouched) in [
        (
            "shape-c-d",
            &["gong/gong.connector.s1.yaml", "box/box.connector.s1.yaml"][..],
        ),
        ("shape-a", &["acme/acme.connector.s1.yaml"][..]),
    ] {
        let sb = Sandbox::new(name);
        sb.git_init();
        let out = sb.backfill(&["--write"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        for f in untouched {
            assert!(!out.patch.contains(f), "{f}");
            assert_eq!(
                sb.file(f),
                std::fs::read(common::fixture_dir(name).join(f)).unwrap(),
                "{f}"
            );
        }
    }
    let sb = Sandbox::new("shape-c-d");
    let out = sb.backfill(&[]);
    // Partials take the main file's info.key, whatever the main file's shape.
    assert_eq!(
        out.rows().iter().map(|r| r[0].as_str()).collect::<Vec<_>>(),
        ["box-drive", "gong_crm", "gong_crm"]
    );

    let sb = Sandbox::new("comments-and-commented-out-action");
    let out = sb.backfill(&["--write"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ids: Vec<String> = out.statuses().into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["list_files", "delete_file"]);
    let f = "drive/drive.files.s1.partial.yaml";
    let old =
        std::fs::read_to_string(common::fixture_dir("comments-and-commented-out-action").join(f))
            .unwrap();
    let new = String::from_utf8(sb.file(f)).unwrap();
    assert_eq!(check_only_inserted(&old, &new), Ok(4));
    let commented = "# - actionId: upload_file\n#   label: Upload File\n";
    assert!(new.contains(commented) && !new.contains("#   effects"));
    assert!(new.contains(
        "#- actionId: move_file\n#  label: Move File\n\n- actionId: delete_file\n  effects:\n"
    ));
}

#[test]
fn insertions_follow_comments_line_endings_and_indentation() {
    let sb = Sandbox::new("trailing-comment-on-actionid");
    let out = sb.backfill(&[]);
    assert!(out.patch.contains(
        " - actionId: list_ticket_forms    #   padded comment: with colon\n+  effects:\n+    - read\n"
    ));
    let sb = Sandbox::new("crlf");
    let out = sb.backfill(&[]);
    assert!(
        out.patch
            .contains(" - actionId: list_documents\r\n+  effects:\r\n+    - read\r\n")
    );
    // Mixed endings: each insertion copies the line it follows.
    assert!(
        out.patch
            .contains(" - actionId: get_document\r\n+  effects:\r\n+    - read\r\n")
    );
    assert!(
        out.patch
            .contains(" - actionId: archive_document\n+  effects:\n+    - write\n")
    );
    // No final newline, CRLF: the last line gains the file's CRLF, the new last line none.
    assert!(out.patch.contains(
        "-- actionId: list_folders\n\\ No newline at end of file\n+- actionId: list_folders\r\n+  effects:\r\n+    - read\n\\ No newline at end of file\n"
    ));
    let sb = Sandbox::new("tab-after-dash");
    let out = sb.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.patch
            .contains(" -\tactionId: list_items\n+  effects:\n+    - read\n")
    );
    for l in out.patch.lines().filter(|l| l.starts_with('+')) {
        assert!(!l.contains('\t'), "a tab was copied into {l:?}");
    }
    let sb = Sandbox::new("bom");
    let out = sb.backfill(&[]);
    // The BOM is never indentation: the first action of a BOM file gets 2 spaces.
    assert!(out.patch.contains("+++ b/talent/talent.jobs.s1.partial.yaml\n@@ -1,4 +1,6 @@\n \u{feff}- actionId: list_jobs\n+  effects:\n+    - read\n"));
}

#[test]
fn flow_mapping_actions_get_an_inline_effects_entry() {
    let sb = Sandbox::new("flow-mapping-action");
    let out = sb.backfill(&[]);
    assert!(
        out.patch
            .contains("+  - {actionId: list_services, effects: [read], label: List Services,")
    );
    assert!(
        out.patch.contains(
            "+  - { actionId: delete_service, effects: [delete] , label: Delete Service,\n"
        )
    );
    assert!(out.patch.contains(
        "+  - {actionId: create_service, effects: [write], # a comment inside a flow mapping\n"
    ));
    assert!(
        out.patch
            .contains(" actionId: get_service\n+    effects:\n+      - read\n")
    );
}

#[test]
fn demo_time_off_follows_its_indentless_list_style() {
    let sb = Sandbox::new("demo");
    let out = sb.backfill(&[]);
    assert!(
        out.patch
            .contains(" - actionId: list_time_off_requests\n+  effects:\n+  - read\n"),
        "{}",
        out.patch
    );
}

#[test]
fn paths_with_spaces_and_non_ascii_apply() {
    let sb = Sandbox::new("shape-b");
    let catalog = sb.catalog.clone();
    std::fs::rename(catalog.join("tiny"), catalog.join("my tiny")).unwrap();
    std::fs::rename(catalog.join("bundle"), catalog.join("bündle")).unwrap();
    sb.git_init();
    let out = sb.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.patch.contains(
        "diff --git a/catalog/my tiny/tiny.connector.s1.yaml b/catalog/my tiny/tiny.connector.s1.yaml\n--- a/catalog/my tiny/tiny.connector.s1.yaml\t\n"
    ));
    assert!(out.patch.contains(
        "diff --git \"a/catalog/b\\303\\274ndle/bundle_v1-0-0.s1.yaml\" \"b/catalog/b\\303\\274ndle/bundle_v1-0-0.s1.yaml\"\n"
    ));
    let patch = sb.out.join("effects.patch");
    git_apply(sb.root(), &patch, true).unwrap();
    if let Some(r) = patch_dry_run(sb.root(), &patch) {
        r.unwrap();
    }
    git_apply(sb.root(), &patch, false).unwrap();
    assert_eq!(sb.backfill(&[]).patch, "");
}

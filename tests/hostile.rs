//! Issue 13: the defects a hostile trial found, each as a regression test that fails on the
//! code before the issue and passes after. Every route (the patch, `--write`, `--branch`)
//! must give the same file, or leave it alone with a message naming the action.
//! `reports/ROBUSTNESS.md` lists every case with its outcome.

mod common;

use common::{Routes, run_backfill, write_file};

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
                "warning: c/c.s1.yaml:1:11: `list_users` not edited: it is a single-pair mapping inside a flow sequence"
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
            "warning: c/c.s1.yaml:1:3: `list_users` not rewritten: its effects list is anchored (`&name`) and used elsewhere through an alias",
            "warning: c/c.s1.yaml:4:3: `get_users` not rewritten: its effects are an alias (`*name`)",
        ] {
            assert!(out.stderr.contains(warning), "{warning}\n{}", out.stderr);
        }
    }
    rerun_is_silent(files, &["--fix-conflicts"]);
}

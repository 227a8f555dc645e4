//! The catalog votes for itself. What the catalog declares for a verb,
//! beyond what the engine would have proposed itself, is evidence for the actions that
//! declare none, on every command that proposes for catalog actions; `--no-catalog-evidence`
//! (or `catalog-evidence = false`) turns it off, and `--catalog-evidence` on again.

mod common;

use std::path::Path;

use common::{action, main_file, manifest_dir, run_in as run, write_file as write};

fn demo() -> String {
    manifest_dir().join("catalogs/demo").display().to_string()
}

/// The CSV row of `id` in `csv`: its inferred effects, status and confidence.
fn row(csv: &str, id: &str) -> (String, String, String) {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let r: Vec<&str> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|r| r[col("action_id")] == id)
        .unwrap_or_else(|| panic!("no {id} in\n{csv}"));
    (
        r[col("inferred_effects")].to_owned(),
        r[col("status")].to_owned(),
        r[col("confidence")].to_owned(),
    )
}

/// The main file of each connector of `keys`, in a folder of its own.
fn connectors(catalog: &Path, keys: &[&str]) {
    for key in keys {
        write(
            catalog,
            &format!("{key}/{key}.connector.s1.yaml"),
            &main_file(key),
        );
    }
}

fn backfill(dir: &Path, catalog: &str, extra: &[&str]) -> String {
    let report = dir.join("coverage.csv").display().to_string();
    let patch = dir.join("effects.patch").display().to_string();
    let mut args = vec![
        "backfill", catalog, "--report", &report, "--patch", &patch, "--quiet",
    ];
    args.extend(extra);
    let out = run(dir, &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::fs::read_to_string(dir.join("coverage.csv")).unwrap()
}

#[test]
fn the_demos_declared_sync_neighbours_lift_sync_ledger_unless_turned_off() {
    let tmp = tempfile::tempdir().unwrap();
    let on = backfill(tmp.path(), &demo(), &[]);
    assert_eq!(
        row(&on, "sync_ledger"),
        ("execute".into(), "added".into(), "medium".into())
    );
    // Without them the GET reads plainly: the engine's `sync` is a departure too weak to
    // stand, and only keeps the read from high.
    let off = backfill(tmp.path(), &demo(), &["--no-catalog-evidence"]);
    assert_eq!(
        row(&off, "sync_ledger"),
        ("read".into(), "added".into(), "medium".into())
    );
    // Only the family's sibling changes.
    let differ: Vec<(&str, &str)> = on
        .lines()
        .zip(off.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(differ.len(), 1, "{differ:#?}");

    let explain = run(tmp.path(), &["explain", &demo(), "paywave_sync_ledger"]);
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    assert!(
        explain.stdout.contains(
            "catalog evidence: in this catalog, `sync` (over GET) is declared [execute] on 3 of 3 actions in 2 connectors"
        ),
        "{}",
        explain.stdout
    );
    assert!(
        explain.stdout.contains("status: added"),
        "{}",
        explain.stdout
    );
    let explain = run(
        tmp.path(),
        &[
            "explain",
            &demo(),
            "paywave_sync_ledger",
            "--no-catalog-evidence",
        ],
    );
    assert!(
        !explain.stdout.contains("catalog evidence:"),
        "{}",
        explain.stdout
    );
    assert!(
        explain.stdout.contains("status: added"),
        "{}",
        explain.stdout
    );

    // `check` proposes as backfill does; the configuration turns it off, and
    // `--catalog-evidence` on again.
    let check = run(tmp.path(), &["check", &demo(), "--fail-on", "never"]);
    assert!(
        check
            .stdout
            .contains("`sync_ledger` declares no effects; proposed [execute] (medium)"),
        "{}",
        check.stdout
    );
    let config = tmp.path().join("catalog-effects.toml");
    std::fs::write(&config, "catalog-evidence = false\n").unwrap();
    let on_again = run(
        tmp.path(),
        &["check", &demo(), "--fail-on", "never", "--catalog-evidence"],
    );
    assert!(
        on_again
            .stdout
            .contains("`sync_ledger` declares no effects; proposed [execute] (medium)"),
        "{}",
        on_again.stdout
    );
    let check = run(tmp.path(), &["check", &demo(), "--fail-on", "never"]);
    assert!(
        check
            .stdout
            .contains("`sync_ledger` declares no effects; proposed [read] (medium)"),
        "{}",
        check.stdout
    );
}

#[test]
fn a_rerun_after_a_reviewers_corrections_proposes_in_line_with_them() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog");
    let sync = |id: &str, extra: &str| {
        action(
            id,
            "Sync",
            "Synchronises the records with the provider.",
            "post",
            &format!("/{id}/sync"),
            extra,
        )
    };
    connectors(&catalog, &["acme", "beta"]);
    write(
        &catalog,
        "acme/acme.sync.s1.partial.yaml",
        &[sync("sync_users", ""), sync("sync_teams", "")].concat(),
    );
    write(
        &catalog,
        "beta/beta.sync.s1.partial.yaml",
        &[sync("sync_roles", ""), sync("sync_groups", "")].concat(),
    );
    let first = backfill(tmp.path(), "catalog", &[]);
    let (proposed, _, _) = row(&first, "sync_groups");
    assert_ne!(proposed, "write", "the engine alone: {first}");
    // A reviewer applies the patch but writes `[write]` on three of them.
    let declared = "  effects: [write]\n";
    write(
        &catalog,
        "acme/acme.sync.s1.partial.yaml",
        &[sync("sync_users", declared), sync("sync_teams", declared)].concat(),
    );
    write(
        &catalog,
        "beta/beta.sync.s1.partial.yaml",
        &[sync("sync_roles", declared), sync("sync_groups", "")].concat(),
    );
    let rerun = backfill(tmp.path(), "catalog", &[]);
    assert_eq!(
        row(&rerun, "sync_groups"),
        ("write".into(), "added".into(), "medium".into())
    );
    let off = backfill(tmp.path(), "catalog", &["--no-catalog-evidence"]);
    assert_eq!(row(&off, "sync_groups").0, proposed);
}

/// `lint` holds a description's read-only claim against the decision `backfill` makes,
/// votes included: the two never disagree on one action.
#[test]
fn lint_holds_a_claim_against_the_decision_the_votes_made() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog");
    let sync = |id: &str, description: &str, extra: &str| {
        action(
            id,
            "Sync",
            description,
            "get",
            &format!("/{id}/sync"),
            extra,
        )
    };
    let declared = "  effects: [execute]\n";
    connectors(&catalog, &["acme", "beta"]);
    write(
        &catalog,
        "acme/acme.sync.s1.partial.yaml",
        &[
            sync("sync_users", "Syncs the users.", declared),
            sync("sync_teams", "Syncs the teams.", declared),
        ]
        .concat(),
    );
    write(
        &catalog,
        "beta/beta.sync.s1.partial.yaml",
        &[
            sync("sync_roles", "Syncs the roles.", declared),
            sync("sync_ledger", "Syncs the ledger (read-only).", ""),
        ]
        .concat(),
    );
    let lint = |extra: &[&str]| {
        let mut args = vec!["lint", "catalog", "--fail-on", "never"];
        args.extend(extra);
        let out = run(tmp.path(), &args);
        assert_eq!(out.code, 0, "{}", out.stderr);
        out.stdout
    };
    let backfill_row = row(&backfill(tmp.path(), "catalog", &[]), "sync_ledger");
    assert_eq!(
        backfill_row,
        ("execute".into(), "added".into(), "medium".into())
    );
    let on = lint(&[]);
    assert!(
        on.lines()
            // `sync_ledger`'s line.
            .any(
                |l| l.starts_with("catalog/beta/beta.sync.s1.partial.yaml:13:")
                    && l.contains("read-only-claim-contradicted")
            ),
        "{on}"
    );
    let off = lint(&["--no-catalog-evidence"]);
    assert!(!off.contains("read-only-claim-contradicted"), "{off}");
}

/// A vote that only makes a patched proposal surer leaves the patch as it is and the report
/// says how sure; one that the engine's own proposals would make (declarations that echo it)
/// is no vote.
#[test]
fn a_vote_that_only_makes_a_proposal_surer_changes_the_report_not_the_patch() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog");
    // Four connectors: five `create_*` POSTs each declared [write], as the engine proposes
    // them, and four declared [execute], which it would not; one left undeclared.
    let keys = ["acme", "beta", "gamma", "delta"];
    connectors(&catalog, &keys);
    for (c, key) in keys.iter().enumerate() {
        let mut actions = String::new();
        for i in 0..9 {
            let declared = if i < 5 {
                "  effects: [write]\n"
            } else {
                "  effects: [execute]\n"
            };
            let id = format!("create_item_{c}_{i}");
            actions.push_str(&action(
                &id,
                "Create",
                "Creates one.",
                "post",
                "/items",
                declared,
            ));
        }
        if c == 0 {
            actions.push_str(&action(
                "create_order",
                "Create",
                "Creates one.",
                "post",
                "/orders",
                "",
            ));
        }
        write(
            &catalog,
            &format!("{key}/{key}.items.s1.partial.yaml"),
            &actions,
        );
    }
    let run_with = |extra: &[&str]| {
        let csv = backfill(tmp.path(), "catalog", extra);
        let patch = std::fs::read_to_string(tmp.path().join("effects.patch")).unwrap();
        (row(&csv, "create_order"), patch)
    };
    let (voted, patch_voted) = run_with(&[]);
    let (alone, patch_alone) = run_with(&["--no-catalog-evidence"]);
    assert_eq!(voted, ("write".into(), "added".into(), "high".into()));
    assert_eq!(alone, ("write".into(), "added".into(), "medium".into()));
    assert_eq!(patch_voted, patch_alone);
    assert!(patch_voted.contains("+  effects:"), "{patch_voted}");
    let explain = run(tmp.path(), &["explain", "catalog", "acme_create_order"]);
    assert!(
        explain.stdout.contains(
            "37 of its 37 declarations say a change, in 4 connectors (21 of them just what the engine proposes itself, which counts toward the share, not the level); on their own they are worth high"
        ),
        "{}",
        explain.stdout
    );
}

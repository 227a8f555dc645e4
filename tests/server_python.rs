//! The Python server reader through the public API: a real server's source
//! (tests/data/servers/src/mcp_server_git/server.py, `mcp-server-git` as published), and a
//! slot spliced into a file that is then read again and run with the real SDK. The SDK's
//! interpreter is `CATALOG_EFFECTS_MCP_PYTHON` (CI installs `mcp` 2.x there); without it the
//! run skips with the reason printed, unless `CATALOG_EFFECTS_REQUIRE` names `mcp`.

mod common;

use std::process::Command;

use catalog_effects::source::server::python::Python;
use catalog_effects::source::server::{Annotations, Language, Tool, Value};

fn git_server() -> String {
    let path = common::manifest_dir().join("tests/data/servers/src/mcp_server_git/server.py");
    std::fs::read_to_string(path).unwrap()
}

fn hints(pairs: &[(&str, bool)]) -> Annotations {
    Annotations::Literal(
        pairs
            .iter()
            .map(|&(k, v)| (k.to_owned(), Value::Bool(v)))
            .collect(),
    )
}

#[test]
fn the_git_servers_twelve_tools_are_read_with_names_from_its_enum() {
    let text = git_server();
    assert!(Python.is_server(&text));
    let found = Python.read(&text, "server.py").unwrap();
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    let names: Vec<&str> = found
        .tools
        .iter()
        .map(|t| t.name.as_deref().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "git_status",
            "git_diff_unstaged",
            "git_diff_staged",
            "git_diff",
            "git_commit",
            "git_add",
            "git_reset",
            "git_log",
            "git_create_branch",
            "git_checkout",
            "git_show",
            "git_branch",
        ]
    );
    let read_only = hints(&[
        ("readOnlyHint", true),
        ("destructiveHint", false),
        ("idempotentHint", true),
        ("openWorldHint", false),
    ]);
    for tool in &found.tools {
        let name = tool.name.as_deref().unwrap();
        let expected_writes = [
            "git_commit",
            "git_add",
            "git_reset",
            "git_create_branch",
            "git_checkout",
        ];
        if expected_writes.contains(&name) {
            let Annotations::Unread(text) = &tool.annotations else {
                panic!("{name}: {:?}", tool.annotations);
            };
            assert!(text.starts_with("writes(destructive="), "{text}");
            assert!(tool.slot.is_err(), "{name}");
        } else {
            assert_eq!(tool.annotations, read_only, "{name}");
            // READ_ONLY is shared by seven tools: a hint added to it would reach all.
            assert!(tool.slot.is_err(), "{name}: {:?}", tool.slot);
        }
        assert!(
            tool.inputs.first().is_some_and(|i| i == "repo_path"),
            "{name}"
        );
        assert!(tool.title.is_none());
        assert_eq!(&text[tool.start..tool.start + 13], "@server.tool(");
    }
    let status = &found.tools[0];
    assert_eq!(
        status.description.as_deref(),
        Some("Shows the working tree status")
    );
    assert_eq!(status.inputs, ["repo_path"]);
    assert_eq!((status.line, status.column), (529, 5));
    let branch = &found.tools[11];
    assert_eq!(
        branch.inputs,
        ["repo_path", "branch_type", "contains", "not_contains"]
    );
    let log = &found.tools[7];
    assert_eq!(
        log.inputs,
        ["repo_path", "max_count", "start_timestamp", "end_timestamp"]
    );
}

/// Every cut of a real server, and every one with a line of it removed, is read or refused
/// with a position, never a panic: error recovery hands the reader trees of every shape.
#[test]
fn a_server_cut_anywhere_is_read_or_refused_without_a_panic() {
    let text = git_server();
    let cuts = (0..text.len())
        .step_by(397)
        .filter(|&at| text.is_char_boundary(at));
    for at in cuts {
        let cut = &text[..at];
        match Python.read(cut, "server.py") {
            Ok(found) => {
                for tool in &found.tools {
                    assert!(tool.start < cut.len());
                    if let Ok(slot) = &tool.slot {
                        assert!(slot.at <= cut.len() && cut.is_char_boundary(slot.at));
                    }
                }
            }
            Err(e) => assert!(e.line.is_some() && e.column.is_some(), "{e:?}"),
        }
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for skip in (0..lines.len()).step_by(7) {
        let edited: String = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, l)| *l)
            .collect();
        if let Err(e) = Python.read(&edited, "server.py") {
            assert!(e.line.is_some(), "{e:?}");
        }
    }
}

/// What the reader reads from the source is what the same version of the server lists
/// (tests/data/servers/mcp-server-git.json, its `tools/list` through the SDK): names,
/// descriptions, input names, and every annotation the reader could read.
#[test]
fn the_git_servers_source_reads_as_it_lists() {
    let found = Python.read(&git_server(), "server.py").unwrap();
    let path = common::manifest_dir().join("tests/data/servers/mcp-server-git.json");
    let listed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let listed = listed["tools"].as_array().unwrap();
    assert_eq!(found.tools.len(), listed.len());
    for (tool, listed) in found.tools.iter().zip(listed) {
        let name = tool.name.as_deref().unwrap();
        assert_eq!(name, listed["name"], "{name}");
        assert_eq!(
            tool.description.as_deref(),
            listed["description"].as_str(),
            "{name}"
        );
        // serde_json's map here is sorted, so the names are compared as sets.
        let properties: Vec<&str> = listed["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut inputs = tool.inputs.clone();
        inputs.sort();
        assert_eq!(inputs, properties, "{name}");
        if let Annotations::Literal(entries) = &tool.annotations {
            let read: serde_json::Map<String, serde_json::Value> = entries
                .iter()
                .map(|(k, v)| match v {
                    Value::Bool(b) => (k.clone(), (*b).into()),
                    Value::Unread(t) => panic!("{name}: {k} unread: {t}"),
                })
                .collect();
            assert_eq!(
                serde_json::Value::Object(read),
                listed["annotations"],
                "{name}"
            );
        }
    }
}

/// A small server on the 2.x SDK with one tool of each registration shape the SDK runs
/// (`@server.tool()`, a multi-line call, `add_tool`), none with annotations.
const SMALL: &str = r#"from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("small")


@server.tool()
def read_note(key: str, ctx: Context) -> str:
    """Reads one note."""
    return key


@server.tool(
    name="drop_note",
    description='Deletes one note',
)
async def drop(key: str) -> str:
    return key


def pin(key: str, ttl: int = 3) -> str:
    return key


server.add_tool(pin, name="pin_note")
"#;

/// Every slot of `text` filled with the hints of `values`, from the last to the first so
/// each slot's byte still holds: the edited text, and the (start, end) of each insertion in
/// the original text's order.
fn splice(text: &str, tools: &[Tool], values: &[(bool, bool)]) -> (String, Vec<(usize, String)>) {
    let mut edits: Vec<(usize, String)> = tools
        .iter()
        .zip(values)
        .map(|(tool, &(read_only, destructive))| {
            let slot = tool.slot.as_ref().unwrap();
            let inserted = slot.render(&[
                ("readOnlyHint", read_only),
                ("destructiveHint", destructive),
            ]);
            (slot.at, inserted)
        })
        .collect();
    edits.sort_by_key(|e| e.0);
    let mut out = text.to_owned();
    for (at, inserted) in edits.iter().rev() {
        out.insert_str(*at, inserted);
    }
    (out, edits)
}

#[test]
fn a_spliced_slot_changes_only_its_bytes_reads_back_and_runs() {
    let found = Python.read(SMALL, "small.py").unwrap();
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(found.tools.len(), 3);
    assert!(
        found
            .tools
            .iter()
            .all(|t| t.annotations == Annotations::Absent)
    );
    let values = [(true, false), (false, true), (false, false)];
    let (edited, edits) = splice(SMALL, &found.tools, &values);

    // (a) Every byte outside the insertions is the original's, in order.
    let mut rest = edited.as_str();
    let mut from = 0;
    for (at, inserted) in &edits {
        let (kept, after) = rest.split_at(at - from);
        assert_eq!(kept, &SMALL[from..*at]);
        rest = after.strip_prefix(inserted.as_str()).unwrap();
        from = *at;
    }
    assert_eq!(rest, &SMALL[from..]);
    // The file binds no `ToolAnnotations` and writes `"`: a dict literal with its quote, in
    // each call's style.
    assert!(
        edited.contains(
            "@server.tool(annotations={\"readOnlyHint\": True, \"destructiveHint\": False})"
        ),
        "{edited}"
    );
    assert!(
        edited.contains(
            "    description='Deletes one note',\n    annotations={\"readOnlyHint\": False, \"destructiveHint\": True},\n)"
        ),
        "{edited}"
    );
    assert!(
        edited.contains(
            "server.add_tool(pin, name=\"pin_note\", annotations={\"readOnlyHint\": False, \"destructiveHint\": False})"
        ),
        "{edited}"
    );

    // (b) Read again: the same tools, now with exactly the inserted hints.
    let again = Python.read(&edited, "small.py").unwrap();
    assert!(again.problems.is_empty(), "{:?}", again.problems);
    assert_eq!(again.tools.len(), found.tools.len());
    for ((before, after), &(read_only, destructive)) in
        found.tools.iter().zip(&again.tools).zip(&values)
    {
        assert_eq!(after.name, before.name);
        assert_eq!(after.title, before.title);
        assert_eq!(after.description, before.description);
        assert_eq!(after.inputs, before.inputs);
        let shift: usize = edits
            .iter()
            .filter(|(at, _)| *at < before.start)
            .map(|(_, inserted)| inserted.len())
            .sum();
        assert_eq!(after.start, before.start + shift);
        assert_eq!(
            after.annotations,
            hints(&[
                ("readOnlyHint", read_only),
                ("destructiveHint", destructive)
            ])
        );
    }
    assert_eq!(found.tools[0].inputs, ["key"]);
    assert_eq!(found.tools[2].inputs, ["key", "ttl"]);

    // (c) The edited file still runs, and the SDK lists the inserted hints.
    let Some(python) = common::sdk_python("") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small_server.py"), &edited).unwrap();
    let script = "import asyncio, json, small_server\n\
                  tools = asyncio.run(small_server.server.list_tools())\n\
                  print(json.dumps({t.name: [t.annotations.read_only_hint, t.annotations.destructive_hint] for t in tools}, sort_keys=True))";
    let out = Command::new(&python)
        .args(["-c", script])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"{"drop_note": [false, true], "pin_note": [false, false], "read_note": [true, false]}"#
    );
}

/// Every slot shape of a file that imports `ToolAnnotations`: new keyword arguments in
/// each call style, hints added inside `ToolAnnotations(...)` and dict literals, the
/// decorator applied by hand, the low-level `types.Tool`.
const SHAPES: &str = r#"from mcp import types
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("shapes")


@server.tool()
def empty_call() -> str:
    return ""


@server.tool(
    name="trailing_comma",
    description="Multi-line, one argument per line",  # kept beside its argument
)
def trailing(key: str) -> str:
    return key


@server.tool(annotations=ToolAnnotations(openWorldHint=True))
def in_keywords() -> str:
    return ""


@server.tool(
    annotations={
        "idempotentHint": True,
    }
)
def in_dict() -> str:
    return ""


def added() -> str:
    return ""


server.add_tool(added)
server.tool(name="by_hand")(added)

LOW_LEVEL = [
    types.Tool(name="low", input_schema={"type": "object", "properties": {"q": {}}}),
]
"#;

#[test]
fn every_slot_shape_reads_back_and_runs() {
    let found = Python.read(SHAPES, "shapes.py").unwrap();
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    let values = [(true, false); 7];
    let (edited, _) = splice(SHAPES, &found.tools, &values);
    assert!(
        edited.contains(
            "    description=\"Multi-line, one argument per line\",  # kept beside its argument\n    annotations=ToolAnnotations(readOnlyHint=True, destructiveHint=False),\n)"
        ),
        "{edited}"
    );
    assert!(
        edited.contains("{\n        \"idempotentHint\": True,\n        \"readOnlyHint\": True,\n        \"destructiveHint\": False,\n    }"),
        "{edited}"
    );
    let again = Python.read(&edited, "shapes.py").unwrap();
    for (before, after) in found.tools.iter().zip(&again.tools) {
        let mut expected = match &before.annotations {
            Annotations::Literal(entries) => entries.clone(),
            _ => Vec::new(),
        };
        expected.push(("readOnlyHint".into(), Value::Bool(true)));
        expected.push(("destructiveHint".into(), Value::Bool(false)));
        assert_eq!(after.name, before.name);
        assert_eq!(after.inputs, before.inputs);
        assert_eq!(after.annotations, Annotations::Literal(expected));
    }
    assert_eq!(again.tools.len(), 7);

    let Some(python) = common::sdk_python("") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("shapes.py"), &edited).unwrap();
    let script = "import asyncio, json, shapes\n\
                  tools = asyncio.run(shapes.server.list_tools()) + shapes.LOW_LEVEL\n\
                  print(json.dumps({t.name: t.annotations.model_dump(exclude_none=True, by_alias=True) for t in tools}, sort_keys=True))";
    let out = Command::new(&python)
        .args(["-c", script])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let both = serde_json::json!({"readOnlyHint": true, "destructiveHint": false});
    let with = |k: &str| {
        let mut v = both.clone();
        v[k] = true.into();
        v
    };
    assert_eq!(
        listed,
        serde_json::json!({
            "empty_call": both,
            "trailing_comma": both,
            "in_keywords": with("openWorldHint"),
            "in_dict": with("idempotentHint"),
            "added": both,
            "by_hand": both,
            "low": both,
        })
    );
}

//! The TypeScript/JavaScript server reader (`source::server::script`): each registration
//! shape of the official SDK (`registerTool`, every `tool` overload), npm `fastmcp`'s
//! `addTool`, a low-level `Server`'s tool objects and default-exported action modules, in
//! TypeScript and JavaScript; names, descriptions and annotations through same-file
//! constants; the slots where missing hints go, spliced in and read back; the SDK's own
//! example servers (tests/data/servers/src, see tests/data/README.md); and a server on the
//! real SDK patched through its slots and run with `node`, whose `tools/list` must show
//! the inserted hints. That last part needs `node` and `CATALOG_EFFECTS_NODE_MODULES` (a
//! `node_modules` holding `@modelcontextprotocol/sdk` and `zod`, which `.ci/run` installs
//! with npm); without them it skips with the reason printed, unless
//! `CATALOG_EFFECTS_REQUIRE` names `node`.

// The size rule is the library's: a test reads as one scenario, top to bottom.
#![allow(clippy::too_many_lines)]

mod common;

use std::process::Command;

use catalog_effects::source::server::script::Script;
use catalog_effects::source::server::{Annotations, Found, Language, Slot, Tool, Value};

fn read(text: &str, name: &str) -> Found {
    match Script.read(text, name) {
        Ok(found) => found,
        Err(e) => panic!("{name} does not read: {e}"),
    }
}

fn only(text: &str, name: &str) -> Tool {
    let found = read(text, name);
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(found.tools.len(), 1, "{:#?}", found.tools);
    found.tools.into_iter().next().unwrap()
}

fn names(found: &Found) -> Vec<Result<String, String>> {
    found.tools.iter().map(|t| t.name.clone()).collect()
}

fn ok(name: &str) -> Result<String, String> {
    Ok(name.to_owned())
}

fn hints(pairs: &[(&str, bool)]) -> Annotations {
    Annotations::Literal(
        pairs
            .iter()
            .map(|&(k, v)| (k.to_owned(), Value::Bool(v)))
            .collect(),
    )
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// The text with `slot`'s rendering of `keys` inserted.
fn splice(text: &str, slot: &Slot, keys: &[(&str, bool)]) -> String {
    let mut out = text.to_owned();
    out.insert_str(slot.at, &slot.render(keys));
    out
}

/// The slot of the only tool, rendered for both hints and spliced in; the bytes outside
/// the insertion must be the file's, and reading the result back must give the same tool
/// with exactly the inserted hints added.
fn patch_only(text: &str, name: &str, keys: &[(&str, bool)]) -> String {
    let before = only(text, name);
    let slot = before
        .slot
        .clone()
        .unwrap_or_else(|why| panic!("no slot: {why}"));
    let patched = splice(text, &slot, keys);
    assert_only_inserted(text, &patched, &slot.render(keys));
    let after = only(&patched, name);
    assert_same_but_hints(&before, &after, keys);
    patched
}

/// `new` is `old` with `inserted` put in one place and nothing else changed.
fn assert_only_inserted(old: &str, new: &str, inserted: &str) {
    let prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = old[prefix..]
        .bytes()
        .rev()
        .zip(new[prefix..].bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    assert_eq!(
        prefix + suffix,
        old.len(),
        "bytes of the file were changed, not only added:\n{new}"
    );
    assert_eq!(new.len() - old.len(), inserted.len());
    assert!(new.contains(inserted));
}

fn assert_same_but_hints(before: &Tool, after: &Tool, keys: &[(&str, bool)]) {
    assert_eq!(before.name, after.name);
    assert_eq!(before.title, after.title);
    assert_eq!(before.description, after.description);
    assert_eq!(before.inputs, after.inputs);
    assert_eq!(before.start, after.start);
    let mut expected = match &before.annotations {
        Annotations::Absent => Vec::new(),
        Annotations::Literal(pairs) => pairs.clone(),
        Annotations::Unread(text) => panic!("an unread declaration `{text}` got a slot"),
    };
    expected.extend(keys.iter().map(|&(k, v)| (k.to_owned(), Value::Bool(v))));
    assert_eq!(after.annotations, Annotations::Literal(expected));
}

const BOTH: &[(&str, bool)] = &[("readOnlyHint", true), ("destructiveHint", false)];

#[test]
fn register_tool_in_typescript_and_javascript() {
    let ts = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const server: McpServer = new McpServer({ name: "demo", version: "1.0.0" });

server.registerTool(
  "get_user",
  {
    title: "Get user",
    description: "Reads a user",
    inputSchema: { id: z.string(), verbose: z.boolean().optional() },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ id }: { id: string }) => ({ content: [] }),
);

server.registerTool("delete_user", {
  description: "Deletes a user",
  inputSchema: z.object({ id: z.string() }).strict(),
}, async (args) => ({ content: [] }));

const MoveSchema = z.object({ from: z.string(), to: z.string() });
server.registerTool("move_user", { inputSchema: MoveSchema.shape }, async (args) => ({ content: [] }));
server.registerTool("copy_user", {
  inputSchema: MoveSchema.extend({ overwrite: z.boolean() }).omit({ from: true }).describe("copy"),
}, async (args) => ({ content: [] }));
server.registerTool("peek_user", { inputSchema: MoveSchema.pick({ to: true }) }, async () => ({ content: [] }));
"#;
    let found = read(ts, "server.ts");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(
        names(&found),
        [
            ok("get_user"),
            ok("delete_user"),
            ok("move_user"),
            ok("copy_user"),
            ok("peek_user")
        ]
    );
    assert_eq!(found.tools[2].inputs, strings(&["from", "to"]));
    assert_eq!(found.tools[3].inputs, strings(&["to", "overwrite"]));
    assert_eq!(found.tools[4].inputs, strings(&["to"]));
    let get = &found.tools[0];
    assert_eq!(get.title.as_deref(), Some("Get user"));
    assert_eq!(get.description.as_deref(), Some("Reads a user"));
    assert_eq!(get.inputs, strings(&["id", "verbose"]));
    assert_eq!(
        get.annotations,
        hints(&[("readOnlyHint", true), ("openWorldHint", false)])
    );
    assert_eq!((get.line, get.column), (6, 1));
    assert_eq!(&ts[get.start..get.start + 19], "server.registerTool");
    let delete = &found.tools[1];
    assert_eq!(delete.inputs, strings(&["id"]));
    assert_eq!(delete.annotations, Annotations::Absent);
    assert_eq!(delete.title, None);

    // The same registrations in plain JavaScript, CommonJS.
    let js = r#"const { McpServer } = require("@modelcontextprotocol/sdk/server/mcp.js");
const { z } = require("zod");
const server = new McpServer({ name: "demo", version: "1.0.0" });
server.registerTool("get_user", { description: "Reads a user", inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } }, async () => ({ content: [] }));
"#;
    assert!(Script.is_server(js));
    let tool = only(js, "server.cjs");
    assert_eq!(tool.name, ok("get_user"));
    assert_eq!(tool.inputs, strings(&["id"]));
    assert_eq!(tool.annotations, hints(&[("readOnlyHint", true)]));
}

#[test]
fn every_tool_overload() {
    let js = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
const s = new McpServer({ name: "x", version: "1" });
s.tool("a", async () => ({ content: [] }));
s.tool("b", "B does it", async () => ({ content: [] }));
s.tool("c", { q: z.string() }, async ({ q }) => ({ content: [] }));
s.tool("d", "D does it", { q: z.string(), n: z.number() }, async () => ({ content: [] }));
s.tool("e", { q: z.string() }, { readOnlyHint: true }, async () => ({ content: [] }));
s.tool("f", "F does it", { q: z.string() }, { destructiveHint: true, title: "Eff" }, async () => ({ content: [] }));
s.tool("g", { readOnlyHint: false, idempotentHint: true }, async () => ({ content: [] }));
s.tool("h", "H does it", { openWorldHint: true }, handler);
s.tool("i", {}, handler);
"#;
    for name in ["server.mjs", "server.ts"] {
        let found = read(js, name);
        assert!(found.problems.is_empty(), "{:?}", found.problems);
        let got: Vec<_> = found
            .tools
            .iter()
            .map(|t| {
                (
                    t.name.clone().unwrap(),
                    t.description.clone(),
                    t.inputs.clone(),
                    t.annotations.clone(),
                    t.title.clone(),
                )
            })
            .collect();
        let d = |s: &str| Some(s.to_owned());
        assert_eq!(
            got,
            [
                ("a".into(), None, vec![], Annotations::Absent, None),
                (
                    "b".into(),
                    d("B does it"),
                    vec![],
                    Annotations::Absent,
                    None
                ),
                ("c".into(), None, strings(&["q"]), Annotations::Absent, None),
                (
                    "d".into(),
                    d("D does it"),
                    strings(&["q", "n"]),
                    Annotations::Absent,
                    None
                ),
                (
                    "e".into(),
                    None,
                    strings(&["q"]),
                    hints(&[("readOnlyHint", true)]),
                    None
                ),
                (
                    "f".into(),
                    d("F does it"),
                    strings(&["q"]),
                    hints(&[("destructiveHint", true)]),
                    d("Eff")
                ),
                (
                    "g".into(),
                    None,
                    vec![],
                    hints(&[("readOnlyHint", false), ("idempotentHint", true)]),
                    None
                ),
                (
                    "h".into(),
                    d("H does it"),
                    vec![],
                    hints(&[("openWorldHint", true)]),
                    None
                ),
                // An empty object is an empty params shape, as the SDK takes it.
                ("i".into(), None, vec![], Annotations::Absent, None),
            ]
        );
    }
}

#[test]
fn fastmcp_add_tool() {
    let ts = r#"import { FastMCP } from "fastmcp";
import { z } from "zod";
const server = new FastMCP({ name: "x", version: "1.0.0" });
server.addTool({
  name: "add",
  description: "Adds " + "two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  annotations: { title: "Addition", readOnlyHint: true, openWorldHint: false },
  execute: async (args) => String(args.a + args.b),
});
server.addTool({
  name: "wipe",
  parameters: z.object({}),
  execute: async () => "",
});
"#;
    assert!(Script.is_server(ts));
    // Nothing in it is TypeScript's own: it reads the same as JavaScript.
    assert_eq!(read(ts, "index.js"), read(ts, "index.ts"));
    let found = read(ts, "index.ts");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(names(&found), [ok("add"), ok("wipe")]);
    let add = &found.tools[0];
    assert_eq!(add.description.as_deref(), Some("Adds two numbers"));
    assert_eq!(add.title.as_deref(), Some("Addition"));
    assert_eq!(add.inputs, strings(&["a", "b"]));
    assert_eq!(
        add.annotations,
        hints(&[("readOnlyHint", true), ("openWorldHint", false)])
    );
    assert_eq!(found.tools[1].annotations, Annotations::Absent);
    assert!(found.tools[1].slot.is_ok());
}

#[test]
fn low_level_tool_objects() {
    let ts = r#"import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
const ECHO = "echo";
const MoveSchema = z.object({ source: z.string(), destination: z.string() });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: ECHO,
      description: "Echoes",
      inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
      annotations: { readOnlyHint: true },
    },
    {
      name: "remove_file",
      inputSchema: zodToJsonSchema(RemoveSchema) as ToolInput,
    },
    {
      name: "move_file",
      inputSchema: z.toJSONSchema(MoveSchema),
    },
  ],
}));
"#;
    let found = read(ts, "index.ts");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(
        names(&found),
        [ok("echo"), ok("remove_file"), ok("move_file")]
    );
    assert_eq!(found.tools[0].inputs, strings(&["message"]));
    assert_eq!(found.tools[0].description.as_deref(), Some("Echoes"));
    assert_eq!(found.tools[0].annotations, hints(&[("readOnlyHint", true)]));
    assert_eq!(found.tools[1].inputs, Vec::<String>::new());
    assert_eq!(found.tools[1].annotations, Annotations::Absent);
    assert_eq!((found.tools[1].line, found.tools[1].column), (14, 5));
    assert_eq!(found.tools[2].inputs, strings(&["source", "destination"]));

    // The new property goes into the tool object itself, in the list's indentation.
    let one = ts.replace(
        "    {\n      name: \"remove_file\",\n      inputSchema: zodToJsonSchema(RemoveSchema) as ToolInput,\n    },\n    {\n      name: \"move_file\",\n      inputSchema: z.toJSONSchema(MoveSchema),\n    },\n",
        "",
    );
    let one = one.replace("      annotations: { readOnlyHint: true },\n", "");
    let patched = patch_only(&one, "index.ts", BOTH);
    assert!(
        patched.contains(
            "required: [\"message\"] },\n      annotations: { readOnlyHint: true, destructiveHint: false },\n    },"
        ),
        "{patched}"
    );
}

#[test]
fn action_modules() {
    let js = r#"import app from "../../app.app.mjs";
export default {
  key: "acme-delete-record",
  name: "Delete Record",
  description: "Deletes a record",
  version: "0.0.1",
  type: "action",
  props: {
    app,
    recordId: { type: "string", label: "Record ID" },
  },
  async run({ $ }) {
    return this.app.deleteRecord(this.recordId);
  },
};
"#;
    assert!(Script.is_server(js), "an action module is a server file");
    let typed = js.replace("async run({ $ })", "async run({ $ }: { $: unknown })");
    assert!(Script.is_server(&typed));
    assert_eq!(
        only(&typed, "delete-record.ts").inputs,
        strings(&["app", "recordId"])
    );
    let tool = only(js, "delete-record.mjs");
    assert_eq!(tool.name, ok("acme-delete-record"));
    assert_eq!(tool.title.as_deref(), Some("Delete Record"));
    assert_eq!(tool.description.as_deref(), Some("Deletes a record"));
    assert_eq!(tool.inputs, strings(&["app", "recordId"]));
    assert_eq!(tool.annotations, Annotations::Absent);
    let patched = patch_only(js, "delete-record.mjs", BOTH);
    assert!(
        patched
            .contains("  },\n  annotations: { readOnlyHint: true, destructiveHint: false },\n};")
    );

    // A source (not an action), or an object without `run`, is not one.
    let source = js.replace("type: \"action\"", "type: \"source\"");
    assert!(!Script.is_server(&source));
    assert!(read(&source, "a.mjs").tools.is_empty());
    let no_run = js.replace("async run(", "async go(");
    assert!(!Script.is_server(&no_run));
}

#[test]
fn names_through_constants_enums_and_objects() {
    let ts = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
enum Tools { Search = "search", Fetch = "fetch" }
const TOOLS = { LIST: "list_items", "get-one": "get_one" } as const;
const RENAME = `rename_item`;
const ALIAS = RENAME;
const server = new McpServer({ name: "x", version: "1" });
server.registerTool(Tools.Search, {}, async () => ({ content: [] }));
server.registerTool(Tools["Fetch"], {}, async () => ({ content: [] }));
server.registerTool(TOOLS.LIST, {}, async () => ({ content: [] }));
server.registerTool(TOOLS["get-one"], {}, async () => ({ content: [] }));
server.registerTool(ALIAS, {}, async () => ({ content: [] }));
server.registerTool(`plain`, {}, async () => ({ content: [] }));
server.registerTool(`dyn_${kind}`, {}, async () => ({ content: [] }));
server.registerTool(importedName, {}, async () => ({ content: [] }));
server.registerTool(Tools.Missing, {}, async () => ({ content: [] }));
"#;
    let found = read(ts, "names.ts");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(
        names(&found),
        [
            ok("search"),
            ok("fetch"),
            ok("list_items"),
            ok("get_one"),
            ok("rename_item"),
            ok("plain"),
            Err("`dyn_${kind}`".to_owned()),
            Err("importedName".to_owned()),
            Err("Tools.Missing".to_owned()),
        ]
    );
}

#[test]
fn a_name_bound_in_two_scopes_is_not_guessed() {
    let js = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
function one(server) { const name = "a"; server.registerTool(name, {}, async () => ({})); }
function two(server) { const name = "b"; server.registerTool(name, {}, async () => ({})); }
"#;
    let found = read(js, "two.js");
    assert_eq!(names(&found), [Err("name".into()), Err("name".into())]);

    // A loop's `const` shadows a constant of the same name.
    let js = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const tool = { name: "not_this" };
for (const tool of definitions) {
  server.registerTool(tool.name, { description: tool.description }, tool.handler);
}
"#;
    let found = read(js, "loop.js");
    assert_eq!(names(&found), [Err("tool.name".into())]);
    assert_eq!(found.tools[0].description, None);
}

#[test]
fn descriptions() {
    let js = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const DESC = "Shared " + `words`;
const s = new McpServer({ name: "x", version: "1" });
s.registerTool("a", { description: DESC }, async () => ({}));
s.registerTool("b", { description: "one " + "two " + 'three' }, async () => ({}));
s.registerTool("c", { description: `multi
line` }, async () => ({}));
s.registerTool("d", { description: describe("d") }, async () => ({}));
s.tool("e", DESC, async () => ({}));
"#;
    let found = read(js, "d.js");
    let got: Vec<Option<&str>> = found
        .tools
        .iter()
        .map(|t| t.description.as_deref())
        .collect();
    assert_eq!(
        got,
        [
            Some("Shared words"),
            Some("one two three"),
            Some("multi\nline"),
            None,
            Some("Shared words"),
        ]
    );
}

#[test]
fn annotations_as_written() {
    let ts = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const READ_ONLY = { readOnlyHint: true, destructiveHint: false } as const;
const YES = true;
const s = new McpServer({ name: "x", version: "1" });
s.registerTool("shared", { annotations: READ_ONLY }, async () => ({}));
s.registerTool("const_bool", { annotations: { readOnlyHint: YES, destructiveHint: flag, color: "red" } }, async () => ({}));
s.registerTool("spread", { annotations: { ...READ_ONLY, openWorldHint: true } }, async () => ({}));
s.registerTool("call", { annotations: writes({ destructive: true }) }, async () => ({}));
s.registerTool("imported", { annotations: IMPORTED }, async () => ({}));
s.registerTool("none", { description: "n" }, async () => ({}));
s.tool("tool_shared", READ_ONLY, async () => ({}));
"#;
    let found = read(ts, "a.ts");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    let t = &found.tools;
    assert_eq!(
        t[0].annotations,
        hints(&[("readOnlyHint", true), ("destructiveHint", false)])
    );
    assert_eq!(
        t[0].slot,
        Err("annotations shared through a constant".to_owned())
    );
    assert_eq!(
        t[1].annotations,
        Annotations::Literal(vec![
            ("readOnlyHint".into(), Value::Bool(true)),
            ("destructiveHint".into(), Value::Unread("flag".into())),
        ])
    );
    assert!(t[1].slot.is_ok());
    assert_eq!(
        t[2].annotations,
        Annotations::Unread("{ ...READ_ONLY, openWorldHint: true }".into())
    );
    assert!(t[2].slot.is_err());
    assert_eq!(
        t[3].annotations,
        Annotations::Unread("writes({ destructive: true })".into())
    );
    assert!(t[3].slot.is_err());
    assert_eq!(t[4].annotations, Annotations::Unread("IMPORTED".into()));
    assert!(t[4].slot.is_err());
    assert_eq!(t[5].annotations, Annotations::Absent);
    assert!(t[5].slot.is_ok());
    assert_eq!(
        t[6].annotations,
        hints(&[("readOnlyHint", true), ("destructiveHint", false)])
    );
    assert_eq!(
        t[6].slot,
        Err("annotations shared through a constant".to_owned())
    );
}

#[test]
fn configs_that_cannot_take_a_slot() {
    let js = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
const config = { description: "from a constant", inputSchema: { q: z.string() } };
const base = { title: "Base" };
const s = new McpServer({ name: "x", version: "1" });
s.registerTool("const_config", config, async () => ({}));
s.registerTool("spread_config", { ...base, description: "d" }, async () => ({}));
s.registerTool("spread_unknown", { ...elsewhere, description: "d" }, async () => ({}));
s.registerTool("built", buildConfig(), async () => ({}));
s.tool("unsure", schemaOrHints, async () => ({}));
"#;
    let found = read(js, "c.js");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    let t = &found.tools;
    assert_eq!(t[0].description.as_deref(), Some("from a constant"));
    assert_eq!(t[0].inputs, strings(&["q"]));
    assert_eq!(t[0].annotations, Annotations::Absent);
    assert!(t[0].slot.as_ref().unwrap_err().contains("`config`"));
    assert_eq!(t[1].title.as_deref(), None, "a spread's title is not read");
    assert_eq!(t[1].annotations, Annotations::Absent);
    assert!(t[1].slot.as_ref().unwrap_err().contains("spreads `base`"));
    assert_eq!(t[2].annotations, Annotations::Unread("...elsewhere".into()));
    assert!(t[2].slot.is_err());
    assert_eq!(
        t[3].annotations,
        Annotations::Unread("buildConfig()".into())
    );
    assert!(t[3].slot.is_err());
    assert_eq!(t[4].annotations, Annotations::Absent);
    assert!(
        t[4].slot
            .as_ref()
            .unwrap_err()
            .contains("`schemaOrHints` may be")
    );
}

#[test]
fn slot_in_a_one_line_config() {
    let head = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n";
    let plain =
        format!("{head}s.registerTool(\"a\", {{ description: \"d\" }}, async () => ({{}}));\n");
    let patched = patch_only(&plain, "a.js", BOTH);
    assert!(patched.contains(
        "{ description: \"d\", annotations: { readOnlyHint: true, destructiveHint: false } }"
    ));
    // A trailing comma stays where it was, after the new property.
    let comma =
        format!("{head}s.registerTool(\"a\", {{ description: \"d\", }}, async () => ({{}}));\n");
    let patched = patch_only(&comma, "a.js", BOTH);
    assert!(patched.contains(
        "{ description: \"d\", annotations: { readOnlyHint: true, destructiveHint: false }, }"
    ));
    // An empty config.
    let empty = format!("{head}s.registerTool(\"a\", {{}}, async () => ({{}}));\n");
    let patched = patch_only(&empty, "a.ts", BOTH);
    assert!(patched.contains(
        "(\"a\", { annotations: { readOnlyHint: true, destructiveHint: false } }, async"
    ));
}

#[test]
fn slot_in_a_multi_line_config() {
    // Trailing comma on the last property: the new one goes after it, with one too, and a
    // comment at the end of that line stays there.
    let ts = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
server.registerTool(\n  \"a\",\n  {\n    title: \"A\",\n    description: \"d\", // why\n  },\n  async () => ({ content: [] }),\n);\n";
    let patched = patch_only(ts, "a.ts", BOTH);
    assert!(
        patched.contains(
            "    description: \"d\", // why\n    annotations: { readOnlyHint: true, destructiveHint: false },\n  },"
        ),
        "{patched}"
    );

    // No trailing comma, in a file whose multi-line objects have none.
    let bare = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
server.registerTool('a', {\n\ttitle: 'A',\n\tdescription: 'd'\n}, async () => ({ content: [] }));\n";
    let patched = patch_only(bare, "a.js", BOTH);
    assert!(
        patched.contains(
            "\tdescription: 'd',\n\tannotations: { readOnlyHint: true, destructiveHint: false }\n}"
        ),
        "{patched}"
    );

    // No trailing comma here, but the file's other multi-line objects have them.
    let mixed = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
const a = {\n  x: 1,\n};\nconst b = {\n  y: 2,\n};\n\
server.registerTool('a', {\n  description: 'd'\n}, async () => ({ content: [] }));\n";
    let patched = patch_only(mixed, "a.js", BOTH);
    assert!(
        patched.contains(
            "  description: 'd',\n  annotations: { readOnlyHint: true, destructiveHint: false },\n}"
        ),
        "{patched}"
    );

    // Windows line endings are kept.
    let crlf = ts.replace('\n', "\r\n");
    let patched = patch_only(&crlf, "a.ts", BOTH);
    assert!(patched.contains(
        "// why\r\n    annotations: { readOnlyHint: true, destructiveHint: false },\r\n  },"
    ));
}

#[test]
fn slot_for_missing_keys_of_a_literal() {
    let one_line = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
s.registerTool('a', { annotations: { openWorldHint: false } }, async () => ({}));\n";
    let patched = patch_only(one_line, "a.js", BOTH);
    assert!(
        patched.contains("{ openWorldHint: false, readOnlyHint: true, destructiveHint: false }")
    );
    let one_key = patch_only(one_line, "a.js", &[("destructiveHint", true)]);
    assert!(one_key.contains("{ openWorldHint: false, destructiveHint: true }"));

    let multi = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
s.registerTool('a', {\n  annotations: {\n    title: 'A',\n    openWorldHint: false,\n  },\n}, async () => ({}));\n";
    let patched = patch_only(multi, "a.ts", BOTH);
    assert!(
        patched.contains(
            "    openWorldHint: false,\n    readOnlyHint: true,\n    destructiveHint: false,\n  },"
        ),
        "{patched}"
    );
    let empty = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
s.registerTool('a', { annotations: {} }, async () => ({}));\n";
    assert_eq!(
        only(empty, "a.js").annotations,
        Annotations::Literal(vec![])
    );
    let patched = patch_only(empty, "a.js", BOTH);
    assert!(patched.contains("{ annotations: { readOnlyHint: true, destructiveHint: false } }"));
}

#[test]
fn slot_as_a_new_tool_argument() {
    let same_line = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
s.tool(\"a\", \"d\", { q: z.string() }, async ({ q }) => ({ content: [] }));\n";
    let patched = patch_only(same_line, "a.js", BOTH);
    assert!(patched.contains(
        "{ q: z.string() }, { readOnlyHint: true, destructiveHint: false }, async ({ q })"
    ));
    let new_lines = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
s.tool(\n  \"a\",\n  async () => ({ content: [] })\n);\n";
    let patched = patch_only(new_lines, "a.ts", BOTH);
    assert!(
        patched
            .contains("  \"a\",\n  { readOnlyHint: true, destructiveHint: false },\n  async () =>"),
        "{patched}"
    );
}

#[test]
fn a_parse_error_is_an_error_at_its_place() {
    let bad = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
s.registerTool(\"a\", { description: \"é\" }, async () => ({}));\n\
const x = é é;\n";
    let err = Script.read(bad, "bad.js").unwrap_err();
    // Where the statement should have ended, after `const x = é`: 11 characters, 12 bytes.
    assert_eq!((err.line, err.column), (Some(3), Some(12)), "{err:?}");
    assert!(!err.message.is_empty());
    // TypeScript syntax is not JavaScript.
    let typed = "const x: number = 1;\n";
    assert!(Script.read(typed, "x.ts").is_ok());
    let err = Script.read(typed, "x.js").unwrap_err();
    assert_eq!(err.line, Some(1));
    // A name that is not a script's.
    assert!(Script.read(typed, "x.py").is_err());
}

#[test]
fn a_registration_that_cannot_be_read_is_a_problem_and_the_rest_still_reads() {
    let js = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
server.registerTool(\"first\", {}, async () => ({}));\n\
\x20 server.registerTool(...definition);\n\
server.addTool(toolFromElsewhere);\n\
server.registerTool(\"last\", {}, async () => ({}));\n";
    let found = read(js, "p.js");
    assert_eq!(names(&found), [ok("first"), ok("last")]);
    let at: Vec<_> = found.problems.iter().map(|p| (p.line, p.column)).collect();
    assert_eq!(at, [(Some(3), Some(3)), (Some(4), Some(1))]);
    assert!(
        found.problems[0]
            .message
            .starts_with("`server.registerTool(…)`: arguments spread"),
        "{}",
        found.problems[0]
    );
    assert!(
        found.problems[1].message.contains("toolFromElsewhere"),
        "{}",
        found.problems[1]
    );
}

#[test]
fn columns_count_characters_and_offsets_count_bytes() {
    let js = "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
const ü = \"ü\"; s.registerTool(\"a\", {}, async () => ({}));\n";
    let tool = only(js, "u.js");
    assert_eq!((tool.line, tool.column), (2, 16));
    assert_eq!(&js[tool.start..tool.start + 2], "s.");
}

#[test]
fn is_server_reads_imports_not_mentions() {
    let yes = [
        "import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';",
        "import { Server } from \"@modelcontextprotocol/sdk/server/index.js\";",
        "const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');",
        "import { McpServer } from '@modelcontextprotocol/server';",
        "const m = await import(\"@modelcontextprotocol/server\");",
        "import { FastMCP } from 'fastmcp';",
        "import {\n  FastMCP,\n} from\n  \"fastmcp\";",
    ];
    for text in yes {
        assert!(Script.is_server(text), "{text}");
    }
    let no = [
        "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
        "// see the fastmcp docs",
        "const s = 'fastmcp';",
        "import x from 'fastmcp-helpers';",
        "import { McpServer } from '@modelcontextprotocol/servers';",
        "export default { key: 'k', type: 'source', async run() {} };",
    ];
    for text in no {
        assert!(!Script.is_server(text), "{text}");
    }
}

fn data(path: &str) -> String {
    std::fs::read_to_string(
        common::manifest_dir()
            .join("tests/data/servers/src")
            .join(path),
    )
    .unwrap()
}

#[test]
fn the_sdks_example_server() {
    let text = data("sdk-examples/simpleStreamableHttp.js");
    // Inside the SDK's package the example imports it by relative paths, not as a package;
    // it is still claimed, for the annotations with hints it writes.
    assert!(Script.is_server(&text));
    assert!(
        !Script.is_server(
            &text
                .replace("readOnlyHint", "x")
                .replace("destructiveHint", "y")
        )
    );
    assert!(
        Script.is_server(&text.replace("'../../server/", "'@modelcontextprotocol/sdk/server/"))
    );
    let found = read(&text, "simpleStreamableHttp.js");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    let got: Vec<_> = found
        .tools
        .iter()
        .map(|t| {
            (
                t.name.clone().unwrap(),
                t.title.clone(),
                t.inputs.clone(),
                t.annotations.clone(),
                t.line,
            )
        })
        .collect();
    let title = |s: &str| Some(s.to_owned());
    assert_eq!(
        got,
        [
            (
                "greet".into(),
                title("Greeting Tool"),
                strings(&["name"]),
                Annotations::Absent,
                30
            ),
            (
                "multi-greet".into(),
                title("Multiple Greeting Tool"),
                strings(&["name"]),
                hints(&[("readOnlyHint", true), ("openWorldHint", false)]),
                47
            ),
            (
                "collect-user-info".into(),
                None,
                strings(&["infoType"]),
                Annotations::Absent,
                84
            ),
            (
                "collect-user-info-task".into(),
                title("Collect Info with Task"),
                strings(&["infoType"]),
                Annotations::Absent,
                232
            ),
            (
                "start-notification-stream".into(),
                None,
                strings(&["interval", "count"]),
                Annotations::Absent,
                339
            ),
            (
                "list-files".into(),
                title("List Files with ResourceLinks"),
                strings(&["includeDescriptions"]),
                Annotations::Absent,
                416
            ),
            (
                "delay".into(),
                title("Delay"),
                strings(&["duration"]),
                Annotations::Absent,
                462
            ),
        ]
    );
    assert_eq!(
        found.tools[0].description.as_deref(),
        Some("A simple greeting tool")
    );
    // Every slot splices in and reads back.
    for tool in &found.tools {
        let missing: Vec<(&str, bool)> = BOTH
            .iter()
            .copied()
            .filter(|(k, _)| match &tool.annotations {
                Annotations::Literal(pairs) => !pairs.iter().any(|(p, _)| p == k),
                _ => true,
            })
            .collect();
        let slot = tool.slot.as_ref().unwrap();
        let patched = splice(&text, slot, &missing);
        assert_only_inserted(&text, &patched, &slot.render(&missing));
        let again = read(&patched, "simpleStreamableHttp.js");
        assert_eq!(names(&again), names(&found));
        let same = again.tools.iter().find(|t| t.start == tool.start).unwrap();
        assert_same_but_hints(tool, same, &missing);
    }
}

#[test]
fn the_sdks_low_level_example() {
    let text = data("sdk-examples/simpleTaskInteractive.js");
    let found = read(&text, "simpleTaskInteractive.js");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(names(&found), [ok("confirm_delete"), ok("write_haiku")]);
    assert_eq!(found.tools[0].inputs, strings(&["filename"]));
    assert_eq!(found.tools[1].inputs, strings(&["topic"]));
    assert_eq!(
        found.tools[0].description.as_deref(),
        Some("Asks for confirmation before deleting (demonstrates elicitation)")
    );
    assert!(
        found
            .tools
            .iter()
            .all(|t| t.annotations == Annotations::Absent)
    );
    assert_eq!((found.tools[0].line, found.tools[0].column), (369, 17));
}

#[test]
fn the_everything_servers_tools() {
    let all = hints(&[
        ("readOnlyHint", true),
        ("destructiveHint", false),
        ("idempotentHint", true),
        ("openWorldHint", false),
    ]);
    let text = data("server-everything/tools/get-annotated-message.js");
    let tool = only(&text, "get-annotated-message.js");
    assert_eq!(tool.name, ok("get-annotated-message"));
    assert_eq!(tool.title.as_deref(), Some("Get Annotated Message Tool"));
    assert_eq!(tool.inputs, strings(&["messageType", "includeImage"]));
    assert_eq!(tool.annotations, all);
    assert!(tool.slot.is_err(), "the config is a constant");

    let text = data("server-everything/tools/gzip-file-as-resource.js");
    let tool = only(&text, "gzip-file-as-resource.js");
    assert_eq!(tool.name, ok("gzip-file-as-resource"));
    assert_eq!(tool.inputs, strings(&["name", "data", "outputType"]));
    assert_eq!(
        tool.annotations,
        hints(&[
            ("readOnlyHint", false),
            ("destructiveHint", false),
            ("idempotentHint", true),
            ("openWorldHint", true),
        ])
    );

    let text = data("server-everything/tools/simulate-research-query.js");
    let tool = only(&text, "simulate-research-query.js");
    assert_eq!(tool.name, ok("simulate-research-query"));
    assert_eq!(tool.title.as_deref(), Some("Simulate Research Query"));
    assert!(
        tool.description
            .as_deref()
            .unwrap()
            .starts_with("Simulates a deep research operation that gathers")
    );
    assert_eq!(
        tool.annotations,
        hints(&[
            ("readOnlyHint", false),
            ("destructiveHint", false),
            ("idempotentHint", false),
            ("openWorldHint", false),
        ])
    );
    assert!(tool.slot.is_ok(), "an inline literal takes missing keys");
}

/// A server on the official SDK, with tools of every slot kind; `list.mjs` lists its tools
/// through the SDK's client over an in-memory transport and prints them as JSON.
const NODE_SERVER: &str = r#"import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

export const server = new McpServer({ name: "patched", version: "1.0.0" });

server.registerTool("one_line", { description: "one line" }, async () => ({ content: [] }));

server.registerTool(
  "multi_line",
  {
    title: "Multi line",
    inputSchema: { q: z.string() },
  },
  async () => ({ content: [] }),
);

server.registerTool("partial", {
  annotations: {
    openWorldHint: false,
  },
}, async () => ({ content: [] }));

server.tool("old_style", "described", { q: z.string() }, async () => ({ content: [] }));

server.tool(
  "old_bare",
  async () => ({ content: [] }),
);
"#;

const NODE_LIST: &str = r#"import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { server } from "./server.mjs";

const [a, b] = InMemoryTransport.createLinkedPair();
await server.connect(a);
const client = new Client({ name: "lister", version: "1.0.0" });
await client.connect(b);
const { tools } = await client.listTools();
console.log(JSON.stringify(tools.map((t) => ({ name: t.name, annotations: t.annotations ?? null }))));
await client.close();
"#;

#[test]
fn a_patched_server_runs_and_lists_the_inserted_hints() {
    // Read, and patch every slot from the last to the first so earlier offsets hold.
    let found = read(NODE_SERVER, "server.mjs");
    assert!(found.problems.is_empty(), "{:?}", found.problems);
    assert_eq!(
        names(&found),
        [
            ok("one_line"),
            ok("multi_line"),
            ok("partial"),
            ok("old_style"),
            ok("old_bare")
        ]
    );
    let mut patched = NODE_SERVER.to_owned();
    let mut slots: Vec<&Slot> = found
        .tools
        .iter()
        .map(|t| t.slot.as_ref().unwrap())
        .collect();
    slots.sort_by_key(|s| std::cmp::Reverse(s.at));
    for slot in slots {
        patched.insert_str(slot.at, &slot.render(BOTH));
    }
    let again = read(&patched, "server.mjs");
    assert_eq!(names(&again), names(&found));
    for (before, after) in found.tools.iter().zip(&again.tools) {
        assert_eq!(before.inputs, after.inputs);
        assert_eq!(before.description, after.description);
        assert_eq!(before.title, after.title);
    }
    assert_eq!(
        again.tools[2].annotations,
        hints(&[
            ("openWorldHint", false),
            ("readOnlyHint", true),
            ("destructiveHint", false)
        ])
    );
    assert!(patched.contains(
        "  annotations: {\n    openWorldHint: false,\n    readOnlyHint: true,\n    destructiveHint: false,\n  },"
    ));

    let Some(node_modules) = common::node_sdk() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(node_modules, dir.path().join("node_modules")).unwrap();
    std::fs::write(dir.path().join("list.mjs"), NODE_LIST).unwrap();
    // The tools a server's text lists when node runs it.
    let list = |server: &str| -> serde_json::Value {
        std::fs::write(dir.path().join("server.mjs"), server).unwrap();
        let out = Command::new("node")
            .arg("list.mjs")
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "node failed on the server:\n{}\n{server}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let listed = list(&patched);
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 5, "{listed:?}");
    for tool in listed {
        let a = &tool["annotations"];
        assert_eq!(a["readOnlyHint"], true, "{tool}");
        assert_eq!(a["destructiveHint"], false, "{tool}");
    }
    let partial = listed.iter().find(|t| t["name"] == "partial").unwrap();
    assert_eq!(partial["annotations"]["openWorldHint"], false);

    // The unpatched server lists no hints: the run above shows the insertions, not a default.
    let listed = list(NODE_SERVER);
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["annotations"]["readOnlyHint"].is_null())
    );
}

/// Every prefix of real and written servers, and each with a byte of noise put in, reads
/// to tools or an error without a panic, and every slot it gives is inside the text, at a
/// character's start.
#[test]
fn cut_and_damaged_files_never_panic() {
    let texts = [
        NODE_SERVER.to_owned(),
        data("server-everything/tools/simulate-research-query.js"),
        format!("const ü = 'é';\n{NODE_SERVER}"),
    ];
    for text in &texts {
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .step_by((text.len() / 400).max(3))
            .collect();
        for &cut in &bounds {
            for candidate in [
                text[..cut].to_owned(),
                format!("{}}}{}", &text[..cut], &text[cut..]),
            ] {
                let _ = Script.is_server(&candidate);
                for name in ["s.ts", "s.js"] {
                    let Ok(found) = Script.read(&candidate, name) else {
                        continue;
                    };
                    for tool in &found.tools {
                        assert!(tool.start < candidate.len());
                        if let Ok(slot) = &tool.slot {
                            assert!(candidate.is_char_boundary(slot.at), "{candidate}");
                        }
                    }
                }
            }
        }
    }
}

/// A project's own helpers, in a file that imports no SDK: recognised by a config that
/// carries an `annotations` literal with a hint, whatever the helper is called.
const HELPERS: &str = r#"import { defineTool } from "./definition.js";

export const installPwa = defineTool({
  name: "install_pwa",
  description: "Installs a web app.",
  annotations: {
    category: "pwa",
    readOnlyHint: false,
  },
  schema: { manifestId: zod.string() },
  handler: async () => {},
});

export function registerD1(context) {
  context.accountTool("d1_databases_list", {
    description: "List all of the D1 databases",
    inputSchema: z.object({ name: z.string() }),
    annotations: { title: "List D1 databases", readOnlyHint: true },
  }, async () => {});
}

export const storageTools = {
  list_buckets: tool({
    description: "Lists the storage buckets.",
    annotations: { readOnlyHint: true, destructiveHint: false },
    parameters: z.object({ projectId: z.string() }),
    execute: async () => [],
  }),
  get_config: {
    description: "Get the storage config.",
    parameters: z.object({ projectId: z.string() }),
    annotations: { title: "Get storage config", readOnlyHint: true },
  },
};

export const display = () => ({
  name: "Retrieve Balance",
  description: "Retrieves the balance.",
  inputSchema: {},
  annotations: { readOnlyHint: true },
});

const notATool = configure({ annotations: { note: "x" }, name: "plain" });
"#;

#[test]
fn tools_a_projects_own_helper_defines() {
    assert!(Script.is_server(HELPERS));
    let found = read(HELPERS, "tools.ts");
    assert_eq!(
        names(&found),
        [
            ok("install_pwa"),
            ok("d1_databases_list"),
            ok("list_buckets"),
            ok("get_config"),
            // A display name is not taken for the tool's: the server lists another.
            Err("\"Retrieve Balance\"".to_owned()),
        ]
    );
    let [pwa, d1, buckets, _, _] = &found.tools[..] else {
        panic!()
    };
    assert_eq!(pwa.annotations, hints(&[("readOnlyHint", false)]));
    assert_eq!(pwa.inputs, strings(&["manifestId"]));
    assert_eq!(d1.inputs, strings(&["name"]));
    assert_eq!(d1.title.as_deref(), Some("List D1 databases"));
    assert_eq!(buckets.inputs, strings(&["projectId"]));
    // The missing key goes inside the helper's own literal, in its style.
    let slot = pwa.slot.as_ref().unwrap();
    let patched = splice(HELPERS, slot, &[("destructiveHint", false)]);
    assert!(
        patched.contains("    readOnlyHint: false,\n    destructiveHint: false,\n  },"),
        "{patched}"
    );
    let again = read(&patched, "tools.ts");
    assert_eq!(
        again.tools[0].annotations,
        hints(&[("readOnlyHint", false), ("destructiveHint", false)])
    );
}

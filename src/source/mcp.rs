//! MCP `tools/list` JSON mapped into the normalized action view, for `audit` and `lint --tools`.

use serde_json::{Map, Value};

use crate::effects::{Effect, Effects, Hints};
use crate::error::{Error, Result, closest, did_you_mean};
use crate::view::{ActionView, Input, SourceKind};

/// One tool of a list, with what is wrong in how it declares its hints. A bad hint does not
/// reject the list: the tool is still read, the hint counts as not set, and the problem
/// names it, so `audit` can give the tool a verdict and go on with the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    pub view: ActionView,
    /// Misspelled, misplaced or non-boolean hint keys, one sentence each.
    pub problems: Vec<String>,
}

/// The keys of MCP `ToolAnnotations`.
pub const ANNOTATION_KEYS: [&str; 5] = [
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// The keys of an MCP `Tool`.
const TOOL_KEYS: [&str; 8] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
];

/// Read a `tools/list` result: `{"tools": [...]}`, a JSON-RPC response wrapping it in
/// `result`, or a bare array of tools.
pub fn parse_tools(json: &str, file_name: &str) -> Result<Vec<ActionView>> {
    Ok(read_tools(json, file_name)?
        .into_iter()
        .map(|t| t.view)
        .collect())
}

/// A `tools/list` result as a file holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolList {
    pub tools: Vec<Tool>,
    /// The result's `nextCursor`: the list is one page, and a server has more tools than
    /// it holds.
    pub next_cursor: Option<String>,
}

/// [`parse_tools`], keeping each tool's hint problems.
pub fn read_tools(json: &str, file_name: &str) -> Result<Vec<Tool>> {
    Ok(read_list(json, file_name)?.tools)
}

/// [`read_tools`], with the cursor of the next page when the list is one page of more.
///
/// A name listed twice makes each repeat a problem of its tool (a malformed verdict): a
/// client keeps one tool of a name, which one is its choice, so the hints audited may not
/// be the hints it uses.
pub fn read_list(json: &str, file_name: &str) -> Result<ToolList> {
    let fail = |msg: String| Error::new(msg).in_file(file_name);
    // A BOM is no JSON value, but editors on Windows write one; it says nothing.
    let json = json.strip_prefix('\u{feff}').unwrap_or(json);
    let root = serde_json::from_str::<Strict>(json)
        .map(|s| s.0)
        .map_err(|e| {
            let at = format!(" at line {} column {}", e.line(), e.column());
            let message = e.to_string();
            let message = message.strip_suffix(&at).unwrap_or(&message);
            let what = if e.is_data() { "" } else { "not JSON: " };
            let column = if e.is_data() {
                key_start(json, e.line(), e.column())
            } else {
                e.column()
            };
            fail(format!("{what}{message}")).at(e.line(), column)
        })?;
    let mut next_cursor = None;
    let tools = match &root {
        Value::Array(tools) => tools,
        Value::Object(obj) => {
            let inner = obj.get("result").and_then(Value::as_object).unwrap_or(obj);
            next_cursor = match inner.get("nextCursor") {
                None | Some(Value::Null) => None,
                Some(Value::String(c)) if c.is_empty() => None,
                Some(Value::String(c)) => Some(c.clone()),
                Some(other) => Some(other.to_string()),
            };
            match inner.get("tools") {
                Some(Value::Array(tools)) => tools,
                Some(_) => return Err(fail("`tools` is not an array".into())),
                None => {
                    return Err(fail(
                        "no `tools` array (expected a tools/list result)".into(),
                    ));
                }
            }
        }
        _ => {
            return Err(fail(
                "expected an object with `tools` or an array of tools".into(),
            ));
        }
    };
    let mut tools = tools
        .iter()
        .enumerate()
        .map(|(i, tool)| parse_tool(tool).map_err(|msg| fail(format!("tool #{i}: {msg}"))))
        .collect::<Result<Vec<Tool>>>()?;
    let mut first = std::collections::HashMap::new();
    for (i, tool) in tools.iter_mut().enumerate() {
        match first.get(&tool.view.id) {
            Some(&at) => tool.problems.push(format!(
                "its name is tool #{at}'s too: MCP wants each tool's name unique, and a client keeps one of the two (which one is its choice), so the hints audited may not be the ones it uses; give each tool its own name"
            )),
            None => {
                first.insert(tool.view.id.clone(), i);
            }
        }
    }
    Ok(ToolList { tools, next_cursor })
}

/// The column where the key that ends at (`line`, `column`) opens: serde_json reports a
/// duplicate where it finished reading it, its closing quote; a reader looks for its start.
fn key_start(json: &str, line: usize, column: usize) -> usize {
    let Some(text) = json.split('\n').nth(line.saturating_sub(1)) else {
        return column;
    };
    let bytes = text.as_bytes();
    let end = column.min(bytes.len());
    // Back from the closing quote to the opening one, past escaped quotes.
    let mut at = end.saturating_sub(1);
    while at > 0 {
        at -= 1;
        if bytes[at] == b'"' && (at == 0 || bytes[at - 1] != b'\\') {
            return at + 1;
        }
    }
    column
}

/// A JSON value read with every object's keys told apart: a key written twice is an error
/// where it is written again. serde_json keeps the last, other readers the first, so
/// `"readOnlyHint": true, "readOnlyHint": false` meant what the reader chose, and a second
/// `tools` array hid the first.
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "duplicate key `{key}`: JSON readers disagree on which one wins; keep one"
                )));
            }
            let Strict(value) = map.next_value()?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

fn parse_tool(tool: &Value) -> Result<Tool, String> {
    let tool = tool.as_object().ok_or("not an object")?;
    let name = match tool.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) | None => return Err("no `name`".into()),
        Some(_) => return Err("`name` is not a string".into()),
    };
    // From here on errors name the tool too.
    let ctx = |msg: String| format!("`{name}`: {msg}");
    let mut problems = misplaced_keys(tool);
    let annotations = match tool.get("annotations") {
        None | Some(Value::Null) => None,
        Some(Value::Object(a)) => Some(hints(a, &mut problems)),
        Some(other) => {
            problems.push(format!(
                "`annotations` is {}, not an object: clients ignore it",
                describe(other)
            ));
            None
        }
    };
    let title = opt_str(tool, "title")
        .map_err(ctx)?
        .or_else(|| annotations.as_ref().and_then(|h| h.title.clone()));
    let inputs = match tool.get("inputSchema") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(schema)) => inputs(schema).map_err(ctx)?,
        Some(_) => return Err(ctx("`inputSchema` is not an object".into())),
    };
    let view = ActionView {
        label: title,
        description: opt_str(tool, "description").map_err(ctx)?,
        inputs,
        annotations,
        line: 0,
        source: SourceKind::McpTool,
        id: name,
        ..ActionView::default()
    };
    Ok(Tool { view, problems })
}

/// Hints written beside `annotations` instead of inside it, and a misspelled `annotations`:
/// clients look for hints in one place only.
fn misplaced_keys(tool: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for key in tool.keys().filter(|k| !TOOL_KEYS.contains(&k.as_str())) {
        if let Some(hint) = closest(key, ANNOTATION_KEYS.into_iter().skip(1)) {
            out.push(format!(
                "`{key}` is a key of the tool, not of its `annotations`{}: clients look for `{hint}` inside `annotations` only",
                if key == hint { String::new() } else { format!(" (and is spelled `{hint}` there)") }
            ));
        } else if closest(key, ["annotations"]).is_some() {
            out.push(format!(
                "`{key}` is not a tool key; did you mean `annotations`? Clients ignore it"
            ));
        }
    }
    out
}

/// A JSON value in a few words, for messages.
fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("the string \"{s}\""),
        Value::Number(n) => format!("the number {n}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
    }
}

fn opt_str(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` is not a string")),
    }
}

/// The hints as declared; a key that is not a hint, or a hint that is not a boolean, is a
/// problem and counts as not set.
fn hints(a: &Map<String, Value>, problems: &mut Vec<String>) -> Hints {
    for key in a.keys().filter(|k| !ANNOTATION_KEYS.contains(&k.as_str())) {
        problems.push(format!(
            "`annotations.{key}` is not a hint{}: clients drop it",
            did_you_mean(key, ANNOTATION_KEYS)
        ));
    }
    let mut flag = |key: &str| match a.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            problems.push(format!(
                "`annotations.{key}` is {}, not true or false: clients may read it either way",
                describe(other)
            ));
            None
        }
    };
    let (read_only, destructive) = (flag("readOnlyHint"), flag("destructiveHint"));
    let (idempotent, open_world) = (flag("idempotentHint"), flag("openWorldHint"));
    let title = match a.get("title") {
        Some(Value::String(s)) => Some(s.clone()),
        None | Some(Value::Null) => None,
        Some(other) => {
            problems.push(format!(
                "`annotations.title` is {}, not a string",
                describe(other)
            ));
            None
        }
    };
    Hints {
        title,
        read_only,
        destructive,
        idempotent,
        open_world,
    }
}

/// `properties` become inputs, in the order serde_json keeps them (sorted by name).
fn inputs(schema: &Map<String, Value>) -> Result<Vec<Input>, String> {
    let props = match schema.get("properties") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(p)) => p,
        Some(_) => return Err("`inputSchema.properties` is not an object".into()),
    };
    let mut out = Vec::new();
    for (name, prop) in props {
        // A property may be `true` (any value) in JSON Schema: an input with no type.
        let empty = Map::new();
        let prop = match prop {
            Value::Object(p) => p,
            Value::Bool(_) => &empty,
            _ => return Err(format!("input `{name}` is not an object")),
        };
        let ty = match prop.get("type") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(t.clone()),
            // `["string", "null"]`: the first non-null type is the one that matters.
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .map(str::to_owned),
            Some(_) => return Err(format!("input `{name}`: `type` is not a string")),
        };
        let enum_values = match prop.get("enum") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(vs)) => vs
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect(),
            Some(_) => return Err(format!("input `{name}`: `enum` is not an array")),
        };
        let description =
            opt_str(prop, "description").map_err(|e| format!("input `{name}`: {e}"))?;
        out.push(Input {
            name: name.clone(),
            ty,
            enum_values,
            description,
        });
    }
    Ok(out)
}

/// The effects a tool's declared hints imply, for linting a tool list: readOnlyHint true ->
/// read; destructiveHint true -> delete; readOnlyHint false -> write; otherwise unknown.
pub fn effects_from_hints(h: &Hints) -> Effects {
    match (h.read_only, h.destructive) {
        (Some(true), _) => Effects::single(Effect::Read),
        (_, Some(true)) => Effects::single(Effect::Delete),
        (Some(false), _) => Effects::single(Effect::Write),
        _ => Effects::EMPTY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = r#"{"tools": [
        {"name": "delete_page", "description": "Deletes a page.",
         "inputSchema": {"type": "object", "properties": {
            "env": {"type": ["string", "null"], "description": "Target"},
            "mode": {"type": "string", "enum": ["soft", "hard"]}}},
         "annotations": {"title": "Delete page", "readOnlyHint": false, "destructiveHint": true}},
        {"name": "get_page", "title": "Get page"}
    ]}"#;

    #[test]
    fn parses_tools() {
        let tools = parse_tools(LIST, "tools.json").unwrap();
        assert_eq!(tools.len(), 2);
        let t = &tools[0];
        assert_eq!(t.id, "delete_page");
        assert_eq!(t.label.as_deref(), Some("Delete page"));
        assert_eq!(t.source, SourceKind::McpTool);
        assert_eq!(t.inputs[0].name, "env");
        assert_eq!(t.inputs[0].ty.as_deref(), Some("string"));
        assert_eq!(t.inputs[1].enum_values, ["soft", "hard"]);
        let h = t.annotations.as_ref().unwrap();
        assert_eq!(
            (h.read_only, h.destructive, h.idempotent),
            (Some(false), Some(true), None)
        );
        assert_eq!(effects_from_hints(h), Effects::single(Effect::Delete));
        assert_eq!(tools[1].label.as_deref(), Some("Get page"));
        assert!(tools[1].annotations.is_none());
    }

    #[test]
    fn bare_array_and_jsonrpc() {
        assert_eq!(parse_tools(r#"[{"name": "a"}]"#, "t").unwrap().len(), 1);
        let rpc = r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a"}]}}"#;
        assert_eq!(parse_tools(rpc, "t").unwrap().len(), 1);
    }

    #[test]
    fn errors_name_file_and_tool() {
        let e = parse_tools("{nope", "t.json").unwrap_err();
        assert!(e.to_string().starts_with("t.json:1:2: not JSON"), "{e}");
        let e = parse_tools(r#"[{"name": "a"}, {"title": "x"}]"#, "t.json").unwrap_err();
        assert_eq!(e.to_string(), "t.json: tool #1: no `name`");
        assert!(parse_tools(r#"{"tools": 3}"#, "t").is_err());
    }

    /// A name listed twice is named on each repeat; a page of a longer list says so.
    #[test]
    fn repeated_names_and_further_pages_are_told() {
        let list = read_list(
            r#"{"result": {"tools": [{"name": "a"}, {"name": "b"}, {"name": "a"}, {"name": "a"}],
               "nextCursor": "page-2"}}"#,
            "t.json",
        )
        .unwrap();
        assert_eq!(list.next_cursor.as_deref(), Some("page-2"));
        let problems: Vec<usize> = list.tools.iter().map(|t| t.problems.len()).collect();
        assert_eq!(problems, [0, 0, 1, 1]);
        assert!(list.tools[2].problems[0].starts_with("its name is tool #0's too"));
        let last = read_list(r#"{"tools": [], "nextCursor": null}"#, "t").unwrap();
        assert_eq!(last.next_cursor, None);
    }

    /// A bad hint is the tool's problem, not the list's: the other tools are still read.
    #[test]
    fn bad_hints_are_problems_of_their_tool() {
        let tools = read_tools(
            r#"[{"name": "a", "readOnlyHint": true,
                 "annotations": {"readOnlyHnt": true, "destructiveHint": "false", "color": 1}},
                {"name": "b", "annotation": {"readOnlyHint": true}},
                {"name": "c", "annotations": {"readOnlyHint": false, "title": "C"}}]"#,
            "t",
        )
        .unwrap();
        assert_eq!(
            tools[0].problems,
            [
                "`readOnlyHint` is a key of the tool, not of its `annotations`: clients look for `readOnlyHint` inside `annotations` only",
                "`annotations.color` is not a hint: clients drop it",
                "`annotations.readOnlyHnt` is not a hint (did you mean `readOnlyHint`?): clients drop it",
                "`annotations.destructiveHint` is the string \"false\", not true or false: clients may read it either way",
            ]
        );
        let h = tools[0].view.annotations.as_ref().unwrap();
        assert_eq!((h.read_only, h.destructive), (None, None));
        assert_eq!(
            tools[1].problems,
            ["`annotation` is not a tool key; did you mean `annotations`? Clients ignore it"]
        );
        assert!(tools[2].problems.is_empty());
        assert_eq!(tools[2].view.label.as_deref(), Some("C"));
    }

    #[test]
    fn hints_to_effects() {
        let h = |r, d| Hints {
            read_only: r,
            destructive: d,
            ..Hints::default()
        };
        assert_eq!(
            effects_from_hints(&h(Some(true), None)),
            Effects::single(Effect::Read)
        );
        assert_eq!(
            effects_from_hints(&h(Some(false), None)),
            Effects::single(Effect::Write)
        );
        assert_eq!(effects_from_hints(&h(None, Some(false))), Effects::EMPTY);
        assert_eq!(effects_from_hints(&h(None, None)), Effects::EMPTY);
    }
}

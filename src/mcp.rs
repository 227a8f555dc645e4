//! MCP `tools/list` JSON mapped into the normalized action view, for `audit` and `lint --tools`.

use serde_json::{Map, Value};

use crate::effects::{Effect, Effects, Hints};
use crate::error::{Error, Result};
use crate::view::{ActionView, Input, Source};

/// Read a `tools/list` result: `{"tools": [...]}`, a JSON-RPC response wrapping it in
/// `result`, or a bare array of tools.
pub fn parse_tools(json: &str, file_name: &str) -> Result<Vec<ActionView>> {
    let fail = |msg: String| Error::new(msg).in_file(file_name);
    let root: Value = serde_json::from_str(json)
        .map_err(|e| fail(format!("not JSON: {e}")).at(e.line(), e.column()))?;
    let tools = match &root {
        Value::Array(tools) => tools,
        Value::Object(obj) => {
            let inner = obj.get("result").and_then(Value::as_object).unwrap_or(obj);
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
    tools
        .iter()
        .enumerate()
        .map(|(i, tool)| parse_tool(tool).map_err(|msg| fail(format!("tool #{i}: {msg}"))))
        .collect()
}

fn parse_tool(tool: &Value) -> Result<ActionView, String> {
    let tool = tool.as_object().ok_or("not an object")?;
    let name = match tool.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) | None => return Err("no `name`".into()),
        Some(_) => return Err("`name` is not a string".into()),
    };
    // From here on errors name the tool too.
    let ctx = |msg: String| format!("`{name}`: {msg}");
    let annotations = match tool.get("annotations") {
        None | Some(Value::Null) => None,
        Some(Value::Object(a)) => Some(hints(a).map_err(ctx)?),
        Some(_) => return Err(ctx("`annotations` is not an object".into())),
    };
    let title = opt_str(tool, "title")
        .map_err(ctx)?
        .or_else(|| annotations.as_ref().and_then(|h| h.title.clone()));
    let inputs = match tool.get("inputSchema") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(schema)) => inputs(schema).map_err(ctx)?,
        Some(_) => return Err(ctx("`inputSchema` is not an object".into())),
    };
    Ok(ActionView {
        label: title,
        description: opt_str(tool, "description").map_err(ctx)?,
        inputs,
        annotations,
        line: 0,
        source: Source::McpTool,
        id: name,
        ..ActionView::default()
    })
}

fn opt_str(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` is not a string")),
    }
}

fn hints(a: &Map<String, Value>) -> Result<Hints, String> {
    let flag = |key: &str| match a.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(format!("`annotations.{key}` is not a boolean")),
    };
    Ok(Hints {
        title: opt_str(a, "title").map_err(|e| format!("annotations: {e}"))?,
        read_only: flag("readOnlyHint")?,
        destructive: flag("destructiveHint")?,
        idempotent: flag("idempotentHint")?,
        open_world: flag("openWorldHint")?,
    })
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
        assert_eq!(t.source, Source::McpTool);
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
        let e = parse_tools(
            r#"[{"name": "a", "annotations": {"readOnlyHint": "yes"}}]"#,
            "t",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "t: tool #0: `a`: `annotations.readOnlyHint` is not a boolean"
        );
        assert!(parse_tools(r#"{"tools": 3}"#, "t").is_err());
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

//! The labelled MCP tools of `../shared/eval/mcp-dev.tsv`, and the two forms the evaluation
//! feeds them to the tool in: an MCP `tools/list` JSON and a connector catalog file.
//! Shared by `examples/eval.rs` and `tests/eval.rs`, so both measure the same thing.

use std::fmt::Write as _;
use std::path::Path;

use catalog_effects::effects::Hints;

/// One labelled tool.
pub struct Row {
    pub server: String,
    pub name: String,
    pub title: String,
    /// Lower case; empty when the handler's call could not be traced.
    pub method: String,
    pub path: String,
    pub hints: Hints,
    pub description: String,
}

pub fn flag(s: &str) -> Option<bool> {
    match s {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

pub fn read_tsv(path: &Path) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        if c.len() < 10 {
            return Err(format!("{}:{}: expected 11 columns", path.display(), n + 1));
        }
        rows.push(Row {
            server: c[0].into(),
            name: c[1].into(),
            title: c[2].into(),
            method: c[3].to_ascii_lowercase(),
            path: c[4].into(),
            hints: Hints {
                title: None,
                read_only: flag(c[5]),
                destructive: flag(c[6]),
                idempotent: flag(c[7]),
                open_world: flag(c[8]),
            },
            description: c[9].into(),
        });
    }
    Ok(rows)
}

/// `application-cancelDeployment` -> `application_cancel_deployment`; an id that would not
/// start with a letter gets a `t_` prefix, as catalog ids must.
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && prev_lower {
                out.push('_');
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            out.push(c.to_ascii_lowercase());
        } else {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            prev_lower = false;
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out
    } else {
        format!("t_{out}")
    }
}

/// The rows as an MCP `tools/list` result (the TSV has no input schemas).
pub fn tools_json(rows: &[&Row]) -> String {
    let tools: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let mut ann = serde_json::Map::new();
            for (k, v) in [
                ("readOnlyHint", r.hints.read_only),
                ("destructiveHint", r.hints.destructive),
                ("idempotentHint", r.hints.idempotent),
                ("openWorldHint", r.hints.open_world),
            ] {
                if let Some(b) = v {
                    ann.insert(k.into(), b.into());
                }
            }
            let mut tool = serde_json::json!({
                "name": r.name, "description": r.description, "annotations": ann,
            });
            if !r.title.is_empty() {
                tool["title"] = r.title.clone().into();
            }
            tool
        })
        .collect();
    serde_json::json!({ "tools": tools }).to_string()
}

/// A JSON string is a valid YAML double-quoted scalar.
fn q(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// The rows (those with a method and path) as a shape-B connector file named `key`.
pub fn connector_yaml(key: &str, title: &str, rows: &[&Row]) -> String {
    let mut y = format!(
        "StackOne: 1.0.0\ninfo:\n  key: {key}\n  title: {}\nbaseUrl: https://api.example.com\nactions:\n",
        q(title)
    );
    for r in rows {
        let label = if r.title.is_empty() {
            &r.name
        } else {
            &r.title
        };
        let _ = write!(
            y,
            "  - actionId: {}\n    label: {}\n    description: {}\n    steps:\n      - stepId: call\n        stepFunction:\n          functionName: request\n          parameters:\n            url: {}\n            method: {}\n",
            snake(&r.name),
            q(label),
            q(&r.description),
            q(&r.path),
            r.method
        );
    }
    y
}

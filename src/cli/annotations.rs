//! `annotations`: what an MCP server built from the catalog would advertise per tool.

use std::path::PathBuf;

use clap::Args;
use serde_json::{Map, Value, json};

use catalog_effects::error::Result;
use catalog_effects::pipeline::{self, ActionResult, FileResult};

use super::{EXIT_ERROR, EXIT_OK, EngineArgs};

#[derive(Args, Debug)]
pub struct AnnotationsArgs {
    /// Catalog directories (default: catalogs/demo).
    pub catalogs: Vec<PathBuf>,
    /// Write the JSON here instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// One tool as a server would list it, with where its hints came from.
pub fn tool_json(f: &FileResult, a: &ActionResult) -> Value {
    let h = &a.hints;
    let mut ann = Map::new();
    let mut put = |k: &str, v: Option<bool>| {
        if let Some(v) = v {
            ann.insert(k.into(), Value::Bool(v));
        }
    };
    put("readOnlyHint", h.read_only);
    put("destructiveHint", h.destructive);
    put("idempotentHint", h.idempotent);
    put("openWorldHint", h.open_world);
    let source = if a.effects.is_empty() {
        "none"
    } else if a.declared_source {
        "declared"
    } else {
        "inferred"
    };
    json!({
        "name": a.tool_name(),
        "title": h.title,
        "annotations": ann,
        "effects": a.effects.iter().map(|e| e.name()).collect::<Vec<_>>(),
        "effectsSource": source,
        "confidence": a.inference.confidence.map(|c| c.name()),
        "file": f.rel,
        "line": a.line,
    })
}

pub fn run(args: AnnotationsArgs) -> Result<u8> {
    let mut opts = args.engine.options()?;
    opts.check_edits = false;
    let run = pipeline::run(&super::catalogs(&args.catalogs), &opts);
    let errors = super::report_errors(&run);
    let tools: Vec<Value> = run
        .actions()
        .filter(|(_, a)| !a.nested)
        .map(|(f, a)| tool_json(f, a))
        .collect();
    let text = serde_json::to_string_pretty(&json!({ "tools": tools })).unwrap_or_default() + "\n";
    match &args.output {
        Some(path) => super::write_output(path, &text)?,
        None => super::out::print(&text),
    }
    Ok(if errors > 0 { EXIT_ERROR } else { EXIT_OK })
}

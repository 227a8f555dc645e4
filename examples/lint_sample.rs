//! Lint the labelled MCP tools of `mcp-dev.tsv` as a tool list, for hand-checking precision.
//!
//! `cargo run --example lint_sample -- heuristics/labelled/mcp-dev.tsv`
//!
//! Each row becomes an action view (description = the first sentence; one step from the HTTP
//! method and path when traced; annotations from the hint columns) and is linted with the
//! effects its declared hints imply. Prints counts per code, then every finding.

// A program run by hand: it prints what it finds.
#![allow(clippy::print_stderr, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::process::ExitCode;

use catalog_effects::effects::Hints;
use catalog_effects::lint::{CodeFilter, LintRules, lint};
use catalog_effects::source::mcp::effects_from_hints;
use catalog_effects::view::{ActionView, SourceKind, Step};

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: lint_sample MCP-DEV.tsv");
        return ExitCode::from(2);
    };
    match run(&path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{path}: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let rules = LintRules::builtin()?;
    let filter = CodeFilter::default();
    let mut reader = csv::ReaderBuilder::new().delimiter(b'\t').from_path(path)?;
    let headers = reader.headers()?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or(format!("no column {name}"))
    };
    let [
        server,
        name,
        title,
        method,
        url,
        ro,
        destr,
        idem,
        open,
        desc,
    ] = [
        "server",
        "tool_name",
        "title",
        "http_method",
        "http_path",
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
        "description_first_sentence",
    ]
    .map(col);
    let (server, name, title, method, url) = (server?, name?, title?, method?, url?);
    let (ro, destr, idem, open, desc) = (ro?, destr?, idem?, open?, desc?);

    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut lines = Vec::new();
    let mut tools = 0;
    for row in reader.records() {
        let row = row?;
        let get = |i: usize| row.get(i).unwrap_or("").trim();
        let text = |i: usize| Some(get(i)).filter(|s| !s.is_empty()).map(str::to_owned);
        let flag = |i: usize| match get(i) {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        };
        let hints = Hints {
            title: text(title),
            read_only: flag(ro),
            destructive: flag(destr),
            idempotent: flag(idem),
            open_world: flag(open),
        };
        let steps = match (text(method), text(url)) {
            (None, None) => Vec::new(),
            (m, u) => vec![Step {
                function: Some("request".into()),
                method: m.map(|m| m.to_lowercase()),
                url: u,
                soap_operation: None,
            }],
        };
        let view = ActionView {
            id: get(name).to_owned(),
            label: text(title),
            description: text(desc),
            steps,
            connector_title: Some(provider(get(server))),
            annotations: Some(hints.clone()),
            source: SourceKind::McpTool,
            ..ActionView::default()
        };
        tools += 1;
        for f in lint(&view, effects_from_hints(&hints), &rules, &filter) {
            *counts.entry(f.code.clone()).or_default() += 1;
            lines.push(format!(
                "{}\t{}/{}\t{}",
                f.code,
                get(server),
                view.id,
                f.message
            ));
        }
    }
    println!("{tools} tools, {} findings", lines.len());
    for code in rules.codes() {
        println!("{code:<34} {}", counts.get(code).copied().unwrap_or(0));
    }
    lines.sort();
    println!();
    for line in lines {
        println!("{line}");
    }
    Ok(())
}

/// The provider a server talks to, from its name: `mcp-server-cloudflare/workers` ->
/// "cloudflare", `modelcontextprotocol-servers/git` -> "git".
fn provider(server: &str) -> String {
    const GENERIC: [&str; 6] = [
        "mcp",
        "server",
        "servers",
        "toolkit",
        "agent",
        "modelcontextprotocol",
    ];
    let specific = |part: &str| {
        part.split('-')
            .filter(|w| !GENERIC.contains(w))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (repo, app) = server.split_once('/').unwrap_or((server, ""));
    let name = specific(repo);
    if name.is_empty() { specific(app) } else { name }
}

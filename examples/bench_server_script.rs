//! Throughput of the TypeScript/JavaScript server reader (`source::server::script`): parse
//! and read generated server files, one thread, in memory (no disk in the timing).
//!
//! ```text
//! cargo run --release --example bench_server_script -- [--files 50] [--tools 100] [--runs 7]
//! ```
//!
//! Each file registers `--tools` tools on the official SDK in the shapes real servers use
//! (`registerTool` with a zod shape or `z.object`, the older `tool(...)` overloads, names
//! from a constant object), each with a handler body of a dozen lines; half declare
//! annotations. Prints the bytes, the tools found, the fastest and median run, and the same
//! for oxc's parse alone (the floor: no tree walk, no tools), interleaved round by round.

// A program run by hand: it prints what it measures, and its usage errors.
#![allow(clippy::print_stderr, clippy::print_stdout)]

use std::time::{Duration, Instant};

use catalog_effects::source::server::script::Script;
use catalog_effects::source::server::{Language, Tool};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| {
            v.parse().unwrap_or_else(|_| {
                eprintln!("{name} takes a number");
                std::process::exit(2)
            })
        })
}

fn file(index: usize, tools: usize) -> String {
    let mut out = String::from(
        "import { McpServer } from \"@modelcontextprotocol/sdk/server/mcp.js\";\n\
         import { z } from \"zod\";\n\n",
    );
    out.push_str("const TOOLS = {\n");
    for t in 0..tools {
        out.push_str(&format!("  T{t}: \"f{index}_tool_{t}\",\n"));
    }
    out.push_str("} as const;\n\n");
    out.push_str("export function register(server: McpServer, api: Api) {\n");
    for t in 0..tools {
        let annotations = if t % 2 == 0 {
            "    annotations: { readOnlyHint: true, openWorldHint: false },\n"
        } else {
            ""
        };
        match t % 3 {
            0 => out.push_str(&format!(
                "  server.registerTool(\n    TOOLS.T{t},\n    {{\n      title: \"Tool {t}\",\n      \
                 description: \"Reads item \" + \"{t} from the API\",\n      \
                 inputSchema: {{ id: z.string(), limit: z.number().optional(), cursor: z.string().optional() }},\n  \
                 {annotations}    }},\n"
            )),
            1 => out.push_str(&format!(
                "  server.registerTool(\"f{index}_update_{t}\", {{\n    description: `Updates item {t}`,\n    \
                 inputSchema: z.object({{ id: z.string(), body: z.record(z.string(), z.unknown()) }}).strict(),\n\
                 {annotations}  }},\n"
            )),
            _ => out.push_str(&format!(
                "  server.tool(\"f{index}_legacy_{t}\", \"Legacy tool {t}\", {{ q: z.string() }},\n"
            )),
        }
        out.push_str(
            "    async ({ id, limit }, extra) => {\n\
             \x20     const started = Date.now();\n\
             \x20     const response = await api.fetch(`/items/${id}`, { limit, signal: extra.signal });\n\
             \x20     if (!response.ok) {\n\
             \x20       return { isError: true, content: [{ type: \"text\", text: `failed: ${response.status}` }] };\n\
             \x20     }\n\
             \x20     const data = await response.json();\n\
             \x20     const items = data.items.map((item) => ({ id: item.id, name: item.name }));\n\
             \x20     return {\n\
             \x20       content: [{ type: \"text\", text: JSON.stringify(items) }],\n\
             \x20       structuredContent: { items, took: Date.now() - started },\n\
             \x20     };\n\
             \x20   },\n  );\n\n",
        );
    }
    out.push_str("}\n");
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let files = arg(&args, "--files", 50);
    let tools = arg(&args, "--tools", 100);
    let runs = arg(&args, "--runs", 7).max(1);
    let texts: Vec<String> = (0..files).map(|i| file(i, tools)).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut times: Vec<Duration> = Vec::new();
    let mut floor: Vec<Duration> = Vec::new();
    let mut found = 0;
    // Rounds interleave the parse floor and the reader, so a slow spell on a shared machine
    // slows both rather than one.
    for _ in 0..runs {
        let start = Instant::now();
        for (i, text) in texts.iter().enumerate() {
            let allocator = oxc_allocator::Allocator::default();
            let kind = oxc_span::SourceType::from_path(format!("server{i}.ts")).unwrap();
            let parsed = oxc_parser::Parser::new(&allocator, text, kind).parse();
            assert!(parsed.diagnostics.is_empty());
        }
        floor.push(start.elapsed());
        let start = Instant::now();
        let read: Vec<Vec<Tool>> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let found = Script
                    .read(text, &format!("server{i}.ts"))
                    .unwrap_or_else(|e| panic!("generated file {i} does not read: {e}"));
                assert!(found.problems.is_empty(), "{:?}", found.problems);
                found.tools
            })
            .collect();
        times.push(start.elapsed());
        found = read.iter().map(Vec::len).sum();
    }
    assert_eq!(found, files * tools, "every generated tool is found");
    times.sort();
    floor.sort();
    let median = times[times.len() / 2];
    let floor_median = floor[floor.len() / 2];
    let per_sec = |d: Duration| found as f64 / d.as_secs_f64();
    println!(
        "files={files} tools={found} bytes={bytes} runs={runs} fastest={:.1} ms median={:.1} ms \
         ({:.0} tools/s, {:.1} MB/s median, one thread); oxc parse alone: fastest={:.1} ms \
         median={:.1} ms (read = {:.2}x parse, medians)",
        times[0].as_secs_f64() * 1e3,
        median.as_secs_f64() * 1e3,
        per_sec(median),
        bytes as f64 / median.as_secs_f64() / 1e6,
        floor[0].as_secs_f64() * 1e3,
        floor_median.as_secs_f64() * 1e3,
        median.as_secs_f64() / floor_median.as_secs_f64(),
    );
}

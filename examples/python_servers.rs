//! Measures the Python server reader: parse and read a generated set of server files.
//!
//! ```text
//! cargo run --release --example python_servers -- [--files 50] [--tools 100] [--runs 5]
//! ```
//!
//! Each file is a `FastMCP` server of `--tools` registrations in the shapes real servers use
//! (a multi-line `@mcp.tool(...)` with an enum name and `ToolAnnotations`, `@mcp.tool()` on
//! an `async def` with a docstring and a `Context`, a dict literal, a helper call). The files
//! are made in memory first, so the figure is the reader alone: parse, read, slots. It is
//! printed for one thread and for all threads (rayon, one file per task), best of `--runs`,
//! beside tree-sitter's parse alone on one thread.

// A program run by hand: it prints what it finds.
#![allow(clippy::print_stdout)]

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use catalog_effects::source::server::Language;
use catalog_effects::source::server::python::Python;
use rayon::prelude::*;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn server(file: usize, tools: usize) -> String {
    let mut text = String::from(
        "import logging\nfrom enum import Enum\n\nfrom mcp.server.fastmcp import Context, FastMCP\n\
         from mcp.types import ToolAnnotations\n\nmcp = FastMCP(\"generated\")\n\n\
         READ_ONLY = ToolAnnotations(readOnlyHint=True, destructiveHint=False)\n\n\n\
         class Names(str, Enum):\n",
    );
    for i in (0..tools).step_by(4) {
        writeln!(text, "    T{i} = \"f{file}_tool_{i}\"").unwrap();
    }
    text.push('\n');
    for i in 0..tools {
        match i % 4 {
            0 => write!(
                text,
                "\n@mcp.tool(\n    name=Names.T{i}.value,\n    description=\"Lists the items of set {i}\",\n    \
                 annotations=ToolAnnotations(readOnlyHint=True),\n)\n\
                 def tool_{i}(repo_path: str, limit: int = 10, ctx: Context = None) -> list[str]:\n    \
                 logging.info(\"listing %s\", repo_path)\n    return [repo_path] * limit\n\n"
            ),
            1 => write!(
                text,
                "\n@mcp.tool()\nasync def tool_{i}(item_id: str, ctx: Context, *, force: bool = False) -> str:\n    \
                 \"\"\"Deletes one item.\n\n    Args:\n        item_id: the item.\n        force: skip the check.\n    \"\"\"\n    \
                 await ctx.info(item_id)\n    return item_id\n\n"
            ),
            2 => write!(
                text,
                "\n@mcp.tool(name=\"f{file}_tool_{i}\", annotations={{\"openWorldHint\": False}})\n\
                 def tool_{i}(query: str, page: int = 1) -> dict:\n    return {{\"q\": query, \"page\": page}}\n\n"
            ),
            _ => write!(
                text,
                "\n@mcp.tool(annotations=writes(destructive=True))\n\
                 def tool_{i}(a: str, b: str, c: str | None = None) -> str:\n    return a + b\n\n"
            ),
        }
        .unwrap();
    }
    text.push_str("\ndef writes(*, destructive):\n    return ToolAnnotations(readOnlyHint=False, destructiveHint=destructive)\n");
    text
}

fn arg(args: &[String], flag: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| v.parse().expect("a number"))
}

fn best(runs: usize, mut f: impl FnMut() -> usize) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut tools = 0;
    for _ in 0..runs {
        let start = Instant::now();
        tools = f();
        best = best.min(start.elapsed());
    }
    (best, tools)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (files, tools, runs) = (
        arg(&args, "--files", 50),
        arg(&args, "--tools", 100),
        arg(&args, "--runs", 5),
    );
    let texts: Vec<String> = (0..files).map(|f| server(f, tools)).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let read = |text: &String| {
        let found = Python
            .read(text, "server.py")
            .expect("a generated file parses");
        assert!(found.problems.is_empty(), "{:?}", found.problems);
        found.tools.len()
    };
    // The parser alone, for what the reader adds to it.
    let parse = |text: &String| {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_python::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(text, None).unwrap();
        usize::from(!tree.root_node().has_error())
    };
    let (parsed, _) = best(runs, || texts.iter().map(parse).sum());
    let (one, n1) = best(runs, || texts.iter().map(read).sum());
    let (all, n2) = best(runs, || texts.par_iter().map(read).sum());
    assert_eq!(n1, files * tools);
    assert_eq!(n2, n1);
    println!(
        "{files} files, {n1} tools, {:.1} MB of Python; best of {runs}",
        bytes as f64 / 1e6
    );
    for (label, took) in [
        ("parse only".to_owned(), parsed),
        ("1 thread".to_owned(), one),
        (format!("{} threads", rayon::current_num_threads()), all),
    ] {
        println!(
            "{label:>10}: {:>7.1} ms  ({:.1} us per tool, {:.0} MB/s)",
            took.as_secs_f64() * 1e3,
            took.as_secs_f64() * 1e6 / n1 as f64,
            bytes as f64 / 1e6 / took.as_secs_f64()
        );
    }
}

//! `annotations`: what an MCP server built from the catalog would advertise per tool.

use std::path::PathBuf;

use clap::Args;

use catalog_effects::emit::Summary;
use catalog_effects::emit::annotations::{Export, Keys};
use catalog_effects::emit::sink::End;
use catalog_effects::error::{Error, Result};

use super::config::Config;
use super::engine::{self, EngineArgs};
use super::out::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use super::outputs;

#[derive(Args, Debug)]
#[command(
    after_help = "Every tool gets all four hints (a hint the effects do not set takes the MCP \
specification's default) and its title, inside `annotations` and beside it; the effects, their \
source (declared, inferred or none), confidence, rules and location go under `_meta`. Tools are \
sorted by name, and each has an `inputSchema` made from the action's inputs (their types, \
allowed values and descriptions where known, and the names it requires).\n\n\
Tool names are `<connector key>_<actionId>` mapped into the MCP specification's names: each run of \
characters outside A-Z a-z 0-9 _ - . becomes one `_` (dropped at either end), and a name over 128 \
characters keeps its first 119, then `_` and 8 hex digits of a hash of the whole name (32-bit \
FNV-1a). Two tools given one name are an error naming both, and nothing is written. An OpenAPI \
document's key is --key, else its `info.x-effects-key`, else `annotations-key` of \
catalog-effects.toml, else its title snake-cased; a connector file's is its `info.key`.\n\n\
A read-only declaration (effects, or a hand-written readOnlyHint) that the evidence or the effects \
contradict is warned about and exported as not read-only, the safe reading; readOnlyHint and \
destructiveHint are never both true.\n\nExamples:\n  catalog-effects annotations connectors/ -o tools.json\n  \
catalog-effects annotations connectors/ --strict   # exit 1 if the evidence contradicts a declaration\n  \
catalog-effects annotations api/openapi.yaml --key github -o tools.json\n\n\
Exit codes: 0 written; 1 with --strict, a declaration the evidence contradicts (high confidence, or medium when it declares read-only and the evidence says change), or a hand-written readOnlyHint on effects that change; 2 errors (two tools named alike among them).",
    mut_arg("min_confidence", |a| a.help(
        "Inferred effects below this confidence are not exported: such a tool gets the specification's default hints [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.help("Which effects make destructiveHint true in the export [default: delete]"))
)]
pub struct AnnotationsArgs {
    /// Catalog directories (default: `catalogs` of catalog-effects.toml, else the current folder).
    pub catalogs: Vec<PathBuf>,
    /// Write the JSON here instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit 1 when the evidence contradicts declared effects the hints come from, or the
    /// effects contradict a hand-written readOnlyHint (each is a warning either way).
    #[arg(long)]
    pub strict: bool,
    /// The connector key OpenAPI documents' tools are named with (`<KEY>_<operationId>`),
    /// over the document's `info.x-effects-key` and the configuration's `annotations-key`.
    #[arg(long, value_name = "KEY")]
    pub key: Option<String>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(mut args: AnnotationsArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let mut opts = args.engine.options()?;
    // Only the proposals are needed: no edit is made, so none is checked.
    opts.check_edits = false;
    opts.render_patch = false;
    // The descriptions and inputs: each tool's description and `inputSchema`.
    opts.keep_views = true;
    if args.key.as_deref().is_some_and(|k| k.trim().is_empty()) {
        return Err(Error::new("--key is empty: name the key"));
    }
    let keys = Keys {
        given: args.key.clone(),
        fallback: config.annotations_key.clone(),
    };
    let catalogs = engine::catalogs(&args.catalogs, config);
    if let Some(path) = &args.output {
        let guard = super::args::Guard::new(&catalogs, config);
        super::args::check_outputs(&guard, &[super::args::Target::given("--output", path)])?;
    }
    let walked = match engine::walk_or_refuse("annotations", &catalogs, &args.engine) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    let quiet = args.engine.quiet;
    let output = args.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let mut export = Export::new(&opts.rules, opts.policy, keys, output);
    // The files' own errors are printed after the walk's, as they always were.
    // Each file's errors and notes, printed after the walk's errors, as they always were.
    let mut said: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    let meta = walked.run(&opts, |f| {
        let errors: Vec<String> = f
            .error
            .iter()
            .chain(&f.problems)
            .map(ToString::to_string)
            .collect();
        let notes: Vec<String> = f.notes.iter().map(ToString::to_string).collect();
        if !errors.is_empty() || !notes.is_empty() {
            said.push((errors, notes));
        }
        outputs::feed(&mut [&mut export], f);
    });
    let mut errors = meta.errors.len();
    for e in &meta.errors {
        super::out::error(&e.to_string());
    }
    for (file_errors, notes) in &said {
        errors += file_errors.len();
        file_errors.iter().for_each(|e| super::out::error(e));
        if !quiet {
            notes.iter().for_each(|w| super::out::warning(w));
        }
    }
    // Warnings go to stderr; `--quiet` drops them, unless `--strict` makes them fail the run.
    if !quiet || args.strict {
        for w in &export.warnings {
            super::out::warning(&w.to_string());
        }
    }
    errors += export.collisions.len();
    for c in &export.collisions {
        super::out::error(&c.to_string());
    }
    let summary = Summary::default();
    let end = End {
        summary: &summary,
        guide: None,
        meta: &meta,
        write: &outputs::write_output,
    };
    errors += outputs::finish(&mut [&mut export], &end);
    Ok(if errors > 0 {
        EXIT_ERROR
    } else if args.strict && !export.warnings.is_empty() {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

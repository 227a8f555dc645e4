//! `annotations`: what an MCP server built from the catalog would advertise per tool.

use std::path::PathBuf;

use clap::Args;

use catalog_effects::emit::Summary;
use catalog_effects::emit::annotations::Export;
use catalog_effects::emit::sink::End;
use catalog_effects::error::Result;

use super::config::Config;
use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, EngineArgs};

#[derive(Args, Debug)]
#[command(
    after_help = "Every tool gets all four hints (a hint the effects do not set takes the MCP \
specification's default) and its title, inside `annotations` and beside it; the effects, their \
source (declared, inferred or none), confidence, rules and location go under `_meta`. Tools are \
sorted by name.\n\nExamples:\n  catalog-effects annotations connectors/ -o tools.json\n  \
catalog-effects annotations connectors/ --strict   # exit 1 if the evidence contradicts a declaration\n\n\
Exit codes: 0 written; 1 with --strict, a declaration the evidence contradicts (high confidence, or medium when it declares read-only and the evidence says change); 2 errors.",
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
    /// Exit 1 when the evidence contradicts declared effects the hints come from (each
    /// is a warning either way).
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(mut args: AnnotationsArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let mut opts = args.engine.options()?;
    // Only the proposals are needed: no edit is made, so none is checked.
    opts.check_edits = false;
    opts.render_patch = false;
    let catalogs = super::catalogs(&args.catalogs, config);
    if let Some(path) = &args.output {
        let guard = super::args::Guard::new(&catalogs, config);
        super::args::check_outputs(&guard, &[super::args::Target::given("--output", path)])?;
    }
    let walked = match super::walk_or_refuse("annotations", &catalogs, &args.engine) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    let quiet = args.engine.quiet;
    let output = args.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let mut export = Export::new(&opts.rules, output);
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
        super::feed(&mut [&mut export], f);
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
    let summary = Summary::default();
    let end = End {
        summary: &summary,
        guide: None,
        meta: &meta,
        write: &super::write_output,
    };
    errors += super::finish(&mut [&mut export], &end);
    Ok(if errors > 0 {
        EXIT_ERROR
    } else if args.strict && !export.warnings.is_empty() {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

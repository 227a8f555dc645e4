//! `explain` and `explain-code`: answer "why did it say write?" and "what does this code
//! mean?".

use std::path::PathBuf;

use clap::Args;

use catalog_effects::emit::explain;
use catalog_effects::error::{Error, Result, did_you_mean};
use catalog_effects::lint::LintRules;
use catalog_effects::outcome::{ActionResult, FileResult};

use super::config::Config;
use super::engine::{self, EngineArgs};
use super::out::{self, EXIT_ERROR, EXIT_OK};
use super::outputs;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects explain catalogs/demo crmly_update_contact\n  catalog-effects explain catalogs/demo update_contact --min-confidence high",
    mut_arg("min_confidence", |a| a.help(
        "The confidence a proposal needs to be patched: it decides the status shown (added, conflict or unclassified) [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.help("Which effects make destructiveHint true in the hints shown [default: delete]")),
    // One action explained prints no progress and needs no threads to choose.
    mut_arg("jobs", |a| a.hide(true)),
    mut_arg("quiet", |a| a.hide(true))
)]
pub struct ExplainArgs {
    /// The catalog directory.
    pub catalog: PathBuf,
    /// An actionId, or a tool name `<connector>_<actionId>`.
    pub action: String,
    #[command(flatten)]
    pub engine: EngineArgs,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects explain-code missing-effects   # a `check` code\n  catalog-effects explain-code vague-verb        # a `lint` code\n\nAn unknown code is an error (exit 2) that lists the known ones."
)]
pub struct ExplainCodeArgs {
    /// A finding code, e.g. `missing-effects` or `vague-verb`.
    pub code: String,
}

pub fn run(mut args: ExplainArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let mut opts = args.engine.options()?;
    // The patch shown is the one `backfill` would write with the configuration's hints.
    opts.hint_formats = engine::hint_formats(config.hints.as_deref().unwrap_or_default());
    opts.keep_views = true;
    let run = match engine::walk_or_refuse(
        "explain",
        std::slice::from_ref(&args.catalog),
        &args.engine,
    ) {
        Ok(w) => w.collect(&opts),
        Err(code) => return Ok(code),
    };
    let errors = outputs::report_errors(&run, args.engine.quiet);
    let matches: Vec<(&FileResult, &ActionResult)> = run
        .actions()
        .filter(|(_, a)| a.id == args.action || a.tool_name() == args.action)
        .collect();
    if matches.is_empty() {
        let names: Vec<String> = run
            .actions()
            .flat_map(|(_, a)| [a.tool_name(), a.id.clone()])
            .collect();
        let msg = format!(
            "no action `{}` in {}{}",
            args.action,
            args.catalog.display(),
            did_you_mean(&args.action, names.iter().map(String::as_str))
        );
        return Err(Error::new(if errors > 0 {
            format!("{msg} (some files could not be read)")
        } else {
            msg
        }));
    }
    let mut text = String::new();
    for (f, a) in matches {
        text.push_str(&explain::action(f, a, &opts));
        text.push('\n');
    }
    out::print(&catalog_effects::text::safe::lines(&text));
    // A file it could not read may hold another action of that name, or the main file that
    // names its connector.
    Ok(if errors > 0 { EXIT_ERROR } else { EXIT_OK })
}

pub fn run_code(args: ExplainCodeArgs) -> Result<u8> {
    if let Some(text) = catalog_effects::model::codes::explain_check_code(&args.code) {
        out::print(&format!("{}: {text}\n", args.code));
        return Ok(EXIT_OK);
    }
    let lint = LintRules::builtin()?;
    if let Some(rule) = lint.explain(&args.code) {
        out::print(&format!(
            "{} ({}): {}\nsuggestion: {}\n",
            rule.code, rule.severity, rule.why, rule.suggestion
        ));
        return Ok(EXIT_OK);
    }
    let mut codes: Vec<&str> = catalog_effects::model::codes::CHECK_CODES
        .iter()
        .map(|c| c.0)
        .collect();
    // `unused-silence` is a code of both commands: listed once.
    for c in lint.codes() {
        if !codes.contains(&c) {
            codes.push(c);
        }
    }
    out::error(&format!(
        "unknown code `{}`{}; known codes: {}",
        args.code,
        did_you_mean(&args.code, codes.iter().copied()),
        codes.join(", ")
    ));
    Ok(EXIT_ERROR)
}

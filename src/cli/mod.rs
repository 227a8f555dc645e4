//! The command line: the subcommands parsed, and each dispatched to its file. What the
//! commands share lives in files of their own (`engine`, `outputs`, `totals`, `config`,
//! `args`, `out`), so that no command imports this file back.

mod annotations;
pub mod args;
mod audit;
mod backfill;
mod check;
pub mod config;
mod engine;
mod explain;
mod lint;
pub mod out;
mod outputs;
mod totals;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use catalog_effects::error::Result;
use config::Config;

/// The exit-code policy, the same for every command (docs/reference.md, "Exit codes").
const EXIT_CODES: &str = "Exit codes: 0 clean (or, for backfill, annotations and explain: done); \
1 findings that fail the run (check: see --fail-on; lint: error-level findings; audit: an unsafe, \
understated or malformed tool; annotations --strict: a declaration the evidence contradicts); 2 the tool could not do its job: a file it could not read, parse or write, an edit that failed its check, bad arguments, bad \
configuration, a catalog that does not exist or holds no connector file. Findings and results go to \
stdout; errors, warnings and progress to stderr (and the summary too when an output is `-`).";

#[derive(Parser, Debug)]
#[command(
    name = "catalog-effects",
    version,
    about = "Infer, explain and backfill MCP `effects` across a connector catalog.",
    long_about = "Infer, explain and backfill MCP `effects` (read, search, write, delete, execute) \
across a connector catalog, so MCP hints (readOnlyHint, destructiveHint, openWorldHint) can be \
derived for every tool.\n\nTypical use:\n  catalog-effects backfill connectors/        # write reports/effects.patch and reports/coverage.csv\n  git apply reports/effects.patch             # review it like any diff, then apply\n  catalog-effects check connectors/ --write-baseline reports/effects-baseline.csv   # once\n  catalog-effects check connectors/ --baseline reports/effects-baseline.csv --fail-on new   # nightly, on pull requests\n  catalog-effects explain connectors/ crmly_search_contacts           # why? (an action of the sample, catalogs/demo)",
    after_long_help = long_help_footer()
)]
pub struct Cli {
    /// Read options from this file instead of the nearest catalog-effects.toml.
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// The long help's footer: the configuration keys, then the exit codes.
fn long_help_footer() -> String {
    format!("{}\n\n{EXIT_CODES}", config::HELP)
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Propose effects for every action and write a reviewable patch and a CSV report.
    Backfill(backfill::BackfillArgs),
    /// Report what still needs a human; writes nothing into the catalog (for nightly runs).
    Check(check::CheckArgs),
    /// Print, as JSON, the MCP annotations a server built from the catalog would advertise.
    Annotations(annotations::AnnotationsArgs),
    /// Explain why an action got its effects: signals, rules, decision, hints, patch.
    Explain(explain::ExplainArgs),
    /// Print the explanation of a finding code (from `check` or `lint`).
    ExplainCode(explain::ExplainCodeArgs),
    /// Check descriptions against the description contract.
    Lint(lint::LintArgs),
    /// Audit the annotations an MCP server ships (a `tools/list` result, the running server, or every server of a client configuration) against inference.
    Audit(audit::AuditArgs),
}

pub fn dispatch(cli: Cli) -> Result<u8> {
    if let Command::ExplainCode(a) = cli.command {
        return explain::run_code(a);
    }
    // A bad configuration fails every command that could read it, before anything runs.
    let config = Config::load(cli.config.as_deref())?;
    match cli.command {
        Command::ExplainCode(_) => unreachable!("explain-code is handled before the config"),
        Command::Backfill(a) => backfill::run(a, &config),
        Command::Check(a) => check::run(a, &config),
        Command::Annotations(a) => annotations::run(a, &config),
        Command::Explain(a) => explain::run(a, &config),
        Command::Lint(a) => lint::run(a, &config),
        Command::Audit(a) => audit::run(a, &config),
    }
}

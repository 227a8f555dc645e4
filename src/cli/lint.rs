//! `lint`: descriptions against the description contract, on catalogs or MCP tool lists.

use std::path::{Path, PathBuf};

use clap::Args;

use catalog_effects::classify::{Group, infer_in};
use catalog_effects::effects::Effects;
use catalog_effects::emit::findings::{self, Ending, Judged};
use catalog_effects::emit::sarif::SarifRule;
use catalog_effects::error::Result;
use catalog_effects::fix::options::Options;
use catalog_effects::lint::{CodeFilter, LintRules, lint_file, lint_in};
use catalog_effects::model::finding::Finding;
use catalog_effects::source::mcp;

use super::config::{Config, FailOn};
use super::engine::{self, EngineArgs};
use super::out;
use super::outputs::{self, FindingFormat};
use super::totals::Totals;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects lint connectors/\n  catalog-effects lint --tools tools.json --format github\n  catalog-effects lint connectors/ --ignore vague-verb\n  catalog-effects explain-code vague-verb        # what a code means\n\nSilence one code on one action with a comment on its actionId line:\n  - actionId: sync_users # catalog-effects: ignore[vague-verb]\n\nExit codes: 0 nothing fails; 1 findings that fail the run (--fail-on, default error); 2 a file could not be read, bad arguments, or a catalog that does not exist or holds no connector file.",
    mut_arg("min_confidence", |a| a.help(
        "Inferred effects below this confidence are not used: the checks that need effects skip such an action [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.hide(true))
)]
pub struct LintArgs {
    /// Catalog directories (default: `catalogs` of catalog-effects.toml, else the current folder).
    pub catalogs: Vec<PathBuf>,
    /// Lint an MCP `tools/list` result instead of a catalog.
    #[arg(long, value_name = "TOOLS.json", conflicts_with = "catalogs")]
    pub tools: Option<PathBuf>,
    /// Only these codes (comma-separated or repeated).
    #[arg(long, value_name = "CODE", num_args = 1.., value_delimiter = ',')]
    pub select: Vec<String>,
    /// Not these codes (comma-separated or repeated).
    #[arg(long, value_name = "CODE", num_args = 1.., value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// `human`: one line per finding, then the totals line; `json`: the findings;
    /// `github`: workflow annotations and the totals; `sarif`: SARIF 2.1.0 for code scanning.
    #[arg(long, value_enum, default_value = "human")]
    pub format: FindingFormat,
    /// What fails the run (exit 1) [default: error].
    #[arg(long, value_enum)]
    pub fail_on: Option<LintFailOn>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// What fails a lint: `check`'s choices but `new`, which needs a baseline a lint does not
/// have (it was offered, then refused at run time).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum LintFailOn {
    /// Error-level findings only.
    Error,
    /// Any finding (`any` is the same).
    #[value(alias = "any")]
    Warning,
    /// Nothing: exit 1 never happens (2 still does).
    Never,
}

impl From<LintFailOn> for FailOn {
    fn from(f: LintFailOn) -> FailOn {
        match f {
            LintFailOn::Error => FailOn::Error,
            LintFailOn::Warning => FailOn::Warning,
            LintFailOn::Never => FailOn::Never,
        }
    }
}

pub fn run(mut args: LintArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let fail_on = args.fail_on.map_or(FailOn::Error, FailOn::from);
    let quiet = args.engine.quiet;
    let opts = args.engine.options()?;
    let lint_rules = LintRules::builtin()?.with_effect_rules(opts.rules.clone());
    let filter = CodeFilter::new(&args.select, &args.ignore, &lint_rules)?;
    let (mut found, errors) = match &args.tools {
        Some(path) => (tool_findings(path, &opts, &lint_rules, &filter)?, 0),
        None => match catalog_findings(&args, config, opts, &lint_rules, &filter) {
            Ok(f) => f,
            Err(code) => return Ok(code),
        },
    };
    found.sort();
    let mut totals = Totals {
        fail_on,
        unreadable: errors,
        ..Totals::default()
    };
    for f in &found {
        totals.count(f.level);
        totals.failing += usize::from(fail_on.fails(f.level, true));
    }
    let line = totals.line("lint");
    let style = findings::Style {
        quiet,
        ..findings::Style::default()
    };
    let mut emitter = findings::emitter(args.format.into(), style);
    let mut text = String::new();
    for f in found {
        let judged = Judged {
            fails: fail_on.fails(f.level, true),
            ..Judged::default()
        };
        text.extend(emitter.finding(f, &judged));
    }
    text.push_str(&emitter.end(Ending {
        totals: &line,
        rules: match args.format {
            FindingFormat::Sarif => SarifRule::lint_rules(&lint_rules),
            _ => Vec::new(),
        },
        ..Ending::default()
    }));
    out::print(&text);
    Ok(totals.exit_code())
}

/// The findings of an MCP `tools/list` result: each tool's description against its
/// effects (declared by its hints, else inferred).
fn tool_findings(
    path: &Path,
    opts: &Options,
    lint_rules: &LintRules,
    filter: &CodeFilter,
) -> Result<Vec<Finding>> {
    let mut found = Vec::new();
    let text = super::audit::read_tools_file(path)?;
    let list = mcp::read_list(&text, &path.display().to_string())?;
    super::audit::warn_one_page(path, &list);
    let tools: Vec<_> = list.tools.into_iter().map(|t| t.view).collect();
    let group = Group::learn(tools.iter().map(|t| t.id.as_str()), &opts.rules.lexicon);
    for t in &tools {
        // Declared hints say what the tool does; without them, the inference does.
        let declared = t
            .annotations
            .as_ref()
            .map(mcp::effects_from_hints)
            .unwrap_or_default();
        let effects = if declared.is_empty() {
            let inf = infer_in(t, &group, &opts.rules);
            if inf.confident(opts.min_confidence) {
                inf.effects
            } else {
                Effects::EMPTY
            }
        } else {
            declared
        };
        found.extend(
            lint_in(t, &group, effects, lint_rules, filter)
                .into_iter()
                .map(|l| Finding {
                    tool: Some(t.id.clone()),
                    ..l
                }),
        );
    }
    Ok(found)
}

/// The findings of the catalogs' actions, `# catalog-effects: ignore[...]` honoured, and
/// how many files could not be read; the exit code instead when the walk refused them.
/// The files stream through the run: only their findings are kept.
fn catalog_findings(
    args: &LintArgs,
    config: &Config,
    opts: Options,
    lint_rules: &LintRules,
    filter: &CodeFilter,
) -> std::result::Result<(Vec<Finding>, usize), u8> {
    let mut opts = opts;
    opts.keep_views = true;
    opts.check_edits = false;
    opts.render_patch = false;
    let catalogs = engine::catalogs(&args.catalogs, config);
    let walked = engine::walk_or_refuse("lint", &catalogs, &args.engine)?;
    // The walk's errors before the files', the order `report_errors` gives a whole run's.
    let walk_errors = walked.errors().len();
    for e in walked.errors() {
        out::error(&e.to_string());
    }
    let mut found = Vec::new();
    let mut errors = walk_errors;
    let meta = walked.run(&opts, |f| {
        errors += outputs::report_file_errors(f, args.engine.quiet);
        found.extend(lint_file(f, lint_rules, filter));
    });
    for e in meta.errors.iter().skip(walk_errors) {
        out::error(&e.to_string());
        errors += 1;
    }
    Ok((found, errors))
}

//! `audit`: check the annotations an MCP server already ships against inference.

use std::path::PathBuf;

use clap::Args;

use catalog_effects::error::{Error, Result};
use catalog_effects::report::audit;
use catalog_effects::source::mcp;

use super::config::Config;
use super::{EXIT_FINDINGS, EXIT_OK, EngineArgs, SummaryFormat, out};

#[derive(Args, Debug)]
#[command(
    after_help = "Verdicts: agrees; missing (neither readOnlyHint nor destructiveHint); unsafe (declared \
read-only, inferred to change something); understated (destructiveHint false on a delete); \
malformed (a hint key misspelled, misplaced or not a boolean); overcautious (declared not \
read-only, a confident read); differs (destructiveHint differs); destructive-unset (an additive \
write without destructiveHint, which clients take as destructive).\n\nExamples:\n  \
catalog-effects audit tools.json\n  catalog-effects audit tools.json --format json --report reports/audit.csv\n\n\
Exit codes: 0 no tool fails; 1 a tool is unsafe, understated or malformed; 2 errors.",
    mut_arg("min_confidence", |a| a.help(
        "Inferences below this confidence count as unclassified: they never make a tool unsafe, understated or overcautious [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.help(
        "Which inferred effects make destructiveHint true, to compare with the declared one [default: delete]"
    )),
    mut_arg("jobs", |a| a.hide(true))
)]
pub struct AuditArgs {
    /// An MCP `tools/list` result: `{"tools": [...]}`, a JSON-RPC response holding one, or a
    /// bare array of tools.
    pub tools: PathBuf,
    /// `human`: a table, then what each verdict other than agrees means; `json`: every row
    /// with its reason, and the counts.
    #[arg(long, value_enum, default_value = "human")]
    pub format: SummaryFormat,
    /// Also write the per-tool CSV here.
    #[arg(long, value_name = "FILE.csv")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(mut args: AuditArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    if let Some(path) = &args.report {
        let mut guard = super::args::Guard::new(&[], config);
        guard.inputs.push(("the tool list it audits", &args.tools));
        super::args::check_outputs(&guard, &[super::args::Target::given("--report", path)])?;
    }
    let rules = args.engine.rules()?;
    let text = std::fs::read_to_string(&args.tools)
        .map_err(|e| Error::new(format!("cannot read: {e}")).in_file(&args.tools))?;
    let tools = mcp::read_tools(&text, &args.tools.display().to_string())?;
    let rows = audit::audit_tools(
        &tools,
        &rules,
        args.engine.policy(),
        args.engine.confidence(),
    );
    if let Some(path) = &args.report {
        let mut csv = Vec::new();
        audit::write_csv(&rows, &mut csv)?;
        super::write_output(path, &String::from_utf8_lossy(&csv))?;
    }
    let failing = rows.iter().filter(|r| r.verdict.fails()).count();
    let text = match args.format {
        SummaryFormat::Human => audit::render_table(&rows),
        SummaryFormat::Json => audit::render_json(&rows),
    };
    // The table ends with its totals line, all that --quiet keeps.
    let quiet_line = |t: &str| {
        t.lines()
            .last()
            .map(|l| format!("{l}\n"))
            .unwrap_or_default()
    };
    out::print(&match args.format {
        SummaryFormat::Human if args.engine.quiet => quiet_line(&text),
        SummaryFormat::Human => catalog_effects::text::safe::lines(&text).into_owned(),
        _ => text,
    });
    Ok(if failing > 0 { EXIT_FINDINGS } else { EXIT_OK })
}

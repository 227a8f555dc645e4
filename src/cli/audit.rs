//! `audit`: check the annotations an MCP server already ships against inference.

use std::path::PathBuf;

use clap::Args;

use catalog_effects::audit::{self, Verdict};
use catalog_effects::error::{Error, Result};
use catalog_effects::mcp;

use super::config::Config;
use super::{EXIT_FINDINGS, EXIT_OK, EngineArgs, SummaryFormat, out};

#[derive(Args, Debug)]
#[command(
    after_help = "Example:\n  catalog-effects audit tools.json --report reports/audit.csv\n\nExit codes: 0 no tool is unsafe; 1 a tool declared read-only looks mutating; 2 errors."
)]
pub struct AuditArgs {
    /// An MCP `tools/list` result (`{\"tools\": [...]}` or a bare array).
    pub tools: PathBuf,
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
    let rules = args.engine.rules()?;
    let text = std::fs::read_to_string(&args.tools)
        .map_err(|e| Error::new(format!("cannot read: {e}")).in_file(&args.tools))?;
    let tools = mcp::parse_tools(&text, &args.tools.display().to_string())?;
    let rows = audit::audit(
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
    let unsafe_count = rows.iter().filter(|r| r.verdict == Verdict::Unsafe).count();
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
        _ => text,
    });
    Ok(if unsafe_count > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

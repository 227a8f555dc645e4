//! `audit`: check the annotations an MCP server already ships against inference.

use std::path::PathBuf;

use clap::Args;

use catalog_effects::audit;
use catalog_effects::error::{Error, Result};
use catalog_effects::mcp;

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

pub fn run(args: AuditArgs) -> Result<u8> {
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
    if !args.engine.quiet || failing > 0 {
        out::print(&match args.format {
            SummaryFormat::Human => audit::render_table(&rows),
            SummaryFormat::Json => audit::render_json(&rows),
        });
    }
    Ok(if failing > 0 { EXIT_FINDINGS } else { EXIT_OK })
}

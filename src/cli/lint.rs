//! `lint`: descriptions against the description contract, on catalogs or MCP tool lists.

use std::path::PathBuf;

use clap::Args;

use catalog_effects::classify::infer;
use catalog_effects::emit::{self, sarif::SarifRule};
use catalog_effects::error::{Error, Result};
use catalog_effects::findings::{Finding, Level};
use catalog_effects::lint::{CodeFilter, LintFinding, LintRules, Severity, lint};
use catalog_effects::{mcp, pipeline};

use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, EngineArgs, FindingFormat, out};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects lint connectors/\n  catalog-effects lint --tools tools.json --format github\n  catalog-effects lint connectors/ --ignore vague-verb\n\nSilence one code on one action with a comment on its actionId line:\n  - actionId: sync_users # catalog-effects: ignore[vague-verb]"
)]
pub struct LintArgs {
    /// Catalog directories (default: catalogs/demo).
    pub catalogs: Vec<PathBuf>,
    /// Lint an MCP `tools/list` result instead of a catalog.
    #[arg(long, value_name = "TOOLS.json", conflicts_with = "catalogs")]
    pub tools: Option<PathBuf>,
    /// Only these codes.
    #[arg(long, value_name = "CODE", num_args = 1.., value_delimiter = ',')]
    pub select: Vec<String>,
    /// Not these codes.
    #[arg(long, value_name = "CODE", num_args = 1.., value_delimiter = ',')]
    pub ignore: Vec<String>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: FindingFormat,
    #[command(flatten)]
    pub engine: EngineArgs,
}

fn to_finding(
    l: LintFinding,
    file: Option<String>,
    line: Option<usize>,
    column: Option<usize>,
    tool: String,
) -> Finding {
    let level = match l.severity {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
    };
    let text = if l.text.is_empty() {
        String::new()
    } else {
        format!(" \"{}\"", l.text)
    };
    Finding {
        file,
        line,
        column,
        code: l.code,
        level,
        message: format!("{}{text}; {}", l.message, l.suggestion),
        tool: Some(tool),
    }
}

pub fn run(args: LintArgs) -> Result<u8> {
    let opts = args.engine.options()?;
    let lint_rules = LintRules::builtin()?;
    let filter = CodeFilter::new(&args.select, &args.ignore, &lint_rules)?;
    let mut found = Vec::new();
    let mut errors = 0;
    if let Some(path) = &args.tools {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("cannot read: {e}")).in_file(path))?;
        let tools = mcp::parse_tools(&text, &path.display().to_string())?;
        for t in &tools {
            // Declared hints say what the tool does; without them, the inference does.
            let declared = t
                .annotations
                .as_ref()
                .map(mcp::effects_from_hints)
                .unwrap_or_default();
            let effects = if declared.is_empty() {
                infer(t, &opts.rules).effects
            } else {
                declared
            };
            for l in lint(t, effects, &lint_rules, &filter) {
                found.push(to_finding(l, None, None, None, t.id.clone()));
            }
        }
    } else {
        let mut opts = opts;
        opts.keep_views = true;
        opts.check_edits = false;
        let run = pipeline::run(&super::catalogs(&args.catalogs), &opts);
        errors = super::report_errors(&run);
        for (f, a) in run.actions().filter(|(_, a)| !a.nested) {
            let Some(view) = &a.view else { continue };
            let mut view = view.clone();
            view.connector_title = f.info_title.clone().or_else(|| Some(a.connector.clone()));
            for l in lint(&view, a.effects, &lint_rules, &filter) {
                found.push(to_finding(
                    l,
                    Some(f.patch_path.clone()),
                    Some(a.line),
                    Some(a.column),
                    a.tool_name(),
                ));
            }
        }
    }
    found.sort();
    let failing = found.iter().filter(|f| f.level == Level::Error).count();
    let text = match args.format {
        FindingFormat::Human => {
            let mut s: String = found
                .iter()
                .map(|f| {
                    let loc = match (&f.file, f.line) {
                        (Some(file), Some(line)) => format!("{file}:{line}"),
                        _ => f.tool.clone().unwrap_or_default(),
                    };
                    format!("{loc}: {} [{}]: {}\n", f.level.name(), f.code, f.message)
                })
                .collect();
            s.push_str(&format!(
                "\n{} finding(s), {} error(s)\n",
                found.len(),
                failing
            ));
            s
        }
        FindingFormat::Json => serde_json::to_string_pretty(&found).unwrap_or_default() + "\n",
        FindingFormat::Github => emit::github::render(&found),
        FindingFormat::Sarif => emit::sarif::render(
            &found,
            &SarifRule::lint_rules(&lint_rules),
            env!("CARGO_PKG_VERSION"),
        ),
    };
    if !args.engine.quiet || failing > 0 {
        out::print(&text);
    }
    Ok(if errors > 0 {
        EXIT_ERROR
    } else if failing > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

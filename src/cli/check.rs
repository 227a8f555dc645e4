//! `check`: the nightly run. Same walk and inference as `backfill`, writes nothing into
//! the catalog, and reports what needs a human.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use catalog_effects::emit::{self, sarif::SarifRule};
use catalog_effects::error::{Error, Result};
use catalog_effects::findings::{self, Finding, Level};
use catalog_effects::pipeline::{self, Run};
use catalog_effects::walk;

use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, EngineArgs, FindingFormat, ReportArgs, out};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Any finding fails the run.
    Any,
    /// Only findings that are not in the baseline fail the run.
    New,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Nightly, on a pull request:\n  catalog-effects check connectors/ --since origin/main --baseline reports/coverage.csv --fail-on new --format github\n\nExit codes: 0 every action declares valid effects that agree with inference; 1 findings; 2 errors (unreadable files, invalid effects, duplicate ids)."
)]
pub struct CheckArgs {
    /// Catalog directories (default: catalogs/demo).
    pub catalogs: Vec<PathBuf>,
    /// An earlier CSV report: print what is new since then.
    #[arg(long, value_name = "PREVIOUS.csv")]
    pub baseline: Option<PathBuf>,
    /// Which findings fail the run.
    #[arg(long, value_enum, default_value = "any")]
    pub fail_on: FailOn,
    /// Only files changed between REV and the work tree (plus the main file of each changed
    /// partial's folder).
    #[arg(long, value_name = "REV")]
    pub since: Option<String>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: FindingFormat,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The files of `catalog` changed since `rev`, relative to the catalog. The run adds the
/// main file of each one's folder.
fn changed_files(catalog: &std::path::Path, rev: &str) -> Result<BTreeSet<String>> {
    let repo = catalog_effects::git::Repo::discover(catalog).ok_or_else(|| {
        Error::new("--since needs the catalog to be inside a git work tree").in_file(catalog)
    })?;
    let prefix = repo.relative(catalog).unwrap_or_default();
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    Ok(repo
        .changed_since(rev)?
        .into_iter()
        .filter_map(|path| path.strip_prefix(&prefix).map(str::to_owned))
        .filter(|rel| walk::is_connector_file(rel))
        .collect())
}

pub fn run(args: CheckArgs) -> Result<u8> {
    let catalogs = super::catalogs(&args.catalogs);
    args.reports.check_outputs(&catalogs, &[])?;
    let mut opts = args.engine.options()?;
    if let Some(rev) = &args.since {
        let mut only = BTreeSet::new();
        for (i, c) in catalogs.iter().enumerate() {
            only.extend(changed_files(c, rev)?.into_iter().map(|f| (i, f)));
        }
        opts.only = Some(only);
    }
    // Read before the run: the report written during the run may be the baseline itself.
    let baseline = match &args.baseline {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::new(format!("cannot read baseline: {e}")).in_file(path))?;
            Some(findings::baseline(&text).map_err(|e| Error::new(e).in_file(path))?)
        }
        None => None,
    };
    opts.render_csv = true;
    opts.check_edits = false;
    let mut report = super::open_output(&args.reports.report)?;
    let mut failed_io = report.write_all(emit::csv_header().as_bytes()).err();
    let mut summary = emit::Summary::default();
    let mut checker = findings::Checker::default();
    let mut current_tools = BTreeSet::new();
    let mut kept = Vec::new();
    let mut reporter = Reporter {
        format: args.format,
        fail_on: args.fail_on,
        quiet: args.engine.quiet,
        baseline: baseline.as_ref(),
        failing: 0,
        failing_errors: 0,
        new: 0,
        kept: Vec::new(),
    };
    let meta = pipeline::run_each(&catalogs, &opts, |f| {
        for n in &f.notes {
            out::eprint(&format!("warning: {n}\n"));
        }
        summary.add_file(f);
        reporter.take(checker.file(f, &opts.rules));
        if failed_io.is_none() {
            failed_io = report.write_all(f.csv.as_bytes()).err();
        }
        if baseline.is_some() {
            current_tools.extend(f.actions.iter().map(|a| a.tool_name()));
        }
        if args.reports.html.is_some() {
            f.csv = String::new();
            f.patch = String::new();
            kept.push(std::mem::take(f));
        }
    });
    reporter.take(checker.finish(&meta.errors, &meta.rules_used, &opts.rules));
    let partial = args.since.as_ref().map(|rev| {
        format!(
            "partial run: {} of {} files (changed since {rev})",
            meta.files, meta.walked
        )
    });
    summary.errors += meta.errors.len();
    summary.as_declared();
    let mut gone: Vec<String> = Vec::new();
    // A partial run only sees part of the catalog: what it did not look at did not go.
    if let (Some(base), None) = (&baseline, &partial) {
        gone = base.tools.difference(&current_tools).cloned().collect();
    }
    if let Some(e) = failed_io {
        return Err(Error::new(format!("cannot write: {e}")).in_file(&args.reports.report));
    }
    report.finish(&args.reports.report)?;
    let run = meta.with_files(kept);
    args.reports
        .history_and_page(&run, &summary, partial.is_some())?;

    let (failing, failing_errors) = (reporter.failing, reporter.failing_errors);
    let (new, found) = (reporter.new, reporter.kept);
    let compared = baseline.is_some();
    let text = match args.format {
        FindingFormat::Human if args.engine.quiet => String::new(),
        FindingFormat::Human => human(
            &run,
            &summary,
            compared.then_some(new),
            &gone,
            partial.as_deref(),
        ),
        FindingFormat::Json => json(&summary, &found, compared, &gone, partial.as_deref()),
        FindingFormat::Github => String::new(),
        FindingFormat::Sarif => {
            let found: Vec<Finding> = found.into_iter().map(|(f, _)| f).collect();
            emit::sarif::render(&found, &SarifRule::check_rules(), env!("CARGO_PKG_VERSION"))
        }
    };
    out::print(&text);
    // Bad input (an unreadable file, an invalid `effects`, a duplicate id) is an error, as
    // in `backfill`; other findings are findings.
    Ok(if summary.errors > 0 || failing_errors > 0 {
        EXIT_ERROR
    } else if failing > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// Takes findings as the run produces them, in file order: counts what fails the run and
/// what is new, and prints human and GitHub lines at once, so a large catalog's findings are
/// never all held in memory. JSON and SARIF are documents, so their findings are kept.
struct Reporter<'a> {
    format: FindingFormat,
    fail_on: FailOn,
    quiet: bool,
    baseline: Option<&'a findings::Baseline>,
    failing: usize,
    /// Failing findings of error level.
    failing_errors: usize,
    new: usize,
    kept: Vec<(Finding, bool)>,
}

impl Reporter<'_> {
    /// Not in the baseline. Without a baseline everything is new; an error without a tool
    /// (an unreadable file) is always new, since the baseline cannot hold it.
    fn is_new(&self, f: &Finding) -> bool {
        match (self.baseline, &f.tool) {
            (Some(base), Some(tool)) => !base.findings.contains(&(tool.clone(), f.code.clone())),
            (Some(_), None) => f.level == Level::Error,
            (None, _) => true,
        }
    }

    fn take(&mut self, found: Vec<Finding>) {
        for f in found {
            let new = self.is_new(&f);
            let fails = f.level != Level::Note && (self.fail_on == FailOn::Any || new);
            self.failing += usize::from(fails);
            self.failing_errors += usize::from(fails && f.level == Level::Error);
            self.new += usize::from(self.baseline.is_some() && new && f.level != Level::Note);
            // The built-in rules that matched nothing say nothing about this catalog.
            let builtin_note = f.level == Level::Note
                && f.file
                    .as_deref()
                    .is_some_and(|p| p.starts_with("heuristics/"));
            match self.format {
                FindingFormat::Human if !builtin_note && (!self.quiet || fails) => {
                    let mark = if self.baseline.is_some() && new {
                        " [new]"
                    } else {
                        ""
                    };
                    out::print(&format!(
                        "{}: {} [{}]{mark}: {}\n",
                        location(&f),
                        f.level.name(),
                        f.code,
                        f.message
                    ));
                }
                FindingFormat::Github if !self.quiet || fails => {
                    out::print(&emit::github::render(std::slice::from_ref(&f)));
                }
                FindingFormat::Json | FindingFormat::Sarif => self.kept.push((f, new)),
                _ => {}
            }
        }
    }
}

fn location(f: &Finding) -> String {
    match (&f.file, f.line) {
        (Some(file), Some(line)) => format!("{file}:{line}"),
        (Some(file), None) => file.clone(),
        _ => f.tool.clone().unwrap_or_default(),
    }
}

fn human(
    run: &Run,
    summary: &emit::Summary,
    new: Option<usize>,
    gone: &[String],
    partial: Option<&str>,
) -> String {
    let mut s = String::new();
    if let Some(new) = new {
        s.push_str(&format!(
            "\nnew since the baseline: {new}; disappeared: {}\n",
            gone.len()
        ));
        for g in gone {
            s.push_str(&format!("  gone: {g}\n"));
        }
    }
    s.push('\n');
    s.push_str(&emit::summary_table(summary));
    let links: usize = run.catalogs.iter().map(|c| c.skipped_links.len()).sum();
    if links > 0 {
        s.push_str(&format!("symlinks not followed: {links}\n"));
    }
    if let Some(p) = partial {
        s.push_str(p);
        s.push('\n');
    }
    s
}

fn json(
    summary: &emit::Summary,
    found: &[(Finding, bool)],
    compared: bool,
    gone: &[String],
    partial: Option<&str>,
) -> String {
    let items: Vec<serde_json::Value> = found
        .iter()
        .map(|(f, new)| {
            let mut v = serde_json::to_value(f).unwrap_or_default();
            if compared {
                v["new"] = serde_json::Value::Bool(*new);
            }
            v
        })
        .collect();
    let v = serde_json::json!({
        "findings": items,
        "summary": serde_json::from_str::<serde_json::Value>(&emit::summary_json(summary)).unwrap_or_default(),
        "disappeared": gone,
        "partial": partial,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

//! `check`: the nightly and pull-request run. Same walk and inference as `backfill`, writes
//! nothing into the catalog, and reports what needs a human, against a baseline if given.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use catalog_effects::emit::html::Coverage;
use catalog_effects::emit::sink::End;
use catalog_effects::emit::streams::Streamed;
use catalog_effects::emit::{self, sarif::BaselineState, sarif::SarifRule};
use catalog_effects::error::{Error, Result};
use catalog_effects::model::codes::check_code_level;
use catalog_effects::model::finding::{Finding, Level};
use catalog_effects::outcome;
use catalog_effects::report::Checker;
use catalog_effects::report::baseline::{self, Baseline};
use catalog_effects::run::walk;

use super::args::{Origin, Target};
use super::config::Config;
use super::out::{self, Stream};
use super::{EXIT_ERROR, EXIT_OK, EngineArgs, FailOn, FindingFormat, ReportArgs, Totals, plural};

/// A long list on the terminal shows this many items, then how many more and where they are.
pub const LIST_LIMIT: usize = 20;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:
  catalog-effects check connectors/ --write-baseline reports/effects-baseline.csv   # accept what is there today
  catalog-effects check connectors/ --baseline reports/effects-baseline.csv --fail-on new
  catalog-effects check --since origin/main --format github     # a pull request, with catalog-effects.toml
  catalog-effects check connectors/ --html reports/coverage.html   # the coverage page

With a baseline, only new findings are listed (and annotated on GitHub with --fail-on new); the \
totals line counts the rest. A baseline is only read: --report may not name it, and it changes \
only through --write-baseline (refused on a --since run and when a file could not be read).

Severities: warning for missing-effects, unclassified-action, conflicting-effects, \
invalid-effects, duplicate-action-id and unused-silence; error for read-only-override \
(readOnlyHint: true on an action whose effects change something) and parse-error (a file the \
tool could not read, which also makes the exit code 2); note for redundant-hint (a hint the \
effects derive anyway: backfill --migrate-hints removes it) and unused-heuristic (a rule of \
yours that matched nothing).

A reviewer's decision is kept in the catalog: `# catalog-effects: ignore[code]` on an \
action's actionId line (or among a file's leading comment lines, for all its actions) silences \
that finding there; silenced findings are counted in the totals line, never listed or failing.

Exit codes: 0 nothing fails (or the baseline was written); 1 findings that fail the run (see \
--fail-on); 2 a file could not be read or parsed, bad arguments or configuration, or a catalog \
that does not exist or holds no connector file (nothing is written then).",
    mut_arg("min_confidence", |a| a.help(
        "Proposals below this confidence are not trusted: the action is reported unclassified, and a declaration conflicts only with a proposal at or above it [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.help(
        "Which effects make destructiveHint true in the report's hint columns [default: delete]"
    ))
)]
pub struct CheckArgs {
    /// Catalog directories (default: `catalogs` of catalog-effects.toml, else the current folder).
    pub catalogs: Vec<PathBuf>,
    /// A report written by --write-baseline: its findings are not new. Only ever read.
    #[arg(long, value_name = "FILE.csv")]
    pub baseline: Option<PathBuf>,
    /// Write this run's report as the baseline (it may be the --baseline file, to update it);
    /// the run then exits 0 once it is written, its findings accepted.
    #[arg(long, value_name = "FILE.csv")]
    pub write_baseline: Option<PathBuf>,
    /// What fails the run (exit 1) [default: warning].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Only files changed between REV and the work tree (plus the main file of each changed
    /// partial's folder).
    #[arg(long, value_name = "REV")]
    pub since: Option<String>,
    /// `human`: one line per finding, the summary, then the totals line; `json`: the
    /// findings and the summary; `github`: workflow annotations and the totals line; `sarif`:
    /// SARIF 2.1.0 for code scanning.
    #[arg(long, value_enum, default_value = "human")]
    pub format: FindingFormat,
    /// Also write the CSV coverage report here (one row per action); never the baseline.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// The files of `catalog` changed since `rev`, relative to the catalog. The run adds the
/// main file (found by content) of each changed partial's folder.
fn changed_files(catalog: &Path, rev: &str) -> Result<BTreeSet<String>> {
    let repo = catalog_effects::git::Repo::discover(catalog).ok_or_else(|| {
        catalog_effects::git::refused(catalog).unwrap_or_else(|| {
            Error::new("--since needs the catalog to be inside a git work tree").in_file(catalog)
        })
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
        // An OpenAPI document is known by its content: the walk decides which it is.
        .filter(|rel| {
            catalog_effects::source::connector::is_connector_file(rel)
                || catalog_effects::source::openapi::may_be_document(rel)
        })
        .collect())
}

/// The options of one run once flags, configuration and defaults are merged and checked
/// against each other: every refusal happens here, before anything is read or written.
struct Plan {
    baseline: Option<PathBuf>,
    report: Option<PathBuf>,
    fail_on: FailOn,
}

impl Plan {
    fn new(args: &CheckArgs, config: &Config) -> Result<Plan> {
        let baseline = args.baseline.clone().or_else(|| config.baseline.clone());
        let report = args.report.clone().or_else(|| config.report.clone());
        let fail_on = args.fail_on.or(config.fail_on).unwrap_or_default();
        if fail_on == FailOn::New && baseline.is_none() {
            return Err(Error::new(
                "--fail-on new needs a baseline: --baseline FILE (or `baseline` in catalog-effects.toml); write one with --write-baseline FILE",
            ));
        }
        if let (Some(b), Some(_)) = (&args.write_baseline, &args.since) {
            return Err(Error::new(
                "--write-baseline is refused on a --since run: a baseline must cover the whole catalog, or every finding outside the changed files would be new next time",
            )
            .in_file(b));
        }
        Ok(Plan {
            baseline,
            report,
            fail_on,
        })
    }

    /// The baseline, read before anything is written. A missing one is empty when this run
    /// writes it (the first `--write-baseline`), else an error that says how to make one.
    fn read_baseline(&self, writing: bool) -> Result<Option<Baseline>> {
        let Some(path) = &self.baseline else {
            return Ok(None);
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && writing => {
                return Ok(Some(Baseline::default()));
            }
            Err(e) => {
                let hint = if e.kind() == std::io::ErrorKind::NotFound {
                    format!(
                        "; write it with `catalog-effects check --write-baseline {}`",
                        path.display()
                    )
                } else {
                    String::new()
                };
                return Err(Error::new(format!("cannot read baseline: {e}{hint}")).in_file(path));
            }
        };
        baseline::baseline(&text)
            .map(Some)
            .map_err(|e| Error::new(format!("invalid baseline: {e}")).in_file(path))
    }
}

pub fn run(mut args: CheckArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let plan = Plan::new(&args, config)?;
    let mut opts = args.engine.options()?;
    // check writes nothing into the catalog, so its proposals' edits need no check.
    opts.check_edits = false;
    opts.render_patch = false;
    let catalogs = super::catalogs(&args.catalogs, config);
    let mut guard = super::args::Guard::new(&catalogs, config);
    guard
        .baselines
        .extend(args.baseline.as_deref().map(|b| ("--baseline", b)));
    let mut own = Vec::new();
    if let Some(report) = &plan.report {
        let origin = match args.report {
            Some(_) => Origin::CommandLine,
            None => Origin::Config,
        };
        own.push(Target::from("--report", report, origin));
    }
    if let Some(path) = &args.write_baseline {
        own.push(Target {
            writes_baseline: true,
            ..Target::given("--write-baseline", path)
        });
    }
    args.reports.check_outputs(&guard, &own)?;
    if let Some(rev) = &args.since {
        let mut only = BTreeSet::new();
        for (i, c) in catalogs.iter().enumerate() {
            only.extend(
                changed_files(&walk::catalog_dir(c), rev)?
                    .into_iter()
                    .map(|f| (i, f)),
            );
        }
        opts.only = Some(only);
    }
    let baseline = plan.read_baseline(args.write_baseline.is_some())?;
    let walked = match super::walk_or_refuse("check", &catalogs, &args.engine) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    let quiet = args.engine.quiet;
    let to = Stream::beside([plan.report.as_deref(), args.write_baseline.as_deref()]);
    opts.render_csv = plan.report.is_some() || args.write_baseline.is_some();
    let mut csv_outputs = Vec::new();
    for path in [&plan.report, &args.write_baseline].into_iter().flatten() {
        csv_outputs.push((path, super::open_output(path)?));
    }
    let mut failed_io = None;
    // Outputs that could not be written: they fail the run (exit 2), but the findings are
    // still printed, as backfill still prints its summary (issue 13).
    let mut failed_outputs = 0;
    let mut write_csv = |text: &str, outputs: &mut Vec<(&PathBuf, super::Output)>| {
        for (path, o) in outputs.iter_mut() {
            if failed_io.is_none()
                && let Err(e) = o.write_all(text.as_bytes())
            {
                failed_io = Some(Error::new(format!("cannot write: {e}")).in_file(path.as_path()));
            }
        }
    };
    write_csv(&emit::csv_header(), &mut csv_outputs);
    let mut summary = emit::Summary::default();
    let mut checker = Checker::default();
    let mut page = args.reports.page(Coverage::Current, &opts.rules);
    page.partial = args.since.is_some();
    let mut reporter = Reporter {
        format: args.format,
        quiet,
        to,
        baseline: baseline.as_ref(),
        partial: args.since.is_some(),
        totals: Totals {
            fail_on: plan.fail_on,
            ..Totals::default()
        },
        seen: BTreeSet::new(),
        actions: BTreeSet::new(),
        files: BTreeSet::new(),
        kept: Vec::new(),
    };
    let meta = walked.run(&opts, |f| {
        super::report_file_errors(f, quiet);
        summary.add_file(f);
        reporter.file(f);
        reporter.take(checker.file(f, &opts.rules));
        write_csv(&f.csv, &mut csv_outputs);
        failed_outputs += super::feed(&mut [&mut page], f);
    });
    for e in &meta.errors {
        out::error(&e.to_string());
    }
    let mut late = checker.finish(&meta.errors, &meta.rules_used, &opts.rules);
    // Errors from outside any file (an unreadable folder) carry the path as printed; SARIF
    // and GitHub want it from the repository root.
    let repo = meta.catalogs.iter().find_map(|c| c.repo.as_ref());
    for f in &mut late {
        f.ci_file = repo
            .zip(f.file.as_deref())
            .and_then(|(r, p)| r.relative(Path::new(p)));
    }
    reporter.take(late);
    let partial = args.since.as_ref().map(|rev| {
        format!(
            "partial run: {} of {} files (changed since {rev})",
            meta.files, meta.walked
        )
    });
    summary.errors += meta.errors.len();
    summary.as_declared();
    reporter.totals.unreadable = summary.errors;
    let gone = reporter.gone();
    if let Some((_, _, g)) = &mut reporter.totals.baseline {
        *g = gone.len();
    }

    let written = match failed_io {
        Some(e) => Err(e),
        None => finish_csv(csv_outputs, args.write_baseline.as_ref(), summary.errors),
    }
    .unwrap_or_else(|e| {
        out::error(&e.to_string());
        failed_outputs += 1;
        None
    });
    if page.partial && args.reports.history.is_some() && !quiet {
        out::eprint(
            "note: --history is not appended on a partial (--since) run: its counts cover only the changed files\n",
        );
    }
    let end = End {
        summary: &summary,
        guide: None,
        meta: &meta,
        write: &super::write_output,
    };
    failed_outputs += super::finish(&mut [&mut page], &end);

    let totals = &reporter.totals;
    let code = match (totals.exit_code(), &written) {
        _ if failed_outputs > 0 => EXIT_ERROR,
        (EXIT_ERROR, _) => EXIT_ERROR,
        (_, Some(_)) => EXIT_OK,
        (code, None) => code,
    };
    let mut totals_line = totals.line("check");
    if let Some(path) = &written {
        totals_line.push_str(&format!(
            "; baseline written to {}: its findings are accepted",
            path.display()
        ));
    }
    let text = match args.format {
        FindingFormat::Human if quiet => totals_line + "\n",
        FindingFormat::Human => {
            human(&meta, &summary, &gone, partial.as_deref()) + "\n" + &totals_line + "\n"
        }
        FindingFormat::Json => json(&summary, &reporter, &gone, partial.as_deref()),
        FindingFormat::Github => {
            // Each finding that fails the run is an error of its own; the totals are a
            // notice, or a pull request shows two errors for one (issue 33).
            format!(
                "::notice title=catalog-effects::{}\n",
                emit::github::escape_data(&totals_line)
            )
        }
        FindingFormat::Sarif => sarif(&reporter),
    };
    match args.format {
        FindingFormat::Human => to.print(&catalog_effects::text::safe::lines(&text)),
        _ => to.print(&text),
    }
    Ok(code)
}

/// Puts the report and the baseline in place. The baseline only when every file was read:
/// dropped unfinished, its staged file goes and the old baseline stays.
fn finish_csv(
    outputs: Vec<(&PathBuf, super::Output)>,
    baseline: Option<&PathBuf>,
    unreadable: usize,
) -> Result<Option<PathBuf>> {
    let mut written = None;
    for (path, o) in outputs {
        if Some(path) != baseline {
            o.commit(path)?;
        } else if unreadable > 0 {
            out::error(&format!(
                "{}: baseline not written: {} (files or items that could not be read), and a baseline must cover the whole catalog",
                path.display(),
                plural(unreadable, "parse error")
            ));
        } else {
            o.commit(path)?;
            written = Some(path.clone());
        }
    }
    Ok(written)
}

/// The SARIF log: the findings, with their state against the baseline, and the baseline's
/// findings that are gone.
fn sarif(reporter: &Reporter) -> String {
    let mut results: Vec<(Finding, Option<BaselineState>)> = reporter
        .kept
        .iter()
        .map(|(f, new)| (f.clone(), new.map(BaselineState::from_new)))
        .collect();
    results.extend(
        reporter
            .absent()
            .into_iter()
            .map(|f| (f, Some(BaselineState::Absent))),
    );
    emit::sarif::render_with_states(
        &results,
        &SarifRule::check_rules(),
        env!("CARGO_PKG_VERSION"),
    )
}

/// Takes findings as the run produces them, in file order: counts them, says what fails the
/// run and what is new, and prints human and GitHub lines at once, so a large catalog's
/// findings are never all held in memory. JSON and SARIF are documents, so their findings
/// are kept.
struct Reporter<'a> {
    format: FindingFormat,
    quiet: bool,
    to: Stream,
    baseline: Option<&'a Baseline>,
    /// A `--since` run: it only looked at the changed files.
    partial: bool,
    totals: Totals,
    /// With a baseline: its findings and actions the run has too, and the files looked at
    /// (relative to their catalog, as the baseline has them), to tell what went. Only the
    /// baseline's own keys are kept: a copy of every action's key of a million-action
    /// catalog would grow with it.
    seen: BTreeSet<&'a (String, String, String)>,
    actions: BTreeSet<&'a (String, String)>,
    files: BTreeSet<String>,
    /// Each finding and, with a baseline, whether it is new.
    kept: Vec<(Finding, Option<bool>)>,
}

impl Reporter<'_> {
    /// Notes what a file holds, for what the baseline has and the run does not.
    fn file(&mut self, f: &outcome::FileResult) {
        if let Some(base) = self.baseline {
            self.files.insert(f.rel.clone());
            for a in f.actions.iter().filter(|a| !a.nested) {
                let key = (a.connector.clone(), a.id.clone());
                if let Some((key, _)) = base.actions.get_key_value(&key) {
                    self.actions.insert(key);
                }
            }
        }
    }

    fn take(&mut self, found: Vec<Finding>) {
        for f in found {
            // Silenced: a reviewer's decision kept in the catalog. Counted, never listed or
            // failing; a baseline entry it matches stays seen, not absent.
            if f.silenced {
                self.totals.silenced += 1;
                if let Some((key, _)) = self
                    .baseline
                    .and_then(|b| b.findings.get_key_value(&f.identity()))
                {
                    self.seen.insert(key);
                }
                continue;
            }
            // A file the tool could not read is an error on stderr and exit 2, whatever
            // fails the run; the documents carry it too, for the pull request.
            let unreadable = f.code == "parse-error";
            let known = self
                .baseline
                .filter(|_| !unreadable)
                .and_then(|b| b.findings.get_key_value(&f.identity()))
                .map(|(key, _)| key);
            let new = self.baseline.map(|_| unreadable || known.is_none());
            let fails = !unreadable && self.totals.fail_on.fails(f.level, new.unwrap_or(true));
            if !unreadable {
                self.totals.count(f.level);
                self.totals.failing += usize::from(fails);
                if let Some(new) = new.filter(|_| f.level != Level::Note) {
                    self.seen.extend(known);
                    let counts = self.totals.baseline.get_or_insert((0, 0, 0));
                    if new {
                        counts.0 += 1;
                    } else {
                        counts.1 += 1;
                    }
                }
            }
            let listed = new != Some(false);
            // A note is never new, as the totals count it (issue 33: one was printed `[new]`
            // while the totals left it out); it is still listed, being in no baseline.
            let counted_new = new.map(|n| n && f.level != Level::Note);
            match self.format {
                FindingFormat::Human if listed && !unreadable && !self.quiet => {
                    let mark = if counted_new == Some(true) {
                        " [new]"
                    } else {
                        ""
                    };
                    self.to.print(&f.human(mark));
                }
                // On a pull request only what is new is worth an annotation, and GitHub caps
                // how many it shows: the old ones could hide it.
                FindingFormat::Github if self.totals.fail_on != FailOn::New || listed => {
                    let level = if fails || unreadable {
                        Level::Error
                    } else {
                        f.level
                    };
                    let title = if new == Some(true) && !unreadable && f.level != Level::Note {
                        format!("{} (new)", f.code)
                    } else {
                        f.code.clone()
                    };
                    self.to.print(&emit::github::command(&f, level, &title));
                }
                FindingFormat::Json => self.kept.push((f, counted_new)),
                FindingFormat::Sarif => self.kept.push((f, new)),
                _ => {}
            }
        }
        if self.baseline.is_some() {
            self.totals.baseline.get_or_insert((0, 0, 0));
        }
    }

    /// Whether the run looked at what a baseline row describes: a partial run only sees the
    /// changed files, and what it did not look at did not go.
    fn looked_at(&self, file: &str) -> bool {
        !self.partial || self.files.contains(file)
    }

    /// The baseline's actions that the run no longer has, as tool names.
    fn gone(&self) -> Vec<String> {
        let Some(base) = self.baseline else {
            return Vec::new();
        };
        base.actions
            .iter()
            .filter(|(key, row)| !self.actions.contains(*key) && self.looked_at(&row.file))
            .map(|(_, row)| row.tool.clone())
            .collect()
    }

    /// The baseline's findings the run no longer reports, for SARIF's `absent` results.
    fn absent(&self) -> Vec<Finding> {
        let Some(base) = self.baseline else {
            return Vec::new();
        };
        base.findings
            .iter()
            .filter(|(key, row)| !self.seen.contains(*key) && self.looked_at(&row.file))
            .map(|((connector, id, code), row)| Finding {
                code: code.clone(),
                level: check_code_level(code),
                message: format!(
                    "`{id}`: no longer reported (in the baseline at {}:{})",
                    row.file, row.line
                ),
                tool: Some(row.tool.clone()),
                action: Some((connector.clone(), id.clone())),
                ..Finding::default()
            })
            .collect()
    }
}

fn human(
    run: &outcome::RunMeta,
    summary: &emit::Summary,
    gone: &[String],
    partial: Option<&str>,
) -> String {
    let mut s = String::new();
    if !gone.is_empty() {
        s.push_str(&format!("\ngone since the baseline ({}):\n", gone.len()));
        for g in gone.iter().take(LIST_LIMIT) {
            s.push_str(&format!("  {}\n", catalog_effects::text::safe::line(g)));
        }
        if gone.len() > LIST_LIMIT {
            s.push_str(&format!(
                "  ... and {} more (all of them: --format json, `disappeared`)\n",
                gone.len() - LIST_LIMIT
            ));
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
    reporter: &Reporter,
    gone: &[String],
    partial: Option<&str>,
) -> String {
    let compared = reporter.baseline.is_some();
    let items: Vec<serde_json::Value> = reporter
        .kept
        .iter()
        .map(|(f, new)| {
            let mut v = serde_json::to_value(f).unwrap_or_default();
            if compared {
                v["new"] = serde_json::Value::Bool(new.unwrap_or(true));
            }
            v
        })
        .collect();
    let v = serde_json::json!({
        "findings": items,
        "summary": serde_json::from_str::<serde_json::Value>(&emit::summary_json(summary)).unwrap_or_default(),
        "disappeared": gone,
        "partial": partial,
        "failing": reporter.totals.failing,
        "fail_on": reporter.totals.fail_on.name(),
        "silenced": reporter.totals.silenced,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

//! `check`: the nightly and pull-request run. Same walk and inference as `backfill`, writes
//! nothing into the catalog, and reports what needs a human, against a baseline if given.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Args;

use catalog_effects::emit;
use catalog_effects::emit::findings::{self, Emitter, Ending, Judged};
use catalog_effects::emit::html::Coverage;
use catalog_effects::emit::sarif::SarifRule;
use catalog_effects::emit::sink::End;
use catalog_effects::emit::streams::{Content, Streams};
use catalog_effects::error::{Error, Result};
use catalog_effects::fix::options::Options;
use catalog_effects::model::finding::{Finding, Level};
use catalog_effects::outcome;
use catalog_effects::report::Checker;
use catalog_effects::report::baseline::{self, Baseline, Comparison};
use catalog_effects::run::walk;

use super::args::{Origin, Target};
use super::config::{Config, FailOn};
use super::engine::{self, EngineArgs};
use super::out::{self, EXIT_ERROR, EXIT_OK, Stream};
use super::outputs::{self, FindingFormat, ReportArgs};
use super::totals::Totals;

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
    /// partial's folder, and every connector file beside a deleted or renamed one).
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

/// The files of `catalog` changed since `rev`, relative to the catalog, and every
/// connector file in the folder of a path deleted or renamed away since: a `$ref:` names a
/// file of its own folder, and a partial belongs to the main file beside it, so a deletion
/// there can break either though neither changed. The run adds the main file (found by
/// content) of each changed partial's folder.
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
    let changes = repo.changes_since(rev)?;
    let mut files: BTreeSet<String> = changes
        .changed
        .into_iter()
        .filter_map(|path| path.strip_prefix(&prefix).map(str::to_owned))
        // An OpenAPI document or a server's source is known by its content: any name a
        // source may own goes to the walk, which decides.
        .filter(|rel| {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            catalog_effects::source::SOURCES
                .iter()
                .any(|s| s.owns_name(name))
        })
        .collect();
    let folders: BTreeSet<&str> = changes
        .gone
        .iter()
        .filter_map(|path| path.strip_prefix(&prefix))
        .map(|rel| rel.rsplit_once('/').map_or("", |(folder, _)| folder))
        .collect();
    for folder in folders {
        files.extend(connector_files_in(catalog, folder));
    }
    Ok(files)
}

/// The connector files directly in `folder` (catalog-relative, '' for the catalog itself),
/// as catalog-relative paths; none when the folder is gone with what was deleted. What the
/// walk leaves out (excluded, unreadable) it still leaves out: this only selects.
fn connector_files_in(catalog: &Path, folder: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(catalog.join(folder)) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| catalog_effects::source::connector::is_connector_file(name))
        .map(|name| match folder {
            "" => name,
            _ => format!("{folder}/{name}"),
        })
        .collect()
}

/// The options of one run once flags, configuration and defaults are merged and checked
/// against each other: every refusal happens here, before anything is read or written.
struct Settings {
    baseline: Option<PathBuf>,
    report: Option<PathBuf>,
    fail_on: FailOn,
}

impl Settings {
    fn new(args: &CheckArgs, config: &Config) -> Result<Settings> {
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
        Ok(Settings {
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
    let settings = Settings::new(&args, config)?;
    let catalogs = engine::catalogs(&args.catalogs, config);
    let opts = options(&args, &settings, &catalogs, config)?;
    let baseline = settings.read_baseline(args.write_baseline.is_some())?;
    let walked = match engine::walk_or_refuse("check", &catalogs, &args.engine) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    let to = Stream::beside([settings.report.as_deref(), args.write_baseline.as_deref()]);
    let mut streams = Streams::new(
        [
            (&settings.report, Content::Report),
            (&args.write_baseline, Content::Baseline),
        ]
        .into_iter()
        .filter_map(|(path, content)| Some((path.clone()?, content)))
        .map(|(path, content)| Ok((path.clone(), outputs::open_output(&path)?, content)))
        .collect::<Result<Vec<_>>>()?,
    );
    let mut page = args.reports.page(Coverage::Current, &opts.rules);
    page.partial = args.since.is_some();
    let mut reporter = Reporter::new(&args, &settings, baseline.as_ref(), to);
    let mut summary = emit::Summary::default();
    let mut checker = Checker::default();
    // Outputs that could not be written fail the run (exit 2), but the findings are still
    // printed, as backfill still prints its summary.
    let mut failed_outputs = 0;
    let meta = walked.run(&opts, |f| {
        outputs::report_file_errors(f, args.engine.quiet);
        summary.add_file(f);
        if let Some(c) = &mut reporter.compared {
            c.file(f);
        }
        reporter.take(checker.file(f, &opts.rules));
        failed_outputs += outputs::feed(&mut [&mut streams, &mut page], f);
    });
    for e in &meta.errors {
        out::error(&e.to_string());
    }
    reporter.take(late_findings(checker, &meta, &opts));
    summary.errors += meta.errors.len();
    summary.as_declared();
    reporter.totals.unreadable = summary.errors;
    let end = End {
        summary: &summary,
        guide: None,
        meta: &meta,
        write: &outputs::write_output,
    };
    failed_outputs += outputs::finish(&mut [&mut streams], &end);
    if page.partial && args.reports.history.is_some() && !args.engine.quiet {
        out::eprint(
            "note: --history is not appended on a partial (--since) run: its counts cover only the changed files\n",
        );
    }
    failed_outputs += outputs::finish(&mut [&mut page], &end);
    let written = streams.baseline.take();
    let code = match (reporter.totals.exit_code(), &written) {
        _ if failed_outputs > 0 => EXIT_ERROR,
        (EXIT_ERROR, _) => EXIT_ERROR,
        (_, Some(_)) => EXIT_OK,
        (code, None) => code,
    };
    reporter.end(&meta, &summary, args.since.as_deref(), written.as_deref());
    Ok(code)
}

/// The engine's options for a `check` run: no edit leaves it, and with `--since` only the
/// changed files (and the main file of each changed partial's folder, and the connector
/// files beside a deleted one) are read. Every
/// output is checked against the catalogs and the baseline before anything is read.
fn options(
    args: &CheckArgs,
    settings: &Settings,
    catalogs: &[PathBuf],
    config: &Config,
) -> Result<Options> {
    let mut opts = args.engine.options()?;
    // check writes nothing into the catalog, so its proposals' edits need no check.
    opts.check_edits = false;
    opts.render_patch = false;
    opts.render_csv = settings.report.is_some() || args.write_baseline.is_some();
    let mut guard = super::args::Guard::new(catalogs, config);
    guard
        .baselines
        .extend(args.baseline.as_deref().map(|b| ("--baseline", b)));
    let mut own = Vec::new();
    if let Some(report) = &settings.report {
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
    Ok(opts)
}

/// What only the end of the run finds (unused heuristics, errors from outside any file),
/// located for SARIF and GitHub from the repository root: errors from outside any file (an
/// unreadable folder) carry the path as printed.
fn late_findings(checker: Checker, meta: &outcome::RunMeta, opts: &Options) -> Vec<Finding> {
    let mut late = checker.finish(&meta.errors, &meta.rules_used, &opts.rules);
    let repo = meta.catalogs.iter().find_map(|c| c.repo.as_ref());
    for f in &mut late {
        f.ci_file = repo
            .zip(f.file.as_deref())
            .and_then(|(r, p)| r.relative(Path::new(p)));
    }
    late
}

/// Takes findings as the run produces them, in file order: counts them and says what fails
/// the run (the totals), what is new against the baseline (the comparison), and hands each
/// to the format's emitter, printing at once what it prints as it goes, so a large
/// catalog's findings are never all held in memory.
struct Reporter<'a> {
    format: FindingFormat,
    to: Stream,
    emitter: Box<dyn Emitter>,
    compared: Option<Comparison<'a>>,
    totals: Totals,
}

impl<'a> Reporter<'a> {
    fn new(
        args: &CheckArgs,
        settings: &Settings,
        baseline: Option<&'a Baseline>,
        to: Stream,
    ) -> Reporter<'a> {
        let style = findings::Style {
            quiet: args.engine.quiet,
            ci_run: true,
            only_new: settings.fail_on == FailOn::New,
        };
        Reporter {
            format: args.format,
            to,
            emitter: findings::emitter(args.format.into(), style),
            compared: baseline.map(|b| Comparison::new(b, args.since.is_some())),
            totals: Totals {
                fail_on: settings.fail_on,
                ..Totals::default()
            },
        }
    }

    fn take(&mut self, found: Vec<Finding>) {
        for f in found {
            // Silenced: a reviewer's decision kept in the catalog. Counted, never listed or
            // failing.
            if f.silenced {
                self.totals.silenced += 1;
                if let Some(c) = &mut self.compared {
                    c.silenced(&f);
                }
                continue;
            }
            // A file the tool could not read is an error on stderr and exit 2, whatever
            // fails the run; the documents carry it too, for the pull request.
            let unreadable = f.code == "parse-error";
            let new = self.compared.as_mut().map(|c| c.is_new(&f, unreadable));
            let fails = !unreadable && self.totals.fail_on.fails(f.level, new.unwrap_or(true));
            if !unreadable {
                self.totals.count(f.level);
                self.totals.failing += usize::from(fails);
                if let Some(new) = new.filter(|_| f.level != Level::Note) {
                    let counts = self.totals.baseline.get_or_insert((0, 0, 0));
                    if new {
                        counts.0 += 1;
                    } else {
                        counts.1 += 1;
                    }
                }
            }
            let judged = Judged {
                new,
                fails,
                unreadable,
            };
            if let Some(text) = self.emitter.finding(f, &judged) {
                self.to.print(&text);
            }
        }
        if self.compared.is_some() {
            self.totals.baseline.get_or_insert((0, 0, 0));
        }
    }

    /// The end of the output: the format's document or tail, with the totals line.
    fn end(
        mut self,
        meta: &outcome::RunMeta,
        summary: &emit::Summary,
        since: Option<&str>,
        written: Option<&Path>,
    ) {
        let gone = self
            .compared
            .as_ref()
            .map(Comparison::gone)
            .unwrap_or_default();
        if let Some((_, _, g)) = &mut self.totals.baseline {
            *g = gone.len();
        }
        let partial = since.map(|rev| {
            format!(
                "partial run: {} of {} files (changed since {rev})",
                meta.files, meta.walked
            )
        });
        let mut totals = self.totals.line("check");
        if let Some(path) = written {
            totals.push_str(&format!(
                "; baseline written to {}: its findings are accepted",
                path.display()
            ));
        }
        let ending = Ending {
            totals: &totals,
            tail: match self.format {
                FindingFormat::Human => human(meta, summary, &gone, partial.as_deref()),
                _ => String::new(),
            },
            json: (self.format == FindingFormat::Json).then(|| {
                vec![
                    (
                        "summary",
                        serde_json::from_str(&emit::summary_json(summary)).unwrap_or_default(),
                    ),
                    ("disappeared", serde_json::json!(gone)),
                    ("partial", serde_json::json!(partial)),
                    ("failing", serde_json::json!(self.totals.failing)),
                    ("fail_on", serde_json::json!(self.totals.fail_on.name())),
                    ("silenced", serde_json::json!(self.totals.silenced)),
                ]
            }),
            rules: match self.format {
                FindingFormat::Sarif => SarifRule::check_rules(),
                _ => Vec::new(),
            },
            absent: self
                .compared
                .as_ref()
                .map(Comparison::absent)
                .unwrap_or_default(),
        };
        let text = self.emitter.end(ending);
        match self.format {
            FindingFormat::Human => self.to.print(&catalog_effects::text::safe::lines(&text)),
            _ => self.to.print(&text),
        }
    }
}

/// What the human output shows between the findings and the totals line: the baseline's
/// actions that are gone, the summary table, the symlinks not followed, and whether the run
/// was partial.
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
    let left_out: usize = run.catalogs.iter().map(|c| c.left_out.len()).sum();
    if left_out > 0 {
        s.push_str(&format!(
            "server source files left out (generated, or a test's): {left_out}\n"
        ));
    }
    if let Some(p) = partial {
        s.push_str(p);
        s.push('\n');
    }
    s
}

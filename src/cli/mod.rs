//! Subcommands and the options they share.

mod annotations;
pub mod args;
mod audit;
mod backfill;
mod check;
mod explain;
mod lint;
pub mod out;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

use catalog_effects::classify::{Confidence, RuleSet};
use catalog_effects::effects::DestructivePolicy;
use catalog_effects::emit::write::Staged;
use catalog_effects::error::{Error, Result};
use catalog_effects::pipeline::{Options, Progress};

pub const EXIT_OK: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "catalog-effects",
    version,
    about = "Infer, explain and backfill MCP `effects` across a connector catalog.",
    long_about = "Infer, explain and backfill MCP `effects` (read, search, write, delete, execute) \
across a connector catalog, so MCP hints (readOnlyHint, destructiveHint, openWorldHint) can be \
derived for every tool.\n\nTypical use:\n  catalog-effects backfill connectors/        # write reports/effects.patch and reports/coverage.csv\n  git apply reports/effects.patch             # review it like any diff, then apply\n  catalog-effects check connectors/ --baseline reports/coverage.csv   # nightly\n  catalog-effects explain connectors/ bamboohr_list_employees         # why?\n\nExit codes: 0 done (or clean), 1 findings (check, lint, audit), 2 errors (unreadable or \
invalid files, bad arguments, invalid heuristics)."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
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
    /// Audit the annotations an MCP server ships (a `tools/list` result) against inference.
    Audit(audit::AuditArgs),
}

pub fn dispatch(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Backfill(a) => backfill::run(a),
        Command::Check(a) => check::run(a),
        Command::Annotations(a) => annotations::run(a),
        Command::Explain(a) => explain::run(a),
        Command::ExplainCode(a) => explain::run_code(a),
        Command::Lint(a) => lint::run(a),
        Command::Audit(a) => audit::run(a),
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfidenceArg {
    High,
    Medium,
    Low,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyArg {
    /// Destructive when any effect is delete (the published rule).
    Delete,
    /// Also destructive when a write replaces or modifies existing data.
    Overwrite,
}

/// The reports `backfill` and `check` both write.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Where to write the CSV coverage report (one row per action).
    #[arg(long, default_value = "reports/coverage.csv", value_name = "FILE")]
    pub report: PathBuf,
    /// Append one row per run (date, commit, counts, coverage) to this CSV.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Write a self-contained coverage page.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

/// Options every catalog command shares.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Directory of extra rule files (`*.yaml`); a rule with a built-in id replaces it.
    #[arg(long, value_name = "DIR")]
    pub heuristics: Option<PathBuf>,
    /// Proposals below this confidence are listed for a human instead of patched.
    #[arg(long, value_enum, default_value = "medium")]
    pub min_confidence: ConfidenceArg,
    /// Which effects make destructiveHint true.
    #[arg(long, value_enum, default_value = "delete")]
    pub destructive_policy: PolicyArg,
    /// Worker threads (default, and at most: one per core). Output is identical for any
    /// value.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Print only errors.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl EngineArgs {
    pub fn rules(&self) -> Result<RuleSet> {
        match &self.heuristics {
            Some(dir) => {
                args::heuristics_dir(dir)?;
                RuleSet::with_user_dir(dir)
            }
            None => RuleSet::builtin(),
        }
    }

    pub fn confidence(&self) -> Confidence {
        match self.min_confidence {
            ConfidenceArg::High => Confidence::High,
            ConfidenceArg::Medium => Confidence::Medium,
            ConfidenceArg::Low => Confidence::Low,
        }
    }

    pub fn policy(&self) -> DestructivePolicy {
        match self.destructive_policy {
            PolicyArg::Delete => DestructivePolicy::Delete,
            PolicyArg::Overwrite => DestructivePolicy::Overwrite,
        }
    }

    /// Sets up the thread pool and builds the pipeline options, with a progress bar on
    /// stderr only when it is a terminal.
    pub fn options(&self) -> Result<Options> {
        if let Some(n) = args::jobs(self.jobs)? {
            // Only the first build takes effect; a second call in one process is harmless.
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build_global();
        }
        let mut opts = Options::new(self.rules()?);
        opts.min_confidence = self.confidence();
        opts.policy = self.policy();
        if !self.quiet && out::stderr_is_terminal() {
            let bar = ProgressBar::hidden();
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            let (start_bar, tick_bar) = (bar.clone(), bar);
            opts.progress = Some(Progress {
                start: Arc::new(move |n| {
                    start_bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    start_bar.set_length(n as u64);
                }),
                tick: Arc::new(move || {
                    tick_bar.inc(1);
                    if tick_bar.position() == tick_bar.length().unwrap_or(0) {
                        tick_bar.finish_and_clear();
                    }
                }),
            });
        }
        Ok(opts)
    }
}

/// The catalogs to run on: those given (each once), or the demo catalog.
pub fn catalogs(given: &[PathBuf]) -> Vec<PathBuf> {
    args::catalogs(given)
}

/// Where streamed output goes.
pub enum Output {
    Stdout(std::io::StdoutLock<'static>),
    /// Not a regular file (`/dev/null`, a pipe, a symlink): written in place.
    InPlace(std::io::BufWriter<std::fs::File>),
    /// A regular file, replaced once the run is done.
    Staged(Staged),
}

/// Opens streamed output: stdout for `-`, else `path`.
pub fn open_output(path: &Path) -> Result<Output> {
    if path.as_os_str() == "-" {
        return Ok(Output::Stdout(std::io::stdout().lock()));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::new(format!("cannot create folder: {e}")).in_file(dir))?;
    }
    match std::fs::symlink_metadata(path) {
        Err(_) => Staged::create(path).map(Output::Staged),
        Ok(m) if m.is_file() => Staged::create(path).map(Output::Staged),
        Ok(m) if m.is_dir() => Err(Error::new("cannot write: is a directory").in_file(path)),
        Ok(_) => std::fs::File::create(path)
            .map(|f| Output::InPlace(std::io::BufWriter::with_capacity(1 << 20, f)))
            .map_err(|e| Error::new(format!("cannot write: {e}")).in_file(path)),
    }
}

impl Output {
    /// Flushes, and puts a staged file in place.
    pub fn finish(self, path: &Path) -> Result<()> {
        let err = |e: std::io::Error| Error::new(format!("cannot write: {e}")).in_file(path);
        match self {
            Output::Stdout(mut s) if !out::stopped() => match s.flush() {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    out::stdout_failed(&e);
                    Ok(())
                }
                other => other.map_err(err),
            },
            Output::Stdout(_) => Ok(()),
            Output::InPlace(mut f) => f.flush().map_err(err),
            Output::Staged(s) => s.commit(),
        }
    }
}

impl Output {
    fn inner(&mut self) -> &mut dyn std::io::Write {
        match self {
            Output::Stdout(s) => s,
            Output::InPlace(f) => f,
            Output::Staged(s) => s,
        }
    }

    /// Runs a write; on stdout a reader that went away stops the output quietly (the run
    /// goes on), as [`out::print`] does.
    fn guard(
        &mut self,
        write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let stdout = matches!(self, Output::Stdout(_));
        if stdout && out::stopped() {
            return Ok(());
        }
        match write(self.inner()) {
            Err(e) if stdout && e.kind() == std::io::ErrorKind::BrokenPipe => {
                out::stdout_failed(&e);
                Ok(())
            }
            other => other,
        }
    }
}

impl std::io::Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.guard(|w| w.write_all(buf)).map(|()| buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.guard(|w| w.write_all(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.guard(|w| w.flush())
    }
}

impl ReportArgs {
    /// Refuses a run whose outputs (these and `more`) would overwrite a connector file or
    /// each other ([`args::check_outputs`]).
    pub fn check_outputs(&self, catalogs: &[PathBuf], more: &[(&str, &Path)]) -> Result<()> {
        let mut outputs = vec![("--report", self.report.as_path())];
        outputs.extend(self.history.as_deref().map(|p| ("--history", p)));
        outputs.extend(self.html.as_deref().map(|p| ("--html", p)));
        outputs.extend_from_slice(more);
        args::check_outputs(catalogs, &outputs)
    }

    /// Appends the run to the coverage history and writes the coverage page, as asked. A
    /// partial run is not appended: its counts cover only the files it looked at.
    pub fn history_and_page(
        &self,
        run: &catalog_effects::pipeline::Run,
        summary: &catalog_effects::emit::Summary,
        partial: bool,
    ) -> Result<()> {
        use catalog_effects::emit::{history as hist, html as page};
        match &self.history {
            Some(_) if partial => out::eprint(
                "note: --history is not appended on a partial (--since) run: its counts cover only the changed files\n",
            ),
            Some(path) => {
                let commit = run
                    .catalogs
                    .first()
                    .and_then(|c| c.repo.as_ref())
                    .and_then(|r| r.head())
                    .map(|(short, _)| short)
                    .unwrap_or_default();
                let row = hist::HistoryRow::from_summary(summary, &hist::today_utc(), &commit);
                hist::append(path, &row)?;
            }
            None => {}
        }
        if let Some(path) = &self.html {
            let rows = match &self.history {
                Some(h) if h.exists() => hist::read(h)?,
                _ => Vec::new(),
            };
            write_output(
                path,
                &page::render(summary, run, &rows, "catalog-effects coverage"),
            )?;
        }
        Ok(())
    }
}

/// Writes a report file, creating its folder; `-` means stdout.
pub fn write_output(path: &Path, text: &str) -> Result<()> {
    if path == Path::new("-") {
        out::print(text);
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::new(format!("cannot create folder: {e}")).in_file(dir))?;
    }
    std::fs::write(path, text).map_err(|e| Error::new(format!("cannot write: {e}")).in_file(path))
}

/// Prints one file's errors on stderr, then its notes as warnings; returns how many errors
/// there were.
pub fn report_file_errors(f: &catalog_effects::pipeline::FileResult) -> usize {
    let mut n = 0;
    for e in f.error.iter().chain(&f.problems) {
        out::error(&e.to_string());
        n += 1;
    }
    for w in &f.notes {
        out::eprint(&format!("warning: {w}\n"));
    }
    n
}

/// Prints every error of a run on stderr, then its notes as warnings; returns how many
/// errors there were.
pub fn report_errors(run: &catalog_effects::pipeline::Run) -> usize {
    let errors = run.all_errors();
    for e in &errors {
        out::error(&e.to_string());
    }
    for n in run.files.iter().flat_map(|f| &f.notes) {
        out::eprint(&format!("warning: {n}\n"));
    }
    errors.len()
}

/// Output formats for findings.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindingFormat {
    Human,
    Json,
    Github,
    Sarif,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryFormat {
    Human,
    Json,
}

//! Subcommands and the options they share.

mod annotations;
pub mod args;
mod audit;
mod backfill;
mod check;
pub mod config;
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
use catalog_effects::emit::sink::{End, Sink};
use catalog_effects::emit::streams::Streamed;
use catalog_effects::emit::write::Staged;
use catalog_effects::error::{Error, Result};
use catalog_effects::fix::options::{Options, Progress};
use catalog_effects::model::finding::Level;
use catalog_effects::run::Walked;
use config::Config;
pub use config::{ConfidenceArg, FailOn, HintsArg, PolicyArg};

pub use out::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};

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

/// The formats asked for, without repeats, in the order given.
pub fn hint_formats(asked: &[HintsArg]) -> Vec<catalog_effects::model::openapi::HintFormat> {
    use catalog_effects::model::openapi::HintFormat;
    let mut out = Vec::new();
    for a in asked {
        let f = match a {
            HintsArg::Speakeasy => HintFormat::Speakeasy,
            HintsArg::Zuplo => HintFormat::Zuplo,
            HintsArg::Zilla => HintFormat::Zilla,
            HintsArg::Mcp => HintFormat::Mcp,
        };
        if !out.contains(&f) {
            out.push(f);
        }
    }
    out
}

/// The reports `backfill` and `check` both write besides the CSV.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
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
    /// The confidence a proposal needs to count [default: medium].
    #[arg(long, value_enum)]
    pub min_confidence: Option<ConfidenceArg>,
    /// Which effects make destructiveHint true [default: delete].
    #[arg(long, value_enum)]
    pub destructive_policy: Option<PolicyArg>,
    /// Worker threads (default, and at most: one per core). Output is identical for any
    /// value.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Print only the totals line and errors.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Judge each catalog action that declares no effects also by what the rest of the
    /// catalog declares for the same verb, where that is more than the engine would have
    /// proposed itself (the default; overrides `catalog-evidence = false`).
    #[arg(long)]
    pub catalog_evidence: bool,
    /// Judge each catalog action from its own evidence only.
    #[arg(long, conflicts_with = "catalog_evidence")]
    pub no_catalog_evidence: bool,
    /// Leave out this path below the catalogs (repeatable; relative to the current folder):
    /// a file or folder, or a glob (`*` and `?` within a name, `**` any folders). Added to
    /// `exclude` of catalog-effects.toml, whose paths are relative to its folder.
    #[arg(long, value_name = "PATH")]
    pub exclude: Vec<PathBuf>,
    /// The configuration's `exclude`, resolved against its folder.
    #[arg(skip)]
    pub config_exclude: Vec<PathBuf>,
}

impl EngineArgs {
    /// Fills what the command line left out from the configuration file.
    pub fn apply(&mut self, c: &Config) {
        if self.heuristics.is_none() {
            self.heuristics.clone_from(&c.heuristics);
        }
        self.min_confidence = self.min_confidence.or(c.min_confidence);
        self.destructive_policy = self.destructive_policy.or(c.destructive_policy);
        // On unless the command line or the configuration turns it off; the command line
        // wins.
        self.no_catalog_evidence |= c.catalog_evidence == Some(false) && !self.catalog_evidence;
        // Added to, not overridden: what the repository leaves out stays out, and a catalog
        // named inside it is read anyway.
        self.config_exclude = c.exclude.clone().unwrap_or_default();
    }

    /// What the walk leaves out: the configuration's `exclude` (already relative to the
    /// current folder), then `--exclude`.
    pub fn exclusions(&self) -> catalog_effects::run::walk::Exclude {
        let here = PathBuf::new();
        catalog_effects::run::walk::Exclude::new(
            self.config_exclude
                .iter()
                .chain(&self.exclude)
                .map(|p| (here.as_path(), p.as_path())),
        )
    }

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
        match self.min_confidence.unwrap_or(ConfidenceArg::Medium) {
            ConfidenceArg::High => Confidence::High,
            ConfidenceArg::Medium => Confidence::Medium,
            ConfidenceArg::Low => Confidence::Low,
        }
    }

    pub fn policy(&self) -> DestructivePolicy {
        match self.destructive_policy.unwrap_or(PolicyArg::Delete) {
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
        opts.catalog_evidence = !self.no_catalog_evidence;
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

/// The catalogs to run on: those given, else the configuration's, else the current folder;
/// each walked once.
pub fn catalogs(given: &[PathBuf], config: &Config) -> Vec<PathBuf> {
    match (given, &config.catalogs) {
        ([], Some(c)) if !c.is_empty() => args::catalogs(c),
        _ => args::catalogs(given),
    }
}

/// Walks the catalogs for `command`, leaving out what `engine` excludes, or refuses to run
/// (each reason printed, exit 2) when one does not exist, is not a folder or holds nothing
/// to read: a check of nothing must not pass, and nothing is written yet, so every previous
/// output stays as it was.
pub fn walk_or_refuse(
    command: &str,
    catalogs: &[PathBuf],
    engine: &EngineArgs,
) -> std::result::Result<Walked, u8> {
    let refused: Vec<Error> = catalogs
        .iter()
        .filter_map(|c| catalog_effects::git::refused(c))
        .collect();
    if !refused.is_empty() {
        for e in &refused {
            out::error(&e.to_string());
        }
        return Err(EXIT_ERROR);
    }
    let walked = Walked::excluding(catalogs, &engine.exclusions());
    let unusable = walked.unusable(command);
    if unusable.is_empty() {
        return Ok(walked);
    }
    for e in &unusable {
        out::error(&e.to_string());
    }
    Err(EXIT_ERROR)
}

pub use catalog_effects::text::plural;

/// The line a catalog command ends with, and all `--quiet` prints besides errors: findings
/// by severity, what the baseline says of them, what fails the run, and what could not be
/// read (which makes the exit code 2 whatever fails).
#[derive(Debug, Default)]
pub struct Totals {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    /// Findings silenced by `# catalog-effects: ignore[code]` comments (`check`).
    pub silenced: usize,
    /// With a baseline: new findings, findings in the baseline, and actions gone.
    pub baseline: Option<(usize, usize, usize)>,
    pub failing: usize,
    pub fail_on: FailOn,
    /// Files, folders or items the tool could not read (`parse-error`).
    pub unreadable: usize,
}

impl Totals {
    pub fn count(&mut self, level: Level) {
        match level {
            Level::Error => self.errors += 1,
            Level::Warning => self.warnings += 1,
            Level::Note => self.notes += 1,
        }
    }

    pub fn line(&self, command: &str) -> String {
        let mut s = format!(
            "{command}: {}, {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        );
        if self.notes > 0 {
            s.push_str(&format!(", {}", plural(self.notes, "note")));
        }
        if self.silenced > 0 {
            s.push_str(&format!(", {} silenced", self.silenced));
        }
        if let Some((new, old, gone)) = self.baseline {
            s.push_str(&format!(
                "; {new} new, {old} in the baseline, {} gone",
                plural(gone, "action")
            ));
        }
        s.push_str(&format!(
            "; {} failing (--fail-on {})",
            self.failing,
            self.fail_on.name()
        ));
        if self.unreadable > 0 {
            s.push_str(&format!("; {}", plural(self.unreadable, "parse error")));
        }
        s
    }

    /// 2 when something could not be read, else 1 when findings fail the run, else 0.
    pub fn exit_code(&self) -> u8 {
        if self.unreadable > 0 {
            EXIT_ERROR
        } else if self.failing > 0 {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        }
    }
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
        // Refused before the run: the runtime put `/dev/null` where stdout was, and a
        // patch streamed there was lost with exit 0.
        if out::no_stdout() {
            return Err(Error::new(
                "cannot write to standard output: it is closed (no file descriptor 1); name a file instead of `-`",
            ));
        }
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

impl Streamed for Output {
    /// Flushes, and puts a staged file in place.
    fn commit(self, path: &Path) -> Result<()> {
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
    /// Refuses a run whose outputs (the command's own, `more`, and these) break the rule of
    /// [`args::check_outputs`].
    pub fn check_outputs(&self, guard: &args::Guard, more: &[args::Target]) -> Result<()> {
        let mut outputs = more.to_vec();
        outputs.extend(
            self.history
                .as_deref()
                .map(|p| args::Target::given("--history", p)),
        );
        outputs.extend(
            self.html
                .as_deref()
                .map(|p| args::Target::given("--html", p)),
        );
        args::check_outputs(guard, &outputs)
    }

    /// The sink that appends to the history and writes the page, as asked.
    pub fn page<'a>(
        &self,
        coverage: catalog_effects::emit::html::Coverage,
        rules: &'a RuleSet,
    ) -> catalog_effects::emit::page::Page<'a> {
        catalog_effects::emit::page::Page::new(
            self.history.clone(),
            self.html.clone(),
            coverage,
            rules,
        )
    }
}

/// Hands one file to each sink in turn, printing what fails; returns how many failed.
pub fn feed(sinks: &mut [&mut dyn Sink], f: &catalog_effects::outcome::FileResult) -> usize {
    sinks.iter_mut().map(|s| failed(s.file(f))).sum()
}

/// Finishes each sink in turn, printing what fails; returns how many failed.
pub fn finish(sinks: &mut [&mut dyn Sink], end: &End) -> usize {
    sinks.iter_mut().map(|s| failed(s.finish(end))).sum()
}

/// 1, after printing it, for an error of the run.
fn failed(result: Result<()>) -> usize {
    match result {
        Ok(()) => 0,
        Err(e) => {
            out::error(&e.to_string());
            1
        }
    }
}

/// Writes a report file whole or not at all (replaced once written), creating its folder;
/// `-` means stdout.
pub fn write_output(path: &Path, text: &str) -> Result<()> {
    if path == Path::new("-") {
        out::print(text);
        return Ok(());
    }
    // Staged like the streamed reports: a run that fails halfway leaves the previous page
    // or guide whole, never a truncated one.
    let mut output = open_output(path)?;
    output
        .write_all(text.as_bytes())
        .map_err(|e| Error::new(format!("cannot write: {e}")).in_file(path))?;
    output.commit(path)
}

/// Prints one file's errors on stderr, then (unless quiet) its notes as warnings; returns
/// how many errors there were.
pub fn report_file_errors(f: &catalog_effects::outcome::FileResult, quiet: bool) -> usize {
    let mut n = 0;
    for e in f.error.iter().chain(&f.problems) {
        out::error(&e.to_string());
        n += 1;
    }
    if !quiet {
        for w in &f.notes {
            out::warning(&w.to_string());
        }
    }
    n
}

/// Prints every error of a run on stderr, then (unless quiet) its notes as warnings;
/// returns how many errors there were.
pub fn report_errors(run: &catalog_effects::outcome::Run, quiet: bool) -> usize {
    let errors = run.errors.len();
    for e in &run.errors {
        out::error(&e.to_string());
    }
    errors
        + run
            .files
            .iter()
            .map(|f| report_file_errors(f, quiet))
            .sum::<usize>()
}

/// Output formats for findings.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FindingFormat {
    /// One line per finding, the summary, the totals line.
    Human,
    /// One JSON document.
    Json,
    /// GitHub Actions workflow commands: annotations on the pull request, and the totals.
    Github,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

impl From<FindingFormat> for catalog_effects::emit::findings::Format {
    fn from(f: FindingFormat) -> Self {
        use catalog_effects::emit::findings::Format;
        match f {
            FindingFormat::Human => Format::Human,
            FindingFormat::Json => Format::Json,
            FindingFormat::Github => Format::Github,
            FindingFormat::Sarif => Format::Sarif,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryFormat {
    Human,
    Json,
}

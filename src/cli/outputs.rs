//! Where a command's results go: the report files it writes (streamed, or whole), the
//! sinks it feeds file by file, the errors it prints on the way, and the formats it offers.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use catalog_effects::classify::RuleSet;
use catalog_effects::emit::sink::{End, Sink};
use catalog_effects::emit::streams::Streamed;
use catalog_effects::emit::write::Staged;
use catalog_effects::error::{Error, Result};

use super::{args, out};

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

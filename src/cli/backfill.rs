//! `backfill`: propose effects, write the patch and the CSV report; optionally apply the
//! edits in place (`--write`) or commit them on a branch (`--branch`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::Args;

use catalog_effects::emit;
use catalog_effects::emit::html::Coverage;
use catalog_effects::emit::in_place::InPlace;
use catalog_effects::emit::overlay::Overlay;
use catalog_effects::emit::review::{self, GuideFile, Review};
use catalog_effects::emit::sink::{End, Guide, Sink};
use catalog_effects::emit::streams::{Content, Streams};
use catalog_effects::error::{Error, Result};
use catalog_effects::fix::options::Options;
use catalog_effects::model::edit::Status;
use catalog_effects::outcome;
use catalog_effects::report;

use super::check::LIST_LIMIT;
use super::config::Config;
use super::engine::{self, EngineArgs};
use super::out::{self, EXIT_ERROR, EXIT_OK, Stream};
use super::outputs::{self, ReportArgs, SummaryFormat};

const DEFAULT_REPORT: &str = "reports/coverage.csv";
const DEFAULT_PATCH: &str = "reports/effects.patch";

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects backfill                       # the catalogs of catalog-effects.toml, else the current folder\n  catalog-effects backfill connectors/ --patch - | less\n  catalog-effects backfill connectors/ --review reports/review.md   # a guide for the reviewer\n  catalog-effects backfill connectors/ --write   # apply in place (clean files only)\n  catalog-effects backfill connectors/ --branch effects-backfill\n  catalog-effects backfill connectors/ --migrate-hints   # also remove hints the effects derive anyway\n\nInvalid `effects` declarations and duplicate ids are warnings: the patch leaves them alone and `check` fails on them.\n\nExit codes: 0 the run completed (every output written); 2 a file could not be read, parsed or written, bad arguments or configuration, or a catalog that does not exist or holds no connector file (then nothing is written).",
    mut_arg("min_confidence", |a| a.help(
        "Proposals below this confidence are not patched: they are listed for a human instead [default: medium]"
    )),
    mut_arg("destructive_policy", |a| a.help(
        "Which effects make destructiveHint true in the report's hint columns [default: delete]"
    ))
)]
pub struct BackfillArgs {
    /// Catalog directories (default: `catalogs` of catalog-effects.toml, else the current folder).
    pub catalogs: Vec<PathBuf>,
    /// Where to write the patch; `-` for stdout [default: reports/effects.patch, beside
    /// catalog-effects.toml, else at the root of the git work tree, else here].
    #[arg(long = "patch", value_name = "FILE")]
    pub patch_given: Option<PathBuf>,
    /// The patch's path, given or the default.
    #[arg(skip)]
    pub patch: PathBuf,
    /// Where to write the CSV coverage report (one row per action) [default: `report` of
    /// catalog-effects.toml, else reports/coverage.csv where the patch goes].
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Apply the edits in place, each file atomically, after re-checking it.
    #[arg(long, conflicts_with = "branch")]
    pub write: bool,
    /// With --write: also edit files that have uncommitted changes.
    #[arg(long, requires = "write")]
    pub allow_dirty: bool,
    /// Rewrite conflicting declarations with the proposal, in the style they were written.
    #[arg(long)]
    pub fix_conflicts: bool,
    /// Also remove, in the same patch, the `annotations:` hints that the action's effects
    /// (declared, or proposed in the patch) derive to the same value, and an `annotations:`
    /// left empty; keys that differ (overrides) and idempotentHint are kept.
    #[arg(long)]
    pub migrate_hints: bool,
    /// Commit the backfill on a new branch of the catalog's repository, without touching
    /// the work tree, the index or the current branch.
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// With --branch: move the branch if it exists.
    #[arg(long, requires = "branch")]
    pub force: bool,
    /// Write a review guide (Markdown, ready to paste as a pull-request description): the
    /// counts, the proposals worth a look first, the conflicts left alone and what was not
    /// patched, each with its `explain` command.
    #[arg(long, value_name = "FILE.md")]
    pub review: Option<PathBuf>,
    /// In OpenAPI documents, also write the hints the effects derive where this MCP
    /// generator reads them, merged into a map already there (repeatable): speakeasy
    /// (`x-speakeasy-mcp`), zuplo (`x-zuplo-route.mcp.annotations`), zilla
    /// (`x-zilla-mcp.annotations`), mcp (`x-mcp.annotations`) [default: `hints` of
    /// catalog-effects.toml, else none].
    #[arg(long = "hints", value_enum, value_name = "FORMAT")]
    pub hints: Vec<super::config::HintsArg>,
    /// Also write the OpenAPI document's edits as an OpenAPI Overlay 1.0 document (YAML;
    /// JSON for a `.json` name), one action per operation targeting it by JSONPath.
    #[arg(long, value_name = "FILE")]
    pub overlay: Option<PathBuf>,
    /// `human`: the summary table, what was not patched and the files written; `json`:
    /// the counts.
    #[arg(long, value_enum, default_value = "human")]
    pub format: SummaryFormat,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(mut args: BackfillArgs, config: &Config) -> Result<u8> {
    args.engine.apply(config);
    let catalogs = engine::catalogs(&args.catalogs, config);
    let report = outputs(&mut args, &catalogs, config)?;
    let mut opts = options(&args, config)?;
    let walked = match engine::walk_or_refuse("backfill", &catalogs, &args.engine) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    // Whatever can refuse the run does so before any file is read or written.
    // An Overlay describes one document: over several, refused by what the walk found, not
    // by what turns out to be edited, which would be known only once `--write` had edited
    // them and `--branch` committed them.
    let documents = walked.documents();
    if args.overlay.is_some() && documents.len() > 1 {
        return Err(catalog_effects::emit::overlay::many(&documents));
    }
    let mut branch = match &args.branch {
        Some(name) => Some(Branch::prepare(&catalogs, name, args.force)?),
        None => None,
    };
    opts.untouchable = untouchable(&catalogs)?;
    let mut write = match (args.write, args.allow_dirty) {
        (false, _) => None,
        (true, true) => Some(InPlace::default()),
        (true, false) => Some(InPlace::new(dirty_files(&catalogs)?)),
    };
    let mut streams = Streams::new(vec![
        (
            args.patch.clone(),
            outputs::open_output(&args.patch)?,
            Content::Patch,
        ),
        (
            report.clone(),
            outputs::open_output(&report)?,
            Content::Report,
        ),
    ]);
    let mut console = Console::new(&args, &report, &opts);
    let mut overlay = args.overlay.clone().map(Overlay::new);
    let mut review = args.review.clone().map(GuideFile);
    let mut page = args.reports.page(Coverage::Projected, &opts.rules);
    let mut summary = emit::Summary::default();
    let mut guide = (args.review.is_some() || args.branch.is_some()).then(Review::default);
    let mut errors = 0;
    let meta = walked.run(&opts, |f| {
        summary.add_file(f);
        if let Some(g) = &mut guide {
            g.add_file(f, &opts.rules);
        }
        // Fed in the order their messages have always come in.
        let mut sinks: [&mut dyn Sink; 7] = [
            &mut streams,
            &mut console,
            &mut overlay,
            &mut review,
            &mut write,
            &mut branch,
            &mut page,
        ];
        errors += outputs::feed(&mut sinks, f);
    });
    summary.errors += meta.errors.len();
    let context = review_context(&args, &catalogs, &report, &opts);
    let guided = guide.as_ref().map(|g| (g, &context));
    let end = End {
        summary: &summary,
        guide: guided.as_ref().map(|g| g as &dyn Guide),
        meta: &meta,
        write: &outputs::write_output,
    };
    // Finished in the order their messages and documents have always come in: the
    // branch, which the summary reports, last.
    let mut sinks: [&mut dyn Sink; 7] = [
        &mut streams,
        &mut console,
        &mut page,
        &mut overlay,
        &mut review,
        &mut write,
        &mut branch,
    ];
    errors += outputs::finish(&mut sinks, &end);
    let written = write.map(|w| (w.written, w.failed));
    Ok(console.print(summary, errors, written, branch.and_then(|b| b.note)))
}

/// The patch's and the report's paths, once every output was checked against the
/// catalogs and each other; returns the report's.
fn outputs(args: &mut BackfillArgs, catalogs: &[PathBuf], config: &Config) -> Result<PathBuf> {
    use super::args::{Guard, Origin, Target};
    let base = output_base(config);
    args.patch = args
        .patch_given
        .clone()
        .unwrap_or_else(|| base.join(DEFAULT_PATCH));
    let (report, report_origin) = match (&args.report, &config.report) {
        (Some(p), _) => (p.clone(), Origin::CommandLine),
        (None, Some(p)) => (p.clone(), Origin::Config),
        (None, None) => (base.join(DEFAULT_REPORT), Origin::Default),
    };
    let patch_origin = match args.patch_given {
        Some(_) => Origin::CommandLine,
        None => Origin::Default,
    };
    let mut own = vec![
        Target::from("--patch", &args.patch, patch_origin),
        Target::from("--report", &report, report_origin),
    ];
    own.extend(args.review.as_deref().map(|p| Target::given("--review", p)));
    own.extend(
        args.overlay
            .as_deref()
            .map(|p| Target::given("--overlay", p)),
    );
    args.reports
        .check_outputs(&Guard::new(catalogs, config), &own)?;
    Ok(report)
}

/// The folder the default outputs (`reports/effects.patch`, `reports/coverage.csv`) go in:
/// the configuration's, whose paths are relative to it too; else the root of the git work
/// tree the current folder is in; else the current folder. Run from inside a connector
/// folder, `backfill` wrote `reports/` into the catalog. Relative to the current
/// folder where it can be (`../..`), so the summary prints it short.
fn output_base(config: &Config) -> PathBuf {
    if let Some(file) = &config.file {
        return file.parent().map(Path::to_path_buf).unwrap_or_default();
    }
    let Ok(cwd) = std::env::current_dir() else {
        return PathBuf::new();
    };
    let Some(repo) = catalog_effects::git::Repo::discover(&cwd) else {
        return PathBuf::new();
    };
    let root = repo.workdir();
    match cwd.canonicalize().ok().and_then(|c| {
        c.strip_prefix(root)
            .ok()
            .map(|below| below.components().count())
    }) {
        Some(depth) => (0..depth).map(|_| "..").collect(),
        None => root.to_path_buf(),
    }
}

fn options(args: &BackfillArgs, config: &Config) -> Result<Options> {
    let mut opts = args.engine.options()?;
    opts.fix_conflicts = args.fix_conflicts;
    opts.migrate_hints = args.migrate_hints;
    opts.hint_formats = if args.hints.is_empty() {
        engine::hint_formats(config.hints.as_deref().unwrap_or_default())
    } else {
        engine::hint_formats(&args.hints)
    };
    opts.keep_texts = args.write || args.branch.is_some();
    opts.render_csv = true;
    Ok(opts)
}

/// Per catalog, the files the patch, --write and --branch leave alone: those git ignores,
/// does not track or hides local edits of.
fn untouchable(catalogs: &[PathBuf]) -> Result<Vec<BTreeMap<String, &'static str>>> {
    catalogs
        .iter()
        .map(|c| match catalog_effects::git::Repo::discover(c) {
            Some(r) => r.untouchable(std::slice::from_ref(c)),
            None => Ok(Default::default()),
        })
        .collect()
}

/// What the terminal gets: each file's errors and warnings as the run goes, what the run
/// could not read once it is done, then the summary.
struct Console<'a> {
    args: &'a BackfillArgs,
    report: &'a Path,
    opts: &'a Options,
    checker: report::Checker,
    /// Those printed here; the run adds the other outputs'.
    errors: usize,
    warnings: usize,
    /// Hints removed, and the actions they were removed from.
    removed: usize,
    migrated: usize,
    /// The proposals below `--min-confidence`.
    low: Vec<String>,
}

impl<'a> Console<'a> {
    fn new(args: &'a BackfillArgs, report: &'a Path, opts: &'a Options) -> Self {
        Console {
            args,
            report,
            opts,
            checker: report::Checker::default(),
            errors: 0,
            warnings: 0,
            removed: 0,
            migrated: 0,
            low: Vec::new(),
        }
    }

    fn quiet(&self) -> bool {
        self.args.engine.quiet
    }

    /// Prints the summary, with the errors of the other outputs and what `--write` and
    /// `--branch` did; returns the exit code.
    fn print(
        self,
        mut summary: emit::Summary,
        errors: usize,
        written: Option<(usize, usize)>,
        branch: Option<String>,
    ) -> u8 {
        let args = self.args;
        let errors = errors + self.errors;
        // A file that could not be read or parsed is no file read.
        let unreadable = match summary.files_unreadable {
            0 => String::new(),
            n => format!(", {n} unreadable"),
        };
        let mut totals = format!(
            "files: {} read{unreadable}, {} changed by the patch; warnings: {}, errors: {errors}",
            summary.files - summary.files_unreadable,
            summary.files_changed,
            self.warnings
        );
        if let Some((written, failed)) = written {
            totals.push_str(&format!("; files written: {written}, failed: {failed}"));
        }
        let mut notes: Vec<String> = Vec::new();
        // The table counts effects; a patch of generator hints alone would read as empty.
        if summary.hints_added > 0 {
            let formats: Vec<&str> = self.opts.hint_formats.iter().map(|f| f.name()).collect();
            notes.push(format!(
                "generator hints added to {} (--hints {})",
                catalog_effects::text::plural(summary.hints_added, "operation"),
                formats.join(" --hints ")
            ));
        }
        if args.migrate_hints {
            notes.push(format!(
                "hints removed: {} from {} (--migrate-hints)",
                self.removed,
                catalog_effects::text::plural(self.migrated, "action")
            ));
        }
        notes.extend(branch);
        // The JSON summary counts what the totals line counts: the run's own errors too.
        summary.errors = errors;
        let report = Report {
            path: self.report,
            wrote: wrote(args, self.report),
            low: &self.low,
            min_confidence: self.opts.min_confidence.name(),
        };
        let text = match args.format {
            SummaryFormat::Json => emit::summary_json(&summary) + "\n",
            SummaryFormat::Human if self.quiet() => totals + "\n",
            SummaryFormat::Human => {
                catalog_effects::text::safe::lines(&human(&summary, &report, &totals, &notes))
                    .into_owned()
            }
        };
        // With the patch, the report, the guide or the page on stdout, the summary goes to
        // stderr so it stays clean.
        Stream::beside([
            Some(args.patch.as_path()),
            Some(self.report),
            args.review.as_deref(),
            args.reports.html.as_deref(),
        ])
        .print(&text);
        if errors > 0 { EXIT_ERROR } else { EXIT_OK }
    }
}

impl Sink for Console<'_> {
    fn file(&mut self, f: &outcome::FileResult) -> Result<()> {
        let quiet = self.quiet();
        self.errors += outputs::report_file_errors(f, quiet);
        for h in f.actions.iter().filter_map(|a| a.hint_review.as_deref()) {
            if !h.edits.is_empty() {
                self.removed += h.redundant().count();
                self.migrated += 1;
            }
        }
        self.warnings += f.notes.len();
        // Invalid declarations and duplicate ids are the catalog's problems, not the run's:
        // the patch leaves them alone, the run completes, and `check` fails on them.
        for bad in self.checker.bad_input(f, &self.opts.rules) {
            if matches!(bad.code.as_str(), "invalid-effects" | "duplicate-action-id") {
                if !quiet {
                    out::warning(&format!(
                        "{}: {} [{}]",
                        bad.location(),
                        bad.message,
                        bad.code
                    ));
                }
                self.warnings += 1;
            }
        }
        self.low.extend(low_confidence(f, self.opts));
        Ok(())
    }

    fn finish(&mut self, end: &End) -> Result<()> {
        for e in &end.meta.errors {
            out::error(&e.to_string());
        }
        self.errors += end.meta.errors.len();
        let cwd = std::env::current_dir().ok();
        for c in &end.meta.catalogs {
            for link in &c.skipped_links {
                self.warnings += 1;
                if !self.quiet() {
                    let path =
                        catalog_effects::run::walk::shown(&c.root.join(link), cwd.as_deref());
                    out::warning(&format!("{path}: symlink not followed"));
                }
            }
            if !self.quiet() {
                for (rel, why) in &c.left_out {
                    let path = catalog_effects::run::walk::shown(&c.root.join(rel), cwd.as_deref());
                    out::eprint(&format!(
                        "note: {}: server source left out: {why}\n",
                        catalog_effects::text::safe::line(&path)
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Where the run wrote its outputs, so the summary says it (stdout is not a file).
fn wrote(args: &BackfillArgs, report: &Path) -> Option<String> {
    let cwd = std::env::current_dir().ok();
    let mut files = Vec::new();
    let mut name = |path: &Path, what: &str| {
        if path.as_os_str() != "-" {
            let shown = catalog_effects::run::walk::shown(path, cwd.as_deref());
            files.push(format!("{shown} ({what})"));
        }
    };
    name(&args.patch, "patch");
    name(report, "CSV report");
    if let Some(p) = &args.reports.html {
        name(p, "coverage page");
    }
    if let Some(p) = &args.reports.history {
        name(p, "history");
    }
    if let Some(p) = &args.review {
        name(p, "review guide");
    }
    if let Some(p) = &args.overlay {
        name(p, "overlay");
    }
    (!files.is_empty()).then(|| format!("wrote: {}", files.join(", ")))
}

/// The unclassified actions, one line each, for the human who decides instead: a proposal
/// below `--min-confidence`, or none at all (which needs the human most).
fn low_confidence(f: &outcome::FileResult, opts: &Options) -> Vec<String> {
    f.actions
        .iter()
        .filter(|a| a.status == Status::Unclassified)
        .map(|a| {
            let line = if a.inference.effects.is_empty() {
                format!(
                    "  {}:{}  {}  no proposal: {}",
                    f.shown,
                    a.line,
                    a.tool_name(),
                    a.inference.reason(a.vote.as_deref(), &opts.rules)
                )
            } else {
                let conf = a.inference.confidence.map_or("", |c| c.name());
                format!(
                    "  {}:{}  {}  proposed {} ({conf}): {}",
                    f.shown,
                    a.line,
                    a.tool_name(),
                    a.inference.effects.joined("|"),
                    a.inference.deciding_ids(&opts.rules).join(", ")
                )
            };
            catalog_effects::text::safe::line(&line).into_owned()
        })
        .collect()
}

/// What the human summary says about the files written and the proposals left for a human.
struct Report<'a> {
    path: &'a Path,
    /// `wrote: ...`, when any output is a file.
    wrote: Option<String>,
    low: &'a [String],
    min_confidence: &'static str,
}

fn human(summary: &emit::Summary, report: &Report, totals: &str, notes: &[String]) -> String {
    let mut s = emit::summary_table(summary);
    let low = report.low;
    if !low.is_empty() {
        s.push_str(&format!(
            "\nbelow --min-confidence {} or without a proposal, listed for a human instead of patched ({}):\n",
            report.min_confidence,
            low.len(),
        ));
        for line in low.iter().take(LIST_LIMIT) {
            s.push_str(line);
            s.push('\n');
        }
        // A large catalog has thousands: the report holds them all.
        if low.len() > LIST_LIMIT {
            s.push_str(&format!(
                "  ... and {} more: the rows of {} with status `unclassified`\n",
                low.len() - LIST_LIMIT,
                catalog_effects::run::walk::shown(
                    report.path,
                    std::env::current_dir().ok().as_deref()
                )
            ));
        }
    }
    s.push('\n');
    // The files written, then the totals line, the last of the summary (what --quiet keeps).
    if let Some(w) = &report.wrote {
        s.push_str(w);
        s.push('\n');
    }
    s.push_str(totals);
    s.push('\n');
    for n in notes {
        s.push_str(n);
        s.push('\n');
    }
    s
}

/// Files with uncommitted changes under the catalogs, as (catalog index, work-tree path):
/// `--write` leaves them alone unless `--allow-dirty`.
fn dirty_files(catalogs: &[PathBuf]) -> Result<BTreeSet<(usize, String)>> {
    let mut dirty = BTreeSet::new();
    for (i, root) in catalogs.iter().enumerate() {
        if let Some(repo) = catalog_effects::git::Repo::discover(root) {
            let found = repo.dirty_files(std::slice::from_ref(root))?;
            dirty.extend(found.into_iter().map(|p| (i, p)));
        }
    }
    Ok(dirty)
}

/// A short fingerprint of the rules in force, so a commit says which heuristics made it.
pub fn heuristics_revision(opts: &Options) -> String {
    let text: String = opts
        .rules
        .rules
        .iter()
        .map(|r| {
            format!(
                "{}|{}|{:?}|{}|{:?}",
                r.id, r.effect, r.weight, r.overwrite, r.when
            )
        })
        .collect();
    format!(
        "{:012x}",
        catalog_effects::model::finding::fnv1a(text.as_bytes()) & 0xffff_ffff_ffff
    )
}

/// What the review guide prints as paths and commands.
fn review_context(
    args: &BackfillArgs,
    catalogs: &[PathBuf],
    report: &Path,
    opts: &Options,
) -> review::Context {
    let cwd = std::env::current_dir().ok();
    let shown = |p: &Path| {
        if p.as_os_str() == "-" {
            "stdout".to_owned()
        } else {
            catalog_effects::run::walk::shown(p, cwd.as_deref())
        }
    };
    review::Context {
        catalogs: catalogs.iter().map(|c| shown(c)).collect(),
        patch: shown(&args.patch),
        report: shown(report),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        heuristics: heuristics_revision(opts),
        min_confidence: opts.min_confidence,
        overlay: args.overlay.as_deref().map(shown),
    }
}

/// `--branch`: checked before the run, fed each edited file as the run goes (so memory
/// does not grow with the catalog), committed at the end with the guide's short form as
/// the message.
struct Branch {
    repo: catalog_effects::git::Repo,
    name: String,
    force: bool,
    blobs: Vec<catalog_effects::git::Blob>,
    failed: usize,
    /// What the summary says of the commit, once made.
    note: Option<String>,
}

impl Branch {
    /// The catalogs' one repository, with a branch name it accepts and a clean catalog:
    /// the commit is HEAD plus the backfill, which equals the work tree plus the patch only
    /// when the catalog has no uncommitted changes.
    fn prepare(catalogs: &[PathBuf], name: &str, force: bool) -> Result<Branch> {
        let mut repos = catalogs
            .iter()
            .map(|c| (c, catalog_effects::git::Repo::discover(c)));
        let Some((first, Some(repo))) = repos.next() else {
            let root = catalogs.first().cloned().unwrap_or_default();
            return Err(
                Error::new("--branch needs the catalog to be inside a git work tree").in_file(root),
            );
        };
        if repos
            .any(|(_, r)| r.map(|r| r.workdir().to_path_buf()).as_deref() != Some(repo.workdir()))
        {
            return Err(
                Error::new("--branch needs every catalog in the same git repository")
                    .in_file(first),
            );
        }
        repo.check_branch(name, force)?;
        // A temporary file an interrupted run left (untracked) never reaches the branch,
        // which is HEAD plus the backfill; refused for it, no `--branch` could run again
        // until it was found and removed by hand.
        let mut dirty = repo.dirty_files(catalogs)?;
        dirty.retain(|path| {
            let name = path.rsplit('/').next().unwrap_or(path);
            !catalog_effects::emit::write::is_temporary(name) || repo.tracks(path)
        });
        if let Some(first) = dirty.iter().next() {
            return Err(Error::new(format!(
                "--branch: the catalog has uncommitted changes ({} file(s), e.g. {first}); commit or stash them first, since the branch is HEAD plus the backfill",
                dirty.len()
            ))
            .in_file(repo.shown(repo.workdir())));
        }
        Ok(Branch {
            repo,
            name: name.to_owned(),
            force,
            blobs: Vec::new(),
            failed: 0,
            note: None,
        })
    }
}

impl Sink for Branch {
    /// Stores one file's edited text as `git add` would. A file that cannot be stored is
    /// printed here rather than returned: the run's error is the branch not written, said
    /// once at the end.
    fn file(&mut self, f: &outcome::FileResult) -> Result<()> {
        let (Some(new), Some(old)) = (&f.new_text, f.old_text()) else {
            return Ok(());
        };
        match self
            .repo
            .stage_edit(&f.patch_path, old.as_bytes(), new.as_bytes())
        {
            Ok(blob) => self.blobs.push(blob),
            Err(mut e) => {
                // Named as the run names the file, as every other message does.
                if e.path.is_some() {
                    e.path = Some(f.shown.clone().into());
                }
                out::error(&e.to_string());
                self.failed += 1;
            }
        }
        Ok(())
    }

    fn finish(&mut self, end: &End) -> Result<()> {
        if self.failed > 0 {
            return Err(Error::new(format!(
                "--branch: branch '{}' not written: {} file(s) could not be committed (above)",
                self.name, self.failed
            ))
            .in_file(self.repo.shown(self.repo.workdir())));
        }
        let Some(guide) = end.guide else {
            return Ok(());
        };
        let message = guide.commit_message(end.summary);
        let id = self
            .repo
            .commit_on_branch(&self.name, &self.blobs, &message, self.force)?;
        self.note = Some(format!(
            "branch {}: commit {id} ({} files)",
            self.name,
            self.blobs.len()
        ));
        Ok(())
    }
}

//! `backfill`: propose effects, write the patch and the CSV report; optionally apply the
//! edits in place (`--write`) or commit them on a branch (`--branch`).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use catalog_effects::diff::Status;
use catalog_effects::emit::review::{self, Review};
use catalog_effects::emit::sink::Sink;
use catalog_effects::emit::{self, write::replace_if_unchanged};
use catalog_effects::error::{Error, Result};
use catalog_effects::findings;
use catalog_effects::pipeline;

use super::check::LIST_LIMIT;
use super::config::Config;
use super::out::Stream;
use super::{EXIT_ERROR, EXIT_OK, EngineArgs, ReportArgs, SummaryFormat, out};

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
    /// Where to write the patch; `-` for stdout [default: reports/effects.patch].
    #[arg(long = "patch", value_name = "FILE")]
    pub patch_given: Option<PathBuf>,
    /// The patch's path, given or the default.
    #[arg(skip)]
    pub patch: PathBuf,
    /// Where to write the CSV coverage report (one row per action) [default: `report` of
    /// catalog-effects.toml, else reports/coverage.csv].
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
    pub hints: Vec<super::HintsArg>,
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
    use super::args::{Guard, Origin, Target};
    args.patch = args
        .patch_given
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_PATCH));
    let (report_path, report_origin) = match (&args.report, &config.report) {
        (Some(p), _) => (p.clone(), Origin::CommandLine),
        (None, Some(p)) => (p.clone(), Origin::Config),
        (None, None) => (PathBuf::from(DEFAULT_REPORT), Origin::Default),
    };
    let quiet = args.engine.quiet;
    let catalogs = super::catalogs(&args.catalogs, config);
    let patch_origin = match args.patch_given {
        Some(_) => Origin::CommandLine,
        None => Origin::Default,
    };
    let mut own = vec![
        Target::from("--patch", &args.patch, patch_origin),
        Target::from("--report", &report_path, report_origin),
    ];
    own.extend(args.review.as_deref().map(|p| Target::given("--review", p)));
    own.extend(
        args.overlay
            .as_deref()
            .map(|p| Target::given("--overlay", p)),
    );
    args.reports
        .check_outputs(&Guard::new(&catalogs, config), &own)?;
    let mut opts = args.engine.options()?;
    opts.fix_conflicts = args.fix_conflicts;
    opts.migrate_hints = args.migrate_hints;
    opts.hint_formats = if args.hints.is_empty() {
        super::hint_formats(config.hints.as_deref().unwrap_or_default())
    } else {
        super::hint_formats(&args.hints)
    };
    opts.keep_texts = args.write || args.branch.is_some();
    opts.render_csv = true;
    let walked = match super::walk_or_refuse(&catalogs) {
        Ok(w) => w,
        Err(code) => return Ok(code),
    };
    // Whatever can refuse the run does so before any file is read or written.
    let mut branch = match &args.branch {
        Some(name) => Some(BranchRun::prepare(&catalogs, name, args.force)?),
        None => None,
    };
    // The patch, --write and --branch edit the same files: none git ignores, does not
    // track or hides local edits of.
    for c in &catalogs {
        let repo = catalog_effects::git::Repo::discover(c);
        let left = match repo {
            Some(r) => r.untouchable(std::slice::from_ref(c))?,
            None => Default::default(),
        };
        opts.untouchable.push(left);
    }
    let dirty = if args.write && !args.allow_dirty {
        dirty_files(&catalogs)?
    } else {
        BTreeSet::new()
    };

    // The patch and the report are streamed: memory does not grow with the catalog.
    let mut patch = super::open_output(&args.patch)?;
    let mut report = super::open_output(&report_path)?;
    let io_err =
        |what: &Path, e: std::io::Error| Error::new(format!("cannot write: {e}")).in_file(what);
    let mut failed_io = report
        .write_all(emit::csv_header().as_bytes())
        .err()
        .map(|e| io_err(&report_path, e));
    let mut summary = emit::Summary::default();
    let mut errors = 0;
    let mut warnings = 0;
    let mut kept: Vec<pipeline::FileResult> = Vec::new();
    let mut low = Vec::new();
    let mut checker = findings::Checker::default();
    let mut guide = (args.review.is_some() || args.branch.is_some()).then(Review::default);
    let mut overlay = args
        .overlay
        .as_ref()
        .map(|p| emit::overlay::Overlay::new(p.extension().is_some_and(|x| x == "json")));
    let (mut written, mut failed) = (0, 0);
    // Hints removed, and the actions they were removed from.
    let (mut removed, mut migrated) = (0, 0);
    let meta = walked.run(&opts, |f| {
        errors += super::report_file_errors(f, quiet);
        for h in f.actions.iter().filter_map(|a| a.hint_review.as_deref()) {
            if !h.edits.is_empty() {
                removed += h.redundant().count();
                migrated += 1;
            }
        }
        warnings += f.notes.len();
        // Invalid declarations and duplicate ids are the catalog's problems, not the run's:
        // the patch leaves them alone, the run completes, and `check` fails on them.
        for bad in checker.bad_input(f, &opts.rules) {
            if matches!(bad.code.as_str(), "invalid-effects" | "duplicate-action-id") {
                if !quiet {
                    out::warning(&format!(
                        "{}: {} [{}]",
                        bad.location(),
                        bad.message,
                        bad.code
                    ));
                }
                warnings += 1;
            }
        }
        summary.add_file(f);
        if let Some(g) = &mut guide {
            g.add_file(f, &opts.rules);
        }
        if let Some(o) = &mut overlay {
            o.file(f);
        }
        if failed_io.is_none() {
            if let Err(e) = patch.write_all(f.patch.as_bytes()) {
                failed_io = Some(io_err(&args.patch, e));
            } else if let Err(e) = report.write_all(f.csv.as_bytes()) {
                failed_io = Some(io_err(&report_path, e));
            }
        }
        low.extend(low_confidence(f, &opts));
        if args.write && f.new_text.is_some() {
            match write_one(f, &dirty) {
                Ok(()) => written += 1,
                Err(e) => {
                    out::error(&e.to_string());
                    failed += 1;
                }
            }
        }
        if let Some(b) = &mut branch {
            b.stage(f);
        }
        // The edited texts are done with (the branch holds their blobs); `--html` keeps
        // the actions.
        if args.reports.html.is_some() {
            f.patch = String::new();
            f.csv = String::new();
            f.new_text = None;
            kept.push(std::mem::take(f));
        }
    });
    // A report that could not be written is an error like any other: the files already
    // edited are still counted and the summary still printed (issue 13: `--write --patch
    // /dev/full` reported the patch only). The patch and the report of one run replace the
    // previous ones together or not at all (issue 7).
    let finished = match failed_io {
        Some(e) => Err(e),
        None => patch
            .finish(&args.patch)
            .and_then(|()| report.finish(&report_path)),
    };
    if let Err(e) = finished {
        out::error(&e.to_string());
        errors += 1;
    }
    for e in &meta.errors {
        out::error(&e.to_string());
    }
    let cwd = std::env::current_dir().ok();
    for (c, link) in meta
        .catalogs
        .iter()
        .flat_map(|c| c.skipped_links.iter().map(move |l| (c, l)))
    {
        warnings += 1;
        if !quiet {
            let path = catalog_effects::walk::shown(&c.root.join(link), cwd.as_deref());
            out::warning(&format!("{path}: symlink not followed"));
        }
    }
    errors += meta.errors.len();
    summary.errors += meta.errors.len();

    let run = meta.with_files(kept);
    if let Err(e) = args.reports.history_and_page(
        &run,
        &summary,
        false,
        quiet,
        emit::html::Coverage::Projected,
        &opts.rules,
    ) {
        out::error(&e.to_string());
        errors += 1;
    }
    if let (Some(path), Some(o)) = (&args.overlay, &mut overlay)
        && let Err(e) = o.finish().and_then(|text| super::write_output(path, &text))
    {
        out::error(&e.to_string());
        errors += 1;
    }
    let mut notes: Vec<String> = Vec::new();
    errors += failed;
    let ctx = review_context(&args, &catalogs, &report_path, &opts);
    if let (Some(path), Some(g)) = (&args.review, &mut guide)
        && let Err(e) = super::write_output(path, &g.markdown(&summary, &ctx))
    {
        out::error(&e.to_string());
        errors += 1;
    }
    if let (Some(b), Some(g)) = (branch, &mut guide) {
        match b.commit(&g.commit_message(&summary, &ctx)) {
            Ok(note) => notes.push(note),
            Err(e) => {
                out::error(&e.to_string());
                errors += 1;
            }
        }
    }
    let mut totals = format!(
        "files: {} read, {} changed by the patch; warnings: {warnings}, errors: {errors}",
        summary.files, summary.files_changed
    );
    if args.write {
        totals.push_str(&format!("; files written: {written}, failed: {failed}"));
    }
    if args.migrate_hints {
        notes.insert(
            0,
            format!(
                "hints removed: {} from {} (--migrate-hints)",
                removed,
                super::plural(migrated, "action")
            ),
        );
    }

    // The JSON summary counts what the totals line counts: the run's own errors too.
    summary.errors = errors;
    let report = Report {
        path: &report_path,
        wrote: wrote(&args, &report_path),
        low: &low,
        min_confidence: opts.min_confidence.name(),
    };
    let text = match args.format {
        SummaryFormat::Json => emit::summary_json(&summary) + "\n",
        SummaryFormat::Human if quiet => totals + "\n",
        SummaryFormat::Human => {
            emit::safe::lines(&human(&summary, &report, &totals, &notes)).into_owned()
        }
    };
    // With the patch, the report, the guide or the page on stdout, the summary goes to
    // stderr so it stays clean.
    Stream::beside([
        Some(args.patch.as_path()),
        Some(report_path.as_path()),
        args.review.as_deref(),
        args.reports.html.as_deref(),
    ])
    .print(&text);
    Ok(if errors > 0 { EXIT_ERROR } else { EXIT_OK })
}

/// Where the run wrote its outputs, so the summary says it (stdout is not a file).
fn wrote(args: &BackfillArgs, report: &Path) -> Option<String> {
    let cwd = std::env::current_dir().ok();
    let mut files = Vec::new();
    let mut name = |path: &Path, what: &str| {
        if path.as_os_str() != "-" {
            let shown = catalog_effects::walk::shown(path, cwd.as_deref());
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

/// Proposals below `--min-confidence`, one line each, for the human who decides instead.
fn low_confidence(f: &pipeline::FileResult, opts: &pipeline::Options) -> Vec<String> {
    f.actions
        .iter()
        .filter(|a| a.status == Status::Unclassified && !a.inference.effects.is_empty())
        .map(|a| {
            let conf = a.inference.confidence.map_or("", |c| c.name());
            let line = format!(
                "  {}:{}  {}  proposed {} ({conf}): {}",
                f.shown,
                a.line,
                a.tool_name(),
                a.inference.effects.joined("|"),
                a.inference.deciding_ids(&opts.rules).join(", ")
            );
            emit::safe::line(&line).into_owned()
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
            "\nbelow --min-confidence {}, listed for a human instead of patched ({}):\n",
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
                "  ... and {} more: the rows of {} with status `unclassified` and an `inferred_effects`\n",
                low.len() - LIST_LIMIT,
                catalog_effects::walk::shown(report.path, std::env::current_dir().ok().as_deref())
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

/// Writes one changed file in place, as the run goes, so memory does not grow with the
/// catalog. Only if the file is clean in git (or `--allow-dirty`) and its content did not
/// change since it was read; the edit itself was checked by the pipeline.
fn write_one(f: &pipeline::FileResult, dirty: &BTreeSet<(usize, String)>) -> Result<()> {
    if dirty.contains(&(f.catalog, f.patch_path.clone())) {
        return Err(Error::new(
            "has uncommitted changes: not written (commit first, or pass --allow-dirty)",
        )
        .in_file(&f.shown));
    }
    let (Some(old), Some(new)) = (f.old_pieces(), &f.new_text) else {
        return Ok(());
    };
    replace_if_unchanged(&f.abs, &old, new)
}

/// A short fingerprint of the rules in force, so a commit says which heuristics made it.
pub fn heuristics_revision(opts: &pipeline::Options) -> String {
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
        findings::fnv1a(text.as_bytes()) & 0xffff_ffff_ffff
    )
}

/// What the review guide prints as paths and commands.
fn review_context(
    args: &BackfillArgs,
    catalogs: &[PathBuf],
    report: &Path,
    opts: &pipeline::Options,
) -> review::Context {
    let cwd = std::env::current_dir().ok();
    let shown = |p: &Path| {
        if p.as_os_str() == "-" {
            "stdout".to_owned()
        } else {
            catalog_effects::walk::shown(p, cwd.as_deref())
        }
    };
    review::Context {
        catalogs: catalogs.iter().map(|c| shown(c)).collect(),
        patch: shown(&args.patch),
        report: shown(report),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        heuristics: heuristics_revision(opts),
        min_confidence: opts.min_confidence,
    }
}

/// A `--branch` run: checked before the run, fed each edited file as the run goes (so
/// memory does not grow with the catalog), committed at the end.
struct BranchRun {
    repo: catalog_effects::git::Repo,
    name: String,
    force: bool,
    blobs: Vec<catalog_effects::git::Blob>,
    failed: usize,
}

impl BranchRun {
    /// The catalogs' one repository, with a branch name it accepts and a clean catalog:
    /// the commit is HEAD plus the backfill, which equals the work tree plus the patch only
    /// when the catalog has no uncommitted changes.
    fn prepare(catalogs: &[PathBuf], name: &str, force: bool) -> Result<BranchRun> {
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
        let dirty = repo.dirty_files(catalogs)?;
        if let Some(first) = dirty.iter().next() {
            return Err(Error::new(format!(
                "--branch: the catalog has uncommitted changes ({} file(s), e.g. {first}); commit or stash them first, since the branch is HEAD plus the backfill",
                dirty.len()
            ))
            .in_file(repo.workdir()));
        }
        Ok(BranchRun {
            repo,
            name: name.to_owned(),
            force,
            blobs: Vec::new(),
            failed: 0,
        })
    }

    /// Stores one file's edited text as `git add` would; a file that cannot be stored is
    /// reported and keeps the branch from being written.
    fn stage(&mut self, f: &pipeline::FileResult) {
        let Some(new) = &f.new_text else { return };
        match self.repo.stage_blob(&f.patch_path, new.as_bytes()) {
            Ok(blob) => self.blobs.push(blob),
            Err(e) => {
                out::error(&e.to_string());
                self.failed += 1;
            }
        }
    }

    fn commit(self, msg: &str) -> Result<String> {
        if self.failed > 0 {
            return Err(Error::new(format!(
                "--branch: branch '{}' not written: {} file(s) could not be committed (above)",
                self.name, self.failed
            ))
            .in_file(self.repo.workdir()));
        }
        let id = self
            .repo
            .commit_on_branch(&self.name, &self.blobs, msg, self.force)?;
        Ok(format!(
            "branch {}: commit {id} ({} files)",
            self.name,
            self.blobs.len()
        ))
    }
}

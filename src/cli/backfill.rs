//! `backfill`: propose effects, write the patch and the CSV report; optionally apply the
//! edits in place (`--write`) or commit them on a branch (`--branch`).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use catalog_effects::diff::Status;
use catalog_effects::emit::{self, write::replace_if_unchanged};
use catalog_effects::error::{Error, Result};
use catalog_effects::findings;
use catalog_effects::pipeline;

use super::{EXIT_ERROR, EXIT_OK, EngineArgs, ReportArgs, SummaryFormat, out};

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  catalog-effects backfill                       # the demo catalog\n  catalog-effects backfill connectors/ --patch - | less\n  catalog-effects backfill connectors/ --write   # apply in place (clean files only)\n  catalog-effects backfill connectors/ --branch effects-backfill"
)]
pub struct BackfillArgs {
    /// Catalog directories (default: catalogs/demo).
    pub catalogs: Vec<PathBuf>,
    /// Where to write the patch; `-` for stdout.
    #[arg(long, default_value = "reports/effects.patch", value_name = "FILE")]
    pub patch: PathBuf,
    /// Apply the edits in place, each file atomically, after re-checking it.
    #[arg(long, conflicts_with = "branch")]
    pub write: bool,
    /// With --write: also edit files that have uncommitted changes.
    #[arg(long, requires = "write")]
    pub allow_dirty: bool,
    /// Rewrite conflicting declarations with the proposal, in the style they were written.
    #[arg(long)]
    pub fix_conflicts: bool,
    /// Commit the backfill on a new branch of the catalog's repository, without touching
    /// the work tree, the index or the current branch.
    #[arg(long, value_name = "NAME")]
    pub branch: Option<String>,
    /// With --branch: move the branch if it exists.
    #[arg(long, requires = "branch")]
    pub force: bool,
    /// Summary format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: SummaryFormat,
    #[command(flatten)]
    pub reports: ReportArgs,
    #[command(flatten)]
    pub engine: EngineArgs,
}

pub fn run(args: BackfillArgs) -> Result<u8> {
    let catalogs = super::catalogs(&args.catalogs);
    args.reports
        .check_outputs(&catalogs, &[("--patch", &args.patch)])?;
    let mut opts = args.engine.options()?;
    opts.fix_conflicts = args.fix_conflicts;
    opts.keep_texts = args.write || args.branch.is_some();
    opts.render_csv = true;
    // Whatever can refuse the run does so before any file is read or written.
    let mut branch = match &args.branch {
        Some(name) => Some(BranchRun::prepare(&catalogs, name, args.force)?),
        None => None,
    };
    let dirty = if args.write && !args.allow_dirty {
        dirty_files(&catalogs)?
    } else {
        BTreeSet::new()
    };

    // The patch and the report are streamed: memory does not grow with the catalog.
    let mut patch = super::open_output(&args.patch)?;
    let mut report = super::open_output(&args.reports.report)?;
    let io_err =
        |what: &Path, e: std::io::Error| Error::new(format!("cannot write: {e}")).in_file(what);
    let mut failed_io = report
        .write_all(emit::csv_header().as_bytes())
        .err()
        .map(|e| io_err(&args.reports.report, e));
    let mut summary = emit::Summary::default();
    let mut errors = 0;
    let mut kept: Vec<pipeline::FileResult> = Vec::new();
    let mut low = Vec::new();
    let mut checker = findings::Checker::default();
    let (mut written, mut failed) = (0, 0);
    let meta = pipeline::run_each(&catalogs, &opts, |f| {
        errors += super::report_file_errors(f);
        // Invalid declarations and duplicate ids are bad input: the patch leaves them alone,
        // and the run says so and fails.
        for bad in checker.bad_input(f, &opts.rules) {
            if matches!(bad.code.as_str(), "invalid-effects" | "duplicate-action-id") {
                let at = match (bad.line, bad.column) {
                    (Some(l), Some(c)) => format!("{}:{l}:{c}", f.rel),
                    _ => f.rel.clone(),
                };
                out::error(&format!("{at}: {} [{}]", bad.message, bad.code));
                errors += 1;
                summary.errors += 1;
            }
        }
        summary.add_file(f);
        if failed_io.is_none() {
            if let Err(e) = patch.write_all(f.patch.as_bytes()) {
                failed_io = Some(io_err(&args.patch, e));
            } else if let Err(e) = report.write_all(f.csv.as_bytes()) {
                failed_io = Some(io_err(&args.reports.report, e));
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
    // /dev/full` reported the patch only).
    // The patch and the report of one run replace the previous ones together or not at
    // all (issue 7).
    let finished = match failed_io {
        Some(e) => Err(e),
        None => patch
            .finish(&args.patch)
            .and_then(|()| report.finish(&args.reports.report)),
    };
    if let Err(e) = finished {
        out::error(&e.to_string());
        errors += 1;
    }
    for e in &meta.errors {
        out::error(&e.to_string());
    }
    for (c, link) in meta
        .catalogs
        .iter()
        .flat_map(|c| c.skipped_links.iter().map(move |l| (c, l)))
    {
        out::eprint(&format!(
            "warning: {}: symlink not followed\n",
            c.root.join(link).display()
        ));
    }
    errors += meta.errors.len();
    summary.errors += meta.errors.len();

    let run = meta.with_files(kept);
    if let Err(e) = args.reports.history_and_page(&run, &summary, false) {
        out::error(&e.to_string());
        errors += 1;
    }
    let mut notes = Vec::new();
    if args.write {
        errors += failed;
        notes.push(format!("files written: {written}, failed: {failed}"));
    }
    if let Some(b) = branch {
        match b.commit(&summary, &opts) {
            Ok(note) => notes.push(note),
            Err(e) => {
                out::error(&e.to_string());
                errors += 1;
            }
        }
    }

    let text = match args.format {
        SummaryFormat::Json => emit::summary_json(&summary) + "\n",
        SummaryFormat::Human => human(&summary, &low, &opts, &notes),
    };
    if !args.engine.quiet {
        // With the patch on stdout, the summary goes to stderr so the patch stays clean.
        if args.patch.as_os_str() == "-" || args.reports.report.as_os_str() == "-" {
            out::eprint(&text);
        } else {
            out::print(&text);
        }
    }
    Ok(if errors > 0 { EXIT_ERROR } else { EXIT_OK })
}

/// Proposals below `--min-confidence`, one line each, for the human who decides instead.
fn low_confidence(f: &pipeline::FileResult, opts: &pipeline::Options) -> Vec<String> {
    f.actions
        .iter()
        .filter(|a| a.status == Status::Unclassified && !a.inference.effects.is_empty())
        .map(|a| {
            let conf = a.inference.confidence.map_or("", |c| c.name());
            format!(
                "  {}:{}  {}  proposed {} ({conf}): {}",
                f.rel,
                a.line,
                a.tool_name(),
                a.inference.effects.joined("|"),
                a.inference.deciding_ids(&opts.rules).join(", ")
            )
        })
        .collect()
}

fn human(
    summary: &emit::Summary,
    low: &[String],
    opts: &pipeline::Options,
    notes: &[String],
) -> String {
    let mut s = emit::summary_table(summary);
    if !low.is_empty() {
        s.push_str(&format!(
            "\nbelow --min-confidence {}, listed for a human instead of patched ({}):\n{}\n",
            opts.min_confidence.name(),
            low.len(),
            low.join("\n")
        ));
    }
    s.push_str(&format!(
        "\nfiles: {}, changed: {}, errors: {}\n",
        summary.files, summary.files_changed, summary.errors
    ));
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
/// catalog. Only if the file is clean in git (or `--allow-dirty`), the edit re-checks, and
/// its content did not change since it was read.
fn write_one(f: &pipeline::FileResult, dirty: &BTreeSet<(usize, String)>) -> Result<()> {
    if dirty.contains(&(f.catalog, f.patch_path.clone())) {
        return Err(Error::new(
            "has uncommitted changes: not written (commit first, or pass --allow-dirty)",
        )
        .in_file(&f.rel));
    }
    let (Some(old), Some(new)) = (f.old_pieces(), &f.new_text) else {
        return Ok(());
    };
    replace_if_unchanged(&f.abs, &old, new)
}

/// A short fingerprint of the rules in force, so a commit says which heuristics made it.
pub fn heuristics_revision(opts: &pipeline::Options) -> String {
    // FNV-1a: stable across builds and platforms, unlike the std hasher.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in &opts.rules.rules {
        for b in format!(
            "{}|{}|{:?}|{}|{:?}",
            r.id, r.effect, r.weight, r.overwrite, r.when
        )
        .bytes()
        {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{:012x}", h & 0xffff_ffff_ffff)
}

/// A `--branch` run: checked before the run, fed each edited file as the run goes (so
/// memory does not grow with the catalog), committed at the end.
struct BranchRun {
    repo: catalog_effects::git::Repo,
    name: String,
    force: bool,
    blobs: Vec<catalog_effects::git::Blob>,
    failed: usize,
    fixed: usize,
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
            fixed: 0,
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
        self.fixed += f
            .actions
            .iter()
            .filter(|a| a.status == Status::Conflict && a.edit.is_some())
            .count();
    }

    fn commit(self, summary: &emit::Summary, opts: &pipeline::Options) -> Result<String> {
        if self.failed > 0 {
            return Err(Error::new(format!(
                "--branch: branch '{}' not written: {} file(s) could not be committed (above)",
                self.name, self.failed
            ))
            .in_file(self.repo.workdir()));
        }
        let mut msg = format!(
            "Backfill effects on {} actions\n\nActions given effects, per connector:\n",
            summary.total.added
        );
        for (c, n) in summary.connectors.iter().filter(|(_, n)| n.added > 0) {
            msg.push_str(&format!("  {c}: {}\n", n.added));
        }
        if self.fixed > 0 {
            msg.push_str(&format!(
                "\nConflicts rewritten with the proposal: {}\n",
                self.fixed
            ));
        }
        msg.push_str(&format!(
            "\nConflicts left alone: {}\nUnclassified (need a human): {}\n\nProduced by catalog-effects {} (heuristics {}, --min-confidence {}).\n",
            summary.total.conflict - self.fixed,
            summary.total.unclassified,
            env!("CARGO_PKG_VERSION"),
            heuristics_revision(opts),
            opts.min_confidence.name()
        ));
        let id = self
            .repo
            .commit_on_branch(&self.name, &self.blobs, &msg, self.force)?;
        Ok(format!(
            "branch {}: commit {id} ({} files)",
            self.name,
            self.blobs.len()
        ))
    }
}

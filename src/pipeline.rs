//! The pipeline: walk -> parse -> classify -> diff, file by file in parallel, with results
//! sorted so that every output is the same whatever the thread count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::classify::{Confidence, Group, Inference, RuleSet, catalog};
use crate::diff::{self, hints};
use crate::effects::{DestructivePolicy, Effects, Hints, derive_hints};
use crate::error::Error;
use crate::git::Repo;
use crate::model::edit::{self as edit, Edit, Status};
use crate::model::hints::HintReview;
use crate::model::site::{ActionSite, Shape};
use crate::parse;
use crate::view::{ActionView, Declared};
use crate::walk::{self, CatalogFile};
use crate::yaml::{self, tree};

/// Called with the number of files once the walk is done, then once per file processed.
/// The library never draws anything; the binary turns this into a progress bar.
#[derive(Clone)]
pub struct Progress {
    pub start: std::sync::Arc<dyn Fn(usize) + Send + Sync>,
    pub tick: std::sync::Arc<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

/// What a run should do.
#[derive(Debug, Clone)]
pub struct Options {
    pub rules: RuleSet,
    pub min_confidence: Confidence,
    pub policy: DestructivePolicy,
    /// Rewrite conflicting declarations with the proposal.
    pub fix_conflicts: bool,
    /// Keep each action's normalized view (for `explain`, `lint`, `annotations`).
    pub keep_views: bool,
    /// Keep the edited text of changed files (for `--write` and `--branch`).
    pub keep_texts: bool,
    /// Check every edited text before it is used (on unless no edit leaves the run:
    /// `check`, `lint` and `annotations` only count and read the actions).
    pub check_edits: bool,
    /// Only these files, as (catalog index, path relative to that catalog), and the main
    /// file of each of their partials' folders (found by content, as a full run finds it),
    /// so a partial's connector is known.
    pub only: Option<std::collections::BTreeSet<(usize, String)>>,
    pub progress: Option<Progress>,
    /// Render each file's CSV rows in the workers (for streaming writers).
    pub render_csv: bool,
    /// Render each file's patch (off where no patch leaves the run: on a one-line file it
    /// holds the whole file twice).
    pub render_patch: bool,
    /// Per catalog: files no route may edit (by their path in the patch), and why
    /// ([`crate::git::Repo::untouchable`]). Their proposals are listed for a human instead.
    pub untouchable: Vec<std::collections::BTreeMap<String, &'static str>>,
    /// Remove the hints an action's effects derive to the same value (`--migrate-hints`).
    pub migrate_hints: bool,
    /// Where an OpenAPI operation's derived hints are also written (`--hints`).
    pub hint_formats: Vec<crate::model::openapi::HintFormat>,
    /// Count the effects the catalog declares as evidence for the actions that declare none
    /// (on unless `--no-catalog-evidence`).
    pub catalog_evidence: bool,
    /// Those counts, once made (a run makes them from its first plan of every file it walked).
    pub votes: Option<std::sync::Arc<catalog::Votes>>,
    /// How many actions' results a run with the catalog's evidence holds while it counts
    /// ([`HELD_ACTIONS`]; the outputs do not depend on it, only the time and the memory).
    pub held_actions: usize,
}

impl Options {
    pub fn new(rules: RuleSet) -> Options {
        Options {
            rules,
            min_confidence: Confidence::Medium,
            policy: DestructivePolicy::Delete,
            fix_conflicts: false,
            keep_views: false,
            keep_texts: false,
            check_edits: true,
            only: None,
            progress: None,
            render_csv: false,
            render_patch: true,
            untouchable: Vec::new(),
            migrate_hints: false,
            hint_formats: Vec::new(),
            catalog_evidence: false,
            votes: None,
            held_actions: HELD_ACTIONS,
        }
    }
}

/// One action's outcome.
#[derive(Debug, Clone)]
pub struct ActionResult {
    pub id: String,
    pub label: Option<String>,
    pub line: usize,
    pub column: usize,
    pub nested: bool,
    /// Distinct upper-case methods in step order, and the step URLs.
    pub methods: Vec<String>,
    pub paths: Vec<String>,
    pub declared: Declared,
    pub annotations: Option<Hints>,
    pub inference: Inference,
    pub status: Status,
    /// What the action declares once the patch is applied: declared when valid (or the
    /// proposal for a fixed conflict), else a confident proposal, else nothing.
    pub effects: Effects,
    /// Whether `effects` came from the declaration.
    pub declared_source: bool,
    pub hints: Hints,
    /// `info.key` of the file, else of the main file in its folder (read before the run),
    /// else the folder name.
    pub connector: String,
    /// Boxed: most runs keep no view, and an empty one inline made every result 280 bytes
    /// larger.
    pub view: Option<Box<ActionView>>,
    /// The edit planned for this action's `effects`, if any.
    pub edit: Option<Edit>,
    /// Its `annotations:` judged against its effects, and the removals planned; boxed,
    /// since most actions have none.
    pub hint_review: Option<Box<HintReview>>,
    /// The comment on its `actionId` line, when it holds `catalog-effects:` (a silence).
    pub comment: Option<Box<str>>,
    /// Edits besides `edit` that add keys (an OpenAPI operation's hints merged into a
    /// generator's existing map); kept or dropped with the action's others.
    pub more: Vec<Edit>,
    /// An OpenAPI operation written elsewhere than under `paths` (see
    /// [`ActionView::written_at`]).
    pub written_at: Option<Box<[String]>>,
}

impl FileResult {
    /// Where SARIF and GitHub annotations point: relative to the repository root, as those
    /// consumers resolve paths, or to the current directory outside git.
    pub fn ci_path(&self) -> &str {
        if self.in_repo {
            &self.patch_path
        } else {
            &self.shown
        }
    }
}

impl ActionResult {
    /// Every edit planned for the action: its `effects`, then its hint removals.
    pub fn edits(&self) -> impl Iterator<Item = &Edit> {
        self.edit
            .iter()
            .chain(&self.more)
            .chain(self.hint_review.iter().flat_map(|h| &h.edits))
    }

    pub fn tool_name(&self) -> String {
        format!("{}_{}", self.connector, self.id)
    }

    /// The declared effects, `|`-free and comma-joined, or nothing.
    pub fn effects_declared(&self) -> String {
        self.declared
            .valid()
            .map(|e| e.joined(", "))
            .unwrap_or_default()
    }
}

/// One file's outcome.
#[derive(Debug, Clone, Default)]
pub struct FileResult {
    /// Index of the catalog in the run.
    pub catalog: usize,
    pub rel: String,
    pub folder: String,
    /// The path used in patches: relative to the git work tree when there is one.
    pub patch_path: String,
    /// The path as printed: relative to the current directory (as the catalog was given,
    /// when it is not below it).
    pub shown: String,
    /// Whether the file is in a git work tree (`patch_path` is then relative to its root).
    pub in_repo: bool,
    pub abs: PathBuf,
    pub shape: Option<Shape>,
    pub info_key: Option<String>,
    pub info_title: Option<String>,
    pub actions: Vec<ActionResult>,
    /// Problems with single items; the file's other actions are still reported.
    pub problems: Vec<Error>,
    /// Reported but not errors: items left alone on purpose (a merge-only action).
    pub notes: Vec<Error>,
    /// The whole file could not be read or parsed.
    pub error: Option<Error>,
    /// The unified diff section for this file (empty when nothing changes).
    pub patch: String,
    /// This file's rows of the CSV report, rendered by the worker with `render_csv`.
    pub csv: String,
    /// What the file's action names say about where their verbs are.
    pub group: Group,
    /// The edited text, with `keep_texts`, when there are edits.
    pub new_text: Option<String>,
    /// Actions listed again through an alias item: id, line, column.
    pub repeats: Vec<(String, usize, usize)>,
    /// `# catalog-effects: ignore[...]` in the file's leading comment lines: (line, code).
    pub silences: Vec<(usize, String)>,
    /// What an OpenAPI document's edits insert where (for `--overlay`).
    pub inserted: Vec<crate::model::openapi::Inserted>,
}

impl FileResult {
    /// Whether two of its actions share a line (every operation of a minified document is
    /// on line 1): the patch then repeats that line whole for each change there, and a line
    /// number names no action.
    pub fn shares_lines(&self) -> bool {
        let mut lines: Vec<usize> = self.actions.iter().map(|a| a.line).collect();
        lines.sort_unstable();
        lines.windows(2).any(|w| w[0] == w[1])
    }

    /// The text the edits were planned on, had back from the edited one: it is not kept
    /// beside it, so one large file is not held twice.
    pub fn old_text(&self) -> Option<String> {
        Some(self.old_pieces()?.concat())
    }

    /// [`FileResult::old_text`] as pieces of the edited text and of the rewritten lists,
    /// for comparing without building it.
    pub fn old_pieces(&self) -> Option<Vec<&str>> {
        let new = self.new_text.as_deref()?;
        let mut edits: Vec<&Edit> = self.actions.iter().flat_map(|a| a.edits()).collect();
        edits.sort_by_key(|e| e.order());
        Some(diff::unapplied(new, edits))
    }
}

/// A catalog directory as the run saw it.
#[derive(Debug)]
pub struct Catalog {
    pub root: PathBuf,
    pub repo: Option<Repo>,
    pub skipped_links: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Run {
    pub catalogs: Vec<Catalog>,
    /// Sorted by catalog, then file.
    pub files: Vec<FileResult>,
    /// Catalogs or directories that could not be read.
    pub errors: Vec<Error>,
    /// Rule ids that matched at least one action.
    pub rules_used: Vec<bool>,
}

impl Run {
    pub fn actions(&self) -> impl Iterator<Item = (&FileResult, &ActionResult)> {
        self.files
            .iter()
            .flat_map(|f| f.actions.iter().map(move |a| (f, a)))
    }

    /// Every error of the run: catalogs, unreadable or unparsable files, bad items.
    pub fn all_errors(&self) -> Vec<&Error> {
        self.errors
            .iter()
            .chain(
                self.files
                    .iter()
                    .flat_map(|f| f.error.iter().chain(f.problems.iter())),
            )
            .collect()
    }
}

/// A file's path in patches: below the work tree's root when the catalog is in a git
/// repository, else below the catalog. `in_repo` is the catalog's own path in the
/// repository, resolved once: the walk follows no symlink, so every file's path is that
/// plus its `rel`, and resolving each file (a `realpath` per file) cost more than parsing
/// a small one.
fn patch_path(in_repo: Option<&str>, file: &CatalogFile) -> String {
    match in_repo {
        Some("") | None => file.rel.clone(),
        Some(prefix) => format!("{prefix}/{}", file.rel),
    }
}

/// What a streaming run knows besides the files it handed over.
#[derive(Debug, Default)]
pub struct RunMeta {
    pub catalogs: Vec<Catalog>,
    /// Catalogs or directories that could not be read.
    pub errors: Vec<Error>,
    /// Rule ids that matched at least one action.
    pub rules_used: Vec<bool>,
    /// Files processed.
    pub files: usize,
    /// Connector files the walk found, processed or not (`only` restricts the run).
    pub walked: usize,
}

impl RunMeta {
    /// A [`Run`] holding the files a streaming caller chose to keep.
    pub fn with_files(self, files: Vec<FileResult>) -> Run {
        Run {
            catalogs: self.catalogs,
            files,
            errors: self.errors,
            rules_used: self.rules_used,
        }
    }
}

/// Files handed to the workers at a time. Small enough that memory does not grow with the
/// catalog, large enough that the workers rarely wait for the writer. The unit tests take
/// a few files at a time, so the demo's run crosses chunks (and the held results' budget).
const CHUNK: usize = if cfg!(test) { 3 } else { 512 };

/// Runs the pipeline over every catalog and collects every file's result.
pub fn run(catalogs: &[PathBuf], opts: &Options) -> Run {
    Walked::new(catalogs).collect(opts)
}

/// Runs the pipeline and hands each file's result to `sink`, in catalog then path order,
/// as soon as it is ready (see [`Walked::run`]).
pub fn run_each(
    catalogs: &[PathBuf],
    opts: &Options,
    sink: impl FnMut(&mut FileResult),
) -> RunMeta {
    Walked::new(catalogs).run(opts, sink)
}

/// The catalogs walked, before any connector file is read: a caller can refuse to run (and
/// write nothing) when a catalog is unusable.
#[derive(Debug, Default)]
pub struct Walked {
    catalogs: Vec<Catalog>,
    errors: Vec<Error>,
    /// Per catalog: why it cannot be walked at all, if it cannot.
    unwalkable: Vec<Option<Error>>,
    /// Per catalog: the connector files found, processed or not.
    found: Vec<usize>,
    /// Per catalog: the files and folders an exclusion left out.
    excluded: Vec<usize>,
    /// Per catalog: its path as printed.
    shown: Vec<String>,
    work: Vec<Work>,
}

/// A file to process: its catalog, where the walk found it, its path in patches and its
/// path as printed.
#[derive(Debug)]
struct Work {
    catalog: usize,
    file: CatalogFile,
    patch_path: String,
    shown: String,
    in_repo: bool,
}

impl Walked {
    /// Walks every catalog; [`Walked::run`] selects the files `opts.only` asks for.
    pub fn new(catalogs: &[PathBuf]) -> Walked {
        Walked::excluding(catalogs, &walk::Exclude::default())
    }

    /// [`Walked::new`], leaving out what `exclude` matches below each catalog.
    pub fn excluding(catalogs: &[PathBuf], exclude: &walk::Exclude) -> Walked {
        let cwd = std::env::current_dir().ok();
        let mut out = Walked::default();
        for (i, given) in catalogs.iter().enumerate() {
            // A catalog named by one of its files (an OpenAPI document) is that file in its
            // folder: paths stay relative to a folder.
            let dir = walk::catalog_dir(given);
            let root = &dir;
            let shown_root = walk::shown(root, cwd.as_deref());
            out.shown.push(shown_root.clone());
            match walk::walk_excluding(given, exclude, crate::source::claims) {
                Ok(w) => {
                    let catalog = Catalog {
                        root: root.clone(),
                        repo: Repo::discover(root),
                        skipped_links: w.skipped_links,
                    };
                    out.errors.extend(w.errors.into_iter().map(|mut e| {
                        e.path = e.path.map(|p| walk::shown(&p, cwd.as_deref()).into());
                        e
                    }));
                    out.found.push(w.files.len());
                    out.excluded.push(w.excluded);
                    out.unwalkable.push(None);
                    let in_repo = catalog.repo.as_ref().and_then(|r| r.relative(root));
                    // A catalog above the current directory may hold files below it.
                    let above =
                        shown_root.starts_with("..") || Path::new(&shown_root).is_absolute();
                    for f in w.files {
                        let shown = if above {
                            walk::shown(&f.path, cwd.as_deref())
                        } else if shown_root == "." {
                            f.rel.clone()
                        } else {
                            format!("{shown_root}/{}", f.rel)
                        };
                        out.work.push(Work {
                            catalog: i,
                            patch_path: patch_path(in_repo.as_deref(), &f),
                            shown,
                            in_repo: in_repo.is_some(),
                            file: f,
                        });
                    }
                    out.catalogs.push(catalog);
                }
                Err(e) => {
                    let e = Error {
                        path: Some(walk::shown(given, cwd.as_deref()).into()),
                        ..e
                    };
                    out.errors.push(e.clone());
                    out.unwalkable.push(Some(e));
                    out.found.push(0);
                    out.excluded.push(0);
                    out.catalogs.push(Catalog {
                        root: root.clone(),
                        repo: None,
                        skipped_links: Vec::new(),
                    });
                }
            }
        }
        out
    }

    /// The OpenAPI documents found, as printed, in walk order.
    pub fn documents(&self) -> Vec<&str> {
        use crate::source::Source as _;
        let openapi = crate::source::openapi::OpenApi.name();
        self.work
            .iter()
            .filter(|w| crate::source::of_file(&w.file.rel).name() == openapi)
            .map(|w| w.shown.as_str())
            .collect()
    }

    /// Why each unusable catalog cannot be read by `command`: it does not exist, is not a
    /// folder, or holds no connector file nor OpenAPI document. A run over it would report a
    /// clean catalog that is not there.
    pub fn unusable(&self, command: &str) -> Vec<Error> {
        self.unwalkable
            .iter()
            .zip(&self.found)
            .zip(&self.shown)
            .zip(&self.excluded)
            .filter_map(|(((bad, found), shown), excluded)| match bad {
                Some(e) => Some(e.clone()),
                None if *found == 0 => {
                    // Said in the command's own words: a `backfill` user was told to run
                    // `check`, and not that a document counts (issue 33).
                    let left_out = match excluded {
                        0 => String::new(),
                        n => format!(
                            " ({} left out by `exclude` or --exclude)",
                            crate::text::plural(*n, "path")
                        ),
                    };
                    Some(
                        Error::new(format!(
                            "no connector files (*.s1.yaml, *.s1.partial.yaml) or OpenAPI documents (YAML or JSON with a top-level `openapi` or `swagger` key) in this folder{left_out}: nothing for `{command}` to read; name the catalog folders or documents (`catalog-effects {command} connectors/`, `catalog-effects {command} api/openapi.yaml`), or list them as `catalogs` in catalog-effects.toml"
                        ))
                        .in_file(shown),
                    )
                }
                None => None,
            })
            .collect()
    }

    /// Runs the pipeline over the walked files and collects every file's result.
    pub fn collect(self, opts: &Options) -> Run {
        let mut files = Vec::new();
        self.run(opts, |f| files.push(std::mem::take(f)))
            .with_files(files)
    }

    /// Runs the pipeline and hands each file's result to `sink`, in catalog then path
    /// order, as soon as it is ready: files are processed in parallel chunks while the
    /// caller writes the previous ones, so memory stays bounded by a few chunks whatever
    /// the catalog size.
    ///
    /// The sink takes (`std::mem::take`) what it keeps; what it leaves is freed by the
    /// worker that allocated it. Freed on the caller's thread instead, every string of a
    /// result went through the allocator's cross-thread path, and the worker paid to
    /// collect it: 2.3% of a two-job backfill of 100k actions (same binary, both ways).
    pub fn run(self, opts: &Options, sink: impl FnMut(&mut FileResult)) -> RunMeta {
        let Walked {
            catalogs,
            errors,
            found,
            work,
            ..
        } = self;
        let wanted: Vec<bool> = work
            .iter()
            .map(|w| {
                opts.only
                    .as_ref()
                    .is_none_or(|o| o.contains(&(w.catalog, w.file.rel.clone())))
            })
            .collect();
        // The folders whose partials are processed need their main file's `info.key`, found
        // by content as a full run finds it, whatever the main file is named (issue 13).
        let partial_folders: std::collections::BTreeSet<(usize, &str)> = work
            .iter()
            .zip(&wanted)
            .filter(|(w, keep)| **keep && w.file.rel.ends_with(".s1.partial.yaml"))
            .map(|(w, _)| (w.catalog, w.file.folder.as_str()))
            .collect();
        let names = connector_names(&catalogs, &work, &partial_folders, &opts.rules.lexicon);
        // What the run processes: the files wanted, and the main file beside each partial.
        let selected: Vec<bool> = work
            .iter()
            .zip(&wanted)
            .map(|(w, keep)| {
                *keep
                    || (partial_folders.contains(&(w.catalog, w.file.folder.as_str()))
                        && names.main_of(w.catalog, &w.file.folder) == Some(w.file.rel.as_str()))
            })
            .collect();
        let meta = RunMeta {
            rules_used: vec![false; opts.rules.rules.len()],
            catalogs,
            errors,
            files: 0,
            walked: found.iter().sum(),
        };
        if opts.catalog_evidence && opts.votes.is_none() {
            return run_voting(&work, &selected, &names, opts, meta, sink);
        }
        if let Some(p) = &opts.progress {
            (p.start)(selected.iter().filter(|s| **s).count());
        }
        stream(&work, &selected, &names, opts, meta, sink)
    }
}

/// The files `selected` planned in parallel chunks and handed to `sink` in order, while the
/// next chunk is planned (see [`Walked::run`]).
fn stream(
    work: &[Work],
    selected: &[bool],
    names: &Names,
    opts: &Options,
    mut meta: RunMeta,
    mut sink: impl FnMut(&mut FileResult),
) -> RunMeta {
    let work: Vec<&Work> = work
        .iter()
        .zip(selected)
        .filter(|(_, keep)| **keep)
        .map(|(w, _)| w)
        .collect();
    meta.files += work.len();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(usize, FileResult)>>(2);
    // What each worker is to free, handed back by the caller's thread.
    let spent: Vec<std::sync::Mutex<Vec<FileResult>>> = (0..rayon::current_num_threads())
        .map(|_| std::sync::Mutex::default())
        .collect();
    std::thread::scope(|scope| {
        let (work, spent) = (&work, &spent);
        scope.spawn(move || {
            for chunk in work.chunks(CHUNK) {
                let results: Vec<(usize, FileResult)> = chunk
                    .par_iter()
                    .map(|w| {
                        let worker = rayon::current_thread_index().unwrap_or(0) % spent.len();
                        let freed = std::mem::take(&mut *lock(&spent[worker]));
                        drop(freed);
                        let r = process_file(w, names, opts);
                        if let Some(p) = &opts.progress {
                            (p.tick)();
                        }
                        (worker, r)
                    })
                    .collect();
                // The receiver only goes away when the caller stopped: nothing left to do.
                if tx.send(results).is_err() {
                    break;
                }
            }
        });
        for results in rx {
            for (worker, mut f) in results {
                for fired in f.actions.iter().flat_map(|a| &a.inference.fired) {
                    meta.rules_used[*fired] = true;
                }
                sink(&mut f);
                lock(&spent[worker]).push(f);
            }
        }
    });
    meta
}

/// The actions whose results a run with the catalog's evidence holds until the votes are
/// counted, a chunk of files at a time: chunks are held until this many actions are (the
/// first chunk always is, so a catalog of up to 512 files runs as it did before). A held
/// result costs about 2.7 KB an action; on the bench's catalog of 100,000 actions, `-j 2`,
/// the first chunk (some 7,000 actions) is held and the peak is 50.5 MB against 43.8 MB
/// without the votes. Past the budget the run streams (docs/performance.md, "Catalog
/// evidence in bounded memory").
const HELD_ACTIONS: usize = 2_000;

/// [`Walked::run`] with the catalog's evidence. Every walked file is planned once without it
/// (whatever `only` selects, so each proposal sees the whole catalog) and its declarations
/// counted. The first files' results are held (`held_actions`, [`HELD_ACTIONS`]): once the
/// votes are counted, only those a vote changes are planned again. Past the budget a file is planned
/// quietly (nothing rendered, checked or kept) and only counted, then planned again with the
/// votes and streamed as a run without them. Either way the outputs are the same bytes.
fn run_voting(
    work: &[Work],
    selected: &[bool],
    names: &Names,
    opts: &Options,
    mut meta: RunMeta,
    mut sink: impl FnMut(&mut FileResult),
) -> RunMeta {
    if let Some(p) = &opts.progress {
        (p.start)(work.len());
    }
    let quiet = quiet(opts);
    let mut counter = catalog::Counter::default();
    // Results of the files before `held_to`; a `--since` run counts every file but holds
    // only the changed ones.
    let mut held: Vec<Option<FileResult>> = Vec::new();
    let (mut held_to, mut actions) = (0, 0);
    for (n, chunk) in work.chunks(CHUNK).enumerate() {
        let base = n * CHUNK;
        let hold = actions < opts.held_actions;
        if !hold && held_to == base {
            // The files from here on are planned twice: the bar takes their second plan in
            // before its first, while it is still drawn.
            if let Some(p) = &opts.progress {
                (p.start)(work.len() + selected[base..].iter().filter(|s| **s).count());
            }
        }
        let planned: Vec<(Counted, Option<FileResult>)> = chunk
            .par_iter()
            .zip(&selected[base..base + chunk.len()])
            .map(|(w, keep)| {
                // A file only counted (past the budget, or not reported) is planned quietly.
                let f = process_file(w, names, if hold && *keep { opts } else { &quiet });
                if let Some(p) = &opts.progress {
                    (p.tick)();
                }
                let counted = counted(
                    f.actions
                        .iter()
                        .map(|a| (a.nested, a.status, &a.inference, a.declared.valid())),
                    opts,
                );
                (counted, (hold && *keep).then_some(f))
            })
            .collect();
        for (w, (counted, f)) in chunk.iter().zip(planned) {
            let connector = format!("{}/{}", w.catalog, w.file.folder);
            for (key, effects, origin) in counted {
                counter.add_key(key, effects, &connector, origin);
            }
            if hold {
                actions += f.as_ref().map_or(0, |f| f.actions.len());
                held.push(f);
            }
        }
        if hold {
            held_to = base + chunk.len();
        }
    }
    let votes = std::sync::Arc::new(counter.finish(catalog::Thresholds::builtin()));
    let with = Options {
        votes: Some(votes.clone()),
        ..opts.clone()
    };
    let rest = &selected[held_to..];
    take_votes(&mut held, &work[..held_to], names, &votes, &with);
    for f in held.iter_mut().flatten() {
        meta.files += 1;
        for fired in f.actions.iter().flat_map(|a| &a.inference.fired) {
            meta.rules_used[*fired] = true;
        }
        sink(f);
    }
    drop(held);
    stream(&work[held_to..], rest, names, &with, meta, sink)
}

/// The votes taken into results planned without them. A vote that changes what an action
/// will declare (its effects, or whether they are sure enough to patch) changes the file's
/// edits: the file is planned again. One that only changes how sure a proposal is, or
/// nothing, is taken in place, with the file's CSV rows rendered again (the confidence and
/// the reason are in them).
fn take_votes(
    results: &mut [Option<FileResult>],
    work: &[Work],
    names: &Names,
    votes: &catalog::Votes,
    with: &Options,
) {
    let min = with.min_confidence;
    let mut replan = Vec::new();
    for (i, f) in results
        .iter_mut()
        .enumerate()
        .filter_map(|(i, f)| Some((i, f.as_mut()?)))
    {
        let mut changed = false;
        for a in f.actions.iter_mut() {
            if a.declared != Declared::None || !votes.speaks_to(&a.inference) {
                continue;
            }
            let voted = votes.apply_to(&a.declared, a.inference.clone());
            if voted.effects != a.inference.effects
                || voted.confident(min) != a.inference.confident(min)
            {
                // Planned again whole: nothing of this plan is kept.
                replan.push(i);
                changed = false;
                break;
            }
            changed |= voted != a.inference;
            a.inference = voted;
        }
        if changed && with.render_csv {
            f.csv = crate::emit::csv_rows(f, &with.rules);
        }
    }
    let again: Vec<(usize, FileResult)> = replan
        .par_iter()
        .map(|&i| (i, process_file(&work[i], names, with)))
        .collect();
    for (i, f) in again {
        results[i] = Some(f);
    }
}

/// A file's declarations by key, as the catalog's evidence counts them.
type Counted = Vec<(catalog::Word, Effects, catalog::Origin)>;

/// What each action (nested, status, the engine's inference, its valid declaration) will
/// declare once this run's patch is applied, by the key of its verb, and where that comes
/// from: the patch adds it (a proposal, or a conflict `--fix-conflicts` rewrites), or it is
/// declared, echoing the engine or not. Nested actions are not tools, and an action with no
/// verb, or that will declare nothing valid, teaches nothing.
fn counted<'a>(
    actions: impl Iterator<Item = (bool, Status, &'a Inference, Option<Effects>)>,
    opts: &Options,
) -> Counted {
    actions
        .filter(|(nested, ..)| !nested)
        .filter_map(|(_, status, inf, declared)| {
            let proposed = match status {
                Status::Added => true,
                Status::Conflict => opts.fix_conflicts,
                _ => false,
            };
            // A plain reading the engine doubts is no proposal to vote with: the catalog's
            // declarations settle the doubt (`sync_ledger` over GET beside `sync_*` declared
            // [execute]).
            if proposed && inf.doubt().is_some() {
                return None;
            }
            let (effects, origin) = if proposed {
                (inf.effects, catalog::Origin::Proposed)
            } else {
                let e = declared?;
                (e, catalog::Origin::of(inf, e, opts.min_confidence))
            };
            Some((catalog::Word::of(inf.reading()?)?, effects, origin))
        })
        .collect()
}

/// `opts` for counting: only the decisions are read; nothing is rendered, checked or kept.
fn quiet(opts: &Options) -> Options {
    Options {
        check_edits: false,
        render_patch: false,
        render_csv: false,
        keep_views: false,
        keep_texts: false,
        migrate_hints: false,
        progress: None,
        only: None,
        // Kept: a file `--write` leaves alone has its proposals refused, and a refused
        // proposal is not counted, however the file is planned.
        hint_formats: Vec::new(),
        catalog_evidence: false,
        votes: None,
        ..opts.clone()
    }
}

/// A poisoned lock only means a worker panicked, which ends the run anyway.
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The connector of each folder in `folders`: `info.key` of the main file that sits beside
/// its partials (`*.connector.s1.yaml` first, then any other non-partial file with an
/// `info`), read before the run so results can be streamed in path order.
fn connector_names(
    catalogs: &[Catalog],
    work: &[Work],
    folders: &std::collections::BTreeSet<(usize, &str)>,
    lexicon: &crate::classify::Lexicon,
) -> Names {
    let candidates: Vec<(usize, &CatalogFile)> = work
        .iter()
        .filter(|w| {
            !w.file.rel.ends_with(".s1.partial.yaml")
                && folders.contains(&(w.catalog, w.file.folder.as_str()))
        })
        .map(|w| (w.catalog, &w.file))
        .collect();
    let found: Vec<(usize, &CatalogFile, String)> = candidates
        .par_iter()
        .filter_map(|(i, f)| {
            let text = read_text(&f.path).ok()?;
            let key = parse::info_key(&text)?;
            Some((*i, *f, key))
        })
        .collect();
    let mut mains: BTreeMap<(usize, String), (String, String)> = BTreeMap::new();
    let mut every: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
    for (i, f, key) in found {
        let slot = (i, f.folder.clone());
        every.entry(slot.clone()).or_default().push(f.rel.clone());
        if f.rel.ends_with(".connector.s1.yaml") || !mains.contains_key(&slot) {
            mains.insert(slot, (key, f.rel.clone()));
        }
    }
    // Two main files beside one partial: which connector it belongs to is a guess.
    every.retain(|_, files| files.len() > 1);
    let groups = connector_groups(work, folders, &every, lexicon);
    let roots = catalogs
        .iter()
        .map(|c| {
            c.root
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "catalog".to_owned())
        })
        .collect();
    Names {
        mains,
        roots,
        ambiguous: every,
        groups,
    }
}

/// An action's name and the method of its last call, as written.
type Call = (String, Option<String>);

/// The group of each connector split into a main file and partials: the names of all its
/// files, read before the run, so its actions are read alike however they are split
/// (issue 31: a partial whose names all open with `get_` took it for a service prefix).
/// A folder with two main files is left to each file's own names.
fn connector_groups(
    work: &[Work],
    folders: &std::collections::BTreeSet<(usize, &str)>,
    ambiguous: &BTreeMap<(usize, String), Vec<String>>,
    lexicon: &crate::classify::Lexicon,
) -> BTreeMap<(usize, String), Group> {
    let files: Vec<&Work> = work
        .iter()
        .filter(|w| {
            crate::walk::is_connector_file(&w.file.rel)
                && folders.contains(&(w.catalog, w.file.folder.as_str()))
                && !ambiguous.contains_key(&(w.catalog, w.file.folder.clone()))
        })
        .collect();
    let read: Vec<(usize, &str, Vec<Call>)> = files
        .par_iter()
        .map(|w| {
            let calls = read_text(&w.file.path)
                .map(|text| {
                    parse::scan_calls(&text)
                        .into_iter()
                        .map(|(n, m)| (n.to_owned(), m.map(str::to_owned)))
                        .collect()
                })
                .unwrap_or_default();
            (w.catalog, w.file.folder.as_str(), calls)
        })
        .collect();
    let mut by: BTreeMap<(usize, String), Vec<Call>> = BTreeMap::new();
    for (catalog, folder, calls) in read {
        by.entry((catalog, folder.to_owned()))
            .or_default()
            .extend(calls);
    }
    by.into_iter()
        .map(|(k, calls)| {
            let g = Group::of_calls(
                calls.iter().map(|(n, m)| (n.as_str(), m.as_deref())),
                lexicon,
            );
            (k, g)
        })
        .collect()
}

/// Connector names known before the run.
struct Names {
    /// (catalog, folder) to the main file's `info.key` and path.
    mains: BTreeMap<(usize, String), (String, String)>,
    /// The name of each catalog directory, for files at its root.
    roots: Vec<String>,
    /// (catalog, folder) to its main files, where a partial's folder holds more than one.
    ambiguous: BTreeMap<(usize, String), Vec<String>>,
    /// (catalog, folder) to the group of a connector split into files.
    groups: BTreeMap<(usize, String), Group>,
}

impl Names {
    fn folder_name(&self, catalog: usize, folder: &str) -> String {
        match folder.rsplit('/').next() {
            Some(last) if !last.is_empty() => last.to_owned(),
            _ => self.roots[catalog].clone(),
        }
    }

    /// The main file of a folder, relative to its catalog.
    fn main_of(&self, catalog: usize, folder: &str) -> Option<&str> {
        self.mains
            .get(&(catalog, folder.to_owned()))
            .map(|(_, rel)| rel.as_str())
    }
}

/// Reads a connector file as text; a BOM stays in the text (it is part of the bytes the
/// patch must preserve) and the YAML scanner skips it.
pub fn read_text(path: &Path) -> Result<String, Error> {
    let err = |e: std::io::Error| Error::new(format!("cannot read: {e}")).in_file(path);
    let mut file = std::fs::File::open(path).map_err(err)?;
    let len = file.metadata().map_or(0, |m| m.len() as usize);
    // Room for the inserted `effects` (a few percent of a file), so the text can become the
    // edited text where it is: growing it elsewhere would leave the old buffer resident
    // with the allocator while the edited one is checked.
    let mut bytes = Vec::with_capacity(len + len / 16 + 64);
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(err)?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        let col = valid - crate::text::lines::line_start(bytes, valid) + 1;
        Error::new("not UTF-8 text (binary file?)")
            .in_file(path)
            .at(line, col)
    })
}

/// The `$ref:` values of the file at `path` that name no file beside it: the actions of a
/// partial that is gone were reported "gone" and nothing failed (issue 21). A reference
/// names a partial by its stem (`$ref: hr.employees` is `hr.employees.s1.partial.yaml`).
fn dangling_refs(path: &Path, refs: &[(String, usize, usize)]) -> Vec<Error> {
    let folder = path.parent().unwrap_or(Path::new("."));
    refs.iter()
        .filter(|(name, _, _)| {
            let candidates = [
                format!("{name}.s1.partial.yaml"),
                format!("{name}.s1.yaml"),
                name.clone(),
            ];
            !candidates.iter().any(|c| {
                !c.contains('\0') && folder.join(c).symlink_metadata().is_ok_and(|m| m.is_file())
            })
        })
        .map(|(name, line, column)| {
            Error::new(format!(
                "`$ref: {name}` names no file: {name}.s1.partial.yaml is not in this folder, so its actions are not read"
            ))
            .at(*line, *column)
        })
        .collect()
}

fn process_file(w: &Work, names: &Names, opts: &Options) -> FileResult {
    let file = &w.file;
    let mut out = FileResult {
        catalog: w.catalog,
        rel: file.rel.clone(),
        folder: file.folder.clone(),
        patch_path: w.patch_path.clone(),
        shown: w.shown.clone(),
        in_repo: w.in_repo,
        abs: file.path.clone(),
        shape: None,
        info_key: None,
        info_title: None,
        actions: Vec::new(),
        problems: Vec::new(),
        notes: Vec::new(),
        error: None,
        patch: String::new(),
        csv: String::new(),
        group: Group::single(),
        new_text: None,
        repeats: Vec::new(),
        silences: Vec::new(),
        inserted: Vec::new(),
    };
    let text = match read_text(&file.path) {
        Ok(t) => t,
        Err(e) => {
            out.error = Some(e.in_file(&w.shown));
            return out;
        }
    };
    let (path, patch) = (&out.patch_path, &mut out.patch);
    let left_alone = opts
        .untouchable
        .get(w.catalog)
        .and_then(|m| crate::git::left_alone(m, &w.patch_path));
    let source = crate::source::of_file(&file.rel);
    let group = names.groups.get(&(w.catalog, file.folder.clone()));
    let plan = match source.plan(
        &file.rel,
        text,
        opts,
        left_alone,
        group,
        &mut |old, edits| {
            if opts.render_patch {
                diff::render_patch(path, old, edits, patch);
            }
        },
    ) {
        Ok(p) => p,
        Err(e) => {
            out.error = Some(e.in_file(&w.shown));
            return out;
        }
    };
    out.shape = Some(plan.shape);
    out.group = plan.group;
    out.repeats = plan.repeats;
    out.info_key = plan.info_key;
    out.info_title = plan.info_title;
    out.silences = plan.silences;
    out.inserted = plan.inserted;
    out.problems = plan
        .problems
        .into_iter()
        .chain(dangling_refs(&file.path, &plan.refs))
        .map(|e| e.in_file(&w.shown))
        .collect();
    out.notes = plan
        .notes
        .into_iter()
        .map(|e| e.in_file(&w.shown))
        .collect();
    let new_text = plan.new_text;
    // Mapped in place: the results take the plan's buffer (shrunk where it lies), which on
    // one large file is the biggest allocation after the text and the tree (issue 13).
    out.actions = plan
        .actions
        .into_iter()
        .map(|p| {
            let (mut site, inference, status, edit, hint_review, more) =
                (p.site, p.inference, p.status, p.edit, p.hints, p.more);
            let (effects, declared_source) =
                match edit::effects_after(&site.view.declared, status, edit.as_ref()) {
                    Some((e, from)) => (e, from == edit::EffectsFrom::Declared),
                    None => (Effects::EMPTY, false),
                };
            let comment = site
                .view
                .id_comment
                .as_deref()
                .filter(|c| c.contains("catalog-effects:"))
                .map(Box::from);
            if !opts.keep_views {
                site.view.id_comment = None;
            }
            let hints = derive_hints(
                effects,
                site.view.label.as_deref(),
                site.view.annotations.as_ref(),
                opts.policy,
                inference.overwrites,
            );
            let view_line = site.view.line;
            let view = site.view;
            let methods = view
                .methods()
                .iter()
                .map(|m| m.to_ascii_uppercase())
                .collect();
            let paths = view.urls().map(str::to_owned).collect();
            let written_at = view.written_at.clone();
            // The view's fields are moved, not copied, unless the caller keeps the view too.
            let (id, label, declared, annotations, view) = if opts.keep_views {
                (
                    view.id.clone(),
                    view.label.clone(),
                    view.declared.clone(),
                    view.annotations.clone(),
                    Some(Box::new(view)),
                )
            } else {
                (view.id, view.label, view.declared, view.annotations, None)
            };
            ActionResult {
                id,
                label,
                line: view_line,
                column: site.column,
                nested: site.nested,
                methods,
                paths,
                declared,
                annotations,
                inference,
                status,
                effects,
                declared_source,
                hints,
                connector: String::new(),
                edit,
                hint_review,
                comment,
                view,
                more,
                written_at,
            }
        })
        .collect();
    // (line, column) tells actions apart; two results share it only when an alias reads
    // one nested action twice, and then they are the same. So the unstable sort gives the
    // stable order, without the stable sort's scratch buffer.
    out.actions.sort_unstable_by_key(|a| (a.line, a.column));
    resolve_connector(&mut out, names);
    if opts.render_csv {
        out.csv = crate::emit::csv_rows(&out, &opts.rules);
    }
    out.new_text = new_text;
    out
}

/// One action as planned: its site, the inference, the status, the edit of its `effects`
/// and its hints judged (with the removals planned), if any.
#[derive(Debug, Clone)]
pub struct Planned {
    pub site: ActionSite,
    pub inference: Inference,
    pub status: Status,
    pub edit: Option<Edit>,
    pub hints: Option<Box<HintReview>>,
    /// Edits besides `edit` that add keys (see [`ActionResult::more`]).
    pub more: Vec<Edit>,
}

impl Planned {
    /// Every edit planned for the action.
    fn edits(&self) -> impl Iterator<Item = &Edit> {
        self.edit
            .iter()
            .chain(&self.more)
            .chain(self.hints.iter().flat_map(|h| &h.edits))
    }

    /// Judges the action's hints against the effects it has with its edit, and plans the
    /// removal of the redundant ones when the run migrates them; a removal that cannot be
    /// made in place is said why in `notes`, and the action's `effects` edit goes on.
    pub(crate) fn judge_hints(&mut self, text: &str, opts: &Options, notes: &mut Vec<Error>) {
        let after = edit::effects_after(&self.site.view.declared, self.status, self.edit.as_ref());
        let Some(mut review) = crate::model::hints::review(
            self.site.view.annotations.as_ref(),
            self.site.view.label.as_deref(),
            after,
            opts.policy,
            self.inference.overwrites,
        ) else {
            self.hints = None;
            return;
        };
        review.migrate = opts.migrate_hints;
        if let Some(site) = self
            .site
            .annotations
            .as_deref()
            .filter(|_| opts.migrate_hints)
        {
            let insert_at = self
                .edit
                .as_ref()
                .filter(|e| e.start == e.end)
                .map(|e| e.start);
            match hints::plan_removals(text, site, &review, self.site.map_start, insert_at) {
                Ok(edits) => review.edits = edits,
                Err(why) => {
                    review.refused = Some(why.to_owned());
                    notes.push(
                        Error::new(format!(
                            "`{}`: redundant hints not removed: {why}; remove them by hand",
                            self.site.view.id
                        ))
                        .at(self.site.view.line, self.site.column),
                    );
                }
            }
        }
        self.hints = Some(Box::new(review));
    }

    /// Leaves the action unedited, `why` said of it: an added proposal then counts as
    /// unclassified (it is listed for a human), a conflict stays one. A proposal its hints
    /// were judged against no longer counts, and none of them is removed.
    pub(crate) fn refuse(&mut self, why: &str) -> Error {
        let hints_only =
            self.edit.is_none() && self.hints.as_ref().is_some_and(|h| !h.edits.is_empty());
        let what = match self.status {
            _ if hints_only => "`: redundant hints not removed",
            Status::Added => {
                self.status = Status::Unclassified;
                "` not edited"
            }
            _ => "` not rewritten",
        };
        self.edit = None;
        if let Some(h) = &mut self.hints {
            if !h.edits.is_empty() {
                h.refused = Some(why.to_owned());
            }
            h.without_proposal();
        }
        Error::new(format!("`{}{what}: {why}", self.site.view.id))
            .at(self.site.view.line, self.site.column)
    }
}

/// A file's text, planned and checked: everything the run needs, and the sorted edits,
/// each of which passed [`check_edited`].
#[derive(Debug, Clone)]
pub struct Plan {
    pub shape: Shape,
    pub group: Group,
    pub info_key: Option<String>,
    pub info_title: Option<String>,
    pub problems: Vec<Error>,
    pub notes: Vec<Error>,
    pub actions: Vec<Planned>,
    pub edits: Vec<Edit>,
    /// The edited text, with `keep_texts` when there are edits.
    pub new_text: Option<String>,
    /// The `$ref:` values of the file, with their line and column.
    pub refs: Vec<(String, usize, usize)>,
    /// Actions listed again through an alias item ([`parse::ParsedFile::repeats`]).
    pub repeats: Vec<(String, usize, usize)>,
    /// `# catalog-effects: ignore[...]` in the file's leading comment lines: (line, code).
    pub silences: Vec<(usize, String)>,
    /// What an OpenAPI document's edits insert where.
    pub inserted: Vec<crate::model::openapi::Inserted>,
}

/// Parses, classifies and plans one file's text, then checks the edited text before any
/// route may use it (issue 13): it must parse, hold the original's data plus exactly the
/// planned `effects`, and plan nothing more. An edit that fails is dropped and its action
/// reported with why; the file's other edits go on. Pure: the same text and options always
/// give the same plan, which is what makes a rerun after applying the patch empty.
///
/// The text is the whole catalog here: what it declares is the catalog's evidence, as a run
/// over a folder of this one file would count it.
pub fn plan(text: &str, opts: &Options) -> Result<Plan, Error> {
    if opts.catalog_evidence && opts.votes.is_none() {
        // Planned once quietly to count: this one text is not worth the in-place route of a
        // run (`run_voting`).
        let quiet = quiet(opts);
        let mut counter = catalog::Counter::default();
        if let Ok(p) = plan_owned(text.to_owned(), &quiet, None, None, &mut |_, _| {}) {
            let actions = p.actions.iter().map(|a| {
                let declared = a.site.view.declared.valid();
                (a.site.nested, a.status, &a.inference, declared)
            });
            for (key, effects, origin) in counted(actions, &quiet) {
                counter.add_key(key, effects, "", origin);
            }
        }
        let with = Options {
            votes: Some(std::sync::Arc::new(
                counter.finish(catalog::Thresholds::builtin()),
            )),
            ..opts.clone()
        };
        return plan_owned(text.to_owned(), &with, None, None, &mut |_, _| {});
    }
    plan_owned(text.to_owned(), opts, None, None, &mut |_, _| {})
}

/// [`plan`], taking the text: it becomes the edited text in place while that is checked
/// (one large file is never held twice then); `render` sees the original with the edits
/// that passed.
pub(crate) fn plan_owned(
    text: String,
    opts: &Options,
    left_alone: Option<&str>,
    group: Option<&Group>,
    render: &mut dyn FnMut(&str, &[Edit]),
) -> Result<Plan, Error> {
    let tree = yaml::parse_tree(&text)?;
    let mut plan = plan_tree(&tree, opts, opts.keep_views, group)?;
    if let Some(why) = left_alone.filter(|_| !plan.edits.is_empty()) {
        let mut refused = 0;
        for a in plan.actions.iter_mut().filter(|a| a.edit.is_some()) {
            a.refuse(why);
            refused += 1;
        }
        plan.edits.clear();
        plan.notes.push(Error::new(format!(
            "not edited: {why}; its {} listed for a human instead",
            crate::text::plural(refused, "proposal")
        )));
    }
    if plan.edits.is_empty() || !opts.check_edits {
        drop(tree);
        render(&text, &plan.edits);
        plan.new_text =
            (opts.keep_texts && !plan.edits.is_empty()).then(|| diff::apply(&text, &plan.edits));
        return Ok(plan);
    }
    // The original's digest is all the check needs of its tree: dropping it first keeps
    // one large file from holding two trees at once, and the text becomes the edited text
    // in place. The patch is rendered once the check is done, from the original had back.
    let digest = diff::verify::original(&tree, &plan.edits);
    let storage = tree.into_storage();
    let new = diff::apply_owned(text, &plan.edits);
    let checked = digest.and_then(|d| check_new(&new, d, &plan.edits, &plan, opts, storage));
    let old = diff::unapply_owned(new, &plan.edits);
    if let Err(why) = checked {
        salvage(&old, &mut plan, opts, &why)?;
    }
    render(&old, &plan.edits);
    // Edited again in the same buffer rather than kept beside the original: one large
    // file is not held twice (a rewrite by --fix-conflicts still copies it).
    if plan.new_text.is_none() && opts.keep_texts && !plan.edits.is_empty() {
        plan.new_text = Some(diff::apply_owned(old, &plan.edits));
    }
    Ok(plan)
}

/// Plans a parsed file: reads its actions, classifies each as it is read (letting go of
/// the text only rules read, unless `keep_views`), and plans the edits.
fn plan_tree(
    tree: &tree::Tree,
    opts: &Options,
    keep_views: bool,
    connector: Option<&Group>,
) -> Result<Plan, Error> {
    let mut group = connector.cloned();
    let mut actions = Vec::new();
    let (facts, mut notes) = plan_actions(
        tree,
        opts,
        Decide::Classify(&mut group),
        &mut |mut p, layout| {
            // Sized once: a plan grown by doubling leaves its outgrown buffers with the
            // allocator, resident, for the rest of a large file's run.
            if actions.is_empty() {
                actions.reserve_exact(layout.items + 1);
            }
            if !keep_views {
                p.site.view.description = None;
                p.site.view.details = None;
                p.site.view.inputs = Vec::new();
            }
            actions.push(p);
        },
    )?;
    let edited: Vec<bool> = actions.iter().map(|p| p.edit.is_some()).collect();
    let own: Vec<bool> = actions
        .iter()
        .map(|p| p.edit.is_some() && p.status == Status::Added)
        .collect();
    for (source, heir) in held_back(&edited, &own, &facts.inheritance) {
        let heir_id = actions[heir].site.view.id.clone();
        notes.push(actions[source].refuse(&format!(
            "`{heir_id}` merges it (`<<`) and would inherit its effects; declare both by hand"
        )));
    }
    let mut edits: Vec<Edit> = actions.iter().flat_map(|p| p.edits()).cloned().collect();
    // Each action's edits lie in its own mapping and never overlap: (start, end, mapping)
    // orders them fully, so the unstable sort is exact, without the stable one's scratch
    // copy.
    edits.sort_unstable_by_key(Edit::order);
    Ok(Plan {
        shape: facts.shape,
        group: group.unwrap_or_default(),
        info_key: facts.info_key,
        info_title: facts.info_title,
        problems: facts.problems,
        notes,
        actions,
        edits,
        new_text: None,
        refs: facts.refs,
        repeats: facts.repeats,
        silences: crate::text::file_silences(tree.text()),
        inserted: Vec::new(),
    })
}

/// How [`plan_actions`] decides each action's effects.
enum Decide<'a> {
    /// Classify it, its name read among the file's names (their group, set from the
    /// first action's [`parse::Layout`]).
    Classify(&'a mut Option<Group>),
    /// Take the decision of a plan of the same data: only what the edits need is read.
    Known(&'a [Planned]),
}

/// Reads, decides and plans each action of a parsed file, handing it to `each` at once;
/// returns what the file says besides its actions, and the notes on edits not made.
fn plan_actions(
    tree: &tree::Tree,
    opts: &Options,
    mut decide: Decide,
    each: &mut dyn FnMut(Planned, parse::Layout<'_>),
) -> Result<(parse::ParsedFile, Vec<Error>), Error> {
    let text = tree.text();
    let mut notes = Vec::new();
    let mut k = 0;
    let full = matches!(decide, Decide::Classify(_));
    let mut facts = parse::read_actions(tree, full, &mut |site, layout| {
        let inference = match &mut decide {
            Decide::Known(plan) => plan.get(k).map_or_else(Inference::default, |p| Inference {
                effects: p.inference.effects,
                confidence: p.inference.confidence,
                overwrites: p.inference.overwrites,
                ..Inference::default()
            }),
            Decide::Classify(group) => {
                let group = group.get_or_insert_with(|| {
                    Group::of_calls(
                        layout
                            .names
                            .iter()
                            .copied()
                            .zip(layout.methods.iter().copied()),
                        &opts.rules.lexicon,
                    )
                });
                catalog::infer_in(&site.view, group, &opts.rules, opts.votes.as_deref())
            }
        };
        k += 1;
        let status = diff::status(
            &site.view.declared,
            site.nested,
            &inference,
            opts.min_confidence,
        );
        let planned = match status {
            Status::Added => Some(diff::plan_insert(
                text,
                &site,
                site.seq_offset.unwrap_or(layout.seq_offset),
                inference.effects,
            )),
            Status::Conflict if opts.fix_conflicts => site
                .effects
                .as_ref()
                .map(|e| diff::plan_rewrite(text, e, site.map_start, inference.effects)),
            _ => None,
        };
        let (edit, why) = match planned {
            Some(Ok(edit)) => (Some(edit), None),
            Some(Err(why)) => (None, Some(why)),
            None => (None, None),
        };
        let mut p = Planned {
            site,
            inference,
            status,
            edit,
            hints: None,
            more: Vec::new(),
        };
        if let Some(why) = why {
            notes.push(p.refuse(&format!("{why}; declare its effects by hand")));
        }
        p.judge_hints(text, opts, &mut notes);
        each(p, layout);
    })?;
    let mut all = std::mem::take(&mut facts.notes);
    all.extend(notes);
    Ok((facts, all))
}

/// An action whose mapping another action merges (`<<: *it`) passes its `effects` on: an
/// edit there would make the inheritor declare effects nobody proposed for it. So the edit
/// is held back (and the action listed for a human) unless every inheritor gets its own.
/// Returns the (action, inheritor) pairs to hold back, given which actions have an edit and
/// which have an added one of their own.
fn held_back(edited: &[bool], own: &[bool], inheritance: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut first = BTreeMap::new();
    for &(source, heir) in inheritance {
        if edited[source] && !own[heir] {
            first.entry(source).or_insert(heir);
        }
    }
    first.into_iter().collect()
}

/// Checks `edits` (a subset of what `planned` planned, sorted) applied to `text`: the
/// edited text parses, its digest equals the original's `digest` (same data, in the same
/// places, plus exactly the planned `effects`), and planning it again finds the same
/// actions and problems, each edited action declaring what was planned, and proposes
/// nothing but the edits left out. Returns the edited text.
fn check_edited(
    text: &str,
    digest: diff::verify::Digest,
    edits: &[Edit],
    planned: &Plan,
    opts: &Options,
) -> Result<String, String> {
    let new = diff::apply(text, edits);
    check_new(&new, digest, edits, planned, opts, Default::default())?;
    Ok(new)
}

/// [`check_edited`] on the edited text itself. The second plan is checked action by action
/// as it is read and kept no further: one large file does not hold two plans.
fn check_new(
    new: &str,
    digest: diff::verify::Digest,
    edits: &[Edit],
    planned: &Plan,
    opts: &Options,
    storage: tree::Storage,
) -> Result<(), String> {
    let tree = yaml::parse_tree_in(new, storage)
        .map_err(|e| format!("the edited text does not parse: {e}"))?;
    if diff::verify::edited(&tree, edits)? != digest {
        return Err("the edited text's data differs from the original's".into());
    }
    let actions = &planned.actions;
    let has = |e: &Edit| {
        edits
            .binary_search_by_key(&e.order(), Edit::order)
            .is_ok_and(|i| edits[i] == *e)
    };
    fn applied(before: &Planned, has: impl Fn(&Edit) -> bool) -> Option<&Edit> {
        before.edit.as_ref().filter(|e| has(e))
    }
    let (mut edited, mut own) = (
        Vec::with_capacity(actions.len()),
        Vec::with_capacity(actions.len()),
    );
    let mut failure = None;
    // The digests are equal: the actions hold the same data, so each keeps the decision
    // the first plan made; what is planned again is where and what to edit.
    let (facts, _) = plan_actions(&tree, opts, Decide::Known(actions), &mut |after, _| {
        let Some(before) = actions.get(edited.len()) else {
            failure.get_or_insert_with(|| "the edited text holds more actions".to_owned());
            return;
        };
        let id = &before.site.view.id;
        let want = match applied(before, has) {
            Some(e) => Declared::Valid(e.effects),
            None => before.site.view.declared.clone(),
        };
        if *id != after.site.view.id || before.site.nested != after.site.nested {
            failure.get_or_insert_with(|| format!("action `{id}` moved or changed its id"));
        } else if after.site.view.declared != want {
            failure.get_or_insert_with(|| {
                format!("action `{id}` does not declare the planned effects after the edit")
            });
        } else if let Some(why) = hints_after(before, &after, has) {
            failure.get_or_insert_with(|| format!("action `{id}`: {why}"));
        }
        edited.push(after.edit.is_some());
        own.push(after.edit.is_some() && after.status == Status::Added);
    })
    .map_err(|e| format!("the edited text does not plan: {e}"))?;
    if let Some(f) = failure {
        return Err(f);
    }
    if edited.len() != actions.len() {
        return Err("the edited text holds fewer actions".into());
    }
    let held: std::collections::BTreeSet<usize> = held_back(&edited, &own, &facts.inheritance)
        .into_iter()
        .map(|(source, _)| source)
        .collect();
    for (i, before) in actions.iter().enumerate() {
        // What the second plan proposes must be exactly what was left out.
        let proposes = edited[i] && !held.contains(&i);
        if proposes != (before.edit.is_some() && applied(before, has).is_none()) {
            return Err(format!(
                "planning the edited text again gives another edit for `{}`",
                before.site.view.id
            ));
        }
    }
    if facts.problems.len() != planned.problems.len() {
        return Err("the edit changed the problems of the file".into());
    }
    Ok(())
}

/// What is wrong with an action's annotations in the edited text, if anything: with its
/// removals applied, they must hold exactly what was left and plan no further removal;
/// without them, what they held and the same removals again.
fn hints_after(before: &Planned, after: &Planned, has: impl Fn(&Edit) -> bool) -> Option<String> {
    let planned: &[Edit] = before.hints.as_ref().map_or(&[], |h| &h.edits);
    let again: &[Edit] = after.hints.as_ref().map_or(&[], |h| &h.edits);
    let removes = |edits: &[Edit]| edits.iter().fold(0, |m, e| m | e.removes);
    let (want, again_ok) = if !planned.is_empty() && planned.iter().all(&has) {
        let h = before.hints.as_ref()?;
        let left = before
            .site
            .view
            .annotations
            .as_ref()
            .and_then(|a| h.remainder(a));
        (left, again.is_empty())
    } else {
        (
            before.site.view.annotations.clone(),
            removes(again) == removes(planned),
        )
    };
    if after.site.view.annotations != want {
        return Some("its annotations after the edit are not what was planned".into());
    }
    (!again_ok).then(|| "planning the edited text again removes other hints".into())
}

/// Checks at most this many subsets of a file's edits to find those that fail: a file
/// whose every edit fails would otherwise be parsed once per edit.
const MAX_CHECKS: usize = 64;

/// The slow path, taken only when the file's edits failed their check together: finds the
/// edits that fail (halving the set), drops them, and reports each of their actions with
/// why. The others are checked once more together and kept.
fn salvage(text: &str, plan: &mut Plan, opts: &Options, why: &str) -> Result<(), Error> {
    let tree = yaml::parse_tree(text)?;
    let checks = std::cell::Cell::new(0);
    let check = |edits: &[Edit]| -> Result<String, String> {
        checks.set(checks.get() + 1);
        if checks.get() > MAX_CHECKS {
            return Err("too many of the file's edits failed their check".into());
        }
        let digest = diff::verify::original(&tree, edits)?;
        check_edited(text, digest, edits, plan, opts)
    };
    // An action's edits go together: its hints are removed only beside the effects that
    // make them redundant.
    let mut units: BTreeMap<usize, Vec<Edit>> = BTreeMap::new();
    for e in &plan.edits {
        units.entry(e.map).or_default().push(e.clone());
    }
    let flat = |set: &[Vec<Edit>]| -> Vec<Edit> {
        let mut edits: Vec<Edit> = set.iter().flatten().cloned().collect();
        edits.sort_unstable_by_key(Edit::order);
        edits
    };
    let mut failed: Vec<(usize, String)> = Vec::new();
    let mut pending = vec![units.into_values().collect::<Vec<_>>()];
    while let Some(set) = pending.pop() {
        match check(&flat(&set)) {
            Ok(_) => {}
            Err(e) if set.len() == 1 || checks.get() >= MAX_CHECKS => {
                failed.extend(set.iter().map(|unit| (unit[0].map, e.clone())));
            }
            Err(_) => {
                let (a, b) = set.split_at(set.len() / 2);
                pending.push(b.to_vec());
                pending.push(a.to_vec());
            }
        }
    }
    if failed.is_empty() {
        // Each part passes alone, not all together.
        failed = plan.edits.iter().map(|e| (e.map, why.to_owned())).collect();
    }
    let failing: std::collections::BTreeSet<usize> = failed.iter().map(|(m, _)| *m).collect();
    let mut kept: Vec<Edit> = plan
        .edits
        .iter()
        .filter(|e| !failing.contains(&e.map))
        .cloned()
        .collect();
    let together = if kept.is_empty() {
        Ok(None)
    } else {
        check(&kept).map(Some)
    };
    let new = match together {
        Ok(new) => new,
        Err(e) => {
            failed.extend(kept.drain(..).map(|edit| (edit.map, e.clone())));
            None
        }
    };
    let why_at: BTreeMap<usize, String> = failed.into_iter().collect();
    for p in &mut plan.actions {
        let Some(why) = why_at
            .get(&p.site.map_start)
            .filter(|_| p.edits().next().is_some())
        else {
            continue;
        };
        let why = if p.edit.is_some() {
            format!("its edit failed the check before writing ({why}); declare its effects by hand")
        } else {
            format!("their removal failed the check before writing ({why}); remove them by hand")
        };
        plan.problems.push(p.refuse(&why));
    }
    plan.edits = kept;
    plan.new_text = new.filter(|_| opts.keep_texts);
    Ok(())
}

/// A partial belongs to the connector whose main file sits in the same folder; a file with
/// its own `info.key` names itself; without either, the folder name.
fn resolve_connector(f: &mut FileResult, names: &Names) {
    let main = names
        .mains
        .get(&(f.catalog, f.folder.clone()))
        .map(|(key, _)| key.clone());
    let fallback = || names.folder_name(f.catalog, &f.folder);
    if f.info_key.is_none()
        && main.is_none()
        && f.rel.ends_with(".s1.partial.yaml")
        && !f.actions.is_empty()
    {
        f.problems.push(
            Error::new(format!(
                "partial has no main file (with `info.key`) in its folder; its actions are filed under `{}`",
                fallback()
            ))
            .in_file(&f.shown),
        );
    }
    if f.info_key.is_none()
        && f.rel.ends_with(".s1.partial.yaml")
        && let Some(mains) = names.ambiguous.get(&(f.catalog, f.folder.clone()))
    {
        let chosen = main.as_deref().unwrap_or_default();
        f.problems.push(
            Error::new(format!(
                "partial beside {} main files ({}): which connector it belongs to is ambiguous (its actions are filed under `{chosen}`); keep one main file per folder",
                mains.len(),
                mains.join(", ")
            ))
            .in_file(&f.shown)
            .at(1, 1),
        );
    }
    let connector = f.info_key.clone().or(main).unwrap_or_else(fallback);
    for a in &mut f.actions {
        a.connector.clone_from(&connector);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a file's actions are read among are its actions' names: an alias item, a
    /// merge-only item or an id that is no string must not make a prefix of their own.
    #[test]
    fn a_files_name_group_is_read_from_its_actions_only() {
        let text = "- &one\n  actionId: acme_contact_get\n- actionId: acme_deal_list\n- <<: *one\n- *one\n- actionId: 1\n- actionId: true\n";
        let opts = Options::new(RuleSet::builtin().unwrap());
        let parsed = parse::parse_file(text).unwrap();
        let ids: Vec<&str> = parsed.actions.iter().map(|s| s.view.id.as_str()).collect();
        assert_eq!(ids, ["acme_contact_get", "acme_deal_list"]);
        let group = plan(text, &opts).unwrap().group;
        assert_eq!(group, Group::of(ids, &opts.rules.lexicon));
        assert_eq!(group.prefix, None, "two names make no prefix");
    }

    /// A run with the catalog's evidence holds its first results while it counts and
    /// streams the rest: where the budget ends must not change a byte of the outputs.
    #[test]
    fn the_outputs_do_not_depend_on_how_many_results_are_held() {
        let demo = [std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/demo")];
        type Alone = Option<std::collections::BTreeMap<String, &'static str>>;
        let run = |evidence: bool, held: usize, alone: Alone| {
            let mut opts = Options::new(RuleSet::builtin().unwrap());
            (opts.render_csv, opts.catalog_evidence, opts.held_actions) = (true, evidence, held);
            opts.untouchable = alone.into_iter().collect();
            let mut out = Vec::new();
            let meta = Walked::new(&demo).run(&opts, |f| {
                let confidence: Vec<_> = f.actions.iter().map(|a| a.inference.confidence).collect();
                out.push((
                    f.rel.clone(),
                    std::mem::take(&mut f.patch),
                    std::mem::take(&mut f.csv),
                    confidence,
                ));
            });
            (out, meta.files, meta.rules_used)
        };
        let all = run(true, usize::MAX, None);
        assert_ne!(
            all,
            run(false, usize::MAX, None),
            "the votes change something"
        );
        for held in [0, 1, 40, 200] {
            assert!(run(true, held, None) == all, "{held} actions held");
        }
        // Files `--write` must leave alone (uncommitted changes): their proposals are
        // refused, so they are not counted, whether the file is held or planned quietly.
        let mut top = String::new();
        Walked::new(&demo).run(&Options::new(RuleSet::builtin().unwrap()), |f| {
            top = f
                .patch_path
                .split_inclusive('/')
                .next()
                .unwrap_or_default()
                .to_owned();
        });
        let alone = Some(std::collections::BTreeMap::from([(
            top,
            "it has uncommitted changes",
        )]));
        let left = run(true, usize::MAX, alone.clone());
        assert_ne!(left, all, "the files are left alone");
        assert!(run(true, 0, alone) == left, "left alone, planned quietly");
    }

    /// The progress bar ends when its count is reached: a run planning files twice must
    /// say so while the bar is still short of its end, and end exactly at it.
    #[test]
    fn the_progress_bar_reaches_its_end_once_when_files_are_planned_twice() {
        use std::sync::{Arc, Mutex};
        let demo = [std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("catalogs/demo")];
        for held in [0, 1, usize::MAX] {
            // (length, ticks so far) at each start, and the ticks.
            let starts = Arc::new(Mutex::new(Vec::<(usize, usize)>::new()));
            let ticks = Arc::new(Mutex::new(0));
            let mut opts = Options::new(RuleSet::builtin().unwrap());
            (opts.catalog_evidence, opts.held_actions) = (true, held);
            let (s, t) = (starts.clone(), ticks.clone());
            opts.progress = Some(Progress {
                start: Arc::new(move |n| s.lock().unwrap().push((n, *t.lock().unwrap()))),
                tick: {
                    let t = ticks.clone();
                    Arc::new(move || *t.lock().unwrap() += 1)
                },
            });
            Walked::new(&demo).run(&opts, |_| {});
            let starts = starts.lock().unwrap().clone();
            let ticks = *ticks.lock().unwrap();
            let last = starts.last().unwrap().0;
            assert_eq!(ticks, last, "{held} held: {starts:?}");
            for w in starts.windows(2) {
                assert!(
                    w[1].1 < w[0].0,
                    "{held} held: started again after the end: {starts:?}"
                );
            }
        }
    }
}

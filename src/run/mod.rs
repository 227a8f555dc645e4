//! The run: the only parallel code. The catalogs walked ([`walk`]) before any file is read
//! (an unusable one is refused before anything is written), the connectors' names read
//! ([`names`]), then every file read and planned by its source in ordered parallel chunks
//! ([`schedule`]) and handed to the outputs in catalog then path order, so every output is
//! the same whatever the thread count; with the catalog's evidence, its votes counted first
//! ([`votes`]).

pub mod file;
pub mod names;
pub mod schedule;
pub mod spill;
pub mod votes;
pub mod walk;

use std::path::{Path, PathBuf};

use crate::classify::catalog;
use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::Plan;
use crate::git::Repo;
use crate::outcome::{Catalog, FileResult, Run, RunMeta};
use crate::source::connector::plan_owned;
use crate::yaml::Reuse;
use names::connector_names;
use schedule::stream;
use votes::{counted, quiet, run_voting};
use walk::CatalogFile;
use walk::Work;

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
                        left_out: w.left_out,
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
                            place: out.work.len(),
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
                        left_out: Vec::new(),
                    });
                }
            }
        }
        out
    }

    /// What the walk could not read (a folder, a file it refused), as [`RunMeta`] reports it
    /// at the end of the run.
    pub fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// The OpenAPI documents found, as printed, in walk order.
    pub fn documents(&self) -> Vec<&str> {
        use crate::source::kind::Source as _;
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
                    // `check`, and not that a document counts.
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
        // by content as a full run finds it, whatever the main file is named.
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
        stream(&work, &selected, &names, opts, meta, sink, None)
    }
}

/// Parses, classifies and plans one file's text, then checks the edited text before any
/// route may use it: it must parse, hold the original's data plus exactly the
/// planned `effects`, and plan nothing more. An edit that fails is dropped and its action
/// reported with why; the file's other edits go on. Pure: the same text and options always
/// give the same plan, which is what makes a rerun after applying the patch empty.
///
/// The text is the whole catalog here: what it declares is the catalog's evidence, as a run
/// over a folder of this one file would count it.
pub fn plan(text: &str, opts: &Options) -> Result<Plan, Error> {
    if opts.catalog_evidence && opts.votes.is_none() {
        // Planned once quietly to count: this one text is not worth the in-place route of a
        // run (`run_voting`). Its tree is parsed once.
        let quiet = quiet(opts);
        let mut counter = catalog::Counter::default();
        let mut tree = Vec::new();
        let spill = Reuse::Spill(&mut tree);
        let first = plan_owned(text.to_owned(), &quiet, None, None, spill, &mut |_, _| {});
        if let Ok(p) = first {
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
        let spilled = Reuse::Spilled(&tree);
        return plan_owned(text.to_owned(), &with, None, None, spilled, &mut |_, _| {});
    }
    plan_owned(
        text.to_owned(),
        opts,
        None,
        None,
        Reuse::Parse,
        &mut |_, _| {},
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::{Group, RuleSet};
    use crate::fix::options::Progress;

    /// The names a file's actions are read among are its actions' names: an alias item, a
    /// merge-only item or an id that is no string must not make a prefix of their own.
    #[test]
    fn a_files_name_group_is_read_from_its_actions_only() {
        let text = "- &one\n  actionId: acme_contact_get\n- actionId: acme_deal_list\n- <<: *one\n- *one\n- actionId: 1\n- actionId: true\n";
        let opts = Options::new(RuleSet::builtin().unwrap());
        let parsed = crate::source::connector::read::parse_file(text).unwrap();
        let ids: Vec<&str> = parsed.actions.iter().map(|s| s.view.id.as_str()).collect();
        assert_eq!(ids, ["acme_contact_get", "acme_deal_list"]);
        let group = plan(text, &opts).unwrap().group;
        assert_eq!(group, Group::learn(ids, &opts.rules.lexicon));
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

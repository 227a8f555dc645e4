//! Checks of the command line made before anything runs, in one place: what the catalogs
//! are, and where outputs may go. A command lists its outputs; a new output or a new rule
//! goes here.

use std::path::{Component, Path, PathBuf};

use catalog_effects::error::{Error, Result};
use catalog_effects::run::walk;

use super::out;

/// With no catalog named (on the command line or in catalog-effects.toml), the current
/// folder: an installed binary looked for this repository's `catalogs/demo` wherever it ran.
/// A folder without connector files is refused with what to do.
const DEFAULT_CATALOG: &str = ".";

/// The catalogs to run on: those given (or the current folder), each walked once. A catalog
/// inside another one given (`backfill . x`) is dropped with a warning: its files would be
/// read, reported and patched twice, and a patch that changes a file twice does not apply.
/// A path that does not exist is kept, for the run to report.
pub fn catalogs(given: &[PathBuf]) -> Vec<PathBuf> {
    if given.is_empty() {
        return vec![PathBuf::from(DEFAULT_CATALOG)];
    }
    let resolved: Vec<Option<PathBuf>> = given.iter().map(|p| p.canonicalize().ok()).collect();
    let mut kept = Vec::new();
    for (i, path) in given.iter().enumerate() {
        let Some(me) = &resolved[i] else {
            kept.push(path.clone());
            continue;
        };
        // Inside another catalog given, or the same one given again earlier.
        let outer = resolved.iter().enumerate().find(|&(j, other)| {
            other
                .as_ref()
                .is_some_and(|o| j != i && me.starts_with(o) && (me != o || j < i))
        });
        match outer {
            Some((j, _)) => out::eprint(&format!(
                "warning: {}: inside catalog {}, walked once\n",
                path.display(),
                given[j].display()
            )),
            None => kept.push(linked_file(path)),
        }
    }
    kept
}

/// A document named through a symlink (`api.yaml -> spec/openapi.yaml`) is the file the link
/// names: the patch must name the file git tracks (a patch of the link's path does not
/// apply), and `--write` replaces that file, never the link. Followed link by link from the
/// link's own folder, so the path stays as relative as the one typed; a link to a folder,
/// or to nothing, is left as it is (the walk never follows links).
fn linked_file(path: &Path) -> PathBuf {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        let Ok(target) = std::fs::read_link(&at) else {
            break;
        };
        at = match at.parent() {
            Some(dir) if target.is_relative() => dir.join(target),
            _ => target,
        };
    }
    if at != path && at.metadata().is_ok_and(|m| m.is_file()) {
        at
    } else {
        path.to_path_buf()
    }
}

/// Where an output path came from. What the user typed may go anywhere and through any
/// link they made; what a configuration file or a default names stays inside the
/// repository and never follows a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    CommandLine,
    Config,
    Default,
}

/// One file a command is about to write.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The flag that names it (`--report`), as the refusal says it.
    pub flag: &'a str,
    pub path: &'a Path,
    pub origin: Origin,
    /// The command exists to write the baseline (`check --write-baseline`): this output may
    /// replace it.
    pub writes_baseline: bool,
}

impl<'a> Target<'a> {
    pub fn given(flag: &'a str, path: &'a Path) -> Target<'a> {
        Target {
            flag,
            path,
            origin: Origin::CommandLine,
            writes_baseline: false,
        }
    }

    pub fn from(flag: &'a str, path: &'a Path, origin: Origin) -> Target<'a> {
        Target {
            origin,
            ..Target::given(flag, path)
        }
    }
}

/// What the outputs of one run are checked against.
#[derive(Debug, Default)]
pub struct Guard<'a> {
    pub catalogs: &'a [PathBuf],
    /// The baselines in force: `--baseline`, the configuration's `baseline`.
    pub baselines: Vec<(&'a str, &'a Path)>,
    /// Other files the run reads (`audit`'s tool list): never replaced by its outputs.
    pub inputs: Vec<(&'a str, &'a Path)>,
    /// The configuration file, whose folder's repository a configured path stays inside.
    pub config: Option<&'a Path>,
}

impl<'a> Guard<'a> {
    /// The guard of a catalog command, with the configuration's baseline.
    pub fn new(catalogs: &'a [PathBuf], config: &'a super::config::Config) -> Guard<'a> {
        Guard {
            catalogs,
            baselines: config
                .baseline
                .as_deref()
                .map(|b| ("`baseline` of catalog-effects.toml", b))
                .into_iter()
                .collect(),
            inputs: Vec::new(),
            config: config.file.as_deref(),
        }
    }
}

/// The one rule for every output path of every command, checked before
/// anything is read or written. An output is refused when it would replace:
/// - a connector file (`--report cat/x/x.s1.yaml`, `annotations -o x.s1.yaml`);
/// - the baseline, unless writing it is the command's purpose: a report written over it
///   makes every finding "in the baseline", so a new one passes;
/// - another input of the run, or another output of it (`--patch f --report f`);
/// - a file reached through a symlink the repository commits (`reports/coverage.csv ->
///   ~/.bashrc` in a cloned repository), or through any symlink when the path was not
///   typed by the user (a default or a configuration value);
/// - a file outside the repository when the path comes from a configuration file
///   (`report = "../home/.profile"`).
///
/// `-` (stdout) and files that are not regular (`/dev/null`, a pipe) are never in the way
/// of each other. The refusal names the flag, the path and why.
pub fn check_outputs(guard: &Guard, outputs: &[Target]) -> Result<()> {
    let roots: Vec<PathBuf> = guard
        .catalogs
        .iter()
        .filter_map(|c| c.canonicalize().ok())
        .collect();
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for target in outputs {
        let (flag, path) = (target.flag, target.path);
        if path.as_os_str() == "-" {
            continue;
        }
        let refuse = |why: String| Err(Error::new(format!("{flag} {why}")).in_file(path));
        if let Some(why) = through_symlink(target) {
            return refuse(why);
        }
        if target.origin == Origin::Config
            && let Some(why) = outside_repository(path, guard.config)
        {
            return refuse(why);
        }
        if path.metadata().is_ok_and(|m| !m.is_file()) {
            continue;
        }
        let Some(at) = resolve(path) else { continue };
        if at
            .file_name()
            .is_some_and(|n| catalog_effects::source::claiming(&n.to_string_lossy(), &at).is_some())
        {
            return refuse(match roots.iter().find(|r| at.starts_with(r)) {
                Some(root) => format!(
                    "would write over a connector file of the catalog {}; choose another file",
                    root.display()
                ),
                None => "would write over a connector file (its name is a connector file's); choose another file".to_owned(),
            });
        }
        let same = |other: &Path| resolve(other).is_some_and(|o| o == at);
        if !target.writes_baseline
            && let Some((whose, _)) = guard.baselines.iter().find(|(_, b)| same(b))
        {
            return refuse(format!(
                "would overwrite the baseline ({whose}): the run would then find every finding in it, and a new one would pass; a baseline changes only through `check --write-baseline`; choose another file"
            ));
        }
        if let Some((what, _)) = guard.inputs.iter().find(|(_, p)| same(p)) {
            return refuse(format!(
                "would overwrite {what}, which this run reads; choose another file"
            ));
        }
        if let Some((other, _)) = seen.iter().find(|(_, p)| *p == at) {
            return Err(Error::new(format!(
                "{other} and {flag} are the same file: one would overwrite the other"
            ))
            .in_file(path));
        }
        seen.push((flag, at));
    }
    Ok(())
}

/// Why `target` may not be written through a symlink on its way, if it may not: one the
/// repository commits (a clone brings it, nobody here chose it), or any one at all on a path
/// the user did not type.
fn through_symlink(target: &Target) -> Option<String> {
    let absolute = std::env::current_dir().ok()?.join(target.path);
    let mut at = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::ParentDir => {
                at.pop();
                continue;
            }
            Component::CurDir => continue,
            _ => at.push(part),
        }
        let is_link = std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            continue;
        }
        let shown = walk::shown(&at, std::env::current_dir().ok().as_deref());
        let committed = committed_link(&at);
        if committed {
            return Some(format!(
                "goes through {shown}, a symlink the repository commits: a checkout could point it anywhere; write to a real file"
            ));
        }
        if target.origin != Origin::CommandLine {
            let from = match target.origin {
                Origin::Config => "catalog-effects.toml",
                _ => "a default (no flag given)",
            };
            return Some(format!(
                "goes through {shown}, a symlink, and the path comes from {from}: only a path given on the command line is written through a symlink"
            ));
        }
        // A link the user made and named (`/dev/stdout`): what it points to is theirs, but
        // a link the repository commits further down is still not.
    }
    None
}

/// Whether the symlink `link` is a file its repository tracks. The link itself is looked up,
/// not what it points to (a link to a folder would resolve out of the repository).
fn committed_link(link: &Path) -> bool {
    let (Some(parent), Some(name)) = (link.parent(), link.file_name()) else {
        return false;
    };
    let Some(repo) = catalog_effects::git::Repo::discover(parent) else {
        return false;
    };
    let Ok(parent) = parent.canonicalize() else {
        return false;
    };
    let Ok(rel) = parent
        .join(name)
        .strip_prefix(repo.workdir())
        .map(Path::to_path_buf)
    else {
        return false;
    };
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    repo.tracks(&rel.join("/"))
}

/// Why a path from the configuration file leaves the repository the file sits in (its
/// folder when it is in none), if it does.
fn outside_repository(path: &Path, config: Option<&Path>) -> Option<String> {
    let folder = match config?.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let root = match catalog_effects::git::Repo::discover(&folder) {
        Some(repo) => repo.workdir().to_path_buf(),
        None => folder.canonicalize().ok()?,
    };
    let at = resolve(path)?;
    (!at.starts_with(&root)).then(|| {
        format!(
            "from catalog-effects.toml is outside the repository ({}): a configuration may only write inside it; give the path on the command line to write there",
            root.display()
        )
    })
}

/// `path` made absolute through its deepest existing folder, so an output that does not
/// exist yet compares with the catalogs as it will once written.
fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let absolute = std::env::current_dir().ok()?.join(path);
    let mut rest = Vec::new();
    let mut dir = absolute.as_path();
    loop {
        if let Ok(mut p) = dir.canonicalize() {
            for part in rest.iter().rev() {
                match part {
                    Component::ParentDir => {
                        p.pop();
                    }
                    Component::Normal(n) => p.push(n),
                    _ => {}
                }
            }
            return Some(p);
        }
        rest.push(dir.components().next_back()?);
        dir = dir.parent()?;
    }
}

/// Worker threads: at most one per core. Threads beyond the cores add nothing to work that
/// is all computation, and tens of thousands of them abort the process
/// (`--jobs 20000` exited 134).
pub fn jobs(asked: Option<usize>) -> Result<Option<usize>> {
    match asked {
        Some(0) => Err(Error::new("--jobs must be at least 1")),
        Some(n) => {
            let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
            Ok(Some(n.min(cores)))
        }
        None => Ok(None),
    }
}

/// Refuses a `--heuristics` folder holding a rule file that is not a regular file: reading
/// a FIFO named `x.yaml` waits for a writer forever (a run hung on one). Refuses too an
/// id given twice in the folder (two rules, or two senses, of one id): the loader kept the
/// last one silently. A built-in id is meant to be replaced, once.
pub fn heuristics_dir(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(()); // the loader reports it, with its own message
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    // (section, id) to where it was first given.
    let mut seen: std::collections::BTreeMap<(String, String), (PathBuf, usize)> =
        Default::default();
    for path in files {
        let rules = path.extension().is_some_and(|x| x == "yaml" || x == "yml");
        if !rules {
            continue;
        }
        if !path.metadata().is_ok_and(|m| m.is_file()) {
            return Err(Error::new(
                "not a regular file: rule files are read from regular files only",
            )
            .in_file(path));
        }
        // What cannot be read is the loader's to report, with its own message.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(tree) = catalog_effects::yaml::tree::parse(&text) else {
            continue;
        };
        for &root in &tree.roots {
            for (key, list) in tree.entries(root).into_iter().flatten() {
                let Some(section) = tree.scalar(key) else {
                    continue;
                };
                for item in tree.items(list).into_iter().flatten() {
                    let Some((_, id)) = tree.entry(item, "id") else {
                        continue;
                    };
                    let Some(name) = tree.scalar(id) else {
                        continue;
                    };
                    let line = tree.line(id);
                    let slot = (section.to_owned(), name.to_owned());
                    if let Some((first, first_line)) = seen.get(&slot) {
                        let column = tree.column(tree.node(id).start()) + 1;
                        return Err(Error::new(format!(
                            "`{name}` is given twice in `{section}` (first at {}:{first_line}): only one would be used; keep one",
                            first.display()
                        ))
                        .in_file(&path)
                        .at(line, column));
                    }
                    seen.insert(slot, (path.clone(), line));
                }
            }
        }
    }
    Ok(())
}

//! Checks of the command line made before anything runs, in one place: what the catalogs
//! are, and where outputs may go. A command lists its outputs; a new output or a new rule
//! goes here.

use std::path::{Component, Path, PathBuf};

use catalog_effects::error::{Error, Result};

use super::out;

const DEFAULT_CATALOG: &str = "catalogs/demo";

/// The catalogs to run on: those given (or the demo catalog), each walked once. A catalog
/// inside another one given (`backfill . x`) is dropped with a warning: its files would be
/// read, reported and patched twice, and a patch that changes a file twice does not apply
/// (issue 13). A path that does not exist is kept, for the run to report.
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
            None => kept.push(path.clone()),
        }
    }
    kept
}

/// Refuses outputs that would overwrite a catalog's connector file, or each other (issue
/// 13: `--report cat/x/x.s1.yaml` replaced a connector file with CSV; `--patch f --report f`
/// lost the patch). `-` (stdout) and files that are not regular (`/dev/null`) are never in
/// the way.
pub fn check_outputs(catalogs: &[PathBuf], outputs: &[(&str, &Path)]) -> Result<()> {
    let roots: Vec<PathBuf> = catalogs
        .iter()
        .filter_map(|c| c.canonicalize().ok())
        .collect();
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for &(flag, path) in outputs {
        if path.as_os_str() == "-" || path.metadata().is_ok_and(|m| !m.is_file()) {
            continue;
        }
        let Some(at) = resolve(path) else { continue };
        let name = at.file_name().map(|n| n.to_string_lossy().into_owned());
        if let Some(root) = roots.iter().find(|r| at.starts_with(r))
            && name
                .as_deref()
                .is_some_and(|n| catalog_effects::source::claiming(n, &at).is_some())
        {
            return Err(Error::new(format!(
                "{flag} would write over a connector file of the catalog {}; choose another file",
                root.display()
            ))
            .in_file(path));
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
/// is all computation, and tens of thousands of them abort the process (issue 13:
/// `--jobs 20000` exited 134).
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
/// a FIFO named `x.yaml` waits for a writer forever (issue 13: the run hung).
pub fn heuristics_dir(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(()); // the loader reports it, with its own message
    };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let rules = path.extension().is_some_and(|x| x == "yaml" || x == "yml");
        if rules && !path.metadata().is_ok_and(|m| m.is_file()) {
            return Err(Error::new(
                "not a regular file: rule files are read from regular files only",
            )
            .in_file(path));
        }
    }
    Ok(())
}

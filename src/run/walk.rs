//! Walk: find the files a catalog holds (connector files by name, the others a source claims
//! by content), in a stable order.
//!
//! Symlinks are never followed: a link can point out of the catalog or into a loop, and a
//! link to a file inside the catalog would make its actions appear twice.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::source::connector::is_connector_file;

/// A connector file found in a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogFile {
    pub path: PathBuf,
    /// Relative to the catalog directory, `/`-separated.
    pub rel: String,
    /// The folder part of `rel` (empty for the catalog root).
    pub folder: String,
}

/// A file to process: its catalog, where the walk found it, its path in patches and its
/// path as printed.
#[derive(Debug)]
pub struct Work {
    /// Its place in the run's walk, over every catalog.
    pub place: usize,
    pub catalog: usize,
    pub file: CatalogFile,
    pub patch_path: String,
    pub shown: String,
    pub in_repo: bool,
}

/// What a walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// Sorted by `rel`.
    pub files: Vec<CatalogFile>,
    /// Directories that could not be read.
    pub errors: Vec<Error>,
    /// Symlinks left alone, relative to the catalog.
    pub skipped_links: Vec<String>,
    /// Server source left out (generated, or a test's), relative to the catalog, and why.
    pub left_out: Vec<(String, &'static str)>,
    /// Files and folders left out by an [`Exclude`] pattern.
    pub excluded: usize,
}

/// Paths a walk leaves out (`exclude` in catalog-effects.toml, `--exclude`): each a path or
/// a glob, where `*` and `?` match within one name and `**` any number of folders; a folder
/// matched leaves out everything in it. Patterns are resolved once to absolute paths, `.`
/// and `..` taken by name, so they match wherever the tool runs from.
///
/// A repository holds more than its catalogs: test fixtures (broken on purpose), examples,
/// vendored documents. Run at this repository's root, `backfill` walked its fixtures and
/// failed on them.
#[derive(Debug, Clone, Default)]
pub struct Exclude {
    patterns: Vec<Vec<String>>,
}

impl Exclude {
    /// `patterns`, each relative to its folder (a relative folder is taken from the
    /// current directory).
    pub fn new<'a>(patterns: impl IntoIterator<Item = (&'a Path, &'a Path)>) -> Exclude {
        let cwd = std::env::current_dir().unwrap_or_default();
        Exclude {
            patterns: patterns
                .into_iter()
                .map(|(folder, pattern)| segments(&cwd.join(folder).join(pattern)))
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Whether `path` (absolute, or relative to the current directory) is left out: a
    /// pattern matches it or one of its folders.
    pub fn excludes(&self, path: &Path) -> bool {
        let cwd = std::env::current_dir().unwrap_or_default();
        let path = segments(&cwd.join(path));
        self.patterns.iter().any(|p| matches_prefix(p, &path))
    }

    /// The patterns that leave out something below `root`, not `root` itself: a catalog
    /// named inside an excluded folder is read, as it was asked for.
    fn below(&self, root: &Path) -> Below {
        let cwd = std::env::current_dir().unwrap_or_default();
        let root = segments(&cwd.join(root));
        let patterns = self
            .patterns
            .iter()
            .filter(|p| !matches_prefix(p, &root))
            .cloned()
            .collect();
        Below { root, patterns }
    }
}

/// The patterns of an [`Exclude`] that apply below one catalog, and the catalog's absolute
/// names, so each entry is matched without asking for the current directory again.
#[derive(Debug, Default)]
struct Below {
    root: Vec<String>,
    patterns: Vec<Vec<String>>,
}

impl Below {
    /// Whether the entry at `rel` (below the catalog, `/`-separated) is left out.
    fn excludes(&self, rel: &str) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        let mut path = self.root.clone();
        path.extend(rel.split('/').map(str::to_owned));
        self.patterns.iter().any(|p| matches_prefix(p, &path))
    }
}

/// An absolute path's names, with `.` dropped and `..` taken by name.
fn segments(path: &Path) -> Vec<String> {
    use std::path::Component;
    let mut out: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(n) => out.push(n.to_string_lossy().into_owned()),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// Whether `pattern` matches `path` or one of its folders (a leading part of it).
fn matches_prefix(pattern: &[String], path: &[String]) -> bool {
    match pattern.split_first() {
        None => true,
        Some((first, rest)) if first == "**" => {
            (0..=path.len()).any(|skip| matches_prefix(rest, &path[skip..]))
        }
        Some((first, rest)) => path
            .split_first()
            .is_some_and(|(name, more)| glob(first, name) && matches_prefix(rest, more)),
    }
}

/// Whether one name matches one pattern name: `*` any run of characters, `?` one, the rest
/// literally.
fn glob(pattern: &str, name: &str) -> bool {
    let (pattern, name): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), name.chars().collect());
    // Two pointers and one backtrack point: linear in practice, and no recursion a long
    // name could deepen.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// `path` as the tool prints it: relative to `cwd` when it is below it, else as given, with
/// `.` components dropped (`./catalog/x` is `catalog/x`) and, below `cwd`, `..` resolved
/// (`../../connectors/x` from inside `connectors` is `x`); the current directory itself is
/// `.`. For display only: `..` is resolved by name, never by following links.
pub fn shown(path: &Path, cwd: Option<&Path>) -> String {
    use std::path::Component;
    let mut below = path.to_path_buf();
    if let Some(cwd) = cwd {
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            cwd.join(path)
        };
        let mut resolved = PathBuf::new();
        for c in absolute.components() {
            match c {
                Component::ParentDir => {
                    resolved.pop();
                }
                Component::CurDir => {}
                other => resolved.push(other),
            }
        }
        if let Ok(rest) = resolved.strip_prefix(cwd) {
            below = rest.to_path_buf();
        }
    }
    let clean: PathBuf = below
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    if clean.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        clean.to_string_lossy().into_owned()
    }
}

/// Lists the connector files under `root`. Fails only when `root` itself is unusable.
///
/// Directories are read level by level, each level's directories in parallel: a million
/// actions sit in some 20,000 folders, and reading them one by one kept the second core
/// idle for a third of a second before any file was parsed. Levels, not recursion, so a
/// deep tree cannot exhaust a worker's stack.
pub fn walk(root: &Path, claims: Claims) -> Result<Walk> {
    walk_excluding(root, &Exclude::default(), claims)
}

/// Whether a file (its name, its path) belongs to a catalog: the sources above the walk say
/// (`source::claiming`), so the walk knows no kind of catalog.
pub type Claims = fn(&str, &Path) -> bool;

/// [`walk`], leaving out what `exclude` matches below `root`. A catalog named by one of its
/// files is that file, whatever the patterns say.
pub fn walk_excluding(root: &Path, exclude: &Exclude, claims: Claims) -> Result<Walk> {
    let meta = std::fs::metadata(root)
        .map_err(|e| Error::new(format!("catalog not found: {e}")).in_file(root))?;
    if !meta.is_dir() {
        return single_file(root, &meta, claims);
    }
    let exclude = exclude.below(root);
    let mut out = Walk::default();
    let mut level = vec![(root.to_path_buf(), String::new())];
    while !level.is_empty() {
        let scans: Vec<Scan> = level
            .into_par_iter()
            .map(|(dir, rel_dir)| scan(&dir, &rel_dir, &exclude, claims))
            .collect();
        level = Vec::new();
        for s in scans {
            out.files.extend(s.files);
            out.errors.extend(s.errors);
            out.skipped_links.extend(s.links);
            out.left_out.extend(s.left_out);
            out.excluded += s.excluded;
            level.extend(s.subdirs);
        }
    }
    out.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.skipped_links.sort();
    out.left_out.sort();
    out.errors.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// A catalog named by one of its files (`backfill api/openapi.yaml`): that file, when a
/// source claims it, found in its folder.
fn single_file(root: &Path, meta: &std::fs::Metadata, claims: Claims) -> Result<Walk> {
    let name = root
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_owned)
        .unwrap_or_default();
    if !meta.is_file() || !claims(&name, root) {
        return Err(Error::new(
            "catalog is not a directory, nor an OpenAPI document (a YAML or JSON file with a top-level `openapi` or `swagger` key)",
        )
        .in_file(root));
    }
    Ok(Walk {
        files: vec![CatalogFile {
            path: root.to_path_buf(),
            rel: name,
            folder: String::new(),
        }],
        ..Walk::default()
    })
}

/// The folder a catalog's paths are relative to: the catalog itself, or the folder of a
/// catalog named by one of its files.
pub fn catalog_dir(root: &Path) -> PathBuf {
    if root.is_file() {
        match root.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    } else {
        root.to_path_buf()
    }
}

/// What one directory holds.
#[derive(Default)]
struct Scan {
    files: Vec<CatalogFile>,
    errors: Vec<Error>,
    links: Vec<String>,
    left_out: Vec<(String, &'static str)>,
    /// Directories to read next, with their paths relative to the catalog.
    subdirs: Vec<(PathBuf, String)>,
    excluded: usize,
}

fn scan(dir: &Path, rel_dir: &str, exclude: &Below, claims: Claims) -> Scan {
    let mut out = Scan::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            out.errors
                .push(Error::new(format!("cannot read directory: {e}")).in_file(dir));
            return out;
        }
    };
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                out.errors
                    .push(Error::new(format!("cannot read directory: {e}")).in_file(dir));
                continue;
            }
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if rel_dir.is_empty() {
            name.clone()
        } else {
            format!("{rel_dir}/{name}")
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if exclude.excludes(&rel) {
            out.excluded += 1;
            continue;
        }
        // A name that is not UTF-8 cannot be written into a patch as git would (the
        // lossy `rel` names another file, and `git apply` then rejects the whole
        // patch): such a connector file, or a folder that may hold some, is reported
        // and skipped, never guessed.
        let walked_dir = kind.is_dir() && !name.starts_with('.');
        if entry.file_name().to_str().is_none()
            && !kind.is_symlink()
            && (walked_dir || is_connector_file(&name))
        {
            out.errors.push(
                Error::new("file name is not UTF-8: skipped (rename it)").in_file(entry.path()),
            );
            continue;
        }
        if kind.is_symlink() {
            out.links.push(rel);
        } else if kind.is_dir() {
            // Version-control and tool folders hold no connectors.
            if !name.starts_with('.') && name != "node_modules" && name != "target" {
                out.subdirs.push((entry.path(), rel));
            }
        } else if kind.is_file() && claims(&name, &entry.path()) {
            if let Some(why) = crate::source::left_out(&name, &rel) {
                out.left_out.push((rel, why));
                continue;
            }
            out.files.push(CatalogFile {
                path: entry.path(),
                rel,
                folder: rel_dir.to_owned(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::source::claims;

    #[test]
    fn finds_connector_files_sorted_and_skips_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("b/x")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        for f in [
            "b/b.connector.s1.yaml",
            "b/b.users.s1.partial.yaml",
            "b/x/y.s1.yaml",
            "a.s1.yaml",
            "notes.yaml",
            ".git/z.s1.yaml",
        ] {
            std::fs::write(root.join(f), "x: 1\n").unwrap();
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root, root.join("b/loop")).unwrap();
            std::os::unix::fs::symlink("/etc/hostname", root.join("out.s1.yaml")).unwrap();
        }
        let w = walk(root, claims).unwrap();
        let rels: Vec<&str> = w.files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(
            rels,
            [
                "a.s1.yaml",
                "b/b.connector.s1.yaml",
                "b/b.users.s1.partial.yaml",
                "b/x/y.s1.yaml"
            ]
        );
        assert_eq!(w.files[1].folder, "b");
        #[cfg(unix)]
        assert_eq!(w.skipped_links, ["b/loop", "out.s1.yaml"]);
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_names_are_errors_not_lossy_paths() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(OsStr::from_bytes(b"bad\xff.s1.yaml")), "x: 1\n").unwrap();
        std::fs::write(root.join(OsStr::from_bytes(b"notes\xff.txt")), "x\n").unwrap();
        std::fs::create_dir(root.join(OsStr::from_bytes(b"dir\xfe"))).unwrap();
        std::fs::write(root.join("ok.s1.yaml"), "x: 1\n").unwrap();
        let w = walk(root, claims).unwrap();
        let rels: Vec<&str> = w.files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, ["ok.s1.yaml"]);
        let mut errors: Vec<String> = w.errors.iter().map(ToString::to_string).collect();
        errors.sort();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors
                .iter()
                .all(|e| e.ends_with(": file name is not UTF-8: skipped (rename it)"))
        );
    }

    #[test]
    fn shown_paths_are_relative_to_the_current_directory() {
        let cwd = Path::new("/work/repo");
        let shown = |p: &str| shown(Path::new(p), Some(cwd));
        assert_eq!(shown("/work/repo/catalog/a.s1.yaml"), "catalog/a.s1.yaml");
        assert_eq!(shown("/work/repo"), ".");
        assert_eq!(shown("./catalog/./x"), "catalog/x");
        assert_eq!(shown("../other/x"), "../other/x");
        assert_eq!(shown("../repo/catalog/x"), "catalog/x");
        assert_eq!(shown("../../work/repo/a"), "a");
        assert_eq!(shown("/elsewhere/x"), "/elsewhere/x");
        assert_eq!(shown("."), ".");
    }

    #[test]
    fn globs_match_within_a_name_and_double_stars_across_folders() {
        for (pattern, name, matches) in [
            ("*.draft.s1.yaml", "a.draft.s1.yaml", true),
            ("*.draft.s1.yaml", "a.s1.yaml", false),
            ("w?p", "wip", true),
            ("w?p", "wp", false),
            ("é?", "éé", true),
            ("*", "", true),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "aXbY", false),
        ] {
            assert_eq!(glob(pattern, name), matches, "{pattern} {name}");
        }
        let ex = Exclude::new([
            (Path::new("/repo"), Path::new("connectors/drafts")),
            (Path::new("/repo"), Path::new("**/wip")),
            (Path::new("/repo/x"), Path::new("../tests/")),
        ]);
        assert!(ex.excludes(Path::new("/repo/connectors/drafts")));
        assert!(ex.excludes(Path::new("/repo/connectors/drafts/a/b.s1.yaml")));
        assert!(!ex.excludes(Path::new("/repo/connectors/drafts2/b.s1.yaml")));
        assert!(ex.excludes(Path::new("/repo/a/b/wip/c.s1.yaml")));
        assert!(ex.excludes(Path::new("/repo/wip")));
        assert!(!ex.excludes(Path::new("/elsewhere/wip")));
        assert!(ex.excludes(Path::new("/repo/tests/fixtures/x.s1.yaml")));
        // Below a catalog, not the catalog itself: one named inside an excluded folder is
        // read.
        let below = ex.below(Path::new("/repo/tests/fixtures"));
        assert!(!below.excludes("x.s1.yaml"));
        assert!(below.excludes("wip/x.s1.yaml"));
    }

    #[test]
    fn a_missing_catalog_is_an_error() {
        let e = walk(Path::new("/no/such/catalog"), claims).unwrap_err();
        assert!(e.to_string().contains("/no/such/catalog"));
    }
}

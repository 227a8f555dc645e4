//! Walk: find the connector files of a catalog directory, in a stable order.
//!
//! Symlinks are never followed: a link can point out of the catalog or into a loop, and a
//! link to a file inside the catalog would make its actions appear twice.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A connector file found in a catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogFile {
    pub path: PathBuf,
    /// Relative to the catalog directory, `/`-separated.
    pub rel: String,
    /// The folder part of `rel` (empty for the catalog root).
    pub folder: String,
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
}

/// True for the names this tool edits: `*.s1.yaml` and `*.s1.partial.yaml`.
pub fn is_connector_file(name: &str) -> bool {
    name.ends_with(".s1.yaml") || name.ends_with(".s1.partial.yaml")
}

/// Lists the connector files under `root`. Fails only when `root` itself is unusable.
pub fn walk(root: &Path) -> Result<Walk> {
    let meta = std::fs::metadata(root)
        .map_err(|e| Error::new(format!("catalog not found: {e}")).in_file(root))?;
    if !meta.is_dir() {
        return Err(Error::new("catalog is not a directory").in_file(root));
    }
    let mut out = Walk::default();
    let mut pending = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel_dir)) = pending.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                out.errors
                    .push(Error::new(format!("cannot read directory: {e}")).in_file(&dir));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    out.errors
                        .push(Error::new(format!("cannot read directory: {e}")).in_file(&dir));
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
            // A name that is not UTF-8 cannot be written into a patch as git would (the
            // lossy `rel` names another file, and `git apply` then rejects the whole
            // patch): such a connector file, or a folder that may hold some, is reported
            // and skipped, never guessed (issue 7).
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
                out.skipped_links.push(rel);
            } else if kind.is_dir() {
                // Version-control and tool folders hold no connectors.
                if !name.starts_with('.') && name != "node_modules" && name != "target" {
                    pending.push((entry.path(), rel));
                }
            } else if kind.is_file() && is_connector_file(&name) {
                out.files.push(CatalogFile {
                    path: entry.path(),
                    rel,
                    folder: rel_dir.clone(),
                });
            }
        }
    }
    out.files.sort_by(|a, b| a.rel.cmp(&b.rel));
    out.skipped_links.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let w = walk(root).unwrap();
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
        let w = walk(root).unwrap();
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
    fn a_missing_catalog_is_an_error() {
        let e = walk(Path::new("/no/such/catalog")).unwrap_err();
        assert!(e.to_string().contains("/no/such/catalog"));
    }
}

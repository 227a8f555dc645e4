//! Writing edited files back: each file is replaced atomically, or left exactly as it was.
//!
//! The new text goes to a temporary file in the same directory (so the rename cannot cross
//! file systems), is flushed to disk, takes the original's permissions, and replaces the
//! original by rename. A file whose content changed since it was planned is not touched.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Replaces `path` with `new` if its current content is still `expected`.
pub fn replace_if_unchanged(path: &Path, expected: &str, new: &str) -> Result<()> {
    let current = fs::read(path)
        .map_err(|e| Error::new(format!("cannot re-read before writing: {e}")).in_file(path))?;
    if current != expected.as_bytes() {
        return Err(
            Error::new("changed on disk since it was planned: not overwritten; run again")
                .in_file(path),
        );
    }
    // A rename needs only the directory to be writable, so a file its owner made read-only
    // would be replaced anyway. Opening it for writing (no truncation, nothing written)
    // asks the system whether this user may write it (issue 7: an unwritable file fails).
    fs::OpenOptions::new().write(true).open(path).map_err(|e| {
        Error::new(format!("not writable: {e}; the file is unchanged")).in_file(path)
    })?;
    write_atomic(path, new.as_bytes())
}

/// Writes `bytes` to `path` through a temporary file and a rename, keeping permissions.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let err = |what: &str, e: std::io::Error| {
        Error::new(format!("{what}: {e}; the file is unchanged")).in_file(path)
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let perms = fs::metadata(path).map(|m| m.permissions()).ok();
    let tmp = temp_path(dir, path);
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| err("cannot create a temporary file", e))?;
        f.write_all(bytes).map_err(|e| err("cannot write", e))?;
        f.sync_all().map_err(|e| err("cannot flush to disk", e))?;
        if let Some(p) = perms {
            fs::set_permissions(&tmp, p).map_err(|e| err("cannot keep permissions", e))?;
        }
        fs::rename(&tmp, path).map_err(|e| err("cannot replace", e))?;
        // The rename is durable only once the directory entry is.
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn temp_path(dir: &Path, path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    dir.join(format!(
        ".{name}.catalog-effects.{}.{unique}.tmp",
        std::process::id()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.s1.yaml");
        fs::write(&p, "old\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        }
        replace_if_unchanged(&p, "old\n", "new\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&p).unwrap().permissions().mode() & 0o777,
                0o640
            );
        }
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_not_replaced() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.s1.yaml");
        fs::write(&p, "old\n").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o444)).unwrap();
        if fs::OpenOptions::new().write(true).open(&p).is_ok() {
            return; // root writes any file: tests/robustness.rs checks this as `nobody`.
        }
        let e = replace_if_unchanged(&p, "old\n", "new\n").unwrap_err();
        assert!(e.to_string().contains("not writable"), "{e}");
        assert_eq!(fs::read_to_string(&p).unwrap(), "old\n");
    }

    #[test]
    fn a_file_changed_since_planning_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.s1.yaml");
        fs::write(&p, "changed\n").unwrap();
        let e = replace_if_unchanged(&p, "old\n", "new\n").unwrap_err();
        assert!(e.to_string().contains("changed on disk"));
        assert_eq!(fs::read_to_string(&p).unwrap(), "changed\n");
    }
}

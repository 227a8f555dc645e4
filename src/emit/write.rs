//! Writing edited files back: each file is replaced atomically, or left exactly as it was.
//!
//! The new text goes to a temporary file in the same directory (so the rename cannot cross
//! file systems), created with the original's permissions (and owner and group) before any
//! byte is written, flushed to disk, and checked against the file once more right before
//! it replaces it by rename. A file whose content changed since it was planned is not
//! touched. Reports are streamed the same way ([`Staged`]), without the flush to disk.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Replaces `path` with `new` if its current content is still `expected` (the pieces one
/// after the other: the original as the edited text's stretches between its edits, so it
/// need not be built again), keeping its permissions, owner and group. Refused, and the
/// file left as it was: a file with other hard links (a rename would split them from it, silently; writing it in place could
/// leave all its names half-written if the run were killed), a file this user may not
/// write, a file whose owner or group cannot be kept, and a file that changed.
pub fn replace_if_unchanged(path: &Path, expected: &[&str], new: &str) -> Result<()> {
    replace_checked(path, expected, new, || {})
}

/// [`replace_if_unchanged`], with `meanwhile` run between the read-back and the rename:
/// where a concurrent writer's save lands in the tests.
fn replace_checked(
    path: &Path,
    expected: &[&str],
    new: &str,
    meanwhile: impl FnOnce(),
) -> Result<()> {
    let err = |what: String| Error::new(format!("{what}; the file is unchanged")).in_file(path);
    let meta = fs::symlink_metadata(path)
        .map_err(|e| Error::new(format!("cannot re-read before writing: {e}")).in_file(path))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Err(err(format!(
                "has {} other hard link(s): replacing it would split them from it and writing it in place is not atomic, so it is not written (apply the patch instead)",
                meta.nlink() - 1
            )));
        }
    }
    // A file nobody may write (0444) is its owner's word that it stays as it is: root may
    // write anything, so asking the system below let root edit it.
    if meta.permissions().readonly() {
        return Err(err(
            "is read-only (no write permission for anyone): not written; make it writable, or apply the patch".to_owned(),
        ));
    }
    // A rename needs only the directory to be writable, so a file its owner made read-only
    // would be replaced anyway. Opening it for writing (no truncation, nothing written)
    // asks the system whether this user may write it (an unwritable file fails).
    fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| err(format!("not writable: {e}")))?;
    let tmp = Temp::create(path, Some(&meta), true)?;
    #[cfg(target_os = "linux")]
    if let Some(file) = &tmp.file {
        copy_xattrs(path, file).map_err(|e| {
            err(format!(
                "cannot keep its extended attributes (ACLs, labels): {e}"
            ))
        })?;
    }
    tmp.fill(new.as_bytes(), true)?;
    // Checked once the new text is on disk, right before the rename, and only then: a
    // change made while it was written is kept (on a 9 MB file a check before
    // writing ran 25 ms too early, and a line appended then was lost). A changed file
    // costs a temporary file, removed when `tmp` drops.
    let read = unchanged(path, expected)?;
    meanwhile();
    tmp.replace_if_same(read)
}

/// Gives `to` the extended attributes of the file at `from`: its ACLs
/// (`system.posix_acl_access`), security labels and `user.*` attributes. The replacement is a
/// new file, which had none of them, so `--write` dropped them.
#[cfg(target_os = "linux")]
fn copy_xattrs(from: &Path, to: &fs::File) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::io::AsRawFd;
    let path = CString::new(from.as_os_str().as_bytes())?;
    let last = std::io::Error::last_os_error;
    // SAFETY (every call below): the path and names are NUL-terminated and live across the
    // call; each buffer is as long as the length given with it.
    let size = unsafe { libc::llistxattr(path.as_ptr(), std::ptr::null_mut(), 0) };
    if size <= 0 {
        return match size {
            0 => Ok(()),
            _ if last().raw_os_error() == Some(libc::ENOTSUP) => Ok(()),
            _ => Err(last()),
        };
    }
    let mut names = vec![0u8; size as usize];
    let size = unsafe { libc::llistxattr(path.as_ptr(), names.as_mut_ptr().cast(), names.len()) };
    if size < 0 {
        return Err(last());
    }
    names.truncate(size as usize);
    for name in names.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = CString::new(name)?;
        let len = unsafe { libc::lgetxattr(path.as_ptr(), name.as_ptr(), std::ptr::null_mut(), 0) };
        if len < 0 {
            return Err(last());
        }
        let mut value = vec![0u8; len as usize];
        let len = unsafe {
            libc::lgetxattr(
                path.as_ptr(),
                name.as_ptr(),
                value.as_mut_ptr().cast(),
                value.len(),
            )
        };
        if len < 0 {
            return Err(last());
        }
        let set = unsafe {
            libc::fsetxattr(
                to.as_raw_fd(),
                name.as_ptr(),
                value.as_ptr().cast(),
                len as usize,
                0,
            )
        };
        if set != 0 {
            return Err(last());
        }
    }
    Ok(())
}

/// Which file a path named when it was read: its device and inode.
type Identity = (u64, u64);

fn identity(meta: &fs::Metadata) -> Identity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

/// Fails unless the file at `path` holds exactly the pieces of `expected`, compared as it
/// is read; returns the identity of the file that was read, for the rename to check that
/// it still replaces that one.
fn unchanged(path: &Path, expected: &[&str]) -> Result<Identity> {
    let changed = || {
        Error::new("changed on disk since it was planned: not overwritten; run again").in_file(path)
    };
    let reread =
        |e: std::io::Error| Error::new(format!("cannot re-read before writing: {e}")).in_file(path);
    let mut f = fs::File::open(path).map_err(reread)?;
    let mut buf = vec![0u8; 1 << 16];
    for piece in expected {
        let mut want = piece.as_bytes();
        while !want.is_empty() {
            let n = f
                .read(&mut buf[..want.len().min(1 << 16)])
                .map_err(reread)?;
            if n == 0 || want[..n] != buf[..n] {
                return Err(changed());
            }
            want = &want[n..];
        }
    }
    match f.read(&mut buf[..1]).map_err(reread)? {
        0 => Ok(identity(&f.metadata().map_err(reread)?)),
        _ => Err(changed()),
    }
}

/// The refusal when the file read back is no longer the one at its path.
fn replaced(path: &Path) -> Error {
    Error::new(
        "replaced on disk while it was being written (another program saved it): not overwritten; run again",
    )
    .in_file(path)
}

/// A temporary file beside its target, removed unless it replaced the target.
struct Temp {
    target: PathBuf,
    path: PathBuf,
    file: Option<fs::File>,
}

impl Temp {
    /// Creates the temporary file for `target` with `like`'s permissions, owner and group
    /// from the start, so its content is never more visible than the target's was
    /// (it was created 0644 and chmodded only once written). Unless `strict`, an owner
    /// that cannot be kept is let go (a report, not a catalog file).
    fn create(target: &Path, like: Option<&fs::Metadata>, strict: bool) -> Result<Temp> {
        let err = |what: &str, e: std::io::Error| {
            Error::new(format!("{what}: {e}; the file is unchanged")).in_file(target)
        };
        let dir = target
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        // Owner-only until it has the target's permissions; a new file gets what any new
        // file gets (0666 less the umask).
        let mode = if like.is_some() { 0o600 } else { 0o666 };
        let (path, file) =
            create_unique(dir, mode).map_err(|e| err("cannot create a temporary file", e))?;
        let tmp = Temp {
            target: target.to_path_buf(),
            path,
            file: Some(file),
        };
        if let (Some(like), Some(file)) = (like, &tmp.file) {
            match keep_owner(file, like) {
                Err(e) if strict => return Err(err("cannot keep its owner and group", e)),
                _ => {}
            }
            file.set_permissions(like.permissions())
                .map_err(|e| err("cannot keep its permissions", e))?;
        }
        Ok(tmp)
    }

    fn fill(&self, bytes: &[u8], sync: bool) -> Result<()> {
        let err = |what: &str, e: std::io::Error| {
            Error::new(format!("{what}: {e}; the file is unchanged")).in_file(&self.target)
        };
        let mut file = self.file.as_ref().expect("filled before it is replaced");
        file.write_all(bytes).map_err(|e| err("cannot write", e))?;
        if sync {
            file.sync_all()
                .map_err(|e| err("cannot flush to disk", e))?;
        }
        Ok(())
    }

    /// Renames the temporary file over the target (after removing it first when
    /// `remove_first`), and makes the rename durable.
    fn replace(mut self, remove_first: bool) -> Result<()> {
        let err = |what: &str, e: std::io::Error| {
            Error::new(format!("{what}: {e}; the file is unchanged")).in_file(&self.target)
        };
        self.file = None;
        if remove_first {
            match fs::remove_file(&self.target) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(err("cannot replace", e));
                }
                _ => {}
            }
        }
        fs::rename(&self.path, &self.target).map_err(|e| err("cannot replace", e))?;
        // The rename is durable only once the directory entry is.
        if let Some(dir) = self.target.parent()
            && let Ok(d) = fs::File::open(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            })
        {
            let _ = d.sync_all();
        }
        self.path = PathBuf::new();
        Ok(())
    }
}

impl Temp {
    /// Puts the temporary file in place of the target if the target is still the file
    /// `read` names. An editor saves by renaming its own temporary file over the original:
    /// one that lands after the read-back would otherwise be replaced unseen (2 to
    /// 4 saves of 8 lost on a 5.8 MB file). On Linux the two are exchanged atomically and
    /// the file taken out is checked: if it is not the one read, the exchange is undone and
    /// the other program's file stays. Elsewhere the target is checked right before the
    /// rename, which narrows the window without closing it.
    fn replace_if_same(mut self, read: Identity) -> Result<()> {
        self.file = None;
        #[cfg(target_os = "linux")]
        if let Some(done) = self.exchange(read) {
            return done;
        }
        let now = fs::symlink_metadata(&self.target).map_err(|e| {
            Error::new(format!("cannot re-read before writing: {e}")).in_file(&self.target)
        })?;
        if identity(&now) != read {
            return Err(replaced(&self.target));
        }
        self.replace(false)
    }

    /// The atomic exchange; None when the file system cannot exchange (then the caller
    /// renames).
    #[cfg(target_os = "linux")]
    fn exchange(&mut self, read: Identity) -> Option<Result<()>> {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).ok();
        let (from, to) = (c(&self.path)?, c(&self.target)?);
        let swap = || {
            // SAFETY: both are NUL-terminated paths that live across the call.
            let r = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    from.as_ptr(),
                    libc::AT_FDCWD,
                    to.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            };
            if r == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        };
        let err = |what: &str, e: std::io::Error| {
            Error::new(format!("{what}: {e}; the file is unchanged")).in_file(&self.target)
        };
        match swap() {
            Ok(()) => {}
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
                ) =>
            {
                return None;
            }
            Err(e) => return Some(Err(err("cannot replace", e))),
        }
        // The temporary name now holds what was at the target.
        let out = fs::symlink_metadata(&self.path).map(|m| identity(&m));
        if out.as_ref().ok() != Some(&read) {
            return Some(match swap() {
                Ok(()) => Err(replaced(&self.target)),
                Err(e) => Err(Error::new(format!(
                    "replaced on disk while it was being written, and the other program's file could not be put back: {e}; it is at {}",
                    self.path.display()
                ))
                .in_file(&self.target)),
            });
        }
        let removed = fs::remove_file(&self.path);
        self.path = PathBuf::new();
        if let Some(dir) = self.target.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(d) = fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Some(removed.map_err(|e| {
            Error::new(format!(
                "written, but the previous version could not be removed: {e}"
            ))
            .in_file(&self.target)
        }))
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Whether `name` (a file name) is one [`create_unique`] gives: a run killed while it
/// writes leaves that file behind, which is never read and never committed.
pub fn is_temporary(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    name.strip_prefix(".catalog-effects.")
        .and_then(|rest| rest.strip_suffix(".tmp"))
        .and_then(|rest| rest.split_once('.'))
        .is_some_and(|(pid, n)| digits(pid) && digits(n))
}

/// A new file in `dir` under a short name of its own: `.catalog-effects.<pid>.<n>.tmp`,
/// whatever the length of the target's name (a name of 205 bytes or more could
/// not be written, the temporary name adding ~50 bytes past the 255 a name may have).
/// Dot-files that do not end in `.s1.yaml`, so no walk ever reads one left by a kill.
fn create_unique(dir: &Path, mode: u32) -> std::io::Result<(PathBuf, fs::File)> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!(".catalog-effects.{}.{n}.tmp", std::process::id()));
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
        #[cfg(not(unix))]
        let _ = mode;
        match options.open(&path) {
            // Left by an earlier process with the same id (a kill, then pid reuse).
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            other => return other.map(|f| (path, f)),
        }
    }
}

/// Gives `file` the owner and group of `like` where they differ: as root, the owner; as
/// anyone, a group they belong to. A replacement that could not keep them would hand the
/// file to whoever ran the tool (as root, the owner could then not read it).
fn keep_owner(file: &fs::File, like: &fs::Metadata) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let now = file.metadata()?;
        if (now.uid(), now.gid()) != (like.uid(), like.gid()) {
            std::os::unix::fs::fchown(file, Some(like.uid()), Some(like.gid()))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (file, like);
    Ok(())
}

/// A streamed report that replaces the previous one only once it is whole: a run that fails
/// or is killed halfway leaves the old report, never a truncated one. Dropped without
/// [`Staged::commit`], it removes its temporary file.
pub struct Staged {
    tmp: Temp,
    out: Option<std::io::BufWriter<fs::File>>,
}

impl std::fmt::Debug for Staged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Staged")
            .field("path", &self.tmp.target)
            .finish()
    }
}

impl Staged {
    /// Starts a report at `path` (a regular file, or none yet): the bytes go to a temporary
    /// file beside it.
    pub fn create(path: &Path) -> Result<Staged> {
        let meta = match fs::metadata(path) {
            Ok(m) => {
                // Replacing needs only the folder to be writable; a report its owner made
                // read-only fails as writing it in place would.
                fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| Error::new(format!("cannot write: {e}")).in_file(path))?;
                Some(m)
            }
            Err(_) => None,
        };
        let mut tmp = Temp::create(path, meta.as_ref(), false)?;
        let file = tmp.file.take().expect("a new temporary file");
        Ok(Staged {
            tmp,
            out: Some(std::io::BufWriter::with_capacity(1 << 20, file)),
        })
    }

    /// Puts the finished report in place of the old one.
    pub fn commit(self) -> Result<()> {
        let Staged { tmp, out } = self;
        out.expect("committed once: commit takes the report")
            .into_inner()
            .map_err(|e| Error::new(format!("cannot write: {}", e.error())).in_file(&tmp.target))?;
        // ext4 starts writing a file out when it replaces another by rename, or is
        // truncated and rewritten (`auto_da_alloc`): against removing the old report
        // first, renaming over it cost 1.8% of a 100k-action backfill, truncating it
        // 1.6% (same binary, medians of 13 runs). Removing it first leaves a moment with
        // no report at all, never a partial one.
        tmp.replace(true)
    }

    fn out(&mut self) -> &mut std::io::BufWriter<fs::File> {
        self.out.as_mut().expect("written after commit")
    }
}

impl Write for Staged {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out().write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.s1.yaml");
        fs::write(&p, "old\n").unwrap();
        set_mode(&p, 0o640);
        replace_if_unchanged(&p, &["old\n"], "new\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new\n");
        assert_mode(&p, 0o640);
        assert_alone(&p);
    }

    fn set_mode(p: &Path, mode: u32) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(p, fs::Permissions::from_mode(mode)).unwrap();
        }
        #[cfg(not(unix))]
        let _ = (p, mode);
    }

    fn assert_mode(p: &Path, mode: u32) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(p).unwrap().permissions().mode() & 0o777, mode);
        }
        #[cfg(not(unix))]
        let _ = (p, mode);
    }

    /// `p` is the only entry of its folder: no temporary file was left beside it.
    fn assert_alone(p: &Path) {
        let names: Vec<_> = fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [p.file_name().unwrap()], "no temporary file left");
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
        let e = replace_if_unchanged(&p, &["old\n"], "new\n").unwrap_err();
        assert!(e.to_string().contains("is read-only"), "{e}");
        assert_eq!(fs::read_to_string(&p).unwrap(), "old\n");
    }

    #[test]
    fn temporary_names_are_the_ones_create_unique_gives() {
        let dir = tempfile::tempdir().unwrap();
        let (path, _file) = create_unique(dir.path(), 0o600).unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        assert!(is_temporary(name), "{name}");
        for other in [
            ".catalog-effects.1.tmp",
            ".catalog-effects.1.x.tmp",
            ".catalog-effects..1.tmp",
            "catalog-effects.1.2.tmp",
            ".catalog-effects.1.2.tmp.s1.yaml",
        ] {
            assert!(!is_temporary(other), "{other}");
        }
    }

    #[test]
    fn a_file_changed_since_planning_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.s1.yaml");
        fs::write(&p, "changed\n").unwrap();
        let e = replace_if_unchanged(&p, &["old\n"], "new\n").unwrap_err();
        assert!(e.to_string().contains("changed on disk"));
        assert_eq!(fs::read_to_string(&p).unwrap(), "changed\n");
    }

    /// An editor's save (its own temporary file renamed over the original) that lands
    /// after the read-back and before the rename is kept, and the run says so. Before, the
    /// rename replaced the editor's file with an edit of the older text.
    #[test]
    fn an_editor_save_after_the_read_back_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.s1.yaml");
        fs::write(&p, "old\n").unwrap();
        let e = replace_checked(&p, &["old\n"], "new\n", || {
            let editor = dir.path().join(".a.s1.yaml.swp");
            fs::write(&editor, "saved by the editor\n").unwrap();
            fs::rename(&editor, &p).unwrap();
        })
        .unwrap_err();
        assert!(e.to_string().contains("replaced on disk"), "{e}");
        assert_eq!(fs::read_to_string(&p).unwrap(), "saved by the editor\n");
        assert_alone(&p);
        // Nothing in the way: written, and the old file gone.
        replace_checked(&p, &["saved by the editor\n"], "new\n", || {}).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new\n");
        assert_alone(&p);
    }

    /// Extended attributes (ACLs are stored as ones) stay with the file: the replacement is
    /// a new file, which had none.
    #[cfg(target_os = "linux")]
    #[test]
    fn extended_attributes_are_kept() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.s1.yaml");
        fs::write(&p, "old\n").unwrap();
        let path = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
        let (name, value) = (c"user.catalog-effects-test", b"kept");
        // SAFETY: NUL-terminated path and name; the value's length is given.
        let set = unsafe {
            libc::setxattr(
                path.as_ptr(),
                name.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
            )
        };
        if set != 0 {
            eprintln!("skipped: this file system takes no user attributes");
            return;
        }
        replace_if_unchanged(&p, &["old\n"], "new\n").unwrap();
        let mut buf = [0u8; 16];
        // SAFETY: as above; the buffer's length is given.
        let len = unsafe {
            libc::getxattr(
                path.as_ptr(),
                name.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        assert_eq!(len, 4, "the attribute is gone");
        assert_eq!(&buf[..4], value);
        assert_eq!(fs::read_to_string(&p).unwrap(), "new\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_file_is_refused_even_for_root() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.s1.yaml");
        fs::write(&p, "old\n").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o444)).unwrap();
        let e = replace_if_unchanged(&p, &["old\n"], "new\n").unwrap_err();
        assert!(e.to_string().contains("is read-only"), "{e}");
        assert_eq!(fs::read_to_string(&p).unwrap(), "old\n");
    }

    #[test]
    fn a_staged_report_replaces_the_old_one_only_when_committed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("effects.csv");
        fs::write(&p, "old report\n").unwrap();
        set_mode(&p, 0o640);
        let mut s = Staged::create(&p).unwrap();
        s.write_all(b"new ").unwrap();
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            "old report\n",
            "untouched while written"
        );
        s.write_all(b"report\n").unwrap();
        s.commit().unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new report\n");
        assert_mode(&p, 0o640);
        assert_alone(&p);

        let mut dropped = Staged::create(&p).unwrap();
        dropped.write_all(b"half").unwrap();
        drop(dropped);
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            "new report\n",
            "a failed run keeps it"
        );
        assert_alone(&p);

        let fresh = dir.path().join("sub.patch");
        let mut s = Staged::create(&fresh).unwrap();
        s.write_all(b"x").unwrap();
        s.commit().unwrap();
        assert_eq!(fs::read_to_string(&fresh).unwrap(), "x");
    }
}

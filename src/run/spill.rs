//! The trees of the files a voting run plans twice, kept between the two plans: the plan
//! that counts the catalog's votes spills each file's tree ([`crate::yaml::Reuse`]), and the
//! plan with the votes reads it back instead of parsing the text again (the parse is most
//! of what planning a file costs). In a temporary file, not in memory, so memory does not
//! grow with the catalog; a tree that cannot be kept or had back is parsed again.

use std::collections::HashMap;
use std::sync::Mutex;

/// How much a run spills at most: past it, a file is parsed again, as it was before trees
/// were spilled, rather than fill the temporary folder's disk (a tree is about half the
/// size of its text: a catalog of a million actions spills some 600 MB).
const MAX_SPILL: u64 = 2 << 30;

/// A spilled tree: where it is in the file, and the text it was parsed from (its length
/// and digest): a file changed between the two plans is parsed again.
#[derive(Debug, Clone, Copy)]
struct Entry {
    at: u64,
    len: usize,
    text_len: usize,
    text: u64,
}

#[derive(Debug)]
pub struct Spill {
    file: std::fs::File,
    /// The end of what was written, and each file's tree by its place in the walk.
    index: Mutex<(u64, HashMap<usize, Entry>)>,
}

impl Spill {
    /// A spill in a temporary file, gone from the file system at once (the run's handle
    /// keeps it); none where it cannot be made, and the second plan parses.
    pub fn new() -> Option<Spill> {
        if !cfg!(unix) {
            return None;
        }
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("catalog-effects-{}-{n}.trees", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create_new(true);
        // The trees hold the catalog's text, and the temporary folder is shared: only the
        // run's user may read them, whatever the umask.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(&path).ok()?;
        std::fs::remove_file(&path).ok()?;
        Some(Spill {
            file,
            index: Mutex::default(),
        })
    }

    /// Keeps the tree `bytes` of the file at `place` in the walk, parsed from the text of
    /// `(length, digest)` ([`digest`]).
    pub fn put(&self, place: usize, (text_len, text): (usize, u64), bytes: &[u8]) {
        let at = {
            let mut index = lock(&self.index);
            let at = index.0;
            if at + bytes.len() as u64 > MAX_SPILL {
                return;
            }
            index.0 += bytes.len() as u64;
            at
        };
        if write_at(&self.file, bytes, at).is_ok() {
            let entry = Entry {
                at,
                len: bytes.len(),
                text_len,
                text,
            };
            lock(&self.index).1.insert(place, entry);
        }
    }

    /// The tree kept for the file at `place`, if it was parsed from this very `text`, read
    /// into `bytes` (whose room is reused: a buffer a file, freed each time, was memory the
    /// allocator kept).
    pub fn get(&self, place: usize, text: &str, bytes: &mut Vec<u8>) -> bool {
        let Some(e) = lock(&self.index).1.get(&place).copied() else {
            return false;
        };
        if e.text_len != text.len() || e.text != digest(text) {
            return false;
        }
        bytes.clear();
        bytes.resize(e.len, 0);
        read_at(&self.file, bytes, e.at).is_ok()
    }
}

#[cfg(unix)]
fn write_at(file: &std::fs::File, bytes: &[u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, at)
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, bytes: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, bytes, at)
}

#[cfg(not(unix))]
fn write_at(_: &std::fs::File, _: &[u8], _: u64) -> std::io::Result<()> {
    Err(std::io::Error::other("no spill here"))
}

#[cfg(not(unix))]
fn read_at(_: &std::fs::File, _: &mut [u8], _: u64) -> std::io::Result<()> {
    Err(std::io::Error::other("no spill here"))
}

/// A digest of a text, eight bytes at a time: it tells a file changed between two plans of
/// one run apart from the text that was parsed, at a small part of reading it.
pub fn digest(text: &str) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes = text.as_bytes();
    let mut words = bytes.chunks_exact(8);
    let mut h = bytes.len() as u64;
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    for &b in words.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(K).rotate_left(29);
    }
    h
}

thread_local! {
    /// Each worker's room for a spilled tree, written or read back.
    static ROOM: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Runs `f` with the worker's room for a spilled tree (empty, its room kept between files).
pub fn with_room<T>(f: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    let mut room = ROOM.take();
    room.clear();
    let out = f(&mut room);
    // A very large tree's room is not kept for the rest of the run.
    if room.capacity() <= 1 << 20 {
        ROOM.set(room);
    }
    out
}

/// A poisoned lock only means a worker panicked, which ends the run anyway.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

//! Printing: stdout for results, stderr for diagnostics. A reader that went away (`| head`)
//! stops the output quietly and the run goes on, so its exit code still says whether there
//! were findings; any other failure to write stdout (a full disk) is an error, reported
//! once at the end with exit code 2 (both used to be swallowed).

use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use catalog_effects::text::safe;

/// The exit codes, here beside `finish`, which raises a code to an error when stdout failed;
/// `--help` states their policy.
pub const EXIT_OK: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

/// The reader of stdout has gone: nothing more is written there.
static CLOSED: AtomicBool = AtomicBool::new(false);
/// The first error writing stdout, other than a closed pipe.
static FAILED: Mutex<Option<String>> = Mutex::new(None);

/// Writes to stdout, unless it is closed or failed already.
pub fn print(text: &str) {
    if stopped() {
        return;
    }
    if no_stdout() {
        stdout_failed(&io::Error::other("it is closed (no file descriptor 1)"));
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        stdout_failed(&e);
    }
}

/// Whether the process was started without a standard output (`check >&-`): the Rust
/// runtime then opens `/dev/null` in its place, read-write, and every result vanished with
/// exit 0. A shell's `>/dev/null` opens it write-only, and is left alone.
pub fn no_stdout() -> bool {
    #[cfg(target_os = "linux")]
    {
        static CLOSED_FD: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *CLOSED_FD.get_or_init(|| {
            // SAFETY: an all-zero stat is valid; fstat and F_GETFL only read about fd 1.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            let stat = unsafe { libc::fstat(1, &mut st) };
            let flags = unsafe { libc::fcntl(1, libc::F_GETFL) };
            let null =
                st.st_mode & libc::S_IFMT == libc::S_IFCHR && st.st_rdev == libc::makedev(1, 3);
            stat == 0 && null && flags != -1 && flags & libc::O_ACCMODE == libc::O_RDWR
        })
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// Whether stdout takes no more output.
pub fn stopped() -> bool {
    CLOSED.load(Ordering::Relaxed) || FAILED.lock().map_or(true, |f| f.is_some())
}

/// Records a failed write to stdout: a closed pipe quietly, anything else as an error.
pub fn stdout_failed(e: &io::Error) {
    if e.kind() == io::ErrorKind::BrokenPipe {
        CLOSED.store(true, Ordering::Relaxed);
    } else if let Ok(mut failed) = FAILED.lock() {
        failed.get_or_insert_with(|| e.to_string());
    }
}

/// The exit code once stdout is accounted for: a write that failed is an error (code 2),
/// named on stderr.
pub fn finish(code: u8) -> u8 {
    match FAILED.lock().ok().and_then(|f| f.clone()) {
        Some(e) => {
            error(&format!("cannot write to standard output: {e}"));
            code.max(EXIT_ERROR)
        }
        None => code,
    }
}

pub fn eprint(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// An error on stderr, on one line whatever the file names and ids in it hold.
pub fn error(msg: &str) {
    eprint(&format!("error: {}\n", safe::line(msg)));
}

pub fn warning(msg: &str) {
    eprint(&format!("warning: {}\n", safe::line(msg)));
}

/// Where a command's own text goes: stdout, unless one of its outputs is stdout (`-`), which
/// then holds that output alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    /// Stderr when any of `outputs` is `-`.
    pub fn beside<'a>(outputs: impl IntoIterator<Item = Option<&'a std::path::Path>>) -> Stream {
        if outputs.into_iter().flatten().any(|p| p.as_os_str() == "-") {
            Stream::Stderr
        } else {
            Stream::Stdout
        }
    }

    pub fn print(self, text: &str) {
        match self {
            Stream::Stdout => print(text),
            Stream::Stderr => eprint(text),
        }
    }
}

pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

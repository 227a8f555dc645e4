//! Printing: stdout for results, stderr for diagnostics, and a closed pipe ends quietly.

use std::io::{self, IsTerminal, Write};

/// Writes to stdout; a reader that went away (`| head`) ends the process quietly, as
/// command-line tools do.
pub fn print(text: &str) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush())
        && e.kind() == io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

pub fn eprint(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

pub fn error(msg: &str) {
    eprint(&format!("error: {msg}\n"));
}

pub fn warning(msg: &str) {
    eprint(&format!("warning: {msg}\n"));
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

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

pub fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

//! The `catalog-effects` command line: parses arguments, runs the library, prints, and
//! chooses the exit code (0 done / clean, 1 findings, 2 errors).

// The binary (this file and `cli/`) is what prints; the library never does.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// The YAML event parser allocates a string per scalar and frees it at once, while the
/// pipeline keeps trees and results alive around it: glibc's allocator spent a fifth of a
/// worker's time in `malloc` and `free` on that mix. mimalloc made a million-action
/// backfill 16-21% faster (docs/performance.md); the benchmark measures the parse floor
/// with it too.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::dispatch(args) {
        Ok(code) => ExitCode::from(cli::out::finish(code)),
        Err(e) => {
            cli::out::error(&e.to_string());
            ExitCode::from(cli::out::finish(cli::out::EXIT_ERROR))
        }
    }
}

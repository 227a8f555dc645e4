//! The `catalog-effects` command line: parses arguments, runs the library, prints, and
//! chooses the exit code (0 done / clean, 1 findings, 2 errors).

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::dispatch(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            cli::out::error(&e.to_string());
            ExitCode::from(cli::EXIT_ERROR)
        }
    }
}

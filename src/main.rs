//! The `lgrscan` command: a thin layer over the library.
//!
//! Exit status: 0 no findings (or success), 1 findings, 2 error.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        // A reader that stopped reading (`| head`) ends the command quietly;
        // `scan` handles it itself to keep its verdict (README, "Exit status").
        Err(err) if cli::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            // Messages quote file names and input text: escaped, so that
            // they cannot drive the terminal, nor forge a second error line
            // (a file name may hold a newline).
            let message = format!("{err:#}");
            eprintln!("lgrscan: error: {}", lgrscan::report::escape_for_terminal(&message));
            ExitCode::from(2)
        }
    }
}

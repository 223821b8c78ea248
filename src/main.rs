//! The `lgrscan` command: a thin layer over the library.
//!
//! Exit status: 0 no findings (or success), 1 findings, 2 error.

mod cli;

use std::process::ExitCode;

/// Large blocks as huge-page mappings (see `cli::alloc`).
#[global_allocator]
static GLOBAL: cli::alloc::Alloc = cli::alloc::Alloc;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            if let Some(io) = err.downcast_ref::<std::io::Error>()
                && io.kind() == std::io::ErrorKind::BrokenPipe
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("lgrscan: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

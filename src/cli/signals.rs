//! The temporary file of an `--output` report is removed when the process
//! is interrupted (SIGINT, SIGTERM, SIGHUP): the library creates it
//! ([`lgrscan::report::OutputFile`]) and installs no handler, so the
//! command does, and only when it writes such a file.

use anyhow::Context;
use lgrscan::report::OutputFile;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// Temporary files to remove if a signal ends the process.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether the handler thread runs (or why it could not start).
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// Starts the thread that waits for the signals: on the first, it removes
/// the pending temporary files, then ends the process as the signal's
/// default action would (so a shell sees 130 for SIGINT, 143 for SIGTERM).
fn install() -> anyhow::Result<()> {
    INSTALLED
        .get_or_init(|| {
            let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
                .map_err(|e| e.to_string())?;
            std::thread::spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
                    for p in pending.drain(..) {
                        let _ = std::fs::remove_file(p);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    std::process::exit(128 + sig);
                }
            });
            Ok(())
        })
        .clone()
        .map_err(anyhow::Error::msg)
        .context("installing signal handlers")
}

/// Keeps `out`'s temporary file on the list of files removed by a signal
/// until dropped (after the report is committed or abandoned).
pub struct Protected(Option<PathBuf>);

/// Puts `out`'s temporary file, if any, on that list.
pub fn protect(out: &OutputFile) -> anyhow::Result<Protected> {
    let Some(temp) = out.temp_path() else { return Ok(Protected(None)) };
    install()?;
    PENDING.lock().unwrap_or_else(|e| e.into_inner()).push(temp.to_path_buf());
    Ok(Protected(Some(temp.to_path_buf())))
}

impl Drop for Protected {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            PENDING.lock().unwrap_or_else(|e| e.into_inner()).retain(|q| q != p);
        }
    }
}

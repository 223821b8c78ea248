//! The temporary file of an `--output` report is removed when the process
//! is interrupted (SIGINT, SIGTERM, SIGHUP): the library creates it
//! ([`lgrscan::report::OutputFile`]) and installs no handler, so the
//! command does, and only when it writes such a file.

use anyhow::Context;
use lgrscan::report::OutputFile;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// Temporary files to remove if a signal ends the process.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether the handler thread runs (or why it could not start).
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// How long the handler waits for a report file being opened (the list
/// is locked while it is) before it ends the process anyway: opening a
/// FIFO waits for its reader.
const OPEN_WAIT: Duration = Duration::from_secs(2);

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
                    let deadline = Instant::now() + OPEN_WAIT;
                    loop {
                        match PENDING.try_lock() {
                            Ok(mut pending) => {
                                for p in pending.drain(..) {
                                    let _ = std::fs::remove_file(p);
                                }
                                break;
                            }
                            Err(TryLockError::Poisoned(e)) => {
                                for p in e.into_inner().drain(..) {
                                    let _ = std::fs::remove_file(p);
                                }
                                break;
                            }
                            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                                std::thread::sleep(Duration::from_millis(5));
                            }
                            Err(TryLockError::WouldBlock) => break,
                        }
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

/// Keeps a temporary file on the list of files removed by a signal until
/// dropped (after the report is committed or abandoned).
pub struct Protected(Option<PathBuf>);

/// Opens `path` for a report (unless it is one of `spared`) with its
/// temporary file, if any, on that list. The handler is installed first
/// and the list stays locked while the file is created, so no signal can
/// come between the file's creation and its listing.
pub fn create_protected(path: &Path, spared: &[&Path]) -> anyhow::Result<(OutputFile, Protected)> {
    install()?;
    let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    let file = OutputFile::create_sparing(path, spared)?;
    let temp = file.temp_path().map(Path::to_path_buf);
    pending.extend(temp.clone());
    Ok((file, Protected(temp)))
}

impl Drop for Protected {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            PENDING.lock().unwrap_or_else(|e| e.into_inner()).retain(|q| q != p);
        }
    }
}

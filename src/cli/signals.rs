//! The temporary file of an `--output` report is removed when the process
//! is interrupted (SIGINT, SIGTERM, SIGHUP): the library creates it
//! ([`lgrscan::report::OutputFile`]) and installs no handler, so the
//! command does, and only when it writes such a file.

use anyhow::Context;
use lgrscan::report::{Durability, OutputFile};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// Temporary files to remove if a signal ends the process.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether the run has begun to put its reports in place ([`finishing`]).
static FINISHING: AtomicBool = AtomicBool::new(false);

/// Whether the handler thread runs (or why it could not start).
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// How long the handler waits for a report file being opened (the list
/// is locked while it is) before it ends the process anyway: opening a
/// FIFO waits for its reader.
const OPEN_WAIT: Duration = Duration::from_secs(2);

/// Starts the thread that waits for the signals; the first is handled by
/// [`end_by`].
fn install() -> anyhow::Result<()> {
    INSTALLED
        .get_or_init(|| {
            let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
                .map_err(|e| e.to_string())?;
            std::thread::spawn(move || {
                // A second signal ends even a finishing run (one stuck
                // writing to a FIFO nobody reads, say).
                for (n, sig) in signals.forever().enumerate() {
                    end_by(sig, n > 0);
                }
            });
            Ok(())
        })
        .clone()
        .map_err(anyhow::Error::msg)
        .context("installing signal handlers")
}

/// What the first signal does: unless the run has begun to put its
/// reports in place ([`finishing`]), removes the pending temporary files,
/// then ends the process as the signal's default action would (so a shell
/// sees 130 for SIGINT, 143 for SIGTERM), the list still locked, so that
/// no report is put in place after its temporary file went. Once the run
/// is finishing, the signal is let go: the run ends on its own a moment
/// later, with its own status, and a report it put in place is never
/// followed by an exit that says it was interrupted. With `again` (a
/// second signal), the run is ended even then.
fn end_by(sig: i32, again: bool) {
    let deadline = Instant::now() + OPEN_WAIT;
    let mut pending = loop {
        match PENDING.try_lock() {
            Ok(pending) => break Some(pending),
            Err(TryLockError::Poisoned(e)) => break Some(e.into_inner()),
            // A report being opened (a FIFO waits for its reader) holds the
            // list for a while at most.
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(TryLockError::WouldBlock) => break None,
        }
    };
    if FINISHING.load(Ordering::SeqCst) && !again {
        return;
    }
    for p in pending.iter_mut().flat_map(|p| p.drain(..)) {
        let _ = std::fs::remove_file(p);
    }
    let _ = signal_hook::low_level::emulate_default_handler(sig);
    std::process::exit(128 + sig);
}

/// Says that the run begins to put its reports in place: from now on a
/// signal no longer ends it (see [`end_by`]). Set under the list's lock,
/// so a signal is either handled wholly before (the report's temporary
/// file removed, the process ended) or let go.
fn finishing() {
    let _pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    FINISHING.store(true, Ordering::SeqCst);
}

/// Puts a finished report in place ([`OutputFile::commit`]); a signal
/// that comes from then on lets the run end on its own ([`end_by`]).
///
/// # Errors
/// As [`OutputFile::commit`].
pub fn commit(file: OutputFile, durability: Durability) -> std::io::Result<()> {
    finishing();
    file.commit(durability)
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

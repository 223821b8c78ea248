//! Writing a report to a file the user named, so that it is never left
//! half-written and nothing else is clobbered.
//!
//! What [`OutputFile::create`] does depends on what the path names:
//!
//! - **No file, or a regular file with one link**: the report is written
//!   to a new temporary file in the same directory and renamed over the
//!   path once complete ([`OutputFile::commit`]). A run that fails or is
//!   stopped before then leaves the old file as it was (a new one is never
//!   created). An existing file keeps its permission bits, and its owner
//!   and group where the process may set them (as root; otherwise the new
//!   file belongs to the user who ran lgrscan). The temporary file has an
//!   unpredictable name and is created with `O_CREAT|O_EXCL` (by the
//!   [`tempfile`] crate), which never follows a symbolic link planted at
//!   that name.
//! - **A regular file with several hard links**: the report is written to a
//!   temporary file as above and copied into the file in place on commit,
//!   so every link sees it. A failed run leaves the file as it was, a disk
//!   too full for the report too (its blocks are allocated before the copy
//!   where the file system can: Linux); only the copy itself is not atomic.
//! - **A symbolic link**: followed (as `>` in a shell does); what it points
//!   to is treated as above, so the link stays a link and its target is
//!   replaced. A dangling link creates its target.
//! - **Anything else that is not a directory** (a character device such as
//!   `/dev/null`, a FIFO, a socket): written in place, as a stream; there
//!   is nothing to replace atomically.
//! - **One of the process's descriptors** (`/dev/stdout`, `/dev/fd/N`,
//!   `/proc/self/fd/N`): written through that descriptor, whatever it is
//!   open on (a pipe, a file the shell opened with `>>`, a deleted file),
//!   as a shell's `>&N` would; a file behind it is never replaced.
//! - **Another process's descriptor** (`/proc/PID/fd/N`,
//!   `/proc/PID/task/TID/fd/N`): an error. Its link names no path to write
//!   (`pipe:[1234]`), or a file that process has open at its own offset,
//!   which neither a rename nor a write from the start would serve.
//! - **A directory**: an error.
//!
//! [`OutputFile::create_sparing`] also refuses a path that is one of the
//! files the run reads (the same file, whatever the link or name that
//! reaches it), or another output of the run: a report renamed over a
//! zone file would destroy it, and a typo or a shell's completion is
//! enough to name one.
//!
//! Errors name the path the user gave, never the temporary file. This
//! module prints nothing and installs no signal handler: a program that
//! wants the temporary file removed when it is killed registers
//! [`OutputFile::temp_path`] with its own handler.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use tempfile::TempPath;

/// The errors a descriptor gives that is not open (EBADF), and that
/// cannot be synced (EINVAL: a pipe, a socket).
const EBADF: i32 = rustix::io::Errno::BADF.raw_os_error();
const EINVAL: i32 = rustix::io::Errno::INVAL.raw_os_error();

/// Symbolic links followed before a path is refused as a loop (Linux's
/// `MAXSYMLINKS`).
const MAX_SYMLINKS: usize = 40;

/// Whether [`OutputFile::commit`] waits for the report to reach the disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Durability {
    /// The rename alone: a failed or killed run never leaves a partial
    /// report, but a crash of the machine right after it may.
    #[default]
    Rename,
    /// `fsync` the report before it replaces the file, so that it also
    /// survives a crash of the machine.
    Sync,
}

/// A report file being written; see the [module documentation](self) for
/// what happens to each kind of path.
///
/// Dropped without [`commit`](OutputFile::commit), it removes its
/// temporary file and leaves the path as it was.
pub struct OutputFile {
    /// The path as the user gave it (for messages).
    path: PathBuf,
    out: BufWriter<File>,
    how: How,
    /// Whether [`OutputFile::reserve`] gave the temporary file a length.
    reserved: bool,
}

enum How {
    /// Renamed over `dest` on commit.
    Replace { temp: TempPath, dest: PathBuf },
    /// Copied into `dest` (a file with several hard links) on commit.
    CopyInto { temp: TempPath, dest: PathBuf },
    /// Written straight to a device, FIFO or socket.
    InPlace,
}

impl OutputFile {
    /// Opens `path` for a report.
    ///
    /// # Errors
    /// A directory, a symbolic link loop, a directory where the temporary
    /// file cannot be created, a device or FIFO that cannot be opened;
    /// each message names `path`.
    pub fn create(path: &Path) -> io::Result<OutputFile> {
        Self::create_sparing(path, &[])
    }

    /// Opens `path` for a report, as [`OutputFile::create`] does, unless it
    /// names the same file as one of `spared`: the files the run reads,
    /// and its other outputs. A spared path that does not exist (yet) is
    /// compared by name, with symbolic links followed; one that exists is
    /// compared by file identity (device and inode on Unix), so a hard
    /// link to an input is refused too. A device or FIFO, written in place,
    /// is never refused.
    ///
    /// # Errors
    /// As [`OutputFile::create`]; `path` is one of `spared`
    /// ([`io::ErrorKind::InvalidInput`], naming both).
    pub fn create_sparing(path: &Path, spared: &[&Path]) -> io::Result<OutputFile> {
        let named = |what: &str, e: io::Error| named_error(path, what, e);
        let dest = match follow_symlinks(path).map_err(|e| named("cannot resolve", e))? {
            Resolved::Path(dest) => dest,
            Resolved::Descriptor(fd) => {
                // Another output through the same descriptor would mix the
                // two streams (`-` among the spared paths is standard input).
                if let Some(other) = spared.iter().find(|o| {
                    **o != Path::new("-")
                        && matches!(follow_symlinks(o), Ok(Resolved::Descriptor(f)) if f == fd)
                }) {
                    let e = io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!(
                            "it is the same stream as {}, which this run also writes",
                            other.display()
                        ),
                    );
                    return Err(named("refusing to write", e));
                }
                let file = inherited(fd).map_err(|e| named("cannot write", e))?;
                // A file behind it is refused as any path to it would be.
                if let Some(id) = file
                    .metadata()
                    .ok()
                    .filter(fs::Metadata::is_file)
                    .and_then(|m| Identity::of_metadata(&m))
                {
                    refuse_spared(path, id, spared)?;
                }
                let out = BufWriter::new(file);
                return Ok(OutputFile {
                    path: path.to_path_buf(),
                    out,
                    how: How::InPlace,
                    reserved: false,
                });
            }
        };
        // A device or FIFO is written in place: nothing is replaced.
        if !fs::metadata(&dest).is_ok_and(|m| !m.is_file())
            && let Some(id) = Identity::of(&dest)
        {
            refuse_spared(path, id, spared)?;
        }
        let (how, out) = match fs::metadata(&dest) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let (temp, file) =
                    temp_beside(&dest, None).map_err(|e| named("cannot create", e))?;
                (How::Replace { temp, dest }, file)
            }
            Err(e) => return Err(named("cannot write", e)),
            Ok(m) if m.is_dir() => {
                return Err(named("cannot write", io::Error::other("is a directory")));
            }
            Ok(m) if !m.is_file() => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(&dest)
                    .map_err(|e| named("cannot open", e))?;
                (How::InPlace, file)
            }
            Ok(m) => {
                let (temp, file) =
                    temp_beside(&dest, Some(&m)).map_err(|e| named("cannot create", e))?;
                if link_count(&m) > 1 {
                    (How::CopyInto { temp, dest }, file)
                } else {
                    (How::Replace { temp, dest }, file)
                }
            }
        };
        Ok(OutputFile { path: path.to_path_buf(), out: BufWriter::new(out), how, reserved: false })
    }

    /// Refuses, before anything is replaced, a path that names one of
    /// `spared`, as [`OutputFile::create_sparing`] does: for the files a
    /// run finds it reads only as it reads them (a zone's `$INCLUDE`
    /// files). Nothing is refused when the report is written in place.
    ///
    /// # Errors
    /// The path is one of `spared` ([`io::ErrorKind::InvalidInput`],
    /// naming both).
    pub fn spare(&self, spared: &[&Path]) -> io::Result<()> {
        match &self.how {
            How::Replace { dest, .. } | How::CopyInto { dest, .. } => match Identity::of(dest) {
                Some(id) => refuse_spared(&self.path, id, spared),
                None => Ok(()),
            },
            How::InPlace => Ok(()),
        }
    }

    /// Says that about `len` bytes are to be written, before any is: where
    /// the report replaces a file by a rename, its temporary file is given
    /// its blocks at once (`fallocate(2)`, Linux only), and cut to what was
    /// written on commit. Written block by block instead, the file has its
    /// blocks allocated late, and on ext4 the rename that replaces another
    /// file waits for that (`auto_da_alloc`): 0.13–0.19 s for a 298 MB
    /// index, against 0.06 s with the blocks reserved. Only a hint: where
    /// it cannot be done, nothing is.
    pub fn reserve(&mut self, len: u64) {
        let unwritten = self.out.buffer().is_empty()
            && self.out.get_ref().stream_position().is_ok_and(|p| p == 0);
        if !matches!(self.how, How::Replace { .. }) || !unwritten {
            return;
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use rustix::fs::{FallocateFlags, fallocate};
            self.reserved |= fallocate(self.out.get_ref(), FallocateFlags::empty(), 0, len).is_ok();
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let _ = len;
    }

    /// Whether [`OutputFile::write_at_start`] can be used: the report is
    /// written to a temporary file, not in place (to a pipe, say).
    pub fn can_write_at_start(&self) -> bool {
        !matches!(self.how, How::InPlace)
    }

    /// Writes `bytes` over the first bytes written, which must be at least
    /// as many; later writes go on after the last byte written.
    ///
    /// # Errors
    /// Writing; a report written in place
    /// ([`io::ErrorKind::Unsupported`]).
    pub fn write_at_start(&mut self, bytes: &[u8]) -> io::Result<()> {
        if !self.can_write_at_start() {
            let e = io::Error::new(io::ErrorKind::Unsupported, "written in place");
            return Err(named_error(&self.path, "cannot write", e));
        }
        let (path, out) = (&self.path, &mut self.out);
        let named = |e| named_error(path, "cannot write", e);
        out.flush().map_err(named)?;
        let file = out.get_mut();
        let end = file.stream_position().map_err(named)?;
        if end < bytes.len() as u64 {
            return Err(named(io::Error::other("fewer bytes written than to write over")));
        }
        file.seek(SeekFrom::Start(0)).map_err(named)?;
        file.write_all(bytes).map_err(named)?;
        file.seek(SeekFrom::Start(end)).map_err(named)?;
        Ok(())
    }

    /// The temporary file the report is written to before it replaces the
    /// path; `None` when it is written in place. A program that installs
    /// signal handlers removes this file when it is killed.
    pub fn temp_path(&self) -> Option<&Path> {
        match &self.how {
            How::Replace { temp, .. } | How::CopyInto { temp, .. } => Some(temp),
            How::InPlace => None,
        }
    }

    /// The hard links of the file the report will be copied into in place
    /// (a regular file with several, so that every link sees it); `None`
    /// when it replaces its path or is written as a stream. A caller whose
    /// output must never change in place (an index, which `serve` maps)
    /// refuses it.
    pub fn copied_into_links(&self) -> Option<u64> {
        match &self.how {
            How::CopyInto { dest, .. } => fs::metadata(dest).ok().map(|m| link_count(&m)),
            _ => None,
        }
    }

    /// The path as it was given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Finishes the report: flushes it (and syncs it with
    /// [`Durability::Sync`]) and puts it in place.
    ///
    /// # Errors
    /// Writing, syncing or renaming; the temporary file is removed and the
    /// old file, if any, is left as it was (except when the in-place copy
    /// into a file with several links fails midway).
    pub fn commit(self, durability: Durability) -> io::Result<()> {
        let path = self.path;
        let named = |what: &str, e: io::Error| named_error(&path, what, e);
        let mut file = self.out.into_inner().map_err(|e| named("cannot write", e.into_error()))?;
        if self.reserved {
            // The reserved length, cut (or grown) to what was written.
            let written = file.stream_position().map_err(|e| named("cannot write", e))?;
            file.set_len(written).map_err(|e| named("cannot write", e))?;
        }
        if durability == Durability::Sync && !matches!(self.how, How::CopyInto { .. }) {
            match file.sync_all() {
                // A pipe, a socket or a device written in place has nothing
                // to sync (EINVAL).
                Err(e) if matches!(self.how, How::InPlace) && e.raw_os_error() == Some(EINVAL) => {}
                r => r.map_err(|e| named("cannot sync", e))?,
            }
        }
        match self.how {
            How::Replace { temp, dest } => {
                // On failure the error owns the temporary path, which is
                // removed when the error is dropped here.
                temp.persist(&dest).map_err(|e| named("cannot replace", e.error))
            }
            How::CopyInto { temp, dest } => {
                let len = file.stream_position().map_err(|e| named("cannot write", e))?;
                file.rewind().map_err(|e| named("cannot write", e))?;
                let mut target = OpenOptions::new()
                    .write(true)
                    .open(&dest)
                    .map_err(|e| named("cannot open", e))?;
                // The blocks of the whole report are found before a byte
                // of the file changes: a disk too full for it is an error
                // that leaves the file as it was. The report is then
                // written over the old bytes and the file cut to its length
                // (never cut first).
                allocate(&target, len).map_err(|e| named("cannot write", e))?;
                io::copy(&mut file, &mut target).map_err(|e| named("cannot write", e))?;
                target.set_len(len).map_err(|e| named("cannot write", e))?;
                if durability == Durability::Sync {
                    target.sync_all().map_err(|e| named("cannot sync", e))?;
                }
                drop(temp);
                Ok(())
            }
            How::InPlace => Ok(()),
        }
    }
}

/// Gives `file` the blocks of its first `len` bytes, keeping its length
/// (`fallocate(2)` with `FALLOC_FL_KEEP_SIZE`, Linux only): an error when
/// the disk has no room for them. A file system that cannot allocate ahead
/// (`EOPNOTSUPP`), or another system, is not an error: the copy then finds
/// a full disk as it writes.
fn allocate(file: &fs::File, len: u64) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if len > 0 {
        use rustix::fs::{FallocateFlags, fallocate};
        match fallocate(file, FallocateFlags::KEEP_SIZE, 0, len) {
            Err(e) if e == rustix::io::Errno::NOSYS || e == rustix::io::Errno::OPNOTSUPP => Ok(()),
            r => r.map_err(io::Error::from),
        }
    } else {
        Ok(())
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (file, len);
        Ok(())
    }
}

/// Errors name the path the user gave.
impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf).map_err(|e| named_error(&self.path, "cannot write", e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf).map_err(|e| named_error(&self.path, "cannot write", e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush().map_err(|e| named_error(&self.path, "cannot write", e))
    }
}

/// An error about `path` (the user's), keeping the kind of `e` (a full
/// disk, a closed pipe) and saying its cause once.
fn named_error(path: &Path, what: &str, e: io::Error) -> io::Error {
    let mut cause = e.to_string();
    // The tempfile crate appends the temporary file's path; the user named
    // another file.
    if let Some((head, _)) = cause.split_once(" at path ") {
        cause.truncate(head.len());
    }
    io::Error::new(e.kind(), format!("{what} {}: {cause}", path.display()))
}

/// The error for `path` (of identity `id` once resolved) when it is one
/// of `spared`.
fn refuse_spared(path: &Path, id: Identity, spared: &[&Path]) -> io::Result<()> {
    for &other in spared {
        let same = match follow_symlinks(other) {
            // Standard input (`-`, `/dev/stdin`) redirected from a file is
            // that file.
            _ if other == Path::new("-") => descriptor_identity(0),
            Ok(Resolved::Path(o)) => Identity::of(&o),
            Ok(Resolved::Descriptor(fd)) => descriptor_identity(fd),
            Err(_) => None,
        };
        if same.as_ref() == Some(&id) {
            let e = io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "it is the same file as {}, which this run also reads or writes",
                    other.display()
                ),
            );
            return Err(named_error(path, "refusing to write", e));
        }
    }
    Ok(())
}

/// The identity of the regular file behind this process's descriptor
/// `fd`, if it is one.
fn descriptor_identity(fd: i32) -> Option<Identity> {
    let m = inherited(fd).ok()?.metadata().ok()?;
    if m.is_file() { Identity::of_metadata(&m) } else { None }
}

/// Whether a report written to `path` (as [`OutputFile::create`] reads
/// it: `-`, one of this process's descriptors however spelt, such as
/// `/dev/fd/01`, or a file) goes to a terminal. Only a character device
/// is opened to ask: opening a FIFO for writing would wait for its
/// reader.
pub fn is_terminal(path: &Path) -> bool {
    use std::io::IsTerminal;
    match follow_symlinks(path) {
        Ok(Resolved::Descriptor(fd)) => inherited(fd).is_ok_and(|f| f.is_terminal()),
        Ok(Resolved::Path(p)) => {
            #[cfg(unix)]
            use std::os::unix::fs::FileTypeExt;
            #[cfg(unix)]
            let device = fs::metadata(&p).is_ok_and(|m| m.file_type().is_char_device());
            #[cfg(not(unix))]
            let device = false;
            device && fs::OpenOptions::new().write(true).open(&p).is_ok_and(|f| f.is_terminal())
        }
        Err(_) => false,
    }
}

/// What a path given for a report stands for.
enum Resolved {
    /// A file (its symbolic links followed).
    Path(PathBuf),
    /// One of this process's open descriptors (`-` for standard output,
    /// `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`).
    Descriptor(i32),
}

/// `path` with every symbolic link in its last component followed; a
/// dangling link gives the path it points to. A link that stands for one
/// of this process's descriptors is not followed: what it points to may
/// be no path at all (`pipe:[1234]`, `/file (deleted)`), and a file behind
/// it was opened by the shell, which `>>` opens to append and `{ …; } >`
/// shares among commands: the report is written through the descriptor,
/// never renamed over the file.
fn follow_symlinks(path: &Path) -> io::Result<Resolved> {
    if path == Path::new("-") {
        // Standard output, as `/dev/stdout` (not a file named `-`).
        return Ok(Resolved::Descriptor(1));
    }
    let mut current = path.to_path_buf();
    for _ in 0..MAX_SYMLINKS {
        if let Some(fd) = own_descriptor(&current) {
            return Ok(Resolved::Descriptor(fd));
        }
        if is_descriptor_link(&current) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "another process's descriptor: write to /dev/stdout or a file, and redirect it",
            ));
        }
        match fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            Ok(_) => return Ok(Resolved::Path(current)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Resolved::Path(current)),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The descriptor `path` names when it is one of this process's:
/// `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N` or
/// `/proc/PID/fd/N` with this process's PID (`/dev/stdout` is a link to
/// one of them).
fn own_descriptor(path: &Path) -> Option<i32> {
    let fd: i32 = path.file_name()?.to_str()?.parse().ok()?;
    let dir = path.parent()?;
    let pid = std::process::id().to_string();
    let own = dir == Path::new("/dev/fd")
        || ["self", "thread-self", pid.as_str()]
            .iter()
            .any(|p| dir == Path::new("/proc").join(p).join("fd"));
    own.then_some(fd)
}

/// Whether `path` is `/proc/PID/fd/N` or `/proc/PID/task/TID/fd/N` (of
/// any process: this one's are found by [`own_descriptor`] first).
fn is_descriptor_link(path: &Path) -> bool {
    let parts: Vec<&str> = path.iter().filter_map(|c| c.to_str()).collect();
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match parts.as_slice() {
        ["/", "proc", pid, "fd", fd] => number(pid) && number(fd),
        ["/", "proc", pid, "task", tid, "fd", fd] => number(pid) && number(tid) && number(fd),
        _ => false,
    }
}

/// A new handle on this process's open descriptor `fd` (sharing its
/// offset and flags, as a shell's `>&N` does).
#[cfg(unix)]
fn inherited(fd: i32) -> io::Result<File> {
    use std::os::fd::BorrowedFd;
    if fd < 0 {
        return Err(io::Error::from_raw_os_error(EBADF));
    }
    // SAFETY: the borrow is used to read the descriptor's flags and to
    // duplicate it, and ends here; a number that is not an open
    // descriptor makes the first call fail with EBADF, which is returned.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    // A descriptor the process was given survived `exec`, so it is not
    // close-on-exec; those the process opens itself (files, its signal
    // handlers' socket) all are, and are no output.
    let flags = rustix::io::fcntl_getfd(borrowed)?;
    if flags.contains(rustix::io::FdFlags::CLOEXEC) {
        return Err(io::Error::from_raw_os_error(EBADF));
    }
    Ok(File::from(borrowed.try_clone_to_owned()?))
}

#[cfg(not(unix))]
fn inherited(_: i32) -> io::Result<File> {
    Err(io::Error::other("descriptors are not files here"))
}

/// What makes two paths the same file: an existing file's identity
/// (device and inode), else the path with its directory made canonical.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    #[cfg(unix)]
    File(u64, u64),
    Path(PathBuf),
}

impl Identity {
    /// The identity of an open file (none where files have no inode).
    fn of_metadata(m: &fs::Metadata) -> Option<Identity> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(Identity::File(m.dev(), m.ino()))
        }
        #[cfg(not(unix))]
        {
            let _ = m;
            None
        }
    }

    /// The identity of `path` (its symbolic links followed); `None` when
    /// its directory cannot be resolved.
    fn of(path: &Path) -> Option<Identity> {
        if let Some(id) = fs::metadata(path).ok().and_then(|m| Identity::of_metadata(&m)) {
            return Some(id);
        }
        if let Ok(p) = fs::canonicalize(path) {
            return Some(Identity::Path(p));
        }
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(Identity::Path(fs::canonicalize(dir).ok()?.join(path.file_name()?)))
    }
}

/// A new temporary file in `dest`'s directory: permission bits (and owner
/// and group, where allowed) of `existing`, else those a new file gets
/// (0666 less the umask).
fn temp_beside(dest: &Path, existing: Option<&fs::Metadata>) -> io::Result<(TempPath, File)> {
    let dir = dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    if existing.is_none() {
        use std::os::unix::fs::PermissionsExt;
        // Masked by the umask, as for any new file.
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let (file, temp) = builder.tempfile_in(dir)?.into_parts();
    if let Some(m) = existing {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // Only root may give a file away; for others the report
            // belongs to whoever ran lgrscan. Before the mode: a change
            // of owner clears set-user-ID bits.
            let _ = std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid()));
        }
        file.set_permissions(m.permissions())?;
    }
    Ok((temp, file))
}

#[cfg(unix)]
fn link_count(m: &fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.nlink()
}

#[cfg(not(unix))]
fn link_count(_: &fs::Metadata) -> u64 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("lgrscan-output-{name}")).tempdir().unwrap()
    }

    fn entries(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn dropped_without_commit_leaves_the_old_file() {
        let d = dir("drop");
        let p = d.path().join("r.csv");
        fs::write(&p, "old").unwrap();
        let mut o = OutputFile::create(&p).unwrap();
        o.write_all(b"new").unwrap();
        assert!(o.temp_path().unwrap().exists());
        drop(o);
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert_eq!(entries(d.path()), ["r.csv"]);
    }

    /// The first bytes can be written last, over those written first:
    /// in a file reserved longer than written too; never past what was
    /// written, and never in place (a FIFO).
    #[test]
    fn first_bytes_are_written_last() {
        let d = dir("start");
        let p = d.path().join("r.idx");
        let mut o = OutputFile::create(&p).unwrap();
        o.reserve(1 << 20);
        o.write_all(b"....middle").unwrap();
        assert!(o.write_at_start(b"...........").is_err());
        o.write_at_start(b"head").unwrap();
        o.write_all(b" end").unwrap();
        o.commit(Durability::Rename).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"headmiddle end");
        #[cfg(unix)]
        {
            let fifo = d.path().join("fifo");
            rustix::fs::mkfifoat(
                rustix::fs::CWD,
                &fifo,
                rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            )
            .unwrap();
            let reader = std::thread::spawn({
                let fifo = fifo.clone();
                move || fs::read(fifo).unwrap()
            });
            let mut o = OutputFile::create(&fifo).unwrap();
            assert!(!o.can_write_at_start());
            o.write_all(b"data").unwrap();
            assert!(o.write_at_start(b"d").is_err());
            o.commit(Durability::Rename).unwrap();
            assert_eq!(reader.join().unwrap(), b"data");
        }
    }

    /// A reservation is a hint: the file has what was written, whether
    /// that is less or more than reserved, and blocks when reserved
    /// (Linux); one made after a write, or into a file with several links,
    /// is not; dropped, the reserved file goes like any other.
    #[test]
    fn reserved_files_have_what_was_written() {
        let d = dir("reserve");
        let p = d.path().join("r.idx");
        fs::write(&p, "old").unwrap();
        for (reserve, write) in [(1 << 20, 1000), (10, 5000), (0, 0), (4096, 4096)] {
            let body: Vec<u8> = (0..write).map(|i| (i % 251) as u8).collect();
            let mut o = OutputFile::create(&p).unwrap();
            o.reserve(reserve);
            #[cfg(target_os = "linux")]
            {
                let temp = fs::metadata(o.temp_path().unwrap()).unwrap();
                assert_eq!(temp.len(), reserve, "reserved at once");
            }
            o.write_all(&body).unwrap();
            o.commit(Durability::Rename).unwrap();
            assert_eq!(fs::read(&p).unwrap(), body, "reserved {reserve}, wrote {write}");
            assert_eq!(entries(d.path()), ["r.idx"]);
        }
        let mut o = OutputFile::create(&p).unwrap();
        o.write_all(b"first").unwrap();
        o.flush().unwrap();
        o.reserve(1 << 20);
        assert_eq!(fs::metadata(o.temp_path().unwrap()).unwrap().len(), 5, "after a write");
        drop(o);
        assert_eq!(entries(d.path()), ["r.idx"]);
        #[cfg(unix)]
        {
            let link = d.path().join("link.idx");
            fs::hard_link(&p, &link).unwrap();
            let mut o = OutputFile::create(&p).unwrap();
            o.reserve(1 << 20);
            assert_eq!(fs::metadata(o.temp_path().unwrap()).unwrap().len(), 0, "several links");
            o.write_all(b"linked").unwrap();
            o.commit(Durability::Rename).unwrap();
            assert_eq!(fs::read(&link).unwrap(), b"linked", "copied into the file both name");
        }
    }

    #[cfg(unix)]
    #[test]
    fn keeps_mode_and_follows_symlinks() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("mode");
        let real = d.path().join("real.csv");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.path().join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        let mut o = OutputFile::create(&link).unwrap();
        o.write_all(b"new").unwrap();
        o.commit(Durability::Rename).unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new");
        assert_eq!(fs::metadata(&real).unwrap().permissions().mode() & 0o7777, 0o640);
        assert_eq!(entries(d.path()), ["link.csv", "real.csv"]);
    }

    #[cfg(unix)]
    #[test]
    fn hard_links_see_the_report() {
        let d = dir("links");
        let a = d.path().join("a.csv");
        let b = d.path().join("b.csv");
        fs::write(&a, "a much longer old report").unwrap();
        fs::hard_link(&a, &b).unwrap();
        let mut o = OutputFile::create(&a).unwrap();
        o.write_all(b"new").unwrap();
        o.commit(Durability::Sync).unwrap();
        assert_eq!(fs::read(&b).unwrap(), b"new");
        assert_eq!(entries(d.path()), ["a.csv", "b.csv"]);
    }

    #[test]
    fn a_failed_rename_removes_the_temporary_file() {
        let d = dir("rename");
        let p = d.path().join("r.csv");
        let mut o = OutputFile::create(&p).unwrap();
        o.write_all(b"new").unwrap();
        // A non-empty directory appears where the report goes.
        fs::create_dir_all(p.join("inside")).unwrap();
        let e = o.commit(Durability::Rename).expect_err("rename over a directory fails");
        assert!(e.to_string().starts_with(&format!("cannot replace {}: ", p.display())), "{e}");
        assert_eq!(entries(d.path()), ["r.csv"]);
        assert!(p.is_dir());
    }

    #[test]
    fn errors_name_the_users_file() {
        let d = dir("errors");
        let p = d.path().join("missing/r.csv");
        let e = OutputFile::create(&p).err().unwrap();
        let msg = e.to_string();
        assert!(msg.starts_with(&format!("cannot create {}: ", p.display())), "{msg}");
        assert!(!msg.contains(".tmp"), "{msg}");
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        let e = OutputFile::create(d.path()).err().unwrap();
        assert!(e.to_string().ends_with("is a directory"), "{e}");
    }

    /// A file the run reads is never replaced, whatever name reaches it;
    /// another file is written as usual.
    #[test]
    fn spares_the_files_the_run_reads() {
        let d = dir("spare");
        let zone = d.path().join("zone.txt");
        fs::write(&zone, "zone").unwrap();
        let refused = |out: &Path, spared: &[&Path]| {
            let e = OutputFile::create_sparing(out, spared).err().expect("refused");
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            assert!(e.to_string().starts_with(&format!("refusing to write {}: ", out.display())));
            assert!(e.to_string().contains(&spared[0].display().to_string()), "{e}");
        };
        refused(&zone, &[&zone]);
        // The same file by another name: relative, through a symbolic link
        // (either side), through a hard link.
        let dotted = d.path().join(".").join("zone.txt");
        refused(&dotted, &[&zone]);
        let link = d.path().join("link.txt");
        std::os::unix::fs::symlink("zone.txt", &link).unwrap();
        refused(&link, &[&zone]);
        refused(&zone, &[&link]);
        let hard = d.path().join("hard.txt");
        fs::hard_link(&zone, &hard).unwrap();
        refused(&hard, &[&zone]);
        // Two outputs of one run, neither written yet.
        let report = d.path().join("report.csv");
        refused(&report, &[&d.path().join(".").join("report.csv")]);
        // Anything else is written; the input stays as it was.
        let mut o = OutputFile::create_sparing(&report, &[&zone, Path::new("-")]).unwrap();
        o.write_all(b"report").unwrap();
        o.commit(Durability::Rename).unwrap();
        assert_eq!(fs::read_to_string(&zone).unwrap(), "zone");
        assert_eq!(fs::read_to_string(&report).unwrap(), "report");
        let mut entries = entries(d.path());
        entries.sort();
        assert_eq!(entries, ["hard.txt", "link.txt", "report.csv", "zone.txt"]);
        // A device is written in place, whatever else the run writes there.
        let null = Path::new("/dev/null");
        assert!(OutputFile::create_sparing(null, &[null]).is_ok());
    }
}

//! Opening inputs: memory maps, streams and gzip.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flate2::read::MultiGzDecoder;
use memmap2::Mmap;

/// Whether regular files are memory-mapped.
///
/// `never()` is the default: files are read as streams. `auto()` maps
/// regular files and reads everything else (pipes, `-`, gzip) as a stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MmapChoice(bool);

impl MmapChoice {
    /// Never map: read every input as a stream.
    pub const fn never() -> MmapChoice {
        MmapChoice(false)
    }

    /// Map regular files when possible, falling back to reading.
    ///
    /// # Safety
    ///
    /// A memory map is only sound while no other process truncates or
    /// changes the file: if one does, reading it may give torn data or kill
    /// the process with SIGBUS. The caller accepts this contract, as with
    /// ripgrep's `--mmap`.
    pub const unsafe fn auto() -> MmapChoice {
        MmapChoice(true)
    }

    /// Whether mapping is enabled.
    pub const fn is_enabled(self) -> bool {
        self.0
    }
}

/// One input to read: a file path, standard input, or bytes in memory.
#[derive(Debug)]
#[non_exhaustive]
pub enum Input {
    /// A file. A name ending in `.gz` is decompressed (multi-member gzip).
    Path(PathBuf),
    /// Standard input, read as a stream (decompressed when it starts with
    /// the gzip magic bytes).
    Stdin,
    /// Bytes already in memory, with a name for messages. Used for tests
    /// and for callers that have the data already.
    Bytes {
        /// Name used in messages and reports.
        name: PathBuf,
        /// The content (gzip is detected by its magic bytes).
        data: Vec<u8>,
    },
}

impl Input {
    /// The input for a command-line argument: `-` is standard input,
    /// anything else a path.
    pub fn from_arg(arg: &str) -> Input {
        if arg == "-" { Input::Stdin } else { Input::Path(PathBuf::from(arg)) }
    }

    /// The name used in messages.
    pub fn name(&self) -> PathBuf {
        match self {
            Input::Path(p) => p.clone(),
            Input::Stdin => PathBuf::from("-"),
            Input::Bytes { name, .. } => name.clone(),
        }
    }
}

impl From<&Path> for Input {
    fn from(p: &Path) -> Input {
        Input::Path(p.to_path_buf())
    }
}

impl From<PathBuf> for Input {
    fn from(p: PathBuf) -> Input {
        Input::Path(p)
    }
}

/// Bytes that labels may borrow from: a map or an owned buffer.
#[derive(Debug)]
pub(crate) enum Data {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Data {
    /// Maps the pages of `start..end` of a map into this process in one
    /// call (Linux `MADV_POPULATE_READ`, since 5.14; nothing elsewhere or
    /// when refused) before a worker reads them, instead of a page fault
    /// every 16 pages or so.
    pub(crate) fn populate(&self, start: usize, end: usize) {
        #[cfg(target_os = "linux")]
        self.advise(memmap2::Advice::PopulateRead, start, end);
        let _ = (start, end);
    }

    /// Starts reading `start..end` of a map from disk, without waiting
    /// (Linux `MADV_WILLNEED`; nothing elsewhere or when refused).
    pub(crate) fn read_ahead(&self, start: usize, end: usize) {
        #[cfg(target_os = "linux")]
        self.advise(memmap2::Advice::WillNeed, start, end);
        let _ = (start, end);
    }

    /// Tells the kernel how `start..end` of a map is read next: probed at
    /// a few places (`sparse`: Linux `MADV_RANDOM`), or in order
    /// (`MADV_SEQUENTIAL`, as the whole map is advised when made). A map
    /// advised in order reads megabytes from disk around each page a probe
    /// touches (the device's read-ahead, 8 MiB here): the probes for the
    /// chunks' bounds, one per 4 MiB, read a whole file larger than the
    /// page cache before any chunk was extracted, and most of it was
    /// evicted again before it was (a .com-sized dump: 27 of its 29.9 GB
    /// in the first 20 s, at 2% CPU).
    pub(crate) fn probing(&self, start: usize, end: usize, sparse: bool) {
        #[cfg(target_os = "linux")]
        self.advise(
            if sparse { memmap2::Advice::Random } else { memmap2::Advice::Sequential },
            start,
            end,
        );
        let _ = (start, end, sparse);
    }

    /// Gives `advice` for `start..end` of a map ([`advise_map`]).
    #[cfg(target_os = "linux")]
    fn advise(&self, advice: memmap2::Advice, start: usize, end: usize) {
        if let Data::Mapped(m) = self {
            advise_map(m, advice, start, end);
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Data::Mapped(m) => m,
            Data::Owned(v) => v,
        }
    }
}

impl Data {
    /// Releases the pages of `start..end` of a map from this process's
    /// resident memory; they are read again from the file if touched.
    pub(crate) fn release(&self, start: usize, end: usize) {
        #[cfg(unix)]
        if let Data::Mapped(m) = self
            && start < end
            && end <= m.len()
        {
            // SAFETY: the map is a read-only shared mapping of a file:
            // MADV_DONTNEED drops the page table entries only, and a later
            // read faults the same bytes in again from the page cache, so
            // no slice into the map sees different data.
            let _ = unsafe {
                m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
            };
        }
        let _ = (start, end);
    }
}

/// Gives `advice` for `start..end` of `map` (a hint: a refusal, an empty
/// range or one outside the map changes nothing; nothing elsewhere than
/// Linux). The input's maps and the index's take their advice through it.
pub(crate) fn advise_map(map: &Mmap, advice: memmap2::Advice, start: usize, end: usize) {
    #[cfg(target_os = "linux")]
    if start < end && end <= map.len() {
        let _ = map.advise_range(advice, start, end - start);
    }
    let _ = (map, advice, start, end);
}

/// An opened input: all of it in memory (mapped or given), or a stream.
pub(crate) enum Opened {
    Whole(Arc<Data>),
    Stream { reader: Box<dyn Read>, gzip: bool },
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Opens an input.
pub(crate) fn open(input: Input, mmap: MmapChoice) -> io::Result<Opened> {
    match input {
        Input::Stdin => sniff_stream(Box::new(io::stdin())),
        Input::Bytes { data, .. } => {
            if data.starts_with(&GZIP_MAGIC) {
                Ok(Opened::Stream {
                    reader: Box::new(MultiGzDecoder::new(io::Cursor::new(data))),
                    gzip: true,
                })
            } else {
                Ok(Opened::Whole(Arc::new(Data::Owned(data))))
            }
        }
        Input::Path(p) => open_path(&p, mmap),
    }
}

pub(crate) fn open_path(path: &Path, mmap: MmapChoice) -> io::Result<Opened> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "is a directory"));
    }
    let gz = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    if gz {
        return Ok(Opened::Stream {
            reader: Box::new(MultiGzDecoder::new(io::BufReader::new(file))),
            gzip: true,
        });
    }
    if mmap.is_enabled() && meta.is_file() && meta.len() > 0 {
        // SAFETY: the caller chose `MmapChoice::auto()`, whose contract is
        // that the file is not changed while it is mapped.
        if let Ok(map) = unsafe { Mmap::map(&file) } {
            #[cfg(unix)]
            let _ = map.advise(memmap2::Advice::Sequential);
            if map.starts_with(&GZIP_MAGIC) {
                return Ok(Opened::Stream {
                    reader: Box::new(MultiGzDecoder::new(io::Cursor::new(map))),
                    gzip: true,
                });
            }
            return Ok(Opened::Whole(Arc::new(Data::Mapped(map))));
        }
    }
    sniff_stream(Box::new(file))
}

/// Wraps a stream, decompressing it when it starts with the gzip magic.
fn sniff_stream(mut reader: Box<dyn Read>) -> io::Result<Opened> {
    let mut head = [0u8; 2];
    let mut n = 0;
    while n < 2 {
        match reader.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let chained: Box<dyn Read> = Box::new(io::Cursor::new(head[..n].to_vec()).chain(reader));
    if n == 2 && head == GZIP_MAGIC {
        Ok(Opened::Stream { reader: Box::new(MultiGzDecoder::new(chained)), gzip: true })
    } else {
        Ok(Opened::Stream { reader: chained, gzip: false })
    }
}

impl std::ops::Deref for Data {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.bytes()
    }
}

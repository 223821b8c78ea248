//! Drives the parsers over mapped buffers and streams.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::Arc;

use super::collect::{Collector, Loc};
use super::czds;
use super::labels::{LabelSet, SourceInfo};
use super::source::{self, Data, Input, Opened};
use super::zone::{self, ZoneState};
use super::{
    Config, Error, ErrorKind, InputFormat, Malformed, Strictness, csv, detect, list, name,
};

/// How much of a stream is read at a time.
const CHUNK: usize = 16 << 20;

pub(crate) struct Reader<'c> {
    pub(crate) c: Collector,
    pub(crate) config: &'c Config,
}

/// Bytes of mapped data fed to a parser at a time (progress granularity).
const WINDOW: usize = 16 << 20;

/// A parser of one source fed with buffers of complete lines.
enum Parser {
    Zone(Box<ZoneState>),
    List(list::ListState),
}

impl<'c> Reader<'c> {
    pub(crate) fn new(config: &'c Config) -> Result<Reader<'c>, Error> {
        let mut c = Collector::new(config.strictness, config.ns);
        if let Some(o) = &config.origin {
            let bad = |e: String| Error::new(ErrorKind::BadOrigin(format!("{o:?}: {e}")));
            let p = name::parse(o.as_bytes()).map_err(bad)?;
            c.set_apex(p.labels);
        }
        Ok(Reader { c, config })
    }

    /// What settles plain labels in this read, if anything (see
    /// [`super::settle`]).
    pub(crate) fn settler(&self) -> Option<&'c dyn super::Settle> {
        self.config.settle.as_ref().filter(|_| self.c.settle).map(|s| &*s.0)
    }

    pub(crate) fn finish(self) -> LabelSet {
        self.c.finish()
    }

    fn add_source(
        &mut self,
        path: PathBuf,
        included_by: Option<u32>,
        opened: &Opened,
    ) -> Result<u32, Error> {
        let idx = self.c.set.sources.len();
        let idx = u16::try_from(idx)
            .map_err(|_| Error::new(ErrorKind::Io(io::Error::other("more than 65535 sources"))))?;
        let (data, gzip) = match opened {
            Opened::Whole(d) => (Some(Arc::clone(d)), false),
            Opened::Stream { gzip, .. } => (None, *gzip),
        };
        let mapped = matches!(data.as_deref(), Some(Data::Mapped(_)));
        self.c.set.sources.push(SourceInfo {
            path,
            format: InputFormat::List,
            czds_profile: false,
            mapped,
            gzip,
            included_by,
            data,
        });
        Ok(u32::from(idx))
    }

    pub(crate) fn read_input(&mut self, input: Input) -> Result<(), Error> {
        let name = input.name();
        let opened = source::open(input, self.config.mmap)
            .map_err(|e| Error::new(ErrorKind::Io(e)).with_path(&name))?;
        let idx = self.add_source(name.clone(), None, &opened)?;
        let canon = std::fs::canonicalize(&name).unwrap_or_else(|_| name.clone());
        self.read_opened(idx, opened, self.config.format, vec![name], vec![canon], None)
    }

    pub(crate) fn read_include(
        &mut self,
        path: PathBuf,
        parent: u32,
        chain: Vec<PathBuf>,
        canon_chain: Vec<PathBuf>,
        origin: Option<Vec<Vec<u8>>>,
    ) -> Result<(), Error> {
        let opened = source::open_path(&path, self.config.mmap)
            .map_err(|e| Error::new(ErrorKind::IncludeMissing(e)))?;
        let idx = self.add_source(path, Some(parent), &opened)?;
        self.read_opened(idx, opened, Some(InputFormat::Zone), chain, canon_chain, origin)
    }

    fn make_parser(
        &mut self,
        idx: u32,
        head: &[u8],
        forced: Option<InputFormat>,
        chain: Vec<PathBuf>,
        canon_chain: Vec<PathBuf>,
        origin: Option<Vec<Vec<u8>>>,
    ) -> (InputFormat, Option<Parser>) {
        let format = forced.unwrap_or_else(|| detect::detect(head));
        let src = &mut self.c.set.sources[idx as usize];
        src.format = format;
        let mapped = src.data.is_some();
        let parser = match format {
            InputFormat::Zone => {
                let mut st =
                    ZoneState::new(idx, src.path.clone(), chain, canon_chain, origin, mapped);
                st.detect_fast(head);
                Some(Parser::Zone(Box::new(st)))
            }
            InputFormat::List => Some(Parser::List(list::ListState::new(idx, mapped))),
            _ => None,
        };
        (format, parser)
    }

    fn feed(&mut self, p: &mut Parser, buf: &[u8], base: u64, eof: bool) -> Result<usize, Error> {
        match p {
            Parser::Zone(st) => zone::parse(self, st, buf, base, eof),
            Parser::List(st) => list::parse(self, st, buf, base, eof),
        }
    }

    fn read_opened(
        &mut self,
        idx: u32,
        opened: Opened,
        forced: Option<InputFormat>,
        chain: Vec<PathBuf>,
        canon_chain: Vec<PathBuf>,
        origin: Option<Vec<Vec<u8>>>,
    ) -> Result<(), Error> {
        match opened {
            Opened::Whole(data) => {
                let bytes: &[u8] = data.bytes();
                self.c.set.accounting.bytes += bytes.len() as u64;
                let head = &bytes[..bytes.len().min(64 * 1024)];
                let (format, parser) =
                    self.make_parser(idx, head, forced, chain, canon_chain, origin);
                match parser {
                    Some(mut p) => {
                        // Windows of the mapped data, as a stream is fed,
                        // so progress can be reported between them.
                        // A zone's first window is small: once it has
                        // given the apex, a CZDS dump goes parallel.
                        let first = match self.config.chunk {
                            Some(c) => c,
                            None if format == InputFormat::Zone => 64 << 10,
                            None => WINDOW,
                        };
                        let full = self.config.chunk.unwrap_or(WINDOW);
                        let (mut pos, mut window) = (0usize, first);
                        loop {
                            if pos > 0
                                && let Parser::Zone(st) = &mut p
                                && let Some(apex) = zone::fast_apex(self, st)
                            {
                                let next = czds::parallel(self, st, &data, pos, &apex)?;
                                if next >= bytes.len() {
                                    break;
                                }
                                pos = next;
                            }
                            let end = (pos + window).min(bytes.len());
                            let eof = end == bytes.len();
                            let consumed = self.feed(&mut p, &bytes[pos..end], pos as u64, eof)?;
                            if eof {
                                self.config.report(bytes.len() - pos);
                                break;
                            }
                            if consumed == 0 {
                                // An entry longer than the window.
                                window = window.saturating_mul(2);
                                continue;
                            }
                            self.config.report(consumed);
                            pos += consumed;
                            window = full;
                        }
                        self.mark_czds(idx, &p);
                    }
                    None => {
                        debug_assert_eq!(format, InputFormat::Csv);
                        csv::parse(self, idx, bytes)?;
                    }
                }
                Ok(())
            }
            Opened::Stream { mut reader, .. } => {
                let chunk = self.config.chunk.unwrap_or(CHUNK);
                let mut buf = Vec::with_capacity(chunk);
                // The first 64 KiB at least: the format is detected on them.
                let mut eof = fill(self, idx, &mut reader, &mut buf, chunk.max(64 << 10))?;
                let head = &buf[..buf.len().min(64 * 1024)];
                let (_, parser) = self.make_parser(idx, head, forced, chain, canon_chain, origin);
                let Some(mut p) = parser else {
                    // CSV reads the stream itself.
                    let counted = CountingReader {
                        inner: io::Cursor::new(buf).chain(reader),
                        bytes: 0,
                        error: None,
                    };
                    return csv::parse_stream(self, idx, counted);
                };
                self.c.set.accounting.bytes += buf.len() as u64;
                let mut base = 0u64;
                loop {
                    let consumed = self.feed(&mut p, &buf, base, eof)?;
                    if eof {
                        self.config.report(buf.len());
                        break;
                    }
                    self.config.report(consumed);
                    buf.drain(..consumed);
                    base += consumed as u64;
                    let before = buf.len();
                    // Grow the buffer when one entry is longer than a chunk.
                    let want = if consumed == 0 { buf.len() + chunk } else { chunk };
                    eof = fill(self, idx, &mut reader, &mut buf, want.max(chunk))?;
                    self.c.set.accounting.bytes += (buf.len() - before) as u64;
                }
                self.mark_czds(idx, &p);
                Ok(())
            }
        }
    }

    fn mark_czds(&mut self, idx: u32, p: &Parser) {
        if let Parser::Zone(st) = p {
            self.c.set.sources[idx as usize].czds_profile = st.fast;
        }
    }

    /// Handles a read error on a stream: a gzip error is recorded (or is an
    /// error under `--strict`); any other is an error.
    pub(crate) fn stream_error(
        &mut self,
        idx: u32,
        e: io::Error,
        offset: u64,
    ) -> Result<(), Error> {
        let path = self.c.path(idx).to_path_buf();
        let gzip = self.c.set.sources[idx as usize].gzip;
        if !gzip {
            return Err(Error::new(ErrorKind::Io(e)).with_path(&path));
        }
        if self.config.strictness == Strictness::Strict {
            return Err(Error::new(ErrorKind::Gzip(e)).at(&path, 0, Some(offset)));
        }
        let loc = Loc { source: idx, line: 0, offset };
        self.c.set.accounting.stream_errors.push(Malformed {
            source: loc.source,
            line: 0,
            offset,
            reason: format!("gzip stream truncated or corrupt after {offset} bytes: {e}"),
        });
        Ok(())
    }
}

/// Reads until `buf` has at least `want` bytes or the stream ends. Returns
/// whether it ended.
fn fill(
    r: &mut Reader<'_>,
    idx: u32,
    reader: &mut Box<dyn Read>,
    buf: &mut Vec<u8>,
    want: usize,
) -> Result<bool, Error> {
    let mut tmp = vec![0u8; want.min(256 * 1024)];
    while buf.len() < want {
        let room = (want - buf.len()).min(tmp.len());
        match reader.read(&mut tmp[..room]) {
            Ok(0) => return Ok(true),
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                let offset = r.c.set.accounting.bytes + buf.len() as u64;
                r.stream_error(idx, e, offset)?;
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// A reader that counts bytes and turns a read error into end of stream,
/// keeping the error for the caller.
pub(crate) struct CountingReader<R> {
    pub(crate) inner: R,
    pub(crate) bytes: u64,
    pub(crate) error: Option<io::Error>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.error.is_some() {
            return Ok(0);
        }
        loop {
            match self.inner.read(out) {
                Ok(n) => {
                    self.bytes += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.error = Some(e);
                    return Ok(0);
                }
            }
        }
    }
}

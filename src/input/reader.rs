//! Drives the parsers over mapped buffers and streams.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::Arc;

use super::collect::Collector;
use super::labels::{LabelSet, SourceInfo};
use super::source::{self, Data, Input, Opened};
use super::zone::{self, Include, MAX_INCLUDES, ZoneState};
use super::{Config, Error, ErrorKind, InputFormat, MAX_LINE_BYTES, csv, detect, list, name};
use crate::idna2008::suffix_alabel;

/// How much of a stream is read at a time.
const CHUNK: usize = 16 << 20;

pub(crate) struct Reader<'c> {
    pub(crate) c: Collector,
    pub(crate) config: &'c Config,
    /// The origin a zone file given as input starts under: `--origin`,
    /// as a zone statement gives it to named (RFC 1035 §5.1: relative
    /// names and `@` before any `$ORIGIN` are relative to it).
    initial_origin: Option<Vec<Vec<u8>>>,
}

/// Bytes of mapped data fed to a parser at a time (progress granularity).
const WINDOW: usize = 16 << 20;

/// The UTF-8 byte order mark, accepted (and skipped) at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A parser of one source fed with buffers of complete lines.
enum Parser {
    Zone(Box<ZoneState>),
    List(list::ListState),
    Csv(Box<csv::CsvState>),
}

impl Parser {
    /// The number of the next line the parser reads (1-based).
    fn line(&self) -> u64 {
        match self {
            Parser::Zone(st) => st.line,
            Parser::List(st) => st.line,
            Parser::Csv(st) => st.line,
        }
    }

    fn source(&self) -> u32 {
        match self {
            Parser::Zone(st) => st.source,
            Parser::List(st) => st.source,
            Parser::Csv(st) => st.source,
        }
    }

    /// Moves past a line the reader skipped.
    fn skip_line(&mut self) {
        match self {
            Parser::Zone(st) => st.line += 1,
            Parser::List(st) => st.line += 1,
            Parser::Csv(st) => st.line += 1,
        }
    }
}

impl<'c> Reader<'c> {
    pub(crate) fn new(config: &'c Config) -> Result<Reader<'c>, Error> {
        let mut c = Collector::new(config.strictness, config.ns);
        c.record_text_max = config.record_text_max.min(super::labels::MAX_RECORD_TEXT);
        let mut initial_origin = None;
        if let Some(o) = &config.origin {
            let bad = |e: String| Error::new(ErrorKind::BadOrigin(format!("{o:?}: {e}")));
            let mut p = name::parse(o.as_bytes()).map_err(bad)?;
            // A zone holds A-labels (RFC 5891 §4.5): `--origin рф` (or
            // `РФ`: an apex is compared, not judged) is the zone `xn--p1ai.`.
            for l in p.labels.iter_mut().filter(|l| !l.is_ascii()) {
                let alabel = std::str::from_utf8(l).ok().and_then(suffix_alabel);
                *l = alabel
                    .ok_or_else(|| bad("a label is not a valid U-label".into()))?
                    .into_bytes();
            }
            initial_origin = Some(p.labels.clone());
            c.set_apex(p.labels);
        }
        Ok(Reader { c, config, initial_origin })
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
        let origin = self.initial_origin.clone();
        let lines_before = self.c.set.accounting.lines;
        self.read_opened(idx, opened, self.config.format, vec![name.clone()], vec![canon], origin)?;
        // An input of no line at all (what a failed download leaves) is an
        // error, not a zone with nothing to report; one of comment lines
        // only says it is empty on purpose (a registry with no names yet).
        if self.c.set.accounting.lines == lines_before {
            let e = Error::new(ErrorKind::NoLabels("the input is empty (0 lines)".into()));
            return Err(e.with_path(&name));
        }
        Ok(())
    }

    pub(crate) fn read_include(
        &mut self,
        path: PathBuf,
        parent: u32,
        chain: Vec<PathBuf>,
        canon_chain: Vec<PathBuf>,
        origin: Option<Vec<Vec<u8>>>,
    ) -> Result<(), Error> {
        // Read as a stream, not mapped: a zone of thousands of includes
        // must not keep thousands of maps (the kernel's limit is ~65,530).
        let opened = source::open_path(&path, source::MmapChoice::never())
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
    ) -> (InputFormat, Parser) {
        let src = &mut self.c.set.sources[idx as usize];
        let format = forced.unwrap_or_else(|| detect::detect(head, detect::csv_name(&src.path)));
        src.format = format;
        let mapped = src.data.is_some();
        let parser = match format {
            InputFormat::Zone => {
                let mut st =
                    ZoneState::new(idx, src.path.clone(), chain, canon_chain, origin, mapped);
                st.detect_fast(head, self.config.zone_fast_path);
                Parser::Zone(Box::new(st))
            }
            InputFormat::List => Parser::List(list::ListState::new(idx, mapped)),
            InputFormat::Csv => {
                Parser::Csv(Box::new(csv::CsvState::new(idx, self.config.delimiter)))
            }
        };
        (format, parser)
    }

    fn feed(&mut self, p: &mut Parser, buf: &[u8], base: u64, eof: bool) -> Result<usize, Error> {
        match p {
            Parser::Zone(st) => zone::parse(&mut self.c, self.config, st, buf, base, eof),
            Parser::List(st) => list::parse(&mut self.c, st, buf, base, eof, self.config.chunk),
            Parser::Csv(st) => csv::parse(&mut self.c, st, buf, base, eof, self.config.chunk),
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
                {
                    let mut p = parser;
                    {
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
                        let start = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
                        let (mut pos, mut window) = (start, first);
                        loop {
                            if pos > start
                                && let Parser::Zone(st) = &mut p
                                && let Some(apex) = zone::fast_apex(&self.c, st)
                            {
                                let next = zone::parallel(
                                    &mut self.c,
                                    self.config,
                                    st,
                                    &data,
                                    pos,
                                    &apex,
                                )?;
                                if next >= bytes.len() {
                                    break;
                                }
                                pos = next;
                            }
                            let end = (pos + window).min(bytes.len());
                            let eof = end == bytes.len();
                            let consumed = self.feed(&mut p, &bytes[pos..end], pos as u64, eof)?;
                            if self.read_pending_include(&mut p)? {
                                self.config.report(consumed);
                                pos += consumed;
                                window = full;
                                continue;
                            }
                            if eof {
                                self.config.report(bytes.len() - pos);
                                break;
                            }
                            if consumed == 0 && end - pos >= MAX_LINE_BYTES {
                                self.overlong_line(&mut p, pos as u64)?;
                                let next = skip_mapped_line(&data, pos);
                                self.config.report(next - pos);
                                pos = next;
                                window = full;
                                continue;
                            }
                            if consumed == 0 {
                                // An entry longer than the window.
                                window = window.saturating_mul(2);
                                continue;
                            }
                            self.config.report(consumed);
                            if let Parser::Csv(_) = p {
                                // Rows keep copies of their fields: the map's
                                // pages read need not stay resident.
                                data.release(pos, pos + consumed);
                            }
                            pos += consumed;
                            window = full;
                        }
                        self.mark_czds(idx, &p);
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
                let mut p = parser;
                self.c.set.accounting.bytes += buf.len() as u64;
                let mut base = 0u64;
                if buf.starts_with(BOM) {
                    buf.drain(..BOM.len());
                    base = BOM.len() as u64;
                }
                loop {
                    let consumed = self.feed(&mut p, &buf, base, eof)?;
                    if self.read_pending_include(&mut p)? {
                        self.config.report(consumed);
                        buf.drain(..consumed);
                        base += consumed as u64;
                        continue;
                    }
                    if consumed == 0 && buf.len() >= MAX_LINE_BYTES {
                        self.overlong_line(&mut p, base)?;
                        let (skipped, end) = skip_line(self, idx, &mut reader, &mut buf)?;
                        base += skipped;
                        eof = end;
                        continue;
                    }
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

    /// Reads the file of an `$INCLUDE` the zone parser just met, if any,
    /// before the rest of the including file (RFC 1035 §5.1). Returns
    /// whether there was one.
    fn read_pending_include(&mut self, p: &mut Parser) -> Result<bool, Error> {
        let Parser::Zone(st) = p else { return Ok(false) };
        let Some(inc) = st.include.take() else { return Ok(false) };
        let Include { path, origin, loc } = inc;
        let mut chain = st.chain.clone();
        chain.push(path.clone());
        let here = st.path.clone();
        let err =
            |kind| Error::new(kind).at(&here, loc.line, Some(loc.offset)).with_chain(chain.clone());
        let canon = match std::fs::canonicalize(&path) {
            Ok(c) => c,
            Err(e) => return Err(err(ErrorKind::IncludeMissing(e))),
        };
        // A device, pipe or socket could be endless (`/dev/zero`) or block:
        // an included zone is a file.
        match std::fs::metadata(&canon) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                let e = io::Error::new(io::ErrorKind::InvalidInput, "not a regular file");
                return Err(err(ErrorKind::IncludeMissing(e)));
            }
            Err(e) => return Err(err(ErrorKind::IncludeMissing(e))),
        }
        if st.canon_chain.contains(&canon) {
            return Err(err(ErrorKind::IncludeLoop));
        }
        let limit = self.config.include_depth;
        if st.chain.len() > limit {
            return Err(err(ErrorKind::IncludeDepth(limit)));
        }
        if self.c.set.accounting.includes >= MAX_INCLUDES {
            return Err(err(ErrorKind::IncludeCount(MAX_INCLUDES)));
        }
        let mut canon_chain = st.canon_chain.clone();
        canon_chain.push(canon);
        self.c.set.accounting.includes += 1;
        let chain2 = chain.clone();
        self.read_include(path, st.source, chain, canon_chain, origin).map_err(|e| {
            if e.path().is_some() {
                e
            } else {
                e.at(&here, loc.line, Some(loc.offset)).with_chain(chain2)
            }
        })?;
        Ok(true)
    }

    /// Counts the line at `offset` as malformed: it is longer than
    /// [`MAX_LINE_BYTES`].
    fn overlong_line(&mut self, p: &mut Parser, offset: u64) -> Result<(), Error> {
        let loc = super::collect::Loc { source: p.source(), line: p.line(), offset };
        p.skip_line();
        self.c.set.accounting.lines += 1;
        self.c.malformed(loc, format!("line longer than {MAX_LINE_BYTES} bytes"))
    }

    fn mark_czds(&mut self, idx: u32, p: &Parser) {
        if let Parser::Zone(st) = p {
            self.c.set.sources[idx as usize].czds_profile = st.czds;
        }
    }

    /// A read error on a stream stops the run: what was read before it may
    /// end in the middle of a line, which must not be taken as a label, and
    /// an audit of part of a file would be reported as an audit of all of
    /// it. `offset` is the number of (decompressed) bytes read before it.
    pub(crate) fn stream_error(&self, idx: u32, e: io::Error, offset: u64) -> Error {
        let path = self.c.path(idx).to_path_buf();
        if self.c.set.sources[idx as usize].gzip {
            Error::new(ErrorKind::Gzip(e)).at(&path, 0, Some(offset))
        } else {
            Error::new(ErrorKind::Io(e)).at(&path, 0, Some(offset))
        }
    }
}

/// The end of the line at `pos` of mapped `data` (after its newline),
/// found a window at a time, releasing the pages of each window searched:
/// a line of gigabytes is skipped without becoming resident.
fn skip_mapped_line(data: &Data, pos: usize) -> usize {
    let bytes = data.bytes();
    let mut at = pos;
    loop {
        let end = (at + WINDOW).min(bytes.len());
        if let Some(k) = memchr::memchr(b'\n', &bytes[at..end]) {
            return at + k + 1;
        }
        data.release(at, end);
        if end == bytes.len() {
            return end;
        }
        at = end;
    }
}

/// Drops the line at the start of `buf` (at `base` in the source), reading
/// the stream until its end, without holding more than a chunk. Returns
/// the bytes dropped and whether the stream ended.
fn skip_line(
    r: &mut Reader<'_>,
    idx: u32,
    reader: &mut Box<dyn Read>,
    buf: &mut Vec<u8>,
) -> Result<(u64, bool), Error> {
    let mut skipped = 0u64;
    loop {
        if let Some(k) = memchr::memchr(b'\n', buf) {
            buf.drain(..=k);
            skipped += k as u64 + 1;
            r.config.report(k + 1);
            let before = buf.len();
            let eof = fill(r, idx, reader, buf, CHUNK)?;
            r.c.set.accounting.bytes += (buf.len() - before) as u64;
            return Ok((skipped, eof));
        }
        skipped += buf.len() as u64;
        r.config.report(buf.len());
        buf.clear();
        let eof = fill(r, idx, reader, buf, CHUNK)?;
        r.c.set.accounting.bytes += buf.len() as u64;
        if eof && memchr::memchr(b'\n', buf).is_none() {
            skipped += buf.len() as u64;
            buf.clear();
            return Ok((skipped, true));
        }
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
    let start_len = buf.len();
    while buf.len() < want {
        let room = (want - buf.len()).min(tmp.len());
        match reader.read(&mut tmp[..room]) {
            Ok(0) => return Ok(true),
            Ok(n) => buf.extend_from_slice(&tmp[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // Bytes before this call are in the accounting already.
                let offset = r.c.set.accounting.bytes + (buf.len() - start_len) as u64;
                return Err(r.stream_error(idx, e, offset));
            }
        }
    }
    Ok(false)
}

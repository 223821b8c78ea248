//! The byte layout of a saved index file, its writer and its checked
//! reader.
//!
//! ```text
//! 0   magic "LGRSIDX\0"                      8 bytes
//! 8   format version (u32 LE, FORMAT_VERSION)
//! 12  header length H (u32 LE)
//! 16  CRC-32 of the header (u32 LE)
//! 20  zero (u32)
//! 24  header: UTF-8 JSON, then perhaps spaces: H bytes
//! 24+H          data region: D bytes (the header's `data_len`)
//! 24+H+D        CRC-32 of each BLOCK-byte block of the data region (u32 LE each)
//! EOF-4         CRC-32 of that block table
//! ```
//!
//! The file's length must be exactly that sum. The header names every
//! section of the data region by `[offset, length]`; the block table comes
//! last so that the file is written as one stream. A writer that cannot
//! know the whole header yet (the inputs' digests, computed beside the
//! build) may write zeros in its place, with room for the longest header
//! it could be, and the header last, padded with spaces to that room
//! ([`DataWriter::begin_unsealed`], [`start`]). A reader maps the file and
//! checks a block's CRC the first time it reads from it, so a one-label
//! look-up touches a few pages, not the file, and a flipped or missing
//! byte is an error when it would be read, never a wrong answer from
//! damaged data, a panic or an access out of bounds. CRC-32 (crc32fast)
//! rather than a cryptographic hash: it guards against damage, not against
//! forgery (the LGR and input hashes in the header are SHA-256).

use super::Error;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"LGRSIDX\0";
/// The layout version this reader reads and the writer writes: 3 since
/// keys are hashed as their UTF-8 text ([`super::key_hash_utf8`]); an
/// index of an earlier version is refused (its entries are under other
/// hashes), to be built again.
pub const FORMAT_VERSION: u32 = 3;
/// Bytes of the fixed prefix before the header.
const PREFIX: usize = 24;
/// Bytes per checked block of the data region.
pub const BLOCK: usize = 64 << 10;
/// Bytes of the data region per look-up from which a batch of look-ups
/// reads the whole region ahead (see [`Checked::expect_lookups`]).
const LOOKUP_SPAN: u64 = 1 << 20;
/// The largest header accepted (it holds names and hashes, not labels).
const MAX_HEADER: usize = 16 << 20;

/// Writes an index file as a stream: [`DataWriter::begin`] writes the
/// prefix and the header (whose `data_len` the caller set), the caller
/// writes exactly `data_len` bytes of data through it, and
/// [`DataWriter::finish`] appends the block table and its CRC-32. Nothing
/// is held but the block CRCs.
pub struct DataWriter<'a> {
    out: &'a mut dyn std::io::Write,
    crc: crc32fast::Hasher,
    in_block: usize,
    crcs: Vec<u8>,
    written: u64,
    data_len: u64,
}

impl<'a> DataWriter<'a> {
    /// Writes the prefix and `header` (with `block_size` added).
    ///
    /// # Errors
    /// Writing `out`; a header without `data_len`.
    pub fn begin(
        out: &'a mut dyn std::io::Write,
        header: serde_json::Map<String, serde_json::Value>,
    ) -> std::io::Result<DataWriter<'a>> {
        let data_len = data_len(&header)?;
        out.write_all(&start(header, None)?)?;
        Ok(DataWriter::after_start(out, data_len))
    }

    /// Writes zeros where the prefix and `widest` (the header with room
    /// for any value still unknown) go, to be replaced by [`start`] with
    /// the final header once it is known; returns their length.
    ///
    /// # Errors
    /// As [`DataWriter::begin`].
    pub fn begin_unsealed(
        out: &'a mut dyn std::io::Write,
        widest: serde_json::Map<String, serde_json::Value>,
    ) -> std::io::Result<(DataWriter<'a>, usize)> {
        let data_len = data_len(&widest)?;
        let room = start(widest, None)?.len();
        out.write_all(&vec![0; room])?;
        Ok((DataWriter::after_start(out, data_len), room))
    }

    fn after_start(out: &'a mut dyn std::io::Write, data_len: u64) -> DataWriter<'a> {
        DataWriter {
            out,
            crc: crc32fast::Hasher::new(),
            in_block: 0,
            crcs: Vec::new(),
            written: 0,
            data_len,
        }
    }

    /// Appends data.
    ///
    /// # Errors
    /// Writing the output.
    pub fn put(&mut self, mut buf: &[u8]) -> std::io::Result<()> {
        self.out.write_all(buf)?;
        self.written += buf.len() as u64;
        while !buf.is_empty() {
            let n = buf.len().min(BLOCK - self.in_block);
            self.crc.update(&buf[..n]);
            self.in_block += n;
            buf = &buf[n..];
            if self.in_block == BLOCK {
                let done = std::mem::replace(&mut self.crc, crc32fast::Hasher::new());
                self.crcs.extend_from_slice(&done.finalize().to_le_bytes());
                self.in_block = 0;
            }
        }
        Ok(())
    }

    /// Bytes of data written so far.
    pub fn position(&self) -> u64 {
        self.written
    }

    /// Appends the block table and its CRC-32.
    ///
    /// # Errors
    /// Writing the output, or a data length other than the header's.
    pub fn finish(mut self) -> std::io::Result<()> {
        if self.written != self.data_len {
            return Err(std::io::Error::other(format!(
                "index data is {} bytes, the header says {}",
                self.written, self.data_len
            )));
        }
        if self.in_block > 0 {
            let done = std::mem::replace(&mut self.crc, crc32fast::Hasher::new());
            self.crcs.extend_from_slice(&done.finalize().to_le_bytes());
        }
        self.out.write_all(&self.crcs)?;
        self.out.write_all(&crc32fast::hash(&self.crcs).to_le_bytes())
    }
}

fn data_len(header: &serde_json::Map<String, serde_json::Value>) -> std::io::Result<u64> {
    header
        .get("data_len")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| std::io::Error::other("header without data_len"))
}

/// The first bytes of an index file: the prefix and `header` (with
/// `block_size` added). With `room`, the header is padded with spaces
/// (JSON whitespace) so that both come to exactly `room` bytes.
///
/// # Errors
/// A header too long for its `room`, or over 4 GiB.
pub fn start(
    mut header: serde_json::Map<String, serde_json::Value>,
    room: Option<usize>,
) -> std::io::Result<Vec<u8>> {
    header.insert("block_size".into(), (BLOCK as u64).into());
    let mut text = serde_json::to_vec(&serde_json::Value::Object(header))?;
    if let Some(room) = room {
        let pad = room.checked_sub(PREFIX + text.len()).ok_or_else(|| {
            std::io::Error::other("the index header outgrew the room left for it")
        })?;
        text.resize(text.len() + pad, b' ');
    }
    let len = u32::try_from(text.len()).map_err(std::io::Error::other)?;
    let mut out = Vec::with_capacity(PREFIX + text.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&text).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&text);
    Ok(out)
}

/// The bytes of an index file: mapped, or in memory (an index built on the
/// fly for `check --against INPUT`).
#[derive(Debug)]
pub enum Backing {
    /// A read-only memory map of the file.
    Map(memmap2::Mmap),
    /// Bytes in memory.
    Owned(Vec<u8>),
}

impl Backing {
    /// Gives `advice` for `start..start + len` of a map (a hint: see
    /// [`crate::input::advise_map`]; nothing for bytes in memory).
    fn advise(&self, advice: memmap2::Advice, start: usize, len: usize) {
        if let Backing::Map(m) = self {
            crate::input::advise_map(m, advice, start, start.saturating_add(len));
        }
    }
}

impl std::ops::Deref for Backing {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Backing::Map(m) => m,
            Backing::Owned(v) => v,
        }
    }
}

/// A checked view of an index file: its header and its data region, whose
/// blocks are checked on first read.
#[derive(Debug)]
pub struct Checked {
    bytes: Backing,
    /// The parsed header.
    pub header: serde_json::Map<String, serde_json::Value>,
    data_start: usize,
    data_len: usize,
    crcs_start: usize,
    /// One bit per block: its CRC matched.
    verified: Vec<AtomicU64>,
    /// Whether the map is advised to be read at random (see
    /// [`Checked::expect_lookups`]).
    at_random: AtomicBool,
    /// The file's path, which a damaged block's error names (empty for an
    /// index in memory).
    pub(crate) path: String,
}

fn le32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

impl Checked {
    /// Checks the prefix, the header and the block table (not the blocks).
    ///
    /// # Errors
    /// A file that is not an index, of another format version, truncated,
    /// with trailing bytes, or whose header or block table is damaged.
    pub fn new(bytes: Backing) -> Result<Checked, Error> {
        // Look-ups read a map here and there (see `Checked::expect_lookups`).
        bytes.advise(memmap2::Advice::Random, 0, bytes.len());
        let b = &bytes[..];
        if b.len() < PREFIX || &b[..8] != MAGIC {
            return Err(Error::new("not an lgrscan index (bad magic bytes or too short)"));
        }
        let version = le32(b, 8);
        if version != FORMAT_VERSION {
            return Err(Error::new(format!(
                "index format version {version}, this lgrscan reads version {FORMAT_VERSION}: \
                 build the index again with this lgrscan (`lgrscan index`)"
            )));
        }
        if le32(b, 20) != 0 {
            return Err(Error::new("damaged index: reserved bytes are not zero"));
        }
        let hlen = le32(b, 12) as usize;
        if hlen > MAX_HEADER || b.len() < PREFIX + hlen {
            return Err(Error::new("truncated index: the header is cut short"));
        }
        bytes.advise(memmap2::Advice::WillNeed, PREFIX, hlen);
        let text = &b[PREFIX..PREFIX + hlen];
        if crc32fast::hash(text) != le32(b, 16) {
            return Err(Error::new("damaged index: header checksum mismatch"));
        }
        let header = match serde_json::from_slice(text) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => return Err(Error::new("damaged index: the header is not a JSON object")),
        };
        let num = |k: &str| {
            header
                .get(k)
                .and_then(serde_json::Value::as_u64)
                .ok_or_else(|| Error::new(format!("damaged index: header lacks {k}")))
        };
        let data_len = usize::try_from(num("data_len")?)
            .map_err(|_| Error::new("damaged index: data length too large"))?;
        if num("block_size")? != BLOCK as u64 {
            return Err(Error::new("damaged index: unexpected block size"));
        }
        let blocks = data_len.div_ceil(BLOCK);
        let data_start = PREFIX + hlen;
        let expected = data_start
            .checked_add(data_len)
            .and_then(|n| n.checked_add(blocks * 4 + 4))
            .ok_or_else(|| Error::new("damaged index: sizes overflow"))?;
        if b.len() < expected {
            return Err(Error::new(format!(
                "truncated index: {} bytes, the header says {expected}",
                b.len()
            )));
        }
        if b.len() > expected {
            return Err(Error::new(format!(
                "damaged index: {} bytes, the header says {expected}",
                b.len()
            )));
        }
        let crcs_start = data_start + data_len;
        bytes.advise(memmap2::Advice::WillNeed, crcs_start, expected - crcs_start);
        if crc32fast::hash(&b[crcs_start..expected - 4]) != le32(b, expected - 4) {
            return Err(Error::new("damaged index: block table checksum mismatch"));
        }
        let verified = (0..blocks.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        let at_random = AtomicBool::new(matches!(bytes, Backing::Map(_)));
        let path = String::new();
        Ok(Checked { bytes, header, data_start, data_len, crcs_start, verified, at_random, path })
    }

    /// `len` bytes of the data region at `off`, their blocks checked.
    ///
    /// # Errors
    /// A range outside the data region, or a block whose CRC does not
    /// match.
    pub fn data(&self, off: u64, len: u64) -> Result<&[u8], Error> {
        let end = off.checked_add(len).filter(|&e| e <= self.data_len as u64).ok_or_else(|| {
            Error::new(format!("damaged index: range {off}+{len} outside the data region"))
        })?;
        let (off, end) = (off as usize, end as usize);
        if end > off {
            for block in off / BLOCK..=(end - 1) / BLOCK {
                self.check_block(block)?;
            }
        }
        Ok(&self.bytes[self.data_start + off..self.data_start + end])
    }

    /// Starts loading the data byte at `off` into the cache: a hint, not a
    /// read (its block's checksum is checked when [`Self::data`] reads it);
    /// nothing when `off` is outside the data region.
    pub fn prefetch(&self, off: u64) {
        if off < self.data_len as u64 {
            crate::simd::prefetch(self.bytes[self.data_start + off as usize..].as_ptr());
        }
    }

    fn check_block(&self, block: usize) -> Result<(), Error> {
        let (word, bit) = (&self.verified[block / 64], 1u64 << (block % 64));
        if word.load(Ordering::Relaxed) & bit != 0 {
            return Ok(());
        }
        let start = self.data_start + block * BLOCK;
        let end = (start + BLOCK).min(self.crcs_start);
        // A map read at random (see `Checked::expect_lookups`): the block
        // is read from disk in one request, not a page at a time.
        if self.at_random.load(Ordering::Relaxed) {
            self.bytes.advise(memmap2::Advice::WillNeed, start, end - start);
        }
        if crc32fast::hash(&self.bytes[start..end])
            != le32(&self.bytes, self.crcs_start + 4 * block)
        {
            // Found by a look-up, long after the file was opened: named.
            let named =
                if self.path.is_empty() { String::new() } else { format!("{}: ", self.path) };
            return Err(Error::new(format!(
                "{named}damaged index: checksum mismatch in block {block} (bytes {start}..{end})"
            )));
        }
        word.fetch_or(bit, Ordering::Relaxed);
        Ok(())
    }

    /// Tells a map that `lookups` look-ups follow, each of which reads a
    /// few blocks here and there. A map is advised to be read at random
    /// when checked (Linux `MADV_RANDOM`), so that a look-up reads only the
    /// blocks it checks, each in one request: the kernel's read-around
    /// reads megabytes around each page touched (8 MiB on this project's
    /// VM: a one-candidate check of a 298 MB index read about 36 MB of it
    /// from disk, 35-39 ms cold; about 1 MB and 12 ms so). From one look-up
    /// per MiB of the data region on, and from then on, the read-around is
    /// back (`MADV_NORMAL`): such a batch touches most of it, and reads it
    /// in large requests rather than a block at a time (1M candidates
    /// against that index, cold: 0.75 s a block at a time, 0.61 s so).
    /// Only hints.
    pub fn expect_lookups(&self, lookups: usize) {
        if (lookups as u64).saturating_mul(LOOKUP_SPAN) >= self.data_len as u64 {
            self.read_around();
        }
    }

    /// Gives a map read at random the kernel's read-around back, for the
    /// data region (once).
    fn read_around(&self) {
        if self.at_random.swap(false, Ordering::Relaxed) {
            self.bytes.advise(memmap2::Advice::Normal, self.data_start, self.data_len);
        }
    }

    /// Checks every block (`index info --verify`, and the tests).
    ///
    /// # Errors
    /// The first block whose CRC does not match.
    pub fn verify_all(&self) -> Result<(), Error> {
        // Every block, in order: with the read-around.
        self.read_around();
        (0..self.data_len.div_ceil(BLOCK)).try_for_each(|b| self.check_block(b))
    }

    /// The size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// A `[offset, length]` section of the header, as a checked slice.
    ///
    /// # Errors
    /// A missing or malformed section entry, or a damaged range.
    pub fn section(&self, name: &str) -> Result<&[u8], Error> {
        let bad = || Error::new(format!("damaged index: bad section {name}"));
        let s = self.header.get("sections").and_then(|s| s.get(name)).ok_or_else(bad)?;
        let off = s.get(0).and_then(serde_json::Value::as_u64).ok_or_else(bad)?;
        let len = s.get(1).and_then(serde_json::Value::as_u64).ok_or_else(bad)?;
        self.data(off, len)
    }

    /// The `[offset, length]` of a section, bounds-checked, without reading
    /// it (for sections read piecewise).
    ///
    /// # Errors
    /// A missing, malformed or out-of-bounds section entry.
    pub fn section_range(&self, name: &str) -> Result<(u64, u64), Error> {
        let bad = || Error::new(format!("damaged index: bad section {name}"));
        let s = self.header.get("sections").and_then(|s| s.get(name)).ok_or_else(bad)?;
        let off = s.get(0).and_then(serde_json::Value::as_u64).ok_or_else(bad)?;
        let len = s.get(1).and_then(serde_json::Value::as_u64).ok_or_else(bad)?;
        match off.checked_add(len) {
            Some(e) if e <= self.data_len as u64 => Ok((off, len)),
            _ => Err(bad()),
        }
    }
}

/// Appends `v` as little-endian bytes.
pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends `v` as little-endian bytes.
pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// The little-endian `u64` at `at` of `b` (the caller checked the length).
pub fn get_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// The little-endian `u32` at `at` of `b` (the caller checked the length).
pub fn get_u32(b: &[u8], at: usize) -> u32 {
    le32(b, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A checked file of `data_len` data bytes, mapped.
    fn mapped(data_len: usize) -> (tempfile::NamedTempFile, Checked) {
        let mut header = serde_json::Map::new();
        header.insert("data_len".into(), (data_len as u64).into());
        let mut out = Vec::new();
        let mut w = DataWriter::begin(&mut out, header).expect("begins");
        w.put(&vec![7u8; data_len]).expect("data");
        w.finish().expect("finished");
        let file = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::write(file.path(), &out).expect("written");
        let f = std::fs::File::open(file.path()).expect("opens");
        // SAFETY: the test's own file, not changed while mapped.
        let map = unsafe { memmap2::Mmap::map(&f) }.expect("maps");
        (file, Checked::new(Backing::Map(map)).expect("checks"))
    }

    /// A map is read at random until a batch of one look-up per MiB of
    /// its data region (or a full verification) asks for the read-around,
    /// and is not switched back; bytes in memory are never "at random".
    #[test]
    fn a_large_batch_brings_the_read_around_back_once() {
        let at_random = |c: &Checked| c.at_random.load(Ordering::Relaxed);
        let (_f, c) = mapped(3 << 20);
        assert!(at_random(&c));
        c.expect_lookups(1);
        c.expect_lookups(2);
        assert!(at_random(&c), "2 look-ups over 3 MiB");
        assert_eq!(c.data(0, 10).expect("a block reads"), &[7u8; 10]);
        c.expect_lookups(3);
        assert!(!at_random(&c), "3 look-ups over 3 MiB");
        c.expect_lookups(1);
        assert!(!at_random(&c), "not switched back");
        let (g, v) = mapped(3 << 20);
        v.verify_all().expect("every block checks");
        assert!(!at_random(&v), "verifying reads with the read-around");
        let owned = Checked::new(Backing::Owned(std::fs::read(g.path()).expect("reads")));
        assert!(!at_random(&owned.expect("checks")));
    }
}

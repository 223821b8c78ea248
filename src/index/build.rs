//! Writing an index ([`write`], [`Prepared`]): the keys of every label
//! computed in parallel chunks with their A-label text, then placed in
//! their directory buckets by two parallel counting sorts (each chunk's
//! keys by partition, a range of buckets; then each partition's keys by
//! bucket: no comparison sort), then written as one stream (its pieces
//! made into bytes in parallel, a batch ahead of the writing).

use super::format::{self, put_u32, put_u64};
use super::{
    Error, KeyScratch, Keys, LABEL, LgrSource, LgrSpec, META, NO_TEXT, VariantSource, bucket,
    fingerprint,
};
use crate::input::{Label, LabelSet};
use crate::report::meta::InputMeta;
use crate::scan::LgrSet;
use rayon::prelude::*;
use serde_json::{Map, Value, json};

/// Packs a text reference at `at` of `len` bytes, or [`NO_TEXT`] for text
/// longer than 64 KiB (none: names are at most 255 octets).
fn text_ref(at: u64, len: usize) -> u64 {
    if len > 0xffff { NO_TEXT } else { at | (len as u64) << 48 }
}

/// The text an index holds of a label: a plain label's own bytes (its
/// U-label and A-label, read once), else its A-label. [`prepare`] and
/// [`Prepared::write`] both take it from here, so that the lengths of the
/// one and the bytes of the other agree.
fn index_text<'a>(l: &Label<'a>) -> &'a [u8] {
    l.plain_text().unwrap_or_else(|| l.alabel().as_bytes())
}

/// Labels per chunk of the parallel pass.
const CHUNK: usize = 1 << 15;

/// What the parallel pass finds of a chunk of labels.
struct Chunk {
    /// The first key of each label and the second keys of the few labels
    /// that have two, with their labels' positions, by partition.
    firsts: Parted,
    seconds: Parted,
    /// The A-labels' bytes, and each one's length (0 past 64 KiB).
    text_len: u64,
    lens: Vec<u16>,
}

/// An index computed and ready to be written ([`Prepared::write`]): what
/// is held is 8 bytes of keys and 2 of A-label length a label, and the CSV
/// columns; the A-labels are taken from the label set as they are written.
pub struct Prepared<'a> {
    labels: &'a LabelSet,
    chunks: Vec<Chunk>,
    /// Per entry, its key's fingerprint and its label's position, by
    /// bucket (in position order within one).
    fps: Vec<u32>,
    positions: Vec<u32>,
    /// Per bucket, where its entries start; then the number of entries.
    dir: Vec<u64>,
    dir_bits: u32,
    text_len: u64,
    alabel_bytes: u64,
    meta: Vec<u8>,
    meta_text: Vec<u8>,
    /// Labels with a `registered` date (what `--holder registered` reads).
    dated: u64,
    /// Labels whose `lgr` pin names no LGR of the set: rows that
    /// `--on-malformed` counts with the malformed lines.
    unknown_pins: u64,
}

/// Bits of a key's hash that choose its partition when entries are
/// placed ([`place`]): up to 256 partitions, placed in parallel, each a
/// range of buckets whose counters and slots stay in cache.
const PART_BITS: u32 = 8;

/// The bits of the directory of an index of `entries` entries: about 32
/// entries a bucket, so that the directory is small enough to stay in
/// cache, and a bucket's fingerprints are two cache lines.
fn dir_bits_for(entries: usize) -> u32 {
    (usize::BITS - (entries / 32).max(1).leading_zeros()).min(32)
}

/// The partition of a key's hash: its top `part_bits` bits. With no more
/// bits than the directory's, a partition is a range of whole buckets.
fn partition(h: u64, part_bits: u32) -> usize {
    (h >> (64 - part_bits)) as usize
}

/// A chunk's entries grouped by partition: `starts[p]..starts[p + 1]` of
/// `keys` and `positions` are those of partition `p`, in position order.
struct Parted {
    keys: Vec<u64>,
    positions: Vec<u32>,
    starts: Vec<u32>,
}

impl Parted {
    /// `entries` (key, position) grouped by a counting sort on their
    /// [`partition`] of `part_bits` bits.
    fn of(entries: impl Iterator<Item = (u64, u32)> + Clone, part_bits: u32) -> Parted {
        let mut starts = vec![0u32; (1 << part_bits) + 1];
        for (h, _) in entries.clone() {
            starts[partition(h, part_bits) + 1] += 1;
        }
        for p in 1..starts.len() {
            starts[p] += starts[p - 1];
        }
        let len = starts[starts.len() - 1] as usize;
        let (mut keys, mut positions) = (vec![0u64; len], vec![0u32; len]);
        let mut next = starts.clone();
        for (h, i) in entries {
            let slot = &mut next[partition(h, part_bits)];
            keys[*slot as usize] = h;
            positions[*slot as usize] = i;
            *slot += 1;
        }
        Parted { keys, positions, starts }
    }

    /// The entries of partition `p`.
    fn part(&self, p: usize) -> impl Iterator<Item = (u64, u32)> + '_ {
        let r = self.starts[p] as usize..self.starts[p + 1] as usize;
        self.keys[r.clone()].iter().copied().zip(self.positions[r].iter().copied())
    }

    fn part_len(&self, p: usize) -> usize {
        (self.starts[p + 1] - self.starts[p]) as usize
    }
}

/// Places the `entries` keys of `chunks` in their buckets: the directory
/// (where each bucket starts, then the number of entries) and per entry
/// its fingerprint and label position. In a bucket come the first keys in
/// position order, then the second keys.
///
/// The chunks' keys are grouped by partition, a range of buckets (their
/// `part_bits`, at most `dir_bits`), so each partition is placed on its
/// own: in parallel, reading and writing only a cache-sized range at a
/// time.
fn place(
    chunks: &[Chunk],
    entries: usize,
    dir_bits: u32,
    part_bits: u32,
) -> (Vec<u64>, Vec<u32>, Vec<u32>) {
    debug_assert!(part_bits <= dir_bits);
    let (parts, per_part) = (1usize << part_bits, 1usize << (dir_bits - part_bits));
    let mut dir = vec![0u64; parts * per_part + 1];
    dir[parts * per_part] = entries as u64;
    let (mut fps, mut positions) = (vec![0u32; entries], vec![0u32; entries]);
    let (mut fps_rest, mut positions_rest) = (&mut fps[..], &mut positions[..]);
    let mut units = Vec::with_capacity(parts);
    let mut base = 0u64;
    for (p, dir) in dir[..parts * per_part].chunks_mut(per_part).enumerate() {
        let len: usize = chunks.iter().map(|c| c.firsts.part_len(p) + c.seconds.part_len(p)).sum();
        let (f, fr) = std::mem::take(&mut fps_rest).split_at_mut(len);
        let (i, ir) = std::mem::take(&mut positions_rest).split_at_mut(len);
        (fps_rest, positions_rest) = (fr, ir);
        units.push((p, base, dir, f, i));
        base += len as u64;
    }
    units.into_par_iter().for_each(|(p, base, dir, fps, positions)| {
        let first_bucket = (p * per_part) as u64;
        let every = || {
            let firsts = chunks.iter().flat_map(move |c| c.firsts.part(p));
            firsts.chain(chunks.iter().flat_map(move |c| c.seconds.part(p)))
        };
        let mut next = vec![0u32; per_part];
        for (h, _) in every() {
            next[(bucket(h, dir_bits) - first_bucket) as usize] += 1;
        }
        let mut at = 0u32;
        for (d, n) in dir.iter_mut().zip(&mut next) {
            *d = base + u64::from(at);
            (*n, at) = (at, at + *n);
        }
        for (h, i) in every() {
            let slot = &mut next[(bucket(h, dir_bits) - first_bucket) as usize];
            fps[*slot as usize] = fingerprint(h, dir_bits);
            positions[*slot as usize] = i;
            *slot += 1;
        }
    });
    (dir, fps, positions)
}

/// Computes the index of `labels` under `set` (the keys of each label,
/// sorted into buckets; the text; the CSV columns).
///
/// # Errors
/// More than 2^32 - 2 labels or entries, or 256 TiB of text.
pub fn prepare<'a>(labels: &'a LabelSet, set: &LgrSet) -> Result<Prepared<'a>, Error> {
    if labels.len() > u32::MAX as usize - 1 {
        return Err(Error::new("too many labels for one index (at most 2^32 - 2)"));
    }
    let keys = Keys::new(set);
    let n = labels.len();
    // The partitions have at most the directory's bits: it has at least
    // as many entries as labels.
    let part_bits = dir_bits_for(n).min(PART_BITS);
    let chunks: Vec<Chunk> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map_init(
            || (KeyScratch::default(), Vec::new(), Vec::new()),
            |(sc, ks, firsts), c| {
                let range = c * CHUNK..((c + 1) * CHUNK).min(n);
                firsts.clear();
                let (mut seconds, mut lens, mut text_len) =
                    (Vec::new(), Vec::with_capacity(range.len()), 0u64);
                for i in range {
                    let Some(l) = labels.get(i) else { break };
                    // A plain label's text is its U-label and A-label: read
                    // once, ASCII by construction.
                    let plain = l.plain_text();
                    match plain {
                        Some(t) => keys.of_ascii(t, sc, ks),
                        None => keys.of(l.ulabel(), sc, ks),
                    }
                    firsts.push((ks[0], i as u32));
                    if let Some(&second) = ks.get(1) {
                        seconds.push((second, i as u32));
                    }
                    let a = plain.unwrap_or_else(|| index_text(&l));
                    let len = if a.len() <= 0xffff { a.len() } else { 0 };
                    text_len += len as u64;
                    lens.push(len as u16);
                }
                Chunk {
                    firsts: Parted::of(firsts.iter().copied(), part_bits),
                    seconds: Parted::of(seconds.into_iter(), part_bits),
                    text_len,
                    lens,
                }
            },
        )
        .collect();
    let seconds: usize = chunks.iter().map(|c| c.seconds.keys.len()).sum();
    let entries = n + seconds;
    if entries > u32::MAX as usize - 1 {
        return Err(Error::new("too many entries for one index (at most 2^32 - 2)"));
    }
    let dir_bits = dir_bits_for(entries);
    let (dir, fps, positions) = place(&chunks, entries, dir_bits, part_bits);
    let alabel_bytes: u64 = chunks.iter().map(|c| c.text_len).sum();
    let MetaRecords { meta, text: meta_text, dated, unknown_pins } =
        meta_records(labels, set, alabel_bytes);
    let text_len = alabel_bytes + meta_text.len() as u64;
    if text_len >= 1 << 48 {
        return Err(Error::new("too much label text for one index (256 TiB)"));
    }
    Ok(Prepared {
        labels,
        chunks,
        fps,
        positions,
        dir,
        dir_bits,
        text_len,
        alabel_bytes,
        meta,
        meta_text,
        dated,
        unknown_pins,
    })
}

/// The `meta` section and the CSV values' text, with two counts for the
/// header.
struct MetaRecords {
    meta: Vec<u8>,
    text: Vec<u8>,
    /// Labels with a `registered` date.
    dated: u64,
    /// Labels whose pin names no LGR of the set.
    unknown_pins: u64,
}

/// The [`MetaRecords`] of `labels` (their text to follow the A-labels,
/// whose text is `base` bytes).
fn meta_records(labels: &LabelSet, set: &LgrSet, base: u64) -> MetaRecords {
    let (mut meta, mut text, mut dated, mut unknown_pins) = (Vec::new(), Vec::new(), 0, 0);
    let registrar_col =
        labels.csv_columns().iter().position(|c| c.eq_ignore_ascii_case("registrar"));
    for l in labels.iter() {
        let Some(c) = l.csv() else { continue };
        let registrar = registrar_col.and_then(|k| c.extra(k as u32));
        // The `lgr` pin: the judging LGR's position + 1, or `PIN_UNKNOWN`.
        let pin = c
            .lgr
            .filter(|p| !p.trim().is_empty())
            .map_or(0, |p| set.find(p).map_or(super::PIN_UNKNOWN, |k| k as u32 + 1));
        if c.registered.is_none() && c.registrant.is_none() && registrar.is_none() && pin == 0 {
            continue;
        }
        put_u32(&mut meta, l.index() as u32);
        put_u32(&mut meta, pin);
        let date = c.registered.map(|t| t.to_string());
        dated += u64::from(date.is_some());
        unknown_pins += u64::from(pin == super::PIN_UNKNOWN);
        for v in [date.as_deref(), c.registrant, registrar] {
            let r = v.map_or(NO_TEXT, |v| {
                let r = text_ref(base + text.len() as u64, v.len());
                if r != NO_TEXT {
                    text.extend_from_slice(v.as_bytes());
                }
                r
            });
            put_u64(&mut meta, r);
        }
    }
    MetaRecords { meta, text, dated, unknown_pins }
}

/// The deflated bytes of the spec's LGRs, and their header entries (the
/// variant LGR's last when it has its own).
fn embedded(spec: &LgrSpec) -> Result<(Vec<Vec<u8>>, Vec<Value>), Error> {
    let all: Vec<&LgrSource> = spec
        .judges
        .iter()
        .chain(match &spec.variants {
            VariantSource::Lgr(l) => Some(l),
            _ => None,
        })
        .collect();
    let (mut bytes, mut entries) = (Vec::new(), Vec::new());
    for (k, l) in all.iter().enumerate() {
        let mut z = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut z, &l.bytes).map_err(|e| Error::new(e.to_string()))?;
        bytes.push(z.finish().map_err(|e| Error::new(e.to_string()))?);
        entries.push(json!({
            "name": l.name, "builtin": l.builtin, "sha256": l.sha256(),
            "bytes": l.bytes.len(), "section": format!("lgr.{k}"),
        }));
    }
    Ok((bytes, entries))
}

/// Bytes of an array section per piece of the data region.
const PIECE_BYTES: usize = 1 << 20;
/// Pieces made into bytes together, while the batch before is written:
/// at most 16 MiB held twice.
const PIECES_PER_BATCH: usize = 16;

/// A piece of the data region, as [`Prepared::write_data`] writes it:
/// made into bytes, with the others of its batch, while the batch before
/// is written.
enum Piece<'p> {
    /// Bytes held as they are written.
    Held(&'p [u8]),
    /// The values `.0` of a `u32` array, little-endian.
    U32s(&'p [u32]),
    /// The directory's values `.0`.
    U64s(&'p [u64]),
    /// The label records of a chunk of labels, whose text starts at `.1`.
    Records(usize, u64),
    /// The text of a chunk of labels.
    Text(usize),
}

impl Prepared<'_> {
    /// About how many bytes [`Prepared::write`] writes: its sections but
    /// the embedded LGRs, and 1 MiB for those and the header.
    pub fn len_hint(&self) -> u64 {
        let entries = self.fps.len() as u64;
        8 * entries
            + 8 * self.dir.len() as u64
            + (LABEL * self.labels.len()) as u64
            + self.meta.len() as u64
            + self.text_len
            + (1 << 20)
    }

    /// Writes the index for the set `spec` (the one it was prepared with)
    /// read from `inputs` to `out`.
    ///
    /// # Errors
    /// Writing `out`.
    pub fn write(
        &self,
        out: &mut dyn std::io::Write,
        spec: &LgrSpec,
        inputs: &[InputMeta],
    ) -> Result<(), Error> {
        let layout = self.layout(spec, inputs)?;
        let w = format::DataWriter::begin(out, layout.header).map_err(io)?;
        self.write_data(w, &layout.runs, &layout.lgr_bytes)
    }

    /// Writes the index as [`Prepared::write`] does, but with zeros where
    /// its prefix and header go, and room there for the facts of any
    /// inputs at `paths` ([`InputMeta::widest`]) followed by `included`:
    /// so that it is written while the named inputs' digests are still
    /// being computed, and its first bytes ([`Unsealed::seal`]) last.
    ///
    /// # Errors
    /// Writing `out`.
    pub fn write_unsealed(
        &self,
        out: &mut dyn std::io::Write,
        spec: &LgrSpec,
        paths: &[String],
        included: &[InputMeta],
    ) -> Result<Unsealed, Error> {
        let widest: Vec<InputMeta> =
            paths.iter().map(|p| InputMeta::widest(p)).chain(included.iter().cloned()).collect();
        let layout = self.layout(spec, &widest)?;
        let (w, room) =
            format::DataWriter::begin_unsealed(out, layout.header.clone()).map_err(io)?;
        self.write_data(w, &layout.runs, &layout.lgr_bytes)?;
        Ok(Unsealed { header: layout.header, room })
    }

    /// The header of the index, with the sections it describes that are
    /// not held by `self`.
    fn layout(&self, spec: &LgrSpec, inputs: &[InputMeta]) -> Result<Layout, Error> {
        let labels = self.labels;
        let mut runs = Vec::new();
        for &(first, source) in labels.source_runs() {
            put_u32(&mut runs, first);
            put_u32(&mut runs, source);
        }
        let (lgr_bytes, mut lgrs) = embedded(spec)?;
        let entries = self.fps.len() as u64;
        // The layout: each section's offset and length, in writing order.
        let mut sections = Map::new();
        let mut at = 0u64;
        let mut lay = |name: &str, len: u64| {
            sections.insert(name.into(), json!([at, len]));
            at += len;
        };
        lay("fingerprints", 4 * entries);
        lay("positions", 4 * entries);
        lay("dir", 8 * self.dir.len() as u64);
        lay("labels", (LABEL * labels.len()) as u64);
        lay("meta", self.meta.len() as u64);
        lay("sources", runs.len() as u64);
        lay("text", self.text_len);
        for (k, z) in lgr_bytes.iter().enumerate() {
            lay(&format!("lgr.{k}"), z.len() as u64);
        }
        let data_len = at;
        let variants = match &spec.variants {
            VariantSource::Same => json!("same"),
            VariantSource::Merged => json!("merged"),
            VariantSource::Lgr(_) => lgrs.pop().unwrap_or(Value::Null),
        };
        let sources: Vec<Value> =
            labels.sources().iter().map(|s| json!(s.path.display().to_string())).collect();
        let inputs: Vec<Value> = inputs.iter().map(InputMeta::to_json).collect();
        let header = json!({
            "lgrscan_version": env!("CARGO_PKG_VERSION"),
            "index_mode": spec.mode.as_str(),
            "lgrs": lgrs,
            "variants": variants,
            "inputs": inputs,
            "sources": sources,
            "apex": labels.apex(),
            "labels": labels.len() as u64,
            "malformed_lines": labels.accounting().malformed + self.unknown_pins,
            "entries": entries,
            "with_meta": (self.meta.len() / META) as u64,
            "dated_labels": self.dated,
            "text_bytes": self.text_len,
            "dir_bits": self.dir_bits,
            "data_len": data_len,
            "sections": sections,
        });
        let Value::Object(header) = header else { unreachable!("a JSON object") };
        Ok(Layout { header, runs, lgr_bytes })
    }

    /// The data region's sections, as [`Prepared::layout`] lays them out,
    /// as pieces to be written in turn.
    fn pieces<'p>(&'p self, runs: &'p [u8], lgr_bytes: &'p [Vec<u8>]) -> Vec<Piece<'p>> {
        let mut pieces: Vec<Piece> = Vec::new();
        pieces.extend(self.fps.chunks(PIECE_BYTES / 4).map(Piece::U32s));
        pieces.extend(self.positions.chunks(PIECE_BYTES / 4).map(Piece::U32s));
        pieces.extend(self.dir.chunks(PIECE_BYTES / 8).map(Piece::U64s));
        let mut text_at = 0u64;
        for (c, ch) in self.chunks.iter().enumerate() {
            pieces.push(Piece::Records(c, text_at));
            text_at += ch.text_len;
        }
        debug_assert_eq!(text_at, self.alabel_bytes);
        pieces.extend([Piece::Held(&self.meta), Piece::Held(runs)]);
        pieces.extend((0..self.chunks.len()).map(Piece::Text));
        pieces.push(Piece::Held(&self.meta_text));
        pieces.extend(lgr_bytes.iter().map(|z| Piece::Held(z)));
        pieces
    }

    /// The bytes of `piece` in `buf` (a held piece is written as it is).
    fn fill(&self, piece: &Piece, buf: &mut Vec<u8>) {
        buf.clear();
        let labels = self.labels;
        match *piece {
            Piece::Held(_) => {}
            Piece::U32s(values) => values.iter().for_each(|&v| put_u32(buf, v)),
            Piece::U64s(values) => values.iter().for_each(|&v| put_u64(buf, v)),
            Piece::Records(c, mut text_at) => {
                // Per label: its text reference and line.
                let records = labels.records();
                for (k, &len) in self.chunks[c].lens.iter().enumerate() {
                    let i = c * CHUNK + k;
                    let long =
                        len == 0 && labels.get(i).is_some_and(|l| index_text(&l).len() > 0xffff);
                    let r = if long { NO_TEXT } else { text_ref(text_at, usize::from(len)) };
                    text_at += u64::from(len);
                    put_u64(buf, r);
                    put_u32(buf, records.get(i).map_or(0, |r| r.line()));
                }
            }
            Piece::Text(c) => {
                for i in c * CHUNK..((c + 1) * CHUNK).min(labels.len()) {
                    let Some(l) = labels.get(i) else { break };
                    let a = index_text(&l);
                    if a.len() <= 0xffff {
                        buf.extend_from_slice(a);
                    }
                }
            }
        }
    }

    /// Writes the data region's sections, as [`Prepared::layout`] lays
    /// them out, and the block table. The pieces are made into bytes a
    /// batch at a time, in parallel, while the batch before is written:
    /// the writing and its block CRCs are one stream, on this thread.
    fn write_data(
        &self,
        mut w: format::DataWriter<'_>,
        runs: &[u8],
        lgr_bytes: &[Vec<u8>],
    ) -> Result<(), Error> {
        let pieces = self.pieces(runs, lgr_bytes);
        let batches: Vec<&[Piece]> = pieces.chunks(PIECES_PER_BATCH).collect();
        let fill = |batch: &[Piece], bufs: &mut Vec<Vec<u8>>| {
            bufs.resize_with(batch.len(), Vec::new);
            batch.par_iter().zip(bufs.par_iter_mut()).for_each(|(p, b)| self.fill(p, b));
        };
        let (mut now, mut next) = (Vec::new(), Vec::new());
        if let Some(first) = batches.first() {
            fill(first, &mut now);
        }
        for (k, batch) in batches.iter().enumerate() {
            rayon::in_place_scope(|s| {
                if let Some(after) = batches.get(k + 1) {
                    s.spawn(|_| fill(after, &mut next));
                }
                batch.iter().zip(&now).try_for_each(|(piece, bytes)| {
                    w.put(if let Piece::Held(held) = piece { held } else { bytes })
                })
            })
            .map_err(io)?;
            std::mem::swap(&mut now, &mut next);
        }
        w.finish().map_err(io)
    }
}

/// What [`Prepared::layout`] gives: the header, and the sections it lays
/// out beyond those [`Prepared`] holds.
struct Layout {
    header: Map<String, Value>,
    /// The `sources` section.
    runs: Vec<u8>,
    /// Each embedded LGR, compressed.
    lgr_bytes: Vec<Vec<u8>>,
}

/// An index written but for its first bytes ([`Prepared::write_unsealed`]).
pub struct Unsealed {
    /// The header, with room for the inputs' facts.
    header: Map<String, Value>,
    /// The bytes left at the start of the file for the prefix and header.
    room: usize,
}

impl Unsealed {
    /// The index file's first bytes, its prefix and its header with the
    /// facts of `inputs`: exactly as many as were left for them, to be
    /// written over the zeros at the start of the file.
    ///
    /// # Errors
    /// `inputs` whose facts take more room than was left (other paths
    /// than those the index was written for).
    pub fn seal(mut self, inputs: &[InputMeta]) -> Result<Vec<u8>, Error> {
        let inputs = inputs.iter().map(InputMeta::to_json).collect();
        self.header.insert("inputs".into(), Value::Array(inputs));
        format::start(self.header, Some(self.room)).map_err(io)
    }
}

/// A writing error.
fn io(e: std::io::Error) -> Error {
    Error::new(format!("writing: {e}"))
}

/// Builds an index of `labels` (read from `inputs`) for the set `spec`
/// (compiled as `set`) and writes it to `out` ([`prepare`], then
/// [`Prepared::write`]).
///
/// # Errors
/// As [`prepare`] and [`Prepared::write`].
pub fn write(
    out: &mut dyn std::io::Write,
    labels: &LabelSet,
    spec: &LgrSpec,
    set: &LgrSet,
    inputs: &[InputMeta],
) -> Result<(), Error> {
    prepare(labels, set)?.write(out, spec, inputs)
}

#[cfg(test)]
mod tests {
    use super::{CHUNK, Chunk, PART_BITS, Parted, bucket, fingerprint, place};

    /// `place` lays each bucket out as the format says: its first keys in
    /// position order, then its second keys in position order, each with
    /// its fingerprint; and the directory says where each bucket starts.
    /// Over two chunks, with directories of fewer buckets than 256 (as many
    /// partitions as buckets) and of more.
    #[test]
    fn each_bucket_holds_its_keys_in_position_order() {
        let mut next = crate::testutil::random_u64s(0x1dc8_991e);
        let n = CHUNK + CHUNK / 4;
        let firsts: Vec<(u64, u32)> = (0..n as u32).map(|i| (next(), i)).collect();
        let seconds: Vec<(u64, u32)> = (0..n as u32).step_by(7).map(|i| (next(), i)).collect();
        let entries = firsts.len() + seconds.len();
        for dir_bits in [1, 3, 7, 8, 9, 12] {
            let part_bits = dir_bits.min(PART_BITS);
            let chunks: Vec<Chunk> = (0..n.div_ceil(CHUNK))
                .map(|c| {
                    let of = |e: &[(u64, u32)]| {
                        let r = (c * CHUNK) as u32..((c + 1) * CHUNK) as u32;
                        let e = e.iter().copied().filter(move |&(_, i)| r.contains(&i));
                        Parted::of(e, part_bits)
                    };
                    let (firsts, seconds) = (of(&firsts), of(&seconds));
                    Chunk { firsts, seconds, text_len: 0, lens: Vec::new() }
                })
                .collect();
            let (dir, fps, positions) = place(&chunks, entries, dir_bits, part_bits);
            assert_eq!(dir.len(), (1 << dir_bits) + 1);
            assert_eq!(dir[1 << dir_bits], entries as u64);
            for b in 0..1u64 << dir_bits {
                let want: Vec<(u32, u32)> = (firsts.iter().chain(&seconds))
                    .filter(|&&(h, _)| bucket(h, dir_bits) == b)
                    .map(|&(h, i)| (fingerprint(h, dir_bits), i))
                    .collect();
                let r = dir[b as usize] as usize..dir[b as usize + 1] as usize;
                let got: Vec<(u32, u32)> =
                    fps[r.clone()].iter().copied().zip(positions[r].iter().copied()).collect();
                assert_eq!(got, want, "bucket {b} of {dir_bits} bits");
            }
        }
    }
}

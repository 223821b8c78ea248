//! Merging extracted chunks into the collector, in file order.

use std::borrow::Cow;

use super::super::state::ZoneState;
use super::chunk::{Buffers, Chunk, Kind, Reg};
use crate::input::Config;
use crate::input::Error;
use crate::input::LabelText;
use crate::input::collect::Class;
use crate::input::collect::Collector;
use crate::input::collect::Loc;
use crate::input::collect::Orig;
use crate::input::collect::OwnerRecords;
use crate::input::labels::LabelRecord;
use crate::input::labels::NONE;
use crate::input::settle::{SETTLED, SETTLED_KINDS};

/// Merges a chunk extracted from `buf` (whose byte 0 is at offset `base`
/// of the source) into the collector, after the chunks before it: counts,
/// labels (deduplicated), NS targets, and the zone state (line number,
/// previous owner). Returns the chunk's buffers for the next one.
/// `in_block`: the chunk is one of the block of IDN labels read ahead
/// (see [`run`]), whose IDN forms the set takes whole.
///
/// [`run`]: super::parallel::run
pub(crate) fn merge(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    mut c: Chunk,
    in_block: bool,
) -> Result<Buffers, Error> {
    count_lines(col, &c);
    // The IDN forms of a chunk of the block of IDN labels (`in_block`: see
    // `run`) (A-label then U-label, each label after the last) become a
    // part of the set's text as they are, unless that would keep much more
    // memory than they fill: the merge copies none of them (the block is
    // merged at the end of the read, while the other threads have little
    // left to do). Other chunks' forms are copied: their buffers go to the
    // next chunks, which would otherwise grow new ones. (A unit test has
    // every chunk's adopted, `FastOpts::adopt_forms`: a block needs a
    // settling read that tells the labels ahead, which it does not set up.)
    // The part is the set's before any label is registered: deduplication
    // reads the keys of the labels registered before (from the part).
    let adopt =
        in_block && c.idn_text.len() >= ADOPT_MIN && c.idn_text.len() * 2 >= c.idn_text.capacity();
    let adopted = adopt.then(|| std::sync::Arc::new(std::mem::take(&mut c.idn_text)));
    let part_at = adopted.as_ref().map(|t| col.adopt_text(std::sync::Arc::clone(t)));
    // Read without a rule, the first registered label is the first of `regs`.
    let first_reg =
        c.first_reg.or_else(|| c.regs.first().map(|g| (g.at, usize::from(g.len), None)));
    let (todo, continued) = continue_last_owner(col, buf, &c, first_reg);
    let settled_n: u64 = todo.settled.iter().sum();
    let bulk = match (first_reg, c.last_reg) {
        (Some((fa, fl, _)), Some((la, ll))) if c.orders != 0 => col.dedup_mut().append_sorted(
            (&buf[fa..fa + fl], &buf[la..la + ll]),
            todo.regs.len() as u32,
            c.orders,
            (settled_n > 0, c.last_settled),
        ),
        _ => false,
    };
    // Settled labels are only counted: a chunk of them that does not keep
    // the keys sorted cannot be registered one by one (`run` extracts such
    // chunks again without settling, see `settled_out_of_order`), so the
    // read starts again without settling, as when the deduplicator loses
    // settled keys (`Dedup::lost`).
    if settled_n > 0 && !bulk {
        return Err(col.unsettle());
    }
    if settled_n > 0 {
        col.count_settled(c.assumed, todo.settled);
    }
    // Borrow the text from the buffer only when it is a map kept as is.
    let borrow = st.mapped && config.label_text == LabelText::Borrow;
    // With the text copied by the chunk, it goes into the arena at once.
    let arena_base = col.arena_len();
    // Unless records cannot hold the arena positions: then the labels go
    // one by one (and get forms entries).
    let copied = bulk && !borrow && c.copied && col.copy_text(&c.text[todo.text_at..]).is_some();
    if bulk {
        col.reserve_labels(todo.regs.len());
    }
    let fast = bulk && (borrow || copied);
    // The labels read under the rule get consecutive indexes
    // from here: they are listed, and counted, only then (otherwise they
    // are judged as others are).
    let listed = c.active && fast;
    let first_index = col.label_count() as u32;
    let how = Registration {
        buf,
        source: st.source,
        line0: st.line,
        base,
        borrow,
        bulk,
        fast,
        arena_base,
        idn_text: adopted.as_deref().unwrap_or(&c.idn_text).as_str(),
        part_at,
    };
    let mut ids: Vec<u32> =
        Vec::with_capacity(if c.ns_pairs.is_empty() { 0 } else { c.regs.len() });
    if todo.skip == 1 && !c.ns_pairs.is_empty() {
        ids.extend(continued);
    }
    let registered = register_labels(col, &how, &c, &todo, &mut ids)?;
    let mut last_id = registered.or(continued).unwrap_or(NONE);
    if !c.ns_pairs.is_empty() {
        let global: Vec<u32> = c.ns_names.iter().map(|n| col.ns_id(n)).collect();
        for &(g, t) in &c.ns_pairs {
            col.add_ns_id(ids[g as usize], global[t as usize]);
        }
    }
    if bulk && c.last_settled && c.last_reg.is_some() {
        last_id = SETTLED;
    }
    if listed {
        list_settled(col, first_index, &todo);
    }
    st.line += c.lines;
    set_previous_owner(st, &c, last_id);
    Ok(c.into_buffers())
}

/// Counts the chunk's lines and records.
fn count_lines(col: &mut Collector, c: &Chunk) {
    col.lines_read(c.lines);
    col.count_records(c.lines);
    col.count_owner_records(OwnerRecords {
        apex: c.apex_records,
        duplicate: c.same_registered,
        deeper: c.deeper_records,
        nsec3: c.nsec3_records,
        outside: c.outside_records,
    });
    col.count_names(&c.deeper, &c.nsec3, &c.outside);
}

/// The labels of a chunk left to register, and what the rule said of
/// them.
struct Unregistered<'c> {
    regs: &'c [Reg],
    /// Labels of `Chunk::regs` before `regs` (0 or 1).
    skip: u32,
    /// Copied text of those.
    text_at: usize,
    settled: [u64; SETTLED_KINDS],
    counted: [u64; SETTLED_KINDS],
    tags: &'c [(u32, u32)],
    keeps: &'c [u32],
}

/// The labels of `c` to register: all of them, unless the first goes on
/// with the owner of the previous chunk's last line (a duplicate, counted
/// here). Returns them, and that owner's index when it goes on.
fn continue_last_owner<'c>(
    col: &mut Collector,
    buf: &[u8],
    c: &'c Chunk,
    first_reg: Option<(usize, usize, Option<usize>)>,
) -> (Unregistered<'c>, Option<u32>) {
    let mut todo = Unregistered {
        regs: &c.regs,
        skip: 0,
        text_at: 0,
        settled: c.settled,
        counted: c.counted,
        tags: &c.tags,
        keeps: &c.keeps,
    };
    let Some((at, len, cat)) = first_reg else { return (todo, None) };
    let Some(i) = col.dedup_mut().is_last(&buf[at..at + len]) else { return (todo, None) };
    col.same_owner(Class::Registered(i));
    match cat {
        Some(k) => todo.settled[k] -= 1,
        None => {
            // It is `regs[0]`.
            todo.skip = 1;
            if let Some(&(0, k)) = todo.tags.first() {
                todo.counted[k as usize] -= 1;
                todo.tags = &todo.tags[1..];
            }
            if todo.keeps.first() == Some(&0) {
                todo.keeps = &todo.keeps[1..];
            }
            if todo.regs[0].plain {
                todo.text_at += usize::from(todo.regs[0].len);
            }
            todo.regs = &todo.regs[1..];
        }
    }
    (todo, Some(i))
}

/// How [`register_labels`] registers the labels of a chunk.
struct Registration<'a> {
    buf: &'a [u8],
    /// The chunk's source, first line and the offset of `buf`.
    source: u32,
    line0: u64,
    base: u64,
    /// Plain labels' text is borrowed from the map (else copied).
    borrow: bool,
    /// The keys go on sorted: the labels are new ones.
    bulk: bool,
    /// Runs of plain labels are pushed at once, their text in place.
    fast: bool,
    /// Where the chunk's copied text starts in the arena.
    arena_base: u64,
    /// The chunk's IDN forms, and where they are in the set's text when
    /// adopted.
    idn_text: &'a str,
    part_at: Option<u64>,
}

/// Registers the labels of `todo` (of chunk `c`), pushing the index of
/// each to `ids` when the chunk has NS targets. Returns the last index.
fn register_labels(
    col: &mut Collector,
    how: &Registration<'_>,
    c: &Chunk,
    todo: &Unregistered<'_>,
    ids: &mut Vec<u32>,
) -> Result<Option<u32>, Error> {
    let buf = how.buf;
    let need_ids = !c.ns_pairs.is_empty();
    let regs = todo.regs;
    let label = |g: &Reg| &buf[g.at..g.at + usize::from(g.len)];
    let loc = |g: &Reg| Loc {
        source: how.source,
        line: how.line0 + u64::from(g.line),
        offset: how.base + g.at as u64,
    };
    let orig = |octets| if how.borrow { Orig::Mapped } else { Orig::Text(octets) };
    // Not sorted: the keys are deduplicated first, as a run (their table
    // slots loaded ahead), then the new labels registered; sorted, they
    // are all new.
    let known = if how.bulk || regs.is_empty() {
        None
    } else {
        // Keys the worker found in lower case need no second look.
        let lower: Vec<Cow<'_, [u8]>> = regs
            .iter()
            .map(|g| if c.keys_lower { Cow::Borrowed(label(g)) } else { lower_case(label(g)) })
            .collect();
        let keys: Vec<&[u8]> = lower.iter().map(|k| &**k).collect();
        let hashes = (c.hashes.len() == c.regs.len()).then(|| &c.hashes[todo.skip as usize..]);
        Some(col.dedup_run(loc(&regs[0]), &keys, hashes)?)
    };
    // The next IDN with its forms computed (by its index into `c.regs`).
    let mut idns = c.idns.iter().skip_while(|d| d.reg < todo.skip).peekable();
    let mut text_pos = how.arena_base;
    // Where the next plain label's text is in the chunk's copy of it.
    let mut chunk_text = todo.text_at;
    // New plain labels of an unsorted chunk go in runs when their text is
    // in a source held whole (as `register_new` borrows it) or in the
    // chunk's copy.
    let runs_borrow = how.borrow && col.source_data(how.source).is_some();
    let runs_copy = !how.borrow && c.copied;
    let mut last_id = None;
    let mut k = 0;
    while k < regs.len() {
        // The common case: plain labels whose text is borrowed from the
        // map or copied by the chunk, in runs up to the next other label
        // (IDNs are not plain), pushed at once: all of them when the keys
        // go on sorted (their text is in the arena already), else those
        // the deduplicator found new (their text copied now, a run at a
        // time).
        let mut run = if how.fast {
            regs[k..].iter().take_while(|g| g.plain).count()
        } else if let Some(known) = &known
            && (runs_borrow || runs_copy)
        {
            regs[k..].iter().zip(&known[k..]).take_while(|(g, r)| g.plain && r.is_none()).count()
        } else {
            0
        };
        let bytes: usize = regs[k..k + run].iter().map(|g| usize::from(g.len)).sum();
        if run > 0 && !how.fast && runs_copy {
            // Unless records cannot hold the arena positions: then the
            // labels go one by one (and get forms entries).
            match c.text.get(chunk_text..chunk_text + bytes).and_then(|t| col.copy_text(t)) {
                Some(at) => text_pos = at,
                None => run = 0,
            }
        }
        if run > 0 {
            chunk_text += bytes;
            let recs = regs[k..k + run].iter().map(|g| {
                let mut rec = LabelRecord::at(loc(g), g.len, NONE);
                if !how.borrow {
                    let fits = rec.set_text(text_pos);
                    debug_assert!(fits, "checked with `copied`");
                }
                text_pos += u64::from(g.len);
                rec
            });
            let last = col.push_plain_run(loc(&regs[k]), recs)?;
            if need_ids {
                ids.extend(last + 1 - run as u32..=last);
            }
            last_id = Some(last);
            k += run;
            continue;
        }
        let g = &regs[k];
        let reg_index = todo.skip + k as u32;
        let repeats = known.as_ref().and_then(|f| f[k]);
        k += 1;
        if g.plain {
            chunk_text += usize::from(g.len);
        }
        let idn = match idns.peek() {
            Some(d) if d.reg == reg_index => idns.next(),
            _ => None,
        };
        let id = if let Some(i) = repeats {
            i
        } else if let Some(d) = idn {
            let ulabel = &how.idn_text[d.at as usize..(d.at + d.ulen) as usize];
            // `idn_forms` kept the A-label, the label's own text, before it.
            let at = u64::from(d.at).checked_sub(u64::from(g.len));
            let adopted = how.part_at.zip(at).map(|(p, at)| p + at);
            col.register_idn(loc(g), label(g), orig(label(g)), ulabel, true, adopted)?
        } else {
            col.register_new(loc(g), label(g), orig(label(g)))?
        };
        if need_ids {
            ids.push(id);
        }
        last_id = Some(id);
    }
    Ok(last_id)
}

/// `octets` in lower case (the deduplication key of a zone's label, RFC
/// 4343), borrowed when they are.
fn lower_case(octets: &[u8]) -> Cow<'_, [u8]> {
    if octets.iter().any(u8::is_ascii_uppercase) {
        Cow::Owned(octets.to_ascii_lowercase())
    } else {
        Cow::Borrowed(octets)
    }
}

/// Lists the labels of a chunk read under the rule (registered from
/// `first_index` on): those it tagged or kept, its counts, and their
/// range.
fn list_settled(col: &mut Collector, first_index: u32, todo: &Unregistered<'_>) {
    let index = |reg: u32| first_index + reg - todo.skip;
    let tagged = todo.tags.iter().map(|&(reg, _)| index(reg));
    let kept = todo.keeps.iter().map(|&reg| index(reg));
    col.list_settled(first_index, tagged, kept, todo.counted);
}

/// The owner of the chunk's last line becomes the previous owner of the
/// zone state (its class, with `last_id` when it is registered), for a
/// blank owner after it.
fn set_previous_owner(st: &mut ZoneState, c: &Chunk, last_id: u32) {
    if c.last_kind == Kind::None {
        return;
    }
    st.prev_owner_malformed = None;
    st.prev_class = Some(match c.last_kind {
        Kind::Apex => Class::Apex,
        Kind::Registered => Class::Registered(last_id),
        Kind::Deeper => Class::Deeper,
        Kind::Nsec3 => Class::Nsec3,
        _ => Class::Outside,
    });
}

/// Fewest octets of IDN forms a chunk of the block hands to the set whole
/// (see [`merge`]); fewer are copied.
pub(super) const ADOPT_MIN: usize = 4096;

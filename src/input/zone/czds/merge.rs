//! Merging extracted chunks into the collector, in file order.

use super::super::state::ZoneState;
use super::chunk::{Buffers, Chunk, Kind, Reg};
use crate::input::Config;
use crate::input::Error;
use crate::input::LabelText;
use crate::input::collect::Class;
use crate::input::collect::Collector;
use crate::input::collect::KeyMode;
use crate::input::collect::Loc;
use crate::input::collect::Orig;
use crate::input::labels::LabelRecord;
use crate::input::labels::NONE;
use crate::input::settle::SETTLED;

/// Merges a chunk extracted from `buf` (whose byte 0 is at offset `base`
/// of the source) into the collector, after the chunks before it: counts,
/// labels (deduplicated), NS targets, and the zone state (line number,
/// previous owner). Returns the chunk's buffers for the next one.
/// `in_block`: the chunk is one of the block of IDN labels read ahead
/// (see [`run`]), whose IDN forms the set takes whole.
pub(crate) fn merge(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    mut c: Chunk,
    in_block: bool,
) -> Result<Buffers, Error> {
    let acc = &mut col.set.accounting;
    acc.lines += c.lines;
    acc.record_lines += c.lines;
    acc.records += c.lines;
    acc.apex_records += c.apex_records;
    acc.duplicate_records += c.same_registered;
    acc.deeper_records += c.deeper_records;
    acc.outside_records += c.outside_records;
    col.count_names(&c.deeper, &c.outside);

    let label = |g: &Reg| &buf[g.at..g.at + usize::from(g.len)];
    // Borrow the text from the buffer only when it is a map kept as is.
    let borrow = st.mapped && config.label_text == LabelText::Borrow;
    let line0 = st.line;
    let loc = |g: &Reg| Loc {
        source: st.source,
        line: line0 + u64::from(g.line),
        offset: base + g.at as u64,
    };
    let need_ids = !c.ns_pairs.is_empty();
    let mut ids: Vec<u32> = Vec::with_capacity(if need_ids { c.regs.len() } else { 0 });
    let mut last_id = NONE;
    let mut regs = &c.regs[..];
    // The next IDN with its forms computed (by its index into `c.regs`).
    let mut idns = c.idns.iter().peekable();
    let mut text_at = 0usize;
    let (mut settled, mut counted) = (c.settled, c.counted);
    let (mut tags, mut keeps) = (&c.tags[..], &c.keeps[..]);
    // Regs skipped at the start.
    let mut skip = 0u32;
    // Without a settler, the first registered label is the first of `regs`.
    let (first_reg, last_reg) = (
        c.first_reg.or_else(|| c.regs.first().map(|g| (g.at, usize::from(g.len), None))),
        c.last_reg,
    );
    // The owner of the previous chunk's last line may go on here.
    if let Some((at, len, cat)) = first_reg
        && let Some(i) = col.dedup_mut().is_last(&buf[at..at + len])
    {
        col.set.accounting.duplicate_records += 1;
        last_id = i;
        match cat {
            Some(k) => settled[k] -= 1,
            None => {
                // It is `regs[0]`.
                skip = 1;
                if let Some(&(0, k)) = tags.first() {
                    counted[k as usize] -= 1;
                    tags = &tags[1..];
                }
                if keeps.first() == Some(&0) {
                    keeps = &keeps[1..];
                }
                ids.extend(need_ids.then_some(i));
                if regs[0].plain {
                    text_at += usize::from(regs[0].len);
                }
                regs = &regs[1..];
                if idns.peek().is_some_and(|d| d.reg == 0) {
                    idns.next();
                }
            }
        }
    }
    let settled_n: u64 = settled.iter().sum();
    let bulk = match (first_reg, last_reg) {
        (Some((fa, fl, _)), Some((la, ll))) if c.orders != 0 => col.dedup_mut().append_sorted(
            (&buf[fa..fa + fl], &buf[la..la + ll]),
            regs.len() as u32,
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
        col.set.settled_assumed += c.assumed;
        col.set.accounting.registered_labels += settled_n;
        col.set.settled_unstored += settled_n;
        for (t, n) in col.set.settled.iter_mut().zip(settled) {
            *t += n;
        }
    }
    // With the text copied by the chunk, it goes into the arena at once.
    let arena_base = col.set.arena.len() as u64;
    // Records hold arena positions up to `record_text_max`: past it, the
    // labels go one by one (and get forms entries).
    let copied = bulk
        && !borrow
        && c.copied
        && arena_base + (c.text.len() - text_at) as u64 <= col.record_text_max;
    if copied {
        col.set.arena.extend_from_slice(&c.text[text_at..]);
    }
    if bulk {
        col.set.records.reserve(regs.len());
    }
    let mut text_pos = arena_base;
    let orig = |octets| if borrow { Orig::Mapped } else { Orig::Text(octets) };
    let fast = bulk && (borrow || copied);
    // The labels the settler was asked about get consecutive indexes
    // from here: they are listed, and counted, only then (otherwise they
    // are judged as others are).
    let listed = c.active && fast;
    let first_index = col.set.records.len() as u32;
    // The IDN forms of a chunk of the block of IDN labels (`in_block`: see
    // `run`) (A-label then U-label, each label after the last) become a
    // part of the set's text as they are, unless that would keep much more
    // memory than they fill: the merge copies none of them (the block is
    // merged at the end of the read, while the other threads have little
    // left to do). Other chunks' forms are copied: their buffers go to the
    // next chunks, which would otherwise grow new ones. (A unit test has
    // every chunk's adopted, `FastOpts::adopt_forms`: a block needs a
    // settler told the labels ahead, which it does not set up.)
    // The part is the set's before any label is registered: deduplication
    // reads the keys of the labels registered before (from the part).
    let adopt =
        in_block && c.idn_text.len() >= ADOPT_MIN && c.idn_text.len() * 2 >= c.idn_text.capacity();
    let adopted = adopt.then(|| std::sync::Arc::new(std::mem::take(&mut c.idn_text)));
    let part_at = adopted.as_ref().map(|t| col.set.adopt_text(std::sync::Arc::clone(t)));
    let idn_text = adopted.as_deref().unwrap_or(&c.idn_text).as_str();
    let mut k = 0;
    while k < regs.len() {
        // The common case: sorted, and plain labels' text borrowed from the
        // map or copied by the chunk (not touched again here): runs of
        // them, up to the next other label (IDNs are not plain), pushed at
        // once.
        let run = if fast { regs[k..].iter().take_while(|g| g.plain).count() } else { 0 };
        if run > 0 {
            let recs = regs[k..k + run].iter().map(|g| {
                let mut rec = LabelRecord::at(loc(g), g.len, NONE);
                if !borrow {
                    let fits = rec.set_text(text_pos);
                    debug_assert!(fits, "checked with `copied`");
                }
                text_pos += u64::from(g.len);
                rec
            });
            last_id = col.push_plain_run(loc(&regs[k]), recs)?;
            if need_ids {
                ids.extend(last_id + 1 - run as u32..=last_id);
            }
            k += run;
            continue;
        }
        let g = &regs[k];
        // Its index into `c.regs` (`regs` may start after the first).
        let reg_index = (c.regs.len() - regs.len() + k) as u32;
        k += 1;
        let idn = match idns.peek() {
            Some(d) if d.reg == reg_index => idns.next(),
            _ => None,
        };
        let id = if let Some(d) = idn {
            let ulabel = &idn_text[d.at as usize..(d.at + d.ulen) as usize];
            // `idn_forms` kept the A-label, the label's own text, before it.
            let at = u64::from(d.at).checked_sub(u64::from(g.len));
            let adopted = part_at.zip(at).map(|(p, at)| p + at);
            col.register_idn(loc(g), label(g), orig(label(g)), ulabel, bulk, adopted)?
        } else if bulk {
            col.register_new(loc(g), label(g), orig(label(g)))?
        } else {
            col.register(loc(g), label(g), orig(label(g)), KeyMode::Octets)?
        };
        if need_ids {
            ids.push(id);
        }
        last_id = id;
    }
    if need_ids {
        let global: Vec<u32> = c.ns_names.iter().map(|n| col.ns_id(n)).collect();
        for &(g, t) in &c.ns_pairs {
            col.add_ns_id(ids[g as usize], global[t as usize]);
        }
    }
    if bulk && c.last_settled && last_reg.is_some() {
        last_id = SETTLED;
    }
    if listed {
        let set = &mut col.set;
        let index = |reg: u32| first_index + reg - skip;
        set.settle_tags.extend(tags.iter().map(|&(reg, _)| index(reg)));
        set.settle_kept.extend(keeps.iter().map(|&reg| index(reg)));
        for (t, n) in set.settled.iter_mut().zip(counted) {
            *t += n;
        }
        let end = set.records.len() as u32;
        match set.settle_ranges.last_mut() {
            Some((_, e)) if *e == first_index => *e = end,
            _ => set.settle_ranges.push((first_index, end)),
        }
    }
    st.line += c.lines;
    if c.last_kind != Kind::None {
        let (at, len) = c.last_owner;
        st.prev_raw.clear();
        st.prev_raw.extend_from_slice(&buf[at..at + len]);
        st.prev_class = Some(match c.last_kind {
            Kind::Apex => Class::Apex,
            Kind::Registered => Class::Registered(last_id),
            Kind::Deeper => Class::Deeper,
            _ => Class::Outside,
        });
    }
    Ok(c.into_buffers())
}

/// Fewest octets of IDN forms a chunk of the block hands to the set whole
/// (see [`merge`]); fewer are copied.
pub(super) const ADOPT_MIN: usize = 4096;

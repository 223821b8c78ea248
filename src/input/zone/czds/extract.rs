//! Extracting a chunk: the records of a range of lines, one line at a
//! time ([`extract_in`]).

use super::chunk::{
    Buffers, Chunk, FastOpts, Kind, Reg, Stop, count_run, idn_forms, intern_ns, owner_hash,
    push_text, settle_label,
};
use super::fields::{AfterOwner, FieldsCache, check_after_owner};
use super::quick::{Letters, OwnerRun, quick_lines};
use super::simd::{
    Classes32, H_DOT, H_NON_LDH, H_SPECIAL, H_UPPER, HEAD_CLASS, first_tab, low_bits, next_newline,
    no_empty_label, orders_increasing_at, same_at, same_bytes,
};
use crate::input::hash::HashBuild;
use crate::input::settle::SettleWorker;
use std::collections::HashMap;

/// [`extract_in`] into new buffers.
#[cfg(test)]
pub(super) fn extract(buf: &[u8], start: usize, end: usize, eof: bool, o: &FastOpts<'_>) -> Chunk {
    extract_in(buf, (start, end), eof, o, Buffers::default())
}

/// Extracts, into the buffers `b` (see [`Buffers`]), the lines of
/// `buf[start..end]` (`start` at a line start; `end` at a line start or at
/// `buf.len()`) for as long as they fit the profile. `eof`: the data ends
/// at `end` (a last line without a newline is whole).
///
/// On an x86-64 CPU with AVX2 and BMI2 the same code is compiled for them
/// ([`extract_avx2`]): the SSE2 intrinsics get three-operand encodings
/// (no register copies) and variable shifts and masks one instruction
/// each, for a fifth fewer instructions.
pub(crate) fn extract_in(
    buf: &[u8],
    (start, end): (usize, usize),
    eof: bool,
    o: &FastOpts<'_>,
    b: Buffers,
) -> Chunk {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
    {
        // SAFETY: the CPU has the features `extract_avx2` is compiled for.
        return unsafe { extract_avx2(buf, start, end, eof, o, b) };
    }
    extract_impl::<false>(buf, start, end, eof, o, b)
}

/// [`extract_in`] compiled for AVX2 and BMI2 (the same source).
///
/// # Safety
/// The CPU must have AVX2, BMI1 and BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(super) unsafe fn extract_avx2(
    buf: &[u8],
    start: usize,
    end: usize,
    eof: bool,
    o: &FastOpts<'_>,
    b: Buffers,
) -> Chunk {
    extract_impl::<true>(buf, start, end, eof, o, b)
}

/// [`extract_in`] for the baseline of the target (SSE2 on x86-64).
#[cfg(test)]
pub(super) fn extract_baseline(
    buf: &[u8],
    start: usize,
    end: usize,
    eof: bool,
    o: &FastOpts<'_>,
) -> Chunk {
    extract_impl::<false>(buf, start, end, eof, o, Buffers::default())
}

/// [`extract_in`]; `W`: with the AVX2 comparisons (see [`eq_mask32`]).
#[inline(always)]
pub(super) fn extract_impl<const W: bool>(
    buf: &[u8],
    start: usize,
    end: usize,
    eof: bool,
    o: &FastOpts<'_>,
    b: Buffers,
) -> Chunk {
    let apex = o.apex;
    let root = apex == b".";
    let mut c = Chunk::start(start, o.copy, b);
    let mut settle = c.settle.take();
    c.active = settle.as_mut().is_some_and(|w| w.ready());
    let active = c.active;
    // What the settler counts without being asked (only when it settles).
    let letters = match &settle {
        Some(w) if active => Letters {
            lengths_cat: w.letters(),
            digits: w.letters_and_digits(),
            hyphens: w.hyphens_as_letters(),
        },
        _ => Letters::default(),
    };
    let mut ns_ids: HashMap<Box<[u8]>, u32, HashBuild> = HashMap::default();
    let mut owned_target: Vec<u8> = Vec::new();
    let mut cache = FieldsCache::default();
    let mut chars: Vec<char> = Vec::new();
    let mut pos = start;
    let (mut prev_at, mut prev_len) = (start, 0usize);
    let mut kind = Kind::None;
    // Lines of the current owner after its first.
    let mut run = 0u64;
    let mut last_reg: Option<(usize, usize)> = None;
    // The lines of the usual kinds go through `quick_lines` (see there).
    // (With a settler that is not ready, the general steps below read
    // every line: `quick_lines` asks a settler, when there is one, about
    // every new plain label.)
    let quick = (active || settle.is_none())
        && !o.ns
        && apex.len() > 1
        && apex.last() == Some(&b'.')
        && apex[0] != b'.'
        && !apex.windows(2).any(|w| w == b"..");
    while pos < end {
        if quick {
            let mut k = OwnerRun { prev_at, prev_len, kind, run, last_reg, ns_fields: false };
            pos = quick_lines::<W>(
                &mut c,
                &mut settle,
                &mut cache,
                &mut k,
                (buf, pos, end),
                o,
                letters,
            );
            OwnerRun { prev_at, prev_len, kind, run, last_reg, .. } = k;
            if pos >= end {
                break;
            }
        }
        let (line_end, next) = match next_newline::<W, false>(buf, pos, end) {
            Some(k) => (k, k + 1),
            None if eof => (end, end),
            None => {
                c.stop = Stop::NeedMore;
                break;
            }
        };
        let p = prev_len;
        // The text after the owner (from `at`), as the general parser reads
        // it, with the NS target; fully checked on an owner's first line.
        let mut rest_from = |at: usize, first: bool| {
            check_after_owner::<W>(
                &mut cache,
                buf,
                (at, line_end),
                (o.ns, first),
                o.origin,
                &mut owned_target,
            )
        };
        let rest;
        // Most lines repeat the previous owner: counted, nothing else. The
        // previous owner is followed by its tab, so comparing one byte more
        // checks this line's tab too (and that the line is long enough: an
        // owner has no newline).
        if p > 0 && same_at::<W, false>(buf, pos, prev_at, p + 1) {
            rest = rest_from(pos + p, false);
            if rest == AfterOwner::Slow {
                c.stop = Stop::Slow;
                break;
            }
            run += 1;
        } else {
            count_run(&mut c, kind, run);
            run = 0;
            let Some((owner, classes)) = owner_of_line::<W>(buf, pos, line_end) else {
                c.stop = Stop::Slow;
                break;
            };
            let tab = owner.len();
            let fold = |bytes: &[u8]| match classes {
                Some(k) => k.flags(bytes.len()),
                None => bytes.iter().fold(0u8, |f, &b| f | HEAD_CLASS[b as usize]),
            };
            let (n, a) = (owner.len(), apex.len());
            rest = rest_from(pos + tab, true);
            if rest == AfterOwner::Slow {
                c.stop = Stop::Slow;
                break;
            }
            // Under the apex: `head.apex` (`head.` for the root).
            let exact = n > a && same_bytes(&owner[n - a..], apex);
            let under = (exact || (n > a && owner[n - a..].eq_ignore_ascii_case(apex)))
                && (root || owner[n - a - 1] == b'.');
            if under {
                let head = &owner[..n - a - usize::from(!root)];
                let f = fold(head);
                if f & H_SPECIAL != 0 || head.is_empty() {
                    c.stop = Stop::Slow;
                    break;
                }
                if f & H_DOT == 0 {
                    let label = head;
                    if label.len() > usize::from(u16::MAX) {
                        c.stop = Stop::Slow;
                        break;
                    }
                    let at = (pos, f);
                    new_registered::<W>(
                        &mut c,
                        &mut settle,
                        &mut last_reg,
                        buf,
                        label,
                        at,
                        o,
                        &mut chars,
                    );
                    kind = Kind::Registered;
                } else {
                    c.deeper_records += 1;
                    c.deeper.push(owner_hash(owner, f & H_UPPER != 0 || !exact));
                    kind = Kind::Deeper;
                }
            } else {
                let f = fold(owner);
                if f & H_SPECIAL != 0 {
                    c.stop = Stop::Slow;
                    break;
                }
                if n == a && owner.eq_ignore_ascii_case(apex) {
                    c.apex_records += 1;
                    kind = Kind::Apex;
                } else {
                    c.outside_records += 1;
                    c.outside.push(owner_hash(owner, f & H_UPPER != 0));
                    kind = Kind::Outside;
                }
            }
            prev_at = pos;
            prev_len = tab;
        }
        if o.ns && matches!(kind, Kind::Registered) {
            match rest {
                AfterOwner::Ns(r) => intern_ns(&mut c, &mut ns_ids, &buf[r]),
                AfterOwner::NsOwned => intern_ns(&mut c, &mut ns_ids, &owned_target),
                _ => {}
            }
        }
        c.lines += 1;
        pos = next;
    }
    count_run(&mut c, kind, run);
    c.next = pos;
    c.settle = settle;
    c.last_reg = last_reg;
    c.ns_names = ns_names(ns_ids);
    c.last_owner = (prev_at, prev_len);
    c.last_kind = kind;
    c
}

/// A registered owner starts on the line at `pos` (`at`: with the byte
/// classes `f` of its label): the last registered label again (after
/// deeper names, as canonical order puts them), or a new label, which the
/// settler may count (see [`crate::input::settle`]) or `c` records.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn new_registered<const W: bool>(
    c: &mut Chunk,
    settle: &mut Option<Box<dyn SettleWorker>>,
    last_reg: &mut Option<(usize, usize)>,
    buf: &[u8],
    label: &[u8],
    (pos, f): (usize, u8),
    o: &FastOpts<'_>,
    chars: &mut Vec<char>,
) {
    let upper = f & H_UPPER != 0;
    if last_reg.is_some_and(|(s, l)| same_bytes(&buf[s..s + l], label)) {
        c.same_registered += 1;
        return;
    }
    if upper {
        c.orders = 0;
    } else if let Some((s, l)) = *last_reg {
        c.orders = orders_increasing_at::<W>(c.orders, buf, (s, l), (pos, label.len()));
    }
    *last_reg = Some((pos, label.len()));
    // Plain: lower-case LDH, at most 63 octets, no hyphen at either end
    // nor in positions 3 and 4 (`idna2008::is_plain_ldh`, from the flags).
    let m = label.len();
    let plain = f & (H_UPPER | H_NON_LDH) == 0
        && m <= crate::idna2008::MAX_LABEL_OCTETS
        && crate::idna2008::hyphens_allowed(label);
    debug_assert_eq!(plain, crate::idna2008::is_plain_ldh(label) && !upper);
    if c.active && settle_label(c, settle, buf, (pos, m), plain, None) {
        return;
    }
    if plain && o.copy {
        push_text(&mut c.text, buf, pos, m);
    }
    if !plain && !upper {
        idn_forms(c, label, chars);
    }
    c.regs.push(Reg { at: pos, line: c.lines as u32, len: m as u16, plain });
}

/// The owner of the line at `pos` (ending at `line_end`), when the fast
/// path reads it: the bytes up to the first tab, an absolute name without
/// an empty label, on a line that starts with none of ` `, tab, `;`, `$`.
/// With the byte classes of its first 32 bytes when the tab is in them.
#[inline(always)]
fn owner_of_line<const W: bool>(
    buf: &[u8],
    pos: usize,
    line_end: usize,
) -> Option<(&[u8], Option<Classes32>)> {
    let mut line = &buf[pos..line_end];
    if let [head @ .., b'\r'] = line {
        line = head;
    }
    let &first = line.first()?;
    if matches!(first, b' ' | b'\t' | b';' | b'$') {
        return None;
    }
    // The owner's tab and classes from one pass when it is short
    // (`classes` is kept only when the tab is in its 32 bytes).
    let mut classes = Classes32::quick::<W, false>(buf, pos).or_else(|| Classes32::load(buf, pos));
    let tab = match classes {
        Some(k) if k.tab != 0 => k.tab.trailing_zeros() as usize,
        _ => {
            classes = None;
            first_tab(line).unwrap_or(usize::MAX)
        }
    };
    // A tab past the line is on a later line: none on this one.
    if tab >= line.len() {
        return None;
    }
    let owner = &line[..tab];
    let n = owner.len();
    // No empty label (but the root): from the dots of the classes when
    // they cover the owner. The wire length is bounded by the line's:
    // longer owners go to the general parser.
    let labels_ok = n <= 1
        || match classes {
            Some(k) if n < 32 => {
                let dots = k.dot & low_bits(n);
                no_empty_label(dots, n)
            }
            _ => {
                owner[0] != b'.'
                    && n < crate::idna2008::MAX_NAME_OCTETS
                    && !owner.windows(2).any(|w| w == b"..")
            }
        };
    (owner.last() == Some(&b'.') && labels_ok).then_some((owner, classes))
}

/// The distinct NS target names of a chunk, by their ids.
fn ns_names(ids: HashMap<Box<[u8]>, u32, HashBuild>) -> Vec<Box<[u8]>> {
    let mut names: Vec<Box<[u8]>> = vec![Box::default(); ids.len()];
    for (k, id) in ids {
        names[id as usize] = k;
    }
    names
}

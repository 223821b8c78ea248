//! Extracting a chunk: the records of a range of lines, one line at a
//! time ([`extract_in`]).

use super::bytes::{next_newline, no_empty_label, orders_increasing_at, same_at, same_bytes};
use super::chunk::{
    Buffers, Chunk, FastOpts, Kind, Reg, Stop, count_run, idn_forms, intern_ns, owner_hash,
    push_text, settle_label,
};
use super::fields::{AfterOwner, FieldsCache, check_after_owner};
use super::quick::{Letters, OwnerRun, quick_lines};
use crate::idna2008::MAX_LABEL_OCTETS;
use crate::input::hash::HashBuild;
use crate::input::settle::RuleSnapshot;
use crate::input::settle::Settling;
use crate::input::zone::nsec3::{is_hashed_label, is_nsec3_text};
use crate::input::zone::tokens::{is_class, is_ttl, is_type};
use crate::simd::zone::{Classes32, H_DOT, H_NON_LDH, H_SPECIAL, H_UPPER, HEAD_CLASS, low_bits};
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

/// What [`extract_impl`] keeps from line to line besides the owner run:
/// the chunk's NS target ids, the fields cache, and scratch buffers.
struct Scratch {
    ns_ids: HashMap<Box<[u8]>, u32, HashBuild>,
    owned_target: Vec<u8>,
    cache: FieldsCache,
    chars: Vec<char>,
    /// A relative owner made absolute (owner, dot, origin).
    name: Vec<u8>,
}

/// [`extract_in`]; `W`: with the AVX2 comparisons (see [`eq_mask32`]).
/// Runs of common lines go through [`quick_lines`], the others through
/// [`read_line`].
#[inline(always)]
pub(super) fn extract_impl<const W: bool>(
    buf: &[u8],
    start: usize,
    end: usize,
    eof: bool,
    o: &FastOpts<'_>,
    b: Buffers,
) -> Chunk {
    // The lines from the first with a parenthesis or a quote on are the
    // careful parser's: the chunk stops there. A CZDS dump too: its
    // profile has one record per line, but the same bytes must give the
    // same records, malformed lines and exit status whichever path reads
    // them (a quote left open in a DS record is malformed either way).
    // They are looked for a window at a time, just ahead of the lines
    // extracted ([`careful_window`]).
    let chunk_end = end;
    let mut window = FIRST_CAREFUL_WINDOW;
    let (mut end, mut careful) = careful_window(buf, start, chunk_end, window);
    let apex = o.apex;
    let mut c = Chunk::start(start, o.copy, b);
    // The rule as of the chunk's start (none until the caller gives it).
    let snapshot = o.settle.and_then(Settling::snapshot);
    let rule = snapshot.as_ref();
    c.active = rule.is_some();
    // What the rule counts without a look at each label (see `Letters`).
    let letters = rule.map(Letters::of).unwrap_or_default();
    let mut s = Scratch {
        ns_ids: HashMap::default(),
        owned_target: Vec::new(),
        cache: FieldsCache::default(),
        chars: Vec::new(),
        name: Vec::new(),
    };
    let mut k = OwnerRun {
        prev_at: start,
        prev_len: 0,
        kind: Kind::None,
        run: 0,
        last_reg: None,
        ns_fields: false,
    };
    // The lines of the usual kinds go through `quick_lines` (see there).
    let quick = !o.ns
        && apex.len() > 1
        && apex.last() == Some(&b'.')
        && apex[0] != b'.'
        && !apex.windows(2).any(|w| w == b"..");
    let mut pos = start;
    loop {
        if pos >= end {
            if careful || end >= chunk_end {
                break;
            }
            window = (window * 2).min(CAREFUL_WINDOW);
            (end, careful) = careful_window(buf, end, chunk_end, window);
            continue;
        }
        let eof = eof && !careful && end == chunk_end;
        if quick {
            // What `quick_lines` found of the NS fields holds no more: the
            // cache may have changed since.
            k.ns_fields = false;
            pos = quick_lines::<W>(&mut c, rule, &mut s.cache, &mut k, (buf, pos, end), o, letters);
            if pos >= end {
                continue;
            }
        }
        match read_line::<W>(&mut c, rule, &mut s, &mut k, (buf, pos, end), eof, o) {
            Some(next) => pos = next,
            None => break,
        }
    }
    if careful && c.stop == Stop::End {
        c.stop = Stop::Slow;
    }
    count_run(&mut c, k.kind, k.run);
    c.next = pos;
    c.last_reg = k.last_reg;
    c.ns_names = ns_names(s.ns_ids);
    c.last_kind = k.kind;
    c
}

/// Where the lines of `buf[start..end]` stop being the fast path's: the
/// start of the first line with a parenthesis or a quote (an entry over
/// several lines, or a string the tokenizer reads), and whether there is
/// one. A pre-pass by `memchr3`, at memory speed.
fn careful_from(buf: &[u8], start: usize, end: usize) -> (usize, bool) {
    match memchr::memchr3(b'(', b')', b'"', &buf[start..end]) {
        Some(q) => {
            (memchr::memrchr(b'\n', &buf[start..start + q]).map_or(start, |k| start + k + 1), true)
        }
        None => (end, false),
    }
}

/// Bytes of a chunk [`careful_window`] looks at a time: the pre-pass is
/// the first to read them, so the lines are then extracted from cache.
/// Looking through the whole chunk (4 MiB) first, 10M-name sorted zones
/// took 10–15% longer (CHANGELOG).
const CAREFUL_WINDOW: usize = 256 << 10;

/// The first window of a chunk, doubled with each next one up to
/// [`CAREFUL_WINDOW`]: a chunk starts again after each line the careful
/// parser reads, and a zone whose every line is one (escaped owners, `@`)
/// looked 256 KiB ahead for each: 40 times the time of plain lines.
const FIRST_CAREFUL_WINDOW: usize = 1 << 10;

/// [`careful_from`] over the next window of the chunk that ends at
/// `chunk_end`: from `start`, the whole lines of the next `window` bytes
/// (the first line whole when it is longer), so that the lines are
/// extracted while the pre-pass has left them in cache.
fn careful_window(buf: &[u8], start: usize, chunk_end: usize, window: usize) -> (usize, bool) {
    let mut end = (start + window).min(chunk_end);
    if end < chunk_end {
        end = match memchr::memrchr(b'\n', &buf[start..end]) {
            Some(k) => start + k + 1,
            None => memchr::memchr(b'\n', &buf[end..chunk_end]).map_or(chunk_end, |k| end + k + 1),
        };
    }
    careful_from(buf, start, end)
}

/// Reads the line at `pos` that [`quick_lines`] left: returns where the
/// next line starts, or `None` when the chunk stops here (`c.stop` says
/// why).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn read_line<const W: bool>(
    c: &mut Chunk,
    rule: Option<&RuleSnapshot>,
    s: &mut Scratch,
    k: &mut OwnerRun,
    (buf, pos, end): (&[u8], usize, usize),
    eof: bool,
    o: &FastOpts<'_>,
) -> Option<usize> {
    let (line_end, next) = match next_newline::<W, false>(buf, pos, end) {
        Some(e) => (e, e + 1),
        None if eof => (end, end),
        None => {
            c.stop = Stop::NeedMore;
            return None;
        }
    };
    if line_end - pos > crate::input::MAX_LINE_BYTES {
        // A line longer than any record is malformed: the careful parser
        // says so, whichever path meets it (a CZDS dump's too).
        c.stop = Stop::Slow;
        return None;
    }
    let p = k.prev_len;
    // The text after the owner (from `at`), as the careful parser reads
    // it, with the NS target, fully checked on every line.
    let mut rest_from = |at: usize| {
        check_after_owner::<W>(
            &mut s.cache,
            buf,
            (at, line_end),
            o.ns,
            o.origin,
            &mut s.owned_target,
        )
    };
    // A master file's line with a blank owner: the previous owner's
    // (RFC 1035 §5.1); the careful parser reads it when that owner is not
    // in the chunk.
    let blank = !o.czds && matches!(buf[pos], b' ' | b'\t');
    // Most lines repeat the previous owner: counted, nothing else. The
    // previous owner is followed by its tab, so comparing one byte more
    // checks this line's tab too (and that the line is long enough: an
    // owner has no newline).
    let rest = if p > 0 && (blank || same_at::<W, false>(buf, pos, k.prev_at, p + 1)) {
        let rest = rest_from(if blank { pos } else { pos + p });
        if rest == AfterOwner::Slow || (rest == AfterOwner::Soa && k.kind != Kind::Apex) {
            c.stop = Stop::Slow;
            return None;
        }
        k.run += 1;
        rest
    } else {
        count_run(c, k.kind, k.run);
        k.run = 0;
        let owner = if blank { None } else { owner_of_line::<W>(buf, pos, line_end) };
        let Some((owner, classes)) = owner else {
            c.stop = Stop::Slow;
            return None;
        };
        let rest = rest_from(pos + owner.len());
        // An SOA is read here at the apex only (written absolute).
        let other_soa = rest == AfterOwner::Soa && !owner.eq_ignore_ascii_case(o.apex);
        if rest == AfterOwner::Slow
            || other_soa
            || !new_owner::<W>(c, rule, s, k, buf, (pos, owner, classes), o)
        {
            c.stop = Stop::Slow;
            return None;
        }
        k.prev_at = pos;
        // An owner whose lines' types matter starts no run: its lines are
        // classified one by one (see `new_owner`), as the careful parser
        // does: one that has or may have NSEC3 data, and one outside the
        // apex (another zone's SOA may follow its first line). Both are
        // rare in a zone.
        let one_by_one = matches!(k.kind, Kind::Nsec3 | Kind::Outside)
            || (k.kind == Kind::Registered && starts_with_hashed_label(owner));
        k.prev_len = if one_by_one { 0 } else { owner.len() };
        rest
    };
    if o.ns && matches!(k.kind, Kind::Registered) {
        match rest {
            AfterOwner::Ns(r) => intern_ns(c, &mut s.ns_ids, &buf[r]),
            AfterOwner::NsOwned => intern_ns(c, &mut s.ns_ids, &s.owned_target),
            _ => {}
        }
    }
    c.lines += 1;
    Some(next)
}

/// Classifies the owner of the line at `pos` against the apex and counts
/// or records it (`k.kind` becomes its kind); a relative owner is made
/// absolute under the origin first. False: the careful parser reads the
/// line (an owner it treats apart, `@`, a relative owner without an
/// origin the fast path knows, a name too long…).
#[inline(always)]
fn new_owner<const W: bool>(
    c: &mut Chunk,
    rule: Option<&RuleSnapshot>,
    s: &mut Scratch,
    k: &mut OwnerRun,
    buf: &[u8],
    (pos, owner, classes): (usize, &[u8], Option<Classes32>),
    o: &FastOpts<'_>,
) -> bool {
    let apex = o.apex;
    let root = apex == b".";
    let name: &[u8] = if owner.last() == Some(&b'.') {
        owner
    } else {
        let Some(origin) = o.origin_text.filter(|_| owner != b"@") else { return false };
        s.name.clear();
        s.name.extend_from_slice(owner);
        if origin != b"." {
            s.name.push(b'.');
        }
        s.name.extend_from_slice(origin);
        if s.name.len() >= crate::idna2008::MAX_NAME_OCTETS {
            return false;
        }
        &s.name
    };
    // The classes cover the first bytes of the line: the owner's, which
    // begin `name`.
    let fold = |bytes: &[u8]| match classes {
        Some(cl) if bytes.len() <= owner.len() => cl.flags(bytes.len()),
        _ => bytes.iter().fold(0u8, |f, &b| f | HEAD_CLASS[b as usize]),
    };
    let (n, a) = (name.len(), apex.len());
    // Under the apex: `head.apex` (`head.` for the root).
    let exact = n > a && same_bytes(&name[n - a..], apex);
    let under = (exact || (n > a && name[n - a..].eq_ignore_ascii_case(apex)))
        && (root || name[n - a - 1] == b'.');
    if under {
        let head = &name[..n - a - usize::from(!root)];
        let f = fold(head);
        if f & H_SPECIAL != 0 || head.is_empty() {
            return false;
        }
        if f & H_DOT == 0 {
            // A label without a dot is the owner's first: in the line.
            let label = &buf[pos..pos + head.len()];
            if label.len() > usize::from(u16::MAX) {
                return false;
            }
            if is_hashed_label(label) && is_nsec3_line(buf, pos + owner.len()) {
                // DNSSEC data, counted apart. The owner starts no run: its
                // next line is classified by its own type, as the careful
                // parser does.
                c.nsec3_records += 1;
                c.nsec3.push(owner_hash(name, f & H_UPPER != 0 || !exact));
                k.kind = Kind::Nsec3;
                return true;
            }
            new_registered::<W>(c, rule, &mut k.last_reg, buf, label, (pos, f), o, &mut s.chars);
            k.kind = Kind::Registered;
        } else {
            if has_long_label(head) {
                return false;
            }
            c.deeper_records += 1;
            c.deeper.push(owner_hash(name, f & H_UPPER != 0 || !exact));
            k.kind = Kind::Deeper;
        }
    } else {
        let f = fold(name);
        if f & H_SPECIAL != 0 {
            return false;
        }
        if n == a && name.eq_ignore_ascii_case(apex) {
            c.apex_records += 1;
            k.kind = Kind::Apex;
        } else if is_type_line(buf, pos, b"SOA", 6)
            || is_type_line(buf, pos, b"NS", 2)
            || has_long_label(name)
        {
            // Another zone's SOA, a delegation outside the zone, or a label
            // no server loads: the careful parser refuses them.
            return false;
        } else {
            c.outside_records += 1;
            c.outside.push(owner_hash(name, f & H_UPPER != 0));
            k.kind = Kind::Outside;
        }
    }
    true
}

/// Whether a label of `name` is over 63 octets (RFC 1035 §2.3.4); only
/// a name longer than that is split.
#[inline]
fn has_long_label(name: &[u8]) -> bool {
    name.len() > MAX_LABEL_OCTETS && name.split(|&b| b == b'.').any(|l| l.len() > MAX_LABEL_OCTETS)
}

/// Whether the record on the line at `pos` is of the type `name` or
/// number `number` (SOA or 6, NS or 2): its type, after the owner and any
/// TTL and class, in any case, as the careful parser reads it. Only asked
/// of owners outside the apex, which are rare.
fn is_type_line(buf: &[u8], pos: usize, name: &[u8], number: u16) -> bool {
    let end = memchr::memchr(b'\n', &buf[pos..]).map_or(buf.len(), |k| pos + k);
    let fields = buf[pos..end].split(|b| matches!(b, b' ' | b'\t' | b'\r'));
    fields
        .filter(|f| !f.is_empty())
        .skip(1)
        .find(|f| !(is_ttl(f) || is_class(f)))
        .is_some_and(|t| is_type(t, name, number))
}

/// Whether the first label of `owner` has the shape of an NSEC3 hash.
fn starts_with_hashed_label(owner: &[u8]) -> bool {
    owner.get(..32).is_some_and(is_hashed_label) && matches!(owner.get(32), None | Some(b'.'))
}

/// Whether the record of the line whose text after the owner starts at
/// `at` is NSEC3 data ([`is_nsec3_text`]). Only asked of owners whose
/// label has the shape of a hash.
fn is_nsec3_line(buf: &[u8], at: usize) -> bool {
    let end = memchr::memchr(b'\n', &buf[at..]).map_or(buf.len(), |k| at + k);
    is_nsec3_text(&buf[at..end])
}

/// A registered owner starts on the line at `pos` (`at`: with the byte
/// classes `f` of its label): the last registered label again (after
/// deeper names, as canonical order puts them), or a new label, which the
/// rule may count (see [`crate::input::settle`]) or `c` records.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn new_registered<const W: bool>(
    c: &mut Chunk,
    rule: Option<&RuleSnapshot>,
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
    if c.active && settle_label(c, rule, buf, (pos, m), plain, None) {
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
/// path reads it: the bytes up to the first tab or space, a name without an empty
/// label (absolute, or relative to the origin), on a line that starts
/// with none of ` `, tab, `;`, `$`.
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
    // The owner's separator (a tab or a space) and classes from one pass
    // when it is short (`classes` is kept only when the separator is in
    // its 32 bytes). Before the separator, a byte the tokenizer reads
    // apart (a special byte) leaves the line to the careful parser.
    let mut classes = Classes32::quick::<W, false>(buf, pos).or_else(|| Classes32::load(buf, pos));
    let tab = match classes {
        Some(k) if k.tab | k.special != 0 => {
            let at = (k.tab | k.special).trailing_zeros() as usize;
            if !matches!(line.get(at), Some(b'\t' | b' ')) {
                return None;
            }
            at
        }
        _ => {
            classes = None;
            memchr::memchr2(b'\t', b' ', line).unwrap_or(usize::MAX)
        }
    };
    // A separator past the line is on a later line: none on this one.
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
    labels_ok.then_some((owner, classes))
}

/// The distinct NS target names of a chunk, by their ids.
fn ns_names(ids: HashMap<Box<[u8]>, u32, HashBuild>) -> Vec<Box<[u8]>> {
    let mut names: Vec<Box<[u8]>> = vec![Box::default(); ids.len()];
    for (k, id) in ids {
        names[id as usize] = k;
    }
    names
}

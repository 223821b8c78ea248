//! The general parser: one entry (a directive or a resource record, RFC
//! 1035 §5.1) at a time, tokenised.

use std::path::{Path, PathBuf};

use super::nsec3::{is_hashed_label, is_nsec3_record};
use super::state::{Include, ZoneState};
use super::tokens::{
    FAILED_PAREN_BUDGET, PAREN_BOUNDS, Scan, TIGHT_PAREN_BOUNDS, Tok, is_class, is_ttl, is_type,
    resolve_in, resolve_parsed_in, scan_entry,
};
use crate::idna2008::MAX_LABEL_OCTETS;
use crate::input::collect::{Class, Collector, KeyMode, LineKind, Loc, Orig, Relation};
use crate::input::name::{self, Parsed};
use crate::input::rdata;
use crate::input::{Error, ErrorKind};

/// Resolves a name token against the origin: absolute labels, case kept.
pub(super) fn resolve(st: &ZoneState, tok: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    resolve_in(st.origin.as_deref(), tok)
}

pub(super) fn resolve_parsed(st: &ZoneState, p: Parsed) -> Result<Vec<Vec<u8>>, String> {
    resolve_parsed_in(st.origin.as_deref(), p)
}

/// Parses one entry with the general parser. `None`: need more data.
pub(super) fn general_entry(
    col: &mut Collector,
    st: &mut ZoneState,
    buf: &[u8],
    pos: usize,
    base: u64,
    eof: bool,
) -> Result<Option<usize>, Error> {
    let mut toks = std::mem::take(&mut st.toks);
    let bounds =
        if st.failed_paren_bytes > FAILED_PAREN_BUDGET { TIGHT_PAREN_BOUNDS } else { PAREN_BOUNDS };
    let scanned = match scan_entry(buf, pos, eof, &mut toks, bounds) {
        Scan::Incomplete => None,
        Scan::Entry { end, lines, error, leading_ws, comment } => {
            Some((end, lines, error, leading_ws, comment))
        }
        // Its first line alone, malformed: no token is read.
        Scan::Unclosed { end, error, leading_ws, scanned } => {
            st.failed_paren_bytes += scanned as u64;
            toks.clear();
            Some((end, 1, Some(error), leading_ws, false))
        }
    };
    let res = match scanned {
        None => Ok(None),
        Some((end, lines, error, leading_ws, comment)) => {
            let loc = Loc { source: st.source, line: st.line, offset: base + pos as u64 };
            let r2 = entry(col, st, buf, base, &toks, loc, lines, error, leading_ws, comment);
            st.line += lines;
            r2.map(|()| Some(end))
        }
    };
    st.toks = toks;
    res
}

/// A line at `loc` states an owner not (yet) known: a blank owner after
/// it is malformed, not the owner's before it.
fn forget_owner(st: &mut ZoneState, loc: Loc) {
    st.prev_class = None;
    st.prev_owner_malformed = Some(loc.line);
}

#[allow(clippy::too_many_arguments)]
pub(super) fn entry(
    col: &mut Collector,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    toks: &[Tok],
    loc: Loc,
    lines: u64,
    error: Option<String>,
    leading_ws: bool,
    comment: bool,
) -> Result<(), Error> {
    col.lines_read(lines);
    col.continuation_lines(lines.saturating_sub(1));
    if lines == 0 {
        // An empty tail at end of file: nothing was read.
        return Ok(());
    }
    if let Some(e) = error {
        if !leading_ws {
            // Its owner, if it stated one, is lost with it.
            forget_owner(st, loc);
        }
        return col.malformed(loc, e);
    }
    if toks.is_empty() {
        col.count(if comment { LineKind::Comment } else { LineKind::Blank }, 1);
        return Ok(());
    }
    let text = |t: &Tok| &buf[t.start..t.end];
    let first = text(&toks[0]);
    if !leading_ws && first.first() == Some(&b'$') {
        return directive(col, st, toks.iter().map(text).collect(), loc);
    }
    // Owner.
    let (owner_tok, mut k) = if leading_ws { (None, 0) } else { (Some(toks[0]), 1) };
    if owner_tok.is_some() {
        // Until the line is read whole (and the owner classified below).
        forget_owner(st, loc);
    }
    while k < toks.len() && (is_ttl(text(&toks[k])) || is_class(text(&toks[k]))) {
        k += 1;
    }
    let Some(ty) = toks.get(k).map(text) else {
        return col.malformed(loc, "missing record type");
    };
    // By name or number (`TYPE2`, RFC 3597 §5), as dnspython and BIND
    // read them.
    let is_ns = is_type(ty, b"NS", 2);
    let is_soa = is_type(ty, b"SOA", 6);
    let rdata = toks.get(k + 1..).unwrap_or_default();
    // RDATA in the generic form (`\# len hex`, RFC 3597 §5), of any type:
    // exactly `len` octets, or the line is malformed, as dnspython and
    // BIND refuse it.
    let generic = match rdata.split_first() {
        Some((mark, data)) if text(mark) == rdata::GENERIC => {
            match rdata::generic(data.iter().map(text)) {
                Ok(wire) => Some(wire),
                Err(e) => return col.malformed(loc, format!("RDATA: {e}")),
            }
        }
        _ => None,
    };
    let ns_target = if is_ns {
        let target = match (&generic, rdata.first()) {
            (Some(wire), _) => name::from_wire_rdata(wire),
            (None, Some(t)) => resolve(st, text(t)),
            (None, None) => return col.malformed(loc, "NS record without target"),
        };
        match target {
            Ok(labels) => Some(name::present(&labels)),
            Err(e) => return col.malformed(loc, format!("NS target: {e}")),
        }
    } else {
        None
    };
    let nsec3 = is_nsec3_record(ty, rdata.first().map(text), generic.as_deref());
    let class = match owner_tok {
        None => {
            let Some(class) = st.prev_class else {
                let why = match st.prev_owner_malformed {
                    Some(line) => {
                        format!("blank owner: the owner before it (line {line}) is malformed")
                    }
                    None => "blank owner with no previous owner".to_string(),
                };
                return col.malformed(loc, why);
            };
            if class == Class::Outside && is_ns {
                return outside_delegation(col, loc);
            }
            if class == Class::Nsec3 && !nsec3 {
                // Its label, a hash, was not kept: this record would be a
                // registered label's (see `nsec3`), so it is refused.
                let ty = String::from_utf8_lossy(ty);
                return col.malformed(
                    loc,
                    format!("{ty} record at an NSEC3 hashed owner (RFC 5155 §7.1)"),
                );
            }
            col.same_owner(class);
            class
        }
        Some(t) => {
            let (labels, first_label) = match owner_labels(st, text(&t)) {
                Ok(owner) => owner,
                Err(why) => return col.malformed(loc, why),
            };
            if let Err(why) = find_apex(col, st, buf, is_soa, &labels) {
                return col.malformed(loc, why);
            }
            if let Some(long) = long_label(col, &labels) {
                let reason = format!("owner: label of {long} octets (at most {MAX_LABEL_OCTETS})");
                return col.malformed(loc, reason);
            }
            if is_ns && col.apex().is_some_and(|a| a.is_outside(&labels)) {
                return outside_delegation(col, loc);
            }
            let class = classify(col, st, (buf, base), t, &labels, first_label, loc, nsec3)?;
            // An SOA elsewhere than at the apex is another zone's: outside
            // it, or below it (a child zone's, or `--origin` naming a
            // parent), whose registered names would be read as deeper ones.
            if is_soa && !matches!(class, Class::Apex) {
                return Err(other_zone(col, &labels, loc));
            }
            st.prev_class = Some(class);
            st.prev_owner_malformed = None;
            class
        }
    };
    col.count(LineKind::Record, 1);
    if let (Class::Registered(i), Some(t)) = (class, ns_target) {
        col.add_ns(i, t.as_bytes());
    }
    Ok(())
}

/// The labels of an owner written `raw` (`@`, relative or absolute), and
/// the span of its first label in `raw` (none for `@`); or why it is
/// malformed.
#[allow(clippy::type_complexity)]
fn owner_labels(
    st: &ZoneState,
    raw: &[u8],
) -> Result<(Vec<Vec<u8>>, Option<(usize, usize)>), String> {
    if raw == b"@" {
        return match &st.origin {
            Some(o) => Ok((o.clone(), None)),
            None => Err("'@' without $ORIGIN or --origin".into()),
        };
    }
    let p = name::parse(raw).map_err(|e| format!("owner: {e}"))?;
    let span = p.spans.first().copied();
    let labels = resolve_parsed(st, p).map_err(|e| format!("owner: {e}"))?;
    Ok((labels, span))
}

/// Makes the apex known, if it is not yet, before the record of owner
/// `labels` is classified: the owner of the zone's SOA record wherever it
/// is in the file (owners come in any order), else this record's owner if
/// it is the SOA, else the `$ORIGIN` in force (RFC 1035 §5.1). Err: why
/// the record is malformed (no apex can be known, or an SOA owner with a
/// label over 63 octets).
fn find_apex(
    col: &mut Collector,
    st: &mut ZoneState,
    buf: &[u8],
    is_soa: bool,
    labels: &[Vec<u8>],
) -> Result<(), String> {
    if col.apex().is_none() && !is_soa && !st.soa_searched {
        st.soa_searched = true;
        let data = col.source_data(st.source).cloned();
        if let Some(apex) = find_soa_apex(data.as_deref().map_or(buf, |d| d.bytes())) {
            col.set_apex(apex);
            st.apex_plain = None;
        }
    }
    if col.apex().is_some() {
        return Ok(());
    }
    // An owner with a label over 63 octets is no apex: its line is
    // malformed, and the fast path, which checks no label of the apex in
    // the names under it, would read them.
    if is_soa && let Some(long) = labels.iter().map(Vec::len).find(|&n| n > MAX_LABEL_OCTETS) {
        return Err(format!("owner: label of {long} octets (at most {MAX_LABEL_OCTETS})"));
    }
    let Some(apex) = (if is_soa { Some(labels) } else { st.origin.as_deref() }) else {
        return Err("record before the apex is known (no --origin, $ORIGIN or SOA with an \
                    absolute owner)"
            .into());
    };
    col.set_apex(apex.to_vec());
    st.apex_plain = None;
    Ok(())
}

/// The length of a label of the owner `labels` over 63 octets (RFC 1035
/// §2.3.4), a name no server loads; not the registered label's, which the
/// scan judges (IDNA2008: label too long).
fn long_label(col: &Collector, labels: &[Vec<u8>]) -> Option<usize> {
    labels.iter().find(|l| l.len() > MAX_LABEL_OCTETS)?;
    let registered = col.apex().is_some_and(|a| {
        let mut lower = labels.to_vec();
        name::lower(&mut lower);
        a.relation(&lower) == Relation::Registered
    });
    labels.iter().skip(usize::from(registered)).map(Vec::len).find(|&n| n > MAX_LABEL_OCTETS)
}

/// An NS record outside the apex is malformed, not counted as out-of-zone
/// data as other records there are (stray glue, which named ignores): it
/// delegates a name this zone cannot hold, so it was meant as a
/// registration, under a mistyped `$ORIGIN` or in another zone's file.
fn outside_delegation(col: &mut Collector, loc: Loc) -> Result<(), Error> {
    let apex = col.apex().map_or_else(String::new, |a| a.text.clone());
    let reason = format!(
        "NS record outside the zone (apex {apex}): a delegation it cannot hold (a mistyped \
         $ORIGIN? another zone's file?)"
    );
    col.malformed(loc, reason)?;
    col.set.accounting.outside_delegations += 1;
    Ok(())
}

/// The error of an SOA record at `labels`, which are not the apex.
fn other_zone(col: &Collector, labels: &[Vec<u8>], loc: Loc) -> Error {
    let apex = col.apex().map_or_else(String::new, |a| a.text.clone());
    let kind = ErrorKind::OtherZone(name::present(labels), apex);
    Error::new(kind).at(col.path(loc.source), loc.line, Some(loc.offset))
}

#[allow(clippy::too_many_arguments)]
/// Classifies a record by its owner `labels` (the token `tok`) and
/// counts it; a registered label is registered. `nsec3`: the record is
/// NSEC3 data, counted apart at a hashed owner (see [`super::nsec3`]).
pub(super) fn classify(
    col: &mut Collector,
    st: &ZoneState,
    (buf, base): (&[u8], u64),
    tok: Tok,
    labels: &[Vec<u8>],
    first_label: Option<(usize, usize)>,
    loc: Loc,
    nsec3: bool,
) -> Result<Class, Error> {
    let mut lower = labels.to_vec();
    name::lower(&mut lower);
    let Some(apex) = col.apex() else { return Ok(Class::Outside) };
    let rel = apex.relation(&lower);
    if rel != Relation::Registered {
        let text = name::present(&lower);
        return Ok(col.other_owner(rel, text.as_bytes()));
    }
    if nsec3 && is_hashed_label(&labels[0]) {
        return Ok(col.nsec3_owner(name::present(&lower).as_bytes()));
    }
    let octets = &labels[0];
    // The label's original text is the first label of the owner token,
    // or, for `@` or a name that is the origin itself, the origin.
    let (offset, orig_text): (u64, &[u8]) = match first_label {
        Some((s, e)) => (base + (tok.start + s) as u64, &buf[tok.start + s..tok.start + e]),
        None => (loc.offset, octets.as_slice()),
    };
    let loc = Loc { offset, ..loc };
    let orig = if st.mapped && first_label.is_some() && orig_text == octets.as_slice() {
        Orig::Mapped
    } else {
        Orig::Text(orig_text)
    };
    Ok(Class::Registered(col.register(loc, octets, orig, KeyMode::Octets)?))
}

/// The owner of the first SOA record of `data` written with an absolute
/// owner name at the start of its line (`tld. 900 IN SOA …`), for a zone
/// whose first records come before its SOA. The search runs once per file
/// and only for such a zone: over the whole of a mapped file, over the
/// buffer read so far of a stream.
pub(super) fn find_soa_apex(data: &[u8]) -> Option<Vec<Vec<u8>>> {
    let is_space = |b: u8| matches!(b, b' ' | b'\t');
    // One pass over the bytes that start `SOA` or end `TYPE6` (RFC 3597
    // §5), in any case: the type's field is `data[at..end]`.
    for k in memchr::memchr3_iter(b's', b'S', b'6', data) {
        let (at, end) = if data[k] == b'6' {
            let len = data[..k].iter().rev().take(8).take_while(|&&b| !is_space(b)).count();
            (k - len, k + 1)
        } else {
            (k, k + 3)
        };
        if !data.get(at..end).is_some_and(|t| is_type(t, b"SOA", 6)) {
            continue;
        }
        let before = at.checked_sub(1).map(|k| data[k]);
        let after = data.get(end).copied();
        if !before.is_some_and(is_space)
            || !after.is_none_or(|b| is_space(b) || matches!(b, b'\r' | b'\n' | b'('))
        {
            continue;
        }
        let start = memchr::memrchr(b'\n', &data[..at]).map_or(0, |k| k + 1);
        let mut fields = data[start..at].split(|&b| is_space(b)).filter(|f| !f.is_empty());
        let Some(owner) = fields.next() else { continue };
        // A comment line (RFC 1035 §5.1) is no record.
        if owner.starts_with(b";")
            || is_space(data[start])
            || !fields.all(|f| is_ttl(f) || is_class(f))
        {
            continue;
        }
        // An owner with a label over 63 octets is malformed (RFC 1035
        // §2.3.4), whichever parser reads its line: no apex.
        if let Ok(p) = name::parse(owner)
            && p.absolute
            && p.labels.iter().all(|l| l.len() <= MAX_LABEL_OCTETS)
        {
            return Some(p.labels);
        }
    }
    None
}

pub(super) fn directive(
    col: &mut Collector,
    st: &mut ZoneState,
    args: Vec<&[u8]>,
    loc: Loc,
) -> Result<(), Error> {
    let name = args[0];
    // At most these arguments: more is text the directive would ignore
    // (RFC 1035 §5.1 allows only a comment after them).
    let most = if name.eq_ignore_ascii_case(b"$INCLUDE") { 3 } else { 2 };
    if args.len() > most
        && [&b"$ORIGIN"[..], b"$TTL", b"$INCLUDE"].iter().any(|d| name.eq_ignore_ascii_case(d))
    {
        let extra = String::from_utf8_lossy(args[most]);
        return col
            .malformed(loc, format!("{}: unexpected {extra:?}", String::from_utf8_lossy(name)));
    }
    if name.eq_ignore_ascii_case(b"$ORIGIN") {
        let Some(arg) = args.get(1) else {
            return col.malformed(loc, "$ORIGIN without a name");
        };
        let labels = match resolve(st, arg) {
            Ok(l) => l,
            Err(e) => return col.malformed(loc, format!("$ORIGIN: {e}")),
        };
        // Not the apex yet: a dump may start at `$ORIGIN .` or the parent
        // and name the SOA relative to it (see the owner's record).
        st.origin = Some(labels);
        col.count(LineKind::Directive, 1);
        Ok(())
    } else if name.eq_ignore_ascii_case(b"$TTL") {
        let Some(ttl) = args.get(1) else {
            return col.malformed(loc, "$TTL without a value");
        };
        // Seconds, or BIND's units (`1h30m`): a number first, letters of
        // units after.
        let units = |b: &u8| b.is_ascii_digit() || b"smhdwSMHDW".contains(b);
        if !is_ttl(ttl) || !ttl.iter().all(units) {
            let ttl = String::from_utf8_lossy(ttl);
            return col.malformed(loc, format!("$TTL: {ttl:?} is not a TTL"));
        }
        col.count(LineKind::Directive, 1);
        Ok(())
    } else if name.eq_ignore_ascii_case(b"$INCLUDE") {
        let Some(file) = args.get(1) else {
            return col.malformed(loc, "$INCLUDE without a file name");
        };
        let origin = match args.get(2) {
            Some(o) => match resolve(st, o) {
                Ok(l) => Some(l),
                Err(e) => return col.malformed(loc, format!("$INCLUDE origin: {e}")),
            },
            None => st.origin.clone(),
        };
        col.count(LineKind::Directive, 1);
        let file = PathBuf::from(String::from_utf8_lossy(file).into_owned());
        let path = if file.is_absolute() {
            file
        } else {
            st.path.parent().unwrap_or(Path::new("")).join(file)
        };
        st.include = Some(Include { path, origin, loc });
        Ok(())
    } else {
        col.malformed(loc, format!("unknown directive {}", String::from_utf8_lossy(name)))
    }
}

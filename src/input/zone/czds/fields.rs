//! The fields after the owner: whether a line is for the fast path, and
//! its NS target.

use super::super::tokens::is_ttl;
use super::super::tokens::{is_class, is_type};
use super::bytes::{same_at, target_fast};
use crate::input::name;
use crate::input::rdata;

/// What the general parser ([`super::super::entry`]) makes of the text after a
/// line's owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum AfterOwner {
    /// A record that is not NS (its RDATA is not read, but for the
    /// length of RDATA in the generic form, `\# len hex`: a line with a
    /// parenthesis or a quote never comes here, the chunk's pre-pass
    /// leaves it to the careful parser), or an NS record whose target
    /// resolves, when targets are not wanted.
    Record,
    /// An NS record whose target, `buf[range]`, is already in the form the
    /// general parser gives it (lower case, absolute, nothing to escape).
    Ns(std::ops::Range<usize>),
    /// An NS record whose target it resolves (upper case, octets to
    /// escape…): into the caller's buffer.
    NsOwned,
    /// An SOA record: the apex's is a record; any other owner's is the
    /// general parser's, for it is another zone's (an error).
    Soa,
    /// A line the general parser reports as malformed (no record type; an
    /// NS record without a target, or with one that does not resolve;
    /// RDATA in the generic form not as long as its length says) or
    /// reads apart (`;`, `(`, `)`, `"` or `\` before the RDATA): the fast
    /// path stops there and leaves it to the general parser.
    Slow,
}

/// The TTL, class and type fields of the last NS line and of the last
/// other line, with their separators: a line whose text after the owner
/// starts with the same bytes has the same fields, found by one comparison
/// ([`same_at`]).
#[derive(Clone, Copy, Default)]
pub(super) struct FieldsCache {
    /// `buf[at..at + len]`, up to the target (at most 32 bytes; 0: none).
    pub(super) ns: (usize, usize),
    /// Up to and with the separator after the type, of the last two
    /// other lines of different fields, the most recent first (the DS and
    /// glue A records of a dump alternate).
    pub(super) other: [(usize, usize); 2],
}

/// [`AfterOwner`] of `buf[at..end]`, the text of a line after its owner. The NS
/// target is read when `want`, and checked to resolve in any case, as the
/// general parser does (on every line of a master file or a CZDS dump:
/// a target that is not a name makes the line malformed, whichever path
/// reads it).
#[inline(always)]
pub(super) fn check_after_owner<const W: bool>(
    cache: &mut FieldsCache,
    buf: &[u8],
    (at, end): (usize, usize),
    want: bool,
    origin: Option<&[Vec<u8>]>,
    owned: &mut Vec<u8>,
) -> AfterOwner {
    let (c, k) = cache.ns;
    if k > 0 && at + k <= end && same_at::<W, false>(buf, at, c, k) {
        if target_fast::<W, false>(buf, at + k, end) {
            return if want { AfterOwner::Ns(at + k..end) } else { AfterOwner::Record };
        }
    } else if other_cached::<W, false>(cache, buf, (at, end)) {
        return AfterOwner::Record;
    }
    check_after_owner_fields(cache, buf, (at, end), want, origin, owned)
}

/// Whether `buf[at..end]`, the text of a line after its owner, is a
/// record by [`FieldsCache`] alone, when its NS target is not read:
/// [`check_after_owner`] returns [`AfterOwner::Record`] for it. An NS
/// target must be one that [`target_fast`] shows to resolve (false sends
/// the line to [`check_after_owner`], which decides).
#[inline(always)]
pub(super) fn after_owner_cached<const W: bool, const Z: bool>(
    cache: &mut FieldsCache,
    buf: &[u8],
    (at, end): (usize, usize),
) -> bool {
    let (c, k) = cache.ns;
    if k > 0 && at + k <= end && same_at::<W, Z>(buf, at, c, k) {
        return target_fast::<W, Z>(buf, at + k, end);
    }
    other_cached::<W, Z>(cache, buf, (at, end))
}

/// Whether `buf[at..end]` starts with the fields of one of the last two
/// records that are not NS ([`FieldsCache::other`]), the one found made
/// the most recent.
#[inline(always)]
pub(super) fn other_cached<const W: bool, const Z: bool>(
    cache: &mut FieldsCache,
    buf: &[u8],
    (at, end): (usize, usize),
) -> bool {
    let hit = |(c, k): (usize, usize)| {
        k > 0
            && at + k <= end
            && same_at::<W, Z>(buf, at, c, k)
            && !backslash_first(buf, at + k, end)
    };
    if hit(cache.other[0]) {
        return true;
    }
    if hit(cache.other[1]) {
        cache.other.swap(0, 1);
        return true;
    }
    false
}

/// Whether the RDATA of a line, from `at` (after its type and a
/// separator) to `end`, starts with `\`, as RDATA in the generic form
/// does (`\# len hex`, RFC 3597 §5): such a line is not a record by the
/// cache alone, since its data must be as long as its length says. One
/// byte is compared on the line of a dump, whose fields one tab
/// separates.
#[inline(always)]
fn backslash_first(buf: &[u8], mut at: usize, end: usize) -> bool {
    while at < end && matches!(buf[at], b' ' | b'\t' | b'\r') {
        at += 1;
    }
    at < end && buf[at] == b'\\'
}

/// Bytes the tokenizer of the general parser reads apart: a comment, a
/// parenthesis, a quote, an escape.
#[inline]
pub(super) const fn tokenizer_byte(b: u8) -> bool {
    matches!(b, b';' | b'(' | b')' | b'"' | b'\\')
}

/// [`check_after_owner`] field by field, as the general parser reads them (split
/// on tabs, spaces and CRs; TTLs and classes, then the type), filling the
/// cache.
#[inline(never)]
pub(super) fn check_after_owner_fields(
    cache: &mut FieldsCache,
    buf: &[u8],
    (at, end): (usize, usize),
    want: bool,
    origin: Option<&[Vec<u8>]>,
    owned: &mut Vec<u8>,
) -> AfterOwner {
    let rest = &buf[at..end];
    let mut fields = Fields { rest, at: 0 };
    let text = |(s, e): (usize, usize)| &rest[s..e];
    let ty = loop {
        match fields.next() {
            Some(f) if is_ttl(text(f)) || is_class(text(f)) => continue,
            Some(f) => break f,
            None => return AfterOwner::Slow,
        }
    };
    if rest[..ty.1].iter().any(|&b| tokenizer_byte(b)) {
        return AfterOwner::Slow;
    }
    if is_type(text(ty), b"SOA", 6) {
        // Never cached: every SOA line comes here.
        return AfterOwner::Soa;
    }
    // `TYPE2` too (RFC 3597 §5), as the careful parser reads it.
    if !is_type(text(ty), b"NS", 2) {
        if ty.1 < rest.len() && ty.1 < 32 {
            cache.other = [(at, ty.1 + 1), cache.other[0]];
        }
        return match fields.next().map(text) {
            // RDATA in the generic form (RFC 3597 §5): a record when its
            // data is as long as its length says; else (or with a byte
            // the tokenizer reads apart, `\#;`) the general parser reads
            // the line, and finds it malformed.
            Some(first) if first.starts_with(rdata::GENERIC) => {
                if first == rdata::GENERIC && rdata::generic(fields.map(text)).is_ok() {
                    AfterOwner::Record
                } else {
                    AfterOwner::Slow
                }
            }
            _ => AfterOwner::Record,
        };
    }
    let Some(t) = fields.next() else { return AfterOwner::Slow };
    if t.0 <= 32 {
        cache.ns = (at, t.0);
    }
    let target = text(t);
    if target.iter().any(|&b| tokenizer_byte(b)) {
        return AfterOwner::Slow;
    }
    if as_written(target) {
        return if want { AfterOwner::Ns(at + t.0..at + t.1) } else { AfterOwner::Record };
    }
    match resolve_target(target, origin, owned) {
        true if want => AfterOwner::NsOwned,
        true => AfterOwner::Record,
        false => AfterOwner::Slow,
    }
}

/// Octets a name keeps as they are in the lower-case presentation format
/// of [`name::present`]: printable ASCII but upper-case letters and
/// `\ " ( ) ; @ $` (the dot separates labels).
pub(super) static AS_WRITTEN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0x21usize;
    while b <= 0x7e {
        let c = b as u8;
        t[b] = !c.is_ascii_uppercase()
            && !matches!(c, b'\\' | b'"' | b'(' | b')' | b';' | b'@' | b'$');
        b += 1;
    }
    t
};

/// Whether an NS target is an absolute name that the general parser
/// accepts (no empty label, at most 255 octets in wire format) written as
/// [`name::present`] writes it.
pub(super) fn as_written(t: &[u8]) -> bool {
    let n = t.len();
    n > 0
        && n < crate::idna2008::MAX_NAME_OCTETS
        && t[n - 1] == b'.'
        && (n == 1 || (t[0] != b'.' && !t.windows(2).any(|w| w == b"..")))
        && t.iter().all(|&b| AS_WRITTEN[usize::from(b)])
}

/// Resolves an NS target as the general parser does
/// ([`super::super::tokens::resolve_in`]) into `owned`, in lower-case presentation
/// format; false when it does not resolve.
pub(super) fn resolve_target(
    target: &[u8],
    origin: Option<&[Vec<u8>]>,
    owned: &mut Vec<u8>,
) -> bool {
    let Ok(labels) = super::super::tokens::resolve_in(origin, target) else { return false };
    owned.clear();
    owned.extend_from_slice(name::present(&labels).as_bytes());
    true
}

/// The fields of a line after its owner as the tokenizer of the general
/// parser splits them (on tabs, spaces and CRs), as ranges of `rest`.
pub(super) struct Fields<'a> {
    pub(super) rest: &'a [u8],
    pub(super) at: usize,
}

impl Iterator for Fields<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        let sep = |b: &u8| matches!(b, b'\t' | b' ' | b'\r');
        let start = self.at + self.rest[self.at..].iter().position(|b| !sep(b))?;
        let len = self.rest[start..].iter().position(sep).unwrap_or(self.rest.len() - start);
        self.at = start + len;
        Some((start, start + len))
    }
}

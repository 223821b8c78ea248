//! Entries and tokens of the master file format (RFC 1035 §5.1): where an
//! entry ends (parentheses, quotes, comments), the class and TTL fields,
//! and names resolved against the origin. Shared by the general parser and
//! the CZDS fast path.

use memchr::memchr;

use crate::idna2008::MAX_NAME_OCTETS;
use crate::input::MAX_LINE_BYTES;
use crate::input::name::{self, Parsed};

#[derive(Clone, Copy, Debug)]
pub(super) struct Tok {
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) const CLASSES: [&[u8]; 4] = [b"IN", b"CH", b"HS", b"CS"];

#[inline]
pub(crate) fn is_class(t: &[u8]) -> bool {
    match *t {
        // The two letters in upper case (`| 0x20` lowers a letter; only
        // letters can give a class name's letters so).
        [a, b] => CLASSES.contains(&&[a & !0x20, b & !0x20][..]),
        _ if t.len() <= 5 => false,
        _ => t[..5].eq_ignore_ascii_case(b"CLASS") && t[5..].iter().all(u8::is_ascii_digit),
    }
}

/// The number of a record type written in the generic form `TYPEnn`
/// (RFC 3597 §5; `TYPE` in any case): decimal digits only, any number of
/// them, leading zeros allowed (`TYPE050` is 50), at most 65535, as
/// dnspython reads it (and NSD; BIND reads at most five characters
/// after `TYPE`, so that `TYPE000050` is no type there).
pub(crate) fn type_number(t: &[u8]) -> Option<u16> {
    let digits = t.get(4..).filter(|_| t[..4].eq_ignore_ascii_case(b"TYPE"))?;
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u16, |n, &d| {
        let d = char::from(d).to_digit(10)?;
        n.checked_mul(10)?.checked_add(d as u16)
    })
}

/// Whether the type field `t` is the type of mnemonic `name` (in any
/// case) and number `number`, written either way: a file written by a
/// tool that did not know the type has `TYPE50` for `NSEC3` (RFC 3597 §5).
pub(crate) fn is_type(t: &[u8], name: &[u8], number: u16) -> bool {
    t.eq_ignore_ascii_case(name) || type_number(t) == Some(number)
}

pub(crate) fn is_ttl(t: &[u8]) -> bool {
    t.first().is_some_and(u8::is_ascii_digit)
}

/// The most lines an entry in parentheses may span (a DNSKEY or a long TXT
/// record takes a few dozen).
pub(crate) const MAX_PAREN_LINES: u64 = 1000;

/// The most bytes an entry in parentheses may span (64 KiB of RDATA in
/// base64 with white space fits).
pub(crate) const MAX_PAREN_BYTES: usize = 128 << 10;

/// How far an entry in parentheses may span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ParenBounds {
    pub(crate) lines: u64,
    pub(crate) bytes: usize,
}

/// The bounds of an entry in parentheses.
pub(crate) const PAREN_BOUNDS: ParenBounds =
    ParenBounds { lines: MAX_PAREN_LINES, bytes: MAX_PAREN_BYTES };

/// The bounds once a source has spent [`FAILED_PAREN_BUDGET`] bytes on
/// scans for a `)` that never came: each line of a file of lines that all
/// open a `(` would otherwise be scanned 128 KiB ahead (a 125 MB file then
/// takes hours). A DNSKEY or RRSIG in parentheses still fits.
pub(crate) const TIGHT_PAREN_BOUNDS: ParenBounds = ParenBounds { lines: 32, bytes: 4 << 10 };

/// Bytes of failed scans for a `)` after which a source uses
/// [`TIGHT_PAREN_BOUNDS`]: about 500 failures at the full bounds.
pub(crate) const FAILED_PAREN_BUDGET: u64 = 64 << 20;

/// Result of scanning one entry.
pub(super) enum Scan {
    /// Need more data.
    Incomplete,
    /// A `(` still open past the bounds, at a directive's line, or at the
    /// end of the input with lines after its own: the first line alone,
    /// malformed (`error`); the
    /// next line is read as a new entry. `scanned`: the bytes scanned for
    /// the `)`.
    Unclosed {
        end: usize,
        error: String,
        leading_ws: bool,
        scanned: usize,
    },
    Entry {
        end: usize,
        lines: u64,
        error: Option<String>,
        leading_ws: bool,
        comment: bool,
    },
}

/// Splits one entry starting at `pos` into tokens.
pub(super) fn scan_entry(
    buf: &[u8],
    pos: usize,
    eof: bool,
    toks: &mut Vec<Tok>,
    bounds: ParenBounds,
) -> Scan {
    toks.clear();
    let leading_ws = matches!(buf.get(pos), Some(b' ' | b'\t'));
    let mut i = pos;
    let mut depth = 0u32;
    let mut lines = 0u64;
    let mut error: Option<String> = None;
    let mut comment = false;
    let mut line_start = pos;
    loop {
        if i >= buf.len() {
            if depth > 0 && lines > 0 && i - pos > bounds.bytes {
                return unclosed_paren(buf, pos, leading_ws, &within(bounds), i - pos);
            }
            if !eof {
                return Scan::Incomplete;
            }
            if i > line_start {
                lines += 1;
            }
            if depth > 0 && lines > 1 {
                // As past the bounds: the lines after the first are read
                // again as entries of their own, not swallowed.
                return unclosed_paren(
                    buf,
                    pos,
                    leading_ws,
                    "before the end of the input",
                    i - pos,
                );
            }
            if depth > 0 && error.is_none() {
                error = Some("unbalanced parentheses: '(' not closed".to_string());
            }
            return Scan::Entry { end: buf.len(), lines, error, leading_ws, comment };
        }
        match buf[i] {
            b'\n' => {
                if lines == 0 && i - pos > MAX_LINE_BYTES {
                    let error = Some(format!("line longer than {MAX_LINE_BYTES} bytes"));
                    return Scan::Entry { end: i + 1, lines: 1, error, leading_ws, comment };
                }
                lines += 1;
                i += 1;
                line_start = i;
                if depth > 0 && (lines >= bounds.lines || i - pos > bounds.bytes) {
                    return unclosed_paren(buf, pos, leading_ws, &within(bounds), i - pos);
                }
                if depth == 0 {
                    return Scan::Entry { end: i, lines, error, leading_ws, comment };
                }
                if buf.get(i) == Some(&b'$') {
                    // A directive cannot be inside parentheses: as past the
                    // bounds, the first line alone is malformed and the
                    // lines after it are read again as entries of their own,
                    // not swallowed with it.
                    return unclosed_paren(buf, pos, leading_ws, "before a directive", i - pos);
                }
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b';' => {
                comment = true;
                i = memchr(b'\n', &buf[i..]).map_or(buf.len(), |k| i + k);
            }
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                if depth == 0 {
                    error.get_or_insert_with(|| "unbalanced parentheses: ')' without '('".into());
                } else {
                    depth -= 1;
                }
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                loop {
                    match buf.get(j) {
                        None => {
                            if !eof {
                                return Scan::Incomplete;
                            }
                            error.get_or_insert_with(|| "unterminated quoted string".into());
                            break;
                        }
                        // `\X` quotes X (RFC 1035 §5.1), but not a line end: a
                        // quoted string ends on its line, and every line is
                        // counted.
                        Some(b'\\') if buf.get(j + 1).is_some_and(|&n| n != b'\n') => j += 2,
                        Some(b'\\') => j += 1,
                        Some(b'"') => break,
                        Some(b'\n') => {
                            error.get_or_insert_with(|| "unterminated quoted string".into());
                            break;
                        }
                        Some(_) => j += 1,
                    }
                }
                let end = j.min(buf.len());
                toks.push(Tok { start, end });
                i = if buf.get(j) == Some(&b'"') { j + 1 } else { end };
            }
            _ => {
                let start = i;
                let mut j = i;
                while let Some(&c) = buf.get(j) {
                    match c {
                        b' ' | b'\t' | b'\r' | b'\n' | b';' | b'(' | b')' | b'"' => break,
                        b'\\' if buf.get(j + 1).is_some_and(|&n| n != b'\n') => j += 2,
                        _ => j += 1,
                    }
                }
                let end = j.min(buf.len());
                if end == buf.len() && !eof {
                    return Scan::Incomplete;
                }
                toks.push(Tok { start, end });
                i = end;
            }
        }
    }
}

/// Where an open `(` was not closed: within the bounds.
fn within(bounds: ParenBounds) -> String {
    format!("within {} lines or {} bytes", bounds.lines, bounds.bytes)
}

/// The entry at `pos` when its `(` is still open past the bounds or at the
/// end of the input (`when`), after `scanned` bytes: see [`Scan::Unclosed`].
pub(super) fn unclosed_paren(
    buf: &[u8],
    pos: usize,
    leading_ws: bool,
    when: &str,
    scanned: usize,
) -> Scan {
    let end = memchr(b'\n', &buf[pos..]).map_or(buf.len(), |k| pos + k + 1);
    let error = format!("unbalanced parentheses: '(' not closed {when}");
    Scan::Unclosed { end, error, leading_ws, scanned }
}

/// [`resolve`] under `origin` (the CZDS fast path resolves NS targets so).
pub(crate) fn resolve_in(origin: Option<&[Vec<u8>]>, tok: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    if tok == b"@" {
        return origin
            .map(<[Vec<u8>]>::to_vec)
            .ok_or_else(|| "'@' without $ORIGIN or --origin".to_string());
    }
    let p = name::parse(tok)?;
    resolve_parsed_in(origin, p)
}

pub(super) fn resolve_parsed_in(
    origin: Option<&[Vec<u8>]>,
    p: Parsed,
) -> Result<Vec<Vec<u8>>, String> {
    let mut labels = p.labels;
    if !p.absolute {
        let Some(origin) = origin else {
            return Err("relative name without $ORIGIN or --origin".to_string());
        };
        labels.extend(origin.iter().cloned());
    }
    if name::wire_len(&labels) > MAX_NAME_OCTETS {
        return Err(format!("name longer than {MAX_NAME_OCTETS} octets"));
    }
    Ok(labels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_numbers() {
        for (t, n) in [
            (&b"TYPE50"[..], 50),
            (b"type050", 50),
            (b"TYPE0050", 50),
            (b"Type000050", 50),
            (b"TYPE00000000000000000002", 2),
            (b"TYPE0", 0),
            (b"TYPE65535", 65535),
            (b"TYPE065535", 65535),
        ] {
            assert_eq!(type_number(t), Some(n), "{:?}", t.escape_ascii());
        }
        for t in [
            &b"TYPE"[..],
            b"TYPE65536",
            b"TYPE0065536",
            b"TYPE99999999999999999999",
            b"TYPE+50",
            b"TYPE-1",
            b"TYPE 50",
            b"TYPE5x",
            br"TYPE\053",
            "TYPE٥٠".as_bytes(),
            b"TYP50",
            b"XTYPE50",
        ] {
            assert_eq!(type_number(t), None, "{:?}", t.escape_ascii());
        }
        assert!(is_type(b"TYPE050", b"NSEC3", 50) && is_type(b"type0002", b"NS", 2));
        assert!(!is_type(b"TYPE0500", b"NSEC3", 50));
    }
}

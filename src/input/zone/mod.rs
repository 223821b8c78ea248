//! Zone files in the master file format of [RFC 1035 §5]: one grammar,
//! read two ways.
//!
//! The careful (general) parser reads one entry at a time: a directive
//! (`$ORIGIN`, `$TTL`, `$INCLUDE`) or a resource record, possibly spanning
//! lines inside parentheses, with comments, quoted strings and `\X` /
//! `\DDD` escapes. Only the owner name, the TTL/class/type fields and, for
//! NS records, the first RDATA field are interpreted; the rest of the RDATA
//! is skipped.
//!
//! The fast path (`czds`) reads one-line records without tokenising, in
//! parallel chunks: the owner is the bytes up to the first tab or space
//! (relative ones made absolute under the origin, a blank one the previous
//! owner's), compared with the previous owner, and only a new owner is
//! classified. The entries it leaves (a parenthesis or a quote, a comment,
//! an escape in the owner, a directive…) go through the careful parser, so
//! the result is the same. It reads the sources whose head shows mostly
//! one-line records ([`ZoneState::detect_fast`]); a dump in the CZDS
//! profile (ICANN Registry Agreement, Specification 4 §2.1: one record per
//! line, absolute names, tab-separated fields, no directives) is read the
//! same way, without the blank-owner case (see `czds`).
//!
//! Recovery: an entry in parentheses may span at most
//! [`MAX_PAREN_LINES`] lines and [`MAX_PAREN_BYTES`] bytes, and a line
//! starting with `$` ends it. A `(` left open past that is malformed at the
//! line of the `(` (that line alone), and reading goes on at the next line,
//! so one stray character does not swallow the rest of the file. Once a
//! source has spent 64 MiB on such scans, its bounds shrink to 32 lines and
//! 4 KiB, so that a file of lines that each open a `(` is read in linear
//! time.
//!
//! [RFC 1035 §5]: https://www.rfc-editor.org/rfc/rfc1035#section-5

mod czds;
mod entry;
mod nsec3;
mod state;
mod tokens;

pub(crate) use czds::parallel;
use czds::{FastOpts, Stop};
use entry::general_entry;
#[cfg(test)]
use state::looks_czds;
pub(crate) use state::{Include, MAX_INCLUDES, ZoneState};
pub(crate) use tokens::{is_class, is_ttl, is_type};

use super::collect::Collector;
use super::{Config, Error};

/// The apex for the fast path, when the source fits the CZDS profile and
/// the apex is known (plain presentation text).
pub(crate) fn fast_apex(col: &Collector, st: &mut ZoneState) -> Option<Vec<u8>> {
    if !st.fast {
        return None;
    }
    if st.apex_plain.is_none() {
        st.apex_plain = col.apex().and_then(|a| a.plain.clone());
    }
    st.apex_plain.clone()
}

/// Parses as many complete entries of `buf` as possible; returns the
/// number of bytes consumed. `base` is the offset of `buf[0]` in the
/// source.
pub(crate) fn parse(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    eof: bool,
) -> Result<usize, Error> {
    let mut pos = 0;
    while pos < buf.len() {
        if st.fast {
            if st.apex_plain.is_none() {
                st.apex_plain = col.apex().and_then(|a| a.plain.clone());
            }
            if let Some(apex) = st.apex_plain.take() {
                // Cloned: the careful parser reads with it too (see `run`).
                let origin = st.origin.clone();
                let text = origin_text(origin.as_deref());
                let copy = !st.mapped || config.label_text == super::LabelText::Copy;
                let opts = FastOpts {
                    apex: &apex,
                    origin: origin.as_deref(),
                    origin_text: text.as_deref(),
                    czds: st.czds,
                    ns: col.collects_ns(),
                    copy,
                    settle: col.settling(config),
                    adopt_forms: false,
                };
                let res = czds::run(
                    col,
                    config,
                    st,
                    buf,
                    base,
                    pos,
                    eof,
                    &opts,
                    &|_, _| {},
                    None,
                    |_, _| {},
                );
                st.apex_plain = Some(apex);
                let (next, stop) = res?;
                match stop {
                    Stop::NeedMore => return Ok(next),
                    Stop::End => return Ok(buf.len()),
                    Stop::Slow => pos = next,
                }
            }
        }
        match general_entry(col, st, buf, pos, base, eof)? {
            Some(next) if st.include.is_some() => return Ok(next),
            Some(next) => pos = next,
            None => return Ok(pos),
        }
    }
    Ok(pos)
}

/// The origin as the fast path makes relative owners absolute with it
/// (see `FastOpts::origin_text`): lower-case presentation format, unless
/// that has escapes.
pub(crate) fn origin_text(origin: Option<&[Vec<u8>]>) -> Option<Vec<u8>> {
    let text = super::name::present(origin?);
    (!text.contains('\\')).then(|| text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::tokens::{Scan, scan_entry};
    use super::*;

    #[test]
    fn czds_profile_detection() {
        assert!(looks_czds(
            b"com.\t900\tin\tsoa\ta. b. 1 2 3 4 5\nx.com.\t172800\tin\tns\tns1.x.net.\n"
        ));
        assert!(!looks_czds(b"$ORIGIN com.\nx NS ns1\n"));
        assert!(!looks_czds(b"x.com. 172800 in ns ns1.x.net.\n"));
        assert!(!looks_czds(b""));
    }

    #[test]
    fn scanning() {
        let mut toks = Vec::new();
        let buf = b"a ( b ; c\n \"d;(\" )\nnext\n";
        match scan_entry(buf, 0, true, &mut toks, tokens::PAREN_BOUNDS) {
            Scan::Entry { end, lines, error, .. } => {
                assert_eq!((end, lines, error), (19, 2, None));
            }
            _ => panic!(),
        }
        let t: Vec<&[u8]> = toks.iter().map(|t| &buf[t.start..t.end]).collect();
        assert_eq!(t, vec![&b"a"[..], b"b", b"d;("]);
        let open = scan_entry(b"a ( b\n", 0, false, &mut toks, tokens::PAREN_BOUNDS);
        assert!(matches!(open, Scan::Incomplete));
    }
}

//! Domain names in presentation format ([RFC 1035 §5.1]): escapes,
//! relative and absolute names.
//!
//! [RFC 1035 §5.1]: https://www.rfc-editor.org/rfc/rfc1035#section-5.1

/// A parsed name: its labels as octets (escapes decoded, case kept), and
/// for each label the span of its text in the token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub(crate) labels: Vec<Vec<u8>>,
    pub(crate) spans: Vec<(usize, usize)>,
    pub(crate) absolute: bool,
}

/// Parses a name token. `@` is not handled here.
///
/// # Errors
///
/// A reason: bad escape, empty label.
pub(crate) fn parse(token: &[u8]) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    if token == b"." {
        out.absolute = true;
        return Ok(out);
    }
    let mut label = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < token.len() {
        match token[i] {
            b'\\' => {
                let rest = &token[i + 1..];
                if rest.len() >= 3 && rest[..3].iter().all(u8::is_ascii_digit) {
                    let v = rest[..3].iter().fold(0u32, |a, &d| a * 10 + u32::from(d - b'0'));
                    if v > 255 {
                        return Err(format!(
                            "bad escape \\{}",
                            String::from_utf8_lossy(&rest[..3])
                        ));
                    }
                    label.push(v as u8);
                    i += 4;
                } else if let Some(&c) = rest.first() {
                    if c.is_ascii_digit() {
                        return Err("bad escape: \\DDD needs three digits".to_string());
                    }
                    label.push(c);
                    i += 2;
                } else {
                    return Err("escape at end of name".to_string());
                }
            }
            b'.' => {
                if label.is_empty() {
                    return Err("empty label in name".to_string());
                }
                out.labels.push(std::mem::take(&mut label));
                out.spans.push((start, i));
                i += 1;
                start = i;
                if i == token.len() {
                    out.absolute = true;
                }
            }
            c => {
                label.push(c);
                i += 1;
            }
        }
    }
    if !label.is_empty() {
        out.labels.push(label);
        out.spans.push((start, token.len()));
    } else if !out.absolute {
        return Err("empty name".to_string());
    }
    Ok(out)
}

/// The name that is the whole of `wire`, RDATA in wire format (RFC 1035
/// §3.1; uncompressed, as RFC 3597 §4 wants it in the generic form of §5):
/// an NS record written `NS \# 14 03…` or `TYPE2 \# …` has its target so.
///
/// # Errors
///
/// A reason: a compression pointer, a label past the data or data after
/// the name, a name over 255 octets.
pub(crate) fn from_wire_rdata(wire: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let (labels, end) = from_wire(wire, 0)?;
    if end != wire.len() {
        return Err("data after the name in RDATA".into());
    }
    Ok(labels)
}

/// The name in wire format (RFC 1035 §3.1, uncompressed) that starts at
/// `at` in `wire`, and where it ends.
///
/// # Errors
///
/// A reason: a compression pointer or a bad label length, a label past
/// the data, a name not ended by the root or over 255 octets.
pub(crate) fn from_wire(wire: &[u8], at: usize) -> Result<(Vec<Vec<u8>>, usize), String> {
    let mut labels = Vec::new();
    let mut i = at;
    loop {
        if i - at >= crate::idna2008::MAX_NAME_OCTETS {
            return Err(format!(
                "name in RDATA longer than {} octets",
                crate::idna2008::MAX_NAME_OCTETS
            ));
        }
        let Some(&n) = wire.get(i) else { return Err("name not ended by the root".into()) };
        let n = usize::from(n);
        if n == 0 {
            return Ok((labels, i + 1));
        }
        if n > 63 {
            return Err("compressed or bad label length in RDATA".into());
        }
        let label = wire.get(i + 1..i + 1 + n).ok_or("label past the RDATA")?;
        labels.push(label.to_vec());
        i += 1 + n;
    }
}

/// Wire length of a name of these labels (absolute: plus the root).
pub(crate) fn wire_len(labels: &[Vec<u8>]) -> usize {
    labels.iter().map(|l| l.len() + 1).sum::<usize>() + 1
}

/// Presentation format of an absolute name, lower case, with escapes for
/// octets that need them, and a trailing dot.
pub(crate) fn present(labels: &[Vec<u8>]) -> String {
    if labels.is_empty() {
        return ".".to_string();
    }
    let mut s = String::new();
    for l in labels {
        present_label(l, &mut s);
        s.push('.');
    }
    s
}

/// Appends one label in presentation format, lower-cased.
pub(crate) fn present_label(l: &[u8], s: &mut String) {
    for &b in l {
        let b = b.to_ascii_lowercase();
        match b {
            b'.' | b'\\' | b'"' | b'(' | b')' | b';' | b'@' | b'$' => {
                s.push('\\');
                s.push(b as char);
            }
            0x21..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\{b:03}")),
        }
    }
}

/// Lower-cases labels in place (DNS names compare ASCII case-insensitively,
/// [RFC 4343]).
///
/// [RFC 4343]: https://www.rfc-editor.org/rfc/rfc4343
pub(crate) fn lower(labels: &mut [Vec<u8>]) {
    for l in labels {
        l.make_ascii_lowercase();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_spans() {
        let p = parse(b"a\\.b.C\\068.").unwrap();
        assert_eq!(p.labels, vec![b"a.b".to_vec(), b"CD".to_vec()]);
        assert_eq!(p.spans, vec![(0, 4), (5, 10)]);
        assert!(p.absolute);
        assert!(parse(b"a..b").is_err());
        assert!(parse(b"a\\999").is_err());
        assert!(parse(b"a\\").is_err());
        assert_eq!(parse(b".").unwrap().labels.len(), 0);
        assert_eq!(present(&parse(b"A\\032b.x.").unwrap().labels), "a\\032b.x.");
    }

    #[test]
    fn names_in_wire_rdata() {
        let hex = |s: &str| {
            let s: String = s.split(' ').collect();
            (0..s.len() / 2)
                .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
                .collect::<Vec<u8>>()
        };
        let name = |s: &str| from_wire_rdata(&hex(s));
        let ns1 = vec![b"ns1".to_vec(), b"Ex".to_vec()];
        assert_eq!(name("036e7331 02 4578 00"), Ok(ns1));
        assert_eq!(name("00"), Ok(vec![]));
        assert_eq!(name("02 2e41 00").map(|l| present(&l)), Ok("\\.a.".into()));
        for bad in ["", "0000", "c000", "0561", "01 61", "00 6100", "4000"] {
            assert!(name(bad).is_err(), "{bad:?}");
        }
        // Two names and what follows, as in an SOA's RDATA.
        let wire = hex("01 61 00 00 0000 0007");
        assert_eq!(from_wire(&wire, 0), Ok((vec![b"a".to_vec()], 3)));
        assert_eq!(from_wire(&wire, 3), Ok((vec![], 4)));
        // 255 octets at most (RFC 1035 §2.3.4): three labels of 63
        // octets, one of 61 and the root are 255; of 62, 256.
        let name_of = |last: u8| {
            let mut w = Vec::new();
            for n in [63, 63, 63, last] {
                w.push(n);
                w.extend(std::iter::repeat_n(b'a', usize::from(n)));
            }
            w.push(0);
            from_wire_rdata(&w).map(|l| wire_len(&l))
        };
        assert_eq!(name_of(61), Ok(255));
        assert!(name_of(62).is_err());
    }
}

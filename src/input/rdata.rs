//! RDATA in the generic form of [RFC 3597 §5] (`\# 4 c0000201`), which
//! a master file may use for a record of any type, known or not: one
//! decoder, which checks the length, for the careful parser, the CZDS
//! fast path and the SOA serial of a report's meta record.
//!
//! [RFC 3597 §5]: https://www.rfc-editor.org/rfc/rfc3597#section-5

/// The field that starts RDATA in the generic form (RFC 3597 §5).
pub(crate) const GENERIC: &[u8] = b"\\#";

/// The most octets of RDATA: its length is a 16-bit field on the wire
/// (RDLENGTH, RFC 1035 §3.2.1).
const MAX_RDATA_OCTETS: usize = u16::MAX as usize;

/// The octets of RDATA in the generic form, from the fields after its
/// `\#` (RFC 3597 §5): the length in octets, an unsigned decimal number
/// (leading zeros allowed, as dnspython reads it), then exactly that many
/// octets in hex, white space anywhere between the digits; a length of 0
/// has no data.
///
/// # Errors
///
/// A reason: no length or a bad one, a character that is not a hex
/// digit, more or fewer digits than the length says.
pub(crate) fn generic<'a>(mut fields: impl Iterator<Item = &'a [u8]>) -> Result<Vec<u8>, String> {
    let Some(len_field) = fields.next() else {
        return Err("\\# without a length (RFC 3597 §5)".into());
    };
    let len = decimal(len_field).filter(|&n| n <= MAX_RDATA_OCTETS).ok_or_else(|| {
        format!("bad length {:?} after \\# (RFC 3597 §5)", String::from_utf8_lossy(len_field))
    })?;
    let mut wire = Vec::with_capacity(len);
    let mut digits = 0usize;
    for field in fields {
        for &b in field {
            let Some(d) = char::from(b).to_digit(16) else {
                let field = String::from_utf8_lossy(field);
                return Err(format!("RDATA after \\# not in hex: {field:?}"));
            };
            // Kept up to the length only: the count says the rest.
            if digits < 2 * len {
                if digits.is_multiple_of(2) {
                    wire.push((d as u8) << 4);
                } else if let Some(last) = wire.last_mut() {
                    *last |= d as u8;
                }
            }
            digits += 1;
        }
    }
    if digits != 2 * len {
        return Err(format!("\\# {len}: {digits} hex digits, not {} (RFC 3597 §5)", 2 * len));
    }
    Ok(wire)
}

/// The SERIAL of an SOA record's RDATA in wire format (RFC 1035
/// §3.3.13): MNAME and RNAME, names uncompressed (RFC 3597 §4), then
/// SERIAL, REFRESH, RETRY, EXPIRE and MINIMUM, 32 bits each, big-endian;
/// `None` when `wire` is not that, exactly.
pub(crate) fn soa_serial(wire: &[u8]) -> Option<u32> {
    let (_, at) = super::name::from_wire(wire, 0).ok()?;
    let (_, at) = super::name::from_wire(wire, at).ok()?;
    let times: &[u8; 20] = wire.get(at..)?.try_into().ok()?;
    Some(u32::from_be_bytes([times[0], times[1], times[2], times[3]]))
}

/// A decimal number of ASCII digits only (no sign), if it is one and
/// fits a `usize`.
fn decimal(field: &[u8]) -> Option<usize> {
    if field.is_empty() || !field.iter().all(u8::is_ascii_digit) {
        return None;
    }
    field.iter().try_fold(0usize, |n, &d| n.checked_mul(10)?.checked_add(usize::from(d - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(s: &str) -> Result<Vec<u8>, String> {
        generic(s.split(' ').filter(|f| !f.is_empty()).map(str::as_bytes))
    }

    #[test]
    fn generic_rdata_is_exactly_its_length() {
        assert_eq!(decode("4 c0000201"), Ok(vec![0xc0, 0, 2, 1]));
        assert_eq!(decode("4 C0 00 0 201"), Ok(vec![0xc0, 0, 2, 1]));
        assert_eq!(decode("0"), Ok(vec![]));
        assert_eq!(decode("0004 0a000001"), Ok(vec![10, 0, 0, 1]));
        let long = format!("65535 {}", "ab".repeat(65535));
        assert_eq!(decode(&long).map(|w| w.len()), Ok(65535));
        for bad in [
            "",
            "x",
            "-1 00",
            "+1 00",
            "1",
            "1 0",
            "1 000",
            "2 00",
            "1 0g",
            "1 0x",
            "22 0032 0802 00000e10",
            "8 0032 0802 00000e10 00",
            "0 00",
            "65536",
            "99999999999999999999999 00",
        ] {
            assert!(decode(bad).is_err(), "{bad:?}");
        }
        let long = format!("65536 {}", "ab".repeat(65536));
        assert!(decode(&long).is_err());
        assert_eq!(
            decode("22 0032 0802 00000e10"),
            Err("\\# 22: 16 hex digits, not 44 (RFC 3597 §5)".into())
        );
    }

    #[test]
    fn soa_serial_of_wire_rdata() {
        let soa = |s: &str| decode(s).ok().and_then(|w| soa_serial(&w));
        let times = "78a4 7395 00000e10 00000384 00093a80 00015180";
        assert_eq!(soa(&format!("22 00 00 {times}")), Some(2024043413));
        assert_eq!(soa(&format!("28 036e733100 016800 {times}")), Some(2024043413));
        assert_eq!(soa("22 00 00 ffffffff 0000000000000000 0000000000000000"), Some(u32::MAX));
        for bad in [
            format!("21 00 {times}"),
            format!("23 00 00 {times} 00"),
            "21 00 00 00000007 00000000 00000000 00000000 000000".into(),
            format!("24 c000 c000 {times}"),
            format!("23 01 61 00 {times}"),
            "0".into(),
        ] {
            assert_eq!(soa(&bad), None, "{bad:?}");
        }
    }
}

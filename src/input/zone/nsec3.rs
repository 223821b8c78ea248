//! NSEC3 hashed owner names (RFC 5155 §3 and §7.1).
//!
//! A zone signed with NSEC3 holds, one label under the apex, an owner
//! whose label is the base32hex text of a name's SHA-1 hash (32
//! characters, RFC 5155 §3.3), with an NSEC3 record and the RRSIG that
//! covers it. Such an owner is DNSSEC data, not a registered name, so its
//! records are counted apart (`Accounting::nsec3_records`) and no label
//! is judged. A record of any other type at such an owner is read as any
//! owner's record would be: the label is then registered.

use super::tokens::{is_class, is_ttl};

/// Octets of a hashed owner label: 160 bits of SHA-1 in base32hex
/// (RFC 5155 §3.3, RFC 4648 §7).
const HASHED_LABEL_OCTETS: usize = 32;

/// Whether `label` has the shape of an NSEC3 hashed owner label: 32
/// base32hex digits (`0-9`, `a-v`, in either case).
#[inline]
pub(crate) fn is_hashed_label(label: &[u8]) -> bool {
    label.len() == HASHED_LABEL_OCTETS
        && label.iter().all(|&b| b.is_ascii_digit() || matches!(b | 0x20, b'a'..=b'v'))
}

/// Whether a record of type `ty`, with `covered` its first RDATA field,
/// is an NSEC3 record or an RRSIG covering NSEC3 (RFC 4034 §3.1.1).
pub(crate) fn is_nsec3_record(ty: &[u8], covered: Option<&[u8]>) -> bool {
    ty.eq_ignore_ascii_case(b"NSEC3")
        || (ty.eq_ignore_ascii_case(b"RRSIG")
            && covered.is_some_and(|c| c.eq_ignore_ascii_case(b"NSEC3")))
}

/// [`is_nsec3_record`] of the text of a line after its owner (TTL and
/// class in any order, the type, the RDATA), split as the careful parser
/// splits fields (tabs, spaces, CRs).
pub(crate) fn is_nsec3_text(rest: &[u8]) -> bool {
    let mut fields = rest.split(|b| matches!(b, b' ' | b'\t' | b'\r')).filter(|f| !f.is_empty());
    let Some(ty) = fields.find(|f| !(is_ttl(f) || is_class(f))) else { return false };
    is_nsec3_record(ty, fields.next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_labels_and_nsec3_data() {
        assert!(is_hashed_label(b"0p9mhaveqvm6t7vbl5lop2u3t2rp3tom"));
        assert!(is_hashed_label(b"0P9MHAVEQVM6T7VBL5LOP2U3T2RP3TOM"));
        assert!(!is_hashed_label(b"0p9mhaveqvm6t7vbl5lop2u3t2rp3tow"));
        assert!(!is_hashed_label(b"0p9mhaveqvm6t7vbl5lop2u3t2rp3to"));
        assert!(is_nsec3_text(b"\t3600\tIN\tNSEC3\t1 1 0 - 2T7B4G4VSA5SMI47K61MV5BV1A22BOJR NS"));
        assert!(is_nsec3_text(b" 3600 in rrsig nsec3 8 2 3600 20261201000000 ..."));
        assert!(!is_nsec3_text(b"\t3600\tIN\tRRSIG\tDS 8 2 3600"));
        assert!(!is_nsec3_text(b"\tIN\tNS\tnsec3."));
        assert!(!is_nsec3_text(b"\tIN\tRRSIG"));
    }
}

//! NSEC3 hashed owner names (RFC 5155 §3 and §7.1).
//!
//! A zone signed with NSEC3 holds, one label under the apex, an owner
//! whose label is the base32hex text of a name's SHA-1 hash (32
//! characters, RFC 5155 §3.3), with an NSEC3 record and the RRSIG that
//! covers it. Such an owner is DNSSEC data, not a registered name, so its
//! records are counted apart (`Accounting::nsec3_records`) and no label
//! is judged. A record of any other type at such an owner is read as any
//! owner's record would be: the label is then registered.

use super::tokens::{is_class, is_ttl, is_type};
use crate::input::rdata;

/// Octets of a hashed owner label: 160 bits of SHA-1 in base32hex
/// (RFC 5155 §3.3, RFC 4648 §7).
const HASHED_LABEL_OCTETS: usize = 32;

/// The type numbers of NSEC3 (RFC 5155 §11) and RRSIG (RFC 4034 §7).
const NSEC3: u16 = 50;
const RRSIG: u16 = 46;

/// Whether `label` has the shape of an NSEC3 hashed owner label: 32
/// base32hex digits (`0-9`, `a-v`, in either case).
#[inline]
pub(crate) fn is_hashed_label(label: &[u8]) -> bool {
    label.len() == HASHED_LABEL_OCTETS
        && label.iter().all(|&b| b.is_ascii_digit() || matches!(b | 0x20, b'a'..=b'v'))
}

/// Whether a record of type `ty` is an NSEC3 record or an RRSIG covering
/// NSEC3 (RFC 4034 §3.1.1), from the first field of its RDATA, `first`,
/// or, when the RDATA is in the generic form (`\# 26 0032…`, RFC 3597 §5,
/// as a tool that does not know the type writes it), its octets
/// `generic`, checked to be as long as its length says
/// ([`rdata::generic`]): the type covered is their first two (RFC 4034
/// §3.1). Each type may be written by its number (`TYPE50`, `TYPE46`).
pub(crate) fn is_nsec3_record(ty: &[u8], first: Option<&[u8]>, generic: Option<&[u8]>) -> bool {
    if is_type(ty, b"NSEC3", NSEC3) {
        return true;
    }
    if !is_type(ty, b"RRSIG", RRSIG) {
        return false;
    }
    match generic {
        Some(wire) => wire.get(..2) == Some(&NSEC3.to_be_bytes()[..]),
        None => first.is_some_and(|covered| is_type(covered, b"NSEC3", NSEC3)),
    }
}

/// [`is_nsec3_record`] of the text of a line after its owner (TTL and
/// class in any order, the type, the RDATA), split as the careful parser
/// splits fields (tabs, spaces, CRs).
pub(crate) fn is_nsec3_text(rest: &[u8]) -> bool {
    let mut fields = rest.split(|b| matches!(b, b' ' | b'\t' | b'\r')).filter(|f| !f.is_empty());
    let Some(ty) = fields.find(|f| !(is_ttl(f) || is_class(f))) else { return false };
    let first = fields.next();
    if first != Some(rdata::GENERIC) {
        return is_nsec3_record(ty, first, None);
    }
    // Generic data that does not match its length makes the line
    // malformed: no NSEC3 data (the fast path leaves such a line to the
    // careful parser before it asks).
    rdata::generic(fields).is_ok_and(|wire| is_nsec3_record(ty, first, Some(&wire)))
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
        // By number (RFC 3597 §5), and an RRSIG's RDATA in the generic form.
        assert!(is_nsec3_text(b"\t3600\tIN\tTYPE50\t\\# 4 01010000"));
        assert!(is_nsec3_text(b" type050 1 1 0 - 2T7B4G4V NS"));
        assert!(is_nsec3_text(b" IN RRSIG TYPE50 8 2 3600 20261201000000 ..."));
        assert!(is_nsec3_text(b" IN TYPE46 \\# 8 0032 0802 00000e10"));
        assert!(is_nsec3_text(b" IN rrsig \\# 3 00 32 08"));
        assert!(!is_nsec3_text(b" IN TYPE46 \\# 8 002B 0802 00000e10"));
        // Generic data must be as long as its length says (RFC 3597 §5).
        assert!(!is_nsec3_text(b" IN TYPE46 \\# 22 0032 0802 00000e10"));
        assert!(!is_nsec3_text(b" IN TYPE46 \\# 7 0032 0802 00000e10"));
        assert!(!is_nsec3_text(b" IN rrsig \\# 2 00 32 08"));
        assert!(!is_nsec3_text(b" IN TYPE46 \\# 2"));
        assert!(!is_nsec3_text(b" IN TYPE46 \\# 1 00"));
        assert!(!is_nsec3_text(b" IN TYPE46 \\# 22 00x2"));
        assert!(!is_nsec3_text(b" IN TYPE5 1 1 0 -"));
        assert!(!is_nsec3_text(b" IN TYPE65586 1 1 0 -"));
        assert!(!is_nsec3_text(b" IN TYPE 1 1 0 -"));
    }
}

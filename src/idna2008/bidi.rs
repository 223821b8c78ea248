//! The Bidi rule for labels ([RFC 5893 §2]).
//!
//! [RFC 5893 §2]: https://www.rfc-editor.org/rfc/rfc5893#section-2

use icu_properties::CodePointMapData;
use icu_properties::props::BidiClass;

fn class(c: char) -> BidiClass {
    CodePointMapData::<BidiClass>::new().get(c)
}

/// Whether the label has a right-to-left character (Bidi class R, AL or
/// AN), which makes it an "RTL label" ([RFC 5893 §1.4]).
///
/// [RFC 5893 §1.4]: https://www.rfc-editor.org/rfc/rfc5893#section-1.4
pub(crate) fn is_rtl_label(chars: &[char]) -> bool {
    chars.iter().any(|&c| super::derived::info(c).rtl())
}

/// Checks the Bidi rule on an RTL label: conditions 1 to 4 of
/// [RFC 5893 §2]. Returns the number of the first condition that fails.
///
/// Conditions 5 and 6 apply to left-to-right labels only when they are in
/// a domain name that also has an RTL label; they need the whole name and
/// are checked by [`check_ltr_in_bidi_name`].
///
/// [RFC 5893 §2]: https://www.rfc-editor.org/rfc/rfc5893#section-2
pub(crate) fn check_rtl(chars: &[char]) -> Result<(), u8> {
    use BidiClass as B;
    let Some(&first) = chars.first() else { return Ok(()) };
    let f = class(first);
    if !(f == B::LeftToRight || f == B::RightToLeft || f == B::ArabicLetter) {
        return Err(1);
    }
    if f == B::LeftToRight {
        // An RTL label must start with R or AL (rule 1 says the first
        // character decides the direction; an L start makes this an LTR
        // label that nevertheless contains R/AL/AN, which rule 5 forbids).
        return Err(5);
    }
    let mut has_en = false;
    let mut has_an = false;
    for &c in chars {
        let b = class(c);
        let ok = b == B::RightToLeft
            || b == B::ArabicLetter
            || b == B::ArabicNumber
            || b == B::EuropeanNumber
            || b == B::EuropeanSeparator
            || b == B::CommonSeparator
            || b == B::EuropeanTerminator
            || b == B::OtherNeutral
            || b == B::BoundaryNeutral
            || b == B::NonspacingMark;
        if !ok {
            return Err(2);
        }
        has_en |= b == B::EuropeanNumber;
        has_an |= b == B::ArabicNumber;
    }
    let last = chars.iter().rev().map(|&c| class(c)).find(|&b| b != B::NonspacingMark);
    match last {
        Some(b)
            if b == B::RightToLeft
                || b == B::ArabicLetter
                || b == B::EuropeanNumber
                || b == B::ArabicNumber => {}
        _ => return Err(3),
    }
    if has_en && has_an {
        return Err(4);
    }
    Ok(())
}

/// Checks conditions 1, 5 and 6 of [RFC 5893 §2] on a left-to-right label
/// of a domain name that has an RTL label somewhere.
///
/// [RFC 5893 §2]: https://www.rfc-editor.org/rfc/rfc5893#section-2
pub(crate) fn check_ltr_in_bidi_name(chars: &[char]) -> Result<(), u8> {
    use BidiClass as B;
    let Some(&first) = chars.first() else { return Ok(()) };
    if class(first) != B::LeftToRight {
        return Err(1);
    }
    for &c in chars {
        let b = class(c);
        let ok = b == B::LeftToRight
            || b == B::EuropeanNumber
            || b == B::EuropeanSeparator
            || b == B::CommonSeparator
            || b == B::EuropeanTerminator
            || b == B::OtherNeutral
            || b == B::BoundaryNeutral
            || b == B::NonspacingMark;
        if !ok {
            return Err(5);
        }
    }
    let last = chars.iter().rev().map(|&c| class(c)).find(|&b| b != B::NonspacingMark);
    match last {
        Some(b) if b == B::LeftToRight || b == B::EuropeanNumber => Ok(()),
        _ => Err(6),
    }
}

//! The IDNA2008 derived property of a code point ([RFC 5892 §2–3]).
//!
//! The property is computed from Unicode character properties, in the order
//! of the rules of [RFC 5892 §3], rather than read from a frozen table. The
//! Unicode data comes from the `icu_properties`, `icu_normalizer` and
//! `icu_casemap` crates pinned in `Cargo.lock`; see [`UNICODE_VERSION`].
//!
//! [RFC 5892 §2–3]: https://www.rfc-editor.org/rfc/rfc5892#section-2
//! [RFC 5892 §3]: https://www.rfc-editor.org/rfc/rfc5892#section-3

use std::fmt;

use icu_casemap::CaseMapper;
use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::props::{
    ChangesWhenNfkcCasefolded, DefaultIgnorableCodePoint, GeneralCategory, HangulSyllableType,
    JoinControl, NoncharacterCodePoint, WhiteSpace,
};
use icu_properties::{CodePointMapData, CodePointSetData};

/// The Unicode version whose character data the derived property reflects.
///
/// This is the version carried by `icu_properties_data` 2.4 (ICU4X 2.1),
/// pinned in `Cargo.lock`. A test checks a code point assigned in that
/// version so that a dependency update that changes it is noticed.
pub const UNICODE_VERSION: &str = crate::lgr::UNICODE_VERSION;

/// The IDNA2008 derived property value of a code point ([RFC 5892 §2]).
///
/// [RFC 5892 §2]: https://www.rfc-editor.org/rfc/rfc5892#section-2
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerivedProperty {
    /// Protocol valid: allowed anywhere in a U-label.
    Pvalid,
    /// Allowed only where the CONTEXTJ rule of [RFC 5892 Appendix A] holds
    /// (the joiners U+200C and U+200D).
    ///
    /// [RFC 5892 Appendix A]: https://www.rfc-editor.org/rfc/rfc5892#appendix-A
    ContextJ,
    /// Allowed only where the CONTEXTO rule of [RFC 5892 Appendix A] holds.
    ///
    /// [RFC 5892 Appendix A]: https://www.rfc-editor.org/rfc/rfc5892#appendix-A
    ContextO,
    /// Never allowed in a U-label.
    Disallowed,
    /// Not assigned in [`UNICODE_VERSION`]; not allowed.
    Unassigned,
}

impl fmt::Display for DerivedProperty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DerivedProperty::Pvalid => "PVALID",
            DerivedProperty::ContextJ => "CONTEXTJ",
            DerivedProperty::ContextO => "CONTEXTO",
            DerivedProperty::Disallowed => "DISALLOWED",
            DerivedProperty::Unassigned => "UNASSIGNED",
        })
    }
}

/// Computes the IDNA2008 derived property of `c` ([RFC 5892 §3]).
///
/// The rules are applied in the RFC's order: Exceptions (F),
/// BackwardCompatible (G, empty), Unassigned (J), LDH (H), JoinControl (H),
/// Unstable (B), IgnorableProperties (C), IgnorableBlocks (D),
/// OldHangulJamo (I), LetterDigits (A), otherwise DISALLOWED.
///
/// # Example
///
/// ```
/// use lgrscan::idna2008::{derived_property, DerivedProperty};
/// assert_eq!(derived_property('\u{00DF}'), DerivedProperty::Pvalid);
/// assert_eq!(derived_property('A'), DerivedProperty::Disallowed);
/// ```
///
/// [RFC 5892 §3]: https://www.rfc-editor.org/rfc/rfc5892#section-3
pub fn derived_property(c: char) -> DerivedProperty {
    // The value of a code point never changes, and computing it takes
    // several property look-ups: keep each result in a lazily allocated
    // table of one byte per code point (0 = not computed yet).
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU8, Ordering};
    static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| (0..=0x10FFFF).map(|_| AtomicU8::new(0)).collect());
    let slot = &cache[c as usize];
    match slot.load(Ordering::Relaxed) {
        1 => DerivedProperty::Pvalid,
        2 => DerivedProperty::ContextJ,
        3 => DerivedProperty::ContextO,
        4 => DerivedProperty::Disallowed,
        5 => DerivedProperty::Unassigned,
        _ => {
            let p = compute(c);
            slot.store(
                match p {
                    DerivedProperty::Pvalid => 1,
                    DerivedProperty::ContextJ => 2,
                    DerivedProperty::ContextO => 3,
                    DerivedProperty::Disallowed => 4,
                    DerivedProperty::Unassigned => 5,
                },
                Ordering::Relaxed,
            );
            p
        }
    }
}

/// [`derived_property`] without the cache.
fn compute(c: char) -> DerivedProperty {
    let cp = c as u32;
    if cp < 0x80 {
        // ASCII: LDH is PVALID, everything else (including upper case,
        // which is Unstable) is DISALLOWED.
        return if c == '-' || c.is_ascii_digit() || c.is_ascii_lowercase() {
            DerivedProperty::Pvalid
        } else {
            DerivedProperty::Disallowed
        };
    }
    if let Some(p) = exception(cp) {
        return p;
    }
    // BackwardCompatible (G) is empty for every Unicode version so far.
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    let nonchar = CodePointSetData::new::<NoncharacterCodePoint>().contains(c);
    if gc == GeneralCategory::Unassigned && !nonchar {
        return DerivedProperty::Unassigned;
    }
    if CodePointSetData::new::<JoinControl>().contains(c) {
        return DerivedProperty::ContextJ;
    }
    if is_unstable(c) {
        return DerivedProperty::Disallowed;
    }
    if nonchar
        || CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
        || CodePointSetData::new::<WhiteSpace>().contains(c)
    {
        return DerivedProperty::Disallowed;
    }
    // IgnorableBlocks (RFC 5892 §2.4): the three blocks' fixed ranges
    // (Blocks.txt; block ranges never change once allocated).
    let cp = u32::from(c);
    if (0x20D0..=0x20FF).contains(&cp)      // Combining Diacritical Marks for Symbols
        || (0x1D100..=0x1D1FF).contains(&cp) // Musical Symbols
        || (0x1D200..=0x1D24F).contains(&cp)
    // Ancient Greek Musical Notation
    {
        return DerivedProperty::Disallowed;
    }
    let hst = CodePointMapData::<HangulSyllableType>::new().get(c);
    if hst == HangulSyllableType::LeadingJamo
        || hst == HangulSyllableType::VowelJamo
        || hst == HangulSyllableType::TrailingJamo
    {
        return DerivedProperty::Disallowed;
    }
    match gc {
        GeneralCategory::LowercaseLetter
        | GeneralCategory::UppercaseLetter
        | GeneralCategory::OtherLetter
        | GeneralCategory::DecimalNumber
        | GeneralCategory::ModifierLetter
        | GeneralCategory::NonspacingMark
        | GeneralCategory::SpacingMark => DerivedProperty::Pvalid,
        _ => DerivedProperty::Disallowed,
    }
}

/// The Exceptions category (F) of [RFC 5892 §2.6].
///
/// [RFC 5892 §2.6]: https://www.rfc-editor.org/rfc/rfc5892#section-2.6
fn exception(cp: u32) -> Option<DerivedProperty> {
    use DerivedProperty::*;
    Some(match cp {
        0x00DF | 0x03C2 | 0x06FD | 0x06FE | 0x0F0B | 0x3007 => Pvalid,
        0x00B7 | 0x0375 | 0x05F3 | 0x05F4 | 0x30FB => ContextO,
        0x0660..=0x0669 | 0x06F0..=0x06F9 => ContextO,
        0x0640 | 0x07FA | 0x302E | 0x302F | 0x3031..=0x3035 | 0x303B => Disallowed,
        _ => return None,
    })
}

/// The Unstable category (B) of [RFC 5892 §2.2]:
/// `toNFKC(toCaseFold(toNFKC(cp))) != cp`.
///
/// A code point without the Unicode property Changes_When_NFKC_Casefolded
/// is left unchanged by that expression, so the exact computation only runs
/// for the code points that have it.
///
/// [RFC 5892 §2.2]: https://www.rfc-editor.org/rfc/rfc5892#section-2.2
fn is_unstable(c: char) -> bool {
    if !CodePointSetData::new::<ChangesWhenNfkcCasefolded>().contains(c) {
        return false;
    }
    unstable_exact(c)
}

/// The exact Unstable expression, without the property shortcut.
pub(crate) fn unstable_exact(c: char) -> bool {
    let nfkc = ComposingNormalizerBorrowed::new_nfkc();
    let mut buf = [0u8; 4];
    let s: &str = c.encode_utf8(&mut buf);
    let once = nfkc.normalize(s);
    let folded = CaseMapper::new().fold_string(&once);
    let twice = nfkc.normalize(&folded);
    twice != s
}

#[cfg(test)]
mod tests {
    use super::*;
    use DerivedProperty::*;

    #[test]
    fn known_values() {
        let cases = [
            ('\u{00DF}', Pvalid),
            ('\u{03C2}', Pvalid),
            ('\u{0640}', Disallowed),
            ('\u{200C}', ContextJ),
            ('\u{200D}', ContextJ),
            ('\u{00B7}', ContextO),
            ('\u{0660}', ContextO),
            ('\u{0041}', Disallowed),
            ('\u{0378}', Unassigned),
            ('a', Pvalid),
            ('-', Pvalid),
            ('_', Disallowed),
            ('\u{00E9}', Pvalid),
            ('\u{00C9}', Disallowed),
            ('\u{FB01}', Disallowed),  // ligature fi: NFKC changes it
            ('\u{1100}', Disallowed),  // old Hangul Jamo
            ('\u{AC00}', Pvalid),      // Hangul syllable
            ('\u{20D0}', Disallowed),  // combining marks for symbols block
            ('\u{1D165}', Disallowed), // musical symbols block
            ('\u{00AD}', Disallowed),  // soft hyphen: default ignorable
            ('\u{FDD0}', Disallowed),  // noncharacter
            ('\u{0915}', Pvalid),
            ('\u{094D}', Pvalid), // virama
            ('\u{4E00}', Pvalid),
            ('\u{2010}', Disallowed),
            ('\u{10FFFF}', Disallowed), // noncharacter
            ('\u{E000}', Disallowed),   // private use
            ('\u{0627}', Pvalid),
        ];
        for (c, want) in cases {
            assert_eq!(derived_property(c), want, "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn unicode_version_matches_data() {
        // The data is pinned to Unicode 16.0 (ICU 77), the version of the
        // reference results: U+1C89 (new in 16.0) is assigned, U+20C1
        // SAUDI RIYAL SIGN (new in 17.0) is not.
        let gc = CodePointMapData::<GeneralCategory>::new();
        assert_ne!(
            gc.get('\u{1C89}'),
            GeneralCategory::Unassigned,
            "data older than {UNICODE_VERSION}"
        );
        assert_eq!(
            gc.get('\u{20C1}'),
            GeneralCategory::Unassigned,
            "data newer than {UNICODE_VERSION}"
        );
    }

    /// The Changes_When_NFKC_Casefolded shortcut never hides an unstable
    /// code point that the RFC's expression would find.
    #[test]
    fn unstable_shortcut_is_exact() {
        let set = CodePointSetData::new::<ChangesWhenNfkcCasefolded>();
        let gc = CodePointMapData::<GeneralCategory>::new();
        for cp in 0x80u32..=0x10FFFF {
            let Some(c) = char::from_u32(cp) else { continue };
            if gc.get(c) == GeneralCategory::Unassigned || set.contains(c) {
                continue;
            }
            assert!(!unstable_exact(c), "U+{cp:04X} unstable but not CWKCF");
        }
    }
}

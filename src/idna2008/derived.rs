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
/// This is the version carried by `icu_properties_data` 2.0.1 (ICU4X 2.0,
/// ICU 77 data), pinned in `Cargo.toml` and `Cargo.lock`, as the LGR
/// property classes' ([`crate::lgr::UNICODE_VERSION`]). A test checks a
/// code point assigned in that version so that a dependency update that
/// changes it is noticed.
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
    info(c).derived()
}

/// What the label checks need to know about one code point, in a byte:
/// the derived property (bits 0–2, 1–5), whether its Bidi class is R, AL
/// or AN (bit 3), whether its NFC_Quick_Check is Yes (bit 4; [UAX #15
/// §9]) and whether it is a starter (bit 5: canonical combining class 0).
///
/// [UAX #15 §9]: https://www.unicode.org/reports/tr15/#Detecting_Normalization_Forms
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CpInfo(u8);

const RTL: u8 = 1 << 3;
const NFC_YES: u8 = 1 << 4;
const STARTER: u8 = 1 << 5;

impl CpInfo {
    /// The IDNA2008 derived property.
    pub(crate) fn derived(self) -> DerivedProperty {
        match self.0 & 7 {
            1 => DerivedProperty::Pvalid,
            2 => DerivedProperty::ContextJ,
            3 => DerivedProperty::ContextO,
            4 => DerivedProperty::Disallowed,
            _ => DerivedProperty::Unassigned,
        }
    }

    /// Whether the Bidi class is R, AL or AN (an RTL label has one).
    pub(crate) fn rtl(self) -> bool {
        self.0 & RTL != 0
    }

    /// Whether NFC_Quick_Check is Yes: the code point has no canonical
    /// decomposition or is a primary composite, and it is not the second
    /// of a primary composite (it never combines with the one before).
    pub(crate) fn nfc_yes(self) -> bool {
        self.0 & NFC_YES != 0
    }

    /// Whether the canonical combining class is 0.
    pub(crate) fn starter(self) -> bool {
        self.0 & STARTER != 0
    }
}

/// The [`CpInfo`] of a code point.
pub(crate) fn info(c: char) -> CpInfo {
    Facts::new().get(c)
}

/// The table of [`CpInfo`]s, for several look-ups.
///
/// The facts about a code point never change, and computing them takes
/// several property look-ups: each result is kept in a lazily allocated
/// table of one byte per code point (0 = not computed yet).
#[derive(Clone, Copy)]
pub(crate) struct Facts(&'static [std::sync::atomic::AtomicU8]);

impl Facts {
    pub(crate) fn new() -> Facts {
        use std::sync::OnceLock;
        use std::sync::atomic::AtomicU8;
        static CACHE: OnceLock<Box<[AtomicU8]>> = OnceLock::new();
        Facts(CACHE.get_or_init(|| (0..=0x10FFFF).map(|_| AtomicU8::new(0)).collect()))
    }

    /// The [`CpInfo`] of `c`.
    #[inline]
    pub(crate) fn get(self, c: char) -> CpInfo {
        use std::sync::atomic::Ordering;
        let slot = &self.0[c as usize];
        match slot.load(Ordering::Relaxed) {
            0 => {
                let i = compute_info(c);
                slot.store(i.0, Ordering::Relaxed);
                i
            }
            v => CpInfo(v),
        }
    }
}

/// [`info`] without the cache (once per code point: out of line, so that
/// the look-up inlines).
#[cold]
#[inline(never)]
fn compute_info(c: char) -> CpInfo {
    use icu_normalizer::properties::{
        CanonicalCompositionBorrowed, CanonicalDecompositionBorrowed, Decomposed,
    };
    use icu_properties::props::{BidiClass, CanonicalCombiningClass};
    let mut v = match compute(c) {
        DerivedProperty::Pvalid => 1,
        DerivedProperty::ContextJ => 2,
        DerivedProperty::ContextO => 3,
        DerivedProperty::Disallowed => 4,
        DerivedProperty::Unassigned => 5,
    };
    let b = CodePointMapData::<BidiClass>::new().get(c);
    if b == BidiClass::RightToLeft || b == BidiClass::ArabicLetter || b == BidiClass::ArabicNumber {
        v |= RTL;
    }
    // Not Full_Composition_Exclusion (NFC_Quick_Check No) and not
    // backward-combining (Maybe).
    let composes_to_itself = match CanonicalDecompositionBorrowed::new().decompose(c) {
        Decomposed::Default => true,
        Decomposed::Expansion(a, b) => CanonicalCompositionBorrowed::new().compose(a, b) == Some(c),
        Decomposed::Singleton(_) => false,
    };
    if composes_to_itself && !backward_combining(c) {
        v |= NFC_YES;
    }
    if CodePointMapData::<CanonicalCombiningClass>::new().get(c)
        == CanonicalCombiningClass::NotReordered
    {
        v |= STARTER;
    }
    CpInfo(v)
}

/// The code points that are the second of a primary composite (they can
/// combine with the code point before them in NFC: NFC_Quick_Check Maybe),
/// as sorted ranges. Computing them from the normalizer's data (as the
/// tests do, to check this table) took about 5 ms at the first IDN label
/// of every run.
static BACKWARD_COMBINING: [(u32, u32); 49] = [
    (0x0300, 0x0304),
    (0x0306, 0x030C),
    (0x030F, 0x030F),
    (0x0311, 0x0311),
    (0x0313, 0x0314),
    (0x031B, 0x031B),
    (0x0323, 0x0328),
    (0x032D, 0x032E),
    (0x0330, 0x0331),
    (0x0338, 0x0338),
    (0x0342, 0x0342),
    (0x0345, 0x0345),
    (0x0653, 0x0655),
    (0x093C, 0x093C),
    (0x09BE, 0x09BE),
    (0x09D7, 0x09D7),
    (0x0B3E, 0x0B3E),
    (0x0B56, 0x0B57),
    (0x0BBE, 0x0BBE),
    (0x0BD7, 0x0BD7),
    (0x0C56, 0x0C56),
    (0x0CC2, 0x0CC2),
    (0x0CD5, 0x0CD6),
    (0x0D3E, 0x0D3E),
    (0x0D57, 0x0D57),
    (0x0DCA, 0x0DCA),
    (0x0DCF, 0x0DCF),
    (0x0DDF, 0x0DDF),
    (0x102E, 0x102E),
    (0x1161, 0x1175),
    (0x11A8, 0x11C2),
    (0x1B35, 0x1B35),
    (0x3099, 0x309A),
    (0x110BA, 0x110BA),
    (0x11127, 0x11127),
    (0x1133E, 0x1133E),
    (0x11357, 0x11357),
    (0x113B8, 0x113B8),
    (0x113BB, 0x113BB),
    (0x113C2, 0x113C2),
    (0x113C9, 0x113C9),
    (0x114B0, 0x114B0),
    (0x114BA, 0x114BA),
    (0x114BD, 0x114BD),
    (0x115AF, 0x115AF),
    (0x11930, 0x11930),
    (0x1611E, 0x16120),
    (0x16129, 0x16129),
    (0x16D67, 0x16D67),
];

/// Whether `c` is in [`BACKWARD_COMBINING`].
fn backward_combining(c: char) -> bool {
    let c = c as u32;
    let i = BACKWARD_COMBINING.partition_point(|&(_, hi)| hi < c);
    BACKWARD_COMBINING.get(i).is_some_and(|&(lo, _)| lo <= c)
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

    /// The highest code point with a canonical decomposition is below this
    /// (U+2FA1D).
    const DECOMPOSITIONS_END: u32 = 0x3_0000;

    /// The seconds of the primary composites, from the normalizer's data: a
    /// primary composite has a two-code-point canonical decomposition and is
    /// not excluded from composition, so composing its decomposition gives
    /// it back.
    fn backward_combining_from_data() -> Vec<char> {
        use icu_normalizer::properties::{
            CanonicalCompositionBorrowed, CanonicalDecompositionBorrowed, Decomposed,
        };
        let decomp = CanonicalDecompositionBorrowed::new();
        let comp = CanonicalCompositionBorrowed::new();
        let mut set: Vec<char> = (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter_map(|x| match decomp.decompose(x) {
                Decomposed::Expansion(a, b) if comp.compose(a, b) == Some(x) => Some(b),
                _ => None,
            })
            .collect();
        set.sort_unstable();
        set.dedup();
        set
    }

    /// No canonical decomposition at or above DECOMPOSITIONS_END, and
    /// [`BACKWARD_COMBINING`] is the set the normalizer's data gives.
    #[test]
    fn backward_combining_set_is_complete() {
        use icu_normalizer::properties::{CanonicalDecompositionBorrowed, Decomposed};
        let decomp = CanonicalDecompositionBorrowed::new();
        for cp in DECOMPOSITIONS_END..=0x10FFFF {
            let Some(c) = char::from_u32(cp) else { continue };
            assert_eq!(decomp.decompose(c), Decomposed::Default, "U+{cp:04X}");
        }
        let table: Vec<char> = BACKWARD_COMBINING
            .iter()
            .flat_map(|&(lo, hi)| (lo..=hi).filter_map(char::from_u32))
            .collect();
        assert!(BACKWARD_COMBINING.windows(2).all(|w| w[0].1 + 1 < w[1].0), "sorted, apart");
        assert_eq!(table, backward_combining_from_data());
        for cp in 0..=0x10FFFF {
            let Some(c) = char::from_u32(cp) else { continue };
            assert_eq!(backward_combining(c), table.binary_search(&c).is_ok(), "U+{cp:04X}");
        }
        // Examples: combining acute, Devanagari nukta, Hangul V and T jamo.
        for c in ['\u{0301}', '\u{093C}', '\u{1161}', '\u{11A8}'] {
            assert!(!info(c).nfc_yes(), "{c:?}");
        }
        assert!(info('a').nfc_yes() && info('\u{0915}').nfc_yes() && info('é').nfc_yes());
        // Excluded from composition; a singleton (Kelvin sign).
        assert!(!info('\u{0958}').nfc_yes() && !info('\u{212A}').nfc_yes());
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

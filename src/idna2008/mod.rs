//! IDNA2008: A-label ⇄ U-label conversion and label validity.
//!
//! This module owns everything that knows about `xn--`: Punycode
//! ([RFC 3492]; a decoder and an encoder that agree with
//! [`idna::punycode`] and are faster on whole labels), the derived property of code
//! points ([RFC 5892]), the contextual rules ([RFC 5892 Appendix A]), the
//! Bidi rule ([RFC 5893]) and the label rules of the protocol
//! ([RFC 5891 §4–5]). It does not apply UTS #46 mappings: IDNA2008 labels
//! are checked as they are, and only ASCII upper case is folded, because
//! DNS matching is ASCII case-insensitive.
//!
//! A problem with a label is a [`Finding`], a value, never an error: the
//! caller keeps the label and reports the finding.
//!
//! # Example
//!
//! ```
//! use lgrscan::idna2008::to_labels;
//!
//! let forms = to_labels("XN--BCHER-KVA");
//! assert_eq!(forms.alabel, "xn--bcher-kva");
//! assert_eq!(forms.ulabel, "bücher");
//! assert!(forms.finding.is_none());
//!
//! let forms = to_labels("xn--abc-");
//! assert_eq!(forms.finding.unwrap().to_string(), "fake A-label: decodes to ASCII");
//! ```
//!
//! [RFC 3492]: https://www.rfc-editor.org/rfc/rfc3492
//! [RFC 5892]: https://www.rfc-editor.org/rfc/rfc5892
//! [RFC 5892 Appendix A]: https://www.rfc-editor.org/rfc/rfc5892#appendix-A
//! [RFC 5893]: https://www.rfc-editor.org/rfc/rfc5893
//! [RFC 5891 §4–5]: https://www.rfc-editor.org/rfc/rfc5891#section-4

mod bidi;
mod context;
mod derived;
mod punycode;

use std::fmt;

use icu_normalizer::ComposingNormalizerBorrowed;
use icu_properties::CodePointMapData;
use icu_properties::props::{GeneralCategory, GeneralCategoryGroup};

pub use derived::{DerivedProperty, UNICODE_VERSION, derived_property};

/// The ACE prefix of an A-label ([RFC 5890 §2.3.2.1]).
///
/// [RFC 5890 §2.3.2.1]: https://www.rfc-editor.org/rfc/rfc5890#section-2.3.2.1
pub const ACE_PREFIX: &str = "xn--";

/// The longest a label may be, in octets ([RFC 1035 §2.3.4]; for an IDN,
/// as an A-label, [RFC 5890 §2.3.2.1]).
///
/// [RFC 1035 §2.3.4]: https://www.rfc-editor.org/rfc/rfc1035#section-2.3.4
/// [RFC 5890 §2.3.2.1]: https://www.rfc-editor.org/rfc/rfc5890#section-2.3.2.1
pub const MAX_LABEL_OCTETS: usize = 63;

/// The longest a domain name may be, in octets of its wire form
/// ([RFC 1035 §2.3.4]).
///
/// [RFC 1035 §2.3.4]: https://www.rfc-editor.org/rfc/rfc1035#section-2.3.4
pub const MAX_NAME_OCTETS: usize = 255;

//------------ Finding ---------------------------------------------------

/// Why a label is not a valid IDNA2008 label (or not a valid LDH label).
///
/// `Display` gives the precise reason, e.g. `punycode does not decode`,
/// `not NFC`, `U+200D CONTEXTJ fails`, `fake A-label: decodes to ASCII`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Finding {
    /// The label is empty ([RFC 1035 §2.3.1]).
    ///
    /// [RFC 1035 §2.3.1]: https://www.rfc-editor.org/rfc/rfc1035#section-2.3.1
    Empty,
    /// The label is longer than [`MAX_LABEL_OCTETS`] as an A-label
    /// ([RFC 5890 §2.3.2.1]).
    ///
    /// [RFC 5890 §2.3.2.1]: https://www.rfc-editor.org/rfc/rfc5890#section-2.3.2.1
    TooLong {
        /// Length of the A-label (or of the label as given) in octets.
        octets: usize,
    },
    /// The bytes of the label are not UTF-8; `offset` is the offset in the
    /// label of the first byte that is not.
    NotUtf8 {
        /// Byte offset in the label.
        offset: usize,
    },
    /// An ASCII byte that is not a letter, digit or hyphen ([RFC 5890
    /// §2.3.1], LDH), at `offset` in the label. An escaped dot inside a
    /// label (`\.`) is reported with this reason too.
    NonLdh {
        /// The byte.
        byte: u8,
        /// Byte offset in the label.
        offset: usize,
    },
    /// The label starts with a hyphen ([RFC 5891 §4.2.3.1]).
    ///
    /// [RFC 5891 §4.2.3.1]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2.3.1
    LeadingHyphen,
    /// The label ends with a hyphen ([RFC 5891 §4.2.3.1]).
    ///
    /// [RFC 5891 §4.2.3.1]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2.3.1
    TrailingHyphen,
    /// Hyphens in the third and fourth positions: a U-label breaking
    /// [RFC 5891 §4.2.3.1], or an ASCII label that is a reserved LDH label
    /// other than an `xn--` label ([RFC 5890 §2.3.1]).
    ///
    /// [RFC 5891 §4.2.3.1]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2.3.1
    /// [RFC 5890 §2.3.1]: https://www.rfc-editor.org/rfc/rfc5890#section-2.3.1
    HyphenPositions34,
    /// The `xn--` label's Punycode part does not decode ([RFC 3492 §6.2]).
    ///
    /// [RFC 3492 §6.2]: https://www.rfc-editor.org/rfc/rfc3492#section-6.2
    PunycodeDecode,
    /// The `xn--` label decodes to an all-ASCII string: not an A-label
    /// ([RFC 5890 §2.3.2.1], "fake A-label").
    ///
    /// [RFC 5890 §2.3.2.1]: https://www.rfc-editor.org/rfc/rfc5890#section-2.3.2.1
    FakeALabel,
    /// The decoded U-label does not encode back to the same A-label
    /// ([RFC 5891 §5.3]). Kept for callers that match on it: once its
    /// letters are folded to lower case, an A-label that decodes always
    /// encodes back to itself (Punycode decoding is injective; see
    /// `ascii_forms`), so this crate does not report it.
    ///
    /// [RFC 5891 §5.3]: https://www.rfc-editor.org/rfc/rfc5891#section-5.3
    RoundTrip,
    /// The U-label is not in Normalization Form C ([RFC 5891 §5.3]).
    ///
    /// [RFC 5891 §5.3]: https://www.rfc-editor.org/rfc/rfc5891#section-5.3
    NotNfc,
    /// The U-label starts with a combining mark ([RFC 5891 §5.4]).
    ///
    /// [RFC 5891 §5.4]: https://www.rfc-editor.org/rfc/rfc5891#section-5.4
    LeadingCombiningMark {
        /// The mark.
        cp: char,
    },
    /// A DISALLOWED code point ([RFC 5892 §2]).
    ///
    /// [RFC 5892 §2]: https://www.rfc-editor.org/rfc/rfc5892#section-2
    Disallowed {
        /// The code point.
        cp: char,
    },
    /// An UNASSIGNED code point ([RFC 5892 §2]).
    ///
    /// [RFC 5892 §2]: https://www.rfc-editor.org/rfc/rfc5892#section-2
    Unassigned {
        /// The code point.
        cp: char,
    },
    /// A CONTEXTJ code point whose rule fails ([RFC 5892 Appendix A]).
    ///
    /// [RFC 5892 Appendix A]: https://www.rfc-editor.org/rfc/rfc5892#appendix-A
    ContextJ {
        /// The code point.
        cp: char,
    },
    /// A CONTEXTO code point whose rule fails ([RFC 5892 Appendix A]).
    ///
    /// [RFC 5892 Appendix A]: https://www.rfc-editor.org/rfc/rfc5892#appendix-A
    ContextO {
        /// The code point.
        cp: char,
    },
    /// The Bidi rule fails ([RFC 5893 §2]); `rule` is the number of the
    /// first failing condition (1–6).
    ///
    /// [RFC 5893 §2]: https://www.rfc-editor.org/rfc/rfc5893#section-2
    Bidi {
        /// Condition number in RFC 5893 §2.
        rule: u8,
    },
    /// A zone owner written as a U-label (raw UTF-8 octets): the DNS
    /// holds the A-label, and a registry inserts that into the zone
    /// ([RFC 5891 §4.5]), so IDNA-aware software never looks this name
    /// up. Set by the zone reader, not by the conversion of a label alone.
    ///
    /// [RFC 5891 §4.5]: https://www.rfc-editor.org/rfc/rfc5891#section-4.5
    ULabelInZone,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Finding::Empty => f.write_str("empty label"),
            Finding::TooLong { octets } => {
                write!(f, "label too long: {octets} octets (max {MAX_LABEL_OCTETS})")
            }
            Finding::NotUtf8 { offset } => write!(f, "not UTF-8 at byte offset {offset}"),
            Finding::NonLdh { byte: b'.', offset } => {
                write!(f, "escaped dot inside label at byte offset {offset}")
            }
            Finding::NonLdh { byte, offset } => {
                if byte.is_ascii_graphic() {
                    write!(f, "non-LDH ASCII '{}' at byte offset {offset}", byte as char)
                } else {
                    write!(f, "non-LDH ASCII \\{byte:03} at byte offset {offset}")
                }
            }
            Finding::LeadingHyphen => f.write_str("hyphen at start"),
            Finding::TrailingHyphen => f.write_str("hyphen at end"),
            Finding::HyphenPositions34 => f.write_str("hyphens in positions 3 and 4"),
            Finding::PunycodeDecode => f.write_str("punycode does not decode"),
            Finding::FakeALabel => f.write_str("fake A-label: decodes to ASCII"),
            Finding::RoundTrip => f.write_str("A-label does not round-trip"),
            Finding::NotNfc => f.write_str("not NFC"),
            Finding::LeadingCombiningMark { cp } => {
                write!(f, "U+{:04X} leading combining mark", cp as u32)
            }
            Finding::Disallowed { cp } => write!(f, "U+{:04X} DISALLOWED", cp as u32),
            Finding::Unassigned { cp } => write!(f, "U+{:04X} UNASSIGNED", cp as u32),
            Finding::ContextJ { cp } => write!(f, "U+{:04X} CONTEXTJ fails", cp as u32),
            Finding::ContextO { cp } => write!(f, "U+{:04X} CONTEXTO fails", cp as u32),
            Finding::Bidi { rule } => write!(f, "Bidi rule {rule} fails (RFC 5893)"),
            Finding::ULabelInZone => f.write_str(ULABEL_IN_ZONE),
        }
    }
}

/// The text of [`Finding::ULabelInZone`].
const ULABEL_IN_ZONE: &str = "U-label in the zone: the DNS holds its A-label (RFC 5891 §4.5)";

//------------ LabelForms ------------------------------------------------

/// Both forms of a label and its finding, if any.
///
/// When `finding` is `Some`, the forms are a best effort: the lower-cased
/// input (lossily decoded when it is not UTF-8), the decoded Punycode when
/// it decodes, or the encoded U-label when it encodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelForms {
    /// The A-label (or LDH label): ASCII, lower case.
    pub alabel: String,
    /// The U-label (equal to `alabel` for an LDH label).
    pub ulabel: String,
    /// Why the label is not valid, if it is not.
    pub finding: Option<Finding>,
}

/// Produces both forms of one input label, a U-label or an A-label in any
/// ASCII case, and its finding ([RFC 5891 §5]).
///
/// This is the function for label lines (`annotate`, label lists).
///
/// # Example
///
/// ```
/// use lgrscan::idna2008::to_labels;
/// let forms = to_labels("Bücher");
/// assert_eq!(forms.alabel, "xn--bcher-kva");
/// assert_eq!(forms.ulabel, "bücher");
/// ```
///
/// [RFC 5891 §5]: https://www.rfc-editor.org/rfc/rfc5891#section-5
pub fn to_labels(text: &str) -> LabelForms {
    to_labels_bytes(text.as_bytes())
}

/// Like [`to_labels`], for the octets of a label that need not be UTF-8
/// (a label read from a zone file, after its escapes are decoded).
pub fn to_labels_bytes(octets: &[u8]) -> LabelForms {
    match forms_bytes(octets) {
        Forms::Ldh => {
            let s = String::from_utf8_lossy(octets).into_owned();
            LabelForms { alabel: s.clone(), ulabel: s, finding: None }
        }
        Forms::Owned { alabel, ulabel, finding } => {
            let ulabel = ulabel.unwrap_or_else(|| alabel.clone());
            LabelForms { alabel, ulabel, finding }
        }
    }
}

/// The forms of a label, borrowing when the label is already a
/// lower-case LDH label (the common case in a zone).
pub(crate) enum Forms {
    /// The input is lower-case LDH: A-label = U-label = input; valid.
    Ldh,
    /// Computed forms; `ulabel` is `None` when it equals `alabel`.
    Owned { alabel: String, ulabel: Option<String>, finding: Option<Finding> },
}

/// The byte classes of ASCII for label checks: 0 = lower-case LDH letter or
/// digit, 1 = hyphen, 2 = upper-case letter, 3 = other ASCII, 4 = non-ASCII.
static CLASS: [u8; 256] = {
    let mut t = [3u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = if b.is_ascii_lowercase() || b.is_ascii_digit() {
            0
        } else if b == b'-' {
            1
        } else if b.is_ascii_uppercase() {
            2
        } else if b >= 0x80 {
            4
        } else {
            3
        };
        i += 1;
    }
    t
};

/// Whether `octets` is a lower-case LDH label that needs no further work:
/// letters, digits and hyphens, not empty, at most 63 octets, no hyphen at
/// either end nor in positions 3 and 4 (so not `xn--`). The fast test used
/// by zone extraction.
#[inline]
pub(crate) fn is_plain_ldh(octets: &[u8]) -> bool {
    let n = octets.len();
    if n == 0 || n > MAX_LABEL_OCTETS {
        return false;
    }
    let mut acc = 0u8;
    for &b in octets {
        acc |= CLASS[b as usize] & 0b110;
    }
    acc == 0 && hyphens_allowed(octets)
}

/// The hyphen rules of RFC 5891 §4.2.3.1 for a label of LDH octets (not
/// empty): no hyphen at either end, nor in both positions 3 and 4.
#[inline(always)]
pub(crate) fn hyphens_allowed(octets: &[u8]) -> bool {
    let n = octets.len();
    octets[0] != b'-' && octets[n - 1] != b'-' && !(n >= 4 && octets[2..4] == *b"--")
}

/// Where [`forms_into`] wrote the forms of a label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FormsAt {
    /// The input is lower-case LDH: A-label = U-label = input; valid.
    /// Nothing was written.
    Ldh,
    /// The A-label is the `alen` octets written first; the U-label follows
    /// (`ulen` octets), or is the A-label when `ulen` is `None`.
    Owned { alen: usize, ulen: Option<usize>, finding: Option<Finding> },
}

/// Computes the forms of a label given as octets.
pub(crate) fn forms_bytes(octets: &[u8]) -> Forms {
    let mut out = String::new();
    match forms_into(octets, &mut out, &mut Vec::new()) {
        FormsAt::Ldh => Forms::Ldh,
        FormsAt::Owned { alen, ulen, finding } => {
            let ulabel = ulen.map(|_| out[alen..].to_string());
            out.truncate(alen);
            Forms::Owned { alabel: out, ulabel, finding }
        }
    }
}

/// `octets` as text when they are ASCII.
#[inline]
pub(crate) fn ascii_str(octets: &[u8]) -> Option<&str> {
    // SAFETY: ASCII is UTF-8.
    octets.is_ascii().then(|| unsafe { std::str::from_utf8_unchecked(octets) })
}

/// Computes the forms of a label given as octets, appending them to `out`
/// (see [`FormsAt`]) without allocating when the buffers are large
/// enough. `chars` is scratch space.
pub(crate) fn forms_into(octets: &[u8], out: &mut String, chars: &mut Vec<char>) -> FormsAt {
    if is_plain_ldh(octets) {
        return FormsAt::Ldh;
    }
    if octets.is_empty() {
        return FormsAt::Owned { alen: 0, ulen: None, finding: Some(Finding::Empty) };
    }
    // Labels of zones are ASCII: that check is a few word loads, where
    // UTF-8 validation goes byte by byte on short text.
    if let Some(text) = ascii_str(octets) {
        return ascii_forms(text, out, chars);
    }
    let text = match std::str::from_utf8(octets) {
        Ok(t) => t,
        Err(e) => {
            let start = out.len();
            out.push_str(&String::from_utf8_lossy(octets));
            out[start..].make_ascii_lowercase();
            return FormsAt::Owned {
                alen: out.len() - start,
                ulen: None,
                finding: Some(Finding::NotUtf8 { offset: e.valid_up_to() }),
            };
        }
    };
    unicode_forms(text, out, chars)
}

/// An ASCII label: an LDH label, an `xn--` label, or a non-LDH label.
fn ascii_forms(text: &str, out: &mut String, chars: &mut Vec<char>) -> FormsAt {
    let start = out.len();
    out.push_str(text);
    out[start..].make_ascii_lowercase();
    let alen = text.len();
    let owned = |finding| FormsAt::Owned { alen, ulen: None, finding };
    let lower = &out[start..];
    if let Some((offset, &byte)) =
        lower.as_bytes().iter().enumerate().find(|(_, b)| CLASS[**b as usize] > 1)
    {
        return owned(Some(Finding::NonLdh { byte, offset }));
    }
    if lower.len() > MAX_LABEL_OCTETS {
        return owned(Some(Finding::TooLong { octets: lower.len() }));
    }
    let Some(puny) = lower.strip_prefix(ACE_PREFIX) else {
        if lower.starts_with('-') {
            return owned(Some(Finding::LeadingHyphen));
        }
        if lower.ends_with('-') {
            return owned(Some(Finding::TrailingHyphen));
        }
        if lower.len() >= 4 && &lower.as_bytes()[2..4] == b"--" {
            return owned(Some(Finding::HyphenPositions34));
        }
        return owned(None);
    };
    if punycode::decode_into(puny.as_bytes(), chars).is_none() {
        return owned(Some(Finding::PunycodeDecode));
    }
    out.extend(chars.iter());
    let ulen = out.len() - start - alen;
    let with = |finding| FormsAt::Owned { alen, ulen: Some(ulen), finding };
    if chars.iter().all(char::is_ascii) {
        return with(Some(Finding::FakeALabel));
    }
    // Round trip (RFC 5891 §5.3): the decoded U-label must encode to the
    // same Punycode. It always does here, so the encoder is not run: the
    // input is lower case; its basic part is every ASCII code point of the
    // output in order, as the encoder writes it; the decoder inserts code
    // points in the encoder's order (n never decreases, and for one n the
    // insertion point only moves right); each delta is then the encoder's,
    // and its digits are the only representation of that value (RFC 3492
    // §3.3). The tests of `punycode` check this on every string of up to
    // four digits and hyphens and on random longer ones.
    debug_assert!({
        let mut again = String::new();
        punycode::encode_into(chars, &mut again).is_some()
            && again == out[start + ACE_PREFIX.len()..start + alen]
    });
    with(check_chars(&out[start + alen..], chars).err())
}

/// A label given as a U-label in UTF-8: fold ASCII case, encode, check.
fn unicode_forms(text: &str, out: &mut String, chars: &mut Vec<char>) -> FormsAt {
    let start = out.len();
    // At most one code point per octet: fill, then cut (cheaper than
    // pushing through the iterator).
    chars.clear();
    chars.resize(text.len(), '\0');
    let mut n = 0;
    for (slot, c) in chars.iter_mut().zip(text.chars()) {
        *slot = c.to_ascii_lowercase();
        n += 1;
    }
    chars.truncate(n);
    out.push_str(ACE_PREFIX);
    if punycode::encode_into(chars, out).is_none() {
        // Too long to encode: the A-label is the (folded) U-label.
        out.truncate(start);
        out.push_str(text);
        out[start..].make_ascii_lowercase();
        return FormsAt::Owned {
            alen: text.len(),
            ulen: None,
            finding: Some(Finding::TooLong { octets: text.len() }),
        };
    }
    let alen = out.len() - start;
    out.push_str(text);
    out[start + alen..].make_ascii_lowercase();
    let finding = if alen > MAX_LABEL_OCTETS {
        Some(Finding::TooLong { octets: alen })
    } else {
        check_chars(&out[start + alen..], chars).err()
    };
    FormsAt::Owned { alen, ulen: Some(text.len()), finding }
}

/// Converts a U-label to its A-label and checks it ([RFC 5891 §4]).
///
/// # Errors
///
/// The first [`Finding`] of the label, as [`to_labels`] would give it.
pub fn to_alabel(ulabel: &str) -> Result<String, Finding> {
    let f = to_labels(ulabel);
    match f.finding {
        None => Ok(f.alabel),
        Some(e) => Err(e),
    }
}

/// The A-label of a label of a zone suffix written as a U-label in any
/// case (`РФ`, `рф` → `xn--p1ai`), or `None` when it is none.
///
/// IDNA2008 maps no case, so [`to_alabel`] refuses `РФ`; but a suffix is
/// only compared with the apex, never judged, and names compare without
/// case, so it is lower-cased first. Character by character, as UTS #46
/// maps it: `Σ` is `σ` wherever it stands (`str::to_lowercase` would make
/// a final one `ς`, another label). Never for a registered label, which
/// is judged as written.
pub(crate) fn suffix_alabel(label: &str) -> Option<String> {
    let lower: String = label.chars().flat_map(char::to_lowercase).collect();
    to_alabel(&lower).ok()
}

/// Converts an A-label (or LDH label) to its U-label and checks it
/// ([RFC 5891 §5]).
///
/// # Errors
///
/// The first [`Finding`] of the label, as [`to_labels`] would give it.
pub fn to_ulabel(alabel: &str) -> Result<String, Finding> {
    let f = to_labels(alabel);
    match f.finding {
        None => Ok(f.ulabel),
        Some(e) => Err(e),
    }
}

/// Checks a U-label against the IDNA2008 protocol rules, in the order of
/// [RFC 5891 §5.4] (registration) and [RFC 5891 §4.2]: NFC, hyphens
/// ([§4.2.3.1]), leading combining mark ([§4.2.3.2]), code points
/// ([§4.2.2], with the contextual rules, [§4.2.3.3]) and the Bidi rule
/// ([§4.2.3.4], RFC 5893) when the label has a right-to-left character.
///
/// It does not fold case: an upper-case letter is DISALLOWED.
///
/// # Errors
///
/// The first failing rule, as a [`Finding`].
///
/// [RFC 5891 §5.4]: https://www.rfc-editor.org/rfc/rfc5891#section-5.4
/// [RFC 5891 §4.2]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2
/// [§4.2.3.1]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2.3.1
/// [§4.2.3.2]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2.3.2
/// [§4.2.2]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2.2
/// [§4.2.3.3]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2.3.3
/// [§4.2.3.4]: https://www.rfc-editor.org/rfc/rfc5891#section-4.2.3.4
pub fn check_ulabel(ulabel: &str) -> Result<(), Finding> {
    let chars: Vec<char> = ulabel.chars().collect();
    check_chars(ulabel, &chars)
}

/// [`check_ulabel`] given the code points of the U-label too.
fn check_chars(ulabel: &str, chars: &[char]) -> Result<(), Finding> {
    if ulabel.is_empty() {
        return Err(Finding::Empty);
    }
    // One look-up of each code point's facts; the rules below are then
    // applied in their order.
    let facts = derived::Facts::new();
    let mut nfc_quick = true;
    let mut all_pvalid = true;
    let mut rtl = false;
    let mut prev_mark: Option<char> = None;
    for &c in chars {
        let i = facts.get(c);
        nfc_quick &= i.nfc_yes() && (i.starter() || in_canonical_order(prev_mark, c));
        prev_mark = (!i.starter()).then_some(c);
        all_pvalid &= i.derived() == DerivedProperty::Pvalid;
        rtl |= i.rtl();
    }
    if !nfc_quick && !ComposingNormalizerBorrowed::new_nfc().is_normalized(ulabel) {
        return Err(Finding::NotNfc);
    }
    if chars.len() >= 4 && chars[2] == '-' && chars[3] == '-' {
        return Err(Finding::HyphenPositions34);
    }
    if chars[0] == '-' {
        return Err(Finding::LeadingHyphen);
    }
    if chars[chars.len() - 1] == '-' {
        return Err(Finding::TrailingHyphen);
    }
    let gc = CodePointMapData::<GeneralCategory>::new().get(chars[0]);
    if GeneralCategoryGroup::Mark.contains(gc) {
        return Err(Finding::LeadingCombiningMark { cp: chars[0] });
    }
    for (i, &cp) in chars.iter().enumerate().filter(|_| !all_pvalid) {
        match facts.get(cp).derived() {
            DerivedProperty::Pvalid => {}
            DerivedProperty::Disallowed => return Err(Finding::Disallowed { cp }),
            DerivedProperty::Unassigned => return Err(Finding::Unassigned { cp }),
            DerivedProperty::ContextJ => {
                if !context::rule_holds(chars, i) {
                    return Err(Finding::ContextJ { cp });
                }
            }
            DerivedProperty::ContextO => {
                if !context::rule_holds(chars, i) {
                    return Err(Finding::ContextO { cp });
                }
            }
        }
    }
    if rtl {
        bidi::check_rtl(chars).map_err(|rule| Finding::Bidi { rule })?;
    }
    Ok(())
}

/// Whether the non-starter `c` after `prev` (the code point before it,
/// when that is a non-starter too) keeps canonical order (UAX #15 §9: the
/// combining class does not decrease).
fn in_canonical_order(prev: Option<char>, c: char) -> bool {
    use icu_properties::props::CanonicalCombiningClass;
    let Some(p) = prev else { return true };
    let ccc = CodePointMapData::<CanonicalCombiningClass>::new();
    ccc.get(p).to_icu4c_value() <= ccc.get(c).to_icu4c_value()
}

/// Whether `chars` is in NFC, when the quick check of [UAX #15 §9] shows
/// it: every code point has NFC_Quick_Check Yes and combining marks are in
/// canonical order. `false` means "maybe not: ask the normalizer".
///
/// [UAX #15 §9]: https://www.unicode.org/reports/tr15/#Detecting_Normalization_Forms
#[cfg(test)]
fn is_nfc_quick(chars: &[char]) -> bool {
    let mut prev_mark: Option<char> = None;
    chars.iter().all(|&c| {
        let i = derived::info(c);
        let ok = i.nfc_yes() && (i.starter() || in_canonical_order(prev_mark, c));
        prev_mark = (!i.starter()).then_some(c);
        ok
    })
}

/// Checks conditions 1, 5 and 6 of the Bidi rule ([RFC 5893 §2]) on a
/// label without right-to-left characters that sits in a domain name with
/// an RTL label (for example a second-level label under an Arabic-script
/// TLD). [`check_ulabel`] cannot know the rest of the name, so it leaves
/// this to the caller.
///
/// # Errors
///
/// [`Finding::Bidi`] with the failing condition.
///
/// [RFC 5893 §2]: https://www.rfc-editor.org/rfc/rfc5893#section-2
pub fn check_ltr_label_in_bidi_name(ulabel: &str) -> Result<(), Finding> {
    let chars: Vec<char> = ulabel.chars().collect();
    if bidi::is_rtl_label(&chars) {
        return bidi::check_rtl(&chars).map_err(|rule| Finding::Bidi { rule });
    }
    bidi::check_ltr_in_bidi_name(&chars).map_err(|rule| Finding::Bidi { rule })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(s: &str) -> Option<String> {
        to_labels(s).finding.map(|f| f.to_string())
    }

    #[test]
    fn ldh_is_borrowed_and_valid() {
        assert!(matches!(forms_bytes(b"example"), Forms::Ldh));
        assert!(matches!(forms_bytes(b"a-b1"), Forms::Ldh));
        assert!(!is_plain_ldh(b"xn--abc"));
        assert!(!is_plain_ldh(b"Abc"));
        assert_eq!(reason("EXAMPLE"), None);
        assert_eq!(to_labels("EXAMPLE").alabel, "example");
    }

    /// A suffix in any case has the A-label of its lower case; a final
    /// capital sigma is `σ`, as UTS #46 maps it, not `ς`.
    #[test]
    fn suffixes_are_lower_cased() {
        assert_eq!(to_alabel("РФ").ok(), None);
        assert_eq!(suffix_alabel("РФ").as_deref(), Some("xn--p1ai"));
        assert_eq!(suffix_alabel("Рф").as_deref(), Some("xn--p1ai"));
        assert_eq!(suffix_alabel("ΕΛΛΑΣ"), to_alabel("ελλασ").ok());
        assert_ne!(to_alabel("ελλασ"), to_alabel("ελλας"));
        assert_eq!(suffix_alabel("a\u{0640}b"), None);
    }

    #[test]
    fn each_reason() {
        assert_eq!(reason("a.b").as_deref(), Some("escaped dot inside label at byte offset 1"));
        assert_eq!(reason("xn--99999999999").as_deref(), Some("punycode does not decode"));
        assert_eq!(reason("abc-").as_deref(), Some("hyphen at end"));
        assert_eq!(reason("xn--abc-").as_deref(), Some("fake A-label: decodes to ASCII"));
        assert_eq!(reason("XN--ABC-").as_deref(), Some("fake A-label: decodes to ASCII"));
        assert_eq!(reason("ab--c").as_deref(), Some("hyphens in positions 3 and 4"));
        assert_eq!(reason("-ab").as_deref(), Some("hyphen at start"));
        assert_eq!(reason("_dmarc").as_deref(), Some("non-LDH ASCII '_' at byte offset 0"));
        assert_eq!(reason("a b").as_deref(), Some("non-LDH ASCII \\032 at byte offset 1"));
        assert_eq!(reason("").as_deref(), Some("empty label"));
        assert_eq!(reason(&"a".repeat(64)).as_deref(), Some("label too long: 64 octets (max 63)"));
        // e + combining acute: not NFC.
        assert_eq!(reason("e\u{0301}x").as_deref(), Some("not NFC"));
        assert_eq!(reason("\u{0301}x").as_deref(), Some("U+0301 leading combining mark"));
        assert_eq!(reason("a\u{0640}b").as_deref(), Some("U+0640 DISALLOWED"));
        assert_eq!(reason("ä\u{0378}").as_deref(), Some("U+0378 UNASSIGNED"));
        assert_eq!(reason("Ä").as_deref(), Some("U+00C4 DISALLOWED"));
        assert_eq!(reason("a\u{200D}b").as_deref(), Some("U+200D CONTEXTJ fails"));
        assert_eq!(reason("a\u{200C}b").as_deref(), Some("U+200C CONTEXTJ fails"));
        assert_eq!(reason("a\u{00B7}b").as_deref(), Some("U+00B7 CONTEXTO fails"));
        assert_eq!(reason("l\u{00B7}l"), None);
        // Virama then ZWJ: allowed.
        assert_eq!(reason("\u{0915}\u{094D}\u{200D}\u{0937}"), None);
        // Arabic beh + ZWNJ + beh: joining types D, D.
        assert_eq!(reason("\u{0628}\u{200C}\u{0628}"), None);
        assert_eq!(reason("\u{0661}\u{06F1}").as_deref(), Some("U+0661 CONTEXTO fails"));
        // Hebrew then a Latin letter: Bidi rule 2.
        assert_eq!(reason("\u{05D0}a").as_deref(), Some("Bidi rule 2 fails (RFC 5893)"));
        // Starts with a European number: rule 1.
        assert_eq!(reason("1\u{05D0}").as_deref(), Some("Bidi rule 1 fails (RFC 5893)"));
        // Ends with a hyphen-minus (ES): rule 3 (checked after hyphen rules,
        // so use an ON character instead).
        assert_eq!(reason("\u{05D0}!").as_deref(), Some("U+0021 DISALLOWED"));
        assert_eq!(reason("\u{05D0}1\u{0661}").as_deref(), Some("Bidi rule 4 fails (RFC 5893)"));
        assert_eq!(reason("\u{0627}\u{0628}"), None);
        assert_eq!(
            to_labels_bytes(b"ab\xffc").finding.map(|f| f.to_string()).as_deref(),
            Some("not UTF-8 at byte offset 2")
        );
    }

    #[test]
    fn a_label_to_disallowed_code_point() {
        let f = to_labels("xn--ls8h");
        assert_eq!(f.ulabel, "\u{1F4A9}");
        assert_eq!(f.finding, Some(Finding::Disallowed { cp: '\u{1F4A9}' }));
        // A delimiter with no basic code points before it: the encoder
        // would not write it; idna's decoder already refuses it.
        assert_eq!(reason("xn---ls8h").as_deref(), Some("punycode does not decode"));
    }

    /// The quick NFC proof never says yes where the normalizer says no;
    /// and it says yes for plain text in the scripts of the built-in LGRs.
    #[test]
    fn nfc_quick_agrees_with_the_normalizer() {
        let nfc = ComposingNormalizerBorrowed::new_nfc();
        let check = |s: &str| {
            let chars: Vec<char> = s.chars().collect();
            if is_nfc_quick(&chars) {
                assert!(nfc.is_normalized(s), "{s:?}");
            }
        };
        let mut next = crate::testutil::random_u64s(0x2545_F491_4F6C_DD1Du64);
        // Latin with marks, Devanagari, Bengali, Tamil, Khmer, Hangul
        // syllables and jamo, Greek, Arabic, everything.
        let ranges: [(u32, u32); 9] = [
            (0x41, 0x250),
            (0x300, 0x370),
            (0x900, 0x980),
            (0x980, 0xA00),
            (0xB80, 0xC00),
            (0x1780, 0x1800),
            (0x1100, 0x1200),
            (0xAC00, 0xAC80),
            (0, 0x11_0000),
        ];
        // Every code point alone, and after a letter.
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            check(c.encode_utf8(&mut [0; 4]));
            check(&format!("a{c}"));
        }
        for _ in 0..200_000 {
            let len = 1 + (next() % 8) as usize;
            let a = ranges[(next() % 9) as usize];
            let b = ranges[(next() % 9) as usize];
            let s: String = (0..len)
                .filter_map(|_| {
                    let (lo, hi) = if next().is_multiple_of(2) { a } else { b };
                    char::from_u32(lo + (next() % u64::from(hi - lo)) as u32)
                })
                .collect();
            check(&s);
        }
        for s in ["bücher", "\u{0915}\u{094D}\u{0937}", "\u{1780}\u{17D2}\u{1793}", "한국"] {
            assert!(is_nfc_quick(&s.chars().collect::<Vec<_>>()), "{s:?}");
        }
        // Marks out of canonical order, a nukta (composes), a jamo V.
        for s in ["a\u{0316}\u{0301}x", "a\u{0301}\u{0316}", "\u{0928}\u{093C}", "\u{1100}\u{1161}"]
        {
            check(s);
        }
        assert!(!is_nfc_quick(&['a', '\u{0301}', '\u{0316}']));
    }

    #[test]
    fn u_label_forms() {
        let f = to_labels("BÜcher");
        assert!(f.alabel.starts_with("xn--bcher-"));
        assert_eq!(f.finding, Some(Finding::Disallowed { cp: 'Ü' }));
        let f = to_labels("españa");
        assert_eq!(f.alabel, "xn--espaa-rta");
        assert_eq!(f.finding, None);
        assert_eq!(to_ulabel("xn--espaa-rta").as_deref(), Ok("españa"));
        assert_eq!(to_alabel("españa").as_deref(), Ok("xn--espaa-rta"));
    }
}

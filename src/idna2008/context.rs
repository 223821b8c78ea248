//! Contextual rules for CONTEXTJ and CONTEXTO code points
//! ([RFC 5892 Appendix A]).
//!
//! [RFC 5892 Appendix A]: https://www.rfc-editor.org/rfc/rfc5892#appendix-A

use icu_properties::CodePointMapData;
use icu_properties::props::{CanonicalCombiningClass, JoiningType, Script};

fn is_virama(c: char) -> bool {
    CodePointMapData::<CanonicalCombiningClass>::new().get(c) == CanonicalCombiningClass::Virama
}

fn joining_type(c: char) -> JoiningType {
    CodePointMapData::<JoiningType>::new().get(c)
}

fn script(c: char) -> Script {
    CodePointMapData::<Script>::new().get(c)
}

/// Whether the contextual rule of `chars[i]` holds ([RFC 5892 A.1–A.9]).
///
/// Returns `false` for a code point that has no rule (a CONTEXTO code point
/// without a rule is not allowed, RFC 5891 §5.4).
///
/// [RFC 5892 A.1–A.9]: https://www.rfc-editor.org/rfc/rfc5892#appendix-A.1
pub(crate) fn rule_holds(chars: &[char], i: usize) -> bool {
    let before = if i > 0 { chars.get(i - 1).copied() } else { None };
    let after = chars.get(i + 1).copied();
    match chars[i] {
        // A.1 ZERO WIDTH NON-JOINER
        '\u{200C}' => {
            if before.is_some_and(is_virama) {
                return true;
            }
            // (Joining_Type:{L,D})(Joining_Type:T)*\u200C
            // (Joining_Type:T)*(Joining_Type:{R,D})
            let left_ok = chars[..i]
                .iter()
                .rev()
                .map(|&c| joining_type(c))
                .find(|&jt| jt != JoiningType::Transparent)
                .is_some_and(|jt| jt == JoiningType::LeftJoining || jt == JoiningType::DualJoining);
            let right_ok = chars[i + 1..]
                .iter()
                .map(|&c| joining_type(c))
                .find(|&jt| jt != JoiningType::Transparent)
                .is_some_and(|jt| {
                    jt == JoiningType::RightJoining || jt == JoiningType::DualJoining
                });
            left_ok && right_ok
        }
        // A.2 ZERO WIDTH JOINER
        '\u{200D}' => before.is_some_and(is_virama),
        // A.3 MIDDLE DOT
        '\u{00B7}' => before == Some('l') && after == Some('l'),
        // A.4 GREEK LOWER NUMERAL SIGN (KERAIA)
        '\u{0375}' => after.is_some_and(|c| script(c) == Script::Greek),
        // A.5 HEBREW PUNCTUATION GERESH, A.6 GERSHAYIM
        '\u{05F3}' | '\u{05F4}' => before.is_some_and(|c| script(c) == Script::Hebrew),
        // A.7 KATAKANA MIDDLE DOT
        '\u{30FB}' => chars.iter().any(|&c| {
            let s = script(c);
            s == Script::Hiragana || s == Script::Katakana || s == Script::Han
        }),
        // A.8 ARABIC-INDIC DIGITS
        '\u{0660}'..='\u{0669}' => !chars.iter().any(|c| ('\u{06F0}'..='\u{06F9}').contains(c)),
        // A.9 EXTENDED ARABIC-INDIC DIGITS
        '\u{06F0}'..='\u{06F9}' => !chars.iter().any(|c| ('\u{0660}'..='\u{0669}').contains(c)),
        _ => false,
    }
}

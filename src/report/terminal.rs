//! Text from the data (labels, file names, LGR metadata) made safe to show
//! on a terminal: control characters and bidirectional overrides are
//! written as escapes, so a zone or an LGR cannot move the cursor, set the
//! window title (OSC), ring the bell or reorder what follows.

use std::borrow::Cow;

/// Whether `c` is shown escaped: the C0 controls and DEL, the C1
/// controls (U+0080–U+009F, which include the 8-bit CSI and OSC), and the
/// bidirectional embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069; [Unicode TR 9]). None of these is PVALID in IDNA2008
/// ([RFC 5892]), so no valid label is ever shown escaped.
///
/// [Unicode TR 9]: https://www.unicode.org/reports/tr9/
/// [RFC 5892]: https://www.rfc-editor.org/rfc/rfc5892
pub fn is_unsafe_for_terminal(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character that [`is_unsafe_for_terminal`] written as
/// `\u{XX}` (its code point in hex, as Rust's escapes); borrowed when there
/// is none.
///
/// # Example
/// ```
/// use lgrscan::report::escape_for_terminal;
/// assert_eq!(escape_for_terminal("a\u{1b}]0;x\u{7}b"), "a\\u{1b}]0;x\\u{7}b");
/// assert_eq!(escape_for_terminal("भारत"), "भारत");
/// ```
pub fn escape_for_terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe_for_terminal) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe_for_terminal(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_bidi_overrides_only() {
        for (input, want) in [
            ("plain", "plain"),
            ("\u{1b}[31mred", "\\u{1b}[31mred"),
            ("\u{9b}31m", "\\u{9b}31m"),
            ("tab\there\n", "tab\\u{9}here\\u{a}"),
            ("\u{202E}txt.exe", "\\u{202e}txt.exe"),
            ("\u{2067}x\u{2069}", "\\u{2067}x\\u{2069}"),
            ("\u{7f}", "\\u{7f}"),
            ("क्\u{200D}ष", "क्\u{200D}ष"),
            ("مثال", "مثال"),
        ] {
            assert_eq!(escape_for_terminal(input), want, "{input:?}");
        }
        assert!(matches!(escape_for_terminal("abc"), Cow::Borrowed(_)));
    }
}

//! Older table formats into the RFC 7940 model: RFC 3743 IDN tables and
//! one-code-point-per-line lists.
//!
//! An RFC 3743 §5 entry reads `56E2(1);56E2(1);5718(2)`: the code point (or
//! space-separated sequence) with optional reference numbers in
//! parentheses, then the preferred variants, then the character variants,
//! each a comma-separated set; `#` starts a comment, and `Version` /
//! `Reference` lines give metadata. Registries also write the code points
//! as `U+0915` and separate columns with `|` (`U+0915|U+0915`).
//!
//! A list has one code point, sequence (`0915 093C`) or range (`0966-096F`,
//! `U+0966..U+096F`) per line; whatever follows the first tab or the code
//! points (a glyph, a character name) is ignored. Lines that do not start
//! with a code point (prose of a policy document) are skipped, as ICANN's
//! lgr-core does.
//!
//! Variants become `<var>` entries in both directions (RFC 8228 §5
//! symmetry). A preferred variant gets type `activated` (RFC 7940 §7.3:
//! "the same as a Preferred Variant [RFC3743]"), a character variant type
//! `blocked` (lgr-core leaves these untyped, which makes variant labels
//! `valid`; RFC 3743 reserves them). A variant that is not itself listed is
//! added with a reflexive `out-of-repertoire-var` variant, and a label
//! containing it is made invalid by an action, as ICANN's LGRs do.

use super::model::*;
use crate::error::LgrError;
use std::collections::HashMap;

type R<T> = Result<T, LgrError>;

fn err(line: u32, msg: impl Into<String>) -> LgrError {
    LgrError::new(msg).at(line, 0).element("table")
}

/// A code point token: `0915`, `U+0915` (4 to 6 hex digits), with an
/// optional RFC 3743 reference suffix `(1,2)`. `Ok(None)` when the token is
/// not written as a code point at all.
fn cp_token(tok: &str, line: u32) -> R<Option<Cp>> {
    let t = match tok.find('(') {
        Some(i) if tok.ends_with(')') => &tok[..i],
        _ => tok,
    };
    let (prefixed, hex) = match t.strip_prefix("U+").or_else(|| t.strip_prefix("u+")) {
        Some(h) => (true, h),
        None => (false, t),
    };
    let is_hex = !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    let well_formed = is_hex && (4..=6).contains(&hex.len());
    if !prefixed && !well_formed {
        return Ok(None);
    }
    if !well_formed {
        return Err(err(line, format!("bad code point '{tok}' (4 to 6 hex digits)")));
    }
    let v =
        u32::from_str_radix(hex, 16).map_err(|_| err(line, format!("bad code point '{tok}'")))?;
    if v > 0x10FFFF {
        return Err(err(line, format!("code point '{tok}' is beyond U+10FFFF")));
    }
    if (0xD800..=0xDFFF).contains(&v) {
        return Err(err(line, format!("code point '{tok}' is a surrogate")));
    }
    Ok(Some(v))
}

/// A range token `0966-096F` or `U+0966..U+096F`, if the token is one.
fn range_token(tok: &str, line: u32) -> R<Option<(Cp, Cp)>> {
    let Some((a, b)) = tok.split_once("..").or_else(|| tok.split_once('-')) else {
        return Ok(None);
    };
    let (Some(a), Some(b)) = (cp_token(a, line)?, cp_token(b, line)?) else {
        return Ok(None);
    };
    if a > b {
        return Err(err(line, format!("reversed range '{tok}': first code point above last")));
    }
    Ok(Some((a, b)))
}

/// The leading code point tokens of `s` (space-separated), ignoring what
/// follows them. Errors when a token written as a code point is bad.
fn leading_seq(s: &str, line: u32) -> R<Vec<Cp>> {
    let mut out = Vec::new();
    for tok in s.split_ascii_whitespace() {
        match cp_token(tok, line)? {
            Some(c) => out.push(c),
            None => break,
        }
    }
    Ok(out)
}

/// A variant set: comma-separated code points or sequences, each code
/// point with an optional reference list, itself comma-separated
/// (`4E1F(1,2),4E22(2)`, RFC 3743 §5.1).
fn variant_set(col: &str, line: u32) -> R<Vec<Vec<Cp>>> {
    let mut out = Vec::new();
    let mut depth = 0u32;
    let items = col.split(|c| {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        c == ',' && depth == 0
    });
    for item in items.map(str::trim).filter(|s| !s.is_empty()) {
        let mut seq = Vec::new();
        // The references are not kept: drop them before the code points
        // are told apart (`4E1F(1, 2)` is one code point).
        let without_refs = without_references(item)
            .map_err(|why| err(line, format!("bad variant '{item}': {why}")))?;
        for tok in without_refs.split_ascii_whitespace() {
            match cp_token(tok, line)? {
                Some(c) => seq.push(c),
                None => {
                    return Err(err(
                        line,
                        format!("bad variant '{item}': '{tok}' is not a code point"),
                    ));
                }
            }
        }
        if seq.is_empty() {
            return Err(err(line, format!("bad variant '{item}': no code point")));
        }
        out.push(seq);
    }
    Ok(out)
}

/// `item` with its reference lists left out (`4E1F(1,2)`: RFC 3743 §5.1
/// references are numbers); an error for a parenthesis not closed or
/// not opened, or a list holding anything else.
fn without_references(item: &str) -> Result<String, &'static str> {
    let mut out = String::with_capacity(item.len());
    let mut rest = item;
    while let Some(open) = rest.find('(') {
        let close = open + rest[open..].find(')').ok_or("a '(' not closed")?;
        let refs = &rest[open + 1..close];
        if !refs.chars().all(|c| c.is_ascii_digit() || c == ',' || c.is_ascii_whitespace()) {
            return Err("a reference list holds numbers only");
        }
        out.push_str(&rest[..open]);
        rest = &rest[close + 1..];
    }
    if rest.contains(')') {
        return Err("a ')' not opened");
    }
    out.push_str(rest);
    Ok(out)
}

fn new_char(cps: Vec<Cp>, line: u32, comment: Option<String>) -> CharDef {
    CharDef {
        cps,
        when: None,
        not_when: None,
        tags: Vec::new(),
        comment,
        variants: Vec::new(),
        from_range: false,
        line,
    }
}

/// Parses a table or list (see the module documentation).
///
/// # Errors
/// A code point that is malformed, beyond U+10FFFF or a surrogate, a
/// reversed range, a bad variant, a code point listed twice, or more than
/// [`MAX_REPERTOIRE`] elements, with the line number; a text with no code
/// point at all.
pub fn parse(text: &str) -> Result<LgrDoc, LgrError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut doc = LgrDoc::default();
    let mut pos: HashMap<Vec<Cp>, usize> = HashMap::new();
    // (element, variant, type, line)
    let mut pairs: Vec<(Vec<Cp>, Vec<Cp>, &'static str, u32)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n as u32 + 1;
        let body = raw.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        if let Some(rest) = body.strip_prefix("Version ") {
            let mut it = rest.split_ascii_whitespace();
            doc.meta.version = it.next().map(str::to_string);
            doc.meta.date = it.next().map(str::to_string);
            continue;
        }
        if let Some(rest) = body.strip_prefix("Reference ") {
            if let Some((id, value)) = rest.trim().split_once(char::is_whitespace) {
                doc.meta.references.push((id.to_string(), value.trim().to_string(), None));
            }
            continue;
        }
        // A list line may carry a glyph and a name after a tab, which may
        // hold a `;` or `|` of its own: a tab before any column separator
        // ends what is read of the line.
        let body = match (body.find('\t'), body.find([';', '|'])) {
            (Some(tab), sep) if sep.is_none_or(|sep| tab < sep) => &body[..tab],
            _ => body,
        };
        let mut cols = body.split([';', '|']);
        let first_col = cols.next().unwrap_or("").trim();
        let first_field = first_col.split('\t').next().unwrap_or("").trim();
        let first_tok = first_field.split_ascii_whitespace().next().unwrap_or("");
        let base: Vec<Vec<Cp>> = if let Some((a, b)) = range_token(first_tok, line)? {
            if let Some(msg) = repertoire_limit(doc.chars.len(), range_len(a, b)) {
                return Err(err(line, format!("range {first_tok}: {msg}")));
            }
            (a..=b).filter(|c| !(0xD800..=0xDFFF).contains(c)).map(|c| vec![c]).collect()
        } else {
            let seq = leading_seq(first_field, line)?;
            if seq.is_empty() {
                if body.contains('|') {
                    // Table columns, but no code point first.
                    return Err(err(line, format!("bad table line '{body}': no code point first")));
                }
                continue; // prose
            }
            if let Some(msg) = repertoire_limit(doc.chars.len(), 1) {
                return Err(err(line, msg));
            }
            vec![seq]
        };
        for b in &base {
            if let Some(&i) = pos.get(b) {
                let first = doc.chars[i].line;
                return Err(err(
                    line,
                    format!("{} is listed twice (first on line {first})", super::fmt_cps(b)),
                ));
            }
            pos.insert(b.clone(), doc.chars.len());
            doc.chars.push(new_char(b.clone(), line, None));
        }
        let variant_cols: Vec<&str> = cols.collect();
        if !variant_cols.is_empty() && base.len() != 1 {
            return Err(err(line, "a range may not have variants"));
        }
        for (k, col) in variant_cols.iter().enumerate().take(2) {
            for v in variant_set(col, line)? {
                if v != base[0] {
                    if let Some(msg) = variant_limit(pairs.len()) {
                        return Err(err(line, msg));
                    }
                    pairs.push((
                        base[0].clone(),
                        v,
                        if k == 0 { "activated" } else { "blocked" },
                        line,
                    ));
                }
            }
        }
        if variant_cols.len() > 2 {
            return Err(err(line, format!("too many columns in '{body}' (at most 3)")));
        }
    }
    if doc.chars.is_empty() {
        return Err(LgrError::new(
            "no code point found: neither an RFC 3743 table nor a code point list",
        )
        .at(1, 0)
        .element("table"));
    }
    // Explicit pairs first, then their mirror images where the table does
    // not give that direction itself (the explicit type wins).
    let mirrored: Vec<_> =
        pairs.iter().map(|(a, b, t, l)| (b.clone(), a.clone(), *t, *l)).collect();
    let mut out_of_repertoire = false;
    // The pairs already given, so that a clique of 1,000 elements is not
    // 10^9 comparisons.
    let mut given: std::collections::HashSet<(usize, Vec<Cp>)> = std::collections::HashSet::new();
    for (x, y, typ, line) in pairs.into_iter().chain(mirrored) {
        let i = match pos.get(&x) {
            Some(&i) => i,
            None => {
                // A target that is not listed becomes an element too.
                if let Some(msg) = repertoire_limit(doc.chars.len(), 1) {
                    let why = format!("variant target {}: {msg}", super::fmt_cps(&x));
                    return Err(err(line, why));
                }
                out_of_repertoire = true;
                pos.insert(x.clone(), doc.chars.len());
                let mut c = new_char(x.clone(), line, Some("variant target only".into()));
                c.variants.push(VarDef {
                    cps: x,
                    typ: Some("out-of-repertoire-var".into()),
                    when: None,
                    not_when: None,
                    comment: None,
                    line,
                });
                doc.chars.push(c);
                doc.chars.len() - 1
            }
        };
        // The first line that names a pair decides its type.
        if given.insert((i, y.clone())) {
            if let Some(msg) = variant_limit(given.len() - 1) {
                return Err(err(line, msg));
            }
            doc.chars[i].variants.push(VarDef {
                cps: y,
                typ: Some(typ.to_string()),
                when: None,
                not_when: None,
                comment: None,
                line,
            });
        }
    }
    if out_of_repertoire {
        doc.actions.push(ActionDef {
            disp: "invalid".into(),
            match_rule: None,
            not_match_rule: None,
            variants: Some(VariantCond::Any(vec!["out-of-repertoire-var".into()])),
            comment: Some("a label with a variant target that is not listed is invalid".into()),
            line: 0,
        });
    }
    Ok(doc)
}

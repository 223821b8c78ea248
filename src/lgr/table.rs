//! Older table formats into the RFC 7940 model: RFC 3743 IDN tables and
//! one-code-point-per-line lists.
//!
//! RFC 3743 §5 lines read `U+0915|U+0915|U+0916` (valid code point or
//! sequence, preferred variant, other variants), `#` starts a comment; plain
//! lists carry `0915`, `U+0915`, `0915 093C` or ranges `0966-096F`, one per
//! line. Variants become `<var>` entries in both directions (RFC 8228 §5
//! symmetry), of type `blocked` except the preferred variant, `allocatable`.

use super::model::*;
use crate::error::LgrError;

fn cp(s: &str, line: u32) -> Result<Cp, LgrError> {
    let t = s.trim();
    let t = t
        .strip_prefix("U+")
        .or_else(|| t.strip_prefix("u+"))
        .or_else(|| t.strip_prefix("0x"))
        .unwrap_or(t);
    let ok = (1..=6).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_hexdigit());
    match ok.then(|| u32::from_str_radix(t, 16).ok()).flatten() {
        Some(v) if v <= 0x10FFFF && !(0xD800..=0xDFFF).contains(&v) => Ok(v),
        _ => Err(LgrError::new(format!("bad code point '{s}'")).at(line, 0).element("table")),
    }
}

fn seq(s: &str, line: u32) -> Result<Vec<Cp>, LgrError> {
    let v: Vec<Cp> = s
        .split([' ', '\t'])
        .filter(|p| !p.is_empty())
        .map(|p| cp(p, line))
        .collect::<Result<_, _>>()?;
    if v.is_empty() {
        return Err(LgrError::new("empty code point sequence").at(line, 0).element("table"));
    }
    Ok(v)
}

/// Parses a table or list.
///
/// # Errors
/// A line that is neither form, or a code point defined twice.
pub fn parse(text: &str) -> Result<LgrDoc, LgrError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut doc = LgrDoc::default();
    let mut pos: std::collections::HashMap<Vec<Cp>, usize> = std::collections::HashMap::new();
    let mut pairs: Vec<(Vec<Cp>, Vec<Cp>, &'static str, u32)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n as u32 + 1;
        let body = raw.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        // Lines of RFC 3743 tables usually start with U+; prose lines of a
        // policy document do not, and are skipped.
        let first = body.split(['|', ';', ' ', '\t']).next().unwrap_or("");
        let looks_cp =
            first.strip_prefix("U+").or_else(|| first.strip_prefix("u+")).unwrap_or(first);
        let is_range = looks_cp
            .split_once('-')
            .is_some_and(|(a, b)| cp(a, line).is_ok() && cp(b, line).is_ok());
        if !is_range && cp(looks_cp, line).is_err() {
            if body.contains('|') {
                return Err(LgrError::new(format!("bad table line '{body}'"))
                    .at(line, 0)
                    .element("table"));
            }
            continue;
        }
        let mut cols = body.split(['|', ';']);
        let base_s = cols.next().unwrap_or("");
        let base: Vec<Vec<Cp>> = match base_s.split_once('-') {
            Some((a, b)) if !a.contains(' ') => {
                let (a, b) = (cp(a, line)?, cp(b, line)?);
                if a > b {
                    return Err(LgrError::new(format!("reversed range '{base_s}'"))
                        .at(line, 0)
                        .element("table"));
                }
                (a..=b).filter(|c| !(0xD800..=0xDFFF).contains(c)).map(|c| vec![c]).collect()
            }
            _ => vec![seq(base_s, line)?],
        };
        let variant_cols: Vec<&str> = cols.collect();
        for b in &base {
            if pos.contains_key(b) {
                continue;
            }
            pos.insert(b.clone(), doc.chars.len());
            doc.chars.push(CharDef {
                cps: b.clone(),
                when: None,
                not_when: None,
                tags: Vec::new(),
                comment: None,
                variants: Vec::new(),
                from_range: false,
                line,
            });
        }
        if base.len() == 1 {
            for (k, col) in variant_cols.iter().enumerate() {
                for v in col.split(':').filter(|v| !v.trim().is_empty()) {
                    let vcps = seq(v, line)?;
                    if vcps != base[0] {
                        pairs.push((
                            base[0].clone(),
                            vcps,
                            if k == 0 { "allocatable" } else { "blocked" },
                            line,
                        ));
                    }
                }
            }
        }
    }
    for (a, b, typ, line) in pairs {
        for (x, y) in [(&a, &b), (&b, &a)] {
            let i = match pos.get(x) {
                Some(&i) => i,
                None => {
                    pos.insert(x.clone(), doc.chars.len());
                    doc.chars.push(CharDef {
                        cps: x.clone(),
                        when: None,
                        not_when: None,
                        tags: Vec::new(),
                        comment: Some("variant target only".into()),
                        variants: Vec::new(),
                        from_range: false,
                        line,
                    });
                    doc.chars.len() - 1
                }
            };
            if !doc.chars[i].variants.iter().any(|v| v.cps == *y) {
                doc.chars[i].variants.push(VarDef {
                    cps: y.clone(),
                    typ: Some(typ.to_string()),
                    when: None,
                    not_when: None,
                    comment: None,
                    line,
                });
            }
        }
    }
    if doc.chars.is_empty() {
        return Err(
            LgrError::new("no code point found: not an RFC 3743 table or code point list").at(1, 0)
        );
    }
    Ok(doc)
}

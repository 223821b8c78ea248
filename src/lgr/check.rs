//! Consistency checks and statistics for an LGR document.
//!
//! * [`symmetry`] and [`transitivity`] test the variant relation the way
//!   RFC 8228 §3 ("Symmetry and Transitivity") asks an LGR to define it.
//!   Index labels (RFC 7940 §8.5) assume that relation is symmetric and
//!   transitive, so that all members of a variant set share one index
//!   label; where it is not, two labels that are variants of each other
//!   may get different index labels and a collision goes unseen. Findings
//!   are [`Warning`]s naming the offending pairs, not errors: the LGR still
//!   loads and judges labels.
//! * [`info`] counts what an LGR holds (repertoire, variants by type,
//!   classes, rules, actions) for `lgrscan lgr info`.
//!
//! The semantics of the checks follow ICANN's reference implementation
//! (lgr-core's symmetry and transitivity validators): only the presence of
//! a mapping is tested, not its type; the symmetry check also asks that a
//! reverse mapping carry the same `when` / `not-when` context rule
//! (RFC 7940 §5.3.5, RFC 8228 §16). Nothing here prints.

use super::Lgr;
use super::model::{CharDef, LgrDoc, Meta};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

/// Which context attribute of a variant a [`Warning::ContextAsymmetric`]
/// is about (RFC 7940 §5.3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ContextKind {
    /// The `when` attribute: the mapping holds only where the rule matches.
    When,
    /// The `not-when` attribute: the mapping holds only where it does not.
    NotWhen,
}

impl fmt::Display for ContextKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ContextKind::When => "when",
            ContextKind::NotWhen => "not-when",
        })
    }
}

/// One finding of the RFC 8228 checks. Code points are given as sequences
/// because repertoire elements and variants may be sequences (RFC 7940
/// §5.1, §5.3).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Warning {
    /// `from` lists `to` as a variant, but `to` is not a repertoire element,
    /// so the reverse mapping cannot exist (RFC 8228 §3; RFC 7940 §5.3
    /// asks for out-of-repertoire targets to be listed with a reflexive
    /// `out-of-repertoire-var` mapping instead, RFC 8228 §14).
    TargetNotInRepertoire {
        /// The element that has the mapping.
        from: Vec<u32>,
        /// The variant it maps to.
        to: Vec<u32>,
        /// Source line of the `<var>`.
        line: u32,
    },
    /// Asymmetric mapping: `from` → `to` exists, `to` → `from` does not
    /// (RFC 8228 §3).
    Asymmetric {
        /// The element that has the mapping.
        from: Vec<u32>,
        /// The element that lacks the reverse mapping.
        to: Vec<u32>,
        /// Source line of the `<var>` that has no reverse.
        line: u32,
    },
    /// Both directions exist, but the mapping `from` → `to` has a context
    /// rule that no reverse mapping `to` → `from` has, so the relation is
    /// asymmetric in some contexts (RFC 8228 §16).
    ContextAsymmetric {
        /// The element that has the conditional mapping.
        from: Vec<u32>,
        /// The element whose reverse mapping lacks the condition.
        to: Vec<u32>,
        /// `when` or `not-when`.
        kind: ContextKind,
        /// The rule name.
        rule: String,
        /// Source line of the conditional `<var>`.
        line: u32,
    },
    /// Non-transitive relation: `a` ~ `b` and `b` ~ `c`, but `a` does not
    /// list `c` as a variant (RFC 8228 §3).
    NonTransitive {
        /// The element that lacks the mapping.
        a: Vec<u32>,
        /// The element both are variants of.
        b: Vec<u32>,
        /// The missing variant.
        c: Vec<u32>,
    },
}

impl Warning {
    /// The two elements the warning is about (for a non-transitive
    /// relation, the element and the variant it lacks).
    pub fn pair(&self) -> (&[u32], &[u32]) {
        match self {
            Warning::TargetNotInRepertoire { from, to, .. }
            | Warning::Asymmetric { from, to, .. }
            | Warning::ContextAsymmetric { from, to, .. } => (from, to),
            Warning::NonTransitive { a, c, .. } => (a, c),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use super::fmt_cps as u;
        match self {
            Warning::TargetNotInRepertoire { from, to, line } => write!(
                f,
                "line {line}: {} has variant {}, which is not in the repertoire",
                u(from),
                u(to)
            ),
            Warning::Asymmetric { from, to, line } => write!(
                f,
                "asymmetric variant (line {line}): {} -> {}, but {} does not list {}",
                u(from),
                u(to),
                u(to),
                u(from)
            ),
            Warning::ContextAsymmetric { from, to, kind, rule, line } => write!(
                f,
                "asymmetric context (line {line}): {} -> {} has {kind}=\"{rule}\", \
                 but no {} -> {} mapping has it",
                u(from),
                u(to),
                u(to),
                u(from)
            ),
            Warning::NonTransitive { a, b, c } => write!(
                f,
                "non-transitive variants: {} ~ {} and {} ~ {}, but {} does not list {}",
                u(a),
                u(b),
                u(b),
                u(c),
                u(a),
                u(c)
            ),
        }
    }
}

fn elements(doc: &LgrDoc) -> HashMap<&[u32], &CharDef> {
    doc.chars.iter().map(|c| (&c.cps[..], c)).collect()
}

/// Checks that every variant mapping has its reverse (RFC 8228 §3), with
/// the same context rule (RFC 8228 §16). Warnings come in document order.
///
/// As in the reference implementation, when a mapping has both `when` and
/// `not-when`, only `when` is compared.
pub fn symmetry(doc: &LgrDoc) -> Vec<Warning> {
    let by_cps = elements(doc);
    let mut out = Vec::new();
    for a in &doc.chars {
        for b in &a.variants {
            let Some(bc) = by_cps.get(&b.cps[..]) else {
                out.push(Warning::TargetNotInRepertoire {
                    from: a.cps.clone(),
                    to: b.cps.clone(),
                    line: b.line,
                });
                continue;
            };
            let reverse: Vec<_> = bc.variants.iter().filter(|r| r.cps == a.cps).collect();
            if reverse.is_empty() {
                out.push(Warning::Asymmetric {
                    from: a.cps.clone(),
                    to: b.cps.clone(),
                    line: b.line,
                });
                continue;
            }
            let missing = if let Some(w) = &b.when {
                (!reverse.iter().any(|r| r.when.as_ref() == Some(w)))
                    .then(|| (ContextKind::When, w.clone()))
            } else if let Some(n) = &b.not_when {
                (!reverse.iter().any(|r| r.not_when.as_ref() == Some(n)))
                    .then(|| (ContextKind::NotWhen, n.clone()))
            } else {
                None
            };
            if let Some((kind, rule)) = missing {
                out.push(Warning::ContextAsymmetric {
                    from: a.cps.clone(),
                    to: b.cps.clone(),
                    kind,
                    rule,
                    line: b.line,
                });
            }
        }
    }
    out
}

/// Checks that the variant relation is transitive (RFC 8228 §3): for every
/// `a` → `b` and `b` → `c` with `c` ≠ `a`, `a` → `c` must exist. Each
/// missing pair (`a`, `c`) is reported once, with the first `b` found.
/// Targets outside the repertoire are skipped ([`symmetry`] reports them).
pub fn transitivity(doc: &LgrDoc) -> Vec<Warning> {
    let by_cps = elements(doc);
    let mut out = Vec::new();
    for a in &doc.chars {
        if a.variants.is_empty() {
            continue;
        }
        let direct: HashSet<&[u32]> = a.variants.iter().map(|v| &v.cps[..]).collect();
        let mut reported: HashSet<&[u32]> = HashSet::new();
        for b in &a.variants {
            let Some(bc) = by_cps.get(&b.cps[..]) else { continue };
            for c in &bc.variants {
                if c.cps == a.cps || direct.contains(&c.cps[..]) || !reported.insert(&c.cps[..]) {
                    continue;
                }
                out.push(Warning::NonTransitive {
                    a: a.cps.clone(),
                    b: b.cps.clone(),
                    c: c.cps.clone(),
                });
            }
        }
    }
    out
}

/// Both checks: [`symmetry`], then [`transitivity`].
///
/// # Example
/// ```
/// use lgrscan::lgr::{Lgr, check};
/// let xml = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
///   <char cp="0061"><var cp="0062"/></char>
///   <char cp="0062"/>
///   </data></lgr>"#;
/// let lgr = Lgr::from_xml("demo", xml)?;
/// let w = check::check(lgr.doc());
/// assert_eq!(w.len(), 1);
/// assert_eq!(w[0].pair(), (&[0x61][..], &[0x62][..]));
/// # Ok::<(), lgrscan::LgrError>(())
/// ```
pub fn check(doc: &LgrDoc) -> Vec<Warning> {
    let mut w = symmetry(doc);
    w.extend(transitivity(doc));
    w
}

/// What an LGR holds, as `lgrscan lgr info` reports it (the counts of
/// lgr-core's statistics, split a little further).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LgrInfo {
    /// The name the LGR was loaded under.
    pub name: String,
    /// `<meta>` (RFC 7940 §4.3).
    pub meta: Meta,
    /// The Unicode version the engine's property data comes from.
    pub engine_unicode_version: &'static str,
    /// Repertoire elements (code points and sequences, ranges expanded),
    /// out-of-repertoire variant targets included.
    pub elements: usize,
    /// Single code points among them.
    pub code_points: usize,
    /// `<range>` elements (RFC 7940 §5.1).
    pub ranges: usize,
    /// Code points that came from ranges.
    pub range_code_points: usize,
    /// Sequences (RFC 7940 §5.2).
    pub sequences: usize,
    /// Length of the longest sequence, 0 when there is none.
    pub longest_sequence: usize,
    /// Elements listed only as targets of cross-repertoire variants: their
    /// reflexive mapping has type `out-of-repertoire-var` (RFC 8228 §14).
    pub out_of_repertoire_targets: usize,
    /// All `<var>` mappings (RFC 7940 §5.3).
    pub variant_mappings: usize,
    /// Reflexive mappings among them (RFC 7940 §5.3.4).
    pub reflexive_mappings: usize,
    /// Mappings with a `when` or `not-when` context (RFC 7940 §5.3.5).
    pub conditional_mappings: usize,
    /// Elements with at least one variant.
    pub elements_with_variants: usize,
    /// Size of the largest set of an element and its direct variants.
    pub largest_variant_set: usize,
    /// Mappings by variant type (`""` for untyped), sorted by type.
    pub variants_by_type: BTreeMap<String, usize>,
    /// Elements by tag (RFC 7940 §5.5), sorted by tag.
    pub tags: BTreeMap<String, usize>,
    /// Named classes (RFC 7940 §6.2).
    pub classes: usize,
    /// Named rules (RFC 7940 §6.3).
    pub rules: usize,
    /// Actions the document defines (RFC 7940 §7), without the defaults.
    pub actions: usize,
}

impl LgrInfo {
    /// Repertoire size proper: elements less out-of-repertoire targets.
    pub fn repertoire(&self) -> usize {
        self.elements - self.out_of_repertoire_targets
    }

    /// Mappings between distinct elements (reflexive ones left out).
    pub fn non_reflexive_mappings(&self) -> usize {
        self.variant_mappings - self.reflexive_mappings
    }
}

/// Counts what an LGR holds.
pub fn info(lgr: &Lgr) -> LgrInfo {
    let doc = lgr.doc();
    let mut i = LgrInfo {
        name: lgr.name().to_string(),
        meta: doc.meta.clone(),
        engine_unicode_version: super::UNICODE_VERSION,
        elements: doc.chars.len(),
        classes: doc.classes.len(),
        rules: doc.rules.len(),
        actions: doc.actions.len(),
        ..LgrInfo::default()
    };
    let mut prev: Option<&CharDef> = None;
    for c in &doc.chars {
        if c.cps.len() == 1 {
            i.code_points += 1;
        } else {
            i.sequences += 1;
            i.longest_sequence = i.longest_sequence.max(c.cps.len());
        }
        if c.from_range {
            i.range_code_points += 1;
            let continues = prev.is_some_and(|p| {
                p.from_range && p.line == c.line && p.cps[0].checked_add(1) == Some(c.cps[0])
            });
            // A range skips surrogates; one that spans them continues.
            let over_surrogates = prev.is_some_and(|p| {
                p.from_range && p.line == c.line && p.cps[0] == 0xD7FF && c.cps[0] == 0xE000
            });
            if !continues && !over_surrogates {
                i.ranges += 1;
            }
        }
        for t in &c.tags {
            *i.tags.entry(t.clone()).or_default() += 1;
        }
        if !c.variants.is_empty() {
            i.elements_with_variants += 1;
            let mut set: HashSet<&[u32]> = c.variants.iter().map(|v| &v.cps[..]).collect();
            set.insert(&c.cps[..]);
            i.largest_variant_set = i.largest_variant_set.max(set.len());
        }
        for v in &c.variants {
            i.variant_mappings += 1;
            let reflexive = v.cps == c.cps;
            if reflexive {
                i.reflexive_mappings += 1;
                if v.typ.as_deref() == Some("out-of-repertoire-var") {
                    i.out_of_repertoire_targets += 1;
                }
            }
            if v.when.is_some() || v.not_when.is_some() {
                i.conditional_mappings += 1;
            }
            *i.variants_by_type.entry(v.typ.clone().unwrap_or_default()).or_default() += 1;
        }
        prev = Some(c);
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lgr(data: &str) -> Lgr {
        let xml = format!(
            r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>{data}</data>
            <rules><rule name="r"><start/></rule><rule name="s"><end/></rule></rules></lgr>"#
        );
        Lgr::from_xml("t", &xml).unwrap()
    }

    #[test]
    fn symmetric_and_transitive_is_clean() {
        let l = lgr(r#"<char cp="0061"><var cp="0062"/><var cp="0063"/></char>
            <char cp="0062"><var cp="0061"/><var cp="0063"/></char>
            <char cp="0063"><var cp="0061"/><var cp="0062"/></char>"#);
        assert_eq!(check(l.doc()), vec![]);
    }

    #[test]
    fn asymmetric_pair_is_named() {
        let l = lgr(r#"<char cp="0061"><var cp="0062"/></char><char cp="0062"/>"#);
        let w = symmetry(l.doc());
        assert!(
            matches!(&w[..], [Warning::Asymmetric { from, to, .. }]
                if from == &[0x61] && to == &[0x62]),
            "{w:?}"
        );
        assert!(w[0].to_string().contains("U+0061 -> U+0062"), "{}", w[0]);
    }

    #[test]
    fn context_asymmetry() {
        let l = lgr(r#"<char cp="0061"><var cp="0062" when="r"/></char>
            <char cp="0062"><var cp="0061" when="s"/></char>"#);
        let w = symmetry(l.doc());
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(matches!(&w[0], Warning::ContextAsymmetric { kind: ContextKind::When, rule, .. }
            if rule == "r"));
        let l = lgr(r#"<char cp="0061"><var cp="0062" not-when="r"/></char>
            <char cp="0062"><var cp="0061" not-when="r"/></char>"#);
        assert_eq!(symmetry(l.doc()), vec![]);
    }

    #[test]
    fn non_transitive_triple_is_named() {
        let l = lgr(r#"<char cp="0061"><var cp="0062"/></char>
            <char cp="0062"><var cp="0061"/><var cp="0063"/></char>
            <char cp="0063"><var cp="0062"/></char>"#);
        assert_eq!(symmetry(l.doc()), vec![]);
        let w = transitivity(l.doc());
        assert_eq!(
            w,
            vec![
                Warning::NonTransitive { a: vec![0x61], b: vec![0x62], c: vec![0x63] },
                Warning::NonTransitive { a: vec![0x63], b: vec![0x62], c: vec![0x61] },
            ]
        );
    }

    #[test]
    fn counts() {
        let l = lgr(r#"<char cp="0061"><var cp="0062" type="blocked"/></char>
            <char cp="0062" tag="x"><var cp="0061" type="blocked"/></char>
            <range first-cp="0030" last-cp="0039" tag="d"/>
            <range first-cp="0041" last-cp="0042"/>
            <char cp="0063 0064"/>
            <char cp="0915"><var cp="0915" type="out-of-repertoire-var"/></char>"#);
        let i = info(&l);
        assert_eq!((i.elements, i.code_points, i.sequences, i.longest_sequence), (16, 15, 1, 2));
        assert_eq!((i.ranges, i.range_code_points), (2, 12));
        assert_eq!(
            (i.variant_mappings, i.reflexive_mappings, i.out_of_repertoire_targets),
            (3, 1, 1)
        );
        assert_eq!(i.repertoire(), 15);
        assert_eq!(i.variants_by_type.get("blocked"), Some(&2));
        assert_eq!(i.tags.get("d"), Some(&10));
        assert_eq!((i.rules, i.classes, i.actions), (2, 0, 0));
    }
}

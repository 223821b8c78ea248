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
    let mut report = CheckReport::default();
    Graph::new(doc).symmetry(doc, usize::MAX, &mut report);
    report.listed
}

/// Checks that the variant relation is transitive (RFC 8228 §3): for every
/// `a` → `b` and `b` → `c` with `c` ≠ `a`, `a` → `c` must exist. Each
/// missing pair (`a`, `c`) is reported once, with the first `b` found.
/// Targets outside the repertoire are skipped ([`symmetry`] reports them).
pub fn transitivity(doc: &LgrDoc) -> Vec<Warning> {
    let by_cps = elements(doc);
    let mut out = Vec::new();
    for a in &doc.chars {
        transitive_of(a, &by_cps, usize::MAX, &mut out);
    }
    out
}

/// Both checks: [`symmetry`], then [`transitivity`]. Every warning is
/// built, and the checks take a step per pair of mappings that meet: for
/// an LGR from an untrusted source use [`check_bounded`].
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

/// The findings of [`check_bounded`]: the first ones, in the order of
/// [`check`], and how many there are in all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckReport {
    /// The first warnings (at most the number asked for).
    pub listed: Vec<Warning>,
    /// All warnings, counted without being built; a lower bound when
    /// `complete` is false.
    pub total: u64,
    /// False when counting stopped after [`MAX_CHECK_STEPS`] steps.
    pub complete: bool,
}

/// Most steps [`check_bounded`] spends counting non-transitive pairs.
/// Counting costs, for each distinct set of an element and its variants,
/// the variants of its members but the largest; sets that are cliques, as
/// ICANN's are, cost nothing beyond reading them.
pub const MAX_CHECK_STEPS: u64 = 200_000_000;

/// [`check`] for untrusted LGRs: lists at most `max_listed` warnings and
/// counts the others without building them. [`check`] builds every
/// warning: a 70 KB table of one code point with 10,000 variants has
/// 10^8 of them, and a clique of 1,000 elements costs 10^9 steps to find
/// none; here they cost 10^4 and 10^6.
pub fn check_bounded(doc: &LgrDoc, max_listed: usize) -> CheckReport {
    let mut report = CheckReport { complete: true, ..CheckReport::default() };
    let graph = Graph::new(doc);
    graph.symmetry(doc, max_listed, &mut report);
    let counts = graph.transitive_counts(&mut report);
    // Only elements with findings are enumerated, until the list is full.
    let by_cps = elements(doc);
    for (a, count) in doc.chars.iter().zip(counts) {
        if report.listed.len() >= max_listed {
            break;
        }
        if count > 0 {
            transitive_of(a, &by_cps, max_listed, &mut report.listed);
        }
    }
    report
}

/// The missing mappings of element `a` ([`transitivity`]'s order), added
/// to `out` until it holds `max` warnings.
fn transitive_of(
    a: &CharDef,
    by_cps: &HashMap<&[u32], &CharDef>,
    max: usize,
    out: &mut Vec<Warning>,
) {
    let direct: HashSet<&[u32]> = a.variants.iter().map(|v| &v.cps[..]).collect();
    let mut reported: HashSet<&[u32]> = HashSet::new();
    for b in &a.variants {
        let Some(bc) = by_cps.get(&b.cps[..]) else { continue };
        for c in &bc.variants {
            if c.cps == a.cps || direct.contains(&c.cps[..]) || !reported.insert(&c.cps[..]) {
                continue;
            }
            if out.len() >= max {
                return;
            }
            out.push(Warning::NonTransitive {
                a: a.cps.clone(),
                b: b.cps.clone(),
                c: c.cps.clone(),
            });
        }
    }
}

/// The variant relation on dense ids: elements are `0..elements` (their
/// document order), out-of-repertoire targets come after.
struct Graph {
    elements: usize,
    /// Per element, its variant targets' ids, sorted, without repeats.
    targets: Vec<Vec<u32>>,
}

impl Graph {
    fn new(doc: &LgrDoc) -> Graph {
        let mut ids: HashMap<&[u32], u32> =
            doc.chars.iter().enumerate().map(|(i, c)| (&c.cps[..], i as u32)).collect();
        let mut targets = Vec::with_capacity(doc.chars.len());
        for c in &doc.chars {
            let mut t: Vec<u32> = c
                .variants
                .iter()
                .map(|v| {
                    let next = ids.len() as u32;
                    *ids.entry(&v.cps[..]).or_insert(next)
                })
                .collect();
            t.sort_unstable();
            t.dedup();
            targets.push(t);
        }
        Graph { elements: doc.chars.len(), targets }
    }

    fn has(&self, from: u32, to: u32) -> bool {
        self.targets.get(from as usize).is_some_and(|t| t.binary_search(&to).is_ok())
    }

    /// [`symmetry`]'s warnings: counted, the first listed. The reverse
    /// mappings of a pair are found through an index, not by scanning
    /// the target's variants for each mapping.
    fn symmetry(&self, doc: &LgrDoc, max: usize, report: &mut CheckReport) {
        let id: HashMap<&[u32], u32> =
            doc.chars.iter().enumerate().map(|(i, c)| (&c.cps[..], i as u32)).collect();
        // (from, to) -> the `when` / `not-when` of its mappings.
        type Contexts<'d> = Vec<(Option<&'d String>, Option<&'d String>)>;
        let mut contexts: HashMap<(u32, u32), Contexts<'_>> = HashMap::new();
        for (i, c) in doc.chars.iter().enumerate() {
            for v in &c.variants {
                if let Some(&t) = id.get(&v.cps[..]) {
                    contexts
                        .entry((i as u32, t))
                        .or_default()
                        .push((v.when.as_ref(), v.not_when.as_ref()));
                }
            }
        }
        for (i, a) in doc.chars.iter().enumerate() {
            for b in &a.variants {
                let w = match id.get(&b.cps[..]) {
                    None => Some(Warning::TargetNotInRepertoire {
                        from: a.cps.clone(),
                        to: b.cps.clone(),
                        line: b.line,
                    }),
                    Some(&t) if !self.has(t, i as u32) => Some(Warning::Asymmetric {
                        from: a.cps.clone(),
                        to: b.cps.clone(),
                        line: b.line,
                    }),
                    Some(&t) => {
                        let reverse = contexts.get(&(t, i as u32)).map_or(&[][..], |v| &v[..]);
                        let missing = if let Some(w) = &b.when {
                            (!reverse.iter().any(|r| r.0 == Some(w)))
                                .then(|| (ContextKind::When, w.clone()))
                        } else if let Some(n) = &b.not_when {
                            (!reverse.iter().any(|r| r.1 == Some(n)))
                                .then(|| (ContextKind::NotWhen, n.clone()))
                        } else {
                            None
                        };
                        missing.map(|(kind, rule)| Warning::ContextAsymmetric {
                            from: a.cps.clone(),
                            to: b.cps.clone(),
                            kind,
                            rule,
                            line: b.line,
                        })
                    }
                };
                if let Some(w) = w {
                    report.total += 1;
                    if report.listed.len() < max {
                        report.listed.push(w);
                    }
                }
            }
        }
    }

    /// Per element, its count of [`Warning::NonTransitive`]; adds them to
    /// `report.total`.
    ///
    /// An element `a` lacks each `c` that a variant of `a` maps to, outside
    /// `C` = `a` and its variants. That set depends on `C` only (the
    /// mappings of `a` itself stay inside `C`), so it is counted once per
    /// distinct `C`: the targets of the members of `C` with the most
    /// targets are counted against `C` by looking `C` up in them, the
    /// others by marking.
    fn transitive_counts(&self, report: &mut CheckReport) -> Vec<u64> {
        let mut counts = vec![0u64; self.elements];
        let mut by_set: HashMap<Vec<u32>, u64> = HashMap::new();
        let ids = self.elements + self.targets.iter().flatten().count() + 1;
        let mut stamp = vec![u32::MAX; ids];
        let mut steps = 0u64;
        for a in 0..self.elements {
            if self.targets[a].is_empty() {
                continue;
            }
            let mut set = self.targets[a].clone();
            if let Err(at) = set.binary_search(&(a as u32)) {
                set.insert(at, a as u32);
            }
            if let Some(&n) = by_set.get(&set) {
                counts[a] = n;
                report.total += n;
                continue;
            }
            let members: Vec<usize> =
                set.iter().map(|&m| m as usize).filter(|&m| m < self.elements).collect();
            let Some(&big) = members.iter().max_by_key(|&&m| self.targets[m].len()) else {
                continue;
            };
            steps += set.len() as u64;
            let in_big = set.iter().filter(|&&m| self.has(big as u32, m)).count();
            let mut n = (self.targets[big].len() - in_big) as u64;
            let mark = by_set.len() as u32;
            for &m in &members {
                if m == big {
                    continue;
                }
                steps += self.targets[m].len() as u64;
                for &c in &self.targets[m] {
                    let new = set.binary_search(&c).is_err()
                        && !self.has(big as u32, c)
                        && stamp[c as usize] != mark;
                    if new {
                        stamp[c as usize] = mark;
                        n += 1;
                    }
                }
            }
            if steps > MAX_CHECK_STEPS {
                report.complete = false;
                report.total += n;
                return counts;
            }
            by_set.insert(set, n);
            counts[a] = n;
            report.total += n;
        }
        counts
    }
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

    /// Random relations on a few elements (some targets outside the
    /// repertoire, some mappings conditional): the bounded check lists
    /// the same warnings as [`check`], in its order, and counts them all.
    #[test]
    fn bounded_check_agrees_with_the_full_one() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let mut nonzero = 0;
        for round in 0..400 {
            let elements = 1 + next(7) as u32;
            let rules = ["r", "s"];
            let mut data = String::new();
            for e in 0..elements {
                let mut vars = String::new();
                let mut seen = HashSet::new();
                for _ in 0..next(5) {
                    let t = 0x61 + next(elements as u64 + 2) as u32;
                    let ctx = match next(6) {
                        0 => format!(" when=\"{}\"", rules[next(2) as usize]),
                        1 => format!(" not-when=\"{}\"", rules[next(2) as usize]),
                        _ => String::new(),
                    };
                    if seen.insert((t, ctx.clone())) {
                        vars.push_str(&format!("<var cp=\"{t:04X}\"{ctx}/>"));
                    }
                }
                data.push_str(&format!("<char cp=\"{:04X}\">{vars}</char>", 0x61 + e));
            }
            let l = lgr(&data);
            let all = check(l.doc());
            nonzero += usize::from(!all.is_empty());
            let full = check_bounded(l.doc(), usize::MAX);
            assert_eq!(full.listed, all, "round {round}: {data}");
            assert_eq!((full.total, full.complete), (all.len() as u64, true), "{data}");
            let k = next(4) as usize;
            let some = check_bounded(l.doc(), k);
            assert_eq!(some.listed[..], all[..k.min(all.len())], "round {round}: {data}");
            assert_eq!(some.total, all.len() as u64);
        }
        assert!(nonzero > 200, "{nonzero}");
    }

    /// 500 elements, each a variant of all others: [`check`] takes
    /// 1.25 * 10^8 steps to find nothing wrong (10^9, 39 s in a release
    /// build, for 1,000).
    #[test]
    fn bounded_check_of_a_large_clique_is_quick() {
        use crate::lgr::model::VarDef;
        let n = 500u32;
        let mut doc = LgrDoc::default();
        for i in 0..n {
            let variants = (0..n)
                .filter(|&j| j != i)
                .map(|j| VarDef {
                    cps: vec![0x4E00 + j],
                    typ: None,
                    when: None,
                    not_when: None,
                    comment: None,
                    line: 1,
                })
                .collect();
            doc.chars.push(CharDef {
                cps: vec![0x4E00 + i],
                when: None,
                not_when: None,
                tags: Vec::new(),
                comment: None,
                variants,
                from_range: false,
                line: 1,
            });
        }
        let t = std::time::Instant::now();
        let r = check_bounded(&doc, 50);
        assert_eq!((r.total, r.complete, r.listed.len()), (0, true, 0));
        assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
        // One mapping less: 2 warnings (asymmetry, and the missing pair).
        doc.chars[0].variants.pop();
        let r = check_bounded(&doc, 50);
        assert_eq!((r.total, r.complete), (2, true), "{:?}", r.listed);
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

//! Merging a set of LGRs into one, for collision checks across scripts
//! (RFC 7940 §8.5 index labels over the union of several LGRs).
//!
//! The semantics are those of ICANN's lgr-core `merge_set`, which made the
//! "common" second-level and root-zone LGRs:
//!
//! * members are taken in the order of their first `<language>` tag, with
//!   `und-` tags after the others;
//! * the repertoire is the union of the members' repertoires. A code point
//!   listed by several members keeps the union of their tags and variants;
//!   when two members give it different variants, those variants are made
//!   variants of each other ("to keep transitivity");
//! * every variant becomes `blocked`: in a merged LGR a variant only says
//!   that two labels must not both be delegated;
//! * each member's rules and classes are kept apart by prefixing their
//!   names with the member's tag (`Deva--digit-mixing`; `und-` is dropped),
//!   and so are its tags (except `sc:Deva`-style tags, which have a `:`).
//!   The rule every MSR-based LGR shares, `leading-combining-mark`, is kept
//!   once as `Common--leading-combining-mark`;
//! * a context rule (`when` / `not-when`) on a code point several members
//!   list must have the same name in each; the last member's rule is used;
//! * the actions are the members' actions in member order, without copies
//!   of RFC 7940 §7.3's default actions (which follow at the end anyway).
//!
//! lgr-core additionally tags code points with their Unicode script
//! extensions; no rule of a member can refer to those tags (member tags are
//! prefixed), so they are left out here.

use super::Lgr;
use super::model::*;
use crate::error::LgrError;
use std::collections::HashMap;

/// Rules defined alike by every LGR built on the Maximal Starting
/// Repertoire, merged once under [`COMMON_PREFIX`].
const SHARED_RULES: [&str; 1] = ["leading-combining-mark"];

/// The prefix of [`SHARED_RULES`] in a merged LGR.
const COMMON_PREFIX: &str = "Common--";

/// A code point or sequence.
type Seq = Vec<Cp>;

/// The variant type every variant gets in a merged LGR.
const MERGED_TYPE: &str = "blocked";

/// The names one member's rules, classes and tags get in the merged LGR.
struct Renamer {
    prefix: String,
}

impl Renamer {
    fn rule(&self, n: &str) -> String {
        if SHARED_RULES.contains(&n) {
            format!("{COMMON_PREFIX}{n}")
        } else {
            format!("{}{n}", self.prefix)
        }
    }

    fn class(&self, n: &str) -> String {
        format!("{}{n}", self.prefix)
    }

    fn tag(&self, t: &str) -> String {
        if t.contains(':') { t.to_string() } else { format!("{}{t}", self.prefix) }
    }

    fn opt_rule(&self, n: &Option<String>) -> Option<String> {
        n.as_deref().map(|n| self.rule(n))
    }

    fn expr(&self, e: &ClassExpr) -> ClassExpr {
        let all = |v: &[ClassExpr]| v.iter().map(|x| self.expr(x)).collect();
        match e {
            ClassExpr::Ref(n) => ClassExpr::Ref(self.class(n)),
            ClassExpr::Tag(t) => ClassExpr::Tag(self.tag(t)),
            ClassExpr::Property(..) | ClassExpr::Ranges(_) => e.clone(),
            ClassExpr::Union(v) => ClassExpr::Union(all(v)),
            ClassExpr::Complement(x) => ClassExpr::Complement(Box::new(self.expr(x))),
            ClassExpr::Intersection(v) => ClassExpr::Intersection(all(v)),
            ClassExpr::Difference(v) => ClassExpr::Difference(all(v)),
            ClassExpr::SymmetricDifference(v) => ClassExpr::SymmetricDifference(all(v)),
        }
    }

    fn matcher(&self, m: &Matcher) -> Matcher {
        let all = |v: &[Matcher]| v.iter().map(|x| self.matcher(x)).collect();
        match m {
            Matcher::RuleRef(n, c) => Matcher::RuleRef(self.rule(n), *c),
            Matcher::Class(e, c) => Matcher::Class(self.expr(e), *c),
            Matcher::Seq(v, c) => Matcher::Seq(all(v), *c),
            Matcher::Choice(v, c) => Matcher::Choice(all(v), *c),
            Matcher::LookAhead(v) => Matcher::LookAhead(all(v)),
            Matcher::LookBehind(v) => Matcher::LookBehind(all(v)),
            Matcher::Start
            | Matcher::End
            | Matcher::Anchor
            | Matcher::Any(_)
            | Matcher::Char(..) => m.clone(),
        }
    }

    fn var(&self, v: &VarDef) -> VarDef {
        VarDef {
            cps: v.cps.clone(),
            typ: Some(MERGED_TYPE.to_string()),
            when: self.opt_rule(&v.when),
            not_when: self.opt_rule(&v.not_when),
            comment: v.comment.clone(),
            line: v.line,
        }
    }
}

/// The member's first language tag, or "".
/// The order [`merge`] takes `set` in (indexes into it): by the first
/// `<language>` tag, `und-` tags after the others, ties in the order given.
/// The merge depends on this order only, so two sets in different orders
/// that sort alike give the same merged LGR (and digest, see
/// [`crate::report::meta::merged_digest`]).
pub fn merge_order(set: &[&Lgr]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..set.len()).collect();
    order.sort_by_key(|&i| tag_of(set[i]).replace("und-", "zzz"));
    order
}

fn tag_of(lgr: &Lgr) -> &str {
    lgr.doc().meta.languages.first().map(String::as_str).unwrap_or("")
}

/// Is `a` one of the five default actions of RFC 7940 §7.3 (compared as
/// lgr-core does: disposition, rules and variant condition)?
fn is_default_action(a: &ActionDef) -> bool {
    if a.match_rule.is_some() || a.not_match_rule.is_some() {
        return false;
    }
    let one = |v: &[String], t: &str| v.iter().all(|x| x == t) && !v.is_empty();
    match (&a.variants, a.disp.as_str()) {
        (None, "valid") => true,
        (Some(VariantCond::Any(v)), d @ ("invalid" | "blocked" | "allocatable")) => one(v, d),
        (Some(VariantCond::All(v)), "activated") => one(v, "activated"),
        _ => false,
    }
}

/// A variant's identity for merging: code points and context rule names
/// (lgr-core's `Variant.__eq__`).
fn var_key(v: &VarDef) -> (&[Cp], Option<&str>, Option<&str>) {
    (&v.cps, v.when.as_deref(), v.not_when.as_deref())
}

/// Merges a set of LGRs into one LGR (see the module documentation), as
/// ICANN's lgr-core `merge_set` does. The result judges labels against the
/// union of the members and gives labels that are variants across members
/// (ASCII `123`, Devanagari `१२३`, Khmer `១២៣`) the same index label
/// (RFC 7940 §8.5).
///
/// # Errors
/// An empty set; a code point that two members give context rules
/// (RFC 7940 §5.2) of different names; and whatever compiling the merged
/// document reports.
///
/// # Example
/// ```
/// use lgrscan::lgr::{Lgr, merge};
/// let a = Lgr::from_xml("a", r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0">
///   <meta><language>und-Latn</language></meta><data>
///   <char cp="0031"/></data></lgr>"#)?;
/// let b = Lgr::from_xml("b", r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0">
///   <meta><language>und-Deva</language></meta><data>
///   <char cp="0031"><var cp="0967"/></char><char cp="0967"><var cp="0031"/></char>
///   </data></lgr>"#)?;
/// let m = merge(&[&a, &b])?;
/// assert_eq!(m.index_label(&[0x0967]), Some(vec![0x0031]));
/// # Ok::<(), lgrscan::LgrError>(())
/// ```
pub fn merge(set: &[&Lgr]) -> Result<Lgr, LgrError> {
    if set.is_empty() {
        return Err(LgrError::new("cannot merge an empty set of LGRs"));
    }
    let members: Vec<&Lgr> = merge_order(set).into_iter().map(|i| set[i]).collect();

    let mut m = Merger::default();
    let mut used_prefixes: Vec<String> = Vec::new();
    for (i, lgr) in members.iter().enumerate() {
        let tag = tag_of(lgr);
        let mut p = tag.strip_prefix("und-").unwrap_or(tag).to_string();
        if p.is_empty() {
            p = format!("lgr{}", i + 1);
        }
        if used_prefixes.contains(&p) {
            p = format!("{p}{}", i + 1);
        }
        used_prefixes.push(p.clone());
        let r = Renamer { prefix: format!("{p}--") };
        m.add_meta(&lgr.doc().meta);
        m.add_chars(lgr, &r)?;
        m.add_rules(lgr.doc(), &r);
    }
    m.keep_transitivity();

    let mut out = m.out;
    if !m.versions.is_empty() {
        out.meta.version = Some(m.versions.join("|"));
    }
    let names: Vec<&str> = members.iter().map(|l| l.name()).collect();
    out.meta.description = Some(format!("Merge of {}", names.join(", ")));
    let name = format!("merged({})", names.join("+"));
    Lgr::compile(&name, out)
}

/// The merged document being built, member by member.
#[derive(Default)]
struct Merger<'a> {
    out: LgrDoc,
    /// Index in `out.chars` of each element.
    at: HashMap<Vec<Cp>, usize>,
    /// Unprefixed `when` / `not-when` names of each merged char, with the
    /// name of the member that gave each.
    base_ctx: Vec<[Option<(String, &'a str)>; 2]>,
    /// Variant sets two members disagree on, to be made variants of each
    /// other.
    transitive: Vec<(Vec<Seq>, Vec<Seq>)>,
    versions: Vec<String>,
}

impl<'a> Merger<'a> {
    /// Languages, scopes and versions of all members; the highest Unicode
    /// version.
    fn add_meta(&mut self, meta: &Meta) {
        let out = &mut self.out.meta;
        for l in &meta.languages {
            if !out.languages.contains(l) {
                out.languages.push(l.clone());
            }
        }
        for s in &meta.scopes {
            if !out.scopes.contains(s) {
                out.scopes.push(s.clone());
            }
        }
        if let Some(v) = &meta.version
            && !self.versions.contains(v)
        {
            self.versions.push(v.clone());
        }
        if let Some(u) = &meta.unicode_version {
            let key =
                |s: &str| s.split('.').map(|x| x.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>();
            if out.unicode_version.as_deref().is_none_or(|o| key(u) > key(o)) {
                out.unicode_version = Some(u.clone());
            }
        }
    }

    /// The repertoire of `lgr`, its names renamed by `r`: a new element is
    /// added; a known one gains the tags and variants it lacks.
    ///
    /// # Errors
    /// An element whose context rules differ between members.
    fn add_chars(&mut self, lgr: &'a Lgr, r: &Renamer) -> Result<(), LgrError> {
        for c in &lgr.doc().chars {
            let tags: Vec<String> = c.tags.iter().map(|t| r.tag(t)).collect();
            let vars: Vec<VarDef> = c.variants.iter().map(|v| r.var(v)).collect();
            let Some(&ei) = self.at.get(&c.cps) else {
                self.at.insert(c.cps.clone(), self.out.chars.len());
                let from = |n: &Option<String>| n.clone().map(|n| (n, lgr.name()));
                self.base_ctx.push([from(&c.when), from(&c.not_when)]);
                self.out.chars.push(CharDef {
                    cps: c.cps.clone(),
                    when: r.opt_rule(&c.when),
                    not_when: r.opt_rule(&c.not_when),
                    tags,
                    comment: c.comment.clone(),
                    variants: vars,
                    from_range: c.from_range,
                    line: c.line,
                });
                continue;
            };
            let e = &mut self.out.chars[ei];
            for t in tags {
                if !e.tags.contains(&t) {
                    e.tags.push(t);
                }
            }
            let new: Vec<VarDef> = vars
                .iter()
                .filter(|v| !e.variants.iter().any(|x| var_key(x) == var_key(v)))
                .cloned()
                .collect();
            let old: Vec<Vec<Cp>> = e
                .variants
                .iter()
                .filter(|x| !vars.iter().any(|v| var_key(x) == var_key(v)))
                .map(|x| x.cps.clone())
                .collect();
            let drop_reflexive = |mut v: Vec<Vec<Cp>>| {
                if let Some(k) = v.iter().position(|x| *x == c.cps) {
                    v.remove(k);
                }
                v
            };
            let (n1, n2) =
                (drop_reflexive(new.iter().map(|v| v.cps.clone()).collect()), drop_reflexive(old));
            if !n1.is_empty() && !n2.is_empty() {
                self.transitive.push((n1, n2));
            }
            e.variants.extend(new);

            let slots = &mut self.base_ctx[ei];
            for (k, (got, attr)) in
                [(&c.when, "when"), (&c.not_when, "not-when")].into_iter().enumerate()
            {
                let Some(got) = got else { continue };
                if let Some((have, other)) = &slots[k]
                    && have != got
                {
                    return Err(LgrError::new(format!(
                        "cannot merge: {} has {attr} rule '{got}' here and '{have}' in {other}",
                        super::fmt_cps(&c.cps)
                    ))
                    .with_path(lgr.name())
                    .at(c.line, 0)
                    .element(if c.from_range { "range" } else { "char" }));
                }
                slots[k] = Some((got.clone(), lgr.name()));
                let renamed = Some(r.rule(got));
                if k == 0 { e.when = renamed } else { e.not_when = renamed }
            }
        }
        Ok(())
    }

    /// The actions (but the defaults), rules and classes of `doc`, renamed
    /// by `r`; a rule two members share is merged once.
    fn add_rules(&mut self, doc: &LgrDoc, r: &Renamer) {
        let out = &mut self.out;
        for a in doc.actions.iter().filter(|a| !is_default_action(a)) {
            out.actions.push(ActionDef {
                match_rule: r.opt_rule(&a.match_rule),
                not_match_rule: r.opt_rule(&a.not_match_rule),
                ..a.clone()
            });
        }
        for rule in &doc.rules {
            let name = r.rule(&rule.name);
            if out.rules.iter().any(|x| x.name == name) {
                continue; // a shared rule, merged once
            }
            out.rules.push(RuleDef {
                name,
                body: rule.body.iter().map(|m| r.matcher(m)).collect(),
                comment: rule.comment.clone(),
                line: rule.line,
            });
        }
        for class in &doc.classes {
            out.classes.push(ClassDef {
                name: r.class(&class.name),
                expr: r.expr(&class.expr),
                line: class.line,
            });
        }
    }

    /// Makes the variant sets two members disagreed on variants of each
    /// other (type [`MERGED_TYPE`]), so that the relation stays transitive.
    fn keep_transitivity(&mut self) {
        for (l1, l2) in &self.transitive {
            for v1 in l1 {
                for v2 in l2 {
                    for (x, y) in [(v1, v2), (v2, v1)] {
                        let Some(&i) = self.at.get(x) else { continue };
                        let c = &mut self.out.chars[i];
                        if c.variants
                            .iter()
                            .any(|v| v.cps == *y && v.when.is_none() && v.not_when.is_none())
                        {
                            continue;
                        }
                        c.variants.push(VarDef {
                            cps: y.clone(),
                            typ: Some(MERGED_TYPE.to_string()),
                            when: None,
                            not_when: None,
                            comment: Some("New variant for merge to keep transitivity".into()),
                            line: 0,
                        });
                    }
                }
            }
        }
    }
}

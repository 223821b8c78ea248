//! Compiling an LGR document into an [`Lgr`]: names, repertoire, classes
//! and rules (RFC 7940 §5–§6), actions (§7), and the tables evaluation
//! reads (elements by first code point, rule masks by code point, ASCII
//! classes).

use super::model::*;
use super::rules::{self, CompiledRule};
use super::{ABSENT, fmt_cps, props, refgraph};
use super::{Action, Char, CharMeta, Cond, CpMap, CpSet, Ctx, IndexMode, Lgr, TypeSet, Var};
use crate::error::LgrError;
use std::cell::RefCell;
use std::collections::HashMap;

/// The five default actions RFC 7940 §7.3 appends to every LGR, with the
/// comments the reference implementation gives them.
/// (disposition, comment, variant condition).
type DefaultAction = (&'static str, &'static str, Option<(&'static str, &'static str)>);

const DEFAULT_ACTIONS: [DefaultAction; 5] = [
    ("invalid", "Default action for invalid", Some(("any-variant", "invalid"))),
    ("blocked", "Default action for blocked", Some(("any-variant", "blocked"))),
    ("allocatable", "Default action for allocatable", Some(("any-variant", "allocatable"))),
    ("activated", "Default action for activated", Some(("all-variants", "activated"))),
    ("valid", "Default catch-all", None),
];

impl Lgr {
    /// [`Lgr::compile`]; `lazy`: the rules' automata are built on first use.
    pub(super) fn compile_with(name: &str, doc: LgrDoc, lazy: bool) -> Result<Lgr, LgrError> {
        let (rule_ids, class_ids) = names(&doc)?;
        let mut types = Types(vec![String::new()]);
        let (chars, tag_sets) = repertoire(&doc, &rule_ids, &mut types)?;
        let by_first = by_first(&chars);

        // Classes and rules.
        let tags: HashMap<String, CpSet> =
            tag_sets.into_iter().map(|(k, v)| (k.to_string(), CpSet::from_ranges(v))).collect();
        let resolver = ClassResolver {
            doc: &doc,
            class_ids: &class_ids,
            rule_ids: &rule_ids,
            tags: &tags,
            memo: RefCell::new(HashMap::new()),
            stack: RefCell::new(Vec::new()),
        };
        let class_order = refgraph::class_order(&doc, &class_ids).map_err(|(c, msg)| {
            let c = &doc.classes[c];
            LgrError::new(format!("class '{}': {msg}", c.name))
                .at(c.line, 0)
                .element(c.expr.element_name())
        })?;
        for c in class_order.into_iter().map(|c| &doc.classes[c]) {
            resolver.named(&c.name).map_err(|e| {
                let msg = format!("class '{}': {}", c.name, e.message);
                LgrError::new(msg).at(c.line, 0).element(c.expr.element_name())
            })?;
        }
        let used = refgraph::used_rules(&doc, &rule_ids);
        let CompiledRules { compiled, keys: rule_keys, required: rule_required, terms: rule_terms } =
            compile_rules(&doc, &resolver, &rule_ids, &used, lazy)?;

        let (actions, n_doc_actions) = actions(&doc, &rule_ids, &mut types)?;
        let rule_names = doc.rules.iter().map(|r| r.name.clone()).collect();
        let ascii_classes = ascii_classes(&doc, &resolver, &chars, &by_first)?;
        drop(resolver);
        let (first_pages, first_tab, first_flat) = first_table(&by_first);
        let req_masks = ReqMasks::new(&rule_required, &chars);
        let (term_sets, term_masks, rule_alts) = term_table(&rule_terms, &chars);
        let has_reflexive = chars.iter().any(|c| !c.reflexive.is_empty());
        let meta = chars
            .iter()
            .map(|c| CharMeta {
                len: u16::try_from(c.cps.len()).unwrap_or(u16::MAX),
                has_smaller: c.smaller > 0,
                ctx_smaller: c.vars[..c.smaller].iter().any(|v| v.ctx != Ctx::None),
                ctx: c.ctx,
            })
            .collect();
        Ok(Lgr {
            name: name.to_string(),
            doc,
            chars,
            meta,
            first_pages,
            first_tab,
            first_flat,
            rules: compiled,
            rule_keys,
            rule_required,
            req_masks,
            term_masks,
            term_sets,
            rule_alts,
            has_reflexive,
            rule_names,
            types: types.0,
            actions,
            n_doc_actions,
            index_mode: IndexMode::default(),
            ascii_classes,
        })
    }
}

/// The rules' and the classes' indices by name.
///
/// # Errors
/// A name defined twice, naming both lines.
#[allow(clippy::type_complexity)]
fn names(doc: &LgrDoc) -> Result<(HashMap<&str, u32>, HashMap<&str, usize>), LgrError> {
    let mut rule_ids: HashMap<&str, u32> = HashMap::new();
    for (i, r) in doc.rules.iter().enumerate() {
        if let Some(j) = rule_ids.insert(&r.name, i as u32) {
            let first = doc.rules[j as usize].line;
            return Err(line_err(
                r.line,
                "rule",
                format!("duplicate rule name '{}' (first on line {first})", r.name),
            ));
        }
    }
    let mut class_ids: HashMap<&str, usize> = HashMap::new();
    for (i, c) in doc.classes.iter().enumerate() {
        if let Some(j) = class_ids.insert(&c.name, i) {
            let first = doc.classes[j].line;
            return Err(line_err(
                c.line,
                c.expr.element_name(),
                format!("duplicate class name '{}' (first on line {first})", c.name),
            ));
        }
    }
    Ok((rule_ids, class_ids))
}

/// The context of an element or variant (RFC 7940 §5.2) from its `when`
/// and `not-when` attributes.
///
/// # Errors
/// A context rule that is not defined.
fn ctx_of(
    rule_ids: &HashMap<&str, u32>,
    when: &Option<String>,
    not_when: &Option<String>,
    line: u32,
    el: &str,
) -> Result<Ctx, LgrError> {
    let look = |n: &str, attr: &str| {
        rule_ids.get(n).copied().ok_or_else(|| {
            line_err(line, el, format!("context rule '{n}' ({attr}) is not defined"))
        })
    };
    // The reference implementation tests `when` and ignores `not-when`
    // when both are given (both are still checked).
    if let (Some(_), Some(n)) = (when, not_when) {
        look(n, "not-when")?;
    }
    Ok(match (when, not_when) {
        (Some(w), _) => Ctx::When(look(w, "when")?),
        (None, Some(n)) => Ctx::NotWhen(look(n, "not-when")?),
        (None, None) => Ctx::None,
    })
}

/// An error at `line` of element `el`.
fn line_err(line: u32, el: &str, msg: String) -> LgrError {
    LgrError::new(msg).at(line, 0).element(el)
}

/// The variant types met so far, a bit each (RFC 7940 §5.3; index 0 is
/// an untyped variant).
struct Types(Vec<String>);

impl Types {
    /// The bit of type `t`, given one if it is new.
    ///
    /// # Errors
    /// More than 63 distinct types.
    fn bit(&mut self, t: &str, line: u32, el: &str) -> Result<TypeSet, LgrError> {
        let i = match self.0.iter().position(|x| x == t) {
            Some(i) => i,
            None => {
                self.0.push(t.to_string());
                self.0.len() - 1
            }
        };
        if i >= 64 {
            return Err(line_err(line, el, "more than 63 distinct variant types".into()));
        }
        Ok(1u64 << i)
    }
}

/// The repertoire (RFC 7940 §5): each element with its variants sorted by
/// code points and its context, and the code points of each tag.
///
/// # Errors
/// An element or variant defined twice, an undefined context rule, more
/// than 63 variant types.
#[allow(clippy::type_complexity)]
fn repertoire<'d>(
    doc: &'d LgrDoc,
    rule_ids: &HashMap<&str, u32>,
    types: &mut Types,
) -> Result<(Vec<Char>, HashMap<&'d str, Vec<(u32, u32)>>), LgrError> {
    let mut chars = Vec::with_capacity(doc.chars.len());
    let mut seen: HashMap<&[u32], u32> = HashMap::with_capacity(doc.chars.len());
    let mut tag_sets: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
    for (ci, c) in doc.chars.iter().enumerate() {
        if let Some(first) = seen.insert(&c.cps, ci as u32) {
            let first = doc.chars[first as usize].line;
            return Err(line_err(
                c.line,
                if c.from_range { "range" } else { "char" },
                format!("code point {} is defined twice (first on line {first})", fmt_cps(&c.cps)),
            ));
        }
        for t in &c.tags {
            let e = tag_sets.entry(t).or_default();
            e.extend(c.cps.iter().map(|&x| (x, x)));
        }
        let mut vars: Vec<(usize, &VarDef)> = c.variants.iter().enumerate().collect();
        let mut dup = std::collections::HashSet::new();
        for (_, v) in &vars {
            if !dup.insert((&v.cps[..], &v.when, &v.not_when)) {
                return Err(line_err(
                    v.line,
                    "var",
                    format!("variant {} of {} is defined twice", fmt_cps(&v.cps), fmt_cps(&c.cps)),
                ));
            }
        }
        vars.sort_by(|a, b| a.1.cps.cmp(&b.1.cps).then(a.0.cmp(&b.0)));
        let mut cv = Vec::with_capacity(vars.len());
        let mut reflexive = Vec::new();
        for (_, v) in vars {
            let typ = match &v.typ {
                Some(t) => types.bit(t, v.line, "var")?,
                None => 1,
            };
            if v.cps == c.cps {
                reflexive.push(cv.len() as u16);
            }
            cv.push(Var {
                cps: v.cps.clone().into(),
                typ,
                ctx: ctx_of(rule_ids, &v.when, &v.not_when, v.line, "var")?,
            });
        }
        chars.push(Char {
            cps: c.cps.clone().into(),
            ctx: ctx_of(
                rule_ids,
                &c.when,
                &c.not_when,
                c.line,
                if c.from_range { "range" } else { "char" },
            )?,
            smaller: cv.iter().take_while(|v| v.cps[..] < c.cps[..]).count(),
            vars: cv,
            reflexive,
        });
    }
    Ok((chars, tag_sets))
}

/// The elements by first code point, longest first.
fn by_first(chars: &[Char]) -> CpMap<Box<[u32]>> {
    let mut by_first_v: CpMap<Vec<u32>> = CpMap::default();
    for (i, c) in chars.iter().enumerate() {
        by_first_v.entry(c.cps[0]).or_default().push(i as u32);
    }
    let mut by_first: CpMap<Box<[u32]>> = CpMap::default();
    for (k, mut v) in by_first_v {
        v.sort_by_key(|&i| std::cmp::Reverse(chars[i as usize].cps.len()));
        by_first.insert(k, v.into());
    }

    by_first
}

/// The actions (RFC 7940 §7), then the defaults of §7.3, with their reason
/// texts; and how many the document gives.
///
/// # Errors
/// An action referring to an undefined rule, more than 63 variant types.
fn actions(
    doc: &LgrDoc,
    rule_ids: &HashMap<&str, u32>,
    types: &mut Types,
) -> Result<(Vec<Action>, usize), LgrError> {
    let mut actions = Vec::with_capacity(doc.actions.len() + 5);
    let n_doc_actions = doc.actions.len();
    let defaults: Vec<ActionDef> = DEFAULT_ACTIONS
        .iter()
        .map(|(d, c, v)| ActionDef {
            disp: d.to_string(),
            match_rule: None,
            not_match_rule: None,
            variants: v.map(|(k, t)| match k {
                "any-variant" => VariantCond::Any(vec![t.to_string()]),
                _ => VariantCond::All(vec![t.to_string()]),
            }),
            comment: Some(c.to_string()),
            line: 0,
        })
        .collect();
    for (idx, a) in doc.actions.iter().chain(defaults.iter()).enumerate() {
        let rule = |n: &Option<String>| -> Result<Option<u32>, LgrError> {
            match n {
                None => Ok(None),
                Some(n) => rule_ids.get(n.as_str()).copied().map(Some).ok_or_else(|| {
                    let attr = if a.match_rule.as_ref() == Some(n) { "match" } else { "not-match" };
                    line_err(
                        a.line,
                        "action",
                        format!("action refers to undefined rule '{n}' ({attr})"),
                    )
                }),
            }
        };
        let mut set = |ts: &[String]| -> Result<TypeSet, LgrError> {
            let mut s = 0;
            for t in ts {
                s |= types.bit(t, a.line, "action")?;
            }
            Ok(s)
        };
        let (cond, cond_text) = match &a.variants {
            None => (None, String::new()),
            Some(VariantCond::Any(t)) => {
                (Some(Cond::Any(set(t)?)), format!(" any-variant={}", t.join(",")))
            }
            Some(VariantCond::All(t)) => {
                (Some(Cond::All(set(t)?)), format!(" all-variants={}", t.join(",")))
            }
            Some(VariantCond::Only(t)) => {
                (Some(Cond::Only(set(t)?)), format!(" only-variants={}", t.join(",")))
            }
        };
        let mut reason = format!(
            "action {idx}{}: disp={}",
            if idx >= n_doc_actions { " (default action)" } else { "" },
            a.disp
        );
        if let Some(m) = &a.match_rule {
            reason.push_str(&format!(" match={m}"));
        }
        if let Some(m) = &a.not_match_rule {
            reason.push_str(&format!(" not-match={m}"));
        }
        reason.push_str(&cond_text);
        // An action without a comment says nothing more (not `""`).
        if let Some(c) = &a.comment {
            reason.push_str(&format!(" \"{c}\""));
        }
        actions.push(Action {
            disp: a.disp.clone(),
            match_rule: rule(&a.match_rule)?,
            not_match_rule: rule(&a.not_match_rule)?,
            cond,
            reason,
        });
    }
    Ok((actions, n_doc_actions))
}

/// Per code point, the rules whose required set (`Lgr::rule_required`)
/// contains it, as a bit per such rule (see [`ReqMasks::bit`]): a label's
/// mask, the or of its code points', says at once which rules it cannot
/// match, instead of a search of each set for each code point. Tabled for
/// the pages of 256 code points of the repertoire, as [`Lgr::chars_from`]'s
/// table, through the few distinct masks (ICANN's common LGR: 49 rules
/// with a required set, 195 pages, 53 masks); computed from the sets for
/// other code points. Not `usable` when more than 64 rules have a required
/// set.
#[derive(Debug, Default)]
pub(crate) struct ReqMasks {
    pub(crate) usable: bool,
    /// Per rule, its bit in the masks (rules with a required set only).
    bits: Vec<u8>,
    /// Per page of the repertoire, 0 or one more than its slot in `tab`.
    pages: Vec<u32>,
    /// Per slot and code point of the page, the index of its mask.
    tab: Vec<u16>,
    masks: Vec<u64>,
}

impl ReqMasks {
    fn new(req: &[Option<CpSet>], chars: &[Char]) -> ReqMasks {
        if req.iter().filter(|r| r.is_some()).count() > 64 {
            return ReqMasks::default();
        }
        let mut bits = vec![u8::MAX; req.len()];
        for (b, r) in (0..req.len()).filter(|&r| req[r].is_some()).enumerate() {
            bits[r] = b as u8;
        }
        let mut pages: Vec<u32> = Vec::new();
        let mut n = 0usize;
        for &cp in chars.iter().flat_map(|c| c.cps.iter()) {
            let p = (cp >> 8) as usize;
            if pages.len() <= p {
                pages.resize(p + 1, 0);
            }
            if pages[p] == 0 {
                n += 1;
                pages[p] = n as u32;
            }
        }
        // The masks of the tabled code points, from each set's ranges.
        let mut full = vec![0u64; n * 256];
        for (set, &b) in req.iter().zip(&bits) {
            let Some(set) = set.as_ref().filter(|_| n > 0) else { continue };
            for &(lo, hi) in set.ranges() {
                // The tabled pages the range spans, and its part in each.
                let last = (hi >> 8).min(pages.len() as u32 - 1);
                for p in (lo >> 8)..=last {
                    let slot = pages[p as usize];
                    if slot == 0 {
                        continue;
                    }
                    let base = ((slot - 1) as usize) << 8;
                    let (a, z) = (lo.max(p << 8) & 0xff, hi.min((p << 8) | 0xff) & 0xff);
                    for m in &mut full[base + a as usize..=base + z as usize] {
                        *m |= 1 << b;
                    }
                }
            }
        }
        let mut masks: Vec<u64> = Vec::new();
        let mut index: HashMap<u64, u16> = HashMap::new();
        let mut tab = Vec::with_capacity(full.len());
        for m in full {
            let k = match index.get(&m) {
                Some(&k) => k,
                None => {
                    let Ok(k) = u16::try_from(masks.len()) else {
                        return ReqMasks::default();
                    };
                    masks.push(m);
                    index.insert(m, k);
                    k
                }
            };
            tab.push(k);
        }
        ReqMasks { usable: true, bits, pages, tab, masks }
    }

    /// The mask of `cp` from the sets.
    fn compute(req: &[Option<CpSet>], bits: &[u8], cp: u32) -> u64 {
        req.iter()
            .zip(bits)
            .filter(|(s, _)| s.as_ref().is_some_and(|s| s.contains(cp)))
            .fold(0, |m, (_, &b)| m | 1 << b)
    }

    /// The bit of rule `r` in the masks (meaningless when not `usable`, or
    /// when the rule has no required set).
    #[inline]
    pub(crate) fn bit(&self, r: u32) -> u64 {
        match self.bits.get(r as usize) {
            Some(&b) if b < 64 => 1 << b,
            _ => 0,
        }
    }

    /// The mask of `cp` (meaningless when not `usable`); `req` is the
    /// `rule_required` it was built from.
    #[inline]
    pub(crate) fn get(&self, req: &[Option<CpSet>], cp: u32) -> u64 {
        match self.pages.get((cp >> 8) as usize) {
            Some(&p) if p > 0 => {
                self.masks[usize::from(self.tab[(((p - 1) as usize) << 8) | (cp & 0xff) as usize])]
            }
            _ => ReqMasks::compute(req, &self.bits, cp),
        }
    }
}

/// Per rule, the masks of the sets of each alternative of its terms.
pub(crate) type AltMasks = Vec<Option<Box<[u64]>>>;

/// The distinct sets of the rules' terms, their masks by code point, and
/// per rule the masks of its alternatives; no masks (not `usable`) when
/// there are more than 64 sets.
fn term_table(
    rule_terms: &[Option<rules::Terms>],
    chars: &[Char],
) -> (Vec<Option<CpSet>>, ReqMasks, AltMasks) {
    let none = || (Vec::new(), ReqMasks::default(), vec![None; rule_terms.len()]);
    // Each alternative as the mask of its sets' positions among the
    // distinct sets (at most 64: past that, no masks).
    let mut sets: Vec<Option<CpSet>> = Vec::new();
    let mut alts: AltMasks = Vec::with_capacity(rule_terms.len());
    for t in rule_terms {
        let Some(t) = t else {
            alts.push(None);
            continue;
        };
        let mut rule = Vec::with_capacity(t.len());
        for alt in t {
            let mut m = 0u64;
            for s in alt {
                let i = match sets.iter().position(|x| x.as_ref() == Some(s)) {
                    Some(i) => i,
                    None if sets.len() < 64 => {
                        sets.push(Some(s.clone()));
                        sets.len() - 1
                    }
                    None => return none(),
                };
                m |= 1 << i;
            }
            rule.push(m);
        }
        alts.push(Some(rule.into_boxed_slice()));
    }
    let masks = ReqMasks::new(&sets, chars);
    if !masks.usable {
        return none();
    }
    // Every set is `Some`, so set `i` has bit `i` in the masks.
    debug_assert!((0..sets.len() as u32).all(|i| masks.bit(i) == 1 << i));
    (sets, masks, alts)
}

/// The two-level form of `by_first` (see [`Lgr::chars_from`]).
fn first_table(by_first: &CpMap<Box<[u32]>>) -> (Vec<u32>, Vec<(u32, u32)>, Vec<u32>) {
    let mut firsts: Vec<u32> = by_first.keys().copied().collect();
    firsts.sort_unstable();
    let mut pages: Vec<u32> = Vec::new();
    let mut tab: Vec<(u32, u32)> = Vec::new();
    let mut flat = Vec::new();
    for cp in firsts {
        let p = (cp >> 8) as usize;
        if pages.len() <= p {
            pages.resize(p + 1, 0);
        }
        if pages[p] == 0 {
            tab.resize(tab.len() + 256, (0, 0));
            pages[p] = (tab.len() >> 8) as u32;
        }
        let a = flat.len() as u32;
        flat.extend_from_slice(&by_first[&cp]);
        tab[(((pages[p] - 1) << 8) | (cp & 0xff)) as usize] = (a, flat.len() as u32);
    }
    (pages, tab, flat)
}

/// Computes [`Lgr::ascii_classes`].
fn ascii_classes(
    doc: &LgrDoc,
    resolver: &ClassResolver<'_>,
    chars: &[Char],
    by_first: &CpMap<Box<[u32]>>,
) -> Result<[u16; 128], LgrError> {
    // The sets rules can tell code points apart by.
    fn walk(m: &[Matcher], r: &ClassResolver<'_>, atoms: &mut Vec<CpSet>) -> Result<(), LgrError> {
        for x in m {
            match x {
                Matcher::Class(e, _) => atoms.push(r.eval(e)?),
                Matcher::Char(cps, _) => {
                    atoms.extend(cps.iter().map(|&c| CpSet::from_ranges(vec![(c, c)])))
                }
                Matcher::Seq(s, _)
                | Matcher::Choice(s, _)
                | Matcher::LookAhead(s)
                | Matcher::LookBehind(s) => walk(s, r, atoms)?,
                _ => {}
            }
        }
        Ok(())
    }
    let mut atoms = Vec::new();
    for r in &doc.rules {
        walk(&r.body, resolver, &mut atoms)?;
    }
    // ASCII code points inside a sequence element: the text tells them
    // apart (`ab` may be an element where `ac` is not), so each keeps a
    // class of its own.
    let mut in_seq = [false; 128];
    for c in chars.iter().filter(|c| c.cps.len() > 1) {
        for &x in &c.cps {
            if let Some(slot) = in_seq.get_mut(x as usize) {
                *slot = true;
            }
        }
    }
    let mut out = [0u16; 128];
    let mut sigs: Vec<(Ctx, Vec<bool>)> = Vec::new();
    for cp in 0u32..128 {
        out[cp as usize] = if by_first.contains_key(&cp) { cp as u16 } else { ABSENT };
        let ids: Vec<&Char> = by_first
            .get(&cp)
            .map(|v| {
                v.iter()
                    .map(|&i| &chars[i as usize])
                    .filter(|c| c.cps.iter().all(|&x| x < 0x80))
                    .collect()
            })
            .unwrap_or_default();
        let [c] = ids[..] else { continue };
        if c.cps.len() != 1 || !c.reflexive.is_empty() || in_seq[cp as usize] {
            continue;
        }
        let sig = (c.ctx, atoms.iter().map(|a| a.contains(cp)).collect::<Vec<bool>>());
        let id = match sigs.iter().position(|s| *s == sig) {
            Some(i) => i,
            None => {
                sigs.push(sig);
                sigs.len() - 1
            }
        };
        out[cp as usize] = 128 + id as u16;
    }
    Ok(out)
}

/// The rules of an LGR, compiled (see [`compile_rules`]).
struct CompiledRules {
    compiled: Vec<CompiledRule>,
    keys: Vec<String>,
    required: Vec<Option<CpSet>>,
    terms: Vec<Option<rules::Terms>>,
}

/// Compiles the rules of `doc` after checking their expanded sizes
/// ([`refgraph::rule_bounds`]). Every rule is compiled, so that a rule
/// with an undefined reference or a bad structure is an error even when
/// nothing uses it; the automata of unused rules are never built, and
/// those of used ones are built now unless `lazy`.
///
/// # Errors
/// A rule over a limit, in a cycle, or that does not compile, naming it.
fn compile_rules(
    doc: &LgrDoc,
    resolver: &ClassResolver<'_>,
    rule_ids: &HashMap<&str, u32>,
    used: &[bool],
    lazy: bool,
) -> Result<CompiledRules, LgrError> {
    let rule_err = |r: &RuleDef, msg: &str| {
        LgrError::new(format!("rule '{}': {msg}", r.name)).at(r.line, 0).element("rule")
    };
    refgraph::rule_bounds(doc, rule_ids).map_err(|(r, msg)| rule_err(&doc.rules[r], &msg))?;
    let n = doc.rules.len();
    let budget = rules::AutomataBudget::new();
    let mut out = CompiledRules {
        compiled: Vec::with_capacity(n),
        keys: Vec::with_capacity(n),
        required: Vec::with_capacity(n),
        terms: Vec::with_capacity(n),
    };
    for (r, &used) in doc.rules.iter().zip(used) {
        let terms = if used {
            rules::required_terms(resolver, &r.name).map_err(|e| rule_err(r, &e.message))?
        } else {
            None
        };
        out.required.push(terms.as_ref().and_then(rules::one_set));
        out.terms.push(terms);
        let build_now = (!lazy && used).then_some(&budget);
        let (rule, key) =
            rules::compile(resolver, &r.name, build_now).map_err(|e| rule_err(r, &e.message))?;
        out.compiled.push(rule);
        out.keys.push(key);
    }
    Ok(out)
}

struct ClassResolver<'a> {
    doc: &'a LgrDoc,
    class_ids: &'a HashMap<&'a str, usize>,
    rule_ids: &'a HashMap<&'a str, u32>,
    tags: &'a HashMap<String, CpSet>,
    memo: RefCell<HashMap<String, CpSet>>,
    stack: RefCell<Vec<String>>,
}

impl ClassResolver<'_> {
    fn named(&self, name: &str) -> Result<CpSet, LgrError> {
        if let Some(s) = self.memo.borrow().get(name) {
            return Ok(s.clone());
        }
        let Some(&i) = self.class_ids.get(name) else {
            return Err(LgrError::new(format!("reference to undefined class '{name}'")));
        };
        if self.stack.borrow().iter().any(|n| n == name) {
            let mut chain = self.stack.borrow().clone();
            chain.push(name.to_string());
            return Err(LgrError::new(format!("cyclic class reference: {}", chain.join(" -> "))));
        }
        self.stack.borrow_mut().push(name.to_string());
        let r = self.eval(&self.doc.classes[i].expr);
        self.stack.borrow_mut().pop();
        let s = r?;
        self.memo.borrow_mut().insert(name.to_string(), s.clone());
        Ok(s)
    }

    fn two(&self, k: &[ClassExpr], op: &str) -> Result<(CpSet, CpSet), LgrError> {
        match k {
            [a, b] => Ok((self.eval(a)?, self.eval(b)?)),
            _ => Err(LgrError::new(format!("<{op}> needs exactly two operands"))),
        }
    }

    fn eval(&self, e: &ClassExpr) -> Result<CpSet, LgrError> {
        Ok(match e {
            ClassExpr::Ref(n) => self.named(n)?,
            // An undefined tag is an empty set, as in the reference.
            ClassExpr::Tag(t) => self.tags.get(t).cloned().unwrap_or_default(),
            ClassExpr::Property(n, v) => props::property_set(n, v)
                .ok_or_else(|| LgrError::new(format!("unknown Unicode property '{n}:{v}'")))?,
            ClassExpr::Ranges(r) => CpSet::from_ranges(r.clone()),
            ClassExpr::Union(k) => {
                let mut s = CpSet::new();
                for x in k {
                    s = s.union(&self.eval(x)?);
                }
                s
            }
            ClassExpr::Complement(k) => self.eval(k)?.complement(),
            ClassExpr::Intersection(k) => {
                let (a, b) = self.two(k, "intersection")?;
                a.intersection(&b)
            }
            ClassExpr::Difference(k) => {
                let (a, b) = self.two(k, "difference")?;
                a.difference(&b)
            }
            ClassExpr::SymmetricDifference(k) => {
                let (a, b) = self.two(k, "symmetric-difference")?;
                a.symmetric_difference(&b)
            }
        })
    }
}

impl rules::Resolver for ClassResolver<'_> {
    fn rule_body(&self, name: &str) -> Option<&[Matcher]> {
        self.rule_ids.get(name).map(|&i| &self.doc.rules[i as usize].body[..])
    }
    fn class_set(&self, expr: &ClassExpr) -> Result<CpSet, LgrError> {
        self.eval(expr)
    }
}

#[cfg(test)]
mod req_masks_tests {
    /// On ICANN's 2nd-level common LGR (155 rules, 49 with a required set,
    /// 195 pages), the masks are tabled and say, for every code point of
    /// its pages, exactly which required sets hold it.
    #[test]
    fn masks_of_the_common_lgr_match_the_sets() {
        let dir = std::env::var_os("LGRSCAN_REFERENCE_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
        let path = dir.join("lgr/lgr-second-level-common-31may22-en.xml");
        if !path.exists() {
            let required = std::env::var("LGRSCAN_REQUIRE_REFERENCE").is_ok_and(|v| v == "1");
            assert!(!required, "{} not found and LGRSCAN_REQUIRE_REFERENCE=1", path.display());
            return;
        }
        let lgr = super::Lgr::from_path(&path).expect("the common LGR loads");
        let req = &lgr.rule_required;
        let masks = &lgr.req_masks;
        assert!(req.len() > 64 && masks.pages.iter().filter(|&&p| p > 0).count() > 128);
        assert!(masks.usable, "tabled although over 64 rules and 128 pages");
        let with_set: Vec<usize> = (0..req.len()).filter(|&r| req[r].is_some()).collect();
        let bits: Vec<u64> = with_set.iter().map(|&r| masks.bit(r as u32)).collect();
        assert!(bits.iter().all(|b| b.count_ones() == 1));
        assert_eq!(bits.iter().fold(0, |m, b| m | b).count_ones() as usize, with_set.len());
        let tabled = (0..masks.pages.len() as u32).filter(|&p| masks.pages[p as usize] > 0);
        // Tabled pages, and a few code points elsewhere.
        let cps =
            tabled.flat_map(|p| (p << 8)..(p << 8) + 256).chain([0x10_ffff, 0xe_0001, 0x1_f600]);
        for cp in cps {
            let m = masks.get(req, cp);
            for (&r, &b) in with_set.iter().zip(&bits) {
                let holds = req[r].as_ref().is_some_and(|s| s.contains(cp));
                assert_eq!(m & b != 0, holds, "U+{cp:04X}, rule {r}");
            }
        }
    }
}

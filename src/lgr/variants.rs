//! Variant labels and their dispositions (RFC 7940 §8.2–§8.3).
//!
//! Generation follows the reference implementation step for step (which
//! elements are permuted at each position, in which order, and which
//! variant types each permutation collects), because when a variant label
//! can be produced in two ways the first one decides its variant types.

use super::eval::{Label, Reason};
use super::{Ctx, Lgr, TypeSet};
use std::collections::HashSet;
use std::fmt;

/// A variant label with its disposition (RFC 7940 §8.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantLabel<'a> {
    /// The variant label's code points.
    pub cps: Vec<u32>,
    /// Its disposition.
    pub disposition: &'a str,
    /// What decided it.
    pub reason: Reason,
    /// The variant types collected while generating it, sorted.
    pub types: Vec<&'a str>,
    /// True when every code point came from a variant mapping.
    pub only_variants: bool,
}

/// An element of a label replaced by one of its variants (RFC 7940 §8.2),
/// as [`Lgr::variant_replacements`] finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replacement {
    /// Where the element starts in the label, in code points.
    pub at: usize,
    /// The element's code points.
    pub element: Vec<u32>,
    /// The variant's code points that replace it.
    pub variant: Vec<u32>,
}

/// Longest label, in code points, whose variant labels are generated.
/// Generation follows the label's elements on the call stack; a DNS label
/// holds at most 63 octets (RFC 1035 §2.3.4), so a U-label has at most 59
/// code points (its A-label spends one character per code point beyond
/// `xn--`), and a label of 30,000 overflowed the stack.
pub const MAX_VARIANT_LABEL_CPS: usize = 255;

/// Variant enumeration went past its limit, or the label is longer than
/// [`MAX_VARIANT_LABEL_CPS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantLimitError {
    /// The limit that was hit.
    pub limit: usize,
    /// The reference implementation's estimate of the variant space
    /// (saturating at `u128::MAX`).
    pub estimate: u128,
    /// The estimate as text: exact up to 10^15, else `about 10^N`.
    pub estimate_text: String,
}

impl fmt::Display for VariantLimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "more than {} variant labels (estimated variant space: {}); raise the limit or judge a given pair",
            self.limit, self.estimate_text
        )
    }
}

impl std::error::Error for VariantLimitError {}

enum Flow {
    Go,
    Stop,
}

struct Gen<'s> {
    orig: &'s [u32],
    /// `live[i]`: a step at position `i` of the original may still reach
    /// its end ([`live_positions`]). A step at a position that cannot
    /// produces no variant label: the search skips it rather than try
    /// every permutation of the prefix first.
    live: Vec<bool>,
    /// The original label prepared, for contexts tested on it unchanged.
    orig_label: Label,
    target: Option<&'s [u32]>,
    prefix: Vec<u32>,
    scratch: Label,
    buf: Vec<u32>,
    /// With a target: the states `(position in the original, length of
    /// the prefix, whether a variant was used)` from which no completion
    /// reaches the target. The prefix is then the target's, so the outcome
    /// of a state depends on nothing else, and each is explored once: the
    /// membership test is polynomial in the two lengths, where the
    /// partitions of the original alone can be exponentially many.
    dead: HashSet<(usize, usize, bool)>,
    /// The permutation taken at each position on the way to the current
    /// prefix. A search that stops leaves it as it was at the label found,
    /// so that [`Lgr::variant_replacements`] can read how it was made.
    path: Vec<PathStep>,
    /// Steps taken ([`Lgr::gen_step`] calls).
    steps: usize,
    /// Steps allowed: past them the search stops and `over` is set.
    max_steps: usize,
    over: bool,
}

/// One permutation on the generator's path: the element of `len` code
/// points at `pos` of the original became the `prefix_len` code points at
/// `prefix_at` of the label generated, by a variant mapping or not.
#[derive(Clone, Copy, Debug)]
struct PathStep {
    pos: usize,
    len: usize,
    prefix_at: usize,
    prefix_len: usize,
    is_var: bool,
}

/// Generation steps an enumeration may spend per element of each label it
/// may produce (see [`Lgr::variants`]): branches whose context rules fail
/// late produce nothing, and without a bound on steps their search is
/// exponential while the count of labels found stays low.
const STEPS_PER_ELEMENT: usize = 8;

/// The step budget of an enumeration of at most `labels` labels of `cps`.
fn step_budget(cps: &[u32], labels: usize) -> usize {
    labels.saturating_add(1).saturating_mul(cps.len() + 1).saturating_mul(STEPS_PER_ELEMENT)
}

/// Which positions of `orig` a generation step may complete from: `live[i]`
/// is false when no element [`Lgr::gen_permute`] can permute at `i`, on
/// any prefix, leads to the end of `orig` through positions that are live
/// too (`live[orig.len()]` is true).
///
/// RFC 7940 §8.2 generates a variant label by replacing each element of
/// the original by one of its variants (or itself), and the reference
/// generator chooses at each position only among the elements that have
/// variants, falling back to the first element matching there when none
/// of these passes its context rule, plus the shorter elements matching
/// there when it chose a sequence. Every other element is never taken at
/// that position, however the original can otherwise be spelt. Which of
/// these pass their context rules depends on the label generated so far,
/// so the set taken here is a superset that does not: every element with
/// variants, the fallback unless one of them has no context rule (it is
/// then always chosen), and every element shorter than the longest of
/// these. A position is live when one of them ends at the end of `orig`
/// or at a live position, so a dead one can produce no label whatever
/// precedes it, and skipping it changes no result: it only spares the
/// search every permutation of the prefix before it (for a label of 13
/// code points under the ICANN Latin LGR, 458,864 steps without a label).
fn live_positions(lgr: &Lgr, orig: &[u32]) -> Vec<bool> {
    let mut live = vec![false; orig.len() + 1];
    live[orig.len()] = true;
    for i in (0..orig.len()).rev() {
        let rest = &orig[i..];
        let elem = |ci: u32| &lgr.chars[ci as usize];
        let matching: Vec<u32> = lgr
            .chars_from(rest[0])
            .iter()
            .copied()
            .filter(|&ci| rest.starts_with(&elem(ci).cps))
            .collect();
        let has_vars = |ci: u32| !elem(ci).vars.is_empty();
        let always_chosen = matching.iter().any(|&ci| has_vars(ci) && elem(ci).ctx == Ctx::None);
        let fallback = if always_chosen { None } else { matching.first().copied() };
        let longest = matching
            .iter()
            .copied()
            .filter(|&ci| has_vars(ci) || Some(ci) == fallback)
            .map(|ci| elem(ci).cps.len())
            .max()
            .unwrap_or(0);
        live[i] = matching.iter().any(|&ci| {
            let len = elem(ci).cps.len();
            let may_be_chosen =
                has_vars(ci) || Some(ci) == fallback || (longest >= 2 && len < longest);
            may_be_chosen && live[i + len]
        });
    }
    live
}

impl<'s> Gen<'s> {
    fn new(lgr: &Lgr, orig: &'s [u32], target: Option<&'s [u32]>) -> Gen<'s> {
        Gen {
            orig,
            live: live_positions(lgr, orig),
            orig_label: Label::from_cps(orig),
            target,
            prefix: Vec::new(),
            scratch: Label::default(),
            buf: Vec::new(),
            dead: HashSet::new(),
            path: Vec::new(),
            steps: 0,
            max_steps: usize::MAX,
            over: false,
        }
    }
}

impl Lgr {
    /// The original label among its variants: its own judgement, no
    /// variant types.
    fn as_original(&self, cps: &[u32]) -> VariantLabel<'_> {
        let v = self.judge(cps);
        VariantLabel {
            cps: cps.to_vec(),
            disposition: v.disposition,
            reason: v.reason,
            types: Vec::new(),
            only_variants: false,
        }
    }

    fn ctx_in(&self, g: &mut Gen<'_>, ctx: Ctx, elem: &[u32], pos: usize, skip: usize) -> bool {
        if ctx == Ctx::None {
            return true;
        }
        // The label tested is the original one: no need to build it.
        if skip == elem.len()
            && g.prefix.len() == pos
            && g.orig[..pos] == g.prefix[..]
            && g.orig[pos..].starts_with(elem)
        {
            return self.ctx_ok(ctx, &g.orig_label, pos, elem.len());
        }
        g.buf.clear();
        g.buf.extend_from_slice(&g.prefix);
        g.buf.extend_from_slice(elem);
        g.buf.extend_from_slice(&g.orig[pos + skip..]);
        g.scratch.set_cps(&g.buf);
        self.ctx_ok(ctx, &g.scratch, g.prefix.len(), elem.len())
    }

    /// One step of the reference generator: permutes the element(s) at
    /// `pos` of the original label and recurses on the rest.
    fn gen_step(
        &self,
        g: &mut Gen<'_>,
        pos: usize,
        has_variant: bool,
        set: TypeSet,
        only: bool,
        sink: &mut dyn FnMut(&[u32], TypeSet, bool) -> Flow,
    ) -> Flow {
        if pos >= g.orig.len() || !g.live[pos] {
            return Flow::Go;
        }
        if g.steps >= g.max_steps {
            g.over = true;
            return Flow::Stop;
        }
        g.steps += 1;
        let state = (pos, g.prefix.len(), has_variant);
        if g.target.is_some() && g.dead.contains(&state) {
            return Flow::Go;
        }
        let flow = self.gen_permute(g, pos, has_variant, set, only, sink);
        // With a target the sink stops at the first label found: a state
        // that comes back with `Go` reaches none.
        if g.target.is_some() && matches!(flow, Flow::Go) {
            g.dead.insert(state);
        }
        flow
    }

    /// The body of [`Lgr::gen_step`]: the permutations at `pos`.
    fn gen_permute(
        &self,
        g: &mut Gen<'_>,
        pos: usize,
        has_variant: bool,
        set: TypeSet,
        only: bool,
        sink: &mut dyn FnMut(&[u32], TypeSet, bool) -> Flow,
    ) -> Flow {
        let orig = g.orig;
        let rest = &orig[pos..];
        let all = self.chars_from(rest[0]);
        if all.is_empty() {
            return Flow::Go;
        }
        let mut same: Vec<u32> = Vec::new();
        for &ci in all {
            let c = &self.chars[ci as usize];
            if c.vars.is_empty() || !rest.starts_with(&c.cps) {
                continue;
            }
            if self.ctx_in(g, c.ctx, &c.cps, pos, c.cps.len()) {
                same.push(ci);
            }
        }
        if same.is_empty()
            && let Some(&ci) =
                all.iter().find(|&&ci| rest.starts_with(&self.chars[ci as usize].cps))
        {
            same.push(ci);
        }
        let snapshot = same.clone();
        for &si in &snapshot {
            let slen = self.chars[si as usize].cps.len();
            if slen < 2 {
                continue;
            }
            for &ci in all {
                let c = &self.chars[ci as usize];
                if c.cps.len() < slen && rest.starts_with(&c.cps) {
                    same.push(ci);
                }
            }
        }
        for ci in same {
            let c = &self.chars[ci as usize];
            let clen = c.cps.len();
            let last = rest.len() == clen;
            // No label comes from a step at a dead position: spare the
            // context rules of the variants leading there.
            if !last && !g.live[pos + clen] {
                continue;
            }
            let mut perms: Vec<(&[u32], TypeSet, bool)> = Vec::with_capacity(c.vars.len() + 1);
            let mut has_reflexive = false;
            for v in &c.vars {
                if !self.ctx_in(g, v.ctx, &v.cps, pos, clen) {
                    continue;
                }
                if v.cps == c.cps {
                    has_reflexive = true;
                }
                perms.push((&v.cps, if v.typ == 1 { 0 } else { v.typ }, true));
            }
            if !has_reflexive {
                perms.insert(0, (&c.cps, 0, false));
            }
            if last && !has_variant && c.vars.is_empty() {
                continue;
            }
            for (pcps, pset, is_var) in perms {
                let keep = g.prefix.len();
                g.prefix.extend_from_slice(pcps);
                let step =
                    PathStep { pos, len: clen, prefix_at: keep, prefix_len: pcps.len(), is_var };
                g.path.push(step);
                let pruned = g.target.is_some_and(|t| !t.starts_with(&g.prefix));
                let flow = if pruned {
                    Flow::Go
                } else if last {
                    if g.target.is_none_or(|t| t.len() == g.prefix.len()) {
                        sink(&g.prefix, set | pset, only & is_var)
                    } else {
                        Flow::Go
                    }
                } else {
                    self.gen_step(
                        g,
                        pos + clen,
                        has_variant | is_var,
                        set | pset,
                        only & is_var,
                        sink,
                    )
                };
                g.prefix.truncate(keep);
                if let Flow::Stop = flow {
                    return Flow::Stop;
                }
                g.path.pop();
            }
        }
        Flow::Go
    }

    fn judge_variant(
        &self,
        label: &[u32],
        vcps: &[u32],
        set: TypeSet,
        only: bool,
    ) -> VariantLabel<'_> {
        let vl = Label::from_cps(vcps);
        let v = self.eligibility(&vl, vcps != label);
        let (disposition, reason) = if !v.eligible {
            (v.disposition, v.reason)
        } else {
            let idx = self.apply_actions(&vl, set, only);
            (self.actions[idx].disp.as_str(), Reason::Action(idx))
        };
        VariantLabel {
            cps: vcps.to_vec(),
            disposition,
            reason,
            types: self.type_names(set),
            only_variants: only,
        }
    }

    /// All variant labels of `cps` with their dispositions, invalid ones
    /// included, the original label last (RFC 7940 §8.2–§8.3, in the
    /// reference implementation's order).
    ///
    /// # Errors
    /// [`VariantLimitError`] when the variant space is larger than `limit`
    /// labels, or its search takes more than a few steps per element of
    /// `limit` labels (branches that produce nothing count too).
    pub fn variants(
        &self,
        cps: &[u32],
        limit: usize,
    ) -> Result<Vec<VariantLabel<'_>>, VariantLimitError> {
        let raw = self.enumerate(cps, limit)?;
        let mut out = Vec::with_capacity(raw.len() + 1);
        let mut original = None;
        for (v, s, o) in raw {
            let vl = self.judge_variant(cps, &v, s, o);
            if v == cps { original = Some(vl) } else { out.push(vl) }
        }
        out.push(original.unwrap_or_else(|| self.as_original(cps)));
        Ok(out)
    }

    /// The distinct variant labels of `cps` (RFC 7940 §8.2), the original
    /// included when it is generated, in the reference generator's order,
    /// without judging them: the enumeration [`Lgr::variants`] runs.
    ///
    /// # Errors
    /// [`VariantLimitError`], as [`Lgr::variants`].
    pub fn variant_labels(
        &self,
        cps: &[u32],
        limit: usize,
    ) -> Result<Vec<Vec<u32>>, VariantLimitError> {
        Ok(self.enumerate(cps, limit)?.into_iter().map(|(v, _, _)| v).collect())
    }

    /// The distinct variant labels of `cps` with the types and
    /// only-variants flag of their first generation, within `limit` labels
    /// and the step budget.
    fn enumerate(
        &self,
        cps: &[u32],
        limit: usize,
    ) -> Result<Vec<(Vec<u32>, TypeSet, bool)>, VariantLimitError> {
        if cps.len() > MAX_VARIANT_LABEL_CPS {
            return Err(self.limit_error(cps, MAX_VARIANT_LABEL_CPS));
        }
        let mut seen: HashSet<Vec<u32>> = HashSet::new();
        let mut raw = Vec::new();
        let mut count = 0usize;
        let mut g = Gen::new(self, cps, None);
        g.max_steps = step_budget(cps, limit);
        self.gen_step(&mut g, 0, false, 0, true, &mut |v, s, o| {
            count += 1;
            if count > limit {
                return Flow::Stop;
            }
            if seen.insert(v.to_vec()) {
                raw.push((v.to_vec(), s, o));
            }
            Flow::Go
        });
        if count > limit || g.over {
            return Err(self.limit_error(cps, limit));
        }
        Ok(raw)
    }

    /// The first `n` distinct variant labels of `cps` other than `cps`
    /// itself, in the order [`Lgr::variants`] gives them, with their
    /// dispositions. Generation stops once `n` are found, or after a few
    /// steps per element of `n` labels (fewer are then returned), so this
    /// is cheap even when the variant space is huge (see
    /// [`Lgr::variant_estimate`] for its size). None for a label longer
    /// than [`MAX_VARIANT_LABEL_CPS`].
    pub fn first_variants(&self, cps: &[u32], n: usize) -> Vec<VariantLabel<'_>> {
        let mut seen: HashSet<Vec<u32>> = HashSet::new();
        let mut raw: Vec<(Vec<u32>, TypeSet, bool)> = Vec::new();
        if n == 0 || cps.len() > MAX_VARIANT_LABEL_CPS {
            return Vec::new();
        }
        let mut g = Gen::new(self, cps, None);
        g.max_steps = step_budget(cps, n);
        self.gen_step(&mut g, 0, false, 0, true, &mut |v, s, o| {
            if v != cps && seen.insert(v.to_vec()) {
                raw.push((v.to_vec(), s, o));
                if raw.len() >= n {
                    return Flow::Stop;
                }
            }
            Flow::Go
        });
        raw.into_iter().map(|(v, s, o)| self.judge_variant(cps, &v, s, o)).collect()
    }

    /// The disposition of `other` as a variant of `label` (RFC 7940 §8.3),
    /// or `None` when `other` is not generated as one of its variants. A
    /// membership test, not an enumeration: only the branches that can
    /// produce `other` are explored, position by position, and a state
    /// (position in `label`, length of `other` matched) that leads nowhere
    /// is not explored twice, so the cost is polynomial in the two lengths
    /// even when the variant space is huge. When `other` can be generated
    /// in several ways, the first in the reference generator's order gives
    /// its variant types, as in [`Lgr::variants`]. Labels longer than
    /// [`MAX_VARIANT_LABEL_CPS`] are not searched (`None` unless equal).
    pub fn variant_disposition(&self, label: &[u32], other: &[u32]) -> Option<VariantLabel<'_>> {
        match self.generated_as(label, other).0 {
            Some((s, o)) => Some(self.judge_variant(label, other, s, o)),
            None if label == other => Some(self.as_original(label)),
            None => None,
        }
    }

    /// Whether `other` is a variant label of `label` (RFC 7940 §8.2:
    /// generated from it, each variant's context rule tested on the label
    /// being generated), or `label` itself: the membership test of
    /// [`Lgr::variant_disposition`], without judging the variant.
    pub fn is_variant(&self, label: &[u32], other: &[u32]) -> bool {
        label == other || self.generated_as(label, other).0.is_some()
    }

    /// How `other` is first generated from `label` (RFC 7940 §8.2): the
    /// elements of `label` replaced by a variant other than themselves, in
    /// label order (the generator's first way, as for the variant types of
    /// [`Lgr::variant_disposition`]). `Some` of an empty list when the two
    /// are equal; `None` when `other` is not a variant label of `label`.
    ///
    /// # Example
    /// ```
    /// use lgrscan::lgr::Replacement;
    /// let xml = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
    ///   <char cp="0061"/><char cp="0062"><var cp="0061 0061" type="blocked"/></char>
    ///   </data></lgr>"#;
    /// let lgr = lgrscan::lgr::Lgr::from_xml("demo", xml)?;
    /// let (a, b) = ('a' as u32, 'b' as u32);
    /// let got = lgr.variant_replacements(&[b, a, b], &[b, a, a, a]);
    /// assert_eq!(got, Some(vec![Replacement { at: 2, element: vec![b], variant: vec![a, a] }]));
    /// assert_eq!(lgr.variant_replacements(&[a], &[b]), None);
    /// # Ok::<(), lgrscan::LgrError>(())
    /// ```
    pub fn variant_replacements(&self, label: &[u32], other: &[u32]) -> Option<Vec<Replacement>> {
        if label == other {
            return Some(Vec::new());
        }
        let (found, g) = self.search_for(label, other);
        found?;
        // The search stopped at `other`: the path is how it was made.
        let replaced = g?.path.into_iter().filter(|s| s.is_var).filter_map(|s| {
            let element = label.get(s.pos..s.pos + s.len)?;
            let variant = other.get(s.prefix_at..s.prefix_at + s.prefix_len)?;
            (element != variant).then(|| Replacement {
                at: s.pos,
                element: element.to_vec(),
                variant: variant.to_vec(),
            })
        });
        Some(replaced.collect())
    }

    /// The variant types and only-variants flag with which `other` is first
    /// generated from `label`, and the generator's steps.
    fn generated_as(&self, label: &[u32], other: &[u32]) -> (Option<(TypeSet, bool)>, usize) {
        let (found, g) = self.search_for(label, other);
        (found, g.map_or(0, |g| g.steps))
    }

    /// The generator's search for `other` from `label`: its variant types
    /// and only-variants flag when it is found, and the search done (its
    /// steps, and its path when found); no search for a label longer
    /// than [`MAX_VARIANT_LABEL_CPS`].
    fn search_for<'s>(
        &self,
        label: &'s [u32],
        other: &'s [u32],
    ) -> (Option<(TypeSet, bool)>, Option<Gen<'s>>) {
        if label.len() > MAX_VARIANT_LABEL_CPS {
            return (None, None);
        }
        let mut found: Option<(TypeSet, bool)> = None;
        let mut g = Gen::new(self, label, Some(other));
        self.gen_step(&mut g, 0, false, 0, true, &mut |_, s, o| {
            found = Some((s, o));
            Flow::Stop
        });
        (found, Some(g))
    }

    /// The reference implementation's estimate of the number of variant
    /// labels: the product over the label's elements of one plus their
    /// non-reflexive variants. 0 when the label is not in the repertoire.
    pub fn variant_estimate(&self, cps: &[u32]) -> u128 {
        self.estimate_factors(cps).map_or(0, |f| product(&f))
    }

    /// [`Lgr::variant_estimate`] as text: exact up to 10^15, else
    /// `about 10^N` (the product does not fit in a `u128` past 10^38).
    pub fn variant_estimate_text(&self, cps: &[u32]) -> String {
        self.estimate_factors(cps).map_or_else(|| "0".to_string(), |f| factors_text(&f))
    }

    /// An estimate of the number of variant labels (RFC 7940 §8.2: each
    /// element of the label replaced by itself or one of its variants)
    /// that takes every way the label splits into elements: the largest,
    /// over those splits, of the product of one plus each element's
    /// non-reflexive variants, as a number and as text (written as
    /// [`Lgr::variant_estimate_text`] writes its estimate).
    /// [`Lgr::variant_estimate`] takes one split, the longest elements
    /// first, as the reference implementation does, and says 1 for a label
    /// whose longest elements have no variants even when its shorter ones
    /// have (`aaa` with no variant beside `a` with one: 63 `a` have 2^63
    /// variant labels). Never below [`Lgr::variant_estimate`]; one pass
    /// over the label, in time proportional to its length times the
    /// elements starting at each position. 0 when the label does not split
    /// into elements.
    pub fn variant_space_max(&self, cps: &[u32]) -> VariantEstimate {
        VariantEstimate::of(self.max_split_factors(cps))
    }

    /// The non-reflexive variant counts of the elements of the split of
    /// `cps` whose product of one plus each is the largest (compared as
    /// sums of logarithms, so that no product overflows); `None` when no
    /// split exists.
    fn max_split_factors(&self, cps: &[u32]) -> Option<Vec<u128>> {
        let n = cps.len();
        // best[i]: log10 of the best product for cps[i..] and the element
        // that starts it (None: no split of cps[i..]; the empty end: 0).
        let mut best: Vec<Option<(f64, u32)>> = vec![None; n + 1];
        best[n] = Some((0.0, u32::MAX));
        for i in (0..n).rev() {
            let rest = &cps[i..];
            for &ci in self.chars_from(rest[0]) {
                let c = &self.chars[ci as usize];
                if c.cps.is_empty() || !rest.starts_with(&c.cps) {
                    continue;
                }
                let Some((after, _)) = best[i + c.cps.len()] else { continue };
                let log = after + ((non_reflexive(c) + 1) as f64).log10();
                if best[i].is_none_or(|(b, _)| log > b) {
                    best[i] = Some((log, ci));
                }
            }
        }
        let mut factors = Vec::new();
        let mut i = 0;
        while i < n {
            let (_, ci) = best[i]?;
            let c = &self.chars[ci as usize];
            factors.push(non_reflexive(c));
            i += c.cps.len();
        }
        (n > 0).then_some(factors)
    }

    /// The non-reflexive variant counts of the label's elements; `None`
    /// (an estimate of 0) when the label is not in the repertoire.
    fn estimate_factors(&self, cps: &[u32]) -> Option<Vec<u128>> {
        let label = Label::from_cps(cps);
        let mut chars = Vec::new();
        if !self.prelim(&label, Some(&mut chars)).is_empty() {
            return None;
        }
        Some(chars.iter().map(|&ci| non_reflexive(&self.chars[ci as usize])).collect())
    }

    fn limit_error(&self, cps: &[u32], limit: usize) -> VariantLimitError {
        // The label's elements found once, for the number and its text.
        let e = VariantEstimate::of(self.estimate_factors(cps));
        VariantLimitError { limit, estimate: e.count, estimate_text: e.text }
    }

    /// A variant label's reason with its variant types, as the reference
    /// results write it: `action 3: … | variant types {blocked}`.
    pub fn variant_reason_text(&self, v: &VariantLabel<'_>) -> String {
        format!("{} | variant types {{{}}}", self.reason_text(&v.reason), v.types.join(","))
    }
}

/// The number of variants of an element other than itself.
fn non_reflexive(c: &super::Char) -> u128 {
    c.vars.iter().filter(|v| v.cps != c.cps).count() as u128
}

/// The product of one plus each factor, saturating at `u128::MAX`.
fn product(factors: &[u128]) -> u128 {
    factors.iter().fold(1u128, |acc, &n| acc.saturating_mul(n + 1))
}

/// An estimate of a label's variant space, as a number and as text
/// ([`Lgr::variant_space_max`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VariantEstimate {
    /// The estimate, saturating at `u128::MAX`.
    pub count: u128,
    /// The estimate as text: exact up to 10^15, else `about 10^N`.
    pub text: String,
}

impl VariantEstimate {
    /// The estimate of a split's non-reflexive variant counts; 0 for no
    /// split.
    fn of(factors: Option<Vec<u128>>) -> VariantEstimate {
        match factors {
            Some(f) => VariantEstimate { count: product(&f), text: factors_text(&f) },
            None => VariantEstimate { count: 0, text: "0".to_string() },
        }
    }
}

/// The product of one plus each factor as text: exact up to 10^15, else
/// `about 10^N`.
fn factors_text(factors: &[u128]) -> String {
    let exact = factors.iter().try_fold(1u128, |acc, &n| acc.checked_mul(n + 1));
    match exact {
        Some(e) if e <= 1_000_000_000_000_000 => e.to_string(),
        _ => {
            let log10: f64 = factors.iter().map(|&n| ((n + 1) as f64).log10()).sum();
            format!("about 10^{}", log10.floor())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An original of `n` code points `a` has Fibonacci(n) partitions into
    /// the elements `a` and `a a`, each mapping to its variant (`b`,
    /// `b b`): all produce `b`s, so a target that ends otherwise is
    /// reached by none, and the generator without the dead-state memo tried
    /// every partition (832,040 at n = 30). With it, each (position, prefix
    /// length) state is explored once.
    #[test]
    fn membership_test_is_polynomial() {
        let lgr = Lgr::from_xml(
            "t",
            r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
              <char cp="0061"><var cp="0062"/></char>
              <char cp="0061 0061"><var cp="0062 0062"/></char>
              <char cp="0062"><var cp="0061"/></char>
              <char cp="0062 0062"><var cp="0061 0061"/></char>
              <char cp="0063"/>
            </data></lgr>"#,
        )
        .expect("compiles");
        let n = 30;
        let a = vec![0x61; n];
        let mut miss = vec![0x62; n];
        miss[n - 1] = 0x63;
        let (found, steps) = lgr.generated_as(&a, &miss);
        assert!(found.is_none());
        assert!(steps < 10 * n * n, "{steps} steps");
        let hit = vec![0x62; n];
        assert!(lgr.is_variant(&a, &hit) && lgr.is_variant(&hit, &a));
        assert!(!lgr.is_variant(&a, &miss));
        // The same answers and types as the enumeration, on a shorter label.
        let short = vec![0x61; 6];
        let all = lgr.variants(&short, 10_000).expect("small");
        assert!(all.len() > 1);
        for v in &all {
            let d = lgr.variant_disposition(&short, &v.cps).expect("generated");
            assert_eq!((&d.types, d.disposition), (&v.types, v.disposition), "{:X?}", v.cps);
        }
    }

    /// `a` with nine variants, each of them with `a` back.
    fn nine_variants() -> Lgr {
        nine_variants_and("")
    }

    /// [`nine_variants`] with more XML after its last `char`.
    fn nine_variants_and(more: &str) -> Lgr {
        let vars: String = (0x62..=0x6A).map(|c| format!("<var cp=\"{c:04X}\"/>")).collect();
        let back: String = (0x62..=0x6A)
            .map(|c| format!("<char cp=\"{c:04X}\"><var cp=\"0061\"/></char>"))
            .collect();
        let xml = format!(
            "<lgr xmlns=\"urn:ietf:params:xml:ns:lgr-1.0\"><data><char cp=\"0061\">{vars}</char>{back}{more}</data></lgr>"
        );
        Lgr::from_xml("t", &xml).expect("loads")
    }

    #[test]
    fn huge_estimates_are_written_as_powers_of_ten() {
        let lgr = nine_variants();
        let e = lgr.variants(&[0x61; 59], 1000).expect_err("10^59 labels");
        assert_eq!(e.estimate, u128::MAX);
        assert_eq!(e.estimate_text, "about 10^59");
        assert!(e.to_string().contains("estimated variant space: about 10^59"), "{e}");
        assert_eq!(lgr.variant_estimate_text(&[0x61; 3]), "1000");
        assert_eq!(lgr.variant_estimate_text(&[0x7A]), "0");
    }

    /// `a a a` has no variant, `a` has one: the reference estimate takes
    /// the longest elements (1 for 63 `a`), the estimate over splits
    /// takes each `a` alone (2^63).
    #[test]
    fn the_estimate_over_splits_sees_short_elements_with_variants() {
        let lgr = Lgr::from_xml(
            "t",
            r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
              <char cp="0061"><var cp="0062"/></char>
              <char cp="0062"><var cp="0061"/></char>
              <char cp="0061 0061 0061"/>
              <char cp="0063"/>
            </data></lgr>"#,
        )
        .expect("compiles");
        let a63 = [0x61; 63];
        assert_eq!(lgr.variant_estimate(&a63), 1);
        let max = |cps: &[u32]| lgr.variant_space_max(cps);
        assert_eq!(max(&a63).count, 1 << 63);
        assert_eq!(max(&a63).text, "about 10^18");
        assert_eq!(max(&[0x61, 0x63, 0x61]).text, "4");
        assert_eq!(max(&[0x63; 4]).count, 1);
        assert_eq!(max(&[0x61, 0x7A]).count, 0);
        assert_eq!(max(&[]).text, "0");
        // The number and the text of each case, from one pass.
        let cases: [(&[u32], u128, &str); 5] = [
            (&a63, 1 << 63, "about 10^18"),
            (&[0x61, 0x63, 0x61], 4, "4"),
            (&[0x63; 4], 1, "1"),
            (&[0x61, 0x7A], 0, "0"),
            (&[], 0, "0"),
        ];
        for (cps, count, text) in cases {
            assert_eq!(max(cps), VariantEstimate { count, text: text.into() }, "{cps:?}");
        }
        assert_eq!(
            lgr.variant_space_max(&a63),
            VariantEstimate { count: 1 << 63, text: "about 10^18".into() }
        );
        // Never below the reference estimate.
        let nine = nine_variants();
        assert_eq!(nine.variant_space_max(&[0x61; 3]).count, nine.variant_estimate(&[0x61; 3]));
    }

    #[test]
    fn labels_past_the_length_limit_are_not_searched() {
        // 30,000 elements deep overflowed the stack.
        let lgr = nine_variants();
        let long = vec![0x61; 30_000];
        let e = lgr.variants(&long, 1000).expect_err("too long");
        assert_eq!(e.limit, MAX_VARIANT_LABEL_CPS);
        assert!(lgr.first_variants(&long, 5).is_empty());
        assert!(lgr.variant_disposition(&long, &[0x62; 30_000]).is_none());
        assert!(lgr.variant_disposition(&long, &long).is_some());
        let at_limit = vec![0x61; MAX_VARIANT_LABEL_CPS];
        assert_eq!(lgr.first_variants(&at_limit, 5).len(), 5);
    }

    #[test]
    fn branches_that_cannot_reach_the_end_are_cut() {
        // Each `a` has nine variants and `z` is outside the repertoire:
        // without the cut, 10^20 prefixes are tried before each fails at
        // `z`.
        let lgr = nine_variants();
        let mut label = vec![0x61; 20];
        label.push(0x7A);
        let t = std::time::Instant::now();
        let all = lgr.variants(&label, 100).expect("only the label itself");
        assert_eq!(all.len(), 1);
        assert!(lgr.first_variants(&label, 5).is_empty());
        assert!(lgr.variant_disposition(&label, &[0x62; 21]).is_none());
        assert!(t.elapsed().as_secs() < 5);
    }

    /// The labels the generator produces for `cps`, in order, with their
    /// types: with the cut of dead positions, or with every position live
    /// (the search without it). `None` past 200,000 steps or 20,000 labels.
    fn generated(lgr: &Lgr, cps: &[u32], cut: bool) -> Option<Vec<(Vec<u32>, TypeSet, bool)>> {
        let mut g = Gen::new(lgr, cps, None);
        if !cut {
            g.live = vec![true; cps.len() + 1];
        }
        g.max_steps = 200_000;
        let mut out = Vec::new();
        lgr.gen_step(&mut g, 0, false, 0, true, &mut |v, s, o| {
            out.push((v.to_vec(), s, o));
            if out.len() > 20_000 { Flow::Stop } else { Flow::Go }
        });
        (!g.over && out.len() <= 20_000).then_some(out)
    }

    #[test]
    fn sequences_the_generator_never_takes_keep_no_branch_alive() {
        // `a x` spells the end of the label, but the generator takes `a`
        // there (it has variants), and `x` alone is no element: as in the
        // fuzz reproducers `label_eval/slow-unit-*` under the ICANN Latin
        // LGR, each of the 10^20 prefixes failed only there.
        let lgr = nine_variants_and(r#"<char cp="0061 0078"/>"#);
        let mut label = vec![0x61; 20];
        label.push(0x78);
        let g = Gen::new(&lgr, &label, None);
        assert!(!g.live[0] && !g.live[20]);
        let all = lgr.variants(&label, 100).expect("only the label itself");
        assert_eq!(all.len(), 1);
        assert!(lgr.first_variants(&label, 5).is_empty());
        // When `a` fails its context rule there, the generator falls back
        // to the first (longest) element matching, `a x`, and the end is
        // reached: the position is live and a label comes from it.
        let lgr = Lgr::from_xml(
            "t",
            r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
              <char cp="0061" when="never"><var cp="0062"/></char>
              <char cp="0062"><var cp="0061"/></char>
              <char cp="0061 0078"/>
              <char cp="0079"/>
            </data><rules><rule name="never"><char cp="0079"/></rule></rules></lgr>"#,
        )
        .expect("compiles");
        let label = [0x62, 0x61, 0x78];
        assert!(Gen::new(&lgr, &label, None).live[0]);
        let all = generated(&lgr, &label, true).expect("small");
        assert_eq!(all.iter().map(|l| &l.0[..]).collect::<Vec<_>>(), [[0x61, 0x61, 0x78]]);
        assert_eq!(generated(&lgr, &label, false), Some(all));
    }

    /// The cut of dead positions changes no generated label, type or
    /// order: random labels of each built-in LGR's elements and variants
    /// (a code point dropped from some, to make dead positions), searched
    /// with and without it. Also run, while writing it, on 24,000 labels
    /// under the ICANN second-level Arabic and Latin LGRs.
    #[test]
    fn cutting_dead_positions_changes_no_result() {
        let mut rng = fastrand::Rng::with_seed(7);
        let (mut compared, mut produced) = (0, 0);
        for b in crate::builtin::BUILTINS {
            let lgr = crate::builtin::load(b.name).expect("built-in");
            let chars = &lgr.doc().chars;
            for _ in 0..300 {
                let mut cps = Vec::new();
                for _ in 0..rng.usize(1..8) {
                    let c = &chars[rng.usize(..chars.len())];
                    match c.variants.first() {
                        Some(v) if rng.bool() => cps.extend_from_slice(&v.cps),
                        _ => cps.extend_from_slice(&c.cps),
                    }
                }
                if rng.u8(..4) == 0 && cps.len() > 1 {
                    cps.remove(rng.usize(..cps.len()));
                }
                let Some(all) = generated(&lgr, &cps, false) else { continue };
                assert_eq!(generated(&lgr, &cps, true).as_ref(), Some(&all), "{cps:04X?}");
                compared += 1;
                produced += usize::from(!all.is_empty());
            }
        }
        assert!(compared > 1000 && produced > 500, "{compared} compared, {produced} produced");
    }
}

//! Judging one label (RFC 7940 §8.1, §8.3); its index label (§8.5) is in
//! `index.rs`.

use super::{Ctx, Lgr, TypeSet, fmt_cps};

/// A label prepared for evaluation: its code points and UTF-8 text, with the
/// byte offset of every code point (rules run on the text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Label {
    cps: Vec<u32>,
    text: String,
    offs: Vec<usize>,
}

impl Label {
    /// A label from code points. A value that is not a Unicode scalar value
    /// stands as U+FFFD in the text rules see.
    pub fn from_cps(cps: &[u32]) -> Label {
        let mut l = Label::default();
        l.set_cps(cps);
        l
    }

    /// A label from a string, code point by code point (no normalisation).
    pub fn from_text(s: &str) -> Label {
        let mut l = Label::default();
        l.set_text(s);
        l
    }

    /// Reuses this label's buffers for a new string, code point by code
    /// point (no normalisation), as [`Label::from_text`] reads it.
    pub fn set_text(&mut self, s: &str) {
        self.cps.clear();
        self.offs.clear();
        self.text.clear();
        self.text.push_str(s);
        // At most one code point per octet: no growth in the loop.
        self.cps.reserve(s.len());
        self.offs.reserve(s.len() + 1);
        for (i, c) in s.char_indices() {
            self.cps.push(u32::from(c));
            self.offs.push(i);
        }
        self.offs.push(s.len());
    }

    /// Reuses this label's buffers for new code points.
    pub fn set_cps(&mut self, cps: &[u32]) {
        self.cps.clear();
        self.cps.extend_from_slice(cps);
        self.text.clear();
        self.offs.clear();
        for &c in cps {
            self.offs.push(self.text.len());
            self.text.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
        }
        self.offs.push(self.text.len());
    }

    /// The code points.
    pub fn cps(&self) -> &[u32] {
        &self.cps
    }

    /// The UTF-8 text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Byte offset of code point `i` (`i == len` gives the text length).
    pub(crate) fn off(&self, i: usize) -> usize {
        self.offs.get(i).copied().unwrap_or(self.text.len())
    }

    /// Number of code points.
    pub fn len(&self) -> usize {
        self.cps.len()
    }

    /// True for the empty label.
    pub fn is_empty(&self) -> bool {
        self.cps.is_empty()
    }
}

/// A code point that made a label fail the repertoire test (RFC 7940 §8.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The code point.
    pub cp: u32,
    /// The context rules that failed, one per candidate element starting
    /// with it; empty when no element starts with it (not in repertoire).
    pub rules: Vec<String>,
}

/// Why a label got its disposition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The empty label.
    Empty,
    /// Code points out of repertoire or failing their context rules, in
    /// label order (RFC 7940 §8.1).
    Failures(Vec<Failure>),
    /// The action that set the disposition: 0-based position in the LGR's
    /// actions followed by the five default actions (RFC 7940 §7.3, §8.3).
    Action(usize),
}

/// The judgement of a label under one LGR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict<'a> {
    /// True when every code point is in the repertoire with its context
    /// rules satisfied and the disposition is not `invalid`.
    pub eligible: bool,
    /// The disposition (`valid`, `invalid`, `blocked`, `allocatable`, …).
    pub disposition: &'a str,
    /// What decided it.
    pub reason: Reason,
}

impl Lgr {
    /// Tests a context condition for the element of `len` code points at `i`.
    #[inline(always)]
    pub(crate) fn ctx_ok(&self, ctx: Ctx, label: &Label, i: usize, len: usize) -> bool {
        ctx == Ctx::None || self.ctx_rule_ok(ctx, label, i, len)
    }

    /// [`Lgr::ctx_ok`] for a condition with a rule.
    fn ctx_rule_ok(&self, ctx: Ctx, label: &Label, i: usize, len: usize) -> bool {
        let (rule, want) = match ctx {
            Ctx::None => return true,
            Ctx::When(r) => (r, true),
            Ctx::NotWhen(r) => (r, false),
        };
        let Some(rule) = self.rules.get(rule as usize) else { return !want };
        rule.holds_at(label, i, len) == want
    }

    /// Whether every LDH label (lower-case letters, digits, hyphens) whose
    /// hyphens RFC 5891 §4.2.3.1 allows gets the verdict of the label of
    /// as many letters: each of these code points is an element of its own
    /// with no variant and, for the letters and digits, no context rule;
    /// the hyphen's `not-when` rule is that section's
    /// ([`super::rules::Context::is_rfc5891_hyphen`]); and no action has a
    /// rule. The repertoire test (§8.1) then passes for all of them and the
    /// variant type set (§8.3) is empty for all, so the same action applies.
    pub(crate) fn ldh_hyphens_as_letters(&self) -> bool {
        if self.actions.iter().any(|a| a.match_rule.is_some() || a.not_match_rule.is_some()) {
            return false;
        }
        let element = |cp: u8| -> Option<&super::Char> {
            match self.chars_from(u32::from(cp)) {
                [ci] => {
                    self.chars.get(*ci as usize).filter(|c| c.cps.len() == 1 && c.vars.is_empty())
                }
                _ => None,
            }
        };
        let plain = (b'a'..=b'z')
            .chain(b'0'..=b'9')
            .all(|b| element(b).is_some_and(|c| c.ctx == Ctx::None));
        let hyphen = element(b'-').is_some_and(|c| match c.ctx {
            Ctx::NotWhen(r) => self
                .rules
                .get(r as usize)
                .and_then(|r| r.context())
                .is_some_and(|c| c.is_rfc5891_hyphen()),
            _ => false,
        });
        plain && hyphen
    }

    /// The repertoire test of RFC 7940 §8.1 as the reference implementation
    /// runs it: at each position the longest element that matches and whose
    /// context rule holds is taken; a failing code point is reported and the
    /// scan goes on at the next code point. Accepted chars go to `chars`.
    pub(crate) fn prelim(&self, label: &Label, mut chars: Option<&mut Vec<u32>>) -> Vec<Failure> {
        let cps = label.cps();
        let mut failures = Vec::new();
        let mut i = 0;
        while i < cps.len() {
            let cands = self.chars_from(cps[i]);
            if cands.is_empty() {
                failures.push(Failure { cp: cps[i], rules: Vec::new() });
                i += 1;
                continue;
            }
            let mut pending: Vec<String> = Vec::new();
            let mut taken = None;
            for &ci in cands {
                let c = &self.chars[ci as usize];
                if !starts(cps, i, &c.cps) {
                    continue;
                }
                if !self.ctx_ok(c.ctx, label, i, c.cps.len()) {
                    let r = match c.ctx {
                        Ctx::When(r) | Ctx::NotWhen(r) => r,
                        Ctx::None => 0,
                    };
                    pending.push(self.rule_names.get(r as usize).cloned().unwrap_or_default());
                    continue;
                }
                taken = Some((ci, c.cps.len()));
                break;
            }
            match taken {
                Some((ci, n)) => {
                    if let Some(out) = chars.as_deref_mut() {
                        out.push(ci);
                    }
                    i += n;
                }
                None => {
                    failures.push(Failure { cp: cps[i], rules: pending });
                    i += 1;
                }
            }
        }
        failures
    }

    /// True when the repertoire test of [`Lgr::prelim`] finds no failure
    /// (RFC 7940 §8.1); stops at the first failing code point and never
    /// allocates.
    pub(crate) fn prelim_ok(&self, label: &Label) -> bool {
        let cps = label.cps();
        let mut i = 0;
        'pos: while i < cps.len() {
            for &ci in self.chars_from(cps[i]) {
                let c = &self.chars[ci as usize];
                if starts(cps, i, &c.cps) && self.ctx_ok(c.ctx, label, i, c.cps.len()) {
                    i += c.cps.len();
                    continue 'pos;
                }
            }
            return false;
        }
        true
    }

    /// Variant types of the reflexive variants valid in the label, and
    /// whether every element has one (RFC 7940 §5.3.4, §8.3).
    fn reflexive_types(&self, label: &Label) -> (TypeSet, bool) {
        if !self.has_reflexive {
            return (0, false);
        }
        let cps = label.cps();
        // `only` matters only when some reflexive variant is valid: look
        // for one first (most labels have none), testing only the elements
        // that have reflexive variants.
        let any = (0..cps.len()).any(|i| {
            self.chars_from(cps[i]).iter().any(|&ci| {
                let c = &self.chars[ci as usize];
                !c.reflexive.is_empty()
                    && starts(cps, i, &c.cps)
                    && self.ctx_ok(c.ctx, label, i, c.cps.len())
                    && c.reflexive.iter().any(|&vi| {
                        let v = &c.vars[vi as usize];
                        self.ctx_ok(v.ctx, label, i, v.cps.len())
                    })
            })
        });
        if !any {
            return (0, false);
        }
        let mut set: TypeSet = 0;
        let mut only = true;
        for i in 0..cps.len() {
            for &ci in self.chars_from(cps[i]) {
                let c = &self.chars[ci as usize];
                if !starts(cps, i, &c.cps) || !self.ctx_ok(c.ctx, label, i, c.cps.len()) {
                    continue;
                }
                let mut is_var = false;
                for &vi in &c.reflexive {
                    let v = &c.vars[vi as usize];
                    if self.ctx_ok(v.ctx, label, i, v.cps.len()) {
                        set |= v.typ;
                        is_var = true;
                    }
                }
                only &= is_var;
            }
        }
        (set, only && set != 0)
    }

    /// Does rule `r` match anywhere in the label (action `match` /
    /// `not-match`, RFC 7940 §7.2)? What every match contains is checked
    /// first ([`Lgr::may_match`]), which is much cheaper than the
    /// automaton search.
    fn rule_matches(&self, r: u32, label: &Label, mask: &mut Option<u64>) -> bool {
        if !self.may_match(r, label, mask) {
            debug_assert!(
                !self.rules[r as usize].found_in(label),
                "rule {r} matches a label without what its matches contain"
            );
            return false;
        }
        self.rules[r as usize].found_in(label)
    }

    /// False when rule `r` cannot match in the label: when the rules have
    /// term masks, no alternative of its terms (`rules::required_terms`)
    /// has all its sets in the label; else the label has none of its
    /// required set's code points (`rules::one_set`). `mask`: the
    /// label's mask of the sets (terms' or rules') it has code points of,
    /// computed on first use.
    pub(crate) fn may_match(&self, r: u32, label: &Label, mask: &mut Option<u64>) -> bool {
        let mut of = |masks: &super::compile::ReqMasks, sets: &[Option<super::CpSet>]| {
            *mask.get_or_insert_with(|| label.cps().iter().fold(0, |m, &c| m | masks.get(sets, c)))
        };
        if self.term_masks.usable {
            match self.rule_alts.get(r as usize) {
                Some(Some(alts)) => {
                    let m = of(&self.term_masks, &self.term_sets);
                    alts.iter().any(|&a| a & !m == 0)
                }
                _ => true,
            }
        } else if let Some(Some(req)) = self.rule_required.get(r as usize) {
            if self.req_masks.usable {
                of(&self.req_masks, &self.rule_required) & self.req_masks.bit(r) != 0
            } else {
                label.cps().iter().any(|&c| req.contains(c))
            }
        } else {
            true
        }
    }

    /// The first action that applies (RFC 7940 §8.3 steps 2–4).
    pub(crate) fn apply_actions(&self, label: &Label, set: TypeSet, only_variants: bool) -> usize {
        let mut mask = None;
        for (idx, a) in self.actions.iter().enumerate() {
            if let Some(r) = a.match_rule
                && !self.rule_matches(r, label, &mut mask)
            {
                continue;
            }
            if let Some(r) = a.not_match_rule
                && self.rule_matches(r, label, &mut mask)
            {
                continue;
            }
            let ok = match a.cond {
                None => true,
                Some(super::Cond::Any(t)) => set & t != 0,
                Some(super::Cond::All(t)) => set != 0 && set & !t == 0,
                Some(super::Cond::Only(t)) => only_variants && set != 0 && set & !t == 0,
            };
            if ok {
                return idx;
            }
        }
        self.actions.len() - 1
    }

    /// Eligibility of a label or variant label (RFC 7940 §8.3 step 1, with
    /// the original label's reflexive variants unless `as_variant`).
    pub(crate) fn eligibility(&self, label: &Label, as_variant: bool) -> Verdict<'_> {
        self.eligibility_pre(label, as_variant, None)
    }

    /// [`Lgr::eligibility`], with the result of [`Lgr::prelim_ok`] when
    /// the caller knows it.
    pub(super) fn eligibility_pre(
        &self,
        label: &Label,
        as_variant: bool,
        prelim_ok: Option<bool>,
    ) -> Verdict<'_> {
        if label.is_empty() {
            return Verdict { eligible: false, disposition: "invalid", reason: Reason::Empty };
        }
        let passed = prelim_ok.unwrap_or_else(|| self.prelim_ok(label));
        let failures = if passed { Vec::new() } else { self.prelim(label, None) };
        if !failures.is_empty() {
            return Verdict {
                eligible: false,
                disposition: "invalid",
                reason: Reason::Failures(failures),
            };
        }
        let (set, only) = if as_variant { (0, false) } else { self.reflexive_types(label) };
        let idx = self.apply_actions(label, set, only);
        let disposition = self.actions[idx].disp.as_str();
        Verdict { eligible: disposition != "invalid", disposition, reason: Reason::Action(idx) }
    }

    /// Judges a label given as code points, taken literally (RFC 7940 §8).
    pub fn judge(&self, cps: &[u32]) -> Verdict<'_> {
        self.judge_label(&Label::from_cps(cps))
    }

    /// Judges a prepared label (RFC 7940 §8).
    pub fn judge_label(&self, label: &Label) -> Verdict<'_> {
        self.eligibility(label, false)
    }

    /// The reason as text, in the form of the reference results:
    /// `U+0931 not in repertoire; U+094D does not comply with rules 'r'` or
    /// `action 3: disp=blocked any-variant=blocked "comment"`.
    pub fn reason_text(&self, reason: &Reason) -> String {
        match reason {
            Reason::Empty => "empty label".to_string(),
            Reason::Action(i) => self.actions.get(*i).map(|a| a.reason.clone()).unwrap_or_default(),
            Reason::Failures(f) => f
                .iter()
                .map(|f| {
                    if f.rules.is_empty() {
                        format!("{} not in repertoire", fmt_cps(&[f.cp]))
                    } else {
                        format!(
                            "{} does not comply with rules '{}'",
                            fmt_cps(&[f.cp]),
                            f.rules.join(",")
                        )
                    }
                })
                .collect::<Vec<_>>()
                .join("; "),
        }
    }
}

/// Does `cps[i..]` start with `elem`, whose first code point is known to be
/// `cps[i]` (it was found by [`Lgr::chars_from`])?
#[inline]
pub(super) fn starts(cps: &[u32], i: usize, elem: &[u32]) -> bool {
    elem.len() == 1 || cps[i..].starts_with(elem)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every label of up to `max` code points of `alphabet`, the empty one
    /// first.
    fn labels_of(alphabet: &[u32], max: usize) -> Vec<Vec<u32>> {
        let mut all: Vec<Vec<u32>> = vec![Vec::new()];
        let mut last = all.clone();
        for _ in 0..max {
            last = last
                .iter()
                .flat_map(|l| alphabet.iter().map(move |&c| [&l[..], &[c]].concat()))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    /// A rule is searched for only where what its matches contain
    /// (`rules::required_terms`) is in the label: never skipped where it
    /// matches, on every label of up to four code points of a small
    /// alphabet, for rules of many shapes (sequences, choices, code point
    /// sequences, optional and repeated parts, rule references, `<any/>`,
    /// look-arounds); and skipped where a sequence's second part is
    /// missing, which its smallest set alone would not tell.
    #[test]
    fn rules_are_skipped_only_where_they_cannot_match() {
        let xml = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
              <char cp="0061"/><char cp="0062"/><char cp="0063"/>
              <char cp="0031"/><char cp="0032"/><char cp="0966"/>
            </data><rules>
              <class name="eu">0031 0032</class>
              <class name="dv">0966</class>
              <rule name="mix"><choice>
                <rule><class by-ref="eu"/><any count="0+"/><class by-ref="dv"/></rule>
                <rule><class by-ref="dv"/><any count="0+"/><class by-ref="eu"/></rule>
              </choice></rule>
              <rule name="seq"><char cp="0061 0062"/></rule>
              <rule name="opt"><char cp="0061" count="0+"/><char cp="0063"/></rule>
              <rule name="ref"><rule by-ref="seq"/><choice><char cp="0063"/><class by-ref="dv"/></choice></rule>
              <rule name="rep"><class by-ref="eu" count="2"/></rule>
              <rule name="any"><any/></rule>
              <rule name="look"><look-behind><char cp="0062"/></look-behind><char cp="0061"/><look-ahead><class by-ref="dv"/></look-ahead></rule>
              <rule name="nested"><choice><rule by-ref="mix"/><rule by-ref="ref"/><char cp="0062" count="1+"/></choice><char cp="0031"/></rule>
              <action disp="invalid" match="mix"/><action disp="invalid" match="seq"/>
              <action disp="invalid" match="opt"/><action disp="invalid" match="ref"/>
              <action disp="invalid" match="rep"/><action disp="invalid" match="any"/>
              <action disp="invalid" match="look"/><action disp="invalid" match="nested"/>
            </rules></lgr>"#;
        let lgr = Lgr::from_xml("t", xml).expect("compiles");
        assert!(lgr.term_masks.usable);
        let mut skipped = 0;
        for cps in &labels_of(&[0x61, 0x62, 0x63, 0x31, 0x32, 0x966], 4) {
            let label = Label::from_cps(cps);
            let mut mask = None;
            for r in 0..lgr.rules.len() as u32 {
                let may = lgr.may_match(r, &label, &mut mask);
                assert!(may || !lgr.rules[r as usize].found_in(&label), "rule {r} on {cps:X?}");
                skipped += usize::from(!may);
            }
        }
        assert!(skipped > 1000, "{skipped}");
        // `mix` needs a digit of each kind: its smallest set alone (the
        // European digits) would not skip `1 2`.
        let mix = lgr.rule_names.iter().position(|n| n == "mix").expect("mix") as u32;
        for (cps, may) in
            [(&[0x31, 0x32][..], false), (&[0x966, 0x61], false), (&[0x31, 0x966], true)]
        {
            assert_eq!(lgr.may_match(mix, &Label::from_cps(cps), &mut None), may, "{cps:X?}");
        }
    }

    /// Rules in the context form (`rules::Context`) hold exactly where
    /// their automata match, on every label of up to five code points of a
    /// small alphabet and at every position: look-behinds of several
    /// lengths (nested rules, choices, an empty class, the label's start),
    /// look-aheads (with the end), two look-behinds together, and choices
    /// of whole alternatives. Rules of other shapes have no context form.
    /// Likewise rules without an anchor made of fixed-length sequences
    /// (`rules::Around::found_in`) are found where the automaton finds them.
    #[test]
    fn context_form_agrees_with_the_automata() {
        let xml = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
              <char cp="0061" tag="x"/><char cp="0062" tag="x"/><char cp="0063"/>
              <char cp="002D"/><char cp="0915"/>
            </data><rules>
              <class name="X" from-tag="x"/>
              <class name="none" from-tag="nothing"/>
              <rule name="pair"><class by-ref="X"/><char cp="0063"/></rule>
              <rule name="behind"><look-behind><choice><class by-ref="X"/>
                <rule by-ref="pair"/><char cp="0915 002D"/></choice></look-behind><anchor/></rule>
              <rule name="start"><look-behind><start/><any/><any/><char cp="002D"/></look-behind>
                <anchor/></rule>
              <rule name="empty"><look-behind><class by-ref="none"/><char cp="0063"/></look-behind>
                <anchor/></rule>
              <rule name="ahead"><anchor/><look-ahead><choice><class by-ref="X"/><end/>
                </choice></look-ahead></rule>
              <rule name="both"><look-behind><any/></look-behind><look-behind><class by-ref="X"/>
                </look-behind><anchor/><look-ahead><char cp="0063"/><any/></look-ahead></rule>
              <rule name="alts"><choice>
                <rule><look-behind><start/></look-behind><anchor/></rule>
                <rule><anchor/><look-ahead><end/></look-ahead></rule>
                <rule><look-behind><char cp="002D"/><char cp="002D"/></look-behind><anchor/></rule>
              </choice></rule>
              <rule name="counted"><look-behind><any count="1+"/></look-behind><anchor/></rule>
              <rule name="body"><anchor/><class by-ref="X"/></rule>
              <rule name="lead"><start/><class by-ref="X"/></rule>
              <rule name="tail"><choice><class by-ref="X"/><char cp="0915"/></choice><end/></rule>
              <rule name="pair-any"><char cp="0061"/><any/><class by-ref="none"/></rule>
              <rule name="whole"><start/><any/><any/><end/></rule>
              <rule name="middle-start"><char cp="0061"/><start/></rule>
              <rule name="gap"><char cp="0061"/><any count="0+"/><char cp="0063"/></rule>
            </rules></lgr>"#;
        let l = Lgr::from_xml("t", xml).expect("compiles");
        let with_form = ["behind", "start", "empty", "ahead", "both", "alts"];
        let with_fixed = ["pair", "lead", "tail", "pair-any", "whole"];
        let labels = labels_of(&[0x61, 0x62, 0x63, 0x2D, 0x915], 5);
        let mut checked = 0;
        for (r, name) in l.rule_names.iter().enumerate() {
            let rule = &l.rules[r];
            let form = rule.context();
            assert_eq!(form.is_some(), with_form.contains(&name.as_str()), "{name}");
            let fixed = rule.fixed();
            assert_eq!(fixed.is_some(), with_fixed.contains(&name.as_str()), "{name}");
            for cps in &labels {
                let label = Label::from_cps(cps);
                if let Some(fixed) = fixed {
                    let want = rule.matches(label.text());
                    assert_eq!(fixed.found_in(cps), want, "{name} {cps:04X?}");
                    checked += 1;
                }
                let Some(form) = form else { continue };
                for i in 0..cps.len() {
                    for len in 1..=(cps.len() - i).min(2) {
                        let want = rule.matches_at(label.text(), label.off(i), label.off(i + len));
                        assert_eq!(form.holds(cps, i, len), want, "{name} {cps:04X?} {i}+{len}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000);
    }

    /// [`Lgr::ldh_hyphens_as_letters`]: the built-in ascii LGR, and an
    /// LGR of the same shape, have it; it is lost with another hyphen rule,
    /// an action with a rule, a variant, or a context rule on a letter. Where
    /// it holds, LDH labels whose hyphens RFC 5891 allows are eligible as
    /// the letters-only label of their length is, on every label of up to
    /// six octets of a, 0 and the hyphen.
    #[test]
    fn hyphens_as_letters_needs_the_rfc_5891_rule_alone() {
        let ascii = crate::builtin::load("ascii").expect("built-in");
        assert!(ascii.ldh_hyphens_as_letters());
        let rule = |alts: &str| {
            format!(
                r#"<rule name="h"><choice>
                <rule><look-behind><start/></look-behind><anchor/></rule>
                <rule><anchor/><look-ahead><end/></look-ahead></rule>
                {alts}</choice></rule>"#
            )
        };
        let rfc = rule(
            r#"<rule><look-behind><start/><any/><any/><char cp="002D"/></look-behind><anchor/></rule>"#,
        );
        let lgr = |hyphen: &str, letter: &str, rules: &str| {
            let xml = format!(
                r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
                  <char cp="002D" {hyphen}/><range first-cp="0030" last-cp="0039"/>
                  <char cp="0061" {letter}/><range first-cp="0062" last-cp="007A"/>
                </data><rules>{rules}</rules></lgr>"#
            );
            Lgr::from_xml("t", &xml).expect("compiles")
        };
        let same = lgr(r#"not-when="h""#, "", &rfc);
        assert!(same.ldh_hyphens_as_letters());
        let third =
            rule(r#"<rule><look-behind><start/><any/><any/></look-behind><anchor/></rule>"#);
        let cases = [
            lgr(r#"not-when="h""#, "", &third),
            lgr(r#"when="h""#, "", &rfc),
            lgr("", "", &rfc),
            lgr(r#"not-when="h""#, r#"not-when="h""#, &rfc),
            lgr(r#"not-when="h""#, "", &format!(r#"{rfc}<action disp="invalid" match="h"/>"#)),
        ];
        for (k, l) in cases.iter().enumerate() {
            assert!(!l.ldh_hyphens_as_letters(), "case {k}");
        }
        let with_variant = Lgr::from_xml(
            "t",
            &format!(
                r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
                  <char cp="002D" not-when="h"/><range first-cp="0030" last-cp="0039"/>
                  <char cp="0061"><var cp="0062"/></char><char cp="0062"><var cp="0061"/></char>
                  <range first-cp="0063" last-cp="007A"/>
                </data><rules>{rfc}</rules></lgr>"#
            ),
        )
        .expect("compiles");
        assert!(!with_variant.ldh_hyphens_as_letters());
        let labels = labels_of(&[0x61, 0x30, 0x2D], 6);
        for l in [&ascii, &same] {
            for cps in labels.iter().filter(|c| !c.is_empty()) {
                let text: Vec<u8> = cps.iter().map(|&c| c as u8).collect();
                if !crate::idna2008::hyphens_allowed(&text) {
                    continue;
                }
                let letters = l.judge(&vec![0x61; cps.len()]);
                assert_eq!(l.judge(cps), letters, "{}", String::from_utf8_lossy(&text));
            }
        }
    }
}

//! Compilation of RFC 7940 rules (§6.3) to regex-automata DFAs.
//!
//! A rule is first expanded into alternatives of the shape
//! `[look-behind…] [anchor] body [look-ahead]` (the positional form the RELAX
//! NG schema allows). Each look-behind becomes an anchored *reverse* DFA that
//! must match ending where the anchor starts (see [`super::lookbehind`] for
//! one with an unbounded count); the body and look-ahead become
//! one anchored *forward* DFA that must match starting after the anchor. A rule
//! without anchor and look-around is one unanchored DFA searched anywhere in
//! the label, as the reference implementation's regex search does.
//!
//! Matching happens on the label's UTF-8 text; positions are byte offsets.
//!
//! Most context rules (`when` / `not-when`, RFC 7940 §6.4) are of a simpler
//! shape: look-behinds and a look-ahead of a few code points, each of a
//! class, a code point or any, around the anchor. Such a rule also gets a
//! [`Context`] form, tested on the label's code points directly: a few
//! set look-ups where the automata walk the text and are built on first
//! use.

use super::context::{Around, Atom, Context, edges_at_ends};
use super::cpset::CpSet;
use super::eval::Label;
use super::lookbehind::{LOOK_BEHIND_CAP, LookBehind};
use super::model::{Count, Matcher};
use crate::error::LgrError;
use regex_automata::dfa::{Automaton, StartKind, dense};
use regex_automata::nfa::thompson;
use regex_automata::{Anchored, Input, util::syntax};
use std::cell::Cell;
use std::fmt::Write;
use std::sync::OnceLock;

type Dfa = dense::DFA<Vec<u32>>;

/// An automaton built when the rule is compiled, or on first use (the
/// built-in LGRs, whose rules the tests build: many are never used by a
/// run, and building them is most of the time to load an LGR).
#[derive(Debug)]
pub(crate) struct LazyDfa {
    pat: String,
    reverse: bool,
    start: StartKind,
    dfa: OnceLock<Dfa>,
}

impl LazyDfa {
    /// The automaton of `pat`, built now within `budget`, or on first use
    /// when there is none (a built-in LGR's, or an unused rule's).
    pub(super) fn new(
        pat: &str,
        reverse: bool,
        start: StartKind,
        budget: Option<&AutomataBudget>,
    ) -> Result<LazyDfa, LgrError> {
        let dfa = OnceLock::new();
        if let Some(budget) = budget {
            let _ = dfa.set(budget.build(pat, reverse, start)?);
        }
        Ok(LazyDfa { pat: pat.to_string(), reverse, start, dfa })
    }

    /// The automaton. A lazy one that does not build panics: only the
    /// built-in LGRs are lazy, and `builtin::tests` builds all of theirs.
    #[inline]
    pub(super) fn get(&self) -> &Dfa {
        match self.dfa.get() {
            Some(d) => d,
            None => {
                self.try_get().unwrap_or_else(|e| panic!("built-in rule automaton: {}", e.message))
            }
        }
    }

    /// The automaton, built now if it was not.
    pub(super) fn try_get(&self) -> Result<&Dfa, LgrError> {
        if let Some(d) = self.dfa.get() {
            return Ok(d);
        }
        let d = build(&self.pat, self.reverse, self.start, DFA_SIZE_LIMIT)?;
        Ok(self.dfa.get_or_init(|| d))
    }
}

/// What the compiler needs to resolve references.
pub(crate) trait Resolver {
    /// The body of a named rule, for `by-ref`.
    fn rule_body(&self, name: &str) -> Option<&[Matcher]>;
    /// The code point set of a class expression.
    fn class_set(&self, expr: &super::model::ClassExpr) -> Result<CpSet, LgrError>;
}

#[derive(Debug)]
pub(crate) struct Alt {
    look_behind: Vec<LookBehind>,
    skip_anchor: bool,
    forward: Option<LazyDfa>,
}

/// A compiled rule.
#[derive(Debug)]
pub(crate) enum CompiledRule {
    /// The reference implementation's empty pattern: never matches.
    Never,
    /// No anchor and no look-around: one DFA searched anywhere; with the
    /// rule as fixed-length sequences of code points when it is one
    /// ([`Around::found_in`]).
    Anywhere(Box<LazyDfa>, Option<Box<Around>>),
    /// Alternatives with look-around and/or an anchor; `context`: the
    /// rule in [`Context`] form, when it has one.
    Alts { anchored: bool, alts: Vec<Alt>, context: Option<Box<Context>> },
}

impl CompiledRule {
    /// Builds the automata not built yet (see [`LazyDfa`]).
    ///
    /// # Errors
    /// An automaton that does not build.
    #[cfg(test)]
    pub(crate) fn build_all(&self) -> Result<(), LgrError> {
        let dfas: Vec<&LazyDfa> = match self {
            CompiledRule::Never => Vec::new(),
            CompiledRule::Anywhere(d, _) => vec![d],
            CompiledRule::Alts { alts, .. } => {
                alts.iter().flat_map(|a| &a.look_behind).try_for_each(LookBehind::build_all)?;
                alts.iter().flat_map(|a| &a.forward).collect()
            }
        };
        dfas.into_iter().try_for_each(|d| d.try_get().map(|_| ()))
    }

    /// How many of its look-behinds have a capped form apart from the open
    /// one (see [`super::lookbehind`]).
    #[cfg(test)]
    pub(crate) fn capped_forms(&self) -> usize {
        match self {
            CompiledRule::Alts { alts, .. } => alts
                .iter()
                .flat_map(|a| &a.look_behind)
                .filter(|lb| lb.capped_form().is_some())
                .count(),
            _ => 0,
        }
    }

    /// A rule searched anywhere, as fixed-length sequences, when it is one.
    #[cfg(test)]
    pub(crate) fn fixed(&self) -> Option<&Around> {
        match self {
            CompiledRule::Anywhere(_, f) => f.as_deref(),
            _ => None,
        }
    }

    /// The rule in [`Context`] form, when it has one.
    #[inline]
    pub(crate) fn context(&self) -> Option<&Context> {
        match self {
            CompiledRule::Alts { context, .. } => context.as_deref(),
            _ => None,
        }
    }

    /// [`CompiledRule::matches_at`] for the element at code points
    /// `i..i + len` of `label`: on the code points when the rule has a
    /// [`Context`] or fixed form (debug builds check the automata agree).
    pub(crate) fn holds_at(&self, label: &Label, i: usize, len: usize) -> bool {
        let by_cps = match self {
            CompiledRule::Alts { context: Some(c), .. } => Some(c.holds(label.cps(), i, len)),
            CompiledRule::Anywhere(_, Some(f)) => Some(f.found_in(label.cps())),
            _ => None,
        };
        let on_text = || self.matches_at(label.text(), label.off(i), label.off(i + len));
        match by_cps {
            Some(r) => {
                debug_assert_eq!(r, on_text(), "{self:?} at {i}+{len} of {:04X?}", label.cps());
                r
            }
            None => on_text(),
        }
    }

    /// [`CompiledRule::matches`] on `label`: on the code points when the
    /// rule has a fixed form (debug builds check the automaton agrees).
    pub(crate) fn found_in(&self, label: &Label) -> bool {
        match self {
            CompiledRule::Anywhere(_, Some(f)) => {
                let r = f.found_in(label.cps());
                debug_assert_eq!(r, self.matches(label.text()), "{self:?} in {:04X?}", label.cps());
                r
            }
            _ => self.matches(label.text()),
        }
    }

    /// Does the rule match `text` as a context rule for the code point (or
    /// sequence) at byte range `at..after`? Rules without an anchor are
    /// searched anywhere, as RFC 7940 §6.4 and the reference implementation do.
    pub(crate) fn matches_at(&self, text: &str, at: usize, after: usize) -> bool {
        match self {
            CompiledRule::Never => false,
            CompiledRule::Anywhere(d, _) => search_anywhere(d.get(), text),
            CompiledRule::Alts { anchored: true, alts, .. } => alts.iter().any(|a| {
                a.look_behind.iter().all(|lb| lb.ends_at(text, at))
                    && a.forward.as_ref().is_none_or(|f| {
                        starts_at(f.get(), text, if a.skip_anchor { after } else { at })
                    })
            }),
            CompiledRule::Alts { anchored: false, .. } => self.matches(text),
        }
    }

    /// Does the rule match anywhere in `text` (action `match`/`not-match`,
    /// RFC 7940 §7.2)? Alternatives that need an anchor never match here.
    pub(crate) fn matches(&self, text: &str) -> bool {
        match self {
            CompiledRule::Never => false,
            CompiledRule::Anywhere(d, _) => search_anywhere(d.get(), text),
            CompiledRule::Alts { alts, .. } => alts.iter().filter(|a| !a.skip_anchor).any(|a| {
                let positions =
                    text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len()));
                positions.into_iter().any(|p| {
                    a.look_behind.iter().all(|lb| lb.ends_at(text, p))
                        && a.forward.as_ref().is_none_or(|f| starts_at(f.get(), text, p))
                })
            }),
        }
    }
}

fn search_anywhere(d: &Dfa, text: &str) -> bool {
    if let Some(r) = run(d, text.as_bytes(), 0, text.len(), false, Anchored::No) {
        return r;
    }
    let input = Input::new(text).earliest(true);
    matches!(d.try_search_fwd(&input), Ok(Some(_)))
}

fn starts_at(d: &Dfa, text: &str, at: usize) -> bool {
    if let Some(r) = run(d, text.as_bytes(), at, text.len(), false, Anchored::Yes) {
        return r;
    }
    let input = Input::new(text).range(at..).anchored(Anchored::Yes).earliest(true);
    matches!(d.try_search_fwd(&input), Ok(Some(_)))
}

pub(super) fn ends_at(d: &Dfa, text: &str, at: usize) -> bool {
    if let Some(r) = run(d, text.as_bytes(), 0, at, true, Anchored::Yes) {
        return r;
    }
    let input = Input::new(text).range(..at).anchored(Anchored::Yes).earliest(true);
    matches!(d.try_search_rev(&input), Ok(Some(_)))
}

/// Whether `d` matches in `hay[start..end]` (searching backwards from `end`
/// when `rev`), as `try_search_fwd` / `try_search_rev` with `earliest`
/// would say, without their per-call set-up: the DFA walked byte by byte
/// until a match, dead or quit state, then the end-of-input transition
/// (the span always reaches the end of the text in the searched
/// direction). `None` when the caller must use the general search: a DFA
/// that can match the empty string in UTF-8 mode (the general search then
/// checks where empty matches fall), or no start state.
#[inline]
fn run(
    d: &Dfa,
    hay: &[u8],
    start: usize,
    end: usize,
    rev: bool,
    anchored: Anchored,
) -> Option<bool> {
    if d.has_empty() && d.is_utf8() {
        return None;
    }
    // Most rules have no look-around assertion before their first byte:
    // their start state is then one state whatever precedes the span, and
    // is kept in the automaton.
    let mut sid = match d.universal_start_state(anchored) {
        Some(sid) => sid,
        None => {
            let look_behind = if rev {
                hay.get(end).copied()
            } else {
                start.checked_sub(1).and_then(|i| hay.get(i).copied())
            };
            let cfg = regex_automata::util::start::Config::new()
                .anchored(anchored)
                .look_behind(look_behind);
            d.start_state(&cfg).ok()?
        }
    };
    let step = |sid| {
        if d.is_special_state(sid) {
            if d.is_match_state(sid) {
                return Some(true);
            }
            if d.is_dead_state(sid) || d.is_quit_state(sid) {
                return Some(false);
            }
        }
        None
    };
    let bytes = hay.get(start..end)?;
    if rev {
        for &b in bytes.iter().rev() {
            sid = d.next_state(sid, b);
            if let Some(r) = step(sid) {
                return Some(r);
            }
        }
    } else {
        for &b in bytes {
            sid = d.next_state(sid, b);
            if let Some(r) = step(sid) {
                return Some(r);
            }
        }
    }
    Some(d.is_match_state(d.next_eoi_state(sid)))
}

#[derive(Clone, Debug)]
enum Item {
    Frag(String),
    /// The look-behind's patterns: capped and open (see
    /// [`super::lookbehind`]).
    LookBehind(String, String),
    LookAhead(String),
    Anchor,
}

struct Compiler<'r, R: Resolver> {
    res: &'r R,
    stack: Vec<String>,
}

/// Upper bound on alternatives one rule expands to.
const MAX_ALTS: usize = 4096;

/// Compiles one named rule. Also returns the rule's key: text that
/// determines the compiled rule entirely (its kind and the patterns of its
/// automata), so that two rules with equal keys, in any LGRs, match the
/// same texts at the same positions.
///
/// `budget`: the automata are built now, within it; `None`: on first use
/// (see [`LazyDfa`]).
pub(crate) fn compile<R: Resolver>(
    res: &R,
    name: &str,
    budget: Option<&AutomataBudget>,
) -> Result<(CompiledRule, String), LgrError> {
    let body = res
        .rule_body(name)
        .ok_or_else(|| LgrError::new(format!("reference to undefined rule '{name}'")))?;
    let mut c = Compiler { res, stack: vec![name.to_string()] };
    if c.pattern_is_empty(body)? {
        return Ok((CompiledRule::Never, "never".to_string()));
    }
    let alts = c.expand(body)?;
    let anchored = alts.iter().any(|a| a.iter().any(|i| matches!(i, Item::Anchor)));
    let special = alts.iter().any(|a| {
        a.iter().any(|i| matches!(i, Item::Anchor | Item::LookAhead(_) | Item::LookBehind(..)))
    });
    if !special {
        let pats: Vec<String> =
            alts.iter().map(|a| a.iter().map(frag_text).collect::<String>()).collect();
        let pat = pats.iter().map(|p| format!("(?:{p})")).collect::<Vec<_>>().join("|");
        let key = format!("anywhere\u{1}{pat}");
        let dfa = Box::new(LazyDfa::new(&pat, false, StartKind::Unanchored, budget)?);
        let fixed = c.fixed_seq(body).ok().flatten().filter(|seqs| edges_at_ends(seqs, true, true));
        return Ok((CompiledRule::Anywhere(dfa, fixed.map(|seqs| Box::new(Around { seqs }))), key));
    }
    // Patterns are made of ASCII escapes and regex syntax: the control
    // characters used as separators never occur in them.
    let mut key = format!("alts\u{1}{anchored}");
    let mut out = Vec::with_capacity(alts.len());
    for alt in alts {
        let mut i = 0;
        let mut look_behind = Vec::new();
        key.push('\u{2}');
        while let Some(Item::LookBehind(p, open)) = alt.get(i) {
            look_behind.push(LookBehind::new(p, open, budget)?);
            // The capped pattern says what the look-behind matches: the
            // open one only stands for it where they agree.
            key.push('\u{3}');
            key.push_str(p);
            i += 1;
        }
        let mut skip_anchor = false;
        if let Some(Item::Anchor) = alt.get(i) {
            skip_anchor = true;
            i += 1;
        }
        let mut fwd = String::new();
        let mut seen_look_ahead = false;
        for item in &alt[i..] {
            match item {
                Item::Frag(p) if !seen_look_ahead => fwd.push_str(p),
                Item::LookAhead(p) => {
                    seen_look_ahead = true;
                    fwd.push_str(&format!("(?:{p})"));
                }
                Item::Frag(_) => {
                    return Err(LgrError::new("a look-ahead must be the last element of its rule"));
                }
                Item::Anchor => {
                    return Err(LgrError::new("an anchor may only follow look-behind elements"));
                }
                Item::LookBehind(..) => {
                    return Err(LgrError::new("a look-behind may only come before the anchor"));
                }
            }
        }
        let forward = if fwd.is_empty() {
            None
        } else {
            Some(LazyDfa::new(&fwd, false, StartKind::Anchored, budget)?)
        };
        key.push_str(if skip_anchor { "\u{4}1" } else { "\u{4}0" });
        key.push('\u{5}');
        key.push_str(&fwd);
        out.push(Alt { look_behind, skip_anchor, forward });
    }
    let context = if anchored { c.context(body).ok().flatten().map(Box::new) } else { None };
    Ok((CompiledRule::Alts { anchored, alts: out, context }, key))
}

/// Most sequences a look-around of a [`Context`] expands to.
const MAX_CONTEXT_SEQS: usize = 256;

/// An item of an alternative of a rule in [`Context`] form.
enum CtxItem {
    Behind(Around),
    Ahead(Around),
    Anchor,
}

/// What every match of a rule contains, in disjunctive form: the match
/// satisfies some alternative, each of whose sets holds a code point of the
/// match. An alternative without sets holds for any label.
pub(crate) type Terms = Vec<Vec<CpSet>>;

/// Most alternatives [`required_terms`] keeps: past it, the parts of a
/// sequence are weakened to one set each (see [`weaken`]).
const TERM_ALTS: usize = 16;

/// Most sets an alternative of [`Terms`] keeps (its smallest).
const TERM_SETS: usize = 8;

/// The [`Terms`] of rule `name` (`None` when a match may hold none of its
/// code points: `<any/>`, an optional part, a look-around, an empty
/// class). A sequence needs a code point of each of its parts, not only of
/// its smallest (see [`one_set`]), so a rule that matches
/// European and Devanagari digits in one label (`digit-mixing`) needs
/// both kinds of digit, and a label of Devanagari digits alone skips its
/// automaton search. Weakening a condition (fewer sets, or a union for
/// several alternatives) keeps it true of every match.
pub(crate) fn required_terms<R: Resolver>(res: &R, name: &str) -> Result<Option<Terms>, LgrError> {
    let body = res
        .rule_body(name)
        .ok_or_else(|| LgrError::new(format!("reference to undefined rule '{name}'")))?;
    let mut c = Compiler { res, stack: vec![name.to_string()] };
    c.terms_seq(body)
}

/// At most [`TERM_SETS`] sets, the smallest (fewer sets: a weaker
/// condition).
fn trim(mut sets: Vec<CpSet>) -> Vec<CpSet> {
    if sets.len() > TERM_SETS {
        sets.sort_by_key(CpSet::len);
        sets.truncate(TERM_SETS);
    }
    sets
}

/// One set of which every match of a rule with terms `t` holds a code
/// point (see [`weaken`]), when there is one: the coarser test, for an LGR
/// whose rules have too many distinct sets to test the terms by masks.
pub(crate) fn one_set(t: &Terms) -> Option<CpSet> {
    weaken(t).pop()?.pop()
}

/// One alternative of one set that every match of `t` has a code point
/// of: the union of the smallest set of each alternative (none when an
/// alternative has no set).
fn weaken(t: &Terms) -> Terms {
    let mut u = CpSet::new();
    for alt in t {
        match alt.iter().min_by_key(|s| s.len()) {
            Some(s) => u = u.union(s),
            None => return vec![Vec::new()],
        }
    }
    vec![vec![u]]
}

/// Both `a` and `b`: every pair of their alternatives, joined (each
/// weakened to one alternative first when the pairs would be too many).
fn terms_and(a: Terms, b: Terms) -> Terms {
    let (a, b) = if a.len() * b.len() > TERM_ALTS { (weaken(&a), weaken(&b)) } else { (a, b) };
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in &a {
        for y in &b {
            let mut sets = x.clone();
            for s in y {
                if !sets.contains(s) {
                    sets.push(s.clone());
                }
            }
            out.push(trim(sets));
        }
    }
    out
}

/// Each of the sequences `acc` followed by each of `options`.
fn followed_by<T: Clone>(acc: &[Vec<T>], options: &[Vec<T>]) -> Vec<Vec<T>> {
    let mut next = Vec::with_capacity(acc.len() * options.len());
    for a in acc {
        for o in options {
            let mut v = a.clone();
            v.extend_from_slice(o);
            next.push(v);
        }
    }
    next
}

fn frag_text(i: &Item) -> &str {
    match i {
        Item::Frag(s) => s,
        _ => "",
    }
}

/// Bounds on the automata one rule may build, so that a hostile or broken
/// LGR (`<class property="gc:L" count="9999"/>`) is refused quickly rather
/// than compiled for minutes. ICANN's largest LGRs stay far below them.
pub(super) const NFA_SIZE_LIMIT: usize = 4 << 20;
const DFA_SIZE_LIMIT: usize = 16 << 20;

/// The bound on all the dense automata one LGR file builds, in bytes.
/// One automaton is bounded to 16 MiB, but a rule may have thousands of
/// alternatives and a file thousands of rules: 104 rules of 115 bytes
/// each, every automaton under that limit, took 13.6 s and 761 MB to
/// load. Building time follows the automata's size, so this bounds both
/// (that file is now refused in 1.4 s). ICANN's published LGRs build at
/// most 1.4 MB (the second-level common LGR), 48 times less.
pub const MAX_AUTOMATA_BYTES: usize = 64 << 20;

/// What is left of [`MAX_AUTOMATA_BYTES`] while one LGR's rules are
/// compiled (one thread: the rules compile in order).
pub(crate) struct AutomataBudget {
    left: Cell<usize>,
}

impl AutomataBudget {
    pub(crate) fn new() -> AutomataBudget {
        AutomataBudget { left: Cell::new(MAX_AUTOMATA_BYTES) }
    }

    /// The automaton of `pat`, no larger than one may be nor than what is
    /// left, its size then spent.
    fn build(&self, pat: &str, reverse: bool, start: StartKind) -> Result<Dfa, LgrError> {
        let left = self.left.get();
        let dfa = build(pat, reverse, start, DFA_SIZE_LIMIT.min(left)).map_err(|e| {
            if left < DFA_SIZE_LIMIT {
                LgrError::new(format!("{}{}", e.message, over_budget(left)))
            } else {
                e
            }
        })?;
        self.left.set(left.saturating_sub(dfa.memory_usage()));
        Ok(dfa)
    }

    /// Spends `bytes` built elsewhere (a look-behind's lazy automaton,
    /// [`super::lookbehind`]); an error when they are more than is left.
    pub(super) fn spend(&self, bytes: usize) -> Result<(), LgrError> {
        let left = self.left.get();
        let left = left.checked_sub(bytes).ok_or_else(|| {
            LgrError::new(format!("its automata need {bytes} bytes{}", over_budget(left)))
        })?;
        self.left.set(left);
        Ok(())
    }
}

/// The end of the message of an automaton that does not fit in what is
/// left of [`MAX_AUTOMATA_BYTES`].
fn over_budget(left: usize) -> String {
    format!(
        "; the rules before it left {left} of the {} bytes an LGR's automata may take",
        MAX_AUTOMATA_BYTES
    )
}

fn build(pat: &str, reverse: bool, start: StartKind, limit: usize) -> Result<Dfa, LgrError> {
    dense::Builder::new()
        .configure(
            dense::DFA::config()
                .start_kind(start)
                .minimize(false)
                .dfa_size_limit(Some(limit))
                .determinize_size_limit(Some(limit)),
        )
        .syntax(syntax::Config::new().unicode(true).utf8(true))
        .thompson(thompson::Config::new().reverse(reverse).nfa_size_limit(Some(NFA_SIZE_LIMIT)))
        .build(pat)
        .map_err(|e| automaton_error(&e))
}

/// The error for an automaton that does not build, with its causes.
pub(super) fn automaton_error(e: &dyn std::error::Error) -> LgrError {
    let mut msg = format!("does not compile to an automaton: {e}");
    let mut src = e.source();
    while let Some(s) = src {
        msg.push_str(&format!(": {s}"));
        src = s.source();
    }
    LgrError::new(msg)
}

/// The regex suffix of count `c` (RFC 7940 §5.3.3); `cap`: a count with
/// no maximum is capped at [`LOOK_BEHIND_CAP`] repeats, as the reference
/// writes it inside a look-behind (see [`super::lookbehind`]).
fn count_suffix(c: Option<Count>, cap: bool) -> String {
    match c {
        None => String::new(),
        Some(Count { min, max: Some(m) }) if min == m => format!("{{{min}}}"),
        Some(Count { min, max: Some(m) }) => format!("{{{min},{m}}}"),
        Some(Count { min, max: None }) if cap => {
            format!("{{{min},{}}}", LOOK_BEHIND_CAP.max(min))
        }
        Some(Count { min, max: None }) => format!("{{{min},}}"),
    }
}

fn push_cp(s: &mut String, cp: u32) {
    let _ = write!(s, "\\x{{{cp:X}}}");
}

fn set_pattern(set: &CpSet) -> String {
    if set.is_empty() {
        return "(?:)".to_string();
    }
    let mut s = String::from("[");
    for &(a, b) in set.ranges() {
        push_cp(&mut s, a);
        if b > a {
            s.push('-');
            push_cp(&mut s, b);
        }
    }
    s.push(']');
    s
}

impl<'r, R: Resolver> Compiler<'r, R> {
    fn enter(&mut self, name: &str) -> Result<&'r [Matcher], LgrError> {
        let res: &'r R = self.res;
        if self.stack.iter().any(|n| n == name) {
            let mut chain = self.stack.clone();
            chain.push(name.to_string());
            return Err(LgrError::new(format!("cyclic rule reference: {}", chain.join(" -> "))));
        }
        let body = res
            .rule_body(name)
            .ok_or_else(|| LgrError::new(format!("reference to undefined rule '{name}'")))?;
        self.stack.push(name.to_string());
        Ok(body)
    }

    /// `f` on the body of rule `name`, entered (see [`Compiler::enter`])
    /// for the time of the call.
    fn in_rule<T>(
        &mut self,
        name: &str,
        f: impl FnOnce(&mut Self, &'r [Matcher]) -> Result<T, LgrError>,
    ) -> Result<T, LgrError> {
        let body = self.enter(name)?;
        let r = f(self, body);
        self.stack.pop();
        r
    }

    /// The alternatives `one` gives for each of the items of a choice,
    /// together; `None` when it gives none for one of them.
    fn choice_of<T>(
        &mut self,
        items: &[Matcher],
        mut one: impl FnMut(&mut Self, &Matcher) -> Result<Option<Vec<T>>, LgrError>,
    ) -> Result<Option<Vec<T>>, LgrError> {
        let mut out = Vec::new();
        for m in items {
            let Some(alts) = one(self, m)? else { return Ok(None) };
            out.extend(alts);
        }
        Ok(Some(out))
    }

    /// The [`Terms`] of a sequence: those of each part, joined.
    fn terms_seq(&mut self, seq: &[Matcher]) -> Result<Option<Terms>, LgrError> {
        let mut all: Option<Terms> = None;
        for m in seq {
            if let Some(t) = self.terms_one(m)? {
                all = Some(match all {
                    None => t,
                    Some(a) => terms_and(a, t),
                });
            }
        }
        Ok(all)
    }

    /// The [`Terms`] of one part (`None`: it may match no code point).
    fn terms_one(&mut self, m: &Matcher) -> Result<Option<Terms>, LgrError> {
        let at_least_once = |c: &Option<Count>| c.is_none_or(|c| c.min >= 1);
        Ok(match m {
            Matcher::Char(cps, c) if at_least_once(c) && !cps.is_empty() => {
                let mut cps = cps.clone();
                cps.sort_unstable();
                cps.dedup();
                Some(vec![trim(cps.iter().map(|&cp| CpSet::from_ranges(vec![(cp, cp)])).collect())])
            }
            Matcher::Class(e, c) if at_least_once(c) => {
                // An empty class compiles to the empty pattern, which
                // matches the empty string (as in the reference).
                Some(self.res.class_set(e)?).filter(|s| !s.is_empty()).map(|s| vec![vec![s]])
            }
            Matcher::Seq(s, c) if at_least_once(c) => self.terms_seq(s)?,
            Matcher::RuleRef(n, c) if at_least_once(c) => {
                self.in_rule(n, |me, body| me.terms_seq(body))?
            }
            // An empty choice is left to the automaton.
            Matcher::Choice(alts, c) if at_least_once(c) && !alts.is_empty() => self
                .choice_of(alts, Self::terms_one)?
                .map(|out| if out.len() > TERM_ALTS { weaken(&out) } else { out }),
            _ => None,
        })
    }

    /// Would the reference implementation's pattern for `seq` be the empty
    /// string (a rule it treats as never matching)?
    fn pattern_is_empty(&mut self, seq: &[Matcher]) -> Result<bool, LgrError> {
        for m in seq {
            let empty = match m {
                Matcher::Class(e, None) => self.res.class_set(e)?.is_empty(),
                Matcher::Seq(s, None) => self.pattern_is_empty(s)?,
                Matcher::RuleRef(n, None) => self.in_rule(n, Self::pattern_is_empty)?,
                _ => false,
            };
            if !empty {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn special(&mut self, m: &Matcher) -> Result<bool, LgrError> {
        Ok(match m {
            Matcher::Anchor | Matcher::LookAhead(_) | Matcher::LookBehind(_) => true,
            Matcher::Seq(s, _) | Matcher::Choice(s, _) => {
                let mut any = false;
                for x in s {
                    any |= self.special(x)?;
                }
                any
            }
            Matcher::RuleRef(n, _) => self.in_rule(n, |me, body| {
                let mut any = false;
                for x in body {
                    any |= me.special(x)?;
                }
                Ok(any)
            })?,
            _ => false,
        })
    }

    /// Expands a sequence into alternatives of items.
    fn expand(&mut self, seq: &[Matcher]) -> Result<Vec<Vec<Item>>, LgrError> {
        let mut acc: Vec<Vec<Item>> = vec![Vec::new()];
        for m in seq {
            let options = self.expand_one(m)?;
            if acc.len() * options.len() > MAX_ALTS {
                return Err(LgrError::new(format!("expands to more than {MAX_ALTS} alternatives")));
            }
            acc = followed_by(&acc, &options);
        }
        // Merge adjacent fragments.
        for alt in &mut acc {
            let mut merged: Vec<Item> = Vec::with_capacity(alt.len());
            for it in alt.drain(..) {
                match (merged.last_mut(), it) {
                    (Some(Item::Frag(a)), Item::Frag(b)) => a.push_str(&b),
                    (_, it) => merged.push(it),
                }
            }
            *alt = merged;
        }
        Ok(acc)
    }

    fn expand_one(&mut self, m: &Matcher) -> Result<Vec<Vec<Item>>, LgrError> {
        if !self.special(m)? {
            return Ok(vec![vec![Item::Frag(self.pattern(m, false)?)]]);
        }
        match m {
            Matcher::Anchor => Ok(vec![vec![Item::Anchor]]),
            Matcher::LookAhead(s) => Ok(vec![vec![Item::LookAhead(self.plain_seq(s, false)?)]]),
            Matcher::LookBehind(s) => {
                // The two forms are equal unless a count was capped
                // (`LookBehind::new` compares them).
                let (capped, open) = (self.plain_seq(s, true)?, self.plain_seq(s, false)?);
                Ok(vec![vec![Item::LookBehind(capped, open)]])
            }
            Matcher::Seq(s, None) => self.expand(s),
            Matcher::RuleRef(n, None) => self.in_rule(n, Self::expand),
            Matcher::Choice(s, None) => {
                let mut out = Vec::new();
                for x in s {
                    out.extend(self.expand_one(x)?);
                }
                Ok(out)
            }
            _ => Err(LgrError::new(
                "a 'count' may not apply to an element containing an anchor or look-around",
            )),
        }
    }

    fn plain_seq(&mut self, seq: &[Matcher], cap: bool) -> Result<String, LgrError> {
        let mut s = String::new();
        for m in seq {
            if self.special(m)? {
                return Err(LgrError::new(
                    "anchors and look-around may not be nested in look-around",
                ));
            }
            s.push_str(&self.pattern(m, cap)?);
        }
        Ok(s)
    }

    /// The rule of body `seq` in [`Context`] form, if it has one: each
    /// alternative (as [`Compiler::expand`] makes them) is look-behinds,
    /// the anchor and at most one look-ahead, in that order.
    fn context(&mut self, seq: &[Matcher]) -> Result<Option<Context>, LgrError> {
        let Some(alts) = self.ctx_seq(seq)? else { return Ok(None) };
        let mut out = Vec::with_capacity(alts.len());
        for alt in alts {
            let mut behind = Vec::new();
            let mut items = alt.into_iter().peekable();
            while let Some(CtxItem::Behind(_)) = items.peek() {
                if let Some(CtxItem::Behind(b)) = items.next() {
                    behind.push(b);
                }
            }
            if !matches!(items.next(), Some(CtxItem::Anchor)) {
                return Ok(None);
            }
            let ahead = match items.next() {
                None => None,
                Some(CtxItem::Ahead(a)) => Some(a),
                Some(_) => return Ok(None),
            };
            if items.next().is_some() {
                return Ok(None);
            }
            // The start only in a look-behind, the end only in a look-ahead.
            if !behind.iter().all(|b| edges_at_ends(&b.seqs, true, false))
                || !ahead.iter().all(|a| edges_at_ends(&a.seqs, false, true))
            {
                return Ok(None);
            }
            out.push((behind, ahead));
        }
        Ok(Some(Context { alts: out }))
    }

    /// The alternatives of a sequence in [`Context`] form (`None`: not of
    /// that form).
    fn ctx_seq(&mut self, seq: &[Matcher]) -> Result<Option<Vec<Vec<CtxItem>>>, LgrError> {
        if let [m] = seq {
            return self.ctx_one(m);
        }
        // Alternatives only from a choice that is the whole rule.
        let mut items = Vec::new();
        for m in seq {
            match self.ctx_one(m)? {
                Some(options) if options.len() == 1 => items.extend(options.into_iter().flatten()),
                _ => return Ok(None),
            }
        }
        Ok(Some(vec![items]))
    }

    fn ctx_one(&mut self, m: &Matcher) -> Result<Option<Vec<Vec<CtxItem>>>, LgrError> {
        Ok(match m {
            Matcher::Anchor => Some(vec![vec![CtxItem::Anchor]]),
            Matcher::LookBehind(s) => {
                self.fixed_seq(s)?.map(|seqs| vec![vec![CtxItem::Behind(Around { seqs })]])
            }
            Matcher::LookAhead(s) => {
                self.fixed_seq(s)?.map(|seqs| vec![vec![CtxItem::Ahead(Around { seqs })]])
            }
            Matcher::Seq(s, None) => self.ctx_seq(s)?,
            Matcher::RuleRef(n, None) => self.in_rule(n, Self::ctx_seq)?,
            Matcher::Choice(s, None) => self.choice_of(s, Self::ctx_one)?,
            _ => None,
        })
    }

    /// The code point sequences a look-around's content matches, when
    /// they are of fixed lengths and few.
    fn fixed_seq(&mut self, seq: &[Matcher]) -> Result<Option<Vec<Vec<Atom>>>, LgrError> {
        let mut acc: Vec<Vec<Atom>> = vec![Vec::new()];
        for m in seq {
            let Some(options) = self.fixed_one(m)? else { return Ok(None) };
            if acc.len() * options.len() > MAX_CONTEXT_SEQS {
                return Ok(None);
            }
            acc = followed_by(&acc, &options);
        }
        Ok(Some(acc))
    }

    fn fixed_one(&mut self, m: &Matcher) -> Result<Option<Vec<Vec<Atom>>>, LgrError> {
        Ok(match m {
            Matcher::Start => Some(vec![vec![Atom::Start]]),
            Matcher::End => Some(vec![vec![Atom::End]]),
            Matcher::Any(None) => Some(vec![vec![Atom::Any]]),
            Matcher::Char(cps, None) => Some(vec![cps.iter().map(|&c| Atom::Cp(c)).collect()]),
            Matcher::Class(e, None) => {
                let set = self.res.class_set(e)?;
                // An empty class is the empty pattern (see `set_pattern`).
                Some(vec![if set.is_empty() { Vec::new() } else { vec![Atom::of_set(set)] }])
            }
            Matcher::Seq(s, None) => self.fixed_seq(s)?,
            Matcher::RuleRef(n, None) => self.in_rule(n, Self::fixed_seq)?,
            Matcher::Choice(s, None) => {
                self.choice_of(s, Self::fixed_one)?.filter(|out| out.len() <= MAX_CONTEXT_SEQS)
            }
            _ => None,
        })
    }

    /// The regex for a matcher with no anchor and no look-around; `cap`:
    /// as in [`count_suffix`].
    fn pattern(&mut self, m: &Matcher, cap: bool) -> Result<String, LgrError> {
        Ok(match m {
            Matcher::Start => "^".into(),
            Matcher::End => "$".into(),
            Matcher::Any(c) => format!("(?s:.){}", count_suffix(*c, cap)),
            Matcher::Char(cps, c) => {
                let mut s = String::new();
                for &cp in cps {
                    push_cp(&mut s, cp);
                }
                if c.is_some() { format!("(?:{s}){}", count_suffix(*c, cap)) } else { s }
            }
            Matcher::Class(e, c) => {
                let s = set_pattern(&self.res.class_set(e)?);
                if c.is_some() { format!("(?:{s}){}", count_suffix(*c, cap)) } else { s }
            }
            Matcher::Seq(s, c) => {
                let inner = self.plain_seq(s, cap)?;
                format!("(?:{inner}){}", count_suffix(*c, cap))
            }
            Matcher::RuleRef(n, c) => {
                let inner = self.in_rule(n, |me, body| me.plain_seq(body, cap))?;
                format!("(?:{inner}){}", count_suffix(*c, cap))
            }
            Matcher::Choice(s, c) => {
                let mut parts = Vec::new();
                for x in s {
                    parts.push(self.pattern(x, cap)?);
                }
                format!("(?:{}){}", parts.join("|"), count_suffix(*c, cap))
            }
            Matcher::Anchor | Matcher::LookAhead(_) | Matcher::LookBehind(_) => {
                return Err(LgrError::new("anchors and look-around may not be nested here"));
            }
        })
    }
}

//! Look-behinds (RFC 7940 §5.4.2, §6.4), and those with an unbounded
//! count (`count="n+"`, RFC 7940 §5.3.3) in particular.
//!
//! The reference implementation writes a count `n+` inside a look-behind
//! as `{n,63}`, not `{n,}`: its regex engine needs look-behinds of bounded
//! length, and 63 is the longest label (RFC 1035 §2.3.4). A dense DFA of
//! that *capped* form counts up to 63 repeats, and with a large class
//! (`x[\p{L}]{0,63}`) it exceeds the size limit of [`super::rules`] after
//! some seconds: such an LGR, legal, was refused. Its *open* form
//! (`x[\p{L}]*`) determinizes small, and gives the same answers while the
//! look-behind sees at most 63 code points:
//!
//! **Claim.** Let the capped form of a pattern write each count `n+` as
//! `{n,M}` with `M = max(n, 63)` (as the reference does), and the open form
//! as `{n,}`. For any text and positions `i ≤ j` with at most 63 code
//! points between them, the capped form matches `text[i..j]` if and only
//! if the open form does.
//!
//! *Proof*, by induction on the pattern. Only a count `X{n,}` needs care
//! (the other constructs match a span by matching parts of it; a part of a
//! span of at most 63 code points has at most 63). `{n,M}` ⊆ `{n,}` gives
//! one direction. Conversely, let `X{n,}` match `text[i..j]` as `k ≥ n`
//! matches of `X` at positions `i = p0 ≤ p1 ≤ … ≤ pk = j`; each lies in
//! `i..j`, so `X`'s capped form matches it too (induction). At most 63 of
//! them are not empty, each holding a code point. If `k > M`, then
//! `k > 63` and at least `k − 63` are empty (`p(t) = p(t+1)`); dropping
//! one still leaves a chain from `i` to `j` (assertions such as `^` look
//! at the text around a position, which dropping does not change), so we
//! drop empty ones down to `max(n, 63) = M` matches: the capped form
//! matches. ∎
//!
//! A look-behind ending at the anchor matches a span of the text before
//! it. When at most 63 code points precede the anchor, the open form's
//! dense DFA therefore gives the reference's answer. Every label a DNS
//! zone holds is that short (63 octets at most), but the library judges
//! code point sequences of any length ([`super::Lgr::judge`]), and there
//! the cap does change answers (`x` then 64 letters: the reference's
//! `(?<=x\p{L}{0,63})-` fails). Past 63 code points the capped form is
//! searched, on a lazy DFA (`regex_automata::hybrid`): it only builds its
//! NFA up front (under the same NFA size limit as the dense DFAs) and adds
//! the states a search visits. A capped form whose NFA is over that limit
//! (two unbounded counts of a large class) gives way to the open form,
//! which then answers past 63 code points too, as RFC 7940 reads the
//! count (see `Far`); a count too large for the open form is refused
//! quickly, as before. Its caches are kept in a pool, one taken per
//! search, so threads share the LGR. Look-behinds without an unbounded
//! count (all those of ICANN's LGRs) have one form and keep their one
//! dense DFA.

use super::rules::{AutomataBudget, LazyDfa, NFA_SIZE_LIMIT, automaton_error, ends_at};
use crate::error::LgrError;
use regex_automata::dfa::StartKind;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::util::{pool::Pool, syntax};
use regex_automata::{Anchored, Input};
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::OnceLock;

/// Most repeats of a count `n+` (when `n` is smaller) inside a look-behind,
/// as the reference implementation writes it: the longest label the
/// protocol allows (RFC 1035 §2.3.4).
pub(crate) const LOOK_BEHIND_CAP: u32 = 63;

/// A look-behind of a rule's alternative: does it match a span ending at
/// a position?
#[derive(Debug)]
pub(crate) struct LookBehind {
    /// The reverse DFA of the pattern: of its open form when it has `far`.
    near: LazyDfa,
    /// The capped form, for a position after more than
    /// [`LOOK_BEHIND_CAP`] code points, when it differs from the open one.
    far: Option<Box<Far>>,
}

impl LookBehind {
    /// The look-behind of patterns `capped` (the reference's) and `open`
    /// (unbounded counts left unbounded), built now within `budget`, or on
    /// first use when there is none (see [`LazyDfa`]).
    ///
    /// # Errors
    /// The open form's automaton does not build (a capped form that does
    /// not is left out: see `Far`).
    pub(crate) fn new(
        capped: &str,
        open: &str,
        budget: Option<&AutomataBudget>,
    ) -> Result<LookBehind, LgrError> {
        let far = if capped == open { None } else { Some(Box::new(Far::new(capped, budget)?)) };
        let near = LazyDfa::new(open, true, StartKind::Anchored, budget)?;
        Ok(LookBehind { near, far })
    }

    /// Builds the automata not built yet.
    ///
    /// # Errors
    /// An automaton that does not build.
    #[cfg(test)]
    pub(crate) fn build_all(&self) -> Result<(), LgrError> {
        if let Some(far) = &self.far {
            far.get();
        }
        self.near.try_get().map(|_| ())
    }

    /// Whether it has a capped form apart from the open one, and whether
    /// that one builds.
    #[cfg(test)]
    pub(crate) fn capped_form(&self) -> Option<bool> {
        self.far.as_ref().map(|far| far.get().is_some())
    }

    /// Does the look-behind match a span of `text` ending at byte `at`?
    #[inline]
    pub(crate) fn ends_at(&self, text: &str, at: usize) -> bool {
        match self.far.as_ref().filter(|_| more_than_cap(text, at)).and_then(|far| far.get()) {
            Some(capped) => capped.ends_at(text, at),
            None => ends_at(self.near.get(), text, at),
        }
    }
}

/// Are there more than [`LOOK_BEHIND_CAP`] code points before byte `at`?
fn more_than_cap(text: &str, at: usize) -> bool {
    let cap = LOOK_BEHIND_CAP as usize;
    let before = &text.as_bytes()[..at.min(text.len())];
    // UTF-8: a code point is a byte that is not a continuation byte.
    before.len() > cap && before.iter().filter(|&&b| (b as i8) >= -0x40).count() > cap
}

/// A look-behind's capped form, built now or on first use as a
/// [`LazyDfa`] is; `None` when its NFA is over the size limit.
///
/// The capped form repeats each count's class up to 63 times, so with two
/// unbounded counts of a large class (`\p{L}{1,63}x\p{L}{0,63}`) its NFA
/// passes [`NFA_SIZE_LIMIT`] where the open form's stays small. Such an
/// LGR is legal (RFC 7940 §5.3.3), and was refused whole. The open form
/// then serves every position: the same answers as the reference wherever
/// at most 63 code points precede the anchor (the claim above: every DNS
/// label), and RFC 7940's own (the count unbounded) past them, where the
/// reference's cap is an artifact of its regex engine.
#[derive(Debug)]
struct Far {
    pat: String,
    capped: OnceLock<Option<Capped>>,
}

impl Far {
    /// Built now within `budget` (its NFA, which the lazy automaton keeps,
    /// spent from it), or on first use when there is none.
    fn new(pat: &str, budget: Option<&AutomataBudget>) -> Result<Far, LgrError> {
        let capped = OnceLock::new();
        if let Some(budget) = budget {
            let built = Capped::new(pat).ok();
            if let Some(c) = &built {
                budget.spend(c.dfa.get_nfa().memory_usage())?;
            }
            let _ = capped.set(built);
        }
        Ok(Far { pat: pat.to_string(), capped })
    }

    /// The automaton, built on first use when it was not at once (the
    /// open form compiled, so only its size can fail it).
    fn get(&self) -> Option<&Capped> {
        self.capped.get_or_init(|| Capped::new(&self.pat).ok()).as_ref()
    }
}

type CacheFn = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// A look-behind's capped form on a lazy DFA, with its caches.
#[derive(Debug)]
struct Capped {
    dfa: DFA,
    caches: Pool<Cache, CacheFn>,
}

impl Capped {
    fn new(pat: &str) -> Result<Capped, LgrError> {
        let dfa = DFA::builder()
            // The cache grows to what the NFA needs at least rather than
            // failing (its size follows the NFA's, which is bounded).
            .configure(DFA::config().skip_cache_capacity_check(true))
            .syntax(syntax::Config::new().unicode(true).utf8(true))
            .thompson(thompson::Config::new().reverse(true).nfa_size_limit(Some(NFA_SIZE_LIMIT)))
            .build(pat)
            .map_err(|e| automaton_error(&e))?;
        let of = dfa.clone();
        let create: CacheFn = Box::new(move || of.create_cache());
        Ok(Capped { dfa, caches: Pool::new(create) })
    }

    /// As [`ends_at`] on a dense DFA: an anchored reverse search of
    /// `text[..at]`, stopping at the first match.
    fn ends_at(&self, text: &str, at: usize) -> bool {
        let input = Input::new(text).range(..at).anchored(Anchored::Yes).earliest(true);
        let mut cache = self.caches.get();
        matches!(self.dfa.try_search_rev(&mut cache, &input), Ok(Some(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lgr::rules::CompiledRule;

    /// The open and capped forms of `x[\p{L}]{0,}`: the same answers up
    /// to 63 code points before the position; past them, the capped
    /// form's (the dense DFA of the capped form would exceed the limit).
    #[test]
    fn open_and_capped_forms_agree_within_the_cap() {
        let l = LookBehind::new(
            r"\x{78}(?:\p{L}){0,63}",
            r"\x{78}(?:\p{L}){0,}",
            Some(&AutomataBudget::new()),
        )
        .unwrap();
        let open = LazyDfa::new(
            r"\x{78}(?:\p{L}){0,}",
            true,
            StartKind::Anchored,
            Some(&AutomataBudget::new()),
        )
        .unwrap();
        for n in 0..70 {
            for lead in ["", "é", "aé"] {
                let text = format!("{lead}x{}", "é".repeat(n));
                let at = text.len();
                assert_eq!(l.ends_at(&text, at), n <= 63, "{text}");
                if text.chars().count() <= 63 {
                    assert_eq!(l.ends_at(&text, at), ends_at(open.get(), &text, at));
                }
            }
        }
        assert!(!l.ends_at("éé", 4));
        assert!(!l.ends_at("", 0));
    }

    /// Only a look-behind with a count `n+`, here or in a rule it refers
    /// to, has a capped form; none of the built-in LGRs' (written from
    /// ICANN's, whose look-behinds have no such count) has one.
    #[test]
    fn only_unbounded_counts_get_a_capped_form() {
        let xml = r#"<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0"><data>
              <char cp="0061" when="fixed"/><char cp="0062" when="bounded"/>
              <char cp="0063" when="by-ref"/><char cp="0064" when="ahead"/>
            </data><rules>
              <rule name="letters"><class property="gc:L" count="1+"/></rule>
              <rule name="fixed"><look-behind><char cp="0078"/><any/></look-behind><anchor/></rule>
              <rule name="bounded"><look-behind><any count="0:5"/></look-behind><anchor/></rule>
              <rule name="by-ref"><look-behind><rule by-ref="letters"/></look-behind><anchor/></rule>
              <rule name="ahead"><anchor/><look-ahead><any count="0+"/></look-ahead></rule>
            </rules></lgr>"#;
        let l = crate::lgr::Lgr::from_xml("t", xml).unwrap();
        let forms: Vec<usize> = l.rules.iter().map(CompiledRule::capped_forms).collect();
        assert_eq!(forms, [0, 0, 0, 1, 0]);
        for b in crate::builtin::BUILTINS {
            let l = crate::builtin::load(b.name).unwrap();
            assert!(l.rules.iter().all(|r| r.capped_forms() == 0), "{}", b.name);
        }
    }

    /// A capped form over the NFA size limit (two unbounded counts of a
    /// large class): the look-behind still builds, and answers with the
    /// open form everywhere, past the cap too.
    #[test]
    fn a_capped_form_too_large_gives_way_to_the_open_form() {
        let capped = r"(?:\p{L}){1,63}\x{78}(?:\p{L}){0,63}";
        let open = r"(?:\p{L}){1,}\x{78}(?:\p{L}){0,}";
        assert!(Capped::new(capped).is_err(), "the capped form is over the limit");
        for budget in [Some(&AutomataBudget::new()), None] {
            let l = LookBehind::new(capped, open, budget).unwrap();
            assert_eq!(l.capped_form(), Some(false));
            for n in [0, 5, 62, 63, 64, 100] {
                let text = format!("ax{}", "é".repeat(n));
                assert!(l.ends_at(&text, text.len()), "{n}");
                let text = format!("x{}", "é".repeat(n));
                assert!(!l.ends_at(&text, text.len()), "{n}");
            }
        }
    }

    #[test]
    fn code_points_before_a_position() {
        let s = format!("{}{}", "é".repeat(40), "a".repeat(30));
        assert!(!more_than_cap(&s, 80));
        assert!(more_than_cap(&s, 80 + 24));
        assert!(!more_than_cap(&"a".repeat(63), 63));
        assert!(more_than_cap(&"a".repeat(64), 64));
    }
}

//! Context rules in code point form (RFC 7940 §6.4): a rule of
//! fixed-length look-behinds, the anchor and a look-ahead, each of a class,
//! a code point or any (most `when` / `not-when` rules), tested on the
//! label's code points by a few set look-ups instead of the automata of
//! `rules.rs`, which builds these forms.

use super::CpSet;

/// One code point of a fixed-length look-around.
#[derive(Clone, Debug)]
pub(crate) enum Atom {
    /// `<start/>`: the start of the label (first in a look-behind).
    Start,
    /// `<end/>`: the end of the label (last in a look-ahead).
    End,
    /// `<any/>`.
    Any,
    /// `<char>` (one of its code points).
    Cp(u32),
    /// `<class>`, as a bit per code point from `base` when its code points
    /// are near one another (most classes are one script's).
    Bits { base: u32, bits: Box<[u64]> },
    /// Any other `<class>`.
    Set(CpSet),
}

/// Widest class kept as bits.
const MAX_BITS_SPAN: u32 = 4096;

impl Atom {
    #[inline]
    fn holds(&self, cp: u32) -> bool {
        match self {
            Atom::Start | Atom::End => false,
            Atom::Any => true,
            Atom::Cp(c) => *c == cp,
            Atom::Bits { base, bits } => {
                let k = cp.wrapping_sub(*base) as usize;
                bits.get(k / 64).is_some_and(|w| w >> (k % 64) & 1 != 0)
            }
            Atom::Set(s) => s.contains(cp),
        }
    }

    /// The atom of a non-empty class.
    pub(super) fn of_set(set: CpSet) -> Atom {
        let (Some(&(lo, _)), Some(&(_, hi))) = (set.ranges().first(), set.ranges().last()) else {
            return Atom::Set(set);
        };
        if hi - lo >= MAX_BITS_SPAN {
            return Atom::Set(set);
        }
        let mut bits = vec![0u64; ((hi - lo) / 64 + 1) as usize];
        for &(a, b) in set.ranges() {
            for cp in a..=b {
                let k = (cp - lo) as usize;
                bits[k / 64] |= 1 << (k % 64);
            }
        }
        Atom::Bits { base: lo, bits: bits.into_boxed_slice() }
    }
}

/// A look-around, or a whole rule without one, as the sequences of code
/// points it may match (each in text order): it holds when one of them
/// does.
#[derive(Debug)]
pub(crate) struct Around {
    pub(super) seqs: Vec<Vec<Atom>>,
}

/// Whether `<start/>` stands only first and `<end/>` only last in each
/// sequence, and each only where allowed (`start`, `end`): where the
/// automata read them as the label's edges too.
pub(super) fn edges_at_ends(seqs: &[Vec<Atom>], start: bool, end: bool) -> bool {
    seqs.iter().all(|s| {
        s.iter().enumerate().all(|(k, x)| match x {
            Atom::Start => start && k == 0,
            Atom::End => end && k + 1 == s.len(),
            _ => true,
        })
    })
}

impl Around {
    /// Whether one of the sequences ends at code point `i` (look-behind).
    fn ends_at(&self, cps: &[u32], i: usize) -> bool {
        self.seqs.iter().any(|seq| {
            let (edge, atoms) = match seq.split_first() {
                Some((Atom::Start, rest)) => (true, rest),
                _ => (false, &seq[..]),
            };
            let Some(from) = i.checked_sub(atoms.len()) else { return false };
            (!edge || from == 0) && atoms.iter().zip(&cps[from..i]).all(|(a, &c)| a.holds(c))
        })
    }

    /// Whether one of the sequences occurs in `cps` (a rule searched
    /// anywhere, [`CompiledRule::matches`]): at the start only when it
    /// begins with `<start/>`, at the end only when it ends with `<end/>`.
    pub(crate) fn found_in(&self, cps: &[u32]) -> bool {
        self.seqs.iter().any(|seq| {
            let (start, atoms) = match seq.split_first() {
                Some((Atom::Start, rest)) => (true, rest),
                _ => (false, &seq[..]),
            };
            let (end, atoms) = match atoms.split_last() {
                Some((Atom::End, rest)) => (true, rest),
                _ => (false, atoms),
            };
            let Some(last) = cps.len().checked_sub(atoms.len()) else { return false };
            let at = |p: usize| atoms.iter().zip(&cps[p..]).all(|(a, &c)| a.holds(c));
            match (start, end) {
                (true, true) => last == 0 && at(0),
                (true, false) => at(0),
                (false, true) => at(last),
                (false, false) => (0..=last).any(at),
            }
        })
    }

    /// Whether one of the sequences starts at code point `i` (look-ahead).
    fn starts_at(&self, cps: &[u32], i: usize) -> bool {
        self.seqs.iter().any(|seq| {
            let (edge, atoms) = match seq.split_last() {
                Some((Atom::End, rest)) => (true, rest),
                _ => (false, &seq[..]),
            };
            let to = i + atoms.len();
            to <= cps.len()
                && (!edge || to == cps.len())
                && atoms.iter().zip(&cps[i..to]).all(|(a, &c)| a.holds(c))
        })
    }
}

/// An anchored rule made only of look-behinds, the anchor and at most one
/// look-ahead, each of fixed length, in each alternative: tested on code
/// points, with the same result as the automata (a debug assertion checks
/// each use against them).
#[derive(Debug)]
pub(crate) struct Context {
    pub(super) alts: Vec<(Vec<Around>, Option<Around>)>,
}

impl Context {
    /// Whether the rule is RFC 5891 §4.2.3.1's hyphen rule, as a context
    /// rule at the hyphen (the `hyphen-minus-disallowed` rule of ICANN's
    /// LGRs): it holds exactly at the first or last code point, and at the
    /// fourth after `<start/><any/><any/>` and a hyphen; nothing else.
    pub(crate) fn is_rfc5891_hyphen(&self) -> bool {
        fn one(a: &Around) -> Option<&[Atom]> {
            match &a.seqs[..] {
                [s] => Some(s),
                _ => None,
            }
        }
        let mut found = 0;
        for (behind, ahead) in &self.alts {
            let bit = match (&behind[..], ahead.as_ref().map(one)) {
                ([b], None) => match one(b) {
                    Some([Atom::Start]) => 1,
                    Some([Atom::Start, Atom::Any, Atom::Any, Atom::Cp(0x2D)]) => 4,
                    _ => return false,
                },
                ([], Some(Some([Atom::End]))) => 2,
                _ => return false,
            };
            found |= bit;
        }
        found == 7
    }

    /// Whether the rule holds for the element at code points `i..i + len`
    /// of `cps` ([`CompiledRule::matches_at`]).
    pub(crate) fn holds(&self, cps: &[u32], i: usize, len: usize) -> bool {
        self.alts.iter().any(|(behind, ahead)| {
            behind.iter().all(|b| b.ends_at(cps, i))
                && ahead.as_ref().is_none_or(|a| a.starts_at(cps, i + len))
        })
    }
}

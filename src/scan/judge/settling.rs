//! The scan's side of settling (see [`crate::input::settle`]): the
//! [`PlainRule`] of an LGR set, and the keys of the IDN labels the reader
//! tells ahead. The reader reads both from a [`Settling`] as data; this
//! module fills it, on a thread of the caller's ([`settle_for`]).

use super::judged::{judge_covered, quiet};
use crate::input::AsciiKeys;
use crate::input::PlainRule;
use crate::input::Settling;
use crate::lgr::IndexScratch;
use crate::lgr::Label as EvalLabel;
use crate::scan::Grouping;
use crate::scan::LgrSet;

/// The plain labels (lower-case LDH) the reader may count without
/// storing under `set`, as the scan would count them (RFC 7940 §8.1
/// eligibility under the first judging LGR; §8.5: a label with a byte
/// some IDN label's all-ASCII index label may contain is tagged, or
/// tested against the keys told ahead). `None` unless the variant LGR
/// maps each ASCII label to itself as its index label and the first
/// judging LGR gives all letters one class and all digits one (see
/// [`crate::lgr::Lgr::ascii_classes`]): a label's verdict is then that of
/// the label of as many letters, or digits, whose eligibility is judged
/// here for each length. A label eligible with the own disposition
/// `blocked` (§8.3) is a finding: its length is not settled.
pub fn plain_rule(set: &LgrSet) -> Option<PlainRule> {
    if !set.ascii_identity {
        return None;
    }
    let shape = set.shape?;
    let mut label = EvalLabel::default();
    let mut scratch = IndexScratch::default();
    let mut eligible = |text: &str| {
        label.set_text(text);
        judge_covered(&set.judges[0], &label, &mut scratch).is_some_and(|v| quiet(&v))
    };
    let ascii = set.variants.ascii_variants();
    let (mut letters, mut digits) = (0u64, 0u64);
    for n in 1..64 {
        letters |= u64::from(eligible(&"a".repeat(n))) << n;
        digits |= u64::from(eligible(&"0".repeat(n))) << n;
    }
    Some(PlainRule {
        letters,
        digits,
        digits_as_letters: shape.digits_as_letters,
        hyphens_as_letters: shape.hyphens_as_letters,
        targets: ascii
            .as_ref()
            .map_or(u128::MAX, |a| (0..128).filter(|&b| a.targets[b]).fold(0, |m, b| m | 1 << b)),
        ascii_sources: ascii.map(|a| {
            let mut cps = a.sources;
            cps.sort_unstable();
            cps.dedup();
            cps.into()
        }),
    })
}

/// Gives `settling` the rule of `set` ([`plain_rule`]), then computes the
/// keys of the IDN labels the reader tells ahead and gives them back,
/// until the read is over ([`Settling::wait_ahead`]). It waits for the
/// reader: run it on a thread of its own, beside the read.
pub fn settle_for(set: &LgrSet, settling: &Settling) {
    let rule = plain_rule(set);
    let settles = rule.is_some();
    settling.provide(rule);
    if !settles {
        return;
    }
    let mut sc = AheadScratch::default();
    while let Some((read, labels)) = settling.wait_ahead() {
        sc.keys_of(set, labels.iter().map(|l| (&l.alabel[..], l.ulabel.as_deref())));
        settling.provide_keys(read, std::mem::take(&mut sc.keys));
    }
}

/// A worker's buffers for the keys of labels told ahead.
#[derive(Default)]
pub(super) struct AheadScratch {
    pub(super) label: EvalLabel,
    pub(super) scratch: IndexScratch,
    pub(super) index: Vec<u32>,
    pub(super) other: Vec<u32>,
    pub(super) keys: AsciiKeys,
}

impl AheadScratch {
    /// The keys of the IDN labels `labels` (as written; the U-label when
    /// the reader computed it) under the variant LGR of `set`, added to
    /// `self.keys`, as the first pass of [`judge_all`] finds them: the index
    /// labels of their U-labels when these are not ASCII (of the label as
    /// written and in lower case, whichever the reader takes), when all
    /// ASCII. Only a label whose code points are ASCII or have an all-ASCII
    /// variant ([`LgrSet::ascii_sources`]) can have one: the others are
    /// passed over once their U-label is known.
    pub(super) fn keys_of<'a>(
        &mut self,
        set: &LgrSet,
        labels: impl Iterator<Item = (&'a [u8], Option<&'a str>)>,
    ) {
        let may_be_ascii = |u: &str| {
            set.ascii_sources
                .as_ref()
                .is_none_or(|m| u.chars().all(|c| c.is_ascii() || m.contains(u32::from(c))))
        };
        let key = |me: &mut AheadScratch, u: &str| {
            if u.is_ascii() || !may_be_ascii(u) {
                return;
            }
            me.label.set_text(u);
            if !set.variants.index_into(&me.label, &mut me.scratch, &mut me.index) {
                return;
            }
            let other = set.grouping == Grouping::Verified
                && set.variants.other_mode_index(&me.label, &mut me.scratch, &mut me.other);
            for key in [&me.index[..], if other { &me.other[..] } else { &[] }] {
                if !key.is_empty() && key.iter().all(|&c| c < 0x80) {
                    let bytes: Vec<u8> = key.iter().map(|&c| c as u8).collect();
                    me.keys.add(&bytes);
                }
            }
        };
        for (a, given) in labels {
            if let Some(u) = given {
                key(self, u);
                continue;
            }
            let lower = a.to_ascii_lowercase();
            let forms = [Some(a), (lower[..] != a[..]).then_some(&lower[..])];
            for octets in forms.into_iter().flatten() {
                if let crate::idna2008::Forms::Owned { ulabel: Some(u), .. } =
                    crate::idna2008::forms_bytes(octets)
                {
                    key(self, &u);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::settle_for;
    use crate::builtin;
    use crate::input::{AheadLabel, Settled, Settling};
    use crate::scan::LgrSet;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    fn builtin_set() -> LgrSet {
        let load = |n: &str| Arc::new(builtin::load(n).expect("built-in"));
        let judges = builtin::DEFAULT_SET.iter().map(|n| load(n)).collect();
        LgrSet::new(judges, Some(load(builtin::DEFAULT_VARIANTS))).expect("set")
    }

    fn told(u: &str) -> AheadLabel {
        let a = format!("xn--{}", idna::punycode::encode_str(u).expect("punycode"));
        AheadLabel { alabel: a.into_bytes().into(), ulabel: Some(u.into()) }
    }

    /// The verdict on `text` once the keys came (waits up to 10 s).
    fn verdict_with_keys(settling: &Settling, text: &[u8]) -> Option<Settled> {
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(10) {
            match settling.snapshot() {
                Some(p) if p.keys.is_some() => return Some(p.verdict(text)),
                _ => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        None
    }

    /// The reader's side of a read, played here: the labels of two parts
    /// told ahead (the first before the caller's thread even started), the
    /// keys computed on that thread from those the rule says may have an
    /// all-ASCII index label, the verdicts under them; the thread ends
    /// with the read.
    #[test]
    fn the_caller_gives_the_keys_of_the_labels_told() {
        let set = builtin_set();
        let settling = Settling::default();
        settling.start();
        settling.ahead_parts(2);
        // Devanagari १२३ and Khmer ៤៥: keys 123 and 45; a word.
        settling.tell([told("\u{967}\u{968}\u{969}")].into_iter(), true);
        std::thread::scope(|s| {
            let caller = s.spawn(|| settle_for(&set, &settling));
            let later = [told("\u{17e4}\u{17e5}"), told("\u{915}\u{93f}")];
            settling.tell(later.into_iter(), true);
            assert_eq!(verdict_with_keys(&settling, b"123"), Some(Settled::Tag(0)));
            let p = settling.snapshot().expect("a rule");
            assert_eq!(p.verdict(b"45"), Settled::Tag(0));
            assert_eq!(p.verdict(b"124"), Settled::Assume(0));
            assert_eq!(p.verdict(b"ab1"), Settled::Assume(1));
            assert_eq!(p.verdict(b"abc"), Settled::Count(1));
            settling.finish();
            caller.join().expect("the caller's thread ends with the read");
        });
    }

    /// A read with a part told incomplete hands nothing over (the waiting
    /// caller returns only when the read ends), and keys given for it are
    /// not taken: nothing may be assumed on them.
    #[test]
    fn a_part_told_incomplete_gives_no_keys() {
        let settling = Settling::default();
        settling.provide(super::plain_rule(&builtin_set()));
        settling.start();
        settling.ahead_parts(2);
        settling.tell([told("\u{967}\u{968}\u{969}")].into_iter(), true);
        settling.tell([told("\u{17e4}\u{17e5}")].into_iter(), false);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| settling.wait_ahead().map(|(_, labels)| labels.len()));
            std::thread::sleep(Duration::from_millis(100));
            let mut keys = crate::input::AsciiKeys::default();
            keys.add(b"123");
            settling.provide_keys(1, keys);
            let p = settling.snapshot().expect("a rule");
            // Before any assertion: a failing one would leave the waiter
            // waiting.
            settling.finish();
            assert_eq!(waiter.join().expect("waiter"), None, "labels handed over");
            assert!(p.keys.is_none(), "keys of a part not read to its end");
            assert_eq!(p.verdict(b"123"), Settled::Tag(0));
        });
    }

    /// Only IDN labels whose U-label is ASCII and code points with an
    /// all-ASCII variant are told (a word of Devanagari letters has no
    /// all-ASCII index label); one whose U-label the reader did not
    /// compute is told.
    #[test]
    fn only_labels_that_may_have_an_ascii_key_are_told() {
        let settling = Settling::default();
        assert!(settling.may_have_ascii_key(Some("\u{915}")), "no rule yet: all");
        settling.provide(super::plain_rule(&builtin_set()));
        assert!(settling.may_have_ascii_key(Some("\u{967}\u{968}")));
        assert!(settling.may_have_ascii_key(Some("ab\u{967}")));
        assert!(!settling.may_have_ascii_key(Some("\u{915}\u{967}")));
        assert!(settling.may_have_ascii_key(None));
    }
}

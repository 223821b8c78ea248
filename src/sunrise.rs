//! Sunrise and pre-launch checks: each candidate label against the
//! registered labels of an [`Index`], with one clear status.
//!
//! The verdicts are the scan's, not a second implementation of it: the
//! registered labels that may share a variant set with a candidate are
//! found in the index (by key, see [`crate::index`], then closed over the
//! keys of the labels found, since a verified grouping joins sets through
//! labels with two index labels), and [`crate::scan::scan`] is run on them
//! followed by the candidates. A candidate's row is what that scan reports
//! for it: judged as the scan judges it, in the variant set the scan forms,
//! held by the member the scan picks, with the scan's disposition as a
//! variant of the holder (RFC 7940 §8.3). Registered labels come first in
//! that scan, ordered by the holder policy, so a registered label always
//! holds a set it is valid in; candidates follow in `--priority` order, so
//! the winner of a contention set is its holder.

use crate::idna2008::{self, Finding, MAX_NAME_OCTETS, is_plain_ldh, to_labels};
use crate::index::{Entry, Error, Index, KeyScratch, Keys, Pin};
use crate::input::{PlainRule, Settled, Timestamp};
use crate::scan::{self, HolderPolicy, LgrSet, Role};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

mod candidates;
mod verdicts;
pub use candidates::{Applicant, Candidate, read_candidates, same_apex, without_suffixes};
use verdicts::{Context, duplicate_verdict, number_sets};

/// Which candidate wins a contention set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Priority {
    /// The first in candidate order.
    #[default]
    Input,
    /// The earliest priority date; candidates without one come after those
    /// with one, then candidate order.
    Date,
}

/// Options of a check.
#[derive(Clone, Copy, Debug, Default)]
pub struct CheckConfig {
    /// Which registered label holds a variant set (as `scan --holder`).
    pub holder: HolderPolicy,
    /// Which candidate wins a contention set.
    pub priority: Priority,
}

/// A candidate's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Valid, and shares its variant set with no registered label and no
    /// candidate before it.
    Available,
    /// This exact label is registered (U-label and A-label forms alike).
    Registered,
    /// A blocked variant (or a variant whose disposition is invalid) of a
    /// registered label.
    VariantBlocked,
    /// An allocatable variant of a registered label: only to its
    /// registrant.
    VariantAllocatable,
    /// Not valid under the LGR set, or under IDNA2008.
    Invalid,
    /// In a variant set with other candidates only; [`Verdict::set`] names
    /// the set, [`Verdict::holder`] its winner (none for the winner).
    Contention,
}

impl Status {
    /// The status's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Available => "available",
            Status::Registered => "registered",
            Status::VariantBlocked => "variant-blocked",
            Status::VariantAllocatable => "variant-allocatable",
            Status::Invalid => "invalid",
            Status::Contention => "contention",
        }
    }
}

/// Whether a candidate's registrant is the holder's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SameRegistrant {
    /// Both known and equal.
    Yes,
    /// Both known and different.
    No,
    /// One of them unknown.
    Unknown,
}

impl SameRegistrant {
    /// `yes`, `no` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            SameRegistrant::Yes => "yes",
            SameRegistrant::No => "no",
            SameRegistrant::Unknown => "unknown",
        }
    }

    fn of(a: Option<&str>, b: Option<&str>) -> SameRegistrant {
        match (a, b) {
            (Some(a), Some(b)) if a == b => SameRegistrant::Yes,
            (Some(_), Some(_)) => SameRegistrant::No,
            _ => SameRegistrant::Unknown,
        }
    }
}

/// The label a candidate collides with: a registered label or an earlier
/// (winning) candidate. Its text is borrowed from the candidates or the
/// index where it can be (a million verdicts are made in a check).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder<'a> {
    /// Its A-label.
    pub alabel: Cow<'a, str>,
    /// Its U-label.
    pub ulabel: Cow<'a, str>,
    /// For a candidate, its position among the candidates.
    pub candidate: Option<usize>,
    /// Its source file (registered; empty for a candidate).
    pub source: Cow<'a, str>,
    /// Its line.
    pub line: u64,
    /// Its registrant, if known.
    pub registrant: Option<String>,
}

/// The answer for one candidate, borrowing its text from the candidate
/// (a plain LDH label is its own A-label and U-label) and the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict<'a> {
    /// The candidate's A-label.
    pub alabel: Cow<'a, str>,
    /// Its U-label.
    pub ulabel: Cow<'a, str>,
    /// Its status.
    pub status: Status,
    /// Its contention set (1-based, in order of the sets' first candidate).
    pub set: Option<u32>,
    /// Who holds its variant set (none when it is available or holds it).
    pub holder: Option<Box<Holder<'a>>>,
    /// What the scan says of it ([`Verdict::detail`]): none for a
    /// registered label; shared by the plain available labels of one
    /// length and kind (a million of them hold one).
    detail: Option<Arc<Detail>>,
}

/// What the scan says of a candidate, beside its status.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detail {
    /// The scan's role for it in the set.
    pub role: Option<Role>,
    /// The LGR that gave the disposition.
    pub lgr: String,
    /// Its disposition: as a variant of the holder (RFC 7940 §8.3); for an
    /// invalid candidate, and for an available one or a contention set's
    /// winner (no holder), its own under the LGR that judges it, as the
    /// scan gives a set's holder (`valid`, or another eligible one).
    pub disposition: String,
    /// Why, as the scan says it.
    pub reason: String,
    /// The variant mappings that make it from the holder (RFC 7940 §8.2):
    /// each element of the holder replaced, as `(holder's code points, its
    /// own)`, in label order; empty when it is the holder's label. When
    /// neither label is generated from the other (a member of an
    /// `--index-mode index-label` set that is not a variant), one pair:
    /// the code points that differ, the common prefix and suffix left out.
    pub mapping: Option<Vec<(Vec<u32>, Vec<u32>)>>,
    /// For an allocatable variant: whether it goes to the holder's
    /// registrant.
    pub same_registrant: Option<SameRegistrant>,
}

/// The detail of a verdict that has none.
static NO_DETAIL: Detail = Detail {
    role: None,
    lgr: String::new(),
    disposition: String::new(),
    reason: String::new(),
    mapping: None,
    same_registrant: None,
};

impl Holder<'_> {
    /// This holder with its text owned, to outlive the index and the
    /// candidates.
    pub fn into_owned(self) -> Holder<'static> {
        Holder {
            alabel: Cow::Owned(self.alabel.into_owned()),
            ulabel: Cow::Owned(self.ulabel.into_owned()),
            source: Cow::Owned(self.source.into_owned()),
            ..self
        }
    }
}

impl<'a> Verdict<'a> {
    /// This verdict with its text owned, to outlive the index and the
    /// candidates.
    pub fn into_owned(self) -> Verdict<'static> {
        Verdict {
            alabel: Cow::Owned(self.alabel.into_owned()),
            ulabel: Cow::Owned(self.ulabel.into_owned()),
            holder: self.holder.map(|h| Box::new(h.into_owned())),
            ..self
        }
    }

    /// What the scan says of it: empty for a registered label.
    pub fn detail(&self) -> &Detail {
        self.detail.as_deref().unwrap_or(&NO_DETAIL)
    }

    fn detail_mut(&mut self) -> &mut Detail {
        Arc::make_mut(self.detail.get_or_insert_with(Arc::default))
    }

    fn new(alabel: Cow<'a, str>, ulabel: Cow<'a, str>, status: Status) -> Verdict<'a> {
        Verdict { alabel, ulabel, status, set: None, holder: None, detail: None }
    }
}

/// The `lgr` value given for a registered label whose pin names no LGR of
/// the set: the scan judges it invalid, as it judged it when the index was
/// built. The pin's own text is not kept, and no row needs it: the scan's
/// reason for that label is the only place it shows, and a check reports
/// the candidates, not the registered labels' own verdicts.
const NO_SUCH_LGR: &str = "(an LGR not in the set)";

/// Whether a text can be a line of a label list as it is (see
/// [`crate::input`]'s list format): no white space, comment, dot or
/// control character.
fn list_safe(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c.is_control() || c == '#' || c == '.')
}

/// A registered label in the scan around the candidates: its entry, its
/// A-label (its line), its `registered` date when that decides the holder
/// and its `lgr` pin.
struct RegisteredRow {
    entry: Entry,
    alabel: String,
    date: Option<Timestamp>,
    pin: Option<Pin>,
}

/// What a line of the scan's list is.
#[derive(Clone, Copy)]
enum Row {
    Registered(usize),
    Candidate(usize),
}

/// Judges plain candidates as the scan judges plain labels: by the
/// scan's own [`PlainRule`] (RFC 7940 §8.1 eligibility under the set's
/// first judging LGR, by length and by which of letters, digits and
/// hyphens a label has), so that a candidate that collides with nothing
/// gets the scan's verdict without a scan; one the rule does not decide is
/// scanned. Made once per LGR set and kept.
pub struct PlainJudge {
    rule: Option<PlainRule>,
    /// The detail of a plain label the rule finds valid, by whether it has
    /// a letter and by length: the verdict of the label of as many letters
    /// (or digits), which the rule says is its own ([`own_detail`]).
    own: [Vec<Option<Arc<Detail>>>; 2],
}

impl PlainJudge {
    /// The judge of plain labels under `set`.
    pub fn new(set: &LgrSet) -> PlainJudge {
        let rule = scan::plain_rule(set);
        let own = [false, true].map(|alpha| {
            let bits = rule.as_ref().map_or(0, |r| if alpha { r.letters } else { r.digits });
            let text = |n| (if alpha { "a" } else { "0" }).repeat(n);
            let own = |n| Arc::new(own_detail(set, &text(n)));
            (0..64).map(|n| (bits >> n & 1 != 0).then(|| own(n))).collect()
        });
        PlainJudge { rule, own }
    }

    /// Whether the plain label `text` is one the scan finds valid.
    fn valid(&self, text: &[u8]) -> bool {
        self.rule.as_ref().is_some_and(|r| !matches!(r.verdict(text, None), Settled::Keep))
    }

    /// The detail of a plain label the scan finds valid ([`Self::valid`]).
    fn own(&self, text: &[u8]) -> Option<Arc<Detail>> {
        let alpha = text.iter().any(u8::is_ascii_alphabetic);
        self.own[usize::from(alpha)].get(text.len())?.clone()
    }
}

/// The detail of an available candidate (or a contention set's winner):
/// its own verdict under the LGR that judges it, as the scan gives it.
fn own_detail(set: &LgrSet, ulabel: &str) -> Detail {
    let (mut label, mut sc) = Default::default();
    let [lgr, disposition, reason] = scan::own_verdict(set, ulabel, &mut label, &mut sc);
    Detail { lgr, disposition, reason, ..Detail::default() }
}

/// What is known of a candidate before any scan, beside its verdict
/// when that needs no scan (see [`probe_one`]).
struct Probe<'a> {
    /// Its keys in the index ([`Keys::of`]): one or two.
    keys: [u64; 2],
    two_keys: bool,
    /// Why it is not valid under IDNA2008, if it is not (boxed: rare).
    finding: Option<Box<Finding>>,
    /// The forms of a candidate the scan judges (boxed: most candidates
    /// need no scan, and a million probes stay small). The registered
    /// labels under its keys are looked up once per key in [`check_with`],
    /// not kept per candidate: candidates sharing a variant set with
    /// thousands of registered labels each held a copy of them all (a 58 KB
    /// batch of 1,000 took `serve` from 10 MB to 561 MB).
    pending: Option<Box<Forms<'a>>>,
}

/// A candidate's A-label and U-label, and why it is not valid under
/// IDNA2008 if it is not (as [`to_labels`] gives them), borrowed from its
/// text when that is a plain LDH label (RFC 5891 §4.2.3.1): both forms are
/// the text then.
#[derive(Clone, Debug)]
struct Forms<'a> {
    alabel: Cow<'a, str>,
    ulabel: Cow<'a, str>,
    finding: Option<Finding>,
}

impl<'a> Forms<'a> {
    /// The forms of `text`, through IDNA2008's own borrowing of plain labels
    /// ([`idna2008::forms_bytes`]).
    fn of(text: &'a str) -> Forms<'a> {
        match idna2008::forms_bytes(text.as_bytes()) {
            idna2008::Forms::Ldh => {
                Forms { alabel: Cow::Borrowed(text), ulabel: Cow::Borrowed(text), finding: None }
            }
            idna2008::Forms::Owned { alabel, ulabel, finding } => Forms {
                ulabel: Cow::Owned(ulabel.unwrap_or_else(|| alabel.clone())),
                alabel: Cow::Owned(alabel),
                finding,
            },
        }
    }
}

impl<'a> Probe<'a> {
    fn keys(&self) -> &[u64] {
        &self.keys[..1 + usize::from(self.two_keys)]
    }

    /// The candidate's forms, when the scan judges it.
    fn forms(&self) -> &Forms<'a> {
        self.pending.as_deref().unwrap_or(&NO_FORMS)
    }
}

/// Empty forms.
static NO_FORMS: Forms<'static> =
    Forms { alabel: Cow::Borrowed(""), ulabel: Cow::Borrowed(""), finding: None };

/// Candidates up to which a check runs on the caller's thread (a service's
/// single label: no hand-over to the thread pool).
const SEQUENTIAL_MAX: usize = 256;

/// A candidate's verdict as if it were available (its forms), and its
/// probe with its keys ([`Keys::of`]).
fn keyed<'a>(
    keys: &Keys<'_>,
    (sc, ks): &mut (KeyScratch, Vec<u64>),
    c: &'a Candidate<'_>,
) -> (Option<Verdict<'a>>, Probe<'a>) {
    let forms = Forms::of(c.text.trim());
    keys.of(&forms.ulabel, sc, ks);
    let probe = Probe {
        keys: [ks.first().copied().unwrap_or(0), ks.get(1).copied().unwrap_or(0)],
        two_keys: ks.len() > 1,
        finding: forms.finding.map(Box::new),
        pending: None,
    };
    (Some(Verdict::new(forms.alabel, forms.ulabel, Status::Available)), probe)
}

/// Look-ups ahead of the current one whose directory entry
/// [`probe_all`] starts loading ([`Index::prefetch_bucket`]); their
/// fingerprints are started half as far ahead.
const PREFETCH_AHEAD: usize = 8;

/// Registered labels under one key from which [`ProbeScratch`] keeps them
/// by A-label: a candidate then finds its own in one look-up rather than
/// comparing its A-label with each (in a variant set of 16,000 registered
/// labels, 16,000 candidates took 3.3 s, all of it in those comparisons).
const LARGE_KEY: usize = 64;

/// What one worker of [`probe_all`] reuses from candidate to candidate.
struct ProbeScratch<'a, 'j> {
    hits: Vec<Entry>,
    plain: &'j PlainJudge,
    /// The registered labels under each key with [`LARGE_KEY`] or more of
    /// them, by A-label (the index's own bytes).
    large_keys: crate::hash::FastMap<u64, crate::hash::FastMap<&'a [u8], Entry>>,
}

impl<'a, 'j> ProbeScratch<'a, 'j> {
    fn new(plain: &'j PlainJudge) -> ProbeScratch<'a, 'j> {
        ProbeScratch { hits: Vec::new(), plain, large_keys: Default::default() }
    }

    /// Whether any registered label shares a key of `probe`, and the one
    /// whose A-label is `alabel` if there is one.
    fn registered(
        &mut self,
        index: &'a Index,
        probe: &Probe<'_>,
        alabel: &str,
    ) -> Result<(bool, Option<Entry>), Error> {
        let (mut any, mut exact) = (false, None);
        for &h in probe.keys() {
            if let Some(by_alabel) = self.large_keys.get(&h) {
                any = true;
                exact = by_alabel.get(alabel.as_bytes()).copied().or(exact);
                continue;
            }
            self.hits.clear();
            index.lookup(h, &mut self.hits)?;
            any |= !self.hits.is_empty();
            if self.hits.len() >= LARGE_KEY {
                let mut by_alabel = crate::hash::FastMap::default();
                for e in &self.hits {
                    by_alabel.insert(index.alabel_bytes(e)?, *e);
                }
                exact = by_alabel.get(alabel.as_bytes()).copied().or(exact);
                self.large_keys.insert(h, by_alabel);
                continue;
            }
            for e in &self.hits {
                if index.alabel_is(e, alabel)? {
                    exact = Some(*e);
                }
            }
        }
        Ok((any, exact))
    }
}

/// Settles a candidate's verdict (`slot`, made by [`keyed`]) when that
/// needs no scan: it is a registered label, or a plain LDH label (RFC 5891
/// §4.2.3.1) that the scan finds valid and that shares a key with no
/// registered label (available, unless another candidate shares a key
/// with it: see [`without_scan`]). Otherwise takes it, and gives what the
/// scan needs of the candidate.
fn probe_one<'a>(
    index: &'a Index,
    scratch: &mut ProbeScratch<'a, '_>,
    c: &'a Candidate<'_>,
    slot: &mut Option<Verdict<'a>>,
    probe: &Probe<'a>,
) -> Result<Option<Box<Forms<'a>>>, Error> {
    let Some(v) = slot.as_mut() else { return Ok(None) };
    let (any_registered, exact) = scratch.registered(index, probe, &v.alabel)?;
    let text = c.text.trim().as_bytes();
    if let Some(e) = exact {
        // Another candidate sharing a key with this label finds it
        // itself: no need to scan it for this one.
        let holder = if probe.finding.is_none() && is_plain_ldh(v.alabel.as_bytes()) {
            // The holder's text is the candidate's: its own forms.
            registered_holder_as(index, &e, v.alabel.clone(), v.ulabel.clone())?
        } else {
            registered_holder(index, &e)?
        };
        v.status = Status::Registered;
        v.holder = Some(Box::new(holder));
        Ok(None)
    } else if !any_registered && is_plain_ldh(text) && scratch.plain.valid(text) {
        Ok(None)
    } else {
        let Some(v) = slot.take() else { return Ok(None) };
        let finding = probe.finding.as_deref().cloned();
        let forms = Forms { alabel: v.alabel, ulabel: v.ulabel, finding };
        Ok(Some(Box::new(forms)))
    }
}

/// Each candidate's verdict when it needs no scan (`None` when it does), and
/// its probe.
type Probed<'a> = (Vec<Option<Verdict<'a>>>, Vec<Probe<'a>>);

/// Every candidate's keys ([`keyed`]), then its registered labels and
/// verdict ([`probe_one`]), in parallel when they are many. The look-ups
/// go in candidate order, each starting to load what a later one reads.
fn probe_all<'a>(
    index: &'a Index,
    keys: &Keys<'_>,
    plain: &PlainJudge,
    candidates: &'a [Candidate<'_>],
) -> Result<Probed<'a>, Error> {
    let key_init = || (KeyScratch::default(), Vec::new());
    let init = || ProbeScratch::new(plain);
    if candidates.len() <= SEQUENTIAL_MAX {
        let (mut key_scratch, mut scratch) = (key_init(), init());
        let mut verdicts = Vec::with_capacity(candidates.len());
        let mut probes = Vec::with_capacity(candidates.len());
        for c in candidates {
            let (mut v, mut probe) = keyed(keys, &mut key_scratch, c);
            probe.pending = probe_one(index, &mut scratch, c, &mut v, &probe)?;
            verdicts.push(v);
            probes.push(probe);
        }
        return Ok((verdicts, probes));
    }
    let (mut verdicts, mut probes): Probed<'a> = candidates
        .par_iter()
        .with_min_len(1024)
        .map_init(key_init, |scratch, c| keyed(keys, scratch, c))
        .unzip();
    let ahead = |i: usize, dist: usize| probes.get(i + dist).map_or(&[][..], Probe::keys);
    // Collected as pending, the first error kept aside: a parallel
    // collect into a `Result` is not indexed, and would gather them in
    // pieces and move them all once more.
    let failed = Mutex::new(None);
    let pending: Vec<Option<Box<Forms<'a>>>> = verdicts
        .par_iter_mut()
        .zip(candidates)
        .enumerate()
        .with_min_len(1024)
        .map_init(init, |scratch, (i, (slot, c))| {
            ahead(i, PREFETCH_AHEAD).iter().for_each(|&h| index.prefetch_bucket(h));
            ahead(i, PREFETCH_AHEAD / 2).iter().for_each(|&h| index.prefetch_fingerprints(h));
            probe_one(index, scratch, c, slot, &probes[i]).unwrap_or_else(|e| {
                failed.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(e);
                None
            })
        })
        .collect();
    if let Some(e) = failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        return Err(e);
    }
    probes.par_iter_mut().zip(pending).for_each(|(p, pending)| p.pending = pending);
    Ok((verdicts, probes))
}

/// [`probe_all`], and the plain available candidates that share a key with
/// another candidate left to the scan.
fn without_scan<'a>(
    index: &'a Index,
    keys: &Keys<'_>,
    plain: &PlainJudge,
    candidates: &'a [Candidate<'_>],
) -> Result<Probed<'a>, Error> {
    index.expect_lookups(candidates.len());
    let (mut verdicts, mut probes) = probe_all(index, keys, plain, candidates)?;
    // The keys of the candidates that are not registered labels, sorted:
    // a key found twice is shared by two candidates.
    let mut shared: Vec<u64> = verdicts
        .iter()
        .zip(&probes)
        .filter(|(v, _)| v.as_ref().is_none_or(|v| v.status != Status::Registered))
        .flat_map(|(_, p)| p.keys().iter().copied())
        .collect();
    if shared.len() > SEQUENTIAL_MAX {
        shared.par_sort_unstable();
    } else {
        shared.sort_unstable();
    }
    // The keys found twice or more (few), searched rather than all keys.
    let mut twice_keys: Vec<u64> =
        shared.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
    twice_keys.dedup();
    drop(shared);
    if !twice_keys.is_empty() {
        let twice = |k: &u64| twice_keys.binary_search(k).is_ok();
        for (slot, p) in verdicts.iter_mut().zip(probes.iter_mut()) {
            // An available label that shares a key with another candidate
            // goes through the scan after all.
            if slot.as_ref().is_some_and(|v| v.status == Status::Available)
                && p.keys().iter().any(twice)
                && let Some(v) = slot.take()
            {
                let forms = Forms { alabel: v.alabel, ulabel: v.ulabel, finding: None };
                p.pending = Some(Box::new(forms));
            }
        }
    }
    // The plain labels available with no scan: their own verdict, as an
    // available candidate that went through the scan has it.
    for v in verdicts.iter_mut().flatten() {
        if v.status == Status::Available {
            v.detail = plain.own(v.alabel.as_bytes());
        }
    }
    Ok((verdicts, probes))
}

/// The verdicts of `candidates` when none of them needs a scan (each is
/// a registered label, or a plain label that collides with nothing and
/// is valid), as [`check_with`] gives them; `None` when one needs a scan.
/// A service answers those on the spot.
///
/// # Errors
/// A damaged index.
pub fn check_without_scan<'a>(
    index: &'a Index,
    set: &LgrSet,
    plain: &PlainJudge,
    candidates: &'a [Candidate<'_>],
) -> Result<Option<Vec<Verdict<'a>>>, Error> {
    let (mut verdicts, _) = without_scan(index, &Keys::new(set), plain, candidates)?;
    verdicts.iter_mut().flatten().for_each(blocked_is_not_available);
    Ok(verdicts.into_iter().collect())
}

/// Checks `candidates` against `index` under `set` (the set the index was
/// built with: [`Index::spec`]). One verdict per candidate, in order.
///
/// # Errors
/// A damaged index, or a scan input that cannot be read.
pub fn check<'a>(
    index: &'a Index,
    set: &LgrSet,
    candidates: &'a [Candidate<'_>],
    config: &CheckConfig,
) -> Result<Vec<Verdict<'a>>, Error> {
    check_with(index, set, &PlainJudge::new(set), candidates, config)
}

/// [`check`] with a [`PlainJudge`] of `set` made beforehand.
///
/// Most candidates collide with nothing: no registered label shares a key
/// with them, nor another candidate. A plain one of those that the scan's
/// judge finds valid is `available` there and then; the others go through
/// the scan (see the module documentation), which is the exact path.
///
/// # Errors
/// As [`check`].
pub fn check_with<'a>(
    index: &'a Index,
    set: &LgrSet,
    plain: &PlainJudge,
    candidates: &'a [Candidate<'_>],
    config: &CheckConfig,
) -> Result<Vec<Verdict<'a>>, Error> {
    let keys = Keys::new(set);
    let (mut verdicts, probes) = without_scan(index, &keys, plain, candidates)?;
    let mut registered: BTreeMap<u32, Entry> = BTreeMap::new();
    let mut first_of: HashMap<&str, usize> = HashMap::new();
    // The candidates the scan takes: those left pending by the probes,
    // but for a repeated label, which is given its first's verdict after
    // the scan (`duplicates`: each with its first).
    // In priority order, so that of a repeated label the candidate first
    // by priority is the one the others repeat.
    let mut by_priority: Vec<usize> =
        (0..probes.len()).filter(|&i| probes[i].pending.is_some()).collect();
    if config.priority == Priority::Date {
        by_priority
            .sort_by_key(|&i| (candidates[i].priority().is_none(), candidates[i].priority(), i));
    }
    let (mut order, mut duplicates, mut pending_keys) = (Vec::new(), Vec::new(), Vec::new());
    for i in by_priority {
        let p = &probes[i];
        let f = p.forms();
        if let Some(&j) = first_of.get(&*f.alabel) {
            duplicates.push((i, j));
        } else {
            first_of.insert(&f.alabel, i);
            order.push(i);
        }
        pending_keys.extend_from_slice(p.keys());
    }
    // The registered labels under the pending candidates' keys, each key
    // looked up once.
    pending_keys.sort_unstable();
    pending_keys.dedup();
    let mut hits = Vec::new();
    for &k in &pending_keys {
        index.lookup(k, &mut hits)?;
        for e in hits.drain(..) {
            registered.entry(e.position).or_insert(e);
        }
    }
    close_over_keys(index, &keys, &mut registered)?;
    // The scan's input: registered labels by holder policy, then the
    // candidates by priority.
    let mut reg: Vec<RegisteredRow> = Vec::with_capacity(registered.len());
    for (_, entry) in registered {
        let alabel = index.alabel(&entry)?;
        // A quote would open a CSV field (below): only an invalid label
        // has one, and an invalid label holds no set.
        if list_safe(&alabel) && !alabel.contains('"') {
            let meta = index.meta(entry.position)?;
            let date = match config.holder {
                HolderPolicy::Registered => meta.registered,
                _ => None,
            };
            reg.push(RegisteredRow { entry, alabel, date, pin: meta.pin });
        }
    }
    if config.holder == HolderPolicy::Registered {
        reg.sort_by_key(|r| (r.date.is_none(), r.date, r.entry.position));
    }
    // A registered label pinned to an LGR (its CSV `lgr` column) is judged
    // by that one, as `scan` judges it: the scan's input is then a CSV
    // with that column (tab-separated: no line holds white space).
    let csv = reg.iter().any(|r| r.pin.is_some());
    let mut rows: Vec<Row> = (0..reg.len()).map(Row::Registered).collect();
    let mut list = String::from(if csv { "label\tlgr\n" } else { "" });
    for r in &reg {
        list.push_str(&r.alabel);
        if csv {
            list.push('\t');
            list.push_str(match r.pin {
                Some(Pin::Lgr(k)) => set.judges().get(k).map_or(NO_SUCH_LGR, |l| l.name()),
                Some(Pin::Unknown) => NO_SUCH_LGR,
                None => "",
            });
        }
        list.push('\n');
    }
    for &i in &order {
        let text = candidates[i].text.trim();
        let f = probes[i].forms();
        // A line the list reader takes as one name: no longer than a name
        // may be (RFC 1035 §2.3.4), else it would drop it as malformed.
        let line = if list_safe(text) && text.len() <= MAX_NAME_OCTETS && !text.contains('"') {
            text
        } else if f.finding.is_none() && f.alabel.len() <= MAX_NAME_OCTETS {
            &f.alabel
        } else {
            let mut v = Verdict::new(f.alabel.clone(), f.ulabel.clone(), Status::Invalid);
            let d = v.detail_mut();
            d.lgr = "IDNA2008".into();
            d.disposition = "invalid".into();
            d.reason = match &f.finding {
                Some(finding) => finding.to_string(),
                None => format!("longer than {MAX_NAME_OCTETS} octets"),
            };
            verdicts[i] = Some(v);
            continue;
        };
        list.push_str(line);
        list.push('\n');
        rows.push(Row::Candidate(i));
    }
    let ctx = Context { index, candidates, probes: &probes, reg: &reg, rows: &rows };
    ctx.scan_and_judge(set, list, csv, &mut verdicts)?;
    for (i, j) in duplicates {
        verdicts[i] = Some(duplicate_verdict(&ctx, &mut verdicts, i, j));
    }
    number_sets(&mut verdicts);
    let mut verdicts: Vec<Verdict<'a>> = verdicts
        .into_iter()
        .map(|v| v.ok_or_else(|| Error::new("a candidate got no verdict (internal error)")))
        .collect::<Result<_, _>>()?;
    name_reasons(index, candidates, &mut verdicts);
    verdicts.iter_mut().for_each(blocked_is_not_available);
    Ok(verdicts)
}

/// Makes a candidate that collides with nothing but whose own disposition
/// is `blocked` (a reflexive blocked variant or a `blocked` action, RFC
/// 7940 §7.3, §8.3) `invalid`: the LGR lets no one register it, and the
/// scan reports it as a `blocked` finding. Its detail keeps the
/// disposition and the rule that gave it.
fn blocked_is_not_available(v: &mut Verdict<'_>) {
    if v.status == Status::Available && v.detail().disposition == "blocked" {
        v.status = Status::Invalid;
    }
}

/// Says why a candidate that still has a dot once the zone's suffix is
/// taken off ([`Candidate::without_suffix`]) is invalid: it is a name of
/// another zone, or below a label, not a label. IDNA2008 finds a dot in a
/// label, but its reason ("escaped dot inside label") is the zone
/// reader's, where only an escape puts a dot in a label.
fn name_reasons(index: &Index, candidates: &[Candidate<'_>], verdicts: &mut [Verdict<'_>]) {
    for (c, v) in candidates.iter().zip(verdicts) {
        let text = c.text.trim();
        if v.status == Status::Invalid && text.contains('.') {
            if let Some(apex) = index.apex().filter(|a| same_apex(text, a)) {
                v.detail_mut().reason =
                    format!("{text:?} is the zone's apex ({apex}), not a label");
                continue;
            }
            let zone = match index.apex() {
                Some(apex) => format!("the zone's apex is {apex}"),
                None => "the index has no apex: build it with --origin".to_string(),
            };
            v.detail_mut().reason = format!(
                "{text:?} is a name, not a label ({zone}): a candidate is a label, or a name one \
                 label below the apex"
            );
        }
    }
}

/// Adds the registered labels that share a key with those in `found`,
/// until none is new: a verified grouping joins the sets of a label's two
/// index labels, so these may join a candidate's set.
fn close_over_keys(
    index: &Index,
    keys: &Keys<'_>,
    found: &mut BTreeMap<u32, Entry>,
) -> Result<(), Error> {
    let mut todo: Vec<Entry> = found.values().copied().collect();
    let (mut sc, mut ks, mut out) = (KeyScratch::default(), Vec::new(), Vec::new());
    while let Some(e) = todo.pop() {
        let f = to_labels(&index.alabel(&e)?);
        keys.of(&f.ulabel, &mut sc, &mut ks);
        if ks.len() < 2 {
            // One key: every label under it was found with it.
            continue;
        }
        out.clear();
        for &h in ks.iter() {
            index.lookup(h, &mut out)?;
        }
        for n in out.drain(..) {
            if let std::collections::btree_map::Entry::Vacant(slot) = found.entry(n.position) {
                slot.insert(n);
                todo.push(n);
            }
        }
    }
    Ok(())
}

/// The registered label `e` as a holder, its text read from the index.
fn registered_holder<'a>(index: &'a Index, e: &Entry) -> Result<Holder<'a>, Error> {
    let alabel = index.alabel(e)?;
    let ulabel = to_labels(&alabel).ulabel;
    registered_holder_as(index, e, alabel.into(), ulabel.into())
}

/// The registered label `e` as a holder whose text is known.
fn registered_holder_as<'a>(
    index: &'a Index,
    e: &Entry,
    alabel: Cow<'a, str>,
    ulabel: Cow<'a, str>,
) -> Result<Holder<'a>, Error> {
    Ok(Holder {
        alabel,
        ulabel,
        candidate: None,
        source: Cow::Borrowed(index.source(e.position)),
        line: u64::from(e.line),
        registrant: index.meta(e.position)?.registrant,
    })
}

//! The audit of a whole zone: judge every registered label against a set of
//! LGRs, group labels into variant sets under the variant LGR (by index
//! label, RFC 7940 §8.5, and with [`Grouping::Verified`] confirmed by the
//! variant relation, §8.2), decide who holds each variant set (a valid
//! member) and what the others are (RFC 7940 §8.3), and produce findings.
//!
//! Grouping ([`Grouping`]): lgr-core's index label (the variant LGR's
//! [`IndexMode::Reference`](crate::lgr::IndexMode::Reference)) splits some
//! variant pairs because it tests a variant's context rule on a shifted
//! label; the RZ-LGR overview's reading (§5.5.4 step 2.c,
//! [`IndexMode::Rfc7940`](crate::lgr::IndexMode::Rfc7940)) splits others
//! and groups some labels that are not variants. The verified grouping
//! keeps each label under both index labels when they differ (the judging
//! phase computes the second one only for labels whose partition is not
//! unique), joins the groups sharing a label, and checks each member
//! against the holder in both directions when resolving the group.
//!
//! [`scan`] takes a [`LabelSet`](crate::input::LabelSet) from
//! [`crate::input`], an [`LgrSet`] and a [`ScanConfig`], and returns a
//! [`Report`]: plain data, sorted, identical whatever the number of threads.
//! It uses rayon's current thread pool (the caller decides its size) and
//! reports progress through the [`Progress`] trait; it never prints.
//!
//! Memory: per label only a few bytes of counters are kept; index labels
//! are stored for IDN labels only when the variant LGR maps every ASCII
//! label to itself (checked when the set is built), since an ASCII label
//! can then only collide with an IDN label whose index label is that ASCII
//! text. Findings keep their own copies. Most plain labels need not be
//! stored at all: read under the set's [`plain_rule`] ([`settle_for`]),
//! they are counted as the zone is read (see [`crate::input::Settling`]).
//!
//! Judging runs in two passes, each with one worker per thread claiming
//! chunks of labels in turn (IDN labels cluster in a sorted zone): first
//! the labels with forms (IDN labels, findings, upper case), whose index
//! labels say which ASCII texts can join a group; then the plain labels,
//! most of a zone, of which only those with such a text are kept as
//! candidates.

mod contract;
mod group;
mod judge;

/// Longest label whose judgement is memoised (RFC 1035 §2.3.4).
const MEMO_MAX_LEN: usize = 63;

use crate::lgr::Lgr;
use std::sync::Arc;
use std::time::Duration;

pub use group::{Relation, Role};
pub(crate) use judge::own_verdict;
pub use judge::{plain_rule, settle_for};

/// The LGRs of a zone: the ones that judge labels, in order, and the one
/// whose variant relation defines collisions.
#[derive(Clone, Debug)]
pub struct LgrSet {
    judges: Vec<Arc<Lgr>>,
    variants: Arc<Lgr>,
    ascii_identity: bool,
    /// ASCII byte → class common to every judging LGR (see
    /// [`Lgr::ascii_classes`]): the judgement of an all-ASCII label is a
    /// function of its class string, so it is memoised on it.
    ascii_class: [u8; 128],
    /// The class strings of LDH labels under the whole set, packed.
    pack: Packing,
    /// The class strings of LDH labels under the first judging LGR alone,
    /// packed: an all-ASCII label eligible under it is judged by it, and
    /// whether it is is a function of this coarser string (see
    /// [`Lgr::ascii_classes`]), which takes far fewer values.
    pack_first: Packing,
    /// When the first judging LGR gives each of the LDH groups (letters,
    /// digits, hyphen) a class of its own: which groups have a
    /// [`PACK_TARGET`] byte (see [`Shape`]).
    shape: Option<Shape>,
    /// Per judging LGR, the code points that pass [`Lgr::same_elements`]
    /// between it and the variant LGR: for a label it judged whose code
    /// points are all in the set, its table of matching elements serves
    /// the variant LGR too, and no context rule is tested twice.
    same: Vec<CpBits>,
    /// The code points of the variant LGR's elements that have an
    /// all-ASCII variant (see [`Lgr::ascii_variants`]): a label whose code
    /// points are not all ASCII or among them has no all-ASCII index
    /// label. `None`: any label may have one.
    pub(crate) ascii_sources: Option<CpBits>,
    /// How labels are grouped into variant sets.
    grouping: Grouping,
}

/// How a scan groups labels into variant sets and which members count as
/// collisions (`--index-mode` of `lgrscan scan`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Grouping {
    /// Candidate groups are the union (union-find) of labels sharing
    /// either index label, that of [`IndexMode::Reference`](crate::lgr::IndexMode::Reference) or of
    /// [`IndexMode::Rfc7940`](crate::lgr::IndexMode::Rfc7940) (RFC 7940 §8.5), and each member's tie to
    /// the group's holder is confirmed by the variant relation: the member
    /// is a variant label of the holder, or the holder of the member (RFC
    /// 7940 §8.2, each variant's context rule tested on the label being
    /// generated; a bounded membership test, see
    /// [`Lgr::variant_disposition`]). A member that is a variant in
    /// neither direction is not a collision: its role is [`Role::Near`].
    /// Loses no pair either mode finds that is a variant pair, and groups
    /// no pair that is not.
    #[default]
    Verified,
    /// Labels sharing the variant LGR's index label in its own
    /// [`IndexMode`](crate::lgr::IndexMode) ([`Lgr::index_mode`]); every member is a collision,
    /// `blocked` when it is a variant of the holder in neither direction.
    /// With [`IndexMode::Reference`](crate::lgr::IndexMode::Reference) the groups are exactly those of
    /// ICANN's lgr-core and its published results.
    IndexLabel,
}

/// A set of code points as a two-level bitmap: a membership test is two
/// look-ups.
#[derive(Clone, Debug, Default)]
pub(crate) struct CpBits {
    /// Per page of 256 code points, 0 or one more than its index in `bits`.
    pages: Vec<u16>,
    bits: Vec<[u64; 4]>,
}

impl CpBits {
    /// Adds `cp`.
    fn insert(&mut self, cp: u32) {
        let p = (cp >> 8) as usize;
        if self.pages.len() <= p {
            self.pages.resize(p + 1, 0);
        }
        if self.pages[p] == 0 {
            self.bits.push([0; 4]);
            // At most 0x1100 pages: the index fits.
            self.pages[p] = self.bits.len() as u16;
        }
        let o = (cp & 0xff) as usize;
        self.bits[usize::from(self.pages[p]) - 1][o >> 6] |= 1 << (o & 63);
    }

    /// Whether `cp` is in the set.
    #[inline]
    pub(crate) fn contains(&self, cp: u32) -> bool {
        match self.pages.get((cp >> 8) as usize) {
            Some(&p) if p > 0 => {
                let o = (cp & 0xff) as usize;
                self.bits[usize::from(p) - 1][o >> 6] >> (o & 63) & 1 != 0
            }
            _ => false,
        }
    }
}

/// Packing of the class strings of LDH labels into a `u128`: the classes of
/// the LDH bytes numbered from 1 (0 for other bytes), `bits` bits per
/// byte, for labels up to `max` bytes.
#[derive(Clone, Debug)]
pub(crate) struct Packing {
    /// Per byte: the class code (bits 0–5), [`PACK_ALPHA`],
    /// [`PACK_TARGET`] and [`PACK_OTHER`].
    pub(crate) one: [u16; 256],
    /// [`Packing::one`] for two bytes at once, indexed by
    /// `second << 8 | first` (the two bytes read as a little-endian `u16`):
    /// the two codes packed (the first one `bits` higher, bits 0–11) and
    /// the flags of both, so that the packing loop takes half the steps.
    pub(crate) pair: Box<[u16; 1 << 16]>,
    pub(crate) bits: u32,
    pub(crate) max: usize,
}

impl Packing {
    /// The packing of the classes `class` gives the LDH bytes, with the
    /// flags of `targets` (see [`PACK_TARGET`]).
    fn new(class: impl Fn(u8) -> u16, targets: &[bool; 128]) -> Packing {
        let mut one = [PACK_OTHER; 256];
        let mut ids: Vec<u16> = Vec::new();
        for b in (b'a'..=b'z').chain(b'0'..=b'9').chain([b'-']) {
            let id = class(b);
            let code = match ids.iter().position(|&x| x == id) {
                Some(p) => p + 1,
                None => {
                    ids.push(id);
                    ids.len()
                }
            };
            // At most 37 codes: they fit in `PACK_CODE`.
            one[b as usize] = code as u16;
        }
        // Codes 1..=ids.len(), never 0, so strings of different lengths
        // pack to different values; the padding octet has code 0 and no
        // flag (see `judge::pack`).
        one[usize::from(judge::PAD)] = 0;
        let bits = usize::BITS - ids.len().leading_zeros();
        let max = (128 / bits as usize).min(MEMO_MAX_LEN);
        for (b, &t) in targets.iter().enumerate() {
            if t {
                one[b] |= PACK_TARGET;
            }
            if (b as u8).is_ascii_alphabetic() {
                one[b] |= PACK_ALPHA;
            }
        }
        let mut pair: Box<[u16; 1 << 16]> =
            vec![0u16; 1 << 16].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!());
        for (i, e) in pair.iter_mut().enumerate() {
            let (a, b) = (one[i & 0xff], one[i >> 8]);
            *e = ((a & PACK_CODE) << bits) | (b & PACK_CODE) | ((a | b) & !PACK_CODE);
        }
        Packing { one, pair, bits, max }
    }
}

/// How the first judging LGR classes the LDH bytes, when it gives all the
/// letters a-z one class and all the digits one class (see
/// [`Lgr::ascii_classes`]): a label of letters only, or of digits only,
/// then has the verdict of any other of its length, which
/// [`plain_rule`] judges once per length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Whether the digits are in the letters' class: a label of letters
    /// and digits then has the class string, hence the verdict, of the
    /// label of as many letters.
    pub(crate) digits_as_letters: bool,
    /// Whether the first judging LGR judges a label whose hyphens RFC
    /// 5891 allows as the label of as many letters
    /// ([`crate::lgr::Lgr::ldh_hyphens_as_letters`]).
    pub(crate) hyphens_as_letters: bool,
}

impl Shape {
    fn of(classes: &[u16]) -> Option<Shape> {
        let uniform = |mut bytes: std::ops::RangeInclusive<u8>| {
            let c = classes[usize::from(*bytes.start())];
            bytes.all(|b| classes[usize::from(b)] == c)
        };
        (uniform(b'a'..=b'z') && uniform(b'0'..=b'9')).then(|| Shape {
            digits_as_letters: classes[usize::from(b'0')] == classes[usize::from(b'a')],
            hyphens_as_letters: false,
        })
    }
}

/// [`Packing::one`] flag: an ASCII letter.
const PACK_ALPHA: u16 = 1 << 13;
/// [`Packing::one`] flag: one of the ASCII bytes one of which every
/// all-ASCII index label of an IDN label contains (see
/// [`Lgr::ascii_variants`]); only ASCII labels with one of them can
/// join a group by their text.
const PACK_TARGET: u16 = 1 << 14;
/// [`Packing::one`] flag: a byte that is not LDH (class code 0).
const PACK_OTHER: u16 = 1 << 15;
/// [`Packing::one`] mask of the class code.
const PACK_CODE: u16 = 0x3f;
/// [`Packing::pair`] mask of the two class codes.
const PACK_CODE2: u16 = 0xfff;

impl LgrSet {
    /// A set. With `variants` `None`, the single LGR is its own variant
    /// LGR; several LGRs need an explicit variant LGR (see
    /// [`crate::lgr::merge`] for the merged one).
    ///
    /// # Errors
    /// An empty set, or several LGRs and no variant LGR.
    pub fn new(judges: Vec<Arc<Lgr>>, variants: Option<Arc<Lgr>>) -> Result<LgrSet, String> {
        if judges.is_empty() {
            return Err("the LGR set is empty".into());
        }
        let variants = match variants {
            Some(v) => v,
            None if judges.len() == 1 => judges[0].clone(),
            None => return Err("several LGRs need a variant LGR".into()),
        };
        let ascii_identity = variants.ascii_is_own_index();
        let mut seen: Vec<Vec<u16>> = Vec::new();
        let mut ascii_class = [0u8; 128];
        for (b, slot) in ascii_class.iter_mut().enumerate() {
            let key: Vec<u16> = judges.iter().map(|l| l.ascii_classes()[b]).collect();
            let id = seen.iter().position(|k| *k == key).unwrap_or_else(|| {
                seen.push(key);
                seen.len() - 1
            });
            *slot = id as u8;
        }
        let ascii_variants = variants.ascii_variants();
        let targets = ascii_variants.as_ref().map_or([true; 128], |a| a.targets);
        let ascii_sources = ascii_variants.map(|a| {
            let mut s = CpBits::default();
            a.sources.iter().for_each(|&cp| s.insert(cp));
            s
        });
        let pack = Packing::new(|b| u16::from(ascii_class[usize::from(b)]), &targets);
        let first = judges[0].clone();
        let pack_first = Packing::new(|b| first.ascii_classes()[usize::from(b)], &targets);
        let same = judges
            .iter()
            .map(|l| {
                let mut s = CpBits::default();
                for cp in l.chars.iter().filter_map(|c| c.cps.first().copied()) {
                    if l.same_elements(&variants, cp) {
                        s.insert(cp);
                    }
                }
                s
            })
            .collect();
        let shape = Shape::of(&first.ascii_classes()[..])
            .map(|s| Shape { hyphens_as_letters: first.ldh_hyphens_as_letters(), ..s });
        Ok(LgrSet {
            judges,
            variants,
            ascii_identity,
            ascii_class,
            pack,
            pack_first,
            shape,
            same,
            ascii_sources,
            grouping: Grouping::default(),
        })
    }

    /// The same set, grouping labels as `grouping` says (default:
    /// [`Grouping::Verified`]).
    pub fn with_grouping(mut self, grouping: Grouping) -> LgrSet {
        self.grouping = grouping;
        self
    }

    /// How the set groups labels.
    pub fn grouping(&self) -> Grouping {
        self.grouping
    }

    /// The judging LGRs, in order.
    pub fn judges(&self) -> &[Arc<Lgr>] {
        &self.judges
    }

    /// The variant LGR.
    pub fn variants(&self) -> &Lgr {
        &self.variants
    }

    /// Finds a judging LGR for a CSV `lgr` value: its name, its name without
    /// `builtin:` or without the `.xml` ending, or one of its language tags,
    /// each in any ASCII case (`KASHMIRI`, `ks-Arab`).
    pub fn find(&self, pin: &str) -> Option<usize> {
        let pin = pin.trim();
        let same = |a: Option<&str>| a.is_some_and(|a| a.eq_ignore_ascii_case(pin));
        self.judges.iter().position(|l| {
            let name = l.name();
            same(Some(name))
                || same(name.strip_prefix("builtin:"))
                || same(name.strip_suffix(".xml"))
                || l.doc().meta.languages.iter().any(|t| t.eq_ignore_ascii_case(pin))
        })
    }
}

/// Who holds a variant set (`--holder`). Only a valid member (eligible
/// under its LGR, no IDNA2008 finding) holds one; a set with no valid
/// member has no holder and is not reported as a collision (each member
/// is an invalid row).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HolderPolicy {
    /// The first valid member in input order.
    #[default]
    Input,
    /// The valid member with the earliest `registered` date (CSV column);
    /// members without a date come after those with one, then input order.
    Registered,
}

/// Options of a scan.
#[derive(Clone, Debug, Default)]
pub struct ScanConfig {
    /// Who holds a variant set.
    pub holder: HolderPolicy,
}

/// Progress reports from a scan, called per chunk of labels, never per
/// label. Implementations must be cheap and thread-safe.
pub trait Progress: Sync {
    /// A phase starts, with the number of items it will process.
    fn phase(&self, _name: &str, _total: u64) {}
    /// `n` more items of the current phase are done.
    fn advance(&self, _n: u64) {}
}

/// A [`Progress`] that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FindingKind {
    /// A member of a variant set with at least one conflict.
    Collision,
    /// A label invalid under its LGR or under IDNA2008.
    Invalid,
    /// A registered label eligible under the LGR that judges it whose own
    /// disposition is `blocked` (RFC 7940 §8.3: an action gave it; IANA's
    /// registry of dispositions: "a valid label but should be blocked
    /// from registration"). The label stays eligible: it still holds or
    /// joins its variant set as before.
    Blocked,
    /// An activated (delegated) allocatable variant whose NS RRset differs
    /// from its holder's (zone input with NS targets collected): registry
    /// agreements provision active variants as zone cuts with the same NS
    /// records as the name they are variants of.
    NsMismatch,
    /// An allocatable variant whose registrant or registrar differs from
    /// its holder's (CSV input with those columns): the "same entity"
    /// principle of ICANN's EPDP on Internationalized Domain Names.
    SameEntity,
}

impl FindingKind {
    /// `collision`, `invalid`, `blocked`, `ns-mismatch` or `same-entity`.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::Collision => "collision",
            FindingKind::Invalid => "invalid",
            FindingKind::Blocked => "blocked",
            FindingKind::NsMismatch => "ns-mismatch",
            FindingKind::SameEntity => "same-entity",
        }
    }

    /// Every kind, in report order.
    pub const ALL: [FindingKind; 5] = [
        FindingKind::Collision,
        FindingKind::Invalid,
        FindingKind::Blocked,
        FindingKind::NsMismatch,
        FindingKind::SameEntity,
    ];
}

/// One row of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Its kind.
    pub kind: FindingKind,
    /// The label's index in the [`LabelSet`](crate::input::LabelSet).
    pub label: usize,
    /// The LGR that gave the disposition (or `IDNA2008`).
    pub lgr: String,
    /// The disposition.
    pub disposition: String,
    /// Why.
    pub reason: String,
    /// The index label under the variant LGR, as text (empty if none).
    pub index: String,
    /// The group number (1-based, by the holder's input position).
    pub group: Option<u32>,
    /// The role in the group.
    pub role: Option<Role>,
    /// How a member other than the holder is tied to the holder.
    pub relation: Option<Relation>,
    /// The holder's label index.
    pub holder: Option<usize>,
}

/// Counts for the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Labels judged.
    pub labels: u64,
    /// IDN labels among them.
    pub idn_labels: u64,
    /// Labels judged per LGR (eligible under it), in set order; the last
    /// entry counts labels eligible under none.
    pub per_lgr: Vec<(String, u64)>,
    /// Labels per Unicode script (`Latn`, `Deva`, …, `Zyyy` for digits
    /// and hyphens only, `Mixed`).
    pub per_script: Vec<(String, u64)>,
    /// Invalid labels by reason family.
    pub invalid_by_family: Vec<(String, u64)>,
    /// Labels invalid under their LGR or IDNA2008.
    pub invalid: u64,
    /// Eligible labels whose own disposition is `blocked`
    /// ([`FindingKind::Blocked`] findings; RFC 7940 §8.3).
    pub blocked: u64,
    /// Labels with an index label under the variant LGR.
    pub indexed: u64,
    /// Groups of two or more labels sharing an index label.
    pub groups: u64,
    /// Groups with at least one conflict.
    pub conflict_groups: u64,
    /// Members of groups that conflict with their holder.
    pub conflicts: u64,
    /// Members allocated to the holder's registrant (no conflict).
    pub allocated: u64,
    /// Members of groups with a conflict that are variants of the holder
    /// in neither direction ([`Role::Near`], no conflict).
    pub near: u64,
    /// [`FindingKind::NsMismatch`] findings.
    pub ns_mismatch: u64,
    /// [`FindingKind::SameEntity`] findings.
    pub same_entity: u64,
    /// Time the scan took.
    pub elapsed: Duration,
}

/// The result of a scan.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Per group (by holder position): its collision rows (by input
    /// position) and its contract rows ([`FindingKind::NsMismatch`],
    /// [`FindingKind::SameEntity`], by input position); then invalid rows
    /// (by input position); then [`FindingKind::Blocked`] rows (by input
    /// position). A group with contract rows and no conflict has
    /// only its contract rows.
    pub findings: Vec<Finding>,
    /// Counts.
    pub summary: Summary,
}

impl Report {
    /// True when there is any finding.
    pub fn has_findings(&self) -> bool {
        !self.findings.is_empty()
    }
}

/// The script of a label, as the summary counts it: the one Unicode
/// script of its code points other than Common and Inherited, `Zyyy` when
/// none, `Mixed` when several.
pub fn label_script(text: &str) -> &'static str {
    let cps: Vec<u32> = text.chars().map(u32::from).collect();
    judge::script_of_with(&cps, |c| {
        icu_properties::CodePointMapData::<icu_properties::props::Script>::new().get32(c)
    })
}

/// Scans a label set (see the module documentation).
pub fn scan(
    labels: &crate::input::LabelSet,
    lgrs: &LgrSet,
    config: &ScanConfig,
    progress: &dyn Progress,
) -> Report {
    let start = std::time::Instant::now();
    let mut judged = judge::judge_all(labels, lgrs, progress);
    let (mut findings, mut summary) = group::collide(labels, lgrs, config, &mut judged, progress);
    findings.append(&mut judged.invalid);
    summary.blocked = judged.blocked.len() as u64;
    findings.append(&mut judged.blocked);
    summary.labels = labels.len() as u64 + labels.settled_unstored();
    summary.idn_labels = judged.idn;
    summary.invalid = judged.invalid_count;
    summary.indexed = judged.indexed;
    summary.per_lgr = judged.per_lgr;
    summary.per_script = judged.per_script;
    summary.invalid_by_family = judged.families;
    summary.elapsed = start.elapsed();
    Report { findings, summary }
}

#[cfg(test)]
mod tests {
    /// Threads share LGRs, sets and label sets (issue #2: `Send + Sync`).
    #[test]
    fn shared_types_are_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<crate::lgr::Lgr>();
        check::<super::LgrSet>();
        check::<crate::input::LabelSet>();
        check::<super::Report>();
    }

    /// [`super::Shape`]: whether the digits are in the letters' class,
    /// for each way the letters, digits and hyphen can share classes;
    /// letters or digits of two classes give no shape.
    #[test]
    fn shapes_of_the_ldh_classes() {
        use super::Shape;
        let partitions: [[u16; 3]; 5] = [[0, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1], [0, 1, 2]];
        for (p, &[l, d, h]) in partitions.iter().enumerate() {
            let mut classes = [999u16; 128];
            for b in b'a'..=b'z' {
                classes[usize::from(b)] = l;
            }
            for b in b'0'..=b'9' {
                classes[usize::from(b)] = d;
            }
            classes[usize::from(b'-')] = h;
            let shape = Shape::of(&classes).expect("letters, digits uniform");
            assert_eq!(shape.digits_as_letters, d == l, "{p}");
            for split in [b'7', b'q'] {
                let mut two = classes;
                two[usize::from(split)] = 5;
                assert!(Shape::of(&two).is_none(), "{p}: {split} of another class");
            }
        }
    }
}

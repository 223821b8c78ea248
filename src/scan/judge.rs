//! Phase 1 of a scan: judge every label against the LGR set and compute
//! the index labels that must be kept.

use super::{Finding, FindingKind, LgrSet, Progress};
use crate::idna2008::Finding as IdnaFinding;
use crate::input::{Label as InputLabel, LabelSet};
use crate::lgr::{Lgr, Reason, Verdict};
use icu_properties::props::Script;
use icu_properties::{CodePointMapData, PropertyNamesShort};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<crate::lgr::CpHasher>>;

/// Labels per progress report.
const CHUNK: usize = 4096;

/// Phase 1 results.
#[derive(Default)]
pub(crate) struct Judged {
    pub invalid: Vec<Finding>,
    pub invalid_count: u64,
    pub idn: u64,
    pub indexed: u64,
    pub per_lgr: Vec<(String, u64)>,
    pub per_script: Vec<(String, u64)>,
    pub families: Vec<(String, u64)>,
    /// Index labels kept, with the label index.
    pub keyed: Vec<(Box<[u32]>, u32)>,
}

/// How one label was judged.
pub(crate) struct Judgement<'a> {
    /// Index of the judging LGR in the set (`None`: IDNA2008 or a bad pin).
    pub lgr: Option<usize>,
    /// The verdict when an LGR judged it.
    pub verdict: Option<Verdict<'a>>,
    /// The reason text when no LGR did.
    pub other: Option<String>,
    /// The reason family of an IDNA2008 finding, for the summary.
    pub idna_family: Option<&'static str>,
}

impl Judgement<'_> {
    pub fn eligible(&self) -> bool {
        self.verdict.as_ref().is_some_and(|v| v.eligible)
    }
}

/// Judges one label (issue rules: the CSV `lgr` pin, else the first LGR of
/// the set under which it is eligible, else the one covering most of its
/// code points, ties to the first).
pub(crate) fn judge_one<'a>(set: &'a LgrSet, label: &InputLabel<'_>, cps: &[u32]) -> Judgement<'a> {
    if let Some(f) = label.finding() {
        return Judgement {
            lgr: None,
            verdict: None,
            other: Some(f.to_string()),
            idna_family: Some(idna_family(f)),
        };
    }
    if let Some(pin) = label.csv().and_then(|c| c.lgr.as_deref()).filter(|p| !p.trim().is_empty()) {
        return match set.find(pin) {
            Some(i) => Judgement {
                lgr: Some(i),
                verdict: Some(set.judges[i].judge(cps)),
                other: None,
                idna_family: None,
            },
            None => Judgement {
                lgr: None,
                verdict: None,
                other: Some(format!("the lgr column names '{pin}', which is not in the LGR set")),
                idna_family: None,
            },
        };
    }
    // A label with a code point that starts no element of an LGR cannot be
    // eligible under it (RFC 7940 §8.1): count the coverage first and judge
    // only when it is complete, or at the end for the best-covering LGR.
    let mut best: Option<(usize, usize)> = None;
    for (i, lgr) in set.judges.iter().enumerate() {
        let cover = cps.iter().filter(|&&c| lgr.starts_element(c)).count();
        if cover == cps.len() {
            let v = lgr.judge(cps);
            if v.eligible {
                return Judgement {
                    lgr: Some(i),
                    verdict: Some(v),
                    other: None,
                    idna_family: None,
                };
            }
        }
        if best.is_none_or(|b| cover > b.1) {
            best = Some((i, cover));
        }
    }
    let (i, _) = best.expect("the set is not empty");
    let v = set.judges[i].judge(cps);
    Judgement { lgr: Some(i), verdict: Some(v), other: None, idna_family: None }
}

/// The reason family of an IDNA2008 finding: its text without positions
/// and code points.
fn idna_family(f: &IdnaFinding) -> &'static str {
    match f {
        IdnaFinding::Empty => "empty label",
        IdnaFinding::TooLong { .. } => "label too long",
        IdnaFinding::NotUtf8 { .. } => "not UTF-8",
        IdnaFinding::NonLdh { byte: b'.', .. } => "escaped dot inside label",
        IdnaFinding::NonLdh { .. } => "non-LDH ASCII",
        IdnaFinding::LeadingHyphen => "hyphen at start",
        IdnaFinding::TrailingHyphen => "hyphen at end",
        IdnaFinding::HyphenPositions34 => "hyphens in positions 3 and 4",
        IdnaFinding::PunycodeDecode => "punycode does not decode",
        IdnaFinding::FakeALabel => "fake A-label: decodes to ASCII",
        IdnaFinding::RoundTrip => "A-label does not round-trip",
        IdnaFinding::NotNfc => "not NFC",
        IdnaFinding::LeadingCombiningMark { .. } => "leading combining mark",
        IdnaFinding::Disallowed { .. } => "DISALLOWED code point",
        IdnaFinding::Unassigned { .. } => "UNASSIGNED code point",
        IdnaFinding::ContextJ { .. } => "CONTEXTJ fails",
        IdnaFinding::ContextO { .. } => "CONTEXTO fails",
        IdnaFinding::Bidi { .. } => "Bidi rule fails (RFC 5893)",
    }
}

/// The reason family of a verdict, for the summary.
pub(crate) fn family(lgr: &Lgr, j: &Judgement<'_>) -> String {
    if let Some(f) = j.idna_family {
        return format!("IDNA2008: {f}");
    }
    if let Some(o) = &j.other {
        let words: Vec<&str> = o
            .split_whitespace()
            .filter(|w| !w.starts_with("U+") && !w.bytes().any(|b| b.is_ascii_digit()))
            .collect();
        return format!("IDNA2008: {}", words.join(" "));
    }
    match j.verdict.as_ref().map(|v| &v.reason) {
        Some(Reason::Failures(f)) => match f.iter().find(|f| !f.rules.is_empty()) {
            Some(x) if f.iter().all(|f| !f.rules.is_empty()) => {
                format!("context rule {}", x.rules.join(","))
            }
            _ => "code point not in repertoire".to_string(),
        },
        Some(Reason::Action(_)) => {
            let t = lgr.reason_text(&j.verdict.as_ref().expect("some").reason);
            let head = t.split(" \"").next().unwrap_or(&t);
            head.split_once(": ").map_or(head, |x| x.1).to_string()
        }
        Some(Reason::Empty) => "empty label".to_string(),
        None => "unknown".to_string(),
    }
}

/// The script of a label: the one Unicode script of its code points other
/// than Common and Inherited, `Zyyy` when none, `Mixed` when several.
pub(crate) fn script_of(cps: &[u32]) -> &'static str {
    let map = CodePointMapData::<Script>::new();
    let mut found: Option<Script> = None;
    for &c in cps {
        let s = map.get32(c);
        if s == Script::Common || s == Script::Inherited {
            continue;
        }
        match found {
            None => found = Some(s),
            Some(f) if f == s => {}
            Some(_) => return "Mixed",
        }
    }
    match found {
        None => "Zyyy",
        Some(s) => PropertyNamesShort::<Script>::new().get(s).unwrap_or("Zzzz"),
    }
}

/// What the memo keeps of an all-ASCII label's judgement.
#[derive(Clone, Copy)]
struct Memo {
    lgr: Option<usize>,
    eligible: bool,
}

/// Longest label the memo takes (RFC 1035 §2.3.4).
const MEMO_MAX_LEN: usize = 63;
/// Entries after which a worker's memo is emptied.
const MEMO_MAX_ENTRIES: usize = 200_000;

/// Per-worker accumulator.
#[derive(Default)]
struct Acc {
    invalid: Vec<Finding>,
    idn: u64,
    indexed: u64,
    per_lgr: Vec<u64>,
    per_script: BTreeMap<&'static str, u64>,
    families: BTreeMap<String, u64>,
    keyed: Vec<(Box<[u32]>, u32)>,
}

impl Acc {
    /// Records a label that is not eligible, with its index label if any.
    fn push_invalid(
        &mut self,
        set: &LgrSet,
        label: usize,
        j: &Judgement<'_>,
        index: Option<&[u32]>,
    ) {
        let [lgr, disposition, reason, fam] = verdict_fields(set, j);
        *self.families.entry(fam).or_default() += 1;
        self.invalid.push(Finding {
            kind: FindingKind::Invalid,
            label,
            lgr,
            disposition,
            reason,
            index: index.map(index_text).unwrap_or_default(),
            group: None,
            role: None,
            holder: None,
        });
    }

    fn merge(mut self, o: Acc) -> Acc {
        self.invalid.extend(o.invalid);
        self.idn += o.idn;
        self.indexed += o.indexed;
        if self.per_lgr.len() < o.per_lgr.len() {
            self.per_lgr.resize(o.per_lgr.len(), 0);
        }
        for (i, n) in o.per_lgr.into_iter().enumerate() {
            self.per_lgr[i] += n;
        }
        for (k, n) in o.per_script {
            *self.per_script.entry(k).or_default() += n;
        }
        for (k, n) in o.families {
            *self.families.entry(k).or_default() += n;
        }
        self.keyed.extend(o.keyed);
        self
    }
}

/// LGR name (or `IDNA2008`), disposition, reason text and reason family
/// of a judgement.
pub(crate) fn verdict_fields(set: &LgrSet, j: &Judgement<'_>) -> [String; 4] {
    let lgr = j.lgr.map(|l| &*set.judges[l]);
    let fam = lgr.map_or_else(|| family(set.variants(), j), |l| family(l, j));
    match (&j.verdict, lgr) {
        (Some(v), Some(l)) => {
            [l.name().to_string(), v.disposition.to_string(), l.reason_text(&v.reason), fam]
        }
        _ => [
            "IDNA2008".to_string(),
            "invalid".to_string(),
            j.other.clone().unwrap_or_default(),
            fam,
        ],
    }
}

/// Text of an index label.
pub(crate) fn index_text(cps: &[u32]) -> String {
    cps.iter().map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}')).collect()
}

pub(crate) fn judge_all(labels: &LabelSet, set: &LgrSet, progress: &dyn Progress) -> Judged {
    let n = labels.len();
    progress.phase("judging labels", n as u64);
    let nl = set.judges.len();
    let acc = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .fold(
            || {
                let acc = Acc { per_lgr: vec![0; nl + 1], ..Acc::default() };
                (acc, Vec::<u32>::new(), Vec::<u8>::new(), FastMap::<Box<[u8]>, Memo>::default())
            },
            |(mut acc, mut cps, mut key, mut memo), chunk| {
                let end = ((chunk + 1) * CHUNK).min(n);
                for i in chunk * CHUNK..end {
                    let Some(label) = labels.get(i) else { continue };
                    let u = label.ulabel();
                    let finding = label.finding();
                    let fast = set.ascii_identity
                        && u.is_ascii()
                        && u.len() <= MEMO_MAX_LEN
                        && finding.is_none()
                        && label
                            .csv()
                            .is_none_or(|c| c.lgr.as_deref().is_none_or(|p| p.trim().is_empty()));
                    if fast {
                        key.clear();
                        key.extend(u.bytes().map(|b| set.ascii_class[b as usize]));
                        let m = match memo.get(&key[..]) {
                            Some(m) => *m,
                            None => {
                                cps.clear();
                                cps.extend(u.bytes().map(u32::from));
                                let j = judge_one(set, &label, &cps);
                                let m = Memo { lgr: j.lgr, eligible: j.eligible() };
                                if memo.len() >= MEMO_MAX_ENTRIES {
                                    memo.clear();
                                }
                                memo.insert(key.clone().into_boxed_slice(), m);
                                m
                            }
                        };
                        acc.per_lgr[if m.eligible { m.lgr.unwrap_or(nl) } else { nl }] += 1;
                        let script = if u.bytes().any(|b| b.is_ascii_alphabetic()) {
                            "Latn"
                        } else {
                            "Zyyy"
                        };
                        *acc.per_script.entry(script).or_default() += 1;
                        if !m.eligible {
                            // Rare: judge again for the reason's text.
                            cps.clear();
                            cps.extend(u.bytes().map(u32::from));
                            let j = judge_one(set, &label, &cps);
                            let index = set.variants.index_label(&cps);
                            acc.push_invalid(set, i, &j, index.as_deref());
                        }
                        continue;
                    }
                    cps.clear();
                    cps.extend(u.chars().map(u32::from));
                    let ascii = u.is_ascii();
                    if label.is_idn() {
                        acc.idn += 1;
                    }
                    let j = judge_one(set, &label, &cps);
                    let eligible = j.eligible();
                    acc.per_lgr[if eligible { j.lgr.unwrap_or(nl) } else { nl }] += 1;
                    *acc.per_script.entry(script_of(&cps)).or_default() += 1;
                    let index = if (ascii && set.ascii_identity) || cps.is_empty() {
                        None
                    } else {
                        set.variants.index_label(&cps)
                    };
                    if !eligible {
                        let index = match &index {
                            Some(x) => Some(x.clone()),
                            None if ascii && set.ascii_identity => set.variants.index_label(&cps),
                            None => None,
                        };
                        acc.push_invalid(set, i, &j, index.as_deref());
                    }
                    if let Some(x) = index {
                        acc.indexed += 1;
                        acc.keyed.push((x.into_boxed_slice(), i as u32));
                    }
                }
                progress.advance((end - chunk * CHUNK) as u64);
                (acc, cps, key, memo)
            },
        )
        .map(|(a, ..)| a)
        .reduce(|| Acc { per_lgr: vec![0; nl + 1], ..Acc::default() }, Acc::merge);
    let mut per_lgr: Vec<(String, u64)> =
        set.judges.iter().zip(&acc.per_lgr).map(|(l, &n)| (l.name().to_string(), n)).collect();
    per_lgr.push(("(none: invalid)".to_string(), acc.per_lgr.get(nl).copied().unwrap_or(0)));
    let invalid_count = acc.invalid.len() as u64;
    Judged {
        invalid: acc.invalid,
        invalid_count,
        idn: acc.idn,
        indexed: acc.indexed,
        per_lgr,
        per_script: acc.per_script.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        families: acc.families.into_iter().collect(),
        keyed: acc.keyed,
    }
}

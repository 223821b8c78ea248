//! One label judged: its verdict under each LGR and its family.

use super::keys::KeyParts;
use crate::idna2008::Finding as IdnaFinding;
use crate::input::Label as InputLabel;
use crate::lgr::IndexScratch;
use crate::lgr::Label as EvalLabel;
use crate::lgr::Lgr;
use crate::lgr::Reason;
use crate::lgr::Verdict;
use crate::scan::Finding;
use crate::scan::LgrSet;
use icu_properties::PropertyNamesShort;
use icu_properties::props::Script;

pub(super) use crate::hash::FastMap;

/// Phase 1 results.
#[derive(Default)]
pub(crate) struct Judged {
    /// The invalid labels' rows, sorted by label (input position).
    pub invalid: Vec<Finding>,
    /// The rows of eligible labels whose own disposition is `blocked`
    /// ([`crate::scan::FindingKind::Blocked`]), sorted by label.
    pub blocked: Vec<Finding>,
    pub invalid_count: u64,
    pub idn: u64,
    pub indexed: u64,
    pub per_lgr: Vec<(String, u64)>,
    pub per_script: Vec<(String, u64)>,
    pub families: Vec<(String, u64)>,
    /// Index labels kept, one list per judging worker (see [`KeyParts`]).
    pub keys: KeyParts,
    /// ASCII labels whose text may be an IDN label's index label (they
    /// have a byte flagged [`PACK_TARGET`], and plain ones passed the
    /// filter of [`KeyFilter`]), with [`text_hash`] of it.
    pub ascii_cands: Vec<(u32, u32)>,
    /// With [`Grouping::Verified`]: the labels kept under two index labels
    /// (one per [`crate::lgr::IndexMode`]), sorted: the groups they are in
    /// are one candidate group.
    pub dual: Vec<u32>,
}

/// The verdict of `lgr` on `label` when every code point of the label
/// starts one of its elements; `None` otherwise, since the label then
/// cannot be eligible under it (RFC 7940 §8.1). The table of matching
/// elements is left in `sc` ([`Lgr::judge_label_table`]).
pub(super) fn judge_covered<'a>(
    lgr: &'a Lgr,
    label: &EvalLabel,
    sc: &mut IndexScratch,
) -> Option<Verdict<'a>> {
    label.cps().iter().all(|&c| lgr.starts_element(c)).then(|| lgr.judge_label_table(label, sc))
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
    /// The CSV `lgr` value that names no LGR of the set, when that is why
    /// no LGR judged the label: the row's `lgr` column then shows it.
    pub unknown_pin: Option<String>,
}

impl Judgement<'_> {
    pub fn eligible(&self) -> bool {
        self.verdict.as_ref().is_some_and(|v| v.eligible)
    }

    /// Eligible, with the own disposition `blocked` (RFC 7940 §8.3): a
    /// [`crate::scan::FindingKind::Blocked`] finding.
    pub fn blocked(&self) -> bool {
        self.verdict.as_ref().is_some_and(own_blocked)
    }
}

/// Whether a verdict is eligible with the own disposition `blocked` (RFC
/// 7940 §8.3; IANA's registry of dispositions: "a valid label but should
/// be blocked from registration"): a comparison on the verdict.
#[inline]
pub(crate) fn own_blocked(v: &Verdict<'_>) -> bool {
    v.eligible && v.disposition == "blocked"
}

/// Eligible and not [`own_blocked`]: a label the scan counts and
/// reports nothing of on its own, which the memos of all-ASCII labels
/// and the reader's settling may take without judging it again.
#[inline]
pub(crate) fn quiet(v: &Verdict<'_>) -> bool {
    v.eligible && !own_blocked(v)
}

/// Judges one label (issue rules: the CSV `lgr` pin, else the first LGR of
/// the set under which it is eligible, else the one covering most of its
/// code points, ties to the first), with buffers reused across labels: the
/// judging LGR's table of matching elements is left in `sc` (see
/// [`Lgr::judge_label_table`]) when an LGR judged the label.
pub(crate) fn judge_one_in<'a>(
    set: &'a LgrSet,
    label: &InputLabel<'_>,
    prepared: &EvalLabel,
    sc: &mut IndexScratch,
) -> Judgement<'a> {
    if let Some(f) = label.finding() {
        return Judgement {
            lgr: None,
            verdict: None,
            other: Some(f.to_string()),
            idna_family: Some(idna_family(f)),
            unknown_pin: None,
        };
    }
    if let Some(pin) = label.csv().and_then(|c| c.lgr).filter(|p| !p.trim().is_empty()) {
        return match set.find(pin) {
            Some(i) => Judgement {
                lgr: Some(i),
                verdict: Some(set.judges[i].judge_label_table(prepared, sc)),
                other: None,
                idna_family: None,
                unknown_pin: None,
            },
            None => Judgement {
                lgr: None,
                verdict: None,
                other: Some(format!("the lgr column names '{pin}', which is not in the LGR set")),
                idna_family: None,
                unknown_pin: Some(pin.trim().to_string()),
            },
        };
    }
    judge_by_set(set, prepared, sc)
}

/// Judges a label that passes IDNA2008 and has no pin by the set: the
/// first LGR under which it is eligible, else the one covering most of
/// its code points ([`judge_one_in`]).
fn judge_by_set<'a>(set: &'a LgrSet, prepared: &EvalLabel, sc: &mut IndexScratch) -> Judgement<'a> {
    let cps = prepared.cps();
    // A label with a code point that starts no element of an LGR cannot be
    // eligible under it (RFC 7940 §8.1): judge only when every code point
    // starts one, and when no LGR makes the label eligible (rare), take the
    // best-covering one.
    for (i, lgr) in set.judges.iter().enumerate() {
        if let Some(v) = judge_covered(lgr, prepared, sc)
            && v.eligible
        {
            return Judgement {
                lgr: Some(i),
                verdict: Some(v),
                other: None,
                idna_family: None,
                unknown_pin: None,
            };
        }
    }
    let mut best: Option<(usize, usize)> = None;
    for (i, lgr) in set.judges.iter().enumerate() {
        let cover = cps.iter().filter(|&&c| lgr.starts_element(c)).count();
        if best.is_none_or(|b| cover > b.1) {
            best = Some((i, cover));
        }
    }
    let (i, _) = best.expect("the set is not empty");
    let v = set.judges[i].judge_label_table(prepared, sc);
    Judgement { lgr: Some(i), verdict: Some(v), other: None, idna_family: None, unknown_pin: None }
}

/// The reason family of an IDNA2008 finding: its text without positions
/// and code points.
pub(super) fn idna_family(f: &IdnaFinding) -> &'static str {
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
        IdnaFinding::ULabelInZone => "U-label in the zone, not its A-label",
    }
}

/// The reason family of a verdict, for the summary.
pub(crate) fn family(lgr: &Lgr, j: &Judgement<'_>) -> String {
    if let Some(f) = j.idna_family {
        return format!("IDNA2008: {f}");
    }
    if j.unknown_pin.is_some() {
        return "the lgr column names an LGR not in the set".to_string();
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
/// The script of each code point comes from `script`.
pub(crate) fn script_of_with(cps: &[u32], mut script: impl FnMut(u32) -> Script) -> &'static str {
    let mut found: Option<Script> = None;
    for &c in cps {
        let s = script(c);
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

/// LGR name (or `IDNA2008`, or the unknown LGR a CSV row pins),
/// disposition, reason text and reason family of a judgement.
pub(crate) fn verdict_fields(set: &LgrSet, j: &Judgement<'_>) -> [String; 4] {
    let lgr = j.lgr.map(|l| &*set.judges[l]);
    let fam = lgr.map_or_else(|| family(set.variants(), j), |l| family(l, j));
    match (&j.verdict, lgr) {
        (Some(v), Some(l)) => {
            [l.name().to_string(), v.disposition.to_string(), l.reason_text(&v.reason), fam]
        }
        _ => [
            j.unknown_pin.clone().unwrap_or_else(|| "IDNA2008".to_string()),
            "invalid".to_string(),
            j.other.clone().unwrap_or_default(),
            fam,
        ],
    }
}

/// The LGR name, disposition and reason text the scan gives the U-label
/// `ulabel` of a label that passes IDNA2008 and has no pin, as the row of
/// a variant set's holder says them; `label` and `sc` are buffers.
pub(crate) fn own_verdict(
    set: &LgrSet,
    ulabel: &str,
    label: &mut EvalLabel,
    sc: &mut IndexScratch,
) -> [String; 3] {
    label.set_text(ulabel);
    let [lgr, disposition, reason, _] = verdict_fields(set, &judge_by_set(set, label, sc));
    [lgr, disposition, reason]
}

/// Text of an index label.
pub(crate) fn index_text(cps: &[u32]) -> String {
    cps.iter().map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}')).collect()
}

//! The verdicts of a check made from the scan around its candidates
//! ([`super::check_with`]): each candidate's row as the scan reports it,
//! the holder of its set, the duplicates of earlier candidates and the
//! contention sets' numbers.

use super::{
    Candidate, Detail, Holder, NO_SUCH_LGR, Probe, RegisteredRow, Row, SameRegistrant, Status,
    Verdict, own_detail, registered_holder,
};
use crate::index::{Error, Index};
use crate::input::{self, Input, InputFormat};
use crate::lgr::Lgr;
use crate::scan::{self, FindingKind, HolderPolicy, LgrSet, Role, ScanConfig};
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// What the verdicts are made from: the check's own tables (`'c`), and
/// the index and candidates the verdicts borrow from (`'a`).
pub(super) struct Context<'c, 'a> {
    pub(super) index: &'a Index,
    pub(super) candidates: &'a [Candidate<'a>],
    pub(super) probes: &'c [Probe<'a>],
    pub(super) reg: &'c [RegisteredRow],
    pub(super) rows: &'c [Row],
}

impl<'a> Context<'_, 'a> {
    fn holder_of(&self, row: Row) -> Result<Holder<'a>, Error> {
        match row {
            Row::Registered(r) => registered_holder(self.index, &self.reg[r].entry),
            Row::Candidate(c) => Ok(Holder {
                alabel: self.probes[c].forms().alabel.clone(),
                ulabel: self.probes[c].forms().ulabel.clone(),
                candidate: Some(c),
                source: Cow::Borrowed(""),
                line: self.candidates[c].line,
                registrant: self.candidates[c].registrant().map(str::to_string),
            }),
        }
    }

    /// Scans `list` (the lines of `rows`, after a header line when `csv`)
    /// and fills the verdicts of the candidates in it.
    pub(super) fn scan_and_judge(
        &self,
        set: &LgrSet,
        list: String,
        csv: bool,
        verdicts: &mut [Option<Verdict<'a>>],
    ) -> Result<(), Error> {
        if self.rows.is_empty() {
            return Ok(());
        }
        let config = if csv {
            input::Config::new().format(Some(InputFormat::Csv)).delimiter(Some(b'\t'))
        } else {
            input::Config::new().format(Some(InputFormat::List))
        };
        let first_row = 1 + usize::from(csv);
        let data = list.into_bytes();
        let labels = input::read([Input::Bytes { name: "candidates".into(), data }], &config)
            .map_err(|e| Error::new(format!("reading the candidates: {e}")))?;
        let report = scan::scan(
            &labels,
            set,
            &ScanConfig { holder: HolderPolicy::Input },
            &scan::NoProgress,
        );
        let row_of = |label: usize| -> Option<Row> {
            let line = labels.get(label)?.line() as usize;
            self.rows.get(line.checked_sub(first_row)?).copied()
        };
        let SetFacts { contended, registered_member, invalid_why } = set_facts(&report, row_of);
        // A candidate's own disposition, `blocked` included, is its own
        // detail ([`Self::own_details`]), as before that was a finding.
        for f in report.findings.iter().filter(|f| f.kind != FindingKind::Blocked) {
            let Some(Row::Candidate(c)) = row_of(f.label) else { continue };
            let existing = verdicts[c].take();
            let invalid_already = existing.as_ref().is_some_and(|v| v.status == Status::Invalid);
            let mut v = existing.unwrap_or_else(|| {
                Verdict::new(
                    self.probes[c].forms().alabel.clone(),
                    self.probes[c].forms().ulabel.clone(),
                    Status::Available,
                )
            });
            match f.kind {
                FindingKind::Invalid => {
                    // Invalid rows follow the collision rows: this one wins.
                    v = Verdict::new(v.alabel, v.ulabel, Status::Invalid);
                    let d = v.detail_mut();
                    d.lgr.clone_from(&f.lgr);
                    d.disposition.clone_from(&f.disposition);
                    d.reason.clone_from(&f.reason);
                }
                FindingKind::Collision if !invalid_already => {
                    let holder_row = f.holder.and_then(row_of);
                    let d = v.detail_mut();
                    d.role = f.role;
                    d.lgr.clone_from(&f.lgr);
                    d.disposition.clone_from(&f.disposition);
                    d.reason.clone_from(&f.reason);
                    v.set = f.group;
                    let held_by_registered = match holder_row {
                        Some(Row::Registered(_)) => None,
                        _ => f.group.and_then(|g| registered_member.get(&g)),
                    };
                    if let Some(&(member, label)) = held_by_registered {
                        let why = invalid_why.get(&label).map_or("", String::as_str);
                        // Its set holds a registered label the LGR finds
                        // invalid: no holder in the scan's terms, yet
                        // registered, and a variant of this candidate
                        // (RFC 7940 §8.2). Delegating the candidate would
                        // put the two with two registrants.
                        let holder = self.holder_of(member)?;
                        let d = v.detail_mut();
                        d.role = Some(Role::Blocked);
                        d.disposition = "blocked".into();
                        let name = if holder.ulabel == holder.alabel {
                            holder.alabel.to_string()
                        } else {
                            format!("{} ({})", holder.ulabel, holder.alabel)
                        };
                        d.reason = format!(
                            "its variant set holds the registered label {name}, which is not valid ({why})"
                        );
                        v.status = Status::VariantBlocked;
                        v.detail_mut().mapping =
                            Some(mapping(set.variants(), &holder.ulabel, &v.ulabel));
                        v.holder = Some(Box::new(holder));
                        verdicts[c] = Some(v);
                        continue;
                    }
                    v.status = match (f.role, holder_row) {
                        (Some(Role::Holder), _) if contended.contains(&f.group.unwrap_or(0)) => {
                            Status::Contention
                        }
                        (Some(Role::Holder) | Some(Role::Near), _) | (_, None) => {
                            v.set = None;
                            Status::Available
                        }
                        (_, Some(Row::Candidate(_))) => Status::Contention,
                        (Some(Role::Allocatable | Role::Allocated), _) => {
                            Status::VariantAllocatable
                        }
                        (_, Some(Row::Registered(_))) => Status::VariantBlocked,
                    };
                    if let (Some(h), false) = (holder_row, f.role == Some(Role::Holder))
                        && v.status != Status::Available
                    {
                        let holder = self.holder_of(h)?;
                        let mapping = mapping(set.variants(), &holder.ulabel, &v.ulabel);
                        v.detail_mut().mapping = Some(mapping);
                        if matches!(f.role, Some(Role::Allocatable | Role::Allocated)) {
                            v.detail_mut().same_registrant = Some(SameRegistrant::of(
                                holder.registrant.as_deref(),
                                self.candidates[c].registrant(),
                            ));
                        }
                        v.holder = Some(Box::new(holder));
                    }
                }
                // Contract findings (ns-mismatch, same-entity) concern delegated
                // names, never a candidate's verdict (`blocked` rows: above).
                _ => {}
            }
            verdicts[c] = Some(v);
        }
        for &row in self.rows {
            if let Row::Candidate(c) = row
                && verdicts[c].is_none()
            {
                verdicts[c] = Some(Verdict::new(
                    self.probes[c].forms().alabel.clone(),
                    self.probes[c].forms().ulabel.clone(),
                    Status::Available,
                ));
            }
        }
        self.own_details(set, verdicts);
        Ok(())
    }

    /// Gives each available candidate its own verdict as its detail, as
    /// the scan's row of a set's holder gives it: one with no finding has
    /// none yet, and a `near` member's is the variant LGR's note.
    fn own_details(&self, set: &LgrSet, verdicts: &mut [Option<Verdict<'a>>]) {
        let need: Vec<usize> = (self.rows.iter())
            .filter_map(|&row| match row {
                Row::Candidate(c) => Some(c),
                Row::Registered(_) => None,
            })
            .filter(|&c| {
                verdicts[c].as_ref().is_some_and(|v| {
                    v.status == Status::Available && v.detail().role != Some(Role::Holder)
                })
            })
            .collect();
        let own: Vec<Detail> = need
            .par_iter()
            .with_min_len(256)
            .map(|&c| own_detail(set, &self.probes[c].forms().ulabel))
            .collect();
        for (c, mut d) in need.into_iter().zip(own) {
            if let Some(v) = verdicts[c].as_mut() {
                d.role = v.detail().role;
                v.detail = Some(Arc::new(d));
            }
        }
    }
}

/// What a check's verdicts need of the scan's variant sets (by group).
struct SetFacts {
    /// The sets in which a candidate other than the holder conflicts.
    contended: HashSet<u32>,
    /// Per set, the first registered label that is a member but not its
    /// holder (one the scan finds invalid: a registered label that is
    /// valid would hold the set, being read before the candidates), and
    /// its label number.
    registered_member: HashMap<u32, (Row, usize)>,
    /// Why each label the scan finds invalid is (its invalid row).
    invalid_why: HashMap<usize, String>,
}

fn set_facts(report: &scan::Report, row_of: impl Fn(usize) -> Option<Row>) -> SetFacts {
    let mut facts = SetFacts {
        contended: HashSet::new(),
        registered_member: HashMap::new(),
        invalid_why: (report.findings.iter())
            .filter(|f| f.kind == FindingKind::Invalid)
            .map(|f| match f.lgr.as_str() {
                // The index keeps no text of a pin that names no LGR.
                NO_SUCH_LGR => (f.label, "its lgr column names no LGR of the set".to_string()),
                lgr => (f.label, format!("{lgr}: {}", f.reason)),
            })
            .collect(),
    };
    for f in &report.findings {
        let (Some(g), Some(role), Some(row)) = (f.group, f.role, row_of(f.label)) else {
            continue;
        };
        if matches!(role, Role::Holder | Role::Near) {
            continue;
        }
        match row {
            Row::Candidate(_) => {
                facts.contended.insert(g);
            }
            Row::Registered(_) => {
                facts.registered_member.entry(g).or_insert((row, f.label));
            }
        }
    }
    facts
}

/// The verdict of candidate `i`, the same label as the earlier candidate
/// `j`: what `j` is (with `i`'s own `same_registrant`), except that an
/// available `j` and `i` contend (`j` wins, and becomes a contention set of
/// its own).
pub(super) fn duplicate_verdict<'a>(
    ctx: &Context<'_, 'a>,
    verdicts: &mut [Option<Verdict<'a>>],
    i: usize,
    j: usize,
) -> Verdict<'a> {
    let first = verdicts[j].clone().unwrap_or_else(|| {
        let f = ctx.probes[j].forms();
        Verdict::new(f.alabel.clone(), f.ulabel.clone(), Status::Available)
    });
    match first.status {
        Status::Available | Status::Contention => {
            let set = first.set.unwrap_or(u32::MAX - j as u32);
            if let Some(f) = verdicts[j].as_mut() {
                f.status = Status::Contention;
                f.set = Some(set);
            }
            let mut v = Verdict::new(first.alabel, first.ulabel, Status::Contention);
            v.set = Some(set);
            let d = v.detail_mut();
            d.disposition = "blocked".into();
            d.reason = "the same label as an earlier candidate".into();
            d.mapping = Some(Vec::new());
            v.holder = ctx.holder_of(Row::Candidate(j)).ok().map(Box::new);
            v
        }
        _ => {
            let mut v = Verdict { set: first.set, ..first };
            // Whether the holder's registrant applies is this candidate's
            // own answer, not the first one's.
            if v.detail().same_registrant.is_some() {
                let holder = v.holder.as_ref().and_then(|h| h.registrant.clone());
                let same = SameRegistrant::of(holder.as_deref(), ctx.candidates[i].registrant());
                v.detail_mut().same_registrant = Some(same);
            }
            v
        }
    }
}

/// Renumbers the contention sets 1, 2, … in order of their first candidate;
/// other statuses have none.
pub(super) fn number_sets(verdicts: &mut [Option<Verdict>]) {
    let mut ids: HashMap<u32, u32> = HashMap::new();
    for v in verdicts.iter_mut().flatten() {
        if v.status != Status::Contention {
            v.set = None;
            continue;
        }
        if let Some(s) = v.set {
            let n = ids.len() as u32 + 1;
            v.set = Some(*ids.entry(s).or_insert(n));
        }
    }
}

/// The variant mappings that make `label` from `holder` (see
/// [`Detail::mapping`]): generated from the holder, else the holder from
/// it (the scan's verified grouping accepts either direction), else the
/// differing middle of the two.
fn mapping(variants: &Lgr, holder: &str, label: &str) -> Vec<(Vec<u32>, Vec<u32>)> {
    let a: Vec<u32> = holder.chars().map(u32::from).collect();
    let b: Vec<u32> = label.chars().map(u32::from).collect();
    if let Some(steps) = variants.variant_replacements(&a, &b) {
        return steps.into_iter().map(|r| (r.element, r.variant)).collect();
    }
    if let Some(steps) = variants.variant_replacements(&b, &a) {
        return steps.into_iter().map(|r| (r.variant, r.element)).collect();
    }
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    vec![(a[pre..a.len() - suf].to_vec(), b[pre..b.len() - suf].to_vec())]
}

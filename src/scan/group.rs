//! Phases 2 and 3 of a scan: group labels by index label, pick each group's
//! holder, and judge the other members as its variants (RFC 7940 §8.3).

use super::judge::{Judged, index_text, judge_one, verdict_fields};
use super::{Finding, FindingKind, HolderPolicy, LgrSet, Progress, ScanConfig, Summary};
use crate::input::LabelSet;
use rayon::prelude::*;
use std::collections::HashMap;

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<crate::lgr::CpHasher>>;

/// A label's role in its variant set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Holds the set.
    Holder,
    /// A blocked variant of the holder.
    Blocked,
    /// An allocatable variant, but not to the holder's registrant (or the
    /// registrant is unknown): a conflict.
    Allocatable,
    /// An allocatable variant held by the holder's registrant: allowed.
    Allocated,
    /// Invalid as a variant of the holder, or invalid on its own (an
    /// IDNA2008 finding, or not eligible under its LGR).
    Invalid,
}

impl Role {
    /// The role's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Holder => "holder",
            Role::Blocked => "blocked",
            Role::Allocatable => "allocatable",
            Role::Allocated => "allocated",
            Role::Invalid => "invalid",
        }
    }
}

fn cps_of(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

/// Groups the kept index labels; with the ASCII shortcut, adds the ASCII
/// labels whose text is some group's index label.
fn groups(
    labels: &LabelSet,
    set: &LgrSet,
    judged: &Judged,
    progress: &dyn Progress,
) -> Vec<Vec<u32>> {
    let mut keyed: Vec<(&[u32], u32)> = judged.keyed.iter().map(|(k, i)| (&k[..], *i)).collect();
    keyed.par_sort_unstable();
    let mut by_key: HashMap<&[u32], Vec<u32>> = HashMap::new();
    let mut i = 0;
    while i < keyed.len() {
        let mut j = i + 1;
        while j < keyed.len() && keyed[j].0 == keyed[i].0 {
            j += 1;
        }
        let members: Vec<u32> = keyed[i..j].iter().map(|x| x.1).collect();
        let all_ascii = keyed[i].0.iter().all(|&c| c < 0x80);
        if j - i > 1 || (set.ascii_identity && all_ascii) {
            by_key.insert(keyed[i].0, members);
        }
        i = j;
    }
    if set.ascii_identity && by_key.keys().any(|k| k.iter().all(|&c| c < 0x80)) {
        let n = labels.len();
        progress.phase("matching ASCII labels", n as u64);
        let ascii_keys: FastMap<Vec<u8>, &[u32]> = by_key
            .keys()
            .filter(|k| k.iter().all(|&c| c < 0x80))
            .map(|k| (k.iter().map(|&c| c as u8).collect(), *k))
            .collect();
        let mut key_lens = [false; 256];
        for k in ascii_keys.keys() {
            key_lens[k.len().min(255)] = true;
        }
        let found: Vec<(&[u32], u32)> = (0..n)
            .into_par_iter()
            .with_min_len(4096)
            .filter_map(|i| {
                // Cheap first test on the record: a label stored as plain
                // LDH text has the length of its text.
                let rec = labels.records().get(i)?;
                if rec.forms == crate::input::NO_FORMS && !key_lens[usize::from(rec.len).min(255)] {
                    return None;
                }
                let l = labels.get(i)?;
                let u = l.ulabel();
                if !u.is_ascii() {
                    return None;
                }
                let key = *ascii_keys.get(u.as_bytes())?;
                // Confirm: the index label of an ASCII label is itself or none.
                (set.variants.index_label(key).as_deref() == Some(key)).then_some((key, i as u32))
            })
            .collect();
        progress.advance(n as u64);
        for (k, i) in found {
            if let Some(v) = by_key.get_mut(k) {
                v.push(i);
            }
        }
    }
    let mut out: Vec<Vec<u32>> = by_key
        .into_values()
        .filter(|v| v.len() > 1)
        .map(|mut v| {
            v.sort_unstable();
            v.dedup();
            v
        })
        .filter(|v| v.len() > 1)
        .collect();
    out.sort_unstable();
    out
}

/// Resolves a group: holder, then each member's disposition as a variant of
/// the holder. Returns the rows (holder first) and whether any conflicts.
fn resolve(
    labels: &LabelSet,
    set: &LgrSet,
    config: &ScanConfig,
    members: &[u32],
) -> (Vec<Finding>, u64, u64) {
    let view = |i: u32| labels.get(i as usize).expect("group members are label indices");
    let holder = match config.holder {
        HolderPolicy::Input => members[0],
        HolderPolicy::Registered => *members
            .iter()
            .min_by_key(|&&i| {
                let ts = view(i).csv().and_then(|c| c.registered);
                (ts.is_none(), ts, i)
            })
            .expect("groups are not empty"),
    };
    let h = view(holder);
    let hcps = cps_of(h.ulabel());
    let index = set.variants.index_label(&hcps).map(|x| index_text(&x)).unwrap_or_default();
    let hreg = h.csv().and_then(|c| c.registrant.as_deref());
    let hj = judge_one(set, &h, &hcps);
    let [hlgr, hdisp, hreason, _] = verdict_fields(set, &hj);
    let mut rows = vec![Finding {
        kind: FindingKind::Collision,
        label: holder as usize,
        lgr: hlgr,
        disposition: hdisp,
        reason: hreason,
        index: index.clone(),
        group: None,
        role: Some(Role::Holder),
        holder: Some(holder as usize),
    }];
    let (mut conflicts, mut allocated) = (0, 0);
    for &m in members {
        if m == holder {
            continue;
        }
        let l = view(m);
        let mcps = cps_of(l.ulabel());
        // A member that is invalid on its own (an IDNA2008 finding, or not
        // eligible under its LGR) cannot be allocated, whatever its variant
        // disposition: e.g. ALEF + MADDAH ABOVE is an allocatable variant
        // of ALEF WITH MADDA ABOVE but not NFC.
        let own_invalid = !judge_one(set, &l, &mcps).eligible();
        let (disposition, reason, role) = match set.variants.variant_disposition(&hcps, &mcps) {
            Some(v) => {
                let role = match v.disposition {
                    _ if own_invalid => Role::Invalid,
                    "blocked" => Role::Blocked,
                    "invalid" => Role::Invalid,
                    _ => {
                        let mreg = l.csv().and_then(|c| c.registrant.as_deref());
                        if hreg.is_some() && hreg == mreg {
                            Role::Allocated
                        } else {
                            Role::Allocatable
                        }
                    }
                };
                (v.disposition.to_string(), set.variants.variant_reason_text(&v), role)
            }
            None => (
                "blocked".to_string(),
                "same index label, but not generated as a variant of the holder".to_string(),
                if own_invalid { Role::Invalid } else { Role::Blocked },
            ),
        };
        if role == Role::Allocated {
            allocated += 1;
        } else {
            conflicts += 1;
        }
        rows.push(Finding {
            kind: FindingKind::Collision,
            label: m as usize,
            lgr: set.variants.name().to_string(),
            disposition,
            reason,
            index: index.clone(),
            group: None,
            role: Some(role),
            holder: Some(holder as usize),
        });
    }
    (rows, conflicts, allocated)
}

pub(crate) fn collide(
    labels: &LabelSet,
    set: &LgrSet,
    config: &ScanConfig,
    judged: &Judged,
    progress: &dyn Progress,
) -> (Vec<Finding>, Summary) {
    let groups = groups(labels, set, judged, progress);
    progress.phase("resolving variant sets", groups.len() as u64);
    let mut resolved: Vec<(Vec<Finding>, u64, u64)> =
        groups.par_iter().map(|g| resolve(labels, set, config, g)).collect();
    progress.advance(groups.len() as u64);
    let mut summary = Summary { groups: groups.len() as u64, ..Summary::default() };
    resolved.retain(|r| {
        summary.conflicts += r.1;
        summary.allocated += r.2;
        r.1 > 0
    });
    resolved.sort_by_key(|r| r.0[0].label);
    summary.conflict_groups = resolved.len() as u64;
    let mut rows = Vec::new();
    for (n, (mut g, _, _)) in resolved.into_iter().enumerate() {
        // Rows by input position within the group.
        g.sort_by_key(|f| f.label);
        for f in &mut g {
            f.group = Some(n as u32 + 1);
        }
        rows.extend(g);
    }
    (rows, summary)
}

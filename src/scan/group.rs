//! Phases 2 and 3 of a scan: group labels by index label, pick each group's
//! holder, and judge the other members as its variants (RFC 7940 §8.3).

use super::judge::{Judged, Keyed, index_text, judge_one_in, text_hash_cps, verdict_fields};
use super::{Finding, FindingKind, Grouping, HolderPolicy, LgrSet, Progress, ScanConfig, Summary};
use crate::input::LabelSet;
use crate::lgr::IndexScratch;
use crate::lgr::Label as EvalLabel;
use rayon::prelude::*;

use crate::hash::FastMap;

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
    /// With [`super::Grouping::Verified`]: shares an index label with the
    /// group (in one of the two modes) but is a variant of the holder in
    /// neither direction; not a collision.
    Near,
}

/// How a member of a variant set is tied to its holder (RFC 7940 §8.2:
/// which of the two is generated as a variant label of the other).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Relation {
    /// Each is a variant label of the other.
    Mutual,
    /// The member is a variant label of the holder, not the reverse.
    OfHolder,
    /// The holder is a variant label of the member, not the reverse.
    OfMember,
    /// Neither: they only share an index label.
    None,
}

impl Relation {
    /// The relation's name in reports: `mutual`, `of-holder`,
    /// `of-member`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Mutual => "mutual",
            Relation::OfHolder => "of-holder",
            Relation::OfMember => "of-member",
            Relation::None => "none",
        }
    }
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
            Role::Near => "near",
        }
    }
}

/// A group of labels sharing an index label: the label indices (sorted)
/// and the index label's code points.
struct Group {
    members: Vec<u32>,
    key: Vec<u32>,
}

/// Kept index labels per part of the input to [`buckets`]: a fixed size,
/// so that the order within a bucket does not depend on the thread count.
const BUCKET_PIECE: usize = 1 << 16;

/// The kept index labels in buckets by the high bits of their hash (about
/// a thousand labels a bucket), each sorted by `(hash, len)`: labels with
/// the same index label are in one bucket, next to each other. Pieces of
/// the input are spread into buckets in parallel (a counting sort each),
/// then each bucket is gathered from the pieces and sorted in parallel.
/// The order of equal keys does not matter (groups are sorted by members
/// later). `keyed` (lists of keys, one per judging worker) is dropped once
/// spread (the pieces hold it all).
fn buckets(keyed: Vec<Vec<Keyed>>, each: impl Fn(&mut [Keyed]) -> Vec<Group> + Sync) -> Vec<Group> {
    let n = keyed.iter().map(Vec::len).sum::<usize>();
    let bits = (usize::BITS - n.max(1).leading_zeros()).saturating_sub(10).min(12);
    // The bucket of a key; bits = 0: one bucket.
    let bucket = |k: &Keyed| if bits == 0 { 0 } else { (k.hash >> (64 - bits)) as usize };
    let nb = 1usize << bits;
    // Per piece: its keys by bucket, and where each bucket starts.
    let pieces: Vec<(Vec<Keyed>, Vec<u32>)> = keyed
        .par_iter()
        .flat_map(|list| list.par_chunks(BUCKET_PIECE))
        .map(|piece| counting_sort(piece, nb, bucket))
        .collect();
    drop(keyed);
    // A bucket is gathered and sorted in buffers each task reuses: they
    // stay in the cache, where new ones for every bucket would be memory
    // the system must find and zero (three times the keys in all).
    let per_bucket: Vec<Vec<Group>> = (0..nb)
        .into_par_iter()
        .map_init(Scratch::default, |sc, b| {
            sc.run.clear();
            for (keys, at) in &pieces {
                sc.run.extend_from_slice(&keys[at[b] as usize..at[b + 1] as usize]);
            }
            sort_bucket(sc, bits);
            each(&mut sc.run)
        })
        .collect();
    per_bucket.into_iter().flatten().collect()
}

/// The buffers a task of [`buckets`] reuses from bucket to bucket: the
/// bucket's keys, and the counting sort's output and slot positions.
#[derive(Default)]
struct Scratch {
    run: Vec<Keyed>,
    sorted: Vec<Keyed>,
    at: Vec<u32>,
}

/// Sorts the bucket of [`buckets`] in `sc.run` by `(hash, len)`: its keys
/// share the top `skip` bits of their hash; one counting-sort pass on the
/// next bits (about one key a slot), then each slot, mostly of one or two
/// keys, sorted.
fn sort_bucket(sc: &mut Scratch, skip: u32) {
    let n = sc.run.len();
    if n < 64 {
        sc.run.sort_unstable_by_key(|k| (k.hash, k.len));
        return;
    }
    let bits = (usize::BITS - 1 - n.leading_zeros()).min(64 - skip).min(20);
    let slot = |k: &Keyed| ((k.hash << skip) >> (64 - bits)) as usize;
    counting_sort_into(&sc.run, 1 << bits, slot, &mut sc.sorted, &mut sc.at);
    std::mem::swap(&mut sc.run, &mut sc.sorted);
    for run in sc.run.chunk_by_mut(|a, b| slot(a) == slot(b)) {
        if run.len() > 1 {
            run.sort_unstable_by_key(|k| (k.hash, k.len));
        }
    }
}

/// `keys` ordered by `slot` (below `slots`), stable, with where each slot
/// starts (`slots + 1` positions, the last the length).
fn counting_sort(
    keys: &[Keyed],
    slots: usize,
    slot: impl Fn(&Keyed) -> usize,
) -> (Vec<Keyed>, Vec<u32>) {
    let (mut out, mut at) = (Vec::new(), Vec::new());
    counting_sort_into(keys, slots, slot, &mut out, &mut at);
    (out, at)
}

/// [`counting_sort`] into `out` and `at` (their contents replaced).
fn counting_sort_into(
    keys: &[Keyed],
    slots: usize,
    slot: impl Fn(&Keyed) -> usize,
    out: &mut Vec<Keyed>,
    at: &mut Vec<u32>,
) {
    at.clear();
    at.resize(slots + 1, 0);
    for k in keys {
        at[slot(k) + 1] += 1;
    }
    for b in 1..at.len() {
        at[b] += at[b - 1];
    }
    // Every position is written again below.
    out.clear();
    out.extend_from_slice(keys);
    for k in keys {
        let b = slot(k);
        out[at[b] as usize] = *k;
        at[b] += 1;
    }
    // Each slot's position moved to the next slot's start: back by one.
    at.copy_within(..slots, 1);
    at[0] = 0;
}

/// Groups the kept index labels; with the ASCII shortcut, adds the ASCII
/// labels whose text is some group's index label. Groups are sorted by
/// members.
fn groups(
    labels: &LabelSet,
    set: &LgrSet,
    judged: &mut Judged,
    progress: &dyn Progress,
) -> Vec<Group> {
    let keyed = std::mem::take(&mut judged.keys.keyed);
    let keys = &judged.keys;
    let key = |k: &Keyed| keys.key(k);
    // Candidate groups: several labels, or one whose index label is all
    // ASCII (an ASCII label may have it as its text). `keyed`: sorted by
    // `(hash, len)`.
    let candidates = |keyed: &mut [Keyed]| {
        let mut out: Vec<Group> = Vec::new();
        let mut i = 0;
        while i < keyed.len() {
            let mut j = i + 1;
            while j < keyed.len() && keyed[j].hash == keyed[i].hash && keyed[j].len == keyed[i].len
            {
                j += 1;
            }
            let run = &mut keyed[i..j];
            if run.len() > 1 && run.iter().any(|k| key(k) != key(&run[0])) {
                // A hash collision: split the run by index label.
                run.sort_unstable_by(|a, b| key(a).cmp(key(b)));
            }
            let mut a = 0;
            while a < run.len() {
                let mut b = a + 1;
                while b < run.len() && key(&run[b]) == key(&run[a]) {
                    b += 1;
                }
                // Most index labels are one label's, not ASCII: their code
                // points are not read.
                if b - a > 1 || (set.ascii_identity && run[a].ascii()) {
                    let k = key(&run[a]);
                    debug_assert_eq!(run[a].ascii(), k.iter().all(|&c| c < 0x80));
                    out.push(Group {
                        members: run[a..b].iter().map(|x| x.label).collect(),
                        key: k.to_vec(),
                    });
                }
                a = b;
            }
            i = j;
        }
        out
    };
    let mut out = buckets(keyed, candidates);
    if set.ascii_identity && out.iter().any(|g| g.key.iter().all(|&c| c < 0x80)) {
        let cands = &judged.ascii_cands;
        progress.phase("matching ASCII labels", cands.len() as u64);
        let mut by_hash: FastMap<u32, Vec<u32>> = FastMap::default();
        for (gi, g) in out.iter().enumerate() {
            if g.key.iter().all(|&c| c < 0x80) {
                by_hash.entry(text_hash_cps(&g.key)).or_default().push(gi as u32);
            }
        }
        let out_ref = &out;
        let mut found: Vec<(u32, u32)> = cands
            .par_iter()
            .with_min_len(4096)
            .filter_map(|&(i, h)| {
                let gs = by_hash.get(&h)?;
                let u = labels.get(i as usize)?.ulabel().as_bytes();
                gs.iter()
                    .find(|&&g| {
                        let k = &out_ref[g as usize].key;
                        k.len() == u.len() && k.iter().zip(u).all(|(&c, &b)| c == u32::from(b))
                    })
                    .map(|&g| (g, i))
            })
            .collect();
        progress.advance(cands.len() as u64);
        // Confirm: the index label of an ASCII label is itself or none.
        // Once per group found, on all threads (a zone of digit labels has
        // thousands of such groups).
        found.sort_unstable();
        let mut distinct: Vec<u32> = found.iter().map(|&(g, _)| g).collect();
        distinct.dedup();
        let confirmed: Vec<bool> = distinct
            .par_iter()
            .map_init(
                || (EvalLabel::default(), IndexScratch::default(), Vec::new()),
                |(label, sc, index), &g| {
                    let k = &out_ref[g as usize].key;
                    label.set_cps(k);
                    set.variants.index_into(label, sc, index) && index[..] == k[..]
                },
            )
            .collect();
        let mut at = 0;
        for (g, i) in found {
            while distinct[at] != g {
                at += 1;
            }
            if confirmed[at] {
                out[g as usize].members.push(i);
            }
        }
    }
    out.par_iter_mut().with_min_len(1024).for_each(|g| {
        g.members.sort_unstable();
        g.members.dedup();
    });
    out.retain(|g| g.members.len() > 1);
    if set.grouping() == Grouping::Verified && !judged.dual.is_empty() {
        out = join_shared(out, &judged.dual);
    }
    out.sort_unstable_by(|a, b| a.members.cmp(&b.members));
    out
}

/// Verified grouping: the groups that share a member (a label kept under
/// both its index labels, one of `dual`, sorted) joined into one, by
/// union-find; each joined group keeps the first one's key.
fn join_shared(groups: Vec<Group>, dual: &[u32]) -> Vec<Group> {
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            // Path halving: each step also shortens the path.
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    let mut parent: Vec<u32> = (0..groups.len() as u32).collect();
    let mut first: FastMap<u32, u32> = FastMap::default();
    for (gi, g) in groups.iter().enumerate() {
        for &m in g.members.iter().filter(|m| dual.binary_search(m).is_ok()) {
            let other = *first.entry(m).or_insert(gi as u32);
            let (a, b) = (root(&mut parent, other), root(&mut parent, gi as u32));
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    let mut joined: Vec<Option<Group>> = (0..groups.len()).map(|_| None).collect();
    for (gi, g) in groups.into_iter().enumerate() {
        let r = root(&mut parent, gi as u32) as usize;
        match &mut joined[r] {
            Some(into) => into.members.extend(g.members),
            slot => *slot = Some(g),
        }
    }
    joined
        .into_iter()
        .flatten()
        .map(|mut g| {
            g.members.sort_unstable();
            g.members.dedup();
            g
        })
        .collect()
}

/// The buffers [`resolve`] reuses from group to group.
#[derive(Default)]
struct ResolveScratch {
    holder: EvalLabel,
    index: IndexScratch,
    member: EvalLabel,
    key: Vec<u32>,
}

/// The holder of a group under `policy`: its first valid member (not in
/// `invalid`, the invalid rows sorted by label) in input order, or the
/// valid member registered first; `None` when no member is valid (an
/// invalid label never holds a variant set).
fn pick_holder(
    labels: &LabelSet,
    policy: HolderPolicy,
    members: &[u32],
    invalid: &[Finding],
) -> Option<u32> {
    let valid = members
        .iter()
        .copied()
        .filter(|&m| invalid.binary_search_by_key(&(m as usize), |f| f.label).is_err());
    match policy {
        HolderPolicy::Input => valid.min(),
        HolderPolicy::Registered => valid.min_by_key(|&i| {
            let ts = labels.get(i as usize).and_then(|l| l.csv().and_then(|c| c.registered));
            (ts.is_none(), ts, i)
        }),
    }
}

/// Resolves a group: holder, then each member's disposition as a variant of
/// the holder. Returns the rows (holder first), the conflicts, the members
/// allocated to the holder's registrant and the near members; no rows when
/// no member is valid.
fn resolve(
    labels: &LabelSet,
    set: &LgrSet,
    config: &ScanConfig,
    group: &Group,
    invalid: &[Finding],
    sc: &mut ResolveScratch,
) -> Resolved {
    let members = &group.members[..];
    let view = |i: u32| labels.get(i as usize).expect("group members are label indices");
    let Some(holder) = pick_holder(labels, config.holder, members, invalid) else {
        return Resolved::default();
    };
    let verified = set.grouping() == Grouping::Verified;
    let h = view(holder);
    sc.holder.set_text(h.ulabel());
    // With index-label grouping every member's index label is the group's
    // (an ASCII member's was confirmed to be its own text); a verified
    // group joins several, so each row has its own.
    let group_index = (!verified).then(|| index_text(&group.key));
    let mut index_of = |label: &EvalLabel, index: &mut IndexScratch| match &group_index {
        Some(t) => t.clone(),
        None if set.variants.index_into(label, index, &mut sc.key) => index_text(&sc.key),
        None => String::new(),
    };
    let hreg = h.csv().and_then(|c| c.registrant);
    let hj = judge_one_in(set, &h, &sc.holder, &mut sc.index);
    let [hlgr, hdisp, hreason, _] = verdict_fields(set, &hj);
    let mut out = Resolved::default();
    out.rows.push(Finding {
        kind: FindingKind::Collision,
        label: holder as usize,
        lgr: hlgr,
        disposition: hdisp,
        reason: hreason,
        index: index_of(&sc.holder, &mut sc.index),
        group: None,
        role: Some(Role::Holder),
        relation: None,
        holder: Some(holder as usize),
    });
    let hcps = sc.holder.cps();
    for &m in members {
        if m == holder {
            continue;
        }
        let l = view(m);
        sc.member.set_text(l.ulabel());
        let mcps = sc.member.cps();
        // A member that is invalid on its own (an IDNA2008 finding, or not
        // eligible under its LGR) cannot be allocated, whatever its variant
        // disposition: e.g. ALEF + MADDAH ABOVE is an allocatable variant
        // of ALEF WITH MADDA ABOVE but not NFC. The judging phase listed
        // exactly those labels (sorted).
        let own_invalid = invalid.binary_search_by_key(&(m as usize), |f| f.label).is_ok();
        // The member as a variant of the holder (RFC 7940 §8.3), and
        // whether the holder is one of the member.
        let forward = set.variants.variant_disposition(hcps, mcps);
        let backward = forward.is_none().then(|| set.variants.variant_disposition(mcps, hcps));
        let back = backward.as_ref().is_some_and(Option::is_some)
            || (forward.is_some() && set.variants.is_variant(mcps, hcps));
        let relation = match (forward.is_some(), back) {
            (true, true) => Relation::Mutual,
            (true, false) => Relation::OfHolder,
            (false, true) => Relation::OfMember,
            (false, false) => Relation::None,
        };
        let (disposition, reason, role) = match (forward, backward.flatten()) {
            (Some(v), _) => {
                let role = role_of(v.disposition, own_invalid, hreg, &l);
                (v.disposition.to_string(), set.variants.variant_reason_text(&v), role)
            }
            (None, Some(v)) => {
                // Only the holder is a variant of the member: the pair
                // collides as the reverse disposition says.
                let role = role_of(v.disposition, own_invalid, hreg, &l);
                let reason = format!(
                    "not a variant of the holder, whose disposition as a variant of this label is: {}",
                    set.variants.variant_reason_text(&v)
                );
                (v.disposition.to_string(), reason, role)
            }
            (None, None) if verified => (
                String::new(),
                "shares an index label with the set, but is a variant of the holder in neither direction".to_string(),
                Role::Near,
            ),
            (None, None) => (
                "blocked".to_string(),
                "same index label, but not generated as a variant of the holder".to_string(),
                if own_invalid { Role::Invalid } else { Role::Blocked },
            ),
        };
        match role {
            Role::Allocated => out.allocated += 1,
            Role::Near => out.near += 1,
            _ => out.conflicts += 1,
        }
        out.rows.push(Finding {
            kind: FindingKind::Collision,
            label: m as usize,
            lgr: set.variants.name().to_string(),
            disposition,
            reason,
            index: index_of(&sc.member, &mut sc.index),
            group: None,
            role: Some(role),
            relation: Some(relation),
            holder: Some(holder as usize),
        });
    }
    out
}

/// The role of a member whose disposition as a variant of the holder (or,
/// when only the holder is a variant of it, the holder's as its variant)
/// is `disposition`.
fn role_of(
    disposition: &str,
    own_invalid: bool,
    holder_registrant: Option<&str>,
    member: &crate::input::Label<'_>,
) -> Role {
    match disposition {
        _ if own_invalid => Role::Invalid,
        "blocked" => Role::Blocked,
        "invalid" => Role::Invalid,
        _ => {
            let mreg = member.csv().and_then(|c| c.registrant);
            if holder_registrant.is_some() && holder_registrant == mreg {
                Role::Allocated
            } else {
                Role::Allocatable
            }
        }
    }
}

/// A group resolved: its rows (holder first) and counts.
#[derive(Default)]
struct Resolved {
    rows: Vec<Finding>,
    /// Contract rows ([`super::contract`]).
    contract: Vec<Finding>,
    conflicts: u64,
    allocated: u64,
    near: u64,
}

pub(crate) fn collide(
    labels: &LabelSet,
    set: &LgrSet,
    config: &ScanConfig,
    judged: &mut Judged,
    progress: &dyn Progress,
) -> (Vec<Finding>, Summary) {
    let groups = groups(labels, set, judged, progress);
    progress.phase("resolving variant sets", groups.len() as u64);
    let invalid = &judged.invalid[..];
    let mut resolved: Vec<Resolved> = groups
        .par_iter()
        .map_init(ResolveScratch::default, |sc, g| {
            let mut r = resolve(labels, set, config, g, invalid, sc);
            // Rows by input position within the group.
            r.rows.sort_by_key(|f| f.label);
            r.contract = super::contract::check(labels, &r.rows);
            r
        })
        .collect();
    progress.advance(groups.len() as u64);
    let mut summary = Summary { groups: groups.len() as u64, ..Summary::default() };
    resolved.retain_mut(|r| {
        summary.conflicts += r.conflicts;
        summary.allocated += r.allocated;
        if r.conflicts > 0 {
            summary.near += r.near;
            summary.conflict_groups += 1;
        } else {
            // A group without conflict is reported by its contract rows
            // alone.
            r.rows.clear();
        }
        for f in &r.contract {
            match f.kind {
                FindingKind::NsMismatch => summary.ns_mismatch += 1,
                _ => summary.same_entity += 1,
            }
        }
        r.rows.append(&mut r.contract);
        !r.rows.is_empty()
    });
    // Groups by their holder's input position.
    resolved.sort_by_key(|r| r.rows[0].holder);
    // Room for the invalid rows too, which the caller appends.
    let total = resolved.iter().map(|r| r.rows.len()).sum::<usize>() + judged.invalid.len();
    let mut rows = Vec::with_capacity(total);
    for (n, r) in resolved.into_iter().enumerate() {
        rows.extend(r.rows.into_iter().map(|f| Finding { group: Some(n as u32 + 1), ..f }));
    }
    (rows, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_hold_sorted_runs_of_equal_keys() {
        for n in [0usize, 1, 100, 5000, 70_000, 200_000] {
            let mut next = crate::testutil::random_u64s(0x9e37_79b9_7f4a_7c15);
            let keyed: Vec<Keyed> = (0..n)
                .map(|i| {
                    let x = next();
                    // Some equal hashes, with equal and different lengths.
                    let hash = if i % 7 == 0 { x & 0xff00_0000_0000_00ff } else { x };
                    Keyed { hash, label: i as u32, len: (x % 3) as u32, start: i as u64 }
                })
                .collect();
            // Each bucket as one group of its labels in order; its key:
            // the bucket's first hash and length.
            // In two lists, as two judging workers leave them.
            let lists = vec![keyed[..n / 3].to_vec(), keyed[n / 3..].to_vec()];
            let got = buckets(lists, |run| {
                assert!(run.windows(2).all(|w| (w[0].hash, w[0].len) <= (w[1].hash, w[1].len)));
                if run.is_empty() {
                    return Vec::new();
                }
                vec![Group { members: run.iter().map(|k| k.label).collect(), key: Vec::new() }]
            });
            let mut all: Vec<u32> = got.iter().flat_map(|g| g.members.iter().copied()).collect();
            all.sort_unstable();
            assert_eq!(all, (0..n as u32).collect::<Vec<_>>(), "every label once");
            // Equal (hash, len) never straddle buckets, and buckets come in
            // hash order.
            let bucket_of: std::collections::HashMap<u32, usize> = got
                .iter()
                .enumerate()
                .flat_map(|(b, g)| g.members.iter().map(move |&l| (l, b)))
                .collect();
            let mut want = keyed.clone();
            want.sort_unstable_by_key(|k| (k.hash, k.len, k.label));
            for w in want.windows(2) {
                let (a, b) = (bucket_of[&w[0].label], bucket_of[&w[1].label]);
                assert!(a <= b, "buckets in hash order");
                if (w[0].hash, w[0].len) == (w[1].hash, w[1].len) {
                    assert_eq!(a, b, "equal keys in one bucket");
                }
            }
        }
    }
}

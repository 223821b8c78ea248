//! What extracting a chunk gives: its records, counts and labels.

use super::fields::AS_WRITTEN;
use crate::input::hash::HashBuild;
use crate::input::hash::hash_bytes;
use crate::input::key_order::ORDERS_ALL;
use crate::input::name;
use crate::input::settle::RuleSnapshot;
use crate::input::settle::SETTLED_KINDS;
use crate::input::settle::Settled;
use crate::input::settle::Settling;
use std::collections::HashMap;

/// What the fast path needs to know: the apex and what to collect.
pub(crate) struct FastOpts<'a> {
    /// The apex in lower-case presentation format with a trailing dot.
    pub(crate) apex: &'a [u8],
    /// The current `$ORIGIN`, for NS targets that are relative names.
    pub(crate) origin: Option<&'a [Vec<u8>]>,
    /// The current `$ORIGIN` in lower-case presentation format with its
    /// final dot, for relative owners; `None` when there is none or its
    /// text has escapes (relative owners then go to the careful parser).
    pub(crate) origin_text: Option<&'a [u8]>,
    /// Whether the source is in the CZDS profile (see the module doc of
    /// `czds`): no line starts with a blank owner. Otherwise (a master
    /// file) a blank owner continues the previous one. Every NS target is
    /// resolved, as the careful parser does, in both.
    pub(crate) czds: bool,
    /// Whether NS targets are collected.
    pub(crate) ns: bool,
    /// Whether the text of plain labels is copied into [`Chunk::text`].
    pub(crate) copy: bool,
    /// What settles plain labels, if anything (see [`crate::input::settle`]).
    pub(crate) settle: Option<&'a Settling>,
    /// Whether the IDN forms of every chunk become a part of the set's
    /// text, not only those of the block told ahead (see `merge`): a
    /// test's way to that path without a rule.
    pub(crate) adopt_forms: bool,
}

/// Why a chunk stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// It reached its end.
    End,
    /// The line at `next` is for the general parser.
    Slow,
    /// The line at `next` is not complete (a stream needs more data).
    NeedMore,
}

/// A new registered owner seen by [`extract_in`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reg {
    /// Offset of the label (= of its line) in the buffer.
    pub(crate) at: usize,
    /// Line index within the chunk (0-based).
    pub(crate) line: u32,
    /// Length of the label in octets.
    pub(crate) len: u16,
    /// Whether it is a plain lower-case LDH label (nothing to compute).
    pub(crate) plain: bool,
}

/// The result of extracting one chunk.
pub(crate) struct Chunk {
    /// Position after the last line read.
    pub(crate) next: usize,
    pub(crate) stop: Stop,
    /// Lines read (each one record).
    pub(crate) lines: u64,
    pub(crate) apex_records: u64,
    /// Records of a registered owner after its first line.
    pub(crate) same_registered: u64,
    pub(crate) deeper_records: u64,
    /// Records of NSEC3 hashed owners (see `Accounting::nsec3_records`).
    pub(crate) nsec3_records: u64,
    pub(crate) outside_records: u64,
    /// Hashes of the lower-case deeper, NSEC3 hashed and outside owner
    /// names, each time such an owner starts.
    pub(crate) deeper: Vec<u64>,
    pub(crate) nsec3: Vec<u64>,
    pub(crate) outside: Vec<u64>,
    pub(crate) regs: Vec<Reg>,
    /// Orders under which the keys of `regs` strictly increase (none when
    /// a label has upper-case letters: its key is not its octets).
    pub(crate) orders: u8,
    /// When the keys of `regs` do not increase (`orders` 0): each one's
    /// [`hash_bytes`] (of its lower-case octets), computed by the worker
    /// that extracted the chunk, for the deduplicator's table
    /// ([`Chunk::hash_keys`]); else empty.
    pub(crate) hashes: Vec<u64>,
    /// Whether [`Chunk::hash_keys`] found every key of `regs` in lower
    /// case (its octets are its key).
    pub(crate) keys_lower: bool,
    /// NS targets: distinct target names of the chunk, and (index into
    /// `regs`, index into `ns_names`) pairs.
    pub(crate) ns_names: Vec<Box<[u8]>>,
    pub(crate) ns_pairs: Vec<(u32, u32)>,
    /// The text of the plain labels of `regs`, in order, when copied
    /// (`copied`).
    pub(crate) text: Vec<u8>,
    pub(crate) copied: bool,
    /// The valid lower-case IDNs of `regs`, in order, with their forms
    /// computed here (in parallel) rather than when the set is finished:
    /// each U-label is `idn_text[at..at + ulen]`.
    pub(crate) idns: Vec<ChunkIdn>,
    pub(crate) idn_text: String,
    /// What the owner of the last line read was.
    pub(crate) last_kind: Kind,
    /// Whether every plain label was read under a rule (see
    /// [`crate::input::settle`]).
    pub(crate) active: bool,
    /// Labels settled on the strength of the labels told ahead (see
    /// [`Settling::ahead_parts`]).
    pub(crate) assumed: u64,
    /// Labels it settled, per category: not in `regs`, nor kept anywhere
    /// (a chunk with settled labels that cannot be merged in bulk makes
    /// the read start again without settling, see [`merge`]).
    pub(crate) settled: [u64; SETTLED_KINDS],
    /// Labels it counted and tagged, per category (in `regs`), and
    /// (index into `regs`, category) of each.
    pub(crate) counted: [u64; SETTLED_KINDS],
    pub(crate) tags: Vec<(u32, u32)>,
    /// Labels it kept (indexes into `regs`).
    pub(crate) keeps: Vec<u32>,
    /// When `active`: the first registered label (a range of the buffer)
    /// and, when it was settled, its category (otherwise the first label
    /// of `regs` is the first registered).
    pub(crate) first_reg: Option<(usize, usize, Option<usize>)>,
    /// The last registered label (a range of the buffer), and whether it
    /// was settled.
    pub(crate) last_reg: Option<(usize, usize)>,
    pub(crate) last_settled: bool,
}

/// The buffers of a [`Chunk`], emptied and handed to the next chunk
/// ([`Chunk::into_buffers`], [`extract_in`]): buffers new for every chunk
/// are new memory, a page fault per 4 KiB written (a third of the faults
/// of a read), where these stay mapped.
#[derive(Default)]
pub(crate) struct Buffers {
    pub(super) deeper: Vec<u64>,
    pub(super) outside: Vec<u64>,
    pub(super) regs: Vec<Reg>,
    pub(super) hashes: Vec<u64>,
    pub(super) ns_pairs: Vec<(u32, u32)>,
    pub(super) text: Vec<u8>,
    pub(super) idns: Vec<ChunkIdn>,
    pub(super) idn_text: String,
    pub(super) tags: Vec<(u32, u32)>,
    pub(super) keeps: Vec<u32>,
}

impl Chunk {
    /// An empty chunk starting at `start`, in the buffers `b` (see
    /// [`Buffers`]); `copied`: the text of its plain labels is copied.
    pub(crate) fn start(start: usize, copied: bool, b: Buffers) -> Chunk {
        Chunk {
            next: start,
            stop: Stop::End,
            lines: 0,
            apex_records: 0,
            same_registered: 0,
            deeper_records: 0,
            nsec3_records: 0,
            outside_records: 0,
            deeper: b.deeper,
            nsec3: Vec::new(),
            outside: b.outside,
            regs: b.regs,
            orders: ORDERS_ALL,
            hashes: b.hashes,
            keys_lower: false,
            ns_names: Vec::new(),
            ns_pairs: b.ns_pairs,
            text: b.text,
            copied,
            idns: b.idns,
            idn_text: b.idn_text,
            last_kind: Kind::None,
            active: false,
            assumed: 0,
            settled: [0; SETTLED_KINDS],
            counted: [0; SETTLED_KINDS],
            tags: b.tags,
            keeps: b.keeps,
            first_reg: None,
            last_reg: None,
            last_settled: false,
        }
    }

    /// Hashes the keys of `regs` (in `buf`) when they do not increase: the
    /// merge then looks them up in the deduplicator's table, and hashing
    /// them here, on the worker's thread, takes that work off the merge.
    pub(crate) fn hash_keys(&mut self, buf: &[u8]) {
        if self.orders != 0 {
            return;
        }
        let mut lower = Vec::new();
        let mut keys_lower = true;
        self.hashes.extend(self.regs.iter().map(|g| {
            let label = &buf[g.at..g.at + usize::from(g.len)];
            if label.iter().any(u8::is_ascii_uppercase) {
                keys_lower = false;
                lower.clear();
                lower.extend(label.iter().map(u8::to_ascii_lowercase));
                hash_bytes(&lower)
            } else {
                hash_bytes(label)
            }
        }));
        self.keys_lower = keys_lower;
    }

    /// The chunk's buffers, emptied, for another chunk.
    pub(crate) fn into_buffers(self) -> Buffers {
        let mut b = Buffers {
            deeper: self.deeper,
            outside: self.outside,
            regs: self.regs,
            hashes: self.hashes,
            ns_pairs: self.ns_pairs,
            text: self.text,
            idns: self.idns,
            idn_text: self.idn_text,
            tags: self.tags,
            keeps: self.keeps,
        };
        b.tags.clear();
        b.keeps.clear();
        b.deeper.clear();
        b.outside.clear();
        b.regs.clear();
        b.hashes.clear();
        b.ns_pairs.clear();
        b.text.clear();
        b.idns.clear();
        b.idn_text.clear();
        b
    }
}

/// A registered label of a chunk that is a valid IDN (RFC 5891 §5.4,
/// A-label = its text) and its U-label.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkIdn {
    /// Index into [`Chunk::regs`].
    pub(crate) reg: u32,
    /// The U-label in [`Chunk::idn_text`].
    pub(crate) at: u32,
    pub(crate) ulen: u32,
}

/// What an owner is, before registration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    None,
    Apex,
    Registered,
    Deeper,
    /// An NSEC3 hashed owner whose first record was NSEC3 data; each line
    /// of it is classified on its own (see `extract::new_owner`).
    Nsec3,
    Outside,
}

/// Computes the IDNA2008 forms of a new registered label that is not
/// plain (most are `xn--` labels) and keeps them when it is a valid IDN
/// whose A-label is its text; anything else is left to the collector.
pub(super) fn idn_forms(c: &mut Chunk, label: &[u8], chars: &mut Vec<char>) {
    use crate::idna2008::{FormsAt, forms_into};
    let at = c.idn_text.len();
    if let FormsAt::Owned { alen, ulen: Some(ulen), finding: None } =
        forms_into(label, &mut c.idn_text, chars)
        && alen == label.len()
        && c.idn_text.as_bytes()[at..at + alen] == *label
        && let (Ok(u_at), Ok(ulen)) = (u32::try_from(at + alen), u32::try_from(ulen))
    {
        c.idns.push(ChunkIdn { reg: c.regs.len() as u32, at: u_at, ulen });
        return;
    }
    c.idn_text.truncate(at);
}

/// Appends `buf[at..at + n]` to `text`. A label of at most 32 octets
/// with 32 bytes to read from `at` is copied as 32 bytes, the bytes past
/// it then overwritten by the next (two vector moves where a `memcpy`
/// call took a tenth of the copying of a zone's labels).
#[inline(always)]
pub(super) fn push_text(text: &mut Vec<u8>, buf: &[u8], at: usize, n: usize) {
    match buf.get(at..at + 32) {
        Some(block) if n <= 32 => {
            text.reserve(32);
            let len = text.len();
            // SAFETY: `reserve` left room for 32 more bytes, all written
            // from `block` (32 bytes long), of which the first `n` are
            // kept.
            unsafe {
                std::ptr::copy_nonoverlapping(block.as_ptr(), text.as_mut_ptr().add(len), 32);
                text.set_len(len + n);
            }
        }
        _ => text.extend_from_slice(&buf[at..at + n]),
    }
}

/// Counts `run` more records of an owner of this kind.
#[inline]
pub(super) fn count_run(c: &mut Chunk, kind: Kind, run: u64) {
    match kind {
        Kind::Apex => c.apex_records += run,
        Kind::Registered => c.same_registered += run,
        Kind::Deeper => c.deeper_records += run,
        Kind::Nsec3 => c.nsec3_records += run,
        Kind::Outside => c.outside_records += run,
        Kind::None => {}
    }
}

/// Adds the NS target `target` to the last registered label of the chunk.
pub(super) fn intern_ns(
    c: &mut Chunk,
    ids: &mut HashMap<Box<[u8]>, u32, HashBuild>,
    target: &[u8],
) {
    let id = match ids.get(target) {
        Some(&id) => id,
        None => {
            let id = ids.len() as u32;
            ids.insert(target.into(), id);
            id
        }
    };
    c.ns_pairs.push((c.regs.len() as u32 - 1, id));
}

/// The verdict of the rule (see [`crate::input::settle`]) on the new
/// registered label at `pos` (`m` octets; `plain`: lower-case LDH;
/// `ldh`: the masks of its digits and hyphens when the caller has them),
/// in a chunk read under a rule, and keeps track of the first and last
/// registered labels; returns whether the label was settled (only counted:
/// not to be pushed to `regs`).
#[inline(always)]
pub(super) fn settle_label(
    c: &mut Chunk,
    rule: Option<&RuleSnapshot>,
    buf: &[u8],
    (pos, m): (usize, usize),
    plain: bool,
    ldh: Option<(u32, u32)>,
) -> bool {
    let text = &buf[pos..pos + m];
    let verdict = match (rule, ldh) {
        (Some(p), Some((digits, hyphens))) if plain => {
            let alpha = digits | hyphens != crate::simd::zone::low_bits(m);
            Some(p.verdict_with(text, (alpha, digits != 0, hyphens != 0)))
        }
        (Some(p), _) if plain => Some(p.verdict(text)),
        _ => None,
    };
    if let Some(v) = verdict
        && count_settled(c, (pos, m), v)
    {
        return true;
    }
    c.first_reg.get_or_insert((pos, m, None));
    c.last_settled = false;
    let reg = c.regs.len() as u32;
    match verdict {
        Some(Settled::Tag(k)) => {
            c.counted[k] += 1;
            c.tags.push((reg, k as u32));
        }
        Some(Settled::Keep) => c.keeps.push(reg),
        _ => {}
    }
    false
}

/// Counts the registered label at `buf[pos..pos + m]` when the rule's
/// verdict is [`Settled::Count`] or [`Settled::Assume`] (only counted,
/// under its category); false for the other verdicts (the label is
/// stored).
#[inline(always)]
pub(super) fn count_settled(c: &mut Chunk, (pos, m): (usize, usize), v: Settled) -> bool {
    let k = match v {
        Settled::Count(k) => k,
        Settled::Assume(k) => {
            c.assumed += 1;
            k
        }
        Settled::Tag(_) | Settled::Keep => return false,
    };
    c.first_reg.get_or_insert((pos, m, Some(k)));
    c.last_settled = true;
    c.settled[k] += 1;
    true
}

/// [`hash_bytes`] of an owner's name as the general parser counts it: in
/// lower-case presentation format ([`name::present`]), which escapes some
/// octets (`@`, `$`, octets outside printable ASCII).
pub(super) fn owner_hash(owner: &[u8], upper: bool) -> u64 {
    if !owner.iter().all(|&b| AS_WRITTEN[usize::from(b)] || b.is_ascii_uppercase())
        && let Ok(p) = name::parse(owner)
    {
        let mut labels = p.labels;
        name::lower(&mut labels);
        return hash_bytes(name::present(&labels).as_bytes());
    }
    if upper { hash_bytes(&owner.to_ascii_lowercase()) } else { hash_bytes(owner) }
}

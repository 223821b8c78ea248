//! The quick loop of the extraction: runs of lines whose owner and fields
//! fit the common shape, read with few branches.

use super::bytes::{
    next_newline, no_empty_label, orders_unless_same, same_at, same_bytes, target_fast,
};
use super::chunk::{
    Chunk, FastOpts, Kind, Reg, count_run, count_settled, owner_hash, push_text, settle_label,
};
use super::fields::{FieldsCache, after_owner_cached, other_cached};
use crate::input::hash::hash_bytes;
use crate::input::settle::Settled;
use crate::input::settle::{DIGITS, LETTERS, RuleSnapshot};
use crate::input::zone::nsec3::is_hashed_label;
use crate::simd::zone::{Classes32, eq_mask32, eq_mask32_to, low_bits};

/// The plain labels a [`RuleSnapshot`] counts without a look at each
/// label's letters, as of the chunk's start: by length (`lengths`, under
/// category `cat`); those of letters and digits too when `digits` is set
/// (`Some(true)`: as [`Settled::Assume`], on the keys told ahead having
/// no letter); with hyphens too when `hyphens` is.
#[derive(Clone, Copy, Default)]
pub(super) struct Letters {
    pub(super) lengths_cat: (u64, usize),
    pub(super) digits: Option<bool>,
    pub(super) hyphens: bool,
}

impl Letters {
    /// What `p` counts so: labels with a letter when no letter is a
    /// target byte ([`PlainRule::targets`]; else none), those with digits
    /// too when digits are judged as letters and either none is a target
    /// byte or the keys told ahead have no letter, those with hyphens too
    /// when hyphens are judged as letters and the hyphen is no target.
    ///
    /// [`PlainRule::targets`]: crate::input::PlainRule::targets
    pub(super) fn of(p: &RuleSnapshot) -> Letters {
        let r = &p.rule;
        if r.targets & LETTERS != 0 || r.letters == 0 {
            return Letters::default();
        }
        let digits = match &p.keys {
            _ if !r.digits_as_letters => None,
            _ if r.targets & DIGITS == 0 => Some(false),
            Some(k) if !k.has_letters() => Some(true),
            _ => None,
        };
        Letters {
            lengths_cat: (r.letters, 1),
            digits,
            hyphens: r.hyphens_as_letters && r.targets >> b'-' & 1 == 0,
        }
    }
}

/// The state [`extract_impl`] carries from line to line, handed to
/// [`quick_lines`] and back.
pub(super) struct OwnerRun {
    /// The owner of the last line with a new owner: `buf[prev_at..]`,
    /// `prev_len` octets (0: none yet).
    pub(super) prev_at: usize,
    pub(super) prev_len: usize,
    /// What that owner is.
    pub(super) kind: Kind,
    /// Lines of that owner after its first, not yet counted.
    pub(super) run: u64,
    /// The last registered label (position and length).
    pub(super) last_reg: Option<(usize, usize)>,
    /// Whether the line at `prev_at` has, right after its owner, the
    /// fields of [`FieldsCache::ns`] (as [`quick_lines_in`] found them; false
    /// when not known).
    pub(super) ns_fields: bool,
}

impl OwnerRun {
    /// The line at `at` has a new owner of `len` octets, of this kind: the
    /// lines of the last owner after its first are counted.
    #[inline(always)]
    pub(super) fn new_owner(&mut self, c: &mut Chunk, kind: Kind, (at, len): (usize, usize)) {
        count_run(c, self.kind, self.run);
        self.run = 0;
        self.kind = kind;
        self.prev_at = at;
        self.prev_len = len;
        self.ns_fields = false;
    }
}

/// The lines of `buf[pos..end]` of the kinds that make most of a dump,
/// taken as [`extract_impl`] takes them, up to the first line of any other
/// kind, whose start is returned (the caller goes on there):
/// - a line of the last owner whose text after the owner [`FieldsCache`]
///   shows to be a record ([`after_owner_cached`]);
/// - the first line of a new owner that is a plain label right under the
///   apex as written (lower-case LDH, not the last registered one again),
///   an NS record whose fields the cache knows and whose target is as
///   written ([`target_fast`]);
/// - the first line of a new owner deeper under the apex, in lower-case
///   LDH, of a record whose fields are those of one of the last two that
///   are not NS ([`other_cached`]: glue, mostly).
///
/// Only with NS targets not collected, under an apex other than the root
/// (see `quick` in [`extract_impl`]). A line is left whole to the caller:
/// nothing of it is counted or kept here.
///
/// The loop is short and has few variables, which the compiler keeps in
/// registers; the general loop, with its many cases, keeps most of its
/// own on the stack.
#[inline(always)]
pub(super) fn quick_lines<const W: bool>(
    c: &mut Chunk,
    rule: Option<&RuleSnapshot>,
    cache: &mut FieldsCache,
    k: &mut OwnerRun,
    (buf, pos, end): (&[u8], usize, usize),
    o: &FastOpts<'_>,
    letters: Letters,
) -> usize {
    // The lines that start in the zone, then the others (near the end of
    // the buffer), with their bounds checked.
    let zone = end.min(buf.len().saturating_sub(QUICK_REACH));
    let pos = quick_lines_in::<W, true>(c, rule, cache, k, (buf, pos, end), zone, o, letters);
    if pos < zone {
        return pos;
    }
    quick_lines_in::<W, false>(c, rule, cache, k, (buf, pos, end), end, o, letters)
}

/// How far past the start of a line the loads of [`quick_lines_in`] may
/// read: the owner of the last line (under 255 octets: longer ones go to
/// the general parser) and 32 bytes after it, or 128 bytes for the
/// newline, a cached field and a target. Lines that start at least this
/// far from the end of the buffer are in its zone, where the loads need
/// no bounds check (`Z`, [`fits32_in`](crate::simd::zone::fits32_in)).
pub(super) const QUICK_REACH: usize = 320;

/// [`quick_lines`] for the lines of `buf[pos..end]` that start before
/// `starts`; `Z`: `starts` is at least [`QUICK_REACH`] bytes before the
/// end of `buf`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn quick_lines_in<const W: bool, const Z: bool>(
    c: &mut Chunk,
    rule: Option<&RuleSnapshot>,
    cache: &mut FieldsCache,
    k: &mut OwnerRun,
    (buf, mut pos, end): (&[u8], usize, usize),
    starts: usize,
    o: &FastOpts<'_>,
    letters: Letters,
) -> usize {
    let apex = o.apex;
    let a = apex.len();
    // The apex, padded, for one comparison with the end of an owner of
    // the first 32 bytes of its line (`a` is under 31 there).
    let mut apex32 = [0u8; 32];
    apex32[..a.min(32)].copy_from_slice(&apex[..a.min(32)]);
    let blank_owners = !o.czds;
    let relative_under_apex = o.origin_text == Some(apex);
    while pos < starts
        && let Some(line_end) = next_newline::<W, Z>(buf, pos, end)
    {
        debug_assert!(!Z || pos + QUICK_REACH <= buf.len());
        if line_end - pos > crate::input::MAX_LINE_BYTES {
            // Malformed, as the careful parser finds it (`read_line`).
            break;
        }
        let p = k.prev_len;
        let kt = cache.ns.1;
        // A master file's line with a blank owner: the last owner's.
        if blank_owners && matches!(buf[pos], b' ' | b'\t') {
            if p == 0 || !after_owner_cached::<W, Z>(cache, buf, (pos, line_end)) {
                break;
            }
            k.run += 1;
            c.lines += 1;
            pos = line_end + 1;
            continue;
        }
        // The owner is followed by its tab: comparing one byte more checks
        // this line's tab too. (An owner is under 255 octets, which keeps
        // the zone's loads after it within `QUICK_REACH`.) `Some(whole)`:
        // the last new owner again; `whole`: with the NS fields of the
        // cache after it, as that line had them, found by the same
        // comparison (most lines of a dump repeat their owner's NS record).
        let again = if p == 0 || p >= crate::idna2008::MAX_NAME_OCTETS {
            None
        } else if p < 32
            && let Some(eq) = eq_mask32::<W, Z>(buf, pos, k.prev_at)
        {
            let has = |n: usize| n <= 32 && eq & low_bits(n) == low_bits(n);
            has(p + 1).then(|| k.ns_fields && kt > 0 && has(p + kt))
        } else {
            same_at::<W, Z>(buf, pos, k.prev_at, p + 1).then_some(false)
        };
        if let Some(whole) = again {
            // The rest is a record ([`after_owner_cached`]): with the NS fields
            // (which hold no newline), when a target that resolves follows.
            let record = if whole {
                let at = pos + p + kt;
                debug_assert!(same_at::<W, false>(buf, pos + p, cache.ns.0, kt));
                target_fast::<W, Z>(buf, at, line_end)
            } else {
                after_owner_cached::<W, Z>(cache, buf, (pos + p, line_end))
            };
            if !record {
                break;
            }
            k.run += 1;
        } else {
            // `label.apex` and its tab, in the first 32 bytes, of lower-case
            // LDH octets and dots.
            let Some(cl) = Classes32::quick::<W, Z>(buf, pos) else { break };
            let n = cl.tab.trailing_zeros() as usize;
            if n == 0 || pos + n >= line_end {
                break;
            }
            let m = if cl.dot & 1 << (n - 1) == 0 {
                // A relative owner under an origin that is the apex: a
                // registered label when it has no dot (a deeper one is
                // `read_line`'s, which makes it absolute).
                if !relative_under_apex || cl.dot & low_bits(n) != 0 {
                    break;
                }
                n
            } else {
                if n <= a + 1 {
                    break;
                }
                let m = n - a - 1;
                // A dot before the apex (`n` < 32: the apex is in the 32
                // bytes from the dot).
                let apex_eq = eq_mask32_to::<W, Z>(buf, pos + m + 1, &apex32);
                let at_apex = match apex_eq {
                    Some(eq) => eq & low_bits(a) == low_bits(a),
                    None => same_bytes(&buf[pos + m + 1..pos + n], apex),
                };
                if cl.dot & 1 << m == 0 || !at_apex {
                    break;
                }
                m
            };
            if cl.dot & low_bits(m) != 0 {
                // A name deeper in the zone (glue), of no empty label, with
                // the fields of one of the last records that are not NS.
                if !no_empty_label(cl.dot & low_bits(n), n)
                    || !other_cached::<W, Z>(cache, buf, (pos + n, line_end))
                {
                    break;
                }
                k.new_owner(c, Kind::Deeper, (pos, n));
                c.deeper_records += 1;
                // Lower-case LDH and dots: `owner_hash` would hash it as it is.
                let owner = &buf[pos..pos + n];
                debug_assert_eq!(hash_bytes(owner), owner_hash(owner, false));
                c.deeper.push(hash_bytes(owner));
            } else if !quick_registered::<W, Z>(
                c,
                rule,
                cache,
                k,
                (buf, pos, line_end),
                (cl, n, m),
                o,
                letters,
            ) {
                break;
            }
        }
        c.lines += 1;
        pos = line_end + 1;
    }
    pos
}

/// The first line of a new owner that [`quick_lines_in`] found to be a
/// plain label of `m` octets right under the apex (`n` octets with the
/// apex; classes `cl`): registered, when it is not the last registered
/// label again and its record is an NS record whose fields are the
/// cache's, with a target as written; only counted when the rule
/// counts it. False: the caller leaves the line to `read_line`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn quick_registered<const W: bool, const Z: bool>(
    c: &mut Chunk,
    rule: Option<&RuleSnapshot>,
    cache: &FieldsCache,
    k: &mut OwnerRun,
    (buf, pos, line_end): (&[u8], usize, usize),
    (cl, n, m): (Classes32, usize, usize),
    o: &FastOpts<'_>,
    letters: Letters,
) -> bool {
    // No hyphen at either end, nor in both positions 3 and 4
    // (`idna2008::hyphens_allowed`), from the hyphen mask.
    let (digits, hyphens) = (cl.digit & low_bits(m), cl.hyphen & low_bits(m));
    let ends = 1 | 1 << (m - 1);
    let hyphens_ok = hyphens & ends == 0 && hyphens & 0b1100 != 0b1100;
    debug_assert_eq!(hyphens_ok, crate::idna2008::hyphens_allowed(&buf[pos..pos + m]));
    // A label with the shape of an NSEC3 hash may have NSEC3 data too,
    // counted apart: `read_line` reads its lines one by one.
    if !hyphens_ok || (m == 32 && is_hashed_label(&buf[pos..pos + m])) {
        return false;
    }
    // Not the last registered label again; the orders after it.
    let orders = match k.last_reg {
        Some(last) => match orders_unless_same::<W, Z>(c.orders, buf, last, (pos, m)) {
            Some(o) => o,
            None => return false,
        },
        None => c.orders,
    };
    // An NS record whose fields are those of the last one, with
    // a target as written.
    let (t, kt) = cache.ns;
    let at = pos + n;
    let ns = kt > 0
        && at + kt <= line_end
        && same_at::<W, Z>(buf, at, t, kt)
        && target_fast::<W, Z>(buf, at + kt, line_end);
    if !ns {
        return false;
    }
    k.new_owner(c, Kind::Registered, (pos, n));
    k.ns_fields = true;
    c.orders = orders;
    k.last_reg = Some((pos, m));
    // Letters only, or letters and digits, and hyphens, with a
    // letter, of a length the rule counts: counted here (see `Letters`);
    // else the rule's verdict is taken.
    let (lengths, cat) = letters.lengths_cat;
    let counted = (hyphens == 0 || letters.hyphens)
        && lengths >> m & 1 != 0
        && (digits == 0 || letters.digits.is_some())
        && digits | hyphens != low_bits(m);
    let settled = if counted {
        let v = if digits != 0 && letters.digits == Some(true) {
            Settled::Assume(cat)
        } else {
            Settled::Count(cat)
        };
        debug_assert!(rule.is_none_or(|p| {
            p.verdict_with(&buf[pos..pos + m], (true, digits != 0, hyphens != 0)) == v
        }));
        count_settled(c, (pos, m), v)
    } else {
        rule.is_some() && settle_label(c, rule, buf, (pos, m), true, Some((digits, hyphens)))
    };
    if !settled {
        if o.copy {
            push_text(&mut c.text, buf, pos, m);
        }
        c.regs.push(Reg { at: pos, line: c.lines as u32, len: m as u16, plain: true });
    }
    true
}

//! The CZDS fast path of the zone reader, in independent chunks.
//!
//! A dump in the CZDS profile (ICANN Registry Agreement, Specification 4
//! §2.1: one record per line, absolute names, tab-separated fields, no
//! directives) is read without tokenising: the owner is the bytes up to
//! the first tab, compared with the previous line's owner, and only a new
//! owner is classified against the apex. [`extract_in`] does this for a range
//! of lines and needs nothing but the bytes and the apex, so the chunks of
//! a mapped file are extracted in parallel (on rayon's current pool) and
//! then merged in file order ([`merge`]): line numbers, deduplication and
//! counts come out exactly as a sequential read would give them.
//!
//! A line that does not fit the profile stops the chunk; the general
//! parser reads it, and the fast path takes over again after it. That is a
//! line with leading white space, a directive, a comment, an empty line; an
//! owner with an escape, a space, `;`, `(`, `)`, `"`, an empty label or no
//! final dot; or fields after the owner that the general parser reports
//! malformed or reads apart ([`check_rest`]: no record type; `;`, `(`, `)`,
//! `"` or `\` before the type; an NS record without a target, or with one
//! that does not resolve). So a file gives the same labels, counts,
//! malformed lines and NS targets whichever path reads a line, with two
//! exceptions: the RDATA is not read (the profile has one record per line:
//! a `(` or a quote there is data, where the general parser would look for
//! the closing one), and without NS targets to collect, the target of an
//! owner's later lines is only checked to be there (tests/input.rs).

use std::collections::HashMap;

use memchr::memchr;

use super::collect::{Class, Collector, IdnBlock, KeyMode, Loc, Orig};
use super::dedup::{FxBuild, half, hash_bytes, word};
use super::labels::{LabelRecord, MAX_RECORD_TEXT, NONE};
use super::settle::{AheadLabel, SETTLED, SETTLED_KINDS, Settle, SettleWorker, Settled};
use super::source::Data;
use super::zone::{ZoneState, is_class, is_ttl};
use super::{Config, Error, LabelText, name};

/// What the fast path needs to know: the apex and what to collect.
pub(crate) struct FastOpts<'a> {
    /// The apex in lower-case presentation format with a trailing dot.
    pub(crate) apex: &'a [u8],
    /// The current `$ORIGIN`, for NS targets that are relative names.
    pub(crate) origin: Option<&'a [Vec<u8>]>,
    /// Whether NS targets are collected.
    pub(crate) ns: bool,
    /// Whether the text of plain labels is copied into [`Chunk::text`].
    pub(crate) copy: bool,
    /// What settles plain labels, if anything (see [`super::settle`]).
    pub(crate) settle: Option<&'a dyn Settle>,
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

/// Key orders under which a sequence of keys can be strictly increasing
/// (see [`super::dedup::Dedup`]): bit 0 the octets, bit 1 the octets
/// followed by a dot (the order of owner names under one apex).
pub(crate) const ORDERS_ALL: u8 = 0b11;

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
    pub(crate) outside_records: u64,
    /// Hashes of the lower-case deeper and outside owner names, each time
    /// such an owner starts.
    pub(crate) deeper: Vec<u64>,
    pub(crate) outside: Vec<u64>,
    pub(crate) regs: Vec<Reg>,
    /// Orders under which the keys of `regs` strictly increase (none when
    /// a label has upper-case letters: its key is not its octets).
    pub(crate) orders: u8,
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
    /// Owner of the last line read (a range of the buffer), and what it
    /// was.
    pub(crate) last_owner: (usize, usize),
    pub(crate) last_kind: Kind,
    /// Whether the settler was asked about every plain label (see
    /// [`super::settle`]).
    pub(crate) active: bool,
    /// Labels settled on the strength of the labels told ahead (see
    /// [`Settle::ahead_parts`]).
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
    /// The settling worker, until [`run`] takes it back for the next chunk.
    pub(crate) settle: Option<Box<dyn SettleWorker>>,
}

/// The buffers of a [`Chunk`], emptied and handed to the next chunk
/// ([`Chunk::into_buffers`], [`extract_in`]): buffers new for every chunk
/// are new memory, a page fault per 4 KiB written (a third of the faults
/// of a read), where these stay mapped.
#[derive(Default)]
pub(crate) struct Buffers {
    deeper: Vec<u64>,
    outside: Vec<u64>,
    regs: Vec<Reg>,
    ns_pairs: Vec<(u32, u32)>,
    text: Vec<u8>,
    idns: Vec<ChunkIdn>,
    idn_text: String,
    tags: Vec<(u32, u32)>,
    keeps: Vec<u32>,
    settle: Option<Box<dyn SettleWorker>>,
}

impl Chunk {
    /// The chunk's buffers, emptied, for another chunk.
    pub(crate) fn into_buffers(self) -> Buffers {
        let mut b = Buffers {
            deeper: self.deeper,
            outside: self.outside,
            regs: self.regs,
            ns_pairs: self.ns_pairs,
            text: self.text,
            idns: self.idns,
            idn_text: self.idn_text,
            tags: self.tags,
            keeps: self.keeps,
            settle: self.settle,
        };
        b.tags.clear();
        b.keeps.clear();
        b.deeper.clear();
        b.outside.clear();
        b.regs.clear();
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
    Outside,
}

/// The AVX2 forms of the fast path's comparisons (see [`eq_mask32`]).
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi8, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8,
    };

    /// Bit i set when `a[i] == b[i]`, for i < 32.
    ///
    /// # Safety
    /// The CPU has AVX2; 32 bytes can be read from `a` and from `b`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn eq_mask32(a: *const u8, b: *const u8) -> u32 {
        // SAFETY: per the contract.
        unsafe {
            let x = _mm256_loadu_si256(a.cast::<__m256i>());
            let y = _mm256_loadu_si256(b.cast::<__m256i>());
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(x, y)) as u32
        }
    }

    /// The bytes of `v` in `lo..lo + n` (n ≤ 128), as `super::in_range`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn in_range(v: __m256i, lo: u8, n: u8) -> __m256i {
        let x = _mm256_add_epi8(v, _mm256_set1_epi8(128u8.wrapping_sub(lo) as i8));
        _mm256_cmpgt_epi8(_mm256_set1_epi8((n as i8).wrapping_add(i8::MIN)), x)
    }

    /// The masks of the 32 bytes from `p` for `Classes32::quick`: tabs,
    /// lower-case LDH octets or dots, dots, digits, hyphens.
    ///
    /// # Safety
    /// The CPU has AVX2; 32 bytes can be read from `p`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn owner_masks(p: *const u8) -> [u32; 5] {
        // SAFETY: per the contract.
        let v = unsafe { _mm256_loadu_si256(p.cast::<__m256i>()) };
        let digit = in_range(v, b'0', 10);
        let ok =
            _mm256_or_si256(_mm256_or_si256(in_range(v, b'a', 26), digit), in_range(v, b'-', 2));
        let is = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
        let mask = |m| _mm256_movemask_epi8(m) as u32;
        [mask(is(b'\t')), mask(ok), mask(is(b'.')), mask(digit), mask(is(b'-'))]
    }

    /// The masks of `super::target_fast` for the 32 bytes from `p`: octets
    /// an NS target keeps as written, and dots.
    ///
    /// # Safety
    /// The CPU has AVX2; 32 bytes can be read from `p`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn target_masks(p: *const u8) -> (u32, u32) {
        // SAFETY: per the contract.
        let v = unsafe { _mm256_loadu_si256(p.cast::<__m256i>()) };
        let ok = _mm256_or_si256(
            _mm256_or_si256(in_range(v, b'-', 13), in_range(v, b'a', 26)),
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'_' as i8)),
        );
        let dot = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'.' as i8));
        (_mm256_movemask_epi8(ok) as u32, _mm256_movemask_epi8(dot) as u32)
    }

    /// The newline mask of the 64 bytes from `p`.
    ///
    /// # Safety
    /// The CPU has AVX2; 64 bytes can be read from `p`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn newline_mask64(p: *const u8) -> u64 {
        // SAFETY: per the contract.
        unsafe {
            let nl = _mm256_set1_epi8(b'\n' as i8);
            let v0 = _mm256_loadu_si256(p.cast::<__m256i>());
            let v1 = _mm256_loadu_si256(p.add(32).cast::<__m256i>());
            let m0 = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, nl)) as u32;
            let m1 = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, nl)) as u32;
            u64::from(m0) | u64::from(m1) << 32
        }
    }
}

/// The bytes of `v` in `lo..lo + n` (n ≤ 128): shifted so that the range
/// starts at -128, one signed comparison.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn in_range(v: std::arch::x86_64::__m128i, lo: u8, n: u8) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::{_mm_add_epi8, _mm_cmplt_epi8, _mm_set1_epi8};
    // SAFETY: SSE2 is in the x86-64 baseline; no memory is read.
    unsafe {
        let x = _mm_add_epi8(v, _mm_set1_epi8(128u8.wrapping_sub(lo) as i8));
        _mm_cmplt_epi8(x, _mm_set1_epi8((n as i8).wrapping_add(i8::MIN)))
    }
}

/// Whether 32 bytes can be read from `buf` at `at`: `at` at most
/// `buf.len() - 32`, a bound the compiler computes once per loop (the
/// sum `at + 32` cannot be, and needs an overflow check).
#[inline(always)]
fn fits32(buf: &[u8], at: usize) -> bool {
    buf.len().checked_sub(32).is_some_and(|last| at <= last)
}

/// [`fits32`], known without a check in the quick loop's zone (`Z`, see
/// [`QUICK_REACH`]): its loads are within `buf` by where its lines start.
#[inline(always)]
fn fits32_in<const Z: bool>(buf: &[u8], at: usize) -> bool {
    if Z {
        debug_assert!(fits32(buf, at), "a load past the zone: {at} of {}", buf.len());
        return true;
    }
    fits32(buf, at)
}

/// The byte masks (bit i: byte i) of the vectors `f` makes of each
/// 16-byte half of `buf[at..at + 32]`, when 32 bytes can be loaded: the
/// SSE2 pass (x86-64 baseline) of the owner, class and target masks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn sse2_masks32<const N: usize, const Z: bool>(
    buf: &[u8],
    at: usize,
    f: impl Fn(std::arch::x86_64::__m128i) -> [std::arch::x86_64::__m128i; N],
) -> Option<[u32; N]> {
    use std::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8};
    if !fits32_in::<Z>(buf, at) {
        return None;
    }
    // SAFETY: SSE2 is in the x86-64 baseline, and the unaligned loads read
    // `buf[at..at + 32]`, within `buf`.
    let half = |k: usize| unsafe {
        f(_mm_loadu_si128(buf.as_ptr().add(at + 16 * k).cast()))
            .map(|m| _mm_movemask_epi8(m) as u32 & 0xFFFF)
    };
    let (lo, hi) = (half(0), half(1));
    Some(std::array::from_fn(|i| lo[i] | hi[i] << 16))
}

/// Bit i set when `buf[a + i] == buf[b + i]`, for i < 32, when 32 bytes
/// can be loaded from both positions (two SSE2 comparisons; SSE2 is part
/// of every x86-64 CPU). `None` otherwise, and on other architectures.
///
/// `W` ("wide"): with AVX2 instructions, one comparison; only in code that
/// runs on a CPU that has them ([`extract_avx2`]). `Z`: in the zone of
/// [`QUICK_REACH`], where the bounds need no check ([`fits32_in`]).
#[inline(always)]
fn eq_mask32<const W: bool, const Z: bool>(buf: &[u8], a: usize, b: usize) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if fits32_in::<Z>(buf, a.max(b)) {
        // SAFETY: 32 bytes are within `buf` from both positions.
        return Some(unsafe { eq_mask32_at::<W>(buf.as_ptr().add(a), buf.as_ptr().add(b)) });
    }
    None
}

/// Bit i set when `buf[at + i] == pattern[i]`, for i < 32, when 32 bytes
/// can be loaded from `at`; as [`eq_mask32`].
#[inline(always)]
fn eq_mask32_to<const W: bool, const Z: bool>(
    buf: &[u8],
    at: usize,
    pattern: &[u8; 32],
) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if fits32_in::<Z>(buf, at) {
        // SAFETY: 32 bytes are within `buf` from `at`, and in `pattern`.
        return Some(unsafe { eq_mask32_at::<W>(buf.as_ptr().add(at), pattern.as_ptr()) });
    }
    None
}

/// [`eq_mask32`] of the 32 bytes at `a` and at `b`.
///
/// # Safety
/// 32 bytes can be read from `a` and from `b`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn eq_mask32_at<const W: bool>(a: *const u8, b: *const u8) -> u32 {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8};
    if W {
        // SAFETY: `W` is set only on a CPU with AVX2 (see `extract_in`), and
        // per the contract.
        return unsafe { avx2::eq_mask32(a, b) };
    }
    // SAFETY: SSE2 is in the x86-64 baseline, and the unaligned loads read
    // the 32 bytes at `a` and at `b` (the contract).
    unsafe {
        let (pa, pb) = (a.cast::<__m128i>(), b.cast::<__m128i>());
        let half = |k: usize| {
            let e = _mm_cmpeq_epi8(_mm_loadu_si128(pa.add(k)), _mm_loadu_si128(pb.add(k)));
            _mm_movemask_epi8(e) as u32 & 0xFFFF
        };
        half(0) | half(1) << 16
    }
}

/// The low `n` bits (n ≤ 32).
#[inline(always)]
fn low_bits(n: usize) -> u32 {
    debug_assert!(n <= 32);
    ((1u64 << (n & 63)) - 1) as u32
}

/// Whether `buf[a..a + n]` equals `buf[b..b + n]` (false when either is
/// past the end). Owners are short: up to 32 bytes are compared at once
/// ([`eq_mask32`]); longer ones by [`same_bytes`].
#[inline(always)]
fn same_at<const W: bool, const Z: bool>(buf: &[u8], a: usize, b: usize, n: usize) -> bool {
    if n <= 32
        && let Some(eq) = eq_mask32::<W, Z>(buf, a, b)
    {
        let need = low_bits(n);
        return eq & need == need;
    }
    match (buf.get(a..a.saturating_add(n)), buf.get(b..b.saturating_add(n))) {
        (Some(x), Some(y)) => same_bytes(x, y),
        _ => false,
    }
}

/// [`orders_increasing`] of the labels `buf[a..a + la]` and
/// `buf[b..b + lb]` (none for the same label twice).
#[inline(always)]
fn orders_increasing_at<const W: bool>(
    orders: u8,
    buf: &[u8],
    a: (usize, usize),
    b: (usize, usize),
) -> u8 {
    orders_unless_same::<W, false>(orders, buf, a, b).unwrap_or(0)
}

/// [`orders_increasing`] of the labels `buf[a..a + la]` and
/// `buf[b..b + lb]`, or `None` when they are the same: the first
/// difference of short labels is found at once ([`eq_mask32`]), and says
/// both (the loop of usual lines asks both of each new label and the last
/// one).
#[inline(always)]
fn orders_unless_same<const W: bool, const Z: bool>(
    orders: u8,
    buf: &[u8],
    (a, la): (usize, usize),
    (b, lb): (usize, usize),
) -> Option<u8> {
    let n = la.min(lb);
    if n < 32
        && let Some(eq) = eq_mask32::<W, Z>(buf, a, b)
    {
        let differ = !eq & low_bits(n);
        if differ != 0 {
            let d = differ.trailing_zeros() as usize;
            return Some(if buf[a + d] < buf[b + d] { orders } else { 0 });
        }
        if la == lb {
            return None;
        }
    } else if la == lb && same_bytes(&buf[a..a + la], &buf[b..b + lb]) {
        return None;
    }
    Some(orders_increasing(orders, &buf[a..a + la], &buf[b..b + lb]))
}

/// The tab, lower-case-LDH-or-dot, dot, digit and hyphen masks of
/// `buf[at..at + 32]` (see [`Classes32::quick`]), when 32 bytes can be
/// loaded (x86-64 only); `W`: as in [`eq_mask32`].
#[inline(always)]
fn owner_masks<const W: bool, const Z: bool>(buf: &[u8], at: usize) -> Option<[u32; 5]> {
    #[cfg(target_arch = "x86_64")]
    if W && fits32_in::<Z>(buf, at) {
        // SAFETY: `W` is set only on a CPU with AVX2 (see `extract_in`), and
        // 32 bytes are within `buf` from `at`.
        return Some(unsafe { avx2::owner_masks(buf.as_ptr().add(at)) });
    }
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_or_si128, _mm_set1_epi8};
        // SAFETY (each intrinsic): SSE2 is in the x86-64 baseline; no
        // memory is read.
        sse2_masks32::<5, Z>(buf, at, |v| unsafe {
            let digit = in_range(v, b'0', 10);
            let ok = _mm_or_si128(
                _mm_or_si128(in_range(v, b'a', 26), digit),
                in_range(v, b'-', 2), // `-` and `.`
            );
            let is = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            [is(b'\t'), ok, is(b'.'), digit, is(b'-')]
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (buf, at);
        None
    }
}

/// Whether the dots `dots` of a name of `n` octets (n ≤ 32; bit i: octet
/// i) leave no label empty: none first, no two in a row (the root, `.`
/// alone, is a name).
#[inline(always)]
fn no_empty_label(dots: u32, n: usize) -> bool {
    n == 1 || (dots & 1 == 0 && dots & (dots >> 1) == 0)
}

/// Byte classes of up to 32 bytes of a line from one SSE2 pass (bit i:
/// byte i): the tabs, and what [`HEAD_CLASS`] flags any prefix has.
#[derive(Clone, Copy)]
struct Classes32 {
    tab: u32,
    /// Digits and hyphens: from [`Classes32::quick`] only (zero from
    /// [`Classes32::load`]).
    digit: u32,
    hyphen: u32,
    /// Neither lower-case LDH nor an upper-case letter.
    not_ldh: u32,
    upper: u32,
    dot: u32,
    special: u32,
}

impl Classes32 {
    /// The classes of the bytes before the first tab of `buf[at..at + 32]`
    /// when they are all lower-case LDH octets or dots (the owners of a
    /// dump, nearly always), from a third of the work of
    /// [`Classes32::load`]: then nothing is upper case nor special, and
    /// the only non-LDH octets are the dots. The bits past the tab are
    /// not meaningful. `None` otherwise (or on other architectures).
    #[inline(always)]
    fn quick<const W: bool, const Z: bool>(buf: &[u8], at: usize) -> Option<Classes32> {
        let [tab, ok, dot, digit, hyphen] = owner_masks::<W, Z>(buf, at)?;
        let before = low_bits(tab.trailing_zeros() as usize);
        if tab == 0 || ok & before != before {
            return None;
        }
        let dot = dot & before;
        Some(Classes32 { tab, digit, hyphen, not_ldh: dot, upper: 0, dot, special: 0 })
    }

    /// The classes of `buf[at..at + 32]`, when 32 bytes can be loaded
    /// (x86-64 only).
    #[inline(always)]
    fn load(buf: &[u8], at: usize) -> Option<Classes32> {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_or_si128, _mm_set1_epi8};
            // SAFETY (each intrinsic): SSE2 is in the x86-64 baseline; no
            // memory is read.
            sse2_masks32::<5, false>(buf, at, |v| unsafe {
                let is = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
                let upper = in_range(v, b'A', 26);
                let ok = _mm_or_si128(
                    _mm_or_si128(in_range(v, b'a', 26), in_range(v, b'0', 10)),
                    _mm_or_si128(is(b'-'), upper),
                );
                // Bytes that end a token or need the tokenizer: an owner
                // with one is for the general parser.
                let special = _mm_or_si128(
                    _mm_or_si128(
                        _mm_or_si128(is(b'\\'), is(b' ')),
                        _mm_or_si128(is(b'\r'), is(b'\n')),
                    ),
                    _mm_or_si128(
                        _mm_or_si128(is(b';'), is(b'"')),
                        _mm_or_si128(is(b'('), is(b')')),
                    ),
                );
                [is(b'\t'), ok, upper, is(b'.'), special]
            })
            .map(|[tab, ok, upper, dot, special]| Classes32 {
                tab,
                digit: 0,
                hyphen: 0,
                not_ldh: !ok,
                upper,
                dot,
                special,
            })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (buf, at);
            None
        }
    }

    /// The [`HEAD_CLASS`] flags of the first `n` bytes (n < 32), without
    /// branches.
    #[inline(always)]
    fn flags(&self, n: usize) -> u8 {
        let m = low_bits(n);
        let any = |x: u32, flag: u8| if x & m != 0 { flag } else { 0 };
        any(self.upper, H_UPPER)
            | any(self.not_ldh, H_NON_LDH)
            | any(self.dot, H_DOT | H_NON_LDH)
            | any(self.special, H_SPECIAL | H_NON_LDH)
    }
}

/// Equality of two short byte strings without a call to `memcmp`: words
/// of 8 bytes, the last one overlapping the one before (4 and 1 bytes
/// for shorter strings).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if word(a, i) != word(b, i) {
                return false;
            }
            i += 8;
        }
        return word(a, n - 8) == word(b, n - 8);
    }
    if n >= 4 {
        return half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4);
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// Compares two byte strings, 8 bytes at a time (labels are short, and
/// a call to `memcmp` costs more than the comparison).
#[inline(always)]
fn cmp_bytes(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let (mut x, mut y) = ([0u8; 8], [0u8; 8]);
        x.copy_from_slice(&a[i..i + 8]);
        y.copy_from_slice(&b[i..i + 8]);
        if x != y {
            return u64::from_be_bytes(x).cmp(&u64::from_be_bytes(y));
        }
        i += 8;
    }
    while i < n {
        if a[i] != b[i] {
            return a[i].cmp(&b[i]);
        }
        i += 1;
    }
    a.len().cmp(&b.len())
}

/// Compares `a.` with `b.` (each followed by a dot) without copying: the
/// order [`orders_increasing`] computes in one pass (kept for its tests).
#[cfg(test)]
fn cmp_dotted(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    match cmp_bytes(&a[..n], &b[..n]) {
        std::cmp::Ordering::Equal => {
            let x = a.get(n).copied().unwrap_or(b'.');
            let y = b.get(n).copied().unwrap_or(b'.');
            x.cmp(&y).then(a.len().cmp(&b.len()))
        }
        o => o,
    }
}

/// The orders of `orders` under which `a < b` strictly.
#[inline]
pub(crate) fn orders_increasing(orders: u8, a: &[u8], b: &[u8]) -> u8 {
    use std::cmp::Ordering::{Greater, Less};
    // Both orders agree unless one key is a prefix of the other: compare
    // the common prefix once.
    let n = a.len().min(b.len());
    match cmp_bytes(&a[..n], &b[..n]) {
        Less => orders,
        Greater => 0,
        _ => {
            let octets = a.len() < b.len();
            let x = a.get(n).copied().unwrap_or(b'.');
            let y = b.get(n).copied().unwrap_or(b'.');
            let dotted = x < y || (x == y && a.len() < b.len());
            orders & (u8::from(octets) | u8::from(dotted) << 1)
        }
    }
}

/// The position of the first tab of a line, if any (an owner is short:
/// its first 16-byte blocks are compared at once with SSE2 on x86-64).
#[inline(always)]
fn first_tab(line: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        let mut at = 0;
        while let Some(block) = line.get(at..at + 16) {
            // SAFETY: SSE2 is in the x86-64 baseline; the unaligned 16-byte
            // load is within `block`.
            let m = unsafe {
                let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\t' as i8)))
            };
            if m != 0 {
                return Some(at + m.trailing_zeros() as usize);
            }
            at += 16;
            if at >= 64 {
                break;
            }
        }
        return memchr(b'\t', &line[at..]).map(|k| at + k);
    }
    #[allow(unreachable_code)]
    memchr(b'\t', line)
}

/// The position of the first newline of `buf[pos..end]`, if any.
///
/// Lines of a zone dump are short (50 bytes or so): the 64 bytes from
/// `pos` are compared at once ([`block_mask`]), so the branch that finds
/// the newline is taken on almost every line (a newline mask per 64-byte
/// block, consumed line by line, left one mispredicted refill per line or
/// two); then the next 64 (DS records are a little longer). Longer lines
/// go on with `memchr`.
#[inline(always)]
fn next_newline<const W: bool, const Z: bool>(buf: &[u8], pos: usize, end: usize) -> Option<usize> {
    for at in [pos, pos + 64] {
        let m = block_mask::<W, Z>(buf, at);
        if m != 0 {
            let k = at + m.trailing_zeros() as usize;
            return (k < end).then_some(k);
        }
        if at + 64 >= end {
            return None;
        }
    }
    let from = pos + 128;
    memchr(b'\n', &buf[from..end]).map(|k| from + k)
}

/// The newline mask of the 64 bytes of `buf` from `at` (fewer at the end);
/// `W`: as in [`eq_mask32`].
#[inline(always)]
fn block_mask<const W: bool, const Z: bool>(buf: &[u8], at: usize) -> u64 {
    // The block's start when its 64 bytes are within `buf` (known in the
    // quick loop's zone, see `fits32_in`).
    let block = || {
        if Z {
            debug_assert!(at + 64 <= buf.len(), "a block past the zone: {at} of {}", buf.len());
            // SAFETY: in the zone, `at + 64 <= buf.len()` (`QUICK_REACH`).
            return Some(unsafe { buf.as_ptr().add(at) });
        }
        buf.get(at..at + 64).map(<[u8]>::as_ptr)
    };
    #[cfg(target_arch = "x86_64")]
    if W && let Some(block) = block() {
        // SAFETY: `W` is set only on a CPU with AVX2 (see `extract_in`), and
        // 64 bytes can be read from `block`.
        return unsafe { avx2::newline_mask64(block) };
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(block) = block() {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        let p = block.cast::<__m128i>();
        // SAFETY: SSE2 is in the x86-64 baseline, and the four unaligned
        // 16-byte loads are within `block`, which is 64 bytes long.
        let m = |k: usize| unsafe {
            let v = _mm_loadu_si128(p.add(k));
            u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8))) as u16)
        };
        return m(0) | m(1) << 16 | m(2) << 32 | m(3) << 48;
    }
    let end = (at + 64).min(buf.len());
    let mut mask = 0u64;
    for (i, &b) in buf.get(at..end).unwrap_or(&[]).iter().enumerate() {
        mask |= u64::from(b == b'\n') << i;
    }
    mask
}

/// Byte classes of the part of an owner below the apex.
const H_DOT: u8 = 1;
const H_UPPER: u8 = 2;
const H_SPECIAL: u8 = 4;
const H_NON_LDH: u8 = 8;

static HEAD_CLASS: [u8; 256] = {
    let mut t = [H_NON_LDH; 256];
    let mut c = 0usize;
    while c < 256 {
        let b = c as u8;
        t[c] = if b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' {
            0
        } else if b.is_ascii_uppercase() {
            H_UPPER
        } else if b == b'.' {
            H_DOT | H_NON_LDH
        } else if matches!(b, b'\\' | b' ' | b'\r' | b'\n' | b';' | b'"' | b'(' | b')') {
            H_SPECIAL | H_NON_LDH
        } else {
            H_NON_LDH
        };
        c += 1;
    }
    t
};

/// [`extract_in`] into new buffers.
#[cfg(test)]
fn extract(buf: &[u8], start: usize, end: usize, eof: bool, o: &FastOpts<'_>) -> Chunk {
    extract_in(buf, (start, end), eof, o, Buffers::default())
}

/// Extracts, into the buffers `b` (see [`Buffers`]), the lines of
/// `buf[start..end]` (`start` at a line start; `end` at a line start or at
/// `buf.len()`) for as long as they fit the profile. `eof`: the data ends
/// at `end` (a last line without a newline is whole).
///
/// On an x86-64 CPU with AVX2 and BMI2 the same code is compiled for them
/// ([`extract_avx2`]): the SSE2 intrinsics get three-operand encodings
/// (no register copies) and variable shifts and masks one instruction
/// each, for a fifth fewer instructions.
pub(crate) fn extract_in(
    buf: &[u8],
    (start, end): (usize, usize),
    eof: bool,
    o: &FastOpts<'_>,
    b: Buffers,
) -> Chunk {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
    {
        // SAFETY: the CPU has the features `extract_avx2` is compiled for.
        return unsafe { extract_avx2(buf, start, end, eof, o, b) };
    }
    extract_impl::<false>(buf, start, end, eof, o, b)
}

/// [`extract_in`] compiled for AVX2 and BMI2 (the same source).
///
/// # Safety
/// The CPU must have AVX2, BMI1 and BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2")]
unsafe fn extract_avx2(
    buf: &[u8],
    start: usize,
    end: usize,
    eof: bool,
    o: &FastOpts<'_>,
    b: Buffers,
) -> Chunk {
    extract_impl::<true>(buf, start, end, eof, o, b)
}

/// [`extract_in`] for the baseline of the target (SSE2 on x86-64).
#[cfg(test)]
fn extract_baseline(buf: &[u8], start: usize, end: usize, eof: bool, o: &FastOpts<'_>) -> Chunk {
    extract_impl::<false>(buf, start, end, eof, o, Buffers::default())
}

/// [`extract_in`]; `W`: with the AVX2 comparisons (see [`eq_mask32`]).
#[inline(always)]
fn extract_impl<const W: bool>(
    buf: &[u8],
    start: usize,
    end: usize,
    eof: bool,
    o: &FastOpts<'_>,
    b: Buffers,
) -> Chunk {
    let apex = o.apex;
    let root = apex == b".";
    let mut c = Chunk {
        next: start,
        stop: Stop::End,
        lines: 0,
        apex_records: 0,
        same_registered: 0,
        deeper_records: 0,
        outside_records: 0,
        deeper: b.deeper,
        outside: b.outside,
        regs: b.regs,
        orders: ORDERS_ALL,
        ns_names: Vec::new(),
        ns_pairs: b.ns_pairs,
        text: b.text,
        copied: o.copy,
        idns: b.idns,
        idn_text: b.idn_text,
        last_owner: (start, 0),
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
        settle: b.settle,
    };
    let mut settle = c.settle.take();
    c.active = settle.as_mut().is_some_and(|w| w.ready());
    let active = c.active;
    // What the settler counts without being asked (only when it settles).
    let letters = match &settle {
        Some(w) if active => Letters {
            lengths_cat: w.letters(),
            digits: w.letters_and_digits(),
            hyphens: w.hyphens_as_letters(),
        },
        _ => Letters::default(),
    };
    let mut ns_ids: HashMap<Box<[u8]>, u32, FxBuild> = HashMap::default();
    let mut owned_target: Vec<u8> = Vec::new();
    let mut cache = RestCache::default();
    let mut chars: Vec<char> = Vec::new();
    let mut pos = start;
    let (mut prev_at, mut prev_len) = (start, 0usize);
    let mut kind = Kind::None;
    // Lines of the current owner after its first.
    let mut run = 0u64;
    let mut last_reg: Option<(usize, usize)> = None;
    // The lines of the usual kinds go through `quick_lines` (see there).
    // (With a settler that is not ready, the general steps below read
    // every line: `quick_lines` asks a settler, when there is one, about
    // every new plain label.)
    let quick = (active || settle.is_none())
        && !o.ns
        && apex.len() > 1
        && apex.last() == Some(&b'.')
        && apex[0] != b'.'
        && !apex.windows(2).any(|w| w == b"..");
    while pos < end {
        if quick {
            let mut k = Carry { prev_at, prev_len, kind, run, last_reg, ns_fields: false };
            pos = quick_lines::<W>(
                &mut c,
                &mut settle,
                &mut cache,
                &mut k,
                (buf, pos, end),
                o,
                letters,
            );
            Carry { prev_at, prev_len, kind, run, last_reg, .. } = k;
            if pos >= end {
                break;
            }
        }
        let (line_end, next) = match next_newline::<W, false>(buf, pos, end) {
            Some(k) => (k, k + 1),
            None if eof => (end, end),
            None => {
                c.stop = Stop::NeedMore;
                break;
            }
        };
        let p = prev_len;
        // The text after the owner (from `at`), as the general parser reads
        // it, with the NS target; fully checked on an owner's first line.
        let mut rest_from = |at: usize, first: bool| {
            check_rest::<W>(
                &mut cache,
                buf,
                (at, line_end),
                (o.ns, first),
                o.origin,
                &mut owned_target,
            )
        };
        let rest;
        // Most lines repeat the previous owner: counted, nothing else. The
        // previous owner is followed by its tab, so comparing one byte more
        // checks this line's tab too (and that the line is long enough: an
        // owner has no newline).
        if p > 0 && same_at::<W, false>(buf, pos, prev_at, p + 1) {
            rest = rest_from(pos + p, false);
            if rest == Rest::Slow {
                c.stop = Stop::Slow;
                break;
            }
            run += 1;
        } else {
            count_run(&mut c, kind, run);
            run = 0;
            let mut line = &buf[pos..line_end];
            if let [head @ .., b'\r'] = line {
                line = head;
            }
            let Some(&first) = line.first() else {
                c.stop = Stop::Slow;
                break;
            };
            if matches!(first, b' ' | b'\t' | b';' | b'$') {
                c.stop = Stop::Slow;
                break;
            }
            // The owner's tab and classes from one pass when it is short
            // (`classes` is kept only when the tab is in its 32 bytes).
            let mut classes =
                Classes32::quick::<W, false>(buf, pos).or_else(|| Classes32::load(buf, pos));
            let tab = match classes {
                Some(k) if k.tab != 0 => k.tab.trailing_zeros() as usize,
                _ => {
                    classes = None;
                    first_tab(line).unwrap_or(usize::MAX)
                }
            };
            // A tab past the line is on a later line: none on this one.
            if tab >= line.len() {
                c.stop = Stop::Slow;
                break;
            }
            let fold = |bytes: &[u8]| match classes {
                Some(k) => k.flags(bytes.len()),
                None => bytes.iter().fold(0u8, |f, &b| f | HEAD_CLASS[b as usize]),
            };
            let owner = &line[..tab];
            let (n, a) = (owner.len(), apex.len());
            // No empty label (but the root): from the dots of the classes
            // when they cover the owner. The wire length is bounded by the
            // line's: longer owners go to the general parser.
            let labels_ok = n <= 1
                || match classes {
                    Some(k) if n < 32 => {
                        let dots = k.dot & low_bits(n);
                        no_empty_label(dots, n)
                    }
                    _ => {
                        owner[0] != b'.'
                            && n < crate::idna2008::MAX_NAME_OCTETS
                            && !owner.windows(2).any(|w| w == b"..")
                    }
                };
            if owner.last() != Some(&b'.') || !labels_ok {
                c.stop = Stop::Slow;
                break;
            }
            rest = rest_from(pos + tab, true);
            if rest == Rest::Slow {
                c.stop = Stop::Slow;
                break;
            }
            // Under the apex: `head.apex` (`head.` for the root).
            let exact = n > a && same_bytes(&owner[n - a..], apex);
            let under = (exact || (n > a && owner[n - a..].eq_ignore_ascii_case(apex)))
                && (root || owner[n - a - 1] == b'.');
            if under {
                let head = &owner[..n - a - usize::from(!root)];
                let f = fold(head);
                if f & H_SPECIAL != 0 || head.is_empty() {
                    c.stop = Stop::Slow;
                    break;
                }
                if f & H_DOT == 0 {
                    if head.len() > usize::from(u16::MAX) {
                        c.stop = Stop::Slow;
                        break;
                    }
                    let label = head;
                    let upper = f & H_UPPER != 0;
                    let again = last_reg.is_some_and(|(s, l)| same_bytes(&buf[s..s + l], label));
                    if again {
                        // The last registered owner again, after deeper
                        // names (canonical order puts them there).
                        c.same_registered += 1;
                        kind = Kind::Registered;
                    } else {
                        if upper {
                            c.orders = 0;
                        } else if let Some((s, l)) = last_reg {
                            c.orders = orders_increasing_at::<W>(
                                c.orders,
                                buf,
                                (s, l),
                                (pos, label.len()),
                            );
                        }
                        last_reg = Some((pos, label.len()));
                        // Plain: lower-case LDH, at most 63 octets, no
                        // hyphen at either end nor in positions 3 and 4
                        // (`idna2008::is_plain_ldh`, from the flags above).
                        let m = label.len();
                        let plain = f & (H_UPPER | H_NON_LDH) == 0
                            && m <= crate::idna2008::MAX_LABEL_OCTETS
                            && crate::idna2008::hyphens_allowed(label);
                        debug_assert_eq!(plain, crate::idna2008::is_plain_ldh(label) && !upper);
                        kind = Kind::Registered;
                        // With a settler (see `super::settle`), a settled
                        // label is only counted.
                        if !(active
                            && settle_label(&mut c, &mut settle, buf, (pos, m), plain, None))
                        {
                            if plain && o.copy {
                                push_text(&mut c.text, buf, pos, m);
                            }
                            if !plain && !upper {
                                idn_forms(&mut c, label, &mut chars);
                            }
                            c.regs.push(Reg {
                                at: pos,
                                line: c.lines as u32,
                                len: m as u16,
                                plain,
                            });
                        }
                    }
                } else {
                    c.deeper_records += 1;
                    c.deeper.push(owner_hash(owner, f & H_UPPER != 0 || !exact));
                    kind = Kind::Deeper;
                }
            } else {
                let f = fold(owner);
                if f & H_SPECIAL != 0 {
                    c.stop = Stop::Slow;
                    break;
                }
                if n == a && owner.eq_ignore_ascii_case(apex) {
                    c.apex_records += 1;
                    kind = Kind::Apex;
                } else {
                    c.outside_records += 1;
                    c.outside.push(owner_hash(owner, f & H_UPPER != 0));
                    kind = Kind::Outside;
                }
            }
            prev_at = pos;
            prev_len = tab;
        }
        if o.ns && matches!(kind, Kind::Registered) {
            match rest {
                Rest::Ns(r) => intern_ns(&mut c, &mut ns_ids, &buf[r]),
                Rest::NsOwned => intern_ns(&mut c, &mut ns_ids, &owned_target),
                _ => {}
            }
        }
        c.lines += 1;
        pos = next;
    }
    count_run(&mut c, kind, run);
    c.next = pos;
    c.settle = settle;
    c.last_reg = last_reg;
    if !ns_ids.is_empty() {
        let mut names: Vec<Box<[u8]>> = vec![Box::default(); ns_ids.len()];
        for (k, id) in ns_ids {
            names[id as usize] = k;
        }
        c.ns_names = names;
    }
    c.last_owner = (prev_at, prev_len);
    c.last_kind = kind;
    c
}

/// The plain labels a settler counts without being asked, as of the
/// chunk's start: by length, under a category ([`SettleWorker::letters`]),
/// those of letters and digits too when `digits` is set
/// ([`SettleWorker::letters_and_digits`]), with hyphens too when `hyphens`
/// is ([`SettleWorker::hyphens_as_letters`]).
#[derive(Clone, Copy, Default)]
struct Letters {
    lengths_cat: (u64, usize),
    digits: Option<bool>,
    /// [`SettleWorker::hyphens_as_letters`].
    hyphens: bool,
}

/// The state [`extract_impl`] carries from line to line, handed to
/// [`quick_lines`] and back.
struct Carry {
    /// The owner of the last line with a new owner: `buf[prev_at..]`,
    /// `prev_len` octets (0: none yet).
    prev_at: usize,
    prev_len: usize,
    /// What that owner is.
    kind: Kind,
    /// Lines of that owner after its first, not yet counted.
    run: u64,
    /// The last registered label (position and length).
    last_reg: Option<(usize, usize)>,
    /// Whether the line at `prev_at` has, right after its owner, the
    /// fields of [`RestCache::ns`] (as [`quick_lines_in`] found them; false
    /// when not known).
    ns_fields: bool,
}

impl Carry {
    /// The line at `at` has a new owner of `len` octets, of this kind: the
    /// lines of the last owner after its first are counted.
    #[inline(always)]
    fn new_owner(&mut self, c: &mut Chunk, kind: Kind, (at, len): (usize, usize)) {
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
/// - a line of the last owner whose text after the owner [`RestCache`]
///   shows to be a record ([`rest_cached`]);
/// - the first line of a new owner that is a plain label right under the
///   apex as written (lower-case LDH, not the last registered one again),
///   an NS record whose fields the cache knows and whose target is as
///   written ([`target_fast`]);
/// - the first line of a new owner deeper under the apex, in lower-case
///   LDH, of a record whose fields are those of one of the last two that
///   are not NS ([`other_cached`]: glue, mostly).
///
/// Only with a settler that is ready, or none, and NS targets not
/// collected, under an apex other than the root (see `quick` in
/// [`extract_impl`]). A line is left whole to the caller: nothing of it is
/// counted or kept here.
///
/// The loop is short and has few variables, which the compiler keeps in
/// registers; the general loop, with its many cases, keeps most of its
/// own on the stack.
#[inline(always)]
fn quick_lines<const W: bool>(
    c: &mut Chunk,
    settle: &mut Option<Box<dyn SettleWorker>>,
    cache: &mut RestCache,
    k: &mut Carry,
    (buf, pos, end): (&[u8], usize, usize),
    o: &FastOpts<'_>,
    letters: Letters,
) -> usize {
    // The lines that start in the zone, then the others (near the end of
    // the buffer), with their bounds checked.
    let zone = end.min(buf.len().saturating_sub(QUICK_REACH));
    let pos = quick_lines_in::<W, true>(c, settle, cache, k, (buf, pos, end), zone, o, letters);
    if pos < zone {
        return pos;
    }
    quick_lines_in::<W, false>(c, settle, cache, k, (buf, pos, end), end, o, letters)
}

/// How far past the start of a line the loads of [`quick_lines_in`] may
/// read: the owner of the last line (under 255 octets: longer ones go to
/// the general parser) and 32 bytes after it, or 128 bytes for the
/// newline, a cached field and a target. Lines that start at least this
/// far from the end of the buffer are in its zone, where the loads need
/// no bounds check (`Z`, [`fits32_in`]).
const QUICK_REACH: usize = 320;

/// [`quick_lines`] for the lines of `buf[pos..end]` that start before
/// `starts`; `Z`: `starts` is at least [`QUICK_REACH`] bytes before the
/// end of `buf`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn quick_lines_in<const W: bool, const Z: bool>(
    c: &mut Chunk,
    settle: &mut Option<Box<dyn SettleWorker>>,
    cache: &mut RestCache,
    k: &mut Carry,
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
    while pos < starts
        && let Some(line_end) = next_newline::<W, Z>(buf, pos, end)
    {
        debug_assert!(!Z || pos + QUICK_REACH <= buf.len());
        let p = k.prev_len;
        let kt = cache.ns.1;
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
            // The rest is a record ([`rest_cached`]): with the NS fields
            // (which hold no newline), when a target starts after them.
            let record = if whole {
                let at = pos + p + kt;
                debug_assert!(same_at::<W, false>(buf, pos + p, cache.ns.0, kt));
                target_starts(buf, at, line_end)
            } else {
                rest_cached::<W, Z>(cache, buf, (pos + p, line_end))
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
            if n <= a + 1 || pos + n >= line_end {
                break;
            }
            let m = n - a - 1;
            // A dot before the apex (`n` < 32: the apex is in the 32 bytes
            // from the dot).
            let apex_eq = eq_mask32_to::<W, Z>(buf, pos + m + 1, &apex32);
            let at_apex = match apex_eq {
                Some(eq) => eq & low_bits(a) == low_bits(a),
                None => same_bytes(&buf[pos + m + 1..pos + n], apex),
            };
            if cl.dot & 1 << m == 0 || !at_apex {
                break;
            }
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
            } else {
                // No hyphen at either end, nor in both positions 3 and 4
                // (`idna2008::hyphens_allowed`), from the hyphen mask.
                let (digits, hyphens) = (cl.digit & low_bits(m), cl.hyphen & low_bits(m));
                let ends = 1 | 1 << (m - 1);
                let hyphens_ok = hyphens & ends == 0 && hyphens & 0b1100 != 0b1100;
                debug_assert_eq!(hyphens_ok, crate::idna2008::hyphens_allowed(&buf[pos..pos + m]));
                if !hyphens_ok {
                    break;
                }
                // Not the last registered label again; the orders after it.
                let orders = match k.last_reg {
                    Some(last) => match orders_unless_same::<W, Z>(c.orders, buf, last, (pos, m)) {
                        Some(o) => o,
                        None => break,
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
                    break;
                }
                k.new_owner(c, Kind::Registered, (pos, n));
                k.ns_fields = true;
                c.orders = orders;
                k.last_reg = Some((pos, m));
                // Letters only, or letters and digits, and hyphens, with a
                // letter, of a length the settler counts: counted here (see
                // `SettleWorker::letters`, `SettleWorker::letters_and_digits`,
                // `SettleWorker::hyphens_as_letters`); else asked.
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
                    debug_assert!(settle.as_mut().is_none_or(|w| {
                        w.settle_ldh(&buf[pos..pos + m], digits, hyphens) == v
                    }));
                    count_settled(c, (pos, m), v)
                } else {
                    settle.is_some()
                        && settle_label(c, settle, buf, (pos, m), true, Some((digits, hyphens)))
                };
                if !settled {
                    if o.copy {
                        push_text(&mut c.text, buf, pos, m);
                    }
                    c.regs.push(Reg { at: pos, line: c.lines as u32, len: m as u16, plain: true });
                }
            }
        }
        c.lines += 1;
        pos = line_end + 1;
    }
    pos
}

/// Computes the IDNA2008 forms of a new registered label that is not
/// plain (most are `xn--` labels) and keeps them when it is a valid IDN
/// whose A-label is its text; anything else is left to the collector.
fn idn_forms(c: &mut Chunk, label: &[u8], chars: &mut Vec<char>) {
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
fn push_text(text: &mut Vec<u8>, buf: &[u8], at: usize, n: usize) {
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
fn count_run(c: &mut Chunk, kind: Kind, run: u64) {
    match kind {
        Kind::Apex => c.apex_records += run,
        Kind::Registered => c.same_registered += run,
        Kind::Deeper => c.deeper_records += run,
        Kind::Outside => c.outside_records += run,
        Kind::None => {}
    }
}

/// Adds the NS target `target` to the last registered label of the chunk.
fn intern_ns(c: &mut Chunk, ids: &mut HashMap<Box<[u8]>, u32, FxBuild>, target: &[u8]) {
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

/// Asks the settler (see [`super::settle`]) about the new registered label
/// at `pos` (`m` octets; `plain`: lower-case LDH; `ldh`: the masks of its
/// digits and hyphens when the caller has them), in a chunk it is asked
/// about every plain label of, and keeps track of the first and last
/// registered labels; returns whether the label was settled (only counted:
/// not to be pushed to `regs`).
#[inline(always)]
fn settle_label(
    c: &mut Chunk,
    settle: &mut Option<Box<dyn SettleWorker>>,
    buf: &[u8],
    (pos, m): (usize, usize),
    plain: bool,
    ldh: Option<(u32, u32)>,
) -> bool {
    let verdict = match (settle, ldh) {
        (Some(w), Some((digits, hyphens))) if plain => {
            Some(w.settle_ldh(&buf[pos..pos + m], digits, hyphens))
        }
        (Some(w), _) if plain => Some(w.settle(&buf[pos..pos + m], &buf[pos..])),
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

/// Counts the registered label at `buf[pos..pos + m]` when the settler's
/// verdict is [`Settled::Count`] or [`Settled::Assume`] (only counted,
/// under its category); false for the other verdicts (the label is
/// stored).
#[inline(always)]
fn count_settled(c: &mut Chunk, (pos, m): (usize, usize), v: Settled) -> bool {
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
fn owner_hash(owner: &[u8], upper: bool) -> u64 {
    if !owner.iter().all(|&b| AS_WRITTEN[usize::from(b)] || b.is_ascii_uppercase())
        && let Ok(p) = name::parse(owner)
    {
        let mut labels = p.labels;
        name::lower(&mut labels);
        return hash_bytes(name::present(&labels).as_bytes());
    }
    if upper { hash_bytes(&owner.to_ascii_lowercase()) } else { hash_bytes(owner) }
}

/// What the general parser ([`super::zone`]) makes of the text after a
/// line's owner.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Rest {
    /// A record that is not NS (its RDATA is not read: a `(` or a quote
    /// there is data, the profile having one record per line), or an NS
    /// record whose target resolves, when targets are not wanted.
    Record,
    /// An NS record whose target, `buf[range]`, is already in the form the
    /// general parser gives it (lower case, absolute, nothing to escape).
    Ns(std::ops::Range<usize>),
    /// An NS record whose target it resolves (upper case, octets to
    /// escape…): into the caller's buffer.
    NsOwned,
    /// A line the general parser reports as malformed (no record type; an
    /// NS record without a target, or with one that does not resolve) or
    /// reads apart (`;`, `(`, `)`, `"` or `\` before the RDATA): the fast
    /// path stops there and leaves it to the general parser.
    Slow,
}

/// The TTL, class and type fields of the last NS line and of the last
/// other line, with their separators: a line whose text after the owner
/// starts with the same bytes has the same fields, found by one comparison
/// ([`same_at`]).
#[derive(Clone, Copy, Default)]
struct RestCache {
    /// `buf[at..at + len]`, up to the target (at most 32 bytes; 0: none).
    ns: (usize, usize),
    /// Up to and with the separator after the type, of the last two
    /// other lines of different fields, the most recent first (the DS and
    /// glue A records of a dump alternate).
    other: [(usize, usize); 2],
}

/// [`Rest`] of `buf[at..end]`, the text of a line after its owner. The NS
/// target is read when `want`; else checked to resolve when `validate`;
/// else only to be there. (The fast path validates the targets of an
/// owner's first line, which decides whether the owner is registered, and
/// of every line when targets are collected; a later line of an owner
/// whose NS target is not a name is a record to it and a malformed line
/// to the general parser.)
#[inline(always)]
fn check_rest<const W: bool>(
    cache: &mut RestCache,
    buf: &[u8],
    (at, end): (usize, usize),
    (want, validate): (bool, bool),
    origin: Option<&[Vec<u8>]>,
    owned: &mut Vec<u8>,
) -> Rest {
    let validate = validate || want;
    if !validate {
        if rest_cached::<W, false>(cache, buf, (at, end)) {
            return Rest::Record;
        }
    } else {
        let (c, k) = cache.ns;
        if k > 0 && at + k <= end && same_at::<W, false>(buf, at, c, k) {
            if target_fast::<W, false>(buf, at + k, end) {
                return if want { Rest::Ns(at + k..end) } else { Rest::Record };
            }
        } else if other_cached::<W, false>(cache, buf, (at, end)) {
            return Rest::Record;
        }
    }
    check_rest_fields(cache, buf, (at, end), (want, validate), origin, owned)
}

/// Whether `buf[at..end]`, the text of a line after its owner, is a
/// record by [`RestCache`] alone, when its NS target is neither read nor
/// validated: [`check_rest`] returns [`Rest::Record`] for it.
#[inline(always)]
fn rest_cached<const W: bool, const Z: bool>(
    cache: &mut RestCache,
    buf: &[u8],
    (at, end): (usize, usize),
) -> bool {
    let (c, k) = cache.ns;
    if k > 0 && at + k <= end && same_at::<W, Z>(buf, at, c, k) {
        return target_starts(buf, at + k, end);
    }
    other_cached::<W, Z>(cache, buf, (at, end))
}

/// Whether `buf[at..end]` starts with the fields of one of the last two
/// records that are not NS ([`RestCache::other`]), the one found made
/// the most recent.
#[inline(always)]
fn other_cached<const W: bool, const Z: bool>(
    cache: &mut RestCache,
    buf: &[u8],
    (at, end): (usize, usize),
) -> bool {
    let hit = |(c, k): (usize, usize)| k > 0 && at + k <= end && same_at::<W, Z>(buf, at, c, k);
    if hit(cache.other[0]) {
        return true;
    }
    if hit(cache.other[1]) {
        cache.other.swap(0, 1);
        return true;
    }
    false
}

/// Whether an NS target starts at `at`, right after the fields of a line
/// that ends at `end`: before the end, and not a comment, a parenthesis,
/// a quote or an escape ([`TARGET_START`]).
#[inline(always)]
fn target_starts(buf: &[u8], at: usize, end: usize) -> bool {
    at < end && TARGET_START[usize::from(buf[at])]
}

/// Octets that start an NS target where the general parser reads one:
/// not a separator (tab, space, CR) nor a byte of [`tokenizer_byte`].
static TARGET_START: [bool; 256] = {
    let mut t = [true; 256];
    let mut b = 0usize;
    while b < 256 {
        let c = b as u8;
        t[b] = !matches!(c, b'\t' | b' ' | b'\r') && !tokenizer_byte(c);
        b += 1;
    }
    t
};

/// Bytes the tokenizer of the general parser reads apart: a comment, a
/// parenthesis, a quote, an escape.
#[inline]
const fn tokenizer_byte(b: u8) -> bool {
    matches!(b, b';' | b'(' | b')' | b'"' | b'\\')
}

/// [`check_rest`] field by field, as the general parser reads them (split
/// on tabs, spaces and CRs; TTLs and classes, then the type), filling the
/// cache.
#[inline(never)]
fn check_rest_fields(
    cache: &mut RestCache,
    buf: &[u8],
    (at, end): (usize, usize),
    (want, validate): (bool, bool),
    origin: Option<&[Vec<u8>]>,
    owned: &mut Vec<u8>,
) -> Rest {
    let rest = &buf[at..end];
    let mut fields = Fields { rest, at: 0 };
    let text = |(s, e): (usize, usize)| &rest[s..e];
    let ty = loop {
        match fields.next() {
            Some(f) if is_ttl(text(f)) || is_class(text(f)) => continue,
            Some(f) => break f,
            None => return Rest::Slow,
        }
    };
    if rest[..ty.1].iter().any(|&b| tokenizer_byte(b)) {
        return Rest::Slow;
    }
    if !text(ty).eq_ignore_ascii_case(b"NS") {
        if ty.1 < rest.len() && ty.1 < 32 {
            cache.other = [(at, ty.1 + 1), cache.other[0]];
        }
        return Rest::Record;
    }
    let Some(t) = fields.next() else { return Rest::Slow };
    if t.0 <= 32 {
        cache.ns = (at, t.0);
    }
    let target = text(t);
    if target.iter().any(|&b| tokenizer_byte(b)) {
        return Rest::Slow;
    }
    if !validate {
        return Rest::Record;
    }
    if as_written(target) {
        return if want { Rest::Ns(at + t.0..at + t.1) } else { Rest::Record };
    }
    match resolve_target(target, origin, owned) {
        true if want => Rest::NsOwned,
        true => Rest::Record,
        false => Rest::Slow,
    }
}

/// Whether `buf[at..end]` is, as a whole, one NS target in the form the
/// general parser gives it ([`as_written`]), found for a target of at
/// most 32 bytes that 32 bytes can be loaded from in one SSE2 pass: only
/// lower-case LDH octets, dots, slashes and underscores, a final dot, no
/// empty label. False sends the line to [`check_rest_fields`], which decides.
#[inline(always)]
fn target_fast<const W: bool, const Z: bool>(buf: &[u8], at: usize, end: usize) -> bool {
    if !(end > at && end - at <= 32 && buf[end - 1] == b'.') {
        return false;
    }
    let Some((ok, dots)) = target_masks::<W, Z>(buf, at) else { return false };
    let live = low_bits(end - at);
    ok & live == live && no_empty_label(dots & live, end - at)
}

/// The masks of [`target_fast`] for `buf[at..at + 32]`, when 32 bytes can
/// be loaded (x86-64 only): octets an NS target keeps as written (`-./`,
/// digits, `_`, `a-z`), and dots; `W`: as in [`eq_mask32`].
#[inline(always)]
fn target_masks<const W: bool, const Z: bool>(buf: &[u8], at: usize) -> Option<(u32, u32)> {
    #[cfg(target_arch = "x86_64")]
    if W && fits32_in::<Z>(buf, at) {
        // SAFETY: `W` is set only on a CPU with AVX2 (see `extract_in`), and
        // 32 bytes are within `buf` from `at`.
        return Some(unsafe { avx2::target_masks(buf.as_ptr().add(at)) });
    }
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_or_si128, _mm_set1_epi8};
        // SAFETY (each intrinsic): SSE2 is in the x86-64 baseline; no
        // memory is read.
        sse2_masks32::<2, Z>(buf, at, |v| unsafe {
            let is = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            // `-./0-9` (the slash is written as it is too), `_`, `a-z`.
            let ok =
                _mm_or_si128(_mm_or_si128(in_range(v, b'-', 13), in_range(v, b'a', 26)), is(b'_'));
            [ok, is(b'.')]
        })
        .map(|[ok, dot]| (ok, dot))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (buf, at);
        None
    }
}

/// Octets a name keeps as they are in the lower-case presentation format
/// of [`name::present`]: printable ASCII but upper-case letters and
/// `\ " ( ) ; @ $` (the dot separates labels).
static AS_WRITTEN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0x21usize;
    while b <= 0x7e {
        let c = b as u8;
        t[b] = !c.is_ascii_uppercase()
            && !matches!(c, b'\\' | b'"' | b'(' | b')' | b';' | b'@' | b'$');
        b += 1;
    }
    t
};

/// Whether an NS target is an absolute name that the general parser
/// accepts (no empty label, at most 255 octets in wire format) written as
/// [`name::present`] writes it.
fn as_written(t: &[u8]) -> bool {
    let n = t.len();
    n > 0
        && n < crate::idna2008::MAX_NAME_OCTETS
        && t[n - 1] == b'.'
        && (n == 1 || (t[0] != b'.' && !t.windows(2).any(|w| w == b"..")))
        && t.iter().all(|&b| AS_WRITTEN[usize::from(b)])
}

/// Resolves an NS target as the general parser does
/// ([`super::zone::resolve_in`]) into `owned`, in lower-case presentation
/// format; false when it does not resolve.
fn resolve_target(target: &[u8], origin: Option<&[Vec<u8>]>, owned: &mut Vec<u8>) -> bool {
    let Ok(labels) = super::zone::resolve_in(origin, target) else { return false };
    owned.clear();
    owned.extend_from_slice(name::present(&labels).as_bytes());
    true
}

/// The fields of a line after its owner as the tokenizer of the general
/// parser splits them (on tabs, spaces and CRs), as ranges of `rest`.
struct Fields<'a> {
    rest: &'a [u8],
    at: usize,
}

impl Iterator for Fields<'_> {
    type Item = (usize, usize);

    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        let sep = |b: &u8| matches!(b, b'\t' | b' ' | b'\r');
        let start = self.at + self.rest[self.at..].iter().position(|b| !sep(b))?;
        let len = self.rest[start..].iter().position(sep).unwrap_or(self.rest.len() - start);
        self.at = start + len;
        Some((start, start + len))
    }
}

/// Merges a chunk extracted from `buf` (whose byte 0 is at offset `base`
/// of the source) into the collector, after the chunks before it: counts,
/// labels (deduplicated), NS targets, and the zone state (line number,
/// previous owner). Returns the chunk's buffers for the next one.
/// `in_block`: the chunk is one of the block of IDN labels read ahead
/// (see [`run`]), whose IDN forms the set takes whole.
pub(crate) fn merge(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    mut c: Chunk,
    in_block: bool,
) -> Result<Buffers, Error> {
    let acc = &mut col.set.accounting;
    acc.lines += c.lines;
    acc.record_lines += c.lines;
    acc.records += c.lines;
    acc.apex_records += c.apex_records;
    acc.duplicate_records += c.same_registered;
    acc.deeper_records += c.deeper_records;
    acc.outside_records += c.outside_records;
    col.count_names(&c.deeper, &c.outside);

    let label = |g: &Reg| &buf[g.at..g.at + usize::from(g.len)];
    // Borrow the text from the buffer only when it is a map kept as is.
    let borrow = st.mapped && config.label_text == LabelText::Borrow;
    let line0 = st.line;
    let loc = |g: &Reg| Loc {
        source: st.source,
        line: line0 + u64::from(g.line),
        offset: base + g.at as u64,
    };
    let need_ids = !c.ns_pairs.is_empty();
    let mut ids: Vec<u32> = Vec::with_capacity(if need_ids { c.regs.len() } else { 0 });
    let mut last_id = NONE;
    let mut regs = &c.regs[..];
    // The next IDN with its forms computed (by its index into `c.regs`).
    let mut idns = c.idns.iter().peekable();
    let mut text_at = 0usize;
    let (mut settled, mut counted) = (c.settled, c.counted);
    let (mut tags, mut keeps) = (&c.tags[..], &c.keeps[..]);
    // Regs skipped at the start.
    let mut skip = 0u32;
    // Without a settler, the first registered label is the first of `regs`.
    let (first_reg, last_reg) = (
        c.first_reg.or_else(|| c.regs.first().map(|g| (g.at, usize::from(g.len), None))),
        c.last_reg,
    );
    // The owner of the previous chunk's last line may go on here.
    if let Some((at, len, cat)) = first_reg
        && let Some(i) = col.dedup_mut().is_last(&buf[at..at + len])
    {
        col.set.accounting.duplicate_records += 1;
        last_id = i;
        match cat {
            Some(k) => settled[k] -= 1,
            None => {
                // It is `regs[0]`.
                skip = 1;
                if let Some(&(0, k)) = tags.first() {
                    counted[k as usize] -= 1;
                    tags = &tags[1..];
                }
                if keeps.first() == Some(&0) {
                    keeps = &keeps[1..];
                }
                ids.extend(need_ids.then_some(i));
                if regs[0].plain {
                    text_at += usize::from(regs[0].len);
                }
                regs = &regs[1..];
                if idns.peek().is_some_and(|d| d.reg == 0) {
                    idns.next();
                }
            }
        }
    }
    let settled_n: u64 = settled.iter().sum();
    let bulk = match (first_reg, last_reg) {
        (Some((fa, fl, _)), Some((la, ll))) if c.orders != 0 => col.dedup_mut().append_sorted(
            (&buf[fa..fa + fl], &buf[la..la + ll]),
            regs.len() as u32,
            c.orders,
            (settled_n > 0, c.last_settled),
        ),
        _ => false,
    };
    // Settled labels are only counted: a chunk of them that does not keep
    // the keys sorted cannot be registered one by one (`run` extracts such
    // chunks again without settling, see `settled_out_of_order`), so the
    // read starts again without settling, as when the deduplicator loses
    // settled keys (`Dedup::lost`).
    if settled_n > 0 && !bulk {
        return Err(col.unsettle());
    }
    if settled_n > 0 {
        col.set.settled_assumed += c.assumed;
        col.set.accounting.registered_labels += settled_n;
        col.set.settled_unstored += settled_n;
        for (t, n) in col.set.settled.iter_mut().zip(settled) {
            *t += n;
        }
    }
    // With the text copied by the chunk, it goes into the arena at once.
    let arena_base = col.set.arena.len() as u64;
    // Records hold arena positions up to `MAX_RECORD_TEXT`: past it, the
    // labels go one by one (and get forms entries).
    let copied = bulk
        && !borrow
        && c.copied
        && arena_base + (c.text.len() - text_at) as u64 <= MAX_RECORD_TEXT;
    if copied {
        col.set.arena.extend_from_slice(&c.text[text_at..]);
    }
    if bulk {
        col.set.records.reserve(regs.len());
    }
    let mut text_pos = arena_base;
    let orig = |octets| if borrow { Orig::Mapped } else { Orig::Text(octets) };
    let fast = bulk && (borrow || copied);
    // The labels the settler was asked about get consecutive indexes
    // from here: they are listed, and counted, only then (otherwise they
    // are judged as others are).
    let listed = c.active && fast;
    let first_index = col.set.records.len() as u32;
    // The IDN forms of a chunk of the block of IDN labels (`in_block`: see
    // `run`) (A-label then U-label, each label after the last) become a
    // part of the set's text as they are, unless that would keep much more
    // memory than they fill: the merge copies none of them (the block is
    // merged at the end of the read, while the other threads have little
    // left to do). Other chunks' forms are copied: their buffers go to the
    // next chunks, which would otherwise grow new ones. (Unit tests adopt
    // any chunk's, however small: a block needs a settler told the labels
    // ahead, which they do not set up. The integration tests' reads
    // without a settler copy every chunk's forms.)
    // The part is the set's before any label is registered: deduplication
    // reads the keys of the labels registered before (from the part).
    let adopt = (in_block || cfg!(test))
        && c.idn_text.len() >= ADOPT_MIN
        && c.idn_text.len() * 2 >= c.idn_text.capacity();
    let adopted = adopt.then(|| std::sync::Arc::new(std::mem::take(&mut c.idn_text)));
    let part_at = adopted.as_ref().map(|t| col.set.adopt_text(std::sync::Arc::clone(t)));
    let idn_text = adopted.as_deref().unwrap_or(&c.idn_text).as_str();
    let mut k = 0;
    while k < regs.len() {
        // The common case: sorted, and plain labels' text borrowed from the
        // map or copied by the chunk (not touched again here): runs of
        // them, up to the next other label (IDNs are not plain), pushed at
        // once.
        let run = if fast { regs[k..].iter().take_while(|g| g.plain).count() } else { 0 };
        if run > 0 {
            let recs = regs[k..k + run].iter().map(|g| {
                let mut rec = LabelRecord::at(loc(g), g.len, NONE);
                if !borrow {
                    let fits = rec.set_text(text_pos);
                    debug_assert!(fits, "checked with `copied`");
                }
                text_pos += u64::from(g.len);
                rec
            });
            last_id = col.push_plain_run(loc(&regs[k]), recs)?;
            if need_ids {
                ids.extend(last_id + 1 - run as u32..=last_id);
            }
            k += run;
            continue;
        }
        let g = &regs[k];
        // Its index into `c.regs` (`regs` may start after the first).
        let reg_index = (c.regs.len() - regs.len() + k) as u32;
        k += 1;
        let idn = match idns.peek() {
            Some(d) if d.reg == reg_index => idns.next(),
            _ => None,
        };
        let id = if let Some(d) = idn {
            let ulabel = &idn_text[d.at as usize..(d.at + d.ulen) as usize];
            // `idn_forms` kept the A-label, the label's own text, before it.
            let at = u64::from(d.at).checked_sub(u64::from(g.len));
            let adopted = part_at.zip(at).map(|(p, at)| p + at);
            col.register_idn(loc(g), label(g), orig(label(g)), ulabel, bulk, adopted)?
        } else if bulk {
            col.register_new(loc(g), label(g), orig(label(g)))?
        } else {
            col.register(loc(g), label(g), orig(label(g)), KeyMode::Octets)?
        };
        if need_ids {
            ids.push(id);
        }
        last_id = id;
    }
    if need_ids {
        let global: Vec<u32> = c.ns_names.iter().map(|n| col.ns_id(n)).collect();
        for &(g, t) in &c.ns_pairs {
            col.add_ns_id(ids[g as usize], global[t as usize]);
        }
    }
    if bulk && c.last_settled && last_reg.is_some() {
        last_id = SETTLED;
    }
    if listed {
        let set = &mut col.set;
        let index = |reg: u32| first_index + reg - skip;
        set.settle_tags.extend(tags.iter().map(|&(reg, _)| index(reg)));
        set.settle_kept.extend(keeps.iter().map(|&reg| index(reg)));
        for (t, n) in set.settled.iter_mut().zip(counted) {
            *t += n;
        }
        let end = set.records.len() as u32;
        match set.settle_ranges.last_mut() {
            Some((_, e)) if *e == first_index => *e = end,
            _ => set.settle_ranges.push((first_index, end)),
        }
    }
    st.line += c.lines;
    if c.last_kind != Kind::None {
        let (at, len) = c.last_owner;
        st.prev_raw.clear();
        st.prev_raw.extend_from_slice(&buf[at..at + len]);
        st.prev_class = Some(match c.last_kind {
            Kind::Apex => Class::Apex,
            Kind::Registered => Class::Registered(last_id),
            Kind::Deeper => Class::Deeper,
            _ => Class::Outside,
        });
    }
    Ok(c.into_buffers())
}

/// Fewest octets of IDN forms a chunk of the block hands to the set whole
/// (see [`merge`]); fewer are copied. Unit tests take any (see there).
const ADOPT_MIN: usize = if cfg!(test) { 1 } else { 4096 };

/// Bytes per chunk of the parallel fast path: at most this…
const CHUNK_MAX: usize = 4 << 20;

/// Most bytes of IDN labels [`parallel`] reads ahead (see `AheadBlock`).
const AHEAD_MAX: usize = 512 << 20;
/// …and at least this.
const CHUNK_MIN: usize = 64 << 10;

/// What [`run`] tells the memory that holds the buffer it reads (a map:
/// see [`Data`]). A closure is taken as `populate`, with nothing to
/// forget.
pub(crate) trait Pages: Sync {
    /// `start..end` is about to be read by one worker.
    fn populate(&self, start: usize, end: usize);
    /// Nothing of `start..end` needs to stay mapped: it was only probed
    /// (for the chunks' bounds), and is populated again when read.
    fn forget(&self, _start: usize, _end: usize) {}
}

impl<F: Fn(usize, usize) + Sync> Pages for F {
    fn populate(&self, start: usize, end: usize) {
        self(start, end);
    }
}

/// The pages of a map are populated before a chunk is read, and those that
/// probing mapped are dropped: a probe into a large folio of the page cache
/// maps all of it (2 MiB at a time when it is a huge page), so the probes
/// for the chunks' bounds, one per 4 MiB chunk, would keep about half the
/// file resident until each chunk is read.
impl Pages for Data {
    fn populate(&self, start: usize, end: usize) {
        Data::populate(self, start, end);
    }
    fn forget(&self, start: usize, end: usize) {
        self.release(start, end);
    }
}

/// Reads `buf` from `pos` with the fast path, in chunks extracted in
/// parallel on rayon's current pool and merged in order; `buf[0]` is at
/// `base` in the source, and `eof` says whether the data ends with `buf`.
/// `pages` hears of the chunks to be read ([`Pages`]).
/// `merged(start, next)` is called after each chunk is merged. Returns
/// where it stopped and why: the end of `buf`, a line for the general
/// parser, or an incomplete last line.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    pos: usize,
    eof: bool,
    opts: &FastOpts<'_>,
    pages: &dyn Pages,
    ahead: Option<&AheadBlock<'_>>,
    mut merged: impl FnMut(usize, usize) + Send,
) -> Result<(usize, Stop), Error> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex, PoisonError};
    let len = buf.len();
    if pos >= len {
        return Ok((pos, Stop::End));
    }
    let threads = rayon::current_num_threads().max(1);
    // Chunks: enough per thread that the last ones end together. With
    // `ahead`, its range is cut into chunks of its own, smaller ones (they
    // are read first, and the labels after them wait for the last).
    let (chunk_min, chunk_max) = config.chunk.map_or((CHUNK_MIN, CHUNK_MAX), |c| (c, c));
    let size = ((len - pos) / (8 * threads)).clamp(chunk_min, chunk_max);
    let block = ahead.map(|a| (a.range.0.clamp(pos, len), a.range.1.clamp(pos, len)));
    let mut bounds = vec![pos];
    let mut first = 0..0;
    let cut = |bounds: &mut Vec<usize>, to: usize, size: usize| {
        let mut s = *bounds.last().unwrap_or(&pos);
        while s < to {
            let mut e = s.saturating_add(size).min(to);
            if e < to {
                let probe = e - 1;
                e = memchr::memchr(b'\n', &buf[probe..to]).map_or(to, |k| e + k);
                // At once: a probe may map far more than it read.
                pages.forget(probe, e.max(probe + 1));
            }
            bounds.push(e);
            s = e;
        }
    };
    // Whether the labels of the block are told ahead: not when it does not
    // start a line (the caller's range is only a hint).
    let mut told = false;
    match block {
        Some((lo, hi)) if lo < hi && (lo == pos || buf[lo - 1] == b'\n') => {
            cut(&mut bounds, lo, size);
            let b0 = bounds.len() - 1;
            cut(&mut bounds, hi, (size / 4).max(chunk_min));
            first = b0..bounds.len() - 1;
            cut(&mut bounds, len, size);
            told = true;
        }
        Some((lo, hi)) => {
            // No block: nothing to tell (in no part).
            told = lo >= hi;
            cut(&mut bounds, len, size);
        }
        None => cut(&mut bounds, len, size),
    }
    let n = bounds.len() - 1;
    // The caller's probes (for the block) may have mapped pages too.
    pages.forget(pos, len);
    // Chunks are claimed in order by whichever thread is free and merged
    // in order by this one, which extracts too while the next chunk to
    // merge is not ready: no thread waits for a whole batch to end. A
    // thread claims no chunk more than `window` past the last merged one,
    // so the extracted chunks waiting for the merge stay few; none past a
    // chunk that stopped (the general parser takes over there). A panic
    // while extracting is kept in the chunk's slot and raised here.
    let window = 4 * threads;
    let slots: Mutex<Vec<Option<std::thread::Result<Chunk>>>> =
        Mutex::new((0..n).map(|_| None).collect());
    let filled = Condvar::new();
    let claim = AtomicUsize::new(0);
    let merged_upto = AtomicUsize::new(0);
    let stop_at = AtomicUsize::new(usize::MAX);
    let halt = AtomicBool::new(false);
    let lock = || slots.lock().unwrap_or_else(PoisonError::into_inner);
    // Buffers of merged chunks, for the next ones.
    let spare: Mutex<Vec<Buffers>> = Mutex::new(Vec::new());
    let take_spare = || spare.lock().unwrap_or_else(PoisonError::into_inner).pop();
    // Settling workers between chunks: a chunk takes one for its
    // extraction (and the labels it tells ahead) and gives it back, rather
    // than keeping it with its buffers until it is merged. The block's
    // chunks are all read first and held until merged: each would
    // otherwise make a worker of its own, whose memos are new memory.
    let workers: Mutex<Vec<Box<dyn SettleWorker>>> = Mutex::new(Vec::new());
    let lock_workers = || workers.lock().unwrap_or_else(PoisonError::into_inner);
    // Claims and extracts the next chunk; false when there is none to
    // claim now. `wait`: wait for the merge to catch up rather than return
    // false when the next chunk is past the window.
    // With `ahead`, the chunks of its range are claimed first (they are
    // few: the window does not hold them back), then the others in order.
    if let (Some(a), true) = (ahead, told) {
        a.settle.ahead_parts(first.len() + 1);
        let before: Vec<AheadLabel<'_>> =
            a.before.iter().map(|(l, u)| AheadLabel { alabel: l, ulabel: u.as_deref() }).collect();
        let mut w = a.settle.worker();
        w.ahead(&before, true);
        lock_workers().push(w);
    }
    let order = |p: usize| -> usize {
        if p < first.len() {
            first.start + p
        } else if p < first.end {
            p - first.len()
        } else {
            p
        }
    };
    // Whether chunk `c` is past the window: block chunks (read first) do
    // not count, neither ahead of the merge nor behind it. While the merge
    // has block chunks left, the window is wider by half their number, at
    // most twice as wide (the chunks it holds stay mapped): their labels
    // are IDN labels, each of which costs the merge about what a whole
    // line costs a worker, so a block chunk (a quarter of the usual size)
    // takes about half as long to merge as another takes to extract; the
    // workers would otherwise wait for the merge to get through the block.
    let past_window =
        |c: usize| -> bool { past_window(c, merged_upto.load(Ordering::Relaxed), &first, window) };
    let work = |wait: bool| -> bool {
        let c = loop {
            let p = claim.load(Ordering::Relaxed);
            if halt.load(Ordering::Relaxed) || p >= n {
                return false;
            }
            let c = order(p);
            if c > stop_at.load(Ordering::Relaxed) {
                if first.contains(&c) {
                    // Not needed (nothing is told then): passed over.
                    let _ = claim.compare_exchange(p, p + 1, Ordering::Relaxed, Ordering::Relaxed);
                    continue;
                }
                return false;
            }
            if past_window(c) {
                if !wait {
                    return false;
                }
                let mut guard = lock();
                while !halt.load(Ordering::Relaxed)
                    && past_window(order(claim.load(Ordering::Relaxed)))
                {
                    guard = filled.wait(guard).unwrap_or_else(PoisonError::into_inner);
                }
                continue;
            }
            if claim.compare_exchange(p, p + 1, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
                break c;
            }
        };
        let (a, b) = (bounds[c], bounds[c + 1]);
        let mut buffers = take_spare().unwrap_or_default();
        buffers.settle = lock_workers().pop();
        if first.contains(&c) {
            // A block chunk's labels are IDN labels: room for their forms
            // (about half the octets of their lines) and records at once,
            // rather than a copy into new memory at each doubling (the
            // block's buffers are neither merged nor used again until the
            // end of the read).
            buffers.idn_text.reserve((b - a) / 2);
            buffers.regs.reserve((b - a) / 64);
            buffers.idns.reserve((b - a) / 64);
        }
        // A panic (in the extraction, or in the caller's settler) is kept
        // in the chunk's slot, like a chunk, for the merge to raise: a
        // thread that unwound past its claim would leave the merge waiting
        // for the chunk forever.
        let mut chunk = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut buffers = buffers;
            if buffers.settle.is_none() {
                buffers.settle = opts.settle.map(Settle::worker);
            }
            pages.populate(a, b);
            extract_in(buf, (a, b), eof && b == len, opts, buffers)
        }));
        if chunk.as_ref().map_or(true, |k| k.stop != Stop::End) {
            stop_at.fetch_min(c, Ordering::Relaxed);
        }
        if let (Some(_), true, Ok(k)) = (ahead, first.contains(&c), chunk.as_mut()) {
            // A chunk that stopped early leaves labels to the general
            // parser: it is told incomplete.
            let complete = k.stop == Stop::End;
            if let Some(mut w) = k.settle.take() {
                let told = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let labels = if complete { idn_labels_of(buf, k) } else { Vec::new() };
                    w.ahead(&labels, complete);
                }));
                match told {
                    Ok(()) => k.settle = Some(w),
                    Err(p) => chunk = Err(p),
                }
            }
        }
        if let Some(w) = chunk.as_mut().ok().and_then(|k| k.settle.take()) {
            lock_workers().push(w);
        }
        lock()[c] = Some(chunk);
        filled.notify_all();
        true
    };
    // Wakes the waiting threads after `f` changed what they wait on.
    let announce = |f: &dyn Fn()| {
        let guard = lock();
        f();
        drop(guard);
        filled.notify_all();
    };
    let mut outcome: Result<(usize, Stop), Error> = Ok((len, Stop::End));
    let mut panic = None;
    rayon::scope(|scope| {
        // When the merge ends, and also when it unwinds: a worker waiting
        // for it to move the window would wait forever, and the scope
        // with it.
        let _halt = OnDrop(|| announce(&|| halt.store(true, Ordering::Relaxed)));
        for _ in 1..threads.min(n) {
            scope.spawn(|_| while work(true) {});
        }
        for k in 0..n {
            let chunk = loop {
                let mut guard = lock();
                if let Some(c) = guard[k].take() {
                    break c;
                }
                drop(guard);
                if !work(false) {
                    // Chunk k is being extracted by another thread.
                    guard = lock();
                    while guard[k].is_none() {
                        guard = filled.wait(guard).unwrap_or_else(PoisonError::into_inner);
                    }
                }
            };
            let mut chunk = match chunk {
                Ok(c) => c,
                Err(p) => {
                    panic = Some(p);
                    break;
                }
            };
            // Settled labels are only counted: a chunk of them whose keys
            // do not go on from the sorted keys so far (an upper-case
            // label, an unsorted input) is extracted again without the
            // settler, its labels to be registered one by one.
            if settled_out_of_order(col, buf, &chunk) {
                let (a, b) = (bounds[k], bounds[k + 1]);
                let buffers = chunk.into_buffers();
                let unsettled = FastOpts { settle: None, ..*opts };
                chunk = extract_in(buf, (a, b), eof && b == len, &unsettled, buffers);
            }
            let (next, stop) = (chunk.next, chunk.stop);
            match merge(col, config, st, buf, base, chunk, first.contains(&k)) {
                Ok(b) => spare.lock().unwrap_or_else(PoisonError::into_inner).push(b),
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
            merged(bounds[k], next);
            if stop != Stop::End {
                outcome = Ok((next, stop));
                break;
            }
            announce(&|| merged_upto.store(k + 1, Ordering::Relaxed));
        }
        // Chunks after a stop are not needed: the others end theirs
        // (`_halt`).
    });
    if let Some(p) = panic {
        std::panic::resume_unwind(p);
    }
    outcome
}

/// Whether chunk `c` has settled labels whose keys [`merge`] could not
/// count in bulk after the keys so far (see [`Dedup::continues_sorted`]).
///
/// [`Dedup::continues_sorted`]: super::dedup::Dedup::continues_sorted
fn settled_out_of_order(col: &mut Collector, buf: &[u8], c: &Chunk) -> bool {
    if c.settled.iter().all(|&n| n == 0) {
        return false;
    }
    match (c.first_reg, c.last_reg) {
        (Some((at, len, _)), Some(_)) if c.orders != 0 => {
            !col.dedup_mut().continues_sorted(&buf[at..at + len], c.orders)
        }
        _ => true,
    }
}

/// Whether chunk `c` is past the window of [`run`] when the merge has
/// merged the chunks before `m`: block chunks (`first`, read first) do not
/// count, neither ahead of the merge nor behind it; while the merge has
/// block chunks left, the window is wider by half their number, at most
/// twice as wide (see [`run`]).
fn past_window(c: usize, m: usize, first: &std::ops::Range<usize>, window: usize) -> bool {
    let outside = |k: usize| if k >= first.end { k - first.len() } else { k.min(first.start) };
    let block_left = first.end.saturating_sub(m.max(first.start));
    let wider = (block_left / 2).min(window);
    !first.contains(&c) && outside(c) >= outside(m) + window + wider
}

/// Runs its closure when dropped (also while unwinding).
struct OnDrop<F: FnMut()>(F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// The range of a buffer whose IDN labels are told ahead (see
/// [`Settle::ahead_parts`]): [`run`] reads its chunks first.
pub(crate) struct AheadBlock<'a> {
    pub(crate) range: (usize, usize),
    /// The labels read before, that are not plain: as written, and their
    /// U-labels when not ASCII; told as one more part.
    pub(crate) before: Vec<(Vec<u8>, Option<String>)>,
    pub(crate) settle: &'a dyn Settle,
}

/// The registered labels of chunk `c` that start with `xn--` (in any
/// case), with the U-labels the chunk computed.
fn idn_labels_of<'b>(buf: &'b [u8], c: &'b Chunk) -> Vec<AheadLabel<'b>> {
    let mut idns = c.idns.iter().peekable();
    let mut out = Vec::new();
    for (i, g) in c.regs.iter().enumerate() {
        let idn = match idns.peek() {
            Some(d) if d.reg as usize == i => idns.next(),
            _ => None,
        };
        let label = &buf[g.at..g.at + usize::from(g.len)];
        if !g.plain && label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--") {
            let ulabel = idn.and_then(|d| c.idn_text.get(d.at as usize..(d.at + d.ulen) as usize));
            out.push(AheadLabel { alabel: label, ulabel });
        }
    }
    out
}

/// The label right under `apex` of the owner of the line at `at`, when
/// its owner is a name below `apex` (the key of the order of a sorted
/// zone).
fn line_key<'b>(buf: &'b [u8], at: usize, apex: &[u8]) -> Option<&'b [u8]> {
    let end = buf[at..].iter().position(|&b| matches!(b, b'\t' | b' ' | b'\n' | b'\r'))?;
    let owner = &buf[at..at + end];
    let head = if apex == b"." {
        owner.strip_suffix(b".")?
    } else {
        owner.strip_suffix(apex)?.strip_suffix(b".")?
    };
    let key = head.rsplit(|&b| b == b'.').next()?;
    (!key.is_empty()).then_some(key)
}

/// Where the lines of `buf` from `from` whose [`line_key`] is at least
/// `target` start, when the keys increase (a sorted zone; lines without a
/// key are passed over): a binary search over line starts. Only a hint:
/// the read checks what it relies on.
fn idn_block(buf: &[u8], from: usize, apex: &[u8], target: &[u8]) -> usize {
    let start_at = |p: usize| -> usize {
        if p <= from || buf[p - 1] == b'\n' {
            p.max(from)
        } else {
            memchr(b'\n', &buf[p..]).map_or(buf.len(), |k| p + k + 1)
        }
    };
    let (mut lo, mut hi) = (from, buf.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // The first line with a key from `mid` (a few lines at most in a
        // zone dump).
        let mut s = start_at(mid);
        let mut key = None;
        while s < hi {
            key = line_key(buf, s, apex);
            if key.is_some() {
                break;
            }
            s = start_at(s + 1);
        }
        match key {
            Some(k) if s < hi && k < target => lo = start_at(s + 1),
            Some(_) if s < hi => hi = s,
            _ => hi = mid,
        }
    }
    start_at(lo)
}

/// Reads the mapped `source` from `pos` with the fast path ([`run`]),
/// reporting progress per chunk and, with [`LabelText::Copy`], releasing
/// the pages read. Returns where it stopped: the end, or a line for the
/// general parser.
pub(crate) fn parallel(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    source: &Data,
    pos: usize,
    apex: &[u8],
) -> Result<usize, Error> {
    let copy = config.label_text == LabelText::Copy;
    let origin = st.origin.clone();
    let opts = FastOpts {
        apex,
        origin: origin.as_deref(),
        ns: col.collect_ns,
        copy,
        settle: col.settler(config),
    };
    let buf = source.bytes();
    // The chunks of the IDN labels are read first, and their labels told
    // ahead (see `Settle::ahead_parts`).
    let mut ahead = None;
    let block = match opts.settle {
        Some(settle) if col.idn_block.is_none() => {
            Some((settle, idn_block(buf, pos, apex, b"xn--"), idn_block(buf, pos, apex, b"xn-.")))
        }
        _ => None,
    };
    // The block's chunks are read ahead of the merge, their pages and
    // labels held until it reaches them: only a block of at most an eighth
    // of the input (and 512 MiB) is told ahead.
    if let Some((settle, lo, hi)) = block
        && hi.saturating_sub(lo) <= ((buf.len() - pos) / 8).min(AHEAD_MAX)
    {
        // The labels read before `pos` (by the general parser, which found
        // the apex) that are not plain are told too.
        let set = &col.set;
        let before: Vec<(Vec<u8>, Option<String>)> = set
            .forms_owner
            .iter()
            .filter_map(|&i| set.get(i as usize))
            .filter(|l| l.source() == st.source as usize && l.offset() < pos as u64)
            .map(|l| {
                let u = l.ulabel();
                (l.original_text().as_bytes().to_vec(), (!u.is_ascii()).then(|| u.to_string()))
            })
            .collect();
        col.idn_block = Some(IdnBlock {
            source: st.source,
            before: pos as u64,
            range: (lo as u64, hi.max(lo) as u64),
        });
        ahead = Some(AheadBlock { range: (lo, hi), before, settle });
    }
    let (next, _) =
        run(col, config, st, buf, 0, pos, true, &opts, source, ahead.as_ref(), |start, next| {
            config.report(next - start);
            if copy {
                // Nothing borrows from what was read: release its pages.
                source.release(start, next);
            }
        })?;
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::reader::Reader;
    use std::cmp::Ordering;

    /// A CZDS dump of `n` delegations under `tld.`, in order.
    fn dump(n: usize) -> Vec<u8> {
        let mut text = String::from("tld.\t86400\tin\tsoa\ta.tld. h.tld. 1 2 3 4 5\n");
        for i in 0..n {
            text.push_str(&format!("l{i:08}.tld.\t86400\tin\tns\tns1.example.net.\n"));
        }
        text.into_bytes()
    }

    /// Runs the fast path on `buf` on 4 threads with `populate` and
    /// `merged` as the per-chunk hooks.
    fn run_on(
        buf: &[u8],
        populate: &(dyn Fn(usize, usize) + Sync),
        merged: impl FnMut(usize, usize) + Send,
    ) -> std::thread::Result<Result<(usize, Stop), Error>> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_with(buf, 4, &populate, None, merged)
        }))
    }

    /// Runs the fast path on `buf` under `tld.` on `threads` threads, with
    /// `pages`, the block told ahead and `merged` as in [`run`].
    fn run_with(
        buf: &[u8],
        threads: usize,
        pages: &dyn Pages,
        ahead: Option<&AheadBlock<'_>>,
        merged: impl FnMut(usize, usize) + Send,
    ) -> Result<(usize, Stop), Error> {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let config = super::super::Config::new().origin(Some("tld."));
        let opts = FastOpts { apex: b"tld.", origin: None, ns: false, copy: false, settle: None };
        pool.install(|| {
            let mut r = Reader::new(&config).unwrap();
            let mut st = ZoneState::new(0, "z".into(), vec![], vec![], None, true);
            run(&mut r.c, &config, &mut st, buf, 0, 0, true, &opts, pages, ahead, merged)
        })
    }

    /// The IDN forms of a chunk go into the set as a part of its text
    /// (adopted), giving every label the forms, original and key that its
    /// text gives, duplicates included (the copying way is what the
    /// integration tests' reads without a settler take).
    #[test]
    fn idn_forms_adopted_read_the_same() {
        let mut text = String::from("tld.\t86400\tin\tsoa\ta.tld. h.tld. 1 2 3 4 5\n");
        let mut want = Vec::new();
        for i in 0..6000u32 {
            let label = if i % 3 == 0 {
                format!("a{i:06}")
            } else {
                let u: String = [0x915 + i % 20, 0x93e + i / 20 % 5, 0x966 + i / 100 % 10]
                    .iter()
                    .chain(&[0x915 + i / 1000 % 20])
                    .filter_map(|&c| char::from_u32(c))
                    .collect();
                crate::idna2008::to_alabel(&u).unwrap()
            };
            text.push_str(&format!("{label}.tld.\t86400\tin\tns\tns1.example.net.\n"));
            text.push_str(&format!("{label}.tld.\t86400\tin\tns\tns2.example.net.\n"));
            want.push(label);
            // A label of a few lines up again: deduplicated by its key, read
            // from the forms of its chunk.
            if i % 7 == 6 {
                let again = &want[want.len() - 5];
                text.push_str(&format!("{again}.tld.\t86400\tin\tns\tns3.example.net.\n"));
            }
        }
        let buf = text.as_bytes();
        let config = super::super::Config::new().origin(Some("tld."));
        let opts = FastOpts { apex: b"tld.", origin: None, ns: false, copy: false, settle: None };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        let set = pool.install(|| {
            let mut r = Reader::new(&config).unwrap();
            let mut st = ZoneState::new(0, "z".into(), vec![], vec![], None, true);
            let pages = |_: usize, _: usize| {};
            let first = buf.iter().position(|&b| b == b'\n').unwrap() + 1;
            let (next, stop) = run(
                &mut r.c,
                &config,
                &mut st,
                buf,
                0,
                first,
                true,
                &opts,
                &pages,
                None,
                |_, _| {},
            )
            .unwrap();
            assert_eq!((next, stop), (buf.len(), Stop::End));
            r.finish()
        });
        assert!(!set.text_parts.is_empty(), "no part adopted");
        assert_eq!(set.len(), want.len());
        for (l, w) in set.iter().zip(&want) {
            assert_eq!(l.original(), w.as_bytes());
            assert_eq!(l.alabel(), w);
            assert_eq!(set.key_of(l.index() as u32), w.as_bytes());
            let u = match crate::idna2008::forms_bytes(w.as_bytes()) {
                crate::idna2008::Forms::Owned { ulabel: Some(u), .. } => u,
                _ => w.clone(),
            };
            assert_eq!(l.ulabel(), u, "{w}");
            assert_eq!(l.is_idn(), w.starts_with("xn--"));
        }
    }

    /// The map around every probe for a chunk's bounds is forgotten right
    /// after it, before any chunk is populated (a probe into a huge page
    /// of the page cache maps all 2 MiB of it); then the rest too.
    #[test]
    fn probes_for_the_bounds_are_forgotten_before_the_chunks_are_read() {
        use std::sync::Mutex;
        #[derive(Default)]
        struct Log(Mutex<Vec<(bool, usize, usize)>>);
        impl Pages for Log {
            fn populate(&self, start: usize, end: usize) {
                self.0.lock().unwrap().push((true, start, end));
            }
            fn forget(&self, start: usize, end: usize) {
                self.0.lock().unwrap().push((false, start, end));
            }
        }
        let buf = dump(400_000);
        let log = Log::default();
        let res = run_with(&buf, 2, &log, None, |_, _| {});
        assert_eq!(res.expect("read").0, buf.len());
        let log = log.0.into_inner().unwrap();
        let first_read = log.iter().position(|e| e.0).expect("chunks were read");
        let (forgotten, read) = log.split_at(first_read);
        // The whole input after the probes, last.
        assert_eq!(forgotten.last().map(|e| (e.1, e.2)), Some((0, buf.len())));
        let mut starts: Vec<usize> = read.iter().filter(|e| e.0).map(|e| e.1).collect();
        starts.sort_unstable();
        assert!(starts.len() > 8, "{} chunks", starts.len());
        assert!(read.iter().all(|e| e.0), "nothing forgotten while reading");
        for &b in &starts[1..] {
            // The probe for bound `b` read from `b - 1` or before, up to
            // the newline at `b - 1`.
            assert!(
                forgotten[..forgotten.len() - 1].iter().any(|&(_, s, e)| s < b && b - 1 < e),
                "the probe for {b} is forgotten"
            );
        }
    }

    /// Workers claim no chunk more than the window past the merge, even
    /// when the merge is slow; the whole file is still read.
    #[test]
    fn extraction_stays_within_a_window_of_the_merge() {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let buf = dump(200_000);
        let (started, merged, furthest) =
            (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
        let populate = |_, _| {
            let ahead = started.fetch_add(1, Relaxed) + 1 - merged.load(Relaxed);
            furthest.fetch_max(ahead, Relaxed);
        };
        let res = run_on(&buf, &populate, |_, _| {
            std::thread::sleep(std::time::Duration::from_millis(2));
            merged.fetch_add(1, Relaxed);
        });
        assert_eq!(res.expect("no panic").expect("read").0, buf.len());
        let n = merged.load(Relaxed);
        assert!(n > 20 && started.load(Relaxed) == n, "{n} chunks");
        // The window is 4 chunks per thread.
        assert!(furthest.load(Relaxed) <= 4 * 4, "{} chunks ahead", furthest.load(Relaxed));
    }

    /// While the merge has chunks of the block told ahead left, workers
    /// claim chunks up to half their number further past it than the
    /// window, at most twice the window (a block chunk costs the merge far
    /// more than another), and no further: with a slow merge of the block
    /// they go past the usual window (they used to wait for the merge
    /// there).
    #[test]
    fn the_window_widens_while_the_block_is_merged() {
        use std::sync::Mutex;
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        struct Nothing;
        impl Settle for Nothing {
            fn worker(&self) -> Box<dyn SettleWorker> {
                Box::new(Nothing)
            }
            fn start(&self) {}
            fn ahead_parts(&self, _: usize) {}
        }
        impl SettleWorker for Nothing {
            fn ready(&mut self) -> bool {
                false
            }
            fn settle(&mut self, _: &[u8], _: &[u8]) -> Settled {
                Settled::Keep
            }
            fn ahead(&mut self, _: &[AheadLabel<'_>], _: bool) {}
        }
        let buf = dump(400_000);
        // A block of a quarter of the input, at line starts, with more
        // than the window of chunks after it.
        let at = |f: usize| buf[..f].iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
        let range = (at(buf.len() / 8), at(buf.len() * 3 / 8));
        let nothing = Nothing;
        let block = AheadBlock { range, before: Vec::new(), settle: &nothing };
        // (chunk start, chunks merged when it was populated).
        let events = Mutex::new(Vec::new());
        let merged = AtomicUsize::new(0);
        let waited = std::sync::atomic::AtomicBool::new(false);
        let window = 4 * 4;
        let populate = |start: usize, _| events.lock().unwrap().push((start, merged.load(Relaxed)));
        let res = run_with(&buf, 4, &populate, Some(&block), |s, _| {
            // The merge of the first block chunk waits (up to 20 s)
            // for a chunk the usual window past it: the 17th after
            // the block.
            if (range.0..range.1).contains(&s) && !waited.swap(true, Relaxed) {
                let t = std::time::Instant::now();
                let after = || events.lock().unwrap().iter().filter(|e| e.0 >= range.1).count();
                while after() <= window && t.elapsed().as_secs() < 20 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
            merged.fetch_add(1, Relaxed);
        });
        assert_eq!(res.expect("read").0, buf.len());
        let events = events.into_inner().unwrap();
        let mut starts: Vec<usize> = events.iter().map(|e| e.0).collect();
        starts.sort_unstable();
        let in_block = |k: usize| (range.0..range.1).contains(&starts[k]);
        let first_block = (0..starts.len()).find(|&k| in_block(k)).expect("a block");
        let block_len = (0..starts.len()).filter(|&k| in_block(k)).count();
        assert!(block_len >= 16, "{block_len} block chunks");
        let end_block = first_block + block_len;
        let outside = |k: usize| if k >= end_block { k - block_len } else { k.min(first_block) };
        let mut furthest = 0;
        for &(start, m) in &events {
            let c = starts.binary_search(&start).expect("a chunk start");
            if in_block(c) {
                continue;
            }
            // The merge only moved on between the claim and `populate`.
            let ahead = outside(c).saturating_sub(outside(m));
            let bound = window + (block_len / 2).min(window);
            assert!(ahead < bound, "chunk {c}, {ahead} past the merge at {m}");
            furthest = furthest.max(ahead);
        }
        assert!(furthest >= window, "{furthest} chunks past the merge");
    }

    /// The window's bounds: block chunks never count; past the block, or
    /// without one, `window` chunks past the merge; while the merge has
    /// block chunks left, half their number more, at most `window` more.
    #[test]
    fn window_bounds() {
        let w = 8;
        let none = 0..0;
        assert!(!past_window(7, 0, &none, w) && past_window(8, 0, &none, w));
        assert!(!past_window(12, 5, &none, w) && past_window(13, 5, &none, w));
        // A block of 6 chunks, 10..16: 3 more while they are not merged
        // (chunk 17 is the 11th outside the block).
        let small = 10..16;
        assert!(!past_window(10, 0, &small, w), "a block chunk");
        assert!(!past_window(16, 0, &small, w) && past_window(17, 0, &small, w));
        // Merge at the block's start: chunks 16.. are outside 10..; 8 + 3.
        assert!(!past_window(26, 10, &small, w) && past_window(27, 10, &small, w));
        // Two block chunks left: 8 + 1.
        assert!(!past_window(24, 14, &small, w) && past_window(25, 14, &small, w));
        // Past the block: the usual window.
        assert!(!past_window(23, 16, &small, w) && past_window(24, 16, &small, w));
        // A block of 100 chunks: at most 8 more.
        let big = 10..110;
        assert!(!past_window(125, 10, &big, w) && past_window(126, 10, &big, w));
        assert!(!past_window(125, 60, &big, w) && past_window(126, 60, &big, w));
        // 20 left: 10 more, capped at 8; 10 left: 5 more.
        assert!(!past_window(125, 90, &big, w) && past_window(126, 90, &big, w));
        assert!(!past_window(122, 100, &big, w) && past_window(123, 100, &big, w));
    }

    /// A panic while extracting a chunk reaches the caller (it used to
    /// leave the merge waiting for that chunk forever).
    #[test]
    fn a_panic_in_a_chunk_reaches_the_caller() {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        let buf = dump(200_000);
        for bad in [0, 5] {
            let started = AtomicUsize::new(0);
            let populate = |_, _| {
                if started.fetch_add(1, Relaxed) == bad {
                    panic!("chunk {bad}");
                }
            };
            assert!(run_on(&buf, &populate, |_, _| {}).is_err(), "bad {bad}");
        }
    }

    /// A panic in the merge (here, in its callback) reaches the caller too,
    /// with workers waiting for the window to move (it used to leave them
    /// waiting forever, and the read with them).
    #[test]
    fn a_panic_in_the_merge_reaches_the_caller() {
        let (tx, rx) = std::sync::mpsc::channel();
        // On a thread of its own, so that a hang fails the test.
        std::thread::spawn(move || {
            let buf = dump(200_000);
            for at in [0, 3] {
                let mut merged = 0;
                let res = run_on(&buf, &|_, _| {}, |_, _| {
                    if merged == at {
                        panic!("merge {at}");
                    }
                    merged += 1;
                });
                let _ = tx.send((at, res.is_err()));
            }
        });
        for at in [0, 3] {
            let got = rx.recv_timeout(std::time::Duration::from_secs(120));
            assert_eq!(got.ok(), Some((at, true)), "the read with a panic in merge {at} ends");
        }
    }

    /// Whether the AVX2 forms of the comparisons can run here.
    fn wide() -> bool {
        #[cfg(target_arch = "x86_64")]
        return std::is_x86_feature_detected!("avx2");
        #[allow(unreachable_code)]
        false
    }

    #[test]
    fn newlines_as_memchr() {
        let mut next = crate::testutil::xorshift(0x2545_f491_4f6c_dd1d);
        for len in 0..400usize {
            let buf: Vec<u8> = (0..len)
                .map(|_| {
                    let x = next();
                    // Newlines rarer than other bytes: lines of all lengths.
                    [b'\n', b'\x0b', b'\x8a', b'a', 0, b'\t', b'a', b'b', b'c', b'd']
                        [(x % 10) as usize]
                })
                .collect();
            for end in [len, len / 2, len.saturating_sub(65)] {
                for pos in 0..end {
                    let want = memchr::memchr(b'\n', &buf[pos..end]).map(|k| pos + k);
                    assert_eq!(
                        next_newline::<false, false>(&buf, pos, end),
                        want,
                        "{pos} {end} {buf:?}"
                    );
                    if wide() {
                        assert_eq!(
                            next_newline::<true, false>(&buf, pos, end),
                            want,
                            "{pos} {end}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn simd_classes_and_compares_agree_with_the_byte_loops() {
        let mut next = crate::testutil::xorshift(0x9E37_79B9_7F4A_7C15u64);
        // Bytes of every class, often LDH so that prefixes are long.
        let pool = b"abz09-AZ.\\ \r\n\t\x00\x7f\x80\xffq;\"()";
        for _ in 0..20_000 {
            let buf: Vec<u8> = (0..80)
                .map(|_| {
                    let r = next();
                    if r.is_multiple_of(3) { pool[(r >> 8) as usize % pool.len()] } else { b'k' }
                })
                .collect();
            let k = Classes32::load(&buf, 0).unwrap();
            let tab = buf[..32].iter().position(|&b| b == b'\t');
            // The quick classes: when the bytes before the tab are lower
            // LDH or dots, and then the same as the full ones below it.
            let quick = Classes32::quick::<false, false>(&buf, 0);
            if wide() {
                let q = Classes32::quick::<true, false>(&buf, 0);
                let masks = |q: Classes32| (q.tab, q.dot, q.digit, q.hyphen);
                assert_eq!(q.map(masks), quick.map(masks));
            }
            let simple = tab.is_some_and(|t| {
                buf[..t].iter().all(|&b| HEAD_CLASS[b as usize] == 0 || b == b'.')
            });
            assert_eq!(quick.is_some(), simple, "{:?}", &buf[..32]);
            if let (Some(q), Some(t)) = (quick, tab) {
                assert_eq!(q.tab.trailing_zeros() as usize, t);
                for n in 0..=t {
                    assert_eq!(q.flags(n), k.flags(n), "{:?}", &buf[..n]);
                    assert_eq!(q.dot & low_bits(n), k.dot & low_bits(n));
                }
                let bits = |f: fn(&u8) -> bool| {
                    buf[..32].iter().rev().fold(0u32, |m, b| m << 1 | u32::from(f(b)))
                };
                assert_eq!(q.digit, bits(u8::is_ascii_digit));
                assert_eq!(q.hyphen, bits(|&b| b == b'-'));
            }
            assert_eq!((k.tab != 0).then(|| k.tab.trailing_zeros() as usize), tab);
            for n in 0..32 {
                let f = buf[..n].iter().fold(0u8, |f, &b| f | HEAD_CLASS[b as usize]);
                assert_eq!(k.flags(n), f, "{:?}", &buf[..n]);
            }
            // Two labels sharing a prefix: the orders and equality agree.
            let (a, b) = (0, 40);
            let mut buf = buf;
            let common = (next() % 34) as usize;
            buf.copy_within(a..a + common, b);
            let (la, lb) = ((next() % 36) as usize, (next() % 36) as usize);
            for orders in [1, 2, 3] {
                let want = orders_increasing(orders, &buf[a..a + la], &buf[b..b + lb]);
                assert_eq!(orders_increasing_at::<false>(orders, &buf, (a, la), (b, lb)), want);
                if wide() {
                    assert_eq!(orders_increasing_at::<true>(orders, &buf, (a, la), (b, lb)), want);
                }
                // And whether they are the same label (also when they are).
                for (la, lb) in [(la, lb), (la.min(common), la.min(common))] {
                    let (x, y) = (&buf[a..a + la], &buf[b..b + lb]);
                    let want = (x != y).then(|| orders_increasing(orders, x, y));
                    let got = orders_unless_same::<false, false>(orders, &buf, (a, la), (b, lb));
                    assert_eq!(got, want);
                    if wide() {
                        let got = orders_unless_same::<true, false>(orders, &buf, (a, la), (b, lb));
                        assert_eq!(got, want);
                    }
                }
            }
            let n = la.min(33);
            let want = buf[a..a + n] == buf[b..b + n];
            assert_eq!(same_at::<false, false>(&buf, a, b, n), want);
            if wide() {
                assert_eq!(same_at::<true, false>(&buf, a, b, n), want);
            }
        }
    }

    /// [`check_rest`] as the general parser reads a line's fields: split
    /// on tabs, spaces and CRs, TTLs and classes skipped, then the type;
    /// an NS record needs a target that resolves.
    fn rest_reference(rest: &[u8], origin: &[Vec<u8>]) -> Option<Option<Vec<u8>>> {
        let mut toks = rest.split(|b| matches!(b, b'\t' | b' ' | b'\r')).filter(|t| !t.is_empty());
        // Fields before the type, the type, and an NS target: none may hold
        // a byte the tokenizer reads apart.
        let mut seen = Vec::new();
        let ty = loop {
            let t = toks.next()?;
            seen.push(t);
            if !(is_ttl(t) || is_class(t)) {
                break t;
            }
        };
        if !ty.eq_ignore_ascii_case(b"NS") {
            return (!seen.concat().iter().any(|&b| tokenizer_byte(b))).then_some(None);
        }
        let target = toks.next()?;
        seen.push(target);
        if seen.concat().iter().any(|&b| tokenizer_byte(b)) {
            return None;
        }
        let mut owned = Vec::new();
        resolve_target(target, Some(origin), &mut owned).then_some(Some(owned))
    }

    #[test]
    fn rest_of_a_line_as_the_general_parser_reads_it() {
        let origin = vec![b"tld".to_vec()];
        // The cache points into the buffer: the lines of one sequence go
        // into one buffer (followed by bytes that are not loaded as part of
        // any line).
        let check = |(cache, buf): &mut (RestCache, Vec<u8>), rest: &[u8]| {
            let want = rest_reference(rest, &origin);
            buf.truncate(buf.len().saturating_sub(40));
            buf.extend_from_slice(b"\nowner.tld.");
            let at = buf.len();
            buf.extend_from_slice(rest);
            let end = buf.len();
            buf.extend_from_slice(&[b'x'; 40]);
            let mut owned = Vec::new();
            let got = match check_rest::<false>(
                cache,
                buf,
                (at, end),
                (true, true),
                Some(&origin),
                &mut owned,
            ) {
                Rest::Slow => None,
                Rest::Record => Some(None),
                Rest::Ns(r) => Some(Some(buf[r].to_vec())),
                Rest::NsOwned => Some(Some(owned)),
            };
            assert_eq!(got, want, "{:?}", rest.escape_ascii());
        };
        let fixed: [&[u8]; 22] = [
            b"\t172800\tin\tns\tns1.example.net.",
            b"\t172800\tIN\tNS\tNS1.Example.NET.",
            b"\tin\t172800\tns\tns1.example.net.",
            b"  3600  in ns  ns1.example.net.",
            b"\t1\tCLASS1\tns\ta.",
            b"\t1\tin\tns\tns1",
            b"\t1\tin\tns\t@",
            b"\t1\tin\tns\t$.",
            b"\t1\tin\tns\t@.",
            b"\t1\tin\tns\t\xf8.",
            b"\t1\tin\tns\ta..b.",
            b"\t1\tin\tns\t.a.",
            b"\t1\tin\tns\t.",
            b"\t1\tin\tns\t",
            b"\t1\tin\tns",
            b"\t1\tin",
            b"\t1\tin\tnsec\tns1.example.net.",
            b"\t1\tin\ta\t192.0.2.1",
            b"\t\rns\t.",
            b"\tns\r.",
            b"\tns\t.\r\x8a",
            b"",
        ];
        for rest in fixed {
            // Alone, and after each other line (the cache then holds its
            // fields).
            check(&mut Default::default(), rest);
            for before in fixed {
                let mut seq = Default::default();
                check(&mut seq, before);
                check(&mut seq, rest);
                // Two lines before: the older one in the cache's second
                // slot.
                for older in fixed {
                    let mut seq = Default::default();
                    check(&mut seq, older);
                    check(&mut seq, before);
                    check(&mut seq, rest);
                }
            }
        }
        let long = format!("\t1\tin\tns\t{}.example.", "a.".repeat(130));
        check(&mut Default::default(), long.as_bytes());
        let mut next = crate::testutil::xorshift(0x2545_F491_4F6C_DD1Du64);
        let words: [&[u8]; 17] = [
            b"172800",
            b"in",
            b"IN",
            b"ns",
            b"Ns",
            b"a",
            b"x.",
            b"@",
            b"ns1.tld.",
            b"CLASS3",
            b"Up.",
            b"a..",
            b"$.",
            b"1a",
            b";",
            b"a(b.",
            b"\\x.",
        ];
        let mut seq = Default::default();
        for _ in 0..50_000 {
            let mut rest = Vec::new();
            for _ in 0..(next() % 6) {
                rest.push([b'\t', b'\t', b' ', b'\r'][(next() % 4) as usize]);
                rest.extend_from_slice(words[(next() % 17) as usize]);
            }
            check(&mut seq, &rest);
        }
    }

    #[test]
    fn text_pushed_as_a_copy() {
        let mut next = crate::testutil::xorshift(0x0DDB_A11C_0FFE_E123);
        let buf: Vec<u8> = (0..300).map(|_| next() as u8).collect();
        let (mut fast, mut want) = (Vec::new(), Vec::new());
        for _ in 0..20_000 {
            let n = (next() % 70) as usize;
            let at = (next() as usize) % (buf.len() - n + 1);
            push_text(&mut fast, &buf, at, n);
            want.extend_from_slice(&buf[at..at + n]);
            assert_eq!(fast, want, "{at} {n}");
        }
        // To the last byte, and empty.
        push_text(&mut fast, &buf, buf.len() - 5, 5);
        push_text(&mut fast, &buf, buf.len(), 0);
        want.extend_from_slice(&buf[buf.len() - 5..]);
        assert_eq!(fast, want);
    }

    #[test]
    fn short_compare() {
        let text = b"abcdefghijklmnopqrstuvwxyz0123456789";
        for n in 0..text.len() {
            let a = &text[..n];
            assert!(same_bytes(a, a));
            for i in 0..n {
                let mut b = a.to_vec();
                b[i] ^= 0x20;
                assert!(!same_bytes(a, &b), "{n} {i}");
            }
        }
        assert!(same_bytes(b"abcdefghij", b"abcdefghij"));
        assert!(!same_bytes(b"abcdefghij", b"abcdefghiJ"));
        assert!(!same_bytes(b"abc", b"abcd"));
    }

    #[test]
    fn dotted_order_is_owner_order() {
        // "a-b.com." sorts before "a.com." although "a" < "a-b".
        assert_eq!(cmp_dotted(b"a-b", b"a"), Ordering::Less);
        assert_eq!(cmp_dotted(b"a", b"a-b"), Ordering::Greater);
        assert_eq!(cmp_dotted(b"a", b"a"), Ordering::Equal);
        assert_eq!(cmp_dotted(b"a", b"a0"), Ordering::Less);
        assert_eq!(cmp_dotted(b"ab", b"b"), Ordering::Less);
        assert_eq!(orders_increasing(ORDERS_ALL, b"a", b"a-b"), 0b01);
        assert_eq!(orders_increasing(ORDERS_ALL, b"a-b", b"a"), 0b10);
        assert_eq!(orders_increasing(ORDERS_ALL, b"a", b"b"), 0b11);
        assert_eq!(orders_increasing(ORDERS_ALL, b"b", b"b"), 0);
        // Against both comparisons, on every pair of short keys.
        let keys: Vec<Vec<u8>> = ["", "a", "-", "a-", "a-b", "a0", "ab", "b", "a.", "-a", "z9"]
            .iter()
            .map(|k| k.as_bytes().to_vec())
            .collect();
        for a in keys.iter().filter(|k| !k.is_empty()) {
            for b in keys.iter().filter(|k| !k.is_empty()) {
                let want = u8::from(a < b) | u8::from(cmp_dotted(a, b) == Ordering::Less) << 1;
                assert_eq!(orders_increasing(ORDERS_ALL, a, b), want, "{a:?} {b:?}");
            }
        }
        for (line, tab) in [(&b"abc\tx"[..], Some(3)), (b"no tab", None), (b"\t", Some(0))] {
            assert_eq!(first_tab(line), tab);
        }
        let long: Vec<u8> = [vec![b'x'; 70], b"\ty".to_vec()].concat();
        assert_eq!(first_tab(&long), Some(70));
        let mid: Vec<u8> = [vec![b'x'; 20], b"\ty".to_vec(), vec![b'z'; 30]].concat();
        assert_eq!(first_tab(&mid), Some(20));
    }

    /// The block of `xn--` owners of a sorted dump is found by the binary
    /// search, with lines of other kinds (glue below the apex, a comment,
    /// the apex) around; any input gives line starts.
    #[test]
    fn idn_block_of_a_sorted_dump() {
        let mut text = String::from("tld.\t86400\tin\tsoa\ta.tld. h.tld. 1 2 3 4 5\n");
        let mut want = (0, 0);
        for i in 0..3000 {
            let l = match i {
                0..1000 => format!("a{i:05}"),
                1000..1200 => format!("xn--{i:05}"),
                _ => format!("z{i:05}"),
            };
            if i == 1000 {
                want.0 = text.len();
            }
            if i == 1200 {
                want.1 = text.len();
            }
            text.push_str(&format!("{l}.tld.\t86400\tin\tns\tns1.example.net.\n"));
            if i % 7 == 0 {
                text.push_str(&format!("ns1.{l}.tld.\t86400\tin\ta\t192.0.2.1\n"));
            }
            if i % 500 == 3 {
                text.push_str("; a comment\n");
            }
        }
        let buf = text.as_bytes();
        let found = (idn_block(buf, 0, b"tld.", b"xn--"), idn_block(buf, 0, b"tld.", b"xn-."));
        assert_eq!(found, want);
        // Without the block: empty, where it would be.
        let none: String =
            text.lines().filter(|l| !l.contains("xn--")).map(|l| format!("{l}\n")).collect();
        let b = none.as_bytes();
        let (lo, hi) = (idn_block(b, 0, b"tld.", b"xn--"), idn_block(b, 0, b"tld.", b"xn-."));
        assert_eq!((lo, hi), (want.0, want.0));
        // Unsorted: line starts all the same.
        let mut lines: Vec<&str> = text.lines().collect();
        lines.reverse();
        let rev: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let r = rev.as_bytes();
        for t in [&b"xn--"[..], b"xn-."] {
            let p = idn_block(r, 0, b"tld.", t);
            assert!(p == 0 || p == r.len() || r[p - 1] == b'\n', "{p}");
        }
    }

    #[test]
    fn chunk_counts_and_stops() {
        let buf = b"a.com.\t1\tin\tns\tns1.x.net.\na.com.\t1\tin\tns\tns2.x.net.\n\
                    ns1.a.com.\t1\tin\ta\t192.0.2.1\nb.org.\t1\tin\tns\tx.\n\
                    com.\t1\tin\tns\tx.\nB.com.\t1\tin\tns\tns1.x.net.\n x\n";
        let o = FastOpts { apex: b"com.", origin: None, ns: true, copy: true, settle: None };
        let c = extract(buf, 0, buf.len(), true, &o);
        assert_eq!(c.stop, Stop::Slow);
        assert_eq!(&buf[c.next..], b" x\n");
        assert_eq!(c.lines, 6);
        assert_eq!(
            (c.apex_records, c.same_registered, c.deeper_records, c.outside_records),
            (1, 1, 1, 1)
        );
        assert_eq!(c.regs.len(), 2);
        assert_eq!(c.orders, 0, "an upper-case label is not its key");
        assert_eq!(c.ns_names.len(), 2);
        assert_eq!(c.ns_pairs, vec![(0, 0), (0, 1), (1, 0)]);
        // The plain label's text is copied; the upper-case one is not plain.
        assert_eq!(c.text, b"a");
        // Without a final newline: whole at the end of the data, else
        // more is needed.
        let tail = b"a.com.\t1\tin\tns\tx.\nb.com.\t1\tin\tns\tx.";
        let c = extract(tail, 0, tail.len(), true, &o);
        assert_eq!((c.stop, c.lines, c.regs.len()), (Stop::End, 2, 2));
        let c = extract(tail, 0, tail.len(), false, &o);
        assert_eq!((c.stop, c.lines, c.next), (Stop::NeedMore, 1, 18));
    }

    /// Everything [`extract`] gives, as text.
    fn chunk_text(c: &Chunk) -> String {
        format!(
            "{} {:?} {} {} {} {} {} {:?} {:?} {:?} {} {:?} {:?} {:?} {} {:?} {:?} {:?} {:?}",
            c.next,
            c.stop,
            c.lines,
            c.apex_records,
            c.same_registered,
            c.deeper_records,
            c.outside_records,
            c.deeper,
            c.outside,
            c.regs.iter().map(|g| (g.at, g.line, g.len, g.plain)).collect::<Vec<_>>(),
            c.orders,
            c.ns_names,
            c.ns_pairs,
            c.text,
            c.copied,
            c.idns.iter().map(|d| (d.reg, d.at, d.ulen)).collect::<Vec<_>>(),
            c.idn_text,
            c.last_owner,
            c.last_kind,
        )
    }

    /// A random dump of up to 40 lines for the extraction tests: owners and
    /// record texts that fit the profile or not, the last line perhaps
    /// without its newline, runs of the same owner.
    fn random_dump(next: &mut impl FnMut() -> u64) -> Vec<u8> {
        let owners: [&[u8]; 14] = [
            b"a",
            b"b0-c",
            b"xn--p1b6ci4b4b3a",
            b"Up",
            b"ns1.a",
            b"a..b",
            b"-x",
            b"ab--c",
            b"a\\b",
            b"q;",
            b"0123456789abcdef0123456789abcdef0123",
            b"",
            b"xn--zz",
            b"m@",
        ];
        let rests: [&[u8]; 10] = [
            b"\t172800\tin\tns\tns1.example.net.",
            b"\t86400\tin\tds\t1 2 3 abcdef",
            b"\t1\tin\ta\t192.0.2.1",
            b"\tns\tUP.x.",
            b"\tin\tns\trel",
            b"\tns",
            b"\t1\t;x",
            b"\t1\tin\tns\ta..b.\r",
            b" 1 in ns x.",
            b"\t172800\tin\tns\tns2.example.net.\r",
        ];
        let mut buf = Vec::new();
        for _ in 0..(next() % 40) {
            let r = next();
            let owner = owners[(r % 14) as usize];
            let zone: &[u8] = match (r >> 8) % 6 {
                0 => b"com.",
                1 => b"org.",
                2 => b"",
                _ => b".com.",
            };
            buf.extend_from_slice(owner);
            buf.extend_from_slice(zone);
            buf.extend_from_slice(rests[((r >> 16) % 10) as usize]);
            if !(r >> 24).is_multiple_of(9) {
                buf.push(b'\n');
            }
            // Runs of the same owner.
            if (r >> 28).is_multiple_of(3) {
                let line = buf.rsplit(|&b| b == b'\n').nth(1).unwrap_or(b"").to_vec();
                buf.extend_from_slice(&line);
                buf.push(b'\n');
            }
        }
        buf
    }

    /// Where the extraction tests start the next chunk: past the line `c`
    /// stopped at, or at the end.
    fn past_chunk(buf: &[u8], c: &Chunk) -> usize {
        match memchr(b'\n', &buf[c.next..]) {
            Some(k) if c.stop != Stop::End => c.next + k + 1,
            _ => buf.len(),
        }
    }

    /// Asserts that two extractions of the chunk of `buf` at `at` (in test
    /// round `round`) agree.
    fn assert_same_chunk(a: &Chunk, b: &Chunk, buf: &[u8], (round, at): (usize, usize)) {
        assert_eq!(
            chunk_text(a),
            chunk_text(b),
            "round {round} at {at}: {:?}",
            String::from_utf8_lossy(buf)
        );
    }

    /// The options the extraction tests try: an apex with NS targets kept
    /// and text copied, one with neither, the root.
    fn test_opts() -> [FastOpts<'static>; 3] {
        [(&b"com."[..], true, true), (b"com.", false, false), (b".", true, false)]
            .map(|(apex, ns, copy)| FastOpts { apex, origin: None, ns, copy, settle: None })
    }

    /// The baseline compilation of the fast path and the one [`extract`]
    /// picks for this CPU (AVX2 and BMI2 when it has them) give the same
    /// chunks, on random dumps of lines that fit the profile or not.
    #[test]
    fn baseline_and_dispatched_extraction_agree() {
        let mut next = crate::testutil::xorshift(0x5851_f42d_4c95_7f2d);
        let mut lines = 0;
        for round in 0..1000 {
            let buf = random_dump(&mut next);
            for o in &test_opts() {
                for eof in [true, false] {
                    // From each line a chunk stops at, past that line.
                    let mut at = 0;
                    while at < buf.len() {
                        let a = extract_baseline(&buf, at, buf.len(), eof, o);
                        let b = extract(&buf, at, buf.len(), eof, o);
                        assert_same_chunk(&a, &b, &buf, (round, at));
                        lines += a.lines;
                        at = past_chunk(&buf, &a);
                    }
                }
            }
        }
        assert!(lines > 40_000, "{lines}");
    }

    /// The quick loop reads the lines far enough from the end of the
    /// buffer without bounds checks ([`QUICK_REACH`]) and the others with
    /// them: a dump read with lines after it (all of its lines in the
    /// zone) gives the chunk it gives at the end of the buffer (its last
    /// lines checked), whatever the compilation.
    #[test]
    fn lines_in_the_zone_read_as_lines_near_the_end() {
        let mut next = crate::testutil::xorshift(0x2f6b_94c3_1a0d_e557);
        let filler = b"zz.com.\t1\tin\ta\t192.0.2.1\n".repeat(QUICK_REACH / 16);
        let mut lines = 0;
        for round in 0..1000 {
            let mut buf = random_dump(&mut next);
            if buf.last().is_some_and(|&b| b != b'\n') {
                buf.push(b'\n');
            }
            let mut padded = buf.clone();
            padded.extend_from_slice(&filler);
            for o in &test_opts() {
                let mut at = 0;
                while at < buf.len() {
                    let near = extract(&buf, at, buf.len(), false, o);
                    let far = extract(&padded, at, buf.len(), false, o);
                    assert_same_chunk(&near, &far, &buf, (round, at));
                    let base = extract_baseline(&padded, at, buf.len(), false, o);
                    assert_same_chunk(&base, &far, &buf, (round, at));
                    lines += near.lines;
                    at = past_chunk(&buf, &near);
                }
            }
        }
        assert!(lines > 20_000, "{lines}");
    }
}

//! The zone reader's byte classes and comparisons of 32 or 64 bytes at a
//! time: SSE2 (the x86-64 baseline), AVX2 when the CPU has it. Each
//! function is safe and returns `None` (or the byte loop's answer) where
//! the vector form cannot be used; its scalar twin is the byte loop of
//! the fast path (`input::zone::czds::bytes`, [`HEAD_CLASS`]), and the
//! CZDS reader's tests check each against it.

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

    /// The bytes of `v` in `lo..lo + n` (n ≤ 128), as `in_range`.
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

    /// The masks of `target_fast` for the 32 bytes from `p`: octets
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
/// `input::zone::czds::quick::QUICK_REACH`): its loads are within `buf` by where its lines start.
#[inline(always)]
pub(crate) fn fits32_in<const Z: bool>(buf: &[u8], at: usize) -> bool {
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
/// runs on a CPU that has them (the CZDS reader's `extract_avx2`). `Z`: in
/// the zone of the quick loop (`QUICK_REACH`), where the bounds need no check ([`fits32_in`]).
#[inline(always)]
pub(crate) fn eq_mask32<const W: bool, const Z: bool>(
    buf: &[u8],
    a: usize,
    b: usize,
) -> Option<u32> {
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
pub(crate) fn eq_mask32_to<const W: bool, const Z: bool>(
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
pub(crate) fn low_bits(n: usize) -> u32 {
    debug_assert!(n <= 32);
    ((1u64 << (n & 63)) - 1) as u32
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

/// Byte classes of up to 32 bytes of a line from one SSE2 pass (bit i:
/// byte i): the tabs, and what [`HEAD_CLASS`] flags any prefix has.
#[derive(Clone, Copy)]
pub(crate) struct Classes32 {
    pub(crate) tab: u32,
    /// Digits and hyphens: from [`Classes32::quick`] only (zero from
    /// [`Classes32::load`]).
    pub(crate) digit: u32,
    pub(crate) hyphen: u32,
    /// Neither lower-case LDH nor an upper-case letter.
    pub(crate) not_ldh: u32,
    pub(crate) upper: u32,
    pub(crate) dot: u32,
    pub(crate) special: u32,
}

impl Classes32 {
    /// The classes of the bytes before the first tab of `buf[at..at + 32]`
    /// when they are all lower-case LDH octets or dots (the owners of a
    /// dump, nearly always), from a third of the work of
    /// [`Classes32::load`]: then nothing is upper case nor special, and
    /// the only non-LDH octets are the dots. The bits past the tab are
    /// not meaningful. `None` otherwise (or on other architectures).
    #[inline(always)]
    pub(crate) fn quick<const W: bool, const Z: bool>(buf: &[u8], at: usize) -> Option<Classes32> {
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
    pub(crate) fn load(buf: &[u8], at: usize) -> Option<Classes32> {
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
    pub(crate) fn flags(&self, n: usize) -> u8 {
        let m = low_bits(n);
        let any = |x: u32, flag: u8| if x & m != 0 { flag } else { 0 };
        any(self.upper, H_UPPER)
            | any(self.not_ldh, H_NON_LDH)
            | any(self.dot, H_DOT | H_NON_LDH)
            | any(self.special, H_SPECIAL | H_NON_LDH)
    }
}

/// The newline mask of the 64 bytes of `buf` from `at` (fewer at the end);
/// `W`: as in [`eq_mask32`].
#[inline(always)]
pub(crate) fn block_mask<const W: bool, const Z: bool>(buf: &[u8], at: usize) -> u64 {
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

/// The masks of the CZDS reader's `target_fast` for `buf[at..at + 32]`, when 32 bytes can
/// be loaded (x86-64 only): octets an NS target keeps as written (`-./`,
/// digits, `_`, `a-z`), and dots; `W`: as in [`eq_mask32`].
#[inline(always)]
pub(crate) fn target_masks<const W: bool, const Z: bool>(
    buf: &[u8],
    at: usize,
) -> Option<(u32, u32)> {
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

/// Byte classes of the part of an owner below the apex.
pub(crate) const H_DOT: u8 = 1;
pub(crate) const H_UPPER: u8 = 2;
pub(crate) const H_SPECIAL: u8 = 4;
pub(crate) const H_NON_LDH: u8 = 8;

pub(crate) static HEAD_CLASS: [u8; 256] = {
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

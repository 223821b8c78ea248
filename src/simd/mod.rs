//! The crate's uses of `std::arch`, all in this module: safe functions,
//! each with a portable scalar twin that other targets use and the tests
//! check it against. The zone reader's byte classes are in [`zone`].
//!
//! Hand-written because `memchr` (the kept crate for byte search) finds
//! bytes but neither classifies them into bit masks nor hints the cache.

pub(crate) mod zone;

/// A cache prefetch hint for the line at `p`: only a hint, which never
/// faults whatever the address. The scalar twin ([`prefetch_scalar`])
/// does nothing.
#[inline(always)]
pub(crate) fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address, and SSE is
    // part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    prefetch_scalar(p);
}

/// [`prefetch`] where there is no such instruction: nothing.
#[inline(always)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn prefetch_scalar(p: *const u8) {
    let _ = p;
}

/// The bits of the ASCII digits and of the hyphens among 32 bytes (bit
/// `i` for byte `i`).
#[inline(always)]
pub(crate) fn digit_hyphen_bits(bytes: &[u8; 32]) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
            _mm_movemask_epi8, _mm_set1_epi8,
        };
        let (mut d, mut h) = (0u32, 0u32);
        for half in 0..2 {
            // SAFETY: SSE2 is part of x86-64; the 16 bytes at `16 * half`
            // are in `bytes`, read unaligned.
            unsafe {
                let v = _mm_loadu_si128(bytes.as_ptr().add(16 * half).cast());
                let hy = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'-' as i8));
                // '0'..='9' compared as signed bytes: bytes of 0x80 and up
                // are negative, below '0'.
                let dg = _mm_and_si128(
                    _mm_cmpgt_epi8(v, _mm_set1_epi8(b'/' as i8)),
                    _mm_cmplt_epi8(v, _mm_set1_epi8(b':' as i8)),
                );
                d |= (_mm_movemask_epi8(dg) as u32 & 0xffff) << (16 * half);
                h |= (_mm_movemask_epi8(hy) as u32 & 0xffff) << (16 * half);
            }
        }
        (d, h)
    }
    #[cfg(not(target_arch = "x86_64"))]
    digit_hyphen_bits_scalar(bytes)
}

/// [`digit_hyphen_bits`] a byte at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn digit_hyphen_bits_scalar(bytes: &[u8; 32]) -> (u32, u32) {
    let (mut d, mut h) = (0u32, 0u32);
    for (i, &b) in bytes.iter().enumerate() {
        d |= u32::from(b.is_ascii_digit()) << i;
        h |= u32::from(b == b'-') << i;
    }
    (d, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_hyphen_bits_agree_with_the_scalar_twin() {
        // Every byte value at every position, and mixed blocks.
        for b in 0..=255u8 {
            let mut bytes = [b'a'; 32];
            for i in 0..32 {
                bytes[i] = b;
                assert_eq!(digit_hyphen_bits(&bytes), digit_hyphen_bits_scalar(&bytes), "{b}");
                bytes[i] = b'a';
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            let mut bytes = [0u8; 32];
            for b in &mut bytes {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = [b'-', b'0', b'9', b'/', b':', b'a', 0x80, 0xff][(x % 8) as usize];
            }
            assert_eq!(digit_hyphen_bits(&bytes), digit_hyphen_bits_scalar(&bytes));
        }
    }

    #[test]
    fn prefetch_and_its_twin_never_fault() {
        let v = [1u8; 4];
        for p in [v.as_ptr(), std::ptr::null(), usize::MAX as *const u8] {
            prefetch(p);
            prefetch_scalar(p);
        }
    }
}

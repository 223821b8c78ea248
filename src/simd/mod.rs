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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetch_and_its_twin_never_fault() {
        let v = [1u8; 4];
        for p in [v.as_ptr(), std::ptr::null(), usize::MAX as *const u8] {
            prefetch(p);
            prefetch_scalar(p);
        }
    }
}

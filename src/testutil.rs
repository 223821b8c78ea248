//! Helpers shared by the unit tests.

/// A xorshift64 generator (Marsaglia 2003) from `seed` (not 0): random
/// test input without depending on a crate.
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

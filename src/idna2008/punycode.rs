//! A Punycode encoder ([RFC 3492 §6.3]) over a slice of code points.
//!
//! Why not [`idna::punycode::encode`]: it takes a `char` iterator and, for
//! every distinct non-basic code point, scans the whole input twice (once
//! for the next smallest code point, once to emit the deltas), with
//! checked arithmetic at every step. Reading a list of a million IDN
//! labels (about ten code points each) spent about 1.5 µs a label in it,
//! more than all the other IDNA2008 work together. This encoder sorts the
//! distinct non-basic code points once and emits the same output: a test
//! compares it with `idna::punycode` on every label of the golden corpus
//! and on random strings. Decoding still uses `idna::punycode`.
//!
//! [RFC 3492 §6.3]: https://www.rfc-editor.org/rfc/rfc3492#section-6.3

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 0x80;

/// Bias adaptation ([RFC 3492 §6.1]).
///
/// [RFC 3492 §6.1]: https://www.rfc-editor.org/rfc/rfc3492#section-6.1
#[inline]
fn adapt(mut delta: u32, num_points: u32, first_time: bool) -> u32 {
    // Two divisions by constants (multiplications), not one by a variable.
    delta = if first_time { delta / DAMP } else { delta / 2 };
    delta += delta / num_points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (((BASE - T_MIN + 1) * delta) / (delta + SKEW))
}

#[inline]
fn digit(v: u32) -> char {
    // v < BASE: a–z for 0–25, 0–9 for 26–35.
    (if v < 26 { b'a' + v as u8 } else { b'0' + (v - 26) as u8 }) as char
}

/// Appends the Punycode encoding of `input` to `out` (without the ACE
/// prefix), exactly as `idna::punycode::encode` produces it. Returns
/// `None`, leaving `out` as it was, where that function returns `None`
/// (arithmetic overflow, only possible far beyond the length of a label).
pub(crate) fn encode_into(input: &[char], out: &mut String) -> Option<()> {
    let start = out.len();
    let r = encode_inner(input, out);
    if r.is_none() {
        out.truncate(start);
    }
    r
}

/// `ceil(2^64 / d)` for the divisors `BASE - t` of [`div_rem`].
static RECIPROCAL: [u64; BASE as usize] = {
    let mut r = [0u64; BASE as usize];
    // From 2: 2^64 does not fit (and `BASE - t` is at least 10).
    let mut d = 2;
    while d < BASE as usize {
        r[d] = u64::MAX / d as u64 + 1;
        d += 1;
    }
    r
};

/// `q / d` and `q % d` for a divisor `d` in `2..=35` without a division
/// instruction ("Faster remainder by direct computation", Lemire, Kaser
/// and Kurz, 2019: exact for every 32-bit `q` and `d`).
#[inline]
fn div_rem(q: u32, d: u32) -> (u32, u32) {
    let m = RECIPROCAL[d as usize];
    let quot = ((u128::from(m) * u128::from(q)) >> 64) as u32;
    let low = m.wrapping_mul(u64::from(q));
    let rem = ((u128::from(low) * u128::from(d)) >> 64) as u32;
    (quot, rem)
}

/// How many of `cps` are less than `m` (branch-free, so it vectorizes).
#[inline]
fn count_below(cps: &[u32], m: u32) -> u64 {
    // At most u32::MAX code points (checked by the caller).
    u64::from(cps.iter().fold(0u32, |n, &c| n + u32::from(c < m)))
}

fn encode_inner(input: &[char], out: &mut String) -> Option<()> {
    let total = u32::try_from(input.len()).ok()?;
    // The input length plus one must not overflow (as in idna).
    total.checked_add(1)?;
    // The code points, and the insertions (non-basic code points) as
    // (code point << 32 | position), sorted: the order of RFC 3492's
    // encoder, which emits by increasing code point, then position.
    let mut cps_small = [0u32; 64];
    let mut ins_small = [0u64; 64];
    let (mut cps_large, mut ins_large) = (Vec::new(), Vec::new());
    let (cps, ins): (&mut [u32], &mut [u64]) = if input.len() <= cps_small.len() {
        (&mut cps_small[..input.len()], &mut ins_small[..input.len()])
    } else {
        cps_large.resize(input.len(), 0);
        ins_large.resize(input.len(), 0);
        (&mut cps_large[..], &mut ins_large[..])
    };
    let mut basic = 0u32;
    let mut n_ins = 0;
    for (p, &c) in input.iter().enumerate() {
        cps[p] = c as u32;
        if c.is_ascii() {
            out.push(c);
            basic += 1;
        } else {
            ins[n_ins] = (u64::from(c as u32) << 32) | p as u64;
            n_ins += 1;
        }
    }
    if basic > 0 {
        out.push('-');
    }
    let cps = &*cps;
    let ins = &mut ins[..n_ins];
    ins.sort_unstable();
    let mut bias = INITIAL_BIAS;
    // The previous insertion (code point, position).
    let mut prev: Option<(u32, usize)> = None;
    // `processed`: the code points handled so far (RFC 3492's h).
    for (processed, &e) in (basic..).zip(ins.iter()) {
        let (m, p) = ((e >> 32) as u32, (e as u32) as usize);
        // The delta the encoder has accumulated when it reaches this
        // insertion (RFC 3492 §6.3), summed in 64 bits: the encoder's
        // running total only grows, so it overflows exactly when this
        // sum exceeds u32::MAX.
        let delta: u64 = match prev {
            // Same code point, later position: the smaller code points
            // between the two.
            Some((pm, pp)) if pm == m => count_below(&cps[pp + 1..p], m),
            // Next code point: the rest of the previous round, the step
            // to the next round, the steps from `pm + 1` to `m`, and the
            // smaller code points before this one.
            Some((pm, pp)) => {
                count_below(&cps[pp + 1..], pm)
                    + 1
                    + u64::from(m - pm - 1) * u64::from(processed + 1)
                    + count_below(&cps[..p], m)
            }
            None => u64::from(m - INITIAL_N) * u64::from(processed + 1) + count_below(&cps[..p], m),
        };
        let delta = u32::try_from(delta).ok()?;
        prev = Some((m, p));
        // Delta as a generalized variable-length integer.
        let mut q = delta;
        let mut k = BASE;
        loop {
            let t = if k <= bias {
                T_MIN
            } else if k >= bias + T_MAX {
                T_MAX
            } else {
                k - bias
            };
            if q < t {
                break;
            }
            let (quot, rem) = div_rem(q - t, BASE - t);
            out.push(digit(t + rem));
            q = quot;
            k += BASE;
        }
        out.push(digit(q));
        bias = adapt(delta, processed + 1, processed == basic);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::encode_into;

    fn ours(input: &[char]) -> Option<String> {
        let mut out = String::from("keep");
        let r = encode_into(input, &mut out);
        if r.is_none() {
            assert_eq!(out, "keep", "output left as it was on failure");
            return None;
        }
        Some(out["keep".len()..].to_string())
    }

    fn same(input: &[char]) {
        assert_eq!(ours(input), idna::punycode::encode(input), "{input:?}");
    }

    /// The code points of every label of ../shared/golden/corpus.tsv, or
    /// `None` when the reference data is absent and not required.
    fn corpus() -> Option<Vec<Vec<char>>> {
        let dir =
            std::env::var_os("LGRSCAN_REFERENCE_DIR").map(std::path::PathBuf::from).unwrap_or_else(
                || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared"),
            );
        let path = dir.join("golden").join("corpus.tsv");
        let Ok(text) = std::fs::read_to_string(&path) else {
            let required = std::env::var("LGRSCAN_REQUIRE_REFERENCE").is_ok_and(|v| v == "1");
            assert!(!required, "{} not found and LGRSCAN_REQUIRE_REFERENCE=1", path.display());
            return None;
        };
        let labels = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split('\t').nth(1))
            .map(|cps| {
                cps.split(' ')
                    .map(|h| u32::from_str_radix(h, 16).ok().and_then(char::from_u32).unwrap())
                    .collect()
            })
            .collect();
        Some(labels)
    }

    #[test]
    fn same_as_idna_on_the_golden_corpus() {
        let Some(labels) = corpus() else { return };
        assert!(labels.len() > 10_000);
        for l in &labels {
            same(l);
            // And with ASCII mixed in, as in a U-label with digits.
            let mut mixed = l.clone();
            mixed.insert(mixed.len() / 2, 'a');
            mixed.push('7');
            same(&mixed);
        }
    }

    #[test]
    fn same_as_idna_on_random_strings() {
        // A small xorshift generator: the test must not depend on a crate.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Pools: ASCII, Latin-1 and scripts near it, the BMP, everything.
        let ranges: [(u32, u32); 5] =
            [(0, 0x80), (0x80, 0x800), (0x900, 0x1800), (0, 0x1_0000), (0, 0x11_0000)];
        for _ in 0..100_000 {
            let len = (next() % 40) as usize;
            let pools = 1 + (next() % 3) as usize;
            let picked: Vec<(u32, u32)> =
                (0..pools).map(|_| ranges[(next() % ranges.len() as u64) as usize]).collect();
            let s: Vec<char> = (0..len)
                .filter_map(|_| {
                    let (lo, hi) = picked[(next() % picked.len() as u64) as usize];
                    char::from_u32(lo + (next() % u64::from(hi - lo)) as u32)
                })
                .collect();
            same(&s);
        }
    }

    #[test]
    fn edge_cases() {
        same(&[]);
        same(&['a', 'b', '-']);
        same(&['\u{10FFFF}'; 3]);
        // Long inputs, beyond the stack buffers, and one that overflows
        // (as idna, the encoder gives up).
        same(&['ü'; 200]);
        let long: Vec<char> = (0..300u32).filter_map(|i| char::from_u32(0x4E00 + i * 7)).collect();
        same(&long);
        let overflow: Vec<char> =
            std::iter::repeat_n(['\u{80}', '\u{10FFFF}'], 5000).flatten().collect();
        assert_eq!(idna::punycode::encode(&overflow), None);
        same(&overflow);
        // Around the length where the delta first exceeds u32::MAX.
        for n in 3850..3860 {
            let v: Vec<char> = std::iter::repeat_n(['\u{80}', '\u{10FFFF}'], n).flatten().collect();
            same(&v);
            let v: Vec<char> = std::iter::repeat_n(['a', '\u{10FFFF}'], n).flatten().collect();
            same(&v);
        }
    }
}

//! A Punycode encoder ([RFC 3492 §6.3]) over a slice of code points, and
//! a decoder ([RFC 3492 §6.2]) into a reused buffer.
//!
//! Why not [`idna::punycode::encode`]: it takes a `char` iterator and, for
//! every distinct non-basic code point, scans the whole input twice (once
//! for the next smallest code point, once to emit the deltas), with
//! checked arithmetic at every step. Reading a list of a million IDN
//! labels (about ten code points each) spent about 1.5 µs a label in it,
//! more than all the other IDNA2008 work together. This encoder sorts the
//! distinct non-basic code points once and emits the same output: a test
//! compares it with `idna::punycode` on every label of the golden corpus
//! and on random strings.
//!
//! The decoder writes into a caller's `Vec<char>` (`idna::punycode::decode`
//! allocates a new vector and an insertion list per label, a third of the
//! IDNA2008 work on a zone's IDN labels) and accepts and rejects exactly
//! what `idna::punycode::decode` does (tested the same way).
//!
//! [RFC 3492 §6.2]: https://www.rfc-editor.org/rfc/rfc3492#section-6.2
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
    // Divisions by constants (multiplications) and by small variables
    // (reciprocals), not division instructions.
    delta = if first_time { delta / DAMP } else { delta / 2 };
    delta += div(delta, num_points);
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    // Here delta <= 455, so the divisor is below RECIPROCAL.len().
    k + div((BASE - T_MIN + 1) * delta, delta + SKEW)
}

/// The threshold of digit position `k` ([RFC 3492 §6.2–6.3]): T_MIN if
/// k <= bias, T_MAX if k >= bias + T_MAX, else k - bias.
///
/// [RFC 3492 §6.2–6.3]: https://www.rfc-editor.org/rfc/rfc3492#section-6.2
#[inline(always)]
fn threshold(k: u32, bias: u32) -> u32 {
    k.saturating_sub(bias).clamp(T_MIN, T_MAX)
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

/// The value of a Punycode digit (`a`–`z` and `A`–`Z` 0–25, `0`–`9`
/// 26–35; RFC 3492 §5).
#[inline]
fn digit_value(b: u8) -> Option<u32> {
    match b {
        b'a'..=b'z' => Some(u32::from(b - b'a')),
        b'A'..=b'Z' => Some(u32::from(b - b'A')),
        b'0'..=b'9' => Some(u32::from(b - b'0') + 26),
        _ => None,
    }
}

/// Decodes the Punycode `input` (without the ACE prefix) into `out`,
/// which is cleared first ([RFC 3492 §6.2]). Returns `None` where
/// `idna::punycode::decode` does: a non-ASCII basic code point, a byte
/// that is not a digit, a truncated integer, arithmetic overflow, or a
/// value that is not a code point. `out` is then unspecified.
///
/// [RFC 3492 §6.2]: https://www.rfc-editor.org/rfc/rfc3492#section-6.2
pub(crate) fn decode_into(input: &[u8], out: &mut Vec<char>) -> Option<()> {
    out.clear();
    // Basic code points are everything before the last delimiter (a
    // delimiter in first position starts the deltas, and fails there).
    let (base, deltas) = match input.iter().rposition(|&b| b == b'-') {
        Some(0) | None => (&input[..0], input),
        Some(p) => (&input[..p], &input[p + 1..]),
    };
    if !base.is_ascii() {
        return None;
    }
    out.extend(base.iter().map(|&b| char::from(b)));
    let mut n = INITIAL_N;
    let mut bias = INITIAL_BIAS;
    let mut i = 0u32;
    let mut bytes = deltas.iter();
    while let Some(&first) = bytes.next() {
        let old_i = i;
        let mut w = 1u32;
        let mut k = BASE;
        let mut b = first;
        loop {
            let d = digit_value(b)?;
            i = i.checked_add(d.checked_mul(w)?)?;
            let t = threshold(k, bias);
            if d < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
            b = *bytes.next()?;
        }
        let len = u32::try_from(out.len()).ok()?;
        bias = adapt(i - old_i, len + 1, old_i == 0);
        n = n.checked_add(i / (len + 1))?;
        i %= len + 1;
        out.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(())
}

/// `ceil(2^64 / d)` for the small divisors of [`div_rem`] and [`div`]:
/// `BASE - t`, `delta + SKEW` in [`adapt`] and most `num_points`.
static RECIPROCAL: [u64; 512] = {
    let mut r = [0u64; 512];
    // From 2: 2^64 does not fit (d = 1 is handled by `div`).
    let mut d = 2;
    while d < r.len() {
        r[d] = u64::MAX / d as u64 + 1;
        d += 1;
    }
    r
};

/// `q / d` (d ≥ 1), by a reciprocal when `d` is small: division
/// instructions are most of the encoder's time otherwise.
#[inline]
fn div(q: u32, d: u32) -> u32 {
    match d {
        1 => q,
        2..512 => ((u128::from(RECIPROCAL[d as usize]) * u128::from(q)) >> 64) as u32,
        _ => q / d,
    }
}

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

fn encode_inner(input: &[char], out: &mut String) -> Option<()> {
    let total = u32::try_from(input.len()).ok()?;
    // The input length plus one must not overflow (as in idna).
    total.checked_add(1)?;
    // Basic code points first, then a delimiter if there were any.
    let basic = input.iter().filter(|c| c.is_ascii()).count() as u32;
    out.extend(input.iter().filter(|c| c.is_ascii()));
    if basic > 0 {
        out.push('-');
    }
    match input.len() {
        0..=16 => insertions_short::<16>(input, basic, out),
        17..=64 => insertions_short::<64>(input, basic, out),
        _ => insertions_long(input, basic, out),
    }
}

/// The insertions of a label of at most `W` code points (`W` ≤ 64): the
/// positions of the code points below the current one are a bit mask,
/// so every count is a population count.
fn insertions_short<const W: usize>(input: &[char], basic: u32, out: &mut String) -> Option<()> {
    // Insertions as code point << 6 | position, padded with a larger value.
    let mut keys = [u32::MAX; W];
    let mut n = 0;
    // Positions of the code points below the current one: at first the
    // basic ones.
    let mut below = 0u64;
    for (p, &c) in input.iter().enumerate() {
        if c.is_ascii() {
            below |= 1 << p;
        } else {
            keys[n] = (c as u32) << 6 | p as u32;
            n += 1;
        }
    }
    // Sort: place each key at its rank (keys are distinct; no branches).
    let mut sorted = [0u32; W];
    for &k in &keys[..n] {
        let rank = keys.iter().fold(0u32, |r, &o| r + u32::from(o < k));
        sorted[rank as usize] = k;
    }
    // The number of positions of `below` before p (p < 64).
    let before = |below: u64, p: usize| u64::from((below & ((1u64 << p) - 1)).count_ones());
    let mut bias = INITIAL_BIAS;
    // Positions of the current code point handled so far.
    let mut round = 0u64;
    // `below` counted over the label, and before the previous insertion.
    let mut total = u64::from(below.count_ones());
    let mut before_prev = 0;
    let mut prev: Option<u32> = None;
    for (processed, &k) in (basic..).zip(&sorted[..n]) {
        let (m, p) = (k >> 6, (k & 63) as usize);
        // As in `insertions_long`; the previous position is not in `below`
        // (its code point is not below itself), so the counts after it and
        // between it and p are differences of counts before positions.
        let (step, minus) = match prev {
            Some(pm) if pm == m => (0, before_prev),
            Some(pm) => {
                let rest = total - before_prev;
                // No code point lies between pm and m.
                below |= round;
                round = 0;
                total = u64::from(below.count_ones());
                (rest + 1 + u64::from(m - pm - 1) * u64::from(processed + 1), 0)
            }
            None => (u64::from(m - INITIAL_N) * u64::from(processed + 1), 0),
        };
        let before_p = before(below, p);
        let delta = step + before_p - minus;
        before_prev = before_p;
        round |= 1 << p;
        prev = Some(m);
        bias = emit(u32::try_from(delta).ok()?, bias, processed, basic, out);
    }
    Some(())
}

/// The insertions of a label of any length.
fn insertions_long(input: &[char], basic: u32, out: &mut String) -> Option<()> {
    let cps: Vec<u32> = input.iter().map(|&c| c as u32).collect();
    // Insertions as code point << 32 | position, in the order of RFC
    // 3492's encoder: by increasing code point, then position.
    let mut keys: Vec<u64> = (0u64..)
        .zip(input)
        .filter(|(_, c)| !c.is_ascii())
        .map(|(p, &c)| u64::from(c as u32) << 32 | p)
        .collect();
    keys.sort_unstable();
    // The code points below `m` at positions lo..hi.
    let below = |m: u32, lo: usize, hi: usize| -> u64 {
        cps[lo..hi].iter().map(|&c| u64::from(c < m)).sum()
    };
    let mut bias = INITIAL_BIAS;
    let mut prev: Option<(u32, usize)> = None;
    // `processed`: the code points handled so far (RFC 3492's h).
    for (processed, &k) in (basic..).zip(&keys) {
        let (m, p) = ((k >> 32) as u32, (k as u32) as usize);
        // The delta the encoder has accumulated when it reaches this
        // insertion (RFC 3492 §6.3), summed in 64 bits: the encoder's
        // running total only grows, so it overflows exactly when this
        // sum exceeds u32::MAX.
        let delta: u64 = match prev {
            // Same code point, later position: the smaller code points
            // between the two.
            Some((pm, pp)) if pm == m => below(m, pp + 1, p),
            // Next code point: the rest of the previous round, the step
            // to the next round, the steps from `pm + 1` to `m`, and the
            // smaller code points before this one.
            Some((pm, pp)) => {
                below(pm, pp + 1, input.len())
                    + 1
                    + u64::from(m - pm - 1) * u64::from(processed + 1)
                    + below(m, 0, p)
            }
            None => u64::from(m - INITIAL_N) * u64::from(processed + 1) + below(m, 0, p),
        };
        prev = Some((m, p));
        bias = emit(u32::try_from(delta).ok()?, bias, processed, basic, out);
    }
    Some(())
}

/// Writes `delta` as a generalized variable-length integer and returns the
/// adapted bias (`processed`: RFC 3492's h before this insertion).
#[inline(always)]
fn emit(delta: u32, bias: u32, processed: u32, basic: u32, out: &mut String) -> u32 {
    let mut q = delta;
    let mut k = BASE;
    loop {
        let t = threshold(k, bias);
        if q < t {
            break;
        }
        let (quot, rem) = div_rem(q - t, BASE - t);
        out.push(digit(t + rem));
        q = quot;
        k += BASE;
    }
    out.push(digit(q));
    adapt(delta, processed + 1, processed == basic)
}

#[cfg(test)]
mod tests {
    use super::{decode_into, encode_into};

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
        let encoded = ours(input);
        assert_eq!(encoded, idna::punycode::encode(input), "{input:?}");
        if let Some(e) = encoded {
            same_decoded(&e);
        }
    }

    /// The decoder agrees with `idna::punycode::decode` on `input`.
    fn same_decoded(input: &str) {
        let mut out = vec!['x'; 3];
        let ours = decode_into(input.as_bytes(), &mut out).map(|()| out);
        assert_eq!(ours, idna::punycode::decode(input), "{input:?}");
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
        let mut next = crate::testutil::random_u64s(0x9E37_79B9_7F4A_7C15u64);
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
    fn decoder_same_as_idna_on_random_digit_strings() {
        let mut next = crate::testutil::random_u64s(0x2545_F491_4F6C_DD1Du64);
        // Digits, upper case, the delimiter, and bytes that are neither.
        let pool = b"abcdefghijklmnopqrstuvwxyz0123456789ABZ--_.\xff";
        for _ in 0..200_000 {
            let len = (next() % 24) as usize;
            let s: String =
                (0..len).map(|_| char::from(pool[(next() % pool.len() as u64) as usize])).collect();
            same_decoded(&s);
        }
        for s in [
            "",
            "-",
            "--",
            "a-",
            "-a",
            "ü-a",
            "99999999999",
            "zzzzzzzzzzzzzzzz",
            "a-9",
            "egbpdaj6bu4bxfgehfvwxn",
        ] {
            same_decoded(s);
        }
    }

    /// [`decode_into`] is injective on lower-case input: whatever decodes
    /// re-encodes to itself (see `ascii_forms`, which relies on it).
    /// Every string of up to four digits and hyphens, and random longer
    /// ones.
    #[test]
    fn decoding_lower_case_input_round_trips() {
        let alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789-";
        let mut chars = Vec::new();
        let mut out = String::new();
        let mut check = |s: &[u8]| {
            if decode_into(s, &mut chars).is_none() {
                return false;
            }
            out.clear();
            assert!(encode_into(&chars, &mut out).is_some(), "{s:?}");
            assert_eq!(out.as_bytes(), s, "{chars:?}");
            true
        };
        let mut decoded = 0u64;
        let mut s = Vec::new();
        for len in 1..=4u32 {
            for mut k in 0..(alphabet.len() as u64).pow(len) {
                s.clear();
                for _ in 0..len {
                    s.push(alphabet[(k % alphabet.len() as u64) as usize]);
                    k /= alphabet.len() as u64;
                }
                decoded += u64::from(check(&s));
            }
        }
        let mut next = crate::testutil::random_u64s(0x1234_5678_9ABC_DEF1u64);
        let pools: [&[u8]; 3] = [alphabet, b"ab9-", b"a0"];
        for round in 0..300_000u64 {
            let pool = pools[(round % 3) as usize];
            let len = 5 + (next() % 55) as usize;
            s.clear();
            s.extend((0..len).map(|_| pool[(next() % pool.len() as u64) as usize]));
            decoded += u64::from(check(&s));
        }
        assert!(decoded > 1_000_000, "{decoded}");
    }

    #[test]
    fn reciprocal_division_is_exact() {
        let qs = [0, 1, 2, 34, 35, 36, 455, 16_380, 65_535, 1 << 31, u32::MAX - 1, u32::MAX];
        for d in 1..600u32 {
            for q in qs.iter().copied().chain((0..2000).map(|i| i * 2_147_483 + d)) {
                assert_eq!(super::div(q, d), q / d, "{q} / {d}");
                if (2..36).contains(&d) {
                    assert_eq!(super::div_rem(q, d), (q / d, q % d), "{q} / {d}");
                }
            }
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

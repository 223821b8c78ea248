use super::super::state::ZoneState;
use super::super::tokens::is_ttl;
use super::super::tokens::{is_class, is_type};
use super::bytes::{next_newline, orders_increasing_at, orders_unless_same, same_at, same_bytes};
use super::chunk::{Chunk, FastOpts, Stop, push_text};
use super::extract::{extract, extract_baseline};
use super::fields::{AfterOwner, FieldsCache, check_after_owner, resolve_target, tokenizer_byte};
use super::parallel::{AheadBlock, Pages, idn_block, past_window, run};
use super::quick::QUICK_REACH;
use crate::input::Error;
use crate::input::key_order::orders_increasing;
use crate::input::reader::Reader;
use crate::input::settle::Settling;
use crate::simd::zone::{Classes32, HEAD_CLASS, low_bits};
use memchr::memchr;

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
    let config = crate::input::Config::new().origin(Some("tld."));
    let opts = FastOpts {
        apex: b"tld.",
        origin: None,
        origin_text: None,
        czds: true,
        ns: false,
        copy: false,
        settle: None,
        adopt_forms: false,
    };
    pool.install(|| {
        let mut r = Reader::new(&config).unwrap();
        let mut st = ZoneState::new(0, "z".into(), vec![], vec![], None, true);
        run(&mut r.c, &config, &mut st, buf, 0, 0, true, &opts, pages, ahead, merged)
    })
}

/// The IDN forms of a chunk go into the set as a part of its text
/// (adopted), giving every label the forms, original and key that its
/// text gives, duplicates included (the copying way is what the
/// integration tests' reads without a rule take).
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
    let config = crate::input::Config::new().origin(Some("tld."));
    let opts = FastOpts {
        apex: b"tld.",
        origin: None,
        origin_text: None,
        czds: true,
        ns: false,
        copy: false,
        settle: None,
        adopt_forms: true,
    };
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let set = pool.install(|| {
        let mut r = Reader::new(&config).unwrap();
        let mut st = ZoneState::new(0, "z".into(), vec![], vec![], None, true);
        let pages = |_: usize, _: usize| {};
        let first = buf.iter().position(|&b| b == b'\n').unwrap() + 1;
        let (next, stop) =
            run(&mut r.c, &config, &mut st, buf, 0, first, true, &opts, &pages, None, |_, _| {})
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
/// of the page cache maps all 2 MiB of it); then the rest too. The probes
/// are made while the input is advised as probed sparsely (a map read in
/// order reads megabytes from disk around each probe), and the advice is
/// back to "in order" before a chunk is read.
#[test]
fn probes_for_the_bounds_are_forgotten_before_the_chunks_are_read() {
    use std::sync::Mutex;
    /// Populated (`true`) or forgotten, and whether the input was
    /// advised as probed sparsely then.
    #[derive(Default)]
    struct Log {
        events: Mutex<Vec<(bool, usize, usize, bool)>>,
        sparse: Mutex<bool>,
    }
    impl Log {
        fn push(&self, populated: bool, start: usize, end: usize) {
            let sparse = *self.sparse.lock().unwrap();
            self.events.lock().unwrap().push((populated, start, end, sparse));
        }
    }
    impl Pages for Log {
        fn populate(&self, start: usize, end: usize) {
            self.push(true, start, end);
        }
        fn forget(&self, start: usize, end: usize) {
            self.push(false, start, end);
        }
        fn probing(&self, _start: usize, _end: usize, sparse: bool) {
            *self.sparse.lock().unwrap() = sparse;
        }
    }
    let buf = dump(400_000);
    let log = Log::default();
    let res = run_with(&buf, 2, &log, None, |_, _| {});
    assert_eq!(res.expect("read").0, buf.len());
    let log = log.events.into_inner().unwrap();
    let first_read = log.iter().position(|e| e.0).expect("chunks were read");
    let (forgotten, read) = log.split_at(first_read);
    // The whole input after the probes, last.
    assert_eq!(forgotten.last().map(|e| (e.1, e.2, e.3)), Some((0, buf.len(), false)));
    let probes = &forgotten[..forgotten.len() - 1];
    assert!(probes.iter().all(|e| e.3), "every probe is made while advised sparse");
    let mut starts: Vec<usize> = read.iter().filter(|e| e.0).map(|e| e.1).collect();
    starts.sort_unstable();
    assert!(starts.len() > 8, "{} chunks", starts.len());
    assert!(read.iter().all(|e| e.0 && !e.3), "nothing forgotten, nor sparse, while reading");
    for &b in &starts[1..] {
        // The probe for bound `b` read from `b - 1` or before, up to
        // the newline at `b - 1`.
        assert!(
            probes.iter().any(|&(_, s, e, _)| s < b && b - 1 < e),
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
    // A settling never given a rule: nothing is settled.
    let buf = dump(400_000);
    // A block of a quarter of the input, at line starts, with more
    // than the window of chunks after it.
    let at = |f: usize| buf[..f].iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
    let range = (at(buf.len() / 8), at(buf.len() * 3 / 8));
    let nothing = Settling::default();
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
    let mut next = crate::testutil::random_u64s(0x2545_f491_4f6c_dd1d);
    for len in 0..400usize {
        let buf: Vec<u8> = (0..len)
            .map(|_| {
                let x = next();
                // Newlines rarer than other bytes: lines of all lengths.
                [b'\n', b'\x0b', b'\x8a', b'a', 0, b'\t', b'a', b'b', b'c', b'd'][(x % 10) as usize]
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
                    assert_eq!(next_newline::<true, false>(&buf, pos, end), want, "{pos} {end}");
                }
            }
        }
    }
}

#[test]
fn simd_classes_and_compares_agree_with_the_byte_loops() {
    let mut next = crate::testutil::random_u64s(0x9E37_79B9_7F4A_7C15u64);
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
        let simple =
            tab.is_some_and(|t| buf[..t].iter().all(|&b| HEAD_CLASS[b as usize] == 0 || b == b'.'));
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

/// [`check_after_owner`] as the general parser reads a line's fields: split
/// on tabs, spaces and CRs, TTLs and classes skipped, then the type;
/// an NS record needs a target that resolves.
fn after_owner_reference(rest: &[u8], origin: &[Vec<u8>]) -> Option<Option<Vec<u8>>> {
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
    if !is_type(ty, b"NS", 2) {
        if seen.concat().iter().any(|&b| tokenizer_byte(b)) {
            return None;
        }
        // RDATA in the generic form: as long as its length says, or
        // malformed (RFC 3597 §5); a field that starts `\#` and is more
        // (`\#;`) is read apart.
        return match toks.next() {
            Some(first) if first.starts_with(b"\\#") => {
                (first == b"\\#" && crate::input::rdata::generic(toks).is_ok()).then_some(None)
            }
            _ => Some(None),
        };
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
fn after_owner_as_the_general_parser_reads_it() {
    let origin = vec![b"tld".to_vec()];
    // The cache points into the buffer: the lines of one sequence go
    // into one buffer (followed by bytes that are not loaded as part of
    // any line).
    let check = |(cache, buf): &mut (FieldsCache, Vec<u8>), rest: &[u8]| {
        let want = after_owner_reference(rest, &origin);
        buf.truncate(buf.len().saturating_sub(40));
        buf.extend_from_slice(b"\nowner.tld.");
        let at = buf.len();
        buf.extend_from_slice(rest);
        let end = buf.len();
        buf.extend_from_slice(&[b'x'; 40]);
        let mut owned = Vec::new();
        let got = match check_after_owner::<false>(
            cache,
            buf,
            (at, end),
            true,
            Some(&origin),
            &mut owned,
        ) {
            AfterOwner::Slow => None,
            AfterOwner::Record | AfterOwner::Soa => Some(None),
            AfterOwner::Ns(r) => Some(Some(buf[r].to_vec())),
            AfterOwner::NsOwned => Some(Some(owned)),
        };
        assert_eq!(got, want, "{:?}", rest.escape_ascii());
    };
    let fixed: [&[u8]; 34] = [
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
        b"\t1\tin\tTYPE2\tns1.example.net.",
        b"\t1\tin\ttype2\tNS1",
        b"\t1\tin\tTYPE2\t\\# 3 01 61 00",
        b"\t1\tin\tTYPE20\tns1.example.net.",
        b"\t1\tin\ta\t192.0.2.1",
        b"\t1\tin\ta\t\\# 4 c0000201",
        b"\t1\tin\ta\t\\# 4 c0 00 02 01\r",
        b"\t1\tin\ta\t  \\# 3 c0000201",
        b"\t1\tin\tTYPE46\t\\# 22 0032 0802",
        b"\t1\tin\ta\t\\# 0",
        b"\t1\tin\ta\t\\#;",
        b"\t1\tin\ta\t\\#x 1 00",
        b"\t1\tin\tcname\t\\065.",
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
    let mut next = crate::testutil::random_u64s(0x2545_F491_4F6C_DD1Du64);
    let words: [&[u8]; 22] = [
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
        b"\\#",
        b"1",
        b"00",
        b"0a0",
        b"\\#;",
    ];
    let mut seq = Default::default();
    for _ in 0..50_000 {
        let mut rest = Vec::new();
        for _ in 0..(next() % 6) {
            rest.push([b'\t', b'\t', b' ', b'\r'][(next() % 4) as usize]);
            rest.extend_from_slice(words[(next() % 22) as usize]);
        }
        check(&mut seq, &rest);
    }
}

#[test]
fn text_pushed_as_a_copy() {
    let mut next = crate::testutil::random_u64s(0x0DDB_A11C_0FFE_E123);
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
                ns1.a.com.\t1\tin\ta\t192.0.2.1\nb.org.\t1\tin\ta\t192.0.2.2\n\
                com.\t1\tin\tns\tx.\nB.com.\t1\tin\tns\tns1.x.net.\n x\n";
    let o = FastOpts {
        apex: b"com.",
        origin: None,
        origin_text: None,
        czds: true,
        ns: true,
        copy: true,
        settle: None,
        adopt_forms: false,
    };
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
        "{} {:?} {} {} {} {} {} {:?} {:?} {:?} {} {:?} {:?} {:?} {} {:?} {:?} {:?}",
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
/// and text copied, one with neither, the root; and the first two for a
/// master file under `$ORIGIN com.` (relative and blank owners).
fn test_opts() -> Vec<FastOpts<'static>> {
    let origin: &'static [Vec<u8>] = Box::leak(vec![b"com".to_vec()].into_boxed_slice());
    let czds = [(&b"com."[..], true, true), (b"com.", false, false), (b".", true, false)];
    let master = [(&b"com."[..], true, true), (b"com.", false, false)];
    let opts = |(apex, ns, copy), czds: bool| FastOpts {
        apex,
        origin: (!czds).then_some(origin),
        origin_text: (!czds).then_some(&b"com."[..]),
        czds,
        ns,
        copy,
        settle: None,
        adopt_forms: false,
    };
    czds.into_iter()
        .map(|o| opts(o, true))
        .chain(master.into_iter().map(|o| opts(o, false)))
        .collect()
}

/// The baseline compilation of the fast path and the one [`extract`]
/// picks for this CPU (AVX2 and BMI2 when it has them) give the same
/// chunks, on random dumps of lines that fit the profile or not.
#[test]
fn baseline_and_dispatched_extraction_agree() {
    let mut next = crate::testutil::random_u64s(0x5851_f42d_4c95_7f2d);
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
    let mut next = crate::testutil::random_u64s(0x2f6b_94c3_1a0d_e557);
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

//! Helpers shared by the fuzz targets: each target stays a thin call into
//! lgrscan's public API, with the checks that must hold on any input.

use std::io::Write;
use std::sync::OnceLock;

use lgrscan::input::{Config, Input, InputFormat, LabelSet, LabelText, read};
use lgrscan::lgr::{IndexMode, Lgr};

/// Most code points of a label judged by the targets: a DNS label has at
/// most 63 octets, so no U-label is longer.
pub const MAX_LABEL_CPS: usize = 63;

/// Steps of variant generation allowed per label ([`Lgr::variants`]).
pub const VARIANT_STEPS: usize = 4096;

/// Judges `cps` under `lgr`: verdict, index label in both modes, variant
/// labels, and checks that every variant label generated is also found by
/// [`Lgr::variant_disposition`] with the same disposition.
pub fn judge_all(lgr: &Lgr, cps: &[u32]) {
    let cps = &cps[..cps.len().min(MAX_LABEL_CPS)];
    let verdict = lgr.judge(cps);
    let _ = lgr.reason_text(&verdict.reason);
    let index = lgr.index_label(cps);
    let _ = lgr.variant_estimate(cps);
    if let Ok(vars) = lgr.variants(cps, VARIANT_STEPS) {
        for v in vars.iter().take(64) {
            let _ = lgr.variant_reason_text(v);
            let again = lgr.variant_disposition(cps, &v.cps);
            let again = again
                .unwrap_or_else(|| panic!("variant {:04X?} of {cps:04X?} not found again", v.cps));
            assert_eq!(again.disposition, v.disposition, "variant {:04X?} of {cps:04X?}", v.cps);
        }
    }
    let _ = lgr.first_variants(cps, 8);
    let _ = index;
}

/// Loads an LGR from fuzz bytes and, when it loads, runs what `lgr info`
/// and `explain` run on it: the RFC 8228 checks, and [`judge_all`] on a
/// label made of its first elements and on `extra`.
pub fn exercise_lgr(lgr: Result<Lgr, lgrscan::LgrError>, extra: &[u32]) {
    let Ok(lgr) = lgr else { return };
    let _ = lgrscan::lgr::check::info(&lgr);
    let label: Vec<u32> =
        lgr.doc().chars.iter().take(4).flat_map(|c| c.cps.iter().copied()).collect();
    judge_all(&lgr, &label);
    judge_all(&lgr, extra);
    let lgr = lgr.with_index_mode(IndexMode::Rfc7940);
    let _ = lgr.index_label(&label);
}

/// The labels of a read, with everything a report shows of them, and the
/// accounting; or the error.
pub fn outcome(result: Result<LabelSet, lgrscan::input::Error>) -> Result<Vec<String>, String> {
    let set = result.map_err(|e| e.to_string())?;
    set.accounting().check().map_err(|e| format!("accounting does not add up: {e}"))?;
    let mut out: Vec<String> = set
        .iter()
        .map(|l| {
            format!(
                "{:?} {} {} {:?} line={} off={} ns={:?} finding={:?}",
                l.original_text(),
                l.alabel(),
                l.ulabel(),
                l.csv(),
                l.line(),
                l.offset(),
                l.ns_targets().collect::<Vec<_>>(),
                l.finding().map(|f| f.to_string())
            )
        })
        .collect();
    out.push(format!("apex={:?} {:?}", set.apex(), set.accounting()));
    Ok(out)
}

fn pool(threads: usize) -> &'static rayon::ThreadPool {
    static POOLS: OnceLock<[rayon::ThreadPool; 2]> = OnceLock::new();
    let pools = POOLS.get_or_init(|| {
        [1, 3].map(|n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap())
    });
    &pools[usize::from(threads > 1)]
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Reads `data` (format `format`, or detected) every way the library
/// offers and asserts the results are the same: in memory with the default
/// windows (the reference), as a stream (gzip), and in memory cut into
/// windows and parallel chunks of `chunk` bytes on 1 and 3 threads, with
/// label text borrowed and copied.
pub fn read_every_way(data: &[u8], format: Option<InputFormat>, chunk: usize) {
    let input = || Input::Bytes { name: "fuzz".into(), data: data.to_vec() };
    let base_config = Config::new().format(format);
    let base = pool(1).install(|| outcome(read([input()], &base_config)));
    let check = |what: &str, got: Result<Vec<String>, String>| {
        if got != base {
            let (a, b) = (format!("{base:#?}"), format!("{got:#?}"));
            let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            let from = at.saturating_sub(200);
            panic!(
                "{what} differs from the default read at byte {at}:\n--- default\n{}\n--- {what}\n{}",
                a.get(from..(at + 400).min(a.len())).unwrap_or(&a),
                b.get(from..(at + 400).min(b.len())).unwrap_or(&b),
            );
        }
    };
    if let Ok(lines) = &base {
        // The reference itself must be sane before comparing.
        assert!(!lines.is_empty());
    }
    let gz = Input::Bytes { name: "fuzz".into(), data: gzip(data) };
    check("gzip stream", outcome(read([gz], &base_config)));
    let chunked = base_config.clone().chunk_bytes(Some(chunk));
    let gz = Input::Bytes { name: "fuzz".into(), data: gzip(data) };
    check("gzip stream, small buffers", outcome(read([gz], &chunked)));
    for threads in [1, 3] {
        for text in [LabelText::Borrow, LabelText::Copy] {
            let config = chunked.clone().label_text(text);
            let got = pool(threads).install(|| outcome(read([input()], &config)));
            check(&format!("chunks of {chunk} on {threads} threads, {text:?}"), got);
        }
    }
}

/// A label for `lgr` from fuzz bytes. An even first byte: the rest is
/// text (UTF-8, lossily). An odd one: each further pair of bytes picks an
/// element of the repertoire (or, with the top bit, its first variant),
/// so that most labels are made of code points the LGR knows.
pub fn label_from(lgr: &Lgr, data: &[u8]) -> Vec<u32> {
    let Some((&mode, rest)) = data.split_first() else { return Vec::new() };
    let chars = &lgr.doc().chars;
    if mode % 2 == 0 || chars.is_empty() {
        return String::from_utf8_lossy(rest).chars().map(u32::from).collect();
    }
    let mut cps = Vec::new();
    for pair in rest.chunks_exact(2) {
        let k = u16::from_le_bytes([pair[0], pair[1]]);
        let c = &chars[usize::from(k & 0x7fff) % chars.len()];
        match c.variants.first() {
            Some(v) if k & 0x8000 != 0 => cps.extend_from_slice(&v.cps),
            _ => cps.extend_from_slice(&c.cps),
        }
        if cps.len() >= MAX_LABEL_CPS {
            break;
        }
    }
    cps
}

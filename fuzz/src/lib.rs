//! What the fuzz targets run, with the checks that must hold on any input:
//! each target is one call of a function here (named after it), which
//! calls lgrscan's public API. The tests' helper module (tests/util)
//! includes this file: `cli::fuzz_replay` replays the reproducers of
//! `tests/hostile/fuzz/` through the same functions, so it needs no nightly
//! toolchain, and the input tests compare reads with [`label_lines`].

use std::io::Write;
use std::path::PathBuf;
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
            let steps = lgr.variant_replacements(cps, &v.cps);
            let steps = steps.unwrap_or_else(|| panic!("no way to {:04X?} from {cps:04X?}", v.cps));
            assert_eq!(rebuilt(cps, &steps), v.cps, "replacements of {cps:04X?}");
        }
    }
    let _ = lgr.first_variants(cps, 8);
    let _ = index;
}

/// `cps` with each replacement put in at its place.
fn rebuilt(cps: &[u32], steps: &[lgrscan::lgr::Replacement]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut at = 0;
    for r in steps {
        assert!(r.at >= at && cps[r.at..].starts_with(&r.element), "{r:?} in {cps:04X?}");
        assert_ne!(r.element, r.variant, "{r:?}");
        out.extend_from_slice(&cps[at..r.at]);
        out.extend_from_slice(&r.variant);
        at = r.at + r.element.len();
    }
    out.extend_from_slice(&cps[at..]);
    out
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

/// Each label of `set` with everything a report shows of it, in order:
/// two reads of the same content must give the same lines.
pub fn label_lines(set: &LabelSet) -> Vec<String> {
    set.iter()
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
        .collect()
}

/// The labels of a read ([`label_lines`]) and the accounting; or the
/// error.
pub fn outcome(result: Result<LabelSet, lgrscan::input::Error>) -> Result<Vec<String>, String> {
    let set = result.map_err(|e| e.to_string())?;
    set.accounting().check().map_err(|e| format!("accounting does not add up: {e}"))?;
    let mut out = label_lines(&set);
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

/// `data` compressed as one gzip member.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Reads `data` (format `format`, or detected) every way the library
/// offers and asserts the results are the same: in memory with the default
/// windows (the reference), by the zone reader's careful parser alone, as a
/// stream (gzip), and in memory cut into
/// windows and parallel chunks of `chunk` bytes on 1 and 3 threads, with
/// label text borrowed and copied.
pub fn read_every_way(data: &[u8], format: Option<InputFormat>, chunk: usize) {
    read_every_way_in(data, Config::new().format(format), chunk);
}

/// [`read_every_way`] from `base_config` (a format, an origin).
fn read_every_way_in(data: &[u8], base_config: Config, chunk: usize) {
    let input = || Input::Bytes { name: "fuzz".into(), data: data.to_vec() };
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
    // The careful parser alone reads a zone file as the fast path does.
    let careful = base_config.clone().zone_fast_path(false);
    check("careful parser alone", pool(1).install(|| outcome(read([input()], &careful))));
    let chunked = base_config.clone().chunk_bytes(Some(chunk));
    // Bytes that start with the gzip magic are a (damaged) gzip stream
    // themselves, and their gzip is not.
    if !data.starts_with(&[0x1f, 0x8b]) {
        let gz = Input::Bytes { name: "fuzz".into(), data: gzip(data) };
        check("gzip stream", outcome(read([gz], &base_config)));
        let gz = Input::Bytes { name: "fuzz".into(), data: gzip(data) };
        check("gzip stream, small buffers", outcome(read([gz], &chunked)));
    }
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

/// Target `lgr_xml`: any bytes as an RFC 7940 document (`Lgr::from_bytes`).
pub fn lgr_xml(data: &[u8]) {
    exercise_lgr(Lgr::from_bytes("fuzz.xml", data), &[0x61, 0x2d, 0x30]);
}

/// Target `lgr_table`: any text as an RFC 3743 table or code point list.
pub fn lgr_table(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    exercise_lgr(Lgr::from_table("fuzz.txt", &text), &[0x61, 0x2d, 0x30]);
}

/// Target `zone_paths`: the first byte picks the chunk size (1 to 64, its
/// low six bits), whether `--origin tld.` is given (bit 6) and whether the
/// format is forced to `zone` (top bit clear) or detected.
pub fn zone_paths(data: &[u8]) {
    let Some((&knobs, rest)) = data.split_first() else { return };
    let format = (knobs & 0x80 == 0).then_some(InputFormat::Zone);
    // With `--origin`, relative names before any `$ORIGIN` are read under it.
    let origin = (knobs & 0x40 != 0).then_some("tld.");
    let config = Config::new().format(format).origin(origin);
    read_every_way_in(rest, config, usize::from(knobs & 0x3f) + 1);
}

/// Target `list_csv`: the first byte picks the format (list, CSV,
/// detected) and the chunk size.
pub fn list_csv(data: &[u8]) {
    let Some((&knobs, rest)) = data.split_first() else { return };
    let format = match knobs % 3 {
        0 => Some(InputFormat::List),
        1 => Some(InputFormat::Csv),
        _ => None,
    };
    read_every_way(rest, format, usize::from(knobs >> 2) + 1);
}

/// ICANN LGRs the `label_eval` target reads at run time when present (they
/// are not copied into the project).
const ICANN: [&str; 2] =
    ["lgr/lgr-second-level-arabic-script-31may22-en.xml", "lgr/lgr-5-latin-script-26may22-en.xml"];

/// The reference data: `$LGRSCAN_REFERENCE_DIR`, else the `shared`
/// directory beside the project.
fn reference_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("LGRSCAN_REFERENCE_DIR") {
        return Some(PathBuf::from(d));
    }
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().map(|a| a.join("shared")).find(|d| d.join("lgr").is_dir())
}

/// The built-in LGRs, then the ICANN ones found.
pub fn eval_lgrs() -> &'static [Lgr] {
    static LGRS: OnceLock<Vec<Lgr>> = OnceLock::new();
    LGRS.get_or_init(|| {
        let mut all: Vec<Lgr> = lgrscan::builtin::BUILTINS
            .iter()
            .map(|b| lgrscan::builtin::load(b.name).expect("built-in LGR loads"))
            .collect();
        if let Some(dir) = reference_dir() {
            all.extend(ICANN.iter().filter_map(|rel| Lgr::from_path(&dir.join(rel)).ok()));
        }
        all
    })
}

/// Target `label_eval`: the first byte picks the LGR of [`eval_lgrs`], the
/// rest is the label ([`label_from`]), judged by [`judge_all`].
pub fn label_eval(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let lgrs = eval_lgrs();
    let lgr = &lgrs[usize::from(pick) % lgrs.len()];
    judge_all(lgr, &label_from(lgr, rest));
}

/// A label's forms, when it has no finding, convert back and forth to
/// themselves.
fn valid_forms_round_trip(f: &lgrscan::idna2008::LabelForms) {
    use lgrscan::idna2008 as idna;
    if f.finding.is_some() {
        return;
    }
    assert!(f.alabel.is_ascii(), "{f:?}");
    assert!(f.alabel.len() <= idna::MAX_LABEL_OCTETS, "{f:?}");
    assert!(!f.alabel.bytes().any(|b| b.is_ascii_uppercase()), "{f:?}");
    for text in [&f.alabel, &f.ulabel] {
        let again = idna::to_labels(text);
        assert_eq!(&again, f, "from {text:?}");
    }
    assert_eq!(idna::to_alabel(&f.ulabel).as_ref(), Ok(&f.alabel));
    assert_eq!(idna::to_ulabel(&f.alabel).as_ref(), Ok(&f.ulabel));
    if !f.ulabel.is_ascii() {
        assert_eq!(idna::check_ulabel(&f.ulabel), Ok(()), "{f:?}");
    }
}

/// Target `idna_roundtrip`: any bytes as a label and as the Punycode of an
/// A-label (RFC 5891, RFC 3492).
pub fn idna_roundtrip(data: &[u8]) {
    use lgrscan::idna2008 as idna;
    valid_forms_round_trip(&idna::to_labels_bytes(data));
    let mut ace = b"xn--".to_vec();
    ace.extend_from_slice(data);
    valid_forms_round_trip(&idna::to_labels_bytes(&ace));
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = idna::check_ulabel(text);
        let _ = idna::check_ltr_label_in_bidi_name(text);
        if let Ok(a) = idna::to_alabel(text) {
            let u = idna::to_ulabel(&a).expect("an A-label made by to_alabel decodes");
            assert_eq!(idna::to_alabel(&u).as_ref(), Ok(&a));
        }
    }
}

/// The function of the target `name`.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    Some(match name {
        "lgr_xml" => lgr_xml,
        "lgr_table" => lgr_table,
        "zone_paths" => zone_paths,
        "list_csv" => list_csv,
        "idna_roundtrip" => idna_roundtrip,
        "label_eval" => label_eval,
        _ => return None,
    })
}

/// An index file from arbitrary bytes: opening it, checking every block,
/// reading its LGRs and checking a few candidates must give an error or an
/// answer, never a panic or an out-of-bounds read (issue #29). The seeds
/// are small valid indexes (seed.sh), so mutations reach past the header.
pub fn index_reader(data: &[u8]) {
    let Ok(index) = lgrscan::index::Index::from_bytes(data.to_vec()) else { return };
    let _ = index.verify();
    let _ = index.meta(0);
    let _ = index.source(0);
    let mut out = Vec::new();
    for key in ["a", "१", "xn--", ""] {
        let _ = index.lookup(lgrscan::index::key_hash(key.chars().map(u32::from)), &mut out);
    }
    // Compiling its LGRs is the slow part: only for small embedded ones.
    if index.spec().judges.iter().all(|l| l.bytes.len() < 4096)
        && let Ok(set) = index.spec().compile()
    {
        let cands: Vec<lgrscan::sunrise::Candidate> = ["a", "ab", "a-b", "1"]
            .iter()
            .map(|t| lgrscan::sunrise::Candidate { text: (*t).into(), ..Default::default() })
            .collect();
        let _ = lgrscan::sunrise::check(&index, &set, &cands, &Default::default());
        // Enough candidates for the batch path (parallel, with look-ups
        // that prefetch from the damaged index ahead of reading it).
        let many: Vec<lgrscan::sunrise::Candidate> = (0..300)
            .map(|i| lgrscan::sunrise::Candidate {
                text: format!("a{i}").into(),
                ..Default::default()
            })
            .collect();
        let _ = lgrscan::sunrise::check(&index, &set, &many, &Default::default());
    }
}

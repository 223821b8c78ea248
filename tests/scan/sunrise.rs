//! Sunrise checks through the library: every status, contention with both
//! priorities, registrant matching, LGR mismatch refusal, damaged index
//! files, and the property of issue #29: a candidate's verdict is what a
//! scan of the registered labels followed by the candidates says of it.

use lgrscan::index::format::FORMAT_VERSION;
use lgrscan::index::{self, Index, LgrSpec, ScanMode};
use lgrscan::input::{self, Input, InputFormat, LabelSet};
use lgrscan::report::meta::InputMeta;
use lgrscan::scan::{self, FindingKind, HolderPolicy, Role, ScanConfig};
use lgrscan::sunrise::{
    self, Applicant, Candidate, CheckConfig, Priority, SameRegistrant, Status, Verdict,
};
use std::collections::HashMap;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(inputs: Vec<Input>, format: Option<InputFormat>) -> LabelSet {
    input::read(inputs, &input::Config::new().format(format)).expect("inputs read")
}

fn list(labels: &[String]) -> LabelSet {
    let mut data = labels.join("\n").into_bytes();
    data.push(b'\n');
    read(vec![Input::Bytes { name: "list".into(), data }], Some(InputFormat::List))
}

/// The index of `labels` under `spec`, written to bytes and opened.
fn index_bytes(labels: &LabelSet, spec: &LgrSpec) -> Vec<u8> {
    let set = spec.compile().expect("set compiles");
    let mut out = Vec::new();
    index::write(&mut out, labels, spec, &set, &[]).expect("index written");
    out
}

fn default_spec(mode: ScanMode) -> LgrSpec {
    LgrSpec::from_flags(&[], None, mode).expect("built-in set")
}

fn check<'a>(
    index: &'a Index,
    candidates: &'a [Candidate],
    config: &CheckConfig,
) -> Vec<Verdict<'a>> {
    let set = index.spec().compile().expect("set compiles");
    sunrise::check(index, &set, candidates, config).expect("check runs")
}

fn samples_index() -> Index {
    let labels = read(vec![Input::Path(root().join("samples/labels.csv"))], None);
    Index::from_bytes(index_bytes(&labels, &default_spec(ScanMode::Verified))).expect("opens")
}

fn sample_candidates() -> Vec<Candidate<'static>> {
    let bytes = std::fs::read(root().join("samples/candidates.csv")).expect("samples");
    let read = sunrise::read_candidates("candidates.csv", &bytes).expect("candidates read");
    read.into_iter().map(Candidate::into_owned).collect()
}

#[test]
fn samples_plant_every_status() {
    let index = samples_index();
    let candidates = sample_candidates();
    let got = check(&index, &candidates, &CheckConfig::default());
    let statuses: Vec<&str> = got.iter().map(|v| v.status.as_str()).collect();
    assert_eq!(
        statuses,
        [
            "available",
            "registered",
            "registered",
            "variant-blocked",
            "variant-allocatable",
            "invalid",
            "contention",
            "contention"
        ]
    );
    // The A-label form of a registered U-label is that label.
    assert_eq!(got[2].holder.as_ref().map(|h| &*h.ulabel), Some("آئینہ"));
    let blocked = &got[3];
    let holder = blocked.holder.as_ref().expect("a holder");
    assert_eq!((&*holder.ulabel, holder.line), ("آئینہ", 4));
    assert_eq!(holder.registrant.as_deref(), Some("reg-2001"));
    assert_eq!(blocked.detail().disposition, "blocked");
    // Two elements replaced, each by its own variant mapping (the Farsi
    // yeh and noon between them unchanged, so not listed).
    let two = vec![(vec![0x0626], vec![0x06CC, 0x0654]), (vec![0x06C1], vec![0x06C3])];
    assert_eq!(blocked.detail().mapping, Some(two));
    let alloc = &got[4];
    assert_eq!(alloc.detail().disposition, "allocatable");
    assert_eq!(alloc.detail().same_registrant, Some(SameRegistrant::Yes));
    assert_eq!(alloc.detail().mapping, Some(vec![(vec![0x0626], vec![0x06CC, 0x0654])]));
    assert_eq!(got[5].detail().lgr, "IDNA2008");
    // One contention set; the first in input order wins.
    assert_eq!((got[6].set, got[7].set), (Some(1), Some(1)));
    assert!(got[6].holder.is_none());
    assert_eq!(got[7].holder.as_ref().and_then(|h| h.candidate), Some(6));
}

/// A batch of more than 256 candidates goes through the parallel,
/// prefetching path: the planted samples among 300 fresh labels (which
/// collide with nothing) get the verdicts they get alone, and are placed
/// anywhere in the batch.
#[test]
fn a_large_batch_answers_as_a_small_one() {
    let index = samples_index();
    let cands = sample_candidates();
    let alone = check(&index, &cands, &CheckConfig::default());
    let fresh =
        |i: usize| Candidate { text: format!("zz-fresh-{i}").into(), ..Candidate::default() };
    for at in [0, 150, 300] {
        let mut batch: Vec<Candidate> = (0..300).map(fresh).collect();
        batch.splice(at..at, cands.iter().cloned());
        let mut got = check(&index, &batch, &CheckConfig::default());
        // A candidate holder is named by its position in the batch.
        for v in &mut got[at..at + cands.len()] {
            if let Some(c) = v.holder.as_mut().and_then(|h| h.candidate.as_mut()) {
                *c -= at;
            }
        }
        assert_eq!(&got[at..at + cands.len()], &alone[..], "samples at {at}");
        for (i, v) in got.iter().enumerate() {
            if !(at..at + cands.len()).contains(&i) {
                assert_eq!(v.status, Status::Available, "{}", batch[i].text);
            }
        }
    }
}

/// An index file opened through a map answers as the same index in
/// memory: one candidate (the map read at random, a block at a time) and
/// then a batch large enough for the read-around (one look-up per MiB of
/// the data region, see `Index::expect_lookups`), over a 3 MB index.
/// An index written before its inputs' facts are known, its first bytes
/// last ([`index::Prepared::write_unsealed`]), is the index written with
/// them, but for spaces after its header; facts that need more room than
/// was left for them are an error.
#[test]
fn an_index_sealed_last_is_the_index_written_whole() {
    let path = root().join("samples/labels.csv").display().to_string();
    let labels = read(vec![Input::Path(path.clone().into())], None);
    let spec = default_spec(ScanMode::Verified);
    let set = spec.compile().expect("set compiles");
    let prepared = index::prepare(&labels, &set).expect("prepared");
    let facts = [InputMeta::of(&path).expect("facts")];
    let mut whole = Vec::new();
    prepared.write(&mut whole, &spec, &facts).expect("written whole");
    let mut sealed = Vec::new();
    let unsealed = prepared
        .write_unsealed(&mut sealed, &spec, std::slice::from_ref(&path), &[])
        .expect("written");
    assert!(Index::from_bytes(sealed.clone()).is_err(), "opened before it is sealed");
    let start = unsealed.seal(&facts).expect("sealed");
    sealed[..start.len()].copy_from_slice(&start);
    let (whole, sealed) = (Index::from_bytes(whole).unwrap(), Index::from_bytes(sealed).unwrap());
    sealed.verify().expect("every block checks");
    assert_eq!(sealed.header(), whole.header());
    assert_eq!(sealed.header()["inputs"][0]["sha256"], facts[0].sha256.as_deref().unwrap());
    let candidates = sample_candidates();
    let config = CheckConfig::default();
    assert_eq!(check(&sealed, &candidates, &config), check(&whole, &candidates, &config));
    let mut other = Vec::new();
    let unsealed = prepared
        .write_unsealed(&mut other, &spec, std::slice::from_ref(&path), &[])
        .expect("written");
    let longer = InputMeta { path: format!("{path}{}", "x".repeat(64)), ..facts[0].clone() };
    assert!(unsealed.seal(&[longer]).is_err());
}

#[test]
fn a_mapped_index_answers_as_one_in_memory() {
    let labels: Vec<String> = (0..120_000).map(|i| format!("l{i}x{}", i % 97)).collect();
    let bytes = index_bytes(&list(&labels), &default_spec(ScanMode::Verified));
    assert!(bytes.len() > 2 << 20, "{} bytes", bytes.len());
    let file = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(file.path(), &bytes).expect("index written");
    let mapped = Index::open(file.path()).expect("opens mapped");
    let owned = Index::from_bytes(bytes).expect("opens in memory");
    // Registered labels (even i) and fresh ones (odd i), all distinct.
    let cand = |i: usize| {
        let text =
            if i.is_multiple_of(2) { format!("l{i}x{}", i % 97) } else { format!("fresh{i}") };
        Candidate { text: text.into(), ..Candidate::default() }
    };
    let config = CheckConfig::default();
    let one = [cand(77 * 2)];
    assert_eq!(check(&mapped, &one, &config), check(&owned, &one, &config));
    assert_eq!(check(&mapped, &one, &config)[0].status, Status::Registered);
    let many: Vec<Candidate> = (0..64).map(|i| cand(i * 1871)).collect();
    let got = check(&mapped, &many, &config);
    assert_eq!(got, check(&owned, &many, &config));
    for (i, v) in got.iter().enumerate() {
        let want =
            if (i * 1871).is_multiple_of(2) { Status::Registered } else { Status::Available };
        assert_eq!(v.status, want, "{}", many[i].text);
    }
    mapped.verify().expect("every block checks");
}

/// An index whose data region is written in several batches of pieces
/// (`index::Prepared::write`: 400,000 labels make 13 chunks of label
/// records and of text) finds each label at its own text and line: at
/// every chunk's first and last label and a stride between.
#[test]
fn an_index_written_in_many_pieces_finds_each_label() {
    let n = 400_000;
    let labels: Vec<String> = (0..n).map(|i| format!("w{i}-{}", "q".repeat(i % 7))).collect();
    let bytes = index_bytes(&list(&labels), &default_spec(ScanMode::Verified));
    let index = Index::from_bytes(bytes).expect("opens");
    index.verify().expect("every block checks");
    // The index builder's chunk of labels (`index::build`'s `CHUNK`).
    let chunk = 1 << 15;
    let mut at: Vec<usize> = (0..n).step_by(997).collect();
    at.extend((chunk..n).step_by(chunk).flat_map(|c| [c - 1, c]));
    at.push(n - 1);
    let cands: Vec<Candidate> = at
        .iter()
        .map(|&i| Candidate { text: labels[i].as_str().into(), ..Candidate::default() })
        .collect();
    for (v, &i) in check(&index, &cands, &CheckConfig::default()).iter().zip(&at) {
        assert_eq!(v.status, Status::Registered, "{}", labels[i]);
        let holder = v.holder.as_ref().expect("a registered label names itself");
        assert_eq!((holder.alabel.as_ref(), holder.line), (labels[i].as_str(), i as u64 + 1));
    }
}

#[test]
fn contention_follows_the_priority() {
    let index = samples_index();
    let cands = sample_candidates();
    let by_date = CheckConfig { priority: Priority::Date, ..CheckConfig::default() };
    let got = check(&index, &cands, &by_date);
    // ក្តារ has the earlier priority date: it wins.
    assert_eq!(got[6].status, Status::Contention);
    assert_eq!(got[6].holder.as_ref().and_then(|h| h.candidate), Some(7));
    assert!(got[7].holder.is_none());
    assert_eq!(got[6].set, got[7].set);
    // A duplicate candidate contends with the first of its label.
    let dup: Vec<Candidate> = ["freshname", "FreshName", "other-fresh"]
        .iter()
        .map(|t| Candidate { text: (*t).into(), ..Candidate::default() })
        .collect();
    let got = check(&index, &dup, &CheckConfig::default());
    let s: Vec<_> = got.iter().map(|v| (v.status, v.set)).collect();
    assert_eq!(
        s,
        [(Status::Contention, Some(1)), (Status::Contention, Some(1)), (Status::Available, None)]
    );
}

#[test]
fn registrants_are_matched() {
    let index = samples_index();
    let one = |registrant: Option<&str>| {
        let c = Candidate {
            text: "آیٔین".into(),
            applicant: Applicant {
                registrant: registrant.map(str::to_string),
                ..Applicant::default()
            }
            .boxed(),
            ..Candidate::default()
        };
        check(&index, &[c], &CheckConfig::default()).remove(0).into_owned()
    };
    for (r, want) in [
        (Some("reg-9253"), SameRegistrant::Yes),
        (Some("reg-0000"), SameRegistrant::No),
        (None, SameRegistrant::Unknown),
    ] {
        let v = one(r);
        assert_eq!(v.status, Status::VariantAllocatable);
        assert_eq!(v.detail().same_registrant, Some(want), "{r:?}");
    }
}

#[test]
fn lgrs_must_match_the_index() {
    let index = samples_index();
    let same = default_spec(ScanMode::Verified);
    assert!(index.spec().must_match(&same).is_ok());
    let other = LgrSpec::from_flags(&["builtin:ascii".into()], None, ScanMode::Verified).unwrap();
    let e = index.spec().must_match(&other).expect_err("another set");
    assert!(e.message.contains("not those the index was built with"), "{e}");
    let mode = default_spec(ScanMode::Reference);
    assert!(index.spec().must_match(&mode).is_err());
    let variants =
        LgrSpec::from_flags(&[], Some("builtin:devanagari"), ScanMode::Verified).unwrap();
    let flags: Vec<String> =
        lgrscan::builtin::DEFAULT_SET.iter().map(|n| format!("builtin:{n}")).collect();
    let variants = LgrSpec {
        judges: LgrSpec::from_flags(&flags, None, ScanMode::Verified).unwrap().judges,
        ..variants
    };
    assert!(index.spec().must_match(&variants).is_err());
}

#[test]
fn damaged_index_files_are_errors() {
    let labels = list(&["alpha".into(), "बीटा".into(), "१२३".into(), "123".into()]);
    let bytes = index_bytes(&labels, &default_spec(ScanMode::Verified));
    let cands: Vec<Candidate> = ["alpha", "१२३", "gamma", "बीटा"]
        .iter()
        .map(|t| Candidate { text: (*t).into(), ..Candidate::default() })
        .collect();
    let good = Index::from_bytes(bytes.clone()).expect("opens");
    good.verify().expect("intact");
    let want = check(&good, &cands, &CheckConfig::default());
    for len in 0..bytes.len() {
        assert!(Index::from_bytes(bytes[..len].to_vec()).is_err(), "truncated at {len}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Index::from_bytes(longer).is_err());
    let mut next = {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    };
    let set = good.spec().compile().unwrap();
    for _ in 0..400 {
        let mut b = bytes.clone();
        let at = (next() % b.len() as u64) as usize;
        b[at] ^= 1 << (next() % 8);
        // An error at open, at the full check, or when a damaged block is
        // read; never a panic, and never a different answer.
        let Ok(ix) = Index::from_bytes(b) else { continue };
        assert!(ix.verify().is_err(), "flip at {at} not detected");
        if let Ok(got) = sunrise::check(&ix, &set, &cands, &CheckConfig::default()) {
            assert_eq!(got, want, "flip at {at}");
        }
    }
}

/// An index of another format version (one whose keys were hashed
/// otherwise) is refused with both versions named and what to do, not
/// read as if its entries were under this version's hashes.
#[test]
fn an_index_of_another_format_version_is_refused() {
    let labels = list(&["alpha".into(), "१२३".into()]);
    let mut bytes = index_bytes(&labels, &default_spec(ScanMode::Verified));
    assert!(Index::from_bytes(bytes.clone()).is_ok());
    bytes[8..12].copy_from_slice(&2u32.to_le_bytes());
    let Err(e) = Index::from_bytes(bytes) else { panic!("an index of version 2 opened") };
    let want = format!("index format version 2, this lgrscan reads version {FORMAT_VERSION}");
    assert!(e.to_string().contains(&want), "{e}");
    assert!(e.to_string().contains("lgrscan index"), "{e}");
}

/// The README says which layout version an index has now: the one written.
#[test]
fn the_readme_names_the_index_format_version() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let said = readme.split("layout has a version").nth(1).expect("the README's sentence");
    let said = said.split(')').next().unwrap_or("").split_whitespace().collect::<Vec<_>>();
    assert_eq!(said.join(" "), format!("(now {FORMAT_VERSION}"), "README.md");
}

/// What the scan of `registered` followed by `candidates` says of each
/// candidate: (status, holder's A-label, disposition).
fn scan_verdicts(
    registered: &[String],
    candidates: &[String],
    set: &scan::LgrSet,
) -> Vec<(Status, Option<String>, String)> {
    let all: Vec<String> = registered.iter().chain(candidates).cloned().collect();
    let labels = list(&all);
    let report =
        scan::scan(&labels, set, &ScanConfig { holder: HolderPolicy::Input }, &scan::NoProgress);
    let first_candidate_line = registered.len() as u32 + 1;
    // A candidate that is a registered label, in any form, is dropped by
    // the scan as a duplicate: the check says `registered`.
    let registered_alabels: HashMap<String, String> = (0..labels.len())
        .filter_map(|i| labels.get(i))
        .filter(|l| l.line() < first_candidate_line)
        .map(|l| (l.alabel().to_string(), l.alabel().to_string()))
        .collect();
    let is_cand = |i: usize| labels.get(i).is_some_and(|l| l.line() >= first_candidate_line);
    let mut contended: HashMap<u32, bool> = HashMap::new();
    // A registered member that does not hold its set (one the scan finds
    // invalid): the candidates of the set are blocked by it.
    let mut registered_member: HashMap<u32, usize> = HashMap::new();
    for f in &report.findings {
        if let (Some(g), Some(r)) = (f.group, f.role)
            && !matches!(r, Role::Holder | Role::Near)
        {
            if is_cand(f.label) {
                contended.insert(g, true);
            } else {
                registered_member.entry(g).or_insert(f.label);
            }
        }
    }
    let mut by_line: HashMap<u32, (Status, Option<String>, String)> = HashMap::new();
    for f in &report.findings {
        let Some(l) = labels.get(f.label).filter(|_| is_cand(f.label)) else { continue };
        let line = l.line();
        if f.kind == FindingKind::Invalid {
            by_line.insert(line, (Status::Invalid, None, f.disposition.clone()));
            continue;
        }
        let holder = f.holder.filter(|&h| h != f.label);
        let holder_cand = holder.is_some_and(is_cand);
        let member = f.group.and_then(|g| registered_member.get(&g)).copied();
        if let Some(m) = member.filter(|_| holder.is_none() || holder_cand) {
            let m = labels.get(m).map(|m| m.alabel().to_string());
            by_line.insert(line, (Status::VariantBlocked, m, "blocked".to_string()));
            continue;
        }
        let status = match f.role {
            Some(Role::Holder) if contended.contains_key(&f.group.unwrap_or(0)) => {
                Status::Contention
            }
            Some(Role::Holder | Role::Near) => Status::Available,
            _ if holder_cand => Status::Contention,
            Some(Role::Allocatable | Role::Allocated) => Status::VariantAllocatable,
            _ => Status::VariantBlocked,
        };
        let holder_text = (status != Status::Available)
            .then(|| holder.and_then(|h| labels.get(h)).map(|h| h.alabel().to_string()))
            .flatten();
        let disposition =
            if status == Status::Available { String::new() } else { f.disposition.clone() };
        by_line.insert(line, (status, holder_text, disposition));
    }
    (0..candidates.len() as u32)
        .map(|k| {
            let alabel = lgrscan::idna2008::to_labels(&candidates[k as usize]).alabel;
            if let Some(r) = registered_alabels.get(&alabel) {
                return (Status::Registered, Some(r.clone()), String::new());
            }
            by_line.remove(&(first_candidate_line + k)).unwrap_or((
                Status::Available,
                None,
                String::new(),
            ))
        })
        .collect()
}

/// Splits `labels` at random into registered and candidates, and compares
/// each candidate's verdict with the scan's.
fn property(name: &str, labels: &[String], spec: &LgrSpec, seed: u64) {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut registered, mut candidates) = (Vec::new(), Vec::new());
    // Candidates that are the same label as an earlier one contend with it
    // (the scan drops them silently): each label once among candidates.
    let mut seen = std::collections::HashSet::new();
    for l in labels {
        if next() % 4 == 0 {
            if seen.insert(lgrscan::idna2008::to_labels(l).alabel) {
                candidates.push(l.clone());
            }
        } else {
            registered.push(l.clone());
        }
    }
    let set = spec.compile().expect("set compiles");
    let reg = list(&registered);
    let bytes = index_bytes(&reg, spec);
    let index = Index::from_bytes(bytes).expect("opens");
    let cands: Vec<Candidate> = candidates
        .iter()
        .enumerate()
        .map(|(i, t)| Candidate { text: t.into(), line: i as u64 + 1, ..Candidate::default() })
        .collect();
    let got = sunrise::check(&index, &set, &cands, &CheckConfig::default()).expect("check");
    let want = scan_verdicts(&registered, &candidates, &set);
    let mut counts: HashMap<Status, usize> = HashMap::new();
    for ((c, g), w) in candidates.iter().zip(&got).zip(&want) {
        *counts.entry(g.status).or_default() += 1;
        let holder = g.holder.as_ref().map(|h| h.alabel.to_string());
        let disposition = if g.status == Status::Available {
            // Its own, which the scan gives no row for: an eligible one.
            let own = &g.detail().disposition;
            assert!(!own.is_empty() && own != "invalid", "{name}: candidate {c}: {own:?}");
            String::new()
        } else {
            g.detail().disposition.clone()
        };
        assert_eq!((g.status, holder, disposition), w.clone(), "{name}: candidate {c}");
    }
    assert_eq!(got.len(), candidates.len());
    println!(
        "{name}: {} registered, {} candidates: {counts:?}",
        registered.len(),
        candidates.len()
    );
}

/// At most `n` of `labels`, evenly spread (debug builds are slow).
fn sample(labels: Vec<String>, n: usize) -> Vec<String> {
    let n = if cfg!(debug_assertions) { n } else { n * 20 };
    let step = labels.len().div_ceil(n).max(1);
    labels.into_iter().step_by(step).collect()
}

fn alabels(set: &LabelSet) -> Vec<String> {
    set.iter().map(|l| l.alabel().to_string()).collect()
}

#[test]
fn verdicts_equal_the_scan_on_the_samples() {
    for (file, seed) in [("zone.txt", 1u64), ("czds.txt", 2), ("labels.csv", 3)] {
        let labels = read(vec![Input::Path(root().join("samples").join(file))], None);
        let texts: Vec<String> = labels.iter().map(|l| l.ulabel().to_string()).collect();
        for mode in [ScanMode::Verified, ScanMode::Reference, ScanMode::Rfc7940] {
            property(&format!("{file} {}", mode.as_str()), &texts, &default_spec(mode), seed);
        }
    }
}

#[test]
fn verdicts_equal_the_scan_on_the_golden_corpus() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let rows = crate::util::tsv(&dir.join("golden/corpus.tsv"));
    // Labels of a list: an entry with a dot or white space is a name, not
    // a label, and the list reader would split it.
    let labels: Vec<String> = rows
        .iter()
        .map(|r| r[0].clone())
        .filter(|l| {
            !l.is_empty() && !l.contains(|c: char| c == '.' || c == '#' || c.is_whitespace())
        })
        .collect();
    let labels = sample(labels, 3000);
    property("corpus verified", &labels, &default_spec(ScanMode::Verified), 7);
    property("corpus rfc7940", &labels, &default_spec(ScanMode::Rfc7940), 8);
    let rz = |n: &str| dir.join("lgr").join(n).display().to_string();
    let spec = LgrSpec::from_flags(
        &[rz("lgr-5-devanagari-script-26may22-en.xml"), rz("lgr-5-khmer-script-26may22-en.xml")],
        Some(&rz("lgr-5-common-26may22-en.xml")),
        ScanMode::Verified,
    )
    .expect("RZ-LGR files");
    property("corpus rz-lgr", &labels, &spec, 9);
}

#[test]
fn verdicts_equal_the_scan_on_the_root_zone() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let zone = dir.join("zones/root-2018-03-12.zone");
    if !zone.exists() {
        assert!(!crate::util::required(), "root zone missing");
        return;
    }
    let labels = read(vec![Input::Path(zone)], None);
    let texts = sample(alabels(&labels), 1500);
    property("root zone", &texts, &default_spec(ScanMode::Verified), 11);
}

/// The verdicts given without a scan (a service's single labels) are those
/// of the full check: a plain label that collides with nothing, a
/// registered label in either form; a label that collides, or is not
/// plain, is left to the scan.
#[test]
fn verdicts_without_a_scan_are_the_checks() {
    let index = samples_index();
    let set = index.spec().compile().expect("set compiles");
    let plain = sunrise::PlainJudge::new(&set);
    let one = |t: &'static str| vec![Candidate { text: t.into(), ..Candidate::default() }];
    for t in ["freshname", "other-fresh", "a1b2"] {
        let c = one(t);
        let quick = sunrise::check_without_scan(&index, &set, &plain, &c).expect("index intact");
        let full = sunrise::check_with(&index, &set, &plain, &c, &CheckConfig::default()).unwrap();
        assert_eq!(quick.as_ref(), Some(&full), "{t}");
        assert_eq!(full[0].status, Status::Available, "{t}");
    }
    for c in sample_candidates() {
        let c = vec![c];
        let full = check(&index, &c, &CheckConfig::default());
        match sunrise::check_without_scan(&index, &set, &plain, &c).expect("index intact") {
            Some(quick) => assert_eq!(quick, full, "{}", c[0].text),
            None => assert!(
                !matches!(full[0].status, Status::Available | Status::Registered)
                    || !c[0].text.is_ascii(),
                "{} needed no scan",
                c[0].text
            ),
        }
    }
    // Two candidates with one key: the scan decides.
    let twice = vec![one("freshname").remove(0), one("FreshName").remove(0)];
    assert!(sunrise::check_without_scan(&index, &set, &plain, &twice).unwrap().is_none());
}

/// A variant set far larger than most: 400 digit strings of one number in
/// ASCII, Devanagari and Khmer digits, a quarter of them also in A-label
/// form, so that candidates find their own registered label among
/// hundreds under one key (`check` keeps such a key's labels by A-label).
#[test]
fn verdicts_equal_the_scan_in_a_large_variant_set() {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut seen = std::collections::HashSet::new();
    let mut labels = Vec::new();
    while seen.len() < 400 {
        let text: String = "31415926"
            .chars()
            .map(|d| {
                let v = d.to_digit(10).unwrap_or(0);
                let base = [0x30, 0x966, 0x17e0][(next() % 3) as usize];
                char::from_u32(base + v).unwrap_or('0')
            })
            .collect();
        if seen.insert(text.clone()) {
            if next() % 4 == 0 {
                labels.push(lgrscan::idna2008::to_labels(&text).alabel);
            }
            labels.push(text);
        }
    }
    for (mode, seed) in [(ScanMode::Verified, 21), (ScanMode::Rfc7940, 22)] {
        property(&format!("large set {}", mode.as_str()), &labels, &default_spec(mode), seed);
    }
}

//! Deduplication whatever the order of the input (#27): an unsorted zone,
//! with duplicates next to each other, far apart, in upper case and across
//! the chunks of the parallel reader, gives the labels and accounting of
//! the sorted one, each label held by its first record in input order.

use crate::util::*;
use lgrscan::input::{Accounting, Config, Input, LabelSet, LabelText, MmapChoice, read};

/// The counts a read gives, whatever the order of its records.
fn counts(a: &Accounting) -> [u64; 8] {
    [
        a.records,
        a.registered_labels,
        a.duplicate_records,
        a.apex_records,
        a.deeper_records,
        a.deeper_names,
        a.outside_names,
        a.malformed,
    ]
}

/// Each label's lower-case text with the line of the record that holds it.
fn held(set: &LabelSet) -> Vec<(String, u32)> {
    set.iter().map(|l| (l.alabel().to_string(), l.line())).collect()
}

/// The owners of `n` distinct labels (letters, digits, hyphens, IDNs),
/// each repeated as the test asks, in the order given by `order`.
fn owners(order: u8, rng: &mut fastrand::Rng) -> Vec<String> {
    let mut labels: Vec<String> = (0..6_000u32)
        .map(|i| match i % 5 {
            0 => format!("w{i}"),
            1 => format!("a{i}-b"),
            2 => format!("{i}"),
            3 => format!("xn--{i}-zzz"),
            _ => format!("l{:05}x", i * 7919 % 6_000),
        })
        .collect();
    labels.extend(["xn--bcher-kva", "xn--mnchen-3ya"].map(String::from));
    // Every third label again later (far), every seventh again at once
    // (near), every eleventh again in upper case.
    let mut all = Vec::new();
    for (i, l) in labels.iter().enumerate() {
        all.push(l.clone());
        if i % 7 == 0 {
            all.push(l.clone());
        }
    }
    for (i, l) in labels.iter().enumerate() {
        if i % 3 == 0 {
            all.push(l.clone());
        }
        if i % 11 == 0 {
            all.push(l.to_uppercase());
        }
    }
    match order {
        0 => all.sort_by_key(|l| l.to_lowercase()),
        1 => all.sort_by_key(|l| std::cmp::Reverse(l.to_lowercase())),
        _ => rng.shuffle(&mut all),
    }
    all
}

/// A CZDS-profile zone of the owners, an NS record each (and glue below
/// some), and what deduplication must give: each distinct label once, with
/// the line of its first record.
fn zone_of(owners: &[String]) -> (String, Vec<(String, u32)>) {
    let mut s = String::from("tld.\t900\tin\tsoa\ta.nic.tld. h.nic.tld. 1 2 3 4 5\n");
    let mut line = 1u32;
    let mut seen = std::collections::HashSet::new();
    let mut want = Vec::new();
    for o in owners {
        line += 1;
        s.push_str(&format!("{o}.tld.\t172800\tin\tns\tns1.example.net.\n"));
        if seen.insert(o.to_lowercase()) {
            want.push((o.to_lowercase(), line));
        }
        // Glue below the owners of some labels (the same in every order).
        if o.len() % 3 == 0 {
            line += 1;
            s.push_str(&format!("ns1.{o}.tld.\t172800\tin\ta\t192.0.2.1\n"));
        }
    }
    (s, want)
}

#[test]
fn unsorted_input_dedups_as_sorted_input() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let dir = TempDir::new();
    let mut rng = fastrand::Rng::with_seed(27);
    let mut sorted: Option<(Vec<String>, [u64; 8])> = None;
    for order in 0..4u8 {
        let (text, want) = zone_of(&owners(order, &mut rng));
        let path = dir.write(&format!("z{order}.zone"), text.as_bytes());
        // Small chunks: duplicates fall in other chunks than their first;
        // label text borrowed from the map, or copied as the CLI does.
        let texts = [LabelText::Borrow, LabelText::Copy];
        for (chunk, text) in
            [None, Some(4096), Some(777)].into_iter().flat_map(|c| texts.map(|t| (c, t)))
        {
            // SAFETY: the test's files are not modified while mapped.
            let config = Config::new()
                .mmap(unsafe { MmapChoice::auto() })
                .chunk_bytes(chunk)
                .label_text(text);
            let set = pool.install(|| read([Input::Path(path.clone())], &config)).unwrap();
            let case = format!("order {order}, chunk {chunk:?}, {text:?}");
            set.accounting().check().unwrap();
            let got = held(&set);
            if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
                panic!("{case}: label {i}: {:?}, not {:?}", got.get(i), want.get(i));
            }
            let mut labels: Vec<String> = want.iter().map(|(l, _)| l.clone()).collect();
            labels.sort();
            let c = counts(set.accounting());
            assert!(c[2] > c[1] / 3, "{case}: {c:?}");
            match &sorted {
                None => sorted = Some((labels, c)),
                Some((l, s)) => {
                    assert_eq!(&c, s, "{case}");
                    assert!(labels == *l, "{case}: other labels");
                }
            }
        }
    }
}

/// Lists and CSV files: sorted runs of plain labels are registered at once
/// (`push_sorted_run`), the rest one by one; whatever the order, the
/// chunk size and whether the file is mapped, each distinct A-label is
/// held by its first line (with that row's CSV fields), and the others are
/// counted as duplicates.
#[test]
fn lists_and_csv_dedup_in_any_order() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    let dir = TempDir::new();
    let mut rng = fastrand::Rng::with_seed(29);
    for order in 0..4u8 {
        let mut names = owners(order.min(2), &mut rng);
        if order == 3 {
            // Sorted, but for one label out of order near the end.
            let late = names.remove(100);
            names.insert(names.len() - 50, late);
        }
        let (mut list, mut csv) = (String::new(), String::from("label,registrant\n"));
        let mut seen = std::collections::HashSet::new();
        let mut want = Vec::new();
        for (i, n) in names.iter().enumerate() {
            list += &format!("{n}\n");
            // One registrant a name: a repeat with another is malformed.
            csv += &format!("{n},r-{}\n", n.to_lowercase());
            if seen.insert(n.to_lowercase()) {
                want.push((n.to_lowercase(), i as u32 + 1));
            }
        }
        let files = [("l.txt", list, 0), ("l.csv", csv, 1)];
        for (name, text, header) in files {
            let path = dir.write(&format!("{order}{name}"), text.as_bytes());
            for chunk in [None, Some(4096), Some(777)] {
                // SAFETY: the test's files are not modified while mapped.
                for mmap in [unsafe { MmapChoice::auto() }, MmapChoice::never()] {
                    let config = Config::new().mmap(mmap).chunk_bytes(chunk);
                    let set = pool.install(|| read([Input::Path(path.clone())], &config)).unwrap();
                    let case = format!("{name}, order {order}, chunk {chunk:?}, {mmap:?}");
                    set.accounting().check().unwrap();
                    let got: Vec<(String, u32)> =
                        set.iter().map(|l| (l.alabel().to_string(), l.line() - header)).collect();
                    if let Some(i) =
                        (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i))
                    {
                        panic!("{case}: label {i}: {:?}, not {:?}", got.get(i), want.get(i));
                    }
                    let a = set.accounting();
                    assert_eq!(a.records, names.len() as u64, "{case}");
                    assert_eq!(a.duplicate_records, (names.len() - want.len()) as u64, "{case}");
                    if header == 1 {
                        for l in set.iter() {
                            let r = l.csv().and_then(|c| c.registrant).unwrap_or_default();
                            assert_eq!(r, format!("r-{}", l.alabel()), "{case}");
                        }
                    }
                }
            }
        }
    }
}

/// A label read first without a CSV row (from a list), then again out of
/// order from a CSV file: the row goes to the label, and a label whose rows
/// come twice keeps the first (a second row with another registrant is
/// malformed, one with the same a duplicate). Repeats inside the list,
/// and a list of repeats only, leave the CSV file's labels their source.
#[test]
fn a_later_csv_row_goes_to_the_first_label() {
    let dir = TempDir::new();
    let mut rng = fastrand::Rng::with_seed(31);
    let mut names: Vec<String> = (0..3000).map(|i| format!("n{i}")).collect();
    rng.shuffle(&mut names);
    // Repeats inside the first list too, and a second list of repeats
    // only: the CSV file's labels start earlier, after no label of its own.
    let list: String =
        names[..2000].iter().chain(&names[..300]).map(|n| format!("{n}\n")).collect();
    let repeats: String = names[1000..1100].iter().map(|n| format!("{n}\n")).collect();
    rng.shuffle(&mut names);
    let mut csv = String::from("label,registrant\n");
    for n in &names {
        csv += &format!("{n},first-{n}\n");
    }
    for n in &names[..500] {
        csv += &format!("{n},second-{n}\n");
    }
    for n in &names[500..700] {
        csv += &format!("{n},first-{n}\n");
    }
    let inputs = [
        dir.write("a.txt", list.as_bytes()),
        dir.write("r.txt", repeats.as_bytes()),
        dir.write("b.csv", csv.as_bytes()),
    ];
    let set = read(inputs.iter().map(|p| Input::Path(p.clone())), &Config::new()).unwrap();
    set.accounting().check().unwrap();
    assert_eq!(set.len(), 3000);
    assert_eq!(set.accounting().duplicate_records, 300 + 100 + 2000 + 200);
    assert_eq!(set.accounting().malformed, 500);
    for l in set.iter() {
        let r = l.csv().and_then(|c| c.registrant).unwrap_or_default();
        assert_eq!(r, format!("first-{}", l.alabel()), "{}", l.alabel());
    }
    let sources: Vec<usize> = set.iter().map(|l| l.source()).collect();
    assert!(sources[..2000].iter().all(|&s| s == 0) && sources[2000..].iter().all(|&s| s == 2));
}

//! The two index-label modes (see `lgrscan::lgr::IndexMode`).
//!
//! ICANN's lgr-core tests a variant's context rule, while computing an index
//! label, on a label whose suffix is shifted by the length of the
//! partition's first element. The RZ-LGR overview, §5.5.4 step 2.c, tests
//! it "for the input label at that location" (RFC 7940 §8.5 defines the
//! index label, not this wording). Where the two
//! differ, the reference can give two labels that are variants of each
//! other different index labels, so a collision is missed; these tests show
//! one such case on ICANN's own LGR and count the golden rows concerned.

use crate::util::parse_hex;
use lgrscan::lgr::{IndexMode, Lgr, hex_cps};

fn cps(s: &str) -> Vec<u32> {
    s.chars().map(u32::from).collect()
}

#[test]
fn reference_splits_a_variant_set_rfc_mode_does_not() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let path = dir.join("lgr/lgr-second-level-devanagari-script-31may22-en.xml");
    let reference = Lgr::from_path(&path).unwrap();
    let rfc = Lgr::from_path(&path).unwrap().with_index_mode(IndexMode::Rfc7940);
    let (a, b) = (cps("भारत"), cps("भा\u{93C}रत"));
    // They are blocked variants of each other (RFC 7940 §8.2–8.3)...
    assert_eq!(reference.variant_disposition(&a, &b).unwrap().disposition, "blocked");
    assert_eq!(reference.variant_disposition(&b, &a).unwrap().disposition, "blocked");
    // ... so they should share an index label (RFC 7940 §8.5); the reference
    // mode gives two, the RFC mode one.
    assert_ne!(reference.index_label(&a), reference.index_label(&b));
    assert_eq!(rfc.index_label(&a), rfc.index_label(&b));
}

#[test]
fn golden_rows_where_the_modes_differ() {
    let Some(dir) = crate::util::reference_dir() else { return };
    let mut total = 0;
    for name in [
        "lgr-second-level-devanagari-script-31may22-en",
        "lgr-second-level-hindi-language-31may22-en",
        "lgr-second-level-khmer-script-31may22-en",
        "lgr-5-devanagari-script-26may22-en",
    ] {
        let path = dir.join(format!("lgr/{name}.xml"));
        let reference = Lgr::from_path(&path).unwrap();
        let rfc = Lgr::from_path(&path).unwrap().with_index_mode(IndexMode::Rfc7940);
        let text = std::fs::read_to_string(dir.join(format!("golden/{name}.tsv"))).unwrap();
        let (mut rows, mut differ) = (0, 0);
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            let label = parse_hex(f[1]);
            let want = f.get(6).copied().unwrap_or("");
            let r = reference.index_label(&label).map(|i| hex_cps(&i)).unwrap_or_default();
            assert_eq!(r, want, "{name}: reference mode must agree with every golden row");
            let g = rfc.index_label(&label).map(|i| hex_cps(&i)).unwrap_or_default();
            rows += 1;
            if g != r {
                differ += 1;
                // The RFC mode only ever finds a smaller index label: a
                // variant whose context holds at its own location.
                assert!(g < r, "{name}: {} rfc {g} reference {r}", f[0]);
            }
        }
        println!("{name}: {differ} of {rows} index labels differ in RFC 7940 mode");
        total += differ;
    }
    assert!(total > 0, "the modes differ on the golden labels");
}

//! `FindingKind::Blocked`: a label eligible under its LGR whose own
//! disposition is `blocked` (RFC 7940 §8.3) is one finding, after the
//! invalid rows, counted in `Summary::blocked`; it stays eligible, so it
//! holds its variant set under either grouping.

use crate::util::{members, read_list, scan_with};
use lgrscan::lgr::Lgr;
use lgrscan::scan::{FindingKind, Grouping, Role};
use std::sync::Arc;

#[test]
fn an_own_blocked_label_is_one_finding_and_still_holds_its_set() {
    let path = crate::util::root().join("tests/data/lgr/own-blocked.xml");
    let lgr = Arc::new(Lgr::from_path(&path).expect("LGR loads"));
    // héllo (blocked on its own) comes first and holds the set of hèllo;
    // a_b fails IDNA2008; hello is plain.
    let labels =
        read_list(&["xn--hllo-bpa", "a_b", "xn--hllo-5oa", "hello", "shop"].map(String::from));
    for grouping in [Grouping::Verified, Grouping::IndexLabel] {
        let report = scan_with(&lgr, grouping, &labels);
        let text = |i: usize| labels.get(i).expect("label").ulabel().to_string();
        let kinds: Vec<(FindingKind, String)> =
            report.findings.iter().map(|f| (f.kind, text(f.label))).collect();
        let want = [
            (FindingKind::Collision, "héllo"),
            (FindingKind::Collision, "hèllo"),
            (FindingKind::Invalid, "a_b"),
            (FindingKind::Blocked, "héllo"),
            (FindingKind::Blocked, "hèllo"),
            (FindingKind::Blocked, "hello"),
        ]
        .map(|(k, t)| (k, t.to_string()));
        assert_eq!(kinds, want, "{grouping:?}");
        let blocked = report.findings.iter().find(|f| f.kind == FindingKind::Blocked).unwrap();
        assert_eq!(
            (blocked.lgr.as_str(), blocked.disposition.as_str(), blocked.index.as_str()),
            ("own-blocked.xml", "blocked", "hèllo")
        );
        assert!(blocked.reason.contains("match=five-long"), "{}", blocked.reason);
        assert_eq!((blocked.group, blocked.role, blocked.holder), (None, None, None));
        let m = members(&report, &labels);
        assert_eq!(m.len(), 1);
        assert_eq!((m[0].holder.as_str(), m[0].member.as_str()), ("héllo", "hèllo"));
        assert_eq!(m[0].role, Role::Blocked);
        let s = &report.summary;
        assert_eq!((s.blocked, s.invalid, s.conflicts), (3, 1, 1), "{grouping:?}");
        assert_eq!(s.per_lgr[0].1, 4, "blocked labels are eligible under the LGR");
    }
}

/// The reader settles (counts without storing) no label of a length whose
/// label of as many letters, or digits, is blocked on its own: it is a
/// finding, judged in full; other lengths settle as before.
#[test]
fn the_reader_settles_no_label_blocked_on_its_own() {
    use lgrscan::input::Settled;
    let path = crate::util::root().join("tests/data/lgr/own-blocked.xml");
    let lgr = Arc::new(Lgr::from_path(&path).expect("LGR loads"));
    let set = lgrscan::scan::LgrSet::new(vec![lgr], None).expect("set");
    let rule = lgrscan::scan::plain_rule(&set).expect("letters and digits of one class each");
    for n in 1..=63usize {
        for text in ["a".repeat(n), "7".repeat(n), format!("{}9", "q".repeat(n.max(2) - 1))] {
            let v = rule.verdict(text.as_bytes(), None);
            assert_eq!(v == Settled::Keep, text.len() == 5, "{text}: {v:?}");
        }
    }
}

//! Contract checks on a resolved variant set: what registry agreements and
//! ICANN policy require of variants that are in use, beyond the LGR's
//! dispositions (RFC 7940 §8.3 says which variants may be allocated, not
//! how).
//!
//! - [`FindingKind::NsMismatch`]: an activated (delegated) allocatable
//!   variant whose NS RRset differs from its holder's. Active variant IDNs
//!   are provisioned as zone cuts with the same NS records as the name
//!   they are variants of (the registry agreements of delegated variant
//!   TLDs; ICANN, "Recommendations for Managing IDN Variant Top-Level
//!   Domains", 2019). Zone input only: lists and CSV have no NS records.
//! - [`FindingKind::SameEntity`]: an allocatable variant whose registrant
//!   or registrar differs from its holder's (the "same entity" principle
//!   of ICANN's EPDP on Internationalized Domain Names: variant labels go
//!   to the same registrant through the same registrar). Checked only
//!   where both values are known (CSV columns `registrant`, `registrar`);
//!   an unknown registrant already makes the member `allocatable`, a
//!   conflict.

use super::{Finding, FindingKind, Role};
use crate::input::{Label, LabelSet};

/// The contract rows of one resolved group (`rows`: its collision rows,
/// the holder among them), by input position.
pub(crate) fn check(labels: &LabelSet, rows: &[Finding]) -> Vec<Finding> {
    let Some(holder) = rows.iter().find(|f| f.role == Some(Role::Holder)) else {
        return Vec::new();
    };
    let Some(h) = labels.get(holder.label) else { return Vec::new() };
    let registrar = labels.csv_column("registrar");
    let hns: Vec<&str> = h.ns_targets().collect();
    let mut out = Vec::new();
    for f in rows {
        if !matches!(f.role, Some(Role::Allocatable | Role::Allocated)) {
            continue;
        }
        let Some(m) = labels.get(f.label) else { continue };
        let ns: Vec<&str> = m.ns_targets().collect();
        if !ns.is_empty() && ns != hns {
            let reason =
                format!("NS {} differs from the holder's {}", show_set(&ns), show_set(&hns));
            out.push(Finding { kind: FindingKind::NsMismatch, reason, ..f.clone() });
        }
        let mut differ = Vec::new();
        fn registrant<'a>(l: &Label<'a>) -> Option<&'a str> {
            l.csv().and_then(|c| c.registrant)
        }
        if let (Some(a), Some(b)) = (registrant(&m), registrant(&h))
            && a != b
        {
            differ.push(format!("registrant {a} differs from the holder's {b}"));
        }
        if let Some(c) = registrar
            && let (Some(a), Some(b)) =
                (m.csv().and_then(|x| x.extra(c)), h.csv().and_then(|x| x.extra(c)))
            && a != b
        {
            differ.push(format!("registrar {a} differs from the holder's {b}"));
        }
        if !differ.is_empty() {
            out.push(Finding {
                kind: FindingKind::SameEntity,
                reason: differ.join("; "),
                ..f.clone()
            });
        }
    }
    out.sort_by_key(|f| (f.label, f.kind));
    out
}

/// An NS target set as `{a.;b.}` (`{}` when empty).
fn show_set(set: &[&str]) -> String {
    format!("{{{}}}", set.join(";"))
}

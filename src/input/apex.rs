//! The zone's apex and where an owner name stands against it (the apex
//! itself, a registered label one level below, deeper, or outside).

/// The apex in the forms the parsers need.
#[derive(Clone, Debug)]
pub(crate) struct Apex {
    /// Lower-case labels.
    pub(crate) labels: Vec<Vec<u8>>,
    /// Lower-case presentation with trailing dot (`.` for the root).
    pub(crate) text: String,
    /// The presentation text when it has no escapes (fast path).
    pub(crate) plain: Option<Vec<u8>>,
}

impl Apex {
    pub(crate) fn new(mut labels: Vec<Vec<u8>>) -> Apex {
        super::name::lower(&mut labels);
        let text = super::name::present(&labels);
        let simple = labels.iter().all(|l| l.iter().all(|&b| b.is_ascii_graphic() && b != b'\\'))
            && !labels.iter().any(|l| l.contains(&b'.'));
        Apex { plain: simple.then(|| text.clone().into_bytes()), labels, text }
    }

    /// Classifies a lower-case absolute name given as labels; for a
    /// registered label, returns its position (0).
    pub(crate) fn relation(&self, labels: &[Vec<u8>]) -> Relation {
        let (n, m) = (labels.len(), self.labels.len());
        if n < m || labels[n - m..] != self.labels[..] {
            return Relation::Outside;
        }
        match n - m {
            0 => Relation::Apex,
            1 => Relation::Registered,
            _ => Relation::Deeper,
        }
    }

    /// Whether an absolute name given as labels, in any case, is outside
    /// the apex ([`Apex::relation`] of its lower case is `Outside`).
    pub(crate) fn is_outside(&self, labels: &[Vec<u8>]) -> bool {
        let (n, m) = (labels.len(), self.labels.len());
        n < m || labels[n - m..].iter().zip(&self.labels).any(|(a, b)| !a.eq_ignore_ascii_case(b))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Relation {
    Apex,
    Registered,
    Deeper,
    Outside,
}

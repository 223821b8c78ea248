//! Sets of code points as sorted, disjoint, inclusive ranges, with the set
//! operators of RFC 7940 §6.2.4 (union, complement, intersection, difference,
//! symmetric difference).

use super::model::Cp;

/// The largest Unicode code point.
pub const MAX_CP: Cp = 0x10FFFF;

/// A set of code points, kept as sorted disjoint inclusive ranges.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpSet {
    ranges: Vec<(Cp, Cp)>,
}

impl CpSet {
    /// The empty set.
    pub fn new() -> CpSet {
        CpSet { ranges: Vec::new() }
    }

    /// A set from arbitrary (possibly overlapping, unsorted) inclusive ranges.
    pub fn from_ranges(mut r: Vec<(Cp, Cp)>) -> CpSet {
        r.sort_unstable();
        let mut out: Vec<(Cp, Cp)> = Vec::with_capacity(r.len());
        for (a, b) in r {
            match out.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => out.push((a, b)),
            }
        }
        CpSet { ranges: out }
    }

    /// The ranges, sorted and disjoint.
    pub fn ranges(&self) -> &[(Cp, Cp)] {
        &self.ranges
    }

    /// True when the set has no code point.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of code points.
    pub fn len(&self) -> usize {
        self.ranges.iter().map(|&(a, b)| (b - a + 1) as usize).sum()
    }

    /// Membership test.
    pub fn contains(&self, cp: Cp) -> bool {
        match self.ranges.binary_search_by(|&(a, _)| a.cmp(&cp)) {
            Ok(_) => true,
            Err(0) => false,
            Err(i) => self.ranges[i - 1].1 >= cp,
        }
    }

    /// Union.
    pub fn union(&self, o: &CpSet) -> CpSet {
        let mut r = self.ranges.clone();
        r.extend_from_slice(&o.ranges);
        CpSet::from_ranges(r)
    }

    /// Complement with respect to U+0000..U+10FFFF.
    pub fn complement(&self) -> CpSet {
        let mut out = Vec::new();
        let mut next: Cp = 0;
        for &(a, b) in &self.ranges {
            if a > next {
                out.push((next, a - 1));
            }
            next = b + 1;
        }
        if next <= MAX_CP {
            out.push((next, MAX_CP));
        }
        CpSet { ranges: out }
    }

    /// Intersection.
    pub fn intersection(&self, o: &CpSet) -> CpSet {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < self.ranges.len() && j < o.ranges.len() {
            let (a1, b1) = self.ranges[i];
            let (a2, b2) = o.ranges[j];
            let (a, b) = (a1.max(a2), b1.min(b2));
            if a <= b {
                out.push((a, b));
            }
            if b1 < b2 {
                i += 1;
            } else {
                j += 1;
            }
        }
        CpSet { ranges: out }
    }

    /// Difference (`self` without `o`).
    pub fn difference(&self, o: &CpSet) -> CpSet {
        self.intersection(&o.complement())
    }

    /// Symmetric difference.
    pub fn symmetric_difference(&self, o: &CpSet) -> CpSet {
        self.difference(o).union(&o.difference(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators() {
        let a = CpSet::from_ranges(vec![(10, 20), (15, 30), (40, 40)]);
        assert_eq!(a.ranges(), &[(10, 30), (40, 40)]);
        let b = CpSet::from_ranges(vec![(25, 45)]);
        assert_eq!(a.intersection(&b).ranges(), &[(25, 30), (40, 40)]);
        assert_eq!(a.difference(&b).ranges(), &[(10, 24)]);
        assert_eq!(a.symmetric_difference(&b).ranges(), &[(10, 24), (31, 39), (41, 45)]);
        assert_eq!(a.complement().complement(), a);
        assert!(a.contains(40) && !a.contains(41) && a.contains(10) && !a.contains(9));
        assert_eq!(CpSet::new().complement().ranges(), &[(0, MAX_CP)]);
    }
}

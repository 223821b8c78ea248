//! The NS target table of a label set: each registered label's NS
//! targets (RFC 1035 §3.3.11), as compressed sparse rows built once the
//! read is done.

/// The NS targets of `n` labels from (label, target id) pairs in any
/// order, repeats included: CSR offsets (`n + 1`) and the targets of each
/// label, ordered by name, once each. The pairs are placed by a counting
/// sort on the label (most zones give them in label order already, but a
/// comparison sort would not know), and each label's few targets are
/// ordered by the rank of their names, which are sorted once.
pub(super) fn ns_table(n: usize, pairs: &[(u32, u32)], names: &[Box<str>]) -> (Vec<u32>, Vec<u32>) {
    let mut rank = vec![0u32; names.len()];
    let mut by_name: Vec<u32> = (0..names.len() as u32).collect();
    by_name.sort_unstable_by(|&a, &b| names[a as usize].cmp(&names[b as usize]));
    for (r, &t) in by_name.iter().enumerate() {
        rank[t as usize] = r as u32;
    }
    // Offsets by label, then each pair in its label's range.
    let mut start = vec![0u32; n + 1];
    for &(l, _) in pairs {
        start[l as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut at = start.clone();
    let mut placed = vec![0u32; pairs.len()];
    for &(l, t) in pairs {
        placed[at[l as usize] as usize] = t;
        at[l as usize] += 1;
    }
    // Each label's targets by name, repeats dropped, packed to the front.
    let mut index = Vec::with_capacity(n + 1);
    let mut len = 0usize;
    for l in 0..n {
        index.push(len as u32);
        let (a, b) = (start[l] as usize, start[l + 1] as usize);
        placed[a..b].sort_unstable_by_key(|&t| rank[t as usize]);
        for k in a..b {
            if k == a || placed[k] != placed[k - 1] {
                placed[len] = placed[k];
                len += 1;
            }
        }
    }
    index.push(len as u32);
    placed.truncate(len);
    (index, placed)
}

#[cfg(test)]
mod tests {
    use super::ns_table;

    #[test]
    fn ns_table_orders_each_labels_targets_by_name_once() {
        let names: Vec<Box<str>> =
            ["ns2.b.", "ns1.b.", "a.", "z."].into_iter().map(Box::from).collect();
        // Out of label order, repeated, one label without targets.
        let pairs = [(2, 0), (0, 3), (2, 1), (0, 2), (2, 0), (3, 2), (0, 3), (2, 2)];
        let (index, targets) = ns_table(4, &pairs, &names);
        assert_eq!(index, [0, 2, 2, 5, 6]);
        let of = |l: usize| -> Vec<&str> {
            targets[index[l] as usize..index[l + 1] as usize]
                .iter()
                .map(|&t| &*names[t as usize])
                .collect()
        };
        assert_eq!(of(0), ["a.", "z."]);
        assert!(of(1).is_empty());
        assert_eq!(of(2), ["a.", "ns1.b.", "ns2.b."]);
        assert_eq!(of(3), ["a."]);
        assert_eq!(ns_table(2, &[], &names), (vec![0, 0, 0], vec![]));
    }
}

//! Deduplication of registered labels.
//!
//! Zone dumps are sorted by owner, so while keys arrive in increasing
//! order (of the octets, or of the octets followed by a dot: the order of
//! owner names under one apex) a new key only needs comparing with the
//! last one. The first key out of order switches to a `hashbrown`
//! [`HashTable`] of label indexes, each with 32 bits of its key's hash
//! (8 bytes a slot), whose keys are read back from the label store, so no
//! key is copied. The table places a slot by those 32 bits alone
//! ([`table_hash`]): it grows without reading any key again, and a probe
//! reads a key only when the 32 bits match. A key's hash ([`hash_bytes`])
//! may be computed ahead, in parallel ([`Dedup::insert_hashed`]).

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

use super::hash::hash_bytes;
use super::key_order::{ORDERS_ALL, orders_increasing};
use super::settle::SETTLED;

/// A slot of the table: a label index and the high half of its key's hash.
type Slot = (u32, u32);

/// The high half of a hash, kept in its slot.
#[inline]
fn tag(h: u64) -> u32 {
    (h >> 32) as u32
}

/// The hash the table places a slot by: its tag, in both halves (the
/// table takes the position from the low bits and a control byte from
/// the top ones).
#[inline]
fn table_hash(&(_, t): &Slot) -> u64 {
    u64::from(t) << 32 | u64::from(t)
}

/// The deduplicator. `key_of(i)` must return the key of label `i`.
#[derive(Default)]
pub(crate) struct Dedup {
    hashed: bool,
    /// While not hashed: the orders under which the keys so far strictly
    /// increase (see [`orders_increasing`]).
    orders: u8,
    last: Vec<u8>,
    len: u32,
    table: HashTable<Slot>,
    /// How many keys the table should have room for, when known (see
    /// [`Dedup::reserve`]).
    expected: usize,
    /// Whether some key is a settled label's (it has no index, see
    /// [`super::settle`]), and whether `last` is.
    settled: bool,
    last_settled: bool,
}

/// Outcome of [`Dedup::insert`].
pub(crate) enum Seen {
    New,
    Existing(u32),
}

impl Dedup {
    /// Looks `key` up; when new, records it as label number `self.len`.
    pub(crate) fn insert<'k>(&mut self, key: &[u8], key_of: impl Fn(u32) -> &'k [u8]) -> Seen {
        if !self.hashed {
            if !self.has_keys() {
                self.last.clear();
                self.last.extend_from_slice(key);
                self.len = 1;
                self.orders = ORDERS_ALL;
                return Seen::New;
            }
            if key == self.last.as_slice() {
                return Seen::Existing(if self.last_settled { SETTLED } else { self.len - 1 });
            }
            let orders = orders_increasing(self.orders, &self.last, key);
            if orders != 0 {
                self.orders = orders;
                self.last.clear();
                self.last.extend_from_slice(key);
                self.last_settled = false;
                self.len += 1;
                return Seen::New;
            }
            self.switch_to_table(&key_of);
        }
        self.insert_in_table(key, hash_bytes(key), &key_of)
    }

    /// The index of the last key ([`SETTLED`] for a settled label's) when
    /// the keys are still sorted and `key` is that key.
    pub(crate) fn is_last(&self, key: &[u8]) -> Option<u32> {
        (!self.hashed && self.has_keys() && key == self.last.as_slice())
            .then(|| if self.last_settled { SETTLED } else { self.len - 1 })
    }

    /// Counts a run of keys, from `first` to `last`, that strictly
    /// increase under `orders`, without looking at them one by one: `n`
    /// new labels, and settled ones when `settled` (`last_settled`: the
    /// last is one). `first` may be the last key so far (a duplicate the
    /// caller counted, see [`Dedup::is_last`]). Returns false (and changes
    /// nothing) unless they keep the keys so far sorted; the caller then
    /// inserts them one by one.
    pub(crate) fn append_sorted(
        &mut self,
        (first, last): (&[u8], &[u8]),
        n: u32,
        orders: u8,
        (settled, last_settled): (bool, bool),
    ) -> bool {
        let o = self.orders_after(first, orders);
        let Some(len) = self.len.checked_add(n) else { return false };
        if o == 0 {
            return false;
        }
        self.orders = o;
        self.last.clear();
        self.last.extend_from_slice(last);
        self.len = len;
        self.settled |= settled;
        self.last_settled = last_settled;
        true
    }

    /// Whether a run of keys from `first` that strictly increase under
    /// `orders` keeps the keys so far sorted (the test of
    /// [`Dedup::append_sorted`], which changes nothing).
    pub(crate) fn continues_sorted(&self, first: &[u8], orders: u8) -> bool {
        self.orders_after(first, orders) != 0
    }

    /// The orders under which the keys so far and a run of keys from
    /// `first`, increasing under `orders`, increase (0: none).
    fn orders_after(&self, first: &[u8], orders: u8) -> u8 {
        if self.hashed {
            0
        } else if !self.has_keys() {
            orders & ORDERS_ALL
        } else if first == self.last.as_slice() {
            self.orders & orders
        } else {
            orders_increasing(self.orders & orders, &self.last, first)
        }
    }

    /// Whether the keys stopped increasing after some were settled: the
    /// table lacks those keys (settled keys come in sorted runs only), and
    /// the read must be done again without settling.
    pub(crate) fn lost(&self) -> bool {
        self.hashed && self.settled
    }

    /// Whether the keys went out of order (the table is used).
    pub(crate) fn hashed(&self) -> bool {
        self.hashed
    }

    /// Whether any key was seen (counted, or settled).
    fn has_keys(&self) -> bool {
        self.len > 0 || self.settled
    }

    /// Expects `additional` more keys: the hash table, once used, is sized
    /// for them at once rather than grown by doubling.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.expected = self.expected.max(self.len as usize + additional);
        if self.hashed {
            let more = self.expected.saturating_sub(self.table.len());
            self.table.reserve(more, table_hash);
        }
    }

    /// Like [`Dedup::insert`], given the key's [`hash_bytes`] (computed
    /// ahead, in parallel).
    pub(crate) fn insert_hashed<'k>(
        &mut self,
        key: &[u8],
        h: u64,
        key_of: impl Fn(u32) -> &'k [u8],
    ) -> Seen {
        if !self.hashed {
            return self.insert(key, key_of);
        }
        self.insert_in_table(key, h, &key_of)
    }

    /// Leaves the sorted mode: every label so far goes into the table,
    /// sized for the keys expected (or twice those so far).
    fn switch_to_table<'k>(&mut self, key_of: &impl Fn(u32) -> &'k [u8]) {
        self.hashed = true;
        let want = self.expected.max(self.len as usize * 2);
        self.table = HashTable::with_capacity(want);
        for i in 0..self.len {
            let slot = (i, tag(hash_bytes(key_of(i))));
            self.table.insert_unique(table_hash(&slot), slot, table_hash);
        }
    }

    /// Looks `key` (of hash `h`) up in the table; when new, records it as
    /// label number `self.len`. A slot's key is read (`key_of`) only when
    /// its tag matches.
    fn insert_in_table<'k>(
        &mut self,
        key: &[u8],
        h: u64,
        key_of: &impl Fn(u32) -> &'k [u8],
    ) -> Seen {
        let slot = (self.len, tag(h));
        let eq = |&(i, t): &Slot| t == slot.1 && key_of(i) == key;
        match self.table.entry(table_hash(&slot), eq, table_hash) {
            Entry::Occupied(e) => Seen::Existing(e.get().0),
            Entry::Vacant(v) => {
                v.insert(slot);
                self.len += 1;
                Seen::New
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_then_unsorted() {
        let keys: Vec<&[u8]> = vec![b"a", b"b", b"b", b"c", b"a", b"d", b"c", b"e"];
        let mut store: Vec<&[u8]> = Vec::new();
        let mut d = Dedup::default();
        let mut out = Vec::new();
        for k in keys {
            let snapshot = store.clone();
            match d.insert(k, |i| snapshot[i as usize]) {
                Seen::New => {
                    out.push(None);
                    store.push(k);
                }
                Seen::Existing(i) => out.push(Some(i)),
            }
        }
        assert_eq!(out, vec![None, None, Some(1), None, Some(0), None, Some(2), None]);
        assert_eq!(store, vec![&b"a"[..], b"b", b"c", b"d", b"e"]);
    }

    /// Settled keys (no index) in sorted runs: found as the last key,
    /// counted, and the table that cannot hold them is reported lost.
    #[test]
    fn settled_keys_in_sorted_runs() {
        let store: Vec<&[u8]> = vec![b"b", b"d"];
        let key_of = |i: u32| store[i as usize];
        let mut d = Dedup::default();
        // "a" (settled), "b" (kept), "c" (settled, last).
        assert!(d.append_sorted((b"a", b"c"), 1, ORDERS_ALL, (true, true)));
        assert_eq!(d.is_last(b"c"), Some(SETTLED));
        assert!(matches!(d.insert(b"c", key_of), Seen::Existing(SETTLED)));
        assert!(!d.append_sorted((b"b", b"b"), 0, ORDERS_ALL, (false, false)));
        // The next run may start with the last key (a duplicate).
        assert!(d.append_sorted((b"c", b"d"), 1, ORDERS_ALL, (false, false)));
        assert_eq!(d.is_last(b"d"), Some(1));
        assert!(!d.lost());
        assert!(matches!(d.insert(b"b", key_of), Seen::Existing(0)));
        assert!(d.lost(), "\"a\" and \"c\" are not in the table");
    }

    #[test]
    fn many_unsorted() {
        let mut store: Vec<Vec<u8>> = Vec::new();
        let mut d = Dedup::default();
        for round in 0..2 {
            for i in (0..5000u32).rev() {
                let k = format!("k{i}").into_bytes();
                let s = &store;
                let r = d.insert(&k, |j| s[j as usize].as_slice());
                match (round, r) {
                    (0, Seen::New) => store.push(k),
                    (1, Seen::Existing(j)) => assert_eq!(store[j as usize], k),
                    _ => panic!("round {round} key {i}"),
                }
            }
        }
    }
}

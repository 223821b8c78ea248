//! Deduplication of registered labels.
//!
//! Zone dumps are sorted by owner, so while keys arrive in increasing
//! order (of the octets, or of the octets followed by a dot: the order of
//! owner names under one apex) a new key only needs comparing with the
//! last one. The first key out of order switches to an open-addressing
//! table of label indexes, each with 32 bits of its key's hash (8 bytes a
//! slot, linear probing), whose keys are read back from the label store,
//! so no key is copied. A slot is placed by those 32 bits alone: the table
//! grows without reading any key again, and a probe reads a key only when
//! the 32 bits match.
//!
//! Hand-made rather than `hashbrown`'s `HashTable` (the crate's other
//! tables, [`crate::hash`]): in an unsorted 10M-name CZDS dump nearly
//! every key is new and the table holds 10M slots, so each lookup is a
//! cache miss; [`Dedup::insert_run`] hides them by loading the slot of the
//! key a few keys on while it looks one up, which needs the slot's address
//! (`hashbrown` keeps it private, and its control bytes and slots are two
//! misses a new key rather than one). Measured in the CHANGELOG (#27).

use super::hash::hash_bytes;
use super::key_order::{ORDERS_ALL, orders_increasing};
use super::settle::SETTLED;

/// A slot of the table: label index + 1 (0: an empty slot) and the high
/// half of its key's hash.
type Slot = (u32, u32);

/// The slots of the table, in memory advised for transparent huge pages
/// when large (Linux `MADV_HUGEPAGE`, through `memmap2`): the probes of an
/// unsorted zone land at random in a table of tens of MiB, and with 4 KiB
/// pages nearly every probe is also a TLB miss, which on a virtual machine
/// costs a two-level page walk. Measured on the 10M-name unsorted CZDS
/// shape of `benches/formats.sh` (2 threads, THP in `madvise` mode): 26.6 s
/// with the table in a plain `Vec`, a fraction of that with huge pages
/// (figures in the CHANGELOG, #27).
#[derive(Default)]
struct Slots {
    map: Option<memmap2::MmapMut>,
    small: Vec<Slot>,
}

impl Slots {
    /// Tables smaller than this stay in a `Vec`.
    const MAPPED_FROM: usize = 2 << 20;

    /// `len` empty slots.
    fn zeroed(len: usize) -> Slots {
        let bytes = len.saturating_mul(std::mem::size_of::<Slot>());
        if bytes >= Self::MAPPED_FROM
            && let Ok(map) = memmap2::MmapMut::map_anon(bytes)
        {
            #[cfg(target_os = "linux")]
            let _ = map.advise(memmap2::Advice::HugePage);
            return Slots { map: Some(map), small: Vec::new() };
        }
        Slots { map: None, small: vec![(0, 0); len] }
    }
}

impl std::ops::Deref for Slots {
    type Target = [Slot];
    fn deref(&self) -> &[Slot] {
        match &self.map {
            // SAFETY: the map is page-aligned (more than `Slot`'s alignment
            // of 4), holds `len / 8` whole slots, and zero bytes are the
            // empty slot `(0, 0)`; it lives as long as `self`.
            Some(m) => unsafe {
                std::slice::from_raw_parts(m.as_ptr().cast::<Slot>(), m.len() / 8)
            },
            None => &self.small,
        }
    }
}

impl std::ops::DerefMut for Slots {
    fn deref_mut(&mut self) -> &mut [Slot] {
        match &mut self.map {
            // SAFETY: as in `deref`, and the borrow of `self` is unique.
            Some(m) => unsafe {
                std::slice::from_raw_parts_mut(m.as_mut_ptr().cast::<Slot>(), m.len() / 8)
            },
            None => &mut self.small,
        }
    }
}

/// The high half of a hash, kept in its slot.
#[inline]
fn tag(h: u64) -> u32 {
    (h >> 32) as u32
}

/// How many keys ahead [`Dedup::insert_run`] loads slots.
const PREFETCH_AHEAD: usize = 8;

/// The deduplicator. `key_of(i)` must return the key of label `i`.
#[derive(Default)]
pub(crate) struct Dedup {
    hashed: bool,
    /// While not hashed: the orders under which the keys so far strictly
    /// increase (see [`orders_increasing`]).
    orders: u8,
    last: Vec<u8>,
    len: u32,
    /// A power of two of slots, at most 3/4 full (empty until hashed).
    table: Slots,
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
        if self.hashed && !self.has_room(self.expected) {
            self.grow(self.expected);
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

    /// Looks up a run of keys in input order, loading the table slot of
    /// the key [`PREFETCH_AHEAD`] on while it looks one up (a hint; it
    /// changes nothing): for each, [`Seen`] as [`Dedup::insert`] gives it,
    /// new keys numbered in order from the labels so far. A key new in the
    /// run has no label yet: it is read from `keys` when a later one of
    /// the run is compared with it. `hashes`: the keys' [`hash_bytes`],
    /// when the caller computed them (else they are computed here).
    pub(crate) fn insert_run<'k>(
        &mut self,
        keys: &[&'k [u8]],
        hashes: Option<&[u64]>,
        key_of: impl Fn(u32) -> &'k [u8],
    ) -> Vec<Seen> {
        let computed: Vec<u64>;
        let hashes = match hashes {
            Some(h) => h,
            None => {
                computed = keys.iter().map(|k| hash_bytes(k)).collect();
                &computed
            }
        };
        let base = self.len;
        // Where in `keys` each label new in the run is.
        let mut fresh: Vec<u32> = Vec::new();
        let mut out = Vec::with_capacity(keys.len());
        for (k, &key) in keys.iter().enumerate() {
            if let Some(&h) = hashes.get(k + PREFETCH_AHEAD) {
                self.prefetch(h);
            }
            let of = |i: u32| match i.checked_sub(base) {
                Some(j) => keys[fresh[j as usize] as usize],
                None => key_of(i),
            };
            let seen = if self.hashed {
                self.insert_in_table(key, hashes[k], &of)
            } else {
                self.insert(key, of)
            };
            if matches!(seen, Seen::New) {
                fresh.push(k as u32);
            }
            out.push(seen);
        }
        out
    }

    /// Starts loading the table slot of a key with hash `h`.
    #[inline]
    fn prefetch(&self, h: u64) {
        if let Some(slot) = self.table.get(self.slot_of(tag(h))) {
            super::labels::prefetch(std::ptr::from_ref(slot).cast());
        }
    }

    /// Where the probe for a key of tag `t` starts.
    #[inline]
    fn slot_of(&self, t: u32) -> usize {
        t as usize & self.table.len().wrapping_sub(1)
    }

    /// Whether the table holds `n` keys within its load factor (3/4).
    fn has_room(&self, n: usize) -> bool {
        n.saturating_mul(4) <= self.table.len() * 3
    }

    /// Leaves the sorted mode: every label so far goes into the table,
    /// sized for the keys expected (or twice those so far).
    fn switch_to_table<'k>(&mut self, key_of: &impl Fn(u32) -> &'k [u8]) {
        self.hashed = true;
        self.grow(self.expected.max(self.len as usize * 2));
        for i in 0..self.len {
            self.put(i, tag(hash_bytes(key_of(i))));
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
        let t = tag(h);
        let mask = self.table.len() - 1;
        let mut s = self.slot_of(t);
        loop {
            let (i, ti) = self.table[s];
            if i == 0 {
                break;
            }
            if ti == t && key_of(i - 1) == key {
                return Seen::Existing(i - 1);
            }
            s = (s + 1) & mask;
        }
        if !self.has_room(self.len as usize + 1) {
            self.grow((self.table.len() * 2).max(self.expected));
        }
        self.put(self.len, t);
        self.len += 1;
        Seen::New
    }

    /// Puts label `i` of tag `t` in the first empty slot of its probe.
    fn put(&mut self, i: u32, t: u32) {
        let mask = self.table.len() - 1;
        let mut s = self.slot_of(t);
        while self.table[s].0 != 0 {
            s = (s + 1) & mask;
        }
        self.table[s] = (i + 1, t);
    }

    /// Moves the slots to a table with room for `want` keys (a copy by
    /// their tags: no key is read).
    fn grow(&mut self, want: usize) {
        let size = (want.saturating_mul(4) / 3 + 1).max(16).next_power_of_two();
        let old = std::mem::replace(&mut self.table, Slots::zeroed(size));
        for &(i, t) in old.iter() {
            if i != 0 {
                self.put(i - 1, t);
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

    /// A run gives what one key at a time gives, with repeats inside the
    /// run, of keys before it, sorted and not, across growths.
    #[test]
    fn runs_as_one_by_one() {
        let keys: Vec<Vec<u8>> =
            (0..20_000u32).map(|i| format!("k{}", (i * 7919) % 12_000).into_bytes()).collect();
        let mut one = Dedup::default();
        let mut store: Vec<&[u8]> = Vec::new();
        let mut want = Vec::new();
        for k in &keys {
            let s = &store;
            match one.insert(k, |i| s[i as usize]) {
                Seen::New => {
                    want.push(None);
                    store.push(k);
                }
                Seen::Existing(i) => want.push(Some(i)),
            }
        }
        let mut run = Dedup::default();
        let mut store: Vec<&[u8]> = Vec::new();
        let mut got = Vec::new();
        for part in keys.chunks(777) {
            let part: Vec<&[u8]> = part.iter().map(Vec::as_slice).collect();
            let s = store.clone();
            for (k, seen) in part.iter().zip(run.insert_run(&part, None, |i| s[i as usize])) {
                match seen {
                    Seen::New => {
                        got.push(None);
                        store.push(k);
                    }
                    Seen::Existing(i) => got.push(Some(i)),
                }
            }
        }
        assert_eq!(got, want);
        assert_eq!(store.len(), 12_000);
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

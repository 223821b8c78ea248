//! The crate's one hasher and its hash tables.
//!
//! Every hash table and hashed value of the crate (registered labels, owner
//! names, NS targets, code points, the judge's memos and index labels) uses
//! `foldhash`'s fast hasher, in `hashbrown` tables. The seed is fixed, so a
//! run's tables, and anything derived from their order, are the same from
//! run to run. Inputs come from zone files, which an attacker could shape
//! to collide under a fixed seed; the cost is only slower probing.

use std::hash::BuildHasher;

/// The hasher of every table: foldhash's fast hasher, with a fixed seed.
pub(crate) type HashBuild = foldhash::fast::FixedState;

/// A `hashbrown` map with [`HashBuild`].
pub(crate) type FastMap<K, V> = hashbrown::HashMap<K, V, HashBuild>;

/// A `hashbrown` set with [`HashBuild`].
pub(crate) type FastSet<K> = hashbrown::HashSet<K, HashBuild>;

/// The hash of a byte string (a label, an owner name).
#[inline]
pub(crate) fn hash_bytes(b: &[u8]) -> u64 {
    HashBuild::default().hash_one(b)
}

/// The hash of a sequence of code points (an index label).
#[inline]
pub(crate) fn hash_cps(cps: &[u32]) -> u64 {
    HashBuild::default().hash_one(cps)
}

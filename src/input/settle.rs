//! Plain labels settled while they are read, and never stored.
//!
//! Most labels of a zone are plain lower-case LDH labels that a scan finds
//! eligible under its first LGR and that can collide with no other label
//! (RFC 7940 §8.5: an LGR that maps every ASCII code point to itself makes
//! an all-ASCII label its own index label). A caller that knows which ones
//! those are gives the reader a [`Settle`] ([`Config::settle`]): the chunk
//! workers of the parallel zone reader ask it about each plain label while
//! the label's bytes are in cache, and a settled label is only counted
//! under its category ([`LabelSet::settled`]): no record, no copy of its
//! text, no second look. The worker may also keep a label while counting
//! it, with a tag, or keep it for the caller to judge ([`Settled`]); the
//! labels of the parts of the input it was asked about are listed in
//! [`LabelSet::settle_ranges`].
//!
//! A label that may be some IDN label's index label (with the built-in
//! set: one with a digit, since Devanagari and Khmer digits are variants
//! of ASCII ones) is settled only when the worker knows every IDN label of
//! the input. In a sorted zone they are one block, of owners starting
//! with `xn--`: the memory-mapped reader finds it by a binary search,
//! reads it first and tells its IDN labels ahead
//! ([`Settle::ahead_parts`], [`SettleWorker::ahead`]); at the end of the
//! read it checks that no label with a non-ASCII U-label was outside that
//! block, and else reads again without settling.
//!
//! Deduplication still sees every label: settling needs the registered
//! labels in increasing order (sorted zones, such as CZDS dumps, the case
//! it is for). An unsorted input is not read twice: once its keys are out
//! of order (the deduplicator uses its table), a chunk that settled labels
//! is extracted again without the settler, and the chunks after it are
//! extracted without it. Only a read that settled labels and then needs one
//! of their keys (sorted parts, then a key out of order; a list or CSV row
//! that repeats a settled label; an IDN label outside the block told
//! ahead) is done again: [`read`] then reads every input again without
//! settling, so the result is the same either way; it settles only inputs
//! it can read twice (files).
//!
//! [`Config::settle`]: super::Config::settle
//! [`LabelSet::settled`]: super::LabelSet::settled
//! [`LabelSet::settle_ranges`]: super::LabelSet::settle_ranges
//! [`read`]: super::read

use std::fmt;
use std::sync::Arc;

/// Categories a settled label can be counted under.
pub const SETTLED_KINDS: usize = 2;

/// Decides which plain labels need not be kept (see the module
/// documentation). Shared by the reader's threads.
pub trait Settle: Send + Sync {
    /// A worker for one thread (it may keep caches).
    fn worker(&self) -> Box<dyn SettleWorker>;

    /// A read starts: what was told ahead for another read no longer
    /// holds. (A settler that wraps another must pass this and
    /// [`Settle::ahead_parts`] on.)
    fn start(&self);

    /// The IDN labels of the input will be told ahead, in `parts` parts
    /// ([`SettleWorker::ahead`]), before most of its plain labels: in a
    /// sorted zone they are the one block of owners whose label starts
    /// with `xn--`, which the reader reads first. The read checks at its
    /// end that every label with a non-ASCII U-label was in that block,
    /// else it is done again without settling, so [`Settled::Assume`] may
    /// rely on the labels told once all parts are (and on nothing told
    /// before [`Settle::start`]).
    fn ahead_parts(&self, parts: usize);
}

/// An IDN label told ahead ([`SettleWorker::ahead`]).
#[derive(Clone, Copy, Debug)]
pub struct AheadLabel<'a> {
    /// The label as written (it starts with `xn--`, in any case).
    pub alabel: &'a [u8],
    /// Its U-label, when the reader computed it (a valid IDN whose A-label
    /// is its text).
    pub ulabel: Option<&'a str>,
}

/// What a [`SettleWorker`] says of a plain label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Counted under this category (below [`SETTLED_KINDS`]) and not
    /// stored.
    Count(usize),
    /// Likewise, on the strength of the labels told ahead
    /// ([`Settle::ahead_parts`]).
    Assume(usize),
    /// Counted under this category and stored too, listed in
    /// [`LabelSet::settle_tags`](super::LabelSet::settle_tags) (a label
    /// that may take part in what the caller does next).
    Tag(usize),
    /// Stored, listed in
    /// [`LabelSet::settle_kept`](super::LabelSet::settle_kept): for the
    /// caller to look at.
    Keep,
}

/// A thread's [`Settle`] worker.
pub trait SettleWorker: Send {
    /// Whether it settles now: asked before each part of the input, of
    /// which it is then told every plain label, or none.
    fn ready(&mut self) -> bool;

    /// What becomes of the plain label `text` (lower-case LDH, at most 63
    /// octets, RFC 5891 §4.2.3.1). `tail` starts with `text` and goes on
    /// with the bytes after it in the buffer, when there are any. The
    /// answer must depend on `text` alone.
    fn settle(&mut self, text: &[u8], tail: &[u8]) -> Settled;

    /// [`SettleWorker::settle`] for a plain label of at most 32 octets
    /// whose digits and hyphens the reader has found on its way (bit i of
    /// `digits`, of `hyphens`: octet i is a digit, a hyphen); the answer
    /// must be the same. By default, [`SettleWorker::settle`].
    fn settle_ldh(&mut self, text: &[u8], digits: u32, hyphens: u32) -> Settled {
        let _ = (digits, hyphens);
        self.settle(text, text)
    }

    /// The plain labels of letters only (no digit, no hyphen) that it
    /// counts whatever their letters, as of the last
    /// [`SettleWorker::ready`]: bit n of the mask is set when every such
    /// label of n octets (n < 64) settles as [`Settled::Count`] of the
    /// category given. The reader counts those without asking (most
    /// labels of a zone are such words). By default none.
    fn letters(&self) -> (u64, usize) {
        (0, 0)
    }

    /// Whether the plain labels of letters and digits, with at least one
    /// of each and no hyphen, of the lengths [`SettleWorker::letters`]
    /// gives, settle alike as of the last [`SettleWorker::ready`], under
    /// the category it gives: `Some(false)` as [`Settled::Count`],
    /// `Some(true)` as [`Settled::Assume`]. The reader then counts those
    /// without asking too. By default `None` (they are asked about).
    fn letters_and_digits(&self) -> Option<bool> {
        None
    }

    /// Whether the plain labels [`SettleWorker::letters`] and
    /// [`SettleWorker::letters_and_digits`] cover settle alike with
    /// hyphens too, where RFC 5891 §4.2.3.1 allows them (with a letter
    /// still). The reader then counts those without asking as well. By
    /// default false.
    fn hyphens_as_letters(&self) -> bool {
        false
    }

    /// One of the parts announced by [`Settle::ahead_parts`]: its IDN
    /// labels, in order. `complete`: whether the part was read to its end
    /// (when not, nothing told ahead may be relied on).
    fn ahead(&mut self, labels: &[AheadLabel<'_>], complete: bool);
}

/// A [`Settle`] for [`Config::settle`](super::Config::settle).
#[derive(Clone)]
pub struct Settler(pub Arc<dyn Settle>);

impl fmt::Debug for Settler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Settler")
    }
}

/// The label index given for a settled label (it has none).
pub(crate) const SETTLED: u32 = u32::MAX;

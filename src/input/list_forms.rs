//! The IDNA forms of list and CSV labels, computed in parallel ahead of
//! registration ([`compute_forms`]) and taken in line order by the
//! collector.

use super::hash::hash_bytes;
use super::labels::NONE;
use crate::idna2008::{self, Finding, FormsAt};

/// IDNA forms of list labels computed beforehand (see
/// [`Collector::set_list_forms`]): chunks of entries in line order.
#[derive(Default)]
pub(crate) struct ListForms {
    pub(crate) source: u32,
    pub(crate) chunks: Vec<ListFormsChunk>,
    /// The first entry not taken yet: (chunk, entry).
    pub(crate) next: (usize, usize),
}

/// The forms of a batch of list labels, computed beforehand (in parallel) by
/// [`compute_forms`], for [`Collector::set_list_forms`].
pub(crate) struct ListFormsBatch {
    /// The source of the labels.
    pub(crate) source: u32,
    /// In line order.
    pub(crate) chunks: Vec<ListFormsChunk>,
}

/// Forms of consecutive labels, computed by one task.
pub(crate) struct ListFormsChunk {
    /// The forms of the entries, one after the other.
    pub(crate) text: String,
    pub(crate) entries: Vec<ListFormsEntry>,
}

/// The forms of one label (never a plain label).
///
/// Kept small (40 bytes): a batch has tens of thousands.
pub(crate) struct ListFormsEntry {
    /// Where the label is in its source, and its length.
    pub(crate) offset: u64,
    pub(crate) len: u32,
    /// Its A-label is `text[at..at + alen]`; its U-label follows (`ulen`
    /// octets), or is the A-label when `ulen` is [`NONE`].
    pub(crate) at: u32,
    pub(crate) alen: u32,
    pub(crate) ulen: u32,
    /// Rare, so boxed.
    pub(crate) finding: Option<Box<Finding>>,
    /// [`hash_bytes`] of the A-label, the deduplication key.
    pub(crate) hash: u64,
}

impl ListForms {
    /// Takes the entry of the label at `offset` of `source`, `len` octets
    /// long, skipping the entries before it (lines not registered).
    pub(crate) fn take(
        &mut self,
        source: u32,
        offset: u64,
        len: usize,
    ) -> Option<(&str, &ListFormsEntry)> {
        if source != self.source {
            return None;
        }
        let (mut c, mut i) = self.next;
        while let Some(chunk) = self.chunks.get(c) {
            match chunk.entries.get(i) {
                None => (c, i) = (c + 1, 0),
                Some(e) if e.offset < offset => i += 1,
                Some(e) if e.offset == offset && e.len as usize == len => {
                    self.next = (c, i + 1);
                    let chunk = &self.chunks[c];
                    return Some((&chunk.text, &chunk.entries[i]));
                }
                Some(_) => break,
            }
        }
        self.next = (c, i);
        None
    }
}

/// Computes the IDNA forms of list labels given as (offset in their
/// source, octets), in line order; each conversion is independent of the
/// others, so callers run this on several batches in parallel.
pub(crate) fn compute_forms(labels: &[(u64, &[u8])]) -> ListFormsChunk {
    let mut text = String::with_capacity(labels.len() * 64);
    let mut entries = Vec::with_capacity(labels.len());
    let mut chars = Vec::new();
    for &(offset, l) in labels {
        let at = text.len();
        let forms = idna2008::forms_into(l, &mut text, &mut chars);
        // Sizes beyond u32 (no real label) are left to `register`.
        let fit = |n: usize| u32::try_from(n).ok().filter(|&n| n != NONE);
        if let FormsAt::Owned { alen, ulen, finding } = forms
            && !(l.is_ascii() && idna2008::is_plain_ldh(&l.to_ascii_lowercase()))
            && let (Some(len32), Some(at32), Some(alen32)) = (fit(l.len()), fit(at), fit(alen))
            && let Some(ulen32) = ulen.map_or(Some(NONE), fit)
        {
            let hash = hash_bytes(&text.as_bytes()[at..at + alen]);
            entries.push(ListFormsEntry {
                offset,
                len: len32,
                at: at32,
                alen: alen32,
                ulen: ulen32,
                finding: finding.map(Box::new),
                hash,
            });
        } else {
            // Plain once folded: `register` needs no forms.
            text.truncate(at);
        }
    }
    ListFormsChunk { text, entries }
}

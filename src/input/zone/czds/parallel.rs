//! Extracting chunks in parallel and merging them in order ([`run`]), and
//! the block of IDN labels told ahead (see [`crate::input::settle`]).

use super::super::entry::general_entry;
use super::super::state::ZoneState;
use super::chunk::{Buffers, Chunk, FastOpts, Stop};
use super::extract::extract_in;
use super::merge::merge;
use crate::input::Config;
use crate::input::Error;
use crate::input::LabelText;
use crate::input::collect::Collector;
use crate::input::collect::IdnBlock;
use crate::input::settle::AheadLabel;
use crate::input::settle::Settling;
use crate::input::source::Data;
use memchr::memchr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Bytes per chunk of the parallel fast path: at most this…
pub(super) const CHUNK_MAX: usize = 4 << 20;
/// …and at least this.
pub(super) const CHUNK_MIN: usize = 64 << 10;

/// Most bytes of IDN labels [`parallel`] reads ahead (see `AheadBlock`).
/// A generated .com-sized dump (143.5M names, 2% IDN, four NS records a
/// name, 29.9 GB) has an 860 MB block: under 512 MiB it was not told
/// ahead, so the half of its plain labels that have a digit were stored,
/// and peak RSS was 3.17 GB instead of 1.33 GB.
pub(super) const AHEAD_MAX: usize = 1 << 30;

/// What [`run`] tells the memory that holds the buffer it reads (a map:
/// see [`Data`]). A closure is taken as `populate`, with nothing to
/// forget.
pub(crate) trait Pages: Sync {
    /// `start..end` is about to be read by one worker.
    fn populate(&self, start: usize, end: usize);
    /// Nothing of `start..end` needs to stay mapped: it was only probed
    /// (for the chunks' bounds), and is populated again when read.
    fn forget(&self, _start: usize, _end: usize) {}
    /// `start..end` will be read soon: its reading from disk may start.
    fn prefetch(&self, _start: usize, _end: usize) {}
    /// `start..end` is about to be probed at a few places only (the
    /// chunks' bounds, the block of IDN labels) with `sparse`, and read in
    /// order after, without.
    fn probing(&self, _start: usize, _end: usize, _sparse: bool) {}
}

impl<F: Fn(usize, usize) + Sync> Pages for F {
    fn populate(&self, start: usize, end: usize) {
        self(start, end);
    }
}

/// The pages of a map are populated before a chunk is read, and those that
/// probing mapped are dropped: a probe into a large folio of the page cache
/// maps all of it (2 MiB at a time when it is a huge page), so the probes
/// for the chunks' bounds, one per 4 MiB chunk, would keep about half the
/// file resident until each chunk is read.
impl Pages for Data {
    fn populate(&self, start: usize, end: usize) {
        Data::populate(self, start, end);
    }
    fn forget(&self, start: usize, end: usize) {
        self.release(start, end);
    }
    fn prefetch(&self, start: usize, end: usize) {
        self.read_ahead(start, end);
    }
    fn probing(&self, start: usize, end: usize, sparse: bool) {
        self.probing(start, end, sparse);
    }
}

/// How many chunks ahead of the one claimed the disk is asked to read
/// ([`Pages::prefetch`]): a worker populates its chunk when it claims it,
/// and on a file larger than the page cache it would otherwise wait for
/// the disk chunk after chunk. On the .com-sized dump (29.9 GB, caches
/// dropped, 2 threads) 52 s became 45 s, against `wc -l`'s 30 s; 16
/// chunks ahead did no better.
const READ_AHEAD_CHUNKS: usize = 4;

/// Reads `buf` from `pos` with the fast path, in chunks extracted in
/// parallel on rayon's current pool and merged in order; `buf[0]` is at
/// `base` in the source, and `eof` says whether the data ends with `buf`.
/// `pages` hears of the chunks to be read ([`Pages`]).
/// `merged(start, next)` is called after each chunk is merged. Returns
/// where it stopped and why: the end of `buf`, a line for the general
/// parser, or an incomplete last line.
///
/// Chunks are claimed in order by whichever thread is free and merged in
/// order by this one, which extracts too while the next chunk to merge is
/// not ready ([`Claims`]): no thread waits for a whole batch to end.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    buf: &[u8],
    base: u64,
    pos: usize,
    eof: bool,
    opts: &FastOpts<'_>,
    pages: &dyn Pages,
    ahead: Option<&AheadBlock<'_>>,
    mut merged: impl FnMut(usize, usize) + Send,
) -> Result<(usize, Stop), Error> {
    let len = buf.len();
    if pos >= len {
        return Ok((pos, Stop::End));
    }
    let threads = rayon::current_num_threads().max(1);
    // Chunks: enough per thread that the last ones end together.
    let (chunk_min, chunk_max) = config.chunk.map_or((CHUNK_MIN, CHUNK_MAX), |c| (c, c));
    let size = ((len - pos) / (8 * threads)).clamp(chunk_min, chunk_max);
    pages.probing(pos, len, true);
    let (bounds, first, told) = chunk_bounds(buf, pos, (size, chunk_min), ahead, pages);
    pages.probing(pos, len, false);
    // The caller's probes (for the block) may have mapped pages too.
    pages.forget(pos, len);
    let claims = Claims::new(buf, eof, opts, pages, ahead.filter(|_| told), bounds, first, threads);
    if let (Some(a), true) = (ahead, told) {
        a.settle.ahead_parts(claims.first.len() + 1);
        let before = a.before.iter().map(|(l, u)| (&l[..], u.as_deref()));
        a.settle.tell(to_tell(a.settle, before), true);
    }
    let n = claims.bounds.len() - 1;
    let mut outcome: Result<(usize, Stop), Error> = Ok((len, Stop::End));
    let mut panic = None;
    rayon::scope(|scope| {
        // When the merge ends, and also when it unwinds: a worker waiting
        // for it to move the window would wait forever, and the scope
        // with it.
        let _halt = OnDrop(|| claims.announce(&|| claims.halt.store(true, Ordering::Relaxed)));
        for _ in 1..threads.min(n) {
            scope.spawn(|_| while claims.work(true) {});
        }
        for k in 0..n {
            let mut chunk = match claims.wait_for(k) {
                Ok(c) => c,
                Err(p) => {
                    panic = Some(p);
                    break;
                }
            };
            // Settled labels are only counted: a chunk of them whose keys
            // do not go on from the sorted keys so far (an upper-case
            // label, an unsorted input) is extracted again without the
            // rule, its labels to be registered one by one.
            if settled_out_of_order(col, buf, &chunk) {
                let (a, b) = (claims.bounds[k], claims.bounds[k + 1]);
                let buffers = chunk.into_buffers();
                let unsettled = FastOpts { settle: None, ..*opts };
                chunk = extract_in(buf, (a, b), eof && b == len, &unsettled, buffers);
            }
            let (next, stop) = (chunk.next, chunk.stop);
            let in_block = opts.adopt_forms || claims.first.contains(&k);
            match merge(col, config, st, buf, base, chunk, in_block) {
                Ok(b) => claims.spare.lock().unwrap_or_else(PoisonError::into_inner).push(b),
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
            merged(claims.bounds[k], next);
            // The careful parser's lines of the chunk, and the lines after
            // them, in this thread: the chunks after it go on.
            let (next, stop) = if stop == Stop::Slow {
                let to = claims.bounds[k + 1];
                match read_careful(col, config, st, (buf, base), (next, to), eof, opts) {
                    Ok(None) => {
                        merged(next, to);
                        (to, Stop::End)
                    }
                    Ok(Some((at, stop))) => {
                        merged(next, at.min(len));
                        (at, stop)
                    }
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                }
            } else {
                (next, stop)
            };
            if col.keys_unsorted() {
                claims.unsorted.store(true, Ordering::Relaxed);
            }
            if stop != Stop::End {
                outcome = Ok((next, stop));
                break;
            }
            claims.announce(&|| claims.merged_upto.store(k + 1, Ordering::Relaxed));
        }
        // Chunks after a stop are not needed: the others end theirs
        // (`_halt`).
    });
    if let Some(p) = panic {
        std::panic::resume_unwind(p);
    }
    outcome
}

/// Reads the rest of a chunk, `buf[from..to]`, after it stopped at `from`
/// for the careful parser: the entries the careful parser reads
/// ([`general_entry`]: parentheses, quotes, comments…) one at a time,
/// and the lines between them extracted again in this thread and merged.
/// `None`: the chunk's end was reached, and the next chunk goes on from
/// there. Otherwise where the run stops and why: at a directive (the
/// caller's: it may change the origin the next chunks were read under,
/// or open a file), after an entry that goes on past the chunk's end, or
/// at an incomplete entry.
#[allow(clippy::too_many_arguments)]
fn read_careful(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    (buf, base): (&[u8], u64),
    (from, to): (usize, usize),
    eof: bool,
    opts: &FastOpts<'_>,
) -> Result<Option<(usize, Stop)>, Error> {
    let unsettled = FastOpts { settle: None, ..*opts };
    let eof_at_to = eof && to == buf.len();
    let mut buffers = Buffers::default();
    let mut pos = from;
    loop {
        if pos == to {
            return Ok(None);
        }
        if pos > to || buf[pos] == b'$' {
            return Ok(Some((pos, Stop::Slow)));
        }
        match general_entry(col, st, buf, pos, base, eof)? {
            Some(end) => pos = end,
            None => return Ok(Some((pos, Stop::NeedMore))),
        }
        if pos >= to {
            continue;
        }
        let piece = extract_in(buf, (pos, to), eof_at_to, &unsettled, buffers);
        let (next, stop) = (piece.next, piece.stop);
        buffers = merge(col, config, st, buf, base, piece, opts.adopt_forms)?;
        if stop == Stop::NeedMore {
            return Ok(Some((next, stop)));
        }
        pos = next;
    }
}

/// The bounds of the chunks of `buf` from `pos`, of about `size` bytes,
/// cut at the starts of lines that do not begin with white space. With `ahead`, its range is cut into chunks of its own,
/// smaller ones (they are read first, and the labels after them wait for
/// the last), returned as the second item; the third says whether its
/// labels are told ahead: not when it does not start a line (the caller's
/// range is only a hint).
fn chunk_bounds(
    buf: &[u8],
    pos: usize,
    (size, chunk_min): (usize, usize),
    ahead: Option<&AheadBlock<'_>>,
    pages: &dyn Pages,
) -> (Vec<usize>, std::ops::Range<usize>, bool) {
    let len = buf.len();
    let block = ahead.map(|a| (a.range.0.clamp(pos, len), a.range.1.clamp(pos, len)));
    let mut bounds = vec![pos];
    let mut first = 0..0;
    let cut = |bounds: &mut Vec<usize>, to: usize, size: usize| {
        let mut s = *bounds.last().unwrap_or(&pos);
        while s < to {
            let mut e = s.saturating_add(size).min(to);
            if e < to {
                let probe = e - 1;
                e = memchr::memchr(b'\n', &buf[probe..to]).map_or(to, |k| e + k);
                // At a line that starts an owner: a blank owner continues
                // the previous line's (RFC 1035 §5.1).
                while e < to && matches!(buf[e], b' ' | b'\t') {
                    e = memchr::memchr(b'\n', &buf[e..to]).map_or(to, |k| e + k + 1);
                }
                // At once: a probe may map far more than it read.
                pages.forget(probe, e.max(probe + 1));
            }
            bounds.push(e);
            s = e;
        }
    };
    let mut told = false;
    match block {
        Some((lo, hi)) if lo < hi && (lo == pos || buf[lo - 1] == b'\n') => {
            cut(&mut bounds, lo, size);
            let b0 = bounds.len() - 1;
            cut(&mut bounds, hi, (size / 4).max(chunk_min));
            first = b0..bounds.len() - 1;
            cut(&mut bounds, len, size);
            told = true;
        }
        Some((lo, hi)) => {
            // No block: nothing to tell (in no part).
            told = lo >= hi;
            cut(&mut bounds, len, size);
        }
        None => cut(&mut bounds, len, size),
    }
    (bounds, first, told)
}

/// The chunks of one [`run`] and their claims. A thread claims no chunk
/// more than `window` past the last merged one, so the extracted chunks
/// waiting for the merge stay few; none past a chunk that stopped (the
/// general parser takes over there). A panic while extracting is kept in
/// the chunk's slot and raised by the merge.
struct Claims<'a> {
    buf: &'a [u8],
    eof: bool,
    opts: &'a FastOpts<'a>,
    pages: &'a dyn Pages,
    /// The block whose labels are told ahead, when they are.
    ahead: Option<&'a AheadBlock<'a>>,
    bounds: Vec<usize>,
    /// The chunks of the block, read first.
    first: std::ops::Range<usize>,
    window: usize,
    slots: Mutex<Vec<Option<std::thread::Result<Chunk>>>>,
    filled: Condvar,
    claim: AtomicUsize,
    merged_upto: AtomicUsize,
    stop_at: AtomicUsize,
    halt: AtomicBool,
    /// Buffers of merged chunks, for the next ones.
    spare: Mutex<Vec<Buffers>>,
    /// The keys so far are not sorted: a chunk's settled labels could not
    /// be merged, so chunks are extracted without the rule.
    unsorted: AtomicBool,
}

impl<'a> Claims<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        buf: &'a [u8],
        eof: bool,
        opts: &'a FastOpts<'a>,
        pages: &'a dyn Pages,
        ahead: Option<&'a AheadBlock<'a>>,
        bounds: Vec<usize>,
        first: std::ops::Range<usize>,
        threads: usize,
    ) -> Claims<'a> {
        let n = bounds.len() - 1;
        Claims {
            buf,
            eof,
            opts,
            pages,
            ahead,
            bounds,
            first,
            window: 4 * threads,
            slots: Mutex::new((0..n).map(|_| None).collect()),
            filled: Condvar::new(),
            claim: AtomicUsize::new(0),
            merged_upto: AtomicUsize::new(0),
            stop_at: AtomicUsize::new(usize::MAX),
            halt: AtomicBool::new(false),
            spare: Mutex::new(Vec::new()),
            unsorted: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Option<std::thread::Result<Chunk>>>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes the waiting threads after `f` changed what they wait on.
    fn announce(&self, f: &dyn Fn()) {
        let guard = self.lock();
        f();
        drop(guard);
        self.filled.notify_all();
    }

    /// The chunk claimed `p`-th: with a block, the chunks of its range
    /// are claimed first (they are few: the window does not hold them
    /// back), then the others in order.
    fn order(&self, p: usize) -> usize {
        let first = &self.first;
        if p < first.len() {
            first.start + p
        } else if p < first.end {
            p - first.len()
        } else {
            p
        }
    }

    /// Whether chunk `c` is past the window (see [`past_window`]).
    fn past_window(&self, c: usize) -> bool {
        past_window(c, self.merged_upto.load(Ordering::Relaxed), &self.first, self.window)
    }

    /// Extracted chunk `k`, for the merge: extracts chunks itself while
    /// it is not there, else waits for the thread extracting it.
    fn wait_for(&self, k: usize) -> std::thread::Result<Chunk> {
        loop {
            let mut guard = self.lock();
            if let Some(c) = guard[k].take() {
                return c;
            }
            drop(guard);
            if !self.work(false) {
                // Chunk k is being extracted by another thread.
                guard = self.lock();
                while guard[k].is_none() {
                    guard = self.filled.wait(guard).unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
    }

    /// Claims and extracts the next chunk; false when there is none to
    /// claim now. `wait`: wait for the merge to catch up rather than return
    /// false when the next chunk is past the window.
    fn work(&self, wait: bool) -> bool {
        let Some(c) = self.claim_next(wait) else { return false };
        let (a, b) = (self.bounds[c], self.bounds[c + 1]);
        let len = self.buf.len();
        let spare = self.spare.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let mut buffers = spare.unwrap_or_default();
        let unsorted = self.unsorted.load(Ordering::Relaxed);
        if self.first.contains(&c) {
            // A block chunk's labels are IDN labels: room for their forms
            // (about half the octets of their lines) and records at once,
            // rather than a copy into new memory at each doubling (the
            // block's buffers are neither merged nor used again until the
            // end of the read).
            buffers.idn_text.reserve((b - a) / 2);
            buffers.regs.reserve((b - a) / 64);
            buffers.idns.reserve((b - a) / 64);
        }
        // A panic in the extraction is kept in the chunk's slot, like a
        // chunk, for the merge to raise: a thread that unwound past its
        // claim would leave the merge waiting for the chunk forever.
        let chunk = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let unsettled = FastOpts { settle: None, ..*self.opts };
            let opts = if unsorted { &unsettled } else { self.opts };
            self.pages.populate(a, b);
            let mut chunk = extract_in(self.buf, (a, b), self.eof && b == len, opts, buffers);
            chunk.hash_keys(self.buf);
            chunk
        }));
        // A chunk that stopped for the careful parser does not end the
        // run (see `read_careful`), unless at a directive: the chunks after
        // it are not claimed then.
        let ends_run = |k: &Chunk| {
            k.stop == Stop::NeedMore
                || (k.stop == Stop::Slow && self.buf.get(k.next) == Some(&b'$'))
        };
        if chunk.as_ref().map_or(true, ends_run) {
            self.stop_at.fetch_min(c, Ordering::Relaxed);
        }
        if let (Some(a), true, Ok(k)) = (self.ahead, self.first.contains(&c), chunk.as_ref()) {
            // A chunk that stopped early leaves labels to the general
            // parser: it is told incomplete.
            let complete = k.stop == Stop::End;
            let labels = idn_labels_of(self.buf, k).filter(|_| complete);
            a.settle.tell(to_tell(a.settle, labels), complete);
        }
        self.lock()[c] = Some(chunk);
        self.filled.notify_all();
        true
    }

    /// Claims the next chunk (see [`Claims::work`]).
    fn claim_next(&self, wait: bool) -> Option<usize> {
        let n = self.bounds.len() - 1;
        loop {
            let p = self.claim.load(Ordering::Relaxed);
            if self.halt.load(Ordering::Relaxed) || p >= n {
                return None;
            }
            let c = self.order(p);
            if c > self.stop_at.load(Ordering::Relaxed) {
                if self.first.contains(&c) {
                    // Not needed (nothing is told then): passed over.
                    let _ =
                        self.claim.compare_exchange(p, p + 1, Ordering::Relaxed, Ordering::Relaxed);
                    continue;
                }
                return None;
            }
            if self.past_window(c) {
                if !wait {
                    return None;
                }
                let mut guard = self.lock();
                while !self.halt.load(Ordering::Relaxed)
                    && self.past_window(self.order(self.claim.load(Ordering::Relaxed)))
                {
                    guard = self.filled.wait(guard).unwrap_or_else(PoisonError::into_inner);
                }
                continue;
            }
            if self.claim.compare_exchange(p, p + 1, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
                let later = self.order(p + READ_AHEAD_CHUNKS);
                if later + 1 < self.bounds.len() {
                    self.pages.prefetch(self.bounds[later], self.bounds[later + 1]);
                }
                return Some(c);
            }
        }
    }
}

/// Whether chunk `c` has settled labels whose keys [`merge`] could not
/// count in bulk after the keys so far (see [`Dedup::continues_sorted`]).
///
/// [`Dedup::continues_sorted`]: crate::input::dedup::Dedup::continues_sorted
pub(super) fn settled_out_of_order(col: &mut Collector, buf: &[u8], c: &Chunk) -> bool {
    if c.settled.iter().all(|&n| n == 0) {
        return false;
    }
    match (c.first_reg, c.last_reg) {
        (Some((at, len, _)), Some(_)) if c.orders != 0 => {
            !col.dedup_mut().continues_sorted(&buf[at..at + len], c.orders)
        }
        _ => true,
    }
}

/// Whether chunk `c` is past the window of [`run`] when the merge has
/// merged the chunks before `m`: block chunks (`first`, read first) do not
/// count, neither ahead of the merge nor behind it; while the merge has
/// block chunks left, the window is wider by half their number, at most
/// twice as wide (see [`run`]).
pub(super) fn past_window(
    c: usize,
    m: usize,
    first: &std::ops::Range<usize>,
    window: usize,
) -> bool {
    let outside = |k: usize| if k >= first.end { k - first.len() } else { k.min(first.start) };
    let block_left = first.end.saturating_sub(m.max(first.start));
    let wider = (block_left / 2).min(window);
    !first.contains(&c) && outside(c) >= outside(m) + window + wider
}

/// Runs its closure when dropped (also while unwinding).
pub(super) struct OnDrop<F: FnMut()>(F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

/// The range of a buffer whose IDN labels are told ahead (see
/// [`Settling::ahead_parts`]): [`run`] reads its chunks first.
pub(crate) struct AheadBlock<'a> {
    pub(crate) range: (usize, usize),
    /// The labels read before, that are not plain: as written, and their
    /// U-labels when not ASCII; told as one more part.
    pub(crate) before: Vec<(Vec<u8>, Option<String>)>,
    pub(crate) settle: &'a Settling,
}

/// The registered labels of chunk `c` that start with `xn--` (in any
/// case), with the U-labels the chunk computed.
pub(super) fn idn_labels_of<'b>(
    buf: &'b [u8],
    c: &'b Chunk,
) -> impl Iterator<Item = (&'b [u8], Option<&'b str>)> + 'b {
    let mut idns = c.idns.iter().peekable();
    c.regs.iter().enumerate().filter_map(move |(i, g)| {
        let idn = match idns.peek() {
            Some(d) if d.reg as usize == i => idns.next(),
            _ => None,
        };
        let label = &buf[g.at..g.at + usize::from(g.len)];
        (!g.plain && label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--")).then(|| {
            (label, idn.and_then(|d| c.idn_text.get(d.at as usize..(d.at + d.ulen) as usize)))
        })
    })
}

/// The labels of `labels` that `settle` is to be told
/// ([`Settling::may_have_ascii_key`]), owned.
fn to_tell<'b>(
    settle: &'b Settling,
    labels: impl Iterator<Item = (&'b [u8], Option<&'b str>)> + 'b,
) -> impl Iterator<Item = AheadLabel> + 'b {
    labels
        .filter(|(_, u)| settle.may_have_ascii_key(*u))
        .map(|(a, u)| AheadLabel { alabel: a.into(), ulabel: u.map(Box::from) })
}

/// The label right under `apex` of the owner of the line at `at`, when
/// its owner is a name below `apex` (the key of the order of a sorted
/// zone); of a relative owner, its last label (the key when the origin
/// is the apex: a hint otherwise).
pub(super) fn line_key<'b>(buf: &'b [u8], at: usize, apex: &[u8]) -> Option<&'b [u8]> {
    let end = buf[at..].iter().position(|&b| matches!(b, b'\t' | b' ' | b'\n' | b'\r'))?;
    let owner = &buf[at..at + end];
    let head = if owner.last() != Some(&b'.') {
        // Not `@`, a comment, a directive, an entry the tokenizer reads.
        let name = owner != b"@" && !owner.iter().any(|&b| b";$()\"\\".contains(&b));
        name.then_some(owner)?
    } else if apex == b"." {
        owner.strip_suffix(b".")?
    } else {
        owner.strip_suffix(apex)?.strip_suffix(b".")?
    };
    let key = head.rsplit(|&b| b == b'.').next()?;
    (!key.is_empty()).then_some(key)
}

/// Where the lines of `buf` from `from` whose [`line_key`] is at least
/// `target` start, when the keys increase (a sorted zone; lines without a
/// key are passed over): a binary search over line starts. Only a hint:
/// the read checks what it relies on.
pub(super) fn idn_block(buf: &[u8], from: usize, apex: &[u8], target: &[u8]) -> usize {
    let start_at = |p: usize| -> usize {
        if p <= from || buf[p - 1] == b'\n' {
            p.max(from)
        } else {
            memchr(b'\n', &buf[p..]).map_or(buf.len(), |k| p + k + 1)
        }
    };
    let (mut lo, mut hi) = (from, buf.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // The first line with a key from `mid` (a few lines at most in a
        // zone dump; past 64, the lines are taken to have none).
        let mut s = start_at(mid);
        let mut key = None;
        for _ in 0..64 {
            if s >= hi {
                break;
            }
            key = line_key(buf, s, apex);
            if key.is_some() {
                break;
            }
            s = start_at(s + 1);
        }
        match key {
            Some(k) if s < hi && k < target => lo = start_at(s + 1),
            Some(_) if s < hi => hi = s,
            _ => hi = mid,
        }
    }
    // At a line that starts an owner (see `chunk_bounds`).
    let mut at = start_at(lo);
    while at < buf.len() && matches!(buf[at], b' ' | b'\t') {
        at = start_at(at + 1);
    }
    at
}

/// Reads the mapped `source` from `pos` with the fast path ([`run`]),
/// reporting progress per chunk and, with [`LabelText::Copy`], releasing
/// the pages read. Returns where it stopped: the end, or a line for the
/// general parser.
pub(crate) fn parallel(
    col: &mut Collector,
    config: &Config,
    st: &mut ZoneState,
    source: &Data,
    pos: usize,
    apex: &[u8],
) -> Result<usize, Error> {
    let copy = config.label_text == LabelText::Copy;
    let origin = st.origin.clone();
    let text = super::super::origin_text(origin.as_deref());
    let opts = FastOpts {
        apex,
        origin: origin.as_deref(),
        origin_text: text.as_deref(),
        czds: st.czds,
        ns: col.collects_ns(),
        copy,
        settle: col.settling(config),
        adopt_forms: false,
    };
    let buf = source.bytes();
    // The chunks of the IDN labels are read first, and their labels told
    // ahead (see `Settling::ahead_parts`).
    let mut ahead = None;
    source.probing(pos, buf.len(), true);
    let block = match opts.settle {
        Some(settle) if !col.told_ahead() => {
            Some((settle, idn_block(buf, pos, apex, b"xn--"), idn_block(buf, pos, apex, b"xn-.")))
        }
        _ => None,
    };
    // The block's chunks are read ahead of the merge, their pages and
    // labels held until it reaches them: only a block of at most an eighth
    // of the input (and `AHEAD_MAX`) is told ahead.
    if let Some((settle, lo, hi)) = block
        && hi.saturating_sub(lo) <= ((buf.len() - pos) / 8).min(AHEAD_MAX)
    {
        // The labels read before `pos` (by the general parser, which found
        // the apex) that are not plain are told too.
        let before = col.tell_ahead(IdnBlock {
            source: st.source,
            before: pos as u64,
            range: (lo as u64, hi.max(lo) as u64),
        });
        ahead = Some(AheadBlock { range: (lo, hi), before, settle });
    }
    let (next, _) =
        run(col, config, st, buf, 0, pos, true, &opts, source, ahead.as_ref(), |start, next| {
            config.report(next - start);
            if copy {
                // Nothing borrows from what was read: release its pages.
                source.release(start, next);
            }
        })?;
    Ok(next)
}

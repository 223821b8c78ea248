//! The command's global allocator: the system allocator, except that large
//! blocks are mapped on their own and marked for transparent huge pages.
//!
//! A scan builds a few large arrays (the labels' records, their text, the
//! index labels) that grow by doubling. From the system allocator they
//! are copied at each growth and faulted in 4 KiB at a time. Here a block
//! of [`BIG`] bytes or more is an anonymous mapping of whole 2 MiB units
//! with `madvise(MADV_HUGEPAGE)`: it grows in place or is moved by
//! `mremap` (no copy), and is faulted in 2 MiB at a time when the system
//! has huge pages to give (`/sys/kernel/mm/transparent_hugepage/enabled`
//! set to `madvise` or `always`; otherwise it is an ordinary mapping).
//! Whether a block is large depends on its size alone, which `dealloc` and
//! `realloc` are given, so every block is freed the way it was allocated.
//! A freed large block is kept, up to [`KEEP`] bytes in all, for the next
//! large allocation: memory the process has touched once costs much less
//! to use again than new memory, which the kernel must find and zero (on
//! a virtual machine that hands free memory back to its host, ten times
//! less). Elsewhere than on Linux this is the system allocator.
//!
//! Kept by measurement (issue #27 asks for ≥ 10% end to end): a scan of a
//! label list of 10.5M labels (the owners of benches/scan.sh's W1), 2
//! threads, interleaved runs on a shared machine of two builds that differ
//! in the allocator (and in code moved between files of src/lgr), took 7.8–9.6 s (CPU 3.6–4.5 s) with this allocator and 10.4–13.7
//! s (CPU 5.2–6.5 s) with the system allocator, with the same peak RSS
//! (437 vs 430 MB); `mimalloc` took 11.6–13.5 s at 580–620 MB. On the
//! sorted CZDS dump W1 itself the allocators tie (1.9–2.1 s), the system
//! allocator with less RSS (88–91 vs 100–130 MB). Measure again when the
//! readers change how they grow their arrays.

use std::alloc::{GlobalAlloc, Layout, System};

/// See the module documentation.
pub struct Alloc;

/// Blocks of at least this many bytes are mapped on their own.
#[cfg(target_os = "linux")]
const BIG: usize = 1 << 20;

/// The unit of a huge page, to which mappings are rounded.
#[cfg(target_os = "linux")]
const HUGE: usize = 2 << 20;

/// At most this many bytes of freed large blocks are kept for reuse.
#[cfg(target_os = "linux")]
const KEEP: usize = 48 << 20;

/// At most this many freed large blocks are kept.
#[cfg(target_os = "linux")]
const SLOTS: usize = 16;

/// Freed large blocks kept for reuse: (address, mapping length).
#[cfg(target_os = "linux")]
struct Kept {
    blocks: [(usize, usize); SLOTS],
    n: usize,
    bytes: usize,
}

#[cfg(target_os = "linux")]
static KEPT: std::sync::Mutex<Kept> =
    std::sync::Mutex::new(Kept { blocks: [(0, 0); SLOTS], n: 0, bytes: 0 });

#[cfg(target_os = "linux")]
impl Kept {
    /// Takes the kept block that fits `len` best: the smallest of at
    /// least `len` bytes, else the largest.
    fn take(&mut self, len: usize) -> Option<(usize, usize)> {
        let blocks = &self.blocks[..self.n];
        let fit = (0..blocks.len())
            .filter(|&i| blocks[i].1 >= len)
            .min_by_key(|&i| blocks[i].1)
            .or_else(|| (0..blocks.len()).max_by_key(|&i| blocks[i].1))?;
        let b = self.blocks[fit];
        self.n -= 1;
        self.blocks[fit] = self.blocks[self.n];
        self.bytes -= b.1;
        Some(b)
    }

    /// Keeps a freed block if there is room.
    fn keep(&mut self, addr: usize, len: usize) -> bool {
        if self.n == SLOTS || self.bytes + len > KEEP {
            return false;
        }
        self.blocks[self.n] = (addr, len);
        self.n += 1;
        self.bytes += len;
        true
    }
}

#[cfg(target_os = "linux")]
impl Alloc {
    /// Whether a block of this layout is mapped on its own (alignment up
    /// to a page, which a mapping has).
    fn big(size: usize, align: usize) -> bool {
        size >= BIG && align <= 4096
    }

    /// The length of the mapping of a block of `size` bytes (`None`: too
    /// large to round).
    fn map_len(size: usize) -> Option<usize> {
        size.checked_next_multiple_of(HUGE)
    }

    /// A mapping for `size` bytes, or null: a kept one resized (see
    /// [`KEEP`]), else a new one.
    fn reuse_or_map(size: usize) -> *mut u8 {
        let Some(len) = Self::map_len(size) else { return std::ptr::null_mut() };
        let kept = KEPT.lock().ok().and_then(|mut k| k.take(len));
        let Some((addr, old)) = kept else { return Self::map(size) };
        if old == len {
            return addr as *mut u8;
        }
        // SAFETY: `addr` is a mapping of `old` bytes that `dealloc` kept
        // and no block uses; it is resized (moved if need be) whole.
        let p = unsafe { libc::mremap(addr as *mut libc::c_void, old, len, libc::MREMAP_MAYMOVE) };
        if p == libc::MAP_FAILED {
            // SAFETY: as above; the mapping is given back.
            unsafe { libc::munmap(addr as *mut libc::c_void, old) };
            return Self::map(size);
        }
        p.cast()
    }

    /// A new zeroed mapping for `size` bytes, or null.
    fn map(size: usize) -> *mut u8 {
        let Some(len) = Self::map_len(size) else { return std::ptr::null_mut() };
        // SAFETY: an anonymous private mapping at an address of the
        // kernel's choosing touches no existing memory.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        // SAFETY: the range is the mapping just made. A failure (huge
        // pages not supported) leaves an ordinary mapping.
        unsafe { libc::madvise(p, len, libc::MADV_HUGEPAGE) };
        p.cast()
    }
}

#[cfg(target_os = "linux")]
// SAFETY: small blocks are the system allocator's; large ones are mappings
// of at least their size, page aligned (hence aligned to `align` ≤ 4096),
// freed and resized only as large blocks since the size decides.
unsafe impl GlobalAlloc for Alloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if Self::big(layout.size(), layout.align()) {
            return Self::reuse_or_map(layout.size());
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if Self::big(layout.size(), layout.align()) {
            // Anonymous mappings are zeroed.
            return Self::map(layout.size());
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if Self::big(layout.size(), layout.align()) {
            if let Some(len) = Self::map_len(layout.size())
                && !KEPT.lock().is_ok_and(|mut k| k.keep(ptr as usize, len))
            {
                // SAFETY: `ptr` is a mapping of `len` bytes made by
                // `reuse_or_map` or `realloc` for a block of this size.
                unsafe { libc::munmap(ptr.cast(), len) };
            }
            return;
        }
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (Self::big(layout.size(), align), Self::big(new_size, align)) {
            // SAFETY: the caller's contract, passed on.
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            (true, true) => {
                let (Some(old), Some(new)) =
                    (Self::map_len(layout.size()), Self::map_len(new_size))
                else {
                    return std::ptr::null_mut();
                };
                if old == new {
                    return ptr;
                }
                // SAFETY: `ptr` is a mapping of `old` bytes (see
                // `dealloc`); on success it is replaced by the result, and
                // the mapping keeps its huge-page advice.
                let p = unsafe { libc::mremap(ptr.cast(), old, new, libc::MREMAP_MAYMOVE) };
                if p == libc::MAP_FAILED { std::ptr::null_mut() } else { p.cast() }
            }
            _ => {
                // From one kind to the other: a new block, a copy of what
                // both hold, and the old block freed.
                // SAFETY: `new_size` is non-zero and, rounded up to
                // `align`, does not overflow (the caller's contract).
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, align) };
                // SAFETY: as above; the blocks are distinct and each holds
                // at least the bytes copied; `ptr` is freed as allocated.
                unsafe {
                    let q = self.alloc(new_layout);
                    if !q.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, q, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    q
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
// SAFETY: the system allocator, as is.
unsafe impl GlobalAlloc for Alloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fills `n` bytes at `p` with a pattern of `seed`.
    fn fill(p: *mut u8, n: usize, seed: u8) {
        for i in 0..n {
            // SAFETY: the callers pass blocks of at least `n` bytes.
            unsafe { *p.add(i) = (i as u8).wrapping_mul(31).wrapping_add(seed) };
        }
    }

    /// Whether the first `n` bytes at `p` hold the pattern of `seed`.
    fn holds(p: *const u8, n: usize, seed: u8) -> bool {
        // SAFETY: the callers pass blocks of at least `n` bytes.
        (0..n).all(|i| unsafe { *p.add(i) } == (i as u8).wrapping_mul(31).wrapping_add(seed))
    }

    /// Blocks keep their bytes through every kind of resize: small to
    /// small, small to large, large to large (growing past a 2 MiB unit,
    /// within one, shrinking), large to small; zeroed blocks are zero.
    #[test]
    fn blocks_keep_their_bytes_across_sizes() {
        let a = Alloc;
        let sizes = [100, 1 << 20, (3 << 20) + 5, (3 << 20) + 4096, 9 << 20, 5 << 20, 4000, 64];
        let layout = Layout::from_size_align(sizes[0], 8).unwrap();
        // SAFETY: non-zero sizes; each block is resized and freed with the
        // layout it has.
        unsafe {
            let mut p = a.alloc(layout);
            assert!(!p.is_null());
            fill(p, sizes[0], 7);
            let mut old = layout;
            for &s in &sizes[1..] {
                p = a.realloc(p, old, s);
                assert!(!p.is_null(), "realloc to {s}");
                let kept = old.size().min(s);
                assert!(holds(p, kept, 7), "bytes kept from {} to {s}", old.size());
                fill(p, s, 7);
                old = Layout::from_size_align(s, 8).unwrap();
            }
            a.dealloc(p, old);
            for s in [64, 8 << 20] {
                let l = Layout::from_size_align(s, 4096).unwrap();
                let z = a.alloc_zeroed(l);
                assert!(!z.is_null());
                assert_eq!(z as usize % 4096, 0);
                assert!((0..s).all(|i| *z.add(i) == 0));
                a.dealloc(z, l);
            }
        }
    }

    /// Freed large blocks are used again, for a smaller, an equal and a
    /// larger block, each holding what is written to it; a zeroed block is
    /// zero even when a freed block full of other bytes is kept.
    #[test]
    fn kept_blocks_serve_later_blocks() {
        let a = Alloc;
        let l = |s: usize| Layout::from_size_align(s, 8).unwrap();
        // SAFETY: non-zero sizes; each block is freed with its layout.
        unsafe {
            for (first, second) in [(8 << 20, 3 << 20), (3 << 20, 3 << 20), (3 << 20, 9 << 20)] {
                let p = a.alloc(l(first));
                assert!(!p.is_null());
                fill(p, first, 3);
                a.dealloc(p, l(first));
                let q = a.alloc(l(second));
                assert!(!q.is_null());
                fill(q, second, 5);
                assert!(holds(q, second, 5));
                a.dealloc(q, l(second));
                let z = a.alloc_zeroed(l(second));
                assert!(!z.is_null());
                assert!((0..second).all(|i| *z.add(i) == 0));
                a.dealloc(z, l(second));
            }
        }
    }

    /// Collections built through the allocator behave as usual.
    #[test]
    fn vectors_grow_through_both_kinds() {
        let mut v: Vec<u32> = Vec::new();
        for i in 0..3_000_000u32 {
            v.push(i.wrapping_mul(2_654_435_761));
        }
        assert!(v.iter().enumerate().all(|(i, &x)| x == (i as u32).wrapping_mul(2_654_435_761)));
        v.truncate(10);
        v.shrink_to_fit();
        assert_eq!(v.len(), 10);
        assert_eq!(v[9], 9u32.wrapping_mul(2_654_435_761));
    }
}

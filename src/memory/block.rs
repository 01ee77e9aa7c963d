//! Raw memory: the aligned allocation block every tensor buffer lives in.
//!
//! The lowest layer of the core (with `element`, `error`, `sync` and
//! `stats`): [`RawBlock`] is what [`arena`](crate::memory::arena)'s free lists hold
//! and what an [`OwnedBuffer`](crate::OwnedBuffer) owns, so both build on
//! this module and neither on the other's internals. It has `unsafe` code
//! (the allocator calls), like `buffer`, `kernels` and `parallel`.
//!
//! Allocation never aborts: a refused allocation is returned as
//! [`Error::AllocationFailed`]; the global `handle_alloc_error` is never
//! called.

use std::ptr::NonNull;

use crate::error::{Error, Result};

/// Alignment of every buffer: a cache line, and a full AVX-512 vector.
pub const ALIGN: usize = 64;

/// An owned allocation of `cap` bytes aligned to [`ALIGN`]; `cap == 0` owns
/// nothing. Freed on drop.
#[derive(Debug)]
pub(crate) struct RawBlock {
    ptr: NonNull<u8>,
    cap: usize,
}

// SAFETY: a RawBlock is a unique owner of its heap memory (like Box<[u8]>);
// moving it to or sharing it with another thread is as safe as for a Box.
unsafe impl Send for RawBlock {}
// SAFETY: &RawBlock only exposes the pointer value and the capacity.
unsafe impl Sync for RawBlock {}

impl RawBlock {
    /// A block that owns nothing.
    pub(crate) const fn empty() -> Self {
        /// A zero-length block still has an ALIGN-aligned address.
        #[repr(align(64))]
        struct Aligned;
        RawBlock {
            ptr: NonNull::<Aligned>::dangling().cast(),
            cap: 0,
        }
    }

    /// Allocate `cap` bytes, uninitialised (or zeroed when `zeroed`).
    pub(crate) fn alloc(cap: usize, zeroed: bool) -> Result<Self> {
        if cap == 0 {
            return Ok(Self::empty());
        }
        if let Some(ptr) = small::take(cap).or_else(|| large::take(cap)) {
            // SAFETY: a cache hands out a block of exactly `cap` bytes that
            // a RawBlock of this layout gave up on drop, to one taker.
            return Ok(unsafe { Self::reused(ptr, cap, zeroed) });
        }
        let (ptr, zeroed_already) =
            system::alloc(cap, zeroed).ok_or(Error::AllocationFailed { bytes: cap })?;
        let mut b = RawBlock { ptr, cap };
        if zeroed && !zeroed_already {
            b.zero();
        }
        Ok(b)
    }

    /// A cached block of `cap` bytes at `ptr` owned again (zeroed when
    /// `zeroed`; its contents are otherwise its last owner's).
    ///
    /// # Safety
    /// `ptr` was allocated with `cap` bytes and [`ALIGN`] (by
    /// [`RawBlock::alloc`]), is not freed, and nothing else owns it (a
    /// cache gave it up).
    unsafe fn reused(ptr: NonNull<u8>, cap: usize, zeroed: bool) -> Self {
        let mut b = RawBlock { ptr, cap };
        if zeroed {
            b.zero();
        }
        b
    }

    /// Capacity in bytes.
    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    /// Address of the first byte.
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// Address of the first byte, for writing (through `&mut`: the block
    /// is borrowed uniquely while the caller writes).
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Zero every byte.
    pub(crate) fn zero(&mut self) {
        // SAFETY: the block owns `cap` writable bytes at `ptr` (or cap == 0,
        // for which write_bytes of zero bytes on a dangling aligned pointer
        // is allowed).
        unsafe { std::ptr::write_bytes(self.ptr.as_ptr(), 0, self.cap) }
    }
}

/// Blocks from this size up are mappings of their own ([`system`]), ask
/// for transparent huge pages, and are kept by the [`large`] cache.
///
/// Huge pages as NumPy asks for them for its data
/// (`numpy/_core/src/multiarray/alloc.c`, from 4 MiB): a first touch then
/// faults in 2 MiB at a time instead of 4 KiB, which is most of the cost
/// of a fresh large buffer. Where THP is off or "always", the advice
/// changes nothing.
pub(crate) const MAPPED_MIN: usize = 4 << 20;

/// A per-thread cache of small blocks, as NumPy keeps one for small
/// array data (`npy_alloc_cache`): an eager loop over small tensors frees
/// and allocates a block of the same size on every operation, and an
/// aligned `malloc`/`free` pair costs more than the kernel then. Blocks of
/// at most [`small::MAX`] bytes are kept per exact size (so the layout
/// freed is the layout allocated), a few per size, and freed when the
/// thread exits. It sits below every counter: a tensor taking a cached
/// block is still one allocation in [`memory_stats`](crate::memory_stats).
mod small {
    use std::cell::RefCell;
    use std::ptr::NonNull;

    /// The largest cached block, in bytes.
    pub(super) const MAX: usize = 1024;
    /// Cached blocks per size.
    const PER_SIZE: usize = 8;
    /// Sizes are cached in steps of 4 bytes (every element size divides
    /// it, so every small tensor's block is cacheable).
    const STEP: usize = 4;

    struct Cache(Vec<Vec<NonNull<u8>>>);

    impl Drop for Cache {
        fn drop(&mut self) {
            for (i, list) in self.0.iter().enumerate() {
                for p in list {
                    // SAFETY: each cached pointer came from a RawBlock of
                    // capacity `(i + 1) * STEP` (see `slot`), whose drop put
                    // it here instead of freeing it; it is freed once, here.
                    unsafe { super::system::free(*p, (i + 1) * STEP) }
                }
            }
        }
    }

    thread_local! {
        static CACHE: RefCell<Cache> = const { RefCell::new(Cache(Vec::new())) };
    }

    fn slot(cap: usize) -> Option<usize> {
        (cap <= MAX && cap.is_multiple_of(STEP)).then(|| cap / STEP - 1)
    }

    /// A cached block of exactly `cap` bytes (uninitialised).
    pub(super) fn take(cap: usize) -> Option<NonNull<u8>> {
        let i = slot(cap)?;
        CACHE
            .try_with(|c| c.borrow_mut().0.get_mut(i)?.pop())
            .ok()
            .flatten()
    }

    /// Keep a block of `cap` bytes; `false` if it was not kept (the
    /// caller frees it).
    pub(super) fn keep(ptr: NonNull<u8>, cap: usize) -> bool {
        let Some(i) = slot(cap) else { return false };
        CACHE
            .try_with(|c| {
                let Ok(mut c) = c.try_borrow_mut() else {
                    return false;
                };
                if c.0.len() <= i {
                    c.0.resize_with(MAX / STEP, Vec::new);
                }
                let list = &mut c.0[i];
                if list.len() >= PER_SIZE {
                    return false;
                }
                list.push(ptr);
                true
            })
            .unwrap_or(false)
    }
}

/// A process-wide cache of freed large blocks (at least
/// [`MAPPED_MIN`]), kept per exact size, [`large::PER_SIZE`] per size
/// and [`large::MAX_TOTAL`] bytes in all.
///
/// Why: a new large buffer is a fresh mapping, and the kernel faults in
/// and zeroes every page at its first touch. An eager loop frees and makes
/// buffers of the same sizes on every iteration; measured on a 2-core
/// Xeon (AVX-512), a softmax of 48 MB into a new buffer faulted ~537
/// times a call and `addmm` of 24 MB ~524 (`clear_page_erms` 11-15% of
/// its profile), where the same ops into a reused block fault 0 times.
/// A large block is a mapping of its own, returned to the kernel when
/// freed ([`system`]); the cache keeps one per size back from that.
/// PyTorch's CPU tensors reuse memory the same way (through glibc, below
/// its adaptive mmap threshold); the cache makes it hold for every size up
/// to the bound, and no more than once per size.
///
/// It sits below every counter, as [`small`]: a tensor taking a cached
/// block is still one allocation in [`memory_stats`](crate::memory_stats),
/// and a cached block is not live. The lock is only ever tried, never
/// waited for, so a thread or a `fork()` child that finds it taken simply
/// allocates or frees as if the cache were not there.
mod large {
    use std::ptr::NonNull;
    use std::sync::Mutex;

    /// The smallest cached block, in bytes.
    pub(super) const MIN: usize = super::MAPPED_MIN;
    /// Cached blocks per size: one, the block an eager loop's next result
    /// of that size takes (`x = f(x)` frees one buffer as it makes the
    /// next), so that memory freed for good is held back at most once per
    /// size.
    pub(super) const PER_SIZE: usize = 1;
    /// Bytes kept in all.
    pub(super) const MAX_TOTAL: usize = 256 << 20;

    struct Kept {
        ptr: NonNull<u8>,
        cap: usize,
    }
    // SAFETY: a kept block is owned by the cache alone (its RawBlock gave
    // it up); handing it to another thread is as safe as moving the
    // RawBlock there.
    unsafe impl Send for Kept {}

    static CACHE: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

    /// A cached block of exactly `cap` bytes (its contents are whatever
    /// its last owner left).
    pub(super) fn take(cap: usize) -> Option<NonNull<u8>> {
        if cap < MIN {
            return None;
        }
        let mut c = CACHE.try_lock().ok()?;
        let i = c.iter().rposition(|k| k.cap == cap)?;
        Some(c.swap_remove(i).ptr)
    }

    /// Keep a block of `cap` bytes; `false` if it was not kept (the
    /// caller frees it).
    pub(super) fn keep(ptr: NonNull<u8>, cap: usize) -> bool {
        if cap < MIN {
            return false;
        }
        let Ok(mut c) = CACHE.try_lock() else {
            return false;
        };
        let total: usize = c.iter().map(|k| k.cap).sum();
        if c.iter().filter(|k| k.cap == cap).count() >= PER_SIZE || total + cap > MAX_TOTAL {
            return false;
        }
        c.push(Kept { ptr, cap });
        true
    }
}

impl Drop for RawBlock {
    fn drop(&mut self) {
        if self.cap == 0 || small::keep(self.ptr, self.cap) || large::keep(self.ptr, self.cap) {
            return;
        }
        // SAFETY: `ptr` was returned by `system::alloc(cap, _)` (directly,
        // or through a cache that gave it up) and has not been freed: the
        // block is its unique owner and this is its only drop.
        unsafe { system::free(self.ptr, self.cap) }
    }
}

/// Where blocks come from when no cache has one: blocks of at least
/// [`MAPPED_MIN`] bytes are mappings of their own (Linux), the others the
/// global allocator's.
///
/// Why: glibc puts a block below its adaptive mmap threshold in its heap,
/// and that threshold rises to the size of any mapped block freed (up to
/// 32 MiB), so after the first large tensor is freed every later one up to
/// 32 MiB lands in the heap. A heap block freed between live ones stays
/// resident in its hole until a later block fits there, so a program's
/// resident peak grew past its live bytes by whatever sizes it had freed.
/// Measured on a 2-core AMD EPYC (AVX-512), the cold call of
/// `benches/workloads.py`'s transformer layer under `donate.jit`: 32 MB of
/// live tensor bytes at its peak, 56 MB of resident growth, 26 MB of which
/// `malloc_trim` returned afterwards (the heap's holes). A mapping of its
/// own is returned to the kernel when freed (but for the one block per
/// size [`large`] keeps), as NumPy's and PyTorch's large blocks are when
/// glibc maps them. The first touch of a fresh mapping faults its pages in
/// (2 MiB at a time: huge pages, [`MAPPED_MIN`]), which the large cache
/// spares the loops that free and make blocks of one size.
mod system {
    use std::alloc::{self, Layout};
    use std::ptr::NonNull;

    use super::ALIGN;

    /// Is a block of `cap` bytes a mapping of its own? One rule for
    /// [`alloc`] and [`free`]; on other systems no block is.
    #[cfg(target_os = "linux")]
    fn mapped(cap: usize) -> bool {
        cap >= super::MAPPED_MIN
    }

    /// `cap > 0` bytes aligned to [`ALIGN`], zeroed when `zeroed`; also
    /// whether they are zeroed (a fresh mapping always is). `None` when
    /// the system refuses.
    pub(super) fn alloc(cap: usize, zeroed: bool) -> Option<(NonNull<u8>, bool)> {
        #[cfg(target_os = "linux")]
        if mapped(cap) {
            return map(cap).map(|p| (p, true));
        }
        let layout = Layout::from_size_align(cap, ALIGN).ok()?;
        // SAFETY: `layout` has a non-zero size (cap > 0) and a valid,
        // power-of-two alignment, as `alloc`/`alloc_zeroed` require.
        let p = unsafe {
            if zeroed {
                alloc::alloc_zeroed(layout)
            } else {
                alloc::alloc(layout)
            }
        };
        NonNull::new(p).map(|p| (p, zeroed))
    }

    /// Free a block.
    ///
    /// # Safety
    /// `ptr` came from [`alloc`] with this `cap`, and is freed once.
    pub(super) unsafe fn free(ptr: NonNull<u8>, cap: usize) {
        #[cfg(target_os = "linux")]
        if mapped(cap) {
            // SAFETY: the caller's: `ptr` is a mapping of `cap` bytes made
            // by `map`, unmapped once.
            unsafe { unmap(ptr, cap) };
            return;
        }
        // SAFETY: the caller's: `ptr` came from `alloc`/`alloc_zeroed`
        // with exactly this layout (the same cap and ALIGN), freed once.
        unsafe { alloc::dealloc(ptr.as_ptr(), Layout::from_size_align_unchecked(cap, ALIGN)) }
    }

    #[cfg(target_os = "linux")]
    fn map(cap: usize) -> Option<NonNull<u8>> {
        // SAFETY: an anonymous private mapping at an address of the
        // kernel's choosing: it aliases no existing memory. A mapping is
        // page-aligned, so ALIGN-aligned.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                cap,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        // SAFETY: the whole mapping just made, which this thread owns;
        // MADV_HUGEPAGE is only advice about it and never changes its
        // contents. The result is ignored: failure leaves ordinary pages.
        unsafe { libc::madvise(p, cap, libc::MADV_HUGEPAGE) };
        NonNull::new(p.cast())
    }

    /// # Safety
    /// `ptr` is a mapping of `cap` bytes made by [`map`], unmapped once.
    #[cfg(target_os = "linux")]
    unsafe fn unmap(ptr: NonNull<u8>, cap: usize) {
        // SAFETY: the caller's. munmap of a whole mapping made by mmap with
        // the same length cannot fail.
        unsafe { libc::munmap(ptr.as_ptr().cast(), cap) };
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn refused_allocations_are_errors_not_aborts() {
        // A petabyte: the system allocator refuses and we report it.
        assert!(matches!(
            RawBlock::alloc(1usize << 50, false),
            Err(Error::AllocationFailed { .. })
        ));
        let b = RawBlock::alloc(100, true).unwrap();
        assert_eq!(b.as_ptr() as usize % ALIGN, 0);
        assert_eq!(RawBlock::empty().as_ptr() as usize % ALIGN, 0);
    }

    #[test]
    fn a_freed_large_block_is_kept_for_the_next_one_of_its_size() {
        // A size no other test uses (the cache is process-wide). Its lock
        // is only tried, and a test beside this one may hold it for an
        // instant: try again until the block is kept.
        let cap = large::MIN + 7 * ALIGN;
        let p = (0..1000)
            .find_map(|_| {
                let a = RawBlock::alloc(cap, false).unwrap();
                let p = NonNull::new(a.as_ptr().cast_mut()).unwrap();
                drop(a);
                large::take(cap).inspect(|&q| assert_eq!(q, p))
            })
            .expect("a freed large block is kept");
        // A block of another size is not served by it.
        assert!(large::take(cap + ALIGN).is_none());
        // Served again, it is zeroed when asked.
        // SAFETY: `p` owns `cap` writable bytes (the cache gave it up).
        unsafe { p.as_ptr().write_bytes(0xAB, cap) };
        // SAFETY: `p` came out of the cache: `cap` bytes of this layout,
        // owned by this test alone.
        let b = unsafe { RawBlock::reused(p, cap, true) };
        // SAFETY: the block owns `cap` initialised (zeroed) bytes.
        let bytes = unsafe { std::slice::from_raw_parts(b.as_ptr(), cap) };
        assert!(bytes.iter().all(|&x| x == 0));
    }

    #[test]
    fn the_large_cache_is_bounded() {
        // Larger than the whole bound: never kept.
        let cap = large::MAX_TOTAL + ALIGN;
        assert!(large::take(cap).is_none());
        let a = RawBlock::alloc(cap, false).unwrap();
        let p = NonNull::new(a.as_ptr().cast_mut()).unwrap();
        std::mem::forget(a);
        assert!(!large::keep(p, cap));
        // SAFETY: `p` came from `system::alloc` with this cap and was not
        // freed (its RawBlock was forgotten).
        unsafe { system::free(p, cap) };
        // Small blocks are not the large cache's.
        drop(RawBlock::alloc(1024, false).unwrap());
        assert!(large::take(1024).is_none());
    }
}

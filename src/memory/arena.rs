//! `TensorArena`: size-class free lists for tensor buffers under a byte budget.
//!
//! A buffer allocated while an arena is *current* on the thread (inside
//! [`TensorArena::scope`], or between [`TensorArena::enter`] and the guard's
//! drop) comes from the arena: from the free list of its size class (a *hit*)
//! or fresh from the system (a *miss*). When the buffer is dropped it goes back
//! to that free list, ready for the next tensor of the same class, so a chain
//! of temporaries cycles through a few blocks instead of the system allocator.
//!
//! * Size classes are powers of two from 64 bytes up; a request is served by a
//!   block of the next power of two.
//! * `max_bytes` bounds the bytes the arena holds from the system (blocks in
//!   use plus blocks in free lists). On a miss that would pass it, the arena
//!   first frees its idle blocks; if that is not enough the request fails with
//!   [`Error::ArenaExhausted`], never an abort.
//! * Buffers keep only a weak reference to their arena: a buffer that outlives
//!   its arena is freed to the system on drop (no dangling pointer, no leak).
//! * The arena is `Sync`: the free lists sit behind one mutex and the byte
//!   accounting is atomic.
//!
//! Layering: an arena holds `RawBlock`s (from `block`) and knows nothing of
//! buffers or tensors. `buffer` asks it for blocks (`current`,
//! `ArenaShared::take_block`) and gives them back (`give_back`); the
//! tensor constructors [`TensorArena::zeros`] and [`TensorArena::full`] are
//! defined with `Tensor`, in `tensor.rs`.

use std::cell::RefCell;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::memory::block::RawBlock;
use crate::memory::sync::{lock, AtomicUsize, Mutex, Ordering};

const MIN_CLASS_SHIFT: u32 = 6; // 64 bytes
const NUM_CLASSES: usize = 64 - MIN_CLASS_SHIFT as usize;

/// The size class (index) and block size serving a request of `bytes`.
fn size_class(bytes: usize) -> Option<(usize, usize)> {
    let cap = bytes
        .max(1 << MIN_CLASS_SHIFT)
        .checked_next_power_of_two()?;
    Some(((cap.trailing_zeros() - MIN_CLASS_SHIFT) as usize, cap))
}

/// Something with a byte capacity that free lists can hold (a `RawBlock`; the
/// loom model uses a plain stand-in).
trait Block {
    /// Bytes it holds from the system.
    fn capacity(&self) -> usize;
}

impl Block for RawBlock {
    fn capacity(&self) -> usize {
        RawBlock::capacity(self)
    }
}

/// The free lists and byte accounting of an arena, independent of what a
/// block is, so that the concurrency logic can be model-checked with loom.
#[derive(Debug)]
struct FreeLists<B: Block> {
    lists: Mutex<Vec<Vec<B>>>,
    /// Bytes held from the system: in use plus idle.
    held: AtomicUsize,
    /// Bytes in free lists.
    free: AtomicUsize,
    max_bytes: usize,
}

impl<B: Block> FreeLists<B> {
    /// Empty free lists with a budget of `max_bytes`.
    fn new(max_bytes: usize) -> Self {
        Self {
            lists: Mutex::new((0..NUM_CLASSES).map(|_| Vec::new()).collect()),
            held: AtomicUsize::new(0),
            free: AtomicUsize::new(0),
            max_bytes,
        }
    }

    /// Pop an idle block of class `class`.
    fn pop(&self, class: usize) -> Option<B> {
        let b = lock(&self.lists)[class].pop()?;
        self.free.fetch_sub(b.capacity(), Ordering::AcqRel);
        Some(b)
    }

    /// Park an idle block.
    fn push(&self, class: usize, b: B) {
        self.free.fetch_add(b.capacity(), Ordering::AcqRel);
        lock(&self.lists)[class].push(b);
    }

    /// Reserve `cap` bytes of budget for a fresh block, atomically.
    fn reserve(&self, cap: usize) -> Result<(), usize> {
        let mut cur = self.held.load(Ordering::Acquire);
        loop {
            let new = match cur.checked_add(cap) {
                Some(n) if n <= self.max_bytes => n,
                _ => return Err(cur),
            };
            match self
                .held
                .compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Ok(()),
                Err(a) => cur = a,
            }
        }
    }

    /// Give back budget reserved for a block that was freed (or never made).
    fn unreserve(&self, cap: usize) {
        self.held.fetch_sub(cap, Ordering::AcqRel);
    }

    /// Take every idle block out (the caller frees them and unreserves).
    fn drain(&self) -> Vec<B> {
        let mut lists = lock(&self.lists);
        let mut out = Vec::new();
        for l in lists.iter_mut() {
            out.append(l);
        }
        let bytes: usize = out.iter().map(Block::capacity).sum();
        self.free.fetch_sub(bytes, Ordering::AcqRel);
        out
    }

    /// Bytes held from the system.
    fn held_bytes(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    /// Bytes in free lists.
    fn free_bytes(&self) -> usize {
        self.free.load(Ordering::Acquire)
    }

    /// The budget.
    fn max_bytes(&self) -> usize {
        self.max_bytes
    }
}

/// Statistics of one arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ArenaStats {
    /// Bytes of blocks handed out and not yet returned.
    pub live_bytes: usize,
    /// Highest `live_bytes` seen.
    pub peak_bytes: usize,
    /// Bytes idle in the free lists.
    pub free_bytes: usize,
    /// Requests served from a free list.
    pub hits: u64,
    /// Requests that needed a fresh block.
    pub misses: u64,
    /// The budget.
    pub max_bytes: usize,
}

/// The shared state behind a [`TensorArena`]; buffers point to it weakly.
#[derive(Debug)]
pub(crate) struct ArenaShared {
    lists: FreeLists<RawBlock>,
    live: std::sync::atomic::AtomicUsize,
    peak: std::sync::atomic::AtomicUsize,
    hits: std::sync::atomic::AtomicU64,
    misses: std::sync::atomic::AtomicU64,
}

use std::sync::atomic::Ordering as StdOrdering;

impl ArenaShared {
    /// A block of at least `bytes`: `(block, was_a_hit)`.
    pub(crate) fn take_block(&self, bytes: usize) -> Result<(RawBlock, bool)> {
        let exhausted = |in_use| Error::ArenaExhausted {
            requested: bytes,
            in_use,
            max_bytes: self.lists.max_bytes(),
        };
        let (class, cap) = size_class(bytes).ok_or_else(|| exhausted(self.lists.held_bytes()))?;
        let (block, was_hit) = if let Some(b) = self.lists.pop(class) {
            self.hits.fetch_add(1, StdOrdering::Relaxed);
            (b, true)
        } else {
            if self.lists.reserve(cap).is_err() {
                // Free idle blocks of other classes and try once more.
                self.trim();
                self.lists.reserve(cap).map_err(exhausted)?;
            }
            match RawBlock::alloc(cap, false) {
                Ok(b) => {
                    self.misses.fetch_add(1, StdOrdering::Relaxed);
                    (b, false)
                }
                Err(e) => {
                    self.lists.unreserve(cap);
                    return Err(e);
                }
            }
        };
        let now = self.live.fetch_add(cap, StdOrdering::AcqRel) + cap;
        self.peak.fetch_max(now, StdOrdering::AcqRel);
        Ok((block, was_hit))
    }

    /// `Err(ArenaExhausted)` unless blocks for every request of `bytes`
    /// could be served at once on top of the bytes live now (idle blocks
    /// are freed to make room, as [`take_block`](Self::take_block) does):
    /// a planned program checks the temporaries of its remaining steps
    /// this way before it first writes a donated argument.
    pub(crate) fn check_room(&self, bytes: &[usize]) -> Result<()> {
        let mut need = 0usize;
        for &b in bytes {
            let cap = size_class(b).map_or(usize::MAX, |(_, c)| c);
            need = need.saturating_add(cap);
        }
        let live = self.live.load(StdOrdering::Acquire);
        if live.saturating_add(need) <= self.lists.max_bytes() {
            return Ok(());
        }
        Err(Error::ArenaExhausted {
            requested: need,
            in_use: live,
            max_bytes: self.lists.max_bytes(),
        })
    }

    /// A buffer from this arena was dropped.
    pub(crate) fn give_back(&self, block: RawBlock) {
        let cap = block.capacity();
        self.live.fetch_sub(cap, StdOrdering::AcqRel);
        match size_class(cap) {
            Some((class, c)) if c == cap => self.lists.push(class, block),
            _ => {
                self.lists.unreserve(cap);
                drop(block);
            }
        }
    }

    fn trim(&self) {
        for b in self.lists.drain() {
            self.lists.unreserve(b.capacity());
            drop(b);
        }
    }
}

impl Drop for ArenaShared {
    fn drop(&mut self) {
        // Idle blocks are RawBlocks: draining drops (frees) them.
        drop(self.lists.drain());
    }
}

/// An arena of tensor buffers. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct TensorArena {
    shared: Arc<ArenaShared>,
}

thread_local! {
    static CURRENT: RefCell<Vec<Arc<ArenaShared>>> = const { RefCell::new(Vec::new()) };
}

/// Where a front end keeps its own notion of the current arena, asked when
/// no arena was entered on this thread. The Python bindings keep it in a
/// context variable, so that each asyncio task (and each thread) has its
/// own, as `decimal.localcontext` does; set once per process.
static PROVIDER: std::sync::OnceLock<fn() -> Option<TensorArena>> = std::sync::OnceLock::new();

/// Install the front end's current-arena lookup (see [`current`]). Returns
/// false if one was already installed (the first one stays).
pub fn set_current_provider(provider: fn() -> Option<TensorArena>) -> bool {
    PROVIDER.set(provider).is_ok()
}

/// The arena current on this thread: the innermost one entered here
/// ([`TensorArena::enter`], [`TensorArena::scope`]), else the front end's
/// ([`set_current_provider`]), if any.
pub(crate) fn current() -> Option<Arc<ArenaShared>> {
    CURRENT
        .with(|c| c.borrow().last().cloned())
        .or_else(|| PROVIDER.get().and_then(|p| p()).map(|a| a.shared))
}

/// Makes an arena current on this thread until dropped. Not `Send`: it must
/// be dropped on the thread that entered.
#[derive(Debug)]
pub struct ArenaGuard {
    /// The arena this guard made current (compared by address only).
    arena: *const ArenaShared,
}

impl Drop for ArenaGuard {
    /// Remove this guard's entry: the innermost entry of its arena, so that
    /// guards dropped out of order (a Python `__exit__` called by hand)
    /// still leave the right arenas current.
    fn drop(&mut self) {
        CURRENT.with(|c| {
            let mut stack = c.borrow_mut();
            if let Some(i) = stack
                .iter()
                .rposition(|a| std::ptr::eq(Arc::as_ptr(a), self.arena))
            {
                stack.remove(i);
            }
        });
    }
}

impl TensorArena {
    /// An empty arena that will hold at most `max_bytes` from the system.
    pub fn new(max_bytes: usize) -> Self {
        Self {
            shared: Arc::new(ArenaShared {
                lists: FreeLists::new(max_bytes),
                live: std::sync::atomic::AtomicUsize::new(0),
                peak: std::sync::atomic::AtomicUsize::new(0),
                hits: std::sync::atomic::AtomicU64::new(0),
                misses: std::sync::atomic::AtomicU64::new(0),
            }),
        }
    }

    /// Make this arena current on this thread until the guard drops: every
    /// tensor buffer allocated meanwhile comes from it. Guards nest.
    pub fn enter(&self) -> ArenaGuard {
        CURRENT.with(|c| c.borrow_mut().push(self.shared.clone()));
        ArenaGuard {
            arena: Arc::as_ptr(&self.shared),
        }
    }

    /// Run `f` with this arena current on this thread.
    pub fn scope<R>(&self, f: impl FnOnce() -> R) -> R {
        let _g = self.enter();
        f()
    }

    /// Free every idle block. Buffers in use are untouched; they return to the
    /// (now empty) free lists when dropped.
    pub fn clear(&self) {
        self.shared.trim();
    }

    /// Current statistics.
    pub fn stats(&self) -> ArenaStats {
        let s = &self.shared;
        ArenaStats {
            live_bytes: s.live.load(StdOrdering::Acquire),
            peak_bytes: s.peak.load(StdOrdering::Acquire),
            free_bytes: s.lists.free_bytes(),
            hits: s.hits.load(StdOrdering::Relaxed),
            misses: s.misses.load(StdOrdering::Relaxed),
            max_bytes: s.lists.max_bytes(),
        }
    }

    /// Bytes held from the system (in use plus idle); never above `max_bytes`.
    pub fn held_bytes(&self) -> usize {
        self.shared.lists.held_bytes()
    }

    /// Reset the peak to what is live now.
    pub fn reset_peak(&self) {
        let s = &self.shared;
        s.peak
            .store(s.live.load(StdOrdering::Acquire), StdOrdering::Release);
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;

    struct B(usize);
    impl Block for B {
        fn capacity(&self) -> usize {
            self.0
        }
    }

    /// Two threads each reserve budget for a block, park it and take one back,
    /// while a third drains: the budget is never exceeded, and the byte
    /// accounting ends consistent with the blocks that exist.
    #[test]
    fn free_lists_accounting_is_consistent() {
        loom::model(|| {
            let fl = Arc::new(FreeLists::<B>::new(192));
            let ths: Vec<_> = (0..2)
                .map(|_| {
                    let fl = fl.clone();
                    loom::thread::spawn(move || {
                        let b = match fl.pop(0) {
                            Some(b) => b,
                            None => {
                                fl.reserve(64).expect("two blocks of 64 fit in 192");
                                B(64)
                            }
                        };
                        assert!(fl.held_bytes() <= 192);
                        fl.push(0, b);
                    })
                })
                .collect();
            let drained = fl.drain();
            for b in &drained {
                fl.unreserve(b.capacity());
            }
            for t in ths {
                t.join().unwrap();
            }
            let rest = fl.drain();
            let rest_bytes: usize = rest.iter().map(|b| b.0).sum();
            assert_eq!(fl.free_bytes(), 0);
            assert_eq!(fl.held_bytes(), rest_bytes);
        });
    }

    /// Two threads race to reserve the last block of budget: exactly one wins.
    #[test]
    fn budget_reservation_has_one_winner() {
        loom::model(|| {
            let fl = Arc::new(FreeLists::<B>::new(64));
            let a = {
                let fl = fl.clone();
                loom::thread::spawn(move || fl.reserve(64).is_ok())
            };
            let b = fl.reserve(64).is_ok();
            let a = a.join().unwrap();
            assert!(a ^ b);
            assert_eq!(fl.held_bytes(), 64);
        });
    }
}

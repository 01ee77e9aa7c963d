//! Process-wide statistics of tensor buffers.
//!
//! Every [`OwnedBuffer`](crate::OwnedBuffer) reports here when it is created
//! and dropped, and every operation that writes its result into an input's
//! buffer reports the bytes it did not have to allocate. The Python
//! `donate.memory_stats()` and the memory benchmarks read these counters.
//!
//! `live_bytes` counts bytes of buffers that tensors hold (capacity, which is
//! what the allocator handed out). Bytes parked in an arena's free lists are
//! not live: they are reported by that arena's own statistics.

use std::sync::atomic::{AtomicU64, Ordering};

static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);
static PEAK_BYTES: AtomicU64 = AtomicU64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static REUSED_BYTES: AtomicU64 = AtomicU64::new(0);
static IMPLICIT_DONATIONS: AtomicU64 = AtomicU64::new(0);
static EXPLICIT_DONATIONS: AtomicU64 = AtomicU64::new(0);
static DONATION_FALLBACKS: AtomicU64 = AtomicU64::new(0);
static IN_PLACE_OPS: AtomicU64 = AtomicU64::new(0);

/// A copy of the counters at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryStats {
    /// Bytes of buffers held by tensors now.
    pub live_bytes: u64,
    /// Highest `live_bytes` since start or the last [`reset_peak`].
    pub peak_bytes: u64,
    /// Buffers obtained fresh (from the system allocator or an arena).
    pub allocations: u64,
    /// Bytes an operation wrote into an existing buffer instead of a new one
    /// (donation, in-place ops, arena free-list hits).
    pub reused_bytes: u64,
    /// Inputs reused because they were temporaries or owned by value.
    pub implicit_donations: u64,
    /// Inputs reused because the caller donated them explicitly.
    pub explicit_donations: u64,
    /// Explicit donations that could not be honoured (a copy was made).
    pub donation_fallbacks: u64,
    /// In-place operations that wrote into an exclusive buffer.
    pub in_place_ops: u64,
}

/// Read all counters.
pub fn memory_stats() -> MemoryStats {
    MemoryStats {
        live_bytes: LIVE_BYTES.load(Ordering::Relaxed),
        peak_bytes: PEAK_BYTES.load(Ordering::Relaxed),
        allocations: ALLOCATIONS.load(Ordering::Relaxed),
        reused_bytes: REUSED_BYTES.load(Ordering::Relaxed),
        implicit_donations: IMPLICIT_DONATIONS.load(Ordering::Relaxed),
        explicit_donations: EXPLICIT_DONATIONS.load(Ordering::Relaxed),
        donation_fallbacks: DONATION_FALLBACKS.load(Ordering::Relaxed),
        in_place_ops: IN_PLACE_OPS.load(Ordering::Relaxed),
    }
}

/// Set the peak to what is live now.
pub fn reset_peak() {
    PEAK_BYTES.store(LIVE_BYTES.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// Put the counters (all but `live_bytes`, which always tells the truth)
/// back to an earlier reading: for work done on the library's own behalf,
/// such as the Python bindings' set-up at import, that users should not
/// see counted. Not meant for use while other threads run operations.
pub fn restore_counters(s: &MemoryStats) {
    PEAK_BYTES.store(
        s.peak_bytes.max(LIVE_BYTES.load(Ordering::Relaxed)),
        Ordering::Relaxed,
    );
    ALLOCATIONS.store(s.allocations, Ordering::Relaxed);
    REUSED_BYTES.store(s.reused_bytes, Ordering::Relaxed);
    IMPLICIT_DONATIONS.store(s.implicit_donations, Ordering::Relaxed);
    EXPLICIT_DONATIONS.store(s.explicit_donations, Ordering::Relaxed);
    DONATION_FALLBACKS.store(s.donation_fallbacks, Ordering::Relaxed);
    IN_PLACE_OPS.store(s.in_place_ops, Ordering::Relaxed);
}

pub(crate) fn on_alloc(bytes: usize) {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    on_live(bytes);
}

/// A buffer became live without a fresh allocation (an arena hit).
pub(crate) fn on_live(bytes: usize) {
    let now = LIVE_BYTES.fetch_add(bytes as u64, Ordering::Relaxed) + bytes as u64;
    // A plain load first: the peak is usually above `now`, and a load
    // costs less than `fetch_max`'s read-modify-write (a locked compare
    // and exchange loop on x86) on every allocation. A peak raised by
    // another thread between the two is still maxed in by `fetch_max`.
    if now > PEAK_BYTES.load(Ordering::Relaxed) {
        PEAK_BYTES.fetch_max(now, Ordering::Relaxed);
    }
}

pub(crate) fn on_free(bytes: usize) {
    LIVE_BYTES.fetch_sub(bytes as u64, Ordering::Relaxed);
}

pub(crate) fn on_reuse(bytes: usize) {
    REUSED_BYTES.fetch_add(bytes as u64, Ordering::Relaxed);
}

/// How an operation came to write into an input's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// The input was owned by value (Rust) or a temporary (Python).
    Implicit,
    /// The caller donated the input.
    Explicit,
    /// An in-place operation (`relu_inplace`, `+=`).
    InPlace,
}

/// Record that an op wrote `bytes` into an existing buffer.
pub(crate) fn record_reuse(kind: Reuse, bytes: usize) {
    on_reuse(bytes);
    let c = match kind {
        Reuse::Implicit => &IMPLICIT_DONATIONS,
        Reuse::Explicit => &EXPLICIT_DONATIONS,
        Reuse::InPlace => &IN_PLACE_OPS,
    };
    c.fetch_add(1, Ordering::Relaxed);
}

/// Record `bytes` written into a buffer the op made itself (a cast copy
/// that receives the result): reused, but nobody's donation.
pub(crate) fn record_reused_bytes(bytes: usize) {
    on_reuse(bytes);
}

/// Record an explicit donation that fell back to a copy.
pub(crate) fn record_fallback() {
    DONATION_FALLBACKS.fetch_add(1, Ordering::Relaxed);
}

//! The ownership state of one buffer, kept in a single atomic word.
//!
//! # The ownership model
//!
//! A buffer ([`OwnedBuffer`](crate::OwnedBuffer)) is reached through
//! *handles* ([`Tensor`](crate::Tensor)s: `clone` and `reshape` make new
//! handles on the same buffer) and through *exported views* (the Python
//! buffer protocol and NumPy views hold one each). The state word records:
//!
//! | field     | meaning                                                        |
//! |-----------|----------------------------------------------------------------|
//! | `handles` | tensors sharing the buffer (readers included)                  |
//! | `readers` | of those, handles a kernel is reading through right now        |
//! | `exports` | read-only views handed out to foreign code                    |
//! | `writer`  | an in-place kernel is writing the buffer right now             |
//! | `donated` | the buffer was moved out; the remaining handle is moved-from   |
//! | `pinned`  | foreign code may read the memory for as long as the buffer lives |
//!
//! The rules that make reuse safe:
//!
//! 1. A buffer is **exclusive** when `handles == 1`, `exports == 0`, and it is
//!    neither donated nor being written. Only an exclusive buffer may be
//!    written in place or donated: no other tensor and no exported view can
//!    ever observe a change (value semantics).
//! 2. Writing in place is bracketed by [`acquire_exclusive`] and
//!    [`release_exclusive`]; while the writer bit is set no view can be
//!    exported and the buffer cannot be taken.
//! 3. Taking the buffer for donation ([`take_for_donation`]) moves the state
//!    from exclusive to donated in one step. Of two threads racing to take the
//!    same buffer exactly one wins; the other sees `Donated`.
//! 4. A donated state is final: nothing can share, export or take it again.
//!    A pinned state is final too ([`pin`]): the buffer is never exclusive
//!    again, so it is never taken or donated, and its memory stays where
//!    it is for as long as the buffer lives. An export is counted while
//!    its view lives; a pin is for a consumer that keeps reading after it
//!    has given its view back (NumPy's `np.ndarray(buffer=t)` takes a
//!    buffer-protocol view, releases it at once and keeps the pointer
//!    with a reference to `t`, relying on the exporter, in NumPy's words,
//!    "to guarantee that the buffer sticks around after the release").
//! 5. A buffer that is *not* exclusive (views of one buffer, an exported
//!    view) may still be written through one of its handles, as NumPy's
//!    views are ([`acquire_shared_writer`]): only while no reader is
//!    registered, and no reader can register while the writer bit is set.
//!    A front end that writes this way registers every read that may run
//!    concurrently with such a write ([`share_reader`]); see
//!    [`crate::driver::call`] for the Python bindings' rule.
//!
//! Every transition is a single compare-exchange on one `AtomicU64`, so no
//! decision is ever made on a value that another thread has changed in the
//! meantime (the first design's `can_reuse()`-then-mutate race, and its
//! `inc_ref` that cleared `exclusive` for good, are both impossible here).
//!
//! [`acquire_exclusive`]: OwnershipState::acquire_exclusive
//! [`release_exclusive`]: OwnershipState::release_exclusive
//! [`take_for_donation`]: OwnershipState::take_for_donation
//! [`acquire_shared_writer`]: OwnershipState::acquire_shared_writer
//! [`share_reader`]: OwnershipState::share_reader
//! [`pin`]: OwnershipState::pin

use crate::memory::sync::{AtomicU64, Ordering};

// The word: handles in bits 0..26, exports in 26..45, the pinned bit,
// readers in 46..61, then the waiting-writer, writer and donated bits. (A
// reader is counted as a handle too, so every rule that looks at handles
// alone is unchanged by readers.)
const HANDLE_MASK: u64 = (1 << 26) - 1;
const EXPORT_SHIFT: u32 = 26;
const EXPORT_ONE: u64 = 1 << EXPORT_SHIFT;
const EXPORT_MASK: u64 = ((1 << 19) - 1) << EXPORT_SHIFT;
const PINNED: u64 = 1 << 45;
const READER_SHIFT: u32 = 46;
const READER_ONE: u64 = 1 << READER_SHIFT;
const READER_MASK: u64 = ((1 << 15) - 1) << READER_SHIFT;
/// A write through a view waits for the readers to leave: new readers
/// that a thread would be the first to hold wait for it in turn, so that
/// a stream of readers cannot starve it.
const WAITING: u64 = 1 << 61;
const WRITER: u64 = 1 << 62;
const DONATED: u64 = 1 << 63;

/// A decoded copy of the state word at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnershipSnapshot {
    /// Tensors sharing the buffer.
    pub handles: u32,
    /// Exported views alive on the buffer.
    pub exports: u32,
    /// Handles a kernel is reading through right now (counted in
    /// `handles` too).
    pub readers: u32,
    /// An in-place kernel holds the buffer.
    pub writer: bool,
    /// The buffer has been moved out.
    pub donated: bool,
    /// Foreign code may read the memory for as long as the buffer lives
    /// ([`OwnershipState::pin`]): never exclusive again.
    pub pinned: bool,
}

impl OwnershipSnapshot {
    fn decode(w: u64) -> Self {
        Self {
            handles: (w & HANDLE_MASK) as u32,
            exports: ((w & EXPORT_MASK) >> EXPORT_SHIFT) as u32,
            readers: ((w & READER_MASK) >> READER_SHIFT) as u32,
            writer: w & WRITER != 0,
            donated: w & DONATED != 0,
            pinned: w & PINNED != 0,
        }
    }

    /// Exclusive: one handle, no exports, not pinned, not being written,
    /// not donated.
    pub fn is_exclusive(&self) -> bool {
        self.handles == 1 && self.exports == 0 && !self.pinned && !self.writer && !self.donated
    }
}

/// Why a transition was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateError {
    /// The buffer was already moved out.
    Donated,
    /// An in-place writer holds the buffer.
    Busy,
    /// Not exclusive: these many handles and exports exist.
    Shared { handles: u32, exports: u32 },
    /// Not exclusive, for good: foreign code may read the memory for as
    /// long as the buffer lives ([`OwnershipState::pin`]).
    Pinned,
    /// A counter would overflow.
    Overflow,
}

/// The atomic ownership state of one buffer. See the [module docs](self).
#[derive(Debug)]
pub struct OwnershipState {
    word: AtomicU64,
}

impl Default for OwnershipState {
    fn default() -> Self {
        Self::new()
    }
}

impl OwnershipState {
    /// A fresh state: one handle, nothing exported.
    pub fn new() -> Self {
        Self {
            word: AtomicU64::new(1),
        }
    }

    /// The state now (it may change right after; decide with a transition).
    pub fn snapshot(&self) -> OwnershipSnapshot {
        OwnershipSnapshot::decode(self.word.load(Ordering::Acquire))
    }

    /// Apply `f` to the word in one compare-exchange loop. `f` returns the new
    /// word or a refusal; the refusal is returned without writing anything.
    fn transition(
        &self,
        f: impl Fn(u64) -> Result<u64, StateError>,
    ) -> Result<OwnershipSnapshot, StateError> {
        let mut cur = self.word.load(Ordering::Acquire);
        loop {
            let new = f(cur)?;
            match self
                .word
                .compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Ok(OwnershipSnapshot::decode(new)),
                Err(actual) => cur = actual,
            }
        }
    }

    /// Add a handle (a new tensor on this buffer).
    ///
    /// The writer bit is not consulted: a writer holds the only handle through
    /// `&mut`, so no one can share it while it writes.
    pub fn share(&self) -> Result<OwnershipSnapshot, StateError> {
        self.transition(|w| {
            if w & DONATED != 0 {
                return Err(StateError::Donated);
            }
            if w & HANDLE_MASK == HANDLE_MASK {
                return Err(StateError::Overflow);
            }
            Ok(w + 1)
        })
    }

    /// Drop a handle. Returns the state after the release.
    pub fn release(&self) -> OwnershipSnapshot {
        self.transition(|w| {
            if w & HANDLE_MASK == 0 {
                // Donated states have no handle left to release: the
                // moved-from tensor's release is a no-op.
                Ok(w)
            } else {
                Ok(w - 1)
            }
        })
        .unwrap_or_else(|_| self.snapshot())
    }

    /// Add a reader: a handle a kernel reads through, counted as a handle
    /// and as a reader until [`release_reader`](Self::release_reader).
    /// Refused (`Busy`) while a writer holds the buffer, and, unless
    /// `first` is false (the caller already holds a reader, or a lock
    /// another reader's holder may wait for), while a writer waits for
    /// the readers to leave.
    pub fn share_reader(&self, first: bool) -> Result<OwnershipSnapshot, StateError> {
        self.transition(|w| {
            if w & DONATED != 0 {
                return Err(StateError::Donated);
            }
            if w & WRITER != 0 || (first && w & WAITING != 0) {
                return Err(StateError::Busy);
            }
            if w & HANDLE_MASK == HANDLE_MASK || w & READER_MASK == READER_MASK {
                return Err(StateError::Overflow);
            }
            Ok(w + 1 + READER_ONE)
        })
    }

    /// Drop a reader handle.
    pub fn release_reader(&self) -> OwnershipSnapshot {
        self.transition(|w| {
            if w & HANDLE_MASK == 0 || w & READER_MASK == 0 {
                // Donated (or never registered): nothing to release.
                Ok(w)
            } else {
                Ok(w - 1 - READER_ONE)
            }
        })
        .unwrap_or_else(|_| self.snapshot())
    }

    /// A reader handle becomes a plain one (kept, no longer reading).
    pub fn settle_reader(&self) {
        let _ = self.transition(|w| {
            if w & READER_MASK == 0 {
                Ok(w)
            } else {
                Ok(w - READER_ONE)
            }
        });
    }

    /// Enter the writer state on a buffer other handles or exports may
    /// share (a write through a view): refused while a reader is
    /// registered or another writer holds it (`Busy`: it then marks a
    /// writer waiting, which holds off new first readers), or once
    /// donated. Released by [`release_exclusive`](Self::release_exclusive).
    pub fn acquire_shared_writer(&self) -> Result<OwnershipSnapshot, StateError> {
        let r = self.transition(|w| {
            if w & DONATED != 0 {
                return Err(StateError::Donated);
            }
            if w & WRITER != 0 || w & READER_MASK != 0 {
                return Err(StateError::Busy);
            }
            Ok((w | WRITER) & !WAITING)
        });
        if r == Err(StateError::Busy) {
            let _ = self.transition(|w| {
                if w & (READER_MASK | WRITER) != 0 && w & DONATED == 0 {
                    Ok(w | WAITING)
                } else {
                    Err(StateError::Busy) // gone meanwhile: retry at once
                }
            });
        }
        r
    }

    /// Register an exported read-only view.
    pub fn export(&self) -> Result<OwnershipSnapshot, StateError> {
        self.transition(|w| {
            if w & DONATED != 0 {
                return Err(StateError::Donated);
            }
            if w & WRITER != 0 {
                return Err(StateError::Busy);
            }
            if w & EXPORT_MASK == EXPORT_MASK {
                return Err(StateError::Overflow);
            }
            Ok(w + EXPORT_ONE)
        })
    }

    /// Pin the buffer: foreign code may read its memory for as long as the
    /// buffer lives, after any view it was given is released. From now on
    /// the buffer is never exclusive, so it is never taken for donation
    /// (its memory never moves to another buffer while this one lives);
    /// it may still be written through its handles, as a buffer with an
    /// exported view may. Refused once donated.
    pub fn pin(&self) -> Result<OwnershipSnapshot, StateError> {
        self.transition(|w| {
            if w & DONATED != 0 {
                return Err(StateError::Donated);
            }
            Ok(w | PINNED)
        })
    }

    /// Unregister an exported view.
    pub fn unexport(&self) -> OwnershipSnapshot {
        self.transition(|w| {
            if w & EXPORT_MASK == 0 {
                Ok(w)
            } else {
                Ok(w - EXPORT_ONE)
            }
        })
        .unwrap_or_else(|_| self.snapshot())
    }

    fn require_exclusive(w: u64) -> Result<(), StateError> {
        if w & DONATED != 0 {
            return Err(StateError::Donated);
        }
        if w & WRITER != 0 {
            return Err(StateError::Busy);
        }
        let s = OwnershipSnapshot::decode(w);
        if s.handles != 1 || s.exports != 0 {
            return Err(StateError::Shared {
                handles: s.handles,
                exports: s.exports,
            });
        }
        if s.pinned {
            return Err(StateError::Pinned);
        }
        Ok(())
    }

    /// Enter the writer state: succeeds only on an exclusive buffer.
    pub fn acquire_exclusive(&self) -> Result<OwnershipSnapshot, StateError> {
        self.transition(|w| Self::require_exclusive(w).map(|()| w | WRITER))
    }

    /// Clear the readers and the writer bits (keeping the handles the
    /// readers were counted in): what a thread lost at a `fork()` left set
    /// in the child, where it never lets go.
    pub(crate) fn clear_transient(&self) {
        let _ = self.transition(|w| Ok(w & !(READER_MASK | WAITING | WRITER)));
    }

    /// Leave the writer state.
    pub fn release_exclusive(&self) {
        let _ = self.transition(|w| Ok(w & !WRITER));
    }

    /// Move the buffer out: exclusive → donated, in one step. The caller that
    /// gets `Ok` is the only one that may take the buffer.
    pub fn take_for_donation(&self) -> Result<OwnershipSnapshot, StateError> {
        self.transition(|w| Self::require_exclusive(w).map(|()| DONATED))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn fresh_state_is_exclusive() {
        let s = OwnershipState::new();
        assert!(s.snapshot().is_exclusive());
    }

    #[test]
    fn a_pin_is_final_and_blocks_donation_not_writes_through_views() {
        let s = OwnershipState::new();
        s.export().unwrap();
        s.unexport();
        assert!(s.snapshot().is_exclusive());
        let snap = s.pin().unwrap();
        assert!(snap.pinned && !snap.is_exclusive());
        assert_eq!(snap.exports, 0);
        // A pin outlives every handle and export: nothing takes it back.
        s.share().unwrap();
        s.release();
        s.export().unwrap();
        s.unexport();
        assert!(s.snapshot().pinned);
        assert_eq!(s.take_for_donation(), Err(StateError::Pinned));
        assert_eq!(s.acquire_exclusive(), Err(StateError::Pinned));
        // Written as a buffer with exported views is (NumPy's views see it).
        s.acquire_shared_writer().unwrap();
        s.release_exclusive();
        s.clear_transient();
        assert!(s.snapshot().pinned);
        // The export count beside it is untouched, up to its own limit.
        for _ in 0..3 {
            s.export().unwrap();
        }
        assert_eq!(s.snapshot().exports, 3);
        assert!(s.snapshot().pinned);
    }

    #[test]
    fn share_then_release_restores_exclusive() {
        // The first design's bug: inc_ref cleared `exclusive` for good.
        let s = OwnershipState::new();
        s.share().unwrap();
        assert!(!s.snapshot().is_exclusive());
        assert_eq!(
            s.take_for_donation(),
            Err(StateError::Shared {
                handles: 2,
                exports: 0
            })
        );
        s.release();
        assert!(s.snapshot().is_exclusive());
        assert!(s.take_for_donation().is_ok());
    }

    #[test]
    fn export_blocks_exclusive_until_unexported() {
        let s = OwnershipState::new();
        s.export().unwrap();
        assert_eq!(
            s.acquire_exclusive(),
            Err(StateError::Shared {
                handles: 1,
                exports: 1
            })
        );
        s.unexport();
        s.acquire_exclusive().unwrap();
        assert_eq!(s.export(), Err(StateError::Busy));
        assert_eq!(s.take_for_donation(), Err(StateError::Busy));
        s.release_exclusive();
        assert!(s.snapshot().is_exclusive());
    }

    #[test]
    fn readers_exclude_shared_writers_and_back() {
        let s = OwnershipState::new();
        s.share().unwrap(); // a view: two handles
        s.share_reader(true).unwrap();
        let snap = s.snapshot();
        assert_eq!((snap.handles, snap.readers), (3, 1));
        assert_eq!(s.acquire_shared_writer(), Err(StateError::Busy));
        s.release_reader();
        s.acquire_shared_writer().unwrap();
        // No reader, no second writer, no export while it writes.
        assert_eq!(s.share_reader(true), Err(StateError::Busy));
        assert_eq!(s.acquire_shared_writer(), Err(StateError::Busy));
        assert_eq!(s.export(), Err(StateError::Busy));
        s.release_exclusive();
        // (The refused second writer waits: its turn.)
        s.acquire_shared_writer().unwrap();
        s.release_exclusive();
        // A waiting writer holds off first readers, not further ones.
        s.share_reader(true).unwrap();
        assert_eq!(s.acquire_shared_writer(), Err(StateError::Busy));
        assert_eq!(s.share_reader(true), Err(StateError::Busy));
        s.share_reader(false).unwrap();
        s.release_reader();
        s.settle_reader(); // kept as a plain handle
        let snap = s.snapshot();
        assert_eq!((snap.handles, snap.readers), (3, 0));
        s.acquire_shared_writer().unwrap();
        s.release_exclusive();
    }

    #[test]
    fn a_reader_is_a_holder() {
        // Exclusivity looks at handles: a reader is one.
        let s = OwnershipState::new();
        s.share_reader(true).unwrap();
        assert!(!s.snapshot().is_exclusive());
        assert!(s.take_for_donation().is_err());
        s.release_reader();
        assert!(s.snapshot().is_exclusive());
    }

    #[test]
    fn donated_is_final() {
        let s = OwnershipState::new();
        s.take_for_donation().unwrap();
        let snap = s.snapshot();
        assert!(snap.donated && snap.handles == 0);
        assert_eq!(s.share(), Err(StateError::Donated));
        assert_eq!(s.export(), Err(StateError::Donated));
        assert_eq!(s.take_for_donation(), Err(StateError::Donated));
        assert_eq!(s.acquire_exclusive(), Err(StateError::Donated));
        // releasing the moved-from handle changes nothing
        s.release();
        assert_eq!(s.snapshot(), snap);
    }

    #[test]
    fn racing_takers_exactly_one_wins() {
        for _ in 0..200 {
            let s = std::sync::Arc::new(OwnershipState::new());
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    let s = s.clone();
                    let b = barrier.clone();
                    std::thread::spawn(move || {
                        b.wait();
                        s.take_for_donation().is_ok()
                    })
                })
                .collect();
            let wins = handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .filter(|won| *won)
                .count();
            assert_eq!(wins, 1);
            assert!(s.snapshot().donated);
        }
    }

    #[test]
    fn sharing_races_with_taking_never_leaves_two_owners() {
        // One thread clones (shares) while another tries to take: either the
        // take wins and the share is refused, or the share wins and the take
        // is refused. Never both.
        for _ in 0..500 {
            let s = std::sync::Arc::new(OwnershipState::new());
            let s2 = s.clone();
            let t = std::thread::spawn(move || s2.share().is_ok());
            let took = s.take_for_donation().is_ok();
            let shared = t.join().unwrap();
            assert!(took ^ shared, "took={took} shared={shared}");
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;

    /// Two threads race to take the same buffer: exactly one wins.
    #[test]
    fn concurrent_takes_have_one_winner() {
        loom::model(|| {
            let s = Arc::new(OwnershipState::new());
            let s2 = s.clone();
            let t = loom::thread::spawn(move || s2.take_for_donation().is_ok());
            let a = s.take_for_donation().is_ok();
            let b = t.join().unwrap();
            assert!(a ^ b);
            assert!(s.snapshot().donated);
        });
    }

    /// A share racing a take: never both, and a refused take leaves the
    /// handle count intact.
    #[test]
    fn share_vs_take() {
        loom::model(|| {
            let s = Arc::new(OwnershipState::new());
            let s2 = s.clone();
            let t = loom::thread::spawn(move || s2.share().is_ok());
            let took = s.take_for_donation().is_ok();
            let shared = t.join().unwrap();
            assert!(took ^ shared);
            let snap = s.snapshot();
            if shared {
                assert_eq!(snap.handles, 2);
                assert!(!snap.donated);
            } else {
                assert!(snap.donated);
            }
        });
    }

    /// Export racing an in-place writer: the export is refused while the
    /// writer holds the buffer, and a writer never starts under an export.
    #[test]
    fn export_vs_writer() {
        loom::model(|| {
            let s = Arc::new(OwnershipState::new());
            let s2 = s.clone();
            let t = loom::thread::spawn(move || {
                if s2.acquire_exclusive().is_ok() {
                    let snap = s2.snapshot();
                    assert_eq!(snap.exports, 0);
                    s2.release_exclusive();
                    true
                } else {
                    false
                }
            });
            let exported = s.export().is_ok();
            let wrote = t.join().unwrap();
            assert!(exported || wrote);
            if exported {
                s.unexport();
            }
            assert!(s.snapshot().is_exclusive());
        });
    }
}

//! A tensor that several threads of a front end reach at once: a
//! [`Slot`] holds a [`DynTensor`] behind a fair lock, plus the *donor gate*
//! that makes racing explicit donations of it have exactly one winner.
//!
//! A front end whose tensor objects are shared between threads (the Python
//! `Tensor`, one object that any thread may use) keeps one `Slot` per
//! object. Everything here is front-end independent; the one thing a front
//! end supplies is how to wait ([`Waiter`]): the Python bindings release
//! the interpreter while a thread waits, so that the thread it waits for
//! can run.
//!
//! # The lock
//!
//! [`Slot::lock`] locks the slot for a moment (cloning a handle, reading
//! metadata) or across a claim and its kernel, or an in-place kernel. The
//! lock is fair (`parking_lot::FairMutex`): on unlock it is handed to the
//! longest waiter, so threads looping in-place ops on a tensor cannot
//! starve another thread's access, and a waiting thread sleeps instead of
//! spinning. Callers never hold two slots' locks at once and never run
//! front-end code (which could reach the same slot) while holding one, so
//! threads cannot deadlock on slots.
//!
//! # Updates
//!
//! An in-place update also holds the slot's *update lock*
//! ([`Slot::update`]) from before it reads its operands until its write is
//! done, so updates of one tensor from several threads run one at a time
//! and none is lost, even when a write through a shared buffer lets go of
//! the lock before it writes. A thread that waits for it holds no reader
//! (an update from a warning handler of an operation that reads does not
//! wait), so it cannot close a cycle with the writer, which waits for
//! readers.
//!
//! # Donor gates
//!
//! Explicit donations of one tensor from several threads at once would
//! otherwise all read it, each see the others' handles, and all fall back
//! to copies, leaving no winner. So an explicit donor first enters the
//! slot's gate ([`DonorGates::enter`], all of an operation's gates
//! together, in address order). A donor that finds a gate taken by another
//! thread releases its own, waits (holding nothing, so two donors can
//! never wait for each other) until the gate is free, then tries again:
//! the other donor either took the buffer (this one then finds the tensor
//! donated, which is then true) or refused (this one then reads an intact
//! tensor). Exactly one of them claims the buffer when nothing else shares
//! it. A thread that already holds gates (an operation run from an outer
//! operation's warning handler) does not wait: the busy slots are reported
//! ([`DonorGates::busy`]) and read like any shared tensor.
//!
//!
//! # `fork()`
//!
//! A child of `fork()` has only the forking thread. A lock or a gate that
//! another thread of the parent held at the fork would never be released
//! there. So holders record their process generation (bumped in the child
//! by a `pthread_atfork` handler, registered when the first slot is made),
//! and a child takes over a lock or a gate held by an older generation.
//! The tensor then holds whatever that thread had written by the fork (a
//! partly written in-place result), as for any data a thread was writing
//! at a fork.
//!
//! # Examples
//!
//! ```
//! use donate::memory::slot::{DonorGates, Slot, Waiter};
//! use donate::{DynTensor, Tensor};
//!
//! /// A front end with nothing to release while it waits.
//! struct Block;
//! impl Waiter for Block {
//!     fn wait(&self, f: &mut (dyn FnMut() + Send)) {
//!         f();
//!     }
//! }
//!
//! let slot = Slot::new(DynTensor::from(Tensor::<f32>::ones(&[4])?));
//! let handle = slot.read(&Block)?; // another handle on the buffer
//! assert!(!slot.lock(&Block).is_exclusive());
//! drop(handle);
//! let gates = DonorGates::enter(&Block, &[&slot]); // this thread donates it
//! assert!(gates.busy.is_empty());
//! # Ok::<(), donate::Error>(())
//! ```

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use parking_lot::{FairMutex, FairMutexGuard};
use smallvec::SmallVec;

use crate::array::dyn_tensor::DynTensor;
use crate::error::Result;
use crate::memory::fork;

/// How a front end waits for another thread: `wait` runs `f` (which
/// blocks) with whatever the front end must release meanwhile released
/// (the Python bindings: the interpreter, `py.detach`).
pub trait Waiter {
    fn wait(&self, f: &mut (dyn FnMut() + Send));
}

/// A tensor shared between a front end's threads. See the [module
/// docs](self).
pub struct Slot {
    mutex: FairMutex<DynTensor>,
    /// `generation + 1` of the lock's holder while it is held (set right
    /// after acquiring, cleared right before releasing), else 0.
    owner: AtomicU64,
    /// Held across an in-place update ([`Slot::update`]), and its owner
    /// as for `mutex`.
    updating: FairMutex<()>,
    update_owner: AtomicU64,
    /// The token ([`thread_token`]) of the thread donating this tensor
    /// right now, or 0.
    donor: AtomicUsize,
}

impl Slot {
    /// A slot holding `t` (a reader handle, a result that is one of its
    /// operands, is kept as a plain handle).
    pub fn new(mut t: DynTensor) -> Self {
        t.settle();
        fork::install();
        Slot {
            mutex: FairMutex::new(t),
            owner: AtomicU64::new(0),
            updating: FairMutex::new(()),
            update_owner: AtomicU64::new(0),
            donor: AtomicUsize::new(0),
        }
    }

    /// Lock the slot. When another thread holds it (an in-place kernel
    /// running, say), wait through `waiter`, in line: see the [module
    /// docs](self) for fairness and for locks held at a `fork()`.
    pub fn lock(&self, waiter: &impl Waiter) -> SlotGuard<'_> {
        SlotGuard::new(lock_fair(&self.mutex, &self.owner, waiter), &self.owner)
    }

    /// Serialise an in-place update of this tensor with the others: held
    /// from before the update reads its operands until its write is done,
    /// including a write through a shared buffer, which lets go of
    /// [`lock`](Self::lock) before it writes (see
    /// [`crate::driver::call::call_in_place`]). Fair, as the lock is. `None`,
    /// without waiting, when another thread updates it and this thread
    /// holds a reader (an update run from a warning handler of an
    /// operation that reads): waiting then could close a cycle.
    pub fn update(&self, waiter: &impl Waiter) -> Option<UpdateGuard<'_>> {
        let g = if crate::memory::buffer::reading() {
            self.updating.try_lock()?
        } else {
            lock_fair(&self.updating, &self.update_owner, waiter)
        };
        Some(UpdateGuard {
            _guard: SlotGuard::new(g, &self.update_owner),
        })
    }

    /// Another handle on the slot's buffer, registered as a reader until
    /// dropped (`AlreadyDonated` if it was donated). While a write through
    /// another view of the buffer runs, waits (holding nothing) for it to
    /// end.
    pub fn read(&self, waiter: &impl Waiter) -> Result<DynTensor> {
        loop {
            {
                let g = self.lock(waiter);
                g.check_readable()?;
                match g.reader() {
                    Err(crate::Error::Busy) => {}
                    r => return r,
                }
            }
            waiter.wait(&mut std::thread::yield_now);
        }
    }
}

/// Lock `mutex` (its holder recorded in `owner`), waiting through
/// `waiter`, in line; a lock held by a thread lost at a `fork()` is taken
/// over (see the [module docs](self)).
fn lock_fair<'a, T: Send>(
    mutex: &'a FairMutex<T>,
    owner: &AtomicU64,
    waiter: &impl Waiter,
) -> FairMutexGuard<'a, T> {
    if let Some(g) = mutex.try_lock() {
        return g;
    }
    let holder = owner.load(Ordering::Acquire);
    // One thread takes over (the exchange), so two cannot both unlock.
    if holder != 0
        && holder != fork::generation() + 1
        && owner
            .compare_exchange(holder, 0, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    {
        // SAFETY: the lock is held by a thread of the parent process (its
        // record is of an older generation): its guard can never be
        // dropped in this process, so nothing else will ever unlock it,
        // and this thread won the exchange, so no other thread unlocks it
        // here either.
        unsafe { mutex.force_unlock_fair() };
    }
    let mut got = None;
    waiter.wait(&mut || got = Some(mutex.lock()));
    got.unwrap_or_else(|| mutex.lock())
}

/// A locked slot; unlocking (drop) hands the lock to the longest waiter.
pub struct SlotGuard<'a, T = DynTensor> {
    guard: FairMutexGuard<'a, T>,
    owner: &'a AtomicU64,
}

/// An update of a slot in progress ([`Slot::update`]); dropping it lets
/// the next one start.
pub struct UpdateGuard<'a> {
    _guard: SlotGuard<'a, ()>,
}

impl<'a, T> SlotGuard<'a, T> {
    fn new(guard: FairMutexGuard<'a, T>, owner: &'a AtomicU64) -> Self {
        owner.store(fork::generation() + 1, Ordering::Release);
        SlotGuard { guard, owner }
    }
}

impl<T> Drop for SlotGuard<'_, T> {
    fn drop(&mut self) {
        // Before `guard` (a field) unlocks.
        self.owner.store(0, Ordering::Release);
    }
}

impl std::ops::Deref for SlotGuard<'_> {
    type Target = DynTensor;
    fn deref(&self) -> &DynTensor {
        &self.guard
    }
}

impl std::ops::DerefMut for SlotGuard<'_> {
    fn deref_mut(&mut self) -> &mut DynTensor {
        &mut self.guard
    }
}

/// Bits of a thread token that hold the process generation.
const GENERATION_SHIFT: u32 = 48;

/// A token for the current thread in this process: the address of a
/// thread-local (non-zero and unique among live threads; user-space
/// addresses fit in 47 bits) with the low bits of the process generation
/// above it, so that a gate a thread of the parent held at a `fork()` is
/// told apart from this process's holders.
fn thread_token() -> usize {
    thread_local!(static TOKEN: u8 = const { 0 });
    let addr = TOKEN.with(|t| std::ptr::from_ref(t) as usize) & ((1 << GENERATION_SHIFT) - 1);
    addr | (generation_bits() << GENERATION_SHIFT)
}

fn generation_bits() -> usize {
    (fork::generation() & 0xFFFF) as usize
}

/// Whether a gate holder's token is of an older process generation: a
/// thread of the parent that held the gate at a `fork()` and does not
/// exist here, so it will never release it.
fn stale(holder: usize) -> bool {
    holder != 0 && holder >> GENERATION_SHIFT != generation_bits()
}

thread_local! {
    /// How many donor gates this thread holds (for operations nested in
    /// an outer operation's warning handler).
    static GATES_HELD: Cell<usize> = const { Cell::new(0) };
}

/// The gates of an operation's explicitly donated slots, entered all
/// together and released on drop. See the [module docs](self).
pub struct DonorGates<'a> {
    entered: SmallVec<[&'a Slot; 2]>,
    /// Slots another thread was donating (only for an operation nested in
    /// another's warning handler, which does not wait).
    pub busy: SmallVec<[&'a Slot; 2]>,
}

impl<'a> DonorGates<'a> {
    /// Enter the gates of `slots` (the same slot may be given more than
    /// once; a gate this thread holds already is covered by its first
    /// entry).
    pub fn enter(waiter: &impl Waiter, slots: &[&'a Slot]) -> Self {
        let mut gates = DonorGates {
            entered: SmallVec::new(),
            busy: SmallVec::new(),
        };
        if slots.is_empty() {
            return gates;
        }
        let me = thread_token();
        let mut order: SmallVec<[&'a Slot; 2]> = slots.iter().copied().collect();
        order.sort_by_key(|s| std::ptr::from_ref::<Slot>(*s) as usize);
        order.dedup_by(|a, b| std::ptr::eq(*a, *b));
        let nested = GATES_HELD.with(Cell::get) > 0;
        loop {
            let mut wait_for = None;
            for s in &order {
                match s
                    .donor
                    .compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => {
                        GATES_HELD.with(|h| h.set(h.get() + 1));
                        gates.entered.push(s);
                    }
                    Err(holder) if holder == me => {}
                    Err(_) if nested => gates.busy.push(s),
                    Err(_) => {
                        wait_for = Some(*s);
                        break;
                    }
                }
            }
            let Some(s) = wait_for else {
                return gates;
            };
            gates.release(); // hold nothing while waiting
            waiter.wait(&mut || loop {
                let holder = s.donor.load(Ordering::Acquire);
                if holder == 0 {
                    break;
                }
                if stale(holder) {
                    // Taken over from a thread lost at a fork.
                    let _ =
                        s.donor
                            .compare_exchange(holder, 0, Ordering::AcqRel, Ordering::Acquire);
                    continue;
                }
                std::thread::sleep(std::time::Duration::from_micros(50));
            });
        }
    }

    /// Whether `slot` is one another thread was donating.
    pub fn is_busy(&self, slot: &Slot) -> bool {
        self.busy.iter().any(|b| std::ptr::eq(*b, slot))
    }

    fn release(&mut self) {
        for s in self.entered.drain(..) {
            s.donor.store(0, Ordering::Release);
            GATES_HELD.with(|h| h.set(h.get().saturating_sub(1)));
        }
    }
}

impl Drop for DonorGates<'_> {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tensor;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Barrier;

    struct Block;
    impl Waiter for Block {
        fn wait(&self, f: &mut (dyn FnMut() + Send)) {
            f();
        }
    }

    fn slot() -> Slot {
        Slot::new(DynTensor::from(Tensor::<f32>::ones(&[8]).unwrap()))
    }

    #[test]
    fn a_gate_is_held_by_one_thread_at_a_time() {
        let s = slot();
        let inside = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let start = Barrier::new(4);
        std::thread::scope(|sc| {
            for _ in 0..4 {
                sc.spawn(|| {
                    start.wait();
                    for _ in 0..200 {
                        let g = DonorGates::enter(&Block, &[&s, &s]);
                        assert!(g.busy.is_empty());
                        let now = inside.fetch_add(1, Ordering::AcqRel) + 1;
                        most.fetch_max(now, Ordering::AcqRel);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::AcqRel);
                        drop(g);
                    }
                });
            }
        });
        assert_eq!(most.load(Ordering::Acquire), 1);
        assert_eq!(s.donor.load(Ordering::Acquire), 0);
    }

    #[test]
    fn nested_entries_of_another_threads_gate_are_busy_not_waiting() {
        let (a, b) = (slot(), slot());
        let mine = DonorGates::enter(&Block, &[&a]);
        std::thread::scope(|sc| {
            sc.spawn(|| {
                // Another thread holding a gate of its own, then meeting
                // `a`'s gate: nested, so it reports `a` busy.
                let outer = DonorGates::enter(&Block, &[&b]);
                let inner = DonorGates::enter(&Block, &[&a]);
                assert!(inner.is_busy(&a));
                drop((inner, outer));
            });
        });
        // The same thread entering again is covered by its first entry.
        let again = DonorGates::enter(&Block, &[&a]);
        assert!(again.busy.is_empty());
        drop((again, mine));
        assert_eq!(a.donor.load(Ordering::Acquire), 0);
    }

    #[test]
    fn a_stale_gate_and_lock_are_taken_over() {
        let s = slot();
        // A gate and a lock recorded by a thread of an older generation
        // (as after a fork): taken over instead of waited for ever.
        s.donor
            .store(thread_token() ^ (1 << GENERATION_SHIFT), Ordering::Release);
        let g = DonorGates::enter(&Block, &[&s]);
        assert!(g.busy.is_empty());
        drop(g);
        let held = s.mutex.lock();
        std::mem::forget(held); // never unlocked by its holder
        s.owner.store(fork::generation() + 2, Ordering::Release);
        let guard = s.lock(&Block);
        assert!(guard.check_readable().is_ok());
    }

    #[test]
    fn read_shares_and_a_donated_slot_refuses() {
        let s = slot();
        let h = s.read(&Block).unwrap();
        assert!(!s.lock(&Block).is_exclusive());
        drop(h);
        assert!(s.lock(&Block).is_exclusive());
        let mut g = s.lock(&Block);
        let _buf = g.take_buffer_for("test").unwrap();
        drop(g);
        assert!(s.read(&Block).is_err());
    }
}

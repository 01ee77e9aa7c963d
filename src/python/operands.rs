//! The operands of one operation: how each is offered, and the one call
//! sequence every operation goes through ([`call`], [`call_in_place`]).
//!
//! The decisions (result dtype and shape, validation, which operand's
//! buffer receives the result, why others do not) are the core's
//! ([`crate::plan`]). The bindings supply what only the interpreter
//! knows, and sequence the steps so that a failure at any step leaves
//! every input as it was:
//!
//! 1. **Describe** each operand: a temporary ([`Offer::Temporary`], decided
//!    by the interpreter checks in [`super::temporary`]), an explicit donation
//!    ([`Offer::Donated`]), or a named tensor ([`Offer::Borrowed`]); for an
//!    offered tensor, who else holds its buffer now.
//! 2. **Plan** ([`crate::plan::plan`]): every error is raised here, before
//!    any buffer is touched.
//! 3. **Read** every operand but the target: another handle on its buffer
//!    (`DonatedError` here if it was donated).
//! 4. **Warn** for each explicit donation the plan refused, before any
//!    buffer is claimed, so that a warning turned into an error cannot
//!    leave a half-done donation.
//! 5. **Claim and compute** ([`crate::plan::execute`], interpreter
//!    released) with the target's slot locked: a temporary is checked
//!    again first (only the evaluation stack and this call may refer to
//!    it, now that no Python code runs before the claim); if another
//!    holder appeared, the core computes into a new buffer and the late
//!    refusal is warned about afterwards.
//!
//! Racing donations: explicit donations of one tensor from several threads
//! at once would otherwise all read it, each see the others' handles, and
//! all fall back to copies, leaving no winner. So an explicit donor first
//! enters the tensor's gate ([`DonorGates`]); a donor that finds it taken
//! by another thread waits (detached, holding no gate of its own) until the
//! first donor has claimed or refused, and then reads the tensor: donated
//! (`DonatedError`, which is then true) or intact (it goes on, and copies
//! with a warning if the buffer is shared). Exactly one of them claims the
//! buffer when nothing else shares it.
//!
//! Locks: each tensor's slot has a fair lock ([`TensorLock`]), held either
//! for a moment (clone, metadata) or across a claim and its kernel, or an
//! in-place kernel. It is never waited for while attached to the
//! interpreter ([`lock`]), is handed to waiters in arrival order, and is
//! never held two at once, so threads cannot deadlock or starve on it. An
//! in-place op that reads its own target (`t.sub_(t)`) reads it under the
//! same lock as it writes.

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::prelude::*;
use smallvec::SmallVec;

use super::errors::{warn_all, warning, IntoPyResult};
use super::tensor::PyTensor;
use crate::execute::{execute, execute_in_place, Arg};
use crate::plan::{plan, plan_in_place, Holders, Offer, Op, OperandDesc, Plan};
use crate::{DynTensor, OperandDType, Outcome, Refusal, Scalar};

/// Where an operand comes from.
pub(crate) enum Source<'py> {
    Tensor(Bound<'py, PyTensor>),
    /// A tensor the bindings created for this call (from NumPy, a list, a
    /// NumPy scalar): nobody else sees it. With the NumPy dtype the data
    /// had, for type promotion.
    Temp(DynTensor, OperandDType),
    Scalar(Scalar),
}

/// An operation's operands, inline for up to three (no heap allocation
/// for an ordinary operation).
pub(crate) type Inputs<'py> = SmallVec<[Input<'py>; 3]>;

/// One operand of an operation.
pub(crate) struct Input<'py> {
    pub(crate) src: Source<'py>,
    pub(crate) offer: Offer,
}

impl<'py> Input<'py> {
    pub(crate) fn new(src: Source<'py>, offer: Offer) -> Self {
        Input { src, offer }
    }

    /// A named tensor the operation only reads.
    pub(crate) fn kept(t: &Bound<'py, PyTensor>) -> Self {
        Input::new(Source::Tensor(t.clone()), Offer::Borrowed)
    }

    /// The shape (`[]` for scalars).
    pub(crate) fn shape(&self) -> &[usize] {
        match &self.src {
            Source::Tensor(t) => &t.get().shape,
            Source::Temp(t, _) => t.shape(),
            Source::Scalar(_) => &[],
        }
    }

    /// Step 1: this operand as planning sees it. `busy`: tensors another
    /// thread is donating (for an op nested in a warning handler).
    fn describe(&self, py: Python<'_>, busy: &[Bound<'py, PyTensor>]) -> OperandDesc<'_> {
        match &self.src {
            Source::Scalar(s) => OperandDesc::scalar(*s),
            Source::Temp(t, had) => {
                OperandDesc::tensor(*had, t.shape()).offered(Offer::Temporary, Holders::Exclusive)
            }
            Source::Tensor(obj) => {
                let me = obj.get();
                let d = OperandDesc::tensor(me.dtype, &me.shape).with_id(obj.as_ptr() as usize);
                if self.offer == Offer::Borrowed {
                    d
                } else if busy.iter().any(|b| b.is(obj)) {
                    d.offered(self.offer, Holders::Busy)
                } else {
                    let holders = Holders::from(lock(py, &me.slot).ownership());
                    d.offered(self.offer, holders)
                }
            }
        }
    }

    /// `dtype[shape]` for messages.
    fn signature(&self) -> String {
        let dims: Vec<String> = self.shape().iter().map(ToString::to_string).collect();
        let dtype = match &self.src {
            Source::Tensor(t) => t.get().dtype.to_string(),
            Source::Temp(t, _) => t.dtype().to_string(),
            Source::Scalar(_) => String::new(),
        };
        format!("{dtype}[{}]", dims.join(", "))
    }
}

/// A Python tensor's slot: its dtype-erased tensor behind a fair lock,
/// with a record of which process generation holds it (see [`lock`]).
pub(crate) struct TensorLock {
    mutex: parking_lot::FairMutex<DynTensor>,
    /// `fork generation + 1` of the holder while the lock is held (set
    /// right after acquiring, cleared right before releasing), else 0.
    owner: AtomicU64,
}

impl TensorLock {
    pub(crate) fn new(t: DynTensor) -> Self {
        TensorLock {
            mutex: parking_lot::FairMutex::new(t),
            owner: AtomicU64::new(0),
        }
    }
}

/// A locked slot; unlocking hands the lock to the longest waiter.
pub(crate) struct SlotGuard<'a> {
    guard: parking_lot::FairMutexGuard<'a, DynTensor>,
    owner: &'a AtomicU64,
}

impl<'a> SlotGuard<'a> {
    fn new(guard: parking_lot::FairMutexGuard<'a, DynTensor>, owner: &'a AtomicU64) -> Self {
        owner.store(fork::generation() + 1, Ordering::Release);
        SlotGuard { guard, owner }
    }
}

impl Drop for SlotGuard<'_> {
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

/// Lock a tensor's slot. When another thread holds it (an in-place kernel
/// running with the interpreter released), wait for it detached from the
/// interpreter, in line: the lock is fair (handed over in arrival order),
/// so writers looping on a tensor cannot starve a reader, and the waiting
/// thread sleeps instead of spinning. Callers never run Python code (which
/// could reach the same tensor) while holding it.
///
/// After `fork()`: a lock that a thread of the parent held at the fork
/// will never be released (that thread does not exist in the child). A
/// holder records its process generation ([`fork::generation`], bumped in
/// the child), and clears it before releasing, so a held lock whose record
/// is of an older generation is held by such a thread: the child takes it
/// over. The tensor then holds whatever that thread had written by the
/// fork (a partly written in-place result), as for any data a thread was
/// writing at a fork.
pub(crate) fn lock<'a>(py: Python<'_>, m: &'a TensorLock) -> SlotGuard<'a> {
    if let Some(g) = m.mutex.try_lock() {
        return SlotGuard::new(g, &m.owner);
    }
    let holder = m.owner.load(Ordering::Acquire);
    // One thread takes over (the exchange), so two cannot both unlock.
    if holder != 0
        && holder != fork::generation() + 1
        && m.owner
            .compare_exchange(holder, 0, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    {
        // SAFETY: the lock is held by a thread of the parent process (see
        // above): its guard can never be dropped in this process, so
        // nothing else will ever unlock it, and this thread won the
        // exchange, so no other thread unlocks it here either.
        unsafe { m.mutex.force_unlock_fair() };
    }
    let g = py.detach(|| m.mutex.lock());
    SlotGuard::new(g, &m.owner)
}

/// The process generation: 0 in the process that imported donate, bumped
/// in the child of each `fork()`.
pub(crate) mod fork {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Once;

    static GENERATION: AtomicU64 = AtomicU64::new(0);

    extern "C" fn in_child() {
        GENERATION.fetch_add(1, Ordering::AcqRel);
    }

    /// Register the child handler (at import; once per process).
    pub(crate) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: `in_child` is an `extern "C" fn()` that only touches
            // an atomic, which is async-signal-safe as a child handler
            // must be.
            unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
        });
    }

    pub(crate) fn generation() -> u64 {
        GENERATION.load(Ordering::Acquire)
    }
}

/// Another handle on a tensor's buffer (`DonatedError` if it was donated).
pub(crate) fn read(py: Python<'_>, t: &PyTensor) -> PyResult<DynTensor> {
    let g = lock(py, &t.slot);
    g.check_readable().py()?;
    Ok(g.clone())
}

/// Bits of a thread token that hold the process generation.
const GENERATION_SHIFT: u32 = 48;

/// A token for the current thread in this process: the address of a
/// thread-local (non-zero and unique among live threads; user-space
/// addresses fit in 47 bits) with the low bits of the process generation
/// ([`fork::generation`]) above it, so that a gate a thread of the parent
/// held at a `fork()` is told apart from this process's holders.
fn thread_token() -> usize {
    thread_local!(static TOKEN: u8 = const { 0 });
    let addr = TOKEN.with(|t| std::ptr::from_ref(t) as usize) & ((1 << GENERATION_SHIFT) - 1);
    addr | (generation_bits() << GENERATION_SHIFT)
}

fn generation_bits() -> usize {
    (fork::generation() & 0xFFFF) as usize
}

/// Whether a gate holder's token is of an older process generation: a
/// thread of the parent that held the gate at a `fork()` and does not exist
/// here, so it will never release it.
fn stale(holder: usize) -> bool {
    holder != 0 && holder >> GENERATION_SHIFT != generation_bits()
}

thread_local! {
    /// How many donor gates this thread holds (for operations nested in
    /// an outer operation's warning handler).
    static GATES_HELD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Held by the one thread that is explicitly donating a tensor, from before
/// it reads the tensor until it has claimed its buffer or refused; released
/// on drop. The same thread may enter again (the same tensor twice in one
/// expression, or a warning handler that donates it), which the first entry
/// covers.
pub(crate) struct DonorGate<'py>(Bound<'py, PyTensor>);

impl Drop for DonorGate<'_> {
    fn drop(&mut self) {
        self.0.get().donor.store(0, Ordering::Release);
        GATES_HELD.with(|h| h.set(h.get().saturating_sub(1)));
    }
}

/// The gates of an operation's explicitly donated tensors, entered all
/// together. A donor that finds a gate taken by another thread waits,
/// detached and holding none of its own gates, until it is free, then
/// tries again: the other donor either took the buffer (this one then
/// finds the tensor donated and says so) or refused (this one then reads
/// an intact tensor). Waiting holding nothing means two donors can never
/// wait for each other. A thread that already holds gates (an operation
/// in an outer operation's warning handler) does not wait: it reports the
/// busy tensors, which are then read and copied with a warning.
pub(crate) struct DonorGates<'py> {
    _entered: Vec<DonorGate<'py>>,
    /// Tensors another thread was donating (only for nested operations).
    pub(crate) busy: Vec<Bound<'py, PyTensor>>,
}

impl<'py> DonorGates<'py> {
    pub(crate) fn enter(py: Python<'py>, tensors: &[&Bound<'py, PyTensor>]) -> Self {
        if tensors.is_empty() {
            return DonorGates {
                _entered: Vec::new(),
                busy: Vec::new(),
            };
        }
        let me = thread_token();
        let mut order: Vec<&Bound<'py, PyTensor>> = tensors.to_vec();
        order.sort_by_key(|t| t.as_ptr() as usize);
        order.dedup_by(|a, b| a.is(*b));
        let nested = GATES_HELD.with(std::cell::Cell::get) > 0;
        loop {
            let mut entered = Vec::new();
            let mut busy = Vec::new();
            let mut wait_for = None;
            for t in &order {
                let donor = &t.get().donor;
                match donor.compare_exchange(0, me, Ordering::AcqRel, Ordering::Acquire) {
                    Ok(_) => {
                        GATES_HELD.with(|h| h.set(h.get() + 1));
                        entered.push(DonorGate((*t).clone()));
                    }
                    Err(holder) if holder == me => {}
                    Err(_) if nested => busy.push((*t).clone()),
                    Err(_) => {
                        wait_for = Some((*t).clone());
                        break;
                    }
                }
            }
            let Some(t) = wait_for else {
                return DonorGates {
                    _entered: entered,
                    busy,
                };
            };
            drop(entered); // hold nothing while waiting
            let donor = &t.get().donor;
            py.detach(|| loop {
                let holder = donor.load(Ordering::Acquire);
                if holder == 0 {
                    break;
                }
                if stale(holder) {
                    // Taken over from a thread lost at a fork.
                    let _ = donor.compare_exchange(holder, 0, Ordering::AcqRel, Ordering::Acquire);
                    continue;
                }
                std::thread::sleep(std::time::Duration::from_micros(50));
            });
        }
    }
}

/// The warnings for the refusals of explicitly donated operands.
fn warnings<'a>(
    plan: &Plan,
    refusals: impl Iterator<Item = &'a (usize, Refusal)>,
    signatures: &[String],
) -> Vec<String> {
    if signatures.is_empty() {
        return Vec::new(); // nothing was donated explicitly
    }
    refusals
        .filter(|(i, _)| plan.offers.get(*i) == Some(&Offer::Donated))
        .map(|(i, r)| warning(plan, *i, &signatures[*i], r))
        .collect()
}

/// About how many bytes executing `plan` touches: its allocations and its
/// operands (for choosing whether to release the interpreter).
fn work<'a>(plan: &Plan, shapes: impl Iterator<Item = &'a [usize]>) -> usize {
    let size = plan.dtype.size();
    shapes
        .map(|s| s.iter().fold(size, |n, &x| n.saturating_mul(x)))
        .fold(plan.allocated_bytes(), usize::saturating_add)
}

/// Run `op` over `inputs` (see the [module docs](self) for the steps).
pub(crate) fn call<'py>(py: Python<'py>, op: &Op, inputs: Inputs<'py>) -> PyResult<PyTensor> {
    // Released when `gates` drops: once the target is locked (or at an
    // early return).
    let gates = {
        let donors: SmallVec<[&Bound<'py, PyTensor>; 3]> = inputs
            .iter()
            .filter_map(|i| match (i.offer, &i.src) {
                (Offer::Donated, Source::Tensor(t)) => Some(t),
                _ => None,
            })
            .collect();
        DonorGates::enter(py, &donors)
    };

    // 1., 2.
    let plan = {
        let descs: SmallVec<[OperandDesc<'_>; 3]> =
            inputs.iter().map(|i| i.describe(py, &gates.busy)).collect();
        plan(op, &descs).py()?
    };
    let work = work(&plan, inputs.iter().map(Input::shape));
    let signatures: Vec<String> = if plan.offers.contains(&Offer::Donated) {
        inputs.iter().map(Input::signature).collect()
    } else {
        Vec::new()
    };

    // 3. Read all but a tensor target (which is claimed, never cloned).
    // Declared in this order so that the operands, which borrow the
    // target's locked slot, are dropped before it.
    let mut target: Option<(usize, Bound<'py, PyTensor>, Offer)> = None;
    let mut slot: Option<SlotGuard<'_>> = None;
    let mut args: SmallVec<[Arg<'_>; 3]> = SmallVec::new();
    for (i, input) in inputs.into_iter().enumerate() {
        args.push(match input.src {
            Source::Scalar(s) => Arg::Scalar(s),
            Source::Temp(t, _) => Arg::Tensor(t),
            Source::Tensor(obj) if plan.target == Some(i) && !plan.casts.contains(&i) => {
                target = Some((i, obj, input.offer));
                Arg::Scalar(Scalar::Int(0)) // replaced below
            }
            Source::Tensor(obj) => Arg::Tensor(read(py, obj.get())?),
        });
    }

    // 4.
    warn_all(py, warnings(&plan, plan.refusals.iter(), &signatures))?;

    // 5. The gates are released once the target's slot is locked: from
    // there to the claim no other donor can get in.
    let (result, outcome) = match &target {
        None => {
            drop(gates);
            super::arena::detach(py, work, || execute(&plan, &mut args)).py()?
        }
        Some((i, obj, offer)) => {
            let g = slot.insert(lock(py, &obj.get().slot));
            drop(gates);
            // A temporary was decided before the other operands were read
            // and before the warnings (Python code that could have
            // obtained a reference to it): it must still be one.
            args[*i] = if *offer == Offer::Donated || super::temporary::still_temporary(obj.as_any()) {
                Arg::Held(g)
            } else {
                // Read like a named tensor: the core's claim of another
                // handle is refused, and the result goes to a new buffer.
                g.check_readable().py()?;
                Arg::Tensor(g.clone())
            };
            let r = super::arena::detach(py, work, || execute(&plan, &mut args));
            drop(args);
            drop(slot.take()); // unlocked before any warning runs Python code
            r.py()?
        }
    };
    let late = warnings(
        &plan,
        outcome.refused.iter().filter(|r| !plan.refusals.contains(r)),
        &signatures,
    );
    warn_all(py, late)?;
    Ok(PyTensor::new(result))
}

/// Run `op` in place over `target`, reading `others` (an explicit
/// donation among them is refused with a warning: the result goes into
/// the target). Copy-on-write when the target's buffer is shared.
pub(crate) fn call_in_place<'py>(
    py: Python<'py>,
    op: &Op,
    target: &Bound<'py, PyTensor>,
    others: Inputs<'py>,
) -> PyResult<Outcome> {
    let me = target.get();
    let plan = {
        let mut descs: SmallVec<[OperandDesc<'_>; 3]> = SmallVec::new();
        descs.push(OperandDesc::tensor(me.dtype, &me.shape));
        descs.extend(others.iter().map(|i| i.describe(py, &[])));
        plan_in_place(op, &descs).py()?
    };
    let work = work(&plan, std::iter::once(&me.shape[..]).chain(others.iter().map(Input::shape)));
    let signatures: Vec<String> = if plan.offers.contains(&Offer::Donated) {
        std::iter::once(String::new())
            .chain(others.iter().map(Input::signature))
            .collect()
    } else {
        Vec::new()
    };
    // `x op= x` reads its own target: read it under the same lock as the
    // write (one critical section), so that another thread's in-place op
    // cannot land between the read and the write.
    // Declared before the operands, which borrow it (see `call`).
    let mut slot: Option<SlotGuard<'_>> = None;
    let mut args: SmallVec<[Arg<'_>; 3]> = SmallVec::new();
    args.push(Arg::Scalar(Scalar::Int(0))); // the target, below
    let mut same: SmallVec<[usize; 2]> = SmallVec::new();
    for (i, input) in others.into_iter().enumerate() {
        args.push(match input.src {
            Source::Scalar(s) => Arg::Scalar(s),
            Source::Temp(t, _) => Arg::Tensor(t),
            Source::Tensor(obj) if obj.is(target) => {
                same.push(i + 1);
                Arg::Scalar(Scalar::Int(0))
            }
            Source::Tensor(obj) => Arg::Tensor(read(py, obj.get())?),
        });
    }
    warn_all(py, warnings(&plan, plan.refusals.iter(), &signatures))?;
    let g = slot.insert(lock(py, &me.slot));
    for i in same {
        g.check_readable().py()?;
        args[i] = Arg::Tensor(g.clone());
    }
    args[0] = Arg::Held(g);
    super::arena::detach(py, work, || execute_in_place(&plan, &mut args)).py()
}

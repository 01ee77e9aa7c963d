//! How the operands of one operation are read, reused or copied.
//!
//! Each operand arrives as an [`Input`]: a tensor with an [`Offer`] (kept,
//! an implicit temporary, or explicitly donated), a tensor the bindings
//! made themselves (converted from NumPy, a list, or cast), or a Python
//! scalar. [`run`] then goes through four steps, in this order, so that a
//! failure at any step leaves every input as it was:
//!
//! 1. **Read.** Every tensor operand is cloned (another handle on its
//!    buffer) under its lock; a donated one raises `DonatedError` here,
//!    before anything was changed. Operands of another dtype are cast into
//!    a new buffer the operation may then reuse.
//! 2. **Plan.** At most one operand, the leftmost that was offered and whose
//!    shape and dtype fit the result, is chosen to receive the result, and
//!    only if its buffer is exclusive (one handle, no exported view; our own
//!    clone is discounted). Every other explicitly donated operand gets a
//!    `DonationWarning` saying why now, before any buffer is claimed, so
//!    that a warning turned into an error cannot leave a half-done donation.
//! 3. **Claim.** The chosen buffer is moved out of its tensor (an atomic
//!    transition; the tensor becomes "donated"). If another thread shared it
//!    in between, the claim is refused like any other: warned, and the
//!    input stays intact.
//! 4. **Compute** with the GIL released.
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
//! for a moment (clone, claim, metadata) or across an in-place kernel. It
//! is never waited for while attached to the interpreter ([`lock`]), is
//! handed to waiters in arrival order, and is never held two at once, so
//! threads cannot deadlock or starve on it. An in-place op that reads its
//! own target (`t.sub_(t)`) reads it under the same lock as it writes.

use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::prelude::*;

use super::any::{AnyTensor, Scalar, Slot};
use super::errors::{DonationWarning, IntoPyResult};
use super::tensor::PyTensor;
use crate::{DType, OperandDType, Refusal, Reuse};

/// How a tensor operand was offered to an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Offer {
    /// Read only (a named tensor).
    Keep,
    /// A temporary: nobody else can see it, so its buffer may be reused.
    Implicit,
    /// Donated with `.donate()` or a `*_donate` method.
    Explicit,
}

/// Where an operand comes from.
pub(crate) enum Source<'py> {
    Tensor(Bound<'py, PyTensor>),
    /// A tensor the bindings created for this call (from NumPy, a list, a
    /// NumPy scalar): nobody else sees it. With the NumPy dtype the data
    /// had, for type promotion.
    Temp(AnyTensor, OperandDType),
    Scalar(Scalar),
}

/// One operand of an operation.
pub(crate) struct Input<'py> {
    pub(crate) src: Source<'py>,
    offer: Offer,
}

impl<'py> Input<'py> {
    pub(crate) fn new(src: Source<'py>, offer: Offer) -> Self {
        Input { src, offer }
    }

    /// How the operand was offered.
    pub(crate) fn offer(&self) -> Offer {
        self.offer
    }

    /// This operand as one the operation only reads (a parameter, the right
    /// operand of an in-place op). An explicit donation cannot be honoured
    /// there, and an explicit donation is never dropped silently: it warns
    /// `why` now (before any buffer is claimed). The only way to take the
    /// offer back, so no operation can forget the warning.
    pub(crate) fn read_only(
        mut self,
        py: Python<'_>,
        op: &str,
        label: &str,
        why: Refusal,
    ) -> PyResult<ReadOnly<'py>> {
        if self.offer == Offer::Explicit {
            warn(py, op, label, &self, &why)?;
        }
        self.offer = Offer::Keep;
        Ok(ReadOnly(self))
    }

    pub(crate) fn kept(t: Bound<'py, PyTensor>) -> Self {
        Input {
            src: Source::Tensor(t),
            offer: Offer::Keep,
        }
    }

    pub(crate) fn scalar(&self) -> Option<Scalar> {
        match self.src {
            Source::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The dtype of a tensor operand (`None` for scalars).
    pub(crate) fn dtype(&self) -> Option<DType> {
        match &self.src {
            Source::Tensor(t) => Some(t.get().dtype),
            Source::Temp(t, _) => Some(t.dtype()),
            Source::Scalar(_) => None,
        }
    }

    /// The dtype type promotion sees: a tensor's, or the NumPy dtype of
    /// converted data (`None` for Python scalars, which are weak).
    pub(crate) fn operand_dtype(&self) -> Option<OperandDType> {
        match &self.src {
            Source::Tensor(t) => Some(t.get().dtype.into()),
            Source::Temp(_, had) => Some(*had),
            Source::Scalar(_) => None,
        }
    }

    /// The shape (`[]` for scalars).
    pub(crate) fn shape(&self) -> &[usize] {
        match &self.src {
            Source::Tensor(t) => &t.get().shape,
            Source::Temp(t, _) => t.shape(),
            Source::Scalar(_) => &[],
        }
    }
}

/// An operand the operation only reads, made by [`Input::read_only`] (so
/// an explicit donation of it has been warned about).
pub(crate) struct ReadOnly<'py>(Input<'py>);

/// An operand after step 1.
pub(crate) enum Held {
    /// Another handle on the operand's buffer: read only.
    Read(AnyTensor),
    /// A buffer nobody else holds: the operation may write its result here.
    Own(AnyTensor, Reuse),
    Scalar(Scalar),
}

/// The core operands for the held inputs.
pub(crate) fn slots(held: &mut [Held]) -> Vec<Slot<'_>> {
    held.iter_mut()
        .map(|h| match h {
            Held::Read(t) => Slot::Ref(t),
            Held::Own(t, r) => Slot::Owned(t, *r),
            Held::Scalar(s) => Slot::Scalar(*s),
        })
        .collect()
}

/// A Python tensor's slot: its dtype-erased tensor behind a fair lock,
/// with a record of which process generation holds it (see [`lock`]).
pub(crate) struct TensorLock {
    mutex: parking_lot::FairMutex<AnyTensor>,
    /// `fork generation + 1` of the holder while the lock is held (set
    /// right after acquiring, cleared right before releasing), else 0.
    owner: AtomicU64,
}

impl TensorLock {
    pub(crate) fn new(t: AnyTensor) -> Self {
        TensorLock {
            mutex: parking_lot::FairMutex::new(t),
            owner: AtomicU64::new(0),
        }
    }
}

/// A locked slot; unlocking hands the lock to the longest waiter.
pub(crate) struct SlotGuard<'a> {
    guard: parking_lot::FairMutexGuard<'a, AnyTensor>,
    owner: &'a AtomicU64,
}

impl<'a> SlotGuard<'a> {
    fn new(guard: parking_lot::FairMutexGuard<'a, AnyTensor>, owner: &'a AtomicU64) -> Self {
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
    type Target = AnyTensor;
    fn deref(&self) -> &AnyTensor {
        &self.guard
    }
}

impl std::ops::DerefMut for SlotGuard<'_> {
    fn deref_mut(&mut self) -> &mut AnyTensor {
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
pub(crate) fn read(py: Python<'_>, t: &PyTensor) -> PyResult<AnyTensor> {
    let g = lock(py, &t.slot);
    g.check_readable().py()?;
    Ok(g.clone())
}

/// A tensor operand read as `dtype` (a new handle on its buffer, or a cast
/// copy), for operations that only read it. Scalars are not tensors.
pub(crate) fn read_as(py: Python<'_>, input: &ReadOnly<'_>, dtype: DType) -> PyResult<AnyTensor> {
    let t = match &input.0.src {
        Source::Tensor(o) => read(py, o.get())?,
        Source::Temp(t, _) => t.clone(),
        Source::Scalar(_) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "expected a tensor operand, not a number",
            ))
        }
    };
    if t.dtype() == dtype {
        Ok(t)
    } else {
        t.cast(dtype).py()
    }
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
    let addr = TOKEN.with(|t| t as *const u8 as usize) & ((1 << GENERATION_SHIFT) - 1);
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
        let me = thread_token();
        let mut order: Vec<&Bound<'py, PyTensor>> = tensors.to_vec();
        order.sort_by_key(|t| t.as_ptr() as usize);
        order.dedup_by(|a, b| a.is(*b));
        let nested = GATES_HELD.with(|h| h.get()) > 0;
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

/// What an operation does with its inputs' buffers.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Reuses<'s> {
    /// The result has this shape and the operation can write it over an
    /// input of the same shape and dtype.
    Into(&'s [usize]),
    /// As `Into`, but only the first operand (the input) can receive the
    /// result; the others are parameters the operation only reads.
    IntoInput(&'s [usize]),
    /// The result always goes to a new buffer (reductions, matmul, reshape
    /// copies).
    Never(&'static str),
}

/// Warn that operand `input` (named `label`) was donated but not used.
fn warn(py: Python<'_>, op: &str, label: &str, input: &Input<'_>, why: &Refusal) -> PyResult<()> {
    crate::stats::record_fallback();
    let shape: Vec<String> = input.shape().iter().map(|d| d.to_string()).collect();
    let dtype = input.dtype().map(|d| d.to_string()).unwrap_or_default();
    let msg = format!(
        "{op}: {label} ({dtype}[{}]) was donated but not used: {why}; the result was computed into a new buffer and the input is unchanged",
        shape.join(", ")
    );
    PyErr::warn(
        py,
        &py.get_type::<DonationWarning>(),
        &std::ffi::CString::new(msg).unwrap_or_default(),
        1,
    )
}

/// Run `f` over the operands. See the [module docs](self) for the steps.
/// `labels[i]` names operand `i` in warnings ("the input", "the left
/// operand"); `dtype` is the dtype every tensor operand is brought to.
pub(crate) fn run<'py, F>(
    py: Python<'py>,
    op: &'static str,
    labels: &[&str],
    inputs: Vec<Input<'py>>,
    dtype: DType,
    reuses: Reuses<'_>,
    f: F,
) -> PyResult<AnyTensor>
where
    F: FnOnce(&mut [Held]) -> crate::Result<AnyTensor> + Send,
{
    // 0. Enter the gates of explicitly donated tensors; they are released
    // when `gates` drops (after the claim, or at an early return).
    let donors: Vec<&Bound<'py, PyTensor>> = inputs
        .iter()
        .filter_map(|i| match (i.offer, &i.src) {
            (Offer::Explicit, Source::Tensor(t)) => Some(t),
            _ => None,
        })
        .collect();
    let gates = DonorGates::enter(py, &donors);

    // 1. Read.
    let mut held = Vec::with_capacity(inputs.len());
    let mut refusals: Vec<(usize, Refusal)> = Vec::new();
    let mut candidates = Vec::new();
    let mut inputs = inputs;
    for i in 0..inputs.len() {
        // A temporary made by the bindings moves into `held` (no other
        // handle may remain, or the operation could not reuse it).
        if let Source::Temp(..) = inputs[i].src {
            let Source::Temp(t, _) =
                std::mem::replace(&mut inputs[i].src, Source::Scalar(Scalar::Int(0)))
            else {
                unreachable!("checked above")
            };
            let t = if t.dtype() == dtype {
                t
            } else {
                t.cast(dtype).py()?
            };
            held.push(Held::Own(t, Reuse::Implicit));
            continue;
        }
        let input = &inputs[i];
        match &input.src {
            Source::Scalar(s) => held.push(Held::Scalar(*s)),
            Source::Temp(..) => unreachable!("moved out above"),
            Source::Tensor(obj) => {
                let t = read(py, obj.get())?;
                let same = inputs[..i]
                    .iter()
                    .any(|o| matches!(&o.src, Source::Tensor(p) if p.is(obj)));
                let same_later = inputs[i + 1..]
                    .iter()
                    .any(|o| matches!(&o.src, Source::Tensor(p) if p.is(obj)));
                if t.dtype() != dtype {
                    if input.offer == Offer::Explicit {
                        refusals.push((
                            i,
                            Refusal::DType {
                                operand: t.dtype(),
                                result: dtype,
                            },
                        ));
                    }
                    held.push(Held::Own(t.cast(dtype).py()?, Reuse::Implicit));
                    continue;
                }
                if input.offer != Offer::Keep {
                    if gates.busy.iter().any(|b| b.is(obj)) {
                        refusals.push((i, Refusal::Busy));
                    } else if same || same_later {
                        if input.offer == Offer::Explicit {
                            refusals.push((i, Refusal::SameTensor));
                        }
                    } else {
                        candidates.push(i);
                    }
                }
                held.push(Held::Read(t));
            }
        }
    }

    // 2. Plan: the leftmost fitting operand receives the result. A buffer
    // the bindings made (Own) is taken by the core before any later one.
    let mut target = None;
    let first_own = held
        .iter()
        .enumerate()
        .position(|(i, h)| {
            matches!(h, Held::Own(t, _) if Some(t.shape()) == result_shape(reuses) && may_receive(reuses, i))
        });
    for &i in &candidates {
        let Held::Read(t) = &held[i] else { continue };
        let explicit = inputs[i].offer == Offer::Explicit;
        let reason = match reuses {
            Reuses::Never(name) => Some(Refusal::NewBuffer(name)),
            Reuses::IntoInput(_) if i > 0 => Some(Refusal::Parameter(op)),
            Reuses::Into(shape) | Reuses::IntoInput(shape) if t.shape() != shape => {
                Some(Refusal::Shape {
                    operand: t.shape().to_vec(),
                    result: shape.to_vec(),
                })
            }
            _ if target.is_some() || first_own.is_some_and(|o| o < i) => {
                Some(Refusal::OtherOperandUsed)
            }
            _ => {
                let Source::Tensor(obj) = &inputs[i].src else {
                    continue;
                };
                let s = lock(py, &obj.get().slot).ownership();
                // Our own clone is one of the handles.
                if s.handles == 2 && s.exports == 0 && !s.writer && !s.donated {
                    target = Some(i);
                    None
                } else if s.writer {
                    Some(Refusal::Busy)
                } else {
                    Some(Refusal::Shared {
                        handles: s.handles.saturating_sub(1),
                        exports: s.exports,
                    })
                }
            }
        };
        if let (Some(r), true) = (reason, explicit) {
            refusals.push((i, r));
        }
    }
    refusals.sort_by_key(|(i, _)| *i);
    for (i, r) in &refusals {
        warn(
            py,
            op,
            labels.get(*i).copied().unwrap_or("an operand"),
            &inputs[*i],
            r,
        )?;
    }

    // 3. Claim.
    if let Some(i) = target {
        let Source::Tensor(obj) = &inputs[i].src else {
            unreachable!("targets are tensors")
        };
        let kind = if inputs[i].offer == Offer::Explicit {
            Reuse::Explicit
        } else {
            Reuse::Implicit
        };
        let mut g = lock(py, &obj.get().slot);
        let shape = g.shape().to_vec();
        // A temporary was decided before the other operands were converted
        // and before the warnings (Python code that could have obtained a
        // reference to it): check again, now that no Python code runs
        // before the claim, that only the evaluation stack and our own
        // handle refer to it. If not, it is read like a named tensor.
        let still = kind == Reuse::Explicit || super::ffi::still_temporary(obj.as_any());
        let claimed = if still {
            held[i] = Held::Scalar(Scalar::Int(0)); // drop our clone while locked
            g.take_buffer_for(op)
        } else {
            Err(crate::Error::Busy)
        };
        match claimed {
            Ok(buf) => {
                held[i] = Held::Own(AnyTensor::from_buffer(dtype, buf, &shape).py()?, kind);
            }
            Err(e) => {
                if still {
                    held[i] = Held::Read(g.clone());
                }
                drop(g);
                if kind == Reuse::Explicit {
                    let r = match e {
                        crate::Error::NotDonatable { handles, exports } => {
                            Refusal::Shared { handles, exports }
                        }
                        crate::Error::AlreadyDonated { .. } => Refusal::Donated,
                        _ => Refusal::Busy,
                    };
                    warn(
                        py,
                        op,
                        labels.get(i).copied().unwrap_or("an operand"),
                        &inputs[i],
                        &r,
                    )?;
                }
            }
        }
    }

    drop(gates);

    // 4. Compute, detached.
    super::arena::detach(py, || f(&mut held)).py()
}

fn result_shape<'s>(r: Reuses<'s>) -> Option<&'s [usize]> {
    match r {
        Reuses::Into(s) | Reuses::IntoInput(s) => Some(s),
        Reuses::Never(_) => None,
    }
}

/// May operand `i` receive the result?
fn may_receive(r: Reuses<'_>, i: usize) -> bool {
    match r {
        Reuses::Into(_) => true,
        Reuses::IntoInput(..) => i == 0,
        Reuses::Never(_) => false,
    }
}

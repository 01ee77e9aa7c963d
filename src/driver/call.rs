//! The one call sequence of an eager operation whose operands a front end
//! holds in [`Slot`]s (the Python bindings' `Tensor`s): [`call`] and
//! [`call_in_place`].
//!
//! The decisions (result dtype and shape, validation, which operand's
//! buffer receives the result, why the others do not) are the planner's
//! ([`crate::plan`]); this module sequences the steps around it so that a
//! failure at any step leaves every operand as it was. A front end
//! supplies only what it alone knows ([`FrontEnd`]): how a thread waits,
//! whether an operand it offered as a temporary is still one, how a
//! refused donation is reported, and where a kernel runs.
//!
//! 1. **Gates**: the slots of explicitly donated operands are entered
//!    ([`DonorGates`]), so that of two threads donating one tensor exactly
//!    one wins.
//! 2. **Describe** each operand ([`OperandDesc`]): a number, a tensor made
//!    for the call, or a held tensor with its offer and, when offered,
//!    who else holds its buffer now (read under its slot's lock).
//! 3. **Plan** ([`crate::plan::plan`]): every error is raised here, before
//!    any buffer is touched.
//! 4. **Read** every operand but the target: another handle on its buffer
//!    (`AlreadyDonated` here if it was donated).
//! 5. **Warn** ([`FrontEnd::warn`]) for each explicit donation the plan
//!    refused, before any buffer is claimed, so that a warning turned into
//!    an error cannot leave a half-done donation.
//! 6. **Lock, re-check, claim and run** ([`crate::driver::execute::execute`], in
//!    [`FrontEnd::run`]): the target's slot is locked and the gates
//!    released; a temporary is checked again ([`FrontEnd::still_temporary`]:
//!    the front end's own code may have run since step 2); if another
//!    holder appeared, the core computes into a new buffer and the late
//!    refusal is reported afterwards.
//!
//! The typed Rust API and the runner of planned programs enter at step 6
//! directly ([`crate::driver::execute::execute`]): their operands are Rust values
//! the caller owns, with no slot to lock, no temporary to re-check and no
//! warning to raise (their refusals are returned as data, in
//! [`Outcome`]).
//!
//! # Threads
//!
//! Each slot has a fair lock, held for a moment (a clone, a description)
//! or across a claim and its kernel, and a donor gate; a front end's
//! [`Waiter`] releases what it must (the Python interpreter) while a
//! thread waits for either. An in-place operation that reads its own
//! target (`t.sub_(t)`) reads it under the same lock as it writes.
//!
//! # Writes through views
//!
//! An in-place operation on a tensor whose buffer is shared (a view, its
//! base, an exported array) writes through into that buffer, so that every
//! view sees it, as NumPy's do ([`call_in_place`]): the new values are
//! computed into a new buffer while a *reader* of the shared one keeps
//! other writers out; the slot gets its own handle back and every lock
//! and reader is released; then the write waits for the buffer's other
//! readers to leave and runs in [`FrontEnd::run_shared_write`]. Every read
//! a front end makes outside that (a kernel run without the Python
//! interpreter, a jit run) holds a reader ([`Slot::read`]), so no read
//! ever overlaps the write; [`FrontEnd`]'s safety contract states it.
//!
//! While a trace runs ([`FrontEnd::tracing_since`]), a concrete in-place
//! write copies on write instead, so that a constant the trace captured
//! keeps the value the program was traced with; and a write into a buffer
//! made before the trace began is refused ([`Error::Tracer`]): the traced
//! function runs once, so such a write would happen once, when traced,
//! while eager code writes at every call.

use smallvec::SmallVec;

use crate::driver::execute::{execute_in_place, Arg};
use crate::error::{Error, Result};
use crate::memory::slot::{DonorGates, Slot, SlotGuard, Waiter};
use crate::ops::{Outcome, Refusal};
use crate::plan::{plan, plan_in_place, Coverage, Holders, Offer, Op, OperandDesc, Plan};
use crate::{DType, DynTensor, Scalar};

/// A tensor a front end holds in a slot, seen by the core: its slot and
/// the metadata fixed when it was made.
#[derive(Clone, Copy)]
pub struct Held<'a> {
    pub slot: &'a Slot,
    pub dtype: DType,
    pub shape: &'a [usize],
    /// How it covered its buffer when made (it can only improve later, so
    /// describing a borrowed operand with it is safe).
    pub coverage: Coverage,
}

/// A front end's own handle on a tensor it holds (the Python bindings: a
/// reference to a `Tensor` object), which the core reads as [`Held`]; a
/// clone is another handle on the same tensor.
pub trait HeldTensor: Clone {
    fn held(&self) -> Held<'_>;
}

/// One operand of a call, as the front end has it: `H` is the front end's
/// handle on a tensor it holds, kept as it is (the front end's
/// [`FrontEnd::still_temporary`] looks at it again before a claim).
pub enum Operand<H> {
    /// A number (a weak scalar), read.
    Number(Scalar),
    /// A tensor made for this call (from another library's array, a list,
    /// a NumPy scalar), offered as a temporary: nobody else sees it.
    Made(DynTensor),
    /// A front end's tensor and how it is offered.
    Held(H, Offer),
}

impl<H: HeldTensor> Operand<H> {
    /// How it is offered.
    pub fn offer(&self) -> Offer {
        match self {
            Operand::Number(_) => Offer::Borrowed,
            Operand::Made(..) => Offer::Temporary,
            Operand::Held(_, offer) => *offer,
        }
    }

    /// The shape (`[]` for numbers).
    pub fn shape(&self) -> &[usize] {
        match self {
            Operand::Number(_) => &[],
            Operand::Made(t) => t.shape(),
            Operand::Held(h, _) => h.held().shape,
        }
    }

    /// `dtype[shape]`, for messages.
    pub fn signature(&self) -> String {
        let dtype = match self {
            Operand::Number(_) => String::new(),
            Operand::Made(t) => t.dtype().to_string(),
            Operand::Held(h, _) => h.held().dtype.to_string(),
        };
        let dims: Vec<String> = self.shape().iter().map(ToString::to_string).collect();
        format!("{dtype}[{}]", dims.join(", "))
    }

    /// Step 2: this operand as planning sees it; `gates`: the slots other
    /// threads are donating (for an operation nested in another's warning
    /// handler, which does not wait for them).
    pub fn describe(
        &self,
        waiter: &impl Waiter,
        gates: Option<&DonorGates<'_>>,
    ) -> OperandDesc<'_> {
        match self {
            Operand::Number(s) => OperandDesc::scalar(*s),
            Operand::Made(t) => OperandDesc::tensor(t.dtype(), t.shape())
                .offered(Offer::Temporary, Holders::Exclusive),
            Operand::Held(h, offer) => {
                let h = h.held();
                let d = OperandDesc::tensor(h.dtype, h.shape)
                    .with_id(std::ptr::from_ref(h.slot) as usize)
                    .covering(h.coverage);
                if *offer == Offer::Borrowed {
                    d
                } else if gates.is_some_and(|g| g.is_busy(h.slot)) {
                    d.offered(*offer, Holders::Busy)
                } else {
                    let g = h.slot.lock(waiter);
                    d.offered(*offer, Holders::from(g.ownership()))
                        .covering(g.coverage())
                }
            }
        }
    }
}

/// What differs between front ends. See the [module docs](self).
///
/// # Safety
/// [`run_shared_write`](FrontEnd::run_shared_write) must run its closure
/// so that no thread reads a held tensor's data meanwhile except through
/// a reader ([`Slot::read`]): a write through a view changes a buffer that
/// other tensors share, and the ownership state excludes registered
/// readers only. (The Python bindings run it holding the interpreter, and
/// every read they make without the interpreter is through `Slot::read`.)
#[allow(unsafe_code)] // the contract above
pub unsafe trait FrontEnd {
    type Waiter: Waiter;
    /// Its handle on a tensor it holds.
    type Tensor: HeldTensor;
    /// The front end's error (the Python bindings: a Python exception).
    type Error;
    fn waiter(&self) -> &Self::Waiter;
    /// A core error as the front end's.
    fn error(e: Error) -> Self::Error;
    /// `t`, offered as a temporary when the call began, is still one:
    /// nothing but this call can reach it.
    fn still_temporary(&self, t: &Self::Tensor) -> bool;
    /// Report refused explicit donations, one message each (called only
    /// when there is at least one); an error aborts the call (before any
    /// claim, for the refusals of the plan).
    fn warn(&self, messages: Vec<String>) -> std::result::Result<(), Self::Error>;
    /// Run `f`, the claim and the kernel, which touch about `work` bytes
    /// (the Python bindings release the interpreter for large ones).
    fn run<R: Send>(&self, work: usize, f: impl FnOnce() -> R + Send) -> R;
    /// Run `f`, a write through a buffer other tensors share, with no
    /// unregistered read running meanwhile (see the trait's safety
    /// contract).
    fn run_shared_write<R>(&self, f: impl FnOnce() -> R) -> R;
    /// While a trace runs on this thread: how many buffers were made
    /// before it began ([`crate::storages_made`]). An in-place write then
    /// copies on write rather than writing through, so that a constant
    /// the trace captured keeps its value, and one into a buffer made
    /// before the trace is refused (see [`call_in_place`]).
    fn tracing_since(&self) -> Option<u64> {
        None
    }
}

/// While a trace that began when `since` buffers had been made
/// ([`crate::storages_made`]) runs: refuse a write (concrete or traced)
/// into `target` when its buffer was made before the trace. The traced
/// function runs once, so the write would happen once, when traced, and
/// the program would read the tensor as it is at each call, not as
/// written: eager code writes at every call.
pub fn check_traced_write(op: &Op, target: &DynTensor, since: u64) -> Result<()> {
    if target.buffer_serial() >= since {
        return Ok(());
    }
    Err(Error::Tracer {
        op: op.name().into(),
        reason: "writes in place into a tensor made before the trace began (a traced \
                 function's writes outside it would happen once, when traced, not at each \
                 call); pass it as an argument (donated, to update it in place) and return \
                 the new value, or write `t = t + x` instead of `t += x`"
            .into(),
    })
}

/// Retry `f` while it is [`Error::Busy`] (a write through another view of
/// the buffer, or readers of it, in other threads), waiting in between.
fn retry_busy<R>(waiter: &impl Waiter, mut f: impl FnMut() -> Result<R>) -> Result<R> {
    loop {
        match f() {
            Err(Error::Busy) => waiter.wait(&mut std::thread::yield_now),
            r => return r,
        }
    }
}

/// How a plan is run: [`crate::driver::execute::execute`], or
/// [`crate::driver::execute::execute_parts`] for every result of a function of
/// several. (A function pointer: as a type parameter, the eager `a + b`
/// took 113 more instructions per call.)
pub type Executor<R> = fn(&Plan, &mut [Arg<'_>]) -> Result<(R, Outcome)>;

/// The warning for refusal `why` of explicitly donated operand `i`.
pub fn refusal_message(plan: &Plan, i: usize, signature: &str, why: &Refusal) -> String {
    format!(
        "{}: {} ({signature}) was donated but not used: {why}; the result was computed into a new buffer and the input is unchanged",
        plan.op.name(),
        plan.op.label(i),
    )
}

/// The messages for the refusals of explicitly donated operands.
fn messages<'a>(
    plan: &Plan,
    refusals: impl Iterator<Item = &'a (usize, Refusal)>,
    signatures: &[String],
) -> Vec<String> {
    if signatures.is_empty() {
        return Vec::new(); // nothing was donated explicitly
    }
    refusals
        .filter(|(i, _)| plan.offers.get(*i) == Some(&Offer::Donated))
        .map(|(i, r)| refusal_message(plan, *i, &signatures[*i], r))
        .collect()
}

/// [`FrontEnd::warn`] for `messages`, not called when there are none (the
/// common case: nothing was donated explicitly, or every donation was
/// used), where it could only return `Ok`.
fn warn<F: FrontEnd>(fe: &F, messages: Vec<String>) -> std::result::Result<(), F::Error> {
    if messages.is_empty() {
        return Ok(());
    }
    fe.warn(messages)
}

/// About how many bytes executing `plan` touches: its allocations and its
/// operands.
fn work<'a>(plan: &Plan, shapes: impl Iterator<Item = &'a [usize]>) -> usize {
    let size = plan.dtype.size();
    shapes
        .map(|s| s.iter().fold(size, |n, &x| n.saturating_mul(x)))
        .fold(plan.allocated_bytes(), usize::saturating_add)
}

/// The signatures of every operand when one is donated explicitly (for
/// the warnings), else none.
fn signatures<H: HeldTensor>(plan: &Plan, operands: &[Operand<H>]) -> Vec<String> {
    if plan.offers.contains(&Offer::Donated) {
        operands.iter().map(Operand::signature).collect()
    } else {
        Vec::new()
    }
}

/// Run `op` over `operands` through every step (see the [module
/// docs](self)), `exec` running the plan. The operands are taken out of
/// the list (drained once planned): by reference, because a list passed by
/// value is copied into place at every call.
pub fn call<F: FrontEnd, R: Send>(
    fe: &F,
    op: &Op,
    operands: &mut SmallVec<[Operand<F::Tensor>; 3]>,
    exec: Executor<R>,
) -> std::result::Result<R, F::Error> {
    // 1. Released when `gates` drops: once the target is locked (or at an
    // early return). The donated tensors by their own handles: the
    // operands are consumed below, the gates live until the target is
    // locked.
    let donors: SmallVec<[F::Tensor; 2]> = operands
        .iter()
        .filter_map(|o| match o {
            Operand::Held(h, Offer::Donated) => Some(h.clone()),
            _ => None,
        })
        .collect();
    let gates = {
        let slots: SmallVec<[&Slot; 2]> = donors.iter().map(|h| h.held().slot).collect();
        DonorGates::enter(fe.waiter(), &slots)
    };

    // 2., 3. The plan is read where the planner returned it (moving a
    // `Plan` out of its `Result` was a `memcpy` per call).
    let planned = {
        // Pushed, not collected: `collect` returns the list by value, a
        // `memcpy` per call.
        let mut descs: SmallVec<[OperandDesc<'_>; 3]> = SmallVec::new();
        for o in operands.iter() {
            descs.push(o.describe(fe.waiter(), Some(&gates)));
        }
        plan(op, &descs)
    };
    let plan: &Plan = match &planned {
        Ok(p) => p,
        Err(e) => return Err(F::error(e.clone())),
    };
    let work = work(plan, operands.iter().map(Operand::shape));
    let signatures = signatures(plan, operands);

    // 4. Read all but a held target (which is claimed, never cloned).
    // Declared in this order so that the arguments, which borrow the
    // target's locked slot, are dropped before it. A view that allocates
    // nothing reads no element: not a read a trace must note
    // (`crate::memory::read_log`; a later read through the view is).
    let pure_view = op.is_view() && plan.allocations.is_empty();
    let logged = |f: &mut dyn FnMut() -> Result<DynTensor>| {
        if pure_view {
            crate::memory::read_log::unlogged(f)
        } else {
            f()
        }
    };
    let mut target: Option<(usize, F::Tensor, Offer)> = None;
    let mut slot: Option<SlotGuard<'_>> = None;
    let mut args: SmallVec<[Arg<'_>; 3]> = SmallVec::new();
    // Drained, not moved into an iterator: the operands stay where they
    // are (a move of the whole inline list was a `memcpy` per call).
    for (i, o) in operands.drain(..).enumerate() {
        args.push(match o {
            Operand::Number(s) => Arg::Scalar(s),
            Operand::Made(t) => Arg::Tensor(t),
            Operand::Held(h, offer) if plan.target == Some(i) && !plan.is_own_copy(i) => {
                target = Some((i, h, offer));
                Arg::Scalar(Scalar::Int(0)) // replaced below
            }
            Operand::Held(h, _) => {
                Arg::Tensor(logged(&mut || h.held().slot.read(fe.waiter())).map_err(F::error)?)
            }
        });
    }

    // 5.
    warn(fe, messages(plan, plan.refusals.iter(), &signatures))?;

    // 6. The gates are released once the target's slot is locked: from
    // there to the claim no other donor can get in.
    let (result, outcome) = match &target {
        None => {
            drop(gates);
            fe.run(work, || exec(plan, &mut args))
        }
        Some((i, h, offer)) => {
            let g = slot.insert(h.held().slot.lock(fe.waiter()));
            drop(gates);
            // A temporary was decided before the other operands were read
            // and before the warnings (front-end code that could have
            // obtained a reference to it): it must still be one.
            args[*i] = if *offer == Offer::Donated || fe.still_temporary(h) {
                Arg::Held(g)
            } else {
                // Read like a borrowed tensor: the core's claim of another
                // handle is refused, and the result goes to a new buffer.
                g.check_readable().map_err(F::error)?;
                Arg::Tensor(
                    logged(&mut || retry_busy(fe.waiter(), || g.reader_now())).map_err(F::error)?,
                )
            };
            let r = fe.run(work, || exec(plan, &mut args));
            drop(args);
            drop(slot.take()); // unlocked before any warning runs front-end code
            r
        }
    }
    .map_err(F::error)?;
    let late = messages(
        plan,
        outcome
            .refused
            .iter()
            .filter(|r| !plan.refusals.contains(r)),
        &signatures,
    );
    warn(fe, late)?;
    Ok(result)
}

/// Run `op` in place over `target`, reading `others` (an explicit
/// donation among them is refused with a warning: the result goes into
/// the target). When the target's buffer is shared (it is a view, or has
/// views, or is exported), the new values are written through into that
/// buffer, so that every view sees them, as NumPy's do.
pub fn call_in_place<F: FrontEnd>(
    fe: &F,
    op: &Op,
    target: Held<'_>,
    others: SmallVec<[Operand<F::Tensor>; 3]>,
) -> std::result::Result<Outcome, F::Error> {
    let plan = {
        let mut descs: SmallVec<[OperandDesc<'_>; 3]> = SmallVec::new();
        descs.push(OperandDesc::tensor(target.dtype, target.shape).covering(target.coverage));
        descs.extend(others.iter().map(|o| o.describe(fe.waiter(), None)));
        plan_in_place(op, &descs).map_err(F::error)?
    };
    let work = work(
        &plan,
        std::iter::once(target.shape).chain(others.iter().map(Operand::shape)),
    );
    let signatures: Vec<String> = if plan.offers.contains(&Offer::Donated) {
        std::iter::once(String::new())
            .chain(others.iter().map(Operand::signature))
            .collect()
    } else {
        Vec::new()
    };
    // The plan's refusals are reported before anything is held: a warning
    // handler is front-end code, which may run operations of its own.
    warn(fe, messages(&plan, plan.refusals.iter(), &signatures))?;
    // In-place updates of one tensor run one at a time: a write through a
    // shared buffer lets go of the slot's lock before it writes, and the
    // next update must read what it wrote.
    let _updating = target.slot.update(fe.waiter());
    // `x op= x` reads its own target: read it under the same lock as the
    // write (one critical section), so that another thread's in-place op
    // cannot land between the read and the write. Declared before the
    // arguments, which borrow it (see `call`).
    let mut slot: Option<SlotGuard<'_>> = None;
    let mut args: SmallVec<[Arg<'_>; 3]> = SmallVec::new();
    args.push(Arg::Scalar(Scalar::Int(0))); // the target, below
    let mut same: SmallVec<[usize; 2]> = SmallVec::new();
    for (i, o) in others.into_iter().enumerate() {
        args.push(match o {
            Operand::Number(s) => Arg::Scalar(s),
            Operand::Made(t) => Arg::Tensor(t),
            Operand::Held(h, _) if std::ptr::eq(h.held().slot, target.slot) => {
                same.push(i + 1);
                Arg::Scalar(Scalar::Int(0))
            }
            Operand::Held(h, _) => Arg::Tensor(h.held().slot.read(fe.waiter()).map_err(F::error)?),
        });
    }
    let g = slot.insert(target.slot.lock(fe.waiter()));
    let tracing = fe.tracing_since();
    if let Some(since) = tracing {
        check_traced_write(op, g, since).map_err(F::error)?;
    }
    // Shared (a view, its base, an exported buffer): written through, so
    // that every tensor and view of the buffer sees the new values.
    let shared = {
        let s = g.ownership();
        !s.is_exclusive() && !s.donated && tracing.is_none()
    };
    for i in same {
        g.check_readable().map_err(F::error)?;
        // An element-wise op reads each element of its own target before
        // it writes it: read through the target, so that the buffer stays
        // exclusive and is written in place. Any other op, or an operand
        // the plan casts or gathers, reads a second handle (a copy on
        // write of the target).
        let through_target = matches!(op, Op::Binary(_))
            && plan.compute == plan.dtype
            && !plan.casts.contains(&i)
            && !plan.gathers.iter().any(|&k| usize::from(k) == i);
        args[i] = if through_target {
            Arg::Target
        } else {
            Arg::Tensor(g.clone())
        };
    }
    if !shared {
        args[0] = Arg::Held(g);
        return fe
            .run(work, || execute_in_place(&plan, &mut args))
            .map_err(F::error);
    }
    // 1. The new values, computed as copy-on-write computes them (into a
    // new buffer the slot holds for now), while a reader of the shared
    // buffer keeps any write through another view out.
    let base = retry_busy(fe.waiter(), || g.reader_now()).map_err(F::error)?;
    args[0] = Arg::Held(g);
    let outcome = fe
        .run(work, || execute_in_place(&plan, &mut args))
        .map_err(F::error)?;
    // 2. The slot gets its handle on the shared buffer back; every read
    // handle and the lock are released before the write waits for other
    // readers (a thread holding a reader may be waiting for this lock).
    let (new, mut to) = match args.first_mut() {
        Some(Arg::Held(g)) => {
            let new = std::mem::replace(&mut **g, base);
            g.settle();
            (new, g.clone())
        }
        _ => {
            return Err(F::error(Error::InvalidArgument {
                op: "call_in_place",
                reason: "the target must be held".into(),
            }))
        }
    };
    drop(args);
    drop(slot);
    // 3. The write. A thread that still holds a reader runs inside another
    // operation (its warning handler): waiting for readers could be
    // waiting for itself, so a busy buffer is an error there.
    let nested = crate::memory::buffer::reading();
    fe.run_shared_write(|| loop {
        // SAFETY: `run_shared_write`'s contract: no unregistered read runs
        // meanwhile.
        #[allow(unsafe_code)]
        match unsafe { to.write_through(&new) } {
            Err(Error::Busy) if nested => {
                return Err(Error::InvalidArgument {
                    op: op.name(),
                    reason: "writes through a buffer that is being read while an operation \
                             on this thread reads (an in-place update from a warning \
                             handler): waiting could be waiting for itself"
                        .into(),
                })
            }
            Err(Error::Busy) => fe.waiter().wait(&mut std::thread::yield_now),
            r => return r,
        }
    })
    .map_err(F::error)?;
    Ok(outcome)
}

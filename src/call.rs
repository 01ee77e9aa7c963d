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
//! 6. **Lock, re-check, claim and run** ([`crate::execute::execute`], in
//!    [`FrontEnd::run`]): the target's slot is locked and the gates
//!    released; a temporary is checked again ([`FrontEnd::still_temporary`]:
//!    the front end's own code may have run since step 2); if another
//!    holder appeared, the core computes into a new buffer and the late
//!    refusal is reported afterwards.
//!
//! The typed Rust API and the runner of planned programs enter at step 6
//! directly ([`crate::execute::execute`]): their operands are Rust values
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

use smallvec::SmallVec;

use crate::error::{Error, Result};
use crate::execute::{execute_in_place, Arg};
use crate::ops::{Outcome, Refusal};
use crate::plan::{plan, plan_in_place, Coverage, Holders, Offer, Op, OperandDesc, Plan};
use crate::promote::OperandDType;
use crate::slot::{DonorGates, Slot, SlotGuard, Waiter};
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
    /// a NumPy scalar), offered as a temporary: nobody else sees it. With
    /// the dtype the data had, for type promotion.
    Made(DynTensor, OperandDType),
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
            Operand::Made(t, _) => t.shape(),
            Operand::Held(h, _) => h.held().shape,
        }
    }

    /// `dtype[shape]`, for messages.
    pub fn signature(&self) -> String {
        let dtype = match self {
            Operand::Number(_) => String::new(),
            Operand::Made(t, _) => t.dtype().to_string(),
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
            Operand::Made(t, had) => {
                OperandDesc::tensor(*had, t.shape()).offered(Offer::Temporary, Holders::Exclusive)
            }
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
pub trait FrontEnd {
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
    /// Report refused explicit donations, one message each; an error
    /// aborts the call (before any claim, for the refusals of the plan).
    fn warn(&self, messages: Vec<String>) -> std::result::Result<(), Self::Error>;
    /// Run `f`, the claim and the kernel, which touch about `work` bytes
    /// (the Python bindings release the interpreter for large ones).
    fn run<R: Send>(&self, work: usize, f: impl FnOnce() -> R + Send) -> R;
}

/// How a plan is run: [`crate::execute::execute`], or
/// [`crate::execute::execute_parts`] for every result of a function of
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
/// docs](self)), `exec` running the plan.
pub fn call<F: FrontEnd, R: Send>(
    fe: &F,
    op: &Op,
    operands: SmallVec<[Operand<F::Tensor>; 3]>,
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

    // 2., 3.
    let plan = {
        let descs: SmallVec<[OperandDesc<'_>; 3]> = operands
            .iter()
            .map(|o| o.describe(fe.waiter(), Some(&gates)))
            .collect();
        plan(op, &descs).map_err(F::error)?
    };
    let work = work(&plan, operands.iter().map(Operand::shape));
    let signatures = signatures(&plan, &operands);

    // 4. Read all but a held target (which is claimed, never cloned).
    // Declared in this order so that the arguments, which borrow the
    // target's locked slot, are dropped before it.
    let mut target: Option<(usize, F::Tensor, Offer)> = None;
    let mut slot: Option<SlotGuard<'_>> = None;
    let mut args: SmallVec<[Arg<'_>; 3]> = SmallVec::new();
    for (i, o) in operands.into_iter().enumerate() {
        args.push(match o {
            Operand::Number(s) => Arg::Scalar(s),
            Operand::Made(t, _) => Arg::Tensor(t),
            Operand::Held(h, offer) if plan.target == Some(i) && !plan.is_own_copy(i) => {
                target = Some((i, h, offer));
                Arg::Scalar(Scalar::Int(0)) // replaced below
            }
            Operand::Held(h, _) => Arg::Tensor(h.held().slot.read(fe.waiter()).map_err(F::error)?),
        });
    }

    // 5.
    fe.warn(messages(&plan, plan.refusals.iter(), &signatures))?;

    // 6. The gates are released once the target's slot is locked: from
    // there to the claim no other donor can get in.
    let (result, outcome) = match &target {
        None => {
            drop(gates);
            fe.run(work, || exec(&plan, &mut args))
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
                Arg::Tensor(g.clone())
            };
            let r = fe.run(work, || exec(&plan, &mut args));
            drop(args);
            drop(slot.take()); // unlocked before any warning runs front-end code
            r
        }
    }
    .map_err(F::error)?;
    let late = messages(
        &plan,
        outcome
            .refused
            .iter()
            .filter(|r| !plan.refusals.contains(r)),
        &signatures,
    );
    fe.warn(late)?;
    Ok(result)
}

/// Run `op` in place over `target`, reading `others` (an explicit
/// donation among them is refused with a warning: the result goes into
/// the target). Copy-on-write when the target's buffer is shared.
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
            Operand::Made(t, _) => Arg::Tensor(t),
            Operand::Held(h, _) if std::ptr::eq(h.held().slot, target.slot) => {
                same.push(i + 1);
                Arg::Scalar(Scalar::Int(0))
            }
            Operand::Held(h, _) => Arg::Tensor(h.held().slot.read(fe.waiter()).map_err(F::error)?),
        });
    }
    fe.warn(messages(&plan, plan.refusals.iter(), &signatures))?;
    let g = slot.insert(target.slot.lock(fe.waiter()));
    for i in same {
        g.check_readable().map_err(F::error)?;
        args[i] = Arg::Tensor(g.clone());
    }
    args[0] = Arg::Held(g);
    fe.run(work, || execute_in_place(&plan, &mut args))
        .map_err(F::error)
}

//! The operands of one operation: how each is offered, and the one call
//! sequence every operation goes through ([`call`], [`call_in_place`]).
//!
//! The decisions (result dtype and shape, validation, which operand's
//! buffer receives the result, why others do not) are the core's
//! ([`donate::plan`]). The bindings supply what only the interpreter
//! knows, and sequence the steps so that a failure at any step leaves
//! every input as it was:
//!
//! 1. **Describe** each operand: a temporary ([`Offer::Temporary`], decided
//!    by the interpreter checks in [`super::temporary`]), an explicit donation
//!    ([`Offer::Donated`]), or a named tensor ([`Offer::Borrowed`]); for an
//!    offered tensor, who else holds its buffer now.
//! 2. **Plan** ([`donate::plan::plan`]): every error is raised here, before
//!    any buffer is touched.
//! 3. **Read** every operand but the target: another handle on its buffer
//!    (`DonatedError` here if it was donated).
//! 4. **Warn** for each explicit donation the plan refused, before any
//!    buffer is claimed, so that a warning turned into an error cannot
//!    leave a half-done donation.
//! 5. **Claim and compute** ([`donate::execute::execute`], interpreter
//!    released) with the target's slot locked: a temporary is checked
//!    again first (only the evaluation stack and this call may refer to
//!    it, now that no Python code runs before the claim); if another
//!    holder appeared, the core computes into a new buffer and the late
//!    refusal is warned about afterwards.
//!
//! Threads: each tensor's slot ([`donate::slot::Slot`]) has a fair lock,
//! held for a moment (a clone, metadata) or across a claim and its kernel,
//! and a donor gate that gives racing explicit donations of one tensor
//! exactly one winner ([`DonorGates`]). The interpreter is released while a
//! thread waits for either. An in-place op that reads its own target
//! (`t.sub_(t)`) reads it under the same lock as it writes.

use pyo3::prelude::*;
use smallvec::SmallVec;

use super::errors::{warn_all, warning, IntoPyResult};
pub(crate) use super::inputs::{Input, Inputs, Source};
use super::tensor::{read, Interp, PyTensor};
use donate::execute::{execute, execute_in_place, execute_parts, Arg};
use donate::plan::{plan, plan_in_place, FreshOp, Offer, Op, OperandDesc, Plan};
use donate::slot::{DonorGates, Slot, SlotGuard};
use donate::{DynTensor, Outcome, Refusal, Scalar};

/// The one tensor operand of a function whose result's shape depends on
/// its values (`nonzero`, `unique_*`), read as it is: such a function is
/// not planned (nothing can be planned before its values are known), its
/// result is new buffers, and an explicitly donated input is not consumed
/// (a `DonationWarning` says so). A tracer raises `TracerError` naming the
/// function and `why`: a traced program plans every shape before it runs.
pub(crate) fn read_value_shaped(x: &Bound<'_, PyAny>, op: &str, why: &str) -> PyResult<DynTensor> {
    let input = super::ownership::require_tensor(x, op)?;
    if input.is_tracer() {
        return Err(super::tracing::value_shaped(op, why));
    }
    if input.offer == Offer::Donated {
        let w = super::errors::unplanned_warning(op, &input.signature());
        warn_all(x.py(), vec![w])?;
    }
    match &input.src {
        Source::Tensor(t) => read(x.py(), t.get()),
        Source::Temp(t, _) => Ok(t.clone()),
        Source::Scalar(s) => DynTensor::full(s.tensor_dtype(), &[], *s).py(),
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
    if inputs.iter().any(Input::is_tracer) {
        return super::jit::record(py, op, inputs);
    }
    run_planned(py, op, inputs, execute).map(PyTensor::new)
}

/// Run a function whose result is always a new buffer.
pub(crate) fn call_fresh<'py>(
    py: Python<'py>,
    f: FreshOp,
    inputs: Inputs<'py>,
) -> PyResult<PyTensor> {
    call(py, &Op::Fresh(Box::new(f)), inputs)
}

/// A function of one tensor operand that always writes a new buffer.
pub(crate) fn call_fresh1(x: &Bound<'_, PyAny>, f: FreshOp) -> PyResult<PyTensor> {
    let input = super::ownership::require_tensor(x, f.name())?;
    call_fresh(x.py(), f, smallvec::smallvec![input])
}

/// Every result of a function of several (`meshgrid`, `linalg.eigh`):
/// `part(i)` is the op of result `i`. Eagerly, the function runs once
/// (planned as its last result). Traced, each result is its own op over
/// the same operands (a program computes a decomposition once per result
/// it uses); the explicit donations are offered to the last one only, so
/// that a donation is a last use.
pub(crate) fn call_parts<'py>(
    py: Python<'py>,
    parts: usize,
    part: impl Fn(usize) -> FreshOp,
    inputs: Inputs<'py>,
) -> PyResult<Vec<PyTensor>> {
    let last = Op::Fresh(Box::new(part(parts.saturating_sub(1))));
    if !inputs.iter().any(Input::is_tracer) {
        let all = run_planned(py, &last, inputs, execute_parts)?;
        return Ok(all.into_iter().map(PyTensor::new).collect());
    }
    let mut out = Vec::with_capacity(parts);
    for i in 0..parts.saturating_sub(1) {
        let borrowed = inputs
            .iter()
            .map(|x| {
                let src = match &x.src {
                    Source::Tensor(t) => Source::Tensor(t.clone()),
                    Source::Temp(t, d) => Source::Temp(t.clone(), *d),
                    Source::Scalar(s) => Source::Scalar(*s),
                };
                Input::new(src, Offer::Borrowed)
            })
            .collect();
        out.push(super::jit::record(
            py,
            &Op::Fresh(Box::new(part(i))),
            borrowed,
        )?);
    }
    out.push(super::jit::record(py, &last, inputs)?);
    Ok(out)
}

/// How a plan is run: [`execute`], or [`execute_parts`] for every result
/// of a function of several. (A function pointer: as a type parameter,
/// the eager `a + b` took 113 more instructions per call, measured with
/// `benches/percall.py --count`.)
type Executor<R> = fn(&Plan, &mut [Arg<'_>]) -> donate::Result<(R, Outcome)>;

/// The steps of [`call`] for concrete operands, `exec` running the plan.
fn run_planned<'py, R: Send>(
    py: Python<'py>,
    op: &Op,
    inputs: Inputs<'py>,
    exec: Executor<R>,
) -> PyResult<R> {
    // Released when `gates` drops: once the target is locked (or at an
    // early return).
    // The explicitly donated tensors (their own references: the operands
    // are consumed below, the gates live until the target is locked).
    let donors: SmallVec<[Bound<'py, PyTensor>; 2]> = inputs
        .iter()
        .filter_map(|i| match (i.offer, &i.src) {
            (Offer::Donated, Source::Tensor(t)) => Some(t.clone()),
            _ => None,
        })
        .collect();
    let gates = {
        let slots: SmallVec<[&Slot; 2]> = donors.iter().map(|t| &t.get().slot).collect();
        DonorGates::enter(&Interp(py), &slots)
    };

    // 1., 2.
    let plan = {
        let descs: SmallVec<[OperandDesc<'_>; 3]> = inputs
            .iter()
            .map(|i| i.describe(py, Some(&gates)))
            .collect();
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
            Source::Tensor(obj) if plan.target == Some(i) && !plan.is_own_copy(i) => {
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
            super::arena::detach(py, work, || exec(&plan, &mut args)).py()?
        }
        Some((i, obj, offer)) => {
            let g = slot.insert(obj.get().slot.lock(&Interp(py)));
            drop(gates);
            // A temporary was decided before the other operands were read
            // and before the warnings (Python code that could have
            // obtained a reference to it): it must still be one.
            args[*i] =
                if *offer == Offer::Donated || super::temporary::still_temporary(obj.as_any()) {
                    Arg::Held(g)
                } else {
                    // Read like a named tensor: the core's claim of another
                    // handle is refused, and the result goes to a new buffer.
                    g.check_readable().py()?;
                    Arg::Tensor(g.clone())
                };
            let r = super::arena::detach(py, work, || exec(&plan, &mut args));
            drop(args);
            drop(slot.take()); // unlocked before any warning runs Python code
            r.py()?
        }
    };
    let late = warnings(
        &plan,
        outcome
            .refused
            .iter()
            .filter(|r| !plan.refusals.contains(r)),
        &signatures,
    );
    warn_all(py, late)?;
    Ok(result)
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
    if target.get().tracer().is_some() || others.iter().any(Input::is_tracer) {
        return super::jit::record_update(py, op, target, others);
    }
    let me = target.get();
    let plan = {
        let mut descs: SmallVec<[OperandDesc<'_>; 3]> = SmallVec::new();
        descs.push(OperandDesc::tensor(me.dtype, &me.shape).covering(me.coverage));
        descs.extend(others.iter().map(|i| i.describe(py, None)));
        plan_in_place(op, &descs).py()?
    };
    let work = work(
        &plan,
        std::iter::once(&me.shape[..]).chain(others.iter().map(Input::shape)),
    );
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
    let g = slot.insert(me.slot.lock(&Interp(py)));
    for i in same {
        g.check_readable().py()?;
        args[i] = Arg::Tensor(g.clone());
    }
    args[0] = Arg::Held(g);
    super::arena::detach(py, work, || execute_in_place(&plan, &mut args)).py()
}

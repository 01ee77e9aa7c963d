//! The operands of one operation as the bindings pass them to the core's
//! call sequence ([`donate::driver::call`]: gates, describe, plan, read, warn,
//! lock, re-check, claim and run), and what only the interpreter knows
//! ([`Front`]): whether an operand offered as a temporary is still one,
//! how a thread waits (the interpreter released), how a refused donation
//! is reported (`DonationWarning`), and which kernels run detached.
//!
//! A tracer among the operands records the operation instead
//! ([`super::jit::record`]); a function whose result's shape depends on
//! its values is read unplanned ([`read_value_shaped`]).

use pyo3::prelude::*;

use super::errors::{warn_all, IntoPyResult};
pub(crate) use super::inputs::{is_tracer, kept, Input, Inputs, TensorRef};
use super::tensor::{read, Interp, PyTensor};
use donate::driver::call::{Executor, FrontEnd, HeldTensor, Operand};
use donate::driver::execute::{execute, execute_parts};
use donate::plan::{FreshOp, Offer, Op};
use donate::{DynTensor, Outcome};

/// The one tensor operand of a function whose result's shape depends on
/// its values (`nonzero`, `unique_*`), read as it is: such a function is
/// not planned (nothing can be planned before its values are known), its
/// result is new buffers, and an explicitly donated input is not consumed
/// (a `DonationWarning` says so). A tracer raises `TracerError` naming the
/// function and `why`: a traced program plans every shape before it runs.
pub(crate) fn read_value_shaped(x: &Bound<'_, PyAny>, op: &str, why: &str) -> PyResult<DynTensor> {
    let input = super::ownership::require_tensor(x, op)?;
    if is_tracer(&input) {
        return Err(super::tracing::value_shaped(op, why));
    }
    if input.offer() == Offer::Donated {
        let w = super::errors::unplanned_warning(op, &input.signature());
        warn_all(x.py(), vec![w])?;
    }
    value_of(x.py(), &input)
}

/// An operand's value as it is: another handle on a tensor's buffer, a
/// number as a 0-d tensor of its own dtype.
pub(crate) fn value_of(py: Python<'_>, input: &Input<'_>) -> PyResult<DynTensor> {
    match input {
        Operand::Held(t, _) => read(py, t.get()),
        Operand::Made(t) => Ok(t.clone()),
        Operand::Number(s) => DynTensor::full(s.tensor_dtype(), &[], *s).py(),
    }
}

/// Run `op` over `inputs` (see the [module docs](self) for the steps).
pub(crate) fn call<'py>(py: Python<'py>, op: &Op, mut inputs: Inputs<'py>) -> PyResult<PyTensor> {
    if inputs.iter().any(is_tracer) {
        return super::jit::record(py, op, inputs);
    }
    run_planned(py, op, &mut inputs, execute).map(PyTensor::new)
}

/// [`call`], its result as a Python object: the tensor is made where the
/// object is (returning a `PyTensor` from `call` and moving it into
/// `Py::new` was two `memcpy` calls of the object per operator).
pub(crate) fn call_object<'py>(
    py: Python<'py>,
    op: &Op,
    mut inputs: Inputs<'py>,
) -> PyResult<Py<PyAny>> {
    if inputs.iter().any(is_tracer) {
        return Ok(Py::new(py, super::jit::record(py, op, inputs)?)?.into_any());
    }
    let t = run_planned(py, op, &mut inputs, execute)?;
    Ok(Py::new(py, PyTensor::new(t))?.into_any())
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
    mut inputs: Inputs<'py>,
) -> PyResult<Vec<PyTensor>> {
    let last = Op::Fresh(Box::new(part(parts.saturating_sub(1))));
    if !inputs.iter().any(is_tracer) {
        let all = run_planned(py, &last, &mut inputs, execute_parts)?;
        return Ok(all.into_iter().map(PyTensor::new).collect());
    }
    let mut out = Vec::with_capacity(parts);
    for i in 0..parts.saturating_sub(1) {
        let borrowed = inputs
            .iter()
            .map(|x| match x {
                Operand::Held(t, _) => Operand::Held(t.clone(), Offer::Borrowed),
                Operand::Made(t) => Operand::Made(t.clone()),
                Operand::Number(s) => Operand::Number(*s),
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

/// The Python bindings as a front end of the core's call sequence: the
/// interpreter released while waiting and for large kernels, the
/// temporary re-check on the `Tensor` object, refusals raised as
/// `DonationWarning`.
struct Front<'py>(Interp<'py>);

// SAFETY: a write through a shared buffer runs holding the interpreter
// (`run_shared_write` calls it in place), and the module is declared
// `gil_used = true`, so no other thread runs Python-facing code meanwhile;
// every read these bindings make without the interpreter (a kernel run by
// `run`, a jit run) reads handles from `Slot::read`, which are readers.
#[allow(unsafe_code)]
unsafe impl<'py> FrontEnd for Front<'py> {
    type Waiter = Interp<'py>;
    type Tensor = TensorRef<'py>;
    type Error = PyErr;

    fn waiter(&self) -> &Interp<'py> {
        &self.0
    }

    fn error(e: donate::Error) -> PyErr {
        super::errors::to_py(&e)
    }

    fn still_temporary(&self, t: &TensorRef<'py>) -> bool {
        super::temporary::still_temporary(t.as_any())
    }

    fn warn(&self, messages: Vec<String>) -> PyResult<()> {
        warn_all(self.0 .0, messages)
    }

    fn run<R: Send>(&self, work: usize, f: impl FnOnce() -> R + Send) -> R {
        super::arena::detach(self.0 .0, work, f)
    }

    fn run_shared_write<R>(&self, f: impl FnOnce() -> R) -> R {
        f()
    }

    fn tracing_since(&self) -> Option<u64> {
        super::tracing::current_trace_since()
    }
}

/// The steps of [`call`] for concrete operands (the core's
/// [`donate::driver::call::call`]), `exec` running the plan.
fn run_planned<'py, R: Send>(
    py: Python<'py>,
    op: &Op,
    inputs: &mut Inputs<'py>,
    exec: Executor<R>,
) -> PyResult<R> {
    donate::driver::call::call(&Front(Interp(py)), op, inputs, exec)
}

/// Run `op` in place over `target`, reading `others` (an explicit
/// donation among them is refused with a warning: the result goes into
/// the target). Written through when the target's buffer is shared.
pub(crate) fn call_in_place<'py>(
    py: Python<'py>,
    op: &Op,
    target: &Bound<'py, PyTensor>,
    others: Inputs<'py>,
) -> PyResult<Outcome> {
    if target.get().tracer().is_some() || others.iter().any(is_tracer) {
        return super::jit::record_update(py, op, target, others);
    }
    let target = TensorRef(target.clone());
    donate::driver::call::call_in_place(&Front(Interp(py)), op, target.held(), others)
}

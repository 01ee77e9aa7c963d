//! The `donate.Tensor` class: attributes, conversions, the buffer protocol,
//! and the methods and operators (implemented in [`super::ops`]).
//!
//! The class is frozen: its shape and dtype never change, and the core
//! tensor (a handle on a buffer) sits behind a mutex, see
//! [`super::operands`] for how it is locked.

// PyO3 expands the class's `#[pymethods]` (generated from the tables
// below by `macro_rules!`) into slot functions at module level that call
// its own `unsafe fn`s without an `unsafe` block; inside a macro expansion
// the crate's `unsafe_op_in_unsafe_fn = deny` reaches that generated code.
// Hand-written `unsafe` here still goes in `unsafe {}` blocks with a
// `// SAFETY:` comment (clippy's `undocumented_unsafe_blocks`).
#![allow(unsafe_op_in_unsafe_fn)]

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;

use super::errors::{DonatedError, IntoPyResult};
use donate::memory::slot::{Slot, Waiter};
use donate::plan::Coverage;
use donate::{DType, DynTensor};

/// A tensor whose buffer knows who owns it.
// A free list of tensor objects, as NumPy keeps for its scalars: an eager
// loop of small operations reuses the objects it frees instead of asking
// the interpreter's allocator each time.
#[pyclass(module = "donate", name = "Tensor", frozen, freelist = 64)]
pub(crate) struct PyTensor {
    /// The core tensor behind its lock and donor gate.
    pub(crate) slot: Slot,
    pub(crate) shape: donate::array::shape::Dims,
    pub(crate) dtype: DType,
    /// How the tensor covered its buffer when it was made. It can only
    /// improve later (a copy on write makes a view whole), so planning a
    /// borrowed operand with it is safe: a contiguous tensor is never
    /// described as anything else.
    pub(crate) coverage: Coverage,
    /// A tracer: the program variable it stands for (empty for a tensor
    /// with data; see [`super::jit`]). Set once: a tensor made while
    /// tracing becomes a tracer when a traced value updates it in place.
    tracer: std::sync::OnceLock<Box<super::tracing::Tracer>>,
}

impl PyTensor {
    pub(crate) fn new(t: DynTensor) -> Self {
        PyTensor {
            shape: donate::array::shape::dims(t.shape()),
            dtype: t.dtype(),
            coverage: t.coverage(),
            slot: Slot::new(t),
            tracer: std::sync::OnceLock::new(),
        }
    }

    /// The tracer this tensor is, if it is one.
    pub(crate) fn tracer(&self) -> Option<&super::tracing::Tracer> {
        self.tracer.get().map(|b| &**b)
    }

    /// Make this tensor (made while tracing) a tracer; false if it already
    /// is one.
    pub(crate) fn become_tracer(&self, tracer: super::tracing::Tracer) -> bool {
        self.tracer.set(Box::new(tracer)).is_ok()
    }

    /// A tracer of `dtype` and `shape`. Its slot holds an empty tensor
    /// that nothing reads: every path to a value raises `TracerError`
    /// first.
    pub(crate) fn traced(tracer: super::tracing::Tracer, dtype: DType, shape: &[usize]) -> Self {
        PyTensor {
            shape: donate::array::shape::dims(shape),
            dtype,
            coverage: Coverage::Whole,
            slot: Slot::new(
                DynTensor::zeros(dtype, &[0]).unwrap_or_else(|_| unreachable!("an empty tensor")),
            ),
            tracer: std::sync::OnceLock::from(Box::new(tracer)),
        }
    }

    pub(crate) fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    pub(crate) fn shape_str(&self) -> String {
        format!(
            "{}[{}]",
            self.dtype,
            self.shape
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    /// `TracerError` naming `what` for a tracer.
    pub(crate) fn check_traced(&self, what: &str) -> PyResult<()> {
        match self.tracer() {
            Some(_) => Err(super::tracing::needs_value(what)),
            None => Ok(()),
        }
    }

    /// `DonatedError` naming `what` if the data is gone.
    pub(crate) fn check_live(&self, py: Python<'_>, what: &str) -> PyResult<()> {
        self.check_traced(what)?;
        let g = self.slot.lock(&Interp(py));
        if g.is_donated() {
            let by = g
                .consumed_by()
                .map(|op| format!(" (its buffer was consumed by {op})"))
                .unwrap_or_default();
            return Err(DonatedError::new_err(format!(
                "{what}: Tensor has been donated with shape={}{by}; its data can no longer be read or written",
                self.shape_str()
            )));
        }
        Ok(())
    }
}

/// A tensor marked for explicit donation: `t.donate()`. The first
/// operation it is passed to may write its result into `t`'s buffer,
/// leaving `t` donated; if the buffer cannot be used (shared, exported,
/// wrong shape or dtype), `t` stays intact and a `DonationWarning` says
/// why. A wrapper can be used once.
#[pyclass(module = "donate", name = "Donated", frozen)]
pub(crate) struct PyDonated {
    pub(crate) tensor: Py<PyTensor>,
    pub(crate) used: AtomicBool,
}

impl PyDonated {
    pub(crate) fn new(tensor: Py<PyTensor>) -> Self {
        PyDonated {
            tensor,
            used: AtomicBool::new(false),
        }
    }

    /// Hand out the tensor once.
    pub(crate) fn consume<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTensor>> {
        if self.used.swap(true, Ordering::AcqRel) {
            return Err(DonatedError::new_err(
                "this Donated wrapper was already used by an operation; call .donate() on a live tensor again",
            ));
        }
        Ok(self.tensor.bind(py).clone())
    }
}

/// The interpreter is released while a thread waits for a slot or a
/// donor gate (see [`donate::memory::slot`]).
#[derive(Clone, Copy)]
pub(crate) struct Interp<'py>(pub(crate) Python<'py>);

impl Waiter for Interp<'_> {
    fn wait(&self, f: &mut (dyn FnMut() + Send)) {
        self.0.detach(f);
    }
}

/// Another handle on a tensor's buffer (`DonatedError` if it was donated,
/// `TracerError` for a tracer).
pub(crate) fn read(py: Python<'_>, t: &PyTensor) -> PyResult<DynTensor> {
    if t.tracer().is_some() {
        return Err(super::tracing::needs_value(
            "reading a traced tensor's data",
        ));
    }
    t.slot.read(&Interp(py)).py()
}

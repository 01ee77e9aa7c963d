//! `Donated`'s methods: the operators of `Tensor`'s one table
//! ([`super::ops::binary_operators`]), each with the wrapper's tensor
//! offered as donated, and what a wrapper answers about itself.

// PyO3's `#[pymethods]` code for the binary operator slots (`__add__`
// with `__radd__`), generated in a module other than the class's, calls
// its unsafe slot functions without an `unsafe` block of its own: the
// lint fires on macro output, not on code written here (this file has no
// `unsafe`).
#![allow(unsafe_op_in_unsafe_fn)]

use numpy::PyArrayDescr;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use smallvec::smallvec;

use super::interop::np_dtype;
use super::operands::call;
use super::tensor::{Interp, PyDonated, PyTensor};
use donate::kernels::Func;
use donate::plan::Op;
use donate::{BinaryOp, UnaryOp};
use std::sync::atomic::Ordering;

/// `Donated`'s methods, the operators from one table.
macro_rules! donated_methods {
    (
        operators: [$($f:ident, $r:ident => $op:expr),* $(,)?];
        comparisons: [$($c:ident => $cop:ident),* $(,)?];
        $($rest:tt)*
    ) => {
        #[pymethods]
        impl PyDonated {
            $(
            fn $f(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                super::ops::dunder(self.input(other.py())?, other, &$op, false)
            }
            fn $r(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                super::ops::dunder(self.input(other.py())?, other, &$op, true)
            }
            )*
            $(
            /// An element-wise comparison (a bool tensor): the donated
            /// buffer receives it only when it is bool itself.
            fn $c(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let py = other.py();
                if let Some(all) = super::ops::never_equal(self.tensor.get(), other, Func::$cop)? {
                    return Ok(Py::new(py, all)?.into_any());
                }
                super::ops::dunder(self.input(other.py())?, other, &Op::Func(Func::$cop), false)
            }
            )*
            $($rest)*
        }
    };
}

// The same operators as `Tensor`'s (the one table, `binary_operators!`),
// each with the wrapper's tensor offered as donated.
super::ops::binary_operators! { donated_methods {} {
    /// `self ** other` (`modulo` is not supported).
    fn __pow__(&self, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        super::ops::no_modulo(modulo)?;
        super::ops::dunder(self.input(other.py())?, other, &Op::Func(Func::Pow), false)
    }
    fn __rpow__(&self, other: &Bound<'_, PyAny>, modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        super::ops::no_modulo(modulo)?;
        super::ops::dunder(self.input(other.py())?, other, &Op::Func(Func::Pow), true)
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<PyTensor> {
        call(py, &Op::Func(Func::BitwiseInvert), smallvec![self.input(py)?])
    }
    fn __pos__(&self, py: Python<'_>) -> PyResult<PyTensor> {
        call(py, &Op::Func(Func::Positive), smallvec![self.input(py)?])
    }

    /// Whether an operation already took this wrapper.
    #[getter]
    fn used(&self) -> bool {
        self.used.load(Ordering::Acquire)
    }

    /// The donated tensor's shape (reading it takes nothing).
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.tensor.bind(py).get().shape)
    }

    /// The donated tensor's dtype.
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> Bound<'py, PyArrayDescr> {
        np_dtype(py, self.tensor.bind(py).get().dtype)
    }

    /// The donated tensor's number of dimensions.
    #[getter]
    fn ndim(&self, py: Python<'_>) -> usize {
        self.tensor.bind(py).get().shape.len()
    }

    /// NumPy's conversion of a wrapper: refused, a `TypeError` (NumPy
    /// would otherwise make an object array holding it, and the donation
    /// would go unanswered).
    #[pyo3(signature = (*_args, **_kwargs))]
    #[allow(clippy::unused_self)] // (a method: NumPy looks it up on the instance)
    fn __array__(
        &self,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "a Donated wrapper is not data: give it to a donate operation, or convert the tensor itself (np.asarray(t))",
        ))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let t = self.tensor.bind(py).get();
        let g = t.slot.lock(&Interp(py));
        let state = if self.used.load(Ordering::Acquire) {
            "used"
        } else if g.is_donated() {
            "consumed"
        } else {
            "pending"
        };
        format!("Donated(shape={:?}, dtype={}, {state})", t.shape, t.dtype)
    }

    fn __matmul__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        super::ops::dunder(self.input(other.py())?, other, &Op::Matmul, false)
    }
    fn __rmatmul__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        super::ops::dunder(self.input(other.py())?, other, &Op::Matmul, true)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<PyTensor> {
        call(py, &Op::Unary(UnaryOp::Neg), smallvec![self.input(py)?])
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<PyTensor> {
        call(py, &Op::Unary(UnaryOp::Abs), smallvec![self.input(py)?])
    }
}}

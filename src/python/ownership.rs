//! Turning a Python argument into an operand with the right [`Offer`],
//! and the `Donated` wrapper for explicit donation.
//!
//! | the operand is ...                              | its buffer              |
//! |-------------------------------------------------|-------------------------|
//! | a temporary (see [`super::temporary::is_temporary`])         | reused silently when it fits |
//! | `t.donate()`, or `self` of `t.<op>_donate()`     | reused when it fits and is exclusive; else copied with a `DonationWarning`; `t` is donated only if reused |
//! | anything else (a name, a container item, an argument of a Python function) | never written |

// PyO3 expands the class's `#[pymethods]` (generated from the tables
// below by `macro_rules!`) into slot functions at module level that call
// its own `unsafe fn`s without an `unsafe` block; inside a macro expansion
// the crate's `unsafe_op_in_unsafe_fn = deny` reaches that generated code.
// Hand-written `unsafe` here still goes in `unsafe {}` blocks with a
// `// SAFETY:` comment (clippy's `undocumented_unsafe_blocks`).
#![allow(unsafe_op_in_unsafe_fn)]

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::prelude::*;
use smallvec::smallvec;

use super::errors::{DonatedError, IntoPyResult};
use super::interop;
use super::operands::{call, Input, Source};
use super::temporary::offer_of;
use super::tensor::PyTensor;
use crate::kernels::Func;
use crate::plan::{Offer, Op};
use crate::{BinaryOp, DynTensor, UnaryOp};

/// `self` of a method as an operand (checked before any new reference to
/// it exists).
pub(crate) fn self_input<'py>(slf: &Bound<'py, PyTensor>) -> Input<'py> {
    let me = slf.get();
    let offer = offer_of(
        slf.as_any(),
        me.shape.iter().product::<usize>() * me.dtype.size(),
        super::temporary::Role::Receiver,
    );
    Input::new(Source::Tensor(slf.clone()), offer)
}

/// `self` of an explicit-donation method.
pub(crate) fn donated_self<'py>(slf: &Bound<'py, PyTensor>) -> Input<'py> {
    Input::new(Source::Tensor(slf.clone()), Offer::Donated)
}

/// Any operand argument: a tensor, a `Donated` wrapper, a Python number,
/// or array-like data (converted into a new tensor). `Ok(None)` for other
/// types, so that operators can return `NotImplemented`.
pub(crate) fn input_from<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Input<'py>>> {
    let py = obj.py();
    // The temporary check must come first: nothing may take a reference
    // to `obj` before it.
    if let Ok(t) = obj.cast::<PyTensor>() {
        let me = t.get();
        let offer = offer_of(
            obj,
            me.shape.iter().product::<usize>() * me.dtype.size(),
            super::temporary::Role::Argument,
        );
        return Ok(Some(Input::new(Source::Tensor(t.clone()), offer)));
    }
    if let Ok(d) = obj.cast::<PyDonated>() {
        let t = d.get().consume(py)?;
        return Ok(Some(Input::new(Source::Tensor(t), Offer::Donated)));
    }
    // NumPy scalars first: `numpy.float64` subclasses `float`, but NumPy
    // scalars are strongly typed (NEP 50), not weak like Python numbers.
    let numpy_like = interop::is_numpy(py, obj)?;
    if !numpy_like {
        if let Some(s) = interop::scalar_arg(obj)? {
            return Ok(Some(Input::new(Source::Scalar(s), Offer::Borrowed)));
        }
    }
    let array_like = numpy_like
        || obj.is_instance_of::<pyo3::types::PyList>()
        || obj.is_instance_of::<pyo3::types::PyTuple>();
    if array_like {
        let (t, had) = interop::to_operand(py, obj, numpy_like)?;
        return Ok(Some(Input::new(Source::Temp(t, had), Offer::Temporary)));
    }
    Ok(None)
}

/// Like [`input_from`], but a `TypeError` for unsupported types.
pub(crate) fn require_input<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Input<'py>> {
    match input_from(obj)? {
        Some(i) => Ok(i),
        None => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{what}: expected a Tensor, a Donated tensor, a number or array-like data, not {}",
            obj.get_type().name()?
        ))),
    }
}

/// An operand that must be a tensor (every operation but the element-wise
/// binary ones, where a Python number stays a weak scalar): as
/// [`require_input`], but a Python number becomes a 0-d tensor of its
/// [`Scalar::tensor_dtype`] (bool, int64, the default float), as
/// `asarray(v)` makes it.
pub(crate) fn require_tensor<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Input<'py>> {
    let input = require_input(obj, what)?;
    match input.src {
        Source::Scalar(s) => {
            let dtype = s.tensor_dtype();
            let t = DynTensor::full(dtype, &[], s).py()?;
            Ok(Input::new(Source::Temp(t, dtype.into()), Offer::Temporary))
        }
        _ => Ok(input),
    }
}

/// A tensor marked for explicit donation: `t.donate()`. The first
/// operation it is passed to may write its result into `t`'s buffer,
/// leaving `t` donated; if the buffer cannot be used (shared, exported,
/// wrong shape or dtype), `t` stays intact and a `DonationWarning` says
/// why. A wrapper can be used once.
#[pyclass(module = "donate", name = "Donated", frozen)]
pub(crate) struct PyDonated {
    tensor: Py<PyTensor>,
    used: AtomicBool,
}

impl PyDonated {
    pub(crate) fn new(tensor: Py<PyTensor>) -> Self {
        PyDonated {
            tensor,
            used: AtomicBool::new(false),
        }
    }

    /// Hand out the tensor once.
    fn consume<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTensor>> {
        if self.used.swap(true, Ordering::AcqRel) {
            return Err(DonatedError::new_err(
                "this Donated wrapper was already used by an operation; call .donate() on a live tensor again",
            ));
        }
        Ok(self.tensor.bind(py).clone())
    }

    fn input<'py>(&self, py: Python<'py>) -> PyResult<Input<'py>> {
        Ok(Input::new(
            Source::Tensor(self.consume(py)?),
            Offer::Donated,
        ))
    }
}

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
    /// NumPy must not treat the wrapper as an array: `ndarray + t.donate()`
    /// defers to `Donated.__radd__`.
    #[classattr]
    #[allow(non_upper_case_globals)]
    const __array_ufunc__: Option<bool> = None;

    /// Whether an operation already took this wrapper.
    #[getter]
    fn used(&self) -> bool {
        self.used.load(Ordering::Acquire)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let t = self.tensor.bind(py).get();
        let g = t.slot.lock(&py);
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

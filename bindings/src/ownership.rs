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

use pyo3::prelude::*;

use super::errors::IntoPyResult;
use super::inputs::{held, Input, TensorRef};
use super::interop;
use super::temporary::offer_of;
use super::tensor::{PyDonated, PyTensor};
use donate::driver::call::Operand;
use donate::plan::Offer;
use donate::DynTensor;

/// `self` of a method as an operand (checked before any new reference to
/// it exists).
pub(crate) fn self_input<'py>(slf: &Bound<'py, PyTensor>) -> Input<'py> {
    let me = slf.get();
    let offer = offer_of(
        slf.as_any(),
        me.shape.iter().product::<usize>() * me.dtype.size(),
        super::temporary::Role::Receiver,
    );
    held(slf, offer)
}

/// `self` of an explicit-donation method.
pub(crate) fn donated_self<'py>(slf: &Bound<'py, PyTensor>) -> Input<'py> {
    held(slf, Offer::Donated)
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
        return Ok(Some(held(t, offer)));
    }
    if let Ok(d) = obj.cast::<PyDonated>() {
        let t = d.get().consume(py)?;
        return Ok(Some(Operand::Held(TensorRef(t), Offer::Donated)));
    }
    // NumPy scalars first: `numpy.float64` subclasses `float`, but NumPy
    // scalars are strongly typed (NEP 50), not weak like Python numbers.
    let numpy_like = interop::is_numpy(py, obj)?;
    if !numpy_like {
        if let Some(s) = interop::scalar_arg(obj)? {
            return Ok(Some(Operand::Number(s)));
        }
    }
    let array_like = numpy_like
        || obj.is_instance_of::<pyo3::types::PyList>()
        || obj.is_instance_of::<pyo3::types::PyTuple>()
        || plain_array_like(obj)?;
    if array_like {
        return Ok(Some(Operand::Made(interop::to_operand(py, obj)?)));
    }
    Ok(None)
}

/// Data NumPy converts that has no array protocol of its own to answer
/// an operator with: an object with the buffer protocol (`memoryview`,
/// `array.array`, `bytearray`; `bytes` too, whose conversion is a
/// `TypeError`, never a concatenation of the tensor's bytes), a `range`,
/// or one with `__array__` alone (NumPy's `t + frame` converts it). An
/// object that also speaks NumPy's or the standard's protocols
/// (`__array_ufunc__`, `__array_function__`, `__array_namespace__`: a
/// Dask array, a pandas Series) or outranks a tensor's
/// `__array_priority__` is left to answer for itself.
pub(crate) fn plain_array_like(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if obj.is_instance_of::<pyo3::types::PyString>() {
        return Ok(false);
    }
    // SAFETY: `obj` is a live object (a borrowed reference held while the
    // interpreter is attached); the call only reads its type's buffer slot.
    let buffer = unsafe { pyo3::ffi::PyObject_CheckBuffer(obj.as_ptr()) } == 1;
    if buffer || obj.is_instance_of::<pyo3::types::PyRange>() {
        return Ok(true);
    }
    for own in [
        "__array_ufunc__",
        "__array_function__",
        "__array_namespace__",
    ] {
        if obj.hasattr(own)? {
            return Ok(false);
        }
    }
    // NumPy defers to a higher `__array_priority__` (a torch tensor's
    // 1000) than its own; `Tensor`'s is 0.
    let priority = obj
        .getattr("__array_priority__")
        .and_then(|p| p.extract::<f64>())
        .unwrap_or(0.0);
    Ok(priority <= 0.0 && obj.hasattr("__array__")?)
}

/// [`plain_array_like`] for the NumPy translations' `__array_ufunc__`
/// (the one rule for operators, functions and ufuncs).
#[pyfunction]
pub(crate) fn _is_plain_array_like(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    plain_array_like(obj)
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
    match input {
        Operand::Number(s) => {
            let t = DynTensor::full(s.tensor_dtype(), &[], s).py()?;
            Ok(Operand::Made(t))
        }
        _ => Ok(input),
    }
}

impl PyDonated {
    /// The wrapped tensor as an explicitly donated operand (once).
    pub(crate) fn input<'py>(&self, py: Python<'py>) -> PyResult<Input<'py>> {
        Ok(Operand::Held(TensorRef(self.consume(py)?), Offer::Donated))
    }
}

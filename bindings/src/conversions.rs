//! `Tensor`'s conversions to NumPy and to Python values (`numpy()`,
//! `np.asarray(t)`, `tolist()`, `item()`): each reads the buffer through
//! the read-only NumPy view, which blocks donation and in-place writes
//! while it lives. (The scalar protocols `bool()`, `float()` and `int()`
//! are with the other protocol slots in `tensor.rs`.)

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::interop;
use super::tensor::PyTensor;

#[pymethods]
impl PyTensor {
    /// NumPy's `__array_priority__`, which every ndarray has (0.0) and
    /// libraries read to pick the result type of mixed operations (Dask's
    /// `tensordot`): the same as an ndarray's, as the protocols decide.
    #[classattr]
    #[pyo3(name = "__array_priority__")]
    const ARRAY_PRIORITY: f64 = 0.0;

    /// A read-only NumPy array over this tensor's buffer (no copy). While it
    /// lives, the buffer is never donated (donations copy, with a
    /// warning); in-place ops on the tensor write through, and the array
    /// shows their results, as PyTorch's `.numpy()` does.
    fn numpy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        view(slf, "numpy")
    }

    /// NumPy's array protocol (`np.asarray(t)`): the read-only view of
    /// `numpy()` (no copy), converted to `dtype` or copied when asked
    /// (`copy=True`; `copy=False` with a conversion is a `ValueError`).
    #[pyo3(signature = (dtype = None, copy = None))]
    pub(super) fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let view = view(slf, "__array__")?;
        let needs_cast = dtype.is_some_and(|d| !d.is_none());
        if copy == Some(false) && needs_cast {
            return Err(PyValueError::new_err(
                "a dtype conversion needs a copy, but copy=False",
            ));
        }
        match (needs_cast, copy) {
            (true, _) => view.call_method1("astype", (dtype.expect("checked"),)),
            (false, Some(true)) => view.call_method0("copy"),
            _ => Ok(view),
        }
    }

    /// The elements as nested Python lists of Python numbers (a 0-d tensor:
    /// the number).
    fn tolist<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        view(slf, "tolist")?.call_method0("tolist")
    }

    /// The single element as a Python number; `item(i)` the element at
    /// flat index `i`, `item(i, j, ...)` the one at that index (NumPy's).
    #[pyo3(signature = (*args))]
    fn item<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, pyo3::types::PyTuple>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if args.is_empty() {
            return element(slf, "item");
        }
        view(slf, "item")?.call_method1("item", args)
    }
}

/// The single element as a Python number, for the conversion `what`
/// (`item`, `float`, ...), which the errors name.
pub(super) fn element<'py>(slf: &Bound<'py, PyTensor>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    if slf.get().numel() != 1 {
        return Err(PyValueError::new_err(format!(
            "{what}() needs a tensor with exactly one element, got shape {:?}",
            slf.get().shape
        )));
    }
    view(slf, what)?.call_method0("item")
}

/// The element of a 0-d tensor as a Python number, for `int()`,
/// `float()`, `complex()`: as NumPy's (since 2.0), a tensor with axes is a
/// `TypeError` even of one element (`item()` takes one).
pub(super) fn scalar<'py>(slf: &Bound<'py, PyTensor>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let shape = &slf.get().shape;
    if !shape.is_empty() {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{what}() needs a 0-d tensor, got shape {shape:?} (only 0-d tensors convert to \
             Python scalars, as NumPy's arrays)"
        )));
    }
    element(slf, what)
}

/// The read-only NumPy view, or a `DonatedError` naming `what`.
pub(crate) fn view<'py>(slf: &Bound<'py, PyTensor>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    slf.get().check_live(slf.py(), what)?;
    interop::numpy_view(slf.as_any())
}

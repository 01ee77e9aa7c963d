//! The one place where core errors become Python exceptions and refusals
//! of explicit donations become `DonationWarning`s, and donate's own
//! exception and warning classes.
//!
//! | core [`Error`]                                   | Python                     |
//! |--------------------------------------------------|----------------------------|
//! | `AlreadyDonated`                                 | `donate.DonatedError` (a `RuntimeError`) |
//! | `ShapeMismatch`, `NotBroadcastableTo`, `InvalidShape`, `LengthMismatch`, `EmptyReduction`, `NotDonatable`, `Pinned`, `InvalidArgument` | `ValueError` |
//! | `InvalidAxis`                                    | `donate.AxisError` (NumPy's `AxisError`: a `ValueError` and an `IndexError`) |
//! | `DTypeMismatch`, `UnsupportedDType`, `InvalidOperand` | `TypeError` |
//! | `ArenaExhausted`, `AllocationFailed`             | `MemoryError`              |
//! | `ShapeOverflow`                                  | `donate.ShapeError` (a `ValueError`, as NumPy's "array is too big", and an `OverflowError`) |
//! | `ScalarOutOfRange`                               | `OverflowError`            |
//! | `Busy`                                           | `RuntimeError`             |
//! | `Tracer`                                         | `donate.TracerError` (a `TypeError`) |
//! | `LinAlg`                                         | `donate.LinAlgError` (a subclass of NumPy's `LinAlgError`, so a `ValueError`) |

use pyo3::create_exception;
use pyo3::exceptions::{
    PyMemoryError, PyOverflowError, PyRuntimeError, PyTypeError, PyUserWarning, PyValueError,
};
use pyo3::prelude::*;

use donate::Error;

create_exception!(
    donate,
    DonatedError,
    PyRuntimeError,
    "A tensor's buffer was donated (moved into another tensor); its data can no longer be read or written."
);
create_exception!(
    donate,
    DonationWarning,
    PyUserWarning,
    "An explicit donation could not be honoured: the input was left unchanged and the result was computed into a new buffer."
);
create_exception!(
    donate,
    TracerError,
    PyTypeError,
    "A traced function (donate.jit, donate.make_jaxpr) needed a value that is not known while tracing (item(), bool(t), a NumPy view, a data-dependent branch), or a tracer was used outside its trace."
);
/// `donate.AxisError`: an axis out of range for the tensor's dimension.
/// A subclass of NumPy's `AxisError`, so a `ValueError` and an
/// `IndexError` as NumPy's (the array API asks for an `IndexError`), and
/// caught by code that catches NumPy's. Made once, at import.
pub(crate) fn axis_error(py: Python<'_>) -> PyResult<&Bound<'_, pyo3::types::PyType>> {
    static TYPE: pyo3::sync::PyOnceLock<Py<pyo3::types::PyType>> = pyo3::sync::PyOnceLock::new();
    numpy_subclass(
        py,
        &TYPE,
        ("numpy.exceptions", "AxisError"),
        c"donate.AxisError",
        c"An axis is out of range for the tensor's dimension.",
    )
}

/// A class of donate's own (`name`, with `doc`) derived from NumPy's
/// exception `base` (module, class name), made the first time it is asked
/// for and kept in `cell`.
fn numpy_subclass<'py>(
    py: Python<'py>,
    cell: &'static pyo3::sync::PyOnceLock<Py<pyo3::types::PyType>>,
    base: (&str, &str),
    name: &'static std::ffi::CStr,
    doc: &'static std::ffi::CStr,
) -> PyResult<&'py Bound<'py, pyo3::types::PyType>> {
    cell.get_or_try_init(py, || {
        let base = py
            .import(base.0)?
            .getattr(base.1)?
            .cast_into::<pyo3::types::PyType>()?;
        PyErr::new_type(py, name, Some(doc), Some(&base), None)
    })
    .map(|t| t.bind(py))
}

/// `donate.ShapeError`: a shape that cannot exist (its size overflows).
/// A `ValueError`, as NumPy's "array is too big", and an
/// `OverflowError`, as donate raised before. Made once, at import.
pub(crate) fn shape_error(py: Python<'_>) -> PyResult<&Bound<'_, pyo3::types::PyType>> {
    static TYPE: pyo3::sync::PyOnceLock<Py<pyo3::types::PyType>> = pyo3::sync::PyOnceLock::new();
    TYPE.get_or_try_init(py, || {
        let bases = (
            py.get_type::<PyValueError>(),
            py.get_type::<PyOverflowError>(),
        );
        let attrs = pyo3::types::PyDict::new(py);
        attrs.set_item("__module__", "donate")?;
        attrs.set_item(
            "__doc__",
            "A shape that cannot exist: its element count or byte size overflows.",
        )?;
        py.get_type::<pyo3::types::PyType>()
            .call1(("ShapeError", bases, attrs))?
            .cast_into::<pyo3::types::PyType>()
            .map(Bound::unbind)
            .map_err(Into::into)
    })
    .map(|t| t.bind(py))
}

/// `donate.LinAlgError`: a linear algebra function cannot give a result
/// for these values. A subclass of NumPy's `LinAlgError` (so a
/// `ValueError`), caught by code that catches NumPy's (`SciPy`'s
/// `except np.linalg.LinAlgError`). Made once, at import.
pub(crate) fn linalg_error(py: Python<'_>) -> PyResult<&Bound<'_, pyo3::types::PyType>> {
    static TYPE: pyo3::sync::PyOnceLock<Py<pyo3::types::PyType>> = pyo3::sync::PyOnceLock::new();
    numpy_subclass(
        py,
        &TYPE,
        ("numpy.linalg", "LinAlgError"),
        c"donate.LinAlgError",
        c"A linear algebra function cannot give a result for these values: a singular matrix (inv, solve), one that is not positive definite (cholesky), an iteration that did not converge.",
    )
}

/// An exception of one of donate's own classes (the class made first if
/// this is its first use; an error making it is raised instead).
fn own_class(
    class: for<'py> fn(Python<'py>) -> PyResult<&'py Bound<'py, pyo3::types::PyType>>,
    msg: String,
) -> PyErr {
    Python::attach(|py| match class(py) {
        Ok(t) => PyErr::from_type(t.clone(), msg),
        Err(e) => e,
    })
}

/// The Python exception for a core error.
pub(crate) fn to_py(e: &Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::AlreadyDonated { .. } => DonatedError::new_err(msg),
        Error::Tracer { .. } => TracerError::new_err(msg),
        Error::InvalidAxis { .. } => own_class(axis_error, msg),
        Error::LinAlg { .. } => own_class(linalg_error, msg),
        Error::DTypeMismatch { .. }
        | Error::UnsupportedDType { .. }
        | Error::InvalidOperand { .. } => PyTypeError::new_err(msg),
        Error::ArenaExhausted { .. } | Error::AllocationFailed { .. } => {
            PyMemoryError::new_err(msg)
        }
        Error::ShapeOverflow { .. } => own_class(shape_error, msg),
        Error::ScalarOutOfRange { .. } => PyOverflowError::new_err(msg),
        Error::Busy => PyRuntimeError::new_err(msg),
        Error::IndexOutOfRange { .. } | Error::InvalidIndex { .. } => {
            pyo3::exceptions::PyIndexError::new_err(msg)
        }
        Error::ShapeMismatch { .. }
        | Error::NotBroadcastableTo { .. }
        | Error::InvalidShape { .. }
        | Error::LengthMismatch { .. }
        | Error::EmptyReduction { .. }
        | Error::InvalidArgument { .. }
        | Error::NotContiguous { .. }
        | Error::PartialView { .. }
        | Error::NotDonatable { .. }
        | Error::Pinned => PyValueError::new_err(msg),
    }
}

/// `Result<T>` → `PyResult<T>`.
pub(crate) trait IntoPyResult<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for donate::Result<T> {
    fn py(self) -> PyResult<T> {
        self.map_err(|e| to_py(&e))
    }
}

/// The warning for an input of `op`, an operation whose results are
/// always new buffers (not planned: sorting, sets, searching, linear
/// algebra), donated but not used.
pub(crate) fn unplanned_warning(op: &str, signature: &str) -> String {
    format!(
        "{op}: an input ({signature}) was donated but not used: {op} always writes a new buffer; the input is unchanged"
    )
}

/// Raise each warning (a warning filter may turn one into an error).
pub(crate) fn warn_all(py: Python<'_>, messages: Vec<String>) -> PyResult<()> {
    warn_all_at(py, messages, 1)
}

/// [`warn_all`] attributed to the Python frame `stacklevel` levels up.
pub(crate) fn warn_all_at(py: Python<'_>, messages: Vec<String>, stacklevel: i32) -> PyResult<()> {
    if messages.is_empty() {
        return Ok(());
    }
    for msg in messages {
        PyErr::warn(
            py,
            &py.get_type::<DonationWarning>(),
            &std::ffi::CString::new(msg).unwrap_or_default(),
            stacklevel,
        )?;
    }
    Ok(())
}

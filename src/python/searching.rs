//! The array API's searching, sorting and set functions as module
//! functions: `argmax`, `argmin`, `count_nonzero`, `nonzero`,
//! `searchsorted`, `sort`, `argsort`, and the tuples behind the
//! `unique_*` functions (`python/donate/_sets.py` names their fields).
//!
//! Each translates its arguments and calls the core
//! ([`crate::searching`], [`crate::sorting`], [`crate::sets`]), which
//! decides the results; they are always new tensors: inputs are only
//! read, and an explicitly donated one is refused with a
//! `DonationWarning` (`read_unplanned`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use smallvec::smallvec;

use super::operands::{call, read_unplanned};
use super::ownership::require_tensor;
use super::statistics::{compute, read_x, AxisArg};
use super::tensor::PyTensor;
use crate::lane_ops::LaneOp;
use crate::plan::Op;
use crate::searching::{self as core, Extreme, Side};
use crate::sets::unique;
use crate::sorting;

/// The index of the first maximum of `x` along `axis` (`None`: of the
/// flattened tensor), int64.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
pub(crate) fn argmax(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let t = read_x(x, "argmax")?;
    compute(x.py(), &[&t], || {
        core::arg_extreme(&t, Extreme::Max, axis, keepdims)
    })
    .map(PyTensor::new)
}

/// The index of the first minimum of `x` along `axis` (as `argmax`).
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
pub(crate) fn argmin(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let t = read_x(x, "argmin")?;
    compute(x.py(), &[&t], || {
        core::arg_extreme(&t, Extreme::Min, axis, keepdims)
    })
    .map(PyTensor::new)
}

/// The number of nonzero elements of `x` over `axis` (an int, a tuple,
/// or `None` for all), int64.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
pub(crate) fn count_nonzero(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let named = AxisArg::from_py(axis)?.axes();
    let t = read_x(x, "count_nonzero")?;
    compute(x.py(), &[&t], || {
        core::count_nonzero(&t, named.as_deref(), keepdims)
    })
    .map(PyTensor::new)
}

/// The indices of the nonzero elements of `x`: a tuple of one int64
/// tensor per axis.
#[pyfunction]
#[pyo3(signature = (x, /))]
pub(crate) fn nonzero<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let t = read_x(x, "nonzero")?;
    let r = compute(x.py(), &[&t], || core::nonzero(&t))?;
    PyTuple::new(x.py(), r.into_iter().map(PyTensor::new))
}

/// The indices into the sorted 1-d `x1` before which the elements of
/// `x2` would keep it sorted (`sorter`: the indices that sort `x1`).
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, side = "left", sorter = None))]
pub(crate) fn searchsorted(
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    side: &str,
    sorter: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let side = match side {
        "left" => Side::Left,
        "right" => Side::Right,
        s => {
            return Err(PyValueError::new_err(format!(
                "searchsorted: side must be 'left' or 'right', not {s:?}"
            )))
        }
    };
    let op = "searchsorted";
    let mut inputs = vec![require_tensor(x1, op)?, require_tensor(x2, op)?];
    if let Some(s) = sorter.filter(|s| !s.is_none()) {
        inputs.push(require_tensor(s, op)?);
    }
    let t = read_unplanned(x1.py(), op, &inputs)?;
    let all: Vec<_> = t.iter().collect();
    compute(x1.py(), &all, || {
        core::searchsorted(&t[0], &t[1], side, t.get(2))
    })
    .map(PyTensor::new)
}

/// `x` sorted along `axis` (always stably; `descending` reverses the
/// order, equal elements keeping theirs).
#[pyfunction]
#[pyo3(
    signature = (x, /, *, axis = -1, descending = false, stable = true),
    text_signature = "(x, /, *, axis=-1, descending=False, stable=True)"
)]
pub(crate) fn sort(
    x: &Bound<'_, PyAny>,
    axis: isize,
    descending: bool,
    stable: bool,
) -> PyResult<PyTensor> {
    let _ = stable; // every sort is stable
    let op = Op::Lane(Box::new(LaneOp::Sort { axis, descending }));
    call(x.py(), &op, smallvec![require_tensor(x, "sort")?])
}

/// The int64 indices that sort `x` along `axis` (as `sort`).
#[pyfunction]
#[pyo3(
    signature = (x, /, *, axis = -1, descending = false, stable = true),
    text_signature = "(x, /, *, axis=-1, descending=False, stable=True)"
)]
pub(crate) fn argsort(
    x: &Bound<'_, PyAny>,
    axis: isize,
    descending: bool,
    stable: bool,
) -> PyResult<PyTensor> {
    let _ = stable; // every sort is stable
    let t = read_x(x, "argsort")?;
    compute(x.py(), &[&t], || sorting::argsort(&t, axis, descending)).map(PyTensor::new)
}

/// `(values, indices, inverse_indices, counts)` of the unique elements
/// of `x` (`donate.unique_all` and the other `unique_*` functions name
/// them).
#[pyfunction]
#[pyo3(signature = (x, /))]
pub(crate) fn _unique<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let t = read_x(x, "unique")?;
    let u = compute(x.py(), &[&t], || unique(&t))?;
    PyTuple::new(
        x.py(),
        [u.values, u.indices, u.inverse_indices, u.counts].map(PyTensor::new),
    )
}

/// Add every function to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(argmax, m)?)?;
    m.add_function(wrap_pyfunction!(argmin, m)?)?;
    m.add_function(wrap_pyfunction!(count_nonzero, m)?)?;
    m.add_function(wrap_pyfunction!(nonzero, m)?)?;
    m.add_function(wrap_pyfunction!(searchsorted, m)?)?;
    m.add_function(wrap_pyfunction!(sort, m)?)?;
    m.add_function(wrap_pyfunction!(argsort, m)?)?;
    m.add_function(wrap_pyfunction!(_unique, m)?)?;
    Ok(())
}

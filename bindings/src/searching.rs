//! The array API's searching, sorting and set functions as module
//! functions: `argmax`, `argmin`, `count_nonzero`, `nonzero`,
//! `searchsorted`, `sort`, `argsort`, and the tuples behind the
//! `unique_*` functions (`python/donate/_sets.py` names their fields).
//!
//! Each translates its arguments into a planned operation: `sort` writes
//! over a temporary or donated input ([`LaneOp::Sort`]); the others always
//! write new buffers ([`FreshOp`]: `argmax`, `argmin`, `count_nonzero`,
//! `searchsorted`, `argsort`), and `donate.jit` traces them. `nonzero` and
//! the `unique_*` functions, whose result's shape depends on the values,
//! are not planned ([`read_value_shaped`]): they compute in the core
//! ([`donate::functions::searching`], [`donate::functions::sets`]) and a tracer is refused.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use smallvec::smallvec;

use super::operands::{call, call_fresh, call_fresh1, read_value_shaped, Inputs};
use super::ownership::require_tensor;
use super::statistics::{compute, AxisArg};
use super::tensor::PyTensor;
use donate::functions::lane_ops::LaneOp;
use donate::functions::searching::{self as core, Extreme, Side};
use donate::functions::sets::unique;
use donate::plan::{FreshOp, Op};

/// The index of the first maximum of `x` along `axis` (`None`: of the
/// flattened tensor), int64.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
pub(crate) fn argmax(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let extreme = Extreme::Max;
    call_fresh1(
        x,
        FreshOp::ArgExtreme {
            extreme,
            axis,
            keepdims,
        },
    )
}

/// The index of the first minimum of `x` along `axis` (as `argmax`).
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
pub(crate) fn argmin(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let extreme = Extreme::Min;
    call_fresh1(
        x,
        FreshOp::ArgExtreme {
            extreme,
            axis,
            keepdims,
        },
    )
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
    let f = FreshOp::CountNonzero {
        axes: AxisArg::from_py(axis)?.axes(),
        keepdims,
    };
    call_fresh1(x, f)
}

/// The indices of the nonzero elements of `x`: a tuple of one int64
/// tensor per axis.
#[pyfunction]
#[pyo3(signature = (x, /))]
pub(crate) fn nonzero<'py>(x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let t = read_value_shaped(
        x,
        "nonzero",
        "the number of nonzero elements, and so the result's shape, depends on the values",
    )?;
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
    let mut inputs: Inputs<'_> = smallvec![require_tensor(x1, op)?, require_tensor(x2, op)?];
    let sorter = sorter.filter(|s| !s.is_none());
    if let Some(s) = sorter {
        inputs.push(require_tensor(s, op)?);
    }
    let f = FreshOp::Searchsorted {
        side,
        sorter: sorter.is_some(),
    };
    call_fresh(x1.py(), f, inputs)
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
    call_fresh1(x, FreshOp::Argsort { axis, descending })
}

/// `(values, indices, inverse_indices, counts)` of the unique elements
/// of `x` (`donate.unique_all` and the other `unique_*` functions name
/// them).
#[pyfunction]
#[pyo3(signature = (x, /, name = "unique"))]
pub(crate) fn _unique<'py>(x: &Bound<'py, PyAny>, name: &str) -> PyResult<Bound<'py, PyTuple>> {
    let t = read_value_shaped(
        x,
        name,
        "the number of distinct values, and so the result's shape, depends on the values",
    )?;
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

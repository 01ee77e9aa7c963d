//! The array API's statistical functions and `diff` as module functions,
//! with the standard's signatures: `donate.sum(x, axis=(0, 2),
//! dtype=..., keepdims=True)`, `donate.var(x, correction=1)`,
//! `donate.cumulative_sum(x, axis=0, include_initial=True)`, …
//!
//! They translate the arguments (an axis, a tuple of axes, a dtype) and
//! call the core: [`donate::functions::statistics`] and [`donate::functions::cumulative`] decide
//! the dtypes, shapes and values. Every statistic is a planned operation
//! (traceable by `donate.jit`, its donations refused with the planner's
//! reasons): `sum`, `mean` and `max` over one axis or all of them, without
//! a `dtype`, are the `Op::Reduce` kernels (as `t.sum(0)`); the rest
//! (`min`, `prod`, `var`, `std`, tuples of axes, `dtype=`) is
//! `Op::Statistic`. `diff` is the planned [`FreshOp::Diff`].

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::errors::IntoPyResult;
use super::interop::dtype_arg;
use smallvec::smallvec;

use super::operands::{call, call_fresh, Inputs};
use super::ops;
use super::ownership::require_tensor;
use super::tensor::PyTensor;
use donate::functions::cumulative::Running;
use donate::functions::lane_ops::LaneOp;
use donate::functions::statistics::Statistic;
use donate::plan::{FreshOp, Op, Reduction, StatisticOp};
use donate::DynTensor;

/// An `axis=` argument of a reduction.
pub(crate) enum AxisArg {
    /// `None`: every axis.
    All,
    /// One axis.
    One(isize),
    /// A tuple of axes.
    Many(Vec<isize>),
}

impl AxisArg {
    /// `None`, an int or a tuple of ints (a bool is not an axis).
    pub(crate) fn from_py(obj: Option<&Bound<'_, PyAny>>) -> PyResult<AxisArg> {
        let Some(obj) = obj.filter(|o| !o.is_none()) else {
            return Ok(AxisArg::All);
        };
        let axis = |o: &Bound<'_, PyAny>| -> PyResult<isize> {
            if o.is_instance_of::<pyo3::types::PyBool>() {
                return Err(PyTypeError::new_err("an axis must be an int, not a bool"));
            }
            o.extract::<isize>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "an axis must be an int or a tuple of ints, not {o}"
                ))
            })
        };
        if let Ok(t) = obj.cast::<PyTuple>() {
            return Ok(AxisArg::Many(
                t.iter().map(|a| axis(&a)).collect::<PyResult<_>>()?,
            ));
        }
        Ok(AxisArg::One(axis(obj)?))
    }

    /// The axes for the core (`None`: every axis).
    pub(crate) fn axes(&self) -> Option<Vec<isize>> {
        match self {
            AxisArg::All => None,
            AxisArg::One(a) => Some(vec![*a]),
            AxisArg::Many(v) => Some(v.clone()),
        }
    }
}

/// Run `f` (a core computation over `inputs`) with the interpreter
/// released when the inputs are large.
pub(crate) fn compute<T: Send>(
    py: Python<'_>,
    inputs: &[&DynTensor],
    f: impl FnOnce() -> donate::Result<T> + Send,
) -> PyResult<T> {
    let bytes = inputs.iter().map(|t| t.nbytes()).sum();
    super::arena::detach(py, bytes, f).py()
}

/// `statistic` over `axis`: the planned [`Op::Statistic`] (a temporary or
/// donated input is refused, as every new-buffer op refuses it; traced by
/// `donate.jit`).
fn statistic_op(
    x: &Bound<'_, PyAny>,
    statistic: Statistic,
    axis: &AxisArg,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let op = Op::Statistic(Box::new(StatisticOp {
        statistic,
        axes: axis.axes(),
        keepdims,
    }));
    call(x.py(), &op, smallvec![require_tensor(x, statistic.name())?])
}

/// `sum`, `mean`, `max`: the single-axis [`Op::Reduce`] kernels for one
/// axis or all of them (`dtype` not given), else [`Op::Statistic`] (both
/// planned and traced alike).
fn reduction(
    x: &Bound<'_, PyAny>,
    kind: Reduction,
    statistic: Statistic,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let axis = AxisArg::from_py(axis)?;
    let planned = !matches!(
        statistic,
        Statistic::Sum { dtype: Some(_) } | Statistic::Mean { dtype: Some(_) }
    );
    match axis {
        AxisArg::All if planned => ops::reduce(
            x.py(),
            kind,
            require_tensor(x, statistic.name())?,
            None,
            keepdims,
        ),
        AxisArg::One(a) if planned => ops::reduce(
            x.py(),
            kind,
            require_tensor(x, statistic.name())?,
            Some(a),
            keepdims,
        ),
        _ => statistic_op(x, statistic, &axis, keepdims),
    }
}

/// The sum of the elements of `x` over `axis` (an int, a tuple, or
/// `None` for all), in `dtype` (default: int64 for bool and signed
/// integers, uint64 for unsigned ones, a float's own).
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, keepdims = false))]
pub(crate) fn sum(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let dtype = dtype_arg(x.py(), dtype)?;
    reduction(x, Reduction::Sum, Statistic::Sum { dtype }, axis, keepdims)
}

/// The arithmetic mean of `x` over `axis` (NaN over no elements), in
/// `dtype` (NumPy's keyword; default: a float `x`'s own dtype, else the
/// float dtype the float functions give it).
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, keepdims = false))]
pub(crate) fn mean(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let dtype = dtype_arg(x.py(), dtype)?;
    reduction(
        x,
        Reduction::Mean,
        Statistic::Mean { dtype },
        axis,
        keepdims,
    )
}

/// The largest element of `x` over `axis` (NaN if any is NaN; an error
/// over no elements).
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
pub(crate) fn max(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    reduction(x, Reduction::Max, Statistic::Max, axis, keepdims)
}

/// The smallest element of `x` over `axis` (NaN if any is NaN; an error
/// over no elements).
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, keepdims = false))]
pub(crate) fn min(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    statistic_op(x, Statistic::Min, &AxisArg::from_py(axis)?, keepdims)
}

/// The product of the elements of `x` over `axis`, in `dtype` (as `sum`).
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, keepdims = false))]
pub(crate) fn prod(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let dtype = dtype_arg(x.py(), dtype)?;
    statistic_op(
        x,
        Statistic::Prod { dtype },
        &AxisArg::from_py(axis)?,
        keepdims,
    )
}

/// The variance of `x` over `axis`, divided by `N - correction`.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, correction = 0.0, keepdims = false))]
pub(crate) fn var(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    correction: f64,
    keepdims: bool,
) -> PyResult<PyTensor> {
    statistic_op(
        x,
        Statistic::Var { correction },
        &AxisArg::from_py(axis)?,
        keepdims,
    )
}

/// The standard deviation of `x` over `axis` (the square root of `var`).
#[pyfunction]
#[pyo3(name = "std", signature = (x, /, *, axis = None, correction = 0.0, keepdims = false))]
pub(crate) fn std_dev(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    correction: f64,
    keepdims: bool,
) -> PyResult<PyTensor> {
    statistic_op(
        x,
        Statistic::Std { correction },
        &AxisArg::from_py(axis)?,
        keepdims,
    )
}

fn running(
    x: &Bound<'_, PyAny>,
    kind: Running,
    axis: Option<isize>,
    dtype: Option<&Bound<'_, PyAny>>,
    include_initial: bool,
) -> PyResult<PyTensor> {
    let dtype = dtype_arg(x.py(), dtype)?;
    let op = Op::Lane(Box::new(LaneOp::Running {
        running: kind,
        axis,
        dtype,
        include_initial,
    }));
    call(x.py(), &op, smallvec![require_tensor(x, kind.name())?])
}

/// The running sum of `x` along `axis` (required unless `x` is 1-d), in
/// `dtype` (as `sum`); with `include_initial`, a 0 first.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, include_initial = false))]
pub(crate) fn cumulative_sum(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    dtype: Option<&Bound<'_, PyAny>>,
    include_initial: bool,
) -> PyResult<PyTensor> {
    running(x, Running::Sum, axis, dtype, include_initial)
}

/// The running product of `x` along `axis` (as `cumulative_sum`; the
/// initial value is 1).
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None, dtype = None, include_initial = false))]
pub(crate) fn cumulative_prod(
    x: &Bound<'_, PyAny>,
    axis: Option<isize>,
    dtype: Option<&Bound<'_, PyAny>>,
    include_initial: bool,
) -> PyResult<PyTensor> {
    running(x, Running::Prod, axis, dtype, include_initial)
}

/// The `n`-th forward differences of `x` along `axis`, after prepending
/// `prepend` and appending `append` along it.
#[pyfunction]
#[pyo3(
    signature = (x, /, *, axis = -1, n = 1, prepend = None, append = None),
    text_signature = "(x, /, *, axis=-1, n=1, prepend=None, append=None)"
)]
pub(crate) fn diff(
    x: &Bound<'_, PyAny>,
    axis: isize,
    n: i64,
    prepend: Option<&Bound<'_, PyAny>>,
    append: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let n = usize::try_from(n)
        .map_err(|_| PyValueError::new_err(format!("diff: n must be non-negative, got {n}")))?;
    let present: Vec<&Bound<'_, PyAny>> = [prepend, append]
        .into_iter()
        .flatten()
        .filter(|o| !o.is_none())
        .collect();
    let mut inputs: Inputs<'_> = smallvec![require_tensor(x, "diff")?];
    for o in &present {
        inputs.push(require_tensor(o, "diff")?);
    }
    let f = FreshOp::Diff {
        axis,
        n,
        prepend: prepend.is_some_and(|p| !p.is_none()),
        append: append.is_some_and(|a| !a.is_none()),
    };
    call_fresh(x.py(), f, inputs)
}

/// NumPy's `bincount` of the 1-d integer `x` with its `length` given
/// (the planned [`FreshOp::Bincount`]): int64 counts, or the `weights`
/// summed per bin. `donate.numpy.bincount` finds the length.
#[pyfunction]
#[pyo3(signature = (x, weights, length))]
pub(crate) fn _bincount(
    x: &Bound<'_, PyAny>,
    weights: Option<&Bound<'_, PyAny>>,
    length: usize,
) -> PyResult<PyTensor> {
    let op = "bincount";
    let mut inputs: Inputs<'_> = smallvec![require_tensor(x, op)?];
    if let Some(w) = weights {
        inputs.push(require_tensor(w, op)?);
    }
    let f = FreshOp::Bincount {
        length,
        weighted: weights.is_some(),
    };
    call_fresh(x.py(), f, inputs)
}

/// Add every function to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sum, m)?)?;
    m.add_function(wrap_pyfunction!(prod, m)?)?;
    m.add_function(wrap_pyfunction!(mean, m)?)?;
    m.add_function(wrap_pyfunction!(max, m)?)?;
    m.add_function(wrap_pyfunction!(min, m)?)?;
    m.add_function(wrap_pyfunction!(var, m)?)?;
    m.add_function(wrap_pyfunction!(std_dev, m)?)?;
    m.add_function(wrap_pyfunction!(cumulative_sum, m)?)?;
    m.add_function(wrap_pyfunction!(cumulative_prod, m)?)?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    m.add_function(wrap_pyfunction!(_bincount, m)?)?;
    Ok(())
}

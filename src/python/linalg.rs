//! The linear algebra functions (`donate.tensordot`, `donate.vecdot` and
//! the `donate.linalg` extension) as module functions. Each translates its
//! Python arguments (tensors, `t.donate()`, array-like data, `axes=`,
//! `ord=`, `rtol=`, `dtype=`) and calls the core ([`crate::linalg`]),
//! which decides shapes and dtypes. These operations are not planned:
//! their inputs are only read ([`read_unplanned`]: a donated input is
//! refused with a `DonationWarning`, a tracer raises `TracerError`) and
//! their results are new tensors. Multi-result functions return plain
//! tuples; `python/donate/linalg.py` names their fields.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

use super::errors::IntoPyResult;
use super::interop::dtype_arg;
use super::operands::{read_unplanned, Input};
use super::ownership::require_tensor;
use super::tensor::PyTensor;
use crate::linalg::{self, MatrixOrd, TensordotAxes};
use crate::{DType, DynTensor, Result};

/// Read the tensor arguments of `op` (a number becomes a 0-d tensor).
fn read_all(py: Python<'_>, op: &str, args: &[&Bound<'_, PyAny>]) -> PyResult<Vec<DynTensor>> {
    let inputs: Vec<Input<'_>> = args
        .iter()
        .map(|a| require_tensor(a, op))
        .collect::<PyResult<_>>()?;
    read_unplanned(py, op, &inputs)
}

/// Run the core's `f` over `xs`, the interpreter released for large
/// inputs.
fn run<R: Send>(
    py: Python<'_>,
    xs: &[DynTensor],
    f: impl FnOnce() -> Result<R> + Send,
) -> PyResult<R> {
    let bytes = xs.iter().map(DynTensor::nbytes).sum::<usize>();
    super::arena::detach(py, bytes, f).py()
}

/// One tensor argument, read, and the core's function of it.
fn unary(
    x: &Bound<'_, PyAny>,
    op: &str,
    f: impl FnOnce(&DynTensor) -> Result<DynTensor> + Send,
) -> PyResult<PyTensor> {
    let py = x.py();
    let xs = read_all(py, op, &[x])?;
    run(py, &xs, || f(&xs[0])).map(PyTensor::new)
}

/// Two tensor arguments, read, and the core's function of them.
fn binary(
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    op: &str,
    f: impl FnOnce(&DynTensor, &DynTensor) -> Result<DynTensor> + Send,
) -> PyResult<PyTensor> {
    let py = x1.py();
    let xs = read_all(py, op, &[x1, x2])?;
    run(py, &xs, || f(&xs[0], &xs[1])).map(PyTensor::new)
}

/// An integer argument that must not be a bool (`axis=True` is a mistake).
fn int_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an integer, not {}",
            obj.get_type().name()?
        )));
    }
    obj.extract()
}

/// One side of `tensordot`'s `axes` pair: an int or a sequence of ints.
fn axis_list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<isize>> {
    if obj.is_instance_of::<PyInt>() {
        return Ok(vec![int_arg(obj, "tensordot: axes")? as isize]);
    }
    obj.try_iter()?
        .map(|a| Ok(int_arg(&a?, "tensordot: axes")? as isize))
        .collect()
}

/// `tensordot`'s `axes`: a count, or a pair of axis sequences.
fn tensordot_axes(axes: &Bound<'_, PyAny>) -> PyResult<TensordotAxes> {
    if axes.is_instance_of::<PyInt>() {
        let n = int_arg(axes, "tensordot: axes")?;
        return usize::try_from(n).map(TensordotAxes::Last).map_err(|_| {
            PyValueError::new_err(format!("tensordot: axes must be non-negative, got {n}"))
        });
    }
    let pair: Vec<Bound<'_, PyAny>> = axes
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err("tensordot: axes must be an int or a pair of axis sequences")
        })?
        .collect::<PyResult<_>>()?;
    let [a, b] = &pair[..] else {
        return Err(PyValueError::new_err(format!(
            "tensordot: axes must be an int or a pair of axis sequences, got {} items",
            pair.len()
        )));
    };
    Ok(TensordotAxes::Pairs(axis_list(a)?, axis_list(b)?))
}

/// `tensordot(x1, x2, /, *, axes=2)`: the tensor contraction over `axes`
/// (a count of trailing/leading axes, or two sequences of axes).
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axes = None), text_signature = "(x1, x2, /, *, axes=2)")]
pub(crate) fn tensordot(
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    axes: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let axes = match axes {
        Some(a) => tensordot_axes(a)?,
        None => TensordotAxes::Last(2),
    };
    binary(x1, x2, "tensordot", |a, b| linalg::tensordot(a, b, &axes))
}

/// `vecdot(x1, x2, /, *, axis=-1)`: dot products along `axis`, the other
/// axes broadcast.
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axis = -1), text_signature = "(x1, x2, /, *, axis=-1)")]
pub(crate) fn vecdot(
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    axis: isize,
) -> PyResult<PyTensor> {
    binary(x1, x2, "vecdot", |a, b| linalg::vecdot(a, b, axis))
}

/// `cross(x1, x2, /, *, axis=-1)`: cross products of 3-vectors.
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axis = -1), text_signature = "(x1, x2, /, *, axis=-1)")]
fn cross(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>, axis: isize) -> PyResult<PyTensor> {
    binary(x1, x2, "linalg.cross", |a, b| linalg::cross(a, b, axis))
}

/// `outer(x1, x2, /)`: the outer product of two vectors.
#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn outer(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    binary(x1, x2, "linalg.outer", linalg::outer)
}

/// `solve(x1, x2, /)`: `x1⁻¹·x2` for each matrix of the stack `x1`.
#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn solve(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    binary(x1, x2, "linalg.solve", linalg::solve)
}

/// `cholesky(x, /, *, upper=False)`: the Cholesky factor of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, upper = false))]
fn cholesky(x: &Bound<'_, PyAny>, upper: bool) -> PyResult<PyTensor> {
    unary(x, "linalg.cholesky", |a| linalg::cholesky(a, upper))
}

/// `det(x, /)`: the determinant of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn det(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, "linalg.det", linalg::det)
}

/// `diagonal(x, /, *, offset=0)`: the diagonal of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, offset = 0))]
fn diagonal(x: &Bound<'_, PyAny>, offset: isize) -> PyResult<PyTensor> {
    unary(x, "linalg.diagonal", |a| linalg::diagonal(a, offset))
}

/// `eigvalsh(x, /)`: the eigenvalues of each symmetric matrix, ascending.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn eigvalsh(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, "linalg.eigvalsh", linalg::eigvalsh)
}

/// `inv(x, /)`: the inverse of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn inv(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, "linalg.inv", linalg::inv)
}

/// `matrix_power(x, n, /)`: each matrix to the integer power `n`.
#[pyfunction]
#[pyo3(signature = (x, n, /))]
fn matrix_power(x: &Bound<'_, PyAny>, n: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let n = int_arg(n, "linalg.matrix_power: n")?;
    unary(x, "linalg.matrix_power", |a| linalg::matrix_power(a, n))
}

/// `svdvals(x, /)`: the singular values of each matrix, largest first.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn svdvals(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, "linalg.svdvals", linalg::svdvals)
}

/// `trace(x, /, *, offset=0, dtype=None)`: the sum of each matrix's
/// diagonal `offset`.
#[pyfunction]
#[pyo3(signature = (x, /, *, offset = 0, dtype = None))]
fn trace(
    x: &Bound<'_, PyAny>,
    offset: isize,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let dtype: Option<DType> = dtype_arg(x.py(), dtype)?;
    unary(x, "linalg.trace", |a| linalg::trace(a, offset, dtype))
}

/// A norm's `ord`: a Python int or float.
fn ord_number(ord: &Bound<'_, PyAny>, op: &str) -> PyResult<f64> {
    if ord.is_instance_of::<PyBool>()
        || !(ord.is_instance_of::<PyInt>() || ord.is_instance_of::<PyFloat>())
    {
        return Err(PyTypeError::new_err(format!(
            "{op}: ord must be a number, not {}",
            ord.get_type().name()?
        )));
    }
    ord.extract()
}

/// `vector_norm(x, /, *, axis=None, keepdims=False, ord=2)`.
#[pyfunction]
#[pyo3(
    signature = (x, /, *, axis = None, keepdims = false, ord = None),
    text_signature = "(x, /, *, axis=None, keepdims=False, ord=2)"
)]
fn vector_norm(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    ord: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    const OP: &str = "linalg.vector_norm";
    let ord = ord.map_or(Ok(2.0), |o| ord_number(o, OP))?;
    let over: Option<Vec<isize>> = match axis.filter(|a| !a.is_none()) {
        None => None,
        Some(a) if a.is_instance_of::<PyInt>() => {
            Some(vec![int_arg(a, "linalg.vector_norm: axis")? as isize])
        }
        Some(a) => Some(
            a.try_iter()?
                .map(|v| Ok(int_arg(&v?, "linalg.vector_norm: axis")? as isize))
                .collect::<PyResult<_>>()?,
        ),
    };
    unary(x, OP, |t| {
        linalg::vector_norm(t, over.as_deref(), keepdims, ord)
    })
}

/// `matrix_norm(x, /, *, keepdims=False, ord="fro")`.
#[pyfunction]
#[pyo3(signature = (x, /, *, keepdims = false, ord = None), text_signature = "(x, /, *, keepdims=False, ord='fro')")]
fn matrix_norm(
    x: &Bound<'_, PyAny>,
    keepdims: bool,
    ord: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    const OP: &str = "linalg.matrix_norm";
    let ord = match ord.filter(|o| !o.is_none()) {
        None => MatrixOrd::Fro,
        Some(o) if o.is_instance_of::<PyString>() => {
            MatrixOrd::from_name(&o.extract::<String>()?).py()?
        }
        Some(o) => MatrixOrd::from_number(ord_number(o, OP)?).py()?,
    };
    unary(x, OP, |t| linalg::matrix_norm(t, keepdims, ord))
}

/// `x` and, when given, `rtol` (a number or a tensor), read.
fn with_rtol(
    py: Python<'_>,
    op: &str,
    x: &Bound<'_, PyAny>,
    rtol: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<DynTensor>> {
    match rtol.filter(|r| !r.is_none()) {
        None => read_all(py, op, &[x]),
        Some(r) => read_all(py, op, &[x, r]),
    }
}

/// `matrix_rank(x, /, *, rtol=None)`: the rank of each matrix (int64).
#[pyfunction]
#[pyo3(signature = (x, /, *, rtol = None))]
fn matrix_rank(x: &Bound<'_, PyAny>, rtol: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
    let py = x.py();
    let xs = with_rtol(py, "linalg.matrix_rank", x, rtol)?;
    run(py, &xs, || linalg::matrix_rank(&xs[0], xs.get(1))).map(PyTensor::new)
}

/// `pinv(x, /, *, rtol=None)`: the pseudo-inverse of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, rtol = None))]
fn pinv(x: &Bound<'_, PyAny>, rtol: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
    let py = x.py();
    let xs = with_rtol(py, "linalg.pinv", x, rtol)?;
    run(py, &xs, || linalg::pinv(&xs[0], xs.get(1))).map(PyTensor::new)
}

/// `eigh(x, /)`: `(eigenvalues, eigenvectors)` of each symmetric matrix
/// (a plain tuple; `donate.linalg.eigh` names it).
#[pyfunction]
#[pyo3(signature = (x, /))]
fn eigh(x: &Bound<'_, PyAny>) -> PyResult<(PyTensor, PyTensor)> {
    let py = x.py();
    let xs = read_all(py, "linalg.eigh", &[x])?;
    let (w, v) = run(py, &xs, || linalg::eigh(&xs[0]))?;
    Ok((PyTensor::new(w), PyTensor::new(v)))
}

/// `qr(x, /, *, mode="reduced")`: `(Q, R)` of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, mode = "reduced"))]
fn qr(x: &Bound<'_, PyAny>, mode: &str) -> PyResult<(PyTensor, PyTensor)> {
    let complete = match mode {
        "reduced" => false,
        "complete" => true,
        _ => {
            return Err(PyValueError::new_err(format!(
                "linalg.qr: mode must be 'reduced' or 'complete', not {mode:?}"
            )))
        }
    };
    let py = x.py();
    let xs = read_all(py, "linalg.qr", &[x])?;
    let (q, r) = run(py, &xs, || linalg::qr(&xs[0], complete))?;
    Ok((PyTensor::new(q), PyTensor::new(r)))
}

/// `slogdet(x, /)`: `(sign, logabsdet)` of each matrix's determinant.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn slogdet(x: &Bound<'_, PyAny>) -> PyResult<(PyTensor, PyTensor)> {
    let py = x.py();
    let xs = read_all(py, "linalg.slogdet", &[x])?;
    let (s, l) = run(py, &xs, || linalg::slogdet(&xs[0]))?;
    Ok((PyTensor::new(s), PyTensor::new(l)))
}

/// `svd(x, /, *, full_matrices=True)`: `(U, S, Vh)` of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, full_matrices = true))]
fn svd(x: &Bound<'_, PyAny>, full_matrices: bool) -> PyResult<(PyTensor, PyTensor, PyTensor)> {
    let py = x.py();
    let xs = read_all(py, "linalg.svd", &[x])?;
    let (u, s, vh) = run(py, &xs, || linalg::svd(&xs[0], full_matrices))?;
    Ok((PyTensor::new(u), PyTensor::new(s), PyTensor::new(vh)))
}

/// Register the module functions.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add(
        "LinAlgError",
        m.py().get_type::<super::errors::LinAlgError>(),
    )?;
    m.add_function(wrap_pyfunction!(tensordot, m)?)?;
    m.add_function(wrap_pyfunction!(vecdot, m)?)?;
    m.add_function(wrap_pyfunction!(cholesky, m)?)?;
    m.add_function(wrap_pyfunction!(cross, m)?)?;
    m.add_function(wrap_pyfunction!(det, m)?)?;
    m.add_function(wrap_pyfunction!(diagonal, m)?)?;
    m.add_function(wrap_pyfunction!(eigh, m)?)?;
    m.add_function(wrap_pyfunction!(eigvalsh, m)?)?;
    m.add_function(wrap_pyfunction!(inv, m)?)?;
    m.add_function(wrap_pyfunction!(matrix_norm, m)?)?;
    m.add_function(wrap_pyfunction!(matrix_power, m)?)?;
    m.add_function(wrap_pyfunction!(matrix_rank, m)?)?;
    m.add_function(wrap_pyfunction!(outer, m)?)?;
    m.add_function(wrap_pyfunction!(pinv, m)?)?;
    m.add_function(wrap_pyfunction!(qr, m)?)?;
    m.add_function(wrap_pyfunction!(slogdet, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(svd, m)?)?;
    m.add_function(wrap_pyfunction!(svdvals, m)?)?;
    m.add_function(wrap_pyfunction!(trace, m)?)?;
    m.add_function(wrap_pyfunction!(vector_norm, m)?)?;
    Ok(())
}

//! The linear algebra functions (`donate.tensordot`, `donate.vecdot` and
//! the `donate.linalg` extension) as module functions. Each translates its
//! Python arguments (tensors, `t.donate()`, array-like data, `axes=`,
//! `ord=`, `rtol=`, `dtype=`) and calls the core ([`donate::functions::linalg`]),
//! which decides shapes and dtypes. Each is a planned operation
//! ([`LinalgOp`]) that always writes new buffers: a donated input is
//! refused with a `DonationWarning`, and `donate.jit` traces them.
//! Multi-result functions return plain tuples; `python/donate/linalg.py`
//! names their fields.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

use super::errors::IntoPyResult;
use super::interop::dtype_arg;
use super::operands::{call_fresh, call_fresh1, call_parts, Inputs};
use super::ownership::require_tensor;
use super::tensor::PyTensor;
use donate::functions::linalg::{LinalgOp, MatrixOrd, TensordotAxes};
use donate::plan::FreshOp;
use donate::DType;
use smallvec::smallvec;

/// One tensor argument and the function of it.
fn unary(x: &Bound<'_, PyAny>, f: LinalgOp) -> PyResult<PyTensor> {
    call_fresh1(x, FreshOp::Linalg(f))
}

/// Two tensor arguments and the function of them.
fn binary(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>, f: LinalgOp) -> PyResult<PyTensor> {
    let inputs = smallvec![require_tensor(x1, f.name())?, require_tensor(x2, f.name())?];
    call_fresh(x1.py(), FreshOp::Linalg(f), inputs)
}

/// Every result of a function of several (`eig`, `eigh`, `qr`, `slogdet`,
/// `svd`): `part(i)` is result `i`'s op.
fn parts(
    x: &Bound<'_, PyAny>,
    n: usize,
    part: impl Fn(usize) -> LinalgOp,
) -> PyResult<Vec<PyTensor>> {
    let input = require_tensor(x, part(0).name())?;
    call_parts(x.py(), n, |i| FreshOp::Linalg(part(i)), smallvec![input])
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
    binary(x1, x2, LinalgOp::Tensordot { axes })
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
    binary(x1, x2, LinalgOp::Vecdot { axis })
}

/// `cross(x1, x2, /, *, axis=-1)`: cross products of 3-vectors.
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axis = -1), text_signature = "(x1, x2, /, *, axis=-1)")]
fn cross(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>, axis: isize) -> PyResult<PyTensor> {
    binary(x1, x2, LinalgOp::Cross { axis })
}

/// `outer(x1, x2, /)`: the outer product of two vectors.
#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn outer(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    binary(x1, x2, LinalgOp::Outer)
}

/// `solve(x1, x2, /)`: `x1⁻¹·x2` for each matrix of the stack `x1`.
#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn solve(x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    binary(x1, x2, LinalgOp::Solve)
}

/// `cholesky(x, /, *, upper=False)`: the Cholesky factor of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, upper = false))]
fn cholesky(x: &Bound<'_, PyAny>, upper: bool) -> PyResult<PyTensor> {
    unary(x, LinalgOp::Cholesky { upper })
}

/// `det(x, /)`: the determinant of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn det(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, LinalgOp::Det)
}

/// `diagonal(x, /, *, offset=0)`: the diagonal of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, offset = 0))]
fn diagonal(x: &Bound<'_, PyAny>, offset: isize) -> PyResult<PyTensor> {
    unary(x, LinalgOp::Diagonal { offset })
}

/// `eigvalsh(x, /)`: the eigenvalues of each symmetric matrix, ascending.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn eigvalsh(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, LinalgOp::Eigvalsh)
}

/// `eigvals(x, /)`: the eigenvalues of each square matrix, complex (an
/// extension of the standard, as `jax.numpy.linalg.eigvals`).
#[pyfunction]
#[pyo3(signature = (x, /))]
fn eigvals(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, LinalgOp::Eigvals)
}

/// `inv(x, /)`: the inverse of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn inv(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, LinalgOp::Inv)
}

/// `matrix_power(x, n, /)`: each matrix to the integer power `n`.
#[pyfunction]
#[pyo3(signature = (x, n, /))]
fn matrix_power(x: &Bound<'_, PyAny>, n: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let n = int_arg(n, "linalg.matrix_power: n")?;
    unary(x, LinalgOp::MatrixPower { n })
}

/// `svdvals(x, /)`: the singular values of each matrix, largest first.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn svdvals(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    unary(x, LinalgOp::Svdvals)
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
    unary(x, LinalgOp::Trace { offset, dtype })
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
    unary(
        x,
        LinalgOp::VectorNorm {
            axes: over,
            keepdims,
            ord,
        },
    )
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
    unary(x, LinalgOp::MatrixNorm { keepdims, ord })
}

/// `x` and, when given, `rtol` (a number or a tensor), and the function
/// of them.
fn with_rtol(
    x: &Bound<'_, PyAny>,
    rtol: Option<&Bound<'_, PyAny>>,
    f: impl Fn(bool) -> LinalgOp,
) -> PyResult<PyTensor> {
    let rtol = rtol.filter(|r| !r.is_none());
    let f = f(rtol.is_some());
    let mut inputs: Inputs<'_> = smallvec![require_tensor(x, f.name())?];
    if let Some(r) = rtol {
        inputs.push(require_tensor(r, f.name())?);
    }
    call_fresh(x.py(), FreshOp::Linalg(f), inputs)
}

/// `matrix_rank(x, /, *, rtol=None)`: the rank of each matrix (int64).
#[pyfunction]
#[pyo3(signature = (x, /, *, rtol = None))]
fn matrix_rank(x: &Bound<'_, PyAny>, rtol: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
    with_rtol(x, rtol, |rtol| LinalgOp::MatrixRank { rtol })
}

/// `pinv(x, /, *, rtol=None)`: the pseudo-inverse of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, rtol = None))]
fn pinv(x: &Bound<'_, PyAny>, rtol: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
    with_rtol(x, rtol, |rtol| LinalgOp::Pinv { rtol })
}

fn two(mut v: Vec<PyTensor>) -> PyResult<(PyTensor, PyTensor)> {
    match (v.pop(), v.pop()) {
        (Some(b), Some(a)) if v.is_empty() => Ok((a, b)),
        _ => Err(PyValueError::new_err("expected two results")),
    }
}

/// `eigh(x, /)`: `(eigenvalues, eigenvectors)` of each symmetric matrix
/// (a plain tuple; `donate.linalg.eigh` names it).
#[pyfunction]
#[pyo3(signature = (x, /))]
fn eigh(x: &Bound<'_, PyAny>) -> PyResult<(PyTensor, PyTensor)> {
    two(parts(x, 2, |part| LinalgOp::Eigh { part })?)
}

/// `eig(x, /)`: `(eigenvalues, eigenvectors)` of each square matrix,
/// complex (a plain tuple; `donate.linalg.eig` names it).
#[pyfunction]
#[pyo3(signature = (x, /))]
fn eig(x: &Bound<'_, PyAny>) -> PyResult<(PyTensor, PyTensor)> {
    two(parts(x, 2, |part| LinalgOp::Eig { part })?)
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
    two(parts(x, 2, |part| LinalgOp::Qr { complete, part })?)
}

/// `slogdet(x, /)`: `(sign, logabsdet)` of each matrix's determinant.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn slogdet(x: &Bound<'_, PyAny>) -> PyResult<(PyTensor, PyTensor)> {
    two(parts(x, 2, |part| LinalgOp::Slogdet { part })?)
}

/// `svd(x, /, *, full_matrices=True)`: `(U, S, Vh)` of each matrix.
#[pyfunction]
#[pyo3(signature = (x, /, *, full_matrices = true))]
fn svd(x: &Bound<'_, PyAny>, full_matrices: bool) -> PyResult<(PyTensor, PyTensor, PyTensor)> {
    let mut v = parts(x, 3, |part| LinalgOp::Svd {
        full_matrices,
        part,
    })?;
    match (v.pop(), v.pop(), v.pop()) {
        (Some(vh), Some(s), Some(u)) => Ok((u, s, vh)),
        _ => Err(PyValueError::new_err("linalg.svd: expected three results")),
    }
}

/// Register the module functions.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LinAlgError", super::errors::linalg_error(m.py())?)?;
    m.add_function(wrap_pyfunction!(tensordot, m)?)?;
    m.add_function(wrap_pyfunction!(vecdot, m)?)?;
    m.add_function(wrap_pyfunction!(cholesky, m)?)?;
    m.add_function(wrap_pyfunction!(cross, m)?)?;
    m.add_function(wrap_pyfunction!(det, m)?)?;
    m.add_function(wrap_pyfunction!(diagonal, m)?)?;
    m.add_function(wrap_pyfunction!(eigh, m)?)?;
    m.add_function(wrap_pyfunction!(eig, m)?)?;
    m.add_function(wrap_pyfunction!(eigvals, m)?)?;
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

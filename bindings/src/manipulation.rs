//! The array API's manipulation, indexing and creation functions: each
//! translates its arguments and calls the core (`donate::functions::manipulation`,
//! `donate::functions::creation`). The views (`expand_dims`, `squeeze`, `moveaxis`,
//! `flip`, `unstack`) run as planned view operations, so a temporary or
//! donated input moves into the result as `reshape` does; the others are
//! planned functions that always write new buffers (`FreshOp`).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use smallvec::smallvec;

use super::array_api::check_device;
use super::errors::IntoPyResult;
use super::interop::{dtype_arg, number_arg, scalar_arg, shape_arg};
use super::operands::{
    call, call_fresh, call_fresh1, call_parts, kept, read_value_shaped, Input, Inputs,
};
use super::ownership::require_tensor;
use super::tensor::{read, PyTensor};
use donate::array::layout::Index;
use donate::driver::call::Operand;
use donate::functions::lane_ops::LaneOp;
use donate::functions::{creation, manipulation};
use donate::plan::{FreshOp, Offer, Op};
use donate::{DType, DynTensor};

/// An int or a sequence of ints (`axis=(0, 1)`).
fn ints(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<i64>> {
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(vec![i]);
    }
    obj.extract::<Vec<i64>>()
        .map_err(|_| PyTypeError::new_err(format!("{what} must be an int or a tuple of ints")))
}

fn axes(v: &[i64]) -> Vec<isize> {
    v.iter()
        .map(|&a| isize::try_from(a).unwrap_or(isize::MAX))
        .collect()
}

/// The tensors of a sequence argument (`concat([a, b])`), as operands.
fn seq_inputs<'py>(op: &str, seq: &Bound<'py, PyAny>) -> PyResult<Inputs<'py>> {
    if seq.cast::<PyTensor>().is_ok() {
        return Err(PyTypeError::new_err(format!(
            "{op} takes a sequence of tensors, not one tensor"
        )));
    }
    let inputs: Inputs<'py> = seq
        .try_iter()?
        .map(|x| require_tensor(&x?, op))
        .collect::<PyResult<_>>()?;
    if inputs.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{op}: needs at least one tensor"
        )));
    }
    Ok(inputs)
}

/// A tensor and its indices, and the function of them.
fn fresh2(x: &Bound<'_, PyAny>, y: &Bound<'_, PyAny>, f: FreshOp) -> PyResult<PyTensor> {
    let inputs = smallvec![require_tensor(x, f.name())?, require_tensor(y, f.name())?];
    call_fresh(x.py(), f, inputs)
}

fn list(py: Python<'_>, ts: Vec<PyTensor>) -> PyResult<Bound<'_, PyList>> {
    PyList::new(
        py,
        ts.into_iter()
            .map(|t| Py::new(py, t))
            .collect::<PyResult<Vec<_>>>()?,
    )
}

/// `concat(arrays, /, *, axis=0)`: joined along `axis` (`None`:
/// flattened), promoted together, into a new buffer.
#[pyfunction]
#[pyo3(signature = (arrays, /, *, axis = Some(0)), text_signature = "(arrays, /, *, axis=0)")]
pub(crate) fn concat(
    py: Python<'_>,
    arrays: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<PyTensor> {
    let inputs = seq_inputs("concat", arrays)?;
    let n = inputs.len();
    call_fresh(py, FreshOp::Concat { axis, n }, inputs)
}

/// `stack(arrays, /, *, axis=0)`: joined along a new axis.
#[pyfunction]
#[pyo3(signature = (arrays, /, *, axis = 0))]
pub(crate) fn stack(py: Python<'_>, arrays: &Bound<'_, PyAny>, axis: isize) -> PyResult<PyTensor> {
    let inputs = seq_inputs("stack", arrays)?;
    let n = inputs.len();
    call_fresh(py, FreshOp::Stack { axis, n }, inputs)
}

/// `broadcast_to(x, /, shape)`: a copy of `x` repeated to `shape`.
#[pyfunction]
#[pyo3(signature = (x, /, shape))]
pub(crate) fn broadcast_to(x: &Bound<'_, PyAny>, shape: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let shape = shape_arg(shape)?;
    call_fresh1(x, FreshOp::BroadcastTo { shape })
}

/// `broadcast_shapes(*shapes)`: the shape the shapes broadcast to, a
/// tuple (NumPy's; a shape is an int or a sequence of ints).
#[pyfunction]
#[pyo3(signature = (*shapes))]
pub(crate) fn broadcast_shapes<'py>(
    py: Python<'py>,
    shapes: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyTuple>> {
    let shapes = shapes
        .iter()
        .map(|s| shape_arg(&s))
        .collect::<PyResult<Vec<_>>>()?;
    let views: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let shape = manipulation::broadcast_all("broadcast_shapes", &views).py()?;
    PyTuple::new(py, shape)
}

/// `broadcast_arrays(*arrays)`: each array broadcast to their common
/// shape (new buffers).
#[pyfunction]
#[pyo3(signature = (*arrays))]
pub(crate) fn broadcast_arrays<'py>(
    py: Python<'py>,
    arrays: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyList>> {
    if arrays.is_empty() {
        return PyList::new(py, Vec::<Py<PyTensor>>::new());
    }
    let inputs = seq_inputs("broadcast_arrays", arrays.as_any())?;
    let shapes: Vec<&[usize]> = inputs.iter().map(Input::shape).collect();
    let shape = manipulation::broadcast_all("broadcast_arrays", &shapes).py()?;
    let ts = inputs
        .into_iter()
        .map(|i| {
            call_fresh(
                py,
                FreshOp::BroadcastTo {
                    shape: shape.clone(),
                },
                smallvec![i],
            )
        })
        .collect::<PyResult<Vec<_>>>()?;
    list(py, ts)
}

/// `tile(x, repetitions, /)`.
#[pyfunction]
#[pyo3(signature = (x, repetitions, /))]
pub(crate) fn tile(x: &Bound<'_, PyAny>, repetitions: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let reps = shape_arg(repetitions)?;
    call_fresh1(x, FreshOp::Tile { reps })
}

/// `repeat(x, repeats, /, *, axis=None)`: `repeats` an int or a 1-d
/// integer tensor (one count per element along `axis`).
#[pyfunction]
#[pyo3(signature = (x, repeats, /, *, axis = None))]
pub(crate) fn repeat(
    x: &Bound<'_, PyAny>,
    repeats: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<PyTensor> {
    let counts: Vec<usize> = if let Ok(r) = repeats.extract::<usize>() {
        vec![r]
    } else {
        let t = read_value_shaped(
            repeats,
            "repeat",
            "with a tensor of repeats, the result's shape depends on the counts' values; \
             pass them as a Python int or a sequence of ints",
        )?;
        if !t.dtype().is_int() {
            return Err(PyTypeError::new_err(format!(
                "repeat: repeats must be integers, not {}",
                t.dtype()
            )));
        }
        let t = t.cast(DType::I64).py()?;
        let v = t.typed::<i64>("repeat").py()?.as_slice().py()?.to_vec();
        v.into_iter()
            .map(|c| {
                usize::try_from(c).map_err(|_| PyValueError::new_err("repeat: negative count"))
            })
            .collect::<PyResult<_>>()?
    };
    call_fresh1(
        x,
        FreshOp::Repeat {
            repeats: counts,
            axis,
        },
    )
}

/// `roll(x, /, shift, *, axis=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, shift, *, axis = None))]
pub(crate) fn roll(
    x: &Bound<'_, PyAny>,
    shift: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let shifts = ints(shift, "shift")?;
    let ax = axis
        .filter(|a| !a.is_none())
        .map(|a| ints(a, "axis"))
        .transpose()?
        .unwrap_or_default();
    let op = Op::Lane(Box::new(LaneOp::Roll {
        shifts,
        axes: axes(&ax),
    }));
    call(x.py(), &op, smallvec![require_tensor(x, "roll")?])
}

/// `take(x, indices, /, *, axis=None)`: NumPy's (`indices` of any shape,
/// an int among them; `axis=None` reads `x` flat).
#[pyfunction]
#[pyo3(signature = (x, indices, /, *, axis = None))]
pub(crate) fn take(
    x: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    axis: Option<isize>,
) -> PyResult<PyTensor> {
    fresh2(x, indices, FreshOp::Take { axis })
}

/// `take_along_axis(x, indices, /, *, axis=-1)`.
#[pyfunction]
#[pyo3(signature = (x, indices, /, *, axis = -1), text_signature = "(x, indices, /, *, axis=-1)")]
pub(crate) fn take_along_axis(
    x: &Bound<'_, PyAny>,
    indices: &Bound<'_, PyAny>,
    axis: isize,
) -> PyResult<PyTensor> {
    fresh2(x, indices, FreshOp::TakeAlongAxis { axis })
}

/// `meshgrid(*arrays, indexing="xy")`.
#[pyfunction]
#[pyo3(signature = (*arrays, indexing = "xy"))]
pub(crate) fn meshgrid<'py>(
    py: Python<'py>,
    arrays: &Bound<'py, PyTuple>,
    indexing: &str,
) -> PyResult<Bound<'py, PyList>> {
    let xy = match indexing {
        "xy" => true,
        "ij" => false,
        o => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "meshgrid: indexing must be 'xy' or 'ij', not {o:?}"
            )))
        }
    };
    if arrays.is_empty() {
        return PyList::new(py, Vec::<Py<PyTensor>>::new());
    }
    let inputs = seq_inputs("meshgrid", arrays.as_any())?;
    let n = inputs.len();
    let ts = call_parts(py, n, |part| FreshOp::Meshgrid { n, xy, part }, inputs)?;
    list(py, ts)
}

/// A planned view of `x` (a temporary or donated `x` moves into it),
/// `op` made from `x`'s shape.
fn view(
    x: &Bound<'_, PyAny>,
    what: &str,
    op: impl FnOnce(&[usize]) -> donate::Result<Op>,
) -> PyResult<PyTensor> {
    let input = require_tensor(x, what)?;
    let op = op(input.shape()).py()?;
    call(x.py(), &op, smallvec![input])
}

/// `astype(x, dtype, /, *, copy=True, device=None)`: `x` converted to
/// `dtype` (the planned cast: a temporary or donated input of the same
/// element size receives it); `x` itself when the dtype is the same and
/// `copy` is false.
#[pyfunction]
#[pyo3(signature = (x, dtype, /, *, copy = true, device = None))]
pub(crate) fn astype<'py>(
    x: &Bound<'py, PyAny>,
    dtype: &Bound<'py, PyAny>,
    copy: bool,
    device: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    check_device(device)?;
    let py = x.py();
    let dtype =
        dtype_arg(py, Some(dtype))?.ok_or_else(|| PyTypeError::new_err("astype needs a dtype"))?;
    if let Ok(t) = x.cast::<PyTensor>() {
        if !copy && t.get().dtype == dtype {
            return Ok(t.clone().into_any());
        }
    }
    let input = require_tensor(x, "astype")?;
    Ok(Bound::new(py, call(py, &Op::Cast { dtype }, smallvec![input])?)?.into_any())
}

/// `permute_dims(x, /, axes)`: a view with the axes permuted.
#[pyfunction]
#[pyo3(signature = (x, /, axes))]
pub(crate) fn permute_dims(x: &Bound<'_, PyAny>, axes: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let perm = self::axes(&ints(axes, "axes")?);
    view(x, "permute_dims", |_| Ok(Op::Permute { axes: Some(perm) }))
}

/// `matrix_transpose(x, /)`: a view with the last two axes swapped.
#[pyfunction]
#[pyo3(signature = (x, /))]
pub(crate) fn matrix_transpose(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    view(x, "matrix_transpose", |s| {
        Ok(Op::Permute {
            axes: Some(manipulation::matrix_transpose_perm(s.len())?),
        })
    })
}

/// `reshape(x, /, shape, *, copy=None)`: `x` with another shape, a view
/// when its elements are contiguous (a temporary or donated input moves
/// into the result); with `copy=True` never sharing a named input's
/// buffer.
#[pyfunction]
#[pyo3(signature = (x, /, shape, *, copy = None))]
pub(crate) fn reshape(
    x: &Bound<'_, PyAny>,
    shape: &Bound<'_, PyAny>,
    copy: Option<bool>,
) -> PyResult<PyTensor> {
    let py = x.py();
    let shape = ints(shape, "shape")?;
    // The buffer of a tensor `x`, to tell a view from a copy (`copy=False`).
    // (Plain data, not a handle: a handle would make `x` shared.)
    let base = match x.cast::<PyTensor>() {
        Ok(t) if copy == Some(false) && t.get().tracer().is_none() => {
            let v = read(py, t.get())?;
            let l = v.layout();
            Some((v.buffer_ptr(), l.shape().to_vec(), l.strides().to_vec()))
        }
        _ => None,
    };
    let input = require_tensor(x, "reshape")?;
    let borrowed = input.offer() == donate::plan::Offer::Borrowed;
    let r = call(py, &Op::Reshape { shape }, smallvec![input])?;
    if let Some((ptr, from, strides)) = base {
        let out = read(py, &r)?;
        if out.buffer_ptr() != ptr {
            // (the array API's and NumPy's rule for `copy=False`)
            return Err(PyValueError::new_err(format!(
                "reshape: copy=False, but the tensor of shape {from:?} with strides {strides:?} \
                 has no view of shape {:?}: a copy is needed (a reshape of a strided view \
                 copies)",
                out.shape()
            )));
        }
    }
    if copy == Some(true) && borrowed {
        // The result may be a view of the caller's buffer: copy it.
        let r = Bound::new(py, r)?;
        let dtype = r.get().dtype;
        return call(py, &Op::Cast { dtype }, smallvec![kept(&r)]);
    }
    Ok(r)
}

/// `expand_dims(x, /, axis=0)`: a view with a new axis of length 1 at
/// `axis`, an int or (NumPy's) a tuple of positions in the result.
#[pyfunction]
#[pyo3(signature = (x, /, axis = None), text_signature = "(x, /, axis=0)")]
pub(crate) fn expand_dims(
    x: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let ax = axis.map_or(Ok(vec![0]), |a| ints(a, "axis"))?;
    let ax = axes(&ax);
    view(x, "expand_dims", |s| {
        Ok(Op::Index {
            index: manipulation::expand_dims_index(s.len(), &ax)?,
        })
    })
}

/// `squeeze(x, /, axis)`: a view without the given axes of length 1.
#[pyfunction]
#[pyo3(signature = (x, /, axis))]
pub(crate) fn squeeze(x: &Bound<'_, PyAny>, axis: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let ax = axes(&ints(axis, "axis")?);
    view(x, "squeeze", |s| {
        Ok(Op::Index {
            index: manipulation::squeeze_index(s, &ax)?,
        })
    })
}

/// `moveaxis(x, source, destination, /)`: a view with axes moved.
#[pyfunction]
#[pyo3(signature = (x, source, destination, /))]
pub(crate) fn moveaxis(
    x: &Bound<'_, PyAny>,
    source: &Bound<'_, PyAny>,
    destination: &Bound<'_, PyAny>,
) -> PyResult<PyTensor> {
    let (src, dst) = (
        axes(&ints(source, "source")?),
        axes(&ints(destination, "destination")?),
    );
    view(x, "moveaxis", |s| {
        Ok(Op::Permute {
            axes: Some(manipulation::moveaxis_perm(s.len(), &src, &dst)?),
        })
    })
}

/// `flip(x, /, *, axis=None)`: a view with the axes reversed.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = None))]
pub(crate) fn flip(x: &Bound<'_, PyAny>, axis: Option<&Bound<'_, PyAny>>) -> PyResult<PyTensor> {
    let ax = axis
        .filter(|a| !a.is_none())
        .map(|a| ints(a, "axis"))
        .transpose()?
        .map(|v| axes(&v));
    view(x, "flip", |s| {
        Ok(Op::Index {
            index: manipulation::flip_index(s.len(), ax.as_deref())?,
        })
    })
}

/// `unstack(x, /, *, axis=0)`: views of `x`'s slices along `axis`.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis = 0))]
pub(crate) fn unstack<'py>(x: &Bound<'py, PyAny>, axis: isize) -> PyResult<Bound<'py, PyTuple>> {
    // The views share `x`'s buffer, so `x` is only read (a tensor, a
    // tracer too, is their base as it is; other data is converted first).
    let input = require_tensor(x, "unstack")?;
    let offer = input.offer();
    let base = match input {
        Operand::Held(t, _) => t.0,
        Operand::Made(t) => Bound::new(x.py(), PyTensor::new(t))?,
        Operand::Number(s) => Bound::new(
            x.py(),
            PyTensor::new(DynTensor::full(s.tensor_dtype(), &[], s).py()?),
        )?,
    };
    if offer == Offer::Donated {
        super::errors::warn_all(
            x.py(),
            vec![format!(
                "unstack: the input ({}) was donated but not used: unstack makes views of it; \
                 the input is unchanged",
                base.get().shape_str()
            )],
        )?;
    }
    let shape = base.get().shape.to_vec();
    let ax = donate::array::shape::normalize_axis(axis, shape.len()).py()?;
    let views = (0..shape[ax])
        .map(|i| {
            let mut index = vec![
                Index::Slice {
                    start: None,
                    stop: None,
                    step: 1
                };
                ax
            ];
            index.push(Index::Int(i as i64));
            call(x.py(), &Op::Index { index }, smallvec![kept(&base)])
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(
        x.py(),
        views
            .into_iter()
            .map(|v| Py::new(x.py(), v))
            .collect::<PyResult<Vec<_>>>()?,
    )
}

/// `eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None)`.
#[pyfunction]
#[pyo3(signature = (n_rows, n_cols = None, /, *, k = 0, dtype = None, device = None))]
pub(crate) fn eye(
    py: Python<'_>,
    n_rows: usize,
    n_cols: Option<usize>,
    k: i64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    check_device(device)?;
    let d = dtype_arg(py, dtype)?.unwrap_or(DType::DEFAULT_FLOAT);
    Ok(PyTensor::new(
        creation::eye(n_rows, n_cols.unwrap_or(n_rows), k, d).py()?,
    ))
}

/// `linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True)`.
#[pyfunction]
#[pyo3(signature = (start, stop, /, num, *, dtype = None, device = None, endpoint = true))]
#[allow(clippy::too_many_arguments)] // the standard's signature
pub(crate) fn linspace(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    stop: &Bound<'_, PyAny>,
    num: usize,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    endpoint: bool,
) -> PyResult<PyTensor> {
    check_device(device)?;
    if scalar_arg(start)?.is_none() || scalar_arg(stop)?.is_none() {
        return Err(PyTypeError::new_err(
            "linspace: start and stop must be Python numbers",
        ));
    }
    let (a, b): (f64, f64) = (start.extract()?, stop.extract()?);
    let d = dtype_arg(py, dtype)?.unwrap_or(DType::DEFAULT_FLOAT);
    Ok(PyTensor::new(
        creation::linspace(a, b, num, d, endpoint).py()?,
    ))
}

/// `tril(x, /, *, k=0)`.
#[pyfunction]
#[pyo3(signature = (x, /, *, k = 0))]
pub(crate) fn tril(x: &Bound<'_, PyAny>, k: i64) -> PyResult<PyTensor> {
    call(
        x.py(),
        &Op::Lane(Box::new(LaneOp::Triangle { k, upper: false })),
        smallvec![require_tensor(x, "tril")?],
    )
}

/// `triu(x, /, *, k=0)`.
#[pyfunction]
#[pyo3(signature = (x, /, *, k = 0))]
pub(crate) fn triu(x: &Bound<'_, PyAny>, k: i64) -> PyResult<PyTensor> {
    call(
        x.py(),
        &Op::Lane(Box::new(LaneOp::Triangle { k, upper: true })),
        smallvec![require_tensor(x, "triu")?],
    )
}

/// A `*_like` function: `value` in `x`'s shape, in `dtype` (or `x`'s);
/// planned, so a temporary or donated `x` of that dtype gives its buffer.
fn like(
    x: &Bound<'_, PyAny>,
    name: &'static str,
    value: donate::Scalar,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    check_device(device)?;
    let dtype = dtype_arg(x.py(), dtype)?;
    let op = Op::Lane(Box::new(LaneOp::Fill { name, value, dtype }));
    call(x.py(), &op, smallvec![require_tensor(x, name)?])
}

/// `zeros_like(x, /, *, dtype=None, device=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, *, dtype = None, device = None))]
pub(crate) fn zeros_like(
    x: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    like(x, "zeros_like", donate::Scalar::Int(0), dtype, device)
}

/// `empty_like(x, /, *, dtype=None, device=None)` (zero-filled).
#[pyfunction]
#[pyo3(signature = (x, /, *, dtype = None, device = None))]
pub(crate) fn empty_like(
    x: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    like(x, "empty_like", donate::Scalar::Int(0), dtype, device)
}

/// `ones_like(x, /, *, dtype=None, device=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, *, dtype = None, device = None))]
pub(crate) fn ones_like(
    x: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    like(x, "ones_like", donate::Scalar::Int(1), dtype, device)
}

/// `full_like(x, /, fill_value, *, dtype=None, device=None)`.
#[pyfunction]
#[pyo3(signature = (x, /, fill_value, *, dtype = None, device = None))]
pub(crate) fn full_like(
    x: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let (v, _) = number_arg(fill_value)?.ok_or_else(|| {
        PyTypeError::new_err("full_like: fill_value must be a Python number or a NumPy scalar")
    })?;
    like(x, "full_like", v, dtype, device)
}

/// Register the functions.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for f in [
        wrap_pyfunction!(concat, m)?,
        wrap_pyfunction!(stack, m)?,
        wrap_pyfunction!(broadcast_to, m)?,
        wrap_pyfunction!(broadcast_arrays, m)?,
        wrap_pyfunction!(broadcast_shapes, m)?,
        wrap_pyfunction!(tile, m)?,
        wrap_pyfunction!(repeat, m)?,
        wrap_pyfunction!(roll, m)?,
        wrap_pyfunction!(take, m)?,
        wrap_pyfunction!(take_along_axis, m)?,
        wrap_pyfunction!(meshgrid, m)?,
        wrap_pyfunction!(astype, m)?,
        wrap_pyfunction!(permute_dims, m)?,
        wrap_pyfunction!(matrix_transpose, m)?,
        wrap_pyfunction!(reshape, m)?,
        wrap_pyfunction!(expand_dims, m)?,
        wrap_pyfunction!(squeeze, m)?,
        wrap_pyfunction!(moveaxis, m)?,
        wrap_pyfunction!(flip, m)?,
        wrap_pyfunction!(unstack, m)?,
        wrap_pyfunction!(eye, m)?,
        wrap_pyfunction!(linspace, m)?,
        wrap_pyfunction!(tril, m)?,
        wrap_pyfunction!(triu, m)?,
        wrap_pyfunction!(zeros_like, m)?,
        wrap_pyfunction!(ones_like, m)?,
        wrap_pyfunction!(empty_like, m)?,
        wrap_pyfunction!(full_like, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}

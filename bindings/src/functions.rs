//! Module-level functions: creation, the operations as functions (which
//! accept a `Donated` wrapper), and the memory statistics.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use smallvec::smallvec;

use super::errors::IntoPyResult;
use super::interop::{self, dtype_arg, shape_arg};
use super::operands::call;
use super::ops;
use super::ownership::require_tensor;
use super::tensor::PyTensor;
use donate::plan::Op;
use donate::{DType, DynTensor, Scalar, UnaryOp};

/// A new tensor with a copy of `data` (nested lists, numbers, NumPy arrays,
/// anything with the buffer protocol or `__array__`, another Tensor).
#[pyfunction]
#[pyo3(signature = (data, dtype = None))]
pub(crate) fn tensor(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    let d = dtype_arg(py, dtype)?;
    Ok(PyTensor::new(interop::to_tensor(py, data, d)?))
}

/// `obj` as a Tensor: the same object when it already is one of the right
/// dtype (unless `copy=True`); otherwise a copy. Foreign memory is always
/// copied (tensors own their buffers), so `copy=False` then raises.
#[pyfunction]
#[pyo3(signature = (obj, dtype = None, copy = None, *, device = None))]
pub(crate) fn asarray<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    dtype: Option<&Bound<'py, PyAny>>,
    copy: Option<bool>,
    device: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    super::array_api::check_device(device)?;
    let d = dtype_arg(py, dtype)?;
    if let Ok(t) = obj.cast::<PyTensor>() {
        let dtype = d.unwrap_or(t.get().dtype);
        if dtype == t.get().dtype && copy != Some(true) {
            return Ok(t.clone().into_any());
        }
        if copy != Some(false) {
            // A copy in `dtype`: a cast, recorded as one when tracing.
            let c = call(py, &Op::Cast { dtype }, smallvec![super::operands::kept(t)])?;
            return Ok(Bound::new(py, c)?.into_any());
        }
    }
    if copy == Some(false) {
        return Err(PyValueError::new_err(
            "asarray(copy=False): a copy is needed (donate tensors own their buffers, so foreign data and dtype changes are always copied)",
        ));
    }
    Ok(Bound::new(py, PyTensor::new(interop::to_tensor(py, obj, d)?))?.into_any())
}

/// A tensor with a copy of a NumPy array's data, in a buffer it owns (and
/// may donate).
#[pyfunction]
pub(crate) fn from_numpy(py: Python<'_>, arr: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    if !arr.is_instance_of::<numpy::PyUntypedArray>() {
        return Err(PyTypeError::new_err(format!(
            "from_numpy expects a numpy.ndarray, not {}",
            arr.get_type().name()?
        )));
    }
    Ok(PyTensor::new(interop::to_tensor(py, arr, None)?))
}

/// The bytes of a `d` tensor of `shape` (saturating: only for choosing
/// whether to release the interpreter).
fn nbytes(d: DType, shape: &[usize]) -> usize {
    shape.iter().fold(d.size(), |n, &x| n.saturating_mul(x))
}

fn filled(py: Python<'_>, shape: &Bound<'_, PyAny>, value: Scalar, d: DType) -> PyResult<PyTensor> {
    let shape = shape_arg(shape)?;
    donate::plan::check_scalar("full", value, d).py()?;
    let t =
        super::arena::detach(py, nbytes(d, &shape), || DynTensor::full(d, &shape, value)).py()?;
    Ok(PyTensor::new(t))
}

/// Zeros of `shape` (default dtype float32).
#[pyfunction]
#[pyo3(signature = (shape, dtype = None, *, device = None))]
pub(crate) fn zeros(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    super::array_api::check_device(device)?;
    let shape = shape_arg(shape)?;
    let d = dtype_arg(py, dtype)?.unwrap_or(DType::DEFAULT_FLOAT);
    Ok(PyTensor::new(
        super::arena::detach(py, nbytes(d, &shape), || DynTensor::zeros(d, &shape)).py()?,
    ))
}

/// Ones of `shape` (default dtype float32).
#[pyfunction]
#[pyo3(signature = (shape, dtype = None, *, device = None))]
pub(crate) fn ones(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    super::array_api::check_device(device)?;
    filled(
        py,
        shape,
        Scalar::Int(1),
        dtype_arg(py, dtype)?.unwrap_or(DType::DEFAULT_FLOAT),
    )
}

/// A tensor of `shape` whose contents are unspecified. donate zero-fills it
/// (never exposing another tensor's old data); fresh pages from the system
/// are zero anyway.
#[pyfunction]
#[pyo3(signature = (shape, dtype = None, *, device = None))]
pub(crate) fn empty(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    zeros(py, shape, dtype, device)
}

/// `shape` filled with `fill_value`; without `dtype`, a NumPy scalar's
/// dtype, or a Python number's kind (bool, int64, or the default float32).
#[pyfunction]
#[pyo3(signature = (shape, fill_value, dtype = None, *, device = None))]
pub(crate) fn full(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    fill_value: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    super::array_api::check_device(device)?;
    let (v, own) = interop::number_arg(fill_value)?.ok_or_else(|| {
        PyTypeError::new_err("full: fill_value must be a Python number or a NumPy scalar")
    })?;
    let d = dtype_arg(py, dtype)?.unwrap_or(own.unwrap_or(v.tensor_dtype()));
    filled(py, shape, v, d)
}

/// Evenly spaced values in `[start, stop)`, like `numpy.arange`; int64 for
/// integer arguments, else float32 (or `dtype`, which NumPy fills in).
#[pyfunction]
#[pyo3(signature = (start, stop = None, step = None, dtype = None, *, device = None))]
#[allow(clippy::similar_names)] // NumPy's argument names: start, stop, step
pub(crate) fn arange(
    py: Python<'_>,
    start: &Bound<'_, PyAny>,
    stop: Option<&Bound<'_, PyAny>>,
    step: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTensor> {
    super::array_api::check_device(device)?;
    let d = dtype_arg(py, dtype)?;
    let args: Vec<&Bound<'_, PyAny>> = [Some(start), stop, step].into_iter().flatten().collect();
    // NumPy raises ZeroDivisionError here.
    if let Some(s) = step {
        if let Some((Scalar::Int(0) | Scalar::Float(0.0), _)) = interop::number_arg(s)? {
            return Err(PyValueError::new_err("arange: step must not be zero"));
        }
    }
    // A NumPy scalar counts by its kind, as a Python number (its value is
    // what NumPy's `arange` reads below).
    let mut all_int = true;
    for a in &args {
        match interop::number_arg(a)? {
            Some((Scalar::Int(_) | Scalar::Bool(_), _)) => {}
            Some((Scalar::Float(_), _)) => all_int = false,
            Some((Scalar::Complex(..), _)) | None => {
                return Err(PyTypeError::new_err(
                    "arange: arguments must be real numbers (Python numbers or NumPy scalars)",
                ))
            }
        }
    }
    let target = d.unwrap_or(if all_int {
        DType::I64
    } else {
        DType::DEFAULT_FLOAT
    });
    let np = interop::numpy(py)?;
    let kwargs = PyDict::new(py);
    // In the target dtype itself, as NumPy: a bound out of its range raises
    // `OverflowError` (computing in int64 and casting wrapped `2**40` to 0
    // for int32), and the values are filled in its own arithmetic (int8's
    // 0, 100, -56; a float32 step accumulated in float32).
    kwargs.set_item("dtype", interop::np_dtype(py, target))?;
    // All three in their places: NumPy reads `arange(5, None, 2)` as a
    // stop of 5 (dropping the `None` made it `arange(5, 2)`, empty).
    let pos = (start, stop, step);
    let arr = np.getattr("arange")?.call(pos, Some(&kwargs))?;
    Ok(PyTensor::new(interop::to_tensor(py, &arr, Some(target))?))
}

macro_rules! unary_fn {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "(x)`; `x` may be `t.donate()`.")]
        #[pyfunction]
        pub(crate) fn $name(x: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
            call(x.py(), &Op::Unary(UnaryOp::$op), smallvec![require_tensor(x, stringify!($name))?])
        }
    )*};
}
unary_fn!(relu => Relu, neg => Neg, negative => Neg, abs => Abs, exp => Exp, log => Log, sqrt => Sqrt, tanh => Tanh, sigmoid => Sigmoid, gelu => Gelu);

macro_rules! binary_fn {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "(a, b)`, element-wise with broadcasting and NumPy's promotion (as the operators); either may be `t.donate()`, a number or array-like data.")]
        #[pyfunction]
        #[pyo3(signature = (x1, x2, /))]
        pub(crate) fn $name<'py>(x1: &Bound<'py, PyAny>, x2: &Bound<'py, PyAny>) -> PyResult<PyTensor> {
            let what = stringify!($name);
            let py = x1.py();
            let (a, b) = (super::ownership::require_input(x1, what)?, super::ownership::require_input(x2, what)?);
            call(py, &Op::Binary(donate::BinaryOp::$op), smallvec![a, b])
        }
    )*};
}
binary_fn!(
    maximum => Maximum, minimum => Minimum, add => Add, subtract => Sub, multiply => Mul, divide => Div,
);

/// The softmax of `x` along `axis` (each row minus its maximum,
/// exponentiated, divided by its sum); written over a temporary or donated
/// `x`.
#[pyfunction]
#[pyo3(signature = (x, axis = -1), text_signature = "(x, axis=-1)")]
pub(crate) fn softmax(x: &Bound<'_, PyAny>, axis: isize) -> PyResult<PyTensor> {
    call(
        x.py(),
        &Op::Softmax { axis },
        smallvec![require_tensor(x, "softmax")?],
    )
}

/// Layer normalisation of `x` over its last axis: `(x - mean) / sqrt(var +
/// eps)`, times `gamma` and plus `beta` (each of the last axis's length)
/// when given; written over a temporary or donated `x`.
#[pyfunction]
#[pyo3(signature = (x, gamma = None, beta = None, eps = 1e-5))]
pub(crate) fn layer_norm(
    x: &Bound<'_, PyAny>,
    gamma: Option<&Bound<'_, PyAny>>,
    beta: Option<&Bound<'_, PyAny>>,
    eps: f64,
) -> PyResult<PyTensor> {
    ops::layer_norm(x.py(), require_tensor(x, "layer_norm")?, gamma, beta, eps)
}

/// 2-d convolution: `x` is `[N, C, H, W]`, `weight` `[O, C, kh, kw]`,
/// `bias` `[O]`; zero padding on every side. Written over a temporary or
/// donated `x` when the result has its shape.
#[pyfunction]
#[pyo3(signature = (x, weight, bias = None, stride = 1, padding = 0))]
pub(crate) fn conv2d<'py>(
    x: &Bound<'py, PyAny>,
    weight: &Bound<'py, PyAny>,
    bias: Option<&Bound<'py, PyAny>>,
    stride: usize,
    padding: usize,
) -> PyResult<PyTensor> {
    let input = require_tensor(x, "conv2d")?;
    ops::conv2d(x.py(), input, weight, bias, stride, padding)
}

/// Inference batch normalisation over axis 1 of `x` (`[N, C, ...]`):
/// `(x - mean) / sqrt(var + eps) * gamma + beta`. Reuses a temporary or
/// donated `x`.
#[pyfunction]
#[pyo3(signature = (x, mean, var, gamma = None, beta = None, eps = 1e-5))]
pub(crate) fn batch_norm<'py>(
    x: &Bound<'py, PyAny>,
    mean: &Bound<'py, PyAny>,
    var: &Bound<'py, PyAny>,
    gamma: Option<&Bound<'py, PyAny>>,
    beta: Option<&Bound<'py, PyAny>>,
    eps: f64,
) -> PyResult<PyTensor> {
    let input = require_tensor(x, "batch_norm")?;
    ops::batch_norm(x.py(), input, [Some(mean), Some(var), gamma, beta], eps)
}

/// Scaled dot-product attention, as PyTorch's
/// `torch.nn.functional.scaled_dot_product_attention`: `query`
/// `[..., L, E]`, `key` `[..., S, E]`, `value` `[..., S, Ev]` →
/// `[..., L, Ev]`, computed fused (the `L×S` scores are never held). A
/// float `attn_mask` broadcasting to `[..., L, S]` is added to the scores;
/// `is_causal` lets query `i` see keys `j <= i`; `scale` defaults to
/// `1/sqrt(E)`. Written over a temporary or donated `query` when the
/// result has its shape (`Ev == E`). Inference only: `dropout_p` must be 0.
#[pyfunction]
#[pyo3(signature = (query, key, value, attn_mask = None, dropout_p = 0.0, is_causal = false, scale = None))]
pub(crate) fn scaled_dot_product_attention<'py>(
    query: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
    value: &Bound<'py, PyAny>,
    attn_mask: Option<&Bound<'py, PyAny>>,
    dropout_p: f64,
    is_causal: bool,
    scale: Option<f64>,
) -> PyResult<PyTensor> {
    const NAME: &str = "scaled_dot_product_attention";
    let mut inputs = smallvec![
        require_tensor(query, NAME)?,
        require_tensor(key, NAME)?,
        require_tensor(value, NAME)?
    ];
    if let Some(m) = attn_mask {
        inputs.push(require_tensor(m, NAME)?);
    }
    if dropout_p != 0.0 {
        return Err(PyValueError::new_err(format!(
            "{NAME}: dropout is not supported (inference only), got dropout_p={dropout_p}"
        )));
    }
    let op = Op::Attention {
        causal: is_causal,
        scale,
        mask: attn_mask.is_some(),
    };
    call(query.py(), &op, inputs)
}

/// `input + mat1 @ mat2` in one pass (PyTorch's `addmm`, with NumPy's
/// `matmul` rules for the product, so batched too): the product is added
/// into a buffer holding `input` broadcast to its shape, which is
/// `input`'s own when `input` is a temporary or donated and has that
/// shape (a residual connection `addmm(x.donate(), h, w)` writes into `x`).
#[pyfunction]
pub(crate) fn addmm<'py>(
    input: &Bound<'py, PyAny>,
    mat1: &Bound<'py, PyAny>,
    mat2: &Bound<'py, PyAny>,
) -> PyResult<PyTensor> {
    let inputs = smallvec![
        require_tensor(input, "addmm")?,
        require_tensor(mat1, "addmm")?,
        require_tensor(mat2, "addmm")?
    ];
    call(input.py(), &Op::Addmm, inputs)
}

/// The matrix product `a @ b`, as NumPy's `matmul`: stacks of matrices
/// broadcast over their leading axes, and a 1-d operand is a row (left)
/// or a column (right) whose axis the result drops. Always a new buffer.
#[pyfunction]
pub(crate) fn matmul(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PyTensor> {
    let py = a.py();
    let (a, b) = (require_tensor(a, "matmul")?, require_tensor(b, "matmul")?);
    call(py, &Op::Matmul, smallvec![a, b])
}

/// Process-wide tensor memory counters (bytes and counts).
#[pyfunction]
pub(crate) fn memory_stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let s = donate::memory_stats();
    let d = PyDict::new(py);
    d.set_item("live_bytes", s.live_bytes)?;
    d.set_item("peak_bytes", s.peak_bytes)?;
    d.set_item("allocations", s.allocations)?;
    d.set_item("reused_bytes", s.reused_bytes)?;
    d.set_item("implicit_donations", s.implicit_donations)?;
    d.set_item("explicit_donations", s.explicit_donations)?;
    d.set_item("donation_fallbacks", s.donation_fallbacks)?;
    d.set_item("in_place_ops", s.in_place_ops)?;
    // Times a planned program's run differed from its plan (a claim
    // refused, a kept buffer unused): 0 unless the planner has a bug.
    d.set_item("plan_mismatches", donate::program::plan_mismatches())?;
    Ok(d)
}

/// Set the peak to the bytes live now.
#[pyfunction]
pub(crate) fn reset_peak_memory() {
    donate::reset_peak();
}

/// An arena: `with donate.arena(max_bytes=N) as ar: ...`.
#[pyfunction]
#[pyo3(signature = (max_bytes = None))]
pub(crate) fn arena(max_bytes: Option<usize>) -> super::arena::PyArena {
    super::arena::PyArena::new(max_bytes)
}

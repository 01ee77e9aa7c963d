//! The operations behind the `Tensor` methods, the operators and the
//! module functions: dtype promotion (NumPy's rules, NEP 50 for Python
//! scalars), result shapes, and the call into the core through
//! [`operands::run`].

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::any::{each, for_dtype, AnyTensor, PyElem, Scalar};
use super::errors::IntoPyResult;
use super::interop::check_scalar;
use super::operands::{self, lock, read, read_as, slots, Held, Input, Offer, Reuses, Source};
use super::ownership::{input_from, require_input};
use super::tensor::PyTensor;
use crate::ops::{binary as core_binary, nn, unary as core_unary};
use crate::shape::broadcast_shapes;
use crate::{BinaryOp, DType, Error, OperandDType, Operand, Refusal, Tensor, UnaryOp};

const INPUT: &[&str] = &["the input"];
const TWO: &[&str] = &["the left operand", "the right operand"];

/// The tensor at `h` (a held tensor operand).
pub(crate) fn tensor_of(h: &Held) -> &AnyTensor {
    match h {
        Held::Read(t) | Held::Own(t, _) => t,
        Held::Scalar(_) => unreachable!("tensor operands are never held as scalars"),
    }
}

/// The dtype of a float-only op's result for an input dtype: integers are
/// computed in float64, as NumPy's ufuncs do.
fn float_result(d: DType) -> DType {
    if d.is_float() {
        d
    } else {
        DType::F64
    }
}

/// `op(x)`, element-wise.
pub(crate) fn unary(py: Python<'_>, op: UnaryOp, x: Input<'_>) -> PyResult<PyTensor> {
    let d = x.dtype().unwrap_or(DType::F32);
    let dtype = if op.supports_int() {
        d
    } else {
        float_result(d)
    };
    let shape = x.shape().to_vec();
    let out = operands::run(
        py,
        op.name(),
        INPUT,
        vec![x],
        dtype,
        Reuses::Into(&shape),
        move |h| {
            let x = slots(h).remove(0);
            for_dtype!(dtype, T => Ok(core_unary::unary::<T>(op, x.typed::<T>(op.name())?)?.0.into()))
        },
    )?;
    Ok(PyTensor::new(out))
}

/// NumPy's result dtype for `a op b` (NEP 50: a Python scalar takes the
/// tensor's dtype unless a float meets an integer tensor); true division
/// of integers gives float64.
pub(crate) fn binary_dtype(op: BinaryOp, a: &Input<'_>, b: &Input<'_>) -> PyResult<DType> {
    let weak = |t: DType, s: Scalar| match (t.is_float(), s) {
        (false, Scalar::Float(_)) => DType::F64,
        _ => t,
    };
    let d = match (a.dtype(), b.dtype(), a.scalar(), b.scalar()) {
        (Some(_), Some(_), _, _) => promote_operands(op.name(), a, b)?,
        (Some(x), None, _, Some(s)) => weak(x, s),
        (None, Some(y), Some(s), _) => weak(y, s),
        _ => {
            return Err(PyTypeError::new_err(format!(
                "{}: at least one operand must be a tensor",
                op.name()
            )))
        }
    };
    let d = if op == BinaryOp::Div {
        float_result(d)
    } else {
        d
    };
    for s in [a.scalar(), b.scalar()].into_iter().flatten() {
        check_scalar(s, d)?;
    }
    Ok(d)
}

/// NumPy's result dtype of two tensor operands (tensors, or converted data
/// with the NumPy dtype it had; see [`crate::promote`]), held in a tensor
/// dtype.
pub(crate) fn promote_operands(op: &str, a: &Input<'_>, b: &Input<'_>) -> PyResult<DType> {
    let (Some(x), Some(y)) = (a.operand_dtype(), b.operand_dtype()) else {
        return Err(PyTypeError::new_err(format!("{op}: expected two tensor operands")));
    };
    let r = OperandDType::promote(x, y);
    r.tensor_dtype().or_else(|| r.held_as()).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{op}: the result dtype {r} (of {x} and {y}) is not supported"
        ))
    })
}

/// `a op b` with broadcasting.
pub(crate) fn binary(
    py: Python<'_>,
    op: BinaryOp,
    a: Input<'_>,
    b: Input<'_>,
) -> PyResult<PyTensor> {
    let dtype = binary_dtype(op, &a, &b)?;
    let shape = broadcast_shapes(op.name(), a.shape(), b.shape()).py()?;
    let out = operands::run(
        py,
        op.name(),
        TWO,
        vec![a, b],
        dtype,
        Reuses::Into(&shape),
        move |h| {
            let mut s = slots(h);
            let (b, a) = (
                s.pop().expect("two operands"),
                s.pop().expect("two operands"),
            );
            for_dtype!(dtype, T => Ok(core_binary::binary::<T>(op, a.typed::<T>(op.name())?, b.typed::<T>(op.name())?)?.0.into()))
        },
    )?;
    Ok(PyTensor::new(out))
}

/// An operator: `me op other` (or `other op me` when `reflected`);
/// `NotImplemented` for operand types we do not handle.
pub(crate) fn binary_dunder(
    me: Input<'_>,
    other: &Bound<'_, PyAny>,
    op: BinaryOp,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let py = other.py();
    let Some(o) = input_from(other)? else {
        return Ok(py.NotImplemented());
    };
    let (a, b) = if reflected { (o, me) } else { (me, o) };
    Ok(Py::new(py, binary(py, op, a, b)?)?.into_any())
}

/// `x @ y`.
pub(crate) fn matmul(py: Python<'_>, a: Input<'_>, b: Input<'_>) -> PyResult<PyTensor> {
    if a.scalar().is_some() || b.scalar().is_some() {
        return Err(PyTypeError::new_err(
            "matmul: operands must be tensors or arrays, not scalars",
        ));
    }
    let dtype = promote_operands("matmul", &a, &b)?;
    nn::matmul_shapes(a.shape(), b.shape()).py()?;
    let out = operands::run(
        py,
        "matmul",
        TWO,
        vec![a, b],
        dtype,
        Reuses::Never("matmul"),
        move |h| {
            let mut s = slots(h);
            let (b, a) = (
                s.pop().expect("two operands"),
                s.pop().expect("two operands"),
            );
            for_dtype!(dtype, T => Ok(nn::matmul::<T>(a.typed::<T>("matmul")?, b.typed::<T>("matmul")?)?.0.into()))
        },
    )?;
    Ok(PyTensor::new(out))
}

/// The reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reduction {
    Sum,
    Mean,
    Max,
}

/// `sum`/`mean`/`max` over one axis or all. Like NumPy, integer sums are
/// int64 and integer means float64.
pub(crate) fn reduce(
    py: Python<'_>,
    which: Reduction,
    x: Input<'_>,
    axis: Option<isize>,
    keepdims: bool,
) -> PyResult<PyTensor> {
    let d = x.dtype().unwrap_or(DType::F32);
    let (name, dtype) = match which {
        Reduction::Sum => ("sum", if d.is_float() { d } else { DType::I64 }),
        Reduction::Mean => ("mean", float_result(d)),
        Reduction::Max => ("max", d),
    };
    let out = operands::run(
        py,
        name,
        INPUT,
        vec![x],
        dtype,
        Reuses::Never(name),
        move |h| {
            let t = tensor_of(&h[0]);
            match which {
                Reduction::Sum => each!(t, t => t.sum(axis, keepdims).map(AnyTensor::from)),
                Reduction::Max => each!(t, t => t.max(axis, keepdims).map(AnyTensor::from)),
                Reduction::Mean => match t {
                    AnyTensor::F32(t) => t.mean(axis, keepdims).map(AnyTensor::from),
                    AnyTensor::F64(t) => t.mean(axis, keepdims).map(AnyTensor::from),
                    other => Err(Error::UnsupportedDType {
                        op: "mean",
                        dtype: other.dtype(),
                    }),
                },
            }
        },
    )?;
    Ok(PyTensor::new(out))
}

pub(crate) fn float_only(op: &'static str, x: &Input<'_>) -> PyResult<DType> {
    match x.dtype() {
        Some(d) if d.is_float() => Ok(d),
        Some(d) => Err(PyTypeError::new_err(format!(
            "{op} needs a float tensor, got {d}"
        ))),
        None => Err(PyTypeError::new_err(format!("{op} needs a tensor"))),
    }
}

/// Softmax along `axis` (the last one).
pub(crate) fn softmax(py: Python<'_>, x: Input<'_>, axis: isize) -> PyResult<PyTensor> {
    let dtype = float_only("softmax", &x)?;
    // Validate the axis before any buffer is claimed.
    let nd = x.shape().len().max(1);
    let a = crate::shape::normalize_axis(axis, nd).py()?;
    if a + 1 != nd {
        return Err(PyValueError::new_err(format!(
            "softmax: only the last axis is supported (got axis {axis} of {nd})"
        )));
    }
    let shape = x.shape().to_vec();
    let out = operands::run(
        py,
        "softmax",
        INPUT,
        vec![x],
        dtype,
        Reuses::Into(&shape),
        move |h| {
            let x = slots(h).remove(0);
            match dtype {
                DType::F32 => Ok(nn::softmax::<f32>(x.typed("softmax")?, axis)?.0.into()),
                _ => Ok(nn::softmax::<f64>(x.typed("softmax")?, axis)?.0.into()),
            }
        },
    )?;
    Ok(PyTensor::new(out))
}

/// Layer normalisation over the last axis with optional `gamma` and `beta`
/// (cast to the input's dtype).
pub(crate) fn layer_norm<'py>(
    py: Python<'py>,
    x: Input<'py>,
    gamma: Option<&Bound<'py, PyAny>>,
    beta: Option<&Bound<'py, PyAny>>,
    eps: f64,
) -> PyResult<PyTensor> {
    // `None` and a missing argument mean the same.
    let param = |p: Option<&Bound<'py, PyAny>>| {
        p.filter(|p| !p.is_none())
            .map(|p| require_input(p, "layer_norm"))
            .transpose()
    };
    let (gamma, beta) = (param(gamma)?, param(beta)?);
    let dtype = float_only("layer_norm", &x)?;
    let shape = x.shape().to_vec();
    let Some(&row) = shape.last() else {
        return Err(PyValueError::new_err(
            "layer_norm needs a tensor with at least one axis",
        ));
    };
    if !(eps >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "layer_norm: eps must be >= 0, got {eps}"
        )));
    }
    let mut inputs = vec![x];
    let mut labels = vec!["the input"];
    let (has_g, has_b) = (gamma.is_some(), beta.is_some());
    for (p, name) in [(gamma, "gamma"), (beta, "beta")] {
        if let Some(p) = p {
            if p.shape() != [row] {
                return Err(PyValueError::new_err(format!(
                    "layer_norm: {name} must have shape ({row},), got {:?}",
                    p.shape()
                )));
            }
            if p.scalar().is_some() {
                return Err(PyTypeError::new_err(format!(
                    "layer_norm: {name} must be a tensor"
                )));
            }
            // An explicit donation stays offered: `operands::run` refuses
            // it (with a warning) as a parameter.
            inputs.push(p);
            labels.push(if name == "gamma" { "gamma" } else { "beta" });
        }
    }
    let out = operands::run(
        py,
        "layer_norm",
        &labels,
        inputs,
        dtype,
        Reuses::IntoInput(&shape),
        move |h| {
            let (x, params) = h.split_first_mut().expect("the input comes first");
            let mut params = params.iter();
            let g = if has_g { params.next() } else { None };
            let b = if has_b { params.next() } else { None };
            fn typed<'a, T: PyElem>(h: Option<&'a Held>) -> Option<&'a Tensor<T>> {
                h.and_then(|h| T::peel(tensor_of(h)))
            }
            let x = slots(std::slice::from_mut(x)).remove(0);
            match dtype {
                DType::F32 => {
                    Ok(
                        nn::layer_norm::<f32>(x.typed("layer_norm")?, typed(g), typed(b), eps)?
                            .0
                            .into(),
                    )
                }
                _ => Ok(
                    nn::layer_norm::<f64>(x.typed("layer_norm")?, typed(g), typed(b), eps)?
                        .0
                        .into(),
                ),
            }
        },
    )?;
    Ok(PyTensor::new(out))
}

/// Resolve `-1` in a reshape target.
pub(crate) fn reshape_target(numel: usize, dims: &[i64]) -> PyResult<Vec<usize>> {
    let mut infer = None;
    let mut known: usize = 1;
    for (i, &d) in dims.iter().enumerate() {
        if d == -1 {
            if infer.replace(i).is_some() {
                return Err(PyValueError::new_err(
                    "reshape: can only specify one unknown dimension (-1)",
                ));
            }
        } else if d < 0 {
            return Err(PyValueError::new_err(format!(
                "reshape: negative dimension {d}"
            )));
        } else {
            known = known.checked_mul(d as usize).ok_or_else(|| {
                pyo3::exceptions::PyOverflowError::new_err("reshape: dimensions overflow")
            })?;
        }
    }
    let mut out: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = infer {
        if known == 0 || numel % known != 0 {
            return Err(PyValueError::new_err(format!(
                "cannot reshape a tensor of size {numel} into shape {dims:?}"
            )));
        }
        out[i] = numel / known;
    }
    Ok(out)
}

/// `reshape`: shares the buffer with `x`; a temporary's buffer moves into
/// the result instead, so the result is exclusive.
pub(crate) fn reshape(py: Python<'_>, x: Input<'_>, shape: &[usize]) -> PyResult<PyTensor> {
    let Source::Tensor(obj) = &x.src else {
        unreachable!("reshape is a method")
    };
    let mut g = lock(py, &obj.get().slot);
    g.check_readable().py()?;
    let dtype = g.dtype();
    let out = if x.offer() == Offer::Implicit && g.is_exclusive() {
        // Validate first: a refused reshape must not consume the input.
        g.reshape(shape).py()?;
        let buf = g.take_buffer_for("reshape").py()?;
        crate::stats::record_reuse(crate::Reuse::Implicit, buf.len());
        AnyTensor::from_buffer(dtype, buf, shape).py()?
    } else {
        g.reshape(shape).py()?
    };
    Ok(PyTensor::new(out))
}

/// `transpose`: a copy with permuted axes.
pub(crate) fn permute(py: Python<'_>, t: &PyTensor, axes: &[isize]) -> PyResult<PyTensor> {
    let src = read(py, t)?;
    let out = super::arena::detach(py, || src.permute(axes)).py()?;
    Ok(PyTensor::new(out))
}

/// `x.<op>_()`: in place, copy-on-write if the buffer is shared.
pub(crate) fn unary_inplace(py: Python<'_>, x: &PyTensor, op: UnaryOp) -> PyResult<()> {
    if !x.dtype.is_float() && !op.supports_int() {
        return Err(PyTypeError::new_err(format!(
            "{}_: the float64 result cannot be written into an {} tensor in place",
            op.name(),
            x.dtype
        )));
    }
    let mut g = lock(py, &x.slot);
    let t: &mut AnyTensor = &mut g;
    super::arena::detach(py, || each!(t, t => t.unary_inplace(op))).py()
}

/// `x op= other`: in place (copy-on-write if shared); the result must keep
/// `x`'s shape and dtype.
pub(crate) fn binary_inplace(
    py: Python<'_>,
    x: &Bound<'_, PyTensor>,
    op: BinaryOp,
    other: Input<'_>,
) -> PyResult<()> {
    let me = x.get();
    let dtype = me.dtype;
    let res = binary_dtype(op, &Input::kept(x.clone()), &other)?;
    if res != dtype {
        return Err(PyTypeError::new_err(format!(
            "{}: the {res} result cannot be written into a {dtype} tensor in place",
            op.name()
        )));
    }
    let out = broadcast_shapes(op.name(), &me.shape, other.shape()).py()?;
    if out != me.shape {
        return Err(Error::ShapeMismatch {
            op: op.name(),
            lhs: me.shape.clone(),
            rhs: other.shape().to_vec(),
        })
        .py();
    }
    // `x op= x` reads its own target: read it under the same lock as the
    // write (one critical section), so another thread's in-place op cannot
    // land between the read and the write. Any other operand is read first
    // (it may need a cast), then `x` is locked.
    let same = matches!(&other.src, Source::Tensor(o) if o.is(x));
    let rhs = match &other.src {
        Source::Scalar(s) => Some(Held::Scalar(*s)),
        _ => {
            let other = other.read_only(
                py,
                op.name(),
                "the right operand",
                Refusal::InPlaceTarget(op.name()),
            )?;
            if same {
                None
            } else {
                Some(Held::Read(read_as(py, &other, dtype)?))
            }
        }
    };
    let mut g = lock(py, &me.slot);
    let rhs = match rhs {
        Some(h) => h,
        None => {
            g.check_readable().py()?;
            Held::Read(g.clone())
        }
    };
    let t: &mut AnyTensor = &mut g;
    super::arena::detach(py, || {
        for_dtype!(dtype, T => {
            let me = T::peel_mut(t).ok_or(Error::DTypeMismatch { op: op.name(), expected: dtype, found: dtype })?;
            let rhs = match &rhs {
                Held::Scalar(s) => Operand::Scalar(T::from_scalar(*s)),
                h => Operand::Ref(T::peel(tensor_of(h)).ok_or(Error::DTypeMismatch { op: op.name(), expected: dtype, found: tensor_of(h).dtype() })?),
            };
            me.binary_inplace(op, rhs)
        })
    })
    .py()
}

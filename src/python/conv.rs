//! `conv2d` and inference `batch_norm`: the module functions, and the ops
//! behind the `Tensor` methods (`conv2d`, `batch_norm`, `batch_norm_`).
//!
//! `conv2d` writes over a temporary or donated input when the result keeps
//! its shape (never over the weight); `batch_norm` claims a temporary or
//! donated input; `batch_norm_` updates in place (copy-on-write when the
//! buffer is shared).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::any::{AnyTensor, PyElem, Slot};
use super::errors::IntoPyResult;
use super::operands::{self, lock, read_as, slots, Input, Offer, Reuses};
use super::ops::{float_only, tensor_of};
use super::ownership::require_input;
use super::tensor::PyTensor;
use crate::kernels::conv::ConvElement;
use crate::kernels::fresh::OverInputScratch;
use crate::ops::conv::{self as core_conv, BatchNorm};
use crate::{DType, Error, Refusal, Tensor};

/// A parameter tensor as `T` (the caller converted it to the op's dtype; a
/// mismatch is reported, never reinterpreted).
fn typed<'a, T: PyElem>(t: &'a AnyTensor, op: &'static str) -> crate::Result<&'a Tensor<T>> {
    T::peel(t).ok_or(Error::DTypeMismatch {
        op,
        expected: T::DTYPE,
        found: t.dtype(),
    })
}

/// An optional tensor argument (`None` means absent): a parameter the
/// operation only reads.
fn optional<'py>(p: Option<&Bound<'py, PyAny>>, op: &str) -> PyResult<Option<Input<'py>>> {
    p.filter(|p| !p.is_none())
        .map(|p| {
            let i = require_input(p, op)?;
            if i.scalar().is_some() {
                return Err(PyTypeError::new_err(format!(
                    "{op}: parameters must be tensors or arrays, not numbers"
                )));
            }
            // An explicit donation stays offered: `operands::run` refuses
            // it (with a warning) as a parameter.
            Ok(i)
        })
        .transpose()
}

/// `conv2d(x, weight, bias=None, stride=1, padding=0)`.
pub(crate) fn conv2d<'py>(
    py: Python<'py>,
    x: Input<'py>,
    weight: &Bound<'py, PyAny>,
    bias: Option<&Bound<'py, PyAny>>,
    stride: usize,
    padding: usize,
) -> PyResult<PyTensor> {
    let w = require_input(weight, "conv2d")?;
    let dtype = DType::promote(float_only("conv2d", &x)?, float_only("conv2d", &w)?);
    let g = core_conv::conv2d_geometry(x.shape(), w.shape(), stride, padding).py()?;
    let bias = optional(bias, "conv2d")?;
    if let Some(b) = &bias {
        if b.shape() != [g.out_channels] {
            return Err(PyValueError::new_err(format!(
                "conv2d: bias must have shape ({},), got {:?}",
                g.out_channels,
                b.shape()
            )));
        }
    }
    let has_bias = bias.is_some();
    let (oh, ow) = g.out_hw();
    let out_shape = [g.batch, g.out_channels, oh, ow];
    // Writing over the input needs scratch: allocate it now, before
    // `operands::run` claims the input's buffer, so that a failure leaves
    // the input intact. (Only when the input may receive the result: it is
    // offered, or a cast copy.)
    let over_input = out_shape == x.shape() && (x.offer() != Offer::Keep || x.dtype() != Some(dtype));
    let scratch = if over_input {
        Some(match dtype {
            DType::F32 => OverInputScratch::new::<f32>(&g),
            _ => OverInputScratch::new::<f64>(&g),
        }
        .py()?)
    } else {
        None
    };
    let mut inputs = vec![x, w];
    inputs.extend(bias);
    let out = operands::run(
        py,
        "conv2d",
        &["the input", "the weight", "the bias"][..inputs.len()],
        inputs,
        dtype,
        Reuses::IntoInput(&out_shape),
        move |h| {
            let bias = if has_bias {
                Some(tensor_of(&h[2]).clone())
            } else {
                None
            };
            let mut s = slots(&mut h[..2]);
            let (w, x) = (
                s.pop().expect("two operands"),
                s.pop().expect("two operands"),
            );
            match dtype {
                DType::F32 => conv_typed::<f32>(x, w, bias.as_ref(), stride, padding, scratch),
                _ => conv_typed::<f64>(x, w, bias.as_ref(), stride, padding, scratch),
            }
        },
    )?;
    Ok(PyTensor::new(out))
}

fn conv_typed<T: PyElem + ConvElement>(
    x: Slot<'_>,
    w: Slot<'_>,
    bias: Option<&AnyTensor>,
    stride: usize,
    padding: usize,
    scratch: Option<OverInputScratch>,
) -> crate::Result<AnyTensor>
where
    AnyTensor: From<Tensor<T>>,
{
    let b = bias.map(|b| typed::<T>(b, "conv2d")).transpose()?;
    let (x, w) = (x.typed("conv2d")?, w.typed("conv2d")?);
    Ok(core_conv::conv2d_with_scratch::<T>(x, w, b, stride, padding, scratch)?.0.into())
}

/// The parameters of `batch_norm`, checked against the input's shape.
pub(crate) struct BnArgs<'py> {
    params: Vec<Input<'py>>,
    /// "mean", "var", then "gamma" and "beta" when given.
    labels: Vec<&'static str>,
    has_gamma: bool,
    has_beta: bool,
    eps: f64,
}

impl<'py> BnArgs<'py> {
    pub(crate) fn new(
        x_shape: &[usize],
        mean: &Bound<'py, PyAny>,
        var: &Bound<'py, PyAny>,
        gamma: Option<&Bound<'py, PyAny>>,
        beta: Option<&Bound<'py, PyAny>>,
        eps: f64,
    ) -> PyResult<Self> {
        if x_shape.len() < 2 {
            return Err(PyValueError::new_err(format!(
                "batch_norm needs an input of at least 2 axes [N, C, ...], got shape {x_shape:?}"
            )));
        }
        if !(eps >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "batch_norm: eps must be >= 0, got {eps}"
            )));
        }
        let c = x_shape[1];
        let mut params = Vec::with_capacity(4);
        let mut labels = Vec::with_capacity(4);
        for (p, name) in [
            (Some(mean), "mean"),
            (Some(var), "var"),
            (gamma, "gamma"),
            (beta, "beta"),
        ] {
            let Some(p) = optional(p, "batch_norm")? else {
                continue;
            };
            if p.shape() != [c] {
                return Err(PyValueError::new_err(format!(
                    "batch_norm: {name} must have shape ({c},), got {:?}",
                    p.shape()
                )));
            }
            labels.push(name);
            params.push(p);
        }
        if params.len() < 2 {
            return Err(PyTypeError::new_err(
                "batch_norm: mean and var are required",
            ));
        }
        Ok(BnArgs {
            has_gamma: labels.contains(&"gamma"),
            has_beta: labels.contains(&"beta"),
            params,
            labels,
            eps,
        })
    }
}

/// Run `f` with the typed [`BatchNorm`] over `params` (mean, var, then
/// gamma and beta when present).
fn with_bn<T: PyElem + ConvElement, R>(
    params: &[&AnyTensor],
    has_gamma: bool,
    has_beta: bool,
    eps: f64,
    f: impl FnOnce(&BatchNorm<'_, T>) -> crate::Result<R>,
) -> crate::Result<R> {
    let mut it = params.iter().map(|t| typed::<T>(t, "batch_norm"));
    let mean = it.next().expect("mean")?;
    let var = it.next().expect("var")?;
    let gamma = if has_gamma {
        Some(it.next().expect("gamma")?)
    } else {
        None
    };
    let beta = if has_beta {
        Some(it.next().expect("beta")?)
    } else {
        None
    };
    f(&BatchNorm {
        mean,
        var,
        gamma,
        beta,
        eps,
    })
}

/// `batch_norm(x, mean, var, gamma=None, beta=None, eps=1e-5)`: claims a
/// temporary or donated `x`.
pub(crate) fn batch_norm(py: Python<'_>, x: Input<'_>, args: BnArgs<'_>) -> PyResult<PyTensor> {
    let dtype = float_only("batch_norm", &x)?;
    let shape = x.shape().to_vec();
    let BnArgs {
        params,
        labels: names,
        has_gamma,
        has_beta,
        eps,
    } = args;
    let labels: Vec<&str> = std::iter::once("the input").chain(names).collect();
    let mut inputs = vec![x];
    inputs.extend(params);
    let out = operands::run(
        py,
        "batch_norm",
        &labels,
        inputs,
        dtype,
        Reuses::IntoInput(&shape),
        move |h| {
            let (x, params) = h.split_first_mut().expect("the input comes first");
            let params: Vec<&AnyTensor> = params.iter().map(tensor_of).collect();
            let x = slots(std::slice::from_mut(x)).remove(0);
            match dtype {
                DType::F32 => with_bn::<f32, _>(&params, has_gamma, has_beta, eps, |p| {
                    Ok(core_conv::batch_norm(x.typed("batch_norm")?, p)?.0.into())
                }),
                _ => with_bn::<f64, _>(&params, has_gamma, has_beta, eps, |p| {
                    Ok(core_conv::batch_norm(x.typed("batch_norm")?, p)?.0.into())
                }),
            }
        },
    )?;
    Ok(PyTensor::new(out))
}

/// `x.batch_norm_(...)`: in place (copy-on-write when shared).
pub(crate) fn batch_norm_inplace(py: Python<'_>, x: &PyTensor, args: BnArgs<'_>) -> PyResult<()> {
    let dtype = x.dtype;
    if !dtype.is_float() {
        return Err(PyTypeError::new_err(format!(
            "batch_norm_ needs a float tensor, got {dtype}"
        )));
    }
    // Read the parameters before locking `x` (one may share its buffer).
    let mut params = Vec::with_capacity(args.params.len());
    for (p, label) in args.params.into_iter().zip(args.labels) {
        let p = p.read_only(py, "batch_norm_", label, Refusal::InPlaceTarget("batch_norm_"))?;
        params.push(read_as(py, &p, dtype)?);
    }
    let refs: Vec<&AnyTensor> = params.iter().collect();
    let (has_gamma, has_beta, eps) = (args.has_gamma, args.has_beta, args.eps);
    let mut g = lock(py, &x.slot);
    let t: &mut AnyTensor = &mut g;
    super::arena::detach(py, || match t {
        AnyTensor::F32(t) => {
            with_bn::<f32, _>(&refs, has_gamma, has_beta, eps, |p| t.batch_norm_inplace(p))
        }
        AnyTensor::F64(t) => {
            with_bn::<f64, _>(&refs, has_gamma, has_beta, eps, |p| t.batch_norm_inplace(p))
        }
        _ => unreachable!("checked float above"),
    })
    .py()
}

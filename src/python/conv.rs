//! `conv2d` and inference `batch_norm`: the module functions, and the ops
//! behind the `Tensor` methods (`conv2d`, `batch_norm`, `batch_norm_`).
//!
//! `conv2d` writes over a temporary or donated input when the result keeps
//! its shape (never over the weight); `batch_norm` claims a temporary or
//! donated input; `batch_norm_` updates in place (copy-on-write when the
//! buffer is shared).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use super::any::{AnyTensor, PyElem};
use super::errors::IntoPyResult;
use super::operands::{self, lock, read, slots, Held, Input, Offer, Reuses, Source};
use super::ownership::require_input;
use super::tensor::PyTensor;
use crate::ops::conv::{self as core_conv, BatchNorm};
use crate::{DType, Error, Tensor};

fn float_dtype(op: &'static str, x: &Input<'_>) -> PyResult<DType> {
    match x.dtype() {
        Some(d) if d.is_float() => Ok(d),
        Some(d) => Err(PyTypeError::new_err(format!(
            "{op} needs a float tensor, got {d}"
        ))),
        None => Err(PyTypeError::new_err(format!("{op} needs a tensor"))),
    }
}

fn held_tensor(h: &Held) -> &AnyTensor {
    match h {
        Held::Read(t) | Held::Own(t, _) => t,
        Held::Scalar(_) => unreachable!("conv operands are tensors"),
    }
}

fn typed<T: PyElem>(t: &AnyTensor) -> crate::Result<&Tensor<T>> {
    T::peel(t).ok_or(Error::DTypeMismatch {
        op: "conv2d",
        expected: T::DTYPE,
        found: t.dtype(),
    })
}

/// An optional tensor argument (`None` means absent), read only.
fn optional<'py>(p: Option<&Bound<'py, PyAny>>, op: &str) -> PyResult<Option<Input<'py>>> {
    p.filter(|p| !p.is_none())
        .map(|p| {
            let mut i = require_input(p, op)?;
            if i.scalar().is_some() {
                return Err(PyTypeError::new_err(format!(
                    "{op}: parameters must be tensors or arrays, not numbers"
                )));
            }
            i.offer = Offer::Keep;
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
    let dtype = DType::promote(float_dtype("conv2d", &x)?, float_dtype("conv2d", &w)?);
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
    let mut inputs = vec![x, w];
    inputs.extend(bias);
    let out = operands::run(
        py,
        "conv2d",
        &["the input", "the weight", "the bias"][..inputs.len()],
        inputs,
        dtype,
        Reuses::IntoInput(&out_shape, "conv2d"),
        move |h| {
            let bias = if has_bias {
                Some(held_tensor(&h[2]).clone())
            } else {
                None
            };
            let mut s = slots(&mut h[..2]);
            let (w, x) = (
                s.pop().expect("two operands"),
                s.pop().expect("two operands"),
            );
            match dtype {
                DType::F32 => {
                    let b = bias.as_ref().map(typed::<f32>).transpose()?;
                    Ok(core_conv::conv2d::<f32>(
                        x.typed("conv2d")?,
                        w.typed("conv2d")?,
                        b,
                        stride,
                        padding,
                    )?
                    .0
                    .into())
                }
                _ => {
                    let b = bias.as_ref().map(typed::<f64>).transpose()?;
                    Ok(core_conv::conv2d::<f64>(
                        x.typed("conv2d")?,
                        w.typed("conv2d")?,
                        b,
                        stride,
                        padding,
                    )?
                    .0
                    .into())
                }
            }
        },
    )?;
    Ok(PyTensor::new(out))
}

/// The parameters of `batch_norm`, checked against the input's shape.
pub(crate) struct BnArgs<'py> {
    params: Vec<Input<'py>>,
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
        let mut flags = [true, true, false, false];
        for (i, (p, name)) in [
            (Some(mean), "mean"),
            (Some(var), "var"),
            (gamma, "gamma"),
            (beta, "beta"),
        ]
        .into_iter()
        .enumerate()
        {
            let Some(p) = optional(p, "batch_norm")? else {
                continue;
            };
            if p.shape() != [c] {
                return Err(PyValueError::new_err(format!(
                    "batch_norm: {name} must have shape ({c},), got {:?}",
                    p.shape()
                )));
            }
            flags[i] = true;
            params.push(p);
        }
        if params.len() < 2 {
            return Err(PyTypeError::new_err(
                "batch_norm: mean and var are required",
            ));
        }
        Ok(BnArgs {
            params,
            has_gamma: flags[2],
            has_beta: flags[3],
            eps,
        })
    }
}

/// Run `f` with the typed [`BatchNorm`] over `params` (mean, var, then
/// gamma and beta when present).
fn with_bn<T: PyElem + crate::kernels::conv::ConvElement, R>(
    params: &[&AnyTensor],
    has_gamma: bool,
    has_beta: bool,
    eps: f64,
    f: impl FnOnce(&BatchNorm<'_, T>) -> crate::Result<R>,
) -> crate::Result<R> {
    let mut it = params.iter().map(|t| typed::<T>(t));
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
    let dtype = float_dtype("batch_norm", &x)?;
    let shape = x.shape().to_vec();
    let BnArgs {
        params,
        has_gamma,
        has_beta,
        eps,
    } = args;
    let labels = ["the input", "mean", "var", "gamma", "beta"];
    let labels: Vec<&str> = labels
        .iter()
        .copied()
        .filter(|l| match *l {
            "gamma" => has_gamma,
            "beta" => has_beta,
            _ => true,
        })
        .collect();
    let mut inputs = vec![x];
    inputs.extend(params);
    let out = operands::run(
        py,
        "batch_norm",
        &labels,
        inputs,
        dtype,
        Reuses::Into(&shape),
        move |h| {
            let (x, params) = h.split_first_mut().expect("the input comes first");
            let params: Vec<&AnyTensor> = params.iter().map(held_tensor).collect();
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
    for p in &args.params {
        let t = match &p.src {
            Source::Tensor(o) => read(py, o.get())?,
            Source::Temp(t) => t.clone(),
            Source::Scalar(_) => unreachable!("checked in BnArgs::new"),
        };
        params.push(if t.dtype() == dtype {
            t
        } else {
            t.cast(dtype).py()?
        });
    }
    let refs: Vec<&AnyTensor> = params.iter().collect();
    let (has_gamma, has_beta, eps) = (args.has_gamma, args.has_beta, args.eps);
    let mut g = lock(py, &x.slot);
    let t: &mut AnyTensor = &mut g;
    py.detach(|| match t {
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

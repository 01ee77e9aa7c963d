//! Counting into bins: `bincount` with a given length, the one pass behind
//! NumPy's `bincount`, `histogram` and `histogramdd` on tensors.
//!
//! Decided here:
//!
//! * **The length is a parameter.** The result has `length` bins, so its
//!   shape comes from the call, not from the values ([`bincount_signature`]),
//!   and `donate.jit` can trace it (as `jax.numpy.bincount(length=)`).
//!   NumPy's own `bincount` finds the length (`max(x) + 1`, at least
//!   `minlength`) in the Python layer, before it calls this.
//! * **Every index must be a bin.** An element of `x` below 0 or at
//!   `length` or past it is an error naming it ([`Error::InvalidIndex`]),
//!   never dropped or wrapped.
//! * **Dtypes.** `x` is read as int64 (bool and every integer dtype;
//!   floats refused, as NumPy's `safe` cast refuses them). Counts are
//!   int64. Weights are summed in the widest dtype of their kind
//!   ([`weights_dtype`]: int64 for bool and integers, wrapping as NumPy's;
//!   float64 for floats; complex128 for complex), which is the result's.
//! * **Rounding.** Each bin adds its weights in the order they come, one
//!   at a time, as NumPy's `bincount`: the same sums to the last bit, and
//!   a bin's rounding is relative to its own sum only.

use crate::array::dyn_tensor::{DynTensor, Meta};
use crate::array::element::{DType, Element, C64};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::functions::manipulation::{data, prepared};
use crate::functions::statistics::add;

const OP: &str = "bincount";

/// The dtype weights of dtype `w` are summed in, and the weighted result's.
pub fn weights_dtype(w: DType) -> DType {
    if w.is_complex() {
        DType::C128
    } else if w.is_float() {
        DType::F64
    } else {
        DType::I64
    }
}

/// The dtype and shape of `bincount(x, weights?, length)`: `[length]`, of
/// int64 counts, or of the weights' [`weights_dtype`].
pub fn bincount_signature(
    x: Meta<'_>,
    weights: Option<Meta<'_>>,
    length: usize,
) -> Result<(DType, Vec<usize>)> {
    let invalid = |reason: String| Error::InvalidArgument { op: OP, reason };
    if x.shape.len() != 1 {
        return Err(invalid(format!(
            "x must have one dimension, not {} (shape {:?})",
            x.shape.len(),
            x.shape
        )));
    }
    if !(x.dtype.is_int() || x.dtype.is_bool()) {
        return Err(invalid(format!(
            "x must hold integers or booleans, not {}",
            x.dtype
        )));
    }
    let Some(w) = weights else {
        return Ok((DType::I64, vec![length]));
    };
    if w.shape != x.shape {
        return Err(invalid(format!(
            "the weights' shape {:?} differs from x's {:?}",
            w.shape, x.shape
        )));
    }
    Ok((weights_dtype(w.dtype), vec![length]))
}

/// How many times each integer in `0..length` occurs in the 1-d `x`
/// (int64), or the sum of the `weights` at its positions (see the module's
/// rules).
pub fn bincount(x: &DynTensor, weights: Option<&DynTensor>, length: usize) -> Result<DynTensor> {
    let (dtype, shape) = bincount_signature(x.meta(), weights.map(DynTensor::meta), length)?;
    let x = prepared(x, DType::I64)?;
    let x = data::<i64>(&x, OP)?;
    let Some(w) = weights else {
        return summed(x, std::iter::repeat(1i64), &shape);
    };
    let w = prepared(w, dtype)?;
    match dtype {
        DType::I64 => summed(x, data::<i64>(&w, OP)?.iter().copied(), &shape),
        DType::F64 => summed(x, data::<f64>(&w, OP)?.iter().copied(), &shape),
        _ => summed(x, data::<C64>(&w, OP)?.iter().copied(), &shape),
    }
}

/// Each element of `w` added to the bin its element of `x` names, in
/// order (one pass; an index that is not a bin is an error).
fn summed<T: Element>(x: &[i64], w: impl Iterator<Item = T>, shape: &[usize]) -> Result<DynTensor>
where
    DynTensor: From<Tensor<T>>,
{
    let length = shape[0];
    let mut sums = vec![T::ZERO; length];
    for (&i, v) in x.iter().zip(w) {
        let b = usize::try_from(i)
            .ok()
            .filter(|&b| b < length)
            .ok_or_else(|| Error::InvalidIndex {
                reason: format!("bincount: {i} is not a bin of 0..{length}"),
            })?;
        sums[b] = add(sums[b], v);
    }
    Tensor::from_vec(sums, shape).map(DynTensor::from)
}

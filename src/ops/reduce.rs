//! Reductions: `sum`, `mean`, `max` over all elements or along one axis.
//! They always write a new buffer.

use crate::array::element::{Element, Float};
use crate::array::shape::{normalize_axis, reduce_shape, split_at_axis};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::fresh;
use crate::kernels::reduce::{self, Max, Reduce, Sum};

fn reduce_impl<T: Element, R: Reduce<T>>(
    t: &Tensor<T>,
    axis: Option<isize>,
    keepdims: bool,
    name: &'static str,
    needs_elements: bool,
) -> Result<Tensor<T>> {
    let x = t.as_slice()?;
    let shape = t.shape();
    let ax = axis.map(|a| normalize_axis(a, shape.len())).transpose()?;
    let out = reduce_shape(shape, ax, keepdims);
    let len = match ax {
        Some(a) => shape[a],
        None => x.len(),
    };
    // As NumPy: an empty reduced axis is an error even when the result
    // has no elements either (shape [0, 0] along axis 0).
    if needs_elements && len == 0 {
        return Err(Error::EmptyReduction {
            op: name,
            shape: shape.to_vec(),
        });
    }
    let buf = match ax {
        None => fresh::filled(1, reduce::reduce_all::<T, R>(x))?,
        Some(a) => {
            let (outer, len, inner) = split_at_axis(shape, a);
            fresh::reduce_axis::<T, R>(x, outer, len, inner)?
        }
    };
    Tensor::from_buffer(buf, &out)
}

impl<T: Element> Tensor<T>
where
    Sum: Reduce<T>,
    Max: Reduce<T>,
{
    /// Sum over all elements (`axis = None`) or along `axis`. `f32` sums
    /// accumulate in `f64`; integer sums wrap.
    pub fn sum(&self, axis: Option<isize>, keepdims: bool) -> Result<Tensor<T>> {
        reduce_impl::<T, Sum>(self, axis, keepdims, "sum", false)
    }

    /// Maximum (NaN-propagating). A reduced axis of length zero (or no
    /// elements at all for `axis = None`): `EmptyReduction`.
    pub fn max(&self, axis: Option<isize>, keepdims: bool) -> Result<Tensor<T>> {
        reduce_impl::<T, Max>(self, axis, keepdims, "max", true)
    }
}

impl<T: Float> Tensor<T>
where
    Sum: Reduce<T>,
    Max: Reduce<T>,
{
    /// Mean over all elements or along `axis` (NaN for zero elements, as
    /// NumPy).
    pub fn mean(&self, axis: Option<isize>, keepdims: bool) -> Result<Tensor<T>> {
        let mut s = self.sum(axis, keepdims)?;
        let n = match axis {
            None => self.numel(),
            Some(a) => self.shape()[normalize_axis(a, self.ndim())?],
        };
        let inv = 1.0 / n as f64;
        let scale = |x: &mut T| *x = T::from_f64(x.to_f64() * inv);
        // Scaled in the sum's own new buffer: the mean's one allocation
        // is its result (a planned program serves its buffer to it).
        if let Some(v) = s.data_mut() {
            v.iter_mut().for_each(scale);
            return Ok(s);
        }
        let mut v = s.to_vec()?;
        v.iter_mut().for_each(scale);
        Tensor::from_vec(v, s.shape())
    }
}

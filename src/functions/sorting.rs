//! Sorting along an axis: the array API's `sort` and `argsort`, and the
//! one order every sorting, searching and set function uses.
//!
//! Decided here:
//!
//! * **The order** ([`order`]): the elements' own, with NaN after every
//!   number and NaNs equal to each other (NumPy's sort order); `-0.0` and
//!   `0.0` are equal.
//! * **Stability.** Every sort is stable (Rust's `sort_by`): equal
//!   elements keep their order, also when `descending` (the order
//!   reversed, equal elements still first-come first), which is what the
//!   standard's `stable=True` asks; `stable=False` allows no less.
//! * **Indices** are int64 (the default index dtype).
//!
//! `argsort`'s result is a new tensor; the input is only read. `sort`
//! is [`LaneOp::Sort`](crate::functions::lane_ops::LaneOp::Sort), a planned
//! operation that writes over a temporary input, with [`order`].

use std::cmp::Ordering;

use crate::array::dyn_tensor::{each_real, DynTensor, Meta};
use crate::array::element::{DType, Element};
use crate::array::shape::normalize_axis;
use crate::array::tensor::Tensor;
use crate::error::Result;
use crate::functions::lanes::{from_lanes, lanes};
use crate::functions::statistics::is_nan;

/// The sort order: the elements' own, NaN last (NaNs equal).
#[inline]
pub fn order<T: crate::RealElement>(a: T, b: T) -> Ordering {
    match a.partial_cmp(&b) {
        Some(o) => o,
        None => is_nan(a).cmp(&is_nan(b)),
    }
}

/// The positions `0..lane.len()` in the order that sorts `lane`, stably.
pub(crate) fn sorted_positions<T: crate::RealElement>(lane: &[T], descending: bool) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..lane.len()).collect();
    if descending {
        idx.sort_by(|&i, &j| order(lane[j], lane[i]));
    } else {
        idx.sort_by(|&i, &j| order(lane[i], lane[j]));
    }
    idx
}

/// The shape of `argsort` (int64): `x`'s.
pub fn argsort_signature(x: Meta<'_>, axis: isize) -> Result<(DType, Vec<usize>)> {
    normalize_axis(axis, x.shape.len())?;
    Ok((DType::I64, x.shape.to_vec()))
}

/// The int64 indices that sort `x` along `axis` (stably).
pub fn argsort(x: &DynTensor, axis: isize, descending: bool) -> Result<DynTensor> {
    argsort_signature(x.meta(), axis)?;
    let axis = normalize_axis(axis, x.shape().len())?;
    each_real!(x, "argsort", t => along(t, axis, |lane| {
        sorted_positions(lane, descending).into_iter().map(|i| i as i64).collect()
    }).map(DynTensor::from))
}

/// Each lane of `t` along `axis` replaced by `f(lane)` (as long).
fn along<T: Element, U: Element>(
    t: &Tensor<T>,
    axis: usize,
    f: impl Fn(&[T]) -> Vec<U>,
) -> Result<Tensor<U>> {
    let l = lanes(t, &[axis])?;
    let mut out = Vec::with_capacity(l.data.len());
    for lane in l.iter() {
        out.extend(f(lane));
    }
    from_lanes(out, t.shape(), axis, l.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_sorts_last_and_ties_keep_their_order() {
        let x: DynTensor = Tensor::<f64>::from_vec(vec![2.0, f64::NAN, -1.0, 2.0, 0.5], &[5])
            .unwrap()
            .into();
        let a = argsort(&x, 0, false).unwrap();
        assert_eq!(
            a.typed::<i64>("t").unwrap().to_vec().unwrap(),
            vec![2, 4, 0, 3, 1]
        );
        let d = argsort(&x, -1, true).unwrap();
        assert_eq!(
            d.typed::<i64>("t").unwrap().to_vec().unwrap(),
            vec![1, 0, 3, 4, 2]
        );
    }
}

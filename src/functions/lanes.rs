//! A tensor seen as *lanes*: for each position of the axes an operation
//! does not run along, the elements along the ones it does, in C order.
//!
//! The reductions over axis tuples ([`crate::functions::statistics`]), the running
//! operations and differences ([`crate::functions::cumulative`]), sorting and
//! searching along an axis ([`crate::functions::sorting`], [`crate::functions::searching`])
//! all work on lanes: this module decides which axes an `axis` argument
//! names (normalised, each once), the shape of a result with those axes
//! reduced or resized, and moves the elements between a tensor and its
//! lanes (a gather through a permuted view, and back).

use crate::array::element::Element;
use crate::array::shape::normalize_axis;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};

/// The sum of floats from `+0.0`, as NumPy's (`sum([-0.0, -0.0])` is
/// `0.0`). Every float sum of values goes through here, never through
/// `Iterator::sum`: the standard library's float sum starts at `-0.0` (so
/// that an empty sum is the identity of `+` for `-0.0` too), which keeps
/// the sign of a sum of negative zeros and of an empty sum.
pub fn float_sum(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |a, v| a + v)
}

/// The axes an `axis` argument names: every axis for `None`, else each
/// given axis normalised (negative ones count from the end), sorted.
///
/// # Errors
/// `InvalidAxis` for an axis out of range, `InvalidArgument` for an axis
/// named twice.
pub fn normalize_axes(op: &'static str, axes: Option<&[isize]>, ndim: usize) -> Result<Vec<usize>> {
    let Some(axes) = axes else {
        return Ok((0..ndim).collect());
    };
    let mut out = axes
        .iter()
        .map(|&a| normalize_axis(a, ndim))
        .collect::<Result<Vec<_>>>()?;
    out.sort_unstable();
    if let Some(&[a, _]) = out.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::InvalidArgument {
            op,
            reason: format!("axis {a} is named more than once"),
        });
    }
    Ok(out)
}

/// The shape of a reduction of `shape` over `axes` (sorted, distinct):
/// the reduced axes kept as 1 with `keepdims`, else dropped.
#[must_use]
pub fn reduced_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| match (axes.contains(&i), keepdims) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// The elements of a tensor as lanes along some axes.
#[derive(Debug, Clone)]
pub struct Lanes<T> {
    /// Every lane, one after another.
    pub data: Vec<T>,
    /// The length of a lane (the product of the lane axes' lengths).
    pub len: usize,
    /// The number of lanes (the product of the other axes' lengths).
    pub count: usize,
}

impl<T: Copy> Lanes<T> {
    /// Lane `i`.
    pub fn lane(&self, i: usize) -> &[T] {
        &self.data[i * self.len..(i + 1) * self.len]
    }

    /// Each lane in turn (`count` of them, also when a lane is empty).
    pub fn iter(&self) -> impl Iterator<Item = &[T]> + '_ {
        (0..self.count).map(|i| self.lane(i))
    }
}

/// The permutation that puts the axes not in `axes` first (in order),
/// then `axes` (in order).
fn lanes_last(ndim: usize, axes: &[usize]) -> Vec<usize> {
    (0..ndim)
        .filter(|a| !axes.contains(a))
        .chain(axes.iter().copied())
        .collect()
}

/// The lanes of `t` along `axes` (sorted, distinct, in range).
pub fn lanes<T: Element>(t: &Tensor<T>, axes: &[usize]) -> Result<Lanes<T>> {
    let shape = t.shape();
    let len: usize = axes.iter().map(|&a| shape[a]).product();
    let count: usize = (0..shape.len())
        .filter(|a| !axes.contains(a))
        .map(|a| shape[a])
        .product();
    let perm: Vec<isize> = lanes_last(shape.len(), axes)
        .into_iter()
        .map(|a| a as isize)
        .collect();
    let data = t.permuted_view(&perm)?.to_vec()?;
    Ok(Lanes { data, len, count })
}

/// The tensor whose lanes along the one axis `axis` are `data` (lanes of
/// length `len`, one after another, in the order [`lanes`] gives): the
/// shape of `like` with that axis `len` long.
pub fn from_lanes<U: Element>(
    data: Vec<U>,
    like: &[usize],
    axis: usize,
    len: usize,
) -> Result<Tensor<U>> {
    let mut shape = like.to_vec();
    shape[axis] = len;
    let perm = lanes_last(shape.len(), &[axis]);
    let permuted: Vec<usize> = perm.iter().map(|&a| shape[a]).collect();
    let t = Tensor::from_vec(data, &permuted)?;
    if axis + 1 == shape.len() {
        return Ok(t);
    }
    // Back: output axis `perm[i]` is axis `i` of `t`.
    let mut inverse = vec![0_isize; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i as isize;
    }
    t.permuted_view(&inverse)?.deep_copy()
}

/// Run `f` on each lane along `axis` of `data`, a C-order buffer of
/// `shape`, in place: a lane along the last axis is a run of `data`
/// itself; any other is gathered into a lane-long buffer and written back.
pub fn each_lane_mut<T: Element>(
    data: &mut [T],
    shape: &[usize],
    axis: usize,
    mut f: impl FnMut(&mut [T]),
) {
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    if len == 0 || data.is_empty() {
        return;
    }
    if inner == 1 {
        data.chunks_exact_mut(len).for_each(f);
        return;
    }
    let mut lane = vec![T::ZERO; len];
    for block in data.chunks_exact_mut(len * inner) {
        for j in 0..inner {
            for (k, v) in lane.iter_mut().enumerate() {
                *v = block[k * inner + j];
            }
            f(&mut lane);
            for (k, v) in lane.iter().enumerate() {
                block[k * inner + j] = *v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_are_normalised_sorted_and_distinct() {
        assert_eq!(normalize_axes("t", None, 3).unwrap(), vec![0, 1, 2]);
        assert_eq!(normalize_axes("t", Some(&[-1, 0]), 3).unwrap(), vec![0, 2]);
        assert!(matches!(
            normalize_axes("t", Some(&[3]), 3),
            Err(Error::InvalidAxis { .. })
        ));
        assert!(matches!(
            normalize_axes("t", Some(&[1, -2]), 3),
            Err(Error::InvalidArgument { .. })
        ));
        assert_eq!(reduced_shape(&[2, 3, 4], &[0, 2], false), vec![3]);
        assert_eq!(reduced_shape(&[2, 3, 4], &[0, 2], true), vec![1, 3, 1]);
    }

    #[test]
    fn lanes_round_trip_along_a_middle_axis() {
        let t = Tensor::<i32>::from_vec((0..24).collect(), &[2, 3, 4]).unwrap();
        let l = lanes(&t, &[1]).unwrap();
        assert_eq!((l.len, l.count), (3, 8));
        assert_eq!(l.lane(0), &[0, 4, 8]);
        assert_eq!(l.lane(5), &[13, 17, 21]);
        let back = from_lanes(l.data.clone(), t.shape(), 1, 3).unwrap();
        assert_eq!(back.as_slice().unwrap(), t.as_slice().unwrap());
        let mut data = t.to_vec().unwrap();
        each_lane_mut(&mut data, &[2, 3, 4], 1, <[i32]>::reverse);
        assert_eq!(&data[..5], &[8, 9, 10, 11, 4]);
        assert_eq!(data[13], 21);
        let two = lanes(&t, &[0, 2]).unwrap();
        assert_eq!(two.lane(1), &[4, 5, 6, 7, 16, 17, 18, 19]);
    }
}

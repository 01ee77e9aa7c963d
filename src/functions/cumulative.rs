//! Operations along one axis whose results run along it: the array API's
//! `cumulative_sum` and `cumulative_prod`, the running maximum and
//! minimum (NumPy's `maximum.accumulate` and `minimum.accumulate`), and
//! `diff` (n-th forward differences, with values prepended and appended
//! first).
//!
//! Decided here:
//!
//! * **Axis.** A 1-d tensor may leave `axis` out; a tensor of more axes
//!   must give it (the standard's rule); a 0-d tensor has no axis to run
//!   along ([`Error::InvalidArgument`]).
//! * **Dtypes.** The running sum and product compute and return in the
//!   dtype of [`accumulation_dtype`](crate::functions::statistics::accumulation_dtype)
//!   (the input converted first, so `dtype` prevents overflow as the standard intends);
//!   the running extremes keep the input's dtype (or `dtype`). `diff` works in
//!   the dtype `x`, `prepend` and `append` promote to (NumPy's table, as
//!   NumPy's `diff`, which concatenates them); bool differences are
//!   "not equal", as NumPy's.
//! * **Arithmetic** is the element type's own, one step after another:
//!   the standard's "successive application of add/multiply" (integers
//!   wrap; see [`crate::functions::statistics`]). A running extreme is
//!   NaN from the first NaN on, and between equal elements (`-0.0` and
//!   `0.0`) takes the later one, as NumPy's `maximum`/`minimum` do.
//!
//! `diff`'s result is a new tensor; its inputs are only read. The
//! running operations are [`LaneOp::Running`](crate::functions::lane_ops::LaneOp::Running),
//! planned, over the kernels here ([`scan_rows`], [`with_initial`]).

use crate::array::dyn_tensor::{DynTensor, Meta};
use crate::array::element::{DType, Element};
use crate::array::shape::normalize_axis;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::functions::lanes::{from_lanes, lanes, Lanes};
use crate::functions::statistics::{add, is_nan, mul, sub};

/// A running operation along an axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Running {
    /// `cumulative_sum` (initial value 0).
    Sum,
    /// `cumulative_prod` (initial value 1).
    Prod,
    /// The running maximum (NumPy's `maximum.accumulate`; no initial value).
    Max,
    /// The running minimum (NumPy's `minimum.accumulate`; no initial value).
    Min,
}

impl Running {
    /// The array API's name (for the extremes, donate's own).
    pub const fn name(self) -> &'static str {
        match self {
            Running::Sum => "cumulative_sum",
            Running::Prod => "cumulative_prod",
            Running::Max => "cumulative_max",
            Running::Min => "cumulative_min",
        }
    }

    /// Whether the result has the input's dtype (or the asked one) rather
    /// than the sum's accumulation dtype: the extremes.
    pub const fn keeps_dtype(self) -> bool {
        matches!(self, Running::Max | Running::Min)
    }
}

/// The axis a running operation runs along (see the [module docs](self)).
pub(crate) fn running_axis(
    op: &'static str,
    shape: &[usize],
    axis: Option<isize>,
) -> Result<usize> {
    match (axis, shape.len()) {
        (_, 0) => Err(Error::InvalidArgument {
            op,
            reason: "a 0-d tensor has no axis to run along".into(),
        }),
        (Some(a), nd) => normalize_axis(a, nd),
        (None, 1) => Ok(0),
        (None, nd) => Err(Error::InvalidArgument {
            op,
            reason: format!("axis is required for a tensor of {nd} axes"),
        }),
    }
}

/// NumPy's `maximum` as a step: NaN from either side, else the greater,
/// the later one `b` when they are equal.
#[inline]
fn max<T: crate::RealElement>(a: T, b: T) -> T {
    if is_nan(a) || a > b {
        a
    } else {
        b
    }
}

/// NumPy's `minimum` as a step (as [`max`]).
#[inline]
fn min<T: crate::RealElement>(a: T, b: T) -> T {
    if is_nan(a) || a < b {
        a
    } else {
        b
    }
}

/// The error of `include_initial` for a running extreme.
pub(crate) fn no_initial(running: Running) -> Error {
    Error::InvalidArgument {
        op: running.name(),
        reason: "has no initial value (include_initial)".into(),
    }
}

impl Running {
    /// The step from the running value and the next element.
    fn step<T: crate::RealElement>(self) -> fn(T, T) -> T {
        match self {
            Running::Max => max::<T>,
            Running::Min => min::<T>,
            Running::Sum | Running::Prod => self.step_any().unwrap_or(add::<T>),
        }
    }

    /// The step of a running sum or product, for every element type (the
    /// complex ones too); `None` for the extremes, which need an order.
    fn step_any<T: Element>(self) -> Option<fn(T, T) -> T> {
        match self {
            Running::Sum => Some(add::<T>),
            Running::Prod => Some(mul::<T>),
            Running::Max | Running::Min => None,
        }
    }

    /// Whether it runs over every element type, the complex ones too (a
    /// sum or a product; complex numbers have no maximum).
    pub const fn takes_any_element(self) -> bool {
        matches!(self, Running::Sum | Running::Prod)
    }

    /// The identity, which `include_initial` puts first (the extremes
    /// have none).
    pub fn initial<T: Element>(self) -> Option<T> {
        match self {
            Running::Sum => Some(T::ZERO),
            Running::Prod => Some(T::ONE),
            Running::Max | Running::Min => None,
        }
    }
}

/// The running operation in place over `block`, rows of `inner` elements
/// one after another along the axis: each row becomes the step of the row
/// before it (already a running value) and itself. The first row stays as
/// it is (`0 + -0.0` would be `0.0`).
pub(crate) fn scan_rows<T: crate::RealElement>(block: &mut [T], inner: usize, running: Running) {
    scan_rows_with(block, inner, running.step::<T>());
}

/// [`scan_rows`] of a running sum or product, for every element type;
/// `InvalidArgument` for an extreme.
pub(crate) fn scan_rows_any<T: Element>(
    block: &mut [T],
    inner: usize,
    running: Running,
) -> Result<()> {
    let step = running.step_any::<T>().ok_or_else(|| unordered(running))?;
    scan_rows_with(block, inner, step);
    Ok(())
}

/// The error of a running extreme over unordered (complex) elements.
fn unordered(running: Running) -> Error {
    Error::InvalidArgument {
        op: running.name(),
        reason: "needs ordered (real) elements".into(),
    }
}

fn scan_rows_with<T: Element>(block: &mut [T], inner: usize, step: fn(T, T) -> T) {
    for k in 1..block.len() / inner.max(1) {
        let (done, rest) = block.split_at_mut(k * inner);
        let prev = &done[(k - 1) * inner..];
        for (v, &p) in rest[..inner].iter_mut().zip(prev) {
            *v = step(p, *v);
        }
    }
}

/// The running operation of `t` (already in the result's dtype) along
/// `axis` with the identity first: the axis one longer.
///
/// # Errors
/// `InvalidArgument` for a running extreme (no identity), or for an
/// axis as [`running_axis`].
pub(crate) fn with_initial<T: Element>(
    t: &Tensor<T>,
    running: Running,
    axis: Option<isize>,
) -> Result<Tensor<T>> {
    let shape = t.shape();
    let ax = running_axis(running.name(), shape, axis)?;
    let (len, inner) = (shape[ax], shape[ax + 1..].iter().product::<usize>());
    let outer: usize = shape[..ax].iter().product();
    let init = running.initial::<T>().ok_or_else(|| no_initial(running))?;
    let src = t.contiguous()?;
    let src = src.as_slice()?;
    let mut out = Vec::with_capacity(outer * (len + 1) * inner);
    for o in 0..outer {
        out.extend(std::iter::repeat_n(init, inner));
        out.extend_from_slice(&src[o * len * inner..(o + 1) * len * inner]);
        let start = out.len() - len * inner;
        scan_rows_any(&mut out[start..], inner, running)?;
    }
    let mut dims = shape.to_vec();
    dims[ax] += 1;
    Tensor::from_vec(out, &dims)
}

/// The dtype and shape of [`diff`]: the operands' promoted dtype; the
/// joined axis `n` shorter (empty when shorter than `n`).
pub fn diff_signature(
    x: Meta<'_>,
    axis: isize,
    n: usize,
    prepend: Option<Meta<'_>>,
    append: Option<Meta<'_>>,
) -> Result<(DType, Vec<usize>)> {
    let shape = x.shape;
    if shape.is_empty() {
        return Err(Error::InvalidArgument {
            op: "diff",
            reason: "a 0-d tensor has no axis to take differences along".into(),
        });
    }
    let axis = normalize_axis(axis, shape.len())?;
    // Promoted together, as NumPy's `concatenate` of the three does (not
    // pairwise: `DType::promote_all`).
    let mut dtypes: smallvec::SmallVec<[DType; 3]> = smallvec::smallvec![x.dtype];
    let mut joined = shape[axis];
    for e in [prepend, append].into_iter().flatten() {
        let s = e.shape;
        let fits = s.len() == shape.len()
            && s.iter()
                .zip(shape)
                .enumerate()
                .all(|(i, (a, b))| i == axis || a == b);
        if !fits {
            return Err(Error::InvalidShape {
                op: "diff",
                shape: s.to_vec(),
                reason: format!(
                    "prepend and append must have x's shape {shape:?} except along the axis ({axis})"
                ),
            });
        }
        dtypes.push(e.dtype);
        joined = joined.saturating_add(s[axis]);
    }
    let dtype = DType::promote_all(&dtypes).unwrap_or(x.dtype);
    let mut out = shape.to_vec();
    out[axis] = joined.saturating_sub(n);
    crate::array::shape::checked_numel(&out, dtype.size())?;
    Ok((dtype, out))
}

/// The `n`-th forward differences of `x` along `axis`, after prepending
/// `prepend` and appending `append` along it (each of `x`'s shape but
/// along `axis`). `n = 0` is the (joined) input itself; an axis shorter
/// than `n` gives an empty one.
///
/// # Errors
/// `InvalidArgument` for a 0-d `x`, `InvalidAxis`, `InvalidShape` for a
/// `prepend`/`append` of another shape.
pub fn diff(
    x: &DynTensor,
    axis: isize,
    n: usize,
    prepend: Option<&DynTensor>,
    append: Option<&DynTensor>,
) -> Result<DynTensor> {
    let (dtype, _) = diff_signature(
        x.meta(),
        axis,
        n,
        prepend.map(DynTensor::meta),
        append.map(DynTensor::meta),
    )?;
    let shape = x.shape();
    let axis = normalize_axis(axis, shape.len())?;
    // (Planned, the operands come already in `dtype`: no copy here.)
    let parts: Vec<DynTensor> = [prepend, Some(x), append]
        .into_iter()
        .flatten()
        .map(|t| {
            if t.dtype() == dtype {
                Ok(t.clone())
            } else {
                t.cast(dtype)
            }
        })
        .collect::<Result<_>>()?;
    crate::array::dyn_tensor::for_any_dtype!(dtype, T => {
        let typed = parts.iter().map(|p| p.typed::<T>("diff")).collect::<Result<Vec<_>>>()?;
        diff_typed::<T>(&typed, shape, axis, n).map(DynTensor::from)
    })
}

fn diff_typed<T: Element>(
    parts: &[&Tensor<T>],
    shape: &[usize],
    axis: usize,
    n: usize,
) -> Result<Tensor<T>> {
    let all: Vec<Lanes<T>> = parts
        .iter()
        .map(|p| lanes(p, &[axis]))
        .collect::<Result<_>>()?;
    let joined: usize = all.iter().map(|l| l.len).sum();
    let len = joined.saturating_sub(n);
    let count = all[0].count;
    let mut out = Vec::with_capacity(count * len);
    let mut lane = Vec::with_capacity(joined);
    for i in 0..count {
        lane.clear();
        for l in &all {
            lane.extend_from_slice(l.lane(i));
        }
        for _ in 0..n.min(joined) {
            for j in 1..lane.len() {
                lane[j - 1] = sub(lane[j], lane[j - 1]);
            }
            lane.pop();
        }
        out.extend_from_slice(&lane);
    }
    from_lanes(out, shape, axis, len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::dyn_tensor::each;

    fn ints(t: &DynTensor) -> Vec<i128> {
        each!(t, t => t.to_vec().unwrap().into_iter().map(Element::to_i128).collect())
    }

    #[test]
    fn differences_with_prepend_and_append() {
        let x: DynTensor = Tensor::<i32>::from_vec(vec![1, 4, 9, 16], &[2, 2])
            .unwrap()
            .into();
        let p: DynTensor = Tensor::<i32>::from_vec(vec![0, 0], &[2, 1]).unwrap().into();
        let d = diff(&x, -1, 1, Some(&p), None).unwrap();
        assert_eq!(d.shape(), &[2, 2]);
        assert_eq!(ints(&d), vec![1, 3, 9, 7]);
        let d2 = diff(&x, 0, 2, None, None).unwrap();
        assert_eq!(d2.shape(), &[0, 2]);
        let u: DynTensor = Tensor::<u8>::from_vec(vec![5, 3], &[2]).unwrap().into();
        assert_eq!(ints(&diff(&u, 0, 1, None, None).unwrap()), vec![254]);
        let bad: DynTensor = Tensor::<i32>::from_vec(vec![0; 3], &[3, 1]).unwrap().into();
        assert!(matches!(
            diff(&x, 1, 1, Some(&bad), None),
            Err(Error::InvalidShape { .. })
        ));
    }
}

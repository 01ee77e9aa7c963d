//! The array API's searching functions (but `where`, an element-wise
//! selection): `argmax`, `argmin`, `count_nonzero`, `nonzero` and
//! `searchsorted`.
//!
//! Decided here:
//!
//! * **Indices and counts** are int64 (the default index dtype).
//! * **`argmax`/`argmin`** give the first position of the extreme along
//!   the axis (of the flattened tensor for `axis = None`); a NaN is the
//!   extreme, the first NaN if several (NumPy's). A lane of no elements
//!   has none: [`Error::EmptyReduction`].
//! * **Nonzero** means `!= 0`: NaN is nonzero, `-0.0` is not, `True` is.
//!   `nonzero` of a 0-d tensor is an error (the standard's rule).
//! * **`searchsorted`** orders as `sort` does ([`crate::functions::sorting::order`]:
//!   NaN last). `x1` is 1-d; `sorter`, when given, an integer tensor of
//!   `x1`'s shape whose entries index `x1`. `x1` and `x2` may have
//!   different dtypes: integers compare exactly, a float with anything as
//!   `f64`.
//!
//! Every result is a new tensor; the inputs are only read.

use std::cmp::Ordering;

use crate::array::dyn_tensor::{each, each_real, DynTensor, Meta};
use crate::array::element::DType;
use crate::array::element::Element;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::functions::lanes::{lanes, normalize_axes, reduced_shape};
use crate::functions::sorting::order;
use crate::functions::statistics::is_nan;

/// Which extreme `arg_extreme` looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extreme {
    /// `argmax`.
    Max,
    /// `argmin`.
    Min,
}

impl Extreme {
    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            Extreme::Max => "argmax",
            Extreme::Min => "argmin",
        }
    }
}

/// The shape of `argmax`/`argmin` (int64): the reduced shape; a lane of no
/// elements has no extreme ([`Error::EmptyReduction`]).
pub fn arg_extreme_signature(
    x: Meta<'_>,
    extreme: Extreme,
    axis: Option<isize>,
    keepdims: bool,
) -> Result<(DType, Vec<usize>)> {
    let op = extreme.name();
    let named = axis.map(|a| [a]);
    let along = normalize_axes(op, named.as_ref().map(|a| &a[..]), x.shape.len())?;
    let len: usize = along.iter().map(|&a| x.shape[a]).product();
    if len == 0 {
        return Err(Error::EmptyReduction {
            op,
            shape: x.shape.to_vec(),
        });
    }
    Ok((DType::I64, reduced_shape(x.shape, &along, keepdims)))
}

/// The int64 positions of the first maximum (minimum) of `x` along `axis`
/// (`None`: of the flattened tensor), with `keepdims` keeping the axis
/// (every axis for `None`) as 1.
pub fn arg_extreme(
    x: &DynTensor,
    extreme: Extreme,
    axis: Option<isize>,
    keepdims: bool,
) -> Result<DynTensor> {
    let (_, out) = arg_extreme_signature(x.meta(), extreme, axis, keepdims)?;
    let named = axis.map(|a| [a]);
    let along = normalize_axes(
        extreme.name(),
        named.as_ref().map(|a| &a[..]),
        x.shape().len(),
    )?;
    let v: Vec<i64> = each_real!(x, extreme.name(), t => {
        let l = lanes(t, &along)?;
        l.iter().map(|lane| first_extreme(lane, extreme) as i64).collect()
    });
    Tensor::from_vec(v, &out).map(DynTensor::from)
}

fn first_extreme<T: crate::RealElement>(lane: &[T], extreme: Extreme) -> usize {
    let mut best = 0;
    for (i, &v) in lane.iter().enumerate().skip(1) {
        let m = lane[best];
        if is_nan(m) {
            break;
        }
        let better = match extreme {
            Extreme::Max => v > m,
            Extreme::Min => v < m,
        };
        if is_nan(v) || better {
            best = i;
        }
    }
    best
}

/// The shape of `count_nonzero` (int64): the reduced shape.
pub fn count_nonzero_signature(
    x: Meta<'_>,
    axes: Option<&[isize]>,
    keepdims: bool,
) -> Result<(DType, Vec<usize>)> {
    let axes = normalize_axes("count_nonzero", axes, x.shape.len())?;
    Ok((DType::I64, reduced_shape(x.shape, &axes, keepdims)))
}

/// The int64 number of nonzero elements of `x` over `axes` (`None`:
/// every axis).
pub fn count_nonzero(x: &DynTensor, axes: Option<&[isize]>, keepdims: bool) -> Result<DynTensor> {
    let (_, out) = count_nonzero_signature(x.meta(), axes, keepdims)?;
    let axes = normalize_axes("count_nonzero", axes, x.shape().len())?;
    let v: Vec<i64> = each!(x, t => {
        let l = lanes(t, &axes)?;
        l.iter().map(|lane| nonzero_positions(lane).count() as i64).collect()
    });
    Tensor::from_vec(v, &out).map(DynTensor::from)
}

/// The positions of the nonzero elements of `v`.
fn nonzero_positions<T: Element>(v: &[T]) -> impl Iterator<Item = usize> + '_ {
    v.iter()
        .enumerate()
        .filter(|&(_, &e)| e != T::ZERO)
        .map(|(i, _)| i)
}

/// The int64 indices of the nonzero elements of `x`, one 1-d tensor per
/// axis, in C order.
pub fn nonzero(x: &DynTensor) -> Result<Vec<DynTensor>> {
    let shape = x.shape().to_vec();
    if shape.is_empty() {
        return Err(Error::InvalidArgument {
            op: "nonzero",
            reason: "a 0-d tensor has no axes to index (the standard asks for an error)".into(),
        });
    }
    let flat: Vec<usize> = each!(x, t => nonzero_positions(&t.to_vec()?).collect());
    let mut out: Vec<Vec<i64>> = vec![Vec::with_capacity(flat.len()); shape.len()];
    for mut i in flat {
        for (a, &d) in shape.iter().enumerate().rev() {
            out[a].push((i % d) as i64);
            i /= d;
        }
    }
    out.into_iter()
        .map(|v| {
            let n = v.len();
            Tensor::from_vec(v, &[n]).map(DynTensor::from)
        })
        .collect()
}

/// Which index `searchsorted` gives for a value equal to elements of `x1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Before the equal elements.
    Left,
    /// After them.
    Right,
}

/// The shape of `searchsorted(x1, x2, sorter=)` (int64): `x2`'s; `x1`
/// is 1-d, `sorter` an integer tensor of `x1`'s shape.
pub fn searchsorted_signature(
    x1: Meta<'_>,
    x2: Meta<'_>,
    sorter: Option<Meta<'_>>,
) -> Result<(DType, Vec<usize>)> {
    let op = "searchsorted";
    if x1.shape.len() != 1 {
        return Err(Error::InvalidShape {
            op,
            shape: x1.shape.to_vec(),
            reason: "x1 must be 1-d".into(),
        });
    }
    if let Some(s) = sorter {
        if !s.dtype.is_int() {
            return Err(Error::InvalidOperand {
                op,
                reason: format!("sorter must have an integer dtype, not {}", s.dtype),
            });
        }
        if s.shape != x1.shape {
            return Err(Error::InvalidShape {
                op,
                shape: s.shape.to_vec(),
                reason: format!("sorter must have the shape of x1, {:?}", x1.shape),
            });
        }
    }
    Ok((DType::I64, x2.shape.to_vec()))
}

/// For each element `v` of `x2`, the int64 index into `x1` (sorted, or
/// sorted by `sorter`) before which `v` would keep it sorted: before
/// equal elements for [`Side::Left`], after them for [`Side::Right`].
pub fn searchsorted(
    x1: &DynTensor,
    x2: &DynTensor,
    side: Side,
    sorter: Option<&DynTensor>,
) -> Result<DynTensor> {
    searchsorted_signature(x1.meta(), x2.meta(), sorter.map(DynTensor::meta))?;
    let n = x1.shape()[0];
    let perm: Option<Vec<usize>> = match sorter {
        None => None,
        Some(s) => Some(sorter_positions(s, x1.shape())?),
    };
    // Compare in the one key both sides have exactly: i128 for integers
    // and bools, f64 when either is a float.
    let float = x1.dtype().is_float() || x2.dtype().is_float();
    let key = |t: &DynTensor| -> Result<Vec<Key>> {
        each!(t, t => Ok(t.to_vec()?.into_iter().map(|e| Key::of(e, float)).collect()))
    };
    let mut keys = key(x1)?;
    if let Some(p) = perm {
        let orig = keys;
        keys = p.into_iter().map(|i| orig[i]).collect();
    }
    debug_assert_eq!(keys.len(), n);
    let v: Vec<i64> = key(x2)?
        .into_iter()
        .map(|k| {
            keys.partition_point(|e| match side {
                Side::Left => e.cmp(k) == Ordering::Less,
                Side::Right => e.cmp(k) != Ordering::Greater,
            }) as i64
        })
        .collect();
    Tensor::from_vec(v, x2.shape()).map(DynTensor::from)
}

/// A sorter's entries as positions into `x1` (its dtype and shape
/// checked by [`searchsorted_signature`]; each entry checked here).
fn sorter_positions(s: &DynTensor, x1_shape: &[usize]) -> Result<Vec<usize>> {
    let n = x1_shape[0];
    let raw: Vec<i128> = each!(s, t => t.to_vec()?.into_iter().map(Element::to_i128).collect());
    raw.into_iter()
        .map(|i| {
            usize::try_from(i)
                .ok()
                .filter(|&u| u < n)
                .ok_or_else(|| Error::IndexOutOfRange {
                    index: i64::try_from(i).unwrap_or(i64::MAX),
                    axis: 0,
                    size: n,
                })
        })
        .collect()
}

/// An element as `searchsorted` compares it.
#[derive(Debug, Clone, Copy)]
enum Key {
    Int(i128),
    Float(f64),
}

impl Key {
    fn of<T: Element>(e: T, float: bool) -> Key {
        if float {
            Key::Float(e.to_f64())
        } else {
            Key::Int(e.to_i128())
        }
    }

    fn cmp(self, other: Key) -> Ordering {
        match (self, other) {
            (Key::Int(a), Key::Int(b)) => a.cmp(&b),
            (Key::Float(a), Key::Float(b)) => order(a, b),
            // One kind per call (`float` above).
            _ => Ordering::Equal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i64s(t: &DynTensor) -> Vec<i64> {
        t.typed::<i64>("t").unwrap().to_vec().unwrap()
    }

    #[test]
    fn argmax_takes_the_first_extreme_and_nan() {
        let x: DynTensor =
            Tensor::<f32>::from_vec(vec![1.0, 3.0, 3.0, f32::NAN, 0.0, -2.0], &[2, 3])
                .unwrap()
                .into();
        assert_eq!(
            i64s(&arg_extreme(&x, Extreme::Max, None, false).unwrap()),
            vec![3]
        );
        assert_eq!(
            i64s(&arg_extreme(&x, Extreme::Max, Some(1), false).unwrap()),
            vec![1, 0]
        );
        let m = arg_extreme(&x, Extreme::Min, Some(0), true).unwrap();
        assert_eq!(m.shape(), &[1, 3]);
        assert_eq!(i64s(&m), vec![1, 1, 1]);
        let e: DynTensor = Tensor::<i8>::from_vec(vec![], &[2, 0]).unwrap().into();
        assert!(arg_extreme(&e, Extreme::Max, Some(1), false).is_err());
    }

    #[test]
    fn nonzero_and_counts() {
        let x: DynTensor = Tensor::<f64>::from_vec(vec![0.0, -0.0, f64::NAN, 2.0], &[2, 2])
            .unwrap()
            .into();
        let nz = nonzero(&x).unwrap();
        assert_eq!((i64s(&nz[0]), i64s(&nz[1])), (vec![1, 1], vec![0, 1]));
        assert_eq!(
            i64s(&count_nonzero(&x, Some(&[0]), false).unwrap()),
            vec![1, 1]
        );
        let s: DynTensor = Tensor::<i32>::from_vec(vec![1], &[]).unwrap().into();
        assert!(nonzero(&s).is_err());
    }

    #[test]
    fn searchsorted_sides_and_sorter() {
        let x1: DynTensor = Tensor::<i32>::from_vec(vec![1, 2, 2, 5], &[4])
            .unwrap()
            .into();
        let x2: DynTensor = Tensor::<i32>::from_vec(vec![2, 0, 9], &[3]).unwrap().into();
        assert_eq!(
            i64s(&searchsorted(&x1, &x2, Side::Left, None).unwrap()),
            vec![1, 0, 4]
        );
        assert_eq!(
            i64s(&searchsorted(&x1, &x2, Side::Right, None).unwrap()),
            vec![3, 0, 4]
        );
        let u: DynTensor = Tensor::<f64>::from_vec(vec![5.0, 1.0, 3.0], &[3])
            .unwrap()
            .into();
        let s: DynTensor = Tensor::<i64>::from_vec(vec![1, 2, 0], &[3]).unwrap().into();
        let v: DynTensor = Tensor::<f64>::from_vec(vec![4.0, f64::NAN], &[2])
            .unwrap()
            .into();
        assert_eq!(
            i64s(&searchsorted(&u, &v, Side::Left, Some(&s)).unwrap()),
            vec![2, 3]
        );
        let bad: DynTensor = Tensor::<i64>::from_vec(vec![1, 2, 3], &[3]).unwrap().into();
        assert!(matches!(
            searchsorted(&u, &v, Side::Left, Some(&bad)),
            Err(Error::IndexOutOfRange { .. })
        ));
    }
}

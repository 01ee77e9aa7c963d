//! The array API's set functions: the unique elements of a tensor, with
//! where each first occurs, how often, and which unique element each
//! element is (`unique_all`, `unique_counts`, `unique_inverse`,
//! `unique_values` are views of one [`Unique`]).
//!
//! Decided here:
//!
//! * **Order.** The unique values come sorted ([`crate::functions::sorting::order`]),
//!   as NumPy's; complex values by their real parts, then their imaginary
//!   parts, those with NaN parts last (NumPy's order:
//!   `R + Rj < R + nanj < nan + Rj < nan + nanj`; the standard leaves the
//!   order of complex values unspecified).
//! * **Equality.** Elements are the same value when neither is less than
//!   the other: `-0.0` and `0.0` are one value (shown as the first that
//!   occurs). **Each NaN is distinct** (the standard's rule): every NaN
//!   is a value of its own, with count 1, after the numbers; a complex
//!   value with a NaN part is a NaN.
//! * **Shapes and dtypes.** `values`, `indices` and `counts` are 1-d;
//!   `inverse_indices` has `x`'s shape (the standard's, since 2023.12);
//!   indices and counts are int64, values `x`'s dtype. A 0-d `x` is one
//!   element.
//!
//! Every result is a new tensor; the input is only read.

use std::cmp::Ordering;

use num_complex::Complex;

use crate::array::dyn_tensor::{each_real, DynTensor};
use crate::array::element::{DType, Element};
use crate::array::tensor::Tensor;
use crate::error::Result;
use crate::functions::sorting::{order, sorted_positions};
use crate::functions::statistics::is_nan;

/// The unique elements of a tensor and what relates them to it.
#[derive(Debug, Clone)]
pub struct Unique {
    /// The unique elements, sorted (1-d, `x`'s dtype).
    pub values: DynTensor,
    /// For each unique element, the flat index of its first occurrence.
    pub indices: DynTensor,
    /// For each element of `x`, the index of its value in `values`
    /// (`x`'s shape).
    pub inverse_indices: DynTensor,
    /// For each unique element, how many elements of `x` it stands for.
    pub counts: DynTensor,
}

/// The unique elements of `x` (see the [module docs](self)).
pub fn unique(x: &DynTensor) -> Result<Unique> {
    match x {
        DynTensor::C64(t) => unique_complex(t),
        DynTensor::C128(t) => unique_complex(t),
        DynTensor::F16(_) => {
            // The storage dtype, as every computation reads it
            // (`plan::storage`): as float32, which keeps its values and
            // their order exactly.
            let wide = x.cast(DType::F32)?;
            let mut u = unique(&wide)?;
            u.values = u.values.cast(DType::F16)?;
            Ok(u)
        }
        _ => each_real!(x, "unique", t => {
            let data = t.to_vec()?;
            let sorted = sorted_positions(&data, false);
            unique_by(t.shape(), &data, &sorted, order, is_nan)
        }),
    }
}

/// [`unique_by`] of complex values in NumPy's order: the values without
/// a NaN part, then those with a NaN imaginary part, a NaN real part,
/// both; within each, by the real parts, then the imaginary parts.
fn unique_complex<R: crate::RealElement>(t: &Tensor<Complex<R>>) -> Result<Unique>
where
    Complex<R>: Element,
    DynTensor: From<Tensor<Complex<R>>>,
{
    let class = |v: Complex<R>| 2 * u8::from(is_nan(v.re)) + u8::from(is_nan(v.im));
    let cmp = |a: Complex<R>, b: Complex<R>| {
        class(a)
            .cmp(&class(b))
            .then_with(|| order(a.re, b.re))
            .then_with(|| order(a.im, b.im))
    };
    let data = t.to_vec()?;
    let mut sorted: Vec<usize> = (0..data.len()).collect();
    sorted.sort_by(|&i, &j| cmp(data[i], data[j]));
    unique_by(t.shape(), &data, &sorted, cmp, |v| {
        is_nan(v.re) || is_nan(v.im)
    })
}

/// The unique elements of `data` (of a tensor of `shape`), whose
/// positions `sorted` lists in the (stable) order `cmp`; `nan` tells the
/// values that are each distinct.
fn unique_by<T: Element>(
    shape: &[usize],
    data: &[T],
    sorted: &[usize],
    cmp: impl Fn(T, T) -> Ordering,
    nan: impl Fn(T) -> bool,
) -> Result<Unique>
where
    DynTensor: From<Tensor<T>>,
{
    let mut values = Vec::new();
    let mut indices: Vec<i64> = Vec::new();
    let mut counts: Vec<i64> = Vec::new();
    let mut inverse = vec![0_i64; data.len()];
    let mut last: Option<T> = None;
    for &i in sorted {
        let v = data[i];
        let same = last.is_some_and(|l| !nan(v) && cmp(l, v) == Ordering::Equal);
        if same {
            // The stable sort lists equal values by position: the first
            // occurrence opened the group.
            *counts.last_mut().unwrap_or(&mut 0) += 1;
        } else {
            values.push(v);
            indices.push(i as i64);
            counts.push(1);
            last = Some(v);
        }
        inverse[i] = values.len() as i64 - 1;
    }
    let n = values.len();
    Ok(Unique {
        values: Tensor::from_vec(values, &[n])?.into(),
        indices: Tensor::from_vec(indices, &[n])?.into(),
        inverse_indices: Tensor::from_vec(inverse, shape)?.into(),
        counts: Tensor::from_vec(counts, &[n])?.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i64s(t: &DynTensor) -> Vec<i64> {
        t.typed::<i64>("t").unwrap().to_vec().unwrap()
    }

    #[test]
    fn unique_with_nans_distinct_and_signed_zeros_equal() {
        let x: DynTensor =
            Tensor::<f64>::from_vec(vec![3.0, f64::NAN, -0.0, 3.0, 0.0, f64::NAN], &[2, 3])
                .unwrap()
                .into();
        let u = unique(&x).unwrap();
        let v = u.values.typed::<f64>("t").unwrap().to_vec().unwrap();
        assert_eq!(v.len(), 4);
        assert_eq!(&v[..2], &[0.0, 3.0]);
        assert!(
            v[0].is_sign_negative(),
            "the first occurrence stands for the value"
        );
        assert!(v[2].is_nan() && v[3].is_nan());
        assert_eq!(i64s(&u.indices), vec![2, 0, 1, 5]);
        assert_eq!(i64s(&u.counts), vec![2, 2, 1, 1]);
        assert_eq!(u.inverse_indices.shape(), &[2, 3]);
        assert_eq!(i64s(&u.inverse_indices), vec![1, 2, 0, 1, 0, 3]);
    }

    #[test]
    fn unique_of_a_scalar_and_of_nothing() {
        let s: DynTensor = Tensor::<bool>::from_vec(vec![true], &[]).unwrap().into();
        let u = unique(&s).unwrap();
        assert_eq!(u.values.shape(), &[1]);
        assert_eq!(u.inverse_indices.shape(), &[] as &[usize]);
        let e: DynTensor = Tensor::<u16>::from_vec(vec![], &[0, 2]).unwrap().into();
        assert_eq!(unique(&e).unwrap().counts.shape(), &[0]);
    }
}

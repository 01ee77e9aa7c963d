//! The array API's statistical reductions over any set of axes (`sum`,
//! `prod`, `mean`, `max`, `min`, `var`, `std`), their result dtypes, and
//! the element arithmetic the running operations share.
//!
//! Decided here:
//!
//! * **Result dtypes.** `sum` and `prod` (and the running
//!   [`crate::functions::cumulative`] ones) of bool and signed integers give int64,
//!   of unsigned integers uint64 (NumPy's default integers), of floats
//!   their own dtype, unless a `dtype` is asked for: the input is then
//!   converted to it first ([`accumulation_dtype`]). `mean`, `var` and
//!   `std` give a float dtype ([`mean_dtype`]); `max` and `min` the
//!   input's.
//! * **Axes.** `None` is every axis; a tuple names distinct axes
//!   ([`crate::functions::lanes::normalize_axes`]); `keepdims` keeps them as 1.
//! * **Empty reductions.** A sum over no elements is 0, a product 1, a
//!   mean, variance or deviation NaN (as NumPy, without its warning);
//!   `max` and `min` over no elements are [`Error::EmptyReduction`], even
//!   when the result has no elements either (as NumPy).
//! * **Arithmetic.** Floats sum in `f64` (float32 too), NaN propagates
//!   through every reduction; integers wrap at their width, as NumPy's.
//!   `var`/`std` take two passes (the mean, then the squared deviations)
//!   and divide by `N - correction`, NaN when that is not positive.
//!
//! The planned single-axis `sum`, `mean` and `max` ([`crate::plan`],
//! `Op::Reduce`) take their dtypes from here too.
//!
//! Every result is a new tensor; the input is only read.

use crate::array::dyn_tensor::{each_real, DynTensor};
use crate::array::element::{DType, Element, C64};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::functions::lanes::{float_sum, lanes, normalize_axes, reduced_shape};
use crate::kernels::complex::ComplexElement;

/// A statistic over a set of axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Statistic {
    /// The sum, in `dtype` (see [`accumulation_dtype`]).
    Sum { dtype: Option<DType> },
    /// The product, in `dtype` (see [`accumulation_dtype`]).
    Prod { dtype: Option<DType> },
    /// The arithmetic mean, in `dtype` (default: [`mean_dtype`]; NumPy's
    /// `mean(dtype=)`: an integer dtype truncates the mean).
    Mean { dtype: Option<DType> },
    /// The largest element (NaN if any is NaN).
    Max,
    /// The smallest element (NaN if any is NaN).
    Min,
    /// The variance, divided by `N - correction`.
    Var { correction: f64 },
    /// The standard deviation, the square root of [`Statistic::Var`].
    Std { correction: f64 },
}

impl Statistic {
    /// The array API's name of the function.
    pub const fn name(self) -> &'static str {
        match self {
            Statistic::Sum { .. } => "sum",
            Statistic::Prod { .. } => "prod",
            Statistic::Mean { .. } => "mean",
            Statistic::Max => "max",
            Statistic::Min => "min",
            Statistic::Var { .. } => "var",
            Statistic::Std { .. } => "std",
        }
    }

    /// The dtype of the result for an input of dtype `d`.
    pub fn result_dtype(self, d: DType) -> DType {
        match self {
            Statistic::Sum { dtype } | Statistic::Prod { dtype } => accumulation_dtype(d, dtype),
            Statistic::Mean { dtype: Some(t) } => t,
            // The spread of complex numbers is real (NumPy's).
            Statistic::Var { .. } | Statistic::Std { .. } if d.is_complex() => d.real_dtype(),
            Statistic::Mean { .. } | Statistic::Var { .. } | Statistic::Std { .. } => mean_dtype(d),
            Statistic::Max | Statistic::Min => d,
        }
    }

    /// The same statistic computed in `dtype` (a sum, product or mean's
    /// `dtype=`); the others as they are.
    #[must_use]
    pub fn in_dtype(self, dtype: DType) -> Statistic {
        match self {
            Statistic::Sum { .. } => Statistic::Sum { dtype: Some(dtype) },
            Statistic::Prod { .. } => Statistic::Prod { dtype: Some(dtype) },
            Statistic::Mean { .. } => Statistic::Mean { dtype: Some(dtype) },
            s => s,
        }
    }

    /// The dtype the statistic reads an input of dtype `d` as: its
    /// result's, except a complex spread (`var`, `std`), which reads the
    /// complex numbers and returns a real number.
    pub fn compute_dtype(self, d: DType) -> DType {
        match self {
            Statistic::Var { .. } | Statistic::Std { .. } if d.is_complex() => d,
            _ => self.result_dtype(d),
        }
    }
}

/// The dtype a sum or product of `d` is computed and returned in: `dtype`
/// when given, else int64 for bool and signed integers, uint64 for
/// unsigned ones (NumPy's default integers), a float's own dtype.
pub fn accumulation_dtype(d: DType, dtype: Option<DType>) -> DType {
    match dtype {
        Some(t) => t,
        None if d.is_unsigned() => DType::U64,
        None if d.is_float() || d.is_complex() => d,
        None => DType::I64,
    }
}

/// The dtype of a mean (variance, deviation) of `d`: a float's own, else
/// the dtype the float functions give for it (float32 for bool and the
/// 8- and 16-bit integers, float64 for the wider ones: NumPy's, except
/// that it gives float16 only of float16, [`DType::float_result`]).
pub fn mean_dtype(d: DType) -> DType {
    d.float_result()
}

/// `statistic` of `x` over `axes` (`None`: every axis), a new tensor.
///
/// # Errors
/// `InvalidAxis`/`InvalidArgument` for the axes (see
/// [`normalize_axes`]), `EmptyReduction` for `max`/`min` over no
/// elements, `AlreadyDonated` for a moved-from `x`.
pub fn reduce(
    x: &DynTensor,
    statistic: Statistic,
    axes: Option<&[isize]>,
    keepdims: bool,
) -> Result<DynTensor> {
    let stored = statistic.result_dtype(x.dtype());
    if stored.is_storage() && !x.dtype().is_complex() {
        // float16 stores and float32 computes, as in every float16 op
        // (an explicit `dtype=float16` too): the statistic of the float32
        // values, rounded once.
        let wide = statistic.in_dtype(stored.computed_as());
        return reduce(&x.cast(DType::F32)?, wide, axes, keepdims)?.cast(stored);
    }
    let name = statistic.name();
    let shape = x.shape().to_vec();
    let axes = normalize_axes(name, axes, shape.len())?;
    let out_shape = reduced_shape(&shape, &axes, keepdims);
    let n: usize = axes.iter().map(|&a| shape[a]).product();
    if n == 0 && matches!(statistic, Statistic::Max | Statistic::Min) {
        return Err(Error::EmptyReduction { op: name, shape });
    }
    x.check_readable()?;
    if let (Statistic::Var { correction } | Statistic::Std { correction }, true) =
        (statistic, x.dtype().is_complex())
    {
        let sqrt = matches!(statistic, Statistic::Std { .. });
        return match x {
            DynTensor::C64(t) => {
                complex_spread(t, correction, sqrt, &axes, &out_shape).map(DynTensor::from)
            }
            DynTensor::C128(t) => {
                complex_spread(t, correction, sqrt, &axes, &out_shape).map(DynTensor::from)
            }
            _ => unreachable!("complex"),
        };
    }
    let dtype = statistic.result_dtype(x.dtype());
    let x = if dtype == x.dtype() {
        x.clone()
    } else {
        x.cast(dtype)?
    };
    match &x {
        DynTensor::C64(t) => reduce_complex(t, statistic, &axes, &out_shape).map(DynTensor::from),
        DynTensor::C128(t) => reduce_complex(t, statistic, &axes, &out_shape).map(DynTensor::from),
        _ => {
            each_real!(&x, name, t => reduce_typed(t, statistic, &axes, &out_shape).map(DynTensor::from))
        }
    }
}

/// `sum`, `prod` and `mean` of complex numbers (`var` and `std` are
/// [`complex_spread`]; the planner refuses `max` and `min`: complex
/// numbers are unordered):
/// each part summed as a float sum is, the product multiplied through in
/// complex128 by the textbook formula (NumPy's).
fn reduce_complex<T: ComplexElement>(
    t: &Tensor<T>,
    statistic: Statistic,
    axes: &[usize],
    out: &[usize],
) -> Result<Tensor<T>> {
    let sum = |lane: &[T]| {
        let re = float_sum(lane.iter().map(|z| z.to_c64().re));
        let im = float_sum(lane.iter().map(|z| z.to_c64().im));
        C64::new(re, im)
    };
    per_lane(t, axes, out, |lane| match statistic {
        Statistic::Sum { .. } => Ok(T::from_c64(sum(lane))),
        Statistic::Prod { .. } => Ok(T::from_c64(
            lane.iter().fold(C64::new(1.0, 0.0), |a, z| a * z.to_c64()),
        )),
        Statistic::Mean { .. } => Ok(T::from_c64(sum(lane) / lane.len() as f64)),
        _ => Err(Error::UnsupportedDType {
            op: statistic.name(),
            dtype: T::DTYPE,
        }),
    })
}

/// The variance of complex numbers, `sum(|z - mean|^2) / (N -
/// correction)`, a real number (NumPy's), or its square root.
fn complex_spread<T: ComplexElement>(
    t: &Tensor<T>,
    correction: f64,
    sqrt: bool,
    axes: &[usize],
    out: &[usize],
) -> Result<Tensor<T::Real>> {
    let l = lanes(t, axes)?;
    let v: Vec<T::Real> = l
        .iter()
        .map(|lane| {
            let n = lane.len() as f64;
            let denom = n - correction;
            let var = if lane.is_empty() || denom <= 0.0 {
                f64::NAN
            } else {
                let mean = C64::new(
                    float_sum(lane.iter().map(|z| z.to_c64().re)),
                    float_sum(lane.iter().map(|z| z.to_c64().im)),
                ) / n;
                float_sum(lane.iter().map(|z| (z.to_c64() - mean).norm_sqr())) / denom
            };
            T::Real::from_f64(if sqrt { var.sqrt() } else { var })
        })
        .collect();
    Tensor::from_vec(v, out)
}

fn reduce_typed<T: crate::RealElement>(
    t: &Tensor<T>,
    statistic: Statistic,
    axes: &[usize],
    out: &[usize],
) -> Result<Tensor<T>> {
    per_lane(t, axes, out, |lane| Ok(of_lane(statistic, lane)))
}

/// `f` of every lane of `t` along `axes`, a tensor of shape `out`.
fn per_lane<T: Element>(
    t: &Tensor<T>,
    axes: &[usize],
    out: &[usize],
    f: impl Fn(&[T]) -> Result<T>,
) -> Result<Tensor<T>> {
    let l = lanes(t, axes)?;
    let v = l.iter().map(f).collect::<Result<Vec<T>>>()?;
    Tensor::from_vec(v, out)
}

/// NaN? (`false` for every non-float.)
#[inline]
pub(crate) fn is_nan<T: crate::RealElement>(v: T) -> bool {
    v.partial_cmp(&v).is_none()
}

/// `a + b` in `T`: exact IEEE arithmetic for floats (a float32 sum or
/// product computed in `f64` and rounded once is the float32 one; a
/// complex64 one in complex128, part by part),
/// wrapping for integers, `or` for bool.
#[inline]
pub(crate) fn add<T: Element>(a: T, b: T) -> T {
    if T::DTYPE.is_float() {
        T::from_f64(a.to_f64() + b.to_f64())
    } else if T::DTYPE.is_complex() {
        T::from_c64(a.to_c64() + b.to_c64())
    } else {
        T::from_i128(a.to_i128().wrapping_add(b.to_i128()))
    }
}

/// `a * b` in `T` (as [`add`]; `and` for bool).
#[inline]
pub(crate) fn mul<T: Element>(a: T, b: T) -> T {
    if T::DTYPE.is_float() {
        T::from_f64(a.to_f64() * b.to_f64())
    } else if T::DTYPE.is_complex() {
        T::from_c64(a.to_c64() * b.to_c64())
    } else {
        T::from_i128(a.to_i128().wrapping_mul(b.to_i128()))
    }
}

/// `a - b` in `T` (as [`add`]; `xor` for bool, as NumPy's `diff`).
#[inline]
pub(crate) fn sub<T: Element>(a: T, b: T) -> T {
    if T::DTYPE.is_float() {
        T::from_f64(a.to_f64() - b.to_f64())
    } else if T::DTYPE.is_complex() {
        T::from_c64(a.to_c64() - b.to_c64())
    } else {
        T::from_i128(a.to_i128().wrapping_sub(b.to_i128()))
    }
}

/// The extreme of a non-empty lane: the first NaN, else the element that
/// `better` prefers over every other.
fn extreme<T: crate::RealElement>(lane: &[T], better: impl Fn(T, T) -> bool) -> T {
    let mut m = lane[0];
    for &v in &lane[1..] {
        if is_nan(m) {
            break;
        }
        if is_nan(v) || better(v, m) {
            m = v;
        }
    }
    m
}

fn sum<T: Element>(lane: &[T]) -> T {
    if T::DTYPE.is_float() {
        T::from_f64(float_sum(lane.iter().map(|v| v.to_f64())))
    } else {
        T::from_i128(lane.iter().fold(0_i128, |a, v| a.wrapping_add(v.to_i128())))
    }
}

fn prod<T: Element>(lane: &[T]) -> T {
    if T::DTYPE.is_float() {
        T::from_f64(lane.iter().map(|v| v.to_f64()).product())
    } else {
        T::from_i128(lane.iter().fold(1_i128, |a, v| a.wrapping_mul(v.to_i128())))
    }
}

/// The variance of a lane of floats, in `f64`.
fn variance<T: Element>(lane: &[T], correction: f64) -> f64 {
    let n = lane.len() as f64;
    let denom = n - correction;
    if lane.is_empty() || denom <= 0.0 {
        return f64::NAN;
    }
    let mean = float_sum(lane.iter().map(|v| v.to_f64())) / n;
    float_sum(lane.iter().map(|v| (v.to_f64() - mean).powi(2))) / denom
}

/// The statistic of one lane (`T` is the result dtype).
fn of_lane<T: crate::RealElement>(statistic: Statistic, lane: &[T]) -> T {
    match statistic {
        Statistic::Sum { .. } => sum(lane),
        Statistic::Prod { .. } => prod(lane),
        // NumPy's mean into an integer dtype: the sum in that dtype
        // (wrapping), divided, truncated.
        Statistic::Mean { .. } if !T::DTYPE.is_float() => {
            T::from_f64(sum(lane).to_f64() / lane.len() as f64)
        }
        Statistic::Mean { .. } => {
            T::from_f64(float_sum(lane.iter().map(|v| v.to_f64())) / lane.len() as f64)
        }
        Statistic::Max => extreme(lane, |a, b| a > b),
        Statistic::Min => extreme(lane, |a, b| a < b),
        Statistic::Var { correction } => T::from_f64(variance(lane, correction)),
        Statistic::Std { correction } => T::from_f64(variance(lane, correction).sqrt()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::dyn_tensor::each;

    fn dyn_f64(v: Vec<f64>, shape: &[usize]) -> DynTensor {
        Tensor::from_vec(v, shape).unwrap().into()
    }

    fn values(t: &DynTensor) -> Vec<f64> {
        each!(t, t => t.to_vec().unwrap().into_iter().map(Element::to_f64).collect())
    }

    #[test]
    fn dtypes_follow_the_default_integers() {
        assert_eq!(accumulation_dtype(DType::I8, None), DType::I64);
        assert_eq!(accumulation_dtype(DType::Bool, None), DType::I64);
        assert_eq!(accumulation_dtype(DType::U16, None), DType::U64);
        assert_eq!(accumulation_dtype(DType::F32, None), DType::F32);
        assert_eq!(accumulation_dtype(DType::I8, Some(DType::I16)), DType::I16);
        assert_eq!(mean_dtype(DType::I64), DType::F64);
        assert_eq!(mean_dtype(DType::I8), DType::F32);
        assert_eq!(mean_dtype(DType::F32), DType::F32);
    }

    #[test]
    fn reductions_over_an_axis_tuple() {
        let x = dyn_f64((0..24).map(f64::from).collect(), &[2, 3, 4]);
        let s = reduce(&x, Statistic::Sum { dtype: None }, Some(&[0, -1]), false).unwrap();
        assert_eq!(s.shape(), &[3]);
        assert_eq!(values(&s), vec![60.0, 92.0, 124.0]);
        let m = reduce(&x, Statistic::Min, Some(&[2, 1]), true).unwrap();
        assert_eq!(m.shape(), &[2, 1, 1]);
        assert_eq!(values(&m), vec![0.0, 12.0]);
        let v = reduce(&x, Statistic::Var { correction: 1.0 }, None, false).unwrap();
        assert!((values(&v)[0] - 50.0).abs() < 1e-12);
    }

    #[test]
    fn empty_and_nan_cases() {
        let e = dyn_f64(vec![], &[0, 3]);
        assert_eq!(
            values(&reduce(&e, Statistic::Prod { dtype: None }, Some(&[0]), false).unwrap()),
            vec![1.0; 3]
        );
        assert!(matches!(
            reduce(&e, Statistic::Max, Some(&[0]), false),
            Err(Error::EmptyReduction { .. })
        ));
        let v = reduce(
            &dyn_f64(vec![1.0], &[1]),
            Statistic::Std { correction: 1.0 },
            None,
            false,
        )
        .unwrap();
        assert!(values(&v)[0].is_nan());
        let n = dyn_f64(vec![1.0, f64::NAN, 3.0], &[3]);
        assert!(values(&reduce(&n, Statistic::Max, None, false).unwrap())[0].is_nan());
        assert!(values(&reduce(&n, Statistic::Min, None, false).unwrap())[0].is_nan());
    }

    #[test]
    fn integer_sums_wrap_in_their_dtype_and_casts_come_first() {
        let x: DynTensor = Tensor::<u8>::from_vec(vec![200, 100], &[2]).unwrap().into();
        let s = reduce(&x, Statistic::Sum { dtype: None }, None, false).unwrap();
        assert_eq!(s.dtype(), DType::U64);
        assert_eq!(values(&s), vec![300.0]);
        let w = reduce(
            &x,
            Statistic::Sum {
                dtype: Some(DType::U8),
            },
            None,
            false,
        )
        .unwrap();
        assert_eq!(values(&w), vec![44.0]);
        let p = reduce(
            &x,
            Statistic::Prod {
                dtype: Some(DType::I8),
            },
            None,
            false,
        )
        .unwrap();
        // 200 as int8 is -56; -56 * 100 wraps to 32.
        assert_eq!(values(&p), vec![32.0]);
    }
}

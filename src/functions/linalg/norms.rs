//! `vector_norm` and `matrix_norm`: which orders exist, the shapes
//! (`axis`, `keepdims`), and the norms, computed in f64 and returned in the
//! input's float dtype.

use crate::array::dyn_tensor::{DynTensor, Meta};
use crate::array::element::{DType, Element, C32, C64};
use crate::array::shape::normalize_axis;
use crate::error::{Error, Result};
use crate::functions::lanes::float_sum;

use super::inexact::{inexact, matrices, Inexact};
use super::stack::{float_dtype, inexact_matrices, new, read, sized};
use super::svd::singular_values;

/// The orders of `matrix_norm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixOrd {
    /// Frobenius: the square root of the sum of squares.
    Fro,
    /// Nuclear: the sum of the singular values.
    Nuc,
    /// The largest (`One`) or smallest (`NegOne`) column sum of `|x|`.
    One,
    NegOne,
    /// The largest (`Two`) or smallest (`NegTwo`) singular value.
    Two,
    NegTwo,
    /// The largest (`Inf`) or smallest (`NegInf`) row sum of `|x|`.
    Inf,
    NegInf,
}

impl MatrixOrd {
    /// The order named `"fro"` or `"nuc"`.
    pub fn from_name(name: &str) -> Result<MatrixOrd> {
        match name {
            "fro" => Ok(MatrixOrd::Fro),
            "nuc" => Ok(MatrixOrd::Nuc),
            _ => Err(Self::invalid(name)),
        }
    }

    /// The order 1, -1, 2, -2, inf or -inf.
    #[allow(clippy::float_cmp)] // the orders are exact values
    pub fn from_number(ord: f64) -> Result<MatrixOrd> {
        [
            (1.0, MatrixOrd::One),
            (-1.0, MatrixOrd::NegOne),
            (2.0, MatrixOrd::Two),
            (-2.0, MatrixOrd::NegTwo),
            (f64::INFINITY, MatrixOrd::Inf),
            (f64::NEG_INFINITY, MatrixOrd::NegInf),
        ]
        .into_iter()
        .find(|&(v, _)| v == ord)
        .map(|(_, o)| o)
        .ok_or_else(|| Self::invalid(&ord.to_string()))
    }

    /// Whether the norm is computed from the singular values (the nuclear
    /// norm, ±2), whose iteration can fail to converge.
    pub(crate) fn needs_singular_values(self) -> bool {
        matches!(self, MatrixOrd::Nuc | MatrixOrd::Two | MatrixOrd::NegTwo)
    }

    fn invalid(ord: &str) -> Error {
        Error::InvalidArgument {
            op: "linalg.matrix_norm",
            reason: format!(
                "ord={ord} is not a matrix norm; expected 'fro', 'nuc', 1, -1, 2, -2, inf or -inf"
            ),
        }
    }
}

/// The largest (`max`) or smallest of `v`; `EmptyReduction` for none.
fn extreme(
    op: &'static str,
    shape: &[usize],
    v: impl Iterator<Item = f64>,
    max: bool,
) -> Result<f64> {
    v.reduce(|a, b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else if max == (b > a) {
            b
        } else {
            a
        }
    })
    .ok_or_else(|| Error::EmptyReduction {
        op,
        shape: shape.to_vec(),
    })
}

/// One vector's norm of order `ord` (NumPy's definitions: 0 counts the
/// nonzero elements, ±inf take the largest/smallest `|x|`, any other `p`
/// is `(Σ|x|^p)^(1/p)`).
#[allow(clippy::float_cmp)] // the orders are exact values
fn vector_norm_one(shape: &[usize], v: &[f64], ord: f64) -> Result<f64> {
    const OP: &str = "linalg.vector_norm";
    let abs = v.iter().map(|x| x.abs());
    Ok(if ord == f64::INFINITY {
        extreme(OP, shape, abs, true)?
    } else if ord == f64::NEG_INFINITY {
        extreme(OP, shape, abs, false)?
    } else if ord == 0.0 {
        v.iter().filter(|&&x| x != 0.0).count() as f64
    } else if ord == 1.0 {
        float_sum(abs)
    } else if ord == 2.0 {
        float_sum(v.iter().map(|x| x * x)).sqrt()
    } else {
        float_sum(abs.map(|x| x.powf(ord))).powf(1.0 / ord)
    })
}

/// The reduced axes of `vector_norm`, normalised (`None`: all), each once.
fn norm_axes(ndim: usize, axis: Option<&[isize]>) -> Result<Vec<usize>> {
    let Some(axis) = axis else {
        return Ok((0..ndim).collect());
    };
    let v = axis
        .iter()
        .map(|&a| normalize_axis(a, ndim))
        .collect::<Result<Vec<_>>>()?;
    if (1..v.len()).any(|i| v[..i].contains(&v[i])) {
        return Err(Error::InvalidArgument {
            op: "linalg.vector_norm",
            reason: format!("axis {axis:?} names an axis twice"),
        });
    }
    Ok(v)
}

/// The axes of `vector_norm` a shape of `ndim` dimensions keeps.
fn kept_axes(ndim: usize, reduced: &[usize]) -> Vec<usize> {
    (0..ndim).filter(|a| !reduced.contains(a)).collect()
}

/// The dtype and shape of `vector_norm(x, axis, keepdims, ord)`: `x`'s
/// float dtype, the axes not reduced (the reduced ones as 1s when
/// `keepdims`). A norm of order ±inf of empty vectors (the largest or
/// smallest of no element) is an [`Error::EmptyReduction`] when there
/// is at least one of them.
pub(crate) fn vector_norm_signature(
    x: Meta<'_>,
    axis: Option<&[isize]>,
    keepdims: bool,
    ord: f64,
) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.vector_norm";
    // The norm of complex numbers is that of their magnitudes: real.
    let d = if x.dtype.is_complex() {
        x.dtype.real_dtype()
    } else {
        float_dtype(OP, x.dtype)?
    };
    if ord.is_nan() {
        return Err(Error::InvalidArgument {
            op: OP,
            reason: "ord must not be NaN".into(),
        });
    }
    let shape = x.shape;
    let reduced = norm_axes(shape.len(), axis)?;
    let kept = kept_axes(shape.len(), &reduced);
    let len: usize = reduced.iter().map(|&a| shape[a]).product();
    let rows: usize = kept.iter().map(|&a| shape[a]).product();
    if ord.is_infinite() && len == 0 && rows > 0 {
        return Err(Error::EmptyReduction {
            op: OP,
            shape: shape.to_vec(),
        });
    }
    let out_shape: Vec<usize> = if keepdims {
        (0..shape.len())
            .map(|a| if reduced.contains(&a) { 1 } else { shape[a] })
            .collect()
    } else {
        kept.iter().map(|&a| shape[a]).collect()
    };
    sized(d, out_shape)
}

/// `vector_norm(x, axis, keepdims, ord)`: the norm of order `ord` of the
/// vectors along `axis` (an axis, several, or all when `None`).
pub fn vector_norm(
    x: &DynTensor,
    axis: Option<&[isize]>,
    keepdims: bool,
    ord: f64,
) -> Result<DynTensor> {
    const OP: &str = "linalg.vector_norm";
    let (d, out_shape) = vector_norm_signature(x.meta(), axis, keepdims, ord)?;
    let shape = x.shape();
    let reduced = norm_axes(shape.len(), axis)?;
    let kept = kept_axes(shape.len(), &reduced);
    // The kept axes first, the reduced ones last: one row per result.
    let perm: Vec<isize> = kept.iter().chain(&reduced).map(|&a| a as isize).collect();
    let len: usize = reduced.iter().map(|&a| shape[a]).product();
    let p = x.permuted_view(&perm)?;
    let rows: usize = kept.iter().map(|&a| shape[a]).product();
    let norms = match &p {
        DynTensor::C64(_) => row_norms(
            &read::<C32>(&p, OP)?,
            rows,
            len,
            |z| z.to_c64().norm(),
            shape,
            ord,
        )?,
        DynTensor::C128(_) => row_norms(&read::<C64>(&p, OP)?, rows, len, C64::norm, shape, ord)?,
        _ => {
            inexact!(OP, d, T => row_norms(&read::<T>(&p, OP)?, rows, len, Element::to_f64, shape, ord))?
        }
    };
    inexact!(OP, d, T => {
        let out: Vec<T> = norms.iter().map(|&v| <T as Element>::from_f64(v)).collect();
        new(&out, &out_shape)
    })
}

/// The norm of each of `rows` rows of `len` elements of `t`, of the
/// magnitudes `mag` gives (the value of a real number, the modulus of a
/// complex one), in f64.
fn row_norms<T: Element>(
    t: &crate::Tensor<T>,
    rows: usize,
    len: usize,
    mag: impl Fn(T) -> f64,
    shape: &[usize],
    ord: f64,
) -> Result<Vec<f64>> {
    let data = t.as_slice()?;
    let mut row = Vec::with_capacity(len);
    (0..rows)
        .map(|r| {
            row.clear();
            row.extend(data[r * len..(r + 1) * len].iter().map(|&v| mag(v)));
            vector_norm_one(shape, &row, ord)
        })
        .collect()
}

/// One `m×n` matrix's norm (`a` row-major, as f64; `sv` its singular
/// values, for the orders that need them).
fn matrix_norm_one(
    shape: &[usize],
    a: &[f64],
    (m, n): (usize, usize),
    ord: MatrixOrd,
    sv: &[f64],
) -> Result<f64> {
    const OP: &str = "linalg.matrix_norm";
    let col = |j: usize| float_sum((0..m).map(|i| a[i * n + j].abs()));
    let row = |i: usize| float_sum(a[i * n..(i + 1) * n].iter().map(|v| v.abs()));
    Ok(match ord {
        MatrixOrd::Fro => float_sum(a.iter().map(|v| v * v)).sqrt(),
        MatrixOrd::Nuc => float_sum(sv.iter().copied()),
        MatrixOrd::Two | MatrixOrd::NegTwo => {
            extreme(OP, shape, sv.iter().copied(), ord == MatrixOrd::Two)?
        }
        MatrixOrd::One | MatrixOrd::NegOne => {
            extreme(OP, shape, (0..n).map(col), ord == MatrixOrd::One)?
        }
        MatrixOrd::Inf | MatrixOrd::NegInf => {
            extreme(OP, shape, (0..m).map(row), ord == MatrixOrd::Inf)?
        }
    })
}

/// The dtype and shape of `matrix_norm(x, keepdims, ord)`: the real
/// dtype, the stack (with `(1, 1)` when `keepdims`). An order that takes
/// the largest or smallest of no value (±2 of a matrix without singular
/// values, ±1 without columns, ±inf without rows) is an
/// [`Error::EmptyReduction`] when the stack has a matrix.
pub(crate) fn matrix_norm_signature(
    x: Meta<'_>,
    keepdims: bool,
    ord: MatrixOrd,
) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.matrix_norm";
    let (d, s) = inexact_matrices(OP, x)?;
    let none = match ord {
        MatrixOrd::Fro | MatrixOrd::Nuc => false,
        MatrixOrd::Two | MatrixOrd::NegTwo => s.m.min(s.n) == 0,
        MatrixOrd::One | MatrixOrd::NegOne => s.n == 0,
        MatrixOrd::Inf | MatrixOrd::NegInf => s.m == 0,
    };
    if none && s.count() > 0 {
        return Err(Error::EmptyReduction {
            op: OP,
            shape: x.shape.to_vec(),
        });
    }
    let out_shape = if keepdims {
        s.shape_with(&[1, 1])
    } else {
        s.batch
    };
    sized(d.real_dtype(), out_shape)
}

/// `matrix_norm(x, keepdims, ord)`: each matrix's norm of order `ord`
/// (of a complex matrix: of its elements' moduli, and its singular
/// values), in the real dtype of `x`'s precision.
pub fn matrix_norm(x: &DynTensor, keepdims: bool, ord: MatrixOrd) -> Result<DynTensor> {
    const OP: &str = "linalg.matrix_norm";
    let (_, out_shape) = matrix_norm_signature(x.meta(), keepdims, ord)?;
    let (d, s) = inexact_matrices(OP, x.meta())?;
    let needs_sv = ord.needs_singular_values();
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let data = t.as_slice()?;
        let mut out = Vec::with_capacity(s.count());
        let mut a = Vec::with_capacity(s.size());
        for (b, mat) in matrices(data, &s).enumerate() {
            let sv: Vec<f64> = if needs_sv {
                singular_values(OP, mat)?.into_iter().map(Element::to_f64).collect()
            } else {
                Vec::new()
            };
            a.clear();
            a.extend(data[b * s.size()..(b + 1) * s.size()].iter().map(|&v| v.abs64()));
            let norm = matrix_norm_one(x.shape(), &a, (s.m, s.n), ord, &sv)?;
            out.push(<<T as faer::traits::ComplexField>::Real as Element>::from_f64(norm));
        }
        new(&out, &out_shape)
    })
}

//! The singular value decomposition of stacks of float or complex
//! matrices (`faer`'s), and what is computed from it: `svd`, `svdvals`,
//! `pinv` and `matrix_rank` (and the orders of `matrix_norm` that need
//! the singular values, through [`singular_values`]).
//!
//! Each matrix is scaled by a power of two first ([`normalized`]) so the
//! iteration sees entries of moderate size, and the singular values are
//! scaled back. Singular values are real: `S` and `svdvals` have the real
//! dtype of the input's precision; `U`, `Vh` and `pinv` the input's dtype.
//! An iteration that does not converge (NaN or infinite entries) is an
//! [`Error::LinAlg`](crate::error::Error::LinAlg).

use faer::traits::ComplexField;
use faer::MatRef;

use crate::array::dyn_tensor::{DynTensor, Meta};
use crate::array::element::{DType, Element, C64};
use crate::array::shape::broadcast_shapes;
use crate::error::{Error, Result};

use super::decompose::failure;
use super::inexact::{
    inexact, ldexp, matrices, normalized, push, push_identity, rescaled, Inexact, Keep,
};
use super::stack::{batch_offsets, inexact_matrices, new, pick, read, sized, Matrices};

/// The real type of `T`'s parts.
type Real<T> = <T as ComplexField>::Real;

/// The error of an SVD iteration that did not converge.
fn diverged(op: &'static str) -> Error {
    failure(op, "the SVD iteration did not converge")
}

/// One matrix's singular values, largest first.
pub(super) fn singular_values<T: Inexact>(
    op: &'static str,
    a: MatRef<'_, T>,
) -> Result<Vec<Real<T>>> {
    if a.nrows() == 0 || a.ncols() == 0 {
        return Ok(Vec::new());
    }
    let (a, exponent) = normalized(a);
    let sv = a.singular_values().map_err(|_| diverged(op))?;
    Ok(sv.into_iter().map(|v| rescaled(v, exponent)).collect())
}

/// The dtype and shape of result `part` of `svd(x, full_matrices)`: `U`
/// `(..., M, M)`, `S` `(..., K)` (real) and `Vh` `(..., N, N)` when
/// `full_matrices`, else `U` `(..., M, K)` and `Vh` `(..., K, N)`
/// (`K = min(M, N)`).
pub(crate) fn svd_signature(
    x: Meta<'_>,
    full_matrices: bool,
    part: usize,
) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.svd";
    let (d, s) = inexact_matrices(OP, x)?;
    let (m, n) = (s.m, s.n);
    let k = m.min(n);
    let (uc, vr) = if full_matrices { (m, n) } else { (k, k) };
    let parts = [
        (d, s.shape_with(&[m, uc])),
        (d.real_dtype(), s.shape_with(&[k])),
        (d, s.shape_with(&[vr, n])),
    ];
    pick(OP, parts, part)
}

/// `svd(x, full_matrices)`: `U`, the singular values `S` (largest first)
/// and `Vh` with `x = U·diag(S)·Vh` (`Vh` is `Vᴴ`); `U` is `M×M` and
/// `Vh` `N×N` when `full_matrices`, else `M×K` and `K×N`.
pub fn svd(x: &DynTensor, full_matrices: bool) -> Result<(DynTensor, DynTensor, DynTensor)> {
    const OP: &str = "linalg.svd";
    let (d, u_shape) = svd_signature(x.meta(), full_matrices, 0)?;
    let (_, s_shape) = svd_signature(x.meta(), full_matrices, 1)?;
    let (_, vh_shape) = svd_signature(x.meta(), full_matrices, 2)?;
    let s = Matrices::of(OP, x.shape())?;
    let (m, n) = (s.m, s.n);
    let k = m.min(n);
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (mut u, mut sv, mut vh) = (Vec::new(), Vec::<Real<T>>::new(), Vec::new());
        for a in matrices(t.as_slice()?, &s) {
            if k == 0 {
                // Nothing to decompose: the full factors are identities.
                if full_matrices {
                    push_identity(&mut u, m);
                    push_identity(&mut vh, n);
                }
                continue;
            }
            let (a, exponent) = normalized(a);
            let f = if full_matrices { a.svd() } else { a.thin_svd() }.map_err(|_| diverged(OP))?;
            push(&mut u, f.U(), false, Keep::All);
            sv.extend(f.S().column_vector().iter().map(|v| rescaled(T::real_part_impl(v), exponent)));
            push(&mut vh, f.V(), true, Keep::All);
        }
        Ok((new(&u, &u_shape)?, new(&sv, &s_shape)?, new(&vh, &vh_shape)?))
    })
}

/// The dtype and shape of `svdvals(x)`: `(..., min(M, N))`, real.
pub(crate) fn svdvals_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, s) = inexact_matrices("linalg.svdvals", x)?;
    sized(d.real_dtype(), s.shape_with(&[s.m.min(s.n)]))
}

/// `svdvals(x)`: each matrix's singular values, largest first.
pub fn svdvals(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.svdvals";
    let (_, shape) = svdvals_signature(x.meta())?;
    let (d, s) = inexact_matrices(OP, x.meta())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(s.count() * s.m.min(s.n));
        for a in matrices(t.as_slice()?, &s) {
            out.extend(singular_values(OP, a)?);
        }
        new(&out, &shape)
    })
}

/// The stack of `pinv` and `matrix_rank`, with their `rtol` (of any
/// dtype: it is read as f64) checked to broadcast to the stack's shape.
fn rtol_stack(op: &'static str, x: Meta<'_>, rtol: Option<Meta<'_>>) -> Result<(DType, Matrices)> {
    let (d, s) = inexact_matrices(op, x)?;
    if let Some(r) = rtol {
        if broadcast_shapes(op, r.shape, &s.batch)?[..] != s.batch[..] {
            return Err(Error::InvalidShape {
                op,
                shape: r.shape.to_vec(),
                reason: format!("rtol must broadcast to the stack's shape {:?}", s.batch),
            });
        }
    }
    Ok((d, s))
}

/// The relative tolerance of `pinv` and `matrix_rank` for each matrix of
/// the stack: `rtol` (a number as a 0-d tensor, or a tensor that
/// broadcasts to the stack's shape, as [`rtol_stack`] checked), by
/// default `max(M, N)·eps` of the input's precision.
fn tolerances<T: Inexact>(
    op: &'static str,
    s: &Matrices,
    rtol: Option<&DynTensor>,
) -> Result<Vec<f64>> {
    let Some(r) = rtol else {
        let eps = Element::to_f64(<Real<T> as faer::traits::RealField>::epsilon_impl());
        return Ok(vec![s.m.max(s.n) as f64 * eps; s.count()]);
    };
    let v = read::<f64>(r, op)?;
    let v = v.as_slice()?;
    Ok(batch_offsets(r.shape(), &s.batch)
        .into_iter()
        .map(|i| v[i])
        .collect())
}

/// The dtype and shape of `pinv(x, rtol)`: `(..., N, M)`.
pub(crate) fn pinv_signature(x: Meta<'_>, rtol: Option<Meta<'_>>) -> Result<(DType, Vec<usize>)> {
    let (d, s) = rtol_stack("linalg.pinv", x, rtol)?;
    sized(d, s.shape_with(&[s.n, s.m]))
}

/// `pinv(x, rtol)`: each matrix's pseudo-inverse (`N×M`), `V·diag(1/s)·Uᴴ`
/// from its SVD, the singular values at or below `rtol` times the largest
/// dropped; the sums in (complex) f64.
pub fn pinv(x: &DynTensor, rtol: Option<&DynTensor>) -> Result<DynTensor> {
    const OP: &str = "linalg.pinv";
    let (d, shape) = pinv_signature(x.meta(), rtol.map(DynTensor::meta))?;
    let s = Matrices::of(OP, x.shape())?;
    let (m, n) = (s.m, s.n);
    inexact!(OP, d, T => {
        let tol = tolerances::<T>(OP, &s, rtol)?;
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(t.numel());
        for (a, rt) in matrices(t.as_slice()?, &s).zip(tol) {
            if m.min(n) == 0 {
                out.extend(std::iter::repeat_n(<T as Element>::ZERO, m * n));
                continue;
            }
            let (a, exponent) = normalized(a);
            let f = a.thin_svd().map_err(|_| diverged(OP))?;
            let sv: Vec<f64> = f.S().column_vector().iter().map(|v| ldexp(Element::to_f64(T::real_part_impl(v)), exponent)).collect();
            let cutoff = rt * sv[0];
            let inv: Vec<f64> = sv.iter().map(|&v| if v > cutoff { 1.0 / v } else { 0.0 }).collect();
            let (u, v) = (f.U(), f.V());
            for j in 0..n {
                for i in 0..m {
                    let acc: C64 = inv
                        .iter()
                        .enumerate()
                        .map(|(c, w)| v.get(j, c).to_c64() * *w * u.get(i, c).to_c64().conj())
                        .sum();
                    out.push(T::from_c64(acc));
                }
            }
        }
        new(&out, &shape)
    })
}

/// The dtype and shape of `matrix_rank(x, rtol)`: one int64 per matrix
/// of the stack.
pub(crate) fn matrix_rank_signature(
    x: Meta<'_>,
    rtol: Option<Meta<'_>>,
) -> Result<(DType, Vec<usize>)> {
    let (_, s) = rtol_stack("linalg.matrix_rank", x, rtol)?;
    sized(DType::I64, s.batch)
}

/// `matrix_rank(x, rtol)`: the number of singular values of each matrix
/// above `rtol` times the largest, as int64.
pub fn matrix_rank(x: &DynTensor, rtol: Option<&DynTensor>) -> Result<DynTensor> {
    const OP: &str = "linalg.matrix_rank";
    let (_, shape) = matrix_rank_signature(x.meta(), rtol.map(DynTensor::meta))?;
    let (d, s) = inexact_matrices(OP, x.meta())?;
    inexact!(OP, d, T => {
        let tol = tolerances::<T>(OP, &s, rtol)?;
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(s.count());
        for (a, rt) in matrices(t.as_slice()?, &s).zip(tol) {
            let sv: Vec<f64> = singular_values(OP, a)?.into_iter().map(Element::to_f64).collect();
            let cutoff = rt * sv.first().copied().unwrap_or(0.0);
            out.push(sv.iter().filter(|&&v| v > cutoff).count() as i64);
        }
        new(&out, &shape)
    })
}

//! The decompositions and what is computed from them, on stacks of float32
//! or float64 matrices, through `faer`: LU (`inv`, `solve`; `det` and
//! `slogdet` from pivots computed here the way LAPACK's `getf2` does),
//! Cholesky, QR, the symmetric eigendecomposition (`eigh`,
//! `eigvalsh`) and the SVD (`svd`, `svdvals`, `pinv`, `matrix_rank`).
//!
//! Each matrix of a stack is decomposed on its own, in the input's dtype.
//! A singular matrix (an exactly zero pivot, as LAPACK's `getrf` reports)
//! makes `inv` and `solve` fail; a matrix that is not positive definite
//! makes `cholesky` fail; an iteration that does not converge (the
//! symmetric eigendecomposition, the SVD) makes its function fail; all are
//! [`Error::LinAlg`], raised before any result exists. Every other error
//! depends on dtypes and shapes only: each function's `_signature` raises
//! it, and the function starts from its signature.

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{MatRef, Side};

use crate::array::dyn_tensor::{for_float, DynElement, DynTensor, Meta};
use crate::array::element::{DType, Element};
use crate::array::shape::broadcast_shapes;
use crate::error::{Error, Result};

use super::complex_svd;
use super::stack::{
    batch_offsets, float_matrices, float_square, inexact_matrices, new, pick, promote_float, read,
    sized, Matrices,
};

/// The float element types, as `faer` computes with them.
pub(super) trait LinalgFloat: DynElement + crate::Float + faer::traits::RealField {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}

/// The error for a dtype that validation let through (it cannot be).
pub(super) fn not_float(op: &'static str, dtype: DType) -> Error {
    Error::UnsupportedDType { op, dtype }
}

/// The error of `op` for a matrix it cannot handle.
fn failure(op: &'static str, reason: &'static str) -> Error {
    Error::LinAlg { op, reason }
}

/// Run `$body` with `$T` the float type of `$d` (checked float before).
macro_rules! float {
    ($op:expr, $d:expr, $T:ident => $body:expr) => {
        for_float!($d, $T => $body, Err(not_float($op, $d)))
    };
}
pub(super) use float;

/// Each matrix of the stack `s` held in `data`, as a `faer` view.
pub(super) fn matrices<'a, T>(data: &'a [T], s: &Matrices) -> impl Iterator<Item = MatRef<'a, T>> {
    let (m, n, size) = (s.m, s.n, s.size());
    (0..s.count()).map(move |b| MatRef::from_row_major_slice(&data[b * size..(b + 1) * size], m, n))
}

/// Append `a`'s elements in row-major order (`a` transposed: `t`), with
/// zeros below the diagonal when `upper` (and above it when `lower`), so
/// a triangular factor is exactly triangular.
fn push<T: LinalgFloat>(out: &mut Vec<T>, a: MatRef<'_, T>, t: bool, tri: Option<Side>) {
    let a = if t { a.transpose() } else { a };
    for i in 0..a.nrows() {
        for j in 0..a.ncols() {
            let zero = match tri {
                Some(Side::Upper) => j < i,
                Some(Side::Lower) => j > i,
                None => false,
            };
            out.push(if zero {
                <T as Element>::ZERO
            } else {
                *a.get(i, j)
            });
        }
    }
}

/// `v·2^e`, exactly (in steps, so that neither power overflows).
pub(super) fn ldexp(mut v: f64, mut e: i32) -> f64 {
    while e > 1000 {
        v *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        v *= 2f64.powi(-1000);
        e += 1000;
    }
    v * 2f64.powi(e)
}

/// `a` divided by the power of two `2^e` nearest above its largest
/// `|element|` (exact), and `e`: the SVD and the symmetric
/// eigendecomposition then see entries of moderate size whatever `a`'s
/// magnitude (their values scale with the matrix; without this, float32
/// entries near 1e19 overflow inside the iterations, and subnormal ones
/// underflow, and they do not converge).
fn normalized<T: LinalgFloat>(a: MatRef<'_, T>) -> (faer::Mat<T>, i32) {
    let mut big = 0.0_f64;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            big = big.max(Element::to_f64(*a.get(i, j)).abs());
        }
    }
    let e = if big.is_finite() && big > 0.0 {
        big.log2().ceil() as i32
    } else {
        0
    };
    let m = faer::Mat::from_fn(a.nrows(), a.ncols(), |i, j| {
        <T as Element>::from_f64(ldexp(Element::to_f64(*a.get(i, j)), -e))
    });
    (m, e)
}

/// `v·2^e` in `T`.
fn rescaled<T: LinalgFloat>(v: T, e: i32) -> T {
    <T as Element>::from_f64(ldexp(Element::to_f64(v), e))
}

/// Append the `n×n` identity.
fn push_identity<T: LinalgFloat>(out: &mut Vec<T>, n: usize) {
    out.extend((0..n * n).map(|i| {
        if i % (n + 1) == 0 {
            <T as Element>::ONE
        } else {
            <T as Element>::ZERO
        }
    }));
}

/// The dtype and shape of `cholesky(x, upper)`: a float stack of square
/// matrices, kept.
pub(crate) fn cholesky_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, _) = float_square("linalg.cholesky", x)?;
    sized(d, x.shape.to_vec())
}

/// `cholesky(x, upper)`: the lower factor `L` of `x = L·Lᵀ` (or `Lᵀ`),
/// reading each matrix's lower triangle.
pub fn cholesky(x: &DynTensor, upper: bool) -> Result<DynTensor> {
    const OP: &str = "linalg.cholesky";
    let (d, _) = cholesky_signature(x.meta())?;
    let s = Matrices::of(OP, x.shape())?;
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(t.numel());
        for a in matrices(t.as_slice()?, &s) {
            if s.n == 0 {
                continue;
            }
            let llt = a.llt(Side::Lower).map_err(|_| failure(OP, "the matrix is not positive definite"))?;
            let tri = if upper { Side::Upper } else { Side::Lower };
            push(&mut out, llt.L(), upper, Some(tri));
        }
        new(&out, x.shape())
    })
}

/// The dtype and shape of `det(x)`: one float per square matrix of the
/// stack.
pub(crate) fn det_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, s) = float_square("linalg.det", x)?;
    sized(d, s.batch)
}

/// `det(x)`: each matrix's determinant (1 for 0×0), the product of its
/// LU pivots.
pub fn det(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.det";
    let (d, out) = det_signature(x.meta())?;
    let s = Matrices::of(OP, x.shape())?;
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let dets: Vec<T> = matrices(t.as_slice()?, &s)
            .map(|a| {
                // A zero pivot means an exactly singular matrix (the
                // pivots after it may be NaN: the factorisation divided
                // by it).
                let (sign, pivots) = lu_pivots(a);
                let det = if pivots.contains(&0.0) { 0.0 } else { pivots.iter().fold(sign, |p, v| p * v) };
                <T as Element>::from_f64(det)
            })
            .collect();
        new(&dets, &out)
    })
}

/// The sign of the row permutation and the pivots (`U`'s diagonal) of one
/// square matrix's LU factors with partial pivoting, computed in f64 by
/// dividing by each pivot as LAPACK's `getf2` does (faer multiplies by the
/// pivot's reciprocal, which overflows for a subnormal pivot), and skipping
/// the elimination under a zero pivot (so no NaN follows it).
fn lu_pivots<T: LinalgFloat>(a: MatRef<'_, T>) -> (f64, Vec<f64>) {
    let n = a.nrows();
    let mut m: Vec<f64> = (0..n * n)
        .map(|k| Element::to_f64(*a.get(k / n, k % n)))
        .collect();
    let mut sign = 1.0;
    let mut pivots = Vec::with_capacity(n);
    for k in 0..n {
        let p = (k..n).fold(k, |best, i| {
            if m[i * n + k].abs() > m[best * n + k].abs() {
                i
            } else {
                best
            }
        });
        if p != k {
            for j in 0..n {
                m.swap(k * n + j, p * n + j);
            }
            sign = -sign;
        }
        let d = m[k * n + k];
        pivots.push(d);
        if d == 0.0 {
            continue;
        }
        for i in k + 1..n {
            let l = m[i * n + k] / d;
            if l != 0.0 {
                for j in k + 1..n {
                    m[i * n + j] -= l * m[k * n + j];
                }
            }
        }
    }
    (sign, pivots)
}

/// The sign and the natural log of the absolute value of one matrix's
/// determinant (`(0, -inf)` when a pivot is zero).
fn slogdet_one<T: LinalgFloat>(a: MatRef<'_, T>) -> (f64, f64) {
    let (mut sign, pivots) = lu_pivots(a);
    let mut log = 0.0;
    for v in pivots {
        if v == 0.0 {
            return (0.0, f64::NEG_INFINITY);
        }
        sign *= v.signum();
        log += v.abs().ln();
    }
    (sign, log)
}

/// The dtype and shape of result `part` of `slogdet(x)` (`sign`,
/// `logabsdet`): each one float per square matrix of the stack.
pub(crate) fn slogdet_signature(x: Meta<'_>, part: usize) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.slogdet";
    let (d, s) = float_square(OP, x)?;
    pick(OP, d, [s.batch.clone(), s.batch], part)
}

/// `slogdet(x)`: the sign (0 for a singular matrix) and the log of the
/// absolute value of each determinant, both in `x`'s dtype.
pub fn slogdet(x: &DynTensor) -> Result<(DynTensor, DynTensor)> {
    const OP: &str = "linalg.slogdet";
    let (d, out) = slogdet_signature(x.meta(), 0)?;
    let s = Matrices::of(OP, x.shape())?;
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (signs, logs): (Vec<T>, Vec<T>) = matrices(t.as_slice()?, &s)
            .map(|a| {
                let (sg, lg) = slogdet_one(a);
                (<T as Element>::from_f64(sg), <T as Element>::from_f64(lg))
            })
            .unzip();
        Ok((new(&signs, &out)?, new(&logs, &out)?))
    })
}

/// One matrix's LU factors, refused when a pivot is exactly zero.
fn lu_nonsingular<T: LinalgFloat>(
    op: &'static str,
    a: MatRef<'_, T>,
) -> Result<faer::linalg::solvers::PartialPivLu<T>> {
    let lu = a.partial_piv_lu();
    let u = lu.U();
    // A pivot of zero, or one that overflowed for a matrix of finite
    // entries (the reciprocal of a subnormal pivot), is a singular matrix
    // to working precision.
    let finite =
        (0..a.nrows()).all(|i| (0..a.ncols()).all(|j| Element::to_f64(*a.get(i, j)).is_finite()));
    if (0..a.nrows()).any(|i| {
        let v = Element::to_f64(*u.get(i, i));
        v == 0.0 || (finite && !v.is_finite())
    }) {
        return Err(failure(op, "the matrix is singular"));
    }
    Ok(lu)
}

/// The dtype and shape of `inv(x)`: a float stack of square matrices,
/// kept.
pub(crate) fn inv_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, _) = float_square("linalg.inv", x)?;
    sized(d, x.shape.to_vec())
}

/// `inv(x)`: each matrix's inverse.
pub fn inv(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.inv";
    let (d, _) = inv_signature(x.meta())?;
    let s = Matrices::of(OP, x.shape())?;
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(t.numel());
        for a in matrices(t.as_slice()?, &s) {
            if s.n > 0 {
                push(&mut out, lu_nonsingular(OP, a)?.inverse().as_ref(), false, None);
            }
        }
        new(&out, x.shape())
    })
}

/// `solve`'s operands as stacks: `x1`'s square matrices and `x2`'s
/// right-hand sides (a vector `(M,)` read as one `M×1` matrix for the
/// whole stack), checked to have the same `M`.
fn solve_stacks(op: &'static str, x1: Meta<'_>, x2: Meta<'_>) -> Result<(Matrices, Matrices)> {
    let s1 = Matrices::square(op, x1.shape)?;
    let s2 = if let [m] = x2.shape {
        Matrices {
            batch: Vec::new(),
            m: *m,
            n: 1,
        }
    } else {
        Matrices::of(op, x2.shape)?
    };
    if s2.m != s1.m {
        return Err(Error::InvalidShape {
            op,
            shape: x2.shape.to_vec(),
            reason: format!(
                "x2 has {} rows, x1's matrices {:?} are {m}x{m}: they must be equal",
                s2.m,
                x1.shape,
                m = s1.m
            ),
        });
    }
    Ok((s1, s2))
}

/// The dtype and shape of `solve(x1, x2)`: the promoted float dtype, the
/// broadcast stack, then `(M,)` for a vector `x2` or `(M, K)`.
pub(crate) fn solve_signature(x1: Meta<'_>, x2: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.solve";
    let d = promote_float(OP, x1.dtype, x2.dtype)?;
    let (s1, s2) = solve_stacks(OP, x1, x2)?;
    let mut shape = broadcast_shapes(OP, &s1.batch, &s2.batch)?.to_vec();
    shape.push(s1.m);
    if x2.shape.len() != 1 {
        shape.push(s2.n);
    }
    sized(d, shape)
}

/// `solve(x1, x2)`: `x1⁻¹·x2` for each square `x1` of the stack; `x2` is
/// one vector (`(M,)`, for every matrix) or a stack of `M×K` matrices
/// whose stack dimensions broadcast with `x1`'s.
pub fn solve(x1: &DynTensor, x2: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.solve";
    let (d, shape) = solve_signature(x1.meta(), x2.meta())?;
    let (s1, s2) = solve_stacks(OP, x1.meta(), x2.meta())?;
    let tail = if x2.shape().len() == 1 { 1 } else { 2 };
    let batch = &shape[..shape.len() - tail];
    let (o1, o2) = (
        batch_offsets(&s1.batch, batch),
        batch_offsets(&s2.batch, batch),
    );
    float!(OP, d, T => {
        let (t1, t2) = (read::<T>(x1, OP)?, read::<T>(x2, OP)?);
        let (a, b) = (t1.as_slice()?, t2.as_slice()?);
        let mut out = Vec::with_capacity(o1.len() * s1.m * s2.n);
        for (&i, &j) in o1.iter().zip(&o2) {
            if s1.m == 0 {
                continue;
            }
            let lu = lu_nonsingular(OP, MatRef::from_row_major_slice(&a[i * s1.size()..(i + 1) * s1.size()], s1.m, s1.m))?;
            let rhs = &b[j * s2.size()..(j + 1) * s2.size()];
            let mut sol = faer::Mat::from_fn(s2.m, s2.n, |r, c| rhs[r * s2.n + c]);
            lu.solve_in_place(sol.as_mut());
            push(&mut out, sol.as_ref(), false, None);
        }
        new(&out, &shape)
    })
}

/// The dtype and shape of result `part` of `eigh(x)`: the eigenvalues
/// `(..., M)` or the eigenvectors `(..., M, M)`.
pub(crate) fn eigh_signature(x: Meta<'_>, part: usize) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.eigh";
    let (d, s) = float_square(OP, x)?;
    pick(OP, d, [s.shape_with(&[s.n]), x.shape.to_vec()], part)
}

/// `eigh(x)`: the eigenvalues (ascending) and the eigenvectors (columns)
/// of each symmetric matrix, reading its lower triangle.
pub fn eigh(x: &DynTensor) -> Result<(DynTensor, DynTensor)> {
    const OP: &str = "linalg.eigh";
    let (d, w_shape) = eigh_signature(x.meta(), 0)?;
    let s = Matrices::of(OP, x.shape())?;
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (mut vals, mut vecs) = (Vec::with_capacity(s.count() * s.n), Vec::with_capacity(t.numel()));
        for a in matrices(t.as_slice()?, &s) {
            if s.n == 0 {
                continue;
            }
            let (a, exponent) = normalized(a);
            let e = a.self_adjoint_eigen(Side::Lower).map_err(|_| failure(OP, "the eigenvalue iteration did not converge"))?;
            vals.extend(e.S().column_vector().iter().map(|&v| rescaled(v, exponent)));
            push(&mut vecs, e.U(), false, None);
        }
        Ok((new(&vals, &w_shape)?, new(&vecs, x.shape())?))
    })
}

/// The dtype and shape of `eigvalsh(x)`: `(..., M)`.
pub(crate) fn eigvalsh_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, s) = float_square("linalg.eigvalsh", x)?;
    sized(d, s.shape_with(&[s.n]))
}

/// `eigvalsh(x)`: the eigenvalues (ascending) of each symmetric matrix.
pub fn eigvalsh(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.eigvalsh";
    let (d, shape) = eigvalsh_signature(x.meta())?;
    let s = Matrices::of(OP, x.shape())?;
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let mut vals = Vec::with_capacity(s.count() * s.n);
        for a in matrices(t.as_slice()?, &s) {
            if s.n > 0 {
                let (a, exponent) = normalized(a);
                let w = a.self_adjoint_eigenvalues(Side::Lower).map_err(|_| failure(OP, "the eigenvalue iteration did not converge"))?;
                vals.extend(w.into_iter().map(|v| rescaled(v, exponent)));
            }
        }
        new(&vals, &shape)
    })
}

/// The dtype and shape of result `part` of `qr(x, complete)`: `Q`
/// `(..., M, M)` and `R` `(..., M, N)` when `complete`, else `Q`
/// `(..., M, K)` and `R` `(..., K, N)` (`K = min(M, N)`).
pub(crate) fn qr_signature(
    x: Meta<'_>,
    complete: bool,
    part: usize,
) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.qr";
    let (d, s) = float_matrices(OP, x)?;
    let inner = if complete { s.m } else { s.m.min(s.n) };
    pick(
        OP,
        d,
        [s.shape_with(&[s.m, inner]), s.shape_with(&[inner, s.n])],
        part,
    )
}

/// `qr(x, complete)`: `Q` (orthonormal columns) and `R` (upper
/// triangular) with `x = Q·R`; reduced: `M×K` and `K×N`, complete: `M×M`
/// and `M×N` (`K = min(M, N)`).
pub fn qr(x: &DynTensor, complete: bool) -> Result<(DynTensor, DynTensor)> {
    const OP: &str = "linalg.qr";
    let (d, q_shape) = qr_signature(x.meta(), complete, 0)?;
    let (_, r_shape) = qr_signature(x.meta(), complete, 1)?;
    let s = Matrices::of(OP, x.shape())?;
    let (m, n) = (s.m, s.n);
    let k = m.min(n);
    // `Q`'s columns, `R`'s rows.
    let (qc, rr) = (q_shape[q_shape.len() - 1], r_shape[r_shape.len() - 2]);
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (mut q, mut r) = (Vec::with_capacity(s.count() * m * qc), Vec::with_capacity(s.count() * rr * n));
        for a in matrices(t.as_slice()?, &s) {
            if k == 0 {
                // No Householder reflections: Q is (part of) the identity.
                q.extend((0..m * qc).map(|i| if i % (qc + 1) == 0 { <T as Element>::ONE } else { <T as Element>::ZERO }));
                r.extend(std::iter::repeat_n(<T as Element>::ZERO, rr * n));
                continue;
            }
            let f = a.qr();
            let qm = if complete { f.compute_Q() } else { f.compute_thin_Q() };
            push(&mut q, qm.as_ref(), false, None);
            push(&mut r, f.thin_R(), false, Some(Side::Upper));
            // The complete R's rows below the first K are zero.
            r.extend(std::iter::repeat_n(<T as Element>::ZERO, (rr - k) * n));
        }
        Ok((new(&q, &q_shape)?, new(&r, &r_shape)?))
    })
}

/// One matrix's singular values, largest first.
pub(super) fn singular_values<T: LinalgFloat>(
    op: &'static str,
    a: MatRef<'_, T>,
) -> Result<Vec<T>> {
    if a.nrows() == 0 || a.ncols() == 0 {
        return Ok(Vec::new());
    }
    let (a, exponent) = normalized(a);
    let sv = a
        .singular_values()
        .map_err(|_| failure(op, "the SVD iteration did not converge"))?;
    Ok(sv.into_iter().map(|v| rescaled(v, exponent)).collect())
}

/// The dtype and shape of result `part` of `svd(x, full_matrices)`: `U`
/// `(..., M, M)`, `S` `(..., K)` and `Vh` `(..., N, N)` when
/// `full_matrices`, else `U` `(..., M, K)` and `Vh` `(..., K, N)`
/// (`K = min(M, N)`).
pub(crate) fn svd_signature(
    x: Meta<'_>,
    full_matrices: bool,
    part: usize,
) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.svd";
    let (d, s) = float_matrices(OP, x)?;
    let (m, n) = (s.m, s.n);
    let k = m.min(n);
    let (uc, vr) = if full_matrices { (m, n) } else { (k, k) };
    let shapes = [
        s.shape_with(&[m, uc]),
        s.shape_with(&[k]),
        s.shape_with(&[vr, n]),
    ];
    pick(OP, d, shapes, part)
}

/// `svd(x, full_matrices)`: `U`, the singular values `S` (largest first)
/// and `Vh` with `x = U·diag(S)·Vh`; `U` is `M×M` and `Vh` `N×N` when
/// `full_matrices`, else `M×K` and `K×N`.
pub fn svd(x: &DynTensor, full_matrices: bool) -> Result<(DynTensor, DynTensor, DynTensor)> {
    const OP: &str = "linalg.svd";
    let (d, u_shape) = svd_signature(x.meta(), full_matrices, 0)?;
    let (_, s_shape) = svd_signature(x.meta(), full_matrices, 1)?;
    let (_, vh_shape) = svd_signature(x.meta(), full_matrices, 2)?;
    let s = Matrices::of(OP, x.shape())?;
    let (m, n) = (s.m, s.n);
    let k = m.min(n);
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (mut u, mut sv, mut vh) = (Vec::new(), Vec::new(), Vec::new());
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
            let f = if full_matrices { a.svd() } else { a.thin_svd() }
                .map_err(|_| failure(OP, "the SVD iteration did not converge"))?;
            push(&mut u, f.U(), false, None);
            sv.extend(f.S().column_vector().iter().map(|&v| rescaled(v, exponent)));
            push(&mut vh, f.V(), true, None);
        }
        Ok((new(&u, &u_shape)?, new(&sv, &s_shape)?, new(&vh, &vh_shape)?))
    })
}

/// The dtype and shape of `svdvals(x)`: `(..., min(M, N))`.
pub(crate) fn svdvals_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, s) = inexact_matrices("linalg.svdvals", x)?;
    // Singular values are real (of a complex matrix too).
    sized(d.real_dtype(), s.shape_with(&[s.m.min(s.n)]))
}

/// `svdvals(x)`: each matrix's singular values, largest first.
pub fn svdvals(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.svdvals";
    let (d, shape) = svdvals_signature(x.meta())?;
    let s = Matrices::of(OP, x.shape())?;
    if x.dtype().is_complex() {
        return float!(OP, d, T => complex_svd::svdvals::<T>(x, &s, &shape));
    }
    float!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(s.count() * s.m.min(s.n));
        for a in matrices(t.as_slice()?, &s) {
            out.extend(singular_values(OP, a)?);
        }
        new(&out, &shape)
    })
}

/// The float stack of `pinv` and `matrix_rank`, with their `rtol` (of
/// any dtype: it is read as f64) checked to broadcast to the stack's
/// shape.
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
/// default `max(M, N)·eps`.
fn tolerances(
    op: &'static str,
    s: &Matrices,
    rtol: Option<&DynTensor>,
    eps: f64,
) -> Result<Vec<f64>> {
    let Some(r) = rtol else {
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

/// `pinv(x, rtol)`: each matrix's pseudo-inverse (`N×M`), from its SVD,
/// the singular values at or below `rtol` times the largest set to zero.
pub fn pinv(x: &DynTensor, rtol: Option<&DynTensor>) -> Result<DynTensor> {
    const OP: &str = "linalg.pinv";
    let (d, shape) = pinv_signature(x.meta(), rtol.map(DynTensor::meta))?;
    let s = Matrices::of(OP, x.shape())?;
    let (m, n) = (s.m, s.n);
    if d.is_complex() {
        return float!(OP, d.real_dtype(), T => {
            let tol = tolerances(OP, &s, rtol, Element::to_f64(T::EPSILON))?;
            complex_svd::pinv::<T>(x, &s, &tol, &shape)
        });
    }
    float!(OP, d, T => {
        let tol = tolerances(OP, &s, rtol, Element::to_f64(T::EPSILON))?;
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(t.numel());
        for (a, rt) in matrices(t.as_slice()?, &s).zip(tol) {
            if m.min(n) == 0 {
                out.extend(std::iter::repeat_n(<T as Element>::ZERO, m * n));
                continue;
            }
            let (a, exponent) = normalized(a);
            let f = a.thin_svd().map_err(|_| failure(OP, "the SVD iteration did not converge"))?;
            let sv: Vec<f64> = f.S().column_vector().iter().map(|&v| ldexp(Element::to_f64(v), exponent)).collect();
            let cutoff = rt * sv[0];
            let inv: Vec<f64> = sv.iter().map(|&v| if v > cutoff { 1.0 / v } else { 0.0 }).collect();
            let (u, v) = (f.U(), f.V());
            for j in 0..n {
                for i in 0..m {
                    let acc: f64 = inv
                        .iter()
                        .enumerate()
                        .map(|(c, w)| Element::to_f64(*v.get(j, c)) * w * Element::to_f64(*u.get(i, c)))
                        .sum();
                    out.push(<T as Element>::from_f64(acc));
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
    // Float or complex, as the signature checked.
    let d = x.dtype();
    let s = Matrices::of(OP, x.shape())?;
    if d.is_complex() {
        return float!(OP, d.real_dtype(), T => {
            let tol = tolerances(OP, &s, rtol, Element::to_f64(T::EPSILON))?;
            complex_svd::matrix_rank::<T>(x, &s, &tol, &shape)
        });
    }
    float!(OP, d, T => {
        let tol = tolerances(OP, &s, rtol, Element::to_f64(T::EPSILON))?;
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

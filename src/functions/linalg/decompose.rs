//! The decompositions of stacks of float or complex matrices, through
//! `faer`: LU (`inv`, `solve`; `det` and `slogdet` from pivots computed
//! as LAPACK's `getrf` computes them: blocked, each panel as `getf2`),
//! Cholesky, QR and the Hermitian
//! eigendecomposition (`eigh`, `eigvalsh`). The SVD and what is computed
//! from it are in [`super::svd`]; the element types, in [`super::inexact`].
//!
//! Each matrix of a stack is decomposed on its own, in the input's dtype.
//! A singular matrix (an exactly zero pivot in LAPACK's arithmetic, as
//! NumPy's `getrf` reports it; see [`lu_nonsingular`])
//! makes `inv` and `solve` fail; a matrix that is not positive definite
//! makes `cholesky` fail; an iteration that does not converge (the
//! Hermitian eigendecomposition) makes its function fail; all are
//! [`Error::LinAlg`], raised before any result exists. Every other error
//! depends on dtypes and shapes only: each function's `_signature` raises
//! it, and the function starts from its signature.
//!
//! Complex matrices follow NumPy: `cholesky` gives `L` of `x = L·Lᴴ`
//! (`upper`: `Lᴴ`), `eigh` reads a Hermitian matrix's lower triangle and
//! gives real eigenvalues, `slogdet`'s sign is a complex number of
//! modulus 1 (0 for a singular matrix) and its `logabsdet` is real.

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{MatRef, Side};

use crate::array::dyn_tensor::{DynTensor, Meta};
use crate::array::element::{DType, Element};
use crate::array::shape::broadcast_shapes;
use crate::error::{Error, Result};

use super::inexact::{
    hermitian_normalized, inexact, lu_pivots, map_matrices, matrices, push, push_eye, rescaled,
    Inexact, Keep, Pivot,
};
use super::stack::{
    batch_offsets, inexact_matrices, inexact_square, new, pick, promote_inexact, read, sized,
    Matrices,
};

/// The error of `op` for a matrix it cannot handle.
pub(super) fn failure(op: &'static str, reason: &'static str) -> Error {
    Error::LinAlg { op, reason }
}

/// The dtype and shape of `cholesky(x, upper)`: a float or complex stack
/// of square matrices, kept.
pub(crate) fn cholesky_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, _) = inexact_square("linalg.cholesky", x)?;
    sized(d, x.shape.to_vec())
}

/// `cholesky(x, upper)`: the lower factor `L` of `x = L·Lᴴ` (or `Lᴴ`),
/// reading each matrix's lower triangle.
pub fn cholesky(x: &DynTensor, upper: bool) -> Result<DynTensor> {
    const OP: &str = "linalg.cholesky";
    let (d, _) = cholesky_signature(x.meta())?;
    let s = Matrices::of(OP, x.shape())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(t.numel());
        for a in matrices(t.as_slice()?, &s) {
            if s.n == 0 {
                continue;
            }
            let llt = a.llt(Side::Lower).map_err(|_| failure(OP, "the matrix is not positive definite"))?;
            let keep = if upper { Keep::Upper } else { Keep::Lower };
            push(&mut out, llt.L(), upper, keep);
        }
        new(&out, x.shape())
    })
}

/// The dtype and shape of `det(x)`: one number (of `x`'s dtype) per
/// square matrix of the stack.
pub(crate) fn det_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, s) = inexact_square("linalg.det", x)?;
    sized(d, s.batch)
}

/// `det(x)`: each matrix's determinant (1 for 0×0), the product of its
/// LU pivots.
pub fn det(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.det";
    let (d, out) = det_signature(x.meta())?;
    let s = Matrices::of(OP, x.shape())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let dets: Vec<T> = map_matrices(t.as_slice()?, &s, |a| {
                // NumPy's: the sign times the exponential of the log of
                // the absolute value (`slogdet`), so that a product of
                // pivots that leaves f64's range on the way (1e200 ·
                // 1e200 · 1e-200) does not overflow; 0 for a zero pivot.
                let (sign, log) = slogdet_one(a);
                let size: <T as Inexact>::Wide = Pivot::sign(log.exp());
                T::from_wide(sign * size)
            });
        new(&dets, &out)
    })
}

/// The sign (`x / |x|` of the determinant) and the natural log of the
/// absolute value of one matrix's determinant (`(0, -inf)` when a pivot
/// is zero).
fn slogdet_one<T: Inexact>(a: MatRef<'_, T>) -> (T::Wide, f64) {
    let (sign, pivots) = lu_pivots(a);
    let mut sign: T::Wide = Pivot::sign(sign);
    let mut log = 0.0;
    for v in pivots {
        if v == <T::Wide as Element>::ZERO {
            return (<T::Wide as Element>::ZERO, f64::NEG_INFINITY);
        }
        sign = sign * v.unit();
        log += v.abs().ln();
    }
    (sign, log)
}

/// The dtype and shape of result `part` of `slogdet(x)`: `sign` (`x`'s
/// dtype) and `logabsdet` (its real dtype), one per square matrix of the
/// stack.
pub(crate) fn slogdet_signature(x: Meta<'_>, part: usize) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.slogdet";
    let (d, s) = inexact_square(OP, x)?;
    pick(OP, [(d, s.batch.clone()), (d.real_dtype(), s.batch)], part)
}

/// `slogdet(x)`: the sign (0 for a singular matrix; a complex number of
/// modulus 1 for a complex one) and the log of the absolute value of each
/// determinant.
pub fn slogdet(x: &DynTensor) -> Result<(DynTensor, DynTensor)> {
    const OP: &str = "linalg.slogdet";
    let (d, out) = slogdet_signature(x.meta(), 0)?;
    let s = Matrices::of(OP, x.shape())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (signs, logs): (Vec<T>, Vec<<T as faer::traits::ComplexField>::Real>) = map_matrices(t.as_slice()?, &s, |a| {
                let (sg, lg) = slogdet_one(a);
                (T::from_wide(sg), <<T as faer::traits::ComplexField>::Real as crate::Element>::from_f64(lg))
            })
            .into_iter()
            .unzip();
        Ok((new(&signs, &out)?, new(&logs, &out)?))
    })
}

/// One matrix's LU factors, refused when the matrix is singular in
/// LAPACK's arithmetic: an exactly zero pivot of [`lu_pivots`], the
/// pivots [`det`] multiplies.
///
/// NumPy refuses a matrix when LAPACK's pivot comes out exactly zero.
/// `faer` computes the factors with fused multiply-adds, which leave a
/// rounding residue where LAPACK's `getf2` (a division, then a separate
/// multiply and subtract) cancels exactly: `[[.1, .2], [.3, .6]]` got an
/// inverse of 6e15-sized garbage where NumPy raises. So a pivot of
/// `faer`'s that is only rounding error, no larger than `n·ε` times the
/// magnitudes that cancelled to make it (`Σ_{j<k} |l_kj|·|u_jk| +
/// |u_kk|`, row `k` of `|L|·|U|` at the diagonal, the standard bound on
/// that entry's error), sends the matrix to [`lu_pivots`], LAPACK's
/// arithmetic (the pivots `det` multiplies), and an exactly zero pivot
/// there refuses it. Other matrices pay only the O(n²) bound. A matrix
/// singular only to rounding (no exact zero in either) is inverted, as
/// NumPy inverts it: its inverse is as large and as meaningless as
/// NumPy's, and clients rely on getting one (scikit-learn's
/// `PCA.get_precision` of a rank-deficient covariance).
fn lu_nonsingular<T: Inexact>(
    op: &'static str,
    a: MatRef<'_, T>,
) -> Result<faer::linalg::solvers::PartialPivLu<T>> {
    let lu = a.partial_piv_lu();
    let (l, u) = (lu.L(), lu.U());
    let n = a.nrows();
    // A pivot of zero, or one that overflowed for a matrix of finite
    // entries (the reciprocal of a subnormal pivot), is a singular matrix
    // to working precision.
    let finite = (0..n).all(|i| (0..a.ncols()).all(|j| a.get(i, j).abs64().is_finite()));
    let eps = Element::to_f64(<T::Real as faer::traits::RealField>::epsilon_impl());
    let mut rounding = false;
    for k in 0..n {
        let v = u.get(k, k).abs64();
        if v == 0.0 || (finite && !v.is_finite()) {
            return Err(failure(op, "the matrix is singular"));
        }
        let cancelled: f64 = (0..k)
            .map(|j| l.get(k, j).abs64() * u.get(j, k).abs64())
            .sum();
        rounding |= finite && v <= n as f64 * eps * (cancelled + v);
    }
    if rounding && lu_pivots(a).1.contains(&<T::Wide as Element>::ZERO) {
        return Err(failure(op, "the matrix is singular"));
    }
    Ok(lu)
}

/// The dtype and shape of `inv(x)`: a float or complex stack of square
/// matrices, kept.
pub(crate) fn inv_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, _) = inexact_square("linalg.inv", x)?;
    sized(d, x.shape.to_vec())
}

/// `inv(x)`: each matrix's inverse.
pub fn inv(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.inv";
    let (d, _) = inv_signature(x.meta())?;
    let s = Matrices::of(OP, x.shape())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let mut out = Vec::with_capacity(t.numel());
        for a in matrices(t.as_slice()?, &s) {
            if s.n > 0 {
                push(&mut out, lu_nonsingular(OP, a)?.inverse().as_ref(), false, Keep::All);
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

/// The dtype and shape of `solve(x1, x2)`: the promoted float or complex
/// dtype, the broadcast stack, then `(M,)` for a vector `x2` or `(M, K)`.
pub(crate) fn solve_signature(x1: Meta<'_>, x2: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.solve";
    let d = promote_inexact(OP, x1.dtype, x2.dtype)?;
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
    inexact!(OP, d, T => {
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
            push(&mut out, sol.as_ref(), false, Keep::All);
        }
        new(&out, &shape)
    })
}

/// The dtype and shape of result `part` of `eigh(x)`: the eigenvalues
/// `(..., M)` (real) or the eigenvectors `(..., M, M)` (`x`'s dtype).
pub(crate) fn eigh_signature(x: Meta<'_>, part: usize) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.eigh";
    let (d, s) = inexact_square(OP, x)?;
    pick(
        OP,
        [
            (d.real_dtype(), s.shape_with(&[s.n])),
            (d, x.shape.to_vec()),
        ],
        part,
    )
}

/// The error of a Hermitian eigenvalue iteration that did not converge.
fn not_converged(op: &'static str) -> Error {
    failure(op, "the eigenvalue iteration did not converge")
}

/// `eigh(x)`: the eigenvalues (ascending, real) and the eigenvectors
/// (columns) of each Hermitian matrix, reading its lower triangle.
pub fn eigh(x: &DynTensor) -> Result<(DynTensor, DynTensor)> {
    const OP: &str = "linalg.eigh";
    let (_, w_shape) = eigh_signature(x.meta(), 0)?;
    let (d, _) = eigh_signature(x.meta(), 1)?;
    let s = Matrices::of(OP, x.shape())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (mut vals, mut vecs) = (Vec::with_capacity(s.count() * s.n), Vec::with_capacity(t.numel()));
        for a in matrices(t.as_slice()?, &s) {
            if s.n == 0 {
                continue;
            }
            let (a, exponent) = hermitian_normalized(a);
            let e = a.self_adjoint_eigen(Side::Lower).map_err(|_| not_converged(OP))?;
            vals.extend(e.S().column_vector().iter().map(|v| rescaled(<T as faer::traits::ComplexField>::real_part_impl(v), exponent)));
            push(&mut vecs, e.U(), false, Keep::All);
        }
        Ok((new(&vals, &w_shape)?, new(&vecs, x.shape())?))
    })
}

/// The dtype and shape of `eigvalsh(x)`: `(..., M)`, real.
pub(crate) fn eigvalsh_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    let (d, s) = inexact_square("linalg.eigvalsh", x)?;
    sized(d.real_dtype(), s.shape_with(&[s.n]))
}

/// `eigvalsh(x)`: the eigenvalues (ascending) of each Hermitian matrix.
pub fn eigvalsh(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.eigvalsh";
    let (_, shape) = eigvalsh_signature(x.meta())?;
    let (d, s) = inexact_square(OP, x.meta())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let mut vals = Vec::with_capacity(s.count() * s.n);
        for a in matrices(t.as_slice()?, &s) {
            if s.n > 0 {
                let (a, exponent) = hermitian_normalized(a);
                let w = a.self_adjoint_eigenvalues(Side::Lower).map_err(|_| not_converged(OP))?;
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
    let (d, s) = inexact_matrices(OP, x)?;
    let inner = if complete { s.m } else { s.m.min(s.n) };
    pick(
        OP,
        [
            (d, s.shape_with(&[s.m, inner])),
            (d, s.shape_with(&[inner, s.n])),
        ],
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
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (mut q, mut r) = (Vec::with_capacity(s.count() * m * qc), Vec::with_capacity(s.count() * rr * n));
        for a in matrices(t.as_slice()?, &s) {
            if k == 0 {
                // No Householder reflections: Q is (part of) the identity.
                push_eye(&mut q, m, qc);
                r.extend(std::iter::repeat_n(<T as crate::Element>::ZERO, rr * n));
                continue;
            }
            let f = a.qr();
            let qm = if complete { f.compute_Q() } else { f.compute_thin_Q() };
            push(&mut q, qm.as_ref(), false, Keep::All);
            push(&mut r, f.thin_R(), false, Keep::Upper);
            // The complete R's rows below the first K are zero.
            r.extend(std::iter::repeat_n(<T as crate::Element>::ZERO, (rr - k) * n));
        }
        Ok((new(&q, &q_shape)?, new(&r, &r_shape)?))
    })
}

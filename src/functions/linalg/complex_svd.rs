//! The functions of complex matrices that come from their singular value
//! decomposition: `pinv`, `svdvals` and `matrix_rank` of complex64 and
//! complex128 stacks (`faer`'s complex SVD; its `c32`/`c64` are
//! `num-complex`'s `Complex`, the elements of these dtypes, so a matrix
//! is read in place). As for real matrices ([`super::decompose`]), each
//! matrix is scaled by a power of two first so that the iteration sees
//! entries of moderate size, and the singular values are scaled back.
//! Singular values are real: `svdvals` gives the real dtype of the
//! input's precision, `pinv` the input's dtype.

use faer::MatRef;
use num_complex::Complex;

use super::decompose::{ldexp, matrices, LinalgFloat};
use super::stack::{new, read, Matrices};
use crate::array::dyn_tensor::{AnyElement, DynTensor};
use crate::array::element::C64;
use crate::error::{Error, Result};

/// The complex element types `faer` computes with, by their component.
pub(super) trait ComplexLinalg: LinalgFloat
where
    Complex<Self>: AnyElement + faer::traits::ComplexField<Real = Self>,
{
}
impl ComplexLinalg for f32 {}
impl ComplexLinalg for f64 {}

fn diverged(op: &'static str) -> Error {
    Error::LinAlg {
        op,
        reason: "the SVD iteration did not converge",
    }
}

/// `a` divided by the power of two `2^e` nearest above its largest
/// component, and `e` (as the real `normalized`).
fn normalized<R: ComplexLinalg>(a: MatRef<'_, Complex<R>>) -> (faer::Mat<Complex<R>>, i32)
where
    Complex<R>: AnyElement + faer::traits::ComplexField<Real = R>,
{
    let mut big = 0.0_f64;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            let v = *a.get(i, j);
            big = big.max(v.re.to_f64().abs()).max(v.im.to_f64().abs());
        }
    }
    let e = if big.is_finite() && big > 0.0 {
        big.log2().ceil() as i32
    } else {
        0
    };
    let scale = |v: R| R::from_f64(ldexp(v.to_f64(), -e));
    let m = faer::Mat::from_fn(a.nrows(), a.ncols(), |i, j| {
        let v = *a.get(i, j);
        Complex::new(scale(v.re), scale(v.im))
    });
    (m, e)
}

/// One complex matrix's singular values, largest first, as f64.
fn singular_values<R: ComplexLinalg>(
    op: &'static str,
    a: MatRef<'_, Complex<R>>,
) -> Result<Vec<f64>>
where
    Complex<R>: AnyElement + faer::traits::ComplexField<Real = R>,
{
    if a.nrows() == 0 || a.ncols() == 0 {
        return Ok(Vec::new());
    }
    let (a, e) = normalized(a);
    let sv = a.singular_values().map_err(|_| diverged(op))?;
    Ok(sv.into_iter().map(|v| ldexp(v.to_f64(), e)).collect())
}

/// `svdvals` of a complex stack: each matrix's singular values, in the
/// real dtype of its precision, with the result's `shape`.
pub(super) fn svdvals<R: ComplexLinalg>(
    x: &DynTensor,
    s: &Matrices,
    shape: &[usize],
) -> Result<DynTensor>
where
    Complex<R>: AnyElement + faer::traits::ComplexField<Real = R>,
{
    const OP: &str = "linalg.svdvals";
    let t = read::<Complex<R>>(x, OP)?;
    let mut out: Vec<R> = Vec::with_capacity(s.count() * s.m.min(s.n));
    for a in matrices(t.as_slice()?, s) {
        out.extend(singular_values(OP, a)?.into_iter().map(R::from_f64));
    }
    new(&out, shape)
}

/// `matrix_rank` of a complex stack: the count of singular values above
/// each matrix's tolerance (`tol[b]` times the largest).
pub(super) fn matrix_rank<R: ComplexLinalg>(
    x: &DynTensor,
    s: &Matrices,
    tol: &[f64],
    shape: &[usize],
) -> Result<DynTensor>
where
    Complex<R>: AnyElement + faer::traits::ComplexField<Real = R>,
{
    const OP: &str = "linalg.matrix_rank";
    let t = read::<Complex<R>>(x, OP)?;
    let mut out = Vec::with_capacity(s.count());
    for (a, rt) in matrices(t.as_slice()?, s).zip(tol) {
        let sv = singular_values(OP, a)?;
        let cutoff = rt * sv.first().copied().unwrap_or(0.0);
        out.push(sv.iter().filter(|&&v| v > cutoff).count() as i64);
    }
    new(&out, shape)
}

/// `pinv` of a complex stack: `V·diag(1/s)·Uᴴ` for each matrix, the
/// singular values at or below `tol[b]` times the largest dropped.
pub(super) fn pinv<R: ComplexLinalg>(
    x: &DynTensor,
    s: &Matrices,
    tol: &[f64],
    shape: &[usize],
) -> Result<DynTensor>
where
    Complex<R>: AnyElement + faer::traits::ComplexField<Real = R>,
{
    const OP: &str = "linalg.pinv";
    let (m, n) = (s.m, s.n);
    let t = read::<Complex<R>>(x, OP)?;
    let mut out: Vec<Complex<R>> = Vec::with_capacity(s.count() * m * n);
    let wide = |v: Complex<R>| C64::new(v.re.to_f64(), v.im.to_f64());
    for (a, rt) in matrices(t.as_slice()?, s).zip(tol) {
        if m.min(n) == 0 {
            out.extend(std::iter::repeat_n(Complex::new(R::ZERO, R::ZERO), m * n));
            continue;
        }
        let (a, e) = normalized(a);
        let f = a.thin_svd().map_err(|_| diverged(OP))?;
        let sv: Vec<f64> = f
            .S()
            .column_vector()
            .iter()
            .map(|v| ldexp(v.re.to_f64(), e))
            .collect();
        let cutoff = rt * sv[0];
        let inv: Vec<f64> = sv
            .iter()
            .map(|&v| if v > cutoff { 1.0 / v } else { 0.0 })
            .collect();
        let (u, v) = (f.U(), f.V());
        for j in 0..n {
            for i in 0..m {
                let acc: C64 = inv
                    .iter()
                    .enumerate()
                    .map(|(c, w)| wide(*v.get(j, c)) * *w * wide(*u.get(i, c)).conj())
                    .sum();
                out.push(Complex::new(R::from_f64(acc.re), R::from_f64(acc.im)));
            }
        }
    }
    new(&out, shape)
}

//! The element types the decompositions compute with, real and complex
//! alike, and what they share: a stack's matrices as `faer` views, the
//! scaling by a power of two, the LU pivots computed the way LAPACK's
//! `getrf` does (blocked; each panel as `getf2`), and writing a factor
//! out in row-major order.
//!
//! # Model
//!
//! Every decomposition is written once, generic over [`Inexact`]: float32,
//! float64, complex64 and complex128 (`num-complex`'s `Complex`, which is
//! also `faer`'s `c32`/`c64`, so a complex matrix is read in place). Where
//! the mathematics differs between real and complex matrices it differs
//! only by a conjugation (`Lᴴ`, `Vᴴ`), which is the identity on real
//! numbers: a real matrix gets exactly the numbers it got from the real
//! code. Values that are real whatever the input (singular values,
//! eigenvalues of a Hermitian matrix, `log|det|`, norms) have the type
//! [`Inexact::Real`], the real dtype of the input's precision, as NumPy
//! gives them.

use std::ops::{Mul, Sub};

use faer::MatRef;
use rayon::prelude::*;

use crate::array::dyn_tensor::{AnyElement, DynElement};
use crate::array::element::{DType, Element, C32, C64};
use crate::error::Error;
use crate::kernels::matmul::{sub_product_within, GemmFloat};

/// The float element types (the real parts), as `faer` computes with them.
pub(super) trait LinalgFloat: DynElement + crate::Float + faer::traits::RealField {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}

/// An element type the decompositions take: a float or a complex number
/// whose parts are a [`LinalgFloat`].
pub(super) trait Inexact:
    AnyElement + faer::traits::ComplexField<Real: LinalgFloat>
{
    /// The element, in f64 or complex f64, for the LU pivots.
    type Wide: Pivot;
    fn wide(self) -> Self::Wide;
    fn from_wide(v: Self::Wide) -> Self;
    /// The complex conjugate (the identity on real numbers).
    fn conj(self) -> Self;
    /// `|self|`, in f64.
    fn abs64(self) -> f64 {
        self.wide().abs()
    }
}

impl Inexact for f32 {
    type Wide = f64;
    fn wide(self) -> f64 {
        f64::from(self)
    }
    fn from_wide(v: f64) -> f32 {
        v as f32
    }
    fn conj(self) -> f32 {
        self
    }
}

impl Inexact for f64 {
    type Wide = f64;
    fn wide(self) -> f64 {
        self
    }
    fn from_wide(v: f64) -> f64 {
        v
    }
    fn conj(self) -> f64 {
        self
    }
}

impl Inexact for C32 {
    type Wide = C64;
    fn wide(self) -> C64 {
        C64::new(f64::from(self.re), f64::from(self.im))
    }
    fn from_wide(v: C64) -> C32 {
        C32::new(v.re as f32, v.im as f32)
    }
    fn conj(self) -> C32 {
        num_complex::Complex::conj(&self)
    }
}

impl Inexact for C64 {
    type Wide = C64;
    fn wide(self) -> C64 {
        self
    }
    fn from_wide(v: C64) -> C64 {
        v
    }
    fn conj(self) -> C64 {
        num_complex::Complex::conj(&self)
    }
}

/// Run `$body` with `$T` the [`Inexact`] type of the dtype `$d`, or fail
/// with [`not_inexact`] (validation refused every other dtype before).
macro_rules! inexact {
    ($op:expr, $d:expr, $T:ident => $body:expr) => {
        match $d {
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::DType::C64 => {
                type $T = $crate::array::element::C32;
                $body
            }
            $crate::DType::C128 => {
                type $T = $crate::array::element::C64;
                $body
            }
            _ => Err($crate::functions::linalg::inexact::not_inexact($op, $d)),
        }
    };
}
pub(super) use inexact;

/// The error for a dtype that validation let through (it cannot be).
pub(super) fn not_inexact(op: &'static str, dtype: DType) -> Error {
    Error::UnsupportedDType { op, dtype }
}

/// A pivot's arithmetic: f64 for real matrices, complex f64 for complex
/// ones.
pub(super) trait Pivot:
    Copy + PartialEq + Sub<Output = Self> + Mul<Output = Self> + GemmFloat
{
    /// The magnitude that chooses the pivot: `|x|`, or `|re| + |im|` for a
    /// complex number (LAPACK's `cabs1`, which `zgetf2` pivots by).
    fn pivot_size(self) -> f64;
    /// `|x|`.
    fn abs(self) -> f64;
    /// `self / d`, by division (not a reciprocal: that overflows for a
    /// subnormal pivot); Smith's algorithm for complex numbers.
    fn div(self, d: Self) -> Self;
    /// `±1` as this type.
    fn sign(s: f64) -> Self;
    /// `x / |x|` (the real sign; the complex unit of the same angle).
    fn unit(self) -> Self;
}

impl Pivot for f64 {
    fn pivot_size(self) -> f64 {
        self.abs()
    }
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn div(self, d: f64) -> f64 {
        self / d
    }
    fn sign(s: f64) -> f64 {
        s
    }
    fn unit(self) -> f64 {
        self.signum()
    }
}

impl Pivot for C64 {
    fn pivot_size(self) -> f64 {
        self.re.abs() + self.im.abs()
    }
    fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
    fn div(self, d: C64) -> C64 {
        // Smith's algorithm: no intermediate overflows where the quotient
        // does not.
        if d.re.abs() >= d.im.abs() {
            let r = d.im / d.re;
            let den = d.re + d.im * r;
            C64::new((self.re + self.im * r) / den, (self.im - self.re * r) / den)
        } else {
            let r = d.re / d.im;
            let den = d.re * r + d.im;
            C64::new((self.re * r + self.im) / den, (self.im * r - self.re) / den)
        }
    }
    fn sign(s: f64) -> C64 {
        C64::new(s, 0.0)
    }
    fn unit(self) -> C64 {
        let a = Pivot::abs(self);
        C64::new(self.re / a, self.im / a)
    }
}

/// Rows `p < i` of the `n`-column matrix `m`: (row `p`, row `i`).
fn rows<W>(m: &mut [W], n: usize, i: usize, p: usize) -> (&mut [W], &mut [W]) {
    let (lo, hi) = m.split_at_mut(i * n);
    (&mut lo[p * n..(p + 1) * n], &mut hi[..n])
}

/// The sign of the row permutation and the pivots (`U`'s diagonal) of one
/// square matrix's LU factors with partial pivoting, computed in f64 (or
/// complex f64) by dividing by each pivot as LAPACK's `getf2` does (faer
/// multiplies by the pivot's reciprocal, which overflows for a subnormal
/// pivot), and skipping the elimination under a zero pivot inside a
/// panel. The determinant functions stop at the first zero pivot, so
/// what the later products make of it (`0·inf`) is never read.
pub(super) fn lu_pivots<T: Inexact>(a: MatRef<'_, T>) -> (f64, Vec<T::Wide>) {
    let n = a.nrows();
    let mut m: Vec<T::Wide> = Vec::with_capacity(n * n);
    for i in 0..n {
        m.extend((0..n).map(|j| a.get(i, j).wide()));
    }
    let mut sign = 1.0;
    let mut pivots = Vec::with_capacity(n);
    // Right-looking and blocked, as LAPACK's `getrf`: a panel of `panel`
    // columns is factored column by column (`getf2`), its rows of `U` to
    // the right are solved from it, and the rest of the matrix takes the
    // panel's whole product at once through `gemm` (`A22 -= L21·U12`),
    // where nearly all the work is. Rows are swapped whole.
    // The panel's width, as LAPACK's `ilaenv` chooses `getrf`'s block:
    // measured with `benches/linalg.py` (float64, 2-core AMD EPYC), 16
    // columns were the fastest below a few hundred rows (the panel's
    // column-by-column work is the slow part there), 32 above (each
    // product is then wide enough for gemm's kernels).
    let panel = if n < 384 { 16 } else { 32 };
    for k0 in (0..n).step_by(panel) {
        let end = (k0 + panel).min(n);
        for k in k0..end {
            let p = (k..n).fold(k, |best, i| {
                if m[i * n + k].pivot_size() > m[best * n + k].pivot_size() {
                    i
                } else {
                    best
                }
            });
            if p != k {
                let (rk, rp) = rows(&mut m, n, p, k);
                rk.swap_with_slice(rp);
                sign = -sign;
            }
            let d = m[k * n + k];
            pivots.push(d);
            if d == <T::Wide as Element>::ZERO {
                // The column under it is zero too (the pivot is its
                // largest): `L`'s column is zero, nothing to eliminate.
                continue;
            }
            for i in k + 1..n {
                let (rk, ri) = rows(&mut m, n, i, k);
                let l = ri[k].div(d);
                ri[k] = l;
                // (A zero multiplier's update too, as LAPACK's: `0 * inf`
                // and `0 * NaN` above the diagonal make the determinant
                // NaN, as NumPy's.)
                for (x, &u) in ri[k + 1..end].iter_mut().zip(&rk[k + 1..end]) {
                    *x = *x - l * u;
                }
            }
        }
        if end == n {
            break;
        }
        // U12: the panel's rows right of it, by forward substitution with
        // the panel's unit lower triangle.
        for i in k0 + 1..end {
            for p in k0..i {
                let (rp, ri) = rows(&mut m, n, i, p);
                let l = ri[p];
                for (x, &u) in ri[end..].iter_mut().zip(&rp[end..]) {
                    *x = *x - l * u;
                }
            }
        }
        let (rest, width) = (n - end, end - k0);
        sub_product_within(
            &mut m,
            n,
            ((end, end), (end, k0), (k0, end)),
            (rest, width, rest),
        );
    }
    (sign, pivots)
}

/// Each matrix of the stack `s` held in `data`, as a `faer` view.
pub(super) fn matrices<'a, T>(
    data: &'a [T],
    s: &super::stack::Matrices,
) -> impl Iterator<Item = MatRef<'a, T>> {
    let (m, n, size) = (s.m, s.n, s.size());
    (0..s.count()).map(move |b| MatRef::from_row_major_slice(&data[b * size..(b + 1) * size], m, n))
}

/// `f` of each matrix of the stack `s` held in `data`, in order; split
/// across the kernels' threads when the stack has several matrices and
/// enough work (about `n³` each) to pay for the hand-off.
pub(super) fn map_matrices<T: Sync, R: Send>(
    data: &[T],
    s: &super::stack::Matrices,
    f: impl Fn(MatRef<'_, T>) -> R + Sync,
) -> Vec<R> {
    let (count, n) = (s.count(), s.m.max(s.n));
    let work = count.saturating_mul(n.saturating_pow(3));
    if count < 2 || work < crate::kernels::GRAIN {
        return matrices(data, s).map(f).collect();
    }
    let size = s.size();
    let (m, cols) = (s.m, s.n);
    crate::kernels::parallel::install(|| {
        (0..count)
            .into_par_iter()
            .map(|b| {
                f(MatRef::from_row_major_slice(
                    &data[b * size..(b + 1) * size],
                    m,
                    cols,
                ))
            })
            .collect()
    })
}

/// Which triangle of a factor to keep (the other is written as zeros).
#[derive(Clone, Copy)]
pub(super) enum Keep {
    All,
    Upper,
    Lower,
}

/// Append `a`'s elements in row-major order (or its conjugate transpose's,
/// `adjoint`: `Lᴴ`, `Vᴴ`), with zeros outside the triangle kept, so a
/// triangular factor is exactly triangular.
pub(super) fn push<T: Inexact>(out: &mut Vec<T>, a: MatRef<'_, T>, adjoint: bool, keep: Keep) {
    let (rows, cols) = if adjoint {
        (a.ncols(), a.nrows())
    } else {
        (a.nrows(), a.ncols())
    };
    for i in 0..rows {
        for j in 0..cols {
            let zero = match keep {
                Keep::Upper => j < i,
                Keep::Lower => j > i,
                Keep::All => false,
            };
            out.push(if zero {
                <T as Element>::ZERO
            } else if adjoint {
                Inexact::conj(*a.get(j, i))
            } else {
                *a.get(i, j)
            });
        }
    }
}

/// Append the `n×n` identity.
pub(super) fn push_identity<T: Inexact>(out: &mut Vec<T>, n: usize) {
    push_eye(out, n, n);
}

/// Append the `m×n` matrix with ones on its diagonal.
pub(super) fn push_eye<T: Inexact>(out: &mut Vec<T>, m: usize, n: usize) {
    out.extend((0..m * n).map(|i| {
        if i % (n + 1) == 0 {
            <T as Element>::ONE
        } else {
            <T as Element>::ZERO
        }
    }));
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

/// `v·2^e` in `T` (each part of a complex number).
fn scaled<T: Inexact>(v: T, e: i32) -> T {
    let c = v.to_c64();
    T::from_c64(C64::new(ldexp(c.re, e), ldexp(c.im, e)))
}

/// `v·2^e` in the real type `R`.
pub(super) fn rescaled<R: LinalgFloat>(v: R, e: i32) -> R {
    <R as Element>::from_f64(ldexp(Element::to_f64(v), e))
}

/// `a` divided by the power of two `2^e` nearest above its largest part
/// (`|x|`, or `|re|` and `|im|`; exact), and `e`: the SVD and the
/// Hermitian eigendecomposition then see entries of moderate size
/// whatever `a`'s magnitude (their values scale with the matrix; without
/// this, float32 entries near 1e19 overflow inside the iterations, and
/// subnormal ones underflow, and they do not converge).
pub(super) fn normalized<T: Inexact>(a: MatRef<'_, T>) -> (faer::Mat<T>, i32) {
    let mut big = 0.0_f64;
    for j in 0..a.ncols() {
        for i in 0..a.nrows() {
            let c = a.get(i, j).to_c64();
            big = big.max(c.re.abs()).max(c.im.abs());
        }
    }
    let e = if big.is_finite() && big > 0.0 {
        big.log2().ceil() as i32
    } else {
        0
    };
    let m = faer::Mat::from_fn(a.nrows(), a.ncols(), |i, j| scaled(*a.get(i, j), -e));
    (m, e)
}

/// [`normalized`] of a Hermitian matrix as LAPACK reads one (NumPy's
/// `eigh`, `eigvalsh`): the imaginary parts of its diagonal ignored.
pub(super) fn hermitian_normalized<T: Inexact>(a: MatRef<'_, T>) -> (faer::Mat<T>, i32) {
    let (mut m, e) = normalized(a);
    for i in 0..m.nrows().min(m.ncols()) {
        let d = m[(i, i)];
        // (z + conj z) / 2: the real part, exactly.
        m[(i, i)] = scaled(d + Inexact::conj(d), -1);
    }
    (m, e)
}

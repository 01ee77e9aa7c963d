//! The general eigendecomposition (`eig`, `eigvals`): the eigenvalues and
//! eigenvectors of square matrices that need not be Hermitian, through
//! `faer` (Hessenberg reduction, then the Schur form by shifted QR, as
//! LAPACK's `geev`).
//!
//! # The model
//!
//! - **Dtypes.** The results are complex whatever the input: complex64
//!   for float32 and complex64 matrices, complex128 for float64 and
//!   complex128 ones. A real matrix's eigenvalues are complex in general,
//!   and a result's dtype must be known before any value is (planning
//!   and `donate.jit` decide it from the operands' dtypes alone), so the
//!   dtype does not depend on whether the values happen to be real. JAX's
//!   `jnp.linalg.eig` makes the same choice; NumPy's `np.linalg.eig`
//!   returns real arrays when every eigenvalue of a real input is real,
//!   and donate's NumPy translation (`np.linalg.eig(t)`) follows NumPy
//!   there.
//! - **Eigenvectors** are the columns of the second result, each scaled
//!   to unit Euclidean norm with its largest component (the first, among
//!   equals) real and positive: LAPACK's normalisation ("norm 1, largest
//!   component real"), with the sign fixed. The eigenvector of a real
//!   eigenvalue of a real matrix then has exactly zero imaginary parts.
//! - **Order.** The eigenvalues come in the order the Schur form yields
//!   them, which NumPy does not specify either; a complex pair of a real
//!   matrix is adjacent (`λ`, then `conj(λ)`).
//! - **Scaling.** Each matrix is divided by a power of two near its
//!   largest entry before the iteration and the eigenvalues multiplied
//!   back (exactly), as the Hermitian eigendecomposition does
//!   ([`normalized`]).
//! - **Errors.** An iteration that does not converge (NaN or infinite
//!   entries) is an [`Error::LinAlg`], raised before any result exists;
//!   every other error depends on dtypes and shapes only and is raised by
//!   the signature.

use crate::array::dyn_tensor::{DynTensor, Meta};
use crate::array::element::{DType, Element};
use crate::error::{Error, Result};

use super::decompose::failure;
use super::inexact::{inexact, matrices, normalized, rescaled};
use super::stack::{inexact_square, new, pick, read, sized, Matrices};

/// The error of an eigenvalue iteration that did not converge.
fn not_converged(op: &'static str) -> Error {
    failure(op, "the eigenvalue iteration did not converge")
}

/// The complex dtype of the results for an input of dtype `d`.
fn complex_result(op: &'static str, d: DType) -> Result<DType> {
    d.complex_of()
        .ok_or(Error::UnsupportedDType { op, dtype: d })
}

/// The dtype and shape of result `part` of `eig(x)`: the eigenvalues
/// `(..., n)` and the eigenvectors `(..., n, n)`, complex.
pub(crate) fn eig_signature(x: Meta<'_>, part: usize) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.eig";
    let (d, s) = inexact_square(OP, x)?;
    let c = complex_result(OP, d)?;
    pick(OP, [(c, s.shape_with(&[s.n])), (c, x.shape.to_vec())], part)
}

/// The dtype and shape of `eigvals(x)`: `(..., n)`, complex.
pub(crate) fn eigvals_signature(x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.eigvals";
    let (d, s) = inexact_square(OP, x)?;
    sized(complex_result(OP, d)?, s.shape_with(&[s.n]))
}

/// Scale the columns of the row-major `n×n` block `v` to unit norm, each
/// with its largest component real and positive.
fn normalize_columns<R: super::inexact::LinalgFloat>(v: &mut [num_complex::Complex<R>], n: usize) {
    for j in 0..n {
        let (mut norm2, mut big, mut at) = (0.0_f64, -1.0_f64, 0);
        for i in 0..n {
            let c = v[i * n + j];
            let (re, im) = (Element::to_f64(c.re), Element::to_f64(c.im));
            let m = re.hypot(im);
            norm2 += m * m;
            if m > big {
                (big, at) = (m, i);
            }
        }
        // A zero column (or NaN: the iteration failed before) stays.
        if norm2.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            continue;
        }
        let p = v[at * n + j];
        let (pr, pi) = (Element::to_f64(p.re), Element::to_f64(p.im));
        // Divide by `norm · phase`: multiply by conj(phase) / norm.
        let (cr, ci) = (pr / big / norm2.sqrt(), -pi / big / norm2.sqrt());
        for i in 0..n {
            let c = v[i * n + j];
            let (re, im) = (Element::to_f64(c.re), Element::to_f64(c.im));
            v[i * n + j] = num_complex::Complex::new(
                <R as Element>::from_f64(re * cr - im * ci),
                <R as Element>::from_f64(re * ci + im * cr),
            );
        }
        // The largest component is real: no rounding leaves an imaginary
        // part behind.
        v[at * n + j].im = <R as Element>::ZERO;
    }
}

/// The eigenvalues of each matrix of the stack `s` held in `data`, and
/// with `vectors` its eigenvectors (row-major, one per column).
macro_rules! eigen_stack {
    ($OP:expr, $T:ty, $data:expr, $s:expr, $vectors:expr) => {{
        type R = <$T as faer::traits::ComplexField>::Real;
        let s: &Matrices = $s;
        let mut vals: Vec<num_complex::Complex<R>> = Vec::with_capacity(s.count() * s.n);
        let mut vecs: Vec<num_complex::Complex<R>> =
            Vec::with_capacity(if $vectors { s.count() * s.size() } else { 0 });
        for a in matrices($data, s) {
            if s.n == 0 {
                continue;
            }
            let (a, exponent) = normalized(a);
            if $vectors {
                let e = a.eigen().map_err(|_| not_converged($OP))?;
                let sv = e.S();
                vals.extend(sv.column_vector().iter().map(|v| {
                    num_complex::Complex::new(rescaled(v.re, exponent), rescaled(v.im, exponent))
                }));
                let start = vecs.len();
                let u = e.U();
                for i in 0..s.n {
                    for j in 0..s.n {
                        vecs.push(*u.get(i, j));
                    }
                }
                normalize_columns(&mut vecs[start..], s.n);
            } else {
                let w = a.eigenvalues().map_err(|_| not_converged($OP))?;
                vals.extend(w.into_iter().map(|v| {
                    num_complex::Complex::new(rescaled(v.re, exponent), rescaled(v.im, exponent))
                }));
            }
        }
        (vals, vecs)
    }};
}

/// `eig(x)`: the eigenvalues and the eigenvectors (columns) of each
/// square matrix.
pub fn eig(x: &DynTensor) -> Result<(DynTensor, DynTensor)> {
    const OP: &str = "linalg.eig";
    let (_, w_shape) = eig_signature(x.meta(), 0)?;
    let (d, s) = inexact_square(OP, x.meta())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (vals, vecs) = eigen_stack!(OP, T, t.as_slice()?, &s, true);
        Ok((new(&vals, &w_shape)?, new(&vecs, x.shape())?))
    })
}

/// `eigvals(x)`: the eigenvalues of each square matrix.
pub fn eigvals(x: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.eigvals";
    let (_, shape) = eigvals_signature(x.meta())?;
    let (d, s) = inexact_square(OP, x.meta())?;
    inexact!(OP, d, T => {
        let t = read::<T>(x, OP)?;
        let (vals, _) = eigen_stack!(OP, T, t.as_slice()?, &s, false);
        new(&vals, &shape)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::element::C64;
    use crate::Tensor;

    fn c64s(t: &DynTensor) -> Vec<C64> {
        t.typed::<C64>("test").unwrap().to_vec().unwrap()
    }

    /// `A·v = λ·v` for every eigenpair of each matrix of a stack, each
    /// vector of unit norm with its largest component real and positive.
    fn check_pairs(a: &[C64], n: usize, w: &[C64], v: &[C64]) {
        for b in 0..w.len() / n {
            let (a, w, v) = (&a[b * n * n..], &w[b * n..], &v[b * n * n..]);
            for j in 0..n {
                let norm: f64 = (0..n).map(|i| v[i * n + j].norm_sqr()).sum();
                assert!((norm - 1.0).abs() < 1e-12, "column {j} has norm² {norm}");
                // One of the largest components (equal up to rounding) is
                // real and positive.
                let big = (0..n).map(|i| v[i * n + j].norm()).fold(0.0, f64::max);
                assert!(
                    (0..n)
                        .map(|i| v[i * n + j])
                        .any(|z| z.norm() > big - 1e-12 && z.im == 0.0 && z.re > 0.0),
                    "no largest component of column {j} is real and positive"
                );
                for i in 0..n {
                    let av: C64 = (0..n).map(|k| a[i * n + k] * v[k * n + j]).sum();
                    let lv = w[j] * v[i * n + j];
                    assert!((av - lv).norm() < 1e-12, "(A v)[{i}] = {av}, λ v = {lv}");
                }
            }
        }
    }

    #[test]
    fn a_rotation_has_the_eigenvalues_plus_and_minus_i() {
        let x: DynTensor = Tensor::from_slice(&[0.0_f64, -1.0, 1.0, 0.0], &[2, 2])
            .unwrap()
            .into();
        let (w, v) = eig(&x).unwrap();
        assert_eq!((w.dtype(), w.shape()), (DType::C128, &[2][..]));
        assert_eq!((v.dtype(), v.shape()), (DType::C128, &[2, 2][..]));
        let w = c64s(&w);
        let mut ims: Vec<f64> = w.iter().map(|z| z.im).collect();
        ims.sort_by(f64::total_cmp);
        assert!(w.iter().all(|z| z.re.abs() < 1e-15));
        assert!((ims[0] + 1.0).abs() < 1e-15 && (ims[1] - 1.0).abs() < 1e-15);
        let a: Vec<C64> = [0.0, -1.0, 1.0, 0.0].map(|r| C64::new(r, 0.0)).into();
        check_pairs(&a, 2, &w, &c64s(&v));
        assert_eq!(c64s(&eigvals(&x).unwrap()), w, "eigvals are eig's values");
    }

    #[test]
    fn a_stack_of_real_and_complex_matrices_and_their_scale() {
        // A triangular matrix (eigenvalues 2, 3, 5), a general one, and
        // the general one scaled by 2^600 (the scaling keeps it finite).
        let m = [2.0, 1.0, 4.0, 0.0, 3.0, 7.0, 0.0, 0.0, 5.0];
        let g = [1.0, 2.0, 0.5, -3.0, 0.25, 4.0, 1.5, -1.0, 2.0];
        let big = g.map(|v| v * 2f64.powi(600));
        let data: Vec<f64> = m.iter().chain(&g).chain(&big).copied().collect();
        let x: DynTensor = Tensor::from_slice(&data, &[3, 3, 3]).unwrap().into();
        let (w, v) = eig(&x).unwrap();
        let (w, v) = (c64s(&w), c64s(&v));
        let mut tri: Vec<f64> = w[..3].iter().map(|z| z.re).collect();
        tri.sort_by(f64::total_cmp);
        for (got, want) in tri.iter().zip([2.0, 3.0, 5.0]) {
            assert!((got - want).abs() < 1e-12, "{tri:?}");
        }
        // A real eigenvalue's eigenvector of a real matrix is real.
        assert!(v[..9].iter().all(|z| z.im == 0.0), "{v:?}");
        let a: Vec<C64> = data[..18].iter().map(|&r| C64::new(r, 0.0)).collect();
        check_pairs(&a, 3, &w[..6], &v[..18]);
        for (s, u) in w[6..].iter().zip(&w[3..6]) {
            assert!((s / 2f64.powi(600) - u).norm() < 1e-12, "{s} vs {u}");
        }
        // float32 and complex64 give complex64; a complex matrix's pairs.
        let f: DynTensor = Tensor::from_slice(&[1.0_f32, 2.0, 3.0, 4.0], &[2, 2])
            .unwrap()
            .into();
        assert_eq!(eig(&f).unwrap().0.dtype(), DType::C64);
        let c = [
            C64::new(1.0, 1.0),
            C64::new(0.0, 2.0),
            C64::new(-1.0, 0.5),
            C64::new(3.0, -1.0),
        ];
        let x: DynTensor = Tensor::from_slice(&c, &[2, 2]).unwrap().into();
        let (w, v) = eig(&x).unwrap();
        check_pairs(&c, 2, &c64s(&w), &c64s(&v));
    }

    #[test]
    fn dtypes_shapes_and_values_that_cannot_be_decomposed_are_errors() {
        let ints: DynTensor = Tensor::from_slice(&[1_i64, 2, 3, 4], &[2, 2])
            .unwrap()
            .into();
        assert!(eig(&ints).is_err() && eigvals(&ints).is_err());
        let rect: DynTensor = Tensor::from_slice(&[1.0_f64; 6], &[2, 3]).unwrap().into();
        assert!(matches!(eig(&rect), Err(Error::InvalidShape { .. })));
        let nan: DynTensor = Tensor::from_slice(&[f64::NAN, 1.0, 2.0, 3.0], &[2, 2])
            .unwrap()
            .into();
        assert!(matches!(eigvals(&nan), Err(Error::LinAlg { .. })));
        let empty: DynTensor = Tensor::from_slice(&[] as &[f64], &[4, 0, 0])
            .unwrap()
            .into();
        let (w, v) = eig(&empty).unwrap();
        assert_eq!((w.shape(), v.shape()), (&[4, 0][..], &[4, 0, 0][..]));
    }
}

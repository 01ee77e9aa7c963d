//! The decompositions of complex matrices, by their defining identities
//! and known values (the comparisons with NumPy are in
//! `tests/test_complex.py`).

use super::*;
use crate::{DType, DynTensor};

#[test]
fn complex_pinv_svdvals_and_rank() {
    use crate::array::element::C64;
    // [[1, i], [0, 2]]: pinv is the inverse [[1, -i/2], [0, 1/2]].
    let a = [
        C64::new(1.0, 0.0),
        C64::new(0.0, 1.0),
        C64::new(0.0, 0.0),
        C64::new(2.0, 0.0),
    ];
    let x = DynTensor::from(crate::Tensor::from_slice(&a, &[2, 2]).unwrap());
    let p = pinv(&x, None).unwrap();
    assert_eq!(p.dtype(), DType::C128);
    let want = [
        C64::new(1.0, 0.0),
        C64::new(0.0, -0.5),
        C64::new(0.0, 0.0),
        C64::new(0.5, 0.0),
    ];
    for (g, w) in p
        .typed::<C64>("t")
        .unwrap()
        .as_slice()
        .unwrap()
        .iter()
        .zip(want)
    {
        assert!((g - w).norm() < 1e-12, "{g} != {w}");
    }
    let sv = svdvals(&x).unwrap();
    assert_eq!(sv.dtype(), DType::F64);
    let sv = sv.typed::<f64>("t").unwrap().as_slice().unwrap().to_vec();
    // The singular values' squares are the eigenvalues of AᴴA = [[1, i], [-i, 5]]: 3 ± √5.
    assert!((sv[0] * sv[0] - (3.0 + 5f64.sqrt())).abs() < 1e-12);
    assert!((sv[1] * sv[1] - (3.0 - 5f64.sqrt())).abs() < 1e-12);
    let r = matrix_rank(&x, None).unwrap();
    assert_eq!(r.typed::<i64>("t").unwrap().as_slice().unwrap(), [2]);
}

/// The complex decompositions by their defining identities, on
/// `A = [[4, 1+2i], [1-2i, 6]]` (Hermitian positive definite, so every
/// one applies): `L·Lᴴ = A`, `A·inv(A) = I`, `det = 4·6 - |1+2i|² = 19`,
/// `Q·R = A`, `U·diag(S)·Vh = A`, `A·v = w·v` with real `w`.
#[test]
fn complex_decompositions_satisfy_their_identities() {
    use crate::array::element::C64;
    let c = C64::new;
    let a = [c(4.0, 0.0), c(1.0, 2.0), c(1.0, -2.0), c(6.0, 0.0)];
    let x = DynTensor::from(crate::Tensor::from_slice(&a, &[2, 2]).unwrap());
    let get = |t: &DynTensor| t.typed::<C64>("t").unwrap().as_slice().unwrap().to_vec();
    let mul = |p: &[C64], q: &[C64]| -> Vec<C64> {
        (0..4)
            .map(|k| (0..2).map(|j| p[(k / 2) * 2 + j] * q[j * 2 + k % 2]).sum())
            .collect()
    };
    let close = |g: &[C64], w: &[C64]| {
        for (g, w) in g.iter().zip(w) {
            assert!((g - w).norm() < 1e-12, "{g} != {w}");
        }
    };
    let adjoint = |p: &[C64]| vec![p[0].conj(), p[2].conj(), p[1].conj(), p[3].conj()];
    let eye = [c(1.0, 0.0), c(0.0, 0.0), c(0.0, 0.0), c(1.0, 0.0)];

    let l = get(&cholesky(&x, false).unwrap());
    assert_eq!(l[1], c(0.0, 0.0), "lower triangular");
    close(&mul(&l, &adjoint(&l)), &a);
    close(&get(&cholesky(&x, true).unwrap()), &adjoint(&l));

    close(&mul(&a, &get(&inv(&x).unwrap())), &eye);
    let d = get(&det(&x).unwrap());
    close(&d, &[c(19.0, 0.0)]);
    let (sign, logabs) = slogdet(&x).unwrap();
    close(&get(&sign), &[c(1.0, 0.0)]);
    let logabs = logabs.typed::<f64>("t").unwrap().as_slice().unwrap()[0];
    assert!((logabs - 19f64.ln()).abs() < 1e-12);

    let (q, r) = qr(&x, false).unwrap();
    let (q, r) = (get(&q), get(&r));
    assert_eq!(r[2], c(0.0, 0.0), "upper triangular");
    close(&mul(&q, &r), &a);

    let (u, s, vh) = svd(&x, false).unwrap();
    let s = s.typed::<f64>("t").unwrap().as_slice().unwrap().to_vec();
    let us: Vec<C64> = get(&u)
        .iter()
        .enumerate()
        .map(|(k, v)| v * s[k % 2])
        .collect();
    close(&mul(&us, &get(&vh)), &a);

    let (w, v) = eigh(&x).unwrap();
    assert_eq!(w.dtype(), DType::F64);
    let w = w.typed::<f64>("t").unwrap().as_slice().unwrap().to_vec();
    // The eigenvalues of A: 5 ± √6.
    assert!(
        (w[0] - (5.0 - 6f64.sqrt())).abs() < 1e-12 && (w[1] - (5.0 + 6f64.sqrt())).abs() < 1e-12
    );
    let v = get(&v);
    let vw: Vec<C64> = v.iter().enumerate().map(|(k, z)| z * w[k % 2]).collect();
    close(&mul(&a, &v), &vw);

    let b = [c(1.0, 1.0), c(0.0, -3.0)];
    let rhs = DynTensor::from(crate::Tensor::from_slice(&b, &[2]).unwrap());
    let sol = get(&solve(&x, &rhs).unwrap());
    let back: Vec<C64> = (0..2)
        .map(|i| a[i * 2] * sol[0] + a[i * 2 + 1] * sol[1])
        .collect();
    close(&back, &b);

    let fro = matrix_norm(&x, false, MatrixOrd::Fro).unwrap();
    assert_eq!(fro.dtype(), DType::F64);
    let fro = fro.typed::<f64>("t").unwrap().as_slice().unwrap()[0];
    assert!((fro - (16.0f64 + 5.0 + 5.0 + 36.0).sqrt()).abs() < 1e-12);
}

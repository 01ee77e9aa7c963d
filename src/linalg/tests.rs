//! The core's linear algebra on small known cases: values, shapes, dtype
//! rules and errors.

#![allow(clippy::float_cmp)] // exact values where the arithmetic is exact

use super::*;
use crate::{DType, DynTensor, Error, Tensor};

fn f64s(data: &[f64], shape: &[usize]) -> DynTensor {
    Tensor::from_slice(data, shape).unwrap().into()
}

fn i64s(data: &[i64], shape: &[usize]) -> DynTensor {
    Tensor::from_slice(data, shape).unwrap().into()
}

fn vals(t: &DynTensor) -> Vec<f64> {
    t.cast(DType::F64)
        .unwrap()
        .typed::<f64>("test")
        .unwrap()
        .to_vec()
        .unwrap()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-9 * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}

#[test]
fn det_inv_and_solve_of_a_stack() {
    let x = f64s(&[4.0, 7.0, 2.0, 6.0, 1.0, 2.0, 3.0, 4.0], &[2, 2, 2]);
    close(&vals(&det(&x).unwrap()), &[10.0, -2.0]);
    let i = inv(&x).unwrap();
    assert_eq!(i.shape(), &[2, 2, 2]);
    close(&vals(&i), &[0.6, -0.7, -0.2, 0.4, -2.0, 1.0, 1.5, -0.5]);
    // One right-hand side vector for every matrix.
    let b = f64s(&[1.0, 2.0], &[2]);
    let s = solve(&x, &b).unwrap();
    assert_eq!(s.shape(), &[2, 2]);
    close(&vals(&s), &[0.6 - 1.4, -0.2 + 0.8, 0.0, 0.5]);
    let (sign, log) = slogdet(&x).unwrap();
    close(&vals(&sign), &[1.0, -1.0]);
    close(&vals(&log), &[10f64.ln(), 2f64.ln()]);
}

#[test]
fn singular_and_indefinite_matrices_are_errors() {
    let x = f64s(&[1.0, 2.0, 2.0, 4.0], &[2, 2]);
    assert!(matches!(inv(&x), Err(Error::LinAlg { .. })));
    assert!(matches!(
        solve(&x, &f64s(&[1.0, 1.0], &[2])),
        Err(Error::LinAlg { .. })
    ));
    assert_eq!(vals(&det(&x).unwrap()), vec![0.0]);
    let (sign, log) = slogdet(&x).unwrap();
    assert_eq!((vals(&sign)[0], vals(&log)[0]), (0.0, f64::NEG_INFINITY));
    let neg = f64s(&[-1.0, 0.0, 0.0, 1.0], &[2, 2]);
    assert!(matches!(cholesky(&neg, false), Err(Error::LinAlg { .. })));
}

#[test]
fn float_only_functions_refuse_integers_and_non_square_matrices() {
    let x = i64s(&[1, 0, 0, 1], &[2, 2]);
    assert!(matches!(inv(&x), Err(Error::InvalidOperand { .. })));
    assert!(matches!(
        vector_norm(&x, None, false, 2.0),
        Err(Error::InvalidOperand { .. })
    ));
    let r = f64s(&[1.0; 6], &[2, 3]);
    assert!(matches!(det(&r), Err(Error::InvalidShape { .. })));
    assert!(matches!(
        det(&f64s(&[1.0], &[1])),
        Err(Error::InvalidShape { .. })
    ));
}

#[test]
fn cholesky_factors_are_triangular() {
    let x = f64s(&[4.0, 2.0, 2.0, 3.0], &[2, 2]);
    close(
        &vals(&cholesky(&x, false).unwrap()),
        &[2.0, 0.0, 1.0, 2f64.sqrt()],
    );
    close(
        &vals(&cholesky(&x, true).unwrap()),
        &[2.0, 1.0, 0.0, 2f64.sqrt()],
    );
}

#[test]
fn qr_svd_and_eigh_reconstruct_their_matrix() {
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let x = f64s(&a, &[3, 2]);
    let (q, r) = qr(&x, false).unwrap();
    assert_eq!((q.shape(), r.shape()), (&[3, 2][..], &[2, 2][..]));
    let back = tensordot(&q, &r, &TensordotAxes::Last(1)).unwrap();
    close(&vals(&back), &a);
    assert_eq!(vals(&r)[2], 0.0);
    let (q, r) = qr(&x, true).unwrap();
    assert_eq!((q.shape(), r.shape()), (&[3, 3][..], &[3, 2][..]));

    let (u, s, vh) = svd(&x, false).unwrap();
    assert_eq!(
        (u.shape(), s.shape(), vh.shape()),
        (&[3, 2][..], &[2][..], &[2, 2][..])
    );
    let sv = vals(&s);
    assert!(sv[0] >= sv[1]);
    let us: Vec<f64> = vals(&u)
        .chunks(2)
        .flat_map(|r| [r[0] * sv[0], r[1] * sv[1]])
        .collect();
    let back = tensordot(&f64s(&us, &[3, 2]), &vh, &TensordotAxes::Last(1)).unwrap();
    close(&vals(&back), &a);
    close(&vals(&svdvals(&x).unwrap()), &sv);
    let (u, _, vh) = svd(&x, true).unwrap();
    assert_eq!((u.shape(), vh.shape()), (&[3, 3][..], &[2, 2][..]));

    let sym = f64s(&[2.0, 1.0, 1.0, 2.0], &[2, 2]);
    let (w, v) = eigh(&sym).unwrap();
    close(&vals(&w), &[1.0, 3.0]);
    assert_eq!(v.shape(), &[2, 2]);
    close(&vals(&eigvalsh(&sym).unwrap()), &[1.0, 3.0]);
}

#[test]
fn pinv_and_rank_cut_small_singular_values() {
    let x = f64s(&[1.0, 2.0, 2.0, 4.0], &[2, 2]);
    assert_eq!(vals(&matrix_rank(&x, None).unwrap()), vec![1.0]);
    assert_eq!(matrix_rank(&x, None).unwrap().dtype(), DType::I64);
    let p = pinv(&x, None).unwrap();
    close(&vals(&p), &[0.04, 0.08, 0.08, 0.16]);
    let id = f64s(&[1.0, 0.0, 0.0, 1e-3], &[2, 2]);
    let big = f64s(&[0.01], &[]);
    assert_eq!(vals(&matrix_rank(&id, Some(&big)).unwrap()), vec![1.0]);
}

#[test]
fn integer_products_keep_their_dtype_and_wrap() {
    let a: DynTensor = Tensor::<i8>::from_slice(&[100, 100], &[2]).unwrap().into();
    let v = vecdot(&a, &a, -1).unwrap();
    assert_eq!(v.dtype(), DType::I8);
    assert_eq!(
        v.typed::<i8>("t").unwrap().to_vec().unwrap(),
        vec![(20000_i32 as i8)]
    );
    let o = outer(&i64s(&[1, 2], &[2]), &i64s(&[3, 4, 5], &[3])).unwrap();
    assert_eq!(o.shape(), &[2, 3]);
    assert_eq!(vals(&o), vec![3.0, 4.0, 5.0, 6.0, 8.0, 10.0]);
    let c = cross(&i64s(&[1, 0, 0], &[3]), &i64s(&[0, 1, 0], &[3]), -1).unwrap();
    assert_eq!(vals(&c), vec![0.0, 0.0, 1.0]);
}

#[test]
fn vecdot_and_cross_broadcast_but_not_along_their_axis() {
    let a = i64s(&[1, 2, 3, 4, 5, 6], &[2, 3]);
    let b = i64s(&[1, 1, 1], &[3]);
    assert_eq!(vals(&vecdot(&a, &b, -1).unwrap()), vec![6.0, 15.0]);
    let col = i64s(&[1, 1], &[2, 1]);
    assert!(vecdot(&a, &col, -1).is_err());
    assert_eq!(vals(&vecdot(&a, &col, -2).unwrap()), vec![5.0, 7.0, 9.0]);
    let c = cross(&a, &b, -1).unwrap();
    assert_eq!(c.shape(), &[2, 3]);
    assert_eq!(vals(&c), vec![-1.0, 2.0, -1.0, -1.0, 2.0, -1.0]);
    assert!(cross(&col, &col, -1).is_err());
}

#[test]
fn tensordot_contracts_named_axes() {
    let a = i64s(&(0..24).collect::<Vec<_>>(), &[2, 3, 4]);
    let b = i64s(&(0..12).collect::<Vec<_>>(), &[4, 3]);
    let r = tensordot(&a, &b, &TensordotAxes::Pairs(vec![1, 2], vec![1, 0])).unwrap();
    assert_eq!(r.shape(), &[2]);
    let expect: Vec<f64> = (0..2)
        .map(|i| {
            (0..3)
                .flat_map(|j| (0..4).map(move |k| f64::from((i * 12 + j * 4 + k) * (k * 3 + j))))
                .sum()
        })
        .collect();
    assert_eq!(vals(&r), expect);
    assert_eq!(
        tensordot(&a, &b, &TensordotAxes::Last(0)).unwrap().shape(),
        &[2, 3, 4, 4, 3]
    );
    assert!(tensordot(&a, &b, &TensordotAxes::Last(3)).is_err());
    assert!(tensordot(&a, &b, &TensordotAxes::Pairs(vec![0], vec![0])).is_err());
}

#[test]
fn diagonal_and_trace_with_offsets() {
    let x = i64s(&(0..12).collect::<Vec<_>>(), &[3, 4]);
    assert_eq!(vals(&diagonal(&x, 0).unwrap()), vec![0.0, 5.0, 10.0]);
    assert_eq!(vals(&diagonal(&x, 1).unwrap()), vec![1.0, 6.0, 11.0]);
    assert_eq!(vals(&diagonal(&x, -1).unwrap()), vec![4.0, 9.0]);
    assert_eq!(diagonal(&x, 9).unwrap().shape(), &[0]);
    assert_eq!(vals(&trace(&x, 1, None).unwrap()), vec![18.0]);
    let small: DynTensor = Tensor::<u8>::from_slice(&[200, 0, 0, 200], &[2, 2])
        .unwrap()
        .into();
    let t = trace(&small, 0, None).unwrap();
    assert_eq!(t.dtype(), DType::U64);
    assert_eq!(vals(&t), vec![400.0]);
    assert_eq!(
        trace(&small, 0, Some(DType::U8))
            .unwrap()
            .typed::<u8>("t")
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![144]
    );
}

#[test]
fn matrix_power_of_integers_and_floats() {
    let x = i64s(&[1, 1, 1, 0], &[2, 2]);
    assert_eq!(
        vals(&matrix_power(&x, 10).unwrap()),
        vec![89.0, 55.0, 55.0, 34.0]
    );
    assert_eq!(
        vals(&matrix_power(&x, 0).unwrap()),
        vec![1.0, 0.0, 0.0, 1.0]
    );
    assert!(matrix_power(&x, -1).is_err());
    let f = f64s(&[2.0, 0.0, 0.0, 4.0], &[2, 2]);
    close(
        &vals(&matrix_power(&f, -2).unwrap()),
        &[0.25, 0.0, 0.0, 0.0625],
    );
}

#[test]
fn norms_of_every_order() {
    let v = f64s(&[3.0, -4.0, 0.0], &[3]);
    for (ord, want) in [
        (2.0, 5.0),
        (1.0, 7.0),
        (f64::INFINITY, 4.0),
        (f64::NEG_INFINITY, 0.0),
        (0.0, 2.0),
    ] {
        close(&vals(&vector_norm(&v, None, false, ord).unwrap()), &[want]);
    }
    let m = f64s(&[1.0, -2.0, 3.0, 4.0], &[2, 2]);
    let r = vector_norm(&m, Some(&[0]), true, 1.0).unwrap();
    assert_eq!(r.shape(), &[1, 2]);
    close(&vals(&r), &[4.0, 6.0]);
    close(
        &vals(&matrix_norm(&m, false, MatrixOrd::Fro).unwrap()),
        &[30f64.sqrt()],
    );
    close(
        &vals(&matrix_norm(&m, false, MatrixOrd::One).unwrap()),
        &[6.0],
    );
    close(
        &vals(&matrix_norm(&m, false, MatrixOrd::NegInf).unwrap()),
        &[3.0],
    );
    assert_eq!(
        matrix_norm(&m, true, MatrixOrd::Two).unwrap().shape(),
        &[1, 1]
    );
    assert!(MatrixOrd::from_number(3.0).is_err());
    assert!(MatrixOrd::from_name("max").is_err());
}

#[test]
fn singular_values_and_eigenvalues_of_huge_float32_entries() {
    // Squares of these overflow float32: the decompositions see the matrix
    // scaled by a power of two.
    let big: DynTensor = Tensor::<f32>::from_slice(&[7.5e18; 9], &[3, 3])
        .unwrap()
        .into();
    let sv = vals(&svdvals(&big).unwrap());
    assert!((sv[0] / (3.0 * 7.5e18) - 1.0).abs() < 1e-5, "{sv:?}");
    assert_eq!(vals(&matrix_rank(&big, None).unwrap()), vec![1.0]);
    let w = vals(&eigvalsh(&big).unwrap());
    assert!((w[2] / (3.0 * 7.5e18) - 1.0).abs() < 1e-5, "{w:?}");
    assert_eq!(svd(&big, true).unwrap().1.shape(), &[3]);
    let tiny = f64s(&[2.225_073_858_507_2e-313], &[1, 1]);
    assert_eq!(
        vals(&svdvals(&tiny).unwrap()),
        vec![2.225_073_858_507_2e-313]
    );
    assert_eq!(
        vals(&matrix_norm(&tiny, false, MatrixOrd::Nuc).unwrap()),
        vec![2.225_073_858_507_2e-313]
    );
}

#[test]
fn determinants_with_subnormal_pivots_stay_finite() {
    let t = 1.112_536_929_253_600_7e-308;
    let x = f64s(&[t, t, t, t, t, t, 2.0, 1.0, t], &[3, 3]);
    assert_eq!(vals(&det(&x).unwrap()), vec![0.0]);
    let (sign, log) = slogdet(&x).unwrap();
    let (sign, log) = (vals(&sign)[0], vals(&log)[0]);
    assert!(
        sign == 0.0 && log == f64::NEG_INFINITY || log.is_finite(),
        "{sign} {log}"
    );
    assert!(matches!(inv(&x), Err(Error::LinAlg { .. })));
}

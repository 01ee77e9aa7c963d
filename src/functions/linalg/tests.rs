//! The core's linear algebra on small known cases: values, shapes, dtype
//! rules and errors.

#![allow(clippy::float_cmp)] // exact values where the arithmetic is exact

use super::stack::Matrices;
use super::*;
use crate::{DType, DynTensor, Error, Meta, Tensor};

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
fn a_zero_pivot_in_lapack_arithmetic_refuses_inv_as_det_is_zero() {
    // faer's fused multiply-adds leave 1e-17 in the last pivot of this
    // rank-1 matrix; LAPACK's divide-multiply-subtract cancels exactly.
    let x = f64s(&[0.1, 0.2, 0.3, 0.6], &[2, 2]);
    assert_eq!(vals(&det(&x).unwrap()), vec![0.0]);
    assert!(matches!(inv(&x), Err(Error::LinAlg { .. })));
    assert!(matches!(
        solve(&x, &f64s(&[1.0, 1.0], &[2])),
        Err(Error::LinAlg { .. })
    ));
    // Ill-conditioned but with no such cancellation: inverted.
    let h: Vec<f64> = (0..64)
        .map(|k| 1.0 / f64::from(k / 8 + k % 8 + 1))
        .collect();
    assert!(vals(&inv(&f64s(&h, &[8, 8])).unwrap())
        .iter()
        .all(|v| v.is_finite()));
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

/// A stack of matrices of `shape` in `dtype`, symmetric and diagonally
/// dominant where square (so positive definite and invertible): each
/// matrix's `(i, j)` entry is `1/(1+i+j)`, plus `rows+cols+b` on the
/// diagonal of the `b`th.
fn stack_of(dtype: DType, shape: &[usize]) -> DynTensor {
    let (m, n) = match shape {
        [.., m, n] => (*m, *n),
        [n] => (1, *n),
        _ => (1, 1),
    };
    let data: Vec<f64> = (0..shape.iter().product::<usize>())
        .map(|k| {
            let (b, i, j) = (k / (m * n), k / n % m, k % n);
            let diag = if i == j { (m + n + b) as f64 } else { 0.0 };
            1.0 / (1 + i + j) as f64 + diag
        })
        .collect();
    f64s(&data, shape).cast(dtype).unwrap()
}

/// `vector_norm`'s op.
fn vnorm(axes: Option<Vec<isize>>, keepdims: bool, ord: f64) -> LinalgOp {
    LinalgOp::VectorNorm {
        axes,
        keepdims,
        ord,
    }
}

/// `matrix_norm`'s op.
fn mnorm(keepdims: bool, ord: MatrixOrd) -> LinalgOp {
    LinalgOp::MatrixNorm { keepdims, ord }
}

/// `tensordot`'s op.
fn tdot(axes: TensordotAxes) -> LinalgOp {
    LinalgOp::Tensordot { axes }
}

/// `trace`'s op.
fn trace_op(offset: isize, dtype: Option<DType>) -> LinalgOp {
    LinalgOp::Trace { offset, dtype }
}

/// Every order of `matrix_norm`.
const ORDS: [MatrixOrd; 8] = [
    MatrixOrd::Fro,
    MatrixOrd::Nuc,
    MatrixOrd::One,
    MatrixOrd::NegOne,
    MatrixOrd::Two,
    MatrixOrd::NegTwo,
    MatrixOrd::Inf,
    MatrixOrd::NegInf,
];

/// Checks that the signature of every result of an op equals what running
/// it gives, and names the functions checked.
#[derive(Default)]
struct Agree(std::collections::BTreeSet<&'static str>);

impl Agree {
    fn check(&mut self, op: &LinalgOp, xs: &[&DynTensor]) {
        self.0.insert(op.name());
        let metas: Vec<Meta<'_>> = xs.iter().map(|x| x.meta()).collect();
        for p in 0..op.parts() {
            let mut op = op.clone();
            if let LinalgOp::Eigh { part }
            | LinalgOp::Qr { part, .. }
            | LinalgOp::Slogdet { part }
            | LinalgOp::Svd { part, .. } = &mut op
            {
                *part = p;
            }
            let r = op
                .run(xs)
                .unwrap_or_else(|e| panic!("{op:?} {metas:?}: {e}"));
            let sig = op.signature(&metas);
            assert_eq!(sig, Ok((r.dtype(), r.shape().to_vec())), "{op:?} {metas:?}");
        }
    }

    /// The functions of square matrices, on `x`.
    fn square(&mut self, x: &DynTensor) {
        use LinalgOp as L;
        for op in [
            L::Cholesky { upper: false },
            L::Cholesky { upper: true },
            L::Det,
            L::Eigvalsh,
            L::Inv,
            L::MatrixPower { n: 3 },
            L::MatrixPower { n: 0 },
            L::MatrixPower { n: -2 },
            L::Eigh { part: 0 },
            L::Eig { part: 0 },
            L::Eig { part: 1 },
            L::Eigvals,
            L::Slogdet { part: 0 },
        ] {
            self.check(&op, &[x]);
        }
    }

    /// The functions of any stack of matrices, on `x`.
    fn matrices(&mut self, x: &DynTensor) {
        use LinalgOp as L;
        let mut ops = vec![
            L::Diagonal { offset: 0 },
            L::Diagonal { offset: 1 },
            L::Diagonal { offset: -5 },
            L::Svdvals,
            trace_op(0, None),
            trace_op(-1, Some(DType::F32)),
            L::MatrixRank { rtol: false },
            L::Pinv { rtol: false },
            vnorm(None, false, 2.0),
            vnorm(Some(vec![-1]), true, 1.0),
            vnorm(Some(vec![-1, 0]), false, 0.5),
        ];
        for b in [false, true] {
            ops.push(L::Qr {
                complete: b,
                part: 0,
            });
            ops.push(L::Svd {
                full_matrices: b,
                part: 0,
            });
        }
        let s = Matrices::of("t", x.shape()).unwrap();
        if s.count() * s.m * s.n > 0 {
            ops.push(vnorm(Some(vec![-2]), false, f64::NEG_INFINITY));
        }
        for ord in ORDS {
            // (The orders that take the largest or smallest of no value
            // are errors: see the next test.)
            let none = match ord {
                MatrixOrd::Two | MatrixOrd::NegTwo => s.m.min(s.n) == 0,
                MatrixOrd::One | MatrixOrd::NegOne => s.n == 0,
                MatrixOrd::Inf | MatrixOrd::NegInf => s.m == 0,
                _ => false,
            };
            if !none || s.count() == 0 {
                ops.extend([mnorm(false, ord), mnorm(true, ord)]);
            }
        }
        for op in &ops {
            self.check(op, &[x]);
        }
        // rtol: a number, and one per matrix of the stack.
        let per = f64s(&vec![1e-3; s.count()], &s.batch);
        for r in [f64s(&[0.5], &[]), per] {
            self.check(&L::MatrixRank { rtol: true }, &[x, &r]);
            self.check(&L::Pinv { rtol: true }, &[x, &r]);
        }
    }
}

#[test]
fn signature_matches_run_for_every_op() {
    use LinalgOp as L;
    let mut agree = Agree::default();
    for d in [DType::F32, DType::F64] {
        let square: Vec<DynTensor> = [
            &[3, 3][..],
            &[2, 3, 3],
            &[2, 1, 2, 2],
            &[0, 2, 2],
            &[1, 0, 0],
        ]
        .iter()
        .map(|s| stack_of(d, s))
        .collect();
        for x in &square {
            agree.square(x);
            agree.matrices(x);
        }
        for s in [&[3, 2][..], &[2, 2, 4], &[4, 1], &[2, 0, 3]] {
            agree.matrices(&stack_of(d, s));
        }
        // solve: one vector for the whole stack, a stack of right-hand
        // sides, broadcast stacks, mixed dtypes.
        let v3 = stack_of(d, &[3]);
        let rhs = [
            (0, stack_of(d, &[2, 3, 2])),
            (1, stack_of(d, &[2, 3, 2])),
            (1, stack_of(DType::F64, &[4, 1, 3, 1])),
            (3, stack_of(d, &[2, 2])),
        ];
        agree.check(&L::Solve, &[&square[0], &v3]);
        agree.check(&L::Solve, &[&square[1], &v3]);
        for (i, b) in &rhs {
            agree.check(&L::Solve, &[&square[*i], b]);
        }
        // Products, in floats.
        let m23 = stack_of(d, &[2, 3]);
        agree.check(&L::Vecdot { axis: -1 }, &[&m23, &v3]);
        agree.check(&L::Cross { axis: -1 }, &[&m23, &v3]);
        agree.check(&L::Outer, &[&v3, &stack_of(d, &[4])]);
        agree.check(
            &tdot(TensordotAxes::Last(1)),
            &[&m23, &stack_of(d, &[3, 2])],
        );
    }
    // Integers (and bool), where the function takes them; two dtypes
    // promote.
    let i = i64s(&[2, 1, 0, 1, 3, 1, 0, 1, 4], &[3, 3]);
    let small: DynTensor = Tensor::<i8>::from_slice(&[1, -2, 3, 4, 5, -6], &[2, 3])
        .unwrap()
        .into();
    let flags: DynTensor = Tensor::<bool>::from_slice(&[true, false, true, true], &[2, 2])
        .unwrap()
        .into();
    for op in [L::MatrixPower { n: 5 }, L::MatrixPower { n: 0 }] {
        agree.check(&op, &[&i]);
    }
    for op in [
        L::Diagonal { offset: 1 },
        trace_op(0, None),
        trace_op(1, None),
    ] {
        for x in [&i, &small, &flags] {
            agree.check(&op, &[x]);
        }
    }
    let v = i64s(&[1, 2, 3], &[3]);
    let col = i64s(&[1, 2], &[2, 1]);
    agree.check(&L::Vecdot { axis: -1 }, &[&small, &v]);
    agree.check(&L::Vecdot { axis: 0 }, &[&small, &col]);
    agree.check(&L::Cross { axis: -1 }, &[&small, &v]);
    agree.check(&L::Cross { axis: 1 }, &[&v, &small]);
    agree.check(&L::Outer, &[&small.reshape(&[6]).unwrap(), &v]);
    let (f23, f32) = (stack_of(DType::F32, &[2, 3]), stack_of(DType::F32, &[3, 2]));
    for (axes, x2) in [
        (TensordotAxes::Last(2), &f23),
        (TensordotAxes::Last(0), &f32),
        (TensordotAxes::Pairs(vec![1, 0], vec![0, 1]), &f32),
        (TensordotAxes::Pairs(vec![-1], vec![0]), &f32),
        (TensordotAxes::Last(1), &i),
    ] {
        agree.check(&tdot(axes), &[&small, x2]);
    }
    assert_eq!(agree.0.len(), 23, "{:?}", agree.0);
}

#[test]
fn signature_raises_the_errors_run_raises() {
    use LinalgOp as L;
    use TensordotAxes::{Last, Pairs};
    let sq = f64s(&[1.0, 2.0, 3.0, 5.0], &[2, 2]);
    let rect = f64s(&[1.0; 6], &[2, 3]);
    let tall = f64s(&[1.0; 6], &[3, 2]);
    let vec3 = f64s(&[1.0; 3], &[3]);
    let int = i64s(&[1, 0, 0, 1], &[2, 2]);
    let stack = f64s(&[1.0; 8], &[2, 2, 2]);
    let stack3 = f64s(&[1.0; 12], &[3, 2, 2]);
    let empty = f64s(&[], &[2, 0]);
    let svd = |part| L::Svd {
        full_matrices: true,
        part,
    };
    let cases: Vec<(LinalgOp, Vec<&DynTensor>)> = vec![
        (L::Inv, vec![&int]),
        (L::Det, vec![&rect]),
        (L::Solve, vec![&sq, &vec3]),
        (L::Solve, vec![&sq, &tall]),
        (L::Solve, vec![&stack, &stack3]),
        (L::Solve, vec![&int, &sq]),
        (L::Cholesky { upper: false }, vec![&vec3]),
        (L::Eigh { part: 1 }, vec![&rect]),
        (L::Eigh { part: 2 }, vec![&sq]),
        (L::Eig { part: 0 }, vec![&rect]),
        (L::Eig { part: 2 }, vec![&sq]),
        (L::Eigvals, vec![&int]),
        (svd(3), vec![&int]),
        (svd(3), vec![&sq]),
        (L::MatrixPower { n: -1 }, vec![&int]),
        (L::MatrixPower { n: 2 }, vec![&rect]),
        (L::Cross { axis: -1 }, vec![&sq, &sq]),
        (L::Cross { axis: 2 }, vec![&vec3, &vec3]),
        (L::Vecdot { axis: -1 }, vec![&rect, &sq]),
        (L::Outer, vec![&sq, &vec3]),
        (tdot(Pairs(vec![0, 1], vec![0])), vec![&rect, &sq]),
        (tdot(Pairs(vec![1], vec![0])), vec![&rect, &sq]),
        (tdot(Pairs(vec![1, -1], vec![0, 1])), vec![&rect, &tall]),
        (tdot(Last(3)), vec![&rect, &sq]),
        (vnorm(Some(vec![1]), false, f64::INFINITY), vec![&empty]),
        (vnorm(Some(vec![0, -2]), false, 2.0), vec![&rect]),
        (vnorm(None, false, f64::NAN), vec![&rect]),
        (mnorm(false, MatrixOrd::One), vec![&empty]),
        (mnorm(true, MatrixOrd::NegTwo), vec![&empty]),
        (L::MatrixRank { rtol: true }, vec![&stack, &vec3]),
        (L::Pinv { rtol: true }, vec![&stack, &sq]),
        (trace_op(0, None), vec![&vec3]),
    ];
    for (op, xs) in &cases {
        let metas: Vec<Meta<'_>> = xs.iter().map(|x| x.meta()).collect();
        let err = op.run(xs).expect_err(&format!("{op:?} on {metas:?}"));
        assert_eq!(op.signature(&metas), Err(err), "{op:?} on {metas:?}");
    }
}

#[test]
fn only_ops_that_fail_on_values_fail_on_values() {
    use LinalgOp as L;
    let singular = f64s(&[1.0, 2.0, 2.0, 4.0], &[2, 2]);
    let indefinite = f64s(&[-1.0, 0.0, 0.0, 1.0], &[2, 2]);
    // The iterations of the SVD and of eigh do not converge on NaN.
    let nan = f64s(&[f64::NAN, 1.0, 1.0, 2.0, 3.0, 1.0, 0.5, 1.0, 2.0], &[3, 3]);
    for (op, x) in [
        (L::Inv, &singular),
        (L::MatrixPower { n: -3 }, &singular),
        (L::Cholesky { upper: true }, &indefinite),
        (L::Svdvals, &nan),
        (L::Eigh { part: 0 }, &nan),
        (L::Eig { part: 1 }, &nan),
        (L::Eigvals, &nan),
        (L::MatrixRank { rtol: false }, &nan),
        (mnorm(false, MatrixOrd::Two), &nan),
    ] {
        assert!(op.fails_on_values(), "{op:?}");
        assert!(op.signature(&[x.meta()]).is_ok());
        let r = op.run(&[x]);
        assert!(matches!(r, Err(Error::LinAlg { .. })), "{op:?}: {r:?}");
    }
    assert!(L::Solve.fails_on_values());
    for op in [
        L::Det,
        L::Slogdet { part: 1 },
        L::MatrixPower { n: 3 },
        mnorm(false, MatrixOrd::Fro),
        L::Qr {
            complete: true,
            part: 0,
        },
    ] {
        assert!(!op.fails_on_values(), "{op:?}");
        assert!(op.run(&[&singular]).is_ok());
    }
}

#[test]
fn params_are_printed_in_python_spelling() {
    use LinalgOp as L;
    let cases: Vec<(LinalgOp, &[&str])> = vec![
        (tdot(TensordotAxes::Last(2)), &["axes=2"]),
        (
            tdot(TensordotAxes::Pairs(vec![1], vec![0, -1])),
            &["axes=((1,), (0, -1))"],
        ),
        (L::Vecdot { axis: -1 }, &["axis=-1"]),
        (L::Cholesky { upper: false }, &["upper=False"]),
        (trace_op(0, None), &["offset=0", "dtype=None"]),
        (
            trace_op(-1, Some(DType::F64)),
            &["offset=-1", "dtype=float64"],
        ),
        (
            vnorm(None, true, 2.0),
            &["axes=None", "keepdims=True", "ord=2.0"],
        ),
        (
            vnorm(Some(vec![0]), false, f64::NEG_INFINITY),
            &["axes=(0,)", "keepdims=False", "ord=-inf"],
        ),
        (mnorm(false, MatrixOrd::Fro), &["keepdims=False", "ord=fro"]),
        (mnorm(true, MatrixOrd::NegTwo), &["keepdims=True", "ord=-2"]),
        (
            L::Qr {
                complete: false,
                part: 1,
            },
            &["complete=False", "part=1"],
        ),
        (
            L::Svd {
                full_matrices: true,
                part: 2,
            },
            &["full_matrices=True", "part=2"],
        ),
        (L::MatrixPower { n: 3 }, &["n=3"]),
        (L::Inv, &[]),
        (L::Pinv { rtol: true }, &[]),
    ];
    for (op, want) in cases {
        assert_eq!(op.params(), want, "{op:?}");
    }
}

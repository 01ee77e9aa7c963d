//! Property tests of every kernel against a plain scalar reference, on every
//! instruction set this CPU supports, lengths 0..=67, unaligned starts, and
//! NaN, ±inf, -0.0, subnormals.
// Exact comparisons are deliberate: bit-for-bit agreement is checked first,
// then a tolerance; integer-valued results must be exact.
#![allow(clippy::float_cmp)]

use std::mem::MaybeUninit;

use donate::kernels::{self, BinaryDst, Isa};
use donate::{BinaryOp, Tensor, UnaryOp};
use proptest::prelude::*;

fn ref_unary(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::Gelu => {
            if x == f64::NEG_INFINITY {
                -0.0
            } else {
                // 0.5 x (1 + tanh u) == x / (1 + e^{-2u}); this form is exact
                // enough in f64 for large negative x, where the tanh form
                // cancels.
                x / (1.0 + (-2.0 * 0.797_884_560_802_865_4 * (x + 0.044_715 * x * x * x)).exp())
            }
        }
    }
}

fn ref_binary(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Maximum => {
            if a > b || a.is_nan() {
                a
            } else {
                b
            }
        }
        BinaryOp::Minimum => {
            if a < b || a.is_nan() {
                a
            } else {
                b
            }
        }
    }
}

/// Exactly-rounded ops must match bit for bit (except NaN payloads);
/// transcendental ones within a relative tolerance.
/// GELU rounds its inner argument `u` to f32 before `exp(-2u)`; for
/// |2u| near 65 that amplifies one ulp of `u` to ~1e-5 relative.
const GELU_TOL: f32 = 5e-5;

/// `tiny`: below this magnitude the tolerance is `rel` of it rather than
/// of the result (GELU's tail, computed through `e^(-2u)` of a rounded
/// `u`, has no relative accuracy near zero; for the other functions it is
/// the smallest normal number, so that a result flushed to zero where the
/// exact one is subnormal, `exp(-95)`, fails).
fn close_tol(
    op_exact: bool,
    got: f32,
    want: f64,
    x: f32,
    rel: f32,
    tiny: f32,
) -> Result<(), String> {
    let w = want as f32;
    if w.is_nan() || got.is_nan() {
        return if w.is_nan() && got.is_nan() {
            Ok(())
        } else {
            Err(format!("x={x:e}: got {got:e}, want {w:e}"))
        };
    }
    if op_exact {
        return if got.to_bits() == w.to_bits() {
            Ok(())
        } else {
            Err(format!("x={x:e}: got {got:e}, want {w:e}"))
        };
    }
    if got == w {
        // (Zeros equal: their signs must be too, `tanh(-0.0) = -0.0`.)
        return if got != 0.0 || got.is_sign_negative() == w.is_sign_negative() {
            Ok(())
        } else {
            Err(format!("x={x:e}: got {got:e}, want {w:e}"))
        };
    }
    let tol = rel * w.abs().max(tiny) + 4.0 * f32::from_bits(1);
    if (got - w).abs() <= tol {
        Ok(())
    } else {
        Err(format!(
            "x={x:e}: got {got:e}, want {w:e}, diff {:e}",
            (got - w).abs()
        ))
    }
}

fn special_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => -100.0f32..100.0,
        1 => -1.0f32..1.0,
        1 => prop::num::f32::ANY,
        1 => prop::sample::select(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 1e-40, -1e-40, 88.7, -87.4, -95.0, -103.9, 89.0, -104.0, f32::MAX, f32::MIN_POSITIVE]),
    ]
}

fn exact(op: UnaryOp) -> bool {
    matches!(
        op,
        UnaryOp::Relu | UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sqrt
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn unary_f32_matches_reference(v in prop::collection::vec(special_f32(), 0..=70), start in 0usize..3) {
        let start = start.min(v.len());
        let src = &v[start..];
        for isa in Isa::supported() {
            for op in UnaryOp::ALL {
                let mut dst = vec![MaybeUninit::<f32>::uninit(); src.len()];
                kernels::unary_with(isa, op, src, &mut dst).unwrap();
                let mut inplace = src.to_vec();
                kernels::unary_inplace_with(isa, op, &mut inplace).unwrap();
                for (i, x) in src.iter().enumerate() {
                    // SAFETY: unary_with returned Ok and writes every element.
                    let got = unsafe { dst[i].assume_init() };
                    let want = ref_unary(op, f64::from(*x));
                    let (rel, tiny) = if op == UnaryOp::Gelu { (GELU_TOL, 1e-30) } else { (4e-6, f32::MIN_POSITIVE) };
                    close_tol(exact(op), got, want, *x, rel, tiny).map_err(|e| TestCaseError::fail(format!("{op:?} {isa:?}: {e}")))?;
                    prop_assert_eq!(got.to_bits(), inplace[i].to_bits(), "in-place differs {:?} {:?}", op, isa);
                }
            }
        }
    }

    #[test]
    fn unary_f64_matches_reference(v in prop::collection::vec(prop_oneof![-50.0f64..50.0, prop::num::f64::ANY], 0..=67)) {
        for op in UnaryOp::ALL {
            let mut buf = v.clone();
            kernels::unary_inplace(op, &mut buf).unwrap();
            for (x, got) in v.iter().zip(&buf) {
                let want = ref_unary(op, *x);
                prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()) || (got - want).abs() <= 1e-12 * want.abs(),
                    "{:?}: x={} got={} want={}", op, x, got, want);
            }
        }
    }

    #[test]
    fn binary_f32_matches_reference(
        pairs in prop::collection::vec((special_f32(), special_f32()), 0..=67),
        scalar in special_f32(),
    ) {
        let a: Vec<f32> = pairs.iter().map(|p| p.0).collect();
        let b: Vec<f32> = pairs.iter().map(|p| p.1).collect();
        let n = a.len();
        for op in BinaryOp::ALL {
            let at = Tensor::from_slice(&a, &[n]).unwrap();
            let bt = Tensor::from_slice(&b, &[n]).unwrap();
            let st = Tensor::from_slice(&[scalar], &[]).unwrap();
            let out = donate::ops::binary::binary(op, donate::Operand::Ref(&at), donate::Operand::Ref(&bt)).unwrap().0;
            let outs = donate::ops::binary::binary(op, donate::Operand::Ref(&st), donate::Operand::Ref(&bt)).unwrap().0;
            // in place into the left operand
            let mut io = a.clone();
            kernels::binary(op, &[], &[n], &b, &[n], &[n], BinaryDst::Lhs, Some(&mut io)).unwrap();
            for i in 0..n {
                let want = ref_binary(op, f64::from(a[i]), f64::from(b[i])) as f32;
                let got = out.as_slice().unwrap()[i];
                prop_assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "{:?} {} {}: got {} want {}", op, a[i], b[i], got, want);
                prop_assert!(io[i].to_bits() == got.to_bits() || (got.is_nan() && io[i].is_nan()));
                let ws = ref_binary(op, f64::from(scalar), f64::from(b[i])) as f32;
                let gs = outs.as_slice().unwrap()[i];
                prop_assert!(gs.to_bits() == ws.to_bits() || (gs.is_nan() && ws.is_nan()), "{:?} scalar", op);
            }
        }
    }

    #[test]
    fn broadcasting_matches_reference(
        da in prop::collection::vec(1usize..4, 0..4),
        mask_a in prop::collection::vec(any::<bool>(), 4),
        mask_b in prop::collection::vec(any::<bool>(), 4),
        drop_b in 0usize..3,
    ) {
        // shapes that broadcast: each dim of each operand is the full dim or 1
        let sa: Vec<usize> = da.iter().zip(&mask_a).map(|(d, m)| if *m { 1 } else { *d }).collect();
        let sb: Vec<usize> = da.iter().zip(&mask_b).map(|(d, m)| if *m { 1 } else { *d }).skip(drop_b.min(da.len())).collect();
        let na: usize = sa.iter().product();
        let nb: usize = sb.iter().product();
        let a: Vec<i64> = (0..na as i64).collect();
        let b: Vec<i64> = (0..nb as i64).map(|x| x * 100).collect();
        let at = Tensor::from_slice(&a, &sa).unwrap();
        let bt = Tensor::from_slice(&b, &sb).unwrap();
        let out = (&at + &bt).unwrap();
        let shape = out.shape().to_vec();
        let sa_s = donate::array::shape::broadcast_strides(&sa, &shape);
        let sb_s = donate::array::shape::broadcast_strides(&sb, &shape);
        let cs = donate::array::shape::c_strides(&shape);
        for (i, got) in out.as_slice().unwrap().iter().enumerate() {
            let idx: Vec<usize> = cs.iter().zip(&shape).map(|(s, d)| (i / s) % d).collect();
            let oa: usize = idx.iter().zip(&sa_s).map(|(i, s)| i * s).sum();
            let ob: usize = idx.iter().zip(&sb_s).map(|(i, s)| i * s).sum();
            prop_assert_eq!(*got, a[oa] + b[ob]);
        }
    }

    #[test]
    fn reductions_match_reference(rows in 1usize..6, cols in 0usize..40, seed in any::<u64>()) {
        let n = rows * cols;
        let v: Vec<f32> = (0..n).map(|i| (((i as u64 ^ seed).wrapping_mul(2_654_435_761) % 2001) as f32 - 1000.0) / 7.0).collect();
        let t = Tensor::from_slice(&v, &[rows, cols]).unwrap();
        let total: f64 = v.iter().map(|x| f64::from(*x)).sum();
        prop_assert!((f64::from(t.sum(None, false).unwrap().as_slice().unwrap()[0]) - total).abs() <= 1e-3 * (1.0 + total.abs()));
        let s1 = t.sum(Some(1), false).unwrap();
        let s0 = t.sum(Some(0), true).unwrap();
        prop_assert_eq!(s0.shape(), &[1, cols]);
        for r in 0..rows {
            let want: f64 = v[r * cols..(r + 1) * cols].iter().map(|x| f64::from(*x)).sum();
            prop_assert!((f64::from(s1.as_slice().unwrap()[r]) - want).abs() <= 1e-3 * (1.0 + want.abs()));
        }
        for c in 0..cols {
            let want: f64 = (0..rows).map(|r| f64::from(v[r * cols + c])).sum();
            prop_assert!((f64::from(s0.as_slice().unwrap()[c]) - want).abs() <= 1e-3 * (1.0 + want.abs()));
            let m = t.max(Some(0), false).unwrap().as_slice().unwrap()[c];
            let wm = (0..rows).map(|r| v[r * cols + c]).fold(f32::NEG_INFINITY, f32::max);
            prop_assert_eq!(m, wm);
        }
    }
}

#[test]
fn max_propagates_nan_and_sum_is_careful() {
    let t = Tensor::<f32>::from_vec(vec![1.0, f32::NAN, 3.0], &[3]).unwrap();
    assert!(t.max(None, false).unwrap().as_slice().unwrap()[0].is_nan());
    // 1e7 ones plus 1e8: a naive f32 running sum loses the ones
    let mut v = vec![1.0f32; 10_000_000];
    v[0] = 1e8;
    let t = Tensor::from_vec(v, &[10_000_000]).unwrap();
    let s = t.sum(None, false).unwrap().as_slice().unwrap()[0];
    assert_eq!(s, 1e8 + 9_999_999.0);
}

#[test]
fn softmax_and_layer_norm_match_reference() {
    let v: Vec<f64> = (0..24).map(|i| (f64::from(i) * 0.37).sin() * 5.0).collect();
    let t = Tensor::from_slice(&v, &[4, 6]).unwrap();
    let s = t.clone().softmax(-1).unwrap();
    let g = Tensor::from_slice(&[1.0, 2.0, 0.5, 1.0, 1.0, 3.0], &[6]).unwrap();
    let b = Tensor::from_slice(&[0.0, 1.0, 0.0, -1.0, 0.0, 0.5], &[6]).unwrap();
    let ln = t.clone().layer_norm(Some(&g), Some(&b), 1e-5).unwrap();
    for r in 0..4 {
        let row = &v[r * 6..(r + 1) * 6];
        let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = row.iter().map(|x| (x - m).exp()).collect();
        let z: f64 = e.iter().sum();
        let mean = row.iter().sum::<f64>() / 6.0;
        let var = row.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 6.0;
        for j in 0..6 {
            assert!((s.as_slice().unwrap()[r * 6 + j] - e[j] / z).abs() < 1e-12);
            let want = (row[j] - mean) / (var + 1e-5).sqrt() * g.as_slice().unwrap()[j]
                + b.as_slice().unwrap()[j];
            assert!((ln.as_slice().unwrap()[r * 6 + j] - want).abs() < 1e-12);
        }
    }
    // f32 softmax of large values does not overflow
    let big = Tensor::<f32>::from_vec(vec![1000.0, 1000.0], &[2])
        .unwrap()
        .softmax(-1)
        .unwrap();
    assert_eq!(big.as_slice().unwrap(), &[0.5, 0.5]);
}

#[test]
fn matmul_matches_naive_for_all_dtypes_and_batches() {
    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for p in 0..k {
                for j in 0..n {
                    c[i * n + j] += a[i * k + p] * b[p * n + j];
                }
            }
        }
        c
    }
    for (m, k, n) in [
        (1, 1, 1),
        (3, 5, 2),
        (17, 33, 9),
        (64, 64, 64),
        (0, 3, 2),
        (2, 0, 3),
    ] {
        let a: Vec<f64> = (0..m * k).map(|i| (i % 7) as f64 - 3.0).collect();
        let b: Vec<f64> = (0..k * n).map(|i| (i % 5) as f64 - 2.0).collect();
        let want = naive(&a, &b, m, k, n);
        let c64 = Tensor::from_slice(&a, &[m, k])
            .unwrap()
            .matmul(&Tensor::from_slice(&b, &[k, n]).unwrap())
            .unwrap();
        assert_eq!(c64.as_slice().unwrap(), &want[..]);
        let af: Vec<f32> = a.iter().map(|x| *x as f32).collect();
        let bf: Vec<f32> = b.iter().map(|x| *x as f32).collect();
        let c32 = Tensor::from_slice(&af, &[m, k])
            .unwrap()
            .matmul(&Tensor::from_slice(&bf, &[k, n]).unwrap())
            .unwrap();
        assert!(c32
            .as_slice()
            .unwrap()
            .iter()
            .zip(&want)
            .all(|(x, y)| (f64::from(*x) - y).abs() < 1e-3));
        let ai: Vec<i32> = a.iter().map(|x| *x as i32).collect();
        let bi: Vec<i32> = b.iter().map(|x| *x as i32).collect();
        let ci = Tensor::from_slice(&ai, &[m, k])
            .unwrap()
            .matmul(&Tensor::from_slice(&bi, &[k, n]).unwrap())
            .unwrap();
        assert!(ci
            .as_slice()
            .unwrap()
            .iter()
            .zip(&want)
            .all(|(x, y)| f64::from(*x) == *y));
    }
    // batched with broadcasting: [2,3,4] @ [4,5] and [2,1,3,4] @ [3,4,5]
    let a: Vec<f64> = (0..24).map(f64::from).collect();
    let b: Vec<f64> = (0..20).map(|i| f64::from(i % 3)).collect();
    let ta = Tensor::from_slice(&a, &[2, 3, 4]).unwrap();
    let tb = Tensor::from_slice(&b, &[4, 5]).unwrap();
    let c = ta.matmul(&tb).unwrap();
    assert_eq!(c.shape(), &[2, 3, 5]);
    for bi in 0..2 {
        let want = naive(&a[bi * 12..(bi + 1) * 12], &b, 3, 4, 5);
        assert_eq!(&c.as_slice().unwrap()[bi * 15..(bi + 1) * 15], &want[..]);
    }
    let b3: Vec<f64> = (0..60).map(|i| f64::from(i % 4)).collect();
    let c2 = ta
        .reshape(&[2, 1, 3, 4])
        .unwrap()
        .matmul(&Tensor::from_slice(&b3, &[3, 4, 5]).unwrap())
        .unwrap();
    assert_eq!(c2.shape(), &[2, 3, 3, 5]);
    for i in 0..2 {
        for j in 0..3 {
            let want = naive(&a[i * 12..(i + 1) * 12], &b3[j * 20..(j + 1) * 20], 3, 4, 5);
            let off = (i * 3 + j) * 15;
            assert_eq!(&c2.as_slice().unwrap()[off..off + 15], &want[..]);
        }
    }
    // 1-d operands and mismatches
    let v = Tensor::from_slice(&[1.0, 2.0, 3.0, 4.0], &[4]).unwrap();
    assert_eq!(ta.matmul(&v).unwrap().shape(), &[2, 3]);
    assert!(v.matmul(&ta).is_err());
}

#[test]
fn large_tensors_split_across_threads_match_serial() {
    let n = kernels::GRAIN * 5 + 13;
    let v: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0)
        .collect();
    let t = Tensor::from_slice(&v, &[n]).unwrap();
    let g = t.gelu_ref().unwrap();
    for (x, y) in v.iter().zip(g.as_slice().unwrap()) {
        close_tol(
            false,
            *y,
            ref_unary(UnaryOp::Gelu, f64::from(*x)),
            *x,
            GELU_TOL,
            1e-30,
        )
        .unwrap();
    }
    let two = (&t + &t).unwrap();
    assert!(two
        .as_slice()
        .unwrap()
        .iter()
        .zip(&v)
        .all(|(a, b)| *a == 2.0 * b));
}

/// Few long rows (one, for operands of the same shape; two or three under
/// broadcasting): each row is split into pieces across the pool. Every
/// element lands where the serial loop puts it, for a fresh output and
/// for each operand written in place, with a non-commutative op so that a
/// swapped side shows. Run on a pool of three workers, so the split is
/// taken whatever the machine's CPU count.
#[test]
fn few_long_rows_split_within_rows_match_serial() {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let m = kernels::GRAIN + kernels::GRAIN / 3 + 7; // pieces of unequal length
    let val = |i: usize| ((i * 7919) % 1000) as f32 / 8.0 - 60.0;
    pool.install(|| {
        for (a_shape, b_shape, out) in [
            (vec![m], vec![m], vec![m]),
            (vec![2, m], vec![m], vec![2, m]),
            (vec![3, m], vec![1], vec![3, m]),
            (vec![1], vec![2, m], vec![2, m]),
        ] {
            let na: usize = a_shape.iter().product();
            let nb: usize = b_shape.iter().product();
            let n: usize = out.iter().product();
            let a: Vec<f32> = (0..na).map(val).collect();
            let b: Vec<f32> = (0..nb).map(|i| val(i + 31)).collect();
            let run = out[out.len() - 1];
            let want: Vec<f32> = (0..n)
                .map(|k| {
                    let x = if na == 1 {
                        a[0]
                    } else if na == n {
                        a[k]
                    } else {
                        a[k % run]
                    };
                    let y = if nb == 1 {
                        b[0]
                    } else if nb == n {
                        b[k]
                    } else {
                        b[k % run]
                    };
                    x - y
                })
                .collect();
            let mut dst = vec![MaybeUninit::<f32>::uninit(); n];
            kernels::binary(
                BinaryOp::Sub,
                &a,
                &a_shape,
                &b,
                &b_shape,
                &out,
                BinaryDst::New(&mut dst),
                None,
            )
            .unwrap();
            // SAFETY: `binary` wrote every element of `dst`.
            let got: Vec<f32> = dst.iter().map(|d| unsafe { d.assume_init() }).collect();
            assert!(
                got == want,
                "fresh output, shapes {a_shape:?} - {b_shape:?}"
            );
            if na == n {
                let mut io = a.clone();
                kernels::binary(
                    BinaryOp::Sub,
                    &[],
                    &a_shape,
                    &b,
                    &b_shape,
                    &out,
                    BinaryDst::Lhs,
                    Some(&mut io),
                )
                .unwrap();
                assert!(
                    io == want,
                    "into the left operand, shapes {a_shape:?} - {b_shape:?}"
                );
            }
            if nb == n {
                let mut io = b.clone();
                kernels::binary(
                    BinaryOp::Sub,
                    &a,
                    &a_shape,
                    &[],
                    &b_shape,
                    &out,
                    BinaryDst::Rhs,
                    Some(&mut io),
                )
                .unwrap();
                assert!(
                    io == want,
                    "into the right operand, shapes {a_shape:?} - {b_shape:?}"
                );
            }
        }
    });
}

/// The element-wise functions beyond the hot ops (`Func`: `sin`, `floor`,
/// `atan2`, the comparisons, ...) split large inputs across the pool as
/// the hot ops do: every element equals the serial formula, for one
/// operand, two of one shape, a broadcast row and a broadcast scalar,
/// with a bool result too. On a pool of three workers, so the split is
/// taken whatever the machine's CPU count.
#[test]
fn large_func_kernels_split_across_threads_match_serial() {
    use donate::kernels::Func;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let m = kernels::GRAIN + kernels::GRAIN / 3 + 7;
    let val = |i: usize| ((i * 7919) % 1000) as f64 / 8.0 - 60.0;
    pool.install(|| {
        let x: Vec<f64> = (0..2 * m).map(val).collect();
        let t = Tensor::from_slice(&x, &[2, m]).unwrap();
        let floor = t.func(Func::Floor, None).unwrap();
        assert!(
            floor.typed::<f64>("test").unwrap().to_vec().unwrap()
                == x.iter().map(|v| v.floor()).collect::<Vec<_>>()
        );
        let sin = t.func(Func::Sin, None).unwrap();
        assert!(
            sin.typed::<f64>("test").unwrap().to_vec().unwrap()
                == x.iter().map(|v| v.sin()).collect::<Vec<_>>()
        );
        let row: Vec<f64> = (0..m).map(|i| val(i + 5)).collect();
        let r = Tensor::from_slice(&row, &[m]).unwrap();
        let one = Tensor::from_slice(&[0.5], &[1]).unwrap();
        let flat = Tensor::from_slice(&x[..m], &[m]).unwrap();
        for (a, b, ashape, bshape) in [
            (&flat, &r, m, m),    // one shape: one run, split in pieces
            (&t, &r, 2 * m, m),   // a broadcast row
            (&t, &one, 2 * m, 1), // a broadcast scalar
        ] {
            let av = a.to_vec().unwrap();
            let bv = b.to_vec().unwrap();
            let bat = |k: usize| if bshape == 1 { bv[0] } else { bv[k % m] };
            let got = a.func(Func::Atan2, Some(b)).unwrap();
            let want: Vec<f64> = (0..ashape).map(|k| av[k].atan2(bat(k))).collect();
            assert!(
                got.typed::<f64>("test").unwrap().to_vec().unwrap() == want,
                "atan2 of {ashape} by {bshape}"
            );
            let less = a.func(Func::Less, Some(b)).unwrap();
            let want: Vec<bool> = (0..ashape).map(|k| av[k] < bat(k)).collect();
            assert!(
                less.typed::<bool>("test").unwrap().to_vec().unwrap() == want,
                "less of {ashape} by {bshape}"
            );
        }
    });
}

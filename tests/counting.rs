//! `bincount` with its length given (`functions/counting.rs`): NumPy's
//! counts and per-bin sums, added in order; every index checked; and the
//! planner's casts of narrow indices and weights.

use donate::functions::counting::{bincount, bincount_signature, weights_dtype};
use donate::plan::{plan, FreshOp, Op, OperandDesc, Purpose};
use donate::{DType, DynTensor, Meta, Tensor};

fn i64s(v: &[i64]) -> DynTensor {
    DynTensor::from(Tensor::<i64>::from_vec(v.to_vec(), &[v.len()]).unwrap())
}

#[test]
fn counts_and_weighted_sums_per_bin() {
    let x = i64s(&[0, 1, 1, 3, 1]);
    let c = bincount(&x, None, 5).unwrap();
    assert_eq!(c.dtype(), DType::I64);
    assert_eq!(
        c.typed::<i64>("t").unwrap().to_vec().unwrap(),
        [1, 3, 0, 1, 0]
    );
    // A small weight after a large one in another bin keeps its digits,
    // and a bin adds its weights in their order (NumPy's sums).
    let w =
        DynTensor::from(Tensor::<f64>::from_vec(vec![1e17, 1.0, 2.5, 0.25, 0.1], &[5]).unwrap());
    let s = bincount(&x, Some(&w), 4).unwrap();
    let want = [1e17, 1.0 + 2.5 + 0.1, 0.0, 0.25];
    assert_eq!(s.typed::<f64>("t").unwrap().to_vec().unwrap(), want);
}

#[test]
fn an_index_outside_the_bins_is_an_error() {
    for bad in [-1, 3] {
        let err = bincount(&i64s(&[0, bad]), None, 3).unwrap_err();
        assert!(err.to_string().contains(&bad.to_string()), "{err}");
    }
}

#[test]
fn integer_weights_sum_in_int64_and_the_signature_checks_shapes() {
    assert_eq!(weights_dtype(DType::U8), DType::I64);
    assert_eq!(weights_dtype(DType::F32), DType::F64);
    assert_eq!(weights_dtype(DType::C64), DType::C128);
    let s = [3];
    let x = Meta::new(DType::I32, &s);
    assert_eq!(
        bincount_signature(x, Some(Meta::new(DType::F32, &s)), 7).unwrap(),
        (DType::F64, vec![7])
    );
    let two = [2];
    assert!(bincount_signature(x, Some(Meta::new(DType::F64, &two)), 7).is_err());
    assert!(bincount_signature(Meta::new(DType::F64, &s), None, 7).is_err());
}

#[test]
fn the_plan_casts_narrow_indices_and_weights_first() {
    let s = [4];
    let op = Op::Fresh(Box::new(FreshOp::Bincount {
        length: 6,
        weighted: true,
    }));
    let p = plan(
        &op,
        &[
            OperandDesc::tensor(DType::U8, &s),
            OperandDesc::tensor(DType::F32, &s),
        ],
    )
    .unwrap();
    assert_eq!(p.dtype, DType::F64, "{p}");
    assert_eq!(p.casts.as_slice(), [0, 1], "{p}");
    assert!(p
        .allocations
        .iter()
        .any(|a| a.purpose == Purpose::Result && a.bytes == 48));
}

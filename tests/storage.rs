//! float16, the storage dtype, in the core: the planner's one rule
//! (`plan/storage.rs`: moves read float16 as it is, computations read it
//! as float32 through planned casts and round a float16 result once into
//! a new buffer) and its execution, as plain data and values.

use donate::driver::execute::{execute, execute_in_place, Arg};
use donate::plan::{
    plan, plan_in_place, storage, Holders, Offer, Op, OperandDesc, Purpose, Refusal,
};
use donate::{BinaryOp, DType, DynTensor, Tensor, UnaryOp, F16};

fn h(v: &[f64]) -> DynTensor {
    let data: Vec<F16> = v.iter().map(|&x| F16::from_f64(x)).collect();
    DynTensor::from(Tensor::<F16>::from_vec(data, &[v.len()]).unwrap())
}

fn values(t: &DynTensor) -> Vec<f64> {
    let t = t.typed::<F16>("t").unwrap();
    t.to_vec().unwrap().iter().map(|x| x.to_f64()).collect()
}

fn desc(t: &DynTensor) -> OperandDesc<'_> {
    OperandDesc::tensor(t.dtype(), t.shape())
}

#[test]
fn a_computation_casts_float16_operands_and_allocates_the_float32_result_aside() {
    let s = [4];
    let x = OperandDesc::tensor(DType::F16, &s).offered(Offer::Donated, Holders::Exclusive);
    let y = OperandDesc::tensor(DType::F16, &s);
    let p = plan(&Op::Binary(BinaryOp::Add), &[x, y]).unwrap();
    assert_eq!((p.dtype, p.compute), (DType::F16, DType::F16), "{p}");
    assert_eq!(p.casts.as_slice(), [0, 1], "{p}");
    assert_eq!(p.read_dtype(0, DType::F16), DType::F32);
    assert_eq!(p.target, None, "{p}");
    assert_eq!(p.refusals.as_slice(), [(0, Refusal::Storage(DType::F16))]);
    let mut allocs: Vec<(Purpose, usize)> =
        p.allocations.iter().map(|a| (a.purpose, a.bytes)).collect();
    allocs.sort_by_key(|a| format!("{a:?}"));
    assert_eq!(
        allocs,
        [
            (Purpose::Cast(0), 16),
            (Purpose::Cast(1), 16),
            (Purpose::Result, 8),
            (Purpose::Scratch, 16)
        ]
    );
    assert!(storage::narrows(&p) && storage::computes_in_storage(&p));
    let text = p.to_string();
    assert!(
        text.contains("float16 is a storage dtype: the result is computed in float32"),
        "{text}"
    );
}

#[test]
fn promotion_is_numpys_and_a_float32_operand_makes_a_float32_result() {
    let s = [2];
    let add = Op::Binary(BinaryOp::Add);
    let with = |d: DType| {
        plan(
            &add,
            &[
                OperandDesc::tensor(DType::F16, &s),
                OperandDesc::tensor(d, &s),
            ],
        )
        .unwrap()
        .dtype
    };
    assert_eq!(with(DType::I8), DType::F16);
    assert_eq!(with(DType::U8), DType::F16);
    assert_eq!(with(DType::Bool), DType::F16);
    assert_eq!(with(DType::I16), DType::F32);
    assert_eq!(with(DType::F32), DType::F32);
    assert_eq!(with(DType::I32), DType::F64);
    assert_eq!(with(DType::C64), DType::C64);
    // float16 with float32: an ordinary float32 plan over a cast.
    let p = plan(
        &add,
        &[
            OperandDesc::tensor(DType::F16, &s),
            OperandDesc::tensor(DType::F32, &s),
        ],
    )
    .unwrap();
    assert!(!storage::narrows(&p) && !storage::computes_in_storage(&p));
    assert_eq!(p.casts.as_slice(), [0]);
    // A float function of int8 is float32, never float16.
    assert_eq!(DType::I8.float_result(), DType::F32);
    assert_eq!(DType::F16.float_result(), DType::F16);
}

#[test]
fn moves_read_float16_as_it_is() {
    let s = [2, 3];
    let x = OperandDesc::tensor(DType::F16, &s).offered(Offer::Temporary, Holders::Exclusive);
    let p = plan(&Op::Reshape { shape: vec![3, 2] }, &[x]).unwrap();
    assert!(p.casts.is_empty() && p.allocations.is_empty(), "{p}");
    assert_eq!(p.dtype, DType::F16);
    let p = plan(&Op::Cast { dtype: DType::F32 }, &[desc(&h(&[1.0]))]).unwrap();
    assert!(p.casts.is_empty(), "{p}");
}

#[test]
#[allow(clippy::float_cmp)] // exact values
fn execution_rounds_once_and_numbers_are_float16_first() {
    let x = h(&[1.0, 2049.0, 65504.0, -0.5]);
    let run = |op: Op, xs: Vec<DynTensor>, s: Option<donate::Scalar>| {
        let mut descs: Vec<OperandDesc<'_>> = xs.iter().map(desc).collect();
        let mut args: Vec<Arg<'_>> = xs.iter().cloned().map(Arg::Tensor).collect();
        if let Some(s) = s {
            descs.push(OperandDesc::scalar(s));
            args.push(Arg::Scalar(s));
        }
        let p = plan(&op, &descs).unwrap();
        execute(&p, &mut args).unwrap()
    };
    let (r, outcome) = run(Op::Binary(BinaryOp::Add), vec![x.clone(), x.clone()], None);
    assert_eq!(r.dtype(), DType::F16);
    assert_eq!(values(&r), [2.0, 4096.0, f64::INFINITY, -1.0]);
    assert_eq!(outcome.reused, None);
    // `x * 0.1` multiplies by float16's 0.1 (0.0999755859375), as NumPy.
    let (r, _) = run(
        Op::Binary(BinaryOp::Mul),
        vec![h(&[1.0])],
        Some(donate::Scalar::Float(0.1)),
    );
    assert_eq!(values(&r), [0.099_975_585_937_5]);
    let (r, _) = run(Op::Unary(UnaryOp::Exp), vec![h(&[0.0, 1.0])], None);
    assert_eq!(values(&r), [1.0, 2.71875]);
    // A bool result of a comparison: no float16 anywhere.
    let (r, _) = run(
        Op::Func(donate::kernels::Func::Less),
        vec![h(&[0.09997, 0.1])],
        Some(donate::Scalar::Float(0.1)),
    );
    assert_eq!(
        r.typed::<bool>("t").unwrap().to_vec().unwrap(),
        [false, false]
    );
}

#[test]
fn in_place_rounds_into_the_tensors_own_buffer() {
    let mut x = h(&[1.0, 2.0, 3.0]);
    let before = x.buffer_ptr();
    let descs = [
        desc(&x).offered(Offer::Donated, Holders::from(x.ownership())),
        OperandDesc::scalar(donate::Scalar::Float(0.5)),
    ];
    let p = plan_in_place(&Op::Binary(BinaryOp::Add), &descs).unwrap();
    let mut args = [Arg::Held(&mut x), Arg::Scalar(donate::Scalar::Float(0.5))];
    execute_in_place(&p, &mut args).unwrap();
    assert_eq!(x.buffer_ptr(), before);
    assert_eq!(values(&x), [1.5, 2.5, 3.5]);
    let p = plan_in_place(&Op::Unary(UnaryOp::Neg), &[desc(&x)]).unwrap();
    execute_in_place(&p, &mut [Arg::Held(&mut x)]).unwrap();
    assert_eq!(values(&x), [-1.5, -2.5, -3.5]);
}

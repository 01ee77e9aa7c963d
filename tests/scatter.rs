//! `Op::Scatter`, the core of assignment through integer arrays: `x` with
//! the elements at C-order positions replaced by a value broadcast to the
//! positions' shape. In place it writes the target's own buffer when that
//! is exclusive (else copies on write); as a function it writes over a
//! temporary `x` or into a new buffer. Bad positions fail before anything
//! is written.

use donate::driver::execute::{execute, execute_in_place, Arg};
use donate::plan::{plan, plan_in_place, Holders, Offer, Op, OperandDesc};
use donate::{DType, DynTensor, Error, Index, Scalar, Tensor};

fn iota(n: usize) -> DynTensor {
    DynTensor::from(Tensor::from_vec((0..n).map(|i| i as f32).collect(), &[n]).unwrap())
}

fn values(t: &DynTensor) -> Vec<f32> {
    t.typed::<f32>("test").unwrap().to_vec().unwrap()
}

fn positions(p: &[i64], shape: &[usize]) -> DynTensor {
    DynTensor::from(Tensor::from_vec(p.to_vec(), shape).unwrap())
}

fn in_place(t: &mut DynTensor, pos: &DynTensor, value: Arg<'_>) -> Result<(), Error> {
    let v = match &value {
        Arg::Scalar(s) => OperandDesc::scalar(*s),
        Arg::Tensor(v) => OperandDesc::tensor(v.dtype(), v.shape()),
        Arg::Held(_) | Arg::Target => unreachable!(),
    };
    let shape = t.shape().to_vec();
    let p = plan_in_place(
        &Op::Scatter,
        &[
            OperandDesc::tensor(t.dtype(), &shape),
            OperandDesc::tensor(pos.dtype(), pos.shape()),
            v,
        ],
    )?;
    execute_in_place(&p, &mut [Arg::Held(t), Arg::Tensor(pos.clone()), value]).map(drop)
}

#[test]
fn in_place_writes_the_exclusive_buffer_and_the_last_repeat_wins() {
    let mut t = iota(6);
    let before = t.buffer_ptr();
    let pos = positions(&[4, 1, 4], &[3]);
    let v = DynTensor::from(Tensor::from_vec(vec![10.0f32, 20.0, 30.0], &[3]).unwrap());
    in_place(&mut t, &pos, Arg::Tensor(v)).unwrap();
    assert_eq!(t.buffer_ptr(), before);
    assert_eq!(values(&t), [0.0, 20.0, 2.0, 3.0, 30.0, 5.0]);
}

#[test]
fn the_value_broadcasts_and_positions_of_another_integer_dtype_are_read_as_int64() {
    let mut t = iota(6);
    let pos = DynTensor::from(Tensor::from_vec(vec![0i32, 5, 2, 3], &[2, 2]).unwrap());
    let v = DynTensor::from(Tensor::from_vec(vec![-1.0f32, -2.0], &[2]).unwrap());
    in_place(&mut t, &pos, Arg::Tensor(v)).unwrap();
    assert_eq!(values(&t), [-1.0, 1.0, -1.0, -2.0, 4.0, -2.0]);
    in_place(&mut t, &pos, Arg::Scalar(Scalar::Int(7))).unwrap();
    assert_eq!(values(&t), [7.0, 1.0, 7.0, 7.0, 4.0, 7.0]);
}

#[test]
fn a_shared_target_is_copied_on_write_and_its_view_keeps_the_old_values() {
    let mut t = iota(4);
    let view = t.index(&[Index::Int(1)]).unwrap();
    let before = t.buffer_ptr();
    in_place(
        &mut t,
        &positions(&[1], &[1]),
        Arg::Scalar(Scalar::Float(9.0)),
    )
    .unwrap();
    assert_ne!(t.buffer_ptr(), before);
    assert_eq!(values(&t), [0.0, 9.0, 2.0, 3.0]);
    assert_eq!(values(&view), [1.0]);
}

#[test]
fn a_position_out_of_range_fails_and_writes_nothing() {
    let mut t = iota(3);
    for bad in [3, -1] {
        let e = in_place(
            &mut t,
            &positions(&[0, bad], &[2]),
            Arg::Scalar(Scalar::Float(9.0)),
        )
        .unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        assert_eq!(values(&t), [0.0, 1.0, 2.0]);
    }
}

#[test]
fn as_a_function_it_writes_over_a_temporary_or_into_a_new_buffer() {
    let pos = positions(&[2], &[1]);
    for offer in [Offer::Temporary, Offer::Borrowed] {
        let x = iota(3);
        let before = x.buffer_ptr();
        let p = plan(
            &Op::Scatter,
            &[
                OperandDesc::tensor(DType::F32, &[3]).offered(offer, Holders::Exclusive),
                OperandDesc::tensor(DType::I64, &[1]),
                OperandDesc::scalar(Scalar::Float(-5.0)),
            ],
        )
        .unwrap();
        let kept = (offer == Offer::Borrowed).then(|| x.clone());
        let (r, _) = execute(
            &p,
            &mut [
                Arg::Tensor(x),
                Arg::Tensor(pos.clone()),
                Arg::Scalar(Scalar::Float(-5.0)),
            ],
        )
        .unwrap();
        assert_eq!(values(&r), [0.0, 1.0, -5.0]);
        match kept {
            None => assert_eq!(r.buffer_ptr(), before),
            Some(kept) => {
                assert_ne!(r.buffer_ptr(), before);
                assert_eq!(values(&kept), [0.0, 1.0, 2.0]);
            }
        }
    }
}

#[test]
fn planning_refuses_float_positions_and_a_value_of_another_shape() {
    let e = plan_in_place(
        &Op::Scatter,
        &[
            OperandDesc::tensor(DType::F32, &[4]),
            OperandDesc::tensor(DType::F64, &[2]),
            OperandDesc::scalar(Scalar::Float(0.0)),
        ],
    )
    .unwrap_err();
    assert!(matches!(e, Error::InvalidOperand { .. }), "{e}");
    let e = plan_in_place(
        &Op::Scatter,
        &[
            OperandDesc::tensor(DType::F32, &[4]),
            OperandDesc::tensor(DType::I64, &[2]),
            OperandDesc::tensor(DType::F32, &[3]),
        ],
    )
    .unwrap_err();
    assert!(matches!(e, Error::NotBroadcastableTo { .. }), "{e}");
}

//! Views in the core: a view is one more handle on its base's buffer; it
//! is never donated unless it covers its whole buffer in C order; the
//! planner copies a strided operand into C order only for kernels that
//! need contiguous data, and that copy may receive the result; writes
//! through either holder copy on write.

use donate::driver::execute::{execute, execute_in_place, Arg};
use donate::plan::{
    plan, plan_in_place, Coverage, Holders, Offer, Op, OperandDesc, Purpose, Refusal,
};
use donate::{memory_stats, DType, DynTensor, Error, Index, Tensor, UnaryOp};

// The memory statistics are process-wide: the tests of this file (a
// process of its own) run one at a time, so the allocation counts are
// theirs alone.
static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn iota(shape: &[usize]) -> Tensor<f32> {
    let n: usize = shape.iter().product();
    Tensor::from_vec((0..n).map(|i| i as f32).collect(), shape).unwrap()
}

fn all() -> Index {
    Index::Slice {
        start: None,
        stop: None,
        step: 1,
    }
}

#[test]
fn views_share_the_buffer_and_count_as_holders() {
    let _g = lock();
    let t = iota(&[3, 4]);
    let row = t.index(&[Index::Int(1)]).unwrap();
    let tr = t.permuted_view(&[1, 0]).unwrap();
    assert!(row.shares_buffer_with(&t) && tr.shares_buffer_with(&t));
    assert_eq!(t.ownership().handles, 3);
    assert_eq!(row.to_vec().unwrap(), vec![4.0, 5.0, 6.0, 7.0]);
    assert_eq!(
        row.data_ptr().unwrap() as usize - t.data_ptr().unwrap() as usize,
        16
    );
    assert_eq!(tr.to_vec().unwrap()[..4], [0.0, 4.0, 8.0, 1.0]);
    // A strided view has no contiguous slice; a row has.
    assert!(matches!(tr.as_slice(), Err(Error::NotContiguous { .. })));
    assert_eq!(row.as_slice().unwrap(), &[4.0, 5.0, 6.0, 7.0]);
    assert_eq!(
        (t.coverage(), row.coverage(), tr.coverage()),
        (Coverage::Whole, Coverage::Part, Coverage::Strided)
    );
}

#[test]
fn only_a_tensor_covering_its_whole_buffer_gives_it_up() {
    let _g = lock();
    let mut row = iota(&[3, 4]).index(&[Index::Int(1)]).unwrap();
    // The base is gone: the row is the only holder, yet part of the buffer.
    assert_eq!(row.ownership().handles, 1);
    assert!(!row.is_exclusively_owned());
    assert!(matches!(row.take_buffer(), Err(Error::PartialView { .. })));
    assert!(!row.is_donated());
    let mut tr = iota(&[3, 4]).permuted_view(&[1, 0]).unwrap();
    assert!(matches!(tr.take_buffer(), Err(Error::PartialView { .. })));
    // A whole, contiguous view (a reshape) does.
    let mut r = iota(&[3, 4]).into_reshape(&[12]).unwrap();
    let p = r.buffer_ptr();
    assert_eq!(r.take_buffer().unwrap().as_ptr(), p.unwrap());
}

#[test]
fn the_planner_refuses_views_and_lets_their_copy_receive_the_result() {
    let _g = lock();
    let shape = [4, 3];
    let desc = |c| {
        OperandDesc::tensor(DType::F32, &shape)
            .offered(Offer::Donated, Holders::Exclusive)
            .covering(c)
    };
    let relu = Op::Unary(UnaryOp::Relu);
    let part = plan(&relu, &[desc(Coverage::Part)]).unwrap();
    assert_eq!(part.target, None);
    assert_eq!(part.refusals[..], [(0, Refusal::View { strided: false })]);
    assert!(part.gathers.is_empty());
    let strided = plan(&relu, &[desc(Coverage::Strided)]).unwrap();
    // Copied into C order, and that copy receives the result: one
    // allocation, not two.
    assert_eq!(strided.gathers[..], [0]);
    assert_eq!(strided.target, Some(0));
    assert_eq!(strided.refusals[..], [(0, Refusal::View { strided: true })]);
    assert_eq!(strided.allocations.len(), 1);
    assert_eq!(strided.allocations[0].purpose, Purpose::Gather(0));
    // Matmul reads strides: no copy.
    let b = [3, 4];
    let mm = plan(
        &Op::Matmul,
        &[
            OperandDesc::tensor(DType::F32, &shape).covering(Coverage::Strided),
            OperandDesc::tensor(DType::F32, &b).covering(Coverage::Strided),
        ],
    )
    .unwrap();
    assert!(mm.gathers.is_empty() && mm.allocations.len() == 1);
    // Attention reads row-strided q, k, v, but not a strided one.
    let q = [2, 5, 8];
    let att = Op::Attention {
        causal: false,
        scale: None,
        mask: false,
    };
    let rows = OperandDesc::tensor(DType::F32, &q).covering(Coverage::Rows);
    let p = plan(&att, &[rows.clone(), rows.clone(), rows.clone()]).unwrap();
    assert!(p.gathers.is_empty());
    let strided = OperandDesc::tensor(DType::F32, &q).covering(Coverage::Strided);
    let p = plan(&att, &[rows.clone(), strided, rows]).unwrap();
    assert_eq!(p.gathers[..], [1]);
}

#[test]
fn execute_gathers_once_and_writes_the_result_into_the_copy() {
    let _g = lock();
    let t = DynTensor::from(iota(&[3, 4]));
    let tr = t.permuted_view(&[1, 0]).unwrap();
    let shape = tr.shape().to_vec();
    let d = OperandDesc::tensor(DType::F32, &shape).covering(tr.coverage());
    let p = plan(&Op::Unary(UnaryOp::Neg), &[d]).unwrap();
    let before = memory_stats().allocations;
    let (r, outcome) = execute(&p, &mut [Arg::Tensor(tr.clone())]).unwrap();
    assert_eq!(memory_stats().allocations - before, 1);
    assert_eq!(outcome.reused, Some(0));
    let want: Vec<f32> = vec![
        0.0, -4.0, -8.0, -1.0, -5.0, -9.0, -2.0, -6.0, -10.0, -3.0, -7.0, -11.0,
    ];
    assert_eq!(r.typed::<f32>("test").unwrap().to_vec().unwrap(), want);
    // The view and its base are unchanged.
    assert_eq!(
        tr.typed::<f32>("test").unwrap().to_vec().unwrap()[..2],
        [0.0, 4.0]
    );
}

#[test]
fn setitem_copies_on_write_and_keeps_views() {
    let _g = lock();
    let mut t = DynTensor::from(iota(&[3, 4]));
    let view = t.index(&[Index::Int(0)]).unwrap();
    let index = vec![
        all(),
        Index::Slice {
            start: None,
            stop: None,
            step: -2,
        },
    ];
    let shape = t.shape().to_vec();
    let p = plan_in_place(
        &Op::SetItem { index },
        &[
            OperandDesc::tensor(DType::F32, &shape),
            OperandDesc::scalar(donate::Scalar::Float(-1.0)),
        ],
    )
    .unwrap();
    let old = t.buffer_ptr();
    execute_in_place(
        &p,
        &mut [Arg::Held(&mut t), Arg::Scalar(donate::Scalar::Float(-1.0))],
    )
    .unwrap();
    // Shared with `view`: written into a copy.
    assert_ne!(t.buffer_ptr(), old);
    let got = t.typed::<f32>("test").unwrap().to_vec().unwrap();
    assert_eq!(got[..4], [0.0, -1.0, 2.0, -1.0]);
    assert_eq!(
        view.typed::<f32>("test").unwrap().to_vec().unwrap(),
        vec![0.0, 1.0, 2.0, 3.0]
    );
    // Exclusive now: the next write is in place.
    let now = t.buffer_ptr();
    execute_in_place(
        &p,
        &mut [Arg::Held(&mut t), Arg::Scalar(donate::Scalar::Float(5.0))],
    )
    .unwrap();
    assert_eq!(t.buffer_ptr(), now);
}

#[test]
fn setitem_shape_errors_come_from_planning() {
    let _g = lock();
    let shape = [3, 4];
    let bad = [3];
    let e = plan_in_place(
        &Op::SetItem {
            index: vec![Index::Int(0)],
        },
        &[
            OperandDesc::tensor(DType::F32, &shape),
            OperandDesc::tensor(DType::F32, &bad),
        ],
    )
    .unwrap_err();
    assert!(matches!(e, Error::NotBroadcastableTo { .. }), "{e}");
    let e = plan(
        &Op::SetItem {
            index: vec![Index::Int(0)],
        },
        &[
            OperandDesc::tensor(DType::F32, &shape),
            OperandDesc::tensor(DType::F32, &bad),
        ],
    )
    .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
}

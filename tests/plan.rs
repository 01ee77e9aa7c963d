//! The planner as plain data: `plan` and `plan_in_place` over operand
//! descriptions, no buffers. Every test asserts exact plan fields, the
//! `Display` text or the error variant.

use donate::array::dyn_tensor::Scalar;
use donate::plan::{
    check_scalar, plan, plan_in_place, Allocation, Holders, Kind, Offer, Op, OperandDesc, Plan,
    Purpose, Reduction, Refusal,
};
use donate::{BinaryOp, DType, Error, UnaryOp};
use proptest::prelude::*;

const ADD: Op = Op::Binary(BinaryOp::Add);

fn f32t(shape: &[usize]) -> OperandDesc<'_> {
    OperandDesc::tensor(DType::F32, shape)
}

fn temp(d: OperandDesc<'_>) -> OperandDesc<'_> {
    d.offered(Offer::Temporary, Holders::Exclusive)
}

fn donated(d: OperandDesc<'_>) -> OperandDesc<'_> {
    d.offered(Offer::Donated, Holders::Exclusive)
}

fn result_alloc(bytes: usize) -> Vec<Allocation> {
    vec![Allocation {
        purpose: Purpose::Result,
        bytes,
    }]
}

fn ok(op: &Op, o: &[OperandDesc<'_>]) -> Plan {
    plan(op, o).unwrap_or_else(|e| panic!("{} should plan: {e}", op.name()))
}

// ------------------------------------------------------------ target ---

#[test]
fn leftmost_offered_exclusive_operand_is_the_target() {
    let p = ok(&ADD, &[temp(f32t(&[2, 3])), temp(f32t(&[2, 3]))]);
    assert_eq!(p.target, Some(0));
    assert_eq!(p.dtype, DType::F32);
    assert_eq!(p.shape[..], [2, 3]);
    assert_eq!(p.offers[..], [Offer::Temporary, Offer::Temporary]);
    assert!(p.casts.is_empty());
    assert_eq!(p.refusals[..], [(1, Refusal::OtherOperandUsed)]);
    assert!(p.allocations.is_empty());
    assert!(!p.in_place);
}

#[test]
fn a_temporary_on_the_right_is_used_when_the_left_is_borrowed() {
    let p = ok(&ADD, &[f32t(&[2, 3]), temp(f32t(&[2, 3]))]);
    assert_eq!(p.target, Some(1));
    assert!(p.refusals.is_empty());
    assert!(p.allocations.is_empty());
}

#[test]
fn two_donated_the_left_is_used_the_right_refused() {
    let p = ok(&ADD, &[donated(f32t(&[4])), donated(f32t(&[4]))]);
    assert_eq!(p.target, Some(0));
    assert_eq!(p.refusals[..], [(1, Refusal::OtherOperandUsed)]);
    assert!(p.allocations.is_empty());
}

#[test]
fn a_shared_donated_operand_is_refused_and_the_result_allocated() {
    let shared = Holders::Shared {
        handles: 2,
        exports: 1,
    };
    let a = f32t(&[2, 3]).offered(Offer::Donated, shared);
    let p = ok(&ADD, &[a, f32t(&[2, 3])]);
    assert_eq!(p.target, None);
    assert_eq!(
        p.refusals[..],
        [(
            0,
            Refusal::Shared {
                handles: 2,
                exports: 1
            }
        )]
    );
    assert_eq!(p.allocations[..], result_alloc(2 * 3 * 4));
    assert_eq!(p.allocated_bytes(), 24);
}

#[test]
fn a_shared_float64_result_allocates_its_byte_size() {
    let a = OperandDesc::tensor(DType::F64, &[5, 7]).offered(
        Offer::Donated,
        Holders::Shared {
            handles: 3,
            exports: 0,
        },
    );
    let p = ok(&Op::Unary(UnaryOp::Relu), &[a]);
    assert_eq!(p.allocations[..], result_alloc(5 * 7 * 8));
}

#[test]
fn busy_and_already_donated_operands_are_refused() {
    let a = f32t(&[2]).offered(Offer::Donated, Holders::Busy);
    let b = f32t(&[2]).offered(Offer::Donated, Holders::Donated);
    let p = ok(&ADD, &[a, b]);
    assert_eq!(p.target, None);
    assert_eq!(p.refusals[..], [(0, Refusal::Busy), (1, Refusal::Donated)]);
}

#[test]
fn a_broadcast_operand_is_refused_for_its_shape() {
    let p = ok(&ADD, &[donated(f32t(&[3])), f32t(&[2, 3])]);
    assert_eq!(p.shape[..], [2, 3]);
    assert_eq!(p.target, None);
    assert_eq!(
        p.refusals[..],
        [(
            0,
            Refusal::Shape {
                operand: vec![3],
                result: vec![2, 3]
            }
        )]
    );
    assert_eq!(p.allocations[..], result_alloc(24));
}

#[test]
fn the_same_tensor_twice_is_never_the_target() {
    let a = donated(f32t(&[2, 2])).with_id(7);
    let b = f32t(&[2, 2]).with_id(7);
    let p = ok(&ADD, &[a, b]);
    assert_eq!(p.target, None);
    assert_eq!(p.refusals[..], [(0, Refusal::SameTensor)]);

    // Different ids: the same shapes are fine.
    let a = donated(f32t(&[2, 2])).with_id(7);
    let b = f32t(&[2, 2]).with_id(8);
    assert_eq!(ok(&ADD, &[a, b]).target, Some(0));
}

#[test]
fn donated_parameters_are_refused() {
    let ln = Op::LayerNorm {
        eps: 1e-5,
        gamma: true,
        beta: true,
    };
    let p = ok(
        &ln,
        &[f32t(&[2, 4]), donated(f32t(&[4])), donated(f32t(&[4]))],
    );
    assert_eq!(p.target, None);
    assert_eq!(
        p.refusals[..],
        [
            (1, Refusal::Parameter("layer_norm")),
            (2, Refusal::Parameter("layer_norm"))
        ]
    );

    let conv = Op::Conv2d {
        stride: 1,
        padding: 1,
        bias: true,
    };
    let p = ok(
        &conv,
        &[
            f32t(&[1, 2, 4, 4]),
            donated(f32t(&[2, 2, 3, 3])),
            donated(f32t(&[2])),
        ],
    );
    assert_eq!(p.target, None);
    assert_eq!(
        p.refusals[..],
        [
            (1, Refusal::Parameter("conv2d")),
            (2, Refusal::Parameter("conv2d"))
        ]
    );

    let bn = Op::BatchNorm {
        eps: 1e-5,
        gamma: false,
        beta: false,
    };
    let p = ok(&bn, &[f32t(&[2, 3, 4]), donated(f32t(&[3])), f32t(&[3])]);
    assert_eq!(p.target, None);
    assert_eq!(p.refusals[..], [(1, Refusal::Parameter("batch_norm"))]);
}

#[test]
fn matmul_and_reductions_always_write_a_new_buffer() {
    let p = ok(&Op::Matmul, &[donated(f32t(&[2, 2])), temp(f32t(&[2, 2]))]);
    assert_eq!(p.target, None);
    assert_eq!(
        p.refusals[..],
        [
            (0, Refusal::NewBuffer("matmul")),
            (1, Refusal::NewBuffer("matmul"))
        ]
    );
    assert_eq!(p.shape[..], [2, 2]);
    assert_eq!(p.allocations[..], result_alloc(16));

    let sum = Op::Reduce {
        kind: Reduction::Sum,
        axis: Some(1),
        keepdims: true,
    };
    let p = ok(&sum, &[donated(f32t(&[3, 1]))]);
    // The result has the input's shape, and still is a new buffer.
    assert_eq!(p.shape[..], [3, 1]);
    assert_eq!(p.target, None);
    assert_eq!(p.refusals[..], [(0, Refusal::NewBuffer("sum"))]);
}

#[test]
fn a_cast_copy_may_receive_the_result() {
    // int32 + float32 is float64 (NumPy): both operands are cast copies,
    // and the leftmost receives the result.
    let a = OperandDesc::tensor(DType::I32, &[2, 3]);
    let p = ok(&ADD, &[a, f32t(&[2, 3])]);
    assert_eq!(p.dtype, DType::F64);
    assert_eq!(p.casts[..], [0, 1]);
    assert_eq!(p.target, Some(0));
    assert!(p.refusals.is_empty());
    assert_eq!(
        p.allocations[..],
        [
            Allocation {
                purpose: Purpose::Cast(0),
                bytes: 48
            },
            Allocation {
                purpose: Purpose::Cast(1),
                bytes: 48
            }
        ]
    );
}

#[test]
fn a_donated_operand_of_another_dtype_is_refused_its_copy_used() {
    let a = donated(OperandDesc::tensor(DType::I32, &[2, 3]));
    let b = OperandDesc::tensor(DType::F64, &[2, 3]);
    let p = ok(&ADD, &[a, b]);
    assert_eq!(p.dtype, DType::F64);
    assert_eq!(p.casts[..], [0]);
    assert_eq!(p.target, Some(0));
    assert_eq!(
        p.refusals[..],
        [(
            0,
            Refusal::DType {
                operand: DType::I32,
                result: DType::F64
            }
        )]
    );
    // The cast copy only: no result allocation.
    assert_eq!(
        p.allocations[..],
        [Allocation {
            purpose: Purpose::Cast(0),
            bytes: 48
        }]
    );
}

// ------------------------------------------------------------ dtypes ---

fn dtype_of(op: &Op, o: &[OperandDesc<'_>]) -> DType {
    ok(op, o).dtype
}

#[test]
fn numpy_promotion_with_weak_scalars() {
    let i32t = OperandDesc::tensor(DType::I32, &[2]);
    let float = OperandDesc::scalar(Scalar::Float(0.5));
    assert_eq!(dtype_of(&ADD, &[i32t.clone(), float]), DType::F64);
    // A weak int keeps the tensor's dtype...
    let small = OperandDesc::scalar(Scalar::Int(2));
    assert_eq!(dtype_of(&ADD, &[i32t.clone(), small]), DType::I32);
    // ... and must fit it (NEP 50).
    let big = OperandDesc::scalar(Scalar::Int(1 << 40));
    assert!(matches!(
        plan(&ADD, &[i32t.clone(), big]),
        Err(Error::ScalarOutOfRange {
            ref value,
            dtype: DType::I32
        }) if value == "1099511627776"
    ));
    // A weak float keeps a float tensor's dtype.
    let f = OperandDesc::scalar(Scalar::Float(0.5));
    assert_eq!(dtype_of(&ADD, &[f32t(&[2]), f]), DType::F32);
    // int32 + int64 tensors promote by the table.
    let i64t = OperandDesc::tensor(DType::I64, &[2]);
    assert_eq!(dtype_of(&ADD, &[i32t, i64t]), DType::I64);
}

#[test]
fn an_int8_operand_meets_float32_as_float32() {
    let i8t = OperandDesc::tensor(DType::I8, &[2]);
    assert_eq!(i8t.kind, Kind::Tensor(DType::I8));
    let p = ok(&ADD, &[f32t(&[2]), i8t]);
    assert_eq!(p.dtype, DType::F32);
    assert_eq!(p.casts[..], [1]);
}

#[test]
fn true_division_of_ints_is_float64() {
    let a = OperandDesc::tensor(DType::I32, &[2]);
    let b = OperandDesc::tensor(DType::I32, &[2]);
    assert_eq!(dtype_of(&Op::Binary(BinaryOp::Div), &[a, b]), DType::F64);
    let a = OperandDesc::tensor(DType::F32, &[2]);
    let b = OperandDesc::tensor(DType::F32, &[2]);
    assert_eq!(dtype_of(&Op::Binary(BinaryOp::Div), &[a, b]), DType::F32);
}

#[test]
fn reductions_and_float_ops_of_ints() {
    let i32t = || OperandDesc::tensor(DType::I32, &[2, 3]);
    let reduce = |kind| Op::Reduce {
        kind,
        axis: None,
        keepdims: false,
    };
    let p = ok(&reduce(Reduction::Sum), &[i32t()]);
    assert_eq!((p.dtype, p.shape.as_slice()), (DType::I64, &[][..]));
    assert_eq!(dtype_of(&reduce(Reduction::Mean), &[i32t()]), DType::F64);
    assert_eq!(dtype_of(&reduce(Reduction::Max), &[i32t()]), DType::I32);
    assert_eq!(dtype_of(&Op::Unary(UnaryOp::Exp), &[i32t()]), DType::F64);
    assert_eq!(dtype_of(&Op::Unary(UnaryOp::Abs), &[i32t()]), DType::I32);
    assert_eq!(dtype_of(&reduce(Reduction::Sum), &[f32t(&[2])]), DType::F32);
}

// -------------------------------------------------------- validation ---

fn invalid_argument(r: Result<Plan, Error>, op_name: &str) {
    match r {
        Err(Error::InvalidArgument { op, .. }) => assert_eq!(op, op_name),
        other => panic!("expected InvalidArgument from {op_name}, got {other:?}"),
    }
}

#[test]
fn softmax_only_on_the_last_axis() {
    let x = [donated(f32t(&[2, 3]))];
    invalid_argument(plan(&Op::Softmax { axis: 0 }, &x), "softmax");
    assert_eq!(ok(&Op::Softmax { axis: -1 }, &x).target, Some(0));
}

#[test]
fn layer_norm_parameters_are_validated() {
    let ln = |eps| Op::LayerNorm {
        eps,
        gamma: true,
        beta: false,
    };
    let x = donated(f32t(&[2, 4]));
    invalid_argument(plan(&ln(1e-5), &[x.clone(), f32t(&[3])]), "layer_norm");
    invalid_argument(plan(&ln(-1.0), &[x.clone(), f32t(&[4])]), "layer_norm");
    invalid_argument(plan(&ln(f64::NAN), &[x.clone(), f32t(&[4])]), "layer_norm");
    assert_eq!(ok(&ln(0.0), &[x, f32t(&[4])]).target, Some(0));
}

#[test]
fn conv2d_bias_shape_is_validated() {
    let conv = Op::Conv2d {
        stride: 1,
        padding: 0,
        bias: true,
    };
    let x = f32t(&[1, 2, 4, 4]);
    let w = f32t(&[3, 2, 1, 1]);
    invalid_argument(plan(&conv, &[x.clone(), w.clone(), f32t(&[2])]), "conv2d");
    assert_eq!(ok(&conv, &[x, w, f32t(&[3])]).shape[..], [1, 3, 4, 4]);
}

#[test]
fn batch_norm_needs_two_axes() {
    let bn = Op::BatchNorm {
        eps: 1e-5,
        gamma: false,
        beta: false,
    };
    invalid_argument(
        plan(&bn, &[donated(f32t(&[3])), f32t(&[3]), f32t(&[3])]),
        "batch_norm",
    );
}

#[test]
fn reshape_is_validated() {
    let x = [donated(f32t(&[2, 3]))];
    let reshape = |shape: &[i64]| Op::Reshape {
        shape: shape.to_vec(),
    };
    invalid_argument(plan(&reshape(&[-1, -1]), &x), "reshape");
    assert!(matches!(
        plan(&reshape(&[4, 2]), &x),
        Err(Error::InvalidShape { op: "reshape", .. })
    ));
    assert_eq!(ok(&reshape(&[3, -1]), &x).shape[..], [3, 2]);
}

#[test]
fn permute_rejects_a_repeated_axis() {
    let x = [f32t(&[2, 3, 4])];
    let permute = |axes: Vec<isize>| Op::Permute { axes: Some(axes) };
    assert!(matches!(
        plan(&permute(vec![0, 1, 0]), &x),
        Err(Error::InvalidShape {
            op: "transpose",
            ..
        })
    ));
    assert_eq!(ok(&permute(vec![2, 0, 1]), &x).shape[..], [4, 2, 3]);
    assert_eq!(ok(&Op::Permute { axes: None }, &x).shape[..], [4, 3, 2]);
}

#[test]
fn in_place_binary_checks_the_dtype_before_the_shape() {
    // The shapes do not even broadcast: the dtype error comes first.
    let x = OperandDesc::tensor(DType::I32, &[2, 3]);
    let r = plan_in_place(&ADD, &[x, f32t(&[4, 5])]);
    assert!(
        matches!(r, Err(Error::InvalidOperand { op: "add", .. })),
        "{r:?}"
    );
}

#[test]
fn in_place_binary_never_broadcasts_its_target() {
    let r = plan_in_place(&ADD, &[f32t(&[3]), f32t(&[2, 3])]);
    match r {
        Err(Error::NotBroadcastableTo { op, from, to }) => {
            assert_eq!((op, from, to), ("add", vec![2, 3], vec![3]));
        }
        other => panic!("expected NotBroadcastableTo, got {other:?}"),
    }
}

#[test]
fn in_place_plans() {
    let p = plan_in_place(&ADD, &[f32t(&[2, 3]), donated(f32t(&[3]))]).unwrap();
    assert!(p.in_place);
    assert_eq!(p.target, Some(0));
    assert_eq!(p.refusals[..], [(1, Refusal::InPlaceTarget("add"))]);
    assert!(p.allocations.is_empty());
    // A shared target is copied on write.
    let x = f32t(&[2, 3]).offered(
        Offer::Borrowed,
        Holders::Shared {
            handles: 2,
            exports: 0,
        },
    );
    let p = plan_in_place(&ADD, &[x, f32t(&[3])]).unwrap();
    assert_eq!(p.allocations[..], result_alloc(24));
    // Ops without an in-place form.
    invalid_argument(
        plan_in_place(&Op::Matmul, &[f32t(&[2, 2]), f32t(&[2, 2])]),
        "matmul",
    );
}

// ------------------------------------------- allocations over inputs ---

#[test]
fn conv2d_over_its_input_allocates_scratch_only() {
    let conv = Op::Conv2d {
        stride: 1,
        padding: 1,
        bias: false,
    };
    let p = ok(&conv, &[temp(f32t(&[1, 2, 4, 4])), f32t(&[2, 2, 3, 3])]);
    assert_eq!(p.shape[..], [1, 2, 4, 4]);
    assert_eq!(p.target, Some(0));
    // One image's column matrix (2·3·3 rows × 4·4) and one image (2·4·4).
    assert_eq!(
        p.allocations[..],
        [Allocation {
            purpose: Purpose::Scratch,
            bytes: (18 * 16 + 32) * 4
        }]
    );
    // Into a new buffer when the input is borrowed: the result and one
    // image's column matrix.
    let p = ok(&conv, &[f32t(&[1, 2, 4, 4]), f32t(&[2, 2, 3, 3])]);
    assert_eq!(p.target, None);
    assert_eq!(
        p.allocations[..],
        [
            Allocation {
                purpose: Purpose::Result,
                bytes: 2 * 16 * 4
            },
            Allocation {
                purpose: Purpose::Scratch,
                bytes: 18 * 16 * 4
            },
        ]
    );
}

#[test]
fn reshape_of_an_exclusive_temporary_moves_it() {
    let reshape = Op::Reshape { shape: vec![3, -1] };
    let p = ok(&reshape, &[temp(f32t(&[2, 3]))]);
    assert_eq!(p.target, Some(0));
    assert!(p.refusals.is_empty());
    assert!(p.allocations.is_empty());
    // Borrowed: still no allocation (the buffer is shared), no target.
    let p = ok(&reshape, &[f32t(&[2, 3])]);
    assert_eq!(p.target, None);
    assert!(p.allocations.is_empty());
}

// ----------------------------------------------------------- Display ---

#[test]
fn display_of_a_binary_plan() {
    let p = ok(&ADD, &[temp(f32t(&[2, 3])), donated(f32t(&[2, 3]))]);
    assert_eq!(
        p.to_string(),
        "add: float32[2,3] written over the left operand; the right operand not used: \
         the other operand's buffer was used instead"
    );
    let p = ok(&ADD, &[donated(f32t(&[3])), f32t(&[2, 3])]);
    assert_eq!(
        p.to_string(),
        "add: float32[2,3] into a new buffer; allocates 24 B for the result; \
         the left operand not used: its shape [3] differs from the result's shape [2, 3]"
    );
}

#[test]
fn display_of_a_conv2d_plan() {
    let conv = Op::Conv2d {
        stride: 1,
        padding: 1,
        bias: false,
    };
    let p = ok(
        &conv,
        &[temp(f32t(&[1, 2, 4, 4])), donated(f32t(&[2, 2, 3, 3]))],
    );
    assert_eq!(
        p.to_string(),
        "conv2d: float32[1,2,4,4] written over the input; 1280 B of scratch; \
         the weight not used: conv2d only writes into its input, never into this operand"
    );
}

// ---------------------------------------------------------- property ---

/// Two shapes that broadcast: a common shape, each side dropping leading
/// axes and setting some axes to 1.
fn broadcasting_pair() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    prop::collection::vec(1usize..4, 0..4).prop_flat_map(|full| {
        let n = full.len();
        (
            Just(full),
            0..=n,
            0..=n,
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(any::<bool>(), n),
        )
            .prop_map(|(full, da, db, ma, mb)| {
                let side = |drop: usize, ones: &[bool]| -> Vec<usize> {
                    (drop..full.len())
                        .map(|i| if ones[i] { 1 } else { full[i] })
                        .collect()
                };
                (side(da, &ma), side(db, &mb))
            })
    })
}

fn offer() -> impl Strategy<Value = Offer> {
    prop_oneof![
        Just(Offer::Borrowed),
        Just(Offer::Temporary),
        Just(Offer::Donated)
    ]
}

fn holders() -> impl Strategy<Value = Holders> {
    prop_oneof![
        Just(Holders::Exclusive),
        (1u32..3, 0u32..2).prop_map(|(h, e)| Holders::Shared {
            handles: h + 1,
            exports: e
        }),
        Just(Holders::Busy),
        Just(Holders::Donated),
    ]
}

proptest! {
    #[test]
    fn the_target_is_the_leftmost_fitting_offer(
        (sa, sb) in broadcasting_pair(),
        oa in offer(), ob in offer(),
        ha in holders(), hb in holders(),
    ) {
        let ops = [f32t(&sa).offered(oa, ha), f32t(&sb).offered(ob, hb)];
        let p = plan(&ADD, &ops).unwrap();
        let fits = |d: &OperandDesc<'_>| {
            d.offer != Offer::Borrowed && d.holders == Holders::Exclusive && d.shape == p.shape.as_slice()
        };
        let expected = ops.iter().position(fits);
        prop_assert_eq!(p.target, expected);
        if let Some(t) = p.target {
            prop_assert!(fits(&ops[t]));
        }
        for (i, d) in ops.iter().enumerate() {
            let n = p.refusals.iter().filter(|(j, _)| *j == i).count();
            let want = usize::from(d.offer != Offer::Borrowed && p.target != Some(i));
            prop_assert_eq!(n, want, "operand {} in {:?}", i, p);
        }
        let want_alloc = if p.target.is_some() { vec![] } else { result_alloc(p.shape.iter().product::<usize>() * 4) };
        prop_assert_eq!(&p.allocations[..], &want_alloc);
    }
}

/// A function of `Op::Fresh` always writes a new buffer: an offered
/// operand is refused with `NewBuffer`; `take`'s indices are read as
/// int64 (a planned cast), its input as it is.
#[test]
fn a_fresh_function_refuses_donations_and_plans_its_index_cast() {
    use donate::plan::FreshOp;
    let op = Op::Fresh(Box::new(FreshOp::Take { axis: Some(0) }));
    let x = OperandDesc::tensor(DType::F32, &[4, 3]).offered(Offer::Donated, Holders::Exclusive);
    let i = OperandDesc::tensor(DType::I32, &[2]);
    let p = plan(&op, &[x, i]).unwrap();
    assert_eq!((p.dtype, &p.shape[..]), (DType::F32, &[2, 3][..]));
    assert_eq!(p.casts.to_vec(), vec![1]);
    assert!(p.gathers.is_empty());
    assert_eq!(p.target, None);
    assert_eq!(p.refusals.to_vec(), vec![(0, Refusal::NewBuffer("take"))]);
    assert_eq!(
        p.allocations.to_vec(),
        vec![
            Allocation {
                purpose: Purpose::Cast(1),
                bytes: 2 * 8
            },
            Allocation {
                purpose: Purpose::Result,
                bytes: 2 * 3 * 4
            }
        ]
    );
    // The signature's checks are the function's: float indices are refused
    // before anything runs.
    let f = OperandDesc::tensor(DType::F32, &[2]);
    assert!(plan(&op, &[OperandDesc::tensor(DType::F32, &[4, 3]), f]).is_err());
}

/// A function that converts an operand (`concat`'s promotion) or reads a
/// strided one has the cast or the C-order copy planned, so that the
/// function allocates nothing but its result: every allocation is in the
/// plan.
#[test]
fn a_fresh_function_has_its_casts_and_copies_planned() {
    use donate::plan::{Coverage, FreshOp};
    let op = Op::Fresh(Box::new(FreshOp::Concat {
        axis: Some(0),
        n: 2,
    }));
    let a = OperandDesc::tensor(DType::F32, &[2, 3]);
    let b = OperandDesc::tensor(DType::F64, &[1, 3]).covering(Coverage::Strided);
    let p = plan(&op, &[a, b]).unwrap();
    assert_eq!((p.dtype, &p.shape[..]), (DType::F64, &[3, 3][..]));
    assert_eq!(p.casts.to_vec(), vec![0]);
    assert!(p.gathers.iter().map(|&g| usize::from(g)).eq([1]));
    assert_eq!(
        p.allocations.to_vec(),
        vec![
            Allocation {
                purpose: Purpose::Cast(0),
                bytes: 6 * 8
            },
            Allocation {
                purpose: Purpose::Gather(1),
                bytes: 3 * 8
            },
            Allocation {
                purpose: Purpose::Result,
                bytes: 9 * 8
            },
        ]
    );
}

/// A comparison of uint64 with a signed integer is exact (NumPy 2's):
/// not through float64, their promoted dtype, which rounds both above
/// 2^53. The plan computes in int64, casts only a narrower signed operand
/// and reads the uint64 one as it is; other comparisons are unchanged.
#[test]
fn uint64_against_signed_integers_compares_exactly() {
    let less = Op::Func(donate::kernels::Func::Less);
    let s = [4usize];
    let p = plan(
        &less,
        &[
            OperandDesc::tensor(DType::U64, &s),
            OperandDesc::tensor(DType::I64, &s),
        ],
    )
    .unwrap();
    assert_eq!((p.dtype, p.compute), (DType::Bool, DType::I64));
    assert!(p.casts.is_empty(), "{p}");
    let p = plan(
        &less,
        &[
            OperandDesc::tensor(DType::I8, &s),
            OperandDesc::tensor(DType::U64, &s),
        ],
    )
    .unwrap();
    assert_eq!((p.compute, p.casts.as_slice()), (DType::I64, &[0][..]));
    // uint64 with a float, or an unsigned integer: the promoted dtype.
    for (other, compute) in [(DType::F32, DType::F64), (DType::U8, DType::U64)] {
        let p = plan(
            &less,
            &[
                OperandDesc::tensor(DType::U64, &s),
                OperandDesc::tensor(other, &s),
            ],
        )
        .unwrap();
        assert_eq!(p.compute, compute);
    }
    // A Python int outside the tensor's dtype: exact too (NumPy 2), the
    // tensor cast to int64, or a uint64 one read as it is.
    for (d, v, casts) in [(DType::U8, 300, &[0][..]), (DType::U64, -1, &[][..])] {
        let p = plan(
            &less,
            &[
                OperandDesc::tensor(d, &s),
                OperandDesc::scalar(Scalar::Int(v)),
            ],
        )
        .unwrap();
        assert_eq!((p.compute, p.casts.as_slice()), (DType::I64, casts));
    }
    // A Python int inside the dtype is weak, as before.
    let p = plan(
        &less,
        &[
            OperandDesc::tensor(DType::U8, &s),
            OperandDesc::scalar(Scalar::Int(255)),
        ],
    )
    .unwrap();
    assert_eq!(p.compute, DType::U8);
    // Arithmetic of the same pair still promotes to float64.
    let p = plan(
        &Op::Binary(BinaryOp::Add),
        &[
            OperandDesc::tensor(DType::U64, &s),
            OperandDesc::tensor(DType::I64, &s),
        ],
    )
    .unwrap();
    assert_eq!(p.dtype, DType::F64);
}

#[test]
fn a_float_written_into_integers_is_truncated_and_must_fit() {
    let fits = |v: f64, d: DType| check_scalar("setitem", Scalar::Float(v), d).is_ok();
    assert!(fits(2.7, DType::I8) && fits(127.9, DType::I8) && fits(-128.9, DType::I8));
    assert!(!fits(128.0, DType::I8) && !fits(-129.0, DType::I8) && !fits(-1.0, DType::U8));
    // int64's and uint64's upper bounds are not floats: 2**63 and 2**64
    // are the first floats past them.
    assert!(
        fits(9_223_372_036_854_774_784.0, DType::I64)
            && !fits(9_223_372_036_854_775_808.0, DType::I64)
    );
    assert!(fits(-9_223_372_036_854_775_808.0, DType::I64));
    assert!(
        fits(18_446_744_073_709_549_568.0, DType::U64)
            && !fits(18_446_744_073_709_551_616.0, DType::U64)
    );
    assert!(matches!(
        check_scalar("setitem", Scalar::Float(300.5), DType::I8),
        Err(Error::ScalarOutOfRange { ref value, dtype: DType::I8 }) if value == "300"
    ));
    // A float dtype takes any float; bool takes its truth value.
    assert!(fits(1e300, DType::F32) && fits(300.5, DType::Bool));
}

//! complex64 and complex128 in the core: promotion, the planner's rule
//! for complex operands (which operations take them, the error for every
//! other), and the conversions that keep or refuse the imaginary part.

use donate::functions::manipulation::concat;
use donate::plan::{plan, result_type, FreshOp, Op, OperandDesc, Reduction};
use donate::{BinaryOp, DType, DynTensor, Error, OperandDType, Tensor, UnaryOp, C32, C64};

fn refused(op: &Op, o: &[OperandDesc<'_>]) -> DType {
    match plan(op, o) {
        Err(Error::UnsupportedDType { op: name, dtype }) => {
            assert_eq!(name, op.name());
            dtype
        }
        other => panic!("{}: expected UnsupportedDType, got {other:?}", op.name()),
    }
}

#[test]
fn complex_promotes_as_numpy() {
    use OperandDType::{Bool, C128, C64, F16, F32, F64, I16, I32, I8, U64, U8};
    for (a, b, want) in [
        (C64, F32, C64),
        (C64, F64, C128),
        (C64, F16, C64),
        (C64, I8, C64),
        (C64, U8, C64),
        (C64, I16, C64),
        (C64, I32, C128),
        (C64, U64, C128),
        (C64, Bool, C64),
        (C64, C128, C128),
        (C128, F32, C128),
    ] {
        assert_eq!(OperandDType::promote(a, b), want, "{a} with {b}");
        assert_eq!(OperandDType::promote(b, a), want, "{b} with {a}");
    }
    let s = [2];
    let d = result_type(&[
        OperandDesc::tensor(DType::C64, &s),
        OperandDesc::tensor(DType::F64, &s),
    ])
    .unwrap();
    assert_eq!(d, DType::C128);
    // Same-kind casting: anything into complex, complex into nothing real.
    for r in DType::ALL {
        assert!(DType::can_cast_same_kind(r, DType::C64), "{r}");
        assert!(!DType::can_cast_same_kind(DType::C128, r), "{r}");
    }
}

#[test]
fn the_planner_refuses_complex_operands_of_every_operation_without_complex_kernels() {
    let s = [2, 3];
    for d in DType::COMPLEX {
        let x = OperandDesc::tensor(d, &s);
        let f = OperandDesc::tensor(DType::F32, &s);
        assert_eq!(refused(&Op::Binary(BinaryOp::Add), &[x, x]), d);
        assert_eq!(refused(&Op::Binary(BinaryOp::Mul), &[f, x]), d);
        assert_eq!(refused(&Op::Unary(UnaryOp::Neg), &[x]), d);
        assert_eq!(
            refused(&Op::Matmul, &[x, OperandDesc::tensor(d, &[3, 2])]),
            d
        );
        for kind in [Reduction::Sum, Reduction::Mean, Reduction::Max] {
            let op = Op::Reduce {
                kind,
                axis: Some(0),
                keepdims: false,
            };
            assert_eq!(refused(&op, &[x]), d);
        }
        // The ones that move or view elements take them.
        for op in [
            Op::Reshape { shape: vec![3, 2] },
            Op::Permute { axes: None },
            Op::Cast { dtype: DType::C128 },
            Op::Fresh(Box::new(FreshOp::Concat {
                axis: Some(0),
                n: 2,
            })),
        ] {
            let n = op.arity();
            let p = plan(&op, &vec![x; n]).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
            assert!(p.dtype.is_complex(), "{}", op.name());
        }
        // astype from complex to real: the standard does not permit it.
        assert!(plan(&Op::Cast { dtype: DType::Bool }, &[x]).is_ok());
        for r in DType::ALL.into_iter().filter(|r| !r.is_bool()) {
            match plan(&Op::Cast { dtype: r }, &[x]) {
                Err(Error::InvalidOperand {
                    op: "astype",
                    reason,
                }) => {
                    assert!(reason.contains("imaginary part"), "{reason}");
                }
                other => panic!("astype {d} to {r}: {other:?}"),
            }
        }
    }
}

#[test]
#[allow(clippy::float_cmp)] // exact values
fn casts_keep_both_parts_and_moves_copy_them() {
    let z = Tensor::<C64>::from_vec(
        vec![
            C64::new(1.5, -2.0),
            C64::new(f64::INFINITY, f64::NAN),
            C64::new(-0.0, 3.0),
        ],
        &[3],
    )
    .unwrap();
    let z = DynTensor::from(z);
    let narrow = z.cast(DType::C64).unwrap();
    let v = narrow.typed::<C32>("test").unwrap().to_vec().unwrap();
    assert_eq!(v[0], C32::new(1.5, -2.0));
    assert!(v[1].re.is_infinite() && v[1].im.is_nan());
    assert!(v[2].re == 0.0 && v[2].re.is_sign_negative() && v[2].im == 3.0);
    let from_int = DynTensor::from(Tensor::<i32>::from_vec(vec![-7, 8], &[2]).unwrap())
        .cast(DType::C128)
        .unwrap();
    assert_eq!(
        from_int.typed::<C64>("test").unwrap().to_vec().unwrap(),
        vec![C64::new(-7.0, 0.0), C64::new(8.0, 0.0)]
    );
    let both = concat(&[&z, &z], Some(0)).unwrap();
    assert_eq!(both.dtype(), DType::C128);
    let w = both.typed::<C64>("test").unwrap().to_vec().unwrap();
    assert_eq!(w.len(), 6);
    assert_eq!(w[3], C64::new(1.5, -2.0));
}

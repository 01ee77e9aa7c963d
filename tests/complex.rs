//! complex64 and complex128 in the core: promotion, the planner's rule
//! for complex operands (which operations take them, the error for every
//! other), and the conversions that keep or refuse the imaginary part.

use donate::functions::manipulation::concat;
use donate::functions::statistics::Statistic;
use donate::kernels::Func;
use donate::plan::{
    plan, plan_in_place, result_type, FreshOp, Op, OperandDesc, Reduction, StatisticOp,
};
use donate::{BinaryOp, DType, DynTensor, Error, Tensor, UnaryOp, C32, C64};

/// The dtype `plan` refuses with `UnsupportedDType` (a `TypeError` in
/// Python), after checking that the error names the operation planned.
fn refused(op: &Op, o: &[OperandDesc<'_>]) -> DType {
    match plan(op, o) {
        Err(e @ Error::UnsupportedDType { .. }) => {
            let Error::UnsupportedDType { op: name, dtype } = e else {
                unreachable!()
            };
            assert_eq!(name, op.name());
            assert_eq!(
                e.to_string(),
                format!("{} is not supported for dtype {dtype}", op.name())
            );
            dtype
        }
        other => panic!("{}: expected UnsupportedDType, got {other:?}", op.name()),
    }
}

#[test]
fn complex_promotes_as_numpy() {
    use DType::{Bool, C128, C64, F16, F32, F64, I16, I32, I64, I8, U16, U64, U8};
    for (a, b, want) in [
        (C64, F32, C64),
        (C64, F64, C128),
        (C64, F16, C64),
        (C64, I8, C64),
        (C64, U8, C64),
        (C64, I16, C64),
        (C64, U16, C64),
        (C64, I32, C128),
        (C64, I64, C128),
        (C64, U64, C128),
        (C64, Bool, C64),
        (C64, C64, C64),
        (C64, C128, C128),
        (C128, F32, C128),
        (C128, I8, C128),
        (C128, Bool, C128),
    ] {
        assert_eq!(DType::promote(a, b), want, "{a} with {b}");
        assert_eq!(DType::promote(b, a), want, "{b} with {a}");
    }
    // Restricted to tensors' dtypes, the same table.
    assert_eq!(DType::promote(DType::C64, DType::F64), DType::C128);
    assert_eq!(DType::promote(DType::I16, DType::C64), DType::C64);
    assert_eq!(DType::promote(DType::C64, DType::I32), DType::C128);
    let s = [2];
    let d = result_type(&[
        OperandDesc::tensor(DType::C64, &s),
        OperandDesc::tensor(DType::F64, &s),
    ])
    .unwrap();
    assert_eq!(d, DType::C128);
}

#[test]
fn same_kind_casting_goes_into_complex_and_never_out_of_it() {
    for r in DType::ALL {
        // Every real dtype casts same-kind into complex128.
        assert!(
            DType::can_cast_same_kind(r, DType::C128),
            "{r} to complex128"
        );
        if !r.is_complex() {
            assert!(
                !DType::can_cast_same_kind(DType::C64, r),
                "complex64 to {r}"
            );
            assert!(
                !DType::can_cast_same_kind(DType::C128, r),
                "complex128 to {r}"
            );
        }
    }
    assert!(DType::can_cast_same_kind(DType::C64, DType::C128));
}

#[test]
fn the_planner_refuses_complex_operands_of_every_operation_without_complex_kernels() {
    let s = [2, 3];
    let t = [3, 2];
    for d in DType::COMPLEX {
        let x = || OperandDesc::tensor(d, &s);
        let f = || OperandDesc::tensor(DType::F32, &s);
        assert_eq!(refused(&Op::Binary(BinaryOp::Maximum), &[x(), x()]), d);
        assert_eq!(refused(&Op::Binary(BinaryOp::Minimum), &[f(), x()]), d);
        assert_eq!(refused(&Op::Unary(UnaryOp::Relu), &[x()]), d);
        assert_eq!(refused(&Op::Func(Func::Floor), &[x()]), d);
        assert_eq!(refused(&Op::Func(Func::Less), &[x(), f()]), d);
        assert_eq!(refused(&Op::Func(Func::Atan2), &[x(), f()]), d);
        // the transcendental functions have complex kernels, of the
        // operand's dtype
        for op in [
            Op::Unary(UnaryOp::Tanh),
            Op::Func(Func::Sin),
            Op::Func(Func::Atanh),
        ] {
            assert_eq!(plan(&op, &[x()]).unwrap().dtype, d);
        }
        assert_eq!(plan(&Op::Func(Func::Pow), &[x(), f()]).unwrap().dtype, d);
        let tensordot = Op::Fresh(Box::new(FreshOp::Linalg(
            donate::functions::linalg::LinalgOp::Tensordot {
                axes: donate::functions::linalg::TensordotAxes::Last(1),
            },
        )));
        // the sums of products and the decompositions take complex
        // operands
        let p = plan(&tensordot, &[x(), OperandDesc::tensor(d, &t)]).unwrap();
        assert_eq!((p.dtype, p.shape.as_slice()), (d, &[2, 2][..]));
        let det = Op::Fresh(Box::new(FreshOp::Linalg(
            donate::functions::linalg::LinalgOp::Det,
        )));
        let p = plan(&det, &[OperandDesc::tensor(d, &[2, 2])]).unwrap();
        assert_eq!((p.dtype, p.shape.as_slice()), (d, &[][..]));
        // the eigenvalues of a Hermitian matrix are real
        let eigvalsh = Op::Fresh(Box::new(FreshOp::Linalg(
            donate::functions::linalg::LinalgOp::Eigvalsh,
        )));
        let p = plan(&eigvalsh, &[OperandDesc::tensor(d, &[2, 2])]).unwrap();
        assert_eq!(p.dtype, d.real_dtype());
        // matmul has gemm's complex kernels
        let p = plan(&Op::Matmul, &[x(), OperandDesc::tensor(d, &t)]).unwrap();
        assert_eq!((p.dtype, p.shape.as_slice()), (d, &[2, 2][..]));
        let op = Op::Reduce {
            kind: Reduction::Max,
            axis: Some(0),
            keepdims: false,
        };
        assert_eq!(refused(&op, &[x()]), d);
        // In place too: refused before anything is written.
        let op = Op::Binary(BinaryOp::Maximum);
        match plan_in_place(&op, &[x(), x()]) {
            Err(Error::UnsupportedDType {
                op: "maximum",
                dtype,
            }) => assert_eq!(dtype, d),
            other => panic!("in-place maximum of {d}: {other:?}"),
        }
    }
}

#[test]
fn complex_arithmetic_is_planned_with_numpys_dtypes() {
    let s = [2, 3];
    let row = [3];
    for d in DType::COMPLEX {
        let x = || OperandDesc::tensor(d, &s);
        let dtype = |op: Op, o: &[OperandDesc<'_>]| plan(&op, o).unwrap().dtype;
        for b in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div] {
            assert_eq!(dtype(Op::Binary(b), &[x(), x()]), d);
            let p = plan(
                &Op::Binary(b),
                &[x(), OperandDesc::tensor(DType::F64, &row)],
            )
            .unwrap();
            assert_eq!(p.dtype, DType::C128, "{d} {b:?} float64");
            assert_eq!(p.shape.as_slice(), &s);
            // An integer divided by complex is complex, not NumPy's
            // float64 of integer division.
            let i = OperandDesc::tensor(DType::I8, &s);
            assert_eq!(dtype(Op::Binary(b), &[i, x()]), d);
        }
        assert_eq!(dtype(Op::Unary(UnaryOp::Neg), &[x()]), d);
        assert_eq!(dtype(Op::Unary(UnaryOp::Abs), &[x()]), d.real_dtype());
        assert_eq!(dtype(Op::Func(Func::Real), &[x()]), d.real_dtype());
        assert_eq!(dtype(Op::Func(Func::Imag), &[x()]), d.real_dtype());
        assert_eq!(dtype(Op::Func(Func::Conj), &[x()]), d);
        assert_eq!(dtype(Op::Func(Func::Equal), &[x(), x()]), DType::Bool);
        assert_eq!(dtype(Op::Func(Func::IsNan), &[x()]), DType::Bool);
        // `abs` of a complex tensor in place would write a real result
        // into it.
        assert!(plan_in_place(&Op::Unary(UnaryOp::Abs), &[x()]).is_err());
    }
}

#[test]
#[allow(clippy::float_cmp)] // exact values
fn complex_arithmetic_computes_numpys_values_and_reuses_a_donated_buffer() {
    use donate::driver::execute::{execute, Arg};
    use donate::plan::Holders;
    use donate::Offer;
    fn desc(t: &DynTensor) -> OperandDesc<'_> {
        OperandDesc::tensor(t.dtype(), t.shape())
    }
    let a = Tensor::<C64>::from_vec(
        vec![C64::new(1.0, 2.0), C64::new(-3.0, 0.5), C64::new(0.0, 0.0)],
        &[3],
    )
    .unwrap();
    let b = Tensor::<C64>::from_vec(
        vec![
            C64::new(3.0, 4.0),
            C64::new(2.0, -1.0),
            C64::new(1e300, 1e300),
        ],
        &[3],
    )
    .unwrap();
    let run = |op: Op, xs: Vec<DynTensor>| -> (DynTensor, donate::Outcome) {
        let descs: Vec<OperandDesc<'_>> = xs.iter().map(desc).collect();
        let p = plan(&op, &descs).unwrap();
        let mut args: Vec<Arg<'_>> = xs.iter().cloned().map(Arg::Tensor).collect();
        execute(&p, &mut args).unwrap()
    };
    let (da, db) = (DynTensor::from(a.clone()), DynTensor::from(b.clone()));
    let (q, _) = run(Op::Binary(BinaryOp::Div), vec![da.clone(), db.clone()]);
    let q = q.typed::<C64>("t").unwrap().to_vec().unwrap();
    assert_eq!(q[0], C64::new(0.44, 0.08));
    assert_eq!(q[2], C64::new(0.0, 0.0));
    let (m, _) = run(Op::Binary(BinaryOp::Mul), vec![da.clone(), db.clone()]);
    let want: Vec<C64> = a
        .to_vec()
        .unwrap()
        .iter()
        .zip(b.to_vec().unwrap())
        .map(|(x, y)| x * y)
        .collect();
    assert_eq!(m.typed::<C64>("t").unwrap().to_vec().unwrap(), want);
    let (r, _) = run(Op::Func(Func::Imag), vec![da.clone()]);
    assert_eq!(
        r.typed::<f64>("t").unwrap().to_vec().unwrap(),
        vec![2.0, 0.5, 0.0]
    );
    let (r, _) = run(Op::Unary(UnaryOp::Abs), vec![db.clone()]);
    assert_eq!(r.typed::<f64>("t").unwrap().to_vec().unwrap()[0], 5.0);

    // A donated complex operand of the result's shape receives it: the
    // same buffer comes back, nothing is allocated for the result.
    let x = Tensor::<C64>::from_vec(vec![C64::new(1.0, 1.0); 4], &[2, 2]).unwrap();
    let before = x.as_slice().unwrap().as_ptr();
    let mut x = DynTensor::from(x);
    let y = DynTensor::from(Tensor::<C64>::from_vec(vec![C64::new(0.0, 1.0); 2], &[2]).unwrap());
    let descs = [
        desc(&x).offered(Offer::Donated, Holders::from(x.ownership())),
        desc(&y),
    ];
    let p = plan(&Op::Binary(BinaryOp::Mul), &descs).unwrap();
    assert_eq!(p.target, Some(0), "{p}");
    let mut args = [Arg::Held(&mut x), Arg::Tensor(y.clone())];
    let (r, outcome) = execute(&p, &mut args).unwrap();
    assert_eq!(outcome.reused, Some(0));
    let r = r.typed::<C64>("t").unwrap();
    assert_eq!(r.as_slice().unwrap().as_ptr(), before);
    assert_eq!(r.to_vec().unwrap(), vec![C64::new(-1.0, 1.0); 4]);
}

#[test]
fn the_operations_that_move_or_view_elements_take_complex_operands() {
    let s = [2, 3];
    for d in DType::COMPLEX {
        let x = OperandDesc::tensor(d, &s);
        for op in [
            Op::Reshape { shape: vec![3, 2] },
            Op::Permute { axes: None },
            Op::Cast { dtype: DType::C128 },
            Op::Cast { dtype: DType::C64 },
            Op::Fresh(Box::new(FreshOp::Concat {
                axis: Some(0),
                n: 2,
            })),
        ] {
            let n = op.arity();
            let p = plan(&op, &vec![x.clone(); n]).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
            assert!(p.dtype.is_complex(), "{}: {}", op.name(), p.dtype);
        }
    }
}

#[test]
fn astype_from_complex_goes_only_to_complex_or_bool() {
    let s = [4];
    for d in DType::COMPLEX {
        let x = || OperandDesc::tensor(d, &s);
        // Into bool: the standard's truth value (0+0j is false).
        let p = plan(&Op::Cast { dtype: DType::Bool }, &[x()]).unwrap();
        assert_eq!(p.dtype, DType::Bool);
        for r in DType::ALL
            .into_iter()
            .filter(|r| !r.is_bool() && !r.is_complex())
        {
            match plan(&Op::Cast { dtype: r }, &[x()]) {
                Err(Error::InvalidOperand {
                    op: "astype",
                    reason,
                }) => {
                    assert!(reason.contains("imaginary part"), "{reason}");
                    assert!(
                        reason.contains(&format!("cannot cast {d} to {r}")),
                        "{reason}"
                    );
                }
                other => panic!("astype {d} to {r}: {other:?}"),
            }
        }
    }
    // Into complex from every real dtype: planned.
    for r in DType::ALL.into_iter().filter(|r| !r.is_complex()) {
        for d in DType::COMPLEX {
            let p = plan(&Op::Cast { dtype: d }, &[OperandDesc::tensor(r, &s)])
                .unwrap_or_else(|e| panic!("astype {r} to {d}: {e}"));
            assert_eq!(p.dtype, d);
        }
    }
}

#[test]
fn a_complex_result_asked_of_a_real_operand_is_refused_naming_the_operation() {
    use donate::functions::cumulative::Running;
    use donate::functions::lane_ops::LaneOp;
    // A running maximum asked for in a complex dtype of a float32 `x`: the
    // operand is real, the result the operation would make is complex, and
    // complex numbers have no maximum.
    let s = [2, 3];
    for d in DType::COMPLEX {
        let op = Op::Lane(Box::new(LaneOp::Running {
            running: Running::Max,
            axis: Some(0),
            dtype: Some(d),
            include_initial: false,
        }));
        assert_eq!(refused(&op, &[OperandDesc::tensor(DType::F32, &s)]), d);
        // A running sum or product, a sum or a product asked for in a
        // complex dtype is one (NumPy's).
        for running in [Running::Sum, Running::Prod] {
            let op = Op::Lane(Box::new(LaneOp::Running {
                running,
                axis: Some(0),
                dtype: Some(d),
                include_initial: false,
            }));
            let p = plan(&op, &[OperandDesc::tensor(DType::F32, &s)]).unwrap();
            assert_eq!(p.dtype, d);
        }
        for statistic in [
            Statistic::Sum { dtype: Some(d) },
            Statistic::Prod { dtype: Some(d) },
        ] {
            let op = Op::Statistic(Box::new(StatisticOp {
                statistic,
                axes: None,
                keepdims: false,
            }));
            let p = plan(&op, &[OperandDesc::tensor(DType::F32, &s)]).unwrap();
            assert_eq!(p.dtype, d);
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
    assert_eq!(z.dtype(), DType::C128);
    let narrow = z.cast(DType::C64).unwrap();
    assert_eq!(narrow.dtype(), DType::C64);
    let v = narrow.typed::<C32>("test").unwrap().to_vec().unwrap();
    assert_eq!(v[0], C32::new(1.5, -2.0));
    assert!(v[1].re.is_infinite() && v[1].im.is_nan());
    assert!(v[2].re == 0.0 && v[2].re.is_sign_negative() && v[2].im == 3.0);
    // Into complex from a real dtype: the value is the real part, the
    // imaginary part +0.
    let from_int = DynTensor::from(Tensor::<i32>::from_vec(vec![-7, 8], &[2]).unwrap())
        .cast(DType::C128)
        .unwrap();
    let w = from_int.typed::<C64>("test").unwrap().to_vec().unwrap();
    assert_eq!(w, vec![C64::new(-7.0, 0.0), C64::new(8.0, 0.0)]);
    assert!(w.iter().all(|c| c.im.is_sign_positive()));
    let from_f32 = DynTensor::from(Tensor::<f32>::from_vec(vec![0.25, -1.0], &[2]).unwrap())
        .cast(DType::C64)
        .unwrap();
    assert_eq!(
        from_f32.typed::<C32>("test").unwrap().to_vec().unwrap(),
        vec![C32::new(0.25, 0.0), C32::new(-1.0, 0.0)]
    );
    // Into bool: anything but 0+0j (either zero's sign) is true, NaN too.
    let b = DynTensor::from(
        Tensor::<C32>::from_vec(
            vec![
                C32::new(0.0, 0.0),
                C32::new(-0.0, -0.0),
                C32::new(0.0, 1.0),
                C32::new(f32::NAN, 0.0),
            ],
            &[4],
        )
        .unwrap(),
    )
    .cast(DType::Bool)
    .unwrap();
    assert_eq!(
        b.typed::<bool>("test").unwrap().to_vec().unwrap(),
        vec![false, false, true, true]
    );
    let both = concat(&[&z, &z], Some(0)).unwrap();
    assert_eq!(both.dtype(), DType::C128);
    let w = both.typed::<C64>("test").unwrap().to_vec().unwrap();
    assert_eq!(w.len(), 6);
    assert_eq!(w[3], C64::new(1.5, -2.0));
    assert!(w[5].re == 0.0 && w[5].re.is_sign_negative());
}

#[test]
fn the_functions_below_the_planner_name_themselves_for_a_complex_tensor() {
    use donate::functions::searching::{arg_extreme, count_nonzero, Extreme};
    use donate::functions::sorting::argsort;
    use donate::functions::statistics::reduce;
    // Called directly, not through `plan`: each still refuses a complex
    // tensor with its own name, not another function's.
    let z = DynTensor::from(Tensor::<C32>::from_vec(vec![C32::new(1.0, 2.0); 6], &[2, 3]).unwrap());
    let name = |r: donate::Result<DynTensor>| match r {
        Err(Error::UnsupportedDType { op, dtype }) => {
            assert_eq!(dtype, DType::C64);
            op
        }
        other => panic!("expected UnsupportedDType, got {other:?}"),
    };
    assert_eq!(name(arg_extreme(&z, Extreme::Max, None, false)), "argmax");
    assert_eq!(
        name(arg_extreme(&z, Extreme::Min, Some(0), false)),
        "argmin"
    );
    // count_nonzero counts them (every element here is nonzero)
    let n = count_nonzero(&z, None, false).unwrap();
    assert_eq!(n.typed::<i64>("test").unwrap().to_vec().unwrap(), vec![6]);
    assert_eq!(name(argsort(&z, -1, false)), "argsort");
    for (statistic, want) in [(Statistic::Max, "max"), (Statistic::Min, "min")] {
        assert_eq!(name(reduce(&z, statistic, None, false)), want);
    }
    // the variance of complex numbers is real: sum |z - mean|^2 / N
    let v = reduce(&z, Statistic::Var { correction: 0.0 }, None, false).unwrap();
    assert_eq!(v.dtype(), DType::F32);
    assert_eq!(v.typed::<f32>("test").unwrap().to_vec().unwrap(), vec![0.0]);
}

#[test]
fn sums_products_and_means_of_complex_numbers() {
    use donate::functions::statistics::reduce;
    let z = DynTensor::from(
        Tensor::<C32>::from_vec(
            vec![
                C32::new(1.0, 2.0),
                C32::new(3.0, -1.0),
                C32::new(0.5, 0.0),
                C32::new(-2.0, 4.0),
            ],
            &[2, 2],
        )
        .unwrap(),
    );
    let values = |s: Statistic, axes: Option<&[isize]>| {
        let r = reduce(&z, s, axes, false).unwrap();
        assert_eq!(r.dtype(), DType::C64);
        r.typed::<C32>("t").unwrap().to_vec().unwrap()
    };
    assert_eq!(
        values(Statistic::Sum { dtype: None }, None),
        vec![C32::new(2.5, 5.0)]
    );
    assert_eq!(
        values(Statistic::Sum { dtype: None }, Some(&[0])),
        vec![C32::new(1.5, 2.0), C32::new(1.0, 3.0)]
    );
    // (1+2j)(3-1j) = 5+5j; (0.5)(-2+4j) = -1+2j
    assert_eq!(
        values(Statistic::Prod { dtype: None }, Some(&[1])),
        vec![C32::new(5.0, 5.0), C32::new(-1.0, 2.0)]
    );
    assert_eq!(
        values(Statistic::Mean { dtype: None }, None),
        vec![C32::new(0.625, 1.25)]
    );
}

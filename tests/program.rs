//! Traced programs: typing by the eager planner, buffers planned from
//! liveness, and runs that follow the plan (pointer identity, allocation
//! counts, arguments intact after a failure).

use donate::plan::Op;
use donate::program::{lower, plan_mismatches, Builder, RunArg, Write};
use donate::{memory_stats, BinaryOp, DType, DynTensor, Index, TensorArena, UnaryOp};

mod common;
use common::{lit, lock, tensor, v};

fn f32s(t: &DynTensor) -> Vec<f32> {
    t.typed::<f32>("test").unwrap().to_vec().unwrap()
}

/// `relu(x * 2 + 1)`.
fn chain(shape: &[usize]) -> donate::program::Program {
    let mut b = Builder::new();
    let x = b.input(DType::F32, shape);
    let y = b
        .push(Op::Binary(BinaryOp::Mul), &[v(x), lit(2.0)])
        .unwrap();
    let z = b
        .push(Op::Binary(BinaryOp::Add), &[v(y), lit(1.0)])
        .unwrap();
    let r = b.push(Op::Unary(UnaryOp::Relu), &[v(z)]).unwrap();
    b.finish(&[r]).unwrap()
}

#[test]
fn a_chain_over_a_donated_input_needs_no_buffer_at_all() {
    let _g = lock();
    let l = lower(chain(&[64, 64]), &[true]).unwrap();
    assert!(l
        .steps
        .iter()
        .all(|s| matches!(s.write, Write::InPlace { arg: 0 })));
    assert_eq!(l.aliases, vec![(0, 0)]);
    assert_eq!(l.memory.peak_memory_in_bytes, 64 * 64 * 4);
    assert_eq!(l.memory.temp_size_in_bytes, 0);
    assert_eq!(l.first_donated_write, Some(0));

    let x = tensor(&vec![-1.0; 64 * 64], &[64, 64]);
    let ptr = x.buffer_ptr();
    let before = memory_stats();
    let mismatches = plan_mismatches();
    let out = l.run(&[], vec![RunArg::Consumed(x)]).unwrap();
    assert_eq!(
        memory_stats().allocations,
        before.allocations,
        "no allocation"
    );
    assert_eq!(out[0].buffer_ptr(), ptr, "the output is the donated buffer");
    assert_eq!(f32s(&out[0])[..2], [0.0, 0.0]);
    assert_eq!(plan_mismatches(), mismatches);
}

#[test]
fn a_non_donated_input_is_never_written() {
    let _g = lock();
    let l = lower(chain(&[8]), &[false]).unwrap();
    assert!(matches!(
        l.steps[0].write,
        Write::Buffer { reused: false, .. }
    ));
    assert!(matches!(l.steps[1].write, Write::InPlace { arg: 0 }));
    assert!(l.aliases.is_empty());
    let x = tensor(&[1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 7.0, -8.0], &[8]);
    let out = l.run(&[], vec![RunArg::Read(x.clone())]).unwrap();
    assert_eq!(f32s(&x), [1.0, -2.0, 3.0, -4.0, 5.0, -6.0, 7.0, -8.0]);
    assert_ne!(out[0].buffer_ptr(), x.buffer_ptr());
    assert_eq!(f32s(&out[0]), [3.0, 0.0, 7.0, 0.0, 11.0, 0.0, 15.0, 0.0]);
}

#[test]
fn a_dead_buffer_of_the_same_size_serves_a_later_result() {
    let _g = lock();
    // y1 = x @ w; y2 = y1 @ w (y1 dies); y3 = y2 @ w takes y1's buffer.
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[16, 16]);
    let w = b.input(DType::F32, &[16, 16]);
    let y1 = b.push(Op::Matmul, &[v(x), v(w)]).unwrap();
    let y2 = b.push(Op::Matmul, &[v(y1), v(w)]).unwrap();
    let y3 = b.push(Op::Matmul, &[v(y2), v(w)]).unwrap();
    let l = lower(b.finish(&[y3]).unwrap(), &[false, false]).unwrap();
    let Write::Buffer {
        buffer: first,
        reused: false,
    } = l.steps[0].write
    else {
        panic!("{:?}", l.steps[0].write)
    };
    assert_eq!(
        l.steps[2].write,
        Write::Buffer {
            buffer: first,
            reused: true
        }
    );
    assert_eq!(l.steps[1].keep.as_slice(), &[first]);
    let eye: Vec<f32> = (0..256)
        .map(|i| if i % 17 == 0 { 1.0 } else { 0.0 })
        .collect();
    let xs: Vec<f32> = (0..256).map(|i| i as f32).collect();
    let before = memory_stats();
    let mismatches = plan_mismatches();
    let out = l
        .run(
            &[],
            vec![
                RunArg::Read(tensor(&xs, &[16, 16])),
                RunArg::Read(tensor(&eye, &[16, 16])),
            ],
        )
        .unwrap();
    assert_eq!(f32s(&out[0]), xs);
    assert_eq!(
        memory_stats().allocations - before.allocations,
        2 + 2,
        "two inputs, two buffers for three results"
    );
    assert_eq!(plan_mismatches(), mismatches);
}

#[test]
fn a_donated_input_nothing_can_use_is_reported_with_the_reason() {
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[4, 4]);
    let s = b
        .push(
            Op::Reduce {
                kind: donate::plan::Reduction::Sum,
                axis: None,
                keepdims: false,
            },
            &[v(x)],
        )
        .unwrap();
    let l = lower(b.finish(&[s]).unwrap(), &[true]).unwrap();
    assert!(l.aliases.is_empty() && l.donors.is_empty());
    assert_eq!(l.unusable.len(), 1);
    assert!(
        l.unusable[0].1.contains("sum always writes a new buffer"),
        "{}",
        l.unusable[0].1
    );
}

#[test]
fn setitem_writes_in_place_only_over_a_dying_donated_buffer() {
    let build = || {
        let mut b = Builder::new();
        let x = b.input(DType::F32, &[4, 4]);
        let y = b
            .push_update(
                Op::SetItem {
                    index: vec![Index::Int(0)],
                },
                &[v(x), lit(9.0)],
            )
            .unwrap();
        b.finish(&[y]).unwrap()
    };
    let donated = lower(build(), &[true]).unwrap();
    assert_eq!(donated.steps[0].write, Write::InPlace { arg: 0 });
    let kept = lower(build(), &[false]).unwrap();
    assert!(matches!(kept.steps[0].write, Write::Buffer { .. }));
    let x = tensor(&[1.0; 16], &[4, 4]);
    let out = kept.run(&[], vec![RunArg::Read(x.clone())]).unwrap();
    assert_eq!(f32s(&x), [1.0; 16]);
    assert_eq!(&f32s(&out[0])[..5], [9.0, 9.0, 9.0, 9.0, 1.0]);
}

#[test]
fn views_share_their_base_and_a_whole_view_is_written_in_place() {
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[4, 6]);
    let r = b.push(Op::Reshape { shape: vec![2, 12] }, &[v(x)]).unwrap();
    let t = b.push(Op::Permute { axes: None }, &[v(x)]).unwrap();
    let y = b.push(Op::Unary(UnaryOp::Neg), &[v(r)]).unwrap();
    let z = b.push(Op::Unary(UnaryOp::Exp), &[v(t)]).unwrap();
    let l = lower(b.finish(&[y, z]).unwrap(), &[true]).unwrap();
    assert_eq!(l.steps[0].write, Write::View);
    // `r` dies at `neg`, but the transpose `t` of the same buffer is still
    // live: no writing over it.
    assert!(
        matches!(l.steps[2].write, Write::Buffer { .. }),
        "{:?}",
        l.steps[2].write
    );
    // `t` is strided: exp gets a C-order copy and writes into it.
    assert!(matches!(l.steps[3].write, Write::Buffer { .. }));
    assert_eq!(l.donors, Vec::<usize>::new());
    assert_eq!(l.unusable.len(), 1);
}

#[test]
fn an_arena_budget_fails_before_a_donated_argument_is_written() {
    let _g = lock();
    // x + 1 is written over x (the first donated write); the matmul after
    // it needs a new buffer, which the arena cannot give.
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[32, 32]);
    let w = b.input(DType::F32, &[32, 32]);
    let y = b
        .push(Op::Binary(BinaryOp::Add), &[v(x), lit(1.0)])
        .unwrap();
    let z = b.push(Op::Matmul, &[v(y), v(w)]).unwrap();
    let l = lower(b.finish(&[z]).unwrap(), &[true, false]).unwrap();
    assert_eq!(l.first_donated_write, Some(0));
    let xs: Vec<f32> = (0..1024).map(|i| i as f32).collect();
    let x = tensor(&xs, &[32, 32]);
    let ptr = x.buffer_ptr();
    let w = tensor(&[0.5; 1024], &[32, 32]);
    let arena = TensorArena::new(1024);
    let err = arena
        .scope(|| l.run(&[], vec![RunArg::Consumed(x), RunArg::Read(w)]))
        .unwrap_err();
    assert!(
        matches!(err.error, donate::Error::ArenaExhausted { .. }),
        "{}",
        err.error
    );
    assert_eq!(err.returned.len(), 1);
    let back = &err.returned[0].tensor;
    assert_eq!(back.buffer_ptr(), ptr);
    assert!(back.is_exclusive());
    assert_eq!(f32s(back), xs, "the donated argument is intact");
}

#[test]
fn a_program_prints_as_a_jaxpr_with_constants_and_parameters() {
    let mut b = Builder::new();
    let c = b.constant(DType::F32, &[3]);
    let x = b.input(DType::F32, &[2, 3]);
    let y = b.push(Op::Binary(BinaryOp::Add), &[v(x), v(c)]).unwrap();
    let n = b
        .push(
            Op::LayerNorm {
                eps: 1e-5,
                gamma: false,
                beta: false,
            },
            &[v(y)],
        )
        .unwrap();
    let s = b
        .push(
            Op::Reduce {
                kind: donate::plan::Reduction::Sum,
                axis: Some(1),
                keepdims: true,
            },
            &[v(n)],
        )
        .unwrap();
    let p = b.finish(&[s, n]).unwrap();
    assert_eq!(
        p.to_string(),
        "{ lambda a:f32[3] ; b:f32[2,3]. let\n    c:f32[2,3] = add b a\n    d:f32[2,3] = layer_norm[eps=1e-05] c\n    e:f32[2,1] = sum[axis=1 keepdims=True] d\n  in (e, d) }"
    );
}

#[test]
fn tracing_errors_are_the_eager_errors() {
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[2, 3]);
    let y = b.input(DType::F32, &[4]);
    let e = b
        .push(Op::Binary(BinaryOp::Add), &[v(x), v(y)])
        .unwrap_err();
    assert!(matches!(e, donate::Error::ShapeMismatch { .. }), "{e}");
    let e = b.push(Op::Unary(UnaryOp::Relu), &[v(99)]).unwrap_err();
    assert!(e.to_string().contains("does not exist"));
}

#[test]
fn a_buffer_last_held_by_a_view_is_kept_for_a_later_result() {
    let _g = lock();
    // y1 = x @ w; t = y1ᵀ (a view); z = t @ w (y1 and t die: the view is
    // the last handle); y3 = z @ w takes y1's buffer.
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[8, 8]);
    let w = b.input(DType::F32, &[8, 8]);
    let y1 = b.push(Op::Matmul, &[v(x), v(w)]).unwrap();
    let t = b.push(Op::Permute { axes: None }, &[v(y1)]).unwrap();
    let z = b.push(Op::Matmul, &[v(t), v(w)]).unwrap();
    let y3 = b.push(Op::Matmul, &[v(z), v(w)]).unwrap();
    let l = lower(b.finish(&[y3]).unwrap(), &[false, false]).unwrap();
    let Write::Buffer { buffer, .. } = l.steps[0].write else {
        panic!()
    };
    assert_eq!(
        l.steps[3].write,
        Write::Buffer {
            buffer,
            reused: true
        }
    );
    let eye: Vec<f32> = (0..64)
        .map(|i| if i % 9 == 0 { 1.0 } else { 0.0 })
        .collect();
    let xs: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let mismatches = plan_mismatches();
    let before = memory_stats();
    let out = l
        .run(
            &[],
            vec![
                RunArg::Read(tensor(&xs, &[8, 8])),
                RunArg::Read(tensor(&eye, &[8, 8])),
            ],
        )
        .unwrap();
    assert_eq!(
        plan_mismatches(),
        mismatches,
        "the view's handle gave the buffer back"
    );
    assert_eq!(
        memory_stats().allocations - before.allocations,
        2 + 2,
        "two inputs, two buffers for three results"
    );
    let want: Vec<f32> = (0..64).map(|i| ((i % 8) * 8 + i / 8) as f32).collect();
    assert_eq!(f32s(&out[0]), want);
}

#[test]
fn a_strided_input_is_read_through_a_c_order_copy() {
    let l = lower(chain(&[3, 2]), &[false]).unwrap();
    let x = tensor(&[1.0, -2.0, 3.0, -4.0, 5.0, -6.0], &[2, 3]);
    let xt = x.permuted_view(&[1, 0]).unwrap();
    let out = l.run(&[], vec![RunArg::Read(xt)]).unwrap();
    // relu(2 * xᵀ + 1), xᵀ = [[1, -4], [-2, 5], [3, -6]]
    assert_eq!(f32s(&out[0]), [3.0, 0.0, 0.0, 11.0, 7.0, 0.0]);
    assert_eq!(f32s(&x), [1.0, -2.0, 3.0, -4.0, 5.0, -6.0]);
}

/// `v = x.T; v[0] = 1; return v * 3` with `x` donated: the setitem's
/// target is a strided view of the donated buffer. The program reads the
/// update's result as C-order data, so the setitem may not write through
/// the strided layout; it writes a new buffer, and the run succeeds with
/// eager's values (it used to fail after writing into `x`).
#[test]
fn a_setitem_through_a_strided_view_of_a_donated_input_runs() {
    let _g = lock();
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[2, 3]);
    let t = b.push(Op::Permute { axes: None }, &[v(x)]).unwrap();
    let c = b
        .push_update(
            Op::SetItem {
                index: vec![Index::Int(0)],
            },
            &[v(t), lit(1.0)],
        )
        .unwrap();
    let d = b
        .push(Op::Binary(BinaryOp::Mul), &[v(c), lit(3.0)])
        .unwrap();
    let l = lower(b.finish(&[d]).unwrap(), &[true]).unwrap();
    assert!(
        !matches!(l.steps[1].write, Write::InPlace { .. }),
        "{}",
        l.as_text("f")
    );
    let mismatches = plan_mismatches();
    let x = tensor(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3]);
    let out = l.run(&[], vec![RunArg::Consumed(x)]).unwrap();
    // x.T = [[0, 3], [1, 4], [2, 5]]; row 0 set to 1; times 3.
    assert_eq!(out[0].shape(), [3, 2]);
    assert_eq!(
        f32s(&out[0].contiguous().unwrap()),
        [3.0, 3.0, 3.0, 12.0, 6.0, 15.0]
    );
    assert_eq!(plan_mismatches(), mismatches);
}

/// A captured constant is identified by the elements it views, not by
/// a handle: two handles on one buffer are one constant; another buffer
/// with equal values, or another view of the same buffer, is another.
#[test]
fn a_constant_is_identified_by_its_buffer_and_view() {
    let _g = lock();
    let t = tensor(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let same = t.clone();
    let equal = tensor(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let transposed = t.permuted_view(&[1, 0]).unwrap();
    let mut b = Builder::new();
    let c0 = b.capture(&t).unwrap();
    assert_eq!(b.capture(&same).unwrap(), c0);
    let c1 = b.capture(&equal).unwrap();
    let c2 = b.capture(&transposed).unwrap();
    assert_ne!(c1, c0);
    assert_ne!(c2, c0);
    assert_ne!(c2, c1);
    let (p, values) = b.finish_captured(&[c0]).unwrap();
    assert_eq!(p.consts, vec![c0, c1, c2]);
    assert_eq!(values.len(), 3);
}

/// The buffer a captured tensor lives in is held by the trace: after the
/// caller drops its tensor, a new tensor cannot take its address and be
/// mistaken for it (a constant made in a loop is a new constant each time).
#[test]
fn a_dropped_captured_tensor_is_not_confused_with_a_new_one() {
    let _g = lock();
    let mut b = Builder::new();
    let mut vars = Vec::new();
    for i in 0..8 {
        let t = tensor(&[i as f32; 3], &[3]);
        vars.push(b.capture(&t).unwrap());
        drop(t);
    }
    vars.dedup();
    assert_eq!(vars.len(), 8);
    let (_, values) = b.finish_captured(&vars).unwrap();
    for (i, t) in values.iter().enumerate() {
        assert_eq!(f32s(t), [i as f32; 3]);
    }
}

/// A captured strided view (a transposed weight) is read by the program
/// as C-order data: the run gives eager's values (it used to fail in a
/// kernel that reads contiguous data).
#[test]
fn a_strided_constant_runs() {
    let _g = lock();
    let w = tensor(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3])
        .permuted_view(&[1, 0])
        .unwrap();
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[3, 2]);
    let c = b.capture(&w).unwrap();
    let y = b.push(Op::Binary(BinaryOp::Add), &[v(x), v(c)]).unwrap();
    let (p, consts) = b.finish_captured(&[y]).unwrap();
    let l = lower(p, &[false]).unwrap();
    let x = tensor(&[10.0; 6], &[3, 2]);
    let out = l.run(&consts, vec![RunArg::Read(x)]).unwrap();
    assert_eq!(f32s(&out[0]), [10.0, 13.0, 11.0, 14.0, 12.0, 15.0]);
}

/// A function that may fail on values (`take`: an index out of range)
/// keeps every donated input intact until it has run: the donated buffer
/// is not written before it, and a failure returns the input unchanged.
/// Without it (`argmax`, which never fails on values) the same chain
/// writes into the donated buffer at once.
#[test]
fn a_donated_input_outlives_a_function_that_may_fail_on_values() {
    use donate::plan::FreshOp;
    let _g = lock();
    let build = |fallible: bool| {
        let mut b = Builder::new();
        let x = b.input(DType::F32, &[4]);
        let i = b.input(DType::I64, &[2]);
        let y = b
            .push(Op::Binary(BinaryOp::Mul), &[v(x), lit(2.0)])
            .unwrap();
        let f = if fallible {
            FreshOp::Take { axis: Some(0) }
        } else {
            FreshOp::Concat {
                axis: Some(0),
                n: 2,
            }
        };
        let args = if fallible { [v(y), v(i)] } else { [v(y), v(y)] };
        let z = b.push(Op::Fresh(Box::new(f)), &args).unwrap();
        b.finish(&[z]).unwrap()
    };
    let free = lower(build(false), &[true, false]).unwrap();
    assert_eq!(free.first_donated_write, Some(0), "mul writes over x");
    let kept = lower(build(true), &[true, false]).unwrap();
    assert_eq!(
        kept.first_donated_write, None,
        "x is not written before take"
    );

    let x = tensor(&[1.0, 2.0, 3.0, 4.0], &[4]);
    let ptr = x.buffer_ptr();
    let bad: DynTensor = donate::Tensor::<i64>::from_slice(&[0, 9], &[2])
        .unwrap()
        .into();
    let err = kept
        .run(&[], vec![RunArg::Consumed(x), RunArg::Read(bad)])
        .unwrap_err();
    assert!(matches!(err.error, donate::Error::InvalidIndex { .. }));
    let back = &err.returned[0];
    assert_eq!((back.input, back.tensor.buffer_ptr()), (0, ptr));
    assert_eq!(f32s(&back.tensor), [1.0, 2.0, 3.0, 4.0]);
}

/// A call's claim of each argument is the planner's decision over its
/// description: a consumed argument is taken when its buffer can be given
/// up, else copied with the refusal the eager planner would give.
#[test]
fn a_call_takes_copies_or_reads_each_argument_as_the_planner_decides() {
    use donate::plan::{Holders, Offer, OperandDesc, Refusal};
    use donate::program::Claim;
    let l = lower(chain(&[8]), &[true]).unwrap();
    let desc = |h: Holders| {
        OperandDesc::tensor(DType::F32, &[8])
            .with_id(1)
            .offered(Offer::Donated, h)
    };
    assert_eq!(l.claims(&[desc(Holders::Exclusive)]), [Claim::Take]);
    assert_eq!(
        l.claims(&[desc(Holders::Shared {
            handles: 2,
            exports: 0
        })]),
        [Claim::Copy(Refusal::Shared {
            handles: 2,
            exports: 0
        })]
    );
    let part = desc(Holders::Exclusive).covering(donate::plan::Coverage::Rows);
    assert!(matches!(
        &l.claims(&[part])[..],
        [Claim::Copy(Refusal::View { .. })]
    ));
    // Not donated: only read.
    let kept = lower(chain(&[8]), &[false]).unwrap();
    assert_eq!(kept.claims(&[desc(Holders::Exclusive)]), [Claim::Read]);
    // The same tensor passed twice, donated once: copied.
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[8]);
    let y = b.input(DType::F32, &[8]);
    let z = b.push(Op::Binary(BinaryOp::Add), &[v(x), v(y)]).unwrap();
    let twice = lower(b.finish(&[z]).unwrap(), &[true, false]).unwrap();
    let borrowed = OperandDesc::tensor(DType::F32, &[8]).with_id(1);
    assert_eq!(
        twice.claims(&[desc(Holders::Exclusive), borrowed]),
        [Claim::Copy(Refusal::SameTensor), Claim::Read]
    );
}

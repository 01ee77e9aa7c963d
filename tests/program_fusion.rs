//! Element-wise fusion in lowered programs: which chains fuse, which do
//! not, and a fused run equal bit for bit to the unfused run of the same
//! plan, with the same buffers.

use donate::plan::Op;
use donate::program::{lower, plan_mismatches, Builder, Fusion, Program, RunArg};
use donate::{memory_stats, BinaryOp, DType, DynTensor, UnaryOp};
use proptest::prelude::*;

mod common;
use common::{int, lit, lock, sum_all, tensor, v};

fn bits(t: &DynTensor) -> Vec<u32> {
    let v = t.typed::<f32>("test").unwrap().to_vec().unwrap();
    v.iter().map(|x| x.to_bits()).collect()
}

fn data(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let h = (i as u32 ^ seed).wrapping_mul(2_654_435_761) >> 8;
            (h % 2001) as f32 / 250.0 - 4.0
        })
        .collect()
}

/// `relu` ten times over `x`.
fn relus(shape: &[usize]) -> Program {
    let mut b = Builder::new();
    let mut x = b.input(DType::F32, shape);
    for _ in 0..10 {
        x = b.push(Op::Unary(UnaryOp::Relu), &[v(x)]).unwrap();
    }
    b.finish(&[x]).unwrap()
}

#[test]
fn ten_relus_fuse_into_one_group_over_the_planned_buffer() {
    let _g = lock();
    let n = 3 * 4099;
    for donated in [false, true] {
        let l = lower(relus(&[3, 4099]), &[donated]).unwrap();
        assert_eq!(l.fusions, vec![Fusion { start: 0, end: 10 }]);
        let text = l.as_text("f");
        assert!(
            text.contains(&format!("fusion[{}]", ["relu"; 10].join(", "))),
            "{text}"
        );
        // Every equation still printed, with the buffer it writes.
        assert_eq!(text.lines().filter(|s| s.contains(" = relu ")).count(), 10);
        let unfused = l.clone().unfused();
        assert!(unfused.fusions.is_empty());
        assert_eq!(l.memory, unfused.memory);
        assert_eq!(
            l.live_bytes.iter().max(),
            Some(&l.memory.peak_memory_in_bytes)
        );

        let x = tensor(&data(n, 7), &[3, 4099]);
        let ptr = x.buffer_ptr();
        let arg = if donated {
            RunArg::Consumed(x)
        } else {
            RunArg::Read(x.clone())
        };
        let before = memory_stats();
        let mismatches = plan_mismatches();
        let out = l.run(&[], vec![arg]).unwrap();
        let allocated = memory_stats().allocations - before.allocations;
        assert_eq!(plan_mismatches(), mismatches);
        if donated {
            assert_eq!(allocated, 0, "no intermediate, no result buffer");
            assert_eq!(out[0].buffer_ptr(), ptr, "the output is the donated buffer");
        } else {
            assert_eq!(allocated, 1, "the result's buffer only");
            assert_ne!(out[0].buffer_ptr(), ptr);
        }
        let want: Vec<u32> = data(n, 7).iter().map(|x| x.max(0.0).to_bits()).collect();
        assert_eq!(bits(&out[0]), want);
    }
}

#[test]
fn a_non_donated_input_is_read_not_written() {
    let _g = lock();
    let l = lower(relus(&[5000]), &[false]).unwrap();
    let x = tensor(&data(5000, 3), &[5000]);
    let before = bits(&x);
    let out = l.run(&[], vec![RunArg::Read(x.clone())]).unwrap();
    assert_eq!(bits(&x), before);
    assert_ne!(bits(&out[0]), before);
}

/// `t = relu(x); u = t * 2` and then `extra` (which may read `t`); returns `outs`.
fn escape(extra: bool, return_t: bool) -> Program {
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[64]);
    let t = b.push(Op::Unary(UnaryOp::Relu), &[v(x)]).unwrap();
    let u = b
        .push(Op::Binary(BinaryOp::Mul), &[v(t), lit(2.0)])
        .unwrap();
    let mut outs = vec![u];
    if extra {
        let s = b.push(sum_all(), &[v(t)]).unwrap();
        outs.push(s);
    }
    if return_t {
        outs.push(t);
    }
    b.finish(&outs).unwrap()
}

#[test]
fn an_intermediate_that_escapes_ends_the_chain() {
    // Alone, the two equations fuse.
    let l = lower(escape(false, false), &[true]).unwrap();
    assert_eq!(l.fusions, vec![Fusion { start: 0, end: 2 }]);
    // `t` returned: no group (a group's intermediate is never an output).
    let l = lower(escape(false, true), &[true]).unwrap();
    assert!(l.fusions.is_empty(), "{}", l.as_text("f"));
    // `t` read by a later equation that does not fuse: no group.
    let l = lower(escape(true, false), &[true]).unwrap();
    assert!(l.fusions.is_empty(), "{}", l.as_text("f"));
}

#[test]
fn an_intermediate_read_twice_or_a_broadcast_operand_is_not_fused() {
    // `t = relu(x); u = t * t; w = exp(u)`: `u` reads `t` twice, so `u`
    // gets a buffer of its own; only `u -> w` chains.
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[64]);
    let t = b.push(Op::Unary(UnaryOp::Relu), &[v(x)]).unwrap();
    let u = b.push(Op::Binary(BinaryOp::Mul), &[v(t), v(t)]).unwrap();
    let w = b.push(Op::Unary(UnaryOp::Exp), &[v(u)]).unwrap();
    let l = lower(b.finish(&[w]).unwrap(), &[false]).unwrap();
    assert_eq!(l.fusions, vec![Fusion { start: 1, end: 3 }]);

    // An operand broadcast along an inner axis (a column), or a row
    // shorter than MIN_CYCLE (one call per repetition): not a stage.
    for (shape, other) in [([8, 16], vec![8, 1]), ([8, 16], vec![16])] {
        let mut b = Builder::new();
        let x = b.input(DType::F32, &shape);
        let bias = b.input(DType::F32, &other);
        let t = b.push(Op::Binary(BinaryOp::Add), &[v(x), v(bias)]).unwrap();
        let g = b.push(Op::Unary(UnaryOp::Gelu), &[v(t)]).unwrap();
        let l = lower(b.finish(&[g]).unwrap(), &[true, false]).unwrap();
        assert!(l.fusions.is_empty(), "{other:?}: {}", l.as_text("f"));
    }
}

#[test]
fn operands_repeat_along_the_output_only_from_their_first_real_axis() {
    use donate::program::repeats_along;
    assert!(repeats_along(&[16], &[8, 16]));
    assert!(repeats_along(&[1, 16], &[8, 16]));
    assert!(repeats_along(&[1, 4, 16], &[2, 4, 16]));
    assert!(repeats_along(&[1], &[8, 16]));
    assert!(repeats_along(&[], &[8, 16]));
    assert!(repeats_along(&[8, 16], &[8, 16]));
    assert!(!repeats_along(&[8, 1], &[8, 16]));
    assert!(!repeats_along(&[4, 1, 16], &[4, 2, 16]));
    assert!(!repeats_along(&[2, 8, 16], &[8, 16]));
}

/// `gelu(x + bias) * scale + shift`, the bias a row broadcast over the
/// rows (and a `[1, d]` row, and a one-element tensor): one group, bit for
/// bit the unfused run, and over a donated `x` no buffer at all.
#[test]
fn a_bias_row_broadcast_over_the_rows_fuses() {
    let _g = lock();
    let (rows, d) = (37, 300); // 11,100 elements: blocks end mid-row
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[rows, d]);
    let bias = b.input(DType::F32, &[d]);
    let scale = b.input(DType::F32, &[1, d]);
    let shift = b.input(DType::F32, &[1]);
    let t = b.push(Op::Binary(BinaryOp::Add), &[v(x), v(bias)]).unwrap();
    let t = b.push(Op::Unary(UnaryOp::Gelu), &[v(t)]).unwrap();
    let t = b
        .push(Op::Binary(BinaryOp::Mul), &[v(scale), v(t)])
        .unwrap();
    let t = b
        .push(Op::Binary(BinaryOp::Sub), &[v(t), v(shift)])
        .unwrap();
    let program = b.finish(&[t]).unwrap();
    for donated in [true, false] {
        let l = lower(program.clone(), &[donated, false, false, false]).unwrap();
        assert_eq!(
            l.fusions,
            vec![Fusion { start: 0, end: 4 }],
            "{}",
            l.as_text("f")
        );
        let run = |l: &donate::program::Lowered| {
            let x = tensor(&data(rows * d, 5), &[rows, d]);
            let ptr = x.buffer_ptr();
            let x = if donated {
                RunArg::Consumed(x)
            } else {
                RunArg::Read(x)
            };
            let args = vec![
                x,
                RunArg::Read(tensor(&data(d, 6), &[d])),
                RunArg::Read(tensor(&data(d, 7), &[1, d])),
                RunArg::Read(tensor(&[0.25], &[1])),
            ];
            let before = memory_stats().allocations;
            let mismatches = plan_mismatches();
            let out = l.run(&[], args).unwrap();
            assert_eq!(plan_mismatches(), mismatches);
            let allocated = memory_stats().allocations - before;
            (bits(&out[0]), allocated, out[0].buffer_ptr() == ptr)
        };
        let (fused, allocs, over_x) = run(&l);
        let (plain, plain_allocs, _) = run(&l.clone().unfused());
        assert_eq!(fused, plain);
        assert_eq!(allocs, plain_allocs);
        assert_eq!(allocs, u64::from(!donated));
        assert_eq!(over_x, donated, "the result is the donated buffer");
    }
}

#[test]
fn integer_chains_fuse_and_wrap_as_unfused() {
    let _g = lock();
    let mut b = Builder::new();
    let x = b.input(DType::I32, &[4100]);
    let y = b.input(DType::I32, &[4100]);
    let t = b.push(Op::Unary(UnaryOp::Neg), &[v(x)]).unwrap();
    let t = b
        .push(Op::Binary(BinaryOp::Mul), &[v(t), int(65_537)])
        .unwrap();
    let t = b
        .push(Op::Binary(BinaryOp::Maximum), &[v(y), v(t)])
        .unwrap();
    let t = b.push(Op::Unary(UnaryOp::Abs), &[v(t)]).unwrap();
    let l = lower(b.finish(&[t]).unwrap(), &[false, false]).unwrap();
    assert_eq!(l.fusions, vec![Fusion { start: 0, end: 4 }]);
    let ints = |seed: i32| -> DynTensor {
        let d: Vec<i32> = (0..4100)
            .map(|i: i32| i.wrapping_mul(40_503).wrapping_add(seed))
            .collect();
        DynTensor::from(donate::Tensor::<i32>::from_slice(&d, &[4100]).unwrap())
    };
    let run = |l: &donate::program::Lowered| -> Vec<i32> {
        let out = l
            .run(&[], vec![RunArg::Read(ints(-7)), RunArg::Read(ints(3))])
            .unwrap();
        out[0].typed::<i32>("test").unwrap().to_vec().unwrap()
    };
    assert_eq!(run(&l), run(&l.clone().unfused()));
}

#[test]
fn a_large_chain_splits_across_threads_and_equals_the_unfused_run() {
    let _g = lock();
    let n = (1 << 20) + 4096 * 3 + 17;
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[n]);
    let y = b.input(DType::F32, &[n]);
    let t = b
        .push(Op::Binary(BinaryOp::Sub), &[lit(0.5), v(x)])
        .unwrap();
    let t = b.push(Op::Unary(UnaryOp::Tanh), &[v(t)]).unwrap();
    let t = b.push(Op::Binary(BinaryOp::Div), &[v(y), v(t)]).unwrap();
    let t = b.push(Op::Unary(UnaryOp::Gelu), &[v(t)]).unwrap();
    let l = lower(b.finish(&[t]).unwrap(), &[true, false]).unwrap();
    assert_eq!(l.fusions, vec![Fusion { start: 0, end: 4 }]);
    let run = |l: &donate::program::Lowered| {
        let x = tensor(&data(n, 1), &[n]);
        let y = tensor(&data(n, 2), &[n]);
        bits(
            &l.run(&[], vec![RunArg::Consumed(x), RunArg::Read(y)])
                .unwrap()[0],
        )
    };
    assert_eq!(run(&l), run(&l.clone().unfused()));
}

/// One random stage: a unary op, or a binary op of the chain's value and
/// a literal, the second input or the third (a row broadcast over the
/// rows), on either side.
#[derive(Debug, Clone)]
enum Step {
    Unary(UnaryOp),
    Binary(BinaryOp, bool, u8),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let unary = prop::sample::select(UnaryOp::ALL.to_vec()).prop_map(Step::Unary);
    let binary = (
        prop::sample::select(BinaryOp::ALL.to_vec()),
        any::<bool>(),
        0u8..3,
    )
        .prop_map(|(op, left, input)| Step::Binary(op, left, input));
    prop::collection::vec(prop_oneof![unary, binary], 1..9)
}

fn random_chain(shape: &[usize], steps: &[Step]) -> Program {
    let mut b = Builder::new();
    let x = b.input(DType::F32, shape);
    let y = b.input(DType::F32, shape);
    let z = b.input(DType::F32, &shape[1..]);
    let mut t = x;
    for s in steps {
        t = match *s {
            Step::Unary(op) => b.push(Op::Unary(op), &[v(t)]).unwrap(),
            Step::Binary(op, left, input) => {
                let other = [lit(0.75), v(y), v(z)][usize::from(input)];
                let args = if left { [v(t), other] } else { [other, v(t)] };
                b.push(Op::Binary(op), &args).unwrap()
            }
        };
    }
    b.finish(&[t]).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_fused_run_equals_the_unfused_run_bit_for_bit(
        steps in steps(),
        n in prop_oneof![1usize..70, 4090usize..4110, 8185usize..8200],
        rows in 1usize..3,
        donated in any::<bool>(),
        seed in any::<u32>(),
    ) {
        let _g = lock();
        let shape = [rows, n];
        let l = lower(random_chain(&shape, &steps), &[donated, false, false]).unwrap();
        // The fused plan is the unfused plan: same buffers, same memory.
        let unfused = l.clone().unfused();
        prop_assert_eq!(&l.memory, &unfused.memory);
        prop_assert_eq!(&l.var_buffer, &unfused.var_buffer);
        prop_assert!(l.memory.peak_lower_bound_in_bytes <= l.memory.peak_memory_in_bytes);
        prop_assert_eq!(l.live_bytes.iter().max().copied().unwrap_or(0).max(l.memory.argument_size_in_bytes), l.memory.peak_memory_in_bytes);
        for g in &l.fusions {
            prop_assert!(g.end - g.start >= 2);
        }
        let run = |l: &donate::program::Lowered| {
            let x = tensor(&data(rows * n, seed), &shape);
            let y = tensor(&data(rows * n, seed ^ 0x5555), &shape);
            let z = tensor(&data(n, seed ^ 0x3333), &shape[1..]);
            let xa = if donated { RunArg::Consumed(x) } else { RunArg::Read(x) };
            let before = memory_stats().allocations;
            let out = l.run(&[], vec![xa, RunArg::Read(y), RunArg::Read(z)]).unwrap();
            (bits(&out[0]), memory_stats().allocations - before)
        };
        let mismatches = plan_mismatches();
        let (fused, fused_allocs) = run(&l);
        let (plain, plain_allocs) = run(&unfused);
        prop_assert_eq!(plan_mismatches(), mismatches);
        prop_assert_eq!(fused, plain);
        prop_assert_eq!(fused_allocs, plain_allocs);
    }
}

/// A donated argument that another handle still holds is not the
/// program's to write: the fused group reads it where it is into a new
/// buffer (the claim refused), and the other holder keeps its values.
#[test]
fn a_donated_input_still_held_elsewhere_is_read_into_a_new_buffer() {
    let _g = lock();
    let n = 3 * 4099;
    let l = lower(relus(&[3, 4099]), &[true]).unwrap();
    assert_eq!(l.fusions, vec![Fusion { start: 0, end: 10 }]);
    let x = tensor(&data(n, 11), &[3, 4099]);
    let held = x.clone();
    let before = bits(&held);
    let ptr = x.buffer_ptr();
    let mismatches = plan_mismatches();
    let out = l.run(&[], vec![RunArg::Consumed(x)]).unwrap();
    assert_eq!(plan_mismatches(), mismatches + 1, "the claim was refused");
    assert_eq!(bits(&held), before, "the other holder's values are intact");
    assert_eq!(held.buffer_ptr(), ptr);
    assert_ne!(
        out[0].buffer_ptr(),
        ptr,
        "the result is a buffer of its own"
    );
    let want: Vec<u32> = data(n, 11).iter().map(|x| x.max(0.0).to_bits()).collect();
    assert_eq!(bits(&out[0]), want);
}

//! The lower bound of a lowered program's peak: exact where no plan can do
//! better, below the plan where the plan leaves memory on the table, and
//! never above the planned peak of any program.

use donate::plan::{Op, Reduction};
use donate::program::{lower, Builder, Program};
use donate::{BinaryOp, DType, Index, UnaryOp};
use proptest::prelude::*;

mod common;
use common::{lit, sum_all, v};

/// `relu(x * 2 + 1)` over `n` float32.
fn chain(n: usize) -> Program {
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[n]);
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
fn a_donated_chain_meets_its_bound() {
    let l = lower(chain(1000), &[true]).unwrap();
    assert_eq!(l.memory.peak_memory_in_bytes, 4000);
    assert_eq!(l.memory.peak_lower_bound_in_bytes, 4000);
    assert!((l.memory.peak_over_bound() - 1.0).abs() < 1e-12);
    assert!(
        l.as_text("f")
            .contains("peak 4000 B (1.00x its lower bound 4000 B)"),
        "{}",
        l.as_text("f")
    );
}

#[test]
fn a_kept_argument_needs_a_second_buffer_in_any_plan() {
    // The caller keeps x, so the first result needs a buffer of its own;
    // the rest runs in place over it.
    let l = lower(chain(1000), &[false]).unwrap();
    assert_eq!(l.memory.peak_memory_in_bytes, 8000);
    assert_eq!(l.memory.peak_lower_bound_in_bytes, 8000);
}

#[test]
fn a_result_smaller_than_a_dying_buffer_takes_a_buffer_of_its_own() {
    // y = x[:500] * 2: x dies there, but a result lands over an operand
    // only of its own shape, covering its buffer: the bound counts both.
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[1000]);
    let h = b
        .push(
            Op::Index {
                index: vec![Index::Slice {
                    start: None,
                    stop: Some(500),
                    step: 1,
                }],
            },
            &[v(x)],
        )
        .unwrap();
    let y = b
        .push(Op::Binary(BinaryOp::Mul), &[v(h), lit(2.0)])
        .unwrap();
    let l = lower(b.finish(&[y]).unwrap(), &[true]).unwrap();
    assert_eq!(l.memory.peak_lower_bound_in_bytes, 6000);
    assert_eq!(l.memory.peak_memory_in_bytes, 6000);
}

#[test]
fn an_unusable_donation_kept_by_the_caller_shows_above_the_bound() {
    // s = sum(x) is x's last use, and no later result has x's size (k is smaller): the
    // caller keeps x (donated, unusable) for the whole call, while the
    // bound counts it freed after its last use.
    let mut b = Builder::new();
    let x = b.input(DType::F32, &[1000]);
    let k = b.input(DType::F32, &[500]);
    let s = b.push(sum_all(), &[v(x)]).unwrap();
    let c = b
        .push(Op::Binary(BinaryOp::Mul), &[v(k), lit(2.0)])
        .unwrap();
    let l = lower(b.finish(&[s, c]).unwrap(), &[true, false]).unwrap();
    assert_eq!(l.unusable.len(), 1, "{}", l.as_text("f"));
    assert_eq!(l.memory.peak_lower_bound_in_bytes, 6004);
    assert_eq!(l.memory.peak_memory_in_bytes, 8004);
}

#[test]
fn scratch_counts_in_the_bound() {
    // A matmul's result never lands over an operand: both factors and the
    // result are live together in any plan.
    let mut b = Builder::new();
    let a = b.input(DType::F32, &[16, 16]);
    let c = b.push(Op::Matmul, &[v(a), v(a)]).unwrap();
    let l = lower(b.finish(&[c]).unwrap(), &[true]).unwrap();
    assert!(l.memory.peak_lower_bound_in_bytes >= 2 * 16 * 16 * 4);
    assert!(l.memory.peak_lower_bound_in_bytes <= l.memory.peak_memory_in_bytes);
}

/// One random equation over the variables so far: `(op kind, operands)`.
#[derive(Debug, Clone)]
enum Step {
    Unary(usize),
    Add(usize, usize),
    Scale(usize),
    Sum(usize),
    Transpose(usize),
    Row(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<usize>().prop_map(Step::Unary),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Step::Add(a, b)),
        any::<usize>().prop_map(Step::Scale),
        any::<usize>().prop_map(Step::Sum),
        any::<usize>().prop_map(Step::Transpose),
        any::<usize>().prop_map(Step::Row),
    ]
}

/// A program over two 8x8 inputs from `steps` (operands picked modulo the
/// variables so far; a step whose operands do not fit is skipped), with
/// the outputs picked by `outs`.
fn program(steps: &[Step], outs: &[usize]) -> Program {
    let mut b = Builder::new();
    let mut vars = vec![b.input(DType::F32, &[8, 8]), b.input(DType::F32, &[8, 8])];
    for s in steps {
        let pick = |i: usize| vars[i % vars.len()];
        let r = match *s {
            Step::Unary(a) => b.push(Op::Unary(UnaryOp::Relu), &[v(pick(a))]),
            Step::Add(a, c) => b.push(Op::Binary(BinaryOp::Add), &[v(pick(a)), v(pick(c))]),
            Step::Scale(a) => b.push(Op::Binary(BinaryOp::Mul), &[v(pick(a)), lit(0.5)]),
            Step::Sum(a) => b.push(
                Op::Reduce {
                    kind: Reduction::Sum,
                    axis: Some(0),
                    keepdims: false,
                },
                &[v(pick(a))],
            ),
            Step::Transpose(a) => b.push(Op::Permute { axes: None }, &[v(pick(a))]),
            Step::Row(a) => b.push(
                Op::Index {
                    index: vec![Index::Int(0)],
                },
                &[v(pick(a))],
            ),
        };
        if let Ok(r) = r {
            vars.push(r);
        }
    }
    let mut outputs: Vec<u32> = outs.iter().map(|&o| vars[o % vars.len()]).collect();
    outputs.dedup();
    b.finish(&outputs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_bound_is_never_above_the_plan(
        steps in proptest::collection::vec(step(), 1..12),
        outs in proptest::collection::vec(any::<usize>(), 1..3),
        donated in proptest::collection::vec(any::<bool>(), 2),
    ) {
        let p = program(&steps, &outs);
        let l = lower(p, &donated).unwrap();
        let m = l.memory;
        prop_assert!(
            m.peak_lower_bound_in_bytes <= m.peak_memory_in_bytes,
            "bound {} above the plan's peak {}:\n{}",
            m.peak_lower_bound_in_bytes,
            m.peak_memory_in_bytes,
            l.as_text("f")
        );
        prop_assert!(m.peak_lower_bound_in_bytes >= m.argument_size_in_bytes);
    }
}

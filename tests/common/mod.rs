//! Helpers shared by the integration tests of traced programs
//! (`program*.rs`); each test crate uses some of them.
#![allow(dead_code)] // each test crate compiles its own copy and uses a part

use donate::program::Atom;
use donate::{DynTensor, Scalar};

/// The allocation counters are process-wide: tests that read them run
/// one at a time.
static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn lock() -> std::sync::MutexGuard<'static, ()> {
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A variable operand.
pub fn v(x: u32) -> Atom {
    Atom::Var(x)
}

/// A float literal operand.
pub fn lit(x: f64) -> Atom {
    Atom::Lit(Scalar::Float(x))
}

/// An integer literal operand.
pub fn int(x: i64) -> Atom {
    Atom::Lit(Scalar::Int(i128::from(x)))
}

/// A float32 tensor of `data` in `shape`.
pub fn tensor(data: &[f32], shape: &[usize]) -> DynTensor {
    DynTensor::from(donate::Tensor::<f32>::from_slice(data, shape).unwrap())
}

/// The sum of every element (`sum(x)`).
pub fn sum_all() -> donate::plan::Op {
    donate::plan::Op::Reduce {
        kind: donate::plan::Reduction::Sum,
        axis: None,
        keepdims: false,
    }
}

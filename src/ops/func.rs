//! The array API's element-wise functions ([`Func`]) run from a plan.
//!
//! The planner decided the dtypes ([`Plan::compute`], the operands',
//! and [`Plan::dtype`], the result's) and the target. A result of the
//! operands' dtype is written over the target's buffer when the claim
//! succeeds, as the other element-wise operations do; tests and
//! comparisons (a bool result) always write a new buffer (the planner
//! gives them no target).

use std::sync::atomic::{AtomicBool, Ordering};

use super::{claim_target, count_fallbacks, outcome_of, reused, Operand};
use crate::array::dyn_tensor::{DynElement, DynTensor};
use crate::array::element::DType;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::{broadcast_zip_into, fresh, split_inplace, Func, FuncElement, FuncKind};
use crate::plan::{Outcome, Plan};

fn unsupported<T: FuncElement>(f: Func) -> Error {
    Error::UnsupportedDType {
        op: f.name(),
        dtype: T::DTYPE,
    }
}

pub(super) fn done(
    plan: &Plan,
    buf: crate::memory::buffer::OwnedBuffer,
    outcome: Outcome,
) -> Result<(DynTensor, Outcome)> {
    let t = DynTensor::from_buffer(plan.dtype, buf, &plan.shape)?;
    count_fallbacks(plan, &outcome);
    Ok((t, outcome))
}

/// Run a plan of `f` over its typed operands (one or two).
pub(crate) fn run<T: FuncElement + DynElement>(
    plan: &Plan,
    f: Func,
    mut ops: Vec<Operand<'_, T>>,
) -> Result<(DynTensor, Outcome)> {
    // Tests and comparisons write bools from the operands' dtype (bool
    // too); the other functions write the operands' dtype.
    let test = matches!(f.kind(), FuncKind::Test | FuncKind::Compare);
    let mut outcome = outcome_of(plan);
    let shapes: Vec<Vec<usize>> = ops.iter().map(|o| o.shape().to_vec()).collect();
    let scalars: Vec<[T; 1]> = ops.iter().map(Operand::scalar).collect();
    let out = plan.shape.to_vec();
    if !test && plan.target.is_some() {
        let mut refs: Vec<&mut Operand<'_, T>> = ops.iter_mut().collect();
        if let Some((idx, mut buf)) = claim_target(plan, &mut refs, &mut outcome) {
            let bytes = buf.len();
            let io = buf.as_mut_slice::<T>();
            let ok = if ops.len() == 1 {
                split_inplace(io, |piece| T::map_same_inplace(f, piece))
            } else {
                let other = 1 - idx;
                let data = ops[other].data(&scalars[other])?;
                // Cleared by a run whose function `T` lacks (every run alike).
                let ok = AtomicBool::new(true);
                broadcast_zip_into(io, data, &shapes[other], &out, |d, side| {
                    let done = if idx == 0 {
                        T::zip_same_lhs(f, d, side)
                    } else {
                        T::zip_same_rhs(f, side, d)
                    };
                    if !done {
                        ok.store(false, Ordering::Relaxed);
                    }
                });
                ok.load(Ordering::Relaxed)
            };
            if !ok {
                return Err(unsupported::<T>(f));
            }
            reused(&mut outcome, plan, idx, bytes);
            return done(plan, buf, outcome);
        }
    }
    let buf = match ops.as_slice() {
        [x] => fresh::func_unary(f, x.data(&scalars[0])?, test)?,
        [a, b] => fresh::func_binary(
            f,
            a.data(&scalars[0])?,
            &shapes[0],
            b.data(&scalars[1])?,
            &shapes[1],
            &out,
            test,
        )?,
        _ => None,
    };
    done(plan, buf.ok_or_else(|| unsupported::<T>(f))?, outcome)
}

/// An operand of an exact comparison ([`run_exact_compare`]).
#[derive(Clone, Copy)]
pub(crate) enum Exact<'a> {
    U64(&'a Tensor<u64>),
    I64(&'a Tensor<i64>),
    /// A Python int (a 0-d operand).
    Int(i128),
}

/// Run a comparison the planner made exact (a uint64 tensor against a
/// signed integer, or an integer tensor against a Python int outside its
/// dtype): the planner cast a narrower operand to int64 and left a uint64
/// one as it is; the two are compared as `i128`s, into a new bool buffer.
pub(crate) fn run_exact_compare(
    plan: &Plan,
    f: Func,
    a: Exact<'_>,
    b: Exact<'_>,
) -> Result<(DynTensor, Outcome)> {
    let out = plan.shape.to_vec();
    let (sa, sb) = ([exact_scalar(&a)], [exact_scalar(&b)]);
    macro_rules! side {
        ($e:expr, $s:expr, $x:ident => $body:expr) => {
            match $e {
                Exact::U64(t) => {
                    let $x = (t.as_slice()?, t.shape());
                    $body
                }
                Exact::I64(t) => {
                    let $x = (t.as_slice()?, t.shape());
                    $body
                }
                Exact::Int(_) => {
                    let $x = (&$s[..], &[][..]);
                    $body
                }
            }
        };
    }
    let buf =
        side!(a, sa, x => side!(b, sb, y => fresh::compare_exact(f, x.0, x.1, y.0, y.1, &out)?));
    let buf = buf.ok_or_else(|| Error::UnsupportedDType {
        op: f.name(),
        dtype: DType::I64,
    })?;
    let outcome = outcome_of(plan);
    done(plan, buf, outcome)
}

fn exact_scalar(e: &Exact<'_>) -> i128 {
    match e {
        Exact::Int(v) => *v,
        _ => 0,
    }
}

impl<T: FuncElement + DynElement> Tensor<T> {
    /// `f(self)` or `f(self, other)` into a new buffer (`self` and
    /// `other` unchanged), with the planner's dtypes: the operands are
    /// promoted together and the result may be bool.
    pub fn func(&self, f: Func, other: Option<&Tensor<T>>) -> Result<DynTensor> {
        let mut ops = vec![Operand::Ref(self)];
        ops.extend(other.map(Operand::Ref));
        let descs: Vec<_> = ops.iter().map(Operand::describe).collect();
        let plan = crate::plan::plan(&crate::plan::Op::Func(f), &descs)?;
        if plan.compute != T::DTYPE {
            return Err(unsupported::<T>(f));
        }
        Ok(run(&plan, f, ops)?.0)
    }
}

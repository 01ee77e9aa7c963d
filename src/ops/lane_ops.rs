//! The operations of [`crate::functions::lane_ops`] run from a plan: over the claimed
//! input's buffer when the input is the target, else over a copy of it;
//! a running op with `include_initial` (a longer result) into a new
//! buffer.

use super::{copy_then, finish, outcome_of, same_shape, Applied, Operand};
use crate::array::dyn_tensor::{number, AnyElement, DynElement, Scalar};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::functions::cumulative::with_initial;
use crate::functions::lane_ops::LaneOp;
use crate::plan::Plan;

/// Run an `Op::Lane` plan over its input `x` (in the plan's dtype).
pub(crate) fn run<T: DynElement>(
    plan: &Plan,
    op: &LaneOp,
    x: Operand<'_, T>,
) -> Result<Applied<T>> {
    run_with(plan, op, x, |b, shape| op.apply(b, shape))
}

/// Run an `Op::Lane` plan of an op that
/// [`takes_any_element`](LaneOp::takes_any_element) (`roll`, the
/// triangles, running sums and products), of any dtype, the complex ones
/// too.
pub(crate) fn run_any<T: AnyElement>(
    plan: &Plan,
    op: &LaneOp,
    x: Operand<'_, T>,
) -> Result<Applied<T>> {
    run_with(plan, op, x, |b, shape| op.apply_any(b, shape))
}

/// `x` rewritten by `apply` over the claimed input's buffer when the
/// input is the target, else over a copy of it; a running op with
/// `include_initial` (a longer result) into a new buffer.
fn run_with<T: AnyElement>(
    plan: &Plan,
    op: &LaneOp,
    x: Operand<'_, T>,
    apply: impl Fn(&mut [T], &[usize]) -> Result<()>,
) -> Result<Applied<T>> {
    let shape = plan.shape.to_vec();
    if x.shape() == &shape[..] {
        return rewritten(plan, x, |b| apply(b, &shape));
    }
    let (LaneOp::Running { running, axis, .. }, Some(t)) = (op, x.tensor()) else {
        return Err(Error::InvalidArgument {
            op: plan.op.name(),
            reason: format!(
                "a result of shape {shape:?} from an input of shape {:?}",
                x.shape()
            ),
        });
    };
    let out = with_initial(t, *running, *axis)?;
    Ok(finish(plan, out, outcome_of(plan)))
}

/// `x` rewritten in place by `f`: over the claimed input's buffer when
/// the input is the target, else over a copy of it.
fn rewritten<T: AnyElement>(
    plan: &Plan,
    x: Operand<'_, T>,
    f: impl Fn(&mut [T]) -> Result<()>,
) -> Result<Applied<T>> {
    same_shape(plan, x, &f, |s| {
        let mut r = Ok(());
        let buf = copy_then(s, |b| r = f(b))?;
        r.map(|()| buf)
    })
}

/// A fill (`zeros_like` and the like) of any dtype, the complex ones too
/// (the other lane ops order or accumulate elements): over the claimed
/// input's buffer when the input is the target, else into a new buffer.
/// (`x` is `None` when the plan has no target: the input's values, of
/// any dtype, are not read.)
pub(crate) fn fill<T: AnyElement>(
    plan: &Plan,
    value: Scalar,
    x: Option<Operand<'_, T>>,
) -> Result<Applied<T>> {
    let v = number::<T>(value);
    let Some(x) = x else {
        return Ok(finish(
            plan,
            Tensor::full(&plan.shape, v)?,
            outcome_of(plan),
        ));
    };
    same_shape(
        plan,
        x,
        |b| {
            b.fill(v);
            Ok(())
        },
        |s| crate::kernels::fresh::filled(s.len(), v),
    )
}

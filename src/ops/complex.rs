//! Complex element-wise operations ([`crate::kernels::complex`]) run from
//! a plan, as the real ones are: a complex result of the operands' dtype
//! is written over the target's buffer when the plan names one and its
//! claim succeeds (so `(a * b) + c` over temporaries allocates once, and
//! `x.donate() * y` writes into `x`'s buffer); a real result (`abs`,
//! `real`, `imag`) or a bool one always goes to a new buffer, as the
//! planner decided (the result's dtype differs from every operand's).

use super::func::done;
use super::{claim_target, outcome_of, reused, Operand};
use crate::array::dyn_tensor::{AnyElement, DynTensor};
use crate::array::element::Element;
use crate::error::{Error, Result};
use crate::kernels::complex::{kernel, ComplexElement, Kernel, Member};
use crate::kernels::{broadcast_zip_into, fresh, Side};
use crate::plan::{Outcome, Plan};

/// Run a plan of `m` over its typed complex operands (one or two).
pub(crate) fn run<T: ComplexElement + AnyElement>(
    plan: &Plan,
    m: Member,
    mut ops: Vec<Operand<'_, T>>,
) -> Result<(DynTensor, Outcome)> {
    let k = kernel::<T>(m).ok_or(Error::UnsupportedDType {
        op: plan.op.name(),
        dtype: T::DTYPE,
    })?;
    let mut outcome = outcome_of(plan);
    let shapes: Vec<Vec<usize>> = ops.iter().map(|o| o.shape().to_vec()).collect();
    let scalars: Vec<[T; 1]> = ops.iter().map(Operand::scalar).collect();
    let out = plan.shape.to_vec();
    if plan.target.is_some() && matches!(k, Kernel::Map(_) | Kernel::Zip(_)) {
        let mut refs: Vec<&mut Operand<'_, T>> = ops.iter_mut().collect();
        if let Some((idx, mut buf)) = claim_target(plan, &mut refs, &mut outcome) {
            let bytes = buf.len();
            let io = buf.as_mut_slice::<T>();
            match (&k, idx) {
                (Kernel::Map(f), _) => io.iter_mut().for_each(|z| *z = f(*z)),
                (Kernel::Zip(f), 0 | 1) => {
                    let other = 1 - idx;
                    let data = ops[other].data(&scalars[other])?;
                    broadcast_zip_into(io, data, &shapes[other], &out, |d, side| {
                        zip_over(d, side, idx == 0, *f);
                    });
                }
                _ => return Err(internal(plan)),
            }
            reused(&mut outcome, plan, idx, bytes);
            return done(plan, buf, outcome);
        }
    }
    let buf = match (k, ops.as_slice()) {
        (Kernel::Map(f), [x]) => fresh::map_new(x.data(&scalars[0])?, f)?,
        (Kernel::ToReal(f), [x]) => fresh::map_new(x.data(&scalars[0])?, f)?,
        (Kernel::Test(f), [x]) => fresh::map_new(x.data(&scalars[0])?, f)?,
        (Kernel::Zip(f), [a, b]) => zip(a, b, &scalars, &shapes, &out, f)?,
        (Kernel::Compare(f), [a, b]) => zip(a, b, &scalars, &shapes, &out, f)?,
        _ => return Err(internal(plan)),
    };
    done(plan, buf, outcome)
}

/// `f(a, b)` broadcast to `out` into a new buffer.
fn zip<T: Element, U: Element>(
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    scalars: &[[T; 1]],
    shapes: &[Vec<usize>],
    out: &[usize],
    f: fn(T, T) -> U,
) -> Result<crate::memory::buffer::OwnedBuffer> {
    fresh::zip_new(
        a.data(&scalars[0])?,
        &shapes[0],
        b.data(&scalars[1])?,
        &shapes[1],
        out,
        f,
    )
}

/// `d[i] = f(d[i], other[i])` (the target is the left operand) or
/// `d[i] = f(other[i], d[i])` (the right one).
fn zip_over<T: Copy>(d: &mut [T], other: Side<'_, T>, lhs: bool, f: fn(T, T) -> T) {
    let g = |x: T, y: T| if lhs { f(x, y) } else { f(y, x) };
    match other {
        Side::Slice(o) => d.iter_mut().zip(o).for_each(|(x, y)| *x = g(*x, *y)),
        Side::Scalar(y) => d.iter_mut().for_each(|x| *x = g(*x, y)),
    }
}

fn internal(plan: &Plan) -> Error {
    Error::InvalidArgument {
        op: plan.op.name(),
        reason: "internal: a complex plan whose operands do not fit its kernel".into(),
    }
}

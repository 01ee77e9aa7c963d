//! Tensor operations and the rules that decide when an input's buffer
//! becomes the output's.
//!
//! Every operation takes its inputs as [`Operand`]s:
//!
//! * [`Operand::Ref`]: read only, never changed;
//! * [`Operand::Owned`]: offered ([`Offer::Temporary`] or [`Offer::Donated`]):
//!   the op may *claim* this tensor's buffer for its result. Which operand
//!   is claimed, if any, is decided by [`crate::plan`] (the one place for
//!   that rule); the claim succeeds only if the buffer is still exclusive,
//!   and then leaves the tensor moved-from. If the claim is refused the
//!   tensor is untouched, the op allocates, and the [`Outcome`] says why
//!   ([`Refusal`]);
//! * [`Operand::Scalar`]: a broadcast scalar.
//!
//! Each typed operation here describes its operands, plans, and runs the
//! plan with its kernels; [`crate::driver::execute::execute`] runs the same kernels
//! for dtype-erased front ends. Writing an element-wise result over either
//! operand is safe because each output element is computed from the
//! inputs at the same index before that index is written.
//!
//! Claims are single atomic transitions of the buffer's ownership state
//! (`take_for_donation`), so two threads can never both claim one buffer.

pub mod attention;
pub mod binary;
pub(crate) mod complex;
pub mod conv;
pub(crate) mod func;
pub(crate) mod lane_ops;
mod layout;
pub mod nn;
mod reduce;
pub(crate) mod select;
pub mod unary;

use crate::array::element::Element;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::memory::buffer::OwnedBuffer;
use crate::memory::counters::{self, Reuse};
use crate::memory::timeline::ResultKind;
use crate::plan::{Holders, Offer, OperandDesc, Plan};

pub use crate::array::shape::matmul_shapes;
pub use crate::plan::{Outcome, Refusal};

/// An input of an operation. See the [module docs](self).
pub enum Operand<'a, T: Element> {
    /// Read only.
    Ref(&'a Tensor<T>),
    /// May be claimed as the output buffer; the [`Offer`] says how it came
    /// to be offered (by value: `Temporary`; donated: `Donated`).
    Owned(&'a mut Tensor<T>, Offer),
    /// A broadcast scalar.
    Scalar(T),
}

impl<T: Element> Operand<'_, T> {
    fn shape(&self) -> &[usize] {
        match self {
            Operand::Ref(t) => t.shape(),
            Operand::Owned(t, _) => t.shape(),
            Operand::Scalar(_) => &[],
        }
    }

    fn tensor(&self) -> Option<&Tensor<T>> {
        match self {
            Operand::Ref(t) => Some(t),
            Operand::Owned(t, _) => Some(t),
            Operand::Scalar(_) => None,
        }
    }

    /// This operand as planning sees it.
    pub fn describe(&self) -> OperandDesc<'_> {
        match self {
            Operand::Ref(t) => OperandDesc::tensor(T::DTYPE, t.shape()).covering(t.coverage()),
            Operand::Owned(t, offer) => OperandDesc::tensor(T::DTYPE, t.shape())
                .offered(*offer, Holders::from(t.ownership()))
                .covering(t.coverage()),
            Operand::Scalar(v) => OperandDesc::scalar(crate::array::dyn_tensor::Scalar::of(*v)),
        }
    }

    /// The data to read (a scalar as a one-element slice).
    fn data<'s>(&'s self, scalar: &'s [T; 1]) -> Result<&'s [T]> {
        match self {
            Operand::Ref(t) => t.as_slice(),
            Operand::Owned(t, _) => t.as_slice(),
            Operand::Scalar(_) => Ok(scalar),
        }
    }

    fn scalar(&self) -> [T; 1] {
        match self {
            Operand::Scalar(v) => [*v],
            _ => [T::ZERO],
        }
    }
}

/// Plan `op` over typed operands: a typed operation's result has the
/// operands' element type, so a plan with another dtype (integer true
/// division, `exp` of integers) is an `UnsupportedDType` here.
pub(crate) fn typed_plan<T: Element>(
    op: &crate::plan::Op,
    operands: &[&Operand<'_, T>],
) -> Result<Plan> {
    let descs: Vec<OperandDesc<'_>> = operands.iter().map(|o| o.describe()).collect();
    let p = crate::plan::plan(op, &descs)?;
    if p.dtype != T::DTYPE {
        return Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: T::DTYPE,
        });
    }
    Ok(p)
}

/// The result of an operation plus what it did with its inputs.
pub type Applied<T> = (Tensor<T>, Outcome);

/// Try to claim `t`'s buffer for a result of shape `out`.
pub(crate) fn claim<T: Element>(
    t: &mut Tensor<T>,
    out: &[usize],
    op: &'static str,
) -> std::result::Result<OwnedBuffer, Refusal> {
    if t.shape() != out {
        return Err(Refusal::Shape {
            operand: t.shape().to_vec(),
            result: out.to_vec(),
        });
    }
    t.take_buffer_for(op).map_err(|e| Refusal::of_claim(&e))
}

impl Refusal {
    /// The refusal for a failed claim (`take_buffer_for`).
    pub(crate) fn of_claim(e: &Error) -> Refusal {
        match e {
            Error::NotDonatable { handles, exports } => Refusal::Shared {
                handles: *handles,
                exports: *exports,
            },
            Error::AlreadyDonated { .. } => Refusal::Donated,
            Error::Pinned => Refusal::Pinned,
            _ => Refusal::Busy,
        }
    }
}

/// The outcome of running `plan` so far: its refusals, nothing reused yet.
pub(crate) fn outcome_of(plan: &Plan) -> Outcome {
    Outcome {
        reused: None,
        refused: plan.refusals.to_vec(),
    }
}

/// Record the reuse of operand `idx`'s buffer (`bytes` long). When that
/// buffer is the op's own copy of the operand (a cast, or a strided view
/// copied into C order), no caller's buffer was reused: the bytes count
/// as reused, but not as a donation.
pub(crate) fn reused(outcome: &mut Outcome, plan: &Plan, idx: usize, bytes: usize) {
    if plan.is_own_copy(idx) {
        counters::record_reused_bytes(bytes);
    } else {
        let kind = match plan.offers.get(idx) {
            Some(Offer::Donated) => Reuse::Explicit,
            _ => Reuse::Implicit,
        };
        counters::record_reuse(kind, bytes);
    }
    outcome.reused = Some(idx);
}

/// Close an outcome: see [`count_fallbacks`].
pub(crate) fn finish<T: Element>(plan: &Plan, result: Tensor<T>, outcome: Outcome) -> Applied<T> {
    count_fallbacks(plan, &outcome);
    (result, outcome)
}

/// The end of every operation, in this one place: each donation that was
/// not honoured (other than because another operand's buffer was used) is
/// counted as a fallback, and active memory timelines record the op.
pub(crate) fn count_fallbacks(plan: &Plan, outcome: &Outcome) {
    let mut copied = false;
    for (i, r) in &outcome.refused {
        if plan.offers.get(*i) == Some(&Offer::Donated) && *r != Refusal::OtherOperandUsed {
            counters::record_fallback();
            copied = true;
        }
    }
    crate::memory::timeline::record(|| (plan.op.name(), result_kind(plan, outcome, copied)));
}

/// How an operation's result was made, for the memory timeline.
fn result_kind(plan: &Plan, outcome: &Outcome, copied: bool) -> ResultKind {
    let view = plan.op.is_view();
    match outcome.reused {
        _ if plan.in_place => ResultKind::InPlace,
        Some(i) if plan.is_own_copy(i) => ResultKind::Fresh,
        Some(i) if plan.offers.get(i) == Some(&Offer::Donated) => ResultKind::Donated,
        _ if view && plan.allocated_bytes() == 0 => ResultKind::View,
        Some(_) => ResultKind::Reused,
        None if copied => ResultKind::Copied,
        None => ResultKind::Fresh,
    }
}

/// Claim the planned target among `ops` for a result of the plan's shape:
/// `Some((index, buffer))`, or `None` (no target, or its claim was
/// refused now: then the refusal is in `outcome` and the op computes
/// into a new buffer).
pub(crate) fn claim_target<T: Element>(
    plan: &Plan,
    ops: &mut [&mut Operand<'_, T>],
    outcome: &mut Outcome,
) -> Option<(usize, OwnedBuffer)> {
    let i = plan.target?;
    let Operand::Owned(t, _) = &mut *ops[i] else {
        return None;
    };
    match claim(t, &plan.shape, plan.op.name()) {
        Ok(buf) => Some((i, buf)),
        Err(r) => {
            outcome.refused.push((i, r));
            outcome.refused.sort_by_key(|(j, _)| *j);
            None
        }
    }
}

/// Run a plan whose result has its input's shape: claim the input's
/// buffer when it is the target and run `in_place` on it, or run `fresh`
/// on the input's data.
fn same_shape<T: Element>(
    plan: &Plan,
    mut x: Operand<'_, T>,
    in_place: impl FnOnce(&mut [T]) -> Result<()>,
    fresh: impl FnOnce(&[T]) -> Result<OwnedBuffer>,
) -> Result<Applied<T>> {
    let mut outcome = outcome_of(plan);
    if let Some((_, mut buf)) = claim_target(plan, &mut [&mut x], &mut outcome) {
        in_place(buf.as_mut_slice::<T>())?;
        reused(&mut outcome, plan, 0, buf.len());
        return Ok(finish(
            plan,
            Tensor::from_buffer(buf, &plan.shape)?,
            outcome,
        ));
    }
    let one = x.scalar();
    let out = Tensor::from_buffer(fresh(x.data(&one)?)?, &plan.shape)?;
    Ok(finish(plan, out, outcome))
}

/// A copy of `src` with `f` applied to it in place: the out-of-place form
/// of an op that has an in-place kernel.
fn copy_then<T: Element>(src: &[T], f: impl FnOnce(&mut [T])) -> Result<OwnedBuffer> {
    let mut buf = crate::kernels::fresh::copied(src)?;
    f(buf.as_mut_slice::<T>());
    Ok(buf)
}

/// In-place update of `t` (`&mut`): run `in_place` on its buffer when it is
/// exclusive, else compute `fresh` from its data and replace the handle
/// (copy-on-write), so other handles and views keep the old values.
fn update<T: Element>(
    t: &mut Tensor<T>,
    in_place: impl FnOnce(&mut [T]) -> Result<()>,
    fresh: impl FnOnce(&[T]) -> Result<OwnedBuffer>,
) -> Result<()> {
    t.check_readable()?; // a moved-from tensor reports AlreadyDonated
    if let Some(r) = t.write_with(|s| {
        let bytes = std::mem::size_of_val(s);
        in_place(s).map(|()| bytes)
    }) {
        counters::record_reuse(Reuse::InPlace, r?);
        return Ok(());
    }
    let shape = t.shape().to_vec();
    let src = t.contiguous()?;
    let new = Tensor::from_buffer(fresh(src.as_slice()?)?, &shape)?;
    *t = new;
    Ok(())
}

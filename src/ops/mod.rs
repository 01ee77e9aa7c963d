//! Tensor operations and the rules that decide when an input's buffer
//! becomes the output's.
//!
//! Every operation takes its inputs as [`Operand`]s:
//!
//! * [`Operand::Ref`]: read only, never changed;
//! * [`Operand::Owned`]: the op may *claim* this tensor's buffer for its
//!   result: it succeeds only if the buffer is exclusive and has the result's
//!   shape and dtype, and then leaves the tensor moved-from. If the claim is
//!   refused the tensor is untouched, the op allocates, and the [`Outcome`]
//!   says why ([`Refusal`]);
//! * [`Operand::Scalar`]: a broadcast scalar.
//!
//! Element-wise binary ops claim the left operand first, then the right; this
//! is safe for every element-wise op because each output element is computed
//! from the inputs at the same index before that index is written.
//!
//! Claims are single atomic transitions of the buffer's ownership state
//! (`take_for_donation`), so two threads can never both claim one buffer.

pub mod binary;
pub mod conv;
mod layout;
pub mod nn;
mod reduce;
pub mod unary;

use std::fmt;

use crate::buffer::OwnedBuffer;
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::stats::{self, Reuse};
use crate::tensor::Tensor;

pub use nn::matmul_shapes;

/// An input of an operation. See the [module docs](self).
pub enum Operand<'a, T: Element> {
    /// Read only.
    Ref(&'a Tensor<T>),
    /// May be claimed as the output buffer; `Reuse` says how it came to be
    /// offered (by value or temporary: `Implicit`; donated: `Explicit`).
    Owned(&'a mut Tensor<T>, Reuse),
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
}

/// Why an offered buffer was not used for the result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Other tensors or exported views share it.
    Shared { handles: u32, exports: u32 },
    /// An in-place writer holds it.
    Busy,
    /// It was already moved out.
    Donated,
    /// The result has another shape.
    Shape {
        operand: Vec<usize>,
        result: Vec<usize>,
    },
    /// The other operand's buffer was used instead.
    OtherOperandUsed,
    /// This op never writes into its input (reductions, matmul).
    NewBuffer(&'static str),
    /// The operand is a parameter of this op (a convolution's weight),
    /// which only ever writes into its input.
    Parameter(&'static str),
    /// The result has another dtype (type promotion).
    DType { operand: DType, result: DType },
    /// The same tensor is also another operand of the operation, which
    /// still reads it.
    SameTensor,
    /// An in-place operation writes its result into its target, never
    /// into another operand.
    InPlaceTarget(&'static str),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Shared { handles, exports } => {
                write!(
                    f,
                    "{}",
                    Error::NotDonatable {
                        handles: *handles,
                        exports: *exports
                    }
                )
            }
            Refusal::Busy => write!(f, "it is being written by another operation"),
            Refusal::Donated => write!(f, "it was already donated"),
            Refusal::Shape { operand, result } => write!(
                f,
                "its shape {operand:?} differs from the result's shape {result:?}"
            ),
            Refusal::OtherOperandUsed => write!(f, "the other operand's buffer was used instead"),
            Refusal::NewBuffer(op) => write!(f, "{op} always writes a new buffer of another shape"),
            Refusal::Parameter(op) => write!(
                f,
                "{op} only writes into its input, never into this operand"
            ),
            Refusal::DType { operand, result } => {
                write!(
                    f,
                    "its dtype {operand} differs from the result's dtype {result}"
                )
            }
            Refusal::SameTensor => write!(
                f,
                "the same tensor is also another operand of this operation"
            ),
            Refusal::InPlaceTarget(op) => write!(
                f,
                "{op} writes its result into its target in place, never into this operand"
            ),
        }
    }
}

/// What an operation did with the buffers offered to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Index of the operand whose buffer holds the result, if any.
    pub reused: Option<usize>,
    /// Operands offered (`Owned`) but not used, with the reason.
    pub refused: Vec<(usize, Refusal)>,
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
    t.take_buffer_for(op).map_err(|e| match e {
        Error::NotDonatable { handles, exports } => Refusal::Shared { handles, exports },
        Error::AlreadyDonated { .. } => Refusal::Donated,
        _ => Refusal::Busy,
    })
}

/// Record a refused offer: an explicit donation that was not honoured is a
/// fallback (copy protection).
pub(crate) fn refuse(outcome: &mut Outcome, idx: usize, kind: Reuse, r: Refusal) {
    if kind == Reuse::Explicit && r != Refusal::OtherOperandUsed {
        stats::record_fallback();
    }
    outcome.refused.push((idx, r));
}

/// An op whose result has its input's shape: claim the input's buffer and
/// run `in_place` on it, or run `fresh` on the input's data.
fn same_shape<T: Element>(
    x: Operand<'_, T>,
    op: &'static str,
    in_place: impl FnOnce(&mut [T]) -> Result<()>,
    fresh: impl FnOnce(&[T]) -> Result<OwnedBuffer>,
) -> Result<Applied<T>> {
    let mut outcome = Outcome::default();
    match x {
        Operand::Owned(t, kind) => {
            let shape = t.shape().to_vec();
            match claim(t, &shape, op) {
                Ok(mut buf) => {
                    in_place(buf.as_mut_slice::<T>())?;
                    stats::record_reuse(kind, buf.len());
                    outcome.reused = Some(0);
                    Ok((Tensor::from_buffer(buf, &shape)?, outcome))
                }
                Err(r) => {
                    let data = t.as_slice()?;
                    refuse(&mut outcome, 0, kind, r);
                    Ok((Tensor::from_buffer(fresh(data)?, &shape)?, outcome))
                }
            }
        }
        Operand::Ref(t) => Ok((
            Tensor::from_buffer(fresh(t.as_slice()?)?, t.shape())?,
            outcome,
        )),
        Operand::Scalar(v) => {
            let one = [v];
            Ok((Tensor::from_buffer(fresh(&one)?, &[])?, outcome))
        }
    }
}

/// A copy of `src` with `f` applied to it in place: the out-of-place form
/// of an op that has an in-place kernel.
fn copy_then<T: Element>(src: &[T], f: impl FnOnce(&mut [T])) -> Result<OwnedBuffer> {
    let mut buf = crate::kernels::fresh::copied(src)?;
    f(buf.as_mut_slice::<T>());
    Ok(buf)
}

/// An op that always writes a new buffer (reductions, matmul): offered
/// buffers are refused with `NewBuffer`.
fn refuse_all<T: Element>(ops: &[&Operand<'_, T>], name: &'static str) -> Outcome {
    let mut outcome = Outcome::default();
    for (i, o) in ops.iter().enumerate() {
        if let Operand::Owned(_, kind) = o {
            refuse(&mut outcome, i, *kind, Refusal::NewBuffer(name));
        }
    }
    outcome
}

/// In-place update of `t` (`&mut`): run `in_place` on its buffer when it is
/// exclusive, else compute `fresh` from its data and replace the handle
/// (copy-on-write), so other handles and views keep the old values.
fn update<T: Element>(
    t: &mut Tensor<T>,
    in_place: impl FnOnce(&mut [T]) -> Result<()>,
    fresh: impl FnOnce(&[T]) -> Result<OwnedBuffer>,
) -> Result<()> {
    t.as_slice()?; // a moved-from tensor reports AlreadyDonated
    if let Some(mut g) = t.write_guard() {
        let s = g.slice::<T>();
        let bytes = std::mem::size_of_val(s);
        in_place(s)?;
        stats::record_reuse(Reuse::InPlace, bytes);
        return Ok(());
    }
    let shape = t.shape().to_vec();
    let new = Tensor::from_buffer(fresh(t.as_slice()?)?, &shape)?;
    *t = new;
    Ok(())
}

/// Apply a closure to the elements: on the claimed input buffer, else on a
/// fresh copy (what [`OpBuilder::apply`](crate::OpBuilder::apply) runs).
pub(crate) fn same_shape_apply<T: Element>(
    x: Operand<'_, T>,
    f: impl FnOnce(&mut [T]),
) -> Result<Applied<T>> {
    let f = std::cell::Cell::new(Some(f));
    let run = |b: &mut [T]| {
        if let Some(f) = f.take() {
            f(b)
        }
    };
    same_shape(
        x,
        "apply",
        |b| {
            run(b);
            Ok(())
        },
        |s| copy_then(s, run),
    )
}

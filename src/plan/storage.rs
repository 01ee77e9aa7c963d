//! The planner's one rule for the storage dtype float16
//! ([`DType::is_storage`]).
//!
//! # The model
//!
//! A float16 tensor holds two bytes per element, as NumPy's and
//! PyTorch's do, and the operations that only move elements ([`Op::moves_only`]:
//! views, copies, casts, selections, assignments, concatenations, fills)
//! read and write them as they are, so a view of a float16 tensor is a
//! float16 view of its buffer and an assignment writes through it.
//!
//! Every other operation whose NumPy loop is float16's (its plan's
//! `compute` is float16) runs in float32 ([`DType::computed_as`], which
//! holds every float16 value exactly): its float16 operands are read
//! through a cast copy (a planned allocation), a Python number operand is
//! rounded to float16 first ([`weak`]), it computes a float32 result,
//! and, when NumPy's result dtype is float16, that result is rounded once
//! into a new float16 buffer, which is what NumPy's float16 loops do
//! (they convert to float32, compute, and convert back). No kernel reads
//! float16.
//!
//! # Donation
//!
//! A float16 result never lands in an operand's buffer: the result is
//! computed in float32 first, so a donated float16 operand is refused
//! ([`Refusal::Storage`]), copied, and the refusal says why; an in-place
//! operation (`h += 1`, `h.exp_()`) writes its rounded result into `h`'s
//! own buffer, through its views, as any in-place write.
//!
//! # Examples
//!
//! ```
//! use donate::plan::{plan, storage, Holders, Offer, Op, OperandDesc, Refusal};
//! use donate::{BinaryOp, DType};
//!
//! let h = OperandDesc::tensor(DType::F16, &[8]).offered(Offer::Donated, Holders::Exclusive);
//! let p = plan(&Op::Binary(BinaryOp::Add), &[h, OperandDesc::tensor(DType::I8, &[8])])?;
//! assert_eq!(p.dtype, DType::F16); // NumPy's promotion
//! assert_eq!(p.read_dtype(0, DType::F16), DType::F32); // read through a cast
//! assert!(storage::narrows(&p)); // rounded into a new float16 buffer
//! assert_eq!(p.refusals[0].1, Refusal::Storage(DType::F16));
//! # Ok::<(), donate::Error>(())
//! ```
//!
//! # Rationale
//!
//! These CPUs have no float16 arithmetic (x86's is AVX-512 FP16, on few
//! machines), only conversions, so every library computes float16 in
//! float32 somewhere; NumPy does it per loop, as here. One rule in the
//! planner keeps float16 out of every kernel and every dtype dispatch of
//! a computation, instead of a float16 variant of each.
//!
//! # Limitations
//!
//! The float32 intermediate costs four bytes an element on top of the
//! result (the plan lists it as scratch). Python floats and integers
//! still never make float16 on their own (`DEFAULT_FLOAT` is float32),
//! and a float function of an integer tensor gives float32 where NumPy
//! gives float16 for 8-bit integers ([`DType::float_result`]).

use super::{Allocation, Op, Plan, Purpose, Refusal};
use crate::array::dyn_tensor::{number, Scalar};
use crate::array::element::{DType, F16};

/// The dtype an operand that `op` reads as `read` is really read as:
/// float32 for float16 when `op` computes, `read` otherwise.
pub(super) fn read_as(op: &Op, read: DType) -> DType {
    // (every plan asks, for every operand: the dtype first)
    if read.is_storage() && !op.moves_only() {
        read.computed_as()
    } else {
        read
    }
}

/// Whether `plan` computes in the storage dtype: NumPy's loop for it is
/// float16's (its `compute`), which runs in float32.
pub fn computes_in_storage(plan: &Plan) -> bool {
    plan.compute.is_storage() && !plan.op.moves_only()
}

/// Whether `plan` computes a result it stores as float16 (so it rounds
/// a float32 result into a new float16 buffer, or in place into its
/// target).
pub fn narrows(plan: &Plan) -> bool {
    plan.dtype.is_storage() && !plan.op.moves_only()
}

/// How a plan that [`narrows`] takes its float32 result to float16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrowing {
    /// Rounded to nearest, as a cast.
    Round,
    /// A step in float16's own numbers ([`crate::kernels::Func::steps_in_own_dtype`]):
    /// each element the float16 neighbour of its rounded value on the
    /// side the float32 result lies (or that value, where it did not
    /// move).
    Step,
}

/// How `plan`'s result is narrowed to its storage dtype.
pub fn narrowing(plan: &Plan) -> Narrowing {
    match plan.op {
        Op::Func(f) if f.steps_in_own_dtype() => Narrowing::Step,
        _ => Narrowing::Round,
    }
}

/// The float32 result of a plan that [`narrows`], before it is rounded
/// (`bytes`: the float16 result's).
pub(super) fn scratch(plan: &Plan, bytes: usize) -> Option<Allocation> {
    narrows(plan).then(|| Allocation {
        purpose: Purpose::Scratch,
        bytes: bytes / plan.dtype.size() * plan.dtype.computed_as().size(),
    })
}

/// The refusal of an offered operand of a plan that computes with the
/// storage dtype.
pub(super) fn refusal(plan: &Plan) -> Option<Refusal> {
    if narrows(plan) || computes_in_storage(plan) {
        Some(Refusal::Storage(DType::F16))
    } else {
        None
    }
}

/// The plan that runs `plan` in float32, when `plan`
/// [`computes_in_storage`] (not in place): the same operation over the
/// operands `plan` already cast, into a new buffer, with a float16 result
/// computed as float32. The caller rounds the Python numbers among the
/// operands to float16 first ([`weak`]), as NumPy's weak scalars take
/// the tensor's dtype, and rounds a float16 result ([`narrows`]).
pub fn widened(plan: &Plan) -> Option<Plan> {
    if !(computes_in_storage(plan) || narrows(plan)) || plan.in_place {
        return None;
    }
    let mut wide = plan.clone();
    wide.dtype = plan.dtype.computed_as();
    wide.compute = plan.compute.computed_as();
    wide.target = None;
    wide.casts.clear();
    wide.gathers.clear();
    wide.refusals.clear();
    wide.allocations.clear();
    Some(wide)
}

/// A Python number operand of a computation in `storage` (float16):
/// rounded to it first, as NumPy converts a weak scalar to the tensor's
/// dtype before its float16 loop reads it as float32 (`h + 0.1` adds
/// float16's 0.1, 0.0999755859375).
pub fn weak(s: Scalar, storage: DType) -> Scalar {
    match s {
        Scalar::Float(_) | Scalar::Int(_) if storage == DType::F16 => {
            Scalar::Float(number::<F16>(s).to_f64())
        }
        s => s,
    }
}

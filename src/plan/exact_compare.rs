//! Exact comparisons of integers: the one case where a comparison does
//! not read its operands in their promoted dtype. NumPy 2 compares
//! integers exactly; promoted, uint64 against int64 would meet in
//! float64 and round, and a Python int outside a tensor's dtype would be
//! refused. The planner decides it here ([`exact_compare`]) and records
//! it in the plan ([`super::Plan::exact`]); the cast planning and the
//! driver ask the plan.

use super::{Kind, OperandDesc};
use crate::array::dyn_tensor::Scalar;
use crate::array::element::DType;

/// The compute dtype of a comparison of integers that their promoted
/// dtype cannot hold, compared exactly, as NumPy 2 compares them:
///
/// * a uint64 tensor with a signed integer tensor (their promoted dtype,
///   float64, rounds both above 2^53: `2**63` would equal `2**63 - 1`);
/// * an integer tensor with a Python int outside its dtype
///   (`uint8_tensor < 300`, `uint64_tensor > -1`), where the int would
///   otherwise be refused.
///
/// The plan computes in int64 (a narrower operand is cast to it) and
/// reads a uint64 operand as it is ([`super::Plan::read_dtype`]); the
/// kernel compares the two in `i128`.
pub(super) fn exact_compare(o: &[OperandDesc<'_>]) -> Option<DType> {
    let signed = |d: DType| d.is_int() && !d.is_unsigned();
    let outside = |v: i128, d: DType| {
        d.is_int()
            && d.int_range()
                .is_some_and(|(lo, hi)| !(lo..=hi).contains(&v))
    };
    let [a, b] = o else { return None };
    let exact = match (a.kind, b.kind) {
        (Kind::Tensor(_), Kind::Tensor(_)) => match (a.held()?, b.held()?) {
            (DType::U64, d) | (d, DType::U64) => signed(d),
            _ => false,
        },
        (Kind::Tensor(_), Kind::Scalar(Scalar::Int(v))) => outside(v, a.held()?),
        (Kind::Scalar(Scalar::Int(v)), Kind::Tensor(_)) => outside(v, b.held()?),
        _ => false,
    };
    exact.then_some(DType::I64)
}

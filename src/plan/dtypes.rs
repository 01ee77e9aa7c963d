//! The dtype rules every signature shares: NumPy's promotion of the
//! operands (NEP 50 for weak Python numbers, several operands as
//! `np.result_type`), the float functions' dtype, and the range checks
//! of Python numbers against the dtype they meet.

use smallvec::SmallVec;

use super::{Kind, Op, OperandDesc};
use crate::array::dyn_tensor::{check_scalar, Scalar};
use crate::array::element::DType;
use crate::error::{Error, Result};

pub(super) fn invalid_arg(op: &Op, reason: String) -> Error {
    Error::InvalidArgument {
        op: op.name(),
        reason,
    }
}

pub(super) fn invalid_operand(op: &Op, reason: String) -> Error {
    Error::InvalidOperand {
        op: op.name(),
        reason,
    }
}

/// The tensor dtype of operand `d` (an error for a scalar).
pub(super) fn tensor_dtype(op: &Op, d: &OperandDesc<'_>, what: &str) -> Result<DType> {
    d.held().ok_or_else(|| {
        invalid_operand(
            op,
            format!("{what} must be a tensor or array, not a number"),
        )
    })
}

/// The float dtype a float-only op gives for `d`: NumPy's ufunc loops
/// ([`DType::float_result`]: float16 for float16, float32 for bool and
/// the 8- and 16-bit integers, float64 for the wider ones).
pub(super) fn float_result(d: DType) -> DType {
    d.float_result()
}

pub(super) fn float_only(op: &Op, d: DType) -> Result<DType> {
    if d.is_float() {
        Ok(d)
    } else {
        Err(invalid_operand(
            op,
            format!("needs a float tensor, got {d}"),
        ))
    }
}

/// NumPy's result dtype of the operands: tensors promote by the table;
/// a weak scalar takes the tensors' dtype, except that a float meets an
/// integer result as float64 (NEP 50).
pub(super) fn common_dtype(op: &Op, operands: &[OperandDesc<'_>]) -> Result<DType> {
    let Some(mut d) = DType::promote_all(&tensor_dtypes(operands)) else {
        return Err(invalid_operand(
            op,
            "at least one operand must be a tensor".into(),
        ));
    };
    let scalar = |f: fn(&Scalar) -> bool| {
        operands
            .iter()
            .any(|o| matches!(&o.kind, Kind::Scalar(s) if f(s)))
    };
    if scalar(|s| matches!(s, Scalar::Complex(..))) && !d.is_complex() {
        // A complex number meets a float tensor as its complex dtype, an
        // integer or bool one as complex128 (NEP 50).
        d = d.complex_of().unwrap_or(DType::C128);
    } else if scalar(|s| matches!(s, Scalar::Float(_))) && !d.is_float() && !d.is_complex() {
        d = DType::F64;
    } else if scalar(|s| matches!(s, Scalar::Int(_))) && d.is_bool() {
        d = DType::I64;
    }
    Ok(d)
}

/// The dtypes of the tensor operands.
pub(super) fn tensor_dtypes(operands: &[OperandDesc<'_>]) -> SmallVec<[DType; 4]> {
    operands.iter().filter_map(OperandDesc::held).collect()
}

pub(super) fn check_scalars(op: &Op, operands: &[OperandDesc<'_>], dtype: DType) -> Result<()> {
    for o in operands {
        if let Kind::Scalar(s) = o.kind {
            check_scalar(op.name(), s, dtype)?;
        }
    }
    Ok(())
}

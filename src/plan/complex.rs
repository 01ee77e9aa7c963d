//! The planner's one rule for complex operands: which operations take
//! them. Complex64 and complex128 are, so far, storage dtypes: the
//! operations that only move, view or convert elements take them; every
//! other operation refuses a complex operand here, before anything is
//! allocated, with `UnsupportedDType` naming the operation (a
//! `TypeError` in Python), never a real kernel reading complex data.

use super::{FreshOp, Op, OperandDesc};
use crate::error::{Error, Result};

/// Does `op` take complex operands?
fn takes_complex(op: &Op) -> bool {
    match op {
        Op::Reshape { .. } | Op::Permute { .. } | Op::Index { .. } | Op::Cast { .. } => true,
        Op::Fresh(f) => matches!(
            **f,
            FreshOp::Concat { .. }
                | FreshOp::Stack { .. }
                | FreshOp::BroadcastTo { .. }
                | FreshOp::Tile { .. }
                | FreshOp::Repeat { .. }
        ),
        _ => false,
    }
}

/// `Err(UnsupportedDType)` when `op` would make a complex `result` (a
/// `dtype=` asked for) but does not take complex operands.
pub(super) fn check_result(op: &Op, result: crate::DType) -> Result<()> {
    if result.is_complex() && !takes_complex(op) {
        return Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: result,
        });
    }
    Ok(())
}

/// `Err(UnsupportedDType)` when an operand of `op` is complex and `op`
/// does not take complex operands, and for `astype` from a complex to a
/// real dtype other than bool, which the array API standard does not
/// permit (the imaginary part would be lost; NumPy only warns). Into
/// bool it is the standard's: `0+0j` is false, everything else true.
pub(super) fn check(op: &Op, o: &[OperandDesc<'_>]) -> Result<()> {
    let Some(d) = o
        .iter()
        .filter_map(OperandDesc::held)
        .find(|d| d.is_complex())
    else {
        return Ok(());
    };
    if let Op::Cast { dtype } = op {
        if !dtype.is_complex() && !dtype.is_bool() {
            return Err(Error::InvalidOperand {
                op: op.name(),
                reason: format!(
                    "cannot cast {d} to {dtype}: the imaginary part would be lost \
                     (the array API standard does not permit a complex to real cast)"
                ),
            });
        }
    }
    if takes_complex(op) {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: d,
        })
    }
}

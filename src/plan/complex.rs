//! The planner's one rule for complex operands: which operations take
//! them. The operations that only move, view or convert elements take
//! them, and the element-wise functions that have complex kernels
//! (`+ - * /`, `**`, `abs`, `conj`, `real`, `imag`, comparisons for
//! equality, the tests, `exp`, `log`, the trigonometric and hyperbolic
//! functions and their inverses: `kernels/complex/` lists them in one
//! table); every other operation
//! refuses a complex operand here, before anything is allocated, with
//! `UnsupportedDType` naming the operation (a `TypeError` in Python),
//! never a real kernel reading complex data.

use super::{FreshOp, Op, OperandDesc, Reduction};
use crate::error::{Error, Result};
use crate::functions::statistics::Statistic;
use crate::kernels::FuncKind;

/// Does `op` take complex operands? The element-wise operations that
/// have a complex kernel, as the kernels' one table says
/// ([`crate::kernels::complex::takes`]), the ones that only move
/// elements, and those that read truth values or count nonzeros.
fn takes_complex(op: &Op) -> bool {
    use crate::kernels::complex::{takes, Member};
    match op {
        Op::Unary(u) => takes(Member::Unary(*u)),
        Op::Binary(b) => takes(Member::Binary(*b)),
        // The logical functions read their operands' truth values (the
        // planner casts them to bool: `0+0j` is false).
        Op::Func(f) => takes(Member::Func(*f)) || f.kind() == FuncKind::Logical,
        // Moves, views, conversions, selections, and gemm's complex
        // products.
        // (An assignment takes complex values into a complex target only:
        // `check` decides.)
        _ if op.moves_only() && !assigns(op) => true,
        Op::Matmul => true,
        // Sums, products, means and spreads (complex numbers are
        // unordered: no max or min).
        Op::Reduce { kind, .. } => matches!(kind, Reduction::Sum | Reduction::Mean),
        Op::Statistic(s) => matches!(
            s.statistic,
            Statistic::Sum { .. }
                | Statistic::Prod { .. }
                | Statistic::Mean { .. }
                | Statistic::Var { .. }
                | Statistic::Std { .. }
        ),
        // Running sums and products.
        Op::Lane(l) => l.takes_any_element(),
        Op::Fresh(f) => {
            // (`bincount` sums complex weights; its indices are integers,
            // as its signature checks.)
            matches!(
                **f,
                FreshOp::CountNonzero { .. } | FreshOp::Diff { .. } | FreshOp::Bincount { .. }
            )
                // Linear algebra and the transforms decide in their
                // signatures (`rfft` refuses complex input; every linalg
                // function takes it).
                || matches!(&**f, FreshOp::Linalg(_) | FreshOp::Fft(_))
        }
        _ => false,
    }
}

/// Is `op` an assignment into its first operand (`t[i] = v` through a
/// view, or at positions: an index array, a mask)? Its values take the
/// target's dtype, so a complex value needs a complex target.
fn assigns(op: &Op) -> bool {
    matches!(op, Op::SetItem { .. } | Op::Scatter)
}

/// `Err(UnsupportedDType)` when `op` would make a complex `result` (a
/// `dtype=` asked for) but does not take complex operands.
pub(super) fn check_result(op: &Op, result: crate::DType) -> Result<()> {
    // An assignment's result is its target: complex only when the target
    // is, which `check` allows.
    if result.is_complex() && !takes_complex(op) && !assigns(op) {
        return Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: result,
        });
    }
    Ok(())
}

/// The dtype a caller asked `op` to compute in (`astype`, `dtype=` of a
/// sum, a product, a running sum or product, or a trace).
fn asked_dtype(op: &Op) -> Option<crate::DType> {
    match op {
        Op::Cast { dtype } => Some(*dtype),
        Op::Statistic(s) => match s.statistic {
            Statistic::Sum { dtype } | Statistic::Prod { dtype } => dtype,
            _ => None,
        },
        Op::Fresh(f) => match &**f {
            FreshOp::Linalg(crate::functions::linalg::LinalgOp::Trace { dtype, .. }) => *dtype,
            _ => None,
        },
        Op::Lane(l) => match &**l {
            crate::functions::lane_ops::LaneOp::Running { dtype, .. } => *dtype,
            _ => None,
        },
        _ => None,
    }
}

/// `Err(UnsupportedDType)` when an operand of `op` is complex and `op`
/// does not take complex operands, and `InvalidOperand` when a real dtype
/// is asked of complex numbers (`astype`, `sum(x, dtype=float64)`, a
/// trace's `dtype=`), which the array API standard does not permit (the
/// imaginary part would be lost; NumPy only warns). `astype` into bool
/// is the standard's: `0+0j` is false, everything else true.
pub(super) fn check(op: &Op, o: &[OperandDesc<'_>]) -> Result<()> {
    let Some(d) = o
        .iter()
        .filter_map(OperandDesc::held)
        .find(|d| d.is_complex())
    else {
        return Ok(());
    };
    if let Some(dtype) = asked_dtype(op) {
        // into bool, `astype` keeps the truth value
        let kept = dtype.is_complex() || (dtype.is_bool() && matches!(op, Op::Cast { .. }));
        if !kept {
            let what = if matches!(op, Op::Cast { .. }) {
                format!("cast {d} to {dtype}")
            } else {
                format!("compute in {dtype} from {d}")
            };
            return Err(Error::InvalidOperand {
                op: op.name(),
                reason: format!(
                    "cannot {what}: the imaginary part would be lost \
                     (the array API standard does not permit a complex to real cast)"
                ),
            });
        }
    }
    // Assignment takes complex values into a complex target only (the
    // imaginary part would be lost in a real one).
    let into_complex = assigns(op)
        && o.first()
            .and_then(OperandDesc::held)
            .is_some_and(crate::DType::is_complex);
    if into_complex || takes_complex(op) {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: d,
        })
    }
}

//! The choice of the buffers of a plan: which strided operands are copied
//! into C order first, and which operand's buffer receives the result (the
//! target), with the reason each other offered operand does not; in place,
//! what writing the target allocates.

use super::{Allocation, Coverage, Holders, Offer, Op, OperandDesc, Plan, Purpose, Refusal};
use crate::array::element::DType;
use crate::error::{Error, Result};

/// Which operands may receive the result.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Receives {
    /// Any operand of the result's shape and dtype.
    Any,
    /// Only the input (operand 0); the others are parameters.
    Input,
    /// Any operand but the first (`where`'s condition).
    AfterFirst,
    /// None: the op always writes a new buffer.
    Never,
}

/// Which strided operands are copied into C order first: every one read
/// by a kernel that needs contiguous data. Matmul's factors are read
/// through their strides (the GEMM takes row and column strides), the
/// view ops make views, and a
/// `__setitem__` target is written through its strides.
#[inline] // (one call site, in `plan`: kept in the eager per-call path's frame)
pub(super) fn plan_gathers(p: &mut Plan, o: &[OperandDesc<'_>]) {
    for (i, d) in o.iter().enumerate() {
        if d.coverage.is_contiguous() || p.casts.contains(&i) {
            continue;
        }
        let strided_ok = match p.op {
            // (A fill does not read its input's values at all.)
            _ if !p.op.reads_input() || p.op.is_view() => true,
            Op::Matmul => true,
            Op::Addmm => i > 0,
            Op::SetItem { .. } => i == 0,
            // The attention kernel reads q, k and v row by row.
            Op::Attention { .. } => i < 3 && d.coverage == Coverage::Rows,
            // The in-place target copies on write (its own allocation).
            _ => p.in_place && i == 0,
        };
        if !strided_ok {
            p.gathers.push(u8::try_from(i).unwrap_or(u8::MAX));
            let n: usize = d.shape.iter().product();
            // (In its own dtype: an operand read as another one is cast
            // instead, which also copies it into C order.)
            let dtype = d.held().unwrap_or(p.compute);
            p.allocations.push(Allocation {
                purpose: Purpose::Gather(i),
                bytes: n * dtype.size(),
            });
        }
    }
}

/// Pick the target: the leftmost operand that may receive the result:
/// its own buffer (offered, exclusive, of the result's shape and dtype,
/// read by no other operand) or its cast copy (the op's own buffer). Each
/// offered operand whose buffer is not used gets its reason.
#[inline] // (as `plan_gathers`)
pub(super) fn choose_target(p: &mut Plan, o: &[OperandDesc<'_>], receives: Receives) {
    let name = p.op.name();
    for (i, d) in o.iter().enumerate() {
        let Some(held) = d.held() else { continue };
        // A cast or C-order copy is the op's own buffer: it may receive
        // the result.
        let cast = p.is_own_copy(i);
        let is_cast = p.casts.contains(&i);
        let gathered = cast && !is_cast;
        let offered = d.offer != Offer::Borrowed;
        if !offered && !cast {
            continue;
        }
        let role = match receives {
            Receives::Never => Some(Refusal::NewBuffer(name)),
            Receives::Input if i > 0 => Some(Refusal::Parameter(name)),
            Receives::AfterFirst if i == 0 => Some(Refusal::Parameter(name)),
            _ => None,
        };
        // A reshape's result has another shape by definition: its buffer
        // moves into the result.
        let shape_fits = d.shape == p.shape.as_slice() || p.op.is_view();
        let shared_id = d.id.is_some() && o.iter().enumerate().any(|(j, e)| j != i && e.id == d.id);
        // The operands are read as `compute`; the result may be another
        // dtype (bool), which no operand of another dtype can hold.
        let result_fits = p.compute == p.dtype && super::storage::refusal(p).is_none();
        let own = role.clone().or_else(|| {
            if let Some(r) = super::storage::refusal(p) {
                Some(r)
            } else if is_cast || !result_fits || (!cast && held != p.read_dtype(i, held)) {
                // (An operand of another dtype is cast unless the op does
                // not read it, a fill's.)
                Some(Refusal::DType {
                    operand: if is_cast || held != p.read_dtype(i, held) {
                        held
                    } else {
                        p.compute
                    },
                    result: p.dtype,
                })
            } else if gathered {
                Some(Refusal::View { strided: true })
            } else if shared_id {
                Some(Refusal::SameTensor)
            } else if !shape_fits {
                Some(Refusal::Shape {
                    operand: d.shape.to_vec(),
                    result: p.shape.to_vec(),
                })
            } else {
                d.buffer_refusal()
            }
        });
        let fits = own.is_none() || (cast && role.is_none() && shape_fits && result_fits);
        let other_used = fits && p.target.is_some();
        if fits && p.target.is_none() {
            p.target = Some(i);
        }
        if offered {
            let reason = match own {
                Some(r) => Some(r),
                None if other_used => Some(Refusal::OtherOperandUsed),
                None => None,
            };
            if let Some(r) = reason {
                p.refusals.push((i, r));
            }
        }
    }
}

/// The in-place part of a plan: the target is operand 0, a shape the
/// result would change is refused, the other operands' donations are
/// refused, and what the write allocates (a copy on write, a same-kind
/// cast) is listed.
pub(super) fn plan_target_in_place(
    p: &mut Plan,
    op: &Op,
    o: &[OperandDesc<'_>],
    numel_bytes: usize,
) -> Result<()> {
    if let Op::Binary(b) = op {
        if p.shape[..] != *o[0].shape {
            // The operand's shape, broadcast with the target's, grew it.
            return Err(Error::NotBroadcastableTo {
                op: b.name(),
                from: o[1].shape.to_vec(),
                to: o[0].shape.to_vec(),
            });
        }
    }
    p.target = Some(0);
    if p.compute != p.dtype {
        // Same-kind casting: the target read in the promoted dtype,
        // the result computed there and cast back.
        let n: usize = o[0].shape.iter().product();
        p.allocations.push(Allocation {
            purpose: Purpose::Cast(0),
            bytes: n * p.compute.size(),
        });
        p.allocations.push(Allocation {
            purpose: Purpose::Result,
            bytes: numel_bytes,
        });
    }
    for (i, d) in o.iter().enumerate().skip(1) {
        if d.offer != Offer::Borrowed {
            p.refusals.push((i, Refusal::InPlaceTarget(op.name())));
        }
    }
    // Copy on write: a shared target, or a strided one (the in-place
    // kernels write contiguous elements; a strided target of
    // `__setitem__` is written through its strides).
    let strided = !o[0].coverage.is_contiguous() && !matches!(op, Op::SetItem { .. });
    if o[0].holders != Holders::Exclusive || strided {
        p.allocations.push(Allocation {
            purpose: Purpose::Result,
            bytes: numel_bytes,
        });
    }
    Ok(())
}

/// NumPy's `same_kind` rule for writing an operation's `result` dtype
/// into the `target` tensor it updates in place (`x op= y`, `out=`): an
/// [`Error::InvalidOperand`] (a `TypeError` in Python) when refused.
pub fn check_in_place_cast(op: &Op, result: DType, target: DType) -> Result<()> {
    if result == target || DType::can_cast_same_kind(result, target) {
        return Ok(());
    }
    Err(in_place_cast_refused(op, result, target))
}

/// The error of [`check_in_place_cast`]. (Built out of line: the eager
/// binary ops' signature calling `check_in_place_cast` itself cost ~84
/// instructions more per call of every binary op, `benches/percall.py
/// --count`, though only an in-place op with a dtype change reaches it.)
#[cold]
pub(super) fn in_place_cast_refused(op: &Op, result: DType, target: DType) -> Error {
    Error::InvalidOperand {
        op: op.name(),
        reason: format!(
            "the {result} result cannot be cast into the {target} tensor \
             written in place (NumPy's same_kind casting)"
        ),
    }
}

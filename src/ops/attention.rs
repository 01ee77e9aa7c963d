//! Fused scaled dot-product attention over tensors: the shapes and the
//! donation rule of `Op::Attention` around the kernel of
//! `kernels::attention`.
//!
//! The result may be written over `q` (when it is offered, exclusive and
//! the result has its shape, i.e. `Ev == E`): each block of output rows
//! depends only on the same rows of `q`, which the kernel reads before it
//! writes them. `k`, `v` and the mask are only read. `q`, `k` and `v` are
//! read where their rows lie, so a head split
//! (`x.reshape(b, s, h, d).transpose(0, 2, 1, 3)`) is not copied. A mask that is not
//! `[L, S]` (for every batch entry) or `[..., L, S]` is first broadcast
//! into scratch, allocated before anything is claimed.

use super::{claim_target, finish, outcome_of, reused, typed_plan, Applied, Operand};
use crate::array::shape::attention_shapes;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::{
    self, fresh, AttentionElement, AttentionSpec, BinaryOp, FullyMasked, Mask, Rows,
};
use crate::plan::{Op, Plan};

const OP: &str = "scaled_dot_product_attention";

/// `softmax(q·kᵀ·scale + mask)·v` over the last two axes (PyTorch's
/// `scaled_dot_product_attention`): `q` `[..., L, E]`, `k` `[..., S, E]`,
/// `v` `[..., S, Ev]` → `[..., L, Ev]`. `mask` is added to the scores
/// (broadcast to `[..., L, S]`; `-inf` excludes a key); `causal` lets query
/// `i` see keys `j <= i` (not together with a mask, as in PyTorch); `scale`
/// defaults to `1/sqrt(E)`. A row with every key excluded is 0. `q`'s
/// buffer receives the result when it is offered and fits.
pub fn scaled_dot_product_attention<T: AttentionElement>(
    q: Operand<'_, T>,
    k: &Tensor<T>,
    v: &Tensor<T>,
    mask: Option<&Tensor<T>>,
    causal: bool,
    scale: Option<f64>,
) -> Result<Applied<T>> {
    let op = Op::Attention {
        causal,
        scale,
        mask: mask.is_some(),
    };
    let (k_op, v_op, m_op) = (Operand::Ref(k), Operand::Ref(v), mask.map(Operand::Ref));
    let mut ops = vec![&q, &k_op, &v_op];
    ops.extend(m_op.iter());
    let plan = typed_plan(&op, &ops)?;
    run_attention(&plan, q, k, v, mask)
}

/// Run an attention plan (shapes and dtypes were checked by planning;
/// every operand is readable).
pub(crate) fn run_attention<T: AttentionElement>(
    plan: &Plan,
    mut q: Operand<'_, T>,
    k: &Tensor<T>,
    v: &Tensor<T>,
    mask: Option<&Tensor<T>>,
) -> Result<Applied<T>> {
    let Op::Attention { causal, scale, .. } = plan.op else {
        return Err(Error::InvalidArgument {
            op: OP,
            reason: format!("not an attention plan: {plan}"),
        });
    };
    let Some(qt) = q.tensor() else {
        return Err(Error::InvalidOperand {
            op: OP,
            reason: "the query must be a tensor".into(),
        });
    };
    let g = attention_shapes(qt.shape(), k.shape(), v.shape(), mask.map(Tensor::shape))?;
    // A mask of another layout is broadcast to the scores' shape first:
    // scratch, allocated (like every allocation) before the claim.
    let mut full = g.out.clone();
    if let Some(last) = full.last_mut() {
        *last = g.s;
    }
    let broadcast = match (mask, g.mask_batch) {
        (Some(m), None) => Some(fresh::binary(
            BinaryOp::Add,
            m.as_slice()?,
            m.shape(),
            &[T::ZERO],
            &[],
            &full,
        )?),
        _ => None,
    };
    let mask = match (&broadcast, mask) {
        (Some(b), _) => Mask::Additive {
            values: b.as_slice::<T>(),
            batch: g.batch,
        },
        (None, Some(m)) => Mask::Additive {
            values: m.as_slice()?,
            batch: g.mask_batch.unwrap_or(1),
        },
        (None, None) => Mask::None,
    };
    // A row whose every key is masked out is 0, as PyTorch (since 2.5,
    // every CPU backend) gives, not the NaN of a softmax of all `-inf`.
    let mut spec = AttentionSpec::new(g.batch, g.l, g.s, g.e, g.ev)
        .with_mask(mask)
        .with_causal(causal)
        .with_fully_masked(FullyMasked::Zero);
    if let Some(s) = scale {
        spec = spec.with_scale(s);
    }
    let (ks, vs) = (rows_of(k)?, rows_of(v)?);
    let mut outcome = outcome_of(plan);
    if let Some((_, mut buf)) = claim_target(plan, &mut [&mut q], &mut outcome) {
        kernels::attention_over_q_rows(buf.as_mut_slice::<T>(), ks, vs, &spec)?;
        reused(&mut outcome, plan, 0, buf.len());
        return Ok(finish(
            plan,
            Tensor::from_buffer(buf, &plan.shape)?,
            outcome,
        ));
    }
    let qt = q.tensor().ok_or_else(|| Error::InvalidOperand {
        op: OP,
        reason: "the query must be a tensor".into(),
    })?;
    let buf = fresh::attention(&rows_of(qt)?, ks, vs, &spec)?;
    Ok(finish(
        plan,
        Tensor::from_buffer(buf, &plan.shape)?,
        outcome,
    ))
}

/// A `[..., rows, width]` tensor as the kernel's [`Rows`]: each batch
/// entry (the leading axes, flattened) at its offset, rows at the
/// tensor's row stride. Planning gave contiguous tensors or row-strided
/// views ([`Coverage::Rows`](crate::plan::Coverage::Rows)); anything else is
/// an internal error.
fn rows_of<T: AttentionElement>(t: &Tensor<T>) -> Result<Rows<'_, T>> {
    let (data, l) = t.strided()?;
    if !l.has_unit_rows() {
        return Err(Error::NotContiguous { op: OP });
    }
    let (shape, strides) = (l.shape(), l.strides());
    let nd = shape.len();
    let (rows, width) = match nd {
        0 => (1, 1),
        1 => (1, shape[0]),
        _ => (shape[nd - 2], shape[nd - 1]),
    };
    let rs = if nd >= 2 && rows > 1 {
        strides[nd - 2].unsigned_abs()
    } else {
        width
    };
    let lead = nd.saturating_sub(2);
    let batch: usize = shape[..lead].iter().product();
    let mut offsets = Vec::with_capacity(batch);
    let mut idx = vec![0usize; lead];
    for _ in 0..batch {
        let off: usize = idx
            .iter()
            .zip(strides)
            .map(|(i, s)| i * s.unsigned_abs())
            .sum();
        offsets.push(l.offset() + off);
        for d in (0..lead).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(Rows { data, offsets, rs })
}

//! Row operations (softmax, layer norm) and matmul.

use super::{claim_target, finish, outcome_of, reused, same_shape, typed_plan, Applied, Operand};
use crate::array::shape::matmul_shapes;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::matmul::{matmul_batched_acc, BatchOffsets, MatRef, MatmulElement};
use crate::kernels::rows::{self, RowElement};
use crate::kernels::{fresh, BinaryOp, KernelElement};
use crate::plan::{Offer, Op, Plan};

/// Softmax along `axis` (which must be the last one), claiming `x`'s
/// buffer when offered.
pub fn softmax<T: RowElement>(x: Operand<'_, T>, axis: isize) -> Result<Applied<T>> {
    let plan = typed_plan(&Op::Softmax { axis }, &[&x])?;
    run_softmax(&plan, x)
}

/// Run a softmax plan.
pub(crate) fn run_softmax<T: RowElement>(plan: &Plan, x: Operand<'_, T>) -> Result<Applied<T>> {
    let row = plan.shape.last().copied().unwrap_or(1);
    same_shape(
        plan,
        x,
        |b| {
            rows::softmax_inplace(b, row);
            Ok(())
        },
        |s| rows::softmax_fresh(s, row),
    )
}

/// Layer normalisation along the last axis, claiming `x`'s buffer when
/// offered. `gamma` and `beta`, when given, have the last axis's length.
pub fn layer_norm<'p, T: RowElement>(
    x: Operand<'_, T>,
    gamma: Option<&'p Tensor<T>>,
    beta: Option<&'p Tensor<T>>,
    eps: f64,
) -> Result<Applied<T>> {
    let op = Op::LayerNorm {
        eps,
        gamma: gamma.is_some(),
        beta: beta.is_some(),
    };
    let (g, b) = (gamma.map(Operand::Ref), beta.map(Operand::Ref));
    let mut ops = vec![&x];
    ops.extend(g.iter().chain(b.iter()));
    let plan = typed_plan(&op, &ops)?;
    run_layer_norm(&plan, x, gamma, beta, eps)
}

/// Run a layer-norm plan (its parameters were checked by planning).
pub(crate) fn run_layer_norm<T: RowElement>(
    plan: &Plan,
    x: Operand<'_, T>,
    gamma: Option<&Tensor<T>>,
    beta: Option<&Tensor<T>>,
    eps: f64,
) -> Result<Applied<T>> {
    let row = plan.shape.last().copied().unwrap_or(1);
    let g = gamma.map(Tensor::as_slice).transpose()?;
    let b = beta.map(Tensor::as_slice).transpose()?;
    same_shape(
        plan,
        x,
        |buf| {
            rows::layer_norm_inplace(buf, row, g, b, eps);
            Ok(())
        },
        |s| rows::layer_norm_fresh(s, row, g, b, eps),
    )
}

/// Matrix product with NumPy's `matmul` rules (batch dims broadcast). Always
/// a new buffer; offered operands are refused.
// Operands by value as every op's (an offer is answered with a refusal),
// though only read.
#[allow(clippy::needless_pass_by_value)]
pub fn matmul<T: MatmulElement>(a: Operand<'_, T>, b: Operand<'_, T>) -> Result<Applied<T>> {
    let plan = typed_plan(&Op::Matmul, &[&a, &b])?;
    run_matmul(&plan, &a, &b)
}

/// Run a matmul plan.
pub(crate) fn run_matmul<T: MatmulElement>(
    plan: &Plan,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
) -> Result<Applied<T>> {
    let (Some(ta), Some(tb)) = (a.tensor(), b.tensor()) else {
        return Err(Error::InvalidShape {
            op: "matmul",
            shape: vec![],
            reason: "matmul needs two tensors".into(),
        });
    };
    let p = products(ta, tb)?;
    let buf = fresh::matmul(p.a, p.b, p.m, p.k, p.n, &p.offs)?;
    Ok(finish(
        plan,
        Tensor::from_buffer(buf, &p.out)?,
        outcome_of(plan),
    ))
}

/// `input + a @ b` (see [`Op::Addmm`]), accumulating the product into
/// `input`'s buffer when it is offered and has the result's shape.
pub fn addmm<T: MatmulElement + KernelElement>(
    input: Operand<'_, T>,
    a: &Tensor<T>,
    b: &Tensor<T>,
) -> Result<Applied<T>> {
    let (ra, rb) = (Operand::Ref(a), Operand::Ref(b));
    let plan = typed_plan(&Op::Addmm, &[&input, &ra, &rb])?;
    run_addmm(&plan, input, a, b)
}

/// Run an addmm plan: the target (`input`'s claimed buffer) or a new
/// buffer holding `input` broadcast, then the products added into it.
pub(crate) fn run_addmm<T: MatmulElement + KernelElement>(
    plan: &Plan,
    mut input: Operand<'_, T>,
    a: &Tensor<T>,
    b: &Tensor<T>,
) -> Result<Applied<T>> {
    let p = products(a, b)?;
    let mut outcome = outcome_of(plan);
    let claimed = claim_target(plan, &mut [&mut input], &mut outcome);
    let mut buf = if let Some((_, buf)) = claimed {
        reused(&mut outcome, plan, 0, buf.len());
        buf
    } else {
        let one = input.scalar();
        let held = input.data(&one)?;
        fresh::binary(BinaryOp::Add, held, input.shape(), &[T::ZERO], &[], &p.out)?
    };
    matmul_batched_acc(p.a, p.b, buf.as_mut_slice::<T>(), p.m, p.k, p.n, &p.offs);
    Ok(finish(plan, Tensor::from_buffer(buf, &p.out)?, outcome))
}

/// The products of `a @ b`: both factors read where their layouts put
/// them (a transposed or sliced view is not copied), each batch entry's
/// offsets, `m×k · k×n` each, and the result's shape.
struct Products<'a, T> {
    a: MatRef<'a, T>,
    b: MatRef<'a, T>,
    offs: Vec<BatchOffsets>,
    m: usize,
    k: usize,
    n: usize,
    out: Vec<usize>,
}

fn products<'a, T: MatmulElement>(ta: &'a Tensor<T>, tb: &'a Tensor<T>) -> Result<Products<'a, T>> {
    let (batch, m, k, n, out) = matmul_shapes(ta.shape(), tb.shape())?;
    let (da, la) = ta.strided()?;
    let (db, lb) = tb.strided()?;
    // A 1-d left factor is one row, a 1-d right factor one column.
    let (ra, ba) = matrix_of(&la, false);
    let (rb, bb) = matrix_of(&lb, true);
    let oa = batch_offsets(&la, ba, &batch);
    let ob = batch_offsets(&lb, bb, &batch);
    let offs = oa
        .into_iter()
        .zip(ob)
        .map(|(a, b)| BatchOffsets { a, b })
        .collect();
    let mat = |data, (rs, cs)| MatRef {
        data,
        offset: 0,
        rs,
        cs,
    };
    Ok(Products {
        a: mat(da, ra),
        b: mat(db, rb),
        offs,
        m,
        k,
        n,
        out,
    })
}

/// The row and column strides of the matrix a layout ends in, and how
/// many leading axes are batch axes. A 1-d layout is a row (`column`
/// false) or a column.
fn matrix_of(l: &crate::array::layout::Layout, column: bool) -> ((isize, isize), usize) {
    let s = l.strides();
    match s.len() {
        0 => ((1, 1), 0),
        1 if column => ((s[0], 1), 0),
        1 => ((1, s[0]), 0),
        nd => ((s[nd - 2], s[nd - 1]), nd - 2),
    }
}

/// The element offset of each entry of `batch` (broadcast, C order) in a
/// factor whose first `nb` axes are its batch axes.
fn batch_offsets(l: &crate::array::layout::Layout, nb: usize, batch: &[usize]) -> Vec<usize> {
    let (shape, strides) = (&l.shape()[..nb], &l.strides()[..nb]);
    let lead = batch.len() - nb;
    let total: usize = batch.iter().product();
    let mut idx = vec![0usize; batch.len()];
    let mut out = Vec::with_capacity(total);
    for _ in 0..total {
        let off: isize = (0..nb)
            .filter(|&d| shape[d] != 1)
            .map(|d| idx[lead + d] as isize * strides[d])
            .sum();
        out.push((l.offset() as isize + off) as usize);
        for d in (0..batch.len()).rev() {
            idx[d] += 1;
            if idx[d] < batch[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

impl<T: RowElement> Tensor<T> {
    /// Softmax along `axis` (only the last axis), by value: reuses the
    /// buffer when exclusive.
    pub fn softmax(mut self, axis: isize) -> Result<Tensor<T>> {
        Ok(softmax(Operand::Owned(&mut self, Offer::Temporary), axis)?.0)
    }

    /// Layer normalisation along the last axis, by value.
    pub fn layer_norm(
        mut self,
        gamma: Option<&Tensor<T>>,
        beta: Option<&Tensor<T>>,
        eps: f64,
    ) -> Result<Tensor<T>> {
        Ok(layer_norm(
            Operand::Owned(&mut self, Offer::Temporary),
            gamma,
            beta,
            eps,
        )?
        .0)
    }
}

impl<T: MatmulElement> Tensor<T> {
    /// Matrix product (NumPy `matmul` rules). Always a new buffer.
    pub fn matmul(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        Ok(matmul(Operand::Ref(self), Operand::Ref(other))?.0)
    }
}

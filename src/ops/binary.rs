//! Binary element-wise operations with NumPy broadcasting.

use super::{claim_target, finish, outcome_of, reused, typed_plan, update, Applied, Operand};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::{self, fresh, BinaryDst, BinaryOp, KernelElement};
use crate::plan::{plan_in_place, Op, Plan};

fn check<T: KernelElement>(op: BinaryOp) -> Result<()> {
    if T::supports_binary(op) {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: T::DTYPE,
        })
    }
}

/// `op(a, b)` with broadcasting. The buffer of the operand the plan
/// chooses (the left one if it is offered, exclusive and of the result's
/// shape, else the right one) receives the result; else a new buffer.
pub fn binary<'x, T: KernelElement>(
    op: BinaryOp,
    a: Operand<'x, T>,
    b: Operand<'x, T>,
) -> Result<Applied<T>> {
    check::<T>(op)?;
    // Both inputs must be readable before anything is claimed (`execute`
    // checks its operands the same way before it calls `run`).
    for t in [a.tensor(), b.tensor()].into_iter().flatten() {
        t.as_slice()?;
    }
    let plan = typed_plan(&Op::Binary(op), &[&a, &b])?;
    run(&plan, op, a, b)
}

/// Run a binary plan. The caller has checked that both operands are
/// readable (before anything was claimed).
pub(crate) fn run<'x, T: KernelElement>(
    plan: &Plan,
    op: BinaryOp,
    mut a: Operand<'x, T>,
    mut b: Operand<'x, T>,
) -> Result<Applied<T>> {
    check::<T>(op)?;
    let mut outcome = outcome_of(plan);
    let (sa, sb) = (a.scalar(), b.scalar());
    let out = &plan.shape;
    if plan.target.is_none() {
        let buf = fresh::binary(op, a.data(&sa)?, a.shape(), b.data(&sb)?, b.shape(), out)?;
        return Ok(finish(plan, Tensor::from_buffer(buf, out)?, outcome));
    }
    // The shapes outlive the claim, which moves one operand's buffer out.
    let (a_shape, b_shape) = (a.shape().to_vec(), b.shape().to_vec());
    if let Some((idx, mut buf)) = claim_target(plan, &mut [&mut a, &mut b], &mut outcome) {
        let bytes = buf.len();
        {
            // The claimed operand is read from the claimed buffer.
            let io = buf.as_mut_slice::<T>();
            if idx == 0 {
                let bv = b.data(&sb)?;
                kernels::binary(
                    op,
                    &[],
                    &a_shape,
                    bv,
                    &b_shape,
                    out,
                    BinaryDst::Lhs,
                    Some(io),
                )?;
            } else {
                let av = a.data(&sa)?;
                kernels::binary(
                    op,
                    av,
                    &a_shape,
                    &[],
                    &b_shape,
                    out,
                    BinaryDst::Rhs,
                    Some(io),
                )?;
            }
        }
        reused(&mut outcome, plan, idx, bytes);
        Ok(finish(plan, Tensor::from_buffer(buf, out)?, outcome))
    } else {
        let buf = fresh::binary(op, a.data(&sa)?, &a_shape, b.data(&sb)?, &b_shape, out)?;
        Ok(finish(plan, Tensor::from_buffer(buf, out)?, outcome))
    }
}

impl<T: KernelElement> Tensor<T> {
    /// `self = op(self, rhs)` in place; `rhs` broadcasts to `self`'s shape
    /// (a result of another shape is a `ShapeMismatch`, as in NumPy).
    /// Copy-on-write when the buffer is shared.
    // `rhs` by value as every op's operands: an offered one is only read
    // (it cannot receive the result of an in-place op).
    #[allow(clippy::needless_pass_by_value)]
    pub fn binary_inplace(&mut self, op: BinaryOp, rhs: Operand<'_, T>) -> Result<()> {
        check::<T>(op)?;
        let plan = plan_in_place(
            &Op::Binary(op),
            &[Operand::Ref(&*self).describe(), rhs.describe()],
        )?;
        let out = plan.shape;
        let scalar;
        let (b, b_shape): (&[T], Vec<usize>) = match &rhs {
            Operand::Scalar(v) => {
                scalar = [*v];
                (&scalar[..], Vec::new())
            }
            Operand::Ref(t) => (t.as_slice()?, t.shape().to_vec()),
            Operand::Owned(t, _) => (t.as_slice()?, t.shape().to_vec()),
        };
        let shape = self.shape().to_vec();
        update(
            self,
            |io| kernels::binary(op, &[], &shape, b, &b_shape, &out, BinaryDst::Lhs, Some(io)),
            |a| fresh::binary(op, a, &shape, b, &b_shape, &out),
        )
    }

    /// `self = self op self` (`x += x`): in place when the buffer is
    /// exclusive, else copy-on-write (as [`binary_inplace`](Self::binary_inplace)).
    ///
    /// The right operand is the buffer being written, so it is read a
    /// block at a time through a copy of that block on the stack: every
    /// element is read before it is written, and no buffer is allocated.
    pub fn binary_inplace_self(&mut self, op: BinaryOp) -> Result<()> {
        /// Elements per block: 32 KiB of `f64`, so the copy stays in L1.
        const BLOCK: usize = 4096;
        check::<T>(op)?;
        let shape = self.shape().to_vec();
        update(
            self,
            |io| {
                let mut copy = [T::default(); BLOCK];
                for chunk in io.chunks_mut(BLOCK) {
                    let n = [chunk.len()];
                    let b = &mut copy[..chunk.len()];
                    b.copy_from_slice(chunk);
                    kernels::binary(op, &[], &n, b, &n, &n, BinaryDst::Lhs, Some(chunk))?;
                }
                Ok(())
            },
            |a| fresh::binary(op, a, &shape, a, &shape, &shape),
        )
    }

    /// `self += rhs` (broadcasting `rhs`), copy-on-write when shared.
    pub fn add_inplace(&mut self, rhs: &Tensor<T>) -> Result<()> {
        self.binary_inplace(BinaryOp::Add, Operand::Ref(rhs))
    }
    /// `self -= rhs`.
    pub fn sub_inplace(&mut self, rhs: &Tensor<T>) -> Result<()> {
        self.binary_inplace(BinaryOp::Sub, Operand::Ref(rhs))
    }
    /// `self *= rhs`.
    pub fn mul_inplace(&mut self, rhs: &Tensor<T>) -> Result<()> {
        self.binary_inplace(BinaryOp::Mul, Operand::Ref(rhs))
    }
    /// `self /= rhs` (floating point only).
    pub fn div_inplace(&mut self, rhs: &Tensor<T>) -> Result<()> {
        self.binary_inplace(BinaryOp::Div, Operand::Ref(rhs))
    }

    /// `maximum(self, other)` into a new buffer (NaN-propagating).
    pub fn maximum(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        Ok(binary(BinaryOp::Maximum, Operand::Ref(self), Operand::Ref(other))?.0)
    }
    /// `minimum(self, other)` into a new buffer (NaN-propagating).
    pub fn minimum(&self, other: &Tensor<T>) -> Result<Tensor<T>> {
        Ok(binary(BinaryOp::Minimum, Operand::Ref(self), Operand::Ref(other))?.0)
    }
}

//! Binary element-wise operations with NumPy broadcasting.

use super::{claim, refuse, update, Applied, Operand, Outcome, Refusal};
use crate::error::{Error, Result};
use crate::kernels::{self, fresh, BinaryDst, BinaryOp, KernelElement};
use crate::shape::broadcast_shapes;
use crate::stats;
use crate::tensor::Tensor;

fn scalar_of<T: KernelElement>(o: &Operand<'_, T>) -> [T; 1] {
    match o {
        Operand::Scalar(v) => [*v],
        _ => [T::ZERO],
    }
}

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

/// `op(a, b)` with broadcasting. The left operand's buffer is claimed if it
/// is offered, exclusive and of the result's shape; else the right's; else a
/// new buffer is allocated.
pub fn binary<'x, T: KernelElement>(
    op: BinaryOp,
    mut a: Operand<'x, T>,
    mut b: Operand<'x, T>,
) -> Result<Applied<T>> {
    check::<T>(op)?;
    let out = broadcast_shapes(op.name(), a.shape(), b.shape())?;
    // Both inputs must be readable before anything is claimed.
    for t in [a.tensor(), b.tensor()].into_iter().flatten() {
        t.as_slice()?;
    }
    let mut outcome = Outcome::default();
    let a_shape = a.shape().to_vec();
    let b_shape = b.shape().to_vec();

    // Claim the left operand, then the right.
    let mut claimed = None;
    for (idx, opnd) in [(0usize, &mut a), (1usize, &mut b)] {
        if let Operand::Owned(t, kind) = opnd {
            if claimed.is_some() {
                refuse(&mut outcome, idx, *kind, Refusal::OtherOperandUsed);
                continue;
            }
            match claim(t, &out, op.name()) {
                Ok(buf) => claimed = Some((idx, buf, *kind)),
                Err(r) => refuse(&mut outcome, idx, *kind, r),
            }
        }
    }

    // Scalars are read as one-element slices of shape [].
    let sa = scalar_of(&a);
    let sb = scalar_of(&b);

    // An operand whose buffer was claimed is not read through `view` (the
    // kernel reads it from the claimed buffer); the others were checked
    // readable above.
    fn view<'s, T: KernelElement>(o: &'s Operand<'_, T>, scalar: &'s [T]) -> &'s [T] {
        match o {
            Operand::Scalar(_) => scalar,
            Operand::Ref(t) => t.as_slice().unwrap_or(&[]),
            Operand::Owned(t, _) => t.as_slice().unwrap_or(&[]),
        }
    }

    match claimed {
        Some((idx, mut buf, kind)) => {
            let bytes = buf.len();
            {
                let io = buf.as_mut_slice::<T>();
                let (dst, av, bv) = if idx == 0 {
                    (BinaryDst::Lhs, &[][..], view(&b, &sb))
                } else {
                    (BinaryDst::Rhs, view(&a, &sa), &[][..])
                };
                kernels::binary(op, av, &a_shape, bv, &b_shape, &out, dst, Some(io))?;
            }
            stats::record_reuse(kind, bytes);
            outcome.reused = Some(idx);
            Ok((Tensor::from_buffer(buf, &out)?, outcome))
        }
        None => {
            let buf = fresh::binary(op, view(&a, &sa), &a_shape, view(&b, &sb), &b_shape, &out)?;
            Ok((Tensor::from_buffer(buf, &out)?, outcome))
        }
    }
}

impl<T: KernelElement> Tensor<T> {
    /// `self = op(self, rhs)` in place; `rhs` broadcasts to `self`'s shape
    /// (a result of another shape is a `ShapeMismatch`, as in NumPy).
    /// Copy-on-write when the buffer is shared.
    pub fn binary_inplace(&mut self, op: BinaryOp, rhs: Operand<'_, T>) -> Result<()> {
        check::<T>(op)?;
        let out = broadcast_shapes(op.name(), self.shape(), rhs.shape())?;
        if out != self.shape() {
            return Err(Error::ShapeMismatch {
                op: op.name(),
                lhs: self.shape().to_vec(),
                rhs: rhs.shape().to_vec(),
            });
        }
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

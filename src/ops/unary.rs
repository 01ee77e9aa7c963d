//! Unary element-wise operations in their three forms: by value (reuses an
//! exclusive input), by reference (always a new buffer), in place.

use super::{same_shape, typed_plan, update, Applied, Operand};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::{self, fresh, KernelElement, UnaryOp};
use crate::plan::{Offer, Op, Plan};

fn check<T: KernelElement>(op: UnaryOp) -> Result<()> {
    if T::supports_unary(op) {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.name(),
            dtype: T::DTYPE,
        })
    }
}

/// `op(x)`, claiming `x`'s buffer when it is offered and exclusive.
pub fn unary<T: KernelElement>(op: UnaryOp, x: Operand<'_, T>) -> Result<Applied<T>> {
    check::<T>(op)?;
    let plan = typed_plan(&Op::Unary(op), &[&x])?;
    run(&plan, op, x)
}

/// Run a unary plan.
pub(crate) fn run<T: KernelElement>(
    plan: &Plan,
    op: UnaryOp,
    x: Operand<'_, T>,
) -> Result<Applied<T>> {
    check::<T>(op)?;
    same_shape(
        plan,
        x,
        |buf| kernels::unary_inplace(op, buf),
        |src| fresh::unary(op, src),
    )
}

macro_rules! unary_methods {
    ($($name:ident, $ref_name:ident, $inplace:ident, $op:ident);* $(;)?) => {
        impl<T: KernelElement> Tensor<T> {
            $(
            #[doc = concat!("`", stringify!($name), "` by value: writes into this tensor's buffer when it is exclusive, else allocates.")]
            pub fn $name(mut self) -> Result<Tensor<T>> {
                Ok(unary(UnaryOp::$op, Operand::Owned(&mut self, Offer::Temporary))?.0)
            }
            #[doc = concat!("`", stringify!($name), "` into a new buffer; `self` is unchanged.")]
            pub fn $ref_name(&self) -> Result<Tensor<T>> {
                Ok(unary(UnaryOp::$op, Operand::Ref(self))?.0)
            }
            #[doc = concat!("`", stringify!($name), "` in place (copy-on-write if the buffer is shared).")]
            pub fn $inplace(&mut self) -> Result<()> {
                self.unary_inplace(UnaryOp::$op)
            }
            )*
        }
    };
}

unary_methods! {
    relu, relu_ref, relu_inplace, Relu;
    abs, abs_ref, abs_inplace, Abs;
    exp, exp_ref, exp_inplace, Exp;
    log, log_ref, log_inplace, Log;
    sqrt, sqrt_ref, sqrt_inplace, Sqrt;
    tanh, tanh_ref, tanh_inplace, Tanh;
    sigmoid, sigmoid_ref, sigmoid_inplace, Sigmoid;
    gelu, gelu_ref, gelu_inplace, Gelu;
}

// Negation by value is `-t`: the `Neg` operator (semantics.rs), which
// reuses an exclusive buffer as the by-value methods above do.
impl<T: KernelElement> Tensor<T> {
    /// `neg` into a new buffer; `self` is unchanged.
    pub fn neg_ref(&self) -> Result<Tensor<T>> {
        Ok(unary(UnaryOp::Neg, Operand::Ref(self))?.0)
    }
    /// `neg` in place (copy-on-write if the buffer is shared).
    pub fn neg_inplace(&mut self) -> Result<()> {
        self.unary_inplace(UnaryOp::Neg)
    }
}

impl<T: KernelElement> Tensor<T> {
    /// Any unary op in place (copy-on-write if shared).
    pub fn unary_inplace(&mut self, op: UnaryOp) -> Result<()> {
        check::<T>(op)?;
        update(
            self,
            |b| kernels::unary_inplace(op, b),
            |s| fresh::unary(op, s),
        )
    }

    /// ReLU with explicit donation: the result is written into this
    /// tensor's buffer when it is exclusive; otherwise a copy is made and the
    /// fallback is counted in [`memory_stats`](crate::memory_stats).
    pub fn relu_donate(mut self) -> Result<Tensor<T>> {
        Ok(unary(UnaryOp::Relu, Operand::Owned(&mut self, Offer::Donated))?.0)
    }
}

//! How an operation treats its input, in the typed API: by its ownership.
//! A tensor passed by value is a temporary (its buffer is reused when
//! exclusive), `&t` is only read, and [`Donated`] (`t.donate()`) gives the
//! buffer away: the three [`Offer`]s of the planner.
//!
//! Differences from the first design, on purpose:
//! * No `OpBuilder`/`CopySemantics`: the first design configured reuse on a
//!   builder (`OpBuilder::new(&self).inplace_if_possible()`), which could
//!   change a tensor its caller still holds. Ownership says the same
//!   without that hole: only a tensor given by value or donated can be
//!   reused.
//! * `DonateInput` on a buffer that cannot be donated does not panic: it
//!   copies (XLA's "copy protection") and counts a fallback in
//!   [`memory_stats`](crate::memory_stats).
//! * Operators return `Result`, because shapes may not broadcast.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::array::tensor::Tensor;
use crate::error::Result;
use crate::kernels::{BinaryOp, KernelElement, UnaryOp};
use crate::ops::{binary, unary, Applied, Operand};
use crate::plan::Offer;

/// A tensor its owner gives away: an operation on it may write its result
/// into its buffer (and will, when the buffer is exclusive and fits).
#[repr(transparent)]
#[derive(Debug)]
pub struct Donated<T>(pub T);

/// `t.donate()` wraps a value in [`Donated`].
pub trait DonateExt: Sized {
    /// Give this value away to the next operation.
    fn donate(self) -> Donated<Self> {
        Donated(self)
    }
}

impl<T: KernelElement> DonateExt for Tensor<T> {}

impl<T: KernelElement> Donated<Tensor<T>> {
    /// Any unary op, writing into the donated buffer when possible.
    pub fn unary(mut self, op: UnaryOp) -> Result<Applied<T>> {
        unary::unary(op, Operand::Owned(&mut self.0, Offer::Donated))
    }

    /// ReLU into the donated buffer.
    pub fn relu(self) -> Result<Tensor<T>> {
        Ok(self.unary(UnaryOp::Relu)?.0)
    }

    /// Take the tensor back without using it.
    pub fn into_inner(self) -> Tensor<T> {
        self.0
    }
}

impl<T: KernelElement> Tensor<T> {
    /// Any unary op by value (reuses the buffer when exclusive).
    pub fn map(mut self, op: UnaryOp) -> Result<Tensor<T>> {
        Ok(unary::unary(op, Operand::Owned(&mut self, Offer::Temporary))?.0)
    }
}

macro_rules! binary_operators {
    ($($trait:ident, $method:ident, $op:ident);*) => {$(
        impl<T: KernelElement> $trait<Tensor<T>> for Tensor<T> {
            type Output = Result<Tensor<T>>;
            /// By value on both sides: reuses the left buffer, else the right.
            fn $method(mut self, mut rhs: Tensor<T>) -> Result<Tensor<T>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Owned(&mut self, Offer::Temporary), Operand::Owned(&mut rhs, Offer::Temporary))?.0)
            }
        }
        impl<T: KernelElement> $trait<&Tensor<T>> for Tensor<T> {
            type Output = Result<Tensor<T>>;
            fn $method(mut self, rhs: &Tensor<T>) -> Result<Tensor<T>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Owned(&mut self, Offer::Temporary), Operand::Ref(rhs))?.0)
            }
        }
        impl<T: KernelElement> $trait<Tensor<T>> for &Tensor<T> {
            type Output = Result<Tensor<T>>;
            fn $method(self, mut rhs: Tensor<T>) -> Result<Tensor<T>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Ref(self), Operand::Owned(&mut rhs, Offer::Temporary))?.0)
            }
        }
        impl<T: KernelElement> $trait<&Tensor<T>> for &Tensor<T> {
            type Output = Result<Tensor<T>>;
            /// Both borrowed: always a new buffer.
            fn $method(self, rhs: &Tensor<T>) -> Result<Tensor<T>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Ref(self), Operand::Ref(rhs))?.0)
            }
        }
        impl<T: KernelElement> $trait<Tensor<T>> for Donated<Tensor<T>> {
            type Output = Result<Tensor<T>>;
            /// The donated left buffer is used when it can be.
            fn $method(mut self, mut rhs: Tensor<T>) -> Result<Tensor<T>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Owned(&mut self.0, Offer::Donated), Operand::Owned(&mut rhs, Offer::Temporary))?.0)
            }
        }
        impl<T: KernelElement> $trait<&Tensor<T>> for Donated<Tensor<T>> {
            type Output = Result<Tensor<T>>;
            fn $method(mut self, rhs: &Tensor<T>) -> Result<Tensor<T>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Owned(&mut self.0, Offer::Donated), Operand::Ref(rhs))?.0)
            }
        }
        impl<T: KernelElement> $trait<Donated<Tensor<T>>> for &Tensor<T> {
            type Output = Result<Tensor<T>>;
            fn $method(self, mut rhs: Donated<Tensor<T>>) -> Result<Tensor<T>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Ref(self), Operand::Owned(&mut rhs.0, Offer::Donated))?.0)
            }
        }
    )*};
}
binary_operators!(Add, add, Add; Sub, sub, Sub; Mul, mul, Mul; Div, div, Div);

macro_rules! scalar_operators {
    ($($t:ty),*) => {$(
        scalar_operators!(@one $t, Add, add, Add; Sub, sub, Sub; Mul, mul, Mul; Div, div, Div);
    )*};
    (@one $t:ty, $($trait:ident, $method:ident, $op:ident);*) => {$(
        impl $trait<$t> for Tensor<$t> {
            type Output = Result<Tensor<$t>>;
            fn $method(mut self, rhs: $t) -> Result<Tensor<$t>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Owned(&mut self, Offer::Temporary), Operand::Scalar(rhs))?.0)
            }
        }
        impl $trait<$t> for &Tensor<$t> {
            type Output = Result<Tensor<$t>>;
            fn $method(self, rhs: $t) -> Result<Tensor<$t>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Ref(self), Operand::Scalar(rhs))?.0)
            }
        }
        impl $trait<$t> for Donated<Tensor<$t>> {
            type Output = Result<Tensor<$t>>;
            fn $method(mut self, rhs: $t) -> Result<Tensor<$t>> {
                Ok(binary::binary(BinaryOp::$op, Operand::Owned(&mut self.0, Offer::Donated), Operand::Scalar(rhs))?.0)
            }
        }
    )*};
}
scalar_operators!(f32, f64, i32, i64);

impl<T: KernelElement> Neg for Tensor<T> {
    type Output = Result<Tensor<T>>;
    fn neg(self) -> Result<Tensor<T>> {
        self.map(UnaryOp::Neg)
    }
}

impl<T: KernelElement> Neg for &Tensor<T> {
    type Output = Result<Tensor<T>>;
    fn neg(self) -> Result<Tensor<T>> {
        Ok(unary::unary(UnaryOp::Neg, Operand::Ref(self))?.0)
    }
}

//! How an operation treats its input: [`CopySemantics`], [`OpBuilder`],
//! [`Donated`] and the arithmetic operators.
//!
//! Differences from the first design, on purpose:
//! * `OpBuilder` can only reuse an input it *owns* ([`OpBuilder::new`] takes
//!   the tensor by value). A builder over a borrowed tensor
//!   ([`OpBuilder::borrowed`]) always copies: the first design's
//!   `OpBuilder::new(&self).inplace_if_possible()` would have changed a
//!   tensor its caller still holds.
//! * `DonateInput` on a buffer that cannot be donated does not panic: it
//!   copies (XLA's "copy protection") and counts a fallback in
//!   [`memory_stats`](crate::memory_stats).
//! * Operators return `Result`, because shapes may not broadcast.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::error::Result;
use crate::kernels::{BinaryOp, KernelElement, UnaryOp};
use crate::ops::{binary, unary, Applied, Operand};
use crate::plan::Offer;
use crate::stats;
use crate::tensor::Tensor;

/// How an operation treats its input buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CopySemantics {
    /// Write into the input if it is exclusively owned, else allocate.
    ReuseInput,
    /// The caller gives the input away: write into it if possible, else copy
    /// (counted as a donation fallback).
    DonateInput,
    /// Always allocate a new buffer (the safe default).
    #[default]
    AlwaysCopy,
}

enum Input<'a, T: KernelElement> {
    Owned(Tensor<T>),
    Borrowed(&'a Tensor<T>),
}

/// Configures how one operation treats its input. See [`CopySemantics`] for the choices.
pub struct OpBuilder<'a, T: KernelElement> {
    input: Input<'a, T>,
    semantics: CopySemantics,
}

impl<T: KernelElement> OpBuilder<'static, T> {
    /// A builder that owns its input (default: `AlwaysCopy`).
    pub fn new(input: Tensor<T>) -> Self {
        OpBuilder {
            input: Input::Owned(input),
            semantics: CopySemantics::AlwaysCopy,
        }
    }
}

impl<'a, T: KernelElement> OpBuilder<'a, T> {
    /// A builder over a borrowed input: every semantics copies.
    pub fn borrowed(input: &'a Tensor<T>) -> Self {
        OpBuilder {
            input: Input::Borrowed(input),
            semantics: CopySemantics::AlwaysCopy,
        }
    }

    /// Write into the input if it is exclusively owned.
    #[must_use]
    pub fn inplace_if_possible(mut self) -> Self {
        self.semantics = CopySemantics::ReuseInput;
        self
    }

    /// Give the input away.
    #[must_use]
    pub fn donate(mut self) -> Self {
        self.semantics = CopySemantics::DonateInput;
        self
    }

    /// Set the semantics.
    #[must_use]
    pub fn semantics(mut self, s: CopySemantics) -> Self {
        self.semantics = s;
        self
    }

    fn operand(&mut self) -> Operand<'_, T> {
        let semantics = self.semantics;
        match &mut self.input {
            Input::Owned(t) => match semantics {
                CopySemantics::ReuseInput => Operand::Owned(t, Offer::Temporary),
                CopySemantics::DonateInput => Operand::Owned(t, Offer::Donated),
                CopySemantics::AlwaysCopy => Operand::Ref(t),
            },
            Input::Borrowed(t) => {
                if semantics == CopySemantics::DonateInput {
                    stats::record_fallback();
                }
                Operand::Ref(t)
            }
        }
    }

    /// Apply a unary kernel under the configured semantics.
    pub fn unary(mut self, op: UnaryOp) -> Result<Applied<T>> {
        unary::unary(op, self.operand())
    }

    /// Apply `f` to the elements under the configured semantics: on the
    /// input's buffer when it may be reused, else on a fresh copy.
    pub fn apply(mut self, f: impl FnOnce(&mut [T])) -> Result<Tensor<T>> {
        let op = crate::ops::same_shape_apply(self.operand(), f)?;
        Ok(op.0)
    }
}

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

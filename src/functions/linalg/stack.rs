//! What the linear algebra functions share: the dtype rules (float-only,
//! numeric, promotion of two operands), stacks of matrices and their shape
//! checks, the broadcasting of stack dimensions, and reading an operand as
//! a contiguous tensor of the dtype a function computes in.

use crate::array::dyn_tensor::{AnyElement, DynTensor, Meta};
use crate::array::element::DType;
use crate::array::shape::{broadcast_strides, checked_numel};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};

/// The dtype a float-only function computes in and returns: the input's,
/// which must be float32 or float64.
pub(super) fn float_dtype(op: &'static str, d: DType) -> Result<DType> {
    if d.is_float() {
        Ok(d)
    } else {
        Err(Error::InvalidOperand {
            op,
            reason: format!("needs a floating-point tensor (float32 or float64), got {d}"),
        })
    }
}

/// A numeric dtype (not bool), for the sums of products.
pub(super) fn numeric_dtype(op: &'static str, d: DType) -> Result<DType> {
    if d.is_bool() {
        Err(Error::InvalidOperand {
            op,
            reason: "needs a numeric tensor, got bool".into(),
        })
    } else {
        Ok(d)
    }
}

/// The dtype two numeric operands promote to (NumPy's table).
pub(super) fn promote_numeric(op: &'static str, a: DType, b: DType) -> Result<DType> {
    Ok(DType::promote(numeric_dtype(op, a)?, numeric_dtype(op, b)?))
}

/// A result's dtype and shape, refused when its size overflows (as
/// [`Tensor::from_slice`] refuses it when the result is made).
pub(super) fn sized(dtype: DType, shape: Vec<usize>) -> Result<(DType, Vec<usize>)> {
    checked_numel(&shape, dtype.size())?;
    Ok((dtype, shape))
}

/// Result `part` of a function of several results (each a dtype and a
/// shape, every one checked by [`sized`]), with
/// [`LinalgOp::run`](super::LinalgOp::run)'s error for a part it does
/// not have.
pub(super) fn pick<const N: usize>(
    op: &'static str,
    parts: [(DType, Vec<usize>); N],
    part: usize,
) -> Result<(DType, Vec<usize>)> {
    for (d, s) in &parts {
        checked_numel(s, d.size())?;
    }
    parts
        .into_iter()
        .nth(part)
        .ok_or_else(|| Error::InvalidArgument {
            op,
            reason: format!("has no result {part}"),
        })
}

/// The dtype of the decompositions' inputs: float or complex (the
/// input's, which the decompositions compute in).
pub(super) fn inexact_dtype(op: &'static str, d: DType) -> Result<DType> {
    if d.is_complex() {
        Ok(d)
    } else {
        float_dtype(op, d)
    }
}

/// The dtype two float or complex operands promote to.
pub(super) fn promote_inexact(op: &'static str, a: DType, b: DType) -> Result<DType> {
    Ok(DType::promote(inexact_dtype(op, a)?, inexact_dtype(op, b)?))
}

/// A stack of float or complex matrices: its dtype and stack.
pub(super) fn inexact_matrices(op: &'static str, x: Meta<'_>) -> Result<(DType, Matrices)> {
    Ok((inexact_dtype(op, x.dtype)?, Matrices::of(op, x.shape)?))
}

/// A stack of float or complex square matrices: its dtype and stack.
pub(super) fn inexact_square(op: &'static str, x: Meta<'_>) -> Result<(DType, Matrices)> {
    Ok((inexact_dtype(op, x.dtype)?, Matrices::square(op, x.shape)?))
}

/// A stack of `m×n` matrices: the shape `(*batch, m, n)`.
#[derive(Debug, Clone)]
pub(super) struct Matrices {
    pub batch: Vec<usize>,
    pub m: usize,
    pub n: usize,
}

impl Matrices {
    /// The stack a shape holds (at least two dimensions).
    pub fn of(op: &'static str, shape: &[usize]) -> Result<Self> {
        let [batch @ .., m, n] = shape else {
            return Err(Error::InvalidShape {
                op,
                shape: shape.to_vec(),
                reason: "needs a matrix or a stack of matrices (at least 2 dimensions)".into(),
            });
        };
        Ok(Matrices {
            batch: batch.to_vec(),
            m: *m,
            n: *n,
        })
    }

    /// A stack of square matrices.
    pub fn square(op: &'static str, shape: &[usize]) -> Result<Self> {
        let s = Self::of(op, shape)?;
        if s.m != s.n {
            return Err(Error::InvalidShape {
                op,
                shape: shape.to_vec(),
                reason: format!("needs square matrices, got {}×{}", s.m, s.n),
            });
        }
        Ok(s)
    }

    /// Matrices in the stack.
    pub fn count(&self) -> usize {
        self.batch.iter().product()
    }

    /// Elements of one matrix.
    pub fn size(&self) -> usize {
        self.m * self.n
    }

    /// The stack's shape followed by `tail`.
    pub fn shape_with(&self, tail: &[usize]) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend_from_slice(tail);
        s
    }
}

/// `x` as a contiguous tensor of `T` (another handle when it already is
/// one, else a converted or gathered copy).
pub(super) fn read<T: AnyElement>(x: &DynTensor, op: &'static str) -> Result<Tensor<T>> {
    let c = if x.dtype() == T::DTYPE {
        x.contiguous()?
    } else {
        x.cast(T::DTYPE)?
    };
    Ok(c.typed::<T>(op)?.clone())
}

/// A new tensor holding `data`.
pub(super) fn new<T: AnyElement>(data: &[T], shape: &[usize]) -> Result<DynTensor> {
    Tensor::from_slice(data, shape).map(T::wrap)
}

/// For each entry of the stack shape `out` (C order), the index of the
/// entry of an operand with stack shape `shape` that broadcasts to it.
pub(super) fn batch_offsets(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let strides = broadcast_strides(shape, out);
    let mut offs = Vec::with_capacity(out.iter().product());
    for_each_index(out, |idx| {
        offs.push(idx.iter().zip(&strides).map(|(i, s)| i * s).sum());
    });
    offs
}

/// Call `f` with every multi-index of `shape`, in C order.
pub(super) fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut idx = vec![0usize; shape.len()];
    loop {
        f(&idx);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// The element offsets, in an operand of `shape` read as the broadcast
/// shape `out`, of every multi-index of `out` with `axis` at 0 (C order
/// over the other axes), and the operand's stride along `axis`.
pub(super) fn lanes(shape: &[usize], out: &[usize], axis: usize) -> (Vec<usize>, usize) {
    let strides = broadcast_strides(shape, out);
    let mut outer = out.to_vec();
    outer[axis] = 1;
    let mut offs = Vec::with_capacity(outer.iter().product());
    for_each_index(&outer, |idx| {
        offs.push(idx.iter().zip(&strides).map(|(i, s)| i * s).sum());
    });
    (offs, strides[axis])
}

/// Sums of products in a wide accumulator: `f64` for floats, complex128
/// for complex numbers, `i128` for integers and bool, wrapping, and
/// wrapped to the result's width at the end as NumPy's fixed-width
/// integer arithmetic wraps (2^128 is a multiple of every dtype's
/// modulus, so the wrapping sum agrees).
#[derive(Debug, Clone, Copy)]
pub(super) enum Acc {
    F(f64),
    C(crate::C64),
    I(i128),
}

impl Acc {
    /// Zero, in the accumulator for `T`.
    pub fn zero<T: crate::Element>() -> Acc {
        if T::DTYPE.is_float() {
            Acc::F(0.0)
        } else if T::DTYPE.is_complex() {
            Acc::C(crate::C64::new(0.0, 0.0))
        } else {
            Acc::I(0)
        }
    }

    /// `self + a·b`.
    #[inline]
    pub fn mul_add<T: crate::Element>(self, a: T, b: T) -> Acc {
        match self {
            Acc::F(s) => Acc::F(s + a.to_f64() * b.to_f64()),
            Acc::C(s) => Acc::C(s + a.to_c64() * b.to_c64()),
            Acc::I(s) => Acc::I(s.wrapping_add(a.to_i128().wrapping_mul(b.to_i128()))),
        }
    }

    /// `self + conj(a)·b` (`vecdot`'s product; `a·b` for real numbers).
    #[inline]
    pub fn conj_mul_add<T: crate::Element>(self, a: T, b: T) -> Acc {
        match self {
            Acc::C(s) => Acc::C(s + a.to_c64().conj() * b.to_c64()),
            real => real.mul_add(a, b),
        }
    }

    /// `self + a`.
    #[inline]
    pub fn add<T: crate::Element>(self, a: T) -> Acc {
        match self {
            Acc::F(s) => Acc::F(s + a.to_f64()),
            Acc::C(s) => Acc::C(s + a.to_c64()),
            Acc::I(s) => Acc::I(s.wrapping_add(a.to_i128())),
        }
    }

    /// `self - other`.
    #[inline]
    pub fn sub(self, other: Acc) -> Acc {
        match (self, other) {
            (Acc::F(a), Acc::F(b)) => Acc::F(a - b),
            (Acc::C(a), Acc::C(b)) => Acc::C(a - b),
            (Acc::I(a), Acc::I(b)) => Acc::I(a.wrapping_sub(b)),
            // Both come from one dtype's `zero`.
            (a, _) => a,
        }
    }

    /// The sum as a `T`.
    #[inline]
    pub fn get<T: crate::Element>(self) -> T {
        match self {
            Acc::F(s) => T::from_f64(s),
            Acc::C(s) => T::from_c64(s),
            Acc::I(s) => T::from_i128(s),
        }
    }
}

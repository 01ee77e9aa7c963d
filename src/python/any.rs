//! `AnyTensor`: a core [`Tensor`] of one of the four dtypes, chosen at run
//! time, and the typed views the generic core operations need.

use crate::kernels::matmul::MatmulElement;
use crate::kernels::KernelElement;
use crate::{
    DType, Error, ExportGuard, Operand, OwnedBuffer, OwnershipSnapshot, Result, Reuse, Tensor,
};

/// A tensor of any supported dtype.
#[derive(Debug, Clone)]
pub(crate) enum AnyTensor {
    F32(Tensor<f32>),
    F64(Tensor<f64>),
    I32(Tensor<i32>),
    I64(Tensor<i64>),
}

/// Run `$body` with `$t` bound to the typed tensor inside `$v`.
macro_rules! each {
    ($v:expr, $t:ident => $body:expr) => {
        match $v {
            $crate::python::any::AnyTensor::F32($t) => $body,
            $crate::python::any::AnyTensor::F64($t) => $body,
            $crate::python::any::AnyTensor::I32($t) => $body,
            $crate::python::any::AnyTensor::I64($t) => $body,
        }
    };
}
pub(crate) use each;

/// Run `$body` with the type alias `$T` set to the element type of `$d`.
macro_rules! for_dtype {
    ($d:expr, $T:ident => $body:expr) => {
        match $d {
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::DType::I64 => {
                type $T = i64;
                $body
            }
        }
    };
}
pub(crate) use for_dtype;

/// A Python scalar operand: NumPy's "weak" scalars (NEP 50), which take the
/// tensor's dtype instead of promoting it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Scalar {
    Int(i64),
    Float(f64),
}

/// Element types the bindings handle, with their conversions.
pub(crate) trait PyElem: KernelElement + MatmulElement {
    fn peel(a: &AnyTensor) -> Option<&Tensor<Self>>;
    fn peel_mut(a: &mut AnyTensor) -> Option<&mut Tensor<Self>>;
    /// The scalar as this type (ranges are checked by the caller; floats
    /// convert to integers by truncation, as NumPy's `astype` does).
    fn from_scalar(s: Scalar) -> Self;
}

macro_rules! py_elem {
    ($t:ty, $v:ident) => {
        impl PyElem for $t {
            fn peel(a: &AnyTensor) -> Option<&Tensor<Self>> {
                match a {
                    AnyTensor::$v(t) => Some(t),
                    _ => None,
                }
            }
            fn peel_mut(a: &mut AnyTensor) -> Option<&mut Tensor<Self>> {
                match a {
                    AnyTensor::$v(t) => Some(t),
                    _ => None,
                }
            }
            fn from_scalar(s: Scalar) -> Self {
                match s {
                    Scalar::Int(i) => i as $t,
                    Scalar::Float(f) => f as $t,
                }
            }
        }
        impl From<Tensor<$t>> for AnyTensor {
            fn from(t: Tensor<$t>) -> Self {
                AnyTensor::$v(t)
            }
        }
    };
}
py_elem!(f32, F32);
py_elem!(f64, F64);
py_elem!(i32, I32);
py_elem!(i64, I64);

/// An operand as the generic core operations take it, before the dtype is
/// fixed.
pub(crate) enum Slot<'a> {
    Ref(&'a AnyTensor),
    Owned(&'a mut AnyTensor, Reuse),
    Scalar(Scalar),
}

impl<'a> Slot<'a> {
    /// The typed core operand. The caller converted every tensor operand to
    /// `T` beforehand; a mismatch is reported, never reinterpreted.
    pub(crate) fn typed<T: PyElem>(self, op: &'static str) -> Result<Operand<'a, T>> {
        let mismatch = |found: DType| Error::DTypeMismatch {
            op,
            expected: T::DTYPE,
            found,
        };
        Ok(match self {
            Slot::Ref(a) => Operand::Ref(T::peel(a).ok_or_else(|| mismatch(a.dtype()))?),
            Slot::Owned(a, r) => {
                let d = a.dtype();
                Operand::Owned(T::peel_mut(a).ok_or_else(|| mismatch(d))?, r)
            }
            Slot::Scalar(s) => Operand::Scalar(T::from_scalar(s)),
        })
    }
}

impl AnyTensor {
    pub(crate) fn dtype(&self) -> DType {
        each!(self, t => t.dtype())
    }

    pub(crate) fn shape(&self) -> &[usize] {
        each!(self, t => t.shape())
    }

    pub(crate) fn is_donated(&self) -> bool {
        each!(self, t => t.is_donated())
    }

    pub(crate) fn consumed_by(&self) -> Option<&'static str> {
        each!(self, t => t.consumed_by())
    }

    pub(crate) fn ownership(&self) -> OwnershipSnapshot {
        each!(self, t => t.ownership())
    }

    pub(crate) fn is_exclusive(&self) -> bool {
        each!(self, t => t.is_exclusively_owned())
    }

    pub(crate) fn buffer_ptr(&self) -> Option<*const u8> {
        each!(self, t => t.buffer_ptr())
    }

    /// `Err(AlreadyDonated)` when the data is gone.
    pub(crate) fn check_readable(&self) -> Result<()> {
        each!(self, t => t.as_slice().map(|_| ()))
    }

    pub(crate) fn export(&self) -> Result<ExportGuard> {
        each!(self, t => t.export())
    }

    pub(crate) fn take_buffer_for(&mut self, op: &'static str) -> Result<OwnedBuffer> {
        each!(self, t => t.take_buffer_for(op))
    }

    pub(crate) fn from_buffer(
        dtype: DType,
        buf: OwnedBuffer,
        shape: &[usize],
    ) -> Result<AnyTensor> {
        for_dtype!(dtype, T => Tensor::<T>::from_buffer(buf, shape).map(AnyTensor::from))
    }

    pub(crate) fn zeros(dtype: DType, shape: &[usize]) -> Result<AnyTensor> {
        for_dtype!(dtype, T => Tensor::<T>::zeros(shape).map(AnyTensor::from))
    }

    pub(crate) fn full(dtype: DType, shape: &[usize], v: Scalar) -> Result<AnyTensor> {
        for_dtype!(dtype, T => Tensor::<T>::full(shape, T::from_scalar(v)).map(AnyTensor::from))
    }

    /// A copy converted to `dtype` (a copy even when the dtype is the same).
    pub(crate) fn cast(&self, dtype: DType) -> Result<AnyTensor> {
        each!(self, t => for_dtype!(dtype, U => t.cast::<U>().map(AnyTensor::from)))
    }

    pub(crate) fn deep_copy(&self) -> Result<AnyTensor> {
        each!(self, t => t.deep_copy().map(AnyTensor::from))
    }

    pub(crate) fn reshape(&self, shape: &[usize]) -> Result<AnyTensor> {
        each!(self, t => t.reshape(shape).map(AnyTensor::from))
    }

    pub(crate) fn permute(&self, axes: &[isize]) -> Result<AnyTensor> {
        each!(self, t => t.permute(axes).map(AnyTensor::from))
    }
}

//! [`DynTensor`]: a [`Tensor`] whose element type is chosen at run time,
//! the weak [`Scalar`] operands of NumPy's promotion rules (NEP 50), and
//! the two dispatch macros every dtype-erased operation is written with.
//!
//! Front ends that learn dtypes at run time (the Python bindings, a
//! tracer) hold tensors as `DynTensor`; the typed core operations are
//! reached through [`crate::driver::execute::execute`], which casts the operands to
//! the planned dtype and dispatches once. Adding a dtype means a variant
//! here, an arm in `each!` and `for_dtype!`, and an [`Element`]
//! implementation.

use crate::array::element::{DType, Element, C32, C64, F16};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::conv::ConvElement;
use crate::kernels::matmul::MatmulElement;
use crate::kernels::rows::RowElement;
use crate::kernels::KernelElement;
use crate::memory::buffer::{ExportGuard, OwnedBuffer};
use crate::memory::ownership::OwnershipSnapshot;

/// A tensor of any supported dtype.
#[derive(Debug, Clone)]
pub enum DynTensor {
    Bool(Tensor<bool>),
    I8(Tensor<i8>),
    I16(Tensor<i16>),
    I32(Tensor<i32>),
    I64(Tensor<i64>),
    U8(Tensor<u8>),
    U16(Tensor<u16>),
    U32(Tensor<u32>),
    U64(Tensor<u64>),
    /// float16, a storage dtype: moved, viewed, cast and assigned as it
    /// is, never computed with ([`DType::is_storage`]).
    F16(Tensor<F16>),
    F32(Tensor<f32>),
    F64(Tensor<f64>),
    C64(Tensor<C32>),
    C128(Tensor<C64>),
}

/// The one list of the variants with kernels behind [`each!`] and
/// [`each_real!`]: `$complex` is what a complex or float16 tensor `$c`
/// gives.
macro_rules! each_or {
    ($v:expr, $t:ident => $body:expr, $c:ident => $complex:expr) => {
        match $v {
            $crate::array::dyn_tensor::DynTensor::Bool($t) => $body,
            $crate::array::dyn_tensor::DynTensor::I8($t) => $body,
            $crate::array::dyn_tensor::DynTensor::I16($t) => $body,
            $crate::array::dyn_tensor::DynTensor::I32($t) => $body,
            $crate::array::dyn_tensor::DynTensor::I64($t) => $body,
            $crate::array::dyn_tensor::DynTensor::U8($t) => $body,
            $crate::array::dyn_tensor::DynTensor::U16($t) => $body,
            $crate::array::dyn_tensor::DynTensor::U32($t) => $body,
            $crate::array::dyn_tensor::DynTensor::U64($t) => $body,
            $crate::array::dyn_tensor::DynTensor::F32($t) => $body,
            $crate::array::dyn_tensor::DynTensor::F64($t) => $body,
            $c @ ($crate::array::dyn_tensor::DynTensor::C64(_)
            | $crate::array::dyn_tensor::DynTensor::C128(_)
            | $crate::array::dyn_tensor::DynTensor::F16(_)) => $complex,
        }
    };
}
pub(crate) use each_or;

/// Run `$body` with `$t` bound to the typed tensor inside `$v`.
macro_rules! each {
    ($v:expr, $t:ident => $body:expr) => {
        match $v {
            $crate::array::dyn_tensor::DynTensor::C64($t) => $body,
            $crate::array::dyn_tensor::DynTensor::C128($t) => $body,
            $crate::array::dyn_tensor::DynTensor::F16($t) => $body,
            real => $crate::array::dyn_tensor::each_or!(real, $t => $body, _c => unreachable!("matched above")),
        }
    };
}
pub(crate) use each;

/// [`each!`] over the real dtypes with kernels: a complex or float16
/// tensor returns `Err(UnsupportedDType)` naming `$op` from the enclosing
/// function (the operations that order or compare elements, which complex
/// numbers do not have; float16 is read as float32 by the planner first).
macro_rules! each_real {
    ($v:expr, $op:expr, $t:ident => $body:expr) => {
        $crate::array::dyn_tensor::each_or!($v, $t => $body, c => {
            return Err($crate::Error::UnsupportedDType {
                op: $op,
                dtype: c.dtype(),
            }
            .into())
        })
    };
}
pub(crate) use each_real;

/// The one list of dtypes and their element types behind [`for_dtype!`]
/// and [`for_any_dtype!`]: `$complex` is what a complex dtype `$c` gives.
#[doc(hidden)]
#[macro_export]
macro_rules! dtype_match {
    ($d:expr, $T:ident => $body:expr, $c:ident => $complex:expr) => {
        match $d {
            $c @ ($crate::DType::C64 | $crate::DType::C128 | $crate::DType::F16) => $complex,
            $crate::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::DType::I16 => {
                type $T = i16;
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
            $crate::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::DType::U16 => {
                type $T = u16;
                $body
            }
            $crate::DType::U32 => {
                type $T = u32;
                $body
            }
            $crate::DType::U64 => {
                type $T = u64;
                $body
            }
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
        }
    };
}

/// Run `$body` with the type alias `$T` set to the element type of `$d`
/// (the one dtype dispatch of the real dtypes: the kernels' and the
/// bindings'). A complex `$d` returns `Err(UnsupportedDType)` from the
/// enclosing function (which returns the crate's `Result`): planning
/// refuses complex operands first for every operation without complex
/// kernels, so this is the guard that no complex value ever reaches a real
/// kernel. [`for_any_dtype!`] takes the complex dtypes too.
#[macro_export]
macro_rules! for_dtype {
    ($d:expr, $T:ident => $body:expr) => {
        $crate::dtype_match!($d, $T => $body, d => {
            return Err($crate::Error::UnsupportedDType {
                op: "this operation",
                dtype: d,
            }
            .into())
        })
    };
}
pub use crate::for_dtype;

/// The one list of the dtypes with kernels (the real and the complex
/// ones) behind [`for_any_dtype!`] and [`for_kernel_dtype!`]: `$storage`
/// is what the storage dtype float16 (`$h`) gives.
#[doc(hidden)]
#[macro_export]
macro_rules! kernel_dtype_match {
    ($d:expr, $T:ident => $body:expr, $h:ident => $storage:expr) => {
        match $d {
            $crate::DType::C64 => {
                type $T = $crate::C32;
                $body
            }
            $crate::DType::C128 => {
                type $T = $crate::C64;
                $body
            }
            real => $crate::dtype_match!(real, $T => $body, $h => $storage),
        }
    };
}

/// [`for_dtype!`] over every dtype, the complex ones and float16
/// included: for the operations that only move or convert elements
/// (copies, views, casts, creation), which are the same for any element
/// type.
#[macro_export]
macro_rules! for_any_dtype {
    ($d:expr, $T:ident => $body:expr) => {
        match $d {
            $crate::DType::F16 => {
                type $T = $crate::F16;
                $body
            }
            d => $crate::kernel_dtype_match!(d, $T => $body, _h => unreachable!("matched above")),
        }
    };
}
pub use crate::for_any_dtype;

/// [`for_any_dtype!`] over the dtypes with kernels (every one but the
/// storage dtype float16, which returns `Err(UnsupportedDType)` from the
/// enclosing function: the planner reads it as float32 first).
#[macro_export]
macro_rules! for_kernel_dtype {
    ($d:expr, $T:ident => $body:expr) => {
        $crate::kernel_dtype_match!($d, $T => $body, d => {
            return Err($crate::Error::UnsupportedDType {
                op: "this operation",
                dtype: d,
            }
            .into())
        })
    };
}
pub use crate::for_kernel_dtype;

/// [`for_dtype!`] for the floating-point dtypes only; `$other` for the
/// rest (planning rejects them first, so it is an internal error).
macro_rules! for_float {
    ($d:expr, $T:ident => $body:expr, $other:expr) => {
        match $d {
            $crate::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::DType::F64 => {
                type $T = f64;
                $body
            }
            _ => $other,
        }
    };
}
pub(crate) use for_float;

/// A Python-style number operand: NumPy's "weak" scalars (NEP 50), which
/// take the tensor's dtype instead of promoting it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    /// A Python `int`: every value of every integer dtype (int64's and
    /// uint64's) fits; the range of the dtype it meets is checked when it
    /// is planned.
    Int(i128),
    Float(f64),
    /// A Python `complex`: real and imaginary parts.
    Complex(f64, f64),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Bool(v) => write!(f, "{}", if *v { "True" } else { "False" }),
            Scalar::Int(v) => write!(f, "{v}"),
            Scalar::Float(v) => write!(f, "{v:?}"),
            Scalar::Complex(re, im) => write!(f, "({re:?}{im:+?}j)"),
        }
    }
}

impl Scalar {
    /// The dtype this number takes when it makes a tensor on its own
    /// (`full(s, v)`, a number passed where a tensor is needed): bool,
    /// int64, [`DType::DEFAULT_FLOAT`], or complex128 (NumPy's for a
    /// Python complex). As an operand beside a tensor it is weak instead
    /// (NEP 50) and takes the tensor's dtype.
    pub fn tensor_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            // NumPy's `asarray(2**63)` is uint64.
            Scalar::Int(v) if i64::try_from(v).is_err() && u64::try_from(v).is_ok() => DType::U64,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DType::DEFAULT_FLOAT,
            Scalar::Complex(..) => DType::C128,
        }
    }

    /// A typed element as a weak scalar (used by planning only for range
    /// checks and messages, so an `i64` beyond 2^53 may round here).
    pub fn of<T: Element>(v: T) -> Scalar {
        if T::DTYPE.is_complex() {
            let z = v.to_c64();
            Scalar::Complex(z.re, z.im)
        } else if T::DTYPE.is_float() {
            Scalar::Float(v.to_f64())
        } else if T::DTYPE.is_bool() {
            Scalar::Bool(v.to_i128() != 0)
        } else {
            Scalar::Int(v.to_i128())
        }
    }
}

/// Every element type a [`DynTensor`] holds (the complex ones too), with
/// the conversions between the two representations.
pub trait AnyElement: Element {
    fn peel(a: &DynTensor) -> Option<&Tensor<Self>>;
    fn peel_mut(a: &mut DynTensor) -> Option<&mut Tensor<Self>>;
    fn wrap(t: Tensor<Self>) -> DynTensor;
}

/// A Python number as an element of any dtype (planning checked the
/// range; floats convert to integers by truncation, as NumPy's `astype`
/// does; a complex element has an imaginary part of 0).
pub fn number<T: Element>(s: Scalar) -> T {
    match s {
        Scalar::Bool(b) => T::from_i128(i128::from(b)),
        Scalar::Int(i) => T::from_i128(i),
        Scalar::Float(f) => T::from_f64(f),
        Scalar::Complex(re, im) => T::from_c64(C64::new(re, im)),
    }
}

/// The real element types a [`DynTensor`] holds: the ones with kernels.
pub trait DynElement: AnyElement + KernelElement + MatmulElement {
    /// The scalar as this type (planning checked the range; floats convert
    /// to integers by truncation, as NumPy's `astype` does).
    fn from_scalar(s: Scalar) -> Self;
    /// This value as a weak scalar.
    fn to_scalar(self) -> Scalar;
}

/// [`DynElement`] for floats, with the float-only kernels.
pub trait DynFloat:
    DynElement + RowElement + ConvElement + crate::kernels::AttentionElement + crate::Float
{
}
impl DynFloat for f32 {}
impl DynFloat for f64 {}

macro_rules! dyn_elem {
    ($t:ty, $v:ident) => {
        any_elem!($t, $v);
        impl DynElement for $t {
            fn from_scalar(s: Scalar) -> Self {
                number(s)
            }
            fn to_scalar(self) -> Scalar {
                Scalar::of(self)
            }
        }
    };
}

macro_rules! any_elem {
    ($t:ty, $v:ident) => {
        impl AnyElement for $t {
            fn peel(a: &DynTensor) -> Option<&Tensor<Self>> {
                match a {
                    DynTensor::$v(t) => Some(t),
                    _ => None,
                }
            }
            fn peel_mut(a: &mut DynTensor) -> Option<&mut Tensor<Self>> {
                match a {
                    DynTensor::$v(t) => Some(t),
                    _ => None,
                }
            }
            fn wrap(t: Tensor<Self>) -> DynTensor {
                DynTensor::$v(t)
            }
        }
        impl From<Tensor<$t>> for DynTensor {
            fn from(t: Tensor<$t>) -> Self {
                DynTensor::$v(t)
            }
        }
    };
}
dyn_elem!(bool, Bool);
dyn_elem!(i8, I8);
dyn_elem!(i16, I16);
dyn_elem!(i32, I32);
dyn_elem!(i64, I64);
dyn_elem!(u8, U8);
dyn_elem!(u16, U16);
dyn_elem!(u32, U32);
dyn_elem!(u64, U64);
dyn_elem!(f32, F32);
dyn_elem!(f64, F64);

any_elem!(C32, C64);
any_elem!(C64, C128);
any_elem!(F16, F16);

/// What a signature step knows of an operand: its dtype and shape, not
/// its values (a tracer has no more). The functions that always write a
/// new buffer ([`crate::plan::FreshOp`]) decide their result's dtype and
/// shape from these alone, before anything is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta<'a> {
    pub dtype: DType,
    pub shape: &'a [usize],
}

impl<'a> Meta<'a> {
    pub fn new(dtype: DType, shape: &'a [usize]) -> Self {
        Meta { dtype, shape }
    }
}

impl DynTensor {
    pub fn dtype(&self) -> DType {
        each!(self, t => t.dtype())
    }

    /// Its dtype and shape.
    pub fn meta(&self) -> Meta<'_> {
        Meta::new(self.dtype(), self.shape())
    }

    pub fn shape(&self) -> &[usize] {
        each!(self, t => t.shape())
    }

    pub fn nbytes(&self) -> usize {
        each!(self, t => t.nbytes())
    }

    pub fn is_donated(&self) -> bool {
        each!(self, t => t.is_donated())
    }

    pub fn consumed_by(&self) -> Option<&'static str> {
        each!(self, t => t.consumed_by())
    }

    pub fn ownership(&self) -> OwnershipSnapshot {
        each!(self, t => t.ownership())
    }

    pub fn is_exclusive(&self) -> bool {
        each!(self, t => t.is_exclusively_owned())
    }

    pub fn buffer_ptr(&self) -> Option<*const u8> {
        each!(self, t => t.buffer_ptr())
    }

    /// `Err(AlreadyDonated)` when the data is gone.
    pub fn check_readable(&self) -> Result<()> {
        each!(self, t => t.check_readable())
    }

    pub fn export(&self) -> Result<ExportGuard> {
        each!(self, t => t.export())
    }

    pub fn take_buffer_for(&mut self, op: &'static str) -> Result<OwnedBuffer> {
        each!(self, t => t.take_buffer_for(op))
    }

    pub(crate) fn recycle_buffer(&mut self, op: &'static str) -> Result<OwnedBuffer> {
        each!(self, t => t.recycle_buffer(op))
    }

    pub fn from_buffer(dtype: DType, buf: OwnedBuffer, shape: &[usize]) -> Result<DynTensor> {
        for_any_dtype!(dtype, T => Tensor::<T>::from_buffer(buf, shape).map(DynTensor::from))
    }

    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<DynTensor> {
        for_any_dtype!(dtype, T => Tensor::<T>::zeros(shape).map(DynTensor::from))
    }

    /// `shape` filled with `v` converted to `dtype`.
    pub fn full(dtype: DType, shape: &[usize], v: Scalar) -> Result<DynTensor> {
        for_any_dtype!(dtype, T => Tensor::<T>::full(shape, number(v)).map(DynTensor::from))
    }

    /// A copy converted to `dtype` (a copy even when the dtype is the same).
    pub fn cast(&self, dtype: DType) -> Result<DynTensor> {
        each!(self, t => for_any_dtype!(dtype, U => t.cast::<U>().map(DynTensor::from)))
    }

    /// Another handle on the same buffer, registered as a reader while it
    /// lives: a handle to read through where a front end may write through
    /// another view of the buffer meanwhile ([`crate::memory::ownership`], rule
    /// 5). `Busy` while such a write runs.
    pub fn reader(&self) -> Result<DynTensor> {
        each!(self, t => t.reader().map(DynTensor::from))
    }

    /// [`reader`](Self::reader) for a caller holding a lock.
    pub(crate) fn reader_now(&self) -> Result<DynTensor> {
        each!(self, t => t.reader_now().map(DynTensor::from))
    }

    /// A reader handle becomes a plain one ([`Tensor::settle`]).
    pub(crate) fn settle(&mut self) {
        each!(self, t => t.settle());
    }

    /// Write `src` (C order, this shape and dtype) through into this
    /// tensor's elements of a buffer others may share
    /// ([`Tensor::write_through`]).
    ///
    /// # Safety
    /// As [`Tensor::write_through`]: no unregistered read of the buffer
    /// runs meanwhile.
    #[allow(unsafe_code)] // forwards the contract
    pub(crate) unsafe fn write_through(&mut self, src: &DynTensor) -> Result<()> {
        for_any_dtype!(self.dtype(), T => {
            let s = src.typed::<T>("a write through a view")?;
            let t = self.typed_mut::<T>("a write through a view")?;
            // SAFETY: the caller's contract, forwarded.
            unsafe { t.write_through(s.as_slice()?) }
        })
    }

    pub fn deep_copy(&self) -> Result<DynTensor> {
        each!(self, t => t.deep_copy().map(DynTensor::from))
    }

    /// Another handle with another shape (same element count); a copy
    /// of a strided view.
    pub fn reshape(&self, shape: &[usize]) -> Result<DynTensor> {
        each!(self, t => t.reshape(shape).map(DynTensor::from))
    }

    /// Both handles view the same elements of the same buffer, with the
    /// same dtype, shape and strides (NumPy's `a is b` for data, whatever
    /// the Python objects). `false` when either has no buffer (donated).
    pub fn same_view(&self, other: &DynTensor) -> bool {
        match (self.buffer_ptr(), other.buffer_ptr()) {
            (Some(a), Some(b)) => {
                a == b && self.dtype() == other.dtype() && *self.layout() == *other.layout()
            }
            _ => false,
        }
    }

    /// The serial number of the buffer it views: buffers made later have
    /// larger ones ([`crate::storages_made`]).
    pub fn buffer_serial(&self) -> u64 {
        each!(self, t => t.buffer_serial())
    }

    /// Address of the first element.
    pub fn data_ptr(&self) -> Option<*const u8> {
        each!(self, t => t.data_ptr())
    }

    /// Where the elements sit in the buffer.
    pub fn layout(&self) -> std::borrow::Cow<'_, crate::array::layout::Layout> {
        each!(self, t => t.layout())
    }

    /// How it covers its buffer.
    pub fn coverage(&self) -> crate::array::layout::Coverage {
        each!(self, t => t.coverage())
    }

    /// The view a basic index selects (sharing the buffer).
    pub fn index(&self, index: &[crate::array::layout::Index]) -> Result<DynTensor> {
        each!(self, t => t.index(index).map(DynTensor::from))
    }

    /// A view with its axes permuted (sharing the buffer).
    pub fn permuted_view(&self, axes: &[isize]) -> Result<DynTensor> {
        each!(self, t => t.permuted_view(axes).map(DynTensor::from))
    }

    /// Itself when contiguous (another handle), else a C-order copy.
    pub fn contiguous(&self) -> Result<DynTensor> {
        each!(self, t => t.contiguous().map(DynTensor::from))
    }

    /// The typed tensor inside (`DTypeMismatch` naming `op` otherwise).
    pub fn typed<T: AnyElement>(&self, op: &'static str) -> Result<&Tensor<T>> {
        // (`ok_or_else`: the error is built, and dropped, only on failure;
        // this runs for every typed operand of every call.)
        T::peel(self).ok_or_else(|| Error::DTypeMismatch {
            op,
            expected: T::DTYPE,
            found: self.dtype(),
        })
    }

    /// [`typed`](Self::typed), mutably.
    pub fn typed_mut<T: AnyElement>(&mut self, op: &'static str) -> Result<&mut Tensor<T>> {
        let found = self.dtype();
        // (A match, not `ok_or`: the error is built, and dropped, only on
        // failure.)
        match T::peel_mut(self) {
            Some(t) => Ok(t),
            None => Err(Error::DTypeMismatch {
                op,
                expected: T::DTYPE,
                found,
            }),
        }
    }
}

/// A weak scalar must fit the dtype it is converted to (NumPy raises for
/// `int8_array + 300` and for a non-finite float into an integer). A
/// float into an integer dtype is truncated toward zero, and the integer
/// must fit, as NumPy's `int8_array[0] = 300.5` and `fill` check it
/// (`2.7` stores 2; `300.5` raises rather than storing 127 or 44). Every
/// real number converts to bool, as its truth value (NumPy's `b[0] = 7`
/// and `b.fill(2)` store True).
pub fn check_scalar(op: &'static str, s: Scalar, dtype: DType) -> Result<()> {
    let range = dtype.int_range().filter(|_| dtype != DType::Bool);
    match (s, range) {
        (Scalar::Int(v), Some((lo, hi))) if !(lo..=hi).contains(&v) => {
            Err(Error::ScalarOutOfRange {
                value: v.to_string(),
                dtype,
            })
        }
        (Scalar::Float(v), Some(_)) if !v.is_finite() => Err(Error::InvalidArgument {
            op,
            reason: format!("cannot convert float {v} to an integer"),
        }),
        // (`hi + 1` is exact in f64, or rounds to the same power of two
        // as int64's and uint64's `hi` do: 2**63, 2**64, both past them.)
        #[allow(clippy::cast_precision_loss)]
        (Scalar::Float(v), Some((lo, hi)))
            if !(lo as f64 <= v.trunc() && v.trunc() < hi as f64 + 1.0) =>
        {
            Err(Error::ScalarOutOfRange {
                value: format!("{:.0}", v.trunc()),
                dtype,
            })
        }
        (Scalar::Complex(..), _) if !dtype.is_complex() => Err(Error::InvalidOperand {
            op,
            reason: format!("cannot convert the complex number {s} to {dtype}"),
        }),
        _ => Ok(()),
    }
}

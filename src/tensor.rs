//! `Tensor<T>`: an n-d, C-contiguous handle on a shared, ownership-tracked
//! buffer.
//!
//! # Ownership rules
//!
//! * `clone` and `reshape` make another *handle* on the same buffer; nothing
//!   is copied. A buffer with more than one handle, or with an exported view,
//!   is immutable: writes go to a fresh copy first (copy-on-write), so no
//!   handle and no view ever observes a change made through another.
//! * An operation may write its result into an input's buffer only when it
//!   *owns* that input: by value (`t.relu()`, `a + b`), through `&mut self`
//!   (`t.relu_inplace()`), or through an explicit [`Donated`](crate::Donated).
//!   Methods on `&self` (`t.relu_ref()`, `&a + &b`) never change their input.
//! * Even when owned, the buffer is reused only if it is exclusive (one
//!   handle, no exports) and the result has its shape and dtype; otherwise a
//!   new buffer is allocated and the input is left as it was.
//! * [`take_buffer`](Tensor::take_buffer) moves the buffer out and leaves the
//!   tensor *moved-from*: its shape and dtype still read, every access to its
//!   data is an [`Error::AlreadyDonated`] naming the op that consumed it.

use std::marker::PhantomData;

use crate::buffer::{ExportGuard, Handle, OwnedBuffer, WriteGuard};
use crate::element::{DType, Element};
use crate::error::{Error, Result};
use crate::kernels;
use crate::ownership::{OwnershipSnapshot, StateError};
use crate::shape::checked_numel;

pub(crate) use crate::shape::Dims;

/// An n-dimensional, C-contiguous tensor of `T`. See the [module docs](self).
pub struct Tensor<T: Element> {
    handle: Handle,
    shape: Dims,
    _t: PhantomData<T>,
}

impl<T: Element> Clone for Tensor<T> {
    /// Another handle on the same buffer (no copy). Cloning a moved-from
    /// tensor gives another moved-from tensor.
    fn clone(&self) -> Self {
        Tensor {
            handle: self.handle.share(),
            shape: Dims::from_slice(&self.shape),
            _t: PhantomData,
        }
    }
}

// The handle is shown as what it holds: the elements, or `<donated>`.
#[allow(clippy::missing_fields_in_debug)]
impl<T: Element> std::fmt::Debug for Tensor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Tensor");
        d.field("dtype", &T::DTYPE).field("shape", &self.shape);
        match self.as_slice() {
            Ok(s) if s.len() <= 16 => d.field("data", &s),
            Ok(_) => d.field("data", &format_args!("[..{} elements]", self.numel())),
            Err(_) => d.field("data", &format_args!("<donated>")),
        };
        d.finish()
    }
}

/// Map a refused state transition to the crate's error.
pub(crate) fn state_error<T: Element>(t: &Tensor<T>, e: StateError) -> Error {
    match e {
        StateError::Donated => t.donated_error(),
        StateError::Busy | StateError::Overflow => Error::Busy,
        StateError::Shared { handles, exports } => Error::NotDonatable { handles, exports },
    }
}

impl<T: Element> Tensor<T> {
    /// Wrap a buffer. Its length must be `shape`'s element count.
    pub fn from_buffer(buf: OwnedBuffer, shape: &[usize]) -> Result<Self> {
        let n = checked_numel(shape, std::mem::size_of::<T>())?;
        let found = buf.len() / std::mem::size_of::<T>();
        if found * std::mem::size_of::<T>() != buf.len() || found != n {
            return Err(Error::LengthMismatch {
                shape: shape.to_vec(),
                expected: n,
                found,
            });
        }
        Ok(Tensor {
            handle: Handle::new(buf),
            shape: Dims::from_slice(shape),
            _t: PhantomData,
        })
    }

    /// All zeros.
    pub fn zeros(shape: &[usize]) -> Result<Self> {
        let n = checked_numel(shape, std::mem::size_of::<T>())?;
        Self::from_buffer(OwnedBuffer::zeroed(n * std::mem::size_of::<T>())?, shape)
    }

    /// All ones.
    pub fn ones(shape: &[usize]) -> Result<Self> {
        Self::full(shape, T::ONE)
    }

    /// Every element `value`.
    pub fn full(shape: &[usize], value: T) -> Result<Self> {
        let n = checked_numel(shape, std::mem::size_of::<T>())?;
        Self::from_buffer(kernels::fresh::filled(n, value)?, shape)
    }

    /// Take a `Vec` (copied into an aligned, tracked buffer).
    // By value: the caller hands its data over (`from_slice` is the
    // borrowing form), so a `Vec` literal needs no `&`.
    #[allow(clippy::needless_pass_by_value)]
    pub fn from_vec(data: Vec<T>, shape: &[usize]) -> Result<Self> {
        Self::from_slice(&data, shape)
    }

    /// Copy a slice.
    pub fn from_slice(data: &[T], shape: &[usize]) -> Result<Self> {
        let n = checked_numel(shape, std::mem::size_of::<T>())?;
        if n != data.len() {
            return Err(Error::LengthMismatch {
                shape: shape.to_vec(),
                expected: n,
                found: data.len(),
            });
        }
        Self::from_buffer(OwnedBuffer::from_slice(data)?, shape)
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Bytes of data (`numel * size_of::<T>()`).
    pub fn nbytes(&self) -> usize {
        self.numel() * std::mem::size_of::<T>()
    }

    /// The dtype tag.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    pub(crate) fn donated_error(&self) -> Error {
        Error::AlreadyDonated {
            shape: self.shape.to_vec(),
            dtype: T::DTYPE,
            consumed_by: self.handle.storage().consumed_by(),
        }
    }

    fn buffer(&self) -> Result<&OwnedBuffer> {
        self.handle
            .storage()
            .buffer()
            .ok_or_else(|| self.donated_error())
    }

    /// The elements, or `AlreadyDonated` for a moved-from tensor.
    pub fn as_slice(&self) -> Result<&[T]> {
        Ok(self.buffer()?.as_slice::<T>())
    }

    /// The elements as a `Vec`.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Address of the buffer (`None` once donated): equal addresses mean the
    /// same memory, which is how tests observe reuse.
    pub fn buffer_ptr(&self) -> Option<*const u8> {
        self.handle.storage().buffer().map(OwnedBuffer::as_ptr)
    }

    /// Whether two tensors are handles on the same buffer.
    pub fn shares_buffer_with<U: Element>(&self, other: &Tensor<U>) -> bool {
        self.handle.same_storage(&other.handle)
    }

    /// Mutable elements, only when this handle owns the buffer exclusively
    /// (one handle, no exported view); `None` otherwise.
    pub fn data_mut(&mut self) -> Option<&mut [T]> {
        self.handle.data_mut::<T>()
    }

    /// One handle, no exports, not donated?
    pub fn is_exclusively_owned(&self) -> bool {
        self.handle.storage().state.snapshot().is_exclusive()
    }

    /// The ownership state now.
    pub fn ownership(&self) -> OwnershipSnapshot {
        self.handle.storage().state.snapshot()
    }

    /// Moved-from?
    pub fn is_donated(&self) -> bool {
        self.handle.storage().state.snapshot().donated
    }

    /// The op that consumed this tensor's buffer, if it was donated.
    pub fn consumed_by(&self) -> Option<&'static str> {
        self.handle.storage().consumed_by()
    }

    /// Move the buffer out, leaving this tensor moved-from.
    /// Fails (and changes nothing) unless the buffer is exclusive.
    pub fn take_buffer(&mut self) -> Result<OwnedBuffer> {
        self.take_buffer_for("take_buffer")
    }

    /// [`take_buffer`](Self::take_buffer), recording `op` as the consumer.
    pub fn take_buffer_for(&mut self, op: &'static str) -> Result<OwnedBuffer> {
        self.handle
            .storage()
            .take(op)
            .map_err(|e| state_error(self, e))
    }

    /// A new handle with another shape of the same element count, sharing
    /// the buffer.
    pub fn reshape(&self, shape: &[usize]) -> Result<Self> {
        self.check_reshape(shape)?;
        let mut t = self.clone();
        t.shape = Dims::from_slice(shape);
        Ok(t)
    }

    /// Reshape this handle itself (no new handle, so it stays exclusive).
    pub fn into_reshape(mut self, shape: &[usize]) -> Result<Self> {
        self.check_reshape(shape)?;
        self.shape = Dims::from_slice(shape);
        Ok(self)
    }

    fn check_reshape(&self, shape: &[usize]) -> Result<()> {
        self.buffer()?;
        let n = checked_numel(shape, std::mem::size_of::<T>())?;
        if n != self.numel() {
            return Err(Error::InvalidShape {
                op: "reshape",
                shape: shape.to_vec(),
                reason: format!(
                    "cannot reshape {} elements of shape {:?}",
                    self.numel(),
                    self.shape
                ),
            });
        }
        Ok(())
    }

    /// A deep copy in a new, exclusive buffer.
    pub fn deep_copy(&self) -> Result<Self> {
        Self::from_buffer(kernels::fresh::copied(self.as_slice()?)?, &self.shape)
    }

    /// Copy-on-write: make this handle's buffer exclusive, copying it first
    /// if it is shared or exported. Other handles and views keep the old data.
    pub fn make_exclusive(&mut self) -> Result<()> {
        let s = self.ownership();
        if s.donated {
            return Err(self.donated_error());
        }
        if !s.is_exclusive() {
            *self = self.deep_copy()?;
        }
        Ok(())
    }

    /// Convert to another element type (a new buffer; `as` semantics).
    pub fn cast<U: Element>(&self) -> Result<Tensor<U>> {
        Tensor::from_buffer(kernels::fresh::cast::<T, U>(self.as_slice()?)?, &self.shape)
    }

    /// Register an exported read-only view of the data. The guard keeps the
    /// buffer alive (even after every tensor is gone) and blocks in-place
    /// writes and donation until dropped.
    pub fn export(&self) -> Result<ExportGuard> {
        self.handle.export().map_err(|e| state_error(self, e))
    }

    /// Enter the writer state for an in-place kernel; `None` if the buffer is
    /// not exclusive (the caller then copies first or allocates).
    pub(crate) fn write_guard(&mut self) -> Option<WriteGuard<'_>> {
        self.handle.write_guard()
    }
}

/// Tensor constructors of an arena. Here rather than in `arena.rs`, so that
/// the arena (below buffers and tensors) does not depend on `Tensor`.
impl crate::arena::TensorArena {
    /// A zero-filled tensor from this arena.
    pub fn zeros<T: Element>(&self, shape: &[usize]) -> Result<Tensor<T>> {
        self.scope(|| Tensor::zeros(shape))
    }

    /// A tensor filled with `value`, from this arena.
    pub fn full<T: Element>(&self, shape: &[usize], value: T) -> Result<Tensor<T>> {
        self.scope(|| Tensor::full(shape, value))
    }
}

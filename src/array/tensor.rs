//! `Tensor<T>`: an n-d handle on a shared, ownership-tracked buffer, with a
//! [`Layout`] (shape, strides, offset) saying where its elements sit.
//!
//! # Ownership rules
//!
//! * `clone`, `reshape` of a contiguous tensor, and the views
//!   ([`index`](Tensor::index), [`permuted_view`](Tensor::permuted_view))
//!   make another *handle* on the same buffer; nothing is copied. A buffer with more than one handle, or with an exported view,
//!   is immutable: writes go to a fresh copy first (copy-on-write), so no
//!   handle and no view ever observes a change made through another.
//! * An operation may write its result into an input's buffer only when it
//!   *owns* that input: by value (`t.relu()`, `a + b`), through `&mut self`
//!   (`t.relu_inplace()`), or through an explicit [`Donated`](crate::Donated).
//!   Methods on `&self` (`t.relu_ref()`, `&a + &b`) never change their input.
//! * Even when owned, the buffer is reused only if it is exclusive (one
//!   handle, no exports), the tensor covers it whole in C order (not a
//!   view of part of it, nor a strided one: see [`crate::array::layout`]), and
//!   the result has its shape and dtype; otherwise a new buffer is
//!   allocated and the input is left as it was.
//! * [`as_slice`](Tensor::as_slice) is the contiguous data; on a strided
//!   view it is [`Error::NotContiguous`] (the typed operations read
//!   contiguous tensors; [`contiguous`](Tensor::contiguous) copies a
//!   strided view into C order, and the dtype-erased
//!   [`execute`](crate::driver::execute::execute) does so where its plan says).
//! * [`take_buffer`](Tensor::take_buffer) moves the buffer out and leaves the
//!   tensor *moved-from*: its shape and dtype still read, every access to its
//!   data is an [`Error::AlreadyDonated`] naming the op that consumed it.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::array::element::{DType, Element};
use crate::array::layout::{Index, Layout};
use crate::array::shape::{checked_numel, dims};
use crate::error::{Error, Result};
use crate::kernels;
use crate::memory::buffer::{ExportGuard, Handle, OwnedBuffer, WriteGuard};
use crate::memory::ownership::{OwnershipSnapshot, StateError};

pub(crate) use crate::array::shape::Dims;

/// An n-dimensional tensor of `T`. See the [module docs](self).
pub struct Tensor<T: Element> {
    handle: Handle,
    shape: Dims,
    /// `None`: the C-order layout of `shape` over the whole buffer (every
    /// tensor that is not a view, kept as small and as fast to read and
    /// clone as before views existed); a view's layout otherwise.
    view: Option<Arc<Layout>>,
    _t: PhantomData<T>,
}

impl<T: Element> Clone for Tensor<T> {
    /// Another handle on the same buffer (no copy). Cloning a moved-from
    /// tensor gives another moved-from tensor.
    fn clone(&self) -> Self {
        // (`on` copies the dims with `shape::dims`; `clone` would extend
        // element by element.)
        self.on(self.handle.share())
    }
}

// The handle is shown as what it holds: the elements, or `<donated>`.
#[allow(clippy::missing_fields_in_debug)]
impl<T: Element> std::fmt::Debug for Tensor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Tensor");
        d.field("dtype", &T::DTYPE).field("shape", &self.shape());
        match self.to_vec() {
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
        StateError::Pinned => Error::Pinned,
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
            shape: dims(shape),
            view: None,
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

    /// Where the elements sit in the buffer.
    pub fn layout(&self) -> Cow<'_, Layout> {
        match &self.view {
            Some(l) => Cow::Borrowed(l),
            None => Cow::Owned(Layout::contiguous(&self.shape)),
        }
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// The elements are contiguous (whole, or a contiguous part).
    fn is_contiguous(&self) -> bool {
        self.view.as_ref().is_none_or(|l| l.is_contiguous())
    }

    /// Bytes of data (`numel * size_of::<T>()`).
    pub fn nbytes(&self) -> usize {
        self.numel() * std::mem::size_of::<T>()
    }

    /// The dtype tag.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    // Out of line: every read checks for it, and it is rare.
    #[cold]
    #[inline(never)]
    pub(crate) fn donated_error(&self) -> Error {
        Error::AlreadyDonated {
            shape: self.shape().to_vec(),
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

    /// The elements in C order, when they are contiguous in the buffer;
    /// `AlreadyDonated` for a moved-from tensor, `NotContiguous` for a
    /// strided view.
    pub fn as_slice(&self) -> Result<&[T]> {
        let all = self.buffer()?.as_slice::<T>();
        match &self.view {
            None => Ok(all),
            Some(l) => match l.contiguous_range() {
                Some(r) => Ok(&all[r]),
                None => Err(Error::NotContiguous { op: "as_slice" }),
            },
        }
    }

    /// `Ok` unless the tensor is moved-from (`AlreadyDonated`).
    pub fn check_readable(&self) -> Result<()> {
        self.buffer().map(|_| ())
    }

    /// The whole buffer's elements and this tensor's layout in it (what a
    /// kernel that reads strides takes).
    pub fn strided(&self) -> Result<(&[T], Cow<'_, Layout>)> {
        Ok((self.buffer()?.as_slice::<T>(), self.layout()))
    }

    /// The elements as a `Vec`, in C order (a view's too).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        if let Ok(s) = self.as_slice() {
            return Ok(s.to_vec());
        }
        let (all, layout) = self.strided()?;
        let mut out = Vec::with_capacity(self.numel());
        layout.for_each_index(|_, e| out.push(all[e]));
        Ok(out)
    }

    /// Address of the buffer (`None` once donated): equal addresses mean the
    /// same memory, which is how tests observe reuse.
    pub fn buffer_ptr(&self) -> Option<*const u8> {
        self.handle.storage().buffer().map(OwnedBuffer::as_ptr)
    }

    /// The serial number of its buffer ([`crate::storages_made`]).
    pub fn buffer_serial(&self) -> u64 {
        self.handle.serial()
    }

    /// Address of the first element (the buffer's plus the view's offset).
    pub fn data_ptr(&self) -> Option<*const u8> {
        self.buffer_ptr().map(|p| {
            p.wrapping_add(self.view.as_ref().map_or(0, |l| l.offset()) * std::mem::size_of::<T>())
        })
    }

    /// Covers its whole buffer in C order (not a view of part of it, not
    /// strided): the condition, besides exclusivity, for donating it.
    pub fn covers_buffer(&self) -> bool {
        self.view.is_none()
    }

    /// How this tensor covers its buffer, as planning sees it.
    pub fn coverage(&self) -> crate::array::layout::Coverage {
        match &self.view {
            None => crate::array::layout::Coverage::Whole,
            Some(l) => {
                let len = self
                    .handle
                    .storage()
                    .buffer()
                    .map_or(0, |b| b.len() / std::mem::size_of::<T>());
                l.coverage(len)
            }
        }
    }

    /// Whether two tensors are handles on the same buffer.
    pub fn shares_buffer_with<U: Element>(&self, other: &Tensor<U>) -> bool {
        self.handle.same_storage(&other.handle)
    }

    /// Mutable elements, only when this handle owns the buffer exclusively
    /// (one handle, no exported view) and its elements are contiguous;
    /// `None` otherwise.
    pub fn data_mut(&mut self) -> Option<&mut [T]> {
        let r = self.layout().contiguous_range()?;
        self.handle.data_mut::<T>().map(|s| &mut s[r])
    }

    /// One handle, no exports, not donated, and covering the whole buffer
    /// (so it could be donated)?
    pub fn is_exclusively_owned(&self) -> bool {
        self.handle.storage().state.snapshot().is_exclusive() && self.covers_buffer()
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
    /// A view that does not cover its whole buffer is never taken
    /// ([`Error::PartialView`]).
    pub fn take_buffer_for(&mut self, op: &'static str) -> Result<OwnedBuffer> {
        self.buffer()?;
        if !self.covers_buffer() {
            return Err(Error::PartialView {
                shape: self.shape().to_vec(),
            });
        }
        self.handle
            .storage()
            .take(op)
            .map_err(|e| state_error(self, e))
    }

    /// The buffer of a view whose value is dead, as memory for another
    /// value (a traced program recycling it): taken whatever part of it
    /// this handle covers, when the handle is its only holder.
    pub(crate) fn recycle_buffer(&mut self, op: &'static str) -> Result<OwnedBuffer> {
        self.buffer()?;
        self.handle
            .storage()
            .take(op)
            .map_err(|e| state_error(self, e))
    }

    /// Another shape of the same element count: a new handle sharing the
    /// buffer when the elements are contiguous, else a copy in C order.
    pub fn reshape(&self, shape: &[usize]) -> Result<Self> {
        self.check_reshape(shape)?;
        if self.view.is_none() {
            let mut t = self.clone();
            t.shape = dims(shape);
            return Ok(t);
        }
        match self.layout().reshaped(shape) {
            Some(l) => self.view(l),
            None => self.deep_copy()?.into_reshape(shape),
        }
    }

    /// Reshape this handle itself (no new handle, so it stays exclusive);
    /// a strided view is copied first.
    pub fn into_reshape(mut self, shape: &[usize]) -> Result<Self> {
        self.check_reshape(shape)?;
        if self.view.is_none() {
            self.shape = dims(shape);
            return Ok(self);
        }
        match self.layout().reshaped(shape) {
            Some(l) => {
                self.set_layout(l);
                Ok(self)
            }
            None => self.deep_copy()?.into_reshape(shape),
        }
    }

    /// A view sharing the buffer with `layout` (checked to lie inside it).
    fn view(&self, layout: Layout) -> Result<Self> {
        let len = self.buffer()?.len() / std::mem::size_of::<T>();
        let layout = layout.within(len)?;
        let mut t = self.clone();
        t.set_layout(layout);
        Ok(t)
    }

    /// Take `layout` (inside the buffer): the plain form when it covers
    /// the whole buffer in C order.
    fn set_layout(&mut self, layout: Layout) {
        let len = self
            .handle
            .storage()
            .buffer()
            .map_or(0, |b| b.len() / std::mem::size_of::<T>());
        self.shape = dims(layout.shape());
        self.view = if layout.covers(len) {
            None
        } else {
            Some(Arc::new(layout))
        };
    }

    /// The view selected by a basic index (ints, slices, new axes, one
    /// ellipsis; NumPy's rules), sharing the buffer.
    pub fn index(&self, index: &[Index]) -> Result<Self> {
        self.buffer()?;
        self.view(self.layout().indexed(index)?)
    }

    /// A view with its axes permuted (output axis `i` is axis `axes[i]`;
    /// negative axes count from the end), sharing the buffer.
    pub fn permuted_view(&self, axes: &[isize]) -> Result<Self> {
        let norm = crate::array::shape::permutation(self.shape(), Some(axes))?;
        self.view(self.layout().permuted(&norm))
    }

    /// This tensor when its elements are contiguous (another handle), else
    /// a copy of them in C order.
    pub fn contiguous(&self) -> Result<Self> {
        if self.is_contiguous() {
            self.buffer()?;
            return Ok(self.clone());
        }
        self.deep_copy()
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
                    self.shape()
                ),
            });
        }
        Ok(())
    }

    /// A deep copy in a new, exclusive buffer (C order).
    pub fn deep_copy(&self) -> Result<Self> {
        let buf = if let Ok(s) = self.as_slice() {
            kernels::fresh::copied(s)?
        } else {
            let (all, layout) = self.strided()?;
            kernels::fresh::gathered(all, &layout)?
        };
        Self::from_buffer(buf, self.shape())
    }

    /// Copy-on-write: make this handle's buffer exclusive, copying it first
    /// if it is shared or exported (or a strided view). Other handles and
    /// views keep the old data.
    pub fn make_exclusive(&mut self) -> Result<()> {
        let s = self.ownership();
        if s.donated {
            return Err(self.donated_error());
        }
        if !s.is_exclusive() || !self.is_contiguous() {
            *self = self.deep_copy()?;
        }
        Ok(())
    }

    /// Convert to another element type (a new buffer; `as` semantics).
    pub fn cast<U: Element>(&self) -> Result<Tensor<U>> {
        let src = self.contiguous()?;
        Tensor::from_buffer(kernels::fresh::cast::<T, U>(src.as_slice()?)?, self.shape())
    }

    /// Register an exported read-only view of the data. The guard keeps the
    /// buffer alive (even after every tensor is gone) and blocks in-place
    /// writes and donation until dropped.
    pub fn export(&self) -> Result<ExportGuard> {
        self.handle.export().map_err(|e| state_error(self, e))
    }

    /// Run `f` on the elements in the writer state of an in-place kernel;
    /// `None` (without running it) if the buffer is not exclusive or the
    /// elements are not contiguous (the caller then copies first or
    /// allocates).
    pub(crate) fn write_with<R>(&mut self, f: impl FnOnce(&mut [T]) -> R) -> Option<R> {
        let r = match &self.view {
            None => 0..self.numel(),
            Some(l) => l.contiguous_range()?,
        };
        let mut g: WriteGuard<'_> = self.handle.write_guard()?;
        Some(f(&mut g.slice::<T>()[r]))
    }

    /// Another handle on the same buffer, registered as a reader while it
    /// lives (see [`crate::memory::ownership`], rule 5): `Busy` while a write
    /// through another handle runs.
    pub(crate) fn reader(&self) -> Result<Self> {
        let handle = self.handle.reader().map_err(|e| state_error(self, e))?;
        Ok(self.on(handle))
    }

    /// This tensor's shape and layout over `handle` (a handle on its
    /// buffer).
    fn on(&self, handle: Handle) -> Self {
        Tensor {
            handle,
            shape: dims(&self.shape),
            view: self.view.clone(),
            _t: PhantomData,
        }
    }

    /// [`reader`](Self::reader), not held off by a writer waiting for the
    /// readers (for a caller holding a lock).
    pub(crate) fn reader_now(&self) -> Result<Self> {
        let handle = self.handle.reader_now().map_err(|e| state_error(self, e))?;
        Ok(self.on(handle))
    }

    /// A reader handle kept beyond its read becomes a plain handle.
    pub(crate) fn settle(&mut self) {
        self.handle.settle();
    }

    /// Write `src` (C order, this tensor's shape) into this tensor's
    /// elements in its buffer, which other handles and exported views may
    /// share: they all see the new values (a write through a view).
    /// `Busy` while a reader is registered: the caller waits and retries.
    ///
    /// # Safety
    /// No thread may read this buffer through a handle that is not a
    /// reader, or through an exported view, while this runs (see
    /// [`crate::driver::call`] for how the Python bindings ensure it).
    #[allow(unsafe_code)] // the shared writer state, under the caller's contract
    pub(crate) unsafe fn write_through(&mut self, src: &[T]) -> Result<()> {
        self.buffer()?;
        let layout = self.layout().into_owned();
        let shape = self.shape().to_vec();
        let donated = self.donated_error();
        // SAFETY: the caller's contract above.
        let mut g = unsafe { self.handle.shared_write_guard() }.map_err(|e| match e {
            StateError::Donated => donated,
            StateError::Busy
            | StateError::Overflow
            | StateError::Shared { .. }
            | StateError::Pinned => Error::Busy,
        })?;
        kernels::strided::scatter(g.slice::<T>(), &layout, src, &shape);
        Ok(())
    }

    /// Write `src` (shape `src_shape`, broadcast) into the view `index` of
    /// this tensor, copying on write first if the buffer is shared (or
    /// exported), so other holders keep their values. The caller checked
    /// that `src_shape` broadcasts to the view's shape.
    pub(crate) fn write_index(
        &mut self,
        index: &[Index],
        src: &[T],
        src_shape: &[usize],
    ) -> Result<()> {
        self.buffer()?;
        if !self.ownership().is_exclusive() {
            *self = self.deep_copy()?;
        }
        let layout = self.layout().indexed(index)?;
        let src_shape = crate::array::shape::assigned_shape(src_shape, layout.ndim());
        let done = {
            let mut g = self.handle.write_guard();
            g.as_mut()
                .map(|g| kernels::strided::scatter(g.slice::<T>(), &layout, src, src_shape))
        };
        done.ok_or(Error::Busy)
    }
}

/// Tensor constructors of an arena. Here rather than in `arena.rs`, so that
/// the arena (below buffers and tensors) does not depend on `Tensor`.
impl crate::memory::arena::TensorArena {
    /// A zero-filled tensor from this arena.
    pub fn zeros<T: Element>(&self, shape: &[usize]) -> Result<Tensor<T>> {
        self.scope(|| Tensor::zeros(shape))
    }

    /// A tensor filled with `value`, from this arena.
    pub fn full<T: Element>(&self, shape: &[usize], value: T) -> Result<Tensor<T>> {
        self.scope(|| Tensor::full(shape, value))
    }
}

//! Tensor memory and the shared storage cell.
//!
//! One of the modules allowed to contain `unsafe` code (with `block`,
//! [`kernels`](crate::kernels) and `parallel`). In the crate's layers it
//! sits above `block` (the raw allocation) and `arena` (the free lists a
//! block may come from and go back to), and below `tensor`. It provides:
//!
//! * [`OwnedBuffer`]: a `RawBlock` plus its used length and where it goes
//!   back to when dropped (the system allocator, or the arena it came from
//!   if that arena is still alive);
//! * [`UninitBuffer`]: a fresh buffer whose elements a kernel must write
//!   before anyone reads them;
//! * `Storage`: the [`OwnershipState`] plus the buffer, shared by the handles
//!   (tensors) and exported views of one buffer.
//!
//! # Allocation never aborts
//! Sizes are checked (`usize` overflow, `isize::MAX`), and a refused
//! allocation is returned as [`Error::AllocationFailed`]; the global
//! `handle_alloc_error` is never called.

use std::cell::Cell;
use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use crate::array::element::Element;
use crate::error::{Error, Result};
use crate::memory::arena::{self, ArenaShared};
use crate::memory::block::{RawBlock, ALIGN};
use crate::memory::counters;
use crate::memory::ownership::{OwnershipState, StateError};

/// Where a buffer's memory goes when the buffer is dropped.
#[derive(Debug, Clone)]
enum Origin {
    /// Freed to the system allocator.
    System,
    /// Returned to this arena's free lists, or freed if the arena is gone.
    Arena(Weak<ArenaShared>),
}

/// Tensor memory: an aligned block, the number of bytes in use, and where the
/// block goes back to. All elements are initialised.
#[derive(Debug)]
pub struct OwnedBuffer {
    block: RawBlock,
    len: usize,
    origin: Origin,
}

impl OwnedBuffer {
    /// A zero-filled buffer of `len` bytes, from the current thread's arena
    /// (see [`TensorArena::scope`](crate::TensorArena::scope)) or the system.
    pub fn zeroed(len: usize) -> Result<Self> {
        let (block, origin) = obtain(len, true)?;
        Ok(OwnedBuffer { block, len, origin })
    }

    /// A buffer holding a copy of `src`'s elements.
    pub fn from_slice<T: Element>(src: &[T]) -> Result<Self> {
        let mut out = UninitBuffer::<T>::new(src.len())?;
        for (d, s) in out.as_uninit_mut().iter_mut().zip(src) {
            d.write(*s);
        }
        // SAFETY: the loop wrote every one of the `src.len()` elements.
        Ok(unsafe { out.assume_init() })
    }

    /// Bytes in use.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No bytes in use?
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes allocated (what the statistics count).
    pub fn capacity(&self) -> usize {
        self.block.capacity()
    }

    /// Address of the first byte: equal addresses mean the same memory.
    pub fn as_ptr(&self) -> *const u8 {
        self.block.as_ptr()
    }

    /// The contents as elements (a trailing partial element, if the byte
    /// length is not a multiple of `size_of::<T>()`, is not included).
    pub fn as_slice<T: Element>(&self) -> &[T] {
        // Every OwnedBuffer is initialised: built from zeroed memory, a full
        // copy, or an UninitBuffer whose kernel wrote every element.
        // SAFETY: ALIGN-aligned (≥ align_of T), `len` initialised bytes, any
        // bit pattern is a valid T; the lifetime is tied to &self.
        unsafe {
            std::slice::from_raw_parts(
                self.block.as_ptr().cast::<T>(),
                self.len / std::mem::size_of::<T>(),
            )
        }
    }

    /// The contents as mutable elements.
    pub fn as_mut_slice<T: Element>(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`; `&mut self` makes this the only access.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.block.as_mut_ptr().cast::<T>(),
                self.len / std::mem::size_of::<T>(),
            )
        }
    }
}

impl Drop for OwnedBuffer {
    fn drop(&mut self) {
        let block = std::mem::replace(&mut self.block, RawBlock::empty());
        if block.capacity() == 0 {
            return;
        }
        counters::on_free(block.capacity());
        if let Origin::Arena(weak) = &self.origin {
            if let Some(arena) = weak.upgrade() {
                arena.give_back(block);
                return;
            }
        }
        drop(block); // the system allocator (or a gone arena): free it
    }
}

thread_local! {
    /// Buffers a planned program set aside for the allocations of its
    /// current equation ([`serve_planned`]).
    static PLANNED: std::cell::RefCell<Vec<OwnedBuffer>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl OwnedBuffer {
    /// Set the bytes in use (at most the capacity): a planned buffer about
    /// to serve an allocation of `len` bytes.
    pub(crate) fn with_len(mut self, len: usize) -> Option<Self> {
        (len <= self.capacity()).then(|| {
            self.len = len;
            self
        })
    }

    /// The block and where it goes, without freeing or counting anything:
    /// the memory stays live, passed on to another buffer.
    fn into_parts(mut self) -> (RawBlock, Origin) {
        let block = std::mem::replace(&mut self.block, RawBlock::empty());
        (block, self.origin.clone())
        // `self` drops with an empty block: nothing freed or counted.
    }
}

/// Run `f` with `planned` serving this thread's allocations of exactly
/// their lengths ([`OwnedBuffer::len`]), each once; returns `f`'s result
/// and the buffers it did not use. A planned program runs each equation
/// this way, so a result lands in the buffer the plan chose (a free one,
/// or one allocated before the program first wrote a donated argument).
pub(crate) fn serve_planned<R>(
    planned: Vec<OwnedBuffer>,
    f: impl FnOnce() -> R,
) -> (R, Vec<OwnedBuffer>) {
    if planned.is_empty() {
        return (f(), planned);
    }
    let outer = PLANNED.with(|p| std::mem::replace(&mut *p.borrow_mut(), planned));
    let r = f();
    let left = PLANNED.with(|p| std::mem::replace(&mut *p.borrow_mut(), outer));
    (r, left)
}

/// A planned buffer of exactly `len` bytes, if one is set aside.
fn take_planned(len: usize) -> Option<(RawBlock, Origin)> {
    PLANNED
        .try_with(|p| {
            let mut p = p.borrow_mut();
            let i = p.iter().position(|b| b.len == len)?;
            Some(p.swap_remove(i).into_parts())
        })
        .ok()
        .flatten()
}

/// Get a block of at least `len` bytes from the current arena or the system.
fn obtain(len: usize, zeroed: bool) -> Result<(RawBlock, Origin)> {
    if len == 0 {
        return Ok((RawBlock::empty(), Origin::System));
    }
    if let Some((mut block, origin)) = take_planned(len) {
        if zeroed {
            block.zero();
        }
        return Ok((block, origin));
    }
    if let Some(arena) = arena::current() {
        let (mut block, hit) = arena.take_block(len)?;
        if hit {
            counters::on_live(block.capacity());
            counters::on_reuse(block.capacity());
        } else {
            counters::on_alloc(block.capacity());
        }
        if zeroed {
            block.zero();
        }
        return Ok((block, Origin::Arena(Arc::downgrade(&arena))));
    }
    let block = RawBlock::alloc(len, zeroed)?;
    counters::on_alloc(block.capacity());
    Ok((block, Origin::System))
}

/// Checked byte size of `n` elements of `T`.
pub(crate) fn byte_size<T: Element>(n: usize) -> Result<usize> {
    n.checked_mul(std::mem::size_of::<T>())
        .filter(|b| *b <= isize::MAX as usize - ALIGN)
        .ok_or(Error::AllocationFailed { bytes: usize::MAX })
}

/// A fresh buffer of `len` elements whose contents are not yet written.
///
/// Kernels fill it through [`as_uninit_mut`](Self::as_uninit_mut) and then
/// turn it into an [`OwnedBuffer`] with [`assume_init`](Self::assume_init).
/// Dropping it unfilled simply frees the memory.
pub(crate) struct UninitBuffer<T: Element> {
    buf: OwnedBuffer,
    _t: PhantomData<T>,
}

impl<T: Element> UninitBuffer<T> {
    /// Allocate room for `len` elements (nothing is written).
    pub(crate) fn new(len: usize) -> Result<Self> {
        let bytes = byte_size::<T>(len)?;
        let (block, origin) = obtain(bytes, false)?;
        Ok(Self {
            buf: OwnedBuffer {
                block,
                len: bytes,
                origin,
            },
            _t: PhantomData,
        })
    }

    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        self.buf.len / std::mem::size_of::<T>()
    }

    /// The elements, to be written.
    pub(crate) fn as_uninit_mut(&mut self) -> &mut [MaybeUninit<T>] {
        // SAFETY: the block is aligned for T and owns `len` bytes; viewing
        // them as MaybeUninit<T> makes no claim that they are initialised.
        // `&mut self` makes this the only access.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.buf.block.as_mut_ptr().cast::<MaybeUninit<T>>(),
                self.len(),
            )
        }
    }

    /// The finished buffer.
    ///
    /// # Safety
    /// Every element of [`as_uninit_mut`](Self::as_uninit_mut) must have been
    /// written.
    pub(crate) unsafe fn assume_init(self) -> OwnedBuffer {
        self.buf
    }
}

/// The shared cell behind the handles of one buffer: its ownership state, the
/// buffer (gone once donated), and the name of the op that consumed it.
#[derive(Debug)]
pub(crate) struct Storage {
    pub(crate) state: OwnershipState,
    buf: UnsafeCell<Option<OwnedBuffer>>,
    consumed_by: OnceLock<&'static str>,
    /// How many storages were made before this one ([`storages_made`]):
    /// tells a buffer made before a point in time (a trace's start) from
    /// one made after it.
    serial: u64,
    /// How many times the contents were handed out for writing
    /// ([`Storage::bytes_mut`]), for [`crate::memory::read_log`].
    writes: AtomicU64,
    /// The process generation ([`crate::memory::fork`]) whose threads set the
    /// state's readers and writer bits, or [`CLEARING`]: in the child of a
    /// `fork()`, bits that the parent's other threads left set are cleared
    /// before the first reader or writer of the child ([`Storage::settle_fork`]).
    touched: AtomicU64,
}

/// [`Storage::touched`] while a child clears the bits its parent left.
const CLEARING: u64 = u64::MAX;

/// The count of storages (buffers with their ownership state) made so far,
/// by any thread: the serial number the next one gets.
static STORAGES_MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many buffers were made so far: a buffer whose
/// [`serial`](crate::DynTensor::buffer_serial) is below a value read
/// here was made before the read.
pub fn storages_made() -> u64 {
    STORAGES_MADE.load(std::sync::atomic::Ordering::Relaxed)
}

// SAFETY: the only mutation of `buf` is `take` below, which runs only after
// `state.take_for_donation()` succeeded. That transition requires exactly one
// handle, no exports and no writer, and makes the state final (donated), so
// at that moment no other thread holds a reference into the buffer and none
// can obtain one afterwards. All other accesses are reads. The contents of the
// buffer are written only through `bytes_mut` under the writer bit or `&mut`
// of the sole handle (see `Tensor::data_mut`).
unsafe impl Sync for Storage {}
// SAFETY: OwnedBuffer is Send; the state is atomic.
unsafe impl Send for Storage {}

impl super::read_log::Watched for Storage {
    fn serial(&self) -> u64 {
        self.serial
    }

    fn writes(&self) -> u64 {
        self.writes.load(Ordering::Acquire)
    }
}

impl Storage {
    fn new(buf: OwnedBuffer) -> Arc<Self> {
        Arc::new(Storage {
            state: OwnershipState::new(),
            buf: UnsafeCell::new(Some(buf)),
            consumed_by: OnceLock::new(),
            serial: STORAGES_MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            writes: AtomicU64::new(0),
            touched: AtomicU64::new(crate::memory::fork::generation()),
        })
    }

    /// Before a reader or writer registers: in the child of a `fork()`,
    /// the readers and writer a thread of the parent held at the fork
    /// (that thread does not exist here, and never lets go) are cleared,
    /// once, before any thread of the child registers one. One atomic
    /// load and a comparison when nothing forked.
    #[inline]
    fn settle_fork(&self) {
        let g = crate::memory::fork::generation();
        let t = self.touched.load(Ordering::Acquire);
        if t != g {
            self.settle_fork_slow(g, t);
        }
    }

    #[cold]
    fn settle_fork_slow(&self, g: u64, mut t: u64) {
        loop {
            if t == g {
                return;
            }
            if t == CLEARING {
                std::thread::yield_now();
                t = self.touched.load(Ordering::Acquire);
                continue;
            }
            match self
                .touched
                .compare_exchange(t, CLEARING, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    // No thread of this process registered a reader or a
                    // writer here yet (each one waits for `touched == g`
                    // first): every such bit is the parent's.
                    self.state.clear_transient();
                    self.touched.store(g, Ordering::Release);
                    return;
                }
                Err(actual) => t = actual,
            }
        }
    }

    /// The buffer, unless it was donated.
    pub(crate) fn buffer(&self) -> Option<&OwnedBuffer> {
        // A caller here holds a handle or export; a take needs the sole
        // handle through `&mut`, so no take can run concurrently.
        // SAFETY: `buf` is only replaced by take_for_donation's winner (see
        // `unsafe impl Sync`), which cannot be running now.
        unsafe { (*self.buf.get()).as_ref() }
    }

    /// The op that consumed the buffer, if it was donated.
    pub(crate) fn consumed_by(&self) -> Option<&'static str> {
        self.consumed_by.get().copied()
    }

    /// Move the buffer out. `op` is recorded for error messages.
    pub(crate) fn take(&self, op: &'static str) -> Result<OwnedBuffer, StateError> {
        self.settle_fork();
        self.state.take_for_donation()?;
        let _ = self.consumed_by.set(op);
        // SAFETY: take_for_donation succeeded: this caller held the only
        // handle, no export and no writer existed, and the state is now final,
        // so nobody else can read or write `buf` concurrently or later.
        let buf = unsafe { (*self.buf.get()).take() };
        // A donated state always had a buffer: a second successful take is
        // impossible because the donated state is final.
        buf.ok_or(StateError::Donated)
    }

    /// Mutable view of the contents.
    ///
    /// # Safety
    /// The caller must hold the sole handle through `&mut`, with the state
    /// exclusive (or its writer bit held), for the whole lifetime `'a`.
    // Interior mutability through the `UnsafeCell`; the exclusivity that
    // makes the `&mut` unique is the caller's contract above.
    #[allow(clippy::mut_from_ref)]
    unsafe fn bytes_mut<T: Element>(&self) -> Option<&mut [T]> {
        // Counted before the slice is handed out. Writers are one at a time
        // (the caller's contract), so a load and a store, no locked add.
        self.writes
            .store(self.writes.load(Ordering::Relaxed) + 1, Ordering::Release);
        // SAFETY: exclusivity is the caller's contract (see above): no other
        // handle or export can read the memory while the slice lives.
        let buf = unsafe { (*self.buf.get()).as_mut()? };
        Some(buf.as_mut_slice::<T>())
    }
}

/// A counted handle on a [`Storage`]: creating one registers a handle in the
/// ownership state, dropping it releases it. A `Tensor` holds exactly one.
/// A *reader* handle ([`Handle::reader`]) is registered as a reader too,
/// for as long as a kernel may read through it.
#[derive(Debug)]
pub(crate) struct Handle {
    storage: Arc<Storage>,
    reader: bool,
}

impl Handle {
    pub(crate) fn new(buf: OwnedBuffer) -> Self {
        Handle {
            storage: Storage::new(buf),
            reader: false,
        }
    }

    /// Another handle on the same buffer, registered as a reader: no
    /// write through another handle ([`Handle::shared_write_guard`]) can
    /// start until it is dropped or [`settle`](Self::settle)d. `Busy`
    /// while such a write runs; on a moved-from buffer the new handle is
    /// moved-from too.
    pub(crate) fn reader(&self) -> Result<Handle, StateError> {
        self.reader_of(READERS_HELD.with(Cell::get) == 0)
    }

    /// [`reader`](Self::reader), not held off by a waiting writer: for a
    /// caller holding a lock that another reader's holder may wait for.
    pub(crate) fn reader_now(&self) -> Result<Handle, StateError> {
        self.reader_of(false)
    }

    fn reader_of(&self, first: bool) -> Result<Handle, StateError> {
        self.storage.settle_fork();
        super::read_log::note(&self.storage);
        match self.storage.state.share_reader(first) {
            Err(e @ (StateError::Busy | StateError::Overflow)) => return Err(e),
            Err(_) => {} // donated: a moved-from handle
            Ok(_) => READERS_HELD.with(|n| n.set(n.get() + 1)),
        }
        Ok(Handle {
            storage: self.storage.clone(),
            reader: true,
        })
    }

    /// No longer a reader: a handle kept beyond the read (a result that is
    /// its input, stored by a front end).
    pub(crate) fn settle(&mut self) {
        if std::mem::take(&mut self.reader) {
            self.storage.state.settle_reader();
            READERS_HELD.with(|n| n.set(n.get().saturating_sub(1)));
        }
    }

    pub(crate) fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The buffer's serial number (see [`storages_made`]).
    pub(crate) fn serial(&self) -> u64 {
        self.storage.serial
    }

    pub(crate) fn same_storage(&self, other: &Handle) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }

    /// Another handle on the same buffer. On a moved-from buffer the share is
    /// refused and the new handle is moved-from too (its release is a no-op).
    pub(crate) fn share(&self) -> Handle {
        let _ = self.storage.state.share();
        Handle {
            storage: self.storage.clone(),
            reader: false,
        }
    }

    /// The contents, mutable, when this handle is exclusive.
    pub(crate) fn data_mut<T: Element>(&mut self) -> Option<&mut [T]> {
        if !self.storage.state.snapshot().is_exclusive() {
            return None;
        }
        // SAFETY: this handle is the only one (handles == 1) and nothing is
        // exported; creating another handle or export needs `&self` on this
        // handle, which the `&mut self` borrow excludes while the slice lives.
        unsafe { self.storage.bytes_mut::<T>() }
    }

    /// Enter the writer state; `None` unless exclusive.
    pub(crate) fn write_guard(&mut self) -> Option<WriteGuard<'_>> {
        self.storage.settle_fork();
        self.storage.state.acquire_exclusive().ok()?;
        Some(WriteGuard { h: self })
    }

    /// Enter the writer state on a buffer other handles may share (a write
    /// through a view): `Busy` while a reader is registered or another
    /// writer holds it.
    ///
    /// # Safety
    /// No thread may read this buffer through a handle that is not a
    /// reader (or through an exported view) while the guard lives: the
    /// state excludes registered readers only.
    pub(crate) unsafe fn shared_write_guard(&mut self) -> Result<WriteGuard<'_>, StateError> {
        self.storage.settle_fork();
        self.storage.state.acquire_shared_writer()?;
        Ok(WriteGuard { h: self })
    }

    /// Register an exported view.
    pub(crate) fn export(&self) -> Result<ExportGuard, StateError> {
        let (ptr, len) = match self.storage.buffer() {
            Some(b) => (b.as_ptr() as usize, b.len()),
            None => return Err(StateError::Donated),
        };
        self.storage.settle_fork();
        super::read_log::note(&self.storage);
        self.storage.state.export()?;
        Ok(ExportGuard {
            storage: self.storage.clone(),
            ptr,
            len,
        })
    }
}

thread_local! {
    /// Reader handles this thread made and still holds: a thread holding
    /// one is not held off by a waiting writer (which waits for it).
    /// Only fairness depends on it (a reader dropped on another thread
    /// leaves it high, and that thread is then never held off).
    static READERS_HELD: Cell<u32> = const { Cell::new(0) };
}

/// Whether the current thread holds a reader on some buffer (it runs
/// inside an operation that reads, from a warning handler, say).
pub(crate) fn reading() -> bool {
    READERS_HELD.with(Cell::get) > 0
}

impl Drop for Handle {
    fn drop(&mut self) {
        if self.reader {
            READERS_HELD.with(|n| n.set(n.get().saturating_sub(1)));
            self.storage.state.release_reader();
        } else {
            self.storage.state.release();
        }
    }
}

/// The writer state of an exclusive buffer for the length of an in-place
/// kernel; released on drop.
pub(crate) struct WriteGuard<'a> {
    h: &'a mut Handle,
}

impl WriteGuard<'_> {
    pub(crate) fn slice<T: Element>(&mut self) -> &mut [T] {
        // SAFETY: the writer bit is held: acquired on an exclusive buffer,
        // where `&mut` on the sole handle excludes every other access, or
        // on a shared one (`shared_write_guard`), where no reader is
        // registered or can register while it is held and the caller
        // guaranteed that no unregistered read runs meanwhile.
        unsafe { self.h.storage.bytes_mut::<T>() }.unwrap_or(&mut [])
    }
}

impl Drop for WriteGuard<'_> {
    fn drop(&mut self) {
        self.h.storage.state.release_exclusive();
    }
}

/// An exported view's hold on a buffer: keeps the memory alive (even after
/// every tensor is gone) and blocks in-place writes and donation until
/// dropped.
#[derive(Debug)]
pub struct ExportGuard {
    storage: Arc<Storage>,
    ptr: usize,
    len: usize,
}

impl ExportGuard {
    /// Address of the data.
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr as *const u8
    }
    /// Bytes of data.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Zero bytes?
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Pin the buffer for good
    /// ([`OwnershipState::pin`](crate::OwnershipState::pin)): for a
    /// consumer that may read the memory after it drops this guard, for
    /// as long as the buffer lives. The buffer is then never donated, so
    /// its memory stays where this guard found it.
    pub fn pin(&self) {
        // Refused only once donated, which this guard's export excludes.
        let _ = self.storage.state.pin();
    }
}

impl Drop for ExportGuard {
    fn drop(&mut self) {
        self.storage.state.unexport();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn alignment_and_zero_length() {
        for n in [0usize, 1, 3, 64, 1000] {
            let b = OwnedBuffer::zeroed(n * 4).unwrap();
            assert_eq!(b.as_ptr() as usize % ALIGN, 0);
            assert!(b.as_slice::<f32>().iter().all(|x| *x == 0.0));
            assert_eq!(b.as_slice::<f32>().len(), n);
        }
    }

    #[test]
    fn oversized_requests_are_errors_not_aborts() {
        assert!(byte_size::<f64>(usize::MAX / 4).is_err());
        assert!(matches!(
            UninitBuffer::<f32>::new((isize::MAX as usize) / 4 - 1),
            Err(Error::AllocationFailed { .. })
        ));
    }

    #[test]
    fn take_is_exclusive_and_final() {
        let h = Handle::new(OwnedBuffer::zeroed(16).unwrap());
        let s = h.storage();
        let p = s.buffer().unwrap().as_ptr();
        s.state.share().unwrap();
        assert!(s.take("test").is_err());
        s.state.release();
        let b = s.take("test").unwrap();
        assert_eq!(b.as_ptr(), p);
        assert!(s.buffer().is_none());
        assert_eq!(s.consumed_by(), Some("test"));
        assert!(s.take("again").is_err());
    }
}

//! The buffer protocol: filling and releasing the read-only `Py_buffer`
//! views a tensor exports (`memoryview(t)`, `np.asarray(t)`). A view holds
//! an export of the buffer ([`ExportGuard`]) until CPython releases it, so
//! while any view lives the buffer is never donated or written in place.
//!
//! A request without `PyBUF_FORMAT` (the bytes, not typed elements: the
//! old read-buffer interface) also pins the buffer for good
//! ([`ExportGuard::pin`]): NumPy's `np.ndarray(buffer=t)` asks that way,
//! releases the view at once and keeps reading the pointer for as long as
//! it holds `t`, so that memory must never move to another tensor.
//! `memoryview(t)`, `np.asarray(t)` and `np.frombuffer(t)` ask for the
//! format and hold their view: they pin nothing.

use std::ffi::{c_int, c_void, CStr};

use pyo3::ffi;
use pyo3::prelude::*;

use pyo3::exceptions::PyBufferError;

use super::errors::IntoPyResult;
use super::tensor::{Interp, PyTensor};
use donate::{DType, ExportGuard};

/// What a `Py_buffer` view of a tensor keeps alive until it is released:
/// the export (which pins the buffer and blocks donation and in-place
/// writes) and the shape and strides arrays the view points into.
struct ViewState {
    guard: ExportGuard,
    shape: Vec<ffi::Py_ssize_t>,
    strides: Vec<ffi::Py_ssize_t>,
}

/// Fill `view` as a read-only view of the exported buffer laid out as
/// `layout` (a strided view keeps its strides, in bytes, and its offset).
///
/// # Safety
/// `view` must be the valid, writable `Py_buffer` CPython passed to
/// `bf_getbuffer`, and `owner` the exporting object (a strong reference is
/// taken for `view.obj`). The caller must have rejected `PyBUF_WRITABLE`,
/// and a request without `PyBUF_STRIDES` for a layout that is not
/// contiguous; `layout` must lie inside the exported buffer.
pub(crate) unsafe fn fill_view(
    view: *mut ffi::Py_buffer,
    owner: &Bound<'_, PyAny>,
    guard: ExportGuard,
    layout: &donate::Layout,
    itemsize: usize,
    format: &'static CStr,
    flags: c_int,
) {
    let shape = layout.shape();
    let strides: Vec<ffi::Py_ssize_t> = layout
        .strides()
        .iter()
        .map(|&s| s * itemsize as ffi::Py_ssize_t)
        .collect();
    let state = Box::new(ViewState {
        shape: shape.iter().map(|&d| d as ffi::Py_ssize_t).collect(),
        strides,
        guard,
    });
    let len = (state.shape.iter().product::<ffi::Py_ssize_t>()) * itemsize as ffi::Py_ssize_t;
    // The first element: inside the buffer, since the layout is (caller).
    let buf = state
        .guard
        .as_ptr()
        .wrapping_add(layout.offset() * itemsize)
        .cast_mut()
        .cast::<c_void>();
    let want = |f: c_int| flags & f == f;
    // SAFETY: the caller guarantees `view` is valid and writable; every
    // pointer stored in it stays valid until `release_view` frees `state`.
    unsafe {
        (*view).buf = buf;
        (*view).obj = owner.clone().into_ptr();
        (*view).len = len;
        (*view).readonly = 1;
        (*view).itemsize = itemsize as ffi::Py_ssize_t;
        (*view).format = if want(ffi::PyBUF_FORMAT) {
            format.as_ptr().cast_mut()
        } else {
            std::ptr::null_mut()
        };
        (*view).ndim = shape.len() as c_int;
        (*view).shape = if want(ffi::PyBUF_ND) {
            state.shape.as_ptr().cast_mut()
        } else {
            std::ptr::null_mut()
        };
        (*view).strides = if want(ffi::PyBUF_STRIDES) {
            state.strides.as_ptr().cast_mut()
        } else {
            std::ptr::null_mut()
        };
        (*view).suboffsets = std::ptr::null_mut();
        (*view).internal = Box::into_raw(state).cast::<c_void>();
    }
}

/// Free what [`fill_view`] stored; ends the export.
///
/// # Safety
/// `view` must be a view filled by [`fill_view`] and not yet released.
pub(crate) unsafe fn release_view(view: *mut ffi::Py_buffer) {
    // SAFETY: `internal` is the `Box<ViewState>` leaked by fill_view, taken
    // back exactly once (CPython calls bf_releasebuffer once per view).
    unsafe {
        let state = (*view).internal.cast::<ViewState>();
        if !state.is_null() {
            (*view).internal = std::ptr::null_mut();
            drop(Box::from_raw(state));
        }
    }
}

/// Whether C's `long` is 64 bits (NumPy's int64 is then `long`, `l`).
const LONG_IS_64: bool = std::mem::size_of::<std::ffi::c_long>() == 8;

/// The buffer protocol's struct-module format of a dtype.
fn format_of(d: DType) -> &'static CStr {
    match d {
        DType::Bool => c"?",
        DType::I8 => c"b",
        DType::I16 => c"h",
        DType::I32 => c"i",
        // NumPy's own codes: `l` where C's `long` is 64 bits (Linux,
        // macOS), so an export is `np.int64` itself (`q` made
        // `np.longlong`, which `np.issubdtype(.., np.int64)` refuses).
        DType::I64 if LONG_IS_64 => c"l",
        DType::I64 => c"q",
        DType::U8 => c"B",
        DType::U16 => c"H",
        DType::U32 => c"I",
        DType::U64 if LONG_IS_64 => c"L",
        DType::U64 => c"Q",
        DType::F16 => c"e",
        DType::F32 => c"f",
        DType::F64 => c"d",
        DType::C64 => c"Zf",
        DType::C128 => c"Zd",
    }
}

/// `Tensor`'s buffer protocol slots (read-only exports; a strided view
/// only to a consumer that asks for strides).
#[pymethods]
impl PyTensor {
    #[allow(clippy::needless_pass_by_value)] // PyO3's signature for the slot
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        if flags & ffi::PyBUF_WRITABLE == ffi::PyBUF_WRITABLE {
            return Err(PyBufferError::new_err(
                "donate tensors export read-only buffers",
            ));
        }
        let me = slf.get();
        me.check_live(slf.py(), "buffer export")?;
        let (guard, layout) = {
            let g = me.slot.lock(&Interp(slf.py()));
            (g.export().py()?, g.layout().into_owned())
        };
        if flags & ffi::PyBUF_STRIDES != ffi::PyBUF_STRIDES && !layout.is_contiguous() {
            return Err(PyBufferError::new_err(
                "the tensor is a strided view: ask for strides, or call contiguous()",
            ));
        }
        if flags & ffi::PyBUF_FORMAT != ffi::PyBUF_FORMAT {
            // A request that does not ask what the elements are wants the
            // bytes: the old read-buffer interface, whose consumers may
            // keep the pointer after they release the view, for as long
            // as they hold the tensor (NumPy's `np.ndarray(buffer=t)`
            // asks for any contiguous bytes, releases at once and keeps
            // `t`): the memory must stay where it is while the buffer
            // lives, so it is never donated.
            guard.pin();
        }
        // SAFETY: CPython passes a valid, writable view to bf_getbuffer, and
        // writable requests were refused above.
        unsafe {
            fill_view(
                view,
                slf.as_any(),
                guard,
                &layout,
                me.dtype.size(),
                format_of(me.dtype),
                flags,
            );
        }
        Ok(())
    }

    #[allow(clippy::unused_self)] // PyO3's signature for the slot
    unsafe fn __releasebuffer__(&self, view: *mut ffi::Py_buffer) {
        // SAFETY: CPython calls bf_releasebuffer once for each view that
        // __getbuffer__ filled.
        unsafe { release_view(view) }
    }
}

//! `donate.arena(max_bytes=...)`: a [`TensorArena`] as a context manager.
//!
//! # Which arena is current
//!
//! Entering an arena makes it current *in the calling context*, as
//! `decimal.localcontext` does: the stack of entered arenas lives in a
//! `contextvars.ContextVar`, so each asyncio task and each thread has its
//! own, and a task that awaits inside `with donate.arena(...)` does not
//! impose its budget on the tasks that run meanwhile. Leaving removes the
//! innermost entry of that arena from the stack (so out-of-order exits
//! still leave the right one current).
//!
//! The core asks for the current arena when it allocates (see
//! [`donate::memory::arena::set_current_provider`]): while attached to the
//! interpreter the bindings read the context variable; kernels running
//! detached get the arena that was current when they detached, entered on
//! their thread by [`detach`].
//!
//! Generators share their caller's context (Python's rule for context
//! variables, PEP 567): an arena entered inside a generator stays current
//! for the caller while the generator is suspended inside the block, as a
//! `decimal.localcontext` does; that is what makes `@contextmanager`
//! wrappers and `ExitStack` work. A generator that must not impose its
//! arena on its caller should leave the block before it yields.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};

use donate::TensorArena;

/// The context variable holding the tuple of entered arenas, innermost last.
fn context_var(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static VAR: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    VAR.get_or_try_init(py, || {
        let cv = py.import("contextvars")?.getattr("ContextVar")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("default", PyTuple::empty(py))?;
        Ok::<_, PyErr>(cv.call(("donate.arena",), Some(&kwargs))?.unbind())
    })
    .map(|v| v.bind(py))
}

/// The entered arenas of the current context, innermost last. (Every
/// operation asks, so this is the C API's lookup, not a method call.)
fn entered(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    let var = context_var(py)?;
    let mut value: *mut pyo3::ffi::PyObject = std::ptr::null_mut();
    let (v, no_default) = (var.as_ptr(), std::ptr::null_mut());
    // SAFETY: `var` is a live ContextVar and we are attached; on success
    // PyContextVar_Get stores a new reference (the variable has a default,
    // so never NULL) in `value`.
    let rc = unsafe { pyo3::ffi::PyContextVar_Get(v, no_default, &raw mut value) };
    if rc != 0 || value.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: `value` is the new reference PyContextVar_Get returned.
    let value = unsafe { Bound::from_owned_ptr(py, value) };
    Ok(value.cast_into::<PyTuple>()?)
}

/// Whether any arena was ever entered in this process: until then no
/// context can have one, and the lookup is skipped (every operation asks).
static EVER_ENTERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The arena current in the calling context, if any.
pub(crate) fn current(py: Python<'_>) -> Option<TensorArena> {
    if !EVER_ENTERED.load(std::sync::atomic::Ordering::Acquire) {
        return None;
    }
    let stack = entered(py).ok()?;
    let last = stack.get_item(stack.len().checked_sub(1)?).ok()?;
    let arena = last.cast::<PyArena>().ok()?;
    Some(arena.get().arena.clone())
}

/// The core's lookup: the context's arena while this thread is attached to
/// the interpreter, none otherwise (detached kernels have theirs entered on
/// the thread by [`detach`]).
fn provider() -> Option<TensorArena> {
    // Until an arena is entered no context has one: skip the interpreter
    // check too (every allocation asks).
    if !EVER_ENTERED.load(std::sync::atomic::Ordering::Acquire) {
        return None;
    }
    // SAFETY: PyGILState_Check only reads the calling thread's state; it
    // may be called with or without an attached thread state.
    if unsafe { pyo3::ffi::PyGILState_Check() } == 0 {
        return None;
    }
    // SAFETY: the check above says this thread is attached to the
    // interpreter, which is what `Python` stands for; the token does not
    // outlive this call.
    let py = unsafe { Python::assume_attached() };
    current(py)
}

/// Install the context-local lookup (at import).
pub(crate) fn install() {
    donate::memory::arena::set_current_provider(provider);
}

/// Work (bytes touched) below which a computation runs attached:
/// releasing and re-taking the interpreter costs more than the kernel.
const ATTACHED_BELOW: usize = 64 * 1024;

/// `py.detach(f)` with the calling context's arena current on this thread
/// while `f` runs: every detached computation of the bindings goes through
/// here, so its allocations see the same arena as the attached code.
/// `bytes`: about how much memory `f` touches; below [`ATTACHED_BELOW`] it
/// runs attached (its allocations then find the arena themselves).
pub(crate) fn detach<T, F>(py: Python<'_>, bytes: usize, f: F) -> T
where
    F: FnOnce() -> T + Send,
    T: Send,
{
    if bytes < ATTACHED_BELOW {
        return f();
    }
    match current(py) {
        Some(a) => py.detach(move || a.scope(f)),
        None => py.detach(f),
    }
}

/// A pool of buffers with a byte budget. Use as `with donate.arena(max_bytes=N) as ar:`;
/// tensors created inside take their buffers from it and return them when
/// freed. A request past the budget raises `MemoryError`. Tensors that
/// outlive the block stay valid.
#[pyclass(module = "donate", name = "Arena", frozen)]
pub(crate) struct PyArena {
    arena: TensorArena,
}

#[pymethods]
impl PyArena {
    #[new]
    #[pyo3(signature = (max_bytes = None))]
    pub(crate) fn new(max_bytes: Option<usize>) -> Self {
        PyArena {
            arena: TensorArena::new(max_bytes.unwrap_or(usize::MAX)),
        }
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        let py = slf.py();
        EVER_ENTERED.store(true, std::sync::atomic::Ordering::Release);
        let mut items: Vec<Bound<'_, PyAny>> = entered(py)?.iter().collect();
        items.push(slf.clone().into_any());
        context_var(py)?.call_method1("set", (PyTuple::new(py, items)?,))?;
        Ok(slf)
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(slf: &Bound<'_, Self>, _exc: &Bound<'_, PyTuple>) -> PyResult<bool> {
        let py = slf.py();
        let mut items: Vec<Bound<'_, PyAny>> = entered(py)?.iter().collect();
        if let Some(i) = items.iter().rposition(|a| a.is(slf)) {
            items.remove(i);
            context_var(py)?.call_method1("set", (PyTuple::new(py, items)?,))?;
        }
        Ok(false)
    }

    /// `{"live_bytes", "peak_bytes", "free_bytes", "hits", "misses", "max_bytes"}`.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.arena.stats();
        let d = PyDict::new(py);
        d.set_item("live_bytes", s.live_bytes)?;
        d.set_item("peak_bytes", s.peak_bytes)?;
        d.set_item("free_bytes", s.free_bytes)?;
        d.set_item("hits", s.hits)?;
        d.set_item("misses", s.misses)?;
        d.set_item("max_bytes", s.max_bytes)?;
        Ok(d)
    }

    /// Free the idle blocks (buffers in use are untouched).
    fn clear(&self) {
        self.arena.clear();
    }

    /// Reset the peak to what is live now.
    fn reset_peak(&self) {
        self.arena.reset_peak();
    }

    /// The arena's budget in bytes (`None` given at creation: unbounded,
    /// shown as the largest integer).
    #[getter]
    fn max_bytes(&self) -> usize {
        self.arena.stats().max_bytes
    }

    fn __repr__(&self) -> String {
        let s = self.arena.stats();
        format!(
            "Arena(live_bytes={}, free_bytes={}, max_bytes={})",
            s.live_bytes, s.free_bytes, s.max_bytes
        )
    }
}

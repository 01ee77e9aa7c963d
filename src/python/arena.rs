//! `donate.arena(max_bytes=...)`: a [`TensorArena`] as a context manager.
//! Entering makes it the current arena of the calling thread (the core
//! keeps that stack per thread; kernels run detached on the same thread, so
//! their allocations see it); leaving restores the previous one.

use std::cell::RefCell;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arena::ArenaGuard;
use crate::TensorArena;

thread_local! {
    /// Guards of the arenas entered on this thread, innermost last, tagged
    /// with the arena's address.
    static ENTERED: RefCell<Vec<(usize, ArenaGuard)>> = const { RefCell::new(Vec::new()) };
}

/// A pool of buffers with a byte budget. Use as `with donate.arena(max_bytes=N) as ar:`;
/// tensors created inside take their buffers from it and return them when
/// freed. A request past the budget raises `MemoryError`. Tensors that
/// outlive the block stay valid.
#[pyclass(module = "donate", name = "Arena", frozen)]
pub(crate) struct PyArena {
    arena: TensorArena,
}

impl PyArena {
    fn id(&self) -> usize {
        self as *const Self as usize
    }
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

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        let me = slf.get();
        let guard = me.arena.enter();
        ENTERED.with(|e| e.borrow_mut().push((me.id(), guard)));
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        let id = self.id();
        ENTERED.with(|e| {
            let mut e = e.borrow_mut();
            if let Some(i) = e.iter().rposition(|(a, _)| *a == id) {
                e.remove(i);
            }
        });
        false
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
        self.arena.clear()
    }

    /// Reset the peak to what is live now.
    fn reset_peak(&self) {
        self.arena.reset_peak()
    }

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

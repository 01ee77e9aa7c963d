//! `donate.memory_timeline()`: the core's [`donate::memory::timeline`] as a Python
//! object (the context manager and the plot are in
//! `python/donate/_timeline.py`).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use donate::memory::timeline::Timeline;

/// A recording of every operation: `start()`, `stop()`, `records()`.
#[pyclass(module = "donate._core", name = "_Timeline")]
pub(crate) struct PyTimeline {
    timeline: Option<Timeline>,
    /// Records of a stopped timeline.
    kept: Vec<donate::memory::timeline::Record>,
}

#[pymethods]
impl PyTimeline {
    #[new]
    fn py_new() -> Self {
        PyTimeline {
            timeline: None,
            kept: Vec::new(),
        }
    }

    /// Start recording (again: the records so far are kept).
    fn start(&mut self) {
        if self.timeline.is_none() {
            self.timeline = Some(Timeline::start());
        }
    }

    /// Stop recording.
    fn stop(&mut self) {
        if let Some(mut t) = self.timeline.take() {
            t.stop();
            self.kept.extend(t.records());
        }
    }

    /// `[{"op", "live_bytes", "result"}, ...]`, one per operation.
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let live = self
            .timeline
            .as_ref()
            .map(Timeline::records)
            .unwrap_or_default();
        let list = PyList::empty(py);
        for r in self.kept.iter().chain(&live) {
            let d = PyDict::new(py);
            d.set_item("op", r.op)?;
            d.set_item("live_bytes", r.live_bytes)?;
            d.set_item("result", r.result.name())?;
            list.append(d)?;
        }
        Ok(list)
    }
}

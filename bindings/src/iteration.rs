//! Iteration over a tensor's first axis (`for row in t`), one item at a
//! time, as NumPy's: each item is `t[i]`, made when it is reached.

use pyo3::prelude::*;

use super::tensor::PyTensor;

/// The iterator `iter(t)` returns: `t[0]`, `t[1]`, ... made one at a time.
#[pyclass(module = "donate", name = "TensorIterator")]
pub(crate) struct TensorIter {
    tensor: Py<PyTensor>,
    next: usize,
    len: usize,
}

impl TensorIter {
    /// An iterator over the `len` items of `t`'s first axis.
    pub(crate) fn new(t: &Bound<'_, PyTensor>, len: usize) -> Self {
        Self {
            tensor: t.clone().unbind(),
            next: 0,
            len,
        }
    }
}

#[pymethods]
impl TensorIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if self.next >= self.len {
            return Ok(None);
        }
        let i = self.next;
        self.next += 1;
        self.tensor.bind(py).as_any().get_item(i).map(Some)
    }

    fn __length_hint__(&self) -> usize {
        self.len - self.next
    }
}

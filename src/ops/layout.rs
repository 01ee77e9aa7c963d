//! Layout operations that copy: axis permutation into a new C-order buffer
//! (the typed API's `permute`/`transpose`, whose result the typed
//! operations read as contiguous data). The views (`permuted_view`,
//! `index`, `reshape`) live on [`Tensor`] itself.

use crate::array::element::Element;
use crate::array::tensor::Tensor;
use crate::error::Result;
use crate::kernels::fresh;

impl<T: Element> Tensor<T> {
    /// A copy with its axes permuted: output axis `i` is input axis
    /// `axes[i]` (NumPy's `transpose(axes)`). Negative axes count from the
    /// end. `axes` must name every axis exactly once.
    pub fn permute(&self, axes: &[isize]) -> Result<Tensor<T>> {
        let norm = crate::array::shape::permutation(self.shape(), Some(axes))?;
        let out_shape: Vec<usize> = norm.iter().map(|&a| self.shape()[a]).collect();
        let src = self.contiguous()?;
        let buf = fresh::permuted(src.as_slice()?, self.shape(), &norm)?;
        Tensor::from_buffer(buf, &out_shape)
    }

    /// A copy with the axes reversed (NumPy's `.T`).
    pub fn transpose(&self) -> Result<Tensor<T>> {
        let axes: Vec<isize> = (0..self.ndim() as isize).rev().collect();
        self.permute(&axes)
    }
}

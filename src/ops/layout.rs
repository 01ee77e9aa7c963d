//! Layout operations: axis permutation. (Reshape lives on [`Tensor`] itself
//! because it shares the buffer; a permutation always writes a new one,
//! since tensors are C-contiguous.)

use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernels::fresh;
use crate::shape::normalize_axis;
use crate::tensor::Tensor;

impl<T: Element> Tensor<T> {
    /// A copy with its axes permuted: output axis `i` is input axis
    /// `axes[i]` (NumPy's `transpose(axes)`). Negative axes count from the
    /// end. `axes` must name every axis exactly once.
    pub fn permute(&self, axes: &[isize]) -> Result<Tensor<T>> {
        let nd = self.ndim();
        let invalid = |reason: String| Error::InvalidShape {
            op: "transpose",
            shape: self.shape().to_vec(),
            reason,
        };
        if axes.len() != nd {
            return Err(invalid(format!(
                "axes {axes:?} do not match a tensor of dimension {nd}"
            )));
        }
        let mut seen = vec![false; nd];
        let mut norm = Vec::with_capacity(nd);
        for &a in axes {
            let a = normalize_axis(a, nd)?;
            if std::mem::replace(&mut seen[a], true) {
                return Err(invalid(format!("axis {a} is repeated in {axes:?}")));
            }
            norm.push(a);
        }
        let out_shape: Vec<usize> = norm.iter().map(|&a| self.shape()[a]).collect();
        let buf = fresh::permuted(self.as_slice()?, self.shape(), &norm)?;
        Tensor::from_buffer(buf, &out_shape)
    }

    /// A copy with the axes reversed (NumPy's `.T`).
    pub fn transpose(&self) -> Result<Tensor<T>> {
        let axes: Vec<isize> = (0..self.ndim() as isize).rev().collect();
        self.permute(&axes)
    }
}

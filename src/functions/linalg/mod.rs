//! Linear algebra: the array API's `tensordot` and `vecdot` and its
//! `linalg` extension (version 2024.12), on [`DynTensor`]s.
//!
//! This module decides, once, what each function accepts and returns:
//!
//! - **Shapes.** Functions of matrices take stacks of them (`(..., M, N)`)
//!   and map over the stack; two stacked operands (`solve`) broadcast
//!   their stack dimensions. Vector functions (`vecdot`, `cross`) broadcast
//!   their operands, but never along the vector axis, whose sizes must be
//!   equal.
//! - **Dtypes.** Sums of products keep integers (`tensordot`, `vecdot`,
//!   `outer`, `cross`, `trace`, `matrix_power` for `n >= 0`; two operands
//!   promote by NumPy's table; integers wrap as NumPy's do; complex
//!   numbers sum in complex128, and `vecdot` conjugates its first
//!   operand); `diagonal` takes every dtype. The decompositions and everything computed from
//!   them (`cholesky`, `det`, `eig`, `eigvals`, `eigh`, `eigvalsh`, `inv`, `matrix_norm`,
//!   `matrix_rank`, `pinv`, `qr`, `slogdet`, `solve`, `svd`, `svdvals`,
//!   `vector_norm`) take float32, float64, complex64 and complex128 and
//!   compute in the input's dtype; what is real whatever the input
//!   (eigenvalues of a Hermitian matrix, singular values, `logabsdet`,
//!   norms) has the real dtype of its precision, as NumPy's; what is
//!   complex in general (`eig`, `eigvals`) has the complex dtype of its
//!   precision; `matrix_rank` gives int64. An integer input is an
//!   [`Error::InvalidOperand`], as the standard leaves the promotion of
//!   integers to floats unspecified here.
//! - **Ownership.** Inputs are only read; every result is a new tensor.
//!
//! Files: [`stack`] (stacks, broadcasting and reading operands),
//! [`products`] (the sums of products and the diagonal), [`inexact`]
//! (the element types of the decompositions, real and complex, and what
//! they share), [`decompose`] (LU, Cholesky, QR, the Hermitian
//! eigendecomposition, through `faer`), [`eigen`] (the general
//! eigendecomposition, complex whatever the input), [`svd`] (the singular value
//! decomposition and what is computed from it), [`norms`] (vector and
//! matrix norms).

mod decompose;
mod eigen;
mod inexact;
mod norms;
mod op;
mod products;
mod stack;
mod svd;

pub use decompose::{cholesky, det, eigh, eigvalsh, inv, qr, slogdet, solve};
pub use eigen::{eig, eigvals};
pub use norms::{matrix_norm, vector_norm, MatrixOrd};
pub use op::LinalgOp;
pub use products::{
    cross, diagonal, matrix_power, outer, tensordot, trace, trace_dtype, vecdot, TensordotAxes,
};
pub use svd::{matrix_rank, pinv, svd, svdvals};

#[cfg(test)]
mod complex_tests;
#[cfg(test)]
mod tests;

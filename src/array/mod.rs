//! The data model over a buffer.
//!
//! * [`element`]: the dtypes ([`DType`](crate::DType)) and the Rust types
//!   behind them;
//! * [`promote`]: NumPy's and the array API's type promotion, and
//!   same-kind casting;
//! * [`shape`]: shapes, broadcasting and checked sizes;
//! * [`layout`]: a strided view of a buffer (offset, shape, strides) and
//!   indexing;
//! * [`tensor`]: the typed [`Tensor<T>`](crate::Tensor);
//! * [`dyn_tensor`]: [`DynTensor`](crate::DynTensor), a tensor of any
//!   dtype, as the front ends and the planner hold it;
//! * [`semantics`]: how the typed API offers an operand (borrowed, by
//!   value, donated).
pub mod dyn_tensor;
pub mod element;
pub mod layout;
pub mod promote;
pub(crate) mod semantics;
pub mod shape;
pub mod tensor;

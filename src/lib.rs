//! # donate: tensors whose buffers know who owns them
//!
//! `b = a.relu()` allocates a new buffer even when `a` is never used again.
//! `donate` lets an operation write its result into an input that nobody
//! needs any more, safely, and shows when it did.
//!
//! ## The ownership model
//!
//! Every buffer carries an atomic [`OwnershipState`]: how many tensors
//! (handles) share it, how many read-only views are exported, whether an
//! in-place kernel is writing it, and whether it was donated (moved out).
//!
//! | How the op gets its input        | Writes into the input's buffer?                    |
//! |----------------------------------|----------------------------------------------------|
//! | `&self` (`t.relu_ref()`, `&a + &b`) | never                                           |
//! | by value (`t.relu()`, `a + b`)   | when the buffer is exclusive and the result fits   |
//! | `Donated` (`a.donate() + b`)     | same; if not possible: a copy, counted as fallback |
//! | `&mut self` (`t.relu_inplace()`) | yes; copy-on-write first if the buffer is shared   |
//!
//! *Exclusive* means one handle and no exported view: then nobody else can
//! observe the change. A buffer shared by `clone`/`reshape` or an export is
//! never modified; its holders keep value semantics.
//!
//! ```
//! use donate::{DonateExt, Tensor};
//!
//! let a = Tensor::<f32>::from_vec(vec![-1.0, 2.0, -3.0], &[3])?;
//! let p = a.buffer_ptr();
//! let b = a.relu()?;                 // `a` moved in: its buffer is reused
//! assert_eq!(b.buffer_ptr(), p);
//!
//! let c = b.clone();                 // shared now
//! let d = c.donate().relu()?;        // cannot reuse: `b` still holds it
//! assert_ne!(d.buffer_ptr(), p);
//! assert_eq!(b.as_slice()?, &[0.0, 2.0, 0.0]);
//! # Ok::<(), donate::Error>(())
//! ```

#![deny(unsafe_code)]

// The folders are layers, lowest first; each uses only the layers above
// it in this list (and `error` and `py_repr`, used by every layer), and no module imports another in a
// cycle (`scripts/module-cycles.py` checks):
//
// * `memory`: bytes and who owns them: aligned blocks, `OwnedBuffer`, the
//   atomic `OwnershipState`, `TensorArena`, a front end's `Slot`, the
//   process-wide counters and timeline.
// * `array`: the data model over a buffer: dtypes and promotion, shapes
//   and strided layouts, the typed `Tensor<T>` and the dtype-erased
//   `DynTensor`.
// * `kernels`: computation on slices, SIMD chosen at run time, and the
//   kernels' thread pool.
// * `functions`: the array API's functions computed on tensors (creation,
//   manipulation, statistics, searching, sorting, sets, linear algebra,
//   assignment), each with its validation and result shape.
// * `ops`: the planned operations on `Operand`s, typed.
// * `plan`: the one planner: every op's dtypes, shapes and which buffer
//   receives its result.
// * `driver`: running a plan (`execute`) and the one call sequence of a
//   front end (`call`).
// * `program`: traced programs: building, lowering with a memory plan,
//   running.
//
// Rust users need only the names re-exported below; the public modules
// also carry the documentation of those names and the lower-level API.
pub mod array;
pub mod driver;
pub mod error;
pub mod functions;
pub mod kernels;
pub mod memory;
pub mod ops;
pub mod plan;
pub mod program;
pub mod py_repr;

pub use array::dyn_tensor::{DynTensor, Meta, Scalar};
pub use array::element::{DType, Element, Float, RealElement, C32, C64, F16};
pub use array::layout::{Index, Layout};
pub use array::semantics::{DonateExt, Donated};
pub use array::tensor::Tensor;
pub use error::{Error, Result};
pub use kernels::{BinaryOp, Isa, UnaryOp};
pub use memory::arena::{ArenaGuard, ArenaStats, TensorArena};
pub use memory::block::ALIGN;
pub use memory::buffer::{storages_made, ExportGuard, OwnedBuffer};
pub use memory::counters::{memory_stats, reset_peak, MemoryStats, Reuse};
pub use memory::ownership::{OwnershipSnapshot, OwnershipState, StateError};
pub use memory::read_log::{unlogged, ReadLog, ReadSet};
pub use ops::conv::BatchNorm;
pub use ops::{Applied, Operand, Outcome, Refusal};
pub use plan::{Offer, Plan};

/// The README's Rust examples, compiled and run as doc-tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust guide's examples (`docs/rust.md`), compiled and run as
/// doc-tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/rust.md")]
pub struct RustGuideDoctests;

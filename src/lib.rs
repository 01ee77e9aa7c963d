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

// The modules form layers, lowest first: each uses only modules listed
// before it, so there is no import cycle (`scripts/module-cycles.py`
// checks). Rust users need only the names re-exported below; the public
// modules also carry the documentation of those names (`tensor`, `arena`,
// `ownership`, ...) and the lower-level API: `shape`, `kernels` (kernels on
// slices) and `ops` (operations on `Operand`s). The private modules, and
// the crate-private items of the public ones, serve the crate only.
pub mod element;
pub mod error;
// The process generation (bumped in the child of a `fork()`); `unsafe` for
// registering the hook.
#[allow(unsafe_code)]
mod fork;
pub mod stats;
mod sync;
pub mod timeline;
// The kernels' thread pool; `unsafe` for its published pointers and the
// fork hook.
pub mod ownership;
#[allow(unsafe_code)]
mod parallel;
// The aligned allocation; `unsafe` for the allocator calls.
pub mod arena;
#[allow(unsafe_code)]
mod block;
pub mod layout;
pub mod promote;
pub mod py_repr;
pub mod shape;
// Tensor memory and its shared cell; `unsafe` for uninitialised memory and
// the cell's interior mutability.
#[allow(unsafe_code)]
mod buffer;
pub mod creation;
pub mod dyn_tensor;
pub mod kernels;
pub mod manipulation;
pub mod tensor;
// The array API's statistical, searching, sorting, set and linear algebra
// functions, and assignment through a mask (results always new tensors;
// planned as `Op::Fresh` where their shapes do not depend on values).
pub mod assignment;
pub mod cumulative;
pub mod lane_ops;
pub mod lanes;
pub mod linalg;
pub mod searching;
pub mod sets;
pub mod sorting;
pub mod statistics;

// Planning and running: the planner, the typed ops, the execution of a
// plan, the one call sequence of a front end, traced programs.
pub mod call;
pub mod execute;
pub mod ops;
pub mod plan;
pub mod program;
mod semantics;

// A tensor shared between a front end's threads: its fair lock and donor
// gate; `unsafe` for taking over a lock held at a fork.
#[allow(unsafe_code)]
pub mod slot;

pub use arena::{ArenaGuard, ArenaStats, TensorArena};
pub use block::ALIGN;
pub use buffer::{storages_made, ExportGuard, OwnedBuffer};
pub use dyn_tensor::{DynTensor, Meta, Scalar};
pub use element::{DType, Element, Float};
pub use error::{Error, Result};
pub use kernels::{BinaryOp, Isa, UnaryOp};
pub use layout::{Index, Layout};
pub use ops::conv::BatchNorm;
pub use ops::{Applied, Operand, Outcome, Refusal};
pub use ownership::{OwnershipSnapshot, OwnershipState, StateError};
pub use plan::{Offer, Plan};
pub use promote::OperandDType;
pub use semantics::{DonateExt, Donated};
pub use stats::{memory_stats, reset_peak, MemoryStats, Reuse};
pub use tensor::Tensor;

/// The README's Rust examples, compiled and run as doc-tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust guide's examples (`docs/rust.md`), compiled and run as
/// doc-tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/rust.md")]
pub struct RustGuideDoctests;

//! Memory: bytes and who owns them.
//!
//! * [`block`]: an aligned allocation, nothing more;
//! * [`buffer`]: [`OwnedBuffer`](crate::OwnedBuffer), a tensor's memory and
//!   its shared cell, and where a new buffer comes from (the current
//!   arena or the system);
//! * [`ownership`]: the atomic [`OwnershipState`](crate::OwnershipState)
//!   every buffer carries (handles, exported views, readers, a writer,
//!   donated), which decides whether a buffer is exclusive;
//! * [`arena`]: [`TensorArena`](crate::TensorArena), free lists of blocks
//!   reused by size;
//! * [`slot`]: a tensor shared between a front end's threads (its fair
//!   lock, donor gate and update lock);
//! * [`fork`]: the process generation, so a child of `fork()` clears the
//!   locks its parent's threads left;
//! * [`read_log`]: which buffers made before a trace it read eagerly,
//!   and whether they were written since (every buffer counts its writes);
//! * [`counters`]: process-wide byte counters (`memory_stats`);
//! * [`timeline`]: the memory after every operation, while recording;
//! * `sync`: the atomics, swapped for `loom`'s when model checking.
//!
//! Nothing here knows about dtypes or operations.

// The aligned allocation; `unsafe` for the allocator calls.
pub mod arena;
#[allow(unsafe_code)]
pub(crate) mod block;
// Tensor memory and its shared cell; `unsafe` for uninitialised memory and
// the cell's interior mutability.
#[allow(unsafe_code)]
pub(crate) mod buffer;
pub mod counters;
// The process generation (bumped in the child of a `fork()`); `unsafe` for
// registering the hook.
#[allow(unsafe_code)]
pub(crate) mod fork;
pub mod ownership;
// Which earlier buffers a trace read eagerly, and whether they were written
// since.
pub mod read_log;
// A tensor shared between a front end's threads: its fair lock and donor
// gate; `unsafe` for taking over a lock held at a fork.
#[allow(unsafe_code)]
pub mod slot;
pub(crate) mod sync;
pub mod timeline;

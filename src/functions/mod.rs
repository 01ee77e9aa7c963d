//! The array API's functions computed on tensors: each validates its
//! arguments, decides its result's dtype and shape and computes it.
//! Which buffer receives a result is never decided here but by the
//! planner ([`crate::plan`]), which holds these functions as op families.
//!
//! * [`creation`], [`manipulation`], [`assignment`] (through positions);
//! * [`statistics`], [`cumulative`], [`searching`], [`sorting`], [`sets`],
//!   [`linalg`], [`fft`];
//! * [`lanes`]: a tensor seen as lanes along the axes an operation runs
//!   over, which the reductions, running operations, sorting and
//!   searching share;
//! * [`lane_ops`]: the family whose result has its input's shape and can
//!   be written over it (`sort`, `cumulative_sum`, `roll`, `tril`, the
//!   `*_like` fills); `crate::ops::lane_ops` runs it from a plan.
pub mod assignment;
pub mod counting;
pub mod creation;
pub mod cumulative;
pub mod fft;
pub mod lane_ops;
pub mod lanes;
pub mod linalg;
pub mod manipulation;
pub mod searching;
pub mod sets;
pub mod sorting;
pub mod statistics;

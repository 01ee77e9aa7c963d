//! Running what the planner decided.
//!
//! * [`execute`]: a [`Plan`](crate::Plan) over dtype-erased operands: the
//!   casts, the claim of the target, the typed kernels;
//! * [`call`]: the one call sequence of a front end whose tensors live in
//!   slots: gates, describe, plan, read, warn, lock, re-check, claim and
//!   run.
pub mod call;
pub mod execute;

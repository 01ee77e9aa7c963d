//! Traces being recorded (`donate.jit`, `donate.make_jaxpr`): what a
//! tracer `Tensor` refers to, the trace running on each thread, and the
//! `TracerError`s. The lowest layer of tracing: the `Tensor` class holds a
//! [`Tracer`]; recording operations is [`super::jit`]'s.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use super::errors::{IntoPyResult, TracerError};
use donate::program::{Builder, Var};
use donate::{DynTensor, Error};

pub(crate) const MOVED: u32 = u32::MAX;

/// What a tracer `Tensor` refers to.
#[derive(Debug)]
pub(crate) struct Tracer {
    pub(crate) trace: Arc<Trace>,
    /// Its variable; rebound by in-place updates; `MOVED` once donated.
    pub(crate) var: AtomicU32,
}

/// A trace being recorded.
#[derive(Debug, Default)]
pub(crate) struct Trace {
    /// Unique per trace (never 0).
    pub(crate) id: u32,
    /// How many buffers were made before it began
    /// ([`donate::storages_made`]): a write into an older one is refused.
    pub(crate) since: u64,
    /// `None` once finished.
    pub(crate) builder: Mutex<Option<Builder>>,
    /// Inputs (by index) donated explicitly inside the traced function,
    /// themselves or through a view (`x.donate()`, `x.T.donate()`), with
    /// the operation that took them: warned about at lowering when the
    /// caller did not donate that argument.
    pub(crate) explicit: Mutex<Vec<(usize, &'static str)>>,
}

pub(crate) static NEXT_TRACE: AtomicU32 = AtomicU32::new(1);

thread_local! {
    /// The trace running on this thread (0: none): tensors made while it
    /// runs may become its tracers.
    pub(crate) static CURRENT_TRACE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// How many buffers were made before the trace running on this thread
    /// began ([`donate::storages_made`]).
    pub(crate) static CURRENT_TRACE_SINCE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many traces run now, on any thread: while none does, making a
/// tensor reads no thread-local (a slow access from a shared library).
pub(crate) static TRACES_RUNNING: AtomicU32 = AtomicU32::new(0);

/// The trace running on this thread (0: none).
pub(crate) fn current_trace() -> u32 {
    if TRACES_RUNNING.load(Ordering::Relaxed) == 0 {
        return 0;
    }
    CURRENT_TRACE.with(std::cell::Cell::get)
}

/// While a trace runs on this thread: how many buffers were made before it
/// began.
pub(crate) fn current_trace_since() -> Option<u64> {
    (current_trace() != 0).then(|| CURRENT_TRACE_SINCE.with(std::cell::Cell::get))
}

pub(crate) fn tracer_error(op: &str, reason: &str) -> PyErr {
    TracerError::new_err(
        Error::Tracer {
            op: op.into(),
            reason: reason.into(),
        }
        .to_string(),
    )
}

/// The error for a function whose result's shape depends on its operands'
/// values (`nonzero`, `unique_*`, boolean-mask indexing): a traced program
/// plans every shape before it runs, as `jax.jit` does.
pub(crate) fn value_shaped(op: &str, why: &str) -> PyErr {
    tracer_error(
        op,
        &format!("cannot be traced (inside donate.jit or donate.make_jaxpr): {why}"),
    )
}

/// The error for an operation that needs the value of tracer `t`.
pub(crate) fn needs_value(what: &str) -> PyErr {
    tracer_error(
        what,
        "the value of a traced tensor is not known while tracing (inside donate.jit or donate.make_jaxpr); \
         compute it outside the traced function, or pass it as a static argument",
    )
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Trace {
    pub(crate) fn with_builder<R>(
        &self,
        op: &str,
        f: impl FnOnce(&mut Builder) -> donate::Result<R>,
    ) -> PyResult<R> {
        let mut g = lock(&self.builder);
        let b = g.as_mut().ok_or_else(|| {
            tracer_error(
                op,
                "a tracer was used after its trace ended (it escaped the traced function)",
            )
        })?;
        f(b).py()
    }

    /// A concrete tensor as a constant ([`Builder::capture`]: one per
    /// view of a buffer, never per Python object).
    pub(crate) fn constant(&self, t: &DynTensor) -> PyResult<Var> {
        self.with_builder("trace", |b| b.capture(t))
    }
}

impl Tracer {
    pub(crate) fn var(&self, op: &str) -> PyResult<Var> {
        match self.var.load(Ordering::Acquire) {
            MOVED => Err(super::errors::DonatedError::new_err(format!(
                "{op}: this traced tensor was donated earlier in the traced function; its value can no longer be used"
            ))),
            v => Ok(v),
        }
    }
}

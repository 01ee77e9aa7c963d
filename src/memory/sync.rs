//! Synchronisation primitives, swapped for `loom`'s under `--cfg loom` so the
//! ownership state machine and the arena free lists can be model-checked.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::Mutex;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::Mutex;

/// Lock a mutex, recovering the data if another thread panicked while
/// holding it: every structure guarded here stays consistent between
/// statements, so a poisoned lock carries no broken invariant.
#[cfg(not(loom))]
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(loom)]
pub(crate) fn lock<T>(m: &Mutex<T>) -> loom::sync::MutexGuard<'_, T> {
    m.lock().unwrap()
}

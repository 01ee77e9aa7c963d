//! A memory timeline: after every operation, its name, the tensor bytes
//! live at that moment, and how its result was made.
//!
//! A [`Timeline`] records from [`Timeline::start`] until it is stopped or
//! dropped. Recording happens in the core at the end of each operation
//! ([`crate::driver::execute`]), so it sees exactly what the planner decided and
//! costs one atomic load per operation when nothing records; it never
//! uses an interpreter hook (a tracer such as `sys.settrace` would change
//! which operands look like temporaries). Recording is process-wide: the
//! operations of every thread land in every active timeline, in the order
//! they finish.
//!
//! ```
//! use donate::memory::timeline::{ResultKind, Timeline};
//! use donate::Tensor;
//!
//! let a = Tensor::<f32>::zeros(&[1024])?;
//! let mut tl = Timeline::start();
//! let b = a.relu_ref()?; // borrowed: a new buffer
//! let c = b.relu()?; // by value: b's buffer
//! tl.stop();
//! let kinds: Vec<ResultKind> = tl.records().iter().map(|r| r.result).collect();
//! assert_eq!(kinds, [ResultKind::Fresh, ResultKind::Reused]);
//! # drop(c);
//! # Ok::<(), donate::Error>(())
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// How an operation's result was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultKind {
    /// Into a new buffer (nothing was offered, or nothing offered fitted).
    Fresh,
    /// Into a temporary's buffer (implicit donation).
    Reused,
    /// Into an explicitly donated buffer.
    Donated,
    /// Into a new buffer after an explicit donation was refused (copy
    /// protection).
    Copied,
    /// In place (`+=`, `relu_()`), copy-on-write when shared.
    InPlace,
    /// A view sharing its input's buffer (reshape, transpose, index).
    View,
}

impl ResultKind {
    /// The name used in Python (`tl.records[i]["result"]`).
    pub fn name(self) -> &'static str {
        match self {
            ResultKind::Fresh => "fresh",
            ResultKind::Reused => "reused",
            ResultKind::Donated => "donated",
            ResultKind::Copied => "copied",
            ResultKind::InPlace => "in_place",
            ResultKind::View => "view",
        }
    }
}

/// One operation as a timeline saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub op: &'static str,
    /// Tensor bytes live right after the operation
    /// ([`memory_stats`](crate::memory_stats)`().live_bytes`).
    pub live_bytes: u64,
    pub result: ResultKind,
}

type Records = Arc<Mutex<Vec<Record>>>;

/// How many timelines record now (checked first, without a lock).
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static TIMELINES: Mutex<Vec<Records>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records every operation from [`start`](Self::start) until
/// [`stop`](Self::stop) or drop. See the [module docs](self).
#[derive(Debug)]
pub struct Timeline {
    records: Records,
    active: bool,
}

impl Timeline {
    /// Start recording.
    pub fn start() -> Self {
        let records: Records = Arc::default();
        lock(&TIMELINES).push(Arc::clone(&records));
        ACTIVE.fetch_add(1, Ordering::AcqRel);
        Timeline {
            records,
            active: true,
        }
    }

    /// Stop recording (the records stay).
    pub fn stop(&mut self) {
        if std::mem::take(&mut self.active) {
            lock(&TIMELINES).retain(|r| !Arc::ptr_eq(r, &self.records));
            ACTIVE.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Still recording?
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// The records so far, in order.
    pub fn records(&self) -> Vec<Record> {
        lock(&self.records).clone()
    }
}

impl Drop for Timeline {
    fn drop(&mut self) {
        self.stop();
    }
}

/// An operation ended: add it to every active timeline (`what` gives the
/// op's name and how its result was made, asked only when one records).
#[inline]
pub(crate) fn record(what: impl FnOnce() -> (&'static str, ResultKind)) {
    if ACTIVE.load(Ordering::Relaxed) == 0 {
        return;
    }
    push(what());
}

#[cold]
fn push((op, result): (&'static str, ResultKind)) {
    let live_bytes = crate::memory::counters::memory_stats().live_bytes;
    for r in lock(&TIMELINES).iter() {
        lock(r).push(Record {
            op,
            live_bytes,
            result,
        });
    }
}

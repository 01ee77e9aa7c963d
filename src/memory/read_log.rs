//! Which earlier buffers a thread reads while a log is open, and whether
//! they were written since: how a traced program learns that a value it
//! computed eagerly while tracing is out of date.
//!
//! # The model
//!
//! Every buffer counts the times its contents were handed out for
//! writing ([`Watched::writes`]: each mutable access, under the writer
//! bit or through the sole handle). A trace opens a log on its thread
//! ([`ReadLog::open`] with the count of buffers made so far); from then
//! until it closes, every reader handle and every export of a buffer made
//! before the log opened is noted with its write count. Closing gives a
//! [`ReadSet`], and [`ReadSet::written`] answers whether any of those
//! buffers was written since (or is gone).
//!
//! A traced program holds the set of its trace: a value the traced
//! function computed from a captured tensor alone (`w.sum()`, `exp(w)`,
//! `np.asarray(w)`) ran eagerly while tracing and is a constant of the
//! program, so once `w` is written the program is out of date and the
//! front end traces again, which is what eager code would compute. A
//! captured tensor that the program reads itself (`x * w`) is read when
//! the program runs, and needs nothing of this.
//!
//! # Examples
//!
//! ```
//! use donate::{storages_made, ReadLog, Tensor};
//!
//! let mut w = Tensor::<f32>::from_vec(vec![1.0, 2.0], &[2])?;
//! let log = ReadLog::open(storages_made());
//! drop(w.export()?); // a read (an exported view) while the log is open
//! let read = log.close();
//! assert_eq!(read.len(), 1);
//! assert!(!read.written());
//! w.data_mut().unwrap()[0] = 5.0; // written since
//! assert!(read.written());
//! # Ok::<(), donate::Error>(())
//! ```
//!
//! # Rationale
//!
//! JAX fixes such values at tracing time, but a JAX array cannot be
//! written; a donate tensor can, and `donate.jit` promises that captured
//! tensors are read as they are at each call. Guarding on a count (as
//! `torch.compile` guards on a tensor's version counter) costs one load
//! per noted buffer per call, where comparing values would cost a pass
//! over each.
//!
//! # Limitations
//!
//! Reads by another thread than the tracing one are not noted, nor reads
//! of a buffer's memory through a pointer kept from before the log
//! opened (an exported NumPy view made earlier). A log closed on another
//! thread than the one that opened it knows nothing, and its set answers
//! `written` always (tracing again on every call: slow, never stale).

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// What a log notes of a buffer: its serial number and its write count
/// (the buffer's storage implements it; the log names no buffer type).
pub(crate) trait Watched: Send + Sync {
    /// How many buffers were made before this one.
    fn serial(&self) -> u64;
    /// How many times its memory was handed out for writing.
    fn writes(&self) -> u64;
}

type Seen = Vec<(Weak<dyn Watched>, u64)>;

/// The address a buffer is known by in a log (its data, without the
/// trait object's vtable).
fn addr(w: &Weak<dyn Watched>) -> *const () {
    w.as_ptr().cast::<()>()
}

/// Logs open on any thread: `note` does nothing else while this is zero.
static OPEN: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's open logs, innermost last.
    static LOGS: RefCell<Vec<Log>> = const { RefCell::new(Vec::new()) };
    /// Inside [`unlogged`]: reads are not noted.
    static UNLOGGED: Cell<u32> = const { Cell::new(0) };
}

/// Run `f` without noting its reads: a front end capturing a tensor as a
/// constant that the program reads when it runs (not a value computed
/// while tracing).
pub fn unlogged<R>(f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            UNLOGGED.with(|u| u.set(u.get() - 1));
        }
    }
    UNLOGGED.with(|u| u.set(u.get() + 1));
    let _restore = Restore;
    f()
}

struct Log {
    id: usize,
    since: u64,
    seen: Seen,
}

static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

/// An open log of this thread's reads of buffers made before it opened;
/// closes (dropping what it saw) when dropped unclosed.
#[derive(Debug)]
pub struct ReadLog {
    id: usize,
}

impl ReadLog {
    /// Open a log of reads of the buffers whose serial is below `since`
    /// (a value of [`crate::storages_made`]).
    pub fn open(since: u64) -> ReadLog {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        LOGS.with(|l| {
            l.borrow_mut().push(Log {
                id,
                since,
                seen: Vec::new(),
            });
        });
        OPEN.fetch_add(1, Ordering::AcqRel);
        ReadLog { id }
    }

    /// Close the log: the buffers it saw read, with their write counts
    /// then. An enclosing log of the same thread sees them too.
    pub fn close(self) -> ReadSet {
        let set = self.take();
        std::mem::forget(self);
        set
    }

    fn take(&self) -> ReadSet {
        let seen = LOGS.with(|l| {
            let mut logs = l.borrow_mut();
            let i = logs.iter().rposition(|g| g.id == self.id)?;
            let log = logs.remove(i);
            OPEN.fetch_sub(1, Ordering::AcqRel);
            if let Some(outer) = i.checked_sub(1).and_then(|o| logs.get_mut(o)) {
                for (w, n) in &log.seen {
                    if w.upgrade().is_some_and(|s| s.serial() < outer.since)
                        && !outer.seen.iter().any(|(o, _)| addr(o) == addr(w))
                    {
                        outer.seen.push((w.clone(), *n));
                    }
                }
            }
            Some(log.seen)
        });
        ReadSet { seen }
    }
}

impl Drop for ReadLog {
    fn drop(&mut self) {
        let _ = self.take();
    }
}

/// The buffers a closed [`ReadLog`] saw read, each with its write count
/// at the read.
#[derive(Debug, Default)]
pub struct ReadSet {
    /// `None`: closed on another thread, so unknown.
    seen: Option<Seen>,
}

impl ReadSet {
    /// Whether any buffer of the set was written since it was read, or
    /// is gone (freed: what it held is unknown); always true for a set
    /// that is unknown.
    pub fn written(&self) -> bool {
        let Some(seen) = &self.seen else {
            return true;
        };
        seen.iter()
            .any(|(w, n)| w.upgrade().is_none_or(|s| s.writes() != *n))
    }

    /// How many buffers the set holds.
    pub fn len(&self) -> usize {
        self.seen.as_ref().map_or(0, Vec::len)
    }

    /// Whether the set holds no buffer (and is known).
    pub fn is_empty(&self) -> bool {
        self.seen.as_ref().is_some_and(Vec::is_empty)
    }
}

/// Note a read of `storage` in this thread's innermost open log, when it
/// was made before that log opened. One relaxed load when no log is open
/// on any thread.
#[inline]
pub(crate) fn note<S: Watched + 'static>(storage: &Arc<S>) {
    if OPEN.load(Ordering::Relaxed) == 0 {
        return;
    }
    note_slow(storage);
}

#[cold]
fn note_slow<S: Watched + 'static>(storage: &Arc<S>) {
    if UNLOGGED.with(Cell::get) > 0 {
        return;
    }
    LOGS.with(|l| {
        let Ok(mut logs) = l.try_borrow_mut() else {
            return;
        };
        let Some(log) = logs.last_mut() else {
            return;
        };
        if storage.serial() >= log.since
            || log
                .seen
                .iter()
                .any(|(w, _)| addr(w) == Arc::as_ptr(storage).cast::<()>())
        {
            return;
        }
        let weak: Weak<dyn Watched> = Arc::downgrade(storage) as Weak<S>;
        log.seen.push((weak, storage.writes()));
    });
}

//! The kernels' thread pool: one per process, built again in a child of
//! `fork()`.
//!
//! Large kernels split their work across threads with rayon (`par_chunks`,
//! `par_chunks_mut`) and `gemm`'s `Parallelism::Rayon`. **Every such path
//! runs inside [`install`]**, and reads its thread count from [`threads`];
//! nothing in this crate uses rayon's global pool or
//! `rayon::current_num_threads()` outside [`install`] (the test
//! `tests/pool.rs` checks that the global pool is never even built).
//!
//! Why not rayon's global pool: a child of `fork()` has only the thread that
//! called `fork()`. The global pool is built once per address space and
//! never rebuilt, so in a child of a parent that had used it, rayon still
//! believes its workers exist: the first parallel job is queued for threads
//! that are not there and the caller waits forever. Python's `os.fork()` and
//! `multiprocessing` with the fork start method (Linux's default up to
//! Python 3.13) hit exactly that after the parent ran one large op.
//!
//! What happens at a fork: the first pool built registers a
//! `pthread_atfork` child handler. In the child it forgets the pool (an
//! atomic swap, nothing more), so the child's first parallel op builds a
//! pool of its own, with live threads. The old pool is leaked on purpose,
//! never dropped: dropping it would signal its workers, taking locks that a
//! thread which no longer exists may have held at the moment of the fork,
//! and could block for ever. The pool itself stays reachable from a static
//! list, so leak checkers see it as still in use (what its threads owned,
//! such as their thread-locals, is unreachable in the child, as for any
//! thread at a fork). A child pays the old pool's bookkeeping, a few
//! kilobytes and no threads, per fork.
//!
//! A caller that is itself a worker of some rayon pool (a Rust program that
//! runs donate inside its own `par_iter` or `ThreadPool::install`) keeps that
//! pool: its kernels split across the caller's pool, as nested rayon code
//! does, instead of parking a worker while another pool runs them. That
//! pool's threads exist: the caller is one of them. The one exception is a
//! process forked from inside a rayon job, whose only thread may be the
//! last of a pool whose other workers are gone: after such a fork every
//! caller uses this module's pool.
//!
//! The pool has rayon's default size: `RAYON_NUM_THREADS` if set, else one
//! thread per CPU. Its threads are named `donate-N`.

use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use rayon::{ThreadPool, ThreadPoolBuilder};

/// A pool published in [`POOL`]; `Box`-allocated and never freed.
struct Pool {
    pool: ThreadPool,
    /// The next older pool forgotten at a fork (see [`STALE`]).
    older: AtomicPtr<Pool>,
}

/// This process's pool, or null before its first parallel op (and again
/// right after a fork). Holds only pointers from `Box::into_raw` that are
/// never freed, so a `&'static` to the pool stays valid.
static POOL: AtomicPtr<Pool> = AtomicPtr::new(ptr::null_mut());

/// Pools forgotten at forks, newest first, linked through `Pool::older`:
/// kept reachable so that leak checkers do not report them.
static STALE: AtomicPtr<Pool> = AtomicPtr::new(ptr::null_mut());

/// Set in a child forked from inside a rayon job: callers that are rayon
/// workers no longer keep their own pool (see the module docs).
static FORKED_IN_JOB: AtomicBool = AtomicBool::new(false);

/// Whether [`forget_pool_in_child`] is registered with `pthread_atfork`.
static AT_FORK: AtomicBool = AtomicBool::new(false);

/// Run `f` on the pool kernels use: the caller's own rayon pool if it is
/// one of its workers, else this process's pool (built on first use, and
/// again after a fork). Parallel iterators inside `f` split across that
/// pool. From a thread outside the pool this costs what one parallel
/// iterator costs anyway: handing the job to a worker and waiting for it.
pub(crate) fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if in_callers_pool() {
        f()
    } else {
        pool().install(f)
    }
}

/// Does a loop over `len` elements in chunks of `chunk` run on the
/// kernels' pool, given whether the caller allows it? Only when there is
/// more than one chunk: the one place this is decided.
pub(crate) fn splits(len: usize, chunk: usize, parallel: bool) -> bool {
    parallel && len > chunk.max(1)
}

/// `f(state, c, chunk)` for each chunk `c` of `dst` of `chunk` elements
/// (the last may be shorter), on the kernels' pool when [`splits`] says
/// so, with a `state` from `init` reused across the chunks one thread does
/// (a kernel's working buffers).
pub(crate) fn chunks_init<D: Send, S>(
    dst: &mut [D],
    chunk: usize,
    parallel: bool,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, &mut [D]) + Sync + Send,
) {
    if splits(dst.len(), chunk, parallel) {
        chunks_split(dst, chunk, init, f);
    } else {
        chunks_with(dst, chunk, &mut init(), f);
    }
}

/// [`chunks_init`] on the kernels' pool, for a caller that asked
/// [`splits`] itself.
pub(crate) fn chunks_split<D: Send, S>(
    dst: &mut [D],
    chunk: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, &mut [D]) + Sync + Send,
) {
    use rayon::prelude::*;

    install(|| {
        dst.par_chunks_mut(chunk.max(1))
            .enumerate()
            .for_each_init(&init, |s, (c, d)| f(s, c, d));
    });
}

/// `f(state, item)` for each of `items`, on the kernels' pool when
/// [`splits`] says so (several items, `parallel`), with a `state` from
/// `init` reused across the items one thread does.
pub(crate) fn items_init<I: Send, S>(
    items: Vec<I>,
    parallel: bool,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, I) + Sync + Send,
) {
    if splits(items.len(), 1, parallel) {
        items_split(items, init, f);
    } else {
        let mut state = init();
        for i in items {
            f(&mut state, i);
        }
    }
}

/// [`items_init`] on the kernels' pool, for a caller that asked [`splits`]
/// itself.
pub(crate) fn items_split<I: Send, S>(
    items: Vec<I>,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, I) + Sync + Send,
) {
    use rayon::prelude::*;

    install(|| items.into_par_iter().for_each_init(&init, |s, i| f(s, i)));
}

/// The sequential [`chunks_init`], with a `state` the caller made.
pub(crate) fn chunks_with<D, S>(
    dst: &mut [D],
    chunk: usize,
    state: &mut S,
    f: impl Fn(&mut S, usize, &mut [D]),
) {
    for (c, d) in dst.chunks_mut(chunk.max(1)).enumerate() {
        f(state, c, d);
    }
}

/// The number of threads a parallel kernel called here splits across: that
/// of the pool [`install`] would run it on.
pub(crate) fn threads() -> usize {
    if in_callers_pool() {
        rayon::current_num_threads()
    } else {
        pool().current_num_threads()
    }
}

/// Is the calling thread a worker of a rayon pool whose other threads
/// exist (so that [`install`] can run on it)?
#[inline]
fn in_callers_pool() -> bool {
    rayon::current_thread_index().is_some() && !FORKED_IN_JOB.load(Ordering::Relaxed)
}

/// This process's pool, built if there is none.
#[inline]
fn pool() -> &'static ThreadPool {
    let p = POOL.load(Ordering::Acquire);
    if p.is_null() {
        return build();
    }
    // SAFETY: POOL only holds pointers from `Box::into_raw` (in `build`),
    // and no pool is ever freed once published, so `p` is valid for ever;
    // the Acquire load pairs with the publishing Release.
    unsafe { &(*p).pool }
}

#[cold]
fn build() -> &'static ThreadPool {
    // Registered before the pool is published, so no pool can be seen by a
    // fork without the handler that forgets it.
    register_at_fork();
    let pool = ThreadPoolBuilder::new()
        .thread_name(|i| format!("donate-{i}"))
        .build()
        .unwrap_or_else(|e| panic!("donate: cannot start the kernels' thread pool: {e}"));
    let new = Box::into_raw(Box::new(Pool {
        pool,
        older: AtomicPtr::new(ptr::null_mut()),
    }));
    match POOL.compare_exchange(ptr::null_mut(), new, Ordering::AcqRel, Ordering::Acquire) {
        // SAFETY: `new` came from `Box::into_raw` just now and is now
        // published, hence never freed.
        Ok(_) => unsafe { &(*new).pool },
        Err(current) => {
            // Another thread published a pool first. Ours was never shared
            // and its threads are alive (this thread just started them), so
            // dropping it is an ordinary pool shutdown.
            // SAFETY: `new` came from `Box::into_raw` above and was never
            // published, so this is its only owner.
            drop(unsafe { Box::from_raw(new) });
            // SAFETY: as in `pool`: a published pointer, never freed.
            unsafe { &(*current).pool }
        }
    }
}

/// Register [`forget_pool_in_child`] with `pthread_atfork`, once per
/// address space (a child inherits both the registration and this flag).
/// Threads racing here may both register it; it is idempotent.
fn register_at_fork() {
    if AT_FORK.load(Ordering::Acquire) {
        return;
    }
    #[cfg(unix)]
    {
        // SAFETY: the handler is an `extern "C" fn()` that cannot unwind
        // and stays valid for the life of the process (it is part of this
        // library, which is never unloaded while registered: glibc drops a
        // shared object's handlers when it is unloaded).
        let err = unsafe { libc::pthread_atfork(None, None, Some(forget_pool_in_child)) };
        assert_eq!(err, 0, "donate: pthread_atfork failed ({err})");
    }
    AT_FORK.store(true, Ordering::Release);
}

/// `pthread_atfork` child handler: runs in the child, on the thread that
/// called `fork()` (its only thread), before `fork()` returns there. It
/// only reads a thread-local and swaps atomics.
#[cfg(unix)]
extern "C" fn forget_pool_in_child() {
    if rayon::current_thread_index().is_some() {
        FORKED_IN_JOB.store(true, Ordering::Relaxed);
    }
    let old = POOL.swap(ptr::null_mut(), Ordering::AcqRel);
    if !old.is_null() {
        // No other thread exists in the child, so nothing races on STALE.
        // SAFETY: `old` was published in POOL, hence valid for ever.
        unsafe { &*old }
            .older
            .store(STALE.load(Ordering::Relaxed), Ordering::Relaxed);
        STALE.store(old, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_runs_on_this_process_pool_and_threads_match() {
        let (index, n) = install(|| (rayon::current_thread_index(), rayon::current_num_threads()));
        assert!(index.is_some(), "install ran on the calling thread");
        assert_eq!(n, threads());
        assert_eq!(n, pool().current_num_threads());
        let name = install(|| std::thread::current().name().map(str::to_owned));
        assert!(name.unwrap().starts_with("donate-"));
    }

    #[test]
    fn a_callers_own_pool_is_kept() {
        let one = ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let (threads_there, name) = one.install(|| {
            (
                threads(),
                install(|| std::thread::current().name().map(str::to_owned)),
            )
        });
        assert_eq!(threads_there, 1);
        assert!(!name.is_some_and(|n| n.starts_with("donate-")));
    }
}

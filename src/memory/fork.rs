//! The process generation, for locks and state bits that a thread lost
//! at a `fork()` left held: 0 in the process that first asked, bumped in
//! the child of each `fork()` (by a `pthread_atfork` handler, registered
//! by [`install`]). A holder records the generation it ran in; a child
//! tells a record of an older generation from its own threads' and takes
//! the lock over or clears the bits ([`crate::memory::slot`]'s locks and gates,
//! a buffer's readers and writer).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

static GENERATION: AtomicU64 = AtomicU64::new(0);

#[cfg(unix)]
extern "C" fn in_child() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// Register the child handler (once per process; a child inherits the
/// registration).
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(unix)]
        // SAFETY: `in_child` is an `extern "C" fn()` that only touches an
        // atomic, which is async-signal-safe as a child handler must be,
        // and stays valid for the life of the process.
        unsafe {
            libc::pthread_atfork(None, None, Some(in_child));
        }
    });
}

/// This process's generation.
pub(crate) fn generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

//! Which operands are temporaries: the interpreter checks (an object's
//! reference count, CPython 3.14's unique-temporary test, the calling
//! instruction and the C-stack check that an operand came from the
//! interpreter), their import-time learning, and the implicit-donation
//! switch and size threshold. Everything here decides only *whether* an
//! operand is offered ([`Offer`]); what is done with an offer is the core's
//! planner's decision ([`donate::plan`]).
//!
//! # When is an operand a temporary?
//!
//! An operand may be reused implicitly only if nothing but the
//! interpreter's evaluation stack refers to it, so that no Python code can
//! ever observe it again.
//!
//! * **CPython 3.14+**: locals are pushed onto the stack as *borrowed*
//!   references, so a count of 1 no longer proves anything (NumPy shipped
//!   this bug, numpy/numpy#28681). We ask the interpreter:
//!   `PyUnstable_Object_IsUniqueReferencedTemporary` checks that the count
//!   is 1 *and* that the reference is an owned one on the current frame's
//!   stack.
//! * **CPython 3.11–3.13** (with the GIL): the count, read on the borrowed
//!   argument before anything takes a reference of its own, must be 1.
//!   That alone is not enough when the caller is C code that holds the only
//!   reference in a C variable and uses it again later (a Cython local):
//!   the count is 1 there too. So, as NumPy's `temp_elide.c` does, we walk
//!   the C stack and require that every frame between this extension and
//!   the interpreter's evaluation loop (`_PyEval_EvalFrameDefault`) belongs
//!   to this extension or to the interpreter itself. Any other frame (or a
//!   platform without glibc's unwinder) means "not a temporary".
//!   The interpreter has callers of its own that hold the only reference
//!   in an *object* and use it again: a bound method `m = (a * 1).relu`
//!   holds its `self`, `functools.partial(f, a * 1)` its arguments, a
//!   method-wrapper `(a * 1).__add__` its `self`; calling them twice must
//!   not find the tensor donated. So not every interpreter frame is
//!   trusted: at import, the paths that really pass temporaries (method
//!   calls, operators, function calls) are run once, and the functions
//!   they pass through (told apart by the start address of each frame's
//!   function, separately for `self` and for other arguments) are the only
//!   interpreter functions trusted afterwards. Learning them from this
//!   very interpreter makes the check independent of how it was compiled
//!   (inlining and tail calls decide which frames exist).
//!   The same goes for the evaluation loop itself: a compiler may split a
//!   function into a hot and a cold part, and the cold part has an unwind
//!   entry of its own and no symbol (Debian's 3.13, built with PGO, runs
//!   `CALL` and the operators from a 77 KB part of
//!   `_PyEval_EvalFrameDefault` outside the 2.4 KB its symbol covers). So
//!   the learning paths, which `PyEval_EvalCode` runs, also learn the code
//!   region of the frame `PyEval_EvalCode` called: the evaluation loop
//!   running them.
//!   Once a call site is specialised the interpreter calls C methods
//!   straight from the evaluation loop, and then a bound method's held
//!   `self` and a method call's stack `self` look the same on the C stack;
//!   so the instruction the calling frame executes must also prove that
//!   the operand comes from the evaluation stack (see [`calling`]).
//! * **Free-threaded builds before 3.14**: another thread may hold a
//!   borrowed reference the count does not show, so nothing is a temporary.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;

use donate::plan::Offer;

/// Which operand of a call is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// `self` of a method or operator.
    Receiver,
    /// Any other argument.
    Argument,
}

/// Whether `obj`, as passed to us by the caller in `role`, is a temporary
/// that no Python code can observe again. See the [module docs](self).
pub(crate) fn is_temporary(obj: &Bound<'_, PyAny>, role: Role) -> bool {
    #[cfg(Py_3_14)]
    {
        let _ = role;
        // SAFETY: `obj` is a live object (the `Bound` owns or borrows a
        // reference for 'py) and we are attached to the interpreter.
        unsafe { ffi::PyUnstable_Object_IsUniqueReferencedTemporary(obj.as_ptr()) == 1 }
    }
    #[cfg(all(not(Py_3_14), Py_GIL_DISABLED))]
    {
        let _ = (obj, role);
        false
    }
    #[cfg(all(not(Py_3_14), not(Py_GIL_DISABLED)))]
    {
        // SAFETY: `obj` is live and we hold the GIL, so the count cannot
        // change under us.
        let count = unsafe { ffi::Py_REFCNT(obj.as_ptr()) };
        count == 1 && calling::allows(obj.py(), role) && caller::called_from_interpreter(role)
    }
}

/// Whether `obj`, found to be a temporary by [`is_temporary`] and since
/// held by the operation's own operand list (one strong reference), is
/// still referred to only by the evaluation stack and that one reference.
/// Checked right before its buffer is claimed, after every conversion and
/// warning handler (Python code) has run. On every version the decision
/// itself required a count of 1, so anything above 2 now is a reference
/// someone obtained in between.
pub(crate) fn still_temporary(obj: &Bound<'_, PyAny>) -> bool {
    // SAFETY: `obj` is live (borrowed for 'py) and we are attached.
    unsafe { ffi::Py_REFCNT(obj.as_ptr()) == 2 }
}

/// What the instruction the calling Python frame is executing proves about
/// where an operand comes from, on CPython 3.11-3.13. See [`calling`].
#[cfg(all(not(Py_3_14), not(Py_GIL_DISABLED)))]
mod calling;

/// Learn which of the interpreter's functions lie between the evaluation
/// loop and this extension on the paths that pass temporaries: `run`
/// executes those paths (method calls, operators and function calls on
/// temporaries, each often enough for the interpreter to specialise it)
/// while every temporary check records the functions it walks through.
/// Afterwards only those functions are trusted. See the [module docs](self).
pub(crate) fn learn_trusted_callers(run: impl FnOnce() -> PyResult<()>) -> PyResult<()> {
    #[cfg(not(Py_3_14))]
    {
        caller::learn(run)
    }
    #[cfg(Py_3_14)]
    {
        let _ = run;
        Ok(())
    }
}

/// Whether [`learn_trusted_callers`] is running (every operand is then
/// checked, whatever its size).
pub(crate) fn learning() -> bool {
    #[cfg(not(Py_3_14))]
    {
        caller::learning()
    }
    #[cfg(Py_3_14)]
    {
        false
    }
}

/// Whether implicit donation can work at all in this build, and if not, why.
pub(crate) fn check_available() -> Result<&'static str, &'static str> {
    #[cfg(Py_3_14)]
    {
        Ok("PyUnstable_Object_IsUniqueReferencedTemporary")
    }
    #[cfg(all(not(Py_3_14), Py_GIL_DISABLED))]
    {
        Err("free-threaded CPython before 3.14 cannot tell a temporary from a borrowed reference")
    }
    #[cfg(all(not(Py_3_14), not(Py_GIL_DISABLED)))]
    {
        caller::available()
            .map(|()| "reference count of 1, called from the interpreter's evaluation loop")
    }
}

#[cfg(all(
    not(Py_3_14),
    not(Py_GIL_DISABLED),
    target_os = "linux",
    target_env = "gnu"
))]
mod caller;

#[cfg(all(
    not(Py_3_14),
    not(Py_GIL_DISABLED),
    not(all(target_os = "linux", target_env = "gnu"))
))]
mod caller {
    pub(super) fn available() -> Result<(), &'static str> {
        Err("this platform has no C-stack check; implicit donation needs CPython 3.14 here")
    }
    pub(super) fn called_from_interpreter(_role: super::Role) -> bool {
        false
    }
    pub(super) fn learning() -> bool {
        false
    }
    /// Nothing to learn without the C-stack check: the paths are not run.
    pub(super) fn learn(_run: impl FnOnce() -> pyo3::PyResult<()>) -> pyo3::PyResult<()> {
        Ok(())
    }
}

static IMPLICIT: AtomicBool = AtomicBool::new(true);

/// Smallest temporary (in bytes) considered for implicit donation.
///
/// Before CPython 3.14 the check walks the C stack, which costs about
/// 0.7 µs; below this size that is more than reusing the buffer saves
/// (the allocator recycles small blocks almost for free).
/// `python benches/implicit_threshold.py` timed `(a + b).relu()` with the
/// check on and off: 1.09× slower at 128 KiB, 0.77× (faster) at 256 KiB,
/// 0.05× at 1 MiB, where a fresh buffer costs page faults. NumPy's
/// temporary elision uses the same 256 KiB. On 3.14 the check is a scan of
/// the current frame's stack, so every size is considered.
#[cfg(not(Py_3_14))]
pub(crate) const DEFAULT_MIN_BYTES: usize = 256 * 1024;
#[cfg(Py_3_14)]
pub(crate) const DEFAULT_MIN_BYTES: usize = 0;

static MIN_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MIN_BYTES);

/// Read `DONATE_IMPLICIT` once at import: `0`, `false`, `off` or `no`
/// turn implicit donation off.
pub(crate) fn init_from_env() {
    if let Ok(v) = std::env::var("DONATE_IMPLICIT") {
        let off = matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "off" | "no"
        );
        IMPLICIT.store(!off, Ordering::Relaxed);
    }
}

/// Turn implicit donation of temporaries on or off for the whole process,
/// and optionally set the smallest temporary (bytes) it considers; returns
/// the previous on/off setting.
#[pyfunction]
#[pyo3(signature = (enabled, min_bytes = None))]
pub(crate) fn set_implicit_donation(enabled: bool, min_bytes: Option<usize>) -> bool {
    if let Some(m) = min_bytes {
        MIN_BYTES.store(m, Ordering::Relaxed);
    }
    IMPLICIT.swap(enabled, Ordering::Relaxed)
}

/// The smallest temporary, in bytes, that implicit donation considers.
#[pyfunction]
pub(crate) fn implicit_donation_min_bytes() -> usize {
    MIN_BYTES.load(Ordering::Relaxed)
}

/// Whether implicit donation of temporaries is on.
#[pyfunction]
pub(crate) fn implicit_donation_enabled() -> bool {
    IMPLICIT.load(Ordering::Relaxed)
}

/// How this build recognises temporaries, or why it cannot (then
/// implicit donation never happens, whatever the setting).
#[pyfunction]
pub(crate) fn temporary_check() -> (bool, &'static str) {
    match check_available() {
        Ok(how) => (true, how),
        Err(why) => (false, why),
    }
}

/// The paths that pass temporaries, run at import so that the temporary
/// check learns which interpreter functions they go through (see
/// [`learn_trusted_callers`]). Each line runs often enough for the
/// interpreter to specialise it, so both forms are seen. `m` is this
/// module.
const TEMPORARY_PATHS: &std::ffi::CStr = c"
t = m.zeros(4)
s = m.zeros((2, 2))
i = m.zeros(4, 'int64')
for _ in range(64):
    (t * 1) // 2; (t * 1) % 2; (t * 1) ** 2; 2 // (t * 1); 2 % (t * 1); 2 ** (t * 1)
    t // (t * 1); t % (t * 1); t ** (t * 1)
    (i * 1) & i; (i * 1) | 1; (i * 1) ^ i; (i * 1) << 1; (i * 1) >> 1; ~(i * 1)
    1 & (i * 1); 1 | (i * 1); 1 ^ (i * 1); 1 << (i * 1); 1 >> (i * 1)
    m.sin(t * 1); m.where(t > 0, t * 1, t); m.clip(t * 1, 0, 1)
    (t * 1).relu(); m.sum(t * 1, axis=0); (t * 1).softmax(axis=-1)
    (t * 1).reshape(4); (t * 1).reshape(2, 2); (s * 1).transpose(); (s * 1).matmul(s)
    (t * 1) + t; (t * 1) - 1; (t * 1) * 2.0; (t * 1) / t; (s * 1) @ s
    1 + (t * 1); 2 - (t * 1); 2.0 * (t * 1); 1 / (t * 1)
    -(t * 1); +(t * 1); abs(t * 1)
    t + (t * 1); t - (t * 1); t * (t * 1); t / (t * 1); s @ (s * 1)
    x = t * 1
    x += t * 1
    x *= t * 1
    m.relu(t * 1); m.exp(t * 1); m.sum(t * 1); m.max(t * 1, axis=0)
    m.softmax(t * 1); m.layer_norm(t * 1); m.matmul(s * 1, s); m.matmul(s, s * 1)
";

/// Learn the temporary check's trusted interpreter functions (at import).
pub(crate) fn learn_temporary_paths(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let globals = pyo3::types::PyDict::new(py);
    globals.set_item("m", m)?;
    let before = donate::memory::counters::memory_stats();
    let learned = learn_trusted_callers(|| py.run(TEMPORARY_PATHS, Some(&globals), None));
    drop(globals); // frees the tensors the paths made
    donate::memory::counters::restore_counters(&before);
    learned
}

/// Whether this tensor object, as the caller passed it, may be reused.
pub(crate) fn offer_of(obj: &Bound<'_, PyAny>, nbytes: usize, role: Role) -> Offer {
    let wanted = IMPLICIT.load(Ordering::Relaxed) && nbytes >= MIN_BYTES.load(Ordering::Relaxed);
    if (wanted || learning()) && is_temporary(obj, role) {
        Offer::Temporary
    } else {
        Offer::Borrowed
    }
}

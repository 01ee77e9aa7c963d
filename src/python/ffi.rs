//! Every `unsafe` operation of the bindings lives here: reading an
//! object's reference count, CPython 3.14's unique-temporary test, the
//! C-stack check that an operand came from the interpreter, and filling and
//! releasing `Py_buffer` views.
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

use std::ffi::{c_int, c_void, CStr};

use pyo3::ffi;
use pyo3::prelude::*;

use crate::ExportGuard;

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
mod calling {
    //! The C stack cannot tell every caller apart. Once a call site is
    //! specialised, the interpreter calls a C method straight from the
    //! evaluation loop both for `(a * 1).relu()` (a method descriptor,
    //! `self` on the evaluation stack) and for `m()` where
    //! `m = (a * 1).relu` (a bound builtin method, `self` held by `m`):
    //! the C stacks and the reference counts are identical. The
    //! instruction differs. So the rule is: an operand is a temporary only
    //! if the instruction being executed takes it from the evaluation
    //! stack, by its (specialised) name:
    //!
    //! | instruction | receiver (`self`) | other operands |
    //! |---|---|---|
    //! | `BINARY_OP*`, `UNARY_*` (operators) | stack | stack |
    //! | `*METHOD_DESCRIPTOR*` (a method looked up on the type) | stack | stack |
    //! | `*BUILTIN_FAST*`, `*BUILTIN_O` (a builtin function or bound method) | **held by the callable** | stack |
    //! | generic `CALL`, `PRECALL` (and their adaptive forms, `CALL_KW`, `CALL_NON_PY_GENERAL`) | the C stack decides | the C stack decides |
    //! | anything else (`CALL_FUNCTION_EX` for `f(*args)`, `f(**kw)`; bound-method unpacking; unknown) | never | never |
    //!
    //! A generic call goes through the C function of the callable's type
    //! (`method_vectorcall_*` for a method descriptor, `cfunction_vectorcall_*`
    //! for a bound builtin, `partial_vectorcall`, ...), which the learned
    //! trusted set of the C-stack check tells apart. A specialised
    //! instruction whose guard fails runs the generic path, so it is
    //! covered by the same C-stack check. The instruction is read from the
    //! code object's adaptive (specialised) bytecode at the frame's last
    //! instruction; anything that cannot be read means "not a temporary".

    use std::sync::OnceLock;

    use pyo3::ffi;
    use pyo3::prelude::*;

    use super::Role;

    const RECEIVER: u8 = 1;
    const ARGUMENT: u8 = 2;
    const GENERIC: u8 = 4;

    /// What each opcode (specialised forms included) allows.
    fn classify(name: &str) -> u8 {
        let operator = name.starts_with("BINARY_OP") || name.starts_with("UNARY_");
        let descriptor = name.contains("METHOD_DESCRIPTOR");
        let builtin = name.contains("BUILTIN_FAST") || name.ends_with("BUILTIN_O");
        let generic = matches!(
            name,
            "CALL" | "PRECALL" | "CALL_ADAPTIVE" | "PRECALL_ADAPTIVE" | "CALL_KW" | "CALL_NON_PY_GENERAL"
        );
        let mut c = 0;
        if operator || descriptor {
            c |= RECEIVER | ARGUMENT;
        }
        if builtin {
            c |= ARGUMENT;
        }
        if generic {
            c |= GENERIC;
        }
        c
    }

    /// The opcode table, from `dis._all_opmap` (every opcode, specialised
    /// ones included, on 3.11-3.13). `None` if it cannot be built.
    fn table(py: Python<'_>) -> Option<&'static [u8; 256]> {
        static TABLE: OnceLock<Option<[u8; 256]>> = OnceLock::new();
        TABLE
            .get_or_init(|| {
                let map = py.import("dis").ok()?.getattr("_all_opmap").ok()?;
                let map = map.cast::<pyo3::types::PyDict>().ok()?;
                let mut t = [0u8; 256];
                for (k, v) in map.iter() {
                    let (Ok(name), Ok(op)) = (k.extract::<String>(), v.extract::<u32>()) else {
                        return None;
                    };
                    // 3.12+ also lists pseudo-instructions (JUMP,
                    // SETUP_FINALLY, ..., numbered from 256): the compiler
                    // replaces them, no bytecode holds them, and a byte
                    // cannot name them, so they get no entry.
                    if let Ok(op) = u8::try_from(op) {
                        t[usize::from(op)] = classify(&name);
                    }
                }
                Some(t)
            })
            .as_ref()
    }

    /// Whether the bytes after a code object's fixed part are its adaptive
    /// bytecode (`PyCode_Type.tp_basicsize` is `offsetof(PyCodeObject,
    /// co_code_adaptive)` and `ob_size` counts its code units on 3.11-3.13),
    /// checked once against `code._co_code_adaptive`.
    fn layout_known(py: Python<'_>, code: &Bound<'_, PyAny>) -> bool {
        static KNOWN: OnceLock<bool> = OnceLock::new();
        *KNOWN.get_or_init(|| {
            let Ok(reference) = code.getattr("_co_code_adaptive") else {
                return false;
            };
            let Ok(reference) = reference.cast::<pyo3::types::PyBytes>() else {
                return false;
            };
            let _ = py;
            adaptive_bytes(code).is_some_and(|b| b == reference.as_bytes())
        })
    }

    /// The adaptive bytecode of `code`, read in place.
    fn adaptive_bytes<'a>(code: &'a Bound<'_, PyAny>) -> Option<&'a [u8]> {
        let p = code.as_ptr();
        // SAFETY: `code` is a live code object (checked by the caller: it
        // came from PyFrame_GetCode); reading its type's basic size and its
        // own ob_size only reads initialised header fields.
        let (basic, units) = unsafe {
            let ty = ffi::Py_TYPE(p);
            if ty != std::ptr::addr_of_mut!(ffi::PyCode_Type) {
                return None;
            }
            ((*ty).tp_basicsize, ffi::Py_SIZE(p))
        };
        let (Ok(basic), Ok(units)) = (usize::try_from(basic), usize::try_from(units)) else {
            return None;
        };
        // SAFETY: a code object of 3.11-3.13 is allocated with `ob_size`
        // code units (2 bytes each) right after its fixed part
        // (`tp_basicsize` bytes), its adaptive bytecode; `layout_known`
        // checks that against the interpreter's own accessor before this
        // is trusted. The slice lives as long as `code` is borrowed.
        Some(unsafe { std::slice::from_raw_parts(p.cast::<u8>().add(basic), units * 2) })
    }

    /// Whether the instruction the current frame executes passes an
    /// operand in `role` from the evaluation stack (or leaves it to the
    /// C-stack check). Any failure to tell means "no".
    pub(super) fn allows(py: Python<'_>, role: Role) -> bool {
        let Some(table) = table(py) else { return false };
        // SAFETY: attached to the interpreter; PyEval_GetFrame returns a
        // borrowed reference to the current frame (or NULL), alive while
        // its code runs, i.e. for this whole call.
        let frame = unsafe { ffi::PyEval_GetFrame() };
        if frame.is_null() {
            return false;
        }
        // SAFETY: `frame` is a live frame object (see above).
        let (lasti, code) = unsafe { (ffi::PyFrame_GetLasti(frame), ffi::PyFrame_GetCode(frame)) };
        if code.is_null() {
            return false;
        }
        // SAFETY: PyFrame_GetCode returns a new (owned) reference.
        let code = unsafe { Bound::from_owned_ptr(py, code.cast()) };
        let Ok(lasti) = usize::try_from(lasti) else { return false };
        if !layout_known(py, &code) {
            return false;
        }
        let Some(&op) = adaptive_bytes(&code).and_then(|b| b.get(lasti)) else {
            return false;
        };
        let class = table[usize::from(op)];
        let wanted = match role {
            Role::Receiver => RECEIVER,
            Role::Argument => ARGUMENT,
        };
        class & (wanted | GENERIC) != 0
    }
}

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
pub(crate) fn temporary_check() -> Result<&'static str, &'static str> {
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
mod caller {
    //! Is the current call coming straight from the evaluation loop?

    use std::ffi::c_void;
    use std::sync::OnceLock;

    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;

    use pyo3::PyResult;

    use super::Role;

    /// Start addresses of the interpreter functions seen on the paths that
    /// pass temporaries, for receivers and for other arguments, and of the
    /// evaluation loop's code regions outside its symbol (sorted).
    #[derive(Default)]
    struct Trusted {
        receiver: Vec<usize>,
        argument: Vec<usize>,
        eval: Vec<usize>,
    }

    impl Trusted {
        fn of(&self, role: Role) -> &[usize] {
            match role {
                Role::Receiver => &self.receiver,
                Role::Argument => &self.argument,
            }
        }
    }

    static TRUSTED: OnceLock<Trusted> = OnceLock::new();
    /// `Some` while learning: the functions seen so far.
    static LEARNING: Mutex<Option<Trusted>> = Mutex::new(None);
    /// Whether `LEARNING` is `Some`, readable without the lock (every
    /// operation asks).
    static LEARNING_NOW: AtomicBool = AtomicBool::new(false);

    pub(super) fn learning() -> bool {
        LEARNING_NOW.load(Ordering::Acquire)
    }

    pub(super) fn learn(run: impl FnOnce() -> PyResult<()>) -> PyResult<()> {
        if let Ok(mut l) = LEARNING.lock() {
            *l = Some(Trusted::default());
            LEARNING_NOW.store(true, Ordering::Release);
        }
        let result = run();
        LEARNING_NOW.store(false, Ordering::Release);
        let seen = LEARNING.lock().ok().and_then(|mut l| l.take());
        if let (Ok(()), Some(mut t)) = (&result, seen) {
            for v in [&mut t.receiver, &mut t.argument, &mut t.eval] {
                v.sort_unstable();
                v.dedup();
            }
            let _ = TRUSTED.set(t);
        }
        result
    }

    /// Address ranges, resolved once.
    struct Images {
        /// `[start, end)` of `_PyEval_EvalFrameDefault`.
        eval: (usize, usize),
        /// Start of `PyEval_EvalCode`, which runs the learning paths (0 if
        /// not found: then only `eval` is known).
        eval_code: usize,
        /// Executable segments of the interpreter's image (libpython or the
        /// `python` executable).
        python: Vec<(usize, usize)>,
        /// Executable segments of this extension.
        own: Vec<(usize, usize)>,
    }

    const MAX_FRAMES: usize = 64;
    /// `RTLD_DL_SYMENT` of glibc's `<dlfcn.h>` (not exported by `libc`).
    const RTLD_DL_SYMENT: libc::c_int = 1;

    fn images() -> Option<&'static Images> {
        static IMAGES: OnceLock<Option<Images>> = OnceLock::new();
        IMAGES.get_or_init(resolve).as_ref()
    }

    pub(super) fn available() -> Result<(), &'static str> {
        images()
            .map(|_| ())
            .ok_or("the interpreter's evaluation loop could not be located")
    }

    fn resolve() -> Option<Images> {
        let name = c"_PyEval_EvalFrameDefault";
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only
        // reads the loaded objects' symbol tables.
        let eval = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) } as usize;
        if eval == 0 {
            return None;
        }
        let mut info: libc::Dl_info = empty_dl_info();
        let mut sym: *const libc::Elf64_Sym = std::ptr::null();
        // SAFETY: `info` and `sym` are valid out-pointers; with
        // RTLD_DL_SYMENT dladdr1 stores a pointer to the ELF symbol (which
        // lives as long as the object stays loaded: libpython never unloads).
        let ok = unsafe {
            libc::dladdr1(
                eval as *const c_void,
                &mut info,
                (&mut sym as *mut *const libc::Elf64_Sym).cast(),
                RTLD_DL_SYMENT,
            )
        };
        if ok == 0 || sym.is_null() {
            return None;
        }
        // SAFETY: dladdr1 succeeded and set `sym` to a valid symbol entry.
        let size = unsafe { (*sym).st_size } as usize;
        if size == 0 {
            return None;
        }
        let name = c"PyEval_EvalCode";
        // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only
        // reads the loaded objects' symbol tables.
        let eval_code = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) } as usize;
        let own_marker = resolve as *const () as usize;
        let python = segments_containing(eval)?;
        let own = segments_containing(own_marker)?;
        Some(Images {
            eval: (eval, eval + size),
            eval_code,
            python,
            own,
        })
    }

    fn empty_dl_info() -> libc::Dl_info {
        libc::Dl_info {
            dli_fname: std::ptr::null(),
            dli_fbase: std::ptr::null_mut(),
            dli_sname: std::ptr::null(),
            dli_saddr: std::ptr::null_mut(),
        }
    }

    /// The executable segments of the loaded object that contains `addr`.
    fn segments_containing(addr: usize) -> Option<Vec<(usize, usize)>> {
        struct Search {
            addr: usize,
            found: Option<Vec<(usize, usize)>>,
        }
        unsafe extern "C" fn visit(
            info: *mut libc::dl_phdr_info,
            _size: libc::size_t,
            data: *mut c_void,
        ) -> libc::c_int {
            // SAFETY: dl_iterate_phdr passes a valid info pointer and the
            // `data` pointer we gave it, a live `Search`.
            let (info, search) = unsafe { (&*info, &mut *(data as *mut Search)) };
            let base = info.dlpi_addr as usize;
            let mut segs = Vec::new();
            for i in 0..info.dlpi_phnum as usize {
                // SAFETY: dlpi_phdr points to dlpi_phnum program headers.
                let ph = unsafe { &*info.dlpi_phdr.add(i) };
                if ph.p_type == libc::PT_LOAD && ph.p_flags & libc::PF_X != 0 {
                    let start = base + ph.p_vaddr as usize;
                    segs.push((start, start + ph.p_memsz as usize));
                }
            }
            if segs
                .iter()
                .any(|&(s, e)| search.addr >= s && search.addr < e)
            {
                search.found = Some(segs);
                return 1;
            }
            0
        }
        let mut search = Search { addr, found: None };
        // SAFETY: `visit` only reads the headers it is given and writes to
        // `search`, which outlives the call.
        unsafe { libc::dl_iterate_phdr(Some(visit), (&mut search as *mut Search).cast()) };
        search.found
    }

    fn within(ranges: &[(usize, usize)], a: usize) -> bool {
        ranges.iter().any(|&(s, e)| a >= s && a < e)
    }

    // The unwinder of libgcc_s, which Rust's standard library already links
    // on linux-gnu. `_Unwind_Backtrace` lets us stop at the first frame
    // that decides the answer instead of unwinding the whole stack as
    // glibc's `backtrace()` does.
    type UnwindContext = c_void;
    type TraceFn = unsafe extern "C" fn(ctx: *mut UnwindContext, arg: *mut c_void) -> libc::c_int;
    const URC_NO_REASON: libc::c_int = 0;
    const URC_NORMAL_STOP: libc::c_int = 4;
    unsafe extern "C" {
        fn _Unwind_Backtrace(trace: TraceFn, arg: *mut c_void) -> libc::c_int;
        fn _Unwind_GetIP(ctx: *mut UnwindContext) -> libc::uintptr_t;
        fn _Unwind_GetRegionStart(ctx: *mut UnwindContext) -> libc::uintptr_t;
    }

    struct Walk<'a> {
        images: &'a Images,
        /// The trusted functions, or `None` while learning them.
        trusted: Option<&'a [usize]>,
        /// The evaluation loop's learned code regions (none while learning).
        eval: &'a [usize],
        /// While learning: the walk came back to this extension (the code
        /// that runs the learning paths) without meeting `Images::eval`.
        home: bool,
        /// While learning: the interpreter functions this walk passed.
        seen: Vec<usize>,
        frames: usize,
        verdict: Option<bool>,
    }

    unsafe extern "C" fn step(ctx: *mut UnwindContext, arg: *mut c_void) -> libc::c_int {
        // SAFETY: `arg` is the `Walk` passed to _Unwind_Backtrace below,
        // alive and not otherwise borrowed during the walk; `ctx` is the
        // unwinder's context for this frame.
        let (walk, ip) = unsafe { (&mut *(arg as *mut Walk<'_>), _Unwind_GetIP(ctx)) };
        let im = walk.images;
        walk.frames += 1;
        // A return address may sit one past a call that ends its function,
        // hence the inclusive end of the evaluation loop's range.
        if ip > im.eval.0 && ip <= im.eval.1 {
            walk.verdict = Some(true);
        } else if !(within(&im.own, ip) || within(&im.python, ip)) || walk.frames >= MAX_FRAMES {
            walk.verdict = Some(false);
        } else if within(&im.python, ip) {
            // SAFETY: `ctx` is the unwinder's context for this frame.
            let start = unsafe { _Unwind_GetRegionStart(ctx) };
            match walk.trusted {
                _ if walk.eval.binary_search(&start).is_ok() => walk.verdict = Some(true),
                None => walk.seen.push(start),
                Some(t) if t.binary_search(&start).is_err() => walk.verdict = Some(false),
                Some(_) => {}
            }
        } else if walk.trusted.is_none() && !walk.seen.is_empty() {
            walk.home = true;
            walk.verdict = Some(false);
        }
        if walk.verdict.is_some() {
            URC_NORMAL_STOP
        } else {
            URC_NO_REASON
        }
    }

    /// True if the C stack, from here outwards, passes only through this
    /// extension and the interpreter before reaching the evaluation loop.
    pub(super) fn called_from_interpreter(role: Role) -> bool {
        let Some(images) = images() else { return false };
        let learning = learning();
        let (trusted, eval) = if learning {
            (None, &[][..])
        } else {
            // Before the trusted functions are known, trust nothing.
            let Some(t) = TRUSTED.get() else { return false };
            (Some(t.of(role)), &t.eval[..])
        };
        let mut walk = Walk {
            images,
            trusted,
            eval,
            home: false,
            seen: Vec::new(),
            frames: 0,
            verdict: None,
        };
        // SAFETY: `step` only reads the unwinder's context and writes to
        // `walk`, which outlives the call.
        unsafe { _Unwind_Backtrace(step, (&mut walk as *mut Walk<'_>).cast()) };
        // Back home, the walk has passed the operation's callers, the
        // evaluation loop running the learning paths, and the
        // `PyEval_EvalCode` that called it (and what called that): the
        // frame `PyEval_EvalCode` called is the evaluation loop, in a code
        // region its symbol does not cover.
        let mut eval_part = None;
        if learning && walk.home && images.eval_code != 0 {
            if let Some(j) = walk.seen.iter().position(|&s| s == images.eval_code) {
                if j > 0 {
                    eval_part = Some(walk.seen[j - 1]);
                    walk.seen.truncate(j - 1);
                    walk.verdict = Some(true);
                }
            }
        }
        if learning && walk.verdict == Some(true) {
            if let Ok(mut l) = LEARNING.lock() {
                if let Some(t) = l.as_mut() {
                    match role {
                        Role::Receiver => t.receiver.extend(&walk.seen),
                        Role::Argument => t.argument.extend(&walk.seen),
                    }
                    t.eval.extend(eval_part);
                }
            }
        }
        walk.verdict == Some(true)
    }
}

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

/// What a `Py_buffer` view of a tensor keeps alive until it is released:
/// the export (which pins the buffer and blocks donation and in-place
/// writes) and the shape and strides arrays the view points into.
struct ViewState {
    _guard: ExportGuard,
    shape: Vec<ffi::Py_ssize_t>,
    strides: Vec<ffi::Py_ssize_t>,
}

/// Fill `view` as a read-only, C-contiguous view of the exported buffer.
///
/// # Safety
/// `view` must be the valid, writable `Py_buffer` CPython passed to
/// `bf_getbuffer`, and `owner` the exporting object (a strong reference is
/// taken for `view.obj`). The caller must have rejected `PyBUF_WRITABLE`.
pub(crate) unsafe fn fill_view(
    view: *mut ffi::Py_buffer,
    owner: &Bound<'_, PyAny>,
    guard: ExportGuard,
    shape: &[usize],
    itemsize: usize,
    format: &'static CStr,
    flags: c_int,
) {
    let mut strides = vec![0 as ffi::Py_ssize_t; shape.len()];
    let mut acc = itemsize as ffi::Py_ssize_t;
    for i in (0..shape.len()).rev() {
        strides[i] = acc;
        acc *= shape[i] as ffi::Py_ssize_t;
    }
    let state = Box::new(ViewState {
        shape: shape.iter().map(|&d| d as ffi::Py_ssize_t).collect(),
        strides,
        _guard: guard,
    });
    let len = (state.shape.iter().product::<ffi::Py_ssize_t>()) * itemsize as ffi::Py_ssize_t;
    let buf = state._guard.as_ptr() as *mut c_void;
    let want = |f: c_int| flags & f == f;
    // SAFETY: the caller guarantees `view` is valid and writable; every
    // pointer stored in it stays valid until `release_view` frees `state`.
    unsafe {
        (*view).buf = buf;
        (*view).obj = owner.clone().into_ptr();
        (*view).len = len;
        (*view).readonly = 1;
        (*view).itemsize = itemsize as ffi::Py_ssize_t;
        (*view).format = if want(ffi::PyBUF_FORMAT) {
            format.as_ptr() as *mut _
        } else {
            std::ptr::null_mut()
        };
        (*view).ndim = shape.len() as c_int;
        (*view).shape = if want(ffi::PyBUF_ND) {
            state.shape.as_ptr() as *mut _
        } else {
            std::ptr::null_mut()
        };
        (*view).strides = if want(ffi::PyBUF_STRIDES) {
            state.strides.as_ptr() as *mut _
        } else {
            std::ptr::null_mut()
        };
        (*view).suboffsets = std::ptr::null_mut();
        (*view).internal = Box::into_raw(state) as *mut c_void;
    }
}

/// Free what [`fill_view`] stored; ends the export.
///
/// # Safety
/// `view` must be a view filled by [`fill_view`] and not yet released.
pub(crate) unsafe fn release_view(view: *mut ffi::Py_buffer) {
    // SAFETY: `internal` is the `Box<ViewState>` leaked by fill_view, taken
    // back exactly once (CPython calls bf_releasebuffer once per view).
    unsafe {
        let state = (*view).internal as *mut ViewState;
        if !state.is_null() {
            (*view).internal = std::ptr::null_mut();
            drop(Box::from_raw(state));
        }
    }
}

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
        "CALL"
            | "PRECALL"
            | "CALL_ADAPTIVE"
            | "PRECALL_ADAPTIVE"
            | "CALL_KW"
            | "CALL_NON_PY_GENERAL"
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
    let Ok(lasti) = usize::try_from(lasti) else {
        return false;
    };
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

//! Who may reuse a buffer: the implicit-donation switch, the `Donated`
//! wrapper for explicit donation, and turning a Python argument into an
//! operand with the right [`Offer`].
//!
//! | the operand is ...                              | its buffer              |
//! |-------------------------------------------------|-------------------------|
//! | a temporary (see [`ffi::is_temporary`])         | reused silently when it fits |
//! | `t.donate()`, or `self` of `t.<op>_donate()`     | reused when it fits and is exclusive; else copied with a `DonationWarning`; `t` is donated only if reused |
//! | anything else (a name, a container item, an argument of a Python function) | never written |

// PyO3 expands the class's `#[pymethods]` (generated from the tables
// below by `macro_rules!`) into slot functions at module level that call
// its own `unsafe fn`s without an `unsafe` block; inside a macro expansion
// the crate's `unsafe_op_in_unsafe_fn = deny` reaches that generated code.
// Hand-written `unsafe` here still goes in `unsafe {}` blocks with a
// `// SAFETY:` comment (clippy's `undocumented_unsafe_blocks`).
#![allow(unsafe_op_in_unsafe_fn)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use pyo3::prelude::*;

use super::errors::{DonatedError, IntoPyResult};
use super::ffi;
use super::interop;
use super::operands::{call, lock, Input, Source};
use super::tensor::PyTensor;
use crate::plan::{Offer, Op};
use crate::{BinaryOp, DType, DynTensor, Scalar, UnaryOp};

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
    match ffi::temporary_check() {
        Ok(how) => (true, how),
        Err(why) => (false, why),
    }
}

/// The paths that pass temporaries, run at import so that the temporary
/// check learns which interpreter functions they go through (see
/// [`ffi::learn_trusted_callers`]). Each line runs often enough for the
/// interpreter to specialise it, so both forms are seen. `m` is this
/// module.
const TEMPORARY_PATHS: &std::ffi::CStr = c"
t = m.zeros(4)
s = m.zeros((2, 2))
for _ in range(64):
    (t * 1).relu(); (t * 1).sum(); (t * 1).sum(axis=0); (t * 1).softmax(axis=-1)
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
    let before = crate::stats::memory_stats();
    let learned = ffi::learn_trusted_callers(|| py.run(TEMPORARY_PATHS, Some(&globals), None));
    drop(globals); // frees the tensors the paths made
    crate::stats::restore_counters(&before);
    learned
}

/// Whether this tensor object, as the caller passed it, may be reused.
pub(crate) fn offer_of(obj: &Bound<'_, PyAny>, nbytes: usize, role: ffi::Role) -> Offer {
    let wanted = IMPLICIT.load(Ordering::Relaxed) && nbytes >= MIN_BYTES.load(Ordering::Relaxed);
    if (wanted || ffi::learning()) && ffi::is_temporary(obj, role) {
        Offer::Temporary
    } else {
        Offer::Borrowed
    }
}

/// `self` of a method as an operand (checked before any new reference to
/// it exists).
pub(crate) fn self_input<'py>(slf: &Bound<'py, PyTensor>) -> Input<'py> {
    let me = slf.get();
    let offer = offer_of(
        slf.as_any(),
        me.shape.iter().product::<usize>() * me.dtype.size(),
        ffi::Role::Receiver,
    );
    Input::new(Source::Tensor(slf.clone()), offer)
}

/// `self` of an explicit-donation method.
pub(crate) fn donated_self<'py>(slf: &Bound<'py, PyTensor>) -> Input<'py> {
    Input::new(Source::Tensor(slf.clone()), Offer::Donated)
}

/// Any operand argument: a tensor, a `Donated` wrapper, a Python number,
/// or array-like data (converted into a new tensor). `Ok(None)` for other
/// types, so that operators can return `NotImplemented`.
pub(crate) fn input_from<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<Input<'py>>> {
    let py = obj.py();
    // The temporary check must come first: nothing may take a reference
    // to `obj` before it.
    if let Ok(t) = obj.cast::<PyTensor>() {
        let me = t.get();
        let offer = offer_of(
            obj,
            me.shape.iter().product::<usize>() * me.dtype.size(),
            ffi::Role::Argument,
        );
        return Ok(Some(Input::new(Source::Tensor(t.clone()), offer)));
    }
    if let Ok(d) = obj.cast::<PyDonated>() {
        let t = d.get().consume(py)?;
        return Ok(Some(Input::new(Source::Tensor(t), Offer::Donated)));
    }
    // NumPy scalars first: `numpy.float64` subclasses `float`, but NumPy
    // scalars are strongly typed (NEP 50), not weak like Python numbers.
    let numpy_like = interop::is_numpy(py, obj)?;
    if !numpy_like {
        if let Some(s) = interop::scalar_arg(obj)? {
            return Ok(Some(Input::new(Source::Scalar(s), Offer::Borrowed)));
        }
    }
    let array_like = numpy_like
        || obj.is_instance_of::<pyo3::types::PyList>()
        || obj.is_instance_of::<pyo3::types::PyTuple>();
    if array_like {
        let (t, had) = interop::to_operand(py, obj, numpy_like)?;
        return Ok(Some(Input::new(Source::Temp(t, had), Offer::Temporary)));
    }
    Ok(None)
}

/// Like [`input_from`], but a `TypeError` for unsupported types.
pub(crate) fn require_input<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Input<'py>> {
    match input_from(obj)? {
        Some(i) => Ok(i),
        None => Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{what}: expected a Tensor, a Donated tensor, a number or array-like data, not {}",
            obj.get_type().name()?
        ))),
    }
}

/// An operand that must be a tensor (every operation but the element-wise
/// binary ones, where a Python number stays a weak scalar): as
/// [`require_input`], but a Python number becomes a 0-d tensor of NumPy's
/// dtype for it (float64, int64), as `np.sum(3)` and `np.exp(1.0)` do.
pub(crate) fn require_tensor<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Input<'py>> {
    let input = require_input(obj, what)?;
    match input.src {
        Source::Scalar(s) => {
            let dtype = match s {
                Scalar::Int(_) => DType::I64,
                Scalar::Float(_) => DType::F64,
            };
            let t = DynTensor::full(dtype, &[], s).py()?;
            Ok(Input::new(Source::Temp(t, dtype.into()), Offer::Temporary))
        }
        _ => Ok(input),
    }
}

/// A tensor marked for explicit donation: `t.donate()`. The first
/// operation it is passed to may write its result into `t`'s buffer,
/// leaving `t` donated; if the buffer cannot be used (shared, exported,
/// wrong shape or dtype), `t` stays intact and a `DonationWarning` says
/// why. A wrapper can be used once.
#[pyclass(module = "donate", name = "Donated", frozen)]
pub(crate) struct PyDonated {
    tensor: Py<PyTensor>,
    used: AtomicBool,
}

impl PyDonated {
    pub(crate) fn new(tensor: Py<PyTensor>) -> Self {
        PyDonated {
            tensor,
            used: AtomicBool::new(false),
        }
    }

    /// Hand out the tensor once.
    fn consume<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTensor>> {
        if self.used.swap(true, Ordering::AcqRel) {
            return Err(DonatedError::new_err(
                "this Donated wrapper was already used by an operation; call .donate() on a live tensor again",
            ));
        }
        Ok(self.tensor.bind(py).clone())
    }

    fn input<'py>(&self, py: Python<'py>) -> PyResult<Input<'py>> {
        Ok(Input::new(Source::Tensor(self.consume(py)?), Offer::Donated))
    }
}

/// `Donated`'s methods, the operators from one table.
macro_rules! donated_methods {
    (operators: [$($f:ident, $r:ident => $op:ident),* $(,)?]; $($rest:tt)*) => {
        #[pymethods]
        impl PyDonated {
            $(
            fn $f(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                super::ops::binary_dunder(self.input(other.py())?, other, BinaryOp::$op, false)
            }
            fn $r(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                super::ops::binary_dunder(self.input(other.py())?, other, BinaryOp::$op, true)
            }
            )*
            $($rest)*
        }
    };
}

donated_methods! {
    operators: [
        __add__, __radd__ => Add, __sub__, __rsub__ => Sub, __mul__, __rmul__ => Mul,
        __truediv__, __rtruediv__ => Div,
    ];
    /// NumPy must not treat the wrapper as an array: `ndarray + t.donate()`
    /// defers to `Donated.__radd__`.
    #[classattr]
    #[allow(non_upper_case_globals)]
    const __array_ufunc__: Option<bool> = None;

    /// Whether an operation already took this wrapper.
    #[getter]
    fn used(&self) -> bool {
        self.used.load(Ordering::Acquire)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let t = self.tensor.bind(py).get();
        let g = lock(py, &t.slot);
        let state = if self.used.load(Ordering::Acquire) {
            "used"
        } else if g.is_donated() {
            "consumed"
        } else {
            "pending"
        };
        Ok(format!(
            "Donated(shape={:?}, dtype={}, {state})",
            t.shape, t.dtype
        ))
    }

    fn __matmul__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        super::ops::matmul_dunder(self.input(other.py())?, other, false)
    }
    fn __rmatmul__(&self, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        super::ops::matmul_dunder(self.input(other.py())?, other, true)
    }
    fn __neg__(&self, py: Python<'_>) -> PyResult<PyTensor> {
        call(py, Op::Unary(UnaryOp::Neg), vec![self.input(py)?])
    }
    fn __abs__(&self, py: Python<'_>) -> PyResult<PyTensor> {
        call(py, Op::Unary(UnaryOp::Abs), vec![self.input(py)?])
    }
}

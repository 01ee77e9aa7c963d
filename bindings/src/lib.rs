//! Python bindings: the extension module `donate._core`, a crate of its own
//! over the core's public API (`donate`), which it only translates.
//!
//! # Ownership rules, as Python sees them
//!
//! A `Tensor` object holds one handle on a buffer. What an operation does
//! with an operand's buffer depends on how the operand was passed:
//!
//! | operand                                    | buffer is ...                                   |
//! |--------------------------------------------|-------------------------------------------------|
//! | a temporary (`(a + b).relu()`)             | reused for the result when shape and dtype fit (implicit donation) |
//! | `t.donate()`, `t.relu_donate()`            | reused if exclusive, and `t` becomes donated; otherwise copied with a `DonationWarning`, `t` intact |
//! | a name, a container item, a function argument | never written                                |
//! | `self` of `relu_()`, `+=`, `t[i] = v`      | written in place; through into a shared buffer, which its views see |
//!
//! A *temporary* is an object that only the interpreter's evaluation stack
//! refers to; [`temporary`] explains how that is decided on each CPython
//! version. A buffer with a live exported view (`t.numpy()`, `memoryview`)
//! or another handle (`t.reshape(...)`) is never donated (donation copies
//! with a warning); in-place ops write through into it, so every view sees
//! the change, as NumPy's do (`donate::driver::call`, "Writes through views").
//!
//! Modules, in layers (each uses only the ones before it; no cycle,
//! `scripts/module-cycles.py` checks it):
//!
//! 1. [`errors`] (the one mapping of core errors to exceptions and of
//!    refusals to warnings), [`tracing`] (what a tracer refers to, the
//!    trace running on each thread, `TracerError`s);
//! 2. [`tensor`] (the `Tensor` and `Donated` classes' data: a slot, a
//!    shape, a dtype, a tracer; reading a handle);
//! 3. [`interop`] (NumPy and Python conversions), [`conversions`] (a
//!    tensor to NumPy and Python values), [`buffer_view`] (the buffer
//!    protocol), [`temporary`] (which operands are temporaries, on each
//!    CPython), [`inputs`] (an operation's operands: where each comes
//!    from, how offered, its description for planning);
//! 4. [`ownership`] (Python objects to operands), [`jit`] (operations on
//!    tracers recorded into a program; running a planned program and what
//!    a donated argument gives up at call time), [`operands`] (the one
//!    call sequence: describe, plan, warn, claim and execute);
//! 5. [`ops`] and the namespace's functions ([`functions`],
//!    [`elementwise`], [`manipulation`], [`searching`], [`statistics`],
//!    [`linalg`], [`fft`], [`array_api`], [`dlpack`], [`arena`], [`timeline`]);
//! 6. [`methods`] (the classes' methods, each a translation to 5).
//!
//! Every shape, dtype and donation rule is the core's ([`donate::plan`]);
//! this crate uses only the core's public API.
//!
//! # Python objects and detached code
//!
//! pyo3's deferred reference counts are compiled out (`.cargo/config.toml`:
//! `pyo3_disable_reference_pool`, `pyo3_leak_on_drop_without_reference_pool`),
//! which saves an atomic check at every call from Python. The price is a
//! rule: a `Py<T>` must never be dropped by a thread that is not attached
//! to the interpreter (it would be leaked). So Python objects are held only
//! by `#[pyclass]` fields (dropped with their object, attached) and by
//! process-wide `PyOnceLock` statics; code run by [`arena::detach`], and
//! anything the core keeps (buffers, handles, deleters), holds core values
//! only, never a `Py<T>` or a `PyErr`. Errors cross back as core errors and
//! become exceptions after the thread is attached again.

mod arena;
mod array_api;
mod buffer_view;
mod conversions;
mod dlpack;
mod donated_methods;
mod elementwise;
mod errors;
mod fft;
mod functions;
mod inputs;
mod interop;
mod iteration;
mod jit;
mod linalg;
mod manipulation;
mod methods;
mod operands;
mod ops;
mod ownership;
mod searching;
mod statistics;
mod temporary;
mod tensor;
mod timeline;
mod tracing;

use pyo3::prelude::*;

// On a free-threaded interpreter, importing donate turns the GIL back on:
// the module's thread safety without the GIL (the slot locks, the donor
// gates, the temporary check on 3.14t) has not been run there yet (no
// free-threaded CPython could be built on the test machines; see
// docs/promises.md, "Versions checked"). Declare `gil_used = false` once the thread
// suites pass on 3.14t.
#[pymodule(gil_used = true)]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    temporary::init_from_env();
    arena::install();
    m.add_class::<tensor::PyTensor>()?;
    m.add_class::<tensor::PyDonated>()?;
    m.add_class::<arena::PyArena>()?;
    m.add("DonatedError", py.get_type::<errors::DonatedError>())?;
    m.add("DonationWarning", py.get_type::<errors::DonationWarning>())?;
    m.add("AxisError", errors::axis_error(py)?)?;
    m.add("ShapeError", errors::shape_error(py)?)?;
    m.add("TracerError", py.get_type::<errors::TracerError>())?;
    m.add_class::<jit::PyTrace>()?;
    m.add_class::<jit::PyProgram>()?;
    m.add_class::<jit::PyLowered>()?;
    m.add_class::<jit::PyMemoryAnalysis>()?;
    m.add_class::<timeline::PyTimeline>()?;
    m.add("ISA", donate::Isa::active().name())?;
    // The core's default float, for the array API's inspection namespace.
    m.add(
        "_DEFAULT_FLOAT",
        interop::np_dtype(py, donate::DType::DEFAULT_FLOAT),
    )?;
    m.add_function(wrap_pyfunction!(ownership::_is_plain_array_like, m)?)?;
    m.add_function(wrap_pyfunction!(functions::tensor, m)?)?;
    m.add_function(wrap_pyfunction!(functions::asarray, m)?)?;
    m.add_function(wrap_pyfunction!(functions::from_numpy, m)?)?;
    m.add_function(wrap_pyfunction!(dlpack::from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(functions::zeros, m)?)?;
    m.add_function(wrap_pyfunction!(functions::ones, m)?)?;
    m.add_function(wrap_pyfunction!(functions::empty, m)?)?;
    m.add_function(wrap_pyfunction!(functions::full, m)?)?;
    m.add_function(wrap_pyfunction!(functions::arange, m)?)?;
    m.add_function(wrap_pyfunction!(functions::relu, m)?)?;
    m.add_function(wrap_pyfunction!(functions::maximum, m)?)?;
    m.add_function(wrap_pyfunction!(functions::minimum, m)?)?;
    m.add_function(wrap_pyfunction!(functions::neg, m)?)?;
    m.add_function(wrap_pyfunction!(functions::negative, m)?)?;
    m.add_function(wrap_pyfunction!(functions::add, m)?)?;
    m.add_function(wrap_pyfunction!(functions::subtract, m)?)?;
    m.add_function(wrap_pyfunction!(functions::multiply, m)?)?;
    m.add_function(wrap_pyfunction!(functions::divide, m)?)?;
    m.add_function(wrap_pyfunction!(functions::abs, m)?)?;
    m.add_function(wrap_pyfunction!(functions::exp, m)?)?;
    m.add_function(wrap_pyfunction!(functions::log, m)?)?;
    m.add_function(wrap_pyfunction!(functions::sqrt, m)?)?;
    m.add_function(wrap_pyfunction!(functions::tanh, m)?)?;
    m.add_function(wrap_pyfunction!(functions::sigmoid, m)?)?;
    m.add_function(wrap_pyfunction!(functions::gelu, m)?)?;
    m.add_function(wrap_pyfunction!(functions::softmax, m)?)?;
    m.add_function(wrap_pyfunction!(functions::layer_norm, m)?)?;
    m.add_function(wrap_pyfunction!(functions::conv2d, m)?)?;
    m.add_function(wrap_pyfunction!(functions::batch_norm, m)?)?;
    m.add_function(wrap_pyfunction!(functions::matmul, m)?)?;
    m.add_function(wrap_pyfunction!(functions::addmm, m)?)?;
    m.add_function(wrap_pyfunction!(
        functions::scaled_dot_product_attention,
        m
    )?)?;
    m.add_function(wrap_pyfunction!(functions::memory_stats, m)?)?;
    m.add_function(wrap_pyfunction!(functions::reset_peak_memory, m)?)?;
    m.add_function(wrap_pyfunction!(functions::arena, m)?)?;
    m.add_function(wrap_pyfunction!(temporary::set_implicit_donation, m)?)?;
    m.add_function(wrap_pyfunction!(temporary::implicit_donation_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(temporary::implicit_donation_min_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(temporary::temporary_check, m)?)?;
    elementwise::register(m)?;
    array_api::register(m)?;
    manipulation::register(m)?;
    statistics::register(m)?;
    searching::register(m)?;
    linalg::register(m)?;
    fft::register(m)?;
    temporary::learn_temporary_paths(m)?;
    Ok(())
}

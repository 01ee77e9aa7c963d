//! DLPack, both ways, through NumPy (whose implementation of the protocol
//! is the field's reference: versions, strides, dtypes, the capsules and
//! their deleters):
//!
//! * **Export** (`t.__dlpack__()`): the capsule of a read-only NumPy view
//!   of the tensor. The view holds an export of the buffer (as
//!   `t.numpy()` does), so while a consumer holds the capsule or what it
//!   made from it, the tensor is not exclusive: a donation copies with a
//!   warning; in-place ops write through (the consumer sees them, read
//!   only). When the consumer's deleter
//!   runs (or a capsule nobody consumed is destroyed), the export ends.
//!   A consumer asking for DLPack ≥ 1.0 gets the versioned capsule with the
//!   read-only flag. The legacy capsule cannot say "read-only", and a
//!   consumer may write through it, so a legacy request gets a copy.
//! * **Import** (`donate.from_dlpack(x)`): `numpy.from_dlpack(x)`, then a
//!   copy into a buffer the new tensor owns (and may donate). donate
//!   tensors own their buffers, so a foreign buffer is never written or
//!   donated, and `copy=False` raises.

use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::interop;
use super::tensor::PyTensor;

/// DLPack's device type of the CPU (`kDLCPU`).
const KDL_CPU: i32 = 1;

/// `t.__dlpack__(stream=None, max_version=None, dl_device=None, copy=None)`.
pub(crate) fn export<'py>(
    slf: &Bound<'py, PyTensor>,
    stream: Option<&Bound<'py, PyAny>>,
    max_version: Option<(u32, u32)>,
    dl_device: Option<(i32, i32)>,
    copy: Option<bool>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = slf.py();
    if stream.is_some_and(|s| !s.is_none()) {
        return Err(PyValueError::new_err("__dlpack__: donate tensors live on the CPU, which has no streams (stream must be None)"));
    }
    if let Some(d) = dl_device.filter(|&d| d != (KDL_CPU, 0)) {
        return Err(PyBufferError::new_err(format!(
            "__dlpack__: donate tensors live on the CPU (device (1, 0)), not device {d:?}"
        )));
    }
    let versioned = max_version.is_some_and(|(major, _)| major >= 1);
    if copy == Some(false) && !versioned {
        return Err(PyBufferError::new_err(
            "__dlpack__: the legacy (unversioned) capsule cannot mark the data read-only, so it is always a copy; \
             ask for max_version=(1, 0) to share the buffer",
        ));
    }
    let view = slf.call_method0("numpy")?;
    let kwargs = PyDict::new(py);
    if versioned {
        kwargs.set_item("max_version", max_version)?;
    }
    let source = if copy == Some(true) || !versioned {
        view.call_method0("copy")?
    } else {
        view
    };
    source.call_method("__dlpack__", (), Some(&kwargs))
}

/// `t.__dlpack_device__()`: the CPU.
pub(crate) fn device(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(py, [KDL_CPU, 0])
}

/// `donate.from_dlpack(x, *, copy=None)`.
#[pyfunction]
#[pyo3(signature = (x, *, device = None, copy = None))]
pub(crate) fn from_dlpack<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    device: Option<&Bound<'py, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Bound<'py, PyAny>> {
    super::array_api::check_device(device)?;
    if let Ok(t) = x.cast::<PyTensor>() {
        return if copy == Some(true) {
            Ok(Bound::new(py, PyTensor::copy(t)?)?.into_any())
        } else {
            Ok(t.clone().into_any())
        };
    }
    if x.is_instance_of::<super::tensor::PyDonated>() {
        // A donated donate tensor: its buffer moves into the result (the
        // planned view op with the same shape; a refused donation gives a
        // view and a DonationWarning, as every op does).
        let input = super::ownership::require_tensor(x, "from_dlpack")?;
        let shape = input.shape().iter().map(|&d| d as i64).collect();
        let r = super::operands::call(
            py,
            &donate::plan::Op::Reshape { shape },
            smallvec::smallvec![input],
        )?;
        return Ok(Bound::new(py, r)?.into_any());
    }
    if copy == Some(false) {
        return Err(PyBufferError::new_err(
            "from_dlpack(copy=False): donate tensors own their buffers, so another library's data is always copied",
        ));
    }
    let arr = interop::numpy(py)?.call_method1("from_dlpack", (x,))?;
    Ok(Bound::new(py, PyTensor::new(interop::to_tensor(py, &arr, None)?))?.into_any())
}

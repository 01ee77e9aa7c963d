//! The array API standard's parts of the Tensor class and of the module
//! that only translate: `__array_namespace__`, `device`, `to_device`,
//! `mT`, `__index__`, and the dtype queries `result_type` and `can_cast`,
//! which ask the core's promotion table ([`DType::promote`]).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use smallvec::smallvec;

use super::errors::IntoPyResult;
use super::interop::{self, np_dtype};
use super::operands::call;
use super::ownership::self_input;
use super::tensor::PyTensor;
use donate::plan::{Op, OperandDesc};
use donate::DType;

/// The one device: the CPU.
const DEVICE: &str = "cpu";

// `device` and `__array_namespace__` answer the same for every tensor,
// but a Python method needs its receiver.
#[allow(clippy::unused_self)]
#[pymethods]
impl PyTensor {
    /// The array API namespace of this tensor: the `donate` module.
    #[pyo3(signature = (*, api_version = None))]
    fn __array_namespace__<'py>(
        &self,
        py: Python<'py>,
        api_version: Option<&str>,
    ) -> PyResult<Bound<'py, PyModule>> {
        if let Some(v) = api_version {
            if !["2021.12", "2022.12", "2023.12", "2024.12"].contains(&v) {
                return Err(PyValueError::new_err(format!(
                    "unsupported array API version {v:?} (donate implements 2024.12)"
                )));
            }
        }
        py.import("donate")
    }

    /// The device the data lives on: always `"cpu"`.
    #[getter]
    fn device(&self) -> &'static str {
        DEVICE
    }

    /// This tensor on `device`: itself, as `"cpu"` is the only device.
    #[pyo3(signature = (device, /, *, stream = None))]
    fn to_device<'py>(
        slf: Bound<'py, Self>,
        device: &Bound<'py, PyAny>,
        stream: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        if stream.is_some_and(|s| !s.is_none()) {
            return Err(PyValueError::new_err(
                "to_device: streams are not supported on the CPU",
            ));
        }
        check_device(Some(device))?;
        Ok(slf)
    }

    /// The matrix transpose (the last two axes swapped), a view sharing
    /// this buffer.
    #[getter(mT)]
    fn m_t(slf: &Bound<'_, Self>) -> PyResult<PyTensor> {
        let axes =
            donate::functions::manipulation::matrix_transpose_perm(slf.get().ndim_of()).py()?;
        call(
            slf.py(),
            &Op::Permute { axes: Some(axes) },
            smallvec![self_input(slf)],
        )
    }

    /// A 0-d tensor as a Python complex (of a real tensor, its imaginary
    /// part 0).
    fn __complex__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.get().check_traced("complex()")?;
        let v = super::conversions::scalar(slf, "complex")?;
        v.py().get_type::<pyo3::types::PyComplex>().call1((v,))
    }

    /// A 0-d integer tensor as a Python int (`operator.index`; as
    /// NumPy's, only 0-d: a one-element 1-d tensor in an index is an
    /// array index, which keeps its axis).
    fn __index__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let (d, nd) = (slf.get().dtype, slf.get().ndim_of());
        if !d.is_int() || nd != 0 {
            return Err(PyTypeError::new_err(format!(
                "only 0-d integer tensors can be used as an index, not a {nd}-d {d} tensor"
            )));
        }
        slf.call_method0("__int__")
    }
}

impl PyTensor {
    fn ndim_of(&self) -> usize {
        self.shape.len()
    }
}

/// A `device=` argument: `None` or `"cpu"`.
pub(crate) fn check_device(device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    match device {
        Some(d) if !d.is_none() && d.extract::<String>().ok().as_deref() != Some(DEVICE) => Err(
            PyValueError::new_err(format!("unsupported device {d}; donate has only \"cpu\"")),
        ),
        _ => Ok(()),
    }
}

/// The dtype of one argument of `result_type`/`can_cast`: a tensor's, an
/// array's, or a dtype.
fn dtype_of(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(t) = x.cast::<PyTensor>() {
        return Ok(t.get().dtype);
    }
    let d = if x.hasattr("dtype")? && !x.is_instance_of::<pyo3::types::PyType>() {
        x.getattr("dtype")?
    } else {
        x.clone()
    };
    interop::dtype_arg(py, Some(&d))?
        .ok_or_else(|| PyTypeError::new_err("expected a tensor, an array or a dtype"))
}

/// The dtype the arguments (tensors, arrays, dtypes, Python numbers)
/// promote to, as an element-wise operation decides it: NumPy's table,
/// Python numbers weak (NEP 50).
#[pyfunction]
#[pyo3(signature = (*arrays_and_dtypes))]
pub(crate) fn result_type<'py>(
    py: Python<'py>,
    arrays_and_dtypes: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut descs = Vec::with_capacity(arrays_and_dtypes.len());
    for x in arrays_and_dtypes.iter() {
        descs.push(match interop::scalar_arg(&x)? {
            Some(s) => OperandDesc::scalar(s),
            None => OperandDesc::tensor(dtype_of(py, &x)?, &[]),
        });
    }
    if descs.is_empty() {
        return Err(PyValueError::new_err(
            "result_type needs at least one array or dtype",
        ));
    }
    let d = donate::plan::result_type(&descs).py()?;
    Ok(np_dtype(py, d).into_any())
}

/// Whether `from_` converts to `to` without changing a value class NumPy
/// calls "safe": `to` is what `from_` and `to` promote to.
#[pyfunction]
#[pyo3(signature = (from_, to, /))]
pub(crate) fn can_cast(
    py: Python<'_>,
    from_: &Bound<'_, PyAny>,
    to: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    let (f, t) = (dtype_of(py, from_)?, dtype_of(py, to)?);
    Ok(DType::promote(f, t) == t)
}

/// `_check_device(device)`: a `ValueError` unless `device` is `None` or
/// `"cpu"` (for the Python helpers of the namespace).
#[pyfunction]
#[pyo3(name = "_check_device", signature = (device = None))]
fn check_device_py(device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    check_device(device)
}

/// Register the module functions.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check_device_py, m)?)?;
    m.add_function(wrap_pyfunction!(result_type, m)?)?;
    m.add_function(wrap_pyfunction!(can_cast, m)?)?;
    Ok(())
}

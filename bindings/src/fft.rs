//! The `fft` extension's transforms and frequencies as two private
//! module functions: `python/donate/fft.py` gives each public function
//! its signature and docstring and passes its arguments here unchanged.
//! The core ([`donate::functions::fft`]) decides every length, axis,
//! dtype and error; each transform is a planned operation
//! ([`FftOp`]) that writes a new buffer (a donated input is refused with
//! a `DonationWarning`), and `donate.jit` traces it.

use pyo3::prelude::*;

use super::array_api::check_device;
use super::errors::IntoPyResult;
use super::interop::dtype_arg;
use super::operands::call_fresh1;
use super::tensor::PyTensor;
use donate::functions::fft::{frequencies, FftKind, FftNorm, FftOp};
use donate::plan::FreshOp;
use donate::DType;

/// `_fft(x, kind, s, axes, norm, nd)`: the transform `kind` (`"fft"`,
/// `"ifft"`, `"rfft"`, `"irfft"`, `"hfft"`, `"ihfft"`) over `axes` with
/// lengths `s`, over several axes when `nd`.
#[pyfunction]
#[pyo3(signature = (x, kind, s, axes, norm, nd))]
pub(crate) fn _fft(
    x: &Bound<'_, PyAny>,
    kind: &str,
    s: Option<Vec<i64>>,
    axes: Option<Vec<isize>>,
    norm: &str,
    nd: bool,
) -> PyResult<PyTensor> {
    let kind = match kind {
        "fft" => FftKind::Fft,
        "ifft" => FftKind::Ifft,
        "rfft" => FftKind::Rfft,
        "irfft" => FftKind::Irfft,
        "hfft" => FftKind::Hfft,
        "ihfft" => FftKind::Ihfft,
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "fft: no transform {kind:?}"
            )))
        }
    };
    let norm = FftNorm::parse(norm).py()?;
    let op = FftOp {
        kind,
        nd,
        s,
        axes,
        norm,
    };
    call_fresh1(x, FreshOp::Fft(op))
}

/// `_fftfreq(n, d, dtype, device, rfft)`: `fftfreq` or `rfftfreq`.
#[pyfunction]
#[pyo3(signature = (n, d, dtype, device, rfft))]
pub(crate) fn _fftfreq(
    py: Python<'_>,
    n: i64,
    d: f64,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    rfft: bool,
) -> PyResult<PyTensor> {
    check_device(device)?;
    let dtype = dtype_arg(py, dtype)?.unwrap_or(DType::DEFAULT_FLOAT);
    Ok(PyTensor::new(frequencies(n, d, dtype, rfft).py()?))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fft, m)?)?;
    m.add_function(wrap_pyfunction!(_fftfreq, m)?)?;
    Ok(())
}

//! The array API's `fft` extension (`donate.fft`): discrete Fourier
//! transforms of complex and real data along one or several axes, as one
//! family of planned operations ([`crate::plan::FreshOp::Fft`]).
//!
//! # The model
//!
//! Every transform is a sequence of *steps*, each along one axis: a
//! complex-to-complex transform (`fft`, `ifft`, the axes of `fftn` ...), a
//! real-to-complex one (`rfft`: the `n // 2 + 1` non-negative
//! frequencies) or a complex-to-real one (`irfft`: the Hermitian spectrum
//! completed, then transformed). Before a step the axis is cut or padded
//! with zeros to the step's length `n`; after it the result is scaled by
//! the `norm`'s factor (`"backward"`: `1/n` on the inverse,
//! `"ortho"`: `1/sqrt(n)` both ways, `"forward"`: `1/n` on the forward).
//! [`FftOp::steps`] derives the steps from the operand's shape alone, so
//! the signature step (what a tracer knows) and the run step take one
//! answer from one function.
//!
//! The multi-axis transforms follow NumPy: `rfftn` runs `rfft` over the
//! last of its axes first and the complex transform over the others;
//! `irfftn` the inverse complex transforms first and `irfft` over the last
//! axis; `hfft(x) = irfft(conj(x))` and `ihfft(x) = conj(rfft(x))` with
//! the `norm` swapped (backward <-> forward).
//!
//! # Dtypes
//!
//! A transform computes in the precision of its input: float32 and
//! complex64 in complex64, float64 and complex128 in complex128. Integer
//! and boolean inputs compute in float64 (NumPy's rule; the standard asks
//! for floating-point inputs and leaves the rest unspecified). The
//! complex-to-complex transforms read a real input as complex (NumPy's);
//! `rfft`, `rfftn` and `ihfft` refuse a complex input (`TypeError`, as
//! NumPy 2), since the imaginary part would be lost. The planner casts
//! the operand into the dtype a transform reads ([`FftOp::read_dtype`])
//! before the transform runs.
//!
//! # Limitations
//!
//! Working memory: a transform over one axis writes its result's buffer
//! directly, through a working buffer of about a megabyte (a group of
//! lines; see `transform.rs`); one over several axes also holds each
//! intermediate result in a `Vec`. Neither is a tracked buffer, so the
//! memory statistics and a traced program's plan do not count them. The
//! transforms run on one thread.

mod transform;

use crate::array::dyn_tensor::{DynTensor, Meta};
use crate::array::element::DType;
use crate::array::shape::normalize_axis;
use crate::error::{Error, Result};
use crate::py_repr::tuple;

/// Which transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FftKind {
    /// Complex to complex, forward (`fft`, `fftn`).
    Fft,
    /// Complex to complex, inverse (`ifft`, `ifftn`).
    Ifft,
    /// Real to complex, forward (`rfft`, `rfftn`).
    Rfft,
    /// Complex (Hermitian) to real, inverse (`irfft`, `irfftn`).
    Irfft,
    /// A Hermitian-symmetric signal's real spectrum (`hfft`).
    Hfft,
    /// The inverse of `hfft` (`ihfft`).
    Ihfft,
}

/// The `norm=` of a transform: which direction is scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FftNorm {
    /// `1/n` on the inverse transform (the default).
    Backward,
    /// `1/sqrt(n)` both ways.
    Ortho,
    /// `1/n` on the forward transform.
    Forward,
}

impl FftNorm {
    /// `"backward"`, `"ortho"` or `"forward"`.
    pub fn parse(s: &str) -> Result<FftNorm> {
        match s {
            "backward" => Ok(FftNorm::Backward),
            "ortho" => Ok(FftNorm::Ortho),
            "forward" => Ok(FftNorm::Forward),
            _ => Err(Error::InvalidArgument {
                op: "fft",
                reason: format!("norm must be \"backward\", \"ortho\" or \"forward\", got {s:?}"),
            }),
        }
    }

    fn name(self) -> &'static str {
        match self {
            FftNorm::Backward => "backward",
            FftNorm::Ortho => "ortho",
            FftNorm::Forward => "forward",
        }
    }

    /// The other direction's norm (`hfft`/`ihfft` are `irfft`/`rfft` with
    /// the norm swapped).
    fn swapped(self) -> FftNorm {
        match self {
            FftNorm::Backward => FftNorm::Forward,
            FftNorm::Ortho => FftNorm::Ortho,
            FftNorm::Forward => FftNorm::Backward,
        }
    }

    /// The factor of a step of length `n` in direction `forward`.
    fn scale(self, n: usize, forward: bool) -> f64 {
        match (self, forward) {
            (FftNorm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            (FftNorm::Backward, false) | (FftNorm::Forward, true) => 1.0 / n as f64,
            (FftNorm::Backward, true) | (FftNorm::Forward, false) => 1.0,
        }
    }
}

/// A transform with its parameters. One operand: `[x]`.
#[derive(Debug, Clone, PartialEq)]
pub struct FftOp {
    pub kind: FftKind,
    /// Over several axes (`fftn`, `rfftn` ...) rather than one.
    pub nd: bool,
    /// The lengths (`n` of the one-axis functions, `s` of the others);
    /// `-1` or `None`: the input's (or, for the last axis of `irfft`, `2 *
    /// (m - 1)`).
    pub s: Option<Vec<i64>>,
    /// The axes (`axis` of the one-axis functions); `None`: the last
    /// `len(s)` axes, or every axis.
    pub axes: Option<Vec<isize>>,
    pub norm: FftNorm,
}

/// What one step does along its axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepKind {
    /// Complex to complex, forward or inverse.
    Complex { forward: bool },
    /// Real to complex (forward): `n // 2 + 1` values out.
    RealToComplex,
    /// Complex (Hermitian) to real (inverse): `n` values out.
    ComplexToReal,
}

/// One step: a transform of length `n` along `axis`, then `scale`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Step {
    pub(crate) axis: usize,
    pub(crate) n: usize,
    pub(crate) kind: StepKind,
    pub(crate) scale: f64,
}

impl FftOp {
    /// The one-axis functions (`fft`, `rfft`, `hfft` ...): length `n`
    /// along `axis`.
    pub fn one_axis(kind: FftKind, n: Option<i64>, axis: isize, norm: FftNorm) -> FftOp {
        FftOp {
            kind,
            nd: false,
            s: n.map(|n| vec![n]),
            axes: Some(vec![axis]),
            norm,
        }
    }

    /// The name used in messages (`fft.rfftn`).
    pub fn name(&self) -> &'static str {
        match (self.kind, self.nd) {
            (FftKind::Fft, false) => "fft.fft",
            (FftKind::Ifft, false) => "fft.ifft",
            (FftKind::Rfft, false) => "fft.rfft",
            (FftKind::Irfft, false) => "fft.irfft",
            (FftKind::Hfft, _) => "fft.hfft",
            (FftKind::Ihfft, _) => "fft.ihfft",
            (FftKind::Fft, true) => "fft.fftn",
            (FftKind::Ifft, true) => "fft.ifftn",
            (FftKind::Rfft, true) => "fft.rfftn",
            (FftKind::Irfft, true) => "fft.irfftn",
        }
    }

    /// The parameters as a printed program shows them.
    pub fn params(&self) -> Vec<String> {
        if self.nd {
            let lengths = self.s.as_deref().map_or("None".into(), tuple);
            let axes = self.axes.as_deref().map_or("None".into(), tuple);
            vec![
                format!("s={lengths}"),
                format!("axes={axes}"),
                format!("norm={}", self.norm.name()),
            ]
        } else {
            let n = self
                .s
                .as_deref()
                .and_then(<[i64]>::first)
                .map_or("None".into(), i64::to_string);
            let axis = self
                .axes
                .as_deref()
                .and_then(<[isize]>::first)
                .map_or("-1".into(), isize::to_string);
            vec![
                format!("n={n}"),
                format!("axis={axis}"),
                format!("norm={}", self.norm.name()),
            ]
        }
    }

    /// Does the transform's result hold complex numbers?
    fn complex_result(&self) -> bool {
        matches!(
            self.kind,
            FftKind::Fft | FftKind::Ifft | FftKind::Rfft | FftKind::Ihfft
        )
    }

    /// Does it read its input as real numbers?
    fn reads_real(&self) -> bool {
        matches!(self.kind, FftKind::Rfft | FftKind::Ihfft)
    }

    /// The dtype the transform reads its operand in, given its result's
    /// dtype: the complex or real dtype of the result's precision.
    pub fn read_dtype(&self, result: DType) -> Option<DType> {
        if self.reads_real() {
            Some(result.real_dtype())
        } else {
            result.complex_of()
        }
    }

    /// The result's dtype and shape from the operand's.
    pub fn signature(&self, x: Meta<'_>) -> Result<(DType, Vec<usize>)> {
        let real = match x.dtype {
            d if d.is_complex() => {
                if self.reads_real() {
                    return Err(Error::UnsupportedDType {
                        op: self.name(),
                        dtype: d,
                    });
                }
                d.real_dtype()
            }
            d if d.is_float() => d,
            // Integers and bools: NumPy's float64.
            _ => DType::F64,
        };
        let dtype = if self.complex_result() {
            real.complex_of().unwrap_or(DType::C128)
        } else {
            real
        };
        let mut shape = x.shape.to_vec();
        for step in self.steps(x.shape)? {
            shape[step.axis] = step.out_len();
        }
        Ok((dtype, shape))
    }

    /// The steps over an operand of `shape`, in order (see the module
    /// docs): every check of `s`, `axes` and the lengths.
    pub(crate) fn steps(&self, shape: &[usize]) -> Result<Vec<Step>> {
        let ndim = shape.len();
        let err = |reason: String| Error::InvalidArgument {
            op: self.name(),
            reason,
        };
        let axes: Vec<usize> = match (&self.axes, &self.s) {
            (Some(a), _) => a
                .iter()
                .map(|&a| normalize_axis(a, ndim))
                .collect::<Result<_>>()?,
            (None, Some(s)) => {
                if s.len() > ndim {
                    return Err(err(format!(
                        "s has {} lengths but the input has {ndim} dimensions",
                        s.len()
                    )));
                }
                (ndim - s.len()..ndim).collect()
            }
            (None, None) => (0..ndim).collect(),
        };
        if let Some(s) = &self.s {
            if s.len() != axes.len() {
                return Err(err(format!(
                    "s and axes must have the same length, got {} and {}",
                    s.len(),
                    axes.len()
                )));
            }
        }
        // No axis: `fftn`/`ifftn` give their input (as complex); the real
        // transforms have no last axis to halve or complete.
        if axes.is_empty() && !(self.nd && matches!(self.kind, FftKind::Fft | FftKind::Ifft)) {
            return Err(err("needs at least one axis to transform".into()));
        }
        // The lengths asked for, in the order of `axes` (`None`: default).
        let asked: Vec<Option<i64>> = match &self.s {
            Some(s) => s.iter().map(|&n| (n != -1).then_some(n)).collect(),
            None => vec![None; axes.len()],
        };
        let check = |n: i64| -> Result<usize> {
            usize::try_from(n)
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| err(format!("invalid number of data points ({n}) specified")))
        };
        // A length not asked for is the input's (NumPy's: of the input as
        // given, also for an axis that repeats).
        let mut steps = Vec::with_capacity(axes.len());
        let mut push = |axis: usize, asked: Option<i64>, kind: StepKind, norm: FftNorm| {
            let m = shape[axis];
            let n = match (asked, kind) {
                (Some(n), _) => check(n)?,
                (None, StepKind::ComplexToReal) => check(2 * (m as i64 - 1))?,
                (None, _) => check(m as i64)?,
            };
            let forward = !matches!(
                kind,
                StepKind::Complex { forward: false } | StepKind::ComplexToReal
            );
            let step = Step {
                axis,
                n,
                kind,
                scale: norm.scale(n, forward),
            };
            steps.push(step);
            Ok::<(), Error>(())
        };
        let last = axes.len().saturating_sub(1);
        match self.kind {
            FftKind::Fft | FftKind::Ifft => {
                let forward = self.kind == FftKind::Fft;
                for (&a, &n) in axes.iter().zip(&asked) {
                    push(a, n, StepKind::Complex { forward }, self.norm)?;
                }
            }
            FftKind::Rfft | FftKind::Ihfft => {
                let norm = if self.kind == FftKind::Ihfft {
                    self.norm.swapped()
                } else {
                    self.norm
                };
                if let Some(&a) = axes.last() {
                    push(a, asked[last], StepKind::RealToComplex, norm)?;
                }
                for (&a, &n) in axes.iter().zip(&asked).take(last) {
                    push(a, n, StepKind::Complex { forward: true }, norm)?;
                }
            }
            FftKind::Irfft | FftKind::Hfft => {
                let norm = if self.kind == FftKind::Hfft {
                    self.norm.swapped()
                } else {
                    self.norm
                };
                for (&a, &n) in axes.iter().zip(&asked).take(last) {
                    push(a, n, StepKind::Complex { forward: false }, norm)?;
                }
                if let Some(&a) = axes.last() {
                    push(a, asked[last], StepKind::ComplexToReal, norm)?;
                }
            }
        }
        Ok(steps)
    }

    /// Compute the transform of `x`.
    pub fn run(&self, x: &DynTensor) -> Result<DynTensor> {
        let (dtype, shape) = self.signature(x.meta())?;
        let steps = self.steps(x.shape())?;
        let read = self.read_dtype(dtype).unwrap_or(dtype);
        // Planned, the operand comes in `read` and in C order already.
        let x = if x.dtype() == read {
            x.contiguous()?
        } else {
            x.cast(read)?.contiguous()?
        };
        let conj_in = self.kind == FftKind::Hfft;
        let conj_out = self.kind == FftKind::Ihfft;
        if dtype.real_dtype() == DType::F32 {
            transform::run::<f32>(&x, &steps, conj_in, conj_out, &shape)
        } else {
            transform::run::<f64>(&x, &steps, conj_in, conj_out, &shape)
        }
    }
}

impl Step {
    /// The axis's length after the step.
    pub(crate) fn out_len(&self) -> usize {
        match self.kind {
            StepKind::RealToComplex => self.n / 2 + 1,
            StepKind::Complex { .. } | StepKind::ComplexToReal => self.n,
        }
    }
}

/// `fftfreq(n, d)` (`rfft == false`) or `rfftfreq(n, d)`: the sample
/// frequencies of a transform of length `n` with sample spacing `d`, in
/// the float `dtype` (NumPy's formula: integers times `1 / (n * d)`).
pub fn frequencies(n: i64, d: f64, dtype: DType, rfft: bool) -> Result<DynTensor> {
    let op = if rfft { "fft.rfftfreq" } else { "fft.fftfreq" };
    if !dtype.is_float() {
        return Err(Error::InvalidArgument {
            op,
            reason: format!("needs a real floating-point dtype, got {dtype}"),
        });
    }
    let n = match usize::try_from(n) {
        Ok(n) if n > 0 => n,
        _ => {
            return Err(Error::InvalidArgument {
                op,
                reason: format!("n must be a positive integer, got {n}"),
            })
        }
    };
    let step = 1.0 / (n as f64 * d);
    let len = if rfft { n / 2 + 1 } else { n };
    // fftfreq: 0, 1, ..., (n-1)/2, then -(n/2), ..., -1.
    let k = move |i: usize| -> f64 {
        if rfft || i <= (n - 1) / 2 {
            i as f64
        } else {
            i as f64 - n as f64
        }
    };
    crate::array::dyn_tensor::for_float!(dtype, T => {
        crate::functions::creation::collect::<T>(
            &[len],
            (0..len).map(|i| <T as crate::array::element::Element>::from_f64(k(i) * step)),
        )
    }, unreachable!("checked: a float dtype"))
}

#[cfg(test)]
mod tests;

//! The steps of a transform ([`super::Step`]) over C-order data, with
//! `rustfft`.
//!
//! `rustfft` rather than a binding to FFTW or pocketfft: it is pure Rust
//! (nothing to find at build time, as `faer` for linear algebra), it
//! transforms every length in O(n log n) (mixed radix, Rader's and
//! Bluestein's algorithms for primes), it picks its AVX or SSE code at
//! run time itself, and it takes `num-complex`'s `Complex`, the element
//! type of complex64 and complex128 here, so lines go to it without a
//! conversion. The real transforms are computed as complex ones of the
//! real line (`realfft` would halve their work; not yet needed).
//!
//! A step gathers every line along its axis into one working buffer of
//! `lines * n` elements (cut or padded with zeros to the step's length
//! `n`), transforms them in one call, and scatters them, scaled, into the
//! next step's layout.

use num_complex::Complex;
use num_traits::{Float, Zero};
use rustfft::{FftNum, FftPlanner};

use super::{Step, StepKind};
use crate::array::dyn_tensor::{AnyElement, DynTensor};
use crate::array::shape::split_at_axis;
use crate::error::Result;
use crate::functions::creation::collect;

/// The data between steps: real (before a real-to-complex step, after a
/// complex-to-real one) or complex.
enum Data<R> {
    Real(Vec<R>),
    Complex(Vec<Complex<R>>),
}

/// Run `steps` over `x` (in the dtype the transform reads, C order):
/// `conj_in` conjugates the input first (`hfft`), `conj_out` the result
/// (`ihfft`); `shape` is the result's.
pub(super) fn run<R>(
    x: &DynTensor,
    steps: &[Step],
    conj_in: bool,
    conj_out: bool,
    shape: &[usize],
) -> Result<DynTensor>
where
    R: FftNum + Float + AnyElement,
    Complex<R>: AnyElement,
{
    let mut dims = x.shape().to_vec();
    let mut data = if x.dtype().is_complex() {
        let src = x.typed::<Complex<R>>("fft")?.as_slice()?;
        Data::Complex(if conj_in {
            src.iter().map(Complex::conj).collect()
        } else {
            src.to_vec()
        })
    } else {
        Data::Real(x.typed::<R>("fft")?.as_slice()?.to_vec())
    };
    let mut planner = FftPlanner::<R>::new();
    for step in steps {
        let (outer, len, inner) = split_at_axis(&dims, step.axis);
        let lines = Lines { outer, len, inner };
        data = match (step.kind, data) {
            (StepKind::Complex { forward }, Data::Complex(v)) => {
                let mut buf = lines.gather(&v, step.n, |c| c);
                transform(&mut planner, &mut buf, step.n, forward);
                Data::Complex(lines.scatter(&buf, step.n, step.n, step.scale, |c| c))
            }
            (StepKind::RealToComplex, Data::Real(v)) => {
                let mut buf = lines.gather(&v, step.n, |r| Complex::new(r, R::zero()));
                transform(&mut planner, &mut buf, step.n, true);
                let out = step.out_len();
                Data::Complex(lines.scatter(&buf, step.n, out, step.scale, |c| c))
            }
            (StepKind::ComplexToReal, Data::Complex(v)) => {
                let mut buf = lines.gather(&v, step.n / 2 + 1, |c| c);
                let mut full = hermitian(&buf, step.n);
                buf.clear();
                transform(&mut planner, &mut full, step.n, false);
                Data::Real(lines.scatter(&full, step.n, step.n, step.scale, |c| c.re))
            }
            // The steps alternate as `FftOp::steps` builds them: a real
            // step only first (real to complex) or last (complex to real).
            (_, data) => data,
        };
        dims[step.axis] = step.out_len();
    }
    match data {
        Data::Complex(v) if conj_out => {
            collect::<Complex<R>>(shape, v.into_iter().map(|c| c.conj()))
        }
        Data::Complex(v) => collect::<Complex<R>>(shape, v),
        Data::Real(v) => collect::<R>(shape, v),
    }
}

/// Transform every line of `n` elements of `buf` in place.
fn transform<R: FftNum>(
    planner: &mut FftPlanner<R>,
    buf: &mut [Complex<R>],
    n: usize,
    forward: bool,
) {
    if buf.is_empty() {
        return;
    }
    let fft = if forward {
        planner.plan_fft_forward(n)
    } else {
        planner.plan_fft_inverse(n)
    };
    // `process` transforms each chunk of `n` (`buf.len()` is a multiple).
    fft.process(buf);
}

/// The full spectrum of length `n` of a real signal from its first
/// `n / 2 + 1` values (`lines` of them, each `n / 2 + 1` long): the rest
/// are the conjugates, mirrored. The imaginary parts of the zero frequency and (for
/// even `n`) the Nyquist frequency are ignored, as NumPy's `irfft` does:
/// a real signal's spectrum has none.
fn hermitian<R: FftNum + Float>(half: &[Complex<R>], n: usize) -> Vec<Complex<R>> {
    let h = n / 2 + 1;
    let lines = half.len() / h;
    let mut full = vec![Complex::zero(); lines * n];
    for (src, dst) in half.chunks_exact(h).zip(full.chunks_exact_mut(n)) {
        dst[..h].copy_from_slice(src);
        dst[0].im = R::zero();
        if n.is_multiple_of(2) {
            dst[n / 2].im = R::zero();
        }
        for k in 1..=n - h {
            dst[n - k] = src[k].conj();
        }
    }
    full
}

/// An array seen as `outer * inner` lines of `len` elements along one
/// axis (C order: element `k` of line `(o, i)` at
/// `(o * len + k) * inner + i`).
struct Lines {
    outer: usize,
    len: usize,
    inner: usize,
}

impl Lines {
    /// Every line, cut or padded with zeros to `n` elements, one after
    /// another (converted by `f`).
    fn gather<S: Copy, D: Copy + Zero>(&self, x: &[S], n: usize, f: impl Fn(S) -> D) -> Vec<D> {
        let Lines { outer, len, inner } = *self;
        let mut buf = vec![D::zero(); outer * inner * n];
        let keep = len.min(n);
        for o in 0..outer {
            for i in 0..inner {
                let line = &mut buf[(o * inner + i) * n..][..keep];
                let base = o * len * inner + i;
                for (k, d) in line.iter_mut().enumerate() {
                    *d = f(x[base + k * inner]);
                }
            }
        }
        buf
    }

    /// The first `out` elements of each line of `n` in `buf`, scaled and
    /// converted by `f`, back in C order with the axis `out` long.
    fn scatter<R: FftNum + Float, D>(
        &self,
        buf: &[Complex<R>],
        n: usize,
        out: usize,
        scale: f64,
        f: impl Fn(Complex<R>) -> D,
    ) -> Vec<D> {
        let Lines { outer, inner, .. } = *self;
        let s = R::from(scale).unwrap_or_else(R::one);
        // Exactly 1 (no norm in this direction): nothing to multiply.
        #[allow(clippy::float_cmp)]
        let one = scale == 1.0;
        let mut res = Vec::with_capacity(outer * out * inner);
        for o in 0..outer {
            for k in 0..out {
                for i in 0..inner {
                    let c = buf[(o * inner + i) * n + k];
                    res.push(f(if one { c } else { c * s }));
                }
            }
        }
        res
    }
}

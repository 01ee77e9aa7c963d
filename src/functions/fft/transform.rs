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
//! A step is an iterator over its result in C order ([`StepOut`]): it
//! gathers a group of lines along its axis into one working buffer (each
//! cut or padded with zeros to the step's length `n`), transforms them in
//! one call, and yields them, scaled, in C order; then the next group.
//! The working buffer is reused from group to group and holds about
//! [`GROUP_ELEMENTS`] elements (whole slabs of the axis: one slab when a
//! slab is larger), so the last step writes the result's buffer directly
//! and no step allocates an array of the whole input's size but the
//! intermediate results of a transform over several axes.

use std::sync::Arc;

use num_complex::Complex;
use num_traits::{Float, Zero};
use rustfft::{Fft, FftNum, FftPlanner};

use super::{Step, StepKind};
use crate::array::dyn_tensor::{AnyElement, DynTensor};
use crate::array::shape::split_at_axis;
use crate::error::Result;
use crate::functions::creation::collect;

/// About how many elements one group of lines holds (1 MiB of complex128).
const GROUP_ELEMENTS: usize = 1 << 16;

/// The data a step reads: the input (real or complex) or the previous
/// step's result.
#[derive(Clone, Copy)]
enum Src<'a, R> {
    Real(&'a [R]),
    Complex(&'a [Complex<R>]),
}

impl<R: FftNum> Src<'_, R> {
    fn get(&self, i: usize) -> Complex<R> {
        match self {
            Src::Real(v) => Complex::new(v[i], R::zero()),
            Src::Complex(v) => v[i],
        }
    }
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
    let conjugated: Vec<Complex<R>>;
    let input = if x.dtype().is_complex() {
        let v = x.typed::<Complex<R>>("fft")?.as_slice()?;
        if conj_in {
            conjugated = v.iter().map(Complex::conj).collect();
            Src::Complex(&conjugated[..])
        } else {
            Src::Complex(v)
        }
    } else {
        Src::Real(x.typed::<R>("fft")?.as_slice()?)
    };
    let mut planner = FftPlanner::<R>::new();
    let mut dims = x.shape().to_vec();
    let mut between: Vec<Complex<R>> = Vec::new();
    let Some((last, first)) = steps.split_last() else {
        // No axis to transform (`fftn` of a 0-d tensor): the input as
        // the result's dtype.
        let all = shape.iter().product::<usize>();
        return collect::<Complex<R>>(shape, (0..all).map(|i| input.get(i)));
    };
    for step in first {
        let src = if between.is_empty() {
            input
        } else {
            Src::Complex(&between[..])
        };
        let next: Vec<Complex<R>> = StepOut::new(&mut planner, src, &dims, step).collect();
        between = next;
        dims[step.axis] = step.out_len();
    }
    let src = if first.is_empty() {
        input
    } else {
        Src::Complex(&between[..])
    };
    let out = StepOut::new(&mut planner, src, &dims, last);
    if last.kind == StepKind::ComplexToReal {
        collect::<R>(shape, out.map(|c| c.re))
    } else if conj_out {
        collect::<Complex<R>>(shape, out.map(|c| c.conj()))
    } else {
        collect::<Complex<R>>(shape, out)
    }
}

/// A step's result, in C order (see the module docs).
struct StepOut<'a, R: FftNum> {
    src: Src<'a, R>,
    fft: Option<Arc<dyn Fft<R>>>,
    /// The lines of the current group, `n` each.
    work: Vec<Complex<R>>,
    fft_scratch: Vec<Complex<R>>,
    kind: StepKind,
    n: usize,
    scale: R,
    /// The step's axis: `outer` slabs of `len` (input) or `out`
    /// (result) by `inner`.
    outer: usize,
    len: usize,
    out: usize,
    inner: usize,
    /// Slabs per group.
    group: usize,
    /// The first slab of the current group, and how many it holds.
    slab0: usize,
    slabs: usize,
    /// The next element to yield: slab `s` of the group, position `k`
    /// along the axis, `i` within the slab.
    s: usize,
    k: usize,
    i: usize,
}

impl<'a, R: FftNum + Float> StepOut<'a, R> {
    fn new(planner: &mut FftPlanner<R>, src: Src<'a, R>, dims: &[usize], step: &Step) -> Self {
        let (outer, len, inner) = split_at_axis(dims, step.axis);
        let n = step.n;
        let forward = !matches!(
            step.kind,
            StepKind::Complex { forward: false } | StepKind::ComplexToReal
        );
        let fft = (outer * inner > 0).then(|| {
            if forward {
                planner.plan_fft_forward(n)
            } else {
                planner.plan_fft_inverse(n)
            }
        });
        let slab = (inner * n).max(1);
        let group = (GROUP_ELEMENTS / slab).clamp(1, outer.max(1));
        StepOut {
            src,
            fft_scratch: vec![
                Complex::zero();
                fft.as_ref().map_or(0, |f| f.get_inplace_scratch_len())
            ],
            fft,
            work: Vec::new(),
            kind: step.kind,
            n,
            scale: R::from(step.scale).unwrap_or_else(R::one),
            outer,
            len,
            out: step.out_len(),
            inner,
            group,
            slab0: 0,
            slabs: 0,
            s: 0,
            k: 0,
            i: 0,
        }
    }

    /// Gather, complete and transform the group of slabs from `slab0`.
    fn fill(&mut self) {
        let (n, len, inner) = (self.n, self.len, self.inner);
        self.slabs = self.group.min(self.outer - self.slab0);
        self.work.clear();
        self.work.resize(self.slabs * inner * n, Complex::zero());
        // The input values a line holds: `n`, or the `n / 2 + 1` of a
        // Hermitian spectrum.
        let keep = if self.kind == StepKind::ComplexToReal {
            (n / 2 + 1).min(len)
        } else {
            len.min(n)
        };
        for s in 0..self.slabs {
            let base = (self.slab0 + s) * len * inner;
            for i in 0..inner {
                let line = &mut self.work[(s * inner + i) * n..][..n];
                for (k, d) in line[..keep].iter_mut().enumerate() {
                    *d = self.src.get(base + k * inner + i);
                }
                if self.kind == StepKind::ComplexToReal {
                    hermitian(line);
                }
            }
        }
        if let Some(fft) = &self.fft {
            if !self.work.is_empty() {
                // Each chunk of `n` (`work.len()` is a multiple).
                fft.process_with_scratch(&mut self.work, &mut self.fft_scratch);
            }
        }
    }
}

impl<R: FftNum + Float> Iterator for StepOut<'_, R> {
    type Item = Complex<R>;

    fn next(&mut self) -> Option<Complex<R>> {
        if self.s == self.slabs {
            self.slab0 += self.slabs;
            if self.slab0 >= self.outer || self.inner == 0 || self.out == 0 {
                return None;
            }
            self.fill();
            self.s = 0;
        }
        let c = self.work[(self.s * self.inner + self.i) * self.n + self.k] * self.scale;
        self.i += 1;
        if self.i == self.inner {
            self.i = 0;
            self.k += 1;
            if self.k == self.out {
                self.k = 0;
                self.s += 1;
            }
        }
        Some(c)
    }
}

/// Complete a line of length `n` whose first `n / 2 + 1` values are a
/// real signal's spectrum: the rest are their conjugates, mirrored. The
/// imaginary parts of the zero frequency and (for even `n`) the Nyquist
/// frequency are dropped, as NumPy's `irfft` drops them: a real signal's
/// spectrum has none.
fn hermitian<R: FftNum>(line: &mut [Complex<R>]) {
    let n = line.len();
    let h = n / 2 + 1;
    line[0].im = R::zero();
    if n.is_multiple_of(2) {
        line[n / 2].im = R::zero();
    }
    for k in 1..=n - h {
        line[n - k] = line[k].conj();
    }
}

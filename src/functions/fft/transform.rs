//! The steps of a transform ([`super::Step`]) over C-order data, with
//! `rustfft`.
//!
//! `rustfft` rather than a binding to FFTW or pocketfft: it is pure Rust
//! (nothing to find at build time, as `faer` for linear algebra), it
//! transforms every length in O(n log n) (mixed radix, Rader's and
//! Bluestein's algorithms for primes), it picks its AVX or SSE code at
//! run time itself, and it takes `num-complex`'s `Complex`, the element
//! type of complex64 and complex128 here, so lines go to it without a
//! conversion. The real steps (`rfft`'s, `irfft`'s) use `realfft`, by
//! the same authors over the same `rustfft`: a real line of `n` values as
//! a complex transform of `n / 2`, half the work of a complex one.
//!
//! A step is an iterator over its result in C order ([`StepOut`]): it
//! gathers a group of lines along its axis into one working buffer (each
//! cut or padded with zeros to the step's length `n`), transforms them
//! (the complex lines in one call, the real ones one by one), and yields
//! them, scaled, in C order; then the next group.
//!
//! Plans are kept between calls ([`plan`]): planning a long transform
//! computes its twiddle factors (a sine and a cosine per point), which
//! cost about as much as the transform itself. The last [`PLANS_KEPT`]
//! plans of each precision stay, most recently used first, as NumPy's
//! pocketfft keeps its last 16; their memory (the twiddles, about the
//! transform's own size) is not counted by the memory statistics.
//! The working buffer is reused from group to group and holds about
//! [`GROUP_ELEMENTS`] elements (whole slabs of the axis: one slab when a
//! slab is larger), so the last step writes the result's buffer directly
//! and no step allocates an array of the whole input's size but the
//! intermediate results of a transform over several axes.

use std::sync::{Arc, Mutex, OnceLock};

use num_complex::Complex;
use num_traits::{Float, Zero};
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftNum, FftPlanner};

use super::{Step, StepKind};
use crate::array::dyn_tensor::{AnyElement, DynTensor};
use crate::array::shape::split_at_axis;
use crate::error::Result;
use crate::functions::creation::collect;

/// About how many elements one group of lines holds (1 MiB of complex128).
const GROUP_ELEMENTS: usize = 1 << 16;

/// The data a step reads: the input (real, complex, or complex read as
/// its conjugates: `hfft`'s) or the previous step's result.
#[derive(Clone, Copy)]
enum Src<'a, R> {
    Real(&'a [R]),
    Complex(&'a [Complex<R>]),
    Conjugate(&'a [Complex<R>]),
}

impl<R: FftNum> Src<'_, R> {
    fn get(&self, i: usize) -> Complex<R> {
        match self {
            Src::Real(v) => Complex::new(v[i], R::zero()),
            Src::Complex(v) => v[i],
            Src::Conjugate(v) => v[i].conj(),
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
    R: Planned + Float + AnyElement,
    Complex<R>: AnyElement,
{
    let input = if x.dtype().is_complex() {
        let v = x.typed::<Complex<R>>("fft")?.as_slice()?;
        if conj_in {
            Src::Conjugate(v)
        } else {
            Src::Complex(v)
        }
    } else {
        Src::Real(x.typed::<R>("fft")?.as_slice()?)
    };
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
        let next: Vec<Complex<R>> = StepOut::new(src, &dims, step).collect();
        between = next;
        dims[step.axis] = step.out_len();
    }
    let src = if first.is_empty() {
        input
    } else {
        Src::Complex(&between[..])
    };
    let out = StepOut::new(src, &dims, last);
    if last.kind == StepKind::ComplexToReal {
        collect::<R>(shape, out.map(|c| c.re))
    } else if conj_out {
        collect::<Complex<R>>(shape, out.map(|c| c.conj()))
    } else {
        collect::<Complex<R>>(shape, out)
    }
}

/// The planned transform of a step.
#[derive(Clone)]
pub(super) enum Transform<R: FftNum> {
    Complex(Arc<dyn Fft<R>>),
    Forward(Arc<dyn RealToComplex<R>>),
    Inverse(Arc<dyn ComplexToReal<R>>),
}

/// A step's result, in C order (see the module docs).
struct StepOut<'a, R: FftNum> {
    src: Src<'a, R>,
    fft: Option<Transform<R>>,
    /// The complex lines of the current group: a complex step's (`n`
    /// each, in place), a real-to-complex step's results (`n / 2 + 1`
    /// each), or a complex-to-real step's one input line (`n / 2 + 1`).
    work: Vec<Complex<R>>,
    /// The real lines: a real-to-complex step's one input line (`n`), or
    /// a complex-to-real step's results (`n` each).
    real: Vec<R>,
    scratch: Vec<Complex<R>>,
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

impl<'a, R: Planned + Float> StepOut<'a, R> {
    fn new(src: Src<'a, R>, dims: &[usize], step: &Step) -> Self {
        let (outer, len, inner) = split_at_axis(dims, step.axis);
        let n = step.n;
        let fft = (outer * inner > 0).then(|| plan(step.kind, n));
        let scratch = match &fft {
            Some(Transform::Complex(f)) => f.get_inplace_scratch_len(),
            Some(Transform::Forward(f)) => f.get_scratch_len(),
            Some(Transform::Inverse(f)) => f.get_scratch_len(),
            None => 0,
        };
        let slab = (inner * n).max(1);
        let group = (GROUP_ELEMENTS / slab).clamp(1, outer.max(1));
        StepOut {
            src,
            fft,
            work: Vec::new(),
            real: Vec::new(),
            scratch: vec![Complex::zero(); scratch],
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
        let h = n / 2 + 1;
        self.slabs = self.group.min(self.outer - self.slab0);
        let lines = self.slabs * inner;
        // Line `l` of the group: slab `l / inner`, position `l % inner`;
        // its element `k` of the input.
        let at =
            |l: usize, k: usize| (self.slab0 + l / inner) * len * inner + k * inner + l % inner;
        match &self.fft {
            Some(Transform::Complex(fft)) => {
                self.work.clear();
                self.work.resize(lines * n, Complex::zero());
                for (l, line) in self.work.chunks_exact_mut(n).enumerate() {
                    for (k, d) in line[..len.min(n)].iter_mut().enumerate() {
                        *d = self.src.get(at(l, k));
                    }
                }
                // Each chunk of `n` (`work.len()` is a multiple).
                fft.process_with_scratch(&mut self.work, &mut self.scratch);
            }
            Some(Transform::Forward(fft)) => {
                self.work.clear();
                self.work.resize(lines * h, Complex::zero());
                self.real.resize(n, R::zero());
                for (l, out) in self.work.chunks_exact_mut(h).enumerate() {
                    self.real.fill(R::zero());
                    for (k, d) in self.real[..len.min(n)].iter_mut().enumerate() {
                        *d = self.src.get(at(l, k)).re;
                    }
                    // The lengths are the plan's: no error.
                    let _ = fft.process_with_scratch(&mut self.real, out, &mut self.scratch);
                }
            }
            Some(Transform::Inverse(fft)) => {
                self.work.resize(h, Complex::zero());
                self.real.clear();
                self.real.resize(lines * n, R::zero());
                for (l, out) in self.real.chunks_exact_mut(n).enumerate() {
                    self.work.fill(Complex::zero());
                    for (k, d) in self.work[..len.min(h)].iter_mut().enumerate() {
                        *d = self.src.get(at(l, k));
                    }
                    hermitian_ends(&mut self.work, n);
                    // The lengths are the plan's, and the imaginary parts
                    // the transform needs zero are: no error.
                    let _ = fft.process_with_scratch(&mut self.work, out, &mut self.scratch);
                }
            }
            None => {}
        }
    }
}

impl<R: Planned + Float> Iterator for StepOut<'_, R> {
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
        let line = self.s * self.inner + self.i;
        let c = match self.kind {
            StepKind::Complex { .. } => self.work[line * self.n + self.k],
            StepKind::RealToComplex => self.work[line * self.out + self.k],
            StepKind::ComplexToReal => Complex::new(self.real[line * self.n + self.k], R::zero()),
        } * self.scale;
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

/// How many plans of each precision are kept between calls.
const PLANS_KEPT: usize = 16;

/// The plans kept: the most recently used first, each with its step kind
/// and length.
type Kept<R> = Vec<(StepKind, usize, Transform<R>)>;
type Plans<R> = Mutex<Kept<R>>;

/// A float type whose plans are kept (one cache per precision).
pub(super) trait Planned: FftNum {
    fn plans() -> &'static Plans<Self>;
}

impl Planned for f32 {
    fn plans() -> &'static Plans<f32> {
        static PLANS: OnceLock<Plans<f32>> = OnceLock::new();
        PLANS.get_or_init(|| Mutex::new(Vec::new()))
    }
}

impl Planned for f64 {
    fn plans() -> &'static Plans<f64> {
        static PLANS: OnceLock<Plans<f64>> = OnceLock::new();
        PLANS.get_or_init(|| Mutex::new(Vec::new()))
    }
}

/// The kept plans, unless another thread holds them this instant: then
/// `None`, and the caller plans without them. Never waiting makes the
/// cache safe in a child of `fork()` whose parent had a thread inside
/// the lock (that thread is gone in the child, so the lock would never
/// be released; see `memory::fork` for the locks that are taken over).
fn kept<R: FftNum>(plans: &Plans<R>) -> Option<std::sync::MutexGuard<'_, Kept<R>>> {
    match plans.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// The plan of a step of `kind` and length `n`: a kept one, or a new one
/// (planned outside the lock, so transforms of other lengths do not wait
/// for it), then kept in front of the others.
fn plan<R: Planned>(kind: StepKind, n: usize) -> Transform<R> {
    plan_in(R::plans(), kind, n)
}

/// [`plan`] with the plans kept in `plans`.
fn plan_in<R: FftNum>(plans: &Plans<R>, kind: StepKind, n: usize) -> Transform<R> {
    if let Some(mut kept) = kept(plans) {
        if let Some(i) = kept.iter().position(|(k, m, _)| *k == kind && *m == n) {
            let hit = kept.remove(i);
            let t = hit.2.clone();
            kept.insert(0, hit);
            return t;
        }
    }
    let t = match kind {
        StepKind::Complex { forward: true } => {
            Transform::Complex(FftPlanner::<R>::new().plan_fft_forward(n))
        }
        StepKind::Complex { forward: false } => {
            Transform::Complex(FftPlanner::<R>::new().plan_fft_inverse(n))
        }
        StepKind::RealToComplex => {
            Transform::Forward(RealFftPlanner::<R>::new().plan_fft_forward(n))
        }
        StepKind::ComplexToReal => {
            Transform::Inverse(RealFftPlanner::<R>::new().plan_fft_inverse(n))
        }
    };
    if let Some(mut kept) = kept(plans) {
        // Another thread may have planned the same meanwhile: keep one.
        kept.retain(|(k, m, _)| !(*k == kind && *m == n));
        kept.insert(0, (kind, n, t.clone()));
        kept.truncate(PLANS_KEPT);
    }
    t
}

/// Drop the imaginary parts of the zero frequency and (for even `n`) the
/// Nyquist frequency of a real signal's spectrum (its `n / 2 + 1` values),
/// as NumPy's `irfft` drops them: a real signal's spectrum has none.
fn hermitian_ends<R: FftNum>(half: &mut [Complex<R>], n: usize) {
    half[0].im = R::zero();
    if n.is_multiple_of(2) {
        half[n / 2].im = R::zero();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &Transform<f64>, b: &Transform<f64>) -> bool {
        match (a, b) {
            (Transform::Complex(x), Transform::Complex(y)) => Arc::ptr_eq(x, y),
            (Transform::Forward(x), Transform::Forward(y)) => Arc::ptr_eq(x, y),
            (Transform::Inverse(x), Transform::Inverse(y)) => Arc::ptr_eq(x, y),
            _ => false,
        }
    }

    #[test]
    fn plans_are_kept_by_kind_and_length_up_to_the_limit() {
        // A cache of the test's own: the process's is shared with every
        // other test running meanwhile.
        let plans: Plans<f64> = Mutex::new(Vec::new());
        let forward = StepKind::Complex { forward: true };
        let first = plan_in(&plans, forward, 1009);
        assert!(same(&first, &plan_in(&plans, forward, 1009)), "kept");
        let inverse = plan_in(&plans, StepKind::Complex { forward: false }, 1009);
        assert!(!same(&first, &inverse), "another direction is another plan");
        for n in 0..PLANS_KEPT {
            plan_in(&plans, StepKind::RealToComplex, 2 * (100 + n));
        }
        assert!(
            !same(&first, &plan_in(&plans, forward, 1009)),
            "gone after 16 others"
        );
        assert_eq!(plans.lock().unwrap().len(), PLANS_KEPT);
    }

    #[test]
    fn a_held_cache_is_passed_by_not_waited_for() {
        // As in a child of fork() whose parent had a thread inside the
        // lock: planning goes on without the kept plans.
        let plans: Plans<f64> = Mutex::new(Vec::new());
        let held = plans.lock().unwrap();
        let t = plan_in(&plans, StepKind::Complex { forward: true }, 1013);
        drop(held);
        let Transform::Complex(f) = t else {
            panic!("a complex plan")
        };
        assert_eq!(f.len(), 1013);
        assert!(
            plans.lock().unwrap().is_empty(),
            "not kept: the lock was held"
        );
    }
}

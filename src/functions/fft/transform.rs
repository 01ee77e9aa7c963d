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
//! A step ([`StepRun`]) writes its result into a new buffer, group by
//! group of lines along its axis: it gathers the group into a working
//! buffer (each line cut or padded with zeros to the step's length `n`),
//! transforms it (the complex lines in one call, the real ones one by
//! one), and writes it, scaled, into the group's part of the result. A
//! group is whole slabs of the axis ([`Group::Whole`]: along the last
//! axis each line is a contiguous run) or, when one slab is larger than a
//! group, a block of neighbouring columns of one slab
//! ([`Group::Columns`]: along an inner axis, as axis 0 of an image, a
//! line's elements lie a row apart). Either way the input is read and
//! the result written a row of the group at a time, one contiguous run
//! per row, so that the strided walk along the axis happens inside the
//! cache-resident working buffer, not across memory. The groups run on
//! both threads when there are several and the result has at least
//! [`PARALLEL_ELEMENTS`] values, each thread with working buffers of its
//! own.
//!
//! Plans are kept between calls ([`plan`]): planning a long transform
//! computes its twiddle factors (a sine and a cosine per point), which
//! cost about as much as the transform itself. The last [`PLANS_KEPT`]
//! plans of each precision stay, most recently used first, as NumPy's
//! pocketfft keeps its last 16; their memory (the twiddles, about the
//! transform's own size) is not counted by the memory statistics.
//! A working buffer is reused from group to group and holds about
//! [`GROUP_ELEMENTS`] elements, so the last step writes the result's buffer directly
//! and no step allocates an array of the whole input's size but the
//! intermediate results of a transform over several axes.

use std::sync::{Arc, Mutex, OnceLock};

use num_complex::Complex;
use num_traits::{Float, Zero};
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftNum, FftPlanner};

use super::{Step, StepKind};
use crate::array::dyn_tensor::{AnyElement, DynTensor};
use crate::array::element::Element;
use crate::array::shape::split_at_axis;
use crate::error::Result;
use crate::functions::creation::collect;
use crate::kernels::columns::{self, ColumnBlock};
use crate::kernels::{fresh, parallel};
use crate::memory::buffer::OwnedBuffer;

/// About how many elements one group of lines holds (1 MiB of complex128).
const GROUP_ELEMENTS: usize = 1 << 16;

/// The result size from which a step's groups run on several threads: a
/// transform costs `log n` operations per element, far more than the
/// element-wise kernels' [`crate::kernels::GRAIN`] assumes.
const PARALLEL_ELEMENTS: usize = 1 << 15;

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

    /// The first `m` values of the group's lines `lines` into `dst`, line
    /// `l` from `dst[l * stride]` ([`gather`]).
    fn gather(&self, lines: &Lines, m: usize, dst: &mut [Complex<R>], stride: usize) {
        match self {
            Src::Real(v) => gather(v, lines, m, dst, stride, |x| Complex::new(x, R::zero())),
            Src::Complex(v) => gather(v, lines, m, dst, stride, |c| c),
            Src::Conjugate(v) => gather(v, lines, m, dst, stride, |c| c.conj()),
        }
    }

    /// The real parts of [`gather`](Self::gather).
    fn gather_re(&self, lines: &Lines, m: usize, dst: &mut [R], stride: usize) {
        match self {
            Src::Real(v) => gather(v, lines, m, dst, stride, |x| x),
            Src::Complex(v) | Src::Conjugate(v) => gather(v, lines, m, dst, stride, |c| c.re),
        }
    }
}

/// Which lines along a step's axis a group holds: columns `start ..
/// start + width` of `slabs` neighbouring slabs from `first`, each slab
/// `len` (input) by `inner`. Line `s * width + j` of the group is column
/// `start + j` of slab `first + s`.
struct Lines {
    first: usize,
    slabs: usize,
    start: usize,
    width: usize,
    len: usize,
    inner: usize,
}

impl Lines {
    fn count(&self) -> usize {
        self.slabs * self.width
    }
}

/// `dst[l * stride + k] = f(v[...])`, element `k < m` of each line `l` of
/// `lines`. A block of columns is read a row at a time (one contiguous
/// run of `width` per row), so that a transform along an inner axis reads
/// its input in order instead of a cache line per element.
fn gather<S: Copy, D>(
    v: &[S],
    lines: &Lines,
    m: usize,
    dst: &mut [D],
    stride: usize,
    f: impl Fn(S) -> D,
) {
    let Lines { width, inner, .. } = *lines;
    for s in 0..lines.slabs {
        let base = (lines.first + s) * lines.len * inner + lines.start;
        let dst = &mut dst[s * width * stride..];
        if width == 1 {
            let from = v[base..].iter().step_by(inner);
            for (d, x) in dst[..m].iter_mut().zip(from) {
                *d = f(*x);
            }
            continue;
        }
        for k in 0..m {
            let row = &v[base + k * inner..][..width];
            for (j, x) in row.iter().enumerate() {
                dst[j * stride + k] = f(*x);
            }
        }
    }
}

/// Where a group's result goes: whole slabs of the result ([`Slabs`]) or
/// a block of its columns ([`ColumnBlock`]).
trait Sink<T> {
    /// Write the group's `out` values per line, line `l` from `values[l *
    /// stride]`, each mapped by `f`.
    fn put<V: Copy>(&mut self, out: usize, values: &[V], stride: usize, f: impl Fn(V) -> T);
}

/// Whole slabs of the result, `out` by `inner` each (C order).
struct Slabs<'a, T> {
    dst: &'a mut [T],
    inner: usize,
}

impl<T> Sink<T> for Slabs<'_, T> {
    fn put<V: Copy>(&mut self, out: usize, values: &[V], stride: usize, f: impl Fn(V) -> T) {
        let inner = self.inner;
        if out == 0 || inner == 0 {
            return;
        }
        for (s, slab) in self.dst.chunks_exact_mut(out * inner).enumerate() {
            let values = &values[s * inner * stride..];
            if inner == 1 {
                for (d, v) in slab.iter_mut().zip(&values[..out]) {
                    *d = f(*v);
                }
                continue;
            }
            for (k, row) in slab.chunks_exact_mut(inner).enumerate() {
                for (i, d) in row.iter_mut().enumerate() {
                    *d = f(values[i * stride + k]);
                }
            }
        }
    }
}

impl<T> Sink<T> for ColumnBlock<'_, T> {
    fn put<V: Copy>(&mut self, out: usize, values: &[V], stride: usize, f: impl Fn(V) -> T) {
        for k in 0..out {
            for (j, d) in self.row(k).iter_mut().enumerate() {
                *d = f(values[j * stride + k]);
            }
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
    let Some((last, first)) = steps.split_last() else {
        // No axis to transform (`fftn` of a 0-d tensor): the input as
        // the result's dtype.
        let all = shape.iter().product::<usize>();
        return collect::<Complex<R>>(shape, (0..all).map(|i| input.get(i)));
    };
    let mut between: Option<Vec<Complex<R>>> = None;
    for step in first {
        let src = between.as_deref().map_or(input, Src::Complex);
        let next = StepRun::new(&dims, step).run_between(src);
        between = Some(next);
        dims[step.axis] = step.out_len();
    }
    let src = between.as_deref().map_or(input, Src::Complex);
    let step = StepRun::new(&dims, last);
    if last.kind == StepKind::ComplexToReal {
        let buf = step.run::<R>(src, |c| c.re)?;
        DynTensor::from_buffer(R::DTYPE, buf, shape)
    } else {
        let buf = if conj_out {
            step.run::<Complex<R>>(src, |c| c.conj())?
        } else {
            step.run::<Complex<R>>(src, |c| c)?
        };
        DynTensor::from_buffer(Complex::<R>::DTYPE, buf, shape)
    }
}

/// The planned transform of a step.
#[derive(Clone)]
pub(super) enum Transform<R: FftNum> {
    Complex(Arc<dyn Fft<R>>),
    Forward(Arc<dyn RealToComplex<R>>),
    Inverse(Arc<dyn ComplexToReal<R>>),
}

/// One step over data of some shape: its plan, where its axis lies, and
/// how its lines are grouped (see the module docs).
struct StepRun<R: FftNum> {
    fft: Option<Transform<R>>,
    n: usize,
    scale: R,
    /// The step's axis: `outer` slabs of `len` (input) or `out`
    /// (result) by `inner`.
    outer: usize,
    len: usize,
    out: usize,
    inner: usize,
    /// How a group is made: `Whole(k)`, `k` whole slabs; `Columns(w)`, `w`
    /// neighbouring columns of one slab (a slab above the group's size).
    group: Group,
}

#[derive(Clone, Copy)]
enum Group {
    Whole(usize),
    Columns(usize),
}

/// A thread's working buffers for the groups of a step.
struct Work<R> {
    /// The complex lines of a group: a complex step's (`n` each, in
    /// place), a real-to-complex step's results or a complex-to-real
    /// step's inputs (`n / 2 + 1` each).
    lines: Vec<Complex<R>>,
    /// The real lines: a real-to-complex step's inputs or a
    /// complex-to-real step's results (`n` each).
    real: Vec<R>,
    scratch: Vec<Complex<R>>,
}

impl<R: Planned + Float> StepRun<R> {
    fn new(dims: &[usize], step: &Step) -> Self {
        let (outer, len, inner) = split_at_axis(dims, step.axis);
        let n = step.n;
        let slab = inner * n.max(1);
        let group = if inner > 1 && slab > GROUP_ELEMENTS {
            Group::Columns((GROUP_ELEMENTS / n.max(1)).clamp(1, inner))
        } else {
            Group::Whole((GROUP_ELEMENTS / slab.max(1)).clamp(1, outer.max(1)))
        };
        StepRun {
            fft: (outer * inner > 0).then(|| plan(step.kind, n)),
            n,
            scale: R::from(step.scale).unwrap_or_else(R::one),
            outer,
            len,
            out: step.out_len(),
            inner,
            group,
        }
    }

    fn scratch_len(&self) -> usize {
        match &self.fft {
            Some(Transform::Complex(f)) => f.get_inplace_scratch_len(),
            Some(Transform::Forward(f)) => f.get_scratch_len(),
            Some(Transform::Inverse(f)) => f.get_scratch_len(),
            None => 0,
        }
    }

    /// Is the step's result large enough to share among threads?
    fn parallel(&self) -> bool {
        self.outer * self.out * self.inner >= PARALLEL_ELEMENTS
    }

    /// The step's result as a new buffer, each value mapped by `map`.
    fn run<T: Element>(
        &self,
        src: Src<'_, R>,
        map: impl Fn(Complex<R>) -> T + Sync + Send,
    ) -> Result<OwnedBuffer>
    where
        R: Send + Sync,
    {
        let (outer, out, inner) = (self.outer, self.out, self.inner);
        let parallel = self.parallel();
        match self.group {
            Group::Whole(k) => {
                let chunk = k * out * inner;
                fresh::chunked(
                    outer * out * inner,
                    chunk,
                    parallel,
                    || self.work(),
                    |work, c, dst| self.slabs_into(src, c * k, work, dst, &map),
                )
            }
            Group::Columns(w) => fresh::column_blocked(
                outer,
                out,
                inner,
                w,
                parallel,
                || self.work(),
                |work, s, block| self.block_into(src, s, work, block, &map),
            ),
        }
    }

    /// The step's result as the complex values of an intermediate result
    /// (a transform over several axes). Not a tensor's buffer: the memory
    /// statistics and a planned program's buffers see only the last
    /// step's result, the transform's.
    fn run_between(&self, src: Src<'_, R>) -> Vec<Complex<R>>
    where
        R: Send + Sync,
    {
        let (outer, out, inner) = (self.outer, self.out, self.inner);
        let parallel = self.parallel();
        let mut next = vec![Complex::zero(); outer * out * inner];
        let id = |v: Complex<R>| v;
        match self.group {
            Group::Whole(k) => parallel::chunks_init(
                &mut next,
                k * out * inner,
                parallel,
                || self.work(),
                |work, c, dst| self.slabs_into(src, c * k, work, dst, &id),
            ),
            Group::Columns(w) => parallel::items_init(
                columns::slab_blocks(&mut next, out * inner, inner, w),
                parallel,
                || self.work(),
                |work, (s, mut block)| self.block_into(src, s, work, &mut block, &id),
            ),
        }
        next
    }

    /// A thread's working buffers.
    fn work(&self) -> Work<R> {
        Work {
            lines: Vec::new(),
            real: Vec::new(),
            scratch: vec![Complex::zero(); self.scratch_len()],
        }
    }

    /// The group of whole slabs from `first` whose part of the result is
    /// `dst` (as many slabs as it holds).
    fn slabs_into<T>(
        &self,
        src: Src<'_, R>,
        first: usize,
        w: &mut Work<R>,
        dst: &mut [T],
        map: &impl Fn(Complex<R>) -> T,
    ) {
        let inner = self.inner;
        let lines = Lines {
            first,
            slabs: dst.len() / (self.out * inner).max(1),
            start: 0,
            width: inner,
            len: self.len,
            inner,
        };
        self.group_into(src, &lines, w, &mut Slabs { dst, inner }, map);
    }

    /// The group of the columns of slab `s` whose part of the result is
    /// `block`.
    fn block_into<T>(
        &self,
        src: Src<'_, R>,
        s: usize,
        w: &mut Work<R>,
        block: &mut ColumnBlock<'_, T>,
        map: &impl Fn(Complex<R>) -> T,
    ) {
        let lines = Lines {
            first: s,
            slabs: 1,
            start: block.start(),
            width: block.width(),
            len: self.len,
            inner: self.inner,
        };
        self.group_into(src, &lines, w, block, map);
    }

    /// Gather, complete and transform the group's `lines`, and write its
    /// result, scaled and mapped, into `sink` (the group's part of the
    /// step's result).
    fn group_into<T>(
        &self,
        src: Src<'_, R>,
        lines: &Lines,
        w: &mut Work<R>,
        sink: &mut impl Sink<T>,
        map: &impl Fn(Complex<R>) -> T,
    ) {
        let (n, len, out) = (self.n, self.len, self.out);
        let h = n / 2 + 1;
        let count = lines.count();
        let scale = self.scale;
        match &self.fft {
            Some(Transform::Complex(fft)) => {
                w.lines.clear();
                w.lines.resize(count * n, Complex::zero());
                src.gather(lines, len.min(n), &mut w.lines, n);
                // Each chunk of `n` (`lines.len()` is a multiple).
                fft.process_with_scratch(&mut w.lines, &mut w.scratch);
                sink.put(out, &w.lines, n, |c| map(c * scale));
            }
            Some(Transform::Forward(fft)) => {
                w.real.clear();
                w.real.resize(count * n, R::zero());
                src.gather_re(lines, len.min(n), &mut w.real, n);
                w.lines.resize(count * h, Complex::zero());
                let pairs = w.real.chunks_exact_mut(n).zip(w.lines.chunks_exact_mut(h));
                for (line, result) in pairs {
                    // The lengths are the plan's: no error.
                    let _ = fft.process_with_scratch(line, result, &mut w.scratch);
                }
                sink.put(out, &w.lines, h, |c| map(c * scale));
            }
            Some(Transform::Inverse(fft)) => {
                w.lines.clear();
                w.lines.resize(count * h, Complex::zero());
                src.gather(lines, len.min(h), &mut w.lines, h);
                w.real.resize(count * n, R::zero());
                let pairs = w.lines.chunks_exact_mut(h).zip(w.real.chunks_exact_mut(n));
                for (line, result) in pairs {
                    hermitian_ends(line, n);
                    // The lengths are the plan's, and the imaginary parts
                    // the transform needs zero are: no error.
                    let _ = fft.process_with_scratch(line, result, &mut w.scratch);
                }
                sink.put(out, &w.real, n, |x| map(Complex::new(x * scale, R::zero())));
            }
            None => {}
        }
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

//! Row operations along the last axis: softmax and layer normalisation.
//! Rows are processed in parallel when the tensor is large; each row's
//! reductions accumulate in `f64`.

use rayon::prelude::*;

use super::fresh;
use super::isa::{dispatch, Isa};
use super::{parallel, KernelElement, UnaryOp};
use crate::error::Result;
use crate::kernels::parallel::install;
use crate::memory::buffer::OwnedBuffer;

/// Floating-point element types with row kernels.
pub trait RowElement: KernelElement {
    fn to_acc(self) -> f64;
    fn from_acc(v: f64) -> Self;
}
impl RowElement for f32 {
    #[inline(always)]
    fn to_acc(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn from_acc(v: f64) -> f32 {
        v as f32
    }
}
impl RowElement for f64 {
    #[inline(always)]
    fn to_acc(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_acc(v: f64) -> f64 {
        v
    }
}

fn for_rows<T: Send>(buf: &mut [T], row: usize, f: impl Fn(&mut [T]) + Sync + Send) {
    if row == 0 {
        return;
    }
    if parallel(buf.len()) && buf.len() / row > 1 {
        install(|| buf.par_chunks_mut(row).for_each(f));
    } else {
        buf.chunks_mut(row).for_each(f);
    }
}

/// Softmax of every row of `buf` (rows of length `row`), in place.
/// `x - max` first, so large inputs do not overflow; a NaN anywhere in a row
/// makes that row NaN.
pub(crate) fn softmax_inplace<T: RowElement>(buf: &mut [T], row: usize) {
    let isa = Isa::active();
    for_rows(buf, row, |r| dispatch!(isa, softmax_row::<T>(isa, r)));
}

/// Softmax of every row of `src` into a new buffer (see
/// [`softmax_inplace`]; one pass over `src`, no separate copy).
pub(crate) fn softmax_fresh<T: RowElement>(src: &[T], row: usize) -> Result<OwnedBuffer> {
    let isa = Isa::active();
    fresh::rows_then(src, row, |r| dispatch!(isa, softmax_row::<T>(isa, r)))
}

/// Layer normalisation of every row of `src` into a new buffer (see
/// [`layer_norm_inplace`]).
pub(crate) fn layer_norm_fresh<T: RowElement>(
    src: &[T],
    row: usize,
    gamma: Option<&[T]>,
    beta: Option<&[T]>,
    eps: f64,
) -> Result<OwnedBuffer> {
    let isa = Isa::active();
    fresh::rows_then(src, row, |r| {
        dispatch!(isa, layer_norm_row::<T>(r, gamma, beta, eps));
    })
}

/// Layer normalisation of every row of `buf`, in place:
/// `(x - mean) / sqrt(var + eps) * gamma + beta`, with `gamma`/`beta` of
/// length `row` (or absent: 1 and 0). Variance is the population variance,
/// computed in two passes.
pub(crate) fn layer_norm_inplace<T: RowElement>(
    buf: &mut [T],
    row: usize,
    gamma: Option<&[T]>,
    beta: Option<&[T]>,
    eps: f64,
) {
    let isa = Isa::active();
    for_rows(buf, row, |r| {
        dispatch!(isa, layer_norm_row::<T>(r, gamma, beta, eps));
    });
}

/// `Σ f(x)` over `r` in `f64`, across [`LANES`] independent accumulators
/// combined pairwise: the loop vectorises (a single running sum is a chain
/// of dependent additions, one per element, which no compiler may
/// reorder), and the result is at least as accurate as one running sum.
#[inline(always)]
fn lane_sum<T: RowElement>(r: &[T], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0.0f64; LANES];
    let chunks = r.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..LANES {
            acc[j] += f(c[j].to_acc());
        }
    }
    for (j, v) in rest.iter().enumerate() {
        acc[j] += f(v.to_acc());
    }
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for j in 0..w {
            acc[j] += acc[j + w];
        }
    }
    acc[0]
}

/// The largest element of `r` as `f64`, NaN if any is (across [`LANES`]
/// accumulators, as [`lane_sum`]; `-inf` for an empty row).
#[inline(always)]
fn lane_max<T: RowElement>(r: &[T]) -> f64 {
    // A NaN, once taken, stays: `v > NaN` is false.
    let step = |a: f64, v: f64| if v > a || v.is_nan() { v } else { a };
    let mut acc = [f64::NEG_INFINITY; LANES];
    let chunks = r.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..LANES {
            acc[j] = step(acc[j], c[j].to_acc());
        }
    }
    for (j, v) in rest.iter().enumerate() {
        acc[j] = step(acc[j], v.to_acc());
    }
    acc.into_iter().fold(f64::NEG_INFINITY, step)
}

/// The accumulators of [`lane_sum`]: two AVX-512 registers of `f64`.
const LANES: usize = 16;

/// One row's softmax (see [`softmax_inplace`]); compiled once per
/// instruction set (`isa_module!`), `isa` the level it runs at.
#[inline(always)]
pub(crate) fn softmax_row<T: RowElement>(isa: Isa, r: &mut [T]) {
    let m = lane_max(r);
    if m.is_nan() {
        r.fill(T::from_acc(f64::NAN));
        return;
    }
    for x in r.iter_mut() {
        *x = T::from_acc(x.to_acc() - m);
    }
    T::unary_inplace_run(isa, UnaryOp::Exp, r);
    let inv = 1.0 / lane_sum(r, |v| v);
    for x in r.iter_mut() {
        *x = T::from_acc(x.to_acc() * inv);
    }
}

/// One row's layer normalisation (see [`layer_norm_inplace`]); compiled
/// once per instruction set (`isa_module!`).
#[inline(always)]
pub(crate) fn layer_norm_row<T: RowElement>(
    r: &mut [T],
    gamma: Option<&[T]>,
    beta: Option<&[T]>,
    eps: f64,
) {
    let n = r.len() as f64;
    let mean = lane_sum(r, |v| v) / n;
    let var = lane_sum(r, |v| (v - mean) * (v - mean)) / n;
    let inv = 1.0 / (var + eps).sqrt();
    // One loop per case, so no element tests an `Option`.
    match (gamma, beta) {
        (Some(g), Some(b)) => {
            for ((x, g), b) in r.iter_mut().zip(g).zip(b) {
                *x = T::from_acc((x.to_acc() - mean) * inv * g.to_acc() + b.to_acc());
            }
        }
        (Some(g), None) => {
            for (x, g) in r.iter_mut().zip(g) {
                *x = T::from_acc((x.to_acc() - mean) * inv * g.to_acc());
            }
        }
        (None, Some(b)) => {
            for (x, b) in r.iter_mut().zip(b) {
                *x = T::from_acc((x.to_acc() - mean) * inv + b.to_acc());
            }
        }
        (None, None) => {
            for x in r.iter_mut() {
                *x = T::from_acc((x.to_acc() - mean) * inv);
            }
        }
    }
}

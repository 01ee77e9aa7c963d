//! Row operations along the last axis: softmax and layer normalisation.
//! Rows are processed in parallel when the tensor is large; each row's
//! reductions accumulate in `f64`.

use rayon::prelude::*;

use super::isa::Isa;
use super::{parallel, KernelElement, UnaryOp};
use crate::kernels::parallel::install;

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
    for_rows(buf, row, |r| {
        let mut m = f64::NEG_INFINITY;
        let mut nan = false;
        for x in r.iter() {
            let v = x.to_acc();
            nan |= v.is_nan();
            if v > m {
                m = v;
            }
        }
        if nan {
            r.fill(T::from_acc(f64::NAN));
            return;
        }
        let mt = T::from_acc(m);
        for x in r.iter_mut() {
            *x = T::from_acc(x.to_acc() - mt.to_acc());
        }
        T::unary_inplace_run(isa, UnaryOp::Exp, r);
        let s: f64 = r.iter().map(|x| x.to_acc()).sum();
        let inv = 1.0 / s;
        for x in r.iter_mut() {
            *x = T::from_acc(x.to_acc() * inv);
        }
    });
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
    for_rows(buf, row, |r| {
        let n = r.len() as f64;
        let mean = r.iter().map(|x| x.to_acc()).sum::<f64>() / n;
        let var = r.iter().map(|x| (x.to_acc() - mean).powi(2)).sum::<f64>() / n;
        let inv = 1.0 / (var + eps).sqrt();
        for (j, x) in r.iter_mut().enumerate() {
            let mut v = (x.to_acc() - mean) * inv;
            if let Some(g) = gamma {
                v *= g[j].to_acc();
            }
            if let Some(b) = beta {
                v += b[j].to_acc();
            }
            *x = T::from_acc(v);
        }
    });
}

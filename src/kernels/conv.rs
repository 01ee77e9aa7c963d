//! 2-d convolution (NCHW) by im2col and the GEMM, and the per-channel
//! affine map that inference batch normalisation reduces to.
//!
//! A convolution lowers one image at a time: [`im2col`] writes the image's
//! patches as the columns of a `[C·kh·kw, oh·ow]` matrix, and one GEMM of the
//! `[O, C·kh·kw]` weights with it writes that image's `[O, oh·ow]` output
//! directly in NCHW order. The column matrix is one image's worth of scratch,
//! reused for every image, so a batch never materialises `N` of them. A
//! 1×1 convolution with stride 1 and no padding needs no scratch at all: the
//! image already is its column matrix.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::matmul::{MatRef, MatmulElement, PAR_WORK};
use super::parallel;
use crate::array::element::{Element, Float};
use crate::kernels::parallel::install;

/// Element types with convolution and batch-norm kernels: `f32` and `f64`
/// (integer convolutions are not offered, as in the major frameworks).
pub trait ConvElement:
    MatmulElement + Float + std::ops::Mul<Output = Self> + std::ops::Add<Output = Self>
{
}
impl ConvElement for f32 {}
impl ConvElement for f64 {}

/// The geometry of a 2-d convolution, validated by the caller (the kernel
/// fits in the padded image, stride ≥ 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvGeometry {
    pub batch: usize,
    pub in_channels: usize,
    pub height: usize,
    pub width: usize,
    pub out_channels: usize,
    pub kernel_h: usize,
    pub kernel_w: usize,
    pub stride: usize,
    pub padding: usize,
}

impl ConvGeometry {
    /// Output height and width.
    pub fn out_hw(&self) -> (usize, usize) {
        let o = |n: usize, k: usize| (n + 2 * self.padding - k) / self.stride + 1;
        (o(self.height, self.kernel_h), o(self.width, self.kernel_w))
    }

    /// Rows of the column matrix: `C·kh·kw`.
    pub fn col_rows(&self) -> usize {
        self.in_channels * self.kernel_h * self.kernel_w
    }

    /// Elements of one image's column matrix (0 when none is needed).
    pub fn scratch_len(&self) -> usize {
        if self.is_pointwise() {
            0
        } else {
            let (oh, ow) = self.out_hw();
            self.col_rows() * oh * ow
        }
    }

    /// A 1×1, stride-1, unpadded convolution: a plain product per image.
    pub fn is_pointwise(&self) -> bool {
        self.kernel_h == 1 && self.kernel_w == 1 && self.stride == 1 && self.padding == 0
    }
}

/// Write image `x` (`[C, H, W]`) as a column matrix:
/// `col[(c·kh + i)·kw + j][oy·ow + ox] = x[c][oy·s + i − p][ox·s + j − p]`,
/// zero where that falls in the padding. Every element of `col` is written.
pub(crate) fn im2col<T: Element>(g: &ConvGeometry, x: &[T], col: &mut [T]) {
    let (oh, ow) = g.out_hw();
    let (h, w, kh, kw) = (g.height, g.width, g.kernel_h, g.kernel_w);
    let (s, p) = (g.stride, g.padding);
    let plane = oh * ow;
    assert!(x.len() >= g.in_channels * h * w && col.len() >= g.col_rows() * plane);
    if plane == 0 {
        return;
    }
    let fill_row = |(r, dst): (usize, &mut [T])| {
        let (c, i, j) = (r / (kh * kw), (r / kw) % kh, r % kw);
        let src = &x[c * h * w..(c + 1) * h * w];
        for (oy, drow) in dst.chunks_mut(ow).enumerate() {
            let iy = oy * s + i;
            if iy < p || iy - p >= h {
                drow.fill(T::ZERO);
                continue;
            }
            let srow = &src[(iy - p) * w..(iy - p + 1) * w];
            if s == 1 {
                // ix = ox + j - p lies in [0, w) for ox in [lo, hi).
                let lo = p.saturating_sub(j).min(ow);
                let hi = (w + p).saturating_sub(j).min(ow).max(lo);
                // When lo < hi, lo >= p - j (it was not clamped to ow), so
                // the source range starts at or after 0; an empty range
                // (the kernel column lies wholly in the padding) copies
                // nothing.
                drow[..lo].fill(T::ZERO);
                if lo < hi {
                    drow[lo..hi].copy_from_slice(&srow[lo + j - p..hi + j - p]);
                }
                drow[hi..].fill(T::ZERO);
            } else {
                for (ox, d) in drow.iter_mut().enumerate() {
                    let ix = ox * s + j;
                    *d = if ix < p || ix - p >= w {
                        T::ZERO
                    } else {
                        srow[ix - p]
                    };
                }
            }
        }
    };
    let col = &mut col[..g.col_rows() * plane];
    if parallel(col.len()) {
        install(|| col.par_chunks_mut(plane).enumerate().for_each(fill_row));
    } else {
        col.chunks_mut(plane).enumerate().for_each(fill_row);
    }
}

/// Image `xn`'s column matrix: the image itself for a pointwise
/// convolution, else written into `col` by [`im2col`].
fn columns<'a, T: Element>(g: &ConvGeometry, xn: &'a [T], col: &'a mut [T]) -> &'a [T] {
    if g.is_pointwise() {
        xn
    } else {
        im2col(g, xn, col);
        col
    }
}

/// The convolution of `x` (`[N, C, H, W]`) with `w` (`[O, C, kh, kw]`) into
/// `dst` (`[N, O, oh, ow]`), using `col` (at least
/// [`scratch_len`](ConvGeometry::scratch_len) elements) as scratch. Every
/// element of `dst` is written.
pub(crate) fn conv2d<T: ConvElement>(
    g: &ConvGeometry,
    x: &[T],
    w: &[T],
    col: &mut [T],
    dst: &mut [MaybeUninit<T>],
) {
    let (oh, ow) = g.out_hw();
    let plane = oh * ow;
    let (rows, o) = (g.col_rows(), g.out_channels);
    let image = g.in_channels * g.height * g.width;
    assert!(x.len() >= g.batch * image && w.len() >= o * rows);
    assert!(dst.len() >= g.batch * o * plane && col.len() >= g.scratch_len());
    if o * plane == 0 {
        return;
    }
    let threads = o.saturating_mul(plane).saturating_mul(rows) >= PAR_WORK;
    for (n, out) in dst.chunks_mut(o * plane).take(g.batch).enumerate() {
        let cols = columns(g, &x[n * image..(n + 1) * image], col);
        T::gemm_one(
            MatRef::dense(w, rows),
            MatRef::dense(cols, plane),
            out,
            o,
            rows,
            plane,
            threads,
        );
    }
}

/// The convolution written over its own input: `io` holds `x`
/// (`[N, C, H, W]`) and receives the result, which must have the same shape
/// (`O == C`, same height and width). Image `n`'s output depends only on
/// image `n`, so each image is computed into `image` (one image of scratch)
/// and copied over its input, which nothing reads afterwards.
pub(crate) fn conv2d_over_input<T: ConvElement>(
    g: &ConvGeometry,
    io: &mut [T],
    w: &[T],
    col: &mut [T],
    image: &mut [T],
) {
    let (oh, ow) = g.out_hw();
    let (rows, o) = (g.col_rows(), g.out_channels);
    let len = g.in_channels * g.height * g.width;
    assert!(o * oh * ow == len, "the result must have the input's shape");
    assert!(io.len() >= g.batch * len && w.len() >= o * rows);
    assert!(image.len() >= len && col.len() >= g.scratch_len());
    if len == 0 {
        return;
    }
    let threads = len.saturating_mul(rows) >= PAR_WORK;
    let image = &mut image[..len];
    let ptr = image.as_mut_ptr().cast::<MaybeUninit<T>>();
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and gemm_one only writes
    // initialised values into its destination (it never de-initialises an
    // element), so `image` stays a valid `[T]` for its later reads.
    let dst = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
    for xn in io.chunks_mut(len).take(g.batch) {
        // gemm_one writes all o * oh * ow == len elements of `dst` (read_dst
        // = false overwrites; an empty reduction writes zeros).
        T::gemm_one(
            MatRef::dense(w, rows),
            MatRef::dense(columns(g, xn, col), oh * ow),
            dst,
            o,
            rows,
            oh * ow,
            threads,
        );
        // SAFETY: see above: `dst` and `image` are the same memory, fully
        // written by gemm_one; this reads it as the `[T]` it is.
        let done = unsafe { std::slice::from_raw_parts(dst.as_ptr().cast::<T>(), len) };
        xn.copy_from_slice(done);
    }
}

/// `y[n][c][..] = x[n][c][..] · scale[c] + shift[c]` in place over `buf`
/// viewed as `[N, C, plane]`, with `scale.len() == shift.len() == C`.
pub(crate) fn channel_affine_inplace<T: ConvElement>(
    buf: &mut [T],
    plane: usize,
    scale: &[T],
    shift: &[T],
) {
    let c = scale.len();
    assert_eq!(c, shift.len());
    if plane == 0 || c == 0 {
        return;
    }
    let run = |(k, p): (usize, &mut [T])| {
        let (a, b) = (scale[k % c], shift[k % c]);
        for v in p.iter_mut() {
            *v = *v * a + b;
        }
    };
    if parallel(buf.len()) {
        install(|| buf.par_chunks_mut(plane).enumerate().for_each(run));
    } else {
        buf.chunks_mut(plane).enumerate().for_each(run);
    }
}

/// Check the shapes of a 2-d convolution of `x` (`[N, C, H, W]`) with `w`
/// (`[O, C, kh, kw]`) and return its geometry.
pub fn conv2d_geometry(
    x: &[usize],
    w: &[usize],
    stride: usize,
    padding: usize,
) -> crate::error::Result<ConvGeometry> {
    let invalid = |shape: &[usize], reason: String| crate::error::Error::InvalidShape {
        op: "conv2d",
        shape: shape.to_vec(),
        reason,
    };
    let [n, c, h, wd] = *x else {
        return Err(invalid(x, "the input must be 4-d [N, C, H, W]".into()));
    };
    let [o, wc, kh, kw] = *w else {
        return Err(invalid(w, "the weight must be 4-d [O, C, kh, kw]".into()));
    };
    if wc != c {
        return Err(crate::error::Error::InvalidShape {
            op: "conv2d",
            shape: w.to_vec(),
            reason: format!(
                "the weight has {wc} input channels (axis 1), the input {x:?} has {c} (axis 1)"
            ),
        });
    }
    if stride == 0 {
        return Err(invalid(x, "stride must be at least 1".into()));
    }
    if kh == 0 || kw == 0 {
        return Err(invalid(w, "the kernel must be at least 1x1".into()));
    }
    let fits = |len: usize, k: usize| {
        len.checked_add(padding.checked_mul(2)?)
            .is_some_and(|p| p >= k)
            .then_some(())
    };
    if fits(h, kh).is_none() || fits(wd, kw).is_none() {
        return Err(invalid(
            x,
            format!("a {kh}x{kw} kernel does not fit the image padded by {padding}"),
        ));
    }
    Ok(ConvGeometry {
        batch: n,
        in_channels: c,
        height: h,
        width: wd,
        out_channels: o,
        kernel_h: kh,
        kernel_w: kw,
        stride,
        padding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct convolution, the definition.
    fn direct(g: &ConvGeometry, x: &[f64], w: &[f64]) -> Vec<f64> {
        let (oh, ow) = g.out_hw();
        let mut out = vec![0.0; g.batch * g.out_channels * oh * ow];
        for n in 0..g.batch {
            for o in 0..g.out_channels {
                for oy in 0..oh {
                    for ox in 0..ow {
                        let mut acc = 0.0;
                        for c in 0..g.in_channels {
                            for i in 0..g.kernel_h {
                                for j in 0..g.kernel_w {
                                    let iy = (oy * g.stride + i) as isize - g.padding as isize;
                                    let ix = (ox * g.stride + j) as isize - g.padding as isize;
                                    if iy < 0
                                        || ix < 0
                                        || iy >= g.height as isize
                                        || ix >= g.width as isize
                                    {
                                        continue;
                                    }
                                    let xv = x[((n * g.in_channels + c) * g.height + iy as usize)
                                        * g.width
                                        + ix as usize];
                                    let wv = w[((o * g.in_channels + c) * g.kernel_h + i)
                                        * g.kernel_w
                                        + j];
                                    acc += xv * wv;
                                }
                            }
                        }
                        out[((n * g.out_channels + o) * oh + oy) * ow + ox] = acc;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn im2col_gemm_equals_the_direct_convolution() {
        // Every small geometry, including kernels wider than the image
        // (all of a kernel column in the padding) and padding wider than
        // the kernel.
        let mut checked = 0;
        for k in 1..=5 {
            for s in 1..=3 {
                for p in 0..=3 {
                    for h in 1..=6 {
                        for w in 1..=6 {
                            if h + 2 * p < k || w + 2 * p < k {
                                continue;
                            }
                            check_geometry(k, s, p, h, w);
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000);
    }

    fn check_geometry(k: usize, s: usize, p: usize, h: usize, w: usize) {
        let g = ConvGeometry {
            batch: 2,
            in_channels: 2,
            height: h,
            width: w,
            out_channels: 3,
            kernel_h: k,
            kernel_w: k,
            stride: s,
            padding: p,
        };
        let x: Vec<f64> = (0..2 * 2 * h * w)
            .map(|i| ((i * 7) % 11) as f64 - 5.0)
            .collect();
        let wt: Vec<f64> = (0..g.out_channels * 2 * k * k)
            .map(|i| ((i * 5) % 7) as f64 - 3.0)
            .collect();
        let got = crate::kernels::fresh::conv2d(&g, &x, &wt, None).unwrap();
        assert_eq!(
            got.as_slice::<f64>(),
            &direct(&g, &x, &wt)[..],
            "k={k} s={s} p={p} h={h} w={w}"
        );
    }

    #[test]
    #[allow(clippy::float_cmp)] // small integers and halves: exact in f32
    fn channel_affine_scales_each_channel() {
        let mut x: Vec<f32> = (0..2 * 3 * 4).map(|i| i as f32).collect();
        channel_affine_inplace(&mut x, 4, &[1.0, 2.0, 0.5], &[0.0, 1.0, -1.0]);
        for (i, v) in x.iter().enumerate() {
            let c = (i / 4) % 3;
            let want = i as f32 * [1.0, 2.0, 0.5][c] + [0.0, 1.0, -1.0][c];
            assert_eq!(*v, want);
        }
    }
}

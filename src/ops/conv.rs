//! Convolution and inference batch normalisation, NCHW.
//!
//! * [`conv2d`] claims an offered input whose shape the result keeps (a
//!   "same" convolution with as many output channels as input channels):
//!   image `n` of the result depends only on image `n` of the input, so it
//!   is computed into one image of scratch and copied over that image.
//!   Otherwise it writes a new buffer. The weight is never claimed.
//! * [`batch_norm`] is element-wise per channel, so it claims an offered
//!   input like any unary op, and [`Tensor::batch_norm_inplace`] updates a
//!   tensor in place (copy-on-write when its buffer is shared).

use super::{
    claim_target, copy_then, finish, outcome_of, reused, same_shape, typed_plan, update, Applied,
    Operand,
};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::conv::{channel_affine_inplace, ConvElement};
use crate::kernels::fresh;
use crate::plan::{Offer, Op, Plan};

pub use crate::kernels::conv2d_geometry;

/// 2-d cross-correlation (what deep-learning frameworks call convolution)
/// of `x` (`[N, C, H, W]`) with `w` (`[O, C, kh, kw]`), zero padding
/// `padding` on every side, plus an optional `bias` of shape `[O]`.
///
/// When `x` is offered and the result has its shape (`O == C` and a
/// "same" geometry, as in a ResNet block), its buffer is claimed and the
/// result written over it one image at a time; otherwise the result is a
/// new `[N, O, oh, ow]` buffer. The weight is never claimed.
// `w` by value as every op's operands (an offer is answered with a
// refusal), though only read.
#[allow(clippy::needless_pass_by_value)]
pub fn conv2d<T: ConvElement>(
    x: Operand<'_, T>,
    w: Operand<'_, T>,
    bias: Option<&Tensor<T>>,
    stride: usize,
    padding: usize,
) -> Result<Applied<T>> {
    let op = Op::Conv2d {
        stride,
        padding,
        bias: bias.is_some(),
    };
    let b = bias.map(Operand::Ref);
    let mut ops = vec![&x, &w];
    ops.extend(b.iter());
    let plan = typed_plan(&op, &ops)?;
    run_conv2d(&plan, x, &w, bias)
}

/// Run a convolution plan. Every allocation (the scratch of writing over
/// the input) comes before the claim, so a failure leaves `x` intact.
pub(crate) fn run_conv2d<T: ConvElement>(
    plan: &Plan,
    mut x: Operand<'_, T>,
    w: &Operand<'_, T>,
    bias: Option<&Tensor<T>>,
) -> Result<Applied<T>> {
    let Op::Conv2d {
        stride, padding, ..
    } = plan.op
    else {
        return Err(Error::InvalidArgument {
            op: "conv2d",
            reason: format!("not a convolution plan: {plan}"),
        });
    };
    let (Some(tx), Some(tw)) = (x.tensor(), w.tensor()) else {
        return Err(Error::InvalidShape {
            op: "conv2d",
            shape: vec![],
            reason: "conv2d needs an input and a weight tensor".into(),
        });
    };
    let g = conv2d_geometry(tx.shape(), tw.shape(), stride, padding)?;
    let b = bias.map(Tensor::as_slice).transpose()?;
    let wv = tw.as_slice()?;
    tx.as_slice()?;
    let mut outcome = outcome_of(plan);
    let mut scratch = match plan.target {
        Some(_) => Some(fresh::OverInputScratch::new::<T>(&g)?),
        None => None,
    };
    if let (Some((_, mut buf)), Some(scratch)) = (
        claim_target(plan, &mut [&mut x], &mut outcome),
        scratch.as_mut(),
    ) {
        fresh::conv2d_over_input(&g, buf.as_mut_slice::<T>(), wv, b, scratch);
        reused(&mut outcome, plan, 0, buf.len());
        return Ok(finish(
            plan,
            Tensor::from_buffer(buf, &plan.shape)?,
            outcome,
        ));
    }
    let xv = x.tensor().map(Tensor::as_slice).transpose()?.unwrap_or(&[]);
    let buf = fresh::conv2d(&g, xv, wv, b)?;
    Ok(finish(
        plan,
        Tensor::from_buffer(buf, &plan.shape)?,
        outcome,
    ))
}

/// The running statistics and affine parameters of inference batch
/// normalisation over axis 1: `(x - mean) / sqrt(var + eps) * gamma + beta`.
#[derive(Debug, Clone, Copy)]
pub struct BatchNorm<'a, T: ConvElement> {
    pub mean: &'a Tensor<T>,
    pub var: &'a Tensor<T>,
    /// Absent: 1.
    pub gamma: Option<&'a Tensor<T>>,
    /// Absent: 0.
    pub beta: Option<&'a Tensor<T>>,
    pub eps: f64,
}

impl<T: ConvElement> BatchNorm<'_, T> {
    /// Per-channel `(scale, shift)` for an input of shape `x`, computed in
    /// `f64`, and the length of one channel plane.
    fn affine(&self, x: &[usize]) -> Result<(Vec<T>, Vec<T>, usize)> {
        let invalid = |reason: String| Error::InvalidShape {
            op: "batch_norm",
            shape: x.to_vec(),
            reason,
        };
        if x.len() < 2 {
            return Err(invalid(
                "the input needs at least 2 axes [N, C, ...]".into(),
            ));
        }
        if self.eps.is_nan() || self.eps < 0.0 {
            return Err(invalid(format!("eps must be >= 0, got {}", self.eps)));
        }
        let c = x[1];
        let param = |p: &Tensor<T>| -> Result<Vec<f64>> {
            if p.shape() != [c] {
                return Err(Error::InvalidShape {
                    op: "batch_norm",
                    shape: p.shape().to_vec(),
                    reason: format!(
                        "each parameter (mean, var, weight, bias) must have shape [{c}], one value per channel of the input {x:?}"
                    ),
                });
            }
            Ok(p.as_slice()?.iter().map(|v| v.to_f64()).collect())
        };
        let (mean, var) = (param(self.mean)?, param(self.var)?);
        let gamma = self.gamma.map(param).transpose()?;
        let beta = self.beta.map(param).transpose()?;
        let mut scale = Vec::with_capacity(c);
        let mut shift = Vec::with_capacity(c);
        for k in 0..c {
            let s = gamma.as_ref().map_or(1.0, |g| g[k]) / (var[k] + self.eps).sqrt();
            scale.push(T::from_f64(s));
            shift.push(T::from_f64(
                beta.as_ref().map_or(0.0, |b| b[k]) - mean[k] * s,
            ));
        }
        Ok((scale, shift, x[2..].iter().product()))
    }
}

/// Inference batch normalisation over axis 1 of `x` (`[N, C, ...]`),
/// claiming `x`'s buffer when offered.
pub fn batch_norm<T: ConvElement>(x: Operand<'_, T>, p: &BatchNorm<'_, T>) -> Result<Applied<T>> {
    let op = Op::BatchNorm {
        eps: p.eps,
        gamma: p.gamma.is_some(),
        beta: p.beta.is_some(),
    };
    let params: Vec<Operand<'_, T>> = [Some(p.mean), Some(p.var), p.gamma, p.beta]
        .into_iter()
        .flatten()
        .map(Operand::Ref)
        .collect();
    let mut ops = vec![&x];
    ops.extend(params.iter());
    let plan = typed_plan(&op, &ops)?;
    run_batch_norm(&plan, x, p)
}

/// Run a batch-norm plan.
pub(crate) fn run_batch_norm<T: ConvElement>(
    plan: &Plan,
    x: Operand<'_, T>,
    p: &BatchNorm<'_, T>,
) -> Result<Applied<T>> {
    let (scale, shift, plane) = p.affine(x.shape())?;
    let run = |b: &mut [T]| channel_affine_inplace(b, plane, &scale, &shift);
    let in_place = |b: &mut [T]| {
        run(b);
        Ok(())
    };
    same_shape(plan, x, in_place, |s| copy_then(s, run))
}

impl<T: ConvElement> Tensor<T> {
    /// 2-d convolution (see [`conv2d`]) of a borrowed tensor: a new buffer.
    pub fn conv2d(
        &self,
        weight: &Tensor<T>,
        bias: Option<&Tensor<T>>,
        stride: usize,
        padding: usize,
    ) -> Result<Tensor<T>> {
        Ok(conv2d(
            Operand::Ref(self),
            Operand::Ref(weight),
            bias,
            stride,
            padding,
        )?
        .0)
    }

    /// 2-d convolution by value: the result is written over this tensor's
    /// buffer when it is exclusive and the result has its shape.
    pub fn conv2d_into(
        mut self,
        weight: &Tensor<T>,
        bias: Option<&Tensor<T>>,
        stride: usize,
        padding: usize,
    ) -> Result<Tensor<T>> {
        let x = Operand::Owned(&mut self, Offer::Temporary);
        Ok(conv2d(x, Operand::Ref(weight), bias, stride, padding)?.0)
    }

    /// Inference batch normalisation by value: reuses the buffer when
    /// exclusive.
    pub fn batch_norm(mut self, p: &BatchNorm<'_, T>) -> Result<Tensor<T>> {
        Ok(batch_norm(Operand::Owned(&mut self, Offer::Temporary), p)?.0)
    }

    /// Inference batch normalisation in place (copy-on-write when the
    /// buffer is shared).
    pub fn batch_norm_inplace(&mut self, p: &BatchNorm<'_, T>) -> Result<()> {
        let (scale, shift, plane) = p.affine(self.shape())?;
        let run = |b: &mut [T]| channel_affine_inplace(b, plane, &scale, &shift);
        let in_place = |b: &mut [T]| {
            run(b);
            Ok(())
        };
        update(self, in_place, |s| copy_then(s, run))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::counters::memory_stats;

    fn bn_params() -> [Tensor<f32>; 4] {
        [
            Tensor::from_vec(vec![0.5, -1.0], &[2]).unwrap(),
            Tensor::from_vec(vec![4.0, 0.25], &[2]).unwrap(),
            Tensor::from_vec(vec![2.0, 1.0], &[2]).unwrap(),
            Tensor::from_vec(vec![0.0, 3.0], &[2]).unwrap(),
        ]
    }

    #[test]
    fn batch_norm_by_value_reuses_the_buffer_and_matches_the_formula() {
        let [mean, var, gamma, beta] = bn_params();
        let p = BatchNorm {
            mean: &mean,
            var: &var,
            gamma: Some(&gamma),
            beta: Some(&beta),
            eps: 0.0,
        };
        let x = Tensor::<f32>::from_vec((0..8).map(|v| v as f32).collect(), &[2, 2, 2]).unwrap();
        let ptr = x.buffer_ptr();
        let y = x.batch_norm(&p).unwrap();
        assert_eq!(y.buffer_ptr(), ptr, "an exclusive input is reused");
        let want: Vec<f32> = (0..8)
            .map(|i| {
                let c = (i / 2) % 2;
                let (m, v, g, b) = (
                    [0.5, -1.0][c],
                    [4.0f32, 0.25][c],
                    [2.0, 1.0][c],
                    [0.0, 3.0][c],
                );
                (i as f32 - m) / v.sqrt() * g + b
            })
            .collect();
        assert_eq!(y.to_vec().unwrap(), want);
    }

    #[test]
    fn batch_norm_inplace_copies_on_write_when_shared() {
        let [mean, var, ..] = bn_params();
        let p = BatchNorm {
            mean: &mean,
            var: &var,
            gamma: None,
            beta: None,
            eps: 1e-5,
        };
        let mut x = Tensor::<f32>::ones(&[1, 2, 3]).unwrap();
        let view = x.reshape(&[6]).unwrap();
        x.batch_norm_inplace(&p).unwrap();
        assert!(!x.shares_buffer_with(&view));
        assert_eq!(view.to_vec().unwrap(), vec![1.0; 6]);
        let ptr = x.buffer_ptr();
        x.batch_norm_inplace(&p).unwrap();
        assert_eq!(x.buffer_ptr(), ptr, "exclusive now: in place");
    }

    #[test]
    fn batch_norm_rejects_bad_parameters() {
        let [mean, var, ..] = bn_params();
        let p = BatchNorm {
            mean: &mean,
            var: &var,
            gamma: None,
            beta: None,
            eps: 1e-5,
        };
        let x = Tensor::<f32>::ones(&[1, 3, 2]).unwrap();
        let e = x.batch_norm(&p).unwrap_err();
        assert!(e.to_string().contains("mean must have shape (3,)"), "{e}");
        let x = Tensor::<f32>::ones(&[2]).unwrap();
        let e = x.batch_norm(&p).unwrap_err();
        assert!(e.to_string().contains("at least 2 axes"), "{e}");
    }

    #[test]
    #[allow(clippy::float_cmp)] // sums of a few ones: exact in f32
    fn conv2d_counts_its_scratch_and_returns_nchw() {
        let x = Tensor::<f32>::ones(&[2, 3, 8, 8]).unwrap();
        let w = Tensor::<f32>::ones(&[4, 3, 3, 3]).unwrap();
        let b = Tensor::<f32>::from_vec(vec![0.0, 1.0, 2.0, 3.0], &[4]).unwrap();
        let before = memory_stats().allocations;
        let y = x.conv2d(&w, Some(&b), 1, 1).unwrap();
        assert_eq!(y.shape(), [2, 4, 8, 8]);
        // the output and one image's column matrix
        assert!(memory_stats().allocations - before >= 2);
        let v = y.to_vec().unwrap();
        // interior pixel: 27 ones; corner: 12 (2x2 window x 3 channels)
        assert_eq!(v[3 * 64 + 8 + 1 + 8], 27.0 + 3.0);
        assert_eq!(v[0], 12.0);
        let s2 = x.conv2d(&w, None, 2, 0).unwrap();
        assert_eq!(s2.shape(), [2, 4, 3, 3]);
    }

    #[test]
    fn conv2d_by_value_writes_over_its_input_when_the_shape_is_kept() {
        let data: Vec<f32> = (0..2 * 3 * 5 * 5)
            .map(|i| ((i * 7) % 5) as f32 - 2.0)
            .collect();
        let w = Tensor::<f32>::from_vec(
            (0..3 * 3 * 9).map(|i| (i % 4) as f32).collect(),
            &[3, 3, 3, 3],
        )
        .unwrap();
        let b = Tensor::<f32>::from_vec(vec![1.0, -1.0, 0.5], &[3]).unwrap();
        let x = Tensor::from_vec(data.clone(), &[2, 3, 5, 5]).unwrap();
        let want = x.conv2d(&w, Some(&b), 1, 1).unwrap();
        let ptr = x.buffer_ptr();
        let y = x.conv2d_into(&w, Some(&b), 1, 1).unwrap();
        assert_eq!(y.buffer_ptr(), ptr);
        assert_eq!(y.to_vec().unwrap(), want.to_vec().unwrap());
        // shared: refused, a new buffer, the input intact
        let x = Tensor::from_vec(data.clone(), &[2, 3, 5, 5]).unwrap();
        let keep = x.reshape(&[150]).unwrap();
        let (y, outcome) = conv2d(
            Operand::Owned(
                &mut x.reshape(&[2, 3, 5, 5]).unwrap(),
                crate::plan::Offer::Donated,
            ),
            Operand::Ref(&w),
            Some(&b),
            1,
            1,
        )
        .unwrap();
        assert!(matches!(
            outcome.refused[..],
            [(0, crate::ops::Refusal::Shared { .. })]
        ));
        assert!(!y.shares_buffer_with(&keep));
        assert_eq!(keep.to_vec().unwrap(), data);
        // another shape (stride 2): refused, a new buffer
        let mut x = Tensor::from_vec(data, &[2, 3, 5, 5]).unwrap();
        let (_, outcome) = conv2d(
            Operand::Owned(&mut x, crate::plan::Offer::Temporary),
            Operand::Ref(&w),
            None,
            2,
            1,
        )
        .unwrap();
        assert!(matches!(
            outcome.refused[..],
            [(0, crate::ops::Refusal::Shape { .. })]
        ));
        assert!(!x.is_donated());
    }

    #[test]
    fn conv2d_rejects_bad_shapes() {
        let x = Tensor::<f32>::ones(&[1, 3, 2, 2]).unwrap();
        for (w, stride, pad) in [
            (vec![4, 2, 3, 3], 1, 1),
            (vec![4, 3, 3, 3], 1, 0),
            (vec![4, 3, 3, 3], 0, 1),
            (vec![4, 3, 3], 1, 1),
            (vec![4, 3, 0, 1], 1, 1),
        ] {
            let w = Tensor::<f32>::ones(&w).unwrap();
            assert!(x.conv2d(&w, None, stride, pad).is_err(), "{:?}", w.shape());
        }
    }
}

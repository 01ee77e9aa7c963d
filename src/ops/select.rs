//! `where`, `clip` and `scatter` run from a plan: three broadcast
//! operands, the result written over the planned target (a value operand
//! of `where`, `x` of `clip` and `scatter`) when the claim succeeds, else
//! into a new buffer; `scatter` also in place (assignment through integer
//! arrays).

use super::{claim_target, copy_then, count_fallbacks, outcome_of, reused, update, Operand};
use crate::array::dyn_tensor::{AnyElement, DynElement, DynTensor};
use crate::array::element::Element;
use crate::array::layout::Layout;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::fresh;
use crate::kernels::select::{clip_into, clip_iter, where_into, where_iter, Src};
use crate::memory::buffer::OwnedBuffer;
use crate::plan::{Outcome, Plan};

/// An operand's data as the selection kernels read it: one element, or
/// one per output element (copied to the output's shape when it has
/// another; the plan counts that copy as scratch).
enum Held<'a, T> {
    One(T),
    Each(&'a [T]),
    Copied(OwnedBuffer),
}

impl<'a, T: Element> Held<'a, T> {
    fn of(o: &'a Operand<'_, T>, out: &[usize]) -> Result<Self> {
        let (data, shape) = match o {
            Operand::Scalar(v) => return Ok(Held::One(*v)),
            Operand::Ref(t) => (t.as_slice()?, t.shape()),
            Operand::Owned(t, _) => (t.as_slice()?, t.shape()),
        };
        let shape = crate::array::shape::assigned_shape(shape, out.len());
        Ok(if data.len() == 1 {
            Held::One(data[0])
        } else if shape == out {
            Held::Each(data)
        } else {
            Held::Copied(fresh::gathered(data, &Layout::broadcast(shape, out)?)?)
        })
    }

    fn src(&self) -> Src<'_, T> {
        match self {
            Held::One(v) => Src::One(*v),
            Held::Each(s) => Src::Each(s),
            Held::Copied(b) => Src::Each(b.as_slice::<T>()),
        }
    }
}

fn done(plan: &Plan, buf: OwnedBuffer, outcome: Outcome) -> Result<(DynTensor, Outcome)> {
    let t = DynTensor::from_buffer(plan.dtype, buf, &plan.shape)?;
    count_fallbacks(plan, &outcome);
    Ok((t, outcome))
}

/// Run a `where` plan: `c` is the condition (read as bool), `a` and `b`
/// the values.
pub(crate) fn run_where<'x, T: AnyElement>(
    plan: &Plan,
    c: &Operand<'_, bool>,
    mut a: Operand<'x, T>,
    mut b: Operand<'x, T>,
) -> Result<(DynTensor, Outcome)> {
    let out = plan.shape.to_vec();
    let n: usize = out.iter().product();
    let mut outcome = outcome_of(plan);
    let hc = Held::of(c, &out)?;
    let mut none = Operand::Scalar(T::ZERO);
    if let Some((idx, mut buf)) = claim_target(plan, &mut [&mut none, &mut a, &mut b], &mut outcome)
    {
        let bytes = buf.len();
        let other = Held::of(if idx == 1 { &b } else { &a }, &out)?;
        where_into(buf.as_mut_slice::<T>(), hc.src(), other.src(), idx == 1);
        reused(&mut outcome, plan, idx, bytes);
        return done(plan, buf, outcome);
    }
    let (ha, hb) = (Held::of(&a, &out)?, Held::of(&b, &out)?);
    let buf = fresh::from_iter(n, where_iter(hc.src(), ha.src(), hb.src(), n))?;
    done(plan, buf, outcome)
}

/// Run a `clip` plan: `x` and its bounds (`lo`, `hi`, each optional).
pub(crate) fn run_clip<T: DynElement>(
    plan: &Plan,
    mut x: Operand<'_, T>,
    lo: Option<&Operand<'_, T>>,
    hi: Option<&Operand<'_, T>>,
) -> Result<(DynTensor, Outcome)> {
    let out = plan.shape.to_vec();
    let n: usize = out.iter().product();
    let mut outcome = outcome_of(plan);
    let hl = lo.map(|o| Held::of(o, &out)).transpose()?;
    let hh = hi.map(|o| Held::of(o, &out)).transpose()?;
    let (sl, sh) = (hl.as_ref().map(Held::src), hh.as_ref().map(Held::src));
    if let Some((idx, mut buf)) = claim_target(plan, &mut [&mut x], &mut outcome) {
        let bytes = buf.len();
        clip_into(buf.as_mut_slice::<T>(), sl, sh);
        reused(&mut outcome, plan, idx, bytes);
        return done(plan, buf, outcome);
    }
    let hx = Held::of(&x, &out)?;
    let buf = fresh::from_iter(n, clip_iter(hx.src(), sl, sh, n))?;
    done(plan, buf, outcome)
}

/// The first of `positions` outside `0..n`, as an error (checked before
/// anything is written, so that a failure leaves the target as it was).
fn check_positions(op: &'static str, positions: &[i64], n: usize) -> Result<()> {
    match positions
        .iter()
        .find(|&&p| usize::try_from(p).map_or(true, |p| p >= n))
    {
        Some(&p) => Err(Error::InvalidArgument {
            op,
            reason: format!("position {p} is outside a tensor of {n} elements"),
        }),
        None => Ok(()),
    }
}

/// `s[positions[k]] = value[k]` in C order, so that of repeated
/// positions the last is kept. Every position is in `0..s.len()`
/// ([`check_positions`]).
fn put<T: Copy>(s: &mut [T], positions: &[i64], value: &Src<'_, T>) {
    for (k, &p) in positions.iter().enumerate() {
        s[p as usize] = value.at(k);
    }
}

/// Run a `scatter` plan: `x` with the elements at `positions` (of shape
/// `pshape`) replaced by `value`, over `x`'s claimed buffer or a copy.
pub(crate) fn run_scatter<T: AnyElement>(
    plan: &Plan,
    mut x: Operand<'_, T>,
    positions: &[i64],
    pshape: &[usize],
    value: &Operand<'_, T>,
) -> Result<(DynTensor, Outcome)> {
    check_positions(plan.op.name(), positions, plan.shape.iter().product())?;
    let hv = Held::of(value, pshape)?;
    let mut outcome = outcome_of(plan);
    if let Some((idx, mut buf)) = claim_target(plan, &mut [&mut x], &mut outcome) {
        let bytes = buf.len();
        put(buf.as_mut_slice::<T>(), positions, &hv.src());
        reused(&mut outcome, plan, idx, bytes);
        return done(plan, buf, outcome);
    }
    let one = x.scalar();
    let buf = copy_then(x.data(&one)?, |b| put(b, positions, &hv.src()))?;
    done(plan, buf, outcome)
}

impl<T: Element> Tensor<T> {
    /// `self.flat[positions] = value` (`value` broadcast to `pshape`, the
    /// positions' shape) in place, copy-on-write if shared.
    pub(crate) fn scatter_inplace(
        &mut self,
        positions: &[i64],
        pshape: &[usize],
        value: &Operand<'_, T>,
    ) -> Result<()> {
        check_positions("__setitem__", positions, self.numel())?;
        let hv = Held::of(value, pshape)?;
        let src = hv.src();
        update(
            self,
            |b| {
                put(b, positions, &src);
                Ok(())
            },
            |s| copy_then(s, |b| put(b, positions, &src)),
        )
    }
}

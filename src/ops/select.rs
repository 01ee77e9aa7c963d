//! `where` and `clip` run from a plan: three broadcast operands, the
//! result written over the planned target (a value operand of `where`,
//! `x` of `clip`) when the claim succeeds, else into a new buffer.

use super::{claim_target, count_fallbacks, outcome_of, reused, Operand};
use crate::buffer::OwnedBuffer;
use crate::dyn_tensor::{DynElement, DynTensor};
use crate::element::Element;
use crate::error::Result;
use crate::kernels::fresh;
use crate::kernels::select::{clip_into, clip_iter, where_into, where_iter, Src};
use crate::layout::Layout;
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
pub(crate) fn run_where<'x, T: DynElement>(
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

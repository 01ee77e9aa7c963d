//! Running a [`Plan`] over dtype-erased operands: casts, then the claim of
//! the target, then the typed kernels of [`crate::ops`], dispatched once
//! on the plan's dtype.

use crate::array::dyn_tensor::{
    each_real, for_dtype, for_float, number, AnyElement, DynElement, DynTensor, Scalar,
};
use crate::array::element::{DType, F16};
use crate::array::shape::dims;
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::kernels::complex::Member;
use crate::memory::buffer::{serve_planned, OwnedBuffer};
use crate::ops::conv::{self, BatchNorm};
use crate::ops::func::Exact;
use crate::ops::{
    attention, binary, count_fallbacks, nn, outcome_of, reused, unary, Operand, Outcome, Refusal,
};
use crate::plan::{permute_axes, storage, Op, Plan, Reduction};

/// One operand of [`execute`], in the plan's operand order.
#[derive(Debug)]
pub enum Arg<'a> {
    /// A handle the operation reads; when it is the plan's target, a
    /// tensor nobody else holds (a temporary the caller made), whose
    /// buffer is claimed.
    Tensor(DynTensor),
    /// A tensor the caller holds in place (a Python tensor's slot): the
    /// plan's target is claimed from it, leaving it donated; otherwise it
    /// is read.
    Held(&'a mut DynTensor),
    Scalar(Scalar),
    /// The target itself, read by an in-place binary op (`x op= x`): read
    /// through the target, so that no second handle makes its buffer look
    /// shared. Only an [`Op::Binary`] of [`execute_in_place`] whose plan
    /// neither casts nor gathers the operand takes it.
    Target,
}

impl Arg<'_> {
    fn tensor(&self) -> Option<&DynTensor> {
        match self {
            Arg::Tensor(t) => Some(t),
            Arg::Held(t) => Some(t),
            Arg::Scalar(_) | Arg::Target => None,
        }
    }

    fn tensor_mut(&mut self) -> Option<&mut DynTensor> {
        match self {
            Arg::Tensor(t) => Some(t),
            Arg::Held(t) => Some(t),
            Arg::Scalar(_) | Arg::Target => None,
        }
    }
}

fn internal(plan: &Plan, what: &str) -> Error {
    Error::InvalidArgument {
        op: plan.op.name(),
        reason: format!("{what} (plan: {plan})"),
    }
}

/// Check the arguments against the plan, then convert every operand the
/// plan casts (new buffers: allocated before any claim).
fn prepare(plan: &Plan, args: &mut [Arg<'_>]) -> Result<()> {
    prepare_into(plan, args, &mut Vec::new())
}

/// [`prepare`], with `dest` (a planned program's buffer for the result)
/// served to the copy of the plan's target when the target is read
/// through its own copy ([`Plan::is_own_copy`]): that copy receives the
/// result. Every other copy allocates as it would.
fn prepare_into(plan: &Plan, args: &mut [Arg<'_>], dest: &mut Vec<OwnedBuffer>) -> Result<()> {
    // Run `make`, the copy of operand `i`, with `dest` serving it when it
    // is the target's.
    let mut copy = |i: usize, make: &dyn Fn() -> Result<DynTensor>| -> Result<DynTensor> {
        if plan.target != Some(i) || dest.is_empty() {
            return make();
        }
        let (r, left) = serve_planned(std::mem::take(dest), make);
        *dest = left;
        r
    };
    if args.len() != plan.offers.len() {
        return Err(internal(plan, &format!("{} arguments given", args.len())));
    }
    // Every operand must be readable before anything is allocated or
    // claimed; the target as an operand only where it can be read through.
    for (i, a) in args.iter().enumerate() {
        match a {
            Arg::Tensor(t) => t.check_readable()?,
            Arg::Held(t) => t.check_readable()?,
            Arg::Scalar(_) => {}
            Arg::Target => {
                if !plan.in_place
                    || i == 0
                    || !matches!(plan.op, Op::Binary(_))
                    || plan.compute != plan.dtype
                    || plan.casts.contains(&i)
                    || plan.gathers.iter().any(|&g| usize::from(g) == i)
                {
                    return Err(internal(plan, "the target as an operand of this plan"));
                }
            }
        }
    }
    for &i in &plan.casts {
        let t = args[i]
            .tensor()
            .ok_or_else(|| internal(plan, "a scalar to cast"))?;
        let c = copy(i, &|| t.cast(plan.read_dtype(i, t.dtype())))?;
        args[i] = Arg::Tensor(c);
    }
    for i in plan.gathers.iter().map(|&i| usize::from(i)) {
        let t = args[i]
            .tensor()
            .ok_or_else(|| internal(plan, "a scalar to gather"))?;
        let c = copy(i, &|| t.contiguous())?;
        args[i] = Arg::Tensor(c);
    }
    Ok(())
}

/// The typed operands: the target (when there is one) as the claimable
/// `Operand::Owned`, the other tensors read, scalars converted.
fn typed<'s, T: AnyElement>(plan: &Plan, args: &'s mut [Arg<'_>]) -> Result<Vec<Operand<'s, T>>> {
    args.iter_mut()
        .enumerate()
        .map(|(i, a)| typed_one(plan, i, a))
        .collect()
}

/// Operand `i` typed (see [`typed`]).
fn typed_one<'s, T: AnyElement>(
    plan: &Plan,
    i: usize,
    a: &'s mut Arg<'_>,
) -> Result<Operand<'s, T>> {
    let t: &'s mut DynTensor = match a {
        Arg::Scalar(s) => return Ok(Operand::Scalar(number(*s))),
        Arg::Tensor(t) => t,
        Arg::Held(t) => t,
        Arg::Target => return Err(internal(plan, "the target as a typed operand")),
    };
    // The op's name only for the error: looked up on every call, it cost
    // two lookups per binary op.
    if t.dtype() != T::DTYPE {
        return Err(Error::DTypeMismatch {
            op: plan.op.name(),
            expected: T::DTYPE,
            found: t.dtype(),
        });
    }
    Ok(if plan.target == Some(i) {
        Operand::Owned(t.typed_mut::<T>("")?, plan.offers[i])
    } else {
        Operand::Ref(t.typed::<T>("")?)
    })
}

/// The two operands of a binary op, typed (without a collection).
fn typed_two<'s, T: AnyElement>(
    plan: &Plan,
    args: &'s mut [Arg<'_>],
) -> Result<(Operand<'s, T>, Operand<'s, T>)> {
    let [a, b] = args else {
        return Err(internal(plan, "two operands"));
    };
    Ok((typed_one(plan, 0, a)?, typed_one(plan, 1, b)?))
}

/// Run an exact comparison ([`Plan::exact`]): each operand a uint64 or
/// int64 tensor (a narrower one cast to int64), or a Python int.
fn run_exact(
    plan: &Plan,
    f: crate::kernels::Func,
    args: &[Arg<'_>],
) -> Result<(DynTensor, Outcome)> {
    match args {
        [a, b] => match (exact_of(a), exact_of(b)) {
            (Some(x), Some(y)) => crate::ops::func::run_exact_compare(plan, f, x, y),
            _ => Err(internal(plan, "the operands of an exact comparison")),
        },
        _ => Err(internal(plan, "two operands")),
    }
}

/// An operand of an exact comparison, if it is one.
fn exact_of<'s>(a: &'s Arg<'_>) -> Option<Exact<'s>> {
    match (a, a.tensor()) {
        (Arg::Scalar(Scalar::Int(v)), _) => Some(Exact::Int(*v)),
        (_, Some(DynTensor::U64(t))) => Some(Exact::U64(t)),
        (_, Some(DynTensor::I64(t))) => Some(Exact::I64(t)),
        _ => None,
    }
}

/// A parameter operand as a tensor.
fn param<T: DynElement>(o: Option<Operand<'_, T>>) -> Option<&Tensor<T>> {
    match o? {
        Operand::Ref(t) => Some(t),
        Operand::Owned(t, _) => Some(t),
        Operand::Scalar(_) => None,
    }
}

/// Run `plan` (not in place) over `args`. See [`crate::plan`] for the model.
///
/// Order, so that a failure leaves every operand as it was: every operand
/// is checked readable, casts and scratch are allocated, then the
/// target's buffer is claimed, then the kernel runs. A claim refused now
/// (another holder appeared since planning) is added to the outcome's
/// refusals and the result goes to a new buffer.
pub fn execute(plan: &Plan, args: &mut [Arg<'_>]) -> Result<(DynTensor, Outcome)> {
    if plan.in_place {
        return Err(internal(plan, "an in-place plan given to execute"));
    }
    prepare(plan, args)?;
    run_prepared(plan, args)
}

/// [`execute`] with `dest`, the buffer a planned program set aside for
/// the result: the operands' casts and C-order copies are made first
/// (planned allocations of their own, which never take it, but for the
/// target's own copy, which receives the result), then the kernel runs
/// with `dest` serving its allocation of that length ([`serve_planned`]).
/// Returns the result and what of `dest` was not used.
pub fn execute_into(
    plan: &Plan,
    args: &mut [Arg<'_>],
    dest: Vec<OwnedBuffer>,
) -> (Result<(DynTensor, Outcome)>, Vec<OwnedBuffer>) {
    if plan.in_place {
        return (
            Err(internal(plan, "an in-place plan given to execute")),
            dest,
        );
    }
    let mut dest = dest;
    if let Err(e) = prepare_into(plan, args, &mut dest) {
        return (Err(e), dest);
    }
    serve_planned(dest, || run_prepared(plan, args))
}

/// [`execute_in_place`] with `dest` served to its allocation after the
/// operands' casts and copies, as [`execute_into`].
pub fn execute_in_place_into(
    plan: &Plan,
    args: &mut [Arg<'_>],
    dest: Vec<OwnedBuffer>,
) -> (Result<Outcome>, Vec<OwnedBuffer>) {
    if !plan.in_place {
        return (Err(internal(plan, "a plan that is not in place")), dest);
    }
    let mut dest = dest;
    if let Err(e) = prepare_into(plan, args, &mut dest) {
        return (Err(e), dest);
    }
    serve_planned(dest, || run_prepared_in_place(plan, args))
}

/// [`execute`] after [`prepare`].
fn run_prepared(plan: &Plan, args: &mut [Arg<'_>]) -> Result<(DynTensor, Outcome)> {
    if let Some(wide) = storage::widened(plan) {
        return execute_widened(plan, &wide, args);
    }
    let simple = |r: Result<DynTensor>| -> Result<(DynTensor, Outcome)> {
        let outcome = outcome_of(plan);
        let t = r?;
        count_fallbacks(plan, &outcome);
        Ok((t, outcome))
    };
    match &plan.op {
        Op::Unary(_) | Op::Binary(_) | Op::Func(_) if plan.compute.is_complex() => {
            complex(plan, args)
        }
        Op::Unary(u) => for_dtype!(plan.dtype, T => {
            let x = typed_one::<T>(plan, 0, args.first_mut().ok_or_else(|| internal(plan, "an input"))?)?;
            unary::run::<T>(plan, *u, x).map(wrap::<T>)
        }),
        Op::Binary(b) => for_dtype!(plan.dtype, T => {
            let (x, y) = typed_two::<T>(plan, args)?;
            binary::run::<T>(plan, *b, x, y).map(wrap::<T>)
        }),
        Op::Func(f) if plan.exact => run_exact(plan, *f, args),
        Op::Func(f) => for_dtype!(plan.compute, T => {
            let ops = typed::<T>(plan, args)?;
            crate::ops::func::run::<T>(plan, *f, ops)
        }),
        Op::Where | Op::Clip { .. } | Op::Scatter => select(plan, args),
        Op::Lane(l) => lane(plan, l, args),
        Op::Addmm => for_dtype!(plan.dtype, T => {
            let mut it = typed::<T>(plan, args)?.into_iter();
            let x = it.next().ok_or_else(|| internal(plan, "an input"))?;
            let (a, b) = param(it.next()).zip(param(it.next()))
                .ok_or_else(|| internal(plan, "two factors"))?;
            nn::run_addmm::<T>(plan, x, a, b).map(wrap::<T>)
        }),
        // (gemm's complex products too)
        Op::Matmul => crate::array::dyn_tensor::for_kernel_dtype!(plan.dtype, T => {
            let (x, y) = typed_two::<T>(plan, args)?;
            nn::run_matmul::<T>(plan, &x, &y).map(wrap::<T>)
        }),
        Op::Softmax { .. } => for_float!(plan.dtype, T => {
            let x = typed::<T>(plan, args)?.remove(0);
            nn::run_softmax::<T>(plan, x).map(wrap::<T>)
        }, Err(internal(plan, "a float-only op"))),
        Op::LayerNorm { eps, gamma, beta } => for_float!(plan.dtype, T => {
            let mut it = typed::<T>(plan, args)?.into_iter();
            let x = it.next().ok_or_else(|| internal(plan, "an input"))?;
            let g = if *gamma { param(it.next()) } else { None };
            let b = if *beta { param(it.next()) } else { None };
            nn::run_layer_norm::<T>(plan, x, g, b, *eps).map(wrap::<T>)
        }, Err(internal(plan, "a float-only op"))),
        Op::Conv2d { bias, .. } => for_float!(plan.dtype, T => {
            let mut it = typed::<T>(plan, args)?.into_iter();
            let (x, w) = it.next().zip(it.next()).ok_or_else(|| internal(plan, "two operands"))?;
            let b = if *bias { param(it.next()) } else { None };
            conv::run_conv2d::<T>(plan, x, &w, b).map(wrap::<T>)
        }, Err(internal(plan, "a float-only op"))),
        Op::BatchNorm { eps, gamma, beta } => for_float!(plan.dtype, T => {
            let mut it = typed::<T>(plan, args)?.into_iter();
            let x = it.next().ok_or_else(|| internal(plan, "an input"))?;
            let p = batch_norm_params(&mut it, *eps, *gamma, *beta)
                .ok_or_else(|| internal(plan, "batch-norm parameters"))?;
            conv::run_batch_norm::<T>(plan, x, &p).map(wrap::<T>)
        }, Err(internal(plan, "a float-only op"))),
        Op::Reduce { .. } | Op::Statistic(_) => simple(reduction(plan, args)),
        Op::Fresh(f) => simple(fresh(f, args)),
        Op::Permute { axes } => {
            let t = args[0].tensor().ok_or_else(|| internal(plan, "a tensor"))?;
            let axes: Vec<isize> = permute_axes(t.shape(), axes.as_deref())?
                .into_iter()
                .map(|a| a as isize)
                .collect();
            view_op(plan, args, |t| t.permuted_view(&axes))
        }
        Op::Index { index } => view_op(plan, args, |t| t.index(index)),
        Op::SetItem { .. } => Err(internal(plan, "an in-place op given to execute")),
        Op::Cast { dtype } => {
            let t = args[0].tensor().ok_or_else(|| internal(plan, "a tensor"))?;
            simple(t.cast(*dtype))
        }
        Op::Reshape { .. } => view_op(plan, args, |t| t.reshape(&plan.shape)),
        Op::Attention { mask, .. } => for_float!(plan.dtype, T => {
            let mut it = typed::<T>(plan, args)?.into_iter();
            let q = it.next().ok_or_else(|| internal(plan, "a query"))?;
            let (k, v) = param(it.next()).zip(param(it.next()))
                .ok_or_else(|| internal(plan, "a key and a value"))?;
            let m = if *mask { Some(param(it.next()).ok_or_else(|| internal(plan, "a mask"))?) } else { None };
            attention::run_attention::<T>(plan, q, k, v, m).map(wrap::<T>)
        }, Err(internal(plan, "a float-only op"))),
    }
}

/// Run the plan of one result of a function of several results
/// ([`crate::plan::FreshOp::parts`]), computing every result at once: the
/// function's results in order. Any other plan gives its one result.
pub fn execute_parts(plan: &Plan, args: &mut [Arg<'_>]) -> Result<(Vec<DynTensor>, Outcome)> {
    let Op::Fresh(f) = &plan.op else {
        let (t, outcome) = execute(plan, args)?;
        return Ok((vec![t], outcome));
    };
    prepare(plan, args)?;
    let outcome = outcome_of(plan);
    let all = with_operands(args, |xs| f.run_all(xs))?;
    count_fallbacks(plan, &outcome);
    Ok((all, outcome))
}

/// A complex element-wise op (`crate::ops::complex`): the operands in
/// the complex dtype they are read as (`Plan::compute`).
fn complex(plan: &Plan, args: &mut [Arg<'_>]) -> Result<(DynTensor, Outcome)> {
    let m = match plan.op {
        Op::Unary(u) => Member::Unary(u),
        Op::Binary(b) => Member::Binary(b),
        Op::Func(f) => Member::Func(f),
        _ => return Err(internal(plan, "not an element-wise op")),
    };
    match plan.compute {
        DType::C64 => crate::ops::complex::run::<crate::C32>(plan, m, typed(plan, args)?),
        DType::C128 => crate::ops::complex::run::<crate::C64>(plan, m, typed(plan, args)?),
        _ => Err(internal(plan, "a complex dtype")),
    }
}

/// A plan of the storage dtype (float16, [`storage`]) run as `wide`: in
/// float32 over the operands `prepare` cast and the numbers rounded to
/// float16, then a float16 result rounded into a new buffer.
fn execute_widened(plan: &Plan, wide: &Plan, args: &mut [Arg<'_>]) -> Result<(DynTensor, Outcome)> {
    for a in args.iter_mut() {
        if let Arg::Scalar(s) = a {
            *s = storage::weak(*s, plan.compute);
        }
    }
    let (r, _) = execute(wide, args)?;
    let outcome = outcome_of(plan);
    count_fallbacks(plan, &outcome);
    let r = if storage::narrows(plan) {
        narrow(plan, &r)?
    } else {
        r
    };
    Ok((r, outcome))
}

/// The float16 result of a plan that [`storage::narrows`], from its
/// float32 result `r`, as [`storage::narrowing`] says: rounded to
/// nearest, or stepped (float32's step from a float16 `a` toward `b`
/// rounds back to `a`; the float16 result is `a`'s float16 neighbour on
/// the side the float32 one lies, or `a` where it did not move: `a ==
/// b`, NaN).
fn narrow(plan: &Plan, r: &DynTensor) -> Result<DynTensor> {
    let rounded = r.cast(plan.dtype)?;
    if storage::narrowing(plan) == storage::Narrowing::Round || plan.dtype != DType::F16 {
        return Ok(rounded);
    }
    let name = plan.op.name();
    let wide = r.contiguous()?;
    let (wide, near) = (wide.typed::<f32>(name)?, rounded.typed::<F16>(name)?);
    let stepped: Vec<F16> = wide
        .as_slice()?
        .iter()
        .zip(near.as_slice()?)
        .map(|(&w, &a)| {
            let up = match w.partial_cmp(&a.to_f32()) {
                Some(std::cmp::Ordering::Greater) => true,
                Some(std::cmp::Ordering::Less) => false,
                _ => return a, // not moved (or NaN)
            };
            if a.to_bits() << 1 == 0 {
                // From a zero (all bits but the sign clear): the smallest
                // subnormal of the direction's sign.
                F16::from_bits(if up { 0x0001 } else { 0x8001 })
            } else if up == a.is_sign_positive() {
                F16::from_bits(a.to_bits() + 1) // away from zero
            } else {
                F16::from_bits(a.to_bits() - 1) // toward zero
            }
        })
        .collect();
    Ok(<F16 as AnyElement>::wrap(Tensor::from_vec(
        stepped,
        r.shape(),
    )?))
}

/// `x op= y` (or `x = op(x)`, `y` `None`: `x.exp_()`) computed in another
/// dtype than `x`'s or in a complex one: the result computed into a new
/// buffer in the dtype the plan computes in (a complex dtype; NumPy's
/// same-kind rule's promoted dtype; float32 for the storage dtype
/// float16), then written into `x`, cast back to its dtype, as any write
/// into `x` is: in place, through its views.
fn wide_in_place(plan: &Plan, x: &mut DynTensor, y: Option<&Arg<'_>>) -> Result<()> {
    let name = plan.op.name();
    // (float16 computes in float32, its numbers rounded to it first.)
    let wide = plan.compute.computed_as();
    let lhs = x.cast(wide)?;
    let rhs = match y {
        None => None,
        Some(Arg::Target) => Some(Arg::Tensor(lhs.clone())),
        Some(Arg::Scalar(s)) => Some(Arg::Scalar(storage::weak(*s, plan.compute))),
        Some(a) => Some(Arg::Tensor(
            a.tensor()
                .ok_or_else(|| internal(plan, "a tensor"))?
                .clone(),
        )),
    };
    let mut out_of_place = plan.clone();
    out_of_place.in_place = false;
    out_of_place.dtype = wide;
    out_of_place.compute = wide;
    out_of_place.target = None;
    out_of_place.casts.clear();
    out_of_place.gathers.clear();
    out_of_place.refusals.clear();
    let mut args: smallvec::SmallVec<[Arg<'_>; 2]> = smallvec::SmallVec::new();
    args.push(Arg::Tensor(lhs));
    args.extend(rhs);
    let (r, _) = execute(&out_of_place, &mut args)?;
    let r = narrow(plan, &r)?;
    crate::array::dyn_tensor::for_any_dtype!(plan.dtype, T => {
        let v = r.typed::<T>(name)?;
        x.typed_mut::<T>(name)?.write_index(&[crate::Index::Ellipsis], v.as_slice()?, v.shape())
    })
}

/// `where` and `clip` (`crate::ops::select`).
fn select(plan: &Plan, args: &mut [Arg<'_>]) -> Result<(DynTensor, Outcome)> {
    match &plan.op {
        // Selection moves elements: every dtype, the complex ones too.
        Op::Where => crate::array::dyn_tensor::for_any_dtype!(plan.dtype, T => {
            let [c, a, b] = args else {
                return Err(internal(plan, "three operands"));
            };
            let c = typed_one::<bool>(plan, 0, c)?;
            crate::ops::select::run_where::<T>(plan, &c, typed_one(plan, 1, a)?, typed_one(plan, 2, b)?)
        }),
        Op::Clip { min, max } => for_dtype!(plan.dtype, T => {
            for (i, a) in args.iter_mut().skip(1).enumerate() {
                if let Arg::Scalar(s) = a {
                    *s = crate::plan::clip_bound(&plan.op, i, *s, plan.dtype)?;
                }
            }
            let mut it = typed::<T>(plan, args)?.into_iter();
            let x = it.next().ok_or_else(|| internal(plan, "an input"))?;
            let lo = if *min { it.next() } else { None };
            let hi = if *max { it.next() } else { None };
            crate::ops::select::run_clip::<T>(plan, x, lo.as_ref(), hi.as_ref())
        }),
        Op::Scatter => crate::array::dyn_tensor::for_any_dtype!(plan.dtype, T => {
            let [x, p, v] = args else {
                return Err(internal(plan, "three operands"));
            };
            let p = p.tensor().ok_or_else(|| internal(plan, "positions"))?;
            let pt = p.typed::<i64>(plan.op.name())?;
            let v = typed_one::<T>(plan, 2, v)?;
            crate::ops::select::run_scatter::<T>(plan, typed_one(plan, 0, x)?, pt.as_slice()?, pt.shape(), &v)
        }),
        _ => Err(internal(plan, "not a selection")),
    }
}

/// Sort, running ops, roll and triangles (`crate::ops::lane_ops`).
fn lane(
    plan: &Plan,
    op: &crate::functions::lane_ops::LaneOp,
    args: &mut [Arg<'_>],
) -> Result<(DynTensor, Outcome)> {
    let arg = args.first_mut().ok_or_else(|| internal(plan, "an input"))?;
    if let crate::functions::lane_ops::LaneOp::Fill { value, .. } = op {
        // Every dtype, the complex ones too. Without a target a fill reads
        // nothing of its input, which may have another dtype.
        let target = plan.target.is_some();
        return crate::array::dyn_tensor::for_any_dtype!(plan.dtype, T => {
            let x = if target { Some(typed_one::<T>(plan, 0, arg)?) } else { None };
            crate::ops::lane_ops::fill::<T>(plan, *value, x).map(wrap::<T>)
        });
    }
    if op.takes_any_element() {
        return crate::array::dyn_tensor::for_any_dtype!(plan.dtype, T => {
            let x = typed_one::<T>(plan, 0, arg)?;
            crate::ops::lane_ops::run_any::<T>(plan, op, x).map(wrap::<T>)
        });
    }
    for_dtype!(plan.dtype, T => {
        let x = typed_one::<T>(plan, 0, arg)?;
        crate::ops::lane_ops::run::<T>(plan, op, x).map(wrap::<T>)
    })
}

fn wrap<T: AnyElement>((t, o): (Tensor<T>, Outcome)) -> (DynTensor, Outcome) {
    (T::wrap(t), o)
}

/// The parameters of a batch norm, in operand order.
fn batch_norm_params<'s, T: crate::array::dyn_tensor::DynFloat>(
    it: &mut impl Iterator<Item = Operand<'s, T>>,
    eps: f64,
    gamma: bool,
    beta: bool,
) -> Option<BatchNorm<'s, T>> {
    let mean = param(it.next())?;
    let var = param(it.next())?;
    let gamma = if gamma { Some(param(it.next())?) } else { None };
    let beta = if beta { Some(param(it.next())?) } else { None };
    Some(BatchNorm {
        mean,
        var,
        gamma,
        beta,
        eps,
    })
}

/// A reduction: the single-axis `Reduce` kernels, or a statistic over any
/// axes ([`crate::functions::statistics::reduce`]); always a new buffer.
fn reduction(plan: &Plan, args: &[Arg<'_>]) -> Result<DynTensor> {
    let t = args
        .first()
        .and_then(Arg::tensor)
        .ok_or_else(|| internal(plan, "a tensor"))?;
    match &plan.op {
        Op::Reduce {
            kind,
            axis,
            keepdims,
        } if plan.dtype.is_complex() => {
            let statistic = match kind {
                Reduction::Sum => crate::functions::statistics::Statistic::Sum { dtype: None },
                Reduction::Mean => crate::functions::statistics::Statistic::Mean { dtype: None },
                Reduction::Max => return Err(internal(plan, "an ordered dtype")),
            };
            let axes = axis.map(|a| [a]);
            crate::functions::statistics::reduce(
                t,
                statistic,
                axes.as_ref().map(|a| &a[..]),
                *keepdims,
            )
        }
        Op::Reduce {
            kind,
            axis,
            keepdims,
        } => match kind {
            Reduction::Sum => {
                each_real!(t, plan.op.name(), t => t.sum(*axis, *keepdims).map(DynTensor::from))
            }
            Reduction::Max => {
                each_real!(t, plan.op.name(), t => t.max(*axis, *keepdims).map(DynTensor::from))
            }
            Reduction::Mean => for_float!(plan.dtype, T => {
                t.typed::<T>(plan.op.name())?.mean(*axis, *keepdims).map(DynTensor::from)
            }, Err(internal(plan, "a float mean"))),
        },
        Op::Statistic(s) => {
            crate::functions::statistics::reduce(t, s.statistic, s.axes.as_deref(), s.keepdims)
        }
        _ => Err(internal(plan, "a reduction")),
    }
}

/// A function whose result is always a new buffer: its operands read as
/// they are (a Python number as a 0-d tensor).
fn fresh(f: &crate::plan::FreshOp, args: &[Arg<'_>]) -> Result<DynTensor> {
    with_operands(args, |xs| f.run(xs))
}

/// `f` of the operands as tensors (a Python number as a 0-d tensor).
fn with_operands<R>(args: &[Arg<'_>], f: impl FnOnce(&[&DynTensor]) -> Result<R>) -> Result<R> {
    let scalars: Vec<DynTensor> = args
        .iter()
        .filter_map(|a| match a {
            Arg::Scalar(s) => Some(crate::plan::fresh_scalar(*s)),
            _ => None,
        })
        .collect::<Result<_>>()?;
    let mut numbers = scalars.iter();
    let xs: Vec<&DynTensor> = args
        .iter()
        .filter_map(|a| a.tensor().or_else(|| numbers.next()))
        .collect();
    f(&xs)
}

/// A view op (reshape, permute, index) shares its input's buffer; a
/// planned target's buffer moves into the result instead (so the result
/// is its buffer's only holder, and the input is moved-from).
fn view_op(
    plan: &Plan,
    args: &mut [Arg<'_>],
    make: impl FnOnce(&DynTensor) -> Result<DynTensor>,
) -> Result<(DynTensor, Outcome)> {
    let mut outcome = outcome_of(plan);
    let t = args[0]
        .tensor_mut()
        .ok_or_else(|| internal(plan, "a tensor"))?;
    if plan.target == Some(0) {
        let (dtype, shape) = (t.dtype(), dims(t.shape()));
        match t.take_buffer_for(plan.op.name()) {
            Ok(buf) => {
                reused(&mut outcome, plan, 0, buf.len());
                let base = DynTensor::from_buffer(dtype, buf, &shape)?;
                let r = make(&base)?;
                count_fallbacks(plan, &outcome);
                return Ok((r, outcome));
            }
            Err(e) => outcome.refused.push((0, Refusal::of_claim(&e))),
        }
    }
    let r = make(t)?;
    count_fallbacks(plan, &outcome);
    Ok((r, outcome))
}

/// Run an in-place plan: `args[0]` is the target (`Arg::Held`), updated
/// in place when its buffer is exclusive, else copied on write (other
/// holders keep the old values); the other operands are read.
pub fn execute_in_place(plan: &Plan, args: &mut [Arg<'_>]) -> Result<Outcome> {
    if !plan.in_place {
        return Err(internal(plan, "a plan that is not in place"));
    }
    prepare(plan, args)?;
    run_prepared_in_place(plan, args)
}

/// [`execute_in_place`] after [`prepare`].
fn run_prepared_in_place(plan: &Plan, args: &mut [Arg<'_>]) -> Result<Outcome> {
    let name = plan.op.name();
    let (first, rest) = args.split_at_mut(1);
    let Arg::Held(x) = &mut first[0] else {
        return Err(internal(plan, "the target must be held"));
    };
    let x: &mut DynTensor = x;
    let read = |i: usize| rest.get(i).ok_or_else(|| internal(plan, "an operand"));
    match &plan.op {
        // In another dtype (complex, NumPy's same-kind casting, float16
        // computed in float32): computed aside, written back.
        Op::Unary(_) | Op::Binary(_)
            if plan.compute.is_complex()
                || plan.compute != plan.dtype
                || plan.compute.is_storage() =>
        {
            let y = matches!(plan.op, Op::Binary(_))
                .then(|| read(0))
                .transpose()?;
            wide_in_place(plan, x, y)?;
        }
        Op::Unary(u) => each_real!(x, name, t => t.unary_inplace(*u))?,
        Op::Binary(b) if matches!(read(0)?, Arg::Target) => {
            each_real!(x, name, t => t.binary_inplace_self(*b))?;
        }
        Op::Binary(b) => for_dtype!(plan.dtype, T => {
            let rhs = match read(0)? {
                Arg::Scalar(s) => Operand::Scalar(T::from_scalar(*s)),
                a => Operand::Ref(a.tensor().ok_or_else(|| internal(plan, "a tensor"))?.typed::<T>(name)?),
            };
            x.typed_mut::<T>(name)?.binary_inplace(*b, rhs)?;
        }),
        Op::SetItem { index } => crate::array::dyn_tensor::for_any_dtype!(plan.dtype, T => {
            let x = x.typed_mut::<T>(name)?;
            match read(0)? {
                Arg::Scalar(s) => x.write_index(index, &[number::<T>(*s)], &[])?,
                a => {
                    let v = a.tensor().ok_or_else(|| internal(plan, "a tensor"))?.typed::<T>(name)?;
                    x.write_index(index, v.as_slice()?, v.shape())?;
                }
            }
        }),
        Op::Scatter => crate::array::dyn_tensor::for_any_dtype!(plan.dtype, T => {
            let p = read(0)?.tensor().ok_or_else(|| internal(plan, "positions"))?;
            let pt = p.typed::<i64>(name)?;
            let v = match read(1)? {
                Arg::Scalar(s) => Operand::Scalar(number::<T>(*s)),
                a => Operand::Ref(a.tensor().ok_or_else(|| internal(plan, "a tensor"))?.typed::<T>(name)?),
            };
            x.typed_mut::<T>(name)?.scatter_inplace(pt.as_slice()?, pt.shape(), &v)?;
        }),
        Op::BatchNorm { eps, gamma, beta } => for_float!(plan.dtype, T => {
            let mut params = Vec::new();
            for a in rest.iter() {
                let t = a.tensor().ok_or_else(|| internal(plan, "a tensor"))?;
                params.push(Operand::Ref(t.typed::<T>(name)?));
            }
            let p = batch_norm_params(&mut params.into_iter(), *eps, *gamma, *beta)
                .ok_or_else(|| internal(plan, "batch-norm parameters"))?;
            x.typed_mut::<T>(name)?.batch_norm_inplace(&p)?;
        }, return Err(Error::UnsupportedDType { op: name, dtype: plan.dtype })),
        _ => return Err(internal(plan, "an op without an in-place form")),
    }
    let mut outcome = outcome_of(plan);
    outcome.reused = Some(0);
    count_fallbacks(plan, &outcome);
    Ok(outcome)
}

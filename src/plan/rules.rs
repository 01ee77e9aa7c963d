//! Each operation's signature: the result dtype (NumPy's promotion, NEP 50
//! for weak scalars), the result shape, the validation of every
//! parameter, which operands may receive the result, and the choice of
//! the target among them.

use super::dtypes::{
    check_scalars, common_dtype, float_only, float_result, invalid_arg, invalid_operand,
    tensor_dtype, tensor_dtypes,
};
use super::exact_compare::exact_compare;
use super::target::{
    choose_target, in_place_cast_refused, plan_gathers, plan_target_in_place, Receives,
};
use super::{Allocation, Kind, Op, OperandDesc, Plan, Purpose, Reduction};
use crate::array::dyn_tensor::{check_scalar, Scalar};
use crate::array::element::DType;
use crate::array::shape::{
    broadcast_shapes, check_assigns_to, checked_numel, dims, normalize_axis, Dims,
};
use crate::error::{Error, Result};
use crate::kernels::{BinaryOp, Func, FuncKind};
use smallvec::SmallVec;

/// The signature of one op applied to its operands.
struct Signature {
    dtype: DType,
    /// The dtype the operands are read as, when not `dtype`.
    compute: Option<DType>,
    shape: Dims,
    receives: Receives,
    /// Bytes of scratch needed when the input receives the result.
    scratch_over_input: usize,
    /// Bytes of scratch needed when the result goes to a new buffer.
    scratch_fresh: usize,
    /// Bytes of scratch needed in any case (an attention mask broadcast
    /// to the scores' shape).
    scratch: usize,
    /// An exact comparison of integers ([`Plan::exact`]).
    exact: bool,
}

impl Signature {
    /// A signature without scratch.
    fn new(dtype: DType, shape: Dims, receives: Receives) -> Self {
        Signature {
            dtype,
            compute: None,
            shape,
            receives,
            scratch_over_input: 0,
            scratch_fresh: 0,
            scratch: 0,
            exact: false,
        }
    }
}

/// `[n]`-shaped parameters of a normalisation: tensors of shape `[n]`.
fn params(op: &Op, operands: &[OperandDesc<'_>], first: usize, n: usize) -> Result<()> {
    for (i, p) in operands.iter().enumerate().skip(first) {
        let name = op.label(i);
        if let Kind::Scalar(_) = p.kind {
            return Err(invalid_operand(
                op,
                format!("{name}: parameters must be tensors or arrays, not numbers"),
            ));
        }
        if p.shape != [n] {
            return Err(invalid_arg(
                op,
                format!("{name} must have shape ({n},), got {:?}", p.shape),
            ));
        }
    }
    Ok(())
}

fn check_eps(op: &Op, eps: f64) -> Result<()> {
    if eps >= 0.0 {
        Ok(())
    } else {
        Err(invalid_arg(op, format!("eps must be >= 0, got {eps}")))
    }
}

/// Resolve `-1` in a reshape target of `numel` elements.
pub(crate) fn reshape_target(numel: usize, dims: &[i64]) -> Result<Vec<usize>> {
    let op = "reshape";
    let mut infer = None;
    let mut known: usize = 1;
    for (i, &d) in dims.iter().enumerate() {
        if d == -1 {
            if infer.replace(i).is_some() {
                return Err(Error::InvalidArgument {
                    op,
                    reason: "can only specify one unknown dimension (-1)".into(),
                });
            }
        } else {
            let d = usize::try_from(d).map_err(|_| Error::InvalidArgument {
                op,
                reason: format!("negative dimension {d}"),
            })?;
            known = known.checked_mul(d).ok_or(Error::ShapeOverflow {
                shape: vec![],
                elem_size: 1,
            })?;
        }
    }
    let mut out: Vec<usize> = dims
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .collect();
    if let Some(i) = infer {
        if known == 0 || !numel.is_multiple_of(known) {
            return Err(Error::InvalidArgument {
                op,
                reason: format!("cannot reshape a tensor of size {numel} into shape {dims:?}"),
            });
        }
        out[i] = numel / known;
    }
    Ok(out)
}

/// The normalised permutation of a [`Op::Permute`] over `shape`.
pub(crate) fn permute_axes(shape: &[usize], axes: Option<&[isize]>) -> Result<Vec<usize>> {
    crate::array::shape::permutation(shape, axes)
}

fn binary_signature(
    op: &Op,
    b: BinaryOp,
    o: &[OperandDesc<'_>],
    in_place: bool,
) -> Result<Signature> {
    if let Some((dtype, shape)) = super::same_binary::signature(b, o) {
        return Ok(Signature::new(dtype, shape, Receives::Any));
    }
    let mut dtype = common_dtype(op, o)?;
    if b == BinaryOp::Div && !dtype.is_float() && !dtype.is_complex() {
        // NumPy's true division has one loop for integers and bool:
        // float64 (unlike the float functions, `float_result`).
        dtype = DType::F64;
    }
    check_scalars(op, o, dtype)?;
    // In place, the dtype is checked before the shape (NumPy's order): the
    // result is computed in the promoted dtype and cast into the target's
    // under NumPy's `same_kind` rule (`acc += x` with a float32 `acc` and
    // a float64 `x` writes float32; a float result into an integer tensor
    // is refused).
    let mut compute = None;
    if let (true, Some(d)) = (in_place, o[0].held()) {
        if dtype != d {
            if !DType::can_cast_same_kind(dtype, d) {
                return Err(in_place_cast_refused(op, dtype, d));
            }
            compute = Some(dtype);
            dtype = d;
        }
    }
    let shape = broadcast_shapes(b.name(), o[0].shape, o[1].shape)?;
    Ok(Signature {
        dtype,
        compute,
        shape,
        receives: Receives::Any,
        scratch_over_input: 0,
        scratch_fresh: 0,
        scratch: 0,
        exact: false,
    })
}

/// An element-wise function's dtypes, from its [`FuncKind`]: the dtype
/// its operands are read as (NumPy's promotion of them), and the result's.
fn func_signature(op: &Op, f: Func, o: &[OperandDesc<'_>]) -> Result<Signature> {
    let common = common_dtype(op, o)?;
    let refuse = |what: &str| {
        Err(invalid_operand(
            op,
            format!("is not defined for {common} (only for {what})"),
        ))
    };
    let exact = (f.kind() == FuncKind::Compare)
        .then(|| exact_compare(o))
        .flatten();
    let (compute, dtype) = match f.kind() {
        // The real and imaginary parts of a complex number are real.
        _ if common.is_complex() && matches!(f, Func::Real | Func::Imag) => {
            (common, common.real_dtype())
        }
        FuncKind::FloatMath => {
            // Of integer and bool tensors (their dtype not changed by a
            // Python number), NumPy's loop is the smallest float that holds
            // each: int8 with uint16 is float32, though int8 + uint16 is
            // int32.
            let ts = tensor_dtypes(o);
            let f = match DType::promote_all(&ts) {
                Some(t) if t == common && (t.is_int() || t.is_bool()) => ts
                    .into_iter()
                    .map(float_result)
                    .reduce(DType::promote)
                    .unwrap_or(common),
                _ => float_result(common),
            };
            (f, f)
        }
        FuncKind::Numeric if common.is_bool() => return refuse("numbers"),
        FuncKind::Compare => (exact.unwrap_or(common), DType::Bool),
        FuncKind::Test => (common, DType::Bool),
        FuncKind::Logical => (DType::Bool, DType::Bool),
        FuncKind::Bitwise if common.is_float() => return refuse("integers and bool"),
        FuncKind::Shift if !common.is_int() => return refuse("integers"),
        FuncKind::Numeric | FuncKind::Bitwise | FuncKind::Shift => (common, common),
    };
    // A Python number operand is converted to the compute dtype (a
    // logical function's, bool: any number converts; an exact
    // comparison's is compared as it is).
    if compute != DType::Bool && exact.is_none() {
        check_scalars(op, o, compute)?;
    }
    let shape = match o {
        [a, b] => broadcast_shapes(f.name(), a.shape, b.shape)?,
        _ => dims(o[0].shape),
    };
    // A test or comparison of bools has a bool result, but its kernels
    // write a new buffer: no operand receives it. (Of other dtypes the
    // result's dtype already refuses them.)
    let tests = matches!(f.kind(), FuncKind::Test | FuncKind::Compare);
    let receives = if tests && compute == DType::Bool {
        Receives::Never
    } else {
        Receives::Any
    };
    let mut sig = Signature::new(dtype, shape, receives);
    sig.compute = Some(compute);
    sig.exact = exact.is_some();
    Ok(sig)
}

fn reduce_signature(
    op: &Op,
    kind: Reduction,
    axis: Option<isize>,
    keepdims: bool,
    x: &OperandDesc<'_>,
) -> Result<Signature> {
    let d = tensor_dtype(op, x, "the input")?;
    let dtype = match kind {
        Reduction::Sum => crate::functions::statistics::accumulation_dtype(d, None),
        Reduction::Mean => crate::functions::statistics::mean_dtype(d),
        Reduction::Max => d,
    };
    let ax = axis.map(|a| normalize_axis(a, x.shape.len())).transpose()?;
    let len = ax.map_or_else(|| x.shape.iter().product(), |a| x.shape[a]);
    // As NumPy: an empty reduced axis is an error even when the
    // result has no elements either.
    if kind == Reduction::Max && len == 0 {
        return Err(Error::EmptyReduction {
            op: op.name(),
            shape: x.shape.to_vec(),
        });
    }
    Ok(Signature::new(
        dtype,
        crate::array::shape::reduce_shape(x.shape, ax, keepdims).into(),
        Receives::Never,
    ))
}

/// `sum`, `prod`, `mean`, `max`, `min`, `var`, `std` over any axes: the
/// dtype and axis rules of [`crate::functions::statistics`]; the input is read as
/// the result's dtype (a `sum(dtype=...)` or an integer `mean` casts it
/// first, as the statistics do); `max`/`min` over no elements are an
/// error here, before anything runs. Always a new buffer.
fn statistic_signature(op: &Op, s: &super::StatisticOp, x: &OperandDesc<'_>) -> Result<Signature> {
    use crate::functions::statistics::Statistic;
    let d = tensor_dtype(op, x, "the input")?;
    let name = s.statistic.name();
    let axes = crate::functions::lanes::normalize_axes(name, s.axes.as_deref(), x.shape.len())?;
    let n: usize = axes.iter().map(|&a| x.shape[a]).product();
    if n == 0 && matches!(s.statistic, Statistic::Max | Statistic::Min) {
        return Err(Error::EmptyReduction {
            op: name,
            shape: x.shape.to_vec(),
        });
    }
    let dtype = s.statistic.result_dtype(d);
    let mut sig = Signature::new(
        dtype,
        crate::functions::lanes::reduced_shape(x.shape, &axes, s.keepdims).into(),
        Receives::Never,
    );
    sig.compute = Some(s.statistic.compute_dtype(d));
    Ok(sig)
}

/// `[x, mean, var, gamma?, beta?]` over axis 1: a float `x` of at least
/// two axes, parameters of `C` elements; the result may be written over
/// `x`.
fn batch_norm_signature(op: &Op, o: &[OperandDesc<'_>], eps: f64) -> Result<Signature> {
    let x = &o[0];
    let d = float_only(op, tensor_dtype(op, x, "the input")?)?;
    if x.shape.len() < 2 {
        return Err(invalid_arg(
            op,
            format!(
                "needs an input of at least 2 axes [N, C, ...], got shape {:?}",
                x.shape
            ),
        ));
    }
    check_eps(op, eps)?;
    params(op, o, 1, x.shape[1])?;
    Ok(Signature::new(d, dims(x.shape), Receives::Input))
}

/// A function of [`Op::Fresh`]: its own signature step over the operands'
/// dtypes (a Python number's as the 0-d tensor it is read as) and shapes;
/// always a new buffer.
fn fresh_signature(f: &super::FreshOp, o: &[OperandDesc<'_>]) -> Result<Signature> {
    let metas: SmallVec<[crate::array::dyn_tensor::Meta<'_>; 3]> = o
        .iter()
        .map(|d| {
            let dtype = match d.kind {
                Kind::Tensor(t) => t,
                Kind::Scalar(s) => s.tensor_dtype(),
            };
            crate::array::dyn_tensor::Meta::new(dtype, d.shape)
        })
        .collect();
    let (dtype, shape) = f.signature(&metas)?;
    Ok(Signature::new(dtype, shape.into(), Receives::Never))
}

fn conv2d_signature(
    op: &Op,
    o: &[OperandDesc<'_>],
    stride: usize,
    padding: usize,
) -> Result<Signature> {
    let x = &o[0];
    let dx = float_only(op, tensor_dtype(op, x, "the input")?)?;
    let dw = float_only(op, tensor_dtype(op, &o[1], "the weight")?)?;
    let dtype = DType::promote(dx, dw);
    let g = crate::kernels::conv2d_geometry(x.shape, o[1].shape, stride, padding)?;
    params(op, o, 2, g.out_channels)?;
    let (oh, ow) = g.out_hw();
    Ok(Signature {
        dtype,
        compute: None,
        shape: dims(&[g.batch, g.out_channels, oh, ow]),
        receives: Receives::Input,
        // One image's column matrix and one image's result.
        scratch_over_input: (g.scratch_len() + g.in_channels * g.height * g.width)
            .saturating_mul(dtype.size()),
        // One image's column matrix.
        scratch_fresh: g.scratch_len().saturating_mul(dtype.size()),
        scratch: 0,
        exact: false,
    })
}

fn reshape_signature(op: &Op, shape: &[i64], x: &OperandDesc<'_>) -> Result<Signature> {
    let d = tensor_dtype(op, x, "the input")?;
    let numel = x.shape.iter().product();
    let target = reshape_target(numel, shape)?;
    let n = checked_numel(&target, d.size())?;
    if n != numel {
        return Err(Error::InvalidShape {
            op: "reshape",
            shape: target,
            reason: format!("cannot reshape {numel} elements of shape {:?}", x.shape),
        });
    }
    Ok(Signature::new(d, target.into(), Receives::Input))
}

/// `x[index] = value`: `x`'s dtype and shape; `value` (a tensor or a
/// number of any dtype, converted as NumPy's assignment converts) must
/// broadcast to the indexed shape.
/// Bytes the selection kernels copy an operand into when it is neither
/// one element nor of the output's shape (broadcast to the output's
/// shape first), for each operand: `sizes[i]` bytes per element.
fn broadcast_scratch(o: &[OperandDesc<'_>], out: &[usize], sizes: &[usize]) -> usize {
    let n: usize = out.iter().product();
    o.iter()
        .zip(sizes)
        .filter(|(d, _)| d.shape != out && d.shape.iter().product::<usize>() != 1)
        .map(|(_, s)| n.saturating_mul(*s))
        .sum()
}

/// `where(condition, x1, x2)`: the values promote together (Python
/// numbers weak), the condition is any dtype read as bool, the shape is
/// the three operands' broadcast.
fn where_signature(op: &Op, o: &[OperandDesc<'_>]) -> Result<Signature> {
    let dtype = common_dtype(op, &o[1..])?;
    check_scalars(op, &o[1..], dtype)?;
    let shape = broadcast_shapes("where", o[0].shape, o[1].shape)?;
    let shape = broadcast_shapes("where", &shape, o[2].shape)?;
    let mut sig = Signature::new(dtype, shape, Receives::AfterFirst);
    sig.scratch = broadcast_scratch(o, &sig.shape, &[1, dtype.size(), dtype.size()]);
    Ok(sig)
}

/// `clip(x, min, max)`: `x`'s dtype (the bounds are converted to it), the
/// broadcast shape of the three.
fn clip_signature(op: &Op, o: &[OperandDesc<'_>]) -> Result<Signature> {
    let dtype = tensor_dtype(op, &o[0], "the input")?;
    for (i, b) in o[1..].iter().enumerate() {
        if let Kind::Scalar(s) = b.kind {
            clip_bound(op, i, s, dtype)?;
        }
    }
    let mut shape = dims(o[0].shape);
    for b in &o[1..] {
        shape = broadcast_shapes("clip", &shape, b.shape)?;
    }
    let mut sig = Signature::new(dtype, shape, Receives::Input);
    sig.scratch = broadcast_scratch(o, &sig.shape, &[dtype.size(); 3]);
    Ok(sig)
}

/// Which of `clip`'s bounds (its operands after the first) is a lower
/// one: `[min, max]`, `[min]` or `[max]`.
fn clip_sides(op: &Op) -> [bool; 2] {
    match op {
        Op::Clip { min: true, .. } => [true, false],
        _ => [false, false],
    }
}

/// `clip`'s Python number bound `s` (`bound`: 0 for its second operand,
/// 1 for its third) over `dtype`, as it is run: checked
/// as any scalar operand is, except that a Python integer past an
/// integer dtype's range on its own side (a minimum below it, a maximum
/// above it) clips nothing, as NumPy 2's `clip` takes it, and is clamped
/// to the range. Past the other side it would clip every element to a
/// value the dtype cannot hold: an overflow, as NumPy's.
pub(crate) fn clip_bound(op: &Op, bound: usize, s: Scalar, dtype: DType) -> Result<Scalar> {
    let lower = clip_sides(op).get(bound).copied().unwrap_or(false);
    if let (Scalar::Int(v), Some((lo, hi)), true) = (s, dtype.int_range(), dtype.is_int()) {
        if (lower && v < lo) || (!lower && v > hi) {
            return Ok(Scalar::Int(v.clamp(lo, hi)));
        }
    }
    check_scalar(op.name(), s, dtype)?;
    Ok(s)
}

fn setitem_signature(
    op: &Op,
    o: &[OperandDesc<'_>],
    index: &[crate::array::layout::Index],
) -> Result<Signature> {
    let (x, v) = (&o[0], &o[1]);
    let d = tensor_dtype(op, x, "the target")?;
    let view = crate::array::layout::Layout::contiguous(x.shape).indexed(index)?;
    if let Kind::Scalar(s) = v.kind {
        check_scalar(op.name(), s, d)?;
    }
    check_assigns_to(op.name(), v.shape, view.shape())?;
    Ok(Signature::new(d, dims(x.shape), Receives::Input))
}

/// `scatter(x, positions, value)`: `x`'s dtype and shape; the positions
/// an integer tensor (read as int64), the value (converted to `x`'s
/// dtype) broadcasting to the positions' shape, copied to it when it
/// has another (scratch).
fn scatter_signature(op: &Op, o: &[OperandDesc<'_>]) -> Result<Signature> {
    let (x, p, v) = (&o[0], &o[1], &o[2]);
    let d = tensor_dtype(op, x, "the target")?;
    let pd = tensor_dtype(op, p, "the positions")?;
    if !pd.is_int() {
        return Err(invalid_operand(
            op,
            format!("the positions must be integers, not {pd}"),
        ));
    }
    if let Kind::Scalar(s) = v.kind {
        check_scalar(op.name(), s, d)?;
    }
    check_assigns_to(op.name(), v.shape, p.shape)?;
    let mut sig = Signature::new(d, dims(x.shape), Receives::Input);
    sig.scratch = broadcast_scratch(&o[2..], p.shape, &[d.size()]);
    Ok(sig)
}

fn attention_signature(
    op: &Op,
    o: &[OperandDesc<'_>],
    causal: bool,
    scale: Option<f64>,
    mask: bool,
) -> Result<Signature> {
    if causal && mask {
        // PyTorch's rule: an explicit mask and `is_causal` are exclusive.
        return Err(invalid_arg(
            op,
            "an explicit mask cannot be combined with is_causal".into(),
        ));
    }
    for (i, d) in o.iter().enumerate() {
        tensor_dtype(op, d, op.label(i))?;
    }
    let dtype = float_only(op, common_dtype(op, o)?)?;
    if let Some(s) = scale.filter(|s| !s.is_finite()) {
        return Err(invalid_arg(op, format!("scale must be finite, got {s}")));
    }
    let g = crate::array::shape::attention_shapes(
        o[0].shape,
        o[1].shape,
        o[2].shape,
        mask.then(|| o[3].shape),
    )?;
    let broadcast_mask = mask && g.mask_batch.is_none();
    Ok(Signature {
        dtype,
        compute: None,
        shape: g.out.into(),
        receives: Receives::Input,
        scratch_over_input: 0,
        scratch_fresh: 0,
        scratch: if broadcast_mask {
            (g.batch * g.l * g.s).saturating_mul(dtype.size())
        } else {
            0
        },
        exact: false,
    })
}

/// `matmul` (`[a, b]`: always a new buffer) and `addmm` (`[input, a, b]`:
/// `input` broadcasts to the product's shape and may receive it).
fn product_signature(op: &Op, o: &[OperandDesc<'_>]) -> Result<Signature> {
    for (i, d) in o.iter().enumerate() {
        tensor_dtype(op, d, op.label(i))?;
    }
    let dtype = common_dtype(op, o)?;
    let [.., a, b] = o else {
        return Err(invalid_arg(op, "needs two factors".into()));
    };
    let (.., shape) = crate::array::shape::matmul_shapes(a.shape, b.shape)?;
    let receives = if matches!(op, Op::Addmm) {
        if broadcast_shapes(op.name(), o[0].shape, &shape)?[..] != shape[..] {
            return Err(Error::InvalidShape {
                op: op.name(),
                shape: o[0].shape.to_vec(),
                reason: format!("the input does not broadcast to the product's shape {shape:?}"),
            });
        }
        Receives::Input
    } else {
        Receives::Never
    };
    Ok(Signature::new(dtype, shape.into(), receives))
}

fn signature(op: &Op, o: &[OperandDesc<'_>], in_place: bool) -> Result<Signature> {
    let Some(x) = o.first() else {
        return Err(invalid_arg(op, "needs at least one tensor".into()));
    };
    let same = |dtype: DType, receives: Receives| Signature::new(dtype, dims(x.shape), receives);
    Ok(match op {
        Op::Unary(u) => {
            let d = tensor_dtype(op, x, "the input")?;
            let dtype = if u.supports_int() { d } else { float_result(d) };
            // `abs` of a complex number is its (real) magnitude.
            let (dtype, compute) = if d.is_complex() && *u == crate::kernels::UnaryOp::Abs {
                (d.real_dtype(), Some(d))
            } else {
                (dtype, None)
            };
            if in_place && dtype != d {
                return Err(invalid_operand(
                    op,
                    format!("the {dtype} result cannot be written into an {d} tensor in place"),
                ));
            }
            let mut sig = same(dtype, Receives::Any);
            sig.compute = compute;
            sig
        }
        Op::Binary(b) => binary_signature(op, *b, o, in_place)?,
        Op::Func(f) => func_signature(op, *f, o)?,
        Op::Matmul | Op::Addmm => product_signature(op, o)?,
        Op::Reduce {
            kind,
            axis,
            keepdims,
        } => reduce_signature(op, *kind, *axis, *keepdims, x)?,
        Op::Softmax { axis } => {
            let d = float_only(op, tensor_dtype(op, x, "the input")?)?;
            let nd = x.shape.len().max(1);
            if normalize_axis(*axis, nd)? + 1 != nd {
                return Err(invalid_arg(
                    op,
                    format!("only the last axis is supported (got axis {axis} of {nd})"),
                ));
            }
            same(d, Receives::Any)
        }
        Op::LayerNorm { eps, .. } => {
            let d = float_only(op, tensor_dtype(op, x, "the input")?)?;
            let Some(&row) = x.shape.last() else {
                return Err(invalid_arg(
                    op,
                    "needs a tensor with at least one axis".into(),
                ));
            };
            check_eps(op, *eps)?;
            params(op, o, 1, row)?;
            same(d, Receives::Input)
        }
        Op::Conv2d {
            stride, padding, ..
        } => conv2d_signature(op, o, *stride, *padding)?,
        Op::BatchNorm { eps, .. } => batch_norm_signature(op, o, *eps)?,
        Op::Reshape { shape } => reshape_signature(op, shape, x)?,
        Op::Permute { axes } => {
            let d = tensor_dtype(op, x, "the input")?;
            let perm = crate::array::shape::permutation(x.shape, axes.as_deref())?;
            Signature::new(
                d,
                perm.iter().map(|&a| x.shape[a]).collect(),
                Receives::Input,
            )
        }
        Op::Index { index } => {
            let d = tensor_dtype(op, x, "the input")?;
            let view = crate::array::layout::Layout::contiguous(x.shape).indexed(index)?;
            Signature::new(d, dims(view.shape()), Receives::Input)
        }
        Op::SetItem { index } => setitem_signature(op, o, index)?,
        Op::Scatter => scatter_signature(op, o)?,
        Op::Cast { dtype } => {
            tensor_dtype(op, x, "the input")?;
            same(*dtype, Receives::Never)
        }
        Op::Where => where_signature(op, o)?,
        Op::Clip { .. } => clip_signature(op, o)?,
        Op::Lane(l) => {
            let (dtype, shape) = l.signature(tensor_dtype(op, x, "the input")?, x.shape)?;
            Signature::new(dtype, shape.into(), Receives::Input)
        }
        Op::Statistic(s) => statistic_signature(op, s, x)?,
        Op::Fresh(f) => fresh_signature(f, o)?,
        Op::Attention {
            causal,
            scale,
            mask,
        } => attention_signature(op, o, *causal, *scale, *mask)?,
    })
}

/// Which operands are read through a cast copy: every tensor operand is
/// read as the plan's dtype, except an in-place target, which must
/// already have it, a cast's input, and a fill's (its values are not
/// read).
fn plan_casts(p: &mut Plan, o: &[OperandDesc<'_>]) {
    for (i, d) in o.iter().enumerate() {
        let Some(held) = d.held() else { continue };
        // (A function of `Op::Fresh` reads an operand in its own dtype
        // unless it says otherwise.)
        let exempt =
            matches!(p.op, Op::Cast { .. }) || !p.op.reads_input() || (p.in_place && i == 0);
        let read_as = p.read_dtype(i, held);
        if held != read_as && !exempt {
            p.casts.push(i);
            let n: usize = d.shape.iter().product();
            p.allocations.push(Allocation {
                purpose: Purpose::Cast(i),
                bytes: n * read_as.size(),
            });
        }
    }
}

pub(super) fn plan(op: &Op, o: &[OperandDesc<'_>], in_place: bool) -> Result<Plan> {
    if o.len() != op.arity() {
        return Err(invalid_arg(
            op,
            format!("takes {} operands, got {}", op.arity(), o.len()),
        ));
    }
    if in_place
        && !matches!(
            op,
            Op::Unary(_) | Op::Binary(_) | Op::BatchNorm { .. } | Op::SetItem { .. } | Op::Scatter
        )
    {
        return Err(invalid_arg(op, "has no in-place form".into()));
    }
    if !in_place && matches!(op, Op::SetItem { .. }) {
        return Err(invalid_arg(op, "has only an in-place form".into()));
    }
    super::complex::check(op, o)?;
    let sig = signature(op, o, in_place)?;
    super::complex::check_result(op, sig.dtype)?;
    let numel_bytes = checked_numel(&sig.shape, sig.dtype.size())? * sig.dtype.size();
    let mut p = Plan {
        op: op.clone(),
        dtype: sig.dtype,
        compute: sig.compute.unwrap_or(sig.dtype),
        shape: sig.shape,
        offers: o.iter().map(|d| d.offer).collect(),
        casts: SmallVec::new(),
        gathers: SmallVec::new(),
        target: None,
        refusals: SmallVec::new(),
        allocations: SmallVec::new(),
        in_place,
        exact: sig.exact,
    };
    plan_casts(&mut p, o);
    plan_gathers(&mut p, o);
    if in_place {
        plan_target_in_place(&mut p, op, o, numel_bytes)?;
        return Ok(p);
    }
    choose_target(&mut p, o, sig.receives);
    if op.is_view() {
        // A view shares its input's buffer: it allocates nothing, except
        // a reshape of a strided view, which is a copy.
        if matches!(op, Op::Reshape { .. }) && !o[0].coverage.is_contiguous() {
            p.allocations.push(Allocation {
                purpose: Purpose::Result,
                bytes: numel_bytes,
            });
        }
        return Ok(p);
    }
    if sig.scratch > 0 {
        p.allocations.push(Allocation {
            purpose: Purpose::Scratch,
            bytes: sig.scratch,
        });
    }
    p.allocations
        .extend(super::storage::scratch(&p, numel_bytes));
    match p.target {
        Some(_) if sig.scratch_over_input > 0 => p.allocations.push(Allocation {
            purpose: Purpose::Scratch,
            bytes: sig.scratch_over_input,
        }),
        Some(_) => {}
        None => {
            p.allocations.push(Allocation {
                purpose: Purpose::Result,
                bytes: numel_bytes,
            });
            if sig.scratch_fresh > 0 {
                p.allocations.push(Allocation {
                    purpose: Purpose::Scratch,
                    bytes: sig.scratch_fresh,
                });
            }
        }
    }
    Ok(p)
}

//! The array API's manipulation and indexing functions whose result is a
//! new buffer: `concat`, `stack`, `broadcast_to`, `tile`, `repeat`,
//! `roll`, `take`, `take_along_axis`, `meshgrid`; and the shape rules of
//! the ones that are views (`expand_dims`, `squeeze`, `moveaxis`,
//! `flip`), which the bindings then run as the planned view operations
//! (`Reshape`, `Permute`, `Index`).
//!
//! Every function here decides its result's shape and dtype (several
//! operands promote together, by NumPy's table) and reads its inputs
//! only: the inputs are never written and never donated. Strided inputs
//! are read through a C-order copy.

use crate::array::dyn_tensor::{each, DynTensor, Meta};
use crate::array::element::{DType, Element};
use crate::array::layout::{Index, Layout};
use crate::array::shape::{
    broadcast_shapes, check_broadcasts_to, checked_dim_mul, checked_dim_sum, checked_numel,
    normalize_axis,
};
use crate::array::tensor::Tensor;
use crate::error::{Error, Result};
use crate::functions::creation::collect;
use crate::kernels::fresh;

fn invalid(op: &'static str, reason: String) -> Error {
    Error::InvalidArgument { op, reason }
}

/// `axis` normalised (`AxisError`, an `IndexError` and a `ValueError` in
/// Python, when out of range).
fn axis_of(_op: &'static str, axis: isize, ndim: usize) -> Result<usize> {
    normalize_axis(axis, ndim)
}

/// The dtype several operands promote to.
fn common(op: &'static str, xs: &[Meta<'_>]) -> Result<DType> {
    let first = xs
        .first()
        .ok_or_else(|| invalid(op, "needs at least one tensor".into()))?;
    // All at once, as NumPy's `result_type` of several: int8, uint8 and
    // float16 are float16, where promoting pairwise from the left gives
    // int16 with float16, float32.
    let ds: smallvec::SmallVec<[DType; 4]> = xs.iter().map(|x| x.dtype).collect();
    Ok(DType::promote_all(&ds).unwrap_or(first.dtype))
}

/// `x` as a C-order tensor of `dtype` (itself when it already is one).
pub(crate) fn prepared(x: &DynTensor, dtype: DType) -> Result<DynTensor> {
    let x = if x.dtype() == dtype {
        x.clone()
    } else {
        x.cast(dtype)?
    };
    x.contiguous()
}

pub(crate) fn data<'a, T: crate::array::dyn_tensor::AnyElement>(
    x: &'a DynTensor,
    op: &'static str,
) -> Result<&'a [T]> {
    x.typed::<T>(op)?.as_slice()
}

/// Blocks `(outer, block_k)` of each input, interleaved: output block `o`
/// is input 0's `o`th block, then input 1's, … (`concat` and `stack`).
fn interleave(
    op: &'static str,
    xs: &[DynTensor],
    outer: usize,
    blocks: &[usize],
    shape: &[usize],
) -> Result<DynTensor> {
    crate::array::dyn_tensor::for_any_dtype!(xs[0].dtype(), T => {
        let ds = xs.iter().map(|x| data::<T>(x, op)).collect::<Result<Vec<_>>>()?;
        let items = (0..outer).flat_map(|o| {
            ds.iter().zip(blocks).flat_map(move |(d, &b)| d[o * b..(o + 1) * b].iter().copied())
        });
        collect::<T>(shape, items)
    })
}

/// The dtype and shape of `concat(xs, axis)`.
pub fn concat_signature(xs: &[Meta<'_>], axis: Option<isize>) -> Result<(DType, Vec<usize>)> {
    let dtype = common("concat", xs)?;
    let Some(axis) = axis else {
        let numels: Vec<usize> = xs.iter().map(|x| x.shape.iter().product()).collect();
        let total = numels.iter().fold(0usize, |a, &n| a.saturating_add(n));
        let total = checked_dim_sum(numels.iter().copied(), &[total], dtype.size())?;
        return Ok((dtype, vec![total]));
    };
    let first = xs[0].shape;
    if first.is_empty() {
        return Err(invalid(
            "concat",
            "zero-dimensional tensors cannot be concatenated".into(),
        ));
    }
    let ax = axis_of("concat", axis, first.len())?;
    for x in xs {
        let s = x.shape;
        let same = s.len() == first.len()
            && s.iter()
                .zip(first)
                .enumerate()
                .all(|(i, (a, b))| i == ax || a == b);
        if !same {
            return Err(Error::InvalidShape {
                op: "concat",
                shape: s.to_vec(),
                reason: format!(
                    "every tensor must have the first one's shape {first:?} except along the axis joined ({ax})"
                ),
            });
        }
    }
    // (Empty tensors can have any lengths: the sum is checked.)
    let mut shape = first.to_vec();
    shape[ax] = xs.iter().fold(0usize, |a, x| a.saturating_add(x.shape[ax]));
    shape[ax] = checked_dim_sum(xs.iter().map(|x| x.shape[ax]), &shape, dtype.size())?;
    checked_numel(&shape, dtype.size())?;
    Ok((dtype, shape))
}

/// `concat(xs, axis)`: joined along `axis` (`None`: each flattened first).
pub fn concat(xs: &[&DynTensor], axis: Option<isize>) -> Result<DynTensor> {
    let meta: Vec<Meta<'_>> = xs.iter().map(|x| x.meta()).collect();
    let (dtype, shape) = concat_signature(&meta, axis)?;
    let xs = xs
        .iter()
        .map(|x| prepared(x, dtype))
        .collect::<Result<Vec<_>>>()?;
    let Some(axis) = axis else {
        let blocks: Vec<usize> = xs.iter().map(|x| x.shape().iter().product()).collect();
        return interleave("concat", &xs, 1, &blocks, &shape);
    };
    let first = xs[0].shape();
    let ax = axis_of("concat", axis, first.len())?;
    let outer: usize = first[..ax].iter().product();
    let inner: usize = first[ax + 1..].iter().product();
    let blocks: Vec<usize> = xs.iter().map(|x| x.shape()[ax] * inner).collect();
    interleave("concat", &xs, outer, &blocks, &shape)
}

/// The dtype and shape of `stack(xs, axis)`.
pub fn stack_signature(xs: &[Meta<'_>], axis: isize) -> Result<(DType, Vec<usize>)> {
    let dtype = common("stack", xs)?;
    let first = xs[0].shape;
    if let Some(x) = xs.iter().find(|x| x.shape != first) {
        return Err(Error::InvalidShape {
            op: "stack",
            shape: x.shape.to_vec(),
            reason: format!("every tensor must have the first one's shape {first:?}"),
        });
    }
    let ax = axis_of("stack", axis, first.len() + 1)?;
    let mut shape = first.to_vec();
    shape.insert(ax, xs.len());
    checked_numel(&shape, dtype.size())?;
    Ok((dtype, shape))
}

/// `stack(xs, axis)`: tensors of one shape joined along a new axis.
pub fn stack(xs: &[&DynTensor], axis: isize) -> Result<DynTensor> {
    let meta: Vec<Meta<'_>> = xs.iter().map(|x| x.meta()).collect();
    let (dtype, shape) = stack_signature(&meta, axis)?;
    let xs = xs
        .iter()
        .map(|x| prepared(x, dtype))
        .collect::<Result<Vec<_>>>()?;
    let first = xs[0].shape();
    let ax = axis_of("stack", axis, first.len() + 1)?;
    let outer: usize = first[..ax].iter().product();
    let inner: usize = first[ax..].iter().product();
    interleave("stack", &xs, outer, &vec![inner; xs.len()], &shape)
}

/// `x` read through `layout` (of `x`'s C-order data) into a new buffer
/// of `shape` (the layout's element count).
fn gather(x: &DynTensor, layout: &Layout, shape: &[usize]) -> Result<DynTensor> {
    let x = x.contiguous()?;
    each!(&x, t => {
        let buf = fresh::gathered(t.as_slice()?, layout)?;
        like(t, buf, shape).map(DynTensor::from)
    })
}

/// A tensor of `t`'s element type over `buf`.
fn like<T: Element>(
    _: &Tensor<T>,
    buf: crate::memory::buffer::OwnedBuffer,
    shape: &[usize],
) -> Result<Tensor<T>> {
    Tensor::from_buffer(buf, shape)
}

/// The shape of `broadcast_to(x, shape)`: `shape`, checked.
pub fn broadcast_to_signature(x: Meta<'_>, shape: &[usize]) -> Result<(DType, Vec<usize>)> {
    checked_numel(shape, x.dtype.size())?;
    check_broadcasts_to("broadcast_to", x.shape, shape)?;
    Ok((x.dtype, shape.to_vec()))
}

/// `broadcast_to(x, shape)`: a copy of `x` repeated to `shape`.
pub fn broadcast_to(x: &DynTensor, shape: &[usize]) -> Result<DynTensor> {
    broadcast_to_signature(x.meta(), shape)?;
    gather(x, &Layout::broadcast(x.shape(), shape)?, shape)
}

/// The shape several shapes broadcast to, as NumPy's `broadcast_shapes`
/// (`op` names the caller in the error); no shapes broadcast to `()`.
pub fn broadcast_all(op: &'static str, shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = Vec::new();
    for s in shapes {
        out = broadcast_shapes(op, &out, s)?.to_vec();
    }
    Ok(out)
}

/// `x`'s shape and `reps`, padded with leading ones to one length.
fn tile_padded(shape: &[usize], reps: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let nd = shape.len().max(reps.len());
    let pad = |v: &[usize]| -> Vec<usize> {
        std::iter::repeat_n(1, nd - v.len())
            .chain(v.iter().copied())
            .collect()
    };
    (pad(shape), pad(reps))
}

/// The shape of `tile(x, reps)`.
pub fn tile_signature(x: Meta<'_>, reps: &[usize]) -> Result<(DType, Vec<usize>)> {
    let (s, r) = tile_padded(x.shape, reps);
    let size = x.dtype.size();
    // (Saturated, to name the shape that cannot exist.)
    let wanted: Vec<usize> = r
        .iter()
        .zip(&s)
        .map(|(&k, &d)| k.saturating_mul(d))
        .collect();
    let shape: Vec<usize> = r
        .iter()
        .zip(&s)
        .map(|(&k, &d)| checked_dim_mul(k, d, &wanted, size))
        .collect::<Result<_>>()?;
    checked_numel(&shape, size)?;
    Ok((x.dtype, shape))
}

/// `tile(x, reps)`: `x` repeated `reps[i]` times along axis `i` (the
/// shorter of the shape and `reps` padded with leading ones).
pub fn tile(x: &DynTensor, reps: &[usize]) -> Result<DynTensor> {
    let (_, shape) = tile_signature(x.meta(), reps)?;
    let (s, r) = tile_padded(x.shape(), reps);
    // `x` as [1, s0, 1, s1, …] broadcast to [r0, s0, r1, s1, …]: its C
    // order is the tiled tensor's.
    let split: Vec<usize> = s.iter().flat_map(|&d| [1, d]).collect();
    let wide: Vec<usize> = r.iter().zip(&s).flat_map(|(&k, &d)| [k, d]).collect();
    gather(x, &Layout::broadcast(&split, &wide)?, &shape)
}

/// The counts of `repeat(x, repeats, axis)`, one per element along the
/// axis, and the shape repeated (`x`'s, flattened for `axis` `None`) with
/// the repeated axis.
fn repeat_counts(
    shape: &[usize],
    repeats: &[usize],
    axis: Option<isize>,
) -> Result<(Vec<usize>, Vec<usize>, usize)> {
    let (shape, ax) = match axis {
        None => (vec![shape.iter().product()], 0),
        Some(a) => (shape.to_vec(), axis_of("repeat", a, shape.len())?),
    };
    let len = shape[ax];
    let counts: Vec<usize> = match repeats {
        [r] => vec![*r; len],
        r if r.len() == len => r.to_vec(),
        r => {
            return Err(invalid(
                "repeat",
                format!("{} repeats for an axis of length {len}", r.len()),
            ))
        }
    };
    Ok((counts, shape, ax))
}

/// The shape of `repeat(x, repeats, axis)`.
pub fn repeat_signature(
    x: Meta<'_>,
    repeats: &[usize],
    axis: Option<isize>,
) -> Result<(DType, Vec<usize>)> {
    let (counts, mut out, ax) = repeat_counts(x.shape, repeats, axis)?;
    out[ax] = counts.iter().fold(0usize, |a, &c| a.saturating_add(c));
    out[ax] = checked_dim_sum(counts.iter().copied(), &out, x.dtype.size())?;
    checked_numel(&out, x.dtype.size())?;
    Ok((x.dtype, out))
}

/// `repeat(x, repeats, axis)`: each element repeated (`repeats` one count
/// for all, or one per element along `axis`; `axis` `None`: flattened).
pub fn repeat(x: &DynTensor, repeats: &[usize], axis: Option<isize>) -> Result<DynTensor> {
    let (_, out_shape) = repeat_signature(x.meta(), repeats, axis)?;
    let (counts, shape, ax) = repeat_counts(x.shape(), repeats, axis)?;
    let x = x.contiguous()?;
    let len = shape[ax];
    let outer: usize = shape[..ax].iter().product();
    let inner: usize = shape[ax + 1..].iter().product();
    each!(&x, t => {
        let d = t.as_slice()?;
        let items = (0..outer).flat_map(|o| {
            counts.iter().enumerate().flat_map(move |(j, &c)| {
                let row = &d[(o * len + j) * inner..(o * len + j + 1) * inner];
                std::iter::repeat_n(row, c).flatten().copied()
            })
        });
        collect(&out_shape, items)
    })
}

/// Indices must be integers.
fn check_indices(indices: DType) -> Result<()> {
    if indices.is_float() || indices.is_bool() {
        return Err(Error::InvalidIndex {
            reason: format!("indices must be integers, not {indices}"),
        });
    }
    Ok(())
}

/// Index values as positions on an axis of `len` (negative ones count from
/// the end); out of range is an `IndexError`.
fn positions(indices: &DynTensor, len: usize) -> Result<Vec<usize>> {
    check_indices(indices.dtype())?;
    let ix = prepared(indices, DType::I64)?;
    let v = data::<i64>(&ix, "take")?;
    v.iter()
        .map(|&i| {
            let j = if i < 0 { i + len as i64 } else { i };
            usize::try_from(j)
                .ok()
                .filter(|&j| j < len)
                .ok_or_else(|| Error::InvalidIndex {
                    reason: format!("index {i} is out of bounds for an axis of length {len}"),
                })
        })
        .collect()
}

/// The axis `take` gathers along and the length of that axis: `axis`, or
/// for `None` the only axis of `x` read flat (NumPy's; the array API
/// asks for a 1-D `x` there, which this includes).
fn take_axis(shape: &[usize], axis: Option<isize>) -> Result<(usize, usize)> {
    match axis {
        Some(a) => axis_of("take", a, shape.len()).map(|a| (a, shape[a])),
        None => Ok((0, shape.iter().product())),
    }
}

/// The dtype and shape of `take(x, indices, axis)`: `x`'s shape with the
/// axis replaced by `indices`' shape (NumPy's; a 0-d index removes the
/// axis, as `x[:, i]`).
pub fn take_signature(
    x: Meta<'_>,
    indices: Meta<'_>,
    axis: Option<isize>,
) -> Result<(DType, Vec<usize>)> {
    check_indices(indices.dtype)?;
    let out = take_shape(x.shape, indices.shape, axis)?;
    checked_numel(&out, x.dtype.size())?;
    Ok((x.dtype, out))
}

fn take_shape(shape: &[usize], indices: &[usize], axis: Option<isize>) -> Result<Vec<usize>> {
    if axis.is_none() {
        return Ok(indices.to_vec());
    }
    let (ax, _) = take_axis(shape, axis)?;
    Ok([&shape[..ax], indices, &shape[ax + 1..]].concat())
}

/// `take(x, indices, axis)`: the elements at `indices` (any shape) along
/// `axis` (`None`: of `x` read flat).
pub fn take(x: &DynTensor, indices: &DynTensor, axis: Option<isize>) -> Result<DynTensor> {
    let (_, out_shape) = take_signature(x.meta(), indices.meta(), axis)?;
    let shape = x.shape().to_vec();
    let (ax, len) = take_axis(&shape, axis)?;
    let pos = positions(indices, len)?;
    let x = x.contiguous()?;
    let (outer, inner) = match axis {
        None => (1, 1),
        Some(_) => (
            shape[..ax].iter().product::<usize>(),
            shape[ax + 1..].iter().product::<usize>(),
        ),
    };
    each!(&x, t => {
        let d = t.as_slice()?;
        let pos = &pos;
        let items = (0..outer).flat_map(move |o| {
            pos.iter().flat_map(move |&j| d[(o * len + j) * inner..(o * len + j + 1) * inner].iter().copied())
        });
        collect(&out_shape, items)
    })
}

/// The dtype and shape of `take_along_axis(x, indices, axis)`.
pub fn take_along_axis_signature(
    x: Meta<'_>,
    indices: Meta<'_>,
    axis: isize,
) -> Result<(DType, Vec<usize>)> {
    let (shape, is) = (x.shape, indices.shape);
    if is.len() != shape.len() {
        return Err(invalid(
            "take_along_axis",
            format!(
                "indices have {} dimensions, x has {}",
                is.len(),
                shape.len()
            ),
        ));
    }
    let ax = axis_of("take_along_axis", axis, shape.len())?;
    let (mut xs, mut js) = (shape.to_vec(), is.to_vec());
    xs[ax] = 1;
    js[ax] = 1;
    let mut out = broadcast_shapes("take_along_axis", &xs, &js)?.to_vec();
    out[ax] = is[ax];
    checked_numel(&out, x.dtype.size())?;
    check_indices(indices.dtype)?;
    Ok((x.dtype, out))
}

/// `take_along_axis(x, indices, axis)`: `out[..., i, ...] = x[..., indices[..., i, ...], ...]`;
/// the other axes of `x` and `indices` broadcast.
pub fn take_along_axis(x: &DynTensor, indices: &DynTensor, axis: isize) -> Result<DynTensor> {
    let (_, out) = take_along_axis_signature(x.meta(), indices.meta(), axis)?;
    let shape = x.shape().to_vec();
    let is = indices.shape().to_vec();
    let ax = axis_of("take_along_axis", axis, shape.len())?;
    let n: usize = out.iter().product();
    let pos = positions(indices, shape[ax])?;
    let (xc, ic) = (
        crate::array::shape::c_strides(&shape),
        crate::array::shape::c_strides(&is),
    );
    // The offsets in `x` of every output element, in C order (an odometer
    // over the output's positions; a broadcast axis reads position 0).
    let mut offsets = Vec::with_capacity(n);
    let mut idx = vec![0usize; out.len()];
    for _ in 0..n {
        let at = |c: &[usize], s: &[usize], d: usize| if s[d] == 1 { 0 } else { idx[d] * c[d] };
        let i_off: usize = (0..out.len()).map(|d| at(&ic, &is, d)).sum();
        let x_off: usize = (0..out.len())
            .filter(|&d| d != ax)
            .map(|d| at(&xc, &shape, d))
            .sum();
        offsets.push(x_off + pos[i_off] * xc[ax]);
        for d in (0..out.len()).rev() {
            idx[d] += 1;
            if idx[d] < out[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    let x = x.contiguous()?;
    each!(&x, t => {
        let d = t.as_slice()?;
        collect(&out, offsets.iter().map(|&o| d[o]))
    })
}

fn full_slice() -> Index {
    Index::Slice {
        start: None,
        stop: None,
        step: 1,
    }
}

/// The basic index of `expand_dims(x, axes)`: a new axis of length 1 at
/// each of `axes`, positions in the result (NumPy's: the result has
/// `ndim + axes.len()` axes; an axis named twice is an error). A view of
/// any layout.
pub fn expand_dims_index(ndim: usize, axes: &[isize]) -> Result<Vec<Index>> {
    let out = ndim + axes.len();
    let mut new = vec![false; out];
    for &a in axes {
        let ax = axis_of("expand_dims", a, out)?;
        if std::mem::replace(&mut new[ax], true) {
            return Err(invalid("expand_dims", format!("axis {a} is repeated")));
        }
    }
    Ok(new
        .into_iter()
        .map(|n| if n { Index::NewAxis } else { full_slice() })
        .collect())
}

/// The basic index of `squeeze(x, axes)`: position 0 on each axis, which
/// must have length 1 (a view of any layout).
pub fn squeeze_index(shape: &[usize], axes: &[isize]) -> Result<Vec<Index>> {
    let keep = squeeze_shape(shape, axes)?;
    let drop: Vec<usize> = axes
        .iter()
        .map(|&a| axis_of("squeeze", a, shape.len()))
        .collect::<Result<_>>()?;
    debug_assert_eq!(keep.len() + drop.len(), shape.len());
    Ok((0..shape.len())
        .map(|a| {
            if drop.contains(&a) {
                Index::Int(0)
            } else {
                full_slice()
            }
        })
        .collect())
}

/// The shape of `squeeze(x, axes)`: each axis must have length 1.
pub fn squeeze_shape(shape: &[usize], axes: &[isize]) -> Result<Vec<usize>> {
    let mut drop = Vec::with_capacity(axes.len());
    for &a in axes {
        let ax = axis_of("squeeze", a, shape.len())?;
        if shape[ax] != 1 {
            return Err(invalid(
                "squeeze",
                format!("axis {a} has length {}, not 1", shape[ax]),
            ));
        }
        if drop.contains(&ax) {
            return Err(invalid("squeeze", format!("axis {a} is given twice")));
        }
        drop.push(ax);
    }
    Ok(shape
        .iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, &d)| d)
        .collect())
}

/// The permutation of `matrix_transpose(x)` and `x.mT`: the last two
/// axes swapped (at least two dimensions).
pub fn matrix_transpose_perm(ndim: usize) -> Result<Vec<isize>> {
    if ndim < 2 {
        return Err(invalid(
            "matrix_transpose",
            format!("needs at least 2 dimensions, got {ndim}"),
        ));
    }
    let mut axes: Vec<isize> = (0..ndim).map(|a| a as isize).collect();
    axes.swap(ndim - 2, ndim - 1);
    Ok(axes)
}

/// The permutation of `moveaxis(x, source, destination)`.
pub fn moveaxis_perm(ndim: usize, source: &[isize], destination: &[isize]) -> Result<Vec<isize>> {
    if source.len() != destination.len() {
        return Err(invalid(
            "moveaxis",
            "source and destination need the same number of axes".into(),
        ));
    }
    let src = source
        .iter()
        .map(|&a| axis_of("moveaxis", a, ndim))
        .collect::<Result<Vec<_>>>()?;
    let dst = destination
        .iter()
        .map(|&a| axis_of("moveaxis", a, ndim))
        .collect::<Result<Vec<_>>>()?;
    let unique = |v: &[usize]| v.iter().enumerate().all(|(i, a)| !v[..i].contains(a));
    if !unique(&src) || !unique(&dst) {
        return Err(invalid("moveaxis", "repeated axis".into()));
    }
    let mut rest = (0..ndim).filter(|a| !src.contains(a));
    let mut perm = vec![usize::MAX; ndim];
    for (s, d) in src.iter().zip(&dst) {
        perm[*d] = *s;
    }
    for p in &mut perm {
        if *p == usize::MAX {
            *p = rest.next().unwrap_or(0);
        }
    }
    Ok(perm.into_iter().map(|a| a as isize).collect())
}

/// The basic index of `flip(x, axes)` (`None`: every axis): a reversed
/// slice on each flipped axis.
pub fn flip_index(ndim: usize, axes: Option<&[isize]>) -> Result<Vec<Index>> {
    let flipped: Vec<usize> = match axes {
        None => (0..ndim).collect(),
        Some(a) => a
            .iter()
            .map(|&x| axis_of("flip", x, ndim))
            .collect::<Result<_>>()?,
    };
    Ok((0..ndim)
        .map(|a| {
            if flipped.contains(&a) {
                Index::Slice {
                    start: None,
                    stop: None,
                    step: -1,
                }
            } else {
                Index::Slice {
                    start: None,
                    stop: None,
                    step: 1,
                }
            }
        })
        .collect())
}

/// The grid's shape of `meshgrid(xs, indexing)` (`xy`: the first two
/// axes swapped, as NumPy's default) and the dtype of result `part`: its
/// input's, as NumPy's `meshgrid` keeps each (the array API asks for one
/// dtype of all inputs, so it says nothing else).
pub fn meshgrid_signature(xs: &[Meta<'_>], xy: bool, part: usize) -> Result<(DType, Vec<usize>)> {
    if let Some(x) = xs.iter().find(|x| x.shape.len() != 1) {
        return Err(invalid(
            "meshgrid",
            format!("needs 1-d tensors, got shape {:?}", x.shape),
        ));
    }
    let dtype = xs
        .get(part)
        .ok_or_else(|| {
            invalid(
                "meshgrid",
                format!("no result {part} of {} inputs", xs.len()),
            )
        })?
        .dtype;
    let mut lens: Vec<usize> = xs.iter().map(|x| x.shape[0]).collect();
    if xy && xs.len() > 1 {
        lens.swap(0, 1);
    }
    checked_numel(&lens, dtype.size())?;
    Ok((dtype, lens))
}

/// Result `part` of `meshgrid(xs, indexing)`: `xs[part]` spread over the
/// grid, a new buffer.
pub fn meshgrid_part(xs: &[&DynTensor], xy: bool, part: usize) -> Result<DynTensor> {
    let meta: Vec<Meta<'_>> = xs.iter().map(|x| x.meta()).collect();
    let (dtype, lens) = meshgrid_signature(&meta, xy, part)?;
    let x = xs[part]; // (the signature checked `part`)
    let pos = if xy && xs.len() > 1 && part < 2 {
        1 - part
    } else {
        part
    };
    let mut s = vec![1; lens.len()];
    s[pos] = lens[pos];
    let x = prepared(x, dtype)?.reshape(&s)?;
    broadcast_to(&x, &lens)
}

/// `meshgrid(xs, indexing)`: every result of [`meshgrid_part`].
pub fn meshgrid(xs: &[&DynTensor], xy: bool) -> Result<Vec<DynTensor>> {
    (0..xs.len()).map(|i| meshgrid_part(xs, xy, i)).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::array::dyn_tensor::DynElement;

    /// A tensor of `v` (the array functions' tests use it too).
    pub(crate) fn t<T: DynElement>(v: &[T], shape: &[usize]) -> DynTensor {
        T::wrap(Tensor::from_slice(v, shape).unwrap())
    }

    /// The values of an int32 tensor.
    pub(crate) fn vals(x: &DynTensor) -> Vec<i32> {
        x.typed::<i32>("test").unwrap().as_slice().unwrap().to_vec()
    }

    #[test]
    fn concat_and_stack_follow_numpy() {
        let (a, b) = (t(&[1, 2, 3, 4], &[2, 2]), t(&[5, 6], &[1, 2]));
        let c = concat(&[&a, &b], Some(0)).unwrap();
        assert_eq!(
            (c.shape().to_vec(), vals(&c)),
            (vec![3, 2], vec![1, 2, 3, 4, 5, 6])
        );
        let s = stack(&[&a, &a], 2).unwrap();
        assert_eq!(
            (s.shape().to_vec(), vals(&s)),
            (vec![2, 2, 2], vec![1, 1, 2, 2, 3, 3, 4, 4])
        );
    }

    #[test]
    fn tile_and_repeat() {
        let a = t(&[1, 2], &[2]);
        assert_eq!(vals(&tile(&a, &[2, 2]).unwrap()), [1, 2, 1, 2, 1, 2, 1, 2]);
        assert_eq!(vals(&repeat(&a, &[2], None).unwrap()), [1, 1, 2, 2]);
        assert_eq!(vals(&repeat(&a, &[0, 3], Some(0)).unwrap()), [2, 2, 2]);
    }

    #[test]
    fn take_and_take_along_axis() {
        let m = t(&[1, 2, 3, 4, 5, 6], &[2, 3]);
        let i = DynTensor::from(Tensor::from_slice(&[2_i64, -3], &[2]).unwrap());
        assert_eq!(vals(&take(&m, &i, Some(1)).unwrap()), [3, 1, 6, 4]);
        let j = DynTensor::from(Tensor::from_slice(&[2_i64, 0, 1, 1], &[2, 2]).unwrap());
        assert_eq!(vals(&take_along_axis(&m, &j, 1).unwrap()), [3, 1, 5, 5]);
        let k = DynTensor::from(Tensor::from_slice(&[1_i64, 0, 1], &[1, 3]).unwrap());
        assert_eq!(vals(&take_along_axis(&m, &k, 0).unwrap()), [4, 2, 6]);
        // NumPy's index shapes: `None` reads `x` flat, a 0-d index removes
        // the axis, an n-d index replaces it.
        assert_eq!(vals(&take(&m, &i, None).unwrap()), [3, 4]);
        let z = DynTensor::from(Tensor::from_slice(&[-1_i64], &[]).unwrap());
        let r = take(&m, &z, Some(1)).unwrap();
        assert_eq!((r.shape().to_vec(), vals(&r)), (vec![2], vec![3, 6]));
        let r = take(&m, &k, Some(0)).unwrap();
        assert_eq!(r.shape(), [1, 3, 3]);
        assert_eq!(vals(&r), [4, 5, 6, 1, 2, 3, 4, 5, 6]);
        assert!(take(&m, &i, Some(2)).is_err());
    }

    #[test]
    fn shape_rules() {
        assert_eq!(
            expand_dims_index(2, &[-1]).unwrap().last(),
            Some(&Index::NewAxis)
        );
        // Several axes are positions in the result (NumPy's).
        let ix = expand_dims_index(1, &[0, -1]).unwrap();
        assert_eq!((ix[0], ix[2]), (Index::NewAxis, Index::NewAxis));
        assert_ne!(ix[1], Index::NewAxis);
        assert!(expand_dims_index(1, &[0, -3]).is_err());
        assert!(expand_dims_index(1, &[3]).is_err());
        assert_eq!(squeeze_shape(&[1, 3, 1], &[0, -1]).unwrap(), [3]);
        assert!(squeeze_shape(&[2], &[0]).is_err());
        assert_eq!(moveaxis_perm(3, &[0], &[-1]).unwrap(), [1, 2, 0]);
    }
}

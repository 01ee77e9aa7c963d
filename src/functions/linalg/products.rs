//! The sums of products (`tensordot`, `vecdot`, `outer`, `cross`,
//! `trace`, `matrix_power`) and `diagonal`: for every dtype they accept,
//! integers kept (and wrapping, as NumPy's), two operands promoted by
//! NumPy's table.

use crate::array::dyn_tensor::{for_any_dtype, for_kernel_dtype, AnyElement, DynTensor, Meta};
use crate::array::element::DType;
use crate::array::shape::{broadcast_shapes, normalize_axis};
use crate::error::{Error, Result};
use crate::kernels::matmul::MatmulElement;
use crate::kernels::matmul::{matmul_batched_acc, BatchOffsets, MatRef};

use super::stack::{
    inexact_dtype, lanes, new, numeric_dtype, promote_numeric, read, sized, Acc, Matrices,
};

/// Which axes `tensordot` contracts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TensordotAxes {
    /// The last `n` axes of `x1` with the first `n` of `x2`.
    Last(usize),
    /// `x1`'s axes `.0[i]` with `x2`'s axes `.1[i]` (negative counts from
    /// the end).
    Pairs(Vec<isize>, Vec<isize>),
}

/// The contracted axes of each operand, normalised and checked: equal
/// counts, no axis twice, equal sizes.
fn contracted(
    x1: &[usize],
    x2: &[usize],
    axes: &TensordotAxes,
) -> Result<(Vec<usize>, Vec<usize>)> {
    const OP: &str = "tensordot";
    let (a, b) = match axes {
        TensordotAxes::Last(n) => {
            if *n > x1.len() || *n > x2.len() {
                return Err(Error::InvalidArgument {
                    op: OP,
                    reason: format!(
                        "axes={n} needs both operands to have at least {n} dimensions (they have {} and {})",
                        x1.len(),
                        x2.len()
                    ),
                });
            }
            ((x1.len() - n..x1.len()).collect(), (0..*n).collect())
        }
        TensordotAxes::Pairs(a, b) => {
            if a.len() != b.len() {
                return Err(Error::InvalidArgument {
                    op: OP,
                    reason: format!(
                        "axes names {} axes of x1 and {} of x2; they must pair up",
                        a.len(),
                        b.len()
                    ),
                });
            }
            let norm = |axes: &[isize], nd: usize| -> Result<Vec<usize>> {
                let v = axes
                    .iter()
                    .map(|&ax| normalize_axis(ax, nd))
                    .collect::<Result<Vec<_>>>()?;
                if (1..v.len()).any(|i| v[..i].contains(&v[i])) {
                    return Err(Error::InvalidArgument {
                        op: OP,
                        reason: format!("axes {axes:?} names an axis twice"),
                    });
                }
                Ok(v)
            };
            (norm(a, x1.len())?, norm(b, x2.len())?)
        }
    };
    for (&i, &j) in a.iter().zip(&b) {
        if x1[i] != x2[j] {
            return Err(Error::InvalidShape {
                op: OP,
                shape: x1.to_vec(),
                reason: format!(
                    "axis {i} of x1 (size {}) and axis {j} of x2 {x2:?} (size {}) are contracted and must have equal sizes",
                    x1[i], x2[j]
                ),
            });
        }
    }
    Ok((a, b))
}

/// The axes of a shape not in `contracted`, in order.
fn free(shape: &[usize], contracted: &[usize]) -> Vec<usize> {
    (0..shape.len())
        .filter(|i| !contracted.contains(i))
        .collect()
}

/// The dtype and shape of `tensordot(x1, x2, axes)`: the promoted
/// numeric dtype, `x1`'s free axes followed by `x2`'s.
pub(crate) fn tensordot_signature(
    x1: Meta<'_>,
    x2: Meta<'_>,
    axes: &TensordotAxes,
) -> Result<(DType, Vec<usize>)> {
    let d = promote_numeric("tensordot", x1.dtype, x2.dtype)?;
    let (s1, s2) = (x1.shape, x2.shape);
    let (a, b) = contracted(s1, s2, axes)?;
    let shape = free(s1, &a)
        .into_iter()
        .map(|i| s1[i])
        .chain(free(s2, &b).into_iter().map(|i| s2[i]))
        .collect();
    sized(d, shape)
}

/// `tensordot(x1, x2, axes)`: the sum of products over the contracted
/// axes; the result's shape is `x1`'s free axes followed by `x2`'s.
pub fn tensordot(x1: &DynTensor, x2: &DynTensor, axes: &TensordotAxes) -> Result<DynTensor> {
    let (d, shape) = tensordot_signature(x1.meta(), x2.meta(), axes)?;
    let (s1, s2) = (x1.shape(), x2.shape());
    let (a, b) = contracted(s1, s2, axes)?;
    let (free1, free2) = (free(s1, &a), free(s2, &b));
    let perm1: Vec<isize> = free1.iter().chain(&a).map(|&i| i as isize).collect();
    let perm2: Vec<isize> = b.iter().chain(&free2).map(|&i| i as isize).collect();
    let m: usize = free1.iter().map(|&i| s1[i]).product();
    let k: usize = a.iter().map(|&i| s1[i]).product();
    let n: usize = free2.iter().map(|&i| s2[i]).product();
    let (p1, p2) = (x1.permuted_view(&perm1)?, x2.permuted_view(&perm2)?);
    for_kernel_dtype!(d, T => {
        let (t1, t2) = (read::<T>(&p1, "tensordot")?, read::<T>(&p2, "tensordot")?);
        new(&product(t1.as_slice()?, t2.as_slice()?, m, k, n), &shape)
    })
}

/// `a (m×k) · b (k×n)`, row-major and contiguous, as a new `Vec`.
fn product<T: AnyElement + MatmulElement>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
) -> Vec<T> {
    let mut out = vec![T::ZERO; m * n];
    if m * n * k > 0 {
        matmul_batched_acc(
            MatRef::dense(a, k),
            MatRef::dense(b, n),
            &mut out,
            m,
            k,
            n,
            &[BatchOffsets { a: 0, b: 0 }],
        );
    }
    out
}

/// The broadcast shape of two vector operands and the normalised axis
/// holding their vectors (which must exist in both, with equal sizes: it
/// is never broadcast).
fn vector_axis(
    op: &'static str,
    s1: &[usize],
    s2: &[usize],
    axis: isize,
) -> Result<(Vec<usize>, usize)> {
    let nd = s1.len().max(s2.len());
    let min = s1.len().min(s2.len());
    let ax = normalize_axis(axis, nd)?;
    if min == 0 || nd - ax > min {
        return Err(Error::InvalidAxis { axis, ndim: min });
    }
    let (n1, n2) = (s1[ax + s1.len() - nd], s2[ax + s2.len() - nd]);
    if n1 != n2 {
        return Err(Error::InvalidShape {
            op,
            shape: s1.to_vec(),
            reason: format!(
                "the vectors along axis {axis} have {n1} elements in x1 and {n2} in x2 {s2:?}; they must be equal (that axis is not broadcast)"
            ),
        });
    }
    Ok((broadcast_shapes(op, s1, s2)?.to_vec(), ax))
}

/// The dtype and shape of `vecdot(x1, x2, axis)`: the promoted numeric
/// dtype, the broadcast shape without `axis`.
pub(crate) fn vecdot_signature(
    x1: Meta<'_>,
    x2: Meta<'_>,
    axis: isize,
) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "vecdot";
    let d = promote_numeric(OP, x1.dtype, x2.dtype)?;
    let (mut shape, ax) = vector_axis(OP, x1.shape, x2.shape, axis)?;
    shape.remove(ax);
    sized(d, shape)
}

/// `vecdot(x1, x2, axis)`: the dot products of the vectors along `axis`,
/// the other axes broadcast; `sum(conj(x1) * x2)` for complex vectors, as
/// the standard defines it.
pub fn vecdot(x1: &DynTensor, x2: &DynTensor, axis: isize) -> Result<DynTensor> {
    const OP: &str = "vecdot";
    let (d, shape) = vecdot_signature(x1.meta(), x2.meta(), axis)?;
    let (out, ax) = vector_axis(OP, x1.shape(), x2.shape(), axis)?;
    let len = out[ax];
    let (o1, st1) = lanes(x1.shape(), &out, ax);
    let (o2, st2) = lanes(x2.shape(), &out, ax);
    for_any_dtype!(d, T => {
        let (t1, t2) = (read::<T>(x1, OP)?, read::<T>(x2, OP)?);
        let (a, b) = (t1.as_slice()?, t2.as_slice()?);
        let res: Vec<T> = o1
            .iter()
            .zip(&o2)
            .map(|(&i, &j)| (0..len).fold(Acc::zero::<T>(), |s, k| s.conj_mul_add(a[i + k * st1], b[j + k * st2])).get())
            .collect();
        new(&res, &shape)
    })
}

/// The dtype and shape of `cross(x1, x2, axis)`: the promoted numeric
/// dtype, the broadcast shape (3 along `axis`).
pub(crate) fn cross_signature(
    x1: Meta<'_>,
    x2: Meta<'_>,
    axis: isize,
) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.cross";
    let d = promote_numeric(OP, x1.dtype, x2.dtype)?;
    let (out, ax) = vector_axis(OP, x1.shape, x2.shape, axis)?;
    if out[ax] != 3 {
        return Err(Error::InvalidShape {
            op: OP,
            shape: x1.shape.to_vec(),
            reason: format!(
                "the vectors along axis {axis} must have 3 elements, not {}",
                out[ax]
            ),
        });
    }
    sized(d, out)
}

/// `cross(x1, x2, axis)`: the cross products of the 3-vectors along
/// `axis`, the other axes broadcast.
pub fn cross(x1: &DynTensor, x2: &DynTensor, axis: isize) -> Result<DynTensor> {
    const OP: &str = "linalg.cross";
    let (d, out) = cross_signature(x1.meta(), x2.meta(), axis)?;
    let ax = normalize_axis(axis, out.len())?;
    let (o1, st1) = lanes(x1.shape(), &out, ax);
    let (o2, st2) = lanes(x2.shape(), &out, ax);
    let (oo, sto) = lanes(&out, &out, ax);
    for_any_dtype!(d, T => {
        let (t1, t2) = (read::<T>(x1, OP)?, read::<T>(x2, OP)?);
        let (a, b) = (t1.as_slice()?, t2.as_slice()?);
        let mut res = vec![<T as crate::Element>::ZERO; out.iter().product()];
        for ((&i, &j), &o) in o1.iter().zip(&o2).zip(&oo) {
            let u = |c: usize| a[i + c * st1];
            let v = |c: usize| b[j + c * st2];
            let det = |p: usize, q: usize| Acc::zero::<T>().mul_add(u(p), v(q)).sub(Acc::zero::<T>().mul_add(u(q), v(p)));
            res[o] = det(1, 2).get();
            res[o + sto] = det(2, 0).get();
            res[o + 2 * sto] = det(0, 1).get();
        }
        new(&res, &out)
    })
}

/// The dtype and shape of `outer(x1, x2)`: the promoted numeric dtype,
/// `(M, N)` for vectors of `M` and `N` elements.
pub(crate) fn outer_signature(x1: Meta<'_>, x2: Meta<'_>) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.outer";
    let d = promote_numeric(OP, x1.dtype, x2.dtype)?;
    let (&[m], &[n]) = (x1.shape, x2.shape) else {
        return Err(Error::InvalidShape {
            op: OP,
            shape: x1.shape.to_vec(),
            reason: format!(
                "needs two vectors (1-dimensional), got shapes {:?} and {:?}",
                x1.shape, x2.shape
            ),
        });
    };
    sized(d, vec![m, n])
}

/// `outer(x1, x2)`: every product `x1[i]·x2[j]` of two vectors.
pub fn outer(x1: &DynTensor, x2: &DynTensor) -> Result<DynTensor> {
    const OP: &str = "linalg.outer";
    let (d, shape) = outer_signature(x1.meta(), x2.meta())?;
    for_any_dtype!(d, T => {
        let (t1, t2) = (read::<T>(x1, OP)?, read::<T>(x2, OP)?);
        let (a, b) = (t1.as_slice()?, t2.as_slice()?);
        let res: Vec<T> = a
            .iter()
            .flat_map(|&p| b.iter().map(move |&q| Acc::zero::<T>().mul_add(p, q).get()))
            .collect();
        new(&res, &shape)
    })
}

/// The positions `(row, column)` of the diagonal `offset` of an `m×n`
/// matrix (above the main one for positive offsets).
fn diagonal_positions(m: usize, n: usize, offset: isize) -> impl Iterator<Item = (usize, usize)> {
    let (r0, c0) = if offset >= 0 {
        (0, offset.unsigned_abs())
    } else {
        (offset.unsigned_abs(), 0)
    };
    let len = m.saturating_sub(r0).min(n.saturating_sub(c0));
    (0..len).map(move |i| (r0 + i, c0 + i))
}

/// The dtype and shape of `diagonal(x, offset)`: `x`'s dtype, the stack
/// followed by the diagonal's length.
pub(crate) fn diagonal_signature(x: Meta<'_>, offset: isize) -> Result<(DType, Vec<usize>)> {
    let s = Matrices::of("linalg.diagonal", x.shape)?;
    let len = diagonal_positions(s.m, s.n, offset).count();
    sized(x.dtype, s.shape_with(&[len]))
}

/// `diagonal(x, offset)`: the diagonal of each matrix, every dtype.
pub fn diagonal(x: &DynTensor, offset: isize) -> Result<DynTensor> {
    const OP: &str = "linalg.diagonal";
    let (d, shape) = diagonal_signature(x.meta(), offset)?;
    let s = Matrices::of(OP, x.shape())?;
    let len = shape[shape.len() - 1];
    for_any_dtype!(d, T => {
        let t = read::<T>(x, OP)?;
        let data = t.as_slice()?;
        let mut res = Vec::with_capacity(s.count() * len);
        for b in 0..s.count() {
            let base = b * s.size();
            res.extend(diagonal_positions(s.m, s.n, offset).map(|(i, j)| data[base + i * s.n + j]));
        }
        new(&res, &shape)
    })
}

/// The dtype `trace` sums in and returns: `requested`, else the input's,
/// widened as the standard says: signed integers (and bool) narrower
/// than int64 to int64, unsigned ones to uint64.
pub fn trace_dtype(x: DType, requested: Option<DType>) -> DType {
    requested.unwrap_or(match x {
        DType::Bool | DType::I8 | DType::I16 | DType::I32 => DType::I64,
        DType::U8 | DType::U16 | DType::U32 => DType::U64,
        d => d,
    })
}

/// The dtype and shape of `trace(x, offset, dtype)`: [`trace_dtype`],
/// one element per matrix of the stack (whatever the offset).
pub(crate) fn trace_signature(x: Meta<'_>, dtype: Option<DType>) -> Result<(DType, Vec<usize>)> {
    let s = Matrices::of("linalg.trace", x.shape)?;
    sized(trace_dtype(x.dtype, dtype), s.batch)
}

/// `trace(x, offset, dtype)`: the sum of each matrix's diagonal `offset`,
/// in [`trace_dtype`].
pub fn trace(x: &DynTensor, offset: isize, dtype: Option<DType>) -> Result<DynTensor> {
    const OP: &str = "linalg.trace";
    let (d, shape) = trace_signature(x.meta(), dtype)?;
    let s = Matrices::of(OP, x.shape())?;
    for_any_dtype!(d, T => {
        let t = read::<T>(x, OP)?;
        let data = t.as_slice()?;
        let res: Vec<T> = (0..s.count())
            .map(|b| {
                let base = b * s.size();
                diagonal_positions(s.m, s.n, offset)
                    .fold(Acc::zero::<T>(), |acc, (i, j)| acc.add(data[base + i * s.n + j]))
                    .get()
            })
            .collect();
        new(&res, &shape)
    })
}

/// The dtype and shape of `matrix_power(x, n)`: a stack of square
/// matrices, kept, of a numeric dtype (a float or complex one when
/// `n < 0`: the power is one of the inverse).
pub(crate) fn matrix_power_signature(x: Meta<'_>, n: i64) -> Result<(DType, Vec<usize>)> {
    const OP: &str = "linalg.matrix_power";
    Matrices::square(OP, x.shape)?;
    let d = if n < 0 {
        inexact_dtype(OP, x.dtype)?
    } else {
        numeric_dtype(OP, x.dtype)?
    };
    sized(d, x.shape.to_vec())
}

/// `matrix_power(x, n)`: each square matrix to the integer power `n`
/// (the identity for 0; a negative power is a power of the inverse, for
/// float and complex matrices).
pub fn matrix_power(x: &DynTensor, n: i64) -> Result<DynTensor> {
    const OP: &str = "linalg.matrix_power";
    let (d, shape) = matrix_power_signature(x.meta(), n)?;
    if n < 0 {
        return matrix_power(&super::inv(x)?, n.checked_neg().unwrap_or(i64::MAX));
    }
    let s = Matrices::of(OP, x.shape())?;
    for_kernel_dtype!(d, T => {
        let t = read::<T>(x, OP)?;
        let data = t.as_slice()?;
        let mut res = Vec::with_capacity(data.len());
        for b in 0..s.count() {
            res.extend(power(&data[b * s.size()..(b + 1) * s.size()], s.n, n.unsigned_abs()));
        }
        new(&res, &shape)
    })
}

/// `a^e` for one `n×n` matrix, by repeated squaring.
fn power<T: AnyElement + MatmulElement>(a: &[T], n: usize, mut e: u64) -> Vec<T> {
    let mut acc: Vec<T> = (0..n * n)
        .map(|i| if i % (n + 1) == 0 { T::ONE } else { T::ZERO })
        .collect();
    let mut base = a.to_vec();
    while e > 0 {
        if e & 1 == 1 {
            acc = product(&acc, &base, n, n, n);
        }
        e >>= 1;
        if e > 0 {
            base = product(&base, &base, n, n, n);
        }
    }
    acc
}

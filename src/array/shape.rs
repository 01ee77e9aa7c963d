//! Shapes: checked sizes, NumPy broadcasting, axes.

use crate::error::{Error, Result};

/// A shape, inline up to 4 dimensions: a tensor's shape and a plan's
/// result shape need no heap allocation of their own (a small eager op
/// pays no malloc/free for them).
pub type Dims = smallvec::SmallVec<[usize; 4]>;

/// `shape` as [`Dims`]. Every shape is copied through this (not
/// `Dims::from_slice`, which calls `memcpy` for any length: a library
/// call that costs more than copying four words, and an eager `a + b`
/// copies a shape for each operand it reads and for its result).
#[inline]
pub fn dims(shape: &[usize]) -> Dims {
    match *shape {
        [] => Dims::new(),
        [a] => Dims::from_buf_and_len([a, 0, 0, 0], 1),
        [a, b] => Dims::from_buf_and_len([a, b, 0, 0], 2),
        [a, b, c] => Dims::from_buf_and_len([a, b, c, 0], 3),
        [a, b, c, d] => Dims::from_buf([a, b, c, d]),
        _ => Dims::from_vec(shape.to_vec()),
    }
}

/// Number of elements of `shape`: the one test of whether a shape can
/// exist, NumPy's. The product of its non-zero dimensions, times
/// `elem_size`, must fit in `isize` (less a block's alignment), so that
/// every element count, byte size, stride and offset computed from the
/// shape's dimensions fits too, even of an empty tensor
/// (`(0, 2**62, 2**62)` cannot exist either). Else
/// [`Error::ShapeOverflow`] (a `ValueError`, as NumPy's "array is too
/// big").
#[inline]
pub fn checked_numel(shape: &[usize], elem_size: usize) -> Result<usize> {
    let nonzero = shape
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d));
    let fits = |n: usize| {
        n.checked_mul(elem_size.max(1))
            .is_some_and(|bytes| bytes <= isize::MAX as usize - crate::memory::block::ALIGN)
    };
    match nonzero {
        Some(n) if fits(n) => Ok(if shape.contains(&0) { 0 } else { n }),
        _ => Err(too_big(shape, elem_size)),
    }
}

/// The error of a shape whose size does not fit ([`checked_numel`]); out
/// of line, so that the check every operation makes stays a few
/// instructions.
#[cold]
#[inline(never)]
fn too_big(shape: &[usize], elem_size: usize) -> Error {
    Error::ShapeOverflow {
        shape: shape.to_vec(),
        elem_size,
    }
}

/// `a * b` for a dimension computed from others (`tile`'s `reps * d`),
/// or [`Error::ShapeOverflow`] naming `shape` (the shape being built).
pub fn checked_dim_mul(a: usize, b: usize, shape: &[usize], elem_size: usize) -> Result<usize> {
    a.checked_mul(b).ok_or_else(|| Error::ShapeOverflow {
        shape: shape.to_vec(),
        elem_size,
    })
}

/// The sum of dimensions (`repeat`'s counts, `concat`'s lengths), or
/// [`Error::ShapeOverflow`] naming `shape`.
pub fn checked_dim_sum(
    dims: impl IntoIterator<Item = usize>,
    shape: &[usize],
    elem_size: usize,
) -> Result<usize> {
    dims.into_iter()
        .try_fold(0usize, usize::checked_add)
        .ok_or_else(|| Error::ShapeOverflow {
            shape: shape.to_vec(),
            elem_size,
        })
}

/// C-contiguous strides (in elements).
pub fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The shape two operands broadcast to, as NumPy defines it.
pub fn broadcast_shapes(op: &'static str, a: &[usize], b: &[usize]) -> Result<Dims> {
    if a == b {
        return Ok(dims(a));
    }
    let n = a.len().max(b.len());
    let mut out = Dims::from_elem(0, n);
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(Error::ShapeMismatch {
                    op,
                    lhs: a.to_vec(),
                    rhs: b.to_vec(),
                })
            }
        };
    }
    Ok(out)
}

/// The shape an assigned value of shape `from` is broadcast from into a
/// target of `to_ndim` axes: NumPy drops the value's leading axes of
/// length 1 beyond the target's (`t[1] = row.reshape(1, n)`,
/// `t[...] = v[None]`), which `broadcast_to` does not.
pub fn assigned_shape(from: &[usize], to_ndim: usize) -> &[usize] {
    let mut f = from;
    while f.len() > to_ndim && f.first() == Some(&1) {
        f = &f[1..];
    }
    f
}

/// Check that an assigned value of shape `from` fits a target of shape
/// `to` ([`assigned_shape`], then [`check_broadcasts_to`]); the error names
/// the value's own shape.
///
/// # Errors
/// [`Error::NotBroadcastableTo`] naming both shapes.
pub fn check_assigns_to(op: &'static str, from: &[usize], to: &[usize]) -> Result<()> {
    check_broadcasts_to(op, assigned_shape(from, to.len()), to).map_err(|_| {
        Error::NotBroadcastableTo {
            op,
            from: from.to_vec(),
            to: to.to_vec(),
        }
    })
}

/// Check that `from` broadcasts *to* `to` (NumPy's `broadcast_to`, an
/// assignment's value to the selection, an in-place result to its
/// target): no more axes than `to`, each trailing axis equal to `to`'s or 1.
///
/// # Errors
/// [`Error::NotBroadcastableTo`] naming both shapes.
pub fn check_broadcasts_to(op: &'static str, from: &[usize], to: &[usize]) -> Result<()> {
    let fits = from.len() <= to.len()
        && from
            .iter()
            .rev()
            .zip(to.iter().rev())
            .all(|(&f, &t)| f == t || f == 1);
    if fits {
        Ok(())
    } else {
        Err(Error::NotBroadcastableTo {
            op,
            from: from.to_vec(),
            to: to.to_vec(),
        })
    }
}

/// Strides (in elements) for reading an operand of `shape` as if it had the
/// broadcast shape `out` (0 along broadcast dimensions).
pub fn broadcast_strides(shape: &[usize], out: &[usize]) -> Vec<usize> {
    let cs = c_strides(shape);
    let off = out.len() - shape.len();
    (0..out.len())
        .map(|i| {
            if i < off || shape[i - off] == 1 {
                0
            } else {
                cs[i - off]
            }
        })
        .collect()
}

/// Normalise a possibly negative axis.
pub fn normalize_axis(axis: isize, ndim: usize) -> Result<usize> {
    let nd = ndim as isize;
    let a = if axis < 0 { axis + nd } else { axis };
    if a < 0 || a >= nd {
        return Err(Error::InvalidAxis { axis, ndim });
    }
    Ok(a as usize)
}

/// Split `shape` at `axis` into (outer, len, inner) element counts.
pub fn split_at_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// What [`matmul_shapes`] gives: `(batch_shape, m, k, n, out_shape)`.
pub type MatmulShapes = (Vec<usize>, usize, usize, usize, Vec<usize>);

/// Shapes of a (batched) matmul ([`MatmulShapes`]).
/// 1-d operands follow NumPy: `[k]` on the left is `[1, k]` and on the right
/// `[k, 1]`, and that axis is dropped from the result.
pub fn matmul_shapes(a: &[usize], b: &[usize]) -> Result<MatmulShapes> {
    let err = |reason: String| Error::InvalidShape {
        op: "matmul",
        shape: a.to_vec(),
        reason,
    };
    if a.is_empty() || b.is_empty() {
        return Err(err("matmul needs operands of at least one dimension".into()));
    }
    let a2: Vec<usize> = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.to_vec()
    };
    let b2: Vec<usize> = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.to_vec()
    };
    let (m, k) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (k2, n) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    if k != k2 {
        // (Not "not compatible": equal shapes such as [2, 3] @ [2, 3]
        // fail here, on the inner dimensions.)
        let which = if b.len() == 1 {
            "length"
        } else {
            "second-to-last axis"
        };
        return Err(err(format!(
            "its last axis ({k}) must equal the {which} of the right operand {b:?} ({k2})"
        )));
    }
    let batch = broadcast_shapes("matmul", &a2[..a2.len() - 2], &b2[..b2.len() - 2])
        .map_err(|_| Error::ShapeMismatch {
            op: "matmul",
            lhs: a.to_vec(),
            rhs: b.to_vec(),
        })?
        .to_vec();
    let mut out = batch.clone();
    if a.len() > 1 {
        out.push(m);
    }
    if b.len() > 1 {
        out.push(n);
    }
    Ok((batch, m, k, n, out))
}

/// The shape of a reduction of `shape` over `axis` (all axes for `None`),
/// keeping reduced axes as 1 with `keepdims`.
#[must_use]
pub fn reduce_shape(shape: &[usize], axis: Option<usize>, keepdims: bool) -> Vec<usize> {
    match (axis, keepdims) {
        (None, false) => vec![],
        (None, true) => vec![1; shape.len()],
        (Some(a), true) => {
            let mut s = shape.to_vec();
            s[a] = 1;
            s
        }
        (Some(a), false) => {
            let mut s = shape.to_vec();
            s.remove(a);
            s
        }
    }
}

/// A permutation of the axes of `shape` (NumPy's `transpose(axes)`):
/// output axis `i` is input axis `axes[i]`, negative axes counting from
/// the end; every axis exactly once. `None`: the axes reversed.
///
/// # Errors
/// `InvalidShape` for a wrong count or a repeated axis, `InvalidAxis` for
/// one out of range.
pub fn permutation(shape: &[usize], axes: Option<&[isize]>) -> Result<Vec<usize>> {
    let nd = shape.len();
    let Some(axes) = axes else {
        return Ok((0..nd).rev().collect());
    };
    let invalid = |reason: String| Error::InvalidShape {
        op: "transpose",
        shape: shape.to_vec(),
        reason,
    };
    if axes.len() != nd {
        return Err(invalid(format!(
            "axes {axes:?} do not match a tensor of dimension {nd}"
        )));
    }
    let mut seen = vec![false; nd];
    let mut norm = Vec::with_capacity(nd);
    for &a in axes {
        let a = normalize_axis(a, nd)?;
        if std::mem::replace(&mut seen[a], true) {
            return Err(invalid(format!("axis {a} is repeated in {axes:?}")));
        }
        norm.push(a);
    }
    Ok(norm)
}

/// The sizes of a scaled dot-product attention (see [`attention_shapes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttentionShapes {
    /// Batch entries: the product of the leading dimensions.
    pub batch: usize,
    /// Query rows, keys, query/key width, value width.
    pub l: usize,
    pub s: usize,
    pub e: usize,
    pub ev: usize,
    /// The result's shape: `[..., L, Ev]`.
    pub out: Vec<usize>,
    /// How the mask is laid out: `Some(1)` one `[L, S]` for every batch
    /// entry, `Some(batch)` one per entry, `None` another shape that must
    /// be broadcast to `[..., L, S]` first (or no mask).
    pub mask_batch: Option<usize>,
}

/// Shapes of `scaled_dot_product_attention(q, k, v, mask)`: `q` is
/// `[..., L, E]`, `k` `[..., S, E]`, `v` `[..., S, Ev]`, all with the same
/// leading dimensions; the result is `[..., L, Ev]`. A mask broadcasts to
/// `[..., L, S]` (NumPy's rules, without growing that shape).
pub fn attention_shapes(
    q: &[usize],
    k: &[usize],
    v: &[usize],
    mask: Option<&[usize]>,
) -> Result<AttentionShapes> {
    const OP: &str = "scaled_dot_product_attention";
    let n = q.len();
    if n < 2 || k.len() != n || v.len() != n {
        return Err(Error::InvalidShape {
            op: OP,
            shape: q.to_vec(),
            reason: format!(
                "q, k and v need the same number (at least 2) of dimensions, got {q:?}, {k:?} and {v:?}"
            ),
        });
    }
    let lead = &q[..n - 2];
    let (l, e) = (q[n - 2], q[n - 1]);
    let (s, ek) = (k[n - 2], k[n - 1]);
    let (sv, ev) = (v[n - 2], v[n - 1]);
    let mismatch = |what: &str| Error::InvalidShape {
        op: OP,
        shape: q.to_vec(),
        reason: format!("{what}: q {q:?}, k {k:?}, v {v:?}"),
    };
    if &k[..n - 2] != lead || &v[..n - 2] != lead {
        return Err(mismatch("q, k and v must have the same leading dimensions"));
    }
    if ek != e {
        return Err(mismatch("q and k must have the same last dimension"));
    }
    if sv != s {
        return Err(mismatch("k and v must have as many rows"));
    }
    let batch: usize = lead.iter().product();
    let mut full = lead.to_vec();
    full.extend([l, s]);
    checked_numel(&full, 1)?;
    let mask_batch = match mask {
        None => None,
        Some(m) => {
            if m.len() > full.len() || broadcast_shapes(OP, m, &full)?[..] != full[..] {
                return Err(Error::InvalidShape {
                    op: OP,
                    shape: m.to_vec(),
                    reason: format!("the mask does not broadcast to the scores' shape {full:?}"),
                });
            }
            let pad = full.len() - m.len();
            let leading_ones = m.iter().take(m.len().saturating_sub(2)).all(|&d| d == 1);
            if m.len() >= 2 && m[m.len() - 2..] == [l, s] && leading_ones {
                Some(1)
            } else if pad == 0 && m == full.as_slice() {
                Some(batch)
            } else {
                None
            }
        }
    };
    let mut out = lead.to_vec();
    out.extend([l, ev]);
    Ok(AttentionShapes {
        batch,
        l,
        s,
        e,
        ev,
        out,
        mask_batch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast_shapes("t", &[3, 1], &[4]).unwrap()[..], [3, 4]);
        assert_eq!(broadcast_shapes("t", &[], &[2, 2]).unwrap()[..], [2, 2]);
        assert_eq!(broadcast_shapes("t", &[0, 1], &[1, 5]).unwrap()[..], [0, 5]);
        assert!(broadcast_shapes("t", &[3], &[4]).is_err());
        assert_eq!(broadcast_strides(&[3, 1], &[2, 3, 4]), vec![0, 1, 0]);
    }

    #[test]
    fn overflow_is_an_error() {
        assert!(checked_numel(&[usize::MAX, 2], 4).is_err());
        assert!(checked_numel(&[1 << 40, 1 << 30], 4).is_err());
        assert_eq!(checked_numel(&[], 4).unwrap(), 1);
        // NumPy's rule: the non-zero dimensions must fit even when another
        // is 0 (`np.empty((0, 2**61), "f4")` is "too big" too).
        assert!(checked_numel(&[0, usize::MAX], 4).is_err());
        assert!(checked_numel(&[0, 1 << 61], 4).is_err());
        assert_eq!(checked_numel(&[0, 1 << 40], 4).unwrap(), 0);
        assert_eq!(checked_numel(&[1 << 40, 0, 1 << 20], 4).unwrap(), 0);
        assert_eq!(checked_numel(&[3, 5, 7], 8).unwrap(), 105);
        // The error names the shape and the element size.
        let e = checked_numel(&[1 << 40, 1 << 30], 4).unwrap_err();
        assert!(
            matches!(e, Error::ShapeOverflow { ref shape, elem_size: 4 } if shape[..] == [1 << 40, 1 << 30])
        );
    }

    #[test]
    fn dims_copies_every_length() {
        for n in 0..7 {
            let shape: Vec<usize> = (1..=n).map(|d| d * 10 + 1).collect();
            let d = dims(&shape);
            assert_eq!(d[..], shape[..], "{n} dimensions");
            // Inline up to four, as `Dims` promises.
            assert_eq!(d.spilled(), n > 4, "{n} dimensions");
        }
    }

    #[test]
    fn axes() {
        assert_eq!(normalize_axis(-1, 3).unwrap(), 2);
        assert!(normalize_axis(3, 3).is_err());
        assert!(normalize_axis(-4, 3).is_err());
        assert!(normalize_axis(0, 0).is_err());
    }

    #[test]
    fn attention_shapes_and_mask_layouts() {
        let g = attention_shapes(&[2, 3, 4, 8], &[2, 3, 5, 8], &[2, 3, 5, 6], None).unwrap();
        assert_eq!((g.batch, g.l, g.s, g.e, g.ev), (6, 4, 5, 8, 6));
        assert_eq!(g.out, [2, 3, 4, 6]);
        let m = |mask: &[usize]| {
            attention_shapes(&[2, 3, 4, 8], &[2, 3, 5, 8], &[2, 3, 5, 8], Some(mask))
                .map(|g| g.mask_batch)
        };
        assert_eq!(m(&[4, 5]).unwrap(), Some(1));
        assert_eq!(m(&[1, 1, 4, 5]).unwrap(), Some(1));
        assert_eq!(m(&[2, 3, 4, 5]).unwrap(), Some(6));
        assert_eq!(m(&[2, 1, 4, 5]).unwrap(), None); // broadcast first
        assert_eq!(m(&[5]).unwrap(), None);
        assert_eq!(m(&[]).unwrap(), None);
        assert!(m(&[4, 6]).is_err());
        assert!(m(&[1, 2, 3, 4, 5]).is_err());
        // Mismatched operands.
        assert!(attention_shapes(&[4, 8], &[5, 7], &[5, 8], None).is_err());
        assert!(attention_shapes(&[4, 8], &[5, 8], &[6, 8], None).is_err());
        assert!(attention_shapes(&[2, 4, 8], &[3, 5, 8], &[3, 5, 8], None).is_err());
        assert!(attention_shapes(&[8], &[8], &[8], None).is_err());
        assert!(attention_shapes(&[4, 8], &[1, 5, 8], &[1, 5, 8], None).is_err());
    }
}

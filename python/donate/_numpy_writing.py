"""NumPy's functions that write into an array or insert into a copy of one,
on tensors: `put`, `put_along_axis`, `putmask`, `place`, `copyto`,
`fill_diagonal`, a ufunc's `at` (all in place) and `insert` (a new
tensor).

Translation only: each in-place function is one indexed assignment
(`t[index] = values`) or `t[...] = where(mask, values, t)`, so it writes
as `t[i] = v` writes: into the tensor's own buffer, through into a
shared one (every view sees the change, as NumPy's views do), never into
a moved-from tensor. `insert` is donate's `concat` and `take`.

Index arguments that NumPy reads as Python data (`insert`'s `obj`,
`put`'s `ind`, the masks of `putmask` and `place`) decide positions
only; where NumPy's rule for them is intricate (`insert`'s), the
positions come from NumPy's own function applied to an index vector, so
they follow NumPy to the element.

When the array written into is a NumPy array (a tensor was among the
other operands, so NumPy asked donate), the other operands are read as
NumPy arrays and NumPy's own function writes: the caller's array is
NumPy's to change.

Decisions:

- Values are cast to the target's dtype as NumPy casts them for each
  function (arrays unsafely for `put`, `put_along_axis`, `putmask`,
  `place`, `fill_diagonal` and `insert`; `copyto` checks its `casting`
  rule first and raises `TypeError` naming it, before anything is
  written). Python numbers and lists are converted by NumPy into the
  target's dtype, so an int it does not hold raises `OverflowError`
  (`_converted`).
- `put`'s indices are cast to integers as NumPy casts them (unsafely:
  `1.7` is position 1).
- Repeated positions in one call (`put` with an index twice) are
  written once each, in order, so the last value stays, as NumPy's
  assignments do in practice.
- `ufunc.at(a, indices, b)` applies the ufunc once per occurrence of a
  position, in the order of the occurrences, as NumPy's unbuffered loop
  does, so the result is NumPy's to the bit: pass `k` gathers the
  positions occurring a `k`-th time (each once in the pass), computes
  the ufunc of their current values and their operands (NumPy's loop
  dtype: the ufunc called on tensors), and scatters the results back,
  cast to `a`'s dtype as NumPy casts them (unsafely). An index repeated
  `r` times costs `r` passes.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import _as_tensor, _dtype_of, _where_mask

NAMES = ["put", "put_along_axis", "putmask", "place", "copyto", "fill_diagonal", "insert"]


def _numpy(x: Any) -> Any:
    return np.asarray(_as_tensor(x)) if isinstance(x, (_dn.Tensor, _dn.Donated)) else x


def _on_numpy(name: str, target: np.ndarray, *args: Any, **kwargs: Any) -> Any:
    """NumPy's own `name` writing into the NumPy array `target`."""
    f = getattr(np, name)
    return f._implementation(target, *(_numpy(a) for a in args),
                             **{k: _numpy(v) for k, v in kwargs.items()})


def _target(name: str, a: Any) -> Any:
    """The tensor `name` writes into (a `Donated` wrapper is refused: it
    offers its buffer to be consumed, not written)."""
    if isinstance(a, _dn.Tensor):
        return a
    raise TypeError(f"numpy.{name}: the array to write into must be a donate tensor or a "
                    f"NumPy array, not {type(a).__name__}")


def _converted(v: Any, dtype: Any) -> Any:
    """The values `v` in `dtype`, as NumPy's writing functions convert
    them: an array (a tensor, a NumPy array) cast unsafely; Python data
    (numbers, lists) converted by NumPy into `dtype`, so an int it does
    not hold is NumPy's `OverflowError` (`put(uint8, 0, 300)`), never
    wrapped, and NaN into an integer its `ValueError`."""
    if isinstance(v, (_dn.Tensor, _dn.Donated, np.ndarray)):
        t = _as_tensor(v)
        return t if t.dtype == dtype else _dn.astype(t, dtype)
    return _dn.asarray(np.asarray(v, dtype=np.dtype(dtype)))


def _values(v: Any, dtype: Any, n: int) -> Any:
    """`v` flattened and repeated (or cut) to `n` elements of `dtype`:
    how NumPy's flat assignments read their values."""
    flat = _dn.reshape(_converted(v, dtype), (-1,))
    m = flat.shape[0]
    if m == n:
        return flat
    if m == 0:
        raise ValueError("Cannot insert from an empty array!")
    return _dn.take(flat, _dn.remainder(_dn.arange(n, dtype=_dn.int64), m))


def _positions(shape: tuple[int, ...], flat: np.ndarray) -> tuple[Any, ...]:
    """The flat positions `flat` (C order) of an array of `shape` as one
    integer tensor per axis, for an indexed assignment."""
    return tuple(_dn.asarray(i.astype(np.int64)) for i in np.unravel_index(flat, shape))


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> None:
    """NumPy's `put`: the elements of `a` at the flat (C order) positions
    `ind` set to `v`, repeated as needed; `mode` 'raise', 'wrap' or 'clip'
    for positions out of range."""
    if isinstance(a, np.ndarray):
        return _on_numpy("put", a, ind, v, mode=mode)
    t = _target("put", a)
    idx = np.asarray(_numpy(ind)).astype(np.int64).reshape(-1)  # NumPy's: cast unsafely
    n = t.size
    if idx.size == 0:
        return None
    if n == 0:
        raise IndexError("cannot replace elements of an empty array")
    if mode == "raise":
        bad = (idx < -n) | (idx >= n)
        if bad.any():
            raise IndexError(f"index {int(idx[bad][0])} is out of bounds for axis 0 with size {n}")
        idx = np.where(idx < 0, idx + n, idx)
    elif mode == "wrap":
        idx = np.mod(idx, n)
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    vals = _values(v, t.dtype, idx.size)
    t[_positions(t.shape, idx)] = vals
    return None


def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """NumPy's `put_along_axis`: `values` written at `indices` along
    `axis` (the flattened array when `axis` is None), the inverse of
    `take_along_axis`."""
    if isinstance(arr, np.ndarray):
        return _on_numpy("put_along_axis", arr, indices, values, axis)
    t = _target("put_along_axis", arr)
    idx = _as_tensor(indices)
    if not _dn.isdtype(idx.dtype, "integral"):
        raise IndexError("`indices` must be an integer array")
    if axis is None:  # NumPy's: the flat array, `values` repeated as needed
        if idx.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        at = np.asarray(idx).astype(np.int64)
        bad = (at < -t.size) | (at >= t.size)
        if bad.any():
            raise IndexError(f"index {int(at[bad][0])} is out of bounds for axis 0 with size "
                             f"{t.size}")
        if at.size:
            t[_positions(t.shape, np.where(at < 0, at + t.size, at))] = \
                _values(values, t.dtype, at.size)
        return None
    axis = operator.index(axis)
    if not -t.ndim <= axis < t.ndim:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension {t.ndim}")
    axis %= t.ndim
    if idx.ndim != t.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    index = tuple(
        idx if d == axis else
        _dn.reshape(_dn.arange(t.shape[d], dtype=_dn.int64),
                    tuple(t.shape[d] if k == d else 1 for k in range(t.ndim)))
        for d in range(t.ndim)
    )
    shape = _dn.broadcast_shapes(*(i.shape for i in index))
    v = _converted(values, t.dtype)
    t[index] = _dn.broadcast_to(v, shape)
    return None


def putmask(a: Any, mask: Any, values: Any) -> None:
    """NumPy's `putmask`: `a.flat[n] = values.flat[n % len]` wherever
    `mask.flat[n]` is true (`mask` of `a`'s shape)."""
    if isinstance(a, np.ndarray):
        return _on_numpy("putmask", a, mask, values)
    t = _target("putmask", a)
    m = _as_tensor(mask)
    if m.shape != t.shape:
        raise ValueError("putmask: mask and data must be the same size")
    if m.dtype != _dn.bool:
        m = m != 0
    if t.size == 0:
        return None
    full = _dn.reshape(_values(values, t.dtype, t.size), t.shape)
    t[...] = _dn.where(m, full, t)
    return None


def place(arr: Any, mask: Any, vals: Any) -> None:
    """NumPy's `place`: the elements of `arr` where `mask` is true set to
    `vals` in order, repeated as needed."""
    if isinstance(arr, np.ndarray):
        return _on_numpy("place", arr, mask, vals)
    t = _target("place", arr)
    m = np.asarray(_numpy(mask), dtype=bool)
    if m.size != t.size:
        raise ValueError("place: mask and data must be the same size")
    at = np.flatnonzero(m)
    if at.size == 0:
        return None
    if _as_tensor(vals).size == 0:
        raise ValueError("Cannot insert from an empty array!")
    t[_positions(t.shape, at)] = _values(vals, t.dtype, at.size)
    return None


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> None:
    """NumPy's `copyto`: `src` broadcast into `dst` where `where` is true,
    after checking the `casting` rule (a Python number is weak, NEP 50)."""
    if isinstance(dst, np.ndarray):
        return _on_numpy("copyto", dst, src, casting=casting, where=where)
    t = _target("copyto", dst)
    weak = isinstance(src, (bool, int, float, complex))
    if weak:
        ok = np.can_cast(np.result_type(np.array(0, t.dtype), src), t.dtype, casting) or \
            np.can_cast(type(src), t.dtype, casting)
        sdt = np.dtype(type(src))
    else:
        sdt = _dtype_of(src)
        ok = np.can_cast(sdt, t.dtype, casting)
    if not ok:
        raise TypeError(f"Cannot cast {'scalar' if weak else 'array data'} from {sdt!r} to "
                        f"{np.dtype(t.dtype)!r} according to the rule {casting!r}")
    s = _converted(src, t.dtype)
    # (Broadcast by the assignment, which takes leading axes of length 1
    # beyond `dst`'s as NumPy's does; `broadcast_to` would refuse them.)
    if where is True:
        t[...] = s
        return None
    t[...] = _dn.where(_dn.broadcast_to(_where_mask(where), t.shape), s, t)
    return None


def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
    """NumPy's `fill_diagonal`: the main diagonal of `a` (2-d, or every
    axis of one length) set to `val`, repeated as needed; `wrap` restarts
    the diagonal of a tall matrix every `columns + 1` rows."""
    if isinstance(a, np.ndarray):
        return _on_numpy("fill_diagonal", a, val, wrap=wrap)
    t = _target("fill_diagonal", a)
    if t.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if t.ndim == 2:
        rows, cols = t.shape
        end = rows * cols if wrap else min(rows * cols, cols * cols)
        flat = np.arange(0, end, cols + 1)
    else:
        if len(set(t.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(t.shape[:-1]).sum())
        flat = np.arange(0, t.size, step)
    if flat.size == 0:
        return None
    t[_positions(t.shape, flat)] = _values(val, t.dtype, flat.size)
    return None


def insert(arr: Any, obj: Any, values: Any, axis: Any = None) -> Any:
    """NumPy's `insert`: a new tensor with `values` inserted before the
    positions `obj` (an index, indices, a slice or a mask) along `axis`
    (flattened when `axis` is None)."""
    x = _as_tensor(arr)
    if isinstance(obj, (_dn.Tensor, _dn.Donated)):
        obj = np.asarray(_as_tensor(obj))
    if axis is None:
        x, axis = _dn.reshape(x, (-1,)), 0
    axis = operator.index(axis)
    if not -x.ndim <= axis < max(x.ndim, 1) or x.ndim == 0:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    axis %= x.ndim
    n = x.shape[axis]
    v = _converted(values, x.dtype)
    while v.ndim < x.ndim:  # NumPy's ndmin
        v = _dn.expand_dims(v, axis=0)
    if isinstance(obj, slice):
        count = len(range(*obj.indices(n)))
        scalar = False
    else:
        o = np.asarray(obj)
        if o.dtype == bool:
            count = int(np.count_nonzero(o))
        elif o.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional "
                             "or scalar")
        else:
            count = o.size
        scalar = o.ndim == 0
    if count == 1:  # NumPy's: one position takes a block of the values
        if scalar:
            v = _dn.moveaxis(v, 0, axis)
        count = v.shape[axis]
    # Where each output position reads from: `x` (0 .. n-1) or the values
    # (n ..), by NumPy's own rule applied to an index vector.
    gather = np.insert(np.arange(n, dtype=np.int64), obj, n + np.arange(count, dtype=np.int64))
    block = tuple(count if d == axis else s for d, s in enumerate(x.shape))
    both = _dn.concat([x, _dn.broadcast_to(v, block)], axis=axis)
    return _dn.take(both, _dn.asarray(gather), axis=axis)


def ufunc_at(ufunc: np.ufunc, a: Any, indices: Any, b: Any = None) -> None:
    """NumPy's `ufunc.at(a, indices, b)`: `a[i] = ufunc(a[i], b)` for each
    position `i` that `indices` selects, repeated positions once per
    occurrence, in order (`a[i] = ufunc(a[i])` for a unary ufunc)."""
    name = ufunc.__name__
    if ufunc.nout != 1 or ufunc.nin not in (1, 2):
        raise TypeError(f"numpy.{name}.at on donate tensors: only ufuncs of one or two "
                        "operands and one result are supported")
    if ufunc.nin == 2 and b is None:
        raise ValueError("second operand needed for ufunc")
    if ufunc.nin == 1 and b is not None:
        raise ValueError("second operand provided when ufunc is unary")
    if isinstance(a, np.ndarray):
        ufunc.at(a, _numpy(indices) if not isinstance(indices, tuple) else
                 tuple(_numpy(i) for i in indices), _numpy(b) if b is not None else None)
        return None
    t = _target(f"{name}.at", a)
    index = tuple(_numpy(i) for i in indices) if isinstance(indices, tuple) else _numpy(indices)
    # The flat positions `indices` selects, by NumPy's own indexing (its
    # errors too), in the order NumPy's loop visits them.
    where = np.arange(t.size, dtype=np.int64).reshape(t.shape)[index]
    flat = np.asarray(where).reshape(-1)
    if flat.size == 0:
        return None
    operand = None
    if b is not None:
        operand = _dn.reshape(_dn.broadcast_to(_as_tensor(b), np.shape(where)), (-1,))
    # The rank of each occurrence among those of its position.
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    starts = np.r_[0, np.flatnonzero(ranked[1:] != ranked[:-1]) + 1]
    rank = np.empty(flat.size, dtype=np.int64)
    rank[order] = np.arange(flat.size) - np.repeat(starts, np.diff(np.r_[starts, flat.size]))
    for k in range(int(rank.max()) + 1):
        sel = np.flatnonzero(rank == k)
        at = _positions(t.shape, flat[sel])
        current = t[at]
        if operand is None:
            r = ufunc(current)
        else:
            r = ufunc(current, _dn.take(operand, _dn.asarray(sel)))
        t[at] = _dn.astype(_as_tensor(r), t.dtype)
    return None

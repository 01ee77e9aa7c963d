"""NumPy's selecting and index-building functions on tensors: `select`,
`piecewise`, `choose`, `compress`, `extract`, `delete`, `append`, `resize`,
`trim_zeros`, `rollaxis` (a view), `ix_`, `unravel_index`,
`ravel_multi_index`, `diag_indices_from`, `tril_indices_from`,
`triu_indices_from`, `diagflat`, `isreal`, `iscomplex`, `real_if_close`,
and NumPy 2's names for donate's own functions (`cumulative_sum`,
`cumulative_prod`, `unique_*`, `unstack`, `matrix_transpose`).

Translation only: each is donate's `where`, `take`, `take_along_axis`,
`concat`, `permute_dims` or arithmetic, with NumPy's arguments, result
dtypes (NumPy's `result_type` of the operands as arrays) and errors.
Index arguments NumPy reads as Python data (`delete`'s `obj`, the
shapes) are read as NumPy reads them, never the tensors' data.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import _as_tensor, _donatable, _dtype_of, _refuse, _weak, _weak_or_dtype, _write_out

NAMES = ["select", "piecewise", "choose", "compress", "extract", "delete", "append", "resize",
         "trim_zeros", "rollaxis", "ix_", "unravel_index", "ravel_multi_index",
         "diag_indices_from", "tril_indices_from", "triu_indices_from", "diagflat",
         "isreal", "iscomplex", "real_if_close", "cumulative_sum", "cumulative_prod",
         "unique_all", "unique_counts", "unique_inverse", "unique_values", "unstack",
         "matrix_transpose"]


def _in(x: Any, dtype: Any) -> Any:
    if _weak(x):
        # Converted by NumPy: a number the dtype cannot hold is its
        # OverflowError (NumPy's own `choose` wraps it silently).
        return _dn.asarray(np.asarray(x, dtype=np.dtype(str(dtype))))
    t = _as_tensor(x)
    return t if t.dtype == dtype else _dn.astype(t, dtype)


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """NumPy's `select`: from the first condition that holds, its choice;
    `default` where none does."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    # NumPy's: the common dtype of the choices and `default` (Python
    # numbers weak, NEP 50).
    dt = np.result_type(*(_weak_or_dtype(c) for c in choicelist), _weak_or_dtype(default))
    conds = [_as_tensor(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != _dn.bool:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    result = _in(default, dt)
    for c, choice in builtins.zip(conds[::-1], list(choicelist)[::-1]):
        result = _dn.where(c, _in(choice, dt), result)
    shape = _dn.broadcast_shapes(*(c.shape for c in conds), *(_as_tensor(x).shape for x in
                                                               choicelist), result.shape)
    return result if result.shape == shape else _dn.broadcast_to(result, shape)


def piecewise(x: Any, condlist: Any, funclist: Sequence[Any], *args: Any, **kw: Any) -> Any:
    """NumPy's `piecewise`: where each condition holds, the value (or the
    function of the elements of `x` there, a tensor); with one function
    more than conditions, the last applies where none holds; 0 elsewhere.
    Later conditions win where several hold, as NumPy's."""
    t = _as_tensor(x)
    if np.isscalar(condlist) or isinstance(condlist, (_dn.Tensor, _dn.Donated)) or (
            not isinstance(condlist[0], (list, np.ndarray, _dn.Tensor, _dn.Donated))
            and t.ndim != 0):
        condlist = [condlist]
    conds = [_dn.broadcast_to(_in(c, _dn.bool), t.shape) for c in condlist]
    n, n2 = len(conds), len(funclist)
    if n == n2 - 1:  # the "otherwise" condition
        none = _dn.ones(t.shape, dtype=_dn.bool)
        for c in conds:
            none = none & ~c
        conds.append(none)
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = _dn.zeros_like(t)
    for cond, func in builtins.zip(conds, funclist):
        if not callable(func):
            y[cond] = _in(func, y.dtype)
        else:
            vals = t[cond]
            if vals.size > 0:
                y[cond] = _in(func(vals, *args, **kw), y.dtype)
    return y


def choose(a: Any, choices: Sequence[Any], out: Any = None, mode: str = "raise") -> Any:
    """NumPy's `choose`: element `i` from `choices[a[i]]`, all broadcast
    together (`mode` 'raise', 'wrap' or 'clip' for indices out of range)."""
    idx = _as_tensor(a)
    if not (_dn.isdtype(idx.dtype, "integral") or idx.dtype == _dn.bool):
        raise TypeError("Cannot cast array data from dtype('float64') to dtype('int64') "
                        "according to the rule 'safe'")
    opts = list(choices)
    if not opts:
        raise ValueError("0-length sequence.")
    n = len(opts)
    idx = _dn.astype(idx, _dn.int64, copy=False)
    if mode == "raise":
        if idx.size and bool(_dn.any((idx < 0) | (idx >= n))):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        idx = _dn.remainder(idx, n)
    elif mode == "clip":
        idx = _dn.clip(idx, 0, n - 1)
    else:
        raise ValueError(f"mode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    dt = np.result_type(*(_weak_or_dtype(o) for o in opts))
    parts = _dn.broadcast_arrays(idx, *(_in(o, dt) for o in opts))
    stacked = _dn.stack(parts[1:])
    r = _dn.take_along_axis(stacked, _dn.expand_dims(parts[0], axis=0), axis=0)[0]
    return _write_out("choose", out, r)


def compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> Any:
    """NumPy's `compress`: the slices along `axis` where `condition` (1-d)
    is true; a shorter condition keeps only its length."""
    c = _as_tensor(condition)
    if c.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    x = _as_tensor(a)
    if axis is None or x.ndim == 0:  # (NumPy reads a 0-d array as 1-d here)
        x, axis = _dn.reshape(x, (-1,)), 0 if axis is None else axis
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
    n = x.shape[axis]
    idx = _dn.nonzero(c)[0]
    if idx.size and int(idx[-1]) >= n:
        raise IndexError(f"index {int(idx[-1])} is out of bounds for axis {axis} with size {n}")
    return _write_out("compress", out, _dn.take(x, idx, axis=axis))


def extract(condition: Any, arr: Any) -> Any:
    """NumPy's `extract`: the elements of flattened `arr` where flattened
    `condition` is non-zero."""
    c = _dn.reshape(_as_tensor(condition), (-1,))
    return _dn.take(_dn.reshape(_as_tensor(arr), (-1,)), _dn.nonzero(c)[0])


def _kept(n: int, obj: Any) -> np.ndarray:
    """NumPy's `delete`'s index: where a slice, index or mask `obj` leaves
    the positions of an axis of length `n`."""
    keep = np.ones(n, dtype=bool)
    if isinstance(obj, slice):
        keep[obj] = False
        return keep
    o = np.asarray(obj)
    if o.dtype == bool:
        if o.shape != (n,):
            raise ValueError(f"boolean array argument obj to delete must be one dimensional "
                             f"and match the axis length of {n}")
        return ~o
    if o.size and o.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    o = o.astype(np.intp).reshape(-1)
    bad = (o < -n) | (o >= n)
    if bad.any():
        raise IndexError(f"index {int(o[bad][0])} is out of bounds for axis 0 with size {n}")
    keep[o] = False
    return keep


def delete(arr: Any, obj: Any, axis: Any = None) -> Any:
    """NumPy's `delete`: a new tensor without the slices `obj` along `axis`
    (flattened when `axis` is None)."""
    x = _as_tensor(arr)
    if isinstance(obj, (_dn.Tensor, _dn.Donated)):
        obj = np.asarray(_as_tensor(obj))
    if axis is None:
        x, axis = _dn.reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension 0")
    axis = operator.index(axis)
    keep = _kept(x.shape[axis], obj)
    return _dn.take(x, _dn.asarray(np.flatnonzero(keep).astype(np.int64)), axis=axis)


def append(arr: Any, values: Any, axis: Any = None) -> Any:
    """NumPy's `append`: `values` after `arr` (both flattened when `axis`
    is None), in their common dtype."""
    x, v = _as_tensor(arr), _as_tensor(values)
    dt = np.result_type(_dtype_of(arr), _dtype_of(values))
    x, v = _in(x, dt), _in(v, dt)
    if axis is None:
        return _dn.concat([_dn.reshape(x, (-1,)), _dn.reshape(v, (-1,))])
    return _dn.concat([x, v], axis=axis)


def resize(a: Any, new_shape: Any) -> Any:
    """NumPy's `resize`: the flattened elements repeated (or cut) to fill
    `new_shape`."""
    x = _dn.reshape(_as_tensor(a), (-1,))
    shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else \
        tuple(operator.index(d) for d in new_shape)
    if builtins.any(d < 0 for d in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    size = int(np.prod(shape))
    if x.shape[0] == 0 or size == 0:
        return _dn.zeros(shape, dtype=x.dtype)
    idx = _dn.remainder(_dn.arange(size, dtype=_dn.int64), x.shape[0])
    return _dn.reshape(_dn.take(x, idx), shape)


def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> Any:
    """NumPy's `trim_zeros` of a 1-d tensor: a view without its leading
    (`'f'`) and trailing (`'b'`) zeros."""
    x = _as_tensor(filt)
    if x.ndim != 1:
        raise _refuse("trim_zeros", "an input that is not 1-d")
    trim = trim.lower()
    if not set(trim) <= {"f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    nz = _dn.nonzero(x != 0)[0]
    if nz.size == 0:
        return x[0:0]
    start = int(nz[0]) if "f" in trim else 0
    stop = int(nz[-1]) + 1 if "b" in trim else x.shape[0]
    return x[start:stop]


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """NumPy's `rollaxis` (a view): `axis` moved to before `start`."""
    x = _donatable(a, None)
    n = x.ndim
    if not -n <= axis < n:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension {n}")
    axis %= n
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise _dn.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was "
                            "passed in")
    if axis < start:
        start -= 1
    order = [i for i in range(n) if i != axis]
    order.insert(start, axis)
    return _dn.permute_dims(x, tuple(order))


def ix_(*args: Any) -> tuple[Any, ...]:
    """NumPy's `ix_`: each 1-d sequence (a mask as its indices) shaped to
    index one axis of an open mesh."""
    out = []
    nd = len(args)
    for k, a in enumerate(args):
        t = _as_tensor(a)
        if t.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if t.dtype == _dn.bool:
            t = _dn.nonzero(t)[0]
        elif t.size == 0:
            t = _dn.astype(t, _dn.int64)
        out.append(_dn.reshape(t, (1,) * k + (t.shape[0],) + (1,) * (nd - k - 1)))
    return tuple(out)


def _dims(shape: Any) -> tuple[int, ...]:
    return (operator.index(shape),) if np.ndim(shape) == 0 else \
        tuple(operator.index(d) for d in shape)


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[Any, ...]:
    """NumPy's `unravel_index`: flat indices as a tuple of coordinates."""
    dims = _dims(shape)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    idx = _as_tensor(indices)
    if not (_dn.isdtype(idx.dtype, "integral")):
        raise TypeError("only int indices permitted")
    idx = _dn.astype(idx, _dn.int64, copy=False)
    size = int(np.prod(dims))
    if idx.size and bool(_dn.any((idx < 0) | (idx >= size))):
        raise ValueError(f"index {int(_dn.max(idx)) if bool(_dn.any(idx >= size)) else int(_dn.min(idx))} "
                         f"is out of bounds for array with size {size}")
    coords = []
    for d in (dims[::-1] if order == "C" else dims):
        coords.append(_dn.remainder(idx, d) if d else idx)
        idx = _dn.floor_divide(idx, d) if d else idx
    return tuple(coords[::-1] if order == "C" else coords)


def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise", order: str = "C") -> Any:
    """NumPy's `ravel_multi_index`: coordinates as flat indices (`mode`
    'raise', 'wrap' or 'clip', one for all or one per axis)."""
    shape = _dims(dims)
    coords = [_as_tensor(c) for c in multi_index]
    if len(coords) != len(shape):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(shape)}")
    modes = [mode] * len(shape) if isinstance(mode, str) else list(mode)
    strides = np.cumprod((1,) + shape[::-1][:-1])[::-1] if order == "C" else \
        np.cumprod((1,) + shape[:-1])
    total = None
    for c, d, m, s in builtins.zip(coords, shape, modes, strides.tolist()):
        if not _dn.isdtype(c.dtype, "integral"):
            raise TypeError("only int indices permitted")
        c = _dn.astype(c, _dn.int64, copy=False)
        if m == "raise":
            if c.size and bool(_dn.any((c < 0) | (c >= d))):
                raise ValueError("invalid entry in coordinates array")
        elif m == "wrap":
            c = _dn.remainder(c, d)
        elif m == "clip":
            c = _dn.clip(c, 0, d - 1)
        else:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {m!r})")
        term = c * s
        total = term if total is None else total + term
    return total


def _indices_from(name: str, arr: Any, *args: Any) -> tuple[Any, ...]:
    shape = tuple(_as_tensor(arr).shape)
    f = getattr(np, name)
    return tuple(_dn.asarray(i.astype(np.int64)) for i in f(np.broadcast_to(np.empty(()), shape),
                                                              *args))


def diag_indices_from(arr: Any) -> tuple[Any, ...]:
    return _indices_from("diag_indices_from", arr)


def tril_indices_from(arr: Any, k: int = 0) -> tuple[Any, ...]:
    return _indices_from("tril_indices_from", arr, k)


def triu_indices_from(arr: Any, k: int = 0) -> tuple[Any, ...]:
    return _indices_from("triu_indices_from", arr, k)


def diagflat(v: Any, k: int = 0) -> Any:
    """NumPy's `diagflat`: the flattened input on diagonal `k`."""
    from ._numpy_functions import diag
    return diag(_dn.reshape(_as_tensor(v), (-1,)), k)


def isreal(x: Any) -> Any:
    t = _as_tensor(x)
    if t.dtype.kind == "c":
        return _dn.imag(t) == 0
    return _dn.full(t.shape, True)


def iscomplex(x: Any) -> Any:
    t = _as_tensor(x)
    if t.dtype.kind == "c":
        return _dn.imag(t) != 0
    return _dn.full(t.shape, False)


def real_if_close(a: Any, tol: float = 100) -> Any:
    """NumPy's `real_if_close`: the real part when every imaginary part is
    within `tol` machine epsilons of 0 (`tol` > 1), else the input."""
    t = _as_tensor(a)
    if t.dtype.kind != "c":
        return t
    if tol > 1:
        tol = np.finfo(np.dtype(str(t.dtype))).eps * tol
    if bool(_dn.all(_dn.abs(_dn.imag(t)) < tol)):
        return _dn.real(t)
    return t


def _cumulative(name: str) -> Any:
    f = getattr(_dn, name)

    def running(x: Any, /, *, axis: Any = None, dtype: Any = None, out: Any = None,
                include_initial: bool = False) -> Any:
        r = f(_donatable(x, out), axis=axis, dtype=None if dtype is None else np.dtype(dtype),
              include_initial=include_initial)
        return _write_out(name, out, r)

    running.__name__ = running.__qualname__ = name
    return running


cumulative_sum = _cumulative("cumulative_sum")
cumulative_prod = _cumulative("cumulative_prod")


def unique_all(x: Any) -> Any:
    return _dn.unique_all(_as_tensor(x))


def unique_counts(x: Any) -> Any:
    return _dn.unique_counts(_as_tensor(x))


def unique_inverse(x: Any) -> Any:
    return _dn.unique_inverse(_as_tensor(x))


def unique_values(x: Any) -> Any:
    return _dn.unique_values(_as_tensor(x))


def unstack(x: Any, /, *, axis: int = 0) -> Any:
    return _dn.unstack(_as_tensor(x), axis=axis)


def matrix_transpose(x: Any, /) -> Any:
    return _dn.matrix_transpose(_donatable(x, None))


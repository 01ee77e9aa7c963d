"""NumPy's functions with NumPy's signatures, each translated once to the
donate function that computes the same thing (see ``_numpy.py`` for the
protocols that call them, and the rules; the reductions and statistics
are in ``_numpy_reductions.py``). ``FUNCTIONS`` maps NumPy's function
objects to them (NEP 18), ``implementation(name)`` finds one by name (the
methods).
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

import donate as _dn  # the namespace; complete when this module loads (last in __init__)
from . import linalg as _linalg
from ._numpy_fft import functions as _fft_functions
from ._numpy_linalg import _last_two, _lin, norm, svd

from . import _numpy_nan as _nan
from . import _numpy_reductions as _red
from ._numpy_operands import (
    Tensor,
    _NoValue,
    _as_tensor,
    _axis_or_flat,
    _bool_products,
    _cast,
    _donatable,
    _dtype,
    _dtype_of,
    _flat,
    _is,
    _ndim_of,
    _one_int_axis,
    _operand,
    _raveled_0d,
    _refuse,
    _tensor,
    _weak,
    _weak_or_dtype,
    _write_out,
)
# --------------------------------------------------------------- functions ---
# NumPy's signatures, each translated to the donate function once; the
# same function serves `np.<name>(t, ...)` and, with `self` first,
# `t.<name>(...)`.


def _number(x: Any) -> bool:
    """A Python number (weak in NumPy's promotion, NEP 50), not a NumPy scalar."""
    return isinstance(x, (builtins.bool, int, float)) and not isinstance(x, np.generic)


def _in_dtype(x: Any, dtype: np.dtype[Any]) -> Any:
    """`x` as a tensor of `dtype`, only read (cast when it has another)."""
    return _as_tensor(x) if _dtype_of(x) == dtype else _cast(x, dtype)


def clip(a: Any, a_min: Any = _NoValue, a_max: Any = _NoValue, out: Any = None,
         *, min: Any = _NoValue, max: Any = _NoValue, casting: Any = "same_kind",
         **kw: Any) -> Any:
    """NumPy's `clip`, a ufunc: computed in the dtype NumPy's promotion
    gives `a` and the bounds (`np.result_type`; Python numbers are weak,
    NEP 50), `casting` checked against `out=` as a ufunc's."""
    if kw:
        raise _refuse("clip", f"the keyword {next(iter(kw))}=")
    bounds = [a_min if min is _NoValue else min, a_max if max is _NoValue else max]
    bounds = [None if b is _NoValue else b for b in bounds]
    dt = np.result_type(_dtype_of(a), *(b if _number(b) else _dtype_of(b)
                                        for b in bounds if b is not None))
    # (A Python int bound past the dtype's range on its own side bounds
    # nothing, `np.clip(uint8_t, -1, 3)`: `donate.clip`'s rule.)
    x = _donatable(a, out) if _dtype_of(a) == dt else _cast(a, dt)
    lo, hi = (b if b is None or _number(b) else _in_dtype(b, dt) for b in bounds)
    return _write_out("clip", out, _dn.clip(x, lo, hi), casting, broadcast=True)


def _power_of_ten(n: int) -> float:
    """10**n as NumPy's `round` computes it (`power_of_ten` in
    `calculation.c`: a table to 1e8, then repeated multiplication)."""
    if n < 9:
        return float(10**n)
    r = 1e9
    for _ in range(n - 9):
        r *= 10.0
        if r == float("inf"):
            break  # from 1e309 on: NumPy's loop stays at inf
    return r


def _round_out(out: Any, r: Any) -> Any:
    """`r` into `round`'s `out=` as NumPy's `PyArray_Round` writes it: an
    array of as many elements as the result (else `ValueError`), which its
    ufuncs (`rint`, `multiply`) then broadcast into, same_kind."""
    o = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if o is not None and int(np.prod(o.shape)) != int(np.prod(r.shape)):
        raise ValueError(f"numpy.round: invalid output shape {tuple(o.shape)} for a result "
                         f"of shape {tuple(r.shape)}")
    return _write_out("round", out, r, "same_kind", broadcast=True)


def round(a: Any, decimals: int = 0, out: Any = None) -> Any:
    """NumPy's `round` (`PyArray_Round`): `rint` for 0 decimals; integers
    unchanged for decimals >= 0; else `rint(x * 10**d) / 10**d` (d > 0) or
    `rint(x / 10**-d) * 10**-d` (d < 0) in `a`'s float dtype, integers
    through float64 and cast back (wrapping, as NumPy's cast)."""
    d = operator.index(decimals)
    if not -(2**31) <= d < 2**31:  # NumPy's C int
        raise OverflowError(f"signed integer is {'greater' if d > 0 else 'less'} than "
                            f"{'maximum' if d > 0 else 'minimum'}")
    dt = _dtype_of(a)
    if dt == np.bool_:
        if d != 0:
            raise TypeError(
                "numpy.round: cannot cast ufunc 'multiply' output from dtype('float64') to "
                "dtype('bool') with casting rule 'same_kind'"
            )
        # NumPy's `rint` of bools is float16; float32 here, as every float
        # function of bools (donate makes float16 only of float16).
        return _round_out(out, _dn.round(_cast(a, np.float32)))
    integer = np.issubdtype(dt, np.integer)
    if d == 0 or (integer and d > 0):
        return _round_out(out, _dn.round(_donatable(a, out)))
    x = _cast(a, np.float64) if integer else _as_tensor(a)
    # The factor as NumPy's weak Python float meets `x`: in `x`'s dtype.
    f = np.asarray(_power_of_ten(builtins.abs(d)), dtype=x.dtype)[()]
    if d > 0:
        r = _dn.divide(_dn.round(_dn.multiply(x, f)), f)
    else:
        r = _dn.multiply(_dn.round(_dn.divide(x, f)), f)
    if integer:
        # float64 -> int64 is exact for the values in range; then to the
        # narrower integer as NumPy's cast wraps.
        r = _dn.astype(r, dt if dt in (np.int64, np.uint64) else np.dtype(np.int64))
        r = _dn.astype(r, dt)
    return _round_out(out, r)


def _joined(arrays: Sequence[Any], dtype: Any, casting: Any) -> list[Any]:
    """The inputs of a join in `dtype` (when given), each cast checked
    against `casting` first, as NumPy's `concatenate(dtype=)`."""
    if dtype is not None:
        to = np.dtype(dtype)
        for x in arrays:
            if not np.can_cast(_dtype_of(x), to, casting):
                raise TypeError(f"Cannot cast array data from {np.dtype(_dtype_of(x))!r} to "
                                f"{to!r} according to the rule {casting!r}")
    elif builtins.any(_weak(x) for x in arrays):
        # A Python number among the inputs is weak, as in NumPy's
        # `result_type` (`concatenate([float32_t, 2], axis=None)` stays
        # float32); converted as NumPy converts it (out of range: an
        # `OverflowError`, where NumPy's cast would wrap).
        to = np.result_type(*(_weak_or_dtype(x) for x in arrays))
        return [_dn.asarray(np.asarray(x, dtype=to)) if _weak(x) else _cast(x, None)
                for x in arrays]
    return [_cast(x, dtype) for x in arrays]


def concatenate(arrays: Sequence[Any], axis: Any = 0, out: Any = None, *,
                dtype: Any = None, casting: str = "same_kind") -> Any:
    xs = _joined(arrays, dtype, casting)
    if axis is None:
        xs, axis = [_flat(x) for x in xs], 0
    return _write_out("concatenate", out, _dn.concat([_as_tensor(x) for x in xs], axis=axis),
                      casting)


def stack(arrays: Sequence[Any], axis: int = 0, out: Any = None, *,
          dtype: Any = None, casting: str = "same_kind") -> Any:
    xs = [_as_tensor(x) for x in _joined(arrays, dtype, casting)]
    return _write_out("stack", out, _dn.stack(xs, axis=axis), casting)


def transpose(a: Any, axes: Any = None) -> Any:
    x = _donatable(a, None)
    if axes is None:
        axes = tuple(reversed(range(x.ndim)))
    return _dn.permute_dims(x, tuple(axes))


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    x = _donatable(a, None)
    axes = list(range(x.ndim))
    axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
    return _dn.permute_dims(x, tuple(axes))


def reshape(a: Any, shape: Any = None, order: str = "C", *, newshape: Any = None,
            copy: Any = None) -> Any:
    if not _is(order, "C"):
        raise _refuse("reshape", f"order={order!r}")
    shape = newshape if shape is None else shape
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _dn.reshape(_donatable(a, None), shape, copy=copy)


def ravel(a: Any, order: str = "C") -> Any:
    if not _is(order, "C"):
        raise _refuse("ravel", f"order={order!r}")
    return _dn.reshape(_donatable(a, None), (-1,))


def squeeze(a: Any, axis: Any = None) -> Any:
    x = _donatable(a, None)
    if axis is None:
        axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
    elif x.ndim == 0 and _one_int_axis(axis) and int(axis) in (0, -1):
        axis = ()  # NumPy's squeeze of a 0-d array along 0 or -1: nothing to remove
    return _dn.squeeze(x, axis)


def expand_dims(a: Any, axis: Any) -> Any:
    return _dn.expand_dims(_donatable(a, None), int(axis) if isinstance(axis, (int, np.integer)) else tuple(axis))


def moveaxis(a: Any, source: Any, destination: Any) -> Any:
    return _dn.moveaxis(_donatable(a, None), source, destination)


def where(condition: Any, x: Any = _NoValue, y: Any = _NoValue) -> Any:
    if x is _NoValue and y is _NoValue:
        return nonzero(condition)
    if x is _NoValue or y is _NoValue:
        raise ValueError("either both or neither of x and y should be given")
    # One donate call: donated operands are passed on to it.
    x, y = _operand(x), _operand(y)
    if not isinstance(x, (Tensor, _dn.Donated)) and not isinstance(y, (Tensor, _dn.Donated)):
        # Two Python numbers: NumPy's dtype for the first (int64, float64,
        # bool), the second weak, as `np.where` promotes them.
        x = _dn.asarray(np.asarray(x))
    x, y = _where_int(x, y), _where_int(y, x)
    return _dn.where(_donatable(condition, None), x, y)


def _where_int(v: Any, other: Any) -> Any:
    """A Python int beside an integer operand of `np.where`, converted as
    the NumPy that runs converts it: NumPy 2.4 casts it to the result
    dtype unsafely (`np.where(m, uint8_t, -1)` holds 255), later versions
    raise `OverflowError`, and an int too large for any NumPy integer is an
    `OverflowError` in both. NumPy itself is asked, on a 0-d probe."""
    if not isinstance(other, (Tensor, _dn.Donated)) or not isinstance(v, int) or isinstance(v, bool):
        return v
    dt = np.result_type(np.dtype(other.dtype), v)
    if dt != other.dtype or not np.issubdtype(dt, np.integer):
        return v
    with np.errstate(all="ignore"):
        return _dn.asarray(np.where(np.True_, v, np.zeros((), dt)))


def nonzero(a: Any) -> Any:
    return _dn.nonzero(_as_tensor(a))


def _sorting(name: str) -> Callable[..., Any]:
    f = getattr(_dn, name)

    def sorting(a: Any, axis: Any = -1, kind: Any = None, order: Any = None,
                *, stable: Any = None) -> Any:
        if order is not None:
            raise _refuse(name, "order=")
        if kind is not None:
            # NumPy's checks (every kind is served by the stable sort).
            if stable is not None:
                raise ValueError("`kind` and keyword parameters can't be provided at the same "
                                 "time. Use only one of them.")
            if not (isinstance(kind, str) and kind and kind[0].lower() in "qhms"):
                raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' "
                                 f"(got {kind!r})")
        if name == "argsort" and _raveled_0d(a, axis):
            x = _flat(a)  # NumPy's argsort ravels a 0-d array (its sort does not)
        else:
            x, axis = _axis_or_flat(a, axis) if axis is None else (_donatable(a, None), axis)
        return f(x, axis=axis, stable=True)

    sorting.__name__ = sorting.__qualname__ = name
    return sorting


sort = _sorting("sort")
argsort = _sorting("argsort")


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    return _dn.searchsorted(_as_tensor(a), _as_tensor(v), side=side,
                              sorter=None if sorter is None else _as_tensor(sorter))


def dot(a: Any, b: Any, out: Any = None) -> Any:
    x, y = _donatable(a, out), _donatable(b, out)
    if x.ndim == 0 or y.ndim == 0:
        r = _dn.multiply(x, y)
    elif y.ndim <= 2:
        r = _dn.matmul(x, y)
    else:  # NumPy's dot: the last axis of `a` against `b`'s second-to-last
        r = _bool_products(_dn.tensordot)(x, y, axes=((x.ndim - 1,), (y.ndim - 2,)))
    if out is not None and np.dtype(out.dtype) != np.dtype(r.dtype):
        # NumPy's dot writes only into its result's own dtype.
        raise ValueError(f"numpy.dot: the out= array is {out.dtype}, the result {r.dtype} "
                         "(out= must have the result's dtype and shape)")
    return _write_out("dot", out, r)


def vdot(a: Any, b: Any) -> Any:
    x, y = _as_tensor(a), _as_tensor(b)
    if x.size != y.size:  # (NumPy's: the flattened vectors, never broadcast)
        raise ValueError(f"vdot: the operands have {x.size} and {y.size} elements")
    # In the operands' common dtype, as NumPy's (the sum would promote).
    s = _dn.sum(_dn.multiply(_flat(_dn.conj(x) if x.dtype.kind == "c" else x), _flat(y)))
    want = _dn.result_type(x, y)
    return s if s.dtype == want else _dn.astype(s, want)


def inner(a: Any, b: Any) -> Any:
    x, y = _donatable(a, None), _donatable(b, None)
    if x.ndim == 0 or y.ndim == 0:
        return _dn.multiply(x, y)
    return _bool_products(_dn.tensordot)(x, y, axes=((x.ndim - 1,), (y.ndim - 1,)))


def _py_ints(v: Any) -> Any:
    """NumPy integers (and arrays of them) as Python ints, in the same
    nesting: `tensordot`'s `axes` as NumPy reads it."""
    return operator.index(v) if np.ndim(v) == 0 else [_py_ints(i) for i in v]


def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
    axes = _py_ints(axes)
    if isinstance(axes, list):
        axes = tuple(axes)
    return _bool_products(_dn.tensordot)(_donatable(a, None), _donatable(b, None), axes=axes)


def outer(a: Any, b: Any, out: Any = None) -> Any:
    return _write_out("outer", out, _bool_products(_linalg.outer)(_flat(a), _flat(b)))


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: Any = None, out: Any = None) -> Any:
    x = _last_two(_as_tensor(a), axis1, axis2)
    return _write_out("trace", out, _linalg.trace(x, offset=offset, dtype=_dtype(dtype)))


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    return _linalg.diagonal(_last_two(_as_tensor(a), axis1, axis2), offset=offset)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = _NoValue,
         append: Any = _NoValue) -> Any:
    if prepend is _NoValue and append is _NoValue:
        return _dn.diff(_donatable(a, None), axis=axis, n=n)
    # NumPy's `diff`: `prepend`/`append` as arrays (a Python number is
    # int64/float64, not weak), a 0-d one broadcast to one slice along
    # `axis`, concatenated with `a` in their common dtype.
    ends = [None if e is _NoValue else
            (e if isinstance(e, (Tensor, _dn.Donated)) else np.asarray(e))
            for e in (prepend, append)]
    dt = np.result_type(_dtype_of(a), *(_dtype_of(e) for e in ends if e is not None))
    x = _donatable(a, None) if _dtype_of(a) == dt else _cast(a, dt)
    shape = list(x.shape)
    if shape:
        shape[axis] = 1
    ends = [None if e is None else _cast(e, dt) for e in ends]
    ends = [e if e is None or e.ndim else _dn.broadcast_to(e, tuple(shape)) for e in ends]
    return _dn.diff(x, axis=axis, n=n, prepend=ends[0], append=ends[1])


def flip(m: Any, axis: Any = None) -> Any:
    if axis is not None:  # NumPy's errors: an axis out of range, or repeated
        normalize_axis_tuple(axis, _ndim_of(m))
    return _dn.flip(_donatable(m, None), axis=axis)


def roll(a: Any, shift: Any, axis: Any = None) -> Any:
    return _dn.roll(_donatable(a, None), shift, axis=axis)


def tile(A: Any, reps: Any) -> Any:
    return _dn.tile(_donatable(A, None), (reps,) if isinstance(reps, int) else tuple(reps))


def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
    x = _flat(a) if _raveled_0d(a, axis) else _donatable(a, None)
    if np.ndim(repeats) > 1:  # NumPy's: counts are a scalar or a vector
        raise ValueError("object too deep for desired array")
    return _dn.repeat(x, _tensor(repeats), axis=axis)


def take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Any:
    # `take` has NumPy's index shapes and `axis=None`; a 0-d `a` with
    # one integer axis is read as 1-D, as NumPy's.
    x = _flat(a) if _raveled_0d(a, axis) else _as_tensor(a)
    i = _as_tensor(indices)
    if not _is(mode, "raise"):
        i = _bounded_indices(x, i, axis, mode)
    return _write_out("take", out, _dn.take(x, i, axis=axis))


def _bounded_indices(x: Any, i: Any, axis: Any, mode: Any) -> Any:
    """`take`'s indices brought into the axis as NumPy's `mode=` does:
    `clip` to its ends (a negative index is the first), `wrap` modulo its
    length."""
    if not _is(mode, "clip", "wrap"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if not (isinstance(axis, (int, np.integer)) and -x.ndim <= axis < x.ndim or axis is None):
        return i  # `take` names the bad axis
    n = int(x.size) if axis is None else int(x.shape[axis])
    if not _dn.isdtype(i.dtype, "integral"):
        return i  # `take` refuses non-integer indices
    if n == 0:
        if i.size:
            raise IndexError("cannot do a non-empty take from an empty axes.")
        return i
    i = _dn.astype(i, _dn.int64, copy=False)
    return _dn.clip(i, 0, n - 1) if _is(mode, "clip") else i % n


def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> Any:
    x, axis = _axis_or_flat(arr, axis)
    return _dn.take_along_axis(x, _as_tensor(indices), axis=axis)


def broadcast_to(array: Any, shape: Any, subok: bool = False) -> Any:
    return _dn.broadcast_to(_donatable(array, None), (shape,) if isinstance(shape, int) else tuple(shape))


def broadcast_arrays(*args: Any, subok: bool = False) -> Any:
    return tuple(_dn.broadcast_arrays(*(_donatable(x, None) for x in args)))


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> Any:
    if sparse:
        raise _refuse("meshgrid", "sparse=True")
    # NumPy's: each input flattened.
    return tuple(_dn.meshgrid(*(_dn.reshape(_as_tensor(x), (-1,)) for x in xi), indexing=indexing))


def copy(a: Any, order: str = "K", subok: bool = False) -> Any:
    return _as_tensor(a).copy()


def astype(x: Any, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    return _dn.astype(_donatable(x, None), np.dtype(dtype), copy=copy)


def _at_least(n: int) -> Callable[..., Any]:
    def at_least(*arys: Any) -> Any:
        out = []
        for a in arys:
            x = _as_tensor(a)
            if x.ndim < n:
                shape = {0: (1,) * n, 1: (1, *x.shape) if n == 2 else (1, *x.shape, 1),
                         2: (*x.shape, 1)}[x.ndim]
                x = _dn.reshape(x, shape[:n] if x.ndim == 0 else shape)
            out.append(x)
        return out[0] if len(out) == 1 else tuple(out)

    at_least.__name__ = at_least.__qualname__ = f"atleast_{n}d"
    return at_least


atleast_1d = _at_least(1)
atleast_2d = _at_least(2)
atleast_3d = _at_least(3)


def may_share_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    # A query answered from the buffers (zero-copy views): no array result.
    return bool(np.may_share_memory(np.asarray(a), np.asarray(b)))


def shares_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    return bool(np.shares_memory(np.asarray(a), np.asarray(b)))


def einsum(subscripts: Any, *operands: Any, out: Any = None, dtype: Any = None,
           order: str = "K", casting: str = "safe", optimize: Any = False) -> Any:
    if not isinstance(subscripts, str):
        raise _refuse("einsum", "the interleaved (operand, axes) form")
    # NumPy's: computed in `dtype`, else in the common dtype of the
    # operands and `out` (float16 operands into a float64 `out` are
    # multiplied in float64), each operand cast to it under `casting`.
    dts = [_dtype_of(x) for x in operands]
    compute = np.dtype(dtype) if dtype is not None else np.result_type(
        *dts, *([] if out is None else [_dtype_of(out)]))
    for i, d in enumerate(dts):
        if not np.can_cast(d, compute, casting=casting):
            raise TypeError(f"einsum: operand {i} dtype could not be cast from {d} to "
                            f"{compute} according to the rule {casting!r}")
    r = _dn.einsum(subscripts, *(_as_tensor(_cast(x, None if d == compute else compute))
                                 for x, d in zip(operands, dts)))
    return _write_out("einsum", out, r, casting)


def iscomplexobj(x: Any) -> bool:
    return bool(_dn.isdtype(_as_tensor(x).dtype, "complex floating"))


def isrealobj(x: Any) -> bool:
    return not iscomplexobj(x)


def can_cast(from_: Any, to: Any, casting: Any = "safe") -> bool:
    # A query on dtypes (a tensor stands for its dtype), NumPy's own rule.
    src = from_.dtype if isinstance(from_, (Tensor, _dn.Donated)) else from_
    return bool(np.can_cast(src, to, casting=casting))


def nan_to_num(x: Any, copy: bool = True, nan: float = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
    t = _as_tensor(x)
    if not _dn.isdtype(t.dtype, "real floating"):
        return t.copy() if copy else t
    info = _dn.finfo(t.dtype)
    r = _dn.where(_dn.isnan(t), nan, t)
    r = _dn.where(isposinf(r), info.max if posinf is None else posinf, r)
    r = _dn.where(isneginf(r), info.min if neginf is None else neginf, r)
    if not copy and isinstance(x, Tensor):
        x[...] = r
        return x
    return r


def isposinf(x: Any, out: Any = None) -> Any:
    t = _as_tensor(x)
    return _write_out("isposinf", out, _dn.logical_and(_dn.isinf(t), _dn.greater(t, 0)),
                      broadcast=True)


def isneginf(x: Any, out: Any = None) -> Any:
    t = _as_tensor(x)
    return _write_out("isneginf", out, _dn.logical_and(_dn.isinf(t), _dn.less(t, 0)),
                      broadcast=True)


def hstack(tup: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Any:
    xs = [_as_tensor(x) for x in _joined(tup, dtype, casting)]
    xs = [_dn.reshape(x, (1,)) if x.ndim == 0 else x for x in xs]
    return _dn.concat(xs, axis=0 if xs and xs[0].ndim == 1 else 1)


def vstack(tup: Sequence[Any], *, dtype: Any = None, casting: str = "same_kind") -> Any:
    return _dn.concat([atleast_2d(x) for x in _joined(tup, dtype, casting)], axis=0)


def column_stack(tup: Sequence[Any]) -> Any:
    xs = [_as_tensor(x) for x in tup]
    xs = [_dn.reshape(x, (x.shape[0], 1)) if x.ndim == 1 else atleast_2d(x) for x in xs]
    return _dn.concat(xs, axis=1)


def real(val: Any) -> Any:
    return _dn.real(_donatable(val, None))


def imag(val: Any) -> Any:
    return _dn.imag(_donatable(val, None))


def angle(z: Any, deg: bool = False) -> Any:
    """NumPy's `angle`: `atan2(imag, real)` (0 or pi of a real number), in
    degrees with `deg`."""
    t = _as_tensor(z)
    if t.dtype.kind == "c":
        a = _dn.atan2(_dn.imag(t), _dn.real(t))
    else:
        # NumPy's `arctan2(0, z)`, a weak 0: the float loop of z's own dtype
        # (float32 of small integers, donate's rule for float16); of bools,
        # int64's (a weak int beside bool is int64).
        t = _dn.astype(t, _dn.int64) if t.dtype == _dn.bool else t
        a = _dn.atan2(_dn.zeros_like(t), t)
    return _dn.multiply(a, 180 / np.pi) if deg else a


def _triangle(name: str, m: Any, k: int) -> Any:
    """NumPy's `tril`/`triu`: a vector broadcast to the square matrix of
    its rows first (`np.tril([1, 2])` is `[[1, 0], [1, 2]]`); a 0-d array
    has no diagonal (NumPy's `TypeError`, from `tri()`)."""
    ndim = _ndim_of(m)
    if ndim == 0:
        raise TypeError(f"numpy.{name}: a 0-d tensor has no diagonal (give at least 1 dimension)")
    f = getattr(_dn, name)
    if ndim == 1:
        x = _as_tensor(m)
        return f(_dn.broadcast_to(x, (x.shape[0], x.shape[0])), k=k)
    return f(_donatable(m, None), k=k)


def triu(m: Any, k: int = 0) -> Any:
    return _triangle("triu", m, k)


def tril(m: Any, k: int = 0) -> Any:
    return _triangle("tril", m, k)


def flatnonzero(a: Any) -> Any:
    return _dn.nonzero(_flat(a))[0]


def diag(v: Any, k: int = 0) -> Any:
    k = operator.index(k)  # (a Python int: `-np.uint8(1)` would wrap)
    t = _as_tensor(v)
    if t.ndim == 2:
        return _linalg.diagonal(t, offset=k)
    if t.ndim != 1:
        raise ValueError("diag: input must be 1-d or 2-d")
    n = t.shape[0] + builtins.abs(k)
    out = _dn.zeros((n, n), dtype=t.dtype)
    rows = np.arange(t.shape[0]) + builtins.max(-k, 0)
    out[rows, rows + k] = t
    return out


def argwhere(a: Any) -> Any:
    t = _as_tensor(a)
    if t.ndim == 0:
        return _dn.zeros((int(bool(t)), 0), dtype=_dn.int64)
    return _dn.stack(list(_dn.nonzero(t)), axis=1)


def result_type(*arrays_and_dtypes: Any) -> Any:
    # A query on dtypes: a `Donated` wrapper stands for its dtype, unread.
    return _dn.result_type(*(x.dtype if isinstance(x, _dn.Donated) else _operand(x)
                             for x in arrays_and_dtypes))


def shape(a: Any) -> tuple[int, ...]:
    return tuple(_as_tensor(a).shape)


def ndim(a: Any) -> int:
    return int(_as_tensor(a).ndim)


def size(a: Any, axis: Any = None) -> int:
    x = _as_tensor(a)
    return int(x.size if axis is None else x.shape[axis])


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, *, equal_nan: bool = True,
           sorted: bool = True) -> Any:
    if return_index or axis is not None:
        raise _refuse("unique", "return_index= or axis=")
    a = _as_tensor(ar)
    x = _flat(a)
    merge = _merge_nans if equal_nan else lambda v, i, c: (v, i, c)
    r: Any
    if return_inverse and return_counts:
        r = _dn.unique_all(x)
        v, i, c = merge(r.values, r.inverse_indices, r.counts)
        return v, _dn.reshape(i, a.shape), c
    if return_inverse:
        r = _dn.unique_inverse(x)
        v, i, _ = merge(r.values, r.inverse_indices, None)
        return v, _dn.reshape(i, a.shape)
    if return_counts:
        r = _dn.unique_counts(x)
        v, _, c = merge(r.values, None, r.counts)
        return v, c
    return merge(_dn.unique_values(x), None, None)[0]


def _merge_nans(values: Any, inverse: Any, counts: Any) -> tuple[Any, Any, Any]:
    """NumPy 2's `unique(equal_nan=True)`: the NaNs, which the standard's
    unique functions keep apart (each its own value, sorted last), as one
    value; its count is theirs, and every index of a NaN points to it."""
    # (A complex value is NaN where either part is; NumPy sorts them
    # last and keeps the first.)
    if not _dn.isdtype(values.dtype, ("real floating", "complex floating")):
        return values, inverse, counts
    nans = int(_dn.sum(_dn.isnan(values)))
    if nans <= 1:
        return values, inverse, counts
    keep = values.shape[0] - nans + 1
    if counts is not None:
        counts = _dn.concat([counts[: keep - 1], _dn.full((1,), nans, dtype=counts.dtype)])
    if inverse is not None:
        inverse = _dn.minimum(inverse, keep - 1)
    return values[:keep], inverse, counts




def implementation(name: str) -> Callable[..., Any]:
    """The NumPy-signature function called `name` (here, a reduction or a
    NaN-ignoring one)."""
    f = globals().get(name)
    return f if callable(f) else getattr(_red, name, None) or getattr(_nan, name)


def _functions() -> dict[Any, Callable[..., Any]]:
    from . import _numpy_arrangement as _arr
    from . import _numpy_compare as _cmp
    from . import _numpy_counting as _cnt
    from . import _numpy_creation as _cre
    from . import _numpy_selection as _sel
    from . import _numpy_calculus as _calc
    from . import _numpy_products as _prod
    from . import _numpy_sets as _sets
    from . import _numpy_bits as _bits
    from . import _numpy_ranges as _rng
    from . import _numpy_reading as _rd
    from . import _numpy_writing as _wr

    here = {**vars(_red), **vars(_nan), **vars(_arr), **vars(_sets), **vars(_cmp), **vars(_prod),
            **vars(_cnt), **vars(_cre), **vars(_sel), **vars(_calc), **vars(_wr), **vars(_rd), **vars(_bits), **vars(_rng),
            **globals()}
    names = [
        "sum", "prod", "mean", "max", "min", "std", "var", "any", "all", "argmax",
        "argmin", "cumsum", "cumprod", "clip", "round", "concatenate", "stack",
        "transpose", "swapaxes", "reshape", "ravel", "squeeze", "expand_dims",
        "moveaxis", "where", "nonzero", "count_nonzero", "sort", "argsort",
        "searchsorted", "dot", "vdot", "inner", "tensordot", "outer", "trace",
        "diagonal", "diff", "flip", "roll", "tile", "repeat", "take",
        "take_along_axis", "broadcast_to", "broadcast_arrays", "meshgrid",
        "copy", "astype",
        "isclose", "allclose", "array_equal", "result_type", "shape", "ndim",
        "size", "unique", "average", "atleast_1d", "atleast_2d", "atleast_3d",
        "may_share_memory", "shares_memory", "linspace", "einsum", "iscomplexobj",
        "isrealobj", "can_cast", "nan_to_num", "isposinf", "isneginf", "hstack",
        "vstack", "column_stack", "real", "imag", "triu", "tril", "diag", "argwhere", "flatnonzero",
        "ptp", "quantile", "percentile", "median", "nansum", "nanprod", "nanmean",
        "nanmax", "nanmin", "nanvar", "nanstd", "nancumsum", "nancumprod",
        "nanargmax", "nanargmin", "nanquantile", "nanpercentile", "nanmedian", *_arr.NAMES, *_sets.NAMES, *_cmp.NAMES,
        *_prod.NAMES, *_cnt.NAMES, *_sel.NAMES, *_cre.NAMES,
        *_calc.NAMES, *_wr.NAMES, *_rd.NAMES, *_bits.NAMES, *_rng.NAMES, "angle",
    ]
    table: dict[Any, Callable[..., Any]] = {}
    for n in names:
        f = getattr(np, n, None)
        if f is not None:
            table[f] = here[n]
    for alias, n in (("amax", "max"), ("amin", "min"), ("around", "round"),
                     ("concat", "concatenate"), ("permute_dims", "transpose"),
                     ("asanyarray", "asarray"), ("row_stack", "vstack")):
        f = getattr(np, alias, None)
        if f is not None:
            table[f] = here[n]
    table[np.linalg.norm] = norm
    table[np.linalg.multi_dot] = _prod.multi_dot
    # `np.linalg.matmul(x1, x2)` is the ufunc `np.matmul` (its dtypes and
    # errors), which dispatches to donate's through `__array_ufunc__`.
    table[np.linalg.matmul] = lambda x1, x2, /: np.matmul(x1, x2)
    table[np.linalg.svd] = svd
    from . import _numpy_linalg as _nl
    for n in ("eigh", "eigvalsh", "pinv", "matrix_rank", "qr", "matrix_power"):
        table[getattr(np.linalg, n)] = getattr(_nl, n)
    from . import _numpy_solvers as _sol
    for n in ("lstsq", "cond", "eig", "eigvals", "tensorsolve", "tensorinv"):
        table[getattr(np.linalg, n)] = getattr(_sol, n)
    for n in _sol.NAMES:
        table[getattr(np, n)] = getattr(_sol, n)
    for n in ("inv", "solve", "det", "cholesky", "qr", "svd", "eigh", "eigvalsh",
              "slogdet", "pinv", "matrix_rank", "matrix_power", "svdvals",
              "vector_norm", "matrix_norm", "outer", "cross", "trace", "diagonal",
              "tensordot", "vecdot", "matrix_transpose"):
        f = getattr(np.linalg, n, None)
        if f is not None and hasattr(_linalg, n) and f not in table:
            table[f] = _bool_products(_lin(n)) if n in ("outer", "tensordot", "vecdot") \
                else _lin(n)
    table.update(_fft_functions())
    return table


FUNCTIONS = _functions()



"""The operand helpers of NumPy's protocols (``_numpy.py``) and of the
NumPy functions they call: NumPy arrays and scalars read as tensors,
NumPy's ``dtype=`` and ``out=`` keywords, keywords donate refuses.
"""

from __future__ import annotations

import builtins
import contextvars
from typing import Any

import numpy as np

import donate as _dn  # the namespace; complete when this module loads (last in __init__)

Tensor = _dn.Tensor
_NoValue: Any = getattr(np, "_NoValue", object())

# --------------------------------------------------------------- operands ---
#
# A `t.donate()` wrapper among a NumPy call's arguments. The core answers a
# donation in one operation: it takes `t`'s buffer only after every check,
# refuses it (a copy, `t` intact, a `DonationWarning`) when another operand
# holds the buffer, and a wrapper is used once. A translation made of
# several donate calls must not hand the wrapper to its first call: that
# call would take the buffer, and a later step (another read of the
# operand, `out=`'s casting check, a shape or index error) would fail with
# `t` already consumed, or read `t` after it was donated. So the rule:
#
# - `_tensor`/`_as_tensor` (every translation's reads) read a wrapper
#   without taking its buffer: through a cast to its own dtype, which the
#   core never writes into its input (`Op::Cast` receives nothing), so the
#   donation is refused with the core's `DonationWarning` and `t` stays
#   intact and undonated whatever happens next. When unsure, copy.
# - `_operand` passes the wrapper on, for the one donate call of a
#   translation that is its only step reading the operand and after which
#   nothing can fail (no `out=` to write); that call answers the donation as
#   any donate call does.


def _number(x: Any) -> Any:
    """`x` (not a tensor) as a tensor, a Python number as NumPy's
    `asarray` makes it: a float is float64 and a complex number complex128
    (donate's own `asarray` makes float32 of a float, the namespace's
    default float, which would round 0.1 before a float64 computation
    used it); ints and bools are donate's, as NumPy's (int64, bool)."""
    if isinstance(x, (float, complex)):
        return _dn.asarray(np.asarray(x))
    return _dn.asarray(x)


# The wrappers a NumPy function call has read so far (`read_once`), by
# `id` (the wrapper kept beside its copy, so the `id` is not reused).
_READS: contextvars.ContextVar[dict[int, tuple[Any, Any]] | None] = contextvars.ContextVar(
    "donate_numpy_reads", default=None)


def _read(x: Any) -> Any:
    """A `Donated` wrapper read without taking its buffer (see above);
    within one NumPy function call (`read_once`), the same copy however
    often a translation reads it (a wrapper is used once: a second read
    raised `DonatedError`)."""
    if not isinstance(x, _dn.Donated):
        return x
    memo = _READS.get()
    if memo is not None and id(x) in memo:
        return memo[id(x)][1]
    r = _dn.astype(x, x.dtype)
    if memo is not None:
        memo[id(x)] = (x, r)
    return r


def read_once(f: Any, /, *args: Any, **kwargs: Any) -> Any:
    """`f(*args, **kwargs)`, a NumPy function's translation, reading each
    donated wrapper at most once (`_read`), also in the NumPy calls it
    makes itself (`np.ndim(d)` of an argument)."""
    if _READS.get() is not None:
        return f(*args, **kwargs)
    token = _READS.set({})
    try:
        return f(*args, **kwargs)
    finally:
        _READS.reset(token)


def _operand(x: Any) -> Any:
    """`x` for a translation's one donate call that may take a donated
    buffer: a `Donated` wrapper and a tensor as they are, NumPy arrays and
    NumPy scalars (which have a dtype, NEP 50) and Python data (lists,
    tuples: as NumPy's `asarray` converts them) as tensors, Python numbers
    as they are."""
    if isinstance(x, (np.ndarray, np.generic)):
        return _dn.asarray(x)
    if isinstance(x, (list, tuple)):
        # Python data converts as NumPy's `asarray` (its floats are
        # float64), as a list operand of a donate op does.
        return _dn.asarray(np.asarray(x))
    return x


def _tensor(x: Any) -> Any:
    """`x` as an operand that is only read: as `_operand`, but a `Donated`
    wrapper read without taking its buffer."""
    return _read(_operand(x))


def _as_tensor(x: Any) -> Any:
    """`x` as a tensor (numbers too, as NumPy's `asarray` makes them:
    `_number`), only read."""
    x = _tensor(x)
    return x if isinstance(x, Tensor) else _number(x)


def _donatable(x: Any, out: Any) -> Any:
    """`x` for a translation that is one donate call whose result is
    returned as it is: passed on (`_operand`) unless an `out=` array is to
    be written afterwards (a write that may fail, and that would make the
    donated buffer useless anyway), then read (`_as_tensor`)."""
    if out is None or (isinstance(out, tuple) and builtins.all(o is None for o in out)):
        x = _operand(x)
        return x if isinstance(x, (Tensor, _dn.Donated)) else _number(x)
    return _as_tensor(x)


# ------------------------------------------------------- NumPy keywords ---


def _is(value: Any, *options: Any) -> bool:
    """Whether `value` is one of `options`: by identity, or equal for plain
    Python values (a bool only to a bool: `1` is not `True`). A tensor or an
    array given as a keyword is compared by identity only, never with `==`,
    which would compare its elements."""
    for o in options:
        if value is o:
            return True
        if (
            isinstance(value, _PLAIN)
            and isinstance(o, _PLAIN)
            and isinstance(value, _BOOL) == isinstance(o, _BOOL)
            and value == o
        ):
            return True
    return False


_BOOL = (bool, np.bool_)
_PLAIN = (str, int, float, *_BOOL)


def _flag(value: Any, default: bool = False) -> bool:
    """A boolean keyword (`keepdims=`), where NumPy's `_NoValue` sentinel
    (forwarded by wrappers of NumPy functions) means "not given"."""
    return default if value is _NoValue or value is None else bool(value)


def _dtype(dtype: Any) -> Any:
    return None if dtype is None else np.dtype(dtype)


def _dtype_of(x: Any) -> np.dtype[Any]:
    """The dtype NumPy gives the operand `x` (a tensor's, a wrapper's, an
    array's; NumPy's for Python data), without reading it."""
    if isinstance(x, (Tensor, _dn.Donated, np.ndarray, np.generic)):
        return np.dtype(x.dtype)
    return np.asarray(x).dtype


def _weak(x: Any) -> bool:
    """Whether `x` is a weak Python number (NEP 50): exactly an int, a
    float or a complex, as NumPy tests it (not a bool, not `np.float64`,
    not an int subclass such as an `IntEnum`'s members)."""
    return type(x) in (int, float, complex)


def _weak_or_dtype(x: Any) -> Any:
    """What `x` adds to NumPy's `result_type`: a weak Python number itself
    (an int beside int8 stays int8), else its dtype."""
    return x if _weak(x) else _dtype_of(x)


def _loop_operand(x: Any) -> Any:
    """What `ufunc.resolve_dtypes` takes for the operand `x`: a weak Python
    number as its type, else its dtype."""
    return type(x) if _weak(x) else _dtype_of(x)


def _ndim_of(x: Any) -> int:
    """The number of axes NumPy gives the operand `x`, without reading it."""
    if isinstance(x, (Tensor, _dn.Donated, np.ndarray, np.generic)):
        return int(x.ndim)
    return int(np.ndim(x))


def _cast(x: Any, dtype: Any) -> Any:
    """`x` in `dtype` (NumPy's `dtype=` keyword: the dtype computed in),
    only read: a cast never writes into its input, so a `Donated` wrapper
    given to it is refused (a copy, a `DonationWarning`)."""
    if dtype is None:
        return _tensor(x)
    x = _operand(x)
    return _dn.astype(x if isinstance(x, (Tensor, _dn.Donated)) else _number(x), np.dtype(dtype))


def _refuse(name: str, what: str) -> TypeError:
    return TypeError(f"numpy.{name} on donate tensors: {what} is not supported")


def _write_out(name: str, out: Any, result: Any, casting: Any = "unsafe", *,
               broadcast: bool = False) -> Any:
    """Write `result` into `out` (a tensor, in place; or a NumPy array) and
    return `out`; `casting` is checked first, as NumPy's ufuncs check it.

    `out` has the result's shape exactly (NumPy's reductions, `cumsum`,
    `concatenate`, `dot`, `take`, ...: a `ValueError` otherwise, never a
    result broadcast into a larger array); with `broadcast`, an
    element-wise ufunc's rule: the result broadcasts to `out`'s shape,
    which is the broadcast shape of the two."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise _refuse(name, f"out= with {len(out)} arrays")
        (out,) = out
    if out is None:
        return result
    rdt = result.dtype if hasattr(result, "dtype") else np.result_type(result)
    if not np.can_cast(rdt, out.dtype, casting=casting):
        raise TypeError(
            f"numpy.{name}: cannot cast the result from {rdt} to the out= array's "
            f"{out.dtype} with casting rule {casting!r}"
        )
    rshape, oshape = tuple(np.shape(result)), tuple(out.shape)
    try:
        fits = (np.broadcast_shapes(rshape, oshape) if broadcast else rshape) == oshape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"numpy.{name}: the out= array has shape {oshape}, the result "
            + (f"{rshape}, which does not broadcast to it" if broadcast else f"has shape {rshape}")
        )
    if isinstance(out, Tensor):
        out[...] = result
    elif isinstance(out, np.ndarray):
        out[...] = np.asarray(result)
    else:
        raise _refuse(name, f"out= of type {type(out).__name__}")
    return out


def _where_mask(where: Any) -> Any:
    """A ufunc's or reduction's `where=` as a bool tensor: NumPy reads
    it as bool under safe casting, so a mask of another dtype (ints,
    floats) is a `TypeError`, never read as truth values."""
    mask = _as_tensor(where)
    if mask.dtype != _dn.bool:
        raise TypeError(f"Cannot cast array data from dtype('{mask.dtype}') to dtype('bool') "
                        "according to the rule 'safe' (a where= mask must be boolean)")
    return mask


def _bool_products(f: Any) -> Any:
    """`f`, a sum of products (`tensordot`, `vecdot`, `outer`), with
    NumPy's loops for bools, which the standard's functions refuse: of two
    bools a bool (whether any product is True: the count of True products,
    in int64, is not zero), and a bool with a number in the number's
    dtype. Other operands are passed on as they are."""
    def products(x: Any, y: Any, /, *args: Any, **kwargs: Any) -> Any:
        dts = (_dtype_of(x), _dtype_of(y))
        if np.bool_ not in dts:
            return f(x, y, *args, **kwargs)
        want = np.result_type(*dts)
        work = np.dtype(np.int64) if want == np.bool_ else want
        x, y = (_as_tensor(v) if d == work else _dn.astype(_as_tensor(v), work)
                for v, d in ((x, dts[0]), (y, dts[1])))
        r = f(x, y, *args, **kwargs)
        return r != 0 if want == np.bool_ else r

    products.__name__ = products.__qualname__ = f.__name__
    return products


def _flat(x: Any) -> Any:
    return _dn.reshape(_as_tensor(x), (-1,))


def _axis_or_flat(x: Any, axis: Any) -> tuple[Any, Any]:
    """NumPy's `axis=None` of functions that then work on the flattened
    array (`cumsum`, `sort`, `take`, `concatenate`, ...)."""
    return (_flat(x), 0) if axis is None else (_as_tensor(x), axis)


def _axis_or_raveled(x: Any, axis: Any) -> tuple[Any, Any]:
    """As `_axis_or_flat`, and a 0-d `x` raveled for one integer axis
    (`_raveled_0d`): NumPy's `cumsum`, `take`."""
    return (_flat(x), axis) if _raveled_0d(x, axis) else _axis_or_flat(x, axis)


def _one_int_axis(axis: Any) -> bool:
    """Whether `axis` is one axis given as an integer (not a tuple, not a bool)."""
    return isinstance(axis, (int, np.integer)) and not isinstance(axis, (bool, np.bool_))


def _reduced_axis(x: Any, axis: Any) -> Any:
    """`axis` of a NumPy reduction (`sum`, `max`, `ufunc.reduce`,
    `count_nonzero`, `ptp`) over `x`: of a 0-d array, axis 0 or -1 (one
    integer; a tuple stays an error) reduces nothing, as NumPy's
    reductions take it (`np.sum(np.array(3.0), axis=0)` is 3.0), so none.
    Any other axis is left for donate to refuse (`AxisError`)."""
    if _ndim_of(x) == 0 and _one_int_axis(axis) and int(axis) in (0, -1):
        return None
    return axis


def _raveled_0d(x: Any, axis: Any) -> bool:
    """Whether NumPy's function over one `axis` (`cumsum`, `take`,
    `argsort`, `repeat`, `argmax`: `PyArray_CheckAxis`) ravels `x` first:
    a 0-d array given one integer axis, which then names the raveled
    array's one axis (`np.cumsum(np.array(3), axis=0)` is `[3]`; axis 1
    is an `AxisError`)."""
    return _ndim_of(x) == 0 and _one_int_axis(axis)


def _no(name: str, **given: Any) -> None:
    """Refuse NumPy keywords that were given a value donate cannot honour."""
    for k, v in given.items():
        if not _is(v, _NoValue, None, True):
            raise _refuse(name, f"{k}=")

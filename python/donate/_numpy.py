"""NumPy's protocols on donate tensors: NEP 13 (``__array_ufunc__``), NEP 18
(``__array_function__``) and the methods NumPy code calls on an array
(``t.sum(axis, dtype, out, keepdims)``, ``t.argmax()``, ``t.std(ddof=1)``).

Translation only. Each NumPy name maps to the donate function that computes
the same thing, with NumPy's keywords turned into that function's; dtypes,
shapes, promotion and donation are decided there, in the core, as for any
call (where NumPy's result dtype differs, as `np.clip`'s promotion or
`np.mean` of integers, the operands are cast first to NumPy's). What this
module adds is NumPy's calling conventions:

- **Results are tensors.** ``np.exp(t)``, ``np.add(a, t)`` (``a`` a NumPy
  array), ``np.sum(t)`` and ``np.concatenate([t, a])`` return donate
  tensors; NumPy arrays among the operands are read as tensors of their
  dtype.
- **``out=``** writes into the given array as NumPy does: a tensor ``out``
  is written in place (``np.add(t, 1, out=t)`` is ``t += 1``, its own
  buffer when exclusive, written through into a view's base), a NumPy
  ``out`` (``a += t`` with ``a`` a NumPy array) gets the values, and ``out``
  is returned. A ufunc's ``casting`` rule (``same_kind`` by default) is
  checked before anything is written.
- **``where=``** of a ufunc keeps ``out``'s values where it is false (with
  no ``out``, those elements are the computed ones: NumPy leaves them
  unspecified).
- **Anything else is refused, never converted.** A NumPy function or ufunc
  without a donate counterpart here, or one called with a keyword donate
  cannot honour (``order="F"``, ``where=`` of ``np.std``, ``ufunc.reduceat``), returns
  ``NotImplemented`` or raises ``TypeError`` naming it, so NumPy code learns
  at once instead of getting a NumPy array back. The exceptions are queries
  that return no array (``np.shape``, ``np.ndim``, ``np.size``), answered
  from the tensor. ``np.asarray(t)`` is not a protocol call: it stays a
  zero-copy, read-only view.

Implicit donation: NumPy holds its operands while it dispatches, so a
temporary passed to a NumPy function is not reused (it is copied, as a
named tensor is); call the donate function for that. Explicit donation
(`t.donate()`): passed on to the donate call when the translation is that
one call and its result is returned; otherwise (several calls, `out=`)
the operand is read without taking its buffer, a copy with a
`DonationWarning`, so that no later step can fail with `t` consumed
(`_numpy_operands`).
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import donate as _dn  # the namespace; complete when this module loads (last in __init__)
from . import _core
from . import _numpy_functions as _f
from . import _numpy_reductions as _red
from ._numpy_operands import (
    _NoValue,
    _as_tensor,
    _bool_products,
    _cast,
    _donatable,
    _dtype,
    _dtype_of,
    _flag,
    _ndim_of,
    _reduced_axis,
    _is,
    _loop_operand,
    _operand,
    _refuse,
    _where_mask,
    _weak,
    _write_out,
    read_once,
)

Tensor = _dn.Tensor


# ----------------------------------------------------------------- ufuncs ---

# NumPy ufunc name -> donate function name (where they differ); every
# other ufunc whose name donate's namespace has maps to that function.
_UFUNC_NAMES = {
    "absolute": "abs",
    "fabs": "abs",
    "true_divide": "divide",
    "power": "pow",
    "mod": "remainder",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arctan2": "atan2",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
    "rint": "round",
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
    "conjugate": "conj",
}

# NumPy ufunc -> (donate reduction, whether it takes `dtype`), for
# `ufunc.reduce`.
_REDUCE = {
    "add": ("sum", True),
    "multiply": ("prod", True),
    "maximum": ("max", False),
    "minimum": ("min", False),
    "logical_and": ("all", False),
    "logical_or": ("any", False),
}
# NumPy ufunc -> (donate's running operation, whether it takes `dtype`),
# for `ufunc.accumulate`; the extremes keep the dtype (`dtype=` casts first).
_ACCUMULATE: dict[str, tuple[Callable[..., Any], bool]] = {
    "add": (_dn.cumulative_sum, True),
    "multiply": (_dn.cumulative_prod, True),
    "maximum": (_core._cumulative_max, False),
    "minimum": (_core._cumulative_min, False),
}

# `np.add(t, u, out=t)`: the in-place operator, so that `t`'s buffer is
# written directly (no result buffer first).
_IN_PLACE = {
    "add": operator.iadd,
    "subtract": operator.isub,
    "multiply": operator.imul,
    "true_divide": operator.itruediv,
    "divide": operator.itruediv,
}


def _ufunc(name: str) -> Callable[..., Any] | None:
    f = getattr(_dn, _UFUNC_NAMES.get(name, name), None)
    if name == "vecdot":  # (NumPy's loops for bools; the standard's refuses them)
        f = _bool_products(_dn.vecdot)
    return f if callable(f) else None


def _ours(x: Any) -> bool:
    """Whether `x` is an operand this module reads: a tensor, a NumPy array
    or scalar, or a Python number."""
    return isinstance(
        x, (Tensor, _dn.Donated, np.ndarray, np.generic, bool, int, float, complex)
    )


def _our_input(x: Any) -> bool:
    """An input operand: one of `_ours`, or Python data (a list, a tuple)
    or a plain array-like (`__array__` alone, the buffer protocol, a
    `range`: the operators' rule), which converts as NumPy's `asarray`
    (`_operand`)."""
    return _ours(x) or isinstance(x, (list, tuple)) or _core._is_plain_array_like(x)


def array_ufunc(self: Any, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """NEP 13: NumPy's ufunc `ufunc` (its `method`) on tensors."""
    if method == "at":  # (a, indices[, b]): the indices may be slices
        from ._numpy_writing import ufunc_at

        return ufunc_at(ufunc, *inputs) if not kwargs else NotImplemented
    out = kwargs.pop("out", None)
    if not builtins.all(x is None or isinstance(x, (Tensor, _dn.Donated)) or hasattr(x, "__array_ufunc__")
                        for x in out or ()):
        # NumPy's own check (`np.sin(t, 2)`): an output must be an array.
        raise TypeError("return arrays must be of ArrayType")
    if not (builtins.all(_our_input(x) for x in inputs)
            and builtins.all(x is None or _ours(x) for x in out or ())):
        return NotImplemented
    name = ufunc.__name__
    if builtins.any(isinstance(o, _dn.Donated) for o in out or ()):
        raise _refuse(name, "out= of type Donated (pass the tensor to write into)")
    if method == "__call__":
        return _ufunc_call(ufunc, name, inputs, out, kwargs)
    if method in ("reduce", "accumulate"):
        return _ufunc_reduce(name, method, inputs, out, kwargs)
    if method == "outer":
        return _ufunc_outer(ufunc, name, inputs, out, kwargs)
    return NotImplemented


def _ufunc_outer(
    ufunc: np.ufunc, name: str, inputs: Sequence[Any], out: Any, kw: dict[str, Any]
) -> Any:
    """`ufunc.outer(a, b)`: the ufunc of `a`, given `b.ndim` more axes of
    length 1, and `b`, which broadcast to `a.shape + b.shape`. The operands
    are arrays as NumPy's `outer` makes them (`asarray`: a Python number is
    an int64, float64 or bool array, not a weak scalar), only read."""
    if ufunc.nin != 2 or len(inputs) != 2:
        raise ValueError(f"numpy.{name}.outer: outer product only supported for binary functions")
    a, b = (_as_tensor(np.asarray(x) if isinstance(x, (bool, int, float, complex)) else x) for x in inputs)
    a = _dn.reshape(a, tuple(a.shape) + (1,) * b.ndim)
    return _ufunc_call(ufunc, name, (a, b), out, kw)


# NumPy ufuncs donate has no single function for, composed exactly of
# donate's: each takes tensors (read) and returns a tensor or a tuple.
def _divmod(x: Any, y: Any) -> Any:
    return _dn.floor_divide(x, y), _dn.remainder(x, y)


def _modf(x: Any) -> Any:
    # C's modf: the integral part and the rest, both with the sign of `x`
    # (`x - trunc(x)` is exact; an infinity's rest is a signed 0).
    whole = _dn.copysign(_dn.trunc(x), x)
    return _dn.copysign(_dn.where(_dn.isinf(x), 0, _dn.subtract(x, whole)), x), whole


def _frexp(x: Any) -> Any:
    # C's frexp: `x = m * 2**e` with 0.5 <= |m| < 1, in NumPy's float for
    # `x`'s dtype (float32 where NumPy makes float16 of an integer: donate
    # makes float16 only of float16), `e` int32; 0, infinities and NaN are their own mantissa, with exponent 0. `e` starts from
    # `floor(log2|x|) + 1`, which `log2`'s rounding can leave one off:
    # corrected once `m` shows it. Every step is exact: `m` is `x` scaled
    # by powers of two, in two halves so that neither overflows (a
    # subnormal `x` needs up to 2**1074).
    dt = np.frexp.resolve_dtypes((np.dtype(x.dtype), None, None))[0]
    dt = np.dtype(np.float32) if dt == np.float16 != x.dtype else dt
    if x.dtype != dt:
        x = _dn.astype(x, dt)
    finite = _dn.logical_and(_dn.isfinite(x), _dn.not_equal(x, 0))
    e = _dn.add(_dn.floor(_dn.log2(_dn.where(finite, _dn.abs(x), 1))), 1)
    half = _dn.floor(_dn.multiply(e, 0.5))
    m = _dn.multiply(_dn.multiply(x, _dn.pow(2.0, _dn.negative(half))),
                     _dn.pow(2.0, _dn.subtract(half, e)))
    big, small = _dn.greater_equal(_dn.abs(m), 1), _dn.less(_dn.abs(m), 0.5)
    m = _dn.where(big, _dn.multiply(m, 0.5), _dn.where(small, _dn.multiply(m, 2), m))
    e = _dn.add(e, _dn.subtract(_dn.astype(big, dt), _dn.astype(small, dt)))
    return _dn.where(finite, m, x), _dn.astype(_dn.where(finite, e, 0), _dn.int32)


def _nan_ignoring(extreme: Callable[..., Any]) -> Callable[..., Any]:
    """`fmax`/`fmin`: `maximum`/`minimum` where neither is NaN, else the
    other operand (NaN only where both are)."""
    def f(x: Any, y: Any) -> Any:
        r = extreme(x, y)
        if not _dn.isdtype(r.dtype, "real floating"):
            return r
        r = _dn.where(_dn.isnan(y), x, r)
        return _dn.where(_dn.isnan(x), y, r)
    return f


def _float_loop(name: str, compute: Callable[..., Any], *,
                half_in_float32: bool = True) -> Callable[..., Any]:
    """A ufunc composed of donate's functions: each operand first cast to
    the dtype of NumPy's loop for the operands (float32 where NumPy's is
    float16 of a non-float16 operand: donate makes float16 only of
    float16; NumPy's `TypeError` where it has no loop). NumPy's float16
    loops compute in float32 and round once: so does this, where
    `half_in_float32` (donate's float16 steps would round each
    intermediate: `logaddexp2` lost its sign)."""
    ufunc = getattr(np, name)

    def f(*xs: Any) -> Any:
        loop = ufunc.resolve_dtypes(tuple(_loop_operand(x) for x in xs) + (None,) * ufunc.nout)
        # float16 stays float16 when an operand is float16 (a Python
        # number or an int8 beside it included, as NumPy's).
        half = any(_dtype_of(x) == np.float16 for x in xs)
        narrowed = False
        cast = []
        for x, dt in zip(xs, loop):
            if dt == np.float16 and not half:
                dt = np.dtype(np.float32)
            if _weak(x):
                # A Python number converts into the loop's dtype as NumPy
                # converts it: `gcd(int8, 300)` is an OverflowError, not 300
                # wrapped to 44.
                t = _dn.asarray(np.asarray(x, dtype=dt))
            else:
                t = _as_tensor(x)
                t = t if t.dtype == dt else _dn.astype(t, dt)
            if dt == np.float16 and half_in_float32:
                t, narrowed = _dn.astype(t, _dn.float32), True
            cast.append(t)
        out = compute(*cast)
        return _dn.astype(out, _dn.float16) if narrowed else out

    return f


def _heaviside(x: Any, h: Any) -> Any:
    # NumPy's: 0 below 0, `h` at (either) 0, 1 above, NaN of NaN.
    step = _dn.where(x < 0, _dn.zeros_like(x), _dn.where(x > 0, _dn.ones_like(x), h))
    return _dn.where(_dn.isnan(x), x, step)


def _logaddexp2(x: Any, y: Any) -> Any:
    # NumPy's `npy_logaddexp2`: the larger plus log2(1 + 2**-|x - y|),
    # `x + 1` where they are equal (infinities of one sign too).
    big = _dn.maximum(x, y)
    step = _dn.log1p(_dn.pow(_dn.asarray(2.0, dtype=x.dtype), -_dn.abs(x - y))) / math.log(2)
    return _dn.where(x == y, x + 1, big + step)


def _ldexp(x: Any, e: Any) -> Any:
    # `x * 2**e` in `x`'s dtype, rounded once, as C's `scalbn` (musl's):
    # while `e` is past the normal exponents, scale by the largest power
    # of two (or the smallest normal one times 2**digits, so that the
    # last step alone rounds into the subnormals); every factor is finite
    # and nonzero, so 0, inf and NaN stay what they are. Then one
    # multiplication by 2**e, exact as a power of two in range.
    fi = np.finfo(np.dtype(x.dtype))
    emax, emin, digits = fi.maxexp - 1, fi.minexp - 1, fi.nmant + 1
    bound = 2 * (emax - emin + digits)  # past it, every result saturates
    n = _dn.clip(_dn.astype(e, _dn.int64), -bound, bound)
    y = x
    while bool(_dn.any(n > emax)):
        hi = n > emax
        y, n = _dn.where(hi, y * 2.0 ** emax, y), _dn.where(hi, n - emax, n)
    while bool(_dn.any(n < emin)):
        lo = n < emin
        y, n = _dn.where(lo, y * 2.0 ** (emin + digits), y), _dn.where(lo, n - (emin + digits), n)
    two = _dn.asarray(2.0, dtype=x.dtype)
    return y * _dn.pow(two, _dn.astype(n, x.dtype))


def _spacing(x: Any) -> Any:
    # NumPy's: the distance to the next value away from zero (negative for
    # a negative `x`), NaN of an infinity or NaN.
    inf = _dn.asarray(math.inf, dtype=x.dtype)
    away = _dn.where(x < 0, -inf, inf)
    return _dn.where(_dn.isfinite(x), _dn.nextafter(x, away) - x, _dn.full_like(x, math.nan))


def _gcd(x: Any, y: Any) -> Any:
    # Euclid's algorithm on every pair at once (at most ~92 rounds for
    # int64: Fibonacci numbers are its worst case); non-negative, as
    # NumPy's.
    # The magnitudes are taken as unsigned numbers of the same width, as
    # NumPy's: |INT_MIN| is the one magnitude a signed dtype cannot hold
    # (`gcd(3, -128)` of int8 is 1, and `gcd(-128, -128)` wraps back to
    # -128).
    a, b = _dn.broadcast_arrays(_dn.abs(x), _dn.abs(y))
    dtype = _dn.result_type(a, b)
    if dtype.kind == "i":
        unsigned = np.dtype(f"u{dtype.itemsize}")
        a, b = (_dn.astype(_dn.astype(v, dtype), unsigned) for v in (a, b))
    while bool(_dn.any(b != 0)):
        nonzero = b != 0
        a, b = _dn.where(nonzero, b, a), _dn.where(nonzero, _dn.remainder(a, _dn.where(nonzero, b, 1)), 0)
    return _dn.astype(a, dtype) if a.dtype != dtype else a


def _lcm(x: Any, y: Any) -> Any:
    # NumPy's order: |x| / gcd * |y|, wrapping where it overflows.
    g = _gcd(x, y)
    return _dn.floor_divide(_dn.abs(x), _dn.where(g == 0, 1, g)) * _dn.abs(y)


def _core_dims(name: str, operands: tuple[Any, ...], needs: tuple[int, ...]) -> None:
    """NumPy's gufunc check: each operand has its core dimensions (a
    matrix two, a vector one); a vector in a matrix's place is an error,
    not a matrix product of another shape."""
    for i, (x, n) in enumerate(zip(operands, needs)):
        if x.ndim < n:
            sig = "(m,n),(n)->(m)" if name == "matvec" else "(n),(n,m)->(m)"
            raise ValueError(f"{name}: Input operand {i} does not have enough dimensions (has "
                             f"{x.ndim}, gufunc core with signature {sig} requires {n})")


def _matvec(a: Any, v: Any) -> Any:
    a, v = _as_tensor(a), _as_tensor(v)
    _core_dims("matvec", (a, v), (2, 1))
    return _dn.matmul(a, _dn.expand_dims(v, axis=-1))[..., 0]


def _vecmat(v: Any, a: Any) -> Any:
    v, a = _as_tensor(v), _as_tensor(a)
    _core_dims("vecmat", (v, a), (1, 2))
    v = _dn.conj(v) if v.dtype.kind == "c" else v
    return _dn.matmul(_dn.expand_dims(v, axis=-2), a)[..., 0, :]


def _bitwise_count(x: Any) -> Any:
    # NumPy's: the 1-bits of the absolute value (of -128 as int8: 128),
    # uint8 whatever the integer dtype; counted 64 bits at a time by the
    # classic shift-and-mask sum (exact, wrapping uint64 arithmetic).
    t = _as_tensor(x)
    if t.dtype == _dn.bool:
        t = _dn.astype(t, _dn.uint8)
    if not _dn.isdtype(t.dtype, "integral"):
        raise TypeError("ufunc 'bitwise_count' not supported for the input types, and the "
                        "inputs could not be safely coerced to any supported types according "
                        "to the casting rule ''safe''")
    if _dn.isdtype(t.dtype, "signed integer"):
        t = _dn.astype(_dn.abs(t), getattr(_dn, "u" + str(t.dtype)))
    u = _dn.astype(t, _dn.uint64)
    u = u - ((u >> 1) & 0x5555555555555555)
    u = (u & 0x3333333333333333) + ((u >> 2) & 0x3333333333333333)
    u = (u + (u >> 4)) & 0x0F0F0F0F0F0F0F0F
    return _dn.astype((u * 0x0101010101010101) >> 56, _dn.uint8)


_COMPOSED: dict[str, Callable[..., Any]] = {
    "bitwise_count": _bitwise_count,
    "divmod": _divmod,
    "modf": _modf,
    "frexp": _frexp,
    "fmax": _nan_ignoring(_dn.maximum),
    "fmin": _nan_ignoring(_dn.minimum),
    # NumPy's definitions: `x * (pi / 180)`, `x * (180 / pi)`, `2 ** x`.
    "deg2rad": _float_loop("deg2rad", lambda x: _dn.multiply(x, math.pi / 180)),
    "radians": _float_loop("radians", lambda x: _dn.multiply(x, math.pi / 180)),
    "rad2deg": _float_loop("rad2deg", lambda x: _dn.multiply(x, 180 / math.pi)),
    "degrees": _float_loop("degrees", lambda x: _dn.multiply(x, 180 / math.pi)),
    "exp2": _float_loop("exp2", lambda x: _dn.pow(2.0, x)),
    # NumPy's definitions, each in NumPy's loop for its operands.
    "float_power": _float_loop("float_power", _dn.pow),
    "heaviside": _float_loop("heaviside", _heaviside),
    "logaddexp2": _float_loop("logaddexp2", _logaddexp2),
    "ldexp": _float_loop("ldexp", _ldexp),
    # (Its own float16 steps: the spacing of a float16 is float16's.)
    "spacing": _float_loop("spacing", _spacing, half_in_float32=False),
    "gcd": _float_loop("gcd", _gcd),
    "lcm": _float_loop("lcm", _lcm),
    "matvec": _matvec,
    "vecmat": _vecmat,
}

# Ufuncs NumPy computes on bools in bool, as the identity (donate's refuse
# bool): the values, copied.
_BOOL_IDENTITY = {"absolute", "floor", "ceil", "trunc"}


# Ufuncs whose NumPy loop for an integer is a float one, where donate's
# function keeps the integer dtype (`abs`, `round`): NumPy's float loop.
_FLOAT_OF_INTEGERS = {"fabs", "rint"}


def _numpy_loop(ufunc: np.ufunc, name: str, inputs: Sequence[Any]) -> Any:
    """The dtype NumPy's loop computes in where donate's function would
    compute in another, else None: for operands that are all bool, NumPy's
    loop when it is not bool (`np.square(b)` is int8, `np.rint(b)` float16,
    which is float32 here: donate makes float16 only of float16, as
    `DType::float_result` says); for the integer operand of `fabs` or
    `rint`, NumPy's float loop (float64 of int64)."""
    if builtins.all(
        isinstance(x, bool) or (not isinstance(x, (int, float)) and _dtype_of(x) == np.bool_)
        for x in inputs
    ):
        dt = np.dtype(np.bool_)
    elif (name in _FLOAT_OF_INTEGERS and len(inputs) == 1
          and not isinstance(inputs[0], (int, float))
          and _dtype_of(inputs[0]).kind in "iu"):
        dt = _dtype_of(inputs[0])
    else:
        return None
    try:
        loop = ufunc.resolve_dtypes((dt,) * ufunc.nin + (None,) * ufunc.nout)[0]
    except TypeError:  # no loop: NumPy's own error, from donate's
        return None
    if loop == dt:
        return None
    return np.dtype(np.float32) if loop == np.float16 else loop


def _int_reciprocal(x: Any) -> Any:
    """NumPy's `reciprocal` of integers: the integer part of `1 / x` (1 of
    1, -1 of -1, 0 of every other integer; NumPy's `1 / 0` is undefined
    behaviour in C, 0 here, as donate's integer division by zero)."""
    t = _as_tensor(x)
    r = _dn.astype(t == 1, t.dtype)
    return r - _dn.astype(t == -1, t.dtype) if t.dtype.kind == "i" else r


def _loop_of(ufunc: np.ufunc, inputs: Sequence[Any], dtype: Any,
             casting: Any) -> tuple[Any, ...] | None:
    """NumPy's own resolution of a call with `dtype=` or a `casting` other
    than its default: the dtypes its loop reads the operands in, given
    `dtype=` (which names the loop's output: `np.less(a, b, dtype=bool)`
    compares the values, `np.ldexp(x, i, dtype=float64)` keeps the
    integer exponent), else None; NumPy's `TypeError` where that loop
    cannot take the operands under `casting` (`np.add(float_t, 1,
    dtype=np.int64)`, `np.add(int8_t, uint8_t, casting="no")`). Python
    numbers are weak (NEP 50), as NumPy resolves them. Resolved on every
    call: where NumPy has no loop for the operands (`np.fabs` of complex
    data), its `TypeError`, not donate's wider function's answer."""
    types = tuple(_loop_operand(x) for x in inputs)
    if dtype is None and _is(casting, "same_kind"):
        if ufunc.signature is None:  # (resolve_dtypes takes no gufunc)
            ufunc.resolve_dtypes(types + (None,) * ufunc.nout)
        return None
    given = {} if dtype is None else \
        {"signature": (None,) * ufunc.nin + (np.dtype(dtype),) * ufunc.nout}
    loop = ufunc.resolve_dtypes(types + (None,) * ufunc.nout, casting=casting, **given)
    return None if dtype is None else tuple(loop[:ufunc.nin])


def _ufunc_call(
    ufunc: np.ufunc, name: str, inputs: Sequence[Any], out: Any, kw: dict[str, Any]
) -> Any:
    f: Callable[..., Any] | None = _COMPOSED.get(name) or _ufunc(name)
    composed = name in _COMPOSED
    if f is None or (ufunc.nout != 1 and not composed):
        return NotImplemented
    loop = _numpy_loop(ufunc, name, inputs)
    if (loop is None and name in _BOOL_IDENTITY and kw.get("dtype") is None
            and _dtype_of(inputs[0]) == np.bool_):
        f, composed = (lambda x: _dn.astype(x, _dn.bool)), True
    reciprocal_of = _dtype_of(inputs[0]) if kw.get("dtype") is None else np.dtype(kw["dtype"])
    if name == "reciprocal" and reciprocal_of.kind in "biu":
        f, composed = _int_reciprocal, True
    if name == "vecdot" and "axis" in kw:
        # The gufunc's `axis=`: the core axis of each operand, counted in
        # its own axes (moved last, where the loop reads it).
        axis, g = operator.index(kw.pop("axis")), f
        f = lambda *xs: g(*(_dn.moveaxis(x, axis, -1) for x in xs))  # noqa: E731
        composed = True
    where = kw.pop("where", True)
    dtype = kw.pop("dtype", None)
    casting = kw.pop("casting", "same_kind")
    casts = _loop_of(ufunc, inputs, dtype, casting)
    for k, default in (("order", "K"), ("subok", True), ("signature", None)):
        if not _is(kw.pop(k, default), default):
            raise _refuse(name, f"{k}=")
    if kw:
        raise _refuse(name, f"the keyword {next(iter(kw))}=")
    target = out[0] if out else None
    everywhere = _is(where, True)
    if (
        target is not None
        and everywhere
        and dtype is None
        and _is(casting, "same_kind")  # the in-place operators' rule
        and name in _IN_PLACE
        and len(inputs) == 2
        and inputs[0] is target
        and isinstance(target, Tensor)
    ):
        # One donate call (`t += u`), which answers a donated `u` itself.
        _IN_PLACE[name](target, _operand(inputs[1]))
        return target
    if target is None and everywhere and dtype is None and loop is None and not composed:
        # One donate call whose result is returned: donated operands are
        # passed on, and that call takes their buffers or refuses them.
        return f(*(_operand(x) for x in inputs))
    # Several steps (a cast, `where=`, the write into `out`, a composition):
    # every operand is only read (see `_numpy_operands`).
    if casts is None:
        casts = (loop,) * len(inputs)  # NumPy's loop (`_numpy_loop`), or none
    result = f(*(_cast(x, c) for x, c in zip(inputs, casts)))
    results = result if isinstance(result, tuple) else (result,)
    targets = tuple(out) if out else (None,) * len(results)
    if out and len(targets) != len(results):
        raise _refuse(name, f"out= with {len(targets)} arrays")
    # Every casting check before anything is written, on the loop's own
    # results (not on a `where=` blend with `out`, which would promote).
    for r, o in zip(results, targets):
        if o is not None and not np.can_cast(r.dtype, o.dtype, casting=casting):
            _write_out(name, o, r, casting, broadcast=True)  # raises NumPy's TypeError
    if not everywhere:
        # Where the mask is false, `out` keeps its values: the result is
        # cast to `out`'s dtype first (as NumPy's loop writes it), then
        # blended with it (without out=, NumPy leaves those elements
        # unset: the result's are as good).
        mask = _where_mask(where)
        results = tuple(
            r if o is None
            else _dn.where(mask, r if r.dtype == o.dtype else _dn.astype(r, o.dtype), _as_tensor(o))
            for r, o in zip(results, targets)
        )
    written = tuple(_write_out(name, o, r, casting, broadcast=True)
                    for r, o in zip(results, targets))
    return written if isinstance(result, tuple) else written[0]


def _ufunc_reduce(
    name: str, method: str, inputs: Sequence[Any], out: Any, kw: dict[str, Any]
) -> Any:
    if len(inputs) != 1:
        return NotImplemented
    axis = kw.pop("axis", 0)
    dtype = kw.pop("dtype", None)
    keepdims = _flag(kw.pop("keepdims", False))
    initial, where = kw.pop("initial", _NoValue), kw.pop("where", _NoValue)
    if kw:
        raise _refuse(f"{name}.{method}", f"the keyword {next(iter(kw))}=")
    # NumPy's "not given" (compared by identity: `where=` may be an array,
    # which `==` would compare element by element).
    given = not (_is(initial, _NoValue, None) and _is(where, _NoValue, True))
    if given and method == "reduce" and name in _REDUCE:
        # NumPy's masked reduction and its starting value.
        return _red.masked(_REDUCE[name][0], inputs[0], axis, dtype, out, keepdims,
                           initial, where)
    if given:
        raise _refuse(f"{name}.{method}", "initial=" if _is(where, _NoValue, True) else "where=")
    if method == "accumulate":
        acc = _ACCUMULATE.get(name)
        if acc is None or keepdims:
            return NotImplemented
        running, takes_dtype = acc
        if _ndim_of(inputs[0]) == 0:
            raise TypeError(f"numpy.{name}.accumulate: cannot accumulate on a scalar (a 0-d tensor)")
        if isinstance(axis, tuple):
            if len(axis) != 1:
                raise ValueError(f"numpy.{name}.accumulate: accumulate does not allow multiple axes")
            (axis,) = axis
        if takes_dtype or dtype is None:
            x = _donatable(inputs[0], out)
            r = running(x, axis=axis, **({"dtype": _dtype(dtype)} if takes_dtype else {}))
        else:
            r = running(_cast(inputs[0], dtype), axis=axis)
    else:
        red = _REDUCE.get(name)
        if red is None:
            return NotImplemented
        fname, takes_dtype = red
        axis = _reduced_axis(inputs[0], axis)  # (NumPy's default axis 0 of a 0-d array too)
        x = _donatable(inputs[0], out)
        if takes_dtype:
            r = getattr(_dn, fname)(x, axis=axis, dtype=_dtype(dtype), keepdims=keepdims)
        else:
            r = getattr(_dn, fname)(_cast(x, dtype), axis=axis, keepdims=keepdims)
    return _write_out(f"{name}.{method}", out, r)


def array_function(self: Any, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    """NEP 18: the NumPy function `func` on tensors (`NotImplemented`, so
    that NumPy raises `TypeError`, for one donate does not implement)."""
    impl = _f.FUNCTIONS.get(func)
    known = (Tensor, _dn.Donated, np.ndarray)
    if impl is None or not builtins.all(issubclass(t, known) for t in types):
        return NotImplemented
    return read_once(impl, *args, **kwargs)


# ----------------------------------------------------------------- methods ---

_METHODS = [
    "sum", "prod", "mean", "max", "min", "std", "var", "any", "all", "argmax",
    "argmin", "cumsum", "cumprod", "clip", "round", "swapaxes", "ravel",
    "squeeze", "nonzero", "argsort", "searchsorted", "dot", "trace",
    "diagonal", "repeat", "take",
]


def _flatten(self: Any, order: str = "C") -> Any:
    """A copy of the tensor as one axis (NumPy's `ndarray.flatten`)."""
    return _f.ravel(self, order).copy()


def _sort_in_place(self: Any, axis: int = -1, kind: Any = None, order: Any = None, *,
                   stable: Any = None) -> None:
    """Sort the tensor along `axis`, in place (NumPy's `ndarray.sort`)."""
    self[...] = _f.sort(self, axis=axis, kind=kind, order=order)


def _fill(self: Any, value: Any) -> None:
    """Set every element to `value`, in place (NumPy's `ndarray.fill`)."""
    self[...] = value


def install() -> None:
    """Give `Tensor` (and `Donated`) NumPy's protocols and methods."""
    for cls in (Tensor, _dn.Donated):
        setattr(cls, "__array_ufunc__", array_ufunc)
        setattr(cls, "__array_function__", array_function)
    for n in _METHODS:
        f = _f.implementation(n)
        if not f.__doc__:
            f.__doc__ = (
                f"NumPy's `ndarray.{n}` (and `numpy.{n}`), with NumPy's arguments; "
                "the result is a tensor, `out=` is written in place."
            )
        setattr(Tensor, n, f)
    for n, f in (("flatten", _flatten), ("sort", _sort_in_place), ("fill", _fill),
                 ("conj", _conj), ("conjugate", _conj)):
        setattr(Tensor, n, f)


def _conj(self: Any) -> Any:
    """The complex conjugate (a copy of the values, for real dtypes; bool
    stays bool, as NumPy's method, where the ufunc makes int8)."""
    if self.dtype == _dn.bool:
        return _dn.asarray(self, copy=True)
    return _dn.conj(self)

"""NumPy's reductions and statistics with NumPy's signatures (``sum``,
``mean``, ``std(ddof=)``, ``argmax``, ``cumsum``, ``average``,
``median``, ``quantile``, ...), each translated to donate's functions;
``_numpy_functions.py`` lists them for NEP 18 and the methods.
"""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

import donate as _dn  # the namespace; complete when this module loads (last in __init__)

from ._numpy_operands import (
    Tensor,
    _NoValue,
    _as_tensor,
    _axis_or_raveled,
    _cast,
    _donatable,
    _dtype,
    _dtype_of,
    _flag,
    _is,
    _flat,
    _ndim_of,
    _no,
    _raveled_0d,
    _reduced_axis,
    _refuse,
    _where_mask,
    _weak,
    _write_out,
)


def _given(where: Any, initial: Any) -> bool:
    """Whether a reduction was given `where=` or `initial=` (NumPy's "not
    given" is `_NoValue`, `True` for `where` and `None` for `initial`;
    compared by identity, an array never with `==`)."""
    return not (_is(where, _NoValue, True) and _is(initial, _NoValue, None))


# A reduction -> (NumPy's ufunc, donate's reduction, whether it takes
# `dtype`, the identity masked elements contribute or None).
_MASKED = {
    "sum": (np.add, "sum", True, 0),
    "prod": (np.multiply, "prod", True, 1),
    "max": (np.maximum, "max", False, None),
    "min": (np.minimum, "min", False, None),
    "any": (np.logical_or, "any", False, False),
    "all": (np.logical_and, "all", False, True),
}


def _initial_value(ufunc: np.ufunc, x: Any, dtype: Any, initial: Any) -> Any:
    """`initial` in the reduction's dtype, converted as NumPy converts it
    (a float truncated for integers, `OverflowError` out of range): NumPy's
    own reduction of nothing, which is `initial` itself."""
    if isinstance(initial, (Tensor, _dn.Donated)):
        initial = np.asarray(_as_tensor(initial))
    return ufunc.reduce(np.empty((0,), _dtype_of(x)), dtype=_dtype(dtype), initial=initial)


def masked(name: str, a: Any, axis: Any, dtype: Any, out: Any, keepdims: Any,
           initial: Any, where: Any) -> Any:
    """NumPy's reduction `name` with `where=` (a mask broadcast into `a`'s
    shape: the elements where it is false contribute the identity) and
    `initial=` (the value the reduction starts from): the masked operand
    (`where(mask, x, identity)`) reduced by donate, combined with
    `initial` by the reduction's own operation. `max` and `min` have no
    identity: with `where=` they need `initial=`, which masked elements
    then contribute, as NumPy's."""
    ufunc, fname, takes_dtype, identity = _MASKED[name]
    axis = _reduced_axis(a, axis)
    if axis is not None:  # NumPy's AxisError before any other
        normalize_axis_tuple(axis, _ndim_of(a))
    keepdims = _flag(keepdims)
    has_initial = not _is(initial, _NoValue, None)
    init = _initial_value(ufunc, a, dtype, initial) if has_initial else None
    x = _cast(a, dtype)  # a read: several steps follow
    if not isinstance(x, Tensor):
        x = _as_tensor(x)
    if not _is(where, _NoValue, True):
        if identity is None and init is None:
            raise ValueError(
                f"reduction operation '{ufunc.__name__}' does not have an identity, "
                "so to use a where mask one has to specify 'initial'"
            )
        mask = _dn.broadcast_to(_where_mask(where), x.shape)
        fill: Any = init if identity is None else identity
        x = _dn.where(mask, x, fill)
    f = getattr(_dn, fname)
    if init is not None and x.size == 0:
        # Nothing reduced: `initial` itself, in the result's shape.
        shape = np.add.reduce(np.zeros(x.shape, bool), axis=axis, keepdims=keepdims).shape
        return _write_out(name, out, _dn.full(shape, init.item(), dtype=init.dtype))
    # A float16/float32 sum or product with `initial=` is reduced and
    # combined in float64 (complex128), then rounded once: NumPy starts
    # from `initial`, so a partial result that overflows the narrow dtype
    # on its own (`prod([300, 300], initial=0.5)` in float16) is finite.
    narrow = init is not None and name in ("sum", "prod") and init.dtype.kind in "fc" \
        and init.dtype.itemsize < (16 if init.dtype.kind == "c" else 8)
    acc = (np.complex128 if init.dtype.kind == "c" else np.float64) if narrow else dtype
    r = f(x, axis=axis, keepdims=keepdims, **({"dtype": _dtype(acc)} if takes_dtype else {}))
    if init is not None:
        r = getattr(_dn, {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
                          "any": "logical_or", "all": "logical_and"}[name])(
            r, init.astype(acc) if narrow else init)
        if narrow:
            r = _dn.astype(r, _dtype(init.dtype))
    return _write_out(name, out, r)


def sum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
        keepdims: bool = False, initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    if _given(where, initial):
        return masked("sum", a, axis, dtype, out, keepdims, initial, where)
    r = _dn.sum(_donatable(a, out), axis=_reduced_axis(a, axis), dtype=_dtype(dtype), keepdims=_flag(keepdims))
    return _write_out("sum", out, r)


def prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False, initial: Any = _NoValue, where: Any = _NoValue) -> Any:
    if _given(where, initial):
        return masked("prod", a, axis, dtype, out, keepdims, initial, where)
    r = _dn.prod(_donatable(a, out), axis=_reduced_axis(a, axis), dtype=_dtype(dtype), keepdims=_flag(keepdims))
    return _write_out("prod", out, r)


def _computed_in(a: Any, dtype: Any) -> Any:
    """The dtype NumPy's `mean`, `var` and `std` compute in
    (`numpy._core._methods`): `dtype=`, else float64 for bool and integer
    data, else (None) the data's own."""
    if dtype is not None:
        return np.dtype(dtype)
    dt = _dtype_of(a)
    return np.dtype(np.float64) if dt == np.bool_ or np.issubdtype(dt, np.integer) else None


def _statistic_operand(a: Any, dt: Any, out: Any) -> Any:
    """`a` in the dtype computed in: cast (a read), or the operand itself
    for the one donate call when it already has that dtype."""
    return _donatable(a, out) if dt is None or dt == _dtype_of(a) else _cast(a, dt)


def mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
         keepdims: bool = False, *, where: Any = _NoValue) -> Any:
    dt = _computed_in(a, dtype)
    masked_mean = not _is(where, _NoValue, True)
    if masked_mean:
        # NumPy's `_mean` with `where=`: the masked sum divided by the
        # count of true elements of the mask (NaN where there are none).
        x = _as_tensor(a) if dt is None else _cast(a, dt)
        mask = _dn.broadcast_to(_where_mask(where), x.shape)
        # (float16 summed in float32, as NumPy's mean, then rounded once.)
        acc = _dn.float32 if x.dtype == _dn.float16 else x.dtype
        s = _dn.sum(_dn.where(mask, x, 0), axis=axis, keepdims=_flag(keepdims), dtype=acc)
        count = _dn.sum(mask, axis=axis, keepdims=_flag(keepdims))
        r = _dn.astype(_dn.divide(s, count), x.dtype)
    else:
        # (An integer `dtype=` truncates the mean, as NumPy's `_mean`.)
        r = _dn.mean(_donatable(a, out), axis=axis, dtype=dt, keepdims=_flag(keepdims))
    return _write_out("mean", out, r)


def _extreme(name: str) -> Callable[..., Any]:
    """`max`, `min`, `any`, `all`: NumPy's signature of `max` (`any` and
    `all` have no `initial` in NumPy: refused)."""
    f = getattr(_dn, name)

    def extreme(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False,
                initial: Any = _NoValue, where: Any = _NoValue) -> Any:
        if name in ("any", "all"):
            _no(name, initial=initial)
        if _given(where, initial):
            return masked(name, a, axis, None, out, keepdims, initial, where)
        r = f(_donatable(a, out), axis=_reduced_axis(a, axis), keepdims=_flag(keepdims))
        return _write_out(name, out, r)

    extreme.__name__ = extreme.__qualname__ = name
    return extreme


max = _extreme("max")
min = _extreme("min")
any = _extreme("any")
all = _extreme("all")


def _spread(name: str) -> Callable[..., Any]:
    f = getattr(_dn, name)

    def spread(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
               ddof: float = 0, keepdims: bool = False, *, where: Any = _NoValue,
               mean: Any = _NoValue, correction: Any = _NoValue) -> Any:
        _no(name, where=where, mean=mean)
        if correction is not _NoValue and ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        c = ddof if correction is _NoValue else correction
        dt = _computed_in(a, dtype)
        if dt is not None and not np.issubdtype(dt, np.inexact):
            raise _refuse(name, "an integer dtype=")
        x = _statistic_operand(a, dt, out)
        try:
            axes = range(x.ndim) if axis is None else normalize_axis_tuple(axis, x.ndim)
        except (TypeError, ValueError):
            axes = ()  # (donate's function names the bad axis)
        n = int(np.prod([x.shape[i] for i in axes]))
        if n > 0 and n - float(c) <= 0:
            # NumPy's: the sum of squares over max(N - ddof, 0), so inf
            # (NaN of constant data), with its warning; donate's own is
            # NaN, the standard's.
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
            r = f(x, axis=axis, correction=float(n - 1), keepdims=_flag(keepdims)) / 0.0
        else:
            r = f(x, axis=axis, correction=float(c), keepdims=_flag(keepdims))
        # (NumPy's `std` ends in `sqrt`, a ufunc: same_kind into `out`.)
        return _write_out(name, out, r, "same_kind" if name == "std" else "unsafe")

    spread.__name__ = spread.__qualname__ = name
    return spread


std = _spread("std")
var = _spread("var")


def _index_out(name: str, out: Any) -> Any:
    """`out=` of NumPy's `argmax`/`argmin`: an array NumPy's index dtype
    (intp) casts to safely (`int32`, `uint8`, `bool`; not a float)."""
    o = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if o is not None and not np.can_cast(np.dtype(o.dtype), np.intp, "safe"):
        raise TypeError(f"numpy.{name}: the out= array's {o.dtype} cannot be safely cast "
                        f"to the index dtype {np.dtype(np.intp)}")
    return out


def _arg(name: str) -> Callable[..., Any]:
    f = getattr(_dn, name)

    def arg(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        if _raveled_0d(a, axis):
            # Raveled (its one index, 0-d with or without keepdims), as NumPy's.
            return _write_out(name, _index_out(name, out), f(_flat(a), axis=axis))
        r = f(_donatable(a, out), axis=axis, keepdims=_flag(keepdims))
        return _write_out(name, _index_out(name, out), r)

    arg.__name__ = arg.__qualname__ = name
    return arg


argmax = _arg("argmax")
argmin = _arg("argmin")


def _running(name: str, fname: str) -> Callable[..., Any]:
    f = getattr(_dn, fname)

    def running(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        x, axis = _axis_or_raveled(a, axis)
        return _write_out(name, out, f(x, axis=axis, dtype=_dtype(dtype)))

    running.__name__ = running.__qualname__ = name
    return running


cumsum = _running("cumsum", "cumulative_sum")
cumprod = _running("cumprod", "cumulative_prod")


def count_nonzero(a: Any, axis: Any = None, *, keepdims: bool = False) -> Any:
    return _dn.count_nonzero(_donatable(a, None), axis=_reduced_axis(a, axis),
                             keepdims=_flag(keepdims))


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: Any = _NoValue) -> Any:
    x = _as_tensor(a)
    keepdims = _flag(keepdims)
    if weights is None:
        avg = mean(x, axis=axis, keepdims=keepdims)
        scl = _dn.full_like(avg, x.size // builtins.max(avg.size, 1) if x.size else 0)
    else:
        w = _as_tensor(weights)
        # NumPy's: the common dtype, at least float64 for integer data.
        dt = np.result_type(np.dtype(str(x.dtype)), np.dtype(str(w.dtype)),
                            *((np.float64,) if x.dtype.kind in "biu" else ()))
        if w.shape != x.shape:
            if axis is None:
                raise TypeError("average: weights of another shape than a need axis=")
            if w.ndim != 1 or not isinstance(axis, int) or w.shape[0] != x.shape[axis]:
                raise ValueError("average: 1-D weights must have the length of a along axis")
            shape = [1] * x.ndim
            shape[axis] = w.shape[0]
            w = _dn.reshape(w, tuple(shape))
        w = _dn.astype(w, dt)
        scl = _dn.sum(_dn.broadcast_to(w, x.shape), axis=axis, keepdims=keepdims)
        if bool(_dn.any(_dn.equal(scl, 0))):
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        avg = _dn.divide(_dn.sum(_dn.multiply(_dn.astype(x, dt), w), axis=axis, keepdims=keepdims), scl)
    if returned:
        return avg, _dn.broadcast_to(_dn.astype(scl, avg.dtype), avg.shape)
    return avg


def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    x = _as_tensor(a)
    axis = _reduced_axis(x, axis)
    keepdims = _flag(keepdims)
    r = _dn.subtract(_dn.max(x, axis=axis, keepdims=keepdims), _dn.min(x, axis=axis, keepdims=keepdims))
    return _write_out("ptp", out, r, "same_kind")  # (`subtract`, a ufunc)


def _quantiles(name: str, a: Any, q: Any, method: Any, weights: Any,
               interpolation: Any) -> tuple[Any, np.ndarray]:
    """`quantile`'s checks, and the data in the dtype it is computed in."""
    if not _is(method, "linear") or weights is not None or interpolation is not None:
        raise _refuse(name, "a method other than 'linear', or weights=")
    qs = np.asarray(q, dtype=np.float64)
    if not np.all((qs >= 0) & (qs <= 1)):  # (NaN too, as NumPy's)
        raise ValueError(f"{name}: quantiles must be in the range [0, 1]")
    x = _as_tensor(a)
    if x.dtype == np.bool_ and not name.endswith("median"):
        # NumPy's interpolation subtracts bools (its median takes a mean).
        raise TypeError(f"numpy.{name}: the quantiles of bool data are not defined (NumPy's "
                        "interpolation subtracts bools); cast the data with astype first")
    if _dn.isdtype(x.dtype, "integral") or x.dtype == np.bool_:
        # float64, or the dtype an array of quantiles promotes with the
        # integers (float32 `q` of int8 data is float32, as NumPy's).
        x = _dn.astype(x, _dn.float64 if _weak(q) else np.result_type(x.dtype, np.asarray(q).dtype))
    elif not _weak(q):
        # An array of quantiles, or a NumPy scalar (`np.float64(0.5)`),
        # promotes with the data (NEP 50), a Python number does not.
        x = _dn.astype(x, np.result_type(x.dtype, np.asarray(q).dtype), copy=False)
    return x, qs


def lanes(name: str, x: Any, axis: Any) -> tuple[Any, list[int], tuple[int, ...]]:
    """`x` with the reduced axes moved last and merged into one lane per
    kept position; the kept and the reduced axes."""
    axes = tuple(range(x.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    axes = tuple(builtins.sorted(normalize_axis_tuple(axes, x.ndim)))
    rest = [i for i in range(x.ndim) if i not in axes]
    x = _dn.permute_dims(x, tuple(rest + list(axes)))
    n = 1
    for ax in axes:
        n *= int(x.shape[len(rest) + axes.index(ax)])
    if n == 0:
        raise ValueError(f"{name}: cannot take a quantile of an empty slice")
    return _dn.reshape(x, tuple(x.shape[: len(rest)]) + (n,)), rest, axes


def lerp(a_lo: Any, a_hi: Any, t: Any) -> Any:
    """NumPy's lerp: from the nearer end, so that `t = 1` gives `a_hi`
    exactly (`t` a number or a tensor)."""
    diff = _dn.subtract(a_hi, a_lo)
    if isinstance(t, float):
        return _dn.subtract(a_hi, _dn.multiply(diff, 1 - t)) if t >= 0.5 else _dn.add(a_lo, _dn.multiply(diff, t))
    return _dn.where(t >= 0.5, _dn.subtract(a_hi, _dn.multiply(diff, 1 - t)), _dn.add(a_lo, _dn.multiply(diff, t)))


def gathered(name: str, results: list[Any], qs: np.ndarray, rest: list[int], axes: tuple[int, ...],
             keepdims: bool, out: Any) -> Any:
    """One result per quantile, shaped as NumPy's (`keepdims`: the reduced
    axes kept as 1; an array of quantiles: its axes first)."""
    if keepdims:
        shaped = []
        for r in results:
            it = iter(r.shape)
            shaped.append(_dn.reshape(r, tuple(1 if i in axes else next(it)
                                               for i in range(len(rest) + len(axes)))))
        results = shaped
    # (No quantiles at all: `results` holds one, for its shape and dtype.)
    r = results[0] if qs.ndim == 0 else _dn.reshape(_dn.stack(results)[:qs.size],
                                                    qs.shape + tuple(results[0].shape))
    # NumPy's `quantile` interpolates with ufuncs writing into `out`
    # (same_kind, broadcast into it), `nanquantile`/`nanmedian` assign
    # into it (unsafe, broadcast), `median` writes its mean (unsafe, the
    # result's shape).
    return _write_out(name, out, r, "same_kind" if name == "quantile" else "unsafe",
                      broadcast=name != "median")


def quantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, *, weights: Any = None,
             interpolation: Any = None) -> Any:
    """NumPy's `quantile` with its default `linear` method: the sorted
    values along `axis` interpolated at `q * (n - 1)`; NaN where a slice
    holds NaN, as NumPy's."""
    x, qs = _quantiles("quantile", a, q, method, weights, interpolation)
    x, rest, axes = lanes("quantile", x, axis)
    n = int(x.shape[-1])
    xs = _dn.sort(x, axis=-1)
    nan = _dn.any(_dn.isnan(x), axis=-1) if _dn.isdtype(x.dtype, "real floating") else None
    results = []
    for qi in qs.reshape(-1).tolist() or [0.0]:
        pos = qi * (n - 1)
        lo = int(np.floor(pos))
        hi = builtins.min(lo + 1, n - 1)
        r = lerp(xs[..., lo], xs[..., hi], pos - lo)
        results.append(r if nan is None else _dn.where(nan, float("nan"), r))
    return gathered("quantile", results, qs, rest, axes, _flag(keepdims), out)


def percentile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               method: str = "linear", keepdims: bool = False, *, weights: Any = None,
               interpolation: Any = None) -> Any:
    q = _percent(a, q)
    return quantile(a, q, axis=axis, out=out, method=method,
                    keepdims=keepdims, weights=weights, interpolation=interpolation)


def _percent(a: Any, q: Any) -> Any:
    """`percentile`'s `q` as quantiles, as NumPy's: a Python number stays
    one; NumPy data is divided by 100 in the data's float dtype (a float32
    `q` of float32 or integer data stays float32)."""
    if _weak(q):
        return q / 100
    dt = _dtype_of(a)
    return np.true_divide(np.asarray(q), dt.type(100) if dt.kind == "f" else 100)


def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    x = _as_tensor(a)
    axes = tuple(range(x.ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    if builtins.any(x.shape[i] == 0 for i in normalize_axis_tuple(axes, x.ndim)):
        # NumPy's median of nothing: the mean of an empty slice, NaN with
        # a RuntimeWarning (its quantile raises instead).
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
        if not _dn.isdtype(x.dtype, ("real floating", "complex floating")):
            x = _dn.astype(x, _dn.float64)
        return _write_out("median", out, _dn.mean(x, axis=axis, keepdims=_flag(keepdims)))
    # NumPy's median is the middle value, or the mean of the two middle
    # ones, not an interpolation (which makes NaN of `inf * 0` where a
    # slice holds an infinity); NaN where a slice holds NaN.
    x, qs = _quantiles("median", x, 0.5, "linear", None, None)
    x, rest, axes = lanes("median", x, axis)
    n = int(x.shape[-1])
    xs = _dn.sort(x, axis=-1)
    r = middle(xs[..., (n - 1) // 2], xs[..., n // 2], n % 2 == 1)
    if _dn.isdtype(x.dtype, "real floating"):
        r = _dn.where(_dn.any(_dn.isnan(x), axis=-1), float("nan"), r)
    return gathered("median", [r], qs, rest, axes, _flag(keepdims), out)


def middle(lo: Any, hi: Any, one: Any) -> Any:
    """A median from the two middle values of a sorted slice: `lo` where
    there is one (`one`, a bool or a bool tensor: an odd count), else the
    mean of the two, computed as NumPy's `mean` (float16 in float32)."""
    if one is True:
        return lo
    mean = _dn.mean(_dn.stack([lo, hi], axis=-1), axis=-1)
    return mean if one is False else _dn.where(one, lo, mean)

"""NumPy's reductions that ignore NaNs (``nansum``, ``nanprod``,
``nanmean``, ``nanmax``, ``nanmin``, ``nanvar``, ``nanstd``), with NumPy's
signatures and NumPy's definitions (``numpy/lib/_nanfunctions_impl.py``):
each NaN is replaced by the reduction's identity, a mean or spread is
taken over the count of the other elements, a slice of NaNs only gives
NaN with NumPy's ``RuntimeWarning``. Composed of donate's functions, so
their dtypes, shapes and donations are the core's; integer and bool data
have no NaNs and go to the plain reduction, as NumPy's do.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import donate as _dn  # the namespace; complete when this module loads (last in __init__)

from . import _numpy_reductions as _red
from ._numpy_operands import (
    _NoValue,
    _as_tensor,
    _cast,
    _dtype_of,
    _flag,
    _no,
    _reduced_axis,
    _write_out,
)


def _inexact(a: Any) -> bool:
    return np.issubdtype(_dtype_of(a), np.inexact)


def _replaced(x: Any, value: float) -> tuple[Any, Any]:
    """Tensor `x` with its NaNs replaced by `value`, and the NaN mask."""
    mask = _dn.isnan(x)
    return _dn.where(mask, value, x), mask


def _warn(message: str, x: Any, where: Any) -> None:
    """NumPy's `RuntimeWarning` if any element of the bool tensor `where`
    is true. A traced `x` (inside `donate.jit`) has no values to decide
    it: no warning; the result is the same NaN either way."""
    if not x._traced and bool(_dn.any(where)):
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def _identity(name: str, value: float) -> Callable[..., Any]:
    """`nansum`, `nanprod`: NumPy's `sum`/`prod` of the data with each NaN
    replaced by the identity."""
    plain = getattr(_red, name[3:])

    def f(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
          initial: Any = _NoValue, where: Any = _NoValue) -> Any:
        x = _replaced(_as_tensor(a), value)[0] if _inexact(a) else a
        return plain(x, axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"NumPy's `{name}`: the {name[3:]} of `a` over `axis` with each NaN counted as "
                 f"{value:g} (NumPy's keywords; a new tensor).")
    return f


nansum = _identity("nansum", 0.0)
nanprod = _identity("nanprod", 1.0)


def _extreme(name: str, fill: float) -> Callable[..., Any]:
    """`nanmax`, `nanmin`: the extreme of the other elements (NumPy's
    `fmax.reduce`); NaN with a `RuntimeWarning` for a slice of NaNs, a
    `ValueError` over no elements."""
    plain = getattr(_red, name[3:])

    def f(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False,
          initial: Any = _NoValue, where: Any = _NoValue) -> Any:
        if not _inexact(a):
            return plain(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)
        _no(name, initial=initial, where=where)
        x = _as_tensor(a)
        y, mask = _replaced(x, fill)
        ax, keep = _reduced_axis(a, axis), _flag(keepdims)
        r = plain(y, axis=ax, keepdims=keep)
        only_nan = _dn.all(mask, axis=ax, keepdims=keep)
        _warn("All-NaN slice encountered", x, only_nan)
        return _write_out(name, out, _dn.where(only_nan, float("nan"), r))

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"NumPy's `{name}`: the {'largest' if fill < 0 else 'smallest'} element of `a` over "
                 "`axis` that is not NaN; NaN with a RuntimeWarning for a slice of NaNs.")
    return f


nanmax = _extreme("nanmax", float("-inf"))
nanmin = _extreme("nanmin", float("inf"))


def _counted(x: Any, axis: Any, dtype: Any, keepdims: bool) -> tuple[Any, Any, Any, Any]:
    """Tensor `x` with NaNs as 0 (in `dtype` when given), its NaN mask,
    the sum over `axis` and the count of the other elements, as a float
    of the sum's real dtype (NumPy divides in the sum's dtype)."""
    y, mask = _replaced(x, 0.0)
    if dtype is not None:
        if not np.issubdtype(np.dtype(dtype), np.inexact):
            raise TypeError("If a is inexact, then dtype must be inexact")  # (NumPy's)
        y = _cast(y, dtype)
    total = _dn.sum(y, axis=axis, keepdims=keepdims)
    real = _dn.real(total).dtype if _dn.isdtype(total.dtype, "complex floating") else total.dtype
    count = _dn.astype(_dn.sum(_dn.logical_not(mask), axis=axis, keepdims=keepdims), real)
    return y, mask, total, count


# NumPy's `nanmean`, `nanvar`, `nanstd` of floats write only into a float
# (or complex) `out=`: a float result into it as same_kind casting allows.
_INEXACT_OUT = "same_kind"


def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False,
            *, where: Any = _NoValue) -> Any:
    """NumPy's `nanmean`: the mean of the elements of `a` over `axis` that
    are not NaN; NaN with a RuntimeWarning where there are none."""
    if not _inexact(a):
        return _red.mean(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where)
    _no("nanmean", where=where)
    x = _as_tensor(a)
    _, _, total, count = _counted(x, _reduced_axis(a, axis), dtype, _flag(keepdims))
    _warn("Mean of empty slice", x, count == 0)
    return _write_out("nanmean", out, _dn.divide(total, count), _INEXACT_OUT)


def _spread(name: str) -> Callable[..., Any]:
    """`nanvar`, `nanstd`: the spread of the other elements around their
    mean, divided by their count less `ddof`; NaN (and a `RuntimeWarning`)
    where that is not positive."""
    plain = getattr(_red, name[3:])

    def f(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: float = 0,
          keepdims: bool = False, *, where: Any = _NoValue, mean: Any = _NoValue,
          correction: Any = _NoValue) -> Any:
        if not _inexact(a):
            return plain(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                         where=where, mean=mean, correction=correction)
        _no(name, where=where, mean=mean)
        c = float(ddof if correction is _NoValue else correction)
        ax, keep = _reduced_axis(a, axis), _flag(keepdims)
        x = _as_tensor(a)
        y, mask, total, count = _counted(x, ax, dtype, True)
        d = _dn.where(mask, 0.0, _dn.subtract(y, _dn.divide(total, count)))
        square = _dn.real(_dn.multiply(d, _dn.conj(d))) if _dn.isdtype(d.dtype, "complex floating") \
            else _dn.multiply(d, d)
        dof = _dn.subtract(count if keep else _dn.squeeze(count, _squeezed(ax, count.ndim)), c)
        bad = dof <= 0
        _warn("Degrees of freedom <= 0 for slice.", x, bad)
        v = _dn.where(bad, float("nan"), _dn.divide(_dn.sum(square, axis=ax, keepdims=keep), dof))
        return _write_out(name, out, _dn.sqrt(v) if name == "nanstd" else v, _INEXACT_OUT)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"NumPy's `{name}`: the {'variance' if name == 'nanvar' else 'standard deviation'} "
                 "of the elements of `a` over `axis` that are not NaN, over their count less "
                 "`ddof`; NaN with a RuntimeWarning where that is not positive.")
    return f


def _squeezed(axis: Any, ndim: int) -> tuple[int, ...]:
    """The axes a reduction over `axis` kept as 1 (`keepdims=True`)."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(int(a) % ndim for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis))


nanvar = _spread("nanvar")
nanstd = _spread("nanstd")


def _running(name: str, value: float) -> Callable[..., Any]:
    """`nancumsum`, `nancumprod`: NumPy's `cumsum`/`cumprod` with each NaN
    counted as the identity."""
    plain = getattr(_red, name[3:])

    def f(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        x = _replaced(_as_tensor(a), value)[0] if _inexact(a) else a
        return plain(x, axis=axis, dtype=dtype, out=out)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"NumPy's `{name}`: the running {name[6:]} of `a` with each NaN counted as {value:g}."
    return f


nancumsum = _running("nancumsum", 0.0)
nancumprod = _running("nancumprod", 1.0)


def _arg_extreme(name: str, fill: float) -> Callable[..., Any]:
    """`nanargmax`, `nanargmin`: the index of the extreme of the other
    elements; NumPy's `ValueError` for a slice of NaNs."""
    plain = getattr(_red, name[3:])

    def f(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        if not _inexact(a):
            return plain(a, axis=axis, out=out, keepdims=keepdims)
        x = _as_tensor(a)
        y, mask = _replaced(x, fill)
        if not x._traced and bool(_dn.any(_dn.all(mask, axis=_reduced_axis(a, axis)))):
            raise ValueError("All-NaN slice encountered")
        return plain(y, axis=axis, out=out, keepdims=keepdims)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"NumPy's `{name}`: the index of the {'largest' if fill < 0 else 'smallest'} element "
                 "of `a` over `axis` that is not NaN; ValueError for a slice of NaNs.")
    return f


nanargmax = _arg_extreme("nanargmax", float("-inf"))
nanargmin = _arg_extreme("nanargmin", float("inf"))


def nanquantile(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                method: str = "linear", keepdims: bool = False, *, weights: Any = None,
                interpolation: Any = None) -> Any:
    """NumPy's `nanquantile` with its `linear` method: each slice's values
    that are not NaN, sorted, interpolated at `q * (count - 1)`; NaN with a
    RuntimeWarning for a slice of NaNs."""
    if not _inexact(a) or _dtype_of(a).kind == "c":
        return _red.quantile(a, q, axis=axis, out=out, method=method, keepdims=keepdims,
                             weights=weights, interpolation=interpolation)
    x, qs = _red._quantiles("nanquantile", a, q, method, weights, interpolation)
    if x.size == 0:
        # NumPy's of no data at all: `nanmean`'s answer (NaN, "Mean of
        # empty slice"), whatever `q`.
        return nanmean(a, axis=axis, out=out, keepdims=keepdims)
    x, rest, axes = _red.lanes("nanquantile", x, axis)
    xs = _dn.sort(x, axis=-1)  # NaNs last
    count = _dn.sum(_dn.logical_not(_dn.isnan(x)), axis=-1, dtype=_dn.int64)
    none = count == 0
    _warn("All-NaN slice encountered", x, none)
    last = _dn.astype(_dn.maximum(count - 1, 0), _dn.float64)
    results = []
    for qi in qs.reshape(-1).tolist() or [0.0]:
        pos = last * qi
        lo = _dn.floor(pos)
        hi = _dn.minimum(lo + 1, last)
        at = [_dn.take_along_axis(xs, _dn.expand_dims(_dn.astype(i, _dn.int64), axis=-1),
                                  axis=-1)[..., 0] for i in (lo, hi)]
        r = _red.lerp(at[0], at[1], _dn.astype(pos - lo, x.dtype))
        results.append(_dn.where(none, float("nan"), r))
    return _red.gathered("nanquantile", results, qs, rest, axes, _flag(keepdims), out)


def nanpercentile(a: Any, q: Any, axis: Any = None, out: Any = None,
                  overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
                  *, weights: Any = None, interpolation: Any = None) -> Any:
    """NumPy's `nanpercentile`: `nanquantile` at `q / 100`."""
    q = _red._percent(a, q)
    return nanquantile(a, q, axis=axis, out=out, method=method, keepdims=keepdims,
                       weights=weights, interpolation=interpolation)


def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    """NumPy's `nanmedian`: the median of each slice's values that are
    not NaN (the middle one, or the mean of the two middle ones); NaN with
    a RuntimeWarning for a slice of NaNs."""
    if not _inexact(a) or _dtype_of(a).kind == "c":
        return _red.median(a, axis=axis, out=out, keepdims=keepdims)
    x, qs = _red._quantiles("nanmedian", a, 0.5, "linear", None, None)
    if x.size == 0:
        # NumPy's of no data at all: `nanmean`'s answer (NaN, "Mean of
        # empty slice"), whatever `q`.
        return nanmean(a, axis=axis, out=out, keepdims=keepdims)
    x, rest, axes = _red.lanes("nanmedian", x, axis)
    xs = _dn.sort(x, axis=-1)  # NaNs last
    count = _dn.sum(_dn.logical_not(_dn.isnan(x)), axis=-1, dtype=_dn.int64)
    none = count == 0
    _warn("All-NaN slice encountered", x, none)
    last = _dn.maximum(count - 1, 0)
    at = [_dn.take_along_axis(xs, _dn.expand_dims(i, axis=-1), axis=-1)[..., 0]
          for i in (last // 2, (last + 1) // 2)]
    r = _red.middle(at[0], at[1], last % 2 == 0)
    return _red.gathered("nanmedian", [_dn.where(none, float("nan"), r)], qs, rest, axes,
                         _flag(keepdims), out)

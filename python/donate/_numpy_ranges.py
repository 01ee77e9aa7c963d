"""NumPy's evenly spaced sequences on tensors: `np.linspace`, `np.logspace`
and `np.geomspace`, with NumPy's whole signature (array endpoints, which
make one sequence per element along a new `axis`; `endpoint`,
`retstep`, `base`, `dtype`). Translation only: NumPy's own steps
(`arange(num) * step + start`, the last value set to `stop`) in donate's
arithmetic, so the values are NumPy's.

`donate.linspace` itself is the array API's (Python numbers for `start`
and `stop`); `np.linspace(t0, t1)` comes here.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import _as_tensor, _dtype, _weak, _weak_or_dtype

NAMES = ["linspace", "logspace", "geomspace"]


def _operands(*xs: Any) -> list[Any]:
    """The endpoints as tensors of their NumPy dtypes (Python numbers are
    weak, as in NumPy's `result_type`)."""
    return [_as_tensor(x) for x in xs]


def _result_dtype(*xs: Any, extra: Any = None) -> np.dtype[Any]:
    """NumPy's `result_type(start, stop, float(num))`: inexact."""
    dt = np.result_type(*(_weak_or_dtype(x) for x in xs), 1.0 if extra is None else extra)
    return dt


def linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True, retstep: bool = False,
             dtype: Any = None, axis: int = 0, *, device: Any = None) -> Any:
    """NumPy's `linspace`: `num` values from `start` to `stop` (array
    endpoints give a sequence per element, along a new `axis`), with the
    step when `retstep`."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    dt = _result_dtype(start, stop)
    want = _dtype(dtype) or dt
    s, e = (_dn.astype(t, dt, copy=False) for t in _operands(start, stop))
    s, e = _dn.broadcast_arrays(s, e)
    delta = e - s
    nd = delta.ndim
    y = _dn.reshape(_dn.arange(0, num, dtype=dt), (-1,) + (1,) * nd)
    if div > 0:
        step = delta / div
        if bool(_dn.any(step == 0)):  # NumPy's: denormal steps
            y = (y / div) * delta
        else:
            y = y * step
    else:
        step = _dn.full(delta.shape, math.nan, dtype=dt)
        y = y * delta
    y = y + s
    if endpoint and num > 1:
        y = _dn.concat([y[:-1], _dn.expand_dims(e, axis=0)], axis=0)
    if axis != 0:
        y = _dn.moveaxis(y, 0, axis)
    if np.issubdtype(want, np.integer):
        y = _dn.floor(y)
    y = _dn.astype(y, want, copy=False)
    if retstep:
        return y, (step if step.ndim else step.item())
    return y


def logspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True, base: Any = 10.0,
             dtype: Any = None, axis: int = 0) -> Any:
    """NumPy's `logspace`: `base ** linspace(start, stop)`; a scalar
    `base` is used as it is (a Python number weak: float32 ends stay
    float32), an array one broadcast with the ends first."""
    if isinstance(base, (float, int)) or np.ndim(base) == 0:
        y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
        r = _dn.pow(base if _weak(base) else _as_tensor(base), y)
        return r if dtype is None else _dn.astype(r, _dtype(dtype), copy=False)
    ndmax = np.broadcast(*(np.empty(_as_tensor(v).shape) for v in (start, stop, base))).ndim
    s, e, b = (_dn.reshape(t, (1,) * (ndmax - t.ndim) + t.shape)
               for t in _operands(start, stop, base))
    y = linspace(s, e, num=num, endpoint=endpoint, axis=axis)
    r = _dn.pow(_dn.expand_dims(b, axis=axis), y)
    return r if dtype is None else _dn.astype(r, _dtype(dtype), copy=False)


def geomspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True, dtype: Any = None,
              axis: int = 0) -> Any:
    """NumPy's `geomspace`: `num` values in geometric progression from
    `start` to `stop`, both ends exact."""
    s, e = _operands(start, stop)
    if bool(_dn.any(s == 0)) or bool(_dn.any(e == 0)):
        raise ValueError("Geometric sequence cannot include zero")
    # NumPy's `result_type(start, stop, float(num), zeros((), dtype))`: at
    # least float64 unless `dtype=` says otherwise.
    dt = np.result_type(_result_dtype(start, stop, extra=float(operator.index(num))),
                        np.zeros((), _dtype(dtype)))
    want = _dtype(dtype) or dt
    s, e = _dn.astype(s, dt), _dn.astype(e, dt)
    sign = _dn.sign(s)
    s, e = s / sign, e / sign
    r = logspace(_dn.log10(s), _dn.log10(e), num=num, endpoint=endpoint, base=10.0)
    r = _dn.astype(r, dt, copy=False)
    n = r.shape[0]
    if n > 0:
        first = _dn.expand_dims(_dn.broadcast_to(s, r.shape[1:]), axis=0)
        parts = [first, r[1:]]
        if n > 1 and endpoint:
            parts = [first, r[1:-1], _dn.expand_dims(_dn.broadcast_to(e, r.shape[1:]), axis=0)]
        r = _dn.concat(parts, axis=0)
    r = r * sign
    if axis != 0:
        r = _dn.moveaxis(r, 0, axis)
    return _dn.astype(r, want, copy=False)

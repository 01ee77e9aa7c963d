"""NumPy's comparisons of whole arrays on tensors: `isclose`, `allclose`
(NumPy's definition: `y` in its float dtype, an infinity close only to
itself), `array_equal` and `array_equiv` (broadcasting shapes). Translation
only: compositions of donate's functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import _as_tensor


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    # NumPy's definition: `y` in its float dtype (`result_type(y, 1.0)`),
    # a finite `y` within the tolerance, or equal (infinities of one sign).
    x, y = _as_tensor(a), _as_tensor(b)
    if y.dtype.kind in "biu":
        y = _dn.astype(y, np.result_type(y.dtype, 1.0))
    if x.dtype == np.bool_:
        x = _dn.astype(x, y.dtype)
    close = _dn.less_equal(_dn.abs(_dn.subtract(x, y)), atol + rtol * _dn.abs(y))
    close = _dn.logical_or(_dn.logical_and(close, _dn.isfinite(y)), _dn.equal(x, y))
    if equal_nan:
        close = _dn.logical_or(close, _dn.logical_and(_dn.isnan(x), _dn.isnan(y)))
    return close


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(_dn.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> bool:
    x, y = _as_tensor(a1), _as_tensor(a2)
    if x.shape != y.shape:
        return False
    same = _dn.equal(x, y)
    if equal_nan:
        same = _dn.logical_or(same, _dn.logical_and(_dn.isnan(x), _dn.isnan(y)))
    return bool(_dn.all(same))


def array_equiv(a1: Any, a2: Any) -> bool:
    x, y = _as_tensor(a1), _as_tensor(a2)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        return False
    return bool(_dn.all(x == y))


NAMES = ["isclose", "allclose", "array_equal", "array_equiv"]

"""NumPy's creation functions on tensors: the `*_like` functions of a
tensor, and the ones NEP 35 sends here when given `like=` a tensor
(`np.zeros(3, like=t)`, `np.array([0.1], like=t)`, `np.arange`, `np.eye`,
...). They make tensors with NumPy's dtypes: the caller asked NumPy (and
libraries such as Dask build their operands this way), so a Python float
is float64 here, not donate's float32 default.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import Tensor, _as_tensor, _dtype, _dtype_of

NAMES = ["zeros_like", "ones_like", "empty_like", "full_like", "arange", "zeros", "ones",
         "empty", "full", "eye", "identity", "tri", "asarray", "array"]


def _like(name: str, fill: Callable[..., Any]) -> Callable[..., Any]:
    def like(a: Any, *args: Any, dtype: Any = None, order: str = "K", subok: bool = True,
             shape: Any = None, device: Any = None) -> Any:
        x = _as_tensor(a)
        shape = x.shape if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
        return fill(shape, *args, dtype=_dtype(dtype) or x.dtype)

    like.__name__ = like.__qualname__ = name
    return like


zeros_like = _like("zeros_like", _dn.zeros)
ones_like = _like("ones_like", _dn.ones)
empty_like = _like("empty_like", _dn.empty)


def full_like(a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: bool = True,
              shape: Any = None, *, device: Any = None) -> Any:
    x = _as_tensor(a)
    shape = x.shape if shape is None else ((shape,) if isinstance(shape, int) else tuple(shape))
    dt = _dtype(dtype) or np.dtype(x.dtype)
    if isinstance(fill_value, (Tensor, _dn.Donated, np.ndarray, list, tuple)):
        # An array of values: cast (unsafe, as NumPy's `copyto`) and
        # broadcast into the shape.
        v = _as_tensor(fill_value)
        return _dn.broadcast_to(_dn.astype(v, dt), shape).copy()
    # A scalar converted as NumPy's `full_like` converts it (`copyto` with
    # casting="unsafe": 5 into bool is True, -1 into uint8 OverflowError).
    v = np.empty((), dt)
    np.copyto(v, fill_value, casting="unsafe")
    return _dn.full(shape, v.item(), dtype=dt)


def _like_creation(name: str) -> Callable[..., Any]:
    f = getattr(_dn, name)

    def create(*args: Any, dtype: Any = None, like: Any = None, **kwargs: Any) -> Any:
        for k in ("order", "device"):
            kwargs.pop(k, None)
        if dtype is None:  # NumPy's: float64, or `full`'s fill value's
            fill = args[1] if len(args) > 1 else kwargs.get("fill_value")
            dtype = np.float64 if name != "full" else _dtype_of(fill)
        return f(*args, dtype=_dtype(dtype), **kwargs)

    create.__name__ = create.__qualname__ = name
    return create


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None, *,
           like: Any = None, device: Any = None) -> Any:
    if dtype is None:  # NumPy's: the bounds' common dtype
        dtype = np.result_type(*(_dtype_of(v) for v in (start, stop, step) if v is not None))
    return _dn.arange(start, stop, step, dtype=_dtype(dtype))


zeros = _like_creation("zeros")
ones = _like_creation("ones")
empty = _like_creation("empty")
full = _like_creation("full")


def eye(N: Any, M: Any = None, k: int = 0, dtype: Any = None, order: Any = "C", *,
        device: Any = None, like: Any = None) -> Any:
    return _dn.eye(N, M, k=k, dtype=_dtype(np.float64 if dtype is None else dtype))


def identity(n: Any, dtype: Any = None, *, like: Any = None) -> Any:
    return _dn.eye(n, dtype=_dtype(np.float64 if dtype is None else dtype))


def tri(N: Any, M: Any = None, k: int = 0, dtype: Any = None, *, like: Any = None) -> Any:
    dt = _dtype(np.float64 if dtype is None else dtype)
    return _dn.tril(_dn.ones((N, N if M is None else M), dtype=dt), k=k)


def _numpy_data(a: Any, dtype: Any) -> Any:
    """`a` with NumPy's dtype when it is not an array already (a list of
    Python floats is float64, as `np.asarray` makes it)."""
    if dtype is not None or isinstance(a, (_dn.Tensor, _dn.Donated, np.ndarray)) or \
            hasattr(a, "__array_namespace__") or hasattr(a, "__dlpack__"):
        return a, dtype
    return a, _dtype_of(a)


def asarray(a: Any, dtype: Any = None, order: Any = None, *, like: Any = None,
            copy: Any = None, device: Any = None) -> Any:
    a, dtype = _numpy_data(a, dtype)
    return _dn.asarray(a, dtype=_dtype(dtype), copy=copy)


def array(object: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K",
          subok: bool = False, ndmin: int = 0, like: Any = None) -> Any:
    object, dtype = _numpy_data(object, dtype)
    x = _dn.asarray(object, dtype=_dtype(dtype), copy=copy)
    if x.ndim < ndmin:
        x = _dn.reshape(x, (1,) * (ndmin - x.ndim) + tuple(x.shape))
    return x

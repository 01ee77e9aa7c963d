"""The array API standard's namespace (version 2024.12): the names that
only restate what donate already decides, as small helpers.

Operations, their dtypes and their donation rules are the core's
(``donate._core``, where ``astype``, ``permute_dims``, ``reshape`` and
``matrix_transpose`` take a ``Donated`` operand like every function);
this module adds ``any``/``all``, its dtype queries over
NumPy's dtype objects (``finfo``, ``iinfo``, ``isdtype``), the inspection
namespace and the constants. ``docs/array-api.md`` lists what is
supported and what is not.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as _np

from . import _core

__array_api_version__ = "2024.12"

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None

_DTYPE_NAMES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
_DTYPES = {n: _np.dtype(n) for n in _DTYPE_NAMES}


def _dtype(x: Any) -> _np.dtype:
    return _np.dtype(x.dtype if isinstance(x, _core.Tensor) else x)


class finfo:  # noqa: N801 (the standard's name)
    """Machine limits of a float dtype (or a float tensor's): NumPy's, as
    Python numbers."""

    def __init__(self, type: Any, /) -> None:  # noqa: A002
        f = _np.finfo(_dtype(type))
        self.bits: int = int(f.bits)
        self.eps: float = float(f.eps)
        self.max: float = float(f.max)
        self.min: float = float(f.min)
        self.smallest_normal: float = float(f.smallest_normal)
        self.dtype: _np.dtype = _np.dtype(f.dtype)

    def __repr__(self) -> str:
        return f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, dtype={self.dtype})"


def iinfo(type: Any, /) -> _np.iinfo:  # noqa: A002
    """Machine limits of an integer dtype (or an integer tensor's): NumPy's."""
    return _np.iinfo(_dtype(type))


_KINDS = {
    "bool": lambda d: d.kind == "b",
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": lambda d: d.kind in "iu",
    "real floating": lambda d: d.kind == "f",
    "complex floating": lambda d: d.kind == "c",
    "numeric": lambda d: d.kind in "iufc",
}


def isdtype(dtype: Any, kind: Any) -> bool:
    """Whether ``dtype`` is ``kind``: a dtype, one of the standard's kind
    names, or a tuple of either."""
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    d = _np.dtype(dtype)
    if isinstance(kind, str):
        try:
            return bool(_KINDS[kind](d))
        except KeyError:
            raise ValueError(f"unknown dtype kind {kind!r}; expected one of {sorted(_KINDS)}") from None
    return d == _np.dtype(kind)


class _Info:
    """The inspection namespace, ``donate.__array_namespace_info__()``."""

    def capabilities(self) -> dict[str, Any]:
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

    def default_device(self) -> str:
        return "cpu"

    def devices(self) -> list[str]:
        return ["cpu"]

    def default_dtypes(self, *, device: Any = None) -> dict[str, _np.dtype]:
        _core._check_device(device)
        # The core's default float (float32; docs/array-api.md).
        # complex64 beside the default float32, as the standard pairs them.
        complex_default = _DTYPES["complex64" if _core._DEFAULT_FLOAT == _DTYPES["float32"] else "complex128"]
        return {
            "real floating": _core._DEFAULT_FLOAT,
            "complex floating": complex_default,
            "integral": _DTYPES["int64"],
            "indexing": _DTYPES["int64"],
        }

    def dtypes(self, *, device: Any = None, kind: Any = None) -> dict[str, _np.dtype]:
        _core._check_device(device)
        return {n: d for n, d in _DTYPES.items() if kind is None or isdtype(d, kind)}


def __array_namespace_info__() -> _Info:
    """The array API's inspection namespace: ``capabilities()``,
    ``default_device()``, ``default_dtypes()``, ``devices()`` and
    ``dtypes()`` (the CPU, and the dtypes donate has)."""
    return _Info()


def _true_count(x: _core.Tensor, axis: int | tuple[int, ...] | None, keepdims: bool, negate: bool) -> _core.Tensor:
    """The number of true (or, ``negate``, false) elements of ``x`` along
    ``axis`` (an int, a tuple, or ``None`` for all)."""
    if negate:
        # (complex has no logical_not kernel: its truth value first)
        b = _core.logical_not(_core.astype(x, "bool") if x.dtype.kind == "c" else x)
    else:
        b = _core.astype(x, "bool")
    nd = b.ndim
    axes = range(nd) if axis is None else (axis,) if isinstance(axis, int) else axis
    norm = sorted({a + nd if a < 0 else a for a in axes}, reverse=True)
    if any_out_of_range := [a for a in norm if not 0 <= a < nd]:
        raise _core.AxisError(f"axis {any_out_of_range[0]} is out of bounds for a tensor of {nd} dimensions")
    r = b.astype("int64")
    for a in norm:
        r = _core.sum(r, axis=a, keepdims=True)
    if not keepdims:
        r = r.reshape(tuple(d for i, d in enumerate(r.shape) if i not in norm))
    return r


def any(x: _core.Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> _core.Tensor:  # noqa: A001
    """Whether any element along ``axis`` is true (false for no elements)."""
    return _core.greater(_true_count(x, axis, keepdims, negate=False), 0)


def all(x: _core.Tensor, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> _core.Tensor:  # noqa: A001
    """Whether every element along ``axis`` is true (true for no elements)."""
    return _core.equal(_true_count(x, axis, keepdims, negate=True), 0)

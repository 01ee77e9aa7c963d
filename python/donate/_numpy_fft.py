"""NEP 18 for ``numpy.fft``: NumPy's transforms on tensors, computed by
``donate.fft`` (NumPy's signatures: ``norm=None`` is ``"backward"``,
``out=`` is written as the other translations write it)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import fft as _fft
from ._numpy_operands import _donatable, _write_out

_ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
_MANY_AXES = ("fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2")


def _one_axis(name: str) -> Callable[..., Any]:
    f = getattr(_fft, name)

    def transform(a: Any, n: Any = None, axis: int = -1, norm: Any = None, out: Any = None) -> Any:
        r = f(_donatable(a, out), n=n, axis=axis, norm="backward" if norm is None else norm)
        return _write_out(f"fft.{name}", out, r)

    transform.__name__ = transform.__qualname__ = name
    return transform


def _many_axes(name: str) -> Callable[..., Any]:
    two = name.endswith("2")
    f = getattr(_fft, name[:-1] + "n" if two else name)

    def transform(a: Any, s: Any = None, axes: Any = (-2, -1) if two else None, norm: Any = None,
                  out: Any = None) -> Any:
        r = f(_donatable(a, out), s=s, axes=axes, norm="backward" if norm is None else norm)
        return _write_out(f"fft.{name}", out, r)

    transform.__name__ = transform.__qualname__ = name
    return transform


def functions() -> dict[Any, Callable[..., Any]]:
    """NumPy's ``fft`` functions -> their translations."""
    table: dict[Any, Callable[..., Any]] = {}
    for n in _ONE_AXIS:
        table[getattr(np.fft, n)] = _one_axis(n)
    for n in _MANY_AXES:
        table[getattr(np.fft, n)] = _many_axes(n)
    table[np.fft.fftshift] = lambda x, axes=None: _fft.fftshift(x, axes=axes)
    table[np.fft.ifftshift] = lambda x, axes=None: _fft.ifftshift(x, axes=axes)
    return table

"""The array API standard's Fourier transform extension (version 2024.12):
``donate.fft``, also ``x.__array_namespace__().fft``.

Every transform is the core's (``donate._core``, ``src/functions/fft/``),
which decides the lengths, axes, dtypes and errors; this module gives
each function the standard's signature and passes its arguments on.
Inputs are only read and results are new tensors: ``fft(t.donate())``
leaves ``t`` intact and warns with :class:`donate.DonationWarning`;
``donate.jit`` traces every transform.

A transform computes in its input's precision (float32 and complex64 in
complex64, float64 and complex128 in complex128; integers in float64, as
NumPy). ``norm`` is ``"backward"`` (``1/n`` on the inverse, the default),
``"ortho"`` (``1/sqrt(n)`` both ways) or ``"forward"`` (``1/n`` on the
forward transform).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from . import _core
from ._core import Donated, Tensor

_Axes = Optional[Union[int, Sequence[int]]]


def _one(kind: str, x: Any, n: Optional[int], axis: int, norm: str) -> Tensor:
    return _core._fft(x, kind, None if n is None else [n], [axis], norm, False)


def _many(kind: str, x: Any, s: Optional[Sequence[int]], axes: Optional[Sequence[int]], norm: str) -> Tensor:
    return _core._fft(
        x,
        kind,
        None if s is None else list(s),
        None if axes is None else list(axes),
        norm,
        True,
    )


def fft(x: Any, /, *, n: Optional[int] = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """The one-dimensional discrete Fourier transform along ``axis``,
    ``x`` cut or padded with zeros to ``n`` elements first."""
    return _one("fft", x, n, axis, norm)


def ifft(x: Any, /, *, n: Optional[int] = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """The one-dimensional inverse discrete Fourier transform along ``axis``."""
    return _one("ifft", x, n, axis, norm)


def fftn(
    x: Any, /, *, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None, norm: str = "backward"
) -> Tensor:
    """The n-dimensional discrete Fourier transform over ``axes`` (every
    axis, or the last ``len(s)``), each cut or padded to its length in ``s``
    (``-1``: as it is)."""
    return _many("fft", x, s, axes, norm)


def ifftn(
    x: Any, /, *, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None, norm: str = "backward"
) -> Tensor:
    """The n-dimensional inverse discrete Fourier transform over ``axes``."""
    return _many("ifft", x, s, axes, norm)


def rfft(x: Any, /, *, n: Optional[int] = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """The discrete Fourier transform of real ``x`` along ``axis``: its
    ``n // 2 + 1`` non-negative frequencies."""
    return _one("rfft", x, n, axis, norm)


def irfft(x: Any, /, *, n: Optional[int] = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """The inverse of ``rfft``: a real signal of ``n`` elements (by default
    ``2 * (m - 1)`` for ``m`` input frequencies) along ``axis``."""
    return _one("irfft", x, n, axis, norm)


def rfftn(
    x: Any, /, *, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None, norm: str = "backward"
) -> Tensor:
    """The n-dimensional discrete Fourier transform of real ``x``: ``rfft``
    over the last of ``axes``, the complex transform over the others."""
    return _many("rfft", x, s, axes, norm)


def irfftn(
    x: Any, /, *, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None, norm: str = "backward"
) -> Tensor:
    """The inverse of ``rfftn``: a real result, ``irfft`` over the last of ``axes``."""
    return _many("irfft", x, s, axes, norm)


def hfft(x: Any, /, *, n: Optional[int] = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """The real spectrum of a signal with Hermitian symmetry, given by its
    first half ``x``: ``n`` real values (by default ``2 * (m - 1)``)."""
    return _one("hfft", x, n, axis, norm)


def ihfft(x: Any, /, *, n: Optional[int] = None, axis: int = -1, norm: str = "backward") -> Tensor:
    """The inverse of ``hfft``: the ``n // 2 + 1`` first values of the
    Hermitian spectrum of real ``x``."""
    return _one("ihfft", x, n, axis, norm)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """The sample frequencies of a transform of length ``n`` with sample
    spacing ``d``: ``[0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (d * n)``."""
    return _core._fftfreq(n, d, dtype, device, False)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """The sample frequencies of ``rfft`` of length ``n``:
    ``[0, 1, ..., n//2] / (d * n)``."""
    return _core._fftfreq(n, d, dtype, device, True)


def _shift(x: Any, axes: _Axes, sign: int) -> Tensor:
    if not isinstance(x, (Tensor, Donated)):
        x = _core.asarray(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    else:
        axes = tuple(axes)
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return _core.roll(x, shifts, axis=axes)


def fftshift(x: Any, /, *, axes: _Axes = None) -> Tensor:
    """``x`` with the zero frequency moved to the centre of ``axes`` (every
    axis by default): a roll by half of each axis's length."""
    return _shift(x, axes, 1)


def ifftshift(x: Any, /, *, axes: _Axes = None) -> Tensor:
    """The inverse of ``fftshift``."""
    return _shift(x, axes, -1)


__all__ = [
    "fft",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfftn",
    "rfft",
    "rfftfreq",
    "rfftn",
]

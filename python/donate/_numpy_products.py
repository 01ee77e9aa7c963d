"""NumPy's products of arrays on tensors: `kron` (NumPy's own steps:
broadcast axes inserted, one multiplication, one reshape),
`linalg.multi_dot` (a chain of `matmul`s, left to right: the values of
NumPy's, which may order the chain differently, up to rounding), and the
covariances `cov` and `corrcoef` (products of the centred data, with
NumPy's arguments, dtypes and warnings). Translation only: compositions
of donate's functions.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import _as_tensor, _refuse


def kron(a: Any, b: Any) -> Any:
    x, y = _as_tensor(a), _as_tensor(b)
    if x.ndim == 0 or y.ndim == 0:
        return _dn.multiply(x, y)
    nd = max(x.ndim, y.ndim)
    xs = (1,) * (nd - x.ndim) + tuple(x.shape)
    ys = (1,) * (nd - y.ndim) + tuple(y.shape)
    x, y = _dn.reshape(x, xs), _dn.reshape(y, ys)
    x = _dn.expand_dims(x, axis=tuple(range(1, nd * 2, 2)))
    y = _dn.expand_dims(y, axis=tuple(range(0, nd * 2, 2)))
    return _dn.reshape(_dn.multiply(x, y), tuple(p * q for p, q in zip(xs, ys)))


def multi_dot(arrays: Sequence[Any], *, out: Any = None) -> Any:
    if out is not None:
        raise _refuse("linalg.multi_dot", "out=")
    xs = [_as_tensor(a) for a in arrays]
    if len(xs) < 2:
        raise ValueError("Expecting at least two arrays.")
    for i, x in enumerate(xs):
        if x.ndim != 2 and not (x.ndim == 1 and i in (0, len(xs) - 1)):
            raise ValueError(f"{x.ndim}-dimensional array given. Array must be two-dimensional")
    return functools.reduce(_dn.matmul, xs)


def _rows(x: Any, rowvar: bool, dtype: Any) -> Any:
    t = _as_tensor(x)
    if t.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    t = _dn.reshape(t, (1, -1)) if t.ndim < 2 else t
    if not rowvar and t.shape[0] != 1:
        t = _dn.permute_dims(t, (1, 0))
    return _dn.astype(t, dtype)


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Any:
    """NumPy's `cov`: each row a variable (each column with
    `rowvar=False`), divided by `n - ddof` (`ddof` 1, or 0 with `bias`);
    NaN or inf with NumPy's `RuntimeWarning` when that is not positive."""
    if fweights is not None or aweights is not None:
        raise _refuse("cov", "fweights= or aweights=")
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    arrays = [m] if y is None else [m, y]
    if dtype is None:
        dtype = np.result_type(*(np.dtype(_as_tensor(a).dtype) for a in arrays), np.float64)
    x = _rows(m, rowvar, dtype)
    if y is not None:
        x = _dn.concat([x, _rows(y, rowvar, dtype)], axis=0)
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    fact = x.shape[1] - ddof
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    x = _dn.subtract(x, _dn.mean(x, axis=1, keepdims=True))
    xt = _dn.permute_dims(x, (1, 0))
    c = _dn.matmul(x, _dn.conj(xt) if x.dtype.kind == "c" else xt)
    # NumPy multiplies by `1 / fact` (inf where it is 0).
    c = _dn.multiply(c, 1.0 / fact) if fact else _dn.divide(c, 0.0)
    return _dn.squeeze(c, axis=tuple(i for i in range(2) if c.shape[i] == 1)) if 1 in c.shape else c


def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> Any:
    """NumPy's `corrcoef`: `cov` normalised by the standard deviations,
    clipped to [-1, 1] (the real and imaginary parts of complex ones)."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return _dn.divide(c, c)  # NaN for 0, inf or NaN, else 1 (NumPy's)
    sd = _dn.sqrt(_dn.real(_dn.linalg.diagonal(c)))
    c = _dn.divide(_dn.divide(c, _dn.expand_dims(sd, axis=1)), _dn.expand_dims(sd, axis=0))
    if c.dtype.kind == "c":
        return _dn.add(_dn.clip(_dn.real(c), -1, 1), _dn.multiply(_dn.clip(_dn.imag(c), -1, 1), 1j))
    return _dn.clip(c, -1, 1)


NAMES = ["kron", "cov", "corrcoef"]

"""NumPy's `np.linalg` calling conventions on tensors, for the functions
that are donate's own (`donate.linalg`): NumPy's `_commonType` (bool and
integer operands computed in float64), NumPy's shape errors as its
`LinAlgError`, `np.linalg.norm`'s `ord`/`axis` forms and `np.linalg.svd`'s
`compute_uv`. Translation only: each is one function of `donate.linalg`.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

import donate as _dn
from . import linalg as _linalg
from ._numpy_operands import Tensor, _as_tensor, _cast, _dtype_of, _refuse


def _last_two(x: Any, axis1: int, axis2: int) -> Any:
    """`x` with `axis1` and `axis2` moved last (NumPy's `trace` and
    `diagonal` take any two axes; donate's the last two)."""
    return _dn.moveaxis(x, (axis1, axis2), (-2, -1))


def _common_inexact(dts: list[Any]) -> Any:
    """The common float dtype of NumPy's linalg operands of dtypes `dts`
    (`_commonType`): bool and integers count as float64."""
    return np.result_type(*(d if np.issubdtype(d, np.inexact) else np.float64 for d in dts))


def _inexact(*arrays: Any) -> list[Any]:
    """NumPy's linalg operands (`_commonType`, `norm`): cast to their common
    float dtype (`_common_inexact`); only read."""
    dts = [_dtype_of(a) for a in arrays]
    dt = _common_inexact(dts)
    return [_as_tensor(a) if d == dt else _cast(a, dt) for a, d in zip(arrays, dts)]


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    (t,) = _inexact(x)
    if axis is None and ord is None:
        r = _linalg.vector_norm(t, keepdims=keepdims)
    elif axis is None and t.ndim == 2:
        r = _linalg.matrix_norm(t, ord=ord, keepdims=keepdims)
    elif axis is None and t.ndim != 1:  # NumPy's: an `ord` of no vector or matrix
        raise ValueError("Improper number of dimensions to norm.")
    elif axis is None or isinstance(axis, int) or len(tuple(axis)) == 1:
        r = _linalg.vector_norm(t, axis=axis, ord=2 if ord is None else ord, keepdims=keepdims)
    else:
        r = _linalg.matrix_norm(_last_two(t, *tuple(axis)), ord="fro" if ord is None else ord,
                                keepdims=False)
        if keepdims:
            for a in builtins.sorted(a % t.ndim for a in axis):
                r = _dn.expand_dims(r, axis=a)
    return r


# The linalg functions NumPy computes in floating point: bool and integer
# operands cast to float64 first (`_commonType`), as NumPy's.
_LIN_INEXACT = {"inv", "solve", "det", "cholesky", "qr", "svd", "eigh", "eigvalsh", "slogdet",
                "pinv", "matrix_rank", "svdvals", "vector_norm", "matrix_norm"}


# NumPy's shape checks, raised as its `LinAlgError` (donate's own are
# `ValueError`s, which `except np.linalg.LinAlgError` would not catch):
# stacks of square matrices, and stacks of matrices.
_LIN_SQUARE = {"inv", "solve", "det", "cholesky", "eigh", "eigvalsh", "slogdet", "matrix_power",
               "eig", "eigvals", "tensorinv"}
_LIN_MATRICES = _LIN_SQUARE | {"qr", "svd", "svdvals", "pinv"}


def check_matrices(name: str, x: Any) -> None:
    """Raise NumPy's `LinAlgError` where NumPy's `linalg.name` raises it
    for the shape of its (first) operand `x`."""
    if name not in _LIN_MATRICES:
        return
    shape = np.shape(x)
    if len(shape) < 2:
        raise _linalg.LinAlgError(f"{len(shape)}-dimensional array given. Array must be at "
                                  "least two-dimensional")
    if name in _LIN_SQUARE and shape[-1] != shape[-2]:
        raise _linalg.LinAlgError("Last 2 dimensions of the array must be square")


def _lin(name: str) -> Callable[..., Any]:
    f = getattr(_linalg, name)
    arrays = (Tensor, _dn.Donated, np.ndarray)

    def lin(*args: Any, **kwargs: Any) -> Any:
        if args:
            check_matrices(name, args[0])
        if name in _LIN_INEXACT and builtins.any(
            isinstance(a, arrays) and not np.issubdtype(_dtype_of(a), np.inexact) for a in args
        ):
            ops = [a for a in args if isinstance(a, arrays)]
            cast = builtins.iter(_inexact(*ops))
            args = tuple(next(cast) if isinstance(a, arrays) else a for a in args)
        return f(*(_as_tensor(a) if isinstance(a, np.ndarray) else a for a in args), **kwargs)

    lin.__name__ = lin.__qualname__ = name
    return lin


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> Any:
    """NumPy's `linalg.svd`: `compute_uv=False` is the singular values
    (`svdvals`); `hermitian=True` reads the lower triangle's Hermitian
    matrix, as NumPy's (`hermitian_svd`)."""
    check_matrices("svd", a)
    x = a if isinstance(a, (Tensor, _dn.Donated)) and np.issubdtype(a.dtype, np.inexact) \
        else _inexact(a)[0]
    if hermitian:
        if np.shape(a)[-1] != np.shape(a)[-2]:
            raise _linalg.LinAlgError("Last 2 dimensions of the array must be square")
        return _hermitian_svdvals(x) if not compute_uv else hermitian_svd(x)
    if not compute_uv:
        return _linalg.svdvals(x)
    return _linalg.svd(x, full_matrices=full_matrices)


# NumPy's own keywords of `np.linalg` (beyond the array API standard's
# signatures that `donate.linalg` has): the triangle a Hermitian function
# reads (`UPLO`), `pinv`'s and `matrix_rank`'s cut-offs with NumPy's
# defaults, `hermitian=` (NumPy's `svd(hermitian=True)`: the eigenvalues'
# magnitudes of the lower triangle's Hermitian matrix), `qr(mode="r")`.


def _h(t: Any) -> Any:
    """The conjugate transpose of the last two axes."""
    m = _dn.matrix_transpose(t)
    return _dn.conj(m) if _dn.isdtype(m.dtype, "complex floating") else m


def _triangle(name: str, a: Any, uplo: str) -> Any:
    """`a` as a float tensor whose lower triangle is the Hermitian matrix
    that NumPy's `name(a, UPLO=uplo)` reads: `a` for "L", and for "U" the
    conjugate transpose (its lower triangle is `a`'s upper one, mirrored)."""
    if uplo not in ("L", "U"):
        raise ValueError(f"UPLO argument must be 'L' or 'U', not {uplo!r}")
    check_matrices(name, a)
    (t,) = _inexact(a)
    return t if uplo == "L" else _h(t)


def eigh(a: Any, UPLO: str = "L") -> Any:  # noqa: N803 (NumPy's name)
    return _linalg.eigh(_triangle("eigh", a, UPLO))


def eigvalsh(a: Any, UPLO: str = "L") -> Any:  # noqa: N803 (NumPy's name)
    return _linalg.eigvalsh(_triangle("eigvalsh", a, UPLO))


def _hermitian_svdvals(t: Any) -> Any:
    """NumPy's `svd(t, compute_uv=False, hermitian=True)`: the magnitudes
    of the eigenvalues of the lower triangle's Hermitian matrix, largest
    first."""
    return _dn.flip(_dn.sort(_dn.abs(_linalg.eigvalsh(t)), axis=-1), axis=-1)


def hermitian_svd(t: Any) -> Any:
    """NumPy's `svd(t, hermitian=True)`, from `eigh` as NumPy computes it:
    `s = |w|` largest first, `u` the eigenvectors in that order, and
    `vh = (u * sign(w))ᴴ`."""
    w, u = _linalg.eigh(t)
    order = _dn.flip(_dn.argsort(_dn.abs(w), axis=-1, stable=True), axis=-1)
    w = _dn.take_along_axis(w, order, axis=-1)
    u = _dn.take_along_axis(u, _dn.broadcast_to(_dn.expand_dims(order, axis=-2), u.shape), axis=-1)
    sign = _dn.astype(_dn.sign(w), u.dtype)
    return _linalg.SVDResult(u, _dn.abs(w), _h(u * _dn.expand_dims(sign, axis=-2)))


class _Unset:
    """NumPy's `_NoValue` for `pinv`'s `rtol`: not passed (None is a value)."""


_UNSET = _Unset()


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = _UNSET) -> Any:
    """NumPy's `linalg.pinv`: singular values at or below `rcond` times the
    largest are dropped; NumPy's default `rcond` is 1e-15 (the standard's
    `rtol=None` is `max(M, N) * eps`, which NumPy uses only when asked)."""
    check_matrices("pinv", a)
    (t,) = _inexact(a)
    if rcond is None:
        rcond = 1e-15 if rtol is _UNSET else (
            builtins.max(t.shape[-2:]) * float(np.finfo(t.dtype).eps) if rtol is None else rtol)
    elif rtol is not _UNSET:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if not hermitian:
        return _linalg.pinv(t, rtol=rcond)
    if not builtins.min(t.shape[-2:]):
        return _dn.zeros((*t.shape[:-2], t.shape[-1], t.shape[-2]), dtype=t.dtype)
    # As NumPy's: `u · s⁺ · vh` of the Hermitian SVD, transposed (the
    # pseudo-inverse of the lower triangle's Hermitian matrix).
    u, s, vh = hermitian_svd(t)
    cut = _dn.expand_dims(_dn.asarray(rcond, dtype=s.dtype), axis=-1) * _dn.max(
        s, axis=-1, keepdims=True)
    large = s > cut
    inv = _dn.where(large, 1 / _dn.where(large, s, 1), 0)
    return _h(vh) @ (_dn.expand_dims(_dn.astype(inv, u.dtype), axis=-1) * _h(u))


def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *,  # noqa: N803
                rtol: Any = None) -> Any:
    """NumPy's `linalg.matrix_rank`: the count of singular values above
    `tol` (absolute) or `rtol` times the largest (default `max(M, N) *
    eps`); a vector's rank is 1 unless it is all zeros (a Python int)."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    t = _as_tensor(A)
    if t.ndim < 2:
        return int(not builtins.bool(_dn.all(t == 0)))
    (t,) = _inexact(t)
    s = _hermitian_svdvals(t) if hermitian else _linalg.svdvals(t)
    if tol is None:
        r = builtins.max(t.shape[-2:]) * float(np.finfo(s.dtype).eps) if rtol is None \
            else _dn.expand_dims(_dn.asarray(rtol, dtype=s.dtype), axis=-1)
        cut = (_dn.max(s, axis=-1, keepdims=True) if s.shape[-1] else 0) * r
    else:
        cut = _dn.expand_dims(_dn.asarray(tol, dtype=s.dtype), axis=-1)
    return _dn.count_nonzero(s > cut, axis=-1)


def qr(a: Any, mode: str = "reduced") -> Any:
    """NumPy's `linalg.qr`: "reduced", "complete", or "r" (`R` alone).
    "raw" (LAPACK's Householder reflectors) is not supported."""
    if mode == "raw":
        raise _refuse("linalg.qr", "mode='raw' (LAPACK's Householder form)")
    check_matrices("qr", a)
    (t,) = _inexact(a)
    if mode == "r":
        return _linalg.qr(t).R
    return _linalg.qr(t, mode=mode)


def matrix_power(a: Any, n: Any) -> Any:
    """NumPy's `linalg.matrix_power`: a negative power of an integer or
    boolean matrix is one of its float64 inverse (NumPy's `inv`); a
    boolean matrix to a power is a boolean product, as NumPy's."""
    check_matrices("matrix_power", a)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("exponent must be an integer") from None
    t = _as_tensor(a)
    if n < 0 and not np.issubdtype(t.dtype, np.inexact):
        (t,) = _inexact(t)
    if t.dtype != _dn.bool:
        return _linalg.matrix_power(t, n)
    if n == 0:
        return _dn.broadcast_to(_dn.eye(t.shape[-1], dtype=_dn.bool), t.shape).copy()
    result, z = None, None  # NumPy's binary decomposition of `n`
    while n > 0:
        z = t if z is None else z @ z
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else result @ z
    return result.copy() if result is t else result

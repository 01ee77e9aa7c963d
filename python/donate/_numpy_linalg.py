"""NumPy's `np.linalg` calling conventions on tensors, for the functions
that are donate's own (`donate.linalg`): NumPy's `_commonType` (bool and
integer operands computed in float64), NumPy's shape errors as its
`LinAlgError`, `np.linalg.norm`'s `ord`/`axis` forms and `np.linalg.svd`'s
`compute_uv`. Translation only: each is one function of `donate.linalg`.
"""

from __future__ import annotations

import builtins
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
    (`svdvals`)."""
    if hermitian:
        raise _refuse("linalg.svd", "hermitian=True")
    check_matrices("svd", a)
    x = a if isinstance(a, (Tensor, _dn.Donated)) and np.issubdtype(a.dtype, np.inexact) \
        else _inexact(a)[0]
    if not compute_uv:
        return _linalg.svdvals(x)
    return _linalg.svd(x, full_matrices=full_matrices)

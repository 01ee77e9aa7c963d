"""The array API standard's linear algebra extension (version 2024.12):
``donate.linalg``, also ``x.__array_namespace__().linalg``.

Every function is the core's (``donate._core``, ``src/functions/linalg/``), which
decides shapes and dtypes; this module names the fields of the
multi-result functions (``eig``, ``eigh``, ``qr``, ``slogdet``, ``svd``)
and re-exports the rest. Beyond the standard: ``eig`` and ``eigvals``, the
eigendecomposition of general square matrices, complex whatever the
input's dtype (a result's dtype cannot depend on its values; JAX's and
NumPy 2.5's choice too; ``np.linalg.eig(t)`` follows the installed NumPy). Inputs are only read and results are new tensors:
``f(t.donate())`` leaves ``t`` intact and warns with
:class:`donate.DonationWarning`. A singular matrix (``inv``, ``solve``)
or one that is not positive definite (``cholesky``) raises
:class:`LinAlgError` (a subclass of NumPy's ``numpy.linalg.LinAlgError``, so a
``ValueError``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import _core
from ._core import matrix_transpose
from ._core import (
    LinAlgError,
    cholesky,
    cross,
    det,
    diagonal,
    eigvals,
    eigvalsh,
    inv,
    matmul,
    matrix_norm,
    matrix_power,
    matrix_rank,
    outer,
    pinv,
    solve,
    svdvals,
    tensordot,
    trace,
    vecdot,
    vector_norm,
)


class EigResult(NamedTuple):
    """``eig``'s result: eigenvalues and eigenvectors (columns), complex."""

    eigenvalues: _core.Tensor
    eigenvectors: _core.Tensor


class EighResult(NamedTuple):
    """``eigh``'s result: eigenvalues (ascending) and eigenvectors (columns)."""

    eigenvalues: _core.Tensor
    eigenvectors: _core.Tensor


class QRResult(NamedTuple):
    """``qr``'s result: ``Q`` with orthonormal columns, ``R`` upper triangular."""

    Q: _core.Tensor
    R: _core.Tensor


class SlogdetResult(NamedTuple):
    """``slogdet``'s result: the determinant's sign and the log of its absolute value."""

    sign: _core.Tensor
    logabsdet: _core.Tensor


class SVDResult(NamedTuple):
    """``svd``'s result: ``U``, the singular values ``S`` (largest first), ``Vh``."""

    U: _core.Tensor
    S: _core.Tensor
    Vh: _core.Tensor


def eig(x: Any, /) -> EigResult:
    """The eigenvalues and eigenvectors (columns, unit norm) of each square
    matrix of ``x``, complex whatever ``x``'s dtype (not in the standard;
    as ``jax.numpy.linalg.eig``)."""
    return EigResult(*_core.eig(x))


def eigh(x: Any, /) -> EighResult:
    """The eigenvalues and eigenvectors of each symmetric matrix of ``x``."""
    return EighResult(*_core.eigh(x))


def qr(x: Any, /, *, mode: str = "reduced") -> QRResult:
    """The QR decomposition of each matrix of ``x`` (``mode``: ``"reduced"`` or ``"complete"``)."""
    return QRResult(*_core.qr(x, mode=mode))


def slogdet(x: Any, /) -> SlogdetResult:
    """The sign and the log of the absolute value of each matrix's determinant."""
    return SlogdetResult(*_core.slogdet(x))


def svd(x: Any, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decomposition of each matrix of ``x``."""
    return SVDResult(*_core.svd(x, full_matrices=full_matrices))


__all__ = [
    "EigResult",
    "EighResult",
    "LinAlgError",
    "QRResult",
    "SVDResult",
    "SlogdetResult",
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]

"""NumPy's least squares, general eigenproblems and polynomial roots on
tensors: `np.linalg.lstsq`, `np.linalg.cond`, `np.polyfit`,
`np.linalg.eig`, `np.linalg.eigvals`, `np.roots` and `np.poly`; and
`np.linalg.tensorsolve`, `np.linalg.tensorinv` (`solve` and `inv` of
the tensor reshaped to a matrix, as NumPy's).
Translation only: donate's `svd`, `svdvals`, `inv`, `eig`, `eigvals`,
`matrix_norm`, `matmul` and arithmetic, with NumPy's arguments, result
dtypes and errors.

Decisions (where the method differs from NumPy's LAPACK call):

- `lstsq` is the pseudo-inverse through the SVD (`x = V S⁺ Uᴴ b`, the
  singular values at or below `rcond * max(s)` taken as zero), which is
  what LAPACK's `gelsd` computes, by another factorisation: `x`, the
  residuals and `s` equal NumPy's within rounding, and `rank` is the
  same count. As NumPy's, it computes in float64 (complex128) and casts
  the results to the operands' dtype; `rank` is a Python int.
- `cond` with `p` None, 2 or -2 is the ratio of the extreme singular
  values; with another `p`, `norm(x, p) * norm(inv(x), p)`, and a
  singular matrix's condition number is `inf` (NumPy's LAPACK `inv`
  yields infinities there; donate's `inv` raises, which is caught per
  matrix).
- `polyfit` is NumPy's own method: the scaled Vandermonde matrix solved
  by `lstsq`, `RankWarning` when the fit is rank-deficient.
- `eig` and `eigvals` follow the installed NumPy: from NumPy 2.5 on they
  are complex whatever the values (as `donate.linalg.eig` always is);
  before, a real input's results are real when every eigenvalue is (a
  rule that reads the values). `roots` is real when every root is, in
  every version. The eigenvalues' order is the Schur form's, which
  need not be LAPACK's (NumPy does not specify one); each eigenvector has
  unit norm and its largest component real, as LAPACK's, with that
  component positive.
- `roots` is NumPy's: the eigenvalues of the companion matrix; `poly`
  multiplies out `(x - z)` for each zero `z` (the eigenvalues of a square
  matrix), real when the zeros are closed under conjugation.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np

import donate as _dn
from donate import linalg as _linalg

from ._numpy_linalg import _common_inexact, _lin, check_matrices
from ._numpy_operands import _as_tensor, _dtype_of

NAMES = ["polyfit", "roots", "poly"]


def _types(*arrays: Any) -> tuple[np.dtype[Any], np.dtype[Any]]:
    """NumPy's `_commonType`: the dtype computed in (float64 or
    complex128) and the result's (float32 or complex64 when every operand
    is single precision)."""
    dts = [_dtype_of(a) for a in arrays]
    for d in dts:
        if not (np.issubdtype(d, np.number) or d == np.bool_):
            raise TypeError(f"array type {d} is unsupported in linalg")
    result = _common_inexact(dts)
    if result == np.float16:
        raise TypeError("array type float16 is unsupported in linalg")
    work = np.dtype(np.complex128 if result.kind == "c" else np.float64)
    return work, result


def _in(x: Any, dtype: Any) -> Any:
    t = _as_tensor(x)
    return t if t.dtype == dtype else _dn.astype(t, dtype)


def _h(x: Any) -> Any:
    """The conjugate transpose of the last two axes."""
    t = _dn.matrix_transpose(x)
    return _dn.conj(t) if _dn.isdtype(t.dtype, "complex floating") else t


def lstsq(a: Any, b: Any, rcond: Any = None) -> tuple[Any, Any, int, Any]:
    """NumPy's `linalg.lstsq`: the least-squares solution `x` of `a @ x =
    b`, the residuals' sums of squares (empty unless `a` has full column
    rank and more rows than columns), the rank of `a` and its singular
    values."""
    work, result = _types(a, b)
    real = np.dtype(np.float32 if result in (np.float32, np.complex64) else np.float64)
    x_a, x_b = _in(a, work), _in(b, work)
    one = x_b.ndim == 1
    if one:
        x_b = _dn.expand_dims(x_b, axis=-1)
    for t in (x_a, x_b):
        if t.ndim != 2:
            raise _linalg.LinAlgError(f"{t.ndim}-dimensional array given. Array must be "
                                  "two-dimensional")
    m, n = x_a.shape
    if x_b.shape[0] != m:
        raise _linalg.LinAlgError("Incompatible dimensions")
    k = x_b.shape[1]
    if rcond is None:
        rcond = np.finfo(np.float64).eps * max(m, n)
    if min(m, n) == 0:
        x = _dn.zeros((n, k), dtype=work)
        s = _dn.zeros((0,), dtype=real)
        rank = 0
    else:
        u, s_w, vh = _linalg.svd(x_a, full_matrices=False)
        cut = float(s_w[0]) * (rcond if rcond >= 0 else np.finfo(np.float64).eps)
        keep = s_w > cut
        rank = int(_dn.sum(keep))
        inv_s = _dn.where(keep, 1.0 / _dn.where(keep, s_w, 1.0), 0.0)
        x = _h(vh) @ (_dn.expand_dims(inv_s, axis=-1) * (_h(u) @ x_b))
        s = _in(s_w, real)
    if rank == n and m > n:
        r = x_b - x_a @ x
        squares = _dn.real(r * _dn.conj(r)) if work.kind == "c" else r * r
        resids = _in(_dn.sum(squares, axis=0), real)
    else:
        resids = _dn.zeros((0,), dtype=real)
    if one:
        x = x[:, 0]
    return _in(x, result), resids, rank, s


def _cond_one(x: Any, p: Any, real: np.dtype[Any]) -> Any:
    try:
        return _in(_linalg.matrix_norm(x, ord=p) * _linalg.matrix_norm(_linalg.inv(x), ord=p),
                   real)
    except _linalg.LinAlgError:
        return _dn.asarray(np.inf, dtype=real)


def cond(x: Any, p: Any = None) -> Any:
    """NumPy's `linalg.cond`: the condition number of each matrix in the
    norm `p` (`None`: the 2-norm, through the singular values)."""
    work, result = _types(x)
    real = np.dtype(np.float32 if result in (np.float32, np.complex64) else np.float64)
    t = _in(x, result)
    if t.ndim < 2:
        raise _linalg.LinAlgError(f"{t.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")
    if p is None or p == 2 or p == -2:
        s = _linalg.svdvals(t)
        r = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        return _in(_singular_inf(r, t), real)
    if t.shape[-1] != t.shape[-2]:
        raise _linalg.LinAlgError("Last 2 dimensions of the array must be square")
    try:
        r = _linalg.matrix_norm(t, ord=p) * _linalg.matrix_norm(_linalg.inv(t), ord=p)
    except _linalg.LinAlgError:  # a singular matrix in the stack: each on its own
        flat = _dn.reshape(t, (-1, *t.shape[-2:]))
        r = _dn.reshape(_dn.stack([_cond_one(m, p, real) for m in _dn.unstack(flat)]), t.shape[:-2])
    return _in(_singular_inf(r, t), real)


def _singular_inf(r: Any, t: Any) -> Any:
    """NumPy's rule: a NaN condition number of a matrix without NaN
    (`0 / 0` of an all-zero matrix) is inf."""
    if not _dn.any(_dn.isnan(r)):
        return r
    nan_in = _dn.any(_dn.isnan(t), axis=(-2, -1))
    return _dn.where(_dn.isnan(r) & _dn.logical_not(nan_in), float("inf"), r)


def polyfit(x: Any, y: Any, deg: Any, rcond: Any = None, full: bool = False, w: Any = None,
            cov: Any = False) -> Any:
    """NumPy's `polyfit`: the least-squares polynomial of degree `deg`
    through (`x`, `y`), highest power first (one column per column of a
    2-d `y`); with `full`, also the residuals, rank, singular values and
    `rcond`; with `cov`, also the coefficients' covariance."""
    from ._numpy_calculus import vander

    order = int(deg) + 1
    # NumPy's `asarray(x) + 0.0`: integers become float64, floats keep theirs.
    tx, ty = _in(x, np.result_type(_dtype_of(x), 0.0)), _in(y, np.result_type(_dtype_of(y), 0.0))
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if tx.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if tx.size == 0:
        raise TypeError("expected non-empty vector for x")
    if ty.ndim < 1 or ty.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if tx.shape[0] != ty.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = tx.shape[0] * np.finfo(np.dtype(tx.dtype)).eps
    lhs = vander(tx, order)
    rhs = ty
    if w is not None:
        tw = _in(w, np.result_type(_dtype_of(w), 0.0))
        if tw.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if tw.shape[0] != ty.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * _dn.expand_dims(tw, axis=-1)
        rhs = rhs * (_dn.expand_dims(tw, axis=-1) if rhs.ndim == 2 else tw)
    if _dn.isdtype(lhs.dtype, "complex floating"):
        scale = _dn.sqrt(_dn.sum(_dn.real(lhs * _dn.conj(lhs)), axis=0))
    else:
        scale = _dn.sqrt(_dn.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = _dn.matrix_transpose(_dn.matrix_transpose(c) / scale) if c.ndim == 2 else c / scale
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    base = _linalg.inv(_dn.matrix_transpose(lhs) @ lhs)
    base = base / (_dn.expand_dims(scale, axis=-1) * scale)
    if cov == "unscaled":
        fac: Any = 1
    else:
        if tx.shape[0] <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = resids / (tx.shape[0] - order)
    if ty.ndim == 1:
        return c, base * fac
    return c, _dn.expand_dims(base, axis=-1) * fac


@functools.cache
def _eig_always_complex() -> bool:
    """Whether this NumPy's `eig` and `eigvals` are complex whatever the
    values (NumPy 2.5 on; before, a real input's results were real when
    every eigenvalue was), asked of NumPy itself once."""
    return np.linalg.eigvals(np.eye(1)).dtype.kind == "c"


def _real_if_real(x: Any, w: Any, v: Any = None) -> tuple[Any, Any]:
    """The older NumPy rule (and `roots`' in every version): a real
    input's results are real when every eigenvalue is."""
    if _dn.isdtype(_as_tensor(x).dtype, "complex floating") or bool(_dn.any(_dn.imag(w) != 0)):
        return w, v
    return _dn.real(w), None if v is None else _dn.real(v)


def _square(a: Any) -> Any:
    """`a` in NumPy's dtype for `eig`, refused as NumPy refuses it unless
    it is a stack of square matrices."""
    _, result = _types(a)
    t = _in(a, result)
    check_matrices("eig", t)
    return t


def eig(a: Any) -> Any:
    """NumPy's `linalg.eig`: the eigenvalues and eigenvectors (columns) of
    each square matrix."""
    t = _square(a)
    w, v = _linalg.eig(t)
    if _eig_always_complex():
        return _linalg.EigResult(w, v)
    return _linalg.EigResult(*_real_if_real(t, w, v))


def eigvals(a: Any) -> Any:
    """NumPy's `linalg.eigvals`: the eigenvalues of each square matrix."""
    t = _square(a)
    w = _linalg.eigvals(t)
    return w if _eig_always_complex() else _real_if_real(t, w)[0]


def roots(p: Any) -> Any:
    """NumPy's `roots`: the roots of the polynomial with coefficients `p`
    (highest power first), the eigenvalues of its companion matrix."""
    c = _as_tensor(p)
    if c.ndim == 0:
        c = _dn.reshape(c, (1,))
    if c.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    nz = np.flatnonzero(np.asarray(c != 0))
    if nz.size == 0:
        return _dn.zeros((0,), dtype=_dn.float64)
    trailing = c.shape[0] - int(nz[-1]) - 1
    c = c[int(nz[0]):int(nz[-1]) + 1]
    if not _dn.isdtype(c.dtype, ("real floating", "complex floating")):
        c = _dn.astype(c, _dn.float64)
    n = c.shape[0]
    if n > 1:
        top = _dn.reshape(-c[1:] / c[0], (1, n - 1))
        companion = _dn.concat([top, _dn.eye(n - 2, n - 1, dtype=c.dtype)], axis=0)
        # NumPy's `roots` is real when every root is, in every version
        # (its `eigvals` is not from NumPy 2.5 on).
        found = _real_if_real(companion, _linalg.eigvals(companion))[0]
    else:
        found = _dn.zeros((0,), dtype=_dn.float64)
    if not trailing:
        return found
    return _dn.concat([found, _dn.zeros((trailing,), dtype=found.dtype)])


def poly(seq_of_zeros: Any) -> Any:
    """NumPy's `poly`: the coefficients (highest power first) of the monic
    polynomial with the given zeros, or with a square matrix's
    eigenvalues as its zeros."""
    z = _as_tensor(seq_of_zeros)
    if z.ndim == 0:
        z = _dn.reshape(z, (1,))
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        z = eigvals(z)
    elif z.ndim == 1:
        if not _dn.isdtype(z.dtype, ("real floating", "complex floating")):
            z = _dn.astype(z, _dn.float64)  # NumPy's `mintypecode`: 'd'
        elif z.dtype == _dn.float16:
            z = _dn.astype(z, _dn.float32)
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if z.shape[0] == 0:
        return 1.0
    a = _dn.ones((1,), dtype=z.dtype)
    for k in range(z.shape[0]):  # a * (x - z_k): shifted copies
        zero = _dn.zeros((1,), dtype=z.dtype)
        a = _dn.concat([a, zero]) - _dn.concat([zero, a * z[k]])
    if _dn.isdtype(a.dtype, "complex floating"):
        r = np.asarray(z).astype(complex)
        if np.all(np.sort(r) == np.sort(r.conjugate())):
            a = _dn.real(a)
    return a


def tensorsolve(a: Any, b: Any, axes: Any = None) -> Any:
    """NumPy's `linalg.tensorsolve`: `x` with `tensordot(a, x, x.ndim) ==
    b`, solved as one square system."""
    t, rhs = _as_tensor(a), _as_tensor(b)
    an = t.ndim
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        t = _dn.permute_dims(t, tuple(order))
    old = t.shape[-(an - rhs.ndim):]
    n = int(np.prod(old))
    if t.size != n ** 2:
        raise _linalg.LinAlgError("Input arrays must satisfy the requirement "
                                  "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    x = _lin("solve")(_dn.reshape(t, (n, n)), _dn.reshape(rhs, (-1,)))
    return _dn.reshape(x, tuple(old))


def tensorinv(a: Any, ind: int = 2) -> Any:
    """NumPy's `linalg.tensorinv`: the inverse of `a` read as a matrix of
    its first `ind` axes by the rest, in the shape `a.shape[ind:] +
    a.shape[:ind]`."""
    t = _as_tensor(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    inv_shape = t.shape[ind:] + t.shape[:ind]
    n = int(np.prod(t.shape[ind:]))
    m = t.size // n if n else 0
    if n != m:
        raise _linalg.LinAlgError("Last 2 dimensions of the array must be square")
    return _dn.reshape(_lin("inv")(_dn.reshape(t, (n, m))), inv_shape)

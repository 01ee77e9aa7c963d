"""NumPy's differences, integrals, polynomials and products of sequences
on tensors: `gradient`, `trapezoid`, `convolve`, `correlate`, `cross`,
`sinc`, `fix`, `i0`, `polyval`, `vander`, `unwrap`, and the polynomial
arithmetic (`polyadd`, `polysub`, `polymul`, `polyder`, `polyint`,
`polydiv`, on coefficient vectors, highest power first). Translation only: slices, arithmetic,
`concat`, `cumulative_prod` and `stack` of donate, with NumPy's
arguments, result dtypes and errors.

Decisions:

- `gradient` takes NumPy's spacings (none, one for all axes, or one per
  axis: a number or the coordinates along it) and both edge orders; its
  coefficients for coordinates are NumPy's formulas, computed in float64
  as NumPy computes them.
- `convolve` and `correlate` add shifted copies of the longer operand
  scaled by each element of the shorter (O(n m) work as NumPy's direct
  sum, O(n + m) memory): the sums are NumPy's up to rounding order.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import warnings
from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import _as_tensor, _dtype_of

NAMES = ["gradient", "trapezoid", "convolve", "correlate", "cross", "sinc", "polyval", "vander",
         "unwrap", "fix", "i0", "polyadd", "polysub", "polymul", "polyder", "polyint", "polydiv"]


def _slab(x: Any, axis: int, sl: slice | int) -> Any:
    index = [slice(None)] * x.ndim
    index[axis] = sl
    return x[tuple(index)]


def _along(c: np.ndarray, axis: int, ndim: int) -> Any:
    """Coefficients `c` (one per position along `axis`) shaped to broadcast
    against an array of `ndim` axes."""
    shape = [1] * ndim
    shape[axis] = c.shape[0]
    return _dn.asarray(c.reshape(shape))


def _spacings(varargs: tuple[Any, ...], axes: list[int], shape: tuple[int, ...]) -> list[Any]:
    """Each axis's spacing: a Python float, or the differences of its
    coordinates (float64 NumPy data, one per interval)."""
    n = len(axes)
    if len(varargs) == 0:
        return [1.0] * n
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return [float(varargs[0])] * n
    if len(varargs) != n:
        raise TypeError("invalid number of arguments")
    out: list[Any] = []
    for ax, d in builtins.zip(axes, varargs):
        d = np.asarray(d) if not isinstance(d, (_dn.Tensor, _dn.Donated)) else np.asarray(_as_tensor(d))
        if d.ndim == 0:
            out.append(float(d))
            continue
        if d.ndim != 1:
            raise ValueError("distances must be either scalars or 1d")
        if len(d) != shape[ax]:
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        diff = np.diff(d.astype(np.float64) if d.dtype.kind in "iub" else d)
        out.append(float(diff[0]) if (diff == diff[0]).all() else diff.astype(np.float64))
    return out


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """NumPy's `gradient`: central differences inside, one-sided
    differences of `edge_order` (1 or 2) at the ends, along each axis."""
    x = _as_tensor(f)
    n = x.ndim
    axes = list(range(n)) if axis is None else [
        operator.index(a) for a in ((axis,) if np.ndim(axis) == 0 else axis)]
    for a in axes:
        if not -n <= a < n:
            raise _dn.AxisError(f"axis {a} is out of bounds for array of dimension {n}")
    axes = [a % n for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    dxs = _spacings(varargs, axes, tuple(x.shape))
    otype = x.dtype if x.dtype.kind in "fc" else _dn.float64
    if x.dtype != otype:
        x = _dn.astype(x, otype)
    outs = []
    for ax, dx in builtins.zip(axes, dxs):
        if x.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        f0, f1, f2 = _slab(x, ax, slice(None, -2)), _slab(x, ax, slice(1, -1)), _slab(x, ax, slice(2, None))
        uniform = isinstance(dx, float)
        if uniform:
            inner = (f2 - f0) / (2.0 * dx)
        else:
            d1, d2 = dx[:-1], dx[1:]
            inner = (_along(-d2 / (d1 * (d1 + d2)), ax, n) * f0
                     + _along((d2 - d1) / (d1 * d2), ax, n) * f1
                     + _along(d1 / (d2 * (d1 + d2)), ax, n) * f2)
        first = [_slab(x, ax, slice(k, k + 1)) for k in range(3 if edge_order == 2 else 2)]
        last = [_slab(x, ax, slice(x.shape[ax] - k - 1, x.shape[ax] - k)) for k in
                range(3 if edge_order == 2 else 2)]
        if edge_order == 1:
            head = (first[1] - first[0]) / (dx if uniform else float(dx[0]))
            tail = (last[0] - last[1]) / (dx if uniform else float(dx[-1]))
        else:
            if uniform:
                a, b, c = -1.5 / dx, 2.0 / dx, -0.5 / dx
            else:
                d1, d2 = float(dx[0]), float(dx[1])
                a, b, c = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)), (d1 + d2) / (d1 * d2),
                           -d1 / (d2 * (d1 + d2)))
            head = a * first[0] + b * first[1] + c * first[2]
            if uniform:
                a, b, c = 0.5 / dx, -2.0 / dx, 1.5 / dx
            else:
                d1, d2 = float(dx[-2]), float(dx[-1])
                a, b, c = (d2 / (d1 * (d1 + d2)), -(d2 + d1) / (d1 * d2),
                           (2.0 * d2 + d1) / (d2 * (d1 + d2)))
            tail = a * last[2] + b * last[1] + c * last[0]
        parts = [_dn.astype(p, otype, copy=False) for p in (head, inner, tail)]
        outs.append(_dn.concat(parts, axis=ax))
    return outs[0] if len(outs) == 1 else tuple(outs)


def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """NumPy's `trapezoid`: the integral of `y` along `axis` by the
    trapezoidal rule, at `x` or with spacing `dx`."""
    t = _as_tensor(y)
    if t.ndim == 0:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension 0")
    ax = axis % t.ndim
    hi, lo = _slab(t, ax, slice(1, None)), _slab(t, ax, slice(None, -1))
    if x is None:
        d: Any = float(dx)
    else:
        xs = _as_tensor(x)
        if xs.ndim == 1:
            d = _dn.diff(xs)
            shape = [1] * t.ndim
            shape[ax] = d.shape[0]
            d = _dn.reshape(d, tuple(shape))
        else:
            d = _dn.diff(xs, axis=ax)
    return _dn.sum(d * (hi + lo) / 2.0, axis=ax)


def _full_convolution(a: Any, v: Any, dt: Any) -> Any:
    """Every term of the full convolution of 1-d `a` and `v` in `dt`: the
    longer operand, shifted and scaled by each element of the shorter."""
    a, v = (a, v) if a.shape[0] >= v.shape[0] else (v, a)
    n, m = a.shape[0], v.shape[0]
    a = a if a.dtype == dt else _dn.astype(a, dt)
    out = _dn.zeros((n + m - 1,), dtype=dt)
    for i, w in enumerate(np.asarray(v).astype(np.dtype(str(dt))).tolist()):
        out[i:i + n] += a * w
    return out


def _sequence_product(name: str, a: Any, v: Any, mode: str, conjugate: bool) -> Any:
    x, y = _as_tensor(a), _as_tensor(v)
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError("object too deep for desired array")
    if x.shape[0] == 0:
        raise ValueError("a cannot be empty" if name == "convolve" else "v cannot be empty")
    if y.shape[0] == 0:
        raise ValueError("v cannot be empty" if name == "convolve" else "a cannot be empty")
    dt = np.result_type(_dtype_of(x), _dtype_of(y))
    if conjugate:  # correlate: a against the reversed conjugate of v
        y = _dn.flip(_dn.conj(y) if y.dtype.kind == "c" else y)
    full = _full_convolution(x, y, dt)
    n, m = x.shape[0], y.shape[0]
    if mode == "full":
        return full
    if mode == "same":
        start = (builtins.min(n, m) - 1) // 2 if n >= m or not conjugate else \
            (builtins.min(n, m) - 1) - (builtins.min(n, m) - 1) // 2
        return full[start:start + builtins.max(n, m)]
    if mode == "valid":
        lo = builtins.min(n, m) - 1
        return full[lo:builtins.max(n, m)]
    raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")


def convolve(a: Any, v: Any, mode: str = "full") -> Any:
    """NumPy's `convolve` of two 1-d sequences."""
    return _sequence_product("convolve", a, v, mode, False)


def correlate(a: Any, v: Any, mode: str = "valid") -> Any:
    """NumPy's `correlate`: `c[k] = sum(a[n + k] * conj(v[n]))`."""
    return _sequence_product("correlate", a, v, mode, True)


@functools.cache
def _two_component_cross(na: int, nb: int) -> tuple[str | None, str | None]:
    """What the installed NumPy does with vectors of `na` and `nb`
    components, one of them 2 (NumPy 2.0 deprecated these, later releases
    refuse them): its refusal's message or its warning's, asked once per
    process."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            np.cross(np.zeros(na), np.zeros(nb))
        except ValueError as refusal:
            return str(refusal), None
    deprecations = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    return None, deprecations[0] if deprecations else None


def cross(a: Any, b: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: Any = None) -> Any:
    """NumPy's `cross` of vectors of 2 or 3 components (broadcast), the
    components along `axisa`/`axisb`, the result's along `axisc` (2
    components each: the z component alone)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    x, y = _as_tensor(a), _as_tensor(b)
    for t, ax, which in ((x, axisa, "axisa"), (y, axisb, "axisb")):
        if not -t.ndim <= ax < t.ndim:
            raise _dn.AxisError(f"{which}: axis {ax} is out of bounds for array of dimension "
                                f"{t.ndim}")
    x, y = _dn.moveaxis(x, axisa, -1), _dn.moveaxis(y, axisb, -1)
    if x.shape[-1] not in (2, 3) or y.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if 2 in (x.shape[-1], y.shape[-1]):
        refusal, deprecation = _two_component_cross(x.shape[-1], y.shape[-1])
        if refusal is not None:
            raise ValueError(refusal)
        if deprecation is not None:
            warnings.warn(deprecation, DeprecationWarning, stacklevel=2)
    dt = np.result_type(_dtype_of(x), _dtype_of(y))
    x, y = _dn.astype(x, dt, copy=False), _dn.astype(y, dt, copy=False)
    a0, a1, b0, b1 = x[..., 0], x[..., 1], y[..., 0], y[..., 1]
    if x.shape[-1] == 2 and y.shape[-1] == 2:
        return a0 * b1 - a1 * b0
    zero = _dn.zeros((), dtype=dt)
    a2 = x[..., 2] if x.shape[-1] == 3 else zero
    b2 = y[..., 2] if y.shape[-1] == 3 else zero
    cp = _dn.stack(_dn.broadcast_arrays(a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0),
                   axis=-1)
    if not -cp.ndim <= axisc < cp.ndim:
        raise _dn.AxisError(f"axisc: axis {axisc} is out of bounds for array of dimension "
                            f"{cp.ndim}")
    return _dn.moveaxis(cp, -1, axisc)


def sinc(x: Any) -> Any:
    """NumPy's `sinc`: sin(pi x) / (pi x), 1 at 0."""
    t = _as_tensor(x)
    if t.dtype.kind not in "fc":
        t = _dn.astype(t, _dn.float64)
    zero = t == 0
    y = math.pi * _dn.where(zero, _dn.ones((), dtype=t.dtype), t)
    return _dn.where(zero, _dn.ones((), dtype=t.dtype), _dn.sin(y) / y)


# Clenshaw's Chebyshev coefficients of `I0` on [0, 8] and (8, inf), as in
# Cephes and NumPy's `i0` (the same series, so the same values).
_I0A = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16,
    1.715391285555133e-15, -1.1685332877993451e-14, 7.676185498604936e-14,
    -4.856446783111929e-13, 2.95505266312964e-12, -1.726826291441556e-11,
    9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07,
    1.1173875391201037e-06, -4.4167383584587505e-06, 1.6448448070728896e-05,
    -5.754195010082104e-05, 0.00018850288509584165, -0.0005763755745385824,
    0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
    -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
    0.17162090152220877, -0.3046826723431984, 0.6767952744094761,
)
_I0B = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17,
    3.461222867697461e-17, -2.8276239805165836e-16, -3.425485619677219e-16,
    1.7725601330565263e-15, 3.8116806693526224e-15, -9.554846698828307e-15,
    -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
    7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11,
    -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10,
    3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07,
    2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
    0.8044904110141088,
)


def _chebyshev(x: Any, coefficients: tuple[float, ...]) -> Any:
    """Clenshaw's recurrence for a Chebyshev series at `x` (NumPy's
    `_chbevl`)."""
    b0, b1, b2 = coefficients[0], 0.0, 0.0
    for c in coefficients[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + c
    return 0.5 * (b0 - b2)


def i0(x: Any) -> Any:
    """NumPy's `i0`: the modified Bessel function of the first kind, order
    0, by NumPy's Chebyshev series on [0, 8] and (8, inf)."""
    t = _as_tensor(x)
    if _dn.isdtype(t.dtype, "complex floating"):
        raise TypeError("i0 not supported for complex values")
    if not _dn.isdtype(t.dtype, "real floating"):
        t = _dn.astype(t, _dn.float64)
    t = _dn.abs(t)
    small = t <= 8.0
    near = _dn.exp(t) * _chebyshev(t / 2.0 - 2, _I0A)
    # The far series at 32/x, with x kept away from 0 where it is unused.
    far_x = _dn.where(small, _dn.full((), 16.0, dtype=t.dtype), t)
    far = _dn.exp(far_x) * _chebyshev(32.0 / far_x - 2.0, _I0B) / _dn.sqrt(far_x)
    return _dn.where(small, near, far)


def fix(x: Any, out: Any = None) -> Any:
    """NumPy's `fix`: rounded towards zero (`-0.5` to `-0.0`), integers and
    bools as they are."""
    from ._numpy_operands import _write_out

    t = _as_tensor(x)
    if _dn.isdtype(t.dtype, "complex floating"):
        raise TypeError("ufunc 'ceil' not supported for the input types")
    r = _dn.trunc(t) if _dn.isdtype(t.dtype, "real floating") else _dn.asarray(t, copy=True)
    return _write_out("fix", out, r, "same_kind", broadcast=True)  # (`trunc`, a ufunc)


def polyval(p: Any, x: Any) -> Any:
    """NumPy's `polyval`: the polynomial with coefficients `p` (highest
    power first) at `x`, by Horner's rule."""
    coeffs = _as_tensor(p)
    xs = _as_tensor(x)
    y = _dn.zeros_like(xs)
    for k in range(coeffs.shape[0] if coeffs.ndim else 1):
        y = y * xs + (coeffs[k] if coeffs.ndim else coeffs)
    return y


def vander(x: Any, N: Any = None, increasing: bool = False) -> Any:
    """NumPy's `vander`: the columns are powers of `x` (decreasing unless
    `increasing`), by running products as NumPy's, in `x`'s dtype
    promoted with int."""
    t = _as_tensor(x)
    if t.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = t.shape[0] if N is None else operator.index(N)
    dt = np.promote_types(_dtype_of(t), np.int_)
    t = _dn.astype(t, dt, copy=False)
    cols = [_dn.ones((t.shape[0], builtins.min(n, 1)), dtype=dt)]
    if n > 1:
        cols.append(_dn.cumulative_prod(_dn.broadcast_to(t[:, None], (t.shape[0], n - 1)), axis=1))
    v = _dn.concat(cols, axis=1)
    return v if increasing else _dn.flip(v, axis=1)


def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: Any = 2 * math.pi) -> Any:
    """NumPy's `unwrap`: `p` with every jump between neighbours along
    `axis` larger than `max(discont, period / 2)` replaced by its
    complement modulo `period`, by NumPy's own steps (the corrections'
    running sum added to `p`), in NumPy's dtype (`p`'s and `period`'s)."""
    t = _as_tensor(p)
    axis = operator.index(axis)
    if not -t.ndim <= axis < t.ndim:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension {t.ndim}")
    axis %= t.ndim
    dd = _dn.diff(t, axis=axis)
    if discont is None:
        discont = period / 2
    dt = np.result_type(_dtype_of(dd), period)
    if np.issubdtype(dt, np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    t, dd = _dn.astype(t, dt, copy=False), _dn.astype(dd, dt, copy=False)
    ddmod = _dn.remainder(dd - low, period) + low
    if ambiguous:
        ddmod = _dn.where((ddmod == low) & (dd > 0), _dn.asarray(high, dtype=dt), ddmod)
    correct = _dn.where(_dn.abs(dd) < discont, _dn.zeros((), dtype=dt), ddmod - dd)
    return _dn.concat([_slab(t, axis, slice(0, 1)),
                       _slab(t, axis, slice(1, None)) + _dn.cumulative_sum(correct, axis=axis)],
                      axis=axis)


def _coefficients(p: Any) -> Any:
    """NumPy's `atleast_1d` of a polynomial's coefficients."""
    t = _as_tensor(p)
    return _dn.reshape(t, (1,)) if t.ndim == 0 else t


def _aligned(a1: Any, a2: Any) -> tuple[Any, Any]:
    """Two coefficient vectors padded with leading zeros to one length."""
    x, y = _coefficients(a1), _coefficients(a2)
    diff = y.shape[0] - x.shape[0]
    if diff > 0:
        x = _dn.concat([_dn.zeros((diff,), dtype=x.dtype), x])
    elif diff < 0:
        y = _dn.concat([_dn.zeros((-diff,), dtype=y.dtype), y])
    return x, y


def polyadd(a1: Any, a2: Any) -> Any:
    """NumPy's `polyadd`: the sum of two polynomials."""
    x, y = _aligned(a1, a2)
    return x + y


def polysub(a1: Any, a2: Any) -> Any:
    """NumPy's `polysub`: the difference of two polynomials."""
    x, y = _aligned(a1, a2)
    return x - y


def _poly1d(p: Any) -> Any:
    """The coefficients NumPy's `poly1d` keeps: leading zeros trimmed (one
    zero left of a zero polynomial); a `ValueError` past one axis."""
    t = _coefficients(p)
    if t.ndim > 1:
        raise ValueError("Polynomial must be 1d only.")
    nonzero = t != 0
    if not bool(_dn.any(nonzero)):
        return _dn.zeros((1,), dtype=t.dtype)
    return t[int(_dn.argmax(nonzero)):]


def polymul(a1: Any, a2: Any) -> Any:
    """NumPy's `polymul`: the product of two polynomials (`convolve` of
    their `poly1d` coefficients, leading zeros trimmed)."""
    return convolve(_poly1d(a1), _poly1d(a2))


def polyder(p: Any, m: Any = 1) -> Any:
    """NumPy's `polyder`: the `m`-th derivative of a polynomial."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    val = _as_tensor(p)
    for _ in range(m):
        n = val.shape[0] - 1
        val = val[:-1] * _dn.arange(n, 0, -1, dtype=_dn.int64)
    return val


def polyint(p: Any, m: Any = 1, k: Any = None) -> Any:
    """NumPy's `polyint`: the `m`-th antiderivative of a polynomial, the
    integration constants `k` (zeros by default; one for all orders, or
    one per order)."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    ks = np.zeros(m, float) if k is None else np.atleast_1d(
        np.asarray(_as_tensor(k)) if isinstance(k, (_dn.Tensor, _dn.Donated)) else k)
    if len(ks) == 1 and m > 1:
        ks = ks[0] * np.ones(m, float)
    if len(ks) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    val = _as_tensor(p)
    for i in range(m):
        y = val / _dn.arange(val.shape[0], 0, -1, dtype=_dn.int64)
        c = np.asarray([ks[i]])
        dt = np.result_type(np.dtype(str(y.dtype)), c.dtype)
        val = _dn.concat([_dn.astype(y, dt, copy=False), _dn.asarray(c.astype(dt))])
    return val


def polydiv(u: Any, v: Any) -> tuple[Any, Any]:
    """NumPy's `polydiv`: the quotient and remainder of `u / v`, by long
    division in NumPy's steps, the remainder's leading zeros (within
    `rtol=1e-14` of 0) dropped."""
    uu, vv = _coefficients(u), _coefficients(v)
    uu = uu if uu.dtype.kind in "fc" else _dn.astype(uu, _dn.float64)
    vv = vv if vv.dtype.kind in "fc" else _dn.astype(vv, _dn.float64)
    dt = np.result_type(np.dtype(str(uu.dtype)), np.dtype(str(vv.dtype)))
    uu, vv = _dn.astype(uu, dt, copy=False), _dn.astype(vv, dt, copy=False)
    m, n = uu.shape[0] - 1, vv.shape[0] - 1
    scale = 1.0 / vv[0]
    q = _dn.zeros((builtins.max(m - n + 1, 1),), dtype=dt)
    r = _dn.asarray(uu, copy=True)
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] = r[k:k + n + 1] - d * vv
    # NumPy's `allclose(r[0], 0, rtol=1e-14)`: within its atol, 1e-8.
    while r.shape[0] > 1 and bool(_dn.abs(r[0]) <= 1e-8):
        r = r[1:]
    return q, r

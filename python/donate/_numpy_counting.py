"""NumPy's counting, binning and ordering functions on tensors: `bincount`,
`histogram`, `histogramdd`, `histogram2d`, `digitize`, `sort_complex`, `interp`, `partition`/`argpartition`, `lexsort`,
`ediff1d` and `pad`. Translation only: each is donate's `sort`, `argsort`,
`searchsorted`, `take`, `cumulative_sum`, `concat` or the core's
`bincount`, with NumPy's arguments, result dtypes and errors.

Decisions (where NumPy leaves room or a composition differs):

- `partition` and `argpartition` sort fully: a sorted lane satisfies
  every `kth` (NumPy leaves the order on either side of `kth`
  unspecified).
- Counts and weighted sums are one pass of the core's `bincount` (its
  length given: `max(x) + 1`, at least `minlength`), each bin adding its
  weights in their order, as NumPy's `bincount`: the same sums to the last
  bit. `histogram` and `histogramdd` find each value's bin by
  `searchsorted` over the edges first (values outside them, and NaN, go
  to an outlier bin that is dropped). Weighted histograms sum in the
  widest dtype of the weights' kind, then cast to the weights' dtype (as
  NumPy's, which wraps an integer sum too wide for it).
- `pad` builds the index of every output position along each axis from
  NumPy's own `pad` of an index vector (so `reflect`, `symmetric` and
  `wrap` follow NumPy's rules to the element, even for widths past the
  axis length), then gathers with `take`; `constant` joins filled blocks.
  The statistic modes (`mean`, `maximum`, ...) and `linear_ramp` raise
  `TypeError`.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

import donate as _dn

from . import _core

from ._numpy_operands import _as_tensor, _number, _refuse

NAMES = ["bincount", "histogram", "digitize", "interp", "partition", "argpartition",
         "lexsort", "sort_complex", "ediff1d", "pad", "histogram_bin_edges", "histogramdd", "histogram2d"]


def _ints_1d(x: Any) -> Any:
    t = _as_tensor(x)
    if t.ndim != 1:
        raise ValueError("object too deep for desired array" if t.ndim > 1 else
                         "object of too small depth for desired array")
    if not (_dn.isdtype(t.dtype, "integral") or t.dtype == _dn.bool):
        raise TypeError(f"Cannot cast array data from dtype('{t.dtype}') to dtype('int64') "
                        "according to the rule 'safe'")
    return t


def bincount(x: Any, weights: Any = None, minlength: int = 0) -> Any:
    """NumPy's `bincount`: how many times each non-negative integer occurs
    (int64), or the sum of its `weights` (float64)."""
    t = _ints_1d(x)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if bool(_dn.any(t < 0)):
        raise ValueError("'list' argument must have no negative elements")
    if not t.shape[0]:  # NumPy's: zeros, int64 even with weights
        return _dn.zeros((minlength,), dtype=_dn.int64)
    n = builtins.max(int(_dn.max(t)) + 1, minlength)
    if weights is None:
        return _core._bincount(t, None, n)
    w = _as_tensor(weights)
    if w.shape != t.shape:
        raise ValueError("The weights and list don't have the same length.")
    return _core._bincount(t, _dn.astype(w, _dn.float64, copy=False), n)


def _edges(a: Any, bins: Any, range: Any, *, dd: bool = False) -> np.ndarray:
    """The bin edges, as NumPy's `histogram_bin_edges` for an int `bins` or
    a sequence of edges (float64 metadata, never the data). `dd`:
    `histogramdd`'s, whose `linspace` takes no dtype: float64 edges from a
    `range=` (Python floats), the data's dtype from its own ends (float32
    edges from a range put a value on an edge in another bin)."""
    if isinstance(bins, str):
        raise _refuse("histogram", f"bins={bins!r} (an estimator)")
    if np.ndim(bins) == 0:
        n = operator.index(bins)
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        if range is not None:
            lo, hi = (float(v) for v in range)
            if lo > hi:
                raise ValueError("max must be larger than min in range parameter.")
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
        elif a.size == 0:
            lo, hi = 0.0, 1.0
        else:
            lo, hi = float(_dn.min(a)), float(_dn.max(a))
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        # NumPy's: edges in the data's float dtype (float64 for integers).
        dtype = np.dtype(str(a.dtype)) if a.dtype.kind == "f" and not (dd and range is not None) \
            else np.dtype(np.float64)
        # Computed in that dtype from the data's own ends (NumPy's are its
        # scalars), in float64 from a given `range` (Python numbers).
        ends = (lo, hi) if range is not None else (dtype.type(lo), dtype.type(hi))
        edges = np.linspace(*ends, n + 1, endpoint=True, dtype=dtype)
        if not dd and np.any(edges[:-1] >= edges[1:]):
            # NumPy's: a range whose width overflows, or too narrow for
            # `n` distinct edges in the dtype.
            raise ValueError(f"Too many bins for data range. Cannot create {n} finite-sized bins.")
        return edges
    edges = np.asarray(bins)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if np.any(edges[:-1] > edges[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges


def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
              weights: Any = None) -> tuple[Any, Any]:
    """NumPy's `histogram`: counts (int64) or summed weights per bin, each
    bin half-open but the last, which holds its right edge; and the
    edges."""
    x = _dn.reshape(_as_tensor(a), (-1,))
    e = _edges(x, bins, range)
    edges = _dn.asarray(e)
    keyed = x if x.dtype.kind == "f" else _dn.astype(x, _dn.float64)
    probe = _dn.astype(edges, keyed.dtype)
    nbins = int(probe.shape[0]) - 1
    # Bin j + 1 holds the values at or past edge j and before edge j + 1;
    # the last bin also holds its right edge. Bins 0 and nbins + 1 (values
    # outside the edges, NaN) are dropped.
    at = _dn.searchsorted(probe, keyed, side="right")
    at = _dn.where(keyed == probe[-1], at - 1, at)
    w = None
    if weights is not None:
        w = _dn.reshape(_as_tensor(weights), (-1,))
        if w.shape != x.shape:
            raise ValueError("weights should have the same shape as a.")
    counts = _core._bincount(at, w, nbins + 2)[1:-1]
    if w is not None:
        counts = _dn.astype(counts, w.dtype, copy=False)
    if density:
        widths = _dn.asarray(np.diff(e).astype(np.float64))
        counts = _dn.astype(counts, _dn.float64) / widths / _dn.sum(_dn.astype(counts, _dn.float64))
    return counts, edges


def _sample(sample: Any) -> Any:
    """`histogramdd`'s sample as an `(N, D)` tensor: a 2-d tensor as it
    is, anything else (a vector, a sequence of coordinate vectors) as
    NumPy's `atleast_2d(sample).T`."""
    if isinstance(sample, (_dn.Tensor, _dn.Donated, np.ndarray)):
        t = _as_tensor(sample)
        if t.ndim == 2:
            return t
        return _dn.reshape(t, (-1, 1)) if t.ndim <= 1 else _dn.matrix_transpose(t)
    cols = [_as_tensor(c) for c in sample]
    dt = np.result_type(*(c.dtype for c in cols))
    return _dn.stack([c if c.dtype == dt else _dn.astype(c, dt) for c in cols], axis=1)


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple[Any, list[Any]]:
    """NumPy's `histogramdd`: the float64 counts (or summed weights) of
    the `(N, D)` points in each cell of a D-dimensional grid of bins, each
    bin half-open but the last along each axis; and each axis's edges."""
    x = _sample(sample)
    n, d = x.shape
    try:
        if len(bins) != d:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             "sample x.")
    except TypeError:
        bins = d * [bins]
    if range is None:
        range = (None,) * d
    elif len(range) != d:
        raise ValueError("range argument must have one entry per dimension")
    edges = [_edges(x[:, i], bins[i], range[i], dd=True) for i in builtins.range(d)]
    nbin = [len(e) + 1 for e in edges]  # an outlier bin at each end
    flat = _dn.zeros((n,), dtype=_dn.int64)
    stride = 1
    for i in builtins.reversed(builtins.range(d)):
        col = x[:, i]
        dt = np.result_type(col.dtype, edges[i].dtype)
        col = col if col.dtype == dt else _dn.astype(col, dt)
        e = _dn.asarray(edges[i].astype(dt))
        at = _dn.searchsorted(e, col, side="right")
        # Values on the last edge belong to the last bin, not past it.
        at = _dn.where(col == e[-1], at - 1, at)
        flat = flat + _dn.astype(at, _dn.int64) * stride
        stride *= nbin[i]
    hist = bincount(flat, weights=None if weights is None else
                    _dn.reshape(_as_tensor(weights), (-1,)), minlength=stride)
    hist = _dn.reshape(_dn.astype(hist, _dn.float64), tuple(nbin))
    hist = hist[(slice(1, -1),) * d]
    if density:
        total = _dn.sum(hist)
        for i in builtins.range(d):
            shape = [1] * d
            shape[i] = nbin[i] - 2
            hist = hist / _dn.asarray(np.diff(edges[i]).astype(np.float64).reshape(shape))
        hist = hist / total
    return hist, [_dn.asarray(e) for e in edges]


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None,
                weights: Any = None) -> tuple[Any, Any, Any]:
    """NumPy's `histogram2d`: `histogramdd` of the points (`x`, `y`); the
    counts and the edges along each."""
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):
        bins = [bins, bins]
    hist, (ex, ey) = histogramdd([x, y], bins, range, density, weights)
    return hist, ex, ey


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """NumPy's `histogram_bin_edges` (an int `bins` or edges)."""
    return _dn.asarray(_edges(_dn.reshape(_as_tensor(a), (-1,)), bins, range))


def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """NumPy's `digitize`: the index of the bin each value falls in, for
    increasing or decreasing `bins` (int64)."""
    t, b = _as_tensor(x), _as_tensor(bins)
    if b.ndim != 1:
        raise ValueError("object too deep for desired array" if b.ndim else
                         "object of too small depth for desired array")
    if t.dtype.kind == "c" or b.dtype.kind == "c":
        raise TypeError("x may not be complex")
    nb = b.shape[0]
    increasing = nb < 2 or bool(_dn.all(b[1:] >= b[:-1]))
    if not increasing and not bool(_dn.all(b[1:] <= b[:-1])):
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if increasing:
        return _dn.searchsorted(b, t, side=side)
    return nb - _dn.searchsorted(_dn.flip(b), t, side=side)


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> Any:
    """NumPy's `interp`: piecewise-linear interpolation of (`xp`, `fp`) at
    `x`, in float64, with NumPy's rules at the points themselves."""
    if period is not None:
        raise _refuse("interp", "period=")
    xs = _dn.astype(_as_tensor(x), _dn.float64)
    px, py = _as_tensor(xp), _as_tensor(fp)
    if px.ndim != 1 or py.ndim != 1:
        raise ValueError("object too deep for desired array")
    if py.dtype.kind == "c":
        raise _refuse("interp", "complex fp")
    if px.shape[0] != py.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if px.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    px, py = _dn.astype(px, _dn.float64), _dn.astype(py, _dn.float64)
    n = px.shape[0]
    lo = py[0] if left is None else _number(float(left))
    hi = py[-1] if right is None else _number(float(right))
    if n == 1:
        y = _dn.broadcast_to(py, xs.shape)
    else:
        j = _dn.clip(_dn.searchsorted(px, xs, side="right") - 1, 0, n - 2)
        x0, x1 = _dn.take(px, j), _dn.take(px, j + 1)
        y0, y1 = _dn.take(py, j), _dn.take(py, j + 1)
        slope = (y1 - y0) / (x1 - x0)
        y = slope * (xs - x0) + y0
        # NumPy's fallbacks where that is NaN (an infinite slope or value).
        again = slope * (xs - x1) + y1
        y = _dn.where(_dn.isnan(y), again, y)
        y = _dn.where(_dn.isnan(y) & (y0 == y1), y0, y)
        y = _dn.where(xs == x0, y0, y)
        y = _dn.where(xs == px[-1], py[-1], y)
    y = _dn.where(xs < px[0], lo, y)
    y = _dn.where(xs > px[-1], hi, y)
    return _dn.where(_dn.isnan(xs), xs, y)


def _kth(name: str, kth: Any, n: int) -> None:
    if isinstance(kth, (bool, np.bool_)) or np.asarray(kth).dtype == np.bool_:
        raise ValueError("Booleans unacceptable as partition index")
    for k in np.atleast_1d(np.asarray(kth)).tolist():
        if not isinstance(k, int):
            raise TypeError("Partition index must be integer")
        if n and not -n <= k < n:  # (NumPy checks nothing of an empty axis)
            raise ValueError(f"kth(={k}) out of bounds ({n})")


def partition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
              order: Any = None) -> Any:
    """NumPy's `partition`, as a full sort (which satisfies every `kth`)."""
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    if order is not None:
        raise _refuse("partition", "order=")
    x = _as_tensor(a)
    if axis is None:
        x, axis = _dn.reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise _dn.AxisError("axis -1 is out of bounds for array of dimension 0")
    _kth("partition", kth, x.shape[axis])
    return _dn.sort(x, axis=axis, stable=True)


def argpartition(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect",
                 order: Any = None) -> Any:
    """NumPy's `argpartition`, as a full (stable) argsort."""
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    if order is not None:
        raise _refuse("argpartition", "order=")
    x = _as_tensor(a)
    if axis is None or x.ndim == 0:
        x, axis = _dn.reshape(x, (-1,)), 0
    _kth("argpartition", kth, x.shape[axis])
    return _dn.argsort(x, axis=axis, stable=True)


def lexsort(keys: Any, axis: int = -1) -> Any:
    """NumPy's `lexsort`: the order that sorts by the last key, then by the
    one before it, ...: stable argsorts from the first key to the last."""
    if isinstance(keys, (_dn.Tensor, _dn.Donated, np.ndarray)):
        k = _as_tensor(keys)
        if k.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        ks = [k[i] for i in builtins.range(k.shape[0])]
    else:
        ks = [_as_tensor(k) for k in keys]
    if not ks:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = ks[0].shape
    if builtins.any(k.shape != shape for k in ks):
        raise ValueError("all keys need to be the same shape")
    if len(shape) == 0:
        return _dn.asarray(0, dtype=_dn.int64)
    idx = None
    for k in ks:
        kk = k if idx is None else _dn.take_along_axis(k, idx, axis=axis)
        step = _dn.argsort(kk, axis=axis, stable=True)
        idx = step if idx is None else _dn.take_along_axis(idx, step, axis=axis)
    return idx


def sort_complex(a: Any) -> Any:
    """NumPy's `sort_complex`: sorted along the last axis by real part,
    then imaginary part, as complex (complex64 for integers of 8 and 16
    bits, complex128 otherwise, as NumPy's)."""
    t = _as_tensor(a)
    if t.dtype.kind != "c":
        t = _dn.astype(t, _dn.complex64 if str(t.dtype) in ("int8", "int16", "uint8", "uint16")
                       else _dn.complex128)
    if t.ndim == 0:
        return t
    # NumPy's order of complex numbers: R+Rj < R+nanj < nan+Rj <
    # nan+nanj, each class by real part, then imaginary part.
    re, im = _dn.real(t), _dn.imag(t)
    nan_class = _dn.astype(_dn.isnan(re), _dn.int8) * 2 + _dn.astype(_dn.isnan(im), _dn.int8)
    order = lexsort([im, re, nan_class], axis=-1)
    return _dn.take_along_axis(t, order, axis=-1)


def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> Any:
    """NumPy's `ediff1d`: the differences of the flattened array, with
    `to_begin` and `to_end` (cast to its dtype) around them."""
    x = _dn.reshape(_as_tensor(ary), (-1,))
    d = x[1:] - x[:-1]

    def end(e: Any, which: str) -> Any:
        e = e if isinstance(e, (_dn.Tensor, _dn.Donated)) else np.asarray(e)
        if not np.can_cast(e.dtype, x.dtype, casting="same_kind"):
            raise TypeError(f"dtype of `{which}` must be compatible with input `ary` under the "
                            "`same_kind` rule.")
        return _dn.reshape(_dn.astype(_as_tensor(e), x.dtype), (-1,))

    parts = ([] if to_begin is None else [end(to_begin, "to_begin")]) + [d] + \
        ([] if to_end is None else [end(to_end, "to_end")])
    return d if len(parts) == 1 else _dn.concat(parts)


_PAD_MODES = {"constant", "edge", "reflect", "symmetric", "wrap", "empty"}


def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
    """NumPy's `pad` for the modes `constant` (and `empty`, filled with
    zeros), `edge`, `reflect`, `symmetric` and `wrap`."""
    if callable(mode) or mode not in _PAD_MODES:
        if callable(mode) or mode in {"linear_ramp", "maximum", "mean", "median", "minimum"}:
            raise _refuse("pad", f"mode={getattr(mode, '__name__', mode)!r}")
        raise ValueError(f"mode '{mode}' is not supported")
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, set())
    extra = set(kwargs) - allowed
    if extra:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {extra}")
    if kwargs.get("reflect_type", "even") != "even":
        raise _refuse("pad", "reflect_type='odd'")
    x = _as_tensor(array)
    widths = np.broadcast_to(np.asarray(pad_width), (x.ndim, 2)) if x.ndim else np.zeros((0, 2))
    if widths.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    if np.any(widths < 0):
        raise ValueError("index can't contain negative values")
    if not widths.any():
        # NumPy's pad returns a new array even when it pads nothing.
        return x.copy()
    if mode in ("constant", "empty"):
        values = np.broadcast_to(np.asarray(kwargs.get("constant_values", 0)), (x.ndim, 2))
        for ax, (before, after) in enumerate(widths.tolist()):
            if before == after == 0:
                continue
            parts = []
            for width, value in ((before, values[ax][0]), (0, None), (after, values[ax][1])):
                if value is None:
                    parts.append(x)
                elif width:
                    shape = list(x.shape)
                    shape[ax] = width
                    fill = value if mode == "constant" else 0
                    # NumPy assigns the value as a Python number: a float
                    # truncated into integers, one out of their range an
                    # OverflowError, NaN a ValueError (never wrapped).
                    cell = np.empty((), dtype=np.dtype(str(x.dtype)))
                    cell[()] = np.asarray(fill).item()
                    fill = cell.item()
                    parts.append(_dn.full(tuple(shape), fill, dtype=x.dtype))
            x = _dn.concat(parts, axis=ax)
        return x
    for ax, (before, after) in enumerate(widths.tolist()):
        if before == after == 0:
            continue
        n = x.shape[ax]
        if n == 0:
            raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' "
                             "or 'empty'")
        index = np.pad(np.arange(n), (before, after), mode=mode)
        x = _dn.take(x, _dn.asarray(index.astype(np.int64)), axis=ax)
    return x

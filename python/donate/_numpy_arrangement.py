"""NumPy's rearranging functions on tensors, as views where NumPy's are
views: `fliplr`, `flipud`, `rot90` (flips and a transposition, each a
view of the input), the `split` family (basic slices of the input, so a
write through a piece is seen in the input, as NumPy's), and `dstack`
(a new tensor). Translation only: each is donate's `flip`,
`permute_dims`, slicing or `concat`, with NumPy's arguments and errors.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import _as_tensor, _donatable


def fliplr(m: Any) -> Any:
    x = _donatable(m, None)
    if x.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return _dn.flip(x, axis=1)


def flipud(m: Any) -> Any:
    x = _donatable(m, None)
    if x.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return _dn.flip(x, axis=0)


def rot90(m: Any, k: int = 1, axes: Sequence[int] = (0, 1)) -> Any:
    """NumPy's `rot90`: `k` quarter turns from the first axis of `axes`
    towards the second, as flips and a transposition (views)."""
    x = _as_tensor(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or builtins.abs(axes[0] - axes[1]) == x.ndim:
        raise ValueError("Axes must be different.")
    if not all(-x.ndim <= a < x.ndim for a in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={x.ndim}.")
    k %= 4
    if k == 0:
        return x[...]
    if k == 2:
        return _dn.flip(_dn.flip(x, axis=axes[0]), axis=axes[1])
    order = list(range(x.ndim))
    a0, a1 = axes[0] % x.ndim, axes[1] % x.ndim
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return _dn.permute_dims(_dn.flip(x, axis=axes[1]), tuple(order))
    return _dn.flip(_dn.permute_dims(x, tuple(order)), axis=axes[1])


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """NumPy's `array_split`: pieces along `axis` as basic slices (views);
    `n` sections, the first `len % n` one element longer, or the pieces
    between the given indices."""
    x = _as_tensor(ary)
    total = x.shape[axis]
    try:  # NumPy's test: a sequence of indices has a length
        len(indices_or_sections)
        given = True
    except TypeError:
        given = False
    if not given:
        n = operator.index(indices_or_sections)
        if n <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(total, n)
        sizes = [each + 1] * extra + [each] * (n - extra)
        points = [0]
        for s in sizes:
            points.append(points[-1] + s)
    else:
        points = [0, *(int(i) for i in indices_or_sections), total]
    lead = (slice(None),) * (axis % x.ndim if x.ndim else 0)
    return [x[(*lead, slice(a, b))] for a, b in zip(points[:-1], points[1:])]


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    x = _as_tensor(ary)
    try:
        len(indices_or_sections)
    except TypeError:
        if x.shape[axis] % operator.index(indices_or_sections):
            raise ValueError("array split does not result in an equal division") from None
    return array_split(x, indices_or_sections, axis)


def hsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    x = _as_tensor(ary)
    if x.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    x = _as_tensor(ary)
    if x.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(x, indices_or_sections, 0)


def dsplit(ary: Any, indices_or_sections: Any) -> list[Any]:
    x = _as_tensor(ary)
    if x.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(x, indices_or_sections, 2)


def _atleast_3d(x: Any) -> Any:
    """NumPy's `atleast_3d`: `()` -> `(1, 1, 1)`, `(n,)` -> `(1, n, 1)`,
    `(m, n)` -> `(m, n, 1)`."""
    t = _as_tensor(x)
    if t.ndim == 0:
        return _dn.reshape(t, (1, 1, 1))
    if t.ndim == 1:
        return _dn.reshape(t, (1, t.shape[0], 1))
    if t.ndim == 2:
        return _dn.reshape(t, (*t.shape, 1))
    return t


def dstack(tup: Sequence[Any]) -> Any:
    return _dn.concat([_atleast_3d(x) for x in tup], axis=2)


NAMES = ["fliplr", "flipud", "rot90", "array_split", "split", "hsplit", "vsplit",
         "dsplit", "dstack", "block"]


def _block_depth(x: Any, path: str) -> int:
    """How deep `block`'s nested lists go at `path` (all leaves at one
    depth, as NumPy requires)."""
    if isinstance(x, tuple):
        raise TypeError(f"{path} is a tuple. Only lists can be used to arrange blocks, and "
                        "np.block does not allow implicit conversion from tuple to ndarray.")
    if not isinstance(x, list):
        return 0
    if not x:
        raise ValueError(f"List at {path} cannot be empty")
    depths = [_block_depth(v, f"{path}[{i}]") for i, v in enumerate(x)]
    if len(set(depths)) != 1:
        raise ValueError(f"List depths are mismatched. First element was at depth "
                         f"{depths[0] + 1}, but there is an element at depth "
                         f"{builtins.min(depths) + 1} ({path})")
    return depths[0] + 1


def _leaves(x: Any) -> list[Any]:
    return [t for v in x for t in _leaves(v)] if isinstance(x, list) else [_as_tensor(x)]


def block(arrays: Any) -> Any:
    """NumPy's `block`: nested lists of tensors joined, the innermost
    lists along the last axis, each outer level along the axis before;
    every block first given leading axes of length 1 up to the deepest
    rank."""
    depth = _block_depth(arrays, "arrays")
    leaves = _leaves(arrays)
    ndim = builtins.max(depth, *(t.ndim for t in leaves))
    dt = np.result_type(*(t.dtype for t in leaves))

    def build(x: Any, level: int) -> Any:
        if isinstance(x, list):
            return _dn.concat([build(v, level + 1) for v in x], axis=level - depth)
        t = _as_tensor(x)
        t = t if t.dtype == dt else _dn.astype(t, dt)
        return _dn.reshape(t, (1,) * (ndim - t.ndim) + t.shape)

    if depth == 0:
        return _dn.asarray(build(arrays, 0), copy=True)
    return build(arrays, 0)

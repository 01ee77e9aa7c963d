"""NumPy's functions that only read an array and return no array, on
tensors: saving (`np.save`, `np.savez`, `np.savez_compressed`,
`np.savetxt`), printing (`np.array2string`, `np.array_repr`,
`np.array_str`) and type queries (`np.common_type`,
`np.min_scalar_type`, `np.einsum_path`); and the two that call a Python
function on parts of a tensor (`np.apply_along_axis`,
`np.apply_over_axes`).

The readers run NumPy's own function on read-only NumPy views of the
tensors (`np.asarray(t)`: no copy, and the view holds an export of the
buffer, so the tensor is not donated while NumPy reads it). What they
return is NumPy's: a file written, a string, a dtype, a contraction path.
They never return an array, so nothing donate computes is replaced by a
NumPy result ("what donate does not implement is an error" is about
arrays).

`apply_along_axis` and `apply_over_axes` are translations: the function
receives tensors (the 1-d slices, or the whole tensor and an axis), and
the results are joined with donate's `stack`, `reshape` and
`moveaxis`, as NumPy's loop joins them.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

import donate as _dn

from ._numpy_operands import _as_tensor

READERS = ["save", "savez", "savez_compressed", "savetxt", "array2string", "array_repr",
           "array_str", "common_type", "min_scalar_type", "einsum_path"]
NAMES = [*READERS, "apply_along_axis", "apply_over_axes"]


def _view(x: Any) -> Any:
    """A tensor as a read-only NumPy view; anything else as it is (lists
    and tuples of operands too)."""
    if isinstance(x, (_dn.Tensor, _dn.Donated)):
        return np.asarray(_as_tensor(x))
    if isinstance(x, (list, tuple)) and any(isinstance(v, (_dn.Tensor, _dn.Donated)) for v in x):
        return type(x)(_view(v) for v in x)
    return x


def _reader(name: str) -> Callable[..., Any]:
    impl = getattr(np, name)._implementation

    def read(*args: Any, **kwargs: Any) -> Any:
        return impl(*(_view(a) for a in args), **{k: _view(v) for k, v in kwargs.items()})

    read.__name__ = read.__qualname__ = name
    read.__doc__ = f"NumPy's `{name}`, reading the tensors through read-only NumPy views."
    return read


for _name in READERS:
    globals()[_name] = _reader(_name)


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any,
                     **kwargs: Any) -> Any:
    """NumPy's `apply_along_axis`: `func1d` of every 1-d slice of `arr`
    along `axis` (a tensor each), the results (all of one shape) in
    place of that axis."""
    x = _as_tensor(arr)
    nd = x.ndim
    axis = operator.index(axis)
    if not -nd <= axis < nd:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension {nd}")
    axis %= nd
    moved = _dn.moveaxis(x, axis, -1)
    outer = moved.shape[:-1]
    if 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    results = [_as_tensor(func1d(moved[idx], *args, **kwargs))
               for idx in itertools.product(*(range(n) for n in outer))]
    first = results[0]
    for r in results[1:]:
        if r.shape != first.shape:
            raise ValueError(f"could not broadcast input array from shape {r.shape} into shape "
                             f"{first.shape}")
    dt = first.dtype  # NumPy's: the first result's, the others cast into it
    joined = _dn.reshape(_dn.stack([r if r.dtype == dt else _dn.astype(r, dt) for r in results]),
                         (*outer, *first.shape))
    # The result's axes take the place of `axis`, as NumPy's.
    k = first.ndim
    order = [*range(axis), *range(len(outer), len(outer) + k), *range(axis, len(outer))]
    return _dn.permute_dims(joined, tuple(order))


def apply_over_axes(func: Callable[..., Any], a: Any, axes: Any) -> Any:
    """NumPy's `apply_over_axes`: `func(a, axis)` for each axis in turn,
    a result with one dimension less given it back (as a reduction with
    `keepdims`)."""
    val = _as_tensor(a)
    n = val.ndim
    for axis in (axes,) if np.ndim(axes) == 0 else tuple(axes):
        axis = operator.index(axis)
        if axis < 0:
            axis += n
        res = _as_tensor(func(val, axis))
        if res.ndim == val.ndim:
            val = res
        else:
            res = _dn.expand_dims(res, axis=axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
            val = res
    return val

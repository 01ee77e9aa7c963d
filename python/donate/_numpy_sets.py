"""NumPy's set functions of arrays on tensors: `isin` (each element
looked up in the sorted test values with `searchsorted`; complex values,
which donate does not sort, compared pairwise), `intersect1d`,
`union1d`, `setdiff1d` and `setxor1d` (through `np.unique`'s translation, so NaNs
merge as NumPy 2's). Translation only: compositions
of donate's functions, with NumPy's dtypes and results.
"""

from __future__ import annotations

from typing import Any

import donate as _dn

from ._numpy_operands import _as_tensor, _flat, _refuse


def _common(*xs: Any) -> list[Any]:
    dt = _dn.result_type(*xs)
    return [x if x.dtype == dt else _dn.astype(x, dt) for x in xs]


def isin(element: Any, test_elements: Any, assume_unique: bool = False,
         invert: bool = False, *, kind: Any = None) -> Any:
    e, t = _as_tensor(element), _flat(test_elements)
    if not (e.dtype.kind in "iu" and t.dtype.kind in "iu"):
        # (Integers are looked up in their own dtypes: searchsorted and `==`
        # compare int64 with uint64 exactly, where their common float64
        # merged 2**53 and 2**53 + 1.)
        e, t = _common(e, t)
    if t.shape[0] == 0:
        found = _dn.zeros(e.shape, dtype=_dn.bool)
    elif e.dtype.kind == "c":
        found = _dn.any(_dn.expand_dims(e, axis=-1) == t, axis=-1)
    else:
        s = _dn.sort(t)
        i = _dn.clip(_dn.searchsorted(s, e), 0, s.shape[0] - 1)
        found = _dn.take(s, _dn.reshape(i, (-1,)), axis=0) == _dn.reshape(e, (-1,))
        found = _dn.reshape(found, e.shape)
    return _dn.logical_not(found) if invert else found


def _sort_complex(x: Any) -> Any:
    from ._numpy_counting import sort_complex

    return sort_complex(x)


def _unique(x: Any) -> Any:
    from ._numpy_functions import unique

    return unique(x)


def intersect1d(ar1: Any, ar2: Any, assume_unique: bool = False,
                return_indices: bool = False) -> Any:
    if return_indices:
        raise _refuse("intersect1d", "return_indices=")
    a, b = _common(_flat(ar1), _flat(ar2))
    u = _unique(a)
    return u[isin(u, b)]


def union1d(ar1: Any, ar2: Any) -> Any:
    # NumPy's `unique(concatenate((ar1, ar2), axis=None))`: a Python number
    # weak (`union1d(float32_t, 2)` stays float32).
    from ._numpy_functions import concatenate
    return _unique(concatenate([ar1, ar2], axis=None))


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """NumPy's `setdiff1d`: the values of `ar1` not in `ar2`, sorted and
    unique; with `assume_unique`, `ar1` raveled in its own order."""
    u = _flat(ar1) if assume_unique else _unique(_flat(ar1))
    return u[isin(u, ar2, invert=True)]


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """NumPy's `setxor1d`: the sorted values in exactly one of the two."""
    a, b = _common(_flat(ar1), _flat(ar2))
    if not assume_unique:
        a, b = _unique(a), _unique(b)
    both = _dn.concat([a, b])
    # (Complex values in NumPy's order, real part then imaginary.)
    both = _sort_complex(both) if both.dtype.kind == "c" else _dn.sort(both)
    if both.shape[0] == 0:
        return both
    edge = _dn.ones((1,), dtype=_dn.bool)
    fresh = _dn.concat([edge, both[1:] != both[:-1], edge])
    return both[_dn.logical_and(fresh[1:], fresh[:-1])]


NAMES = ["isin", "intersect1d", "union1d", "setdiff1d", "setxor1d"]

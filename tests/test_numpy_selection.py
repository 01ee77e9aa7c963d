"""NumPy's selecting and index-building functions on tensors, which donate
used to refuse ("no implementation found"): `select`, `choose`,
`compress`, `extract`, `delete`, `append`, `resize`, `trim_zeros`,
`rollaxis`, `ix_`, `unravel_index`, `ravel_multi_index`, the
`*_indices_from` family, `diagflat`, `isreal`, `iscomplex`,
`real_if_close`, and NumPy 2's names for donate's functions
(`cumulative_sum`, `cumulative_prod`, `unique_*`, `unstack`,
`matrix_transpose`); against NumPy as the oracle for values, dtypes,
shapes and the error class."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate
from helpers import close as check
from helpers import raises_as_numpy

X = np.arange(10.0)
I = np.arange(12).reshape(3, 4)
Z = np.zeros((2, 3, 4, 5))
C = np.array([1 + 1e-15j, 2 + 0j])


def tensors(args: tuple[Any, ...]) -> list[Any]:
    return [donate.asarray(a) if isinstance(a, np.ndarray) else a for a in args]




CASES: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("select", lambda c1, c2, a, b: np.select((c1, c2), (a, b), 42), (X < 3, X > 5, X, X**2)),
    ("select keeps float32 with a Python default", lambda c, a: np.select((c,), (a,)),
     (X < 3, X.astype(np.float32))),
    ("select with an array default", lambda c, a, d: np.select((c,), (a,), d),
     (X < 3, X.astype(np.float32), np.float64(-1.0))),
    ("choose", lambda a, c0, c1: np.choose(a, (c0, c1)), (np.array([0, 1, 1, 0]), np.arange(4),
                                                          np.arange(4) * 10)),
    ("choose broadcasts", lambda a, c0, c1: np.choose(a, (c0, c1)),
     (np.array([[0], [1]]), np.arange(3), np.arange(3.0) * 10)),
    ("choose wrap", lambda a, c0, c1: np.choose(a, (c0, c1), mode="wrap"),
     (np.array([0, 3, -1, 0]), np.arange(4), np.arange(4) * 10)),
    ("choose clip", lambda a, c0, c1: np.choose(a, (c0, c1), mode="clip"),
     (np.array([0, 3, -1, 0]), np.arange(4), np.arange(4) * 10)),
    ("compress", lambda c, a: np.compress(c, a, axis=1), (np.array([True, False, True]), I)),
    ("compress flattened, short condition", lambda c, a: np.compress(c, a),
     (np.array([False, True]), I)),
    ("extract", lambda c, a: np.extract(c, a), (I % 3 == 0, I)),
    ("delete indices", lambda a: np.delete(a, [0, -1], axis=1), (I,)),
    ("delete a slice, flattened", lambda a: np.delete(a, slice(1, None, 2)), (I,)),
    ("delete a mask", lambda a: np.delete(a, np.array([True, False, True]), axis=0), (I,)),
    ("append flattened", lambda a, b: np.append(a, b), (I, X)),
    ("append along an axis", lambda a, b: np.append(a, b, axis=0), (I, I)),
    ("append a list", lambda a: np.append(a, [1.5, 2.5]), (I.astype(np.int32),)),
    ("resize larger", lambda a: np.resize(a, (5, 5)), (I,)),
    ("resize smaller", lambda a: np.resize(a, 5), (I,)),
    ("resize empty", lambda a: np.resize(a, (2, 2)), (np.zeros(0, np.int8),)),
    ("trim_zeros", lambda a: np.trim_zeros(a), (np.array([0, 0, 1, 2, 0, 3, 0]),)),
    ("trim_zeros front", lambda a: np.trim_zeros(a, "f"), (np.array([0, 0, 1, 2, 0, 3, 0]),)),
    ("trim_zeros back", lambda a: np.trim_zeros(a, "b"), (np.array([0, 0, 1, 2, 0, 3, 0]),)),
    ("trim_zeros all zeros", lambda a: np.trim_zeros(a), (np.zeros(3),)),
    ("rollaxis back", lambda a: np.rollaxis(a, 3, 1), (Z,)),
    ("rollaxis forward", lambda a: np.rollaxis(a, 1, 4), (Z,)),
    ("rollaxis negative", lambda a: np.rollaxis(a, -1, -3), (Z,)),
    ("ix_", lambda a, b: np.ix_(a, b), (np.array([0, 1]), np.array([True, False, True]))),
    ("unravel_index", lambda a: np.unravel_index(a, (7, 6)), (np.array([22, 41, 37]),)),
    ("unravel_index F", lambda a: np.unravel_index(a, (7, 6), order="F"), (np.array([22, 41]),)),
    ("ravel_multi_index", lambda a, b: np.ravel_multi_index((a, b), (7, 6)),
     (np.array([3, 6, 6]), np.array([4, 5, 1]))),
    ("ravel_multi_index clip", lambda a, b: np.ravel_multi_index((a, b), (4, 6), mode="clip"),
     (np.array([3, 6, 6]), np.array([4, 7, 1]))),
    ("ravel_multi_index F wrap", lambda a, b: np.ravel_multi_index((a, b), (4, 6), mode="wrap",
                                                                   order="F"),
     (np.array([3, 6, -6]), np.array([4, 7, 1]))),
    ("tril_indices_from", lambda a: np.tril_indices_from(a, 1), (I,)),
    ("triu_indices_from", lambda a: np.triu_indices_from(a, -1), (I,)),
    ("diag_indices_from", np.diag_indices_from, (np.eye(3),)),
    ("diagflat", lambda a: np.diagflat(a, 1), (np.array([[1, 2], [3, 4]]),)),
    ("isreal", np.isreal, (C,)),
    ("isreal of reals", np.isreal, (X,)),
    ("iscomplex", np.iscomplex, (C,)),
    ("iscomplex of reals", np.iscomplex, (I,)),
    ("real_if_close", np.real_if_close, (C,)),
    ("real_if_close far", np.real_if_close, (np.array([1 + 1j]),)),
    ("cumulative_sum", lambda a: np.cumulative_sum(a, axis=1, include_initial=True),
     (I.astype(np.int32),)),
    ("cumulative_sum with a dtype", lambda a: np.cumulative_sum(a, dtype=np.float32), (X,)),
    ("cumulative_prod", lambda a: np.cumulative_prod(a, axis=0), (I,)),
    ("unique_counts", lambda a: tuple(np.unique_counts(a)), (np.array([3, 1, 3, 2]),)),
    ("unique_inverse", lambda a: tuple(np.unique_inverse(a)), (np.array([3, 1, 3, 2]),)),
    # (NumPy 2.3's unique_values is in no particular order; donate's sorted.)
    ("unique_values", lambda a: np.sort(np.unique_values(a)), (np.array([3, 1, 3, 2]),)),
    ("unstack", lambda a: np.unstack(a, axis=1), (I,)),
    ("matrix_transpose", np.matrix_transpose, (I,)),
]


@pytest.mark.parametrize("name, f, args", CASES, ids=[c[0] for c in CASES])
def test_against_numpy(name: str, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    check(f(*tensors(args)), f(*args))


ERRORS: list[tuple[str, Callable[..., Any], tuple[Any, ...]]] = [
    ("select lengths", lambda c, a: np.select((c, c), (a,)), (X < 3, X)),
    ("select not bool", lambda c, a: np.select((c,), (a,)), (X, X)),
    ("choose out of range", lambda a, c: np.choose(a, (c, c)), (np.array([0, 2]), X[:2])),
    ("compress too long", lambda c, a: np.compress(c, a, axis=0), (np.ones(4, bool), I)),
    ("delete out of bounds", lambda a: np.delete(a, 12), (I,)),
    ("delete a bad mask", lambda a: np.delete(a, np.array([True]), axis=0), (I,)),
    ("rollaxis start", lambda a: np.rollaxis(a, 0, 6), (Z,)),
    ("unravel_index out of bounds", lambda a: np.unravel_index(a, (2, 3)), (np.array([6]),)),
    ("ravel_multi_index raise", lambda a, b: np.ravel_multi_index((a, b), (2, 3)),
     (np.array([2]), np.array([0]))),
    ("ix_ of 2-d", np.ix_, (I,)),
    ("resize negative", lambda a: np.resize(a, (-1, 2)), (I,)),
]


@pytest.mark.parametrize("name, f, args", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_as_numpy_s(name: str, f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    raises_as_numpy(f, args)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5)), st.data())
def test_delete_and_unravel_index(x: np.ndarray, data: Any) -> None:
    axis = data.draw(st.integers(0, x.ndim - 1))
    n = x.shape[axis]
    obj = data.draw(st.lists(st.integers(-n, n - 1), max_size=4)) if n else []
    check(np.delete(donate.asarray(x), obj, axis=axis), np.delete(x, obj, axis=axis))
    flat = np.arange(x.size)
    check(np.unravel_index(donate.asarray(flat), x.shape), np.unravel_index(flat, x.shape))


def test_rollaxis_is_a_view() -> None:
    t = donate.asarray(np.zeros((2, 3, 4)))
    v = np.rollaxis(t, 2)
    v[0, 1, 2] = 5.0
    assert float(t[1, 2, 0]) == 5.0

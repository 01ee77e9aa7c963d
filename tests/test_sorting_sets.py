"""`sort`, `argsort`, `searchsorted`, `nonzero` and the `unique_*`
functions against NumPy: every dtype, NaN (sorted last; each NaN its own
unique value), signed zeros, empty arrays, views as inputs, `descending`
(stable: equal elements keep their order).

Each result but `sort`'s is a new tensor: the input is unchanged, an
explicitly donated input is refused with a `DonationWarning` and stays
intact. `sort` writes over a temporary or donated input
(tests/test_lane_ops.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from array_strategies import arrays, assert_same, numpy_of, tensors
from hypothesis import given
from hypothesis import strategies as st

import donate


def stable_argsort(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """NumPy's stable argsort; descending with equal elements (and NaNs)
    in their original order: the ascending sort of the reversed axis,
    reversed."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    r = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (n - 1 - np.flip(r, axis)).astype(np.int64)


@given(data=st.data())
def test_sort_and_argsort_match_numpy(data: st.DataObject) -> None:
    x = data.draw(arrays(small=False, min_dims=1, max_side=6))
    t = data.draw(tensors(x))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    descending = data.draw(st.booleans())
    stable = data.draw(st.booleans())
    want = stable_argsort(x, axis, descending)
    got = donate.argsort(t, axis=axis, descending=descending, stable=stable)
    assert_same(got, want.astype(np.int64))
    s = donate.sort(t, axis=axis, descending=descending, stable=stable)
    assert_same(s, np.take_along_axis(x, want, axis))
    np.testing.assert_array_equal(numpy_of(t), x)


def test_sort_puts_nan_last_and_keeps_ties_in_order() -> None:
    x = np.array([2.0, np.nan, -0.0, 1.0, 0.0, np.nan], np.float64)
    t = donate.asarray(x)
    np.testing.assert_array_equal(donate.argsort(t).numpy(), [2, 4, 3, 0, 1, 5])
    np.testing.assert_array_equal(donate.argsort(t, descending=True).numpy(), [1, 5, 0, 3, 2, 4])
    s = donate.sort(t).numpy()
    assert np.signbit(s[0]) and not np.signbit(s[1])


@given(data=st.data())
def test_searchsorted_matches_numpy(data: st.DataObject) -> None:
    raw = data.draw(arrays(small=False, min_dims=1))
    x1 = raw.reshape(-1)
    x2 = data.draw(arrays(dtypes=[x1.dtype], small=False))
    if data.draw(st.booleans()) and x1.size:
        x2 = np.asarray(data.draw(st.sampled_from(list(x1))), x1.dtype).reshape(())  # an element of x1
    side = data.draw(st.sampled_from(["left", "right"]))
    if data.draw(st.booleans()):
        sorter = np.argsort(x1, kind="stable")
        got = donate.searchsorted(donate.asarray(x1), data.draw(tensors(x2)), side=side, sorter=donate.asarray(sorter))
        want = np.searchsorted(x1, x2, side=side, sorter=sorter)
    else:
        s = np.sort(x1)
        got = donate.searchsorted(data.draw(tensors(s)), donate.asarray(x2), side=side)
        want = np.searchsorted(s, x2, side=side)
    assert_same(got, np.asarray(want, np.int64))


def test_searchsorted_mixed_dtypes_compare_exactly() -> None:
    x1 = donate.asarray(np.array([1, 2**62 + 1, 2**63 - 1], np.int64))
    x2 = donate.asarray(np.array([2**62 + 1, 2**63], np.uint64))
    np.testing.assert_array_equal(donate.searchsorted(x1, x2).numpy(), [1, 3])
    f = donate.asarray(np.array([0.5, 1.5], np.float32))
    np.testing.assert_array_equal(donate.searchsorted(x1, f, side="right").numpy(), [0, 1])


@given(data=st.data())
def test_nonzero_matches_numpy(data: st.DataObject) -> None:
    x = data.draw(arrays(min_dims=1))
    t = data.draw(tensors(x))
    got = donate.nonzero(t)
    assert isinstance(got, tuple) and len(got) == x.ndim
    for g, w in zip(got, np.nonzero(x)):
        assert_same(g, w.astype(np.int64))
    np.testing.assert_array_equal(numpy_of(t), x)


def unique_all_numpy(x: np.ndarray) -> Any:
    """NumPy's `unique_all` (each NaN distinct), with its inverse in `x`'s
    shape."""
    u = np.unique_all(x)
    return u.values, u.indices, u.inverse_indices.reshape(x.shape), u.counts


@given(data=st.data())
def test_unique_functions_match_numpy(data: st.DataObject) -> None:
    x = data.draw(arrays(small=data.draw(st.booleans())))
    t = data.draw(tensors(x))
    values, indices, inverse, counts = unique_all_numpy(x)
    u = donate.unique_all(t)
    assert u._fields == ("values", "indices", "inverse_indices", "counts")
    assert_same(u.values, values)
    assert_same(u.indices, indices.astype(np.int64))
    assert_same(u.inverse_indices, inverse.astype(np.int64))
    assert_same(u.counts, counts.astype(np.int64))
    c = donate.unique_counts(t)
    assert c._fields == ("values", "counts")
    assert_same(c.counts, counts.astype(np.int64))
    i = donate.unique_inverse(t)
    assert i._fields == ("values", "inverse_indices")
    assert_same(i.inverse_indices, inverse.astype(np.int64))
    assert_same(donate.unique_values(t), values)
    np.testing.assert_array_equal(numpy_of(t), x)


def test_each_nan_is_a_value_of_its_own() -> None:
    x = donate.asarray(np.array([np.nan, 1.0, np.nan, 1.0, -0.0, 0.0], np.float32))
    u = donate.unique_counts(x)
    v = u.values.numpy()
    assert v.shape == (4,) and np.isnan(v[2:]).all()
    np.testing.assert_array_equal(u.counts.numpy(), [2, 2, 1, 1])


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda t: donate.sort(t, axis=2), donate.AxisError),
        (lambda t: donate.argsort(donate.asarray(np.float32(1.0))), donate.AxisError),
        (lambda t: donate.nonzero(donate.asarray(np.int8(1))), ValueError),
        (lambda t: donate.searchsorted(t, t), ValueError),
        (lambda t: donate.searchsorted(t[0], t, side="middle"), ValueError),
        (lambda t: donate.searchsorted(t[0], t, sorter=donate.asarray([0, 1])), ValueError),
        (lambda t: donate.searchsorted(t[0], t, sorter=donate.asarray([0, 1, 3])), IndexError),
        (lambda t: donate.searchsorted(t[0], t, sorter=t[0]), TypeError),
    ],
)
def test_errors_leave_the_input_as_it_was(call: Callable[[donate.Tensor], Any], error: type[Exception]) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = donate.asarray(x)
    with pytest.raises(error):
        call(t)
    np.testing.assert_array_equal(t.numpy(), x)


FUNCTIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("argsort", lambda t: donate.argsort(t, descending=True)),
    ("nonzero", lambda t: donate.nonzero(t)[1]),
    ("searchsorted", lambda t: donate.searchsorted(donate.asarray([1.0, 3.0]), t)),
    ("unique_all", lambda t: donate.unique_all(t).counts),
    ("unique_counts", lambda t: donate.unique_counts(t).values),
    ("unique_inverse", lambda t: donate.unique_inverse(t).inverse_indices),
    ("unique_values", lambda t: donate.unique_values(t)),
]


@pytest.mark.parametrize(("name", "call"), FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_a_donated_input_is_refused_with_a_warning(name: str, call: Callable[[Any], Any]) -> None:
    x = np.array([[3.0, 1.0, 2.0], [0.0, 2.0, 1.0]], np.float32)
    t = donate.asarray(x)
    want = numpy_of(call(t))
    with pytest.warns(donate.DonationWarning, match="always writes a new buffer"):
        got = call(t.donate())
    assert not t.is_donated
    np.testing.assert_array_equal(t.numpy(), x)
    np.testing.assert_array_equal(numpy_of(got), want)


# The functions whose result's shape depends on the values: a traced
# program plans every shape first, so tracing them is refused, naming the
# function and why (as jax.jit refuses them).
VALUE_SHAPED = [(n, c) for n, c in FUNCTIONS if n.startswith(("nonzero", "unique"))]
TRACED = [(n, c) for n, c in FUNCTIONS if (n, c) not in VALUE_SHAPED]


@pytest.mark.parametrize(("name", "call"), VALUE_SHAPED, ids=[n for n, _ in VALUE_SHAPED])
def test_a_tracer_is_refused(name: str, call: Callable[[Any], Any]) -> None:
    with pytest.raises(donate.TracerError, match=r"(nonzero|unique\w*): cannot be traced.*depends on the values"):
        donate.jit(call)(donate.asarray(np.ones((2, 3), np.float32)))


@pytest.mark.parametrize(("name", "call"), TRACED, ids=[n for n, _ in TRACED])
def test_jit_records_it_and_equals_eager(name: str, call: Callable[[Any], Any]) -> None:
    x = np.array([[3.0, 1.0, 2.0], [0.0, 2.0, 1.0]], np.float32)
    want = call(donate.asarray(x))
    f = donate.jit(call)
    got = f(donate.asarray(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(numpy_of(got), numpy_of(want))
    assert f.trace_count == 1

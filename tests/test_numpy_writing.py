"""NumPy's writing functions on tensors, which donate used to refuse ("no
implementation found"): `put`, `put_along_axis`, `putmask`, `place`,
`copyto`, `fill_diagonal` (in place) and `insert` (a new tensor); against
NumPy as the oracle for the values written, dtypes, shapes and the
class of error, and for where the writes land (the tensor's own buffer,
its views' base)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate
from helpers import same

A = np.arange(12.0).reshape(3, 4)
I = np.arange(12).reshape(3, 4)
F32 = A.astype(np.float32)
SQ = np.zeros((7, 3))
CUBE = np.zeros((3, 3, 3), np.int32)

WRITES: list[tuple[str, np.ndarray, Callable[[Any], Any]]] = [
    ("put", A, lambda x: np.put(x, [0, 5, -1], [9, 8])),
    ("put wrap", A, lambda x: np.put(x, [0, 25, -20], 7.0, mode="wrap")),
    ("put clip", A, lambda x: np.put(x, [0, 25, -20], 7.0, mode="clip")),
    ("put repeated index", A, lambda x: np.put(x, [1, 1, 1], [1, 2, 3])),
    ("put float into int", I, lambda x: np.put(x, [1], 2.7)),
    ("put empty index", A, lambda x: np.put(x, [], 1.0)),
    ("put out of range", A, lambda x: np.put(x, [12], 1.0)),
    ("put float index", A, lambda x: np.put(x, [1.7, True], [1.0, 2.0])),
    ("put bad mode", A, lambda x: np.put(x, [1], 1.0, mode="nearest")),
    ("put_along_axis", A, lambda x: np.put_along_axis(x, np.array([[0], [1], [3]]), 99.0, axis=1)),
    ("put_along_axis negative", A,
     lambda x: np.put_along_axis(x, np.array([[-1], [1], [3]]), np.array([[1.0], [2.0], [3.0]]), axis=1)),
    ("put_along_axis axis 0", A, lambda x: np.put_along_axis(x, np.array([[0, 1, 2, 0]]), 5.0, axis=0)),
    ("put_along_axis axis -1 int", I, lambda x: np.put_along_axis(x, np.array([[2, 0]] * 3), 7, axis=-1)),
    ("put_along_axis None", A,
     lambda x: np.put_along_axis(x, np.array([0, 5, -1]), np.array([1.0, 2.0, 3.0]), axis=None)),
    ("put_along_axis out of range", A, lambda x: np.put_along_axis(x, np.array([[4], [1], [3]]), 9.0, axis=1)),
    ("put_along_axis fewer dims", A, lambda x: np.put_along_axis(x, np.array([3, 1, 3]), 9.0, axis=1)),
    ("put_along_axis float indices", A, lambda x: np.put_along_axis(x, np.array([[1.0]] * 3), 9.0, axis=1)),
    ("putmask", A, lambda x: np.putmask(x, x > 4, [-1.0, -2.0])),
    ("putmask float into int", I, lambda x: np.putmask(x, x > 4, 1.5)),
    ("putmask wrong shape", A, lambda x: np.putmask(x, np.array([True]), 1.0)),
    ("place", A, lambda x: np.place(x, x > 4, [7, 8])),
    ("place nothing", A, lambda x: np.place(x, x > 400, [])),
    ("place from empty", A, lambda x: np.place(x, x > 4, [])),
    ("copyto", A, lambda x: np.copyto(x, np.arange(4.0))),
    ("copyto where", A, lambda x: np.copyto(x, 5.0, where=np.array([True, False, True, False]))),
    ("copyto float into int", I, lambda x: np.copyto(x, 1.5)),
    ("copyto float into int unsafe", I, lambda x: np.copyto(x, 1.5, casting="unsafe")),
    ("copyto float64 array into float32", F32, lambda x: np.copyto(x, np.ones(4))),
    ("copyto float64 array into float32 safe", F32, lambda x: np.copyto(x, np.ones(4), casting="safe")),
    ("copyto int into int", I, lambda x: np.copyto(x, 3)),
    ("copyto int where", I, lambda x: np.copyto(x, 3, where=np.array([1, 0, 1, 0]))),
    ("copyto not broadcastable", A, lambda x: np.copyto(x, np.ones(3))),
    ("fill_diagonal", A, lambda x: np.fill_diagonal(x, 0.0)),
    ("fill_diagonal values", A, lambda x: np.fill_diagonal(x, [1.0, 2.0])),
    ("fill_diagonal tall", SQ, lambda x: np.fill_diagonal(x, 9.0)),
    ("fill_diagonal tall wrap", SQ, lambda x: np.fill_diagonal(x, 9.0, wrap=True)),
    ("fill_diagonal 3-d", CUBE, lambda x: np.fill_diagonal(x, 4)),
    ("fill_diagonal uneven 3-d", np.zeros((3, 3, 2)), lambda x: np.fill_diagonal(x, 4)),
    ("fill_diagonal 1-d", np.zeros(3), lambda x: np.fill_diagonal(x, 4)),
    ("fill_diagonal transposed view", A, lambda x: np.fill_diagonal(x.T, [1.0, 2.0, 3.0])),
]


@pytest.mark.parametrize("start,write", [(a, f) for _, a, f in WRITES], ids=[n for n, _, _ in WRITES])
def test_writes_as_numpy_in_place(start: np.ndarray, write: Callable[[Any], Any]) -> None:
    want = start.copy()
    try:
        assert write(want) is None
    except Exception as e:  # the same class of error, and nothing written
        t = donate.asarray(start.copy())
        with pytest.raises(type(e)):
            write(t)
        same(t, start)
        return
    t = donate.asarray(start.copy())
    p = t.data_ptr()
    assert write(t) is None
    same(t, want)
    assert t.data_ptr() == p, "written in place, in the tensor's own buffer"


def test_writes_land_in_a_views_base() -> None:
    base = donate.asarray(A.copy())
    want = A.copy()
    for f in (lambda x: np.put(x[1:], [0, 3], -1.0), lambda x: np.fill_diagonal(x[:, 1:], 5.0),
              lambda x: np.putmask(x[::2], x[::2] > 9, 0.0), lambda x: np.copyto(x[:, 0], 2.0),
              lambda x: np.place(x[2], x[2] > 9, [4.0]),
              lambda x: np.put_along_axis(x[:2], np.array([[1], [2]]), 3.0, axis=1)):
        f(want)
        f(base)
    same(base, want)


def test_a_numpy_target_gets_the_tensor_values() -> None:
    """NumPy asks donate when a tensor is among the other operands; the
    NumPy array written into is still NumPy's, and changes."""
    a, want = A.copy(), A.copy()
    np.put(a, [0, 1], donate.asarray(np.array([5.0, 6.0])))
    np.put(want, [0, 1], np.array([5.0, 6.0]))
    np.testing.assert_array_equal(a, want)
    np.copyto(a, donate.asarray(np.arange(4.0)), where=np.array([True, False, False, True]))
    np.copyto(want, np.arange(4.0), where=np.array([True, False, False, True]))
    np.testing.assert_array_equal(a, want)


def test_a_donated_wrapper_is_not_written() -> None:
    t = donate.asarray(A.copy())
    with pytest.raises(TypeError, match="put"):
        np.put(t.donate(), [0], 1.0)
    same(t, A)


INSERTS: list[tuple[np.ndarray, tuple[Any, ...], dict[str, Any]]] = [
    (np.arange(3), (1, 9), {}),
    (np.arange(3), ([2, 0, 0], [7, 8, 9]), {}),
    (np.arange(3), (slice(0, 2), 5), {}),
    (np.arange(3), (np.array([True, False, True]), 9), {}),
    (np.arange(3), ([1], [7, 8]), {}),
    (np.arange(3), (-1, 5), {}),
    (np.arange(3), (3, 1), {}),
    (np.arange(3), (4, 1), {}),
    (np.arange(3), (-4, 1), {}),
    (np.arange(3), ([], []), {}),
    (np.arange(3), ([[1]], 1), {}),
    (I, (1, [7, 8, 9]), {"axis": 1}),
    (I, ([1], [[7], [8], [9]]), {"axis": 1}),
    (I, (slice(0, 2), 5), {"axis": 1}),
    (I, (1, 5.5), {"axis": 0}),
    (I, ([0, 2], [[1, 2, 3, 4], [5, 6, 7, 8]]), {"axis": 0}),
    (I, (1, 7), {}),
    (I, (0, [[1, 2, 3, 4]]), {"axis": -2}),
    (I, (1, 7), {"axis": 2}),
    (I, (1, [1, 2]), {"axis": 0}),
    (A, (2, np.array([1, 2, 3, 4])), {"axis": 0}),
]


@pytest.mark.parametrize("arr,args,kwargs", INSERTS)
def test_insert_as_numpy(arr: np.ndarray, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    try:
        want = np.insert(arr, *args, **kwargs)
    except Exception as e:
        with pytest.raises(type(e)):
            np.insert(donate.asarray(arr), *args, **kwargs)
        return
    t = donate.asarray(arr)
    got = np.insert(t, *args, **kwargs)
    same(got, want)
    same(t, arr)  # the input is not changed


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5)), st.data())
def test_insert_and_put_along_axis_any_shape(x: np.ndarray, data: Any) -> None:
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    obj = data.draw(st.one_of(st.integers(-n, n), st.lists(st.integers(-n, n), max_size=4)))
    same(np.insert(donate.asarray(x), obj, -7, axis=axis), np.insert(x, obj, -7, axis=axis))
    if n:
        shape = list(x.shape)
        shape[axis] = data.draw(st.integers(1, 3))
        idx = data.draw(hnp.arrays(np.int64, tuple(shape), elements=st.integers(-n, n - 1)))
        want, t = x.copy(), donate.asarray(x.copy())
        np.put_along_axis(want, idx, -5, axis=axis)
        np.put_along_axis(t, idx, -5, axis=axis)
        same(t, want)


SCATTER_V = np.random.default_rng(5).normal(size=500)
SCATTER_I = np.random.default_rng(6).integers(0, 10, 500)

UFUNC_AT: list[tuple[str, np.ndarray, Callable[[Any], Any]]] = [
    ("add repeated", np.arange(4.0), lambda x: np.add.at(x, [0, 0, 2], [1.0, 2.0, 3.0])),
    ("add rows", A, lambda x: np.add.at(x, [0, 0], np.ones(4))),
    ("add tuple index", A, lambda x: np.add.at(x, (0, [0, 0]), 1.0)),
    ("add slice", np.arange(4.0), lambda x: np.add.at(x, slice(1, 3), 1.0)),
    ("multiply mask", np.arange(4.0), lambda x: np.multiply.at(x, np.array([True, False, True, False]), 3.0)),
    ("subtract 2-d index", np.arange(4.0), lambda x: np.subtract.at(x, [[0, 1], [1, 1]], 2.0)),
    ("maximum", np.arange(4.0), lambda x: np.maximum.at(x, [0, 0], [5.0, 3.0])),
    ("negative (unary)", np.arange(4.0), lambda x: np.negative.at(x, [1, 1, 2])),
    ("float into int", np.array([1]), lambda x: np.add.at(x, [0], -0.6)),
    ("wraps uint8", np.array([1], np.uint8), lambda x: np.add.at(x, [0], 300)),
    ("scatter sum float64", np.zeros(10), lambda x: np.add.at(x, SCATTER_I, SCATTER_V)),
    ("scatter sum float32", np.zeros(10, np.float32), lambda x: np.add.at(x, SCATTER_I, SCATTER_V)),
    ("out of range", np.arange(4.0), lambda x: np.add.at(x, [9], 1.0)),
    ("missing operand", np.arange(4.0), lambda x: np.add.at(x, [0])),
    ("extra operand", np.arange(4.0), lambda x: np.negative.at(x, [0], 1.0)),
]


@pytest.mark.parametrize("start,write", [(a, f) for _, a, f in UFUNC_AT], ids=[n for n, _, _ in UFUNC_AT])
def test_ufunc_at_is_numpy_s_to_the_bit(start: np.ndarray, write: Callable[[Any], Any]) -> None:
    """Applied once per occurrence, in order: a scatter-sum of 500 values
    into 10 places equals NumPy's exactly, not within rounding."""
    test_writes_as_numpy_in_place(start, write)


def test_ufunc_at_writes_through_a_view_and_into_numpy() -> None:
    base = donate.asarray(np.zeros((3, 4)))
    np.add.at(base[1], [0, 0, 3], 1.0)
    want = np.zeros((3, 4))
    np.add.at(want[1], [0, 0, 3], 1.0)
    same(base, want)
    a = np.zeros(3)
    np.add.at(a, [0, 0], donate.asarray(np.array([1.0, 2.0])))
    np.testing.assert_array_equal(a, [3.0, 0.0, 0.0])


@pytest.mark.parametrize("call", [
    lambda t, t2: np.put(t, [0], 300), lambda t, t2: np.copyto(t, 300),
    lambda t, t2: np.place(t, np.ones(3, bool), -1), lambda t, t2: np.insert(t, 0, 300),
    lambda t, t2: np.putmask(t, np.ones(3, bool), [1, 300]),
    lambda t, t2: np.fill_diagonal(t2, 300),
    lambda t, t2: np.put_along_axis(t2, np.array([[0], [1]]), 300, axis=1),
    lambda t, t2: np.put(t, [0, 1], [1.7, float("nan")]),
])
def test_python_values_out_of_the_target_s_range_raise_as_numpy_s(call) -> None:
    """A Python int the target's dtype does not hold is NumPy's
    `OverflowError` (NaN into an integer its `ValueError`), with nothing
    written: it wrapped (`put(uint8, 0, 300)` wrote 44)."""
    a, a2 = np.zeros(3, np.uint8), np.zeros((2, 2), np.uint8)
    with pytest.raises((OverflowError, ValueError)) as want:
        call(a, a2)
    t, t2 = donate.asarray(a), donate.asarray(a2)
    with pytest.raises(want.type):
        call(t, t2)
    assert not np.asarray(t).any() and not np.asarray(t2).any()


def test_arrays_of_values_still_cast_unsafely_as_numpy_s() -> None:
    for f in (lambda x: np.put(x, [0], np.array([300])), lambda x: np.put(x, [0], [1.7]),
              lambda x: np.copyto(x, np.array([300]), casting="unsafe")):
        a = np.zeros(3, np.uint8)
        t = donate.asarray(a)
        f(a), f(t)
        np.testing.assert_array_equal(np.asarray(t), a)

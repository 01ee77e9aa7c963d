"""`t[key] = value` through integer arrays (alone, with slices and ints,
broadcast against each other) and boolean masks with one row per selected
element, tested against NumPy: the same values, the same exception types,
and the ownership rules of every in-place write (the target's own buffer
when it is exclusive, written through into the base of a view, one update
at a time across threads, an error leaving the target unchanged)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import donate
from helpers import run_threads

KEYS = [
    np.array([0, 2]),
    [0, -1],
    np.array([1, 1, 1]),  # repeated: the last value wins, as NumPy's
    (np.array([0, 2]), np.array([1, 3])),
    (slice(None), [0, 3]),
    ([[0], [2]], [1, 3]),  # index arrays broadcast against each other
    (1, [0, 2]),
    (Ellipsis, [3, 0]),
    ([0, 2], slice(1, 3)),
    np.array([], dtype=np.int64),  # nothing selected: nothing changes
    np.array([True, False, True]),  # a mask with one row per element
    [True, False, True],
    np.array([[True, False, False, True]] * 3),
]


def values_for(shape: tuple[int, ...], rng: np.random.Generator) -> list[object]:
    """A number, a value of the selection's shape, and one broadcast to it."""
    n = int(np.prod(shape))
    full = rng.standard_normal(shape).astype(np.float32)
    out: list[object] = [2.5, full]
    if len(shape) >= 1 and shape[-1] > 0 and n > 0:
        out.append(full[..., :1] if len(shape) > 1 else full[:1])
    return out


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("as_tensor", [False, True], ids=["array", "tensor"])
def test_assignment_matches_numpy(key: object, as_tensor: bool) -> None:
    rng = np.random.default_rng(0)
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    selected = base[key].shape
    for value in values_for(selected, rng):
        want = base.copy()
        want[key] = value
        t = donate.tensor(base.copy())
        v = donate.tensor(value) if as_tensor and isinstance(value, np.ndarray) else value
        t[key] = v
        np.testing.assert_array_equal(np.asarray(t), want)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float64", "bool"])
def test_the_value_is_converted_to_the_targets_dtype(dtype: str) -> None:
    a = np.zeros(5, dtype=dtype)
    t = donate.tensor(a.copy())
    value = np.array([1.0, 2.0], dtype=np.float32)
    a[[1, 3]] = value
    t[[1, 3]] = donate.tensor(value)
    np.testing.assert_array_equal(np.asarray(t), a)
    assert t.dtype == a.dtype


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        (np.array([5]), 1.0, IndexError),  # out of bounds
        ([0, -7], 1.0, IndexError),
        ((np.array([0, 1]), np.array([1, 2, 0])), 1.0, IndexError),  # no broadcast
        (np.array([0, 1]), np.ones(3, np.float32), ValueError),  # value's shape
        (np.array([0.5]), 1.0, IndexError),  # not an integer index
    ],
    ids=repr,
)
def test_errors_are_numpys_and_leave_the_target_unchanged(
    key: object, value: object, error: type[Exception]
) -> None:
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(error):
        base.copy()[key] = value
    t = donate.tensor(base.copy())
    with pytest.raises(error):
        t[key] = value
    np.testing.assert_array_equal(np.asarray(t), base)


def test_an_exclusive_target_is_written_in_its_own_buffer() -> None:
    t = donate.tensor(np.zeros((100, 8), dtype=np.float32))
    ptr = t.data_ptr()
    before = donate.memory_stats()
    t[np.arange(0, 100, 3), 2] = 1.0
    after = donate.memory_stats()
    assert t.data_ptr() == ptr
    # One buffer, the 34 positions read from NumPy; none for the target.
    assert after["allocations"] == before["allocations"] + 1
    assert after["in_place_ops"] == before["in_place_ops"] + 1
    assert float(np.asarray(t)[:, 2].sum()) == 34.0


def test_a_view_writes_through_into_its_base() -> None:
    base = donate.tensor(np.zeros((3, 4), dtype=np.float32))
    v = base[1]
    v[[0, 3]] = 7.0
    col = base[:, 2]
    col[np.array([True, False, True])] = donate.tensor(np.array([1.0, 2.0], np.float32))
    want = np.zeros((3, 4), np.float32)
    want[1, [0, 3]] = 7.0
    want[[0, 2], 2] = [1.0, 2.0]
    np.testing.assert_array_equal(np.asarray(base), want)
    np.testing.assert_array_equal(np.asarray(v), want[1])


def test_the_value_may_be_the_target_itself() -> None:
    a = np.arange(4, dtype=np.float32)
    t = donate.tensor(a.copy())
    t[[3, 2, 1, 0]] = t
    a[[3, 2, 1, 0]] = a.copy()
    np.testing.assert_array_equal(np.asarray(t), a)


def test_threads_writing_disjoint_positions_lose_nothing() -> None:
    # Shared with a view, so every write goes through the write-through
    # path, and large enough (256 KiB) that each operation runs without the
    # interpreter lock; each assignment reads and writes the target in one
    # update, so no thread's write is overwritten with the values another
    # read before it.
    n = 1 << 16
    t = donate.tensor(np.zeros(n, dtype=np.float32))
    view = t[:]
    rounds = 40

    def work(k: int) -> None:
        mine = np.arange(k, n, 2)
        for i in range(1, rounds + 1):
            t[mine] = float(i)

    run_threads(work, 2)
    assert (np.asarray(t) == rounds).all()
    assert (np.asarray(view) == rounds).all()


def test_threads_writing_disjoint_masks_lose_nothing() -> None:
    # As above, through boolean masks (the same scatter eagerly).
    n = 1 << 16
    t = donate.tensor(np.zeros(n, dtype=np.float32))
    view = t[:]
    rounds = 40
    masks = [np.arange(n) % 2 == k for k in range(2)]

    def work(k: int) -> None:
        for i in range(1, rounds + 1):
            t[masks[k]] = float(i)

    run_threads(work, 2)
    assert (np.asarray(t) == rounds).all()
    assert (np.asarray(view) == rounds).all()


def test_jit_records_a_constant_index_and_refuses_a_traced_one() -> None:
    @donate.jit
    def put(x: donate.Tensor) -> donate.Tensor:
        y = x * 2.0
        y[np.array([0, 2])] = -1.0
        return y

    x = donate.tensor(np.arange(4, dtype=np.float32))
    assert put(x).tolist() == [-1.0, 2.0, -1.0, 6.0]
    assert "scatter" in put.lower(x).as_text()

    @donate.jit
    def traced(x: donate.Tensor, i: donate.Tensor) -> donate.Tensor:
        y = x * 2.0
        y[i] = -1.0
        return y

    with pytest.raises(donate.TracerError, match="__setitem__"):
        traced(x, donate.tensor(np.array([1])))


def test_a_reader_thread_never_sees_a_half_written_update() -> None:
    # Each assignment writes every element: a reader sees all old or all
    # new values, never a mix.
    t = donate.tensor(np.zeros(4096, dtype=np.float32))
    everything = np.arange(4096)
    stop = threading.Event()
    mixed: list[set[float]] = []

    def read() -> None:
        while not stop.is_set():
            seen = set(np.asarray(t.copy()).tolist())
            if len(seen) > 1:
                mixed.append(seen)

    r = threading.Thread(target=read)
    r.start()
    try:
        for i in range(1, 200):
            t[everything] = float(i)
    finally:
        stop.set()
        r.join()
    assert not mixed


def test_a_number_stored_in_a_bool_tensor_is_its_truth_value() -> None:
    # NumPy's `b[0] = 7`, `b.fill(2)`, `np.full(..., 7, dtype=bool)`:
    # every real number converts to bool; an integer dtype still refuses
    # a number outside its range.
    want = np.zeros(4, bool)
    want[0], want[1], want[2] = 7, 0.5, float("nan")
    b = donate.zeros(4, dtype=donate.bool)
    b[0], b[1], b[2] = 7, 0.5, float("nan")
    np.testing.assert_array_equal(np.asarray(b), want)
    b[0] = 0
    assert not bool(b[0])
    np.testing.assert_array_equal(np.asarray(donate.full((2,), -3, dtype=donate.bool)), [True, True])
    np.testing.assert_array_equal(np.asarray(np.logical_and(donate.asarray(np.array([True, False])), 7)), [True, False])
    i = donate.zeros(2, dtype=donate.int8)
    with pytest.raises(OverflowError):
        i[0] = 300


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "float32", "float64"])
def test_a_complex_value_at_positions_of_a_real_tensor_is_refused(dtype: str) -> None:
    """By index array or mask, as through a view: the imaginary part would
    be lost (array-api.md: a complex value into a real tensor is a
    `TypeError`). Before, the scatter path dropped it silently."""
    t = donate.zeros(3, dtype=dtype)
    values = donate.asarray(np.array([5j, 2 + 3j]))
    for key in ([0, 1], np.array([True, False, True]), donate.asarray(np.array([0, 2]))):
        with pytest.raises(TypeError):
            t[key] = values
    with pytest.raises(TypeError):
        t[[0, 1]] = [1, 1j]
    with pytest.raises(TypeError):
        t[[0, 1]] = (1, 2j)
    with pytest.raises(TypeError):
        t[0:2] = values
    assert t.tolist() == [0, 0, 0]
    z = donate.zeros(3, dtype="complex128")
    z[[0, 2]] = values
    assert z.tolist() == [5j, 0, 2 + 3j]


@pytest.mark.parametrize("key", [slice(None), [0, 1, 2], np.array([True, True, True])],
                         ids=["slice", "positions", "mask"])
def test_a_list_converts_into_the_targets_dtype_as_numpy(key: Any) -> None:
    """`t[key] = [...]` converts the list into `t`'s dtype, as NumPy's
    assignment: each Python int is checked against it (before, the list
    became int64 and wrapped: `u8[:] = [300]` gave 44)."""
    for mk in (np.asarray, donate.asarray):
        for dtype, value, error in (("uint8", [300], OverflowError), ("uint8", [-1, 2, 3], OverflowError),
                                    ("int64", [2**63], OverflowError),
                                    ("int32", (2**64 - 1,), OverflowError),
                                    ("int64", [float("nan")], ValueError)):
            t = mk(np.zeros(3, dtype))
            with pytest.raises(error):
                t[key] = value
            assert np.asarray(t).tolist() == [0, 0, 0]
        t = mk(np.zeros(3, "uint8"))
        t[key] = [1.7, True, 255]
        assert np.asarray(t).tolist() == [1, 1, 255]
        f = mk(np.zeros(3))
        f[key] = [2**64, 1, 2]
        assert np.asarray(f).tolist() == [2.0**64, 1.0, 2.0]

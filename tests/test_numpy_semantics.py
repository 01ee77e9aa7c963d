"""NumPy's semantics in three places where donate once differed silently
(each found by a differential run against NumPy): Python data as an
operand keeps its float64 values, every augmented assignment operator
writes in place, and indexing a single element gives a copy."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import donate

# ---- Python data (lists, tuples) as an operand: NumPy's inference ----


@pytest.mark.parametrize(
    "run",
    [
        lambda t: t + [0.1, 0.2],
        lambda t: [0.1, 0.2] - t,
        lambda t: t * (0.1, 0.2),
        lambda t: donate.maximum(t, [0.1, 0.2]),
        lambda t: np.where(np.asarray(t) > 5, t, [0.1, 0.2]),
        lambda t: np.concatenate([t, [0.1, 0.2]]),
        lambda t: np.stack([t, [0.1, 0.2]]),
    ],
)
def test_a_list_operand_of_a_float64_tensor_keeps_its_float64_values(run) -> None:
    a = np.zeros(2)
    got = run(donate.tensor(a))
    want = run(a)
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(got), want)  # exact, not float32-rounded


def test_a_list_compares_equal_to_the_float64_values_it_holds() -> None:
    t = donate.tensor(np.array([0.1, 0.3]))
    assert (t == [0.1, 0.3]).tolist() == [True, True]


def test_a_list_assigned_into_a_float64_tensor_is_not_rounded() -> None:
    t = donate.tensor(np.zeros(2))
    t[:] = [0.1, 0.2]
    assert t.tolist() == [0.1, 0.2]
    t += [0.1, 0.1]
    np.testing.assert_array_equal(np.asarray(t), np.array([0.1, 0.2]) + [0.1, 0.1])


def test_a_float32_tensor_and_a_list_promote_as_numpy() -> None:
    a = np.ones(2, dtype=np.float32)
    got = donate.tensor(a) + [0.1, 0.2]
    want = a + [0.1, 0.2]
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


def test_a_python_number_stays_a_weak_scalar() -> None:
    # (NEP 50: a Python float does not widen a float32 tensor.)
    assert (donate.ones(2) + 0.1).dtype == np.float32


# ---- every augmented assignment writes in place ----

INT_OPS = {
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
}
FLOAT_OPS = {k: INT_OPS[k] for k in ("//=", "%=", "**=")}


@pytest.mark.parametrize("name", list(INT_OPS))
def test_an_int_augmented_assignment_writes_through_views_and_aliases(name) -> None:
    iop = INT_OPS[name]
    base = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    t = donate.tensor(base)
    alias = t
    v = t[0]
    r = iop(v, 2)
    assert r is v  # the same object, as NumPy's
    nv = base[0]
    iop(nv, 2)
    np.testing.assert_array_equal(np.asarray(t), base)  # the base sees the write
    assert alias is t


@pytest.mark.parametrize("name", list(FLOAT_OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_float_augmented_assignment_is_in_place(name, dtype) -> None:
    iop = FLOAT_OPS[name]
    a = np.arange(1.0, 5.0, dtype=dtype)
    t = donate.tensor(a)
    ptr = t.data_ptr()
    view = t[1:]
    iop(t, np.asarray(2.0, dtype=dtype).item())
    iop(a, 2.0)
    assert t.dtype == a.dtype
    assert t.data_ptr() == ptr  # the same buffer
    np.testing.assert_allclose(np.asarray(t), a, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(view), a[1:], rtol=1e-6)


def test_an_augmented_assignment_numpy_refuses_is_refused_and_changes_nothing() -> None:
    t = donate.tensor(np.arange(4))
    with pytest.raises(TypeError, match="same_kind"):
        t //= 2.5
    assert t.dtype == np.int64
    assert t.tolist() == [0, 1, 2, 3]
    a = np.arange(4)
    with pytest.raises(TypeError):  # (NumPy's UFuncTypeError is a TypeError)
        a //= 2.5


def test_an_augmented_assignment_that_would_broadcast_the_target_is_refused() -> None:
    t = donate.tensor(np.arange(3))
    with pytest.raises(ValueError):
        t //= donate.tensor(np.ones((2, 3), dtype=np.int64))
    assert t.tolist() == [0, 1, 2]


def test_an_augmented_assignment_under_jit_matches_eager() -> None:
    def f(x):
        y = x * 1
        y //= 2
        y **= 2
        return y

    x = donate.tensor(np.arange(10, dtype=np.int64))
    np.testing.assert_array_equal(np.asarray(donate.jit(f)(x)), (np.arange(10) // 2) ** 2)


# ---- indexing one element gives a copy, as NumPy's scalar ----


def test_the_swap_idiom_swaps() -> None:
    v = donate.tensor(np.arange(4.0))
    v[0], v[1] = v[1], v[0]
    assert v.tolist() == [1.0, 0.0, 2.0, 3.0]


def test_an_element_read_before_a_write_keeps_its_value() -> None:
    v = donate.tensor(np.arange(5.0))
    prev = v[3]
    v[3] = 100.0
    assert float(prev) == 3.0
    m = donate.tensor(np.arange(6).reshape(2, 3))
    e = m[1, 2]
    m[1, 2] = -1
    assert int(e) == 5


def test_iterating_a_vector_yields_copies() -> None:
    v = donate.tensor(np.arange(3.0))
    for x in v:
        x += 10
    assert v.tolist() == [0.0, 1.0, 2.0]


def test_an_element_of_a_zero_d_tensor_is_a_copy_and_ellipsis_is_a_view() -> None:
    z = donate.tensor(np.array(2.0))
    c = z[()]
    w = z[...]
    z[...] = 5.0
    assert float(c) == 2.0
    assert float(w) == 5.0  # (NumPy: `a[...]` is a view)


def test_a_row_is_still_a_view() -> None:
    m = donate.tensor(np.zeros((2, 3)))
    row = m[0]
    row[1] = 7.0
    assert m.tolist() == [[0.0, 7.0, 0.0], [0.0, 0.0, 0.0]]

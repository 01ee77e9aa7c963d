"""Operands of other types beside a tensor, as NumPy takes them beside an
ndarray: subclasses of NumPy's array answer for themselves (a masked
array keeps its mask), plain array-likes (`__array__` alone, the buffer
protocol, `range`) are converted, `bytes` is never concatenated with a
tensor's bytes, and a `Donated` wrapper is never made an object array."""

from __future__ import annotations

import array

import numpy as np
import pytest

import donate


def test_a_masked_array_beside_a_tensor_keeps_its_mask():
    # The mask was dropped: the hidden 100 was summed (110 for 8).
    m = np.ma.array([1.0, 100.0, 3.0], mask=[0, 1, 0])
    a = np.array([1.0, 2.0, 3.0])
    t = donate.asarray(a)
    for got, want in ((t + m, a + m), (m + t, m + a), (t * m, a * m), (t == m, a == m), (t < m, a < m)):
        assert isinstance(got, np.ma.MaskedArray), type(got)
        np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
        np.testing.assert_array_equal(got.filled(0), want.filled(0))
    assert float((t + m).sum()) == 8.0


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_a_matrix_beside_a_tensor_multiplies_as_a_matrix():
    # `matrix.__rmul__` answers (through `np.dot`, which gives a tensor);
    # it was an element-wise product.
    mat = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    got = donate.asarray(np.eye(2)) * mat
    np.testing.assert_array_equal(np.asarray(got), np.asarray(np.eye(2) * mat))


class Frame:
    """Data with `__array__` and no other protocol."""

    def __array__(self, dtype=None, copy=None):
        return np.ones(3)


@pytest.mark.parametrize("other", [Frame(), memoryview(np.ones(3)), array.array("d", [1, 1, 1]),
                                   range(3), bytearray(b"\x01\x02\x03")])
def test_plain_array_likes_are_converted_as_numpy_converts_them(other):
    a = np.array([1.0, 2.0, 3.0])
    t = donate.asarray(a)
    for got, want in ((t + other, a + other), (other + t, other + a), (t == other, a == other),
                      (donate.add(t, other), np.add(a, other)), (np.add(t, other), np.add(a, other))):
        assert isinstance(got, donate.Tensor), type(got)
        np.testing.assert_array_equal(np.asarray(got), want)


def test_bytes_beside_a_tensor_is_an_error_not_a_concatenation():
    t = donate.asarray(np.array([1.0, 2.0]))
    with pytest.raises(TypeError):
        b"\x01" + t
    with pytest.raises(TypeError):
        t + b"\x01"


def test_a_donated_wrapper_is_not_numpy_data():
    t = donate.asarray(np.array([1.0, 2.0]))
    w = t.donate()
    with pytest.raises(TypeError, match="Donated"):
        np.asarray(w)
    assert not w.used
    np.testing.assert_array_equal(np.asarray(t), [1.0, 2.0])



@pytest.mark.parametrize("other", [
    __import__("fractions").Fraction(1, 2), __import__("decimal").Decimal("0.5"),
    __import__("fractions").Fraction(1, 3), __import__("decimal").Decimal("0.1"),
])
def test_a_number_of_another_kind_compares_element_wise_as_numpy(other):
    # `t == Fraction(1, 2)` was one Python False (the identity fallback).
    # NumPy compares each element with the object, exactly (Decimal("0.1")
    # is not the float 0.1).
    a = np.array([0.5, 1.0, 0.1, 1 / 3])
    t = donate.asarray(a)
    for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        got = getattr(t, op)(other)
        want = getattr(a, op)(other)
        assert isinstance(got, donate.Tensor), (op, got)
        np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(other == t), other == a)
    np.testing.assert_array_equal(np.asarray(other < t), other < a)


def test_any_object_compares_element_wise_and_ordering_refuses_as_numpy():
    a = np.array([1.0, 2.0])
    t = donate.asarray(a)
    sentinel = object()
    np.testing.assert_array_equal(np.asarray(t == sentinel), a == sentinel)
    np.testing.assert_array_equal(np.asarray(t != sentinel), a != sentinel)
    with pytest.raises(TypeError):
        a < sentinel  # noqa: B015 (NumPy's refusal, the oracle)
    with pytest.raises(TypeError):
        t < sentinel  # noqa: B015


def test_an_object_with_its_own_equality_decides_each_element():
    class Anything:
        def __eq__(self, other):
            return True

        __hash__ = None

    a = np.array([1, 2, 3])
    np.testing.assert_array_equal(np.asarray(donate.asarray(a) == Anything()), a == Anything())

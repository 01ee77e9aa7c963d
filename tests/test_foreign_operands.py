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


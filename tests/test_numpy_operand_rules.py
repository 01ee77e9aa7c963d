"""Operands and keywords as NumPy takes them, each a case that differed
from NumPy 2.4 before: a Python complex beside a tensor in a NumPy ufunc,
a misaligned NumPy array, a ufunc's `dtype=` that its array operands
cannot be cast to (NumPy refuses; donate truncated), and `reshape(...,
copy=False)` of a strided view (a copy was returned silently, so writes
into the result never reached the tensor)."""

from __future__ import annotations

import numpy as np
import pytest

import donate

A = donate.asarray


@pytest.mark.parametrize("f", [
    lambda x: np.multiply(x, 1j), lambda x: np.add(x, 2 - 1j), lambda x: np.equal(x, 1 + 0j),
    lambda x: np.subtract(1j, x), lambda x: np.add.outer(x, 1j),
    lambda x: np.multiply(x.astype(np.float32), 1j),
], ids=["multiply", "add", "equal", "reflected", "outer", "float32"])
def test_a_python_complex_beside_a_tensor_in_a_ufunc(f):
    x = np.array([1.0, -2.5, 0.0])
    r, n = np.asarray(f(A(x))), f(x)
    assert r.dtype == n.dtype
    np.testing.assert_array_equal(r, n)


def test_a_misaligned_numpy_array_is_read():
    raw = np.frombuffer(bytes(1) + np.arange(3.0).tobytes(), np.float64, offset=1)
    assert not raw.flags.aligned
    np.testing.assert_array_equal(np.asarray(donate.tensor(raw)), raw)
    np.testing.assert_array_equal(np.asarray(donate.ones(3, dtype=donate.float64) + raw), raw + 1)
    np.testing.assert_array_equal(np.asarray(np.add(A(np.ones(3)), raw)), raw + 1)


@pytest.mark.parametrize("call", [
    lambda x, i: np.add(x, 1, dtype=np.int64),
    lambda x, i: np.multiply(x, i, dtype=np.int8),
    lambda x, i: np.negative(x, dtype=np.int32),
    lambda x, i: np.add(i, i, dtype=np.int8, casting="safe"),
], ids=["float to int64", "float to int8", "unary", "safe"])
def test_a_ufunc_dtype_its_operands_cannot_be_cast_to_raises_as_numpy(call):
    x, i = np.array([1.5, 2.5]), np.array([1, 2])
    with pytest.raises(TypeError):
        call(x, i)
    with pytest.raises(TypeError, match="Cannot cast ufunc"):
        call(A(x), A(i))


@pytest.mark.parametrize("call", [
    lambda x, i: np.add(i, 1, dtype=np.float32),
    lambda x, i: np.add(x, i, dtype=np.float32),
    lambda x, i: np.multiply(x, 2.5, dtype=np.float64),
    lambda x, i: np.add(x, i, dtype=np.int64, casting="unsafe"),
    lambda x, i: np.less(x, i, dtype=bool),
], ids=["int to float32", "same kind", "weak number", "unsafe", "comparison"])
def test_a_ufunc_dtype_its_operands_cast_to_is_numpys(call):
    x, i = np.array([1.5, 2.5]), np.array([1, 2])
    r, n = np.asarray(call(A(x), A(i))), call(x, i)
    assert r.dtype == n.dtype
    np.testing.assert_array_equal(r, n)


def test_reshape_copy_false_raises_where_a_copy_is_needed():
    t = A(np.arange(24.0).reshape(4, 6))
    with pytest.raises(ValueError, match="copy=False"):
        donate.reshape(t.T, (24,), copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        np.reshape(t[:, 2], (4, 1), copy=False)
    v = donate.reshape(t, (6, 4), copy=False)  # a view: allowed, and writes through
    v[0, 0] = 99.0
    assert float(t[0, 0]) == 99.0


@pytest.mark.parametrize("call", [
    lambda a, b: np.less(a, b, dtype=bool),
    lambda a, b: np.equal(a.astype(np.float64) / 2, b.astype(np.float64) / 4, dtype=bool),
    lambda a, b: np.greater_equal(a, b, dtype=bool),
    lambda a, b: np.isnan(np.divide(a.astype(np.float64), 0.0), dtype=bool),
    lambda a, b: np.ldexp(a.astype(np.float64), b.astype(np.int32), dtype=np.float64),
    lambda a, b: np.add(a, b, dtype=np.int16),
], ids=["less", "equal", "greater_equal", "isnan", "ldexp", "add"])
def test_a_ufunc_dtype_names_numpys_loop_not_a_cast_of_every_operand(call):
    # `dtype=bool` of a comparison is its output: the values are compared,
    # not their truth (every operand was cast to bool: -1 < 1 was False).
    a = np.array([-1, 2, 100, 0], np.int8)
    b = np.array([1, 2, 255, 5], np.uint8)
    with np.errstate(all="ignore"):
        n = call(a, b)
        r = np.asarray(call(A(a), A(b)))
    assert r.dtype == n.dtype
    np.testing.assert_array_equal(r, n)


def test_casting_no_and_equiv_refuse_a_promoting_loop_as_numpy():
    a, b = np.array([1, 2], np.int8), np.array([3, 4], np.uint8)
    for casting in ("no", "equiv"):
        with pytest.raises(TypeError):
            np.add(a, b, casting=casting)
        with pytest.raises(TypeError):
            np.add(A(a), A(b), casting=casting)
    np.testing.assert_array_equal(np.asarray(np.add(A(a), A(a), casting="no")), a + a)


@pytest.mark.parametrize("call", [
    lambda d, u: np.cov(d), lambda d, u: np.corrcoef(d), lambda d, u: np.block([d, u]),
    lambda d, u: np.gradient(u, d),
], ids=["cov", "corrcoef", "block", "gradient"])
def test_a_donated_operand_read_twice_by_one_numpy_function_is_refused_once(call):
    # A translation that reads an operand twice read the donated wrapper
    # twice, and the second read raised DonatedError; now the donation is
    # refused once, with a warning, and the tensor stays intact.
    x = np.array([0.0, 1.0, 3.0, 7.0])
    t, u = A(x), A(x * 2)
    with pytest.warns(donate.DonationWarning):
        r = call(t.donate(), u)
    np.testing.assert_allclose(np.asarray(r), call(x, x * 2))
    np.testing.assert_array_equal(np.asarray(t), x)


@pytest.mark.parametrize("case", [
    ((3, 4), lambda t, v: t.__setitem__(1, v), np.arange(4.0).reshape(1, 4)),
    ((4,), lambda t, v: t.__setitem__([0, 2], v), np.ones((1, 1, 2))),
    ((3, 4), lambda t, v: t.__setitem__(Ellipsis, v), np.ones((1, 3, 4))),
    ((2, 3), lambda t, v: t.__setitem__((slice(None), 1), v), np.array([[7.0, 8.0]])),
    ((2, 2), lambda t, v: np.copyto(t, v), np.ones((1, 2, 2))),
], ids=["row", "indices", "ellipsis", "column", "copyto"])
def test_an_assigned_value_may_have_leading_axes_of_length_one(case):
    # NumPy drops them (an assignment, not `broadcast_to`): they raised.
    shape, assign, v = case
    n = np.zeros(shape)
    t = A(n.copy())
    assign(n, v)
    assign(t, v)
    np.testing.assert_array_equal(np.asarray(t), n)
    assign(t, A(v))  # a tensor value too
    np.testing.assert_array_equal(np.asarray(t), n)
    with pytest.raises(ValueError):
        assign(t, np.ones((2,) + v.shape))  # a leading axis that is not 1

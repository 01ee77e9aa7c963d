"""In-place operations: in place when exclusive, copy-on-write otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import donate


def test_inplace_on_an_exclusive_buffer_keeps_the_address(stats) -> None:
    t = donate.tensor([-1.0, 2.0])
    p = t.data_ptr()
    s = stats()
    assert t.relu_() is t
    t += 1
    t *= 2.0
    t -= donate.ones((2,))
    t /= 2
    t.add_(1).mul_(2).sub_(1).div_(1)
    assert t.data_ptr() == p
    assert s["allocations"] == 1  # only donate.ones((2,))
    np.testing.assert_array_equal(t.numpy(), [2.0, 6.0])


def test_inplace_with_a_live_export_writes_through() -> None:
    t = donate.tensor([-1.0, 2.0])
    p = t.data_ptr()
    v = t.numpy()
    t.relu_()
    assert t.data_ptr() == p, "the same buffer"
    assert t.tolist() == [0.0, 2.0]
    assert v.tolist() == [0.0, 2.0], "the exported view shows the write"
    assert not v.flags.writeable


def test_inplace_with_a_reshape_writes_through() -> None:
    t = donate.tensor([-1.0, 2.0, -3.0, 4.0])
    r = t.reshape(2, 2)
    t += 10
    assert t.tolist() == [9.0, 12.0, 7.0, 14.0]
    assert r.tolist() == [[9.0, 12.0], [7.0, 14.0]]
    r.neg_()
    assert r.tolist() == [[-9.0, -12.0], [-7.0, -14.0]]
    assert t.tolist() == [-9.0, -12.0, -7.0, -14.0]


def test_inplace_with_itself() -> None:
    t = donate.tensor([1.0, 2.0])
    t += t
    assert t.tolist() == [2.0, 4.0]
    t *= t
    assert t.tolist() == [4.0, 16.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
@pytest.mark.parametrize("op", ["+=", "-=", "*="])
@pytest.mark.parametrize("n", [5, 70_001])
def test_inplace_with_itself_writes_its_own_buffer(stats, dtype: str, op: str, n: int) -> None:
    """`x op= x` reads the target it writes: each element is read before
    it is written, so an exclusive buffer is updated in place, with no
    allocation (a second handle on it would force a copy). `n` spans
    several blocks of the kernel and its parallel threshold."""
    values = (np.arange(n) % 7 - 3).astype(dtype)
    want = values.copy()
    exec(f"want {op} want")
    t = donate.asarray(values)
    p = t.data_ptr()
    s = stats()
    exec(f"t {op} t")
    assert t.data_ptr() == p
    assert s["allocations"] == 0
    np.testing.assert_array_equal(t.numpy(), want)


def test_inplace_with_itself_on_special_values_and_views() -> None:
    """NaN and infinities as NumPy (`inf - inf` is NaN); a strided tensor
    and a view of a shared buffer (written through) give NumPy's values."""
    v = np.array([np.inf, -np.inf, np.nan, -0.0, 3.0], dtype=np.float32)
    t = donate.asarray(v)
    t -= t
    np.testing.assert_array_equal(t.numpy(), v - v)
    base = np.arange(12.0).reshape(3, 4)
    t = donate.asarray(base).T  # strided, and its only holder
    t *= t
    np.testing.assert_array_equal(t.numpy(), base.T * base.T)
    b = donate.asarray(base)
    w = b[1:, ::2]  # a view: written through to `b`
    w += w
    want = base.copy()
    want[1:, ::2] *= 2
    np.testing.assert_array_equal(b.numpy(), want)


def test_inplace_broadcasts_the_right_operand_only() -> None:
    t = donate.zeros((2, 3))
    t += donate.tensor([1.0, 2.0, 3.0])
    assert t.tolist() == [[1.0, 2.0, 3.0]] * 2
    with pytest.raises(ValueError):
        small = donate.zeros((3,))
        small += donate.zeros((2, 3))
    assert small.tolist() == [0.0] * 3


def test_inplace_cannot_change_dtype() -> None:
    i = donate.tensor([1, 2], dtype="int32")
    with pytest.raises(TypeError, match="in place"):
        i += 1.5
    with pytest.raises(TypeError, match="in place"):
        i /= 2
    with pytest.raises(TypeError):
        i.exp_()
    assert i.tolist() == [1, 2] and i.dtype == donate.int32
    i += 3
    assert i.tolist() == [4, 5]
    f = donate.tensor([1.0], dtype="float64")
    f += donate.tensor([1.0], dtype="float32")  # promotes to float64: fine
    assert f.tolist() == [2.0]


SAME_KIND_DTYPES = ["bool", "uint8", "int8", "int32", "uint64", "int64", "float32", "float64"]


@pytest.mark.parametrize(
    ("target", "other", "op"),
    [
        (t, u, op)
        for t in SAME_KIND_DTYPES
        for u in SAME_KIND_DTYPES
        for op in ["__iadd__", "__isub__", "__imul__", "__itruediv__"]
    ],
)
def test_inplace_casts_the_result_as_numpy_same_kind(target: str, other: str, op: str) -> None:
    """`t op= u` computes in the promoted dtype and writes it into `t` when
    NumPy's `same_kind` rule allows the cast (float64 into float32, int64
    into int8, wrapping), in place; otherwise both raise TypeError and `t`
    keeps its values."""
    a = np.array([3, 1, 2], dtype=target)
    b = np.array([1, 2, 1], dtype=other)
    t = donate.tensor(a)
    p = t.data_ptr()
    want = a.copy()
    try:
        with np.errstate(all="ignore"):
            getattr(want, op)(b)
    except TypeError:
        with pytest.raises(TypeError):
            getattr(t, op)(donate.tensor(b))
        np.testing.assert_array_equal(t.numpy(), a)
        return
    t = getattr(t, op)(donate.tensor(b))
    assert t.dtype == getattr(donate, target)
    assert t.data_ptr() == p
    np.testing.assert_array_equal(t.numpy(), want)


def test_inplace_same_kind_cast_through_a_view_and_under_jit() -> None:
    acc = donate.zeros((2, 3))  # float32
    row = acc[1]
    row += donate.tensor(np.array([0.1, 0.2, 0.3]))  # float64 into float32, through the view
    np.testing.assert_array_equal(acc.numpy()[1], np.array([0.1, 0.2, 0.3]).astype(np.float32))

    def step(a, x):
        a += x
        return a * 2

    x = donate.tensor(np.linspace(0, 1, 6).reshape(2, 3))  # float64
    want = step(donate.zeros((2, 3)), x)
    got = donate.jit(step)(donate.zeros((2, 3)), x)
    assert got.dtype == donate.float32
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_unary_inplace_ops_match_numpy() -> None:
    x = np.array([0.25, 0.5, 1.0, 2.0], dtype=np.float32)
    for name, ref in [
        ("neg_", np.negative), ("abs_", np.abs), ("exp_", np.exp), ("log_", np.log),
        ("sqrt_", np.sqrt), ("tanh_", np.tanh), ("sigmoid_", lambda a: 1 / (1 + np.exp(-a))),
    ]:
        t = donate.tensor(x)
        getattr(t, name)()
        np.testing.assert_allclose(t.numpy(), ref(x), rtol=1e-6, err_msg=name)


def test_matmul_assignment_writes_into_the_tensor():
    # `a @= b` is in place, as NumPy's: a view of `a` sees the product.
    a = donate.tensor(np.eye(2, dtype=np.float32))
    v = a[0]
    p = a.data_ptr()
    a @= donate.full((2, 2), 3.0)
    assert a.data_ptr() == p
    np.testing.assert_array_equal(np.asarray(v), [3.0, 3.0])
    np.testing.assert_array_equal(np.asarray(a), np.full((2, 2), 3.0))


def test_matmul_assignment_of_another_shape_raises_and_leaves_the_tensor():
    b = donate.ones((2, 3))
    with pytest.raises(ValueError, match=r"shape \[2, 2\]"):
        b @= donate.ones((3, 2))
    np.testing.assert_array_equal(np.asarray(b), np.ones((2, 3)))
    i = donate.ones((2, 2), dtype=donate.int32)
    with pytest.raises(TypeError):
        i @= donate.ones((2, 2))
    c = donate.ones((2, 2), dtype=donate.float32)
    c @= donate.ones((2, 2), dtype=donate.float64)
    assert c.dtype == donate.float32

"""Explicit donation, copy protection, and use after donation."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import donate


def test_relu_donate_moves_the_buffer(stats) -> None:
    t = donate.tensor([-1.0, 2.0, -3.0, 4.0])
    p = t.data_ptr()
    s = stats()
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        r = t.relu_donate()
    assert r.data_ptr() == p
    assert s["allocations"] == 0 and s["explicit_donations"] == 1
    assert r.tolist() == [0.0, 2.0, 0.0, 4.0]
    assert t.is_donated
    assert t.shape == (4,) and t.dtype == donate.float32 and t.ndim == 1 and t.size == 4
    assert "donated to relu" in repr(t)
    assert t.ownership["consumed_by"] == "relu"


def test_donate_wrapper_in_operators_and_functions() -> None:
    t = donate.full((3,), 2.0)
    u = donate.full((3,), 5.0)
    p = t.data_ptr()
    r = t.donate() + u
    assert r.data_ptr() == p and t.is_donated and r.tolist() == [7.0] * 3
    assert u.tolist() == [5.0] * 3

    t2 = donate.full((3,), -2.0)
    p2 = t2.data_ptr()
    r2 = donate.relu(t2.donate())
    assert r2.data_ptr() == p2 and t2.is_donated

    t3 = donate.full((3,), 4.0)
    p3 = t3.data_ptr()
    r3 = 1.0 - t3.donate()  # reflected operator writes into the right operand
    assert r3.data_ptr() == p3 and r3.tolist() == [-3.0] * 3

    t4 = donate.full((3,), 4.0)
    p4 = t4.data_ptr()
    r4 = u * t4.donate()
    assert r4.data_ptr() == p4 and r4.tolist() == [20.0] * 3


def test_donated_error_message_names_shape_and_op() -> None:
    t = donate.zeros((4,))
    t.relu_donate()
    with pytest.raises(donate.DonatedError, match=re.escape("shape=float32[4]")) as e:
        t.tolist()
    assert "relu" in str(e.value)
    assert isinstance(e.value, RuntimeError)


USES = {
    "tolist": lambda t: t.tolist(),
    "numpy": lambda t: t.numpy(),
    "np.asarray": lambda t: np.asarray(t),
    "memoryview": lambda t: memoryview(t),
    "item": lambda t: t[0].item(),
    "getitem": lambda t: t[0],
    "iter": lambda t: list(t),
    "data_ptr": lambda t: t.data_ptr(),
    "copy": lambda t: t.copy(),
    "astype": lambda t: t.astype("float64"),
    "relu": lambda t: t.relu(),
    "relu_donate": lambda t: t.relu_donate(),
    "relu_": lambda t: t.relu_(),
    "exp_": lambda t: t.exp_(),
    "add": lambda t: t + 1,
    "radd": lambda t: 1 + t,
    "iadd": lambda t: t.__iadd__(1),
    "add_": lambda t: t.add_(1),
    "matmul": lambda t: t.reshape(2, 2) @ donate.ones((2, 2)),
    "sum": lambda t: t.sum(),
    "mean": lambda t: t.mean(),
    "max": lambda t: t.max(),
    "softmax": lambda t: t.softmax(),
    "layer_norm": lambda t: t.layer_norm(),
    "reshape": lambda t: t.reshape(2, 2),
    "transpose": lambda t: t.T,
    "donate": lambda t: t.donate(),
    "tensor": lambda t: donate.tensor(t),
    "fn_relu": lambda t: donate.relu(t),
    "other operand": lambda t: donate.ones((4,)) + t,
}


@pytest.mark.parametrize("use", list(USES))
def test_every_use_after_donation_raises(use: str) -> None:
    t = donate.tensor([1.0, 2.0, 3.0, 4.0])
    t.relu_donate()
    with pytest.raises(donate.DonatedError):
        USES[use](t)
    assert t.is_donated  # still a clean, moved-from tensor
    assert repr(t).startswith("Tensor(<donated")


def test_shared_with_a_reshape_copies_and_warns(stats) -> None:
    t = donate.tensor([1.0, -2.0, 3.0, -4.0])
    view = t.reshape(2, 2)
    p = t.data_ptr()
    s = stats()
    with pytest.warns(donate.DonationWarning, match="shared with 1 other tensor") as w:
        r = t.relu_donate()
    assert "relu" in str(w[0].message) and "float32[4]" in str(w[0].message)
    assert r.data_ptr() != p and r.tolist() == [1.0, 0.0, 3.0, 0.0]
    assert not t.is_donated and t.data_ptr() == p
    assert t.tolist() == [1.0, -2.0, 3.0, -4.0] and view.tolist() == [[1.0, -2.0], [3.0, -4.0]]
    assert s["donation_fallbacks"] == 1 and s["explicit_donations"] == 0


def test_numpy_view_taken_before_donation_keeps_old_values() -> None:
    t = donate.tensor([1.0, -2.0, 3.0])
    v = t.numpy()
    with pytest.warns(donate.DonationWarning, match="1 exported view"):
        r = t.relu_donate()
    assert r.tolist() == [1.0, 0.0, 3.0]
    np.testing.assert_array_equal(v, [1.0, -2.0, 3.0])
    assert not v.flags.writeable
    del t, r
    np.testing.assert_array_equal(v, [1.0, -2.0, 3.0])  # the view outlives its tensor


def test_reshape_and_view_together_are_both_named() -> None:
    t = donate.zeros((4,))
    _r = t.reshape(4)
    _v = memoryview(t)
    with pytest.warns(donate.DonationWarning, match="shared with 1 other tensor and 1 exported view"):
        (t.donate() + 1)
    assert not t.is_donated


def test_released_view_allows_donation_again() -> None:
    t = donate.ones((4,))
    v = t.numpy()
    assert t.ownership["exports"] == 1 and not t.is_exclusive
    del v
    assert t.ownership["exports"] == 0 and t.is_exclusive
    p = t.data_ptr()
    assert t.relu_donate().data_ptr() == p


def test_shape_or_dtype_that_does_not_fit_copies_and_warns() -> None:
    small = donate.ones((3,))
    big = donate.ones((2, 3))
    with pytest.warns(donate.DonationWarning, match="shape"):
        r = small.donate() + big
    assert r.shape == (2, 3) and not small.is_donated and small.tolist() == [1.0] * 3

    i = donate.tensor([1, 2, 3], dtype=donate.int32)
    with pytest.warns(donate.DonationWarning, match=r"\(int32\[3\]\).*dtype int32 differs"):
        r = i.donate() + donate.ones((3,))
    assert r.dtype == donate.float64 and not i.is_donated and i.tolist() == [1, 2, 3]

    with pytest.warns(donate.DonationWarning, match="sum always writes a new buffer"):
        s = donate.sum(big.donate())
    assert s.item() == 6.0 and not big.is_donated


def test_same_tensor_twice_in_one_expression() -> None:
    t = donate.tensor([1.0, 2.0])
    with pytest.warns(donate.DonationWarning, match="same tensor"):
        r = t.donate() + t
    assert r.tolist() == [2.0, 4.0] and t.tolist() == [1.0, 2.0]
    with pytest.warns(donate.DonationWarning, match="same tensor"):
        r = t.donate() + t.donate()
    assert r.tolist() == [2.0, 4.0] and t.tolist() == [1.0, 2.0] and not t.is_donated


def test_two_donated_operands_use_the_left() -> None:
    a = donate.ones((2,))
    b = donate.ones((2,))
    pa = a.data_ptr()
    with pytest.warns(donate.DonationWarning, match="other operand's buffer was used"):
        r = a.donate() + b.donate()
    assert r.data_ptr() == pa and a.is_donated
    assert not b.is_donated and b.tolist() == [1.0, 1.0]


def test_a_donated_wrapper_is_used_once() -> None:
    t = donate.ones((2,))
    d = t.donate()
    assert not d.used
    _ = d + 1
    assert d.used
    with pytest.raises(donate.DonatedError, match="already used"):
        _ = d + 1


def test_strict_mode_turns_the_warning_into_an_error_and_keeps_inputs() -> None:
    t = donate.tensor([1.0, -1.0])
    v = t.numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        with pytest.raises(donate.DonationWarning):
            t.relu_donate()
        a = donate.ones((2,))
        b = donate.ones((2,))
        with pytest.raises(donate.DonationWarning):
            a.donate() + b.donate()  # b would not be used: refused before a is claimed
    assert not t.is_donated and t.tolist() == [1.0, -1.0] and v.tolist() == [1.0, -1.0]
    assert not a.is_donated and not b.is_donated


def test_errors_lose_nothing() -> None:
    t = donate.ones((3,))
    u = donate.ones((4,))
    with pytest.raises(ValueError, match="not compatible"):
        t.donate() + u
    assert not t.is_donated and t.tolist() == [1.0] * 3
    with pytest.raises(ValueError):
        (t + 0) + u  # a temporary operand of a failing op
    with pytest.raises(donate.AxisError):
        donate.softmax(t.donate(), axis=3)
    assert not t.is_donated
    with pytest.raises(ValueError):
        donate.layer_norm(t.donate(), donate.ones(5))
    assert not t.is_donated
    w = donate.ones((3, 3))
    with donate.arena(max_bytes=8):
        with pytest.warns(donate.DonationWarning), pytest.raises(MemoryError):
            t.reshape(1, 3).donate() @ w  # matmul must allocate; the budget refuses
    assert not t.is_donated and t.tolist() == [1.0] * 3


def test_memory_error_in_an_arena_keeps_donated_input() -> None:
    big = donate.ones((1000,))
    other = donate.ones((1000,))
    with donate.arena(max_bytes=1024):
        # The result's shape differs, so `big` cannot receive it (warned);
        # the new buffer exceeds the budget.
        with pytest.warns(donate.DonationWarning), pytest.raises(MemoryError, match="max_bytes=1024"):
            big.donate() + other.reshape(1, 1000)
        with pytest.raises(MemoryError, match="requested 4000 bytes"):
            big + other  # a named, fresh result
    assert not big.is_donated and big.tolist() == [1.0] * 1000
    assert other.tolist() == [1.0] * 1000


def test_a_buffer_read_after_its_view_is_released_is_never_donated() -> None:
    """`np.ndarray(buffer=t)` takes a buffer-protocol view without a shape,
    releases it at once and keeps reading the pointer while it holds `t`
    (NumPy relies on the exporter to keep the memory there). So such a
    request pins the buffer: an explicit donation copies and warns, the
    array keeps reading `t`'s values, and no freed or reused memory is
    ever read through it. Before, the donation was taken silently and the
    array read the donated result, or another tensor's data."""
    x = donate.full((1 << 12,), 2.0)
    p = x.data_ptr()
    arr = np.ndarray(x.shape, np.float32, buffer=x)
    assert arr.ctypes.data == p
    assert x.ownership["exports"] == 0 and x.ownership["pinned"]
    assert not x.is_exclusive
    with pytest.warns(donate.DonationWarning, match="pinned|read it for as long"):
        y = x.exp_donate()
    assert y.data_ptr() != p and not x.is_donated
    np.testing.assert_array_equal(arr[:3], [2.0, 2.0, 2.0])
    with pytest.warns(donate.DonationWarning):
        z = x.donate() + 1
    assert z.data_ptr() != p
    f = donate.jit(lambda a: a * 3, donate_argnums=0)
    with pytest.warns(donate.DonationWarning):
        w = f(x)
    assert w.data_ptr() != p and not x.is_donated
    # Writes through the tensor are seen, as through any view of it: the
    # memory never moves (no copy-on-write under the reader).
    x += 1
    x[1:3] = 7.0
    x[[3]] = 9.0
    x[x > 100] = 0.0
    x.relu_()
    assert x.data_ptr() == p
    np.testing.assert_array_equal(arr[:5], [3.0, 7.0, 7.0, 9.0, 3.0])
    # Within an arena, the block never goes back to be reused under arr.
    with donate.arena(max_bytes=16 << 20):
        t = donate.full((1 << 12,), 2.0)
        a2 = np.ndarray(t.shape, np.float32, buffer=t)
        with pytest.warns(donate.DonationWarning):
            r = t.relu_donate()
        del r
        u = donate.full((1 << 12,), 42.0)
        assert u.data_ptr() != a2.ctypes.data
        np.testing.assert_array_equal(a2[:3], [2.0, 2.0, 2.0])


def test_a_shaped_view_pins_nothing() -> None:
    # memoryview(t) and np.asarray(t) hold their export while they live:
    # once they are gone the buffer may be donated again.
    t = donate.ones((4,))
    v, a = memoryview(t), np.asarray(t)
    assert not t.ownership["pinned"]
    del v, a
    assert t.is_exclusive
    p = t.data_ptr()
    assert t.relu_donate().data_ptr() == p

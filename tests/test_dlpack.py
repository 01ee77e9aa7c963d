"""DLPack both ways: an exported capsule is an exported view (it blocks
donation and in-place writes until the consumer lets go), NumPy's import is
zero-copy and read-only, and ``donate.from_dlpack`` makes an owned,
donatable copy. PyTorch and JAX round trips when they are installed."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import donate


def make() -> donate.Tensor:
    return donate.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))


def test_numpy_import_is_zero_copy_and_read_only() -> None:
    t = make()
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr()
    assert not a.flags.writeable
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4))
    assert t.__dlpack_device__() == (1, 0)


def test_a_strided_view_exports_its_strides() -> None:
    t = make()
    v = t.T
    a = np.from_dlpack(v)
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4).T)
    assert a.strides == (4, 16)


def test_an_export_blocks_donation_until_released_and_shows_writes() -> None:
    t = make()
    a = np.from_dlpack(t)
    assert t.ownership["exports"] == 1
    with pytest.warns(donate.DonationWarning, match="exported view"):
        u = t.donate() * 2
    assert not t.is_donated
    p = t.data_ptr()
    t += 1  # written through: the consumer's array shows it, as PyTorch's .numpy()
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4) + 1)
    assert t.data_ptr() == p
    del a, u
    gc.collect()
    assert t.ownership["exports"] == 0
    p = t.data_ptr()
    w = t.donate() * 2  # exclusive again: honoured
    assert w.data_ptr() == p and t.is_donated


def test_a_capsule_nobody_consumed_releases_its_export() -> None:
    t = make()
    cap = t.__dlpack__(max_version=(1, 0))
    assert not t.is_exclusive
    del cap
    assert t.is_exclusive


def test_the_legacy_capsule_is_a_copy() -> None:
    t = make()
    cap = t.__dlpack__()  # no max_version: the unversioned capsule
    assert t.is_exclusive  # a copy was exported, not the buffer
    del cap
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__(copy=False)


def test_export_arguments_are_checked() -> None:
    t = make()
    with pytest.raises(ValueError, match="stream"):
        t.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="CPU"):
        t.__dlpack__(dl_device=(2, 0))
    cap = t.__dlpack__(max_version=(1, 0), copy=True)
    assert t.is_exclusive
    del cap


def test_from_dlpack_copies_into_an_owned_donatable_tensor() -> None:
    src = np.arange(8.0)[::-2]  # strided, negative step
    t = donate.from_dlpack(src)
    np.testing.assert_array_equal(t.numpy(), src)
    assert t.is_exclusive and t.dtype == np.float64
    src[:] = 0  # the copy is the tensor's own
    assert t.numpy()[0] == 7.0
    p = t.data_ptr()
    u = t.donate() + 1
    assert u.data_ptr() == p
    with pytest.raises(BufferError, match="copied"):
        donate.from_dlpack(np.ones(3), copy=False)
    x = make()
    assert donate.from_dlpack(x) is x
    y = donate.from_dlpack(x, copy=True)
    assert y is not x and y.data_ptr() != x.data_ptr()


def test_torch_round_trip_when_installed() -> None:
    torch = pytest.importorskip("torch")
    t = make()
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t.data_ptr()
    assert not t.is_exclusive
    del tt
    gc.collect()
    assert t.is_exclusive
    back = donate.from_dlpack(torch.arange(6, dtype=torch.float32).reshape(2, 3).T)
    np.testing.assert_array_equal(back.numpy(), np.arange(6).reshape(2, 3).T)


def test_jax_round_trip_when_installed() -> None:
    jnp = pytest.importorskip("jax.numpy")
    t = make()
    j = jnp.from_dlpack(t)
    np.testing.assert_array_equal(np.asarray(j), t.numpy())
    back = donate.from_dlpack(jnp.arange(4.0, dtype=jnp.float32))
    np.testing.assert_array_equal(back.numpy(), np.arange(4.0))

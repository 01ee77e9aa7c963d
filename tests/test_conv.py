"""conv2d and inference batch_norm: values against NumPy, and the ownership
rules (conv2d always allocates; batch_norm reuses a temporary or a donated
input and updates in place with batch_norm_)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import donate


def conv_ref(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, stride: int, padding: int) -> np.ndarray:
    x = x.astype(np.float64)
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    kh, kw = w.shape[2:]
    win = sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]
    out = np.einsum("nchwij,ocij->nohw", win, w.astype(np.float64))
    if b is not None:
        out += b[None, :, None, None]
    return out


@pytest.mark.parametrize(
    "shape,k,stride,padding",
    [
        ((2, 3, 8, 8), 3, 1, 1),
        ((1, 4, 7, 5), 3, 2, 1),
        ((2, 5, 6, 6), 1, 1, 0),
        ((1, 2, 9, 9), 5, 2, 2),
        ((3, 1, 4, 4), 4, 1, 0),
        ((0, 3, 5, 5), 3, 1, 1),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("with_bias", [False, True])
def test_conv2d_matches_numpy(shape, k, stride, padding, dtype, with_bias) -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((6, shape[1], k, k)).astype(dtype)
    b = rng.standard_normal(6).astype(dtype) if with_bias else None
    got = donate.conv2d(donate.tensor(x), w, b, stride=stride, padding=padding)
    want = conv_ref(x, w, b, stride, padding)
    assert got.dtype == dtype and got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4 if dtype == np.float32 else 1e-10, atol=1e-4)
    same = donate.tensor(x).conv2d(w, b, stride, padding)
    np.testing.assert_array_equal(same.numpy(), got.numpy())


def test_conv2d_writes_over_a_donated_or_temporary_input_of_the_result_shape() -> None:
    rng = np.random.default_rng(5)
    base = rng.standard_normal((3, 4, 6, 6)).astype(np.float32)
    w = donate.tensor(rng.standard_normal((4, 4, 3, 3)).astype(np.float32))
    b = donate.tensor(rng.standard_normal(4).astype(np.float32))
    want = conv_ref(base, w.numpy(), b.numpy(), 1, 1)
    x = donate.tensor(base)
    ptr = x.data_ptr()
    y = donate.conv2d(x.donate(), w, b, padding=1)
    assert y.data_ptr() == ptr and x.is_donated
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-4, atol=1e-4)
    # a temporary: one new buffer for `x * 1`, none for the convolution's
    # result (its scratch is freed before it returns)
    x = donate.tensor(base)
    before = donate.memory_stats()
    z = donate.conv2d(x * 1, w, b, padding=1)
    after = donate.memory_stats()
    assert after["live_bytes"] - before["live_bytes"] == base.nbytes
    assert after["implicit_donations"] - before["implicit_donations"] == 1
    np.testing.assert_array_equal(z.numpy(), y.numpy())
    # a named input is never written
    n = donate.conv2d(x, w, b, padding=1)
    assert n.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(x.numpy(), base)


def test_conv2d_donations_it_cannot_honour_copy_and_warn() -> None:
    x = donate.tensor(np.ones((1, 2, 4, 4), np.float32))
    w = donate.tensor(np.ones((2, 2, 3, 3), np.float32))
    ptr = x.data_ptr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = donate.conv2d(x.donate(), w, stride=2, padding=1)  # another shape
        view = x.numpy()
        z = donate.conv2d(x.donate(), w, padding=1)  # a live view
        del view
        donate.conv2d(x, w.donate())  # the weight is a parameter
    assert y.data_ptr() != ptr and z.data_ptr() != ptr
    assert not x.is_donated and x.data_ptr() == ptr and not w.is_donated
    messages = [str(m.message) for m in caught]
    assert [m.category for m in caught] == [donate.DonationWarning] * 3
    assert "differs from the result's shape" in messages[0]
    assert "exported view" in messages[1]
    assert "only writes into its input" in messages[2]
    np.testing.assert_array_equal(x.numpy(), 1.0)
    np.testing.assert_array_equal(w.numpy(), 1.0)


@pytest.mark.parametrize(
    "x_shape,w_shape,kwargs,exc,match",
    [
        ((1, 3, 4, 4), (2, 4, 3, 3), {}, ValueError, "shape"),
        ((1, 3, 2, 2), (2, 3, 3, 3), {}, ValueError, "does not fit"),
        ((1, 3, 4, 4), (2, 3, 3, 3), {"stride": 0}, ValueError, "stride"),
        ((3, 4, 4), (2, 3, 3, 3), {}, ValueError, "4-d"),
        ((1, 3, 4, 4), (2, 3, 3, 3), {"bias": np.zeros(3, np.float32)}, ValueError, "bias"),
        ((1, 3, 4, 4), (2, 3, 3, 3), {"bias": 1.0}, TypeError, "not numbers"),
        ((1, 3, 4, 4), (2, 3, 3, 3), {"padding": -1}, OverflowError, "negative"),
    ],
)
def test_conv2d_rejects_bad_arguments(x_shape, w_shape, kwargs, exc, match) -> None:
    x = donate.zeros(x_shape, dtype=donate.float32)
    with pytest.raises(exc, match=match):
        donate.conv2d(x, np.zeros(w_shape, np.float32), **kwargs)
    assert not x.is_donated


def test_conv2d_rejects_integer_tensors() -> None:
    with pytest.raises(TypeError, match="float"):
        donate.conv2d(donate.zeros((1, 1, 3, 3), dtype=donate.int32), np.zeros((1, 1, 1, 1), np.int32))


def bn_ref(x, mean, var, gamma, beta, eps):
    sh = (None,) + (slice(None),) + (None,) * (x.ndim - 2)
    out = (x.astype(np.float64) - mean[sh]) / np.sqrt(var[sh] + eps)
    if gamma is not None:
        out = out * gamma[sh]
    if beta is not None:
        out = out + beta[sh]
    return out


@pytest.fixture
def bn():
    rng = np.random.default_rng(2)
    c = 3
    return (
        rng.standard_normal(c).astype(np.float32),
        (rng.random(c) + 0.5).astype(np.float32),
        rng.standard_normal(c).astype(np.float32),
        rng.standard_normal(c).astype(np.float32),
    )


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("affine", [False, True])
def test_batch_norm_matches_numpy(bn, shape, affine) -> None:
    mean, var, gamma, beta = bn
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    g, b = (gamma, beta) if affine else (None, None)
    want = bn_ref(x, mean, var, g, b, 1e-5)
    np.testing.assert_allclose(donate.batch_norm(x, mean, var, g, b).numpy(), want, rtol=1e-5, atol=1e-6)
    t = donate.tensor(x)
    np.testing.assert_allclose(t.batch_norm(mean, var, g, b).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(t.numpy(), x)  # a named tensor is never written


def test_batch_norm_reuses_temporaries_and_donations(bn) -> None:
    mean, var, gamma, beta = (donate.tensor(p) for p in bn)
    x = donate.tensor(np.ones((2, 3, 4, 4), np.float32))
    # a temporary: the result is written into the buffer of `x * 1`
    before = donate.memory_stats()["allocations"]
    y = (x * 1).batch_norm(mean, var, gamma, beta)
    assert donate.memory_stats()["allocations"] - before == 1
    # donated: same buffer, and the donor is unusable
    z = x.copy()
    ptr = z.data_ptr()
    r = donate.batch_norm(z.donate(), mean, var, gamma, beta)
    assert r.data_ptr() == ptr and z.is_donated
    with pytest.raises(donate.DonatedError):
        z.numpy()
    np.testing.assert_array_equal(r.numpy(), y.numpy())
    # a named tensor: a new buffer, the input intact
    s = x.batch_norm(mean, var, gamma, beta)
    assert s.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(x.numpy(), 1.0)


def test_batch_norm_donation_refused_by_a_view_copies_and_warns(bn) -> None:
    mean, var, *_ = bn
    x = donate.tensor(np.ones((1, 3, 2), np.float32))
    view = x.numpy()
    with pytest.warns(donate.DonationWarning, match="batch_norm"):
        r = donate.batch_norm(x.donate(), mean, var)
    assert not x.is_donated and r.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(view, 1.0)


def test_batch_norm_inplace(bn) -> None:
    mean, var, gamma, beta = bn
    base = np.random.default_rng(4).standard_normal((2, 3, 5)).astype(np.float32)
    want = bn_ref(base, mean, var, gamma, beta, 1e-5)
    t = donate.tensor(base)
    ptr = t.data_ptr()
    assert t.batch_norm_(mean, var, gamma, beta) is t
    assert t.data_ptr() == ptr
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-6)
    # shared with a reshape view: written through, the view sees it
    u = donate.tensor(base)
    v = u.reshape(-1)
    u.batch_norm_(mean, var, gamma, beta)
    assert u.data_ptr() == v.data_ptr()
    np.testing.assert_allclose(v.numpy(), want.reshape(-1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(u.numpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "x_shape,kwargs,exc,match",
    [
        ((3,), {}, ValueError, "at least 2 axes"),
        ((2, 4), {}, ValueError, "mean must have shape"),
        ((2, 3), {"eps": -1.0}, ValueError, "eps"),
        ((2, 3), {"gamma": np.ones(2, np.float32)}, ValueError, "gamma"),
        ((2, 3), {"var": 1.0}, TypeError, "not numbers"),
    ],
)
def test_batch_norm_rejects_bad_arguments(bn, x_shape, kwargs, exc, match) -> None:
    mean, var, *_ = bn
    args = {"mean": mean, "var": var, **kwargs}
    t = donate.ones(x_shape, dtype=donate.float32)
    with pytest.raises(exc, match=match):
        donate.batch_norm(t, **args)
    with pytest.raises(exc, match=match):
        t.batch_norm_(**args)
    np.testing.assert_array_equal(t.numpy(), 1.0)


def test_batch_norm_inplace_rejects_integers(bn) -> None:
    mean, var, *_ = bn
    with pytest.raises(TypeError, match="float"):
        donate.zeros((1, 3), dtype=donate.int32).batch_norm_(mean, var)

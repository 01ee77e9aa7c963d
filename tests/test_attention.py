"""`donate.scaled_dot_product_attention`: values against the unfused
composition in float64 (NumPy), PyTorch's semantics (causal alignment,
fully masked rows, argument rules), and the donation rules: the result is
written over a temporary or donated query when it has the query's shape,
never over the key, the value or the mask."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import donate

sdpa = donate.scaled_dot_product_attention


def reference(q, k, v, mask=None, causal=False, scale=None):
    """softmax(q·kᵀ·scale + mask)·v in float64; a row with every key
    masked out is 0 (PyTorch's safe softmax)."""
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    e = q.shape[-1]
    sc = (1.0 / np.sqrt(e) if e else 1.0) if scale is None else scale
    s = (q @ np.swapaxes(k, -1, -2)) * sc
    if mask is not None:
        s = s + np.asarray(mask, np.float64)
    if causal:
        l, n = s.shape[-2:]
        s = np.where(np.tril(np.ones((l, n), bool)), s, -np.inf)
    top = s.max(-1, keepdims=True) if s.shape[-1] else s
    dead = np.isneginf(top)
    with np.errstate(invalid="ignore"):
        p = np.exp(s - np.where(dead, 0.0, top))
        p = p / np.where(dead, 1.0, p.sum(-1, keepdims=True))
    return p @ v


def rand(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


SHAPES = [
    # (lead, L, S, E, Ev)
    ((), 1, 1, 1, 1),
    ((), 5, 7, 8, 8),
    ((2,), 3, 9, 4, 6),
    ((2, 3), 17, 130, 16, 16),
    ((1, 2), 130, 65, 8, 3),
]


@pytest.mark.parametrize("lead,l,s,e,ev", SHAPES)
@pytest.mark.parametrize("causal", [False, True])
def test_matches_the_unfused_composition(lead, l, s, e, ev, causal) -> None:
    rng = np.random.default_rng(l * 100 + s)
    q, k, v = rand(rng, *lead, l, e), rand(rng, *lead, s, e), rand(rng, *lead, s, ev)
    out = sdpa(donate.tensor(q), donate.tensor(k), donate.tensor(v), is_causal=causal)
    assert out.shape == (*lead, l, ev)
    assert out.dtype == np.float64
    np.testing.assert_allclose(np.asarray(out), reference(q, k, v, causal=causal), rtol=1e-12, atol=1e-12)
    out32 = sdpa(*(donate.tensor(x.astype(np.float32)) for x in (q, k, v)), is_causal=causal)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out32), reference(q, k, v, causal=causal), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("mask_shape", [(6, 7), (1, 6, 7), (2, 3, 6, 7), (2, 1, 6, 7), (7,), (6, 1), (1, 1, 1, 1), ()])
def test_masks_broadcast_to_the_scores(mask_shape) -> None:
    rng = np.random.default_rng(1)
    q, k, v = rand(rng, 2, 3, 6, 4), rand(rng, 2, 3, 7, 4), rand(rng, 2, 3, 7, 5)
    mask = np.asarray(rand(rng, *mask_shape))
    if mask.ndim:
        mask[..., 0] = -np.inf
    out = sdpa(donate.tensor(q), donate.tensor(k), donate.tensor(v), donate.tensor(mask))
    np.testing.assert_allclose(np.asarray(out), reference(q, k, v, mask=mask), rtol=1e-12, atol=1e-12)


def test_scale_and_python_arrays() -> None:
    rng = np.random.default_rng(2)
    q, k, v = rand(rng, 4, 3), rand(rng, 5, 3), rand(rng, 5, 2)
    for scale in [0.0, -0.7, 2.5]:
        out = sdpa(q, k, v, scale=scale)  # NumPy operands are converted
        np.testing.assert_allclose(np.asarray(out), reference(q, k, v, scale=scale), rtol=1e-12, atol=1e-12)


def test_causal_is_top_left_aligned_as_pytorch() -> None:
    # q = k = 0, v = identity: each output row is the attention weights.
    for l, s, want in [
        (4, 2, [[1, 0], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]),
        (2, 4, [[1, 0, 0, 0], [0.5, 0.5, 0, 0]]),
    ]:
        out = sdpa(donate.zeros((l, 3)), donate.zeros((s, 3)), donate.tensor(np.eye(s)), is_causal=True)
        np.testing.assert_allclose(np.asarray(out), want)


def test_a_fully_masked_row_is_zero_as_pytorch() -> None:
    rng = np.random.default_rng(3)
    q, k, v = rand(rng, 3, 4), rand(rng, 5, 4), rand(rng, 5, 4)
    mask = np.zeros((3, 5))
    mask[1] = -np.inf
    for dtype in (np.float32, np.float64):
        out = np.asarray(sdpa(*(donate.tensor(x.astype(dtype)) for x in (q, k, v, mask))))
        assert (out[1] == 0).all()
        assert np.isfinite(out).all()


def test_nan_propagates_as_in_the_composition_even_where_masked() -> None:
    rng = np.random.default_rng(4)
    q, k, v = rand(rng, 3, 4), rand(rng, 5, 4), rand(rng, 5, 4)
    mask = np.zeros((3, 5))
    mask[:, 2] = -np.inf
    k[2, 0] = np.nan  # a masked key: NaN + -inf is NaN, as in PyTorch
    out = np.asarray(sdpa(*(donate.tensor(x) for x in (q, k, v, mask))))
    assert np.isnan(out).all()


def test_zero_sizes() -> None:
    assert np.asarray(sdpa(donate.ones((3, 4)), donate.ones((0, 4)), donate.ones((0, 2)))).tolist() == [[0.0, 0.0]] * 3
    assert sdpa(donate.ones((0, 4)), donate.ones((5, 4)), donate.ones((5, 2))).shape == (0, 2)
    out = sdpa(donate.ones((2, 0)), donate.ones((3, 0)), donate.tensor(np.arange(6.0).reshape(3, 2)))
    np.testing.assert_allclose(np.asarray(out), [[2.0, 3.0], [2.0, 3.0]])  # the mean of v


def test_argument_errors() -> None:
    q, k, v = donate.ones((2, 3, 4)), donate.ones((2, 5, 4)), donate.ones((2, 5, 4))
    with pytest.raises(ValueError, match="mask cannot be combined with is_causal"):
        sdpa(q, k, v, donate.zeros((3, 5)), is_causal=True)
    with pytest.raises(ValueError, match="dropout"):
        sdpa(q, k, v, dropout_p=0.1)
    with pytest.raises(ValueError, match="finite"):
        sdpa(q, k, v, scale=float("inf"))
    with pytest.raises(ValueError, match="leading dimensions"):
        sdpa(q, donate.ones((1, 5, 4)), donate.ones((1, 5, 4)))
    with pytest.raises(ValueError, match="last dimension"):
        sdpa(q, donate.ones((2, 5, 3)), v)
    with pytest.raises(ValueError, match="broadcast"):
        sdpa(q, k, v, donate.zeros((3, 4)))
    with pytest.raises(TypeError):
        sdpa(donate.ones((3, 4), dtype="int32"), donate.ones((5, 4), dtype="int32"), donate.ones((5, 4), dtype="int32"))


def test_promotion() -> None:
    out = sdpa(donate.ones((3, 4)), donate.ones((5, 4), dtype="float64"), donate.ones((5, 4)))
    assert out.dtype == np.float64


def test_a_donated_query_receives_the_result() -> None:
    rng = np.random.default_rng(5)
    q, k, v = rand(rng, 2, 6, 4, dtype=np.float32), rand(rng, 2, 9, 4, dtype=np.float32), rand(rng, 2, 9, 4, dtype=np.float32)
    want = reference(q, k, v)
    qt, kt, vt = donate.tensor(q), donate.tensor(k), donate.tensor(v)
    ptr = qt.data_ptr()
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        out = sdpa(qt.donate(), kt, vt)
    assert out.data_ptr() == ptr
    assert qt.is_donated
    np.testing.assert_allclose(np.asarray(out), want, rtol=2e-5, atol=2e-5)
    # Key and value are never written.
    np.testing.assert_array_equal(np.asarray(kt), k)
    np.testing.assert_array_equal(np.asarray(vt), v)


def test_a_large_temporary_query_is_reused_implicitly() -> None:
    # 2 x 256 x 256 float32 = 512 KiB, above 3.11-3.13's implicit threshold.
    rng = np.random.default_rng(6)
    q = donate.tensor(rand(rng, 2, 256, 256, dtype=np.float32))
    k = donate.tensor(rand(rng, 2, 64, 256, dtype=np.float32))
    before = donate.memory_stats()
    out = sdpa(q * 1.0, k, k)
    after = donate.memory_stats()
    assert after["allocations"] - before["allocations"] == 1  # q * 1.0 only
    assert after["implicit_donations"] - before["implicit_donations"] == 1
    np.testing.assert_allclose(np.asarray(out), reference(np.asarray(q), np.asarray(k), np.asarray(k)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("why", ["width", "view", "key"])
def test_refused_donations_copy_and_warn(why) -> None:
    q, k = donate.ones((3, 4)), donate.ones((5, 4))
    v = donate.ones((5, 2)) if why == "width" else donate.ones((5, 4))
    donor = k if why == "key" else q
    view = np.asarray(donor) if why == "view" else None
    with pytest.warns(donate.DonationWarning) as w:
        out = sdpa(q.donate() if donor is q else q, k.donate() if donor is k else k, v)
    assert not donor.is_donated
    message = str(w[0].message)
    assert {"width": "shape", "view": "shared", "key": "only writes into its input"}[why] in message
    np.testing.assert_allclose(np.asarray(out), reference(np.ones((3, 4)), np.ones((5, 4)), np.asarray(v)), rtol=1e-6)
    del view

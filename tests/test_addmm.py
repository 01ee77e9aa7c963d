"""`donate.addmm(input, mat1, mat2)`: `input + mat1 @ mat2` in one pass,
against NumPy, with the donation rule: the product is accumulated into
`input`'s buffer when `input` is donated (or a temporary) and has the
result's shape; the factors are never written."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import donate


def rand(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize(
    "inp,a,b",
    [
        ((3, 5), (3, 4), (4, 5)),
        ((5,), (3, 4), (4, 5)),
        ((), (3, 4), (4, 5)),
        ((2, 3, 5), (2, 3, 4), (4, 5)),
        ((1, 5), (2, 3, 4), (2, 4, 5)),
        ((3,), (3, 4), (4,)),
        ((0, 5), (0, 4), (4, 5)),
        ((3, 5), (3, 0), (0, 5)),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_matches_numpy(inp, a, b, dtype) -> None:
    rng = np.random.default_rng(0)
    x, y, z = (np.round(rand(rng, *s) * 4).astype(dtype) for s in (inp, a, b))
    out = donate.addmm(donate.tensor(x), donate.tensor(y), donate.tensor(z))
    want = x + y @ z
    assert out.dtype == want.dtype and out.shape == want.shape
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6 if dtype == np.float32 else 1e-12)


def test_promotion_and_numpy_operands() -> None:
    out = donate.addmm(np.ones(3, np.float32), donate.ones((2, 4)), np.ones((4, 3)))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 5.0))


def test_a_donated_input_receives_the_result() -> None:
    rng = np.random.default_rng(1)
    x, h, w = rand(rng, 6, 5, dtype=np.float32), rand(rng, 6, 4, dtype=np.float32), rand(rng, 4, 5, dtype=np.float32)
    xt, ht, wt = donate.tensor(x), donate.tensor(h), donate.tensor(w)
    ptr = xt.data_ptr()
    before = donate.memory_stats()
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        out = donate.addmm(xt.donate(), ht, wt)
    assert out.data_ptr() == ptr
    assert xt.is_donated
    assert donate.memory_stats()["allocations"] == before["allocations"]
    np.testing.assert_allclose(np.asarray(out), x + h @ w, rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(ht), h)
    np.testing.assert_array_equal(np.asarray(wt), w)


def test_a_named_input_is_never_written() -> None:
    x = donate.ones((3, 3))
    out = donate.addmm(x, donate.ones((3, 2)), donate.ones((2, 3)))
    assert out.data_ptr() != x.data_ptr()
    np.testing.assert_array_equal(np.asarray(x), np.ones((3, 3)))
    np.testing.assert_array_equal(np.asarray(out), np.full((3, 3), 3.0))


@pytest.mark.parametrize("why", ["broadcast", "view", "factor"])
def test_refused_donations_copy_and_warn(why) -> None:
    x = donate.ones((3,)) if why == "broadcast" else donate.ones((2, 3))
    a, b = donate.ones((2, 4)), donate.ones((4, 3))
    donor = a if why == "factor" else x
    view = np.asarray(donor) if why == "view" else None
    with pytest.warns(donate.DonationWarning) as w:
        out = donate.addmm(x.donate() if donor is x else x, a.donate() if donor is a else a, b)
    assert not donor.is_donated
    assert {"broadcast": "shape", "view": "shared", "factor": "only writes into its input"}[why] in str(w[0].message)
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 5.0))
    del view


def test_errors() -> None:
    with pytest.raises(ValueError, match="broadcast"):
        donate.addmm(donate.ones((4, 3)), donate.ones((2, 4)), donate.ones((4, 3)))
    with pytest.raises(ValueError):
        donate.addmm(donate.ones((2, 3)), donate.ones((2, 4)), donate.ones((5, 3)))

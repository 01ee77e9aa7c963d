"""`donate.einsum` (and `np.einsum` on tensors) against NumPy's: matrix
products, batches, diagonals, traces, outer products, broadcasting
ellipses, implicit outputs, three operands; integer dtypes; NumPy's errors
for malformed subscripts; traced by `donate.jit` as planned operations."""

from __future__ import annotations

import numpy as np
import pytest

import donate

CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i", [(5,), (5,)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...->...", [(3, 4, 5)]),
    ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 6)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("i,i,i->", [(4,), (4,), (4,)]),
]


@pytest.mark.parametrize(("subscripts", "shapes"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_einsum_matches_numpy(subscripts: str, shapes: list[tuple[int, ...]], dtype: type) -> None:
    rng = np.random.default_rng(1)
    ops = [rng.integers(-3, 4, s).astype(dtype) for s in shapes]
    want = np.einsum(subscripts, *ops)
    for got in (
        donate.einsum(subscripts, *(donate.tensor(o) for o in ops)),
        np.einsum(subscripts, *(donate.tensor(o) for o in ops)),
    ):
        assert isinstance(got, donate.Tensor)
        assert got.shape == want.shape
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


@pytest.mark.parametrize(
    ("subscripts", "shapes"),
    [("ij,jk", [(3, 4)]), ("ijk->i", [(3, 4)]), ("ij->k", [(3, 4)]), ("ij->ii", [(3, 3)]), ("i1->i", [(3, 1)])],
)
def test_malformed_subscripts_raise_value_error(subscripts: str, shapes: list[tuple[int, ...]]) -> None:
    ops = [np.ones(s, np.float32) for s in shapes]
    with pytest.raises(ValueError):
        np.einsum(subscripts, *ops)
    with pytest.raises(ValueError):
        donate.einsum(subscripts, *(donate.tensor(o) for o in ops))


def test_mismatched_lengths_raise() -> None:
    with pytest.raises(ValueError):
        donate.einsum("ij,jk->ik", donate.ones((2, 3)), donate.ones((4, 2)))


def test_einsum_is_traced() -> None:
    @donate.jit
    def attention_scores(q: donate.Tensor, k: donate.Tensor) -> donate.Tensor:
        return donate.einsum("bqd,bkd->bqk", q, k)

    rng = np.random.default_rng(2)
    q = rng.standard_normal((2, 3, 4)).astype(np.float32)
    k = rng.standard_normal((2, 5, 4)).astype(np.float32)
    got = attention_scores(donate.tensor(q), donate.tensor(k))
    np.testing.assert_allclose(np.asarray(got), np.einsum("bqd,bkd->bqk", q, k), rtol=1e-5)
    assert "matmul" in attention_scores.lower(donate.tensor(q), donate.tensor(k)).as_text()


@pytest.mark.parametrize("subscripts", ["ij->ji", "ij->i", "ij,jk->ik"])
def test_a_donated_operand_is_taken_or_refused_with_a_warning(subscripts: str) -> None:
    import warnings

    base = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    t = donate.tensor(base.copy())
    ops = [t.donate()] + [donate.tensor(base)] * subscripts.split("->")[0].count(",")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = donate.einsum(subscripts, *ops)
    np.testing.assert_allclose(np.asarray(r), np.einsum(subscripts, *([base] * len(ops))))
    refusals = [x for x in w if issubclass(x.category, donate.DonationWarning)]
    assert t.is_donated != bool(refusals), [str(x.message) for x in refusals]
    if not t.is_donated:
        assert len(refusals) == 1
        np.testing.assert_array_equal(np.asarray(t), base)


def test_a_donated_operand_is_intact_after_an_einsum_that_fails() -> None:
    t = donate.tensor(np.arange(6.0).reshape(2, 3))
    bad = donate.ones((4, 5))
    with pytest.warns(donate.DonationWarning), pytest.raises(ValueError):
        donate.einsum("ij,jk->ik", t.donate(), bad)
    assert not t.is_donated
    assert t.tolist() == np.arange(6.0).reshape(2, 3).tolist()


def test_an_operand_donated_and_also_passed_plainly_is_read() -> None:
    a = np.arange(4.0).reshape(2, 2)
    t = donate.tensor(a)
    with pytest.warns(donate.DonationWarning):
        r = donate.einsum("ij,jk->ik", t.donate(), t)
    np.testing.assert_array_equal(np.asarray(r), a @ a)
    assert not t.is_donated

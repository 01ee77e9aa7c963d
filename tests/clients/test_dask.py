"""Dask arrays whose chunks are donate tensors.

`da.from_array(tensor, chunks=...)` makes a Dask array with donate chunks
(its `_meta` is a donate tensor); computing an expression on it must give a
donate tensor equal to the NumPy result. Dask's chunk functions go through
NumPy's protocols (`np.sum(chunk, dtype=..., keepdims=...)`, ufuncs,
`np.concatenate`, `np.tensordot`, `np.ones_like(meta, shape=...)`, ...), so
this needs donate tensors to behave as NumPy chunk types do.

`dask.config.set({"array.backend": "donate"})` must make Dask's creation
functions build donate chunks: that needs a `dask.array.backends` entry point
named "donate" (see `test_array_backend_*`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask
import dask.array as da
import numpy as np
import pytest
from _clients_util import assert_donate, assert_matches

import donate

A = (np.arange(48.0).reshape(8, 6) - 20.0) / 7.0
# Uneven chunks on both axes: blocks of 3, 3, 2 rows and 4, 2 columns.
CHUNKS = (3, 4)


def _x() -> da.Array:
    return da.from_array(donate.asarray(A), chunks=CHUNKS)


def test_from_array_keeps_donate_meta() -> None:
    x = _x()
    assert type(x._meta) is donate.Tensor
    assert x.dtype == np.float64
    assert x.chunks == ((3, 3, 2), (4, 2))


def test_blocks_are_donate() -> None:
    # Elementwise work on each chunk, no assembly: every block stays donate.
    blocks = (_x() + 1).to_delayed().ravel()
    for block, index in zip(blocks, np.ndindex(3, 2), strict=True):
        got = block.compute(scheduler="sync")
        rows = slice(3 * index[0], min(3 * index[0] + 3, 8))
        cols = slice(4 * index[1], min(4 * index[1] + 4, 6))
        assert_matches(got, A[rows, cols] + 1, rtol=1e-12)


# (dask expression on x, the same on the NumPy array a)
OPS: list[tuple[str, Callable[[Any], Any], Callable[[np.ndarray], Any]]] = [
    ("compute", lambda x: x, lambda a: a),
    ("add-sum", lambda x: (x + 1).sum(), lambda a: (a + 1).sum()),
    ("mean-axis0", lambda x: x.mean(axis=0), lambda a: a.mean(axis=0)),
    ("sum-axis1", lambda x: x.sum(axis=1), lambda a: a.sum(axis=1)),
    ("exp", lambda x: da.exp(x), np.exp),
    ("matmul", lambda x: x @ x.T, lambda a: a @ a.T),
    ("max", lambda x: x.max(), lambda a: a.max()),
    ("std", lambda x: x.std(), lambda a: a.std()),
    ("concatenate", lambda x: da.concatenate([x, x]), lambda a: np.concatenate([a, a])),
    ("slice", lambda x: x[1:7, ::2], lambda a: a[1:7, ::2]),
    ("transpose", lambda x: x.T, lambda a: a.T),
]


@pytest.mark.parametrize(
    "dask_op, numpy_op", [pytest.param(d, n, id=name) for name, d, n in OPS]
)
def test_compute_sync(
    dask_op: Callable[[Any], Any], numpy_op: Callable[[np.ndarray], Any]
) -> None:
    result = dask_op(_x()).compute(scheduler="sync")
    assert_matches(result, numpy_op(A), rtol=1e-12, atol=1e-12)


def test_compute_threaded() -> None:
    x = _x()
    expr = (x * 2.0 - x.mean(axis=0)).sum(axis=1)
    result = expr.compute(scheduler="threads", num_workers=2)
    assert_matches(result, (A * 2.0 - A.mean(axis=0)).sum(axis=1), rtol=1e-12, atol=1e-12)


# The "donate" array backend: creation functions make donate chunks.

CREATIONS: list[tuple[str, Callable[[], da.Array], np.ndarray]] = [
    ("ones", lambda: da.ones((4, 4), chunks=2), np.ones((4, 4))),
    ("zeros", lambda: da.zeros((4, 5), chunks=2), np.zeros((4, 5))),
    ("full", lambda: da.full((3, 4), 2.5, chunks=2), np.full((3, 4), 2.5)),
    ("arange", lambda: da.arange(0, 10, chunks=4), np.arange(0, 10)),
]


@pytest.mark.parametrize(
    "create, expected", [pytest.param(c, e, id=name) for name, c, e in CREATIONS]
)
def test_array_backend_creation(create: Callable[[], da.Array], expected: np.ndarray) -> None:
    with dask.config.set({"array.backend": "donate"}):
        arr = create()
    assert type(arr._meta) is donate.Tensor
    for block in arr.to_delayed().ravel():
        assert_donate(block.compute(scheduler="sync"))
    assert_matches(arr.compute(scheduler="sync"), expected, rtol=0)


def test_array_backend_to_backend() -> None:
    x = da.from_array(A, chunks=CHUNKS).to_backend("donate")
    assert type(x._meta) is donate.Tensor
    assert_matches((x + 1).compute(scheduler="sync"), A + 1, rtol=1e-12)


def test_numpy_s_creation_dtypes_through_like() -> None:
    """Dask builds operands with `like=meta` (`np.array([0.1], like=x)`):
    they take NumPy's dtypes, so `diff(prepend=0.1)` of float64 chunks is
    float64's 0.9, not float32's 0.8999999985 (found by a bug hunt)."""
    a = np.array([1.0, 2.0, 3.0])
    x = da.from_array(donate.asarray(a), chunks=2)
    got = da.diff(x, prepend=0.1).compute()
    assert_donate(got)
    np.testing.assert_array_equal(np.asarray(got), np.diff(a, prepend=0.1))
    assert da.asarray([0.1, 0.2], like=x).compute().dtype == np.float64


def test_tensordot_and_cov_of_donate_chunks() -> None:
    """Dask's `tensordot` reads `__array_priority__`, which an ndarray has."""
    x = _x()
    for got, want in ((da.tensordot(x, x.T, axes=1), A @ A.T), (x.dot(x.T), A @ A.T),
                      (da.cov(x), np.cov(A))):
        r = got.compute()
        assert_donate(r)
        np.testing.assert_allclose(np.asarray(r), want, rtol=1e-12)


def test_backend_like_functions_and_names() -> None:
    with dask.config.set({"array.backend": "donate"}):
        x = da.ones((4,), chunks=2, name="ones-named")
        for y in (x, da.zeros_like(x), da.ones_like(x), da.full_like(x, 2.0)):
            assert_donate(y.compute())

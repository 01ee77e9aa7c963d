"""Cubed arrays whose chunks are donate tensors.

Cubed takes the array API namespace its chunks are made of from the
environment variable `CUBED_BACKEND_ARRAY_API_MODULE`, read once when
`cubed` is first imported: this module sets it to `donate` before that
import. Cubed stores intermediate chunks in Zarr (here a pytest temporary
directory) and converts them back through `donate.asarray`; every task
runs donate functions on donate chunks (`broadcast_shapes`, `expand_dims`
with several axes, `take` with an int index, `mean(dtype=)` and `nansum`
are the parts of NumPy's namespace beyond the standard's that Cubed's
blockwise functions call).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ["CUBED_BACKEND_ARRAY_API_MODULE"] = "donate"

import cubed  # noqa: E402
import cubed.array_api as xp  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from _clients_util import assert_donate, assert_matches  # noqa: E402

import donate  # noqa: E402

if cubed.backend_array_api.namespace is not donate:
    raise pytest.UsageError(
        "tests/clients/test_cubed.py needs CUBED_BACKEND_ARRAY_API_MODULE=donate before "
        "cubed is first imported; it was imported earlier with another namespace"
    )

A = (np.arange(48.0).reshape(8, 6) - 20.0) / 7.0
# Uneven chunks on both axes: blocks of 3, 3, 2 rows and 4, 2 columns.
CHUNKS = (3, 4)


@pytest.fixture
def spec(tmp_path: Path) -> cubed.Spec:
    return cubed.Spec(work_dir=str(tmp_path), allowed_mem="100MB")


# (cubed expression on x, the same on the NumPy array a)
OPS: list[tuple[str, Callable[[Any], Any], Callable[[np.ndarray], Any]]] = [
    ("compute", lambda x: x, lambda a: a),
    ("add-sum", lambda x: xp.sum(x + 1), lambda a: (a + 1).sum()),
    ("mean-axis0", lambda x: xp.mean(x, axis=0), lambda a: a.mean(axis=0)),
    ("exp", xp.exp, np.exp),
    ("matmul", lambda x: x @ xp.permute_dims(x, (1, 0)), lambda a: a @ a.T),
    ("where", lambda x: xp.where(x > 0, x, 0.0), lambda a: np.where(a > 0, a, 0.0)),
    ("var-axis0", lambda x: xp.var(x, axis=0), lambda a: a.var(axis=0)),
    ("std", xp.std, np.std),
    ("max-axis1", lambda x: xp.max(x, axis=1), lambda a: a.max(axis=1)),
    ("any", lambda x: xp.any(x > 2), lambda a: (a > 2).any()),
    ("expand-squeeze", lambda x: xp.squeeze(xp.expand_dims(x, axis=0), axis=0), lambda a: a),
    ("vecdot", lambda x: xp.vecdot(x, x), lambda a: (a * a).sum(axis=-1)),
    ("cumulative-sum", lambda x: xp.cumulative_sum(x, axis=0), lambda a: np.cumsum(a, axis=0)),
    ("concat", lambda x: xp.concat([x, x], axis=0), lambda a: np.concatenate([a, a])),
    ("nansum", lambda x: cubed.nansum(xp.where(x > 1, xp.nan, x)), lambda a: np.nansum(np.where(a > 1, np.nan, a))),
    ("nanmean-axis0", lambda x: cubed.nanmean(xp.where(x > 1, xp.nan, x), axis=0),
     lambda a: np.nanmean(np.where(a > 1, np.nan, a), axis=0)),
    ("float32-mean", lambda x: xp.mean(xp.astype(x, xp.float32)), lambda a: a.astype(np.float32).mean()),
]


@pytest.mark.parametrize(("name", "cubed_op", "numpy_op"), OPS, ids=[o[0] for o in OPS])
def test_computes_with_donate_chunks(
    spec: cubed.Spec, name: str, cubed_op: Callable[[Any], Any], numpy_op: Callable[[np.ndarray], Any]
) -> None:
    x = cubed.from_array(A, chunks=CHUNKS, spec=spec)
    got = cubed_op(x).compute()
    want = numpy_op(A)
    assert_donate(got)
    # Cubed sums block by block: the order of additions differs from NumPy's.
    tol = 1e-6 if np.asarray(want).dtype == np.float32 else 1e-12
    assert_matches(got, want, rtol=tol, atol=tol)


def test_every_chunk_is_a_donate_tensor(spec: cubed.Spec) -> None:
    seen: list[type] = []

    def record(block: Any) -> Any:
        seen.append(type(block))
        return block * 2

    x = cubed.from_array(A, chunks=CHUNKS, spec=spec)
    got = cubed.map_blocks(record, x, dtype=x.dtype).compute()
    assert_matches(got, A * 2, rtol=1e-12)
    # Six blocks (3 x 2), each a donate tensor.
    assert len(seen) >= 6 and set(seen) == {donate.Tensor}

"""NumPy's functions that only read an array (saving, printing, type
queries) and the two that apply a Python function to parts of one
(`apply_along_axis`, `apply_over_axes`), which donate used to refuse
("no implementation found"); against NumPy as the oracle, and the
tensors read are left as they were (not donated, same buffer)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import donate
from helpers import same

A = np.arange(12.0).reshape(3, 4)


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    t = donate.asarray(A)
    p = t.data_ptr()
    np.save(tmp_path / "a.npy", t)
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), A)
    np.savez(tmp_path / "b.npz", t, b=donate.asarray(np.ones(2, np.float32)))
    with np.load(tmp_path / "b.npz") as z:
        np.testing.assert_array_equal(z["arr_0"], A)
        assert z["b"].dtype == np.float32
    np.savez_compressed(tmp_path / "c.npz", x=t)
    with np.load(tmp_path / "c.npz") as z:
        np.testing.assert_array_equal(z["x"], A)
    buf = io.StringIO()
    np.savetxt(buf, t, fmt="%.1f")
    want = io.StringIO()
    np.savetxt(want, A, fmt="%.1f")
    assert buf.getvalue() == want.getvalue()
    same(t, A)
    assert t.data_ptr() == p and not t.is_donated


def test_a_donated_tensor_is_read_not_taken(tmp_path: Path) -> None:
    t = donate.asarray(A)
    np.save(tmp_path / "a.npy", t.donate())
    same(t, A)


@pytest.mark.parametrize("call", [
    lambda x: np.array2string(x, precision=2),
    lambda x: np.array_repr(x),
    lambda x: np.array_str(x, max_line_width=20),
    lambda x: np.common_type(x, np.ones(2, np.float32)),
    lambda x: np.min_scalar_type(x),
    lambda x: np.einsum_path("ij,jk->ik", x, x.T, optimize="greedy"),
], ids=["array2string", "array_repr", "array_str", "common_type", "min_scalar_type", "einsum_path"])
def test_queries_answer_as_numpy(call: Any) -> None:
    assert call(donate.asarray(A)) == call(A)


FUNCS = [
    (lambda v: v.sum(), 0), (lambda v: v.sum(), 1), (lambda v: v * 2.0, -1),
    (lambda v: donate.stack([v.max(), v.min()]) if isinstance(v, donate.Tensor) else np.stack([v.max(), v.min()]), 0),
    (lambda v: (v[:, None] * v[None, :]), 1),  # a 2-d result per slice
]


@pytest.mark.parametrize("func,axis", FUNCS)
def test_apply_along_axis_as_numpy(func: Any, axis: int) -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    want = np.apply_along_axis(func, axis, x)
    got = np.apply_along_axis(func, axis, donate.asarray(x))
    same(got, want)


def test_apply_along_axis_refuses_as_numpy() -> None:
    for axis, x in ((3, np.ones((2, 2))), (0, np.ones((2, 0)))):
        with pytest.raises(Exception) as e:
            np.apply_along_axis(np.sum, axis, x)
        with pytest.raises(e.type):
            np.apply_along_axis(np.sum, axis, donate.asarray(x))


@pytest.mark.parametrize("axes", [0, [0, 2], (1, -1)])
def test_apply_over_axes_as_numpy(axes: Any) -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    same(np.apply_over_axes(np.sum, donate.asarray(x), axes), np.apply_over_axes(np.sum, x, axes))

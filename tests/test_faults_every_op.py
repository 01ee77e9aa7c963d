"""An allocation that fails loses nothing, in every operation.

Every allocation an operation makes (its result, its scratch, casts of its
operands) must succeed before any operand's buffer is claimed: an arena
budget that stops the operation at each of its allocations in turn must
leave every operand, donated or not, intact and undonated.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate


def t(*shape: int, dtype: str = "float32") -> donate.Tensor:
    n = int(np.prod(shape))
    return donate.tensor(np.linspace(0.25, 1.75, n).reshape(shape).astype(dtype))


# (name, make the operands, call with the first operand donated)
CASES: list[tuple[str, Callable[[], list[donate.Tensor]], Callable[[list[Any]], Any]]] = [
    ("relu", lambda: [t(8, 8)], lambda o: donate.relu(o[0])),
    ("exp of int", lambda: [t(8, 8, dtype="int32")], lambda o: donate.exp(o[0])),
    ("add", lambda: [t(8, 8), t(8, 8)], lambda o: o[0] + o[1]),
    ("add broadcast", lambda: [t(8, 8), t(8)], lambda o: o[0] + o[1]),
    ("add cast", lambda: [t(8, 8), t(8, 8, dtype="float64")], lambda o: o[0] + o[1]),
    ("add numpy", lambda: [t(8, 8)], lambda o: o[0] + np.ones((8, 8), np.float64)),
    ("matmul", lambda: [t(8, 8), t(8, 8)], lambda o: o[0] @ o[1]),
    ("sum", lambda: [t(8, 8)], lambda o: donate.sum(o[0], axis=0)),
    ("mean", lambda: [t(8, 8, dtype="int64")], lambda o: donate.mean(o[0])),
    ("max", lambda: [t(8, 8)], lambda o: donate.max(o[0], axis=1)),
    ("softmax", lambda: [t(8, 8)], lambda o: donate.softmax(o[0])),
    ("layer_norm", lambda: [t(8, 8), t(8), t(8)], lambda o: donate.layer_norm(o[0], o[1], o[2])),
    ("batch_norm", lambda: [t(2, 3, 4, 4), t(3), t(3)], lambda o: donate.batch_norm(o[0], o[1], o[2])),
    ("conv2d same", lambda: [t(2, 3, 8, 8), t(3, 3, 3, 3), t(3)], lambda o: donate.conv2d(o[0], o[1], o[2], 1, 1)),
    ("conv2d other", lambda: [t(2, 3, 8, 8), t(4, 3, 3, 3)], lambda o: donate.conv2d(o[0], o[1], None, 2, 0)),
    ("attention", lambda: [t(2, 5, 4), t(2, 6, 4), t(2, 6, 4)], lambda o: donate.scaled_dot_product_attention(*o)),
    ("addmm", lambda: [t(8, 8), t(8, 8), t(8, 8)], lambda o: donate.addmm(o[0], o[1], o[2])),
    ("addmm broadcast cast", lambda: [t(8, dtype="float64"), t(8, 8), t(8, 8)], lambda o: donate.addmm(o[0], o[1], o[2])),
    (
        "attention broadcast mask",
        lambda: [t(2, 5, 4), t(2, 6, 4), t(2, 6, 4), t(1, 6)],
        lambda o: donate.scaled_dot_product_attention(*o),
    ),
    ("reshape", lambda: [t(8, 8)], lambda o: o[0].reshape(64)),
    ("transpose", lambda: [t(8, 8)], lambda o: o[0].transpose()),
    ("astype", lambda: [t(8, 8)], lambda o: o[0].astype("float64")),
    ("gelu_donate", lambda: [t(8, 8)], lambda o: o[0].gelu_donate()),
    ("in place cow", lambda: [t(8, 8), t(8, 8)], lambda o: o[0].__iadd__(o[1])),
    ("setitem cow", lambda: [t(8, 8), t(8)], lambda o: o[0].__setitem__((slice(None), 2), o[1]) or o[0]),
    ("relu of a transpose", lambda: [t(8, 8)], lambda o: donate.relu(o[0].T)),
    ("add of a stepped slice", lambda: [t(8, 8), t(4, 8)], lambda o: o[0][::2] + o[1]),
    ("matmul of transposes", lambda: [t(8, 8), t(8, 8)], lambda o: o[0].T @ o[1].T),
    ("reshape of a transpose", lambda: [t(8, 8)], lambda o: o[0].T.reshape(64)),
    ("sort", lambda: [t(8, 8)], lambda o: donate.sort(o[0], axis=0, descending=True)),
    ("cumulative_sum cast", lambda: [t(8, 8, dtype="int32")], lambda o: donate.cumulative_sum(o[0], axis=1)),
    ("cumulative_prod initial", lambda: [t(8, 8)], lambda o: donate.cumulative_prod(o[0], axis=0, include_initial=True)),
    ("roll of a transpose", lambda: [t(8, 8)], lambda o: donate.roll(o[0].T, 3, axis=0)),
    ("tril", lambda: [t(8, 8)], lambda o: donate.tril(o[0], k=1)),
]


def donated_first(o: list[donate.Tensor], name: str) -> list[Any]:
    views = (
        "relu of a transpose",
        "add of a stepped slice",
        "matmul of transposes",
        "reshape of a transpose",
        "roll of a transpose",
    )
    if name.endswith(("donate", "cow")) or name in ("reshape", "transpose", "astype", *views):
        return list(o)
    return [o[0].donate(), *o[1:]]


@pytest.mark.parametrize(("name", "make", "call"), CASES, ids=[c[0] for c in CASES])
def test_a_failed_allocation_leaves_every_operand_intact(
    name: str, make: Callable[[], list[donate.Tensor]], call: Callable[[list[Any]], Any]
) -> None:
    ops = make()
    want = call(donated_first([x.copy() for x in ops], name)).numpy()
    snapshots = [x.numpy().copy() for x in ops]
    outcomes = set()
    view = ops[0].numpy() if name.endswith("cow") else None  # forces a copy
    for budget in range(0, 4 * want.nbytes + 64 * 1024, 256):
        operands = donated_first(ops, name) if not name.endswith("cow") else ops
        ar = donate.arena(max_bytes=budget)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", donate.DonationWarning)
                with ar:
                    r = call(operands)
            np.testing.assert_allclose(r.numpy(), want, rtol=1e-6)
            outcomes.add("ok")
            break
        except MemoryError:
            outcomes.add("MemoryError")
        for x, snap in zip(ops, snapshots):
            assert not x.is_donated, f"{name}: a failed allocation (budget {budget}) consumed an operand"
            np.testing.assert_array_equal(x.numpy(), snap)
        assert ar.stats()["live_bytes"] == 0
    # (A donated operand may need no allocation at all: then budget 0 works.)
    assert "ok" in outcomes, outcomes
    del view

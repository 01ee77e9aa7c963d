"""Every explicit donation is answered: the buffer is taken (the tensor is
then donated) or a `DonationWarning` says why not. Never silence.

For every operation and every tensor operand position, the operand is
passed as `t.donate()`; afterwards exactly one of these holds: `t` is
donated, or a `DonationWarning` was raised for it (and `t` is unchanged).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate


def x4() -> donate.Tensor:
    return donate.tensor(np.linspace(-1, 1, 2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4))


def m(*shape: int) -> donate.Tensor:
    n = int(np.prod(shape))
    return donate.tensor(np.linspace(0.5, 1.5, n, dtype=np.float32).reshape(shape))


# (name, make the operands, call). `call` receives the operands as a list.
CASES: list[tuple[str, Callable[[], list[Any]], Callable[[list[Any]], Any]]] = [
    ("relu", lambda: [m(4)], lambda o: donate.relu(o[0])),
    ("add", lambda: [m(4), m(4)], lambda o: o[0] + o[1]),
    ("add broadcast", lambda: [m(3, 4), m(4)], lambda o: o[0] + o[1]),
    ("sub scalar", lambda: [m(4)], lambda o: 1.0 - o[0]),
    ("mul promote", lambda: [m(4), donate.ones(4, dtype="float64")], lambda o: o[0] * o[1]),
    ("matmul", lambda: [m(3, 3), m(3, 3)], lambda o: o[0] @ o[1]),
    ("sum", lambda: [m(3, 4)], lambda o: donate.sum(o[0], axis=0)),
    ("max", lambda: [m(3, 4)], lambda o: donate.max(o[0])),
    ("softmax", lambda: [m(3, 4)], lambda o: donate.softmax(o[0])),
    ("layer_norm", lambda: [m(3, 4), m(4), m(4)], lambda o: donate.layer_norm(o[0], o[1], o[2])),
    ("layer_norm 1-d", lambda: [m(4), m(4), m(4)], lambda o: donate.layer_norm(o[0], o[1], o[2])),
    ("batch_norm", lambda: [x4(), m(3), m(3), m(3), m(3)], lambda o: donate.batch_norm(o[0], o[1], o[2], o[3], o[4])),
    ("batch_norm_", lambda: [x4(), m(3), m(3), m(3), m(3)], lambda o: o[0].batch_norm_(o[1], o[2], o[3], o[4])),
    ("conv2d", lambda: [x4(), m(3, 3, 3, 3), m(3)], lambda o: donate.conv2d(o[0], o[1], o[2], 1, 1)),
    ("conv2d other shape", lambda: [x4(), m(5, 3, 3, 3), m(5)], lambda o: donate.conv2d(o[0], o[1], o[2])),
    ("attention", lambda: [m(2, 5, 4), m(2, 6, 4), m(2, 6, 4)], lambda o: donate.scaled_dot_product_attention(*o)),
    (
        "attention other width, mask",
        lambda: [m(2, 5, 4), m(2, 6, 4), m(2, 6, 3), m(5, 6)],
        lambda o: donate.scaled_dot_product_attention(o[0], o[1], o[2], o[3]),
    ),
    ("addmm", lambda: [m(3, 3), m(3, 3), m(3, 3)], lambda o: donate.addmm(o[0], o[1], o[2])),
    ("addmm broadcast", lambda: [m(3), m(2, 3), m(3, 3)], lambda o: donate.addmm(o[0], o[1], o[2])),
    # Operands that are views: a row, a transpose, a head split.
    ("relu of a row", lambda: [m(3, 4)[1]], lambda o: donate.relu(o[0])),
    ("add transposes", lambda: [m(4, 3).T, m(4, 3).T], lambda o: o[0] + o[1]),
    ("matmul of a transpose", lambda: [m(3, 3).T, m(3, 3)], lambda o: o[0] @ o[1]),
    (
        "attention over head splits",
        lambda: [m(2, 5, 2, 4).transpose(0, 2, 1, 3), m(2, 6, 2, 4).transpose(0, 2, 1, 3), m(2, 6, 2, 4).transpose(0, 2, 1, 3)],
        lambda o: donate.scaled_dot_product_attention(*o),
    ),
    ("setitem", lambda: [m(3, 4), m(4)], lambda o: o[0].__setitem__(1, o[1])),
    ("iadd", lambda: [m(4), m(4)], lambda o: o[0].__iadd__(o[1])),
    ("isub", lambda: [m(4), m(4)], lambda o: o[0].__isub__(o[1])),
    ("imul", lambda: [m(4), m(4)], lambda o: o[0].__imul__(o[1])),
    ("itruediv", lambda: [m(4), m(4)], lambda o: o[0].__itruediv__(o[1])),
    ("add_", lambda: [m(4), m(4)], lambda o: o[0].add_(o[1])),
    ("sub_", lambda: [m(4), m(4)], lambda o: o[0].sub_(o[1])),
    ("mul_", lambda: [m(4), m(4)], lambda o: o[0].mul_(o[1])),
    ("div_", lambda: [m(4), m(4)], lambda o: o[0].div_(o[1])),
]


def positions(make: Callable[[], list[Any]]) -> list[int]:
    return [i for i, o in enumerate(make()) if isinstance(o, donate.Tensor)]


PARAMS = [(name, make, call, i) for name, make, call in CASES for i in positions(make)]


@pytest.mark.parametrize(
    ("name", "make", "call", "pos"), PARAMS, ids=[f"{p[0]}-operand{p[3]}" for p in PARAMS]
)
@pytest.mark.parametrize("shared", [False, True], ids=["exclusive", "with a live view"])
def test_every_explicit_donation_is_taken_or_warned(
    name: str, make: Callable[[], list[Any]], call: Callable[[list[Any]], Any], pos: int, shared: bool
) -> None:
    ops = make()
    t = ops[pos]
    before = t.tolist()
    view = t.numpy() if shared else None
    is_target = pos == 0 and name.endswith(("_", "iadd", "isub", "imul", "itruediv", "setitem"))
    if not is_target:  # the target of an in-place op is `self`, not an operand
        ops[pos] = t.donate()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(ops)
    warned = [w for w in caught if issubclass(w.category, donate.DonationWarning)]
    if is_target:
        return
    if t.is_donated:
        assert not shared, f"{name}: a buffer with a live view was taken"
        assert not warned, f"{name}: warned although the donation was honoured: {warned[0].message}"
    else:
        assert len(warned) == 1, f"{name}: operand {pos} was donated, not used, and nothing said why"
        assert t.tolist() == before, f"{name}: a refused donation changed its tensor"
    del view

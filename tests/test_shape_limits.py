"""Shapes that cannot exist, and indices at the ends of 64 bits.

One rule decides whether a shape can exist (NumPy's): the product of its
non-zero dimensions, times the element size, fits in ``isize``. Every
function that computes a result shape from the user's numbers checks it
before anything is allocated or written, and raises ``donate.ShapeError``
(a ``ValueError``, as NumPy's "array is too big", and an
``OverflowError``). Slice bounds and steps of any size behave as Python's
and NumPy's (clamped), so a huge step selects one element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate

B = 2**62

TOO_BIG: list[tuple[str, Callable[[], Any]]] = [
    ("repeat by 2**62", lambda: donate.repeat(donate.ones(12), B)),
    ("repeat counts summing past 64 bits", lambda: donate.repeat(donate.ones(4), donate.asarray([B, B, B, B]))),
    ("broadcast_to (2**40, 2**40)", lambda: donate.broadcast_to(donate.ones(()), (2**40, 2**40))),
    ("tile by 2**62", lambda: donate.tile(donate.ones(4), (B,))),
    ("tile of an empty tensor", lambda: donate.tile(donate.ones(0), (B, B))),
    ("zeros with an empty axis", lambda: donate.zeros((0, B, B))),
    ("reshape of an empty tensor", lambda: donate.ones(0).reshape(0, B, B)),
    ("reshape inferring from huge dims", lambda: donate.ones(0).reshape(B, B, -1)),
    ("concat of empty tensors past 64 bits", lambda: donate.concat([donate.zeros((0, B))] * 8, axis=1)),
    ("eye (2**40, 2**40)", lambda: donate.eye(2**40, 2**40)),
    ("full (2**40, 2**40)", lambda: donate.full((2**40, 2**40), 1.0)),
    ("linspace of 2**62 points", lambda: donate.linspace(0, 1, B)),
    # (Inputs that can exist: one byte per element.)
    ("take_along_axis broadcast past 64 bits", lambda: donate.take_along_axis(
        donate.zeros((B, 1, 0), dtype="int8"), donate.zeros((1, B, 0), dtype="int8"), axis=2)),
]


@pytest.mark.parametrize("what,f", TOO_BIG, ids=[w for w, _ in TOO_BIG])
def test_a_shape_that_cannot_exist_is_a_shape_error(what: str, f: Callable[[], Any]) -> None:
    with pytest.raises(donate.ShapeError, match="too large to exist"):
        f()


def test_shape_error_is_numpys_value_error_and_an_overflow_error() -> None:
    assert issubclass(donate.ShapeError, ValueError)
    assert issubclass(donate.ShapeError, OverflowError)
    with pytest.raises(ValueError):
        donate.zeros((1 << 62, 1 << 3))


def test_a_refused_shape_writes_nothing() -> None:
    x = donate.asarray(np.arange(6.0).reshape(3, 2))
    before = donate.memory_stats()["allocations"]
    with pytest.raises(donate.ShapeError):
        donate.tile(x, (B, B))
    assert donate.memory_stats()["allocations"] == before
    np.testing.assert_array_equal(np.asarray(x), np.arange(6.0).reshape(3, 2))


STEPS = [2**63 - 1, -(2**63 - 1), -(2**63), 2**63, 2**70, -(2**70), 2**62 + 1]
BOUNDS = [None, 0, 1, -1, 2**63 - 1, -(2**63), 2**70, -(2**70)]


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("start", BOUNDS)
def test_huge_slices_select_as_numpys(step: int, start: int | None) -> None:
    a = np.arange(12.0).reshape(4, 3)
    t = donate.asarray(a)
    got = t[start::step]
    want = a[start::step]
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)
    got = t[:, start:None:step]
    np.testing.assert_array_equal(np.asarray(got), a[:, start:None:step])


@pytest.mark.parametrize("step", STEPS)
def test_setitem_with_a_huge_step_writes_what_numpy_writes(step: int) -> None:
    a = np.zeros((3, 2))
    t = donate.asarray(a)
    a[::step] = 5.0
    t[::step] = 5.0
    np.testing.assert_array_equal(np.asarray(t), a)
    a[:, ::step] = 7.0
    t[:, ::step] = 7.0
    np.testing.assert_array_equal(np.asarray(t), a)


def test_huge_steps_under_jit_match_eager() -> None:
    def f(x: donate.Tensor) -> donate.Tensor:
        y = x[:: 2**63 - 1] * 2.0
        x[:: -(2**63)] = 1.0
        return y + x.sum()

    a = np.arange(6.0).reshape(3, 2)
    want = f(donate.asarray(a))
    got = donate.jit(f)(donate.asarray(a))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))

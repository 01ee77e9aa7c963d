"""NumPy's evenly spaced sequences on tensors (`np.linspace`,
`np.logspace`, `np.geomspace`) with NumPy's whole signature: array
endpoints (a sequence per element), `axis`, `endpoint`, `retstep`,
`base`, `dtype`; against NumPy as the oracle, to the bit (the same steps
in the same arithmetic)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import donate

S, E = np.array([0.0, 1.0]), np.array([1.0, 10.0])


def exact(got: Any, want: Any) -> None:
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            exact(g, w)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert (g.dtype, g.shape) == (w.dtype, w.shape)
    np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("call,args", [
    (lambda a, b: np.linspace(a, b, 5), (S, E)),
    (lambda a: np.linspace(a, 1.0, 7), (np.array(0.0),)),
    (lambda a, b: np.linspace(a, b, 4, axis=-1), (S, E)),
    (lambda a, b: np.linspace(a, b, 4, endpoint=False), (S, E)),
    (lambda a, b: np.linspace(a, b, 4, retstep=True), (np.array(0.0), np.array(3.0))),
    (lambda a, b: np.linspace(a, b, 4, retstep=True), (S, E)),
    (lambda a, b: np.linspace(a, b, 6, dtype=int), (np.array(-2.0), np.array(3.0))),
    (lambda a: np.linspace(a, 1.0, 5), (np.array(0.0, np.float32),)),
    (lambda a: np.linspace(a, 5, 1), (np.array(2.0),)),
    (lambda a: np.linspace(a, 5, 0), (np.array(2.0),)),
    (lambda a, b: np.linspace(a, b, 4), (np.array(0), np.array(10))),
    (lambda a: np.logspace(a, 3.0, 4), (np.array(0.0),)),
    (lambda a, b: np.logspace(a, b, 5, base=2.0), (S, E)),
    (lambda a: np.logspace(0, 2, 3, base=a), (np.array([2.0, 10.0]),)),
    (lambda a: np.geomspace(a, 1000.0, 4), (np.array(1.0),)),
    (lambda a: np.geomspace(a, -1000.0, 4), (np.array(-1.0),)),
    (lambda a, b: np.geomspace(a, b, 5), (np.array([1.0, 2.0]), np.array([16.0, 32.0]))),
    (lambda a: np.geomspace(a, 100, 3, dtype=int), (np.array(1),)),
    (lambda a, b: np.geomspace(a, b, 3, axis=1), (np.array([1.0, 2.0]), np.array([16.0, 32.0]))),
], ids=["linspace arrays", "linspace 0-d", "linspace axis", "linspace no endpoint", "linspace retstep",
        "linspace retstep arrays", "linspace int dtype", "linspace float32", "linspace one", "linspace none",
        "linspace int ends", "logspace", "logspace base", "logspace array base", "geomspace",
        "geomspace negative", "geomspace arrays", "geomspace int dtype", "geomspace axis"])
def test_sequences_are_numpy_s_to_the_bit(call: Callable[..., Any], args: tuple[np.ndarray, ...]) -> None:
    exact(call(*(donate.asarray(a) for a in args)), call(*args))


@pytest.mark.parametrize("call", [lambda a: np.linspace(a, 5, -1), lambda a: np.geomspace(a, 10.0, 3)],
                         ids=["negative count", "geometric through zero"])
def test_refusals_as_numpy(call: Callable[..., Any]) -> None:
    with pytest.raises(ValueError):
        call(np.array(0.0))
    with pytest.raises(ValueError):
        call(donate.asarray(np.array(0.0)))

"""NumPy's bit packing and complex sorting on tensors, which donate used
to refuse: `np.packbits`, `np.unpackbits` (both bit orders, every axis,
`count`) and `np.sort_complex`; against NumPy as the oracle for values,
dtypes, shapes and the class of error."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra import numpy as hnp

import donate
from helpers import same

RNG = np.random.default_rng(0)
BITS = RNG.integers(0, 2, (3, 13)).astype(bool)
BYTES = RNG.integers(0, 256, (2, 3), dtype=np.uint8)
C = np.array([3 + 1j, 1 - 2j, 1 + 1j, 1 - 5j, -2 + 0j])


@pytest.mark.parametrize("call,x", [
    (np.packbits, BITS), (lambda a: np.packbits(a, axis=1), BITS),
    (lambda a: np.packbits(a, axis=0, bitorder="little"), BITS),
    (lambda a: np.packbits(a, axis=-1), np.array([[2, 0, 1, -1, 0, 0, 0, 0, 5]])),
    (np.unpackbits, BYTES), (lambda a: np.unpackbits(a, axis=1), BYTES),
    (lambda a: np.unpackbits(a, axis=0, count=11, bitorder="little"), BYTES),
    (lambda a: np.unpackbits(a, axis=1, count=-3), BYTES), (lambda a: np.unpackbits(a, count=60), BYTES),
    (np.sort_complex, C), (np.sort_complex, C.reshape(1, 5)), (np.sort_complex, np.array([3.0, 1, 2])),
    (np.sort_complex, np.array([3, 1, 2], np.int8)), (np.sort_complex, np.array([2.0, 1], np.float32)),
], ids=["pack", "pack axis 1", "pack axis 0 little", "pack ints", "unpack", "unpack axis 1",
        "unpack little count", "unpack negative count", "unpack padded count", "sort_complex",
        "sort_complex 2-d", "sort_complex float64", "sort_complex int8", "sort_complex float32"])
def test_as_numpy(call: Callable[[Any], Any], x: np.ndarray) -> None:
    same(call(donate.asarray(x)), call(x))


@pytest.mark.parametrize("call,x", [(np.packbits, np.ones(3)), (np.unpackbits, np.array([1, 2])),
                                    (lambda a: np.packbits(a, bitorder="middle"), BITS),
                                    (lambda a: np.unpackbits(a, axis=2), BYTES)],
                         ids=["pack floats", "unpack int64", "bit order", "axis"])
def test_refusals_as_numpy(call: Callable[[Any], Any], x: np.ndarray) -> None:
    with pytest.raises(Exception) as e:
        call(x)
    with pytest.raises(e.type):
        call(donate.asarray(x))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.bool_, hnp.array_shapes(min_dims=1, max_dims=3, max_side=17)))
def test_unpack_inverts_pack_on_every_axis(x: np.ndarray) -> None:
    for axis in range(x.ndim):
        packed = np.packbits(donate.asarray(x), axis=axis)
        same(packed, np.packbits(x, axis=axis))
        back = np.unpackbits(packed, axis=axis, count=x.shape[axis])
        same(back, x.astype(np.uint8))

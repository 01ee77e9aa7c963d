"""NumPy's extensions of manipulation functions where the standard is
narrower (docs/array-api.md, "Manipulation, indexing and creation"):
`expand_dims` with a tuple of axes, `broadcast_shapes`, `take` with
indices of any shape and `axis=None` at any rank, each against NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_manipulation import few, shares, tensors

import donate
from helpers import same, unchanged


@few
@given(data=st.data())
def test_expand_dims_of_several_axes_is_numpys(data: st.DataObject) -> None:
    # NumPy's tuple of axes: positions in the result, any order, negative
    # ones counted from the result's end.
    a, t = data.draw(tensors(np.dtype(np.float32)))
    n = data.draw(st.integers(0, 3))
    out = a.ndim + n
    axes = data.draw(st.lists(st.integers(0, out - 1), min_size=n, max_size=n, unique=True)) if out else []
    axes = [ax - out if data.draw(st.booleans()) else ax for ax in axes]
    v = donate.expand_dims(t, axis=tuple(axes))
    same(v, np.expand_dims(a, tuple(axes)))
    shares(t, v)
    unchanged(t, a)


@few
@given(data=st.data())
def test_broadcast_shapes_is_numpys(data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 4))
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=n, max_dims=4, min_side=0, max_side=3)) \
        if n else None
    ins = shapes.input_shapes if shapes else ()
    got = donate.broadcast_shapes(*ins)
    assert type(got) is tuple and got == np.broadcast_shapes(*ins)


def test_broadcast_shapes_takes_ints_and_names_the_mismatch() -> None:
    assert donate.broadcast_shapes(3, (2, 1), [1]) == np.broadcast_shapes(3, (2, 1), [1]) == (2, 3)
    with pytest.raises(ValueError, match="broadcast_shapes"):
        donate.broadcast_shapes((3,), (4,))
    with pytest.raises(TypeError):
        donate.broadcast_shapes((2.0,))  # type: ignore[arg-type]


@few
@given(data=st.data())
def test_take_has_numpys_index_shapes(data: st.DataObject) -> None:
    # Indices of any shape replace the axis (a 0-d index, a Python int
    # among them, removes it); `axis=None` reads `x` flat; as NumPy's.
    a, t = data.draw(tensors(np.dtype(np.int16), min_dims=1))
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1))
    length = a.size if axis is None else a.shape[axis]
    if length == 0:
        return
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    idx = data.draw(hnp.arrays(np.int64, shape, elements=st.integers(-length, length - 1)))
    same(donate.take(t, donate.asarray(idx), axis=axis), np.take(a, idx, axis=axis))
    k = int(data.draw(st.integers(-length, length - 1)))
    same(donate.take(t, k, axis=axis), np.take(a, k, axis=axis))
    unchanged(t, a)

"""Hypothesis strategies for the differential tests of the statistical,
searching, sorting and set functions: arrays of the 11 dtypes (with NaN,
±inf and -0.0 for floats, zero-size shapes), tensors of them in several
layouts (plain, a transposed view, a strided slice), and `axis` arguments
(None, an int, a tuple of distinct axes, negative ones too)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate

DTYPES = [
    np.dtype(d)
    for d in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")
]
NUMERIC = [d for d in DTYPES if d.kind != "b"]
FLOATS = [d for d in DTYPES if d.kind == "f"]


def elements(dtype: np.dtype, small: bool) -> st.SearchStrategy[Any]:
    """Every value of `dtype`, or with `small` values whose sums and
    products of a few dozen stay finite (floats keep NaN, ±inf, -0.0)."""
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "f":
        width = dtype.itemsize * 8
        if small:
            return st.one_of(
                st.floats(-3, 3, width=width),
                st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0]),
            )
        return st.floats(width=width)
    info = np.iinfo(dtype)
    if small:
        return st.integers(max(int(info.min), -100), min(int(info.max), 100))
    return st.integers(int(info.min), int(info.max))


@st.composite
def arrays(
    draw: st.DrawFn,
    dtypes: list[np.dtype] = DTYPES,
    small: bool = True,
    min_dims: int = 0,
    min_side: int = 0,
    max_side: int = 4,
) -> np.ndarray:
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=min_dims, max_dims=3, min_side=min_side, max_side=max_side))
    return draw(hnp.arrays(dtype, shape, elements=elements(dtype, small)))


@st.composite
def tensors(draw: st.DrawFn, arr: np.ndarray) -> donate.Tensor:
    """A tensor holding `arr`'s values: a plain one, a transposed view of
    a tensor holding `arr.T`, or a strided slice of a wider one."""
    kind = draw(st.sampled_from(["plain", "transposed", "strided"]))
    if kind == "transposed" and arr.ndim >= 2:
        return donate.permute_dims(donate.asarray(np.ascontiguousarray(arr.T)), tuple(range(arr.ndim))[::-1])
    if kind == "strided" and arr.ndim >= 1:
        big = np.zeros(arr.shape[:-1] + (arr.shape[-1] * 2,), arr.dtype)
        big[..., ::2] = arr
        return donate.asarray(big)[..., ::2]
    return donate.asarray(arr)


@st.composite
def axes(draw: st.DrawFn, ndim: int) -> int | tuple[int, ...] | None:
    """None, an int, or a tuple of distinct axes (each maybe negative)."""
    if ndim == 0:
        return draw(st.sampled_from([None, ()]))
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    sign = lambda a: draw(st.sampled_from([a, a - ndim]))  # noqa: E731
    if kind == "int":
        return sign(draw(st.integers(0, ndim - 1)))
    chosen = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(sign(a) for a in chosen)


def numpy_of(t: donate.Tensor) -> np.ndarray:
    """A copy of a tensor's values as a NumPy array."""
    return np.array(t.numpy(), copy=True)


def assert_same(got: donate.Tensor, want: np.ndarray, rtol: float = 0.0) -> None:
    """Same dtype, shape and values (exact, or within `rtol` for floats,
    absolutely within `50 * rtol` near zero; NaN where NumPy has NaN)."""
    want = np.asarray(want)
    assert np.dtype(got.dtype) == want.dtype, (got.dtype, want.dtype)
    assert tuple(got.shape) == want.shape, (got.shape, want.shape)
    g = numpy_of(got)
    if want.dtype.kind == "f" and rtol:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=50 * rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, want)

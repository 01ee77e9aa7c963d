"""NumPy functions on tensors where NumPy's answer differs from the
standard's function that donate translates them to: each must give
NumPy's values and dtype.

* `np.fabs` and `np.rint` of integers compute in NumPy's float loop
  (donate's `abs` and `round` keep an integer dtype);
* `np.reciprocal` of integers is NumPy's integer reciprocal;
* `np.einsum` and `np.vdot` keep their operands' common dtype (the
  standard's `sum` promotes int32 to int64 and bool to int64);
* `np.unique` merges NaNs (NumPy 2's `equal_nan=True`), which the
  standard's unique functions keep apart.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import donate

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def same(f: Callable[[Any], Any], *arrays: np.ndarray) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's 1/0
        want = np.asarray(f(*arrays))
    got = f(*(donate.asarray(a) for a in arrays))
    assert isinstance(got, donate.Tensor)
    g = np.asarray(got)
    # donate makes float16 only of float16 (NumPy's loop for int8, uint8
    # and bool is float16; donate's float32).
    wdt = np.dtype(np.float32) if want.dtype == np.float16 and arrays[0].dtype != np.float16 else want.dtype
    assert g.dtype == wdt, (g.dtype, want.dtype)
    np.testing.assert_array_equal(g, want.astype(wdt))


@pytest.mark.parametrize("dtype", INTS + ["bool"])
@pytest.mark.parametrize("f", [np.fabs, np.rint], ids=["fabs", "rint"])
def test_fabs_and_rint_of_integers_are_numpy_s_floats(f: Any, dtype: str) -> None:
    x = np.array([0, 1, 3, 100, -2, -7]).astype(dtype)
    same(f, x)


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_reciprocal_of_integers_is_the_integer_part(dtype: str) -> None:
    x = np.array([1, 2, 3, -1, -2, 100]).astype(dtype)
    same(np.reciprocal, x)
    # 1 / 0 is undefined in NumPy's C loop; donate gives 0.
    assert int(np.reciprocal(donate.asarray(np.zeros(1, dtype)))[0]) == 0


def test_reciprocal_of_floats_and_with_dtype_is_the_float_one() -> None:
    same(np.reciprocal, np.array([2.0, -4.0, 0.5]))
    same(lambda x: np.reciprocal(x, dtype=np.float64), np.array([2, 4], np.int32))


@pytest.mark.parametrize(
    ("subscripts", "dtype"),
    [("ii", "int32"), ("ij->", "int32"), ("ij->i", "int16"), ("ij,jk->ik", "int32"),
     ("i->", "bool"), ("ij->j", "bool"), ("ij,ij->i", "bool"), ("ii->i", "uint8"), ("ij->", "float32")],
)
def test_einsum_keeps_its_operands_dtype(subscripts: str, dtype: str) -> None:
    x = (np.arange(9).reshape(3, 3) % 4 > 1) if dtype == "bool" else np.arange(9).reshape(3, 3).astype(dtype)
    terms = subscripts.split("->")[0].split(",")
    x = x if len(terms[0]) == 2 else x[0]
    n = len(terms)
    same(lambda *a: np.einsum(subscripts, *a), *([x] * n))


@pytest.mark.parametrize("dtype", ["int32", "int8", "bool", "float32", "complex64"])
def test_vdot_keeps_its_operands_dtype(dtype: str) -> None:
    x = np.array([1, 2, 0, 3]).astype(dtype)
    same(np.vdot, x, x[::-1].copy())


def test_unique_merges_nans_as_numpy_2() -> None:
    x = np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, 1.0]])
    t = donate.asarray(x)
    for kw in [{}, {"return_counts": True}, {"return_inverse": True},
               {"return_counts": True, "return_inverse": True}, {"equal_nan": False}]:
        want = np.unique(x, **kw)
        got = np.unique(t, **kw)
        for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_array_equal(np.asarray(g), w)
            assert np.asarray(g).shape == w.shape
    # The standard's unique_values keeps every NaN.
    assert donate.unique_values(t).shape == (5,)
    np.testing.assert_array_equal(np.asarray(np.unique(donate.asarray(np.array([3, 1, 3])))), [1, 3])

"""The eleven tensor dtypes against NumPy.

Round trips (`donate.asarray` of a NumPy array keeps its dtype and values;
`np.asarray`, `.numpy()`, `tolist()` and the buffer protocol give them
back), `astype` between every pair of dtypes equal to NumPy's `astype`
(exact: integers above 2**53, negative integers into unsigned ones, floats
into integers where the value fits), the sum's dtype (NumPy's default
integers), and `result_type`/`can_cast` equal to NumPy's for every pair;
also the dtype queries and the array API attributes of a tensor.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate

NAMES = "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64".split()
DTYPES = [np.dtype(n) for n in NAMES]


def elements(dtype: np.dtype) -> st.SearchStrategy[Any]:
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "f":
        return st.floats(width=dtype.itemsize * 8)  # NaN, ±inf, -0.0, subnormals, extremes
    info = np.iinfo(dtype)
    return st.one_of(st.integers(int(info.min), int(info.max)), st.sampled_from([int(info.min), int(info.max), 0]))


@st.composite
def arrays(draw: st.DrawFn, dtype: np.dtype, max_dims: int = 3) -> np.ndarray:
    """Values of `dtype`, as a contiguous array or a strided view."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=5))
    arr = draw(hnp.arrays(dtype, shape, elements=elements(dtype)))
    if arr.ndim and draw(st.booleans()):
        big = np.zeros(arr.shape[:-1] + (arr.shape[-1] * 2,), dtype)
        big[..., ::2] = arr
        return big[..., ::2]
    return arr


def assert_identical(got: Any, want: np.ndarray) -> None:
    """Same dtype, shape and values, NaN where NumPy has NaN, the same sign
    of every zero."""
    g = got.numpy() if isinstance(got, donate.Tensor) else np.asarray(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    np.testing.assert_array_equal(g, want)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(g), np.signbit(want))


# --- dtypes and round trips -----------------------------------------------------

def test_the_dtype_objects_are_numpys() -> None:
    for name, d in zip(NAMES, DTYPES):
        assert getattr(donate, name) == d
        assert isinstance(getattr(donate, name), np.dtype)
        assert donate.zeros((2,), dtype=getattr(donate, name)).dtype == d
        assert donate.zeros((2,), dtype=name).dtype == d


@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES)
@given(data=st.data())
def test_asarray_round_trips_every_dtype(dtype: np.dtype, data: st.DataObject) -> None:
    x = data.draw(arrays(dtype))
    before = x.copy()
    t = donate.asarray(x)
    assert t.dtype == dtype and t.shape == x.shape and t.ndim == x.ndim and t.size == x.size
    assert t.itemsize == dtype.itemsize and t.nbytes == x.size * dtype.itemsize
    assert_identical(np.asarray(t), x)
    assert_identical(t.numpy(), x)
    assert_identical(donate.tensor(x), x)
    assert_identical(donate.asarray(x, dtype=dtype), x)
    # tolist gives Python numbers of the values (NaN aside, NaN != NaN).
    if dtype.kind != "f":
        assert t.tolist() == x.tolist()
        if not (dtype == np.uint64 and x.size > 1 and (x > 2**63 - 1).any()):  # see the expected failures
            assert_identical(donate.asarray(x.tolist(), dtype=dtype), np.asarray(x.tolist(), dtype=dtype))
    # The buffer protocol: C-contiguous, NumPy's format for the dtype.
    m = memoryview(t)
    assert np.dtype(m.format) == dtype and m.itemsize == dtype.itemsize
    assert m.shape == x.shape and m.ndim == x.ndim and m.readonly
    assert m.tobytes() == np.ascontiguousarray(x).tobytes()
    assert_identical(np.frombuffer(m, dtype=dtype).reshape(x.shape), x)
    del m
    if x.size:
        first = x.reshape(-1)[0]
        item = t.reshape(-1)[0].item()
        assert type(item) is type(first.item())
        np.testing.assert_array_equal(np.array(item, dtype), first)
    np.testing.assert_array_equal(x, before)


def test_extreme_integers_round_trip_exactly() -> None:
    for d in DTYPES:
        if d.kind not in "iu":
            continue
        info = np.iinfo(d)
        x = np.array([info.min, info.min + 1, -1 if d.kind == "i" else 1, 0, info.max - 1, info.max], d)
        t = donate.asarray(x)
        assert t.tolist() == [int(v) for v in x]
        assert_identical(np.asarray(t), x)
        assert [int(donate.asarray(v)) for v in x] == x.tolist()
        assert [donate.asarray(v).__index__() for v in x] == x.tolist()


def test_float16_data_keeps_its_dtype_and_values() -> None:
    x = np.array([0.0, -0.0, 1.5, 65504.0, np.finfo(np.float16).tiny, np.inf, np.nan], np.float16)
    t = donate.asarray(x)
    assert t.dtype == np.float16
    assert_identical(t, x)


def test_asarray_with_another_dtype_converts_as_numpy() -> None:
    x = np.array([-3, -1, 0, 1, 200], np.int16)
    for d in DTYPES:
        with np.errstate(all="ignore"):
            assert_identical(donate.asarray(x, dtype=d), x.astype(d))


# --- astype ------------------------------------------------------------------------------

def fits(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    """Where a float value converts to integer `dst` as defined behaviour:
    finite, and its truncation in range (NumPy leaves the rest to the C
    cast, which gives platform-dependent values)."""
    info = np.iinfo(dst)
    finite = np.isfinite(x)
    return finite & np.array(
        [bool(f) and int(info.min) <= int(np.trunc(v)) <= int(info.max) for v, f in zip(x.reshape(-1), finite.reshape(-1))],
        dtype=bool,
    ).reshape(x.shape)


@pytest.mark.parametrize("src", DTYPES, ids=NAMES)
@given(data=st.data())
def test_astype_to_every_dtype_equals_numpy(src: np.dtype, data: st.DataObject) -> None:
    x = data.draw(arrays(src))
    before = x.copy()
    t = donate.asarray(x)
    p = t.data_ptr()
    for dst in DTYPES:
        xs = x
        if src.kind == "f" and dst.kind in "iu":
            xs = np.where(fits(x, dst), x, src.type(0)).astype(src)
        with np.errstate(all="ignore"):  # float64 -> float32 overflow
            want = xs.astype(dst)
        ts = t if xs is x else donate.asarray(xs)
        assert_identical(ts.astype(dst), want)
        assert_identical(donate.astype(ts, dst), want)
        assert_identical(ts.astype(dst.name), want)
    assert t.data_ptr() == p and not t.is_donated
    assert_identical(t, before)


CAST_EXAMPLES = [
    # int64 above 2**53, negative, and the extremes: exact into uint64, rounded to nearest into floats.
    (np.array([2**53 + 1, 2**62 + 3, 2**63 - 1, -1, -(2**63), 3], np.int64), DTYPES),
    (np.array([2**64 - 1, 2**63 + 1, 2**53 + 1, 0], np.uint64), DTYPES),
    (np.array([2**24 + 1, -(2**31), 2**31 - 1, -1], np.int32), DTYPES),
    # Floats into integers, where the value fits: truncation toward zero.
    (np.array([-0.9, -0.0, 0.9, 1.5, 127.99, -128.5], np.float64), [np.dtype("int8")]),
    (np.array([-0.9, 0.0, 255.9, 3.7], np.float32), [np.dtype("uint8")]),
    (np.array([2.0**63 - 1024, -(2.0**63), 1e18 + 0.5], np.float64), [np.dtype("int64")]),
    (np.array([2.0**64 - 2048, 2.0**63, 0.5], np.float64), [np.dtype("uint64")]),
    (np.array([2.0**32 - 256, 16777217.0], np.float32), [np.dtype("uint32"), np.dtype("int64"), np.dtype("uint64")]),
    # Into bool: nonzero (NaN too) is True, -0.0 is False.
    (np.array([np.nan, -0.0, 0.0, -np.inf, 1e-300], np.float64), [np.dtype("bool")]),
    # float64 into float32: rounding, overflow to inf, subnormals.
    (np.array([1e300, -1e300, 1e-45, 0.1, 3.4028235677973366e38], np.float64), [np.dtype("float32")]),
]


@pytest.mark.parametrize(("x", "targets"), CAST_EXAMPLES, ids=[f"{x.dtype}-{i}" for i, (x, _) in enumerate(CAST_EXAMPLES)])
def test_astype_examples_equal_numpy(x: np.ndarray, targets: list[np.dtype]) -> None:
    t = donate.asarray(x)
    for dst in targets:
        with np.errstate(all="ignore"):
            want = x.astype(dst)
        assert_identical(t.astype(dst), want)
        assert_identical(donate.astype(t, dst), want)


def test_astype_copy_rules() -> None:
    t = donate.asarray(np.arange(4, dtype=np.int16))
    assert donate.astype(t, donate.int16, copy=False) is t
    c = donate.astype(t, donate.int16)
    assert c is not t and c.data_ptr() != t.data_ptr() and c.tolist() == t.tolist()
    u = t.astype(donate.uint8)
    assert u.dtype == np.uint8 and u.data_ptr() != t.data_ptr()
    assert t.tolist() == [0, 1, 2, 3] and not t.is_donated


# --- sums --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES)
@given(data=st.data())
def test_sum_has_numpys_dtype_and_value(dtype: np.dtype, data: st.DataObject) -> None:
    # NumPy's default integers: signed integers and bool sum into int64,
    # unsigned into uint64; floats keep their dtype.
    small = st.booleans() if dtype.kind == "b" else st.integers(0, 100) if dtype.kind == "u" else (
        st.integers(-100, 100) if dtype.kind == "i" else st.floats(-1e3, 1e3, width=dtype.itemsize * 8))
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5))
    x = data.draw(hnp.arrays(dtype, shape, elements=small))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1))
    t = donate.asarray(x)
    for got in (donate.sum(t, axis=axis), t.sum(axis=axis)):
        want = np.asarray(np.sum(x, axis=axis))
        assert got.dtype == want.dtype == (dtype if dtype.kind == "f" else np.dtype("uint64" if dtype.kind == "u" else "int64"))
        assert got.shape == want.shape
        if dtype.kind == "f":
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-2)
        else:
            np.testing.assert_array_equal(got.numpy(), want)


def test_sum_of_wide_integers_wraps_as_numpy() -> None:
    for d in ("int64", "uint64", "uint32", "int8"):
        info = np.iinfo(d)
        x = np.array([info.max, info.max, 1], d)
        with np.errstate(all="ignore"):
            want = np.sum(x)
        assert donate.sum(donate.asarray(x)).item() == int(want)


# --- result_type, can_cast, the dtype queries ----------------------------------------------

@pytest.mark.parametrize("a", DTYPES, ids=NAMES)
def test_result_type_and_can_cast_equal_numpy_for_every_pair(a: np.dtype) -> None:
    ta = donate.zeros((1,), dtype=a)
    for b in DTYPES:
        want = np.result_type(a, b)
        tb = donate.zeros((2,), dtype=b)
        assert donate.result_type(a, b) == want, (a, b)
        assert donate.result_type(a.name, b.name) == want, (a, b)
        assert donate.result_type(ta, tb) == want and donate.result_type(ta, b) == want, (a, b)
        assert donate.can_cast(a, b) == np.can_cast(a, b), (a, b)
        assert donate.can_cast(ta, b) == np.can_cast(a, b), (a, b)
        if want != np.dtype("bool"):  # (bool + bool: see the element-wise tests)
            assert (ta + tb).dtype == want, (a, b)  # an operation's result has that dtype too
    assert donate.result_type(a) == a


# NumPy's result_type of several dtypes is not always the left fold of the
# pairwise one: int8, uint16, float32 gives float32 (float32 holds both
# integers), while (int8 + uint16) + float32 is float64.
NOT_A_FOLD = [t for t in itertools.product(DTYPES, repeat=3) if np.result_type(np.result_type(*t[:2]), t[2]) != np.result_type(*t)]


def test_result_type_of_three_dtypes_equals_numpy() -> None:
    for a, b, c in itertools.product(DTYPES, repeat=3):
        if (a, b, c) not in NOT_A_FOLD:
            assert donate.result_type(a, b, c) == np.result_type(a, b, c), (a, b, c)


@pytest.mark.parametrize("dtypes", NOT_A_FOLD, ids=["-".join(map(str, t)) for t in NOT_A_FOLD])
def test_result_type_of_mixed_small_integers_and_float32_equals_numpy(dtypes: tuple[np.dtype, ...]) -> None:
    assert donate.result_type(*dtypes) == np.result_type(*dtypes)


def test_result_type_with_python_scalars_equals_numpy() -> None:
    # Weak scalars (NEP 50; the standard accepts scalars since 2024.12).
    for d in DTYPES:
        t = donate.zeros((1,), dtype=d)
        for s in (True, 1, 1.0):
            assert donate.result_type(t, s) == np.result_type(np.zeros(1, d), s), (d, s)


def test_dtype_queries_are_numpys() -> None:
    for d in DTYPES:
        t = donate.zeros((1,), dtype=d)
        if d.kind == "f":
            for f in (donate.finfo(d), donate.finfo(t)):
                want = np.finfo(d)
                assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (want.bits, want.eps, want.max, want.min, want.smallest_normal)
                assert f.dtype == d and all(type(v) is float for v in (f.eps, f.max, f.min, f.smallest_normal))
        elif d.kind in "iu":
            assert (donate.iinfo(d).min, donate.iinfo(d).max) == (np.iinfo(d).min, np.iinfo(d).max)
            assert donate.iinfo(t).bits == d.itemsize * 8
        kinds = {
            "bool": d.kind == "b", "signed integer": d.kind == "i", "unsigned integer": d.kind == "u",
            "integral": d.kind in "iu", "real floating": d.kind == "f", "complex floating": False,
            "numeric": d.kind in "iuf",
        }
        for kind, want in kinds.items():
            assert donate.isdtype(d, kind) is want, (d, kind)
        assert donate.isdtype(d, ("bool", "real floating")) is (d.kind in "bf")
        assert donate.isdtype(d, d) and not donate.isdtype(d, np.dtype("float16"))
    with pytest.raises(ValueError, match="kind"):
        donate.isdtype(donate.int8, "integer")
    info = donate.__array_namespace_info__()
    assert set(info.dtypes()) == set(NAMES) | {"complex64", "complex128"}
    assert set(info.dtypes(kind="integral")) == {n for n in NAMES if n[0] in "iu"}


# --- the array API attributes of a tensor -----------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES)
def test_tensor_array_api_attributes(dtype: np.dtype) -> None:
    x = (np.arange(6) % 2 == 0) if dtype.kind == "b" else np.arange(6).astype(dtype)
    t = donate.asarray(x.reshape(2, 3))
    assert t.__array_namespace__() is donate
    assert t.__array_namespace__(api_version="2024.12") is donate
    assert t.device == "cpu" and t.to_device("cpu") is t
    with pytest.raises(ValueError):
        t.to_device("gpu")
    assert_identical(t.mT, x.reshape(2, 3).T)
    assert_identical(donate.matrix_transpose(t), x.reshape(2, 3).T)
    s = donate.asarray(x[3])
    if dtype.kind in "iu":
        assert s.__index__() == int(x[3]) and [10, 11, 12, 13][s] == 13
        assert list(range(10))[donate.asarray(np.array(2, dtype)):] == list(range(2, 10))
    else:
        with pytest.raises(TypeError):
            s.__index__()
    with pytest.raises(TypeError):  # not 0-d: TypeError, as NumPy and operator.index's contract
        [1, 2, 3][t]


# --- Python integers above int64's range --------------------------------------------------

def test_a_list_of_large_python_ints_converts_exactly_to_uint64() -> None:
    for values in ([2**63 + 1, 0], [2**64 - 1, 5], [[2**63 + 1], [0]]):
        assert_identical(donate.asarray(values, dtype=donate.uint64), np.asarray(values, dtype=np.uint64))


@pytest.mark.parametrize("use", ["add", "maximum", "equal", "full"])
def test_python_ints_above_int64_work_with_uint64(use: str) -> None:
    x = np.array([5, 2**64 - 2], np.uint64)
    big = 2**64 - 1
    if use == "full":
        assert_identical(donate.full((2,), big, dtype=donate.uint64), np.full((2,), big, dtype=np.uint64))
    else:
        with np.errstate(all="ignore"):
            want = getattr(np, use)(x, big)
        assert_identical(getattr(donate, use)(donate.asarray(x), big), want)


def test_python_ints_beyond_int64_compare_exactly_and_refuse_what_no_dtype_holds() -> None:
    i = np.array([-1, 2**63 - 1])
    u = np.array([0, 2**64 - 1], np.uint64)
    for x, v in ((i, 2**63), (u, 2**64), (i, -(2**100)), (u, -1)):
        for f in (np.less, np.equal, np.greater_equal):
            assert_identical(f(donate.asarray(x), v), f(x, v))
    assert donate.full((2,), 2**63).dtype == np.full((2,), 2**63).dtype == np.uint64
    with pytest.raises(OverflowError, match="out of bounds for int64"):
        donate.asarray(i) + 2**63
    with pytest.raises(OverflowError):
        donate.asarray(u) + 2**130


INT_DTYPES = [d for d in DTYPES if d.kind in "iu"]
COMPARES = [np.less, np.less_equal, np.equal, np.not_equal, np.greater, np.greater_equal]


@given(data=st.data())
def test_integer_tensors_compare_exactly_with_python_ints_of_any_size(data: st.DataObject) -> None:
    # An int outside the tensor's dtype (`uint8 < 300`, `uint64 > -1`,
    # `int64 < 2**63`) is compared as its value, on either side, as NumPy 2.
    dtype = data.draw(st.sampled_from(INT_DTYPES))
    info = np.iinfo(dtype)
    x = data.draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)))
    edge = st.sampled_from([int(info.min) - 1, int(info.max) + 1, int(info.min), int(info.max), -(2**64), 2**64])
    v = data.draw(edge | st.integers(-(2**70), 2**70))
    f = data.draw(st.sampled_from(COMPARES))
    left = data.draw(st.booleans())
    t = donate.asarray(x)
    g = getattr(donate, f.__name__)
    want = f(x, v) if left else f(v, x)
    assert_identical(g(t, v) if left else g(v, t), want)
    assert_identical(f(t, v) if left else f(v, t), want)  # NumPy's ufunc on a tensor

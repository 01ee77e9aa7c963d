"""NumPy calls on tensors that NumPy answers and donate used to refuse,
each against NumPy as the oracle for values, dtypes and shapes (and for
the error class where NumPy raises): `np.fmod` and `np.cbrt` (core
functions, `donate.fmod` and `donate.cbrt`), `np.frexp`,
`maximum.accumulate`/`minimum.accumulate`, `ufunc.outer`,
`np.flatnonzero`, `np.tril`/`np.triu` of a vector, and the reductions of
a 0-d tensor along axis 0 or -1. NumPy's float16 results of integers and
bools are float32 here (donate makes float16 only of float16: `held`)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate

INTS = [np.dtype(n) for n in "int8 int16 int32 int64 uint8 uint16 uint32 uint64".split()]
FLOATS = [np.dtype("float32"), np.dtype("float64")]


def tensor(x: Any) -> Any:
    return donate.tensor(np.asarray(x))


def held(d: Any) -> np.dtype:
    d = np.dtype(d)
    return np.dtype("float32") if d == np.float16 else d


def check(got: Any, want: Any, *, ulps: int = 0) -> None:
    """A tensor (or a tuple of them) with NumPy's dtype (`held`), shape and
    values: NaNs in the same places, signed zeros with the same sign, and
    within `ulps` units in the last place of NumPy's (0: equal)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w, ulps=ulps)
        return
    assert isinstance(got, donate.Tensor), type(got)
    w = np.asarray(want)
    g = np.asarray(got)
    assert (got.dtype, got.shape) == (held(w.dtype), w.shape), (got.dtype, got.shape, w.dtype, w.shape)
    w = w.astype(g.dtype)
    if ulps and g.dtype.kind == "f":
        np.testing.assert_array_max_ulp(g, w, maxulp=ulps)
    else:
        np.testing.assert_array_equal(g, w)
    if g.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))


def quiet() -> Any:
    return np.errstate(all="ignore")  # NumPy warns on a zero divisor, an invalid value


def both(f: Callable[..., Any], *xs: Any) -> tuple[Any, Any]:
    """`f` over tensors of `xs` and over `xs` themselves."""
    with quiet():
        want = f(*xs)
        got = f(*(tensor(x) for x in xs))
    return got, want


SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 7.5, -7.5, 0.1, 1e300, -1e-300, 5e-324, np.inf, -np.inf, np.nan])


# ------------------------------------------------------------------ fmod ---

@pytest.mark.parametrize("dtype", FLOATS)
def test_fmod_of_floats_is_cs_exact_fmod(dtype: np.dtype) -> None:
    with quiet():
        x = SPECIAL.astype(dtype)
    a, b = np.meshgrid(x, x)
    check(*both(np.fmod, a, b))


@pytest.mark.parametrize("dtype", INTS)
def test_fmod_of_integers_has_the_dividends_sign_and_0_for_a_zero_divisor(dtype: np.dtype) -> None:
    info = np.iinfo(dtype)
    vals = np.array(sorted(v for v in {info.min, info.min + 1, -7, -1, 0, 1, 2, 7, info.max} if v >= info.min), dtype)
    a, b = np.meshgrid(vals, vals)
    check(*both(np.fmod, a, b))


@given(hnp.arrays(np.float64, 20, elements=st.floats(allow_subnormal=True, width=64)),
       hnp.arrays(np.float64, 20, elements=st.floats(allow_subnormal=True, width=64)))
@settings(max_examples=50, deadline=None)
def test_fmod_matches_numpy_on_any_doubles(a: np.ndarray, b: np.ndarray) -> None:
    check(*both(np.fmod, a, b))


@pytest.mark.parametrize("call", [
    lambda t, u: np.fmod(t, 2),
    lambda t, u: np.fmod(2.5, t),
    lambda t, u: np.fmod(t, u),
    lambda t, u: np.fmod(t.astype(np.int8), u.astype(np.int16)),
    lambda t, u: np.fmod(t.astype(np.int32), 3),
    lambda t, u: np.fmod(abs(t).astype(np.uint8), np.float32(2.5)),
    lambda t, u: np.fmod(t > 0, u > 0),
    lambda t, u: np.fmod(t, u, dtype=np.float32),
], ids=["scalar", "scalar first", "broadcast", "int8 int16", "int32 scalar", "uint8 float32", "bool", "dtype"])
def test_fmod_promotes_as_numpy(call: Callable[[Any, Any], Any]) -> None:
    t = np.array([[7.0, -7.0, 5.5], [-0.0, 3.0, -2.25]])
    u = np.array([2.0, -3.0, 0.5])
    with quiet():
        want = call(t, u)
        got = call(tensor(t), tensor(u))
    check(got, want)


def test_fmod_out_writes_in_place() -> None:
    t, u = tensor([7.0, -7.0, 5.5]), tensor([2.0, -3.0, 0.5])
    p = t.data_ptr()
    assert np.fmod(t, u, out=t) is t
    assert t.data_ptr() == p
    check(t, np.fmod(np.array([7.0, -7.0, 5.5]), np.array([2.0, -3.0, 0.5])))


def test_donate_fmod_and_cbrt_take_a_donated_buffer() -> None:
    for f, args in ((donate.fmod, (2.0,)), (donate.cbrt, ())):
        t = tensor([8.0, -27.0, 5.5])
        p = t.data_ptr()
        with warnings.catch_warnings():
            warnings.simplefilter("error", donate.DonationWarning)
            r = f(t.donate(), *args)
        assert r.data_ptr() == p and t.is_donated
        # (Within an ulp: NumPy's float64 `cbrt` is the C library's where
        # it has no vector loop, and glibc's gives -3.0000000000000004.)
        want = getattr(np, f.__name__)(np.array([8.0, -27.0, 5.5]), *args)
        assert r.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(r), want, rtol=2 * np.finfo(np.float64).eps)


def test_donate_fmod_refuses_bools_as_remainder_does_and_np_fmod_takes_numpys_int8_loop() -> None:
    with pytest.raises(TypeError, match="fmod"):
        donate.fmod(tensor([True]), tensor([True]))
    with quiet():
        check(np.fmod(tensor([True, False]), tensor([True, True])), np.fmod([True, False], [True, True]))


def test_fmod_and_cbrt_under_jit_match_eager() -> None:
    x = np.array([[8.0, -27.0, 5.5], [-0.5, 1e-300, 2.0]], np.float32)
    f = donate.jit(lambda a: donate.cbrt(donate.fmod(a, 3.0)) + np.fmod(a, -2.0))
    got = f(tensor(x))
    with quiet():
        want = donate.cbrt(donate.fmod(tensor(x), 3.0)) + np.fmod(tensor(x), -2.0)
    check(got, np.asarray(want))


# ------------------------------------------------------------------ cbrt ---

@pytest.mark.parametrize("dtype", FLOATS)
def test_cbrt_of_floats(dtype: np.dtype) -> None:
    with quiet():
        x = np.concatenate([SPECIAL, [8.0, -27.0, 1e-310, 3.0, 1e30]]).astype(dtype)
    check(*both(np.cbrt, x), ulps=1)


@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), *INTS])
def test_cbrt_of_integers_and_bool_in_numpys_float(dtype: np.dtype) -> None:
    x = np.array([0, 1, 8, 27, 100, 125]).astype(dtype)
    want = np.cbrt(x)
    if want.dtype == np.float16:  # float32 here: NumPy's values in float32
        want = np.cbrt(x.astype(np.float32))
    check(np.cbrt(tensor(x)), want, ulps=1)


# ----------------------------------------------------------------- frexp ---

def _every_exponent(dtype: np.dtype) -> np.ndarray:
    """Powers of two, their neighbours and the subnormals of `dtype`, both
    signs, with the specials."""
    fi = np.finfo(dtype)
    with quiet():
        p = np.ldexp(np.ones(1, dtype), np.arange(fi.minexp - fi.nmant, fi.maxexp, dtype=np.int32))
        x = np.concatenate([p, np.nextafter(p, dtype.type(0)), np.nextafter(p, dtype.type(np.inf)),
                            p * dtype.type(1.7), [fi.max, fi.smallest_normal, fi.smallest_subnormal]])
        x = np.concatenate([x, -x, SPECIAL]).astype(dtype)
    return x


@pytest.mark.parametrize("dtype", FLOATS)
def test_frexp_of_floats_gives_numpys_mantissa_and_int32_exponent(dtype: np.dtype) -> None:
    got, want = both(np.frexp, _every_exponent(dtype))
    assert want[1].dtype == np.int32
    check(got, want)


@given(hnp.arrays(st.sampled_from(FLOATS), 30, elements=st.floats(allow_subnormal=True, width=32)))
@settings(max_examples=60, deadline=None)
def test_frexp_matches_numpy_on_any_floats(x: np.ndarray) -> None:
    check(*both(np.frexp, x))


@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), *INTS])
def test_frexp_of_integers_and_bool_in_numpys_float(dtype: np.dtype) -> None:
    x = np.array([0, 1, 3, 8, 100, 127]).astype(dtype)
    check(*both(np.frexp, x))


def test_frexp_out_and_shapes() -> None:
    x = np.array([[0.5, -3.0, 1e-310], [np.inf, 6.0, -0.0]])
    m, e = tensor(np.zeros_like(x)), tensor(np.zeros(x.shape, np.int32))
    r = np.frexp(tensor(x), out=(m, e))
    assert r[0] is m and r[1] is e
    check((m, e), np.frexp(x))
    check(np.frexp(tensor(np.float32(12.0))), np.frexp(np.array(np.float32(12.0))))
    check(np.frexp(tensor(np.zeros((0, 3)))), np.frexp(np.zeros((0, 3))))


# ------------------------------------------------------------ accumulate ---

ACC = [np.maximum, np.minimum, np.add, np.multiply]
ACC_IDS = [u.__name__ for u in ACC]


@pytest.mark.parametrize("ufunc", ACC, ids=ACC_IDS)
@pytest.mark.parametrize("dtype", [np.dtype(np.bool_), *INTS, *FLOATS], ids=str)
def test_accumulate_in_numpys_dtype(ufunc: np.ufunc, dtype: np.dtype) -> None:
    x = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [0, 7, 1, 8]]).astype(dtype)
    for kw in ({}, {"axis": 0}, {"axis": 1}, {"axis": -1}):
        check(*both(lambda a: ufunc.accumulate(a, **kw), x))


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum], ids=["maximum", "minimum"])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_running_extremes_propagate_nan_and_keep_numpys_signed_zero(ufunc: np.ufunc, dtype: np.dtype) -> None:
    for x in ([1.0, np.nan, 3.0, -np.inf], [np.nan, 1.0], [-np.inf, 2.0, np.inf, 0.5],
              [0.0, -0.0, 0.0, -0.0], [-0.0, 0.0, -0.0]):
        check(*both(ufunc.accumulate, np.array(x, dtype)))


@given(hnp.arrays(st.sampled_from([np.dtype(np.int16), np.dtype(np.uint32), *FLOATS]),
                  hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                  elements={"allow_subnormal": True}),
       st.sampled_from([np.maximum, np.minimum]), st.integers(-3, 2))
@settings(max_examples=80, deadline=None)
def test_running_extremes_match_numpy(x: np.ndarray, ufunc: np.ufunc, axis: int) -> None:
    axis = axis % x.ndim
    check(*both(lambda a: ufunc.accumulate(a, axis=axis), x))


@pytest.mark.parametrize("ufunc", ACC, ids=ACC_IDS)
def test_accumulate_keywords(ufunc: np.ufunc) -> None:
    x = np.array([[3, -1, 4], [1, -5, 9]], np.int16)
    check(*both(lambda a: ufunc.accumulate(a, axis=1, dtype=np.float32), x))
    out = tensor(np.zeros((2, 3), np.float64))
    assert ufunc.accumulate(tensor(x), axis=1, out=out) is out
    check(out, ufunc.accumulate(x, axis=1).astype(np.float64))
    for bad in (lambda a: ufunc.accumulate(a[0, 0]),  # 0-d: "cannot accumulate on a scalar"
                lambda a: ufunc.accumulate(a, axis=2),
                lambda a: ufunc.accumulate(a, axis=(0, 1))):
        with pytest.raises(Exception) as want:
            bad(x)
        with pytest.raises(type(want.value)):
            bad(tensor(x))


def test_running_extreme_takes_a_donated_buffer_and_traces() -> None:
    x = np.array([[3.0, -1.0, 4.0], [1.0, 5.0, -9.0]])
    t = tensor(x)
    p = t.data_ptr()
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        r = np.maximum.accumulate(t.donate(), axis=1)
    assert r.data_ptr() == p and t.is_donated
    check(r, np.maximum.accumulate(x, axis=1))
    f = donate.jit(lambda a: np.minimum.accumulate(a * 2.0, axis=0))
    check(f(tensor(x)), np.minimum.accumulate(x * 2.0, axis=0))
    check(f(tensor(-x)), np.minimum.accumulate(-x * 2.0, axis=0))
    assert f.trace_count == 1


# ----------------------------------------------------------------- outer ---

OUTER = [np.add, np.subtract, np.multiply, np.divide, np.maximum, np.minimum, np.equal, np.less,
         np.arctan2, np.power, np.fmod, np.logical_and, np.bitwise_xor, np.floor_divide]


@pytest.mark.parametrize("ufunc", OUTER, ids=[u.__name__ for u in OUTER])
def test_outer_as_numpy(ufunc: np.ufunc) -> None:
    a = np.array([[3, -1, 4], [1, 5, -9]], np.int32)
    b = np.array([2, 7, -3, 1], np.int32)
    if ufunc is np.power:  # NumPy raises for a negative integer exponent
        a, b = abs(a), abs(b)
    ulps = 2 if ufunc is np.arctan2 else 0  # the C library's atan2 against NumPy's
    check(*both(ufunc.outer, a, b), ulps=ulps)
    check(*both(ufunc.outer, b, a), ulps=ulps)
    if ufunc is not np.bitwise_xor:
        check(*both(ufunc.outer, a.astype(np.float32), b.astype(np.float64)), ulps=ulps)


@pytest.mark.parametrize("call", [
    lambda t, u: np.add.outer(t, 3),
    lambda t, u: np.add.outer(2, t),
    lambda t, u: np.multiply.outer(t, [1.5, 2.5]),
    lambda t, u: np.add.outer(t, np.float32(2)),
    lambda t, u: np.subtract.outer(t[0, 0], u),
    lambda t, u: np.add.outer(t, u, dtype=np.float32),
    lambda t, u: np.maximum.outer(t > 0, u > 0),
    lambda t, u: np.divmod.outer(t, u),
    lambda t, u: np.multiply.outer(t, u[:0]),
], ids=["int", "int first", "list", "numpy scalar", "0-d", "dtype", "bool", "two results", "empty"])
def test_outer_operands_and_keywords(call: Callable[[Any, Any], Any]) -> None:
    t = np.array([[3, -1], [4, 1]], np.int8)
    u = np.array([2, 7, 5], np.int16)
    with quiet():
        want = call(t, u)
        got = call(tensor(t), tensor(u))
    check(got, want)


def test_outer_out_and_errors() -> None:
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
    out = tensor(np.zeros((2, 3)))
    assert np.add.outer(tensor(a), tensor(b), out=out) is out
    check(out, np.add.outer(a, b))
    with pytest.raises(ValueError, match="binary"):
        np.sin.outer(a, b)
    with pytest.raises(ValueError, match="binary"):
        np.sin.outer(tensor(a), tensor(b))
    with pytest.raises(TypeError):
        np.add.outer(a.astype(np.int64), b, out=np.zeros((2, 3), np.int64))
    with pytest.raises(TypeError):
        np.add.outer(tensor(a.astype(np.int64)), tensor(b), out=tensor(np.zeros((2, 3), np.int64)))


# ----------------------------------------------- flatnonzero, tril, triu ---

@pytest.mark.parametrize("x", [
    np.array([[0, 3, 0], [-2, 0, 7]], np.int32), np.array([0.0, -0.0, np.nan, 1e-300]),
    np.array([[True, False], [False, True]]), np.array(5), np.array(0.0), np.zeros((2, 0)),
], ids=["int32", "float64", "bool", "0-d", "0-d zero", "empty"])
def test_flatnonzero(x: np.ndarray) -> None:
    check(*both(np.flatnonzero, x))


@pytest.mark.parametrize("f", [np.tril, np.triu], ids=["tril", "triu"])
@pytest.mark.parametrize("k", [-4, -1, 0, 1, 2, 5])
@pytest.mark.parametrize("x", [np.array([3, 1, 4, 1], np.int16), np.array([1.5, -2.0, np.nan]),
                               np.array([True, True]), np.array([], np.float32)],
                         ids=["int16", "float64", "bool", "empty"])
def test_tril_and_triu_of_a_vector_broadcast_it_to_a_square(f: Callable[..., Any], k: int, x: np.ndarray) -> None:
    check(*both(lambda a: f(a, k=k), x))
    check(*both(lambda a: f(a, k), np.stack([x, x])))  # matrices as before


@pytest.mark.parametrize("f", [np.tril, np.triu], ids=["tril", "triu"])
def test_tril_and_triu_of_a_0d_tensor_raise_as_numpy(f: Callable[..., Any]) -> None:
    with pytest.raises(TypeError):
        f(np.array(3.0))
    with pytest.raises(TypeError, match=f.__name__):
        f(tensor(3.0))


# ------------------------------------------------- 0-d tensors and axes ---
# NumPy's reductions of a 0-d array take axis 0 or -1 (an int) as "no
# axis" (`np.sum(np.array(3.0), axis=0)` is 3.0); the functions over one
# axis that ravel a 0-d array first (`cumsum`, `take`, `argsort`,
# `repeat`, `argmax`) give its one axis; `mean`, `std`, `sort`, `median`,
# ... raise `AxisError` (a ValueError and an IndexError), as any other
# axis or a tuple of axes does.

ZERO_D: dict[str, Callable[[Any, Any], Any]] = {
    "sum": lambda a, ax: np.sum(a, axis=ax),
    "sum keepdims": lambda a, ax: np.sum(a, axis=ax, keepdims=True),
    "sum where": lambda a, ax: np.sum(a, axis=ax, where=True),
    "sum initial": lambda a, ax: np.sum(a, axis=ax, initial=1),
    "sum dtype": lambda a, ax: np.sum(a, axis=ax, dtype=np.float32),
    "prod": lambda a, ax: np.prod(a, axis=ax),
    "max": lambda a, ax: np.max(a, axis=ax),
    "max initial": lambda a, ax: np.max(a, axis=ax, initial=-5),
    "min keepdims": lambda a, ax: np.min(a, axis=ax, keepdims=True),
    "any": lambda a, ax: np.any(a, axis=ax),
    "all keepdims": lambda a, ax: np.all(a, axis=ax, keepdims=True),
    "mean": lambda a, ax: np.mean(a, axis=ax),
    "std": lambda a, ax: np.std(a, axis=ax),
    "var": lambda a, ax: np.var(a, axis=ax),
    "argmax": lambda a, ax: np.argmax(a, axis=ax),
    "argmin keepdims": lambda a, ax: np.argmin(a, axis=ax, keepdims=True),
    "cumsum": lambda a, ax: np.cumsum(a, axis=ax),
    "cumprod": lambda a, ax: np.cumprod(a, axis=ax),
    "count_nonzero": lambda a, ax: np.count_nonzero(a, axis=ax),
    "count_nonzero keepdims": lambda a, ax: np.count_nonzero(a, axis=ax, keepdims=True),
    "ptp": lambda a, ax: np.ptp(a, axis=ax),
    "sort": lambda a, ax: np.sort(a, axis=ax),
    "argsort": lambda a, ax: np.argsort(a, axis=ax),
    "take": lambda a, ax: np.take(a, 0, axis=ax),
    "repeat": lambda a, ax: np.repeat(a, 2, axis=ax),
    "squeeze": lambda a, ax: np.squeeze(a, axis=ax),
    "flip": lambda a, ax: np.flip(a, axis=ax),
    "add.reduce": lambda a, ax: np.add.reduce(a, axis=ax),
    "maximum.reduce": lambda a, ax: np.maximum.reduce(a, axis=ax),
    "logical_or.reduce": lambda a, ax: np.logical_or.reduce(a, axis=ax),
    "multiply.reduce keepdims": lambda a, ax: np.multiply.reduce(a, axis=ax, keepdims=True),
    "method sum": lambda a, ax: a.sum(axis=ax),
    "method argmax": lambda a, ax: a.argmax(axis=ax),
    "method cumsum": lambda a, ax: a.cumsum(axis=ax),
    "method max": lambda a, ax: a.max(axis=ax),
}
# (median and quantile of bools: NumPy's TypeError, donate's float64 as for arrays of more axes)
ZERO_D_NUMBERS: dict[str, Callable[[Any, Any], Any]] = {
    "median": lambda a, ax: np.median(a, axis=ax),
    "quantile": lambda a, ax: np.quantile(a, 0.25, axis=ax),
    "percentile": lambda a, ax: np.percentile(a, 50, axis=ax),
}
ZERO_D_VALUES = [np.array(3.5), np.array(-2, np.int8), np.array(7, np.uint8), np.array(True)]


def _zero_d_cases() -> list[Any]:
    cases = []
    for name, f in {**ZERO_D, **ZERO_D_NUMBERS}.items():
        for x in ZERO_D_VALUES:
            if name in ZERO_D_NUMBERS and x.dtype == np.bool_:
                continue
            for axis in (0, -1, 1, -2, (0,), None):
                cases.append(pytest.param(f, x, axis, id=f"{name}-{x.dtype}-{x.item()}-{axis}"))
    return cases


@pytest.mark.parametrize(("f", "x", "axis"), _zero_d_cases())
def test_a_0d_tensor_along_an_axis_as_numpy(f: Callable[[Any, Any], Any], x: np.ndarray, axis: Any) -> None:
    try:
        with quiet():
            want = f(x, axis)
    except Exception as e:
        with pytest.raises(type(e)):
            f(tensor(x), axis)
        return
    with quiet():
        got = f(tensor(x), axis)
    check(got, want)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"])
def test_bitwise_count_is_numpy_s_for_every_integer_dtype(dtype: str) -> None:
    """The 1-bits of the absolute value (the most negative value too),
    uint8, for random values and the ends of the range."""
    info = np.iinfo(dtype)
    x = np.random.default_rng(1).integers(info.min, info.max, 500, dtype=dtype, endpoint=True)
    x = np.concatenate([x, np.array([info.min, info.max, 0, 1, -1 if info.min else 2], dtype=dtype)])
    got = np.asarray(np.bitwise_count(donate.asarray(x)))
    want = np.bitwise_count(x)
    assert got.dtype == want.dtype == np.uint8
    np.testing.assert_array_equal(got, want)


def test_bitwise_count_of_bools_and_refusal_of_floats_as_numpy() -> None:
    np.testing.assert_array_equal(np.asarray(np.bitwise_count(donate.asarray(np.array([True, False])))),
                                  np.bitwise_count(np.array([True, False])))
    with pytest.raises(TypeError):
        np.bitwise_count(np.ones(2))
    with pytest.raises(TypeError):
        np.bitwise_count(donate.asarray(np.ones(2)))

"""NumPy ufuncs donate composes of its own functions, which it used to
refuse: `float_power`, `heaviside`, `logaddexp2`, `ldexp`, `spacing`,
`gcd`, `lcm`, `matvec`, `vecmat`; against NumPy as the oracle for values
(NaNs, infinities and signed zeros included), dtypes (NumPy's loop for
the operands, Python numbers weak) and shapes, with hypothesis."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate

SPECIAL = [-2.5, -0.0, 0.0, 1.5, np.inf, -np.inf, np.nan, 1e-30, 1e-45, 3.0, -3e38]


def on_tensors(args: tuple[Any, ...]) -> list[Any]:
    return [donate.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


def check(name: str, *args: Any, rtol: float = 0.0) -> None:
    ufunc = getattr(np, name)
    with np.errstate(all="ignore"):
        want = ufunc(*args)
    got = ufunc(*on_tensors(args))
    assert isinstance(got, donate.Tensor), type(got)
    g = np.asarray(got)
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape)
    if rtol:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(g, want)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(g), np.signbit(want))


FLOAT_PAIRS = st.sampled_from([np.float32, np.float64]).flatmap(
    lambda dt: st.tuples(*(hnp.arrays(dt, 6, elements=st.one_of(
        st.sampled_from(SPECIAL).map(dt),
        st.floats(-1e4, 1e4, width=32 if dt == np.float32 else 64))) for _ in range(2))))


@settings(max_examples=80, deadline=None)
@given(FLOAT_PAIRS)
def test_float_binary_ufuncs(pair: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = pair
    check("float_power", x, y, rtol=1e-15)
    check("heaviside", x, y)
    # (log1p and exp2 as donate computes them: within a few units of
    # NumPy's last place.)
    with np.errstate(all="ignore"):
        want = np.logaddexp2(x, y)
    finite = np.isfinite(want)
    got = np.asarray(np.logaddexp2(donate.asarray(x), donate.asarray(y)))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[~finite], want[~finite])
    np.testing.assert_allclose(got[finite], want[finite], rtol=4 * np.finfo(x.dtype).eps)
    check("spacing", x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ldexp_across_the_exponent_range(dtype: Any) -> None:
    info = np.finfo(dtype)
    x = np.array([1.0, -1.5, info.tiny, info.max, 0.0, -0.0, np.inf, np.nan, 0.75], dtype)
    for e in (np.array([0, 3, -3, 10, -10, 1, -1, 5, info.maxexp - 1]),
              np.array([info.minexp - info.nmant, -1, -2, 2, 0, 0, 0, 0, info.minexp])):
        check("ldexp", x, e.astype(np.int32))
    check("ldexp", x, 4)


INT_PAIRS = st.sampled_from([np.int8, np.int32, np.int64, np.uint16]).flatmap(
    lambda dt: st.tuples(*(hnp.arrays(dt, 8, elements=st.integers(
        0 if np.dtype(dt).kind == "u" else max(-1000, np.iinfo(dt).min + 1),
        min(1000, np.iinfo(dt).max))) for _ in range(2))))


@settings(max_examples=80, deadline=None)
@given(INT_PAIRS)
def test_gcd_and_lcm(pair: tuple[np.ndarray, np.ndarray]) -> None:
    x, y = pair
    check("gcd", x, y)
    if x.dtype.itemsize >= 4:  # (NumPy's lcm wraps around in int8)
        check("lcm", x, y)
    check("gcd", x, 12)


def test_python_numbers_are_weak_and_integers_take_the_float_loop() -> None:
    i = np.array([-2, 0, 3], np.int32)
    check("float_power", i, 2)
    check("heaviside", np.array([-1.0, 0.0, 2.0], np.float32), 0.5)
    check("heaviside", i, 0.25)
    check("spacing", i)
    check("logaddexp2", i, 1.0)


def test_matvec_and_vecmat() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    check("matvec", a, np.arange(4.0), rtol=1e-15)
    check("vecmat", np.arange(3.0), a, rtol=1e-15)
    z = (np.arange(6) + 1j * np.arange(6)).reshape(2, 3)
    check("vecmat", z[0], z.T.copy(), rtol=1e-15)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_square_is_numpy_s_bit_for_bit(dtype: Any) -> None:
    # `x ** 2` is NumPy's `x * x` (the C library's `pow` differed from it
    # in the last bit of some float32 values).
    x = np.random.default_rng(0).standard_normal(100_000).astype(dtype)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30]
    for got in (donate.asarray(x) ** 2, np.power(donate.asarray(x), 2), donate.pow(donate.asarray(x), 2.0)):
        g = np.asarray(got)
        assert g.dtype == dtype
        np.testing.assert_array_equal(g.view(np.uint32 if dtype == np.float32 else np.uint64),
                                      (x * x).view(np.uint32 if dtype == np.float32 else np.uint64))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_ldexp_rounds_once_and_keeps_zeros_and_infinities(dtype) -> None:
    """`ldexp` as C's `scalbn`: exact to the bit against NumPy's over the
    whole exponent range, subnormal inputs and results included, and
    `0 * 2**big`, `inf * 2**-big` stay 0 and inf (they were NaN: a half
    power overflowed)."""
    fi = np.finfo(dtype)
    rng = np.random.default_rng(7)
    n = 5000
    m = (rng.normal(size=n) * 2.0 ** rng.integers(fi.minexp - fi.nmant, fi.maxexp, n)).astype(dtype)
    m[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, fi.smallest_subnormal]
    k = rng.integers(-3 * fi.maxexp, 3 * fi.maxexp, n)
    k[:6] = [5000, 5000, -5000, -5000, 3, 2 * fi.maxexp]
    with np.errstate(over="ignore"):
        want = np.ldexp(m, k)
    got = np.asarray(np.ldexp(donate.asarray(m), donate.asarray(k)))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want)).all()


def test_float16_beside_a_number_or_int8_stays_float16() -> None:
    t = donate.asarray(np.array([0.5, -1.0, 0.0], np.float16))
    a = np.asarray(t)
    for f in (lambda x: np.heaviside(x, 1), lambda x: np.logaddexp2(x, 1),
              lambda x: np.heaviside(x, np.int8(2)), lambda x: np.logaddexp2(x, 0.5)):
        want = f(a)
        got = np.asarray(f(t))
        assert got.dtype == want.dtype == np.float16
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["logaddexp2", "rad2deg", "deg2rad", "degrees", "radians", "exp2"])
def test_float16_loops_round_once_as_numpys(name):
    # NumPy's float16 loops compute in float32 and round once; donate's
    # float16 steps rounded each intermediate (`logaddexp2` of two
    # negatives gave -0.0004883 for 0.0001051).
    every = np.arange(2**16, dtype=np.uint16).view(np.float16)
    every = every[np.isfinite(every)]
    ufunc = getattr(np, name)
    if ufunc.nin == 1:
        args: tuple[Any, ...] = (every,)
    else:
        rng = np.random.default_rng(7)
        args = (every, rng.permutation(every))
    with np.errstate(all="ignore"):
        want = ufunc(*args)
        got = np.asarray(ufunc(*on_tensors(args)))
    assert got.dtype == want.dtype == np.float16
    assert np.array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    g, w = got[ok], want[ok]
    assert np.array_equal(np.signbit(g), np.signbit(w))
    # `logaddexp2`'s float32 `log1p` and `pow` are donate's own, within an
    # ulp of the C library's: 2 of the 63,488 results round the other way.
    ulps = 1 if name == "logaddexp2" else 0
    diff = np.abs(g.view(np.uint16).astype(np.int32) - w.view(np.uint16).astype(np.int32))
    assert diff.max() <= ulps, (diff.max(), int((diff > 0).sum()))


def test_a_ufunc_numpy_has_no_loop_for_refuses_as_numpy():
    # `np.fabs` of complex data gave |z| (donate's `abs`); NumPy has no
    # complex loop for it.
    z = np.array([3 + 4j])
    with pytest.raises(TypeError):
        np.fabs(z)
    with pytest.raises(TypeError):
        np.fabs(donate.asarray(z))
    for x in (np.array([-1, 2]), np.array([-1.5], np.float32)):
        got, want = np.fabs(donate.asarray(x)), np.fabs(x)
        assert np.dtype(str(got.dtype)) == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)

"""NumPy functions on tensors that NumPy answers and donate used to refuse
("no implementation found"), against NumPy as the oracle for values,
dtypes and shapes: `fliplr`, `flipud`, `rot90` and the `split` family
(views, as NumPy's), `dstack`; the set functions `isin`, `intersect1d`,
`union1d`, `setdiff1d`, `setxor1d`, `array_equiv`; `nancumsum`, `nancumprod`,
`nanargmax`, `nanargmin`; `median` of an empty slice; `isclose` and
`allclose` with infinities (a wrong answer before: `isclose(1, inf)`
was true); `cov`, `corrcoef`, `kron`, `linalg.multi_dot`, `angle`; the
ufuncs
`deg2rad`, `radians`, `rad2deg`, `degrees`, `exp2` (float32 where
NumPy's loop is float16: donate makes float16 only of float16)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate

X = np.arange(24.0).reshape(2, 3, 4)


def check(got: Any, want: Any) -> None:
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
        return
    assert isinstance(got, donate.Tensor), type(got)
    g, w = np.asarray(got), np.asarray(want)
    # NumPy's float16 (of bools and int8) is float32 here: computed more
    # precisely, so equal within float16's precision.
    rtol = 2e-3 if w.dtype == np.float16 else 1e-6 if w.dtype == np.float32 else 1e-12
    if w.dtype == np.float16:
        w = w.astype(np.float32)
    assert (g.dtype, g.shape) == (w.dtype, w.shape)
    np.testing.assert_allclose(g, w, rtol=rtol, equal_nan=True)


def both(f: Callable[..., Any], *arrays: np.ndarray) -> None:
    check(f(*(donate.asarray(a) for a in arrays)), f(*arrays))


@pytest.mark.parametrize(
    "f",
    [np.fliplr, np.flipud, np.rot90, lambda x: np.rot90(x, 3), lambda x: np.rot90(x, -2),
     lambda x: np.rot90(x, 1, (2, 0)), lambda x: np.rot90(x, 0),
     lambda x: np.array_split(x, 3, axis=2), lambda x: np.array_split(x, [1, 3], axis=-1),
     lambda x: np.split(x, 2, axis=2), lambda x: np.split(x, [0, 2, 9], axis=1),
     lambda x: np.hsplit(x, 3), lambda x: np.vsplit(x, 2), lambda x: np.dsplit(x, [1]),
     lambda x: np.dstack([x[0], x[1]]), lambda x: np.dstack([x[0, 0], x[1, 0]])],
)
def test_rearrangements_match_numpy(f: Callable[..., Any]) -> None:
    both(f, X)


def test_flips_and_splits_are_views_as_numpy_s() -> None:
    t = donate.asarray(X)
    a, b = np.split(t, 2)
    b[0, 0, 0] = -1.0
    np.fliplr(t)[0, 0, 0] = -2.0
    assert float(t[1, 0, 0]) == -1.0 and float(t[0, 2, 0]) == -2.0


@pytest.mark.parametrize(
    ("call", "error"),
    [(lambda x: np.fliplr(x[0, 0]), ValueError), (lambda x: np.split(x, 3), ValueError),
     (lambda x: np.array_split(x, 0), ValueError), (lambda x: np.vsplit(x[0, 0], 2), ValueError),
     (lambda x: np.rot90(x, 1, (0, 0)), ValueError)],
)
def test_refusals_are_numpy_s(call: Callable[..., Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        call(X)
    with pytest.raises(error):
        call(donate.asarray(X))


values = hnp.arrays(
    st.sampled_from([np.dtype("float64"), np.dtype("int32"), np.dtype("int64")]),
    hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=6),
    elements=st.integers(-4, 4),
)


@settings(max_examples=60, deadline=None)
@given(values, values, st.booleans())
def test_set_functions_match_numpy(a: np.ndarray, b: np.ndarray, nans: bool) -> None:
    if nans and a.dtype.kind == "f" and a.size:
        a = a.copy()
        a.flat[0] = np.nan
    both(lambda x, y: np.isin(x, y), a, b)
    both(lambda x, y: np.isin(x, y, invert=True), a, b)
    both(np.intersect1d, a, b)
    both(np.union1d, a, b)
    both(np.setdiff1d, a, b)
    both(np.setxor1d, a, b)
    assert np.array_equiv(donate.asarray(a), donate.asarray(b)) == np.array_equiv(a, b)


def test_setdiff1d_assume_unique_keeps_the_order_of_ar1() -> None:
    # NumPy ravels ar1 as it is (no sort) when told its values are unique.
    both(lambda x, y: np.setdiff1d(x, y, assume_unique=True),
         np.array([[3, 1], [2, 5]]), np.array([2]))
    both(lambda x, y: np.setdiff1d(x, y, assume_unique=True), np.array([3, 1, 2]), np.array([7]))


def test_isin_of_complex_values_compares_pairwise() -> None:
    both(np.isin, np.array([1 + 1j, 2, 3j]), np.array([3j, 1 + 1j]))


N = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 0.5], [4.0, 4.0, np.nan]])


@pytest.mark.parametrize(
    "f",
    [np.nancumsum, np.nancumprod, lambda x: np.nancumsum(x, axis=1), lambda x: np.nancumprod(x, axis=0),
     np.nanargmax, np.nanargmin, lambda x: np.nanargmax(x, axis=1), lambda x: np.nanargmin(x, axis=0),
     lambda x: np.nanargmax(x, axis=1, keepdims=True)],
)
def test_nan_running_and_arg_functions_match_numpy(f: Callable[..., Any]) -> None:
    both(f, N)
    both(f, np.arange(9).reshape(3, 3))


def test_nanargmax_of_a_slice_of_nans_raises_as_numpy() -> None:
    with pytest.raises(ValueError, match="All-NaN slice"):
        np.nanargmax(donate.asarray(np.array([[1.0, np.nan], [np.nan, np.nan]])), axis=1)


@pytest.mark.parametrize(
    ("shape", "axis", "dtype", "keepdims"),
    [((0,), None, "float64", False), ((0, 3), 0, "float32", False), ((2, 0), 1, "int64", True),
     ((2, 0), None, "float64", False)],
)
def test_median_of_an_empty_slice_is_nan_with_numpy_s_warning(shape: Any, axis: Any, dtype: str, keepdims: bool) -> None:
    x = np.zeros(shape, dtype)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = np.median(donate.asarray(x), axis=axis, keepdims=keepdims)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(got, np.median(x, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["deg2rad", "radians", "rad2deg", "degrees", "exp2"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "bool"])
def test_angle_and_power_of_two_ufuncs_match_numpy(name: str, dtype: str) -> None:
    x = np.array([0, 1, 3, -45, 90, 7]).astype(dtype)
    both(getattr(np, name), x)
    out = donate.zeros(x.shape, dtype=donate.float64)
    getattr(np, name)(donate.asarray(x), out=out)
    np.testing.assert_allclose(np.asarray(out), getattr(np, name)(x.astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize(
    ("a", "b"),
    [(np.array([1.0, np.inf, -np.inf, 5.0, np.nan]), np.array([np.inf, np.inf, np.inf, 5.0, np.nan])),
     (np.array([1e10, 1.0]), np.array([np.inf, -np.inf])),
     (np.array([1, 2, 127], np.int8), np.array([1, 3, 127], np.int8)),
     (np.array([True, False]), np.array([True, True])),
     (np.array([1.0, 2.0], np.float32), np.array([1, 2])),
     (np.array([1 + 1j, np.inf]), np.array([1 + 1j, np.inf + 0j]))],
)
def test_isclose_and_allclose_are_numpy_s(a: np.ndarray, b: np.ndarray) -> None:
    # An infinity is close only to itself: |1 - inf| <= rtol * inf is not
    # enough (NumPy's `& isfinite(y)`).
    for equal_nan in (False, True):
        both(lambda x, y: np.isclose(x, y, equal_nan=equal_nan), a, b)
        assert np.allclose(donate.asarray(a), donate.asarray(b), equal_nan=equal_nan) == np.allclose(a, b, equal_nan=equal_nan)


RNG = np.random.default_rng(0)
A, B, V = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5)), RNG.standard_normal(5)


@pytest.mark.parametrize(
    "call",
    [lambda a, b, v: np.cov(a), lambda a, b, v: np.cov(a, rowvar=False), lambda a, b, v: np.cov(a, b),
     lambda a, b, v: np.cov(v), lambda a, b, v: np.cov(a, bias=True), lambda a, b, v: np.cov(a, ddof=2),
     lambda a, b, v: np.corrcoef(a), lambda a, b, v: np.corrcoef(v, b[0]), lambda a, b, v: np.corrcoef(v),
     lambda a, b, v: np.cov(a + 1j * b), lambda a, b, v: np.corrcoef(a + 1j * b),
     lambda a, b, v: np.kron(a[:2, :2], b[:2, :3]), lambda a, b, v: np.kron(v[:2], a[:2, :2]),
     lambda a, b, v: np.kron(a[:2], 3.0),
     lambda a, b, v: np.linalg.multi_dot([a, b.T, a]), lambda a, b, v: np.linalg.multi_dot([v, a.T, a]),
     lambda a, b, v: np.angle(a + 1j * b), lambda a, b, v: np.angle(v, deg=True)],
)
def test_products_and_covariances_match_numpy(call: Callable[..., Any]) -> None:
    both(call, A, B, V)


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_covariance_and_kron_of_other_dtypes_match_numpy(dtype: str) -> None:
    x = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    both(np.cov, x)
    both(np.kron, x[:2, :2], x[:2])
    both(np.angle, x)


def test_covariance_without_degrees_of_freedom_warns_as_numpy() -> None:
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        got = np.cov(donate.asarray(np.ones((2, 1))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(got, np.cov(np.ones((2, 1))))


PW = np.linspace(-2.5, 2.5, 6)


@pytest.mark.parametrize(
    "f,args",
    [(lambda a, b, c: np.block([[a, b], [c]]), (np.eye(2), np.zeros((2, 3)), np.ones((1, 5)))),
     (lambda a, b: np.block([a, b]), (np.arange(3), np.ones(2))),
     (lambda a, b: np.block([[a], [b]]), (np.arange(3), np.ones(3, np.float32))),
     (lambda a: np.block([[[a, a]], [[a, a]]]), (np.ones((2, 2)),)),
     (lambda a: np.block(a), (np.ones(2),)),
     (lambda x: np.piecewise(x, [x < 0, x >= 0], [-1, 1]), (PW,)),
     (lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v * 2]), (PW,)),
     (lambda x: np.piecewise(x, [x < -1, x > 1], [0, 1, lambda v: v + 10]), (PW,)),
     (lambda x: np.piecewise(x, x > 0, [lambda v: v ** 2, 5]), (PW,)),
     (lambda x: np.piecewise(x, [x > 1], [lambda v: v * 2.5]), (np.arange(4),)),
     (lambda x: np.piecewise(x, [True], [7]), (np.array(3.0),)),
     (np.fix, (np.array([-2.5, -0.5, 0.5, 2.7]),)), (np.fix, (np.array([1, -2]),)),
     (np.fix, (np.array([-1.5], np.float32),))],
    ids=["block 2-d", "block 1-d", "block promotes", "block 3-d", "block of one", "piecewise values",
         "piecewise functions", "piecewise otherwise", "piecewise one condition", "piecewise int",
         "piecewise 0-d", "fix", "fix int", "fix float32"],
)
def test_block_piecewise_and_fix_match_numpy(f: Callable[..., Any], args: tuple[np.ndarray, ...]) -> None:
    want = f(*args)
    got = f(*(donate.asarray(a) for a in args))
    check(got, want)
    np.testing.assert_array_equal(np.signbit(np.asarray(got)), np.signbit(want))  # fix(-0.5) is -0.0


@pytest.mark.parametrize(
    "call",
    [lambda a: np.block([[a], a]), lambda a: np.block((a, a)), lambda a: np.block([[], [a]]),
     lambda a: np.piecewise(a, [a > 1], [1, 2, 3])],
    ids=["block depths", "block tuple", "block empty list", "piecewise too many functions"],
)
def test_block_and_piecewise_refuse_as_numpy(call: Callable[..., Any]) -> None:
    with pytest.raises(Exception) as e:
        call(np.ones(2))
    with pytest.raises(e.type):
        call(donate.asarray(np.ones(2)))


@pytest.mark.parametrize("mode", ["clip", "wrap"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take_with_a_mode_as_numpy(mode: str, axis: Any) -> None:
    """`np.take(mode="clip"|"wrap")` (it raised TypeError)."""
    a = np.arange(12).reshape(3, 4)
    idx = np.array([[-7, 0], [3, 13]], np.int8)
    got = np.take(donate.asarray(a), donate.asarray(idx), axis=axis, mode=mode)
    want = np.take(a, idx, axis=axis, mode=mode)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), want)


def test_take_mode_errors_as_numpy() -> None:
    t = donate.asarray(np.arange(3))
    with pytest.raises(ValueError, match="clipmode"):
        np.take(t, [0], mode="nearest")
    with pytest.raises(IndexError, match="empty"):
        np.take(donate.zeros((0,)), [0], mode="wrap")
    assert np.take(donate.zeros((0,)), np.array([], np.int64), mode="clip").shape == (0,)


@pytest.mark.parametrize("call", [
    lambda t: np.array([0.1], like=t), lambda t: np.array([np.float64(0.1)], like=t),
    lambda t: np.asarray([1, 2.5], like=t), lambda t: np.zeros(2, like=t),
    lambda t: np.ones((2,), like=t), lambda t: np.empty(2, like=t), lambda t: np.eye(2, like=t),
    lambda t: np.identity(2, like=t), lambda t: np.tri(2, like=t), lambda t: np.full(2, 1.5, like=t),
    lambda t: np.full(2, 3, like=t), lambda t: np.arange(3, like=t),
    lambda t: np.arange(0.5, 3, like=t), lambda t: np.array([[1, 2]], like=t, ndmin=3),
    lambda t: np.ones(2, dtype=np.int8, like=t),
])
def test_creation_with_like_takes_numpy_s_dtypes(call: Callable[[Any], Any]) -> None:
    """NEP 35: `like=` a tensor makes a tensor, with the dtype NumPy's own
    function gives (a Python float is float64: it was float32)."""
    got = call(donate.asarray(np.ones(1, np.float32)))
    want = call(np.ones(1, np.float32))
    assert isinstance(got, donate.Tensor)
    assert got.dtype == want.dtype and got.shape == want.shape
    if "empty" not in call.__code__.co_names:
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("call", [
    lambda x: np.flip(x, (0, 0)), lambda x: np.flip(x, 5),
    lambda x: np.repeat(x[0], np.array([[1, 2, 1]])),
])
def test_invalid_arguments_raise_as_numpy_s(call: Callable[[Any], Any]) -> None:
    """A repeated axis of `flip` and a 2-d `repeats` were accepted."""
    a = np.arange(6).reshape(2, 3)
    with pytest.raises(ValueError) as want:
        call(a)
    with pytest.raises(want.type):
        call(donate.asarray(a))

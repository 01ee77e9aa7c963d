"""float32 transcendental functions: within one rounding of the exact value,
and NumPy's answers at the edges of their domains.

donate computes float32 ``sin``, ``expm1``, ``arcsinh`` and the others in
float64 vector code and rounds once; a chunk holding an argument outside a
function's domain (an infinity, NaN, ``-1`` for ``log1p``) takes the C
library. The exact value here is NumPy's float64 function rounded to
float32 (within an ulp of float64, far below half a float32 ulp).
"""

from typing import Any

import numpy as np
import pytest

import donate

WIDE = np.concatenate([
    np.geomspace(1e-38, 3e38, 2000, dtype=np.float32),
    -np.geomspace(1e-38, 3e38, 2000, dtype=np.float32),
])

# (NumPy's name, arguments across the domain, the domain's edges and outside)
CASES: list[tuple[str, Any, list[float]]] = [
    ("expm1", np.linspace(-110, 95, 20001), [0.0, -0.0, 88.72, 88.73, -np.inf, np.inf]),
    ("log1p", np.linspace(-1, 30, 20001), [-1.0, -1.5, -0.0, np.inf, -np.inf]),
    ("log2", np.linspace(0, 40, 20001), [0.0, -0.0, -1.0, 1.0, 2.0, 1024.0, np.inf]),
    ("log10", np.linspace(0, 40, 20001), [0.0, -1.0, 1.0, 10.0, 1000.0, np.inf]),
    ("cbrt", np.linspace(-30, 30, 20001), [0.0, -0.0, 8.0, -27.0, np.inf, -np.inf]),
    ("sinh", np.linspace(-95, 95, 20001), [0.0, -0.0, 89.4, 89.5, np.inf, -np.inf]),
    ("cosh", np.linspace(-95, 95, 20001), [0.0, -0.0, 89.4, 89.5, np.inf, -np.inf]),
    ("arctan", np.linspace(-30, 30, 20001), [0.0, -0.0, 1.0, np.inf, -np.inf]),
    ("arcsin", np.linspace(-1, 1, 20001), [0.0, -0.0, 1.0, -1.0, 1.5, -2.0, np.inf]),
    ("arccos", np.linspace(-1, 1, 20001), [0.0, 1.0, -1.0, 1.5, -2.0, np.inf]),
    ("arcsinh", np.linspace(-30, 30, 20001), [0.0, -0.0, np.inf, -np.inf]),
    ("arccosh", np.linspace(1, 30, 20001), [1.0, 0.5, -1.0, np.inf]),
    ("arctanh", np.linspace(-1, 1, 20001), [0.0, -0.0, 1.0, -1.0, 1.5]),
]


def donate_function(name: str) -> Any:
    """donate's function of NumPy's name (the array API spells the
    inverse functions `asin`, ...)."""
    return getattr(donate, name.replace("arc", "a"))


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance in float32 ulps of two arrays of finite floats."""
    def key(x: np.ndarray) -> np.ndarray:
        i = x.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(2**31) - i, i)
    return np.abs(key(a) - key(b))


@pytest.mark.parametrize("name, sweep, edges", CASES, ids=[c[0] for c in CASES])
def test_within_one_rounding_of_the_exact_value(name: str, sweep: Any,
                                                edges: list[float]) -> None:
    # The edges lie among ordinary arguments, so their chunks (and only
    # theirs) take the C library.
    x = np.concatenate([sweep, WIDE, edges]).astype(np.float32)
    x = np.concatenate([x[: len(x) // 2], np.float32(edges), x[len(x) // 2:]])
    with np.errstate(all="ignore"):
        got = np.asarray(donate_function(name)(donate.asarray(x)))
        want = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    assert got.dtype == np.float32
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan, err_msg=f"{name}: NaN where")
    exact = ~nan & ((want == 0) | np.isinf(want))
    np.testing.assert_array_equal(got[exact].view(np.int32), want[exact].view(np.int32),
                                  err_msg=f"{name}: zeros (with their sign) and infinities")
    rest = ~nan & ~exact
    worst = ulps(got[rest], want[rest]).max()
    assert worst <= 1, f"{name}: {worst} ulps from the exact value"
    # NumPy's own float32 answers at the edges: the same NaN, infinities and
    # zeros (with their sign); finite values within NumPy's own error (its
    # float32 functions are not all correctly rounded: 4 ulps).
    e = np.float32(edges)
    with np.errstate(all="ignore"):
        mine, numpys = np.asarray(donate_function(name)(donate.asarray(e))), getattr(np, name)(e)
    np.testing.assert_array_equal(np.isnan(mine), np.isnan(numpys), err_msg=f"{name} at {edges}")
    special = ~np.isnan(numpys) & ((numpys == 0) | np.isinf(numpys))
    np.testing.assert_array_equal(mine[special].view(np.int32), numpys[special].view(np.int32),
                                  err_msg=f"{name} at {edges}")
    finite = ~np.isnan(numpys) & ~special
    assert (ulps(mine[finite], numpys[finite]) <= 4).all(), f"{name} at {edges}"


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_in_place_writes_the_same_bits(name: str) -> None:
    # NumPy's ufunc with `out=` the input writes into the tensor's buffer.
    x = np.linspace(-0.9, 0.9, 1001).astype(np.float32) + np.float32(name == "arccosh") * 2
    fresh = np.asarray(donate_function(name)(donate.asarray(x))).copy()
    b = donate.asarray(x)
    out = getattr(np, name)(b, out=b)
    assert out is b
    np.testing.assert_array_equal(np.asarray(b).view(np.int32), fresh.view(np.int32))


# exp, tanh and sigmoid are the element-wise unary ops' own float32 code
# (src/kernels/math.rs), in place and into a new buffer.
SUBNORMAL_EXP = np.array([-87.0, -87.4, -88.0, -95.0, -100.0, -103.0, -103.9, -103.97, -104.0, -200.0],
                         np.float32)


@pytest.mark.parametrize("inplace", [False, True], ids=["new", "in_place"])
def test_exp_of_float32_reaches_the_subnormals(inplace: bool) -> None:
    # Below ln(2^-126) the result is subnormal; it rounds to 0 only below
    # ln(2^-150). NumPy's float64 exp rounded to float32 is the reference.
    x = np.concatenate([SUBNORMAL_EXP, np.linspace(-104, -87, 1001, dtype=np.float32)])
    want = np.exp(x.astype(np.float64)).astype(np.float32)
    t = donate.asarray(x.copy())
    if inplace:
        t.exp_()
        got = t.numpy()
    else:
        got = donate.exp(t).numpy()
    assert (got[:8] > 0).all(), got[:8]  # down to -103.97: not flushed to 0
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2 * 1.4e-45)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_tanh_keeps_the_sign_of_zero(dtype: np.dtype) -> None:
    x = np.array([-0.0, 0.0, -1e-30, 1e-30], dtype)
    want = np.tanh(x)
    for got in (donate.tanh(donate.asarray(x)).numpy(), donate.asarray(x.copy()).tanh_().numpy()):
        np.testing.assert_array_equal(got, want)
        assert list(np.signbit(got)) == list(np.signbit(want))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
def test_sigmoid_of_very_negative_numbers_is_their_tiny_value(dtype: np.dtype) -> None:
    # 1 / (1 + e^-x) overflows e^-x to inf and gives 0; the value is e^x
    # to within a rounding, down into the subnormals.
    lows = [-50.0, -87.0, -95.0, -100.0] if dtype == np.float32 else [-100.0, -700.0, -720.0, -740.0]
    x = np.array(lows + [-1.0, 0.0, 1.0, 50.0, -np.inf, np.inf], dtype)
    want = (1 / (1 + np.exp(-x.astype(np.longdouble)))).astype(dtype)
    got = donate.sigmoid(donate.asarray(x)).numpy()
    assert (got[: len(lows)] > 0).all(), got
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-13)

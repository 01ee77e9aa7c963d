"""Common NumPy calls on tensors that NumPy answers and donate used to
refuse (the differential audit's category C), each against NumPy as the
oracle for values, dtype and shape: `where=` and `initial=` of the
reductions and of `ufunc.reduce`, list operands of ufuncs, `np.divmod`,
`np.modf`, `np.fmax`/`np.fmin`, all-bool operands, `np.round(t, d)`,
`np.expand_dims` with a tuple, `np.diff` with scalar `prepend`/`append`,
`np.linalg` on integers, `np.linalg.svd(compute_uv=False)`, and Python
ints outside the dtype's range (`np.where`, `np.clip`, `np.full_like`).
What cannot be built exactly from donate's operations stays a `TypeError`
that names the function."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate


def tensor(x: Any) -> Any:
    return donate.tensor(np.asarray(x))


def check(got: Any, want: Any) -> None:
    """A tensor (or a tuple of them) with NumPy's dtype, shape and values
    (NaNs in the same places; signed zeros compared as NumPy's
    `assert_array_equal` does)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
        return
    assert isinstance(got, donate.Tensor), type(got)
    w = np.asarray(want)
    assert (got.dtype, got.shape) == (w.dtype, w.shape), (got.dtype, got.shape, w.dtype, w.shape)
    np.testing.assert_array_equal(np.asarray(got), w)


def close(got: Any, want: Any) -> None:
    """As `check`, values within rounding (sums in another order, LAPACK)."""
    assert isinstance(got, donate.Tensor), type(got)
    w = np.asarray(want)
    assert (got.dtype, got.shape) == (w.dtype, w.shape), (got.dtype, got.shape, w.dtype, w.shape)
    np.testing.assert_allclose(np.asarray(got), w, rtol=1e-6, atol=1e-9)


def both(f: Callable[[Any], Any], x: Any) -> tuple[Any, Any]:
    """`f` on a tensor of `x` and on `x` (NumPy's warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = f(x)
        got = f(tensor(x))
    return got, want


X = np.array([[1.0, -2.0, 3.5], [4.0, 5.0, -6.25]])
I32 = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
U8 = np.array([[0, 5, 200], [7, 255, 1]], np.uint8)
B = np.array([[True, False, True], [False, False, True]])
MASK = np.array([[True, False, True], [False, True, True]])
ROW = np.array([True, False, True])


# --------------------------------------------------- where= and initial= ---

REDUCTIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("sum where", lambda x: np.sum(x, where=MASK)),
    ("sum where axis 0", lambda x: np.sum(x, axis=0, where=MASK)),
    ("sum where row axis 1 keepdims", lambda x: np.sum(x, axis=1, where=ROW, keepdims=True)),
    ("sum initial", lambda x: np.sum(x, initial=5)),
    ("sum initial where axis 1", lambda x: np.sum(x, axis=1, initial=2, where=MASK)),
    ("sum dtype where", lambda x: np.sum(x, dtype=np.float64, where=MASK)),
    ("prod where", lambda x: np.prod(x, axis=0, where=MASK)),
    ("prod initial", lambda x: np.prod(x, axis=1, initial=3)),
    ("max initial", lambda x: np.max(x, initial=0)),
    ("max initial large", lambda x: np.max(x, axis=0, initial=100)),
    ("max where initial", lambda x: np.max(x, axis=1, where=MASK, initial=-10)),
    ("min where initial", lambda x: np.min(x, where=ROW, initial=50)),
    ("amin initial", lambda x: np.amin(x, axis=(0, 1), initial=-1)),
    ("any where", lambda x: np.any(x, axis=0, where=MASK)),
    ("all where", lambda x: np.all(x, axis=1, where=MASK)),
    ("mean where", lambda x: np.mean(x, where=MASK)),
    ("mean where axis 0", lambda x: np.mean(x, axis=0, where=MASK)),
    ("mean where row keepdims", lambda x: np.mean(x, axis=1, where=ROW, keepdims=True)),
    ("mean where none true", lambda x: np.mean(x, axis=0, where=np.array([False, True, False]))),
    ("mean where int dtype", lambda x: np.mean(x, axis=0, where=MASK, dtype=np.int64)),
    ("method sum where", lambda x: x.sum(axis=0, where=MASK)),
    ("method sum initial", lambda x: x.sum(initial=1)),
    ("method max initial where", lambda x: x.max(axis=0, initial=3, where=MASK)),
    ("method min initial", lambda x: x.min(initial=-100)),
    ("method mean where", lambda x: x.mean(axis=1, where=MASK)),
    ("method any where", lambda x: x.any(where=MASK)),
    ("method all where", lambda x: x.all(axis=0, where=ROW)),
    ("add.reduce initial", lambda x: np.add.reduce(x, initial=5)),
    ("add.reduce where", lambda x: np.add.reduce(x, axis=1, where=MASK)),
    ("add.reduce where axis None", lambda x: np.add.reduce(x, axis=None, where=ROW)),
    ("multiply.reduce where", lambda x: np.multiply.reduce(x, where=MASK)),
    ("maximum.reduce initial", lambda x: np.maximum.reduce(x, axis=1, initial=4)),
    ("minimum.reduce where initial", lambda x: np.minimum.reduce(x, where=MASK, initial=9)),
    ("logical_and.reduce where", lambda x: np.logical_and.reduce(x, where=MASK)),
    ("logical_or.reduce initial", lambda x: np.logical_or.reduce(x, axis=1, initial=True)),
    ("logical_and.reduce initial", lambda x: np.logical_and.reduce(x, axis=1, initial=False)),
]


@pytest.mark.parametrize("x", [X, I32, U8, B, X.astype(np.float32)],
                         ids=["float64", "int32", "uint8", "bool", "float32"])
@pytest.mark.parametrize("f", [r[1] for r in REDUCTIONS], ids=[r[0] for r in REDUCTIONS])
def test_reductions_with_where_and_initial(f: Callable[[Any], Any], x: np.ndarray) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = f(x)
    except (TypeError, ValueError, OverflowError) as e:
        with pytest.raises(type(e)):
            f(tensor(x))
        return
    got, _ = both(f, x)
    (check if x.dtype != np.float32 else close)(got, want)


def test_reductions_with_where_and_initial_out() -> None:
    out = donate.tensor(np.zeros(3))
    want = np.sum(X, axis=0, where=MASK, initial=1.5, out=np.zeros(3))
    assert np.sum(tensor(X), axis=0, where=MASK, initial=1.5, out=out) is out
    check(out, want)


@pytest.mark.parametrize("f", [
    lambda x: np.max(x, where=MASK),
    lambda x: np.min(x, axis=0, where=MASK),
    lambda x: np.maximum.reduce(x, where=MASK),
], ids=["max", "min", "maximum.reduce"])
def test_max_and_min_with_where_need_initial(f: Callable[[Any], Any]) -> None:
    with pytest.raises(ValueError, match="initial"):
        f(X)
    with pytest.raises(ValueError, match="initial"):
        f(tensor(X))


@pytest.mark.parametrize("f", [
    lambda x: np.max(x, initial=-1),
    lambda x: np.max(x, initial=300),
    lambda x: np.sum(x, initial=-1),
    lambda x: np.min(x, initial=2.7),
    lambda x: np.sum(x, initial=2.5),
    lambda x: np.max(x, axis=0, where=MASK, initial=2.9),
], ids=["max -1", "max 300", "sum -1", "min 2.7", "sum 2.5", "max where 2.9"])
def test_initial_converts_as_numpys(f: Callable[[Any], Any]) -> None:
    """`initial=` becomes the result's dtype as NumPy converts it: an
    OverflowError out of range, a float truncated."""
    try:
        want = f(U8)
    except OverflowError:
        with pytest.raises(OverflowError):
            f(tensor(U8))
        return
    check(f(tensor(U8)), want)


def test_empty_reductions_with_initial() -> None:
    e = np.zeros((0, 3))
    for f in (lambda x: np.max(x, axis=0, initial=2.0), lambda x: np.min(x, initial=-1.0),
              lambda x: np.sum(x, axis=1, initial=4.0), lambda x: np.prod(x, axis=0, initial=3.0)):
        got, want = both(f, e)
        check(got, want)


def test_where_broadcasts_into_the_operand_only() -> None:
    f = lambda x: np.sum(x, where=np.ones((2, 3), bool))  # noqa: E731
    with pytest.raises(ValueError):
        f(np.ones(3))
    with pytest.raises(ValueError):
        f(tensor(np.ones(3)))


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
               elements=st.integers(-50, 50).map(float)),
    st.data(),
)
def test_masked_reductions_match_numpy(x: np.ndarray, data: Any) -> None:
    m = data.draw(hnp.arrays(np.bool_, x.shape))
    axis = data.draw(st.sampled_from([None, *range(x.ndim)]))
    init = data.draw(st.integers(-60, 60))
    for f in (
        lambda y: np.sum(y, axis=axis, where=m),
        lambda y: np.prod(np.sign(y) if isinstance(y, np.ndarray) else np.sign(y), axis=axis, where=m),
        lambda y: np.max(y, axis=axis, where=m, initial=init),
        lambda y: np.min(y, axis=axis, where=m, initial=init),
        lambda y: np.mean(y, axis=axis, where=m),
        lambda y: np.any(y, axis=axis, where=m),
        lambda y: np.all(y, axis=axis, where=m),
    ):
        got, want = both(f, x)
        check(got, want)


def test_a_donated_operand_survives_a_failing_masked_reduction() -> None:
    t = tensor(X)
    with pytest.raises(ValueError):
        np.sum(t.donate(), where=np.ones((4, 3), bool))
    assert not t.is_donated
    np.testing.assert_array_equal(np.asarray(t), X)
    with pytest.raises(ValueError):
        np.max(t.donate(), where=MASK)
    assert not t.is_donated


# ------------------------------------------------------- list operands ---

@pytest.mark.parametrize("x", [X[0], I32[0], U8[0], X[0].astype(np.float32)],
                         ids=["float64", "int32", "uint8", "float32"])
@pytest.mark.parametrize("f", [
    lambda x: np.add(x, [1, 2, 3]),
    lambda x: np.add(x, [0.1, 0.2, 0.3]),
    lambda x: np.multiply([0.5, 2.0, -1.0], x),
    lambda x: np.maximum(x, [1, 2, 3]),
    lambda x: np.subtract(x, (1.5, 2, 3)),
    lambda x: np.greater(x, [1, 2, 3]),
    lambda x: np.add(x, [[1], [2]]),
], ids=["int list", "float list", "list first", "maximum", "tuple", "greater", "nested"])
def test_ufuncs_take_python_lists(f: Callable[[Any], Any], x: np.ndarray) -> None:
    got, want = both(f, x)
    check(got, want)


# ------------------------------------------------ divmod, modf, fmax, fmin ---

FLOATS = np.array([-7.5, -3.0, -0.5, -0.0, 0.0, 0.25, 2.0, 7.75, 1e300, np.inf, -np.inf, np.nan])
INTS = np.array([-7, -3, -1, 0, 1, 2, 5, 100], np.int32)


@pytest.mark.parametrize("x", [FLOATS, FLOATS.astype(np.float32), INTS, INTS.astype(np.uint8)],
                         ids=["float64", "float32", "int32", "uint8"])
def test_modf(x: np.ndarray) -> None:
    got, want = both(np.modf, x)
    if x.dtype == np.uint8:  # NumPy's float16 is donate's float32
        want = tuple(w.astype(np.float32) for w in want)
    check(got, want)
    # The signs of zeros too (C's modf).
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.signbit(np.asarray(g)), np.signbit(w))


@pytest.mark.parametrize("y", [2, -3, 2.5, np.array([3, -2, 1, 4, -5, 7, 2, 3], np.int32)],
                         ids=["2", "-3", "2.5", "array"])
@pytest.mark.parametrize("x", [INTS, INTS.astype(np.float64), INTS.astype(np.float32)],
                         ids=["int32", "float64", "float32"])
def test_divmod(x: np.ndarray, y: Any) -> None:
    got, want = both(lambda a: np.divmod(a, y), x)
    check(got, want)


def test_divmod_out() -> None:
    q, r = donate.tensor(np.zeros(8, np.int32)), donate.tensor(np.zeros(8, np.int32))
    res = np.divmod(tensor(INTS), 3, out=(q, r))
    assert res[0] is q and res[1] is r
    check(q, INTS // 3)
    check(r, INTS % 3)


NANS = np.array([1.0, np.nan, np.nan, -2.0, 3.0, -np.inf])
NANS2 = np.array([np.nan, 2.0, np.nan, -5.0, np.inf, np.nan])


@pytest.mark.parametrize("f", [np.fmax, np.fmin], ids=["fmax", "fmin"])
@pytest.mark.parametrize("y", [NANS2, NANS2.astype(np.float32), 0.5, np.nan, [1, 2, 3, 4, 5, 6]],
                         ids=["float64", "float32", "0.5", "nan", "list"])
@pytest.mark.parametrize("x", [NANS, NANS.astype(np.float32), INTS[:6]], ids=["float64", "float32", "int32"])
def test_fmax_fmin(f: Any, x: np.ndarray, y: Any) -> None:
    yy = tensor(y) if isinstance(y, np.ndarray) else y
    want = f(x, y)
    check(f(tensor(x), yy), want)
    check(f(yy, tensor(x)), f(y, x))


def test_fmax_where_out() -> None:
    out = donate.tensor(np.full(6, 9.0))
    np.fmax(tensor(NANS), tensor(NANS2), out=out, where=np.array([1, 1, 0, 1, 0, 1], bool))
    want = np.full(6, 9.0)
    np.fmax(NANS, NANS2, out=want, where=np.array([1, 1, 0, 1, 0, 1], bool))
    check(out, want)


BOOL_CALLS: list[tuple[str, Callable[[Any], Any]]] = [
    ("square", np.square), ("abs", np.abs), ("absolute", np.absolute), ("floor", np.floor),
    ("ceil", np.ceil), ("trunc", np.trunc), ("power", lambda b: np.power(b, b[::-1])),
    ("floor_divide", lambda b: np.floor_divide(b, b[::-1])),
    ("remainder", lambda b: np.remainder(b, b[::-1])), ("divmod", lambda b: np.divmod(b, b[::-1])),
    ("fmax", lambda b: np.fmax(b, b[::-1])), ("fmin", lambda b: np.fmin(b, b[::-1])),
    ("left_shift", lambda b: np.left_shift(b, b[::-1])), ("conj", np.conjugate),
]


@pytest.mark.parametrize("f", [c[1] for c in BOOL_CALLS], ids=[c[0] for c in BOOL_CALLS])
def test_bool_operands_as_numpy(f: Callable[[Any], Any]) -> None:
    b = np.array([True, False, True, True])
    got, want = both(f, b)
    check(got, want)


def test_bool_float16_loops_give_float32() -> None:
    """NumPy computes `rint`/`fabs` of bools in float16; donate makes float16
    only of float16, so these are float32 (docs/array-api.md)."""
    b = np.array([True, False])
    for f in (np.rint, np.fabs):
        got, want = both(f, b)
        check(got, want.astype(np.float32))


# -------------------------------------------------------------- round ---

def _round_values(dtype: Any) -> np.ndarray:
    rng = np.random.default_rng(0)
    v = np.concatenate([
        rng.uniform(-1000, 1000, 2000), rng.uniform(-1, 1, 2000),
        np.arange(-300, 300) / 200 + 0.005, np.arange(-300, 300) / 20 + 0.05,
        [0.5, 1.5, 2.5, -0.5, 0.125, 0.375, 1e30, -1e30, 0.0, -0.0, np.inf, -np.inf, np.nan],
    ])
    return v.astype(dtype)


@pytest.mark.parametrize("decimals", [-3, -1, 1, 2, 3, 5, 10, 20, 25])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_round_decimals_matches_numpys_values(dtype: Any, decimals: int) -> None:
    x = _round_values(dtype)
    got, want = both(lambda a: np.round(a, decimals), x)
    check(got, want)
    check(tensor(x).round(decimals), want)
    check(np.around(tensor(x), decimals=decimals), want)


@pytest.mark.parametrize("decimals", [-3, -2, -1, 0, 1, 2])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32, np.int32, np.int64,
                                   np.uint64])
def test_round_integers(dtype: Any, decimals: int) -> None:
    info = np.iinfo(dtype)
    # The narrow integers wrap when rounding leaves their range (NumPy's
    # cast, through int32), so their limits are in. Rounding beyond the
    # int32 and 64-bit limits is a platform's float -> int conversion in
    # NumPy (x86 gives the minimum), so those limits are left out.
    if info.bits < 32 or dtype == np.uint32:
        lo, hi = int(info.min), int(info.max)
    else:
        lo, hi = max(int(info.min), -2**30), min(int(info.max), 2**30)
    values = {lo, lo + 1, 0, 1, 5, 15, 25, 35, 45, 55, 99, 101, 125, 127, 250, 255, 1500, 2500,
              hi - 1, hi, *np.linspace(lo, hi, 50).astype(np.int64).tolist()}
    x = np.array(sorted(v for v in values if lo <= v <= hi), dtype=dtype)
    got, want = both(lambda a: np.round(a, decimals), x)
    check(got, want)


@pytest.mark.parametrize("decimals", [400, -400, 2**31 - 1, 2**31, 2**62, -(2**31) - 1])
def test_round_huge_decimals(decimals: int) -> None:
    """NumPy's `decimals` is a C int (OverflowError beyond), its 10**d
    overflows to inf (NaN, or the int64 cast of NaN's)."""
    x = np.array([1.5, -2.0, 0.0])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.round(x, decimals)
    except OverflowError:
        with pytest.raises(OverflowError):
            np.round(tensor(x), decimals)
        return
    check(np.round(tensor(x), decimals), want)


def test_round_out_and_bool() -> None:
    out = donate.tensor(np.zeros(3))
    assert np.round(tensor(np.array([1.25, 2.35, -0.15])), 1, out=out) is out
    check(out, np.round(np.array([1.25, 2.35, -0.15]), 1))
    with pytest.raises(TypeError):
        np.round(np.array([True]), 1)
    with pytest.raises(TypeError):
        np.round(tensor(np.array([True])), 1)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float32, np.float64]), st.integers(1, 20),
                  elements={"allow_nan": False, "allow_infinity": False, "min_value": -1e6,
                            "max_value": 1e6}),
       st.integers(-4, 8))
def test_round_hypothesis(x: np.ndarray, decimals: int) -> None:
    got, want = both(lambda a: np.round(a, decimals), x)
    check(got, want)


# ---------------------------------------------- expand_dims, diff, shapes ---

@pytest.mark.parametrize("axis", [(0, -1), (0, 1), (-1, -2), (1, 3), (0,), 2, (0, 2, 4), np.int64(1), (np.int32(0), -1)])
def test_expand_dims_with_a_tuple(axis: Any) -> None:
    got, want = both(lambda a: np.expand_dims(a, axis), X)
    check(got, want)


@pytest.mark.parametrize("axis", [(0, 0), (0, 5), 4])
def test_expand_dims_bad_axes_raise_as_numpy(axis: Any) -> None:
    with pytest.raises(Exception) as e:
        np.expand_dims(X, axis)
    with pytest.raises(type(e.value)):
        np.expand_dims(tensor(X), axis)


@pytest.mark.parametrize("kw", [
    {"prepend": 0}, {"append": 300}, {"prepend": -1, "append": 2}, {"prepend": 0.1},
    {"append": 2.5, "n": 2}, {"prepend": [[1], [2]]}, {"prepend": 0, "axis": 0},
    {"append": np.array([[9.0, 8.0, 7.0]]), "axis": 0}, {"prepend": np.int8(3)},
    {"prepend": True},
], ids=lambda kw: ",".join(f"{k}={v!r}".replace("\n", "") for k, v in kw.items()))
@pytest.mark.parametrize("x", [X, I32, U8, B, X.astype(np.float32)],
                         ids=["float64", "int32", "uint8", "bool", "float32"])
def test_diff_prepend_append(x: np.ndarray, kw: dict[str, Any]) -> None:
    try:
        want = np.diff(x, **kw)
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)):
            np.diff(tensor(x), **kw)
        return
    check(np.diff(tensor(x), **kw), want)


# -------------------------------------------------------------- linalg ---

A = np.array([[4, 1, 2], [1, 5, 3], [2, 3, 6]])


@pytest.mark.parametrize("f", [
    np.linalg.norm, lambda a: np.linalg.norm(a, axis=0), lambda a: np.linalg.norm(a, ord=1),
    lambda a: np.linalg.norm(a, "fro"), np.linalg.det, np.linalg.inv,
    lambda a: np.linalg.solve(a, np.array([1, 2, 3])), lambda a: np.linalg.solve(a, a.astype(np.float32)),
    np.linalg.cholesky, np.linalg.eigvalsh, np.linalg.pinv, np.linalg.matrix_rank,
    np.linalg.svdvals, np.linalg.vector_norm, np.linalg.matrix_norm,
    lambda a: np.linalg.slogdet(a).logabsdet, lambda a: np.linalg.eigh(a).eigenvalues,
    lambda a: np.linalg.svd(a, compute_uv=False), lambda a: np.abs(np.linalg.qr(a).R),  # R's signs: the library's
    lambda a: np.linalg.matrix_power(a, 2), np.linalg.trace,
], ids=["norm", "norm axis", "norm ord 1", "norm fro", "det", "inv", "solve", "solve float32",
        "cholesky", "eigvalsh", "pinv", "matrix_rank", "svdvals", "vector_norm", "matrix_norm",
        "slogdet", "eigh", "svd compute_uv", "qr", "matrix_power", "trace"])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.float32, np.float64])
def test_linalg_casts_integers_to_float64(f: Callable[[Any], Any], dtype: Any) -> None:
    a = A.astype(dtype)
    got, want = both(f, a)
    w = np.asarray(want)
    assert isinstance(got, donate.Tensor)
    assert (got.dtype, got.shape) == (w.dtype, w.shape)
    g = np.asarray(got)
    atol = 1e-5 if w.dtype == np.float32 else 1e-9
    np.testing.assert_allclose(g, w, rtol=1e-5, atol=atol)


def test_svd_compute_uv_false_keywords() -> None:
    a = np.array([[3.0, 1.0], [1.0, 3.0], [0.0, 2.0]])
    close(np.linalg.svd(tensor(a), full_matrices=False, compute_uv=False),
          np.linalg.svd(a, compute_uv=False))
    u, s, vh = np.linalg.svd(tensor(a), full_matrices=False)
    close(s, np.linalg.svd(a, compute_uv=False))


# --------------------------------------------- Python ints out of range ---

M3 = np.array([True, False, True])
U3 = np.array([0, 5, 200], np.uint8)


@pytest.mark.parametrize("f", [
    lambda m, u: np.where(m, u, -1),
    lambda m, u: np.where(m, u, 300),
    lambda m, u: np.where(m, -1, u),
    lambda m, u: np.where(m, u, 2**63),
    lambda m, u: np.where(m, u, 2**70),
    lambda m, u: np.where(m, u, 300.5),
    lambda m, u: np.where(m, u.astype(np.int8), 200),
    lambda m, u: np.where(m, u.astype(bool), 5),
    lambda m, u: np.where(m, u, 7),
    lambda m, u: np.clip(u, -1, 3),
    lambda m, u: np.clip(u, -1, 300),
    lambda m, u: np.clip(u.astype(np.int8), -200, 100),
    lambda m, u: np.full_like(m, 5),
    lambda m, u: np.full_like(m, 0.5),
    lambda m, u: np.full_like(u, -1),
    lambda m, u: np.full_like(u, 300),
    lambda m, u: np.full_like(u, 2**70),
    lambda m, u: np.full_like(u, 2.7),
    lambda m, u: np.full_like(u, 300, dtype=np.int8),
    lambda m, u: np.full_like(u, 300, dtype=np.int16),
    lambda m, u: np.full_like(u, np.array([-1, 300, 4])),
    lambda m, u: np.full_like(u, 1.5, shape=(2, 2)),
], ids=["where -1", "where 300", "where -1 first", "where 2**63", "where 2**70", "where 300.5",
        "where int8 200", "where bool 5", "where 7", "clip -1 3", "clip -1 300", "clip int8",
        "full_like bool 5", "full_like bool 0.5", "full_like -1", "full_like 300",
        "full_like 2**70", "full_like 2.7", "full_like dtype int8", "full_like dtype int16",
        "full_like array", "full_like shape"])
def test_python_ints_out_of_range_as_numpy(f: Callable[[Any, Any], Any]) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = f(M3, U3)
    except OverflowError as e:
        with pytest.raises(type(e)):
            f(tensor(M3), tensor(U3))
        return
    check(f(tensor(M3), tensor(U3)), want)


# ------------------------------------------------------- still refused ---

@pytest.mark.parametrize("call,name", [
    (lambda t: np.add.reduceat(t, [0, 1]), "reduceat"),
    (lambda t: np.std(t, where=MASK[0]), "std"),
    (lambda t: np.linalg.qr(t, mode="raw"), "qr"),
], ids=["add.reduceat", "std where", "qr raw"])
def test_what_cannot_be_exact_still_raises_naming_it(call: Callable[[Any], Any], name: str) -> None:
    with pytest.raises(TypeError, match=name):
        call(tensor(X))


# ------------------------------------- Python floats are NumPy's float64 ---

Z3 = np.zeros(3)
MASK3 = np.array([True, False, True])


def _in_place(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def run(x: Any) -> Any:
        f(x)
        return x
    return run


@pytest.mark.parametrize("call", [
    lambda x: np.select([MASK3], [x], default=0.1),
    lambda x: np.append(x, 0.1),
    lambda x: np.interp(np.array([5.0, -5.0]), np.array([0.0, 1.0]), x[:2], left=0.3, right=0.1),
    lambda x: np.choose(np.array([1, 0, 1]), [x, 0.1]),
    lambda x: np.heaviside(x, 0.1),
    lambda x: np.insert(x, 1, 0.1),
    _in_place(lambda x: np.put(x, [0], 0.1)),
    _in_place(lambda x: np.putmask(x, MASK3, 0.1)),
    _in_place(lambda x: np.place(x, MASK3, [0.1, 0.7])),
    _in_place(lambda x: np.copyto(x, 0.1)),
    _in_place(lambda x: np.add.at(x, [0, 0, 2], 0.1)),
    _in_place(lambda x: np.fill_diagonal(x.reshape(1, 3), 0.1)),
], ids=["select", "append", "interp", "choose", "heaviside", "insert", "put", "putmask", "place",
        "copyto", "add.at", "fill_diagonal"])
def test_a_python_float_is_float64_as_numpy_s_asarray(call: Callable[[Any], Any]) -> None:
    """A Python float operand is NumPy's float64 (`np.asarray(0.1)`), never
    first rounded to float32 (donate's default float): 0.1 stays 0.1 in
    a float64 result, to the bit."""
    want = call(Z3.copy())
    got = call(tensor(Z3.copy()))
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


def test_astype_takes_numpys_signature():
    # SciPy's compatibility layer calls `x.astype(dtype=dtype, copy=copy)`:
    # a TypeError (positional-only) broke `least_squares(method="lm")`.
    a = np.array([1.5, -2.5, 3.0])
    t = donate.asarray(a)
    got = t.astype(dtype=np.float32, copy=False)
    assert got.dtype == donate.float32
    np.testing.assert_array_equal(np.asarray(got), a.astype(np.float32))
    assert t.astype(np.float64, copy=False) is t
    for casting in ("unsafe", "same_kind", "safe", "equiv", "no"):
        for to in (np.int64, np.float32, np.float64):
            try:
                want: Any = a.astype(to, casting=casting)
            except TypeError:
                with pytest.raises(TypeError, match="Cannot cast"):
                    t.astype(to, casting=casting)
                continue
            np.testing.assert_array_equal(np.asarray(t.astype(to, casting=casting)), want)
    np.testing.assert_array_equal(np.asarray(t.astype(np.int8, "C", "unsafe", True, True)),
                                  a.astype(np.int8, "C", "unsafe", True, True))
    with pytest.raises(ValueError, match="order"):
        t.astype(np.float32, order="F")
    scipy_optimize = pytest.importorskip("scipy.optimize")
    r = scipy_optimize.least_squares(lambda z: z - 1, donate.zeros(3, dtype=donate.float64), method="lm")
    np.testing.assert_allclose(np.asarray(r.x), 1.0)


@pytest.mark.parametrize("shapes,axis", [(((3, 4), (3, 4)), 0), (((3, 4), (3, 4)), -2),
                                         (((2, 3, 4), (4, 3)), 1), (((4, 3), (4, 1)), 0)])
def test_numpys_vecdot_with_axis(shapes, axis):
    # `np.vecdot(t, u, axis=)` was refused (scipy's weighted gaussian_kde).
    rng = np.random.default_rng(0)
    x, y = (rng.normal(size=s) for s in shapes)
    want = np.vecdot(x, y, axis=axis)
    got = np.vecdot(donate.asarray(x), donate.asarray(y), axis=axis)
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)


def test_the_conj_method_of_bools_is_bool_as_numpys():
    b = np.array([True, False])
    got = donate.asarray(b).conj()
    assert got.dtype == donate.bool
    np.testing.assert_array_equal(np.asarray(got), b.conj())
    np.testing.assert_array_equal(np.asarray(donate.asarray(b).conjugate()), b.conjugate())


def _tensors(args: tuple[Any, ...]) -> list[Any]:
    return [donate.asarray(a) if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("name,args", [
    ("matvec", (np.arange(3.0), np.arange(3.0))), ("vecmat", (np.ones((3, 4)), np.arange(4.0))),
    ("vecmat", (np.ones(3), np.ones(3))),
])
def test_matvec_and_vecmat_check_core_dimensions_as_numpy(name, args):
    # A vector in a matrix's place gave a made-up answer (5.0; shape (1,)).
    with pytest.raises(ValueError):
        getattr(np, name)(*args)
    with pytest.raises(ValueError):
        getattr(np, name)(*_tensors(args))


@pytest.mark.parametrize("p,q", [([0.0, 1.0, 2.0], [1.0, 1.0]), ([0.0, 0.0], [3.0]), ([0, 0, 2], [0, 1, 5]),
                                 ([True, False, True, False, False, False], [False, True, True])])
def test_polymul_trims_leading_zeros_as_numpys_poly1d(p, q):
    want = np.polymul(np.array(p), np.array(q))
    got = np.polymul(donate.asarray(np.array(p)), donate.asarray(np.array(q)))
    assert got.shape == want.shape and np.dtype(str(got.dtype)) == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("fn,args,kw", [
    ("logspace", (np.array(1, np.float32), np.array(2, np.float32)), {}),
    ("logspace", (np.array(1, np.float32), np.array(2, np.float32)), {"base": np.float64(2)}),
    ("logspace", (np.array([1, 2], np.float32), 3), {"base": np.array([2.0, 10.0], np.float32)}),
    ("logspace", (0, 2), {"base": 2, "dtype": np.int64}),
    ("geomspace", (np.array(1.5, np.float32), np.array(4, np.float32)), {}),
    ("geomspace", (np.array(1.5, np.float32), np.array(4, np.float32)), {"dtype": np.float32}),
    ("geomspace", (-1, -1000), {}),
])
def test_log_and_geometric_ranges_have_numpys_dtype(fn, args, kw):
    # A default `base=10.0` was made a float64 operand (float32 ends gave
    # float64); geomspace left out NumPy's `zeros((), dtype)` (float32).
    want = getattr(np, fn)(*args, 4, **kw)
    got = getattr(np, fn)(*_tensors(args), 4, **{k: donate.asarray(v) if isinstance(v, np.ndarray) else v
                                               for k, v in kw.items()})
    assert np.dtype(str(got.dtype)) == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_a_python_number_among_joined_arrays_is_weak():
    x = np.array([1.5, 4.0], np.float32)
    for f in (lambda m, a: m.concatenate([a, 2], axis=None), lambda m, a: m.union1d(a, 2),
              lambda m, a: m.concatenate([a, 2.5, True], axis=None)):
        got, want = f(np, donate.asarray(x)), f(np, x)
        assert np.dtype(str(got.dtype)) == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)
    with pytest.raises(OverflowError):  # (NumPy's cast wraps 300 to 44: refused, not wrapped)
        np.concatenate([donate.asarray(np.array([1], np.int8)), 300], axis=None)


@pytest.mark.parametrize("f", [np.split, np.array_split])
@pytest.mark.parametrize("idx", [np.array([1, 3]), "tensor", [1, 3], 5, np.int64(5)])
def test_split_points_given_as_an_array(f, idx):
    # An array of split points was read as a number of sections.
    a = np.arange(5.0)
    ours = donate.asarray(np.array([1, 3])) if isinstance(idx, str) else idx
    theirs = np.array([1, 3]) if isinstance(idx, str) else idx
    got, want = f(donate.asarray(a), ours), f(a, theirs)
    assert [np.asarray(g).tolist() for g in got] == [w.tolist() for w in want]


def test_an_unsigned_diagonal_offset_does_not_wrap():
    v = np.array([3], np.uint8)
    for f in (np.diag, np.diagflat):
        np.testing.assert_array_equal(np.asarray(f(donate.asarray(v), np.uint8(1))), f(v, np.uint8(1)))


def test_an_output_that_is_not_an_array_is_numpys_type_error():
    t = donate.asarray([1.0, 2.0])
    for o in (2, [1.0, 2.0]):
        with pytest.raises(TypeError, match="ArrayType"):
            np.sin(t, o)


@pytest.mark.parametrize("x", [np.array([1, -2], np.int8), np.array([1, -2]), np.array([True, False]),
                               np.array([1.0, -2.0], np.float32), np.array([1.0, -0.0]),
                               np.array([1, 2], np.uint16), np.array([1 + 1j, -1j])])
def test_angle_dtypes(x):
    # int8 gave float64 (a strong 0.0 beside it); NumPy's float16 loop is
    # donate's float32.
    got, want = np.angle(donate.asarray(x)), np.angle(x)
    expect = np.float32 if want.dtype == np.float16 else want.dtype
    assert np.dtype(str(got.dtype)) == expect
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3)

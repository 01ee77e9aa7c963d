"""The statistical functions (`sum`, `prod`, `mean`, `max`, `min`, `var`,
`std`, `cumulative_sum`, `cumulative_prod`), `diff`, `argmax`, `argmin`
and `count_nonzero` against NumPy: every dtype, axis tuples, keepdims,
NaN and empty arrays, views as inputs. Exact for integers and bools,
within a tolerance for float sums (donate sums float32 in float64).

Each result but the running ones is a new tensor: the input is
unchanged, an explicitly donated input is refused with a
`DonationWarning` and stays intact. `cumulative_sum` and
`cumulative_prod` write over a temporary or donated input of the
result's shape and dtype (tests/test_lane_ops.py)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from array_strategies import DTYPES, FLOATS, NUMERIC, arrays, assert_same, axes, numpy_of, tensors
from hypothesis import given
from hypothesis import strategies as st

import donate

RTOL = {np.dtype("float32"): 2e-5, np.dtype("float64"): 1e-11}


def rtol(d: np.dtype) -> float:
    return RTOL.get(np.dtype(d), 0.0)


def default_accumulation(d: np.dtype) -> np.dtype:
    """NumPy's (and the standard's) dtype of a sum or product."""
    if d.kind == "u":
        return np.dtype("uint64")
    if d.kind in "bi":
        return np.dtype("int64")
    return d


def call_quietly(f: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f()


@given(data=st.data())
def test_sum_and_prod_match_numpy(data: st.DataObject) -> None:
    x = data.draw(arrays())
    t = data.draw(tensors(x))
    axis = data.draw(axes(x.ndim))
    keepdims = data.draw(st.booleans())
    wider = [d for d in NUMERIC if np.can_cast(x.dtype, d)]
    dtype = data.draw(st.sampled_from([None, *wider]))
    for name in ("sum", "prod"):
        got = getattr(donate, name)(t, axis=axis, dtype=dtype, keepdims=keepdims)
        want_dtype = np.dtype(dtype) if dtype is not None else default_accumulation(x.dtype)
        want = call_quietly(lambda: getattr(np, name)(x, axis=axis, dtype=want_dtype, keepdims=keepdims))
        assert_same(got, np.asarray(want, dtype=want_dtype), rtol(want_dtype))
    np.testing.assert_array_equal(numpy_of(t), x)


@given(data=st.data())
def test_max_and_min_match_numpy_and_refuse_empty_reductions(data: st.DataObject) -> None:
    x = data.draw(arrays())
    t = data.draw(tensors(x))
    axis = data.draw(axes(x.ndim))
    keepdims = data.draw(st.booleans())
    for name in ("max", "min"):
        try:
            want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
        except ValueError:
            with pytest.raises(ValueError, match="zero-size"):
                getattr(donate, name)(t, axis=axis, keepdims=keepdims)
            continue
        assert_same(getattr(donate, name)(t, axis=axis, keepdims=keepdims), np.asarray(want, x.dtype))
    np.testing.assert_array_equal(numpy_of(t), x)


@given(data=st.data())
def test_mean_var_std_match_numpy(data: st.DataObject) -> None:
    x = data.draw(arrays(FLOATS))
    t = data.draw(tensors(x))
    axis = data.draw(axes(x.ndim))
    keepdims = data.draw(st.booleans())
    correction = data.draw(st.sampled_from([0, 1, 0.5, 2.0]))
    n = x.size // max(1, np.prod(np.sum(x, axis=axis, keepdims=True).shape, dtype=int))
    tol = rtol(x.dtype) * 10
    assert_same(donate.mean(t, axis=axis, keepdims=keepdims), call_quietly(lambda: np.mean(x, axis=axis, keepdims=keepdims)), tol)
    for name in ("var", "std"):
        got = getattr(donate, name)(t, axis=axis, correction=correction, keepdims=keepdims)
        if n - correction <= 0:
            # The standard: NaN (NumPy gives inf or NaN and warns).
            assert got.dtype == x.dtype
            assert np.isnan(numpy_of(got)).all()
            continue
        want = call_quietly(lambda: getattr(np, name)(x, axis=axis, ddof=correction, keepdims=keepdims))
        # Squared deviations of ±3 values: compare on the data's scale.
        g = numpy_of(got)
        assert g.shape == np.shape(want) and got.dtype == x.dtype
        np.testing.assert_allclose(g, want, rtol=tol, atol=tol * 10, equal_nan=True)


@given(data=st.data())
def test_mean_in_a_dtype_is_numpys(data: st.DataObject) -> None:
    # NumPy's `mean(dtype=)`: computed in `dtype` (an integer dtype
    # truncates), planned alike with one axis, several or all.
    x = data.draw(arrays())
    t = data.draw(tensors(x))
    axis = data.draw(axes(x.ndim))
    keepdims = data.draw(st.booleans())
    dtype = data.draw(st.sampled_from(["float32", "float64", "int64"]))
    if dtype == "int64" and x.size == 0:
        dtype = "float64"  # the NaN mean of nothing has no integer value (NumPy's is the cast's garbage)
    got = donate.mean(t, axis=axis, dtype=getattr(donate, dtype), keepdims=keepdims)
    want = call_quietly(lambda: np.mean(x, axis=axis, dtype=dtype, keepdims=keepdims))
    assert got.dtype == np.dtype(dtype)
    assert_same(got, np.asarray(want, dtype), rtol(np.dtype(dtype)) * 10)
    np.testing.assert_array_equal(numpy_of(t), x)


@given(data=st.data())
def test_cumulative_sum_and_prod_match_numpy(data: st.DataObject) -> None:
    x = data.draw(arrays(min_dims=1))
    t = data.draw(tensors(x))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1) | (st.none() if x.ndim == 1 else st.nothing()))
    wider = [d for d in NUMERIC if np.can_cast(x.dtype, d)]
    dtype = data.draw(st.sampled_from([None, *wider]))
    include_initial = data.draw(st.booleans())
    for name in ("cumulative_sum", "cumulative_prod"):
        got = getattr(donate, name)(t, axis=axis, dtype=dtype, include_initial=include_initial)
        want_dtype = np.dtype(dtype) if dtype is not None else default_accumulation(x.dtype)
        want = call_quietly(
            lambda: getattr(np, name)(x, axis=axis, dtype=want_dtype, include_initial=include_initial)
        )
        # Both run one element after another in the result dtype: exact.
        assert_same(got, want)
    np.testing.assert_array_equal(numpy_of(t), x)


def _zero_along(x: np.ndarray, axis: int) -> tuple[int, ...]:
    shape = list(x.shape)
    shape[axis] = 0
    return tuple(shape)


@given(data=st.data())
def test_diff_matches_numpy(data: st.DataObject) -> None:
    x = data.draw(arrays(min_dims=1))
    t = data.draw(tensors(x))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = data.draw(st.integers(0, 4))
    kw: dict[str, Any] = {}
    np_kw: dict[str, Any] = {}
    for side in ("prepend", "append"):
        if data.draw(st.booleans()):
            shape = list(x.shape)
            shape[axis] = data.draw(st.integers(0, 3))
            e = np.full(shape, data.draw(st.sampled_from([0, 1])), dtype=x.dtype)
            kw[side], np_kw[side] = donate.asarray(e), e
    got = donate.diff(t, axis=axis, n=n, **kw)
    # The standard's rule: the joined axis is M + N1 + N2 - n long, also
    # for n = 0 (where NumPy returns `x` without prepend and append).
    none = np.empty(_zero_along(x, axis), x.dtype)
    joined = np.concatenate([np_kw.get("prepend", none), x, np_kw.get("append", none)], axis=axis)
    want = call_quietly(lambda: np.diff(joined, n=n, axis=axis)) if n else joined
    assert_same(got, want)
    np.testing.assert_array_equal(numpy_of(t), x)


@given(data=st.data())
def test_argmax_argmin_and_count_nonzero_match_numpy(data: st.DataObject) -> None:
    x = data.draw(arrays(small=False))
    t = data.draw(tensors(x))
    keepdims = data.draw(st.booleans())
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    for name in ("argmax", "argmin"):
        try:
            want = getattr(np, name)(x, axis=axis, keepdims=keepdims)
        except ValueError:
            with pytest.raises(ValueError):
                getattr(donate, name)(t, axis=axis, keepdims=keepdims)
            continue
        assert_same(getattr(donate, name)(t, axis=axis, keepdims=keepdims), np.asarray(want, np.int64))
    many = data.draw(axes(x.ndim))
    want = np.count_nonzero(x, axis=many, keepdims=keepdims)
    assert_same(donate.count_nonzero(t, axis=many, keepdims=keepdims), np.asarray(want, np.int64))
    np.testing.assert_array_equal(numpy_of(t), x)


def test_nan_propagates_and_signed_zeros_stay() -> None:
    x = np.array([[1.0, np.nan, -0.0], [2.0, 3.0, -1.0]], np.float32)
    t = donate.asarray(x)
    for name in ("sum", "prod", "max", "min", "mean", "var", "std"):
        got = numpy_of(getattr(donate, name)(t, axis=1))
        assert np.isnan(got[0]) and not np.isnan(got[1]), name
    assert int(donate.argmax(t).numpy()) == 1
    assert int(donate.argmin(t, axis=1).numpy()[0]) == 1
    c = numpy_of(donate.cumulative_sum(donate.asarray(np.array([-0.0, 1.0])), axis=0))
    assert np.signbit(c[0])


def test_the_planned_single_axis_forms_keep_working() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = donate.asarray(x)
    np.testing.assert_array_equal(t.sum(0).numpy(), x.sum(0))
    np.testing.assert_array_equal(donate.sum(t, axis=0).numpy(), x.sum(axis=0))
    np.testing.assert_array_equal(donate.max(t, axis=-1, keepdims=True).numpy(), x.max(-1, keepdims=True))
    assert donate.sum(donate.asarray(np.array([1, 2], np.int8))).dtype == np.int64
    # The spec's signatures: axis, dtype and keepdims are keyword-only.
    with pytest.raises(TypeError):
        donate.sum(t, 0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        donate.prod(t, 0)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda t: donate.sum(t, axis=(0, 0)), ValueError),
        (lambda t: donate.prod(t, axis=(0, -2)), ValueError),
        (lambda t: donate.min(t, axis=2), donate.AxisError),
        (lambda t: donate.var(t, axis=(1, 5)), donate.AxisError),
        (lambda t: donate.cumulative_sum(t), ValueError),
        (lambda t: donate.cumulative_prod(donate.asarray(np.float32(1.0))), ValueError),
        (lambda t: donate.diff(donate.asarray(np.float32(1.0))), ValueError),
        (lambda t: donate.diff(t, prepend=donate.zeros((3, 1))), ValueError),
        (lambda t: donate.diff(t, n=-1), ValueError),
        (lambda t: donate.argmax(donate.zeros((2, 0)), axis=1), ValueError),
        (lambda t: donate.min(donate.zeros((0, 3))), ValueError),
        (lambda t: donate.sum(t, axis=1.5), TypeError),
        (lambda t: donate.cumulative_sum(t, axis=0, dtype="not a dtype"), TypeError),
    ],
)
def test_errors_leave_the_input_as_it_was(call: Callable[[donate.Tensor], Any], error: type[Exception]) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = donate.asarray(x)
    with pytest.raises(error):
        call(t)
    np.testing.assert_array_equal(t.numpy(), x)


FUNCTIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("sum (axis tuple)", lambda t: donate.sum(t, axis=(0, 1))),
    ("sum (dtype)", lambda t: donate.sum(t, dtype="float64")),
    ("prod", lambda t: donate.prod(t)),
    ("min", lambda t: donate.min(t, axis=0)),
    ("max (axis tuple)", lambda t: donate.max(t, axis=(1,))),
    ("mean (axis tuple)", lambda t: donate.mean(t, axis=(0, 1))),
    ("var", lambda t: donate.var(t, correction=1)),
    ("std", lambda t: donate.std(t, axis=1)),
    ("diff", lambda t: donate.diff(t)),
    ("argmax", lambda t: donate.argmax(t, axis=0)),
    ("argmin", lambda t: donate.argmin(t)),
    ("count_nonzero", lambda t: donate.count_nonzero(t, axis=(0, 1))),
]


@pytest.mark.parametrize(("name", "call"), FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_a_donated_input_is_refused_with_a_warning(name: str, call: Callable[[Any], Any]) -> None:
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    t = donate.asarray(x)
    want = numpy_of(call(t))
    with pytest.warns(donate.DonationWarning, match="always writes a new buffer"):
        got = call(t.donate())
    assert not t.is_donated
    np.testing.assert_array_equal(t.numpy(), x)
    np.testing.assert_array_equal(numpy_of(got), want)


@pytest.mark.parametrize(("name", "call"), FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_jit_records_it_and_equals_eager(name: str, call: Callable[[Any], Any]) -> None:
    # Every statistic, diff and the searching functions are planned
    # operations (they were refused with a TracerError while they read
    # their input outside the planner).
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    want = call(donate.asarray(x))
    f = donate.jit(call)
    got = f(donate.asarray(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(numpy_of(got), numpy_of(want), rtol=1e-6)
    assert f.trace_count == 1


def test_every_dtype_reduces() -> None:
    for d in DTYPES:
        x = np.ones((2, 2), d)
        t = donate.asarray(x)
        assert_same(donate.min(t, axis=(0, 1)), np.min(x, axis=(0, 1)))
        assert_same(donate.prod(t, axis=(0,)), np.prod(x, axis=(0,), dtype=default_accumulation(d)))


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x: m.sum(x),
        lambda m, x: m.sum(x, axis=0),
        lambda m, x: m.sum(x, axis=(0, 1)),
        lambda m, x: m.sum(x, dtype=m.float64),
        lambda m, x: m.sum(x, axis=1, dtype=m.float64),
        lambda m, x: m.sum(x[:0]),
        lambda m, x: m.sum(x[:0], dtype=m.float64),
        lambda m, x: m.mean(x, axis=0),
        lambda m, x: m.mean(x, axis=(0, 1)),
        lambda m, x: m.linalg.vector_norm(x[:0]),
        lambda m, x: m.linalg.vector_norm(x[:0], ord=1),
        lambda m, x: m.linalg.vector_norm(x[:0], ord=3),
        lambda m, x: m.linalg.vector_norm(x, axis=0, ord=1),
    ],
)
def test_a_sum_of_negative_zeros_is_positive_zero_as_numpys(call: Callable[[Any, Any], Any]) -> None:
    # NumPy's sums start at +0.0, so -0.0 + -0.0 + 0.0 is +0.0; a sum that
    # starts at -0.0 (Rust's `Iterator::sum` of floats) keeps the sign.
    x = np.full((3, 4), -0.0, np.float32)
    want = np.asarray(call(np, x))
    got = numpy_of(call(donate, donate.asarray(x)))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("fn", [np.var, np.std])
@pytest.mark.parametrize("data,ddof,axis", [
    ([1.0, 2.0, 4.0], 3, None), ([1.0, 2.0, 4.0], 5, None), ([2.0, 2.0], 2, None),
    ([[1.0, 2.0], [3.0, 3.0]], 2, 0), ([[1.0, 5.0], [3.0, 3.0]], 2.5, 1),
])
def test_numpys_var_and_std_of_too_few_degrees_of_freedom_are_numpys(fn, data, ddof, axis):
    # NumPy divides by max(N - ddof, 0): inf (NaN of constant data), with
    # its warning; `np.var(t, ddof=N)` was NaN.
    a = np.array(data)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        want = fn(a, ddof=ddof, axis=axis)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        got = fn(donate.asarray(a), ddof=ddof, axis=axis)
    np.testing.assert_array_equal(np.asarray(got), want)


def test_numpys_average_of_complex_data_with_integer_weights():
    # The result dtype came from the weights and float64 alone: a TypeError
    # (complex128 to float64).
    a = np.array([1 + 2j, 3 - 1j, 0.5j])
    for w in ([1, 2, 3], np.array([1, 2, 3], np.int8), np.array([0.5, 1, 2], np.float32)):
        got, want = np.average(donate.asarray(a), weights=w), np.average(a, weights=w)
        assert np.dtype(str(got.dtype)) == want.dtype
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)


@pytest.mark.parametrize("name", ["quantile", "percentile", "nanquantile", "nanpercentile"])
@pytest.mark.parametrize("data", [np.array([1.0, 2.0, 4.0], np.float32), np.array([1, 2, 4], np.int8),
                                  np.array([1, 2, 4], np.int64), np.array([1.0, 2.0, 4.0])])
@pytest.mark.parametrize("q", [np.float32(0.5), np.array([0.25, 0.5], np.float32), 0.5,
                               np.array([0.5]), np.float16(0.5)])
def test_quantile_dtypes_are_numpys(name, data, q, ):
    # A float32 `q` of percentile became float64 (`np.asarray(q, float64)`),
    # and integer data always computed in float64.
    if name.endswith("percentile"):
        q = q * 100 if not isinstance(q, np.ndarray) else (q * 100).astype(q.dtype)
    got = getattr(np, name)(donate.asarray(data), q)
    want = getattr(np, name)(data, q)
    assert np.dtype(str(got.dtype)) == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-3)


def test_quantile_refusals_are_numpys():
    t = donate.asarray(np.array([1.0, 2.0]))
    for call in (lambda m, x: m.quantile(x, [0.5, np.nan]), lambda m, x: m.nanquantile(x, np.nan),
                 lambda m, x: m.percentile(x, 101)):
        with pytest.raises(ValueError):
            call(np, np.asarray(t))
        with pytest.raises(ValueError):
            call(np, t)
    b = np.array([True, False, True])
    for f in (np.quantile, np.nanquantile):
        with pytest.raises(TypeError):
            f(b, 0.5)
        with pytest.raises(TypeError):
            f(donate.asarray(b), 0.5)
    assert float(np.median(donate.asarray(b))) == np.median(b) == 1.0  # (a mean: defined)
    with pytest.raises(ValueError, match="simultaneously"):
        np.std(t, ddof=1, correction=1)
    assert float(np.std(t, ddof=0, correction=1)) == np.std(np.asarray(t), correction=1)

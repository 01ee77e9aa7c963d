"""NumPy's NaN-ignoring reductions (`nansum`, `nanprod`, `nanmean`,
`nanmax`, `nanmin`, `nanvar`, `nanstd`) on tensors, against NumPy: values,
dtypes, shapes and NumPy's `RuntimeWarning` for slices with nothing left,
called as `donate.nan*` and through NumPy's functions (NEP 18)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate
from helpers import unchanged

NAMES = ["nansum", "nanprod", "nanmean", "nanmax", "nanmin", "nanvar", "nanstd"]


def _call(f: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any, list[str]]:
    """`f`'s result or the class of its error, and its RuntimeWarnings."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r, err = f(*args, **kwargs), None
        except ValueError as e:
            r, err = None, type(e)
    return r, err, sorted({str(x.message) for x in w if str(x.message) in NAN_WARNINGS})


# The warnings of NumPy's NaN functions (donate gives no floating-point
# warnings, "invalid value encountered ...", and its plain `mean` of
# nothing is NaN without one: integer data goes there).
NAN_WARNINGS = {"All-NaN slice encountered", "Mean of empty slice", "Degrees of freedom <= 0 for slice."}


@settings(max_examples=150)
@given(data=st.data())
def test_nan_reductions_are_numpys(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from([np.float32, np.float64, np.int32, np.complex128]))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    if np.dtype(dtype).kind == "i":
        elements: Any = st.integers(-5, 5)
    else:
        elements = st.sampled_from([np.nan, -2.0, -0.5, 0.0, 1.0, 3.0])
    a = data.draw(hnp.arrays(dtype, shape, elements=elements))
    name = data.draw(st.sampled_from(NAMES))
    axes = st.none() if a.ndim == 0 else (
        st.none() | st.integers(-a.ndim, a.ndim - 1)
        | st.lists(st.integers(0, a.ndim - 1), unique=True).map(tuple)
    )
    kwargs: dict[str, Any] = {"axis": data.draw(axes), "keepdims": data.draw(st.booleans())}
    if name in ("nanvar", "nanstd"):
        kwargs["ddof"] = data.draw(st.sampled_from([0, 1]))
    if name in ("nansum", "nanmean") and a.dtype.kind == "f":
        kwargs["dtype"] = data.draw(st.sampled_from([None, np.float64]))
    if name in ("nanmax", "nanmin") and a.dtype.kind == "c":
        return  # donate orders no complex numbers
    want, want_err, want_warn = _call(getattr(np, name), a, **kwargs)
    t = donate.asarray(a)
    for f in (getattr(donate, name), getattr(np, name)):
        got, err, warned = _call(f, t, **kwargs)
        assert err == want_err, (name, kwargs)
        if err is not None:
            continue
        assert type(got) is donate.Tensor
        g = np.asarray(got)
        w = np.asarray(want)
        assert g.dtype == w.dtype and g.shape == w.shape, (name, kwargs, g.dtype, w.dtype)
        tol = 1e-5 if w.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)
        if a.dtype.kind != "i":
            assert warned == want_warn, (name, kwargs)
    unchanged(t, a)


def test_a_slice_of_nans_warns_as_numpy() -> None:
    t = donate.asarray(np.array([[1.0, np.nan], [np.nan, np.nan]], np.float32))
    with pytest.warns(RuntimeWarning, match="All-NaN slice"):
        r = donate.nanmax(t, axis=1)
    assert np.asarray(r).tolist()[0] == 1.0 and np.isnan(np.asarray(r)[1])
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        donate.nanmean(t, axis=1)


def test_nanmax_of_nothing_is_numpys_error_and_what_is_refused_says_so() -> None:
    with pytest.raises(ValueError):
        donate.nanmax(donate.zeros((0,)))
    with pytest.raises(TypeError, match="initial"):
        donate.nanmax(donate.ones((2,)), initial=0.0)


# ------------------------------------- nanquantile, nanpercentile, nanmedian ---

def _quantile_case(f: Any, q: Any, axis: Any, keepdims: bool, x: np.ndarray) -> None:
    want, want_err, want_w = _call(f, x, q, axis=axis, keepdims=keepdims)
    got, got_err, got_w = _call(f, donate.asarray(x), q, axis=axis, keepdims=keepdims)
    assert got_err == want_err and got_w == want_w, (got_w, want_w)
    if want_err is None:
        assert isinstance(got, donate.Tensor)
        g = np.asarray(got)
        # NumPy's dtype for data without NaNs: NumPy's own depends on the
        # values (its all-NaN slice gives the data's dtype, float32, where
        # an array `q` gives float64 otherwise); donate's does not.
        dtype = f(np.nan_to_num(x), q, axis=axis, keepdims=keepdims).dtype
        assert g.dtype == dtype and g.shape == want.shape
        np.testing.assert_allclose(g, want, rtol=1e-12 if x.dtype == np.float64 else 1e-6)


@settings(max_examples=80, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float32, np.float64]),
                  hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
                  elements=st.one_of(st.just(np.nan), st.floats(-1e3, 1e3, width=32))),
       st.sampled_from([0.0, 0.25, 0.5, 1.0, [0.1, 0.9]]), st.booleans(), st.data())
def test_nanquantile_family_against_numpy(x: np.ndarray, q: Any, keepdims: bool,
                                          data: Any) -> None:
    axis = data.draw(st.sampled_from([None, *range(x.ndim), tuple(range(x.ndim))]))
    _quantile_case(np.nanquantile, q, axis, keepdims, x)
    pct = [v * 100 for v in q] if isinstance(q, list) else q * 100
    _quantile_case(np.nanpercentile, pct, axis, keepdims, x)
    want, _, want_w = _call(np.nanmedian, x, axis=axis)
    got, _, got_w = _call(np.nanmedian, donate.asarray(x), axis=axis)
    assert got_w == want_w
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


def test_nanmedian_of_integers_is_the_median() -> None:
    x = np.arange(12).reshape(3, 4)
    got = np.nanmedian(donate.asarray(x), axis=0)
    assert np.asarray(got).dtype == np.nanmedian(x, axis=0).dtype
    np.testing.assert_array_equal(np.asarray(got), np.nanmedian(x, axis=0))


@pytest.mark.parametrize("call", [
    lambda m, x: m.nanmedian(x), lambda m, x: m.nanquantile(x, 0.5),
    lambda m, x: m.nanpercentile(x, 50, axis=0), lambda m, x: m.nanmedian(x, axis=1),
])
@pytest.mark.parametrize("shape", [(0,), (0, 2), (2, 0)])
def test_nan_quantiles_of_no_data_are_numpys_nan(call, shape):
    # NumPy answers `nanmean`'s NaN ("Mean of empty slice"); donate raised.
    a = np.zeros(shape)
    if len(shape) == 1 and "axis=" in __import__("inspect").getsource(call):
        return
    with warnings.catch_warnings(record=True) as numpys:
        warnings.simplefilter("always")
        want = call(np, a)
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        got = call(np, donate.asarray(a))
    assert [w.category for w in ours] == [w.category for w in numpys]
    assert np.shape(got) == np.shape(want)
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("name", ["quantile", "percentile", "nanquantile", "nanpercentile"])
def test_no_quantiles_at_all_is_an_empty_result(name):
    # `np.quantile(t, [])` raised "stack: needs at least one tensor".
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    for q in ([], np.zeros(0, np.float32)):
        got, want = getattr(np, name)(donate.asarray(a), q, axis=0), getattr(np, name)(a, q, axis=0)
        assert got.shape == want.shape and np.dtype(str(got.dtype)) == want.dtype


@pytest.mark.parametrize("name", ["nanmean", "nanvar", "nanstd"])
def test_nan_statistics_of_floats_refuse_an_integer_dtype_as_numpy(name):
    a = np.array([1.0, np.nan, 2.0])
    with pytest.raises(TypeError, match="inexact"):
        getattr(np, name)(a, dtype=np.int64)
    with pytest.raises(TypeError, match="inexact"):
        getattr(np, name)(donate.asarray(a), dtype=np.int64)
    got = getattr(np, name)(donate.asarray(a), dtype=np.float32)
    assert got.dtype == donate.float32

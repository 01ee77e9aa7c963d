"""NumPy's counting, binning and ordering functions on tensors, which
donate used to refuse ("no implementation found"): `bincount`,
`histogram`, `histogram_bin_edges`, `digitize`, `interp`, `partition`, `argpartition`,
`lexsort`, `ediff1d`, `pad`; against NumPy as the oracle for values,
dtypes and shapes (hypothesis for the counts, the edges, the
interpolation and every padding mode), and NumPy's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate
from helpers import close as check




def both(f: Any, *arrays: np.ndarray) -> tuple[Any, Any]:
    return f(*(donate.asarray(a) for a in arrays)), f(*arrays)


FLOATS = hnp.arrays(np.float64, st.integers(0, 40),
                    elements=st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False))
COUNTS = hnp.arrays(np.int64, st.integers(0, 40), elements=st.integers(0, 30))


@settings(max_examples=60, deadline=None)
@given(COUNTS, st.integers(0, 40), st.booleans())
def test_bincount(x: np.ndarray, minlength: int, weighted: bool) -> None:
    w = np.linspace(-1.0, 2.0, x.size)
    if weighted:
        got = np.bincount(donate.asarray(x), weights=donate.asarray(w), minlength=minlength)
        check(got, np.bincount(x, weights=w, minlength=minlength), rtol=1e-9)
    else:
        check(np.bincount(donate.asarray(x), minlength=minlength), np.bincount(x, minlength=minlength))


@pytest.mark.parametrize("x, error", [
    (np.array([1, -1]), ValueError), (np.array([[1]]), ValueError), (np.array([1.5]), TypeError)])
def test_bincount_errors_as_numpy_s(x: np.ndarray, error: type) -> None:
    with pytest.raises(error):
        np.bincount(x)
    with pytest.raises(error):
        np.bincount(donate.asarray(x))


@settings(max_examples=60, deadline=None)
@given(FLOATS.filter(lambda a: a.size > 0), st.integers(1, 12), st.booleans(), st.booleans())
def test_histogram_with_a_bin_count(a: np.ndarray, bins: int, density: bool,
                                    weighted: bool) -> None:
    w = np.linspace(0.5, 1.5, a.size) if weighted else None
    got = np.histogram(donate.asarray(a), bins=bins, density=density,
                       weights=None if w is None else donate.asarray(w))
    check(got, np.histogram(a, bins=bins, density=density, weights=w), rtol=1e-9)
    check(np.histogram_bin_edges(donate.asarray(a), bins), np.histogram_bin_edges(a, bins))


@settings(max_examples=60, deadline=None)
@given(FLOATS, st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=8, unique=True))
def test_histogram_with_edges_and_a_range(a: np.ndarray, edges: list[float]) -> None:
    edges = sorted(edges)
    check(np.histogram(donate.asarray(a), bins=edges), np.histogram(a, bins=edges))
    check(np.histogram_bin_edges(donate.asarray(a), bins=edges), np.histogram_bin_edges(a, bins=edges))
    check(np.histogram(donate.asarray(a), bins=5, range=(-10, 10)),
          np.histogram(a, bins=5, range=(-10, 10)))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_histogram_edges_keep_the_data_s_float_dtype(dtype: Any) -> None:
    a = np.random.default_rng(0).normal(size=100).astype(dtype)
    check(np.histogram(donate.asarray(a), bins=7), np.histogram(a, bins=7), rtol=1e-3)
    check(np.histogram(donate.asarray(a), bins=7, range=(-1.1, 0.7)),
          np.histogram(a, bins=7, range=(-1.1, 0.7)), rtol=1e-3)


def test_histogram_of_integers_and_its_errors() -> None:
    a = np.array([1, 2, 2, 3, 3, 3, 9])
    check(np.histogram(donate.asarray(a), bins=4), np.histogram(a, bins=4))
    check(np.histogram(donate.asarray(np.array([5.0, 5.0])), bins=3),
          np.histogram(np.array([5.0, 5.0]), bins=3))
    for kwargs, error in [({"bins": 0}, ValueError), ({"bins": [3, 1]}, ValueError),
                          ({"range": (2, 1)}, ValueError)]:
        with pytest.raises(error):
            np.histogram(a, **kwargs)
        with pytest.raises(error):
            np.histogram(donate.asarray(a), **kwargs)
    with pytest.raises(TypeError, match="estimator"):
        np.histogram(donate.asarray(a), bins="auto")


@settings(max_examples=60, deadline=None)
@given(FLOATS, st.lists(st.integers(-50, 50), min_size=1, max_size=8), st.booleans(),
       st.booleans())
def test_digitize_increasing_and_decreasing(x: np.ndarray, bins: list[int], right: bool,
                                            decreasing: bool) -> None:
    b = np.array(sorted(bins, reverse=decreasing), dtype=np.float64)
    check(np.digitize(donate.asarray(x), donate.asarray(b), right=right),
          np.digitize(x, b, right=right))


def test_digitize_refuses_unordered_bins() -> None:
    with pytest.raises(ValueError, match="monotonically"):
        np.digitize(donate.asarray([1.0]), donate.asarray([1.0, 3.0, 2.0]))


@settings(max_examples=80, deadline=None)
@given(FLOATS, st.lists(st.integers(-100, 100), min_size=1, max_size=8, unique=True),
       st.integers(0, 2**32 - 1))
def test_interp(x: np.ndarray, xp: list[int], seed: int) -> None:
    xs = np.array(sorted(xp), dtype=np.float64)
    fp = np.random.default_rng(seed).normal(size=xs.size)
    check(np.interp(donate.asarray(x), donate.asarray(xs), donate.asarray(fp)),
          np.interp(x, xs, fp), rtol=1e-12)
    check(np.interp(donate.asarray(x), xs, fp, left=-7.0, right=7.0),
          np.interp(x, xs, fp, left=-7.0, right=7.0), rtol=1e-12)


def test_interp_at_the_points_and_with_infinities() -> None:
    xp, fp = np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, np.inf, 5.0, 5.0])
    x = np.array([0.0, 0.5, 1.0, 2.0, 2.5, 3.0, np.nan])
    check(np.interp(donate.asarray(x), xp, fp), np.interp(x, xp, fp))
    with pytest.raises(ValueError):
        np.interp(donate.asarray(x), donate.asarray(xp), donate.asarray(fp[:2]))


@pytest.mark.parametrize("kth", [0, 3, -1, (1, 4)])
@pytest.mark.parametrize("axis", [-1, 0, None])
def test_partition_and_argpartition_meet_numpy_s_contract(kth: Any, axis: Any) -> None:
    x = np.random.default_rng(3).integers(0, 9, (5, 6)).astype(np.float32)
    got = np.asarray(np.partition(donate.asarray(x), kth, axis=axis))
    idx = np.asarray(np.argpartition(donate.asarray(x), kth, axis=axis))
    flat = x.reshape(-1) if axis is None else x
    ax = 0 if axis is None else axis
    want = np.partition(x, kth, axis=axis)
    for k in np.atleast_1d(kth):
        # The kth element in its sorted place, nothing larger before it.
        kth_got = np.take(got, [k], axis=ax)
        np.testing.assert_array_equal(kth_got, np.take(want, [k], axis=ax))
        np.testing.assert_array_equal(np.take(np.take_along_axis(flat, idx, axis=ax), [k], axis=ax),
                                      kth_got)
    np.testing.assert_array_equal(np.sort(got, axis=ax), np.sort(want, axis=ax))
    with pytest.raises(ValueError):
        np.partition(donate.asarray(x), 99, axis=axis)


@pytest.mark.parametrize("shape", [(7,), (3, 5)])
def test_lexsort(shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(5)
    keys = [rng.integers(0, 3, shape) for _ in range(3)]
    # (NumPy dispatches a tuple of keys, not a list: it reads a list itself.)
    check(np.lexsort(tuple(donate.asarray(k) for k in keys)), np.lexsort(keys))
    stacked = np.stack(keys)
    check(np.lexsort(donate.asarray(stacked)), np.lexsort(stacked))
    check(np.lexsort(donate.asarray(stacked), axis=0), np.lexsort(stacked, axis=0))


def test_ediff1d() -> None:
    x = np.array([[1, 2, 4], [7, 0, 3]])
    check(np.ediff1d(donate.asarray(x)), np.ediff1d(x))
    check(np.ediff1d(donate.asarray(x), to_begin=-99, to_end=np.array([88, 99])),
          np.ediff1d(x, to_begin=-99, to_end=np.array([88, 99])))
    with pytest.raises(TypeError, match="to_end"):
        np.ediff1d(donate.asarray(x), to_end=0.5)


@settings(max_examples=80, deadline=None)
@given(hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)),
       st.sampled_from(["constant", "edge", "reflect", "symmetric", "wrap"]), st.data())
def test_pad_every_mode(x: np.ndarray, mode: str, data: Any) -> None:
    widths = data.draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)),
                                min_size=x.ndim, max_size=x.ndim))
    check(np.pad(donate.asarray(x), widths, mode=mode), np.pad(x, widths, mode=mode))


def test_pad_constants_widths_and_errors() -> None:
    x = np.arange(6.0).reshape(2, 3)
    check(np.pad(donate.asarray(x), 2), np.pad(x, 2))
    check(np.pad(donate.asarray(x), (1, 2), constant_values=(7, 8)),
          np.pad(x, (1, 2), constant_values=(7, 8)))
    i = np.arange(4, dtype=np.int8)
    check(np.pad(donate.asarray(i), 1, constant_values=2.7), np.pad(i, 1, constant_values=2.7))
    with pytest.raises(TypeError, match="mode='mean'"):
        np.pad(donate.asarray(x), 1, mode="mean")
    for kwargs in [{"mode": "nonsense"}, {"mode": "edge", "constant_values": 1}]:
        with pytest.raises(ValueError):
            np.pad(x, 1, **kwargs)
        with pytest.raises(ValueError):
            np.pad(donate.asarray(x), 1, **kwargs)
    with pytest.raises(ValueError):
        np.pad(donate.asarray(x), -1)
    with pytest.raises(ValueError):
        np.pad(donate.asarray(np.zeros((0, 2))), 1, mode="edge")


def test_a_donated_operand_is_left_intact() -> None:
    x = donate.asarray(np.array([1, 1, 2, 5]))
    with pytest.warns(donate.DonationWarning):
        got = np.bincount(x.donate())
    check(got, np.bincount(np.array([1, 1, 2, 5])))
    np.testing.assert_array_equal(np.asarray(x), [1, 1, 2, 5])


HIST_POINTS = np.random.default_rng(3).normal(size=(200, 3))


@pytest.mark.parametrize("kwargs", [
    {}, {"bins": 4}, {"bins": (2, 3, 4)}, {"bins": [np.array([-1.0, 0.0, 2.0]), 3, np.linspace(-3, 3, 7)]},
    {"range": [(-1, 1), (-2, 2), (0, 1)]}, {"density": True, "bins": 5},
    {"weights": np.arange(200.0)}, {"bins": (2, 2)}, {"range": [(0, 1)]},
    {"bins": [np.array([1.0, 0.0]), 2, 2]},
], ids=["default", "int", "per axis", "edges", "range", "density", "weights", "bins mismatch",
        "range mismatch", "decreasing edges"])
def test_histogramdd_as_numpy(kwargs: dict[str, Any]) -> None:
    try:
        want, wedges = np.histogramdd(HIST_POINTS, **kwargs)
    except Exception as e:
        with pytest.raises(type(e)):
            np.histogramdd(donate.asarray(HIST_POINTS), **kwargs)
        return
    got, gedges = np.histogramdd(donate.asarray(HIST_POINTS),
                                 **{k: donate.asarray(v) if k == "weights" else v for k, v in kwargs.items()})
    check(got, want)
    assert len(gedges) == len(wedges)
    for g, w in zip(gedges, wedges):
        check(g, w)


def test_histogram2d_as_numpy() -> None:
    x, y = HIST_POINTS[:, 0], HIST_POINTS[:, 1].astype(np.float32)
    for kwargs in ({}, {"bins": 3}, {"bins": [2, 5]}, {"bins": np.linspace(-2, 2, 4)},
                   {"bins": 4, "range": [[-1, 1], [0, 2]], "density": True}):
        want = np.histogram2d(x, y, **kwargs)
        got = np.histogram2d(donate.asarray(x), donate.asarray(y), **kwargs)
        for g, w in zip(got, want):
            check(g, w)
    # A point on the last edge is in the last bin; integer points too.
    xi = np.array([0, 1, 2, 3, 3])
    for g, w in zip(np.histogram2d(donate.asarray(xi), donate.asarray(xi), bins=3),
                    np.histogram2d(xi, xi, bins=3)):
        check(g, w)


def test_a_weighted_bin_is_summed_on_its_own():
    """A small bin after a large one keeps its digits: each bin's weights
    are summed on their own. Before, a bin was the difference of two
    running sums, so `bincount([0, 1, 2, 1], [1e17, 1, 2.5, 0.25])` gave
    `[1e17, 0, 0]`."""
    idx = np.array([0, 1, 2, 1])
    w = np.array([1e17, 1.0, 2.5, 0.25])
    got = np.bincount(donate.asarray(idx), weights=donate.asarray(w))
    np.testing.assert_array_equal(np.asarray(got), [1e17, 1.25, 2.5])
    x = np.array([0.1, 0.6, 0.7, 0.2])
    h, _ = np.histogram(donate.asarray(x), bins=2, range=(0, 1), weights=donate.asarray(w))
    np.testing.assert_array_equal(np.asarray(h), [1e17 + 0.25, 3.5])
    h2, _, _ = np.histogram2d(donate.asarray(x), donate.asarray(x[::-1]), bins=2,
                              range=((0, 1), (0, 1)), weights=donate.asarray(w))
    np.testing.assert_array_equal(
        np.asarray(h2), np.histogram2d(x, x[::-1], bins=2, range=((0, 1), (0, 1)), weights=w)[0])
    # Integer weights past 2**53, each bin exact (NumPy's float64).
    big = np.array([2**53 + 1, 2**62 + 1, 3], np.int64)
    got = np.bincount(donate.asarray(np.array([0, 0, 1])), weights=donate.asarray(big))
    assert np.asarray(got)[1] == 3.0


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 1000, 4097])
def test_weighted_bins_as_numpy(n):
    rng = np.random.default_rng(n)
    i = rng.integers(0, 13, n)
    w = rng.normal(size=n)
    np.testing.assert_allclose(
        np.asarray(np.bincount(donate.asarray(i), weights=donate.asarray(w), minlength=15)),
        np.bincount(i, weights=w, minlength=15), rtol=1e-12, atol=1e-12)
    xs = rng.normal(size=n)
    iw = rng.integers(-5, 5, n)
    edges = [-3, -1, 0, 0.5, 3]
    got, _ = np.histogram(donate.asarray(xs), bins=edges, weights=donate.asarray(iw))
    want, _ = np.histogram(xs, bins=edges, weights=iw)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)
    cw = rng.normal(size=n) + 1j * rng.normal(size=n)
    np.testing.assert_allclose(
        np.asarray(np.histogram(donate.asarray(xs), bins=5, weights=donate.asarray(cw))[0]),
        np.histogram(xs, bins=5, weights=cw)[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [5, 1000, 100_000])
def test_weighted_bincount_is_numpy_s_to_the_last_bit(n):
    """One pass of the core's `bincount`, each bin adding its weights in
    their order as NumPy's does: the same floats, not only close ones
    (weights of many magnitudes, so that the order of additions shows)."""
    rng = np.random.default_rng(n)
    i = rng.integers(0, 37, n)
    w = rng.normal(size=n) * 10.0 ** rng.integers(-8, 9, n)
    got = np.bincount(donate.asarray(i), weights=donate.asarray(w))
    np.testing.assert_array_equal(np.asarray(got), np.bincount(i, weights=w))


def test_the_core_bincount_checks_every_index_and_jit_traces_it():
    from donate import _core
    x = donate.asarray(np.array([0, 2, 2], np.int8))
    with pytest.raises(IndexError, match="5 is not a bin of 0..3"):
        _core._bincount(donate.asarray(np.array([0, 5])), None, 3)
    with pytest.raises(ValueError, match="integers or booleans"):
        _core._bincount(donate.asarray(np.array([0.0, 1.0])), None, 3)
    w = donate.asarray(np.array([1.5, 2.0, 0.25], np.float32))

    def f(x, w):
        return _core._bincount(x, w, 4) * 2.0

    got = donate.jit(f)(x, w)
    assert got.dtype == donate.float64
    np.testing.assert_array_equal(np.asarray(got), [3.0, 0.0, 4.5, 0.0])
    assert "bincount" in donate.jit(f).lower(x, w).as_text()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_histogramdd_edges_are_float64_as_numpys(dtype):
    # Edges were made in the data's float32: -0.4 fell in bin 3 where
    # NumPy's float64 edges put it in bin 2.
    rng = np.random.default_rng(3)
    x = np.concatenate([np.array([-0.4, 0.6, 0.2, -0.8]), rng.uniform(-1, 1, 500)]).astype(dtype)
    y = rng.uniform(0, 1, x.size).astype(dtype)
    for rng_ in ([(-1, 1), (0, 1)], None):
        want = np.histogram2d(x, y, bins=10, range=rng_)
        got = np.histogram2d(donate.asarray(x), donate.asarray(y), bins=10, range=rng_)
        np.testing.assert_array_equal(np.asarray(got[0]), want[0])
        for g, w in zip(got[1:], want[1:]):
            assert np.dtype(str(g.dtype)) == w.dtype
            np.testing.assert_array_equal(np.asarray(g), w)
    want_dd = np.histogramdd(x[:, None], bins=10, range=[(-1, 1)])
    got_dd = np.histogramdd(donate.asarray(x[:, None]), bins=10, range=[(-1, 1)])
    np.testing.assert_array_equal(np.asarray(got_dd[0]), want_dd[0])


@pytest.mark.parametrize("a,kw", [
    (np.array([-1e308, 1e308]), {}), (np.array([-3e38, 3e38], np.float32), {}),
    (np.array([1.0, 1.0 + 1e-15]), {"bins": 1000}), (np.array([1.0, 2.0]), {"range": (-1e308, 1e308)}),
])
def test_histogram_of_too_many_bins_for_the_range_is_numpys_error(a, kw):
    # An overflowing range made edges of inf and NaN, and an internal
    # "bincount: -1 is not a bin" IndexError.
    with pytest.raises(ValueError, match="Too many bins"):
        np.histogram(a, **kw)
    with pytest.raises(ValueError, match="Too many bins"):
        np.histogram(donate.asarray(a), **kw)

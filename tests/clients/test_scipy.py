"""SciPy on donate tensors, with SciPy's array-API dispatch (SCIPY_ARRAY_API=1).

Every function here is marked array-API capable in SciPy 1.17 (its
`xp_capabilities` entry is not `np_only`; the scipy.special ufuncs are all
dispatched). Each call is made once on NumPy arrays and once on the same
values as donate tensors; the donate result must be a donate tensor (every
array inside a tuple result too) with the NumPy result's shape, dtype and
values. Python scalars in a result (e.g. `describe`'s `nobs`) must be equal.

The scipy.fft transforms with complex input or output (`fft`, `ifft`, `rfft`,
`irfft`) and `fftfreq` go to donate's `fft` extension (`xp.fft`), so they
test transforms computed by donate; `dct`/`idct` take SciPy's fallback for
a namespace (`np.asarray`, donate's read-only export, then SciPy's own
pocketfft and `xp.asarray(result)`). `fftconvolve` multiplies two complex
spectra with the namespace's own `*` (donate's complex arithmetic).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import scipy.fft
import scipy.integrate
import scipy.ndimage
import scipy.signal
import scipy.special
import scipy.stats
from _clients_util import assert_donate, to_numpy

import donate

DEFAULT_FLOAT = np.dtype(donate.__array_namespace_info__().default_dtypes()["real floating"])
# Compiled code that asks for a writable buffer refuses donate's exports,
# which are read-only by design (docs/promises.md, "Exports"): a NumPy
# array of a tensor would be a second writer outside the owner's rules.
READ_ONLY_EXPORT = pytest.mark.xfail(
    strict=True, reason="compiled code needs a writable buffer; donate's exports are read-only"
)


@dataclass
class Case:
    """`fn(*args, **kwargs)`; NumPy arrays in `args` become donate tensors."""

    id: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    marks: tuple[Any, ...] = ()
    # The result's dtype may be the namespace's default real floating dtype
    # (SciPy 1.17 makes it with `xp.asarray(1.0).dtype`) rather than float64.
    default_float_result: bool = False


_rng = np.random.default_rng(12345)
X = _rng.normal(size=(7, 5))  # real line
V = _rng.normal(size=12)  # a 1-D signal
POS = _rng.uniform(0.5, 3.0, size=(7, 5))  # positive
P = _rng.uniform(0.05, 0.95, size=(7, 5))  # in (0, 1)
U = _rng.uniform(-0.9, 0.9, size=(7, 5))  # in (-1, 1)
PROB = P / P.sum(axis=0)  # columns sum to one
K = np.array([0.25, 0.5, -0.25])  # a short kernel
IMG = _rng.normal(size=(6, 6))
KER2 = _rng.normal(size=(3, 2))
Y = 0.7 * X[:, 0] + 0.3 * _rng.normal(size=7)


SPECIAL = [
    Case("erf", scipy.special.erf, (X,)),
    Case("erfc", scipy.special.erfc, (X,)),
    Case("erfinv", scipy.special.erfinv, (U,)),
    Case("expit", scipy.special.expit, (X,)),
    Case("logit", scipy.special.logit, (P,)),
    Case("gammaln", scipy.special.gammaln, (POS,)),
    Case("psi", scipy.special.psi, (POS,)),
    Case("gammainc", scipy.special.gammainc, (POS, P)),
    Case("ndtr", scipy.special.ndtr, (X,)),
    Case("ndtri", scipy.special.ndtri, (P,)),
    Case("log_ndtr", scipy.special.log_ndtr, (X,)),
    Case("i0", scipy.special.i0, (X,)),
    Case("i1e", scipy.special.i1e, (X,)),
    Case("entr", scipy.special.entr, (P,)),
    Case("xlogy", scipy.special.xlogy, (X, POS)),
    Case("xlog1py", scipy.special.xlog1py, (X, P)),
    Case("rel_entr", scipy.special.rel_entr, (P, PROB)),
    Case("logsumexp", scipy.special.logsumexp, (X,)),
    Case("logsumexp-axis1", scipy.special.logsumexp, (X,), {"axis": 1}),
    Case("logsumexp-b", scipy.special.logsumexp, (X,), {"b": P, "axis": 0}),
    Case("logsumexp-return_sign", scipy.special.logsumexp, (X,), {"axis": 0, "return_sign": True}),
    Case("softmax", scipy.special.softmax, (X,), {"axis": 1}),
    Case("log_softmax", scipy.special.log_softmax, (X,), {"axis": 0}),
]

STATS = [
    Case("zscore", scipy.stats.zscore, (X,)),
    Case("zscore-axis1-ddof1", scipy.stats.zscore, (X,), {"axis": 1, "ddof": 1}),
    Case("zmap", scipy.stats.zmap, (X[:3], X)),
    Case("moment-3", scipy.stats.moment, (X,), {"order": 3}),
    Case("skew", scipy.stats.skew, (X,)),
    Case("skew-unbiased-axis1", scipy.stats.skew, (X,), {"axis": 1, "bias": False}),
    Case("kurtosis", scipy.stats.kurtosis, (X,)),
    Case("kurtosis-pearson", scipy.stats.kurtosis, (X,), {"fisher": False}),
    Case("describe", scipy.stats.describe, (X,)),
    Case("gmean", scipy.stats.gmean, (POS,)),
    Case("hmean", scipy.stats.hmean, (POS,)),
    Case("pmean", scipy.stats.pmean, (POS, 2.0)),
    Case("tmean", scipy.stats.tmean, (V, (-1.0, 1.0))),
    Case("tvar", scipy.stats.tvar, (V, (-1.0, 1.0))),
    Case("tstd", scipy.stats.tstd, (V,)),
    Case("tmin", scipy.stats.tmin, (X,), {"lowerlimit": -0.5}),
    Case("sem", scipy.stats.sem, (X,)),
    Case("variation", scipy.stats.variation, (POS,)),
    Case("gstd", scipy.stats.gstd, (POS,)),
    Case("entropy", scipy.stats.entropy, (PROB,)),
    Case("trim_mean", scipy.stats.trim_mean, (X, 0.2)),
    Case("rankdata", scipy.stats.rankdata, (V,), default_float_result=True),
    Case("iqr", scipy.stats.iqr, (X,)),
    Case("quantile", scipy.stats.quantile, (V, 0.3)),
    Case("quantile-many", scipy.stats.quantile, (V, np.array([0.1, 0.5, 0.9]))),
    Case("mode", scipy.stats.mode, (np.round(2 * X) / 2,)),
    Case("median_abs_deviation", scipy.stats.median_abs_deviation, (X,)),
    Case("kstat-2", scipy.stats.kstat, (V, 2)),
    Case("circmean", scipy.stats.circmean, (X,), {"axis": 0}),
    Case("pearsonr", scipy.stats.pearsonr, (X[:, 0], Y)),
    Case("ttest_1samp", scipy.stats.ttest_1samp, (X, 0.1)),
    Case("ttest_ind", scipy.stats.ttest_ind, (X[:, 0], X[:, 1])),
    Case("jarque_bera", scipy.stats.jarque_bera, (V,)),
    Case("skewtest", scipy.stats.skewtest, (V,)),
]

SIGNAL = [
    Case("convolve", scipy.signal.convolve, (V, K), {"method": "direct"}),
    Case("convolve-same", scipy.signal.convolve, (V, K), {"mode": "same"}),
    Case("correlate", scipy.signal.correlate, (V, K), {"method": "direct"}),
    Case("correlate-valid", scipy.signal.correlate, (V, K), {"mode": "valid"}),
    Case("convolve2d", scipy.signal.convolve2d, (IMG, KER2)),
    Case("correlate2d-same", scipy.signal.correlate2d, (IMG, KER2), {"mode": "same"}),
    Case("lfilter", scipy.signal.lfilter, (np.array([0.5, 0.25]), np.array([1.0, -0.3]), V)),
    Case("detrend", scipy.signal.detrend, (V,)),
    Case("medfilt", scipy.signal.medfilt, (V, 3)),
    Case("filtfilt", scipy.signal.filtfilt, (np.array([0.5, 0.25]), np.array([1.0, -0.3]), V)),
    Case("sosfilt", scipy.signal.sosfilt, (scipy.signal.butter(2, 0.3, output="sos"), V),
         marks=(READ_ONLY_EXPORT,)),
    Case("savgol_filter", scipy.signal.savgol_filter, (V, 5, 2)),
    Case("fftconvolve", scipy.signal.fftconvolve, (V, K)),
]

FFT = [
    Case("dct", scipy.fft.dct, (X,)),
    Case("idct", scipy.fft.idct, (X,), {"axis": 0}),
    Case("fftshift", scipy.fft.fftshift, (X,)),
    Case("ifftshift", scipy.fft.ifftshift, (X,), {"axes": 0}),
    Case("fft", scipy.fft.fft, (V,)),
    Case("ifft", scipy.fft.ifft, (V,)),
    Case("rfft", scipy.fft.rfft, (V,)),
    # irfft's input is the (complex) spectrum of a real signal.
    Case("irfft", scipy.fft.irfft, (np.fft.rfft(V),)),
]


# Two more modules' array-API functions, as a user of SciPy's array API would call them.
OTHER = [
    Case("integrate.trapezoid", scipy.integrate.trapezoid, (X,), {"axis": 0}),
    Case("integrate.cumulative_trapezoid", scipy.integrate.cumulative_trapezoid, (V,)),
    Case("ndimage.gaussian_filter", scipy.ndimage.gaussian_filter, (IMG, 1.0)),
    Case("ndimage.uniform_filter1d", scipy.ndimage.uniform_filter1d, (V, 3)),
]


def _params(cases: list[Case]) -> list[Any]:
    return [pytest.param(case, id=case.id, marks=case.marks) for case in cases]


def _rtol(dtype_name: str) -> float:
    return 1e-4 if dtype_name == "float32" else 1e-9


def _atol(dtype_name: str) -> float:
    return 1e-6 if dtype_name == "float32" else 1e-12


def _convert(value: Any, dtype_name: str, *, to_donate: bool) -> Any:
    if isinstance(value, np.ndarray):
        if np.issubdtype(value.dtype, np.floating):
            value = value.astype(dtype_name)
        return donate.asarray(value) if to_donate else value
    return value


def _assert_same(
    got: Any, want: Any, dtype_name: str, where: str = "result", *, default_float: bool = False
) -> None:
    __tracebackhide__ = True
    if isinstance(want, tuple):
        assert isinstance(got, tuple), f"{where}: expected a tuple, got {type(got)}"
        assert len(got) == len(want), f"{where}: {len(got)} parts, expected {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _assert_same(g, w, dtype_name, f"{where}[{i}]", default_float=default_float)
    elif isinstance(want, (bool, int, float)) and not isinstance(want, np.generic):
        # A Python number on NumPy too (e.g. describe's nobs).
        assert got == want, f"{where}: {got!r} != {want!r}"
    else:
        assert_donate(got)
        want = np.asarray(want)
        have = to_numpy(got)
        if default_float and have.dtype == DEFAULT_FLOAT:
            # SciPy 1.17 builds these in the namespace's default float;
            # 1.18 (on CPython 3.13/3.14 here) in NumPy's float64.
            want = want.astype(DEFAULT_FLOAT)
        assert have.shape == want.shape, f"{where}: shape {have.shape} != {want.shape}"
        assert have.dtype == want.dtype, f"{where}: dtype {have.dtype} != {want.dtype}"
        np.testing.assert_allclose(
            have, want, rtol=_rtol(dtype_name), atol=_atol(dtype_name), err_msg=where
        )


def _check(case: Case, dtype_name: str) -> None:
    __tracebackhide__ = True
    np_args = [_convert(a, dtype_name, to_donate=False) for a in case.args]
    np_kwargs = {k: _convert(v, dtype_name, to_donate=False) for k, v in case.kwargs.items()}
    expected = case.fn(*np_args, **np_kwargs)
    args = [_convert(a, dtype_name, to_donate=True) for a in case.args]
    kwargs = {k: _convert(v, dtype_name, to_donate=True) for k, v in case.kwargs.items()}
    result = case.fn(*args, **kwargs)
    _assert_same(result, expected, dtype_name, default_float=case.default_float_result)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", _params(SPECIAL))
def test_special(case: Case, dtype_name: str) -> None:
    _check(case, dtype_name)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", _params(STATS))
def test_stats(case: Case, dtype_name: str) -> None:
    _check(case, dtype_name)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", _params(SIGNAL))
def test_signal(case: Case, dtype_name: str) -> None:
    _check(case, dtype_name)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", _params(FFT))
def test_fft(case: Case, dtype_name: str) -> None:
    _check(case, dtype_name)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("case", _params(OTHER))
def test_other(case: Case, dtype_name: str) -> None:
    _check(case, dtype_name)


# Functions that take no array but a namespace: `xp=donate` must give a
# donate tensor equal to what `xp=numpy` gives.


def test_window_hann() -> None:
    _assert_same(
        scipy.signal.windows.hann(9, xp=donate), scipy.signal.windows.hann(9), "float64"
    )


def test_get_window() -> None:
    _assert_same(
        scipy.signal.get_window("hamming", 8, xp=donate),
        scipy.signal.get_window("hamming", 8),
        "float64",
    )


def test_fftfreq() -> None:
    # SciPy asks the namespace's `fft` extension, which (as the standard
    # says) answers in the namespace's default real float.
    _assert_same(
        scipy.fft.fftfreq(8, d=0.5, xp=donate), scipy.fft.fftfreq(8, d=0.5), "float64", default_float=True
    )


def test_stride_tricks_read_byte_strides() -> None:
    """`t.strides` is in bytes, as NumPy's: SciPy's `circulant` passes it
    to `as_strided`, which with strides in elements read memory outside
    the array (a bug hunt found `circulant([1, 2, 3])[1]` of garbage)."""
    import scipy.linalg as sl
    from numpy.lib.stride_tricks import as_strided

    for dtype in (np.float64, np.float32, np.int16, np.complex128):
        a = np.array([1, 2, 3], dtype)
        t = donate.asarray(a)
        assert t.strides == a.strides
        np.testing.assert_array_equal(np.asarray(sl.circulant(t)), sl.circulant(a))
        np.testing.assert_array_equal(np.asarray(sl.toeplitz(t)), sl.toeplitz(a))
    m = np.arange(12.0).reshape(3, 4)
    v = donate.asarray(m)[:, ::-2]
    assert v.strides == m[:, ::-2].strides
    w = as_strided(np.asarray(v), shape=(3, 2), strides=v.strides)
    np.testing.assert_array_equal(w, m[:, ::-2])

"""`donate.fft` against `numpy.fft`: every transform over dtypes, lengths
(cut, padded, odd, even, prime), axes, `s` and the three norms; the
frequencies and shifts; refusals named as NumPy names them; ownership
(inputs read, never written; a donated input is refused with a warning);
and tracing (`donate.jit` records the transforms and matches eager).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import donate
import donate.fft as dfft

RNG = np.random.default_rng(7)
NORMS = ["backward", "ortho", "forward"]


def _data(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    x = RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * RNG.standard_normal(shape)
    return x.astype(dtype)


def _check(got: donate.Tensor, want: np.ndarray, precision: str) -> None:
    want_dtype = want.dtype
    if precision == "single":
        want_dtype = np.complex64 if want.dtype.kind == "c" else np.float32
    assert np.dtype(got.dtype) == want_dtype
    assert got.shape == want.shape
    tol = 1e-4 if precision == "single" else 1e-10
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max(initial=0))))


def _precision(dtype: str) -> str:
    return "single" if dtype in ("float32", "complex64") else "double"


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("n", [None, 1, 4, 7, 13, 16])
@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_complex_transforms_match_numpy(name: str, n: int | None, dtype: str, norm: str) -> None:
    x = _data((3, 9), dtype)
    got = getattr(dfft, name)(donate.asarray(x), n=n, axis=-1, norm=norm)
    _check(got, getattr(np.fft, name)(x, n=n, axis=-1, norm=norm), _precision(dtype))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [None, 1, 2, 5, 8, 11])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_real_transforms_match_numpy(axis: int, n: int | None, dtype: str, norm: str) -> None:
    x = _data((6, 5, 4), dtype)
    got = dfft.rfft(donate.asarray(x), n=n, axis=axis, norm=norm)
    _check(got, np.fft.rfft(x, n=n, axis=axis, norm=norm), _precision(dtype))
    spec = np.fft.rfft(x, axis=axis).astype("complex64" if dtype == "float32" else "complex128")
    if n is None and spec.shape[axis] == 1:
        return  # irfft's default length 2 * (1 - 1) = 0: refused (below)
    got = dfft.irfft(donate.asarray(spec), n=n, axis=axis, norm=norm)
    _check(got, np.fft.irfft(spec, n=n, axis=axis, norm=norm), _precision(dtype))
    got = dfft.ihfft(donate.asarray(x), n=n, axis=axis, norm=norm)
    _check(got, np.fft.ihfft(x, n=n, axis=axis, norm=norm), _precision(dtype))
    got = dfft.hfft(donate.asarray(spec), n=n, axis=axis, norm=norm)
    _check(got, np.fft.hfft(spec, n=n, axis=axis, norm=norm), _precision(dtype))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    ("s", "axes"),
    [(None, None), ((4, 3), None), (None, (0, 2)), ((5, -1), (2, 0)), ((3,), (1,)), (None, (1, 1))],
)
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_many_axes_match_numpy(name: str, s: tuple[int, ...] | None, axes: tuple[int, ...] | None, norm: str) -> None:
    x = _data((4, 3, 6), "complex128" if name in ("fftn", "ifftn", "irfftn") else "float64")
    if s is not None and -1 in s:
        # NumPy 2 does not take -1 in `s` (the standard does): its meaning, the input's length.
        ax = axes if axes is not None else tuple(range(x.ndim - len(s), x.ndim))
        want_s = tuple(x.shape[a] if v == -1 else v for a, v in zip(ax, s))
        if name == "irfftn" and s[-1] == -1:
            # the last axis of irfftn: all M input values, the output's 2 * (M - 1)
            want_s = (*want_s[:-1], 2 * (x.shape[ax[-1]] - 1))
    else:
        want_s = s
    if s is not None and axes is None:
        axes = tuple(range(x.ndim - len(s), x.ndim))  # NumPy 2 asks for them with `s`
    want = getattr(np.fft, name)(x, s=want_s, axes=axes, norm=norm)
    got = getattr(dfft, name)(donate.asarray(x), s=s, axes=axes, norm=norm)
    _check(got, want, "double")


def test_integer_input_computes_in_float64() -> None:
    x = np.arange(6, dtype=np.int32)
    got = dfft.fft(donate.asarray(x))
    _check(got, np.fft.fft(x), "double")
    assert got.dtype == donate.complex128
    assert dfft.rfft(donate.asarray(x)).dtype == donate.complex128


@pytest.mark.parametrize("d", [1.0, 0.25])
@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_frequencies_match_numpy(n: int, d: float) -> None:
    _check(dfft.fftfreq(n, d=d, dtype=donate.float64), np.fft.fftfreq(n, d=d), "double")
    _check(dfft.rfftfreq(n, d=d, dtype=donate.float64), np.fft.rfftfreq(n, d=d), "double")
    assert dfft.fftfreq(n, dtype=donate.float32).dtype == donate.float32
    assert dfft.fftfreq(n).dtype == donate.__array_namespace_info__().default_dtypes()["real floating"]


@pytest.mark.parametrize(
    ("shape", "axes"), [((5,), None), ((5,), 0), ((4, 7), None), ((4, 7), 0), ((4, 7), 1), ((4, 7), (0, 1))]
)
def test_shifts_match_numpy(shape: tuple[int, ...], axes: int | tuple[int, ...] | None) -> None:
    x = _data(shape, "float64")
    np.testing.assert_array_equal(np.asarray(dfft.fftshift(donate.asarray(x), axes=axes)), np.fft.fftshift(x, axes=axes))
    np.testing.assert_array_equal(np.asarray(dfft.ifftshift(donate.asarray(x), axes=axes)), np.fft.ifftshift(x, axes=axes))


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda x: dfft.fft(x, n=0), ValueError, "invalid number of data points (0)"),
        (lambda x: dfft.fft(x, axis=2), ValueError, "axis"),
        (lambda x: dfft.fft(x, norm="none"), ValueError, "norm must be"),
        (lambda x: dfft.rfft(x.astype(donate.complex64)), TypeError, "fft.rfft"),
        (lambda x: dfft.fftn(x, s=(2, 2, 2)), ValueError, "s has 3 lengths"),
        (lambda x: dfft.fftn(x, s=(2,), axes=(0, 1)), ValueError, "same length"),
        (lambda x: dfft.irfft(x[:, :1]), ValueError, "invalid number of data points (0)"),
        (lambda x: dfft.fftfreq(-1), ValueError, "n must be a positive integer, got -1"),
        (lambda x: dfft.rfftfreq(0), ValueError, "n must be a positive integer, got 0"),
    ],
)
def test_refusals_name_what_was_asked(call, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        call(donate.ones((2, 3)))


def test_an_empty_axis_padded_to_n_is_zeros() -> None:
    x = np.zeros((2, 0))
    _check(dfft.fft(donate.asarray(x), n=3), np.fft.fft(x, n=3), "double")
    _check(dfft.fft(donate.asarray(np.zeros((0, 4)))), np.fft.fft(np.zeros((0, 4))), "double")


def test_a_strided_view_reads_as_numpy() -> None:
    x = _data((6, 8), "complex128")
    t = donate.asarray(x)
    _check(dfft.fft(t.T[::2], axis=0), np.fft.fft(x.T[::2], axis=0), "double")


def test_the_input_is_read_not_written_and_a_donation_is_refused_with_a_warning() -> None:
    x = _data((8,), "complex128")
    t = donate.asarray(x)
    ptr = t.data_ptr()
    with pytest.warns(donate.DonationWarning):
        r = dfft.fft(t.donate())
    assert not t.is_donated
    assert t.data_ptr() == ptr
    np.testing.assert_array_equal(np.asarray(t), x)
    assert r.data_ptr() != ptr
    _check(r, np.fft.fft(x), "double")


def test_jit_traces_the_transforms_and_matches_eager() -> None:
    def f(x: donate.Tensor) -> donate.Tensor:
        spec = dfft.rfft(x, axis=0)
        return dfft.irfft(spec * 2.0, n=x.shape[0], axis=0) + x

    x = _data((8, 3), "float64")
    g = donate.jit(f)
    text = str(donate.make_jaxpr(f)(donate.asarray(x)))
    assert "fft.rfft" in text and "fft.irfft" in text
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        got = g(donate.asarray(x))
    np.testing.assert_allclose(np.asarray(got), 3 * x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.asarray(got), np.asarray(f(donate.asarray(x))), rtol=1e-12)


def test_the_namespace_has_the_extension() -> None:
    t = donate.ones(3)
    assert t.__array_namespace__().fft is dfft
    assert sorted(dfft.__all__) == sorted(n for n in dir(dfft) if not n.startswith("_") and callable(getattr(dfft, n)) and getattr(getattr(dfft, n), "__module__", "") == "donate.fft")


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn",
                                  "fft2", "ifft2", "rfft2", "irfft2", "fftshift", "ifftshift"])
def test_numpy_fft_on_a_tensor_returns_a_tensor(name: str) -> None:
    x = _data((4, 6), "float64")
    got = getattr(np.fft, name)(donate.asarray(x))
    assert isinstance(got, donate.Tensor)
    want = getattr(np.fft, name)(x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-10, atol=1e-10)


def test_numpy_fft_writes_out() -> None:
    x = _data((8,), "complex128")
    out = donate.zeros(8, dtype=donate.complex128)
    r = np.fft.fft(donate.asarray(x), out=out, norm="ortho")
    assert r is out
    np.testing.assert_allclose(np.asarray(out), np.fft.fft(x, norm="ortho"), rtol=1e-10, atol=1e-12)


# Large enough that a step splits into several groups of lines and runs
# them on both threads (a result of 2^15 values or more): every kind of
# step, along the last axis (contiguous lines) and an inner one (lines
# strided through the slabs), cut and padded, and over several axes (the
# intermediate results of fftn).
@pytest.mark.parametrize("n", [None, 250, 300])
@pytest.mark.parametrize("axis", [-1, 1])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_transforms_in_several_groups_match_numpy(name: str, axis: int, n: int | None) -> None:
    complex_in = name in ("fft", "ifft", "irfft", "hfft")
    x = _data((3, 270, 257), "complex128" if complex_in else "float64")
    got = getattr(dfft, name)(donate.asarray(x), n=n, axis=axis)
    _check(got, getattr(np.fft, name)(x, n=n, axis=axis), "double")


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_many_axes_in_several_groups_match_numpy(name: str) -> None:
    x = _data((3, 130, 257), "float64" if name == "rfftn" else "complex128")
    got = getattr(dfft, name)(donate.asarray(x), axes=(0, 1, 2))
    _check(got, getattr(np.fft, name)(x, axes=(0, 1, 2)), "double")


# The two ways a step groups lines along an inner axis: whole slabs
# (several small slabs a group: (4000, 16, 9) along axis 1) and blocks of
# neighbouring columns of one slab larger than a group (axis 0 of an
# image; (70000, 3) has one column a block, a line longer than a group),
# each read and written a row at a time; cut, padded, both precisions.
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    ("shape", "axis", "n"),
    [((4000, 16, 9), 1, None), ((4000, 16, 9), 1, 11), ((512, 700), 0, None), ((512, 700), 0, 300),
     ((512, 700), 0, 520), ((2, 300, 301), 1, None), ((70000, 3), 0, None), ((70000, 3), 0, 65537)],
)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_inner_axes_in_blocks_of_columns_match_numpy(
    name: str, shape: tuple[int, ...], axis: int, n: int | None, dtype: str
) -> None:
    complex_in = name in ("fft", "ifft", "irfft", "hfft")
    x = _data(shape, ("complex128" if dtype == "float64" else "complex64") if complex_in else dtype)
    got = getattr(dfft, name)(donate.asarray(x), n=n, axis=axis)
    _check(got, getattr(np.fft, name)(x, n=n, axis=axis), _precision(dtype))


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_images_in_blocks_of_columns_match_numpy(name: str) -> None:
    # NumPy's own functions on a tensor (NEP 18): a tensor back.
    x = _data((600, 520), "float64" if name == "rfft2" else "complex128")
    got = getattr(np.fft, name)(donate.asarray(x))
    assert isinstance(got, donate.Tensor)
    _check(got, getattr(np.fft, name)(x), "double")

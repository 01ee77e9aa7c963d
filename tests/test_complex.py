"""complex64 and complex128: the dtypes end to end (creation, astype,
NumPy and DLPack exchange, promotion, the operations that move or view
elements, element-wise arithmetic), compared with NumPy; and every other
operation given a complex tensor raises a TypeError naming itself and the
dtype (never a crash, never a real kernel reading complex data)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate

COMPLEX = [np.dtype("complex64"), np.dtype("complex128")]
REAL = [np.dtype(n) for n in "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64".split()]
INF, NAN = np.inf, np.nan


def sample(dtype: np.dtype, shape: tuple[int, ...] = (2, 3)) -> np.ndarray:
    n = int(np.prod(shape))
    re = np.linspace(-2.5, 3.0, n)
    im = np.linspace(1.5, -4.0, n)
    return (re + 1j * im).astype(dtype).reshape(shape)


def special(dtype: np.dtype) -> np.ndarray:
    """Components that are inf, -inf, nan, -0.0."""
    vals = [complex(INF, 0), complex(-INF, 1), complex(NAN, 2), complex(0, NAN), complex(-0.0, -0.0), complex(3, INF)]
    return np.array(vals, dtype=dtype)


def close(t: donate.Tensor, want: np.ndarray) -> None:
    """As `same`, to a few units in the last place: NumPy's SIMD loops for
    complex products and magnitudes fuse multiply-adds or scale
    differently, so their last bit may differ from a correctly rounded
    result; infinities and NaNs must be where NumPy's are."""
    got = np.asarray(t)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(want.dtype).eps, equal_nan=True)


def same(t: donate.Tensor, want: np.ndarray) -> None:
    got = np.asarray(t)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind not in "fc":
        return
    # the signs of zeros too (assert_array_equal treats 0.0 == -0.0)
    assert np.array_equal(np.signbit(got.real), np.signbit(want.real))
    assert np.array_equal(np.signbit(got.imag), np.signbit(want.imag))


def test_dtypes_are_numpys_and_the_namespace_lists_them() -> None:
    assert donate.complex64 == np.dtype("complex64")
    assert donate.complex128 == np.dtype("complex128")
    info = donate.__array_namespace_info__()
    assert info.dtypes(kind="complex floating") == {"complex64": donate.complex64, "complex128": donate.complex128}
    assert info.default_dtypes()["complex floating"] == donate.complex64
    for d in COMPLEX:
        assert donate.isdtype(d, "complex floating") and donate.isdtype(d, "numeric")
        assert not donate.isdtype(d, "real floating")


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_creation_with_a_complex_dtype(name: str, dtype: np.dtype) -> None:
    t = getattr(donate, name)((2, 3), dtype=dtype)
    assert t.dtype == dtype and t.shape == (2, 3)
    if name != "empty":
        same(t, getattr(np, name)((2, 3), dtype=dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_numpy_round_trip_and_zero_copy_view(dtype: np.dtype) -> None:
    for a in (sample(dtype), special(dtype), sample(dtype, ()), sample(dtype, (0, 2))):
        t = donate.asarray(a)
        assert t.dtype == dtype
        same(t, a)
        v = np.asarray(t)
        assert not v.flags.writeable
        assert np.asarray(t).ctypes.data == v.ctypes.data  # a view of the buffer, not a copy
        if not np.isnan(a).any():
            assert t.tolist() == a.tolist()
    # a strided NumPy array, and Python complex numbers
    a = sample(dtype, (4, 6))[::2, ::3]
    same(donate.asarray(a), a)
    same(donate.asarray([1 + 2j, -3j], dtype=dtype), np.array([1 + 2j, -3j], dtype=dtype))
    assert donate.asarray([1 + 2j]).dtype == np.dtype("complex128")


@pytest.mark.parametrize("dtype", COMPLEX)
def test_dlpack_both_ways(dtype: np.dtype) -> None:
    a = special(dtype)
    same(donate.from_dlpack(a), a)
    t = donate.asarray(a)
    b = np.from_dlpack(t)
    np.testing.assert_array_equal(b, a)
    assert b.dtype == dtype


@pytest.mark.parametrize("src", REAL + COMPLEX)
@pytest.mark.parametrize("dst", COMPLEX)
def test_astype_into_complex_matches_numpy(src: np.dtype, dst: np.dtype) -> None:
    a = sample(src) if src.kind == "c" else np.array([[0, 1, 2], [3, 100, 7]]).astype(src)
    same(donate.asarray(a).astype(dst), a.astype(dst))
    same(donate.astype(donate.asarray(a), dst), a.astype(dst))
    if src.kind == "c":
        same(donate.asarray(special(src)).astype(dst), special(src).astype(dst))


@pytest.mark.parametrize("src", COMPLEX)
def test_astype_from_complex_to_bool_is_the_standards(src: np.dtype) -> None:
    # 0+0j is False, everything else (an imaginary part alone, NaN) True.
    a = np.array([0, 1j, -0.0, complex(NAN, 0), 2, complex(-0.0, -0.0)], dtype=src)
    same(donate.asarray(a).astype(donate.bool), a.astype(bool))
    np.testing.assert_array_equal(np.asarray(donate.nonzero(donate.asarray(a))[0]), np.nonzero(a)[0])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_any_all_and_nonzero_take_the_truth_value_as_numpy(dtype: np.dtype) -> None:
    a = np.array([[0, 1j, complex(NAN, 0)], [complex(-0.0, 0), 0, 0], [2, 3, -1j]], dtype=dtype)
    t = donate.asarray(a)
    for axis in (None, 0, 1):
        same(donate.any(t, axis=axis), np.asarray(np.any(a, axis=axis)))
        same(donate.all(t, axis=axis), np.asarray(np.all(a, axis=axis)))
    for got, want in zip(donate.nonzero(t), np.nonzero(a)):
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("src", COMPLEX)
@pytest.mark.parametrize("dst", [d for d in REAL if d != np.dtype(bool)])
def test_astype_from_complex_to_real_raises(src: np.dtype, dst: np.dtype) -> None:
    # The array API standard does not permit it (NumPy warns and drops
    # the imaginary part): real() and imag() are the explicit ways.
    t = donate.asarray(sample(src))
    with pytest.raises(TypeError, match=f"cannot cast {src} to {dst}"):
        t.astype(dst)
    same(t, sample(src))


def test_promotion_result_type_and_can_cast_match_numpy() -> None:
    for a, b in itertools.product(REAL + COMPLEX, repeat=2):
        if a.kind != "c" and b.kind != "c":
            continue
        assert donate.result_type(a, b) == np.result_type(a, b), (a, b)
        ta = donate.zeros((1,), dtype=a)
        assert donate.result_type(ta, b) == np.result_type(a, b), (a, b)
        assert donate.can_cast(a, b) == np.can_cast(a, b), (a, b)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_finfo_of_a_complex_dtype_is_numpys(dtype: np.dtype) -> None:
    f, want = donate.finfo(dtype), np.finfo(dtype)
    assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (
        want.bits, want.eps, want.max, want.min, want.smallest_normal
    )
    assert f.dtype == want.dtype  # the component's float dtype, as NumPy's
    assert donate.finfo(donate.zeros((1,), dtype=dtype)).bits == want.bits


MOVES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("reshape", lambda m, x: m.reshape(x, (3, 2))),
    ("transpose", lambda m, x: m.permute_dims(x, (1, 0)) if m is donate else np.transpose(x, (1, 0))),
    (".T", lambda m, x: x.T),
    ("index", lambda m, x: x[1, ::-2]),
    ("index newaxis", lambda m, x: x[None, :, 1]),
    ("concat", lambda m, x: m.concat([x, x], axis=1) if m is donate else np.concatenate([x, x], axis=1)),
    ("stack", lambda m, x: m.stack([x, x], axis=0)),
    ("broadcast_to", lambda m, x: m.broadcast_to(x, (4, 2, 3))),
    ("tile", lambda m, x: m.tile(x, (2, 1))),
    ("repeat", lambda m, x: m.repeat(x, 2, axis=1)),
    ("flip", lambda m, x: m.flip(x, axis=0)),
    ("roll", lambda m, x: m.roll(x, 1, axis=1)),
    ("roll flat", lambda m, x: m.roll(x, -2)),
    ("tril", lambda m, x: m.tril(x) if m is donate else np.tril(x)),
    ("triu", lambda m, x: m.triu(x, k=1)),
    ("take", lambda m, x: m.take(x, m.asarray([2, 0, 2]), axis=1)),
    ("take_along_axis", lambda m, x: m.take_along_axis(x, m.asarray([[1, 0, 1]]), axis=0)),
    ("where", lambda m, x: m.where(m.asarray([True, False, True]), x, x[::-1])),
    ("where scalar", lambda m, x: m.where(m.asarray([False, True, True]), x, 1 - 2j)),
    ("mask", lambda m, x: x[m.asarray([[True, False, True], [False, False, True]])]),
]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize(("name", "f"), MOVES, ids=[n for n, _ in MOVES])
def test_moving_elements_matches_numpy(name: str, f: Callable[[Any, Any], Any], dtype: np.dtype) -> None:
    a = sample(dtype)
    a[0, 1] = complex(NAN, -INF)
    got = f(donate, donate.asarray(a))
    same(got, np.ascontiguousarray(f(np, a)))


REFUSED: list[tuple[str, Callable[[donate.Tensor], Any]]] = [
    ("less", lambda t: donate.less(t, t)),
    ("greater", lambda t: donate.greater(t, t)),
    ("maximum", lambda t: donate.maximum(t, t)),
    ("relu", lambda t: t.relu()),
    ("floor", lambda t: donate.floor(t)),
    ("atan2", lambda t: donate.atan2(t, t)),
    ("hypot", lambda t: donate.hypot(t, t)),
    ("logaddexp", lambda t: donate.logaddexp(t, t)),
    ("floor_divide", lambda t: t // t),
    ("remainder", lambda t: t % t),
    ("imax", lambda t: t.__imul__(donate.maximum(t, t))),
    ("max", lambda t: donate.max(t)),
    ("max", lambda t: donate.max(t, axis=0)),
    ("min", lambda t: donate.min(t)),
    ("argmax", lambda t: donate.argmax(t)),
    ("argmin", lambda t: donate.argmin(t, axis=0)),
    ("sort", lambda t: donate.sort(t)),
    ("argsort", lambda t: donate.argsort(t)),
    ("cumulative_max", lambda t: donate._core._cumulative_max(t, axis=0)),
    ("clip", lambda t: donate.clip(t, 0, 1)),
    ("round", lambda t: donate.round(t)),
    ("softmax", lambda t: donate.softmax(t)),
]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize(("name", "f"), REFUSED, ids=[f"{n}-{i}" for i, (n, _) in enumerate(REFUSED)])
def test_operations_without_complex_support_raise_type_error(
    name: str, f: Callable[[donate.Tensor], Any], dtype: np.dtype
) -> None:
    a = sample(dtype)
    t = donate.asarray(a)
    with pytest.raises(TypeError, match=str(dtype)):
        f(t)
    same(t, a)  # the input is untouched


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize(
    ("name", "f"),
    [
        ("sum", lambda t: donate.sum(t, dtype=donate.float64)),
        ("prod", lambda t: donate.prod(t, dtype=donate.float32)),
        ("linalg.trace", lambda t: donate.linalg.trace(t[:, :2], dtype=donate.float64)),
        ("astype", lambda t: donate.astype(t, donate.int32)),
    ],
)
def test_a_real_dtype_asked_of_complex_numbers_raises_rather_than_drop_the_imaginary_part(
    name: str, f: Callable[[donate.Tensor], Any], dtype: np.dtype
) -> None:
    t = donate.asarray(sample(dtype))
    with pytest.raises(TypeError, match="imaginary part would be lost"):
        f(t)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_truth_values_count_and_combine_as_numpy(dtype: np.dtype) -> None:
    a = np.array([[0, 1j, complex(NAN, 0)], [-0.0, 2, complex(0, -0.0)]], dtype)
    t = donate.asarray(a)
    same(donate.count_nonzero(t), np.asarray(np.count_nonzero(a)))
    same(donate.count_nonzero(t, axis=0), np.count_nonzero(a, axis=0))
    same(donate.logical_not(t), np.logical_not(a))
    for name in ("logical_and", "logical_or", "logical_xor"):
        same(getattr(donate, name)(t, t[::-1]), getattr(np, name)(a, a[::-1]))
        same(getattr(donate, name)(t, donate.asarray(a.real.copy())), getattr(np, name)(a, a.real))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_vector_norm_is_the_norm_of_the_magnitudes_as_numpy(dtype: np.dtype) -> None:
    a = sample(dtype) * (1 + 0.5j) - 2j
    t = donate.asarray(a)
    for kw in ({}, {"axis": 0}, {"axis": 1, "ord": 1}, {"ord": INF}, {"ord": -INF}, {"ord": 3, "axis": (0, 1), "keepdims": True}):
        got, want = np.asarray(donate.linalg.vector_norm(t, **kw)), np.linalg.vector_norm(a, **kw)
        assert got.dtype == want.dtype == a.real.dtype
        np.testing.assert_allclose(got, want, rtol=4 * np.finfo(got.dtype).eps)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["exp", "tanh", "sqrt", "neg", "log"])
def test_in_place_functions_of_complex_numbers_write_through_views(name: str, dtype: np.dtype) -> None:
    a = sample(dtype)
    t = donate.asarray(a)
    view = t[1]
    p = t.data_ptr()
    getattr(t, f"{name}_")()
    with np.errstate(all="ignore"):
        want = np.negative(a) if name == "neg" else getattr(np, name)(a)
    assert t.data_ptr() == p  # the same buffer, written
    assert_annex_g_like_numpy(name, a.ravel(), np.asarray(t).ravel(), want.ravel(), ulps=8)
    same(view, np.asarray(t)[1])  # the view sees the write


@pytest.mark.parametrize("dtype", COMPLEX)
def test_var_and_std_of_complex_numbers_are_real_as_numpy(dtype: np.dtype) -> None:
    a = sample(dtype) * (1 + 0.5j) + 1j
    t = donate.asarray(a)
    for kw in ({}, {"axis": 0}, {"axis": 1, "correction": 1}, {"axis": (0, 1), "keepdims": True}):
        nkw = dict(kw)
        if "correction" in nkw:
            nkw["ddof"] = nkw.pop("correction")
        for name in ("var", "std"):
            got, want = np.asarray(getattr(donate, name)(t, **kw)), getattr(np, name)(a, **nkw)
            assert got.dtype == want.dtype == a.real.dtype
            np.testing.assert_allclose(got, want, rtol=4 * np.finfo(got.dtype).eps)
    same(donate.jit(lambda x: donate.std(x, axis=0))(t), np.asarray(donate.std(t, axis=0)))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_a_complex_dtype_asked_of_a_real_running_sum_computes_in_it(dtype: np.dtype) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = donate.cumulative_sum(donate.asarray(a), axis=1, dtype=dtype)
    assert np.dtype(got.dtype) == dtype
    np.testing.assert_array_equal(np.asarray(got), np.cumsum(a, axis=1, dtype=dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_sum_prod_and_mean_match_numpy(dtype: np.dtype) -> None:
    a = sample(dtype, (3, 4))
    t = donate.asarray(a)
    for f in (
        lambda m, x: m.sum(x),
        lambda m, x: m.sum(x, axis=0),
        lambda m, x: m.sum(x, axis=1, keepdims=True),
        lambda m, x: m.prod(x, axis=1),
        lambda m, x: m.mean(x),
        lambda m, x: m.mean(x, axis=0),
        lambda m, x: x.sum(axis=-1),
    ):
        close(f(donate, t), np.asarray(f(np, a)))
    # asked of a real tensor, as NumPy's
    r = np.arange(6, dtype=np.float32).reshape(2, 3)
    close(donate.sum(donate.asarray(r), dtype=dtype), np.sum(r, dtype=dtype))
    close(donate.prod(donate.asarray(r), axis=0, dtype=dtype), np.prod(r, axis=0, dtype=dtype))
    # the special components pass through as NumPy's
    close(donate.sum(donate.asarray(special(dtype))), np.sum(special(dtype)))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_repr_shows_the_values_and_dtype(dtype: np.dtype) -> None:
    r = repr(donate.asarray(np.array([1 + 2j, complex(NAN, -INF)], dtype=dtype)))
    assert str(dtype) in r and "+2.j" in r and "nan" in r and "-infj" in r


# --- element-wise arithmetic --------------------------------------------------

def operands(dtype: np.dtype) -> np.ndarray:
    """Ordinary values and every special component (inf, nan, -0.0)."""
    return np.concatenate([sample(dtype, (6,)), special(dtype)])


BINARY: list[tuple[str, Callable[[Any, Any, Any], Any]]] = [
    ("add", lambda m, x, y: x + y),
    ("subtract", lambda m, x, y: x - y),
    ("multiply", lambda m, x, y: x * y),
    ("divide", lambda m, x, y: x / y),
    ("equal", lambda m, x, y: m.equal(x, y)),
    ("not_equal", lambda m, x, y: m.not_equal(x, y)),
]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize(("name", "f"), BINARY, ids=[n for n, _ in BINARY])
def test_binary_arithmetic_matches_numpy_on_every_pair(
    name: str, f: Callable[[Any, Any, Any], Any], dtype: np.dtype
) -> None:
    v = operands(dtype)
    x, y = np.repeat(v, len(v)), np.tile(v, len(v))  # every pair
    with np.errstate(all="ignore"):
        want = f(np, x, y)
    got = np.asarray(f(donate, donate.asarray(x), donate.asarray(y)))
    assert got.dtype == want.dtype
    if name in ("multiply", "divide"):
        # The same formulas as NumPy's (the textbook product, Smith's
        # quotient), to the last bit (see `close`).
        close(got, want)
    else:
        np.testing.assert_array_equal(got, want)


UNARY: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("negative", lambda m, x: -x),
    ("positive", lambda m, x: m.positive(x)),
    ("abs", lambda m, x: m.abs(x)),
    ("conj", lambda m, x: m.conj(x)),
    ("real", lambda m, x: m.real(x)),
    ("imag", lambda m, x: m.imag(x)),
    ("square", lambda m, x: m.square(x)),
    ("isnan", lambda m, x: m.isnan(x)),
    ("isinf", lambda m, x: m.isinf(x)),
    ("isfinite", lambda m, x: m.isfinite(x)),
]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize(("name", "f"), UNARY, ids=[n for n, _ in UNARY])
def test_unary_functions_match_numpy(name: str, f: Callable[[Any, Any], Any], dtype: np.dtype) -> None:
    x = operands(dtype)
    with np.errstate(all="ignore"):
        want = np.asarray(f(np, x))
    got = f(donate, donate.asarray(x))
    if name in ("square", "abs"):  # a product, a magnitude: see `close`
        close(got, want)
    else:
        same(got, want)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_sign_and_reciprocal_match_numpy_on_ordinary_values(dtype: np.dtype) -> None:
    x = np.append(sample(dtype, (6,)), 0j).astype(dtype)
    np.testing.assert_allclose(np.asarray(donate.sign(donate.asarray(x))), np.sign(x), rtol=2e-7)
    y = sample(dtype, (6,))
    np.testing.assert_allclose(np.asarray(donate.reciprocal(donate.asarray(y))), 1 / y, rtol=2e-7)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_python_numbers_are_weak_and_broadcasting_is_numpys(dtype: np.dtype) -> None:
    a = sample(dtype)
    t = donate.asarray(a)
    for f in (
        lambda x: x * 2.5,
        lambda x: 1 - x,
        lambda x: x + 1j,
        lambda x: (2 - 3j) / x,
        lambda x: x * True,
        lambda x: x + x[0],  # a row broadcast over the rows
        lambda x: x[:, :1] * x,  # a column
    ):
        close(f(t), f(a))
    # a real tensor meets a complex number as NumPy's (NEP 50)
    for real in (np.float32, np.float64, np.int8, np.int64, np.bool_):
        r = np.arange(3).astype(real)
        close(donate.asarray(r) * 1j, r * 1j)
        close(donate.asarray(r) + a[0], r + a[0])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_in_place_arithmetic_writes_through_the_target_as_numpy(dtype: np.dtype) -> None:
    a = sample(dtype)
    t = donate.asarray(a)
    view = t[0]
    t *= 1 + 1j
    t += t
    a *= 1 + 1j
    a += a
    close(t, a)
    close(view, a[0])  # a view of the target sees the write
    with pytest.raises(TypeError):
        f = donate.zeros(3)
        f += donate.asarray(a[0])  # complex into float32: not same-kind


def test_a_donated_complex_operand_receives_the_result() -> None:
    x = sample(np.dtype("complex128"))
    a, b = donate.asarray(x), donate.asarray(x[::-1].copy())
    p = a.data_ptr()
    r = a.donate() * b
    assert r.data_ptr() == p  # written over a's buffer
    assert a.is_donated
    close(r, x * x[::-1])


def test_a_temporary_complex_result_is_reused(stats: Any) -> None:
    x = sample(np.dtype("complex64"))
    a = donate.asarray(x)
    d = stats()
    r = (a * a + a) * 2 - 1j
    assert d["allocations"] == 1  # the first product, then every step over it
    close(r, (x * x + x) * 2 - 1j)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_jit_traces_complex_arithmetic_and_matches_eager(dtype: np.dtype) -> None:
    def f(x, y):  # type: ignore[no-untyped-def]
        return donate.abs(x * y - 1j) + donate.real(donate.conj(x) / y)

    a, b = sample(dtype), sample(dtype)[::-1].copy()
    eager = f(donate.asarray(a), donate.asarray(b))
    traced = donate.jit(f)(donate.asarray(a), donate.asarray(b))
    same(traced, np.asarray(eager))  # the same kernels: bit for bit
    np.testing.assert_allclose(np.asarray(eager), np.abs(a * b - 1j) + np.real(np.conj(a) / b), rtol=1e-6)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_assignment_into_a_complex_tensor_matches_numpy(dtype: np.dtype) -> None:
    a = sample(dtype)
    t = donate.asarray(a)
    t[0] = 1 - 2j
    t[1, 1:] = donate.asarray(np.array([5j, -1], dtype=dtype))
    t[:, 0] = 7
    a[0] = 1 - 2j
    a[1, 1:] = np.array([5j, -1], dtype=dtype)
    a[:, 0] = 7
    same(t, a)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_assignment_by_masks_and_integer_arrays_matches_numpy(dtype: np.dtype) -> None:
    a = sample(dtype)
    t = donate.asarray(a)
    mask = np.array([[True, False, True], [False, False, True]])
    t[donate.asarray(mask)] = 2 - 1j
    a[mask] = 2 - 1j
    same(t, a)
    t[donate.asarray(mask)] = donate.asarray(np.array([1j, 2, 3 + 3j], dtype))
    a[mask] = np.array([1j, 2, 3 + 3j], dtype)
    same(t, a)
    t[donate.asarray(np.array([1, 0]))] = donate.asarray(a[0] * 2)
    a[np.array([1, 0])] = a[0] * 2
    same(t, a)


def test_where_over_a_donated_complex_operand_writes_its_buffer() -> None:
    x = sample(np.dtype("complex64"))
    a = donate.asarray(x)
    p = a.data_ptr()
    r = donate.where(donate.asarray([True, False, True]), a.donate(), 0j)
    assert r.data_ptr() == p
    same(r, np.where([True, False, True], x, np.complex64(0)))


def test_a_complex_value_into_a_real_tensor_is_refused() -> None:
    t = donate.zeros(3)
    with pytest.raises(TypeError):
        t[0] = 1 + 2j
    with pytest.raises(TypeError):
        t[1:] = donate.asarray(np.array([1j, 2], dtype=np.complex64))
    same(t, np.zeros(3, np.float32))


def annex_g_grid(dtype: np.dtype) -> np.ndarray:
    """Every pair of parts from zeros of both signs, ordinary values of
    both signs, infinities and NaN: the cases C99's Annex G lists."""
    parts = [0.0, -0.0, 0.5, -2.0, 3.0, INF, -INF, NAN]
    return np.array([complex(a, b) for a in parts for b in parts], dtype=dtype)


TRANSCENDENTAL = [
    "exp", "log", "sqrt", "log2", "log10", "expm1", "log1p",
    "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "asin", "acos", "atan", "asinh", "acosh", "atanh",
]  # fmt: skip
NUMPY_NAME = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh"}


def assert_annex_g_like_numpy(name: str, x: np.ndarray, got: np.ndarray, want: np.ndarray, ulps: int) -> None:
    """NaN where NumPy's is NaN, infinities where NumPy's are, and of its
    sign and zeros of its sign where the operand's parts are finite (with
    an infinite or NaN part the annex leaves some signs unspecified, and
    NumPy's choice is not asserted there), values to `ulps` units in the
    last place (the C library's and NumPy's SIMD loops round differently)."""
    assert got.dtype == want.dtype
    finite_x = np.isfinite(x.real) & np.isfinite(x.imag)
    for part in ("real", "imag"):
        g, w = getattr(got, part), getattr(want, part)
        where = f"{name} {part} at {x}"
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"NaN: {where}")
        np.testing.assert_array_equal(np.isinf(g), np.isinf(w), err_msg=f"inf: {where}")
        fin = np.isfinite(w)
        np.testing.assert_allclose(g[fin], w[fin], rtol=ulps * np.finfo(w.dtype).eps, atol=0, err_msg=where)
        inf = np.isinf(w) & finite_x
        np.testing.assert_array_equal(np.sign(g[inf]), np.sign(w[inf]), err_msg=where)
        zero = (w == 0) & finite_x
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"zero sign: {where}")


def reference(name: str, x: np.ndarray) -> np.ndarray:
    """NumPy's result, except where NumPy's own formula departs from the
    standard or loses digits:
    - `expm1`: NumPy's `expm1(a) cos(b) - 2 sin^2(b/2) + i e^a sin(b)`
      makes NaNs of the standard's results for infinite or huge real parts
      (`expm1(inf + 0j)` is `inf + 0j`, `expm1(-inf + infj)` is `-1 + 0j`);
      there `exp(z) - 1` is the reference, which has them;
    - `expm1(-0 + 0j)` is the standard's `+0 + 0j` (NumPy's `-0 + 0j`);
    - `tanh(±inf + iy)`: the zero's sign is y's (the standard's `1 + 0j`
      for y > 0, where NumPy's takes sin(2y)'s);
    - `log1p`: NumPy's `log(hypot(1 + a, b))` loses digits near `|1 + z| =
      1`, so the finite values are mpmath's, at 200 bits."""
    with np.errstate(all="ignore"):
        want = getattr(np, NUMPY_NAME.get(name, name))(x)
        if name == "expm1":
            far = ~np.isfinite(x.real) | ~np.isfinite(x.imag) | (np.abs(x.real) > 80)
            want[far] = np.exp(x[far]) - 1
            # the standard's expm1(±0 ± 0j) = +0 ± 0j (NumPy's is -0 for -0)
            zero = x == 0
            want.real[zero] = 0.0
            want.imag[zero] = x.imag[zero]
    if name == "tanh":
        # tanh(±inf + iy) = ±1 ± 0j with y's sign (the standard's `1 + 0j`
        # for y > 0; C99, and so NumPy, takes sin(2y)'s)
        edge = np.isinf(x.real) & np.isfinite(x.imag)
        want.real[edge] = np.sign(x.real[edge])
        want.imag[edge] = np.copysign(0.0, x.imag[edge])
    if name == "log1p":
        import mpmath

        mpmath.mp.prec = 200
        for i, z in enumerate(x.astype(complex)):
            if np.isfinite(z) and z != -1:
                r = mpmath.log(1 + mpmath.mpc(z.real, z.imag))
                # mpmath has no signed zeros: the imaginary part of a real
                # z takes its zero's sign, as atan2 gives
                want[i] = complex(float(r.real), math.copysign(float(r.imag), z.imag))
    return want


def ordinary_values(dtype: np.dtype) -> np.ndarray:
    """Parts spread over many magnitudes and both signs, the branch cuts'
    neighbourhoods (|x| near 1 on either axis) and tiny and huge parts."""
    rng = np.random.default_rng(7)
    mags = 10.0 ** rng.uniform(-6, 6, size=(2, 400))
    signs = rng.choice([-1.0, 1.0], size=(2, 400))
    parts = mags * signs
    near = [0.0, 1e-30, 1e-8, 0.5, 0.999, 1.0, 1.001, 2.0, 1e8, 1e30]
    grid = [complex(a * s, b * t) for a in near for b in near for s in (1, -1) for t in (1, -1)]
    return np.concatenate([parts[0] + 1j * parts[1], np.array(grid)]).astype(dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", TRANSCENDENTAL)
@pytest.mark.parametrize(
    ("values", "ulps"),
    [(annex_g_grid, 8), (ordinary_values, 16)],
    ids=["annex-g-grid", "ordinary-values"],
)
def test_transcendental_functions_follow_annex_g_as_numpy(
    name: str, dtype: np.dtype, values: Callable[[np.dtype], np.ndarray], ulps: int
) -> None:
    x = values(dtype)
    got = np.asarray(getattr(donate, name)(donate.asarray(x)))
    assert_annex_g_like_numpy(name, x, got, reference(name, x), ulps=ulps)


@pytest.mark.parametrize("name", ["tanh", "sin", "atanh", "log1p"])
def test_a_donated_complex_operand_receives_a_transcendental_result(name: str) -> None:
    x = sample(np.dtype("complex64"))
    a = donate.asarray(x)
    p = a.data_ptr()
    r = getattr(donate, name)(a.donate())
    assert r.data_ptr() == p  # written over a's buffer
    assert a.is_donated
    flat = x.ravel()
    assert_annex_g_like_numpy(name, flat, np.asarray(r).ravel(), reference(name, flat), ulps=16)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_jit_traces_the_transcendental_functions_and_matches_eager(dtype: np.dtype) -> None:
    def f(x):  # type: ignore[no-untyped-def]
        return donate.atanh(donate.sin(x) * donate.cosh(x) ** 2) + donate.expm1(x / 4)

    a = sample(dtype)
    eager = f(donate.asarray(a))
    traced = donate.jit(f)(donate.asarray(a))
    same(traced, np.asarray(eager))  # the same kernels: bit for bit


@pytest.mark.parametrize("dtype", COMPLEX)
def test_pow_matches_numpy(dtype: np.dtype) -> None:
    base = sample(dtype)
    with np.errstate(all="ignore"):
        # repeated products round at each step (the C compiler may fuse
        # NumPy's): a few units in the last place per product
        rtol = 16 * np.finfo(dtype).eps
        for w in (2, 3, -2, 7, 0.5, 1.5j, 2 - 1j):
            got = np.asarray(donate.asarray(base) ** w)
            assert got.dtype == dtype
            np.testing.assert_allclose(got, base**w, rtol=rtol)
        e = sample(dtype)[::-1]
        got = np.asarray(donate.pow(donate.asarray(base), donate.asarray(e)))
        np.testing.assert_allclose(got, np.power(base, e), rtol=rtol)
        zero = np.zeros(3, dtype)
        same(donate.asarray(zero) ** donate.asarray(np.array([2, 0, 1 + 1j], dtype)), np.array([0, 1, 0], dtype))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_exp_of_an_imaginary_phase_is_a_unit_circle(dtype: np.dtype) -> None:
    theta = np.linspace(-7, 7, 101).astype(np.dtype(dtype).type(0).real.dtype)
    t = donate.exp(1j * donate.asarray(theta))
    close(t, np.exp(1j * theta))


PRODUCTS: list[tuple[str, Callable[[Any, Any, Any], Any]]] = [
    ("tensordot", lambda m, x, y: m.tensordot(x, y.T, axes=1)),
    ("tensordot pairs", lambda m, x, y: m.tensordot(x, y, axes=([0, 1], [0, 1]))),
    ("vecdot", lambda m, x, y: m.vecdot(x, y)),  # conj(x) . y
    ("vecdot axis 0", lambda m, x, y: m.vecdot(x, y, axis=0)),
    ("outer", lambda m, x, y: m.linalg.outer(x[0], y[1]) if m is donate else np.outer(x[0], y[1])),
    ("cross", lambda m, x, y: m.linalg.cross(x, y) if m is donate else np.cross(x, y)),
    ("trace", lambda m, x, y: m.linalg.trace(x[:, :2]) if m is donate else np.trace(x[:, :2])),
    ("diagonal", lambda m, x, y: m.linalg.diagonal(x, offset=1) if m is donate else np.diagonal(x, 1)),
    (
        "matrix_power",
        lambda m, x, y: m.linalg.matrix_power(x[:, :2], 5) if m is donate else np.linalg.matrix_power(x[:, :2], 5),
    ),
]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize(("name", "f"), PRODUCTS, ids=[n for n, _ in PRODUCTS])
def test_sums_of_products_match_numpy(name: str, f: Callable[[Any, Any, Any], Any], dtype: np.dtype) -> None:
    x, y = sample(dtype), sample(dtype)[::-1] * (1 - 0.5j)
    got = np.asarray(f(donate, donate.asarray(x), donate.asarray(y)))
    want = np.asarray(f(np, x, y))
    assert got.dtype == want.dtype == dtype
    # sums in complex128 (NumPy's complex64 sums in complex64)
    np.testing.assert_allclose(got, want, rtol=32 * np.finfo(dtype).eps)


def close_product(t: donate.Tensor, a: np.ndarray, b: np.ndarray) -> None:
    """`t` is `a @ b` summed in another order than NumPy's BLAS: each
    element within the error bound of a sum of `k` products, a few ulps
    of the sum of their magnitudes (`|a| @ |b|`), not of the result,
    which may cancel."""
    want, got = a @ b, np.asarray(t)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    k = a.shape[-1]
    bound = (k + 4) * np.finfo(want.dtype).eps * (np.abs(a) @ np.abs(b))
    assert (np.abs(got - want) <= bound).all(), (got, want)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_matmul_matches_numpy(dtype: np.dtype) -> None:
    rng = np.random.default_rng(0)
    for sa, sb in [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)), ((4,), (4, 3)), ((5,), (5,)), ((0, 3), (3, 2))]:
        a = (rng.standard_normal(sa) + 1j * rng.standard_normal(sa)).astype(dtype)
        b = (rng.standard_normal(sb) + 1j * rng.standard_normal(sb)).astype(dtype)
        close_product(donate.asarray(a) @ donate.asarray(b), a, b)
    # a strided (transposed) operand, and a real one promoted
    a = sample(dtype, (3, 4))
    close_product(donate.asarray(a).T @ donate.asarray(a), a.T, a)
    r = np.arange(12, dtype=np.float32).reshape(4, 3)
    close_product(donate.asarray(a) @ donate.asarray(r), a, r)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_of_a_one_element_tensor_is_python_complex(dtype: np.dtype) -> None:
    assert complex(donate.asarray(np.array(1.5 - 2j, dtype=dtype))) == 1.5 - 2j
    assert complex(donate.asarray(np.array(3.0, dtype=np.float32))) == 3 + 0j
    # As NumPy 2's: only a 0-d tensor converts, even of one element.
    for a in (np.array([3.0], dtype=np.float32), sample(dtype)):
        with pytest.raises(TypeError):
            complex(a)
        with pytest.raises(TypeError):
            complex(donate.asarray(a))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_fills_and_meshgrid_of_complex_tensors_match_numpy(dtype: np.dtype) -> None:
    a = sample(dtype)
    t = donate.asarray(a)
    same(donate.zeros_like(t), np.zeros_like(a))
    same(donate.ones_like(t), np.ones_like(a))
    same(donate.full_like(t, 2 - 1j), np.full_like(a, 2 - 1j))
    assert donate.empty_like(t).dtype == dtype
    r = donate.asarray(np.arange(3, dtype=np.float32))
    same(donate.zeros_like(r, dtype=dtype), np.zeros(3, dtype))
    x, y = donate.meshgrid(donate.asarray(a[0]), donate.asarray(a[1, :2]))
    nx, ny = np.meshgrid(a[0], a[1, :2])
    same(x, nx)
    same(y, ny)


def test_a_donated_complex_tensor_receives_its_fill() -> None:
    t = donate.asarray(sample(np.dtype("complex64")))
    p = t.data_ptr()
    r = donate.ones_like(t.donate())
    assert r.data_ptr() == p and t.is_donated
    same(r, np.ones((2, 3), np.complex64))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (3, 5), (0, 2), (2, 2, 0)])
def test_functions_of_the_singular_values_of_complex_stacks_match_numpy(shape: tuple[int, ...], dtype: np.dtype) -> None:
    rng = np.random.default_rng(5)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    t = donate.asarray(a)
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    sv = donate.linalg.svdvals(t)
    assert np.dtype(sv.dtype) == np.finfo(dtype).dtype  # real, of the input's precision
    np.testing.assert_allclose(np.asarray(sv), np.linalg.svd(a, compute_uv=False), rtol=tol, atol=tol)
    p = donate.linalg.pinv(t)
    assert np.dtype(p.dtype) == dtype
    np.testing.assert_allclose(np.asarray(p), np.linalg.pinv(a), rtol=tol * 10, atol=tol * 10)
    np.testing.assert_array_equal(np.asarray(donate.linalg.matrix_rank(t)), np.linalg.matrix_rank(a))
    same(t, a)  # the input is untouched


def _complex_stack(dtype: np.dtype, shape: tuple[int, ...], seed: int = 11) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _hermitian_positive_definite(dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    a = _complex_stack(np.dtype(np.complex128), shape)
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])
    return h.astype(dtype)


def _tol(dtype: np.dtype) -> float:
    return 2e-4 if dtype == np.complex64 else 1e-10


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0), (2, 0, 0)])
def test_complex_square_decompositions_match_numpy(shape: tuple[int, ...], dtype: np.dtype) -> None:
    a = _hermitian_positive_definite(dtype, shape) if shape[-1] else np.zeros(shape, dtype)
    t = donate.asarray(a)
    tol = _tol(dtype)
    real = np.finfo(dtype).dtype

    def check(got: donate.Tensor, want: np.ndarray, dt: np.dtype) -> None:
        assert np.dtype(got.dtype) == dt
        np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)

    check(donate.linalg.inv(t), np.linalg.inv(a), dtype)
    check(donate.linalg.det(t), np.linalg.det(a), dtype)
    sign, logabs = donate.linalg.slogdet(t)
    want_sign, want_log = np.linalg.slogdet(a)
    check(sign, want_sign, dtype)
    check(logabs, want_log, real)
    # Cholesky's factor is unique (a positive real diagonal).
    check(donate.linalg.cholesky(t), np.linalg.cholesky(a), dtype)
    check(donate.linalg.cholesky(t, upper=True), np.linalg.cholesky(a, upper=True), dtype)
    check(donate.linalg.eigvalsh(t), np.linalg.eigvalsh(a), real)
    w, v = donate.linalg.eigh(t)
    check(w, np.linalg.eigvalsh(a), real)
    assert np.dtype(v.dtype) == dtype
    v = np.asarray(v)
    # Eigenvectors up to a phase: A·v = v·diag(w).
    np.testing.assert_allclose(a @ v, v * np.asarray(w)[..., None, :], rtol=tol * 10, atol=tol * 100)
    b = _complex_stack(dtype, shape[:-1] + (2,), seed=3)
    check(donate.linalg.solve(t, donate.asarray(b)), np.linalg.solve(a, b), dtype)
    for ord in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        if shape[-1] or ord in ("fro", "nuc"):
            check(donate.linalg.matrix_norm(t, ord=ord), np.linalg.matrix_norm(a, ord=ord), real)
    check(donate.linalg.matrix_power(t, -2), np.linalg.matrix_power(a, -2), dtype)
    same(t, a)  # the input is untouched


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (3, 5), (0, 2), (2, 2, 0)])
@pytest.mark.parametrize("full", [False, True])
def test_complex_qr_and_svd_reconstruct_and_match_numpys_values(
    shape: tuple[int, ...], dtype: np.dtype, full: bool
) -> None:
    a = _complex_stack(dtype, shape)
    t = donate.asarray(a)
    tol = _tol(dtype) * 10
    adj = lambda m: np.conj(np.swapaxes(m, -1, -2))  # noqa: E731
    q, r = (np.asarray(m) for m in donate.linalg.qr(t, mode="complete" if full else "reduced"))
    wq, wr = np.linalg.qr(a, mode="complete" if full else "reduced")
    assert q.shape == wq.shape and r.shape == wr.shape and q.dtype == r.dtype == dtype
    np.testing.assert_allclose(q @ r, a, rtol=tol, atol=tol)
    np.testing.assert_allclose(adj(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), adj(q).shape[:-1] + (q.shape[-1],)), atol=tol)
    assert np.all(np.tril(r, -1) == 0)  # exactly upper triangular
    u, s, vh = donate.linalg.svd(t, full_matrices=full)
    wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
    assert np.dtype(s.dtype) == np.finfo(dtype).dtype and np.dtype(u.dtype) == np.dtype(vh.dtype) == dtype
    u, s, vh = np.asarray(u), np.asarray(s), np.asarray(vh)
    assert u.shape == wu.shape and s.shape == ws.shape and vh.shape == wvh.shape
    np.testing.assert_allclose(s, ws, rtol=tol, atol=tol)
    k = s.shape[-1]
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, rtol=tol, atol=tol)
    same(t, a)


def test_complex_singular_matrices_refuse_as_real_ones() -> None:
    a = np.array([[1 + 1j, 2 + 2j], [1, 2]], np.complex128) * np.array([[1], [0]])  # a zero row
    t = donate.asarray(a)
    with pytest.raises(donate.linalg.LinAlgError, match="singular"):
        donate.linalg.inv(t)
    assert complex(np.asarray(donate.linalg.det(t))) == 0
    sign, logabs = donate.linalg.slogdet(t)
    assert complex(np.asarray(sign)) == 0 and float(np.asarray(logabs)) == -np.inf
    with pytest.raises(donate.linalg.LinAlgError, match="positive definite"):
        donate.linalg.cholesky(donate.asarray(-np.eye(2, dtype=np.complex64)))


def test_complex_slogdet_sign_is_the_determinants_phase() -> None:
    a = np.array([[1j, 2], [3, 4 - 1j]], np.complex128)
    sign, logabs = donate.linalg.slogdet(donate.asarray(a))
    d = np.linalg.det(a)
    np.testing.assert_allclose(complex(np.asarray(sign)), d / abs(d), rtol=1e-14)
    np.testing.assert_allclose(float(np.asarray(logabs)), np.log(abs(d)), rtol=1e-14)


def test_complex_rank_drops_a_dependent_row() -> None:
    a = np.array([[1 + 1j, 2 - 1j, 0.5j], [2 + 2j, 4 - 2j, 1j], [0, 1, 1]], dtype=np.complex128)
    assert int(np.asarray(donate.linalg.matrix_rank(donate.asarray(a)))) == 2
    np.testing.assert_allclose(np.asarray(donate.linalg.pinv(donate.asarray(a))), np.linalg.pinv(a), atol=1e-12)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize(("n", "axis"), [(1, -1), (2, 0), (3, 1), (0, 0)])
def test_diff_of_complex_tensors_matches_numpy(n: int, axis: int, dtype: np.dtype) -> None:
    rng = np.random.default_rng(2)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype)
    t = donate.asarray(a)
    got = donate.diff(t, n=n, axis=axis)
    assert np.dtype(got.dtype) == dtype
    np.testing.assert_array_equal(np.asarray(got), np.diff(a, n=n, axis=axis))
    # prepend promotes as NumPy (a float64 with complex64: complex128).
    p = np.ones((3, 1))
    got = donate.diff(t, prepend=donate.asarray(p), axis=1)
    want = np.diff(a, prepend=p, axis=1)
    assert np.dtype(got.dtype) == want.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    same(t, a)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@pytest.mark.parametrize(("axis", "include_initial"), [(0, False), (1, False), (1, True), (0, True)])
def test_running_sums_and_products_of_complex_tensors_match_numpy(
    name: str, axis: int, include_initial: bool, dtype: np.dtype
) -> None:
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype)
    t = donate.asarray(a)
    got = getattr(donate, name)(t, axis=axis, include_initial=include_initial)
    want = (np.cumsum if name == "cumulative_sum" else np.cumprod)(a, axis=axis)
    if include_initial:
        first = np.zeros if name == "cumulative_sum" else np.ones
        shape = list(a.shape)
        shape[axis] = 1
        want = np.concatenate([first(shape, dtype), want], axis=axis)
    assert np.dtype(got.dtype) == dtype
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)
    same(t, a)


def test_a_donated_complex_running_sum_writes_its_input_buffer() -> None:
    a = np.arange(6, dtype=np.complex128).reshape(2, 3) * (1 + 1j)
    t = donate.asarray(a.copy())
    ptr = t.data_ptr()
    r = donate.cumulative_sum(t.donate(), axis=1)
    assert r.data_ptr() == ptr
    np.testing.assert_array_equal(np.asarray(r), np.cumsum(a, axis=1))


def test_a_real_dtype_asked_of_a_complex_running_sum_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="imaginary part"):
        donate.cumulative_sum(donate.ones(3, dtype=donate.complex64), dtype=donate.float32)


def test_an_unsupported_dtype_names_the_complex_ones_among_those_supported() -> None:
    with pytest.raises(TypeError, match=r"float64, complex64 and complex128$"):
        donate.zeros(2, dtype="not a dtype")


@pytest.mark.parametrize("dtype", COMPLEX)
def test_unique_of_complex_values_matches_numpy(dtype: np.dtype) -> None:
    # Ties in the real part are ordered by the imaginary part, as NumPy's.
    a = np.array([[1 + 2j, 1 - 1j, -3j], [1 + 2j, 0j, 1 - 1j]], dtype)
    t = donate.asarray(a)
    got = donate.unique_all(t)
    values, index, inverse, counts = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    assert np.dtype(got.values.dtype) == dtype
    np.testing.assert_array_equal(np.asarray(got.values), values)
    np.testing.assert_array_equal(np.asarray(got.indices), index)
    np.testing.assert_array_equal(np.asarray(got.inverse_indices), inverse.reshape(a.shape))
    np.testing.assert_array_equal(np.asarray(got.counts), counts)
    np.testing.assert_array_equal(np.asarray(donate.unique_values(t)), values)
    same(t, a)


def test_unique_of_complex_counts_each_nan_apart_after_the_numbers() -> None:
    nan = float("nan")
    a = np.array([complex(nan, 0), 2 + 0j, complex(0, nan), 2 + 0j, complex(nan, 0), 5 - 1j], np.complex128)
    got = donate.unique_counts(donate.asarray(a))
    v = np.asarray(got.values)
    # The numbers first, then the three NaNs, each with count 1 (the
    # standard's rule), in NumPy's sort order (`R + nanj` before `nan + Rj`).
    np.testing.assert_array_equal(v, np.sort(a)[[0, 2, 3, 4, 5]])
    assert np.asarray(got.counts).tolist() == [2, 1, 1, 1, 1]


@pytest.mark.parametrize("x", [np.array([1 + 2j, -3.5j]), np.array([1.5, -2.0]), np.arange(3), np.array(2 - 1j, np.complex64)])
def test_real_and_imag_attributes_are_numpy_s_values(x: np.ndarray) -> None:
    t = donate.asarray(x)
    for got, want in ((t.real, x.real), (t.imag, x.imag)):
        assert isinstance(got, donate.Tensor)
        g = np.asarray(got)
        assert g.dtype == want.dtype and g.shape == want.shape
        np.testing.assert_array_equal(g, want)

"""complex64 and complex128: the dtypes end to end (creation, astype,
NumPy and DLPack exchange, promotion, the operations that move or view
elements), compared with NumPy; and every other operation given a complex
tensor raises a TypeError naming itself and the dtype (never a crash,
never a real kernel reading complex data)."""

from __future__ import annotations

import itertools
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
]


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize(("name", "f"), MOVES, ids=[n for n, _ in MOVES])
def test_moving_elements_matches_numpy(name: str, f: Callable[[Any, Any], Any], dtype: np.dtype) -> None:
    a = sample(dtype)
    a[0, 1] = complex(NAN, -INF)
    got = f(donate, donate.asarray(a))
    same(got, np.ascontiguousarray(f(np, a)))


REFUSED: list[tuple[str, Callable[[donate.Tensor], Any]]] = [
    ("add", lambda t: t + t),
    ("add", lambda t: t + 1),
    ("subtract", lambda t: t - t),
    ("multiply", lambda t: t * t),
    ("divide", lambda t: t / t),
    ("negative", lambda t: -t),
    ("equal", lambda t: donate.equal(t, t)),
    ("not_equal", lambda t: donate.not_equal(t, t)),
    ("less", lambda t: donate.less(t, t)),
    ("greater", lambda t: donate.greater(t, t)),
    ("abs", lambda t: donate.abs(t)),
    ("exp", lambda t: donate.exp(t)),
    ("log", lambda t: donate.log(t)),
    ("sqrt", lambda t: donate.sqrt(t)),
    ("sin", lambda t: donate.sin(t)),
    ("conj", lambda t: donate.conj(t)),
    ("real", lambda t: donate.real(t)),
    ("imag", lambda t: donate.imag(t)),
    ("sum", lambda t: donate.sum(t)),
    ("sum", lambda t: donate.sum(t, axis=0)),
    ("prod", lambda t: donate.prod(t)),
    ("mean", lambda t: donate.mean(t)),
    ("mean", lambda t: donate.mean(t, axis=1)),
    ("max", lambda t: donate.max(t)),
    ("max", lambda t: donate.max(t, axis=0)),
    ("min", lambda t: donate.min(t)),
    ("std", lambda t: donate.std(t)),
    ("var", lambda t: donate.var(t)),
    ("argmax", lambda t: donate.argmax(t)),
    ("argmin", lambda t: donate.argmin(t, axis=0)),
    ("sort", lambda t: donate.sort(t)),
    ("argsort", lambda t: donate.argsort(t)),
    ("unique", lambda t: donate.unique_values(t)),
    ("cumulative_sum", lambda t: donate.cumulative_sum(t, axis=0)),
    ("matmul", lambda t: t @ t.T),
    ("tensordot", lambda t: donate.tensordot(t, t.T, axes=1)),
    ("where", lambda t: donate.where(donate.asarray([True, False, True]), t, t)),
    ("clip", lambda t: donate.clip(t, 0, 1)),
    ("count_nonzero", lambda t: donate.count_nonzero(t)),
    ("isnan", lambda t: donate.isnan(t)),
    ("sign", lambda t: donate.sign(t)),
    ("round", lambda t: donate.round(t)),
    ("softmax", lambda t: donate.softmax(t)),
    ("diff", lambda t: donate.diff(t)),
    ("take", lambda t: donate.take(t, donate.asarray([0]), axis=0)),
    ("setitem", lambda t: t.__setitem__(0, 0)),
    ("iadd", lambda t: t.__iadd__(t)),
    ("linalg.inv", lambda t: donate.linalg.inv(t[:, :2])),
    ("vecdot", lambda t: donate.vecdot(t, t)),
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
def test_a_complex_result_dtype_asked_of_a_real_operation_raises(dtype: np.dtype) -> None:
    t = donate.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.raises(TypeError, match=str(dtype)):
        donate.sum(t, dtype=dtype)
    with pytest.raises(TypeError, match=str(dtype)):
        donate.prod(t, axis=0, dtype=dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_repr_shows_the_values_and_dtype(dtype: np.dtype) -> None:
    r = repr(donate.asarray(np.array([1 + 2j, complex(NAN, -INF)], dtype=dtype)))
    assert str(dtype) in r and "+2.j" in r and "nan" in r and "-infj" in r

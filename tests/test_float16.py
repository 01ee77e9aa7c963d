"""float16, a storage dtype: tensors hold NumPy's two-byte elements, the
operations that only move elements copy them bit for bit, and every other
one computes in float32 and rounds its result once, as NumPy's float16
loops do. Compared with NumPy 2: creation, astype, NumPy and DLPack
exchange, finfo, promotion, arithmetic, reductions, moves, writes (through
views too), refused donation, linear algebra and jit."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate

F16 = np.dtype("float16")
REAL_NAMES = "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64"
REAL: list[np.dtype[Any]] = [np.dtype(n) for n in REAL_NAMES.split()]
COMPLEX: list[np.dtype[Any]] = [np.dtype("complex64"), np.dtype("complex128")]
ALL: list[np.dtype[Any]] = [*REAL, *COMPLEX, F16]
INF, NAN = np.inf, np.nan


def special() -> np.ndarray:
    """NaNs (NumPy's, one with a payload, a negative one), infinities,
    signed zeros, ±65504, the smallest normal and subnormal numbers, the
    largest subnormal, 1 and the float16 nearest 1/3."""
    raw = [0x7E00, 0x7E01, 0xFE00, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x7BFF]
    raw += [0xFBFF, 0x0400, 0x0001, 0x8001, 0x03FF, 0x3C00, 0x3555]
    return np.array(raw, np.uint16).view(F16)


def sample(shape: tuple[int, ...] = (2, 3), lo: float = -2.5, hi: float = 3.0) -> np.ndarray:
    """Distinct float16 values from `lo` to `hi`, none a zero."""
    return np.linspace(lo, hi, int(np.prod(shape))).astype(F16).reshape(shape)


def spread(n: int = 1000, seed: int = 0) -> np.ndarray:
    """Values over float16's whole range, then the special ones."""
    rng = np.random.default_rng(seed)
    x = np.clip(rng.standard_normal(n) * np.exp2(rng.uniform(-16, 15, n)), -65000, 65000)
    return np.concatenate([x.astype(F16), special()])


def numpy_of(t: Any, want: np.ndarray) -> np.ndarray:
    """`t`, a donate tensor of `want`'s dtype and shape, as NumPy's."""
    assert isinstance(t, donate.Tensor), type(t)
    got = np.asarray(t)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got.dtype, got.shape, want.dtype, want.shape)
    return got


def bits(t: Any, want: np.ndarray) -> None:
    """`t` holds `want`'s very bytes (NaN payloads, signs of zeros)."""
    got = numpy_of(t, want)
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), (got, want)


def equal(t: Any, want: np.ndarray) -> None:
    """`t` holds `want`'s values: a NaN (of any sign or payload) where it
    has one, zeros of its zeros' signs."""
    got = numpy_of(t, want)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))


def close(t: Any, want: np.ndarray, rtol: float = 1e-3) -> None:
    """`t` holds `want`'s values to `rtol` (1e-3: a float16 unit in the
    last place), infinities and NaNs where it has them."""
    got = numpy_of(t, want)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=0, equal_nan=True)


def ns(x: Any) -> Any:
    """donate for a donate tensor, NumPy for a NumPy array."""
    return donate if isinstance(x, donate.Tensor) else np


def tensor_of(x: Any) -> Any:
    """A NumPy array as a donate tensor; anything else as it is."""
    return donate.asarray(x) if isinstance(x, np.ndarray) else x


def test_float16_is_numpys_dtype_of_two_bytes() -> None:
    assert donate.float16 == F16
    assert donate.isdtype(donate.float16, "real floating")
    t = donate.empty((2, 3), dtype=donate.float16)
    assert t.dtype == donate.float16 and str(t.dtype) == "float16" and t.shape == (2, 3)
    assert (t.itemsize, t.nbytes) == (2, 12)  # half of float32's memory, as NumPy's
    assert donate.empty_like(t).dtype == donate.float16


def test_numpy_and_dlpack_round_trips_keep_every_bit() -> None:
    for a in (special(), sample(), sample(()), sample((0, 2)), sample((4, 6))[::2, ::3]):
        t = donate.asarray(a)
        assert t.dtype == donate.float16
        bits(t, a)
        v = np.asarray(t)
        assert not v.flags.writeable
        if a.size:
            assert np.asarray(t).ctypes.data == v.ctypes.data == t.data_ptr()  # a view, not a copy
        if not np.isnan(a).any():
            assert t.tolist() == a.tolist()
    values = [1.5, 0.1, -2049.0, 1e-7, 2.99e-8]  # Python floats rounded once into float16
    bits(donate.asarray(values, dtype=donate.float16), np.asarray(values, dtype=F16))
    # and DLPack both ways
    a = special()
    bits(donate.from_dlpack(a), a)
    b = np.from_dlpack(donate.asarray(a))
    assert b.dtype == F16 and b.tobytes() == a.tobytes()


CREATIONS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("zeros", lambda m, d: m.zeros((2, 3), dtype=d)),
    ("ones", lambda m, d: m.ones((2, 3), dtype=d)),
    ("full", lambda m, d: m.stack([m.full((2,), v, dtype=d) for v in (2.5, 0.1, -1 / 3, 2049)])),
    ("arange", lambda m, d: m.arange(7, dtype=d)),
    ("arange step", lambda m, d: m.arange(0, 5, 0.5, dtype=d)),
    ("linspace", lambda m, d: m.linspace(0, 1, 5, dtype=d)),
    ("linspace inexact", lambda m, d: m.linspace(0, 1, 7, dtype=d)),
    ("zeros_like", lambda m, d: m.zeros_like(m.asarray(np.ones(3, np.float32)), dtype=d)),
    ("ones_like", lambda m, d: m.ones_like(m.asarray(sample()))),
    ("full_like", lambda m, d: m.full_like(m.asarray(sample()), 0.1)),
]


@pytest.mark.parametrize(("name", "f"), CREATIONS, ids=[n for n, _ in CREATIONS])
def test_creation_with_float16_matches_numpy(name: str, f: Callable[[Any, Any], Any]) -> None:
    bits(f(donate, donate.float16), f(np, F16))


def float16_into(dst: np.dtype) -> np.ndarray:
    """float16 values whose conversion to `dst` NumPy defines: no NaN,
    infinity or value outside the range of an integer `dst`."""
    if dst.kind == "b":
        return special()
    if dst.kind in "fc":
        return np.concatenate([special(), sample((6,))])
    info = np.iinfo(dst)
    v = np.array([-128, -100.5, -3.75, -0.5, -0.0, 0, 0.99, 2.5, 100, 127, 255, 2048, 32752, 65504], F16)
    w = np.trunc(v.astype(np.float64))
    keep = (w >= info.min) & (w <= info.max)
    if info.min == 0:
        keep &= ~np.signbit(v)  # no negative into an unsigned type
    return v[keep]


def into_float16(src: np.dtype) -> np.ndarray:
    """Values of `src` about float16's limits: ties (2049 rounds to even
    2048), ±65504, 65520 and beyond (infinite), tiny floats, and a float64
    just above a tie between two float16s (which a conversion through
    float32 would round down)."""
    if src.kind == "b":
        return np.array([True, False, True])
    if src.kind == "f":
        x = [0.1, 1 / 3, 2049.0, 65504, 65519.99, 65520.0, 1e6, 6e-8, 2.98e-8, 2.99e-8, -0.0, NAN, -INF]
        return np.array(x + [1 + 2**-11 + 2**-40], np.float64).astype(src)
    info = np.iinfo(src)
    v = [0, 1, 7, -7, 100, -128, 255, 2049, 2051, -2049, 32767, 65504, 65519, 65520, 70000, 2**31 - 1, -(2**31)]
    return np.array([x for x in v if info.min <= x <= info.max], src)


@pytest.mark.parametrize("dst", ALL, ids=str)
def test_astype_from_float16_matches_numpy(dst: np.dtype) -> None:
    a = float16_into(dst)
    t = donate.asarray(a)
    for got in (t.astype(dst), donate.astype(t, dst), t.astype(str(dst))):
        (bits if dst == F16 else equal)(got, a.astype(dst))


@pytest.mark.parametrize("src", REAL, ids=str)
def test_astype_into_float16_matches_numpy(src: np.dtype) -> None:
    a = into_float16(src)
    with np.errstate(over="ignore"):
        want = a.astype(F16)
    t = donate.asarray(a)
    for got in (t.astype(donate.float16), t.astype("float16"), donate.astype(t, donate.float16)):
        bits(got, want)


def test_finfo_result_type_and_can_cast_match_numpy() -> None:
    f, want = donate.finfo(donate.float16), np.finfo(F16)
    assert (f.bits, f.eps, f.max, f.min, f.smallest_normal, f.dtype) == (
        want.bits, want.eps, want.max, want.min, want.smallest_normal, want.dtype
    )  # fmt: skip
    assert donate.finfo(donate.zeros((1,), dtype=donate.float16)).bits == 16
    for a, b in itertools.product(ALL, repeat=2):
        if F16 in (a, b):
            assert donate.result_type(a, b) == np.result_type(a, b), (a, b)
            assert donate.result_type(donate.zeros((1,), dtype=a), b) == np.result_type(a, b), (a, b)
            assert donate.can_cast(a, b) == np.can_cast(a, b), (a, b)
    for scalar in (1.5, 3, True):  # NEP 50: a Python number beside float16 is weak
        assert donate.result_type(donate.float16, scalar) == F16


@pytest.mark.parametrize("other", ALL, ids=str)
def test_arithmetic_with_every_dtype_promotes_and_computes_as_numpy(other: np.dtype) -> None:
    a = sample()
    b = np.array([[0, 1, 2], [3, 100, 7]]).astype(other)
    ta, tb = donate.asarray(a), donate.asarray(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        for got, want in [(ta + tb, a + b), (tb - ta, b - a), (ta * tb, a * b)]:
            equal(got, want)
        if other.kind != "c":  # complex division's formula is the library's own
            equal(ta / tb, a / b)
            equal(tb / ta, b / a)


def test_python_scalars_are_weak_and_rounded_into_float16_first() -> None:
    # NEP 50: `h + 0.1` is float16 and adds float16(0.1), not 0.1: NumPy
    # converts the scalar into the result dtype before computing.
    a = spread()
    t = donate.asarray(a)
    with np.errstate(all="ignore"):
        for s in (0.1, 1 / 3, 2049, 3, -1e-5):
            for got, want in [(t + s, a + s), (s - t, s - a), (t * s, a * s), (t / s, a / s)]:
                equal(got, want)


EXACT_OPS: list[Callable[[Any, Any], Any]] = [
    operator.add, operator.sub, operator.mul, operator.truediv,
    operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
    lambda x, y: ns(x).maximum(x, y),
    lambda x, y: ns(x).minimum(x, y),
    lambda x, y: ns(x).abs(x),
    lambda x, y: ns(x).negative(x),
    lambda x, y: abs(x),
    lambda x, y: -x,
]  # fmt: skip
EXACT_IDS = "add sub mul truediv lt le eq ne gt ge maximum minimum abs negative abs() -x".split()


@pytest.mark.parametrize("f", EXACT_OPS, ids=EXACT_IDS)
def test_arithmetic_and_comparisons_of_float16_are_numpys_exactly(f: Callable[[Any, Any], Any]) -> None:
    # float32 holds every float16 exactly and rounds + - * / correctly,
    # so rounding its result once gives the correctly rounded float16.
    a, b = spread(seed=1), spread(seed=2)[::-1].copy()
    with np.errstate(all="ignore"):
        want = np.asarray(f(a, b))
    assert want.dtype in (F16, np.dtype(bool))  # comparisons give bool
    equal(f(donate.asarray(a), donate.asarray(b)), want)


TRANSCENDENTAL: list[tuple[str, str, np.ndarray]] = [
    ("exp", "exp", np.r_[np.linspace(-9, 11, 81), -INF, INF, NAN]),
    ("expm1", "expm1", np.r_[np.linspace(-5, 5, 41), 1e-3, -2e-3]),
    ("log", "log", np.r_[np.linspace(0.01, 100, 81), 1.0, 0.0, INF, -1.0]),
    ("log1p", "log1p", np.r_[np.linspace(-0.9, 50, 81), 1e-3]),
    ("sqrt", "sqrt", np.r_[np.linspace(0, 60000, 81), 1e-4, INF, -1.0]),
    ("sin", "sin", np.linspace(-10, 10, 81)),
    ("cos", "cos", np.linspace(-10, 10, 81)),
    ("tanh", "tanh", np.linspace(-5, 5, 81)),
    ("sinh", "sinh", np.linspace(-8, 8, 81)),
    ("atan", "arctan", np.linspace(-50, 50, 81)),
]


@pytest.mark.parametrize(("name", "np_name", "x"), TRANSCENDENTAL, ids=[n for n, _, _ in TRANSCENDENTAL])
def test_transcendental_functions_are_within_one_unit_of_numpys(name: str, np_name: str, x: np.ndarray) -> None:
    # donate's float32 function and NumPy's may differ in their last bit,
    # and so the rounded float16 by a unit.
    a = x.astype(F16)
    with np.errstate(all="ignore"):
        want = getattr(np, np_name)(a)
    assert want.dtype == F16
    close(getattr(donate, name)(donate.asarray(a)), want)


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "max", "min"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions_of_float16_give_float16(name: str, axis: int | None) -> None:
    a = np.random.default_rng(3).uniform(0.5, 2.0, (4, 6)).astype(F16)  # positive: no cancellation
    want = np.asarray(getattr(np, name)(a, axis=axis))
    assert want.dtype == F16
    got = getattr(donate, name)(donate.asarray(a), axis=axis)
    if name in ("max", "min"):
        bits(got, want)
    else:  # NumPy's float16 loops round at each step; donate once
        close(got, want, rtol=1e-2)


def test_argmax_argmin_and_sort_of_float16_match_numpy() -> None:
    a = np.random.default_rng(4).permutation(sample((4, 6)).ravel()).reshape(4, 6)
    t = donate.asarray(a)
    for axis in (None, 0, 1):
        equal(donate.argmax(t, axis=axis), np.asarray(np.argmax(a, axis=axis)))  # int64
        equal(donate.argmin(t, axis=axis), np.asarray(np.argmin(a, axis=axis)))
        last = -1 if axis is None else axis
        bits(donate.sort(t, axis=last), np.sort(a, axis=last))
    # One zero (sort is not stable); NaN's bits are not compared (NumPy's
    # SIMD sort of float16 gives 0x7c01 for a 0x7e00 NaN).
    s = np.array([3, NAN, -0.0, -INF, 1, 65504, -2.5, INF, 6e-8], F16)
    equal(donate.sort(donate.asarray(s)), np.sort(s))


def test_matmul_of_float16_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    for sa, sb in [((3, 4), (4, 5)), ((2, 3, 4), (4, 2)), ((4,), (4, 3)), ((5,), (5,))]:
        a, b = rng.uniform(0.5, 2, sa).astype(F16), rng.uniform(0.5, 2, sb).astype(F16)
        close(donate.asarray(a) @ donate.asarray(b), a @ b, rtol=1e-2)
        c = b.astype(np.float32)  # float16 with float32: float32
        close(donate.asarray(a) @ donate.asarray(c), a @ c, rtol=1e-5)


MOVES: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("reshape", lambda m, x: m.reshape(x, (3, 2))),
    ("permute_dims", lambda m, x: m.permute_dims(x, (1, 0)) if m is donate else np.transpose(x, (1, 0))),
    (".T", lambda m, x: x.T),
    ("slice", lambda m, x: x[1, ::-2]),
    ("slice newaxis", lambda m, x: x[None, :, 1]),
    ("integer", lambda m, x: x[1, 2]),
    ("integer array", lambda m, x: x[m.asarray([1, 0, 1])]),
    ("mask", lambda m, x: x[m.asarray([[True, False, True], [False, False, True]])]),
    ("concat", lambda m, x: m.concat([x, x[::-1]], axis=1) if m is donate else np.concatenate([x, x[::-1]], axis=1)),
    ("stack", lambda m, x: m.stack([x, x], axis=0)),
    ("where", lambda m, x: m.where(m.asarray([True, False, True]), x, x[::-1])),
    ("where scalar", lambda m, x: m.where(m.asarray([False, True, True]), x, 0.1)),
    ("flip", lambda m, x: m.flip(x, axis=0)),
    ("broadcast_to", lambda m, x: m.broadcast_to(x, (4, 2, 3))),
    ("take", lambda m, x: m.take(x, m.asarray([2, 0, 2]), axis=1)),
    ("copy", lambda m, x: x.copy()),
]


@pytest.mark.parametrize(("name", "f"), MOVES, ids=[n for n, _ in MOVES])
def test_moving_float16_elements_keeps_their_bits(name: str, f: Callable[[Any, Any], Any]) -> None:
    a = special()[[0, 1, 2, 4, 6, 10]].reshape(2, 3)  # NaN payloads, -inf, -0.0, a subnormal
    bits(f(donate, donate.asarray(a)), np.asarray(f(np, a)))


def test_assignment_into_a_float16_tensor_matches_numpy() -> None:
    a = sample((3, 4), -300, 700)
    t = donate.asarray(a)
    a, p, mask = a.copy(), t.data_ptr(), a > 100
    f32 = np.array([1 / 3, 2049, 1e-7], np.float32)  # rounded once into float16
    writes: list[tuple[Any, Any]] = [(1, 2.5), ((0, slice(2)), 0.1), ((2, slice(1, None)), f32), (mask, 0)]
    for key, value in writes:
        t[tensor_of(key)] = tensor_of(value)
        a[key] = value
    for op, value in [(operator.iadd, 1), (operator.imul, sample((3, 4), 0.3, 7.7)), (operator.isub, 0.1)]:
        t = op(t, tensor_of(value))
        a = op(a, value)
    assert t.dtype == donate.float16 and t.data_ptr() == p
    bits(t, a)


INPLACE: list[tuple[str, Callable[[Any], Any], Callable[[np.ndarray], np.ndarray]]] = [
    ("neg_", lambda t: t.neg_(), np.negative),
    ("abs_", lambda t: t.abs_(), np.abs),
    ("relu_", lambda t: t.relu_(), lambda a: np.maximum(a, 0)),
    ("add_", lambda t: t.add_(0.1), lambda a: a + 0.1),
    ("sub_", lambda t: t.sub_(2049), lambda a: a - 2049),
    ("mul_", lambda t: t.mul_(1 / 3), lambda a: a * (1 / 3)),
    ("div_", lambda t: t.div_(3), lambda a: a / 3),
    ("exp_", lambda t: t.exp_(), np.exp),
    ("log_", lambda t: t.log_(), np.log),
    ("sqrt_", lambda t: t.sqrt_(), np.sqrt),
    ("tanh_", lambda t: t.tanh_(), np.tanh),
    ("sigmoid_", lambda t: t.sigmoid_(), lambda a: (1 / (1 + np.exp(-a.astype(np.float64)))).astype(F16)),
]


@pytest.mark.parametrize(("name", "f", "ref"), INPLACE, ids=[n for n, _, _ in INPLACE])
def test_in_place_methods_write_float16_into_the_tensors_buffer(
    name: str, f: Callable[[Any], Any], ref: Callable[[np.ndarray], np.ndarray]
) -> None:
    a = sample((3, 4), -7.3, 9.1)
    a = np.abs(a) if name in ("log_", "sqrt_") else a
    want = ref(a)
    assert want.dtype == F16
    t = donate.asarray(a)
    p = t.data_ptr()
    f(t)
    assert t.dtype == donate.float16 and t.data_ptr() == p
    exact = name in ("neg_", "abs_", "relu_", "add_", "sub_", "mul_", "div_")
    (bits if exact else close)(t, want)


def test_writes_through_views_reach_the_float16_base() -> None:
    a = sample((3, 4), -7.3, 9.1)
    h = donate.asarray(a)
    a, p = a.copy(), h.data_ptr()
    row, col, tr, last = h[0], h[:, 1], h.T, h[2]
    row += 1
    a[0] += 1
    col *= 3  # a strided view
    a[:, 1] *= 3
    tr += 0.1  # a transposed view
    a.T[...] += 0.1
    last[...] = 3
    a[2] = 3
    last[1] = 1 / 3
    a[2, 1] = 1 / 3
    row.neg_()
    a[0] = -a[0]
    assert h.data_ptr() == p and h.dtype == donate.float16
    for got, want in [(h, a), (row, a[0]), (col, a[:, 1]), (tr, a.T), (last, a[2])]:
        bits(got, want)


DONATIONS: list[tuple[str, Callable[[Any, Any], Any], Callable[[np.ndarray, np.ndarray], np.ndarray]]] = [
    ("exp", lambda h, h2: donate.exp(h.donate()), lambda a, b: np.exp(a)),
    ("relu_donate", lambda h, h2: h.relu_donate(), lambda a, b: np.maximum(a, 0)),
    ("exp_donate", lambda h, h2: h.exp_donate(), lambda a, b: np.exp(a)),
    ("add", lambda h, h2: h.donate() + h2, lambda a, b: a + b),
    ("reflected multiply", lambda h, h2: h2 * h.donate(), lambda a, b: b * a),
]


@pytest.mark.parametrize(("name", "f", "ref"), DONATIONS, ids=[n for n, _, _ in DONATIONS])
def test_a_donated_float16_operand_is_refused_and_copied(
    name: str, f: Callable[[Any, Any], Any], ref: Callable[[np.ndarray, np.ndarray], np.ndarray]
) -> None:
    # The result is computed in float32 and rounded into a new float16
    # buffer, so the donation cannot be used: refused as any other (warned,
    # the input not donated and unchanged, the result in a new buffer).
    a, b = sample((2, 3)), sample((2, 3), 0.3, 4.1)
    h, h2 = donate.asarray(a), donate.asarray(b)
    p = h.data_ptr()
    with pytest.warns(donate.DonationWarning, match="float16"):
        r = f(h, h2)
    close(r, ref(a, b))
    assert r.data_ptr() != p and not h.is_donated
    bits(h, a)
    bits(h2, b)


@pytest.mark.parametrize("name", ["inv", "det", "solve"])
def test_linalg_computes_float16_in_float32_by_the_storage_rule(name: str) -> None:
    # A deliberate difference: NumPy's linalg raises TypeError for float16
    # (LAPACK has no half precision); donate applies its one storage rule
    # (docs/array-api.md): computed in float32, rounded once to float16.
    m = np.array([[4.0, 1.0], [2.0, 3.0]], dtype=F16)
    h = donate.asarray(m)
    args = (h, donate.asarray(np.array([1.0, 2.0], F16))) if name == "solve" else (h,)
    got = getattr(donate.linalg, name)(*args)
    wide = [np.asarray(a).astype(np.float32) for a in args]
    want = getattr(np.linalg, name)(*wide).astype(F16)
    assert got.dtype == donate.float16
    close(got, want)
    bits(h, m)


def scaled_sum(x: Any) -> Any:
    return (x * 2 + 1).sum()


def rounded_steps(x: Any) -> Any:
    return (x * 0.1 + x) / 3  # every step rounds into float16, as NumPy's


@pytest.mark.parametrize("f", [scaled_sum, rounded_steps], ids=["scaled_sum", "rounded_steps"])
def test_jit_of_float16_gives_eagers_dtype_and_value(f: Callable[[Any], Any]) -> None:
    a = sample((4, 6), -300, 700)
    eager = f(donate.asarray(a))
    traced = donate.jit(f)(donate.asarray(a))
    assert eager.dtype == traced.dtype == donate.float16
    bits(traced, np.asarray(eager))
    want = np.asarray(f(a))
    if f is rounded_steps:
        bits(eager, want)
    else:  # NumPy's sum rounds at each step
        close(eager, want, rtol=1e-2)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "bool"])
def test_float_functions_of_small_integers_give_float32(dtype: str) -> None:
    # A deliberate difference from NumPy, whose loop for int8, uint8 and
    # bool is float16's (np.sqrt(int8) is float16): donate makes float16
    # only when asked for (dtype=, astype) or given float16 data.
    a = np.array([0, 1, 2, 4, 9, 100]).astype(dtype)
    assert np.sqrt(a).dtype == F16
    for name in ("sqrt", "sin"):
        got = getattr(donate, name)(donate.asarray(a))
        assert got.dtype == donate.float32
        np.testing.assert_allclose(np.asarray(got), getattr(np, name)(a.astype(np.float32)), rtol=1e-6)


def test_nextafter_and_spacing_step_in_float16_itself() -> None:
    # float16 computes in float32 and rounds; a step of float32's size
    # would round back to the input, so nextafter steps in float16.
    # (Not `nextafter(0.0, -0.0)`: donate gives `-0.0`, C's `y` when `x ==
    # y`, as NumPy's float32 and float64 do; NumPy's float16 gives `x`.)
    a = np.array([1, 1, 0, -0.0, 65504, np.inf, 6e-8, -6e-8, 2, np.nan, 1], np.float16)
    b = np.array([2, 0, 1, -1, np.inf, 0, 0, 0, 2, 1, np.nan], np.float16)
    got = donate.nextafter(donate.asarray(a), donate.asarray(b)).numpy()
    with np.errstate(over="ignore"):  # (NumPy warns for 65504 -> inf)
        want = np.nextafter(a, b)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, want)
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))  # -0.0 too
    # (Positive numbers: of a negative one NumPy's float16 `spacing` is
    # positive, its float32 and float64 ones negative, as donate's are.)
    s = np.array([1.0, 1000.0, 3.0, 0.0, 60000.0], np.float16)
    np.testing.assert_array_equal(np.spacing(donate.asarray(s)).numpy(), np.spacing(s))


M = np.array([True, True])
SMALL = np.array([300, 300], np.float16)
BIG = np.array([40000, 40000], np.float16)


@pytest.mark.parametrize("call,a", [
    (lambda x: np.prod(x, initial=0.5), SMALL), (lambda x: np.sum(x, initial=-60000.0), BIG),
    (lambda x: np.add.reduce(x, initial=-60000.0), BIG),
    (lambda x: np.multiply.reduce(x, initial=0.01), SMALL),
    (lambda x: np.sum(x, initial=-60000.0, where=M), BIG),
    (lambda x: np.mean(x, where=M), BIG), (lambda x: x.mean(where=M), BIG),
])
def test_a_reduction_with_initial_or_where_is_not_rounded_before_it_ends(call, a) -> None:
    """NumPy starts a reduction from `initial`, and sums a float16 mean
    in float32: a partial result past float16's range is no inf (the sum
    was rounded to float16 before `initial` was added, or the masked
    mean's sum taken in float16)."""
    want = call(a)
    got = call(donate.asarray(a))
    assert np.isfinite(want)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)


def test_a_float32_product_starts_from_initial() -> None:
    a = np.array([1e30, 1e30], np.float32)
    assert np.asarray(np.prod(donate.asarray(a), initial=1e-30)) == np.prod(a, initial=1e-30)

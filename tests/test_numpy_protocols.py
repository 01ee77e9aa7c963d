"""NumPy's protocols on tensors (NEP 13 `__array_ufunc__`, NEP 18
`__array_function__`) and NumPy's array methods, against NumPy: the same
values and dtypes, results that are tensors, `out=` written in place with
the ownership rules of any in-place write, and a `TypeError` (never a
silent NumPy array) for what donate does not implement."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import donate

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)
POS = (np.abs(A) + 0.5).astype(np.float32)
I = RNG.integers(-5, 5, (3, 4)).astype(np.int32)


def check(got: Any, want: Any, rtol: float = 1e-5) -> None:
    assert isinstance(got, donate.Tensor), type(got)
    w = np.asarray(want)
    assert got.dtype == w.dtype, (got.dtype, w.dtype)
    assert got.shape == w.shape
    np.testing.assert_allclose(np.asarray(got), w, rtol=rtol, atol=1e-6)


UNARY = ["exp", "log", "sqrt", "sin", "cos", "tanh", "arcsinh", "negative", "absolute",
         "floor", "ceil", "square", "sign", "log1p", "expm1", "rint", "isnan", "isfinite"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
          "arctan2", "hypot", "less", "greater_equal", "equal", "logaddexp"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs(name: str) -> None:
    f = getattr(np, name)
    check(f(donate.tensor(POS)), f(POS))


@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs_mix_tensors_arrays_and_numbers(name: str) -> None:
    f = getattr(np, name)
    t, u = donate.tensor(POS), donate.tensor(B)
    check(f(t, u), f(POS, B))
    check(f(POS, u), f(POS, B))  # a NumPy array on the left
    check(f(t, 2.0), f(POS, 2.0))
    check(f(t, np.float64(2.0)), f(POS, np.float64(2.0)))  # NumPy scalars keep their dtype


def test_integer_ufuncs_and_operators_with_arrays() -> None:
    t = donate.tensor(I)
    check(np.bitwise_and(t, 3), np.bitwise_and(I, 3))
    check(np.invert(t), np.invert(I))
    check(np.left_shift(t, 1), np.left_shift(I, 1))
    check(A + donate.tensor(B), A + B)  # ndarray.__add__ defers to the ufunc
    check(A < donate.tensor(B), A < B)


def test_out_tensor_is_written_in_place() -> None:
    t = donate.tensor(A.copy())
    ptr = t.data_ptr()
    r = np.add(t, 1.0, out=t)
    assert r is t and t.data_ptr() == ptr
    np.testing.assert_allclose(np.asarray(t), A + 1, rtol=1e-6)
    r = np.exp(donate.tensor(B), out=t)
    assert r is t and t.data_ptr() == ptr
    np.testing.assert_allclose(np.asarray(t), np.exp(B), rtol=1e-6)


def test_out_view_writes_through_into_its_base() -> None:
    base = donate.tensor(np.zeros((3, 4), np.float32))
    row = base[1]
    np.multiply(donate.tensor(A[0]), 2.0, out=row)
    np.testing.assert_allclose(np.asarray(base)[1], A[0] * 2, rtol=1e-6)


def test_out_numpy_array_gets_the_values() -> None:
    a = A.copy()
    a += donate.tensor(B)  # np.add(a, t, out=(a,))
    assert isinstance(a, np.ndarray)
    np.testing.assert_allclose(a, A + B, rtol=1e-6)


def test_out_casting_is_checked_before_writing() -> None:
    t = donate.tensor(I.copy())
    with pytest.raises(TypeError, match="same_kind"):
        np.add(t, 0.5, out=t)
    np.testing.assert_array_equal(np.asarray(t), I)
    # unsafe casting writes, as NumPy's
    np.add(t, 0.5, out=t, casting="unsafe")
    np.testing.assert_array_equal(np.asarray(t), np.add(I, 0.5, casting="unsafe", dtype=np.float64).astype(np.int32))


def test_where_keeps_out_where_false() -> None:
    t = donate.tensor(A.copy())
    mask = A > 0
    np.exp(donate.tensor(B), out=t, where=mask)
    want = A.copy()
    np.exp(B, out=want, where=mask)
    np.testing.assert_allclose(np.asarray(t), want, rtol=1e-6)


def test_ufunc_dtype_is_the_dtype_computed_in() -> None:
    check(np.add(donate.tensor(A), donate.tensor(B), dtype=np.float64), np.add(A, B, dtype=np.float64))


@pytest.mark.parametrize(
    ("ufunc", "kw"),
    [(np.add, {}), (np.add, {"axis": 1}), (np.add, {"axis": None}), (np.multiply, {"axis": 0}),
     (np.maximum, {"axis": 1, "keepdims": True}), (np.minimum, {}), (np.add, {"dtype": np.float64})],
)
def test_reduce(ufunc: np.ufunc, kw: dict[str, Any]) -> None:
    check(ufunc.reduce(donate.tensor(A), **kw), ufunc.reduce(A, **kw))


def test_logical_reduce_and_accumulate() -> None:
    m = A > 0
    check(np.logical_and.reduce(donate.tensor(m), axis=1), np.logical_and.reduce(m, axis=1))
    check(np.logical_or.reduce(donate.tensor(m)), np.logical_or.reduce(m))
    check(np.add.accumulate(donate.tensor(A)), np.add.accumulate(A))
    check(np.multiply.accumulate(donate.tensor(A), axis=1), np.multiply.accumulate(A, axis=1))


@pytest.mark.parametrize(
    "call",
    [
        lambda t: np.add.reduceat(t, [0, 1]),  # segment sums in NumPy's order
        lambda t: np.einsum(t, [0, 1], [1]),  # the interleaved form
        lambda t: np.histogram(t, bins="auto"),  # the bin-width estimators
        lambda t: np.std(t, where=t > 0),
        lambda t: np.reshape(t, (4, 3), order="F"),
    ],
    ids=["add.reduceat", "einsum", "histogram auto", "std where", "reshape F"],
)
def test_what_donate_does_not_implement_raises_type_error(call: Callable[[Any], Any]) -> None:
    t = donate.tensor(A.copy())
    with pytest.raises(TypeError):
        call(t)
    np.testing.assert_array_equal(np.asarray(t), A)


FUNCTIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("sum", lambda x: np.sum(x)),
    ("sum axis dtype", lambda x: np.sum(x, axis=0, dtype=np.float64)),
    ("sum tuple keepdims", lambda x: np.sum(x, axis=(0, 1), keepdims=True)),
    ("mean", lambda x: np.mean(x, axis=1)),
    ("mean dtype", lambda x: np.mean(x, dtype=np.float64)),
    ("std ddof", lambda x: np.std(x, axis=0, ddof=1)),
    ("var", lambda x: np.var(x)),
    ("max", lambda x: np.max(x, axis=1)),
    ("amin", lambda x: np.amin(x)),
    ("prod", lambda x: np.prod(x, axis=0)),
    ("argmax", lambda x: np.argmax(x)),
    ("argmin axis", lambda x: np.argmin(x, axis=1)),
    ("any", lambda x: np.any(x > 0, axis=0)),
    ("all", lambda x: np.all(x > -10)),
    ("cumsum flat", lambda x: np.cumsum(x)),
    ("cumprod axis", lambda x: np.cumprod(x, axis=1)),
    ("clip", lambda x: np.clip(x, -0.5, 0.5)),
    ("concatenate", lambda x: np.concatenate([x, x], axis=1)),
    ("concatenate None", lambda x: np.concatenate([x, x], axis=None)),
    ("stack", lambda x: np.stack([x, x])),
    ("transpose", lambda x: np.transpose(x)),
    ("swapaxes", lambda x: np.swapaxes(x, 0, 1)),
    ("reshape", lambda x: np.reshape(x, (4, 3))),
    ("ravel", lambda x: np.ravel(x)),
    ("squeeze", lambda x: np.squeeze(np.expand_dims(x, 0))),
    ("moveaxis", lambda x: np.moveaxis(x, 0, 1)),
    ("where", lambda x: np.where(x > 0, x, 0.0)),
    ("sort", lambda x: np.sort(x, axis=1)),
    ("argsort flat", lambda x: np.argsort(x, axis=None)),
    ("dot", lambda x: np.dot(x, np.transpose(x))),
    ("matmul", lambda x: np.matmul(x, np.transpose(x))),
    ("tensordot", lambda x: np.tensordot(x, x, axes=([0], [0]))),
    ("outer", lambda x: np.outer(x[0], x[1])),
    ("trace", lambda x: np.trace(x)),
    ("diagonal", lambda x: np.diagonal(x, offset=1)),
    ("diff", lambda x: np.diff(x, axis=0)),
    ("flip", lambda x: np.flip(x, axis=1)),
    ("roll", lambda x: np.roll(x, 1, axis=1)),
    ("tile", lambda x: np.tile(x, (2, 1))),
    ("repeat", lambda x: np.repeat(x, 2, axis=0)),
    ("take", lambda x: np.take(x, [[0, 2]], axis=1)),
    ("take flat", lambda x: np.take(x, [0, 5])),
    ("broadcast_to", lambda x: np.broadcast_to(x[0], (2, 4))),
    ("zeros_like", lambda x: np.zeros_like(x)),
    ("full_like", lambda x: np.full_like(x, 3.0, dtype=np.float64)),
    ("isclose", lambda x: np.isclose(x, x + 1e-7)),
    ("count_nonzero", lambda x: np.count_nonzero(x > 0, axis=0)),
    ("linalg.norm", lambda x: np.linalg.norm(x)),
    ("linalg.norm axis", lambda x: np.linalg.norm(x, axis=1)),
    ("linalg.norm ord", lambda x: np.linalg.norm(x, ord=1)),
    ("linalg.inv", lambda x: np.linalg.inv(np.dot(x, np.transpose(x)) + np.eye(3, dtype=np.float32))),
    ("linalg.det", lambda x: np.linalg.det(np.dot(x, np.transpose(x)))),
    ("where of numbers", lambda x: np.where(x > 0, 1, 0)),
    ("where int float", lambda x: np.where(x > 0, 1, 2.5)),
    ("nan_to_num", lambda x: np.nan_to_num(np.log(x))),
    ("isposinf", lambda x: np.isposinf(np.divide(x, 0.0))),
    ("hstack", lambda x: np.hstack([x, x])),
    ("vstack", lambda x: np.vstack([x[0], x[1]])),
    ("column_stack", lambda x: np.column_stack([x[0], x[1]])),
    ("triu", lambda x: np.triu(x, 1)),
    ("diag of a vector", lambda x: np.diag(x[0], k=-1)),
    ("argwhere", lambda x: np.argwhere(x > 0)),
    ("average weights", lambda x: np.average(x, axis=1, weights=np.arange(1.0, 5.0))),
    ("atleast_3d", lambda x: np.atleast_3d(x)),
    ("ptp", lambda x: np.ptp(x, axis=0)),
]


STATISTICS: list[tuple[str, Callable[[Any], Any]]] = [
    ("median", lambda x: np.median(x)),
    ("median axis keepdims", lambda x: np.median(x, axis=1, keepdims=True)),
    ("quantile", lambda x: np.quantile(x, 0.3, axis=0)),
    ("quantile array", lambda x: np.quantile(x, [0.1, 0.5, 1.0], axis=(0, 1))),
    ("percentile", lambda x: np.percentile(x, 75)),
    ("percentile array", lambda x: np.percentile(x, [0, 25], axis=-1)),
]


@pytest.mark.parametrize("f", [f for _, f in STATISTICS], ids=[n for n, _ in STATISTICS])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_order_statistics(f: Callable[[Any], Any], dtype: type) -> None:
    a = (np.random.default_rng(3).standard_normal((4, 5, 6)) * 10).astype(dtype)
    got, want = f(donate.tensor(a)), f(a)
    assert isinstance(got, donate.Tensor)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)


def test_median_of_a_slice_with_nan_is_nan() -> None:
    b = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])
    np.testing.assert_array_equal(np.asarray(np.median(donate.tensor(b), axis=1)), np.median(b, axis=1))


@pytest.mark.parametrize("f", [f for _, f in FUNCTIONS], ids=[n for n, _ in FUNCTIONS])
def test_numpy_functions_return_tensors(f: Callable[[Any], Any]) -> None:
    check(f(donate.tensor(A)), f(A), rtol=1e-4)


def test_functions_returning_no_array() -> None:
    t = donate.tensor(A)
    assert np.shape(t) == (3, 4) and np.ndim(t) == 2 and np.size(t) == 12
    assert np.allclose(t, A) is True
    assert np.array_equal(t, A) and not np.array_equal(t, A[:2])
    assert np.result_type(t, np.float64) == np.float64
    assert np.isrealobj(t) and not np.iscomplexobj(t)
    assert np.can_cast(t, np.float64) and not np.can_cast(t, np.int32)
    assert not np.may_share_memory(t, np.ones(3))


METHODS: list[tuple[str, Callable[[Any], Any]]] = [
    ("sum", lambda x: x.sum(axis=1, dtype=np.float64, keepdims=True)),
    ("mean", lambda x: x.mean(0)),
    ("max", lambda x: x.max(axis=0)),
    ("min", lambda x: x.min()),
    ("prod", lambda x: x.prod(axis=1)),
    ("std", lambda x: x.std(ddof=1)),
    ("var", lambda x: x.var(axis=0)),
    ("argmax", lambda x: x.argmax(axis=1)),
    ("argmin", lambda x: x.argmin()),
    ("any", lambda x: (x > 1).any(axis=1)),
    ("all", lambda x: (x > -9).all()),
    ("cumsum", lambda x: x.cumsum(axis=0)),
    ("clip", lambda x: x.clip(-0.1, 0.1)),
    ("round", lambda x: x.round()),
    ("ravel", lambda x: x.ravel()),
    ("flatten", lambda x: x.flatten()),
    ("squeeze", lambda x: x.reshape(1, 3, 4).squeeze()),
    ("swapaxes", lambda x: x.swapaxes(0, 1)),
    ("dot", lambda x: x.dot(x.T)),
    ("trace", lambda x: x.trace()),
    ("diagonal", lambda x: x.diagonal()),
    ("take", lambda x: x.take([1, 2], axis=0)),
    ("repeat", lambda x: x.repeat(2, axis=1)),
    ("argsort", lambda x: x.argsort(axis=1)),
]


@pytest.mark.parametrize("f", [f for _, f in METHODS], ids=[n for n, _ in METHODS])
def test_methods_take_numpys_arguments(f: Callable[[Any], Any]) -> None:
    check(f(donate.tensor(A)), f(A), rtol=1e-4)


def test_method_out_and_in_place_methods() -> None:
    t = donate.tensor(A.copy())
    out = donate.zeros((4,), dtype=donate.float32)
    ptr = out.data_ptr()
    assert t.sum(axis=0, out=out) is out and out.data_ptr() == ptr
    np.testing.assert_allclose(np.asarray(out), A.sum(axis=0), rtol=1e-5)
    flat = t.flatten()
    assert flat.data_ptr() != t.data_ptr()  # flatten copies, as NumPy's
    p = t.data_ptr()
    t.sort(axis=1)  # in place, as NumPy's
    assert t.data_ptr() == p
    np.testing.assert_array_equal(np.asarray(t), np.sort(A, axis=1))
    t.fill(2.0)
    assert np.asarray(t).tolist() == [[2.0] * 4] * 3


def test_asarray_stays_a_zero_copy_read_only_view() -> None:
    t = donate.tensor(A.copy())
    a = np.asarray(t)
    assert a.__array_interface__["data"][0] == t.data_ptr()
    assert not a.flags.writeable


def test_a_donated_operand_is_reused_through_a_ufunc() -> None:
    t = donate.tensor(POS.copy())
    ptr = t.data_ptr()
    r = np.sqrt(t.donate())
    assert t.is_donated and r.data_ptr() == ptr
    np.testing.assert_allclose(np.asarray(r), np.sqrt(POS), rtol=1e-6)


def test_numpy_calls_are_traced_by_jit() -> None:
    @donate.jit
    def f(x: donate.Tensor) -> Any:
        return np.sum(np.exp(x), axis=0) + np.mean(x)

    x = donate.tensor(A)
    check(f(x), np.sum(np.exp(A), axis=0) + np.mean(A))
    text = f.lower(x).as_text()
    assert "exp" in text and "sum" in text

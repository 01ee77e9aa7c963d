"""NumPy's protocols on tensors where a call fails or an argument is
unusual, against NumPy as the oracle: a donated operand (`t.donate()`)
survives every error of a NumPy call intact and undonated, and may also
be a plain operand of the same call; `np.clip`, `np.mean`, `np.std`,
`np.var` and `np.average` give NumPy's result dtypes; NumPy's `_NoValue`
sentinel means "not given"; `where=` of `ufunc.reduce` given a tensor is
NumPy's masked reduction, and refused with a `TypeError` naming it for a
ufunc without a donate reduction."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import donate

V = np.array([1.0, 2.0, 3.0])
M = np.array([[1.0, 2.0], [3.0, 4.0]])


def out_of(values: np.ndarray) -> Any:
    """A tensor to pass as `out=` (typed `Any`: NumPy's stubs know only
    ndarrays there)."""
    return donate.tensor(values)


def intact(t: Any, values: np.ndarray) -> None:
    """`t` was not taken: not donated, its values unchanged."""
    assert not t.is_donated
    np.testing.assert_array_equal(np.asarray(t), values)


def same(got: Any, want: Any) -> None:
    """A tensor with NumPy's dtype, shape and values."""
    assert isinstance(got, donate.Tensor), type(got)
    w = np.asarray(want)
    assert (got.dtype, got.shape) == (w.dtype, w.shape)
    np.testing.assert_allclose(np.asarray(got), w, rtol=1e-12)


# ------------------------------------------------- errors lose nothing ---

FAILING: list[tuple[str, np.ndarray, Callable[[Any], Any], type[Exception]]] = [
    ("add out= of int32 (casting)", V,
     lambda d: np.add(d, 1.5, out=out_of(np.zeros(3, np.int32))), TypeError),
    ("exp out= of int32 (casting)", V,
     lambda d: np.exp(d, out=out_of(np.zeros(3, np.int32))), TypeError),
    ("quantile q > 1", V, lambda d: np.quantile(d, 2.0), ValueError),
    ("percentile q > 100", V, lambda d: np.percentile(d, 150), ValueError),
    ("take out of range", V, lambda d: np.take(d, [10]), IndexError),
    ("einsum shapes", M, lambda d: np.einsum("ij,jk", d, donate.tensor(np.ones((5, 2)))), ValueError),
    ("vdot sizes", V, lambda d: np.vdot(d, donate.tensor(np.ones(2))), ValueError),
    ("ptp bad axis", V, lambda d: np.ptp(d, axis=3), Exception),
    ("sum out= of another shape", M,
     lambda d: np.sum(d, axis=0, out=out_of(np.zeros(5))), Exception),
]


@pytest.mark.parametrize("values,call,error", [f[1:] for f in FAILING], ids=[f[0] for f in FAILING])
def test_a_failed_call_leaves_a_donated_operand_intact(
    values: np.ndarray, call: Callable[[Any], Any], error: type[Exception]
) -> None:
    t = donate.tensor(values.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        with pytest.raises(error):
            call(t.donate())
    intact(t, values)


# The same tensor donated and plain in one call: NumPy reads the values;
# the donation is refused (another operand holds the buffer) or the value
# is read through a copy, with a DonationWarning.
BOTH: list[tuple[str, np.ndarray, Callable[[Any, Any], Any]]] = [
    ("einsum", M, lambda a, b: np.einsum("ij,jk->ik", a, b)),
    ("vdot", V, np.vdot),
    ("outer", V, np.outer),
    ("column_stack", V, lambda a, b: np.column_stack([a, b])),
    ("add", V, np.add),
    ("matmul", M, np.matmul),
    ("concatenate", V, lambda a, b: np.concatenate([a, b])),
    ("isclose", V, np.isclose),
    ("where", V, lambda a, b: np.where(b > 1, a, b)),
]


@pytest.mark.parametrize("values,f", [b[1:] for b in BOTH], ids=[b[0] for b in BOTH])
def test_a_tensor_donated_and_plain_in_one_call(values: np.ndarray, f: Callable[[Any, Any], Any]) -> None:
    t = donate.tensor(values.copy())
    with pytest.warns(donate.DonationWarning):
        r = f(t.donate(), t)
    same(r, f(values, values))
    intact(t, values)


OUT_IS_THE_DONOR: list[tuple[str, Callable[..., Any]]] = [
    ("exp", lambda d, out: np.exp(d, out=out)),
    ("multiply", lambda d, out: np.multiply(d, 2, out=out)),
    ("add", lambda d, out: np.add(d, 1, out=out)),
    ("clip", lambda d, out: np.clip(d, 1.5, 2.5, out=out)),
    ("cumsum", lambda d, out: np.cumsum(d, out=out)),
]


@pytest.mark.parametrize("f", [o[1] for o in OUT_IS_THE_DONOR], ids=[o[0] for o in OUT_IS_THE_DONOR])
def test_out_is_the_donated_tensor(f: Callable[..., Any]) -> None:
    want = V.copy()
    f(V.copy(), out=want)
    t = donate.tensor(V.copy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        r = f(t.donate(), out=t)
    assert r is t and not t.is_donated
    np.testing.assert_array_equal(np.asarray(t), want)


READ_TWICE: list[tuple[str, Callable[[Any], Any]]] = [
    ("ptp", np.ptp),
    ("isclose", lambda x: np.isclose(x, np.array([1.0, 2.5, 3.0]))),
    ("allclose", lambda x: np.allclose(x, np.array([1.0, 2.0, 3.0]))),
    ("nan_to_num", np.nan_to_num),
    ("average", np.average),
    ("unique inverse", lambda x: np.unique(x, return_inverse=True)[1]),
    ("quantile", lambda x: np.quantile(x, [0.25, 0.5])),
    ("std", np.std),
]


@pytest.mark.parametrize("f", [r[1] for r in READ_TWICE], ids=[r[0] for r in READ_TWICE])
def test_functions_that_read_an_operand_twice_take_a_donated_one(f: Callable[[Any], Any]) -> None:
    t = donate.tensor(V.copy())
    with pytest.warns(donate.DonationWarning):
        r = f(t.donate())
    want = f(V)
    if isinstance(want, (bool, np.bool_)):
        assert r == want
    else:
        same(r, want)
    intact(t, V)


def test_a_single_call_still_takes_the_donated_buffer() -> None:
    t = donate.tensor(V.copy())
    ptr = t.data_ptr()
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        r = np.exp(t.donate())
    assert t.is_donated and r.data_ptr() == ptr
    np.testing.assert_allclose(np.asarray(r), np.exp(V))


# ------------------------------------------------------- result dtypes ---

I32 = np.array([0, 1, 3], np.int32)
F32 = np.array([0.5, 2.0, 3.0], np.float32)
U8 = np.array([0, 1, 5], np.uint8)
I8 = np.array([0, 1, 5, -7], np.int8)

CLIPS: list[tuple[str, np.ndarray, Any, Any]] = [
    ("int32 python float", I32, 0.5, 2),
    ("int32 python ints", I32, 0, 2),
    ("float32 np.float64", F32, np.float64(-1), 1),
    ("float32 python", F32, 0, 1),
    ("int32 np.int64", I32, np.int64(-1), 1),
    ("int32 float64 array", I32, np.array([0.5, 0.5, 0.5]), None),
    ("float32 only max", F32, None, 1.0),
    ("uint8 below its range", U8, -1, 3),
    ("int8 beyond its range", I8, -200, 200),
]


@pytest.mark.parametrize("x,lo,hi", [c[1:] for c in CLIPS], ids=[c[0] for c in CLIPS])
def test_clip_follows_numpys_result_dtype(x: np.ndarray, lo: Any, hi: Any) -> None:
    same(np.clip(donate.tensor(x), lo, hi), np.clip(x, lo, hi))
    same(donate.tensor(x).clip(lo, hi), x.clip(lo, hi))


STAT_INPUTS = [
    np.array([True, False, True]),
    np.array([1, 2, 4], np.uint8),
    np.array([[1, 2, 4], [3, 5, 9]], np.int8),
    np.array([[1, 2, 4], [3, 5, 9]], np.int32),
    np.array([[1, 2, 4], [3, 5, 9]], np.int64),
    np.array([[1.0, 2.0], [3.0, 5.0]], np.float32),
]
STATS: list[tuple[str, Callable[..., Any]]] = [
    ("mean", np.mean), ("std", np.std), ("var", np.var), ("average", np.average),
    ("mean axis keepdims", lambda x: np.mean(x, axis=-1, keepdims=True)),
    ("std ddof axis", lambda x: np.std(x, axis=0, ddof=1)),
    ("mean method", lambda x: x.mean(axis=0)),
    ("std method", lambda x: x.std()),
    ("var method", lambda x: x.var(axis=-1)),
    ("average returned", lambda x: np.average(x, axis=0, returned=True)[1]),
]


@pytest.mark.parametrize("x", STAT_INPUTS, ids=lambda x: str(x.dtype))
@pytest.mark.parametrize("f", [s[1] for s in STATS], ids=[s[0] for s in STATS])
def test_statistics_give_numpys_float64_for_bool_and_integers(x: np.ndarray, f: Callable[..., Any]) -> None:
    got, want = f(donate.tensor(x)), f(x)
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6 if x.dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32, np.float64])
@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([[1, 2, 4], [3, 5, 8]], np.int32)],
                         ids=["float64", "int32"])
def test_mean_with_a_dtype_is_numpys(x: np.ndarray, dtype: Any) -> None:
    same(np.mean(donate.tensor(x), dtype=dtype), np.mean(x, dtype=dtype))
    same(np.mean(donate.tensor(x), axis=-1, dtype=dtype), np.mean(x, axis=-1, dtype=dtype))


# ------------------------------------------------------------ sentinels ---

NOVALUE: list[tuple[str, Callable[..., Any]]] = [
    (n, getattr(np, n)) for n in ("sum", "prod", "mean", "max", "min", "std", "var", "any", "all")
] + [
    ("average", np.average), ("argmax", np.argmax),
    ("ptp", np.ptp), ("median", np.median), ("quantile", lambda x, **kw: np.quantile(x, 0.5, **kw)),
]


@pytest.mark.parametrize("f", [n[1] for n in NOVALUE], ids=[n[0] for n in NOVALUE])
def test_keepdims_novalue_means_not_given(f: Callable[..., Any]) -> None:
    x = np.array([[1.0, 2.0, 3.0], [4.0, 6.0, 5.0]])
    got, want = f(donate.tensor(x), keepdims=np._NoValue), f(x, keepdims=np._NoValue)
    assert np.shape(got) == np.shape(want) == ()
    np.testing.assert_allclose(np.asarray(got), want)


def test_where_and_initial_novalue_mean_not_given() -> None:
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    t = donate.tensor(x)
    same(np.sum(t, axis=0, where=np._NoValue, initial=np._NoValue), np.sum(x, axis=0))
    same(np.max(t, initial=np._NoValue), np.max(x))
    same(np.add.reduce(t, axis=0, where=True), np.add.reduce(x, axis=0))


@pytest.mark.parametrize("call", [
    lambda t, m: np.add.reduce(t, axis=1, where=m),
    lambda t, m: np.add.reduce(t, axis=None, where=m),
    lambda t, m: np.multiply.reduce(t, where=np.asarray(m)),
    lambda t, m: np.add.reduce(t, initial=np.array(5.0)),
], ids=["where tensor", "where tensor axis None", "where ndarray", "initial array"])
def test_reduce_where_and_initial_as_numpys(call: Callable[[Any, Any], Any]) -> None:
    """`where=` given a tensor compares nothing with `==` (it used to raise
    "truth value ... ambiguous"): the masked reduction, as NumPy's."""
    x, m = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([True, False])
    same(call(donate.tensor(x), donate.tensor(m)), call(x, m))


@pytest.mark.parametrize("call", [
    lambda t, m: np.subtract.reduce(t, where=m),
    lambda t, m: np.subtract.reduce(t, initial=1.0),
], ids=["subtract where", "subtract initial"])
def test_reduce_where_of_other_ufuncs_is_refused_by_name(call: Callable[[Any, Any], Any]) -> None:
    t = donate.tensor(np.ones((2, 2)))
    m = donate.tensor(np.array([True, False]))
    with pytest.raises(TypeError, match=r"(where|initial)= is not supported"):
        call(t, m)


def test_ufunc_keywords_that_are_arrays_are_refused_by_name() -> None:
    t = donate.tensor(np.ones(2))
    with pytest.raises(TypeError, match="signature= is not supported"):
        np.add(t, 1, signature=out_of(np.ones(2)))

"""`out=` of NumPy functions on tensors: its shape and dtype checked as
NumPy checks them, function by function.

NumPy's reductions, `cumsum`, `concatenate`, `dot`, `take`, ... write only
into an array of the result's shape; its element-wise ufuncs (and the
functions built from them: `clip`, `fix`, `isposinf`, `quantile`) broadcast
the result into a larger one. The casting rule is the function's own:
unsafe for a reduction (`np.sum` of floats into ints truncates), same_kind
where NumPy ends in a ufunc (`std`'s `sqrt`, `ptp`'s `subtract`, `round`),
the `casting=` keyword where there is one. Before, every function
broadcast into any larger `out=` and cast unsafely: `np.sum(x, axis=0,
out=wrong_shape)` filled the wrong shape with the sums where NumPy raises.
Each case is run on NumPy arrays and on tensors: the same result or the
same kind of error."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import donate

A = np.linspace(0.1, 0.9, 6).reshape(2, 3)

# name: (call, the result's shape)
CASES = {
    "sum": (lambda x, o: np.sum(x, axis=0, out=o), (3,)),
    "prod": (lambda x, o: np.prod(x, axis=0, out=o), (3,)),
    "mean": (lambda x, o: np.mean(x, axis=0, out=o), (3,)),
    "var": (lambda x, o: np.var(x, axis=0, out=o), (3,)),
    "std": (lambda x, o: np.std(x, axis=0, out=o), (3,)),
    "max": (lambda x, o: np.max(x, axis=0, out=o), (3,)),
    "all": (lambda x, o: np.all(x, axis=0, out=o), (3,)),
    "argmax": (lambda x, o: np.argmax(x, axis=0, out=o), (3,)),
    "ptp": (lambda x, o: np.ptp(x, axis=0, out=o), (3,)),
    "cumsum": (lambda x, o: np.cumsum(x, axis=0, out=o), (2, 3)),
    "median": (lambda x, o: np.median(x, axis=0, out=o), (3,)),
    "percentile": (lambda x, o: np.percentile(x, 50, axis=0, out=o), (3,)),
    "nanpercentile": (lambda x, o: np.nanpercentile(x, 5, axis=0, out=o), (3,)),
    "nanmean": (lambda x, o: np.nanmean(x, axis=0, out=o), (3,)),
    "nanstd": (lambda x, o: np.nanstd(x, axis=0, out=o), (3,)),
    "nansum": (lambda x, o: np.nansum(x, axis=0, out=o), (3,)),
    "add.reduce": (lambda x, o: np.add.reduce(x, axis=0, out=o), (3,)),
    "add.accumulate": (lambda x, o: np.add.accumulate(x, axis=0, out=o), (2, 3)),
    "clip": (lambda x, o: np.clip(x[0], 0.2, 0.5, out=o), (3,)),
    "round": (lambda x, o: np.round(x[0], 1, out=o), (3,)),
    "fix": (lambda x, o: np.fix(x[0], out=o), (3,)),
    "isposinf": (lambda x, o: np.isposinf(x[0], out=o), (3,)),
    "sqrt": (lambda x, o: np.sqrt(x[0], out=o), (3,)),
    "concatenate": (lambda x, o: np.concatenate([x[0], x[1]], out=o), (6,)),
    "stack": (lambda x, o: np.stack([x[0], x[1]], out=o), (2, 3)),
    "dot": (lambda x, o: np.dot(x[0], x.T, out=o), (2,)),
    "take": (lambda x, o: np.take(x[0], [0, 2], out=o), (2,)),
    "einsum": (lambda x, o: np.einsum("ij->j", x, out=o), (3,)),
}

# (label, the out= array's shape from the result's, its dtype)
OUTS = [
    ("exact", lambda s: s, np.float64),
    ("larger", lambda s: (2,) + s, np.float64),
    ("leading 1", lambda s: (1,) + s, np.float64),
    ("smaller", lambda s: s[1:], np.float64),
    ("int64", lambda s: s, np.int64),
    ("int32", lambda s: s, np.int32),
    ("float32", lambda s: s, np.float32),
]


def _run(mk, call, shape, dtype):
    out = mk(np.zeros(shape, dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(mk(A), out)
    except (TypeError, ValueError) as e:
        return "TypeError" if isinstance(e, TypeError) else "ValueError"
    return np.asarray(out)


@pytest.mark.parametrize("label,shaped,dtype", OUTS, ids=[o[0] for o in OUTS])
@pytest.mark.parametrize("name", sorted(CASES))
def test_out_shape_and_dtype_as_numpy(name, label, shaped, dtype):
    call, shape = CASES[name]
    out_shape = shaped(shape)
    want = _run(np.asarray, call, out_shape, dtype)
    got = _run(donate.asarray, call, out_shape, dtype)
    if isinstance(want, str):
        # NumPy raises: donate raises too, the same error where only the
        # shape is wrong (a float out= of argmax is also the wrong dtype:
        # which check comes first may differ).
        assert isinstance(got, str), f"{name} into {label}: NumPy raises {want}, donate wrote {got}"
        if label in ("larger", "leading 1", "smaller") and not isinstance(
                _run(np.asarray, call, shape, dtype), str):
            assert got == want
    else:
        assert not isinstance(got, str), f"{name} into {label}: NumPy writes {want}, donate {got}"
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert got.dtype == want.dtype


def test_wrong_shape_names_both_shapes():
    x = donate.ones((2, 3))
    with pytest.raises(ValueError, match=r"out= array has shape \(2, 3\), the result has shape \(3,\)"):
        np.sum(x, axis=0, out=donate.zeros((2, 3)))


def test_a_refused_out_is_left_as_it_was():
    x, out = donate.ones((2, 3)), donate.full((2, 3), 7.0)
    with pytest.raises(ValueError):
        np.sum(x, axis=0, out=out)
    assert out.tolist() == [[7.0] * 3] * 2


def test_where_blends_the_loops_own_result_into_out():
    """A ufunc's `where=` with `out=`: the loop's result is cast to `out`'s
    dtype, then kept where the mask is true. Before, it was first
    promoted with `out` (uint64 with int64 is float64), which lost digits
    under unsafe casting and refused same_kind casts NumPy makes."""
    a = np.array([2**53 + 1, 5], np.uint64)
    m = np.array([True, False])
    for mk in (np.asarray, donate.asarray):
        out = mk(np.zeros(2, np.int64))
        np.add(mk(a), np.uint64(0), out=out, where=mk(m), casting="unsafe")
        assert np.asarray(out).tolist() == [2**53 + 1, 0]
    b = np.array([4, 3, 7], np.uint64)
    mask = np.array([True, False, True])
    for mk in (np.asarray, donate.asarray):
        out = mk(np.full(3, 7, np.int32))
        np.floor(mk(b), out=out, where=mk(mask))
        assert np.asarray(out).tolist() == [4, 7, 7]


@pytest.mark.parametrize("call", [
    lambda x, w: np.add(x, 1, out=donate.zeros(3), where=w),
    lambda x, w: np.sum(x, where=w),
    lambda x, w: np.mean(x, where=w),
    lambda x, w: np.copyto(donate.zeros(3), x, where=w),
], ids=["ufunc", "sum", "mean", "copyto"])
@pytest.mark.parametrize("mask", [np.array([1, 0, 1]), np.array([1.0, 0.0, 1.0])], ids=["int", "float"])
def test_a_where_mask_must_be_boolean(call, mask):
    # NumPy reads where= as bool under safe casting: not as truth values.
    with pytest.raises(TypeError, match="to dtype\\('bool'\\)"):
        call(np.ones(3), mask)
    with pytest.raises(TypeError, match="to dtype\\('bool'\\)"):
        call(donate.ones(3), donate.asarray(mask))


@pytest.mark.parametrize("join", [np.concatenate, np.stack, np.hstack, np.vstack])
@pytest.mark.parametrize("dtype,casting", [("int64", "same_kind"), ("int64", "unsafe"),
                                           ("float32", "same_kind"), ("float32", "no")])
def test_a_join_checks_casting_of_its_dtype_as_numpy(join, dtype, casting) -> None:
    """`dtype=` of a join casts each input by `casting` (it cast unsafely
    whatever `casting` said)."""
    a = np.array([1.5, 2.7])
    try:
        want = join([a, a], dtype=dtype, casting=casting)
    except TypeError:
        with pytest.raises(TypeError, match="according to the rule"):
            join([donate.asarray(a)] * 2, dtype=dtype, casting=casting)
        return
    got = join([donate.asarray(a)] * 2, dtype=dtype, casting=casting)
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_array_equal(np.asarray(got), want)

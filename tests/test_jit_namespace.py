"""`donate.jit` traces every function of the namespace and matches eager.

The table of calls is `test_every_donation_answered.CALLS`, which must
cover `donate.__all__` and `donate.linalg` (its own test checks that), so
a new function cannot be forgotten here either. Each function is called
eagerly and inside `donate.jit` over the same argument; the results must
have the same dtypes, shapes and values, and the run must follow its plan
(`plan_mismatches` unchanged).

Only the functions whose result's shape depends on the values
(`VALUE_SHAPED`: `nonzero`, the `unique_*` functions) are refused, with a
`TracerError` that names the function and says why, as `jax.jit` refuses
them.

The second part: a traced program whose function may fail on values (an
index out of range, a singular matrix) keeps its donated arguments intact
until that function has run, so a failed call returns them.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from test_every_donation_answered import CALLS, IN_SEQUENCE, M, _function

import donate

VALUE_SHAPED = {"nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values"}


def _base(name: str) -> np.ndarray:
    shape, dtype, _, _ = CALLS[name]
    if dtype == "bool":
        return np.ones(shape, bool)
    base = np.arange(1, 1 + int(np.prod(shape)), dtype=dtype).reshape(shape)
    if name.startswith("linalg.") and shape == M:
        base = np.eye(3, dtype=dtype) * 2 + 0.5
    return base


def _call(name: str, x: Any) -> Any:
    _, _, extra, kwargs = CALLS[name]
    f = _function(name)
    if name in {"broadcast_arrays", "meshgrid"}:
        return f(x, *extra, **kwargs)
    if name in IN_SEQUENCE:
        return f([x], *extra, **kwargs)
    return f(x, *extra, **kwargs)


def _leaves(out: Any) -> list[donate.Tensor]:
    if isinstance(out, donate.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _leaves(o)]
    raise AssertionError(f"not a tensor result: {type(out).__name__}")


TRACED = sorted(set(CALLS) - VALUE_SHAPED)


@pytest.mark.parametrize("name", TRACED)
def test_jit_matches_eager(name: str) -> None:
    base = _base(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        want = _leaves(_call(name, donate.asarray(base.copy())))
        mismatches = donate.memory_stats()["plan_mismatches"]
        f = donate.jit(lambda x: _call(name, x))
        got = _leaves(f(donate.asarray(base.copy())))
        again = _leaves(f(donate.asarray(base.copy())))
    assert f.trace_count == 1
    assert donate.memory_stats()["plan_mismatches"] == mismatches
    assert len(got) == len(want)
    for g, a, w in zip(got, again, want):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), name
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(g))


@pytest.mark.parametrize("name", TRACED)
def test_jit_with_the_argument_donated_follows_its_plan(name: str) -> None:
    """Each function over a donated argument: where the plan gives the
    result the argument's buffer, the result is in it, not a kernel's
    scratch of the same length (`mean` once summed into the donated
    buffer and allocated its result after it: under an arena that failed
    there, the argument was lost). The run counts a planned buffer served
    to another allocation as a mismatch."""
    base = _base(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        want = _leaves(_call(name, donate.asarray(base.copy())))
        mismatches = donate.memory_stats()["plan_mismatches"]
        f = donate.jit(lambda x: _call(name, x), donate_argnums=0)
        got = _leaves(f(donate.asarray(base.copy())))
        again = _leaves(f(donate.asarray(base.copy())))
    assert donate.memory_stats()["plan_mismatches"] == mismatches, name
    for g, a, w in zip(got, again, want):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), name
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(g))


def test_mean_under_a_tight_arena_keeps_its_donated_argument() -> None:
    def f(x, y):
        return donate.stack([x, y]).mean(axis=0)

    jf = donate.jit(f, donate_argnums=0)
    xv = np.arange(1024, dtype=np.float32).reshape(32, 32)
    y = donate.ones((32, 32))
    x = donate.asarray(xv)
    p = x.data_ptr()
    r = jf(x, y)
    assert r.data_ptr() == p  # the plan's alias, as its header says
    np.testing.assert_allclose(np.asarray(r), (xv + 1) / 2)
    x = donate.asarray(xv)
    with donate.arena(max_bytes=8192):
        try:
            jf(x, y)
        except MemoryError:
            assert not x.is_donated
            np.testing.assert_array_equal(x.numpy(), xv)


@pytest.mark.parametrize("name", sorted(VALUE_SHAPED))
def test_a_value_shaped_function_is_refused_naming_it(name: str) -> None:
    f = donate.jit(lambda x: _call(name, x))
    with pytest.raises(donate.TracerError, match=rf"{name}: cannot be traced .*depends on the values"):
        f(donate.asarray(_base(name)))


def test_the_jaxpr_names_a_fresh_function_and_its_parameters() -> None:
    jaxpr = str(donate.make_jaxpr(lambda x: donate.argmax(donate.concat([x, x], axis=1), axis=0))(donate.ones((2, 3))))
    assert "concat[axis=1]" in jaxpr and "argmax[axis=0 keepdims=False]" in jaxpr, jaxpr


def test_a_multi_result_function_gives_every_result_under_jit() -> None:
    a = np.array([[4.0, 1.0], [1.0, 3.0]], np.float32)
    w, v = donate.jit(lambda x: tuple(donate.linalg.eigh(x)))(donate.asarray(a))
    ew, ev = donate.linalg.eigh(donate.asarray(a))
    np.testing.assert_allclose(np.asarray(w), np.asarray(ew), rtol=1e-6)
    np.testing.assert_allclose(np.abs(np.asarray(v)), np.abs(np.asarray(ev)), rtol=1e-5)


# (function, a valid second argument, one that fails on values)
FAILING = {
    "take": (lambda x, i: donate.take(x * 2.0, i, axis=0), np.array([0, 1]), np.array([0, 7])),
    "take_along_axis": (
        lambda x, i: donate.take_along_axis(x * 2.0, i, axis=0),
        np.zeros((3, 3), np.int64),
        np.full((3, 3), 9, np.int64),
    ),
    "linalg.inv": (lambda x, s: donate.linalg.inv(x * s), np.float32(1.0), np.float32(0.0)),
}


@pytest.mark.parametrize("name", sorted(FAILING))
def test_a_failure_on_values_leaves_the_donated_argument_intact(name: str) -> None:
    f, good, bad = FAILING[name]
    a = (np.eye(3, dtype=np.float32) * 2 + 0.5).astype(np.float32)
    jf = donate.jit(f, donate_argnums=0)
    with warnings.catch_warnings():
        # (The donation may find no use once it is kept past the function
        # that may fail: a DonationWarning then says so.)
        warnings.simplefilter("ignore", donate.DonationWarning)
        jf(donate.asarray(a), donate.asarray(good))  # traces and plans
        x = donate.asarray(a)
        p = x.data_ptr()
        with pytest.raises((IndexError, ValueError, donate.linalg.LinAlgError)):
            jf(x, donate.asarray(bad))
    assert not x.is_donated
    assert x.data_ptr() == p
    np.testing.assert_array_equal(x.numpy(), a)

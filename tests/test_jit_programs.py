"""Generated programs: random straight-line functions of element-wise ops,
matmuls, reductions, views, setitem and in-place updates, run eagerly and
through ``donate.jit`` with random arguments donated.

Checked for every program and donation pattern:

* jit's outputs equal eager's;
* a non-donated argument keeps its values and its buffer;
* a donated argument is moved-from exactly when the plan consumes it
  (``aliases``/``donors``), and an alias's output is its old buffer;
* the run followed the plan (``plan_mismatches`` unchanged) and its
  measured peak is the planned one;
* without donation, the planned peak is at or below the eager peak (unless
  the eager code updated an argument in place, which changes the caller's
  tensor; the program leaves it alone and so may hold both values).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import donate

N = 4  # every value is [N, N] (views and reductions come back to it)

UNARY = ["relu", "neg", "exp_small", "tanh", "sigmoid", "gelu", "abs"]
BINARY = ["add", "sub", "mul", "maximum_row"]


def step_strategy(nvals: int) -> st.SearchStrategy[tuple[Any, ...]]:
    i = st.integers(0, nvals - 1)
    return st.one_of(
        st.tuples(st.just("unary"), st.sampled_from(UNARY), i),
        st.tuples(st.just("binary"), st.sampled_from(BINARY), i, i),
        st.tuples(st.just("scalar"), st.sampled_from(["add", "mul"]), i, st.sampled_from([0.5, 2.0, -1.0])),
        st.tuples(st.just("matmul"), i, i),
        st.tuples(st.just("matmul_t"), i, i),
        st.tuples(st.just("addmm"), i, i, i),
        st.tuples(st.just("softmax"), i),
        st.tuples(st.just("layer_norm"), i),
        st.tuples(st.just("sum_keep"), i),
        st.tuples(st.just("transpose"), i),
        st.tuples(st.just("reshape"), i),
        st.tuples(st.just("rows"), i),
        st.tuples(st.just("setitem"), i, i),
        st.tuples(st.just("iadd"), i, i),
        st.tuples(st.just("relu_"), i),
    )


@st.composite
def programs(draw: Any) -> tuple[int, list[tuple[Any, ...]], list[int]]:
    nargs = draw(st.integers(1, 3))
    steps = []
    for k in range(draw(st.integers(1, 8))):
        steps.append(draw(step_strategy(nargs + k)))
    nvals = nargs + len(steps)
    outs = draw(st.lists(st.integers(0, nvals - 1), min_size=1, max_size=3, unique=True))
    return nargs, steps, outs


def run_steps(nargs: int, steps: list[tuple[Any, ...]], outs: list[int], args: tuple[Any, ...]) -> tuple[Any, ...]:
    vals = list(args)
    for s in steps:
        kind = s[0]
        if kind == "unary":
            x = vals[s[2]]
            y = (x * 0.25).exp() if s[1] == "exp_small" else getattr(x, s[1])()
        elif kind == "binary":
            a, b = vals[s[2]], vals[s[3]]
            if s[1] == "maximum_row":
                y = a - b[0:1]  # broadcast of a row view
            else:
                y = {"add": a + b, "sub": a - b, "mul": a * b}[s[1]]
        elif kind == "scalar":
            y = vals[s[2]] + s[3] if s[1] == "add" else vals[s[2]] * s[3]
        elif kind == "matmul":
            y = vals[s[1]] @ vals[s[2]]
        elif kind == "matmul_t":
            y = vals[s[1]] @ vals[s[2]].T
        elif kind == "addmm":
            y = donate.addmm(vals[s[1]], vals[s[2]], vals[s[3]])
        elif kind == "softmax":
            y = vals[s[1]].softmax()
        elif kind == "layer_norm":
            y = vals[s[1]].layer_norm()
        elif kind == "sum_keep":
            y = vals[s[1]].sum(axis=1, keepdims=True) + vals[s[1]]
        elif kind == "transpose":
            y = vals[s[1]].T
        elif kind == "reshape":
            y = vals[s[1]].reshape(N * N).reshape(N, N)
        elif kind == "rows":
            y = vals[s[1]][::-1]
        elif kind == "setitem":
            y = vals[s[1]].copy()
            y[1] = vals[s[2]][0]
        elif kind == "iadd":
            y = vals[s[1]]
            y += vals[s[2]]
            vals[s[1]] = y
        elif kind == "relu_":
            y = vals[s[1]]
            y.relu_()
        else:  # pragma: no cover
            raise AssertionError(kind)
        vals.append(y)
    return tuple(vals[i] for i in outs)


def make_args(nargs: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((N, N)).astype(np.float32) for _ in range(nargs)]


@settings(max_examples=400)
@given(programs(), st.integers(0, 2**16), st.data())
def test_jit_runs_generated_programs_as_eager_code_does(prog: Any, seed: int, data: Any) -> None:
    nargs, steps, outs = prog
    arrays = make_args(nargs, seed)

    def fn(*args: Any) -> tuple[Any, ...]:
        return run_steps(nargs, steps, outs, args)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        base = donate.memory_stats()["live_bytes"]
        eager_args = [donate.tensor(a) for a in arrays]
        donate.reset_peak_memory()
        want = [o.numpy().copy() for o in fn(*eager_args)]
        eager_peak = donate.memory_stats()["peak_bytes"] - base
        # Eager code that updates an argument in place changes the
        # caller's tensor; a traced program never writes a non-donated
        # argument, so it keeps both values and may hold more.
        mutated = any(not np.array_equal(e.numpy(), a) for e, a in zip(eager_args, arrays))
        del eager_args

        donated = tuple(sorted(data.draw(st.sets(st.integers(0, nargs - 1)))))
        f = donate.jit(fn, donate_argnums=donated)
        args = [donate.tensor(a) for a in arrays]
        ptrs = [a.data_ptr() for a in args]
        lowered = f.lower(*args)
        planned = lowered.memory_analysis().peak_memory_in_bytes
        consumed = {k for _, k in lowered.aliases} | set(lowered.donors)
        assert consumed <= set(donated)
        if not donated and not mutated:
            assert planned <= eager_peak, (planned, eager_peak)
        mismatches = donate.memory_stats()["plan_mismatches"]
        base = donate.memory_stats()["live_bytes"] - sum(a.nbytes for a in arrays)
        donate.reset_peak_memory()
        got = f(*args)
        measured = donate.memory_stats()["peak_bytes"] - base

    assert donate.memory_stats()["plan_mismatches"] == mismatches
    assert measured == planned, (measured, planned, lowered.as_text())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=2e-5, atol=2e-5)
    for k, a in enumerate(args):
        if k in consumed:
            assert a.is_donated
        else:
            assert not a.is_donated
            assert a.data_ptr() == ptrs[k]
            np.testing.assert_array_equal(a.numpy(), arrays[k])
    for o, k in lowered.aliases:
        if not got[o].is_view:  # a view's first element is elsewhere in the buffer
            assert got[o].data_ptr() == ptrs[k]


def test_strided_and_sliced_arguments_are_read_where_they_lie_or_copied() -> None:
    x = donate.tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    xn = x.numpy().copy()
    f = donate.jit(lambda a: (a + 1).relu())
    np.testing.assert_array_equal(f(x.T).numpy(), np.maximum(xn.T + 1, 0))
    np.testing.assert_array_equal(f(x[1:]).numpy(), np.maximum(xn[1:] + 1, 0))
    g = donate.jit(lambda a, b: a @ b)
    np.testing.assert_allclose(g(x.T, x).numpy(), xn.T @ xn)
    # A donated view is copied (it does not cover its buffer), with a warning.
    with pytest.warns(donate.DonationWarning, match="cannot be taken"):
        y = donate.jit(lambda a: a * 2, donate_argnums=0)(x.T)
    np.testing.assert_array_equal(y.numpy(), xn.T * 2)
    np.testing.assert_array_equal(x.numpy(), xn)


def test_an_argument_updated_in_place_inside_is_not_written_back() -> None:
    def f(x: Any) -> Any:
        x += 1
        return x * 2

    x = donate.ones((3,))
    y = donate.jit(f)(x)
    np.testing.assert_array_equal(x.numpy(), [1, 1, 1])
    np.testing.assert_array_equal(y.numpy(), [4, 4, 4])


def test_a_tensor_made_inside_may_be_updated_with_traced_values_but_not_a_captured_one() -> None:
    def build(x: Any) -> Any:
        out = donate.zeros((2, 3))
        out[0] = x[1]
        out += x
        return out

    x = donate.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    want = build(x).numpy()
    f = donate.jit(build)
    np.testing.assert_array_equal(f(x).numpy(), want)
    np.testing.assert_array_equal(f(x).numpy(), want)  # from the cache

    captured = donate.ones((2, 3))

    def update(x: Any) -> Any:
        captured.__iadd__(x)
        return captured

    with pytest.raises(donate.TracerError, match="captured"):
        donate.jit(update)(x)
    np.testing.assert_array_equal(captured.numpy(), np.ones((2, 3)))
    assert not captured._traced


def test_arguments_and_outputs_are_freed_without_the_garbage_collector() -> None:
    import gc

    f = donate.jit(lambda a, p: ((a * p["w"]).relu(), [a.sum()]))
    p = {"w": donate.ones((1000,))}
    gc.collect()
    gc.disable()
    try:
        base = donate.memory_stats()["live_bytes"]
        x = donate.ones((1000,))
        f.lower(x, p)
        y, (s,) = f(x, p)
        del x, y, s
        assert donate.memory_stats()["live_bytes"] == base
    finally:
        gc.enable()

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

Then, each compared exactly with eager code (`helpers.same`: dtype, NaN,
signed zeros):

* writes through views (setitem with ints, slices and steps, `+=`,
  `relu_()`, ... on transposed, reversed, stepped and sliced views) of
  arguments, donated or not, and of intermediates: the base keeps its
  values (copy on write); a call that raises leaves every donated argument
  intact;
* concrete tensors made in loops (each its own constant, even when made at
  a freed one's address) and concrete tensors updated in place between two
  uses (each use sees the value it had);
* Python numbers as arguments: keyed by type and bits (0.0 and -0.0, True,
  1 and 1.0 are different programs; a fresh NaN is not a new one).
"""

from __future__ import annotations

import math
import struct
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import donate
from helpers import same, unchanged

N = 4  # every value is [N, N] (views and reductions come back to it)

UNARY = ["relu", "neg", "exp_small", "tanh", "sigmoid", "gelu", "abs"]
BINARY = ["add", "sub", "mul", "maximum_row"]


def view_and_update_steps(i: st.SearchStrategy[int]) -> list[st.SearchStrategy[tuple[Any, ...]]]:
    """The steps both generators share: views, and in-place updates of a
    value (`i` draws which)."""
    return [
        st.tuples(st.just("transpose"), i),
        st.tuples(st.just("reshape"), i),
        st.tuples(st.just("rows"), i),
        st.tuples(st.just("setitem"), i, i),
        st.tuples(st.just("iadd"), i, i),
        st.tuples(st.just("relu_"), i),
    ]


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
        # Functions that always write a new buffer (planned as Op::Fresh).
        st.tuples(st.just("concat_halves"), i, i),
        st.tuples(st.just("take_rows"), i),
        st.tuples(st.just("tile_row"), i),
        st.tuples(st.just("broadcast_row"), i),
        st.tuples(st.just("diff_prepend"), i),
        st.tuples(st.just("argsort_float"), i),
        *view_and_update_steps(i),
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


def apply_step(vals: list[Any], s: tuple[Any, ...]) -> None:
    """Run one step of `step_strategy` on `vals` and append its value."""
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
    elif kind == "concat_halves":
        y = donate.concat([vals[s[1]][: N // 2], vals[s[2]].T[N // 2 :]], axis=0)
    elif kind == "take_rows":
        # (Indices computed from the data: a constant would be held by the
        # program, outside what a call's measured peak sees.)
        y = donate.take(vals[s[1]], donate.argmax(vals[s[1]], axis=1), axis=0)
    elif kind == "tile_row":
        y = donate.tile(vals[s[1]][1:2], (N, 1))
    elif kind == "broadcast_row":
        y = donate.broadcast_to(vals[s[1]].T[0], (N, N))
    elif kind == "diff_prepend":
        y = donate.diff(vals[s[1]], axis=1, prepend=vals[s[1]][:, :1])
    elif kind == "argsort_float":
        y = donate.argsort(vals[s[1]], axis=1).astype("float32")
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


def run_steps(nargs: int, steps: list[tuple[Any, ...]], outs: list[int], args: tuple[Any, ...]) -> tuple[Any, ...]:
    vals = list(args)
    for s in steps:
        apply_step(vals, s)
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
        try:
            lowered = f.lower(*args)
        except donate.TracerError as e:
            # It reads a value written since through a view (eagerly the
            # write shows): refused before anything ran.
            assert "written in place since" in str(e), e
            for a, arr in zip(args, arrays):
                unchanged(a, arr)
            return
        planned = lowered.memory_analysis().peak_memory_in_bytes
        # No plan of this order of equations needs less than the bound.
        assert lowered.memory_analysis().peak_lower_bound_in_bytes <= planned, lowered.as_text()
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

    with pytest.raises(donate.TracerError, match="made before the trace began"):
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


# ------------------------------------------------ writes through views ---
#
# Eagerly a write through a view (setitem, `+=`, `relu_()`) reaches its
# base. A traced program either gives eager's values, whether the base is
# an argument (donated or not), an intermediate, or itself a view, or
# refuses with a TracerError when the program reads a view or base
# written since.

# Views of an [N, N] value, applied the same way to a NumPy array to learn
# their shapes: [N, N], [2, N], [N, 2] or [N].
VIEWS: dict[str, Callable[[Any], Any]] = {
    "T": lambda x: x.T,
    "rows_rev": lambda x: x[::-1],
    "cols_rev": lambda x: x[:, ::-1],
    "rows_step": lambda x: x[::2],
    "rows_mid": lambda x: x[1:3],
    "T_rows_step": lambda x: x.T[::2],
    "T_cols_step": lambda x: x.T[:, 1::2],
    "row": lambda x: x[1],
    "col": lambda x: x[:, 2],
}
SET_INDICES: list[Any] = [
    0,
    -1,
    1,
    (slice(None), 1),
    (slice(None, None, 2),),
    (slice(1, None), slice(None, None, -1)),
    (1, 1),
    (Ellipsis, 0),
    (slice(None, None, -2), slice(0, 2)),
    slice(1, 3),
]
EXACT_UNARY = ["relu", "neg", "abs"]
EXACT_BINARY = ["add", "sub", "mul", "maximum_row"]


def view_shape(view: str) -> tuple[int, ...]:
    return tuple(VIEWS[view](np.empty((N, N))).shape)


def target_shape(shape: tuple[int, ...], index: Any) -> tuple[int, ...] | None:
    """The shape `index` selects in a value of `shape`, or None if invalid."""
    try:
        return tuple(np.empty(shape)[index].shape)
    except IndexError:
        return None


def source_strategy(nvals: int) -> st.SearchStrategy[tuple[Any, ...]]:
    """What a write stores: a Python number, or the top-left corner of a
    value (`fit`) with the target's shape or one row broadcast over it."""
    return st.one_of(
        st.tuples(st.just("scalar"), st.sampled_from([1.0, -0.0, 2.5])),
        st.tuples(st.sampled_from(["val", "row"]), st.integers(0, nvals - 1)),
    )


@st.composite
def view_write_step(draw: st.DrawFn, nargs: int, nvals: int) -> tuple[Any, ...]:
    """`v = VIEW(vals[i])`, then one or two writes through `v`; half the
    time `vals[i]` is an argument (which may be donated)."""
    i = draw(st.one_of(st.integers(0, nargs - 1), st.integers(0, nvals - 1)))
    view = draw(st.sampled_from(sorted(VIEWS)))
    shape = view_shape(view)
    valid = [ix for ix in SET_INDICES if target_shape(shape, ix) is not None]
    write = st.one_of(
        st.tuples(st.just("set"), st.sampled_from(valid), source_strategy(nvals)),
        st.tuples(st.sampled_from(["iadd", "isub"]), source_strategy(nvals)),
        st.tuples(st.just("imul"), st.sampled_from([2.0, -1.0])),
        st.tuples(st.sampled_from(["relu_", "neg_"])),
    )
    writes = draw(st.lists(write, min_size=1, max_size=2))
    return ("view_write", i, view, tuple(writes))


def view_step_strategy(nargs: int, nvals: int) -> st.SearchStrategy[tuple[Any, ...]]:
    """Writes through views (weighted up) among the exact steps of
    `step_strategy` (no matmul or reduction: values are compared exactly)."""
    i = st.integers(0, nvals - 1)
    write = view_write_step(nargs, nvals)
    return st.one_of(
        write,
        write,
        write,
        st.tuples(st.just("unary"), st.sampled_from(EXACT_UNARY), i),
        st.tuples(st.just("binary"), st.sampled_from(EXACT_BINARY), i, i),
        st.tuples(st.just("scalar"), st.sampled_from(["add", "mul"]), i, st.sampled_from([0.5, 2.0, -1.0])),
        *view_and_update_steps(i),
    )


@st.composite
def view_programs(draw: st.DrawFn) -> tuple[int, list[tuple[Any, ...]], list[int]]:
    nargs = draw(st.integers(1, 3))
    steps = [draw(view_step_strategy(nargs, nargs + k)) for k in range(draw(st.integers(1, 6)))]
    outs = draw(st.lists(st.integers(0, nargs + len(steps) - 1), min_size=1, max_size=3, unique=True))
    return nargs, steps, outs


def fit(t: Any, shape: tuple[int, ...]) -> Any:
    """The top-left corner of the [N, N] value `t` with `shape` (a view)."""
    return t[(0,) * (2 - len(shape)) + tuple(slice(0, d) for d in shape)]


def source(vals: list[Any], src: tuple[Any, ...], shape: tuple[int, ...]) -> Any:
    if src[0] == "scalar":
        return src[1]
    return fit(vals[src[1]], shape[-1:] if src[0] == "row" else shape)


def write_through(v: Any, w: tuple[Any, ...], vals: list[Any]) -> Any:
    """Apply the write `w` to the view `v`; the (rebound) view."""
    kind = w[0]
    if kind == "set":
        shape = target_shape(tuple(v.shape), w[1])
        assert shape is not None
        v[w[1]] = source(vals, w[2], shape)
    elif kind == "iadd":
        v += source(vals, w[1], tuple(v.shape))
    elif kind == "isub":
        v -= source(vals, w[1], tuple(v.shape))
    elif kind == "imul":
        v *= w[1]
    elif kind == "relu_":
        v.relu_()
    elif kind == "neg_":
        v.neg_()
    else:  # pragma: no cover
        raise AssertionError(kind)
    return v


def back_to_square(base: Any, v: Any) -> Any:
    """An [N, N] value reading every element of the view `v` and of its
    base (whose values a write through `v` must not have changed)."""
    if tuple(v.shape) == (N, N):
        return v
    if v.ndim == 1:
        return base + v
    if v.shape[0] == 2:
        return base + (v[0:1] + v[1:2])
    return base + (v[:, 0:1] + v[:, 1:2])


def run_view_steps(steps: list[tuple[Any, ...]], outs: list[int], args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The values `outs`, then every written view that is not [N, N]."""
    vals = list(args)
    extra = []
    for s in steps:
        if s[0] != "view_write":
            apply_step(vals, s)
            continue
        base = vals[s[1]]
        v = VIEWS[s[2]](base)
        for w in s[3]:
            v = write_through(v, w, vals)
        vals.append(back_to_square(base, v))
        if tuple(v.shape) != (N, N):
            extra.append(v)
    return tuple(vals[i] for i in outs) + tuple(extra)


def call_or_leave_intact(
    f: Any, args: list[Any], arrays: list[np.ndarray], donated: tuple[int, ...]
) -> tuple[Any, ...]:
    """`f(*args)`. Eager code ran these arguments, so the jitted call must
    too (a program that plans runs); if it raises all the same, every
    argument must first be found intact (not moved-from, its values kept)
    before the failure is reported."""
    try:
        got = f(*args)
    except Exception:
        if donated:
            for a, arr in zip(args, arrays):
                unchanged(a, arr)
        raise
    return got if isinstance(got, tuple) else (got,)


@settings(max_examples=300)
@given(view_programs(), st.integers(0, 2**16), st.data())
def test_jit_writes_through_views_as_eager_code_does(prog: Any, seed: int, data: st.DataObject) -> None:
    """Programs that write through views of arguments and intermediates
    (setitem with ints, slices and steps, `+=`, `-=`, `*=`, `relu_`,
    `neg_` on transposed, reversed, stepped and sliced views), then use
    the views and their bases: every call succeeds (a program that plans
    runs), and jit's outputs equal eager's exactly, with the ownership and
    plan accounting of `test_jit_runs_generated_programs_as_eager_code_does`.
    (A failure is reported only after checking that it left every argument
    intact.)"""
    nargs, steps, outs = prog
    arrays = make_args(nargs, seed)

    def fn(*args: Any) -> tuple[Any, ...]:
        return run_view_steps(steps, outs, args)

    want = [o.numpy().copy() for o in fn(*[donate.tensor(a) for a in arrays])]
    every = st.just(set(range(nargs)))
    donated = tuple(sorted(data.draw(st.one_of(every, st.sets(st.integers(0, nargs - 1))), label="donated")))
    f = donate.jit(fn, donate_argnums=donated)
    args = [donate.tensor(a) for a in arrays]
    ptrs = [a.data_ptr() for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        try:
            lowered = f.lower(*args)
        except donate.TracerError as e:
            # A read of a view or base written since: eager code sees the
            # write, a program cannot, so jit refuses (nothing ran).
            assert "written in place since" in str(e), e
            for k, a in enumerate(args):
                unchanged(a, arrays[k])
            return
        planned = lowered.memory_analysis().peak_memory_in_bytes
        # No plan of this order of equations needs less than the bound.
        assert lowered.memory_analysis().peak_lower_bound_in_bytes <= planned, lowered.as_text()
        consumed = {k for _, k in lowered.aliases} | set(lowered.donors)
        assert consumed <= set(donated)
        mismatches = donate.memory_stats()["plan_mismatches"]
        base = donate.memory_stats()["live_bytes"] - sum(a.nbytes for a in arrays)
        donate.reset_peak_memory()
        got = call_or_leave_intact(f, args, arrays, donated)
        measured = donate.memory_stats()["peak_bytes"] - base
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
    for k, a in enumerate(args):
        if k in consumed:
            assert a.is_donated
        else:
            unchanged(a, arrays[k])
            assert a.data_ptr() == ptrs[k]
    assert donate.memory_stats()["plan_mismatches"] == mismatches
    assert measured == planned, (measured, planned, lowered.as_text())


def reads_after_write(fn: Callable[..., Any]) -> bool:
    """Whether jit refuses `fn` over two [N, N] tensors."""
    try:
        donate.jit(fn).lower(donate.zeros((N, N)), donate.zeros((N, N)))
    except donate.TracerError as e:
        assert "written in place since" in str(e), e
        return True
    return False


def refused_by_jit(fn: Callable[..., Any], arrays: list[np.ndarray], donated: tuple[int, ...]) -> None:
    """`fn` runs eagerly, and jit refuses it with a TracerError (it reads
    a tensor written since through a view), leaving every argument intact."""
    fn(*[donate.tensor(a) for a in arrays])
    args = [donate.tensor(a) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        with pytest.raises(donate.TracerError, match="written in place since"):
            donate.jit(fn, donate_argnums=donated)(*args)
    for a, arr in zip(args, arrays):
        unchanged(a, arr)


def eager_and_jit(fn: Callable[..., Any], arrays: list[np.ndarray], donated: tuple[int, ...]) -> None:
    """`fn` jitted with `donated` returns eager's outputs (and, if it
    raises, it left every argument intact: checked before the failure is
    reported)."""
    out = fn(*[donate.tensor(a) for a in arrays])
    want = [o.numpy().copy() for o in (out if isinstance(out, tuple) else (out,))]
    args = [donate.tensor(a) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        got = call_or_leave_intact(donate.jit(fn, donate_argnums=donated), args, arrays, donated)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
    for k, a in enumerate(args):
        if k not in donated or not a.is_donated:  # a moved-from one was consumed
            unchanged(a, arrays[k])


X44 = np.arange(16, dtype=np.float32).reshape(4, 4) - 5
Y44 = np.linspace(-2, 2, 16, dtype=np.float32).reshape(4, 4)
DONATIONS = [(), (0,), (1,), (0, 1)]


@pytest.mark.parametrize("donated", DONATIONS)
def test_setitem_through_a_transposed_view_then_scale(donated: tuple[int, ...]) -> None:
    """`v = x.T; v[0] = 1.0; return v * 3.0` (x donated or not)."""

    def f(x: Any, y: Any) -> Any:
        v = x.T
        v[0] = 1.0
        return v * 3.0

    eager_and_jit(f, [X44, Y44], donated)


@pytest.mark.parametrize("donated", DONATIONS)
def test_iadd_through_a_stepped_row_view(donated: tuple[int, ...]) -> None:
    """`v = x[::2]; v += y[::2]`: `v` alone is traced; reading `x` after
    (eagerly changed through `v`) is refused."""

    def f(x: Any, y: Any) -> tuple[Any, ...]:
        v = x[::2]
        v += y[::2]
        return v, x, x + y

    def g(x: Any, y: Any) -> Any:
        v = x[::2]
        v += y[::2]
        return v * 2.0

    refused_by_jit(f, [X44, Y44], donated)
    eager_and_jit(g, [X44, Y44], donated)


@pytest.mark.parametrize("donated", DONATIONS)
def test_relu_in_place_on_a_transposed_view(donated: tuple[int, ...]) -> None:
    """`v = x.T; v.relu_()`, then `v` and `x + y`."""

    def f(x: Any, y: Any) -> tuple[Any, ...]:
        v = x.T
        v.relu_()
        return v, x + y

    def g(x: Any, y: Any) -> tuple[Any, ...]:
        v = x.T
        v.relu_()
        return v, v + y

    refused_by_jit(f, [X44, Y44], donated)
    eager_and_jit(g, [X44, Y44], donated)


@pytest.mark.parametrize("donated", DONATIONS)
def test_setitem_with_steps_on_sliced_and_transposed_views(donated: tuple[int, ...]) -> None:
    """Setitem with stepped slices and ints on `x[:, ::-1]` and
    `x.T[1:]`, each then read along with its base and `y`."""

    def f(x: Any, y: Any) -> tuple[Any, ...]:
        v = x[:, ::-1]
        v[::2, 1] = y[0, :2]
        w = x.T[1:]
        w[:, ::-2] = -0.0
        w[0] = y[1, :4]
        return v + y, w, x * 2.0, y

    refused_by_jit(f, [X44, Y44], donated)


def view_writes(view: str) -> list[tuple[Any, ...]]:
    """Every write of `view_write_step` through `view`, reading `y`
    (`vals[1]`) where it reads a value."""
    shape = view_shape(view)
    sources = [("scalar", -0.0), ("val", 1), ("row", 1)]
    writes: list[tuple[Any, ...]] = [
        ("set", ix, src) for ix in SET_INDICES if target_shape(shape, ix) is not None for src in sources
    ]
    writes += [("iadd", ("val", 1)), ("iadd", ("row", 1)), ("isub", ("scalar", 2.5)), ("imul", -1.0)]
    return writes + [("relu_",), ("neg_",)]


def write_and_use(view: str, w: tuple[Any, ...], use: str) -> Callable[[Any, Any], Any]:
    """`f(x, y)`: the write `w` through `VIEWS[view](x)`, then `use` of the
    view (the case is closed over, not passed: jitted functions take only
    their tensors)."""

    def f(x: Any, y: Any) -> Any:
        v = write_through(VIEWS[view](x), w, [x, y])
        if use in ("view", "scaled"):
            return v if use == "view" else v * 3.0
        return (v, x) if use == "view_and_base" else back_to_square(x, v)

    return f


def test_each_write_through_each_view_of_a_donated_argument() -> None:
    """Every write of `view_write_step` through every view in `VIEWS` of a
    donated `x` (alone or with `y`), the written view then returned alone,
    times 3, with `x`, or read with `x` (`back_to_square`): each call gives
    eager's outputs, except that reading `x` after the write is refused
    (eagerly it shows the write). All cases run; the failures are listed
    together."""
    failures = []
    cases = 0
    for view in VIEWS:
        for w in view_writes(view):
            for use in ("view", "scaled", "view_and_base", "square"):
                f = write_and_use(view, w, use)
                for donated in ((0,), (0, 1)):
                    cases += 1
                    try:
                        if use in ("view", "scaled") or not reads_after_write(f):
                            eager_and_jit(f, [X44, Y44], donated)
                        else:
                            refused_by_jit(f, [X44, Y44], donated)
                    except Exception as e:
                        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                        failures.append(f"x.{view} {w} -> {use}, donate_argnums={donated}: {first}")
    assert not failures, f"{len(failures)} of {cases} cases:\n" + "\n".join(failures[:30])


# ------------------------------------------ constants made while tracing ---
#
# A concrete tensor used by a traced function becomes a constant of the
# program with the value it has when it is used. Tensors made in a loop
# (often at the address of the previous one, freed) are distinct
# constants; a tensor updated in place between two uses is two.

SMALL_SHAPES = [(3,), (4,), (2, 3), (3, 3), (8,), (2, 2, 3), (4, 4), (16,)]
MAKERS: dict[str, Callable[[tuple[int, ...], int], Any]] = {
    "full": lambda shape, i: donate.full(shape, float(i + 1)),
    "ones_scaled": lambda shape, i: donate.ones(shape) * float(i + 1),
    "ones_plus": lambda shape, i: float(i) + donate.ones(shape),
    "asarray": lambda shape, i: donate.asarray(np.full(shape, i + 1, np.float32)),
    "tensor_arange": lambda shape, i: donate.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - i),
    "two_temporaries": lambda shape, i: donate.full(shape, float(i)) + donate.ones(shape),
}
COMBINE: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda y, c: y + c,
    "mul": lambda y, c: y * c,
    "rsub": lambda y, c: c - y,
    "maximum": lambda y, c: donate.maximum(y, c),
}


def loop_of_constants(
    shape: tuple[int, ...], k: int, maker: str, combine: str, keep: str, row_on_odd: bool
) -> Callable[[Any], Any]:
    """`for i in range(k): y = combine(y, MAKER(shape, i))`, the constant
    deleted (`del`), rebound by the next iteration, or kept in a list; on
    odd iterations with `row_on_odd`, of the broadcast shape `shape[-1:]`."""

    def fn(x: Any) -> Any:
        y = x
        kept = []
        for i in range(k):
            c = MAKERS[maker](shape[-1:] if row_on_odd and i % 2 else shape, i)
            y = COMBINE[combine](y, c)
            if keep == "del":
                del c
            elif keep == "list":
                kept.append(c)
        return y

    return fn


@settings(max_examples=120)
@given(
    st.sampled_from(SMALL_SHAPES),
    st.integers(1, 6),
    st.sampled_from(sorted(MAKERS)),
    st.sampled_from(sorted(COMBINE)),
    st.sampled_from(["del", "rebind", "list"]),
    st.booleans(),
)
def test_constants_made_in_a_loop_are_each_their_own_constant(
    shape: tuple[int, ...], k: int, maker: str, combine: str, keep: str, row_on_odd: bool
) -> None:
    """A loop that makes a new concrete tensor each iteration (full, ones,
    asarray, tensor; often freed and remade at the same address) and
    combines it with the traced value: jit equals eager on two inputs
    (traced, then from the cache)."""
    fn = loop_of_constants(shape, k, maker, combine, keep, row_on_odd)
    f = donate.jit(fn)
    rng = np.random.default_rng(k)
    for _ in range(2):
        x = rng.standard_normal(shape).astype(np.float32)
        want = fn(donate.tensor(x)).numpy()
        same(f(donate.tensor(x)), want)
    assert f.trace_count == 1


CONCRETE_UPDATES: list[tuple[Any, ...]] = [
    ("add_", 1.0),
    ("mul_", -2.0),
    ("set", 0, 100.0),
    ("set", -1, -0.0),
    ("set", Ellipsis, 3.0),
    ("set", slice(None, None, 2), 7.0),
    ("relu_",),
    ("neg_",),
    ("iadd_made", 0.5),
]


def update_concretely(t: Any, u: tuple[Any, ...]) -> None:
    """Update the concrete tensor `t` in place with a concrete value."""
    kind = u[0]
    if kind == "add_":
        t.add_(u[1])
    elif kind == "mul_":
        t.mul_(u[1])
    elif kind == "set":
        t[u[1]] = u[2]
    elif kind == "relu_":
        t.relu_()
    elif kind == "neg_":
        t.neg_()
    elif kind == "iadd_made":
        t.add_(donate.full(tuple(t.shape), u[1]))
    else:  # pragma: no cover
        raise AssertionError(kind)


@settings(max_examples=80)
@given(
    st.sampled_from([(4,), (2, 3), (3, 3)]),
    st.lists(st.sampled_from(CONCRETE_UPDATES), min_size=1, max_size=4),
    st.booleans(),
)
def test_a_concrete_tensor_updated_in_place_between_uses(
    shape: tuple[int, ...], updates: list[tuple[Any, ...]], traced_write: bool
) -> None:
    """A concrete tensor made inside the traced function is used, updated
    in place with concrete values, and used again: every use sees the
    value it has at that point, as eagerly. It may end with a traced write
    (it becomes a tracer from its current value). jit equals eager, traced
    and from the cache."""
    init = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 2

    def fn(x: Any) -> tuple[Any, ...]:
        t = donate.tensor(init)
        outs = [x + t]
        for n, u in enumerate(updates):
            update_concretely(t, u)
            outs.append(x * t if n % 2 else x - t)
        if traced_write:
            t[0] = x[0]
            outs.append(x + t)
        return tuple(outs)

    f = donate.jit(fn)
    for x in (np.linspace(-1, 2, int(np.prod(shape)), dtype=np.float32).reshape(shape), init * 3):
        want = [o.numpy().copy() for o in fn(donate.tensor(x))]
        got = f(donate.tensor(x))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    assert f.trace_count == 1


WRITES_OUTSIDE: dict[str, Callable[[Any, Any], None]] = {
    "update": lambda t, x: update_concretely(t, ("add_", 1.0)),
    "through a view": lambda t, x: update_concretely(t[..., :1], ("set", Ellipsis, 3.0)),
    "traced": lambda t, x: t.__setitem__(0, x[0]),
    "traced through a view": lambda t, x: t.T.__iadd__(x.T),
}


@pytest.mark.parametrize("read_first", [False, True])
@pytest.mark.parametrize("write", WRITES_OUTSIDE.values(), ids=WRITES_OUTSIDE.keys())
def test_a_write_into_a_tensor_from_outside_is_refused(write: Callable[[Any, Any], None], read_first: bool) -> None:
    """A traced function runs once, when traced: a write into a tensor made
    before the trace began (read by the program first or not, with a
    concrete or a traced value, through a view or not) would happen then,
    never at a call. jit refuses it, naming the op, and the tensor keeps
    its value."""
    init = np.arange(6, dtype=np.float32).reshape(2, 3)
    outside = donate.tensor(init)

    def fn(x: Any) -> Any:
        y = x + outside if read_first else x
        write(outside, x)
        return y * 2

    with pytest.raises(donate.TracerError, match="made before the trace began"):
        donate.jit(fn)(donate.tensor(init + 1))
    same(outside, init)


@pytest.mark.parametrize(
    "view",
    [lambda w: w, lambda w: w.T, lambda w: w[:, ::2], lambda w: w[1:]],
    ids=["whole", "transposed", "stepped", "rows"],
)
def test_a_captured_tensor_is_read_as_it_is_at_each_call(view: Callable[[Any], Any]) -> None:
    """A tensor captured from outside (whole, or any view of it) is read as
    it is at each call: an eager write into it between calls (a training
    step updating a weight) shows in the next call's result, as eagerly."""
    w = donate.tensor(np.arange(16, dtype=np.float32).reshape(4, 4))
    f = donate.jit(lambda x: x * view(w))
    x = np.full(view(w).shape, 2.0, np.float32)
    for step in range(3):
        same(f(donate.tensor(x)), x * view(w).numpy())
        w -= 0.5  # through its buffer: every view sees it
        w[0] = float(step)
    assert f.trace_count == 1


@pytest.mark.parametrize(
    "derived",
    [lambda w: w.sum(), lambda w: w * 0.5, lambda w: donate.exp(w), lambda w: w.astype(donate.float64),
     lambda w: w.copy(), lambda w: donate.linalg.inv(w + 4 * donate.eye(4)), lambda w: w[::2] + 1,
     lambda w: donate.asarray(np.asarray(w)), lambda w: donate.tensor(w.tolist())],
    ids=["sum", "scaled", "exp", "astype", "copy", "inv", "view-then-add", "numpy", "tolist"],
)
def test_a_value_computed_from_a_captured_tensor_follows_its_writes(
        derived: Callable[[Any], Any]) -> None:
    """A value the function computes from a captured tensor alone (eagerly
    while tracing: `w.sum()`, `exp(w)`, `inv(w)`, `np.asarray(w)`) is the
    one of `w` as it is at each call, as eagerly: the program of a trace
    that read `w` is traced again once `w` has been written (it was frozen
    at the first trace: `x * w.sum()` kept the old sum)."""
    w = donate.tensor(np.arange(16, dtype=np.float32).reshape(4, 4) / 16)

    def fn(x: Any) -> Any:
        return x + donate.sum(derived(w))

    f = donate.jit(fn)
    x = donate.tensor(np.ones(3, np.float32))
    for step in range(3):
        same(f(x), fn(x))
        w += 1.0
    assert f.trace_count == 3
    same(f(x), fn(x))
    same(f(x), fn(x))
    assert f.trace_count == 4  # (not written since: the program is kept)


def test_a_captured_tensor_read_by_the_program_only_is_not_traced_again() -> None:
    """`x * w` reads `w` when the program runs: writes into `w` need no new
    trace (a weight updated each training step)."""
    w = donate.tensor(np.arange(4, dtype=np.float32))
    f = donate.jit(lambda x: x * w + w[::2].sum() * 0)
    g = donate.jit(lambda x: x * w)
    x = donate.tensor(np.ones(4, np.float32))
    for _ in range(3):
        same(g(x), np.asarray(w) * 1)
        w += 1.0
    assert g.trace_count == 1
    f(x)
    w += 1.0
    f(x)
    assert f.trace_count == 2  # `w[::2].sum()` was computed while tracing


def test_full_constants_in_a_loop() -> None:
    """`for i in range(4): y = y + donate.full((4,), float(i + 1))`."""

    def f(x: Any) -> Any:
        y = x
        for i in range(4):
            y = y + donate.full((4,), float(i + 1))
        return y

    x = np.arange(4, dtype=np.float32)
    same(donate.jit(f)(donate.tensor(x)), x + 10)


def test_asarray_constants_made_and_deleted_in_a_loop() -> None:
    """`c = donate.asarray(np.full(...)); y = y * c; del c` per iteration."""

    def f(x: Any) -> Any:
        y = x
        for i in range(4):
            c = donate.asarray(np.full((3,), i + 1, np.float32))
            y = y * c
            del c
        return y

    x = np.array([1, -2, 0.5], np.float32)
    same(donate.jit(f)(donate.tensor(x)), x * 24)


def test_a_captured_tensor_updated_in_place_between_two_uses() -> None:
    """`a = x + t; t[0] = 100.0; b = x + t` with `t` from outside: the write
    would happen once, when traced, so jit refuses it and `t` is unchanged
    (eagerly, each call writes it)."""
    t = donate.tensor(np.arange(4, dtype=np.float32))

    def f(x: Any) -> tuple[Any, Any]:
        a = x + t
        t[0] = 100.0
        b = x + t
        return a, b

    x = np.ones(4, np.float32)
    with pytest.raises(donate.TracerError, match="__setitem__: writes in place into a tensor made before the trace began"):
        donate.jit(f)(donate.tensor(x))
    same(t, np.arange(4, dtype=np.float32))
    a, b = f(donate.tensor(x))
    same(a, np.array([1, 2, 3, 4], np.float32))
    same(b, np.array([101, 2, 3, 4], np.float32))


def test_a_tensor_made_inside_updated_in_place_between_two_uses() -> None:
    """`c = ones; a = x + c; c[1] = 5.0; c *= 2.0; b = x * c`."""

    def f(x: Any) -> tuple[Any, Any]:
        c = donate.ones((4,))
        a = x + c
        c[1] = 5.0
        c *= 2.0
        b = x * c
        return a, b

    x = np.arange(4, dtype=np.float32) + 1
    a, b = donate.jit(f)(donate.tensor(x))
    same(a, x + 1)
    same(b, x * np.array([2, 10, 2, 2], np.float32))


# ------------------------------------------- Python numbers as arguments ---
#
# A Python number argument is baked into the program as a literal and is
# part of the cache key. The key must tell apart what eager code tells
# apart: the type (True, 1 and 1.0 give different dtypes) and every bit of
# a float (-0.0 is not 0.0: `x / s` gives -inf), while a NaN made afresh
# on every call is still the same key (no trace per call).

NUMBERS: list[bool | int | float] = [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, 2.5, True, False, 1, 0, -1]
NUMBER_TEMPLATES: dict[str, Callable[[Any, Any], Any]] = {
    "div": lambda x, s: x / s,
    "mul": lambda x, s: x * s,
    "rsub": lambda x, s: s - x,
    "add": lambda x, s: x + s,
    "full": lambda x, s: donate.full((3,), s),
    "full_plus_x": lambda x, s: donate.full((3,), s) + x,
    "maximum": lambda x, s: donate.maximum(x, s),
}
X_VALUES: dict[str, np.ndarray] = {
    "float32": np.array([1.0, -2.0, 0.0], np.float32),
    "float64": np.array([-0.0, 3.0, -1.5], np.float64),
    "int8": np.array([1, -2, 0], np.int8),
}


def fresh(v: bool | int | float) -> bool | int | float:
    """The same number as a new object (a float with the same bits)."""
    if isinstance(v, float):
        return float(struct.unpack("<d", struct.pack("<d", v))[0])
    return v


def number_key(v: bool | int | float) -> tuple[str, Any]:
    """What eager code can tell apart: the type and, for a float, its bits."""
    return type(v).__name__, struct.pack("<d", v) if isinstance(v, float) else v


def passed(mode: str, f: Callable[..., Any], x: Any, s: Any) -> Any:
    """`f` called with the number `s` passed as `mode` says."""
    if mode == "positional":
        return f(x, s)
    if mode == "keyword":
        return f(x, s=s)
    if mode == "tuple":
        return f(x, (s,))
    return f(x, {"s": s})


def unwrap(mode: str, s: Any) -> Any:
    return s[0] if mode == "tuple" else s["s"] if mode == "dict" else s


def expect_same_outcome(run_eager: Callable[[], Any], run_jit: Callable[[], Any]) -> None:
    """Both return the same tensor (dtype, shape, values, signs of zeros
    and NaNs), or both raise the same exception type."""
    try:
        want = run_eager().numpy().copy()
    except Exception as e:
        with pytest.raises(type(e)):
            run_jit()
        return
    same(run_jit(), want)


@settings(max_examples=150)
@given(
    st.sampled_from(sorted(NUMBER_TEMPLATES)),
    st.sampled_from(sorted(X_VALUES)),
    st.sampled_from(["positional", "keyword", "tuple", "dict"]),
    st.lists(st.sampled_from(NUMBERS), min_size=2, max_size=10),
)
def test_python_number_arguments_are_keyed_by_type_and_bits(
    template: str, xdtype: str, mode: str, numbers: list[bool | int | float]
) -> None:
    """A sequence of calls with Python numbers (each a fresh object: 0.0
    and -0.0, NaN, infinities, True, 1 and 1.0, ...) passed
    positionally, by keyword, or inside a tuple or dict, used as a scalar
    or to make a tensor: every call equals eager (dtype, values, signed
    zeros), and the function is traced at most once per distinct (type,
    bits) value."""
    body = NUMBER_TEMPLATES[template]
    xs = X_VALUES[xdtype]

    def fn(x: Any, s: Any) -> Any:
        return body(x, unwrap(mode, s))

    f = donate.jit(fn)
    for v in numbers:
        expect_same_outcome(
            lambda: passed(mode, fn, donate.tensor(xs), fresh(v)),
            lambda: passed(mode, f, donate.tensor(xs), fresh(v)),
        )
    assert f.trace_count <= len({number_key(v) for v in numbers}), (f.trace_count, numbers)


@pytest.mark.parametrize("order", [(0.0, -0.0, 0.0, -0.0), (-0.0, 0.0, -0.0, 0.0)])
def test_signed_zero_arguments_divide_to_signed_infinities(order: tuple[float, ...]) -> None:
    """`x / s` with s = 0.0 gives +inf and with s = -0.0 gives -inf, in
    either order (a cache entry for one is never used for the other)."""
    f = donate.jit(lambda x, s: x / s)
    x = np.ones(3, np.float32)
    for s in order:
        same(f(donate.tensor(x), fresh(s)), np.full(3, math.copysign(math.inf, s), np.float32))
    assert f.trace_count == 2


def test_nan_arguments_do_not_retrace() -> None:
    """50 calls, each with a new NaN object, trace once and give NaN."""
    f = donate.jit(lambda x, s: x + s)
    x = np.ones(3, np.float32)
    for _ in range(50):
        same(f(donate.tensor(x), float("nan")), np.full(3, np.nan, np.float32))
    assert f.trace_count == 1


@pytest.mark.parametrize("template", ["full", "add", "mul"])
def test_nan_of_either_sign_gives_eagers_sign(template: str) -> None:
    """NaN and -NaN (eager `donate.full((3,), -nan)` and `x + -nan` keep
    the sign bit) alternating, each a fresh object: each call has eager's
    sign bit, with at most one trace per sign."""
    body = NUMBER_TEMPLATES[template]
    f = donate.jit(body)
    x = np.array([1.0, -2.0, 0.0], np.float32)
    for s in [math.nan, -math.nan] * 3:
        same(f(donate.tensor(x), fresh(s)), body(donate.tensor(x), fresh(s)).numpy())
    assert f.trace_count <= 2


def test_true_one_and_one_point_zero_keep_their_dtypes() -> None:
    """`donate.full((3,), s)` and `x + s` (x int8) for True, 1 and 1.0 in a
    mixed order: each has eager's dtype and values."""
    full = donate.jit(lambda s: donate.full((3,), s))
    add = donate.jit(lambda x, s: x + s)
    x = np.array([1, -2, 0], np.int8)
    for s in (True, 1, 1.0, True, 1.0, 1, True):
        same(full(s), donate.full((3,), s).numpy())
        same(add(donate.tensor(x), s), (donate.tensor(x) + s).numpy())
    assert full.trace_count == 3 and add.trace_count == 3


def test_static_number_arguments_are_keyed_by_type_and_bits() -> None:
    """A number passed as a static argument: 0.0 and -0.0 are two keys, and
    fresh NaNs are one."""
    f = donate.jit(lambda x, s: x / s, static_argnums=1)
    x = np.ones(3, np.float32)
    for s in (0.0, -0.0, 0.0):
        same(f(donate.tensor(x), fresh(s)), np.full(3, math.copysign(math.inf, s), np.float32))
    for _ in range(10):
        same(f(donate.tensor(x), float("nan")), np.full(3, np.nan, np.float32))
    assert f.trace_count == 3

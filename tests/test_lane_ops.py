"""`sort`, `cumulative_sum`, `cumulative_prod`, `roll`, `tril`, `triu` and
the `*_like` functions: planned operations whose result has their input's
shape, so it may be written over the input.

The ownership rules, each checked by pointer identity and allocation
counts:

- a named input is only read: the result is one new buffer;
- a temporary input of the result's dtype receives the result (no
  allocation at all);
- an explicitly donated input receives it too, and is moved-from;
- a donation that cannot be honoured (another dtype, another shape,
  another holder) warns with the reason, copies, and leaves the input
  intact;
- an error leaves a donated input as it was;
- `donate.jit` records them, and its plan writes over a dead
  intermediate.

The values come from one kernel on both paths (over the claimed buffer or
over a copy); both are compared against NumPy for every dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate
from helpers import same, strict, unchanged

NAMES = "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64".split()

RNG = np.random.default_rng(7)
X = RNG.permutation(24).astype(np.float32).reshape(4, 6) - 11.5

Maker = Callable[[], donate.Tensor]

# name -> (the call over a tensor `make()` gives, NumPy's result over `a`).
# Each call passes `make()` straight to the function, so when `make`
# returns a new tensor the function sees a temporary.
CASES: dict[str, tuple[Callable[[Maker], Any], Callable[[np.ndarray], np.ndarray]]] = {
    "sort": (lambda make: donate.sort(make(), axis=0), lambda a: np.sort(a, axis=0, kind="stable")),
    "sort descending": (
        lambda make: donate.sort(make(), descending=True),
        lambda a: np.sort(a, axis=-1, kind="stable")[:, ::-1],
    ),
    "cumulative_sum": (lambda make: donate.cumulative_sum(make(), axis=1), lambda a: np.cumsum(a, axis=1)),
    "cumulative_prod": (
        lambda make: donate.cumulative_prod(make(), axis=0),
        lambda a: np.cumprod(a, axis=0, dtype=a.dtype),
    ),
    "roll": (lambda make: donate.roll(make(), (1, -2), axis=(0, 1)), lambda a: np.roll(a, (1, -2), axis=(0, 1))),
    "roll flattened": (lambda make: donate.roll(make(), 5), lambda a: np.roll(a, 5)),
    "tril": (lambda make: donate.tril(make(), k=-1), lambda a: np.tril(a, -1)),
    "triu": (lambda make: donate.triu(make(), k=2), lambda a: np.triu(a, 2)),
    "zeros_like": (lambda make: donate.zeros_like(make()), np.zeros_like),
    "ones_like": (lambda make: donate.ones_like(make()), np.ones_like),
    "empty_like": (lambda make: donate.empty_like(make()), np.zeros_like),  # zero-filled
    "full_like": (lambda make: donate.full_like(make(), -2.5), lambda a: np.full_like(a, -2.5)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_named_input_is_only_read(name: str, stats) -> None:
    call, want = CASES[name]
    t = donate.asarray(X)
    p = t.data_ptr()
    s = stats()
    with strict():
        r = call(lambda: t)
    assert s["allocations"] == 1 and s["implicit_donations"] == 0
    assert r.data_ptr() != p and t.ownership["handles"] == 1
    same(r, want(X))
    unchanged(t, X)


@pytest.mark.parametrize("name", list(CASES))
def test_a_temporary_input_receives_the_result(name: str, stats) -> None:
    call, want = CASES[name]
    ptrs: list[int] = []

    def make() -> donate.Tensor:
        t = donate.asarray(X)
        ptrs.append(t.data_ptr())
        return t

    for _ in range(20):  # past the interpreter's specialisation of the call site
        s = stats()
        with strict():
            r = call(make)
        assert r.data_ptr() == ptrs[-1]
        # The tensor `make` built is the only allocation.
        assert s["allocations"] == 1 and s["implicit_donations"] == 1, (s["allocations"], s["implicit_donations"])
        same(r, want(X))


@pytest.mark.parametrize("name", list(CASES))
def test_a_donated_input_receives_the_result(name: str, stats) -> None:
    call, want = CASES[name]
    t = donate.asarray(X)
    p = t.data_ptr()
    s = stats()
    with strict():
        r = call(t.donate)
    assert r.data_ptr() == p and t.is_donated
    assert s["allocations"] == 0 and s["explicit_donations"] == 1
    same(r, want(X))
    with pytest.raises(donate.DonatedError):
        t.tolist()


def test_an_arithmetic_temporary_receives_the_sort(stats) -> None:
    x = donate.asarray(X)
    for _ in range(20):
        s = stats()
        r = donate.sort(donate.cumulative_sum(x + 1.0, axis=1), axis=0)
        assert s["allocations"] == 1 and s["implicit_donations"] == 2
        same(r, np.sort(np.cumsum(X + 1, axis=1), axis=0, kind="stable"))
    unchanged(x, X)


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("dtype", "dtype int8 differs from the result's dtype int64"),
        ("include_initial", r"shape \[4, 6\] differs from the result's shape \[4, 7\]"),
        ("shared", "shared with 1 other tensor"),
        ("view", "it is a strided view"),
    ],
)
def test_a_donation_that_cannot_be_honoured_warns_and_copies(case: str, reason: str) -> None:
    a = X.astype(np.int8) if case == "dtype" else X
    base = donate.asarray(a)
    keep = base.reshape(-1) if case == "shared" else None
    t = base[:, ::2] if case == "view" else base
    view_np = a[:, ::2] if case == "view" else a
    with pytest.warns(donate.DonationWarning, match=reason):
        if case == "dtype":
            r = donate.cumulative_sum(t.donate(), axis=1)
            want = np.cumsum(a, axis=1, dtype=np.int64)
        elif case == "include_initial":
            r = donate.cumulative_sum(t.donate(), axis=1, include_initial=True)
            want = np.concatenate([np.zeros((4, 1), np.float32), np.cumsum(a, axis=1)], axis=1)
        else:
            r = donate.sort(t.donate(), axis=0)
            want = np.sort(view_np, axis=0, kind="stable")
    same(r, want)
    unchanged(t, view_np)
    unchanged(base, a)
    if keep is not None:
        same(keep, a.reshape(-1))


def test_a_fill_never_reads_or_casts_its_input(stats) -> None:
    # Another dtype: the donation is refused, and the input is not cast
    # (the result buffer is the only allocation).
    t = donate.asarray(X)
    s = stats()
    with pytest.warns(donate.DonationWarning, match="dtype float32 differs from the result's dtype int8"):
        r = donate.full_like(t.donate(), 7, dtype=donate.int8)
    assert s["allocations"] == 1
    same(r, np.full(X.shape, 7, np.int8))
    unchanged(t, X)
    # A strided view is not gathered either.
    v = t[:, ::2]
    s = stats()
    with strict():
        r = donate.ones_like(v, dtype="bool")
    assert s["allocations"] == 1
    same(r, np.ones((4, 3), bool))
    unchanged(t, X)
    with pytest.raises(OverflowError):
        donate.full_like(donate.asarray(X.astype(np.uint8)), 300)


@pytest.mark.parametrize(
    ("a", "call"),
    [
        (X, lambda t: donate.sort(t, axis=2)),
        (X, lambda t: donate.cumulative_sum(t)),  # a 2-d input needs an axis
        (X, lambda t: donate.roll(t, (1, 2, 3), axis=(0, 1))),
        (X[0], lambda t: donate.tril(t)),  # a triangle needs 2 axes
        (X, lambda t: donate.full_like(t, float("nan"), dtype="int32")),  # an int cannot hold NaN
    ],
)
def test_errors_leave_a_donated_input_as_it_was(a: np.ndarray, call: Callable[[Any], Any]) -> None:
    t = donate.asarray(a)
    with pytest.raises((ValueError, IndexError, OverflowError)):
        call(t.donate())
    unchanged(t, a)


@pytest.mark.parametrize("dtype", NAMES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_both_paths_match_numpy_for_every_dtype(dtype: str, axis: int) -> None:
    rng = np.random.default_rng(abs(axis) + len(dtype))
    a = rng.integers(-40, 40, size=(3, 4, 5)).astype(dtype)
    if dtype.startswith("float"):
        a[0, 1, ::2] = np.nan
        a[1, 0, 1] = -0.0
    t = donate.asarray(a)
    acc = np.dtype(donate.cumulative_sum(t, axis=axis).dtype.name)
    checks: list[tuple[Callable[[Maker], Any], np.ndarray]] = [
        (lambda m: donate.sort(m(), axis=axis), np.sort(a, axis=axis, kind="stable")),
        (lambda m: donate.cumulative_sum(m(), axis=axis), np.cumsum(a, axis=axis, dtype=acc)),
        (lambda m: donate.cumulative_prod(m(), axis=axis), np.cumprod(a, axis=axis, dtype=acc)),
        (lambda m: donate.roll(m(), 3, axis=axis), np.roll(a, 3, axis=axis)),
        (lambda m: donate.tril(m(), k=axis), np.tril(a, axis)),
        (lambda m: donate.triu(m(), k=axis), np.triu(a, axis)),
    ]
    with np.errstate(all="ignore"):
        for call, want in checks:
            same(call(lambda: t), want)  # a named input: over a copy
            same(call(lambda: donate.asarray(a)), want)  # a temporary: over its own buffer
            same(call(lambda: t[:, ::-1].T), _strided(call, a))  # a strided view: over its C-order copy
    unchanged(t, a)


def _strided(call: Callable[[Maker], Any], a: np.ndarray) -> np.ndarray:
    """The result over `a[:, ::-1].T` computed over a whole copy of it."""
    return np.asarray(call(lambda: donate.asarray(np.ascontiguousarray(a[:, ::-1].T))))


def test_jit_records_them_and_writes_over_a_dead_intermediate() -> None:
    def f(x):
        y = donate.sort(x * 2.0, axis=0)
        return donate.tril(donate.cumulative_sum(y, axis=1))

    want = np.tril(np.cumsum(np.sort(X * 2, axis=0, kind="stable"), axis=1))
    x = donate.asarray(X)
    low = donate.jit(f).lower(x)
    text = str(low.jaxpr)
    for prim in ("sort[axis=0 descending=False]", "cumulative_sum[axis=1 dtype=None include_initial=False]", "tril[k=0]"):
        assert prim in text, text
    # The argument and one buffer for the whole chain (the product's,
    # written over by each op).
    assert low.memory_analysis().peak_memory_in_bytes == 2 * X.nbytes
    with strict():
        r = donate.jit(f)(x)
    same(r, want)
    unchanged(x, X)
    # Donated, the argument's buffer holds the whole chain.
    jd = donate.jit(f, donate_argnums=0)
    low = jd.lower(x)
    assert list(map(tuple, low.aliases)) == [(0, 0)]
    assert low.memory_analysis().peak_memory_in_bytes == X.nbytes
    p = x.data_ptr()
    with strict():
        r = jd(x)
    assert r.data_ptr() == p and x.is_donated
    same(r, want)


def test_the_memory_timeline_names_what_each_op_did() -> None:
    x = donate.asarray(X)
    for _ in range(20):  # the last pass, past the interpreter's specialisation, is checked
        with donate.memory_timeline() as tl:
            y = donate.sort(x * 2.0, axis=0)
            z = donate.roll(y.donate(), 1)
            w = donate.zeros_like(x)
    got = [(r["op"], r["result"]) for r in tl.records]
    assert got == [("mul", "fresh"), ("sort", "reused"), ("roll", "donated"), ("zeros_like", "fresh")], got
    same(z, np.roll(np.sort(X * 2, axis=0, kind="stable"), 1))
    same(w, np.zeros_like(X))
    unchanged(x, X)

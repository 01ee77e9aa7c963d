"""Hostile input, one table: every case either raises a clear Python
exception or (where the input is valid after all) gives a correct result,
the process survives, and every input stays valid and unchanged.

Each case gets a fresh `Env`; after the case, every tensor and NumPy array
in it is compared with a snapshot taken before (values, and for tensors
that they are not donated). Cases that donate build their own tensors."""

from __future__ import annotations

import pickle
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import donate


@dataclass
class Env:
    a: donate.Tensor = field(
        default_factory=lambda: donate.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    )
    i: donate.Tensor = field(default_factory=lambda: donate.tensor(np.arange(3)))
    v: donate.Tensor = field(default_factory=lambda: donate.ones((5,)))
    be: np.ndarray = field(default_factory=lambda: np.arange(6, dtype=">f4").reshape(2, 3))
    nc: np.ndarray = field(default_factory=lambda: np.arange(12, dtype=np.float32)[::2].reshape(2, 3))
    ro: np.ndarray = field(default_factory=lambda: np.arange(6, dtype=np.float32).reshape(2, 3))
    obj: np.ndarray = field(default_factory=lambda: np.array([1, None], dtype=object))
    gone: donate.Tensor = field(default_factory=lambda: donate.ones((3,)))

    def __post_init__(self) -> None:
        self.ro.flags.writeable = False
        self.gone.relu_donate()  # donated before the case runs

    def tensors(self) -> dict[str, donate.Tensor]:
        return {"a": self.a, "i": self.i, "v": self.v}

    def arrays(self) -> dict[str, np.ndarray]:
        return {"be": self.be, "nc": self.nc, "ro": self.ro}

    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = {k: t.numpy().copy() for k, t in self.tensors().items()}
        snap.update({k: a.copy() for k, a in self.arrays().items()})
        return snap


class Ok:
    """The call succeeds; `check(result, env)` verifies the result."""

    def __init__(self, check: Callable[[Any, Env], None], warns: bool = False) -> None:
        self.check = check
        self.warns = warns


def eq(want: Callable[[Env], Any]) -> Ok:
    def check(r: Any, e: Env) -> None:
        np.testing.assert_array_equal(np.asarray(r), want(e))

    return Ok(check)


def copy_warned(want: Callable[[Env], Any]) -> Ok:
    ok = eq(want)
    ok.warns = True
    return ok


def setitem(e: Env) -> None:
    e.a[0] = "x"


def twice(e: Env) -> Any:
    t = donate.ones((3,))
    d = t.donate()
    _ = d + 1
    return d * 2


def same_twice(e: Env) -> Any:
    t = donate.ones((3,))
    r = t.donate() + t.donate()
    assert not t.is_donated and t.tolist() == [1.0, 1.0, 1.0]
    return r


def donated_and_named(e: Env) -> Any:
    t = donate.ones((3,))
    r = t.donate() + t
    assert not t.is_donated and t.tolist() == [1.0, 1.0, 1.0]
    return r


def donated_matmul_itself(e: Env) -> Any:
    t = donate.tensor(np.eye(3, dtype=np.float32))
    r = t.donate() @ t
    assert not t.is_donated
    return r


def bad_donation_keeps_input(e: Env) -> Any:
    t = donate.ones((2, 3))
    try:
        t.donate() + e.v
    finally:
        assert not t.is_donated and t.tolist() == [[1.0] * 3] * 2


def arena_too_small(e: Env) -> Any:
    ar = donate.arena(max_bytes=64)
    try:
        with ar:
            donate.zeros((1000,))
    finally:
        assert ar.stats()["live_bytes"] == 0


def copy_of_refused_donation_in_a_full_arena(e: Env) -> Any:
    # The view forces a copy, and the copy does not fit.
    t = donate.ones((1000,))
    view = t.numpy()
    try:
        with donate.arena(max_bytes=64):
            t.relu_donate()
    finally:
        assert not t.is_donated and t.sum().item() == 1000.0 and view.sum() == 1000.0


# (id, call, expected): an exception class, or Ok(...).
CASES: list[tuple[str, Callable[[Env], Any], Any]] = [
    # Shapes and sizes
    ("negative shape", lambda e: donate.zeros((-1, 2)), ValueError),
    ("float shape", lambda e: donate.zeros((2.5,)), TypeError),
    ("string shape", lambda e: donate.zeros("abc"), TypeError),
    ("None shape", lambda e: donate.zeros(None), TypeError),
    ("petabyte zeros", lambda e: donate.zeros((1 << 48,)), MemoryError),
    ("petabyte ones", lambda e: donate.ones((1 << 20, 1 << 28)), MemoryError),
    ("petabyte full", lambda e: donate.full((1 << 48,), 1.0), MemoryError),
    ("shape product overflows", lambda e: donate.zeros((1 << 62, 1 << 3)), OverflowError),
    ("dimension beyond 64 bits", lambda e: donate.zeros((1 << 64,)), OverflowError),
    ("reshape to the wrong size", lambda e: e.a.reshape(4, 2), ValueError),
    ("reshape with two -1", lambda e: e.a.reshape(-1, -1), ValueError),
    ("reshape with -2", lambda e: e.a.reshape(-2, 3), ValueError),
    ("reshape overflowing", lambda e: e.a.reshape(1 << 62, 1 << 3), OverflowError),
    ("reshape with a float", lambda e: e.a.reshape(2.0, 3), TypeError),
    ("arange with zero step", lambda e: donate.arange(0, 10, 0), ValueError),
    ("arange to nan", lambda e: donate.arange(float("nan")), ValueError),
    ("arange to inf", lambda e: donate.arange(float("inf")), ValueError),
    # Dtypes
    ("complex dtype", lambda e: donate.zeros(3, dtype="complex64"), eq(lambda e: np.zeros(3, np.complex64))),
    ("timedelta dtype", lambda e: donate.zeros(3, dtype="m8"), TypeError),
    ("big-endian dtype", lambda e: donate.zeros(3, dtype=">f4"), TypeError),
    ("unknown dtype name", lambda e: donate.zeros(3, dtype="nope"), TypeError),
    ("object dtype", lambda e: donate.zeros(3, dtype=object), TypeError),
    ("float8 dtype", lambda e: donate.tensor([1], dtype="float8"), TypeError),
    ("astype complex", lambda e: e.a.astype("complex64"), eq(lambda e: np.arange(6, dtype=np.complex64).reshape(2, 3))),
    ("astype complex to real", lambda e: donate.zeros(3, dtype="complex64").astype("float32"), TypeError),
    ("tanh of complex", lambda e: donate.tanh(donate.zeros(3, dtype="complex64")), eq(lambda e: np.zeros(3, np.complex64))),
    ("floor of complex", lambda e: donate.floor(donate.zeros(3, dtype="complex64")), TypeError),
    ("in-place op that would change dtype", lambda e: e.i.__iadd__(0.5), TypeError),
    ("in-place exp of ints", lambda e: e.i.exp_(), TypeError),
    ("softmax of ints", lambda e: donate.softmax(e.i), TypeError),
    ("layer_norm of ints", lambda e: donate.layer_norm(e.i), TypeError),
    # Foreign data
    ("object array", lambda e: donate.tensor(e.obj), TypeError),
    ("object array operand", lambda e: e.a + e.obj, TypeError),
    ("complex array", lambda e: donate.tensor(np.zeros(3, complex)), eq(lambda e: np.zeros(3, complex))),
    ("complex array operand", lambda e: e.a + np.ones(3, complex), eq(lambda e: e.a.numpy() + np.ones(3, complex))),
    ("string array", lambda e: donate.tensor(np.array(["a"])), TypeError),
    ("list of strings", lambda e: donate.tensor(["a", "b"]), TypeError),
    ("ragged list", lambda e: donate.tensor([[1, 2], [3]]), ValueError),
    ("arbitrary object", lambda e: donate.tensor(object()), TypeError),
    ("dict", lambda e: donate.tensor({1: 2}), TypeError),
    ("int beyond int64 in a list", lambda e: donate.tensor([1 << 70]), TypeError),
    ("big-endian array", lambda e: donate.tensor(e.be), eq(lambda e: e.be)),
    ("non-contiguous array", lambda e: donate.tensor(e.nc), eq(lambda e: e.nc)),
    ("read-only array", lambda e: donate.tensor(e.ro), eq(lambda e: e.ro)),
    ("big-endian operand", lambda e: e.a + e.be, eq(lambda e: e.a.numpy() + e.be)),
    ("non-contiguous operand", lambda e: e.a * e.nc, eq(lambda e: e.a.numpy() * e.nc)),
    ("read-only operand", lambda e: e.ro - e.a, eq(lambda e: e.ro - e.a.numpy())),
    ("in place from a non-contiguous array", lambda e: e.a.copy().add_(e.nc), eq(lambda e: e.a.numpy() + e.nc)),
    # Operands and arguments
    ("mismatched shapes", lambda e: e.a + e.v, ValueError),
    ("mismatched list operand", lambda e: e.a + [1, 2], ValueError),
    ("mismatched matmul", lambda e: e.a @ e.a, ValueError),
    ("matmul of a 0-d tensor", lambda e: donate.matmul(donate.tensor(1.0), e.a), ValueError),
    ("matmul with a scalar", lambda e: e.a @ 2, TypeError),
    ("in place with a broadcast left side", lambda e: e.v.copy().add_(e.a), ValueError),
    ("string operand", lambda e: e.a + "x", TypeError),
    ("None operand", lambda e: e.a + None, TypeError),
    ("string to a function", lambda e: donate.exp("x"), TypeError),
    ("int overflowing int64", lambda e: e.i + (1 << 70), OverflowError),
    ("full with an overflowing int", lambda e: donate.full((2,), 1 << 70, dtype="int64"), OverflowError),
    ("full with a string", lambda e: donate.full((2,), "x"), TypeError),
    ("divmod with a string", lambda e: divmod(e.a, "x"), TypeError),
    ("comparison with a string", lambda e: e.a < "2", TypeError),
    ("pow with a modulo", lambda e: pow(e.a, 2, 3), TypeError),
    ("item assignment", setitem, TypeError),
    ("layer_norm with a bad gamma", lambda e: donate.layer_norm(e.a, gamma=e.v), ValueError),
    ("layer_norm with negative eps", lambda e: donate.layer_norm(e.a, eps=-1.0), ValueError),
    ("layer_norm with a string eps", lambda e: donate.layer_norm(e.a, eps="x"), TypeError),
    ("Tensor() without data", lambda e: donate.Tensor(), TypeError),
    ("Donated() built by hand", lambda e: donate.Donated(), TypeError),
    ("negative arena budget", lambda e: donate.arena(max_bytes=-1), OverflowError),
    ("negative implicit threshold", lambda e: donate.set_implicit_donation(True, min_bytes=-1), OverflowError),
    # Axes and indices
    ("axis out of range", lambda e: e.a.sum(axis=2), donate.AxisError),
    ("negative axis out of range", lambda e: e.a.mean(axis=-3), donate.AxisError),
    ("float axis", lambda e: e.a.sum(axis=1.5), TypeError),
    ("repeated tuple axis", lambda e: e.a.max(axis=(0, 0)), ValueError),
    ("softmax axis out of range", lambda e: donate.softmax(e.a, axis=5), donate.AxisError),
    ("transpose repeating an axis", lambda e: e.a.transpose(0, 0), ValueError),
    ("transpose with too many axes", lambda e: e.a.transpose(0, 1, 2), ValueError),
    ("transpose axis out of range", lambda e: e.a.transpose(0, 5), donate.AxisError),
    ("index out of range", lambda e: e.a[5], IndexError),
    ("item of many elements", lambda e: e.a.item(), ValueError),
    ("float() of many elements", lambda e: float(e.a), TypeError),  # NumPy 2's
    ("truth value of many elements", lambda e: bool(e.a), ValueError),
    ("max of nothing", lambda e: donate.zeros((0,)).max(), ValueError),
    # Donation misuse
    ("donated tensor in an operator", lambda e: e.gone + 1, donate.DonatedError),
    ("donated tensor as right operand", lambda e: 1 - e.gone, donate.DonatedError),
    ("donated tensor to numpy()", lambda e: e.gone.numpy(), donate.DonatedError),
    ("donated tensor to np.asarray", lambda e: np.asarray(e.gone), donate.DonatedError),
    ("donated tensor to memoryview", lambda e: memoryview(e.gone), donate.DonatedError),
    ("donated tensor pickled", lambda e: pickle.dumps(e.gone), donate.DonatedError),
    ("donated tensor donated again", lambda e: e.gone.donate(), donate.DonatedError),
    ("donated tensor relu_donate", lambda e: e.gone.relu_donate(), donate.DonatedError),
    ("donated tensor in place", lambda e: e.gone.relu_(), donate.DonatedError),
    ("donated tensor as in-place operand", lambda e: e.a.copy().add_(e.gone), donate.DonatedError),
    ("donated tensor to matmul", lambda e: e.gone @ e.gone, donate.DonatedError),
    ("Donated wrapper used twice", twice, donate.DonatedError),
    ("t.donate() + t.donate()", same_twice, copy_warned(lambda e: [2.0, 2.0, 2.0])),
    ("t.donate() + t", donated_and_named, copy_warned(lambda e: [2.0, 2.0, 2.0])),
    ("t.donate() @ t", donated_matmul_itself, copy_warned(lambda e: np.eye(3))),
    ("failed donation keeps its input", bad_donation_keeps_input, ValueError),
    # Memory
    ("arena budget exceeded", arena_too_small, MemoryError),
    ("refused donation's copy in a full arena", copy_of_refused_donation_in_a_full_arena, MemoryError),
]


def test_the_table_has_at_least_fifty_cases() -> None:
    assert len(CASES) >= 50 and len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize(("name", "call", "expected"), CASES, ids=[c[0] for c in CASES])
def test_hostile_input(name: str, call: Callable[[Env], Any], expected: Any) -> None:
    e = Env()
    before = e.snapshot()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if isinstance(expected, Ok):
            result = call(e)
            expected.check(result, e)
        else:
            with pytest.raises(expected) as info:
                call(e)
            assert str(info.value), "the error must say what went wrong"
    warned = [x for x in w if issubclass(x.category, donate.DonationWarning)]
    if isinstance(expected, Ok):
        assert bool(warned) == expected.warns, [str(x.message) for x in w]
    for k, t in e.tensors().items():
        assert not t.is_donated, k
        np.testing.assert_array_equal(t.numpy(), before[k], err_msg=k)
    for k, arr in e.arrays().items():
        np.testing.assert_array_equal(arr, before[k], err_msg=k)
        assert arr.dtype == before[k].dtype
    assert e.gone.is_donated
    # The interpreter and the library still work.
    assert (e.a + 1).sum().item() == 21.0

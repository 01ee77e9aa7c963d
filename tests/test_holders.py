"""Objects that hold the only reference to a tensor are not the stack.

A bound method `m = (a * 1).relu` holds its `self`; a method-wrapper
`(a * 1).__add__` its `self`; `functools.partial(donate.relu, a * 1)` its
argument. Calling them again and again must find the tensor intact: its
reference count is 1 and, once the interpreter has specialised the call
site (CPython 3.11-3.13 do that after a few calls), the C stack of the call
looks exactly like `(a * 1).relu()`. So every holder here is called many
times from the same call site, for every method, with and without
arguments, and from every kind of container.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import pytest

import donate

ROUNDS = 120  # far past the point where 3.11-3.13 specialise a call site


def base(shape: tuple[int, ...]) -> donate.Tensor:
    n = 1
    for d in shape:
        n *= d
    return (donate.arange(n, dtype="float32") / n).reshape(*shape)


VEC = (8,)
MAT = (8, 8)
IMG = (1, 2, 5, 5)


def w() -> donate.Tensor:
    return donate.ones((2, 2, 3, 3)) / 9


# (method name, shape of self, positional arguments)
METHODS: list[tuple[str, tuple[int, ...], tuple[Any, ...]]] = [
    ("relu", VEC, ()),
    ("neg", VEC, ()),
    ("abs", VEC, ()),
    ("exp", VEC, ()),
    ("log", VEC, ()),
    ("sqrt", VEC, ()),
    ("tanh", VEC, ()),
    ("sigmoid", VEC, ()),
    ("gelu", VEC, ()),
    ("sum", MAT, ()),
    ("sum", MAT, (0,)),
    ("mean", MAT, (1,)),
    ("max", MAT, (0,)),
    ("softmax", MAT, ()),
    ("softmax", MAT, (-1,)),
    ("layer_norm", MAT, ()),
    ("layer_norm", MAT, (donate.ones(8), donate.zeros(8))),
    ("reshape", MAT, (64,)),
    ("reshape", MAT, (4, 16)),
    ("transpose", MAT, ()),
    ("matmul", MAT, (donate.ones(MAT),)),
    ("astype", VEC, ("float64",)),
    ("copy", VEC, ()),
    ("conv2d", IMG, (w(),)),
    ("conv2d", IMG, (w(), None, 1, 1)),
    ("batch_norm", IMG, (donate.zeros(2), donate.ones(2))),
    ("__add__", VEC, (1.0,)),
    ("__radd__", VEC, (1.0,)),
    ("__sub__", VEC, (donate.ones(VEC),)),
    ("__rsub__", VEC, (3,)),
    ("__mul__", VEC, (2.0,)),
    ("__rmul__", VEC, (2,)),
    ("__truediv__", VEC, (2.0,)),
    ("__rtruediv__", VEC, (1.0,)),
    ("__matmul__", MAT, (donate.ones(MAT),)),
    ("__rmatmul__", MAT, (donate.ones(MAT),)),
    ("__neg__", VEC, ()),
    ("__pos__", VEC, ()),
    ("__abs__", VEC, ()),
]


CALLER = """
def call_spelled_out(call, args):
    if len(args) == 0:
        return call()
    if len(args) == 1:
        return call(args[0])
    if len(args) == 2:
        return call(args[0], args[1])
    if len(args) == 4:
        return call(args[0], args[1], args[2], args[3])
    raise AssertionError(f"no call site for {len(args)} arguments")
"""


def fresh_caller() -> Callable[[Callable[..., Any], tuple[Any, ...]], Any]:
    """`call(*args)` without unpacking (`f(*args)` is never a temporary
    path, see test_implicit): each arity has its own plain call site, in a
    new code object each time, so that every holder gets call sites that
    the interpreter specialises for it alone."""
    ns: dict[str, Any] = {}
    exec(compile(CALLER, "<holder call sites>", "exec"), ns)
    return ns["call_spelled_out"]  # type: ignore[no-any-return]


class Box:
    def __init__(self, m: Callable[..., Any]) -> None:
        self.m = m


Held = Callable[[], donate.Tensor]


def holders(name: str, shape: tuple[int, ...]) -> list[tuple[str, Callable[[], Any], Held]]:
    """Every way of keeping a callable that holds the only reference to a
    fresh tensor. With each, a function that reaches that tensor through
    the holder (keeping it anywhere else would add a reference)."""
    out: list[tuple[str, Callable[[], Any], Held]] = []
    m = getattr(base(shape) * 1, name)
    out.append(("bound method", lambda: m, lambda: m.__self__))
    box = Box(getattr(base(shape) * 1, name))
    out.append(("attribute", lambda: box.m, lambda: box.m.__self__))
    lst = [getattr(base(shape) * 1, name)]
    out.append(("list item", lambda: lst[0], lambda: lst[0].__self__))
    dct = {"m": getattr(base(shape) * 1, name)}
    out.append(("dict value", lambda: dct["m"], lambda: dct["m"].__self__))
    p = functools.partial(getattr(donate.Tensor, name), base(shape) * 1)
    out.append(("partial of the unbound method", lambda: p, lambda: p.args[0]))
    return out


@pytest.mark.parametrize(("name", "shape", "args"), METHODS, ids=[f"{m[0]}{len(m[2])}" for m in METHODS])
def test_a_held_receiver_is_never_donated(stats, name: str, shape: tuple[int, ...], args: tuple[Any, ...]) -> None:
    hs = holders(name, shape)
    before = stats()  # (making the holders reused temporaries)
    for kind, holder, held in hs:
        call_spelled_out = fresh_caller()
        snapshot = held().tolist()
        call = holder()
        first = call_spelled_out(call, args)
        first = first.tolist() if isinstance(first, donate.Tensor) else first
        del call
        for i in range(ROUNDS):
            # The same few call sites, called ROUNDS times.
            r = call_spelled_out(holder(), args)
            assert not held().is_donated, f"{kind}: {name} donated its held self in round {i}"
            got = r.tolist() if isinstance(r, donate.Tensor) else r
            assert got == first, f"{kind}: {name} changed its result in round {i}"
        assert held().tolist() == snapshot, f"{kind}: {name} wrote into its held self"
    assert before["implicit_donations"] == 0


FUNCTIONS: list[tuple[Callable[..., Any], tuple[int, ...], tuple[Any, ...]]] = [
    (donate.relu, VEC, ()),
    (donate.exp, VEC, ()),
    (donate.gelu, VEC, ()),
    (donate.sum, MAT, ()),
    (donate.max, MAT, ()),  # axis is keyword-only (the standard's signature)
    (donate.softmax, MAT, ()),
    (donate.layer_norm, MAT, ()),
    (donate.matmul, MAT, (donate.ones(MAT),)),
    (donate.conv2d, IMG, (w(),)),
    (operator.add, VEC, (1.0,)),
    (operator.mul, VEC, (donate.ones(VEC),)),
    (operator.neg, VEC, ()),
]


@pytest.mark.parametrize(("fn", "shape", "args"), FUNCTIONS, ids=[f[0].__name__ for f in FUNCTIONS])
def test_a_held_argument_is_never_donated(stats, fn: Callable[..., Any], shape: tuple[int, ...], args: tuple[Any, ...]) -> None:
    call_spelled_out = fresh_caller()
    p = functools.partial(fn, base(shape) * 1)
    m = (base(shape) * 1).__radd__
    before = stats()
    snapshot = p.args[0].tolist()
    first = call_spelled_out(p, args).tolist()
    for i in range(ROUNDS):
        assert call_spelled_out(p, args).tolist() == first, f"round {i}"
        assert not p.args[0].is_donated
    # The right-hand operand of a method held in a method-wrapper.
    for i in range(ROUNDS):
        m(1.0)
        assert not m.__self__.is_donated, f"round {i}"
    assert p.args[0].tolist() == snapshot
    assert before["implicit_donations"] == 0


def test_the_same_call_site_still_reuses_real_temporaries(stats) -> None:
    # The rule must not turn implicit donation off: after the holders
    # above, a specialised call site with a real temporary still reuses it.
    a = base(MAT)
    before = stats()
    for _ in range(ROUNDS):
        (a * 1).relu()
        (a * 1).softmax(-1)
        donate.relu(a * 1)
        (a * 1) + a
    assert before["implicit_donations"] >= 4 * ROUNDS

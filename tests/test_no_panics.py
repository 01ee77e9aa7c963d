"""No panic reaches Python.

PyO3 turns a Rust panic into `PanicException`, which derives from
`BaseException`, so `except Exception` does not catch it: a panic is a
crash for the caller. Every public function and method is called here with
every combination of odd arguments (Python numbers, 0-d, 0-size, huge,
mismatched, negative, non-finite, wrong types); each call must either
return a Tensor (or a number) or raise an ordinary `Exception`, and leave
the library working.
"""

from __future__ import annotations

import inspect
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate


def operands() -> list[Any]:
    return [
        3,
        -2.5,
        True,
        2**70,
        math.nan,
        None,
        "x",
        [],
        [[1.0, 2.0], [3.0]],
        np.float32(1.5),
        np.zeros((2, 0), np.float32),
        donate.tensor(2.0),
        donate.zeros((0,)),
        donate.zeros((3, 0, 2)),
        donate.ones((1, 1, 1, 1)),
        donate.ones((1, 1, 5, 5)),
        donate.ones((2, 3)),
        donate.ones((3, 2), dtype="int32"),
        donate.ones((2, 3), dtype="float64"),
        donate.arange(6, dtype="int64"),
        donate.ones((2, 3)).donate(),
    ]


INTS = [None, 0, 1, -1, 2, 5, -7, 2**40, 2**63, -(2**63) - 1, 1.5, "1"]


def call(fn: Callable[..., Any], *args: Any, **kw: Any) -> None:
    try:
        fn(*args, **kw)
    except Exception:
        pass
    except BaseException as e:  # PanicException, SystemExit, ...
        pytest.fail(f"{type(e).__name__} from {getattr(fn, '__name__', fn)}{args!r} {kw!r}: {e}")


UNARY = ["relu", "neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "gelu", "softmax", "layer_norm", "sum", "mean", "max", "asarray", "tensor", "from_numpy"]


@pytest.mark.parametrize("name", UNARY)
def test_functions_of_one_operand(name: str) -> None:
    fn = getattr(donate, name)
    for x in operands():
        call(fn, x)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "softmax"])
def test_axes(name: str) -> None:
    fn = getattr(donate, name)
    for x, axis in itertools.product(operands(), INTS):
        call(fn, x, axis)
        if name != "softmax":
            call(fn, x, axis=axis, keepdims=True)


@pytest.mark.parametrize("name", ["matmul", "conv2d"])
def test_functions_of_two_operands(name: str) -> None:
    fn = getattr(donate, name)
    for a, b in itertools.product(operands(), operands()):
        call(fn, a, b)


def test_attention_shapes_and_arguments() -> None:
    fn = donate.scaled_dot_product_attention
    for q, k, v in itertools.product(operands(), operands(), operands()):
        call(fn, q, k, v)
    shapes = [(0, 3), (3, 0), (1, 1), (2, 3, 4), (2, 0, 4), (0, 2, 3), (2, 5, 4)]
    for qs, ks in itertools.product(shapes, shapes):
        q, k = donate.ones(qs), donate.ones(ks)
        call(fn, q, k, k)
        call(fn, q, k, k, is_causal=True)
        call(fn, q, k, k, donate.zeros(qs[-2:-1] + ks[-2:-1]))
        call(fn, q, k, k, None, 0.0, False, float("nan"))
        call(fn, q, k, k, None, 0.5)
        call(fn, q, k, k, donate.ones(ks), 0.0, True)


def test_addmm_operands() -> None:
    for x, a, b in itertools.product(operands(), operands(), operands()):
        call(donate.addmm, x, a, b)


def test_conv2d_geometry() -> None:
    shapes = [(1, 1, 1, 1), (1, 1, 5, 5), (2, 3, 4, 4), (1, 2, 0, 3), (0, 1, 3, 3)]
    kernels = [(1, 1, 1, 1), (1, 1, 5, 5), (2, 3, 3, 3), (1, 2, 7, 1), (3, 1, 2, 2)]
    for xs, ws in itertools.product(shapes, kernels):
        x, w = donate.ones(xs), donate.ones(ws)
        for stride, padding in itertools.product(INTS, INTS):
            call(donate.conv2d, x, w, None, stride, padding)
        call(donate.conv2d, x, w, donate.ones((ws[0],)), 1, 1)
        call(donate.conv2d, x, w, donate.ones((ws[0] + 1,)), 1, 1)


def test_batch_norm_and_layer_norm_parameters() -> None:
    for x, p in itertools.product(operands(), operands()):
        call(donate.batch_norm, x, p, p)
        call(donate.layer_norm, x, p, None)
        call(donate.layer_norm, x, None, p)
    for eps in [0.0, -1.0, math.nan, math.inf, 1e308]:
        call(donate.batch_norm, donate.ones((2, 3)), donate.zeros(3), donate.ones(3), eps=eps)
        call(donate.layer_norm, donate.ones((2, 3)), eps=eps)


def test_creation() -> None:
    for shape, dtype in itertools.product(
        [(), 0, -1, (2, -1), (2**40, 2**40), (2**62,), [2, 3], "3", None, 1.5, (3, None)],
        [None, "float32", "int64", "complex64", "bool", np.int8, "nonsense"],
    ):
        for fn in (donate.zeros, donate.ones, donate.empty):
            call(fn, shape, dtype)
        call(donate.full, shape, 1.5, dtype)
    for args in itertools.product([0, 1, -3, 2.5, 2**63, math.nan, math.inf], repeat=3):
        call(donate.arange, *args)


def test_binary_operators_and_in_place() -> None:
    ops = [
        lambda a, b: a + b,
        lambda a, b: a - b,
        lambda a, b: a * b,
        lambda a, b: a / b,
        lambda a, b: a @ b,
    ]
    for a, b in itertools.product(operands(), operands()):
        for op in ops:
            call(op, a, b)
    for b in operands():
        for m in ("add_", "sub_", "mul_", "div_", "__iadd__", "__isub__", "__imul__", "__itruediv__"):
            t = donate.ones((2, 3))
            call(getattr(t, m), b)
            assert not t.is_donated


def test_methods() -> None:
    names = [
        n
        for n in dir(donate.Tensor)
        if not n.startswith("_") or n in ("__getitem__", "__neg__", "__pos__", "__abs__", "__bool__", "__float__", "__int__", "__len__", "__iter__", "__array__")
    ]
    for n in names:
        if inspect.isdatadescriptor(getattr(donate.Tensor, n)):
            continue  # properties (`mT` raises for fewer than 2 axes, as it should)
        for x in [donate.tensor(2.0), donate.zeros((0,)), donate.ones((2, 3)), donate.ones((1, 2, 5, 5))]:
            attr = getattr(x, n)
            if not callable(attr):
                continue
            call(attr)
            for arg in [*INTS, (1, 2), (-1,), (2**62, 2**62), slice(None, None, -1), Ellipsis, donate.ones(3)]:
                call(getattr(x, n), arg)


def test_still_working_after_everything() -> None:
    test_functions_of_one_operand("relu")
    a = donate.ones((2, 3))
    assert (a + 1).relu().tolist() == [[2.0] * 3] * 2

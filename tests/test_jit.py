"""`donate.jit`: tracing a function into a program, planning its buffers
from liveness and aliasing donated inputs (the README and docs/jit.md).

Every op donate has gives the same result jitted as eagerly; a
non-donated argument is never written (values and buffer pointers); an
honoured donation writes the result into the donated buffer and leaves the
caller's tensor moved-from; copy protection keeps shared buffers intact;
`.lower()` reports exactly the aliases it honours and a peak no higher
than eager execution's; tracer errors name the operation; the cache traces
once per key; failures and threads leave every argument intact."""

from __future__ import annotations

import contextlib
import functools
import gc
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import donate
from helpers import run_threads

sdpa = donate.scaled_dot_product_attention


# ---------------------------------------------------------------- helpers ---


def rn(*shape: int, seed: int = 0, dtype: Any = np.float32) -> np.ndarray:
    return np.random.default_rng(seed + 7 * len(shape) + sum(shape)).standard_normal(shape).astype(dtype)


@contextlib.contextmanager
def strict() -> Iterator[None]:
    """Every DonationWarning is an error inside."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        yield


@contextlib.contextmanager
def quiet_donation() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        yield


def leaves(tree: Any) -> list[Any]:
    """Leaves in the jit's order: dicts by sorted key, sequences in order."""
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in leaves(tree[k])]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in leaves(item)]
    if tree is None:
        return []
    return [tree]


def tensors_of(tree: Any) -> list[donate.Tensor]:
    return [x for x in leaves(tree) if isinstance(x, donate.Tensor)]


def to_tensors(tree: Any) -> Any:
    """Fresh tensors for every NumPy leaf."""
    if isinstance(tree, dict):
        return {k: to_tensors(v) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(to_tensors(v) for v in tree)
    if isinstance(tree, list):
        return [to_tensors(v) for v in tree]
    if isinstance(tree, np.ndarray):
        return donate.tensor(tree)
    return tree


def assert_tree_close(got: Any, want: Any, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    """Same structure, containers, dtypes, shapes; values within tolerance
    (NaN where eager has NaN); non-tensor leaves equal."""
    if isinstance(want, donate.Tensor):
        assert isinstance(got, donate.Tensor), type(got)
        assert got.shape == want.shape, (got.shape, want.shape)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol, equal_nan=True)
    elif isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), got
        for k in want:
            assert_tree_close(got[k], want[k], rtol, atol)
    elif isinstance(want, (tuple, list)):
        assert type(got) is type(want), (type(got), type(want))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_tree_close(g, w, rtol, atol)
    else:
        assert got == want or (got is None and want is None), (got, want)


def snapshot(tree: Any) -> list[tuple[int, np.ndarray]]:
    """(buffer pointer, values) of every tensor leaf."""
    return [(t.data_ptr(), t.numpy().copy()) for t in tensors_of(tree)]


def assert_untouched(tree: Any, snap: list[tuple[int, np.ndarray]]) -> None:
    """Not moved-from, the same buffer, the same values."""
    ts = tensors_of(tree)
    assert len(ts) == len(snap)
    for t, (p, v) in zip(ts, snap):
        assert not t.is_donated
        assert t.data_ptr() == p
        np.testing.assert_array_equal(t.numpy(), v)


def assert_moved_from(t: donate.Tensor, fname: str) -> None:
    assert t.is_donated
    with pytest.raises(donate.DonatedError, match=re.escape(f"jit({fname})")):
        t.tolist()
    with pytest.raises(donate.DonatedError):
        t + 1


def check_jit_equals_eager(
    fn: Callable[..., Any], args: tuple[Any, ...], rtol: float = 1e-5, atol: float = 1e-5, refused: int = 0
) -> Any:
    """Eager on fresh copies (the function may write its arguments in
    place), jitted twice (trace, then cache hit) on other tensors that must
    stay untouched; returns the jitted output. The first call warns
    exactly `refused` times (explicit donations of arguments the caller
    did not donate), the second never."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        want = fn(*to_tensors(args))
    jf = donate.jit(fn)
    targs = to_tensors(args)
    snap = snapshot(targs)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        got = jf(*targs)
    refusals = [str(m.message) for m in w if issubclass(m.category, donate.DonationWarning)]
    assert len(refusals) == refused, refusals
    assert all("not donated to jit(" in m for m in refusals), refusals
    assert_tree_close(got, want, rtol, atol)
    assert_untouched(targs, snap)
    with strict():
        got2 = jf(*targs)
    assert_tree_close(got2, want, rtol, atol)
    assert jf.trace_count == 1
    assert_untouched(targs, snap)
    # An output is a new buffer or a view of an argument (as eagerly):
    # writing the others in place never reaches the arguments.
    arrays = [t.numpy() for t in tensors_of(targs)]
    for out in tensors_of(got2):
        if out.dtype.kind == "f" and out.ndim and not any(np.shares_memory(out.numpy(), a) for a in arrays):
            out += 1.0
    del arrays
    assert_untouched(targs, snap)
    return got


# ----------------------------------------------------- jit equals eager ---


def inplace_add(x):
    x += 1
    x *= 2.0
    return x


def inplace_sub_div(x, y):
    x -= y
    x /= 4.0
    return x


def inplace_methods(x, y):
    x.relu_()
    x.add_(y)
    x.mul_(3.0)
    x.exp_()
    return x


def inplace_unary_all(x):
    y = x * 0.5
    y.neg_()
    y.abs_()
    y.sqrt_()
    y.tanh_()
    y.sigmoid_()
    y.gelu_()
    y.log_()
    return y


def inplace_on_temp(x):
    y = x * 1.0
    y += 3.0
    y.relu_()
    return y, x


def setitem_on_input(x):
    x[0] = 7.0
    x[:, 1] = x[:, 2]
    x[..., -1] += 100.0
    return x


def setitem_on_temp(x, v):
    y = x + 0.0
    y[1:3, ::-1] = v
    y[0] = y[-1]
    return y


def setitem_keeps_view(x):
    y = x * 2.0
    v = y[1]
    y[1] = -1.0
    return y, v


def setitem_after_views_of_the_input(x):
    v = x[0]
    t = x.T
    x[0] = 5.0
    x += 1.0
    return x, v, t


def inplace_after_a_later_use(x):
    y = x.tanh()
    x += 1.0
    return x * y, x.sum()


def batch_norm_inplace(x, m, var):
    y = x * 1.0
    y.batch_norm_(m, var)
    return y


def astype_chain(x):
    return (x.astype("float64") * 2).astype(donate.int32) + 1


def with_shape(x):
    n = x.shape[0]
    return x.reshape(n, -1).sum(axis=1) / x.size


X34 = rn(3, 4)
Y4 = rn(4, seed=1)
Y31 = rn(3, 1, seed=2)
Y14 = rn(1, 4, seed=3)
X64 = rn(3, 4, dtype=np.float64, seed=4)
I34 = (np.arange(12, dtype=np.int32).reshape(3, 4) - 5)
I64 = (np.arange(12, dtype=np.int64).reshape(3, 4) * 3 - 7)
POS34 = np.abs(X34) + 0.5
X456 = rn(4, 5, 6, seed=5)
M45 = rn(4, 5, seed=6)
M56 = rn(5, 6, seed=7)
B234 = rn(2, 3, 4, seed=8)
IMG = rn(2, 3, 6, 6, seed=9)
WCONV = rn(4, 3, 3, 3, seed=10)
BCONV = rn(4, seed=11)
BN_X = rn(2, 3, 4, 4, seed=12)
BN_M = rn(3, seed=13)
BN_V = np.abs(rn(3, seed=14)) + 0.5
BN_G = rn(3, seed=15)
BN_B = rn(3, seed=16)
Q = rn(2, 5, 8, seed=17)
K = rn(2, 7, 8, seed=18)
V = rn(2, 7, 6, seed=19)
MASK = rn(5, 7, seed=20)
QS = rn(2, 6, 8, seed=21)
G6 = rn(6, seed=22)
B6 = rn(6, seed=23)

OPS: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    # element-wise unary, methods, functions and operators
    "relu": (lambda x: x.relu(), (X34,)),
    "neg": (lambda x: x.neg(), (X34,)),
    "abs": (lambda x: x.abs(), (X34,)),
    "exp": (lambda x: x.exp(), (X34,)),
    "log": (lambda x: x.log(), (POS34,)),
    "sqrt": (lambda x: x.sqrt(), (POS34,)),
    "tanh": (lambda x: x.tanh(), (X34,)),
    "sigmoid": (lambda x: x.sigmoid(), (X34,)),
    "gelu": (lambda x: x.gelu(), (X34,)),
    "functions": (lambda x: donate.gelu(donate.sigmoid(donate.tanh(donate.exp(donate.neg(donate.abs(donate.relu(x))))))), (X34,)),
    "log sqrt functions": (lambda x: donate.log(donate.sqrt(x)), (POS34,)),
    "operators -x +x abs(x)": (lambda x: (-x, +x, abs(x)), (X34,)),
    "unary on float64": (lambda x: x.tanh().exp().sigmoid(), (X64,)),
    "unary on int": (lambda x: (x.relu(), -x, abs(x), x.exp()), (I34,)),
    # element-wise binary with tensors, scalars, broadcasting, promotion
    "add sub mul div": (lambda x, y: (x + y, x - y, x * y, x / y), (X34, POS34)),
    "broadcast row": (lambda x, y: (x + y, y - x, x * y, y / (x * x + 1)), (X34, Y4)),
    "broadcast column and row": (lambda a, b: (a + b, a * b, a - b, a / (b * b + 1)), (Y31, Y14)),
    "scalars right": (lambda x: (x + 2, x - 1.5, x * 3, x / 4.0), (X34,)),
    "scalars left": (lambda x: (2 + x, 1.5 - x, 3 * x, 4.0 / (x * x + 1)), (X34,)),
    "int scalars": (lambda x: (x + 2, x * 3, x - 1, 2 - x), (I34,)),
    "int / int": (lambda x: x / 4, (I34,)),
    "int + float scalar promotes": (lambda x: x + 0.5, (I34,)),
    "f32 + f64 promotes": (lambda x, y: (x + y, x * y), (X34, X64)),
    "i32 * i64 promotes": (lambda x, y: x * y, (I34, I64)),
    "f32 with i32": (lambda x, y: (x + y, y - x), (X34, I34)),
    "captured numpy constant": (lambda x: x * Y4 + Y4, (X34,)),
    "captured tensor constant": (lambda x: x - CONST_T, (X34,)),
    # matmul and addmm
    "matmul": (lambda a, b: a @ b, (M45, M56)),
    "matmul function and method": (lambda a, b: (donate.matmul(a, b), a.matmul(b)), (M45, M56)),
    "batched matmul": (lambda a, b: a @ b, (rn(2, 3, 4), rn(4, 5))),
    "matrix vector": (lambda a, b: a @ b, (M45, rn(5))),
    "rmatmul with numpy": (lambda b: M45 @ b, (M56,)),
    "matmul of transpose": (lambda a: a.T @ a, (M45,)),
    "int matmul": (lambda a, b: a @ b, (I34, I64.T.copy())),
    "addmm": (lambda c, a, b: donate.addmm(c, a, b), (rn(4, 6), M45, M56)),
    "addmm broadcast bias": (lambda c, a, b: donate.addmm(c, a, b), (G6, M45, M56)),
    "addmm on a temporary": (lambda c, a, b: donate.addmm(c * 2, a, b).relu(), (rn(4, 6), M45, M56)),
    # reductions
    "sum": (lambda x: (x.sum(), x.sum(axis=0), x.sum(axis=-1, keepdims=True), x.sum(1, keepdims=True)), (X456,)),
    "mean": (lambda x: (x.mean(), x.mean(axis=1), x.mean(axis=-1, keepdims=True)), (X456,)),
    "max": (lambda x: (x.max(), x.max(axis=2), x.max(axis=0, keepdims=True)), (X456,)),
    "reduction functions": (lambda x: (donate.sum(x, axis=0), donate.mean(x, axis=1, keepdims=True), donate.max(x, axis=-1)), (X456,)),
    "int sum widens": (lambda x: (x.sum(), x.sum(axis=0), x.max(axis=1)), (I34,)),
    "reduce then broadcast": (lambda x: x - x.max(axis=-1, keepdims=True), (X456,)),
    # softmax, layer_norm, conv2d, batch_norm
    "softmax": (lambda x: (x.softmax(), x.softmax(-1), donate.softmax(x, axis=2), (x * 3).softmax()), (X456,)),
    "layer_norm": (lambda x: x.layer_norm(), (X456,)),
    "layer_norm affine eps": (lambda x, g, b: (x.layer_norm(g, b), donate.layer_norm(x, g, b, eps=1e-3)), (X456, G6, B6)),
    "conv2d": (lambda x, w, b: donate.conv2d(x, w, b, stride=1, padding=1), (IMG, WCONV, BCONV)),
    "conv2d stride no bias": (lambda x, w: x.conv2d(w, None, 2, 0), (IMG, WCONV)),
    "conv2d then relu": (lambda x, w, b: x.conv2d(w, b, padding=1).relu() + 1, (IMG, WCONV, BCONV)),
    "batch_norm": (lambda x, m, v: donate.batch_norm(x, m, v), (BN_X, BN_M, BN_V)),
    "batch_norm affine": (lambda x, m, v, g, b: x.batch_norm(m, v, g, b, eps=1e-3).relu(), (BN_X, BN_M, BN_V, BN_G, BN_B)),
    "batch_norm_ on a temporary": (batch_norm_inplace, (B234, BN_M, BN_V)),
    # layout: reshape, transpose, views
    "reshape": (lambda x: (x.reshape(-1), x.reshape(20, 6), x.reshape((2, 2, 30))), (X456,)),
    "transpose": (lambda x: (x.T, x.transpose(), x.transpose(1, 0, 2), x.transpose((2, 0, 1))), (X456,)),
    "reshape of a transpose": (lambda x: x.transpose(2, 0, 1).reshape(-1), (X456,)),
    "ops on a transpose": (lambda x: (x.T.relu() + 1, x.T * x.T), (X456,)),
    "basic indexing": (lambda x: (x[1], x[:, ::2], x[None, ..., 0], x[::-1, 1:3], x[-1, -1, -1], x[1:3].T), (X456,)),
    "ops on views": (lambda x: (x[1] + x[2], x[:, ::2].exp(), x[..., 0] @ x[0]), (X456,)),
    "shape inside the trace": (with_shape, (X456,)),
    "contiguous and copy": (lambda x: (x.T.contiguous(), x.copy() * 2), (X456,)),
    # in place inside the traced function
    "+= *= on an input": (inplace_add, (X34,)),
    "-= /= on an input": (inplace_sub_div, (X34, Y4)),
    "in-place methods on an input": (inplace_methods, (X34, Y4)),
    "every unary in place": (inplace_unary_all, (X34,)),
    "in place on a temporary": (inplace_on_temp, (X34,)),
    "setitem on an input": (setitem_on_input, (X456,)),
    "setitem on a temporary": (setitem_on_temp, (X456, rn(2, 1, 6, seed=30))),
    "in place after a use of the input": (inplace_after_a_later_use, (X34,)),
    # explicit donation inside the traced function never reaches a caller
    # who did not donate (one DonationWarning each, REFUSED_INSIDE)
    "x.donate() inside": (lambda x: x.donate() + 1, (X34,)),
    "relu_donate inside": (lambda x, y: (x.relu_donate() * 2, donate.tanh(y.donate())), (X34, Y4)),
    "donate a view inside": (lambda x: x.T.donate() * 3, (X34,)),
    # zero-size, 0-d and integer tensors
    "zero-size": (lambda x: ((x * 2).relu() + 1, x.sum(axis=0), x.T), (np.zeros((0, 3), np.float32),)),
    "0-d": (lambda x: ((x * 2).relu() + 1, x.reshape(1, 1), -x), (np.array(2.5, np.float32),)),
    "int64 chain": (lambda x: ((x * 3 - 7).relu() + x).abs(), (I64,)),
    # dtypes
    "astype": (lambda x: (x.astype("float64"), x.astype(donate.int32), x.astype(np.int64) * 2), (X34,)),
    "astype chain": (astype_chain, (X34,)),
    # attention
    "sdpa": (lambda q, k, v: sdpa(q, k, v), (Q, K, V)),
    "sdpa causal": (lambda q, k, v: sdpa(q, k, v, is_causal=True), (Q, K, V)),
    "sdpa mask and scale": (lambda q, k, v, m: sdpa(q, k, v, attn_mask=m, scale=0.5), (Q, K, V, MASK)),
    "sdpa self attention block": (lambda x, w: sdpa(x @ w, x @ w, x, is_causal=True) + x, (QS, rn(8, 8))),
}
CONST_T = donate.tensor(Y4)


# The explicit donations inside these functions of arguments the caller
# does not donate: each is refused with one DonationWarning.
REFUSED_INSIDE = {"x.donate() inside": 1, "relu_donate inside": 2, "donate a view inside": 1}


@pytest.mark.parametrize("name", list(OPS))
def test_jit_equals_eager(name: str) -> None:
    fn, args = OPS[name]
    check_jit_equals_eager(fn, args, refused=REFUSED_INSIDE.get(name, 0))


@pytest.mark.parametrize("name", list(OPS))
def test_jit_equals_eager_with_every_argument_donated(name: str) -> None:
    fn, args = OPS[name]
    want = fn(*to_tensors(args))
    jf = donate.jit(fn, donate_argnums=tuple(range(len(args))))
    targs = to_tensors(args)
    with quiet_donation():
        got = jf(*targs)
        assert_tree_close(got, want)
        # An honoured donation leaves the argument moved-from; otherwise
        # the argument keeps its values.
        for t, a in zip(targs, args):
            if not t.is_donated:
                np.testing.assert_array_equal(t.numpy(), a)
        # The cached program on fresh arguments.
        got2 = jf(*to_tensors(args))
    assert_tree_close(got2, want)
    assert jf.trace_count == 1


def test_numpy_arguments_are_inputs_and_stay_unchanged() -> None:
    x = X34.copy()
    y = Y4.copy()
    jf = donate.jit(inplace_sub_div)
    got = jf(x, y)
    assert isinstance(got, donate.Tensor)
    np.testing.assert_allclose(got.numpy(), (X34 - Y4) / 4, rtol=1e-6)
    np.testing.assert_array_equal(x, X34)
    np.testing.assert_array_equal(y, Y4)
    # The same shapes as tensors: the cached program.
    jf(donate.tensor(x), donate.tensor(y))
    assert jf.trace_count == 1


def test_outputs_that_are_inputs_or_their_views_share_the_input_as_eagerly() -> None:
    def f(x):
        return x, x.T, x[1], x.reshape(-1)

    def write(outs):
        for k, o in enumerate(outs):
            o += 1.0
            o.relu_()
            o[..., 0] = float(k)

    eager = donate.tensor(X456)
    write(f(eager))
    x = donate.tensor(X456)
    p = x.data_ptr()
    outs = donate.jit(f)(x)
    assert_tree_close(outs, f(x), 0, 0)
    write(outs)
    # Every output is a view of `x`, as eagerly: the writes reach it.
    np.testing.assert_array_equal(x.numpy(), eager.numpy())
    assert x.data_ptr() == p and not x.is_donated


def test_reading_a_view_written_since_is_refused_by_jit() -> None:
    # Eagerly the write shows through every view of the buffer; a traced
    # program cannot follow that, so jit refuses (and eager's values are
    # NumPy's).
    for fn, want in (
        (setitem_keeps_view, lambda a: (np.where(np.arange(4)[:, None, None] == 1, -1.0, a * 2), np.full((5, 6), -1.0))),
        (setitem_after_views_of_the_input, None),
    ):
        out = fn(donate.tensor(X456))
        if want is not None:
            for o, w in zip(out, want(X456)):
                np.testing.assert_array_equal(o.numpy(), w)
        x = donate.tensor(X456)
        snap = snapshot(x)
        with pytest.raises(donate.TracerError, match="written in place since"):
            donate.jit(fn)(x)
        assert_untouched(x, snap)


def test_non_donated_arguments_keep_buffers_and_allocation_count(stats) -> None:
    jf = donate.jit(lambda x: (x * 2).relu())
    jf(donate.tensor(X34))  # trace
    x = donate.tensor(rn(64, 64))
    snap = snapshot(x)
    s = stats()
    y = jf(x)
    # One buffer for the result: x * 2 in a new buffer, relu over it.
    assert s["allocations"] == 1
    assert y.data_ptr() != x.data_ptr()
    assert_untouched(x, snap)
    np.testing.assert_allclose(y.numpy(), np.maximum(snap[0][1] * 2, 0))


@pytest.mark.parametrize("donating", [False, True])
def test_one_value_returned_twice_shares_its_buffer_as_eagerly(donating: bool) -> None:
    def f(x):
        y = (x * 2).relu()
        return y, y, [y]

    jf = donate.jit(f, donate_argnums=0 if donating else ())
    with quiet_donation():
        a, b, (c,) = jf(donate.tensor(X34))
    want = np.maximum(X34 * 2, 0)
    # Eagerly the three are one object; jit's share one buffer: a write
    # through one shows in the others.
    a += 1.0
    b.neg_()
    for t in (a, b, c):
        np.testing.assert_array_equal(t.numpy(), -(want + 1))


def test_captured_tensors_are_never_written() -> None:
    w = donate.tensor(X34)
    snap = snapshot(w)

    def f(x):
        h = (w * 2).relu()  # a result of constants only
        h = h + x
        h.relu_()
        return (h + w).tanh(), w

    for donating in (False, True):
        jf = donate.jit(f, donate_argnums=0 if donating else ())
        for _ in range(2):
            with quiet_donation():
                y, w_out = jf(donate.tensor(Y4 * np.ones((3, 1), np.float32)))
            np.testing.assert_allclose(y.numpy(), np.tanh(np.maximum(np.maximum(X34 * 2, 0) + Y4, 0) + X34), rtol=1e-6)
            assert_untouched(w, snap)
            # Returned as is, as eagerly: the same buffer.
            assert np.shares_memory(w_out.numpy(), w.numpy())


def test_in_place_update_of_a_tensor_made_inside_with_a_traced_value() -> None:
    # Eagerly valid code: a tensor made inside the function from constants
    # (not from the arguments), then updated in place with an argument.
    w = donate.tensor(X34)
    snap = snapshot(w)

    def f(x):
        h = (w * 2).relu()
        h += x
        z = donate.zeros((3, 4))
        z[0] = x[1]
        return h, z

    want = f(donate.tensor(X34[::-1].copy()))
    got = donate.jit(f)(donate.tensor(X34[::-1].copy()))
    assert_tree_close(got, want)
    assert_untouched(w, snap)


@pytest.mark.parametrize("readonly", [False, True])
def test_donated_numpy_arrays_are_never_written(readonly: bool) -> None:
    a = X34.copy()
    b = {"y": Y4.copy()}
    a.flags.writeable = not readonly
    jf = donate.jit(lambda x, p: (x * 2 + p["y"]).relu(), donate_argnums=(0, 1))
    with quiet_donation():
        for _ in range(2):
            out = jf(a, b)
            np.testing.assert_array_equal(out.numpy(), np.maximum(X34 * 2 + Y4, 0))
            out += 1.0
    np.testing.assert_array_equal(a, X34)
    np.testing.assert_array_equal(b["y"], Y4)


# ------------------------------------------- differential (hypothesis) ---

UNARY_NAMES = ["relu", "neg", "abs", "exp", "log", "sqrt", "tanh", "sigmoid", "gelu"]
SCALAR_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, s: a + s,
    "sub": lambda a, s: a - s,
    "mul": lambda a, s: a * s,
    "div": lambda a, s: a / s,
    "radd": lambda a, s: s + a,
    "rsub": lambda a, s: s - a,
    "rmul": lambda a, s: s * a,
    "rdiv": lambda a, s: s / a,
}
BINARY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}

steps = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(UNARY_NAMES)),
    st.tuples(st.just("scalar"), st.sampled_from(sorted(SCALAR_OPS)),
              st.one_of(st.integers(-3, 3), st.floats(-4, 4, allow_nan=False, width=32))),
    st.tuples(st.just("binary"), st.sampled_from(sorted(BINARY_OPS)), st.sampled_from(["x", "y"])),
    st.tuples(st.just("inplace"), st.sampled_from(["iadd", "imul", "relu_", "tanh_"]), st.floats(-2, 2, width=32)),
)


def build_chain(chain: list[tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def fn(x, y):
        h = x
        for step in chain:
            kind, op = step[0], step[1]
            if kind == "unary":
                h = getattr(h, op)()
            elif kind == "scalar":
                h = SCALAR_OPS[op](h, step[2])
            elif kind == "binary":
                h = BINARY_OPS[op](h, x if step[2] == "x" else y)
            elif h is x or h is y:
                h = h * 1.0  # eager would write the caller's tensor
            elif op == "iadd":
                h += step[2]
            elif op == "imul":
                h *= step[2]
            else:
                getattr(h, op)()
        return h

    return fn


@settings(max_examples=150)
@given(
    data=st.data(),
    chain=st.lists(steps, min_size=1, max_size=7),
    donate_x=st.booleans(),
    dtypes=st.tuples(st.sampled_from([np.float32, np.float64]), st.sampled_from([np.float32, np.float64])),
)
def test_random_elementwise_chains_match_eager(data: st.DataObject, chain: list[tuple[Any, ...]], donate_x: bool,
                                               dtypes: tuple[Any, Any]) -> None:
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=4))
    xs, ys = shapes.input_shapes
    elems = st.floats(-3, 3, width=32)
    xa = data.draw(hnp.arrays(dtypes[0], xs, elements=elems))
    ya = data.draw(hnp.arrays(dtypes[1], ys, elements=elems))
    fn = build_chain(chain)
    with np.errstate(all="ignore"):
        want = fn(donate.tensor(xa), donate.tensor(ya))
    jf = donate.jit(fn, donate_argnums=(0,) if donate_x else ())
    x, y = donate.tensor(xa), donate.tensor(ya)
    ysnap = snapshot(y)
    xsnap = snapshot(x)
    with quiet_donation():
        got = jf(x, y)
    assert_tree_close(got, want, rtol=2e-5, atol=1e-5)
    assert_untouched(y, ysnap)
    if not donate_x:
        assert_untouched(x, xsnap)
    elif x.is_donated:
        assert_moved_from(x, "fn")
    else:
        np.testing.assert_array_equal(x.numpy(), xa)
    # Cached program, fresh arguments.
    with quiet_donation():
        got2 = jf(donate.tensor(xa), donate.tensor(ya))
    assert_tree_close(got2, want, rtol=2e-5, atol=1e-5)
    assert jf.trace_count == 1


# --------------------------------------------------------- donation -----


def double_relu(x):
    return (x * 2).relu()


def test_honoured_donation_writes_into_the_donated_buffer(stats) -> None:
    jf = donate.jit(double_relu, donate_argnums=0)
    a = rn(64, 64)
    x = donate.tensor(a)
    p = x.data_ptr()
    with strict():
        y = jf(x)
    assert y.data_ptr() == p
    np.testing.assert_array_equal(y.numpy(), np.maximum(a * 2, 0))
    assert_moved_from(x, "double_relu")
    # Again from the cache: no allocation at all.
    x2 = donate.tensor(a)
    p2 = x2.data_ptr()
    s = stats()
    with strict():
        y2 = jf(x2)
    assert s["allocations"] == 0
    assert y2.data_ptr() == p2
    assert_moved_from(x2, "double_relu")
    # A moved-from argument cannot be passed again.
    with pytest.raises(donate.DonatedError):
        jf(x2)
    assert jf.trace_count == 1


def test_lambda_donation_names_the_lambda() -> None:
    jf = donate.jit(lambda x: (x * 2).relu(), donate_argnums=0)
    x = donate.tensor(X34)
    p = x.data_ptr()
    with strict():
        y = jf(x)
    assert y.data_ptr() == p
    assert_moved_from(x, "<lambda>")


def test_donating_one_argument_leaves_the_other_untouched() -> None:
    def f(x, b):
        return (x + b).tanh()

    jf = donate.jit(f, donate_argnums=(0,))
    x, b = donate.tensor(X34), donate.tensor(Y4)
    px = x.data_ptr()
    bsnap = snapshot(b)
    with strict():
        y = jf(x, b)
    assert y.data_ptr() == px
    np.testing.assert_allclose(y.numpy(), np.tanh(X34 + Y4), rtol=1e-6)
    assert_moved_from(x, "f")
    assert_untouched(b, bsnap)


def test_donate_argnames_by_keyword_and_by_position() -> None:
    def f(x, y):
        return (x - y).relu()

    jf = donate.jit(f, donate_argnames=("x",))
    x, y = donate.tensor(X34), donate.tensor(Y4)
    px, ysnap = x.data_ptr(), snapshot(y)
    with strict():
        out = jf(x=x, y=y)
    assert out.data_ptr() == px
    np.testing.assert_array_equal(out.numpy(), np.maximum(X34 - Y4, 0))
    assert_moved_from(x, "f")
    assert_untouched(y, ysnap)
    # The parameter named x, passed by position, is donated too.
    x2 = donate.tensor(X34)
    p2 = x2.data_ptr()
    with strict():
        out2 = jf(x2, y)
    assert out2.data_ptr() == p2 and x2.is_donated
    assert_untouched(y, ysnap)


def test_donate_argnames_leaves_other_keyword_alone() -> None:
    def f(x, y):
        return (y - x).relu()

    jf = donate.jit(f, donate_argnames=("y",))
    x, y = donate.tensor(X34), donate.tensor(X34[::-1].copy())
    xsnap, py = snapshot(x), y.data_ptr()
    with strict():
        out = jf(x=x, y=y)
    assert out.data_ptr() == py and y.is_donated
    assert_untouched(x, xsnap)


def test_decorator_and_partial_forms() -> None:
    @donate.jit
    def plain(x):
        return (x * 2).relu()

    @functools.partial(donate.jit, donate_argnums=0)
    def donating(x):
        return (x * 2).relu()

    assert isinstance(plain, donate.Jitted) and isinstance(donating, donate.Jitted)
    x = donate.tensor(X34)
    xsnap = snapshot(x)
    np.testing.assert_array_equal(plain(x).numpy(), np.maximum(X34 * 2, 0))
    assert_untouched(x, xsnap)
    p = x.data_ptr()
    with strict():
        y = donating(x)
    assert y.data_ptr() == p
    np.testing.assert_array_equal(y.numpy(), np.maximum(X34 * 2, 0))
    assert_moved_from(x, "donating")
    assert plain.trace_count == 1 and donating.trace_count == 1


def test_donated_buffer_hosting_only_intermediates_is_moved_from() -> None:
    def f(x, w):
        return (x * 2).relu() @ w

    jf = donate.jit(f, donate_argnums=0)
    a = rn(8, 8)
    x, w = donate.tensor(a), donate.tensor(rn(8, 8, seed=1))
    wsnap = snapshot(w)
    with strict():
        low = jf.lower(x, w)
    assert list(map(tuple, low.aliases)) == []
    assert list(low.donors) == [0]
    assert not x.is_donated  # lower does not run
    p = x.data_ptr()
    with strict():
        y = jf(x, w)
    assert y.data_ptr() != p
    np.testing.assert_allclose(y.numpy(), np.maximum(a * 2, 0) @ wsnap[0][1], rtol=1e-5, atol=1e-5)
    assert_moved_from(x, "f")
    assert_untouched(w, wsnap)


def test_unusable_donation_warns_at_lower_and_leaves_the_argument() -> None:
    jf = donate.jit(lambda a: a.sum(), donate_argnums=0)
    x = donate.tensor(rn(64, 64))
    snap = snapshot(x)
    msg = "Some donated buffers were not usable: float32[64, 64] (argument 0 'a')"
    with pytest.warns(donate.DonationWarning, match=re.escape(msg)):
        low = jf.lower(x)
    assert list(low.aliases) == [] and list(low.donors) == []
    assert_untouched(x, snap)
    with quiet_donation():
        y = jf(x)
    assert y.item() == pytest.approx(float(snap[0][1].sum(dtype=np.float64)), rel=1e-5, abs=1e-3)
    assert_untouched(x, snap)


def test_lower_aliases_and_header_report_exactly_the_honoured_aliases() -> None:
    def step(p, x):
        z = (x * p["a"]).sum()
        y = (x * p["s"]).relu()
        return z, y

    jf = donate.jit(step, donate_argnums=1)
    p = {"s": donate.tensor(Y4), "a": donate.tensor(rn(4, seed=9))}
    x = donate.tensor(X34)
    with strict():
        low = jf.lower(p, x)
    assert isinstance(low, donate.Lowered)
    # Leaves: p["a"] 0, p["s"] 1, x 2; outputs: z 0, y 1.
    assert list(map(tuple, low.aliases)) == [(1, 2)]
    assert list(low.donors) == []
    text = low.as_text()
    header = text.splitlines()[0]
    assert header.startswith("HloModule jit_step")
    assert "input_output_alias={ {1}: (2, {}, must-alias) }" in header
    assert set(re.findall(r"\{(\d+)\}: \((\d+), \{\}, must-alias\)", header)) == {("1", "2")}
    # The call honours what lower reported.
    px = x.data_ptr()
    with strict():
        z, y = jf(p, x)
    assert y.data_ptr() == px and x.is_donated
    np.testing.assert_allclose(y.numpy(), np.maximum(X34 * Y4, 0), rtol=1e-6)


def test_as_text_for_the_donated_relu() -> None:
    jf = donate.jit(double_relu, donate_argnums=0)
    x = donate.tensor(X34)
    with strict():
        low = jf.lower(x)
    assert list(map(tuple, low.aliases)) == [(0, 0)]
    assert list(low.donors) == []
    text = low.as_text()
    lines = text.splitlines()
    assert lines[0].startswith("HloModule jit_double_relu, input_output_alias={ {0}: (0, {}, must-alias) }")
    assert not re.search(r"buffer_donor=\{ *\(", lines[0])
    eqns = [ln for ln in lines[1:] if " = " in ln]
    assert len(eqns) == 2, text
    for ln in eqns:
        assert re.search(r"# (in place over \w+|new buffer|reuses buffer of \w+)\b", ln), ln
    invar = re.search(r"lambda [^;]*; ?(\w+):f32\[3,4\]", str(low.jaxpr))
    assert invar, str(low.jaxpr)
    assert f"in place over {invar.group(1)}" in eqns[0], text
    assert "in place over" in eqns[1], text
    assert not x.is_donated


def test_as_text_without_donation_never_writes_the_input() -> None:
    jf = donate.jit(double_relu)
    low = jf.lower(donate.tensor(X34))
    assert list(low.aliases) == [] and list(low.donors) == []
    text = low.as_text()
    lines = text.splitlines()
    assert lines[0].startswith("HloModule jit_double_relu")
    assert "must-alias" not in lines[0]
    assert not re.search(r"buffer_donor=\{ *\(", lines[0])
    invar = re.search(r"lambda [^;]*; ?(\w+):f32\[3,4\]", str(low.jaxpr))
    assert invar, str(low.jaxpr)
    a = invar.group(1)
    eqns = [ln for ln in lines[1:] if " = " in ln]
    assert re.search(r"# new buffer\b", eqns[0]), text
    assert not any(f"in place over {a}" in ln or f"reuses buffer of {a}" in ln for ln in eqns), text


def test_buffer_donor_in_the_header() -> None:
    def f(x, w):
        return (x * 2).relu() @ w

    jf = donate.jit(f, donate_argnums=0)
    with strict():
        low = jf.lower(donate.tensor(rn(8, 8)), donate.tensor(rn(8, 8, seed=1)))
    header = low.as_text().splitlines()[0]
    assert header.startswith("HloModule jit_f")
    assert "buffer_donor={ (0, {}) }" in header
    assert "must-alias" not in header


def test_lower_shares_the_call_cache_and_its_jaxpr_is_the_traced_program() -> None:
    jf = donate.jit(double_relu)
    x = donate.tensor(X34)
    low = jf.lower(x)
    assert isinstance(low.jaxpr, donate.Program)
    assert str(low.jaxpr) == str(donate.make_jaxpr(double_relu)(x))
    # lower traced once; the call reuses the trace.
    jf(x)
    assert jf.trace_count == 1


def test_lower_does_not_run(stats) -> None:
    jf = donate.jit(double_relu, donate_argnums=0)
    x = donate.tensor(X34)
    snap = snapshot(x)
    s = stats()
    with strict():
        jf.lower(x)
    assert s["allocations"] == 0
    assert_untouched(x, snap)


# --------------------------------------------------- copy protection ---


def check_copy_protection(x: donate.Tensor, keep: Callable[[], None], a: np.ndarray,
                          fn: Callable[..., Any] = double_relu, args: tuple[Any, ...] | None = None,
                          reason: str = "") -> donate.Tensor:
    """Donating `x` (not exclusive) warns, copies, and leaves `x` (and
    whatever `keep` checks) intact."""
    jf = donate.jit(fn, donate_argnums=0)
    p = x.data_ptr()
    with pytest.warns(donate.DonationWarning, match=re.compile(reason, re.I)):
        y = jf(*(args if args is not None else (x,)))
    assert not x.is_donated
    assert x.data_ptr() == p
    assert y.data_ptr() != p
    np.testing.assert_array_equal(x.numpy(), a)
    keep()
    return y


def test_copy_protection_live_view() -> None:
    a = rn(4, 5)
    x = donate.tensor(a)
    v = x[1]
    vt = x.T
    pv = v.data_ptr()

    def keep() -> None:
        assert v.data_ptr() == pv
        np.testing.assert_array_equal(v.numpy(), a[1])
        np.testing.assert_array_equal(vt.numpy(), a.T)

    y = check_copy_protection(x, keep, a, reason="shared")
    np.testing.assert_array_equal(y.numpy(), np.maximum(a * 2, 0))


def test_copy_protection_numpy_export() -> None:
    a = rn(4, 5)
    x = donate.tensor(a)
    e = np.asarray(x)
    m = x.numpy()

    def keep() -> None:
        np.testing.assert_array_equal(e, a)
        np.testing.assert_array_equal(m, a)

    y = check_copy_protection(x, keep, a, reason="export")
    np.testing.assert_array_equal(y.numpy(), np.maximum(a * 2, 0))
    del y, x
    np.testing.assert_array_equal(e, a)  # the export outlives everything


def test_copy_protection_another_tensor_sharing_the_buffer() -> None:
    a = rn(4, 5)
    x = donate.tensor(a)
    other = x.reshape(4, 5)
    assert not x.is_exclusive

    def keep() -> None:
        assert not other.is_donated
        np.testing.assert_array_equal(other.numpy(), a)

    check_copy_protection(x, keep, a, reason="shared")


def test_copy_protection_donating_a_view() -> None:
    a = rn(4, 5)
    base = donate.tensor(a)
    v = base[1:3]
    pb = base.data_ptr()
    jf = donate.jit(double_relu, donate_argnums=0)
    with pytest.warns(donate.DonationWarning):
        y = jf(v)
    np.testing.assert_array_equal(y.numpy(), np.maximum(a[1:3] * 2, 0))
    assert not v.is_donated and not base.is_donated
    assert base.data_ptr() == pb
    np.testing.assert_array_equal(base.numpy(), a)
    np.testing.assert_array_equal(v.numpy(), a[1:3])


def test_copy_protection_passed_twice() -> None:
    def f(a, b):
        return (a * 2).relu() + b

    a = rn(4, 5)
    x = donate.tensor(a)

    def keep() -> None:
        pass

    y = check_copy_protection(x, keep, a, fn=f, args=(x, x), reason="twice|more than once|passed [0-9]+ times")
    np.testing.assert_allclose(y.numpy(), np.maximum(a * 2, 0) + a, rtol=1e-6)


def test_copy_protection_passed_twice_both_donated() -> None:
    def f(a, b):
        return (a * 2).relu() - b.tanh()

    a = rn(4, 5)
    x = donate.tensor(a)
    p = x.data_ptr()
    jf = donate.jit(f, donate_argnums=(0, 1))
    with pytest.warns(donate.DonationWarning, match=re.compile("twice|more than once|passed [0-9]+ times", re.I)):
        y = jf(x, x)
    np.testing.assert_allclose(y.numpy(), np.maximum(a * 2, 0) - np.tanh(a), rtol=1e-5, atol=1e-6)
    assert not x.is_donated and x.data_ptr() == p
    np.testing.assert_array_equal(x.numpy(), a)


def test_copy_protection_same_tensor_in_a_pytree_twice() -> None:
    def f(t):
        return (t["u"] * 2).relu() + t["w"]

    a = rn(4, 5)
    x = donate.tensor(a)
    p = x.data_ptr()
    jf = donate.jit(f, donate_argnums=0)
    with pytest.warns(donate.DonationWarning):
        y = jf({"u": x, "w": x})
    np.testing.assert_allclose(y.numpy(), np.maximum(a * 2, 0) + a, rtol=1e-6)
    assert not x.is_donated and x.data_ptr() == p
    np.testing.assert_array_equal(x.numpy(), a)


def test_released_export_allows_donation_again() -> None:
    a = rn(4, 5)
    x = donate.tensor(a)
    e = np.asarray(x)
    del e
    p = x.data_ptr()
    jf = donate.jit(double_relu, donate_argnums=0)
    with strict():
        y = jf(x)
    assert y.data_ptr() == p and x.is_donated


# ------------------------------------------------------- tracer errors ---


def data_dependent_if(x):
    if x.sum():
        return x
    return -x


TRACER_USES: dict[str, tuple[Callable[[Any], Any], str]] = {
    "item": (lambda x: x.sum().item(), "item"),
    "float": (lambda x: float(x.sum()), "float"),
    "int": (lambda x: int(x.sum()), "int"),
    "bool": (lambda x: bool(x.sum()), "bool"),
    "if": (data_dependent_if, "bool"),
    "tolist": (lambda x: x.tolist(), "tolist"),
    "numpy": (lambda x: x.numpy(), "numpy"),
    "np.asarray": (lambda x: np.asarray(x), "array"),
    "np.array of a result": (lambda x: np.array(x * 2), "array"),
    "buffer protocol": (lambda x: memoryview(x), "buffer"),
}


@pytest.mark.parametrize("use", list(TRACER_USES))
def test_tracer_errors_name_the_operation(use: str) -> None:
    fn, opname = TRACER_USES[use]
    assert issubclass(donate.TracerError, TypeError)
    jf = donate.jit(fn, donate_argnums=0)
    x = donate.tensor(X34)
    snap = snapshot(x)
    with pytest.raises(donate.TracerError, match=re.compile(re.escape(opname), re.I)) as e:
        jf(x)
    msg = str(e.value).lower()
    assert "not known" in msg and "tracing" in msg, msg
    assert isinstance(e.value, TypeError)
    # Tracing failed: the donated argument is intact.
    assert_untouched(x, snap)
    with pytest.raises(donate.TracerError):
        donate.make_jaxpr(fn)(x)
    with pytest.raises(donate.TracerError):
        jf.lower(x)
    assert_untouched(x, snap)


def test_leaked_tracer_raises_after_the_trace() -> None:
    leak: list[Any] = []

    def f(x):
        leak.append(x)
        return x * 2

    y = donate.jit(f)(donate.tensor(X34))
    np.testing.assert_array_equal(y.numpy(), X34 * 2)
    t = leak[0]
    for use in (lambda: t + 1, lambda: t.relu(), lambda: donate.relu(t), lambda: t.tolist(),
                lambda: t.sum(), lambda: t @ t.T, lambda: t[0]):
        with pytest.raises(donate.TracerError):
            use()
    # Used inside another trace, too.
    g = donate.jit(lambda z: z + leak[0])
    with pytest.raises(donate.TracerError):
        g(donate.tensor(X34))


def test_shapes_are_known_while_tracing() -> None:
    seen: list[Any] = []

    def f(x):
        seen.append((x.shape, x.dtype, x.ndim, x.size))
        return x.reshape(x.shape[1], x.shape[0])

    y = donate.jit(f)(donate.tensor(X34))
    assert seen == [((3, 4), np.float32, 2, 12)]
    np.testing.assert_array_equal(y.numpy(), X34.reshape(4, 3))


# --------------------------------------------------------------- cache ---


def test_cache_same_shapes_no_retrace_new_shapes_or_dtypes_retrace() -> None:
    calls: list[Any] = []

    def f(x):
        calls.append(x.shape)
        return (x * 2).relu()

    jf = donate.jit(f)
    for _ in range(3):
        jf(donate.tensor(X34))
    assert jf.trace_count == 1 and len(calls) == 1
    jf(donate.tensor(rn(2, 2)))  # new shape
    assert jf.trace_count == 2
    y = jf(donate.tensor(X64))  # new dtype
    assert jf.trace_count == 3 and y.dtype == np.float64
    y = jf(donate.tensor(I34))
    assert jf.trace_count == 4 and y.dtype == np.int32
    np.testing.assert_array_equal(y.numpy(), np.maximum(I34 * 2, 0))
    jf(donate.tensor(X34 + 1))  # back to the first key: cached
    jf(X34.copy())  # a NumPy array of the same shape and dtype
    assert jf.trace_count == 4 and len(calls) == 4


def test_python_numbers_are_literals_in_the_cache_key() -> None:
    def f(x, s):
        return x * s + s

    jf = donate.jit(f)
    x = donate.tensor(X34)
    np.testing.assert_allclose(jf(x, 2.0).numpy(), X34 * 2 + 2, rtol=1e-6)
    np.testing.assert_allclose(jf(x, 2.0).numpy(), X34 * 2 + 2, rtol=1e-6)
    assert jf.trace_count == 1
    np.testing.assert_allclose(jf(x, 3.5).numpy(), X34 * 3.5 + 3.5, rtol=1e-6)
    assert jf.trace_count == 2
    np.testing.assert_allclose(jf(x, 2.0).numpy(), X34 * 2 + 2, rtol=1e-6)
    assert jf.trace_count == 2
    yi = jf(donate.tensor(I34), 3)
    assert yi.dtype == np.int32
    np.testing.assert_array_equal(yi.numpy(), I34 * 3 + 3)
    assert jf.trace_count == 3


def test_tree_structure_is_in_the_cache_key() -> None:
    def f(t):
        if t is None:
            return None
        return type(t)(e * 2 for e in t)

    jf = donate.jit(f)
    x = donate.tensor(X34)
    out = jf([x, x])
    assert isinstance(out, list) and len(out) == 2
    out = jf((x, x))
    assert isinstance(out, tuple) and len(out) == 2
    assert jf.trace_count == 2
    out = jf((x, x, x))
    assert isinstance(out, tuple) and len(out) == 3
    assert jf.trace_count == 3
    assert jf(None) is None
    assert jf.trace_count == 4
    jf([x, x])
    assert jf.trace_count == 4


def test_none_arguments() -> None:
    def f(x, bias):
        return x.relu() if bias is None else (x + bias).relu()

    jf = donate.jit(f)
    x, b = donate.tensor(X34), donate.tensor(Y4)
    np.testing.assert_array_equal(jf(x, None).numpy(), np.maximum(X34, 0))
    np.testing.assert_array_equal(jf(x, b).numpy(), np.maximum(X34 + Y4, 0))
    np.testing.assert_array_equal(jf(x, None).numpy(), np.maximum(X34, 0))
    assert jf.trace_count == 2


# ------------------------------------------------------------- statics ---


def test_static_argnums() -> None:
    seen: list[Any] = []

    def f(x, axis, mode):
        seen.append((axis, mode))
        y = x.sum(axis=axis)
        return y.relu() if mode == "relu" else y.tanh()

    jf = donate.jit(f, static_argnums=(1, 2))
    x = donate.tensor(X456)
    np.testing.assert_allclose(jf(x, 0, "relu").numpy(), np.maximum(X456.sum(0), 0), rtol=1e-5, atol=1e-6)
    jf(x, 0, "relu")
    assert jf.trace_count == 1
    np.testing.assert_allclose(jf(x, 1, "relu").numpy(), np.maximum(X456.sum(1), 0), rtol=1e-5, atol=1e-6)
    assert jf.trace_count == 2
    np.testing.assert_allclose(jf(x, 1, "tanh").numpy(), np.tanh(X456.sum(1)), rtol=1e-5, atol=1e-6)
    assert jf.trace_count == 3
    # Passed to fun as they are.
    assert seen == [(0, "relu"), (1, "relu"), (1, "tanh")]
    assert all(type(a) is int and type(m) is str for a, m in seen)


def test_static_argnames() -> None:
    def f(x, *, axis, keepdims=False):
        return x.max(axis=axis, keepdims=keepdims)

    jf = donate.jit(f, static_argnames=("axis", "keepdims"))
    x = donate.tensor(X456)
    np.testing.assert_array_equal(jf(x, axis=1).numpy(), X456.max(1))
    np.testing.assert_array_equal(jf(x, axis=1).numpy(), X456.max(1))
    assert jf.trace_count == 1
    np.testing.assert_array_equal(jf(x, axis=2, keepdims=True).numpy(), X456.max(2, keepdims=True))
    assert jf.trace_count == 2


def test_static_object_is_passed_as_is() -> None:
    class Cfg:
        def __init__(self, scale: float) -> None:
            self.scale = scale

        def __hash__(self) -> int:
            return hash(self.scale)

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Cfg) and other.scale == self.scale

    got: list[Any] = []

    def f(x, cfg):
        got.append(cfg)
        return x * cfg.scale

    jf = donate.jit(f, static_argnums=1)
    c = Cfg(3.0)
    np.testing.assert_allclose(jf(donate.tensor(X34), c).numpy(), X34 * 3, rtol=1e-6)
    assert got == [c] and got[0] is c
    jf(donate.tensor(X34), Cfg(3.0))
    assert jf.trace_count == 1
    np.testing.assert_allclose(jf(donate.tensor(X34), Cfg(0.5)).numpy(), X34 * 0.5, rtol=1e-6)
    assert jf.trace_count == 2


def test_unhashable_static_argument_is_an_error() -> None:
    jf = donate.jit(lambda x, axes: x.sum(axis=axes[0]), static_argnums=1)
    with pytest.raises((TypeError, ValueError)):
        jf(donate.tensor(X34), [0])


def test_static_with_donation() -> None:
    def f(x, k):
        return (x * k).relu()

    jf = donate.jit(f, donate_argnums=0, static_argnums=1)
    x = donate.tensor(X34)
    p = x.data_ptr()
    with strict():
        y = jf(x, 3)
    assert y.data_ptr() == p and x.is_donated
    np.testing.assert_array_equal(y.numpy(), np.maximum(X34 * 3, 0))


# ------------------------------------------------------------- pytrees ---


def mlp(params, x):
    h = (x @ params["w1"] + params["b1"]).relu()
    out = h @ params["w2"] + params["b2"]
    return {"out": out, "hidden": h, "meta": 3, "name": "mlp", "nothing": None, "pair": (out.sum(), [h.mean()])}


def make_params() -> dict[str, np.ndarray]:
    return {"w1": rn(8, 16, seed=1), "b1": rn(16, seed=2), "w2": rn(16, 4, seed=3), "b2": rn(4, seed=4)}


def test_pytree_dict_of_weights_and_dict_outputs() -> None:
    params = make_params()
    x = rn(5, 8)
    out = check_jit_equals_eager(mlp, (params, x))
    assert out["meta"] == 3 and type(out["meta"]) is int
    assert out["name"] == "mlp" and out["nothing"] is None
    assert isinstance(out["pair"], tuple) and isinstance(out["pair"][1], list)


def test_pytree_nested_tuples_lists_and_keywords() -> None:
    def f(pair, rest, *, scale, extra=None):
        a, (b, c) = pair
        d, e = rest
        out = [a + b, (c @ d, e.relu() * scale)]
        if extra is not None:
            out.append(extra["k"] * 2)
        return tuple(out)

    args = ((X34, (Y4, M45)), [M56, X34])
    want = f(*to_tensors(args), scale=donate.tensor(Y4), extra={"k": donate.tensor(X34)})
    jf = donate.jit(f)
    targs = to_tensors(args)
    scale = donate.tensor(Y4)
    extra = {"k": donate.tensor(X34)}
    snap = snapshot((targs, scale, extra))
    got = jf(*targs, scale=scale, extra=extra)
    assert_tree_close(got, want)
    assert_untouched((targs, scale, extra), snap)
    got = jf(*targs, scale=scale)
    assert len(got) == 2
    assert jf.trace_count == 2


def test_pytree_dicts_with_int_keys() -> None:
    def f(d):
        return {k: v * k for k, v in d.items()}, [d[2] + d[10]]

    args = ({10: X34, 2: X34[::-1].copy(), 5: X34 * 0},)
    check_jit_equals_eager(f, args)
    jf = donate.jit(f, donate_argnums=0)
    d = to_tensors(args[0])
    with quiet_donation():
        low = jf.lower(d)
    # Leaves in sorted key order: 2, 5, 10 (the argument and the output
    # dict; the list's sum is output 3). d[2] and d[10] are read by the
    # last sum, so only d[5] * 5 can be written over its input, and the
    # sum over one of its dying operands.
    al = sorted(map(tuple, low.aliases))
    assert al in ([(1, 1), (3, 0)], [(1, 1), (3, 2)]), al
    with quiet_donation():
        out, _ = jf(d)
    for k in (2, 5, 10):
        np.testing.assert_allclose(out[k].numpy(), args[0][k] * k, rtol=1e-6)


def test_pytree_donated_dict_argument() -> None:
    def sgd(params, grads):
        return {k: params[k] - grads[k] * 0.1 for k in params}

    p = make_params()
    g = {k: v * 0.5 for k, v in make_params().items()}
    params, grads = to_tensors(p), to_tensors(g)
    ptrs = {k: t.data_ptr() for k, t in params.items()}
    gsnap = snapshot(grads)
    jf = donate.jit(sgd, donate_argnums=0)
    with strict():
        low = jf.lower(params, grads)
    # Every parameter's buffer holds its update: outputs sorted as the
    # arguments are, leaf k to leaf k.
    assert sorted(map(tuple, low.aliases)) == [(i, i) for i in range(4)]
    with strict():
        new = jf(params, grads)
    for k in p:
        assert new[k].data_ptr() == ptrs[k]
        np.testing.assert_allclose(new[k].numpy(), p[k] - g[k] * 0.1, rtol=1e-6)
        assert_moved_from(params[k], "sgd")
    assert_untouched(grads, gsnap)


# ------------------------------------------------------------- failure ---


def scaled_gram(x):
    h = (x * 2).relu()
    s = h.sum(axis=0)
    m = h @ h
    return m + s


@pytest.mark.parametrize("warm", [False, True])
@pytest.mark.parametrize("max_bytes", [1, 200, 4200])
def test_failure_in_an_arena_leaves_the_donated_argument_intact(warm: bool, max_bytes: int) -> None:
    a = rn(32, 32)
    jf = donate.jit(scaled_gram, donate_argnums=0)
    if warm:
        with strict():
            jf(donate.tensor(a))
    x = donate.tensor(a)  # outside the arena
    p = x.data_ptr()
    ar = donate.arena(max_bytes=max_bytes)
    with ar, strict(), pytest.raises(MemoryError):
        jf(x)
    assert not x.is_donated
    assert x.data_ptr() == p
    np.testing.assert_array_equal(x.numpy(), a)
    gc.collect()
    assert ar.stats()["live_bytes"] == 0, "a failed call left buffers behind"
    # The function still works outside the arena and donates as usual.
    h = np.maximum(a * 2, 0)
    with strict():
        y = jf(x)
    np.testing.assert_allclose(y.numpy(), h @ h + h.sum(axis=0), rtol=1e-4, atol=1e-3)
    assert x.is_donated


CAST_OR_COPY_OPERANDS = {
    "strided operand": (lambda x, y: x + y.T, np.float32),
    "bool mask": (lambda x, y: x * (y > 0), np.float32),
    "int operand": (lambda x, y: x + y.astype(donate.int32), np.float64),
    "comparison read back": (lambda x, y: x - (x > 1), np.float32),
    "setitem of another dtype": (lambda x, y: _set_first_row(x, y.astype(donate.int32)), np.float32),
    "float16 matmul": (lambda x, y: (x @ y) * 2, np.float16),
}


def _set_first_row(x, v):
    x[0] = v[0]
    return x


@pytest.mark.parametrize("name", list(CAST_OR_COPY_OPERANDS))
def test_every_budget_leaves_the_donated_argument_intact_or_succeeds(name: str) -> None:
    """An operation that writes over a donated argument and reads another
    operand through a cast or a C-order copy: under an arena too small for
    that copy, the call fails before the argument is written. (Before, the
    copy's allocation failed after the argument had been taken out of the
    program's variables, and the argument was lost: a bug hunt's fuzzer of
    random programs and budgets.)"""
    f, dtype = CAST_OR_COPY_OPERANDS[name]
    a = rn(8, 8).astype(dtype)
    b = rn(8, 8, seed=1).astype(dtype)
    jf = donate.jit(f, donate_argnums=0)
    want = np.asarray(f(donate.tensor(a), donate.tensor(b)))
    failed = 0
    for budget in range(0, 2600, 64):
        x, y = donate.tensor(a), donate.tensor(b)
        try:
            with donate.arena(max_bytes=budget):
                got = jf(x, y)
        except MemoryError:
            failed += 1
            assert not x.is_donated, f"budget {budget}: the donated argument was lost"
            np.testing.assert_array_equal(x.numpy(), a)
            continue
        np.testing.assert_array_equal(np.asarray(got), want)
    assert failed, "no budget was small enough to fail"


@pytest.mark.parametrize("f,dtypes", [
    (lambda x, y: (x * 3 + 1).T * 2, (np.float16, np.float16)),
    (lambda x, y: (x @ y).relu() + 1.0, (np.int64, np.float64)),
    (lambda x, y: (x + 1).T + y.T, (np.float32, np.float32)),
], ids=["float16 transpose", "int64 @ float64", "two transposes"])
def test_a_cast_or_copy_never_takes_the_result_s_planned_buffer(f, dtypes) -> None:
    """A planned buffer is served to the equation's kernel after its
    operands' casts and C-order copies: a copy of the result's length (a
    transposed operand, an int64 operand cast to float64) took it before,
    and the run counted a plan mismatch."""
    a = rn(5, 5).astype(dtypes[0])
    b = rn(5, 5, seed=1).astype(dtypes[1])
    jf = donate.jit(f)
    before = donate.memory_stats()["plan_mismatches"]
    for _ in range(2):
        got = jf(donate.tensor(a), donate.tensor(b))
        np.testing.assert_array_equal(np.asarray(got), np.asarray(f(donate.tensor(a), donate.tensor(b))))
    assert donate.memory_stats()["plan_mismatches"] == before


def test_failure_in_an_arena_leaves_non_donated_arguments_intact() -> None:
    jf = donate.jit(lambda x, w: ((x @ w).relu() + x).tanh())
    x, w = donate.tensor(rn(16, 16)), donate.tensor(rn(16, 16, seed=1))
    snap = snapshot((x, w))
    with donate.arena(max_bytes=64), pytest.raises(MemoryError):
        jf(x, w)
    assert_untouched((x, w), snap)


def test_a_shape_error_while_tracing_leaves_the_donated_argument_intact() -> None:
    jf = donate.jit(lambda a, b: (a @ b).relu(), donate_argnums=(0, 1))
    x, w = donate.tensor(rn(3, 4)), donate.tensor(rn(5, 6))
    snap = snapshot((x, w))
    with pytest.raises(ValueError):
        jf(x, w)
    assert_untouched((x, w), snap)


def test_an_exception_raised_by_the_function_propagates() -> None:
    class Boom(Exception):
        pass

    def f(x):
        x = x * 2
        raise Boom("inside")

    jf = donate.jit(f, donate_argnums=0)
    x = donate.tensor(X34)
    snap = snapshot(x)
    with pytest.raises(Boom, match="inside"):
        jf(x)
    assert_untouched(x, snap)


# ------------------------------------------------------------- threads ---


def block(x, w, b):
    h = (x @ w + b).relu()
    return (h.layer_norm() * 2 + x).softmax()


def test_one_jitted_function_from_four_threads() -> None:
    w, b = donate.tensor(rn(16, 16, seed=1)), donate.tensor(rn(16, seed=2))
    wsnap = snapshot((w, b))
    jf = donate.jit(block)
    inputs = [rn(8, 16, seed=10 + k) for k in range(4)]
    wants = [block(donate.tensor(a), w, b).numpy() for a in inputs]
    jf(donate.tensor(inputs[0]), w, b)

    def work(k: int) -> None:
        for _ in range(50):
            x = donate.tensor(inputs[k])
            got = jf(x, w, b)
            np.testing.assert_allclose(got.numpy(), wants[k], rtol=1e-5, atol=1e-6)
            np.testing.assert_array_equal(x.numpy(), inputs[k])

    run_threads(work, 4)
    assert jf.trace_count == 1
    assert_untouched((w, b), wsnap)


def test_four_threads_donating_their_own_inputs_cold_start() -> None:
    jf = donate.jit(double_relu, donate_argnums=0)
    inputs = [rn(32, 32, seed=20 + k) for k in range(4)]

    def work(k: int) -> None:
        for _ in range(50):
            x = donate.tensor(inputs[k])
            p = x.data_ptr()
            with strict():
                y = jf(x)
            assert y.data_ptr() == p and x.is_donated
            np.testing.assert_array_equal(y.numpy(), np.maximum(inputs[k] * 2, 0))

    run_threads(work, 4)
    # The first call of each thread raced; each key is traced once.
    assert jf.trace_count == 1


def test_concurrent_first_calls_trace_once() -> None:
    # The traced function sleeps (releasing the GIL) so that all four
    # threads are inside their first call at the same time.
    entered: list[int] = []

    def slow(x):
        entered.append(1)
        time.sleep(0.05)
        return (x * 2).relu()

    jf = donate.jit(slow, donate_argnums=0)
    inputs = [rn(16, 16, seed=40 + k) for k in range(4)]

    def work(k: int) -> None:
        x = donate.tensor(inputs[k])
        y = jf(x)
        np.testing.assert_array_equal(y.numpy(), np.maximum(inputs[k] * 2, 0))
        assert x.is_donated

    run_threads(work, 4)
    assert jf.trace_count == 1 and len(entered) == 1


def test_threads_with_different_shapes() -> None:
    jf = donate.jit(lambda x: (x.softmax() * 3).sum(axis=-1))
    shapes = [(2, 3), (4, 5), (3, 7), (1, 9)]

    def work(k: int) -> None:
        a = rn(*shapes[k], seed=k)
        want = (donate.tensor(a).softmax() * 3).sum(axis=-1).numpy()
        for _ in range(30):
            np.testing.assert_allclose(jf(donate.tensor(a)).numpy(), want, rtol=1e-5, atol=1e-6)

    run_threads(work, 4)
    assert jf.trace_count == 4


# -------------------------------------------------------------- memory ---


def relu_chain(x):
    return ((x * 2).relu() + 1).tanh()


def mlp_flat(x, w1, b1, w2):
    return (x @ w1 + b1).relu() @ w2


def ln_softmax(x, g, b):
    return (x.layer_norm(g, b) * 2).softmax()


def attention(q, k, v):
    return sdpa(q, k, v, is_causal=True) + q


MEMORY_CASES: dict[str, tuple[Callable[..., Any], Callable[[], tuple[np.ndarray, ...]]]] = {
    "relu_chain": (relu_chain, lambda: (rn(64, 64),)),
    "mlp": (mlp_flat, lambda: (rn(32, 64), rn(64, 128, seed=1), rn(128, seed=2), rn(128, 64, seed=3))),
    "ln_softmax": (ln_softmax, lambda: (rn(32, 64), rn(64, seed=1), rn(64, seed=2))),
    "attention": (attention, lambda: (rn(2, 32, 16), rn(2, 32, 16, seed=1), rn(2, 32, 16, seed=2))),
    "conv_bn": (lambda x, w, m, v: x.conv2d(w, None, 1, 1).batch_norm(m, v).relu(),
                lambda: (rn(2, 4, 8, 8), rn(4, 4, 3, 3, seed=1), rn(4, seed=2), np.abs(rn(4, seed=3)) + 1)),
}


def measured_peak(fn: Callable[..., Any], args: tuple[donate.Tensor, ...]) -> tuple[int, Any]:
    """Peak tensor bytes held during `fn(*args)`, the arguments included."""
    argbytes = sum(t.nbytes for t in args)
    live = donate.memory_stats()["live_bytes"]
    donate.reset_peak_memory()
    out = fn(*args)
    return donate.memory_stats()["peak_bytes"] - live + argbytes, out


@pytest.mark.parametrize("name", list(MEMORY_CASES))
@pytest.mark.parametrize("donating", [False, True])
def test_planned_peak_at_most_eager_and_measured_at_most_planned(name: str, donating: bool) -> None:
    fn, make = MEMORY_CASES[name]
    arrays = make()
    eager_peak, want = measured_peak(fn, tuple(donate.tensor(a) for a in arrays))
    jf = donate.jit(fn, donate_argnums=0 if donating else ())
    with quiet_donation():
        low = jf.lower(*(donate.tensor(a) for a in arrays))
    ma = low.memory_analysis()
    argbytes = sum(a.nbytes for a in arrays)
    assert ma.argument_size_in_bytes == argbytes
    assert ma.output_size_in_bytes == want.nbytes
    assert ma.alias_size_in_bytes == (want.nbytes if list(low.aliases) else 0)
    assert ma.temp_size_in_bytes >= 0
    assert ma.peak_memory_in_bytes >= argbytes
    assert ma.peak_memory_in_bytes <= eager_peak, (ma.peak_memory_in_bytes, eager_peak)
    assert argbytes <= ma.peak_lower_bound_in_bytes <= ma.peak_memory_in_bytes, low.as_text()
    with quiet_donation():
        jf(*(donate.tensor(a) for a in arrays))  # warm: traced by lower, but run once
        jit_peak, got = measured_peak(jf, tuple(donate.tensor(a) for a in arrays))
    assert_tree_close(got, want, rtol=1e-4, atol=1e-5)
    assert jit_peak <= ma.peak_memory_in_bytes, (jit_peak, ma.peak_memory_in_bytes)


def test_donated_relu_chain_plans_one_buffer() -> None:
    a = rn(64, 64)
    jf = donate.jit(relu_chain, donate_argnums=0)
    with strict():
        low = jf.lower(donate.tensor(a))
    ma = low.memory_analysis()
    assert list(map(tuple, low.aliases)) == [(0, 0)]
    assert ma.alias_size_in_bytes == a.nbytes
    assert ma.peak_memory_in_bytes == a.nbytes
    plain = donate.jit(relu_chain).lower(donate.tensor(a)).memory_analysis()
    assert plain.alias_size_in_bytes == 0
    assert plain.peak_memory_in_bytes == 2 * a.nbytes
    # Both plans are as tight as any plan of the chain can be.
    assert ma.peak_lower_bound_in_bytes == a.nbytes
    assert plain.peak_lower_bound_in_bytes == 2 * a.nbytes
    eager_peak, _ = measured_peak(relu_chain, (donate.tensor(a),))
    assert ma.peak_memory_in_bytes < eager_peak
    x = donate.tensor(a)
    with strict():
        jit_peak, y = measured_peak(jf, (x,))
    assert jit_peak == a.nbytes
    np.testing.assert_allclose(y.numpy(), np.tanh(np.maximum(a * 2, 0) + 1), rtol=1e-6)


# ----------------------------------------------------------- make_jaxpr ---


def test_make_jaxpr_format() -> None:
    prog = donate.make_jaxpr(lambda a, b: (a + b).relu())(donate.tensor(rn(2, 3)), donate.tensor(rn(3)))
    assert isinstance(prog, donate.Program)
    s = str(prog)
    assert s.startswith("{ lambda ")
    assert re.match(r"\{ lambda ; a:f32\[2,3\] b:f32\[3\]\. let", s), s
    assert " in (" in s
    assert re.search(r"\bin \(\w+,\) \}$", s.strip()), s
    assert "add" in s and "relu" in s
    assert re.search(r"\w+:f32\[2,3\] = add a b", s), s


def test_make_jaxpr_several_outputs_dtypes_and_scalars() -> None:
    def f(x, i):
        return x.sum(), x.astype("float64"), i * 2

    s = str(donate.make_jaxpr(f)(donate.tensor(X34), donate.tensor(I34)))
    assert re.match(r"\{ lambda ; a:f32\[3,4\] b:i32\[3,4\]\. let", s), s
    assert re.search(r":f32\[\] = ", s), s
    assert re.search(r":f64\[3,4\] = ", s), s
    assert re.search(r"in \(\w+, \w+, \w+\) \}$", s.strip()), s


def test_make_jaxpr_constvars_static_and_literals() -> None:
    w = donate.tensor(Y4)
    s = str(donate.make_jaxpr(lambda x: x * w)(donate.tensor(X34)))
    assert re.match(r"\{ lambda \w+:f32\[4\] ?; \w+:f32\[3,4\]\. let", s), s

    def g(x, axis, s):
        return x.sum(axis=axis) * s

    s2 = str(donate.make_jaxpr(g, static_argnums=1)(donate.tensor(X34), 0, 2.5))
    # One input: the static argument and the Python number are not inputs.
    assert re.match(r"\{ lambda ; a:f32\[3,4\]\. let", s2), s2
    assert "2.5" in s2
    s3 = str(donate.make_jaxpr(lambda x, *, k: x * k, static_argnames=("k",))(donate.tensor(X34), k=7))
    assert re.match(r"\{ lambda ; a:f32\[3,4\]\. let", s3), s3
    assert "7" in s3


def test_make_jaxpr_layer_norm_params() -> None:
    s = str(donate.make_jaxpr(lambda x, g, b: donate.layer_norm(x, g, b))(
        donate.tensor(rn(4, 8)), donate.tensor(rn(8)), donate.tensor(rn(8, seed=1))))
    assert re.search(r"layer_norm\[eps=1e-05\] a b c", s), s


def test_make_jaxpr_runs_nothing_and_writes_nothing(stats) -> None:
    x, y = donate.tensor(X34), donate.tensor(Y4)
    snap = snapshot((x, y))
    s = stats()
    donate.make_jaxpr(inplace_methods)(x, y)
    assert s["allocations"] == 0
    assert_untouched((x, y), snap)


# --- outputs and copies own their buffers --------------------------------


def test_an_output_made_while_tracing_is_a_new_buffer_each_call():
    # A tensor made inside the function is a constant of the program; the
    # caller's result must not be it, or a write into the result would
    # reach every later call (eagerly each call makes it anew).
    x = donate.tensor(np.arange(3, dtype=np.float32))
    g = donate.jit(lambda x: (donate.ones((3,)), x + donate.ones((3,))))
    c, _ = g(x)
    c *= 100.0
    c2, s2 = g(x)
    np.testing.assert_array_equal(np.asarray(c2), np.ones(3, np.float32))
    np.testing.assert_array_equal(np.asarray(s2), np.arange(3, dtype=np.float32) + 1)
    assert c2.data_ptr() != c.data_ptr()
    h = donate.jit(lambda x: donate.full((3,), 2.0)[1:])
    y = h(x)
    y += 5.0
    np.testing.assert_array_equal(np.asarray(h(x)), [2.0, 2.0])


def test_a_result_of_captured_tensors_only_is_a_new_buffer_each_call():
    # `w * 2` is made while tracing (a constant); `w` itself is returned
    # as it is, as eagerly (test_captured_tensors_are_never_written).
    w = donate.tensor(np.arange(4, dtype=np.float32))
    f = donate.jit(lambda x: ((w * 2)[1:], x + w))
    y = f(donate.zeros(4))[0]
    y += 10.0
    np.testing.assert_array_equal(np.asarray(f(donate.zeros(4))[0]), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(np.asarray(w), np.arange(4, dtype=np.float32))


@pytest.mark.parametrize("copy", [lambda t: t.copy(), lambda t: np.copy(t), lambda t: t[::2].contiguous()])
def test_a_copy_inside_jit_is_a_copy(copy):
    x = donate.tensor(np.arange(4, dtype=np.float32))
    before = np.asarray(x).copy()
    y = donate.jit(copy)(x)
    assert y.data_ptr() != x.data_ptr()
    y += 100.0
    np.testing.assert_array_equal(np.asarray(x), before)


def test_writing_into_a_copy_inside_jit_matches_eager():
    def f(x):
        y = x.copy()
        y[0] = 5.0
        y += 1.0
        return x + y

    x = donate.tensor(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(donate.jit(f)(x)), np.asarray(f(x)))
    np.testing.assert_array_equal(np.asarray(x), np.arange(4, dtype=np.float32))


def test_asarray_copy_or_dtype_inside_jit_matches_eager():
    def f(x):
        y = donate.asarray(x, copy=True)
        y += 1.0
        return x + y, donate.asarray(x, dtype=donate.float64)

    x = donate.tensor(np.arange(4, dtype=np.float32))
    for r, e in zip(donate.jit(f)(x), f(x)):
        assert r.dtype == e.dtype
        np.testing.assert_array_equal(np.asarray(r), np.asarray(e))
    np.testing.assert_array_equal(np.asarray(x), np.arange(4, dtype=np.float32))

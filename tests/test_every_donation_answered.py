"""Every explicit donation is answered: the buffer is taken (the tensor is
then donated) or a `DonationWarning` says why not. Never silence.

For every operation and every tensor operand position, the operand is
passed as `t.donate()`; afterwards exactly one of these holds: `t` is
donated, or a `DonationWarning` was raised for it (and `t` is unchanged).

The second part passes `t.donate()` as the first operand of every public
function of `donate`, `donate.linalg` and `donate.fft` (a function that called a method
on its argument failed with an `AttributeError` of the `Donated` wrapper).
Its table must cover the namespace (`test_the_table_covers_the_namespace`),
so a new function cannot be forgotten.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate


def x4() -> donate.Tensor:
    return donate.tensor(np.linspace(-1, 1, 2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4))


def m(*shape: int) -> donate.Tensor:
    n = int(np.prod(shape))
    return donate.tensor(np.linspace(0.5, 1.5, n, dtype=np.float32).reshape(shape))


# (name, make the operands, call). `call` receives the operands as a list.
CASES: list[tuple[str, Callable[[], list[Any]], Callable[[list[Any]], Any]]] = [
    ("relu", lambda: [m(4)], lambda o: donate.relu(o[0])),
    ("add", lambda: [m(4), m(4)], lambda o: o[0] + o[1]),
    ("add broadcast", lambda: [m(3, 4), m(4)], lambda o: o[0] + o[1]),
    ("sub scalar", lambda: [m(4)], lambda o: 1.0 - o[0]),
    ("mul promote", lambda: [m(4), donate.ones(4, dtype="float64")], lambda o: o[0] * o[1]),
    ("matmul", lambda: [m(3, 3), m(3, 3)], lambda o: o[0] @ o[1]),
    ("sum", lambda: [m(3, 4)], lambda o: donate.sum(o[0], axis=0)),
    ("max", lambda: [m(3, 4)], lambda o: donate.max(o[0])),
    ("softmax", lambda: [m(3, 4)], lambda o: donate.softmax(o[0])),
    ("layer_norm", lambda: [m(3, 4), m(4), m(4)], lambda o: donate.layer_norm(o[0], o[1], o[2])),
    ("layer_norm 1-d", lambda: [m(4), m(4), m(4)], lambda o: donate.layer_norm(o[0], o[1], o[2])),
    ("batch_norm", lambda: [x4(), m(3), m(3), m(3), m(3)], lambda o: donate.batch_norm(o[0], o[1], o[2], o[3], o[4])),
    ("batch_norm_", lambda: [x4(), m(3), m(3), m(3), m(3)], lambda o: o[0].batch_norm_(o[1], o[2], o[3], o[4])),
    ("conv2d", lambda: [x4(), m(3, 3, 3, 3), m(3)], lambda o: donate.conv2d(o[0], o[1], o[2], 1, 1)),
    ("conv2d other shape", lambda: [x4(), m(5, 3, 3, 3), m(5)], lambda o: donate.conv2d(o[0], o[1], o[2])),
    ("attention", lambda: [m(2, 5, 4), m(2, 6, 4), m(2, 6, 4)], lambda o: donate.scaled_dot_product_attention(*o)),
    (
        "attention other width, mask",
        lambda: [m(2, 5, 4), m(2, 6, 4), m(2, 6, 3), m(5, 6)],
        lambda o: donate.scaled_dot_product_attention(o[0], o[1], o[2], o[3]),
    ),
    ("addmm", lambda: [m(3, 3), m(3, 3), m(3, 3)], lambda o: donate.addmm(o[0], o[1], o[2])),
    ("addmm broadcast", lambda: [m(3), m(2, 3), m(3, 3)], lambda o: donate.addmm(o[0], o[1], o[2])),
    # Operands that are views: a row, a transpose, a head split.
    ("relu of a row", lambda: [m(3, 4)[1]], lambda o: donate.relu(o[0])),
    ("add transposes", lambda: [m(4, 3).T, m(4, 3).T], lambda o: o[0] + o[1]),
    ("matmul of a transpose", lambda: [m(3, 3).T, m(3, 3)], lambda o: o[0] @ o[1]),
    (
        "attention over head splits",
        lambda: [m(2, 5, 2, 4).transpose(0, 2, 1, 3), m(2, 6, 2, 4).transpose(0, 2, 1, 3), m(2, 6, 2, 4).transpose(0, 2, 1, 3)],
        lambda o: donate.scaled_dot_product_attention(*o),
    ),
    ("setitem", lambda: [m(3, 4), m(4)], lambda o: o[0].__setitem__(1, o[1])),
    ("iadd", lambda: [m(4), m(4)], lambda o: o[0].__iadd__(o[1])),
    ("isub", lambda: [m(4), m(4)], lambda o: o[0].__isub__(o[1])),
    ("imul", lambda: [m(4), m(4)], lambda o: o[0].__imul__(o[1])),
    ("itruediv", lambda: [m(4), m(4)], lambda o: o[0].__itruediv__(o[1])),
    ("add_", lambda: [m(4), m(4)], lambda o: o[0].add_(o[1])),
    ("sub_", lambda: [m(4), m(4)], lambda o: o[0].sub_(o[1])),
    ("mul_", lambda: [m(4), m(4)], lambda o: o[0].mul_(o[1])),
    ("div_", lambda: [m(4), m(4)], lambda o: o[0].div_(o[1])),
]


def positions(make: Callable[[], list[Any]]) -> list[int]:
    return [i for i, o in enumerate(make()) if isinstance(o, donate.Tensor)]


PARAMS = [(name, make, call, i) for name, make, call in CASES for i in positions(make)]


@pytest.mark.parametrize(
    ("name", "make", "call", "pos"), PARAMS, ids=[f"{p[0]}-operand{p[3]}" for p in PARAMS]
)
@pytest.mark.parametrize("shared", [False, True], ids=["exclusive", "with a live view"])
def test_every_explicit_donation_is_taken_or_warned(
    name: str, make: Callable[[], list[Any]], call: Callable[[list[Any]], Any], pos: int, shared: bool
) -> None:
    ops = make()
    t = ops[pos]
    before = t.tolist()
    view = t.numpy() if shared else None
    is_target = pos == 0 and name.endswith(("_", "iadd", "isub", "imul", "itruediv", "setitem"))
    if not is_target:  # the target of an in-place op is `self`, not an operand
        ops[pos] = t.donate()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(ops)
    warned = [w for w in caught if issubclass(w.category, donate.DonationWarning)]
    if is_target:
        return
    if t.is_donated:
        assert not shared, f"{name}: a buffer with a live view was taken"
        assert not warned, f"{name}: warned although the donation was honoured: {warned[0].message}"
    else:
        assert len(warned) == 1, f"{name}: operand {pos} was donated, not used, and nothing said why"
        assert t.tolist() == before, f"{name}: a refused donation changed its tensor"
    del view


# ---- the first operand of every function of the namespace ----

# name -> (input shape, dtype, extra positional args, keyword args)
Call = tuple[tuple[int, ...], str, tuple[Any, ...], dict[str, Any]]

M = (3, 3)
V = (4,)
F = "float32"


UNARY_FLOAT = (
    "abs acos acosh asin asinh atan atanh cbrt ceil conj cos cosh exp expm1 floor gelu imag isfinite isinf isnan "
    "log log10 log1p log2 logical_not neg negative positive real reciprocal relu round sigmoid sign signbit "
    "sin sinh sqrt square tan tanh trunc"
).split()
BINARY_FLOAT = (
    "add atan2 copysign divide equal floor_divide fmod greater greater_equal hypot less less_equal logaddexp "
    "logical_and logical_or logical_xor maximum minimum multiply nextafter not_equal pow remainder subtract"
).split()
BITWISE = "bitwise_and bitwise_left_shift bitwise_or bitwise_right_shift bitwise_xor".split()

CALLS: dict[str, Call] = {
    **{n: (M, F, (), {}) for n in UNARY_FLOAT},
    **{n: (M, F, (2.0,), {}) for n in BINARY_FLOAT},
    **{n: (M, "int32", (1,), {}) for n in BITWISE},
    "bitwise_invert": (M, "int32", (), {}),
    "addmm": (M, F, (donate.ones(M), donate.ones(M)), {}),
    "all": (M, F, (), {}),
    "any": (M, F, (), {}),
    "argmax": (M, F, (), {}),
    "argmin": (M, F, (), {}),
    "argsort": (M, F, (), {}),
    "astype": (M, F, ("float64",), {}),
    "batch_norm": ((2, 3, 2, 2), F, (donate.zeros(3), donate.ones(3)), {}),
    "broadcast_arrays": (M, F, (donate.ones(M),), {}),
    "broadcast_to": (M, F, ((2, 3, 3),), {}),
    "clip": (M, F, (), {"min": 0.0, "max": 1.0}),
    "concat": (M, F, (), {}),
    "conv2d": ((1, 1, 4, 4), F, (donate.ones((1, 1, 3, 3)),), {"padding": 1}),
    "count_nonzero": (M, F, (), {}),
    **{n: (M, F, (), {}) for n in ("nansum", "nanprod", "nanmean", "nanmax", "nanmin", "nanvar", "nanstd")},
    "cumulative_prod": (M, F, (), {"axis": 0}),
    "cumulative_sum": (M, F, (), {"axis": 0}),
    "diff": (M, F, (), {}),
    "empty_like": (M, F, (), {}),
    "expand_dims": (M, F, (), {"axis": 0}),
    "flip": (M, F, (), {}),
    "from_dlpack": (M, F, (), {}),
    "full_like": (M, F, (2.0,), {}),
    "layer_norm": ((2, 3), F, (), {}),
    "matmul": (M, F, (donate.ones(M),), {}),
    "matrix_transpose": (M, F, (), {}),
    "max": (M, F, (), {}),
    "mean": (M, F, (), {}),
    "meshgrid": (V, F, (), {}),
    "min": (M, F, (), {}),
    "moveaxis": (M, F, (0, 1), {}),
    "nonzero": (M, F, (), {}),
    "ones_like": (M, F, (), {}),
    "permute_dims": (M, F, ((1, 0),), {}),
    "prod": (M, F, (), {}),
    "repeat": (M, F, (2,), {}),
    "reshape": (M, F, ((9,),), {}),
    "roll": (M, F, (1,), {}),
    "scaled_dot_product_attention": ((1, 2, 4), F, (donate.ones((1, 2, 4)), donate.ones((1, 2, 4))), {}),
    "searchsorted": (V, F, (donate.ones(2),), {}),
    "softmax": (M, F, (), {}),
    "sort": (M, F, (), {}),
    "squeeze": ((1, 3), F, (), {"axis": 0}),
    "stack": (M, F, (), {}),
    "std": (M, F, (), {}),
    "sum": (M, F, (), {}),
    "take": (M, F, (donate.asarray([0, 1]),), {"axis": 0}),
    "take_along_axis": (M, F, (donate.zeros(M, dtype="int64"),), {"axis": 0}),
    "tensordot": (M, F, (donate.ones(M),), {}),
    "tile": (M, F, ((2,),), {}),
    "tril": (M, F, (), {}),
    "triu": (M, F, (), {}),
    "unique_all": (M, F, (), {}),
    "unique_counts": (M, F, (), {}),
    "unique_inverse": (M, F, (), {}),
    "unique_values": (M, F, (), {}),
    "unstack": (M, F, (), {}),
    "var": (M, F, (), {}),
    "vecdot": (M, F, (donate.ones(M),), {}),
    "where": (M, "bool", (donate.ones(M), donate.zeros(M)), {}),
    "zeros_like": (M, F, (), {}),
    "linalg.cholesky": (M, F, (), {}),
    "linalg.cross": ((3,), F, (donate.ones(3),), {}),
    "linalg.det": (M, F, (), {}),
    "linalg.diagonal": (M, F, (), {}),
    "linalg.eig": (M, F, (), {}),
    "linalg.eigvals": (M, F, (), {}),
    "linalg.eigh": (M, F, (), {}),
    "linalg.eigvalsh": (M, F, (), {}),
    "linalg.inv": (M, F, (), {}),
    "linalg.matmul": (M, F, (donate.ones(M),), {}),
    "linalg.matrix_norm": (M, F, (), {}),
    "linalg.matrix_power": (M, F, (2,), {}),
    "linalg.matrix_rank": (M, F, (), {}),
    "linalg.matrix_transpose": (M, F, (), {}),
    "linalg.outer": (V, F, (donate.ones(V),), {}),
    "linalg.pinv": (M, F, (), {}),
    "linalg.qr": (M, F, (), {}),
    "linalg.slogdet": (M, F, (), {}),
    "linalg.solve": (M, F, (donate.ones(M),), {}),
    "linalg.svd": (M, F, (), {}),
    "linalg.svdvals": (M, F, (), {}),
    "linalg.tensordot": (M, F, (donate.ones(M),), {}),
    "linalg.trace": (M, F, (), {}),
    "linalg.vecdot": (M, F, (donate.ones(M),), {}),
    "linalg.vector_norm": (M, F, (), {}),
    "fft.fft": (M, F, (), {}),
    "fft.ifft": (M, F, (), {"axis": 0}),
    "fft.fftn": (M, F, (), {}),
    "fft.ifftn": (M, F, (), {"s": (2, 4)}),
    "fft.rfft": (M, F, (), {"n": 5}),
    "fft.irfft": (M, F, (), {}),
    "fft.rfftn": (M, F, (), {}),
    "fft.irfftn": (M, F, (), {"axes": (0,)}),
    "fft.hfft": (M, F, (), {}),
    "fft.ihfft": (M, F, (), {"norm": "ortho"}),
    "fft.fftshift": (M, F, (), {}),
    "fft.ifftshift": (M, F, (), {"axes": 0}),
}

# Functions that take the donated tensor inside a sequence.
IN_SEQUENCE = {"concat", "stack", "meshgrid", "broadcast_arrays"}

# Functions with no tensor operand (creation from shapes or Python data,
# dtype queries, settings, the tools around operations).
NO_TENSOR_OPERAND = set(
    (
        "__array_namespace_info__ arange arena asarray broadcast_shapes can_cast empty eye finfo from_numpy full iinfo "
        "implicit_donation implicit_donation_enabled implicit_donation_min_bytes isdtype jit linspace "
        "make_jaxpr memory_stats memory_timeline ones reset_peak_memory result_type set_implicit_donation "
        "temporary_check tensor zeros fft.fftfreq fft.rfftfreq"
    ).split()
)


def _functions() -> dict[str, Callable[..., Any]]:
    out = {}
    for n in donate.__all__:
        f = getattr(donate, n)
        if callable(f) and not isinstance(f, type):
            out[n] = f
    for ext in ("linalg", "fft"):
        module = getattr(donate, ext)
        for n in dir(module):
            f = getattr(module, n)
            if not n.startswith("_") and callable(f) and not isinstance(f, type) and getattr(f, "__module__", "").startswith("donate"):
                out[f"{ext}.{n}"] = f
    return out


# Functions whose first argument is not a tensor; each has a test of a
# donated operand of its own (einsum: tests/test_einsum.py).
FIRST_ARGUMENT_NOT_A_TENSOR = {"einsum"}


def test_the_table_covers_the_namespace() -> None:
    missing = sorted(set(_functions()) - set(CALLS) - NO_TENSOR_OPERAND - FIRST_ARGUMENT_NOT_A_TENSOR)
    assert not missing, f"functions without an entry in CALLS (or NO_TENSOR_OPERAND): {missing}"


def _function(name: str) -> Callable[..., Any]:
    return _functions()[name]


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_donated_operand_is_honoured_or_refused_once(name: str) -> None:
    shape, dtype, extra, kwargs = CALLS[name]
    f = _function(name)
    base = np.arange(1, 1 + int(np.prod(shape)), dtype=dtype).reshape(shape) if dtype != "bool" else np.ones(shape, bool)
    if name.startswith("linalg.") and shape == M:
        base = np.eye(3, dtype=dtype) * 2 + 0.5
    t = donate.asarray(base.copy())
    arg = [t.donate()] if name in IN_SEQUENCE else t.donate()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        result = f(*arg, *extra, **kwargs) if name in {"broadcast_arrays", "meshgrid"} else f(arg, *extra, **kwargs)
    assert result is not None
    refusals = [x for x in w if issubclass(x.category, donate.DonationWarning)]
    if t.is_donated:
        assert not refusals, [str(x.message) for x in refusals]
    else:
        assert len(refusals) == 1, (name, [str(x.message) for x in refusals])
        np.testing.assert_array_equal(np.asarray(t), base)

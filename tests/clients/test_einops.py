"""einops on donate tensors.

einops' top-level functions (`einops.rearrange`, `reduce`, `repeat`,
`einsum`, `pack`, `unpack`) find a backend for the tensor's type among the
subclasses of `einops._backends.AbstractBackend` whose `framework_name` is
an imported module; with `import donate` alone (as a user writes it) these
must work on donate tensors and give donate tensors equal to einops' results
on NumPy arrays.

`einops.array_api` has the same operations written against the array API
(`x.__array_namespace__()`), with no backend needed; they are tested too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import einops
import einops.array_api
import numpy as np
import pytest
from _clients_util import assert_matches

import donate

_rng = np.random.default_rng(7)
X = _rng.normal(size=(2, 4, 6))  # b h w
Y = _rng.normal(size=(2, 6, 3))  # b j k
M = _rng.normal(size=(4, 5))  # h w

# (id, operation taking the module of functions and the inputs, inputs)
CASES: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("rearrange-merge", lambda e, x: e.rearrange(x, "b h w -> b (h w)"), (X,)),
    ("rearrange-transpose", lambda e, x: e.rearrange(x, "b h w -> w b h"), (X,)),
    (
        "rearrange-split",
        lambda e, x: e.rearrange(x, "b (h1 h2) w -> b h1 h2 w", h1=2),
        (X,),
    ),
    ("rearrange-list", lambda e, x, y: e.rearrange([x, y], "n h w -> h n w"), (M, M * 2)),
    ("reduce-mean", lambda e, x: e.reduce(x, "b h w -> b", "mean"), (X,)),
    ("reduce-sum", lambda e, x: e.reduce(x, "b h w -> b w", "sum"), (X,)),
    ("reduce-max-pool", lambda e, x: e.reduce(x, "b (h h2) w -> b h w", "max", h2=2), (X,)),
    ("reduce-min", lambda e, x: e.reduce(x, "b h w -> h", "min"), (X,)),
    ("reduce-prod", lambda e, x: e.reduce(x, "b h w -> b h", "prod"), (X,)),
    ("reduce-keep-axis", lambda e, x: e.reduce(x, "b h w -> b 1 w", "mean"), (X,)),
    ("repeat-new-axis", lambda e, x: e.repeat(x, "h w -> h w c", c=3), (M,)),
    ("repeat-upsample", lambda e, x: e.repeat(x, "h w -> (h 2) (w r)", r=2), (M,)),
]

EINSUM_CASES: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("einsum-bmm", lambda x, y: einops.einsum(x, y, "b i j, b j k -> b i k"), (X, Y)),
    ("einsum-trace-like", lambda x: einops.einsum(x, "b i j -> b"), (X,)),
    ("einsum-outer", lambda m: einops.einsum(m, m, "h w, g w -> h g"), (M,)),
]


def _check(op: Callable[..., Any], inputs: tuple[np.ndarray, ...], *prefix: Any) -> None:
    __tracebackhide__ = True
    expected = op(*prefix, *inputs)
    result = op(*prefix, *(donate.asarray(a) for a in inputs))
    assert_matches(result, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op, inputs", [pytest.param(o, i, id=n) for n, o, i in CASES])
def test_top_level(op: Callable[..., Any], inputs: tuple[np.ndarray, ...]) -> None:
    _check(op, inputs, einops)


@pytest.mark.parametrize("op, inputs", [pytest.param(o, i, id=n) for n, o, i in EINSUM_CASES])
def test_einsum(op: Callable[..., Any], inputs: tuple[np.ndarray, ...]) -> None:
    _check(op, inputs)


def _pack_roundtrip(e: Any, make: Callable[[np.ndarray], Any]) -> None:
    a, b, c = X, X[:, :, 0], _rng.normal(size=(2, 3, 5, 6))
    expected, expected_shapes = einops.pack([a, b, c], "b *")
    packed, shapes = e.pack([make(a), make(b), make(c)], "b *")
    assert [tuple(s) for s in shapes] == [tuple(s) for s in expected_shapes]
    assert_matches(packed, expected, rtol=0)
    parts = e.unpack(packed, shapes, "b *")
    assert len(parts) == 3
    for part, original in zip(parts, (a, b, c), strict=True):
        assert_matches(part, original, rtol=0)


def test_pack_unpack() -> None:
    _pack_roundtrip(einops, donate.asarray)


def test_backend_is_found() -> None:
    from einops._backends import get_backend

    backend = get_backend(donate.asarray(X))
    assert backend.framework_name == "donate"
    assert backend.is_appropriate_type(donate.asarray(X))
    assert not backend.is_appropriate_type(X)


# einops.array_api: the same operations through the array API namespace.


@pytest.mark.parametrize("op, inputs", [pytest.param(o, i, id=n) for n, o, i in CASES])
def test_array_api(op: Callable[..., Any], inputs: tuple[np.ndarray, ...]) -> None:
    expected = op(einops, *inputs)
    result = op(einops.array_api, *(donate.asarray(a) for a in inputs))
    assert_matches(result, expected, rtol=1e-12, atol=1e-12)


def test_array_api_pack_unpack() -> None:
    _pack_roundtrip(einops.array_api, donate.asarray)

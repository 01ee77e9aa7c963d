"""donate: tensors whose buffers know who owns them.

Temporaries are reused implicitly (``(a + b).relu()`` writes into the buffer
of ``a + b``), ``t.donate()`` and ``t.relu_donate()`` move a buffer
explicitly, and a donation that cannot be honoured copies and warns with
:class:`DonationWarning`. See the README for the rules.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as _np

from ._jit import Jitted, jit, make_jaxpr
from ._timeline import MemoryTimeline, memory_timeline

from ._core import (
    ISA,
    Arena,
    AxisError,
    Donated,
    DonatedError,
    DonationWarning,
    Lowered,
    MemoryAnalysis,
    Program,
    Tensor,
    TracerError,
    abs,
    addmm,
    arange,
    arena,
    asarray,
    batch_norm,
    conv2d,
    empty,
    exp,
    from_dlpack,
    from_numpy,
    full,
    gelu,
    implicit_donation_enabled,
    implicit_donation_min_bytes,
    layer_norm,
    log,
    matmul,
    max,
    maximum,
    mean,
    memory_stats,
    minimum,
    neg,
    ones,
    relu,
    reset_peak_memory,
    scaled_dot_product_attention,
    set_implicit_donation,
    sigmoid,
    softmax,
    sqrt,
    sum,
    tanh,
    temporary_check,
    tensor,
    zeros,
)

float32: _np.dtype = _np.dtype("float32")
float64: _np.dtype = _np.dtype("float64")
int32: _np.dtype = _np.dtype("int32")
int64: _np.dtype = _np.dtype("int64")


@contextlib.contextmanager
def implicit_donation(enabled: bool, min_bytes: int | None = None) -> Iterator[None]:
    """Turn implicit donation of temporaries on or off inside a ``with``
    block (process-wide), optionally with another size threshold, and
    restore the previous settings afterwards."""
    previous_min = implicit_donation_min_bytes()
    previous = set_implicit_donation(enabled, min_bytes)
    try:
        yield
    finally:
        set_implicit_donation(previous, previous_min)


__all__ = [
    "ISA",
    "Arena",
    "AxisError",
    "Donated",
    "DonatedError",
    "DonationWarning",
    "Jitted",
    "Lowered",
    "MemoryAnalysis",
    "MemoryTimeline",
    "Program",
    "Tensor",
    "TracerError",
    "abs",
    "addmm",
    "arange",
    "arena",
    "asarray",
    "batch_norm",
    "conv2d",
    "empty",
    "exp",
    "float32",
    "float64",
    "from_dlpack",
    "from_numpy",
    "full",
    "gelu",
    "implicit_donation",
    "implicit_donation_enabled",
    "implicit_donation_min_bytes",
    "int32",
    "int64",
    "jit",
    "layer_norm",
    "log",
    "make_jaxpr",
    "matmul",
    "max",
    "maximum",
    "mean",
    "memory_stats",
    "memory_timeline",
    "minimum",
    "neg",
    "ones",
    "relu",
    "reset_peak_memory",
    "scaled_dot_product_attention",
    "set_implicit_donation",
    "sigmoid",
    "softmax",
    "sqrt",
    "sum",
    "tanh",
    "temporary_check",
    "tensor",
    "zeros",
]

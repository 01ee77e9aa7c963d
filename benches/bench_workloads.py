"""pytest-benchmark: the workloads of benches/workloads.py, per
implementation. The normal test run executes each once as a smoke test at
reduced sizes (`--benchmark-disable` is in pytest's addopts); time them for
real, at full size, with

    DONATE_BENCH_SIZE=full python -m pytest benches/bench_workloads.py --benchmark-enable --benchmark-only

(`python benches/report.py` measures memory as well, in fresh processes.)
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
import workloads as wl

SIZES = wl.FULL if os.environ.get("DONATE_BENCH_SIZE") == "full" else wl.SMALL


def cases() -> list[Any]:
    return [
        pytest.param(w, i, id=f"{w}-{i}")
        for w in wl.WORKLOADS
        for i in wl.IMPLS
        if wl.applies(w, i)
    ]


@pytest.mark.parametrize("workload,impl", cases())
def test_workload(benchmark: Any, workload: str, impl: str) -> None:
    if impl == "jax":
        pytest.importorskip("jax")
    if impl.startswith("torch"):
        pytest.importorskip("torch")
    w = wl.prepare(workload, impl, SIZES)

    def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (w.fresh(),), {}

    # Every call gets a fresh input: the implementations consume it.
    out = benchmark.pedantic(w.call, setup=setup, rounds=5 if SIZES is wl.FULL else 1, warmup_rounds=1)
    want = wl.numpy_impl(workload)(wl.make_input(workload, SIZES), wl.make_params(workload, SIZES))
    np.testing.assert_allclose(w.to_numpy(out), want, rtol=1e-3, atol=1e-4)

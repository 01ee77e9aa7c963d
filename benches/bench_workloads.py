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

import donate

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
    x_np = wl.make_input(workload, SIZES)
    params_np = wl.make_params(workload, SIZES)
    if impl.startswith("donate"):
        params = wl.convert(params_np, donate.tensor)
        fn = wl.donate_impl(workload, impl == "donate")

        def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
            return (donate.tensor(x_np), params), {}

        def result(y: Any) -> np.ndarray:
            return y.numpy()

    elif impl.startswith("numpy"):
        fn = wl.numpy_impl(workload, allocating=impl == "numpy-alloc")

        def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
            return (x_np.copy(), params_np), {}

        def result(y: Any) -> np.ndarray:
            return np.asarray(y)

    else:
        jax = pytest.importorskip("jax")
        heads = params_np.pop("heads", 0)
        jparams = wl.convert(params_np, jax.device_put)
        compiled = jax.jit(wl.jax_functions(heads)[wl.kind(workload)], donate_argnums=0)

        def fn(x: Any, p: Any) -> Any:
            return compiled(x, p).block_until_ready()

        def setup() -> tuple[tuple[Any, ...], dict[str, Any]]:
            return (jax.device_put(x_np.copy()), jparams), {}

        def result(y: Any) -> np.ndarray:
            return np.asarray(y)

    # Every call gets a fresh input: the implementations consume it.
    out = benchmark.pedantic(fn, setup=setup, rounds=5 if SIZES is wl.FULL else 1, warmup_rounds=1)
    want = wl.numpy_impl(workload)(wl.make_input(workload, SIZES), wl.make_params(workload, SIZES))
    np.testing.assert_allclose(result(out), want, rtol=1e-3, atol=1e-4)

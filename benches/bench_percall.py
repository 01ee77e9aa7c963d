"""pytest-benchmark: the per-call cost of small eager operations, donate
and NumPy side by side in one run (16 float32 elements, where the
operation's fixed cost is everything).

The normal test run executes these once as smoke tests
(`--benchmark-disable` is in pytest's addopts); time them with

    python -m pytest benches/bench_percall.py --benchmark-enable --benchmark-only \\
        --benchmark-columns=median,iqr --benchmark-sort=name
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import donate

N = 16


def operands(lib: str) -> tuple[Any, Any]:
    a = np.arange(N, dtype=np.float32)
    b = np.ones(N, np.float32)
    if lib == "donate":
        return donate.tensor(a), donate.tensor(b)
    return a, b


CASES: dict[str, dict[str, Callable[[Any, Any], Any]]] = {
    "add": {"donate": lambda a, b: a + b, "numpy": lambda a, b: a + b},
    "add_mul_relu": {
        "donate": lambda a, b: ((a + b) * 2.0).relu(),
        "numpy": lambda a, b: np.maximum((a + b) * 2.0, 0),
    },
    "relu": {"donate": lambda a, b: a.relu(), "numpy": lambda a, b: np.maximum(a, 0)},
    "add_scalar": {"donate": lambda a, b: a + 1.0, "numpy": lambda a, b: a + np.float32(1.0)},
}


@pytest.mark.parametrize("lib", ["donate", "numpy"])
@pytest.mark.parametrize("case", list(CASES))
def test_per_call(benchmark, case: str, lib: str) -> None:
    a, b = operands(lib)
    f = CASES[case][lib]
    out = benchmark(f, a, b)
    want = CASES[case]["numpy"](*operands("numpy"))
    np.testing.assert_allclose(np.asarray(out), want)

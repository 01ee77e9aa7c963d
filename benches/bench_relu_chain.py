"""pytest-benchmark: the 10-relu chain with and without donation.

The normal test run executes these once as smoke tests
(`--benchmark-disable` is in pytest's addopts); time them for real with

    python -m pytest benches --benchmark-enable --benchmark-only
"""

from __future__ import annotations

import numpy as np
import pytest

import donate

SIZES = {"4MB": (1000, 1000), "64MB": (4096, 4096)}


def chain(x: donate.Tensor) -> donate.Tensor:
    return x.relu().relu().relu().relu().relu().relu().relu().relu().relu().relu()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("mode", ["copy", "implicit", "explicit"])
def test_relu_chain(benchmark, size: str, mode: str) -> None:
    x = donate.tensor(np.random.default_rng(0).standard_normal(SIZES[size], dtype=np.float32))

    def run() -> donate.Tensor:
        if mode == "copy":
            with donate.implicit_donation(False):
                return chain(x)
        if mode == "implicit":
            return chain(x)
        y = x.copy()
        for _ in range(10):
            y = y.relu_donate()
        return y

    out = benchmark(run)
    np.testing.assert_array_equal(out.numpy(), np.maximum(x.numpy(), 0))


@pytest.mark.parametrize("size", list(SIZES))
def test_numpy_relu_chain(benchmark, size: str) -> None:
    x = np.random.default_rng(0).standard_normal(SIZES[size], dtype=np.float32)

    def run() -> np.ndarray:
        y = x
        for _ in range(10):
            y = np.maximum(y, 0)
        return y

    out = benchmark(run)
    np.testing.assert_array_equal(out, np.maximum(x, 0))

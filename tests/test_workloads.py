"""The benchmark workloads (benches/workloads.py) at reduced sizes: every
donate implementation (eager and ``donate.jit``, and JAX's and PyTorch's,
when installed) equals its NumPy implementation (rtol 1e-4), donation
leaves no donated tensor behind but the consumed input, and donation lowers
the peak of live tensor bytes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import donate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benches"))
import workloads as wl  # noqa: E402


def run_donate(workload: str, donating: bool) -> tuple[np.ndarray, int, donate.Tensor]:
    w = wl.prepare(workload, "donate" if donating else "donate-off", wl.SMALL)
    x = w.fresh()
    base = donate.memory_stats()["live_bytes"]
    donate.reset_peak_memory()
    out = w.call(x)
    peak = donate.memory_stats()["peak_bytes"] - base
    return w.to_numpy(out), peak, x


@pytest.mark.parametrize("workload", wl.WORKLOADS)
@pytest.mark.parametrize("donating", [False, True])
def test_donate_equals_numpy(workload: str, donating: bool) -> None:
    want = wl.numpy_impl(workload)(wl.make_input(workload, wl.SMALL), wl.make_params(workload, wl.SMALL))
    got, _, x = run_donate(workload, donating)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    if wl.kind(workload) == "relu":
        alloc = wl.numpy_impl(workload, allocating=True)(wl.make_input(workload, wl.SMALL), {})
        np.testing.assert_array_equal(alloc, want)
    # The input is consumed only where the code donates it: the ReLU
    # chain's and the encoder's (its residual add), not the ResNet block's.
    assert x.is_donated == (donating and wl.kind(workload) in ("relu", "encoder"))


@pytest.mark.parametrize("workload", wl.WORKLOADS)
def test_donation_lowers_the_peak(workload: str) -> None:
    # min_bytes=0 (the autouse fixture) so the small sizes reuse too.
    _, off, _ = run_donate(workload, False)
    _, on, _ = run_donate(workload, True)
    assert on < off


def test_relu_chain_with_relu_donate_holds_one_buffer() -> None:
    _, peak, x = run_donate("relu_4mb", True)
    assert peak == 0  # the input's buffer is the only one, before and after
    assert x.is_donated


@pytest.mark.parametrize("workload", wl.WORKLOADS)
def test_donate_jit_equals_numpy(workload: str) -> None:
    want = wl.numpy_impl(workload)(wl.make_input(workload, wl.SMALL), wl.make_params(workload, wl.SMALL))
    w = wl.prepare(workload, "donate-jit", wl.SMALL)
    # Twice: the first call after the set-up's trace, then a later one.
    for _ in range(2):
        np.testing.assert_allclose(w.to_numpy(w.call(w.fresh())), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("workload", wl.WORKLOADS)
def test_donate_jit_plans_at_most_the_eager_peak_and_runs_as_planned(workload: str) -> None:
    """The guarantee of the liveness plan: its peak is at or below eager
    donate's measured peak on the same function, the run's measured peak is
    the planned one, and the run follows the plan (no claim refused, no
    kept buffer unused)."""
    x_np = wl.make_input(workload, wl.SMALL)
    eager = wl.prepare(workload, "donate", wl.SMALL)
    x = eager.fresh()
    base = donate.memory_stats()["live_bytes"] - x.nbytes
    donate.reset_peak_memory()
    eager.call(x)
    eager_peak = donate.memory_stats()["peak_bytes"] - base
    w = wl.prepare(workload, "donate-jit", wl.SMALL)
    x = w.fresh()
    assert w.planned_peak is not None and w.weight_bytes is not None
    planned = w.planned_peak - w.weight_bytes
    mismatches = donate.memory_stats()["plan_mismatches"]
    base = donate.memory_stats()["live_bytes"] - x.nbytes
    donate.reset_peak_memory()
    w.call(x)
    measured = donate.memory_stats()["peak_bytes"] - base
    assert planned <= eager_peak, (planned, eager_peak)
    assert measured == planned
    assert donate.memory_stats()["plan_mismatches"] == mismatches


def test_jax_equals_numpy_when_installed() -> None:
    pytest.importorskip("jax")
    for workload in wl.WORKLOADS:
        want = wl.numpy_impl(workload)(wl.make_input(workload, wl.SMALL), wl.make_params(workload, wl.SMALL))
        w = wl.prepare(workload, "jax", wl.SMALL)
        np.testing.assert_allclose(w.to_numpy(w.call(w.fresh())), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("impl", ["torch", "torch-sdpa"])
def test_torch_equals_numpy_when_installed(impl: str) -> None:
    pytest.importorskip("torch")
    for workload in wl.WORKLOADS:
        if not wl.applies(workload, impl):
            continue
        want = wl.numpy_impl(workload)(wl.make_input(workload, wl.SMALL), wl.make_params(workload, wl.SMALL))
        w = wl.prepare(workload, impl, wl.SMALL)
        np.testing.assert_allclose(w.to_numpy(w.call(w.fresh())), want, rtol=1e-4, atol=1e-5)

"""Element-wise fusion in `donate.jit`, side by side in one process.

    python benches/fusion.py              # 21 interleaved rounds, medians
    python benches/fusion.py --rounds 41

Two chains, each over a fresh copy of its input per call (the copy is not
timed), every implementation writing over its input where it can:

* `bias_gelu`: `gelu(x + b)` (tanh form) for `x` of 2048x3072 float32 and a
  bias row `b` of 3072: donate eager (`x.donate() + b`, then GELU in place:
  two passes), `donate.jit` with `x` donated (one fused pass), PyTorch
  eager (`x.add_(b)`, then GELU) and `torch.compile` of the same function;
* `relu_chain`: ten relus over 4096x4096 float32: donate eager
  (`relu_donate`, ten passes in place), `donate.jit` with `x` donated (one
  fused pass), PyTorch eager (`relu_` ten times), `torch.compile`.

Rounds interleave the implementations, so a shared machine's noise falls
on all of them alike. PyTorch is optional: its columns are left out when
it is not installed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

import donate


def donate_cases(x0: np.ndarray, b0: np.ndarray, r0: np.ndarray) -> dict[str, Callable[[], float]]:
    b = donate.asarray(b0)

    def bias_gelu(x):
        return (x + b).gelu()

    def relus(x):
        for _ in range(10):
            x = x.relu_donate()
        return x

    jit_bias = donate.jit(lambda x: (x + b).gelu(), donate_argnums=0)
    jit_relus = donate.jit(relus, donate_argnums=0)

    def timed(src: np.ndarray, f: Callable[[donate.Tensor], object]) -> Callable[[], float]:
        def run() -> float:
            x = donate.asarray(src.copy())
            t0 = time.perf_counter()
            f(x)
            return time.perf_counter() - t0
        return run

    return {
        "bias_gelu donate eager": timed(x0, lambda x: bias_gelu(x.donate())),
        "bias_gelu donate.jit": timed(x0, jit_bias),
        "relu_chain donate eager": timed(r0, relus),
        "relu_chain donate.jit": timed(r0, jit_relus),
    }


def torch_cases(x0: np.ndarray, b0: np.ndarray, r0: np.ndarray) -> dict[str, Callable[[], float]]:
    try:
        import torch
    except ImportError:
        return {}
    # The threads of donate's pool (benches/ops.py does the same).
    torch.set_num_threads(int(os.environ.get("DONATE_THREADS", os.cpu_count() or 1)))
    tb = torch.from_numpy(b0)

    def bias_gelu(x):
        return torch.nn.functional.gelu(x + tb, approximate="tanh")

    def bias_gelu_(x):
        return torch.nn.functional.gelu(x.add_(tb), approximate="tanh")

    def relus(x):
        for _ in range(10):
            x = torch.relu(x)
        return x

    def relus_(x):
        for _ in range(10):
            x.relu_()
        return x

    compiled_bias = torch.compile(bias_gelu)
    compiled_relus = torch.compile(relus)

    def timed(src: np.ndarray, f: Callable[[object], object]) -> Callable[[], float]:
        def run() -> float:
            x = torch.from_numpy(src.copy())
            t0 = time.perf_counter()
            with torch.inference_mode():
                f(x)
            return time.perf_counter() - t0
        return run

    return {
        "bias_gelu PyTorch eager": timed(x0, bias_gelu_),
        "bias_gelu torch.compile": timed(x0, compiled_bias),
        "relu_chain PyTorch eager": timed(r0, relus_),
        "relu_chain torch.compile": timed(r0, compiled_relus),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=21)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((2048, 3072), dtype=np.float32)
    b0 = rng.standard_normal(3072, dtype=np.float32)
    r0 = rng.standard_normal((4096, 4096), dtype=np.float32)
    cases = {**donate_cases(x0, b0, r0), **torch_cases(x0, b0, r0)}
    for f in cases.values():  # warm-up: traces, compiles, first touches
        for _ in range(3):
            f()
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(args.rounds):
        for k, f in cases.items():
            times[k].append(f())
    print(f"| chain, implementation | median of {args.rounds} (ms) |")
    print("|---|--:|")
    for k in sorted(times):
        print(f"| {k} | {statistics.median(times[k]) * 1e3:.2f} |")


if __name__ == "__main__":
    main()

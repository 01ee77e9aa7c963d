"""`python -m donate`: measure a chain of 10 relus four ways and print the
peak tensor memory and time of each (the first design's first example)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

import donate

SHAPE = (1000, 1000)  # 4 MB of float32, the first design's size
N_OPS = 10
RUNS = 5


def fresh() -> donate.Tensor:
    return donate.tensor(np.random.default_rng(0).standard_normal(SHAPE, dtype=np.float32))


def keep_every_result(x: donate.Tensor) -> donate.Tensor:
    # `let` bindings that all live to the end of the scope: how the first design
    # counts "always copy".
    hs = [x]
    for _ in range(N_OPS):
        hs.append(hs[-1].relu())
    return hs[-1]


def chained(x: donate.Tensor) -> donate.Tensor:
    return x.relu().relu().relu().relu().relu().relu().relu().relu().relu().relu()


def explicit(x: donate.Tensor) -> donate.Tensor:
    for _ in range(N_OPS):
        x = x.relu_donate()
    return x


def measure(fn: Callable[[donate.Tensor], donate.Tensor], implicit: bool) -> tuple[int, int, float]:
    """Peak tensor bytes (including the input), fresh allocations, and the
    median wall time over RUNS."""
    times = []
    peak = allocs = 0
    for _ in range(RUNS):
        x = fresh()
        with donate.implicit_donation(implicit):
            donate.reset_peak_memory()
            before = donate.memory_stats()
            t0 = time.perf_counter()
            y = fn(x)
            times.append(time.perf_counter() - t0)
            after = donate.memory_stats()
        peak = after["peak_bytes"] - before["live_bytes"] + x.nbytes
        allocs = after["allocations"] - before["allocations"]
        del x, y
    return peak, allocs, statistics.median(times)


def main() -> None:
    rows = [
        ("always copy, every result kept (the first design's accounting)", keep_every_result, False),
        ("always copy, chained temporaries", chained, False),
        ("implicit donation, chained temporaries", chained, True),
        ("explicit donation, x = x.relu_donate()", explicit, True),
    ]
    print(f"donate: chain of {N_OPS} relus over float32{list(SHAPE)}, ISA {donate.ISA}")
    print(f"temporary check: {donate.temporary_check()[1]}")
    print()
    print("| how | peak tensor bytes | fresh buffers | median time |")
    print("|---|---:|---:|---:|")
    base = None
    for name, fn, implicit in rows:
        peak, allocs, t = measure(fn, implicit)
        base = base or peak
        saved = f" ({100 * (1 - peak / base):.0f}% less)" if peak != base else ""
        print(f"| {name} | {peak:,}{saved} | {allocs} | {t * 1e3:.2f} ms |")


if __name__ == "__main__":
    main()

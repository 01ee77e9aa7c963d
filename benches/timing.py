"""The timer the bench scripts share: the median of calls timed one by one
after a warm-up call (which pays first-use costs: page faults of a new
result's memory are still paid by every call that makes one).

Scripts run as ``python benches/<name>.py`` find it beside them.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable


def median_ms(f: Callable[[], object], calls: int = 9) -> float:
    """The median time of `calls` calls of `f`, in milliseconds."""
    f()
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3

"""Helpers shared by the test files."""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_threads(work: Callable[[int], None], n: int) -> None:
    """Run `work(k)` for k in range(n) on n threads started together and
    re-raise the first failure."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def body(k: int) -> None:
        try:
            barrier.wait()
            work(k)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]

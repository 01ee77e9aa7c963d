"""fork(): a child process runs parallel kernels after its parent did.

Kernels over at least `GRAIN` (2^20) elements, and large matmuls, run on a
thread pool. A forked child has only the thread that called fork(), so a
pool built by the parent has no workers in the child; the child must get a
pool of its own. Each test waits for its children with a timeout, so a
regression fails here instead of hanging the suite.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import warnings
from collections.abc import Callable

import pytest

import donate

# Above the kernels' parallel grain (2^20 elements).
N = 1 << 21
TIMEOUT = 30.0

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def parallel_work(k: int) -> float:
    """Parallel kernels (element-wise, reduction, f32 matmul) on fresh
    tensors; returns a value that depends on all of them."""
    t = donate.full(N, float(k), dtype="float64")
    s = float((t * 3).sum())
    a = donate.ones((512, 512))
    b = donate.full((512, 512), 2.0)
    c = float((a @ b).sum())
    return s + c


def expected(k: int) -> float:
    return 3.0 * k * N + 2.0 * 512 * 512 * 512


def fork() -> int:
    """os.fork(), without 3.12+'s warning that this process has threads:
    that is what these tests are about."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def in_child(body: Callable[[], bool]) -> int:
    """Fork; the child runs `body` and exits 0 if it returned True, 1 if it
    returned False, 2 if it raised. Returns the child's pid."""
    pid = fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 2
        try:
            code = 0 if body() else 1
        finally:
            os._exit(code)
    return pid


def wait_exit_code(pid: int, timeout: float = TIMEOUT) -> int:
    """The exit code of child `pid`; kill it and fail if it is still
    running after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail(f"forked child {pid} hung (killed after {timeout:.0f} s)")
        time.sleep(0.01)


def test_child_of_fork_runs_parallel_ops_after_the_parent_did() -> None:
    t = donate.ones(N)
    assert float((t * 2).sum()) == 2.0 * N  # the parent's pool now exists
    pid = in_child(lambda: float((t * 3).sum()) == 3.0 * N and parallel_work(1) == expected(1))
    assert wait_exit_code(pid) == 0
    # The parent's own pool still works.
    assert parallel_work(2) == expected(2)


def test_grandchild_runs_parallel_ops_after_parent_and_child_did() -> None:
    assert parallel_work(1) == expected(1)

    def child() -> bool:
        if parallel_work(2) != expected(2):
            return False
        grandchild = in_child(lambda: parallel_work(3) == expected(3))
        return wait_exit_code(grandchild) == 0

    assert wait_exit_code(in_child(child), 2 * TIMEOUT) == 0


def test_multiprocessing_fork_pool_runs_parallel_ops_in_workers() -> None:
    assert parallel_work(1) == expected(1)
    ctx = multiprocessing.get_context("fork")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pool = ctx.Pool(2)
    try:
        result = pool.map_async(parallel_work, range(4))
        try:
            values = result.get(timeout=TIMEOUT)
        except multiprocessing.TimeoutError:
            pytest.fail(f"fork-started pool workers hung (gave up after {TIMEOUT:.0f} s)")
        assert values == [expected(k) for k in range(4)]
    finally:
        # terminate() kills hung workers too (SIGTERM).
        pool.terminate()
        pool.join()

"""Which arena is current: the calling context's, as with
`decimal.localcontext`. An asyncio task that awaits inside an arena block
does not impose the arena on other tasks; threads have their own; every
allocating function and method takes its buffer from the current arena."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import donate

BIG = (1 << 18,)  # 1 MiB of float32: far past a 1 KiB budget


def test_an_awaiting_task_does_not_impose_its_arena_on_others() -> None:
    order: list[str] = []

    async def small_budget() -> None:
        with donate.arena(max_bytes=1024) as ar:
            donate.zeros((16,))
            order.append("entered")
            await asyncio.sleep(0.01)  # the other task runs now
            with pytest.raises(MemoryError):
                donate.zeros(BIG)  # still inside its own block
            assert ar.stats()["misses"] >= 1
        order.append("left")

    async def free_task() -> None:
        await asyncio.sleep(0)
        assert order == ["entered"]
        t = donate.zeros(BIG)  # not from the other task's arena
        u = (t + 1).relu()
        assert u.shape == BIG
        order.append("allocated")

    async def main() -> None:
        await asyncio.gather(small_budget(), free_task())

    asyncio.run(main())
    assert order == ["entered", "allocated", "left"]


def test_a_thread_does_not_see_another_threads_arena() -> None:
    result: list[Any] = []

    def work() -> None:
        try:
            result.append(donate.zeros(BIG).shape)
        except BaseException as e:  # reported below
            result.append(e)

    with donate.arena(max_bytes=1024):
        t = threading.Thread(target=work)
        t.start()
        t.join()
    assert result == [BIG]


def test_a_context_manager_wrapping_an_arena_applies_to_its_block() -> None:
    @contextlib.contextmanager
    def budget(n: int) -> Iterator[donate.Arena]:
        with donate.arena(max_bytes=n) as ar:
            yield ar

    with budget(1024) as ar:
        with pytest.raises(MemoryError):
            donate.zeros(BIG)
        x = donate.zeros((16,))
        assert ar.stats()["live_bytes"] == 64
    assert donate.zeros(BIG).shape == BIG
    with contextlib.ExitStack() as stack:
        ar2 = stack.enter_context(donate.arena())
        y = donate.zeros((16,))
        assert ar2.stats()["live_bytes"] == 64
    del x, y


def test_a_generator_that_leaves_its_block_before_yielding_leaks_nothing() -> None:
    def gen() -> Iterator[int]:
        for i in range(3):
            with donate.arena(max_bytes=1024):
                donate.zeros((16,))
            yield i

    it = gen()
    next(it)
    assert donate.zeros(BIG).shape == BIG
    assert list(it) == [1, 2]


def test_a_context_run_sees_the_arena_of_its_context_only() -> None:
    import contextvars

    ctx = contextvars.copy_context()  # before the block: no arena
    with donate.arena(max_bytes=1024):
        assert ctx.run(lambda: donate.zeros(BIG).shape) == BIG
        with pytest.raises(MemoryError):
            donate.zeros(BIG)


def arr() -> donate.Tensor:
    return donate.tensor(np.arange(64, dtype=np.float32).reshape(8, 8))


# Every way to get a new buffer from the Python API.
ALLOCATING: list[tuple[str, Callable[[], Any]]] = [
    ("zeros", lambda: donate.zeros((8, 8))),
    ("ones", lambda: donate.ones((8, 8))),
    ("empty", lambda: donate.empty((8, 8))),
    ("full", lambda: donate.full((8, 8), 2.0)),
    ("arange", lambda: donate.arange(64)),
    ("tensor", lambda: donate.tensor([[1.0, 2.0]])),
    ("asarray", lambda: donate.asarray(np.ones(8))),
    ("from_numpy", lambda: donate.from_numpy(np.ones(8))),
    ("copy", lambda: ARG.copy()),
    ("astype", lambda: ARG.astype("float64")),
    ("getitem with an array", lambda: ARG[[1, 3]]),
    ("contiguous of a transpose", lambda: ARG.transpose().contiguous()),
    ("relu of a transpose", lambda: ARG.transpose().relu()),
    ("relu", lambda: ARG.relu()),
    ("add", lambda: ARG + 1),
    ("add numpy", lambda: ARG + np.ones(8, np.float32)),
    ("sum", lambda: ARG.sum(0)),
    ("matmul", lambda: ARG @ ARG),
    ("softmax", lambda: ARG.softmax()),
    ("layer_norm", lambda: ARG.layer_norm()),
    ("conv2d", lambda: donate.conv2d(donate.ones((1, 1, 4, 4)), donate.ones((1, 1, 3, 3)))),
    ("batch_norm", lambda: donate.batch_norm(ARG, donate.zeros(8), donate.ones(8))),
]
ARG = arr()


@pytest.mark.parametrize(("name", "make"), ALLOCATING, ids=[a[0] for a in ALLOCATING])
def test_every_allocation_comes_from_the_current_arena(name: str, make: Callable[[], Any]) -> None:
    ar = donate.arena()
    with ar:
        r = make()
        assert ar.stats()["live_bytes"] > 0, f"{name} allocated outside the arena"
    del r
    assert ar.stats()["live_bytes"] == 0


def test_a_write_through_an_exported_buffer_computes_in_the_current_arena() -> None:
    t = arr()
    view = t.numpy()
    ptr = t.data_ptr()
    ar = donate.arena()
    with ar:
        t.relu_()  # shared with `view`: computed aside, written through
        # The scratch buffer came from the arena and went back to it.
        assert ar.stats()["live_bytes"] == 0
        assert ar.stats()["misses"] + ar.stats()["hits"] >= 1
    assert t.data_ptr() == ptr
    np.testing.assert_array_equal(view, np.maximum(view, 0))
    del view, t

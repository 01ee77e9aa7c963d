"""Arenas, memory statistics and inspection."""

from __future__ import annotations

import numpy as np
import pytest

import donate


def test_memory_stats_keys_and_peak(stats) -> None:
    keys = {"live_bytes", "peak_bytes", "allocations", "reused_bytes", "implicit_donations",
            "explicit_donations", "donation_fallbacks", "in_place_ops"}
    assert keys <= set(donate.memory_stats())
    donate.reset_peak_memory()
    base = donate.memory_stats()
    assert base["peak_bytes"] == base["live_bytes"]
    t = donate.zeros((1000,))
    u = t + 1
    del u
    st = donate.memory_stats()
    assert st["peak_bytes"] - base["live_bytes"] == 8000
    assert st["live_bytes"] - base["live_bytes"] == 4000
    donate.reset_peak_memory()
    assert donate.memory_stats()["peak_bytes"] == st["live_bytes"]
    s = stats()
    t.relu_()
    (t + 1).relu()
    assert s["in_place_ops"] == 1 and s["reused_bytes"] == 8000


def test_ownership_inspection() -> None:
    t = donate.ones((4,))
    assert t.is_exclusive and t.ownership == {"handles": 1, "exports": 0, "pinned": False, "donated": False, "writer": False, "consumed_by": None}
    r = t.reshape(2, 2)
    v = np.asarray(t)
    o = t.ownership
    assert (o["handles"], o["exports"]) == (2, 1) and not t.is_exclusive
    del r, v
    assert t.is_exclusive


def test_arena_serves_and_takes_back_buffers() -> None:
    with donate.arena(max_bytes=1 << 20) as ar:
        a = donate.zeros((1000,))  # 4000 B -> a 4096 B block
        assert ar.stats()["live_bytes"] == 4096 and ar.stats()["misses"] == 1
        p = a.data_ptr()
        del a
        assert ar.stats()["free_bytes"] == 4096
        b = donate.ones((900,))
        assert b.data_ptr() == p and ar.stats()["hits"] == 1
        st = ar.stats()
        assert set(st) == {"live_bytes", "peak_bytes", "free_bytes", "hits", "misses", "max_bytes"}
        assert st["max_bytes"] == 1 << 20
    assert b.tolist() == [1.0] * 900  # outlives the block
    c = donate.zeros((1000,))
    assert ar.stats()["live_bytes"] == 4096, "outside the block nothing comes from the arena"
    del b, c
    assert ar.stats()["live_bytes"] == 0
    ar.clear()
    assert ar.stats()["free_bytes"] == 0


def test_arena_budget_raises_memory_error_naming_request_and_budget() -> None:
    with donate.arena(max_bytes=10_000) as ar:
        _a = donate.zeros((1000,))
        with pytest.raises(MemoryError, match=r"requested 8000 bytes.*max_bytes=10000"):
            donate.zeros((2000,))
        assert ar.stats()["live_bytes"] == 4096


def test_nested_and_out_of_order_arenas() -> None:
    outer = donate.arena()
    inner = donate.arena()
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)  # out of order: inner stays current
    t = donate.zeros((16,))
    assert inner.stats()["live_bytes"] == 64 and outer.stats()["live_bytes"] == 0
    inner.__exit__(None, None, None)
    u = donate.zeros((16,))
    assert inner.stats()["live_bytes"] == 64
    del t, u


def test_a_fresh_process_starts_with_zero_counters() -> None:
    # Import runs a few operations of its own (to learn the interpreter's
    # temporary paths); they must not show in the statistics.
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", "import donate, json; print(json.dumps(donate.memory_stats()))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert set(json.loads(out).values()) == {0}

"""``donate.memory_timeline()``: one record per operation, made in the core
at the end of the operation, with the live bytes of that moment and how
the result was made; recording never changes what is donated."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import donate


def kinds(tl: donate.MemoryTimeline) -> list[tuple[str, str]]:
    return [(r["op"], r["result"]) for r in tl.records]


def test_each_way_a_result_is_made_is_recorded() -> None:
    a = donate.ones((64, 64))
    b = donate.ones((64, 64))
    with donate.memory_timeline() as tl:
        c = (a + b).relu()  # add: fresh; relu: reuses the temporary
        c += 1  # in place
        d = c.donate() * 2  # donated
        view = d.numpy()
        with pytest.warns(donate.DonationWarning):
            e = d.donate() * 3  # refused (a NumPy view is alive): copied
        f = e.T  # a view
    assert kinds(tl) == [
        ("add", "fresh"),
        ("relu", "reused"),
        ("add", "in_place"),
        ("mul", "donated"),
        ("mul", "copied"),
        ("transpose", "view"),
    ]
    del view, f


def test_live_bytes_are_the_bytes_live_after_each_operation() -> None:
    a = donate.ones((256,))  # 1 KiB
    base = donate.memory_stats()["live_bytes"]
    with donate.memory_timeline() as tl:
        b = a + 1
        c = b * 2
        del b
        d = c.relu_donate()
    live = [r["live_bytes"] - base for r in tl.records]
    assert live == [1024, 2048, 1024]
    del d


def test_records_stop_at_the_end_of_the_block_and_timelines_nest() -> None:
    a = donate.ones((8,))
    with donate.memory_timeline() as outer:
        a + 1
        with donate.memory_timeline() as inner:
            a * 2
        a - 3
    a / 4
    assert [r["op"] for r in outer.records] == ["add", "mul", "sub"]
    assert [r["op"] for r in inner.records] == ["mul"]


def test_recording_does_not_change_donation() -> None:
    def program() -> donate.Tensor:
        x = donate.ones((512, 512))
        return ((x * 2).relu() + 1).exp()

    def donations() -> int:
        before = donate.memory_stats()["implicit_donations"]
        program()
        return donate.memory_stats()["implicit_donations"] - before

    plain = donations()
    with donate.memory_timeline() as tl:
        recorded = donations()
    assert plain == recorded == 3
    assert [r["result"] for r in tl.records] == ["fresh", "reused", "reused", "reused"]


def test_jitted_programs_record_each_equation() -> None:
    f = donate.jit(lambda x: (x * 2).relu() + 1, donate_argnums=0)
    x = donate.ones((32,))
    f.lower(x)
    with donate.memory_timeline() as tl:
        f(x)
    assert kinds(tl) == [("mul", "reused"), ("relu", "reused"), ("add", "reused")]


def test_plot_writes_a_png_of_several_timelines(tmp_path: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", donate.DonationWarning)
        with donate.memory_timeline("donation") as on:
            x = donate.ones((64, 64))
            (x * 2).relu().exp()
        with donate.implicit_donation(False), donate.memory_timeline("always copy") as off:
            x = donate.ones((64, 64))
            (x * 2).relu().exp()
    path = tmp_path / "timeline.png"
    on.plot(path, off, title="test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="labels"):
        on.plot(path, off, labels=["one"])
    assert np.array([r["live_bytes"] for r in off.records]).max() > np.array([r["live_bytes"] for r in on.records]).max()

"""Element-wise fusion under ``donate.jit``: a chain of element-wise
operations runs as one pass over memory, with exactly the buffers of the
unfused plan (docs/jit.md, "Fusion"), and results equal eager ones bit for
bit."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import donate


def rn(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + 7 * len(shape) + sum(shape)).standard_normal(shape).astype(np.float32)


@contextlib.contextmanager
def strict() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        yield


def ten_relus(x):
    for _ in range(10):
        x = x.relu()
    return x


def fusion_lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.strip().startswith("fusion[")]


def bits(t: donate.Tensor) -> np.ndarray:
    return t.numpy().view(np.uint32)


# An odd size: not a multiple of the block (4096) nor of the vector lanes.
SHAPE = (301, 299)


@pytest.mark.parametrize("donating", [False, True])
def test_ten_relus_are_one_group_and_allocate_no_intermediate(stats, donating: bool) -> None:
    a = rn(*SHAPE)
    jf = donate.jit(ten_relus, donate_argnums=0 if donating else ())
    with strict():
        low = jf.lower(donate.tensor(a))
    text = low.as_text()
    assert fusion_lines(text) == [fusion_lines(text)[0]] and fusion_lines(text)[0].startswith(
        "fusion[" + ", ".join(["relu"] * 10) + "]"
    ), text
    # Every equation is still listed, with the buffer it writes.
    assert sum(" = relu " in ln for ln in text.splitlines()) == 10, text
    ma = low.memory_analysis()
    assert ma.temp_size_in_bytes == 0
    assert ma.peak_memory_in_bytes == a.nbytes * (1 if donating else 2)
    assert ma.peak_lower_bound_in_bytes == ma.peak_memory_in_bytes
    eager = ten_relus(donate.tensor(a))
    x = donate.tensor(a)
    px = x.data_ptr()
    s = stats()
    with strict():
        y = jf(x)
    # Donated: the result is the argument's buffer, nothing allocated;
    # else one buffer, the result's.
    assert s["allocations"] == (0 if donating else 1)
    assert (y.data_ptr() == px) is donating
    assert x.is_donated is donating
    np.testing.assert_array_equal(bits(y), bits(eager))
    if not donating:
        np.testing.assert_array_equal(x.numpy(), a)


def test_the_jaxpr_stays_the_unfused_program() -> None:
    jaxpr = str(donate.make_jaxpr(ten_relus)(donate.tensor(rn(4, 5))))
    assert "fusion" not in jaxpr
    assert jaxpr.count(" relu ") == 10, jaxpr


CHAINS: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "scale shift relu tanh": (lambda x: ((x * 2).relu() + 1).tanh(), (rn(*SHAPE),)),
    "residual gelu": (lambda x, y: ((x * 0.5 + y).gelu() - y) * 3, (rn(*SHAPE), rn(*SHAPE, seed=1))),
    "scalar on the left": (lambda x: donate.sigmoid(1.5 - x) / (2.0 + donate.exp(-x)), (rn(*SHAPE),)),
    "maximum minimum": (lambda x, y: donate.minimum(donate.maximum(x * y, -0.25), y.abs()), (rn(*SHAPE), rn(*SHAPE, seed=2))),
    "nan from log and sqrt": (lambda x: donate.sqrt(donate.log(x - 0.5) * 2), (rn(*SHAPE),)),
    "one element": (lambda x: (x * 2).relu().exp(), (rn(1),)),
    # A bias row (and a [1, d] scale) broadcast over the rows.
    "bias gelu scale": (lambda x, b, s: (x + b).gelu() * s - 0.5, (rn(*SHAPE), rn(SHAPE[1], seed=3), rn(1, SHAPE[1], seed=4))),
}


@pytest.mark.parametrize("name", list(CHAINS))
@pytest.mark.parametrize("donating", [False, True])
def test_fused_chains_equal_eager_bit_for_bit_and_peak_as_planned(name: str, donating: bool) -> None:
    fn, arrays = CHAINS[name]
    want = fn(*(donate.tensor(a) for a in arrays))
    jf = donate.jit(fn, donate_argnums=0 if donating else ())
    with strict():
        low = jf.lower(*(donate.tensor(a) for a in arrays))
    assert fusion_lines(low.as_text()), low.as_text()
    ma = low.memory_analysis()
    args = [donate.tensor(a) for a in arrays]
    ptr = args[0].data_ptr()
    argbytes = sum(a.nbytes for a in arrays)
    mismatches = donate.memory_stats()["plan_mismatches"]
    live = donate.memory_stats()["live_bytes"]
    donate.reset_peak_memory()
    with strict():
        got = jf(*args)
    assert donate.memory_stats()["plan_mismatches"] == mismatches
    measured = donate.memory_stats()["peak_bytes"] - live + argbytes
    assert measured == ma.peak_memory_in_bytes, (measured, low.as_text())
    assert ma.peak_lower_bound_in_bytes <= ma.peak_memory_in_bytes
    np.testing.assert_array_equal(got.numpy().view(np.uint32), want.numpy().view(np.uint32))
    if donating and list(low.aliases):
        assert got.data_ptr() == ptr


def test_a_bias_added_after_a_matmul_fuses_with_the_activation() -> None:
    # The matmul's new buffer is written once more, by one pass of bias and
    # GELU, as eager code would write it twice.
    def f(x, w, b):
        return (x @ w + b).gelu()

    arrays = (rn(67, 96), rn(96, 130, seed=5), rn(130, seed=6))
    want = f(*(donate.tensor(a) for a in arrays))
    jf = donate.jit(f)
    low = jf.lower(*(donate.tensor(a) for a in arrays))
    assert [ln.split(" #")[0] for ln in fusion_lines(low.as_text())] == ["fusion[add, gelu]"], low.as_text()
    args = [donate.tensor(a) for a in arrays]
    live = donate.memory_stats()["live_bytes"]
    donate.reset_peak_memory()
    with strict():
        got = jf(*args)
    measured = donate.memory_stats()["peak_bytes"] - live + sum(a.nbytes for a in arrays)
    assert measured == low.memory_analysis().peak_memory_in_bytes
    np.testing.assert_array_equal(bits(got), bits(want))


def test_an_intermediate_returned_is_not_fused_over() -> None:
    def f(x):
        t = (x * 2).relu()
        return t, t + 1

    low = donate.jit(f).lower(donate.tensor(rn(8, 8)))
    # `t` ends its group: the `add` that reads it after is not fused over it.
    lines = fusion_lines(low.as_text())
    assert [ln.split(" #")[0] for ln in lines] == ["fusion[mul, relu]"], low.as_text()
    t, u = donate.jit(f)(donate.tensor(rn(8, 8)))
    np.testing.assert_array_equal(u.numpy(), t.numpy() + np.float32(1))

"""Threads: many threads on shared tensors (kernels run with the GIL
released), racing donations of one tensor, one arena from several threads."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import donate
from helpers import run_threads


def test_eight_threads_run_thousands_of_mixed_ops_on_shared_tensors() -> None:
    n = 1 << 14
    base = np.linspace(-4.0, 4.0, n, dtype=np.float32)
    mat = base[: 64 * 64].reshape(64, 64) / 8
    a = donate.tensor(base)  # read by every thread
    m = donate.tensor(mat)
    counter = donate.zeros((n,))  # every thread adds to it in place
    adds = [0] * 8
    iterations = 400

    def work(k: int) -> None:
        rng = np.random.default_rng(k)
        last = -1.0
        for _ in range(iterations):
            op = int(rng.integers(0, 10))
            if op == 0:  # implicit donation of temporaries
                got = (a * 2 + 1).relu().numpy()
                np.testing.assert_array_equal(got, np.maximum(base * 2 + 1, 0))
            elif op == 1:
                assert a.sum().item() == pytest.approx(float(base.sum(dtype=np.float64)), abs=1e-2)
            elif op == 2:  # in place on a private copy
                mine = a.copy()
                mine.mul_(3)
                np.testing.assert_array_equal(mine.numpy(), base * 3)
            elif op == 3:  # explicit donation of a private tensor
                mine = a.copy()
                p = mine.data_ptr()
                r = mine.tanh_donate()
                assert r.data_ptr() == p and mine.is_donated
            elif op == 4:  # in place on a shared tensor: serialised per tensor
                counter.add_(1)
                adds[k] += 1
            elif op == 5:  # a snapshot of the shared tensor is never torn
                snap = counter.copy().numpy()  # read whole, under a reader
                assert (snap == snap[0]).all()
                assert snap[0] >= last
                last = float(snap[0])
            elif op == 6:
                np.testing.assert_allclose((m @ m).numpy(), mat @ mat, rtol=1e-5, atol=1e-5)
            elif op == 7:
                got = a.reshape(128, -1).max(axis=1).numpy()
                np.testing.assert_array_equal(got, base.reshape(128, -1).max(axis=1))
            elif op == 8:
                want = np.exp(mat - mat.max(axis=1, keepdims=True))
                want /= want.sum(axis=1, keepdims=True)
                np.testing.assert_allclose(donate.softmax(m).numpy(), want, rtol=1e-5, atol=1e-7)
            else:  # a donated operand next to a shared one
                mine = a.copy()
                r = mine.donate() + a
                np.testing.assert_array_equal(r.numpy(), base * 2)
                assert mine.is_donated

    run_threads(work, 8)
    np.testing.assert_array_equal(counter.numpy(), np.full(n, sum(adds), np.float32))
    np.testing.assert_array_equal(a.numpy(), base)
    np.testing.assert_array_equal(m.numpy(), mat)


def race(t: donate.Tensor, n: int) -> list[tuple[str, donate.Tensor | None]]:
    """Donate `t` from `n` threads at once in four spellings; each outcome is
    ("won", result) when the result took t's buffer, ("copied", result)
    after a DonationWarning, or ("refused", None) on DonatedError."""
    ptr = t.data_ptr()
    results: list[tuple[str, donate.Tensor | None]] = []
    spellings: list[Callable[[], donate.Tensor]] = [
        lambda: t.relu_donate(),
        lambda: t.donate() + 1,
        lambda: donate.relu(t.donate()),
        lambda: 2 * t.donate(),
    ]

    def work(k: int) -> None:
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                r = spellings[k % 4]()
            if w:
                assert all(issubclass(x.category, donate.DonationWarning) for x in w)
                results.append(("copied", r))
            else:
                assert r.data_ptr() == ptr
                results.append(("won", r))
        except donate.DonatedError:
            results.append(("refused", None))

    run_threads(work, n)
    return results


def test_racing_explicit_donations_have_exactly_one_winner() -> None:
    # With the GIL, a donation's read-plan-claim steps rarely interleave; on
    # free-threaded builds they do, and the per-tensor donor gate is what
    # keeps this at exactly one winner (without it every donor could see
    # the others' handles and fall back to a copy).
    for _ in range(50):
        t = donate.ones((1 << 15,))
        results = race(t, 8)
        kinds = sorted(k for k, _ in results)
        assert kinds == ["refused"] * 7 + ["won"], kinds
        assert t.is_donated
        (r,) = [r for k, r in results if k == "won"]
        assert r is not None and set(r.numpy().tolist()) <= {1.0, 2.0}


def test_racing_donations_of_a_shared_tensor_all_copy() -> None:
    # A live NumPy view shares the buffer: no donation may win, nobody loses
    # data, and the tensor and the view keep their values.
    for _ in range(20):
        t = donate.ones((1 << 15,))
        v = t.numpy()
        results = race(t, 8)
        assert all(k in ("copied", "refused") for k, _ in results)
        assert any(k == "copied" for k, _ in results)
        assert not t.is_donated and t.sum().item() == 1 << 15
        assert (v == 1).all()
        for k, r in results:
            if r is not None:
                assert r.data_ptr() != t.data_ptr()


def test_one_arena_from_several_threads() -> None:
    ar = donate.arena(max_bytes=1 << 24)
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            with ar:
                for _ in range(200):
                    x = donate.full((256,), float(k))
                    y = (x + 1).relu()
                    assert y.tolist()[0] == k + 1
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert ar.stats()["live_bytes"] == 0 and ar.stats()["hits"] > 0


def test_threads_share_tensors_without_crashes_or_wrong_values() -> None:
    a = donate.tensor(np.arange(1 << 16, dtype=np.float32))
    want = np.arange(1 << 16, dtype=np.float32)
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            for _ in range(50):
                np.testing.assert_array_equal((a * 2).numpy(), want * 2)
                assert a.sum().item() == float(want.sum(dtype=np.float64))
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    def writer() -> None:
        try:
            for _ in range(50):
                b = a.copy()
                b += 1
                b.relu_()
                np.testing.assert_array_equal(b.numpy(), want + 1)
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=f) for f in (reader, reader, writer, writer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    np.testing.assert_array_equal(a.numpy(), want)



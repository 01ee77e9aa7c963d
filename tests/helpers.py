"""Helpers shared by the test files."""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import donate


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


def same(got: Any, want: Any, signed_zeros: bool = True) -> None:
    """`got` is a donate tensor of `want`'s dtype, shape and values (NaN
    where `want` has NaN; with `signed_zeros`, the sign of every zero)."""
    assert isinstance(got, donate.Tensor), type(got)
    g, want = np.asarray(got), np.asarray(want)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    np.testing.assert_array_equal(g, want)
    if signed_zeros and want.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(g), np.signbit(want))


def unchanged(t: donate.Tensor, a: np.ndarray) -> None:
    """`t` is not donated and still holds `a`."""
    assert not t.is_donated
    same(t, a)


@contextlib.contextmanager
def strict() -> Iterator[None]:
    """Every DonationWarning is an error inside."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", donate.DonationWarning)
        yield

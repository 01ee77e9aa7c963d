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


def close(got: Any, want: Any, rtol: float = 1e-12) -> None:
    """`got` is a donate tensor (or a tuple or list of them, as `want`) of
    `want`'s dtype and shape, within `rtol` of its values (exact for
    integers and bools)."""
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), type(got)
        for g, w in zip(got, want):
            close(g, w, rtol)
        return
    assert isinstance(got, donate.Tensor), type(got)
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    exact = w.dtype.kind in "iub" or rtol == 0
    np.testing.assert_allclose(g, w, rtol=rtol, atol=0 if exact else 1e-12)


def raises_as_numpy(f: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """`f` of `args` with the NumPy arrays among them as tensors raises
    the class of error `f` of `args` raises."""
    import pytest

    with pytest.raises(Exception) as want:
        f(*args)
    with pytest.raises(want.type):
        f(*(donate.asarray(a) if isinstance(a, np.ndarray) else a for a in args))

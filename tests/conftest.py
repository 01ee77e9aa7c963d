"""Shared fixtures for the Python tests."""

from __future__ import annotations

import os

# SciPy reads this once, when scipy is first imported (scikit-learn's
# array-API dispatch needs SciPy's); tests/clients runs SciPy and
# scikit-learn on donate tensors.
os.environ.setdefault("SCIPY_ARRAY_API", "1")

from collections.abc import Iterator  # noqa: E402

import pytest
from hypothesis import settings

import donate

# Generated tests are reproducible by default (the same examples on every
# run, no timing deadline on this noisy machine); `--hypothesis-profile
# explore` searches further with fresh random examples.
settings.register_profile("default", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", max_examples=2000, deadline=None, print_blob=True)
settings.load_profile("default")


@pytest.fixture(autouse=True)
def implicit_everywhere() -> Iterator[None]:
    """Consider temporaries of every size for implicit donation, so that
    small test tensors exercise the same paths as large ones; restore the
    defaults afterwards."""
    with donate.implicit_donation(True, min_bytes=0):
        yield


class StatsDelta:
    """Difference of `donate.memory_stats()` since construction."""

    def __init__(self) -> None:
        self.start = donate.memory_stats()

    def __getitem__(self, key: str) -> int:
        return int(donate.memory_stats()[key] - self.start[key])


@pytest.fixture
def stats() -> type[StatsDelta]:
    return StatsDelta

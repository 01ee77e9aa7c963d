"""Shared fixtures for the Python tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import donate


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

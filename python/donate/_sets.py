"""The array API's set functions: the core's unique elements of a tensor
(``donate._core._unique``, one pass giving values, first indices, inverse
indices and counts) under the standard's names, as named tuples.

Values come sorted; each NaN is a value of its own (count 1); indices
and counts are int64; ``inverse_indices`` has the input's shape.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import _core


class UniqueAllResult(NamedTuple):
    values: _core.Tensor
    indices: _core.Tensor
    inverse_indices: _core.Tensor
    counts: _core.Tensor


class UniqueCountsResult(NamedTuple):
    values: _core.Tensor
    counts: _core.Tensor


class UniqueInverseResult(NamedTuple):
    values: _core.Tensor
    inverse_indices: _core.Tensor


def unique_all(x: Any, /) -> UniqueAllResult:
    """The unique elements of ``x``, the flat index of each one's first
    occurrence, the index of each element's value, and the counts."""
    return UniqueAllResult(*_core._unique(x, "unique_all"))


def unique_counts(x: Any, /) -> UniqueCountsResult:
    """The unique elements of ``x`` and how often each occurs."""
    values, _, _, counts = _core._unique(x, "unique_counts")
    return UniqueCountsResult(values, counts)


def unique_inverse(x: Any, /) -> UniqueInverseResult:
    """The unique elements of ``x`` and, for each element, the index of its
    value (``x``'s shape)."""
    values, _, inverse, _ = _core._unique(x, "unique_inverse")
    return UniqueInverseResult(values, inverse)


def unique_values(x: Any, /) -> _core.Tensor:
    """The unique elements of ``x``, sorted."""
    return _core._unique(x, "unique_values")[0]

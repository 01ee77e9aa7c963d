"""Helpers shared by the tests in tests/clients (imported as `_clients_util`)."""

from __future__ import annotations

import array_api_compat
import numpy as np

import donate


def assert_donate(result: object) -> None:
    """`result` is a donate tensor (not a NumPy array, not a NumPy scalar)."""
    __tracebackhide__ = True
    assert type(result) is donate.Tensor, (
        f"expected a donate.Tensor, got {type(result).__module__}.{type(result).__qualname__}"
    )
    assert array_api_compat.array_namespace(result) is donate


def to_numpy(result: object) -> np.ndarray:
    """A donate tensor (or anything NumPy understands) as a NumPy array."""
    if type(result) is donate.Tensor:
        return result.numpy()
    return np.asarray(result)


def assert_matches(result: object, expected: object, *, rtol: float, atol: float = 0.0) -> None:
    """`result` is a donate tensor equal (to `rtol`/`atol`) to the NumPy `expected`,
    with the same shape and dtype."""
    __tracebackhide__ = True
    assert_donate(result)
    expected = np.asarray(expected)
    got = to_numpy(result)
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    assert got.dtype == expected.dtype, f"dtype {got.dtype} != {expected.dtype}"
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


"""Dask's array backend "donate": ``dask.config.set({"array.backend":
"donate"})`` makes Dask's creation functions (``da.ones``, ``da.zeros``,
``da.empty``, ``da.full``, ``da.arange``) build donate chunks, and
``x.to_backend("donate")`` converts an array's chunks.

Dask finds this class through the ``dask.array.backends`` entry point in
``pyproject.toml``; nothing here is imported unless Dask asks for it.
Everything else Dask does with chunks (``np.concatenate``, ``np.sum``,
``np.exp``, ``@``, ...) reaches donate through NumPy's protocols
(``python/donate/_numpy.py``), so chunks stay donate tensors end to end.

Limitation: donate has no random number generator, so ``da.random``
makes NumPy chunks under this backend too (``.to_backend("donate")``
converts them).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from dask import config
from dask.array.backends import ArrayBackendEntrypoint
from dask.utils import Dispatch

import donate

to_donate_dispatch = Dispatch("to_donate_dispatch")


@to_donate_dispatch.register(np.ndarray)
def _numpy_to_donate(data: np.ndarray, **kwargs: Any) -> donate.Tensor:
    return donate.asarray(data, **kwargs)


@to_donate_dispatch.register(donate.Tensor)
def _donate_to_donate(data: donate.Tensor, **kwargs: Any) -> donate.Tensor:
    return data


def _meta(meta: Any, dtype: Any = None) -> Any:
    """A 0-d donate tensor as Dask's `meta` (the chunk type to make)."""
    if meta is not None:
        return meta
    return donate.empty((), dtype=np.dtype(dtype) if dtype is not None else None)


def _create(function: str, /, *args: Any, meta: Any = None, **kwargs: Any) -> Any:
    # Dask's NumPy code path with a donate `meta`: each chunk is made by
    # `np.ones_like(meta, ...)` and the like, which NumPy's protocols
    # answer with donate tensors.
    import dask.array as da

    with config.set({"array.backend": "numpy"}):
        return getattr(da, function)(*args, meta=_meta(meta, kwargs.get("dtype")), **kwargs)


class DonateBackendEntrypoint(ArrayBackendEntrypoint):
    """Dask's array backend entry point for donate tensors."""

    @classmethod
    def to_backend_dispatch(cls) -> Dispatch:
        return to_donate_dispatch

    @classmethod
    def to_backend(cls, data: Any, **kwargs: Any) -> Any:
        if isinstance(data._meta, donate.Tensor):
            return data
        meta = donate.empty((0,) * data.ndim, dtype=data.dtype)
        return data.map_blocks(cls.to_backend_dispatch(), meta=meta, **kwargs)

    @property
    def RandomState(self) -> Any:
        return np.random.RandomState

    @property
    def default_bit_generator(self) -> Any:
        return np.random.PCG64

    @staticmethod
    def ones(*args: Any, **kwargs: Any) -> Any:
        return _create("ones", *args, **kwargs)

    @staticmethod
    def zeros(*args: Any, **kwargs: Any) -> Any:
        return _create("zeros", *args, **kwargs)

    @staticmethod
    def empty(*args: Any, **kwargs: Any) -> Any:
        return _create("empty", *args, **kwargs)

    @staticmethod
    def full(*args: Any, **kwargs: Any) -> Any:
        return _create("full", *args, **kwargs)

    @staticmethod
    def arange(*args: Any, like: Any = None, meta: Any = None, **kwargs: Any) -> Any:
        import dask.array as da

        with config.set({"array.backend": "numpy"}):
            x = da.arange(*args, like=_meta(like if like is not None else meta), **kwargs)
        return DonateBackendEntrypoint.to_backend(x)

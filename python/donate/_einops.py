"""einops' backend for donate tensors: ``einops.rearrange``, ``reduce``,
``repeat``, ``pack``, ``unpack`` and ``einsum`` on donate tensors.

einops has no registry: when it meets a tensor type it does not know, it
looks through the subclasses of ``AbstractBackend`` whose framework is
imported. Defining this class is the registration, so ``donate`` imports
this module when einops is installed (a few milliseconds). Each method
is one call of donate's namespace.
"""

from __future__ import annotations

from typing import Any

from einops._backends import AbstractBackend

import donate


class DonateBackend(AbstractBackend):  # type: ignore[misc]
    framework_name = "donate"

    def __init__(self) -> None:
        self.xp = donate

    def is_appropriate_type(self, tensor: Any) -> bool:
        return isinstance(tensor, donate.Tensor)

    def from_numpy(self, x: Any) -> Any:
        return donate.asarray(x)

    def to_numpy(self, x: Any) -> Any:
        return x.numpy()

    def arange(self, start: int, stop: int) -> Any:
        return donate.arange(start, stop)

    def shape(self, x: Any) -> tuple[int, ...]:
        return tuple(x.shape)

    def reshape(self, x: Any, shape: Any) -> Any:
        return donate.reshape(x, tuple(shape))

    def transpose(self, x: Any, axes: Any) -> Any:
        return donate.permute_dims(x, tuple(axes))

    def reduce(self, x: Any, operation: str, axes: Any) -> Any:
        return getattr(donate, operation)(x, axis=tuple(axes))

    def stack_on_zeroth_dimension(self, tensors: list[Any]) -> Any:
        return donate.stack(tensors)

    def add_axis(self, x: Any, new_position: int) -> Any:
        return donate.expand_dims(x, axis=new_position)

    def tile(self, x: Any, repeats: Any) -> Any:
        return donate.tile(x, tuple(repeats))

    def concat(self, tensors: list[Any], axis: int) -> Any:
        return donate.concat(tensors, axis=axis)

    def is_float_type(self, x: Any) -> bool:
        return bool(donate.isdtype(x.dtype, "real floating"))

    def einsum(self, pattern: str, *x: Any) -> Any:
        return donate.einsum(pattern, *x)

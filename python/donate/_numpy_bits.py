"""NumPy's bit packing on tensors: `np.packbits` (each run of 8 truth
values along an axis as the bits of a uint8, the last run padded with
zeros) and `np.unpackbits` (the bits of uint8 values, optionally `count`
of them). Translation only: shifts, masks, sums and reshapes of donate's,
in either `bitorder` ('big': the first value is the most significant
bit, NumPy's default; 'little').
"""

from __future__ import annotations

import operator
from typing import Any

import donate as _dn

from ._numpy_operands import _as_tensor

NAMES = ["packbits", "unpackbits"]


def _bit_order(bitorder: str) -> bool:
    """True for 'little'; NumPy accepts any spelling starting with b or l."""
    if not isinstance(bitorder, str) or bitorder[:1].lower() not in ("b", "l"):
        raise ValueError("'order' must be either 'little' or 'big'")
    return bitorder[:1].lower() == "l"


def _axis(t: Any, axis: Any) -> tuple[Any, int]:
    if axis is None:
        return _dn.reshape(t, (-1,)), 0
    axis = operator.index(axis)
    if not -t.ndim <= axis < t.ndim:
        raise _dn.AxisError(f"axis {axis} is out of bounds for array of dimension {t.ndim}")
    return t, axis % t.ndim


def packbits(a: Any, axis: Any = None, bitorder: str = "big") -> Any:
    """NumPy's `packbits`: the truth of each element as one bit, 8 to a
    uint8 along `axis` (the flattened array when None)."""
    little = _bit_order(bitorder)
    t = _as_tensor(a)
    if not (t.dtype == _dn.bool or _dn.isdtype(t.dtype, "integral")):
        raise TypeError("Expected an input array of integer or boolean data type")
    t, axis = _axis(t, axis)
    bits = _dn.moveaxis(_dn.astype(t != 0, _dn.uint8), axis, -1)
    n = bits.shape[-1]
    pad = -n % 8
    if pad:
        bits = _dn.concat([bits, _dn.zeros((*bits.shape[:-1], pad), dtype=_dn.uint8)], axis=-1)
    groups = _dn.reshape(bits, (*bits.shape[:-1], (n + pad) // 8, 8))
    shifts = _dn.arange(8, dtype=_dn.uint8) if little else _dn.arange(7, -1, -1, dtype=_dn.uint8)
    packed = _dn.sum(groups << shifts, axis=-1, dtype=_dn.uint8)
    return _dn.moveaxis(packed, -1, axis)


def unpackbits(a: Any, axis: Any = None, count: Any = None, bitorder: str = "big") -> Any:
    """NumPy's `unpackbits`: each uint8 as its 8 bits (0 or 1, uint8)
    along `axis` (the flattened array when None), cut to `count` bits
    (negative: that many fewer; more: padded with zeros)."""
    little = _bit_order(bitorder)
    t = _as_tensor(a)
    if t.dtype != _dn.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    t, axis = _axis(t, axis)
    moved = _dn.moveaxis(t, axis, -1)
    shifts = _dn.arange(8, dtype=_dn.uint8) if little else _dn.arange(7, -1, -1, dtype=_dn.uint8)
    bits = (_dn.expand_dims(moved, axis=-1) >> shifts) & 1
    bits = _dn.reshape(bits, (*moved.shape[:-1], moved.shape[-1] * 8))
    if count is not None:
        count = operator.index(count)
        total = bits.shape[-1]
        keep = count if count >= 0 else total + count
        if keep < 0:
            raise ValueError(f"-count larger than number of elements")
        if keep <= total:
            bits = bits[..., :keep]
        else:
            bits = _dn.concat([bits, _dn.zeros((*bits.shape[:-1], keep - total), dtype=_dn.uint8)],
                              axis=-1)
    return _dn.moveaxis(bits, -1, axis)

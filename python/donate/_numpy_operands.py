"""The operand helpers of NumPy's protocols (``_numpy.py``) and of the
NumPy functions they call: NumPy arrays and scalars read as tensors,
NumPy's ``dtype=`` and ``out=`` keywords, keywords donate refuses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import donate as _dn  # the namespace; complete when this module loads (last in __init__)

Tensor = _dn.Tensor
_NoValue: Any = getattr(np, "_NoValue", object())

# --------------------------------------------------------------- operands ---


def _tensor(x: Any) -> Any:
    """`x` as a donate operand: tensors and Python numbers as they are,
    NumPy arrays and NumPy scalars (which have a dtype, NEP 50) as tensors."""
    if isinstance(x, (Tensor, _dn.Donated)):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        return _dn.asarray(x)
    return x


def _as_tensor(x: Any) -> Any:
    """`x` as a tensor (numbers too)."""
    x = _tensor(x)
    return x if isinstance(x, (Tensor, _dn.Donated)) else _dn.asarray(x)


def _dtype(dtype: Any) -> Any:
    return None if dtype is None else np.dtype(dtype)


def _cast(x: Any, dtype: Any) -> Any:
    """`x` in `dtype` (NumPy's `dtype=` keyword: the dtype computed in)."""
    if dtype is None:
        return _tensor(x)
    return _dn.astype(_as_tensor(x), np.dtype(dtype))


def _refuse(name: str, what: str) -> TypeError:
    return TypeError(f"numpy.{name} on donate tensors: {what} is not supported")


def _write_out(name: str, out: Any, result: Any, casting: Any = "unsafe") -> Any:
    """Write `result` into `out` (a tensor, in place; or a NumPy array) and
    return `out`; `casting` is checked first, as NumPy's ufuncs check it."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise _refuse(name, f"out= with {len(out)} arrays")
        (out,) = out
    if out is None:
        return result
    rdt = result.dtype if hasattr(result, "dtype") else np.result_type(result)
    if not np.can_cast(rdt, out.dtype, casting=casting):
        raise TypeError(
            f"numpy.{name}: cannot cast the result from {rdt} to the out= array's "
            f"{out.dtype} with casting rule {casting!r}"
        )
    if isinstance(out, Tensor):
        out[...] = result
    elif isinstance(out, np.ndarray):
        out[...] = np.asarray(result)
    else:
        raise _refuse(name, f"out= of type {type(out).__name__}")
    return out


def _flat(x: Any) -> Any:
    return _dn.reshape(_as_tensor(x), (-1,))


def _axis_or_flat(x: Any, axis: Any) -> tuple[Any, Any]:
    """NumPy's `axis=None` of functions that then work on the flattened
    array (`cumsum`, `sort`, `take`, `concatenate`, ...)."""
    return (_flat(x), 0) if axis is None else (_as_tensor(x), axis)


def _no(name: str, **given: Any) -> None:
    """Refuse NumPy keywords that were given a value donate cannot honour."""
    for k, v in given.items():
        if v is not _NoValue and v is not None and v is not True:
            raise _refuse(name, f"{k}=")

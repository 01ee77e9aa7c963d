"""``donate.einsum``: Einstein summation as a composition of donate's own
operations, so that every step is planned (dtypes and promotion as
``matmul``'s, donation of temporaries, tracing under ``donate.jit``):

1. each operand's repeated labels become diagonals (``"ii->i"``);
2. labels no other operand or the output needs are summed out;
3. operands are contracted two at a time, left to right, as one batched
   ``matmul`` each (batch labels, kept labels, contracted labels:
   transposed and reshaped to ``(batch, m, k) @ (batch, k, n)``);
4. the result is transposed to the output's order.

Labels are NumPy's: letters, ``...`` for broadcast axes, implicit output
(the labels that appear once, sorted) without ``->``. The contraction
order is left to right, not optimised (``optimize=`` is accepted and
ignored).
"""

from __future__ import annotations

import string
from typing import Any

import donate as _dn


def _parse(subscripts: str, ndims: list[int]) -> tuple[list[str], str]:
    s = subscripts.replace(" ", "")
    inputs, arrow, output = s.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ndims):
        raise ValueError(
            f"einsum: {len(terms)} operand subscripts for {len(ndims)} operands"
        )
    used = set(s)
    spare = [c for c in string.ascii_uppercase + string.ascii_lowercase if c not in used]
    ell_len = max(
        (n - (len(t) - 3) for t, n in zip(terms, ndims) if "..." in t), default=0
    )
    ell = "".join(spare[:ell_len])
    out_terms = []
    for t, n in zip(terms, ndims):
        if "..." in t:
            k = n - (len(t) - 3)
            if k < 0:
                raise ValueError(f"einsum: subscripts {t!r} for an operand of {n} axes")
            t = t.replace("...", ell[ell_len - k:])
        if len(t) != n or not all(c.isalpha() for c in t):
            raise ValueError(f"einsum: subscripts {t!r} for an operand of {n} axes")
        out_terms.append(t)
    if arrow:
        if ell and "..." not in output:
            raise ValueError(
                "einsum: output has more dimensions than subscripts given in einstein sum, "
                "but no '...' ellipsis provided to broadcast the extra dimensions."
            )
        output = output.replace("...", ell)
    else:
        counts: dict[str, int] = {}
        for t in out_terms:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        output = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    if not all(c.isalpha() for c in output) or len(set(output)) != len(output):
        raise ValueError(f"einsum: invalid output subscripts {output!r}")
    for c in output:
        if not any(c in t for t in out_terms):
            raise ValueError(f"einsum: output label {c!r} is in no operand")
    return out_terms, output


def _diagonals(x: Any, labels: str) -> tuple[Any, str]:
    """`x` with each repeated label reduced to its diagonal."""
    while True:
        for i, c in enumerate(labels):
            j = labels.find(c, i + 1)
            if j >= 0:
                break
        else:
            return x, labels
        if x.shape[i] != x.shape[j]:
            raise ValueError(
                f"einsum: dimensions for collapsing index {c!r} don't match "
                f"({x.shape[i]} != {x.shape[j]})"
            )
        x = _dn.linalg.diagonal(_dn.moveaxis(x, (i, j), (-2, -1)))
        labels = "".join(l for k, l in enumerate(labels) if k not in (i, j)) + c


def _sum_out(x: Any, labels: str, keep: set[str]) -> tuple[Any, str]:
    axes = tuple(i for i, c in enumerate(labels) if c not in keep)
    if not axes:
        return x, labels
    return _dn.sum(x, axis=axes), "".join(c for c in labels if c in keep)


def _contract(a: Any, la: str, b: Any, lb: str, keep: set[str]) -> tuple[Any, str]:
    """`a` and `b` contracted over their shared labels not in `keep`."""
    batch = [c for c in la if c in lb and c in keep]
    inner = [c for c in la if c in lb and c not in keep]
    only_a = [c for c in la if c not in lb]
    only_b = [c for c in lb if c not in la]
    size = {**dict(zip(lb, b.shape)), **dict(zip(la, a.shape))}
    for c in batch + inner:  # broadcast (a label of length 1 against one of n)
        size[c] = max(a.shape[la.index(c)], b.shape[lb.index(c)])

    def arrange(x: Any, lx: str, order: list[str], groups: list[list[str]]) -> Any:
        x = _dn.permute_dims(x, tuple(lx.index(c) for c in order))
        x = _dn.broadcast_to(x, tuple(size[c] for c in order))
        dims = []
        for g in groups:
            n = 1
            for c in g:
                n *= size[c]
            dims.append(n)
        return _dn.reshape(x, tuple(dims))

    a3 = arrange(a, la, batch + only_a + inner, [batch, only_a, inner])
    b3 = arrange(b, lb, batch + inner + only_b, [batch, inner, only_b])
    r = _dn.matmul(a3, b3)
    labels = batch + only_a + only_b
    return _dn.reshape(r, tuple(size[c] for c in labels)), "".join(labels)


def einsum(subscripts: str, /, *operands: Any, optimize: Any = False) -> Any:
    """Einstein summation over `operands` as `subscripts` says (NumPy's
    notation); see the module docs for how it is computed."""
    # A `t.donate()` operand is read, not taken: einsum is several
    # operations, and the first one to take `t`'s buffer would leave `t`
    # donated when a later one fails (a shape error) or reads `t` again
    # (`einsum("ij,jk", t.donate(), t)`). Read through a cast to its own
    # dtype, which never writes into its input: the core refuses the
    # donation with a `DonationWarning` and `t` stays intact (when unsure,
    # copy; the NumPy translations' rule, `_numpy_operands.py`).
    xs = [
        _dn.astype(x, x.dtype) if isinstance(x, _dn.Donated)
        else x if isinstance(x, _dn.Tensor) else _dn.asarray(x)
        for x in operands
    ]
    if not xs:
        raise ValueError("einsum: no operands")
    # Every step in the common dtype, as NumPy computes: contracting each
    # operand in its own dtype first wrapped int8 products and overflowed
    # float16 ones before the promotion (`int8 x int64` gave 32 for 20000).
    want = _dn.result_type(*xs)
    xs = [x if x.dtype == want else _dn.astype(x, want) for x in xs]
    terms, output = _parse(subscripts, [x.ndim for x in xs])
    parts = [_diagonals(x, t) for x, t in zip(xs, terms)]
    # Labels each operand must keep: the output's and every other operand's.
    def needed(skip: int) -> set[str]:
        return set(output).union(*(set(t) for k, (_, t) in enumerate(parts) if k != skip))

    parts = [_sum_out(x, t, needed(k)) for k, (x, t) in enumerate(parts)]
    x, lx = parts[0]
    for k in range(1, len(parts)):
        y, ly = parts[k]
        keep = set(output).union(*(set(t) for _, t in parts[k + 1:]))
        x, lx = _contract(x, lx, y, ly, keep)
    x, lx = _sum_out(x, lx, set(output))
    if lx != output:
        x = _dn.permute_dims(x, tuple(lx.index(c) for c in output))
    # NumPy's einsum keeps the common dtype (int32 stays int32, bool is a
    # logical sum of products); the sums above promote as the standard's
    # `sum` does. The cast gives the same values: integer sums wrap modulo
    # the narrower width alike, a nonzero count of bools is True.
    return x if x.dtype == want else _dn.astype(x, want)

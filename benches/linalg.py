"""The determinant functions against NumPy's (LAPACK's LU), side by side in
one process: medians of 9 calls.

    python benches/linalg.py

Prints one line per case: shape, dtype, and the median time of NumPy's and
donate's `det` and `slogdet`, with donate's ratio to NumPy.
"""

from __future__ import annotations

import numpy as np
from timing import median_ms

import donate

CASES = [
    ((8, 8), np.float64),
    ((100, 100), np.float64),
    ((512, 512), np.float64),
    ((1024, 1024), np.float64),
    ((64, 64, 64), np.float64),
    ((512, 512), np.float32),
    ((256, 256), np.complex128),
]


def main() -> None:
    rng = np.random.default_rng(0)
    for shape, dtype in CASES:
        x = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(shape)
        x = x.astype(dtype)
        t = donate.asarray(x)
        row = []
        for name, np_call, dn_call in [
            ("det", lambda: np.linalg.det(x), lambda: donate.linalg.det(t)),
            ("slogdet", lambda: np.linalg.slogdet(x), lambda: donate.linalg.slogdet(t)),
        ]:
            a, b = median_ms(np_call), median_ms(dn_call)
            row.append(f"{name}: NumPy {a:.3f} ms, donate {b:.3f} ms ({b / a:.2f}x)")
        print(f"{str(shape):>14} {np.dtype(dtype).name:>10}  " + "; ".join(row))


if __name__ == "__main__":
    main()

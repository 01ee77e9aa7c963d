"""NumPy's `bincount` and `histogram` on tensors against NumPy's own, side
by side in one process: medians of 15 calls, each making its result.

    python benches/counting.py

Prints one line per case with NumPy's and donate's median times and
donate's ratio to NumPy.
"""

from __future__ import annotations

import numpy as np
from timing import median_ms

import donate


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    x = rng.integers(0, 1000, n)
    w = rng.normal(size=n)
    tx, tw = donate.asarray(x), donate.asarray(w)
    cases = [
        ("bincount, n=1e6, 1000 bins", lambda: np.bincount(x), lambda: np.bincount(tx)),
        ("bincount weighted", lambda: np.bincount(x, weights=w),
         lambda: np.bincount(tx, weights=tw)),
        ("histogram weighted, 50 bins", lambda: np.histogram(w, bins=50, weights=w),
         lambda: np.histogram(tw, bins=50, weights=tw)),
    ]
    for name, f_np, f_dn in cases:
        a, b = median_ms(f_np, calls=15), median_ms(f_dn, calls=15)
        print(f"{name:32s} numpy {a:8.2f} ms  donate {b:8.2f} ms  ratio {b / a:5.2f}")


if __name__ == "__main__":
    main()

"""The Fourier transforms against NumPy's (pocketfft), side by side in one
process: medians of 9 calls, every call making a new
result (page faults of new memory included, as a user's `y = fft(x)`).

    python benches/fft.py

Prints one line per case: shape, axis, and the median time of NumPy's and
donate's `fft` (complex128 input) and `rfft` (float64 input), with
donate's ratio to NumPy; axis `2d` is `fft2` and `rfft2` (donate's
`fftn` and `rfftn` over the last two axes).
"""

from __future__ import annotations

import numpy as np
from timing import median_ms

import donate
import donate.fft as dfft

CASES = [((1 << 20,), -1), ((1024, 1024), -1), ((1024, 1024), 0), ((4096, 1000), -1), ((1024, 1024), None)]


def main() -> None:
    rng = np.random.default_rng(0)
    for shape, axis in CASES:
        x = rng.standard_normal(shape)
        xc = x.astype(np.complex128)
        t, tc = donate.asarray(x), donate.asarray(xc)
        row = []
        calls = [
            ("fft", lambda: np.fft.fft(xc, axis=axis), lambda: dfft.fft(tc, axis=axis)),
            ("rfft", lambda: np.fft.rfft(x, axis=axis), lambda: dfft.rfft(t, axis=axis)),
        ]
        if axis is None:
            calls = [
                ("fft2", lambda: np.fft.fft2(xc), lambda: dfft.fftn(tc, axes=(-2, -1))),
                ("rfft2", lambda: np.fft.rfft2(x), lambda: dfft.rfftn(t, axes=(-2, -1))),
            ]
        for name, np_call, dn_call in calls:
            a, b = median_ms(np_call), median_ms(dn_call)
            row.append(f"{name}: NumPy {a:.2f} ms, donate {b:.2f} ms ({b / a:.2f}x)")
        print(f"{str(shape):>12} axis {'2d' if axis is None else axis:>2}  " + "; ".join(row))


if __name__ == "__main__":
    main()

"""float32 transcendental functions against NumPy: 1024x3072 float32 in
[-0.9, 0.9) (``|x|`` for the logarithms), medians of 9 calls.

One process per instruction set, side by side:
``for isa in scalar avx512; do DONATE_ISA=$isa python benches/func_f32.py; done``
(``scalar`` is the portable copy; a level above the CPU's is capped).
"""
import numpy as np
from timing import median_ms

import donate

NAMES = ["expm1", "log1p", "log2", "log10", "cbrt", "arcsin", "arccos", "arctan", "sinh", "cosh",
         "arcsinh", "arccosh", "arctanh"]


def main():
    rng = np.random.default_rng(0)
    a = rng.random((1024, 3072)).astype(np.float32) * 1.8 - 0.9
    for name in NAMES:
        x = np.abs(a) if name.startswith("log") and name != "log1p" else a
        x = x + 2 if name == "arccosh" else x
        mine = getattr(donate, name.replace("arc", "a"))
        theirs = getattr(np, name)
        t = donate.asarray(x)
        ours, numpys = median_ms(lambda: mine(t)), median_ms(lambda: theirs(x))
        print(f"{name:8s} donate {ours:7.2f} ms  numpy {numpys:7.2f} ms  ratio {ours / numpys:5.2f}")


if __name__ == "__main__":
    main()

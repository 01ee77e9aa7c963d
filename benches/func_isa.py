"""The element-wise functions beyond the hot ops (rounding, trigonometry,
comparisons) against NumPy, 2048x3072 float32, medians of 15 calls.

Run it once per instruction set to compare them side by side:
``for isa in scalar avx2 avx512; do DONATE_ISA=$isa python benches/func_isa.py; done``
(``scalar`` is the portable copy; a level above the CPU's is capped).
"""
import numpy as np
from timing import median_ms

import donate as d

rng=np.random.default_rng(0)
a=rng.standard_normal((2048,3072)).astype(np.float32)*10; b=rng.standard_normal((2048,3072)).astype(np.float32)
da,db=d.asarray(a),d.asarray(b)
def t(f):
    return median_ms(f, calls=15)
for name,f,g in [("floor",lambda: d.floor(da),lambda: np.floor(a)),("round",lambda: d.round(da),lambda: np.round(a)),
  ("sin",lambda: d.sin(da),lambda: np.sin(a)),("atan2",lambda: d.atan2(da,db),lambda: np.arctan2(a,b)),
  ("a**3",lambda: da**3,lambda: a**3),("isnan",lambda: d.isnan(da),lambda: np.isnan(a)),("a<b",lambda: da<db,lambda: a<b),
  ("copysign",lambda: d.copysign(da,db),lambda: np.copysign(a,b)),("floor_div",lambda: da//db,lambda: a//b)]:
    print(f"{name:10s} donate {t(f):8.2f} ms  numpy {t(g):8.2f} ms")

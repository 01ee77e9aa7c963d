"""Every instruction set the CPU offers computes the element-wise functions
bit for bit as the portable copy does.

The float functions' loops are compiled once per instruction set and chosen
at run time (``DONATE_ISA`` caps the choice, read once per process), and
``float32`` sin/cos/tan have their own vector code. The same inputs, one
process per level, must give the same bytes; a level the CPU lacks is
capped to the best it has, so on such a CPU two runs compare the same level
(the Rust tests compare every supported level's loops directly).
"""

import json
import os
import subprocess
import sys

import pytest

import donate

UNARY = ("acos acosh asin asinh atan atanh cos cosh sin sinh tan expm1 log1p log2 log10 "
         "reciprocal cbrt ceil floor round trunc sign square").split()
BINARY = "atan2 copysign hypot logaddexp nextafter floor_divide remainder pow fmod".split()

SCRIPT = r"""
import hashlib, json, sys, warnings
import numpy as np
import donate
warnings.simplefilter("ignore")
unary, binary = json.loads(sys.argv[1])
rng = np.random.default_rng(7)
special = [0.0, -0.0, 1e-30, -2.5e-4, 0.5, 1.0, -1.0, 1.5707964, 3.1415927, 4e8, 1e30,
           np.inf, -np.inf, np.nan]
out = {}
for dtype in ("float32", "float64"):
    # 5,000 values: many chunks of the vector loops, with huge and special
    # values in a few of them only.
    x = (rng.standard_normal(5000) * 30).astype(dtype)
    x[np.arange(len(special)) * 350] = special
    y = (rng.standard_normal(5000) * 3).astype(dtype)
    y[::503] = 0.0
    a, b = donate.asarray(x), donate.asarray(y)
    for name in unary:
        r = np.asarray(getattr(donate, name)(a))
        out[f"{name} {dtype}"] = hashlib.sha256(r.tobytes()).hexdigest()
    for name in binary:
        r = np.asarray(getattr(donate, name)(a, b))
        out[f"{name} {dtype}"] = hashlib.sha256(r.tobytes()).hexdigest()
print(json.dumps(out))
"""


def digests(isa):
    env = dict(os.environ)
    if isa is None:
        env.pop("DONATE_ISA", None)
    else:
        env["DONATE_ISA"] = isa
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps([UNARY, BINARY])],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_the_functions_exist():
    missing = [n for n in UNARY + BINARY if not hasattr(donate, n)]
    assert not missing


@pytest.mark.parametrize("isa", ["avx2", None])
def test_every_level_gives_the_portable_bits(isa):
    portable = digests("scalar")
    assert len(portable) == 2 * len(UNARY + BINARY)
    other = digests(isa)
    differ = sorted(k for k in portable if portable[k] != other[k])
    assert not differ, f"DONATE_ISA={isa or 'best'} differs from the portable copy in {differ}"

"""The per-call cost of small eager operations, donate against NumPy, side
by side in one process (16 float32 elements, where an operation's fixed
cost is everything).

    python benches/percall.py            # times (timeit), medians of 11 rounds
    python benches/percall.py --count    # instructions per call (valgrind's callgrind)

Times alternate donate and NumPy within each round, so machine noise hits
both alike; the instruction count is deterministic: it runs a loop of
`a + b` under callgrind twice (20,000 and 40,000 calls, collecting only
inside the operator and the deallocation of its result) and divides the
difference, for donate and for NumPy.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import timeit

import numpy as np

import donate

CASES = {
    "a + b": ("a + b", "na + nb"),
    "a + 1.0": ("a + 1.0", "na + np.float32(1.0)"),
    "((a + b) * 2.0).relu()": ("((a + b) * 2.0).relu()", "np.maximum((na + nb) * 2.0, 0)"),
    "a.relu()": ("a.relu()", "np.maximum(na, 0)"),
}

LOOP = """
import sys, numpy as np, donate
lib, n = sys.argv[1], int(sys.argv[2])
a = np.arange(16, dtype=np.float32); b = np.ones(16, np.float32)
if lib == "donate":
    a, b = donate.tensor(a), donate.tensor(b)
for _ in range(n):
    c = a + b
"""


def times(rounds: int) -> None:
    g = {
        "np": np,
        "a": donate.tensor(np.arange(16, dtype=np.float32)),
        "b": donate.tensor(np.ones(16, np.float32)),
        "na": np.arange(16, dtype=np.float32),
        "nb": np.ones(16, np.float32),
    }
    res: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in CASES}
    for _ in range(rounds):
        for k, (d, n) in CASES.items():
            for stmt, out in ((d, res[k][0]), (n, res[k][1])):
                out.append(min(timeit.repeat(stmt, globals=g, number=100_000, repeat=3)) / 100_000 * 1e6)
    print("| 16 float32 | donate (µs) | NumPy (µs) | ratio |")
    print("|---|--:|--:|--:|")
    for k, (d, n) in res.items():
        md, mn = statistics.median(d), statistics.median(n)
        print(f"| `{k}` | {md:.2f} | {mn:.2f} | {md / mn:.2f} |")


def instructions(lib: str, script: str) -> int:
    def run(n: int) -> int:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "cg.out")
            p = subprocess.run(
                ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--toggle-collect=PyNumber_Add",
                 "--toggle-collect=*tp_dealloc*", "--toggle-collect=array_dealloc", sys.executable, script, lib, str(n)],
                capture_output=True, text=True, check=True,
            )
            m = re.search(r"Collected : (\d+)", p.stderr)
            if not m:
                raise RuntimeError(p.stderr[-2000:])
            return int(m.group(1))

    return (run(40_000) - run(20_000)) // 20_000


def count() -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(LOOP)
    try:
        d, n = instructions("donate", f.name), instructions("numpy", f.name)
    finally:
        os.unlink(f.name)
    print(f"a + b, 16 float32: donate {d:,} instructions per call, NumPy {n:,} ({d / n:.2f}x)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", action="store_true", help="instructions per call under callgrind")
    ap.add_argument("--rounds", type=int, default=11)
    a = ap.parse_args()
    count() if a.count else times(a.rounds)

"""Op by op: the ops of a transformer layer, each timed alone (medians).

    python benches/ops.py                      # the installed donate (and PyTorch, if installed)
    python benches/ops.py --builds old=DIR new=DIR

`--builds` compares builds of donate side by side: each DIR holds a
`donate` package (the Python files and a built `_core` extension), and each
build runs in its own process, in interleaved rounds, so that a shared
machine's noise falls on every build alike; the table gives medians over
the rounds and each build's ratio to the first. Without it, the installed
donate is timed, and PyTorch beside it when it is installed (on the same
threads as donate's pool: `torch.set_num_threads`).

Every op makes a new buffer, as a user's `y = f(x)` does: fresh buffers
are part of what is measured (page faults of new memory included).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

ROUND = r"""
import json, os, sys
import numpy as np

sys.path.insert(0, sys.argv[3])  # benches/: the shared timer
from timing import median_ms

def timed(f, n):
    return median_ms(f, calls=n)

rng = np.random.default_rng(0)
arrays = {
    "x": rng.standard_normal((2048, 768), dtype=np.float32),
    "w": rng.standard_normal((768, 3072), dtype=np.float32),
    "b": rng.standard_normal(3072, dtype=np.float32),
    "h": rng.standard_normal((2048, 3072), dtype=np.float32),
    "s": rng.standard_normal((48, 512, 512), dtype=np.float32),
}
which, n = sys.argv[1], int(sys.argv[2])
if which == "torch":
    import torch
    torch.set_num_threads(int(os.environ.get("DONATE_THREADS", os.cpu_count() or 1)))
    t = {k: torch.from_numpy(v) for k, v in arrays.items()}
    F = torch.nn.functional
    ops = {
        "addmm": lambda: torch.addmm(t["b"], t["x"], t["w"]),
        "matmul": lambda: t["x"] @ t["w"],
        "layer_norm": lambda: F.layer_norm(t["x"], (768,)),
        "softmax": lambda: torch.softmax(t["s"], -1),
        "add": lambda: t["h"] + t["h"],
        "gelu": lambda: F.gelu(t["h"], approximate="tanh"),
    }
    with torch.inference_mode():
        print(json.dumps({k: timed(f, n) for k, f in ops.items()}))
else:
    import donate
    t = {k: donate.tensor(v) for k, v in arrays.items()}
    ops = {
        "addmm": lambda: donate.addmm(t["b"], t["x"], t["w"]),
        "matmul": lambda: t["x"] @ t["w"],
        "layer_norm": lambda: t["x"].layer_norm(),
        "softmax": lambda: t["s"].softmax(),
        "add": lambda: t["h"] + t["h"],
        "gelu": lambda: t["h"].gelu(),
    }
    print(json.dumps({k: timed(f, n) for k, f in ops.items()}))
"""


def one_round(name: str, pythonpath: str | None, which: str, n: int) -> dict[str, float]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run(
        [sys.executable, "-c", ROUND, which, str(n), os.path.dirname(os.path.abspath(__file__))],
        env=env, capture_output=True, text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"{name}: {out.stderr.strip().splitlines()[-1]}")
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--builds", nargs="*", metavar="NAME=DIR", help="donate builds to compare")
    ap.add_argument("--rounds", type=int, default=3, help="processes per build (interleaved)")
    ap.add_argument("--calls", type=int, default=9, help="timed calls per op in each process")
    args = ap.parse_args()

    runs: list[tuple[str, str | None, str]] = []
    if args.builds:
        for b in args.builds:
            name, _, path = b.partition("=")
            runs.append((name, os.path.abspath(path), "donate"))
    else:
        runs.append(("donate", None, "donate"))
        try:
            import torch  # noqa: F401

            runs.append(("PyTorch", None, "torch"))
        except ImportError:
            pass
    results: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in runs}
    for _ in range(args.rounds):
        for name, path, which in runs:
            results[name].append(one_round(name, path, which, args.calls))

    first = runs[0][0]
    ops = list(results[first][0])
    med = {name: {op: statistics.median(r[op] for r in rs) for op in ops} for name, rs in results.items()}
    head = " | ".join(f"{name} (ms)" for name, _, _ in runs)
    ratios = " | ".join(f"{name}/{first}" for name, _, _ in runs[1:])
    print(f"| op | {head} | {ratios} |" if ratios else f"| op | {head} |")
    print("|---|" + "--:|" * (len(runs) + len(runs) - 1))
    for op in ops:
        cells = " | ".join(f"{med[name][op]:.2f}" for name, _, _ in runs)
        rs = " | ".join(f"{med[name][op] / med[first][op]:.2f}" for name, _, _ in runs[1:])
        print(f"| {op} | {cells} | {rs} |" if rs else f"| {op} | {cells} |")


if __name__ == "__main__":
    main()

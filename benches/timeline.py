"""The memory timeline of one transformer encoder layer (4x512x768), run
three ways: donation off (every op allocates), eager donation, and
``donate.jit``. Writes ``benches/timeline.png`` (docs/timeline.md shows it).

    python benches/timeline.py [--out PATH] [--size full|small]

Needs matplotlib (``pip install "donate[plot]"``).
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import workloads as wl

import donate

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "timeline.png")
    ap.add_argument("--size", choices=["full", "small"], default="full")
    args = ap.parse_args()
    sizes = wl.FULL if args.size == "full" else wl.SMALL
    workload = "transformer_layer"
    timelines = []
    for impl, label in [("donate-off", "donation off"), ("donate", "eager donation"), ("donate-jit", "donate.jit")]:
        w = wl.prepare(workload, impl, sizes)
        x = w.fresh()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", donate.DonationWarning)
            with donate.memory_timeline(label) as tl:
                w.call(x)
        del x
        timelines.append(tl)
        peak = max(r["live_bytes"] for r in tl.records) / 2**20
        print(f"{label:15} {len(tl.records):3} ops, highest live {peak:6.1f} MiB (weights included)")
    timelines[0].plot(
        args.out,
        *timelines[1:],
        title=f"Transformer encoder layer {sizes.batch}x{sizes.seq}x{sizes.d_model}: live tensor bytes after each op",
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

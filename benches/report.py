"""Measure the workloads of benches/workloads.py and write the table.

    python benches/report.py                 # full sizes, 5 runs per cell
    python benches/report.py --size small    # a quick smoke run
    python benches/report.py --size small --runs 1 --no-rust --impls donate donate-jit jax \
        --out /tmp/smoke.md                  # a few columns only

For every workload and implementation it starts ``--runs`` fresh
subprocesses. Each one builds the input and the weights, resets the
kernel's peak-RSS mark (``/proc/self/clear_refs``), makes one cold call and
records:

* peak RSS growth: ``VmHWM`` after the call minus ``VmRSS`` before it, the
  same measure for donate, NumPy, JAX and PyTorch;
* for donate, peak live tensor bytes from ``donate.memory_stats()``: the
  most bytes alive at once during the call, counting the input but not the
  weights (every implementation holds those the same way);
* for ``donate-jit``, also the planned peak,
  ``f.lower(x, params).memory_analysis().peak_memory_in_bytes`` (it counts
  the arguments, the weights included), and how many traces the cold and
  the timed calls made (none: the trace is made in set-up, as JAX's
  compilation is);

then times ``--warm`` more calls, each on a fresh input. The table reports
medians over subprocesses (memory) and over all warm calls (time). JAX is
measured when it is installed (``pip install ".[bench]"``), PyTorch when it
is (``pip install ".[torch]"``, a separate extra: the Linux wheel is several
GB); otherwise their columns say n/a. PyTorch keeps its default thread count
(all cores, as donate does), printed in the machine line. The Rust accounting
(``cargo run --release --example workloads``) is appended when cargo is
available.

The markdown is printed and saved to ``--out``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads as wl  # noqa: E402

import donate  # noqa: E402

MB = 1e6


# ------------------------------------------------------------------ child ---


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_hwm() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def child(workload: str, impl: str, size: str, warm: int) -> dict[str, Any]:
    w = wl.prepare(workload, impl, wl.FULL if size == "full" else wl.SMALL)
    fresh, call = w.fresh, w.call
    out: dict[str, Any] = {"input_bytes": w.x.nbytes}
    counted = impl.startswith("donate")
    if w.jitted is not None:
        out["planned_peak"] = w.planned_peak
        out["weight_bytes"] = w.weight_bytes
        traces0 = w.jitted.trace_count

    # The cold call: memory.
    x = fresh()
    if counted:
        live0 = donate.memory_stats()["live_bytes"]
        donate.reset_peak_memory()
    out["hwm_reset"] = _reset_hwm()
    rss0 = _status("VmRSS")
    t0 = time.perf_counter()
    y = call(x)
    out["cold_ms"] = (time.perf_counter() - t0) * 1e3
    out["rss_peak"] = _status("VmHWM") - rss0
    if counted:
        out["tensor_peak"] = donate.memory_stats()["peak_bytes"] - live0 + w.x.nbytes
    if w.jitted is not None:
        out["traces_cold"] = w.jitted.trace_count - traces0
        traces0 = w.jitted.trace_count
    del x, y

    # Warm calls: time.
    times = []
    for _ in range(warm):
        x = fresh()
        t0 = time.perf_counter()
        y = call(x)
        times.append((time.perf_counter() - t0) * 1e3)
        del x, y
    out["warm_ms"] = times
    if w.jitted is not None:
        out["traces_warm"] = w.jitted.trace_count - traces0
    return out


# ----------------------------------------------------------------- parent ---


def have_jax() -> str | None:
    try:
        import jax

        return str(jax.__version__)
    except ImportError:
        return None


def have_torch() -> str | None:
    """PyTorch's version and default thread count, or None."""
    try:
        import torch

        return f"{torch.__version__} ({torch.get_num_threads()} threads)"
    except ImportError:
        return None


def measure(workload: str, impl: str, size: str, runs: int, warm: int) -> dict[str, Any]:
    results = []
    env = dict(os.environ, PYTHONHASHSEED="0")
    for _ in range(runs):
        p = subprocess.run(
            [sys.executable, __file__, "--child", workload, impl, size, str(warm)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if p.returncode != 0:
            raise RuntimeError(f"{workload}/{impl} failed:\n{p.stderr}")
        results.append(json.loads(p.stdout.strip().splitlines()[-1]))
    times = [t for r in results for t in r["warm_ms"]]
    agg: dict[str, Any] = {
        "runs": runs,
        "calls": len(times),
        "time_ms": statistics.median(times),
        "rss_peak": statistics.median(r["rss_peak"] for r in results),
        "input_bytes": results[0]["input_bytes"],
        "hwm_reset": all(r["hwm_reset"] for r in results),
    }
    if "tensor_peak" in results[0]:
        agg["tensor_peak"] = statistics.median(r["tensor_peak"] for r in results)
    if "planned_peak" in results[0]:
        agg["planned_peak"] = statistics.median(r["planned_peak"] for r in results)
        agg["weight_bytes"] = results[0]["weight_bytes"]
        agg["traces_cold"] = max(r["traces_cold"] for r in results)
        agg["traces_warm"] = max(r["traces_warm"] for r in results)
    return agg


def fmt_mb(b: float | None) -> str:
    return "n/a" if b is None else f"{b / MB:,.0f} MB" if b >= 10 * MB else f"{b / MB:,.1f} MB"


def fmt_ms(t: float | None) -> str:
    return "n/a" if t is None else f"{t:,.0f} ms" if t >= 100 else f"{t:,.1f} ms"


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, Linux {platform.release()}, Python {platform.python_version()}, "
        f"NumPy {np.__version__}, JAX {have_jax() or 'not installed'}, "
        f"PyTorch {have_torch() or 'not installed'}, donate kernels: {donate.ISA}"
    )


LABELS = {
    "relu_4mb": "ReLU chain, 10 ops, 1000x1000 (4 MB)",
    "relu_64mb": "ReLU chain, 10 ops, 4096x4096 (64 MB)",
    "resnet_block": "ResNet basic block, 32x64x56x56",
    "transformer_layer": "Transformer encoder layer, 4x512x768",
    "forward_pass": "Forward pass, 6 encoder layers",
}


Results = dict[str, dict[str, dict[str, Any]]]


def cell(res: Results, workload: str, impl: str, key: str) -> Any:
    """A measured value, or None where it was not measured."""
    return res.get(workload, {}).get(impl, {}).get(key)


def table(res: Results) -> list[str]:
    def get(w: str, i: str, k: str) -> Any:
        return cell(res, w, i, k)

    lines = [
        "| workload | always-copy peak | donation peak | saved | jit peak | NumPy peak | JAX peak "
        "| always-copy time | donation time | jit time | NumPy time | JAX time |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for w in res:
        off, on = get(w, "donate-off", "rss_peak"), get(w, "donate", "rss_peak")
        saved = f"{100 * (1 - on / off):.0f}%" if off and on is not None else "n/a"
        lines.append(
            f"| {LABELS[w]} | {fmt_mb(off)} | {fmt_mb(on)} | {saved} | {fmt_mb(get(w, 'donate-jit', 'rss_peak'))} "
            f"| {fmt_mb(get(w, 'numpy', 'rss_peak'))} "
            f"| {fmt_mb(get(w, 'jax', 'rss_peak'))} | {fmt_ms(get(w, 'donate-off', 'time_ms'))} "
            f"| {fmt_ms(get(w, 'donate', 'time_ms'))} | {fmt_ms(get(w, 'donate-jit', 'time_ms'))} "
            f"| {fmt_ms(get(w, 'numpy', 'time_ms'))} | {fmt_ms(get(w, 'jax', 'time_ms'))} |"
        )
    fused = [w for w in res if get(w, "donate-unfused", "time_ms") is not None]
    if fused:
        lines += [
            "",
            "Attention fused (`donate.scaled_dot_product_attention`, the donation column above) against the "
            "unfused composition (`softmax(q @ k * scale) @ v`, donation on):",
            "",
            "| workload | fused time | unfused time | fused RSS peak | unfused RSS peak | fused tensor peak | unfused tensor peak |",
            "|---|--:|--:|--:|--:|--:|--:|",
        ]
        for w in fused:
            lines.append(
                f"| {LABELS[w]} | {fmt_ms(get(w, 'donate', 'time_ms'))} | {fmt_ms(get(w, 'donate-unfused', 'time_ms'))} "
                f"| {fmt_mb(get(w, 'donate', 'rss_peak'))} | {fmt_mb(get(w, 'donate-unfused', 'rss_peak'))} "
                f"| {fmt_mb(get(w, 'donate', 'tensor_peak'))} | {fmt_mb(get(w, 'donate-unfused', 'tensor_peak'))} |"
            )
    lines += [
        "",
        "\"jit\" is `donate.jit` of the donation code (the same function, the input donated with "
        "`donate_argnums=0`, the weights a dict argument), traced once per process before the measured calls.",
    ]
    lines += [
        "",
        "Against PyTorch (eager, `torch.inference_mode()`, in-place ops where a value dies; \"eager\" computes the "
        "attention as `softmax(q @ k^T * scale) @ v` with the scores in place, \"SDPA\" with "
        "`F.scaled_dot_product_attention`; a dash where it does not apply):",
        "",
        "| workload | donation peak | jit peak | PyTorch eager peak | PyTorch SDPA peak | donation time | jit time "
        "| PyTorch eager time | PyTorch SDPA time |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]

    def tc(w: str, impl: str, key: str) -> str:
        if not wl.applies(w, impl):
            return "-"
        v = get(w, impl, key)
        return fmt_mb(v) if key == "rss_peak" else fmt_ms(v)

    for w in res:
        lines.append(
            f"| {LABELS[w]} | {fmt_mb(get(w, 'donate', 'rss_peak'))} | {fmt_mb(get(w, 'donate-jit', 'rss_peak'))} "
            f"| {tc(w, 'torch', 'rss_peak')} "
            f"| {tc(w, 'torch-sdpa', 'rss_peak')} | {fmt_ms(get(w, 'donate', 'time_ms'))} "
            f"| {fmt_ms(get(w, 'donate-jit', 'time_ms'))} "
            f"| {tc(w, 'torch', 'time_ms')} | {tc(w, 'torch-sdpa', 'time_ms')} |"
        )
    lines += [
        "",
        "Peak live tensor bytes of donate (exact, from `memory_stats()`; the input counts, the weights do not):",
        "",
        "| workload | input | donation off | donation | donation / off | jit | allocating NumPy chain |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]

    def xin(b: Any, inp: Any, digits: int) -> str:
        return fmt_mb(b) + (f" ({b / inp:.{digits}f}x input)" if b is not None and inp else "")

    for w in res:
        off, on = get(w, "donate-off", "tensor_peak"), get(w, "donate", "tensor_peak")
        jit = get(w, "donate-jit", "tensor_peak")
        inp = next((v for i in res[w] if (v := get(w, i, "input_bytes")) is not None), None)
        alloc = ""
        if get(w, "numpy-alloc", "time_ms") is not None:
            alloc = f"{fmt_ms(get(w, 'numpy-alloc', 'time_ms'))}, {fmt_mb(get(w, 'numpy-alloc', 'rss_peak'))} RSS"
        ratio = f"{on / off:.2f}" if off and on is not None else "n/a"
        lines.append(
            f"| {LABELS[w]} | {fmt_mb(inp)} | {xin(off, inp, 1)} "
            f"| {xin(on, inp, 2)} | {ratio} | {xin(jit, inp, 2)} | {alloc} |"
        )
    planned = [w for w in res if get(w, "donate-jit", "planned_peak") is not None]
    if planned:
        lines += [
            "",
            "`donate.jit`: the planned peak (`f.lower(x, params).memory_analysis().peak_memory_in_bytes`, which "
            "counts the arguments, the weights included) beside the measured peak of live tensor bytes (the input "
            "counted, the weights not; so it compares with the planned peak less the weights), and the traces "
            "made by the cold and the timed calls (0: traced once, in set-up):",
            "",
            "| workload | weights | planned peak | planned less weights | measured tensor peak | measured / planned "
            "| jit RSS peak | traces (cold, timed) |",
            "|---|--:|--:|--:|--:|--:|--:|--:|",
        ]
        for w in planned:
            plan, wb = get(w, "donate-jit", "planned_peak"), get(w, "donate-jit", "weight_bytes")
            meas = get(w, "donate-jit", "tensor_peak")
            inp = get(w, "donate-jit", "input_bytes")
            plan_x = plan - wb
            r = f"{meas / plan_x:.2f}" if meas is not None and plan_x else "n/a"
            lines.append(
                f"| {LABELS[w]} | {fmt_mb(wb)} | {fmt_mb(plan)} | {xin(plan_x, inp, 2)} | {xin(meas, inp, 2)} | {r} "
                f"| {fmt_mb(get(w, 'donate-jit', 'rss_peak'))} "
                f"| {get(w, 'donate-jit', 'traces_cold')}, {get(w, 'donate-jit', 'traces_warm')} |"
            )
    return lines


def targets(res: Results) -> list[str]:
    def get(w: str, i: str, k: str) -> Any:
        return cell(res, w, i, k)

    rows = []

    def check(what: str, value: float | None, limit: float, le: bool = True, unit: str = "") -> None:
        if value is None:
            rows.append(f"| {what} | n/a | {'<=' if le else '>='} {limit:g}{unit} | not measured |")
            return
        ok = value <= limit if le else value >= limit
        rows.append(f"| {what} | {value:.2f}{unit} | {'<=' if le else '>='} {limit:g}{unit} | {'met' if ok else 'MISSED'} |")

    def ratio(a: Any, b: Any) -> float | None:
        return None if a is None or not b else a / b

    for w in ("relu_4mb", "relu_64mb"):
        if w in res:
            check(f"{w}: relu_donate peak / input", ratio(get(w, "donate", "tensor_peak"), get(w, "donate", "input_bytes")), 1.05, unit="x")
    for w in ("resnet_block", "transformer_layer", "forward_pass"):
        if w in res:
            check(f"{w}: donation / off, tensor peak", ratio(get(w, "donate", "tensor_peak"), get(w, "donate-off", "tensor_peak")), 0.75, unit="x")
            check(f"{w}: donation / NumPy, RSS peak", ratio(get(w, "donate", "rss_peak"), get(w, "numpy", "rss_peak")), 1.0, unit="x")
    for w in res:
        check(f"{w}: NumPy time / donation time", ratio(get(w, "numpy", "time_ms"), get(w, "donate", "time_ms")), 1.0, le=False, unit="x")
    if "relu_64mb" in res:
        check("relu_64mb: allocating NumPy / donation time", ratio(get("relu_64mb", "numpy-alloc", "time_ms"), get("relu_64mb", "donate", "time_ms")), 2.0, le=False, unit="x")
    if "transformer_layer" in res:
        w = "transformer_layer"
        check(f"{w}: donation / JAX time", ratio(get(w, "donate", "time_ms"), get(w, "jax", "time_ms")), 1.2, unit="x")
        check(f"{w}: donation / JAX RSS peak", ratio(get(w, "donate", "rss_peak"), get(w, "jax", "rss_peak")), 1.5, unit="x")
        check(f"{w}: donation / PyTorch SDPA time", ratio(get(w, "donate", "time_ms"), get(w, "torch-sdpa", "time_ms")), 1.0, unit="x")
    # (transformer_layer: donation / NumPy RSS peak <= 1 is above.)
    if "forward_pass" in res:
        w = "forward_pass"
        check(f"{w}: donation / JAX time", ratio(get(w, "donate", "time_ms"), get(w, "jax", "time_ms")), 1.0, unit="x")
        check(f"{w}: donation / PyTorch SDPA RSS peak", ratio(get(w, "donate", "rss_peak"), get(w, "torch-sdpa", "rss_peak")), 1.0, unit="x")
    if "relu_64mb" in res:
        w = "relu_64mb"
        check(f"{w}: donation / PyTorch relu_ time", ratio(get(w, "donate", "time_ms"), get(w, "torch", "time_ms")), 1.0, unit="x")
    # donate.jit.
    first_jit = len(rows)
    if "relu_64mb" in res:
        w = "relu_64mb"
        check(f"{w}: jit tensor peak / input", ratio(get(w, "donate-jit", "tensor_peak"), get(w, "donate-jit", "input_bytes")), 1.0, unit="x")
        check(f"{w}: jit / JAX time", ratio(get(w, "donate-jit", "time_ms"), get(w, "jax", "time_ms")), 1.0, unit="x")
    for w in ("transformer_layer", "forward_pass"):
        if w in res:
            others = {
                name: v
                for name, impl in (("NumPy", "numpy"), ("JAX", "jax"), ("PyTorch eager", "torch"), ("PyTorch SDPA", "torch-sdpa"))
                if (v := get(w, impl, "rss_peak")) is not None
            }
            lowest = min(others, key=lambda k: others[k]) if others else None
            check(
                f"{w}: jit / lowest RSS peak of NumPy, JAX, PyTorch ({lowest or 'none measured'})",
                ratio(get(w, "donate-jit", "rss_peak"), others.get(lowest) if lowest else None),
                1.0,
                unit="x",
            )
            check(f"{w}: jit / JAX time", ratio(get(w, "donate-jit", "time_ms"), get(w, "jax", "time_ms")), 1.0, unit="x")
    missed = [r.split(" | ")[0].lstrip("| ") for r in rows[first_jit:] if r.endswith("| MISSED |")]
    unmeasured = [r.split(" | ")[0].lstrip("| ") for r in rows[first_jit:] if r.endswith("| not measured |")]
    out = ["| target | measured | goal | |", "|---|--:|--:|---|", *rows]
    if first_jit < len(rows):
        out += [
            "",
            "donate.jit targets missed: " + ("; ".join(missed) if missed else "none")
            + (f" (not measured: {'; '.join(unmeasured)})" if unmeasured else "")
            + ".",
        ]
    return out


def rust_table() -> list[str]:
    if shutil.which("cargo") is None:
        return ["(cargo not found: the Rust accounting was not run)"]
    p = subprocess.run(
        ["cargo", "run", "--release", "--quiet", "--example", "workloads"],
        cwd=HERE.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    if p.returncode != 0:
        return [f"(the Rust accounting failed: {p.stderr.strip()[-500:]})"]
    return p.stdout.rstrip().splitlines()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=["full", "small"], default="full")
    ap.add_argument("--runs", type=int, default=5, help="fresh subprocesses per cell (default 5)")
    ap.add_argument("--warm", type=int, default=2, help="timed calls per subprocess (default 2)")
    ap.add_argument("--workloads", nargs="*", default=wl.WORKLOADS, choices=wl.WORKLOADS)
    ap.add_argument("--impls", nargs="*", default=wl.IMPLS, choices=wl.IMPLS, help="implementations to measure (default all)")
    ap.add_argument("--no-rust", action="store_true", help="skip the Rust accounting")
    ap.add_argument("--out", type=Path, default=HERE / "results.md")
    ap.add_argument("--child", nargs=4, metavar=("WORKLOAD", "IMPL", "SIZE", "WARM"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        w, i, s, warm = a.child
        print(json.dumps(child(w, i, s, int(warm))))
        return

    jax_version = have_jax()
    torch_version = have_torch()
    have_jit = hasattr(donate, "jit")
    res: Results = {}
    started = time.time()
    for w in a.workloads:
        res[w] = {}
        for impl in wl.IMPLS:
            if impl not in a.impls or not wl.applies(w, impl) or (impl == "jax" and not jax_version):
                continue
            if impl == "donate-jit" and not have_jit:
                continue
            if impl.startswith("torch") and not torch_version:
                continue
            warm = a.warm * 3 if wl.kind(w) == "relu" else a.warm if w != "forward_pass" else max(1, a.warm // 2)
            res[w][impl] = measure(w, impl, a.size, a.runs, warm)
            r = res[w][impl]
            print(
                f"  {w:18} {impl:11} {fmt_ms(r['time_ms']):>10}  RSS +{fmt_mb(r['rss_peak']):>9}"
                + (f"  tensors {fmt_mb(r['tensor_peak'])}" if "tensor_peak" in r else "")
                + (
                    f"  planned {fmt_mb(r['planned_peak'])} ({fmt_mb(r['planned_peak'] - r['weight_bytes'])} "
                    f"less weights)  traces {r['traces_cold']}+{r['traces_warm']}"
                    if "planned_peak" in r
                    else ""
                ),
                file=sys.stderr,
                flush=True,
            )
    lines = [
        f"Measured {datetime.date.today().isoformat()} with `python benches/report.py"
        + (f" --size {a.size}" if a.size != "full" else "")
        + (f" --impls {' '.join(a.impls)}" if a.impls != wl.IMPLS else "")
        + f"` ({a.runs} fresh processes per cell, {time.time() - started:.0f} s in all) on: {machine()}.",
        "",
        *table(res),
        "",
        *(["JAX: not installed (`pip install \".[bench]\"`), its columns are n/a.", ""] if not jax_version else []),
        *(
            ["PyTorch: not installed (`pip install \".[torch]\"`), its columns are n/a.", ""]
            if not torch_version
            else []
        ),
        *(["donate.jit: not in this build of donate, its columns are n/a.", ""] if not have_jit else []),
        "Targets:",
        "",
        *targets(res),
    ]
    if not a.no_rust:
        lines += ["", "The first design's own accounting, in Rust (`cargo run --release --example workloads`):", "", *rust_table()]
    if not all(r.get("hwm_reset", True) for w in res.values() for r in w.values()):
        lines += ["", "Note: /proc/self/clear_refs was not writable, so RSS peaks include set-up."]
    text = "\n".join(lines) + "\n"
    print(text)
    a.out.write_text(text)
    print(f"saved to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""Measure the workloads of benches/workloads.py and write the table.

    python benches/report.py                 # full sizes, 5 runs per cell
    python benches/report.py --size small    # a quick smoke run
    python benches/report.py --size small --runs 1 --no-rust --impls donate donate-jit jax \
        --out /tmp/smoke.md                  # a few columns only

For every workload and implementation it starts ``--runs`` fresh
subprocesses, one per round: a round runs every (workload, implementation)
once, the implementations of a workload in an order rotated each round, so
that a noisy stretch of a shared machine falls on all of them rather than
on the five processes of one cell. Each subprocess builds the input and
the weights (and compiles, for JAX, ``donate.jit`` and ``torch.compile``),
returns the C heap's free memory to the kernel (glibc's ``malloc_trim``:
memory freed in set-up, by ``torch.compile``'s warm-up calls above all,
would otherwise serve the call without showing in its RSS), resets the
kernel's peak-RSS mark (``/proc/self/clear_refs``), makes one cold call
and records:

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
* for ``torch-compile`` and ``torch-sdpa-compile``, the set-up's seconds
  (two warm-up calls, the first of which compiles), and the graphs and
  graph breaks Dynamo counted;

then times ``--warm`` more calls, each on a fresh input. The table reports
medians over subprocesses (memory) and over all warm calls (time). JAX is
measured when it is installed (``pip install ".[bench]"``), PyTorch when it
is (``pip install ".[torch]"``, a separate extra: the Linux wheel is several
GB); otherwise their columns say n/a. A cell whose subprocess fails (say,
``torch.compile`` on a workload it cannot compile) says n/a, and the error
is printed under the tables. PyTorch keeps its default thread count (all
cores, as donate does), printed in the machine line. The Rust accounting
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
import shlex
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


def busy_seconds() -> float | None:
    """CPU seconds the whole machine has spent busy (all cores, every
    process), from ``/proc/stat``; None where it cannot be read."""
    try:
        with open("/proc/stat") as f:
            v = [int(n) for n in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal ...: idle and iowait are not busy.
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def _trim_heap() -> bool:
    """Return the C heap's free memory to the kernel (glibc's
    ``malloc_trim``), so that memory freed in set-up (``torch.compile``'s
    warm-up calls above all) cannot serve the measured call without showing
    in its RSS growth; False where there is no glibc."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
        return True
    except (OSError, AttributeError):
        return False


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
    if w.compile_s is not None:
        out["compile_s"] = w.compile_s
        out["graphs"] = w.graphs
        out["graph_breaks"] = w.graph_breaks

    # The cold call: memory.
    x = fresh()
    out["heap_trimmed"] = _trim_heap()
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

    # Warm calls: time. Meanwhile, the machine's busy time less this
    # process's own CPU time is what other processes took (in cores; over
    # at least a second, /proc/stat counting in hundredths of a second).
    times = []
    busy0, cpu0, wall0 = busy_seconds(), time.process_time(), time.perf_counter()
    for _ in range(warm):
        x = fresh()
        t0 = time.perf_counter()
        y = call(x)
        times.append((time.perf_counter() - t0) * 1e3)
        del x, y
    out["warm_ms"] = times
    time.sleep(max(0.0, 1.0 - (time.perf_counter() - wall0)))
    busy1, cpu1, wall1 = busy_seconds(), time.process_time(), time.perf_counter()
    if busy0 is not None and busy1 is not None and wall1 > wall0:
        out["others_cores"] = max(0.0, (busy1 - busy0 - (cpu1 - cpu0)) / (wall1 - wall0))
    if w.jitted is not None:
        out["traces_warm"] = w.jitted.trace_count - traces0
    return out


def wait_for_quiet(limit_s: float, threshold: float = 0.25) -> float:
    """Wait, up to ``limit_s`` seconds, for a second in which the machine's
    other processes use less than ``threshold`` of a core; returns the
    seconds waited."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit_s:
        b0, c0 = busy_seconds(), time.process_time()
        time.sleep(1.0)
        b1, c1 = busy_seconds(), time.process_time()
        if b0 is None or b1 is None or b1 - b0 - (c1 - c0) < threshold:
            break
    return time.perf_counter() - t0


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


def run_one(workload: str, impl: str, size: str, warm: int) -> dict[str, Any]:
    """One fresh subprocess: its measurements, or ``{"error": ...}``."""
    p = subprocess.run(
        [sys.executable, __file__, "--child", workload, impl, size, str(warm)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONHASHSEED="0"),
        check=False,
    )
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
        return {"error": lines[-1] if lines else f"exit status {p.returncode}", "stderr": p.stderr}
    return dict(json.loads(p.stdout.strip().splitlines()[-1]))


def aggregate(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over one cell's subprocesses (memory) and warm calls (time)."""
    runs = len(results)
    times = [t for r in results for t in r["warm_ms"]]
    agg: dict[str, Any] = {
        "runs": runs,
        "calls": len(times),
        "time_ms": statistics.median(times),
        "rss_peak": statistics.median(r["rss_peak"] for r in results),
        "input_bytes": results[0]["input_bytes"],
        "hwm_reset": all(r["hwm_reset"] for r in results),
        "heap_trimmed": all(r.get("heap_trimmed", False) for r in results),
    }
    if "tensor_peak" in results[0]:
        agg["tensor_peak"] = statistics.median(r["tensor_peak"] for r in results)
    if "planned_peak" in results[0]:
        agg["planned_peak"] = statistics.median(r["planned_peak"] for r in results)
        agg["weight_bytes"] = results[0]["weight_bytes"]
        agg["traces_cold"] = max(r["traces_cold"] for r in results)
        agg["traces_warm"] = max(r["traces_warm"] for r in results)
    if all("others_cores" in r for r in results):
        agg["others_cores"] = [r["others_cores"] for r in results]
    if "compile_s" in results[0]:
        agg["compile_s"] = [r["compile_s"] for r in results]
        agg["graphs"] = max(r["graphs"] for r in results)
        agg["graph_breaks"] = max(r["graph_breaks"] for r in results)
    return agg


def fmt_mb(b: float | None) -> str:
    return "n/a" if b is None else f"{b / MB:,.0f} MB" if b >= 10 * MB else f"{b / MB:,.1f} MB"


def fmt_ms(t: float | None) -> str:
    return "n/a" if t is None else f"{t:,.0f} ms" if t >= 100 else f"{t:,.1f} ms"


def gcc_version() -> str | None:
    """The C++ compiler Inductor (``torch.compile`` on CPU) uses."""
    try:
        p = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True, check=False)
    except OSError:
        return None
    if p.returncode != 0 or not p.stdout.strip():
        return None
    return p.stdout.strip()


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
        f"PyTorch {have_torch() or 'not installed'}, gcc {gcc_version() or 'not found'} (torch.compile's), "
        f"donate kernels: {donate.ISA}"
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


def torch_main(workload: str, compiled: bool = False) -> str:
    """The PyTorch implementation of the main table: SDPA on the encoder
    workloads (donate's own code there is the fused attention)."""
    impl = "torch-sdpa" if wl.applies(workload, "torch-sdpa") else "torch"
    return impl + "-compile" if compiled else impl


def table(res: Results) -> list[str]:
    def get(w: str, i: str, k: str) -> Any:
        return cell(res, w, i, k)

    lines = [
        "| workload | always-copy peak | donation peak | saved | jit peak | NumPy peak | JAX peak "
        "| PyTorch peak | torch.compile peak "
        "| always-copy time | donation time | jit time | NumPy time | JAX time | PyTorch time | torch.compile time |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for w in res:
        off, on = get(w, "donate-off", "rss_peak"), get(w, "donate", "rss_peak")
        saved = f"{100 * (1 - on / off):.0f}%" if off and on is not None else "n/a"
        pt, ptc = torch_main(w), torch_main(w, compiled=True)
        lines.append(
            f"| {LABELS[w]} | {fmt_mb(off)} | {fmt_mb(on)} | {saved} | {fmt_mb(get(w, 'donate-jit', 'rss_peak'))} "
            f"| {fmt_mb(get(w, 'numpy', 'rss_peak'))} "
            f"| {fmt_mb(get(w, 'jax', 'rss_peak'))} | {fmt_mb(get(w, pt, 'rss_peak'))} "
            f"| {fmt_mb(get(w, ptc, 'rss_peak'))} | {fmt_ms(get(w, 'donate-off', 'time_ms'))} "
            f"| {fmt_ms(get(w, 'donate', 'time_ms'))} | {fmt_ms(get(w, 'donate-jit', 'time_ms'))} "
            f"| {fmt_ms(get(w, 'numpy', 'time_ms'))} | {fmt_ms(get(w, 'jax', 'time_ms'))} "
            f"| {fmt_ms(get(w, pt, 'time_ms'))} | {fmt_ms(get(w, ptc, 'time_ms'))} |"
        )
    lines += [
        "",
        "PyTorch is eager code under `torch.inference_mode()` (in-place ops where a value dies, "
        "`F.scaled_dot_product_attention` on the encoder workloads, as donate's code there is the fused "
        "attention); torch.compile is that same function under `torch.compile` (default mode, Inductor's CPU "
        "backend, static shapes), called under `torch.inference_mode()` too. Compilation is excluded: each "
        "process compiles in set-up with two warm-up calls before the measured ones, as JAX's `jax.jit` is "
        "compiled and `donate.jit` traced in set-up.",
    ]
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
        "`F.scaled_dot_product_attention`; \"compiled\" is the same function under `torch.compile`, compiled "
        "in set-up, outside the measured calls; a dash where it does not apply):",
        "",
        "| workload | donation peak | jit peak | PyTorch eager peak | eager compiled peak | PyTorch SDPA peak "
        "| SDPA compiled peak | donation time | jit time "
        "| PyTorch eager time | eager compiled time | PyTorch SDPA time | SDPA compiled time |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]

    def tc(w: str, impl: str, key: str) -> str:
        if not wl.applies(w, impl):
            return "-"
        v = get(w, impl, key)
        return fmt_mb(v) if key == "rss_peak" else fmt_ms(v)

    for w in res:
        lines.append(
            f"| {LABELS[w]} | {fmt_mb(get(w, 'donate', 'rss_peak'))} | {fmt_mb(get(w, 'donate-jit', 'rss_peak'))} "
            f"| {tc(w, 'torch', 'rss_peak')} | {tc(w, 'torch-compile', 'rss_peak')} "
            f"| {tc(w, 'torch-sdpa', 'rss_peak')} | {tc(w, 'torch-sdpa-compile', 'rss_peak')} "
            f"| {fmt_ms(get(w, 'donate', 'time_ms'))} | {fmt_ms(get(w, 'donate-jit', 'time_ms'))} "
            f"| {tc(w, 'torch', 'time_ms')} | {tc(w, 'torch-compile', 'time_ms')} "
            f"| {tc(w, 'torch-sdpa', 'time_ms')} | {tc(w, 'torch-sdpa-compile', 'time_ms')} |"
        )
    compiled = [w for w in res if any(get(w, i, "compile_s") is not None for i in ("torch-compile", "torch-sdpa-compile"))]
    if compiled:
        lines += [
            "",
            "torch.compile's set-up, not in the times above: seconds per process for the two warm-up calls (the "
            "first compiles; Inductor's on-disk cache, kept between processes, serves the later processes, so the "
            "slowest is the nearest to a first compilation), and the graphs and graph breaks Dynamo counted:",
            "",
            "| workload | eager compiled: set-up (median, slowest) | graphs, breaks "
            "| SDPA compiled: set-up (median, slowest) | graphs, breaks |",
            "|---|--:|--:|--:|--:|",
        ]

        def cs(w: str, impl: str) -> str:
            if not wl.applies(w, impl):
                return "- | -"
            t = get(w, impl, "compile_s")
            if t is None:
                return "n/a | n/a"
            return f"{statistics.median(t):.1f} s, {max(t):.1f} s | {get(w, impl, 'graphs')}, {get(w, impl, 'graph_breaks')}"

        for w in compiled:
            lines.append(f"| {LABELS[w]} | {cs(w, 'torch-compile')} | {cs(w, 'torch-sdpa-compile')} |")
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
        check(f"{w}: donation / torch.compile SDPA time", ratio(get(w, "donate", "time_ms"), get(w, "torch-sdpa-compile", "time_ms")), 1.0, unit="x")
        check(f"{w}: donation / torch.compile SDPA RSS peak", ratio(get(w, "donate", "rss_peak"), get(w, "torch-sdpa-compile", "rss_peak")), 1.0, unit="x")
    # (transformer_layer: donation / NumPy RSS peak <= 1 is above.)
    if "forward_pass" in res:
        w = "forward_pass"
        check(f"{w}: donation / JAX time", ratio(get(w, "donate", "time_ms"), get(w, "jax", "time_ms")), 1.0, unit="x")
        check(f"{w}: donation / PyTorch SDPA RSS peak", ratio(get(w, "donate", "rss_peak"), get(w, "torch-sdpa", "rss_peak")), 1.0, unit="x")
        check(f"{w}: donation / torch.compile SDPA time", ratio(get(w, "donate", "time_ms"), get(w, "torch-sdpa-compile", "time_ms")), 1.0, unit="x")
        check(f"{w}: donation / torch.compile SDPA RSS peak", ratio(get(w, "donate", "rss_peak"), get(w, "torch-sdpa-compile", "rss_peak")), 1.0, unit="x")
    if "resnet_block" in res:
        w = "resnet_block"
        check(f"{w}: donation / torch.compile time", ratio(get(w, "donate", "time_ms"), get(w, "torch-compile", "time_ms")), 1.0, unit="x")
        check(f"{w}: donation / torch.compile RSS peak", ratio(get(w, "donate", "rss_peak"), get(w, "torch-compile", "rss_peak")), 1.0, unit="x")
    if "relu_64mb" in res:
        w = "relu_64mb"
        check(f"{w}: donation / PyTorch relu_ time", ratio(get(w, "donate", "time_ms"), get(w, "torch", "time_ms")), 1.0, unit="x")
        check(f"{w}: donation / torch.compile relu_ time", ratio(get(w, "donate", "time_ms"), get(w, "torch-compile", "time_ms")), 1.0, unit="x")
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
                for name, impl in (
                    ("NumPy", "numpy"),
                    ("JAX", "jax"),
                    ("PyTorch eager", "torch"),
                    ("PyTorch SDPA", "torch-sdpa"),
                    ("torch.compile eager", "torch-compile"),
                    ("torch.compile SDPA", "torch-sdpa-compile"),
                )
                if (v := get(w, impl, "rss_peak")) is not None
            }
            lowest = min(others, key=lambda k: others[k]) if others else None
            check(
                f"{w}: jit / lowest RSS peak of NumPy, JAX, PyTorch, torch.compile ({lowest or 'none measured'})",
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


def load_lines(res: Results, waited: float) -> list[str]:
    """How busy the rest of the machine was while the warm calls ran."""
    loads = {(w, i): r["others_cores"] for w in res for i, r in res[w].items() if "others_cores" in r}
    every = sorted(v for vs in loads.values() for v in vs)
    if not every:
        return []
    per_impl: dict[str, list[float]] = {}
    for (_, i), vs in loads.items():
        per_impl.setdefault(i, []).extend(vs)
    busy = sum(v >= 0.5 for v in every)
    return [
        f"Other processes' CPU while the timed calls ran (from `/proc/stat`, less the measuring process's own, "
        f"over the timed calls or the second from their start if they took less), "
        f"in cores of {os.cpu_count()}: median {statistics.median(every):.2f}, highest {every[-1]:.2f}; "
        f"{busy} of {len(every)} processes ran beside at least half a core of other work"
        + (f"; {waited:.0f} s were spent waiting for a quiet second before processes" if waited >= 1 else "")
        + ". Median per implementation: "
        + ", ".join(f"{i} {statistics.median(v):.2f}" for i, v in per_impl.items())
        + ".",
        "",
    ]


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
    ap.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="S",
        help="before each subprocess, wait up to S seconds for a second in which other processes use under a "
        "quarter of a core (default 0: no wait)",
    )
    ap.add_argument("--note", default="", help="a sentence written after the machine line (say, that it was shared)")
    ap.add_argument("--child", nargs=4, metavar=("WORKLOAD", "IMPL", "SIZE", "WARM"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        w, i, s, warm = a.child
        print(json.dumps(child(w, i, s, int(warm))))
        return

    jax_version = have_jax()
    torch_version = have_torch()
    have_jit = hasattr(donate, "jit")
    cells: dict[str, list[str]] = {}
    for w in a.workloads:
        cells[w] = []
        for impl in wl.IMPLS:
            if impl not in a.impls or not wl.applies(w, impl) or (impl == "jax" and not jax_version):
                continue
            if impl == "donate-jit" and not have_jit:
                continue
            if impl.startswith("torch") and not torch_version:
                continue
            cells[w].append(impl)
    raw: dict[tuple[str, str], list[dict[str, Any]]] = {(w, i): [] for w in cells for i in cells[w]}
    failed: dict[tuple[str, str], dict[str, Any]] = {}
    started = time.time()
    waited = 0.0
    # Rounds: every cell once per round, the implementations of a workload
    # in an order rotated each round.
    for rnd in range(a.runs):
        for w, impls in cells.items():
            warm = a.warm * 3 if wl.kind(w) == "relu" else a.warm if w != "forward_pass" else max(1, a.warm // 2)
            k = rnd % len(impls) if impls else 0
            for impl in impls[k:] + impls[:k]:
                if (w, impl) in failed:
                    continue
                waited += wait_for_quiet(a.wait_quiet)
                r = run_one(w, impl, a.size, warm)
                if "error" in r:
                    failed[w, impl] = r
                    print(f"  round {rnd + 1} {w:18} {impl:18} FAILED: {r['error']}", file=sys.stderr, flush=True)
                    continue
                raw[w, impl].append(r)
                print(
                    f"  round {rnd + 1} {w:18} {impl:18} {fmt_ms(statistics.median(r['warm_ms'])):>10}"
                    f"  RSS +{fmt_mb(r['rss_peak']):>9}"
                    + (f"  tensors {fmt_mb(r['tensor_peak'])}" if "tensor_peak" in r else "")
                    + (f"  compiled in {r['compile_s']:.1f} s" if "compile_s" in r else "")
                    + (f"  others {r['others_cores']:.2f} cores" if "others_cores" in r else ""),
                    file=sys.stderr,
                    flush=True,
                )
    res: Results = {w: {} for w in cells}
    for (w, impl), rs in raw.items():
        if (w, impl) not in failed and rs:
            res[w][impl] = aggregate(rs)
            r = res[w][impl]
            print(
                f"  {w:18} {impl:18} {fmt_ms(r['time_ms']):>10}  RSS +{fmt_mb(r['rss_peak']):>9}"
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
    failures = [
        f"* {LABELS[w]}, `{impl}` (its cells say n/a): `{f['error']}`"
        for (w, impl), f in failed.items()
    ]
    for (w, impl), f in failed.items():
        print(f"--- {w} {impl} stderr ---\n{f['stderr'][-4000:]}", file=sys.stderr)
    command = (
        "python benches/report.py"
        + (f" --size {a.size}" if a.size != "full" else "")
        + (f" --runs {a.runs}" if a.runs != 5 else "")
        + (f" --warm {a.warm}" if a.warm != 2 else "")
        + (f" --workloads {' '.join(a.workloads)}" if a.workloads != wl.WORKLOADS else "")
        + (f" --impls {' '.join(a.impls)}" if a.impls != wl.IMPLS else "")
        + (" --no-rust" if a.no_rust else "")
        + (f" --wait-quiet {a.wait_quiet:g}" if a.wait_quiet else "")
        + (f" --note {shlex.quote(a.note)}" if a.note else "")
    )
    lines = [
        f"Measured {datetime.date.today().isoformat()} with `{command}` ({a.runs} fresh processes per cell, "
        f"one per round, {time.time() - started:.0f} s in all) on: {machine()}." + (f" {a.note}" if a.note else ""),
        "",
        *table(res),
        "",
        *load_lines(res, waited),
        *(["Failed subprocesses (the error's last line; the full output went to stderr):", "", *failures, ""] if failures else []),
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
    if not all(r.get("heap_trimmed", True) for w in res.values() for r in w.values()):
        lines += ["", "Note: malloc_trim was not available, so memory freed in set-up may serve a call unseen."]
    text = "\n".join(lines) + "\n"
    print(text)
    a.out.write_text(text)
    print(f"saved to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()

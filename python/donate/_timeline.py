"""``donate.memory_timeline()``: a recording of every operation (its name,
the tensor bytes live right after it, and how its result was made), and a
plot of live bytes against operation index.

The recording is the Rust core's (``src/memory/timeline.rs``), made at the end of
each operation; this module only wraps it as a context manager and draws
it (with matplotlib, an optional dependency: ``pip install "donate[plot]"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from typing import Any

from . import _core

# Marker colours per result kind in plots.
_COLOURS = {
    "fresh": "tab:red",
    "reused": "tab:green",
    "donated": "tab:blue",
    "copied": "tab:orange",
    "in_place": "tab:purple",
    "view": "tab:gray",
}


class MemoryTimeline:
    """Records every operation while its ``with`` block runs (process-wide:
    other threads' operations too). ``records`` is a list of dicts with the
    keys ``op``, ``live_bytes`` and ``result`` (``"fresh"``, ``"reused"``
    (implicit donation), ``"donated"`` (explicit), ``"copied"`` (a donation
    refused), ``"in_place"`` or ``"view"``)."""

    def __init__(self, label: str | None = None) -> None:
        self.label = label
        self._timeline = _core._Timeline()

    def __enter__(self) -> MemoryTimeline:
        self._timeline.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timeline.stop()

    @property
    def records(self) -> list[dict[str, Any]]:
        """One dict per recorded operation, in order: ``op``,
        ``live_bytes`` after it, and ``result`` (``"fresh"``, ``"reused"``,
        ``"donated"``, ``"copied"``, ``"in_place"`` or ``"view"``)."""
        return list(self._timeline.records())

    def plot(
        self,
        path: str | PathLike[str],
        *others: MemoryTimeline,
        labels: Sequence[str] | None = None,
        title: str | None = None,
    ) -> None:
        """Write a PNG of live bytes against operation index, this timeline
        and ``others`` overlaid (each named by ``labels``, else its
        ``label``), each operation marked by how its result was made."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError as e:  # pragma: no cover - the test extra has it
            raise ImportError('MemoryTimeline.plot needs matplotlib: pip install "donate[plot]"') from e
        timelines = (self, *others)
        names = list(labels) if labels is not None else [t.label or f"timeline {i}" for i, t in enumerate(timelines)]
        if len(names) != len(timelines):
            raise ValueError(f"{len(names)} labels for {len(timelines)} timelines")
        fig, ax = plt.subplots(figsize=(9, 4.5))
        seen: set[str] = set()
        for t, name in zip(timelines, names):
            recs = t.records
            xs = list(range(len(recs)))
            ys = [r["live_bytes"] / 2**20 for r in recs]
            ax.step(xs, ys, where="post", label=name, linewidth=1.5)
            for kind, colour in _COLOURS.items():
                pts = [(x, y) for x, y, r in zip(xs, ys, recs) if r["result"] == kind]
                if pts:
                    ax.scatter(*zip(*pts), s=12, color=colour, zorder=3, label=None if kind in seen else kind)
                    seen.add(kind)
        ax.set_xlabel("operation")
        ax.set_ylabel("live tensor MiB")
        if title:
            ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


def memory_timeline(label: str | None = None) -> MemoryTimeline:
    """``with donate.memory_timeline() as tl:`` records, after every
    operation, its name, the tensor bytes live and how its result was made
    (see :class:`MemoryTimeline`); ``tl.plot(path, other_tl)`` draws them."""
    return MemoryTimeline(label)

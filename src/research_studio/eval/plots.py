"""metrics.png (quality metrics with intervals, modes side by side) and cost.png (time and
tokens per question), drawn on matplotlib's Agg canvas directly: no display, no pyplot
global state."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from research_studio.eval.aggregate import QUALITY_METRICS
from research_studio.eval.report import LABELS

COLOURS = {"flat": "#8c96a8", "hierarchical": "#2f6fb3"}


def _error(aggregates: dict[str, Any], key: str) -> tuple[float, float]:
    mean = aggregates.get(key)
    interval = aggregates.get("ci95", {}).get(key)
    if mean is None or not interval:
        return 0.0, 0.0
    return max(0.0, mean - interval[0]), max(0.0, interval[1] - mean)


def plot_metrics(summary: dict[str, dict[str, Any]], modes: Sequence[str], path: Path) -> Path:
    """Grouped bars, one group per quality metric, with 95% interval error bars."""
    metrics = [m for m in QUALITY_METRICS if any(summary[mode].get(m) is not None for mode in modes)]
    fig = Figure(figsize=(max(7.0, 0.8 * len(metrics) + 2), 4.8))
    ax = fig.subplots()
    x = np.arange(len(metrics))
    width = 0.8 / max(1, len(modes))
    for i, mode in enumerate(modes):
        agg = summary[mode]
        means = [agg.get(m) or 0.0 for m in metrics]
        errors = np.array([_error(agg, m) for m in metrics]).T.reshape(2, len(metrics))
        ax.bar(x + (i - (len(modes) - 1) / 2) * width, means, width, yerr=errors, capsize=3,
               label=f"{mode} (n={agg['n']})", color=COLOURS.get(mode))
    ax.set_xticks(x, [LABELS.get(m, m) for m in metrics], rotation=35, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean (95% bootstrap interval)")
    ax.legend(fontsize=8)
    ax.set_title("Quality per mode")
    fig.tight_layout()
    FigureCanvasAgg(fig)  # explicit Agg canvas: PNG without any display
    fig.savefig(path, dpi=110)
    return path


def plot_cost(rows: Sequence[dict[str, Any]], modes: Sequence[str], path: Path) -> Path:
    """Wall time and tokens of each question, one column of points per mode, mean marked."""
    fig = Figure(figsize=(8.5, 4.0))
    axes = fig.subplots(1, 2)
    rng = np.random.default_rng(0)
    for ax, metric, label in ((axes[0], "wall_s", "wall time per question (s)"),
                              (axes[1], "tokens", "tokens per question")):
        for i, mode in enumerate(modes):
            values = [r["metrics"][metric] for r in rows if r["mode"] == mode and "error" not in r]
            if values:
                jitter = rng.uniform(-0.12, 0.12, len(values))
                ax.scatter(np.full(len(values), i) + jitter, values, s=18, alpha=0.7,
                           color=COLOURS.get(mode))
                ax.hlines(float(np.mean(values)), i - 0.3, i + 0.3, color="black", linewidth=2)
        ax.set_xticks(range(len(modes)), list(modes))
        ax.set_xlim(-0.6, len(modes) - 0.4)
        ax.set_ylim(bottom=0)
        ax.set_title(label, fontsize=10)
    fig.suptitle("Cost per question (line = mean)", fontsize=11)
    fig.tight_layout()
    FigureCanvasAgg(fig)  # explicit Agg canvas: PNG without any display
    fig.savefig(path, dpi=110)
    return path

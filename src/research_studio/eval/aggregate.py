"""Per-mode means with 95% bootstrap intervals, so a difference between modes on a
handful of questions is read with its uncertainty, not as a point estimate."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

# Quality metrics keep their names; cost metrics are reported as "<name>_mean".
QUALITY_METRICS = (
    "support_recall_retrieved", "support_recall_cited", "citation_precision",
    "answer_em", "answer_f1", "answer_containment", "answer_in_answer_section",
    "cited_sentence_share",
    "claims_verified_share", "claims_cross_validated_share", "hallucination_score",
    "decomposition_similarity", "decomposition_hop_coverage",
)
COST_METRICS = ("wall_s", "model_s", "embed_s", "other_s", "llm_calls", "prompt_tokens",
                "completion_tokens", "tokens",
                "structured_repairs", "structured_fallbacks", "cited_sources")
RESAMPLES = 1000
SEED = 20240601


def summary_key(metric: str) -> str:
    return f"{metric}_mean" if metric in COST_METRICS else metric


def bootstrap_ci(values: Sequence[float], resamples: int = RESAMPLES, seed: int = SEED,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean (deterministic for a given seed)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        raise ValueError("no values to resample")
    if data.size == 1:
        return float(data[0]), float(data[0])
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1.0 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)


def _mean_ci(values: list[float]) -> tuple[float | None, list[float] | None]:
    if not values:
        return None, None
    lo, hi = bootstrap_ci(values)
    return float(np.mean(values)), [lo, hi]


def aggregate_mode(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """``n`` scored questions, ``errors``, each metric's mean, ``ci95`` and ``counts``
    (questions where the metric applies); errored rows and None values are left out."""
    rows = list(rows)
    ok = [r for r in rows if "error" not in r]
    summary: dict[str, Any] = {"n": len(ok), "errors": len(rows) - len(ok),
                               "ci95": {}, "counts": {}}
    for metric in (*QUALITY_METRICS, *COST_METRICS):
        values = [float(v) for r in ok if (v := r["metrics"].get(metric)) is not None]
        key = summary_key(metric)
        summary[key], interval = _mean_ci(values)
        summary["counts"][key] = len(values)
        if interval is not None:
            summary["ci95"][key] = interval
    return summary


def paired_difference(first: Iterable[dict[str, Any]], second: Iterable[dict[str, Any]],
                      ) -> dict[str, Any]:
    """Mean of ``second − first`` per metric over questions scored in both, with interval."""
    a = {r["id"]: r["metrics"] for r in first if "error" not in r}
    b = {r["id"]: r["metrics"] for r in second if "error" not in r}
    common = [q for q in a if q in b]
    out: dict[str, Any] = {"n": len(common)}
    for metric in (*QUALITY_METRICS, *COST_METRICS):
        deltas = [float(b[q][metric]) - float(a[q][metric]) for q in common
                  if a[q].get(metric) is not None and b[q].get(metric) is not None]
        mean, interval = _mean_ci(deltas)
        if mean is not None:
            out[summary_key(metric)] = {"mean": mean, "ci95": interval, "n": len(deltas)}
    return out


def summarise(rows: Iterable[dict[str, Any]], modes: Sequence[str],
              ids: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """``{mode: aggregates}`` over ``rows`` (restricted to ``ids`` when given); with both
    modes, the hierarchical entry also holds ``paired_vs_flat``."""
    wanted = None if ids is None else set(ids)
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:  # a pair written twice counts once, its last line wins
        if wanted is None or row["id"] in wanted:
            latest[(row["id"], row["mode"])] = row
    by_mode = {mode: [r for (_, m), r in latest.items() if m == mode] for mode in modes}
    summary = {mode: aggregate_mode(by_mode[mode]) for mode in modes}
    if "flat" in summary and "hierarchical" in summary:
        summary["hierarchical"]["paired_vs_flat"] = paired_difference(by_mode["flat"],
                                                                       by_mode["hierarchical"])
    return summary

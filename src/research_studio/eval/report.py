"""summary.json and summary.md: metrics as rows, modes as columns, "mean [lo, hi]"."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from research_studio.eval.aggregate import COST_METRICS, QUALITY_METRICS, summary_key

LABELS = {
    "support_recall_retrieved": "support recall (retrieved)",
    "support_recall_cited": "support recall (cited)",
    "citation_precision": "citation precision",
    "answer_em": "answer exact match",
    "answer_f1": "answer F1",
    "answer_containment": "answer in report",
    "answer_in_answer_section": "answer in the Answer section",
    "cited_sentence_share": "cited sentence share",
    "claims_verified_share": "claims verified",
    "claims_cross_validated_share": "claims cross-validated",
    "hallucination_score": "hallucination score",
    "decomposition_similarity": "decomposition similarity",
    "decomposition_hop_coverage": "decomposition hop coverage",
    "wall_s": "wall time (s)",
    "model_s": "in model calls (s)",
    "embed_s": "in the sentence encoder (s)",
    "other_s": "elsewhere (s)",
    "llm_calls": "LLM calls",
    "prompt_tokens": "prompt tokens",
    "completion_tokens": "completion tokens",
    "tokens": "tokens",
    "structured_repairs": "structured repairs",
    "structured_fallbacks": "structured fallbacks",
    "cited_sources": "cited sources",
}


def _number(key: str, value: float, signed: bool = False) -> str:
    sign = "+" if signed else ""
    if key.endswith("_mean"):  # cost: seconds, calls, tokens
        return f"{value:{sign}.1f}" if abs(value) < 100 else f"{value:{sign}.0f}"
    return f"{value:{sign}.3f}"


def cell(aggregates: dict[str, Any], key: str) -> str:
    """"mean [lo, hi]", or "—" when the metric had no value in this mode."""
    value = aggregates.get(key)
    if value is None:
        return "—"
    interval = aggregates.get("ci95", {}).get(key)
    if not interval:
        return _number(key, value)
    return f"{_number(key, value)} [{_number(key, interval[0])}, {_number(key, interval[1])}]"


def _delta_cell(paired: dict[str, Any], key: str) -> str:
    entry = paired.get(key)
    if not entry:
        return "—"
    lo, hi = entry["ci95"]
    return (f"{_number(key, entry['mean'], True)} "
            f"[{_number(key, lo, True)}, {_number(key, hi, True)}]")


def table_rows(summary: dict[str, dict[str, Any]], modes: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows shared by the Markdown file and the terminal table."""
    paired = summary.get("hierarchical", {}).get("paired_vs_flat") if len(modes) > 1 else None
    header = ["metric", *modes, *(["hierarchical − flat (paired)"] if paired else [])]
    rows = [["questions scored (errors)",
             *(f"{summary[m]['n']} ({summary[m]['errors']})" for m in modes),
             *([str(paired["n"])] if paired else [])]]
    for metric in (*QUALITY_METRICS, *COST_METRICS):
        key = summary_key(metric)
        if all(summary[m].get(key) is None for m in modes):
            continue  # e.g. decomposition metrics on a dataset without decompositions
        rows.append([LABELS.get(metric, metric), *(cell(summary[m], key) for m in modes),
                     *([_delta_cell(paired, key)] if paired else [])])
    return header, rows


def summary_markdown(summary: dict[str, dict[str, Any]], modes: Sequence[str],
                     title: str) -> str:
    header, rows = table_rows(summary, modes)
    lines = [f"# {title}", "",
             "Mean over scored questions with its 95% bootstrap interval "
             "(1000 resamples, fixed seed); errored questions are left out and counted.", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_summary(out: Path, summary: dict[str, dict[str, Any]], modes: Sequence[str],
                  title: str) -> tuple[Path, Path]:
    """Write summary.json and summary.md into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / "summary.json", out / "summary.md"
    json_path.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    md_path.write_text(summary_markdown(summary, modes, title), encoding="utf-8")
    return json_path, md_path

"""Render an evaluation's summary.json as a Markdown table (as in docs/lab-log.md §4).

    python benchmarks/eval_table.py OUT_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROWS = [("support recall (retrieved)", "support_recall_retrieved", 3),
        ("**support recall (cited)**", "support_recall_cited", 3),
        ("citation precision", "citation_precision", 3),
        ("answer exact match", "answer_em", 3), ("answer F1", "answer_f1", 3),
        ("answer in report", "answer_containment", 3),
        ("answer in the Answer section", "answer_in_answer_section", 3),
        ("cited sentence share", "cited_sentence_share", 3),
        ("claims verified or cross-validated", "claims_verified_share", 3),
        ("claims cross-validated", "claims_cross_validated_share", 3),
        ("hallucination score", "hallucination_score", 3),
        ("decomposition similarity (gold hops)", "decomposition_similarity", 3),
        ("decomposition hop coverage (cos ≥ 0.6)", "decomposition_hop_coverage", 3),
        ("wall time per question (s)", "wall_s_mean", 1),
        ("… in model calls (s)", "model_s_mean", 1), ("… in the sentence encoder (s)", "embed_s_mean", 1),
        ("… elsewhere: retrieval, parsing, orchestration (s)", "other_s_mean", 1),
        ("LLM calls", "llm_calls_mean", 1),
        ("tokens (prompt + completion)", "tokens_mean", 0),
        ("structured-output repairs", "structured_repairs_mean", 2),
        ("structured-output fallbacks", "structured_fallbacks_mean", 2),
        ("cited sources", "cited_sources_mean", 1)]


def cell(summary: dict, key: str, digits: int) -> str:
    value = summary.get(key)
    if value is None:
        return "n/a"
    interval = summary.get("ci95", {}).get(key.removesuffix("_mean") if key.endswith("_mean")
                                           else key) or summary.get("ci95", {}).get(key)
    text = f"{value:.{digits}f}"
    return f"{text} [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]" if interval else text


def main() -> None:
    summary = json.loads((Path(sys.argv[1]) / "summary.json").read_text())
    flat, hier = summary["flat"], summary["hierarchical"]
    print(f"| metric (mean [95% bootstrap CI]) | flat (n={flat['n']}) | hierarchical (n={hier['n']}) |")
    print("|---|---|---|")
    for label, key, digits in ROWS:
        print(f"| {label} | {cell(flat, key, digits)} | {cell(hier, key, digits)} |")


if __name__ == "__main__":
    main()

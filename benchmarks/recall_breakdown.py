"""Where an evaluation's support recall goes: by number of hops, and for every supporting
paragraph whether the report cited it, the research only retrieved it, or never found it.

Reads the evaluation's ``results.jsonl`` and the dataset it ran on; prints Markdown. The
losses are weighted like the metric (each paragraph counts 1/its question's supporting
paragraphs), so "retrieved, not cited" + "never retrieved" = 1 − cited support recall.

    python benchmarks/recall_breakdown.py runs/musique100 DATA/musique_dev100.jsonl
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research_studio.eval.corpus import normalize_text, paragraph_texts
from research_studio.eval.datasets import load_qa_dataset
from research_studio.eval.runner import ResultsFile

MODES = ("flat", "hierarchical")


def hop_count(record: dict) -> int:
    """Gold hops where the data gives a decomposition, else its supporting paragraphs."""
    return len(record.get("decomposition") or []) or sum(
        1 for p in record["paragraphs"] if p.get("is_supporting"))


def paragraph_status(record: dict, row: dict, texts: dict[str, str]) -> list[tuple[str, str]]:
    """(title, "cited" | "retrieved" | "missed") for each supporting paragraph. Matched by
    text, like the metric: the pooled corpus keeps one copy of a paragraph several
    questions share."""
    cited = {texts.get(d, "") for d in row.get("cited_doc_ids", [])}
    retrieved = {texts.get(d, "") for d in row.get("retrieved_doc_ids", [])}
    out = []
    for p in record["paragraphs"]:
        if p.get("is_supporting"):
            text = normalize_text(p["text"])
            out.append((p["title"], "cited" if text in cited else
                        "retrieved" if text in retrieved else "missed"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("dataset", type=Path)
    args = parser.parse_args()
    records = {r["id"]: r for r in load_qa_dataset(args.dataset)}
    texts = paragraph_texts(list(records.values()))
    rows = ResultsFile(args.out_dir / "results.jsonl").rows()
    scored = {(r["id"], r["mode"]): r for r in rows if "metrics" in r and r["id"] in records}
    modes = [m for m in MODES if any(mode == m for _, mode in scored)]

    by_hops: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for (qid, mode), row in scored.items():
        by_hops[(hop_count(records[qid]), mode)].append(row["metrics"])
    print("| hops | questions | " + " | ".join(f"{m} retrieved | {m} cited" for m in modes) + " |")
    print("|---|---|" + "---|---|" * len(modes))
    for hops in sorted({h for h, _ in by_hops}):
        cells = []
        for mode in modes:
            metrics = by_hops.get((hops, mode), [])
            for key in ("support_recall_retrieved", "support_recall_cited"):
                values = [m[key] for m in metrics if m.get(key) is not None]
                cells.append(f"{statistics.mean(values):.3f}" if values else "n/a")
        count = max(len(by_hops.get((hops, m), [])) for m in modes)
        print(f"| {hops} | {count} | " + " | ".join(cells) + " |")

    print("\n| mode | cited | retrieved, not cited | never retrieved |\n|---|---|---|---|")
    missed_titles: dict[str, Counter] = {m: Counter() for m in modes}
    for mode in modes:
        shares = Counter()
        questions = [(qid, row) for (qid, m), row in scored.items() if m == mode]
        for qid, row in questions:
            status = paragraph_status(records[qid], row, texts)
            for title, state in status:
                shares[state] += 1 / len(status)
                if state == "missed":
                    missed_titles[mode][title] += 1
        n = len(questions) or 1
        print(f"| {mode} | {shares['cited'] / n:.3f} | {shares['retrieved'] / n:.3f} | "
              f"{shares['missed'] / n:.3f} |")
    for mode in modes:
        common = ", ".join(f"{title} ({count})" for title, count
                           in missed_titles[mode].most_common(12)) or "none"
        print(f"\nNever retrieved, {mode} ({sum(missed_titles[mode].values())}): {common}")


if __name__ == "__main__":
    main()

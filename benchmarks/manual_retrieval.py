"""How well a search for a user's question finds the page and section of a manual that answers it.

Each line of a labelled file names a knowledge base, a question, the pages that answer it
(paths relative to the manual's root) and the heading of the section holding the answer on
the first of them (``benchmarks/data/manual_questions*.jsonl``, written by reading Debian's
documentation packages). For each search mode it prints, per knowledge base and over all:
the share of questions with an answering page among the top 1, 5 and 10 chunks, the mean
reciprocal rank of the first such chunk (0 when none is in the top 10), and the share with a
chunk of the answering section in the top 10.

    .venv/bin/python benchmarks/manual_retrieval.py benchmarks/data/manual_questions.jsonl \\
        --home ~/.research-studio [--kb git=git-doc ...] [--json out.json]

``--kb LABEL=NAME`` reads the questions labelled LABEL against the knowledge base NAME (the
labels are the names the files were written with: pg, handbook, apache, sqlite, git).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from rapidfuzz import fuzz

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.manual_questions import add_arguments, kb_names, on_answering_page, read_cases
from research_studio.config import load_context
from research_studio.knowledge.base import KnowledgeBaseRegistry, SearchHit

MODES = ("dense", "bm25", "hybrid")
DEPTH = 10
# a heading matches the labelled one when every word of the shorter is in the longer:
# section numbers ("26.3.2.") and a page's own title prefix are extra words, not a miss
SAME_HEADING = 90


def in_section(hit: SearchHit, page: str, heading: str) -> bool:
    if not on_answering_page(hit.location, [page]):
        return False
    shown = hit.section or hit.title
    return fuzz.token_set_ratio(shown.lower(), heading.lower()) >= SAME_HEADING


def score(hits: list[SearchHit], case: dict) -> dict[str, float]:
    ranks = [i for i, hit in enumerate(hits) if on_answering_page(hit.location, case["pages"])]
    first = ranks[0] + 1 if ranks else None
    return {
        "page@1": float(first == 1), "page@5": float(first is not None and first <= 5),
        "page@10": float(first is not None), "mrr": 1.0 / first if first else 0.0,
        "section@10": float(any(in_section(h, case["pages"][0], case["section"]) for h in hits)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    names = kb_names(args.kb)
    cases = read_cases(args.files)
    context = load_context(args.home)
    registry = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge)
    bases = {label: registry.open(names.get(label, label)) for label in {c["kb"] for c in cases}}
    figures: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    misses: list[str] = []
    for case in cases:
        for mode in MODES:
            found = score(bases[case["kb"]].search(case["question"], k=DEPTH, mode=mode), case)
            for metric, value in found.items():
                figures[(mode, case["kb"])][metric].append(value)
                figures[(mode, "all")][metric].append(value)
            if mode == "hybrid" and not found["page@10"]:
                misses.append(f"{case['kb']}: {case['question']}  [{case['pages'][0]}]")
    table = {f"{mode}/{kb}": {m: round(statistics.mean(v), 3) for m, v in metrics.items()}
             | {"n": len(metrics["mrr"])} for (mode, kb), metrics in sorted(figures.items())}
    print(f"{'mode/kb':<16} {'n':>3} {'page@1':>7} {'page@5':>7} {'page@10':>8} {'mrr':>6} "
          f"{'section@10':>10}")
    for key, row in table.items():
        print(f"{key:<16} {row['n']:>3} {row['page@1']:>7.3f} {row['page@5']:>7.3f} "
              f"{row['page@10']:>8.3f} {row['mrr']:>6.3f} {row['section@10']:>10.3f}")
    print(f"\nhybrid: no answering page in the top {DEPTH} ({len(misses)}):")
    for line in misses:
        print("  " + line)
    if args.json:
        args.json.write_text(json.dumps({"figures": table, "misses": misses}, indent=1))


if __name__ == "__main__":
    main()

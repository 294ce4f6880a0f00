"""Sweep the hybrid fusion settings (RRF k, BM25 weight, candidate depth) on a pooled corpus
built by ``retrieval.py --home DIR``; prints recall@10 for each setting.

    python benchmarks/fusion_sweep.py DATASET.jsonl --home DIR
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pooled_corpus import load_questions, text_of_paragraphs
from research_studio.config import load_context
from research_studio.knowledge.base import KnowledgeBaseRegistry


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--home", type=Path, required=True)
    args = parser.parse_args()
    questions = load_questions(args.dataset)
    texts = text_of_paragraphs(questions)
    context = load_context(args.home)
    registry = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge)
    kb = registry.open(args.dataset.stem.replace("_", "-"))
    print("| rrf_k | bm25_weight | depth | recall@5 | recall@10 |\n|---|---|---|---|---|")
    for rrf_k in (10, 30, 60):
        for weight in (0.3, 0.5, 0.7, 1.0):
            for depth in (50,):
                kb.settings = kb.settings.model_copy(update={
                    "rrf_k": rrf_k, "bm25_weight": weight, "candidate_depth": depth})
                r5, r10 = [], []
                for q in questions:
                    gold = {texts[p["id"]] for p in q["paragraphs"] if p["is_supporting"]}
                    found = [texts.get(h.doc_id) for h in kb.search(q["question"], k=10)]
                    r5.append(len(gold & set(found[:5])) / len(gold))
                    r10.append(len(gold & set(found)) / len(gold))
                print(f"| {rrf_k} | {weight} | {depth} | {statistics.mean(r5):.3f} | "
                      f"{statistics.mean(r10):.3f} |")


if __name__ == "__main__":
    main()

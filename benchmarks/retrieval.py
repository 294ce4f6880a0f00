"""Ingestion throughput and flat-retrieval recall on a pooled multi-hop QA corpus.

    python benchmarks/retrieval.py DATA/musique_dev100.jsonl [--out bench-out/x.json]

Pools the paragraphs of every question into one JSONL file, ingests it with the real
``research-studio ingest`` command into a fresh home (passages/s, chunks/s, peak memory of
that process), then for each question measures recall@5 and recall@10 of its
``is_supporting`` paragraphs with dense, BM25 and hybrid search, and query latency.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pooled_corpus import (
    load_questions,
    text_of_paragraphs,
    write_pooled_corpus,
)
from research_studio.config import load_context
from research_studio.knowledge.base import KnowledgeBaseRegistry

MODES = ("dense", "bm25", "hybrid")
CLI = Path(sys.executable).parent / "research-studio"


def ingest(corpus: Path, home: Path, kb: str) -> dict:
    started = time.perf_counter()
    result = subprocess.run([str(CLI), "ingest", str(corpus), "--kb", kb, "--json", "--home",
                             str(home)], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    summary = json.loads(result.stdout)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"records": summary["documents_added"] + summary["duplicates"],
            "documents_stored": summary["documents_added"], "duplicates": summary["duplicates"],
            "chunks": summary["chunks_added"], "ingest_s": round(summary["seconds"], 1),
            "process_wall_s": round(wall, 1),
            "passages_per_s": round((summary["documents_added"] + summary["duplicates"])
                                    / summary["seconds"], 1),
            "chunks_per_s": round(summary["chunks_added"] / summary["seconds"], 1),
            "peak_rss_mb": round(peak_mb)}


def recall(found_texts: list[str], gold_texts: set[str], k: int) -> float:
    return len(gold_texts & set(found_texts[:k])) / len(gold_texts)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--home", type=Path, help="reuse this home (default: a fresh one)")
    args = parser.parse_args()

    questions = load_questions(args.dataset)
    texts = text_of_paragraphs(questions)
    home = args.home or Path(tempfile.mkdtemp(prefix="rs-bench-"))
    corpus = home / "pooled.jsonl"
    records = write_pooled_corpus(questions, corpus)
    kb_name = args.dataset.stem.replace("_", "-")
    ingestion = ingest(corpus, home, kb_name)
    print(f"ingested {records} passages from {args.dataset.name}: {ingestion}")

    context = load_context(home)
    kb = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge).open(kb_name)
    kb.search("warm up", k=1)  # load the embedding model and build BM25 once
    results: dict[str, dict] = {}
    for mode in MODES:
        r5, r10, latencies = [], [], []
        for question in questions:
            gold = {texts[p["id"]] for p in question["paragraphs"] if p["is_supporting"]}
            started = time.perf_counter()
            hits = kb.search(question["question"], k=10, mode=mode)
            latencies.append((time.perf_counter() - started) * 1000)
            found = [" ".join(h.text.split()) for h in hits]
            found_docs = [texts.get(h.doc_id, t) for h, t in zip(hits, found, strict=True)]
            r5.append(recall(found_docs, gold, 5))
            r10.append(recall(found_docs, gold, 10))
        results[mode] = {"recall@5": round(statistics.mean(r5), 3),
                         "recall@10": round(statistics.mean(r10), 3),
                         "latency_ms_p50": round(percentile(latencies, 0.5), 1),
                         "latency_ms_p95": round(percentile(latencies, 0.95), 1)}
    print(f"\n{args.dataset.name}: {len(questions)} questions, pooled corpus of {records} passages")
    print("| mode | recall@5 | recall@10 | p50 ms | p95 ms |\n|---|---|---|---|---|")
    for mode, row in results.items():
        print(f"| {mode} | {row['recall@5']:.3f} | {row['recall@10']:.3f} | "
              f"{row['latency_ms_p50']} | {row['latency_ms_p95']} |")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"dataset": args.dataset.name, "questions": len(questions),
                                        "ingestion": ingestion, "retrieval": results}, indent=2))


if __name__ == "__main__":
    main()

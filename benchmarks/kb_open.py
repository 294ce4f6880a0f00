"""Opening a large knowledge base: `--help`, a cold `kb search`, and in-process search.

For each size a knowledge base of that many chunks is built once in ``--home`` (texts: the
paragraphs of the MuSiQue and HotpotQA files pooled and repeated with a counter; vectors:
seeded random unit vectors, so building 100k chunks takes minutes rather than an hour of
embedding — the dense query still runs on Chroma's index). Then, with whatever code this
interpreter imports:

- ``research-studio --help`` (new process, median of 3);
- ``research-studio kb search QUESTION --kb NAME`` in a new process (hybrid; median of 3);
- in this process: the first search after opening, then 50 questions in hybrid and BM25
  mode (p50 / p95 ms).

    python benchmarks/kb_open.py DATA/musique_dev100.jsonl DATA/hotpotqa_dev200.jsonl \\
        --sizes 10000 100000 --home bench-out/kb-open

Run it again with ``PYTHONPATH=<older checkout>/src`` to measure older code on the same
knowledge bases.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pooled_corpus import load_questions, text_of_paragraphs
from research_studio.config import load_context
from research_studio.knowledge.base import KnowledgeBaseRegistry

CLI = Path(sys.executable).parent / "research-studio"
BATCH = 4000


def build(home: Path, name: str, size: int, texts: list[str]) -> None:
    context = load_context(home)
    registry = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge)
    if name in registry.names() and registry.open(name).count() == size:
        return
    kb = registry.open(name, create=True)
    rng = np.random.default_rng(7)
    started = time.perf_counter()
    for lo in range(0, size, BATCH):
        ids = [f"c{i:07d}" for i in range(lo, min(size, lo + BATCH))]
        documents = [f"{texts[i % len(texts)]} ({i // len(texts)})" for i in range(lo, lo + len(ids))]
        vectors = rng.standard_normal((len(ids), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        kb.collection.add(ids=ids, documents=documents, embeddings=vectors,
                          metadatas=[{"title": f"passage {i % len(texts)}", "doc_id": f"d{i}",
                                      "location": f"pooled:{i}", "start": 0, "end": len(d)}
                                     for i, d in zip(range(lo, lo + len(ids)), documents,
                                                     strict=True)])
    kb._bump_revision()
    print(f"built {name}: {size} chunks in {time.perf_counter() - started:.0f} s")


def timed_process(*args: str) -> float:
    started = time.perf_counter()
    subprocess.run([str(CLI), *args], capture_output=True, check=True)
    return time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", type=Path, nargs="+")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--home", type=Path, default=Path("bench-out/kb-open"))
    args = parser.parse_args()
    questions = [q for dataset in args.datasets for q in load_questions(dataset)]
    texts = sorted({t for dataset in args.datasets
                    for t in text_of_paragraphs(load_questions(dataset)).values()})
    asked = [q["question"] for q in questions[:50]]
    home = args.home.resolve()
    print(f"--help: {statistics.median(timed_process('--help') for _ in range(3)):.2f} s")
    for size in args.sizes:
        name = f"open-{size}"
        build(home, name, size, texts)
        # the first process after a build pays whatever the code does on a first open
        first = timed_process("kb", "search", asked[0], "--kb", name, "--json", "--home", str(home))
        cold = statistics.median(timed_process("kb", "search", q, "--kb", name, "--json",
                                               "--home", str(home)) for q in asked[1:4])
        context = load_context(home)
        started = time.perf_counter()
        kb = KnowledgeBaseRegistry(context.kb_dir, context.settings.knowledge).open(name)
        kb.search(asked[4], k=10)
        first_in_process = time.perf_counter() - started
        rows = {}
        for mode in ("hybrid", "bm25"):
            latencies = []
            for question in asked:
                started = time.perf_counter()
                kb.search(question, k=10, mode=mode)
                latencies.append((time.perf_counter() - started) * 1000)
            rows[mode] = (percentile(latencies, 0.5), percentile(latencies, 0.95))
        print(f"{size:>7} chunks: first kb search process {first:.2f} s, later ones "
              f"{cold:.2f} s (median of 3); in process: open + first search "
              f"{first_in_process:.2f} s, hybrid p50/p95 {rows['hybrid'][0]:.1f}/"
              f"{rows['hybrid'][1]:.1f} ms, bm25 p50/p95 {rows['bm25'][0]:.1f}/"
              f"{rows['bm25'][1]:.1f} ms")


if __name__ == "__main__":
    main()

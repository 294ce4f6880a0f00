"""How the offline planner splits questions of every kind (issue 24), without running the
research: the plan is what analyze and plan decide before any retrieval.

    .venv/bin/python benchmarks/question_plans.py [DRB_TASKS.jsonl] [--show N]

Prints seed 001's five test queries with their kind, mode under ``--mode auto`` and
sub-questions; then, on DeepResearch Bench tasks, the plan's facet coverage: for each
task, the weighted mean over its ``comprehensiveness`` criteria of the best cosine
(MiniLM) between the criterion (name + explanation) and any sub-question, against the
bare task as its only sub-question; and how many sub-questions are fragments (not a
question of at least four words ending in "?"). Halves of the file are reported apart,
as a check that a gain is not one half's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.eval_data import eval_file
from research_studio.config import ResearchConfig
from research_studio.graph.nodes.analyze import choose_mode, offline_analysis, template_from_analysis
from research_studio.graph.nodes.plan import offline_decomposition
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.understanding import QuestionStructure, understand

SEED_QUERIES = [
    ("simple (flat)", "What is quantum computing?"),
    ("comparison", "Compare React, Vue, and Angular for building web applications"),
    ("multi-faceted", "Explain the causes, effects, and solutions to climate change"),
    ("evaluative", "Three experts disagree on climate tipping points: Expert A cites 2030 deadline, "
                   "Expert B cites 2050, Expert C says timelines are unknowable. Evaluate each "
                   "position and explain which evidence is stronger and why."),
    ("complex analytical", "How does machine learning work, what are its applications in "
                           "healthcare, and what are the ethical concerns?"),
]


def plan(question: str, embed) -> tuple[QuestionStructure, str, list[str]]:
    """The kind, the mode ``--mode auto`` picks and the sub-questions, as the product
    decides them offline with no knowledge base (chains and open questions then research
    the question itself and its background)."""
    structure = understand(question, embed)
    analysis = offline_analysis(structure).model_dump()
    config, _ = template_from_analysis(ResearchConfig(), analysis)  # type: ignore[arg-type]
    mode, _ = choose_mode(config.mode, analysis)  # type: ignore[arg-type]
    if mode == "flat":
        return structure, mode, [question]
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), config)  # type: ignore[arg-type]
    return structure, mode, [row[0] for row in rows]


def is_fragment(text: str) -> bool:
    return not (text.rstrip().endswith("?") and len(text.split()) >= 4)


def coverage(criteria: list[dict], sub_questions: list[str], embed) -> float:
    texts = [f"{c['criterion']}. {c['explanation']}" for c in criteria]
    weights = np.array([float(c.get("weight", 1.0)) for c in criteria])
    best = (embed(texts) @ embed(sub_questions).T).max(axis=1)
    return float((best * weights).sum() / weights.sum())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tasks", nargs="?", default=None,
                        help="DeepResearch Bench tasks (default: drb_en_tasks40.jsonl in "
                        "$RESEARCH_STUDIO_EVAL_DATA)")
    parser.add_argument("--show", type=int, default=3, help="print the plans of the first N tasks")
    args = parser.parse_args()
    embed = MiniLMOnnxEmbeddings().embed_array

    print("## Seed 001's test queries\n")
    for label, question in SEED_QUERIES:
        structure, mode, texts = plan(question, embed)
        print(f"- {label}: kind {structure.kind.value}, mode {mode}, {len(texts)} sub-question(s)")
        for text in texts:
            print(f"    - {text}")

    tasks_path = Path(args.tasks) if args.tasks else eval_file("drb_en_tasks40.jsonl")
    tasks = [json.loads(line) for line in tasks_path.read_text(encoding="utf-8").splitlines() if line]
    rows = []
    started = time.perf_counter()
    for task in tasks:
        criteria = task["criteria"]["criterions"]["comprehensiveness"]
        structure, mode, texts = plan(task["prompt"], embed)
        rows.append({"id": task["id"], "kind": structure.kind.value, "mode": mode, "plan": texts,
                     "bare": coverage(criteria, [task["prompt"]], embed),
                     "planned": coverage(criteria, texts, embed),
                     "fragments": sum(map(is_fragment, texts))})
    elapsed = time.perf_counter() - started
    print(f"\n## DeepResearch Bench tasks ({len(rows)}, {elapsed / len(rows) * 1000:.0f} ms per task)\n")
    print("| tasks | bare task | plan | gain | sub-questions | fragments |")
    print("|---|---|---|---|---|---|")
    half = len(rows) // 2
    for label, part in (("all", rows), ("first half", rows[:half]), ("second half", rows[half:])):
        bare = statistics.mean(r["bare"] for r in part)
        planned = statistics.mean(r["planned"] for r in part)
        count = statistics.mean(len(r["plan"]) for r in part)
        fragments = sum(r["fragments"] for r in part)
        print(f"| {label} ({len(part)}) | {bare:.3f} | {planned:.3f} | {planned - bare:+.3f} | "
              f"{count:.1f} | {fragments} |")
    kinds: dict[str, int] = {}
    for r in rows:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print("\nkinds: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1])))
    for r in rows[:args.show]:
        print(f"\ntask {r['id']} ({r['kind']}, coverage {r['bare']:.3f} → {r['planned']:.3f})")
        for text in r["plan"]:
            print(f"    - {text}")


if __name__ == "__main__":
    main()

"""How high facet coverage can go on DeepResearch Bench tasks for a plan made of the brief's
own words (issue 24's target is +0.10 over the bare task).

    .venv/bin/python benchmarks/facet_ceiling.py [DRB_TASKS.jsonl]

Coverage as in ``question_plans.py``. Besides the bare task and the offline plan, an
*oracle* plan: five texts picked one at a time by their gain **with the rubric in hand**,
from every piece of the brief (the brief itself, its sentences, its noun chunks, the
phrase under every noun and verb of the parse, the plan's sub-questions), and then also
from the planner's kind templates filled with the brief's topic. A planner that picks
from the same texts without seeing the rubric is not expected to beat it, so a ceiling
below the target says that the target needs aspects the brief does not state (what a
capable model's plan proposes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.eval_data import eval_file
from benchmarks.question_plans import coverage, plan
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.prompts import load_data
from research_studio.understanding.parser import parse

PLAN_SIZE = 5  # the most sub-questions a plan has (``max_sub_questions``)
MAX_PHRASE_TOKENS = 25  # a phrase longer than this is most of a sentence, already a piece


def brief_pieces(brief: str) -> list[str]:
    """The brief, its sentences, its noun chunks and the phrase each noun or verb heads."""
    doc = parse(brief, judge_language=False)
    if doc is None:
        return [brief]
    phrases = {doc[t.left_edge.i:t.right_edge.i + 1].text for t in doc if t.pos_ in ("NOUN", "PROPN", "VERB")
               and 2 <= t.right_edge.i - t.left_edge.i <= MAX_PHRASE_TOKENS}
    chunks = {c.text for c in doc.noun_chunks}
    return [brief, *(s.text for s in doc.sents), *sorted(phrases | chunks)]


def topic_templates(topic: str) -> list[str]:
    """Every question template of the offline planner that needs only a topic, filled with it."""
    filled = []
    for table in load_data("offline_plan").values():
        for template in table.values():
            try:
                text = template.format(topic=topic)
            except KeyError:  # it needs an item, a facet, a purpose …
                continue
            if text.endswith("?") and not text.startswith(" "):
                filled.append(text)
    return filled


def oracle(criteria: list[dict], pool: list[str], embed) -> float:
    """Coverage of the best ``PLAN_SIZE`` texts of the pool, picked one at a time by the gain."""
    texts = [f"{c['criterion']}. {c['explanation']}" for c in criteria]
    weights = np.array([float(c.get("weight", 1.0)) for c in criteria])
    similarity = embed(texts) @ embed(pool).T
    chosen: list[int] = []
    for _ in range(min(PLAN_SIZE, len(pool))):
        best = max((j for j in range(len(pool)) if j not in chosen),
                   key=lambda j: float((similarity[:, [*chosen, j]].max(axis=1) * weights).sum()))
        chosen.append(best)
    return float((similarity[:, chosen].max(axis=1) * weights).sum() / weights.sum())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tasks", nargs="?", default=None)
    args = parser.parse_args()
    tasks_path = Path(args.tasks) if args.tasks else eval_file("drb_en_tasks40.jsonl")
    tasks = [json.loads(line) for line in tasks_path.read_text(encoding="utf-8").splitlines() if line]
    embed = MiniLMOnnxEmbeddings().embed_array
    rows = []
    for task in tasks:
        criteria = task["criteria"]["criterions"]["comprehensiveness"]
        structure, _, texts = plan(task["prompt"], embed)
        pieces = [*brief_pieces(task["prompt"]), *texts]
        rows.append({
            "bare": coverage(criteria, [task["prompt"]], embed),
            "plan": coverage(criteria, texts, embed),
            "oracle of the brief's words": oracle(criteria, pieces, embed),
            "oracle with the templates": oracle(
                criteria, pieces + topic_templates(structure.topic or task["prompt"]), embed),
        })
    half = len(rows) // 2
    columns = list(rows[0])
    print("| tasks | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for label, part in (("all", rows), ("first half", rows[:half]), ("second half", rows[half:])):
        bare = statistics.mean(r["bare"] for r in part)
        cells = [f"{bare:.3f}"] + [f"{statistics.mean(r[c] for r in part) - bare:+.3f}" for c in columns[1:]]
        print(f"| {label} ({len(part)}) | " + " | ".join(cells) + " |")
    print("\n(columns after the first: gain over the bare task)")


if __name__ == "__main__":
    main()

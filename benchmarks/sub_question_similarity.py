"""Where a proposed sub-question stops being a new question (issue 26, item 3): the
sentence encoder's cosine between a question and its genuine sub-questions, between two
genuine sub-questions of one question, and between a question and restatements of it.

    .venv/bin/python benchmarks/sub_question_similarity.py

Genuine sub-questions: MuSiQue's human-written decompositions (``#1``-style references
replaced by the step's answer, as a planner would word them) and the offline planner's
plans of the DeepResearch Bench tasks. Restatements are mechanical (the question
lower-cased without its question mark, as a request, with a request added): they show
how close a copy scores, not every way a model may copy. Prints the distributions, the
lowest threshold that drops at most 1% of genuine pairs for each of the planner's
``sub_question_copy_similarity`` and ``sub_question_duplicate_similarity``, and the
planner's rule (same content words, or the encoder's cosine at the shipped threshold)
against the content-term Jaccard rule it replaced.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.eval_data import eval_file
from research_studio.config import ResearchConfig
from research_studio.graph.nodes.plan import offline_decomposition
from research_studio.graph.text_analysis import content_terms, similar_text
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.understanding import understand

# A copy left in the plan costs one sub-agent's research of the same question; a genuine
# sub-question dropped (often a chain's hop, which reads close to its question) costs the
# evidence the answer needs. So the threshold is set by the genuine pairs.
MAX_GENUINE_DROPPED = 0.01


def musique_steps(record: dict) -> list[str]:
    """The decomposition's questions with each ``#N`` replaced by step N's answer."""
    steps = record.get("decomposition") or []
    answers = [step.get("answer", "") for step in steps]
    return [re.sub(r"#(\d+)", lambda m: answers[int(m.group(1)) - 1]
                   if int(m.group(1)) <= len(answers) else m.group(0), step["question"])
            for step in steps]


def restatements(question: str) -> list[str]:
    bare = question.rstrip("?").strip()
    return [bare.lower(), f"Tell me {bare[0].lower()}{bare[1:]}.", f"{question} Please explain."]


def same_words(a: str, b: str) -> bool:
    return content_terms(a) == content_terms(b)


def cosines(embed, pairs: list[tuple[str, str]]) -> np.ndarray:
    if not pairs:
        return np.zeros(0)
    a = embed([p[0] for p in pairs])
    b = embed([p[1] for p in pairs])
    return (a * b).sum(axis=1)


def describe(label: str, values: np.ndarray) -> None:
    q = np.quantile(values, [0.5, 0.9, 0.99, 1.0])
    print(f"| {label} | {len(values)} | {q[0]:.3f} | {q[1]:.3f} | {q[2]:.3f} | {q[3]:.3f} |")


def share_at_least(values: np.ndarray, threshold: float) -> float:
    return float((values >= threshold).mean()) if len(values) else 0.0


def main() -> None:
    embed = MiniLMOnnxEmbeddings().embed_array
    question_step: list[tuple[str, str]] = []
    step_step: list[tuple[str, str]] = []
    copies: list[tuple[str, str]] = []
    step_copies: list[tuple[str, str]] = []
    for line in eval_file("musique_dev100.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        steps = musique_steps(record)
        question_step += [(record["question"], s) for s in steps]
        step_step += [(a, b) for i, a in enumerate(steps) for b in steps[i + 1:]]
        copies += [(record["question"], r) for r in restatements(record["question"])]
        step_copies += [(s, r) for s in steps for r in restatements(s)]
    config = ResearchConfig()
    for line in eval_file("drb_en_tasks40.jsonl").read_text(encoding="utf-8").splitlines():
        prompt = json.loads(line)["prompt"]
        structure = understand(prompt, embed)
        rows, _ = offline_decomposition(prompt, structure, SimpleNamespace(kb=None), config)  # type: ignore[arg-type]
        texts = [row[0] for row in rows if row[0] != prompt]
        question_step += [(prompt, t) for t in texts]
        step_step += [(a, b) for i, a in enumerate(texts) for b in texts[i + 1:]]
        copies += [(prompt, r) for r in restatements(prompt)]

    q_step, s_step = cosines(embed, question_step), cosines(embed, step_step)
    q_copy, s_copy = cosines(embed, copies), cosines(embed, step_copies)
    print("| pairs | n | median | p90 | p99 | max |")
    print("|---|---|---|---|---|---|")
    describe("question, genuine sub-question", q_step)
    describe("two genuine sub-questions", s_step)
    describe("question, restatement", q_copy)
    describe("sub-question, restatement", s_copy)
    print()
    runs = (("sub_question_copy_similarity", q_step, q_copy, question_step, copies, 0.9),
            ("sub_question_duplicate_similarity", s_step, s_copy, step_step, step_copies, 0.8))
    for field, genuine, copied, genuine_pairs, copy_pairs, jaccard in runs:
        lexical = (np.mean([similar_text(a, b, jaccard) for a, b in genuine_pairs]),
                   np.mean([similar_text(a, b, jaccard) for a, b in copy_pairs]))
        print(f"{field}: content-term Jaccard {jaccard} (the rule before): genuine dropped "
              f"{lexical[0]:.3f}, restatements caught {lexical[1]:.3f}")
        shipped = getattr(ResearchConfig(), field)
        union = [(np.array([same_words(a, b) for a, b in pairs]) | (values >= shipped)).mean()
                 for pairs, values in ((genuine_pairs, genuine), (copy_pairs, copied))]
        print(f"  the planner's rule (same content words, or cosine >= {shipped:.2f}): genuine "
              f"dropped {union[0]:.3f}, restatements caught {union[1]:.3f}")
        grid = np.round(np.arange(0.80, 1.0, 0.01), 2)
        lowest = next(t for t in grid if share_at_least(genuine, t) <= MAX_GENUINE_DROPPED)
        shipped = getattr(ResearchConfig(), field)
        print(f"{field}: lowest value dropping at most {MAX_GENUINE_DROPPED:.0%} of genuine "
              f"pairs {lowest:.2f}; shipped {shipped:.2f}: genuine dropped "
              f"{share_at_least(genuine, shipped):.3f}, restatements caught "
              f"{share_at_least(copied, shipped):.3f}")

if __name__ == "__main__":
    main()

"""How the sub-questions that follow a linked name read: the question embedded after
"about" ("What can we learn from WAL about how I set up replication?"), embedded after
what opens it ("Given that my -wal file keeps growing, what can we learn from X about what
can cause that?"), or given whole after a colon ("… about this question: <the text>"),
the form a reader has to untangle. No knowledge base is needed: the wording depends on the
question alone, so every question the kind templates do not split is counted.

    .venv/bin/python benchmarks/linked_wording.py FILE [FILE ...] [--show N]

FILE: JSONL with a "question" or "prompt" field (the manual questions, the question
shapes, MuSiQue, HotpotQA, DeepResearch Bench tasks). Prints per file how many questions
get linked sub-questions and the share of each wording; ``--show`` prints the first N
questions still given whole.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research_studio.config import ResearchConfig
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.understanding import understand
from research_studio.understanding.decompose import decompose
from research_studio.understanding.embedded import embedded_question, lead_and_question
from research_studio.understanding.parser import parse

WORDINGS = ("embedded", "after its lead-in", "given whole")


def wording(question: str) -> str:
    """Which form ``decompose.linked_questions`` gives the question."""
    doc = parse(question)
    if embedded_question(question, doc):
        return WORDINGS[0]
    return WORDINGS[1] if lead_and_question(question, doc) else WORDINGS[2]


def questions(path: Path) -> list[str]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r.get("question") or r.get("prompt") or "" for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--show", type=int, default=0, help="print N questions still given whole per file")
    args = parser.parse_args()
    embed = MiniLMOnnxEmbeddings().embed_array
    limit = ResearchConfig().max_sub_questions
    print("| file | questions | linked | embedded | after its lead-in | given whole |")
    print("|---|---|---|---|---|---|")
    whole: dict[str, list[str]] = {}
    for path in args.files:
        texts = questions(path)
        counts: Counter[str] = Counter()
        for text in texts:
            structure = understand(text, embed)
            if len(decompose(structure, limit)) >= 2:
                continue  # split by its kind: no sub-question follows a linked name
            asked = structure.premised_question or structure.as_question
            form = wording(asked)
            counts[form] += 1
            if form == WORDINGS[2]:
                whole.setdefault(path.name, []).append(asked)
        linked = sum(counts.values()) or 1
        shares = " | ".join(f"{counts[w]} ({counts[w] / linked:.2f})" for w in WORDINGS)
        print(f"| {path.name} | {len(texts)} | {sum(counts.values())} | {shares} |")
    for name, texts in whole.items():
        for text in texts[:args.show]:
            print(f"- {name}: {text}")


if __name__ == "__main__":
    main()

"""Pool the paragraphs of a normalised QA file into one JSON Lines corpus for ingestion.

Each paragraph becomes a record ``{"id", "title", "text"}``; its id (``<qid>#<n>``)
becomes the ``doc_id`` of what the knowledge base stores.
"""

from __future__ import annotations

import json
from pathlib import Path


def load_questions(dataset: Path) -> list[dict]:
    with dataset.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def write_pooled_corpus(questions: list[dict], out: Path) -> int:
    """Write every paragraph of every question; returns the number of records."""
    out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for question in questions:
            for paragraph in question["paragraphs"]:
                record = {"id": paragraph["id"], "title": paragraph["title"],
                          "text": paragraph["text"]}
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
    return count


def text_of_paragraphs(questions: list[dict]) -> dict[str, str]:
    """Paragraph id -> normalised text; identical texts under two ids are stored once,
    so a retrieved id stands for every paragraph with the same text."""
    return {p["id"]: " ".join(p["text"].split()) for q in questions for p in q["paragraphs"]}

"""What a question asks for, judged by the sentence encoder against exemplar questions.

The exemplars (``prompts/question_kinds.toml``) say what each kind of question asks;
the encoder generalises from them to wordings nobody listed. Structure (how many items,
facets or clauses) is the parser's job, in ``facets`` and ``chains``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from research_studio.prompts import load_data

Embed = Callable[[list[str]], np.ndarray]
# A kind's score is the mean cosine of its closest exemplars: one lucky exemplar should
# not decide, and every kind has at least this many.
NEAREST_EXEMPLARS = 2


def exemplars() -> dict[str, list[str]]:
    return load_data("question_kinds")["kinds"]


@lru_cache(maxsize=4)
def _exemplar_matrix(embed: Embed) -> tuple[list[str], np.ndarray]:
    """Every exemplar embedded once per encoder (labels in the same order as rows)."""
    labels, texts = [], []
    for kind, questions in exemplars().items():
        labels += [kind] * len(questions)
        texts += questions
    return labels, embed(texts)


def kind_scores(question: str, embed: Embed) -> dict[str, float]:
    """Each kind's likeness to the question (cosine, higher is closer)."""
    labels, matrix = _exemplar_matrix(embed)
    row = matrix @ embed([question])[0]
    scores: dict[str, float] = {}
    for kind in dict.fromkeys(labels):
        mine = np.sort(row[[i for i, label in enumerate(labels) if label == kind]])[::-1]
        scores[kind] = round(float(mine[:NEAREST_EXEMPLARS].mean()), 4)
    return scores

"""What a question asks for, judged by the sentence encoder against exemplar questions.

The exemplars (``prompts/question_kinds.toml``) say what each kind of question asks;
the encoder generalises from them to wordings nobody listed. Structure (how many items,
facets or clauses) is the parser's job, in ``facets`` and ``chains``.
"""

from __future__ import annotations

from research_studio.understanding.exemplars import Embed, exemplar_scores

__all__ = ["Embed", "kind_scores"]


def kind_scores(question: str, embed: Embed) -> dict[str, float]:
    """Each kind's likeness to the question (cosine, higher is closer)."""
    [scores] = exemplar_scores([question], embed, "question_kinds", "kinds")
    return {kind: round(score, 4) for kind, score in scores.items()}

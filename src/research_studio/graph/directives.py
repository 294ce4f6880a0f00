"""Sentences in a source that address the AI doing the research instead of informing a
reader (prompt injection), judged by the sentence encoder against exemplars.

A document may instruct its human reader ("Run the command as superuser") and state facts;
neither is suspicious. What is never evidence is a sentence aimed at the model or at the
research itself ("From now on the plan must contain one sub-question …"), however it is
worded: the exemplars in ``prompts/source_directives.toml`` describe the three classes and
the encoder carries the judgement to wordings nobody listed. Such sentences are dropped
before they can become findings, claims or the answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from research_studio.prompts import load_data
from research_studio.understanding.parser import english

Embed = Callable[[list[str]], np.ndarray]
AIMED = "to_assistant"
# A class's score is the mean cosine of its closest exemplars, so that one lucky exemplar
# does not decide.
NEAREST_EXEMPLARS = 2


@lru_cache(maxsize=4)
def _exemplars(embed: Embed) -> tuple[list[str], np.ndarray]:
    """Every exemplar embedded once per encoder (labels in row order)."""
    labels, texts = [], []
    for label, sentences in load_data("source_directives")["classes"].items():
        labels += [label] * len(sentences)
        texts += sentences
    return labels, embed(texts)


def directive_scores(sentences: Sequence[str], embed: Embed) -> list[dict[str, float]]:
    """Each sentence's likeness to each class (cosine; higher is closer)."""
    if not sentences:
        return []
    labels, matrix = _exemplars(embed)
    similarity = embed(list(sentences)) @ matrix.T
    classes = list(dict.fromkeys(labels))
    columns = {c: [i for i, label in enumerate(labels) if label == c] for c in classes}
    out = []
    for row in similarity:
        out.append({c: float(np.sort(row[columns[c]])[::-1][:NEAREST_EXEMPLARS].mean())
                    for c in classes})
    return out


def aimed_at_assistant(scores: dict[str, float], min_similarity: float, margin: float) -> bool:
    """Closer to the injected-instruction exemplars than to any other class by ``margin``,
    and close to them in absolute terms."""
    others = max(v for k, v in scores.items() if k != AIMED)
    return scores[AIMED] >= min_similarity and scores[AIMED] - others >= margin


def gives_orders(sentence: str) -> bool:
    """Whether the sentence is worded as an order or addresses someone: an imperative main
    verb (base form, no subject), a modal of obligation or permission, or a second-person
    pronoun — from spaCy's tags and morphology. Statements of fact, the bulk of any
    source, are none of these, so the encoder's judgement is only asked where it matters.
    Text the English parser cannot read counts as an order: it is judged by the encoder
    alone."""
    nlp = english()
    if nlp is None:
        return True
    doc = nlp(sentence)
    for token in doc:
        if token.tag_ == "MD" or "Person=2" in str(token.morph):
            return True
        if token.dep_ == "ROOT" and token.tag_ == "VB" and not any(
                child.dep_ in ("nsubj", "nsubjpass", "expl") for child in token.children):
            return True
    return False


def directives_among(sentences: Sequence[str], embed: Embed, min_similarity: float,
                     margin: float) -> set[int]:
    """Indices of the sentences that address the AI rather than a reader: worded as an
    order and, by the encoder, aimed at a model or the research rather than a person."""
    return {i for i, scores in enumerate(directive_scores(sentences, embed))
            if aimed_at_assistant(scores, min_similarity, margin) and gives_orders(sentences[i])}

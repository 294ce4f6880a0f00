"""How relevant a verified claim is to what was asked, by the sentence encoder.

The report shows a claim only when it is about its sub-question or the whole question:
a verified quote can be true and still answer nothing (a Python-documentation sentence in a
report on elderly consumption). Relevance is the encoder's cosine of the claim with the
closer of the two texts, so a chain's later hop ("Anna Murray married Frederick Douglass")
counts for its own sub-question even when it shares little with the question's wording.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from research_studio.graph.deps import SimilarityFn
from research_studio.knowledge.structure import in_place
from research_studio.state import Claim
from research_studio.understanding.answer_type import asked_thing
from research_studio.understanding.names import entities
from research_studio.understanding.parser import parse, parse_batch
from research_studio.understanding.statements import has_for_subject, term_names


def claim_relevance(question: str, sub_question_text: dict[str, str], claims: Sequence[Claim],
                    similarity: SimilarityFn) -> dict[str, float]:
    """claim_id -> cosine with its sub-question or the question, whichever is higher.
    Every claim and every asked text is embedded once."""
    if not claims:
        return {}
    asked = list(dict.fromkeys([question, *sub_question_text.values()]))
    column = {text: i for i, text in enumerate(asked)}
    # a claim is read in its place, after the term its description is about
    matrix = np.asarray(similarity([in_place(c["text"], c.get("context", "")) for c in claims], asked))
    relevance: dict[str, float] = {}
    for row, claim in enumerate(claims):
        own = sub_question_text.get(claim.get("sub_question_id", ""), question)
        relevance[claim["claim_id"]] = round(float(max(matrix[row, column[question]],
                                                       matrix[row, column[own]])), 4)
    return relevance


def relevant_claims(claims: Sequence[Claim], relevance: dict[str, float],
                    min_relevance: float) -> list[Claim]:
    """The claims that pass the gate, in their given order."""
    return [c for c in claims if relevance.get(c["claim_id"], 0.0) >= min_relevance]


def bridged_claims(question: str, claims: Sequence[Claim], passing: Sequence[Claim],
                   relevance: dict[str, float], floor: float) -> list[Claim]:
    """Claims below the gate but above ``floor`` that name an entity a passing claim names
    and the question does not: the next hop of a chain (the publisher's wife is found
    through the publisher's name, which the question never says)."""
    asked = question.lower()
    bridges = {name for claim in passing for name in entities(claim["text"])
               if name.lower() not in asked}
    chosen = {c["claim_id"] for c in passing}
    return [c for c in claims if c["claim_id"] not in chosen
            and relevance.get(c["claim_id"], 0.0) >= floor
            and any(name in c["text"] for name in bridges)]


# how a claim speaks of what its section asks about, most direct first: the thing its
# subject, the term of the definition list entry it describes, or neither
BY_SUBJECT, BY_TERM, OTHERWISE = 0, 1, 2


def defining_claims(shown_by_sq: Sequence[tuple[dict, Sequence[Claim]]]) -> dict[str, int]:
    """The claims that state what their section's sub-question asks about, by id, with how
    (``BY_SUBJECT``: "A bare repository is normally a directory …" for "What is a bare
    repository?"; ``BY_TERM``: a sentence of the "push.default" entry for "What does the
    push.default option control?"): they open the section and the answer. The encoder ranks
    a short sentence that merely names the thing above them ("Usually publishers of public
    repositories make bare repositories available")."""
    found: dict[str, int] = {}
    for sq, shown in shown_by_sq:
        thing = asked_thing(parse(sq["question_text"])) if shown else None
        if thing is None:
            continue
        docs = parse_batch([c["text"] for c in shown])
        for claim, doc in zip(shown, docs, strict=True):
            if has_for_subject(doc, thing):
                found[claim["claim_id"]] = BY_SUBJECT
            elif claim.get("context") and term_names(claim["context"], thing):
                found[claim["claim_id"]] = BY_TERM
    return found

"""The short answer of a question that asks for a thing, taken from the verified evidence.

Offline there is no model to write an answer, and a whole sentence picked by word overlap
answers "Who married the publisher of The North Star?" with a sentence about the
newspaper. What the question asks for (a person, a place, a date, a number …) is judged
by the sentence encoder against exemplar questions (``prompts/answer_types.toml``); the
answer is the entity of that type, found by spaCy's named-entity recogniser in the
report's shown claims, that the question and the plan do not already name (those are the
question's own subjects and the chain's bridges), from the claim most relevant to the
question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from research_studio.eval.metrics import normalize_answer
from research_studio.prompts import load_data
from research_studio.state import Claim
from research_studio.understanding.parser import english, parse

Embed = Callable[[list[str]], np.ndarray]
NO_SINGLE_THING = "explanation"
_QUESTION_TAGS = ("WDT", "WP", "WRB", "WP$")  # Penn tags of question words
# a type's score is the mean cosine of its closest exemplars (as question kinds are judged)
NEAREST_EXEMPLARS = 2


@dataclass(frozen=True)
class ShortAnswer:
    text: str
    answer_type: str
    claim_id: str

    def to_dict(self) -> dict[str, str]:
        return {"text": self.text, "type": self.answer_type, "claim_id": self.claim_id}


def answer_types() -> dict[str, dict]:
    return load_data("answer_types")["types"]


@lru_cache(maxsize=4)
def _exemplar_matrix(embed: Embed) -> tuple[list[str], np.ndarray]:
    labels, texts = [], []
    for name, spec in answer_types().items():
        labels += [name] * len(spec["questions"])
        texts += spec["questions"]
    return labels, embed(texts)


def asked_phrase(question: str) -> str | None:
    """The words that say what is asked: the question word with the noun it determines
    ("What year", "Which county") or the verb it hangs from ("Who married", "When is").
    The rest of a multi-hop question describes the thing asked for and would pull the
    encoder towards its own subject ("… the network which …" is not asking for a network).
    None without a question word (a yes/no question or an instruction asks for no thing)
    and for a question that does not parse as English: its asking words are unknown."""
    doc = parse(question)
    if doc is None:
        return None
    asking = next((t for t in doc if t.tag_ in _QUESTION_TAGS), None)
    if asking is None:
        return None
    head = asking.head
    if head.pos_ in ("NOUN", "PROPN") and head.i > asking.i:
        return doc[asking.i:head.i + 1].text
    following = doc[asking.i + 1] if asking.i + 1 < len(doc) else None
    if following is not None and following.pos_ in ("NOUN", "PROPN"):
        return doc[asking.i:asking.i + 2].text
    return f"{asking.text} {head.text}" if head.i > asking.i else asking.text


def asked_type(question: str, embed: Embed) -> str:
    """The answer type whose exemplar questions are nearest to what ``question`` asks."""
    phrase = asked_phrase(question)
    if phrase is None:
        return NO_SINGLE_THING
    labels, matrix = _exemplar_matrix(embed)
    row = matrix @ embed([phrase])[0]
    best, best_score = NO_SINGLE_THING, -1.0
    for name in dict.fromkeys(labels):
        mine = np.sort(row[[i for i, label in enumerate(labels) if label == name]])[::-1]
        score = float(mine[:NEAREST_EXEMPLARS].mean())
        if score > best_score:
            best, best_score = name, score
    return best


def _named_in(name: str, asked: str) -> bool:
    """Whether the question or plan already names this entity (the answer is new)."""
    words = normalize_answer(name)
    return bool(words) and f" {words} " in f" {asked} "


def offers_alternatives(question: str) -> bool:
    """"Which is higher, A or B?": names joined by the disjunction in the parse. Its answer
    is one of the question's own names, decided by comparing evidence, which an entity
    the question does not name can never be."""
    doc = parse(question)
    return doc is not None and any(t.dep_ == "cc" and t.lower_ == "or"
                                   and t.head.pos_ in ("NOUN", "PROPN") for t in doc)


def short_answer(question: str, asked_texts: Sequence[str], claims: Sequence[Claim],
                 relevance: dict[str, float], embed: Embed) -> ShortAnswer | None:
    """The entity that answers ``question`` from ``claims`` (most relevant first), or None
    when the question asks for no single thing, offers its own alternatives, or no claim
    names an entity of its type."""
    if offers_alternatives(question):
        return None
    answer_type = asked_type(question, embed)
    labels = set(answer_types()[answer_type]["labels"])
    nlp = english()
    if not labels or nlp is None or not claims:
        return None
    asked = " ".join(normalize_answer(text) for text in [question, *asked_texts])
    ranked = sorted(claims, key=lambda c: -relevance.get(c["claim_id"], 0.0))
    for claim, doc in zip(ranked, nlp.pipe([c["text"] for c in ranked]), strict=True):
        for entity in doc.ents:
            if entity.label_ in labels and not _named_in(entity.text, asked):
                # "Nelson Rockefeller's": the possessive ending is not part of the name
                words = entity[:-1] if len(entity) > 1 and entity[-1].tag_ == "POS" else entity
                return ShortAnswer(words.text, answer_type, claim["claim_id"])
    return None

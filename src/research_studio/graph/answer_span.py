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

from collections.abc import Sequence
from dataclasses import dataclass

from spacy.tokens import Doc

from research_studio.eval.metrics import normalize_answer
from research_studio.prompts import load_data
from research_studio.state import Claim
from research_studio.understanding.exemplars import Embed, exemplar_scores
from research_studio.understanding.parser import parse, parse_batch

NO_SINGLE_THING = "explanation"
_QUESTION_TAGS = ("WDT", "WP", "WRB", "WP$")  # Penn tags of question words


@dataclass(frozen=True)
class ShortAnswer:
    text: str
    answer_type: str
    claim_id: str

    def to_dict(self) -> dict[str, str]:
        return {"text": self.text, "type": self.answer_type, "claim_id": self.claim_id}


def entity_labels(answer_type: str) -> set[str]:
    """The spaCy entity labels that can fill an answer type."""
    return set(load_data("answer_types")["labels"][answer_type])


def asked_phrase(doc: Doc | None) -> str | None:
    """The words that say what is asked: the question word with the noun it determines
    ("What year", "Which county") or the verb it hangs from ("Who married", "When is").
    The rest of a multi-hop question describes the thing asked for and would pull the
    encoder towards its own subject ("… the network which …" is not asking for a network).
    None without a question word (a yes/no question or an instruction asks for no thing)
    and for a question that does not parse as English (``doc`` None): its asking words are
    unknown."""
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


def asked_type(question: str | Doc | None, embed: Embed) -> str:
    """The answer type whose exemplar questions are nearest to what the question (its
    text, or its parse) asks."""
    phrase = asked_phrase(parse(question) if isinstance(question, str) else question)
    if phrase is None:
        return NO_SINGLE_THING
    [scores] = exemplar_scores([phrase], embed, "answer_types", "questions")
    return max(scores, key=lambda name: scores[name])


def _named_in(name: str, asked: str) -> bool:
    """Whether the question or plan already names this entity (the answer is new)."""
    words = normalize_answer(name)
    return bool(words) and f" {words} " in f" {asked} "


def offers_alternatives(doc: Doc | None) -> bool:
    """"Which is higher, A or B?": names joined by the disjunction in the parse. Its answer
    is one of the question's own names, decided by comparing evidence, which an entity
    the question does not name can never be."""
    return doc is not None and any(t.dep_ == "cc" and t.lower_ == "or"
                                   and t.head.pos_ in ("NOUN", "PROPN") for t in doc)


def short_answer(question: str, asked_texts: Sequence[str], claims: Sequence[Claim],
                 relevance: dict[str, float], embed: Embed) -> ShortAnswer | None:
    """The entity that answers ``question`` from ``claims`` (most relevant first), or None
    when the question asks for no single thing, offers its own alternatives, or no claim
    names an entity of its type."""
    question_doc = parse(question)
    if question_doc is None or offers_alternatives(question_doc) or not claims:
        return None
    answer_type = asked_type(question_doc, embed)
    labels = entity_labels(answer_type)
    if not labels:
        return None
    asked = " ".join(normalize_answer(text) for text in [question, *asked_texts])
    ranked = sorted(claims, key=lambda c: -relevance.get(c["claim_id"], 0.0))
    # the whole pipeline: the parser's sentence boundaries shape the entities of run-on text
    docs = parse_batch([c["text"] for c in ranked])
    for claim, doc in zip(ranked, docs, strict=True):
        for entity in doc.ents if doc is not None else ():
            if entity.label_ in labels and not _named_in(entity.text, asked):
                # "Nelson Rockefeller's": the possessive ending is not part of the name
                words = entity[:-1] if len(entity) > 1 and entity[-1].tag_ == "POS" else entity
                return ShortAnswer(words.text, answer_type, claim["claim_id"])
    return None

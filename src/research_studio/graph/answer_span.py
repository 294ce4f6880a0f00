"""The short answer of a question that asks for a thing, taken from the verified evidence.

Offline there is no model to write an answer, and a whole sentence picked by word overlap
answers "Who married the publisher of The North Star?" with a sentence about the
newspaper. What the question asks for (a person, a place, a date, a number …) is judged
by the sentence encoder against exemplar questions (``understanding.answer_type``); the
answer is the entity of that type, found by spaCy's named-entity recogniser in the
report's shown claims, that the question and the plan do not already name (those are the
question's own subjects and the chain's bridges), from the claim most relevant to the
question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from spacy.tokens import Doc

from research_studio.eval.metrics import normalize_answer
from research_studio.prompts import load_data
from research_studio.state import Claim
from research_studio.understanding.answer_type import asked_noun, asked_type
from research_studio.understanding.exemplars import Embed
from research_studio.understanding.facets import disjunction
from research_studio.understanding.parser import parse, parse_batch


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


def parse_claims(claims: Sequence[Claim]) -> dict[str, Doc | None]:
    """Each claim's parse by its id, through the whole pipeline in one batch (the writer
    parses the claims it shows once, for the short answer and for the answer paragraph)."""
    return dict(zip((c["claim_id"] for c in claims), parse_batch([c["text"] for c in claims]), strict=True))


def _named_in(name: str, asked: str) -> bool:
    """Whether the question or plan already names this entity (the answer is new)."""
    words = normalize_answer(name)
    return bool(words) and f" {words} " in f" {asked} "


def offers_alternatives(doc: Doc | None) -> bool:
    """"Which is higher, A or B?": names joined by the disjunction in the parse. Its answer
    is one of the question's own names, decided by comparing evidence, which an entity
    the question does not name can never be."""
    return doc is not None and any(t.dep_ == "cc" and disjunction(t)
                                   and t.head.pos_ in ("NOUN", "PROPN") for t in doc)


def short_answer(question: str, asked_texts: Sequence[str], claims: Sequence[Claim],
                 relevance: dict[str, float], embed: Embed,
                 parsed: Mapping[str, Doc | None] | None = None,
                 compares: bool = False) -> ShortAnswer | None:
    """The entity that answers ``question`` from ``claims`` (most relevant first), or None
    when the question asks for no single thing, offers its own alternatives (``compares``:
    its plan compares named items, "git merge vs git rebase: which one …?"), or no claim
    names an entity of its type. ``parsed``: the claims' parses by id, when the caller has
    them (``parse_claims``)."""
    question_doc = parse(question)
    if question_doc is None or compares or offers_alternatives(question_doc) or not claims:
        return None
    answer_type = asked_type(question_doc, embed)
    labels = entity_labels(answer_type)
    if not labels:
        return None
    asked = " ".join(normalize_answer(text) for text in [question, *asked_texts])
    ranked = sorted(claims, key=lambda c: -relevance.get(c["claim_id"], 0.0))
    if parsed is None:  # the whole pipeline: its sentence boundaries shape the entities of run-on text
        parsed = parse_claims(ranked)
    found = [(claim, entity) for claim in ranked if (doc := parsed[claim["claim_id"]]) is not None
             for entity in doc.ents if entity.label_ in labels and not _named_in(entity.text, asked)]
    if not found:
        return None
    noun = asked_noun(question_doc)
    # "What port …?": the claim that names a port ("listens on port 5432") before a more
    # relevant one whose number counts something else ("up to three standby servers")
    claim, entity = next((pair for pair in found if noun is not None and any(
        t.lemma_.lower() == noun.lemma_.lower() for t in pair[1].sent)), found[0])
    # "Nelson Rockefeller's": the possessive ending is not part of the name
    words = entity[:-1] if len(entity) > 1 and entity[-1].tag_ == "POS" else entity
    return ShortAnswer(words.text, answer_type, claim["claim_id"])

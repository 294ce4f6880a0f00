"""Sentences that point into the text instead of stating something: "Section 2 describes
the steps an application must take …", "See Chapter 13 for more information about …",
"This document provides background information about …".

Such a sentence names its topic densely, so it ranks first among a passage's sentences,
and tells the reader only where the answer is written. It is told by its skeleton: what
the main clause speaks of (its subject, or an instruction's object: "Section 2", "Chapter
13") and what it says of it (the verb: "describes", "See"), each judged by the sentence
encoder against exemplars (``prompts/text_pointers.toml``). Judged apart, as a part of a
text and as telling: the name of a part alone would decide a phrase of both ("The
<IfModule> section is used to mark directives …" speaks of a configuration section), and
the rest of the sentence, left out, names the topic that would pull the encoder.
"""

from __future__ import annotations

from collections.abc import Sequence

from spacy.tokens import Doc, Span, Token

from research_studio.understanding.exemplars import Embed, exemplar_scores
from research_studio.understanding.parser import parse_batch
from research_studio.understanding.text_memory import TextMemory

_SUBJECTS = ("nsubj", "nsubjpass")
# the skeleton reads the tagger's and the parser's output, no entity: the recogniser is
# half the cost of the parse
_UNREAD = ("ner",)
_JOINED_CLAUSES = ("ccomp", "advcl", "conj", "parataxis")
_SUBJECT_WORDS = ("det", "compound", "amod", "nummod", "poss")
# A subject longer than this is cut to its head and the words that name it ("The rest of
# this page" keeps its words; "The parent key definitions of foreign key constraints"
# becomes "The parent key definitions"): a long subject carries the topic.
_SUBJECT_TOKENS = 6


def _named(noun: Token) -> str:
    """A noun with the words that name it: those before it ("the following", "this") and
    a number after it ("Section 3.4"), not the phrases that say what it is about ("the
    tutorial on caching")."""
    doc = noun.doc
    first = min([c.i for c in noun.children if c.dep_ in _SUBJECT_WORDS and c.i < noun.i],
                default=noun.i)
    last = max([c.i for c in noun.children if c.i > noun.i and c.like_num], default=noun.i)
    return doc[first:last + 1].text


def _subject_phrase(subject: Token) -> str:
    doc = subject.doc
    if subject.right_edge.i - subject.left_edge.i < _SUBJECT_TOKENS:
        return doc[subject.left_edge.i:subject.right_edge.i + 1].text
    return _named(subject)


def _stated_beside(root: Token) -> bool:
    """The sentence states something besides its instruction, in a clause of its own
    joined to the verb: "GSSAPI support has to be enabled when PostgreSQL is built; see
    Chapter 17 …", which the parser roots at "see", or "In the bind case (see …), the
    allow-update directive needs to be added …". A subordinate clause ("If this protocol is
    forced on you, see …") states nothing of its own."""
    def states(clause: Token) -> bool:
        return (any(g.dep_ in _SUBJECTS for g in clause.children)
                and not (clause.dep_ == "advcl" and any(g.dep_ == "mark" for g in clause.children)))
    return any(c.dep_ in _JOINED_CLAUSES and states(c) for c in root.children)


def skeleton(sentence: Span) -> tuple[str, str] | None:
    """What the main clause speaks of and what it says of it: its subject, and its verb
    with the auxiliaries before it ("This document", "it describes"), or for an
    instruction what it names, and the verb ("Section 5.11", "See");
    None for a clause with neither (a fragment, a title)."""
    root = sentence.root
    subject = next((c for c in root.children if c.dep_ in _SUBJECTS), None)
    if subject is not None:
        auxiliaries = [c.text for c in root.children
                       if c.dep_ in ("aux", "auxpass", "neg") and subject.i < c.i < root.i]
        return _subject_phrase(subject), " ".join(["it", *auxiliaries, root.text])
    if root.tag_ == "VB" and not _stated_beside(root):  # an instruction: no subject
        # "Refer to", "Look up": a particle, or a preposition right after the verb
        particle = next((c for c in root.children if c.dep_ == "prt"
                         or (c.dep_ == "prep" and c.i == root.i + 1)), None)
        holder = particle if particle is not None and particle.dep_ == "prep" else root
        named = next((c for c in holder.children if c.dep_ in ("dobj", "pobj")), None)
        if named is not None:
            verb = " ".join(t.text for t in (root, particle) if t is not None)
            return _named(named), verb
    return None


def _skeletons(docs: Sequence[Doc | None]) -> list[tuple[str, str] | None]:
    return [skeleton(next(iter(doc.sents))) if doc is not None and len(doc) else None
            for doc in docs]


def _leads(scores: dict[str, float], label: str) -> float:
    return scores[label] - max(v for name, v in scores.items() if name != label)


def _margins(texts: list[str], embed: Embed) -> list[float | None]:
    found = _skeletons(parse_batch(texts, skip=_UNREAD))
    judged = [s for s in found if s is not None]
    subjects = iter(exemplar_scores([s for s, _ in judged], embed, "text_pointers", "subjects"))
    verbs = iter(exemplar_scores([v for _, v in judged], embed, "text_pointers", "verbs"))
    return [None if s is None else min(_leads(next(subjects), "text_part"), _leads(next(verbs), "tells"))
            for s in found]


# Margins already found in this process, per encoder: the same passages come back in every
# iteration and sub-question of a question (197 judgements of 76 sentences on a MuSiQue
# question), and from question to question over one collection.
_FOUND_LIMIT = 50_000
_found: dict[Embed, TextMemory[float | None]] = {}


def _memory(embed: Embed) -> TextMemory[float | None]:
    return _found.setdefault(embed, TextMemory(_FOUND_LIMIT))


def pointer_margins(texts: Sequence[str], embed: Embed) -> list[float | None]:
    """Per text, how clearly its first sentence points into the text: the smaller of its
    subject's lead as a part of a text and its verb's lead as telling (cosine, mean of the
    nearest exemplars); None for a text with no skeleton or that cannot be parsed."""
    return _memory(embed).read(texts, lambda unread: _margins(unread, embed))


def point_into_the_text(texts: Sequence[str], embed: Embed, margin: float) -> list[bool]:
    """Per text: its first sentence points into the text by at least ``margin``."""
    return [m is not None and m >= margin for m in pointer_margins(texts, embed)]

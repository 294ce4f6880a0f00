"""The subject of a research brief: the noun phrase that the whole text is most about.

The first clause's subject is a good topic for a question ("What does VACUUM do …") but
not for a brief, whose first sentence often names the person asking ("As a senior
product manager, …"), the piece of writing wanted ("Write a research report on …") or
a generic word ("resources", "individuals"). Every noun phrase of the brief is a
candidate; the sentence encoder judges which one the whole text is most about.
"""

from __future__ import annotations

import numpy as np
from spacy.tokens import Doc, Span

from research_studio.understanding.exemplars import Embed
from research_studio.understanding.facets import (
    LIST_INTRODUCERS,
    MAX_LABEL_WORDS,
    WH_TAGS,
    clean_phrase,
    noun_phrase,
    personal,
    text_of,
)
from research_studio.understanding.kinds import writing_flags
from research_studio.understanding.lists import marker_offsets

# A subject names something: a phrase of fewer content words than this is too vague to
# anchor a sub-question by ("data", "them"), unless it is a name.
MIN_SUBJECT_WORDS = 2


def _introductory(chunk: Span) -> bool:
    """The phrase stands in what introduces a sentence, set off by a comma before its main
    verb ("As an agricultural engineering researcher, please develop …", "Acting as a
    product manager, conduct …"): it tells who asks or when, not what to research."""
    root = chunk.sent.root
    return any(t.text == "," and chunk.end <= t.i < root.i for t in chunk.sent)


def heading_subject(text: str, doc: Doc) -> str:
    """The phrase a text opens with and sets off by a colon or a dash before asking about
    it with a pronoun ("git reflog: what it records, …", "Describe the build cache — how
    it decides …"): what the pronouns stand for, whatever else the text names ("how
    BuildKit changes things"). The object of an opening instruction, or the whole
    heading when it is a label's length; empty otherwise."""
    sentence = next(iter(doc.sents))
    mark = next((t for t in sentence if t.text in LIST_INTRODUCERS or (
        t.text == "-" and t.whitespace_ and t.i > 0 and doc[t.i - 1].whitespace_)), None)
    if mark is None:
        return _framed_subject(text, doc)
    if mark.i == sentence.start:
        return ""
    if not _points_back(doc[mark.i + 1:sentence.end]):
        return ""
    heading = doc[sentence.start:mark.i]
    opening = heading[0]
    if opening.tag_ == "VB":  # "Describe X — …": the instruction's object
        objects = [c for c in opening.children if c.dep_ == "dobj" and c.i < mark.i]
        heading = doc[objects[0].left_edge.i:mark.i] if objects else heading[:0]
    words = [t for t in heading if t.is_alpha]
    if not 0 < len(words) <= MAX_LABEL_WORDS or personal(heading) or not any(
            t.pos_ in ("NOUN", "PROPN") for t in heading) or any(t.tag_ in WH_TAGS for t in heading):
        return ""
    return clean_phrase(text_of(text, list(heading)))


def _framed_subject(text: str, doc: Doc) -> str:
    """The object of a phrase that opens the text and frames it before a comma
    ("Regarding the EU's GDPR, I'd like to understand who it applies to, …"), when what
    follows points back to it with a pronoun; empty otherwise."""
    sentence = next(iter(doc.sents))
    opening = sentence[0]
    objects = [c for c in opening.children if c.dep_ == "pobj"]
    if opening.dep_ != "prep" or opening.head != sentence.root or not objects:
        return ""
    end = max(t.i for t in objects[0].subtree) + 1
    if end >= sentence.end or doc[end].text != "," or personal(doc[opening.i + 1:end]):
        return ""
    if not _points_back(doc[end + 1:sentence.end]):
        return ""
    return clean_phrase(text_of(text, list(objects[0].subtree)))


def _points_back(span: Span) -> bool:
    """The span holds a third-person pronoun ("it", "its", "they")."""
    return any(t.tag_ in ("PRP", "PRP$") and t.morph.get("Person") == ["3"] for t in span)


def _candidates(text: str, doc: Doc) -> list[tuple[str, str]]:
    """(the chunk's words, the phrase it stands for) of every noun phrase that could be the
    subject by its structure; the encoder then judges which are pieces of writing."""
    found: list[tuple[str, str]] = []
    at_list: list[tuple[int, int]] = []  # (start, index in found) of phrases ending at the list
    markers = marker_offsets(doc)
    # with a list, the whole is about what the text says before it (an item is one part)
    chunks = [c for c in doc.noun_chunks if not markers or c.end_char <= markers[0]]
    for chunk in chunks:
        if chunk.root.pos_ not in ("NOUN", "PROPN") or personal(chunk) or _introductory(chunk):
            continue
        words = [t for t in chunk if not t.is_stop and t.is_alpha]
        if len(words) < MIN_SUBJECT_WORDS and chunk.root.pos_ != "PROPN":
            continue
        phrase = noun_phrase(text, chunk)
        start = text.find(phrase, chunk.start_char)
        ends = [m - start for m in markers if start < m < start + len(phrase)]
        phrase = phrase[:min(ends)] if ends else phrase
        found.append((chunk.text, clean_phrase(phrase)))
        if markers and not text[start + len(phrase):markers[0]].strip(" :\n\t"):
            at_list.append((start, len(found) - 1))
    if at_list:  # the outermost phrase that ends at the list names it ("the following
        del found[min(at_list)[1]]  # questions about X:"); X inside it stays
    return found


def ranked_subjects(text: str, doc: Doc, embed: Embed) -> list[str]:
    """The noun phrases (with their complement: "the price dynamics of chub mackerel in
    …") that could be the text's subject, closest in meaning to the whole text first;
    never a piece of writing ("a research report" is judged without its complement: "on
    X" leaves X, a chunk of its own). Empty when the text has none."""
    structural = _candidates(text, doc)
    if not structural:
        return []
    writing = writing_flags([words for words, _ in structural], embed)
    candidates = list(dict.fromkeys(phrase for (_, phrase), is_writing
                                    in zip(structural, writing, strict=True) if not is_writing))
    if not candidates:
        return []
    vectors = embed([text, *candidates])
    scores = vectors[1:] @ vectors[0]
    return [candidates[k] for k in np.argsort(-scores, kind="stable")]


def with_article(topic: str, text: str, doc: Doc) -> str:
    """``topic`` with the article the question gives it, for a template that writes it in a
    sentence: "the -wal file" of "My -wal file keeps growing" (a possessive or a definite
    article gives "the"), "a second user" of "I added a second user"; unchanged where the
    question gives it none ("inflation"), where it has its own, or where another word
    determines it ("another table", "Bart's father"). Read from spaCy's morphology
    (``Definite``, ``Poss``)."""
    start = text.find(topic) if topic else -1
    span = doc.char_span(start, start + len(topic), alignment_mode="expand") if start >= 0 else None
    if span is None or span.start == 0 or span[0].dep_ in ("det", "poss"):
        return topic
    before = doc[span.start - 1]
    if before.dep_ not in ("det", "poss") or not span.start <= before.head.i < span.end:
        return topic
    if before.morph.get("Poss") == ["Yes"] or before.morph.get("Definite") == ["Def"]:
        return f"the {topic}"
    return f"{before.lower_} {topic}" if before.morph.get("Definite") == ["Ind"] else topic

"""Understand a question once: its kind, and the items, facets, positions or clause chain
that kind is split along (seed 001's decomposition strategies).

Structure decides first (several questions in one, a nested chain, stated positions, a
coordinated group); the sentence encoder's reading of what the question asks
(``kinds``) decides between structures that could be read two ways, and the kind of a
question with no structure to split.
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from research_studio.prompts import load_data
from research_studio.understanding import facets as parts
from research_studio.understanding.chains import chain, relative_openers
from research_studio.understanding.kinds import Embed, kind_scores
from research_studio.understanding.parser import parse
from research_studio.understanding.structure import Facet, QuestionKind, QuestionStructure

K = QuestionKind
# The encoder's reading must beat the runner-up by this much to override structure that
# suggests another kind. Cosines of MiniLM between short questions of different kinds
# differ by a few hundredths; below that margin the structure is the better witness.
KIND_MARGIN = 0.02


def understand(text: str, embed: Embed | None = None) -> QuestionStructure:
    """The structure of ``text``; a question that is not English or cannot be parsed is
    researched as it stands (kind ``open``, ``english=False``)."""
    doc = parse(text)
    if doc is None:
        return QuestionStructure(text=text, kind=K.OPEN, english=False)
    scores = kind_scores(text, embed) if embed is not None else {}
    return _structure(text, doc, scores)


def _leading(scores: dict[str, float]) -> str | None:
    if not scores:
        return None
    ranked = sorted(scores, key=lambda k: -scores[k])
    return ranked[0]


def _confident(scores: dict[str, float], kind: str) -> bool:
    ranked = sorted(scores.values(), reverse=True)
    return bool(scores) and scores.get(kind) == ranked[0] and (
        len(ranked) < 2 or ranked[0] - ranked[1] >= KIND_MARGIN)


def _structure(text: str, doc: Doc, scores: dict[str, float]) -> QuestionStructure:
    intent = _leading(scores)
    sentences = list(doc.sents)
    segments = parts.clause_segments(doc, relative_openers(doc))
    groups = parts.coordinated_groups(doc)
    group = max(groups, key=len) if groups else []
    nested = chain(doc, text)
    held = parts.positions(text, doc)
    common = dict(text=text, entities=parts.names(text, doc), sentences=len(sentences),
                  kind_scores=scores)

    if len(held) >= 2 and intent in (K.EVALUATIVE, K.COMPARISON):
        skip = {t.i for t in doc if t.dep_.startswith("nsubj")}
        return QuestionStructure(kind=K.EVALUATIVE, positions=held,
                                 topic=parts.topic(text, doc, skip), **common)
    if len(group) >= 2 and intent == K.COMPARISON:
        return _comparison(text, doc, group, segments, common)
    if len(segments) >= 2:
        facets = _segment_facets(text, doc, segments)
        if len(facets) >= 2:
            return QuestionStructure(kind=K.MULTI_FACETED, facets=facets,
                                     topic=parts.topic(text, doc), **common)
    if nested is not None:
        return QuestionStructure(kind=K.CHAIN, clauses=nested.clauses, anchor=nested.anchor,
                                 asked_kind=nested.asked_kind,
                                 topic=parts.topic(text, doc), **common)
    if len(group) >= 2 and all(m.pos_ == "NOUN" for m in group):
        facets = _noun_facets(text, group)
        if len(facets) >= 2:
            return QuestionStructure(kind=K.MULTI_FACETED, facets=facets,
                                     topic=parts.shared_object(text, group)[1], **common)
    kind = K(intent) if intent in set(K) else K.OPEN
    if kind == K.SINGLE_FACT and len(sentences) > 1:
        kind = K.OPEN
    if kind == K.COMPARISON:  # nothing to compare in the parse: research it openly
        kind = K.OPEN
    reason = parts.asked_reason(text, doc) if kind == K.CAUSAL else ""
    return QuestionStructure(kind=kind, topic=parts.topic(text, doc), reason_for=reason, **common)


def _comparison(text: str, doc: Doc, group: list, segments: list[Span], common: dict
                ) -> QuestionStructure:
    items = parts.member_phrases(text, group)
    facets = []
    grouped = {t.i for m in group for t in m.subtree}
    for segment in segments:  # "… : what is each one good for?" asks the same of every item
        if parts.asks(segment) and not {t.i for t in segment} & grouped:
            facets.append(Facet(text=_as_question(parts.per_item(text, segment)),
                                source=segment.text))
    purpose = parts.purpose_phrase(text, doc, group)
    return QuestionStructure(kind=K.COMPARISON, items=items, facets=facets, purpose=purpose,
                             dimensions=parts.dimension_words(text, doc, group, purpose),
                             topic=parts.topic(text, doc, grouped), **common)


def _segment_facets(text: str, doc: Doc, segments: list[Span]) -> list[Facet]:
    """Each question or instruction of the text as a question of its own; statements
    that only set the context are not facets."""
    referent = parts.topic(text, doc)
    templates = load_data("offline_plan")["multi_faceted"]
    out = []
    for segment in segments:
        if parts.asks(segment):
            phrase = parts.resolve_pronouns(text, segment, referent)
            if referent and referent.lower() not in phrase.lower() and parts.bridging(segment):
                phrase += templates["topic_suffix"].format(topic=referent)
            out.append(Facet(text=_as_question(phrase), source=segment.text))
            continue
        subject = _instructed_object(text, segment, referent)
        if subject:
            out.append(Facet(text=templates["phrase_facet"].format(facet=subject),
                             source=segment.text))
    return out


def _instructed_object(text: str, segment: Span, referent: str) -> str:
    """What an instruction ("Explain the problems …", "Tell me about X") or a verbless
    phrase ("Research on the price dynamics …") asks to research; empty for a
    statement with its own subject, which only sets the context."""
    head = segment.root
    if any(c.dep_.startswith("nsubj") for c in head.children) and head.pos_ in ("VERB", "AUX"):
        return ""
    if head.head.i not in range(segment.start, segment.end) and head.head != head:
        return ""  # an introductory phrase of another clause ("In a 2010 study, what …")
    tokens = list(segment)
    if head.pos_ == "VERB":
        tokens = [t for t in tokens if t.i > head.i or (t.i < head.i and t.dep_ != "aux")]
        tokens = [t for t in tokens if t.i > head.i]
    while tokens and (tokens[0].pos_ in ("ADP", "PUNCT", "CCONJ", "PART")
                      or (tokens[0].pos_ == "PRON" and tokens[0].morph.get("Person") != ["3"])):
        tokens = tokens[1:]
    if not any(t.pos_ in ("NOUN", "PROPN") for t in tokens):
        return ""
    span = segment.doc[tokens[0].i:tokens[-1].i + 1]
    return parts.resolve_pronouns(text, span, referent).rstrip(" .?!")


def _noun_facets(text: str, group: list) -> list[Facet]:
    """"the causes, effects and solutions to climate change" → one question per noun,
    about the object they share."""
    preposition, shared = parts.shared_object(text, group)
    if not shared:
        return []
    template = load_data("offline_plan")["multi_faceted"]["noun_facet"]
    attached = preposition if any(c.dep_ == "prep" and c.lower_ == preposition
                                  for m in group for c in m.children) else "of"
    out = []
    for member, phrase in zip(group, parts.member_phrases(text, group), strict=True):
        be = "are" if member.tag_ in ("NNS", "NNPS") else "is"
        out.append(Facet(text=template.format(be=be, facet=phrase, preposition=attached,
                                              topic=shared), source=phrase))
    return out


def _as_question(phrase: str) -> str:
    phrase = phrase.strip().rstrip(".!?;:, ")
    return phrase[:1].upper() + phrase[1:] + "?" if phrase else ""

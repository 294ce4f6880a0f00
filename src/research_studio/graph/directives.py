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

import re
from collections.abc import Sequence

from spacy.tokens import Doc

from research_studio.understanding.exemplars import Embed, exemplar_scores
from research_studio.understanding.parser import parse_batch

AIMED = "to_assistant"
# Punctuation that separates a label or a table cell from the rest: language-neutral.
_PART_BREAK = re.compile(r"[:;|]")
# Dependency labels of clauses attached to a verb (Universal/ClearNLP labels of spaCy's
# English models): adverbial (conditions, purposes), clausal complement, parataxis, conjunct.
CLAUSE_DEPENDENCIES = frozenset({"advcl", "ccomp", "parataxis", "conj"})
# Pipeline components whose output the screen does not read.
UNUSED_COMPONENTS = ("ner", "lemmatizer")
# A part shorter than this (a number, "[1]", a stray word) carries no meaning to judge.
MIN_PART_LETTERS = 8


def directive_scores(sentences: Sequence[str], embed: Embed,
                     embed_texts: Embed | None = None) -> list[dict[str, float]]:
    """Each sentence's likeness to each class (cosine; higher is closer); the sentences
    embedded with ``embed_texts`` when given (see ``exemplar_scores``)."""
    return exemplar_scores(sentences, embed, "source_directives", "classes", embed_texts)


def aimed_at_assistant(scores: dict[str, float], min_similarity: float, margin: float) -> bool:
    """Closer to the injected-instruction exemplars than to any other class by ``margin``,
    and close to them in absolute terms."""
    others = max(v for k, v in scores.items() if k != AIMED)
    return scores[AIMED] >= min_similarity and scores[AIMED] - others >= margin


def gives_orders(sentence: str) -> bool:
    """Whether the sentence is worded as an order or addresses someone: an imperative main
    verb (base form, no subject), a modal of obligation or permission, a second-person
    pronoun, or a verbless label ahead of the text it introduces ("Note to the model: …") —
    from spaCy's tags, morphology and parts of speech. Statements of fact, the bulk of any
    source, are none of these, so the encoder's judgement is only acted on where it
    matters. Text the English parser cannot read counts as an order: it is judged by the
    encoder alone."""
    [doc] = parses([sentence])
    if doc is None:
        return True
    for token in doc:
        if token.tag_ == "MD" or "Person=2" in str(token.morph):
            return True
        if token.dep_ == "ROOT" and token.tag_ == "VB" and not any(
                child.dep_ in ("nsubj", "nsubjpass", "expl") for child in token.children):
            return True
    return False


def _addresses(part: str, is_label: bool) -> bool:
    """A label (a part followed by more text) with no verb names whom the text is for."""
    if not is_label:
        return False
    [doc] = parses([part])
    return doc is not None and not any(token.pos_ in ("VERB", "AUX") for token in doc)


def _meaningful(text: str) -> bool:
    return sum(ch.isalpha() for ch in text) >= MIN_PART_LETTERS


def parses(texts: Sequence[str]) -> list[Doc | None]:
    """The parse of each text in one batch, without the components the clause split and
    the order gate do not read (named entities, lemmas)."""
    return parse_batch(texts, UNUSED_COMPONENTS)


def clauses_of(sentence: str, doc: Doc | None = None) -> list[str]:
    """The clauses that hang from the sentence's main verb (a condition, a reported or a
    coordinated clause), from spaCy's dependency parse. An order aimed at the model often
    sits in one of them ("If you are a language model, state …"); scored with the whole
    sentence, it is diluted by the rest."""
    if doc is None:
        [doc] = parses([sentence])
    if doc is None:
        return []
    out = []
    for token in doc:
        if token.dep_ in CLAUSE_DEPENDENCIES and token.pos_ in ("VERB", "AUX") \
                and token.head.dep_ == "ROOT":
            clause = doc[token.left_edge.i:token.right_edge.i + 1].text.strip(" ,;:|")
            if _meaningful(clause) and clause != sentence.strip():
                out.append(clause)
    return out


def parts_of(sentence: str, doc: Doc | None = None) -> list[tuple[str, bool]]:
    """The sentence, its parts between colons, semicolons and table bars, and its clauses,
    each with whether it is a label for what follows. An instruction often hides behind a
    label, in one cell or in one clause, and scored whole it is diluted by the rest."""
    pieces = [p.strip() for p in _PART_BREAK.split(sentence)]
    pieces = [p for p in pieces if _meaningful(p)]
    out = [(sentence, False)]
    if len(pieces) > 1:
        out += [(piece, i < len(pieces) - 1) for i, piece in enumerate(pieces)]
    seen = {part for part, _ in out}
    out += [(clause, False) for clause in clauses_of(sentence, doc) if clause not in seen]
    return out


def directives_among(sentences: Sequence[str], embed: Embed, min_similarity: float,
                     margin: float, embed_texts: Embed | None = None) -> set[int]:
    """Indices of the sentences that address the AI rather than a reader: some part of the
    sentence is, by the encoder, aimed at a model or the research rather than a person,
    and is worded as an order or as a label naming its addressee. With ``embed_texts``
    (a research run's cache) a candidate quote the findings step already embedded to rank
    it is not embedded again."""
    docs = parses(sentences)
    parts = [(index, part, is_label) for index, sentence in enumerate(sentences)
             for part, is_label in parts_of(sentence, docs[index])]
    scores = directive_scores([part for _, part, _ in parts], embed, embed_texts)
    flagged: set[int] = set()
    for (index, part, is_label), score in zip(parts, scores, strict=True):
        if index in flagged or not aimed_at_assistant(score, min_similarity, margin):
            continue
        if gives_orders(part) or _addresses(part, is_label):
            flagged.add(index)
    return flagged

"""Does a written statement say what the text it cites says?

A capable model words claims itself (a finding's statement next to the quote it cites, a
summary sentence next to the claims it cites); the span check only proves that the
*quote* is in a source. This check is what can fail when the wording goes beyond its
support: every name and number the statement states must be in the support (spaCy's
named entities, ``text_analysis.numeric_tokens``), and the sentence encoder must read the
two as saying the same thing (cosine at or above a calibrated minimum,
``ResearchConfig.claim_text_min_similarity``). A statement worded exactly as its support
(the offline path, where a claim is its quote) is not checked at all: no parse, no
embedding.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from spacy.tokens import Doc

from research_studio.graph.deps import SimilarityFn
from research_studio.graph.text_analysis import numbers_disagree, numeric_tokens
from research_studio.understanding.parser import TAGS_AND_ENTITIES_ONLY, parse_batch

# spaCy's English NER labels for amounts and times. Their digits are checked as numbers;
# of their words only proper nouns count as names ("December" does, "the same year" or
# "twice a day" is wording, not a name the support must repeat).
MEASURE_LABELS = frozenset({"CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT", "DATE", "TIME"})
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Statement:
    """What was written, the text it cites, and where names may also come from: the
    title of the cited source, which the writer saw with it (a quote that says "It was
    designed by …" is about the page's subject)."""

    text: str
    support: str
    context: str = ""


def _fold(text: str) -> str:
    """Lower case without accents, so "Société" in a quote matches "Societe"."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _words(text: str) -> list[str]:
    return _WORD.findall(_fold(text))


def same_text(a: str, b: str) -> bool:
    """The same words in the same order (spacing, case and punctuation aside)."""
    return _words(a) == _words(b)


def stated_names(doc: Doc | None, measures: bool = True) -> list[tuple[str, list[str]]]:
    """Each name the parse finds, with the words that identify it: a named entity's words
    but stop words (of a date, time or amount only its proper nouns, or nothing without
    ``measures``), then each run of capitalised proper nouns the entity recogniser missed
    ("the Loire")."""
    if doc is None:
        return []
    names = []
    for ent in doc.ents:
        if ent.label_ in MEASURE_LABELS and not measures:
            continue
        if ent.label_ in MEASURE_LABELS:
            tokens = [t for t in ent if t.is_alpha and t.pos_ == "PROPN"]
        else:
            tokens = [t for t in ent if t.is_alpha and not t.is_stop]
        names.append((ent.text, tokens))
    run: list = []
    for token in [*doc, None]:
        # the small tagger sometimes calls a lower-case noun a proper noun ("coral"):
        # only a capitalised one counts
        if token is not None and not token.ent_type_ and token.pos_ == "PROPN" \
                and token.is_alpha and token.text[:1].isupper():
            run.append(token)
            continue
        if run:
            names.append((doc[run[0].i:run[-1].i + 1].text, run))
            run = []
    named = [(text, [w for t in tokens for w in _words(t.text)]) for text, tokens in names]
    return [(text, words) for text, words in named if words]


def name_words(texts: Sequence[str]) -> list[list[set[str]]]:
    """Per text, the words of each thing it names, dates and amounts aside (numbers are
    compared on their own, and "in 2004" states what "on 16 December 2004" states less
    precisely); one parse batch for all."""
    docs = parse_batch(list(texts), TAGS_AND_ENTITIES_ONLY)
    return [[set(words) for _, words in stated_names(doc, measures=False)] for doc in docs]


def names_covered(names: list[set[str]], other: str) -> bool:
    """Every name (its words) of one statement is stated by ``other`` too."""
    present = set(_words(other))
    return all(words <= present for words in names)


def same_facts(texts: Sequence[str], pairs: Sequence[tuple[int, int]]) -> list[bool]:
    """For each pair (i, j) of ``texts``: do the two state the same facts? Each names only
    what the other names (dates and amounts aside) and their numbers do not disagree.
    Facts worded alike about different things fail ("Joseph Fogerty Sr. was an Irish
    builder and architect" and "John Fogerty was an Irish millwright, architect, builder":
    encoder cosine above 0.9); the same thing reworded passes. Only texts that are in some
    pair are parsed, in one batch."""
    involved = sorted({k for pair in pairs for k in pair})
    if not involved:
        return []
    names = dict(zip(involved, name_words([texts[k] for k in involved]), strict=True))
    numbers = {k: numeric_tokens(texts[k]) for k in involved}
    return [not numbers_disagree(numbers[i], numbers[j]) and names_covered(names[i], texts[j])
            and names_covered(names[j], texts[i]) for i, j in pairs]


def missing_facts(statement: Statement, doc: Doc | None) -> list[str]:
    """Names and numbers of the statement that its support (or context) does not state."""
    support = f"{statement.context}\n{statement.support}"
    present = set(_words(support))
    missing = [name for name, words in stated_names(doc) if not set(words) <= present]
    missing += sorted(numeric_tokens(statement.text) - numeric_tokens(support))
    return list(dict.fromkeys(missing))


def check_statements(statements: Sequence[Statement], similarity: SimilarityFn,
                     min_similarity: float) -> list[dict | None]:
    """Per statement, None when it is worded as its support (nothing to check), else
    ``{"passed", "missing", "similarity", "min_similarity"}``. One parse batch and one
    similarity call for all of them.

    With a context, the similarity is the better of the support alone and the support
    after its context ("Spirit Halloween: It was founded in 1983"): a statement that names
    what the quote calls "it" says no more than the quote does on its page."""
    todo = [i for i, s in enumerate(statements) if not same_text(s.text, s.support)]
    results: list[dict | None] = [None] * len(statements)
    if not todo:
        return results
    texts = [statements[i].text for i in todo]
    supports = [statements[i].support for i in todo]
    framed = {k: len(supports) + n for n, k in enumerate(
        k for k, i in enumerate(todo) if statements[i].context.strip())}
    columns = supports + [f"{statements[todo[k]].context.strip()}: {supports[k]}" for k in framed]
    matrix = np.asarray(similarity(texts, columns))
    docs = parse_batch(texts, TAGS_AND_ENTITIES_ONLY)  # all None without the pipeline
    for k, (i, doc) in enumerate(zip(todo, docs, strict=True)):
        cosine = float(max(matrix[k, k], matrix[k, framed[k]] if k in framed else -1.0))
        missing = missing_facts(statements[i], doc)
        results[i] = {"passed": not missing and cosine >= min_similarity, "missing": missing,
                      "similarity": round(cosine, 3), "min_similarity": min_similarity}
    return results

"""Light text analysis for the deterministic paths: sentences with offsets, content terms,
candidate entities. These let the pipeline stay grounded when the model cannot reason."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from research_studio.knowledge.lexical import tokenize
from research_studio.knowledge.structure import (
    CODE,
    ROW,
    Sentence,
    TextBlock,
    find_blocks,
    sentences,
)
from research_studio.understanding.names import names_of_each, without_possessive
from research_studio.understanding.parser import parse

NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")


# the longest stretch read as one statement; ``evidence_units`` cuts anything longer, so
# no fact is lost to ``is_prose`` rejecting a unit for its length
PROSE_MAX_CHARS = 400


def _prose_units(text: str, lo: int, hi: int, max_chars: int, window: int, min_chars: int,
                 overlap: bool) -> list[Sentence]:
    """Sentences of ``text[lo:hi]``, run-on ones cut into windows (see ``evidence_units``)."""
    out: list[Sentence] = []
    for found in sentences(text[lo:hi], min_chars=min_chars):
        sentence = Sentence(found.text, lo + found.start, lo + found.end)
        if len(sentence.text) <= max_chars:
            out.append(sentence)
            continue
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", sentence.text)]
        first = 0
        while first < len(words):
            last = first
            while last + 1 < len(words) and words[last + 1][1] - words[first][0] <= window:
                last += 1
            start, end = sentence.start + words[first][0], sentence.start + words[last][1]
            out.append(Sentence(text[start:end], start, end, "window"))
            if last == len(words) - 1:
                break
            if not overlap:
                first = last + 1
                continue
            middle = words[first][0] + window // 2
            first = max(first + 1, next(k for k in range(first, last + 1)
                                        if words[k][1] > middle or k == last))
    return out


def evidence_units(text: str, max_chars: int = PROSE_MAX_CHARS, window: int = 220,
                   min_chars: int = 20, overlap: bool = True,
                   blocks: Sequence[TextBlock] | None = None) -> list[Sentence]:
    """The units a passage can be quoted by, in order, with exact offsets.

    Structure first: each of ``blocks`` (the table rows and code blocks ingestion
    recorded for the passage; when None, those ``find_blocks`` sees in the text) is one
    unit of its kind, a code block whole (a row statement longer than ``max_chars`` is read
    as prose). The text between blocks gives sentences, with any run-on stretch longer
    than ``max_chars`` (an infobox or a table flattened into one line, which has no
    sentence ends) cut into word-bounded windows of about ``window`` characters that
    overlap by half, so a fact inside it lies whole in some window and can still be quoted
    at exact offsets (``overlap=False``: consecutive windows, for counting what each part
    of the text names once)."""
    known = find_blocks(text) if blocks is None else sorted(blocks, key=lambda b: b.start)
    out: list[Sentence] = []
    position = 0
    for block in [*known, None]:
        stop = min(block.start, len(text)) if block else len(text)
        if stop > position:
            out.extend(_prose_units(text, position, stop, max_chars, window, min_chars, overlap))
        if block is None:
            break
        start, end = max(block.start, position), min(block.end, len(text))
        if block.kind == ROW and end - start > max_chars:
            out.extend(_prose_units(text, start, end, max_chars, window, min_chars, overlap))
        elif end > start and (block.kind != ROW or end - start >= min_chars):
            out.append(Sentence(text[start:end], start, end, block.kind))
        position = max(position, end)
    return out


def is_prose(text: str, max_chars: int = PROSE_MAX_CHARS) -> bool:
    """A readable statement: a few words, mostly letters, not a heading rule or code."""
    words = text.split()
    if len(words) < 4 or len(text) > max_chars:
        return False
    letters = sum(ch.isalpha() or ch.isspace() for ch in text)
    return letters / len(text) >= 0.75


def quotable(unit: Sentence, max_chars: int = PROSE_MAX_CHARS) -> bool:
    """A unit that can stand in a report as a claim: a sentence (or window) that
    ``is_prose``, or a table row statement of a few words (readable by construction,
    however many of its cells are numbers); never code or a table as its source wrote it."""
    if unit.kind == ROW:
        return (len(unit.text.split()) >= 3 and len(unit.text) <= max_chars
                and any(ch.isalpha() for ch in unit.text))
    return unit.kind in ("prose", "window") and is_prose(unit.text, max_chars)


def content_terms(text: str) -> set[str]:
    """Lower-cased words that carry meaning (no stop words)."""
    return set(ordered_terms(text))


def ordered_terms(text: str) -> list[str]:
    """Content terms in the order the text uses them (first occurrence)."""
    return list(dict.fromkeys(t for t in tokenize(text) if len(t) > 1))


def term_overlap(query: str, text: str, stated: set[str] | None = None,
                 stated_weight: float = 1.0) -> float:
    """Share of the query's content terms found in ``text``; a term in ``stated`` (already
    said elsewhere) counts ``stated_weight`` instead of 1."""
    wanted = content_terms(query)
    if not wanted:
        return 0.0
    found = wanted & content_terms(text)
    repeated = len(found & stated) if stated else 0
    return (len(found) - repeated + stated_weight * repeated) / len(wanted)


def hop_terms(parts: list[str], present: set[str]) -> list[str]:
    """The content terms of a question's clauses (``parts``, outermost first, as the
    parse gives them) that a passage does not state (``present``: its terms), ordered for
    the next hop: first the clause just outside the one the passage answers (the relation
    to look up with the entity it found), then further out, then the rest."""
    parts = [p for p in parts if content_terms(p)]
    if not parts:
        return []
    overlap = [len(content_terms(p) & present) / len(content_terms(p)) for p in parts]
    answered = max(range(len(parts)), key=lambda i: (overlap[i], i))  # ties: the inner one
    order = parts[answered - 1::-1] + parts[answered:] if answered else parts
    terms = [t for part in order for t in ordered_terms(part) if t not in present]
    return list(dict.fromkeys(terms))


@lru_cache(maxsize=256)
def answer_kinds(question: str) -> frozenset[str]:
    """The common nouns of the question ("which river", "the county"): the kinds of thing
    it asks about, not names it already gives. Empty when it cannot be parsed."""
    doc = parse(question)
    if doc is None:
        return frozenset()
    return frozenset(t for token in doc if token.pos_ == "NOUN" for t in tokenize(token.text))


def kinds_named(entity: str, kinds: set[str]) -> set[str]:
    """An entity's head word when it is one of the asked kinds: "Nelson River" for "the
    river …" names a river, it does not restate the question."""
    return set(tokenize(entity)[-1:]) & kinds


# what a sentence naming an entity adds to its weight in ``linked_entities`` before the
# question terms it shares, each of which adds 1: being named at all is weak evidence
MENTION_WEIGHT = 0.25


def titled_passage(title: str, text: str, blocks: Iterable[TextBlock] | None = None) -> str:
    """A passage as read for the names it links to: its title on a line before it, as a
    heading ended by a full stop, so that a title in Title Case is one name ("Upgrading
    from One Stable Distribution to the Next") rather than its capitalised fragments
    ("Next"); without the code blocks the knowledge base recorded in it, which name
    nothing a reader researches and which a chunk that opens inside a listing cannot show
    by its fences ("Mar" of a console listing's dates)."""
    code = sorted((b.start, b.end) for b in blocks or () if b.kind == CODE)
    kept, at = [], 0
    for start, end in code:
        kept.append(text[at:max(at, start)])
        at = max(at, end)
    body = "\n".join([*kept, text[at:]]) if code else text
    return f"{title}.\n{body}" if title else body


def linked_entities(question: str, passages: list[str],
                    specificity: Callable[[str], float] | None = None, limit: int = 12,
                    rarity_power: float = 2.0, asked_kind_weight: float = 1.0,
                    min_weight: float = 0.0) -> list[str]:
    """Entities of retrieved passages that most likely answer a hop of ``question``, the
    heaviest first (``linked_weights``); those weighing less than ``min_weight`` are left
    out."""
    return heaviest(linked_weights(question, passages, specificity, rarity_power,
                                   asked_kind_weight), limit, min_weight)


def heaviest(weights: dict[str, float], limit: int = 12, min_weight: float = 0.0) -> list[str]:
    """Names by weight, heaviest (then longest) first, of those weighing more than nothing
    and at least ``min_weight``."""
    return [e for e in sorted(weights, key=lambda e: (-weights[e], -len(e)))
            if weights[e] > 0 and weights[e] >= min_weight][:limit]


def linked_weights(question: str, passages: list[str],
                   specificity: Callable[[str], float] | None = None,
                   rarity_power: float = 2.0, asked_kind_weight: float = 1.0
                   ) -> dict[str, float]:
    """How strongly retrieved passages link each entity they name to ``question``.

    An entity earns weight from each sentence that names it, mostly for the terms the
    sentence shares with the question, discounted by its passage's rank; the total is
    scaled by how specific the name is in the collection (``specificity``, raised to
    ``rarity_power``, squared by default: 'American' names nothing in particular) and by
    how much of it the question does not already say — a head word that is the kind the
    question asks for (``answer_kinds``) is not a restatement but a sign of the right
    type, and weighs ``asked_kind_weight`` (the run's ``ResearchConfig.asked_kind_weight``;
    1 ignores the type).
    """
    asked = question.lower()
    wanted = content_terms(question)
    # an infobox's names each count with the part of it that names them, not with the
    # whole flattened box (which shares every term with the question); a table likewise,
    # so the text is read without its tables' structure (only code blocks are given);
    # code is left out: its identifiers and sample data ("cmd1 && cmd2", the tutorial's
    # 'Hayward') name nothing a reader researches
    units = [(rank, unit.text) for rank, passage in enumerate(passages)
             for unit in evidence_units(passage, min_chars=1, overlap=False,
                                        blocks=[b for b in find_blocks(passage) if b.kind == CODE])
             if unit.kind != CODE]
    scores: dict[str, float] = {}
    for (rank, text), names in zip(units, names_of_each([t for _, t in units]), strict=True):
        overlap = len(wanted & content_terms(text))
        for entity in dict.fromkeys(names):
            if entity.lower() not in asked:
                scores[entity] = scores.get(entity, 0.0) + (MENTION_WEIGHT + overlap) / (1.0 + rank)
    kinds = answer_kinds(question)
    ranked = {}
    for entity, score in scores.items():
        terms = content_terms(entity)
        named = kinds_named(entity, kinds)
        novelty = len(terms - (wanted - named)) / len(terms) if terms else 0.0
        rarity = specificity(entity) if specificity else 1.0
        kind_weight = asked_kind_weight if named else 1.0
        ranked[entity] = score * novelty * rarity ** rarity_power * kind_weight
    return ranked


def distinct_entities(names: list[str]) -> list[str]:
    """Names in order, without those that restate a kept one ("John XXIII" after "Pope
    John XXIII", "Einstein's" after "Albert Einstein"): two hops on one entity would
    research the same thing twice."""
    kept: list[tuple[str, set[str]]] = []
    for name in names:
        words = {without_possessive(w) for w in name.lower().split()}
        if not any(words <= other or other <= words for _, other in kept):
            kept.append((name, words))
    return [name for name, _ in kept]


def similar_text(a: str, b: str, threshold: float = 0.8) -> bool:
    """Near-duplicate test by content-term Jaccard (cheap, no model)."""
    ta, tb = content_terms(a), content_terms(b)
    if not ta or not tb:
        return a.strip().lower() == b.strip().lower()
    return len(ta & tb) / len(ta | tb) >= threshold


def numeric_tokens(text: str) -> frozenset[str]:
    """The numbers a sentence states; thousands separators dropped so 1,000 equals 1000; a
    percentage also as the fraction it is ("95%" states 0.95: "the 0.95 multiplier" and
    "limit the value to 95% of it" in the PostgreSQL manual agree)."""
    tokens = set()
    for match in NUMBER.finditer(text):
        raw = match.group()
        token = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", raw) else raw
        token = token.replace(",", ".")
        tokens.add(token)
        if text[match.end():match.end() + 2].lstrip()[:1] == "%":
            tokens.add(_fraction(token))
    return frozenset(tokens - {""})


def _fraction(percent: str) -> str:
    """A percentage as a decimal fraction, written without trailing zeros ("95" → "0.95",
    "50" → "0.5"); empty for what is not one number ("1.2.3")."""
    try:
        value = Decimal(percent) / 100
    except InvalidOperation:
        return ""
    written = format(value, "f")
    return written.rstrip("0").rstrip(".") if "." in written else written


def numbers_disagree(a: frozenset[str], b: frozenset[str]) -> bool:
    """Both sentences state numbers and share none: the signature of a factual conflict."""
    return bool(a) and bool(b) and a.isdisjoint(b)

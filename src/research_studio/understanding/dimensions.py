"""What a comparison compares its items on ("on performance, learning curve and
ecosystem", "in terms of concurrency and locking behaviour"), told apart from what the
comparison is for ("for a small web app") by the sentence encoder.

The parse hangs the phrases after the compared group in many ways (the small parser reads
"learning curve" as a verb and its object), so each phrase is cut at its prepositions and
its list read from its commas and conjunctions; the encoder judges, against exemplar
phrases (``prompts/question_kinds.toml``, ``[comparison_phrases]``), which phrase names
the attributes compared.
"""

from __future__ import annotations

from typing import NamedTuple

from spacy.tokens import Doc, Span, Token

from research_studio.understanding.distribute import genitive
from research_studio.understanding.exemplars import Embed, exemplar_scores
from research_studio.understanding.facets import text_of

# A phrase names attributes when it is closer to the attribute exemplars than to the
# purpose exemplars at all: the two sets are written as opposites, so the sign of the
# difference is the judgement; only a phrase that lists two or more members is taken,
# which is what keeps a near tie from making a purpose into attributes.
DIMENSION_MARGIN = 0.0


class ComparedOn(NamedTuple):
    """The attributes a comparison lists and where, in the question's characters, their
    phrase begins and ends (a purpose phrase read to the end of its clause leaves it out)."""

    dimensions: list[str]
    start: int
    end: int
    then: str = ""  # a phrase right after the list, read to the end of the clause ("for English speakers")


def _phrases_after(doc: Doc, last: int, stop: int) -> list[Span]:
    """The words after the compared group to the end of its clause, cut before every
    preposition: each piece opens with its preposition."""
    end = next((t.i for t in doc[last + 1:stop] if t.is_punct and t.text not in ",-/"), stop)
    starts = [t.i for t in doc[last + 1:end] if t.pos_ == "ADP"]
    if not starts:
        return []
    return [doc[s:e] for s, e in zip(starts, [*starts[1:], end], strict=True)]


def _members(text: str, phrase: Span) -> list[str]:
    """The phrase's list after its preposition, split at its commas and conjunctions,
    each member without its determiner; empty when a member is only names ("v. Paramount
    Pictures, Inc." lists no attributes)."""
    members, current = [], []
    for token in [*phrase[1:], None]:
        if token is None or token.text == "," or token.pos_ == "CCONJ":
            words = [t for t in current if t.pos_ not in ("DET", "ADV", "PUNCT")]
            if words and all(t.pos_ in ("PROPN", "NUM") for t in words):
                return []
            if words:
                members.append(text_of(text, words))
            current = []
        else:
            current.append(token)
    return members


def compared_on(text: str, doc: Doc, group: list[Token], embed: Embed, stop: int | None = None,
                ) -> ComparedOn | None:
    """The list of attributes written after the compared group ("… on cost and
    reliability"); no attributes but the listing phrase as ``then`` when the only lists
    read as what the comparison is for ("for beginners and experts"); None without a
    phrase that lists two or more. ``stop``: where a question asked after the group
    begins."""
    # from the last member's own word: a phrase the parse hangs on it is read, not skipped
    phrases = _phrases_after(doc, max(m.i for m in group), len(doc) if stop is None else stop)
    listed = [(p, members) for p in phrases if len(members := _members(text, p)) >= 2]
    if not listed:
        return None
    margins = _margins([p.text for p, _ in listed], embed)
    found = next((pair for pair, margin in zip(listed, margins, strict=True)
                  if margin > DIMENSION_MARGIN), None)
    if found is None:  # a list of whom or what for ("for beginners and experts"): no attributes
        first = listed[0][0]
        return ComparedOn([], first.start_char, first.end_char, text_of(text, list(first)))
    phrase, members = found
    # the words that frame the list belong to it ("in terms" of "in terms of cost and
    # care", "with respect" of "with respect to …"): a preposition and a bare noun that
    # governs the list's preposition; "for a small web app" before "on cost and …" stays
    # the comparison's purpose
    start = phrase.start
    for earlier in reversed([p for p in phrases if p.end <= phrase.start]):
        if earlier.end != start or not _frames(earlier, doc[start]):
            break
        start = earlier.start
    later = [p for p in phrases if p.start >= phrase.end]
    then = text_of(text, list(doc[later[0].start:later[-1].end])) if later else ""
    return ComparedOn(members, doc[start].idx, phrase.end_char, then)


def _frames(piece: Span, preposition: Token) -> bool:
    """The piece is a preposition and a bare noun whose only dependent is the next
    preposition ("in terms" before "of …")."""
    if len(piece) != 2 or piece[1].pos_ != "NOUN" or piece[1].head != piece[0]:
        return False
    return list(piece[1].children) == [preposition]


def _margins(phrases: list[str], embed: Embed) -> list[float]:
    """Per phrase: how much more it reads as attributes compared than as what the
    comparison is for."""
    return [score["attributes"] - score["purpose"] for score in
            exemplar_scores(phrases, embed, "question_kinds", "comparison_phrases")]


def attribute_lists(doc: Doc, groups: list[list[Token]], embed: Embed) -> list[list[Token]]:
    """The coordinated groups that list attributes of an earlier group ("Compare A and B
    by camera quality, battery life and price"): the group opens a prepositional phrase
    written after another group's members, and that phrase reads as attributes."""
    found = []
    for group in groups:
        opening = phrase_opening(doc, group, [other for other in groups if other is not group])
        if opening is not None and _margins([doc[opening.i:max(m.i for m in group) + 1].text],
                                            embed)[0] > DIMENSION_MARGIN:
            found.append(group)
    return found


def phrase_opening(doc: Doc, group: list[Token], others: list[list[Token]]) -> Token | None:
    """The preposition that opens the phrase the group is in, where that phrase is written
    after one of ``others`` and is no genitive of their members; else None. "the pros and
    cons of A, B and C": an "of" on the earlier group's nouns completes them, the later
    group owns the attributes they name; "Compare A and B on latency, throughput and cost"
    lists attributes wherever the parse hangs "on"."""
    first = group[0].left_edge.i  # before the member's own modifiers ("running costs")
    opening = next((t for t in reversed(doc[:first]) if t.pos_ == "ADP"
                    or t.pos_ in ("VERB", "AUX") or t.is_punct), None)
    if opening is None or opening.pos_ != "ADP" \
            or not any(max(t.i for t in other) < opening.i for other in others) \
            or (genitive(opening) and any(opening.head in other for other in others)):
        return None
    return opening


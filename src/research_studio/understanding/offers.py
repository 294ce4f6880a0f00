"""The alternatives a question offers as its answers ("Which came out first, A or B?",
"Which database handles JSON better, PostgreSQL, MongoDB or MySQL?"): which they are, as
written, and what the question asks of each ("Does PostgreSQL handle JSON better?").
Answering such a question compares them, whatever the question reads like.
"""

from __future__ import annotations

from typing import NamedTuple

from spacy.tokens import Doc, Token

from research_studio.understanding import facets as parts
from research_studio.understanding.parser import parse
from research_studio.understanding.serial import opens_a_question

# what sets off the alternatives a question offers ("Which is faster, A or B?")
_SETS_OFF = (",", ":", "--", "—")


def offered_as_answers(group: list) -> list:
    """The members a question that opens with its question word offers as its answers,
    set off by a comma or colon and joined by "or": "Which came out first, A or B?",
    "Which novelist, A or B, wrote …?", and "Which is better for beginners, A or B?",
    where the parser coordinates "beginners" with the names. Answering it compares them,
    whatever the question reads like ("came out first" reads as history). Empty for any
    other group."""
    doc = group[0].doc
    starts = [m.left_edge.i for m in group]
    offered = next((k for k, start in enumerate(starts)
                    if start > 0 and doc[start - 1].text in _SETS_OFF), None)
    # only a question word that asks for a thing ("which", "who", "what", "whose") has
    # answers to offer: "Why do people prefer A, B or C?" lists what they prefer
    if offered is None or len(group) - offered < 2 or not any(
            opens_a_question(t) and t.tag_ != "WRB" for t in doc[:starts[offered]]):
        return []
    # joined by "or" alone: an "and" between them is inside a name ("Bedknobs and
    # Broomsticks or …") or adds rather than offers
    joins = [t for t in doc[starts[offered]:max(m.i for m in group)] if t.pos_ == "CCONJ"]
    return group[offered:] if joins and all(parts.disjunction(t) for t in joins) else []


def offered_phrases(text: str, offered: list) -> list[str]:
    """The alternatives a question offers as written: the words from the first to the
    punctuation after the last, cut at each "or" and each comma between them ("The Climb
    or Voices of Iraq", "Bedknobs and Broomsticks or The Muppet Christmas Carol"), where
    the parse hangs a name's own words elsewhere; an article stays, as each is asked the
    question ("Is a dolphin a mammal?"). Empty when a piece names nothing."""
    doc = offered[0].doc
    first, last = offered[0].left_edge.i, max(m.i for m in offered)
    pieces = _cut(list(doc[first:_offer_end(offered)]), last)
    if not all(_names_something(piece) for piece in pieces):
        return []
    return [_as_written(text, piece) for piece in pieces]


def _cut(tokens: list[Token], before: int) -> list[list[Token]]:
    """``tokens`` cut at each "or" and comma before the token at index ``before`` (the
    last member, or just after the last "or": a comma after it is a name's, "…, Inc.")."""
    pieces: list[list[Token]] = [[]]
    for token in tokens:
        if (parts.disjunction(token) or token.text == ",") and token.i < before:
            pieces.append([])
        else:
            pieces[-1].append(token)
    return pieces


def _names_something(piece: list[Token]) -> bool:
    return any(t.pos_ in ("NOUN", "PROPN", "NUM") for t in piece)


def _as_written(text: str, piece: list[Token]) -> str:
    """A piece's words as the question writes them, on one line."""
    return " ".join(parts.text_of(text, piece).split())


def asked_of_each_offered(text: str, offered: list) -> str:
    """What a question that offers its answers asks of each, "{item}" standing for one
    (``_asked_of_each``): its sentence without the offered members, from the punctuation
    that sets them off to the punctuation after them ("Which novelist, A or B, wrote X?"
    → "Which novelist wrote X?" → "Did {item} write X?")."""
    doc = offered[0].doc
    sentence = offered[0].sent
    first = offered[0].left_edge.i
    start = first - 1 if first and doc[first - 1].text in _SETS_OFF else first
    end = _offer_end(offered)
    if end < sentence.end and doc[end].text == ",":
        end += 1  # the sentence goes on after them: "…, A or B, wrote X?"
    cut_to = doc[end].idx if end < sentence.end else sentence.end_char
    said = text[sentence.start_char:sentence.end_char]
    return _asked_of_each(said, doc[start].idx - sentence.start_char, cut_to - sentence.start_char)


def _offer_end(offered: list) -> int:
    """Where the alternatives a question offers end: the punctuation after the last, but
    not a comma that only names follow ("McFarland, USA", "Globex Widgets, Inc.": a comma
    of the last one's name)."""
    doc, sentence = offered[0].doc, offered[0].sent
    last = max(m.i for m in offered)
    # a closing quotation mark is the last one's ("… or \"Yesterday\"?")
    end = next((t.i for t in doc[last + 1:sentence.end] if t.is_punct and t.text not in "-'’&\"”"),
               sentence.end)
    if end < sentence.end and doc[end].text == "," and all(
            t.pos_ in ("PROPN", "PUNCT") for t in doc[end + 1:sentence.end]):
        return sentence.end - 1 if doc[sentence.end - 1].is_punct else sentence.end
    return end


def _asked_of_each(sentence: str, cut_from: int, cut_to: int) -> str:
    """The question of ``sentence`` without the offered alternatives at
    ``[cut_from, cut_to)``, asked of one of them ("Which is faster, A or B?" → "Which is
    faster?" → "Is {item} faster?"), parsed again: the offered names can mislead the parse
    of the rest ("MongoDB" read as a number). Empty when the question word's phrase stands
    for none of them (``asked_of_an_offered_item``)."""
    before, after = sentence[:cut_from].rstrip(), sentence[cut_to:].strip()
    remainder = f"{before} {after}" if after[:1].isalnum() else before + after
    reread = parse(remainder, judge_language=False) if before else None
    if reread is None or not len(reread):
        return ""
    asked = parts.asked_of_an_offered_item(remainder, reread[:])
    return parts.as_question(asked) if asked else ""


class Offer(NamedTuple):
    alternatives: list[str]
    item_question: str
    taken: set[int]  # the offered words' token indices in the question's parse


def offered_at_the_end(text: str, doc: Doc) -> Offer | None:
    """Alternatives a question offers at its end, set off by a comma or colon and joined
    by "or", read from their own parse where the question's does not coordinate them
    ("Which database handles JSON better, PostgreSQL, MongoDB or MySQL?": the small parser
    tags "MongoDB" a number and joins "PostgreSQL" to "better"). Each is a phrase with a
    noun and no verb; the first such tail after the question word is the offer."""
    sentence = next(iter(doc.sents))
    asking = next((t for t in sentence if opens_a_question(t) and t.tag_ != "WRB"), None)
    closing = sentence[-1] if sentence[-1].text in ("?", ".") else None
    if asking is None or closing is None or closing.idx > len(text):  # a full stop parse() added
        return None
    for mark in (t for t in sentence if t.text in _SETS_OFF and t.i > asking.i):
        tail_start = mark.idx + len(mark.text)
        alternatives = _alternatives(text[tail_start:closing.idx])
        if alternatives:
            return Offer(alternatives, _asked_of_each(text, mark.idx, closing.idx),
                          {t.i for t in sentence if mark.idx <= t.idx < closing.idx})
    return None


def _alternatives(tail: str) -> list[str]:
    """The members of a list of alternatives as written ("PostgreSQL, MongoDB or MySQL"):
    pieces cut at "or" and the commas before it, at least two, each with a noun or name and
    no verb, joined by "or" alone (an "and" adds rather than offers); empty otherwise."""
    doc = parse(tail, judge_language=False)
    if doc is None:
        return []
    words = [t for t in doc if t.idx < len(tail) and not t.is_space]
    joins = [t for t in words if t.pos_ == "CCONJ"]
    if not joins or not all(parts.disjunction(t) for t in joins):
        return []
    # a list's commas come before its last "or"; one after it is a name's ("…, Inc.")
    pieces = _cut(words, joins[-1].i + 1)
    comma = next((k for k, t in enumerate(pieces[-1]) if t.text == ","), None)
    if comma is not None and not all(t.pos_ in ("PROPN", "PUNCT") for t in pieces[-1][comma:]):
        return []  # the question goes on after them ("…, A or B, in your opinion?")
    if len(pieces) < 2 or not all(
            _names_something(piece) and not any(t.pos_ in ("VERB", "AUX") for t in piece)
            for piece in pieces):
        return []
    return [_as_written(tail, piece) for piece in pieces]


def before_the_offer(text: str, group: list, offered: list) -> str:
    """The phrase the parse coordinated with the offered names, when a preposition
    relates it (" for beginners" of "Which is better for beginners, A or B?"); empty
    otherwise ("Which language has more speakers, A or B?": what is compared, asked in
    the question itself)."""
    if not offered or offered[0] is group[0] or group[0].dep_ != "pobj":
        return ""
    preposition = group[0].head
    words = [t for t in preposition.subtree if t.i < offered[0].left_edge.i and not t.is_punct]
    return " " + parts.text_of(text, words) if words else ""

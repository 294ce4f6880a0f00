"""Enumerated and bulleted lists in a brief ("Your report should: 1) List the makers …
2) Include images … 3) Analyze …"): each item is a part of the research of its own.

The tagger marks list item markers (tag ``LS``, dependency ``meta``); a bullet is a
symbol that opens a line. Inside a list the parse of the sentence around an item is
often wrong ("1) List major manufacturers" reads "List" as a noun), so each item is
parsed again on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc, Token

# A list has at least this many items; one marker is more often a stray number or symbol.
MIN_LIST_ITEMS = 2


@dataclass(frozen=True)
class ListItem:
    """An item's characters in the text (without its marker), and where its marker opens."""

    start: int
    end: int
    marker: int


def _opens_line(token: Token) -> bool:
    return token.i == 0 or "\n" in token.doc[token.i - 1].text_with_ws


def _bullet(token: Token) -> bool:
    """A symbol that opens a line ("- ", "• ", "* "), not an opening quote or bracket."""
    return (_opens_line(token) and not any(ch.isalnum() for ch in token.text)
            and not token.is_space and not token.is_quote and not token.is_left_punct)


def _marker(token: Token) -> bool:
    return token.tag_ == "LS" or token.dep_ == "meta" or _bullet(token)


def _ordinal(token: Token) -> int | None:
    """The place a small number or single letter counts ("1" → 1, "b" → 2), or None."""
    text = token.text.lower()
    if text.isdigit() and len(text) <= 2:
        return int(text)
    return ord(text) - ord("a") + 1 if len(text) == 1 and "a" <= text <= "z" else None


def _enumerators(doc: Doc) -> set[int]:
    """Items counted inside a sentence ("cover (1) X, (2) Y and (3) Z", "covering: 1. X,
    2. Y"), which the tagger marks only now and then: a number or letter closed by ")"
    or "." after punctuation or a conjunction, in a run that counts 1, 2, 3 … or a, b,
    c … (a stray "(a)" or "3." counts nothing)."""
    run: list[int] = []
    found: set[int] = set()
    for token in doc[:-1]:
        place = _ordinal(token)
        after, before = doc[token.i + 1], doc[token.i - 1] if token.i else None
        opened = before is None or before.is_punct or before.pos_ == "CCONJ" or "\n" in before.text_with_ws
        if place is None or after.text not in (")", ".") or not opened:
            continue
        if place == 1:
            run = [token.i]
        elif run and place == _ordinal(doc[run[-1]]) + 1:
            run.append(token.i)
            if len(run) >= MIN_LIST_ITEMS:
                found.update(run)
    return found


def _marker_spans(doc: Doc) -> list[tuple[int, int]]:
    """(first token, first token after it) of every marker with its punctuation: "1)",
    "(b)", "2.", "-"."""
    found: list[tuple[int, int]] = []
    counted = _enumerators(doc)
    i = 0
    while i < len(doc):
        if not (_marker(doc[i]) or i in counted) or doc[i].is_space:
            i += 1
            continue
        start = i - 1 if i and doc[i - 1].is_left_punct and doc[i - 1].is_bracket else i
        end = i + 1
        while end < len(doc) and doc[end].is_punct and not doc[end].is_left_punct:
            end += 1  # the ")" or "." after "1"
        found.append((start, end))
        i = end
    return found


def marker_offsets(doc: Doc) -> list[int]:
    """Where the text's list markers open (character offsets); none without a list."""
    markers = _marker_spans(doc)
    return [doc[start].idx for start, _ in markers] if len(markers) >= MIN_LIST_ITEMS else []


def list_items(doc: Doc) -> list[ListItem]:
    """The items of the text's list, in order; empty when it has fewer than two. The last
    item ends with its sentence."""
    markers = _marker_spans(doc)
    if len(markers) < MIN_LIST_ITEMS:
        return []
    items: list[ListItem] = []
    for k, (start, end) in enumerate(markers):
        if end >= len(doc):
            continue
        stop = doc[markers[k + 1][0]].idx if k + 1 < len(markers) else doc[end].sent.end_char
        first = doc[end].idx
        if doc.text[first:stop].strip(" \n\t.;:,"):
            items.append(ListItem(start=first, end=stop, marker=doc[start].idx))
    return items if len(items) >= MIN_LIST_ITEMS else []

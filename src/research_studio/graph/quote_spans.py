"""Where a quote lies in its document.

A document is stored as overlapping chunks, so one sentence of it can be quoted from two
chunks: two source ids, two finding ids, two claims, and the report showed the sentence
twice ("If an application disables the automatic checkpoint, then there is nothing to
prevent the WAL file from growing excessively." once alone and once inside the three
sentences that lead to it). The word-overlap test does not catch a sentence inside a
longer quote; the quote's place in the document does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# (document id, first character, end) in the document's text
DocumentSpan = tuple[str, int, int]


def chunk_place(source: Mapping[str, Any]) -> tuple[str, int] | None:
    """The document a stored span belongs to and where in it the span starts; None for a
    source that does not record both (then its quotes are compared by their words only)."""
    doc_id, start = source.get("doc_id"), source.get("start")
    return (doc_id, start) if doc_id and isinstance(start, int) else None


def finding_span(finding: Mapping[str, Any],
                 sources: Mapping[str, Mapping[str, Any]]) -> DocumentSpan | None:
    """The document stretch a finding quotes (its quote offsets are its source's)."""
    place = chunk_place(sources.get(finding.get("source_id", ""), {}))
    if place is None or "quote_start" not in finding or "quote_end" not in finding:
        return None
    return place[0], place[1] + finding["quote_start"], place[1] + finding["quote_end"]


def claim_spans(claim: Mapping[str, Any],
                sources: Mapping[str, Mapping[str, Any]]) -> list[DocumentSpan]:
    """The document stretches where verification found a claim's quote, one per source."""
    checked = (claim.get("verification") or {}).get("checked") or {}
    spans = []
    for source_id, found in checked.items():
        place = chunk_place(sources.get(source_id, {}))
        if place is not None and isinstance(found.get("start"), int) \
                and isinstance(found.get("end"), int):
            spans.append((place[0], place[1] + found["start"], place[1] + found["end"]))
    return spans


def overlapping(first: Iterable[DocumentSpan], second: Iterable[DocumentSpan]) -> bool:
    """Whether some stretch of ``first`` shares characters with one of ``second`` in the
    same document: quotes that only touch (one ends where the next starts) share none."""
    second = list(second)
    return any(a[0] == b[0] and a[1] < b[2] and b[1] < a[2] for a in first for b in second)

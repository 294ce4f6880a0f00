"""Which section of its document a passage stands in: the heading a reader would look for
("6.2.1. Initialization" of a page on APT) and the anchor that opens the page there.

A documentation page often holds several sections under one page title; a citation that
names only the page leaves the reader to search it. Sections are read from the page's
headings at ingestion (``markup.render_html``) and stored with each chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    """A heading at ``[start, end)`` of its document's text: its level (1 for ``<h1>``),
    its text and the page's anchor for it ("" where the page gives none)."""

    start: int
    end: int
    level: int
    title: str
    anchor: str = ""
    closes: int | None = None  # where the element it heads ends (a box); None: open


def section_at(sections: Sequence[Section], start: int, lookahead: int = 0) -> Section | None:
    """The section a passage beginning at ``start`` is in: the last heading that begins
    at or before ``start + lookahead`` and whose element has not closed by then (after a
    box titled "Note" the text is the enclosing section's again). A chunk opens with up to
    an overlap's worth of the text before it (``lookahead``), which the previous chunk
    holds; a heading within that opens the text that is this chunk's own. None before
    the first heading."""
    at = start + lookahead
    held = [s for s in sections if s.start <= at and (s.closes is None or s.closes > at)]
    return max(held, key=lambda s: s.start) if held else None

"""Overlapping chunks that remember their character offsets in the original text.

A claim must later point at an exact span of a stored source, so every chunk is a slice
``text[start:end]`` of its document, never a rewritten copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from research_studio.knowledge.structure import announces

# preferred break points, best first: paragraph, line, sentence, clause, word
_BREAKS = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")


@dataclass(frozen=True)
class ChunkSpan:
    index: int
    start: int
    end: int


def _break_before(text: str, lo: int, hi: int) -> int:
    """The best break position in ``text[lo:hi]``, or ``hi`` if there is none. A line
    ending in a colon announces what follows it (the commands, the list): a paragraph or
    line break is taken before that line rather than after it where there is one, so
    the next chunk holds the two together."""
    for marker in _BREAKS:
        pos = text.rfind(marker, lo, hi)
        if pos == -1:
            continue
        if not marker.strip():
            earlier = pos
            while earlier != -1 and announces(text[lo:earlier]):
                earlier = text.rfind(marker, lo, earlier)
            return pos if earlier == -1 else earlier
        return pos + len(marker.rstrip())
    return hi


def _outside(stretches: Sequence[tuple[int, int]], position: int, lo: int, hi: int,
             longest: int) -> int:
    """``position``, or where the stretch it falls inside ends (when that is before
    ``hi``) or begins (when that is after ``lo``): a stretch of at most ``longest``
    characters then lies whole in this chunk or in the next, which begins up to an
    overlap before this one's end."""
    for start, end in stretches:
        if start < position < end and end - start <= longest:
            if end <= hi:
                return end
            if start > lo:
                return start
    return position


def chunk_spans(text: str, size: int = 900, overlap: int = 150,
                keep_together: Sequence[tuple[int, int]] = ()) -> list[ChunkSpan]:
    """Cut ``text`` into spans of at most ``size`` characters overlapping by about ``overlap``.

    Breaks fall on paragraph, sentence or word boundaries where possible; spans are
    trimmed of surrounding whitespace; empty text gives no spans. A break is not taken
    inside a stretch of ``keep_together`` (``structure.announced_stretches``) short
    enough for one chunk.
    """
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError("chunk size must be positive and overlap in [0, size)")
    spans: list[ChunkSpan] = []
    n = len(text)
    start = 0
    while start < n:
        while start < n and text[start].isspace():
            start += 1
        if start >= n:
            break
        hard_end = min(n, start + size)
        end = hard_end if hard_end == n else _break_before(text, start + size // 2, hard_end)
        if end < n:
            end = _outside(keep_together, end, start + size // 2, hard_end, size - overlap)
        trimmed_end = end
        while trimmed_end > start and text[trimmed_end - 1].isspace():
            trimmed_end -= 1
        spans.append(ChunkSpan(len(spans), start, trimmed_end))
        if end >= n:
            break
        next_start = max(end - overlap, start + 1)
        if next_start < end:  # begin the overlap on a word boundary
            space = text.find(" ", next_start, end)
            next_start = space + 1 if space != -1 else next_start
        start = next_start
    return spans

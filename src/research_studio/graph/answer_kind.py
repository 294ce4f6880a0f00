"""What kind of thing a chain question's first hop asks for, and which linked entities
look like that kind.

The first hop of "the country where the Kamchatka Peninsula is located" is a country: of
the names its evidence links (Karaginsky Island, Commander Islands, Russian Federation)
the one that reads like a country is the one to follow. The embedded sentence encoder
judges that from the names alone, with no knowledge base of entity types."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from research_studio.graph.text_analysis import anchor_clause, clauses, nesting_markers

_OF_PHRASE = re.compile(r"(?:the|a|an)\s+([a-z]+)\s+of\b", re.IGNORECASE)
_FLOOR = 0.05  # a name unlike the kind is pushed down, never ruled out
# "the party in which …", "the leader from whom …": the noun stands before the preposition
_PREPOSITIONS = {"in", "of", "from", "to", "at", "on", "by", "for", "with", "into", "through", "about"}
_NO_KIND = {"one", "ones", "the", "a", "an", "its", "his", "her", "their"}


def asked_kind(question: str) -> str | None:
    """The noun the innermost hop asks for: "… the singer of Hungry Eyes was born" →
    singer (the person comes before the place); "the country where X is located" →
    country. None when the question is not a chain."""
    anchor = anchor_clause(question)
    if anchor is None:
        return None
    inner = _OF_PHRASE.match(clauses(question)[-1])
    if inner:
        return inner.group(1).lower()
    head = [w.lower() for w in anchor[:nesting_markers(anchor)[0].start()].split()]
    while head and head[-1] in _PREPOSITIONS:
        head.pop()
    noun = head[-1] if head else ""
    return noun if noun.isalpha() and noun not in _NO_KIND else None  # "the one who …": no kind


def rank_by_kind(kind: str, names: list[str],
                 similarity: Callable[[list[str], list[str]], np.ndarray],
                 power: float = 2.0) -> list[str]:
    """Re-rank linked names (best first) by their rank times their likeness to ``kind``
    (``similarity``: the sentence encoder's cosine, ``ResearchDeps.similarity``, raised to
    ``power``): names that read like the asked kind move up. MuSiQue plans, offline: hop
    entities naming a supporting paragraph or a bridge in 59 → 64 of 100 questions
    (benchmarks.md §4)."""
    if len(names) < 2:
        return names
    row = similarity([kind], names)[0]
    weight = {name: max(_FLOOR, float(row[rank])) ** power / (1.0 + rank)
              for rank, name in enumerate(names)}
    return sorted(names, key=lambda name: -weight[name])

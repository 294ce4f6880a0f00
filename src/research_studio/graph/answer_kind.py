"""Which linked entities look like the kind of thing a chain question's first hop asks
for (the parse gives that kind: ``QuestionStructure.asked_kind``).

The first hop of "the country where the Kamchatka Peninsula is located" is a country: of
the names its evidence links (Karaginsky Island, Commander Islands, Russian Federation)
the one that reads like a country is the one to follow. The embedded sentence encoder
judges that from the names alone, with no knowledge base of entity types."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

_FLOOR = 0.05  # a name unlike the kind is pushed down, never ruled out


def rank_by_kind(kind: str, names: list[str],
                 similarity: Callable[[list[str], list[str]], np.ndarray],
                 power: float = 2.0) -> list[str]:
    """Re-rank linked names (best first) by their rank times their likeness to ``kind``
    (``similarity``: the sentence encoder's cosine, ``ResearchDeps.similarity``, raised to
    ``power``): names that read like the asked kind move up. MuSiQue plans, offline: hop
    entities naming a supporting paragraph or a bridge in 59 → 64 of 100 questions
    (docs/lab-log.md §4)."""
    if len(names) < 2:
        return names
    row = similarity([kind], names)[0]
    weight = {name: max(_FLOOR, float(row[rank])) ** power / (1.0 + rank)
              for rank, name in enumerate(names)}
    return sorted(names, key=lambda name: -weight[name])

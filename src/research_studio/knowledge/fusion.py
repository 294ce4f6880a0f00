"""Reciprocal rank fusion of several rankings, with a weight per ranking."""

from __future__ import annotations

from collections import defaultdict


def reciprocal_rank_fusion(
    rankings: dict[str, list[str]], weights: dict[str, float], k: int = 60
) -> list[tuple[str, float]]:
    """Fuse ranked id lists: score(d) = sum over rankings of weight / (k + rank(d)).

    Ranks start at 1. Ties keep the order in which ids were first seen, so the result is
    deterministic.
    """
    scores: dict[str, float] = defaultdict(float)
    first_seen: dict[str, int] = {}
    for name, ids in rankings.items():
        weight = weights.get(name, 1.0)
        for rank, doc_id in enumerate(ids, start=1):
            scores[doc_id] += weight / (k + rank)
            first_seen.setdefault(doc_id, len(first_seen))
    return sorted(scores.items(), key=lambda item: (-item[1], first_seen[item[0]]))

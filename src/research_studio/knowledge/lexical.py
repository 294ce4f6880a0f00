"""BM25 over the chunks of one knowledge base (rank-bm25), rebuilt when the KB changes."""

from __future__ import annotations

import re

import numpy as np
from rank_bm25 import BM25Okapi

_TOKEN = re.compile(r"\w+", re.UNICODE)
# Function words carry no evidence; dropping them sharpens BM25 on question-style queries.
_STOPWORDS = frozenset((
    "a an and are as at be been but by can could did do does for from had has have he her "
    "him his how i if in into is it its me my no not of on or our she so than that the "
    "their them then there these they this those to was we were what when where which who "
    "whom whose why will with would you your"
).split())


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without stop words."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOPWORDS]


class LexicalIndex:
    """In-memory BM25 over (id, text) pairs."""

    def __init__(self, ids: list[str], texts: list[str]) -> None:
        self.ids = ids
        corpus = [tokenize(t) or ["∅"] for t in texts]
        self._bm25 = BM25Okapi(corpus) if corpus else None
        self._max_idf = max(self._bm25.idf.values(), default=0.0) if self._bm25 else 0.0

    def search(self, query: str, depth: int) -> list[tuple[str, float]]:
        """Top ``depth`` (id, score) pairs among chunks sharing a term with the query.

        Okapi IDF can go negative in tiny collections (a term in every chunk), so
        matching chunks are kept whatever the sign; non-matching ones score exactly 0.
        """
        tokens = tokenize(query)
        if self._bm25 is None or not tokens:
            return []
        scores = self._bm25.get_scores(tokens)
        top = np.argsort(-scores)[:depth]
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] != 0]

    def specificity(self, phrase: str) -> float:
        """How rare the phrase's words are in this collection, 0..1 (mean BM25 IDF over
        the largest IDF): names of one thing score high, words most chunks share low."""
        tokens = tokenize(phrase)
        ceiling = self._max_idf
        if self._bm25 is None or not tokens or ceiling <= 0:
            return 0.0
        idf = self._bm25.idf
        return min(1.0, sum(max(0.0, idf.get(t, ceiling)) for t in tokens) / (len(tokens) * ceiling))

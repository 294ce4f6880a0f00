"""How many of a collection's documents carry each word in their titles: a name most
titles share names the collection itself (its product, "Git"; its page template, "Manual
Page" of every page of the Git manual), not something in it to research.

A word's rarity over the chunks (BM25's IDF) does not show this once a collection mixes
kinds of document: the Git manual's 195 HTML pages all say "Manual Page" in their titles,
but its release notes, plain text without it, hold most of its chunks, so "Manual Page"
looks as specific as "HEAD".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from research_studio.knowledge.lexical import tokenize


@dataclass(frozen=True)
class TitleWords:
    counts: Counter[str]  # word → documents whose title has it
    documents: int

    @classmethod
    def of(cls, titles: Iterable[str]) -> TitleWords:
        counts: Counter[str] = Counter()
        documents = 0
        for title in titles:
            documents += 1
            counts.update(set(tokenize(title)))
        return cls(counts, documents)

    def titles_naming(self, phrase: str) -> int:
        """Documents whose titles hold every word of ``phrase``, at most (the rarest
        word's count: the words need not stand together)."""
        words = tokenize(phrase)
        return min((self.counts[w] for w in words), default=0)

    def names_collection(self, phrase: str, min_share: float) -> bool:
        """The phrase is in the titles of at least ``min_share`` of the documents, and
        of more than one (a name in one title is that document's own)."""
        naming = self.titles_naming(phrase)
        return naming > 1 and naming >= min_share * self.documents

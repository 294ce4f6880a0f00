"""What a batch reader found in each text, kept for the process: the passages of a
research come back in every iteration and sub-question, and from question to question
over one collection, so a text read once is not read again."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

Found = TypeVar("Found")


class TextMemory(Generic[Found]):
    """Each text's result, read at most once per process; emptied when it would hold more
    than ``limit`` texts (a text's result is small, a collection's sentences many)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._known: dict[str, Found] = {}

    def read(self, texts: Sequence[str], reader: Callable[[list[str]], Iterable[Found]],
             ) -> list[Found]:
        """``reader``'s result for each text, in order; ``reader`` is given the texts not
        read before, each once, in one batch."""
        known = {t: self._known[t] for t in texts if t in self._known}
        unread = [t for t in dict.fromkeys(texts) if t not in known]
        known.update(zip(unread, reader(unread), strict=True))
        if len(self._known) + len(unread) > self.limit:
            self._known.clear()
        self._known.update((t, known[t]) for t in unread)
        return [known[t] for t in texts]

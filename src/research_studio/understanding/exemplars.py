"""A text's likeness to labelled exemplar texts, judged by the sentence encoder.

Question kinds, answer types and the source-directive classes are each a table of
exemplars per label in ``prompts/`` (data, not code); the encoder generalises from them
to wordings nobody listed. Each table is embedded once per encoder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from research_studio.prompts import load_data

Embed = Callable[[list[str]], np.ndarray]
# A label's score is the mean cosine of its closest exemplars: one lucky exemplar should
# not decide, and every label has at least this many.
NEAREST_EXEMPLARS = 2


@lru_cache(maxsize=8)
def _embedded(embed: Embed, name: str, table: str) -> tuple[dict[str, list[int]], np.ndarray]:
    """Rows of each label, and every exemplar of ``prompts/<name>.toml``'s ``[table]``
    embedded (rows in label order)."""
    rows: dict[str, list[int]] = {}
    texts: list[str] = []
    for label, exemplars in load_data(name)[table].items():
        rows[label] = list(range(len(texts), len(texts) + len(exemplars)))
        texts += exemplars
    return rows, embed(texts)


def exemplar_scores(texts: Sequence[str], embed: Embed, name: str, table: str,
                    embed_texts: Embed | None = None) -> list[dict[str, float]]:
    """Each text's likeness to each label of the table (cosine, higher is closer). The
    table is embedded once per ``embed``, which must therefore live as long as the
    encoder; the texts with ``embed_texts`` when given (a run's cache: its texts are
    embedded by other steps too)."""
    if not texts:
        return []
    rows, matrix = _embedded(embed, name, table)
    similarity = (embed_texts or embed)(list(texts)) @ matrix.T
    return [{label: float(np.sort(row[columns])[::-1][:NEAREST_EXEMPLARS].mean())
             for label, columns in rows.items()} for row in similarity]

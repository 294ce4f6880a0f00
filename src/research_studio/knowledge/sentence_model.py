"""Where sentences start, by spaCy's statistical sentence segmenter.

Full stops are ambiguous: "Dr. Seuss", "J. K. Rowling", "the U.S. Army", "No. 1" and
"United States v. Hudson" end no sentence, yet a full stop before a capital is all a
pattern can see. The segmenter (``senter`` of ``en_core_web_sm``, the package the question
parser already ships) learnt sentence ends from annotated text; ``structure.sentences``
asks it before splitting prose at a full stop. Its own tok2vec and senter are all that
runs: about 126,000 characters a second on one core.

When the pipeline cannot be loaded the answer is None and sentences are split at every
full stop before a capital, as before.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from functools import cache

from spacy.language import Language

from research_studio.understanding.parser import PIPELINE

log = logging.getLogger("research_studio.knowledge")

# Paragraphs whose sentence starts are remembered: the same passage is split again by
# each step that quotes it (findings, claim check, the report), and a run reads a few
# hundred passages; beyond this the oldest are recomputed.
CACHED_PARAGRAPHS = 4096
# The segmenter's memory grows with the text it reads at once, about 3 MB per 1,000
# characters (measured: 900 MB for 300,000). Paragraphs are read in batches of at most
# this many characters (about 150 MB at the peak) ...
BATCH_CHARS = 50_000
# ... and a longer paragraph is not read: such a "paragraph" is a flattened table, an
# index or a log rather than prose, and its full stops are all taken for sentence ends.
MAX_PARAGRAPH_CHARS = 20_000
_cache: OrderedDict[str, tuple[int, ...]] = OrderedDict()
_lock = threading.Lock()


@cache
def segmenter() -> Language | None:
    """The pipeline's tokenizer, tok2vec and senter alone, or None (logged once)."""
    try:
        import spacy

        nlp = spacy.load(PIPELINE, exclude=["tagger", "parser", "attribute_ruler",
                                            "lemmatizer", "ner"])
        nlp.enable_pipe("senter")
        return nlp
    except (ImportError, OSError, ValueError) as exc:
        log.warning("spaCy's sentence segmenter (%s) is unavailable (%s): sentences end at "
                    "every full stop before a capital", PIPELINE, exc)
        return None


def _batches(paragraphs: list[str]) -> Iterator[list[str]]:
    batch: list[str] = []
    size = 0
    for paragraph in paragraphs:
        if batch and size + len(paragraph) > BATCH_CHARS:
            yield batch
            batch, size = [], 0
        batch.append(paragraph)
        size += len(paragraph)
    if batch:
        yield batch


def sentence_starts(paragraphs: Sequence[str]) -> list[tuple[int, ...] | None] | None:
    """For each paragraph, the character offsets at which the segmenter starts a
    sentence, in order (the first one's included), or None for one too long to read;
    None for all when the segmenter is unavailable."""
    nlp = segmenter()
    if nlp is None:
        return None
    with _lock:
        known = {p: _cache[p] for p in paragraphs if p in _cache}
    todo = [p for p in dict.fromkeys(paragraphs)
            if p not in known and len(p) <= MAX_PARAGRAPH_CHARS]
    for batch in _batches(todo):
        for paragraph, doc in zip(batch, nlp.pipe(batch), strict=True):
            known[paragraph] = tuple(token.idx for token in doc if token.is_sent_start)
    with _lock:
        for paragraph in todo:
            _cache[paragraph] = known[paragraph]
            _cache.move_to_end(paragraph)
        while len(_cache) > CACHED_PARAGRAPHS:
            _cache.popitem(last=False)
    return [known.get(p) for p in paragraphs]

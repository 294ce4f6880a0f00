"""Whether a sentence leans on the one before it: it opens with a third-person pronoun
("He worked on …", "Its capital …") or a demonstrative ("This album …"), read from
spaCy's morphology (``PronType``, ``Person``), so a quote shown on its own can be
prefixed with what it is about."""

from __future__ import annotations

from functools import lru_cache

from research_studio.understanding.parser import TAGS_ONLY, parse_batch


@lru_cache(maxsize=4096)
def opens_with_reference(text: str) -> bool:
    """The first word points back: a personal pronoun of the third person or a
    demonstrative. False when the pipeline is not installed."""
    doc = parse_batch([text], skip=TAGS_ONLY)[0]
    first = next((t for t in doc if not (t.is_punct or t.is_space)), None) if doc is not None else None
    if first is None:
        return False
    kind = first.morph.get("PronType")
    return "Dem" in kind or ("Prs" in kind and first.morph.get("Person") == ["3"])

"""Whether a sentence leans on the one before it: it opens with a third-person pronoun
("He worked on …", "Its capital …") or a demonstrative ("This album …"), read from
spaCy's morphology (``PronType``, ``Person``), so a quote shown on its own can be
prefixed with what it is about."""

from __future__ import annotations

from functools import lru_cache

from research_studio.understanding.facets import grammatical_number
from research_studio.understanding.parser import TAGS_ONLY, parse_batch, points_back


@lru_cache(maxsize=4096)
def _reference_number(text: str) -> list[str] | None:
    """The number of the first word when it points back (a personal pronoun of the third
    person or a demonstrative; [] when unmarked), None when it does not or the pipeline is
    not installed."""
    doc = parse_batch([text], skip=TAGS_ONLY)[0]
    first = next((t for t in doc if not (t.is_punct or t.is_space)), None) if doc is not None else None
    if first is None:
        return None
    return first.morph.get("Number") if points_back(first) else None


def may_refer_to(text: str, phrase: str) -> bool:
    """The sentence opens with a word that points back and could stand for ``phrase`` (a
    source's title): its number agrees ("It selects …" cannot mean "Compound statements";
    a name's number is not read, so any pronoun may stand for it)."""
    number = _reference_number(text)
    if number is None:
        return False
    wanted = grammatical_number(phrase)
    return not number or not wanted or number == wanted

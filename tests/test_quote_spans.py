"""One sentence quoted from two overlapping chunks of a document is one statement: the
findings keep it once, the report shows it once, and a quote next to it is still kept."""

from __future__ import annotations

import pytest

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.findings import validate_findings
from research_studio.graph.nodes.write import restates
from research_studio.graph.quote_spans import claim_spans, finding_span, overlapping

SENTENCES = [
    "By default the cache is flushed to disk whenever it holds more than a thousand pages.",
    "Build options and settings exist that turn this automatic flush off or delay it.",
    "An application that turns the automatic flush off must flush the cache itself, or the "
    "cache file grows without limit.",
    "A flush can only finish while no other connection is reading the cache file.",
]
DOCUMENT = " ".join(SENTENCES)
# two stored chunks of the document that overlap by the third sentence (as ingestion
# overlaps neighbouring chunks so that no sentence falls between two)
FIRST_END = DOCUMENT.index(SENTENCES[3])
SECOND_START = DOCUMENT.index(SENTENCES[2])


def source(source_id: str, start: int, end: int, doc_id: str = "cache.html") -> dict:
    return {"source_id": source_id, "doc_id": doc_id, "start": start, "end": end,
            "text": DOCUMENT[start:end]}


SOURCES = {"kb:d:1": source("kb:d:1", 0, FIRST_END),
           "kb:d:2": source("kb:d:2", SECOND_START, len(DOCUMENT))}


def finding(source_id: str, first: int, last: int, sources: dict = SOURCES) -> dict:
    """The finding quoting sentences ``first``..``last`` of the document from a chunk."""
    chunk = sources[source_id]
    text = " ".join(SENTENCES[first:last + 1])
    start = chunk["text"].index(text)
    return {"finding_id": f"sq_001-{source_id}-{first}-{last}", "sub_question_id": "sq_001",
            "source_id": source_id, "quote": text, "text": text, "quote_start": start,
            "quote_end": start + len(text)}


def keep(candidates: list[dict], known: list[dict], sources: dict | None = SOURCES) -> list[dict]:
    texts = {sid: s["text"] for sid, s in (sources or SOURCES).items()}
    return validate_findings(candidates, known, texts, lambda quotes: set(),
                             ResearchConfig().duplicate_quote_overlap, sources)


def test_a_sentence_inside_a_known_quote_of_the_overlapping_chunk_is_a_repeat():
    known = finding("kb:d:1", 0, 2)  # three sentences leading to the third
    again = finding("kb:d:2", 2, 2)  # the third alone, from the next chunk
    assert finding_span(known, SOURCES)[1:] == (0, FIRST_END - 1)
    assert keep([again], [known]) == []
    # the words alone do not tell: the longer quote shares a third of its terms
    assert keep([again], [known], sources=None) == [again]


def test_of_two_candidates_sharing_a_sentence_the_longer_is_kept_in_either_order():
    short, long = finding("kb:d:2", 2, 2), finding("kb:d:1", 1, 2)
    assert keep([short, long], []) == [long]
    assert keep([long, short], []) == [long]


def test_quotes_that_only_touch_and_the_same_words_in_another_document_are_kept():
    before, after = finding("kb:d:1", 1, 1), finding("kb:d:2", 2, 3)
    assert keep([before, after], []) == [before, after]
    elsewhere = {**SOURCES, "kb:e:1": source("kb:e:1", SECOND_START, len(DOCUMENT), "other.html")}
    copy = finding("kb:e:1", 2, 2, elsewhere)
    assert keep([copy], [finding("kb:d:1", 0, 2)], elsewhere) == [copy]


def claim(claim_id: str, found: dict) -> dict:
    """The claim of a finding, as verification leaves it: where its quote was found."""
    span = {"method": "exact", "ratio": 1.0, "start": found["quote_start"], "end": found["quote_end"]}
    return {"claim_id": claim_id, "text": found["text"], "source_ids": [found["source_id"]],
            "verification": {"source_id": found["source_id"], **span,
                             "checked": {found["source_id"]: span}}}


def test_a_claim_inside_another_sections_claim_is_not_shown_again():
    overlap = ResearchConfig().shown_claim_overlap
    shown = [claim("a", finding("kb:d:1", 0, 2))]
    inside = claim("b", finding("kb:d:2", 2, 2))
    beside = claim("c", finding("kb:d:2", 3, 3))
    assert restates([inside, beside], shown, overlap, SOURCES) == [True, False]
    assert restates([inside], shown, overlap) == [False]  # by their words alone


def test_a_claim_is_placed_where_verification_found_its_quote():
    again = finding("kb:d:2", 2, 2)
    assert claim_spans(claim("b", again), SOURCES) == [
        ("cache.html", SECOND_START, SECOND_START + len(SENTENCES[2]))]


@pytest.mark.parametrize("recorded", [{"doc_id": ""}, {"start": None}])
def test_a_source_without_its_place_in_the_document_is_compared_by_words_only(recorded):
    sources = {sid: {**s, **recorded} for sid, s in SOURCES.items()}
    known, again = finding("kb:d:1", 0, 2), finding("kb:d:2", 2, 2)
    assert finding_span(again, sources) is None and claim_spans(claim("b", again), sources) == []
    assert keep([again], [known], sources) == [again]
    assert not overlapping([], [("cache.html", 0, 10)])

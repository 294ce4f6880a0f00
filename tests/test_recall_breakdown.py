"""The recall breakdown script's arithmetic on hand-made records (benchmarks/recall_breakdown.py)."""

from benchmarks.recall_breakdown import hop_count, paragraph_status


def _record(decomposition: list | None = None) -> dict:
    return {"id": "q1", "decomposition": decomposition or [], "paragraphs": [
        {"id": "q1#0", "title": "A", "text": "Alpha  is first.", "is_supporting": True},
        {"id": "q1#1", "title": "B", "text": "Beta is second.", "is_supporting": True},
        {"id": "q1#2", "title": "C", "text": "Gamma is third.", "is_supporting": True},
        {"id": "q1#3", "title": "D", "text": "Delta is a distractor.", "is_supporting": False}]}


def test_hops_come_from_the_decomposition_else_from_the_supporting_paragraphs() -> None:
    assert hop_count(_record([{"question": "x"}, {"question": "y"}])) == 2
    assert hop_count(_record()) == 3


def test_each_supporting_paragraph_is_cited_retrieved_or_missed_matched_by_text() -> None:
    # normalised like the corpus (whitespace); q2#7 is another question's copy of paragraph A
    texts = {"q1#0": "Alpha is first.", "q1#1": "Beta is second.", "q1#3": "Delta is a distractor.",
             "q2#7": "Alpha is first."}
    row = {"cited_doc_ids": ["q2#7", "q1#3"], "retrieved_doc_ids": ["q2#7", "q1#1", "q1#3"]}
    assert paragraph_status(_record(), row, texts) == [
        ("A", "cited"), ("B", "retrieved"), ("C", "missed")]

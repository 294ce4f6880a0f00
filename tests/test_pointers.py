"""Sentences that point into the text ("Section 2 describes …") are no findings."""

from __future__ import annotations

import pytest

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.execute import Retrieved
from research_studio.graph.nodes.findings import extractive_findings
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.understanding.pointers import point_into_the_text

EMBED = MiniLMOnnxEmbeddings().embed_array
MARGIN = ResearchConfig().pointer_margin


@pytest.mark.parametrize(("sentence", "points"), [
    ("Chapter 7 explains how the scheduler assigns threads to cores.", True),
    ("See Section 3.4 for a list of the supported codecs.", True),
    ("The following sections describe each storage engine in turn.", True),
    ("For more details, see the tutorial on caching.", True),
    # what it speaks of is no part of a text, or what it says of a part is no telling
    ("The scheduler assigns threads to cores.", False),
    ("This command shows the current branch and its upstream.", False),
    ("The <Directory> section is used to group directives for one folder.", False),
    ("Each page holds up to eight kilobytes of rows.", False),
    ("If the archive is damaged, the tool stops and reports the first bad member.", False),
])
def test_a_pointer_speaks_of_a_part_of_a_text_and_says_it_tells(sentence, points):
    assert point_into_the_text([sentence], EMBED, MARGIN) == [points]


def test_a_text_without_a_clause_or_in_another_language_points_nowhere():
    assert point_into_the_text(["Compression options", "Dieser Abschnitt beschreibt die Optionen."],
                               EMBED, MARGIN) == [False, False]


QUESTION = "How is compression enabled in the archiver?"
SUB_QUESTION = {"sub_question_id": "sq_001", "question_text": QUESTION, "queries_done": []}


def _findings(text: str) -> list[str]:
    source = {"source_id": "kb:t:c1", "kind": "kb", "title": "Archiver", "text": text}
    found = extractive_findings(SUB_QUESTION, [Retrieved(source, 0, QUESTION)], 0,
                                ResearchConfig(findings_per_result=1), embed=EMBED)
    return [f["text"] for f in found]


def test_a_passage_gives_the_statement_its_pointer_ranks_above():
    pointer = "Section 2 describes how compression is enabled in the archiver."
    statement = "Compression is turned on with the --compress option of the archiver."
    assert _findings(f"{pointer} {statement}") == [statement]


def test_a_pointer_that_announces_what_follows_stays():
    announcing = "The following list shows how compression is enabled in the archiver:"
    text = f"{announcing}\n\n- with the --compress option\n- with the COMPRESS variable"
    assert _findings(text) == [announcing]


def test_margins_are_found_again_once_the_memory_is_full(monkeypatch):
    from research_studio.understanding import pointers
    monkeypatch.setattr(pointers._memory(EMBED), "limit", 2)
    first = pointers.pointer_margins(["See Chapter 4 for details.", "The disk is full."], EMBED)
    again = pointers.pointer_margins(["The disk is full.", "Chapter 9 explains the format."], EMBED)
    assert again[0] == first[1] and again[1] is not None and again[1] >= MARGIN

"""A report's claim is a statement: titles and lines that only introduce what follows are not."""

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.execute import Retrieved
from research_studio.graph.nodes.findings import extractive_findings
from research_studio.understanding.statements import states_something


def test_statements_have_a_verb():
    texts = ["PEP 343 - The with statement The specification, background, and examples for "
             "the Python with statement.",
             "Crockett County is the name of two counties, both named for Davy Crockett:",
             "Exceptions are a means of breaking out of the normal flow of control.",
             "Golden Gate Bridge, suspension bridge spanning the Golden Gate strait."]
    assert states_something(texts) == [False, True, True, True]


def test_text_that_is_not_plainly_english_is_not_judged():
    """The English tagger finds no verb in "a été inauguré": the sentence is kept."""
    texts = ["Le viaduc de Millau a été inauguré en 2004.",
             "Die Brücke wurde 2004 eröffnet und ist die höchste der Welt."]
    assert states_something(texts) == [True, True]


def test_a_finding_passes_over_a_title_for_the_next_sentence_that_states_something():
    passage = ("The with statement and context managers. "
               "A context manager is an object that defines the runtime context of a with "
               "statement. Context managers are usually entered by the with statement. "
               "Context managers and the with statement in the language reference.")
    source = {"source_id": "kb:py:c1", "kind": "kb", "title": "Context managers",
              "text": passage, "start": 0, "end": len(passage)}
    sub_question = {"sub_question_id": "sq_001",
                    "question_text": "What are context managers and the with statement?"}
    found = extractive_findings(sub_question, [Retrieved(source, 0, "context managers with statement")],
                                0, ResearchConfig(findings_per_result=2))
    # the title and the closing reference line share every term with the question
    assert [f["text"] for f in found] == [
        "Context managers are usually entered by the with statement.",
        "A context manager is an object that defines the runtime context of a with statement."]

"""The offline short answer: what a question asks for, and the entity that answers it."""

from __future__ import annotations

import pytest

from research_studio.config import ResearchConfig
from research_studio.graph.answer_span import short_answer
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.understanding.answer_type import asked_phrase, asked_type, asker_acts
from research_studio.understanding.parser import parse

EMBED = MiniLMOnnxEmbeddings().embed_array


@pytest.mark.parametrize(("question", "expected"), [
    ("In which city was Ada Lovelace born?", "place"),
    ("How many moons does Jupiter have?", "number"),
    ("What year did the Berlin Wall fall?", "date"),
    ("Who composed the opera that premiered at La Fenice in 1853?", "person"),
    ("How does garbage collection reclaim cyclic references?", "explanation"),
    ("Compare B-tree and GIN indexes.", "explanation"),
])
def test_asked_type_reads_the_asking_words(question, expected):
    assert asked_type(question, EMBED) == expected


def test_a_noun_phrase_query_asks_for_what_its_head_names():
    assert asked_phrase(parse("population of Tokyo")) == "population"
    assert asked_type("population of Tokyo", EMBED) == "number"
    # a bare phrase that names a topic asks for no single thing
    assert asked_type("history of the printing press", EMBED) == "explanation"


@pytest.mark.parametrize(("question", "expected"), [
    # a relative pronoun opens a clause describing a noun; it asks nothing
    ("Can I restore a table that was dropped by mistake?", None),
    ("Is there an option that keeps the old log files?", None),
    ("The server rejected a client that sent an old certificate. Which log shows why?",
     "Which log"),
    # a question word further inside a relative clause asks
    ("She worked for a company, which had how many employees in 2010?", "how many"),
    # a phrase put first is no noun a relative clause describes
    ("In The Lord of the Rings, who played the wizard?", "who played"),
    ("Who wrote the book that the film was based on?", "Who wrote"),
])
def test_the_asking_words_are_not_those_of_a_relative_clause(question, expected):
    assert asked_phrase(parse(question)) == expected


def test_a_question_with_only_a_relative_pronoun_asks_for_no_single_thing():
    assert asked_type("Is there a setting that limits the number of connections?", EMBED) \
        == "explanation"


@pytest.mark.parametrize("question", [
    "My backup failed last night. What should I check first?",
    "The disk filled up overnight. How do we find the largest files?",
])
def test_the_sentence_that_asks_tells_whether_the_asker_acts(question):
    assert asker_acts(parse(question))


@pytest.mark.parametrize(("question", "expected"), [
    # what the asker does asks for a procedure unless a thing type clearly leads
    ("How can I find out which users are slow?", "explanation"),
    ("How do I fix a broken index?", "explanation"),
    ("How many servers do I need?", "number"),
])
def test_a_question_about_what_the_asker_does_needs_a_clear_thing_type(question, expected):
    assert asked_type(question, EMBED) == expected


@pytest.mark.parametrize(("question", "expected"), [
    # a "how" or "why" whose verb leans to a thing type still asks for an explanation
    ("How does a browser find a web server?", "explanation"),
    ("How are judges appointed in France?", "explanation"),
    ("Why was the treaty signed?", "explanation"),
    ("How did the war end?", "explanation"),
    ("How is the president chosen?", "explanation"),
    ("Why do cats knock things off tables?", "explanation"),  # "Why" alone is as near a work
    ("How should I back up a web server?", "explanation"),  # "back up", not "back"
    # an adverb that asks for a thing keeps it, however its verb leans
    ("When did the Second World War end?", "date"),
    ("Where does the Danube rise?", "place"),
    ("When do swallows fly south?", "date"),
    ("How far is the Moon from Earth?", "number"),
])
def test_a_question_adverb_and_its_verb_must_agree_or_lead_clearly(question, expected):
    assert asked_type(question, EMBED) == expected


def test_asked_phrase_keeps_the_question_word_and_its_noun():
    assert asked_phrase(parse("What county shares a border with the county where Tenement was founded?")) \
        .startswith("What county")
    # the relative "which" of a nested clause does not make this a question about a network
    assert asked_type("When is the show coming to the network which is based in New York?",
                      EMBED) == "date"


def claim(claim_id: str, text: str) -> dict:
    return {"claim_id": claim_id, "text": text, "source_ids": ["kb:t:1"], "status": "verified"}


def test_short_answer_is_the_new_entity_of_the_asked_type_in_the_most_relevant_claim():
    claims = [claim("c1", "The Globe Theatre was built in 1599 by Shakespeare's company."),
              claim("c2", "Hamlet was written by William Shakespeare around 1600.")]
    relevance = {"c1": 0.35, "c2": 0.72}
    answer = short_answer("Who wrote Hamlet?", [], claims, relevance, EMBED)
    assert answer is not None and answer.text == "William Shakespeare" and answer.claim_id == "c2"
    assert answer.answer_type == "person"
    # a name the plan already uses (a chain's bridge) is not the answer
    bridged = short_answer("Who wrote Hamlet?", ["William Shakespeare — who wrote Hamlet?"],
                           claims, relevance, EMBED)
    assert bridged is None


def test_the_answer_comes_from_a_sentence_that_names_the_asked_noun():
    claims = [claim("c1", "Up to three standby servers can connect to the server at once."),
              claim("c2", "The server listens on port 5432 unless configured otherwise.")]
    answer = short_answer("What port does the server listen on?", [], claims, {"c1": 0.8, "c2": 0.6}, EMBED)
    assert answer is not None and answer.text == "5432" and answer.claim_id == "c2"


def test_no_short_answer_for_a_question_that_asks_for_no_single_thing():
    claims = [claim("c1", "Python's garbage collector was added by Neil Schemenauer in 2000.")]
    assert short_answer("How does garbage collection reclaim cyclic references?", [], claims,
                        {"c1": 0.6}, EMBED) is None


def test_offline_report_leads_with_the_short_answer_and_the_claim_it_comes_from():
    import asyncio
    from types import SimpleNamespace

    from research_studio.config import ModelSettings, WebSettings
    from research_studio.graph.deps import ResearchDeps
    from research_studio.graph.nodes.write import write_node
    from research_studio.models.coordinator import ModelCoordinator

    question = "Who wrote Hamlet?"
    text = "Hamlet was written by William Shakespeare around 1600."
    state = {"query": question, "mode": "flat", "config": ResearchConfig(kb="plays"),
             "sub_questions": [{"sub_question_id": "sq_001", "question_text": question, "priority": 1.0}],
             "sources": {"kb:t:1": {"source_id": "kb:t:1", "kind": "kb", "title": "Hamlet",
                                    "location": "hamlet.txt", "chunk_id": "1", "text": text,
                                    "start": 0, "end": len(text)}},
             "claims": [{**claim("c1", text), "sub_question_id": "sq_001", "confidence": 0.7}]}
    deps = ResearchDeps(coordinator=ModelCoordinator(ModelSettings()), kb=None,
                        web=WebSettings(provider="none"))
    update = asyncio.run(write_node(state, SimpleNamespace(context=deps)))
    answer = update["report_markdown"].split("## Answer\n\n", 1)[1].split("\n", 1)[0]
    assert answer.startswith("**William Shakespeare** — Hamlet was written by William Shakespeare")
    assert answer.endswith("[S1]")
    assert update["short_answer"] == {"text": "William Shakespeare", "type": "person", "claim_id": "c1"}
    # a plan that compares named items gives no entity answer (the structure analyze stored)
    state["question_structure"] = {"kind": "comparison", "items": ["Hamlet", "Macbeth"]}
    update = asyncio.run(write_node(state, SimpleNamespace(context=deps)))
    assert update["short_answer"] is None
    assert not update["report_markdown"].split("## Answer\n\n", 1)[1].startswith("**")


@pytest.mark.parametrize("question", [
    "Are Parents and Madame Figaro published in the same country?",  # yes/no
    "Which film is newer, The Apple Dumpling Gang or Heavyweights?",  # its own alternatives
])
def test_no_entity_answer_for_yes_no_questions_or_questions_that_offer_the_choice(question):
    claims = [claim("c1", "Heavyweights is a 1995 film directed by Steven Brill in Minnesota.")]
    assert short_answer(question, [], claims, {"c1": 0.6}, EMBED) is None


def test_no_entity_answer_when_the_plan_compares_named_items():
    # "Which one …?" of two things set against each other by "vs": the answer is one of
    # them, decided by comparing the evidence, never an entity a claim happens to name
    question = "Vim vs Emacs: which one do kernel developers use?"
    claims = [claim("c1", "Ingo Molnar, a Linux kernel developer, uses it during the merge window.")]
    assert short_answer(question, [], claims, {"c1": 0.7}, EMBED) is not None
    assert short_answer(question, [], claims, {"c1": 0.7}, EMBED, compares=True) is None


def test_a_possessive_ending_is_not_part_of_the_answer():
    claims = [claim("c1", "The committee was chaired by Nelson Rockefeller's brother, who led it.")]
    answer = short_answer("Who chaired the committee?", [], claims, {"c1": 0.7}, EMBED)
    assert answer is not None and answer.text == "Nelson Rockefeller"


def test_no_short_answer_for_a_question_that_does_not_read_as_english():
    claims = [claim("c1", "Der Kölner Dom wurde von Gerhard von Rile entworfen.")]
    assert short_answer("Wer hat den Kölner Dom entworfen?", [], claims, {"c1": 0.7}, EMBED) is None


def test_offline_report_opens_with_what_the_asked_thing_is():
    """A sentence that merely names the thing can rank first by the encoder and by the
    selection; the one that says what the thing is opens the answer and the section."""
    import asyncio
    from types import SimpleNamespace

    from research_studio.config import ModelSettings, WebSettings
    from research_studio.graph.deps import ResearchDeps
    from research_studio.graph.nodes.write import write_node
    from research_studio.models.coordinator import ModelCoordinator

    question = "What is a shallow clone?"
    texts = {"c1": "Use a shallow clone when you only need the latest history.",
             "c2": "A shallow clone is a repository whose history is cut at a given depth, so "
                   "older commits are missing from it."}
    sources = {f"kb:t:{cid}": {"source_id": f"kb:t:{cid}", "kind": "kb", "title": f"Page {cid}",
                               "location": f"{cid}.html", "chunk_id": cid, "text": text,
                               "start": 0, "end": len(text)} for cid, text in texts.items()}
    state = {"query": question, "mode": "flat", "config": ResearchConfig(kb="git"),
             "sub_questions": [{"sub_question_id": "sq_001", "question_text": question, "priority": 1.0}],
             "sources": sources,
             "claims": [{"claim_id": cid, "text": text, "source_ids": [f"kb:t:{cid}"],
                         "status": "verified", "sub_question_id": "sq_001",
                         "confidence": 0.9 if cid == "c1" else 0.6} for cid, text in texts.items()]}
    deps = ResearchDeps(coordinator=ModelCoordinator(ModelSettings()), kb=None,
                        web=WebSettings(provider="none"))
    report = asyncio.run(write_node(state, SimpleNamespace(context=deps)))["report_markdown"]
    answer = report.split("## Answer\n\n", 1)[1].split("\n", 1)[0]
    assert answer.startswith("A shallow clone is a repository"), answer

"""A report's claim is a statement: titles and lines that only introduce what follows are not."""

import pytest

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.execute import Retrieved
from research_studio.graph.nodes.findings import extractive_findings
from research_studio.graph.nodes.write import (
    Citations,
    answer_order,
    claim_line,
    extractive_summary,
    main_section_claims,
)
from research_studio.graph.relevance import defining_claims
from research_studio.understanding.answer_type import asked_thing, defined_thing
from research_studio.understanding.parser import parse, parse_batch
from research_studio.understanding.statements import (
    has_for_subject,
    stands_alone,
    states_something,
    term_names,
)


def test_statements_have_a_verb():
    texts = ["PEP 343 - The with statement The specification, background, and examples for "
             "the Python with statement.",
             "Crockett County is the name of two counties, both named for Davy Crockett:",
             "Exceptions are a means of breaking out of the normal flow of control.",
             "Golden Gate Bridge, suspension bridge spanning the Golden Gate strait."]
    assert states_something(texts) == [False, True, True, True]


def test_a_question_states_nothing_in_any_script():
    """A source's own question ("Now what is a query tree?", a FAQ's heading) introduces
    its answer; the answer is the statement."""
    texts = ["Now what is a query tree?", "Why is my query not using an index?)",
             "Qu'est-ce qu'un arbre de requête ?", "什么是查询树？", "ما هو ؟",
             "The query tree is the parsed form of the query.",
             "Le viaduc de Millau a été inauguré en 2004.",
             "Who Framed Roger Rabbit? is a 1988 film."]
    assert states_something(texts) == [False, False, False, False, False, True, True, True]


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
    # the title and the closing reference line share every term with the question; the
    # two sentences that state something follow each other, and are quoted as one
    assert [f["text"] for f in found] == [
        "A context manager is an object that defines the runtime context of a with statement. "
        "Context managers are usually entered by the with statement."]


def test_a_description_without_a_verb_is_quoted_under_its_term_and_a_title_is_not():
    """A definition list entry's description says what its term is ("--timeout
    <seconds>: Number of seconds to cache credentials"); the same words outside an entry
    read as a title and are passed over."""
    description = "Number of seconds to cache credentials (default: 900)."
    other = "Credentials are kept in the memory of a daemon process."
    passage = f"{description} {other}"
    sub_question = {"sub_question_id": "sq_001",
                    "question_text": "How many seconds does the cache keep credentials?"}

    def found(source_terms: list[list]) -> list[str]:
        source = {"source_id": "kb:git:c1", "kind": "kb", "title": "git-credential-cache",
                  "text": passage, "start": 0, "end": len(passage), "terms": source_terms}
        retrieved = Retrieved(source, 0, "seconds cache credentials")
        return [f["text"] for f in extractive_findings(sub_question, [retrieved], 0,
                                                       ResearchConfig(findings_per_result=1))]

    assert found([[0, len(description), "--timeout <seconds>"]]) == [description]
    assert found([]) == [other]


def test_a_quote_that_lost_its_subject_to_the_line_before_does_not_stand_alone():
    texts = ["will create a new branch based at the current HEAD position, and switch to it.",
             "is used to list the remotes you track.",
             "Run git gc to pack the repository.",  # an imperative has no subject and stands
             "The remote to push to may be overridden per branch."]
    assert [stands_alone(doc) for doc in parse_batch(texts)] == [False, False, True, True]


def test_a_quote_that_opens_with_a_conjunction_leans_on_the_line_before():
    texts = ["And then this is what a kernel developer says about his use of git bisect.",
             "But the index is only updated when you run git add.",
             "Then the index is updated.",  # an adverb alone may open a statement
             "Git and Mercurial both store history as snapshots."]  # a conjunction inside it
    assert [stands_alone(doc) for doc in parse_batch(texts)] == [False, False, True, True]


def test_a_quote_whose_subject_stands_for_what_was_said_before_leans_on_it():
    """"This is inherently true …" and "In particular, it must have read access …" opened
    answers over the PostgreSQL manual; what "this" and "it" stand for was on the line
    before. An "it" standing for a clause after the verb points at nothing before it."""
    texts = ["This is inherently true with file-based log shipping.",
             "In particular, it must have read access to all tables that you want to back up.",
             "They were completed in 2004.",
             "It is generally recommended to use the -X option when restoring a database.",
             "It is possible to run several servers on one machine.",
             "pg_dump is a utility for backing up a PostgreSQL database.",
             "We recommend checking the span tables."]
    assert [stands_alone(doc) for doc in parse_batch(texts)] == [False, False, False, True, True,
                                                                 True, True]


def test_the_answer_paragraph_opens_each_section_with_a_claim_that_stands_alone():
    def claim(claim_id: str, text: str) -> dict:
        return {"claim_id": claim_id, "text": text, "source_ids": [f"kb:git:{claim_id}"],
                "status": "verified"}

    sources = {f"kb:git:{i}": {"source_id": f"kb:git:{i}", "kind": "kb", "title": "Git manual",
                               "text": "", "start": 0, "end": 0} for i in ("c1", "c2", "c3")}
    first = claim("c1", "will create a new branch based at the current HEAD position.")
    second = claim("c2", "The switch command with -c creates a branch and checks it out.")
    other = claim("c3", "A remote-tracking branch records where a remote branch was.")
    text = extractive_summary([({"sub_question_id": "sq_001"}, [first, second]),
                               ({"sub_question_id": "sq_002"}, [other])],
                              Citations(sources), lambda claim, chosen: False,
                              lambda claim: stands_alone(parse(claim["text"])))
    assert "will create" not in text
    assert text.index("The switch command") < text.index("A remote-tracking branch")


def _sourced_claim(claim_id: str, text: str) -> dict:
    return {"claim_id": claim_id, "text": text, "source_ids": [f"kb:db:{claim_id}"],
            "status": "verified", "confidence": 0.9}


def _sources(*claim_ids: str) -> dict:
    return {f"kb:db:{i}": {"source_id": f"kb:db:{i}", "kind": "kb", "title": "Manual",
                           "text": "", "start": 0, "end": 0} for i in claim_ids}


def _listed(sections: list[tuple[dict, list[dict]]], relevance: dict[str, float]) -> dict:
    """Each section's claims in the order the report lists them, as the writer keeps them."""
    return {sq["sub_question_id"]: answer_order(shown, relevance) for sq, shown in sections}


def test_the_answer_also_gives_the_claim_the_main_section_lists_first():
    """Selection leads the main section with a claim from a source not cited yet; the
    claim closest to the question, which the section lists first, follows it in the Answer."""
    remark = _sourced_claim("c1", "The shell keeps a history of the commands it ran.")
    answer = _sourced_claim("c2", "The recover command rebuilds the data of a corrupt file.")
    other = _sourced_claim("c3", "A backup copies the pages of a database.")
    main = ({"sub_question_id": "sq_001", "priority": 1.0}, [remark, answer])
    background = ({"sub_question_id": "sq_002", "priority": 0.5}, [other])
    relevance = {"c1": 0.41, "c2": 0.77, "c3": 0.52}
    closest = main_section_claims([main, background], _listed([main, background], relevance))
    assert [c["claim_id"] for c in closest] == ["c2", "c1"]
    text = extractive_summary([main, background], Citations(_sources("c1", "c2", "c3")),
                              lambda claim, chosen: False, lambda claim: True, main_claims=closest)
    assert text.index("The shell keeps") < text.index("The recover command") < text.index("A backup")
    without = extractive_summary([main, background], Citations(_sources("c1", "c2", "c3")),
                                 lambda claim, chosen: False, lambda claim: True)
    assert "The recover command" not in without


def test_the_main_section_gives_as_many_closest_claims_as_configured():
    """The encoder's closest claim is not always the answer: the next closest follows it
    when two are asked for, each once, and a section short of claims gives what it has."""
    lead = _sourced_claim("c1", "The shell keeps a history of the commands it ran.")
    closest = _sourced_claim("c2", "The recover command reads a corrupt file page by page.")
    answer = _sourced_claim("c3", "Recovered rows are written out as SQL statements.")
    far = _sourced_claim("c4", "A backup copies the pages of a database.")
    main = ({"sub_question_id": "sq_001", "priority": 1.0}, [lead, closest, answer, far])
    relevance = {"c1": 0.41, "c2": 0.77, "c3": 0.66, "c4": 0.30}
    ranked = main_section_claims([main], _listed([main], relevance))
    sources = Citations(_sources("c1", "c2", "c3", "c4"))
    def answer_with(count: int) -> str:
        return extractive_summary([main], sources, lambda claim, chosen: False,
                                  lambda claim: True, main_claims=ranked, closest_claims=count)
    assert "Recovered rows" not in answer_with(1)
    two = answer_with(2)
    assert two.index("The shell keeps") < two.index("The recover command") < two.index("Recovered rows")
    assert "A backup" not in two
    assert answer_with(9).count("The recover command") == 1  # each claim once


def test_the_closest_claim_is_not_added_when_it_restates_the_lead_or_leads_already():
    first = _sourced_claim("c1", "VACUUM reclaims the space of deleted rows.")
    again = _sourced_claim("c2", "VACUUM reclaims the space that deleted rows held.")
    section = ({"sub_question_id": "sq_001", "priority": 1.0}, [first, again])
    sources = Citations(_sources("c1", "c2"))
    restating = main_section_claims([section], _listed([section], {"c1": 0.5, "c2": 0.9}))
    text = extractive_summary([section], sources, lambda claim, chosen: bool(chosen),
                              lambda claim: True, main_claims=restating)
    assert "held" not in text
    leading = main_section_claims([section], _listed([section], {"c1": 0.9, "c2": 0.5}))
    text = extractive_summary([section], sources, lambda claim, chosen: False,
                              lambda claim: True, main_claims=leading)
    assert text.count("VACUUM") == 2  # the lead and the next claim, no repeat of the lead


def test_a_plan_ranking_several_sections_first_has_no_main_section():
    """Compared items ranked alike each give the Answer one claim."""
    json_item = ({"sub_question_id": "sq_001", "priority": 0.9},
                 [_sourced_claim("c1", "json stores an exact copy of the input text.")])
    jsonb_item = ({"sub_question_id": "sq_002", "priority": 0.9},
                  [_sourced_claim("c2", "jsonb stores a decomposed binary format.")])
    sections = [json_item, jsonb_item]
    assert main_section_claims(sections, _listed(sections, {"c1": 0.6, "c2": 0.7})) == []
    assert main_section_claims([], {}) == []


@pytest.mark.parametrize(("question", "thing"), [
    ("What is a sparse checkout?", "checkout"),
    ("What are hard links?", "links"),
    ("Who is Ada Lovelace?", "Lovelace"),
    ("What is HSTS?", "HSTS"),  # an unknown word in capitals, which the tagger may misread
    ("What is a savepoint in a database transaction?", "savepoint"),  # where it is set
])
def test_a_question_asking_what_something_is_names_it(question, thing):
    found = defined_thing(parse(question))
    assert found is not None and found.text == thing


@pytest.mark.parametrize("question", [
    "Who is the father of Ada Lovelace?",  # an attribute of a thing, not its nature
    "How do I create a sparse checkout?",
    "What are hard and soft links?",
    "Which is larger, the moon or Mercury?",
])
def test_other_questions_ask_no_thing_s_nature(question):
    assert defined_thing(parse(question)) is None


def test_a_statement_has_the_asked_thing_for_its_subject_only_when_it_is_about_it():
    thing = defined_thing(parse("What is a sparse checkout?"))
    texts = ["A sparse checkout is a working tree that holds only some of the paths.",
             "Git can make a sparse checkout of a large repository.",  # named as an object
             "A full checkout writes every tracked file.",  # another kind of checkout
             "Sparse checkouts are described in git-sparse-checkout(1).",
             # the subject of a question it embeds, its own subject left out
             "Specifies how the sparse checkouts obtain their patterns when they are cloned."]
    assert [has_for_subject(doc, thing) for doc in parse_batch(texts)] == [True, False, False, True,
                                                                            False]


def test_the_statement_of_what_the_section_asks_about_opens_it_and_the_answer():
    """The encoder ranks a short sentence that names the thing above the one that says
    what it is; the one that says what it is leads the section and the answer."""
    def claim(claim_id: str, text: str) -> dict:
        return {"claim_id": claim_id, "text": text, "source_ids": [f"kb:git:{claim_id}"],
                "status": "verified", "confidence": 0.9}

    naming = claim("c1", "Large monorepos often use a sparse checkout.")
    defining = claim("c2", "A sparse checkout is a working tree that holds only the paths that "
                           "match a set of patterns.")
    section = ({"sub_question_id": "sq_001", "question_text": "What is a sparse checkout?"},
               [naming, defining])
    leading = defining_claims([section])
    assert list(leading) == ["c2"]
    relevance = {"c1": 0.81, "c2": 0.64}
    assert [c["claim_id"] for c in answer_order([naming, defining], relevance, leading)] == ["c2", "c1"]
    assert [c["claim_id"] for c in answer_order([naming, defining], relevance)] == ["c1", "c2"]
    how = ({"sub_question_id": "sq_002", "question_text": "How do I use a sparse checkout?"},
           [naming, defining])
    assert defining_claims([how]) == {}


@pytest.mark.parametrize(("question", "term", "names"), [
    ("What does the archive_timeout parameter control?", "archive_timeout (integer)", True),
    ("What does the archive_timeout parameter control?", "archive_command (string)", False),
    ("What does max_wal_size do?", "max_wal_size (integer)", True),
    ("What is a shallow clone?", "shallow clone", True),
    ("What is a shallow clone?", "clone", False),  # a clone, not the shallow kind
])
def test_a_definition_list_term_names_the_thing_asked_about(question, term, names):
    thing = asked_thing(parse(question))
    assert thing is not None and term_names(term, thing) is names


def test_a_setting_s_entry_opens_the_section_asking_what_it_does():
    def claim(claim_id: str, text: str, term: str) -> dict:
        return {"claim_id": claim_id, "text": text, "source_ids": [f"kb:pg:{claim_id}"],
                "status": "verified", "context": term}

    other = claim("c1", "Specifies the directory for archived files.", "archive_library (string)")
    entry = claim("c2", "Forces a switch to a new WAL file after this many seconds.",
                  "archive_timeout (integer)")
    section = ({"sub_question_id": "sq_001",
                "question_text": "What does the archive_timeout parameter control?"}, [other, entry])
    leading = defining_claims([section])
    assert list(leading) == ["c2"]
    relevance = {"c1": 0.7, "c2": 0.5}
    assert [c["claim_id"] for c in answer_order([other, entry], relevance, leading)] == ["c2", "c1"]


def test_the_answer_gives_a_term_once_for_the_claims_that_follow_it():
    """Three sentences of one FAQ answer each opened with the FAQ's question in the Answer;
    in running prose the question is given once, before the first of them."""
    question = "I share one laptop with a colleague. How do we keep our settings apart?"
    first, second, other = (_sourced_claim(i, t) | {"context": c} for i, t, c in [
        ("c1", "Each person keeps a profile of their own.", question),
        ("c2", "A profile holds the settings and the history.", question),
        ("c3", "Settings are read at start-up.", "")])
    sources = Citations(_sources("c1", "c2", "c3"))
    section = ({"sub_question_id": "sq_001", "priority": 1.0}, [first])
    text = extractive_summary([section, ({"sub_question_id": "sq_002", "priority": 0.9}, [second]),
                               ({"sub_question_id": "sq_003", "priority": 0.5}, [other])],
                              sources, lambda claim, chosen: False, lambda claim: True)
    assert text.count(question) == 1
    assert text.index(question) < text.index("Each person") < text.index("A profile holds")
    # a claim listed alone still says what it answers
    assert question in claim_line(second, sources)

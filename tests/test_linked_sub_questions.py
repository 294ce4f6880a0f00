"""Sub-questions that follow a name the knowledge base links the question to, and the hops
of a nested question (issue 24: every sub-question a grammatical question). They are
worded for the reader; their search words stay the name with the question. The questions
are ordinary ones written for these tests, none from the evaluation files."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.plan import offline_decomposition, written_about
from research_studio.knowledge.base import KnowledgeBase, KnowledgeBaseRegistry
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.understanding import understand
from research_studio.understanding.decompose import anchor_question, linked_questions, next_hop_questions
from research_studio.understanding.embedded import embedded_question, lead_and_question
from research_studio.understanding.parser import parse


@pytest.fixture(scope="module")
def embed():
    return MiniLMOnnxEmbeddings().embed_array


@pytest.mark.parametrize(("question", "embedded"), [
    # the question word is the subject, or what a copula asks for: the order stays
    ("Who directed the film Alien?", "who directed the film Alien"),
    ("Who is the current president of France?", "who is the current president of France"),
    # "do" gives its tense back to the verb
    ("How does caching work?", "how caching works"),
    ("When did the Roman Empire fall?", "when the Roman Empire fell"),
    ("How do I set up streaming replication?", "how I set up streaming replication"),
    # an auxiliary goes back after its subject
    ("Which index type should I use for full-text search?",
     "which index type I should use for full-text search"),
    # a yes/no question is asked "whether"
    ("Does coffee cause dehydration?", "whether coffee causes dehydration"),
    ("Is it safe to change shared_buffers on a running server?",
     "whether it is safe to change shared_buffers on a running server"),
    # a preposition left without its object has the question word for it
    ("Who is the novelist an expert on?", "who the novelist is an expert on"),
    # the question word inside the subject: the order stays
    ("How many bones are in the adult human hand?", "how many bones are in the adult human hand"),
    # a relative word ("that") asks nothing: still a yes/no question
    ("Is there a way to make git ignore a file that is already committed?",
     "whether there is a way to make git ignore a file that is already committed"),
    # a negation stays with its auxiliary, which goes after the subject
    ("Why isn't it being ignored?", "why it isn't being ignored"),
    ("Why doesn't the exception line bring back the file?",
     "why the exception line doesn't bring back the file"),
    # two questions joined by "and", each embedded
    ("How do solar panels work, and are they worth it?",
     "how solar panels work and whether they are worth it"),
    # verbs that share the question's subject are one question
    ("Can psql skip the failed statement and keep going?",
     "whether psql can skip the failed statement and keep going"),
    ("How do I insert a row, or update the one already there?",
     "how I insert a row, or update the one already there"),
    # a question word alone (after a statement: "… Why?")
    ("Why?", "why"),
])
def test_a_question_reads_inside_another(question, embedded):
    assert embedded_question(question, parse(question)) == embedded


@pytest.mark.parametrize("question", [
    # the verbs share the subject, but "does" gives its tense to the first only
    "Did the patch fix the crash and improve speed?",
    "Compare Vim and Emacs. Which one should I learn?",  # two sentences
    "The treaty was signed in which year?",  # the question word in the middle
    # the question word is a stranded preposition's object, which the parse hangs on
    # the subject: not "about what is the staging area for"
    "What is the staging area for?",
    "What team was the pitcher's husband on?",
    "",
])
def test_a_question_the_parse_cannot_embed_gives_nothing(question):
    assert embedded_question(question, parse(question)) == ""


def test_a_linked_sub_question_asks_what_the_name_tells_about_the_question():
    assert linked_questions(["Write-Ahead Logging"], "How do I set up streaming replication?") == \
        ["What can we learn from Write-Ahead Logging about how I set up streaming replication?"]
    # not embeddable: the question is given whole, and the sub-question still asks
    two = "Compare Vim and Emacs. Which one should I learn?"
    assert linked_questions(["Neovim"], two) == [f"What can we learn from Neovim about this question: {two}"]
    assert linked_questions(["Kant"], "Summarise the debate on free will.") == \
        ["What can we learn from Kant about this question: Summarise the debate on free will?"]


@pytest.mark.parametrize(("question", "lead", "embedded"), [
    # the asker's situation in a sentence of its own, then the question that points back to it
    ("My -wal file keeps growing and never gets reset. What can cause that?",
     "Given that my -wal file keeps growing and never gets reset", "what can cause that"),
    ("I added a folder to .gitignore but git still shows changes in it. Why?",
     "Given that I added a folder to .gitignore but git still shows changes in it", "why"),
    # a phrase before the main verb, set off by a comma
    ("If a login fails on the first matching line, does PostgreSQL try the next lines?",
     "If a login fails on the first matching line", "whether PostgreSQL tries the next lines"),
    ("In True Grit, who did the star play?", "In True Grit", "who the star played"),
    # a question word that opens the adverbial clause is not the question's
    ("When backporting a fix, how do I record the original commit?",
     "When backporting a fix", "how I record the original commit"),
])
def test_what_opens_a_question_before_it_asks_leads_the_sub_question(question, lead, embedded):
    assert embedded_question(question, parse(question)) == ""  # not as a whole
    assert lead_and_question(question, parse(question)) == (lead, embedded)
    assert linked_questions(["X"], question) == [f"{lead}, what can we learn from X about {embedded}?"]


@pytest.mark.parametrize("question", [
    "Compare Vim and Emacs. Which one should I learn?",  # an instruction, not a statement
    "Is Vim modal? Is Emacs?",  # a question before the question
    "Marion Greene worked for a company, which had how many offices?",  # the comma after the main verb
    "Nothing here asks anything. Really nothing.",
    "",
])
def test_a_question_without_a_lead_in_before_it_asks_has_none(question):
    assert lead_and_question(question, parse(question)) is None


def test_the_next_hop_puts_the_name_found_in_place_of_the_anchor(embed):
    structure = understand("Which river flows through the city where Mozart was born?", embed)
    assert structure.clauses == ["Which river flows through the city", "Mozart was born"]
    assert next_hop_questions(["Salzburg"], structure) == ["Which river flows through Salzburg?"]
    # the possessive a name was found with is no part of it
    assert next_hop_questions(["Salzburg's"], structure) == ["Which river flows through Salzburg?"]


def test_a_hop_inside_a_longer_chain_asks_about_the_whole_question(embed):
    question = "Which river flows through the city where the man who wrote The Magic Flute was born?"
    structure = understand(question, embed)
    assert len(structure.clauses) == 3
    [hop] = next_hop_questions(["Salzburg"], structure)
    assert hop.startswith("What can we learn from Salzburg about ") and hop.endswith("?")
    assert "which river flows through the city" in hop


@pytest.mark.parametrize(("anchor", "opening"), [
    ("the country where the Danube rises", "What is"),
    ("the river that flows through Vienna", "What is"),
    ("the novelist who wrote Middlemarch", "Who is"),
    ("the actress who played Ripley", "Who is"),
    ("the album's 1971 reissue", "What is"),
])
def test_an_anchor_is_asked_with_who_after_a_personal_relative(anchor, opening):
    assert anchor_question(anchor) == f"{opening} {anchor}?"


def test_a_hop_keeps_the_question_whose_verb_follows_the_anchor(embed):
    question = "Where is the museum that houses the Mona Lisa located?"
    structure = understand(question, embed)
    assert structure.clauses[0] == "Where is the museum"
    [hop] = next_hop_questions(["the Louvre"], structure)  # not "Where is the Louvre?"
    assert hop == ("What can we learn from the Louvre about where the museum that houses the Mona Lisa"
                   " is located?")


def test_a_question_after_its_premises_is_asked_alone_through_a_name_and_searched_whole(
        registry, tmp_path, embed):
    # the sub-question reads as a heading ("What can we learn from SAVEPOINT about this
    # question: Can the shell skip …?"); its search keeps the premises, which say what
    # went wrong
    pages = {
        "rollback.txt": "ON_ERROR_ROLLBACK\n\nWhen ON_ERROR_ROLLBACK is on, the shell sets a "
                        "savepoint before each statement of a transaction block, so an error "
                        "undoes only the failed statement and the transaction keeps going.",
        "savepoint.txt": "SAVEPOINT\n\nSAVEPOINT marks a point inside a transaction; ROLLBACK TO "
                         "SAVEPOINT undoes the statements after it and the transaction keeps going.",
        "begin.txt": "BEGIN\n\nBEGIN opens a transaction block: every statement after it runs in "
                     "one transaction until COMMIT or ROLLBACK ends it.",
    }
    kb = _manual(registry, tmp_path, pages)
    question = ("In the shell, one typo inside a transaction block wrecks the whole transaction. "
                "Can the shell skip the failed statement and keep going?")
    structure = understand(question, embed)
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=kb), ResearchConfig())
    assert rows[0].text == question
    linked = [row for row in rows if row.query]
    assert linked, rows
    for row in linked:
        assert "one typo" not in row.text and "skip the failed statement" in row.text, row
        assert row.query.endswith(question)


def test_a_weakly_linked_name_is_followed_only_when_the_knowledge_base_has_a_page_about_it(
        registry, tmp_path, embed):
    # COMMIT is named beside the question's words (in the BEGIN page) and is followed
    # without a page of its own; the release note's title and the contributor it thanks
    # are both linked weakly (named once, beside none of the question's words), and only
    # the release, which has a page, is followed
    pages = {
        "savepoint.md": "# SAVEPOINT\n\nSAVEPOINT marks a point inside a transaction block; "
                        "ROLLBACK TO SAVEPOINT undoes a failed statement and the transaction "
                        "keeps going.\n",
        "release.md": "# Release 9.1\n\nThe shell can now keep a transaction block going after "
                      "a failed statement.\n\nThanks to Jane Roe.\n",
        "begin.md": "# BEGIN\n\nBEGIN opens a transaction block: every statement after it runs "
                    "in one transaction until COMMIT or ROLLBACK ends it.\n",
    }
    kb = _manual(registry, tmp_path, pages)
    question = "How do I keep a transaction block going after a failed statement?"
    structure = understand(question, embed)
    # room for five names: every candidate weighing at least one mention is reached
    rows, strategy = offline_decomposition(question, structure, SimpleNamespace(kb=kb),
                                           ResearchConfig(max_sub_questions=7))
    followed = [row.query.split(" — ")[0] for row in rows if row.query]
    assert strategy == "retrieval_driven"
    assert {"BEGIN", "COMMIT", "SAVEPOINT", "Release 9.1"} <= set(followed)
    assert not [name for name in followed if "Jane Roe" in name], followed


def test_a_page_a_heading_inside_a_passage_or_a_definition_is_written_about(registry, tmp_path):
    folder = tmp_path / "manual"
    folder.mkdir()
    (folder / "core.html").write_text(
        "<html><head><title>Core Features</title></head><body>"
        "<h2>AcceptPathInfo Directive</h2><p>Resources accept trailing pathname information.</p>"
        "<h2>AccessFileName Directive</h2><p>Name of the distributed configuration file.</p>"
        "<dl><dt>shared_buffers (integer)</dt><dd>Sets the amount of memory for buffers.</dd></dl>"
        "<p>Thanks to Jane Roe for the AccessFileName work.</p></body></html>", encoding="utf-8")
    kb = registry.open("manual", create=True)
    kb.ingest_paths([folder])
    for name in ("Core Features", "AccessFileName", "shared_buffers"):
        assert written_about(name, kb, 5), name
    assert not written_about("Jane Roe", kb, 5)


def _manual(registry: KnowledgeBaseRegistry, tmp_path: Path, pages: dict[str, str]
            ) -> KnowledgeBase:
    """A knowledge base "shell" ingested from ``pages`` (file name → text)."""
    folder = tmp_path / "manual"
    folder.mkdir()
    for name, text in pages.items():
        (folder / name).write_text(text, encoding="utf-8")
    kb = registry.open("shell", create=True)
    kb.ingest_paths([folder])
    return kb

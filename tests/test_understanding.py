"""Offline question understanding (issue 24): the kind of a question and the plan's shape
for each kind, on spaCy's parser and the real sentence encoder. The questions are
ordinary research questions, none taken from the evaluation files."""

import json
from types import SimpleNamespace

import pytest
from spacy.tokens import Doc, Span
from spacy.vocab import Vocab

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.plan import offline_decomposition
from research_studio.graph.text_analysis import content_terms, hop_terms
from research_studio.knowledge.embeddings import MiniLMOnnxEmbeddings
from research_studio.understanding import QuestionKind, QuestionStructure, decompose, understand
from research_studio.understanding.answer_type import asked_noun, asks_for_a_thing
from research_studio.understanding.facets import (
    asked_reason,
    coordinated_units,
    introduces,
    plural,
    positions,
)
from research_studio.understanding.parser import parse
from research_studio.understanding.subject import with_article

K = QuestionKind


@pytest.fixture(scope="module")
def embed():
    return MiniLMOnnxEmbeddings().embed_array


def plan_of(question: str, embed, limit: int = 5) -> tuple[QuestionStructure, list[str]]:
    structure = understand(question, embed)
    return structure, [row.text for row in decompose(structure, limit)]


def assert_asked_apart(texts: list[str], asked) -> None:
    """Each part is in exactly one sub-question, and no other part is in it."""
    for part in asked:
        holding = [t for t in texts if part in t]
        assert len(holding) == 1 and not any(o in holding[0] for o in asked if o != part), texts


def assert_questions(texts: list[str]) -> None:
    """Every sub-question is a whole question: at least four words, ending in '?'."""
    assert 2 <= len(texts) <= 5, texts
    for text in texts:
        assert text.endswith("?") and not text.endswith("??") and len(text.split()) >= 4, text


# ---- comparison: one sub-question per item, then how they differ ---------------------------------
@pytest.mark.parametrize(("question", "items"), [
    ("Compare Kafka and RabbitMQ", ["Kafka", "RabbitMQ"]),
    ("Compare Vim and Emacs", ["Vim", "Emacs"]),  # "Compare" is tagged a verb inside a name
    ("Compare React, Vue and Angular for building web applications", ["React", "Vue", "Angular"]),
    ("Compare React, Vue, and Angular for building web applications.", ["React", "Vue", "Angular"]),
    ("What are the differences between PostgreSQL and MySQL?", ["PostgreSQL", "MySQL"]),
    ("Compare Python, Ruby, Go, Rust and Java for writing command-line tools",
     ["Python", "Ruby", "Go", "Rust", "Java"]),
    # the parser reads "pickle and shelve" as an apposition to "json": one thing is not two
    ("Compare json, pickle and shelve for saving data.", ["json", "pickle", "shelve"]),
    # the imperative read as part of the first item's name, even in lower case
    ("Compare stash, worktree and branch for switching between tasks",
     ["stash", "worktree", "branch"]),
    ("Compare YAML, TOML and INI files for configuration", ["YAML", "TOML", "INI files"]),
    ("Compare TCP, UDP and QUIC", ["TCP", "UDP", "QUIC"]),
    # a name tagged plural that is no plural, the rest of the list read as its apposition
    ("Compare zstd, lz4 and snappy for compressing logs", ["zstd", "lz4", "snappy"]),
    # the rest of the list read as a modifier of the verb, beside its first member
    ("Compare mod_php, PHP-FPM and CGI for running PHP under Apache.", ["mod_php", "PHP-FPM", "CGI"]),
])
def test_a_comparison_gets_one_sub_question_per_item(embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON
    assert structure.items == items
    assert_questions(texts)
    for item in items:  # a sub-question of its own for each item
        assert any(item in t and not any(o in t for o in items if o != item) for t in texts), item
    if len(items) < 5:  # room left: how they differ (or the question itself), every item named
        assert any(all(item in t for item in items) for t in texts)


def test_a_question_about_the_items_that_names_none_is_asked_of_each(embed):
    structure, texts = plan_of("Compare Nginx and Caddy: what are the trade-offs?", embed)
    assert structure.items == ["Nginx", "Caddy"]
    assert texts[:2] == ["As for Nginx, what are the trade-offs?", "As for Caddy, what are the trade-offs?"]
    assert_questions(texts)


def test_the_alternatives_are_compared_for_what_the_question_names_before_them(embed):
    structure, texts = plan_of("Which is better for beginners, Ruby or Go?", embed)
    assert structure.items == ["Ruby", "Go"] and structure.purpose == " for beginners"
    assert texts[1:] == ["Is Ruby better for beginners?", "Is Go better for beginners?"]


@pytest.mark.parametrize(("question", "asked"), [
    # each alternative as written, its article too
    ("Which of these is a reptile, a turtle or a frog?", ["Is a turtle a reptile?", "Is a frog a reptile?"]),
    # the question word is the subject: the verb's tense goes to "do", or the copula and
    # the auxiliary open the question
    ("Which editor starts faster, Vim or Emacs?", ["Does Vim start faster?", "Does Emacs start faster?"]),
    ("Which is cheaper to run, Postgres or Oracle?",
     ["Is Postgres cheaper to run?", "Is Oracle cheaper to run?"]),
    ("Who wrote more novels, Austen or Dickens?",
     ["Did Austen write more novels?", "Did Dickens write more novels?"]),
    # the opening verb agrees with a plural alternative
    ("Which was more common in 1850, steam engines or water wheels?",
     ["Were steam engines more common in 1850?", "Were water wheels more common in 1850?"]),
    ("Which lasts longer, paper books or e-readers?",
     ["Do paper books last longer?", "Do e-readers last longer?"]),
    # the offered names in the middle of the question, a content noun with the question word
    ("Which poet, Keats or Byron, died younger?", ["Did Keats die younger?", "Did Byron die younger?"]),
    ("Which of these lakes freezes earlier, Baikal or Ladoga?",
     ["Does Baikal freeze earlier?", "Does Ladoga freeze earlier?"]),
    # the question word asks for the object: the alternative takes its place
    ("Which language should a beginner learn first, Python or Ruby?",
     ["Should a beginner learn Python first?", "Should a beginner learn Ruby first?"]),
])
def test_each_offered_alternative_is_asked_what_the_question_asks(embed, question, asked):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON
    assert texts == [question, *asked]


@pytest.mark.parametrize(("question", "items"), [
    # alternatives after a colon are offered, not aspects of what comes before the colon
    ("Which is better for a home studio: Ableton, Logic or FL Studio?", ["Ableton", "Logic", "FL Studio"]),
    # the parse reads the first as an apposition: the alternatives read on their own are more
    ("Which tablet should I buy for drawing: an iPad Air, a Galaxy Tab or a Surface Pro?",
     ["an iPad Air", "a Galaxy Tab", "a Surface Pro"]),
])
def test_alternatives_after_a_colon_are_each_asked_the_question(embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    assert texts[0] == question
    assert len(texts) == len(items) + 1
    for item, text in zip(items, texts[1:], strict=True):
        assert item in text and "for" in text and text.endswith("?"), texts


def test_a_question_after_the_askers_situation_asks_each_alternative(embed):
    # the situation is set aside: what remains is one question that offers its answers
    structure, texts = plan_of(
        "We are a small design agency. Which should we use for invoices, FreshBooks or Xero?", embed)
    assert structure.items == ["FreshBooks", "Xero"]
    assert texts == ["Which should we use for invoices, FreshBooks or Xero?",
                     "Should we use FreshBooks for invoices?", "Should we use Xero for invoices?"]


def test_items_chosen_between_are_compared_for_the_purpose_after_them(embed):
    # "for a small API" hangs on the verb, the items on "between"
    structure, texts = plan_of("How do I decide between Flask and FastAPI for a small API?", embed)
    assert structure.items == ["Flask", "FastAPI"] and structure.purpose == " for a small API"
    assert structure.dimensions == []
    assert all("for a small API" in t for t in texts[1:]), texts


@pytest.mark.parametrize("question", [
    "Compare Lightroom and Capture One for wedding photographers",
    "Formula One or MotoGP for a first race weekend?",  # guard: read as one name before too
])
def test_a_number_word_written_in_a_name_is_part_of_the_item(embed, question):
    # the parse hangs "One" on "Capture" as an object: "Capture" alone was the item, and
    # the purpose after the name was lost
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and any("One" in item for item in structure.items), structure.items
    assert structure.purpose.startswith(" for "), structure.purpose
    assert_questions(texts)


@pytest.mark.parametrize(("question", "items"), [
    ("What's the difference between SELECT ... FOR UPDATE and SELECT ... FOR SHARE?",
     ["SELECT ... FOR UPDATE", "SELECT ... FOR SHARE"]),
    ("Should I use MERGE or INSERT ... ON CONFLICT to upsert rows?", ["MERGE", "INSERT ... ON CONFLICT"]),
])
def test_a_statement_in_capitals_with_its_middle_elided_is_one_item(embed, question, items):
    # the parser reads the ellipsis as a break: "What's the difference between SELECT?"
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items, structure
    assert_questions(texts)


@pytest.mark.parametrize(("question", "items"), [
    ("What is the difference between git clean -x and git clean -X?", ["git clean -x", "git clean -X"]),
    ("What's the difference between dpkg -L and dpkg -S?", ["dpkg -L", "dpkg -S"]),
    ("What is the difference between ls -a and ls -A?", ["ls -a", "ls -A"]),
    ("Compare rsync -a and cp -r for copying a directory tree", ["rsync -a", "cp -r"]),
    # the word typed before each repeated command is its program, and only that word
    ("git fetch vs git pull --rebase vs git pull --ff-only, what happens in each case",
     ["git fetch", "git pull --rebase", "git pull --ff-only"]),
])
def test_commands_typed_with_their_options_are_the_compared_items(embed, question, items):
    # the parser reads an option as punctuation: "git clean" was compared with itself,
    # "dpkg -L" with "dpkg", and items differing in case alone were asked about once
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items, structure
    assert_questions(texts)
    for item in items:
        assert any(item in t for t in texts[1:]), texts


def test_an_option_with_hyphens_inside_stays_with_its_command(embed):
    # "--force-with-lease" was read as words: "What are the causes of lease?"
    _, texts = plan_of("Why does git push --force-with-lease refuse to overwrite my colleague's commits?",
                       embed)
    assert all("lease" not in t or "--force-with-lease" in t for t in texts), texts


def test_a_query_typed_without_a_verb_compares_for_its_purpose(embed):
    # "for session storage" hangs on an item: the purpose, not an attribute "storage"
    structure, texts = plan_of("Redis or Memcached for session storage?", embed)
    assert structure.items == ["Redis", "Memcached"] and structure.purpose == " for session storage"
    assert structure.dimensions == []
    assert all("for session storage" in t for t in texts), texts


@pytest.mark.parametrize(("question", "items", "purpose"), [
    # offered whatever the encoder reads the words as (a product, a hobby)
    ("a tent or a hammock for hiking in the rain", ["tent", "hammock"], " for hiking in the rain"),
    # the alternatives are the group, not the longer list after them
    ("Garmin or Polar for marathon training, pros and cons?", ["Garmin", "Polar"], " for marathon training"),
])
def test_alternatives_a_query_without_a_verb_offers_are_compared(embed, question, items, purpose):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items, structure
    assert structure.purpose == purpose and structure.dimensions == []
    assert_questions(texts)
    for item in items:
        assert any(item in t and purpose.strip() in t for t in texts), texts


@pytest.mark.parametrize("question", [
    "Postgres or MySQL for a startup building a marketplace, which is better long term",
    "SQLite or DuckDB for analytics on a laptop, which is faster",
])
def test_a_question_after_a_comma_that_follows_offered_alternatives_is_asked_itself(embed, question):
    # "which is better long term" is asked of the two, not an attribute they are compared in
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.dimensions == [], structure.dimensions
    assert texts[0] == question + "?", texts
    assert_questions(texts)
    assert not any("which is" in t for t in texts[1:]), texts


def test_an_alternative_asked_in_fewer_than_four_words_is_researched_as_a_whole(embed):
    # "Is Go faster?" would be a fragment of the question, which asks it of both already
    structure, texts = plan_of("Which is faster, Go or Rust?", embed)
    assert structure.item_question == "Is {item} faster?"
    assert texts == ["Which is faster, Go or Rust?", "What is known about Go?", "What is known about Rust?"]


@pytest.mark.parametrize(("question", "items"), [
    # the small parser tags "MongoDB" a number and joins "PostgreSQL" to "better": the
    # alternatives after the comma or colon are read on their own
    ("Which database handles JSON better, PostgreSQL, MongoDB or MySQL?", ["PostgreSQL", "MongoDB", "MySQL"]),
    ("Which database handles JSON better: PostgreSQL, MongoDB or MySQL?", ["PostgreSQL", "MongoDB", "MySQL"]),
    # a comma after the last "or" belongs to a name, not to the list
    ("Which company is older, Initech or Globex Widgets, Inc.?", ["Initech", "Globex Widgets, Inc."]),
])
def test_alternatives_the_parse_does_not_coordinate_are_read_as_written(embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    assert texts[0] == question
    for item in items:
        assert sum(item in t for t in texts[1:]) == 1, texts
    assert_questions(texts)


@pytest.mark.parametrize(("question", "items"), [
    # a question that offers its answers after a comma compares them, however it reads
    # ("came out first" reads as history, "has more members" as one fact)
    ("Which came out first, Dinosaur or Toy Story?", ["Dinosaur", "Toy Story"]),
    ("Which band has more members, Coldplay or Radiohead?", ["Coldplay", "Radiohead"]),
    ("Which novelist, Tolstoy or Dickens, wrote longer novels?", ["Tolstoy", "Dickens"]),
    # the parse hangs a title's own words elsewhere: the alternatives are read as written
    ("Which was released first, The Godfather or Raging Bull?", ["The Godfather", "Raging Bull"]),
    # the parse coordinates what comes before the comma with the names: no item
    ("Which is healthier, rice or pasta?", ["rice", "pasta"]),
    ("Which is the quickest way to learn chess, books or videos?", ["books", "videos"]),
    ("Which country has more islands, Sweden or Norway?", ["Sweden", "Norway"]),
])
def test_a_question_that_offers_alternatives_compares_them(embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    assert texts[0] == question  # asked itself, each alternative researched beside it
    for item in items:
        assert any(item in t and not any(o in t for o in items if o != item) for t in texts), item


@pytest.mark.parametrize(("question", "items"), [
    # names the tagger reads as a verb or a determiner
    ("Compare Elm and Go for writing web front ends", ["Elm", "Go"]),
    ("How does MongoDB differ from Cassandra in consistency?", ["MongoDB", "Cassandra"]),
    # the second name parsed as the verb's conjunct, not the first name's
    ("Compare Celery and RabbitMQ regarding retries", ["Celery", "RabbitMQ"]),
    # a version or model number is part of the item
    ("Compare Java 8 and Java 17 for server applications", ["Java 8", "Java 17"]),
    ("Compare the iPhone 13 and the Pixel 6", ["iPhone 13", "Pixel 6"]),
    ("Compare the iPhone 14 and the Pixel 7 on battery life", ["iPhone 14", "Pixel 7"]),
])
def test_names_the_small_parser_misreads_are_still_compared(embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON
    assert structure.items == items
    assert_questions(texts)
    for item in items:
        assert any(item in t and not any(o in t for o in items if o != item) for t in texts), texts


@pytest.mark.parametrize(("question", "items", "purpose"), [
    # the small parser makes the first word the verb, or a later name a clause
    ("nginx vs caddy vs traefik for a home lab reverse proxy", ["nginx", "caddy", "traefik"],
     " for a home lab reverse proxy"),
    ("cast iron vs carbon steel for frying eggs", ["cast iron", "carbon steel"], " for frying eggs"),
    ("Compare tea vs coffee for staying focused", ["tea", "coffee"], " for staying focused"),
    ("rsync vs scp vs sftp when copying large folders over a slow link", ["rsync", "scp", "sftp"],
     " when copying large folders over a slow link"),
    ("kubernetes Job vs CronJob vs Deployment", ["kubernetes Job", "CronJob", "Deployment"], ""),
    ("SELECT vs SELECT DISTINCT vs GROUP BY — when should I use each one?",
     ["SELECT", "SELECT DISTINCT", "GROUP BY"], ""),
])
def test_things_set_against_each_other_with_vs_are_compared_as_written(embed, question, items, purpose):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON
    assert structure.items == items and structure.purpose == purpose
    assert_questions(texts)
    for item in items:  # each item asked about alone, what is said of them kept
        assert any(t.split("?")[0].endswith(f"{item}{purpose}") or f" {item}?" in t for t in texts), texts


@pytest.mark.parametrize(("question", "items"), [
    ("ls -l vs ls -la, what's the difference", ["ls -l", "ls -la"]),  # options are words
    ("tabs vs spaces, which should a new project pick", ["tabs", "spaces"]),  # a guard: so before
])
def test_a_question_asked_after_things_set_against_each_other_is_asked_itself(embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.items == items and structure.dimensions == []
    assert texts[0] == question[:1].upper() + question[1:] + "?"
    assert_questions(texts)


@pytest.mark.parametrize("question", [  # guards: neither was a comparison before
    "Who directed Alien vs. Predator?",  # a title inside the question sets nothing against
    "Was Kramer vs. Kramer a box office success?",  # one film, named twice
])
def test_a_title_with_vs_is_not_a_comparison(embed, question):
    structure, _ = plan_of(question, embed)
    assert structure.kind != K.COMPARISON


@pytest.mark.parametrize(("question", "items", "attributes"), [
    # an adjective used as a noun, the small model's modifier of nothing after "from"
    ("How does organic farming differ from conventional in yield and cost?",
     ["organic farming", "conventional"], ["yield", "cost"]),
    ("How does public school differ from private in cost and class size?",
     ["public school", "private"], ["cost", "class size"]),
    # attributes the encoder reads no more as attributes than as a purpose
    ("How does Haskell differ from OCaml in tooling and libraries?", ["Haskell", "OCaml"],
     ["tooling", "libraries"]),
])
def test_things_set_against_each_other_are_compared_not_the_nouns_listed_after(
        embed, question, items, attributes):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    assert_questions(texts)
    for item in items:
        assert any(item in t and not any(o in t for o in items if o != item) for t in texts), texts
    # the listed nouns are what the items are compared in, never researched alone
    assert not any(t == f"What is known about {a}?" for a in attributes for t in texts), texts


def test_a_name_in_title_case_opening_a_text_is_not_read_as_an_imperative():
    """"Vince" could be a verb after "You"; "Object" is one: beside a word in title case
    each is the first word of a name or title."""
    for text in ("Vince Phillips held a junior welterweight title.",
                 "Object Detection and Tracking within Badminton Videos"):
        doc = parse(text, judge_language=False)
        assert doc[0].pos_ != "VERB" and doc[0].head.i == 1, text


def test_a_command_in_capitals_opening_a_text_is_not_read_as_an_imperative(embed):
    # "ALTER TABLE" names a command: "Alter table" is no instruction, and the text is a
    # statement and then one question about it, researched as written
    question = "ALTER TABLE can't change a column's type in SQLite. How do I make that kind of change?"
    doc = parse(question, judge_language=False)
    assert doc[0].tag_ != "VB", [(t.text, t.tag_) for t in doc[:3]]
    structure, texts = plan_of(question, embed)
    assert structure.research_question == question
    assert not any(t.startswith("What is known about TABLE") for t in texts), texts


def test_things_compared_by_an_attribute_they_each_have_keep_it(embed):
    # "the tax systems of A and B" compares A's tax system with B's, not A with B
    structure, texts = plan_of("Compare the tax systems of Norway and Sweden", embed)
    assert structure.kind == K.COMPARISON
    assert structure.items == ["the tax system of Norway", "the tax system of Sweden"]
    assert all("tax system" in t for t in texts), texts


def test_an_item_the_parser_cuts_in_two_stays_whole(embed):
    # "git" read as the verb's object and as a member of its own before "cherry-pick"
    structure = understand("Compare git merge, git rebase and git cherry-pick for combining work", embed)
    assert structure.items == ["git merge", "git rebase", "git cherry-pick"]
    # a noun the member hangs from names what the items are, it is not part of one
    assert understand("Do the bands Blur and Oasis both come from England?", embed).items \
        == ["Blur", "Oasis"]


@pytest.mark.parametrize(("question", "attributes"), [
    ("What are the advantages and disadvantages of using Docker for local development?",
     ["advantages", "disadvantages"]),
    ("What are the similarities and differences of cats and dogs?", ["similarities", "differences"]),
])
def test_attributes_of_something_are_not_the_things_compared(embed, question, attributes):
    # common nouns that share an "of" complement are asked of it, not compared with each other
    structure, texts = plan_of(question, embed)
    assert not set(attributes) & set(structure.items), structure.items
    assert not any(f"of {a}" in t for a in attributes for t in texts), texts


def test_a_comparing_question_is_asked_itself_beside_each_item(embed):
    question = "Which film is newer, The Apple Dumpling Gang or Heavyweights?"
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.asks_itself
    assert texts[0] == question and len(texts) == 3


def test_a_comparison_keeps_its_purpose_and_per_item_question(embed):
    _, texts = plan_of("Compare React, Vue and Angular for building web applications", embed)
    assert all(t.endswith("for building web applications?") for t in texts)
    structure, texts = plan_of("Compare B-tree, GIN, GiST and BRIN indexes: what is each one good for?",
                               embed)
    assert structure.kind == K.COMPARISON and len(structure.items) == 4
    assert [t for t in texts if t.startswith("What is GIN")] == ["What is GIN good for?"]
    # "each one" stands for every item also when the parser reads "one" as a noun
    _, texts = plan_of("Compare Django and Flask: when should each one be used?", embed)
    assert texts[:2] == ["When should Django be used?", "When should Flask be used?"], texts


@pytest.mark.parametrize(("question", "first"), [
    ("Compare Nginx and Caddy: which one is easier to configure?", "Is Nginx easier to configure?"),
    ("Compare Redis and Memcached: which one uses less memory?", "Does Redis use less memory?"),
    ("Compare Flask and Django: which one will scale better?", "Will Flask scale better?"),
    # the parser hangs the question on the purpose as a relative clause: "one" still stands
    # for each item (only a relative pronoun does not)
    ("Compare Vue and Svelte for a small dashboard: which one is faster to build with?",
     "Is Vue faster to build with?"),
])
def test_which_one_asked_of_each_item_asks_whether_it_does(embed, question, first):
    # "which one" asked of one item is a yes/no question, not a statement ("Redis uses less memory?")
    _, texts = plan_of(question, embed)
    assert_questions(texts)
    assert texts[0] == first, texts


@pytest.mark.parametrize(("question", "first"), [
    # the word standing for the items is the object; the asker ("I") is no item
    ("What is the difference between VACUUM and VACUUM FULL, and when should I run each?",
     "When should I run VACUUM?"),
    # a question word in the object's place: the item takes the object's place
    ("Compare Terraform and Pulumi: which one should I choose for a small team?",
     "Should I choose Terraform for a small team?"),
    # the per-item question in a sentence of its own after the instruction to compare
    ("Compare Postgres and MySQL. When should I use each?", "When should I use Postgres?"),
    ("Compare Vim and Emacs. Which one should I learn?", "Should I learn Vim?"),
])
def test_a_question_about_each_item_in_an_object_place_is_asked_of_each(embed, question, first):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and len(structure.items) == 2
    assert_questions(texts)
    assert texts[0] == first, texts


@pytest.mark.parametrize(("question", "together"), [
    ("Should I use tabs or spaces for indentation, and what's actually different between them?",
     "What's actually different between tabs and spaces?"),
    # the attributes compared end where the question about them begins
    ("Is rsync or scp better for copying a directory, and what's the difference between them?",
     "What's the difference between rsync and scp?"),
    ("Compare Vim and Emacs. Can I use them together?", "Can I use Vim and Emacs together?"),
])
def test_a_question_about_the_items_together_is_asked_of_them_together(embed, question, together):
    # "between them" stands for the items together: "between tabs" asks nothing
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and len(structure.items) == 2
    assert_questions(texts)
    rest = [t for t in texts if t != structure.as_question]  # the question itself aside
    assert together in rest, texts
    assert not any("them" in t or "compare in" in t for t in rest), texts


@pytest.mark.parametrize(("question", "items", "attributes"), [
    ("How do electric cars compare to hydrogen fuel cell cars in efficiency and infrastructure?",
     ["electric cars", "hydrogen fuel cell cars"], ["efficiency", "infrastructure"]),
    ("How does Rust differ from Go in memory safety and concurrency?",
     ["Rust", "Go"], ["memory safety", "concurrency"]),
])
def test_things_set_against_each_other_are_compared_on_the_attributes_listed_after(
        embed, question, items, attributes):
    # the attributes were the items ("What is known about efficiency?")
    structure, texts = plan_of(question, embed)
    assert structure.items == items and structure.dimensions == attributes
    assert_questions(texts)


def test_the_object_a_question_word_asks_for_is_no_second_subject(embed):
    # the parse read "Which programming language" and "a beginner" as two subjects
    doc = parse("Which programming language should a beginner learn first?")
    assert [t.text for t in doc if t.dep_ == "nsubj"] == ["beginner"]
    _, texts = plan_of("Which programming language should a beginner learn first, Python or Go?", embed)
    assert "Should a beginner learn Python first?" in texts, texts


@pytest.mark.parametrize(("question", "asked"), [
    ("Compare Podman and Docker. What are the main differences?",
     "As for Podman and Docker, what are the main differences?"),
    ("Compare Python and Go. What are the costs?", "As for Python, what are the costs?"),
])
def test_a_question_naming_nothing_after_an_instruction_to_compare_asks_of_the_items(embed, question, asked):
    # it was a facet of its own, asked about the first item ("What are the costs regarding Python?")
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and len(structure.items) == 2
    assert_questions(texts)
    assert asked in texts, texts


@pytest.mark.parametrize(("question", "asked"), [
    ("How does WAL mode differ from the rollback journal, and when should I avoid WAL?",
     "When should I avoid WAL?"),
    ("What is the difference between git merge and git rebase, and when is rebase dangerous?",
     "When is rebase dangerous?"),
])
def test_a_question_beside_a_comparison_that_names_one_item_is_asked_as_it_stands(embed, question, asked):
    # "As for the rollback journal, when should I avoid WAL?" asks nothing
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and len(structure.items) == 2
    assert_questions(texts)
    assert asked in texts, texts
    assert not any(t.startswith("As for") for t in texts), texts


@pytest.mark.parametrize(("question", "together"), [
    ("Should I keep sessions in Redis or Memcached, and what is the practical difference?",
     "As for Redis and Memcached, what is the practical difference?"),
    ("Compare Podman and Docker: what are the main differences?",
     "As for Podman and Docker, what are the main differences?"),
])
def test_a_question_beside_a_comparison_about_the_items_together_is_asked_once(embed, question, together):
    # "As for Redis, what is the practical difference?" asks nothing: the difference is
    # between the two; "what are the trade-offs?" is still asked of each (test above)
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and len(structure.items) == 2
    assert_questions(texts)
    assert together in texts, texts
    assert not any(t.startswith(f"As for {item}, ") for item in structure.items for t in texts), texts


@pytest.mark.parametrize("question", [
    # the later question's "on a shared branch" is no attribute compared
    "What is the difference between git merge and git rebase, and which should I use on a shared branch?",
    # nor what an infinitive says the items are for
    "Should I use git submodules or git subtree to include a library?",
    # nor the nouns of any clause of its own: a relative clause, a clause a gerund
    # governs, a question asked after a comma
    "What are the differences between ext4, XFS and Btrfs for running a database that writes many files?",
    "What's the difference between rsync and scp for checking which files changed on a server?",
    "What's the difference between a mortgage broker and a bank, what happens to my credit score in each?",
])
def test_words_outside_the_comparison_are_no_attributes_compared(embed, question):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.dimensions == [], structure.dimensions
    assert_questions(texts)
    assert not any(" compare in " in t or "the library of" in t for t in texts), texts


@pytest.mark.parametrize(("question", "asked"), [
    ("How do Python and Ruby differ in how they handle default arguments?",
     ["How does Python handle default arguments?", "How does Ruby handle default arguments?"]),
    ("Compare Rust and Go in how they handle memory safety",
     ["How does Rust handle memory safety?", "How does Go handle memory safety?"]),
    # a plural item takes the verb in the plural
    ("What is the difference between cats and dogs in what they eat?",
     ["What do cats eat?", "What do dogs eat?"]),
])
def test_a_question_clause_the_items_are_compared_in_is_asked_of_each(embed, question, asked):
    # "… differ in how they X": what differs is how each one does X
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.dimensions == [], structure.dimensions
    assert_questions(texts)
    assert texts[:len(asked)] == asked, texts
    # how they differ keeps what they differ in
    compared_in = question.split(" in ", 1)[1].rstrip("?")
    assert texts[-1].startswith("How do ") and texts[-1].endswith(f" in {compared_in}?"), texts


def test_a_clause_about_the_asker_after_a_comparison_is_not_asked_of_the_items(embed):
    # guard (passes before the change too): "for how long I plan to keep it" says what
    # the comparison is for; "How long do I plan to keep leasing?" asks nothing
    structure, texts = plan_of("Compare leasing and buying a car for how long I plan to keep it", embed)
    assert structure.kind == K.COMPARISON
    assert_questions(texts)
    assert not any("plan to keep" in t and t.startswith("How long") for t in texts), texts


@pytest.mark.parametrize(("question", "first"), [
    ("PostgreSQL and MySQL: how do they handle replication?", "How does PostgreSQL handle replication?"),
    ("Compare ext4 and XFS. Were they designed for large files?", "Was ext4 designed for large files?"),
    # a plural item keeps the plural
    ("Compare heat pumps and gas boilers. Are they cheaper to run?", "Are heat pumps cheaper to run?"),
    # "each of them" is one item, without "of them"
    ("Compare Vim and Emacs. What is each of them good for?", "What is Vim good for?"),
])
def test_a_plural_pronoun_as_subject_is_asked_of_each_item_in_the_singular(embed, question, first):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and len(structure.items) == 2
    assert_questions(texts)
    assert texts[0] == first, texts


@pytest.mark.parametrize(("question", "asked"), [
    ("EADDRINUSE vs ECONNREFUSED: what is the difference and what usually causes each one?",
     ["What usually causes EADDRINUSE?", "What usually causes ECONNREFUSED?"]),
    ("rm vs shred vs wipe: what does each leave on the disk?",
     [f"What does {tool} leave on the disk?" for tool in ("rm", "shred", "wipe")]),
    ("Compare Redis and Memcached. What limits each one in practice?",
     ["What limits Redis in practice?", "What limits Memcached in practice?"]),
])
def test_the_word_for_each_item_takes_its_place_beside_a_question_word(embed, question, asked):
    # "what" asks; "each one" stands for the items ("Does Redis limit each one?" asked nothing)
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON
    assert_questions(texts)
    assert texts[:len(asked)] == asked, texts


def test_a_question_of_each_item_under_a_sub_questions_words_is_left_to_the_question(embed):
    # "What causes EADDRINUSE?" is three words: the question asks it of both already
    structure, texts = plan_of("EADDRINUSE vs ECONNREFUSED: what's the difference and what causes each one?",
                               embed)
    assert structure.kind == K.COMPARISON
    assert_questions(texts)
    assert texts[0] == structure.text and all(item in " ".join(texts[1:]) for item in structure.items), texts


def test_a_question_that_names_nothing_is_asked_about_what_the_one_before_names(embed):
    # "what should I check first" alone is a search for nothing
    _, texts = plan_of("Is it safe to run apt upgrade on a production server, and what should I "
                       "check first?", embed)
    assert_questions(texts)
    assert texts[1].startswith("What should I check first") and "apt upgrade" in texts[1], texts


@pytest.mark.parametrize(("question", "condition"), [
    ("Can SQLite handle many concurrent writers, and if not, what are the alternatives?", "If not"),
    ("Does Git store diffs, and if so, how are they compressed?", "If so"),
])
def test_a_condition_before_a_question_word_opens_its_question(embed, question, condition):
    # "and if not," belongs to the question after it: "Can SQLite …, and if not?" asks nothing
    _, texts = plan_of(question, embed)
    assert_questions(texts)
    assert texts[0] == question.split(", and")[0] + "?", texts
    assert texts[1].startswith(condition + ", "), texts


@pytest.mark.parametrize(("question", "again"), [
    ("Can I build an index over just part of a table, and how?",
     "How can I build an index over just part of a table?"),
    ("Does PostgreSQL support materialized views, and why?",
     "Why does PostgreSQL support materialized views?"),
])
def test_a_yes_no_question_with_a_bare_question_word_is_asked_again_with_it(embed, question, again):
    # "…, and how?" after a yes/no question asks the way, not which options there are
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert texts == [question.split(", and")[0] + "?", again], texts


@pytest.mark.parametrize(("question", "second"), [
    ("How do index scans work, and are they always faster?", "Are index scans always faster?"),
    ("What are the side effects of ibuprofen, and is it safe during pregnancy?",
     "Is ibuprofen safe during pregnancy?"),
    # a gerund subject the tagger reads as the verb ("caching" the root, "work" its object)
    ("How does caching work and does it help with latency?", "Does caching help with latency?"),
])
def test_a_yes_no_question_coordinated_after_another_is_asked_on_its_own(embed, question, second):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert len(texts) == 2 and texts[1] == second, texts


def test_clauses_coordinated_in_an_instruction_are_facets_not_compared_things(embed):
    # "how MVCC works and what … PostgreSQL offers": two questions, each with its subject
    structure, texts = plan_of(
        "Explain how MVCC works and what transaction isolation levels PostgreSQL offers.", embed)
    assert structure.kind == K.MULTI_FACETED and not structure.items
    assert_questions(texts)
    assert len(texts) == 2 and "PostgreSQL offer" in texts[1], texts


def test_a_comparison_of_named_attributes_asks_for_them(embed):
    structure, texts = plan_of("Compare cats and dogs as pets in terms of cost and care", embed)
    assert structure.kind == K.COMPARISON and structure.items == ["cats", "dogs"]
    assert_questions(texts)


# a member written as the start of another ("git fetch and git pull") takes the word the
# parse hangs elsewhere after it
@pytest.mark.parametrize(("question", "items"), [
    ("Compare git fetch and git pull in terms of safety and speed", ["git fetch", "git pull"]),
    ("Compare git merge and git rebase in terms of history and conflict handling",
     ["git merge", "git rebase"]),
])
def test_parallel_items_keep_their_second_word(embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    assert_asked_apart(texts[:2], items)


# attributes listed after the items are each compared on their own, beside each item, and
# the list is not mistaken for the items however the parser hangs it
@pytest.mark.parametrize(("question", "items", "attributes", "purpose"), [
    ("Compare Spanish and Italian in difficulty, usefulness and pronunciation for English speakers",
     ["Spanish", "Italian"], ["difficulty", "usefulness", "pronunciation"], "for English speakers"),
    ("Compare PostgreSQL, MySQL and SQLite for a small web app on cost and reliability.",
     ["PostgreSQL", "MySQL", "SQLite"], ["cost", "reliability"], "for a small web app"),
    ("How do Python and Go compare in speed and memory use?", ["Python", "Go"], ["speed", "memory use"], ""),
    # "in terms" frames the list; "as pets" stays what the comparison is about
    ("Compare cats and dogs as pets in terms of cost and care", ["cats", "dogs"], ["cost", "care"],
     "as pets"),
    # the parse hangs "on" on the second item, which it reads as a verb: no genitive
    ("Compare Kafka and RabbitMQ on latency, throughput and operational cost", ["Kafka", "RabbitMQ"],
     ["latency", "throughput", "operational cost"], ""),
])
def test_listed_attributes_are_compared_one_by_one(embed, question, items, attributes, purpose):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    assert structure.dimensions == attributes and structure.purpose.strip() == purpose
    assert_questions(texts)
    for attribute in attributes:  # a row per attribute, naming every item and no other attribute
        assert any(attribute in t and all(i in t for i in items)
                   and not any(a in t for a in attributes if a != attribute) for t in texts), texts


# kinds of one thing written as modifiers of it are compared as kinds of it
@pytest.mark.parametrize(("question", "items", "purpose"), [
    ("Compare electric and hybrid cars for a daily commute", ["electric cars", "hybrid cars"],
     "for a daily commute"),
    ("Compare public and private universities for an engineering degree",
     ["public universities", "private universities"], "for an engineering degree"),
    # a member with words of its own is an item as it stands
    ("Compare git merge and git rebase", ["git merge", "git rebase"], ""),
])
def test_modifiers_sharing_a_noun_are_compared_as_kinds_of_it(embed, question, items, purpose):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    assert structure.purpose.strip() == purpose and not structure.dimensions
    assert_questions(texts)


@pytest.mark.parametrize(("question", "purpose"), [
    ("Compare Python and Ruby for startups and enterprises", "for startups and enterprises"),
    ("How do cats and dogs compare as pets for families and retirees?", "for families and retirees"),
])
def test_a_list_of_whom_or_what_for_is_no_list_of_attributes(embed, question, purpose):
    structure = understand(question, embed)
    assert not structure.dimensions_listed and structure.purpose.strip() == purpose
    assert not {"families", "retirees", "startups", "enterprises"} & set(structure.dimensions)


# ---- facets: one sub-question per part, pronouns resolved ----------------------------------------
def test_facets_of_an_action_are_asked_of_it(embed):
    # the nouns share "of" with a gerund's clause, which the parse hangs as a complement
    structure, texts = plan_of("What are the benefits and risks of taking creatine?", embed)
    assert structure.kind == K.MULTI_FACETED
    assert texts == ["What are the benefits of taking creatine?", "What are the risks of taking creatine?"]


@pytest.mark.parametrize(("question", "kinds"), [
    ("What are the environmental and economic impacts of lithium mining in South America?",
     ["environmental", "economic"]),
    ("What are the social, economic and political causes of the French Revolution?",
     ["social", "economic", "political"]),
    # a hyphenated kind stays whole
    ("What are good free and open-source editors?", ["free", "open-source"]),
    # nouns as the kinds, in a question read as a comparison: kinds of what X has
    ("What are the security and performance implications of enabling hostname lookups in Apache?",
     ["security", "performance"]),
])
def test_kinds_of_one_plural_noun_are_asked_apart(embed, question, kinds):
    # "the environmental and economic impacts": each kind is a facet researched on its own
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert len(texts) == len(kinds)
    for kind, text in zip(kinds, texts, strict=True):
        assert kind in text and not any(other in text for other in kinds if other != kind), texts


def test_kinds_compared_or_inside_a_clause_are_not_asked_apart(embed):
    # "Compare electric and hybrid cars" compares the kinds; languages "both official"
    # inside a relative clause are not what the question asks for
    structure, _ = plan_of("Compare electric and hybrid cars.", embed)
    assert structure.kind == K.COMPARISON
    structure, _ = plan_of("In which country is the province where Serbian and Croatian languages "
                           "are both official?", embed)
    assert structure.kind != K.MULTI_FACETED


def test_coordinated_facets_become_one_question_each(embed):
    structure, texts = plan_of("Explain the causes, effects, and solutions to climate change", embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert len(texts) == 3
    for facet, text in zip(["causes", "effects", "solutions"], texts, strict=True):
        assert facet in text and "climate change" in text


@pytest.mark.parametrize(("question", "expected"), [
    ("Explain the causes, effects, and solutions to climate change",
     ["causes of climate change", "effects of climate change", "solutions to climate change"]),
    ("Describe the benefits, risks and alternatives to nuclear power",
     ["benefits of nuclear power", "risks of nuclear power", "alternatives to nuclear power"]),
])
def test_a_written_preposition_belongs_to_the_member_it_follows(embed, question, expected):
    _, texts = plan_of(question, embed)
    for phrase, text in zip(expected, texts, strict=True):
        assert phrase in text, texts


def test_several_questions_in_one_are_split_with_pronouns_resolved(embed):
    question = ("How does machine learning work, what are its applications in healthcare, "
                "and what are the ethical concerns?")
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert len(texts) == 3
    assert texts[1] == "What are the applications of machine learning in healthcare?"
    assert "machine learning" in texts[2]  # "the ethical concerns" of what the question is about
    assert not any(" its " in t or t.startswith("Its") for t in texts)


@pytest.mark.parametrize(("question", "second"), [
    # the small model ends a sentence before "and how": the pronoun then stood for nothing
    ("What are savepoints in PostgreSQL and how do they differ from nested transactions?",
     "How do savepoints in PostgreSQL differ from nested transactions?"),
    # the asker as the first question's subject: "it" is what the asker acts on
    ("How do I create a read-only user in PostgreSQL, and does it see tables created later?",
     "Does a read-only user in PostgreSQL see tables created later?"),
    # a name in lower case that the tagger reads as a verb is still what "it" stands for
    ("How do I install nginx, and how do I configure it?", "How do I configure nginx?"),
    # the parse read the question word as the quoted term's determiner; a quoted term of
    # two words is one name, in its quotes
    ('What does "detached HEAD" mean in git and how do I get out of it?',
     'How do I get out of "detached HEAD"?'),
    # a name in capitals with an underscore, tagged a particle
    ("What does ORIG_HEAD mean and when is it set?", "When is ORIG_HEAD set?"),
])
def test_a_pronoun_in_a_second_question_stands_for_what_the_first_asks_about(embed, question, second):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert texts[1] == second, texts


def test_a_yes_no_question_after_a_question_read_as_a_relative_clause_is_its_own(embed):
    # the parse hangs "where do they come from" on "microplastics" as a relative clause
    _, texts = plan_of("What are microplastics, where do they come from, and are they "
                       "harmful to humans?", embed)
    assert_questions(texts)
    assert "Where do microplastics come from?" in texts and "Are microplastics harmful to humans?" in texts


@pytest.mark.parametrize(("question", "last"), [
    ("What is Kubernetes, how does it schedule pods, and is it worth it for a small team?",
     "Is Kubernetes worth it for a small team?"),
    ("What is a bloom filter and when is it worth it?", "When is a bloom filter worth it?"),
])
def test_a_pronoun_whose_clause_has_it_as_subject_stands_for_something_else(embed, question, last):
    # "Is Kubernetes worth Kubernetes …": the subject's referent would be "itself"
    _, texts = plan_of(question, embed)
    assert texts[-1] == last, texts


@pytest.mark.parametrize(("question", "owned"), [
    ("Give me an overview of renewable energy sources and their costs.",
     "What is known about the costs of renewable energy sources?"),
    ("Describe PostgreSQL's index types and their trade-offs.",
     "What is known about the trade-offs of PostgreSQL's index types?"),
])
def test_a_listed_noun_with_a_possessive_pronoun_is_asked_as_the_first_ones(embed, question, owned):
    # "What is known about costs?" searched for costs of anything
    _, texts = plan_of(question, embed)
    assert_questions(texts)
    assert owned in texts, texts


@pytest.mark.parametrize(("question", "asked"), [
    # the parse joins the owners: "the main types of [databases and their typical uses]"
    ("What are the main types of databases and their typical uses?",
     ["What are the main types of databases?", "What are the typical uses of databases?"]),
    ("What are the main features of Rust and its biggest drawbacks?",
     ["What are the main features of Rust?", "What are the biggest drawbacks of Rust?"]),
    # the parse joins the attributes: "[the causes of inflation] and [its effects …]"
    ("What are the causes of inflation and its effects on savings?",
     ["What are the causes of inflation?", "What are the effects of inflation on savings?"]),
    # the verb agrees with each ("What is the effects …")
    ("What is the history of the printing press and its effects on literacy in Europe?",
     ["What is the history of the printing press?",
      "What are the effects of the printing press on literacy in Europe?"]),
    # an instruction's object, or a query of the phrase alone
    ("Explain the history of the printing press and its effects on literacy in Europe.",
     ["What is known about the history of the printing press?",
      "What is known about the effects of the printing press on literacy in Europe?"]),
])
def test_an_attribute_and_what_its_owner_owns_are_two_questions(embed, question, asked):
    # "What are the main types of typical uses?": the attribute was shared with the
    # possessive's noun; "the causes of the causes of inflation" was researched as causal
    _, texts = plan_of(question, embed)
    assert texts == asked, texts


@pytest.mark.parametrize(("question", "topic"), [
    ("What is the best way to learn a new language as an adult?",
     "the best way to learn a new language as an adult"),
    ("What is the most effective way to reduce PostgreSQL bloat?",
     "the most effective way to reduce PostgreSQL bloat"),
])
def test_the_infinitive_that_says_which_way_is_part_of_the_topic(embed, question, topic):
    # "What are the main options for way?" researched ways of anything
    structure, texts = plan_of(question, embed)
    assert structure.topic == topic
    assert all(topic in text for text in texts[1:]), texts


def test_an_infinitive_opening_a_list_of_actions_is_no_part_of_the_topic(embed):
    # guard (passes before the change too): "it" stays the key, not "Steps to generate …"
    question = "Steps to generate an ed25519 key, add it to ssh-agent and copy it to a remote server?"
    _, texts = plan_of(question, embed)
    assert texts[1] == "Steps to add an ed25519 key to ssh-agent?", texts


def test_a_short_question_among_several_is_researched_within_the_whole(embed):
    # "What causes inflation" (three words) was dropped as a fragment: the plan lost it
    question = ("What causes inflation, why does it matter for ordinary households, and what can central "
                "banks do about it?")
    _, texts = plan_of(question, embed)
    assert texts == [question, "Why does inflation matter for ordinary households?",
                     "What can central banks do about inflation?"], texts


def test_a_conjunction_hung_on_a_phrase_is_no_part_of_the_topic(embed):
    # "… regarding streaming replication between two PostgreSQL 15 servers, and?"
    structure, texts = plan_of("How do I set up streaming replication between two PostgreSQL 15 servers, "
                               "and how can I check that the standby is keeping up?", embed)
    assert structure.topic == "streaming replication between two PostgreSQL 15 servers"
    assert_questions(texts)
    assert not any(", and?" in text for text in texts), texts


@pytest.mark.parametrize(("question", "parts"), [
    # the question after the phrase is asked, in its setting (was "What is known about package?")
    ("According to the Debian Administrator's Handbook, how do I pin a package to a specific version "
     "with APT, and how does that differ from putting it on hold?",
     ["According to the Debian Administrator's Handbook, how do I pin a package to a specific version "
      "with APT?", "How does that differ from putting a package on hold?"]),
    ("According to the manual, how do I pin a package?", []),  # one question, researched as asked
])
def test_a_phrase_that_sets_the_scene_is_no_item_and_no_hop(embed, question, parts):
    # "How does According differ from putting it on hold?"; "According to the manual" was
    # read as the anchor of a chain whose next clause was "do I pin a package"
    structure, texts = plan_of(question, embed)
    assert structure.kind not in (K.COMPARISON, K.CHAIN) and "According" not in structure.items
    assert texts == parts


def test_two_commands_set_against_each_other_are_compared_whatever_their_verbs(embed):
    # "apply" was read as the verb: "git stash pop vs git stash apply" compared nothing
    structure, _ = plan_of("git stash pop vs git stash apply", embed)
    assert structure.kind == K.COMPARISON and structure.items == ["git stash pop", "git stash apply"]


@pytest.mark.parametrize(("question", "dimension"), [
    ("Compare the healthcare systems of the United States, Canada, Germany and the United Kingdom and "
     "their costs per person.", "costs per person"),
    ("Compare the economies of Japan and Germany and their growth rates.", "growth rates"),
])
def test_what_the_compared_attribute_owns_is_compared_whole(embed, question, dimension):
    # "compare in costs and person", "compare in rates": the owned phrase was cut into nouns
    structure, _ = plan_of(question, embed)
    assert structure.dimensions == [dimension]


@pytest.mark.parametrize(("question", "together"), [
    ("My doctor mentioned metformin and semaglutide. What are the pros and cons of each, and can they be "
     "taken together?", "Can metformin and semaglutide be taken together?"),
    ("Compare Redis and Memcached: how do they handle eviction, and can they be used together?",
     "Can Redis and Memcached be used together?"),
])
def test_a_plural_subject_that_stands_for_the_items_together_is_asked_of_the_group(embed, question, together):
    # "Can metformin be taken together?" asked each item alone
    _, texts = plan_of(question, embed)
    assert texts[-1] == together, texts
    assert not any(t.endswith(" together?") and t != together for t in texts), texts


def test_a_compared_pronoun_is_what_it_stands_for(embed):
    # "As for it, what is a BRIN index?", "How do it and B-tree differ …?"
    question = "What is a BRIN index, and should I use it or a B-tree for time-series data?"
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items[0] == "a BRIN index", structure.items
    assert "What is a BRIN index?" in texts and not any("it," in t or " it " in t for t in texts[1:]), texts


def test_a_sentence_opens_only_where_one_can_end():
    # no closing punctuation, no line break: one sentence, whatever the model guesses
    one = parse("What are savepoints in PostgreSQL and how do they differ from nested transactions?")
    assert len(list(one.sents)) == 1
    two = parse("My backup failed. What should I check first?")
    assert [s.text for s in two.sents] == ["My backup failed.", "What should I check first?"]


@pytest.mark.parametrize(("question", "verb", "subject"), [
    ("Can a hard link cross filesystems?", "cross", "link"),
    ("Can the server cache responses?", "cache", "server"),
    ("Should a small team plan sprints?", "plan", "team"),
    ("Can a foreign key reference a view?", "reference", "key"),
    ("Could a single bad disk corrupt a RAID 5 array?", "corrupt", "disk"),
    # "do" hung on the next question's participle ("… record, how long are its entries kept")
    ("What does the git reflog record, how long are its entries kept?", "record", "reflog"),
    # "did" read as the main verb, "collapse" as a noun of "in the West"
    ("Why did the Roman Empire in the West collapse while the Eastern half lasted?", "collapse", "Empire"),
    ("How did treatment for HIV evolve between 1985 and 2020?", "evolve", "treatment"),
    ("Does a hard link cross filesystems?", "cross", "link"),  # "filesystems" read as the subject
])
def test_an_auxiliary_has_a_verb_where_the_parse_read_it_as_a_noun(question, verb, subject):
    # "a hard link cross filesystems" was one noun phrase: a modal goes with a verb
    doc = parse(question)
    word = next(t for t in doc if t.text == verb)
    assert word.pos_ == "VERB" and word.lemma_ == verb
    assert [c.text for c in word.children if c.dep_ == "nsubj"] == [subject]


@pytest.mark.parametrize(("question", "asked"), [
    ("What is a hard link, and can a hard link cross filesystems?",
     ["What is a hard link?", "Can a hard link cross filesystems?"]),
    ("What does the git reflog record, how long are its entries kept, and how do I recover a lost commit?",
     ["What does the git reflog record?", "How long are the entries of the git reflog kept?",
      "How do I recover a lost commit?"]),
    ("How do Debian stable, testing and unstable differ, and which should I run on a server?",
     ["Should I run Debian stable on a server?", "Should I run testing on a server?",
      "Should I run unstable on a server?", "How do Debian stable, testing and unstable differ?"]),
])
def test_a_question_with_a_verb_the_parse_missed_is_its_own_facet(embed, question, asked):
    # the guard of the "do" read as the main verb: its subject stays the subject ("How do
    # Debian stable, testing and unstable differ" keeps its items, not "How do Debian stable?")
    _, texts = plan_of(question, embed)
    assert texts == asked, texts


def test_a_gerund_that_took_the_verb_for_its_object_is_part_of_the_subject(embed):
    # "how CRISPR gene editing works": "editing" read as the verb, "works" as its object
    doc = parse("Explain how CRISPR gene editing works and what ethical concerns it raises.")
    works = next(t for t in doc if t.text == "works")
    assert works.pos_ == "VERB" and [c.text for c in works.children if c.dep_ == "nsubj"] == ["editing"]
    _, texts = plan_of("Explain how CRISPR gene editing works and what ethical concerns it raises.", embed)
    assert texts[-1] == "What is known about what ethical concerns CRISPR gene editing raises?", texts


def test_a_lower_case_name_in_an_objects_place_is_no_verb():
    doc = parse("How do I install nginx, and how do I configure it?")
    nginx = next(t for t in doc if t.text == "nginx")
    assert nginx.pos_ != "VERB" and nginx.dep_ == "dobj"
    # a gerund read as the verb keeps the real verb a verb ("caching" is the subject)
    doc = parse("How does caching work?")
    assert next(t for t in doc if t.text == "work").pos_ == "VERB"


# ---- questions typed with the asker's situation and wishes ---------------------------------------
@pytest.mark.parametrize(("question", "asked"), [
    ("What is Redis used for? I'm also curious about its persistence options.", "persistence options"),
    ("Explain how glaciers form. I would also like to know how fast they are melting.", "how fast"),
    ("Tell me about the Ottoman Empire. I'm particularly interested in its architecture.", "architecture"),
])
def test_a_wish_to_know_is_asked_about_what_it_names(embed, question, asked):
    # "I'd like to know X", "I'm curious about X": X is researched, the wish is not an action
    _, texts = plan_of(question, embed)
    assert_questions(texts)
    assert any(asked in t for t in texts), texts
    assert not any("can one know" in t or "curious" in t or "interested" in t for t in texts), texts


@pytest.mark.parametrize(("question", "situation"), [
    ("I own a small vineyard. When should I start worrying?", "vineyard"),
    ("We just bought an old farmhouse. What should we check first, and what will it cost?", "farmhouse"),
    # something the asker owns, in a state of its own ("it keeps restarting")
    ("My phone keeps restarting. What should I try first?", "phone"),
])
def test_a_question_that_names_nothing_is_about_the_asker_s_situation(embed, question, situation):
    # the situation is no question of its own ("What is known about a small vineyard?"); a
    # question that names nothing is asked about it
    structure, texts = plan_of(question, embed)
    texts = [structure.research_question, *texts]
    assert all(situation in t for t in texts), texts
    assert not any(t.startswith("What is known about") for t in texts), texts


@pytest.mark.parametrize("question", [
    "In bash, one unquoted variable with a space in it breaks the whole loop. "
    "Can the loop treat each line as one item?",
    "The nightly export job writes a half-empty CSV when the network drops. "
    "How can the job retry the failed batch?",
    "Every commit on the shared branch triggers a full rebuild of the documentation site. "
    "Is there a way to rebuild only the changed pages?",
])
def test_one_question_after_its_premises_is_researched_with_them(embed, question):
    # the statement is what the question is asked about, not a second thing to research
    # ("What evidence supports … the statement that the nightly export job writes …?"),
    # and the question alone leaves out what it is about ("regarding bash")
    structure = understand(question, embed)
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), ResearchConfig())
    assert structure.kind == K.OPEN and structure.research_question == question
    assert rows[0].text == question
    assert not any("statement that" in row.text or "regarding" in row.text for row in rows), rows


@pytest.mark.parametrize("question", [
    "I run two websites on one machine and users of the second site keep seeing the first "
    "one. How does nginx pick which server block answers?",
])
def test_nouns_coordinated_in_the_situation_are_no_facets_of_the_question(embed, question):
    # "one machine and users of the second site" is what led to the question, not two
    # things it asks about ("What is the one machine of the second site?")
    structure, texts = plan_of(question, embed, limit=5)
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), ResearchConfig())
    assert structure.kind != K.MULTI_FACETED, texts
    assert rows[0].text.endswith(question.rsplit(". ", 1)[1]), rows


@pytest.mark.parametrize(("question", "first"), [
    ("I'm choosing between Flask and Django for a small API. Which should I use?", "Should I use Flask?"),
    ("We run PostgreSQL and MySQL in production. Which one is easier to back up?",
     "Is PostgreSQL easier to back up?"),
    ("I use Vim and Emacs at work. Is either of them good for Git?", "Is Vim good for Git?"),
])
def test_a_question_that_picks_from_things_named_before_it_compares_them(embed, question, first):
    # "which" alone, "which one", "either of them": the things the statement named
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and len(structure.items) == 2, structure
    assert texts[0] == first, texts


def test_things_named_before_a_question_about_something_else_are_not_compared(embed):
    # "which copy" names a thing of its own, and "which" here is inside the question "how
    # does the sync decide …", not its own question word
    for question in ("I keep two laptops and a desktop in sync with one account, and copies of my "
                     "notes keep getting lost. How does the sync decide which copy wins?",
                     "I keep two laptops and a desktop in sync with one account, and copies of my "
                     "notes keep getting lost. Which copy wins?"):
        structure = understand(question, embed)
        rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), ResearchConfig())
        assert structure.kind != K.COMPARISON, [r.text for r in rows]
        assert question.rsplit(". ", 1)[1][:-1] in rows[0].text, rows


@pytest.mark.parametrize("question", [
    "I want my backups to run every Sunday at 3 am. What do I put in the crontab line?",
    "I want Apache to serve two sites from one IP address. Which directive do I need?",
])
def test_a_goal_the_question_asks_the_way_to_is_researched_with_it(embed, question):
    # the asker wants something else to act: a goal, which the question asks the way to,
    # not a second thing to research ("How can one run every Sunday at 3 am regarding …?"
    # beside "Which directive do I need?" asked alone)
    structure = understand(question, embed)
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), ResearchConfig())
    assert structure.research_question == question and rows[0].text == question, rows
    assert not any("How can one" in row.text for row in rows), rows


def test_a_question_after_a_statement_that_asks_several_things_keeps_them_apart(embed):
    # read alone, the question compares three items: the statement does not join them
    _, texts = plan_of("We're choosing a message broker for a small team. How do RabbitMQ, "
                       "Kafka and NATS compare for that kind of workload?", embed)
    assert_asked_apart(texts, ["RabbitMQ", "Kafka", "NATS"])


def test_the_asker_s_possessive_is_no_part_of_a_subject(embed):
    # "my" means the person asking: a search for "my phone" finds nothing "phone" does not
    structure, texts = plan_of("My phone keeps restarting. What should I try first?", embed)
    assert not any("my phone" in t.lower() for t in [structure.topic, *texts]), texts


@pytest.mark.parametrize(("question", "items"), [
    ("What is the difference between a soft and a hard link?", ["soft link", "hard link"]),
    ("What is the difference between an inner and an outer join?", ["inner join", "outer join"]),
    # no adjective of its own on the last member: nothing is shared
    ("Compare apt and dpkg.", ["apt", "dpkg"]),
])
def test_an_adjective_compared_alone_takes_the_noun_its_parallel_member_names(embed, question, items):
    # "a soft and a hard link": "soft" alone names nothing to research
    structure, _ = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items, structure.items


@pytest.mark.parametrize("question", [
    "Which parameter makes the server reject connections that do not use SSL?",
    "Which switch makes the linker drop unused sections from the binary?",
])
def test_asking_which_thing_brings_something_about_asks_for_no_causes(embed, question):
    # "What are the causes of the server?": the question asks for a parameter, not for causes
    structure, texts = plan_of(question, embed)
    assert structure.kind != K.CAUSAL
    assert not any("causes of" in t or "mechanisms explain" in t for t in texts), texts


@pytest.mark.parametrize(("question", "caused"), [
    ("What causes migraines?", "migraines"),
    ("What caused the collapse of the Roman Republic?", "the Roman Republic"),
])
def test_a_question_word_that_asks_what_brings_something_about_asks_its_causes(embed, question, caused):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.CAUSAL
    assert any(t.startswith("What are the causes of") and caused in t for t in texts), texts


@pytest.mark.parametrize(("question", "circumstance"), [
    ("When rebasing a long branch, how do I avoid resolving the same conflict twice?",
     "When rebasing a long branch"),
    ("When running tests in parallel, why do some fixtures fail at random?",
     "When running tests in parallel"),
])
def test_a_participle_clause_before_a_question_is_its_circumstance(embed, question, circumstance):
    # "When rebasing a long branch?" asks nothing: the clause stays with the question it sets
    structure, texts = plan_of(question, embed)
    assert structure.research_question == question
    assert all(t.startswith(circumstance + ",") for t in texts if circumstance in t), texts


@pytest.mark.parametrize("question", [
    "How should I handle time zones when scheduling meetings between European and American teams?",
    "How do I make diff ignore changes in whitespace and line endings?",
    "How can I speed up test runs for services like the billing API or the search API?",
])
def test_things_a_detail_of_the_askers_action_names_are_not_compared(embed, question):
    # one way to act is asked: the teams, the whitespace and the line endings are what the
    # action is about, not options set against each other
    structure, _ = plan_of(question, embed)
    assert structure.kind != K.COMPARISON and not structure.items, structure


@pytest.mark.parametrize(("question", "items"), [
    ("How do I choose between Redis and Memcached for caching?", ["Redis", "Memcached"]),
    ("How should I decide between PostgreSQL and MySQL for a new web app?", ["PostgreSQL", "MySQL"]),
])
def test_what_the_askers_own_verb_weighs_is_compared(embed, question, items):
    structure, _ = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items


@pytest.mark.parametrize("question", [
    "The nightly backup job fails with a timeout. How do I fix that?",
    "I accidentally deleted a branch yesterday. How do I get it back?",
    "Our report emails stopped arriving last week, although the mail server is up. What could cause that?",
    "The build passes on my laptop but fails on the CI server. Why?",
    "I upgraded the kernel and now the wireless card is gone. What went wrong?",
    "When I resize the window, the chart leaves a blank strip at the bottom. How do I get rid of it?",
])
def test_a_question_that_points_back_is_researched_with_what_it_points_to(embed, question):
    # "How do I fix that?" alone names nothing to search for, and "that" stands for what the
    # sentence before states, all of it: the question is researched whole, as asked, and its
    # statements are no claims to weigh nor a kind of their own ("I accidentally deleted it"
    # does not make the question causal)
    structure, texts = plan_of(question, embed)
    assert structure.research_question == question
    assert structure.kind == K.OPEN and not structure.facets
    assert not any("regarding" in t or "statement that" in t for t in texts), texts


@pytest.mark.parametrize(("question", "asked"), [
    ("nginx keeps returning 502 Bad Gateway after a reload, how do I fix it",
     "Nginx keeps returning 502 Bad Gateway after a reload, how do I fix it?"),
    ('docker build fails with "no space left on device", what does it mean',
     'Docker build fails with "no space left on device", what does it mean?'),
    ("the dishwasher leaves a white film on glasses, what causes that?",
     "the dishwasher leaves a white film on glasses, what causes that?"),
])
def test_a_question_that_points_back_in_the_same_sentence_is_researched_with_it(embed, question, asked):
    # the same typed as one sentence: "How do I fix 502 Bad Gateway?" lost the reload, "What
    # does docker build mean?" asked the wrong thing, and the symptom was a claim to weigh
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.OPEN and not structure.facets
    assert structure.research_question == asked
    assert not any("regarding" in t or "statement that" in t for t in texts), texts


@pytest.mark.parametrize("question", [
    # a determiner names what it points at: the question names its items
    "We are picking a filesystem for a database server. How do ext4, XFS and Btrfs compare "
    "for that kind of workload?",
    # an instruction before the question: a brief of several parts, each researched
    "Electric car sales grew fast in 2023. Analyze the drivers of that growth. What are its "
    "effects on the grid?",
])
def test_a_question_with_parts_of_its_own_is_not_researched_whole(embed, question):
    structure, texts = plan_of(question, embed)
    assert structure.research_question != question and len(texts) >= 2, texts


def test_a_question_that_names_its_subject_keeps_its_own_words(embed):
    # the situation's words would find pages about the situation, not the answer
    _, texts = plan_of("I maintain a large monorepo. How can I make git status faster, and "
                       "what does the untracked cache do?", embed)
    assert_questions(texts)
    assert not any("monorepo" in t for t in texts), texts


def test_a_short_question_about_a_pronoun_asks_about_what_it_stands_for(embed):
    _, texts = plan_of("Everyone talks about WebAssembly. What is it, and which browsers support it?", embed)
    assert "What is known about WebAssembly?" in texts, texts
    assert not any(t.endswith(" it?") for t in texts), texts


def test_a_pronoun_that_does_not_agree_with_the_topic_stands_for_what_it_is_of(embed):
    # "its" is not "the health benefits": it is the green tea they are of
    _, texts = plan_of("What are the health benefits of green tea, and what is its origin?", embed)
    assert "What is the origin of green tea?" in texts, texts


@pytest.mark.parametrize("question, expected", [
    # the tagger reads the subject as a verb ("submodules" VBZ), the parser as the subject
    ("How do submodules work, and what are their pitfalls?", "What are the pitfalls of submodules?"),
    ("How do tablespaces work, and what are their limits?", "What are the limits of tablespaces?"),
    ("How do patches work, and what are their drawbacks?", "What are the drawbacks of patches?"),
])
def test_a_subject_the_tagger_reads_as_a_verb_is_what_a_pronoun_stands_for(embed, question, expected):
    _, texts = plan_of(question, embed)
    assert expected in texts, texts


@pytest.mark.parametrize("question, verb, subject", [
    # the tagger reads the verb "do" supports as a noun ("the fsync parameter control")
    ("What does the fsync parameter control?", "control", "parameter"),
    ("What does the autovacuum daemon check?", "check", "daemon"),
    ("What does the statement_timeout parameter limit?", "limit", "parameter"),
    ("What does the archiver process check, and how often does it run?", "check", "process"),
])
def test_a_verb_that_do_supports_is_read_as_the_verb(question, verb, subject):
    doc = parse(question)
    read = next(t for t in doc if t.text == verb)
    assert read.pos_ == "VERB" and any(c.dep_ == "nsubj" and c.text == subject for c in read.children)


def test_the_pronoun_after_a_verb_read_as_a_noun_stands_for_its_subject(embed):
    _, texts = plan_of("What does the fillfactor option control and what are its possible values?", embed)
    assert "What are the possible values of the fillfactor option?" in texts, texts


@pytest.mark.parametrize("question, expected", [
    ("What is a virtual environment and how do I create one?", "How do I create a virtual environment?"),
    ("What is a savepoint and how do I roll back to one?", "How do I roll back to a savepoint?"),
])
def test_one_standing_for_an_indefinite_topic_is_replaced_by_it(embed, question, expected):
    _, texts = plan_of(question, embed)
    assert expected in texts, texts


def test_one_does_not_stand_for_a_definite_topic(embed):
    # "the GIL" is one thing: "one" asks for a lock of that kind, not for the GIL itself
    _, texts = plan_of("What is the GIL and why does Python need one?", embed)
    assert "Why does Python need one?" in texts, texts


def test_a_pronoun_subject_is_replaced_by_what_it_stands_for(embed):
    _, texts = plan_of("What does VACUUM do, why is it needed, and how does autovacuum decide "
                       "when to run?", embed)
    assert texts == ["What does VACUUM do?", "Why is VACUUM needed?",
                     "How does autovacuum decide when to run?"]


# "Who did X, and how did it …?": the second question's "it" is the first one's object, and
# a first question too short to stand alone is researched within the whole
def test_a_question_about_who_did_something_is_about_what_they_did(embed):
    structure, texts = plan_of("Who invented the telephone and how did it change communication in America?",
                               embed)
    assert structure.kind == K.MULTI_FACETED and structure.topic == "the telephone"
    assert texts == ["Who invented the telephone?", "How did the telephone change communication in America?"]


def test_a_short_first_question_is_researched_within_the_whole(embed):
    structure, texts = plan_of("Who discovered penicillin and how did it change medicine?", embed)
    assert not structure.is_simple
    assert texts == ["Who discovered penicillin and how did it change medicine?",
                     "How did penicillin change medicine?"]


def test_a_phrase_that_frames_the_text_is_what_its_pronouns_stand_for(embed):
    # "Regarding X, …": the later "recent court cases" is not what "it" stands for
    structure, texts = plan_of("Regarding the Digital Services Act, I'd like to understand who it "
                               "applies to, what the fines are, and lessons from recent court cases.", embed)
    assert structure.topic == "the Digital Services Act"
    assert texts and all("Digital Services Act" in t for t in texts), texts


# ---- causal, temporal, evaluative ------------------------------------------------------------------
def test_a_causal_question_asks_for_the_factors(embed):
    structure, texts = plan_of("Why did the Roman Empire fall?", embed)
    assert structure.kind == K.CAUSAL
    assert_questions(texts)
    assert texts[0] == "Why did the Roman Empire fall?"
    assert texts[1] == "What factors led the Roman Empire to fall?"


def test_a_why_question_whose_verb_is_tagged_a_noun_asks_for_its_factors(embed):
    # the small tagger reads "purr" as a noun; its auxiliary makes it the verb
    structure, texts = plan_of("Why do cats purr?", embed)
    assert structure.kind == K.CAUSAL and structure.reason_for == "cats to purr"
    assert "What factors led cats to purr?" in texts and "What are the causes of cats?" not in texts


@pytest.mark.parametrize(("question", "caused"), [
    ("What caused the sinking of the Titanic in 1912?", "the sinking of the Titanic"),
    ("What triggered the fall of the Berlin Wall?", "the fall of the Berlin Wall"),
])
def test_what_a_question_asks_the_causes_of_is_its_verbs_object_whole(embed, question, caused):
    # "What are the causes of the Titanic?" took the name inside the object for it
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.CAUSAL and structure.topic == caused
    assert f"What are the causes of {caused}?" in texts, texts


def test_a_why_question_whose_verb_is_read_into_its_subject_asks_for_its_factors(embed):
    # the parser reads "experience" as a noun of "the Soviet Union experience food
    # shortages"; "did" has no verb until it is found
    structure, texts = plan_of("Why did the Soviet Union experience food shortages in the 1980s?", embed)
    assert structure.kind == K.CAUSAL
    assert structure.reason_for == "the Soviet Union to experience food shortages in the 1980s"
    assert "What factors led the Soviet Union to experience food shortages in the 1980s?" in texts, texts


@pytest.mark.parametrize(("question", "reason"), [
    # a passive keeps its voice ("git push to reject" says the push rejects)
    ("Why is git push rejected?", "git push to be rejected"),
    ("Why was the old bridge closed?", "the old bridge to be closed"),
    # the parse hangs a negated progressive, with its subject, on its auxiliary
    ("Why is my SQLite database file not shrinking after I delete rows?",
     "my SQLite database file not to shrink after I delete rows"),
])
def test_a_why_question_asks_for_what_led_to_its_verb_in_its_voice(question, reason):
    assert asked_reason(question, parse(question)) == reason


@pytest.mark.parametrize(("question", "reason"), [
    ("Why does the build not finish on Windows?", "the build not to finish on Windows"),
    ("Why doesn't the server start after an upgrade?", "the server not to start after an upgrade"),
    ("Why isn't the lake frozen in winter?", "the lake not to be frozen in winter"),
])
def test_a_negated_why_question_asks_for_what_led_to_the_negation(question, reason):
    assert asked_reason(question, parse(question)) == reason


@pytest.mark.parametrize(("question", "event"), [
    ("What happens if the main power supply fails?", "the main power supply fails"),
    ("What happens when a disk fills up completely?", "a disk fills up completely"),
])
def test_what_happens_when_an_event_occurs_asks_for_its_consequences(embed, question, event):
    # the event is asked about, not the causes of its subject ("the causes of a disk")
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.CAUSAL and structure.outcome_of == event
    assert_questions(texts)
    assert any(t.startswith("What are the consequences") and event in t for t in texts), texts
    assert not any("causes of" in t for t in texts), texts


@pytest.mark.parametrize("question", ["What are the side effects of long-term aspirin use?",
                                      "What are the health consequences of chronic stress?",
                                      "How does alcohol affect the liver?"])
def test_a_question_about_effects_asks_for_the_mechanisms_not_the_causes(embed, question):
    # "What are the causes of the side effects of …?" asks nothing the question does
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.CAUSAL and structure.asks_effects
    assert_questions(texts)
    assert any("mechanisms" in t for t in texts), texts
    assert not any("causes of" in t or "factors led" in t for t in texts), texts


def test_a_question_about_causes_still_asks_for_them(embed):
    structure, texts = plan_of("What causes tooth decay?", embed)
    assert structure.kind == K.CAUSAL and not structure.asks_effects
    assert "What are the causes of tooth decay?" in texts


def test_a_bare_question_word_after_offered_alternatives_is_no_alternative(embed):
    # "why" is coordinated with the names by the parse; the question, asked whole, asks it
    question = "Which browser uses less memory, Firefox, Chrome or Safari, and why?"
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == ["Firefox", "Chrome", "Safari"]
    assert texts[0] == question
    assert texts[1:] == ["Does Firefox use less memory?", "Does Chrome use less memory?",
                         "Does Safari use less memory?"]


@pytest.mark.parametrize(("question", "expected"), [
    ("Which European countries recycle the most plastic, and why?",
     ["Which European countries recycle the most plastic?",
      "Why do these European countries recycle the most plastic?"]),
    ("Which startups grew fastest in 2023, and how?",
     ["Which startups grew fastest in 2023?", "How did these startups grow fastest in 2023?"]),
    # one thing found is "this"; a question word that asks what the copula's noun is
    ("Which city has the cleanest air, and why?",
     ["Which city has the cleanest air?", "Why does this city have the cleanest air?"]),
    ("What are the safest cars for teenagers, and why?",
     ["What are the safest cars for teenagers?", "Why are these the safest cars for teenagers?"]),
])
def test_a_bare_question_word_after_a_question_asks_it_again(embed, question, expected):
    # "…, and why?" asks the reason of what the question finds, not a history of its subject
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert texts == expected


@pytest.mark.parametrize(("question", "topic"), [
    # who speaks, a common noun, is not what the question is about
    ("What do historians think about the causes of the French Revolution?",
     "the causes of the French Revolution"),
    ("What does recent research say about microplastics in drinking water?",
     "microplastics in drinking water"),
    # what is said about is a clause
    ("What do teachers think about phones being banned in schools?", "phones being banned in schools"),
    # a named speaker is: what Keynes said is asked about Keynes
    ("What did Keynes write about unemployment?", "Keynes"),
])
def test_what_people_say_about_something_is_about_that_thing(embed, question, topic):
    assert understand(question, embed).topic == topic


@pytest.mark.parametrize(("question", "topic"), [
    ("What is a load balancer for?", "a load balancer"),
    ("What is the reflog for?", "the reflog"),
])
def test_a_preposition_left_at_the_end_completes_nothing(embed, question, topic):
    # "What is X for?": the stranded "for" is no part of the subject the templates name
    assert understand(question, embed).topic == topic


def test_a_template_names_its_subject_with_its_article(embed):
    structure, texts = plan_of("How did the steam engine change British industry?", embed)
    assert structure.kind == K.TEMPORAL
    assert all("the steam engine" in t for t in texts), texts
    # a superlative takes its article with it: the topic is what it is said of
    assert not understand("What is the best editor for writing Rust?", embed).topic.startswith("the")


@pytest.mark.parametrize(("question", "expected"), [
    ("What are the arguments for and against rent control?",
     ["What are the arguments for rent control?", "What are the arguments against rent control?"]),
    ("How did wages change before and after the 2015 minimum wage increase?",
     ["How did wages change before the 2015 minimum wage increase?",
      "How did wages change after the 2015 minimum wage increase?"]),
])
def test_two_prepositions_sharing_an_object_ask_one_question_each(embed, question, expected):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert texts == expected


# a yes/no question asks whether a statement holds: the evidence for and against it
@pytest.mark.parametrize(("question", "statement"), [
    ("Does coffee cause dehydration?", "coffee causes dehydration"),
    ("Can AI replace radiologists?", "AI can replace radiologists"),
    ("Is nuclear power safe?", "nuclear power is safe"),  # the parse makes the subject an attribute
    # the parse hangs "worth" on the subject as its modifier: it opens what is said of it
    ("Is Elixir worth learning for web development?", "Elixir is worth learning for web development"),
])
def test_a_yes_no_question_weighs_the_statement_it_asks_about(embed, question, statement):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.EVALUATIVE and structure.claim == statement
    assert_questions(texts)
    assert texts[0] == question
    assert any(statement in t and "supports" in t for t in texts), texts
    assert any(statement in t and "contradicts" in t for t in texts), texts


@pytest.mark.parametrize(("question", "statement"), [
    ("What is the evidence that screen time harms children's sleep?", "screen time harms children's sleep"),
    ("Is there any proof that cracking knuckles causes arthritis?", "cracking knuckles causes arthritis"),
    ("Is it true that goldfish have a three-second memory?", "goldfish have a three-second memory"),
])
def test_a_statement_given_in_a_clause_of_the_question_is_weighed(embed, question, statement):
    # the clause completes the noun or verb the question asks about ("the evidence that …")
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.EVALUATIVE and structure.claim == statement
    assert any(statement in t and "supports" in t for t in texts), texts
    assert any(statement in t and "contradicts" in t for t in texts), texts


@pytest.mark.parametrize(("question", "statement"), [
    ("Is an MBA worth it if I already have an engineering degree and five years of management experience?",
     "an MBA is worth it if I already have an engineering degree and five years of management experience"),
    ("Is a home battery worth it if I already have solar panels and a heat pump?",
     "a home battery is worth it if I already have solar panels and a heat pump"),
])
def test_what_the_asker_already_has_is_the_condition_of_the_statement_weighed(embed, question, statement):
    # the things the asker has are no facets ("What is the engineering degree of management
    # experience?") nor things compared ("What is known about solar panels?")
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.EVALUATIVE and structure.claim == statement
    assert not structure.items and not structure.facets
    assert_questions(texts)


def test_a_clause_holding_the_question_word_states_nothing(embed):
    assert understand("The ruling held that the use of what test was constitutional?", embed).claim == ""


@pytest.mark.parametrize("question", [
    "Should I learn Rust in 2025?",  # asks the asker's advice
    "Are Python and Ruby both interpreted languages?",  # of two things: a comparison's
    "Is git gc safe to run while other git commands are running?",  # the parse cuts the subject short
])
def test_a_yes_no_question_about_the_asker_or_several_things_states_nothing(embed, question):
    assert understand(question, embed).claim == ""


def test_a_yes_no_question_the_parse_cannot_restate_is_researched_as_asked(embed):
    # the small parser reads "git" as the verb: no statement, and no history template
    structure, texts = plan_of("Does git rebase rewrite history?", embed)
    assert structure.kind == K.OPEN and structure.claim == ""
    assert texts == []  # planned from the knowledge base, like any open question


def test_a_temporal_question_is_followed_over_time(embed):
    structure, texts = plan_of("How has remote work changed since 2020?", embed)
    assert structure.kind == K.TEMPORAL
    assert_questions(texts)
    assert all("remote work" in t for t in texts)


@pytest.mark.parametrize("kind", [K.TEMPORAL, K.CAUSAL, K.EVALUATIVE])
def test_a_templated_kind_with_no_subject_is_left_to_the_knowledge_base(kind):
    # the templates would be filled with the whole question ("How did How did … originate?")
    question = "How did the printing press change things?"
    assert decompose(QuestionStructure(text=question, kind=kind), 5) == []
    rows = decompose(QuestionStructure(text=question, kind=kind, topic="the printing press",
                                       asks_itself=True, weighs_options=True), 5)
    assert len(rows) >= 2 and all(question not in row.text for row in rows[1:]), rows


def test_only_a_question_that_weighs_options_gets_the_option_templates():
    # an instruction the encoder reads as evaluative ("Summarize the key findings of X")
    # weighs no options: it is researched like an open question
    asked = QuestionStructure(text="What is the best CI service for a small team?", kind=K.EVALUATIVE,
                              topic="CI service", asks_itself=True, weighs_options=True)
    told = QuestionStructure(text="Summarize the key findings of the annual security report",
                             kind=K.EVALUATIVE, topic="the annual security report", asks_itself=False)
    assert any("options" in row.text for row in decompose(asked, 5))
    assert decompose(told, 5) == []


@pytest.mark.parametrize("question", [
    "How do I upgrade Node.js from version 18 to 20?",
    "How can we move our mail server from Exim to Postfix over the next year?",
])
def test_the_asker_s_own_procedure_is_not_followed_over_time(embed, question):
    # the versions and dates read as a history; the asker asks how to act
    structure, texts = plan_of(question, embed)
    assert structure.kind != K.TEMPORAL
    assert not any("originate" in t for t in texts), texts


def test_an_evaluative_question_gets_one_sub_question_per_position_and_the_evidence(embed):
    question = ("Three experts disagree on climate tipping points: Expert A cites 2030 deadline, "
                "Expert B cites 2050, Expert C says timelines are unknowable. Evaluate each "
                "position and explain which evidence is stronger and why.")
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.EVALUATIVE
    assert structure.positions == ["Expert A", "Expert B", "Expert C"]
    assert_questions(texts)
    assert len(texts) == 4
    assert all("climate tipping points" in t for t in texts)


def test_a_best_option_question_is_evaluative_not_a_chain(embed):
    """"a startup that needs to scale" describes a kind of startup; it is no hop."""
    structure, texts = plan_of("What is the best database for a startup that needs to scale quickly?",
                               embed)
    assert structure.kind == K.EVALUATIVE and not structure.clauses
    assert_questions(texts)


def test_a_best_option_question_weighs_the_options_of_its_kind(embed):
    structure, texts = plan_of("What is the best database for a startup that needs to scale quickly?",
                               embed)
    assert structure.weighs_options
    assert any(t.startswith("What are the main options for ") for t in texts), texts


@pytest.mark.parametrize("question", [
    "Should we keep using Jenkins for a team of five developers?",
    "Are Prague and Vienna both on the Danube?",
])
def test_a_judgement_that_asks_for_no_option_weighs_none(embed, question):
    # "What are the main options for Jenkins?", "Which criteria matter when judging Prague?"
    # asked what the question does not
    structure, texts = plan_of(question, embed)
    assert not structure.weighs_options
    assert not any("main options" in t or "criteria matter" in t or "each option" in t for t in texts), texts


@pytest.mark.parametrize(("question", "action"), [
    ("Is there a way to see the full history of a single file in git?",
     "see the full history of a single file in git"),
    ("Is there a command to list all tables in SQLite?", "list all tables in SQLite"),
])
def test_whether_a_means_exists_asks_how_to_do_it(embed, question, action):
    # "What evidence supports the statement that there is a way to …" weighs nothing
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.OPEN and not structure.claim
    assert structure.action == action
    assert not any("evidence" in t for t in texts), texts


def test_whether_a_thing_exists_without_an_action_is_still_a_claim(embed):
    structure = understand("Is there a limit on the number of columns in a table?", embed)
    assert structure.claim == "there is a limit on the number of columns in a table"


# ---- nested chains -------------------------------------------------------------------------------
def test_a_nested_question_is_read_as_a_chain_of_clauses(embed):
    question = "Which river flows through the capital of the country where the Eiffel Tower stands?"
    structure = understand(question, embed)
    assert structure.kind == K.CHAIN
    assert structure.clauses == ["Which river flows through the capital of the country",
                                 "the Eiffel Tower stands"]
    assert structure.anchor == "the country where the Eiffel Tower stands"
    assert structure.asked_kind == "country"
    assert decompose(structure, 5) == []  # its hops come from the knowledge base


@pytest.mark.parametrize(("question", "anchor"), [
    ("What was the nickname of the hitman hired by the Mafia?", "the hitman hired by the Mafia"),
    ("Who is the spouse of the actor playing the father in the new film?",
     "the actor playing the father in the new film"),
    ("Who founded the company that makes the drone?", "the company that makes the drone"),
])
def test_reduced_and_relative_clauses_nest(embed, question, anchor):
    structure = understand(question, embed)
    assert structure.kind == K.CHAIN and structure.anchor == anchor


@pytest.mark.parametrize("question", [
    "What happened to the city during the war?",
    "In True Grit, who did the star play?",
    "Who built the first building?",
])
def test_no_chain_without_a_nested_clause(embed, question):
    structure = understand(question, embed)
    assert structure.kind != K.CHAIN and structure.anchor is None


def test_hop_terms_ask_next_for_the_clause_just_outside_the_answered_one(embed):
    structure = understand("Which county shares a border with the county where the most populous "
                           "city in the state where WXYZ can be found is located?", embed)
    assert len(structure.clauses) == 3
    anchor_passage = content_terms("WXYZ is a radio station licensed to Cochran, Georgia.")
    assert hop_terms(structure.clauses, anchor_passage)[:4] == ["most", "populous", "city", "state"]
    middle_passage = content_terms("Atlanta is the most populous city in the state of Georgia.")
    terms = hop_terms(structure.clauses, middle_passage)
    assert terms[:3] == ["county", "shares", "border"]
    assert not set(terms) & middle_passage
    assert hop_terms(["Where was Vivien Leigh born"], set()) == ["vivien", "leigh", "born"]
    assert hop_terms([], set()) == [] and hop_terms(["?"], set()) == []


# ---- single facts, names, other languages, odd input --------------------------------------------
@pytest.mark.parametrize("question", ["What is quantum computing?", "When was the Golden Gate Bridge built?",
                                      "Who wrote the novel Middlemarch?"])
def test_a_single_fact_is_simple(embed, question):
    structure = understand(question, embed)
    assert structure.kind == K.SINGLE_FACT and structure.is_simple
    assert decompose(structure, 5) == []


# the whole question's likeness to the kinds leans on its subject ("founded", "signed",
# "fall" read as history or causes); what the asking words ask for does not
@pytest.mark.parametrize("question", ["Who founded the Wikimedia Foundation?", "Who invented the telephone?",
                                      "Which company makes the Raspberry Pi?",
                                      "What year did the Berlin Wall fall?",
                                      "When did the Apollo program end?",
                                      "What port does the Redis server listen on by default?",
                                      # an infinitive describes the person asked for, nothing nests
                                      "Who was the first person to climb Mount Everest?"])
def test_a_question_asking_for_one_thing_is_a_single_fact(embed, question):
    structure = understand(question, embed)
    assert structure.kind == K.SINGLE_FACT and structure.is_simple


# how to do something asks for steps the sources give: not for the causes of its object
# ("What are the causes of the last commit?") nor for options and criteria
@pytest.mark.parametrize("question", ["How can I copy files to a remote server?",
                                      "How do I resolve a DNS lookup error?",
                                      "How do I undo the last commit without losing my changes?",
                                      # the encoder puts these nearer the evaluative kind
                                      "How can I reduce my electricity bill?",
                                      "How can I improve my sleep?",
                                      "How do I squash several commits into one?",
                                      "How can our team reduce cloud costs?",
                                      # read whole, these lean on causes ("crash", "failure")
                                      "How do I rebuild an index after a crash?",
                                      "How can I recover my data after a disk failure?",
                                      "How should I clean up after a failed migration?"])
def test_a_how_to_question_asks_for_steps(embed, question):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.OPEN, structure.kind
    assert not any("causes" in t or "criteria" in t or "options" in t or "mechanisms" in t
                   for t in texts), texts


# the background of a how-to question is on doing what it asks, not on a name it mentions
# ("What background is needed to understand Ubuntu?")
@pytest.mark.parametrize("question, action", [
    ("How do I mount a network share on Ubuntu?", "mount a network share on Ubuntu"),
    ("How can I rotate the log files of nginx every week?", "rotate the log files of nginx every week"),
])
def test_the_background_of_a_how_to_question_is_on_the_action(embed, question, action):
    structure = understand(question, embed)
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), ResearchConfig())
    texts = [row.text for row in rows]
    assert texts[0] == question and any(action in t for t in texts[1:]), texts
    assert not any(t.endswith(("understand Ubuntu?", "understand nginx?")) for t in texts), texts


# a contrast joins a condition to the action, not a second action: "How do I keep …?"
# alone asks nothing, and the background is on the action the condition is set on
@pytest.mark.parametrize("question, action, condition", [
    ("How can I shrink the database file but keep every row?", "shrink the database file", "keep"),
    ("How do I rename a branch on the server but keep its upstream?", "rename a branch on the server",
     "keep"),
    ("How do I speed up the build yet still produce debug symbols?", "speed up the build", "produce"),
])
def test_a_condition_joined_by_a_contrast_stays_with_its_action(embed, question, action, condition):
    structure = understand(question, embed)
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), ResearchConfig())
    texts = [row.text for row in rows]
    assert structure.action == action, structure.action
    assert not any(condition in t and action not in t for t in texts), texts
    assert any(t.endswith(f"needed to {action}?") for t in texts), texts


# a clause the parser makes a conjunct with nothing joining it ("… so apt upgrade won't
# replace it") is the purpose of the one action, not a second action ("How do I won't …?")
@pytest.mark.parametrize("question", [
    "How do I hold a package at its current version so apt upgrade won't replace it",
    "How do I keep a file out of the repo so git status won't list it",  # a guard: so before
])
def test_a_purpose_clause_the_parse_joins_without_a_conjunction_is_no_second_action(embed, question):
    structure = understand(question, embed)
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), ResearchConfig())
    texts = [row.text for row in rows]
    assert not any(t.startswith("How do I won't") for t in texts), texts
    assert texts[0] == question + "?", texts  # the question researched as asked, whole


# asking why the asker meets a problem asks no background on meeting it
@pytest.mark.parametrize("question", ["Why do I get a timeout error when connecting to the server?",
                                      "Why does my laptop keep overheating after an update?"])
def test_a_why_question_about_the_asker_has_no_background_of_an_action(embed, question):
    structure = understand(question, embed)
    rows, _ = offline_decomposition(question, structure, SimpleNamespace(kb=None), ResearchConfig())
    assert structure.action == "" and not any("needed to get" in r.text or "needed to keep" in r.text
                                                for r in rows), rows


# …while the asker asking why keeps the reason asked for
@pytest.mark.parametrize("question", ["Why am I seeing timeouts after the upgrade?",
                                      "Why am I getting connection refused errors from the server?",
                                      # asked of the asker's own thing: the asking words end
                                      # at "my" ("my laptop" reads as its subject matter)
                                      "Why does my laptop keep overheating after an update?"])
def test_the_asker_asking_why_asks_for_causes(embed, question):
    assert understand(question, embed).kind == K.CAUSAL


# a question word that asks for a thing asks which option to take, whoever acts
@pytest.mark.parametrize("question", ["Which framework should we learn for a small web app?"])
def test_asking_which_thing_the_asker_should_take_weighs_options(embed, question):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.EVALUATIVE, structure.kind
    assert any("options" in t for t in texts), texts


# a query typed as a noun phrase, as into a search box, asks for the thing its head names;
# a question asking what a thing is asks one thing, as "What is quantum computing?" does,
# whatever the encoder makes of "What is a"
@pytest.mark.parametrize("question", ["population of Tokyo", "inventor of the telephone",
                                      "release date of Debian 12", "default memcached port",
                                      "What is a sparse checkout?", "What are hard links?",
                                      "What is an inode?", "What's a reverse proxy?"])
def test_a_thing_named_or_asked_what_it_is_is_a_single_fact(embed, question):
    structure = understand(question, embed)
    assert structure.kind == K.SINGLE_FACT and structure.is_simple


# …and one that names a topic is researched from several angles, as is a question asking
# more than what a thing is
@pytest.mark.parametrize("question", ["history of the printing press",
                                      "side effects of statins in older adults",
                                      "evolution of jazz in the twentieth century",
                                      "What is a sparse checkout and when should I use one?",
                                      "What is the history of the printing press?",
                                      "What are the benefits and risks of intermittent fasting?"])
def test_a_topic_named_or_more_asked_is_no_single_fact(embed, question):
    assert understand(question, embed).kind != K.SINGLE_FACT


@pytest.mark.parametrize("question", [
    "How has remote work changed city centres?",  # asks how: an explanation
    "Which languages are easiest to learn and why?",  # two things asked
    "Is there a standard way to rank bidders who have private values?",  # "who" opens a relative clause
    # asks how, with a verb the tagger reads as a noun ("evolve")
    "How did web frameworks evolve from CGI scripts to serverless functions?",
])
def test_a_question_that_asks_more_than_one_thing_is_no_single_fact(embed, question):
    assert understand(question, embed).kind != K.SINGLE_FACT


def test_a_comma_list_the_recogniser_took_as_one_name_is_still_a_list(embed):
    doc = parse("What default port do Postgres, Memcached and RabbitMQ listen on?")
    assert doc is not None
    assert asks_for_a_thing(doc, embed) is False
    names = doc[4:9]  # "Postgres, Memcached and RabbitMQ", as the small recogniser may take it
    doc.ents = [Span(doc, names.start, names.end, label="ORG")]
    assert asks_for_a_thing(doc, embed) is False


def test_the_asked_noun_is_the_head_of_the_words_after_the_question_word():
    noun = asked_noun(parse("In which Ubuntu release did Wayland become the default session?"))
    assert noun is not None and noun.text == "release"
    assert asked_noun(parse("How did web frameworks evolve from CGI scripts?")) is None


def test_names_come_from_the_parser(embed):
    structure = understand("Who played the king in The King's Speech after Colin Firth left?", embed)
    assert "Colin Firth" in structure.entities
    assert understand("what causes ocean tides?", embed).entities == []


def test_a_question_without_names_still_gets_a_topic(embed):
    structure = understand("How do plants absorb water, and what limits the rate?", embed)
    assert structure.topic
    texts = [row.text for row in decompose(structure, 5)]
    assert all(t.endswith("?") for t in texts)


@pytest.mark.parametrize("question", [
    "Welche Ursachen hat der Klimawandel und welche Folgen?",
    "Quelles sont les causes du changement climatique ?",
    "¿Cuáles son las causas del cambio climático?",
    "Klimawandel: Ursachen, Folgen, Lösungen",
    "Cambiamento climatico: cause, effetti e soluzioni",
    "气候变化的原因是什么？",
    # a few function words in common with English, more of their own
    "Wat zijn de voordelen van Rust ten opzichte van C++ en Go?",
    "Quais são as causas e consequências da inflação no Brasil?",
    "🙂🙂🙂", "", "   ",
])
def test_a_question_in_another_language_is_researched_as_it_stands(embed, question):
    structure = understand(question, embed)
    assert structure.english is False and structure.kind == K.OPEN
    assert decompose(structure, 5) == []


def test_a_terse_english_instruction_is_read_as_english(embed):
    # one English function word in nine, and no other language's
    structure = understand("Research the European energy market, covering: 1) gas prices; "
                           "2) power grids; 3) renewables.", embed)
    assert structure.english is True and structure.kind == K.MULTI_FACETED
    texts = [row.text for row in decompose(structure, 5)]
    assert_questions(texts)
    for item in ("gas prices", "power grids", "renewables"):
        assert any(item in t for t in texts), texts


def test_an_english_brief_in_headline_style_is_read_as_english(embed):
    structure = understand("Research Topic: Urban Heat Islands in Coastal Cities. Objective: "
                           "Investigate current mitigation measures and compare their costs.", embed)
    assert structure.english is True
    texts = [row.text for row in decompose(structure, 5)]
    assert_questions(texts)
    assert any("mitigation measures" in t for t in texts), texts
    assert not any("Objective" in t or "Topic" in t or "Investigate" in t for t in texts), texts


def test_a_very_long_question_is_bounded(embed):
    question = " ".join(["Explain how the harbour's tides, currents, winds and sediment interact, "
                         "and what engineers can do about silting."] * 30)
    _, texts = plan_of(question, embed)
    assert len(texts) <= 5
    assert all(t.endswith("?") for t in texts)


def test_a_research_brief_of_several_sentences_is_split_into_whole_questions(embed):
    brief = ("Research the growth of community solar projects in rural regions of Europe, and "
             "their effects on household energy bills. Explain the policy instruments that "
             "encouraged them. What obstacles do cooperatives face when they connect to the grid?")
    structure, texts = plan_of(brief, embed)
    assert structure.kind == K.MULTI_FACETED and structure.sentences == 3
    assert_questions(texts)
    assert any("policy instruments" in t for t in texts)
    assert any("obstacles" in t for t in texts)


@pytest.mark.parametrize(("brief", "subject"), [
    ("Write an essay on the decline of coral reefs in the Indian Ocean. Explain the role of "
     "ocean warming.", "the decline of coral reefs"),
    ("Prepare a short white paper analysing ransomware attacks on hospitals. Describe how "
     "hospitals recover.", "ransomware attacks on hospitals"),
    ("I need help drafting a dissertation chapter about monetary policy in small open "
     "economies. What instruments do central banks use?", "monetary policy in small open economies"),
])
def test_a_piece_of_writing_asked_for_gives_way_to_its_subject(embed, brief, subject):
    _, texts = plan_of(brief, embed)
    assert_questions(texts)
    assert any(subject in t for t in texts), texts
    assert not any(word in t for t in texts for word in ("essay", "white paper", "dissertation"))


def test_a_subject_that_is_not_a_piece_of_writing_is_kept_whole(embed):
    _, texts = plan_of("Research the history of Lisbon's tram network, and explain its "
                       "effects on the city's growth.", embed)
    assert any("history of Lisbon's tram network" in t for t in texts), texts


@pytest.mark.parametrize(("brief", "asked"), [
    ("Analyze the causes of urban flooding. Conclude with proposed policy measures or recommendations.",
     ["proposed policy measures", "recommendations"]),
    ("Summarize the evidence on intermittent fasting and finish with practical advice for beginners.",
     ["practical advice for beginners"]),
])
def test_what_a_brief_asks_to_conclude_with_is_researched(embed, brief, asked):
    # recommendations, guidelines and advice are what the text asks to find, not the writing
    structure, texts = plan_of(brief, embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    for part in asked:
        assert any(part in t for t in texts), texts


def test_what_a_brief_asks_for_last_is_not_what_the_rest_is_about(embed):
    # "… regarding practical guidelines" asked nothing more of the costs
    _, texts = plan_of("Examine the costs of blackouts in hospitals and conclude with practical "
                       "guidelines.", embed)
    assert "What is known about the costs of blackouts in hospitals?" in texts, texts
    # and what it asks for last is asked about what it opens with
    assert any("practical guidelines" in t and "blackouts in hospitals" in t for t in texts), texts


def test_an_instruction_about_an_embedded_question_keeps_its_question_word(embed):
    _, texts = plan_of("Explain how tides form. Describe what the Moon adds to them.", embed)
    assert_questions(texts)
    # the clause with a subject of its own is asked as the question it embeds
    assert "How do tides form?" in texts and any("what the Moon adds" in t for t in texts), texts


@pytest.mark.parametrize(("brief", "question"), [
    ("Describe how volcanoes form. Explain what happens when magma reaches the surface.",
     "What happens when magma reaches the surface?"),
    ("How do bees navigate? I'd also like to know what happens to a hive in winter.",
     "What happens to a hive in winter?"),
])
def test_a_clause_whose_question_word_is_its_subject_is_asked_as_it_stands(embed, brief, question):
    _, texts = plan_of(brief, embed)
    assert question in texts, texts


def test_a_clause_that_names_its_own_subject_is_not_asked_about_another(embed):
    # "… how coral reefs recover regarding practical advice for reef managers" asked nothing more
    _, texts = plan_of("Describe how coral reefs recover after bleaching. Conclude with practical "
                       "advice for reef managers.", embed)
    assert "What is known about how coral reefs recover after bleaching?" in texts, texts


def test_an_introductory_phrase_stays_with_its_question(embed):
    brief = ("Glaucoma often goes unnoticed. Furthermore, for people over sixty with a family "
             "history of it, which screening tests should be done every year? What treatments "
             "slow its progression?")
    _, texts = plan_of(brief, embed)
    assert_questions(texts)
    assert any(t.startswith("For people over sixty") and "which screening tests" in t for t in texts), texts
    assert not any(t.startswith("Furthermore") or t.startswith("What is known about For") for t in texts)


def test_a_brief_is_about_what_the_whole_text_means_not_who_asks(embed):
    brief = ("As a hospital procurement manager, write a report on the reliability of infusion "
             "pumps in intensive care units. Cover failure rates and maintenance costs.")
    structure, texts = plan_of(brief, embed)
    assert_questions(texts)
    assert "infusion pumps" in structure.topic and "manager" not in structure.topic
    assert all("infusion pumps" in t for t in texts), texts
    # every member of a list keeps its head noun ("maintenance costs", not "maintenance")
    assert any("failure rates" in t for t in texts) and any("maintenance costs" in t for t in texts), texts


def test_a_part_that_does_not_name_the_subject_is_asked_about_it(embed):
    _, texts = plan_of("Investigate the adoption of heat pumps in Scandinavian homes. Also "
                       "consider other relevant factors.", embed)
    factors = [t for t in texts if "other relevant factors" in t]
    assert factors and all("heat pumps" in t for t in factors), texts


def test_a_statement_about_the_report_is_an_instruction(embed):
    brief = ("Analyze the safety record of lithium-ion batteries in electric buses. Your analysis "
             "should integrate thermal runaway mechanisms and fire-suppression standards.")
    _, texts = plan_of(brief, embed)
    assert_questions(texts)
    assert not any("your analysis" in t.lower() or "statement that" in t for t in texts), texts
    assert any("thermal runaway mechanisms" in t for t in texts), texts
    assert any("fire-suppression standards" in t for t in texts), texts


def test_a_noun_the_parser_hangs_on_a_verb_as_its_conjunct_does_not_cut_the_instruction():
    # the small parser sometimes reads "…, and the Americas" as a third instruction beside
    # "Research and analyze": coordination joins like with like, so it stays in its list
    words = ["Research", "and", "analyze", "paths", "in", "Europe", ",", "Asia", ",", "and",
             "the", "Americas", "after", "1945"]
    heads = [0, 0, 0, 2, 3, 4, 5, 5, 0, 0, 11, 0, 11, 12]
    deps = ["ROOT", "cc", "conj", "dobj", "prep", "pobj", "punct", "conj", "punct", "cc", "det",
            "conj", "prep", "pobj"]
    pos = ["VERB", "CCONJ", "VERB", "NOUN", "ADP", "PROPN", "PUNCT", "PROPN", "PUNCT", "CCONJ",
           "DET", "PROPN", "ADP", "NUM"]
    doc = Doc(Vocab(), words=words, heads=heads, deps=deps, pos=pos, sent_starts=[True] + [False] * 13)
    units = [u.text for u in coordinated_units(doc[:])]
    assert units == ["analyze paths in Europe , Asia , and the Americas after 1945"], units


def test_a_plural_pronoun_is_not_replaced_by_a_singular_topic(embed):
    structure = understand("How does the city council set its budget, and what do residents "
                           "say about their taxes?", embed)
    # "its" is bound inside its own clause, which names the council: the question stands alone
    assert any(f.text == "How does the city council set its budget?" for f in structure.facets)
    assert any("their taxes" in f.text for f in structure.facets), structure.facets


@pytest.mark.parametrize(("question", "expected"), [
    # an object pronoun: the object before it, not the named topic
    ("How does PostgreSQL handle deadlocks, and how can I avoid them?", "How can I avoid deadlocks?"),
    ("What does Docker do with volumes and how do I back them up?", "How do I back volumes up?"),
    # a subject pronoun with no subject it could be: the plural noun before it
    ("How does Redis store keys, and when do they expire?", "When do keys expire?"),
])
def test_a_plural_pronoun_a_singular_name_cannot_be_is_a_plural_before_it(embed, question, expected):
    """A name's tag does not say its number ("Kubernetes" is tagged plural); one written
    without "the" is one thing, and "them" is not it."""
    _, texts = plan_of(question, embed)
    assert expected in texts, texts


@pytest.mark.parametrize(("question", "expected", "kept"), [
    # "them" with no plural before it is one person, the one the clause before acted on
    ("How do I add a new user and give them sudo rights?", "How do I give a new user sudo rights?", ""),
    ("How do I hire a contractor and pay them?", "How do I pay a contractor?", ""),
    # after a preposition the noun in that role is seldom the one meant, and a subject's
    # verb agrees with "they": both are left as written
    ("How do I tell my manager about the outage and what should I say to them?", "", "them"),
    ("How do I configure the firewall and what do they block?", "", "they"),
])
def test_a_singular_them_is_the_object_before_it(embed, question, expected, kept):
    _, texts = plan_of(question, embed)
    assert (expected in texts) if expected else any(kept in t.rstrip("?").split() for t in texts), texts


def test_a_name_written_as_a_plural_is_what_a_plural_pronoun_stands_for(embed):
    _, texts = plan_of("How did the Beatles write songs, and why did they split?", embed)
    assert "Why did the Beatles split?" in texts, texts


def test_the_structure_survives_the_checkpointer(embed):
    structure = understand("Compare Kafka and RabbitMQ for event streaming", embed)
    stored = structure.to_dict()
    assert type(stored["kind"]) is str and json.loads(json.dumps(stored)) == stored  # no custom types
    again = QuestionStructure.from_dict(stored)
    assert again == structure
    assert QuestionStructure.from_dict({**structure.to_dict(), "unknown": 1}) == structure
    assert QuestionStructure.from_dict(None, "q").english is False


# ---- lists, introductions, positions, the writing, embedded questions ------------------------------
@pytest.mark.parametrize("brief", [
    ("Conduct a study of urban beekeeping in London. Your report should: 1) List the main hive "
     "types used on rooftops. 2) Describe honey yields per hive. 3) Describe the disease risks "
     "for colonies."),
    ("Conduct a study of urban beekeeping in London. Please cover the following:\n"
     "- the main hive types used on rooftops\n- honey yields per hive\n- disease risks for colonies"),
    ("For a study of urban beekeeping in London, examine the following three aspects: (a) the "
     "main hive types used on rooftops; (b) honey yields per hive; (c) disease risks for colonies."),
])
def test_each_item_of_a_list_is_a_part_of_its_own(embed, brief):
    structure, texts = plan_of(brief, embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    for words in ("hive types used on rooftops", "honey yields per hive", "disease risks for colonies"):
        assert any(words in t for t in texts), (words, texts)
    # no marker, no line that only introduces the list, no item's verb read as a noun
    assert not any(mark in t for t in texts for mark in ("1)", "(a)", "- ", "following", "List the"))


def test_an_introductory_phrase_that_says_who_asks_is_no_part():
    # the small parser reads "Acting as …, conduct …" as two coordinated verbs: the first
    # unit only says who asks
    words = ["Acting", "as", "a", "planner", ",", "conduct", "research", "on", "trams", "."]
    heads = [0, 0, 3, 1, 0, 0, 5, 6, 7, 0]
    deps = ["ROOT", "prep", "det", "pobj", "punct", "conj", "dobj", "prep", "pobj", "punct"]
    pos = ["VERB", "ADP", "DET", "NOUN", "PUNCT", "VERB", "NOUN", "ADP", "NOUN", "PUNCT"]
    tags = ["VBG", "IN", "DT", "NN", ",", "VB", "NN", "IN", "NNS", "."]
    doc = Doc(Vocab(), words=words, heads=heads, deps=deps, pos=pos, tags=tags,
              sent_starts=[True] + [False] * 9)
    units = coordinated_units(doc[:9])
    assert [u.text for u in units] == ["Acting as a planner", "conduct research on trams"]
    assert introduces(units[0]) and not introduces(units[1])


@pytest.mark.parametrize(("text", "held"), [
    ("Expert A cites 2030 as the deadline, Expert B says the timeline is unknowable.",
     ["Expert A", "Expert B"]),
    # a statement of fact about a named thing holds no position, nor does a question
    ("Apple's M2 chip performs well only under light loads. How should Intel chips be cooled?", []),
])
def test_a_position_states_something(text, held):
    assert positions(text, parse(text)) == held


def test_the_writing_named_again_is_still_the_writing(embed):
    brief = ("Create detailed lecture notes on the French Revolution. These notes should examine "
             "the fiscal crisis of the monarchy and the role of the clergy. Ensure the notes only "
             "cite peer-reviewed sources.")
    _, texts = plan_of(brief, embed)
    assert_questions(texts)
    assert not any("notes" in t for t in texts), texts
    assert any("fiscal crisis" in t for t in texts), texts


def test_an_embedded_question_in_a_list_is_asked_about(embed):
    brief = ("Write a guide to rooftop solar panels for homeowners. Please cover: (a) how solar "
             "panels age; (b) how to recycle old panels; (c) why panel prices fell after 2010.")
    _, texts = plan_of(brief, embed)
    assert_questions(texts)
    assert any("how solar panels age" in t for t in texts), texts
    assert any("how to recycle old panels" in t for t in texts), texts
    # an embedded question is not turned into an ungrammatical one ("How solar panels age?")
    assert not any(t.startswith(("How solar", "How to recycle")) for t in texts), texts


def test_a_gerund_subject_names_what_to_find_out(embed):
    brief = ("Investigate the corrosion of steel bridges in coastal cities. Understanding how "
             "commonly bridges fail between inspections would be very interesting to find out.")
    _, texts = plan_of(brief, embed)
    assert_questions(texts)
    assert "How commonly do bridges fail between inspections?" in texts, texts
    assert not any("Understanding" in t or "interesting" in t for t in texts), texts


def test_a_list_is_about_what_the_text_says_before_it(embed):
    brief = ("I am new to Docker. Please explain: 1) how images differ from containers; 2) when to "
             "use docker compose; 3) how to shrink a large image.")
    structure, texts = plan_of(brief, embed)
    assert_questions(texts)
    assert structure.topic == "Docker"
    # no item is asked about another item's subject
    assert not any("images differ" in t and "compose" in t for t in texts), texts


def test_a_demonstrative_that_names_the_subject_again_is_replaced_by_it(embed):
    _, texts = plan_of("Investigate electric scooters in Paris. Explain how these scooters are "
                       "charged, and who repairs this scooter.", embed)
    assert_questions(texts)
    assert any("how electric scooters are charged" in t for t in texts), texts
    assert any("this scooter" in t for t in texts), texts  # a singular does not stand for a plural


def test_a_short_question_of_what_something_is_keeps_its_place_in_the_plan(embed):
    structure, texts = plan_of("What is Kafka, why do teams use it, and what are the alternatives?", embed)
    assert_questions(texts)
    assert len(structure.facets) == 3
    assert "Kafka" in structure.facets[0].text and "teams" not in structure.facets[0].text
    # a short question whose verb says more than "is" is not rewritten as "what is known"
    causes = understand("What causes inflation, and how do central banks fight it?", embed)
    assert not any(f.text == "What is known about inflation?" for f in causes.facets)


def test_a_list_of_gerund_actions_keeps_each_its_own_verb(embed):
    # the first action's gerund and its particle ("setting up") belong to it alone
    structure, texts = plan_of("Explain setting up a virtualenv, installing requirements and running the "
                               "tests.", embed)
    assert structure.kind == K.MULTI_FACETED
    assert texts == ["What is known about setting up a virtualenv?",
                     "What is known about installing requirements?",
                     "What is known about running the tests?"]


def test_gerund_actions_after_a_preposition_keep_the_first_gerund(embed):
    # "walk me through X-ing …": the first gerund is an action of the list, not the way the
    # request is put (as "identifying" of "conclude by identifying …" is)
    structure, texts = plan_of("Walk me through installing nginx, writing a server block and "
                               "reloading the service", embed)
    assert structure.kind == K.MULTI_FACETED
    assert_asked_apart(texts, ["installing nginx", "writing a server block", "reloading the service"])


def test_actions_listed_after_an_infinitive_are_asked_apart_not_chained(embed):
    # "book" is read as a noun and "to renew …" as a relative clause by the small parser
    question = ("What is the procedure to renew a passport, book an appointment at the embassy, "
                "and pay the fee online?")
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert_asked_apart(texts, ["renew a passport", "book an appointment", "pay the fee"])
    # an instruction of that shape asks what is known about each
    structure, texts = plan_of("Describe the steps to register a company, open a business bank account, "
                               "and hire the first employee.", embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert_asked_apart(texts, ["register a company", "open a business bank account",
                               "hire the first employee"])
    # an infinitive that describes the thing asked about is still a hop
    assert understand("Who directed the first film to win the Palme d'Or?", embed).kind == K.CHAIN


def test_each_action_of_a_list_is_asked_with_its_pronoun_resolved(embed):
    _, texts = plan_of("What's the process to create a tag, sign it with a key, and push it "
                       "to a server?", embed)
    assert_questions(texts)
    # "it" is the thing the action before made, not the process asked about
    assert_asked_apart(texts, ["create a tag", "sign a tag with a key", "push a tag to a server"])
    # a verb the tagger reads as an adverb ("back it up") is still an action of the list
    _, texts = plan_of("How do I install Redis, configure it for persistence, and back it up "
                       "every night?", embed)
    assert_asked_apart(texts, ["install Redis", "configure Redis for persistence", "back Redis up"])


def test_a_coordinated_action_s_pronoun_is_what_the_action_before_handled(embed):
    _, texts = plan_of("How do I install Docker, create a volume, and inspect its contents?", embed)
    assert "How do I inspect the contents of a volume?" in texts, texts
    _, texts = plan_of("How do I clone a repository and list its branches?", embed)
    assert "How do I list the branches of a repository?" in texts, texts
    # unless what the question is about says more about the same thing
    _, texts = plan_of("How to set up replication in PostgreSQL and monitor its lag?", embed)
    assert "How to monitor the lag of replication in PostgreSQL?" in texts, texts


def test_a_list_without_a_comma_before_its_conjunction_is_a_list(embed):
    # actions, where the tagger reads the first object as a verb ("install nginx")
    _, texts = plan_of("How do I install nginx, configure it as a reverse proxy and reload it "
                       "without downtime?", embed)
    assert_questions(texts)
    assert_asked_apart(texts, ["install nginx", "configure nginx as a reverse proxy",
                               "reload nginx without downtime"])
    # actions in a "how to" phrase typed without a question mark
    _, texts = plan_of("how to create a cron job, test it and check its output in syslog", embed)
    assert_questions(texts)
    assert_asked_apart(texts, ["create a cron job", "test a cron job", "output of a cron job in syslog"])
    # the same asked of several places
    _, texts = plan_of("How much does a one-bedroom flat cost in Lisbon, Porto and Faro?", embed)
    assert_questions(texts)
    assert_asked_apart(texts, ["Lisbon", "Porto", "Faro"])


@pytest.mark.parametrize("question", [
    "Which river is longer, the Danube or the Rhine?",
    "Who painted more portraits, Rembrandt or Vermeer?",
])
def test_answers_offered_after_a_question_are_not_a_list_with_its_object(embed, question):
    structure = understand(question, embed)
    texts = [f.text for f in structure.facets]
    asked_alone = ("Which river is longer?", "Who painted more portraits?")
    assert not any(t.startswith(asked_alone) for t in texts), texts
    assert not any(t.rstrip("?") in ("the Danube", "Rembrandt") for t in texts), texts


@pytest.mark.parametrize(("question", "heading", "other"), [
    ("Describe the Linux page cache — how it decides what to evict, what fills it and how "
     "cgroups limit it.", "the Linux page cache", "cgroups"),
    ("Explain the JVM garbage collector - when it runs, what it pauses and how G1 tunes it",
     "the JVM garbage collector", "G1"),
])
def test_the_pronouns_after_a_heading_stand_for_it(embed, question, heading, other):
    structure, texts = plan_of(question, embed)
    assert structure.topic == heading
    assert_questions(texts)
    assert sum(heading in t for t in texts) >= 3, texts
    assert not any(f"{other} decides" in t or f"{other} runs" in t for t in texts), texts


@pytest.mark.parametrize(("question", "heading"), [
    # the parser reads each question after the colon as a relative clause of the heading
    ("docker volumes: where they live, who owns them and what happens when a container is removed",
     "docker volumes"),
    # the last question does not point back to the heading, yet asks about it
    ("kubernetes liveness probes - what they are for, how often they run and what happens when one fails",
     "kubernetes liveness probes"),
])
def test_every_question_listed_after_a_heading_is_asked_about_it(embed, question, heading):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert len(texts) == 3 and all(heading in t for t in texts), texts
    assert not any("statement" in t for t in texts), texts  # the heading is no claim to check


def test_a_list_of_embedded_questions_after_a_label_is_asked_one_by_one(embed):
    structure, texts = plan_of("rsync: what it copies by default, how it detects changed files, "
                               "and how to resume an interrupted transfer", embed)
    assert structure.kind == K.MULTI_FACETED
    assert_questions(texts)
    assert_asked_apart(texts, ["what rsync copies by default", "how rsync detects changed files",
                               "how to resume an interrupted transfer"])


def test_a_verb_with_its_own_auxiliary_is_a_coordinated_statement_of_its_own(embed):
    # "has been linked" is a finite verb although "linked" is a participle
    _, texts = plan_of("Air pollution can trigger asthma attacks and has been linked to the onset "
                       "of heart disease. Explain the main sources of urban air pollution.", embed)
    assert_questions(texts)
    assert any("onset of heart disease" in t and "asthma" not in t for t in texts), texts


def test_a_list_of_questions_keeps_its_short_ones_about_the_subject(embed):
    structure, texts = plan_of("Answer the following questions about Redis:\n1. What is AOF?\n"
                               "2. How does replication work?\n3. Why are keys evicted?", embed)
    assert structure.kind == K.MULTI_FACETED and structure.topic == "Redis"
    assert_questions(texts)
    assert any(t.startswith("What is AOF") and "Redis" in t for t in texts), texts
    assert any(t == "How does replication work?" for t in texts), texts


def test_clauses_that_a_list_asks_about_hold_no_positions(embed):
    structure, texts = plan_of("Explain three things: a) what a B-tree index is, b) when a GIN "
                               "index is better, c) how BRIN indexes save space.", embed)
    assert structure.kind == K.MULTI_FACETED and not structure.positions
    assert_questions(texts)
    assert "How do BRIN indexes save space?" in texts, texts
    assert not any("B-tree" in t and "BRIN" in t for t in texts), texts  # no item about another's subject


# ---- the same asked of several things, or several actions asked at once -------------------------
@pytest.mark.parametrize(("question", "members"), [
    ("What are the investment philosophies of Duan Yongping, Warren Buffett, and Charlie Munger?",
     ["Duan Yongping", "Warren Buffett", "Charlie Munger"]),
    ("What are the main features of Kubernetes, Docker Swarm and Nomad?",
     ["Kubernetes", "Docker Swarm", "Nomad"]),
])
def test_an_attribute_asked_of_several_names_is_asked_of_each(embed, question, members):
    _, texts = plan_of(question, embed)
    assert_questions(texts)
    attribute = question.split(" of ")[0]  # "What are the main features"
    for member in members:
        assert any(t.startswith(attribute) and member in t
                   and not any(o in t for o in members if o != member) for t in texts), member


def test_a_comparison_asking_the_same_of_each_item_keeps_its_question(embed):
    question = "What are the pros and cons of PostgreSQL, MySQL and SQLite for a small web app?"
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON
    assert_questions(texts)
    for item in ("PostgreSQL", "MySQL", "SQLite"):
        assert f"What are the pros and cons of {item} for a small web app?" in texts


@pytest.mark.parametrize(("question", "members"), [
    ("What is the difference between TCP and UDP?", ["TCP", "UDP"]),  # a preposition relates them
    ("Who has more scope of profession, Phil Rosen or Delmer Daves?",  # a comparative asks which
     ["Phil Rosen", "Delmer Daves"]),
    ("What was the name of the 1996 adaptation of Romeo & Juliet?", ["Romeo", "Juliet"]),  # one name
    ("When did the person who founded Tesla and SpaceX move to California?",  # a relative clause
     ["Tesla", "SpaceX"]),
])
def test_a_group_that_is_not_asked_of_each_member_stays_whole(embed, question, members):
    _, texts = plan_of(question, embed)
    opening = question[:question.index(members[0])]
    # no sub-question is the question itself with one member in place of the group
    assert not any(t.startswith(opening) and sum(m in t for m in members) == 1 for t in texts), texts


@pytest.mark.parametrize(("question", "actions"), [
    ("How to set up replication in PostgreSQL and monitor its lag?",
     ["How to set up replication in PostgreSQL?", "How to monitor the lag of replication in PostgreSQL?"]),
    ("How can cities reduce traffic congestion and improve air quality?",
     ["How can cities reduce traffic congestion?", "How can cities improve air quality?"]),
    ("What can I do to reduce stress and improve my sleep?",
     ["What can I do to reduce stress?", "What can I do to improve my sleep?"]),
    ("How are vaccines developed and tested?", ["How are vaccines developed?", "How are vaccines tested?"]),
    # bare actions share the last one's object, as participles share their subject
    ("How to set up and monitor replication in PostgreSQL?",
     ["How to set up replication in PostgreSQL?", "How to monitor replication in PostgreSQL?"]),
    ("How should a small team deploy, monitor and roll back a web service?",
     [f"How should a small team {action} a web service?" for action in ("deploy", "monitor", "roll back")]),
    ("How can I back up, compress and encrypt my home directory?",
     [f"How can I {action} my home directory?" for action in ("back up", "compress", "encrypt")]),
    # the parse reads "tag" as the object of "build"
    ("How do I build, tag and push a container image?",
     [f"How do I {action} a container image?" for action in ("build", "tag", "push")]),
    # a later action done to what a pronoun stands for; a name the tagger reads as a verb
    ("How do I export a table with psql and import it?",
     ["How do I export a table with psql?", "How do I import a table?"]),
    ("How do I install nginx and configure it for HTTPS?",
     ["How do I install nginx?", "How do I configure nginx for HTTPS?"]),
])
def test_coordinated_actions_are_asked_one_by_one(embed, question, actions):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert texts == actions


@pytest.mark.parametrize("question", [
    "Who held the record for the longest service in parliament and was surpassed by a senator?",
    "What novel was written and illustrated by Antoine de Saint-Exupery?",  # the asked one, twice
])
def test_actions_that_ask_one_thing_are_not_split(embed, question):
    structure = understand(question, embed)
    assert not any(" and " not in f.text and f.text.startswith(question.split(" ")[0])
                   for f in structure.facets), structure.facets


def test_the_topic_is_not_the_subject_of_a_later_coordinated_question(embed):
    structure = understand("What causes inflation, and how do central banks fight it?", embed)
    assert structure.topic == "inflation"


def test_an_instruction_about_an_attribute_of_several_names_asks_it_of_each(embed):
    drugs = ("lisinopril", "amlodipine", "metoprolol")
    question = "Tell me about the common side effects of lisinopril, amlodipine and metoprolol."
    _, texts = plan_of(question, embed)
    assert_questions(texts)
    for drug in drugs:
        assert any("side effects" in t and drug in t and sum(d in t for d in drugs) == 1 for t in texts)


def test_a_question_typed_without_its_question_mark_is_still_a_question(embed):
    structure = understand("how can cities reduce traffic congestion and improve air quality", embed)
    assert [f.text for f in structure.facets] == ["How can cities reduce traffic congestion?",
                                                  "How can cities improve air quality?"]
    # the auxiliary right after the question word asks, wherever the parser hangs it (here
    # on "vim", read as a verb): not "What is known about where do vim …?"
    structure = understand("where do vim, emacs and nano keep their config files", embed)
    assert structure.research_question == "Where do vim, emacs and nano keep their config files?"


@pytest.mark.parametrize(("question", "items"), [
    ("What are the differences between a Roth IRA and a traditional IRA?", ["Roth IRA", "traditional IRA"]),
    ("Compare the Kindle and the Kobo for reading PDFs.", ["Kindle", "Kobo"]),
])
def test_members_of_a_list_may_have_their_own_determiners(embed, question, items):
    structure = understand(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items


@pytest.mark.parametrize(("question", "not_items"), [
    ("Who has worked for both Google and the company that acquired GitHub?", ["Google", "company"]),
    ("Which band formed earlier, Edward Sharpe and the Magnetic Zeros or Louis XIV?",
     ["Edward Sharpe", "Magnetic Zeros", "Louis XIV"]),
])
def test_a_determiner_does_not_join_a_described_member_or_a_name_to_a_list(embed, question, not_items):
    structure = understand(question, embed)
    assert structure.items != not_items
    if "that" in question:  # the described member is the chain's next hop
        assert structure.kind == K.CHAIN


@pytest.mark.parametrize("brief", [
    "We are weighing a move to a four-day week. Please cover (1) evidence on productivity, (2) effects on "
    "employee wellbeing, and (3) the experience of companies that tried it.",
    "We are weighing a move to a four-day week. Please prepare a short report covering: 1. evidence on "
    "productivity, 2. effects on employee wellbeing, 3. the experience of companies that tried it.",
])
def test_items_counted_inside_a_sentence_are_a_list(embed, brief):
    structure = understand(brief, embed)
    for part in ("productivity", "wellbeing", "experience of companies"):
        assert sum(part in f.text for f in structure.facets) == 1, (part, structure.facets)


def test_numbers_that_count_nothing_are_no_list():
    from research_studio.understanding.lists import list_items
    doc = parse("The study (n = 2020) ran from 2010 to 2012 in 3 (three) cities and found 2. effects.")
    assert list_items(doc) == []


def test_a_pronoun_does_not_stand_for_a_phrase_its_own_clause_names(embed):
    brief = "The survey ran in three cities from 2010 to 2012. What did it find about air quality?"
    structure = understand(brief, embed)
    assert structure.topic == "air quality"  # the phrase the brief means most
    assert not any("air quality find" in f.text for f in structure.facets), structure.facets


@pytest.mark.parametrize(("brief", "parts_asked"), [
    ("I teach a unit on the Cuban Missile Crisis. I need a summary of the key events over the thirteen "
     "days and an overview of how historians' interpretations have shifted since the archives opened.",
     ["key events over the thirteen days", "how historians' interpretations have shifted"]),
    ("Analyze the history of the euro and the future of the European Central Bank.",
     ["history of the euro", "future of the European Central Bank"]),
])
def test_coordinated_objects_with_complements_of_their_own_are_asked_apart(embed, brief, parts_asked):
    assert_asked_apart([f.text for f in understand(brief, embed).facets], parts_asked)


def test_nouns_sharing_one_complement_stay_one_object(embed):
    structure = understand("Explain the causes and effects of inflation in Argentina.", embed)
    texts = [f.text for f in structure.facets]
    assert "What are the causes of inflation in Argentina?" in texts, texts


@pytest.mark.parametrize(("question", "items", "purpose"), [
    ("Should I use microservices or a monolith for a new startup?", ["microservices", "monolith"],
     " for a new startup"),
    ("Is PostgreSQL or MongoDB better for storing user profiles?", ["PostgreSQL", "MongoDB"],
     " for storing user profiles"),
])
def test_options_a_question_weighs_are_compared_for_its_purpose(embed, question, items, purpose):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    assert structure.purpose == purpose and not structure.dimensions
    for item in items:
        assert any(item in t and purpose.strip() in t and not any(o in t for o in items if o != item)
                   for t in texts), texts


def test_an_attribute_phrase_after_compared_names_is_a_dimension(embed):
    structure = understand("Were Ingrid Bergman and Greta Garbo of the same nationality?", embed)
    assert structure.kind == K.COMPARISON and structure.dimensions == ["nationality"]
    assert not structure.purpose


def test_a_clause_without_an_auxiliary_after_its_question_word_is_asked_about(embed):
    structure = understand("Our team is moving from SVN to Git. Please cover (1) how branching differs "
                           "from SVN, and (2) how to recover lost commits.", embed)
    texts = [f.text for f in structure.facets]
    assert "What is known about how branching differs from SVN regarding Git?" in texts, texts


@pytest.mark.parametrize(("question", "expected"), [
    ("Describe PostgreSQL: its architecture, its query planner, and its replication options.",
     ["What is the architecture of PostgreSQL?", "What is the query planner of PostgreSQL?",
      "What are the replication options of PostgreSQL?"]),
    ("Tell me about the Roman Empire: its rise, its government and its fall.",
     ["What is the rise of the Roman Empire?", "What is the government of the Roman Empire?",
      "What is the fall of the Roman Empire?"]),
])
def test_a_list_after_a_colon_names_aspects_of_what_precedes_it(embed, question, expected):
    structure = understand(question, embed)
    assert structure.kind == K.MULTI_FACETED and [f.text for f in structure.facets] == expected


def test_names_after_a_colon_are_the_items_asked_about(embed):
    structure = understand("Which novelist wrote under the pen name Richard Bachman: Stephen King or Dean "
                           "Koontz?", embed)
    assert not any("of Richard Bachman" in f.text for f in structure.facets), structure.facets


def test_what_a_pronoun_refers_to_has_is_not_compared(embed):
    structure = understand("Give me an overview of the main treatments for type 2 diabetes, their "
                           "side effects and their costs.", embed)
    assert structure.kind != K.COMPARISON and "side effects" not in structure.items


@pytest.mark.parametrize(("text", "parts_asked"), [
    # the parse hangs the middle member on the verb or the piece of writing
    ("Prepare a memo on the licensing costs, the impact on support staff, and experiences "
     "of schools that dropped the platform.",
     ["licensing costs", "impact on support staff", "experiences of schools"]),
    ("Our school is deciding whether to replace our paper gradebook with an online system. "
     "Write a memo on the setup effort, the effect on teacher workload, and privacy concerns "
     "of parents.", ["setup effort", "effect on teacher workload", "privacy concerns of parents"]),
])
def test_a_comma_list_is_read_from_its_commas_when_the_parse_breaks_it(embed, text, parts_asked):
    assert_asked_apart([f.text for f in understand(text, embed).facets], parts_asked)


def test_a_comma_list_the_parse_reads_keeps_the_words_after_it_for_each_member(embed):
    # the commas alone end the list at the last "and" ("… in Copenhagen and Bogota at
    # cutting car trips", "… in injuries"); the parse coordinates the three cities
    structure = understand("How well have bike lanes worked in Paris, Copenhagen and Bogota at cutting car "
                           "trips and injuries?", embed)
    assert [f.text for f in structure.facets] == [
        f"How well have bike lanes worked in {city} at cutting car trips and injuries?"
        for city in ("Paris", "Copenhagen", "Bogota")]


def test_a_comma_list_after_a_phrase_that_sets_the_scene_starts_after_it(embed):
    # "In PostgreSQL," is no member of the list: "In PostgreSQL, how do I create a role,
    # grant it read access?" was the first
    structure = understand("In PostgreSQL, how do I create a role, grant it read access and set its "
                           "password to expire?", embed)
    assert [f.text for f in structure.facets] == [
        "In PostgreSQL, how do I create a role?", "In PostgreSQL, how do I grant a role read access?",
        "In PostgreSQL, how do I set the password of a role to expire?"]


def test_a_comma_list_of_actions_asks_each_with_the_shared_words(embed):
    structure = understand("How do I set up a Python virtual environment, install PyTorch, and "
                           "check that it sees my GPU?", embed)
    texts = [f.text for f in structure.facets]
    assert texts[:2] == ["How do I set up a Python virtual environment?", "How do I install PyTorch?"]
    assert len(texts) == 3 and texts[2].startswith("How do I check that")
    assert texts[2].endswith("sees my GPU?")


def test_a_list_inside_the_first_member_stays_where_the_parse_puts_it(embed):
    _, texts = plan_of("Describe the routes taken by traders in Persia, India, and China to "
                       "reach Rome.", embed)
    assert not any("India" in t and "Persia" not in t for t in texts), texts


def test_an_attribute_of_several_owners_is_asked_of_each(embed):
    structure = understand("What were the effects of the drought, the war, and the plague on "
                           "the population?", embed)
    assert [f.text for f in structure.facets] == [
        f"What were the effects of the {cause} on the population?" for cause in ("drought", "war", "plague")]


def test_list_items_after_a_verb_are_its_objects_even_when_they_read_as_statements(embed):
    structure = understand("We run a small clinic. Please summarise (1) evidence on wait times "
                           "reduced, (2) staffing needs, and (3) typical costs.", embed)
    texts = [f.text for f in structure.facets]
    assert any(t.startswith("What is known about evidence on wait times reduced") for t in texts), texts
    assert not any("statement" in t for t in texts), texts



@pytest.mark.parametrize(("question", "expected"), [
    ("Where are Nairobi and Kampala located?", ["Where is Nairobi located?", "Where is Kampala located?"]),
    ("What have Norway and Sweden done about plastic waste?",
     ["What has Norway done about plastic waste?", "What has Sweden done about plastic waste?"]),
    ("What did Ada Lovelace, Alan Turing, and Grace Hopper contribute to computing?",
     [f"What did {name} contribute to computing?"
      for name in ("Ada Lovelace", "Alan Turing", "Grace Hopper")]),
])
def test_a_question_about_several_named_subjects_asks_each_with_its_verb_agreeing(embed, question, expected):
    assert [f.text for f in understand(question, embed).facets] == expected


@pytest.mark.parametrize(("question", "items"), [
    ("Flask vs Django vs FastAPI: which should I learn first for building APIs?",
     ["Flask", "Django", "FastAPI"]),
    ("Ubuntu vs Debian vs Fedora for a home server?", ["Ubuntu", "Debian", "Fedora"]),
    # the tagger reads "MySQL" as a number
    ("Postgres vs MySQL: which should I use for a small web app?", ["Postgres", "MySQL"]),
])
def test_every_option_set_against_another_with_vs_is_an_item(embed, question, items):
    structure = understand(question, embed)
    assert structure.kind == K.COMPARISON
    assert structure.items == items


@pytest.mark.parametrize(("question", "items"), [
    # the parse reads "git reset" as a subject and its verb, and hangs each later "vs" elsewhere
    ("git reset vs git revert vs git restore: which should I use to undo a commit?",
     ["git reset", "git revert", "git restore"]),
    ("git fetch vs git pull vs git clone: which one should I run after a colleague pushes?",
     ["git fetch", "git pull", "git clone"]),
    ("npm install vs npm ci: which should I run in CI?", ["npm install", "npm ci"]),
])
def test_a_heading_of_commands_set_against_each_other_asks_its_question_and_each_command(
        embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.COMPARISON and structure.items == items
    # the question after the colon is asked itself; each command is researched apart, not
    # for a noun of that question ("the commit of git reset")
    assert texts[0] == question
    assert_asked_apart(texts[1:], items)
    assert not any(" of " in t for t in texts[1:]), texts


@pytest.mark.parametrize(("question", "expected"), [
    # the small parser reads the list after "do" wrongly: "Django" as the object of "do",
    # "use" as a noun, "FastAPI" as an adjective
    ("Which license do Django, Flask and FastAPI use?",
     [f"Which license does {name} use?" for name in ("Django", "Flask", "FastAPI")]),
    ("What default port do CouchDB, Cassandra and Elasticsearch listen on?",
     [f"What default port does {name} listen on?" for name in ("CouchDB", "Cassandra", "Elasticsearch")]),
    # "dynasty" is read as the verb, "decline" as a noun
    ("Why did the Ottoman Empire and the Mughal Empire decline?",
     ["Why did the Ottoman Empire decline?", "Why did the Mughal Empire decline?"]),
    # a plural member keeps the plural verb
    ("How do rising rates and inflation affect housing?",
     ["How do rising rates affect housing?", "How does inflation affect housing?"]),
])
def test_a_subject_list_the_parser_misreads_is_found_by_reading_it_as_they(embed, question, expected):
    structure = understand(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert [f.text for f in structure.facets] == expected


@pytest.mark.parametrize("question", [
    "In what city can a visitor see both the Blue Mosque and the Hagia Sophia?",  # the subject is "a visitor"
    "What novel was written and illustrated by Tove Jansson?",  # no subject after "was"
])
def test_words_after_an_auxiliary_that_are_no_subject_list_are_not_split(embed, question):
    assert understand(question, embed).kind != K.MULTI_FACETED


def test_modifiers_that_share_a_subject_noun_split_with_it(embed):
    # "state" only modifies "governments": asked apart, each keeps it ("How does state
    # fund schools?" asks nothing); the parser reads "fund" as a noun until "do" finds it
    structure = understand("How do state and local governments fund schools?", embed)
    texts = [f.text for f in structure.facets]
    assert all("governments fund schools" in t for t in texts), texts


def test_a_list_after_the_verb_that_follows_an_auxiliary_is_its_object(embed):
    # "can parse YAML, TOML and INI files": the verb has its subject before it ("libraries")
    texts = [f.text for f in understand("What libraries can parse YAML, TOML and INI files?", embed).facets]
    assert all("parse" in t for t in texts), texts


@pytest.mark.parametrize("question", [
    "Are Lisbon and Porto in the same country?",  # a yes/no question asks about both together
    "Which is older, Yale or Princeton?",  # a comparative chooses between them
])
def test_named_subjects_asked_about_together_are_not_split(embed, question):
    assert not any("was" in f.text.split() or "is" in f.text.split()
                   for f in understand(question, embed).facets)


@pytest.mark.parametrize(("question", "expected"), [
    ("Tell me about the Hubble Space Telescope — its mission, how much it cost, and its impact on astronomy",
     ["What is the mission of the Hubble Space Telescope?",
      "What is known about how much the Hubble Space Telescope cost?",
      "What is the impact of the Hubble Space Telescope on astronomy?"]),
    ("Explain Kubernetes: its architecture, how scheduling works, and its networking model",
     ["What is the architecture of Kubernetes?",
      "What is known about how scheduling works regarding Kubernetes?",
      "What is the networking model of Kubernetes?"]),
    # questions that name nothing but the owner; "dentry cache" parsed as two objects
    ("Describe the Linux dentry cache: its role, how it is populated and how it is pruned",
     ["What is the role of the Linux dentry cache?",
      "What is known about how the Linux dentry cache is populated?",
      "What is known about how the Linux dentry cache is pruned?"]),
    # a gerund owner, its modifier parsed as the verb's object ("database | sharding")
    ("Explain database sharding: its trade-offs, how keys are chosen and when rebalancing happens",
     ["What are the trade-offs of database sharding?",
      "What is known about how keys are chosen regarding database sharding?",
      "What is known about when rebalancing happens regarding database sharding?"]),
])
def test_aspects_after_a_colon_may_mix_phrases_and_questions(embed, question, expected):
    structure = understand(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert [f.text for f in structure.facets] == expected


def test_a_comma_list_after_a_colon_starts_after_it(embed):
    structure = understand("Our board meets next week. Please cover three things: the cost of the "
                           "pilot, the effect on staff morale, and lessons from other hospitals.", embed)
    texts = [f.text for f in structure.facets]
    for part in ("cost of the pilot", "effect on staff morale", "lessons from other hospitals"):
        holding = [t for t in texts if part in t]
        assert len(holding) == 1 and "three things" not in holding[0], texts


def test_what_the_asker_considers_keeps_its_modifiers(embed):
    structure = understand("We run a ferry company, and we are considering battery propulsion. "
                           "Summarise the main risks.", embed)
    texts = [f.text for f in structure.facets]
    assert all("battery propulsion" in t for t in texts if "propulsion" in t), texts
    assert not any(t.startswith("What is known about company") for t in texts), texts


@pytest.mark.parametrize(("opening", "actions"), [
    # the parse makes nouns of "pin" and "configure" and a verb of "dependencies"
    ("How can I ", ["create a Rust project", "pin dependencies with a lock file",
                    "configure pre-commit hooks", "publish the crate to crates.io"]),
    ("How do I ", ["clone the repository", "pin the toolchain with a rust-toolchain file",
                   "configure rustfmt", "run the tests"]),
])
def test_actions_the_parser_reads_as_nouns_are_found_by_reading_each_alone(embed, opening, actions):
    question = opening + ", ".join(actions[:-1]) + " and " + actions[-1]
    structure, texts = plan_of(question, embed)
    assert structure.kind == K.MULTI_FACETED
    assert texts == [f"{opening}{action}?" for action in actions]


def test_every_action_of_a_list_is_asked_also_when_the_parser_nests_the_last(embed):
    structure = understand("How do I install Redis on Debian, check that the service is running, "
                           "and load a test dataset?", embed)
    texts = [f.text for f in structure.facets]
    assert len(texts) == 3 and all(t.startswith("How do I") for t in texts), texts
    assert sum("load a test dataset" in t for t in texts) == 1 and not any(
        "service is running" in t and "test dataset" in t for t in texts), texts


def test_a_list_member_opened_by_a_gerund_is_a_noun_phrase(embed):
    structure = understand("Write a report on energy cost, staffing implications, and lessons from "
                           "plants that closed early.", embed)
    texts = [f.text for f in structure.facets]
    for part in ("energy cost", "staffing implications", "lessons from plants"):
        assert sum(part in t for t in texts) == 1, texts


def test_a_list_followed_by_the_purpose_of_its_verb_stays_whole(embed):
    _, texts = plan_of("Your review should combine clinical trial data, patient surveys, and cost "
                       "records to estimate the value of the new therapy.", embed)
    assert not any("cost records to estimate" in t and "patient surveys" not in t for t in texts), texts


def test_a_list_after_a_label_needs_no_conjunction(embed):
    structure = understand("I run IT for a chain of dental clinics and need a memo on cloud backup. "
                           "Key questions: risk assessment of vendors, encryption requirements, "
                           "restore times, total cost.", embed)
    texts = [f.text for f in structure.facets]
    asked = ("risk assessment of vendors", "encryption requirements", "restore times", "total cost")
    for part in asked:
        assert any(part in t and not any(o in t for o in asked if o != part) for t in texts), texts


@pytest.mark.parametrize(("question", "items"), [
    ("how does a fixed-rate mortgage differ from an adjustable-rate mortgage for first-time buyers",
     ["fixed-rate mortgage", "adjustable-rate mortgage"]),
    ("Kotlin vs. Swift for building a mobile banking app?", ["Kotlin", "Swift"]),
    # the pair opens the sentence, the question follows a colon or a dash
    ("Ansible versus Puppet — when is each one the better fit?", ["Ansible", "Puppet"]),
    ("Vim vs Emacs: which one should a new programmer learn?", ["Vim", "Emacs"]),
])
def test_things_set_against_each_other_by_a_preposition_are_compared(embed, question, items):
    structure = understand(question, embed)
    assert structure.kind is QuestionKind.COMPARISON
    assert [any(item in i for i in structure.items) for item in items] == [True, True], structure.items


@pytest.mark.parametrize("question", ["Does coffee improve with age?",
                                      "Is it safe to mix bleach with vinegar?"])
def test_a_preposition_after_a_verb_sets_nothing_against_its_subject(embed, question):
    assert understand(question, embed).kind is not QuestionKind.COMPARISON


@pytest.mark.parametrize("question", ["nginx rate limiting config", "helm chart vs kustomize overlay"])
def test_a_terse_query_with_no_function_words_of_any_language_is_english(embed, question):
    structure, texts = plan_of(question, embed)
    assert structure.english is True
    assert all(t.endswith("?") for t in texts), texts


def test_what_is_written_as_code_is_one_name(embed):
    structure = understand("What's the difference between `git stash`, `git worktree` and `git switch -c` "
                           "for juggling unfinished work?", embed)
    assert structure.kind is QuestionKind.COMPARISON
    assert structure.items == ["`git stash`", "`git worktree`", "`git switch -c`"]


def test_a_quoted_message_is_one_name_in_the_parse():
    # the parser otherwise reads the message's words as a clause of the question
    doc = parse('Why does npm fail with "cannot find module express" after a fresh install?')
    quoted = [t for t in doc if t.text == '"cannot find module express"']
    assert len(quoted) == 1 and quoted[0].pos_ == "PROPN"
    # a quotation of one word is read as any other word
    assert any(t.text == "Yesterday" for t in parse('Was "Yesterday" a single?'))


def test_a_quoted_error_message_is_researched_whole(embed):
    structure = understand('Seeing "permission denied (publickey)" when pushing to GitHub, how do I fix it',
                           embed)
    assert structure.topic == '"permission denied (publickey)"'  # was "GitHub"


def test_titles_in_quotes_offered_as_answers_are_asked_of_each_with_their_quotes(embed):
    structure, texts = plan_of('Which came out first, "Stop! In the Name of Love" or "Yesterday"?', embed)
    assert structure.kind is QuestionKind.COMPARISON
    assert structure.items == ['"Stop! In the Name of Love"', '"Yesterday"']
    assert all(t.count('"') % 2 == 0 for t in texts), texts
    assert 'Did "Yesterday" come out first?' in texts


@pytest.mark.parametrize(("question", "items"), [
    # the parser reads the first command as a modifier of the second, past the comma
    ("What's the difference between apt, apt-get and aptitude on Debian?", ["apt", "apt-get", "aptitude"]),
    ("What's the difference between ssh, ssh-agent and ssh-add?", ["ssh", "ssh-agent", "ssh-add"]),  # a guard
])
def test_commands_listed_with_commas_are_each_an_item(embed, question, items):
    structure, texts = plan_of(question, embed)
    assert structure.kind is QuestionKind.COMPARISON and structure.items == items
    assert_asked_apart(texts[1:], [f"about {item}?" for item in items])


def test_a_list_of_commands_of_one_program_is_english(embed):
    # one function word among seven words: the program's name recurs in every item
    structure = understand("Compare podman run, podman exec and podman attach", embed)
    assert structure.english is True and structure.kind is QuestionKind.COMPARISON
    assert structure.items == ["podman run", "podman exec", "podman attach"]


def test_a_question_asks_its_attribute_of_each_member_of_a_comma_list(embed):
    structure = understand("Who wrote the screenplays for Chinatown, Network, and Tootsie?", embed)
    assert [f.text for f in structure.facets] == [
        f"Who wrote the screenplays for {name}?" for name in ("Chinatown", "Network", "Tootsie")]


def test_an_instruction_relating_listed_things_to_one_another_keeps_them_together(embed):
    _, texts = plan_of("Analyse the correlations between rainfall, crop yields, and food prices.", embed)
    assert not any("between rainfall" in t and "food prices" not in t for t in texts), texts


def test_a_brief_is_not_about_one_of_the_parts_it_lists(embed):
    structure = understand("Our clinic is moving from paper charts to an electronic record system. "
                           "Write a short guide on data migration, staff training, and downtime "
                           "procedures.", embed)
    asked = ("data migration", "staff training", "downtime procedures")
    assert structure.topic not in asked
    assert_asked_apart([f.text for f in structure.facets], asked)


def test_a_colon_list_of_aspects_is_read_to_the_end_of_its_sentence(embed):
    structure = understand("Explain Docker: its image format, its networking model, and common "
                           "security pitfalls.", embed)
    assert_asked_apart([f.text for f in structure.facets],
                       ["image format", "networking model", "security pitfalls"])


@pytest.mark.parametrize(("text", "word", "expected"), [
    ("Explain the common failure modes of disks.", "modes", True),
    ("Describe the approval process of the agency.", "process", False),
    ("Describe the architecture of the system.", "architecture", False),
])
def test_a_noun_is_plural_when_written_as_its_plural(text, word, expected):
    [token] = [t for t in parse(text) if t.text == word]
    assert plural(token) is expected


@pytest.mark.parametrize(("clause", "question"), [
    ("how the planner chooses a join order", "How does the planner choose a join order?"),
    ("why leaves are green", "Why are leaves green?"),
    ("how vaccines are tested", "How are vaccines tested?"),
    ("how much memory Redis needs", "How much memory does Redis need?"),
    # nothing to move simply: a pronoun to resolve, the question word as subject, a negation
    ("how it works", ""),
    ("which plugins work best", ""),
    ("why the query does not use the index", ""),
])
def test_a_clause_asked_about_becomes_the_question_it_embeds(clause, question):
    from research_studio.understanding.facets import direct_question

    assert direct_question(clause, parse(clause, judge_language=False)[:]) == question


@pytest.mark.parametrize(("text", "question"), [
    ("Explain how a heat pump works.", "How does a heat pump work?"),
    ("I want to understand why the sky is blue.", "Why is the sky blue?"),
])
def test_an_instruction_or_wish_about_a_clause_asks_that_clause(embed, text, question):
    # not "What is known about how a heat pump works?"
    assert understand(text, embed).as_question == question


def test_a_question_of_what_the_asker_can_do_states_no_reason():
    # "How can we find the cause?" asks a procedure: not "What factors led we to find …?"
    from research_studio.understanding.facets import asked_reason

    for question, reason in [("How can we find the cause of the outage?", ""),
                             ("Why did the Roman Empire fall?", "the Roman Empire to fall")]:
        assert asked_reason(question, parse(question)) == reason


def test_a_why_question_with_a_copula_asks_the_factors_of_its_state(embed):
    structure, texts = plan_of("Why is the Dead Sea so salty?", embed)
    assert structure.kind == K.CAUSAL and structure.reason_for == "the Dead Sea to be so salty"
    assert any("led the Dead Sea to be so salty" in t or "lead the Dead Sea to be so salty" in t
               for t in texts), texts


def test_a_gerund_subject_supported_by_do_is_no_verb():
    # "do" never supports a participle: "caching" is the subject, "work" the verb
    doc = parse("How does caching work?")
    caching = next(t for t in doc if t.text == "caching")
    assert caching.dep_ == "nsubj" and caching.head.text == "work" and caching.head.pos_ == "VERB"


@pytest.mark.parametrize(("text", "name", "tag"), [
    # tagged a plural, yet nothing to strip: a name ("PostgreSQL" is the clause's subject)
    ("Explain what isolation levels PostgreSQL offers.", "PostgreSQL", "NNP"),
    # a plural written with a capital is still a plural
    ("How do GPUs work?", "GPUs", "NNS"),
])
def test_a_name_the_tagger_reads_as_a_plural_is_read_as_a_name(text, name, tag):
    [token] = [t for t in parse(text) if t.text == name]
    assert token.tag_ == tag


def test_a_comparison_searches_its_items_not_the_template_words(embed):
    # "What are the main characteristics, strengths and weaknesses of hash joins?" is how
    # the reader sees it; the template's words, rare in a manual, would find its passages
    # about other things' strengths ("One advantage of GIN is …")
    structure = understand("Compare hash joins, merge joins and nested loop joins", embed)
    rows = [row for row in decompose(structure, 5) if row.rationale.startswith("compared item")]
    assert [row.query for row in rows] == structure.items
    assert all(row.query in row.text and row.text != row.query for row in rows)
    # how they differ: the items together, without "How do … differ?"
    [contrast] = [row for row in decompose(structure, 5) if row.rationale.startswith("how the")]
    assert contrast.query == "hash joins, merge joins and nested loop joins"
    purpose = understand("Compare Kafka and RabbitMQ for event sourcing", embed)
    queries = [row.query for row in decompose(purpose, 5) if row.rationale.startswith("compared item")]
    assert queries == ["Kafka for event sourcing", "RabbitMQ for event sourcing"]


@pytest.mark.parametrize(("question", "items"), [
    # the tokenizer splits a hyphenated word in three; an item is never cut at its hyphen
    ("Compare git merge and git cherry-pick", ["git merge", "git cherry-pick"]),
    ("Compare client-side and server-side cursors", ["client-side cursors", "server-side cursors"]),
    ("Compare row-level locks and table-level locks", ["row-level locks", "table-level locks"]),
    # the small model tags the hyphen of "non-free" as an adjective: it is told by its
    # character ("non-" was an item)
    ("How do contrib and non-free differ?", ["contrib", "non-free"]),
    ("Compare the main, contrib and non-free archives", ["main", "contrib", "non-free"]),
])
def test_hyphenated_words_stay_whole_in_compared_items(embed, question, items):
    assert understand(question, embed).items == items


@pytest.mark.parametrize(("question", "items"), [
    # the parse hangs "init" as the noun both "clone" and "git" modify: the last item's
    # own word is not shared with the first
    ("Compare git clone and git init", ["git clone", "git init"]),
    # one item written as the start of the other: the other's next word is its own, also
    # where it is a word the stop list holds ("full")
    ("Compare VACUUM and VACUUM FULL", ["VACUUM", "VACUUM FULL"]),
])
def test_commands_sharing_their_first_word_are_two_items(embed, question, items):
    assert understand(question, embed).items == items


@pytest.mark.parametrize(("text", "topic", "written"), [
    # a possessive or a definite article gives "the"; an indefinite one is kept
    ("My -wal file keeps growing.", "-wal file", "the -wal file"),
    ("The header line ends up as a row.", "header line", "the header line"),
    ("I added a second user with htpasswd.", "second user with htpasswd", "a second user with htpasswd"),
    # no article in the question, its own, or another word determining it: as it is
    ("What causes inflation?", "inflation", "inflation"),
    ("Why did the Western Roman Empire fall?", "the Western Roman Empire", "the Western Roman Empire"),
    ("Why does another table still point to it?", "table", "table"),
    ("What was Bart's father's job?", "father", "father"),
    ("What causes inflation?", "deflation", "deflation"),  # not in the text
])
def test_a_topic_is_written_with_the_article_the_question_gives_it(text, topic, written):
    assert with_article(topic, text, parse(text)) == written


def test_a_template_writes_the_topic_with_its_article_and_searches_it_without(embed):
    structure = understand("Why does my laptop battery drain overnight?", embed)
    assert structure.topic == "laptop battery" and structure.written_topic == "the laptop battery"
    texts = [row.text for row in decompose(structure, 5)]
    assert any("the laptop battery" in text for text in texts[1:]), texts

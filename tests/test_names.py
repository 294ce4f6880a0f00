"""The names a text gives, read with spaCy's entity recogniser: what becomes a hop of a
chain, a connection across sub-questions or a name the clarification step mentions."""

import pytest

from research_studio.understanding import names as names_module
from research_studio.understanding.names import entities, names_in_texts


def test_leading_stop_words_and_sentence_openers_are_not_names():
    found = entities("The Millau Viaduct crosses the Tarn valley. Engineers from Eiffage built it.")
    assert "Millau Viaduct" in found and "Eiffage" in found
    assert "Engineers" not in found  # capitalised only because it opens a sentence
    assert all(not name.startswith("The ") for name in found)


@pytest.mark.parametrize("text", [
    "The book was released on August 18, 2009.",
    "Construction started in October and ended on a Monday.",
    "It sold 25,000 copies in the 1990s.",
])
def test_dates_and_amounts_are_never_names(text):
    assert entities(text) == []


def test_titles_the_recogniser_does_not_know_are_read_whole():
    found = entities("Warn That Man is a 1943 British comedy film directed by Lawrence Huntington.")
    assert "Warn That Man" in found and "Lawrence Huntington" in found


@pytest.mark.parametrize("text, title, fragments", [
    ("Then upgrade (see “Upgrading from One Stable Distribution to the Next”).",
     "Upgrading from One Stable Distribution to the Next", {"Next", "One Stable Distribution"}),
    ('She starred in "Gone with the Wind" and in "Return of the King".', "Gone with the Wind",
     {"Gone", "Wind"}),
])
def test_a_quoted_title_in_title_case_is_one_name(text, title, fragments):
    found = entities(text)
    assert title in found and not fragments & set(found), found


def test_a_word_capitalised_for_opening_a_quoted_phrase_is_no_name():
    found = entities("Choose the option “Guided - use entire disk and set up LVM” in the installer.")
    assert "Guided" not in found and "LVM" in found
    # a quoted title of one word stays one
    assert "Hello" in entities('The song "Hello" was written by Adele.')


def test_a_verb_capitalised_for_its_place_is_no_name():
    # an instruction opening the sentence, before a quoted heading the recogniser marks
    assert entities('Consult the "HOOK ORDER" notes first.') == ["HOOK ORDER"]
    # a manual page's line after a heading and its underline
    assert "Shows" not in entities("OPTIONS\n-------\nShows the commit logs.")


@pytest.mark.parametrize("text, word", [
    ("--quit\n- Forget about the current operation in progress.", "Forget"),  # a list item
    ("NAME\n----\ngit-remote - Apply a patch to the tracked repositories", "Apply"),  # "name - what"
    ("Lock — Description: The server process is waiting for a lock.", "Description"),  # a table row
    ("Waits on one of these: Explains the plan of a statement.", "Explains"),
    # a function's row, its signature and its description parted by a semicolon
    ("pg_table_size ( regclass ) → bigint; Computes the disk space used by the table.", "Computes"),
])
def test_a_word_that_opens_a_list_item_or_a_set_off_clause_is_no_name(text, word):
    assert word not in entities(text)


def test_a_name_after_a_dash_or_a_bullet_stays_a_name():
    assert "Tom Lane" in entities("- Tom Lane fixed the planner.")
    assert "Hayward" in entities("Weather stations - Hayward reported rain.")
    assert "Hayward" in entities("Suppose you are no longer interested in Hayward.")
    assert "Hayward" in entities("It rained in Oakland; Hayward stayed dry.")


def test_a_numbered_label_keeps_its_number_and_a_unit_is_not_a_name():
    """"Section 27.2" without its number is "Section", which names nothing in particular
    (it linked every section of a report on replication); "MB" of "40MB" is a unit, and
    was followed as a sub-question ("What can we learn from MB about …")."""
    found = names_in_texts(["Set up a standby server as described in Section 27.2 of the manual.",
                            "Setting work_mem to 40MB lets each sort use up to 40MB of memory.",
                            "Streaming replication is asynchronous by default (see Section 27.2.8).",
                            "Barack Obama 2008 campaign was long."])
    assert found[:3] == [["Section 27.2"], [], ["Section 27.2.8"]], found
    assert not any(name.endswith("2008") for name in found[3]), found


def test_entities_keep_their_inner_words_and_hyphens():
    assert entities("Chang Kia-ngau.") == ["Chang Kia-ngau"]
    # a word a hyphen joins to a name describes by it; a capitalised name the tagger reads
    # as an adverb stays a name ("PostgreSQL" gave "implemented" alone)
    assert names_in_texts(["The SQL standard and PostgreSQL-implemented transaction isolation "
                           "levels are described in Table 13.1.",
                           "The Paris-based firm sold it."]) == [["SQL", "PostgreSQL", "Table 13.1"],
                                                                  ["Paris"]]
    # a name ends before a bracket it opens and does not close
    assert "git-rerere(1" not in names_in_texts(["git-rerere(1) Manual Page: This command helps."])[0]
    found = entities("In 1990 the University of Oxford met the United States.")
    assert "University of Oxford" in found and "United States" in found


def test_a_list_of_names_is_not_one_name():
    found = entities("Teams use React, Vue and Angular.")
    assert {"React", "Vue", "Angular"} <= set(found)
    assert not any(" and " in name for name in found)


def test_most_named_first_and_each_text_read_once(monkeypatch):
    text = "Lisbon is a port. Porto trades with Lisbon. Lisbon grew."
    assert entities(text)[0] == "Lisbon"
    calls = []
    real = names_module.names_in_texts
    monkeypatch.setattr(names_module, "names_in_texts",
                        lambda texts: calls.append(list(texts)) or real(texts))
    names_module.names_of_each([text, "Madrid is in Spain."])
    assert calls == [["Madrid is in Spain."]]  # the first text was read by entities() above


def test_without_the_english_pipeline_there_are_no_names(monkeypatch):
    monkeypatch.setattr(names_module, "parse_batch", lambda texts, skip=(): [None] * len(texts))
    assert names_in_texts(["Lisbon is a port."]) == [[]]

"""The search words of a templated sub-question: the parts the question gave, without the
planner's scaffolding, and nothing else changed."""

from __future__ import annotations

import string

import pytest

from research_studio.prompts import load_data
from research_studio.understanding.search_words import search_words

PLAN = load_data("offline_plan")
SLOTS = {"item": "hash joins", "items": "hash joins and merge joins", "purpose": " for analytics",
         "dimensions": "cost and speed", "facet": "the replication lag of standbys",
         "position": "the DBA team", "topic": "partitioned tables", "action": "tune autovacuum"}


def slots_of(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("name", sorted(PLAN["search"]))
def test_each_search_form_names_a_template_and_only_its_slots(name):
    section, key = name.split(".")
    template = PLAN[section][key]
    assert slots_of(PLAN["search"][name]) <= slots_of(template)


@pytest.mark.parametrize("name", sorted(PLAN["search"]))
def test_a_templated_sub_question_is_searched_by_the_words_the_question_gave(name):
    section, key = name.split(".")
    template = PLAN[section][key]
    text = template.format(**SLOTS)
    words = search_words(text)
    assert words and words != text
    # what the question gave is all searched ...
    for slot in slots_of(PLAN["search"][name]):
        assert SLOTS[slot].strip() in words
    # ... and the template's own words that its form leaves out are not
    scaffold = set(template.format(**{s: "" for s in slots_of(template)}).lower().split())
    kept = set(PLAN["search"][name].format(**{s: "" for s in slots_of(template)}).lower().split())
    assert not (set(words.lower().split()) - set(" ".join(SLOTS.values()).lower().split())) - kept
    assert scaffold - kept  # the form drops some of the template's words


def test_a_sub_question_no_listed_template_wrote_is_searched_as_worded():
    # a model's or a reviewer's wording, and a template whose words state what is asked
    assert search_words("What are the key differences between hash joins and merge joins?") == ""
    assert search_words(PLAN["causal"]["factors"].format(topic="replication lag")) == ""
    assert search_words("") == ""


def test_text_around_a_template_is_not_read_as_written_by_it():
    background = PLAN["open"]["background"].format(topic="WAL")
    assert search_words(f"In short: {background}") == ""
    assert search_words(f"{background} And why?") == ""

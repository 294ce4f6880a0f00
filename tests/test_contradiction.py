"""Contradictions: another figure for the same thing, not any two same-topic statements
whose numbers differ (graph/contradiction.py, read with the real spaCy parse)."""

import numpy as np
import pytest

from research_studio.config import ResearchConfig
from research_studio.graph.contradiction import contradicting
from research_studio.graph.nodes.domain_synthesis import conflict_groups, synthesize_domain
from research_studio.graph.nodes.gaps import conflicting_pairs

SAME_TOPIC = ResearchConfig().same_topic_similarity


def same_topic(texts_a: list[str], texts_b: list[str]) -> np.ndarray:
    """Every pair on the same topic, so only the contradiction test decides."""
    return np.ones((len(texts_a), len(texts_b)))


def finding(fid: str, text: str, source: str) -> dict:
    return {"finding_id": fid, "sub_question_id": "sq_001", "text": text, "source_id": source,
            "quote": text, "confidence": 0.8}


def contradict(a: str, b: str, titles: tuple[str, str] = ("", ""),
               sources: tuple[str, str] = ("s1", "s2")) -> bool:
    return contradicting([a, b], list(titles), list(sources), [(0, 1)])[0]


def test_the_same_statement_with_another_figure_contradicts():
    assert contradict("The bridge opened to traffic in 1998.", "The bridge opened to traffic in 2003.")
    # reworded, the figure stated of the same thing by another verb form
    assert contradict("In 2004, the band was formed by Rory Attwell and Sam Mehran.",
                      "The band was formed in 2006 by Rory Attwell and Sam Mehran, who were "
                      "later joined by Devonte Hynes.")
    # the same share of the same group, stated with other verbs
    assert contradict("Ashkenazi Jews represent the bulk of modern Jewry, with at least 70% of "
                      "Jews worldwide.",
                      "Other estimates place Ashkenazi Jews as making up about 75% of Jews worldwide.")


@pytest.mark.parametrize("a, b", [
    # a date before the subject's noun says which team it is
    ("The 1964 Georgia Tech Yellow Jackets football team represented the Georgia Institute "
     "of Technology during the 1964 college football season.",
     "The 1987 Georgia Tech Yellow Jackets football team represented the Georgia Institute "
     "of Technology during the 1987 college football season."),
    # subjects that are other things: neither names all the other names
    ("Common index properties are listed in Table 9.73.",
     "Access method properties are listed in Table 9.72."),
    # numbers in the subject's name: two buildings
    ("888 7th Avenue is a 628 ft tall office skyscraper in Midtown Manhattan.",
     "712 5th Avenue is a 650 ft tall office skyscraper in Midtown Manhattan."),
])
def test_figures_of_two_different_things_do_not_contradict(a, b):
    assert not contradict(a, b)


def test_ages_at_two_different_events_do_not_contradict():
    assert not contradict("He made his first-team debut for West Ham in March 2009, at the age of 19.",
                          "He started his career in the youth team of West Ham United at the "
                          "age of 10 in 2000.")


def test_a_figure_stated_after_the_subject_is_a_claim_about_it():
    # "(born 1954 …)" follows the subject's name: it is what the sentence says of him
    assert contradict("Frederick King Keller (born 1954 in Buffalo, New York) is an American "
                      "director, producer and screenwriter.",
                      "Frederick King Keller (born 1899 in Buffalo, New York) is an American "
                      "director, producer and screenwriter.")


def test_statements_about_their_own_pages_contradict_only_when_the_pages_agree():
    a, b = ("It has a Roud Folk Song Index number of 821.",
            "It has a Roud Folk Song Index number of 12986.")
    assert not contradict(a, b, titles=("What Are Little Boys Made Of?", "Pretty Little Dutch Girl"))
    assert not contradict(a, b, titles=("Fontanelle, Iowa", "Dow City, Iowa"))
    assert not contradict(a, b, titles=("2014 Grand Prix of Long Beach", "2015 Grand Prix of Long Beach"))
    assert contradict(a, b, titles=("Pretty Little Dutch Girl", "Pretty Little Dutch Girl"))
    assert contradict(a, b, titles=("Golden Gate Bridge - Wikipedia",
                                    "Golden Gate Bridge | History, Length, & Facts | Britannica"))
    assert contradict(a, b, titles=("Jews", "Ashkenazi Jews"))
    assert contradict(a, b, titles=("", "Pretty Little Dutch Girl"))  # an untitled source tells nothing
    assert contradict(a, b, titles=("What Are Little Boys Made Of?", "Pretty Little Dutch Girl"),
                      sources=("s1", "s1"))  # one page


def test_a_subject_is_its_words_not_how_the_parse_names_them():
    # an aside in brackets names nothing the subject is
    assert contradict("The Millau Viaduct (French: Viaduc de Millau) was opened to traffic in 2004.",
                      "The Millau Viaduct was opened to traffic in 2005.")
    # the same words, read by the parse as the name "Millau" and as "Millau Viaduct"
    assert contradict("The viaduct near Millau was opened to traffic in 2005.",
                      "The Millau Viaduct was opened to traffic in 2004.")
    # other words are another thing, names or not
    assert not contradict("Georgia Tech was founded in 1885.", "Georgia was founded in 1732.")


def test_table_rows_with_other_labels_do_not_contradict():
    assert not contradict("E061-03 — Core?: Core; Description: IN predicate with list of values",
                          "E061-02 — Core?: Core; Description: BETWEEN predicate")
    assert contradict("max_connections — Default: 100; Context: postmaster",
                      "max_connections — Default: 115; Context: postmaster")


def test_figures_stated_under_two_definition_list_terms_do_not_contradict():
    a, b = "The default value is four megabytes (4MB).", "The default value is 64 megabytes (64MB)."
    one_page = {"titles": ("20.4. Resource Consumption",) * 2, "sources": ("s1", "s1")}
    assert contradict(a, b, **one_page)  # nothing says what each is the default of
    assert not contradicting([a, b], list(one_page["titles"]), list(one_page["sources"]), [(0, 1)],
                             ["work_mem (integer)", "maintenance_work_mem (integer)"])[0]
    assert contradicting([a, b], list(one_page["titles"]), list(one_page["sources"]), [(0, 1)],
                         ["work_mem (integer)", "work_mem (integer)"])[0]
    # in a synthesis, each finding's own term
    findings = [{**finding("f1", a, "s1"), "context": "work_mem (integer)"},
                {**finding("f2", b, "s2"), "context": "maintenance_work_mem (integer)"}]
    titles = {"s1": "20.4. Resource Consumption", "s2": "20.4. Resource Consumption"}
    assert conflict_groups(findings, same_topic, SAME_TOPIC, titles) == []
    assert conflict_groups([{**f, "context": ""} for f in findings], same_topic, SAME_TOPIC,
                           titles) == [[0, 1]]


def test_domain_synthesis_keeps_figures_of_different_pages():
    findings = [finding("f1", "It has a Roud Folk Song Index number of 821.", "s1"),
                finding("f2", "It has a Roud Folk Song Index number of 12986.", "s2"),
                finding("f3", "It has a Roud Folk Song Index number of 13026.", "s3")]
    sources = {"s1": {"source_id": "s1", "title": "What Are Little Boys Made Of?", "text": "."},
               "s2": {"source_id": "s2", "title": "Pretty Little Dutch Girl", "text": "."},
               "s3": {"source_id": "s3", "title": "Pretty Little Dutch Girl", "text": "."}}
    titles = {sid: s["title"] for sid, s in sources.items()}
    assert conflict_groups(findings, same_topic, SAME_TOPIC, titles) == [[1, 2]]
    assert conflicting_pairs(findings, same_topic, SAME_TOPIC, titles) == [("f2", "f3")]
    sheet, _ = synthesize_domain({"sub_question_id": "sq_001", "question_text": "?"}, findings,
                                 sources, same_topic, ResearchConfig())
    [conflict] = sheet["conflicts_resolved"]
    assert conflict["resolved_from"] == ["f2", "f3"]
    kept = {f for insight in sheet["key_insights"] for f in insight["finding_ids"]}
    assert "f1" in kept  # another page's figure is evidence, not the loser of a vote

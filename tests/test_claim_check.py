"""Verification that can fail: a statement a capable model worded (a finding's statement
next to its quote, a summary sentence next to its claims) must say what the text it cites
says, or the claim is unverified and the sentence dropped. The real sentence encoder
judges meaning here; a claim worded as its quote (the offline path) is never checked."""

import asyncio
import json

import numpy as np
import pytest
from langgraph.runtime import Runtime

from research_studio.config import ModelSettings, ModelSpec, ResearchConfig, WebSettings
from research_studio.graph import claim_check
from research_studio.graph.claim_check import Statement, check_statements, same_text
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.domain_synthesis import synthesize_domain
from research_studio.graph.nodes.execute import Retrieved
from research_studio.graph.nodes.findings import extractive_findings, llm_findings, validate_findings
from research_studio.graph.nodes.trust import trust_engine, trust_engine_node
from research_studio.graph.nodes.write import write_node
from research_studio.models.coordinator import ModelCoordinator
from tests.conftest import scripted

TITLE = "Millau Viaduct"
SPANS = ("The Millau Viaduct is a cable-stayed bridge that spans the valley of the Tarn near "
         "Millau in southern France.")
DESIGN = "It was designed by the structural engineer Michel Virlogeux and the architect Norman Foster."
OPENED = "The viaduct was opened to traffic on 16 December 2004."
PIER = "Its highest pier reaches 343 metres above the base of the valley."
PASSAGE = " ".join([SPANS, DESIGN, OPENED, PIER])
SOURCE_ID = "kb:bridges:c1"
SOURCE = {"source_id": SOURCE_ID, "kind": "kb", "kb": "bridges", "doc_id": "millau", "title": TITLE,
          "text": PASSAGE, "location": "/docs/millau.md", "chunk_id": "c1", "start": 0,
          "end": len(PASSAGE)}
SUB_QUESTION = {"sub_question_id": "sq_001", "priority": 1.0, "iteration_count": 1,
                "question_text": "Who designed the Millau Viaduct, where is it and when did it open?"}

# what a capable model might write next to each quote
FAITHFUL = "Michel Virlogeux and Norman Foster designed the Millau Viaduct."  # quote says "It"
WRONG_NUMBER = "The viaduct opened to traffic in December 2005."
WRONG_NAME = "The Millau Viaduct spans the valley of the Loire near Millau."
UNRELATED = "Tolls collected on the viaduct fund the regional railway network."
PROPOSED = [(FAITHFUL, DESIGN), (WRONG_NUMBER, OPENED), (WRONG_NAME, SPANS), (UNRELATED, PIER)]



def make_deps(*replies: str, strong: bool = True) -> ResearchDeps:
    settings = ModelSettings(models={"embedded": ModelSpec(capability="strong")}) if strong \
        else ModelSettings()
    coordinator = ModelCoordinator(settings, chat_models={"embedded": scripted(*replies)})
    return ResearchDeps(coordinator=coordinator, kb=None, web=WebSettings(provider="none"))


@pytest.fixture(scope="module")
def similarity():
    """The real sentence encoder's cosine matrix (ResearchDeps.similarity)."""
    return make_deps(strong=False).similarity


MIN = ResearchConfig().claim_text_min_similarity


def test_names_numbers_and_meaning_are_checked_against_the_quote(similarity):
    statements = [Statement(text, quote, TITLE) for text, quote in PROPOSED]
    faithful, number, name, unrelated = check_statements(statements, similarity, MIN)
    assert faithful["passed"] and faithful["missing"] == [] and faithful["similarity"] >= MIN
    assert not number["passed"] and number["missing"] == ["2005"]
    assert not name["passed"] and name["missing"] == ["Loire"]
    assert not unrelated["passed"] and unrelated["missing"] == []
    assert unrelated["similarity"] < MIN and unrelated["min_similarity"] == MIN


def test_a_faithful_paraphrase_passes_and_names_may_come_from_the_page_title(similarity):
    paraphrases = [Statement("The viaduct opened to traffic in December 2004.", OPENED),
                   Statement("The tallest pier of the viaduct rises 343 metres.", PIER),
                   Statement("The bridge crosses the Tarn valley near Millau, in southern France.",
                             SPANS)]
    assert all(r["passed"] for r in check_statements(paraphrases, similarity, MIN))
    # the quote says "It": the page's title is where the name comes from
    [no_title] = check_statements([Statement(FAITHFUL, DESIGN)], similarity, MIN)
    assert not no_title["passed"] and no_title["missing"] == ["the Millau Viaduct"]


def test_a_statement_worded_as_its_support_costs_nothing(monkeypatch):
    def never(*_args):
        raise AssertionError("no parse and no embedding for a statement worded as its quote")

    monkeypatch.setattr(claim_check, "parse_batch", never)
    assert check_statements([Statement(OPENED, OPENED), Statement(f" {PIER.upper()} ", PIER)],
                            never, MIN) == [None, None]
    assert same_text("Tides  rise .", "tides rise") and not same_text("Tides rise.", "Tides fall.")


def research_state(findings: list[dict], similarity, source: dict = SOURCE) -> dict:
    sources = {SOURCE_ID: source}
    return {"query": SUB_QUESTION["question_text"], "mode": "flat", "mode_reason": "test",
            "decomposition_path": "flat", "config": ResearchConfig(),
            "sub_questions": [SUB_QUESTION], "findings": findings, "sources": sources,
            "fact_sheets": [synthesize_domain(SUB_QUESTION, findings, sources, similarity,
                                              ResearchConfig())[0]]}


def model_findings(deps: ResearchDeps) -> list[dict]:
    candidates = asyncio.run(llm_findings(deps, SUB_QUESTION, [Retrieved(SOURCE, 0, "Millau Viaduct")], 1,
                                           ResearchConfig()))
    return validate_findings(candidates, [], {SOURCE_ID: PASSAGE}, lambda quotes: set(),
                             ResearchConfig().duplicate_quote_overlap)


def test_claims_a_capable_model_words_beyond_their_quotes_end_unverified_and_unreported():
    findings_reply = json.dumps({"findings": [
        {"statement": text, "quote": quote, "source_number": 1} for text, quote in PROPOSED]})
    summary = (f"{FAITHFUL[:-1]} [C1]. The viaduct was designed by Gustave Eiffel [C1]. "
               "The two engineers finished it in 2005 [C1]. Tolls on it fund the railway [C1].")
    deps = make_deps(findings_reply, json.dumps({"summary": summary}))
    findings = model_findings(deps)
    assert [(f["text"], f["quote"]) for f in findings] == PROPOSED  # every quote is in the source

    state = research_state(findings, deps.similarity)
    trust = asyncio.run(trust_engine_node(state, Runtime(context=deps)))
    claims = {c["text"]: c for c in trust["claims"]}
    assert claims[FAITHFUL]["status"] in ("verified", "single_source")
    assert claims[FAITHFUL]["verification"]["text_check"]["passed"]
    for text, missing in ((WRONG_NUMBER, ["2005"]), (WRONG_NAME, ["Loire"]), (UNRELATED, [])):
        claim = claims[text]
        assert claim["status"] == "unverified" and claim["source_ids"] == []
        assert claim["confidence"] == 0.0
        assert claim["verification"]["method"] == "exact"  # the quote itself is in the source
        assert claim["verification"]["text_check"]["missing"] == missing
        assert not claim["verification"]["text_check"]["passed"]
    assert claims[UNRELATED]["verification"]["text_check"]["similarity"] < MIN
    assert trust["hallucination_score"] == 0.75

    report = asyncio.run(write_node({**state, **trust}, Runtime(context=deps)))
    markdown = report["report_markdown"]
    assert report["synthesis_status"] == "llm"
    summary_line = markdown.split("## Answer\n", 1)[1].strip().split("\n", 1)[0]
    assert summary_line == f"{FAITHFUL[:-1]} . ✓[S1]"  # one sentence of four survives
    for unsupported in ("2005", "Loire", "Tolls", "Eiffel"):
        assert unsupported not in markdown
    assert "3 candidate claims could not be verified" in markdown
    assert "0 cross-validated, 1 verified, 0 single-source, 3 unverified; hallucination score 0.75" \
        in markdown


def test_the_offline_path_is_not_checked_and_unchanged(monkeypatch, similarity):
    """Extractive findings are their quotes: no parse, no embedding beyond what
    corroboration already costs, and the same claims whatever the minimum."""
    # a paragraph a sentence, so the three quotes stay three claims
    paragraphs = {**SOURCE, "text": "\n\n".join([SPANS, DESIGN, OPENED, PIER])}
    paragraphs["end"] = len(paragraphs["text"])
    findings = extractive_findings(SUB_QUESTION, [Retrieved(paragraphs, 0, "Millau Viaduct designed opened")],
                                   0, ResearchConfig(findings_per_result=3))
    assert len(findings) == 3 and all(f["text"] == f["quote"] for f in findings)
    state = research_state(findings, similarity, paragraphs)
    calls: list[tuple[list[str], list[str]]] = []

    def recording(texts_a: list[str], texts_b: list[str]) -> np.ndarray:
        calls.append((texts_a, texts_b))
        return similarity(texts_a, texts_b)

    def never(*_args):
        raise AssertionError("the offline path parses nothing for the claim check")

    monkeypatch.setattr(claim_check, "parse_batch", never)
    results = [trust_engine(state["fact_sheets"], findings, state["sources"],
                            ResearchConfig(claim_text_min_similarity=minimum), recording)
               for minimum in (0.0, 1.0)]
    assert results[0] == results[1]
    assert results[0]["hallucination_score"] == 0.0
    assert all("text_check" not in c["verification"] for c in results[0]["claims"])
    # the only encoder calls are corroboration's, one per run: claims against themselves
    assert len(calls) == 2 and all(a == b for a, b in calls)

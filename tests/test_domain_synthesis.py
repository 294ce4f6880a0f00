"""Domain synthesis (seed 004 tier 2/3): weighted voting arithmetic, fact sheets, patterns."""

import asyncio
import re

import numpy as np
import pytest
from langgraph.runtime import Runtime

from research_studio.config import ModelSettings, ResearchConfig, WebSettings
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.domain_synthesis import (
    conflict_groups,
    cross_domain_patterns,
    domain_synthesis_node,
    evidence_counts,
    evidence_strength,
    group_by_domain,
    insight_types,
    merge_insights,
    numeric_tokens,
    resolve_conflict,
    resolve_domain,
    source_reach,
    synthesize_domain,
)
from research_studio.models.coordinator import ModelCoordinator

CONFIG = ResearchConfig()
SAME_TOPIC = CONFIG.same_topic_similarity


def jaccard(texts_a: list[str], texts_b: list[str]) -> np.ndarray:
    """Word overlap ignoring numbers: sentences that differ only in a number score 1.0."""
    def words(text: str) -> set[str]:
        return set(re.findall(r"[a-z]+", text.lower()))

    return np.array([[len(words(a) & words(b)) / max(1, len(words(a) | words(b)))
                      for b in texts_b] for a in texts_a])


def finding(fid: str, text: str, confidence: float, source: str = "s1", sq: str = "sq_001") -> dict:
    return {"finding_id": fid, "sub_question_id": sq, "text": text, "source_id": source,
            "quote": text, "confidence": confidence}


SOURCES = {f"s{i}": {"source_id": f"s{i}", "kind": "kb", "text": "..."} for i in range(1, 10)}
SQ1 = {"sub_question_id": "sq_001", "question_text": "When did the bridge open?"}
SQ2 = {"sub_question_id": "sq_002", "question_text": "How long is the bridge?"}


# ---- weighted voting ---------------------------------------------------------------------------
def test_weighted_voting_arithmetic_of_seed_004():
    a = finding("f1", "The bridge opened to traffic in 1998 after years of work.", 0.9)
    b = finding("f2", "The bridge opened to traffic in 2003 after years of work.", 0.6)
    # weights 0.9 * 1.1 = 0.99 and 0.6 * 1.1 = 0.66 -> normalised 0.6 / 0.4, penalty 0.8
    winner, record = resolve_conflict([a, b], {"f1": 1, "f2": 1})
    assert winner["finding_id"] == "f1"
    assert winner["confidence"] == pytest.approx(0.72)
    assert record["winner_confidence"] == pytest.approx(0.72)
    assert record["disagreement_level"] == pytest.approx(0.2)
    assert record["resolved_from"] == ["f1", "f2"]
    assert record["winner_finding_id"] == "f1"
    assert record["topic"] == a["text"][:80]
    assert a["confidence"] == 0.9  # the input finding is not mutated


def test_evidence_count_adds_ten_percent_per_agreeing_finding():
    a = finding("f1", "x 1998", 0.9)
    b = finding("f2", "x 2003", 0.6)
    # weights 0.9 * 1.2 = 1.08 and 0.66 -> normalised 0.62069 / 0.37931
    winner, record = resolve_conflict([a, b], {"f1": 2, "f2": 1})
    penalty = 1 - (1.08 / 1.74 - 0.66 / 1.74)
    assert winner["confidence"] == pytest.approx(0.9 * penalty, abs=1e-4)
    assert record["disagreement_level"] == pytest.approx(1 - penalty, abs=1e-4)


def test_equal_weights_first_wins_without_penalty():
    winner, record = resolve_conflict([finding("f1", "x 1", 0.5), finding("f2", "x 2", 0.5)],
                                      {"f1": 1, "f2": 1})
    assert winner["finding_id"] == "f1"
    assert record["disagreement_level"] == pytest.approx(0.0)
    assert winner["confidence"] == pytest.approx(0.5)


def test_contradictions_need_same_topic_and_disjoint_numbers():
    findings = [
        finding("f1", "The bridge opened to traffic in 1998.", 0.6),
        finding("f2", "The bridge opened to traffic in 2003.", 0.7),
        finding("f3", "The bridge opened to traffic in 2003.", 0.5, source="s3"),
        finding("f4", "Concrete piers rest on granite 12 metres deep.", 0.8),  # other topic
        finding("f5", "The bridge opened to traffic.", 0.8),  # no number: no conflict
    ]
    assert conflict_groups(findings, jaccard, SAME_TOPIC) == [[0, 1, 2]]
    assert evidence_counts(findings, jaccard, SAME_TOPIC) == {"f1": 1, "f2": 2, "f3": 2, "f4": 1, "f5": 1}
    assert numeric_tokens("5 km vs 7 km, 1,000 people, 2.5%") == {"5", "7", "1000", "2.5", "0.025"}


def test_a_percentage_and_the_same_fraction_do_not_conflict():
    # the same limit stated as a multiplier in one page and as a percentage in another
    multiplier = finding("f1", "The value is capped at 0.95 of the freeze age.", 0.8, source="s1")
    percent = finding("f2", "The value is capped at 95% of the freeze age.", 0.8, source="s2")
    other = finding("f3", "The value is capped at 90% of the freeze age.", 0.8, source="s3")
    assert conflict_groups([multiplier, percent], jaccard, SAME_TOPIC) == []
    assert conflict_groups([multiplier, other], jaccard, SAME_TOPIC) == [[0, 1]]
    assert conflict_groups([percent, other], jaccard, SAME_TOPIC) == [[0, 1]]


def test_resolution_keeps_agreeing_findings_and_drops_losers():
    findings = [
        finding("f1", "The bridge opened to traffic in 1998.", 0.6, source="s1"),
        finding("f2", "The bridge opened to traffic in 2003.", 0.7, source="s2"),
        finding("f3", "The bridge opened to traffic in 2003.", 0.5, source="s3"),
    ]
    # weights 0.66, 0.84, 0.60 -> normalised 0.3143, 0.4, 0.2857; penalty 1 - 0.1143
    survivors, records, winners = resolve_domain(findings, jaccard, SAME_TOPIC)
    assert [f["finding_id"] for f in survivors] == ["f2", "f3"]
    [record] = records
    assert record["resolved_from"] == ["f1", "f2", "f3"]
    assert record["winner_finding_id"] == "f2"
    assert winners[0]["confidence"] == pytest.approx(0.7 * (1 - (0.84 - 0.60) / 2.1), abs=1e-4)

    sheet = synthesize_domain(SQ1, findings, SOURCES, jaccard, CONFIG)[0]
    [insight] = sheet["key_insights"]  # f2 and f3 are near-duplicates: one insight
    assert insight["finding_ids"] == ["f2", "f3"]
    assert insight["source_ids"] == ["s2", "s3"]
    assert insight["confidence"] == pytest.approx(0.62, abs=1e-4)
    assert insight["type"] == "temporal"
    assert sheet["conflicts_resolved"] == [record]
    assert sheet["evidence_count"] == 3
    assert sheet["domain"] == "sq_001" and sheet["title"] == SQ1["question_text"]
    assert sheet["aggregate_confidence"] == pytest.approx(0.62)
    assert sheet["evidence_strength"] == "moderate"  # two sources


def test_domain_without_conflict_keeps_every_finding():
    findings = [
        finding("f1", "The main span is 342 metres long.", 0.9, source="s1"),
        finding("f2", "Engineers used weathering steel for the deck.", 0.8, source="s2"),
        finding("f3", "A viaduct is a bridge made of many short spans.", 0.7, source="s3"),
    ]
    sheet = synthesize_domain(SQ2, findings, SOURCES, jaccard, CONFIG)[0]
    assert sheet["conflicts_resolved"] == []
    assert [i["finding_ids"] for i in sheet["key_insights"]] == [["f1"], ["f2"], ["f3"]]
    assert [i["type"] for i in sheet["key_insights"]] == ["quantitative", "fact", "definition"]
    assert sheet["aggregate_confidence"] == pytest.approx(0.8)
    assert sheet["evidence_strength"] == "strong"  # 3 sources, mean 0.8


def test_insights_sorted_capped_and_grounded():
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    findings = [finding(f"f{i}", f"Fact about {w}.", 0.1 * (i + 1), source="s1")
                for i, w in enumerate(words[:9])]
    findings.append(finding("f_orphan", "Fact about kappa.", 1.0, source="missing"))
    sheet = synthesize_domain(SQ1, findings, SOURCES, jaccard, ResearchConfig(max_report_claims=8))[0]
    confidences = [i["confidence"] for i in sheet["key_insights"]]
    assert len(confidences) == 8 and confidences == sorted(confidences, reverse=True)
    assert "f_orphan" not in {f for i in sheet["key_insights"] for f in i["finding_ids"]}
    assert sheet["evidence_count"] == 9
    assert sheet["evidence_strength"] == "moderate"  # one source, mean 0.55


def test_near_duplicates_merge_only_when_they_state_the_same_facts():
    """The encoder reads them all as one statement (cosine 0.95 here); only the rewording
    about the same person is merged, with its source; another person, or another year,
    stays a claim of its own."""
    findings = [
        finding("f1", "Joseph Fogerty Sr. was an Irish builder and architect active in Limerick.",
                0.8, "s1"),
        finding("f2", "Joseph Fogerty Sr. was an Irish architect and builder working in Limerick.",
                0.7, "s2"),
        finding("f3", "John Fogerty was an Irish millwright, architect and builder active in "
                "Limerick.", 0.6, "s3"),
    ]
    insights = merge_insights(findings, np.full((3, 3), 0.95), CONFIG.near_duplicate_similarity)
    assert [i["finding_ids"] for i in insights] == [["f1", "f2"], ["f3"]]
    assert insights[0]["source_ids"] == ["s1", "s2"]
    years = [finding("f4", "The bridge in Limerick was completed in 1840.", 0.5, "s4"),
             finding("f5", "The bridge in Limerick was completed in 1860.", 0.4, "s5")]
    assert len(merge_insights(years, np.full((2, 2), 0.95), CONFIG.near_duplicate_similarity)) == 2


def test_the_same_sentence_under_two_definition_terms_stays_two_insights():
    """A sentence two settings' entries share is said of each setting: merged, one claim
    would carry one term and be 'corroborated' by the other setting's source."""
    text = "Setting this to zero prints all statement durations."
    findings = [{**finding("f1", text, 0.8, "s1"), "context": "log_min_duration_statement (integer)"},
                {**finding("f2", text, 0.7, "s2"), "context": "log_min_duration_sample (integer)"},
                {**finding("f3", text, 0.6, "s3"), "context": "log_min_duration_sample (integer)"}]
    insights = merge_insights(findings, np.full((3, 3), 0.99), CONFIG.near_duplicate_similarity)
    assert [i["finding_ids"] for i in insights] == [["f1"], ["f2", "f3"]]


def test_source_reach_is_the_share_of_domains_that_found_a_source():
    domains = {"sq_001": [finding("a", "x", 0.5, "s1"), finding("b", "y", 0.5, "s2")],
               "sq_002": [finding("c", "x", 0.5, "s1", "sq_002")],
               "sq_003": [], "sq_004": [finding("d", "z", 0.5, "s1", "sq_004")]}
    assert source_reach(domains) == {"s1": 0.75, "s2": 0.25}
    flat = {"sq_001": domains["sq_001"]}
    assert set(source_reach(flat).values()) == {1.0}  # one domain: no source is preferred
    assert source_reach({}) == {}


def test_empty_domain_gives_an_empty_weak_sheet():
    sheet = synthesize_domain(SQ1, [], SOURCES, jaccard, CONFIG)[0]
    assert sheet["key_insights"] == [] and sheet["aggregate_confidence"] == 0.0
    assert sheet["evidence_strength"] == "weak" and sheet["evidence_count"] == 0


@pytest.mark.parametrize(("sources", "aggregate", "expected"), [
    (3, 0.7, "strong"), (5, 0.69, "moderate"), (2, 0.1, "moderate"), (1, 0.5, "moderate"),
    (1, 0.49, "weak"), (0, 0.0, "weak")])
def test_evidence_strength_thresholds(sources, aggregate, expected):
    assert evidence_strength(sources, aggregate) == expected


@pytest.mark.parametrize(("text", "kind"), [
    ("The span is 5 km long.", "quantitative"),
    ("It carried 25,000 vehicles a day in 2010.", "quantitative"),
    ("The bridge opened in 2004.", "temporal"),
    ("It was inaugurated on 14 December 2004.", "temporal"),
    ("Construction started in October.", "temporal"),
    ("A viaduct is a bridge of many spans.", "definition"),
    ("The deck is made of steel.", "fact"),
])
def test_insight_types(text, kind):
    assert insight_types([text]) == [kind]


def test_group_by_domain_keeps_plan_order_and_empty_domains():
    findings = [finding("f1", "a", 0.5, sq="sq_002"), finding("f2", "b", 0.5, sq="sq_009")]
    grouped = group_by_domain([SQ1, SQ2], findings)
    assert list(grouped) == ["sq_001", "sq_002"]
    assert grouped["sq_001"] == [] and [f["finding_id"] for f in grouped["sq_002"]] == ["f1"]


def test_cross_domain_patterns():
    def sheet(domain: str, *insights: tuple[str, str, str]) -> dict:
        return {"domain": domain, "key_insights": [
            {"insight": text, "finding_ids": [fid], "source_ids": [sid]}
            for text, fid, sid in insights]}

    sheets = [
        sheet("sq_001", ("The Millau Viaduct opened in 2004.", "f1", "s1"),
              ("Engineers praised it.", "f2", "s2")),
        sheet("sq_002", ("The Millau Viaduct is 2460 m long.", "f3", "s1"),
              ("Engineers used steel.", "f4", "s3")),
        sheet("sq_003", ("Tourists visit the Millau Viaduct.", "f5", "s4")),
    ]
    patterns = cross_domain_patterns(sheets, [])
    assert patterns[0] == {"pattern": "shared_entity", "value": "Millau Viaduct",
                           "domains": ["sq_001", "sq_002", "sq_003"]}
    assert {"pattern": "shared_source", "value": "s1", "domains": ["sq_001", "sq_002"]} in patterns
    assert all(p["value"] != "Engineers" for p in patterns)  # only ever sentence-initial
    assert len(patterns) == 2


def test_a_name_the_whole_knowledge_base_uses_connects_no_domains(registry, tmp_path):
    """Connections are names the evidence of several domains shares; one that nearly
    every passage of the collection names ("France" in a collection about France) says
    nothing of how two parts relate, while a name of one thing in it does."""
    folder = tmp_path / "france"
    folder.mkdir()
    places = ["Lyon", "Lille", "Nantes", "Rennes", "Dijon", "Nice", "Brest", "Metz"]
    for place in places:
        (folder / f"{place}.txt").write_text(
            f"{place} is a city in France with a cathedral and a market.\n", encoding="utf-8")
    (folder / "bridge.txt").write_text(
        "The Millau Viaduct crosses the Tarn valley in France.\n", encoding="utf-8")
    kb = registry.open("france", create=True)
    kb.ingest_paths([folder])
    deps = ResearchDeps(coordinator=ModelCoordinator(ModelSettings()), kb=kb, web=WebSettings())
    state = {
        "config": ResearchConfig(kb="france"),
        "sub_questions": [SQ1, SQ2],
        "sources": SOURCES,
        "findings": [
            finding("f1", "The Millau Viaduct in France opened in December 2004.", 0.9, "s1"),
            finding("f2", "The Millau Viaduct in France is 2460 metres long.", 0.8, "s2",
                    sq="sq_002")]}
    result = asyncio.run(domain_synthesis_node(state, Runtime(context=deps)))
    shared = [p["value"] for p in result["cross_domain_patterns"] if p["pattern"] == "shared_entity"]
    assert shared == ["Millau Viaduct"]
    # the floor is the config's: at 0 the collection's common name connects them too
    state["config"] = ResearchConfig(kb="france", connection_min_specificity=0.0)
    result = asyncio.run(domain_synthesis_node(state, Runtime(context=deps)))
    shared = [p["value"] for p in result["cross_domain_patterns"] if p["pattern"] == "shared_entity"]
    assert sorted(shared) == ["France", "Millau Viaduct"]


def test_node_with_real_embeddings():
    deps = ResearchDeps(coordinator=ModelCoordinator(ModelSettings()), kb=None, web=WebSettings())
    state = {
        "config": ResearchConfig(),
        "sub_questions": [SQ1, SQ2],
        "sources": SOURCES,
        "findings": [
            finding("f1", "The Millau Viaduct was opened to traffic in December 2004.", 0.9, "s1"),
            finding("f2", "The Millau Viaduct was opened to traffic in December 2005.", 0.6, "s2"),
            finding("f3", "The Millau Viaduct has a total length of 2460 metres.", 0.8, "s3",
                    sq="sq_002"),
        ],
    }
    result = asyncio.run(domain_synthesis_node(state, Runtime(context=deps)))
    assert result["stage"] == "domain_synthesis"
    first, second = result["fact_sheets"]
    [conflict] = first["conflicts_resolved"]
    assert conflict["winner_finding_id"] == "f1"
    assert conflict["resolved_from"] == ["f1", "f2"]
    assert [i["finding_ids"] for i in first["key_insights"]] == [["f1"]]
    assert [f["finding_id"] for f in result["findings"]] == ["f1"]
    assert result["findings"][0]["confidence"] == pytest.approx(0.72)
    assert second["domain"] == "sq_002" and len(second["key_insights"]) == 1
    assert {"pattern": "shared_entity", "value": "Millau Viaduct",
            "domains": ["sq_001", "sq_002"]} in result["cross_domain_patterns"]


def test_each_text_is_embedded_once_per_run():
    """Gap detection, domain synthesis and the writer compare the same findings: the
    encoder sees each text once, and a square matrix is one pass."""
    calls: list[int] = []

    class CountingEncoder:
        def embed_array(self, texts: list[str]):
            calls.append(len(texts))
            return np.eye(4, dtype=np.float32)[["abcd".index(t) for t in texts]]

    deps = ResearchDeps(coordinator=ModelCoordinator(ModelSettings()), kb=None, web=WebSettings(),
                        embeddings=CountingEncoder())  # type: ignore[arg-type]
    texts = ["a", "b", "c"]
    assert np.allclose(deps.similarity(texts, texts), np.eye(4)[:3, :3])
    assert calls == [3]
    assert np.allclose(deps.similarity(texts, ["a"]), [[1], [0], [0]])
    assert calls == [3], "known texts are not embedded again"
    assert np.allclose(deps.similarity(["d", "a", "d"], ["b"]), [[0], [0], [0]])
    assert calls == [3, 1], "only the new text, once"

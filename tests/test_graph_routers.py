"""The graph's pure decision functions: budgets (seed 001 §5), stopping (seed 001 phase 6),
routing between nodes, the gap loop's termination (seed 003 nodes 7–8) and clarification
convergence (seed 002). No knowledge base and no model: every test here is arithmetic."""

import asyncio
from types import SimpleNamespace

import pytest
from langgraph.types import Send

from research_studio.config import TEMPLATES, ModelSettings, ModelSpec, ResearchConfig, WebSettings
from research_studio.graph.build import (
    build_graph,
    collect_node,
    dispatch_research,
    instrumented,
    route_after_analysis,
    route_after_answer,
    route_after_clarify_retrieve,
    route_after_gaps,
)
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.analyze import analyze_node
from research_studio.graph.nodes.clarify import converged
from research_studio.graph.nodes.gaps import conflicting_pairs, gap_loop_decision, section_confidence
from research_studio.graph.nodes.plan import allocate_cost, allocate_iterations
from research_studio.graph.nodes.quality import Quality, StoppingInput, check_stopping, score_quality
from research_studio.models.coordinator import ModelCoordinator
from tests.conftest import scripted

HIERARCHICAL = ResearchConfig(max_iterations=20, sub_question_min_iterations=3,
                              sub_question_max_iterations=6)


# ---- seed 001 §5.1: iteration allocation ---------------------------------------------------------
def test_iteration_allocation_matches_the_seed_example():
    # 18 research iterations by weight 1.0/0.9/0.9/1.0 of 3.8: 4.7 → 5, 4.3 → 4
    assert allocate_iterations([1.0, 0.9, 0.9, 1.0], HIERARCHICAL) == [5, 4, 4, 5]


def test_the_hierarchical_template_gives_the_seed_example_too():
    config = ResearchConfig(**{k: v for k, v in TEMPLATES["hierarchical"].items()
                               if k in ResearchConfig.model_fields})
    assert allocate_iterations([1.0, 0.9, 0.9, 1.0], config) == [5, 4, 4, 5]


def test_iteration_allocation_rounds_half_up():
    # 18 / 4 = 4.5 each: half up gives 5 (Python's round() would give 4)
    assert allocate_iterations([1.0, 1.0, 1.0, 1.0], HIERARCHICAL) == [5, 5, 5, 5]


def test_iteration_allocation_is_clamped_to_min_and_max():
    # 18 * 1.0 / 1.1 = 16.4 → max 6; 18 * 0.1 / 1.1 = 1.6 → 2 → min 3
    assert allocate_iterations([1.0, 0.1], HIERARCHICAL) == [6, 3]
    tiny = HIERARCHICAL.model_copy(update={"max_iterations": 4})  # 2 research iterations
    assert allocate_iterations([1.0, 0.5, 0.5], tiny) == [3, 3, 3]
    none_left = HIERARCHICAL.model_copy(update={"max_iterations": 1})
    assert allocate_iterations([1.0, 1.0], none_left) == [3, 3]


def test_iteration_allocation_edge_cases():
    assert allocate_iterations([], HIERARCHICAL) == []
    assert allocate_iterations([0.0, 0.0], HIERARCHICAL) == [3, 3]  # no weight: the minimum
    assert allocate_iterations([1.0], HIERARCHICAL) == [6]


# ---- seed 001 §5.2: cost allocation -------------------------------------------------------------
def test_cost_allocation_of_the_seed_example():
    cost = allocate_cost(4, ResearchConfig(max_total_cost_usd=3.0))
    # reserved: 0.05 decomposition + 4 x 0.10 sub-question synthesis + 0.15 meta-synthesis
    assert cost == pytest.approx({"total_usd": 3.0, "reserved_synthesis_usd": 0.60,
                                  "research_usd": 2.40, "per_sub_question_usd": 0.60})


def test_cost_allocation_follows_count_and_never_goes_negative():
    two = allocate_cost(2, ResearchConfig(max_total_cost_usd=1.0))
    assert two["reserved_synthesis_usd"] == pytest.approx(0.40)
    assert two["research_usd"] == pytest.approx(0.60)
    assert two["per_sub_question_usd"] == pytest.approx(0.30)
    broke = allocate_cost(5, ResearchConfig(max_total_cost_usd=0.5))
    assert broke["reserved_synthesis_usd"] == pytest.approx(0.70)
    assert broke["research_usd"] == 0.0 and broke["per_sub_question_usd"] == 0.0
    assert allocate_cost(0, ResearchConfig())["per_sub_question_usd"] == 0.0


# ---- score_quality / check_stopping (seed 001 phase 6) -------------------------------------------
def test_score_quality_arithmetic():
    findings = [{"confidence": 0.9}, {"confidence": 0.6}, {"confidence": 0.3}]
    quality = score_quality(findings, new=1, candidates=4)
    assert quality == Quality(confidence=0.6, novelty=0.25, saturation=0.75, findings=3)
    assert score_quality([], new=0, candidates=0) == Quality(0.0, 0.0, 1.0, 0)
    assert score_quality([{"confidence": 0.7}, {}], new=2, candidates=2) == Quality(0.35, 1.0, 0.0, 2)


def stopping(*, count=2, budget=5, minimum=2, findings=1, confidence=0.4, novelty=0.5,
             session=2, exhausted=False, next_queries=True) -> StoppingInput:
    return StoppingInput(iteration_count=count, iteration_budget=budget, min_iterations=minimum,
                         quality=Quality(confidence, novelty, round(1 - novelty, 3), findings),
                         session_iterations=session, budget_exhausted=exhausted,
                         has_next_queries=next_queries)


CONFIG = ResearchConfig()  # min_findings 3, min_confidence 0.7 over >= 2, max_iterations 20


def test_nothing_decisive_continues():
    assert check_stopping(stopping(), CONFIG) == ("continue", [])


def test_global_max_iterations_comes_first():
    great = dict(findings=5, confidence=0.95, novelty=0.0, count=9, budget=3)
    assert check_stopping(stopping(session=20, exhausted=True, **great), CONFIG) == \
        ("synthesize", ["max_iterations_reached"])
    assert check_stopping(stopping(session=19), CONFIG)[0] == "continue"


def test_exhausted_budget_forces_final_synthesis():
    assert check_stopping(stopping(exhausted=True, findings=5), CONFIG) == \
        ("synthesize", ["budget_exhausted"])


def test_three_findings_stop_once_the_minimum_is_met():
    assert check_stopping(stopping(findings=3, confidence=0.3), CONFIG) == \
        ("synthesize_sub_question", ["sufficient_findings"])
    assert check_stopping(stopping(findings=2, confidence=0.3), CONFIG)[0] == "continue"


def test_min_iterations_override_the_findings_rule():
    assert check_stopping(stopping(count=1, minimum=3, findings=4, confidence=0.3), CONFIG) == \
        ("continue", ["min_iterations_not_met"])


def test_sub_question_max_iterations_stop():
    action, reasons = check_stopping(stopping(count=5, budget=8, findings=0), CONFIG)
    assert (action, reasons) == ("synthesize_sub_question", ["sub_question_max_iterations"])
    # a smaller round budget is the limit too, and reasons accumulate
    action, reasons = check_stopping(stopping(count=3, budget=3, findings=3), CONFIG)
    assert action == "synthesize_sub_question"
    assert reasons == ["sufficient_findings", "sub_question_max_iterations"]
    assert check_stopping(stopping(count=4, budget=8, findings=0), CONFIG)[0] == "continue"


def test_high_average_confidence_stops_even_before_the_minimum():
    action, reasons = check_stopping(stopping(count=1, minimum=3, findings=2, confidence=0.7), CONFIG)
    assert action == "synthesize_sub_question"
    assert reasons == ["min_iterations_not_met", "high_quality_findings"]
    # one finding is not enough, and 0.69 is not high enough
    assert check_stopping(stopping(count=1, minimum=3, findings=1, confidence=0.9), CONFIG)[0] == \
        "continue"
    assert check_stopping(stopping(count=1, minimum=3, findings=2, confidence=0.69), CONFIG)[0] == \
        "continue"


def test_saturation_stops_only_after_the_minimum():
    assert check_stopping(stopping(count=2, minimum=2, novelty=0.2), CONFIG) == \
        ("synthesize_sub_question", ["saturated"])  # saturation 0.8 >= 0.75
    assert check_stopping(stopping(count=1, minimum=2, novelty=0.2), CONFIG)[0] == "continue"
    # novelty under 0.15 stops even where saturation was computed differently
    odd = StoppingInput(2, 5, 2, Quality(0.4, 0.1, 0.5, 1), 2, False, True)
    assert check_stopping(odd, CONFIG) == ("synthesize_sub_question", ["saturated"])


def test_no_new_queries_stops_only_after_the_minimum():
    assert check_stopping(stopping(count=2, minimum=2, next_queries=False), CONFIG) == \
        ("synthesize_sub_question", ["no_new_queries"])
    assert check_stopping(stopping(count=1, minimum=2, next_queries=False), CONFIG) == \
        ("continue", ["min_iterations_not_met"])


# ---- routing --------------------------------------------------------------------------------------
@pytest.mark.parametrize("policy", ["never", "auto", "always"])
@pytest.mark.parametrize("interactive", [True, False])
@pytest.mark.parametrize("needs", [True, False])
def test_route_after_analysis(policy, interactive, needs):
    state = {"config": ResearchConfig(clarify=policy, interactive=interactive),
             "query_analysis": {"needs_clarification": needs}}
    asks = interactive and (policy == "always" or (policy == "auto" and needs))
    assert route_after_analysis(state) == ("clarify_retrieve" if asks else "plan")


def test_route_after_analysis_defaults_to_no_clarification():
    assert route_after_analysis({"config": ResearchConfig()}) == "plan"
    assert route_after_analysis({"config": ResearchConfig(),
                                 "query_analysis": {"needs_clarification": True}}) == "plan"
    assert route_after_analysis({"config": ResearchConfig(interactive=True),  # clarify defaults to auto
                                 "query_analysis": {"needs_clarification": True}}) == "clarify_retrieve"


@pytest.mark.parametrize(("status", "route"), [
    ("converged", "plan"), ("max_iterations", "plan"), ("asking", "clarify_ask"),
    ("answered", "clarify_ask"), (None, "clarify_ask")])
def test_route_after_clarify_retrieve(status, route):
    state = {"clarification_status": status} if status else {}
    assert route_after_clarify_retrieve(state) == route


def test_route_after_answer():
    defaults = ResearchConfig()  # hitl_max_iterations 5
    assert route_after_answer({"config": defaults, "clarification_status": "ended",
                               "hitl_iteration": 1}) == "plan"
    assert route_after_answer({"config": defaults, "clarification_status": "answered",
                               "hitl_iteration": 5}) == "plan"
    assert route_after_answer({"config": defaults, "clarification_status": "answered",
                               "hitl_iteration": 4}) == "clarify_retrieve"
    assert route_after_answer({"config": ResearchConfig(hitl_max_iterations=2),
                               "clarification_status": "answered", "hitl_iteration": 2}) == "plan"
    assert route_after_answer({"config": ResearchConfig(hitl_max_iterations=2),
                               "clarification_status": "answered", "hitl_iteration": 1}) == \
        "clarify_retrieve"


def sq(sq_id: str, priority: float, status: str = "pending", iterations: int = 0) -> dict:
    return {"sub_question_id": sq_id, "question_text": f"question {sq_id}", "priority": priority,
            "status": status, "iteration_count": iterations, "iteration_budget": 3}


def research_state(**config) -> dict:
    return {
        "config": ResearchConfig(**config),
        "research_round": 1,
        "sub_questions": [sq("sq_001", 0.5), sq("sq_002", 1.0), sq("sq_003", 0.8, "completed", 4),
                          sq("sq_004", 0.8, iterations=2), sq("sq_005", 0.8)],
        "findings": [{"finding_id": "f1", "sub_question_id": "sq_002", "source_id": "s1", "text": "a"},
                     {"finding_id": "f2", "sub_question_id": "sq_003", "source_id": "s2", "text": "b"}],
        "sources": {"s1": {"source_id": "s1", "text": "a"}, "s2": {"source_id": "s2", "text": "b"}},
    }


def test_dispatch_sends_every_pending_sub_question_in_priority_order():
    sends = dispatch_research(research_state())
    assert all(isinstance(s, Send) and s.node == "research_sub_question" for s in sends)
    ids = [s.arg["sub_agent_task"]["sub_question"]["sub_question_id"] for s in sends]
    assert ids == ["sq_002", "sq_004", "sq_005", "sq_001"]  # ties by id, completed one left out


def test_dispatch_payload_carries_only_the_sub_questions_own_evidence():
    state = research_state(parallel=True, min_findings=4)
    first = dispatch_research(state)[0].arg
    assert first["config"] == ResearchConfig(parallel=True, min_findings=4)
    task = first["sub_agent_task"]
    assert [f["finding_id"] for f in task["findings"]] == ["f1"]
    assert list(task["sources"]) == ["s1"]
    assert task["session_iterations"] == 6  # 4 + 2 done by the session so far
    assert task["research_round"] == 1
    other = dispatch_research(state)[-1].arg["sub_agent_task"]
    assert other["findings"] == [] and other["sources"] == {}


def test_sequential_dispatch_sends_only_the_top_priority():
    sends = dispatch_research(research_state(parallel=False))
    assert len(sends) == 1
    assert sends[0].arg["sub_agent_task"]["sub_question"]["sub_question_id"] == "sq_002"


def test_dispatch_goes_to_gap_detection_when_nothing_is_pending():
    state = research_state()
    state["sub_questions"] = [{**s, "status": "completed"} for s in state["sub_questions"]]
    assert dispatch_research(state) == "detect_gaps"
    assert dispatch_research({}) == "detect_gaps"


def test_route_after_gaps():
    state = research_state()
    refine = route_after_gaps({**state, "gap_decision": "refine"})
    assert [s.arg["sub_agent_task"]["sub_question"]["sub_question_id"] for s in refine] == \
        ["sq_002", "sq_004", "sq_005", "sq_001"]
    assert route_after_gaps({**state, "gap_decision": "proceed"}) == "domain_synthesis"
    assert route_after_gaps(state) == "domain_synthesis"


# ---- gap loop termination (seed 003 nodes 7–8) --------------------------------------------------
GAPS = ResearchConfig()  # max_gap_rounds 3, target 0.85, min gain 0.05


def test_gap_decision_rules_in_order():
    assert gap_loop_decision(3, 0.9, 0.1, 4, GAPS) == ("proceed", "max_gap_rounds")
    assert gap_loop_decision(1, 0.85, 0.0, 4, GAPS) == ("proceed", "confidence_target_met")
    assert gap_loop_decision(1, 0.84, 0.0, 4, GAPS) == ("refine", "gaps_remain")
    assert gap_loop_decision(2, 0.53, 0.50, 4, GAPS) == ("proceed", "diminishing_returns")
    assert gap_loop_decision(2, 0.56, 0.50, 4, GAPS) == ("refine", "gaps_remain")
    assert gap_loop_decision(2, 0.40, 0.50, 4, GAPS) == ("proceed", "diminishing_returns")  # got worse
    assert gap_loop_decision(1, 0.5, 0.0, 0, GAPS) == ("proceed", "no_gaps")


def test_diminishing_returns_do_not_apply_after_the_first_round():
    assert gap_loop_decision(1, 0.02, 0.0, 2, GAPS) == ("refine", "gaps_remain")


def test_gap_rounds_follow_the_config():
    one = ResearchConfig(max_gap_rounds=1)
    assert gap_loop_decision(1, 0.1, 0.0, 3, one) == ("proceed", "max_gap_rounds")
    strict = ResearchConfig(gap_confidence_target=0.95, min_confidence_gain=0.2)
    assert gap_loop_decision(2, 0.9, 0.75, 3, strict) == ("proceed", "diminishing_returns")
    assert gap_loop_decision(2, 0.9, 0.65, 3, strict) == ("refine", "gaps_remain")


def test_section_confidence_is_scaled_while_evidence_is_scarce():
    sub_question = {"synthesis": {"confidence": 0.9}}
    assert section_confidence(sub_question, [{}] * 2, GAPS) == pytest.approx(0.6)
    assert section_confidence(sub_question, [{}] * 3, GAPS) == pytest.approx(0.9)
    assert section_confidence(sub_question, [{}] * 7, GAPS) == pytest.approx(0.9)
    assert section_confidence(sub_question, [], GAPS) == 0.0
    assert section_confidence({"synthesis": None}, [{}] * 3, GAPS) == 0.0


def finding(fid: str, text: str, source: str) -> dict:
    return {"finding_id": fid, "text": text, "source_id": source}


def test_conflicting_pairs_need_other_sources_the_same_topic_and_different_numbers():
    """Same topic by the sentence encoder (the real one), figures compared as numbers."""
    similarity = ResearchDeps(coordinator=ModelCoordinator(ModelSettings()), kb=None,
                              web=WebSettings()).similarity

    def pairs(*findings: dict) -> list[tuple[str, str]]:
        return conflicting_pairs(list(findings), similarity, ResearchConfig().same_topic_similarity)

    a = finding("a", "The Golden Gate bridge is 2737 metres long.", "s1")
    b = finding("b", "The Golden Gate bridge is 1280 metres long.", "s2")
    assert pairs(a, b) == [("a", "b")]
    assert pairs(a, {**b, "source_id": "s1"}) == []  # same source
    assert pairs(a, finding("c", "The Golden Gate bridge is 2737 metres long, "
                                 "1280 of them over water.", "s2")) == []
    # different numbers, different topic: the encoder tells them apart, word overlap aside
    assert pairs(a, finding("d", "Tides rise 3 metres at Saint-Malo twice daily.", "s2")) == []
    assert pairs(a, finding("f", "The Golden Gate Park has 1017 acres of gardens.", "s2")) == []
    assert pairs(a, finding("e", "The Golden Gate bridge is very long.", "s2")) == []
    # the same fact worded differently still conflicts when its figure differs
    g = finding("g", "Its total length is 1970 m, the Golden Gate Bridge's records say.", "s3")
    assert pairs(a, b, g) == [("a", "b"), ("a", "g"), ("b", "g")]


# ---- clarification convergence (seed 002) ------------------------------------------------------
def test_clarification_converges_only_when_all_three_thresholds_hold():
    config = ResearchConfig()  # coverage 0.80, dedup 0.70, at most 2 gaps
    assert converged(0.80, 0.70, 2, config)
    assert converged(1.0, 1.0, 0, config)
    assert not converged(0.79, 0.9, 0, config)
    assert not converged(0.9, 0.69, 0, config)
    assert not converged(0.9, 0.9, 3, config)
    loose = ResearchConfig(hitl_coverage_threshold=0.5, hitl_dedup_threshold=0.3, hitl_max_gaps=4)
    assert converged(0.5, 0.3, 4, loose)


# ---- wiring ---------------------------------------------------------------------------------------
def test_graph_wiring():
    graph = build_graph()
    assert set(graph.nodes) == {"analyze", "clarify_retrieve", "clarify_ask", "plan",
                                "review_plan", "research_sub_question", "collect", "detect_gaps",
                                "domain_synthesis", "trust_engine", "write"}
    edges = set(graph.edges)
    assert ("__start__", "analyze") in edges
    assert ("domain_synthesis", "trust_engine") in edges
    assert ("trust_engine", "write") in edges
    assert ("write", "__end__") in edges
    assert ("research_sub_question", "collect") in edges
    branches = {node: set(graph.branches[node]) for node in graph.branches}
    assert set(branches) == {"analyze", "clarify_retrieve", "clarify_ask", "plan", "review_plan",
                             "collect", "detect_gaps"}
    graph.compile()  # every conditional destination names a node


def test_instrumented_node_reports_timing_and_its_own_llm_calls():
    events = []
    # a model trusted to reason is asked to analyse (the embedded model's analysis is the parse)
    coordinator = ModelCoordinator(ModelSettings(models={"embedded": ModelSpec(capability="strong")}),
                                   chat_models={"embedded": scripted("not json", "no json either")})
    deps = ResearchDeps(coordinator=coordinator, kb=None, web=WebSettings(provider="none"),
                        emit=lambda kind, data: events.append((kind, data)))
    node = instrumented("analyze", analyze_node)
    assert node.__name__ == "analyze"
    update = asyncio.run(node({"query": "Why is the sky blue?", "config": ResearchConfig()},
                              SimpleNamespace(context=deps)))
    assert update["query_analysis"]["method"] == "fallback"
    assert [c["node"] for c in update["llm_calls"]] == ["analyze", "analyze:repair"]
    assert len({c["task"] for c in update["llm_calls"]}) == 1
    assert update["llm_calls"][0]["task"].startswith("analyze:")
    assert update["structured_outcomes"] == ["fallback"]
    [timing] = update["node_timings"]
    assert timing["node"] == "analyze" and timing["wall_s"] >= 0 and "sub_question_id" not in timing
    assert events[0][0] == "stage" and events[0][1]["stage"] == "analyze"
    assert events[0][1]["tokens"] == 0  # tokens spent before this node
    # a second run gets a task of its own: the first run's calls are not handed out again
    again = asyncio.run(instrumented("analyze", analyze_node)(
        {"query": "Why is the sky blue?", "config": ResearchConfig()}, SimpleNamespace(context=deps)))
    assert len(again["llm_calls"]) == 1  # the script is used up: one failed call, no repair
    assert again["llm_calls"][0]["ok"] is False
    assert again["llm_calls"][0]["task"] != update["llm_calls"][0]["task"]


def test_instrumented_research_timing_names_the_sub_question():
    async def fake(state, runtime):
        return {"trace": []}

    deps = ResearchDeps(coordinator=ModelCoordinator(ModelSettings()), kb=None,
                        web=WebSettings(provider="none"))
    state = {"sub_agent_task": {"sub_question": {"sub_question_id": "sq_007"}}}
    update = asyncio.run(instrumented("research_sub_question", fake)(state, SimpleNamespace(context=deps)))
    assert update["node_timings"][0]["sub_question_id"] == "sq_007"
    assert update["llm_calls"] == [] and update["structured_outcomes"] == []


def test_collect_counts_completed_sub_questions():
    update = asyncio.run(collect_node(research_state(), SimpleNamespace(context=None)))
    assert update["trace"] == [{"node": "collect", "completed": 1, "total": 5}]

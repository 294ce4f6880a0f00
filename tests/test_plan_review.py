"""Plan review: the decision's checks, the edited plan's budgets, the routers, the
terminal review, and the whole round trip from the command line with the embedded model
(research --review-plan, sessions plan, resume --plan)."""

import json

import pytest
from langgraph.types import Send

from research_studio.cli_plan_review import review_at_terminal
from research_studio.config import ResearchConfig
from research_studio.graph.build import route_after_plan, route_after_review
from research_studio.graph.nodes.plan import allocate_iterations
from research_studio.graph.nodes.plan_review import edited_plan, pending_review
from research_studio.graph.plan_edits import (
    InvalidPlanDecision,
    editable_plan,
    parse_decision,
    validated_decision,
)
from research_studio.graph.session import RefusedAnswer, resume_value
from tests.research_corpus import write_research_corpus
from tests.test_cli import run


def sub_question(sq_id: str, text: str, priority: float, **extra) -> dict:
    return {"sub_question_id": sq_id, "question_text": text, "priority": priority,
            "status": "pending", "strategy": "comparison", "rationale": "parsed item",
            "iteration_budget": 3, "cost_budget_usd": 0.5, **extra}


def planned_state(config: ResearchConfig | None = None) -> dict:
    config = config or ResearchConfig(review_plan=True)
    return {"query": "Compare React, Vue and Angular", "config": config,
            "decomposition_tree": {"strategy": "comparison", "path": "deterministic"},
            "sub_questions": [sub_question("sq_001", "What is React?", 0.9,
                                           hop_clauses=["React"]),
                              sub_question("sq_002", "What is Vue?", 0.8),
                              sub_question("sq_003", "What is Angular?", 0.8,
                                           search_query="Angular — Compare React, Vue and Angular")]}


def pending() -> dict:
    state = planned_state()
    return pending_review(state, state["config"])


@pytest.mark.parametrize(("decision", "reason"), [
    ({"action": "edit", "sub_questions": []}, "at least one sub-question"),
    ({"action": "edit", "sub_questions": [{"id": None, "question": f"Q{i}?"} for i in range(6)]},
     "at most 5"),
    ({"action": "edit", "sub_questions": [{"id": "sq_001", "question": "   "}]}, "needs text"),
    ({"action": "edit", "sub_questions": [{"id": "sq_009", "question": "What?"}]},
     "'sq_009' is not in the pending plan"),
    ({"action": "edit", "sub_questions": [{"id": "sq_001", "question": "A?"},
                                          {"id": "sq_001", "question": "B?"}]}, "appears twice"),
    ({"action": "edit", "sub_questions": [{"id": "sq_001", "question": "A?", "priority": 2}]},
     "less than or equal to 1"),
    ({"action": "replan", "note": "  "}, "needs a note"),
    ({"action": "approve", "sub_questions": [{"id": "sq_001", "question": "A?"}]},
     "approve takes no sub-questions"),
    ({"action": "delete"}, "action"),
    ("approve", "decision"),
])
def test_invalid_decisions_are_refused_with_the_reason(decision, reason):
    with pytest.raises(InvalidPlanDecision, match=reason):
        validated_decision(decision, pending())


def test_an_edit_rewords_removes_adds_and_shares_the_budget_anew():
    state = planned_state()
    config = state["config"]
    decision = parse_decision({"action": "edit", "sub_questions": [
        {"id": "sq_003", "question": "How does Angular handle state?", "priority": 1.0},
        {"id": "sq_001", "question": "What is React?", "priority": 0.2},
        {"id": None, "question": "What is Svelte?", "priority": 0.6}]})
    plan = edited_plan(decision, state, config)
    assert [sq["sub_question_id"] for sq in plan] == ["sq_003", "sq_001", "sq_004"]
    assert plan[0]["question_text"] == "How does Angular handle state?"
    assert "reworded by the reviewer" in plan[0]["rationale"]
    assert plan[1]["hop_clauses"] == ["React"], "an unchanged text keeps its clause chain"
    assert "search_query" not in plan[0], "a reworded sub-question is searched in the reviewer's words"
    assert plan[2]["rationale"] == "added by the reviewer" and plan[2]["status"] == "pending"
    assert [sq["iteration_budget"] for sq in plan] == allocate_iterations([1.0, 0.2, 0.6], config)
    assert plan[0]["iteration_budget"] > plan[1]["iteration_budget"]


def test_new_sub_questions_never_reuse_a_removed_id():
    state = {**planned_state(), "plan_review_retired_ids": ["sq_007"]}
    decision = parse_decision({"action": "edit", "sub_questions": [
        {"id": None, "question": "What is Svelte?"}]})
    assert [sq["sub_question_id"] for sq in edited_plan(decision, state, ResearchConfig())] == [
        "sq_008"]


def test_routers_stop_for_review_and_go_back_to_the_planner_on_replan():
    state = planned_state()
    assert route_after_plan(state) == "review_plan"
    assert route_after_plan({**state, "config": ResearchConfig()}) != "review_plan"
    approved = {**state, "plan_review_status": "approved"}
    sends = route_after_review(approved)
    assert isinstance(sends, list) and all(isinstance(s, Send) for s in sends)
    assert len(sends) == 3
    assert route_after_review({**state, "plan_review_status": "replan"}) == "plan"
    assert route_after_plan({**state, "plan_review_status": "replan"}) == "review_plan"


def test_an_answer_must_fit_what_the_session_waits_for():
    plan = pending()
    with pytest.raises(RefusedAnswer, match="waits for a review of its plan"):
        resume_value("s1", [plan], "some text")
    with pytest.raises(RefusedAnswer, match="waits for an answer to its clarifying"):
        resume_value("s1", [{"questions": ["Which?"]}], {"action": "approve"})
    with pytest.raises(RefusedAnswer, match="no pending question"):
        resume_value("s1", [], "text")
    with pytest.raises(InvalidPlanDecision):
        resume_value("s1", [plan], {"action": "edit", "sub_questions": []})
    assert resume_value("s1", [plan], {"action": "approve"})["action"] == "approve"


def test_the_terminal_review_asks_again_after_an_invalid_edit():
    replies = iter(["e", "e"])
    edits = iter([{"action": "edit", "sub_questions": []},
                  {**editable_plan(pending()), "sub_questions": editable_plan(pending())[
                      "sub_questions"][:2]}])
    decision = review_at_terminal(pending(), read=lambda prompt: next(replies),
                                  edit=lambda plan: next(edits))
    assert decision["action"] == "edit" and len(decision["sub_questions"]) == 2
    assert review_at_terminal(pending(), read=lambda prompt: "q") is None
    notes = iter(["r", "only the last five years"])
    replan = review_at_terminal(pending(), read=lambda prompt: next(notes))
    assert replan == {"action": "replan", "sub_questions": None,
                      "note": "only the last five years"}


@pytest.mark.slow
def test_review_edit_and_replan_from_the_command_line(tmp_path):
    home = tmp_path / "home"
    run("ingest", str(write_research_corpus(tmp_path / "corpus")), "--kb", "bridges", home=home)
    question = ("Compare the Millau Viaduct and the Normandy Bridge: who designed each and "
                "when did it open?")
    first = tmp_path / "first.json"
    run("research", question, "--kb", "bridges", "--clarify", "never", "--review-plan",
        "--json", str(first), home=home)
    waiting = json.loads(first.read_text())
    session_id = waiting["session_id"]
    assert waiting["status"] == "awaiting_plan_review" and not waiting["claims"]
    proposed = waiting["pending_plan"]["sub_questions"]
    assert len(proposed) >= 2 and all(sq["iteration_budget"] > 0 for sq in proposed)

    # a replan with a note comes back with a new plan to review
    (tmp_path / "replan.json").write_text(json.dumps(
        {"action": "replan", "note": "and the Tarn river"}))
    again = tmp_path / "again.json"
    run("resume", session_id, "--plan", str(tmp_path / "replan.json"), "--json", str(again),
        home=home)
    second = json.loads(again.read_text())
    assert second["status"] == "awaiting_plan_review"
    assert second["pending_plan"]["round"] == 1

    editable = json.loads(run("sessions", "plan", session_id, home=home).stdout)
    ids = [sq["id"] for sq in editable["sub_questions"]]
    assert ids and not set(ids) & {sq["id"] for sq in proposed}, "a new plan has new ids"
    # an invalid edit is refused and the plan stays pending
    (tmp_path / "bad.json").write_text(json.dumps(
        {"action": "edit", "sub_questions": [{"id": "sq_999", "question": "What?"}]}))
    refused = run("resume", session_id, "--plan", str(tmp_path / "bad.json"), home=home,
                  check=False)
    assert refused.returncode != 0 and "'sq_999' is not in the pending plan" in refused.stderr
    assert json.loads(run("sessions", "plan", session_id, home=home).stdout) == editable

    kept = editable["sub_questions"][0]
    edit = {"action": "edit", "sub_questions": [
        {**kept, "question": "Who designed the Millau Viaduct?", "priority": 1.0},
        {"id": None, "question": "When did the Normandy Bridge open?", "priority": 0.7}]}
    (tmp_path / "edit.json").write_text(json.dumps(edit))
    final = tmp_path / "final.json"
    run("resume", session_id, "--plan", str(tmp_path / "edit.json"), "--json", str(final),
        home=home)
    result = json.loads(final.read_text())
    assert result["status"] == "completed", result.get("error")
    assert [sq["question_text"] for sq in result["sub_questions"]] == [
        "Who designed the Millau Viaduct?", "When did the Normandy Bridge open?"]
    assert all(sq["status"] == "completed" for sq in result["sub_questions"])
    assert [h["action"] for h in result["plan_review"]["history"]] == ["replan", "edit"]
    assert result["plan_review"]["notes"] == ["and the Tarn river"]
    assert "Virlogeux" in result["report_markdown"]
    assert "1995" in result["report_markdown"]

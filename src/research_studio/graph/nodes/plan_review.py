"""Plan review (seed 000's interactive decomposition): with ``review_plan`` the graph stops
after planning, shows the sub-questions with their priorities, strategies and budgets,
and resumes with the person's decision: approve, edit (reword, add, remove, reprioritise)
or a new plan with a note. Budgets are recomputed from the edited priorities with the
planner's own functions (seed 001 §5).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Overwrite, interrupt

from research_studio.config import ResearchConfig
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.common import research_query
from research_studio.graph.nodes.plan import new_sub_question, plan_budget, with_budgets
from research_studio.graph.plan_edits import (
    InvalidPlanDecision,
    PlanDecision,
    edited_rows,
    review_payload,
    validated_decision,
)
from research_studio.state import ResearchState, SubQuestion

REVIEWER_RATIONALE = "added by the reviewer"


def pending_review(state: ResearchState, config: ResearchConfig,
                   error: str | None = None) -> dict[str, Any]:
    """The interrupt's payload for the plan now in the state."""
    tree = state.get("decomposition_tree", {})
    return review_payload(state.get("sub_questions", []), research_query(state),
                          tree.get("strategy", ""), tree.get("path", ""), config,
                          state.get("plan_review_round", 0), error)


def edited_plan(decision: PlanDecision, state: ResearchState,
                config: ResearchConfig) -> list[SubQuestion]:
    """The sub-questions after an edit, budgets shared anew by the edited priorities.
    A reworded sub-question no longer climbs the nested question's clause chain, and is
    searched in the reviewer's words."""
    current = state.get("sub_questions", [])
    used = [*state.get("plan_review_retired_ids", []), *(sq["sub_question_id"] for sq in current)]
    strategy = state.get("decomposition_tree", {}).get("strategy", "")
    plan: list[SubQuestion] = []
    for sq_id, text, priority, before in edited_rows(decision, current, used):
        if before is None:
            record = new_sub_question(sq_id, text, priority, REVIEWER_RATIONALE, strategy)
        else:
            record = SubQuestion(**{**before, "priority": priority})
            if text != before["question_text"]:
                record["question_text"] = text
                record["rationale"] = f"reworded by the reviewer (was: {before['question_text']})"
                record.pop("hop_clauses", None)
                record.pop("search_query", None)
        plan.append(record)
    return with_budgets(plan, config)


async def review_plan_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    config = state["config"]
    payload = pending_review(state, config)
    while True:  # a refused decision asks again, with the reason; the plan stays pending
        try:
            decision = validated_decision(interrupt(payload), payload)
            break
        except InvalidPlanDecision as exc:
            payload = pending_review(state, config, error=str(exc))
    round_ = state.get("plan_review_round", 0)
    entry = {"round": round_, "action": decision.action}
    if decision.action == "replan":
        note = " ".join((decision.note or "").split())
        retired = [sq["sub_question_id"] for sq in state.get("sub_questions", [])]
        return {"plan_review_status": "replan", "plan_review_round": round_ + 1,
                "plan_review_notes": [note],
                "plan_review_retired_ids": [*state.get("plan_review_retired_ids", []), *retired],
                "plan_review_history": [{**entry, "note": note}],
                "trace": [{"node": "review_plan", "decision": "replan"}]}
    if decision.action == "approve":
        runtime.context.emit("plan", {"sub_questions": state.get("sub_questions", []),
                                      "path": state.get("decomposition_path", ""), "final": True})
        return {"plan_review_status": "approved", "plan_review_history": [entry],
                "trace": [{"node": "review_plan", "decision": "approved"}]}
    plan = edited_plan(decision, state, config)
    kept = {sq["sub_question_id"] for sq in plan}
    before = [sq["sub_question_id"] for sq in state.get("sub_questions", [])]
    removed = [sq_id for sq_id in before if sq_id not in kept]
    tree = {**state.get("decomposition_tree", {}), "children": sorted(kept), "edited": True}
    runtime.context.emit("plan", {"sub_questions": plan, "path": state.get("decomposition_path", ""),
                                  "final": True})
    return {"sub_questions": Overwrite(plan), "decomposition_tree": tree,
            "outline": [sq["question_text"] for sq in plan], "budget": plan_budget(plan, config),
            "plan_review_status": "edited",
            "plan_review_retired_ids": [*state.get("plan_review_retired_ids", []), *removed],
            "plan_review_history": [{**entry, "sub_questions": len(plan), "removed": removed,
                                     "added": sorted(kept - set(before))}],
            "trace": [{"node": "review_plan", "decision": "edited", "sub_questions": len(plan)}]}

"""A person's decision on a proposed plan (seed 000's interactive decomposition): approve it,
edit it (reword, add, remove, reprioritise) or ask for a new one with a note.

The decision is checked against the plan it answers before the graph resumes, so an
invalid edit is refused with a clear reason and the plan stays pending; the same check
runs inside the graph for decisions that arrive another way (LangGraph Studio).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from research_studio.config import ResearchConfig
from research_studio.errors import ResearchStudioError
from research_studio.state import SubQuestion

MAX_NOTE_CHARS = 2000
MAX_QUESTION_CHARS = 500


class InvalidPlanDecision(ResearchStudioError):
    """A decision that cannot be applied to the pending plan; ``loc`` says where."""

    def __init__(self, message: str, loc: tuple[str | int, ...] = ()) -> None:
        super().__init__(message)
        self.loc = loc


class PlannedSubQuestion(BaseModel):
    """One sub-question of an edited plan: an existing one by id (reworded or
    reprioritised), or a new one (no id)."""

    model_config = {"extra": "forbid"}

    id: str | None = Field(default=None, description="sub_question_id of the pending plan; "
                           "null for a new sub-question")
    question: str = Field(max_length=MAX_QUESTION_CHARS)
    priority: float = Field(default=0.5, ge=0.0, le=1.0)

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("a sub-question needs text")
        return value


class PlanDecision(BaseModel):
    """``approve`` the plan as proposed; ``edit`` it (the full list in the wanted order:
    ids left out are removed); or ``replan`` with a note for the planner."""

    model_config = {"extra": "forbid"}

    action: Literal["approve", "edit", "replan"]
    sub_questions: list[PlannedSubQuestion] | None = None
    note: str | None = Field(default=None, max_length=MAX_NOTE_CHARS)


def parse_decision(raw: Any) -> PlanDecision:
    """A decision from JSON-like input, or InvalidPlanDecision naming the first problem."""
    if isinstance(raw, PlanDecision):
        return raw
    try:
        return PlanDecision.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "decision"
        message = first["msg"].removeprefix("Value error, ")
        raise InvalidPlanDecision(f"{where}: {message}", tuple(first["loc"])) from None


def check_decision(decision: PlanDecision, pending: dict[str, Any]) -> PlanDecision:
    """The decision if it can be applied to ``pending`` (the interrupt's payload)."""
    if decision.action == "replan":
        if not (decision.note or "").strip():
            raise InvalidPlanDecision("a new plan needs a note saying what to change", ("note",))
        return decision
    if decision.action == "approve":
        if decision.sub_questions is not None:
            raise InvalidPlanDecision("approve takes no sub-questions; use action 'edit'",
                                      ("sub_questions",))
        return decision
    rows = decision.sub_questions
    if not rows:
        raise InvalidPlanDecision("the plan needs at least one sub-question", ("sub_questions",))
    limit = int(pending.get("max_sub_questions") or len(rows))
    if len(rows) > limit:
        raise InvalidPlanDecision(f"the plan has {len(rows)} sub-questions; at most {limit} "
                                  "are allowed", ("sub_questions",))
    known = {sq["id"] for sq in pending.get("sub_questions", [])}
    seen: set[str] = set()
    for i, row in enumerate(rows):
        if row.id is None:
            continue
        if row.id not in known:
            raise InvalidPlanDecision(f"sub-question {row.id!r} is not in the pending plan "
                                      f"(its ids: {', '.join(sorted(known))})",
                                      ("sub_questions", i, "id"))
        if row.id in seen:
            raise InvalidPlanDecision(f"sub-question {row.id!r} appears twice",
                                      ("sub_questions", i, "id"))
        seen.add(row.id)
    return decision


def validated_decision(raw: Any, pending: dict[str, Any]) -> PlanDecision:
    return check_decision(parse_decision(raw), pending)


def review_payload(state_sub_questions: list[SubQuestion], question: str, strategy: str,
                   path: str, config: ResearchConfig, round_: int,
                   error: str | None = None) -> dict[str, Any]:
    """What the person sees: the sub-questions with priority, strategy and budgets."""
    return {"kind": "plan_review", "round": round_, "question": question,
            "strategy": strategy, "path": path, "max_sub_questions": config.max_sub_questions,
            "error": error,
            "sub_questions": [{"id": sq["sub_question_id"], "question": sq["question_text"],
                               "priority": sq.get("priority", 0.5),
                               "strategy": sq.get("strategy", strategy),
                               "rationale": sq.get("rationale", ""),
                               "iteration_budget": sq.get("iteration_budget", 0),
                               "cost_budget_usd": sq.get("cost_budget_usd", 0.0)}
                              for sq in state_sub_questions]}


def editable_plan(pending: dict[str, Any]) -> dict[str, Any]:
    """The pending plan as an ``edit`` decision a person can change and send back."""
    return {"action": "edit", "sub_questions": [
        {"id": sq["id"], "question": sq["question"], "priority": sq["priority"]}
        for sq in pending.get("sub_questions", [])]}


def next_ids(existing: list[str], count: int) -> list[str]:
    """Fresh sub_question ids after the highest one used so far (ids are never reused, so
    findings and events of a removed sub-question cannot attach to a new one)."""
    numbers = [int(i.split("_")[-1]) for i in existing if i.split("_")[-1].isdigit()]
    start = max(numbers, default=0) + 1
    return [f"sq_{n:03d}" for n in range(start, start + count)]


def edited_rows(decision: PlanDecision, current: list[SubQuestion], used_ids: list[str],
                ) -> list[tuple[str, str, float, SubQuestion | None]]:
    """(id, question, priority, the sub-question it edits or None) per row, in order."""
    by_id = {sq["sub_question_id"]: sq for sq in current}
    rows = decision.sub_questions or []
    fresh = iter(next_ids(used_ids, sum(1 for r in rows if r.id is None)))
    return [(row.id or next(fresh), row.question, row.priority,
             by_id.get(row.id) if row.id else None) for row in rows]

"""What a person watching a run wants to see, folded from the run's events.

The terminal view and the HTTP service both show stage, the sub-question tree with
status, and counts; both fold the same events with :func:`apply_event`.
"""

from __future__ import annotations

from typing import Any


def new_progress() -> dict[str, Any]:
    return {"stage": "starting", "sub_questions": [], "findings": 0, "sources": 0,
            "gap_rounds": 0, "tokens": 0, "claims": 0}


def _sub_question(progress: dict[str, Any], sq_id: str) -> dict[str, Any] | None:
    return next((sq for sq in progress["sub_questions"] if sq["sub_question_id"] == sq_id), None)


def apply_event(progress: dict[str, Any], kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """Fold one event into ``progress`` (in place, and returned for chaining)."""
    if kind == "stage":
        progress["stage"] = data.get("stage", progress["stage"])
        progress["tokens"] = data.get("tokens", progress["tokens"])
    elif kind == "plan":  # a plan (or the one a reviewer edited) replaces the last one
        known = {sq["sub_question_id"]: sq for sq in progress["sub_questions"]}
        progress["sub_questions"] = [
            {**known.get(sq["sub_question_id"], {"status": "pending", "iterations": 0,
                                                 "findings": 0, "sources": 0}),
             "sub_question_id": sq["sub_question_id"],
             "question_text": sq.get("question_text", ""), "priority": sq.get("priority")}
            for sq in data.get("sub_questions", [])]
    elif kind == "sub_question":
        entry = _sub_question(progress, data.get("sub_question_id", ""))
        if entry is not None:
            entry["status"] = data.get("status", entry["status"])
    elif kind == "iteration":
        entry = _sub_question(progress, data.get("sub_question_id", ""))
        if entry is not None:
            entry["iterations"] = int(data.get("iteration", 0)) + 1
            entry["findings"] = int(data.get("findings", entry["findings"]))
            entry["sources"] = int(data.get("sources", entry["sources"]))
            progress["findings"] = sum(sq["findings"] for sq in progress["sub_questions"])
            progress["sources"] = sum(sq["sources"] for sq in progress["sub_questions"])
    elif kind == "gaps":
        progress["gap_rounds"] = int(data.get("round", progress["gap_rounds"]))
    elif kind == "trust":
        progress["claims"] = int(data.get("claims", progress["claims"]))
    return progress

"""How far a session got, as one number and one line, for MCP progress notifications.

The graph's events are folded into progress by ``graph/progress.py`` (as the terminal and
the service do); here that fold becomes a percentage by stage, with the research stage
spread over its sub-questions. A notification's value must grow, so ``ProgressMeter``
never goes back (a gap round returns to research) and nudges the value up when only the
line changed.
"""

from __future__ import annotations

from typing import Any

# where each stage starts, in percent; research runs from RESEARCH_START to RESEARCH_END
STAGE_START = {"starting": 0.0, "analyze": 2.0, "clarify_retrieve": 5.0, "clarify_ask": 5.0,
               "plan": 8.0, "detect_gaps": 75.0, "domain_synthesis": 82.0,
               "trust_engine": 88.0, "write": 95.0}
RESEARCH_STAGES = ("research_sub_question", "collect")
RESEARCH_START, RESEARCH_END = 10.0, 75.0
FINISHED = 100.0
NUDGE = 0.1


def percent_done(progress: dict[str, Any], status: str) -> float:
    """A rough share of the work done, 0-100, from the folded progress and the status."""
    if status == "completed":
        return FINISHED
    stage = progress.get("stage", "starting")
    if stage in RESEARCH_STAGES:
        sub_questions = progress.get("sub_questions", [])
        done = sum(1 for sq in sub_questions if sq.get("status") == "completed")
        share = done / len(sub_questions) if sub_questions else 0.0
        return RESEARCH_START + (RESEARCH_END - RESEARCH_START) * share
    return STAGE_START.get(stage, 0.0)


def describe(progress: dict[str, Any], status: str) -> str:
    """One line for a person: status or stage, sub-questions done, findings and sources."""
    parts = [progress.get("stage", "starting") if status == "running" else status]
    sub_questions = progress.get("sub_questions", [])
    if sub_questions:
        done = sum(1 for sq in sub_questions if sq.get("status") == "completed")
        parts.append(f"{done}/{len(sub_questions)} sub-questions done")
    if progress.get("findings"):
        parts.append(f"{progress['findings']} findings")
    if progress.get("sources"):
        parts.append(f"{progress['sources']} sources")
    if progress.get("claims"):
        parts.append(f"{progress['claims']} claims")
    return " · ".join(parts)


class ProgressMeter:
    """Turns successive readings into strictly increasing progress values, or None when
    nothing changed that is worth a notification."""

    def __init__(self) -> None:
        self.value = -1.0
        self.line = ""

    def reading(self, progress: dict[str, Any], status: str) -> tuple[float, str] | None:
        value = round(percent_done(progress, status), 2)
        line = describe(progress, status)
        if value <= self.value:
            if line == self.line:
                return None
            ceiling = FINISHED if status == "completed" else FINISHED - 1.0
            value = round(min(self.value + NUDGE, ceiling), 2)
            if value <= self.value:
                return None
        self.value, self.line = value, line
        return value, line

"""Plan review at the terminal: the proposed plan as a table, then approve, edit it in the
person's editor ($VISUAL/$EDITOR, as JSON), or ask for a new plan with a note. An edit
that cannot be applied is shown with its reason and the plan stays open for another try.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from research_studio.cli_options import console, err_console
from research_studio.errors import ResearchStudioError
from research_studio.graph.plan_edits import InvalidPlanDecision, editable_plan, validated_decision

CHOICES = "[a]pprove · [e]dit in your editor · [r]eplan with a note · [q]uit (resume later)"


def plan_table(pending: dict[str, Any]) -> Table:
    table = Table("id", "priority", "iterations", "cost", "sub-question",
                  title=f"Proposed plan (round {pending.get('round', 0) + 1}, strategy "
                        f"{pending.get('strategy') or '-'}, at most "
                        f"{pending.get('max_sub_questions')} sub-questions)")
    for sq in pending.get("sub_questions", []):
        table.add_row(sq["id"], f"{sq['priority']:.2f}", str(sq["iteration_budget"]),
                      f"${sq['cost_budget_usd']:.2f}", sq["question"])
    return table


def edit_in_editor(pending: dict[str, Any]) -> dict[str, Any] | None:
    """The plan opened as an ``edit`` decision in the person's editor; None if unsaved."""
    text = click.edit(json.dumps(editable_plan(pending), indent=2, ensure_ascii=False) + "\n",
                      extension=".json")
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidPlanDecision(f"the edited plan is not JSON: {exc}") from None


def review_at_terminal(pending: dict[str, Any], read: Callable[[str], str] = input,
                       edit: Callable[[dict[str, Any]], dict[str, Any] | None] = edit_in_editor,
                       ) -> dict[str, Any] | None:
    """Ask until the person gives a decision that fits the plan; ``quit`` (or the end of
    input) gives None: the plan stays pending for ``resume --plan``."""
    err_console.print(plan_table(pending))
    if pending.get("error"):
        err_console.print(f"[red]{pending['error']}[/]")
    while True:
        err_console.print(f"[dim]{CHOICES}[/]")
        try:
            choice = read("plan> ").strip().lower()[:1] or "a"
        except EOFError:
            choice = "q"
        try:
            if choice == "a":
                return validated_decision({"action": "approve"}, pending).model_dump()
            if choice == "e":
                edited = edit(pending)
                if edited is None:
                    err_console.print("[yellow]the editor closed without saving; plan unchanged[/]")
                    continue
                return validated_decision(edited, pending).model_dump()
            if choice == "r":
                note = read("what should the new plan do differently? ")
                return validated_decision({"action": "replan", "note": note}, pending).model_dump()
            if choice == "q":
                return None
        except InvalidPlanDecision as exc:
            err_console.print(f"[red]{exc}[/]")


def read_decision(path: Path) -> dict[str, Any]:
    """A decision from a JSON file (``sessions plan ID`` writes one to start from)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ResearchStudioError(f"cannot read the plan file {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ResearchStudioError(f"the plan file {path} is not JSON: {exc}") from None


def print_pending_plan(session_id: str, pending: dict[str, Any]) -> None:
    console.print(plan_table(pending))
    console.print(f"Approve with: research-studio resume {session_id} --approve-plan\n"
                  f"Or edit:      research-studio sessions plan {session_id} > plan.json "
                  f"(edit it), then research-studio resume {session_id} --plan plan.json")

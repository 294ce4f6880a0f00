"""Rubric grading of long-form reports (DeepResearch Bench RACE-style, absolute scores).

A judge model scores every criterion 0–10, one structured call per dimension. A
dimension's score is the weighted mean of its criterion scores, the overall score the
dimension-weighted mean, scaled to 0–1. A criterion the judge leaves out (or a reply
that stays garbage after the repair) is reported as missing and left out of the means,
never guessed. The judge must not be the model that wrote the reports.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any, Literal

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, create_model

from research_studio.config import Settings
from research_studio.errors import ResearchStudioError
from research_studio.eval.models import model_under_test, require_model, same_model, settings_for_model
from research_studio.graph.nodes.common import quote_untrusted
from research_studio.models.coordinator import ModelCoordinator
from research_studio.models.structured import generate_structured
from research_studio.prompts import load_prompt

Score = Literal[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
MAX_REPORT_CHARS = 24_000


class JudgeNotIndependent(ResearchStudioError):
    """The judge is the model under test: it would grade its own writing."""


def check_judge(settings: Settings, judge: str, model: str | None) -> str:
    """The judge's name if it is configured and differs from the model under test."""
    require_model(settings, judge, "--judge")
    if model is not None:
        require_model(settings, model)
    tested = model_under_test(settings, model)
    if same_model(settings, judge, tested):
        raise JudgeNotIndependent(
            f"the judge {judge!r} is the model under test ({tested!r}"
            f"{'' if model else ', the configured high-tier model'}); a model must not grade "
            f"its own reports — choose another --judge from: {', '.join(sorted(settings.models.models))}")
    return judge


@cache
def judge_schema(criteria: int) -> type[BaseModel]:
    """``{scores: [{criterion, score}]}`` with enums for both, at most ``criteria`` items,
    so llama.cpp's grammar and strict JSON schemas can enforce it."""
    index = Literal[tuple(range(criteria))]  # type: ignore[valid-type]
    item = create_model(f"CriterionScore{criteria}", criterion=(index, ...), score=(Score, ...))
    return create_model(f"DimensionScores{criteria}",
                        scores=(list[item], Field(default_factory=list, max_length=criteria)))  # type: ignore[valid-type]


def dimension_score(weights: list[float], scores: dict[int, float]) -> float | None:
    """Σ weight × score / Σ weight over the scored criteria (0–10); None if none scored."""
    scored = [(w, scores[i]) for i, w in enumerate(weights) if i in scores]
    total = sum(w for w, _ in scored)
    if not scored or total <= 0:
        return None
    return sum(w * s for w, s in scored) / total


def overall_score(dimension_weights: dict[str, float],
                  dimension_scores: dict[str, float | None]) -> float | None:
    """Σ dimension weight × dimension score / Σ weights, scaled from 0–10 to 0–1; dimensions
    without any score are left out (and their weight with them)."""
    scored = [(dimension_weights[d], s) for d, s in dimension_scores.items() if s is not None]
    total = sum(w for w, _ in scored)
    if not scored or total <= 0:
        return None
    return sum(w * s for w, s in scored) / total / 10.0


def _judge_prompt(task: dict[str, Any], dimension: str, criteria: list[dict[str, Any]],
                  report: str, max_report_chars: int) -> str:
    listing = "\n".join(f"[{i}] {c['criterion']} — {c['explanation']}"
                        for i, c in enumerate(criteria))
    return (f"Task:\n{task['prompt']}\n\nDimension: {dimension}\n\nCriteria:\n{listing}\n\n"
            f"Report:\n{quote_untrusted('report', report, max_report_chars)}")


async def grade_report(task: dict[str, Any], report: str, coordinator: ModelCoordinator,
                       max_report_chars: int = MAX_REPORT_CHARS) -> dict[str, Any]:
    """Scores of one report: per criterion, per dimension, overall, and what is missing."""
    system = load_prompt("eval_rubric_judge") + "\n\n" + load_prompt("untrusted_sources")
    dimensions: dict[str, dict[str, Any]] = {}
    for name, dimension in task["dimensions"].items():
        criteria = dimension["criteria"]
        schema = judge_schema(len(criteria))
        result = await generate_structured(
            coordinator, [SystemMessage(system), HumanMessage(
                _judge_prompt(task, name, criteria, report, max_report_chars))],
            schema, tier="high", node=f"judge:{name}", fallback=lambda s=schema: s(scores=[]),
            max_tokens=40 + 24 * len(criteria))
        scores: dict[int, float] = {}
        for item in result.value.scores:  # type: ignore[attr-defined]
            scores.setdefault(int(item.criterion), float(item.score))  # first score wins
        dimensions[name] = {
            "weight": dimension["weight"],
            "score": dimension_score([c["weight"] for c in criteria], scores),
            "criteria": [{"criterion": c["criterion"], "weight": c["weight"],
                          "score": scores.get(i)} for i, c in enumerate(criteria)],
            "missing": [i for i in range(len(criteria)) if i not in scores],
            "judge_path": result.path, "judge_error": result.error}
    overall = overall_score({d: v["weight"] for d, v in dimensions.items()},
                            {d: v["score"] for d, v in dimensions.items()})
    return {"overall": overall, "dimensions": dimensions,
            "missing_criteria": sum(len(v["missing"]) for v in dimensions.values()),
            "criteria": sum(len(v["criteria"]) for v in dimensions.values())}


def grade_task(task: dict[str, Any], report: str, settings: Settings, judge: str,
               chat_model: BaseChatModel | None = None,
               max_report_chars: int = MAX_REPORT_CHARS) -> dict[str, Any]:
    """Grade one report with the configured ``judge`` (``chat_model`` replaces it in tests)."""
    judged = settings_for_model(settings, judge).models
    coordinator = ModelCoordinator(judged, chat_models={judge: chat_model} if chat_model else None)
    grade = asyncio.run(grade_report(task, report, coordinator, max_report_chars))
    grade["judge_usage"] = {"llm_calls": len(coordinator.ledger.calls),
                            "cost_usd": round(coordinator.ledger.cost_usd, 6)}
    return grade

"""score_quality and check_stopping (seeds 000/001) for one sub-question's research."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from research_studio.config import ResearchConfig
from research_studio.state import Finding

StopAction = Literal["continue", "synthesize_sub_question", "synthesize"]


@dataclass(frozen=True)
class Quality:
    confidence: float  # mean confidence of the sub-question's findings
    novelty: float  # share of this iteration's candidates that were new
    saturation: float  # 1 - novelty
    findings: int


def score_quality(findings: list[Finding], new: int, candidates: int) -> Quality:
    confidence = sum(f.get("confidence", 0.0) for f in findings) / len(findings) if findings else 0.0
    novelty = new / candidates if candidates else 0.0
    return Quality(round(confidence, 3), round(novelty, 3), round(1 - novelty, 3), len(findings))


@dataclass(frozen=True)
class StoppingInput:
    iteration_count: int  # iterations done for this sub-question in this research round
    iteration_budget: int  # iterations allowed in this round
    min_iterations: int
    quality: Quality
    session_iterations: int  # iterations done by the whole session
    budget_exhausted: bool
    has_next_queries: bool


def check_stopping(s: StoppingInput, config: ResearchConfig) -> tuple[StopAction, list[str]]:
    """The seed's rules, in its order: global limits first; then ≥3 findings and the
    sub-question's max iterations stop, min iterations overrides them, and average
    confidence ≥ 0.7 over ≥ 2 findings stops; saturation and running out of queries stop
    once the minimum is met."""
    if s.session_iterations >= config.max_iterations:
        return "synthesize", ["max_iterations_reached"]
    if s.budget_exhausted:
        return "synthesize", ["budget_exhausted"]
    stop, reasons = False, []
    if s.quality.findings >= config.min_findings:
        stop, reasons = True, ["sufficient_findings"]
    limit = min(s.iteration_budget, config.sub_question_max_iterations)
    if s.iteration_count >= limit:
        return "synthesize_sub_question", [*reasons, "sub_question_max_iterations"]
    if s.iteration_count < s.min_iterations:
        stop, reasons = False, ["min_iterations_not_met"]
    if (s.quality.findings >= config.min_findings_for_confidence
            and s.quality.confidence >= config.min_confidence):
        stop = True
        reasons.append("high_quality_findings")
    if not stop and s.iteration_count >= s.min_iterations:
        if s.quality.saturation >= config.saturation_threshold or \
                s.quality.novelty < config.min_novelty_rate:
            stop, reasons = True, ["saturated"]
        elif not s.has_next_queries:
            stop, reasons = True, ["no_new_queries"]
    return ("synthesize_sub_question" if stop else "continue"), reasons

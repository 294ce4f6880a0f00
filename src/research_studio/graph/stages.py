"""The stages a model may do — plan, findings, sub-question answer, summary — each behind
one interface with a model and an offline implementation, chosen once per run from the
configured models' capability instead of in every node.

A model stage falls back to its offline sibling when the call fails or gives nothing
usable, so a run never depends on one answer of a model. Each stage asks the tier it
runs on: findings are many small calls (low), the plan and the sub-question answers need
some reasoning (medium), the summary integrates the whole report (high).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.execute import Retrieved
from research_studio.graph.nodes.findings import ModelFindings, OfflineFindings
from research_studio.graph.nodes.plan import ModelPlanner, OfflinePlanner, Planner
from research_studio.graph.nodes.synthesize_sub_question import ModelSubAnswer, OfflineSubAnswer
from research_studio.graph.nodes.write import ModelSummary, OfflineSummary, Summary, SummaryInput
from research_studio.state import Finding, SubQuestion, SubQuestionSynthesis

if TYPE_CHECKING:
    from research_studio.graph.deps import ResearchDeps
    from research_studio.models.coordinator import ModelCoordinator


class FindingsStage(Protocol):
    async def extract(self, deps: ResearchDeps, sub_question: SubQuestion,
                      retrieved: list[Retrieved], iteration: int,
                      config: ResearchConfig) -> list[Finding]: ...


class SubAnswerStage(Protocol):
    async def answer(self, deps: ResearchDeps, sub_question: SubQuestion,
                     findings: list[Finding]) -> SubQuestionSynthesis: ...


class SummaryStage(Protocol):
    async def write(self, deps: ResearchDeps, given: SummaryInput) -> Summary: ...


@dataclass(frozen=True)
class Stages:
    planner: Planner
    findings: FindingsStage
    sub_answer: SubAnswerStage
    summary: SummaryStage


def stages_for(coordinator: ModelCoordinator) -> Stages:
    """Only a model trusted to reason is asked (``is_strong``, per tier): the embedded
    model's plans were refused on all 300 evaluation questions (loops, bare phrases, a
    refusal, a guessed state) and the call took two thirds of a hierarchical run's time."""
    return Stages(
        planner=ModelPlanner() if coordinator.is_strong("medium") else OfflinePlanner(),
        findings=ModelFindings() if coordinator.is_strong("low") else OfflineFindings(),
        sub_answer=ModelSubAnswer() if coordinator.is_strong("medium") else OfflineSubAnswer(),
        summary=ModelSummary() if coordinator.is_strong("high") else OfflineSummary())

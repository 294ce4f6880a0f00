"""Node 1 (seed 003): understand the question with the model — no regex patterns — and
choose flat or hierarchical research."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.common import ask_structured, run_config
from research_studio.graph.nodes.schemas import AnalysisOutput
from research_studio.state import QueryAnalysis, ResearchState


def neutral_analysis(query: str) -> AnalysisOutput:
    """Fallback when the model's analysis is unusable: assume a moderate, clear question."""
    return AnalysisOutput(
        intent="answer the question with cited evidence", query_class="exploratory",
        primary_subject=query[:100], topic_focus="", temporal_scope="unspecified",
        complexity="moderate", ambiguity_level="low", needs_clarification=False,
        clarification_question="", suggested_template="general")


def choose_mode(requested: str, analysis: QueryAnalysis) -> tuple[str, str]:
    """``--mode auto`` follows the analysis: simple questions run flat (seed 000/001)."""
    if requested in ("flat", "hierarchical"):
        return requested, f"requested --mode {requested}"
    if analysis.get("complexity") == "simple":
        return "flat", "analysis: simple question"
    return "hierarchical", f"analysis: {analysis.get('complexity', 'moderate')} question"


async def analyze_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    query = state["query"]
    result = await ask_structured(
        runtime.context, AnalysisOutput, prompt="analyze", user=f"Question: {query}",
        tier="medium", node="analyze", fallback=lambda: neutral_analysis(query),
        max_tokens=260)
    analysis: QueryAnalysis = {**result.value.model_dump(),  # type: ignore[typeddict-item]
                               "method": "fallback" if result.path == "fallback" else "llm"}
    config = run_config(state)
    mode, reason = choose_mode(config.mode, analysis)
    runtime.context.emit("analysis", {"mode": mode, "analysis": analysis})
    return {"query_analysis": analysis, "mode": mode, "mode_reason": reason, "stage": "analyze",
            "trace": [{"node": "analyze", "decision": mode, "reason": reason,
                       "structured": result.path}]}

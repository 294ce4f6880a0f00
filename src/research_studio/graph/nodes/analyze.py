"""Node 1 (seed 003): understand the question with the model — no regex patterns — and
choose flat or hierarchical research."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_studio.config import TEMPLATES, ResearchConfig, apply_template
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.common import ask_structured, run_config
from research_studio.graph.nodes.schemas import AnalysisOutput
from research_studio.graph.text_analysis import (
    content_terms,
    plain_name,
    question_names,
    term_overlap,
)
from research_studio.knowledge.lexical import tokenize
from research_studio.state import QueryAnalysis, ResearchState

NEUTRAL_TEMPLATE = "general"


def neutral_analysis(query: str) -> AnalysisOutput:
    """Fallback when the model's analysis is unusable: a moderate, clear question whose
    subject is its longest name (or its closing content words, where English questions
    usually put the head noun phrase) and whose focus is the rest of its content words."""
    names = question_names(query)
    terms = [t for t in tokenize(query) if len(t) > 2]
    subject = names[0] if names else " ".join(terms[-2:]) or query[:100]
    focus = " ".join(t for t in terms if t not in subject.lower())[:100]
    return AnalysisOutput(
        intent="", query_class="exploratory",
        primary_subject=subject[:100], topic_focus=focus, temporal_scope="unspecified",
        complexity="moderate", ambiguity_level="low", needs_clarification=False,
        clarification_question="", suggested_template=NEUTRAL_TEMPLATE)


def grounded_in_question(analysis: QueryAnalysis, query: str, trusted: bool = True) -> QueryAnalysis:
    """A subject or focus that shares nothing with the question is a small model's
    invention ("2019-01-01T00:00:00Z"): replace it with the deterministic one.

    A model not ``trusted`` to reason may only restate: a subject with a word the question
    does not use is its guess at the answer ("The first president of the Kamchatka
    Peninsula is Vladimir Putin", "Martha Farrington" for Suzanne Farrington's mother; 20
    of 100 MuSiQue analyses), and the subject becomes the background sub-question that
    heads a section of the report."""
    neutral = neutral_analysis(query)
    asked = content_terms(query)
    names = {name.lower() for name in question_names(query)}
    fixed = dict(analysis)
    for field in ("primary_subject", "topic_focus"):
        value = str(analysis.get(field) or "")
        guessed = not trusted and bool(content_terms(value) - asked)
        if field == "primary_subject" and not trusted and names:
            # restating is not naming: "The star play", "Team that Pa Amadou Gai is a member
            # of play for" would send the background research after the question again
            guessed = guessed or plain_name(value).lower() not in names
        if value and (term_overlap(value, query) < 0.5 or guessed):
            fixed[field] = getattr(neutral, field)
            fixed.setdefault("corrected", []).append(field)  # type: ignore[union-attr]
    return fixed  # type: ignore[return-value]


def choose_mode(requested: str, analysis: QueryAnalysis) -> tuple[str, str]:
    """``--mode auto`` follows the analysis: simple questions run flat (seed 000/001)."""
    if requested in ("flat", "hierarchical"):
        return requested, f"requested --mode {requested}"
    if analysis.get("complexity") == "simple":
        return "flat", "analysis: simple question"
    return "hierarchical", f"analysis: {analysis.get('complexity', 'moderate')} question"


def template_from_analysis(config: ResearchConfig, analysis: QueryAnalysis,
                           trust_suggestion: bool = True) -> tuple[ResearchConfig, str | None]:
    """Seed 001 phase 9: without ``--template`` the analysis suggests one; whatever the
    person set explicitly (any value other than the default) is kept, and so is the mode,
    which ``--mode auto`` decides from the analysed complexity (seeds 000/001).

    A model that cannot reason does not get to set budgets: its suggestion is replaced by
    the neutral one (the embedded model picked ``quick_fact`` — 5 iterations, one gap
    round — for a third of the four-hop MuSiQue questions, at random)."""
    if config.template:
        return config, config.template
    suggested = analysis.get("suggested_template") if trust_suggestion else NEUTRAL_TEMPLATE
    if suggested not in TEMPLATES:
        return config, None
    defaults = ResearchConfig()
    explicit = {"mode"} | {name for name in ResearchConfig.model_fields
                           if getattr(config, name) != getattr(defaults, name)}
    return apply_template(config, suggested, explicit), suggested


async def analyze_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    query = state["query"]
    result = await ask_structured(
        runtime.context, AnalysisOutput, prompt="analyze", user=f"Question: {query}",
        tier="medium", node="analyze", fallback=lambda: neutral_analysis(query),
        max_tokens=260)
    analysis: QueryAnalysis = {**result.value.model_dump(),  # type: ignore[typeddict-item]
                               "method": "fallback" if result.path == "fallback" else "llm"}
    trusted = runtime.context.coordinator.is_strong("medium")
    analysis = grounded_in_question(analysis, query, trusted)
    config, template = template_from_analysis(run_config(state), analysis, trust_suggestion=trusted)
    mode, reason = choose_mode(config.mode, analysis)
    runtime.context.emit("analysis", {"mode": mode, "analysis": analysis, "template": template})
    return {"query_analysis": analysis, "mode": mode, "mode_reason": reason, "stage": "analyze",
            "config": config.model_dump(),
            "trace": [{"node": "analyze", "decision": mode, "reason": reason,
                       "template": template, "structured": result.path}]}

"""Node 1 (seed 003): understand the question and choose flat or hierarchical research.

The question is parsed once (``understanding``: its kind, items, facets, clause chain)
and the structure is kept in the state for every later step. A model trusted to reason
then analyses intent, scope and ambiguity with the kind as guidance; without one the
analysis is read from the structure, and the small model is not asked (its subjects,
complexities and templates were guesses: a third of four-hop questions got
``quick_fact``, a fifth of subjects named an answer the question did not give).
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_studio.config import BUDGET_FIELDS, TEMPLATES, ResearchConfig, apply_template
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.common import ask_structured
from research_studio.graph.nodes.schemas import AnalysisOutput
from research_studio.graph.text_analysis import term_overlap
from research_studio.state import QueryAnalysis, ResearchState
from research_studio.understanding import QuestionKind, QuestionStructure, understand

NEUTRAL_TEMPLATE = "general"
K = QuestionKind
# the analysis' query class and suggested template for each question kind
_QUERY_CLASS = {K.COMPARISON: "comparison", K.MULTI_FACETED: "exploratory", K.CAUSAL: "explanation",
                K.TEMPORAL: "exploratory", K.EVALUATIVE: "evaluation", K.CHAIN: "multi_hop",
                K.SINGLE_FACT: "factual", K.OPEN: "exploratory"}
_TEMPLATE = {K.COMPARISON: "comparison"}
BRIEF_TEMPLATE = "deep_dive"  # a research brief of several sentences asks for depth


def subject_of(structure: QuestionStructure) -> str:
    """What the question is about: its topic, else its longest name, else the question."""
    return (structure.topic or (structure.entities[0] if structure.entities else "")
            or structure.text)[:100]


def complexity_of(structure: QuestionStructure) -> str:
    if structure.is_simple:
        return "simple"
    if structure.kind in (K.CHAIN, K.COMPARISON, K.EVALUATIVE) or len(structure.facets) >= 3:
        return "complex"
    return "moderate"


def offline_analysis(structure: QuestionStructure) -> AnalysisOutput:
    """The analysis a parse can give: kind, subject, complexity; never a clarification
    (nothing here can judge ambiguity)."""
    subject = subject_of(structure)
    focus = ", ".join(structure.items or [f.text for f in structure.facets])[:100]
    return AnalysisOutput(
        intent="", query_class=_QUERY_CLASS[structure.kind], primary_subject=subject,
        topic_focus=focus, temporal_scope="unspecified", complexity=complexity_of(structure),
        ambiguity_level="low", needs_clarification=False, clarification_question="",
        suggested_template=BRIEF_TEMPLATE if structure.sentences >= 2 and structure.facets
        else _TEMPLATE.get(structure.kind, NEUTRAL_TEMPLATE))


def grounded_in_question(analysis: QueryAnalysis, query: str,
                         structure: QuestionStructure) -> QueryAnalysis:
    """A model's subject or focus that shares nothing with the question is an invention
    ("2019-01-01T00:00:00Z"): the parse's stands in."""
    offline = offline_analysis(structure)
    fixed = dict(analysis)
    for field in ("primary_subject", "topic_focus"):
        value = str(analysis.get(field) or "")
        if value and term_overlap(value, query) < 0.5:
            fixed[field] = getattr(offline, field)
            fixed.setdefault("corrected", []).append(field)  # type: ignore[union-attr]
    return fixed  # type: ignore[return-value]


def structure_hint(structure: QuestionStructure) -> str:
    """What the parse found, for a model's analysis and plan to build on."""
    lines = [f"Question kind (from a parse): {structure.kind.value}"]
    if structure.items:
        lines.append("Compared items: " + "; ".join(structure.items))
    if structure.facets:
        lines.append("Facets: " + " | ".join(f.text for f in structure.facets))
    if structure.positions:
        lines.append("Positions: " + "; ".join(structure.positions))
    if structure.clauses:
        lines.append("Nested clauses, outermost first: " + " | ".join(structure.clauses))
    return "\n".join(lines)


def choose_mode(requested: str, analysis: QueryAnalysis) -> tuple[str, str]:
    """``--mode auto`` follows the analysis: simple questions run flat (seed 000/001)."""
    if requested in ("flat", "hierarchical"):
        return requested, f"requested --mode {requested}"
    if analysis.get("complexity") == "simple":
        return "flat", "analysis: simple question"
    return "hierarchical", f"analysis: {analysis.get('complexity', 'moderate')} question"


def template_from_analysis(config: ResearchConfig, analysis: QueryAnalysis
                           ) -> tuple[ResearchConfig, str | None]:
    """Seed 001 phase 9: without ``--template`` the analysis suggests one; whatever the
    person set explicitly (any value other than the default) is kept, and so is the mode,
    which ``--mode auto`` decides from the analysed complexity (seeds 000/001), and so is
    the budget, fixed when the session started (the model coordinator enforces it)."""
    if config.template:
        return config, config.template
    suggested = analysis.get("suggested_template")
    if suggested not in TEMPLATES:
        return config, None
    defaults = ResearchConfig()
    explicit = {"mode", *BUDGET_FIELDS} | {name for name in ResearchConfig.model_fields
                           if getattr(config, name) != getattr(defaults, name)}
    return apply_template(config, suggested, explicit), suggested


async def model_analysis(deps: ResearchDeps, query: str, structure: QuestionStructure
                         ) -> tuple[QueryAnalysis, str]:
    result = await ask_structured(
        deps, AnalysisOutput, prompt="analyze", user=f"Question: {query}\n{structure_hint(structure)}",
        tier="medium", node="analyze", fallback=lambda: offline_analysis(structure),
        max_tokens=260)
    analysis: QueryAnalysis = {**result.value.model_dump(),  # type: ignore[typeddict-item]
                               "method": "fallback" if result.path == "fallback" else "llm"}
    return grounded_in_question(analysis, query, structure), result.path


async def analyze_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    deps = runtime.context
    query = state["query"]
    structure = understand(query, deps.embeddings.embed_array)
    if deps.coordinator.is_strong("medium"):
        analysis, path = await model_analysis(deps, query, structure)
    else:
        analysis = {**offline_analysis(structure).model_dump(), "method": "offline"}  # type: ignore[assignment]
        path = "offline"
    analysis = {**analysis, "question_kind": structure.kind.value}  # type: ignore[assignment]
    config, template = template_from_analysis(state["config"], analysis)
    mode, reason = choose_mode(config.mode, analysis)
    deps.emit("analysis", {"mode": mode, "analysis": analysis, "template": template})
    return {"query_analysis": analysis, "question_structure": structure.to_dict(), "mode": mode,
            "mode_reason": reason, "stage": "analyze", "config": config,
            "trace": [{"node": "analyze", "decision": mode, "reason": reason,
                       "template": template, "structured": path,
                       "question_kind": structure.kind.value}]}

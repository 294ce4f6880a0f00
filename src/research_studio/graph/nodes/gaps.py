"""detect_gaps (seed 003 nodes 7–8): confidence per outline section, what is missing,
conflicting evidence, refinement queries — and whether another research round is worth it."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research_studio.config import ResearchConfig
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.domain_synthesis import (
    Similarity,
    as_matrix,
    contradictions,
    source_titles,
)
from research_studio.graph.nodes.strategy import follow_up_queries
from research_studio.graph.text_analysis import content_terms
from research_studio.state import Finding, ResearchState, SubQuestion, searched_text

REFINEMENT_ITERATIONS = 2


def section_confidence(sub_question: SubQuestion, findings: list[Finding],
                       config: ResearchConfig) -> float:
    """The sub-question's answer confidence, scaled down while evidence is scarce."""
    synthesis = sub_question.get("synthesis") or {}
    base = float(synthesis.get("confidence", 0.0))
    return round(base * min(1.0, len(findings) / max(1, config.min_findings)), 3)


def conflicting_pairs(findings: list[Finding], similarity: Similarity, same_topic: float,
                      titles: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """Findings of different sources that contradict each other as domain synthesis sees it
    (``domain_synthesis.contradictions``), so both steps name the same conflicts."""
    sim = as_matrix([f["text"] for f in findings], similarity)
    pairs = sorted(contradictions(findings, sim, same_topic, titles))
    return [(findings[i]["finding_id"], findings[j]["finding_id"]) for i, j in pairs
            if findings[i]["source_id"] != findings[j]["source_id"]]


def gap_loop_decision(rounds_done: int, confidence: float, previous: float, gaps: int,
           config: ResearchConfig) -> tuple[str, str]:
    """Seed 003's route_after_gap_detection, as a pure function."""
    if rounds_done >= config.max_gap_rounds:
        return "proceed", "max_gap_rounds"
    if confidence >= config.gap_confidence_target:
        return "proceed", "confidence_target_met"
    if rounds_done > 1 and confidence - previous < config.min_confidence_gain:
        return "proceed", "diminishing_returns"
    if not gaps:
        return "proceed", "no_gaps"
    return "refine", "gaps_remain"


async def detect_gaps_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    config = state["config"]
    sub_questions = state.get("sub_questions", [])
    findings = state.get("findings", [])
    sources = state.get("sources", {})
    by_sq = {sq["sub_question_id"]: [f for f in findings if f["sub_question_id"] == sq["sub_question_id"]]
             for sq in sub_questions}
    sections = {sq["sub_question_id"]: section_confidence(sq, by_sq[sq["sub_question_id"]], config)
                for sq in sub_questions}
    weights = sum(sq.get("priority", 1.0) for sq in sub_questions) or 1.0
    overall = round(sum(sections[sq["sub_question_id"]] * sq.get("priority", 1.0)
                        for sq in sub_questions) / weights, 3)
    gaps, refinements = [], []
    kb = runtime.context.kb
    specificity = kb.specificity_scorer() if kb is not None else None
    titles = source_titles(sources)
    for sq in sub_questions:
        sq_id = sq["sub_question_id"]
        evidence = " ".join(sources.get(f["source_id"], {}).get("text", "") for f in by_sq[sq_id])
        missing = sorted(content_terms(searched_text(sq)) - content_terms(evidence))
        conflicts = conflicting_pairs(by_sq[sq_id], runtime.context.similarity,
                                      config.same_topic_similarity, titles)
        weak = len(by_sq[sq_id]) < config.min_findings or sections[sq_id] < config.min_confidence
        if not (weak or conflicts):
            continue
        queries = follow_up_queries(sq, by_sq[sq_id], sources, 2, specificity, config.asked_kind_weight)
        if missing:
            queries.append(f"{searched_text(sq)} {' '.join(missing[:3])}")
        queries = [q for q in dict.fromkeys(queries)
                   if q.lower() not in {d.lower() for d in sq.get("queries_done", [])}]
        gaps.append({"sub_question_id": sq_id, "confidence": sections[sq_id],
                     "missing_terms": missing[:5], "conflicts": conflicts,
                     "reason": "conflicting evidence" if conflicts else "weak evidence"})
        if queries:
            refinements.append((sq, queries[:2]))
    rounds_done = state.get("research_round", 0) + 1
    previous = state.get("overall_confidence", 0.0)
    decision, reason = gap_loop_decision(rounds_done, overall, previous, len(refinements), config)
    update: dict = {
        "stage": "detect_gaps", "section_confidence": sections, "overall_confidence": overall,
        "previous_confidence": previous, "knowledge_gaps": gaps, "gap_decision": decision,
        "refinement_queries": [q for _, qs in refinements for q in qs],
        "research_round": rounds_done,
        "gap_rounds": [{"round": rounds_done, "overall_confidence": overall, "gaps": len(gaps),
                        "decision": decision, "reason": reason}],
        "trace": [{"node": "detect_gaps", "decision": decision, "reason": reason,
                   "confidence": overall}],
    }
    if decision == "refine":
        update["sub_questions"] = [{**sq, "status": "pending", "queued_queries": qs,
                                    "refinement_budget": REFINEMENT_ITERATIONS}
                                   for sq, qs in refinements]
    runtime.context.emit("gaps", {"round": rounds_done, "gaps": len(gaps), "decision": decision,
                                  "overall_confidence": overall})
    return update

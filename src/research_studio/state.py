"""The one place the research data shapes live.

Records are TypedDicts (plain JSON in the checkpointer and the result JSON); the graph
state merges parallel sub-agent updates with the reducers below.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypedDict

from research_studio.config import ResearchConfig
from research_studio.knowledge.structure import TextBlock

ClaimStatus = Literal["cross_validated", "verified", "single_source", "unverified"]
MARKERS: dict[str, str] = {"cross_validated": "✓✓", "verified": "✓", "single_source": "⚠"}


class QueryAnalysis(TypedDict, total=False):
    intent: str
    query_class: str
    primary_subject: str
    topic_focus: str
    temporal_scope: str
    complexity: Literal["simple", "moderate", "complex"]
    ambiguity_level: Literal["low", "medium", "high"]
    needs_clarification: bool
    clarification_question: str
    suggested_template: str
    method: Literal["llm", "fallback", "offline"]
    question_kind: str  # understanding.QuestionKind of the parsed question


class SubQuestionSynthesis(TypedDict, total=False):
    direct_answer: str
    supporting_finding_ids: list[str]
    caveats: list[str]
    confidence: float
    method: Literal["llm", "extractive"]


class SubQuestion(TypedDict, total=False):
    sub_question_id: str  # sq_001, sq_002, ...
    parent_question_id: str | None
    question_text: str  # as the reader sees it: a whole question
    # the words research searches and ranks evidence by, where they differ from the
    # question shown: a linked entity with the question it is followed for
    search_query: str
    depth_level: int
    hop_clauses: list[str]  # the nested question's clause chain this sub-question climbs
    priority: float  # 0..1
    rationale: str
    strategy: str  # decomposition strategy: comparison, multi_faceted, causal, ...
    status: Literal["pending", "researching", "completed"]
    iteration_count: int
    iteration_budget: int
    cost_budget_usd: float
    finding_ids: list[str]
    queued_queries: list[str]  # refinement queries from gap detection
    refinement_budget: int  # iterations allowed in a gap-refinement round
    queries_done: list[str]
    synthesis: SubQuestionSynthesis | None
    quality_score: float
    stop_reason: str
    created_at: str


class Source(TypedDict, total=False):
    source_id: str  # stable key: "kb:<kb>:<chunk_id>" or "web:<hash>"
    kind: Literal["kb", "web"]
    title: str
    location: str  # file path / record location, or URL
    url: str
    kb: str
    doc_id: str
    copy_of: str  # the doc_id of the stored document this one nearly repeats, if any
    chunk_id: str
    text: str  # the stored span's text (a chunk, or an extracted page passage)
    start: int  # offsets of ``text`` in the original document
    end: int
    retrieval_score: float
    sub_question_ids: list[str]
    credibility: float
    # where chunk boundaries cut ``text`` and where its table rows and code blocks lie
    # (knowledge/structure.py): characters that end a sentence begun before the span,
    # characters that begin one finished after it, and [start, end, kind] per block;
    # absent for spans stored before these were recorded
    lead: int
    tail: int
    blocks: list[list]
    ends_document: bool  # ``text`` runs to its document's end (a list there ends with it)
    section: str  # the heading the span stands under ("6.2.1. Initialization"), if recorded
    anchor: str  # the page's anchor for that heading: ``location#anchor`` opens it there
    # [start, end, term]: the definition list entries whose description ``text`` lies in
    # (a manual's option, a setting), offsets relative to ``text`` (structure.term_at)
    terms: list[list]


# the confidence of a finding (and of what is built from it) that records none
DEFAULT_CONFIDENCE = 0.5


class Finding(TypedDict, total=False):
    finding_id: str
    sub_question_id: str
    text: str  # the statement; for extractive findings an exact quote
    source_id: str
    quote: str  # exact text located in the source
    quote_start: int  # offsets of ``quote`` inside Source.text
    quote_end: int
    confidence: float
    relevance: float
    iteration: int
    query: str
    method: Literal["extractive", "llm"]
    # the definition list term its source states it under ("work_mem (integer)" for "The
    # default value is four megabytes"), which the sentence itself seldom names
    context: str
    # the code a sentence ending in a colon (or running on into it) introduces, which
    # follows it in its source ("To restore the dump into a new database called newdb:"
    # and the commands)
    example: str
    # the items of the list such a sentence introduces ("PostgreSQL supports two
    # localization facilities:" and the two)
    list_items: list[str]


class Claim(TypedDict, total=False):
    claim_id: str
    text: str
    sub_question_id: str
    finding_ids: list[str]
    source_ids: list[str]  # every source whose span supports the claim
    quote: str
    # {source_id, method: exact|fuzzy|none, ratio, start, end, checked}, and text_check
    # {passed, missing, similarity, min_similarity} when the text is not the quote
    verification: dict[str, Any]
    status: ClaimStatus
    confidence: float
    context: str  # its leading finding's
    example: str  # its leading finding's
    list_items: list[str]  # its leading finding's


class KeyInsight(TypedDict, total=False):
    insight: str
    type: Literal["fact", "quantitative", "temporal", "definition", "opinion"]
    confidence: float
    finding_ids: list[str]
    source_ids: list[str]


class ResolvedConflict(TypedDict, total=False):
    topic: str
    winner_finding_id: str
    resolved_from: list[str]
    disagreement_level: float
    winner_confidence: float


class FactSheet(TypedDict, total=False):
    domain: str  # a sub_question_id by default
    title: str
    key_insights: list[KeyInsight]
    aggregate_confidence: float
    evidence_strength: Literal["strong", "moderate", "weak"]
    conflicts_resolved: list[ResolvedConflict]
    evidence_count: int


# ---- reducers --------------------------------------------------------------------------
def source_blocks(source: Source) -> list[TextBlock] | None:
    """The table rows and code blocks ingestion recorded for a source (None: not recorded)."""
    raw = source.get("blocks")
    return None if raw is None else [TextBlock(int(s), int(e), str(k)) for s, e, k in raw]


def searched_text(sub_question: SubQuestion) -> str:
    """What research searches and ranks a sub-question's evidence by: its search words
    when the plan gave it some, else its question."""
    return sub_question.get("search_query") or sub_question["question_text"]


def of_other_entries(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Two findings or claims quoted from two definition-list entries (each has its term
    as ``context``, and the terms differ): a sentence the entries share ("For example, if
    you set it to 250ms then all statements that run 250ms or longer will be logged." under
    log_min_duration_statement and under auto_explain.log_min_duration) says it of two
    things, so neither repeats the other."""
    return bool(a.get("context")) and bool(b.get("context")) and a["context"] != b["context"]


def merge_by_id(key: str):
    """List reducer: entries with the same ``key`` are replaced in place, new ones appended."""

    def reduce(left: list[dict] | None, right: list[dict] | None) -> list[dict]:
        merged = {item[key]: item for item in (left or [])}
        order = [item[key] for item in (left or [])]
        for item in right or []:
            if item[key] not in merged:
                order.append(item[key])
            merged[item[key]] = {**merged.get(item[key], {}), **item}
        return [merged[k] for k in order]

    reduce.__name__ = f"merge_by_{key}"
    return reduce


# one reducer object per key: a subgraph that returns the key must use the same one
merge_sub_questions = merge_by_id("sub_question_id")
merge_findings = merge_by_id("finding_id")


def merge_sources(left: dict[str, Source] | None,
                  right: dict[str, Source] | None) -> dict[str, Source]:
    """Sources by id; the sub-questions that used a source accumulate."""
    merged = dict(left or {})
    for source_id, source in (right or {}).items():
        if source_id in merged:
            old = merged[source_id]
            ids = list(dict.fromkeys([*old.get("sub_question_ids", []),
                                      *source.get("sub_question_ids", [])]))
            merged[source_id] = {**old, **source, "sub_question_ids": ids,
                                 "retrieval_score": max(old.get("retrieval_score", 0.0),
                                                        source.get("retrieval_score", 0.0))}
        else:
            merged[source_id] = source
    return merged


class ResearchState(TypedDict, total=False):
    # input
    session_id: str
    query: str
    # the run's configuration, built and validated once when the session starts (the
    # recorded config within the [models] budget ceiling); analyze may adopt a template
    config: ResearchConfig
    status: str
    stage: str
    mode: Literal["flat", "hierarchical"]
    mode_reason: str
    # analyze
    query_analysis: QueryAnalysis
    question_structure: dict[str, Any]  # understanding.QuestionStructure, parsed once
    # clarify (seed 002)
    hitl_iteration: int
    hitl_queries: list[str]
    query_retrieval: Annotated[list[dict], operator.add]  # retrieved chunks, deduplicated
    retrieval_dedup_ratios: list[float]
    retrieval_coverage: float
    knowledge_gaps_hitl: list[str]
    pending_questions: list[str]
    clarification_history: Annotated[list[dict], operator.add]
    clarification_status: str  # skipped | converged | ended | max_iterations | answered
    clarified_query: str
    # plan
    sub_questions: Annotated[list[SubQuestion], merge_sub_questions]
    decomposition_tree: dict[str, Any]
    decomposition_path: str  # llm | deterministic | flat
    outline: list[str]
    budget: dict[str, Any]
    # plan review (config.review_plan): the person's decisions on the proposed plan
    plan_review_status: str  # approved | edited | replan
    plan_review_round: int  # plans turned down so far
    plan_review_notes: Annotated[list[str], operator.add]  # the planner reads them all
    plan_review_retired_ids: list[str]  # ids of removed or replaced sub-questions
    plan_review_history: Annotated[list[dict], operator.add]
    # research
    findings: Annotated[list[Finding], merge_findings]
    sources: Annotated[dict[str, Source], merge_sources]
    research_round: int
    # gaps
    section_confidence: dict[str, float]
    overall_confidence: float
    previous_confidence: float
    knowledge_gaps: list[dict[str, Any]]
    refinement_queries: list[str]
    gap_rounds: Annotated[list[dict], operator.add]
    gap_decision: str
    # synthesis, trust, write
    fact_sheets: list[FactSheet]
    cross_domain_patterns: list[dict[str, Any]]
    source_credibility: dict[str, float]
    claims: list[Claim]
    hallucination_score: float
    report_markdown: str
    synthesis_status: str
    evidence: dict[str, Any]  # the relevance gate's outcome: graph.nodes.write.evidence_summary
    short_answer: dict[str, str] | None  # graph.answer_span.ShortAnswer, offline reports only
    citations: dict[str, str]  # S1 -> source_id
    # observability
    trace: Annotated[list[dict], operator.add]
    llm_calls: Annotated[list[dict], operator.add]
    structured_outcomes: Annotated[list[str], operator.add]
    node_timings: Annotated[list[dict], operator.add]
    errors: Annotated[list[str], operator.add]

"""The result JSON of DESIGN.md, assembled from the final graph state."""

from __future__ import annotations

import html
import re
from collections import Counter, defaultdict
from typing import Any

from research_studio.state import ResearchState

# the ASCII punctuation a CommonMark backslash escapes: a backslash before one stands for
# it (the writer escapes a quote's brackets as "\[", and a backslash before punctuation
# as "\\"; the plain text undoes both)
ESCAPABLE_PUNCTUATION = r"[!-/:-@\[-`{-~]"
_MARKDOWN_ESCAPE = re.compile(rf"\\({ESCAPABLE_PUNCTUATION})")


def time_split(calls: list[dict], wall_s: float, embed_s: float) -> dict[str, float]:
    """Where a run's wall time went: model calls (their latencies), the sentence encoder,
    and everything else (retrieval, parsing, the graph and its checkpoints) — the
    orchestration overhead. Calls that overlap (parallel sub-questions) can add up to more
    than the wall time; ``other_s`` is then 0."""
    model_s = sum(float(c.get("latency_s", 0.0)) for c in calls)
    return {"model_s": round(model_s, 3), "embed_s": round(embed_s, 3),
            "other_s": round(max(0.0, wall_s - model_s - embed_s), 3)}


def usage_summary(state: ResearchState, wall_s: float, embed_s: float) -> dict[str, Any]:
    calls = state.get("llm_calls", [])
    by: dict[str, dict[str, dict[str, float]]] = {"node": defaultdict(lambda: defaultdict(float)),
                                                  "tier": defaultdict(lambda: defaultdict(float))}
    for call in calls:
        for key in ("node", "tier"):
            bucket = by[key][call[key].split(":")[0] if key == "node" else call[key]]
            bucket["llm_calls"] += 1
            bucket["prompt_tokens"] += call["prompt_tokens"]
            bucket["completion_tokens"] += call["completion_tokens"]
    node_s: dict[str, float] = defaultdict(float)
    for timing in state.get("node_timings", []):
        node_s[timing["node"]] += timing["wall_s"]
    outcomes = Counter(state.get("structured_outcomes", []))
    return {
        "llm_calls": len(calls),
        "failed_llm_calls": sum(1 for c in calls if not c.get("ok", True)),
        "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
        "completion_tokens": sum(c["completion_tokens"] for c in calls),
        "cost_usd": round(sum(c["cost_usd"] for c in calls), 6),
        "external_calls": sum(1 for c in calls if c.get("external")),
        "wall_s": round(wall_s, 3),
        **time_split(calls, wall_s, embed_s),
        "node_s": {k: round(v, 3) for k, v in node_s.items()},
        "by_node": {k: {m: int(n) for m, n in v.items()} for k, v in by["node"].items()},
        "by_tier": {k: {m: int(n) for m, n in v.items()} for k, v in by["tier"].items()},
        "structured_output": {k: outcomes.get(k, 0) for k in ("first_try", "repaired", "fallback")},
        "models": sorted({c["model"] for c in calls}),
    }


def build_result(state: ResearchState, session_id: str, status: str, wall_s: float,
                 embed_s: float) -> dict[str, Any]:
    sources = state.get("sources", {})
    citations = state.get("citations", {})  # S1 -> source_id
    sid_of = {source_id: sid for sid, source_id in citations.items()}
    next_number = len(sid_of) + 1
    source_rows = []
    for source_id, source in sources.items():
        if source_id not in sid_of:
            sid_of[source_id] = f"S{next_number}"
            next_number += 1
        source_rows.append({"sid": sid_of[source_id], "source_id": source_id,
                            "cited": source_id in citations.values(),
                            **{k: source.get(k) for k in ("kind", "title", "location", "url", "kb",
                                                          "doc_id", "chunk_id", "start", "end",
                                                          "retrieval_score", "sub_question_ids",
                                                          "credibility", "section", "anchor",
                                                          "text")}})
    source_rows.sort(key=lambda row: int(row["sid"][1:]))
    findings = state.get("findings", [])
    sub_questions = [{**sq, "findings": [f for f in findings
                                         if f["sub_question_id"] == sq["sub_question_id"]]}
                     for sq in state.get("sub_questions", [])]
    claims = [{**c, "sids": [sid_of[s] for s in c.get("source_ids", []) if s in sid_of]}
              for c in state.get("claims", [])]
    trace = state.get("trace", [])
    return {
        "session_id": session_id,
        "query": state.get("query", ""),
        "clarified_query": state.get("clarified_query"),
        "status": status,
        "mode": state.get("mode"),
        "query_analysis": state.get("query_analysis", {}),
        "clarification": {"status": state.get("clarification_status", "skipped"),
                          "rounds": state.get("hitl_iteration", 0),
                          "history": state.get("clarification_history", []),
                          "coverage": state.get("retrieval_coverage"),
                          "dedup_ratios": state.get("retrieval_dedup_ratios", [])},
        "plan_review": {"status": state.get("plan_review_status", "skipped"),
                        "rounds": state.get("plan_review_round", 0),
                        "notes": state.get("plan_review_notes", []),
                        "history": state.get("plan_review_history", [])},
        "decomposition_tree": state.get("decomposition_tree", {}),
        "outline": state.get("outline", []),
        "sub_questions": sub_questions,
        "fact_sheets": state.get("fact_sheets", []),
        "cross_domain_patterns": state.get("cross_domain_patterns", []),
        "claims": claims,
        "sources": source_rows,
        "report_markdown": state.get("report_markdown", ""),
        "short_answer": state.get("short_answer"),
        "metrics": {
            "overall_confidence": state.get("overall_confidence", 0.0),
            "hallucination_score": state.get("hallucination_score", 0.0),
            "section_confidence": state.get("section_confidence", {}),
            "claims_by_status": dict(Counter(c.get("status") for c in claims)),
            "decomposition_path": state.get("decomposition_path"),
            "synthesis_status": state.get("synthesis_status"),
            "evidence": state.get("evidence", {}),
            "research_rounds": state.get("research_round", 0),
            "gap_rounds": state.get("gap_rounds", []),
            "knowledge_gaps": state.get("knowledge_gaps", []),
            "findings": len(findings),
            "sources_retrieved": len(sources),
            "sources_cited": len(citations),
            "router_decisions": [t for t in trace if t.get("node") != "research"],
            "stopping": [t for t in trace if t.get("node") == "research"],
            "errors": state.get("errors", []),
        },
        "usage": usage_summary(state, wall_s, embed_s),
        "node_timings": state.get("node_timings", []),
    }


def report_text(result: dict[str, Any]) -> str:
    """The report as plain text for scoring and judging, as its reader sees it: the
    Markdown export escapes the HTML it quotes (``&lt;``, ``&amp;``), which a gold answer
    such as "AT&T" must not see, and a quote's brackets ("Paul Thomas Mann (\\] ; 6 June
    1875 …"), which the model that reads the answer must not see either."""
    return html.unescape(_MARKDOWN_ESCAPE.sub(r"\1", result.get("report_markdown") or ""))

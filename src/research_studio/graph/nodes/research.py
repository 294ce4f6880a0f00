"""The research sub-agent's steps (seeds 000/001), one node each in its subgraph
(``graph/sub_agent.py``): start → select_strategy → execute → extract_findings →
validate_findings → score_quality → check_stopping, round again or on to
synthesize_sub_question. Each step is checkpointed, so a killed process resumes the
sub-question from its last completed step, not from its first iteration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict

from langgraph.runtime import Runtime

from research_studio.config import ResearchConfig
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.directives import directives_among
from research_studio.graph.nodes.execute import Retrieved, execute_tasks
from research_studio.graph.nodes.findings import validate_findings
from research_studio.graph.nodes.gaps import REFINEMENT_ITERATIONS
from research_studio.graph.nodes.quality import (
    Quality,
    StoppingInput,
    check_stopping,
    score_quality,
)
from research_studio.graph.nodes.strategy import Task, follow_up_queries, select_strategy
from research_studio.state import ResearchState, SubQuestion


def sub_agent_payload(state: ResearchState, sub_question: SubQuestion) -> dict:
    """What a Send carries to one sub-agent: its sub-question and its evidence so far."""
    sq_id = sub_question["sub_question_id"]
    findings = [f for f in state.get("findings", []) if f["sub_question_id"] == sq_id]
    used = {f["source_id"] for f in findings}
    sources = {k: v for k, v in state.get("sources", {}).items() if k in used}
    return {"config": state["config"], "sub_agent_task": {
        "sub_question": sub_question, "findings": findings, "sources": sources,
        "session_iterations": sum(sq.get("iteration_count", 0)
                                  for sq in state.get("sub_questions", [])),
        "research_round": state.get("research_round", 0)}}


def _specificity(deps: ResearchDeps):
    return deps.kb.specificity_scorer() if deps.kb is not None else None


async def start_node(state: dict, runtime: Runtime[ResearchDeps]) -> dict:
    """The sub-question's working state from the Send payload: its budget for this round
    (the plan's in the first round, the refinement budget in a gap round)."""
    config = state["config"]
    task = state["sub_agent_task"]
    sub_question: SubQuestion = {**task["sub_question"], "status": "researching"}
    first_round = not task["research_round"]
    runtime.context.emit("sub_question", {"sub_question_id": sub_question["sub_question_id"],
                                          "status": "researching"})
    return {"sub_question": sub_question, "known_findings": list(task["findings"]),
            "known_sources": dict(task["sources"]),
            "session_iterations": task["session_iterations"], "round_iterations": 0,
            "budget": sub_question["iteration_budget"] if first_round
            else sub_question.get("refinement_budget", REFINEMENT_ITERATIONS),
            "min_iterations": config.sub_question_min_iterations if first_round else 1,
            "follow_ups": None, "decision": "continue", "reasons": []}


async def select_strategy_node(state: dict, runtime: Runtime[ResearchDeps]) -> dict:
    """1–3 search tasks: the sub-question itself, refinement queries, or entity hops."""
    config = state["config"]
    sub_question = state["sub_question"]
    tasks = select_strategy(sub_question, sub_question.get("iteration_count", 0),
                            state["known_findings"], state["known_sources"], config,
                            web_enabled=config.use_web, specificity=_specificity(runtime.context),
                            follow_ups=state.get("follow_ups"))
    if not tasks:
        return {"tasks": [], "decision": "synthesize_sub_question", "reasons": ["no_new_queries"]}
    return {"tasks": [asdict(t) for t in tasks]}


async def execute_node(state: dict, runtime: Runtime[ResearchDeps]) -> dict:
    config = state["config"]
    tasks = [Task(**t) for t in state["tasks"]]
    retrieved, errors = await execute_tasks(runtime.context, tasks, config,
                                            state["sub_question"]["sub_question_id"])
    found = {item.source["source_id"]: item.source for item in retrieved}
    return {"retrieved": [asdict(item) for item in retrieved], "errors": errors,
            "sources": found, "known_sources": {**state["known_sources"], **found}}


async def extract_findings_node(state: dict, runtime: Runtime[ResearchDeps]) -> dict:
    """Candidate findings: exact quotes (offline) or a capable model's, from what was found."""
    config = state["config"]
    deps = runtime.context
    retrieved = [Retrieved(**item) for item in state["retrieved"]]
    sub_question = state["sub_question"]
    candidates = await deps.stages.findings.extract(
        deps, sub_question, retrieved, sub_question.get("iteration_count", 0), config)
    return {"candidates": candidates}


def _screen(deps: ResearchDeps, config: ResearchConfig):
    def screen(quotes: Sequence[str]) -> set[int]:
        return directives_among(quotes, deps.embeddings.embed_array,
                                config.directive_min_similarity, config.directive_margin,
                                deps.embed)
    return screen


async def validate_findings_node(state: dict, runtime: Runtime[ResearchDeps]) -> dict:
    """Keep candidates that quote their source exactly, are new, and do not address the AI;
    the iteration is then done: its queries leave the queue."""
    config = state["config"]
    texts = {sid: s["text"] for sid, s in state["known_sources"].items()}
    kept = validate_findings(state["candidates"], state["known_findings"], texts,
                             _screen(runtime.context, config), config.duplicate_quote_overlap,
                             state["known_sources"])
    sub_question = state["sub_question"]
    asked = [t["query"] for t in state["tasks"]]
    sub_question = {**sub_question, "iteration_count": sub_question.get("iteration_count", 0) + 1,
                    "queries_done": [*sub_question.get("queries_done", []), *asked],
                    "queued_queries": [q for q in sub_question.get("queued_queries", [])
                                       if q not in set(asked)]}
    return {"kept": kept, "findings": kept, "known_findings": [*state["known_findings"], *kept],
            "sub_question": sub_question}


async def score_quality_node(state: dict, runtime: Runtime[ResearchDeps]) -> dict:
    """Confidence and novelty of the evidence so far, and the entity hops it suggests."""
    config = state["config"]
    quality = score_quality(state["known_findings"], len(state["kept"]), len(state["candidates"]))
    follow_ups = follow_up_queries(state["sub_question"], state["known_findings"],
                                   state["known_sources"], max(1, config.max_tasks_per_iteration),
                                   _specificity(runtime.context), config.asked_kind_weight)
    return {"quality": asdict(quality), "follow_ups": follow_ups,
            "session_iterations": state["session_iterations"] + 1,
            "round_iterations": state["round_iterations"] + 1}


async def check_stopping_node(state: dict, runtime: Runtime[ResearchDeps]) -> dict:
    """Seed 000's stopping rules; the router after this node reads the decision."""
    config = state["config"]
    deps = runtime.context
    sub_question = state["sub_question"]
    quality = Quality(**state["quality"])
    decision, reasons = check_stopping(StoppingInput(
        iteration_count=state["round_iterations"], iteration_budget=state["budget"],
        min_iterations=state["min_iterations"], quality=quality,
        session_iterations=state["session_iterations"],
        budget_exhausted=not deps.coordinator.affordable("low"),
        has_next_queries=bool(state.get("follow_ups") or sub_question.get("queued_queries"))),
        config)
    sq_id = sub_question["sub_question_id"]
    iteration = sub_question["iteration_count"] - 1
    deps.emit("iteration", {"sub_question_id": sq_id, "iteration": iteration,
                            "findings": len(state["known_findings"]),
                            "sources": len(state["known_sources"])})
    return {"decision": decision, "reasons": reasons, "trace": [{
        "node": "research", "sub_question_id": sq_id, "iteration": iteration,
        "tasks": [f"{t['kind']}:{t['query']}" for t in state["tasks"]],
        "retrieved": len(state["retrieved"]), "new_findings": len(state["kept"]),
        "confidence": quality.confidence, "novelty": quality.novelty, "decision": decision,
        "reasons": reasons}]}


async def synthesize_sub_question_node(state: dict, runtime: Runtime[ResearchDeps]) -> dict:
    """The sub-question's answer from its findings; the sub-agent's result to the graph."""
    deps = runtime.context
    findings = state["known_findings"]
    synthesis = await deps.stages.sub_answer.answer(deps, state["sub_question"], findings)
    sub_question = {**state["sub_question"], "status": "completed", "synthesis": synthesis,
                    "finding_ids": [f["finding_id"] for f in findings],
                    "quality_score": synthesis.get("confidence", 0.0),
                    "stop_reason": ",".join(state.get("reasons", []))}
    deps.emit("sub_question", {"sub_question_id": sub_question["sub_question_id"],
                               "status": "completed", "findings": len(findings)})
    return {"sub_question": sub_question, "sub_questions": [sub_question]}

"""The research sub-agent (seeds 001/003): one per sub-question, run in parallel by Send.

Each iteration: select_strategy → execute → findings → validate → score_quality →
check_stopping; then synthesize_sub_question. Findings and sources are tagged with the
sub-question id and returned to the graph, which keeps them per sub-question and globally.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from research_studio.graph.deps import ResearchDeps
from research_studio.graph.directives import directives_among
from research_studio.graph.nodes.common import run_config
from research_studio.graph.nodes.execute import execute_tasks
from research_studio.graph.nodes.findings import validate_findings
from research_studio.graph.nodes.gaps import REFINEMENT_ITERATIONS
from research_studio.graph.nodes.quality import StoppingInput, check_stopping, score_quality
from research_studio.graph.nodes.strategy import follow_up_queries, select_strategy
from research_studio.state import Finding, ResearchState, Source, SubQuestion


def sub_agent_payload(state: ResearchState, sub_question: SubQuestion) -> dict:
    """What a Send carries to one sub-agent: its sub-question and its evidence so far."""
    sq_id = sub_question["sub_question_id"]
    findings = [f for f in state.get("findings", []) if f["sub_question_id"] == sq_id]
    used = {f["source_id"] for f in findings}
    sources = {k: v for k, v in state.get("sources", {}).items() if k in used}
    return {"config": state.get("config", {}), "sub_agent_task": {
        "sub_question": sub_question, "findings": findings, "sources": sources,
        "session_iterations": sum(sq.get("iteration_count", 0)
                                  for sq in state.get("sub_questions", [])),
        "research_round": state.get("research_round", 0)}}


async def research_sub_question_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    deps = runtime.context
    config = run_config(state)
    task = state["sub_agent_task"]
    sub_question: SubQuestion = {**task["sub_question"], "status": "researching"}
    sq_id = sub_question["sub_question_id"]
    findings: list[Finding] = list(task["findings"])
    sources: dict[str, Source] = dict(task["sources"])
    new_findings: list[Finding] = []
    new_sources: dict[str, Source] = {}
    session_iterations = task["session_iterations"]
    first_round = not task["research_round"]
    budget = sub_question["iteration_budget"] if first_round else \
        sub_question.get("refinement_budget", REFINEMENT_ITERATIONS)
    min_iterations = config.sub_question_min_iterations if first_round else 1
    round_iterations = 0
    trace, errors = [], []
    deps.emit("sub_question", {"sub_question_id": sq_id, "status": "researching"})
    action, reasons = "continue", []
    specificity = deps.kb.specificity_scorer() if deps.kb is not None else None
    depth: list[str] | None = None  # follow-up queries from the evidence so far, once per iteration

    def screen(quotes: Sequence[str]) -> set[int]:
        return directives_among(quotes, deps.embeddings.embed_array,
                                config.directive_min_similarity, config.directive_margin)

    while action == "continue":
        iteration = sub_question.get("iteration_count", 0)
        tasks = select_strategy(sub_question, iteration, findings, sources, config,
                                web_enabled=config.use_web, specificity=specificity, depth=depth)
        if not tasks:
            action, reasons = "synthesize_sub_question", ["no_new_queries"]
            break
        retrieved, task_errors = await execute_tasks(deps, tasks, config, sq_id)
        errors += task_errors
        for item in retrieved:
            sources.setdefault(item.source["source_id"], item.source)
            new_sources[item.source["source_id"]] = item.source
        candidates = await deps.stages.findings.extract(deps, sub_question, retrieved, iteration, config)
        texts = {sid: s["text"] for sid, s in sources.items()}
        kept = validate_findings(candidates, findings, texts, screen)
        findings += kept
        new_findings += kept
        sub_question = {**sub_question, "iteration_count": iteration + 1,
                        "queries_done": [*sub_question.get("queries_done", []),
                                         *(t.query for t in tasks)],
                        "queued_queries": [q for q in sub_question.get("queued_queries", [])
                                           if q not in {t.query for t in tasks}]}
        quality = score_quality(findings, len(kept), len(candidates))
        depth = follow_up_queries(sub_question, findings, sources,
                                  max(1, config.max_tasks_per_iteration), specificity)
        session_iterations += 1
        round_iterations += 1
        action, reasons = check_stopping(StoppingInput(
            iteration_count=round_iterations, iteration_budget=budget,
            min_iterations=min_iterations,
            quality=quality, session_iterations=session_iterations,
            budget_exhausted=not deps.coordinator.affordable("low"),
            has_next_queries=bool(depth or sub_question.get("queued_queries"))), config)
        trace.append({"node": "research", "sub_question_id": sq_id, "iteration": iteration,
                      "tasks": [f"{t.kind}:{t.query}" for t in tasks], "retrieved": len(retrieved),
                      "new_findings": len(kept), "confidence": quality.confidence,
                      "novelty": quality.novelty, "decision": action, "reasons": reasons})
        deps.emit("iteration", {"sub_question_id": sq_id, "iteration": iteration,
                                "findings": len(findings), "sources": len(sources)})
    synthesis = await deps.stages.sub_answer.answer(deps, sub_question, findings)
    sub_question = {**sub_question, "status": "completed", "synthesis": synthesis,
                    "finding_ids": [f["finding_id"] for f in findings],
                    "quality_score": synthesis.get("confidence", 0.0),
                    "stop_reason": ",".join(reasons)}
    deps.emit("sub_question", {"sub_question_id": sq_id, "status": "completed",
                               "findings": len(findings)})
    return {"sub_questions": [sub_question], "findings": new_findings, "sources": new_sources,
            "trace": trace, "errors": errors}

"""Wiring of the research graph and its routers (pure functions of state).

analyze → [clarify_retrieve ⇄ clarify_ask] → plan [⇄ review_plan] → research_sub_question ×N (Send)
→ collect → detect_gaps ⇄ research → domain_synthesis → trust_engine → write
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from research_studio.graph.deps import ResearchDeps
from research_studio.graph.nodes.analyze import analyze_node
from research_studio.graph.nodes.clarify import clarify_ask_node, clarify_retrieve_node
from research_studio.graph.nodes.domain_synthesis import domain_synthesis_node
from research_studio.graph.nodes.gaps import detect_gaps_node
from research_studio.graph.nodes.plan import plan_node
from research_studio.graph.nodes.plan_review import review_plan_node
from research_studio.graph.nodes.research import sub_agent_payload
from research_studio.graph.nodes.trust import trust_engine_node
from research_studio.graph.nodes.write import write_node
from research_studio.graph.sub_agent import build_sub_agent
from research_studio.models.usage import current_task
from research_studio.state import ResearchState

Node = Callable[[ResearchState, Runtime[ResearchDeps]], Awaitable[dict]]


# ---- routers -------------------------------------------------------------------------
def route_after_analysis(state: ResearchState) -> str:
    """Clarify only when policy allows it and a person is there to answer."""
    config = state["config"]
    policy = config.clarify
    if policy == "never" or not config.interactive:
        return "plan"
    if policy == "always" or state.get("query_analysis", {}).get("needs_clarification"):
        return "clarify_retrieve"
    return "plan"


def route_after_clarify_retrieve(state: ResearchState) -> str:
    return "plan" if state.get("clarification_status") in ("converged", "max_iterations") \
        else "clarify_ask"


def route_after_answer(state: ResearchState) -> str:
    if state.get("clarification_status") == "ended":
        return "plan"
    if state.get("hitl_iteration", 0) >= state["config"].hitl_max_iterations:
        return "plan"
    return "clarify_retrieve"


def dispatch_research(state: ResearchState) -> list[Send] | str:
    """Pending sub-questions go to sub-agents: all at once (parallel) or the highest
    priority one at a time (sequential, seed 001's option)."""
    pending = sorted((sq for sq in state.get("sub_questions", []) if sq.get("status") == "pending"),
                     key=lambda sq: (-sq.get("priority", 0.0), sq["sub_question_id"]))
    if not pending:
        return "detect_gaps"
    if not state["config"].parallel:
        pending = pending[:1]
    return [Send("research_sub_question", sub_agent_payload(state, sq)) for sq in pending]


def route_after_plan(state: ResearchState) -> list[Send] | str:
    """A plan waits for the person's review when asked for, and is researched otherwise
    (the planner runs again only for a plan the person turned down)."""
    if state["config"].review_plan:
        return "review_plan"
    return dispatch_research(state)


def route_after_review(state: ResearchState) -> list[Send] | str:
    """A turned-down plan goes back to the planner with the person's note."""
    if state.get("plan_review_status") == "replan":
        return "plan"
    return dispatch_research(state)


def route_after_gaps(state: ResearchState) -> list[Send] | str:
    if state.get("gap_decision") == "refine":
        return dispatch_research(state)
    return "domain_synthesis"


# ---- instrumentation -----------------------------------------------------------------
def instrumented(name: str, node: Node, stage: str | None = "") -> Node:
    """Time the node and hand its own LLM calls to the state, so usage survives a resume.
    ``stage``: the stage the node announces to front ends (its name by default; None for
    the sub-agent's inner steps, whose first step announces the research stage)."""

    async def run(state: dict[str, Any], runtime: Runtime[ResearchDeps]) -> dict:
        task = f"{name}:{uuid.uuid4().hex[:12]}"
        token = current_task.set(task)
        started_at = time.time()
        started = time.perf_counter()
        ledger = runtime.context.coordinator.ledger
        if stage is not None:
            runtime.context.emit("stage", {"stage": stage or name, "tokens": sum(
                c.prompt_tokens + c.completion_tokens for c in ledger.calls)})
        try:
            update = await node(state, runtime)
        finally:
            current_task.reset(token)
        calls, structured = runtime.context.coordinator.ledger.for_task(task)
        timing = {"node": name, "wall_s": round(time.perf_counter() - started, 4),
                  "started_at": round(started_at, 4)}
        task_input = state.get("sub_agent_task") or {}
        sq = task_input.get("sub_question")
        if sq:  # a sub-agent's step
            timing["sub_question_id"] = sq["sub_question_id"]
            timing["iteration"] = (state.get("sub_question") or sq).get("iteration_count", 0)
        return {**update, "node_timings": [timing], "llm_calls": calls,
                "structured_outcomes": structured}

    run.__name__ = name
    return run


async def collect_node(state: ResearchState, runtime: Runtime[ResearchDeps]) -> dict:
    """Join point after parallel sub-agents."""
    done = sum(1 for sq in state.get("sub_questions", []) if sq.get("status") == "completed")
    return {"stage": "research", "trace": [{"node": "collect", "completed": done,
                                            "total": len(state.get("sub_questions", []))}]}


def build_graph(context_schema: type = ResearchDeps,
                wrap: Callable[[str, Node], Node] | None = None) -> StateGraph:
    """The research graph. ``context_schema`` and ``wrap`` (around every instrumented node)
    let a LangGraph server run it with JSON context instead of ``ResearchDeps``
    (``graph/studio.py``); the product uses neither."""
    graph = StateGraph(ResearchState, context_schema=context_schema)

    def sub_agent_step(name: str, node: Node) -> Node:
        step = instrumented(name, node, stage="research_sub_question" if name == "start" else None)
        return wrap(name, step) if wrap else step

    # started only by Send: its payload is the subgraph's own input (SubAgentInput)
    graph.add_node("research_sub_question", build_sub_agent(sub_agent_step, context_schema))
    for name, node in (("analyze", analyze_node), ("clarify_retrieve", clarify_retrieve_node),
                       ("clarify_ask", clarify_ask_node), ("plan", plan_node),
                       ("review_plan", review_plan_node),
                       ("collect", collect_node), ("detect_gaps", detect_gaps_node),
                       ("domain_synthesis", domain_synthesis_node),
                       ("trust_engine", trust_engine_node), ("write", write_node)):
        graph.add_node(name, wrap(name, instrumented(name, node)) if wrap
                       else instrumented(name, node))
    graph.add_edge(START, "analyze")
    graph.add_conditional_edges("analyze", route_after_analysis, ["clarify_retrieve", "plan"])
    graph.add_conditional_edges("clarify_retrieve", route_after_clarify_retrieve,
                                ["clarify_ask", "plan"])
    graph.add_conditional_edges("clarify_ask", route_after_answer, ["clarify_retrieve", "plan"])
    graph.add_conditional_edges("plan", route_after_plan,
                                ["review_plan", "research_sub_question", "detect_gaps"])
    graph.add_conditional_edges("review_plan", route_after_review,
                                ["plan", "research_sub_question", "detect_gaps"])
    graph.add_edge("research_sub_question", "collect")
    graph.add_conditional_edges("collect", dispatch_research,
                                ["research_sub_question", "detect_gaps"])
    graph.add_conditional_edges("detect_gaps", route_after_gaps,
                                ["research_sub_question", "domain_synthesis"])
    graph.add_edge("domain_synthesis", "trust_engine")
    graph.add_edge("trust_engine", "write")
    graph.add_edge("write", END)
    return graph

"""The research sub-agent as a LangGraph subgraph: one per sub-question, started by a Send.

    start → select_strategy → execute → extract_findings → validate_findings
          → score_quality → check_stopping ─continue→ select_strategy
                                           └synthesize(_sub_question)→ synthesize_sub_question

Its input is the Send payload (the run's config and the sub-agent task); its output is what
the parent graph merges: the completed sub-question, the new findings and sources, trace,
errors and usage. Everything between is its own state, checkpointed after every step.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from research_studio.config import ResearchConfig
from research_studio.graph.nodes.research import (
    check_stopping_node,
    execute_node,
    extract_findings_node,
    score_quality_node,
    select_strategy_node,
    start_node,
    synthesize_sub_question_node,
    validate_findings_node,
)
from research_studio.state import (
    Finding,
    Source,
    SubQuestion,
    merge_findings,
    merge_sources,
    merge_sub_questions,
)


class SubAgentInput(TypedDict):
    config: ResearchConfig
    sub_agent_task: dict[str, Any]


class SubAgentOutput(TypedDict, total=False):
    """Merged into the research state by its reducers when the sub-agent ends."""

    sub_questions: Annotated[list[SubQuestion], merge_sub_questions]
    findings: Annotated[list[Finding], merge_findings]  # the new ones
    sources: Annotated[dict[str, Source], merge_sources]  # the new ones
    trace: Annotated[list[dict], operator.add]
    errors: Annotated[list[str], operator.add]
    llm_calls: Annotated[list[dict], operator.add]
    structured_outcomes: Annotated[list[str], operator.add]
    node_timings: Annotated[list[dict], operator.add]


class SubAgentState(SubAgentInput, SubAgentOutput, total=False):
    sub_question: SubQuestion  # as it evolves: iterations, queries done and queued
    known_findings: list[Finding]  # every finding of this sub-question, earlier rounds too
    known_sources: dict[str, Source]
    budget: int  # iterations allowed in this research round
    min_iterations: int
    session_iterations: int
    round_iterations: int
    tasks: list[dict]  # strategy.Task of this iteration
    retrieved: list[dict]  # execute.Retrieved of this iteration
    candidates: list[Finding]
    kept: list[Finding]
    quality: dict  # quality.Quality
    follow_ups: list[str] | None  # entity hops the evidence suggests for the next iteration
    decision: str  # check_stopping: continue | synthesize_sub_question | synthesize
    reasons: list[str]


STEPS = (("start", start_node), ("select_strategy", select_strategy_node),
         ("execute", execute_node), ("extract_findings", extract_findings_node),
         ("validate_findings", validate_findings_node), ("score_quality", score_quality_node),
         ("check_stopping", check_stopping_node),
         ("synthesize_sub_question", synthesize_sub_question_node))


def route_after_strategy(state: SubAgentState) -> str:
    """No query left to run: the sub-question is answered from what it has."""
    return "execute" if state.get("tasks") else "synthesize_sub_question"


def route_after_stopping(state: SubAgentState) -> str:
    """check_stopping's three outcomes: another iteration, or the sub-question's answer
    (its own limits reached, or the session's: ``synthesize``)."""
    return "select_strategy" if state.get("decision") == "continue" else "synthesize_sub_question"


def build_sub_agent(node: Callable[[str, Callable], Callable], context_schema: type,
                    ) -> CompiledStateGraph:
    """The compiled subgraph; ``node(name, step)`` wraps each step (timing, usage, and for a
    LangGraph server the deps). Compiled without a checkpointer: it uses the parent's."""
    graph = StateGraph(SubAgentState, context_schema=context_schema,
                       input_schema=SubAgentInput, output_schema=SubAgentOutput)
    for name, step in STEPS:
        graph.add_node(name, node(name, step))
    graph.add_edge(START, "start")
    graph.add_edge("start", "select_strategy")
    graph.add_conditional_edges("select_strategy", route_after_strategy,
                                ["execute", "synthesize_sub_question"])
    graph.add_edge("execute", "extract_findings")
    graph.add_edge("extract_findings", "validate_findings")
    graph.add_edge("validate_findings", "score_quality")
    graph.add_edge("score_quality", "check_stopping")
    graph.add_conditional_edges("check_stopping", route_after_stopping,
                                ["select_strategy", "synthesize_sub_question"])
    graph.add_edge("synthesize_sub_question", END)
    return graph.compile(name="research_sub_question")

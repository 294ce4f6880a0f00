"""The research graph as a LangGraph server loads it (``langgraph.json``, ``langgraph dev``).

The product hands every node ``ResearchDeps`` (models, knowledge base, encoder) as the
runtime context; a LangGraph server hands it what its client sent as JSON. So this graph's
context schema is ``ResearchConfig``, the form LangGraph Studio shows as the assistant's
configuration (knowledge base, mode, thresholds), and each node receives the deps built
from it over the home folder (``RESEARCH_STUDIO_HOME`` or the default home). The server
keeps its own checkpoints and threads; sessions run here are not in ``research-studio
sessions``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from langgraph.config import get_config
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from research_studio.config import ResearchConfig, load_context
from research_studio.graph.build import Node, build_graph
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.session import Hooks, Workspace, research_deps

# deps of the threads that ran last (a thread's cost budget and ledger span its nodes)
MAX_THREADS_KEPT = 32
_workspace: Workspace | None = None
_deps_by_thread: OrderedDict[str, ResearchDeps] = OrderedDict()


def _workspace_opened() -> Workspace:
    global _workspace
    if _workspace is None:  # opened on first use: importing the graph stays cheap
        _workspace = Workspace(load_context())
    return _workspace


def _deps_for(config: ResearchConfig) -> ResearchDeps:
    thread = str(get_config().get("configurable", {}).get("thread_id", ""))
    if thread not in _deps_by_thread:
        _deps_by_thread[thread] = research_deps(_workspace_opened(), config, Hooks())
        while len(_deps_by_thread) > MAX_THREADS_KEPT:
            _deps_by_thread.popitem(last=False)
    return _deps_by_thread[thread]


def with_research_deps(name: str, node: Node) -> Node:
    """Run ``node`` with the deps for the run's configuration; the first node builds that
    configuration (within the home's ``[models]`` budget ceiling) and writes it into the
    state, where every later node and router reads it."""

    async def run(state: dict[str, Any], runtime: Runtime) -> dict:
        given = state.get("config")
        if given is None:
            context = runtime.context
            sent = context if isinstance(context, ResearchConfig) else ResearchConfig()
            state = {**state, "config": sent.within(_workspace_opened().ctx.settings.models)}
        config = state["config"]
        update = await node(state, runtime.override(context=_deps_for(config)))
        return update if given is not None else {**update, "config": config}

    run.__name__ = name
    return run


def studio_graph() -> CompiledStateGraph:
    """Compiled without a checkpointer: the server brings its own."""
    return build_graph(context_schema=ResearchConfig, wrap=with_research_deps).compile(
        name="research")


graph = studio_graph()

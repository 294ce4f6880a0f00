"""Run and resume research sessions on the checkpointer, streaming progress.

A session is a LangGraph thread in ``<home>/checkpoints.db`` plus a row in the sessions
database. Findings are stored as they arrive; a session interrupted by a clarification,
Ctrl-C or a killed process continues with ``resume`` from its last checkpoint.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command

from research_studio.config import AppContext, ResearchConfig
from research_studio.errors import InvalidQuery, ResearchStudioError
from research_studio.graph.build import build_graph
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.result import build_result
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.models.coordinator import ModelCoordinator
from research_studio.store.sessions import SessionStore


@dataclass
class Hooks:
    """How a front end follows a run: events, answers to clarifying questions, and
    (for tests and embedding) chat models to use in place of configured ones."""

    on_event: Callable[[str, dict[str, Any]], None] = lambda kind, data: None
    ask: Callable[[dict[str, Any]], str] | None = None
    chat_models: dict[str, BaseChatModel] | None = None


@dataclass
class Workspace:
    ctx: AppContext
    store: SessionStore = field(init=False)

    def __post_init__(self) -> None:
        self.store = SessionStore(self.ctx.home / "sessions.db")

    @property
    def checkpoint_path(self) -> str:
        return str(self.ctx.home / "checkpoints.db")


def validate_query(query: str, config: ResearchConfig) -> str:
    query = (query or "").strip()
    if not query:
        raise InvalidQuery("the question is empty")
    if len(query) > config.max_query_chars:
        raise InvalidQuery(
            f"the question is {len(query):,} characters; the limit is {config.max_query_chars:,}. "
            "Put long material in a document, ingest it, and ask a short question about it.")
    return query


def _deps(workspace: Workspace, config: ResearchConfig, hooks: Hooks) -> ResearchDeps:
    ctx = workspace.ctx
    registry = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge)
    kb = registry.open(config.kb) if config.kb else None
    if kb is None and not config.use_web:
        raise ResearchStudioError("nothing to research: choose a knowledge base with --kb NAME "
                                  f"(existing: {', '.join(registry.names()) or 'none'}) or use --web")
    models = ctx.settings.models.model_copy(update={
        "max_total_cost_usd": config.max_total_cost_usd,
        "max_external_calls": config.max_external_calls})
    coordinator = ModelCoordinator(models, chat_models=hooks.chat_models)
    return ResearchDeps(coordinator=coordinator, kb=kb, web=ctx.settings.web,
                        embeddings=registry.embeddings, emit=hooks.on_event)


async def _drive(workspace: Workspace, session_id: str, first_input: Any, config: ResearchConfig,
                 hooks: Hooks) -> dict[str, Any]:
    deps = _deps(workspace, config, hooks)
    store = workspace.store
    run_config = {"configurable": {"thread_id": session_id},
                  "max_concurrency": max(1, config.max_concurrency), "recursion_limit": 200}
    started = time.perf_counter()
    previous_active = float(store.get(session_id).get("active_s") or 0.0)
    async with AsyncSqliteSaver.from_conn_string(workspace.checkpoint_path) as saver:
        app = build_graph().compile(checkpointer=saver)
        snapshot = await app.aget_state(run_config)
        if snapshot.values:
            deps.coordinator.ledger.restore(snapshot.values.get("llm_calls", []),
                                            snapshot.values.get("structured_outcomes", []))
        pending: Any = first_input
        status = "running"
        try:
            while True:
                store.update(session_id, status="running")
                async for chunk in app.astream(pending, run_config, context=deps,
                                               stream_mode="updates"):
                    for node, update in chunk.items():
                        if node.startswith("__") or not isinstance(update, dict):
                            continue
                        if update.get("findings"):  # their sources may predate this update
                            values = (await app.aget_state(run_config)).values
                            store.save_findings(session_id, update["findings"],
                                                values.get("sources", {}))
                        mode = {"mode": update["mode"]} if update.get("mode") else {}
                        store.update(session_id, stage=node, **mode)
                snapshot = await app.aget_state(run_config)
                interrupts = [i.value for task in snapshot.tasks for i in task.interrupts]
                if not interrupts:
                    status = "completed" if not snapshot.next else "running"
                    break
                if hooks.ask is None:
                    status = "awaiting_clarification"
                    break
                pending = Command(resume=hooks.ask(interrupts[0]))
        except BaseException as exc:
            active = previous_active + time.perf_counter() - started
            state = "interrupted" if isinstance(exc, KeyboardInterrupt | SystemExit) else "failed"
            store.update(session_id, status=state, active_s=active,
                         error=None if state == "interrupted" else f"{type(exc).__name__}: {exc}")
            raise
    active = previous_active + time.perf_counter() - started
    result = build_result(snapshot.values, session_id, status, active)
    if status == "awaiting_clarification":
        result["pending_clarification"] = interrupts[0]
    store.update(session_id, status=status, active_s=active, result=result,
                 final_synthesis=result["report_markdown"] or None)
    return result


async def run_research(ctx: AppContext, query: str, config: ResearchConfig,
                       hooks: Hooks | None = None, session_id: str | None = None) -> dict[str, Any]:
    """Start a new session and run it to completion (or to a pending clarification)."""
    query = validate_query(query, config)
    workspace = Workspace(ctx)
    session_id = session_id or uuid.uuid4().hex[:12]
    workspace.store.create(session_id, query, config.model_dump())
    initial = {"session_id": session_id, "query": query, "config": config.model_dump(),
               "status": "running"}
    return await _drive(workspace, session_id, initial, config, hooks or Hooks())


async def resume_research(ctx: AppContext, session_id: str, hooks: Hooks | None = None,
                          answer: str | None = None) -> dict[str, Any]:
    """Continue a session from its last checkpoint; ``answer`` replies to a pending question."""
    workspace = Workspace(ctx)
    row = workspace.store.get(session_id)
    if row["status"] == "completed" and row.get("result"):
        return row["result"]
    config = ResearchConfig(**row["config"])
    first_input = Command(resume=answer) if answer is not None else None
    return await _drive(workspace, session_id, first_input, config, hooks or Hooks())

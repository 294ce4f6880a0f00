"""Run and resume research sessions on the checkpointer, streaming progress.

A session is a LangGraph thread in the checkpointer (``<home>/checkpoints.db`` or
PostgreSQL, see ``store/backends.py``) plus a row in the sessions database. Findings are
stored as they arrive; a session interrupted by a clarification, Ctrl-C or a killed process
continues with ``resume`` from its last checkpoint.
"""

from __future__ import annotations

import asyncio
import logging
import time
import unicodedata
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langgraph.types import Command

from research_studio.config import BUDGET_FIELDS, AppContext, ResearchConfig
from research_studio.errors import (
    InvalidQuery,
    ResearchStudioError,
    SessionBusy,
    SessionQuarantined,
)
from research_studio.graph.build import build_graph
from research_studio.graph.deps import ResearchDeps
from research_studio.graph.plan_edits import validated_decision
from research_studio.graph.result import build_result
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.models.coordinator import ModelCoordinator
from research_studio.store.backends import open_checkpointer, prepare_checkpoints, storage_backend
from research_studio.store.lease import SessionLeases
from research_studio.store.sessions import UNFINISHED, SessionStore

log = logging.getLogger("research_studio.session")


@dataclass
class Hooks:
    """How a front end follows a run: events, answers to what the run asks (a clarifying
    question's payload gets text back, a plan review's a decision: ``graph/plan_edits``),
    and (for tests and embedding) chat models to use in place of configured ones."""

    on_event: Callable[[str, dict[str, Any]], None] = lambda kind, data: None
    ask: Callable[[dict[str, Any]], Any] | None = None
    chat_models: dict[str, BaseChatModel] | None = None


class Workspace:
    """One home's storage and knowledge bases, shared by every session a process runs
    (the service keeps one, so sessions share one embedding model)."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.backend = storage_backend(ctx)
        # both databases checked (and made on a first run) before anything is recorded
        self.store = SessionStore(self.backend.sessions_url)
        prepare_checkpoints(self.backend)
        self.leases = SessionLeases(self.backend)
        self._registry: KnowledgeBaseRegistry | None = None

    @property
    def registry(self) -> KnowledgeBaseRegistry:
        if self._registry is None:
            self._registry = KnowledgeBaseRegistry(self.ctx.kb_dir, self.ctx.settings.knowledge)
        return self._registry


def validate_query(query: str, config: ResearchConfig) -> str:
    """The question, trimmed, or a one-line reason it cannot be researched: empty, too long,
    holding control characters or undecodable bytes, or without a single letter in any
    script (only emoji, digits, punctuation or invisible characters)."""
    query = (query or "").strip()
    if not query:
        raise InvalidQuery("the question is empty")
    if any(unicodedata.category(ch) == "Cs" for ch in query):
        raise InvalidQuery("the question holds bytes that are not valid text (check the terminal's "
                           "encoding; UTF-8 is expected)")
    if any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in query):
        raise InvalidQuery("the question holds control characters (such as NUL); remove them")
    if not any(ch.isalpha() for ch in query):
        raise InvalidQuery("the question has no words: write it in letters of any language")
    if len(query) > config.max_query_chars:
        raise InvalidQuery(
            f"the question is {len(query):,} characters; the limit is {config.max_query_chars:,}. "
            "Put long material in a document, ingest it, and ask a short question about it.")
    return query


def session_config(workspace: Workspace, recorded: dict[str, Any]) -> ResearchConfig:
    """The run's configuration, built and validated once: the recorded config within the
    ``[models]`` ceiling (the recorded config already holds it; applied again for sessions
    recorded before the ceiling was). The graph's state carries this object to every node."""
    return ResearchConfig(**recorded).within(workspace.ctx.settings.models)


def research_deps(workspace: Workspace, config: ResearchConfig, hooks: Hooks) -> ResearchDeps:
    """The run-time parts a session's nodes use, for its configuration (``session_config``):
    the model coordinator enforces that configuration's budget."""
    ctx = workspace.ctx
    registry = workspace.registry
    kb = registry.open(config.kb) if config.kb else None
    if kb is None and not config.use_web:
        raise ResearchStudioError("nothing to research: choose a knowledge base with --kb NAME "
                                  f"(existing: {', '.join(registry.names()) or 'none'}) or use --web")
    models = ctx.settings.models.model_copy(
        update={name: getattr(config, name) for name in BUDGET_FIELDS})
    coordinator = ModelCoordinator(models, chat_models=hooks.chat_models)
    return ResearchDeps(coordinator=coordinator, kb=kb, web=ctx.settings.web,
                        embeddings=registry.embeddings, emit=hooks.on_event)


def _initial_input(row: dict[str, Any], config: ResearchConfig) -> dict[str, Any]:
    return {"session_id": row["id"], "query": row["query"], "config": config,
            "status": "running"}


async def _report_findings(app: Any, run_config: dict, store: SessionStore, session_id: str,
                           findings: list[dict], hooks: Hooks) -> None:
    """Store new findings with their sources at once, and tell the front end about both."""
    sources = (await app.aget_state(run_config)).values.get("sources", {})
    store.save_findings(session_id, findings, sources)
    hooks.on_event("findings", {"findings": [
        {"finding_id": f["finding_id"], "sub_question_id": f["sub_question_id"],
         "text": f["text"][:400], "source_id": f["source_id"]} for f in findings]})
    cited = dict.fromkeys(f["source_id"] for f in findings)
    hooks.on_event("sources", {"sources": [
        {"source_id": sid, "title": sources.get(sid, {}).get("title", ""),
         "location": sources.get(sid, {}).get("location", "")} for sid in cited]})


async def _forget_checkpoints(workspace: Workspace, session_id: str) -> None:
    """A completed session's result is stored, and only an unfinished one resumes from its
    checkpoints: they go, or every run would keep its whole graph state at each step for
    good (about 1.5 MB per MuSiQue evaluation run, 4.5 GB after 3,000)."""
    try:
        async with open_checkpointer(workspace.backend) as saver:
            await saver.adelete_thread(session_id)
    except Exception as exc:  # any backend's error: the run itself succeeded
        log.warning("could not remove the checkpoints of completed session %s: %s",
                    session_id, exc)


def waiting_status(pending: dict[str, Any]) -> str:
    """What a session stopped at an interrupt waits for."""
    return "awaiting_plan_review" if pending.get("kind") == "plan_review" \
        else "awaiting_clarification"


def _interrupts(snapshot: Any) -> list[dict[str, Any]]:
    """What the graph stopped to ask, oldest first (empty when it did not stop)."""
    return [i.value for task in snapshot.tasks for i in task.interrupts]


class RefusedAnswer(ResearchStudioError):
    """An answer that does not fit what the session waits for: the session stays as it was."""


def resume_value(session_id: str, pending: list[dict[str, Any]], answer: Any) -> Any:
    """What resumes the graph for ``answer``: text for a clarification, a checked decision
    for a plan review. Anything else is refused before the graph runs, so a mistaken or
    invalid answer loses nothing and the question (or plan) stays pending."""
    if not pending:
        raise RefusedAnswer(f"session {session_id} has no pending question to answer")
    if waiting_status(pending[0]) == "awaiting_plan_review":
        if isinstance(answer, str):
            raise RefusedAnswer(f"session {session_id} waits for a review of its plan, not an "
                                "answer: approve or edit it (resume --plan FILE.json)")
        return validated_decision(answer, pending[0]).model_dump()
    if not isinstance(answer, str):
        raise RefusedAnswer(f"session {session_id} waits for an answer to its clarifying "
                            "questions, not a plan (resume --answer TEXT)")
    return answer


async def _drive(workspace: Workspace, session_id: str, answer: Any,
                 hooks: Hooks) -> dict[str, Any]:
    store = workspace.store
    row = store.get(session_id)
    config = session_config(workspace, row["config"])
    deps = research_deps(workspace, config, hooks)
    run_config = {"configurable": {"thread_id": session_id},
                  "max_concurrency": max(1, config.max_concurrency), "recursion_limit": 200}
    started = time.perf_counter()
    # the encoder's seconds in this run (approximate while other sessions of the same
    # process embed at the same time)
    embedding_before = deps.embeddings.busy_s
    previous_active = float(row.get("active_s") or 0.0)
    status = "running"
    refused = False
    # Everything from opening the checkpoints on is inside the try, so a run that cannot
    # read them (a corrupt or truncated checkpoints.db) ends failed with the reason
    # recorded, like any other failure, and is never left "running".
    try:
        async with open_checkpointer(workspace.backend) as saver:
            app = build_graph().compile(checkpointer=saver)
            snapshot = await app.aget_state(run_config)
            if answer is not None:  # checked first: a refused answer leaves the session as it was
                try:
                    value = resume_value(session_id, _interrupts(snapshot), answer)
                except ResearchStudioError:
                    refused = True
                    raise
            if snapshot.values:
                deps.coordinator.ledger.restore(snapshot.values.get("llm_calls", []),
                                                snapshot.values.get("structured_outcomes", []))
                pending: Any = Command(resume=value) if answer is not None else None
            else:  # never started (queued, or killed before the first checkpoint)
                pending = _initial_input(row, config)
            while True:
                store.update(session_id, status="running", error=None)
                hooks.on_event("status", {"status": "running"})
                async for chunk in app.astream(pending, run_config, context=deps,
                                               stream_mode="updates"):
                    for node, update in chunk.items():
                        if node.startswith("__") or not isinstance(update, dict):
                            continue
                        if update.get("findings"):  # their sources may predate this update
                            await _report_findings(app, run_config, store, session_id,
                                                   update["findings"], hooks)
                        mode = {"mode": update["mode"]} if update.get("mode") else {}
                        store.update(session_id, stage=node, **mode,  # survives a kill -9
                                     active_s=previous_active + time.perf_counter() - started)
                snapshot = await app.aget_state(run_config)
                interrupts = _interrupts(snapshot)
                if not interrupts:
                    status = "completed" if not snapshot.next else "running"
                    break
                if interrupts[0].get("kind") == "plan_review":
                    hooks.on_event("plan_review", interrupts[0])
                reply = hooks.ask(interrupts[0]) if hooks.ask else None
                if reply is None:  # nobody to ask, or the person left it for later
                    status = waiting_status(interrupts[0])
                    break
                pending = Command(resume=reply)
    except BaseException as exc:
        if refused:
            raise
        active = previous_active + time.perf_counter() - started
        if isinstance(exc, asyncio.CancelledError):  # a person's cancel is recorded first;
            # otherwise it is Ctrl-C (asyncio.run cancels) or a server shutting down
            cancelled = store.get(session_id).get("cancel_requested")
            state, error = ("cancelled" if cancelled else "interrupted"), None
        elif isinstance(exc, KeyboardInterrupt | SystemExit):
            state, error = "interrupted", None
        else:
            state, error = "failed", f"{type(exc).__name__}: {exc}"
        store.update(session_id, status=state, active_s=active, error=error)
        if error:
            hooks.on_event("error", {"message": error})
        hooks.on_event("status", {"status": state})
        raise
    active = previous_active + time.perf_counter() - started
    result = build_result(snapshot.values, session_id, status, active,
                          deps.embeddings.busy_s - embedding_before)
    if status == "awaiting_clarification":
        result["pending_clarification"] = interrupts[0]
    elif status == "awaiting_plan_review":
        result["pending_plan"] = interrupts[0]
    store.update(session_id, status=status, active_s=active, result=result,
                 final_synthesis=result["report_markdown"] or None)
    if status == "completed":
        await _forget_checkpoints(workspace, session_id)
        hooks.on_event("completed", {"status": status, "claims": len(result["claims"]),
                                     "sources_cited": result["metrics"]["sources_cited"]})
    hooks.on_event("status", {"status": status})  # last: a terminal status ends a stream
    return result


def new_session_id() -> str:
    """A fresh session id (front ends make one first to show it before the run starts)."""
    return uuid.uuid4().hex[:12]


def prepare_session(workspace: Workspace, query: str, config: ResearchConfig,
                    session_id: str | None = None, status: str = "running") -> str:
    """Validate the question and record the session; nothing runs yet."""
    query = validate_query(query, config)
    if config.kb:
        workspace.registry.open(config.kb)  # an unknown name raises, naming the existing ones
    elif not config.use_web:  # refused now, not when the session first runs
        names = ", ".join(workspace.registry.names()) or "none"
        raise InvalidQuery(f"nothing to research: choose a knowledge base (existing: {names}) "
                           "or enable the web", field="config")
    session_id = session_id or new_session_id()
    config = config.within(workspace.ctx.settings.models)  # one budget, recorded with it
    workspace.store.create(session_id, query, config.model_dump(), status=status)
    return session_id


async def drive_session(workspace: Workspace, session_id: str, hooks: Hooks | None = None,
                        answer: Any = None, dispatch_id: str | None = None) -> dict[str, Any]:
    """Run a recorded session from its last checkpoint (or from the start) until it
    completes or waits for a person; ``answer`` replies to a pending clarification (text)
    or plan review (a ``PlanDecision`` or its JSON).

    The run holds the session's lease (``store/lease.py``): a session another live
    process runs raises SessionBusy and is left alone. A worker passes the ``dispatch_id``
    it was sent: a session dispatched again since, or no longer queued or running, raises
    SessionBusy too. A cancel requested from any process stops the run within
    ``service.cancel_check_s``."""
    store = workspace.store
    with workspace.leases.hold(session_id) as granted:
        if not granted:
            raise SessionBusy(f"session {session_id} is running in another process (a worker "
                              "or another server); follow it with `research-studio sessions "
                              f"show {session_id}`")
        row = store.get(session_id)
        if dispatch_id is not None and (row.get("dispatch_id") != dispatch_id
                                        or row["status"] not in UNFINISHED):
            raise SessionBusy(f"session {session_id} was dispatched again or needs no run")
        if row["status"] == "completed" and row.get("result"):
            return row["result"]
        hooks = hooks or Hooks()
        died = store.begin_run(session_id)
        limit = workspace.ctx.settings.max_unclean_exits
        if died >= limit:
            _quarantine(store, session_id, row, died, hooks)
        run = asyncio.ensure_future(_drive(workspace, session_id, answer, hooks))
        watch = asyncio.ensure_future(_cancel_when_requested(
            store, session_id, run, workspace.ctx.settings.service.cancel_check_s))
        try:
            return await run
        finally:  # reached on every end the process lives to see, Ctrl-C and shutdown included
            watch.cancel()
            if not run.done():  # this coroutine itself was cancelled: so is the run
                run.cancel()
                await asyncio.gather(run, return_exceptions=True)
            store.end_run(session_id)


async def _cancel_when_requested(store: SessionStore, session_id: str, run: asyncio.Future,
                                 every_s: float) -> None:
    """Cancel ``run`` once a person asked to stop the session, in this process or any
    other (the request is a column of the session's row)."""
    while not run.done():
        await asyncio.sleep(every_s)
        try:
            requested = store.get(session_id).get("cancel_requested")
        except ResearchStudioError:  # storage briefly unreachable: ask again next time
            continue
        if requested:
            run.cancel()
            return


def _quarantine(store: SessionStore, session_id: str, row: dict[str, Any], died: int,
                hooks: Hooks) -> None:
    """Fail a session that killed its process ``died`` runs in a row, with the reason."""
    message = (f"session {session_id} stopped: the process running it died {died} times in a "
               f"row (last stage: {row.get('stage') or 'start'}), so it is not resumed again. "
               f"Check the log or the model configuration, then retry once with "
               f"`research-studio resume {session_id} --retry`")
    store.update(session_id, status="failed", error=message, unclean_exits=died)
    hooks.on_event("error", {"message": message})
    hooks.on_event("status", {"status": "failed"})
    raise SessionQuarantined(message)


async def run_research(ctx: AppContext, query: str, config: ResearchConfig,
                       hooks: Hooks | None = None, session_id: str | None = None) -> dict[str, Any]:
    """Start a new session and run it to completion (or to a pending clarification)."""
    workspace = Workspace(ctx)
    session_id = prepare_session(workspace, query, config, session_id)
    return await drive_session(workspace, session_id, hooks)


async def resume_research(ctx: AppContext, session_id: str, hooks: Hooks | None = None,
                          answer: Any = None, retry: bool = False) -> dict[str, Any]:
    """Continue a session from its last checkpoint; ``answer`` replies to a pending
    clarification or plan review.

    A person resuming a session decides anew: an earlier cancel no longer holds, and
    ``retry`` lifts the quarantine of a session whose process kept dying."""
    workspace = Workspace(ctx)
    workspace.store.update(session_id, cancel_requested=False,
                           **({"unclean_exits": 0} if retry else {}))
    return await drive_session(workspace, session_id, hooks, answer)

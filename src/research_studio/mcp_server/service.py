"""The work behind the MCP tools and resources, on the same home as the CLI and ``serve``.

A session started here is recorded in the home's sessions database by ``prepare_session``
and run in the background of this process by the service's ``SessionRunner``, so
``research-studio sessions`` and the HTTP API see it, and a session started there can be
followed, read and searched from here. Errors a person can act on stay
``ResearchStudioError``; the tools turn them into MCP tool errors.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from pydantic import ValidationError

from research_studio.config import AppContext
from research_studio.errors import ResearchStudioError
from research_studio.graph.progress import new_progress
from research_studio.graph.session import Workspace, prepare_session
from research_studio.knowledge.base import KnowledgeBaseRegistry, SearchMode
from research_studio.mcp_server.progress import ProgressMeter, describe, percent_done
from research_studio.mcp_server.schemas import (
    KnowledgeBase,
    KnowledgeBases,
    Passage,
    ResearchOutcome,
    SearchResult,
    SessionPage,
    SessionRow,
    SessionState,
    report_uri,
    result_uri,
)
from research_studio.service.runner import SessionRunner
from research_studio.service.schemas import ResearchOptions
from research_studio.store.sessions import TERMINAL

# A wait ends on these: nothing more will happen to the session unless someone resumes it.
WAIT_ENDS = (*TERMINAL, "interrupted", "awaiting_clarification", "awaiting_plan_review")
# A session another process runs wakes nobody here; its row is read again this often.
POLL_S = 1.0

Report = Callable[[float, str], Awaitable[None]]


class ResearchService:
    """One home's sessions and knowledge bases, shared by every MCP client of a process."""

    def __init__(self, workspace: Workspace, runner: SessionRunner) -> None:
        self.workspace = workspace
        self.runner = runner
        self.store = workspace.store
        self._registry_lock = threading.Lock()

    @classmethod
    @asynccontextmanager
    async def running(cls, ctx: AppContext) -> AsyncIterator[ResearchService]:
        """The service for the server's lifetime. Unlike ``serve`` it resumes nothing on
        start (it may run beside ``serve`` and other MCP servers on one home); sessions it
        has to stop are left ``interrupted`` for ``research-studio resume``."""
        workspace = Workspace(ctx)
        runner = SessionRunner(workspace, ctx.settings.service.max_concurrent_sessions)
        try:
            yield cls(workspace, runner)
        finally:
            with anyio.CancelScope(shield=True):  # a shutdown by signal still records the end
                await runner.shutdown(leave_as="interrupted")

    def registry(self) -> KnowledgeBaseRegistry:
        """The home's knowledge bases; made once (it loads the embedding model), under a
        lock because tools call it from worker threads."""
        with self._registry_lock:
            return self.workspace.registry

    # research -------------------------------------------------------------------
    async def start(self, question: str, options: dict[str, Any]) -> str:
        """Validate and record a session, queue it, and return its id. The question and
        knowledge base are checked here, so a bad one is refused rather than failed later."""
        try:
            config = ResearchOptions(clarify="never", **options).to_config()
        except ValidationError as exc:
            raise ResearchStudioError(f"invalid option: {exc}") from None

        def record() -> str:
            self.registry()
            return prepare_session(self.workspace, question, config, status="queued")

        session_id = await asyncio.to_thread(record)
        self.runner.submit(session_id)
        return session_id

    async def follow(self, session_id: str, timeout_s: float,
                     report: Report | None = None) -> ResearchOutcome:
        """Wait until the session ends (or ``timeout_s`` passes), calling ``report`` with
        a growing percentage and a line whenever it moved on."""
        self.store.get(session_id)  # an unknown id is refused before anything waits on it
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        meter = ProgressMeter()
        while True:
            seen = self.runner.board.version[session_id]
            row = self.store.get(session_id)
            state = session_state(row)
            if report is not None and (reading := meter.reading(state.progress, row["status"])):
                await report(*reading)
            if row["status"] in WAIT_ENDS:
                return outcome(row, state, finished=True)
            remaining = deadline - loop.time()
            if remaining <= 0:
                return outcome(row, state, finished=False)
            await self.runner.board.wait(session_id, seen, timeout=min(POLL_S, remaining))

    def state(self, session_id: str) -> SessionState:
        return session_state(self.store.get(session_id))

    def result(self, session_id: str) -> dict[str, Any]:
        """The result JSON of a completed session (as ``research --json`` writes it)."""
        row = self.store.get(session_id)
        if row["status"] != "completed" or not row.get("result"):
            raise ResearchStudioError(
                f"session {session_id} is {row['status']} (stage {row['stage'] or 'start'}): no "
                "result yet; wait_for_session waits for it")
        return row["result"]

    def cancel(self, session_id: str) -> str:
        """Stop a session this process runs; the cancel is stored before it acts."""
        row = self.store.get(session_id)
        if row["status"] in TERMINAL:
            raise ResearchStudioError(f"session {session_id} is {row['status']}; nothing to cancel")
        if not self.runner.is_active(session_id):
            raise ResearchStudioError(
                f"session {session_id} is {row['status']} but not run by this server; cancel it "
                "where it runs")
        self.runner.cancel(session_id)
        return "cancelling"

    def resume(self, session_id: str) -> str:
        """Queue an ``interrupted`` session again (a server it ran in stopped); it goes on
        from its last checkpoint. As with ``research-studio resume``, an earlier cancel no
        longer holds."""
        row = self.store.get(session_id)
        if row["status"] != "interrupted" or self.runner.is_active(session_id):
            raise ResearchStudioError(f"session {session_id} is {row['status']}; only an "
                                      "interrupted session can be resumed")
        self.store.update(session_id, cancel_requested=False)
        self.runner.submit(session_id)
        return "queued"

    def sessions(self, limit: int, offset: int) -> SessionPage:
        rows = self.store.list(limit=limit, offset=offset)
        return SessionPage(sessions=[SessionRow(session_id=r["id"], **{
            k: r[k] or "" for k in ("query", "status", "stage", "mode", "created_at",
                                    "updated_at")}) for r in rows],
            total=self.store.count(), limit=limit, offset=offset)

    # knowledge bases ------------------------------------------------------------
    async def knowledge_bases(self) -> KnowledgeBases:
        infos = await asyncio.to_thread(lambda: self.registry().list())
        return KnowledgeBases(knowledge_bases=[KnowledgeBase(**info.__dict__) for info in infos])

    async def search(self, query: str, kb: str, k: int, mode: SearchMode) -> SearchResult:
        def run() -> list[Passage]:
            hits = self.registry().open(kb).search(query, k=k, mode=mode)
            return [Passage(**{name: getattr(hit, name) for name in Passage.model_fields})
                    for hit in hits]

        return SearchResult(knowledge_base=kb, query=query, mode=mode,
                            hits=await asyncio.to_thread(run))


def session_state(row: dict[str, Any]) -> SessionState:
    """A stored session as the tools show it. Sessions the CLI ran store no progress; their
    stage stands in for it."""
    progress = row.get("progress") or {**new_progress(), "stage": row.get("stage") or "starting"}
    status = row["status"]
    return SessionState(
        session_id=row["id"], query=row["query"], status=status, stage=row.get("stage") or "",
        mode=row.get("mode") or "", created_at=row["created_at"], updated_at=row["updated_at"],
        error=row.get("error"), percent=round(percent_done(progress, status), 1),
        summary=describe(progress, status), progress=progress,
        report_uri=report_uri(row["id"]), result_uri=result_uri(row["id"]))


def outcome(row: dict[str, Any], state: SessionState, finished: bool) -> ResearchOutcome:
    result = row.get("result") if row["status"] == "completed" else None
    fields: dict[str, Any] = {}
    if result:
        metrics = result.get("metrics") or {}
        fields = {"short_answer": (result.get("short_answer") or {}).get("text"),
                  "report_markdown": result.get("report_markdown"),
                  "overall_confidence": metrics.get("overall_confidence"),
                  "sources_cited": metrics.get("sources_cited")}
    return ResearchOutcome(**state.model_dump(), finished=finished, **fields)

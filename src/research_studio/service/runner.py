"""Runs research sessions in the background of the server, a bounded number at a time.

Every event a run emits is stored (``research_events``) and folded into the session's
progress before listeners are woken (``service/events.py``), so what a client sees never
depends on being connected at the right moment. Sessions a killed server left
unfinished are resumed from their checkpoints on start-up, except those another live
process holds the lease of (several servers on one PostgreSQL database).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel

from research_studio.errors import ResearchStudioError, SessionBusy, StorageError
from research_studio.graph.session import Hooks, Workspace, drive_session
from research_studio.service.events import EventBoard, EventRecorder
from research_studio.store.sessions import TERMINAL

log = logging.getLogger("research_studio.service")


class SessionRunner:
    """Queue and run sessions; at most ``limit`` run at once, the rest wait their turn."""

    def __init__(self, workspace: Workspace, limit: int,
                 chat_models: dict[str, BaseChatModel] | None = None) -> None:
        self.workspace = workspace
        self.store = workspace.store
        self.limit = limit
        self.chat_models = chat_models
        self.board = EventBoard()
        self.recorder = EventRecorder(self.store)
        self._slots = asyncio.Semaphore(limit)
        self._tasks: dict[str, asyncio.Task] = {}
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self.stopping = False
        self._left_as = "queued"  # what a shutdown leaves an unfinished session as
        self._running = 0

    # events ---------------------------------------------------------------
    def record(self, session_id: str, kind: str, data: dict[str, Any]) -> None:
        """Store one event and fold it into the session's progress (loop thread only)."""
        if threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(self.record, session_id, kind, data)
            return
        self.recorder.record(session_id, kind, data)
        self._loop.create_task(self.board.bump(session_id))

    def _hooks(self, session_id: str) -> Hooks:
        return Hooks(on_event=lambda kind, data: self.record(session_id, kind, data),
                     ask=None, chat_models=self.chat_models)

    # lifecycle ------------------------------------------------------------
    @property
    def running(self) -> int:
        return self._running

    @property
    def queued(self) -> int:
        return len(self._tasks) - self.running

    def is_active(self, session_id: str) -> bool:
        return session_id in self._tasks

    def submit(self, session_id: str, answer: Any = None) -> None:
        """Queue a recorded session (new, answered, or left unfinished by a crash);
        ``answer``: text for a clarification, a checked decision for a plan review."""
        if session_id in self._tasks:
            return
        self.store.update(session_id, status="queued")
        self.record(session_id, "status", {"status": "queued"})
        task = self._loop.create_task(self._run(session_id, answer), name=f"session-{session_id}")
        self._tasks[session_id] = task
        # A task cancelled before its first step never runs its body (no except, no
        # finally there): this callback settles it whatever happened.
        task.add_done_callback(lambda done: self._settle(session_id, done))

    async def _run(self, session_id: str, answer: Any) -> None:
        async with self._slots:
            if self.store.get(session_id).get("cancel_requested"):
                return  # cancelled while it waited for a slot; _settle records it
            self._running += 1
            try:
                await drive_session(self.workspace, session_id, self._hooks(session_id), answer)
            finally:
                self._running -= 1

    def _settle(self, session_id: str, task: asyncio.Task) -> None:
        """Record how a session's task ended, if the run itself could not."""
        if self._tasks.get(session_id) is task:
            self._tasks.pop(session_id)
        self.recorder.forget(session_id)
        try:
            self._record_end(session_id, task)
        except StorageError as exc:  # nothing can be recorded: say why, once, in the log
            log.error("session %s: its end cannot be recorded: %s", session_id, exc)

    def _record_end(self, session_id: str, task: asyncio.Task) -> None:
        row = self.store.get(session_id)
        error = None if task.cancelled() else task.exception()
        if isinstance(error, SessionBusy):  # another process runs it: its status is theirs
            log.info("session %s: %s", session_id, error)
        elif row.get("cancel_requested") and row["status"] not in TERMINAL:
            self._finish(session_id, "cancelled")
        elif task.cancelled() or isinstance(error, asyncio.CancelledError):
            if self.stopping:  # a server shutdown is not the person's cancel: resume later
                self.store.update(session_id, status=self._left_as)
        elif isinstance(error, ResearchStudioError):  # its message is for the person
            log.warning("session %s failed: %s", session_id, error)
            if row["status"] not in TERMINAL:
                self._finish(session_id, "failed", str(error))
        elif error is not None:  # recorded on the session; the server lives on
            log.error("session %s failed", session_id, exc_info=error)
            if row["status"] not in TERMINAL:
                self._finish(session_id, "failed", f"{type(error).__name__}: {error}")

    def _finish(self, session_id: str, status: str, error: str | None = None) -> None:
        self.store.update(session_id, status=status, error=error)
        if error:
            self.record(session_id, "error", {"message": error})
        self.record(session_id, "status", {"status": status})

    def cancel(self, session_id: str) -> bool:
        """Stop a queued, running or waiting session. The request is stored before it is
        acted on, so it holds if this process dies before the run has stopped."""
        row = self.store.get(session_id)
        if row["status"] in TERMINAL:
            return False
        self.store.request_cancel(session_id)
        task = self._tasks.get(session_id)
        if task is not None:
            task.cancel()
        elif self.workspace.leases.running_elsewhere(row):
            pass  # another server runs it: its run sees the request and stops
        else:  # waiting for an answer, or left by a process that is gone
            self._finish(session_id, "cancelled")
        return True

    def recover(self) -> list[str]:
        """Resume every session a previous server process left queued or running and no
        live process runs; close those a person had asked to cancel."""
        resumed = []
        for row in self.store.unfinished_rows():
            session_id = row["id"]
            if not self.workspace.leases.is_free(session_id):
                continue  # another live server runs it
            if row["cancel_requested"]:
                self._finish(session_id, "cancelled")
                continue
            log.info("resuming session %s from its last checkpoint", session_id)
            self.submit(session_id)
            resumed.append(session_id)
        return resumed

    async def shutdown(self, leave_as: str = "queued") -> None:
        """Stop every session. ``queued`` (the service) has the next start resume them;
        ``interrupted`` (the MCP server, which resumes nothing on start, as it may run beside
        ``serve`` on one home) leaves them to ``research-studio resume``."""
        self.stopping = True
        self._left_as = leave_as
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.board.close()

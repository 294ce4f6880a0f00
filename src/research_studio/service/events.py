"""A session's events: stored as they happen, folded into its progress, and announced to
every process that streams them.

Whoever runs a session (the server itself, or a worker on another machine) records its
events through ``EventRecorder``; on PostgreSQL each stored event is announced with
NOTIFY on ``EVENT_CHANNEL`` (``SessionStore.add_event``), and every API process wakes its
event streams through ``EventBoard.listen``. On SQLite the one process that runs sessions
wakes its own streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import threading
from collections import defaultdict
from typing import Any

from research_studio.graph.progress import apply_event, new_progress
from research_studio.store.sessions import EVENT_CHANNEL, SessionStore

log = logging.getLogger("research_studio.service")
# events that change nothing the progress shows, so the session row is not rewritten
NOT_IN_PROGRESS = ("status", "completed", "error", "findings", "sources")
LISTEN_RETRY_S = 2.0  # after the database connection of the listener is lost


class EventRecorder:
    """Stores each event of a session and keeps the session's progress up to date; safe
    to call from any thread (model calls emit from worker threads)."""

    def __init__(self, store: SessionStore) -> None:
        self.store = store
        self._progress: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def record(self, session_id: str, kind: str, data: dict[str, Any]) -> None:
        with self._lock:
            progress = self._progress.get(session_id)
            if progress is None:
                progress = self.store.get(session_id).get("progress") or new_progress()
                self._progress[session_id] = progress
            apply_event(progress, kind, data)
            self.store.add_event(session_id, kind, data)
            if kind not in NOT_IN_PROGRESS:
                self.store.update(session_id, progress=copy.deepcopy(progress))

    def forget(self, session_id: str) -> None:
        """The run ended: the next one reads the progress back from the store."""
        with self._lock:
            self._progress.pop(session_id, None)


class EventBoard:
    """Wakes the event streams of a session when something new is stored for it."""

    def __init__(self) -> None:
        self._condition = asyncio.Condition()
        self.version: dict[str, int] = defaultdict(int)
        self._listener: asyncio.Task | None = None

    async def bump(self, session_id: str) -> None:
        async with self._condition:
            self.version[session_id] += 1
            self._condition.notify_all()

    async def wait(self, session_id: str, seen: int, timeout: float) -> None:
        """Return when ``session_id`` moved past ``seen`` or after ``timeout`` seconds."""
        async with self._condition:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._condition.wait_for(
                    lambda: self.version[session_id] != seen), timeout)

    def listen(self, database_url: str) -> None:
        """Wake streams on every event any process stores (PostgreSQL LISTEN)."""
        self._listener = asyncio.get_running_loop().create_task(
            self._listen(database_url), name="event-listener")

    async def _listen(self, database_url: str) -> None:
        import psycopg  # the postgres extra: only PostgreSQL storage listens

        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                        database_url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {EVENT_CHANNEL}")
                    async for notice in conn.notifies():
                        await self.bump(notice.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the streams still poll the store at every keep-alive
                log.warning("event listener lost its database connection (%s); retrying", exc)
                await asyncio.sleep(LISTEN_RETRY_S)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener

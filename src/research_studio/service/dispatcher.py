"""The server's side of a worker deployment (``service.broker_url`` set): sessions are
recorded here and handed to ``research-studio worker`` processes through the broker; the
server runs none itself. It offers the routes what ``SessionRunner`` offers them.

Every API process on the database can submit, follow and cancel any session: events come
from the database (announced with NOTIFY), cancels are a column the running worker reads.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from research_studio.graph.session import Workspace
from research_studio.service.events import EventBoard, EventRecorder
from research_studio.store.sessions import TERMINAL, UNFINISHED
from research_studio.workers.queue import celery_app, new_dispatch_id, send_session
from research_studio.workers.sweeper import sweep

log = logging.getLogger("research_studio.service")


class WorkerDispatcher:
    """Queue sessions for workers; follow and cancel them wherever they run."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.store = workspace.store
        self.app = celery_app(workspace.ctx.settings.service)
        self.board = EventBoard()
        self.recorder = EventRecorder(self.store)
        self.limit = None  # as many as the workers run

    def record(self, session_id: str, kind: str, data: dict[str, Any]) -> None:
        self.recorder.record(session_id, kind, data)
        self.recorder.forget(session_id)  # the worker folds the progress from here on
        asyncio.get_running_loop().create_task(self.board.bump(session_id))

    # what /healthz shows, from the database: every worker's sessions
    @property
    def running(self) -> int:
        return sum(row["status"] == "running" for row in self.store.unfinished_rows())

    @property
    def queued(self) -> int:
        return sum(row["status"] == "queued" for row in self.store.unfinished_rows())

    def is_active(self, session_id: str) -> bool:
        return self.store.get(session_id)["status"] in UNFINISHED

    def submit(self, session_id: str, answer: Any = None) -> None:
        """Record the session as queued under a new dispatch, then hand it to the broker;
        BrokerUnavailable when the broker cannot take it (it stays queued, and the
        workers' sweep dispatches it once the broker is back)."""
        dispatch_id = new_dispatch_id()
        self.store.claim_dispatch(session_id, dispatch_id)
        self.record(session_id, "status", {"status": "queued"})
        send_session(self.app, session_id, dispatch_id, answer)
        self.store.mark_dispatched(session_id, dispatch_id)

    def cancel(self, session_id: str) -> bool:
        """Stop a session wherever it is: the request is stored first; a running one's
        worker stops it within ``service.cancel_check_s``; a queued or waiting one ends
        here (a worker that takes its message later finds it cancelled)."""
        row = self.store.get(session_id)
        if row["status"] in TERMINAL:
            return False
        self.store.request_cancel(session_id)
        if not self.workspace.leases.running_elsewhere(row):
            self.store.update(session_id, status="cancelled")
            self.record(session_id, "status", {"status": "cancelled"})
        return True

    def recover(self) -> list[str]:
        """Dispatch sessions nothing runs (a worker died, the broker was down): the
        workers do this too, every ``service.orphan_check_s``."""
        return sweep(self.store, self.workspace.leases,
                     lambda session_id, dispatch_id: send_session(self.app, session_id, dispatch_id),
                     grace_s=0.0)

    async def shutdown(self, leave_as: str = "queued") -> None:
        await self.board.close()

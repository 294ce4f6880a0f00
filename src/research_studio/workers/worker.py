"""``research-studio worker``: a Celery worker that runs research sessions.

One session at a time per worker process (Celery's solo pool: the embedded model uses
the cores a session gets; run more workers for more sessions at once). The session runs
as it would in the server: from its last checkpoint, under its lease, recording its
events in the shared database, where every API process streams them from.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from dataclasses import dataclass, field
from typing import Any

from celery import Celery

from research_studio.config import AppContext
from research_studio.errors import ResearchStudioError
from research_studio.graph.session import Hooks, SessionBusy, Workspace, drive_session
from research_studio.service.events import EventRecorder
from research_studio.store.sessions import TERMINAL, UNFINISHED
from research_studio.workers.queue import QUEUE, TASK_NAME, celery_app, send_session
from research_studio.workers.sweeper import start_sweeping

log = logging.getLogger("research_studio.worker")


@dataclass
class WorkerContext:
    """What one worker process keeps between sessions: the workspace (models and
    knowledge bases stay loaded) and the event recorder."""

    workspace: Workspace
    recorder: EventRecorder = field(init=False)

    def __post_init__(self) -> None:
        self.recorder = EventRecorder(self.workspace.store)


async def run_dispatched(worker: WorkerContext, session_id: str, dispatch_id: str,
                         answer: Any = None) -> str:
    """Run the session this message dispatched, unless a later dispatch replaced it or
    it needs no run; the outcome, for the log."""
    store = worker.workspace.store
    row = store.get(session_id)
    if row.get("dispatch_id") != dispatch_id:
        return "skipped: dispatched again since"
    if row["status"] not in UNFINISHED:
        return f"skipped: already {row['status']}"
    hooks = Hooks(on_event=lambda kind, data: worker.recorder.record(session_id, kind, data))
    log.info("session %s: running (dispatch %s)", session_id, dispatch_id)
    try:
        await drive_session(worker.workspace, session_id, hooks, answer, dispatch_id=dispatch_id)
    except SessionBusy as exc:
        return f"skipped: {exc}"
    except (ResearchStudioError, asyncio.CancelledError) as exc:  # recorded by the run
        log.info("session %s ended: %s", session_id, str(exc) or type(exc).__name__)
    finally:
        worker.recorder.forget(session_id)
    row = store.get(session_id)
    if row.get("cancel_requested") and row["status"] not in TERMINAL:
        store.update(session_id, status="cancelled")
        worker.recorder.record(session_id, "status", {"status": "cancelled"})
    return store.get(session_id)["status"]


def register_task(app: Celery, worker: WorkerContext) -> None:
    @app.task(name=TASK_NAME, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
    def run_session(session_id: str, dispatch_id: str, answer: Any = None) -> None:
        outcome = asyncio.run(run_dispatched(worker, session_id, dispatch_id, answer))
        log.info("session %s: %s", session_id, outcome)


def run_worker(ctx: AppContext, loglevel: str = "INFO") -> None:
    """Start a worker on this home's settings; returns when the worker is stopped."""
    service = ctx.settings.service
    app = celery_app(service)
    workspace = Workspace(ctx)
    if workspace.backend.kind != "postgresql":
        raise ResearchStudioError(
            "workers need the sessions and checkpoints in PostgreSQL, shared by every API "
            "process and worker: set database_url (RESEARCH_STUDIO_DATABASE_URL)")
    worker = WorkerContext(workspace)
    register_task(app, worker)
    stop = start_sweeping(workspace.store, workspace.leases,
                          lambda session_id, dispatch_id: send_session(app, session_id, dispatch_id),
                          service.orphan_check_s)
    name = f"research-studio-{os.getpid()}@{socket.gethostname()}"
    try:
        app.worker_main(["worker", "--pool=solo", f"--loglevel={loglevel}", "-n", name,
                         "-Q", QUEUE, "--without-gossip", "--without-mingle"])
    finally:
        stop.set()

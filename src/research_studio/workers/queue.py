"""The task queue that hands research sessions to workers: Celery with a Redis broker.

A message names a session and a dispatch id; the session's row holds its current
dispatch id, so a message that a later dispatch replaced (a redelivery, a session
dispatched again after its worker died) is recognised and skipped. Messages are
acknowledged only when the session's run ends (``acks_late``): a worker that dies
mid-session never acknowledges it.
"""

from __future__ import annotations

import uuid
from typing import Any

from celery import Celery

from research_studio.config import ServiceSettings, redacted_url
from research_studio.errors import BrokerUnavailable, ResearchStudioError

TASK_NAME = "research_studio.run_session"
QUEUE = "research_studio.sessions"
# how long a submission waits for an unreachable broker before it says so
CONNECT_TIMEOUT_S = 2.0


def new_dispatch_id() -> str:
    return uuid.uuid4().hex[:16]


def celery_app(service: ServiceSettings) -> Celery:
    """The Celery application of one deployment (API processes and workers alike)."""
    if not service.broker_url:
        raise ResearchStudioError("no task queue configured: set service.broker_url "
                                  "(for example redis://127.0.0.1:6379/0)")
    app = Celery("research_studio", broker=service.broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,  # acknowledged when the session's run ends, not when it starts
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,  # a worker reserves a session only when it can run it
        task_default_queue=QUEUE,
        task_serializer="json", accept_content=["json"],
        task_ignore_result=True,  # results live in the sessions database
        broker_connection_timeout=CONNECT_TIMEOUT_S,
        broker_connection_retry_on_startup=True,
        broker_transport_options={"socket_connect_timeout": CONNECT_TIMEOUT_S,
                                  "socket_timeout": 30},
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )
    return app


def send_session(app: Celery, session_id: str, dispatch_id: str, answer: Any = None) -> None:
    """Put the session on the queue, or raise BrokerUnavailable with the reason."""
    try:
        app.send_task(TASK_NAME, args=[session_id, dispatch_id, answer], queue=QUEUE,
                      retry=True, retry_policy={"max_retries": 1, "interval_start": 0.2,
                                                "interval_step": 0.5, "interval_max": 1.0})
    except Exception as exc:  # kombu's OperationalError, a refused or timed-out socket
        raise BrokerUnavailable(
            f"the task queue at {redacted_url(str(app.conf.broker_url))} cannot be reached "
            f"({type(exc).__name__}: {str(exc)[:200]}); session {session_id} is recorded and "
            "starts as soon as the queue is back", session_id) from exc

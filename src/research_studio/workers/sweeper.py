"""Sessions no process is running and no message will start: dispatched again.

Two kinds, found by every worker in turn (``service.orphan_check_s``):
- *running* with a free lease: the process running it died (kill -9, a machine lost),
  since a live one holds the lease until the session's status has left "running";
- *queued* but never handed to the broker, for longer than one check: the broker was
  down at submission, or the API process died between recording and sending it.
Each is claimed by a compare-and-set on its row (status and dispatch id unchanged since
it was read), so two workers sweeping at once dispatch it once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from research_studio.errors import BrokerUnavailable
from research_studio.store.lease import SessionLeases
from research_studio.store.sessions import SessionStore
from research_studio.workers.queue import new_dispatch_id

log = logging.getLogger("research_studio.worker")
Send = Callable[[str, str], None]  # (session id, dispatch id) → on the queue, or raises


def orphans(store: SessionStore, leases: SessionLeases, grace_s: float) -> list[dict]:
    """Unfinished sessions that nothing runs and nothing will start."""
    older = (datetime.now(UTC) - timedelta(seconds=grace_s)).isoformat(timespec="seconds")

    def orphaned(row: dict) -> bool:
        if row["status"] == "running":
            return leases.is_free(row["id"])
        return not row["dispatched_at"] and row["updated_at"] < older

    return [row for row in store.unfinished_rows() if orphaned(row)]


def sweep(store: SessionStore, leases: SessionLeases, send: Send, grace_s: float) -> list[str]:
    """Dispatch every orphan again; the ids dispatched."""
    dispatched = []
    for row in orphans(store, leases, grace_s):
        dispatch_id = new_dispatch_id()
        if not store.claim_dispatch(row["id"], dispatch_id, row["status"], row["dispatch_id"]):
            continue  # another worker or the session's own run changed it meanwhile
        try:
            send(row["id"], dispatch_id)
        except BrokerUnavailable as exc:
            log.warning("%s", exc)
            continue
        store.mark_dispatched(row["id"], dispatch_id)
        log.warning("session %s was %s with nothing running it: dispatched again",
                    row["id"], row["status"])
        dispatched.append(row["id"])
    return dispatched


def start_sweeping(store: SessionStore, leases: SessionLeases, send: Send,
                   interval_s: float) -> threading.Event:
    """Sweep every ``interval_s`` in a daemon thread until the returned event is set."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(interval_s):
            try:
                sweep(store, leases, send, grace_s=interval_s)
            except Exception as exc:  # storage down: the next round tries again
                log.warning("looking for sessions to resume failed: %s", exc)

    threading.Thread(target=loop, name="orphan-sweeper", daemon=True).start()
    return stop

"""A session's lease: which process may run it right now.

On PostgreSQL a lease is an advisory lock, and PostgreSQL ties advisory locks to the
connection that took them: when the process holding one dies (kill -9, a machine lost),
the server closes its connection and frees the lock. So a session is never run by two
processes at once, and a dead process never keeps one locked. On SQLite (one machine,
one process running sessions) every lease is granted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from research_studio.store.backends import StorageBackend
from research_studio.store.faults import SESSIONS, remote_fault


def lock_key(session_id: str) -> int:
    """A signed 64-bit key for ``pg_advisory_lock``, the same in every process."""
    digest = hashlib.sha256(f"research-studio session {session_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


class SessionLeases:
    """Take, hold and test the leases of sessions on one storage backend."""

    def __init__(self, backend: StorageBackend) -> None:
        self.backend = backend
        self.shared = backend.kind == "postgresql"  # other processes may run sessions

    def _connect(self) -> Any:
        import psycopg  # the postgres extra; storage_backend checked it is installed

        try:  # keepalives: a lost network drops the lease instead of leaving it dangling
            return psycopg.connect(self.backend.checkpoint_target, autocommit=True,
                                   keepalives=1, keepalives_idle=10, keepalives_interval=5,
                                   keepalives_count=3)
        except psycopg.OperationalError as exc:
            raise remote_fault(SESSIONS, self.backend.describe(), exc) from exc

    @contextmanager
    def hold(self, session_id: str) -> Iterator[bool]:
        """Yield whether this process got the session's lease; it is held until the
        block ends (or the process dies)."""
        if not self.shared:
            yield True
            return
        conn = self._connect()
        try:
            key = lock_key(session_id)
            granted = bool(conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0])
            try:
                yield granted
            finally:
                if granted and not conn.closed:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
        finally:
            conn.close()

    def running_elsewhere(self, row: dict[str, Any]) -> bool:
        """The session (its row) is running and a live process holds its lease: that run
        stops on a cancel request by itself."""
        return row["status"] == "running" and not self.is_free(row["id"])

    def is_free(self, session_id: str) -> bool:
        """No live process holds the session's lease (it is taken and let go at once)."""
        with self.hold(session_id) as granted:
            return granted

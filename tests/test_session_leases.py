"""Session leases on a real PostgreSQL server: one holder at a time, freed when the holding
process dies, and the server's start-up recovery skips sessions another process holds
(several API processes on one database, issue 28)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from research_studio.config import AppContext, Settings
from research_studio.graph.session import Workspace
from research_studio.service.runner import SessionRunner
from research_studio.store.backends import storage_backend
from research_studio.store.lease import SessionLeases, lock_key
from tests.storage import fresh_postgres_database


@pytest.fixture
def postgres_home(tmp_path: Path):
    with fresh_postgres_database() as url:
        yield AppContext(tmp_path / "home", Settings(database_url=url))


def test_one_holder_at_a_time_and_the_lease_returns_when_let_go(postgres_home):
    leases = SessionLeases(storage_backend(postgres_home))
    assert lock_key("abc") == lock_key("abc") != lock_key("abd")
    with leases.hold("abc") as first:
        assert first
        with leases.hold("abc") as second:
            assert not second
        assert not leases.is_free("abc")
        assert leases.is_free("other")
    assert leases.is_free("abc")


def test_a_killed_holder_frees_the_lease(postgres_home):
    backend = storage_backend(postgres_home)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from research_studio.store.backends import StorageBackend
        from research_studio.store.lease import SessionLeases
        leases = SessionLeases(StorageBackend("postgresql", "", {backend.checkpoint_target!r}))
        with leases.hold("held") as granted:
            print("granted" if granted else "refused", flush=True)
            time.sleep(600)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "granted"
        leases = SessionLeases(backend)
        assert not leases.is_free("held")
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
        deadline = time.monotonic() + 10  # the server notices the closed connection
        while time.monotonic() < deadline and not leases.is_free("held"):
            time.sleep(0.1)
        assert leases.is_free("held")
    finally:
        if holder.poll() is None:
            holder.kill()


def test_recovery_skips_sessions_another_live_process_runs(postgres_home):
    workspace = Workspace(postgres_home)
    store = workspace.store
    for session_id in ("theirs", "orphan"):
        store.create(session_id, "What is a lease?", {"kb": "nowhere"}, status="running")

    async def recover_while_theirs_is_held() -> list[str]:
        runner = SessionRunner(workspace, limit=1)
        with workspace.leases.hold("theirs") as granted:
            assert granted
            resumed = runner.recover()
        await runner.shutdown()
        return resumed

    assert asyncio.run(recover_while_theirs_is_held()) == ["orphan"]
    assert store.get("theirs")["status"] == "running"  # left to the process that runs it

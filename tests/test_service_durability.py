"""kill -9 of the server mid-run loses nothing: on restart the session resumes from its
checkpoint and completes — on SQLite and on PostgreSQL."""

import time

import pytest

from research_studio.config import AppContext, Settings
from research_studio.store.backends import storage_backend
from research_studio.store.sessions import SessionStore
from tests.research_corpus import QUESTION
from tests.service_server import (
    read_events,
    running_server,
    start_server,
    upload_research_corpus,
    wait_for_status,
)
from tests.storage import database_url  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow
TERMINAL = {"completed", "failed", "cancelled"}


def test_killed_server_resumes_unfinished_sessions(tmp_path, database_url):  # noqa: F811
    home = tmp_path / "home"
    home.mkdir()
    store = SessionStore(storage_backend(AppContext(home, Settings(database_url=database_url))).sessions_url)
    server = start_server(home, database_url=database_url, max_sessions=1)
    try:
        with server.client() as client:
            upload_research_corpus(client)
            body = {"query": QUESTION, "config": {"kb": "bridges", "mode": "hierarchical",
                                                  "clarify": "never", "parallel": False}}
            running = client.post("/api/research/sessions", json=body).json()["session_id"]
            waiting = client.post("/api/research/sessions", json=body).json()["session_id"]
            deadline = time.monotonic() + 300
            before: set[str] = set()
            while time.monotonic() < deadline and not before:
                before = {f["finding_id"] for f in store.findings(running)}
                time.sleep(0.02)
            assert before, "no findings were stored before the deadline"
            server.kill()
    finally:
        if server.process.poll() is None:
            server.kill()
    assert store.get(running)["status"] == "running", "the run finished before it could be killed"
    assert store.get(waiting)["status"] == "queued"
    last_event = store.events_after(running)[-1]["id"]

    with running_server(home, database_url=database_url, max_sessions=1,
                        log_name="server-restarted.log") as restarted, restarted.client() as client:
        for session_id in (running, waiting):
            detail = wait_for_status(client, session_id, {"completed", "failed", "cancelled"})
            assert detail["status"] == "completed", (detail, restarted.log())
        result = client.get(f"/api/research/sessions/{running}/results").json()
        after = {f["finding_id"] for sq in result["sub_questions"] for f in sq["findings"]}
        assert before <= after, "findings gathered before the kill were lost"
        assert [t["node"] for t in result["node_timings"]].count("analyze") == 1  # not repeated
        resumed = read_events(client, running, last_event_id=last_event)
        statuses = [e["data"]["status"] for e in resumed if e["kind"] == "status"]
        assert statuses[0] == "queued" and statuses[-1] == "completed"
        assert client.get(f"/api/research/sessions/{waiting}/results").json()["report_markdown"]


def test_a_cancel_right_after_submission_sticks_across_a_restart(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    body = {"query": QUESTION, "config": {"kb": "bridges", "mode": "hierarchical",
                                          "clarify": "never"}}
    server = start_server(home, max_sessions=1)
    try:
        with server.client() as client:
            upload_research_corpus(client)
            cancelled = []
            for _ in range(3):
                session_id = client.post("/api/research/sessions", json=body).json()["session_id"]
                assert client.post(f"/api/research/sessions/{session_id}/cancel").status_code == 202
                cancelled.append(session_id)
            for session_id in cancelled:
                assert wait_for_status(client, session_id, TERMINAL, timeout=60)["status"] == "cancelled"
            health = client.get("/healthz").json()
            assert health["running"] == 0 and health["queued"] == 0, health
            last = client.post("/api/research/sessions", json=body).json()["session_id"]
            assert client.post(f"/api/research/sessions/{last}/cancel").status_code == 202
            server.kill()  # before the run may have recorded its end
    finally:
        if server.process.poll() is None:
            server.kill()

    with running_server(home, max_sessions=1, log_name="server-restarted.log") as restarted, \
            restarted.client() as client:
        for session_id in [*cancelled, last]:
            detail = wait_for_status(client, session_id, TERMINAL, timeout=60)
            assert detail["status"] == "cancelled", (detail, restarted.log())
            assert client.get(f"/api/research/sessions/{session_id}/results").status_code == 409
        time.sleep(2)  # a resumed run would be under way by now
        assert client.get("/healthz").json()["running"] == 0

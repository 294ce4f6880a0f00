"""Scale-out (issue 28): two API processes and two workers on one PostgreSQL database and
one Redis broker, all real processes on 127.0.0.1. Sessions submitted to either API run
on the workers; events reach every API's streams; a cancel reaches the worker; a worker
killed with kill -9 loses nothing; a broker that is down loses nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from research_studio.config import AppContext, Settings
from research_studio.store.backends import storage_backend
from research_studio.store.sessions import SessionStore
from tests.deployment import (
    Redis,
    Worker,
    deployment_env,
    free_redis,
    require_redis,
    start_api,
    start_worker,
    stopped,
    which_worker_runs,
)
from tests.research_corpus import QUESTION
from tests.service_server import Server, read_events, upload_research_corpus, wait_for_status
from tests.storage import fresh_postgres_database

pytestmark = pytest.mark.slow
TERMINAL = {"completed", "failed", "cancelled"}
FLAT = {"kb": "bridges", "mode": "flat", "clarify": "never"}
LONG = {"kb": "bridges", "mode": "hierarchical", "clarify": "never", "parallel": False}


@dataclass
class Deployment:
    home: Path
    database_url: str
    redis: Redis
    api_a: Server
    api_b: Server
    workers: list[Worker]
    store: SessionStore

    def post(self, api: Server, config: dict) -> str:
        with api.client() as client:
            response = client.post("/api/research/sessions", json={"query": QUESTION, "config": config})
        assert response.status_code == 202, response.text
        return response.json()["session_id"]


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    require_redis()
    home = tmp_path_factory.mktemp("scale") / "home"
    home.mkdir()
    redis = free_redis()
    redis.start()
    try:
        with fresh_postgres_database() as database_url:
            env = deployment_env(database_url, redis.url)
            api_a = start_api(home, database_url, env, "api-a")
            with stopped(api_a):
                with api_a.client() as client:  # the knowledge base before anyone opens it
                    upload_research_corpus(client)
                api_b = start_api(home, database_url, env, "api-b")
                workers = [start_worker(home, env, f"worker-{n}") for n in (1, 2)]
                with stopped(api_b, *workers):
                    store = SessionStore(storage_backend(
                        AppContext(home, Settings(database_url=database_url))).sessions_url)
                    yield Deployment(home, database_url, redis, api_a, api_b, workers, store)
    finally:
        redis.stop()


def test_sessions_submitted_to_either_api_all_complete_on_the_workers(deployment):
    d = deployment
    ids = [d.post(api, FLAT) for api in (d.api_a, d.api_b, d.api_a, d.api_b, d.api_a, d.api_b)]
    with d.api_b.client() as client:
        for session_id in ids:
            detail = wait_for_status(client, session_id, TERMINAL, timeout=600)
            assert detail["status"] == "completed", detail
            assert client.get(f"/api/research/sessions/{session_id}/results").json()["report_markdown"]
        health = client.get("/healthz").json()
        assert health["running"] == 0 and health["queued"] == 0
    ran = {session_id: [w for w in d.workers if f"session {session_id}: running" in w.log()]
           for session_id in ids}
    assert all(len(workers) == 1 for workers in ran.values()), ran  # each ran once, on a worker


def test_a_stream_on_one_api_follows_a_session_submitted_to_the_other(deployment):
    d = deployment
    session_id = d.post(d.api_b, FLAT)
    with d.api_a.client() as client:
        events = read_events(client, session_id, timeout=300)
    kinds = [e["kind"] for e in events]
    statuses = [e["data"]["status"] for e in events if e["kind"] == "status"]
    assert "stage" in kinds and "findings" in kinds
    assert statuses[0] == "queued" and statuses[-1] == "completed"
    assert [e["id"] for e in events] == sorted(e["id"] for e in events)


def test_a_cancel_sent_to_one_api_stops_the_session_on_its_worker(deployment):
    d = deployment
    session_id = d.post(d.api_a, LONG)
    worker = which_worker_runs(d.workers, session_id)
    with d.api_b.client() as client:
        assert client.post(f"/api/research/sessions/{session_id}/cancel").status_code == 202
        detail = wait_for_status(client, session_id, TERMINAL, timeout=60)
        assert detail["status"] == "cancelled", detail
    deadline = time.monotonic() + 60  # the worker ends the run and takes new work
    while time.monotonic() < deadline and f"session {session_id}: cancelled" not in worker.log():
        time.sleep(0.2)
    assert f"session {session_id}: cancelled" in worker.log()
    follow_up = d.post(d.api_b, FLAT)
    with d.api_b.client() as client:
        assert wait_for_status(client, follow_up, TERMINAL)["status"] == "completed"


def test_a_broker_that_is_down_refuses_clearly_and_loses_nothing(deployment):
    d = deployment
    d.redis.stop()
    try:
        with d.api_a.client() as client:
            response = client.post("/api/research/sessions", json={"query": QUESTION, "config": FLAT})
        assert response.status_code == 503, response.text
        body = response.json()
        assert "task queue" in body["detail"] and "cannot be reached" in body["detail"]
        session_id = body["session_id"]
        assert d.store.get(session_id)["status"] == "queued"
    finally:
        d.redis.start()  # same port: the workers reconnect
    with d.api_b.client() as client:
        detail = wait_for_status(client, session_id, TERMINAL, timeout=300)
    assert detail["status"] == "completed", detail


def test_a_worker_killed_mid_session_hands_it_to_the_other_with_nothing_lost(deployment):
    d = deployment
    session_id = d.post(d.api_a, LONG)
    victim = which_worker_runs(d.workers, session_id)
    survivor = next(w for w in d.workers if w is not victim)
    before: set[str] = set()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not before:
        before = {f["finding_id"] for f in d.store.findings(session_id)}
        time.sleep(0.02)
    assert before, "no findings were stored before the deadline"
    victim.kill()
    # "queued" too: the survivor's sweep may re-queue it the moment the lease is freed
    assert d.store.get(session_id)["status"] not in TERMINAL, "it finished before the kill"

    seen_on_b: list[dict] = []

    def follow_on_b() -> None:
        with d.api_b.client() as client:
            seen_on_b.extend(read_events(client, session_id, timeout=300))

    stream = threading.Thread(target=follow_on_b, daemon=True)
    stream.start()
    with d.api_a.client() as client:
        detail = wait_for_status(client, session_id, TERMINAL, timeout=600)
        assert detail["status"] == "completed", (detail, survivor.log()[-3000:])
        result = client.get(f"/api/research/sessions/{session_id}/results").json()
    after = {f["finding_id"] for sq in result["sub_questions"] for f in sq["findings"]}
    assert before <= after, "findings gathered before the kill were lost"
    assert [t["node"] for t in result["node_timings"]].count("analyze") == 1  # resumed, not redone
    assert f"session {session_id}: running" in survivor.log()
    stream.join(timeout=60)
    assert [e["data"]["status"] for e in seen_on_b if e["kind"] == "status"][-1] == "completed"

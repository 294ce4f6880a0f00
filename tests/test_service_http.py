"""The HTTP API against a real `research-studio serve` on 127.0.0.1, with the embedded
model: auth, bad requests, uploads, the full flow with its event stream and reconnection,
clarification, cancel and the queue."""

import io
import json
import re
import threading
import time

import docx
import httpx
import pytest

from research_studio.config import AppContext, Settings
from research_studio.graph.session import new_session_id
from research_studio.store.backends import storage_backend
from research_studio.store.sessions import SessionStore
from tests.research_corpus import QUESTION
from tests.service_server import read_events, running_server, upload_research_corpus, wait_for_status

pytestmark = pytest.mark.slow
KEY = "test-key-0123456789"
TERMINAL = {"completed", "failed", "cancelled"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    home = tmp_path_factory.mktemp("service") / "home"
    home.mkdir()
    with running_server(home, api_key=KEY, max_sessions=1,
                        env_extra={"RESEARCH_STUDIO_SERVICE__MAX_UPLOAD_BYTES": "300000"}) as srv:
        with srv.client() as client:
            upload_research_corpus(client)
        srv.home = home
        yield srv


@pytest.fixture
def client(server):
    with server.client() as c:
        yield c


def start(client: httpx.Client, query: str = QUESTION, **config) -> str:
    response = client.post("/api/research/sessions",
                           json={"query": query, "config": {"kb": "bridges", **config}})
    assert response.status_code == 202, response.text
    body = response.json()
    assert body["status"] == "queued" and body["links"]["events"].endswith("/events")
    return body["session_id"]


def test_a_stream_ends_with_the_terminal_event_written_after_the_status(server, client):
    """A session's status row is written before its last events, by a worker that may be
    another process: a stream that finds the session finished waits for the terminal
    status event instead of ending without it."""
    store = SessionStore(storage_backend(AppContext(server.home, Settings())).sessions_url)
    session_id = new_session_id()
    store.create(session_id, "What is MVCC?", {"kb": "bridges"}, status="completed")
    store.add_event(session_id, "stage", {"stage": "write"})
    late = threading.Timer(1.0, store.add_event, (session_id, "status", {"status": "completed"}))
    late.start()
    try:
        events = read_events(client, session_id, timeout=60)
    finally:
        late.join()
    assert [e["kind"] for e in events] == ["stage", "status"]
    assert events[-1]["data"] == {"status": "completed"}


def test_every_endpoint_needs_the_key_but_the_page_shell(server):
    with httpx.Client(base_url=server.base_url) as anonymous:
        for path in ("/api/research/sessions", "/api/knowledge-bases", "/openapi.json",
                     "/api/research/sessions/x/events"):
            assert anonymous.get(path).status_code == 401, path
        assert anonymous.post("/api/research/sessions", json={"query": "q"}).status_code == 401
        assert anonymous.get("/api/research/sessions",
                             headers={"X-API-Key": "wrong"}).status_code == 401
        assert anonymous.get("/api/research/sessions",
                             headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
        page = anonymous.get("/")
        assert page.status_code == 200 and 'id="ask-form"' in page.text
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert anonymous.get("/static/app.js").status_code == 200
    with server.client() as client:
        schema = client.get("/openapi.json").json()
        for path in ("/api/research/sessions", "/api/research/sessions/{session_id}/events",
                     "/api/research/sessions/{session_id}/clarification",
                     "/api/knowledge-bases/{name}/documents"):
            assert path in schema["paths"]


def test_bad_requests_get_clear_errors(client):
    def create(body, **kwargs):
        return client.post("/api/research/sessions", json=body, **kwargs)

    unknown = create({"query": "q", "config": {"kb": "bridges", "temperature": 2}})
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["loc"][-1] == "temperature"
    assert create({"query": "q", "config": {"mode": "sideways"}}).status_code == 422
    assert create({"config": {}}).status_code == 422
    empty = create({"query": "   ", "config": {"kb": "bridges"}}).json()["detail"]
    assert empty == [{"loc": ["body", "query"], "msg": "the question is empty",
                      "type": "invalid_query"}]  # the documented 422 shape, like the schema's
    too_long = create({"query": "why " * 2000, "config": {"kb": "bridges"}})
    assert too_long.status_code == 422 and "limit" in too_long.json()["detail"][0]["msg"]
    unknown_kb = create({"query": "q", "config": {"kb": "nope"}})
    assert unknown_kb.status_code == 400 and unknown_kb.json()["detail"].startswith("unknown knowledge")
    broken = client.post("/api/research/sessions", content=b'{"query": ',
                         headers={"content-type": "application/json"})
    assert broken.status_code == 422
    huge = client.post("/api/research/sessions", content=b'{"query": "' + b"a" * 2_000_000 + b'"}',
                       headers={"content-type": "application/json"})
    assert huge.status_code == 413 and huge.json() == {"detail": "Content Too Large"}
    assert client.get("/api/research/sessions/nope").status_code == 404
    assert client.post("/api/research/sessions/nope/cancel").status_code == 404
    assert client.get("/api/research/sessions?limit=0").status_code == 422


def test_numbers_past_64_bits_and_unresearchable_questions_are_refused(client):
    """Each of these once gave a 500, a broken stream, or a 202 for a session that could
    only fail later."""
    too_big = 2**63
    assert client.get(f"/api/research/sessions?offset={too_big}").status_code == 422
    session_id = start(client, clarify="never", mode="flat")
    assert client.get(f"/api/research/sessions/{session_id}/events?after={too_big}").status_code == 422
    assert client.get(f"/api/research/sessions/{session_id}/events",
                      headers={"Last-Event-ID": str(too_big)}).status_code == 400
    client.post(f"/api/research/sessions/{session_id}/cancel")
    for bad in ({"max_iterations": too_big}, {"max_total_cost_usd": -1},
                {"min_confidence": float("inf")}):
        response = client.post("/api/research/sessions", content=json.dumps(
            {"query": "q", "config": {"kb": "bridges", **bad}}).replace("Infinity", "1e999"),
            headers={"content-type": "application/json"})
        assert response.status_code == 422, (bad, response.text)
    for query in ("🙂🙂", "\u200b\u200b", "what\u0000is"):
        response = client.post("/api/research/sessions", json={"query": query, "config": {"kb": "bridges"}})
        assert response.status_code == 422, (query, response.text)
    nothing = client.post("/api/research/sessions", json={"query": "Who built it?", "config": {}})
    problem = nothing.json()["detail"][0]
    assert nothing.status_code == 422 and "nothing to research" in problem["msg"]
    assert problem["loc"] == ["body", "config"]
    newline_name = client.get("/api/knowledge-bases/bridges%0A/search", params={"q": "bridge"})
    assert newline_name.status_code == 422, newline_name.text


def test_uploads_cannot_escape_and_are_searchable(server, client):
    lighthouse = b"# Lighthouse\n\nThe Pharos guided sailors."
    hostile = [("files", ("../../../escape.md", lighthouse, "text/markdown")),
               ("files", ("..\\..\\also.txt", b"Fresnel lenses project a beam.", "text/plain"))]
    broken = [("files", ("scan.pdf", b"%PDF-1.4 not really a PDF", "application/pdf"))]
    response = client.post("/api/knowledge-bases/lights/documents", files=hostile + broken)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["files"] == ["escape.md", "also.txt", "scan.pdf"]
    # a file that cannot be read is skipped with its reason, named by its relative location
    [skipped] = body["skipped"]
    assert skipped["location"] == "uploads/lights/scan.pdf" and "PDF" in skipped["reason"], skipped
    assert body["documents_added"] == 2
    uploads = server.home / "uploads" / "lights"
    assert sorted(p.name for p in uploads.iterdir()) == ["also.txt", "escape.md", "scan.pdf"]
    assert not (server.home.parent / "escape.md").exists()
    hits = client.get("/api/knowledge-bases/lights/search", params={"q": "Pharos sailors"}).json()["hits"]
    assert hits and "Pharos" in hits[0]["text"]
    # the server's own folders never show: a source's location is relative to its home
    assert hits[0]["location"] == "uploads/lights/escape.md", hits[0]["location"]
    names = [kb["name"] for kb in client.get("/api/knowledge-bases").json()["knowledge_bases"]]
    assert {"bridges", "lights"} <= set(names)
    big = [("files", ("big.txt", b"x" * 400_000, "text/plain"))]
    assert client.post("/api/knowledge-bases/lights/documents", files=big).status_code == 413
    assert client.post("/api/knowledge-bases/bad name!/documents", files=hostile).status_code == 422
    assert client.get("/api/knowledge-bases/nope/search", params={"q": "x"}).status_code == 404


def test_full_flow_streams_events_in_order_and_reconnects(client):
    session_id = start(client, mode="hierarchical", clarify="never")
    early = client.get(f"/api/research/sessions/{session_id}/results")
    assert early.status_code == 409 and early.json()["status"] in ("queued", "running")
    events = read_events(client, session_id)
    kinds = [e["kind"] for e in events]
    ids = [e["id"] for e in events]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert events[0]["data"] == {"status": "queued"} and events[-1]["data"] == {"status": "completed"}
    position = {kind: kinds.index(kind) for kind in set(kinds)}
    assert position["analysis"] < position["plan"] < position["findings"] < position["completed"]
    assert position["findings"] < position["sources"]
    assert {"stage", "sub_question", "iteration", "gaps", "trust"} <= set(kinds)
    planned = next(e for e in events if e["kind"] == "plan")["data"]["sub_questions"]
    assert 2 <= len(planned) <= 5

    # a client that reconnects gets exactly what it missed
    cut = ids[len(ids) // 2]
    replay = read_events(client, session_id, last_event_id=cut)
    assert [e["id"] for e in replay] == [i for i in ids if i > cut]
    assert read_events(client, session_id, last_event_id=ids[-1]) == []
    assert client.get(f"/api/research/sessions/{session_id}/events",
                      headers={"Last-Event-ID": "banana"}).status_code == 400

    detail = client.get(f"/api/research/sessions/{session_id}").json()
    assert detail["status"] == "completed" and detail["mode"] == "hierarchical"
    progress = detail["progress"]
    assert len(progress["sub_questions"]) == len(planned)
    assert all(sq["status"] == "completed" for sq in progress["sub_questions"])
    assert progress["findings"] > 0 and progress["claims"] > 0

    result = client.get(f"/api/research/sessions/{session_id}/results").json()
    assert result["session_id"] == session_id and result["status"] == "completed"

    # the finished report as files: HTML with linked citations, a DOCX that reads back
    export = f"/api/research/sessions/{session_id}/export"
    page = client.get(export, params={"format": "html"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert f'report-{session_id}.html' in page.headers["content-disposition"]
    assert 'href="#source-S1"' in page.text and '<li id="source-S1">' in page.text
    word = client.get(export, params={"format": "docx"})
    assert docx.Document(io.BytesIO(word.content)).paragraphs[0].style.name == "Heading 1"
    assert client.get(export).text == result["report_markdown"]
    assert client.get(export, params={"format": "rtf"}).status_code == 422
    assert client.get("/api/research/sessions/nope/export").status_code == 404
    for key in ("query_analysis", "sub_questions", "fact_sheets", "claims", "sources",
                "report_markdown", "metrics", "usage"):
        assert key in result
    sources = {s["sid"]: s for s in result["sources"]}
    cited = set(re.findall(r"\[(S\d+)\]", result["report_markdown"]))
    assert cited and cited <= set(sources)
    assert all(sources[sid]["text"] and sources[sid]["doc_id"] for sid in cited)
    listing = client.get("/api/research/sessions", params={"limit": 50}).json()
    assert session_id in [item["id"] for item in listing["items"]] and listing["total"] >= 1
    assert client.post(f"/api/research/sessions/{session_id}/clarification",
                       json={"answer": "x"}).status_code == 409
    assert client.post(f"/api/research/sessions/{session_id}/cancel").status_code == 409


def test_clarification_over_http(client):
    session_id = start(client, query="Tell me about bridges", clarify="always")
    asked = read_events(client, session_id, stop_when=lambda e: e["kind"] == "clarification")
    assert asked[-1]["data"]["questions"]
    detail = wait_for_status(client, session_id, {"awaiting_clarification"})
    assert detail["pending_clarification"]["questions"] == asked[-1]["data"]["questions"]
    assert client.post(f"/api/research/sessions/{session_id}/clarification",
                       json={"answer": ""}).status_code == 422
    answer = "Focus on the Millau Viaduct and its structural engineer"
    accepted = client.post(f"/api/research/sessions/{session_id}/clarification", json={"answer": answer})
    assert accepted.status_code == 202
    detail = wait_for_status(client, session_id, {"awaiting_clarification"} | TERMINAL)
    if detail["status"] == "awaiting_clarification":  # another round: stop asking
        assert client.post(f"/api/research/sessions/{session_id}/clarification",
                           json={"answer": "/end"}).status_code == 202
        detail = wait_for_status(client, session_id, TERMINAL)
    assert detail["status"] == "completed", detail
    result = client.get(f"/api/research/sessions/{session_id}/results").json()
    assert result["clarification"]["history"][0]["answer"] == answer
    assert answer in result["clarified_query"]
    kinds = [e["kind"] for e in read_events(client, session_id)]
    assert kinds.count("clarification") >= 1 and "awaiting_clarification" in str(
        [e for e in read_events(client, session_id) if e["kind"] == "status"])


def test_queue_and_cancel(client, server):
    first = start(client, mode="flat", clarify="never")
    second = start(client, mode="flat", clarify="never")
    third = start(client, mode="flat", clarify="never")
    health = client.get("/healthz").json()
    assert health["limit"] == 1 and health["queued"] >= 1
    assert client.get(f"/api/research/sessions/{third}").json()["status"] == "queued"
    assert client.post(f"/api/research/sessions/{third}/cancel").status_code == 202
    assert wait_for_status(client, third, TERMINAL)["status"] == "cancelled"
    third_statuses = [e["data"]["status"] for e in read_events(client, third) if e["kind"] == "status"]
    assert third_statuses == ["queued", "cancelled"]  # it never ran

    wait_for_status(client, second, {"running"})
    assert client.post(f"/api/research/sessions/{second}/cancel").status_code == 202
    assert wait_for_status(client, second, TERMINAL)["status"] == "cancelled"
    assert wait_for_status(client, first, TERMINAL)["status"] == "completed"
    assert client.get(f"/api/research/sessions/{second}/results").status_code == 409


def test_concurrent_sessions_do_not_interfere(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    lighthouse = ("# Lighthouses\n\nThe Pharos of Alexandria guided sailors into the harbour. "
                  "Modern lighthouses use Fresnel lenses designed by Augustin Fresnel.\n")
    with running_server(home, max_sessions=2) as srv, srv.client() as client:
        upload_research_corpus(client)
        assert client.post("/api/knowledge-bases/lights/documents",
                           files=[("files", ("lights.md", lighthouse.encode(), "text/markdown"))]
                           ).status_code == 201
        bridges = start(client, mode="hierarchical", clarify="never")
        lights = client.post("/api/research/sessions", json={
            "query": "Who designed the lenses of modern lighthouses?",
            "config": {"kb": "lights", "mode": "flat", "clarify": "never"}}).json()["session_id"]
        deadline = time.monotonic() + 60
        while client.get("/healthz").json()["running"] < 2:  # both hold a slot at once
            assert time.monotonic() < deadline, "the two sessions never ran at the same time"
            time.sleep(0.05)
        for session_id in (bridges, lights):
            assert wait_for_status(client, session_id, TERMINAL)["status"] == "completed"
        first = client.get(f"/api/research/sessions/{bridges}/results").json()
        second = client.get(f"/api/research/sessions/{lights}/results").json()
    assert first["query"] == QUESTION and {s["kb"] for s in first["sources"]} == {"bridges"}
    assert {s["kb"] for s in second["sources"]} == {"lights"} and "Fresnel" in second["report_markdown"]
    assert "Fresnel" not in first["report_markdown"]


def test_plan_review_over_http(client):
    session_id = start(client, clarify="never", review_plan=True)
    detail = wait_for_status(client, session_id, {"awaiting_plan_review"} | TERMINAL)
    assert detail["status"] == "awaiting_plan_review", detail
    plan = detail["pending_plan"]
    assert plan["kind"] == "plan_review" and len(plan["sub_questions"]) >= 2
    assert all({"id", "question", "priority", "strategy", "iteration_budget",
                "cost_budget_usd"} <= set(sq) for sq in plan["sub_questions"])
    shown = read_events(client, session_id, stop_when=lambda e: e["kind"] == "plan_review")
    assert shown[-1]["data"]["sub_questions"] == plan["sub_questions"]
    url = f"/api/research/sessions/{session_id}/plan"
    first = plan["sub_questions"][0]
    for body, where in (
            ({"action": "edit", "sub_questions": []}, ["body", "sub_questions"]),
            ({"action": "edit", "sub_questions": [{"id": "nope", "question": "Why?"}]},
             ["body", "sub_questions", 0, "id"]),
            ({"action": "edit", "sub_questions": [{"id": first["id"], "question": " "}]},
             ["body", "sub_questions", 0, "question"]),
            ({"action": "replan"}, ["body", "note"])):
        refused = client.post(url, json=body)
        assert refused.status_code == 422, refused.text
        assert refused.json()["detail"][0]["loc"] == where
        assert client.get(f"/api/research/sessions/{session_id}").json()["status"] == \
            "awaiting_plan_review"
    edit = {"action": "edit", "sub_questions": [
        {"id": first["id"], "question": "Who designed the Millau Viaduct?", "priority": 1.0},
        {"id": None, "question": "Which bridge did Michel Virlogeux work on before?",
         "priority": 0.6}]}
    assert client.post(url, json=edit).status_code == 202
    assert client.post(url, json={"action": "approve"}).status_code == 409
    assert wait_for_status(client, session_id, TERMINAL)["status"] == "completed"
    result = client.get(f"/api/research/sessions/{session_id}/results").json()
    assert [sq["question_text"] for sq in result["sub_questions"]] == [
        edit["sub_questions"][0]["question"], edit["sub_questions"][1]["question"]]
    assert result["plan_review"]["status"] == "edited"
    assert "Normandy Bridge" in result["report_markdown"]


def test_a_session_waiting_for_its_plan_review_can_be_cancelled(client):
    session_id = start(client, clarify="never", review_plan=True, mode="flat")
    assert wait_for_status(client, session_id, {"awaiting_plan_review"} | TERMINAL)["status"] == \
        "awaiting_plan_review"
    assert client.post(f"/api/research/sessions/{session_id}/cancel").status_code == 202
    assert wait_for_status(client, session_id, TERMINAL)["status"] == "cancelled"
    late = client.post(f"/api/research/sessions/{session_id}/plan", json={"action": "approve"})
    assert late.status_code == 409 and "cancelled" in late.json()["detail"]

"""Pieces of the service that need no server: upload names, loopback rule, request
options, progress folding, and errors that never leak internals."""

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from research_studio.config import AppContext, Settings
from research_studio.errors import ResearchStudioError
from research_studio.graph.progress import apply_event, new_progress
from research_studio.service.app import create_app
from research_studio.service.auth import is_loopback
from research_studio.service.schemas import ResearchOptions, SessionCreate
from research_studio.service.uploads import safe_upload_name, upload_path


@pytest.mark.parametrize("name, expected", [
    ("report.pdf", "report.pdf"),
    ("../../etc/passwd", "passwd"),
    ("..\\..\\windows\\evil.md", "evil.md"),
    ("/abs/path/notes.txt", "notes.txt"),
    ("a\x00b\x1f.md", "ab.md"),
    ("rm -rf $(x);.md", "rm -rf _(x)_.md"),
    ("..hidden.md", "hidden.md"),
])
def test_upload_names_stay_inside_the_folder(tmp_path, name, expected):
    assert safe_upload_name(name) == expected
    target = upload_path(tmp_path, name)
    assert target.parent == tmp_path.resolve() and target.name == expected


@pytest.mark.parametrize("name", ["", "..", "../..", "/", "\x00", " . "])
def test_unusable_upload_names_are_refused(tmp_path, name):
    with pytest.raises(ResearchStudioError):
        upload_path(tmp_path, name)


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("localhost", True), ("::1", True), ("[::1]", True), ("127.8.0.1", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("example.org", False)])
def test_loopback_rule(host, loopback):
    assert is_loopback(host) is loopback


def test_options_map_seed_fields_templates_and_clarification():
    config = ResearchOptions(enable_hierarchical=True, max_iterations=15).to_config()
    assert config.mode == "hierarchical" and config.max_iterations == 15 and config.interactive
    assert ResearchOptions(enable_hierarchical=False).to_config().mode == "flat"
    # an explicit mode wins over the seed's flag and over the template
    assert ResearchOptions(enable_hierarchical=False, mode="hierarchical").to_config().mode == "hierarchical"
    quick = ResearchOptions(template="quick_fact", max_iterations=9).to_config()
    assert quick.template == "quick_fact" and quick.mode == "flat" and quick.max_iterations == 9
    assert not ResearchOptions(clarify="never").to_config().interactive
    with pytest.raises(ValidationError, match="bogus"):
        SessionCreate(query="q", config={"bogus": 1})
    with pytest.raises(ValidationError):
        ResearchOptions(mode="sideways")


def test_progress_folds_events_into_a_tree_with_counts():
    progress = new_progress()
    apply_event(progress, "stage", {"stage": "plan", "tokens": 40})
    apply_event(progress, "plan", {"sub_questions": [
        {"sub_question_id": "sq_001", "question_text": "A?", "priority": 1.0},
        {"sub_question_id": "sq_002", "question_text": "B?", "priority": 0.8}]})
    apply_event(progress, "plan", {"sub_questions": [  # a replayed plan adds nothing twice
        {"sub_question_id": "sq_001", "question_text": "A?", "priority": 1.0},
        {"sub_question_id": "sq_002", "question_text": "B?", "priority": 0.8}]})
    apply_event(progress, "sub_question", {"sub_question_id": "sq_001", "status": "researching"})
    apply_event(progress, "iteration", {"sub_question_id": "sq_001", "iteration": 1, "findings": 3,
                                        "sources": 5})
    apply_event(progress, "iteration", {"sub_question_id": "sq_002", "iteration": 0, "findings": 2,
                                        "sources": 1})
    apply_event(progress, "sub_question", {"sub_question_id": "sq_404", "status": "completed"})
    apply_event(progress, "gaps", {"round": 2, "gaps": 1, "decision": "research_gaps"})
    apply_event(progress, "trust", {"claims": 7})
    assert progress["stage"] == "plan" and progress["tokens"] == 40
    assert [sq["sub_question_id"] for sq in progress["sub_questions"]] == ["sq_001", "sq_002"]
    first = progress["sub_questions"][0]
    assert (first["status"], first["iterations"], first["findings"]) == ("researching", 2, 3)
    assert (progress["findings"], progress["sources"]) == (5, 6)
    # a reviewer's edited plan replaces the tree: removed ones go, kept ones keep their counts
    apply_event(progress, "plan", {"final": True, "sub_questions": [
        {"sub_question_id": "sq_001", "question_text": "A, reworded?", "priority": 0.5},
        {"sub_question_id": "sq_003", "question_text": "C?", "priority": 0.9}]})
    assert [(sq["sub_question_id"], sq["question_text"], sq["status"], sq["findings"])
            for sq in progress["sub_questions"]] == [("sq_001", "A, reworded?", "researching", 3),
                                                     ("sq_003", "C?", "pending", 0)]
    assert (progress["gap_rounds"], progress["claims"]) == (2, 7)


def test_server_errors_are_logged_not_leaked(tmp_path):
    app = create_app(AppContext(tmp_path, Settings()))

    @app.get("/api/boom")
    async def boom() -> None:
        raise RuntimeError("secret internal detail at /srv/app.py line 12")

    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/boom")
        assert response.status_code == 500
        body = response.json()
        assert body["detail"] == "internal server error" and len(body["error_id"]) == 8
        assert "secret" not in response.text and "Traceback" not in response.text
        page = client.get("/")
        assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::"])
def test_serve_refuses_reachable_addresses_without_a_key(tmp_path, monkeypatch, host):
    from typer.testing import CliRunner

    from research_studio.cli import app

    monkeypatch.delenv("RESEARCH_STUDIO_API_KEY", raising=False)
    result = CliRunner().invoke(app, ["serve", "--host", host, "--home", str(tmp_path)])
    assert result.exit_code == 2
    output = " ".join(result.output.split())
    assert "without an API key" in output and "RESEARCH_STUDIO_API_KEY" in output


@pytest.fixture
def api(tmp_path):
    """The app in-process on a fresh home, with a 1,000-byte request limit."""
    settings = Settings(service={"max_request_bytes": 1000, "max_answer_chars": 50})
    with TestClient(create_app(AppContext(tmp_path, settings)),
                    raise_server_exceptions=False) as client:
        client.home = tmp_path
        yield client


def _refs(node):
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_openapi_documents_every_refusal_with_its_real_body(api):
    """FastAPI's default 422 model is not what the app sends, and 400/404/409/413 were
    missing: a client generated from the schema could not read the errors it gets."""
    schema = api.get("/openapi.json").json()
    components = schema["components"]["schemas"]
    assert all(ref.removeprefix("#/components/schemas/") in components for ref in _refs(schema))
    assert "HTTPValidationError" not in components
    expected = {
        ("post", "/api/research/sessions"): {"400", "413", "422"},
        ("get", "/api/research/sessions"): {"422"},
        ("get", "/api/research/sessions/{session_id}"): {"404"},
        ("get", "/api/research/sessions/{session_id}/results"): {"404", "409"},
        ("get", "/api/research/sessions/{session_id}/events"): {"400", "404", "422"},
        ("post", "/api/research/sessions/{session_id}/clarification"): {"404", "409", "413", "422"},
        ("post", "/api/research/sessions/{session_id}/cancel"): {"404", "409"},
        ("post", "/api/knowledge-bases/{name}/documents"): {"400", "413", "422"},
        ("get", "/api/knowledge-bases/{name}/search"): {"404", "422"},
    }
    for (method, path), codes in expected.items():
        responses = schema["paths"][path][method]["responses"]
        assert codes <= set(responses), (method, path, set(responses))
        for code in codes:  # errors are JSON, on the event-stream route too
            body = responses[code]["content"]["application/json"]["schema"]
            wanted = "ValidationErrors" if code == "422" else "ErrorMessage"
            if path.endswith("/results") and code == "409":
                wanted = "NotComplete"
            assert body == {"$ref": f"#/components/schemas/{wanted}"}, (method, path, code)
    kb = schema["paths"]["/api/knowledge-bases/{name}/search"]["get"]["parameters"][0]
    assert kb["name"] == "name" and kb["schema"]["pattern"].startswith("^")


def test_every_422_has_the_documented_shape(api):
    """The question's own checks once answered 422 with a bare string."""
    from research_studio.service.schemas import ValidationErrors

    refused = [
        api.post("/api/research/sessions", json={"query": "🙂🙂", "config": {"use_web": True}}),
        api.post("/api/research/sessions", json={"query": "what\x00is", "config": {"use_web": True}}),
        api.post("/api/research/sessions", json={"query": "Who built it?"}),  # no kb, no web
        api.post("/api/research/sessions", json={"query": "q", "config": {"min_confidence": 2}}),
        api.post("/api/research/sessions", content=b'{"query": ', headers={
            "content-type": "application/json"}),
        api.get("/api/research/sessions", params={"offset": 2**63}),
        api.get("/api/knowledge-bases/main%0A/search", params={"q": "x"}),
    ]
    for response in refused:
        assert response.status_code == 422, response.text
        ValidationErrors.model_validate(response.json())
    locations = [r.json()["detail"][0]["loc"] for r in refused[:3]]
    assert locations == [["body", "query"], ["body", "query"], ["body", "config"]]
    assert api.get("/api/research/sessions").json()["total"] == 0  # nothing was recorded


def test_a_body_over_the_limit_is_refused_as_json(api):
    """Starlette answers a Content-Length over the limit in plain text, which matched
    neither the schema nor any other error of the API."""
    big = b'{"query": "' + b"a" * 5000 + b'"}'
    for path in ("/api/research/sessions", "/api/research/sessions/nope/clarification",
                 "/api/research/sessions/nope/cancel"):
        response = api.post(path, content=big, headers={"content-type": "application/json"})
        assert response.status_code == 413, path
        assert response.headers["content-type"] == "application/json"
        assert response.json() == {"detail": "Content Too Large"}
        assert response.headers["x-frame-options"] == "DENY"


def test_knowledge_base_names_are_matched_in_full(api):
    """``main\\n`` once passed a ``$`` match and made ``uploads/main\\n/``."""
    files = [("files", ("a.md", b"# A\n\nText.", "text/markdown"))]
    for name in ("main%0A", "main%0D%0A", "-main", "a" * 64, "ma%2Fin"):
        response = api.post(f"/api/knowledge-bases/{name}/documents", files=files)
        assert response.status_code in (404, 422), (name, response.text)
    assert not (api.home / "uploads").exists()


def test_long_answer_is_a_422_in_the_documented_shape():
    from fastapi.exceptions import RequestValidationError

    from research_studio.service.responses import invalid

    error = invalid(("body", "answer"), "too long", "string_too_long")
    assert isinstance(error, RequestValidationError)
    assert list(error.errors()) == [{"loc": ("body", "answer"), "msg": "too long",
                                     "type": "string_too_long"}]

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
        {"sub_question_id": "sq_001", "question_text": "A?", "priority": 1.0}]})
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

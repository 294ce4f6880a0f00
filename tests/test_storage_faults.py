"""Storage faults are one line that names the file and says what to do, never a traceback:
a home that cannot be written, a sessions or checkpoints database that is corrupt, truncated
to 0 bytes or someone else's, a broken knowledge-base store, an unreachable database server.
A truncated database is refused, not silently started afresh; a session whose checkpoint
cannot be read ends failed with the reason, never left running; `serve` refuses to start;
the HTTP API answers 503 with the message."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from research_studio.config import AppContext, ResearchConfig, Settings, load_context
from research_studio.errors import StorageError
from research_studio.graph.session import Workspace, drive_session, prepare_session
from research_studio.service.app import create_app
from research_studio.store.backends import prepare_checkpoints, storage_backend
from research_studio.store.faults import SQLITE_HEADER
from research_studio.store.sessions import SessionStore
from tests.child_env import child_env
from tests.servers import free_port

CLI = Path(sys.executable).parent / "research-studio"
QUESTION = "Who designed the Millau Viaduct?"
WEB = ResearchConfig(use_web=True)  # a session that needs no knowledge base


def cli(*args: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args, "--home", str(home)], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=child_env(**env))


def one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> str:
    """The command failed with exit status 2 and a single `error: ...` line holding
    ``fragments``; no traceback."""
    stderr = result.stderr
    assert result.returncode == 2, (result.returncode, stderr)
    assert "Traceback" not in stderr and "Error:" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` cannot be written into. Root ignores permission bits, so for root the
    folder is made immutable (chattr +i) instead; where that is not possible, skip."""
    if os.geteuid() != 0:
        folder.chmod(0o500)
        try:
            yield
        finally:
            folder.chmod(0o700)
        return
    chattr = shutil.which("chattr")
    if not chattr or subprocess.run([chattr, "+i", str(folder)],
                                    capture_output=True).returncode != 0:
        pytest.skip("running as root, and chattr +i is not available here")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


def garbage(size: int = 8192) -> bytes:
    return random.Random(29).randbytes(size)


def foreign_database(path: Path) -> None:
    """A valid SQLite file that belongs to something else."""
    conn = sqlite3.connect(str(path))
    conn.execute("CREATE TABLE people (name TEXT)")
    conn.execute("INSERT INTO people VALUES ('Ada')")
    conn.commit()
    conn.close()


def malformed_database(path: Path) -> None:
    """A sessions database whose first page (the schema) is intact and the rest garbage."""
    store = SessionStore(path)
    for i in range(40):
        store.create(f"s{i}", f"question {i} " + "x" * 500, {"use_web": True})
    store.engine.dispose()
    data = bytearray(path.read_bytes())
    data[4096:] = garbage(len(data) - 4096)
    path.write_bytes(bytes(data))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


# ---- the home -------------------------------------------------------------------------
def test_a_read_only_home_is_one_line_for_every_command(home, tmp_path):
    document = tmp_path / "tides.txt"
    document.write_text("Tides are caused by the Moon.", encoding="utf-8")
    commands = [("kb", "list"), ("kb", "search", "tides", "--kb", "notes"),
                ("research", QUESTION, "--kb", "notes"), ("ingest", str(document)),
                ("sessions", "list")]
    with read_only(home):
        for command in commands:
            one_line_error(cli(*command, home=home), f"home {home} is not writable",
                           "set RESEARCH_STUDIO_HOME or --home to a writable folder")
    assert list(home.iterdir()) == []


def test_a_home_that_cannot_be_created_is_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    one_line_error(cli("sessions", "list", home=blocker / "home"),
                   f"home {blocker / 'home'} cannot be created", "--home")
    one_line_error(cli("kb", "list", home=blocker), f"home {blocker} is not a folder")


def test_a_read_only_knowledge_base_store_is_named(home, tmp_path):
    (home / "kb" / "chroma").mkdir(parents=True)
    with read_only(home / "kb" / "chroma"):
        one_line_error(cli("kb", "list", home=home),
                       f"folder {home / 'kb' / 'chroma'} is not writable (knowledge-base store)")


# ---- the sessions database ------------------------------------------------------------
SESSIONS_FAULTS = {
    "random bytes": (lambda p: p.write_bytes(garbage()), "is not a SQLite database (the file "
                     "is corrupt): move it aside and run again; past sessions are in that file"),
    "a text file": (lambda p: p.write_text("name,age\nAda,36\n"), "is not a SQLite database"),
    "0 bytes": (lambda p: p.write_bytes(b""), "is empty (0 bytes), so it was truncated: restore "
                "it from a backup, or delete it to start with no past sessions"),
    "someone else's": (foreign_database, "is not a Research Studio database (it holds the "
                       "tables people, not research_sessions)"),
    "malformed pages": (malformed_database, "is corrupt (database disk image is malformed)"),
}


@pytest.mark.parametrize("fault", list(SESSIONS_FAULTS))
def test_a_broken_sessions_database_is_named_and_left_alone(home, fault):
    damage, message = SESSIONS_FAULTS[fault]
    path = home / "sessions.db"
    damage(path)
    before = path.read_bytes()
    for command in (("sessions", "list"), ("research", QUESTION, "--web")):
        one_line_error(cli(*command, home=home), f"sessions database {path} ", message)
    assert path.read_bytes() == before  # not written into, not replaced by an empty one


# ---- the checkpoints database ---------------------------------------------------------
CHECKPOINT_FAULTS = {
    "random bytes": (lambda p: p.write_bytes(garbage()), "is not a SQLite database (the file "
                     "is corrupt): move it aside and run again; unfinished sessions resume "
                     "from that file"),
    "0 bytes": (lambda p: p.write_bytes(b""), "is empty (0 bytes), so it was truncated"),
    "someone else's": (foreign_database, "is not a Research Studio database (it holds the "
                       "tables people, not checkpoints)"),
}


@pytest.mark.parametrize("fault", list(CHECKPOINT_FAULTS))
def test_a_broken_checkpoints_database_is_refused_before_a_session_is_recorded(home, fault):
    damage, message = CHECKPOINT_FAULTS[fault]
    path = home / "checkpoints.db"
    damage(path)
    before = path.read_bytes()
    one_line_error(cli("research", QUESTION, "--web", home=home),
                   f"checkpoints database {path} ", message)
    assert path.read_bytes() == before
    listing = cli("sessions", "list", "--json", home=home)  # past sessions stay readable
    assert listing.returncode == 0 and json.loads(listing.stdout) == []


def test_a_checkpoint_broken_during_a_run_fails_the_session_with_the_reason(home):
    workspace = Workspace(load_context(home))
    truncated = prepare_session(workspace, QUESTION, WEB)
    corrupt = prepare_session(workspace, QUESTION, WEB)
    checkpoints = home / "checkpoints.db"
    for session_id, content, message in ((truncated, b"", "is empty (0 bytes)"),
                                         (corrupt, garbage(), "is not a SQLite database")):
        checkpoints.write_bytes(content)
        with pytest.raises(StorageError, match=re.escape(message)):
            asyncio.run(drive_session(workspace, session_id))
        row = workspace.store.get(session_id)
        assert row["status"] == "failed", row
        assert f"checkpoints database {checkpoints} {message}" in row["error"]
        assert row["unclean_exits"] == 0  # an end the process saw, not a crash


def test_a_checkpoint_that_cannot_be_read_fails_its_session_at_the_cli(home):
    workspace = Workspace(load_context(home))
    session_id = prepare_session(workspace, QUESTION, WEB)
    conn = sqlite3.connect(str(home / "checkpoints.db"))
    conn.execute("INSERT INTO checkpoints VALUES (?, '', '1', NULL, 'msgpack', ?, '{}')",
                 (session_id, b"\xc1 not msgpack"))
    conn.commit()
    conn.close()
    one_line_error(cli("resume", session_id, home=home),
                   f"the checkpoint of session {session_id} cannot be read")
    listing = json.loads(cli("sessions", "list", "--json", home=home).stdout)
    assert [(row["id"], row["status"]) for row in listing] == [(session_id, "failed")]
    assert "cannot be read" in workspace.store.get(session_id)["error"]


# ---- first runs: files are made whole, other people's files are not touched -----------
def test_databases_are_made_whole_even_by_processes_starting_together(tmp_path):
    """An empty database file means truncation only if this program never leaves one: new
    files are built under a temporary name and linked into place."""
    home = tmp_path / "home"
    home.mkdir()
    backend = storage_backend(AppContext(home, Settings()))
    errors: list[BaseException] = []

    def start() -> None:
        try:
            SessionStore(backend.sessions_url).engine.dispose()
            prepare_checkpoints(backend)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(p.name for p in home.iterdir()) == ["checkpoints.db", "sessions.db"]
    for name in ("checkpoints.db", "sessions.db"):
        assert (home / name).read_bytes()[:16] == SQLITE_HEADER


def test_an_empty_sqlite_file_without_tables_is_used(home):
    """A valid database with no tables at all is nobody's: its tables are created."""
    path = home / "sessions.db"
    conn = sqlite3.connect(str(path))
    conn.execute("PRAGMA user_version = 1")  # writes the header, creates no table
    conn.close()
    store = SessionStore(path)
    store.create("s1", QUESTION, {})
    assert store.count() == 1


# ---- serve ----------------------------------------------------------------------------
@pytest.mark.parametrize("fault", ["sessions.db random bytes", "checkpoints.db 0 bytes",
                                   "read-only home"])
def test_serve_refuses_to_start_on_broken_storage(home, fault):
    if fault.startswith("sessions.db"):
        (home / "sessions.db").write_bytes(garbage())
        expected = f"sessions database {home / 'sessions.db'} is not a SQLite database"
    elif fault.startswith("checkpoints.db"):
        (home / "checkpoints.db").write_bytes(b"")
        expected = f"checkpoints database {home / 'checkpoints.db'} is empty (0 bytes)"
    else:
        expected = f"home {home} is not writable"

    def serve() -> subprocess.CompletedProcess:
        return cli("serve", "--port", str(free_port()), home=home)

    if fault == "read-only home":
        with read_only(home):
            result = serve()
    else:
        result = serve()
    one_line_error(result, expected)  # not exit status 3 and a traceback from uvicorn


# ---- another backend ------------------------------------------------------------------
def test_an_unreachable_database_server_is_one_line(home):
    url = f"postgresql://rs@127.0.0.1:{free_port()}/rs"
    one_line_error(cli("sessions", "list", home=home, RESEARCH_STUDIO_DATABASE_URL=url),
                   "sessions database on PostgreSQL (127.0.0.1:", "cannot be used",
                   "check database_url and that the server is running")


# ---- the HTTP API ---------------------------------------------------------------------
@pytest.fixture
def api(home):
    with TestClient(create_app(AppContext(home, Settings())),
                    raise_server_exceptions=False) as client:
        client.home = home
        yield client


def test_a_storage_fault_during_a_request_is_a_503_with_the_message(api):
    assert api.get("/api/research/sessions").status_code == 200
    sessions = api.home / "sessions.db"
    sessions.write_bytes(garbage())  # under the server's open connections
    requests = [api.get("/api/research/sessions"),
                api.get("/api/research/sessions/abc123"),  # not a 404: the store is broken
                api.post("/api/research/sessions", json={"query": QUESTION,
                                                         "config": {"use_web": True}})]
    for response in requests:
        assert response.status_code == 503, response.text
        assert response.json() == {"detail": f"sessions database {sessions} is not a SQLite "
                                             "database (the file is corrupt): move it aside and "
                                             "run again; past sessions are in that file"}


def test_a_broken_knowledge_base_store_is_a_503(api):
    chroma = api.home / "kb" / "chroma"
    chroma.mkdir(parents=True)
    (chroma / "chroma.sqlite3").write_bytes(garbage())
    for response in (api.get("/api/knowledge-bases"),
                     api.get("/api/knowledge-bases/notes/search", params={"q": "tides"})):
        assert response.status_code == 503, response.text
        assert response.json()["detail"].startswith(
            f"knowledge-base store {chroma / 'chroma.sqlite3'} is not a SQLite database")


def test_openapi_documents_the_503_of_every_route(api):
    schema = api.get("/openapi.json").json()
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            body = operation["responses"]["503"]["content"]["application/json"]["schema"]
            assert body == {"$ref": "#/components/schemas/ErrorMessage"}, (method, path)


def test_an_upload_into_a_read_only_home_is_a_503(api):
    with read_only(api.home):
        response = api.post("/api/knowledge-bases/notes/documents",
                            files={"files": ("tides.txt", b"Tides follow the Moon.", "text/plain")})
    assert response.status_code == 503, response.text
    assert response.json()["detail"].startswith(f"folder {api.home} is not writable (upload folder)")

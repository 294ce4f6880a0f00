"""`research-studio mcp` as an MCP client uses it: the official SDK's client against a real
server process (stdio, and streamable HTTP on 127.0.0.1), a real home with a small knowledge
base, the embedded model. Tools, schemas, progress notifications, resources, errors that
leave the server answering, the API key, and sessions shared with the CLI."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2  # the MCP SDK's HTTP client
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from research_studio.graph.progress import apply_event, new_progress
from research_studio.mcp_server.progress import ProgressMeter
from tests.child_env import child_env
from tests.research_corpus import QUESTION, write_research_corpus
from tests.servers import free_port

CLI = Path(sys.executable).parent / "research-studio"
KEY = "mcp-test-key-0123456789"
TOOLS = {"research", "start_research", "wait_for_session", "session_status", "session_result",
         "cancel_session", "resume_session", "list_sessions", "list_knowledge_bases",
         "search_knowledge_base"}
LIMIT_S = 240


def cli(*args: str, home: Path, check: bool = True, **env: str) -> subprocess.CompletedProcess:
    result = subprocess.run([str(CLI), *args, "--home", str(home)], capture_output=True, text=True,
                            timeout=600, env=child_env(HOME=str(home), **env))
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with the two-hop bridges corpus ingested as the knowledge base ``bridges``."""
    root = tmp_path_factory.mktemp("mcp")
    home = root / "home"
    cli("ingest", str(write_research_corpus(root / "corpus")), "--kb", "bridges", home=home)
    return home


@asynccontextmanager
async def stdio_session(home: Path) -> AsyncIterator[ClientSession]:
    """A client session with a fresh `research-studio mcp` process over its stdin/stdout."""
    params = StdioServerParameters(command=str(CLI), args=["mcp", "--home", str(home)],
                                   env=child_env(HOME=str(home)))
    with (home.parent / "mcp-stdio.log").open("a") as errlog:
        async with (stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            yield session


def text_of(result: Any) -> str:
    return " ".join(block.text for block in result.content if block.type == "text")


class Progress:
    """Collects a call's progress notifications."""

    def __init__(self) -> None:
        self.notes: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.notes.append((progress, total, message))

    def check(self, session_id: str) -> None:
        assert self.notes, "no progress notification arrived"
        values = [value for value, _, _ in self.notes]
        assert values == sorted(values) and len(set(values)) == len(values), values
        assert all(total == 100.0 for _, total, _ in self.notes)
        assert self.notes[0][2].startswith(f"session {session_id}: ")
        assert values[-1] == 100.0 and self.notes[-1][2].startswith("completed")


def check_report(outcome: dict[str, Any]) -> None:
    assert outcome["status"] == "completed" and outcome["finished"] is True
    report = outcome["report_markdown"]
    assert "[S1]" in report and "Virlogeux" in report and "## Sources" in report


@pytest.mark.slow
def test_stdio_lists_searches_and_refuses_bad_arguments(home: Path) -> None:
    async def scenario() -> None:
        async with stdio_session(home) as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == TOOLS
            research = tools["research"].input_schema
            assert research["required"] == ["question"]
            assert research["properties"]["mode"]["enum"] == ["auto", "flat", "hierarchical"]
            assert "pattern" in json.dumps(research["properties"]["kb"])
            assert tools["search_knowledge_base"].input_schema["properties"]["k"]["maximum"] == 50
            assert tools["session_status"].output_schema["properties"]["percent"]
            assert tools["list_knowledge_bases"].annotations.read_only_hint is True
            templates = (await session.list_resource_templates()).resource_templates
            assert {t.uri_template for t in templates} == {
                "research://sessions/{session_id}/report", "research://sessions/{session_id}/result"}

            kbs = await session.call_tool("list_knowledge_bases", {})
            assert not kbs.is_error
            assert [(kb["name"], kb["chunks"] > 0) for kb in kbs.structured_content[
                "knowledge_bases"]] == [("bridges", True)]
            found = await session.call_tool("search_knowledge_base", {
                "query": "who designed the Millau Viaduct", "kb": "bridges", "k": 3})
            hits = found.structured_content["hits"]
            assert not found.is_error and 1 <= len(hits) <= 3
            assert hits[0]["title"] == "Millau Viaduct" and "Virlogeux" in hits[0]["text"]
            assert hits[0]["end"] - hits[0]["start"] == len(hits[0]["text"])

            refusals = {
                ("search_knowledge_base", '{"query": "x", "kb": "nope"}'):
                    "unknown knowledge base 'nope'; existing: bridges",
                ("search_knowledge_base", '{"query": "x", "kb": "bridges", "k": "many"}'):
                    "valid integer",
                ("search_knowledge_base", '{"query": "x", "kb": "../etc"}'): "pattern",
                ("search_knowledge_base", '{"kb": "bridges"}'): "query",
                ("research", '{"question": "   ", "kb": "bridges"}'): "the question is empty",
                ("research", '{"question": "Why?", "kb": "bridges", "mode": "sideways"}'):
                    "'auto', 'flat' or 'hierarchical'",
                ("start_research", '{"question": "Who designed it?"}'): "nothing to research",
                ("start_research", '{"question": "Who?", "kb": "bridges", "template": "bogus"}'):
                    "unknown template 'bogus'",
                ("start_research", '{"question": "Who?", "kb": "elsewhere"}'):
                    "unknown knowledge base 'elsewhere'",
                ("session_status", '{"session_id": "nosuchsession"}'):
                    "unknown session 'nosuchsession'",
                ("session_result", '{"session_id": "nosuchsession"}'): "unknown session",
                ("wait_for_session", '{"session_id": "nosuchsession", "timeout_s": -1}'):
                    "greater than 0",
                ("cancel_session", '{"session_id": "nosuchsession"}'): "unknown session",
                ("resume_session", '{"session_id": "nosuchsession"}'): "unknown session",
                ("no_such_tool", "{}"): "Unknown tool",
            }
            for (name, arguments), expected in refusals.items():
                result = await session.call_tool(name, json.loads(arguments))
                assert result.is_error, (name, arguments)
                assert expected in text_of(result), (name, arguments, text_of(result))
                assert "Traceback" not in text_of(result)
            with pytest.raises(MCPError) as missing:
                await session.read_resource("research://sessions/nosuchsession/report")
            assert "no session 'nosuchsession'" in str(missing.value)
            # the server answers after every refusal
            again = await session.call_tool("list_knowledge_bases", {})
            assert not again.is_error and again.structured_content["knowledge_bases"]

    asyncio.run(asyncio.wait_for(scenario(), LIMIT_S))


@pytest.mark.slow
def test_stdio_research_reports_progress_and_serves_the_report(home: Path) -> None:
    async def scenario() -> str:
        async with stdio_session(home) as session:
            await session.list_tools()  # the client validates structured results against these
            progress = Progress()
            call = asyncio.create_task(session.call_tool(
                "research", {"question": QUESTION, "kb": "bridges"}, progress_callback=progress))
            while not progress.notes:  # the server answers other calls while a research runs
                await asyncio.sleep(0.05)
            listing = await session.call_tool("list_sessions", {"limit": 5})
            session_id = progress.notes[0][2].split()[1].rstrip(":")
            assert session_id in [s["session_id"] for s in listing.structured_content["sessions"]]
            result = await call
            assert not result.is_error, text_of(result)
            outcome = result.structured_content
            assert outcome["session_id"] == session_id
            check_report(outcome)
            assert outcome["short_answer"] == "Michel Virlogeux"
            assert outcome["percent"] == 100.0 and outcome["sources_cited"] >= 1
            progress.check(session_id)
            assert len(progress.notes) >= 3  # queued, stages, completed

            status = (await session.call_tool("session_status", {"session_id": session_id}))
            assert status.structured_content["status"] == "completed"
            assert len(status.structured_content["progress"]["sub_questions"]) >= 2
            full = (await session.call_tool("session_result", {"session_id": session_id}))
            assert full.structured_content["report_markdown"] == outcome["report_markdown"]
            assert full.structured_content["claims"] and full.structured_content["sources"]
            report = (await session.read_resource(outcome["report_uri"])).contents[0]
            assert report.mime_type == "text/markdown" and report.text == outcome["report_markdown"]
            as_json = (await session.read_resource(outcome["result_uri"])).contents[0]
            assert as_json.mime_type == "application/json"
            assert json.loads(as_json.text)["session_id"] == session_id
            again = await session.call_tool("cancel_session", {"session_id": session_id})
            assert again.is_error and "completed; nothing to cancel" in text_of(again)
            return session_id

    session_id = asyncio.run(asyncio.wait_for(scenario(), LIMIT_S))
    shown = json.loads(cli("sessions", "show", session_id, "--json", home=home).stdout)
    assert shown["status"] == "completed" and "Virlogeux" in shown["report_markdown"]


@pytest.mark.slow
def test_stdio_session_left_interrupted_on_close_resumes_in_a_new_server(home: Path) -> None:
    async def start() -> str:
        async with stdio_session(home) as session:
            started = await session.call_tool("start_research", {
                "question": "When did the Normandy Bridge open, and what does it cross?",
                "kb": "bridges", "mode": "flat"})
            assert not started.is_error, text_of(started)
            assert started.structured_content["status"] == "queued"
            return started.structured_content["session_id"]

    session_id = asyncio.run(asyncio.wait_for(start(), LIMIT_S))
    # the client closed the server's stdin at once: the run stopped and says so
    stopped = json.loads(cli("sessions", "show", session_id, "--json", home=home).stdout)
    assert stopped["status"] == "interrupted", stopped

    async def resume() -> None:
        async with stdio_session(home) as session:
            await session.list_tools()
            resumed = await session.call_tool("resume_session", {"session_id": session_id})
            assert resumed.structured_content["status"] == "queued", text_of(resumed)
            progress = Progress()
            waited = await session.call_tool("wait_for_session", {"session_id": session_id},
                                             progress_callback=progress)
            assert not waited.is_error, text_of(waited)
            assert waited.structured_content["status"] == "completed"
            assert "1995" in waited.structured_content["report_markdown"]
            progress.check(session_id)
            twice = await session.call_tool("resume_session", {"session_id": session_id})
            assert twice.is_error and "only an interrupted session" in text_of(twice)

    asyncio.run(asyncio.wait_for(resume(), LIMIT_S))


@pytest.mark.slow
def test_stdio_server_stopped_by_sigterm_records_its_session_interrupted(home: Path) -> None:
    """SIGTERM while a client still holds stdin open: the session's end is recorded and the
    process exits (newline-delimited JSON-RPC by hand, to hold the server's process id)."""
    server = subprocess.Popen([str(CLI), "mcp", "--home", str(home)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env=child_env(HOME=str(home)))
    try:
        def call(message: dict[str, Any]) -> dict[str, Any] | None:
            server.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
            server.stdin.flush()
            return json.loads(server.stdout.readline()) if "id" in message else None

        call({"id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
        call({"method": "notifications/initialized"})
        started = call({"id": 2, "method": "tools/call", "params": {
            "name": "start_research", "arguments": {"question": QUESTION, "kb": "bridges"}}})
        session_id = started["result"]["structuredContent"]["session_id"]
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        if server.poll() is None:
            server.kill()
    row = json.loads(cli("sessions", "show", session_id, "--json", home=home).stdout)
    assert row["status"] == "interrupted" and not row["unclean_exits"], row


@contextmanager
def http_server(home: Path, api_key: str) -> Iterator[str]:
    """`research-studio mcp --transport http` on a free port of 127.0.0.1; its MCP URL."""
    port = free_port()
    log = (home.parent / "mcp-http.log").open("ab")
    process = subprocess.Popen(
        [str(CLI), "mcp", "--transport", "http", "--port", str(port), "--home", str(home)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
        env=child_env(HOME=str(home), RESEARCH_STUDIO_API_KEY=api_key))
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, (home.parent / "mcp-http.log").read_text()
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the MCP server did not start"
            time.sleep(0.2)
        yield f"{base}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


@asynccontextmanager
async def http_session(url: str, key: str | None) -> AsyncIterator[ClientSession]:
    headers = {"X-API-Key": key} if key else {}
    async with (httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as session):
        await session.initialize()
        yield session


@pytest.mark.slow
def test_http_needs_the_key_and_shares_sessions_with_the_cli(home: Path, tmp_path: Path) -> None:
    # a session the CLI ran is read over MCP; one MCP ran is read by the CLI
    result_path = tmp_path / "cli.json"
    cli("research", QUESTION, "--kb", "bridges", "--json", str(result_path), home=home)
    from_cli = json.loads(result_path.read_text())

    with http_server(home, KEY) as url:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}
        accept = {"Accept": "application/json, text/event-stream"}
        assert httpx.post(url, json=initialize, headers=accept).status_code == 401
        assert httpx.post(url, json=initialize, headers={**accept, "X-API-Key": "wrong"}
                          ).status_code == 401
        assert httpx.post(url, json=initialize, headers={
            **accept, "Authorization": f"Bearer {KEY}"}).status_code == 200
        keyed = {**accept, "X-API-Key": KEY}  # with the key, still only from this machine
        assert httpx.post(url, json=initialize, headers={**keyed, "Host": "evil.example"}
                          ).status_code == 421
        assert httpx.post(url, json=initialize, headers={**keyed, "Origin": "http://evil.example"}
                          ).status_code == 403

        async def without_key() -> None:
            async with http_session(url, None):
                pass

        with pytest.raises(ExceptionGroup) as refused:  # the SDK's task groups wrap its error
            asyncio.run(asyncio.wait_for(without_key(), 60))
        assert refused.group_contains(MCPError)

        async def scenario() -> str:
            async with http_session(url, KEY) as session:
                assert {t.name for t in (await session.list_tools()).tools} == TOOLS
                shared = await session.call_tool("session_result",
                                                 {"session_id": from_cli["session_id"]})
                assert shared.structured_content["report_markdown"] == from_cli["report_markdown"]
                found = await session.call_tool("search_knowledge_base",
                                                {"query": "Normandy Bridge", "kb": "bridges", "k": 2})
                assert found.structured_content["hits"][0]["title"] == "Normandy Bridge"
                started = await session.call_tool("start_research",
                                                  {"question": QUESTION, "kb": "bridges"})
                session_id = started.structured_content["session_id"]
                progress = Progress()
                waited = await session.call_tool("wait_for_session", {"session_id": session_id},
                                                 progress_callback=progress)
                assert not waited.is_error, text_of(waited)
                check_report(waited.structured_content)
                progress.check(session_id)
                report = (await session.read_resource(f"research://sessions/{session_id}/report"))
                assert report.contents[0].text == waited.structured_content["report_markdown"]
                bad = await session.call_tool("search_knowledge_base", {"query": "x", "kb": "nope"})
                assert bad.is_error and "unknown knowledge base" in text_of(bad)
                listed = await session.call_tool("list_sessions", {"limit": 200})
                ids = {s["session_id"] for s in listed.structured_content["sessions"]}
                assert {session_id, from_cli["session_id"]} <= ids
                return session_id

        session_id = asyncio.run(asyncio.wait_for(scenario(), LIMIT_S))
    listing = json.loads(cli("sessions", "list", "--json", home=home).stdout)
    assert {"id": session_id, "status": "completed"}.items() <= next(
        row for row in listing if row["id"] == session_id).items()


@pytest.mark.parametrize(("args", "expected"), [
    (["--transport", "http", "--host", "0.0.0.0"],
     "refusing to listen on 0.0.0.0, which other machines can reach, without an API key"),
    (["--transport", "sse"], "--transport must be stdio or http"),
    (["--port", "9000"], "--host and --port are for --transport http"),
    (["--transport", "http", "--port", "70000"], "invalid option"),
], ids=["reachable-without-key", "unknown-transport", "port-on-stdio", "port-out-of-range"])
def test_refusals_before_serving_are_one_line(tmp_path: Path, args: list[str], expected: str) -> None:
    refused = cli("mcp", *args, home=tmp_path / "home", check=False)
    assert refused.returncode == 2, refused.stderr
    assert expected in refused.stderr and "Traceback" not in refused.stderr


def test_without_the_sdk_the_command_says_how_to_install_it(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "mcp"  # an `mcp` without the SDK's server, first on the path
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("", encoding="utf-8")
    path = os.pathsep.join(p for p in (str(shadow.parent), os.environ.get("PYTHONPATH")) if p)
    result = subprocess.run([str(CLI), "mcp", "--home", str(tmp_path / "home")], capture_output=True,
                            text=True, timeout=120,
                            env={**child_env(HOME=str(tmp_path)), "PYTHONPATH": path})
    assert result.returncode == 2
    assert "pip install 'research-studio[mcp]'" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2  # one line, wrapped at most once


def test_broken_storage_is_refused_before_serving(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "sessions.db").write_bytes(b"not a database, " * 64)
    for args in ([], ["--transport", "http", "--port", str(free_port())]):
        refused = cli("mcp", *args, home=home, check=False)
        assert refused.returncode == 2, refused.stderr
        assert f"sessions database {home / 'sessions.db'} is not a SQLite database" in refused.stderr
        assert "Traceback" not in refused.stderr


def test_progress_only_grows_through_a_gap_round() -> None:
    """The notifications' values must increase: a gap round back to research does not lower
    them, a new line at the same stage nudges them, nothing new sends nothing."""
    progress, meter, sent = new_progress(), ProgressMeter(), []
    plan = {"sub_questions": [{"sub_question_id": f"sq{i}", "question_text": "q"} for i in (1, 2, 3)]}
    steps = [("status", {"status": "running"}), ("stage", {"stage": "analyze"}),
             ("stage", {"stage": "plan"}), ("plan", plan),
             ("stage", {"stage": "research_sub_question"}),
             ("iteration", {"sub_question_id": "sq1", "iteration": 0, "findings": 4, "sources": 2}),
             ("sub_question", {"sub_question_id": "sq1", "status": "completed"}),
             ("sub_question", {"sub_question_id": "sq2", "status": "completed"}),
             ("stage", {"stage": "detect_gaps"}),
             ("sub_question", {"sub_question_id": "sq2", "status": "researching"}),
             ("stage", {"stage": "research_sub_question"}), ("stage", {"stage": "write"})]
    for kind, data in steps:
        apply_event(progress, kind, data)
        reading = meter.reading(progress, "running")
        if reading:
            sent.append(reading)
    assert meter.reading(progress, "running") is None
    sent.append(meter.reading(progress, "completed"))
    values = [value for value, _ in sent]
    assert values == sorted(values) and len(set(values)) == len(values), values
    assert sent[0] == (0.0, "starting") and sent[-1][0] == 100.0
    assert "research_sub_question · 1/3 sub-questions done · 4 findings · 2 sources" in [
        line for _, line in sent]

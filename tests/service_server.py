"""A real `research-studio serve` process on 127.0.0.1, and a small SSE reader."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.child_env import child_env
from tests.servers import free_port

CLI = Path(sys.executable).parent / "research-studio"


@dataclass
class Server:
    process: subprocess.Popen
    base_url: str
    log_path: Path
    api_key: str | None = None

    def client(self, **kwargs) -> httpx.Client:
        headers = {"X-API-Key": self.api_key} if self.api_key else {}
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=60, **kwargs)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        terminate(self.process, timeout=30)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


def start_server(home: Path, *, database_url: str = "", api_key: str | None = None,
                 max_sessions: int = 2, port: int | None = None, host: str = "127.0.0.1",
                 log_name: str = "server.log", env_extra: dict[str, str] | None = None) -> Server:
    port = port or free_port()
    env = child_env(HOME=str(home), RESEARCH_STUDIO_DATABASE_URL=database_url)
    if api_key:
        env["RESEARCH_STUDIO_API_KEY"] = api_key
    env.update(env_extra or {})
    log_path = home.parent / log_name
    log = log_path.open("ab")
    process = subprocess.Popen(
        [str(CLI), "serve", "--host", host, "--port", str(port), "--max-sessions", str(max_sessions),
         "--home", str(home)], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
    server = Server(process, f"http://127.0.0.1:{port}", log_path, api_key)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{server.log()}")
        try:
            if httpx.get(f"{server.base_url}/healthz", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"server did not start:\n{server.log()}")


@contextmanager
def running_server(home: Path, **kwargs) -> Iterator[Server]:
    server = start_server(home, **kwargs)
    try:
        yield server
    finally:
        server.stop()


def terminate(process: subprocess.Popen, timeout: float) -> None:
    """SIGTERM, then SIGKILL when it has not exited within ``timeout`` seconds."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def read_events(client: httpx.Client, session_id: str, last_event_id: int | None = None,
                stop_when=None, timeout: float = 600) -> list[dict]:
    """Events of a session's stream until the server ends it (or ``stop_when(event)``)."""
    headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
    events: list[dict] = []
    current: dict = {}
    with client.stream("GET", f"/api/research/sessions/{session_id}/events", headers=headers,
                       timeout=httpx.Timeout(timeout, read=timeout)) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if not line:
                if "kind" in current:
                    events.append(current)
                    if stop_when and stop_when(current):
                        return events
                current = {}
            elif line.startswith("id:"):
                current["id"] = int(line[3:].strip())
            elif line.startswith("event:"):
                current["kind"] = line[6:].strip()
            elif line.startswith("data:"):
                current["data"] = json.loads(line[5:].strip())
    return events


def upload_research_corpus(client: httpx.Client, kb: str = "bridges") -> None:
    """Build the two-hop research corpus into ``kb`` through the upload endpoint."""
    from tests.research_corpus import DOCUMENTS

    files = [("files", (name, text.encode(), "text/markdown")) for name, text in DOCUMENTS.items()]
    response = client.post(f"/api/knowledge-bases/{kb}/documents", files=files)
    assert response.status_code == 201, response.text
    assert response.json()["documents_added"] == len(DOCUMENTS)


def wait_for_status(client: httpx.Client, session_id: str, statuses: set[str],
                    timeout: float = 600) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = client.get(f"/api/research/sessions/{session_id}").json()
        if body["status"] in statuses:
            return body
        time.sleep(0.25)
    raise AssertionError(f"session {session_id} never reached {statuses}; last: {body}")

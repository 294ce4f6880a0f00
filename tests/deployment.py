"""A multi-process deployment on 127.0.0.1 for tests: a Redis server from Debian's
package, `research-studio worker` processes and `serve` processes on one PostgreSQL
database and one home (issue 28)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.child_env import child_env
from tests.servers import free_port
from tests.service_server import CLI, Server, start_server, terminate

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"


def require_redis() -> None:
    if not Path(REDIS).exists():
        if os.environ.get("RESEARCH_STUDIO_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is missing but Redis is required")
        pytest.skip("no redis-server (Debian's redis-server package; .ci/run installs it)")
    pytest.importorskip("celery", reason="the workers extra is not installed")


@dataclass
class Redis:
    port: int
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            probe = subprocess.run(["redis-cli", "-p", str(self.port), "ping"],
                                   capture_output=True, text=True)
            if probe.stdout.strip() == "PONG":
                return
            time.sleep(0.1)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)


@dataclass
class Worker:
    process: subprocess.Popen
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:  # a warm shutdown lets a running session finish
        terminate(self.process, timeout=60)


def deployment_env(database_url: str, broker_url: str) -> dict[str, str]:
    """What every process of the deployment shares (fast checks, so tests are quick)."""
    return {"RESEARCH_STUDIO_DATABASE_URL": database_url,
            "RESEARCH_STUDIO_SERVICE__BROKER_URL": broker_url,
            "RESEARCH_STUDIO_SERVICE__ORPHAN_CHECK_S": "2",
            "RESEARCH_STUDIO_SERVICE__CANCEL_CHECK_S": "0.5"}


def start_worker(home: Path, env: dict[str, str], name: str) -> Worker:
    log_path = home.parent / f"{name}.log"
    process = subprocess.Popen([str(CLI), "worker", "--home", str(home)],
                               stdin=subprocess.DEVNULL, stdout=log_path.open("ab"),
                               stderr=subprocess.STDOUT, env=child_env(HOME=str(home), **env))
    worker = Worker(process, log_path)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"worker exited with {process.returncode}:\n{worker.log()[-4000:]}")
        if " ready." in worker.log():  # Celery's own line once it consumes
            return worker
        time.sleep(0.2)
    worker.kill()
    raise RuntimeError(f"worker did not start:\n{worker.log()[-4000:]}")


def start_api(home: Path, database_url: str, env: dict[str, str], name: str) -> Server:
    return start_server(home, database_url=database_url, log_name=f"{name}.log", env_extra=env)


@contextmanager
def stopped(*processes: Server | Worker) -> Iterator[None]:
    try:
        yield
    finally:
        for process in processes:
            process.stop()


def which_worker_runs(workers: list[Worker], session_id: str, timeout: float = 120) -> Worker:
    """The worker whose log says it started the session's current run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for worker in workers:
            if f"session {session_id}: running" in worker.log():
                return worker
        time.sleep(0.1)
    raise AssertionError(f"no worker started session {session_id}")


def free_redis() -> Redis:
    return Redis(free_port())

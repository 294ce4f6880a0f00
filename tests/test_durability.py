"""A research process killed mid-run resumes from its checkpoint and loses nothing;
clarification pauses a non-interactive run until `resume --answer`."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.research_corpus import QUESTION, write_research_corpus

pytestmark = pytest.mark.slow
CLI = Path(sys.executable).parent / "research-studio"


def cli(*args: str, home: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args, "--home", str(home)], capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "200"}, **kwargs)


@pytest.fixture
def bridges_home(tmp_path):
    home = tmp_path / "home"
    corpus = write_research_corpus(tmp_path / "corpus")
    assert cli("ingest", str(corpus), "--kb", "bridges", home=home).returncode == 0
    return home


def _db_rows(home: Path, sql: str) -> list[tuple]:
    if not (home / "sessions.db").exists():
        return []
    with sqlite3.connect(home / "sessions.db") as db:
        try:
            return db.execute(sql).fetchall()
        except sqlite3.OperationalError:
            return []


def test_killed_run_resumes_with_nothing_lost(bridges_home, tmp_path):
    process = subprocess.Popen(
        [str(CLI), "research", QUESTION, "--kb", "bridges", "--mode", "hierarchical",
         "--clarify", "never", "--sequential", "--home", str(bridges_home)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={"PATH": "/usr/bin:/bin"})
    deadline = time.monotonic() + 300
    before: set[str] = set()
    while time.monotonic() < deadline and process.poll() is None:
        before = {row[0] for row in _db_rows(bridges_home, "SELECT finding_id FROM research_findings")}
        if before:
            break
        time.sleep(0.05)
    assert before, "no findings were stored before the process ended"
    assert process.poll() is None, "the run finished before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    [(session_id, status)] = _db_rows(bridges_home, "SELECT id, status FROM research_sessions")
    assert status == "running"  # killed: nobody marked it finished

    out = tmp_path / "result.json"
    resumed = cli("resume", session_id, "--json", str(out), home=bridges_home)
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(out.read_text())
    assert result["status"] == "completed" and result["report_markdown"]
    after = {f["finding_id"] for sq in result["sub_questions"] for f in sq["findings"]}
    assert before <= after, "findings gathered before the kill were lost"
    # the analysis ran once, before the kill; the resumed run did not repeat it
    assert [t["node"] for t in result["node_timings"]].count("analyze") == 1
    listing = json.loads(cli("sessions", "list", "--json", home=bridges_home).stdout)
    assert listing[0]["id"] == session_id and listing[0]["status"] == "completed"


def test_clarification_over_separate_processes(bridges_home, tmp_path):
    first = cli("research", QUESTION, "--kb", "bridges", "--clarify", "always", home=bridges_home)
    assert first.returncode == 0, first.stderr
    assert "Waiting for a clarification" in first.stdout
    session_id = first.stdout.split("research-studio resume ")[1].split()[0]
    out = tmp_path / "result.json"
    answered = cli("resume", session_id, "--answer", "Focus on the structural engineer",
                   "--json", str(out), home=bridges_home)
    assert answered.returncode == 0, answered.stderr
    if "Waiting for a clarification" in answered.stdout:  # a second round of questions
        assert json.loads(out.read_text())["status"] == "awaiting_clarification"
        final = cli("resume", session_id, "--answer", "/end", "--json", str(out), home=bridges_home)
        assert final.returncode == 0, final.stderr
    result = json.loads(out.read_text())
    assert result["status"] == "completed" and "## Sources" in result["report_markdown"]
    clarification = result["clarification"]
    assert clarification["history"][0]["answer"] == "Focus on the structural engineer"
    assert "Focus on the structural engineer" in result["clarified_query"]
    assert clarification["status"] in ("ended", "converged", "max_iterations")
    assert len(clarification["dedup_ratios"]) >= 1
    assert all(0.0 <= r <= 1.0 for r in clarification["dedup_ratios"])

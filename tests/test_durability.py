"""A research process killed mid-run resumes from its checkpoint and loses nothing;
clarification pauses a non-interactive run until `resume --answer`."""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.child_env import child_env
from tests.research_corpus import QUESTION, write_research_corpus
from tests.service_server import running_server, wait_for_status

pytestmark = pytest.mark.slow
CLI = Path(sys.executable).parent / "research-studio"


def cli(*args: str, home: Path, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(CLI), *args, "--home", str(home)], capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL,
                          env=child_env(), **kwargs)


@pytest.fixture
def bridges_home(tmp_path):
    home = tmp_path / "home"
    corpus = write_research_corpus(tmp_path / "corpus")
    assert cli("ingest", str(corpus), "--kb", "bridges", home=home).returncode == 0
    return home


def _db_rows(home: Path, sql: str, database: str = "sessions.db") -> list[tuple]:
    if not (home / database).exists():
        return []
    with sqlite3.connect(home / database) as db:
        try:
            return db.execute(sql).fetchall()
        except sqlite3.OperationalError:
            return []


def start_research(home: Path, output: int = subprocess.DEVNULL) -> subprocess.Popen:
    """The long sequential research of the test corpus in its own CLI process, which
    Ctrl-C reaches as it reaches a run a person started at a terminal. A suite started as
    a background job of a script inherits SIGINT ignored (POSIX), and an ignored signal
    stays ignored across exec; a handler does not, so one is set while the run starts."""
    ignored = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            [str(CLI), "research", QUESTION, "--kb", "bridges", "--mode", "hierarchical",
             "--clarify", "never", "--sequential", "--home", str(home)],
            stdin=subprocess.DEVNULL, stdout=output, stderr=output, text=True,
            env=child_env())
    finally:
        signal.signal(signal.SIGINT, ignored)


def test_killed_run_resumes_with_nothing_lost(bridges_home, tmp_path):
    process = start_research(bridges_home)
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
    [(session_id, status, active_before)] = _db_rows(
        bridges_home, "SELECT id, status, active_s FROM research_sessions")
    assert status == "running"  # killed: nobody marked it finished
    assert active_before > 0  # the time spent so far is stored as the run goes

    out = tmp_path / "result.json"
    resumed = cli("resume", session_id, "--json", str(out), home=bridges_home)
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(out.read_text())
    assert result["status"] == "completed" and result["report_markdown"]
    assert result["usage"]["wall_s"] > active_before  # the time before the kill counts
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


_CRASH_IN_PLAN = """
import asyncio, os, signal, sys
from research_studio.config import ResearchConfig, load_context
from research_studio.graph.session import Hooks, Workspace, drive_session, prepare_session

home, session_id, question = sys.argv[1:4]
workspace = Workspace(load_context(home))
if not workspace.store.exists(session_id):
    config = ResearchConfig(kb="bridges", mode="hierarchical", clarify="never")
    prepare_session(workspace, question, config, session_id=session_id)

def crash(kind, data):  # dies in the middle of a step, as a segfault in native code does
    if kind == "stage" and data.get("stage") == "plan":
        os.kill(os.getpid(), signal.SIGSEGV)

asyncio.run(drive_session(workspace, session_id, Hooks(on_event=crash)))
"""


def test_a_session_that_keeps_killing_its_process_is_quarantined(bridges_home, tmp_path):
    session_id = "crashing01"
    for _ in range(3):  # the default max_unclean_exits
        crashed = subprocess.run([sys.executable, "-c", _CRASH_IN_PLAN, str(bridges_home),
                                  session_id, QUESTION], capture_output=True, text=True, timeout=600)
        assert crashed.returncode == -signal.SIGSEGV, crashed.stderr[-2000:]
    assert _db_rows(bridges_home, "SELECT status FROM research_sessions") == [("running",)]

    # the server's start-up recovery fails it with the reason instead of crashing again
    with running_server(bridges_home, max_sessions=1) as server, server.client() as client:
        detail = wait_for_status(client, session_id, {"completed", "failed", "cancelled"})
        assert detail["status"] == "failed" and "died 3 times" in detail["error"], detail
        assert server.process.poll() is None and client.get("/healthz").json()["running"] == 0

    refused = cli("resume", session_id, home=bridges_home)
    assert refused.returncode == 2 and "--retry" in refused.stderr
    assert "Traceback" not in refused.stderr

    out = tmp_path / "result.json"  # a person may try again once the cause is fixed
    retried = cli("resume", session_id, "--retry", "--json", str(out), home=bridges_home)
    assert retried.returncode == 0, retried.stderr
    result = json.loads(out.read_text())
    assert result["status"] == "completed"
    assert [t["node"] for t in result["node_timings"]].count("analyze") == 1  # from the checkpoint


def test_ctrl_c_leaves_the_session_interrupted_and_names_it(bridges_home):
    process = start_research(bridges_home, output=subprocess.PIPE)
    deadline = time.monotonic() + 300
    # interrupted once its first step is stored: most of the run is still ahead
    while time.monotonic() < deadline and process.poll() is None:
        if _db_rows(bridges_home, "SELECT stage FROM research_sessions WHERE stage != ''"):
            break
        time.sleep(0.05)
    assert process.poll() is None, "the run finished before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    [(session_id, status)] = _db_rows(bridges_home, "SELECT id, status FROM research_sessions")
    assert status == "interrupted"  # not "cancelled": nobody asked to stop it for good
    assert f"research-studio resume {session_id}" in stderr


def _subgraph_checkpoints(home: Path) -> int:
    rows = _db_rows(home, "SELECT count(*) FROM checkpoints WHERE checkpoint_ns LIKE "
                          "'research_sub_question:%'", "checkpoints.db")
    return rows[0][0] if rows else 0


def _killed_and_resumed(home: Path, checkpoints: int, out: Path) -> tuple[dict, float] | None:
    """Research in ``home`` killed once the sub-agents have written ``checkpoints``
    checkpoints, then resumed: the result and when the kill was; None when the research
    finished first."""
    process = start_research(home)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None \
            and _subgraph_checkpoints(home) < checkpoints:
        time.sleep(0.005)
    if process.poll() is not None:
        return None
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    killed_at = time.time()
    [(session_id,)] = _db_rows(home, "SELECT id FROM research_sessions")
    resumed = cli("resume", session_id, "--json", str(out), home=home)
    assert resumed.returncode == 0, resumed.stderr
    return json.loads(out.read_text()), killed_at


def _inside_a_sub_question(steps: list[dict], killed_at: float) -> set[str]:
    """The sub-questions that had finished an iteration, and not their synthesis, when the
    process was killed (check_stopping runs at the end of every iteration)."""
    before = [t for t in steps if t["started_at"] < killed_at]
    return {t["sub_question_id"] for t in before if t["node"] == "check_stopping"} - {
        t["sub_question_id"] for t in before if t["node"] == "synthesize_sub_question"}


def test_a_sub_question_killed_mid_research_resumes_from_its_last_iteration(bridges_home,
                                                                           tmp_path):
    """The sub-agent is a checkpointed subgraph: a process killed after a sub-question's
    first iteration resumes it there, repeating at most the iteration it was in. The
    subgraph's checkpoints reach the database in batches, so where a kill lands is a
    matter of timing: each try kills a fresh copy of the home at a later count, until a
    kill lands inside a sub-question."""
    interrupted: set[str] = set()
    for attempt, checkpoints in enumerate((7, 8, 6, 5, 21, 23, 25)):
        home = tmp_path / f"try-{attempt}"
        shutil.copytree(bridges_home, home)
        outcome = _killed_and_resumed(home, checkpoints, tmp_path / f"result-{attempt}.json")
        if outcome is None:
            continue
        result, killed_at = outcome
        assert result["status"] == "completed"
        steps = [t for t in result["node_timings"] if "sub_question_id" in t]
        interrupted = _inside_a_sub_question(steps, killed_at)
        if interrupted:
            break
    assert interrupted, "no kill landed inside a sub-question"
    before = [t for t in steps if t["started_at"] < killed_at]
    after = [t for t in steps if t["started_at"] >= killed_at]
    for sq_id in interrupted:
        # check_stopping runs with iteration_count already counting its iteration
        done = max(t["iteration"] for t in before
                   if t["sub_question_id"] == sq_id and t["node"] == "check_stopping")
        rerun = [t["iteration"] for t in after
                 if t["sub_question_id"] == sq_id and t["node"] == "execute"]
        assert all(i >= done for i in rerun), (done, rerun)  # no completed iteration again
        assert not [t for t in after if t["sub_question_id"] == sq_id and t["node"] == "start"]
    finished = next(sq for sq in result["sub_questions"] if sq["sub_question_id"] in interrupted)
    assert finished["status"] == "completed" and finished["findings"]

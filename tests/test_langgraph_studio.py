"""langgraph.json as LangGraph's own tools read it: a real `langgraph dev` server (from
langgraph-cli[inmem]) loads the research graph, publishes ResearchConfig as its
configuration schema, and runs a research with the embedded model over a knowledge base."""

import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.child_env import child_env
from tests.research_corpus import write_research_corpus
from tests.servers import free_port

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
QUESTION = "Who designed the Millau Viaduct?"


def research_studio(*args: str, home: Path) -> None:
    subprocess.run([str(BIN / "research-studio"), *args, "--home", str(home)], check=True,
                   capture_output=True, timeout=600, env=child_env())


@pytest.fixture
def langgraph_dev(tmp_path):
    if not (BIN / "langgraph").exists():
        pytest.fail("langgraph-cli[inmem] is part of the test install (scripts/setup.sh)")
    home = tmp_path / "home"
    research_studio("ingest", str(write_research_corpus(tmp_path / "corpus")), "--kb", "bridges",
                    home=home)
    work = tmp_path / "app"  # the server writes its .langgraph_api state beside langgraph.json
    work.mkdir()
    shutil.copy(ROOT / "langgraph.json", work)
    (work / "src").symlink_to(ROOT / "src")
    port = free_port()
    log = (tmp_path / "langgraph.log").open("wb")
    # --allow-blocking: the knowledge base and the embedded model are synchronous libraries
    process = subprocess.Popen(
        [str(BIN / "langgraph"), "dev", "--no-browser", "--no-reload", "--allow-blocking",
         "--host", "127.0.0.1", "--port", str(port)], cwd=work, stdout=log,
        stderr=subprocess.STDOUT, env=child_env(RESEARCH_STUDIO_HOME=str(home),
                                                 LANGSMITH_TRACING="false"))
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert process.poll() is None, (tmp_path / "langgraph.log").read_text()
            try:
                if httpx.get(f"{base}/ok", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("langgraph dev did not start:\n" + (tmp_path / "langgraph.log").read_text())
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


def test_langgraph_dev_loads_the_graph_and_runs_a_research(langgraph_dev):
    with httpx.Client(base_url=langgraph_dev, timeout=httpx.Timeout(600)) as client:
        assistants = client.post("/assistants/search", json={"graph_id": "research"}).json()
        assert [a["graph_id"] for a in assistants] == ["research"]
        assistant_id = assistants[0]["assistant_id"]
        schemas = client.get(f"/assistants/{assistant_id}/schemas").json()
        options = schemas["context_schema"]["properties"]
        assert {"kb", "mode", "max_sub_questions", "claim_min_relevance"} <= set(options)
        nodes = {n["id"] for n in client.get(f"/assistants/{assistant_id}/graph").json()["nodes"]}
        assert {"analyze", "plan", "research_sub_question", "trust_engine", "write"} <= nodes

        bad = client.post("/runs/wait", json={"assistant_id": "research",
                                              "input": {"query": QUESTION},
                                              "context": {"kb": "bridges", "mode": "sideways"}})
        error = bad.json()["__error__"]  # the run fails with the field named; server lives on
        assert error["error"] == "ValidationError" and "mode" in error["message"]

        state = client.post("/runs/wait", json={
            "assistant_id": "research", "input": {"query": QUESTION},
            "context": {"kb": "bridges", "mode": "hierarchical"}}).json()
        assert state["config"]["kb"] == "bridges" and state["mode"] == "hierarchical"
        report = state["report_markdown"]
        assert report.startswith(f"# {QUESTION}")
        assert "Virlogeux" in report and "[S1]" in report

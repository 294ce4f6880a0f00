"""Research sessions on workers (issue 28): latency across processes and throughput by
worker count, on real processes (Redis from Debian's package, PostgreSQL, `serve`,
`research-studio worker`) on this machine.

    python benchmarks/scale_out.py --postgres postgresql://USER:PASS@127.0.0.1:5432/postgres \
        [--workers 1 2] [--sessions 6] [--events 50] [--json bench-out/scale_out.json]

Printed:
- event fan-out: an event stored by one process (this script, as a worker does) to its
  arrival at an SSE client of an API process (PostgreSQL NOTIFY), p50 / p95 / max;
- submission to start: POST to API B to the session's "running" status seen on a stream
  of API A (dispatch, the broker, a worker taking it, its first write, the fan-out);
- for each worker count: sessions per minute for ``--sessions`` sessions posted at once
  (the test corpus's two-hop question, flat and hierarchical alternating), and each
  worker's peak memory (VmHWM).

``--models offline`` (default): the embedded model as shipped, which the offline path
does not call. ``--models embedded``: the embedded model marked capable, so every stage
calls it, in each worker's own process. ``--models server``: the same model behind one
llama.cpp server (``llama_cpp.server``, OpenAI-compatible) that every worker calls.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research_studio.config import AppContext, Settings
from research_studio.store.backends import storage_backend
from research_studio.store.sessions import SessionStore
from tests.deployment import (
    deployment_env,
    free_redis,
    start_api,
    start_worker,
    stopped,
)
from tests.research_corpus import QUESTION
from tests.servers import free_port
from tests.service_server import read_events, upload_research_corpus, wait_for_status
from tests.storage import fresh_postgres_database

CONFIGS = [{"kb": "bridges", "mode": "flat", "clarify": "never"},
           {"kb": "bridges", "mode": "hierarchical", "clarify": "never"}]


EMBEDDED_STRONG = '[models.models.embedded]\ncapability = "strong"\n'
SERVER_MODELS = """[models.models.shared]
provider = "openai"
model = "SmolLM2-135M-Instruct"
base_url = "http://127.0.0.1:{port}/v1"
capability = "strong"
structured_method = "prompt"  # llama.cpp cannot compile the grammar of a long maxLength

[models.tiers]
low = ["shared"]
medium = ["shared"]
high = ["shared"]
"""


@contextmanager
def model_server(log: Path) -> Iterator[int]:
    """llama.cpp's OpenAI-compatible server with the embedded model, one thread; its
    output goes to ``log``."""
    from research_studio.models.embedded import bundled_gguf_path

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model",
                                str(bundled_gguf_path()), "--port", str(port), "--n_threads", "1",
                                "--n_ctx", "4096"], stdout=log.open("wb"),
                               stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def milliseconds(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1),
            "max_ms": round(ordered[-1] * 1000, 1), "n": len(ordered)}


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def fan_out(store: SessionStore, api, session_id: str, count: int) -> dict[str, float]:
    """Store ``count`` events here; time each until an SSE client of ``api`` reads it."""
    arrived: dict[int, float] = {}
    ready = threading.Event()

    def follow() -> None:
        with api.client() as client:
            def seen(event: dict) -> bool:
                ready.set()
                if event["kind"] == "note":
                    arrived[event["data"]["n"]] = time.time() - event["data"]["t"]
                return len(arrived) >= count
            read_events(client, session_id, stop_when=seen, timeout=120)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    store.add_event(session_id, "stage", {"stage": "benchmark"})
    ready.wait(30)
    for n in range(count):
        store.add_event(session_id, "note", {"n": n, "t": time.time()})
        time.sleep(0.05)
    thread.join(timeout=60)
    return milliseconds(list(arrived.values()))


def submission_to_start(api_a, api_b, runs: int) -> dict[str, float]:
    latencies = []
    for _ in range(runs):
        with api_b.client() as client:
            posted = time.time()
            session_id = client.post("/api/research/sessions",
                                     json={"query": QUESTION, "config": CONFIGS[0]}).json()["session_id"]
        with api_a.client() as client:
            read_events(client, session_id, timeout=300, stop_when=lambda e: e["kind"] == "status"
                        and e["data"]["status"] == "running")
            latencies.append(time.time() - posted)
            wait_for_status(client, session_id, {"completed", "failed", "cancelled"})
    return milliseconds(latencies)


def throughput(api_a, api_b, sessions: int) -> float:
    started = time.time()
    ids = []
    for n in range(sessions):
        api = api_a if n % 2 == 0 else api_b
        with api.client() as client:
            ids.append(client.post("/api/research/sessions", json={
                "query": QUESTION, "config": CONFIGS[n % 2]}).json()["session_id"])
    with api_a.client() as client:
        for session_id in ids:
            assert wait_for_status(client, session_id, {"completed", "failed", "cancelled"},
                                   timeout=1800)["status"] == "completed"
    return sessions / ((time.time() - started) / 60)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--postgres", required=True, help="an admin URL of a PostgreSQL server")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sessions", type=int, default=6)
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--models", choices=["offline", "embedded", "server"], default="offline")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with ExitStack() as stack:
        config_toml = {"offline": "", "embedded": EMBEDDED_STRONG}.get(args.models)
        if config_toml is None:
            config_toml = SERVER_MODELS.format(port=stack.enter_context(
                model_server(Path("bench-out/llama-server.log"))))
        run(args, config_toml)


def run(args: argparse.Namespace, config_toml: str) -> None:
    os.environ["RESEARCH_STUDIO_TEST_POSTGRES_URL"] = args.postgres
    results: dict = {"models": args.models, "workers": {}}
    base = Path(f"/tmp/scale-out-bench-{os.getpid()}")
    redis = free_redis()
    redis.start()
    try:
        for count in args.workers:
            home = base / f"w{count}" / "home"
            home.mkdir(parents=True)
            (home / "config.toml").write_text(config_toml)
            with fresh_postgres_database() as database_url:
                env = deployment_env(database_url, redis.url)
                api_a = start_api(home, database_url, env, "api-a")
                with stopped(api_a):
                    with api_a.client() as client:
                        upload_research_corpus(client)
                    api_b = start_api(home, database_url, env, "api-b")
                    workers = [start_worker(home, env, f"worker-{n}") for n in range(count)]
                    with stopped(api_b, *workers):
                        store = SessionStore(storage_backend(
                            AppContext(home, Settings(database_url=database_url))).sessions_url)
                        throughput(api_a, api_b, count)  # warm: every worker loads its models
                        if count == args.workers[0]:
                            # a session waiting for a person: its stream stays open, and no
                            # worker runs it
                            store.create("fan-out-probe", QUESTION, CONFIGS[0],
                                         status="awaiting_clarification")
                            results["fan_out"] = fan_out(store, api_a, "fan-out-probe", args.events)
                            results["submission_to_start"] = submission_to_start(
                                api_a, api_b, args.starts)
                            print(f"event fan-out: {results['fan_out']}")
                            print(f"submission to start: {results['submission_to_start']}")
                        rate = throughput(api_a, api_b, args.sessions)
                        memory = [round(peak_rss_mb(w.process.pid), 1) for w in workers]
                        results["workers"][count] = {"sessions_per_min": round(rate, 2),
                                                     "worker_peak_rss_mb": memory}
                        print(f"{count} worker(s): {rate:.2f} sessions/min for {args.sessions} "
                              f"sessions; peak RSS per worker {memory} MB")
    finally:
        redis.stop()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

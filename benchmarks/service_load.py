"""The HTTP service under load, with real research sessions running (embedded model).

For each session limit (``--limits 1,2,4``) a fresh ``research-studio serve`` starts on
127.0.0.1, ``--sessions`` research sessions are posted at once, and while they run a
bounded load (``--clients`` concurrent readers) hits the read endpoints. Printed per limit:
read requests per second and p50/p95 latency, time from POST to the first event and to
the first research stage, how many sessions ran at once, wall time for all sessions, and
the server's memory (idle, peak, and what each further running session adds).

    python benchmarks/service_load.py --home /tmp/bench-service [--limits 1,2,4] [--sessions 4]

The load generator shares the machine's 2 cores with the server, as a local client would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research_studio.config import load_context
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.knowledge.demo import DEMO_KB, python_docs_documents
from tests.service_server import running_server

QUESTIONS = [
    "How do context managers and the with statement work, and how do exceptions propagate "
    "out of a finally clause?",
    "How are default argument values evaluated in function definitions, and why does a mutable "
    "default keep its changes?",
    "What is the difference between the global and nonlocal statements, and how is a name "
    "resolved inside nested functions?",
    "How do generators and the yield expression work, and what happens when a generator is "
    "closed?",
    "How does Python compare sequences and what are the rules for comparing objects of "
    "different types?",
    "What do the break and continue statements do inside loops with an else clause?",
    "How are import statements resolved and what does the from ... import * form bind?",
    "How do lambda expressions differ from def statements?",
]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class MemorySampler(threading.Thread):
    """Peak resident memory of the server process, sampled every 0.1 s."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, rss_mb(self.pid))
            except OSError:
                return
            time.sleep(0.1)


async def first_events(client: httpx.AsyncClient, session_id: str, posted: float) -> dict[str, float]:
    """Seconds from POST to the first event and to the first research stage."""
    marks: dict[str, float] = {}
    async with client.stream("GET", f"/api/research/sessions/{session_id}/events",
                             timeout=httpx.Timeout(900)) as response:
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                kind = line[6:].strip()
                marks.setdefault("first_event_s", time.perf_counter() - posted)
                if kind == "stage":
                    marks["first_stage_s"] = time.perf_counter() - posted
                    return marks
    return marks


async def read_load(client: httpx.AsyncClient, session_ids: list[str], stop: asyncio.Event,
                    latencies: list[float], errors: list[str]) -> None:
    paths = ["/api/research/sessions?limit=20", "/healthz",
             *[f"/api/research/sessions/{sid}" for sid in session_ids]]
    i = 0
    while not stop.is_set():
        path = paths[i % len(paths)]
        i += 1
        started = time.perf_counter()
        try:
            response = await client.get(path)
            if response.status_code != 200:
                errors.append(f"{path}: {response.status_code}")
        except httpx.HTTPError as exc:
            errors.append(f"{path}: {exc}")
        latencies.append(time.perf_counter() - started)


async def run_limit(base_url: str, pid: int, sessions: int, clients: int) -> dict:
    sampler = MemorySampler(pid)
    idle = rss_mb(pid)
    sampler.start()
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
        started = time.perf_counter()
        ids, first = [], None
        for question in (QUESTIONS * 4)[:sessions]:
            posted = time.perf_counter()
            response = await client.post("/api/research/sessions", json={
                "query": question, "config": {"kb": DEMO_KB, "clarify": "never"}})
            response.raise_for_status()
            ids.append(response.json()["session_id"])
            if first is None:  # a client that follows its session right after posting it
                first = asyncio.create_task(first_events(client, ids[0], posted))
                await asyncio.sleep(0)
        stop, latencies, errors = asyncio.Event(), [], []
        readers = [asyncio.create_task(read_load(client, ids, stop, latencies, errors))
                   for _ in range(clients)]
        load_started = time.perf_counter()
        most_running, statuses = 0, {}
        while True:
            health = (await client.get("/healthz")).json()
            most_running = max(most_running, health["running"])
            statuses = {sid: (await client.get(f"/api/research/sessions/{sid}")).json()["status"]
                        for sid in ids}
            if all(s in ("completed", "failed", "cancelled") for s in statuses.values()):
                break
            await asyncio.sleep(0.5)
        wall = time.perf_counter() - started
        load_s = time.perf_counter() - load_started
        stop.set()
        await asyncio.gather(*readers)
        marks = await first
    sampler.stop.set()
    latencies.sort()
    return {
        "sessions": sessions, "completed": sum(s == "completed" for s in statuses.values()),
        "most_running_at_once": most_running, "wall_s": round(wall, 1),
        "sessions_per_min": round(60 * sessions / wall, 2),
        "read_requests": len(latencies), "read_rps": round(len(latencies) / load_s, 1),
        "read_p50_ms": round(1000 * statistics.median(latencies), 1),
        "read_p95_ms": round(1000 * latencies[int(0.95 * (len(latencies) - 1))], 1),
        "read_errors": len(errors),
        "post_to_first_event_ms": round(1000 * marks.get("first_event_s", float("nan")), 1),
        "post_to_first_stage_ms": round(1000 * marks.get("first_stage_s", float("nan")), 1),
        "rss_idle_mb": round(idle), "rss_peak_mb": round(sampler.peak),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--limits", default="1,2,4")
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    args.home.mkdir(parents=True, exist_ok=True)
    ctx = load_context(args.home)
    registry = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge)
    if DEMO_KB not in registry.names():
        print(f"building the {DEMO_KB} knowledge base...", flush=True)
        registry.open(DEMO_KB, create=True).ingest_documents(python_docs_documents())
    rows = []
    for limit in (int(x) for x in args.limits.split(",")):
        with running_server(args.home, max_sessions=limit, log_name=f"server-{limit}.log") as server:
            row = {"limit": limit, **asyncio.run(run_limit(server.base_url, server.process.pid,
                                                           args.sessions, args.clients))}
        # the model and embeddings load once per process; what each further running
        # session adds is the peak's growth over the one-at-a-time run
        base = rows[0] if rows else row
        more = row["most_running_at_once"] - base["most_running_at_once"]
        row["rss_per_extra_session_mb"] = (round((row["rss_peak_mb"] - base["rss_peak_mb"]) / more)
                                           if more > 0 else "")
        rows.append(row)
        print(json.dumps(row), flush=True)
    header = ("limit", "most_running_at_once", "completed", "wall_s", "sessions_per_min", "read_rps",
              "read_p50_ms", "read_p95_ms", "read_errors", "post_to_first_event_ms",
              "post_to_first_stage_ms", "rss_idle_mb", "rss_peak_mb", "rss_per_extra_session_mb")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(row[h]) for h in header) + " |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()

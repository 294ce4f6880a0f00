"""A plan-review round trip over HTTP, as a client of `research-studio serve` sees it.

A real server starts on a free port of 127.0.0.1 over a fresh home, the two-hop bridges
corpus is uploaded, and ``--runs`` sessions with ``review_plan`` are started one after the
other. Printed per run, in seconds, all read from the session's event stream (SSE):

- plan: from POST /sessions to the ``plan_review`` event (analysis and planning);
- ack: the POST /plan call itself (the decision is checked against the plan, then queued);
- resumed: from POST /plan to the first research stage of the resumed session;
- result: from POST /plan to the terminal status (the research itself);
- active: the session's own active time in the result (``usage.wall_s``).

Each run edits the plan: rewords the first sub-question, drops the last one when there are
more than two, and adds one.

    python benchmarks/plan_review_latency.py [--runs 3] [--workdir /tmp/bench-plan-review]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.service_server import read_events, running_server, upload_research_corpus

QUESTION = ("Compare the Millau Viaduct and the Normandy Bridge: who designed each and when "
            "did it open?")


class EventClock:
    """Follows a session's event stream in a thread and notes when each kind first came."""

    def __init__(self, client: httpx.Client, session_id: str) -> None:
        self.first: dict[str, float] = {}
        self.events: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self._follow, args=(client, session_id),
                                        daemon=True)
        self._thread.start()

    def _seen(self, event: dict[str, Any]) -> bool:
        key = event["kind"]
        if key == "stage":
            key = f"stage:{event['data']['stage']}"
        elif key == "status":
            key = f"status:{event['data']['status']}"
        self.first.setdefault(key, time.perf_counter())
        self.events.append(event)
        return key in ("status:completed", "status:failed", "status:cancelled")

    def _follow(self, client: httpx.Client, session_id: str) -> None:
        read_events(client, session_id, stop_when=self._seen, timeout=900)

    def wait_for(self, key: str, timeout: float = 900) -> float:
        deadline = time.monotonic() + timeout
        while key not in self.first:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {key} event")
            time.sleep(0.01)
        return self.first[key]

    def first_after(self, prefix: str, after: float) -> float:
        while True:
            hits = [t for k, t in self.first.items() if k.startswith(prefix) and t >= after]
            if hits:
                return min(hits)
            time.sleep(0.01)


def one_run(server_client: httpx.Client, make_client) -> dict[str, float]:
    started = time.perf_counter()
    created = server_client.post("/api/research/sessions", json={
        "query": QUESTION, "config": {"kb": "bridges", "clarify": "never", "review_plan": True}})
    created.raise_for_status()
    session_id = created.json()["session_id"]
    clock = EventClock(make_client(), session_id)
    planned = clock.wait_for("plan_review")
    plan = server_client.get(f"/api/research/sessions/{session_id}").json()["pending_plan"]
    rows = [{"id": sq["id"], "question": sq["question"], "priority": sq["priority"]}
            for sq in plan["sub_questions"]]
    rows[0]["question"] = "Who designed the Millau Viaduct?"
    if len(rows) > 2:
        rows.pop()
    rows.append({"id": None, "question": "When did the Normandy Bridge open?", "priority": 0.7})
    posted = time.perf_counter()
    answer = server_client.post(f"/api/research/sessions/{session_id}/plan",
                                json={"action": "edit", "sub_questions": rows})
    acked = time.perf_counter()
    answer.raise_for_status()
    resumed = clock.first_after("stage:research_sub_question", posted)
    ended = clock.wait_for("status:completed")
    result = server_client.get(f"/api/research/sessions/{session_id}/results").json()
    return {"plan": planned - started, "ack": acked - posted, "resumed": resumed - posted,
            "result": ended - posted, "active": result["usage"]["wall_s"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-plan-review-"))
    home = workdir / "home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    with running_server(home, max_sessions=1) as server, server.client() as client:
        upload_research_corpus(client)
        rows = [one_run(client, server.client) for _ in range(args.runs)]
    print(f"{'run':>4} {'plan':>7} {'ack':>7} {'resumed':>8} {'result':>8} {'active':>8}")
    for i, row in enumerate(rows, start=1):
        print(f"{i:>4} {row['plan']:>7.2f} {row['ack']:>7.3f} {row['resumed']:>8.2f} "
              f"{row['result']:>8.2f} {row['active']:>8.2f}")
    print("median " + "  ".join(f"{key} {statistics.median(r[key] for r in rows):.3f}"
                                for key in ("plan", "ack", "resumed", "result", "active")))


if __name__ == "__main__":
    main()

"""Latency of `research-studio mcp` as an MCP client sees it, over stdio and streamable HTTP.

For each transport a fresh server process starts (stdio: the client spawns it; HTTP: on a
free port of 127.0.0.1) and the official SDK's client calls the ``research`` tool with a
progress token, ``--runs`` times in a row. Printed per run: seconds from the call to the
first progress notification, to the first research stage (analyze), and to the result;
the session's own active time (``usage.wall_s``), so the rest is the server's queueing and
the protocol; and, once per server, the time from starting the process to a completed
``initialize``.

    python benchmarks/mcp_latency.py --home /tmp/bench-mcp [--kb python-docs] [--runs 3]

The knowledge base defaults to the ``python-docs`` one the ``demo`` command builds (built
here when the home lacks it, about 40 s), and the question to the demo's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from research_studio.cli_research import DEMO_QUESTION
from research_studio.config import load_context
from research_studio.knowledge.base import KnowledgeBaseRegistry
from research_studio.knowledge.demo import DEMO_KB, python_docs_documents
from tests.child_env import child_env
from tests.servers import free_port

CLI = Path(sys.executable).parent / "research-studio"


@asynccontextmanager
async def over_stdio(home: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(CLI), args=["mcp", "--home", str(home)],
                                   env=child_env(HOME=str(home)))
    with (home.parent / "mcp-bench-stdio.log").open("a") as errlog:
        async with (stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session):
            await session.initialize()
            yield session


@asynccontextmanager
async def over_http(home: Path) -> AsyncIterator[ClientSession]:
    port = free_port()
    with (home.parent / "mcp-bench-http.log").open("ab") as log:
        process = subprocess.Popen(
            [str(CLI), "mcp", "--transport", "http", "--port", str(port), "--home", str(home)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            env=child_env(HOME=str(home)))
        try:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"the MCP server exited with {process.returncode}")
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.1)
            async with (httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=900)) as http,
                        streamable_http_client(f"http://127.0.0.1:{port}/mcp",
                                               http_client=http) as (read, write),
                        ClientSession(read, write) as session):
                await session.initialize()
                yield session
        finally:
            process.terminate()
            process.wait(timeout=60)


async def one_research(session: ClientSession, question: str, kb: str) -> dict[str, Any]:
    marks: dict[str, float] = {}
    called = time.perf_counter()

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        now = time.perf_counter() - called
        marks.setdefault("first_progress_s", now)
        if value > 0 and "first_stage_s" not in marks:
            marks["first_stage_s"] = now
        marks["notifications"] = marks.get("notifications", 0) + 1

    result = await session.call_tool("research", {"question": question, "kb": kb},
                                     progress_callback=on_progress)
    marks["result_s"] = time.perf_counter() - called
    if result.is_error:
        raise RuntimeError(result.content[0].text)
    outcome = result.structured_content
    full = await session.call_tool("session_result", {"session_id": outcome["session_id"]})
    return {"status": outcome["status"], "session_wall_s": full.structured_content["usage"]["wall_s"],
            **marks}


async def run_transport(name: str, home: Path, question: str, kb: str, runs: int) -> list[dict]:
    connect = over_stdio if name == "stdio" else over_http
    started = time.perf_counter()
    rows = []
    async with connect(home) as session:
        ready = time.perf_counter() - started
        for run in range(1, runs + 1):
            row = {"transport": name, "run": run, "start_to_initialized_s": ready,
                   **await one_research(session, question, kb)}
            rows.append({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--kb", default=DEMO_KB, help=f"knowledge base (default {DEMO_KB})")
    parser.add_argument("--question", default=DEMO_QUESTION)
    parser.add_argument("--runs", type=int, default=3, help="researches per transport")
    parser.add_argument("--transports", default="stdio,http")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    args.home.mkdir(parents=True, exist_ok=True)
    ctx = load_context(args.home)
    registry = KnowledgeBaseRegistry(ctx.kb_dir, ctx.settings.knowledge)
    if args.kb not in registry.names():
        if args.kb != DEMO_KB:
            sys.exit(f"no knowledge base {args.kb!r} in {args.home}")
        print(f"building the {DEMO_KB} knowledge base...", flush=True)
        registry.open(DEMO_KB, create=True).ingest_documents(python_docs_documents())
    rows = []
    for transport in args.transports.split(","):
        rows += asyncio.run(run_transport(transport, args.home, args.question, args.kb, args.runs))
    header = ("transport", "run", "start_to_initialized_s", "first_progress_s", "first_stage_s",
              "result_s", "session_wall_s", "notifications", "status")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(row.get(h, "")) for h in header) + " |")
    for transport in args.transports.split(","):
        mine = [r for r in rows if r["transport"] == transport]
        print(f"{transport}: median call → first progress "
              f"{1000 * statistics.median(r['first_progress_s'] for r in mine):.0f} ms, "
              f"→ first stage {statistics.median(r['first_stage_s'] for r in mine):.2f} s, "
              f"→ result {statistics.median(r['result_s'] for r in mine):.2f} s "
              f"(session active {statistics.median(r['session_wall_s'] for r in mine):.2f} s)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()

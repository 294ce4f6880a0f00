"""Fuzz the HTTP API from its own OpenAPI schema with Schemathesis, for a bounded time.

A fresh ``research-studio serve`` starts on 127.0.0.1 with a temporary home and a
one-document knowledge base; one research session is run to completion so that the
event stream, results and cancel routes also see a real session id. Then every operation
in ``/openapi.json`` gets rounds of generated requests, schema-valid (positive) and
schema-invalid (negative), until the time is up. Printed: requests made, server errors
(5xx), broken event streams (a 200 stream that ends in a protocol error), schema
violations (status code, content type, headers or body not as documented), invalid data
accepted, and the distinct failures with one example each.

    python benchmarks/api_fuzz.py [--seconds 120] [--examples 15] [--seed 0]

The server runs without an API key (loopback), so 401s are not exercised. One "invalid
data accepted" is Schemathesis's own: a ``null`` upload item is sent as a file whose
content is the text ``null``, which is a valid upload. A refusal with a status Schemathesis
does not expect of invalid data (413 for a body over the limit) is not counted as accepted.

Needs the optional extra: ``pip install 'schemathesis>=4.3,<5'`` (``.[fuzz]``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.service_server import running_server, wait_for_status

DOCUMENT = ("# Bridges\n\nThe Millau Viaduct in southern France was designed by the engineer "
            "Michel Virlogeux with the architect Norman Foster and opened in 2004.\n")
SCHEMA_CHECKS = {
    status_code_conformance: "undocumented status code",
    content_type_conformance: "undocumented content type",
    response_headers_conformance: "undocumented headers",
    response_schema_conformance: "body does not match its schema",
}
CHECKS = [not_a_server_error, *SCHEMA_CHECKS, negative_data_rejection]


@dataclass
class Figures:
    """What the fuzzing found, counted per request and per distinct failure."""

    requests: int = 0
    server_errors: int = 0
    broken_streams: int = 0
    open_streams: int = 0
    schema_violations: int = 0
    accepted_invalid: int = 0
    statuses: Counter = field(default_factory=Counter)
    failures: dict[str, str] = field(default_factory=dict)

    def record_failure(self, operation: str, title: str, example: str) -> None:
        self.failures.setdefault(f"{operation}: {title}", example[:600])


def classify(figures: Figures, label: str, failure: Failure, case: schemathesis.Case,
             status: int) -> None:
    """Count one check failure under the figure it belongs to."""
    check = type(failure).__name__
    if "ServerError" in check:
        figures.server_errors += 1
    elif "AcceptedNegativeData" in check:
        if status >= 400:  # refused, by a status Schemathesis does not expect (413)
            return
        figures.accepted_invalid += 1
    else:
        figures.schema_violations += 1
    figures.record_failure(label, failure.title,
                           f"{failure.message} -- reproduce: {case.as_curl_command()}")


def exercise(figures: Figures, base_url: str, case: schemathesis.Case, deadline: float) -> None:
    """Send one generated request and check its response; never raises, so generation goes
    on after a failure and every distinct one is counted."""
    if time.monotonic() > deadline:
        return
    label = f"{case.method} {case.path}"
    try:
        response = case.call(base_url=base_url, timeout=(5, 15))
    except requests.exceptions.ReadTimeout:
        figures.requests += 1
        figures.open_streams += 1  # an event stream of a session still running: not broken
        return
    except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ConnectionError) as exc:
        figures.requests += 1
        figures.broken_streams += 1
        figures.record_failure(label, "response broke off", f"{exc!r} for {case.as_curl_command()}")
        return
    figures.requests += 1
    figures.statuses[response.status_code] += 1
    try:
        case.validate_response(response, checks=CHECKS)
    except FailureGroup as group:
        for failure in group.exceptions:
            classify(figures, label, failure, case, response.status_code)
    except Failure as failure:
        classify(figures, label, failure, case, response.status_code)


def one_session(base_url: str) -> str:
    """Upload the document and run one session to completion; its id feeds the fuzzing."""
    with httpx.Client(base_url=base_url, timeout=300) as client:
        files = [("files", ("bridges.md", DOCUMENT.encode(), "text/markdown"))]
        assert client.post("/api/knowledge-bases/bridges/documents", files=files).status_code == 201
        created = client.post("/api/research/sessions", json={
            "query": "Who designed the Millau Viaduct?",
            "config": {"kb": "bridges", "clarify": "never", "mode": "flat"}})
        session_id = created.json()["session_id"]
        wait_for_status(client, session_id, {"completed", "failed"}, timeout=300)
    return session_id


def fuzz(base_url: str, seconds: float, examples: int, base_seed: int) -> Figures:
    """Rounds over every operation and both generation modes until ``seconds`` pass."""
    schema = schemathesis.openapi.from_url(f"{base_url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    known = {"session_id": one_session(base_url), "name": "bridges"}
    figures = Figures()
    deadline = time.monotonic() + seconds
    round_number = 0
    barren: set[tuple[str, GenerationMode]] = set()  # e.g. no parameter to make invalid
    while time.monotonic() < deadline:
        for operation in operations:
            for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
                if (operation.label, mode) in barren:
                    continue
                # every other round aims at the real session and knowledge base
                fixed = {k: v for k, v in known.items() if k in operation.path} \
                    if round_number % 2 else None
                strategy = operation.as_strategy(generation_mode=mode, path_parameters=fixed)

                @seed(base_seed + round_number)
                @settings(max_examples=examples, deadline=None, database=None,
                          phases=[Phase.generate], suppress_health_check=list(HealthCheck))
                @given(case=strategy)
                def run(case: schemathesis.Case) -> None:
                    exercise(figures, base_url, case, deadline)

                try:
                    run()
                except Unsatisfiable:
                    barren.add((operation.label, mode))
                if time.monotonic() > deadline:
                    return figures
        round_number += 1
    return figures


def report(figures: Figures, seconds: float) -> None:
    print(f"fuzzed for {seconds:.0f} s")
    print(f"requests made:          {figures.requests}")
    print(f"server errors (5xx):    {figures.server_errors}")
    print(f"broken event streams:   {figures.broken_streams}")
    print(f"schema violations:      {figures.schema_violations}")
    print(f"invalid data accepted:  {figures.accepted_invalid}")
    print(f"streams still open at the read timeout (not failures): {figures.open_streams}")
    print("statuses:", ", ".join(f"{s}: {n}" for s, n in sorted(figures.statuses.items())))
    print(f"distinct failures:      {len(figures.failures)}")
    for key, example in sorted(figures.failures.items()):
        print(f"  - {key}\n      {' '.join(example.split())}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--examples", type=int, default=15,
                        help="generated requests per operation and mode in one round")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="api-fuzz-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        with running_server(home, max_sessions=1) as server:
            started = time.monotonic()
            figures = fuzz(server.base_url, args.seconds, args.examples, args.seed)
            report(figures, time.monotonic() - started)
            if server.process.poll() is not None:
                print("the server died during fuzzing:\n" + server.log())
                return 1
    failed = figures.server_errors + figures.broken_streams + figures.schema_violations
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

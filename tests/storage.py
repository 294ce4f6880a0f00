"""Both storage backends for tests: SQLite in the test's home, and a fresh database on the
PostgreSQL server that `.ci/run` starts (RESEARCH_STUDIO_TEST_POSTGRES_URL)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import pytest

BACKENDS = ["sqlite", "postgresql"]


@contextmanager
def fresh_postgres_database() -> Iterator[str]:
    """A new empty database on the test server, dropped afterwards."""
    admin = os.environ.get("RESEARCH_STUDIO_TEST_POSTGRES_URL")
    if not admin:
        if os.environ.get("RESEARCH_STUDIO_REQUIRE_POSTGRES") == "1":
            pytest.fail("RESEARCH_STUDIO_TEST_POSTGRES_URL is not set but PostgreSQL is required")
        pytest.skip("no PostgreSQL server (set RESEARCH_STUDIO_TEST_POSTGRES_URL; .ci/run does)")
    import psycopg

    name = f"rs_test_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(admin)._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """'' selects SQLite files in the home; otherwise a PostgreSQL URL."""
    if request.param == "sqlite":
        yield ""
        return
    with fresh_postgres_database() as url:
        yield url

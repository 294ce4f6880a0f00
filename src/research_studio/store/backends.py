"""Where sessions and checkpoints live: SQLite files in the home, or one PostgreSQL database.

One setting (``database_url`` / ``RESEARCH_STUDIO_DATABASE_URL``) selects the backend for
both the sessions database and the LangGraph checkpointer, so a team moves the whole
state of the engine to a server by changing one line.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from langgraph.checkpoint.base import BaseCheckpointSaver

from research_studio.config import AppContext
from research_studio.errors import ConfigError
from research_studio.store.sessions import SessionStore

POSTGRES_SCHEMES = {"postgres", "postgresql", "postgresql+psycopg"}


@dataclass(frozen=True)
class StorageBackend:
    """The resolved storage of one home: ``kind`` is ``sqlite`` or ``postgresql``."""

    kind: str
    sessions_url: str  # SQLAlchemy URL
    checkpoint_target: str  # a file path (SQLite) or a libpq connection URL (PostgreSQL)

    def describe(self) -> str:
        """The backend without credentials, for logs and error messages."""
        if self.kind == "sqlite":
            return f"SQLite ({self.checkpoint_target})"
        parts = urlsplit(self.checkpoint_target)
        return f"PostgreSQL ({parts.hostname}:{parts.port or 5432}{parts.path})"


def storage_backend(ctx: AppContext) -> StorageBackend:
    url = (ctx.settings.database_url or "").strip()
    if not url:
        return StorageBackend("sqlite", f"sqlite:///{ctx.home / 'sessions.db'}",
                              str(ctx.home / "checkpoints.db"))
    parts = urlsplit(url)
    if parts.scheme not in POSTGRES_SCHEMES:
        raise ConfigError(f"database_url must be empty (SQLite in the home) or a postgresql:// URL, "
                          f"not {parts.scheme or url!r}://…")
    libpq = urlunsplit(("postgresql", *parts[1:]))
    return StorageBackend("postgresql", urlunsplit(("postgresql+psycopg", *parts[1:])), libpq)


def session_store(ctx: AppContext) -> SessionStore:
    return SessionStore(storage_backend(ctx).sessions_url)


_prepared_postgres: set[str] = set()


@asynccontextmanager
async def open_checkpointer(backend: StorageBackend) -> AsyncIterator[BaseCheckpointSaver]:
    """An async checkpointer on the selected backend, its tables created on first use."""
    if backend.kind == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        async with AsyncSqliteSaver.from_conn_string(backend.checkpoint_target) as saver:
            yield saver
        return
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    async with AsyncPostgresSaver.from_conn_string(backend.checkpoint_target) as saver:
        if backend.checkpoint_target not in _prepared_postgres:
            await saver.setup()
            _prepared_postgres.add(backend.checkpoint_target)
        yield saver

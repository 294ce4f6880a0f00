"""Where sessions and checkpoints live: SQLite files in the home, or one PostgreSQL database.

One setting (``database_url`` / ``RESEARCH_STUDIO_DATABASE_URL``) selects the backend for
both the sessions database and the LangGraph checkpointer, so a team moves the whole
state of the engine to a server by changing one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from research_studio.config import AppContext
from research_studio.errors import ConfigError, StorageError
from research_studio.store.faults import (
    CHECKPOINTS,
    check_marker_table,
    check_sqlite_file,
    create_atomically,
    fault,
    is_storage_exception,
    reason,
    remote_fault,
    sqlite_tables,
    storage_faults,
)
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
    missing = [name for name in ("psycopg", "psycopg_pool", "langgraph.checkpoint.postgres")
               if not _installed(name)]
    if missing:
        raise ConfigError("database_url names PostgreSQL, but its driver is not installed "
                          f"({', '.join(missing)}): pip install 'research-studio[postgres]'")
    libpq = urlunsplit(("postgresql", *parts[1:]))
    return StorageBackend("postgresql", urlunsplit(("postgresql+psycopg", *parts[1:])), libpq)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def session_store(ctx: AppContext) -> SessionStore:
    return SessionStore(storage_backend(ctx).sessions_url)


def _create_checkpoints_file(path: Path) -> None:
    """A new checkpoints database with LangGraph's tables (linked into place by the caller)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(str(path))
    try:
        SqliteSaver(conn).setup()
    finally:
        conn.close()


def prepare_checkpoints(backend: StorageBackend) -> None:
    """SQLite: create a missing checkpoints file complete, and refuse one that is not a
    file, is empty (truncated), is not SQLite or is someone else's database, before any
    connection could create or change it. PostgreSQL is checked when it is opened."""
    if backend.kind != "sqlite":
        return
    path = Path(backend.checkpoint_target)
    if not check_sqlite_file(CHECKPOINTS, path):
        create_atomically(CHECKPOINTS, path, _create_checkpoints_file)
        return
    with storage_faults(CHECKPOINTS, path):
        tables = sqlite_tables(path)
    check_marker_table(CHECKPOINTS, path, tables)


# The state's only non-JSON value: the run's configuration (state.py). Named, so LangGraph
# reads it back without its "unregistered type" warning, and nothing else unknown at all.
CHECKPOINT_TYPES = [("research_studio.config", "ResearchConfig")]


def checkpoint_serializer() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=CHECKPOINT_TYPES)


class _GuardedSqliteSaver(AsyncSqliteSaver):
    """LangGraph's SQLite checkpointer whose database errors name the file (StorageError).
    A checkpoint that cannot be read at all is one too: the session cannot resume from it."""

    def __init__(self, conn: Any, path: Path) -> None:
        super().__init__(conn, serde=checkpoint_serializer())
        self.path = path

    def _fault(self, exc: Exception) -> StorageError:
        return fault(CHECKPOINTS, self.path, exc)

    @contextmanager
    def _database_errors(self) -> Iterator[None]:
        """A database error raised inside becomes the StorageError naming the file; any
        other error (a bug, a bad statement) passes unchanged."""
        try:
            yield
        except Exception as exc:
            if not is_storage_exception(exc):
                raise
            raise self._fault(exc) from exc

    async def setup(self) -> None:
        with self._database_errors():
            await super().setup()

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        try:
            return await super().aget_tuple(config)
        except StorageError:
            raise
        except Exception as exc:
            if is_storage_exception(exc):
                raise self._fault(exc) from exc
            thread = config.get("configurable", {}).get("thread_id")
            raise StorageError(
                f"checkpoints database {self.path}: the checkpoint of session {thread} cannot "
                f"be read ({reason(exc)}); the session cannot resume from it, so ask its "
                "question again") from exc

    async def alist(self, config: RunnableConfig | None, **kwargs: Any
                    ) -> AsyncIterator[CheckpointTuple]:
        with self._database_errors():
            async for item in super().alist(config, **kwargs):
                yield item

    async def aput(self, *args: Any, **kwargs: Any) -> RunnableConfig:
        with self._database_errors():
            return await super().aput(*args, **kwargs)

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        with self._database_errors():
            await super().aput_writes(*args, **kwargs)

    async def adelete_thread(self, thread_id: str) -> None:
        try:
            await super().adelete_thread(thread_id)
        except Exception as exc:
            if not is_storage_exception(exc):
                raise
            raise self._fault(exc) from exc


_prepared_postgres: set[str] = set()


@asynccontextmanager
async def open_checkpointer(backend: StorageBackend) -> AsyncIterator[BaseCheckpointSaver]:
    """An async checkpointer on the selected backend, its tables created on first use. A
    storage fault, on opening or in use, is a StorageError naming the database."""
    if backend.kind == "sqlite":
        import aiosqlite

        path = Path(backend.checkpoint_target)
        prepare_checkpoints(backend)
        with storage_faults(CHECKPOINTS, path):
            conn = await aiosqlite.connect(str(path))
        try:
            saver = _GuardedSqliteSaver(conn, path)
            await saver.setup()
            yield saver
        finally:
            with contextlib.suppress(Exception):  # closing cannot lose what was committed
                await conn.close()
        return
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

    async with contextlib.AsyncExitStack() as stack:
        try:
            saver = await stack.enter_async_context(
                AsyncPostgresSaver.from_conn_string(backend.checkpoint_target,
                                                    serde=checkpoint_serializer()))
            if backend.checkpoint_target not in _prepared_postgres:
                await saver.setup()
                _prepared_postgres.add(backend.checkpoint_target)
        except Exception as exc:
            raise remote_fault(CHECKPOINTS, backend.describe(), exc) from exc
        yield saver


async def _probe_checkpointer(backend: StorageBackend) -> None:
    async with open_checkpointer(backend) as saver:
        await saver.aget_tuple({"configurable": {"thread_id": "storage-check"}})


def verify_storage(ctx: AppContext) -> StorageBackend:
    """Open the sessions database and the checkpointer once (creating them on a first run),
    so that a fault is one StorageError now, before a server starts (not a traceback and
    exit status 3 from inside uvicorn). Not for use inside a running event loop."""
    backend = storage_backend(ctx)
    SessionStore(backend.sessions_url).engine.dispose()
    asyncio.run(_probe_checkpointer(backend))
    return backend
